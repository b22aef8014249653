/* medialib/index fast build path (property handles, unique values, radix
 * library order) and medialib/index_load on a real database: the fast
 * path must give the same index as the name-based builder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "medialib/media.h"
#include "medialib/tags.h"
#include "test_medialib_util.h"

/* Deterministic pseudo-random numbers (xorshift). */
static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 32);
}

/* Everything observable about one item's property, as text. */
static void describe(const struct mlib_index *idx, int p, uint32_t id, char *out, size_t n)
{
	out[0] = '\0';
	if (mlib_index_prop_kind(idx, p) == MLIB_PROP_INT) {
		int64_t v;
		if (mlib_index_int_value(idx, p, id, &v))
			snprintf(out, n, "i%lld", (long long)v);
		return;
	}
	const uint32_t *vids;
	size_t k = mlib_index_str_values(idx, p, id, &vids);
	for (size_t j = 0; j < k; j++)
		snprintf(out + strlen(out), n - strlen(out), "[%s|%s]",
			 mlib_index_dict_text(idx, p, vids[j]), mlib_index_dict_folded(idx, p, vids[j]));
}

/* a and b hold the same properties, values, dictionaries and order. */
static void check_same_index(const struct mlib_index *a, const struct mlib_index *b)
{
	CHECK_INT(mlib_index_count(a), mlib_index_count(b));
	CHECK_INT(mlib_index_id_bound(a), mlib_index_id_bound(b));
	REQUIRE(mlib_index_prop_count(a) == mlib_index_prop_count(b));
	for (int p = 0; p < mlib_index_prop_count(a); p++) {
		CHECK_STR(mlib_index_prop_name(a, p), mlib_index_prop_name(b, p));
		CHECK_INT(mlib_index_prop_kind(a, p), mlib_index_prop_kind(b, p));
		CHECK_INT(mlib_index_dict_size(a, p), mlib_index_dict_size(b, p));
		for (uint32_t id = 0; id < mlib_index_id_bound(a); id++) {
			char da[512], db[512];
			describe(a, p, id, da, sizeof da);
			describe(b, p, id, db, sizeof db);
			if (strcmp(da, db) != 0) {
				CHECK_STR(da, db);
				return;
			}
		}
	}
	const struct u32vec *oa = mlib_index_library_order(a), *ob = mlib_index_library_order(b);
	REQUIRE(oa->n == ob->n);
	for (size_t i = 0; i < oa->n; i++)
		if (oa->v[i] != ob->v[i]) {
			CHECK_INT(oa->v[i], ob->v[i]);
			return;
		}
}

TEST(handles_build_the_same_index_as_names)
{
	static const char *const artists[] = { "ABBA", "abba", "Zappa", "Björk", "björk", "42" };
	static const char *const props[] = { "url", "artist", "year", "tracknr", "title", "genre" };
	struct mlib_index *by_name = mlib_index_new(), *by_handle = mlib_index_new();
	int h[6] = { -1, -1, -1, -1, -1, -1 };
	uint64_t seed = 0x1234567u;
	bool converted = false;
	for (uint32_t id = 1; id <= 3000; id++) {
		if (rnd(&seed) % 10 == 0)
			continue; /* holes in the ids */
		mlib_index_add_media(by_name, id);
		mlib_index_add_media(by_handle, id);
		char url[64], title[32];
		snprintf(url, sizeof url, "/Music/%u/Track %u.flac", rnd(&seed) % 50, id);
		snprintf(title, sizeof title, "Song %u", rnd(&seed) % 700);
		const char *artist = artists[rnd(&seed) % 6];
		int64_t year = 1950 + rnd(&seed) % 70;
		for (int c = 0; c < 6; c++) {
			if ((c > 0 && rnd(&seed) % 8 == 0) || c == 5)
				continue; /* missing tag; genre: never given a value */
			if (h[c] < 0) /* defined at the first value, as the loader does */
				h[c] = mlib_index_prop_define(by_handle, props[c],
							      c == 2 || c == 3 ? MLIB_PROP_INT
									       : MLIB_PROP_STRING);
			switch (c) {
			case 0:
				mlib_index_add_str(by_name, id, "url", url, strlen(url));
				mlib_index_add_unique_str_p(by_handle, id, h[c], url, strlen(url));
				break;
			case 1:
				mlib_index_add_str(by_name, id, "artist", artist, strlen(artist));
				mlib_index_add_str_p(by_handle, id, h[c], artist, strlen(artist));
				if (id % 7 == 0) { /* a second value */
					mlib_index_add_str(by_name, id, "artist", "Guest", 5);
					mlib_index_add_str_p(by_handle, id, h[c], "Guest", 5);
				}
				break;
			case 2:
				mlib_index_set_int(by_name, id, "year", year);
				mlib_index_set_int_p(by_handle, id, h[c], year);
				break;
			case 3: /* integer column later turned into a string column */
				if (id >= 2500 && !converted) {
					converted = true;
					mlib_index_add_str(by_name, id, "tracknr", "A1", 2);
					mlib_index_add_str_p(by_handle, id, h[c], "A1", 2);
				} else {
					mlib_index_set_int(by_name, id, "tracknr", id % 13);
					mlib_index_set_int_p(by_handle, id, h[c], id % 13);
				}
				break;
			case 4:
				mlib_index_add_str(by_name, id, "title", title, strlen(title));
				mlib_index_add_str_p(by_handle, id, h[c], title, strlen(title));
				break;
			default:
				break;
			}
		}
	}
	mlib_index_finish(by_name);
	mlib_index_finish(by_handle);
	CHECK_INT(mlib_index_prop(by_handle, "genre"), -1); /* never defined */
	CHECK(converted);
	CHECK_INT(mlib_index_prop_kind(by_handle, mlib_index_prop(by_handle, "tracknr")),
		  MLIB_PROP_STRING);
	check_same_index(by_name, by_handle);
	/* Bad handles are ignored, not crashes. */
	mlib_index_add_str_p(by_handle, 1, 99, "x", 1);
	mlib_index_set_int_p(by_handle, 1, -1, 5);
	mlib_index_free(by_name);
	mlib_index_free(by_handle);
}

TEST(unique_values_are_found_by_later_lookups)
{
	struct mlib_index *idx = mlib_index_new();
	int url = mlib_index_prop_define(idx, "url", MLIB_PROP_STRING);
	for (uint32_t id = 1; id <= 4; id++)
		mlib_index_add_media(idx, id);
	mlib_index_add_unique_str_p(idx, 1, url, "/A/One.mp3", 10);
	mlib_index_add_unique_str_p(idx, 2, url, "/b/two.mp3", 10);
	/* A NUL cuts the text: two such values can be equal after all. */
	mlib_index_add_unique_str_p(idx, 3, url, "/c\0x", 4);
	mlib_index_add_unique_str_p(idx, 4, url, "/c\0y", 4);
	CHECK_INT(mlib_index_dict_size(idx, url), 3);
	/* The lookup table, never built for unique values, is built now. */
	mlib_index_add_str_p(idx, 4, url, "/A/One.mp3", 10);
	CHECK_INT(mlib_index_dict_size(idx, url), 3);
	mlib_index_finish(idx);
	const uint32_t *v1, *v3, *v4;
	CHECK_INT(mlib_index_str_values(idx, url, 1, &v1), 1);
	CHECK_INT(mlib_index_str_values(idx, url, 3, &v3), 1);
	CHECK_INT(mlib_index_str_values(idx, url, 4, &v4), 2);
	CHECK_INT(v4[0], v3[0]);
	CHECK_INT(v4[1], v1[0]);
	CHECK_STR(mlib_index_dict_text(idx, url, v1[0]), "/A/One.mp3");
	CHECK_STR(mlib_index_dict_folded(idx, url, v1[0]), "/a/one.mp3");
	CHECK_STR(mlib_index_dict_text(idx, url, v3[0]), "/c");
	/* After finish dropped the table, a new value still finds old ones. */
	mlib_index_add_str_p(idx, 2, url, "/b/two.mp3", 10);
	CHECK_INT(mlib_index_dict_size(idx, url), 3);
	mlib_index_free(idx);
}

/* Reference order for library_order_matches_reference. */
struct ref {
	const struct mlib_index *idx;
	int artist, year, album, disc, track, url;
};
static struct ref ref_ctx;

static int64_t ref_int(int p, uint32_t id)
{
	int64_t v;
	return p >= 0 && mlib_index_int_value(ref_ctx.idx, p, id, &v) ? v + 1 : 0;
}

static int64_t ref_rank(int p, uint32_t id)
{
	const uint32_t *vids;
	if (p < 0 || !mlib_index_str_values(ref_ctx.idx, p, id, &vids))
		return 0;
	return (int64_t)mlib_index_dict_rank(ref_ctx.idx, p, vids[0]) + 1;
}

static int ref_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int64_t ka[5] = { ref_rank(ref_ctx.artist, a), ref_int(ref_ctx.year, a),
			  ref_rank(ref_ctx.album, a), ref_int(ref_ctx.disc, a),
			  ref_int(ref_ctx.track, a) };
	int64_t kb[5] = { ref_rank(ref_ctx.artist, b), ref_int(ref_ctx.year, b),
			  ref_rank(ref_ctx.album, b), ref_int(ref_ctx.disc, b),
			  ref_int(ref_ctx.track, b) };
	for (int i = 0; i < 5; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	const uint32_t *va, *vb;
	size_t na = mlib_index_str_values(ref_ctx.idx, ref_ctx.url, a, &va);
	size_t nb = mlib_index_str_values(ref_ctx.idx, ref_ctx.url, b, &vb);
	if (na && nb) {
		int c = str_natcmp(mlib_index_dict_folded(ref_ctx.idx, ref_ctx.url, va[0]),
				   mlib_index_dict_folded(ref_ctx.idx, ref_ctx.url, vb[0]));
		if (c)
			return c;
	} else if (na != nb) {
		return na ? 1 : -1;
	}
	return a < b ? -1 : a > b;
}

TEST(library_order_matches_reference)
{
	/* Few artists and albums, missing values and many full ties, so the
	 * url and id tie-breaks are exercised on long runs. */
	struct mlib_index *idx = mlib_index_new();
	uint64_t seed = 0xfeedbeefu;
	for (uint32_t id = 1; id <= 20000; id++) {
		mlib_index_add_media(idx, id);
		char s[64];
		if (rnd(&seed) % 20) {
			snprintf(s, sizeof s, "Artist %u", rnd(&seed) % 40);
			mlib_index_add_str(idx, id, "artist", s, strlen(s));
		}
		if (rnd(&seed) % 10)
			mlib_index_set_int(idx, id, "year", 1990 + rnd(&seed) % 5);
		if (rnd(&seed) % 10) {
			snprintf(s, sizeof s, "album %u", rnd(&seed) % 30);
			mlib_index_add_str(idx, id, "album", s, strlen(s));
		}
		if (rnd(&seed) % 2)
			mlib_index_set_int(idx, id, "discnr", 1 + rnd(&seed) % 2);
		if (rnd(&seed) % 3)
			mlib_index_set_int(idx, id, "tracknr", rnd(&seed) % 4);
		if (rnd(&seed) % 10) {
			snprintf(s, sizeof s, "/%s/%u.mp3", rnd(&seed) % 2 ? "M" : "m", rnd(&seed) % 500);
			mlib_index_add_str(idx, id, "url", s, strlen(s));
		}
	}
	mlib_index_finish(idx);
	ref_ctx = (struct ref){ idx,
				mlib_index_prop(idx, "artist"),
				mlib_index_prop(idx, "year"),
				mlib_index_prop(idx, "album"),
				mlib_index_prop(idx, "discnr"),
				mlib_index_prop(idx, "tracknr"),
				mlib_index_prop(idx, "url") };
	const struct u32vec *all = mlib_index_all_ids(idx);
	uint32_t *want = malloc(all->n * sizeof *want);
	REQUIRE(want != NULL);
	memcpy(want, all->v, all->n * sizeof *want);
	qsort(want, all->n, sizeof *want, ref_cmp);
	const struct u32vec *o = mlib_index_library_order(idx);
	REQUIRE(o->n == all->n);
	size_t bad = 0;
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i] != want[i] && bad++ == 0)
			CHECK_INT(o->v[i], want[i]);
	CHECK_INT(bad, 0);
	for (size_t i = 0; i < o->n; i += 97)
		CHECK_INT(mlib_index_library_rank(idx, o->v[i]), i);
	free(want);
	mlib_index_free(idx);
}

/* One row through the media library's own writer. */
static uint32_t put(struct mlib_media_writer *w, const char *url, const char *const *kv)
{
	struct crate_err err = {0};
	struct mlib_tags t;
	mlib_tags_init(&t);
	t.duration_ms = 2000;
	for (size_t i = 0; kv && kv[i]; i += 2)
		mlib_tags_add(&t, kv[i], kv[i + 1]);
	uint32_t id = 0;
	CHECK(mlib_media_put(w, url, strlen(url), 10, 20, 30, &t, &id, &err) == 0);
	mlib_tags_free(&t);
	return id;
}

TEST(loader_reads_every_column_and_tag)
{
	char path[512];
	snprintf(path, sizeof path, "%s/lib.db", harness_tmpdir());
	struct crate_err err = {0};
	struct mlib_db *db;
	struct mlib_media_writer *w = tm_open_writer(path, &db);
	const char *a[] = { "artist", "Ärger", "artist", "Zweiter", "title", "Eins", "date", "1999",
			    "track", "2/9", "mood", "calm", NULL };
	const char *b[] = { "artist", "ärger", "title", "Zwei", NULL };
	const char *c[] = { "title", "Gone", NULL };
	uint32_t ia = put(w, "/Music/A.flac", a), ib = put(w, "/music/b.flac", b);
	uint32_t ic = put(w, "/music/c.flac", c);
	REQUIRE(mlib_media_set_missing(w, ic, 1, &err) == 0);
	mlib_media_writer_free(w);

	struct mlib_index *idx = NULL;
	REQUIRE(mlib_index_load(db, &idx, &err) == 0);
	CHECK_INT(mlib_index_count(idx), 2);
	CHECK(!mlib_index_has_media(idx, ic));
	CHECK_INT(mlib_index_prop(idx, "composer"), -1); /* no row has one */
	int ar = mlib_index_prop(idx, "artist"), url = mlib_index_prop(idx, "url");
	int mood = mlib_index_prop(idx, "mood"), year = mlib_index_prop(idx, "year");
	REQUIRE(ar >= 0 && url >= 0 && mood >= 0 && year >= 0);
	CHECK_INT(mlib_index_prop_kind(idx, year), MLIB_PROP_INT);
	const uint32_t *va, *vb;
	CHECK_INT(mlib_index_str_values(idx, ar, ia, &va), 2);
	CHECK_STR(mlib_index_dict_text(idx, ar, va[0]), "Ärger");
	CHECK_STR(mlib_index_dict_text(idx, ar, va[1]), "Zweiter");
	CHECK_INT(mlib_index_str_values(idx, ar, ib, &vb), 1);
	CHECK_STR(mlib_index_dict_folded(idx, ar, va[0]), mlib_index_dict_folded(idx, ar, vb[0]));
	CHECK_INT(mlib_index_dict_size(idx, url), 2);
	char buf[32];
	CHECK_STR(mlib_index_get_text(idx, ia, "url", buf, sizeof buf), "/Music/A.flac");
	CHECK_STR(mlib_index_get_text(idx, ia, "year", buf, sizeof buf), "1999");
	CHECK_STR(mlib_index_get_text(idx, ia, "tracknr", buf, sizeof buf), "2");
	CHECK_STR(mlib_index_get_text(idx, ia, "mood", buf, sizeof buf), "calm");
	CHECK_STR(mlib_index_get_text(idx, ib, "duration", buf, sizeof buf), "2000");
	CHECK(mlib_index_get_text(idx, ib, "mood", buf, sizeof buf) == NULL);
	/* Library order: "ärger" and "Ärger" fold alike; then year (b has none
	 * and sorts first). */
	const struct u32vec *o = mlib_index_library_order(idx);
	REQUIRE(o->n == 2);
	CHECK_INT(o->v[0], ib);
	CHECK_INT(o->v[1], ia);
	mlib_index_free(idx);
	mlib_db_close(db);
}
