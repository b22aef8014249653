/* Ratings: one scale (1-5 stars) from every tag format, stored in the
 * database, set by crate without touching files, queryable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "coll/eval.h"
#include "medialib/index.h"
#include "medialib/media.h"
#include "medialib/scan.h"
#include "medialib/rating.h"
#include "test_medialib_util.h"

TEST(text_values_map_onto_stars)
{
	CHECK_INT(mlib_rating_from_text("4"), 4);
	CHECK_INT(mlib_rating_from_text(" 5 "), 5);
	CHECK_INT(mlib_rating_from_text("80"), 4);   /* percent */
	CHECK_INT(mlib_rating_from_text("100"), 5);
	CHECK_INT(mlib_rating_from_text("20"), 1);
	CHECK_INT(mlib_rating_from_text("0.6"), 3);  /* share */
	CHECK_INT(mlib_rating_from_text("196"), 4);  /* POPM byte */
	CHECK_INT(mlib_rating_from_text("0"), 0);
	CHECK_INT(mlib_rating_from_text("great"), 0);
	CHECK_INT(mlib_rating_from_text("-3"), 0);
	CHECK_INT(mlib_rating_from_text("999"), 0);
	CHECK_INT(mlib_rating_from_popm(1), 1);
	CHECK_INT(mlib_rating_from_popm(64), 2);
	CHECK_INT(mlib_rating_from_popm(128), 3);
	CHECK_INT(mlib_rating_from_popm(196), 4);
	CHECK_INT(mlib_rating_from_popm(255), 5);
	CHECK_INT(mlib_rating_from_popm(0), 0);
}

TEST(id3_popm_and_txxx)
{
	/* ID3v2.3: TXXX RATING=2, then POPM 196 (POPM wins). */
	unsigned char b[128] = "ID3\x03\x00\x00";
	size_t p = 10;
	const char txxx[] = "\x00RATING\x00" "2";
	memcpy(b + p, "TXXX\x00\x00\x00\x09\x00\x00", 10);
	memcpy(b + p + 10, txxx, 9);
	p += 19;
	const char popm[] = "a@b\x00\xc4\x00\x00\x00\x01";
	memcpy(b + p, "POPM\x00\x00\x00\x09\x00\x00", 10);
	memcpy(b + p + 10, popm, 9);
	p += 19;
	b[9] = (unsigned char)(p - 10);
	CHECK_INT(mlib_rating_from_id3v2(b, p), 4);
	/* Without the POPM frame: the TXXX. */
	b[9] = 19;
	CHECK_INT(mlib_rating_from_id3v2(b, 29), 2);
	/* A frame longer than the tag: ignored, no read past the end. */
	b[7 + 10] = 0x7f;
	CHECK_INT(mlib_rating_from_id3v2(b, 29), 0);
	CHECK_INT(mlib_rating_from_id3v2((const unsigned char *)"ID3", 3), 0);
}

static uint32_t find(struct mlib_db *db, const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	uint32_t id = 0;
	struct crate_err err = {0};
	mlib_media_find_url(db, p, strlen(p), &id, &err);
	free(p);
	return id;
}

static int64_t rating_of(struct app *app, uint32_t id)
{
	int64_t v = 0;
	int prop = mlib_index_prop(app->index, "rating");
	if (prop < 0 || !mlib_index_int_value(app->index, prop, id, &v))
		return 0;
	return v;
}

TEST(corpus_files_give_their_ratings_and_crate_keeps_its_own)
{
	const char *corpus = harness_corpus_dir();
	if (!corpus)
		harness_skip("../shared/corpus not found");
	const char *dir = harness_tmpdir();
	static const struct {
		const char *file;
		int stars;
	} files[] = {
		{"musicmetadata-rating_testcase.flac", 4},     /* RATING=80 */
		{"musicmetadata-rating_testcase.opus", 4},     /* RATING=80 */
		{"musicmetadata-rating_testcase.m4a", 4},      /* rate "80" */
		{"musicmetadata-rating_testcase-3star.mp3", 3}, /* POPM 128 */
	};
	char *music = xasprintf("%s/music", dir);
	REQUIRE(tm_run((char *const[]){"mkdir", "-p", music, NULL}) == 0);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *src = xasprintf("%s/%s", corpus, files[i].file);
		REQUIRE(tm_run((char *const[]){"cp", src, music, NULL}) == 0);
		free(src);
	}
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	FILE *f = fopen(cfg, "w");
	REQUIRE(f);
	fclose(f);
	struct app_opts o = {.db_path = db, .config_path = cfg};
	struct app *app;
	struct crate_err err = {0};
	REQUIRE(app_open(&app, &o, &err) == 0);
	struct mlib_scan_result res = {0};
	const char *paths[] = {music};
	CHECK(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0);
	mlib_scan_result_free(&res);
	char *real = realpath(music, NULL);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		uint32_t id = find(app->db, real, files[i].file);
		CHECK_MSG(id != 0, "%s not indexed", files[i].file);
		if (files[i].stars >= 0)
			CHECK_MSG(rating_of(app, id) == files[i].stars, "%s: rating %lld, want %d",
				  files[i].file, (long long)rating_of(app, id), files[i].stars);
	}
	/* Queryable on the one scale. */
	struct coll_result r = {0};
	REQUIRE(app_eval_query(app, "r>=4", false, &r, &err) == 0);
	CHECK_INT(r.ids.n, 3);
	coll_result_free(&r);
	/* Set in crate: kept in the database, wins over the file at a rescan. */
	uint32_t mp3 = find(app->db, real, "musicmetadata-rating_testcase-3star.mp3");
	REQUIRE(app_set_rating(app, mp3, 5, &err) == 0);
	char *file = xasprintf("%s/musicmetadata-rating_testcase-3star.mp3", real);
	REQUIRE(tm_run((char *const[]){"touch", "-d", "2001-01-01", file, NULL}) == 0);
	CHECK_MSG(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0, "rescan: %s", err.msg);
	mlib_scan_result_free(&res);
	REQUIRE(app_reload_index(app, &err) == 0);
	CHECK_INT(rating_of(app, mp3), 5);
	REQUIRE(app_eval_query(app, "r:5", false, &r, &err) == 0);
	CHECK(r.ids.n == 1 && r.ids.v[0] == mp3);
	coll_result_free(&r);
	/* Several at once (marked rows): one transaction, so an id that is
	 * gone leaves every rating as it was, in the database and the index. */
	REQUIRE(app_eval_query(app, "*", false, &r, &err) == 0);
	REQUIRE(r.ids.n >= 3);
	uint32_t some[3] = {r.ids.v[0], r.ids.v[1], 999999};
	int64_t before[2] = {rating_of(app, some[0]), rating_of(app, some[1])};
	CHECK(app_set_ratings(app, some, 3, 2, &err) == -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	REQUIRE(app_reload_index(app, &err) == 0);
	CHECK_INT(rating_of(app, some[0]), before[0]);
	CHECK_INT(rating_of(app, some[1]), before[1]);
	CHECK(app_set_ratings(app, r.ids.v, r.ids.n, 2, &err) == 0);
	CHECK_INT(rating_of(app, r.ids.v[r.ids.n - 1]), 2); /* the index follows */
	REQUIRE(app_reload_index(app, &err) == 0);
	for (size_t i = 0; i < r.ids.n; i++)
		CHECK_INT(rating_of(app, r.ids.v[i]), 2);
	CHECK(app_set_ratings(app, r.ids.v, 2, 0, &err) == 0); /* 0 clears */
	CHECK_INT(rating_of(app, r.ids.v[0]), 0);
	coll_result_free(&r);
	free(file);
	free(real);
	app_close(app);
	free(db);
	free(cfg);
	free(music);
}
