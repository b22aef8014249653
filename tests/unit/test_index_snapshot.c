/* medialib index snapshot (index_snapshot.c, the snapshot part of index.c,
 * index_load.c): a snapshot-loaded index equals the SQLite-loaded one in
 * everything observable; any change to the database, from this process
 * or another, makes the snapshot stale; damaged files fall back to SQLite
 * with the same results. */
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll/eval.h"
#include "coll/node.h"
#include "coll/parse.h"
#include "base/tmpfiles.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "medialib/index_snapshot.h"
#include "medialib/media.h"
#include "medialib/media_analysis.h"
#include "medialib/tags.h"

/* Enough items for dictionaries big enough to get items-by-value lists
 * (4096 distinct titles) and lazily ranked dictionaries stay small. */
#define NTRACKS 4500

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 32);
}

static const char *const artists[] = { "Ärger", "ärger", "The Beatles", "beatles", "Björk",
				       "Åse", "10cc", "2Pac", "Кино", "坂本龍一", "AC/DC" };
static const char *const genres[] = { "Rock", "rock", "Jazz", "Électro", "Pop", "Hip-Hop" };

/* A row marked missing at id `id`: later rows are numbered after it. */
static void add_gap(struct mlib_db *db, int64_t id)
{
	sqlite3_stmt *st;
	REQUIRE(sqlite3_prepare_v2(mlib_db_sqlite(db),
				   "INSERT INTO media(id, url, missing) VALUES(?1, 'gap ' || ?1, 1)", -1,
				   &st, NULL) == SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	CHECK_INT(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* A library with multi-valued and free-form tags, numbers as text, accents,
 * gaps; one item marked missing. Returns the database path (static). With
 * sparse, ids jump by 30,000 every 50 items after the first 4,200: the
 * loader's readers then take many chunks of ids in turn, one of them
 * larger than a batch. */
static void build_library(const char *path, bool sparse)
{
	struct crate_err err = { 0 };
	struct mlib_db *db = NULL;
	REQUIRE(mlib_db_open(path, 0, &db, &err) == 0);
	struct mlib_media_writer *w = mlib_media_writer_new(db, &err);
	REQUIRE(w != NULL);
	REQUIRE(mlib_db_begin(db, &err) == 0);
	uint64_t s = 0x1234567;
	for (int i = 0; i < NTRACKS; i++) {
		struct mlib_tags t;
		mlib_tags_init(&t);
		t.duration_ms = 1000 + rnd(&s) % 400000;
		char buf[64];
		mlib_tags_add(&t, "artist", artists[rnd(&s) % 11]);
		if (i % 7 == 0)
			mlib_tags_add(&t, "artist", artists[rnd(&s) % 11]);
		snprintf(buf, sizeof buf, i % 13 ? "Song %d" : "%d", i);
		if (i % 50)
			mlib_tags_add(&t, "title", buf);
		snprintf(buf, sizeof buf, "Album %u", rnd(&s) % 300);
		mlib_tags_add(&t, "album", buf);
		mlib_tags_add(&t, "genre", genres[rnd(&s) % 6]);
		if (i % 5 == 0)
			mlib_tags_add(&t, "genre", genres[rnd(&s) % 6]);
		snprintf(buf, sizeof buf, "%u/12", 1 + rnd(&s) % 12);
		mlib_tags_add(&t, "track", buf);
		if (i % 9)
			snprintf(buf, sizeof buf, "%u", 1950 + rnd(&s) % 70), mlib_tags_add(&t, "date", buf);
		if (i % 11 == 0)
			mlib_tags_add(&t, "mood", i % 2 ? "calm" : "Wild");
		char url[128];
		snprintf(url, sizeof url, "/music/%05d %s.flac", i, i % 3 ? "x" : "Ö");
		uint32_t id;
		REQUIRE(mlib_media_put(w, url, strlen(url), 1000 + i, 2000 + i, 1700000000 + i, &t,
				       &id, &err) == 0);
		mlib_tags_free(&t);
		if (i == 17)
			REQUIRE(mlib_media_set_missing(w, id, 1, &err) == 0);
		if (sparse && i >= 4200 && i % 50 == 0)
			add_gap(db, (int64_t)id + 30000);
	}
	if (sparse) /* cells of another type than their column's; tag strings
		     * that are numbers or blobs, ids that name no string */
		REQUIRE(mlib_db_exec(db, "UPDATE media SET year = 'abc' WHERE id % 97 = 0;"
					 "UPDATE media SET title = x'41420043' WHERE id % 89 = 0;"
					 "INSERT OR IGNORE INTO media_string(value)"
					 "  VALUES(7), (x'41420043'), (x'ff41'), ('');"
					 "UPDATE media SET tracknr = 2.5, genre_sid = (SELECT id FROM"
					 "  media_string WHERE value = 7) WHERE id % 83 = 0;"
					 "UPDATE media SET album_sid = (SELECT id FROM media_string"
					 "  WHERE value = x'41420043') WHERE id % 79 = 0;"
					 "UPDATE media SET artist_sid = (SELECT id FROM media_string"
					 "  WHERE value = x'ff41') WHERE id % 73 = 0;"
					 "UPDATE media SET composer_sid = (SELECT id FROM media_string"
					 "  WHERE value = '') WHERE id % 71 = 0;"
					 "UPDATE media SET date_sid = 999999 WHERE id % 67 = 0;"
					 "UPDATE media SET format_sid = 'x' WHERE id % 61 = 0;"
					 "UPDATE media SET albumartist_sid = 1.5 WHERE id % 59 = 0",
				     &err) == 0);
	REQUIRE(mlib_db_commit(db, &err) == 0);
	mlib_media_writer_free(w);
	mlib_db_close(db);
}

/* from copied to to (a new file); false when it could not be. */
static bool copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL, 0600);
	bool ok = out >= 0;
	char buf[65536];
	ssize_t n;
	while (ok && (n = read(in, buf, sizeof buf)) != 0)
		ok = n > 0 && write(out, buf, (size_t)n) == n;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		ok = false;
	return ok;
}

/* Where the first test that builds a library leaves a copy for the others:
 * a directory of the harness process (each test is its child), removed
 * when it exits. Building one is seconds of SQLite inserts (tens under the
 * sanitizers) and most tests here want the same one. */
static void library_copy_path(char *buf, size_t size, pid_t harness, bool sparse)
{
	snprintf(buf, size, "/tmp/crate-test-snapshot-libs-%ld/%s.db", (long)harness,
		 sparse ? "sparse" : "lib");
}

__attribute__((destructor)) static void remove_library_copies(void)
{
	char path[128];
	for (int sparse = 0; sparse < 2; sparse++) {
		library_copy_path(path, sizeof path, getpid(), sparse);
		unlink(path);
	}
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* The library of build_library in this test's directory: a copy of the one
 * an earlier test built (the same rows; its dbid too, which no test
 * compares across tests), else built and kept for the next tests. */
static const char *make_library_ex(bool sparse)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s.db", harness_tmpdir(), sparse ? "sparse" : "lib");
	char kept[128], tmp[160];
	library_copy_path(kept, sizeof kept, getppid(), sparse);
	if (copy_file(kept, path))
		return path;
	unlink(path);
	build_library(path, sparse);
	snprintf(tmp, sizeof tmp, "%s.%ld", kept, (long)getpid());
	*strrchr(kept, '/') = '\0';
	mkdir(kept, 0700);
	library_copy_path(kept, sizeof kept, getppid(), sparse);
	char wal[530];
	snprintf(wal, sizeof wal, "%s-wal", path);
	if (access(wal, F_OK) != 0 && copy_file(path, tmp))
		rename(tmp, kept);
	unlink(tmp);
	return path;
}

static const char *make_library(void)
{
	return make_library_ex(false);
}

static struct mlib_db *open_db(const char *path, unsigned flags)
{
	struct crate_err err = { 0 };
	struct mlib_db *db = NULL;
	REQUIRE(mlib_db_open(path, flags, &db, &err) == 0);
	return db;
}

static struct mlib_index *load(struct mlib_db *db, unsigned flags, struct mlib_load_info *info)
{
	struct crate_err err = { 0 };
	struct mlib_index *idx = NULL;
	REQUIRE(mlib_index_load_ex(db, flags, &idx, info, &err) == 0);
	return idx;
}

static const char *const queries[] = {
	"a:ärger",	  "a:beatles OR g:rock", "~song",	   "t~1",	   "g:electro",
	"NOT g:jazz",	  "year>1990",		 "year:1960..1970", "mood:calm", "NOT mood:*",
	"a:Кино t~9",	  "duration<60000",	 "url~Ö",	   "album:\"Album 7\"", "tracknr>=6",
};

/* a and b give the same results for every query (same ids, same order). */
static void check_same_results(const struct mlib_index *a, const struct mlib_index *b)
{
	for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
		struct crate_err err = { 0 };
		struct coll_node *n = coll_parse(queries[q], strlen(queries[q]), NULL, &err);
		if (!n) {
			CHECK_MSG(false, "%s: %s", queries[q], err.msg);
			continue;
		}
		struct coll_eval_ctx ca = { .index = a, .now = 1800000000 };
		struct coll_eval_ctx cb = { .index = b, .now = 1800000000 };
		struct coll_result ra, rb;
		REQUIRE(coll_eval(&ca, n, &ra, &err) == 0);
		REQUIRE(coll_eval(&cb, n, &rb, &err) == 0);
		CHECK_MSG(ra.ids.n == rb.ids.n &&
				  (!ra.ids.n || memcmp(ra.ids.v, rb.ids.v, ra.ids.n * 4) == 0),
			  "query %s: %zu vs %zu results", queries[q], ra.ids.n, rb.ids.n);
		CHECK_MSG(ra.ids.n > 0 || q == 9 || mlib_index_count(a) == 0 || mlib_index_prop(a, "url") < 0,
			  "query %s finds nothing", queries[q]); /* (not for an index built by hand) */
		coll_result_free(&ra);
		coll_result_free(&rb);
		coll_node_unref(n);
	}
}

static bool same_u32(const struct u32vec *x, const struct u32vec *y)
{
	return x->n == y->n && (!x->n || memcmp(x->v, y->v, x->n * sizeof *x->v) == 0);
}

/* Everything observable through index.h is the same in a and b; with
 * !same_handles, property handles may differ (a property first given a
 * value by applied play statistics is defined last). */
static void check_same_index_ex(const struct mlib_index *a, const struct mlib_index *b,
				bool same_handles)
{
	CHECK_INT(mlib_index_count(a), mlib_index_count(b));
	REQUIRE(mlib_index_id_bound(a) == mlib_index_id_bound(b));
	uint32_t bound = mlib_index_id_bound(a);
	CHECK(same_u32(mlib_index_all_ids(a), mlib_index_all_ids(b)));
	CHECK(same_u32(mlib_index_library_order(a), mlib_index_library_order(b)));
	const struct bitset *pa = mlib_index_present_set(a), *pb = mlib_index_present_set(b);
	/* The same set; its room (nbits) may differ as a column's may. */
	for (size_t w = 0; w < bitset_words(pa) || w < bitset_words(pb); w++)
		if ((w < bitset_words(pa) ? pa->w[w] : 0) != (w < bitset_words(pb) ? pb->w[w] : 0)) {
			CHECK_MSG(false, "present items differ in word %zu", w);
			break;
		}
	for (uint32_t id = 0; id <= bound; id++) {
		CHECK_INT(mlib_index_has_media(a, id), mlib_index_has_media(b, id));
		CHECK_INT(mlib_index_library_rank(a, id), mlib_index_library_rank(b, id));
	}
	REQUIRE(mlib_index_prop_count(a) == mlib_index_prop_count(b));
	for (int p = 0; p < mlib_index_prop_count(a); p++) {
		const char *name = mlib_index_prop_name(a, p);
		int q = mlib_index_prop(b, name);
		REQUIRE(q >= 0);
		if (same_handles)
			CHECK_INT(q, p);
		REQUIRE(mlib_index_prop_kind(a, p) == mlib_index_prop_kind(b, q));
		if (mlib_index_prop_kind(a, p) == MLIB_PROP_INT) {
			struct mlib_int_column x, y;
			CHECK(mlib_index_int_column(a, p, &x) && mlib_index_int_column(b, q, &y));
			/* len is room, not content: a snapshot keeps no growth room
			 * past the id bound, a load sized from max(id) more than a
			 * build that grew as items came; past its length an item is
			 * missing (compared below). */
			if (!x.v8 && !x.v16 && !y.v8 && !y.v16) /* narrow: mapped only */
				CHECK_INT(!!x.v64, !!y.v64);
			for (uint32_t id = 0; id <= bound; id++)
				if (mlib_int_column_get(&x, id) != mlib_int_column_get(&y, id)) {
					CHECK_MSG(false, "%s of %u differs", name, id);
					break;
				}
			continue;
		}
		uint32_t nd = mlib_index_dict_size(a, p);
		REQUIRE(nd == mlib_index_dict_size(b, q));
		const uint32_t *ra = mlib_index_dict_ranks(a, p), *rb = mlib_index_dict_ranks(b, q);
		CHECK(nd == 0 || memcmp(ra, rb, nd * sizeof *ra) == 0);
		const char *fa, *fb;
		const uint32_t *oa, *ob;
		uint32_t na, nb;
		mlib_index_dict_fold_span(a, p, &fa, &oa, &na);
		mlib_index_dict_fold_span(b, q, &fb, &ob, &nb);
		CHECK(na == nb && (na == 0 || (memcmp(oa, ob, (na + 1) * 4) == 0 &&
					       memcmp(fa, fb, oa[na]) == 0)));
		for (uint32_t v = 0; v < nd; v++) {
			CHECK_STR(mlib_index_dict_text(a, p, v), mlib_index_dict_text(b, q, v));
			double x = 0, y = 0;
			CHECK_INT(mlib_index_dict_number(a, p, v, &x), mlib_index_dict_number(b, q, v, &y));
			CHECK(x == y);
		}
		for (uint32_t id = 0; id <= bound; id++) {
			const uint32_t *va = NULL, *vb = NULL;
			size_t ka = mlib_index_str_values(a, p, id, &va);
			size_t kb = mlib_index_str_values(b, q, id, &vb);
			if (ka != kb || (ka && memcmp(va, vb, ka * sizeof *va) != 0)) {
				CHECK_MSG(false, "%s of %u differs", name, id);
				break;
			}
		}
	}
	check_same_results(a, b);
}

static void check_same_index(const struct mlib_index *a, const struct mlib_index *b)
{
	check_same_index_ex(a, b, true);
}

static char *snap_path(const char *db)
{
	char *p = malloc(strlen(db) + 7);
	sprintf(p, "%s.index", db);
	return p;
}

TEST(snapshot_index_equals_sqlite_index)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, 0);
	struct mlib_load_info info;
	struct mlib_index *fresh = load(db, MLIB_LOAD_NO_READ, &info);
	CHECK(!info.from_snapshot);
	CHECK_MSG(info.wrote_snapshot, "not written: %s", info.why);
	struct stat st;
	char *sp = snap_path(path);
	CHECK(stat(sp, &st) == 0 && st.st_size > 100000);
	struct mlib_index *snap = load(db, 0, &info);
	CHECK_MSG(info.from_snapshot, "snapshot not used: %s", info.why);
	CHECK_INT(mlib_index_count(snap), NTRACKS - 1);
	check_same_index(fresh, snap);
	/* Written through a temporary file that is gone now. */
	char pat[600];
	snprintf(pat, sizeof pat, "%s.tmp.*", sp);
	glob_t g;
	CHECK_INT(glob(pat, 0, NULL, &g), GLOB_NOMATCH);
	globfree(&g);
	/* The loaded index is owned like a built one: updates and further
	 * values work, and the lazily built parts appear as before. */
	int t = mlib_index_prop(snap, "title");
	REQUIRE(t >= 0);
	mlib_index_update_int(snap, 5, "rating", 4);
	mlib_index_update_int(fresh, 5, "rating", 4);
	mlib_index_add_media(snap, 90000);
	mlib_index_add_media(fresh, 90000);
	mlib_index_add_str(snap, 90000, "title", "Song 3", 6);
	mlib_index_add_str(fresh, 90000, "title", "Song 3", 6);
	mlib_index_add_str(snap, 90000, "title", "Brand new", 9);
	mlib_index_add_str(fresh, 90000, "title", "Brand new", 9);
	mlib_index_finish(snap);
	mlib_index_finish(fresh);
	check_same_index(fresh, snap);
	mlib_index_free(fresh);
	mlib_index_free(snap);
	mlib_db_close(db);
	free(sp);
}

/* The index the loader must build, the simple way: one row after the
 * other (tag strings joined in by the view media_text) through
 * mlib_index_add_str/set_int by name, then the tags and the analyses, as
 * index_load.c documents them. */
static struct mlib_index *simple_load_hinted(struct mlib_db *db, uint32_t hint)
{
	static const char *const cols[] = {
		"url",	   "filesize", "mtime",	 "added",      "duration",    "bitrate",
		"samplerate", "channels", "format", "lastplayed", "timesplayed", "rating",
		"artist",  "album",    "albumartist", "title",  "tracknr",     "tracktotal",
		"discnr",  "disctotal", "date",	 "year",       "genre",	      "composer",
		"comment", "timesskipped", "cue_start", "cue_end",
	};
	static const bool text[] = { 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1,
				     1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0 };
	size_t ncols = sizeof cols / sizeof cols[0];
	char sql[1024] = "SELECT id";
	for (size_t c = 0; c < ncols; c++)
		snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", %s", cols[c]);
	snprintf(sql + strlen(sql), sizeof sql - strlen(sql), " FROM media_text WHERE missing=0 ORDER BY id");
	struct mlib_index *idx = mlib_index_new();
	if (hint)
		mlib_index_reserve(idx, hint);
	sqlite3 *s = mlib_db_sqlite(db);
	sqlite3_stmt *st;
	REQUIRE(sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t id = (uint32_t)sqlite3_column_int64(st, 0);
		mlib_index_add_media(idx, id);
		for (size_t c = 0; c < ncols; c++) {
			int type = sqlite3_column_type(st, (int)c + 1);
			if (type == SQLITE_NULL)
				continue;
			if (!text[c]) {
				mlib_index_set_int(idx, id, cols[c], sqlite3_column_int64(st, (int)c + 1));
				continue;
			}
			const char *v = c == 0 || type == SQLITE_BLOB
						? sqlite3_column_blob(st, (int)c + 1)
						: (const char *)sqlite3_column_text(st, (int)c + 1);
			int n = sqlite3_column_bytes(st, (int)c + 1);
			if (v && n > 0)
				mlib_index_add_str(idx, id, cols[c], v, (size_t)n);
		}
	}
	sqlite3_finalize(st);
	REQUIRE(sqlite3_prepare_v2(s, "SELECT media_id, key, value FROM media_tag", -1, &st, NULL) ==
		SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t id = (uint32_t)sqlite3_column_int64(st, 0);
		if (mlib_index_has_media(idx, id) && sqlite3_column_bytes(st, 2) > 0)
			mlib_index_add_str(idx, id, (const char *)sqlite3_column_text(st, 1),
					   (const char *)sqlite3_column_text(st, 2),
					   (size_t)sqlite3_column_bytes(st, 2));
	}
	sqlite3_finalize(st);
	struct crate_err err = { 0 };
	REQUIRE(mlib_analysis_load_index(db, idx, &err) == 0);
	mlib_index_finish(idx);
	return idx;
}

/* However the loader splits the work (reader threads on their own
 * connections taking chunks of ids in turn, batches, remembered values),
 * it builds the index the simple row-by-row build gives: on a library
 * with gaps in its ids and cells of the wrong type, and on a dense one. */
static struct mlib_index *simple_load(struct mlib_db *db)
{
	return simple_load_hinted(db, 0);
}

/* A loader sizes the index from max(id) before reading: rows it then sees
 * may lie past that (added meanwhile) or far below it (deleted since). A
 * hint wrong either way must still give the index of a build without one. */
TEST(presized_index_equals_grown_index)
{
	for (int sparse = 0; sparse < 2; sparse++) {
		struct mlib_db *db = open_db(make_library_ex(sparse), 0);
		struct mlib_index *plain = simple_load(db);
		uint32_t bound = mlib_index_id_bound(plain);
		const uint32_t hints[] = { 1, 10, bound / 2, bound - 1, bound, bound + 1, 1u << 22 };
		for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
			struct mlib_index *idx = simple_load_hinted(db, hints[i]);
			check_same_index(plain, idx);
			mlib_index_free(idx);
		}
		mlib_index_free(plain);
		mlib_db_close(db);
	}
}

TEST(parallel_load_equals_simple_build)
{
	for (int sparse = 0; sparse < 2; sparse++) {
		const char *path = make_library_ex(sparse);
		struct mlib_db *db = open_db(path, 0);
		struct mlib_load_info info;
		struct mlib_index *loaded = load(db, MLIB_LOAD_NO_READ, &info);
		CHECK(!info.from_snapshot);
		struct mlib_index *simple = simple_load(db);
		CHECK_INT(mlib_index_count(loaded), NTRACKS - 1);
		check_same_index(simple, loaded);
		mlib_index_free(loaded);
		/* and the snapshot written from it reads back the same */
		loaded = load(db, 0, &info);
		CHECK_MSG(info.from_snapshot, "snapshot not used: %s", info.why);
		check_same_index(simple, loaded);
		mlib_index_free(loaded);
		mlib_index_free(simple);
		mlib_db_close(db);
	}
}

static void *slurp(const char *path, size_t *n);
static void spit(const char *path, const void *b, size_t n);

TEST(changes_make_the_snapshot_stale)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, 0);
	struct mlib_load_info info;
	struct crate_err err = { 0 };
	mlib_index_free(load(db, 0, &info));
	CHECK(!info.from_snapshot && info.wrote_snapshot);
	mlib_index_free(load(db, 0, &info));
	CHECK(info.from_snapshot);

	/* Play statistics keep the snapshot usable: it is read, the changed
	 * rows are applied, and the index equals a SQLite load. */
	REQUIRE(mlib_media_set_rating(db, NULL, 3, 5, &err) == 0);
	REQUIRE(mlib_media_set_rating(db, NULL, 6, 2, &err) == 0);
	struct mlib_index *idx = load(db, 0, &info);
	CHECK_MSG(info.from_snapshot, "snapshot not used: %s", info.why);
	int r = mlib_index_prop(idx, "rating");
	int64_t v = 0;
	CHECK(r >= 0 && mlib_index_int_value(idx, r, 3, &v) && v == 5);
	struct mlib_index *sql = load(db, MLIB_LOAD_NO_SNAPSHOT, NULL);
	check_same_index_ex(sql, idx, false);
	mlib_index_free(sql);
	mlib_index_free(idx);

	REQUIRE(mlib_media_record_play(db, NULL, 4, 1750000000, &err) == 0);
	REQUIRE(mlib_media_record_play(db, NULL, 4, 1750000100, &err) == 0);
	REQUIRE(mlib_media_set_rating(db, NULL, 3, 0, &err) == 0); /* cleared: NULL */
	idx = load(db, 0, &info);
	CHECK_MSG(info.from_snapshot, "snapshot not used: %s", info.why);
	r = mlib_index_prop(idx, "rating");
	CHECK(r >= 0 && !mlib_index_int_value(idx, r, 3, &v));
	CHECK(mlib_index_int_value(idx, r, 6, &v) && v == 2);
	int tp = mlib_index_prop(idx, "timesplayed"), lp = mlib_index_prop(idx, "lastplayed");
	CHECK(tp >= 0 && mlib_index_int_value(idx, tp, 4, &v) && v == 2);
	CHECK(lp >= 0 && mlib_index_int_value(idx, lp, 4, &v) && v == 1750000100);
	sql = load(db, MLIB_LOAD_NO_SNAPSHOT, NULL);
	check_same_index_ex(sql, idx, false);
	mlib_index_free(sql);
	mlib_index_free(idx);

	/* A full load rewrites the snapshot and drops the dirty rows it
	 * reflects; the new snapshot shows the statistics by itself. */
	char *sp0 = snap_path(path);
	char *old = malloc(strlen(sp0) + 5);
	sprintf(old, "%s.old", sp0);
	size_t oldn;
	void *oldb = slurp(sp0, &oldn); /* reflects none of the statistics */
	mlib_index_free(load(db, MLIB_LOAD_NO_READ, &info));
	CHECK(info.wrote_snapshot);
	sqlite3_stmt *st;
	REQUIRE(sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT count(*) FROM media_stats_dirty",
				   -1, &st, NULL) == SQLITE_OK);
	REQUIRE(sqlite3_step(st) == SQLITE_ROW);
	CHECK_INT(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	idx = load(db, 0, &info);
	CHECK_MSG(info.from_snapshot, "snapshot not used: %s", info.why);
	sql = load(db, MLIB_LOAD_NO_SNAPSHOT, NULL);
	check_same_index_ex(sql, idx, false);
	mlib_index_free(sql);
	mlib_index_free(idx);
	/* An older snapshot put back (another writer renaming last) misses
	 * the dropped rows: it must not be used. */
	spit(sp0, oldb, oldn);
	idx = load(db, 0, &info);
	CHECK_MSG(!info.from_snapshot && strstr(info.why, "stale"), "why: %s", info.why);
	CHECK(mlib_index_int_value(idx, mlib_index_prop(idx, "timesplayed"), 4, &v) && v == 2);
	mlib_index_free(idx);
	free(oldb);
	free(old);
	free(sp0);

	/* A tag change in a media column still makes it stale. */
	mlib_index_free(load(db, 0, &info));
	CHECK(info.from_snapshot);
	REQUIRE(mlib_db_exec(db, "INSERT INTO media_string(value) VALUES('Changed');"
				 "UPDATE media SET genre_sid=last_insert_rowid() WHERE id=5", &err) == 0);
	mlib_index_free(load(db, 0, &info));
	CHECK_MSG(!info.from_snapshot && strstr(info.why, "stale"), "why: %s", info.why);

	/* A scan in another process: a new file and a tag change there. */
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct mlib_db *cdb = NULL;
		if (mlib_db_open(path, 0, &cdb, &err) != 0)
			_exit(1);
		struct mlib_media_writer *w = mlib_media_writer_new(cdb, &err);
		struct mlib_tags t;
		mlib_tags_init(&t);
		mlib_tags_add(&t, "title", "From elsewhere");
		mlib_tags_add(&t, "mood", "new");
		uint32_t id;
		int rc = mlib_media_put(w, "/music/new.flac", 15, 1, 2, 3, &t, &id, &err);
		mlib_tags_free(&t);
		mlib_media_writer_free(w);
		mlib_db_close(cdb);
		_exit(rc == 0 ? 0 : 1);
	}
	int status;
	REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	idx = load(db, 0, &info);
	CHECK(!info.from_snapshot);
	CHECK_INT(mlib_index_count(idx), NTRACKS);
	char buf[32];
	const char *mood = NULL;
	for (uint32_t id = 0; id < mlib_index_id_bound(idx) && !mood; id++) {
		const char *tt = mlib_index_get_text(idx, id, "title", buf, sizeof buf);
		if (tt && strcmp(tt, "From elsewhere") == 0)
			mood = mlib_index_get_text(idx, id, "mood", buf, sizeof buf);
	}
	CHECK(mood && strcmp(mood, "new") == 0);
	mlib_index_free(idx);

	/* A change to media_tag alone (a free-form tag's value). */
	mlib_index_free(load(db, 0, &info));
	CHECK(info.from_snapshot);
	REQUIRE(mlib_db_exec(db, "UPDATE media_tag SET value='changed' WHERE key='mood'", &err) == 0);
	mlib_index_free(load(db, 0, &info));
	CHECK(!info.from_snapshot);
	mlib_db_close(db);

	/* A re-created database at the same path (counter back where it was). */
	char *sp = snap_path(path);
	char *keep = malloc(strlen(sp) + 6);
	sprintf(keep, "%s.keep", sp);
	db = open_db(path, 0);
	mlib_index_free(load(db, 0, &info));
	CHECK(info.from_snapshot);
	mlib_db_close(db);
	REQUIRE(rename(sp, keep) == 0);
	unlink(path);
	char wal[600];
	snprintf(wal, sizeof wal, "%s-wal", path);
	unlink(wal);
	snprintf(wal, sizeof wal, "%s-shm", path);
	unlink(wal);
	build_library(path, false); /* built again: another dbid */
	REQUIRE(rename(keep, sp) == 0);
	db = open_db(path, 0);
	mlib_index_free(load(db, 0, &info));
	CHECK_MSG(!info.from_snapshot && strstr(info.why, "another database"), "why: %s", info.why);
	mlib_db_close(db);
	free(keep);
	free(sp);
}

static void *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	REQUIRE(f != NULL);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	void *b = malloc(*n);
	REQUIRE(fread(b, 1, *n, f) == *n);
	fclose(f);
	return b;
}

static void spit(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	REQUIRE(f != NULL);
	REQUIRE(fwrite(b, 1, n, f) == n);
	fclose(f);
}

/* A snapshot of another format (version 4 stored the arrays format 5
 * derives) is refused by its header, whatever its body, and rebuilt. */
TEST(older_format_is_rebuilt)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, 0);
	struct mlib_load_info info;
	struct mlib_index *ref = load(db, 0, &info);
	REQUIRE(info.wrote_snapshot);
	char *sp = snap_path(path);
	size_t n;
	unsigned char *b = slurp(sp, &n);
	REQUIRE(n > snap_header_size());
	uint32_t version;
	memcpy(&version, b + 8, 4); /* after the magic */
	CHECK_INT(version, 5);
	version = 4;
	memcpy(b + 8, &version, 4);
	size_t hh = snap_header_size() - 8; /* the header's own hash, last */
	uint64_t h = snap_hash(b, hh, 0);
	memcpy(b + hh, &h, 8);
	spit(sp, b, n);
	struct mlib_index *idx = load(db, MLIB_LOAD_MAP, &info);
	CHECK(!info.from_snapshot && strstr(info.why, "another version"));
	CHECK(info.wrote_snapshot);
	check_same_index(ref, idx);
	mlib_index_free(idx);
	idx = load(db, MLIB_LOAD_MAP, &info);
	CHECK_MSG(info.from_snapshot, "not rebuilt: %s", info.why);
	check_same_index(ref, idx);
	mlib_index_free(idx);
	mlib_index_free(ref);
	free(b);
	free(sp);
	mlib_db_close(db);
}

TEST(damaged_snapshots_fall_back_to_sqlite)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, MLIB_DB_READONLY); /* never rewrites the file */
	struct mlib_load_info info;
	struct mlib_index *ref = load(db, MLIB_LOAD_NO_SNAPSHOT, &info);
	mlib_db_close(db);
	db = open_db(path, 0);
	mlib_index_free(load(db, 0, &info));
	REQUIRE(info.wrote_snapshot);
	mlib_db_close(db);
	char *sp = snap_path(path);
	size_t n;
	unsigned char *good = slurp(sp, &n);
	unsigned char *bad = malloc(n);
	db = open_db(path, MLIB_DB_READONLY);
	uint64_t s = 99;
	/* Flipped bytes all over (header, lengths, payload), truncations, a
	 * foreign file, an extended file. */
	for (int round = 0; round < 40; round++) {
		size_t len = n;
		memcpy(bad, good, n);
		if (round < 24) {
			size_t at = round < 8 ? (size_t)round * 10 % 80 : rnd(&s) % n;
			bad[at] ^= (unsigned char)(1u << (rnd(&s) % 8));
		} else if (round < 32) {
			len = round == 24 ? 0 : round == 25 ? 40 : rnd(&s) % n;
		} else if (round == 32) {
			memset(bad, 'x', n);
		} else {
			len = n - (size_t)(round - 32); /* the last 1..7 bytes gone */
		}
		spit(sp, bad, len);
		if (round == 39) { /* extended: good bytes and one more */
			FILE *f = fopen(sp, "wb");
			REQUIRE(f && fwrite(good, 1, n, f) == n && fputc(0, f) == 0);
			fclose(f);
		}
		struct mlib_index *idx = load(db, 0, &info);
		CHECK_MSG(!info.from_snapshot, "round %d: damaged snapshot used", round);
		if (round % 8 == 0)
			check_same_index(ref, idx);
		else
			CHECK_INT(mlib_index_count(idx), mlib_index_count(ref));
		mlib_index_free(idx);
	}
	/* The good file again is used. */
	spit(sp, good, n);
	struct mlib_index *idx = load(db, 0, &info);
	CHECK(info.from_snapshot);
	mlib_index_free(idx);
	mlib_db_close(db);
	/* A writable open rewrites a damaged snapshot. */
	bad[n / 2] ^= 1;
	spit(sp, bad, n);
	db = open_db(path, 0);
	mlib_index_free(load(db, 0, &info));
	CHECK(!info.from_snapshot && info.wrote_snapshot);
	mlib_index_free(load(db, 0, &info));
	CHECK(info.from_snapshot);
	mlib_db_close(db);
	mlib_index_free(ref);
	free(good);
	free(bad);
	free(sp);
}

/* ---- the snapshot mapped in place (MLIB_LOAD_MAP) ---- */

/* Read every property of idx through index.h (each is checked as it is
 * first read) and run the query mix: nothing may crash or read outside
 * the mapping, whatever the file holds. */
static void touch_everything(const struct mlib_index *idx)
{
	uint32_t bound = mlib_index_id_bound(idx);
	size_t sum = 0;
	for (int p = 0; p < mlib_index_prop_count(idx); p++) {
		uint32_t nd = mlib_index_dict_size(idx, p);
		for (uint32_t v = 0; v < nd; v++) {
			double x;
			sum += strlen(mlib_index_dict_text(idx, p, v)) + mlib_index_dict_number(idx, p, v, &x);
			sum += mlib_index_dict_rank(idx, p, v);
		}
		for (uint32_t id = 0; id <= bound; id++) {
			const uint32_t *vs;
			int64_t x;
			sum += mlib_index_str_values(idx, p, id, &vs) + mlib_index_int_value(idx, p, id, &x);
		}
		if (nd) { /* one value: the items-by-value lists where there are any */
			struct bitset vals, out;
			bitset_init(&vals, nd);
			bitset_set(&vals, nd - 1);
			bitset_init(&out, (size_t)bound + 1);
			mlib_index_select_str(idx, p, &vals, false, &out);
			sum += bitset_test(&out, 1);
			bitset_free(&out);
			bitset_free(&vals);
		}
	}
	for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
		struct crate_err err = { 0 };
		struct coll_node *n = coll_parse(queries[q], strlen(queries[q]), NULL, &err);
		REQUIRE(n != NULL);
		struct coll_eval_ctx c = { .index = idx, .now = 1800000000 };
		struct coll_result r;
		REQUIRE(coll_eval(&c, n, &r, &err) == 0);
		sum += r.ids.n;
		coll_result_free(&r);
		coll_node_unref(n);
	}
	CHECK(sum != (size_t)-1); /* keep the reads */
}

TEST(mapped_snapshot_answers_like_the_loaded_index)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, 0);
	struct mlib_load_info info;
	struct mlib_index *fresh = load(db, MLIB_LOAD_NO_READ, &info);
	REQUIRE(info.wrote_snapshot);
	struct mlib_index *mapped = load(db, MLIB_LOAD_MAP, &info);
	CHECK_MSG(info.from_snapshot, "snapshot not used: %s", info.why);
	CHECK(mlib_index_is_mapped(mapped));
	check_same_index(fresh, mapped);
	CHECK(!mlib_index_map_damaged(mapped));
	/* Written again from the mapping, it reads back the same. */
	char again[600];
	snprintf(again, sizeof again, "%s.again", path);
	struct snap_key k = { 1, 2, 3, 0 };
	struct crate_err err = { 0 };
	REQUIRE(mlib_index_snapshot_write(mapped, again, &k, &err) == 0);
	struct mlib_index *back = NULL;
	REQUIRE(mlib_index_snapshot_read(again, &k, &back, &err) == 0);
	check_same_index(fresh, back);
	mlib_index_free(back);
	unlink(again);
	/* A statistics update copies that property out; the rest stays
	 * mapped. Further values release the whole mapping. */
	mlib_index_update_int(mapped, 5, "year", 1999);
	mlib_index_update_int(fresh, 5, "year", 1999);
	mlib_index_clear_int(mapped, 6, "tracknr");
	mlib_index_clear_int(fresh, 6, "tracknr");
	CHECK(mlib_index_is_mapped(mapped));
	check_same_index(fresh, mapped);
	mlib_index_update_int(mapped, 5, "rating", 4); /* a new property */
	mlib_index_update_int(fresh, 5, "rating", 4);
	CHECK(!mlib_index_is_mapped(mapped));
	mlib_index_add_media(mapped, 90000);
	mlib_index_add_media(fresh, 90000);
	mlib_index_add_str(mapped, 90000, "title", "Brand new", 9);
	mlib_index_add_str(fresh, 90000, "title", "Brand new", 9);
	mlib_index_finish(mapped);
	mlib_index_finish(fresh);
	check_same_index(fresh, mapped);
	mlib_index_free(mapped);
	/* Freed unread: nothing of the mapping was checked or copied. */
	mlib_index_free(load(db, MLIB_LOAD_MAP, &info));
	CHECK(info.from_snapshot);
	mlib_index_free(fresh);
	mlib_db_close(db);
}

/* What the snapshot does not store (format 5: ascending ids, library
 * ranks, items-by-value lists, original-text offsets of a dictionary
 * whose texts all equal their folded forms) comes back the same as in a
 * built index, mapped or read. */
TEST(derived_arrays_match_a_built_index)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, 0);
	struct mlib_load_info info;
	struct mlib_index *fresh = load(db, MLIB_LOAD_NO_READ, &info);
	REQUIRE(info.wrote_snapshot);
	struct mlib_index *mapped = load(db, MLIB_LOAD_MAP, &info);
	REQUIRE(info.from_snapshot && mlib_index_is_mapped(mapped));
	/* Queries first: results in library order without the ranks. */
	CHECK(!mlib_index_library_ranks_ready(mapped));
	check_same_results(fresh, mapped);
	check_same_index(fresh, mapped);
	CHECK(mlib_index_library_ranks_ready(mapped));
	mlib_index_free(mapped);
	mlib_index_free(fresh);
	mlib_db_close(db);

	/* By hand: "path" texts are all folded already (no offsets stored),
	 * "name" texts are not. */
	struct mlib_index *built = mlib_index_new();
	char buf[64];
	for (uint32_t id = 1; id <= 12000; id += 1 + id % 3) {
		mlib_index_add_media(built, id);
		int n = snprintf(buf, sizeof buf, "/music/%u.flac", id);
		mlib_index_add_str(built, id, "path", buf, (size_t)n);
		n = snprintf(buf, sizeof buf, "Name %u", id % 4500);
		mlib_index_add_str(built, id, "name", buf, (size_t)n);
	}
	mlib_index_finish(built);
	char sp[600];
	snprintf(sp, sizeof sp, "%s.hand", path);
	struct snap_key k = { 7, 8, 9, 0 };
	struct crate_err err = { 0 };
	REQUIRE(mlib_index_snapshot_write(built, sp, &k, &err) == 0);
	struct mlib_index *m = NULL, *r = NULL;
	REQUIRE(mlib_index_snapshot_map(sp, &k, &m, &err) == 0);
	REQUIRE(mlib_index_snapshot_read(sp, &k, &r, &err) == 0);
	int pp = mlib_index_prop(m, "path");
	REQUIRE(pp >= 0 && mlib_index_dict_size(m, pp) > 4096);
	CHECK_STR(mlib_index_dict_text(m, pp, 0), "/music/1.flac");
	/* A one-value filter on a large dictionary: postings when owned, the
	 * column when mapped; the same items. */
	struct bitset vals, out_b, out_m, out_r;
	uint32_t nd = mlib_index_dict_size(built, pp);
	bitset_init(&vals, nd);
	bitset_set(&vals, 3);
	bitset_init(&out_b, 13001);
	bitset_init(&out_m, 13001);
	bitset_init(&out_r, 13001);
	mlib_index_select_str(built, pp, &vals, false, &out_b);
	mlib_index_select_str(m, pp, &vals, false, &out_m);
	mlib_index_select_str(r, pp, &vals, false, &out_r);
	CHECK(memcmp(out_b.w, out_m.w, bitset_words(&out_b) * 8) == 0);
	CHECK(memcmp(out_b.w, out_r.w, bitset_words(&out_b) * 8) == 0);
	bitset_free(&vals);
	bitset_free(&out_b);
	bitset_free(&out_m);
	bitset_free(&out_r);
	check_same_index(built, m);
	check_same_index(built, r);
	/* Grown after mapping: a text that differs from its folded form joins
	 * the dictionary whose offsets were not stored. */
	struct mlib_index *const all[] = { built, m, r };
	for (int i = 0; i < 3; i++) {
		mlib_index_add_media(all[i], 13000);
		mlib_index_add_str(all[i], 13000, "path", "/Music/Loud.FLAC", 16);
		mlib_index_finish(all[i]);
	}
	CHECK(!mlib_index_is_mapped(m));
	check_same_index(built, m);
	check_same_index(built, r);
	CHECK_STR(mlib_index_get_text(m, 13000, "path", NULL, 0), "/Music/Loud.FLAC");
	CHECK_STR(mlib_index_get_text(m, 1, "path", NULL, 0), "/music/1.flac");
	mlib_index_free(m);
	mlib_index_free(r);
	mlib_index_free(built);
	unlink(sp);
}

/* The results of query q on a and b are the same (same ids, same order). */
static void check_same_query(const struct mlib_index *a, const struct mlib_index *b, const char *q)
{
	struct crate_err err = { 0 };
	struct coll_node *n = coll_parse(q, strlen(q), NULL, &err);
	CHECK_MSG(n != NULL, "%s: %s", q, err.msg);
	if (!n)
		return;
	struct coll_eval_ctx ca = { .index = a, .now = 1800000000 };
	struct coll_eval_ctx cb = { .index = b, .now = 1800000000 };
	struct coll_result ra, rb;
	REQUIRE(coll_eval(&ca, n, &ra, &err) == 0);
	REQUIRE(coll_eval(&cb, n, &rb, &err) == 0);
	CHECK_MSG(ra.ids.n == rb.ids.n && (!ra.ids.n || memcmp(ra.ids.v, rb.ids.v, ra.ids.n * 4) == 0),
		  "query %s: %zu vs %zu results", q, ra.ids.n, rb.ids.n);
	CHECK_MSG(ra.ids.n > 0 || strstr(q, "NOT") || strstr(q, "99999"), "query %s finds nothing", q);
	coll_result_free(&ra);
	coll_result_free(&rb);
	coll_node_unref(n);
}

/* The whole library ordered by fields on a and b: the same list. */
static void check_same_order(const struct mlib_index *a, const struct mlib_index *b,
			     const char *fields)
{
	struct coll_node *o = coll_node_new(COLL_ORDER);
	coll_attr_set(o, "field", fields);
	struct coll_node *u = coll_node_new(COLL_UNIVERSE);
	coll_node_add_operand(o, u);
	coll_node_unref(u);
	struct crate_err err = { 0 };
	struct coll_eval_ctx ca = { .index = a, .now = 1800000000 };
	struct coll_eval_ctx cb = { .index = b, .now = 1800000000 };
	struct coll_result ra, rb;
	REQUIRE(coll_eval(&ca, o, &ra, &err) == 0);
	REQUIRE(coll_eval(&cb, o, &rb, &err) == 0);
	CHECK_MSG(ra.ids.n == rb.ids.n && ra.ids.n > 0 &&
			  memcmp(ra.ids.v, rb.ids.v, ra.ids.n * 4) == 0,
		  "order by %s differs", fields);
	coll_result_free(&ra);
	coll_result_free(&rb);
	coll_node_unref(o);
}

/* Integer columns are stored at the width their values span (1, 2, 4 or
 * 8 bytes, with a base for 1 and 2): mapped in place they read, filter and
 * sort like the built ones; owned again they widen, and take values of
 * any size. */
/* Values within 65535 of INT64_MAX span little but cannot take a base
 * the reader accepts (base + stored value must fit): such a column was
 * written narrow and then refused at every start. It stays wide. */
TEST(int_column_near_the_top_is_read_back)
{
	struct mlib_index *built = mlib_index_new();
	for (uint32_t id = 1; id <= 300; id++) {
		mlib_index_add_media(built, id);
		mlib_index_set_int(built, id, "top", INT64_MAX - (int64_t)(id % 3));
		mlib_index_set_int(built, id, "year", 2001);
	}
	mlib_index_finish(built);
	char sp[600];
	snprintf(sp, sizeof sp, "%s/top.index", harness_tmpdir());
	struct snap_key k = { 7, 8, 9, 0 };
	struct crate_err err = { 0 };
	REQUIRE(mlib_index_snapshot_write(built, sp, &k, &err) == 0);
	struct mlib_index *m = NULL, *r = NULL;
	CHECK_MSG(mlib_index_snapshot_map(sp, &k, &m, &err) == 0, "%s", err.msg);
	CHECK_MSG(mlib_index_snapshot_read(sp, &k, &r, &err) == 0, "%s", err.msg);
	if (m && r) {
		int64_t v = 0;
		CHECK(mlib_index_int_value(m, mlib_index_prop(m, "top"), 2, &v) && v == INT64_MAX - 2);
		check_same_index(built, m);
		check_same_index(built, r);
	}
	mlib_index_free(m);
	mlib_index_free(r);
	mlib_index_free(built);
}

TEST(narrow_int_columns_round_trip)
{
	static const char *const names[] = { "small", "neg", "constant", "mid", "big", "huge" };
	static const unsigned widths[] = { 1, 1, 1, 2, 4, 8 };
	struct mlib_index *built = mlib_index_new();
	for (uint32_t id = 1; id <= 3000; id++) {
		if (id % 7 == 0)
			continue; /* not an item */
		mlib_index_add_media(built, id);
		if (id % 5 != 0) /* missing values */
			mlib_index_set_int(built, id, "small", id % 200);
		mlib_index_set_int(built, id, "neg", -(int64_t)(id % 9) - 1);
		mlib_index_set_int(built, id, "constant", 4000000000);
		if (id % 3 != 0)
			mlib_index_set_int(built, id, "mid", (int64_t)id * 20 - 30000);
		mlib_index_set_int(built, id, "big", (int64_t)id * 300000);
		mlib_index_set_int(built, id, "huge", (int64_t)id * 1000000000);
	}
	mlib_index_finish(built);
	char sp[600];
	snprintf(sp, sizeof sp, "%s/narrow.index", harness_tmpdir());
	struct snap_key k = { 7, 8, 9, 0 };
	struct crate_err err = { 0 };
	REQUIRE(mlib_index_snapshot_write(built, sp, &k, &err) == 0);
	struct mlib_index *m = NULL, *r = NULL;
	REQUIRE(mlib_index_snapshot_map(sp, &k, &m, &err) == 0);
	REQUIRE(mlib_index_snapshot_read(sp, &k, &r, &err) == 0);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct mlib_int_column c;
		REQUIRE(mlib_index_int_column(m, mlib_index_prop(m, names[i]), &c));
		unsigned w = c.v8 ? 1 : c.v16 ? 2 : c.v32 ? 4 : c.v64 ? 8 : 0;
		CHECK_MSG(w == widths[i], "%s: %u bytes per item", names[i], w);
		REQUIRE(mlib_index_int_column(r, mlib_index_prop(r, names[i]), &c));
		CHECK(c.v32 || c.v64); /* read: owned, 32 or 64 bits */
	}
	int64_t v = 0;
	CHECK(!mlib_index_int_value(m, mlib_index_prop(m, "small"), 5, &v));
	CHECK(mlib_index_int_value(m, mlib_index_prop(m, "small"), 6, &v) && v == 6);
	CHECK(mlib_index_int_value(m, mlib_index_prop(m, "constant"), 6, &v) && v == 4000000000);
	CHECK(mlib_index_int_value(m, mlib_index_prop(m, "neg"), 8, &v) && v == -9);
	check_same_index(built, m);
	check_same_index(built, r);
	static const char *const queries_n[] = {
		"small>100", "small:10..20", "NOT small>100", "small<2", "small>99999", "neg>-3",
		"neg:-9", "constant:4000000000", "NOT constant<4000000000", "mid<-100", "mid>20000",
		"mid:-29000..-28000", "big>800000000", "huge<5000000000000", "small:7 OR mid>25000",
	};
	for (size_t q = 0; q < sizeof queries_n / sizeof queries_n[0]; q++) {
		check_same_query(built, m, queries_n[q]);
		check_same_query(built, r, queries_n[q]);
	}
	check_same_order(built, m, "small,-mid,id");
	check_same_order(built, m, "-neg,small,id");
	/* Written again from the mapping: the same file contents. */
	char again[640];
	snprintf(again, sizeof again, "%s.again", sp);
	REQUIRE(mlib_index_snapshot_write(m, again, &k, &err) == 0);
	size_t n1, n2;
	unsigned char *f1 = slurp(sp, &n1), *f2 = slurp(again, &n2);
	CHECK(n1 == n2 && memcmp(f1, f2, n1) == 0);
	free(f1);
	free(f2);
	unlink(again);
	/* A value past the narrow range: the property is copied out, wider. */
	struct mlib_index *const all[] = { built, m, r };
	for (int i = 0; i < 3; i++)
		mlib_index_update_int(all[i], 6, "small", 100000);
	CHECK(mlib_index_is_mapped(m));
	CHECK(mlib_index_int_value(m, mlib_index_prop(m, "small"), 6, &v) && v == 100000);
	check_same_index(built, m);
	/* A new item with a huge value: everything owned, widened. */
	for (int i = 0; i < 3; i++) {
		mlib_index_add_media(all[i], 5000);
		mlib_index_set_int(all[i], 5000, "neg", INT64_MAX);
		mlib_index_set_int(all[i], 5000, "constant", -4000000000);
		mlib_index_finish(all[i]);
	}
	CHECK(!mlib_index_is_mapped(m));
	check_same_index(built, m);
	check_same_index(built, r);
	for (size_t q = 0; q < sizeof queries_n / sizeof queries_n[0]; q++)
		check_same_query(built, m, queries_n[q]);
	mlib_index_free(m);
	mlib_index_free(r);
	mlib_index_free(built);

	/* A damaged block of a narrow column: noticed when the column is
	 * first read, its values then missing; nothing else is lost. */
	built = mlib_index_new();
	for (uint32_t id = 1; id <= 3000; id++) {
		mlib_index_add_media(built, id);
		mlib_index_set_int(built, id, "small", id % 200);
		mlib_index_set_int(built, id, "other", 7);
	}
	mlib_index_finish(built);
	REQUIRE(mlib_index_snapshot_write(built, sp, &k, &err) == 0);
	size_t n;
	unsigned char *file = slurp(sp, &n);
	static const unsigned char run[] = { 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	unsigned char *at = memmem(file, n, run, sizeof run); /* id 0 (missing), 1, 2, ... */
	REQUIRE(at != NULL);
	at[5] ^= 0x40;
	spit(sp, file, n);
	free(file);
	REQUIRE(mlib_index_snapshot_map(sp, &k, &m, &err) == 0);
	CHECK(mlib_index_int_value(m, mlib_index_prop(m, "other"), 5, &v) && v == 7);
	CHECK(!mlib_index_map_damaged(m));
	CHECK(!mlib_index_int_value(m, mlib_index_prop(m, "small"), 5, &v));
	CHECK(mlib_index_map_damaged(m));
	CHECK(!mlib_index_int_value(m, mlib_index_prop(m, "small"), 6, &v));
	check_same_query(built, m, "other:7");
	mlib_index_free(m);
	mlib_index_free(built);
	unlink(sp);
}

/* String columns of single values whose ids fit 8 or 16 bits are stored
 * at that width; mapped in place they answer like the built index (values,
 * filters, orderings, the raw column); owned again they widen. */
TEST(narrow_str_columns_round_trip)
{
	static const char *const names[] = { "genre", "artist", "title", "mood" };
	static const unsigned widths[] = { 1, 2, 4, 4 }; /* title: > 65535 values; mood: groups */
	struct mlib_index *built = mlib_index_new();
	char buf[64];
	for (uint32_t id = 1; id <= 70000; id++) {
		mlib_index_add_media(built, id);
		int n = snprintf(buf, sizeof buf, "Genre %u", id % 250);
		if (id % 11)
			mlib_index_add_str(built, id, "genre", buf, (size_t)n);
		n = snprintf(buf, sizeof buf, "Artist %u", id % 20000);
		if (id % 13)
			mlib_index_add_str(built, id, "artist", buf, (size_t)n);
		n = snprintf(buf, sizeof buf, "Title %u", id);
		mlib_index_add_str(built, id, "title", buf, (size_t)n);
		if (id % 1000 == 0) {
			mlib_index_add_str(built, id, "mood", "calm", 4);
			mlib_index_add_str(built, id, "mood", "dark", 4);
		}
	}
	mlib_index_finish(built);
	char sp[600];
	snprintf(sp, sizeof sp, "%s/narrow_str.index", harness_tmpdir());
	struct snap_key k = { 7, 8, 9, 0 };
	struct crate_err err = { 0 };
	REQUIRE(mlib_index_snapshot_write(built, sp, &k, &err) == 0);
	struct mlib_index *m = NULL, *r = NULL;
	REQUIRE(mlib_index_snapshot_map(sp, &k, &m, &err) == 0);
	REQUIRE(mlib_index_snapshot_read(sp, &k, &r, &err) == 0);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int p = mlib_index_prop(m, names[i]), q = mlib_index_prop(built, names[i]);
		struct mlib_str_column c, cb;
		REQUIRE(mlib_index_str_column(m, p, &c) && mlib_index_str_column(built, q, &cb));
		unsigned w = c.s8 ? 1 : c.s16 ? 2 : c.scol ? 4 : 0;
		CHECK_MSG(w == widths[i], "%s: %u bytes per item", names[i], w);
		for (uint32_t id = 0; id <= 70001; id += 7) {
			const uint32_t *va = NULL, *vb = NULL;
			size_t ka = mlib_str_column_get(&c, id, &va), kb = mlib_str_column_get(&cb, id, &vb);
			CHECK_INT(mlib_str_column_code(&c, id), mlib_str_column_code(&cb, id));
			if (ka != kb || (ka && memcmp(va, vb, ka * 4))) {
				CHECK_MSG(false, "%s of %u differs", names[i], id);
				break;
			}
		}
	}
	check_same_index(built, m);
	check_same_index(built, r);
	static const char *const queries_s[] = {
		"genre:\"Genre 7\"", "NOT genre:\"Genre 7\"", "genre~\"re 1\"", "artist:\"Artist 19999\"",
		"artist~\"st 12\" NOT genre~2", "mood:calm", "title:\"Title 5\" OR artist:\"Artist 5\"",
	};
	for (size_t q = 0; q < sizeof queries_s / sizeof queries_s[0]; q++) {
		check_same_query(built, m, queries_s[q]);
		check_same_query(built, r, queries_s[q]);
	}
	check_same_order(built, m, "genre,-artist,id");
	/* A damaged block of the 1-byte genre column: noticed on first read. */
	size_t n;
	unsigned char *file = slurp(sp, &n);
	static const unsigned char run[] = { 0xff, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 10, 11 };
	unsigned char *at = memmem(file, n, run, sizeof run); /* ids 0 (missing), 1, 2, ... */
	REQUIRE(at != NULL);
	at[5] ^= 0x40;
	char sp2[640]; /* another file: m maps sp */
	snprintf(sp2, sizeof sp2, "%s.bad", sp);
	spit(sp2, file, n);
	free(file);
	struct mlib_index *d = NULL;
	REQUIRE(mlib_index_snapshot_map(sp2, &k, &d, &err) == 0);
	CHECK_STR(mlib_index_get_text(d, 5, "artist", NULL, 0), "Artist 5");
	CHECK(!mlib_index_map_damaged(d));
	CHECK(mlib_index_get_text(d, 5, "genre", NULL, 0) == NULL);
	CHECK(mlib_index_map_damaged(d));
	mlib_index_free(d);
	unlink(sp2);
	/* A new value after mapping: owned and widened. */
	struct mlib_index *const all[] = { built, m, r };
	for (int i = 0; i < 3; i++) {
		mlib_index_add_media(all[i], 80000);
		for (int g = 0; g < 300; g++) { /* past 255 genres */
			int len = snprintf(buf, sizeof buf, "New genre %d", g);
			mlib_index_add_str(all[i], 80000 + (uint32_t)g, "genre", buf, (size_t)len);
		}
		mlib_index_finish(all[i]);
	}
	CHECK(!mlib_index_is_mapped(m));
	check_same_index(built, m);
	check_same_index(built, r);
	for (size_t q = 0; q < sizeof queries_s / sizeof queries_s[0]; q++)
		check_same_query(built, m, queries_s[q]);
	mlib_index_free(m);
	mlib_index_free(r);
	mlib_index_free(built);
	unlink(sp);
}

TEST(mapped_snapshot_stale_falls_back_to_sqlite)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, 0);
	struct mlib_load_info info;
	mlib_index_free(load(db, 0, &info));
	REQUIRE(info.wrote_snapshot);
	struct crate_err err = { 0 };
	struct mlib_media_writer *w = mlib_media_writer_new(db, &err);
	REQUIRE(w != NULL);
	struct mlib_tags t;
	mlib_tags_init(&t);
	mlib_tags_add(&t, "title", "Late arrival");
	uint32_t id;
	REQUIRE(mlib_media_put(w, "/music/late.flac", 16, 1, 2, 3, &t, &id, &err) == 0);
	mlib_tags_free(&t);
	mlib_media_writer_free(w);
	struct mlib_index *idx = load(db, MLIB_LOAD_MAP, &info);
	CHECK_MSG(!info.from_snapshot && strstr(info.why, "stale"), "why: %s", info.why);
	CHECK(!mlib_index_is_mapped(idx));
	CHECK_INT(mlib_index_count(idx), NTRACKS);
	mlib_index_free(idx);
	/* the rewritten snapshot maps again, with the new item */
	idx = load(db, MLIB_LOAD_MAP, &info);
	CHECK(info.from_snapshot && mlib_index_is_mapped(idx));
	CHECK_INT(mlib_index_count(idx), NTRACKS);
	mlib_index_free(idx);
	mlib_db_close(db);
}

/* Where the writer puts section i: after the header, each on the next
 * 64-byte boundary (index_snapshot.h); lens from the blob stream. */
static size_t blob_lens(const unsigned char *stream, size_t n, size_t *lens, size_t max)
{
	size_t k = 0;
	for (size_t off = 0; off + 8 <= n && k < max; k++) {
		uint64_t len;
		memcpy(&len, stream + off, 8);
		lens[k] = (size_t)len;
		off += 8 + (size_t)len;
	}
	return k;
}

/* Original texts are checked block by block as they are read: printing
 * an item checks the 64 KiB around its text, not every title. A flipped
 * byte in a text not read goes unnoticed (and unread); reading that text
 * notices it. */
TEST(mapped_texts_check_only_the_blocks_read)
{
	enum { N = 4000 }; /* ~260 KB of original titles: several blocks */
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= N; id++) {
		char t[80];
		int len = snprintf(t, sizeof t, "Title Number %05u With Capitals To Keep Apart", id);
		mlib_index_add_media(idx, id);
		mlib_index_add_str(idx, id, "title", t, (size_t)len);
	}
	mlib_index_finish(idx);
	char sp[600];
	snprintf(sp, sizeof sp, "%s/blocks.index", harness_tmpdir());
	struct snap_key k = { 7, 8, 9, 0 };
	struct crate_err err = { 0 };
	REQUIRE(mlib_index_snapshot_write(idx, sp, &k, &err) == 0);
	mlib_index_free(idx);
	size_t n;
	unsigned char *file = slurp(sp, &n);
	const char *last = "Title Number 04000 With";
	unsigned char *at = memmem(file, n, last, strlen(last));
	REQUIRE(at != NULL && (size_t)(at - file) > 200000);
	at[7] ^= 0x20; /* "Title number 04000": still a text, not the one written */
	spit(sp, file, n);
	free(file);
	REQUIRE(mlib_index_snapshot_map(sp, &k, &idx, &err) == 0);
	char buf[100];
	const char *t = mlib_index_get_text(idx, 1, "title", buf, sizeof buf);
	CHECK_STR(t, "Title Number 00001 With Capitals To Keep Apart");
	CHECK(!mlib_index_map_damaged(idx));
	mlib_index_get_text(idx, N, "title", buf, sizeof buf);
	CHECK(mlib_index_map_damaged(idx));
	mlib_index_free(idx);
	/* A long listing checks all the texts at once, past 1024 of them:
	 * the first 1100 titles lie in the first blocks, yet the damage in
	 * the last one is noticed. */
	REQUIRE(mlib_index_snapshot_map(sp, &k, &idx, &err) == 0);
	const char *first = mlib_index_get_text(idx, 1, "title", buf, sizeof buf);
	for (uint32_t id = 2; id <= 1024; id++)
		mlib_index_get_text(idx, id, "title", buf, sizeof buf);
	CHECK(!mlib_index_map_damaged(idx));
	for (uint32_t id = 1025; id <= 1100; id++)
		mlib_index_get_text(idx, id, "title", buf, sizeof buf);
	CHECK(mlib_index_map_damaged(idx));
	/* The texts' offsets had passed their checks, so the damaged blob is
	 * not swapped for other arrays under readers (another thread may be
	 * between reading an offset and the blob): a text handed out before
	 * stays where it was, and the same text is still found there. */
	CHECK_STR(first, "Title Number 00001 With Capitals To Keep Apart");
	CHECK(mlib_index_get_text(idx, 1, "title", buf, sizeof buf) == first);
	mlib_index_free(idx);
	unlink(sp);
}

TEST(damaged_mapped_snapshots_never_crash)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, MLIB_DB_READONLY);
	struct mlib_load_info info;
	struct mlib_index *ref = load(db, MLIB_LOAD_NO_SNAPSHOT, &info);
	mlib_db_close(db);
	db = open_db(path, 0);
	mlib_index_free(load(db, 0, &info));
	REQUIRE(info.wrote_snapshot);
	mlib_db_close(db);
	char *sp = snap_path(path);
	size_t n, sn;
	unsigned char *good = slurp(sp, &n);
	unsigned char *stream = snap_blob_stream(sp, &sn);
	REQUIRE(stream != NULL);
	static size_t lens[1024];
	size_t nsec = blob_lens(stream, sn, lens, 1024);
	REQUIRE(nsec > 5 + 15);
	unsigned char *bad = malloc(n);
	db = open_db(path, MLIB_DB_READONLY); /* never rewrites the file */
	/* In every section: a flipped byte at its start, middle and end; and
	 * the padding after it; then the file cut at its start. Then the
	 * header and the table of contents. */
	size_t off = snap_header_size(), rounds = 0, refused = 0;
	for (size_t i = 0; i <= nsec; i++) {
		off = (off + 63) / 64 * 64;
		size_t len = i < nsec ? lens[i] : n - off; /* the table last */
		size_t at[5] = { off, off + len / 2, off + len - 1, off + len, off };
		for (int k = 0; k < 5; k++) {
			size_t cut = k == 4 ? off : n;
			if ((k < 3 && len == 0) || (k == 3 && (len % 64 == 0 || i == nsec)))
				continue;
			memcpy(bad, good, n);
			if (k < 4)
				bad[at[k]] ^= 0x40;
			spit(sp, bad, cut);
			struct mlib_index *idx = load(db, MLIB_LOAD_MAP, &info);
			rounds++;
			if (info.from_snapshot) { /* found as the property is read */
				touch_everything(idx);
				CHECK_MSG(mlib_index_map_damaged(idx), "section %zu, change %d unnoticed", i, k);
			} else {
				refused++;
				CHECK(!mlib_index_is_mapped(idx));
				CHECK_INT(mlib_index_count(idx), mlib_index_count(ref));
			}
			mlib_index_free(idx);
		}
		if (i < nsec)
			off += lens[i];
	}
	CHECK(rounds > 60 && refused > 0 && refused < rounds);
	for (size_t at = 0; at < snap_header_size(); at += 8) { /* the header */
		memcpy(bad, good, n);
		bad[at] ^= 1;
		spit(sp, bad, n);
		struct mlib_index *idx = load(db, MLIB_LOAD_MAP, &info);
		CHECK_MSG(!info.from_snapshot, "header byte %zu", at);
		mlib_index_free(idx);
	}
	spit(sp, good, n);
	struct mlib_index *idx = load(db, MLIB_LOAD_MAP, &info);
	CHECK(info.from_snapshot && mlib_index_is_mapped(idx));
	check_same_index(ref, idx);
	CHECK(!mlib_index_map_damaged(idx));
	mlib_index_free(idx);
	mlib_db_close(db);
	mlib_index_free(ref);
	free(bad);
	free(good);
	free(stream);
	free(sp);
}

/* Virtual machine steps of the statistics query (trace callback). */
static int stats_query_steps = -1;
static int count_stats_steps(unsigned what, void *ud, void *p, void *x)
{
	(void)what, (void)ud, (void)x;
	sqlite3_stmt *st = p;
	const char *sql = sqlite3_sql(st);
	if (sql && strstr(sql, "FROM media_stats_dirty d"))
		stats_query_steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
	return 0;
}

/* Applying play statistics to a snapshot walks the changed rows, not the
 * library: SQLite's planner scanned all of media for the join (60 ms at
 * 1M tracks on every start, with no row changed). */
TEST(statistics_applied_without_scanning_the_library)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, 0);
	struct mlib_load_info info;
	struct crate_err err = { 0 };
	mlib_index_free(load(db, 0, &info));
	REQUIRE(info.wrote_snapshot);
	REQUIRE(mlib_media_set_rating(db, NULL, 3, 5, &err) == 0);
	sqlite3_trace_v2(mlib_db_sqlite(db), SQLITE_TRACE_PROFILE, count_stats_steps, NULL);
	struct mlib_index *idx = load(db, 0, &info);
	CHECK(info.from_snapshot);
	CHECK_MSG(stats_query_steps >= 0 && stats_query_steps < 500,
		  "%d steps for one changed row of %d", stats_query_steps, NTRACKS);
	sqlite3_trace_v2(mlib_db_sqlite(db), 0, NULL, NULL);
	mlib_index_free(idx);
	mlib_db_close(db);
}

TEST(unwritable_directory_skips_the_snapshot)
{
	const char *path = make_library();
	struct mlib_db *db = open_db(path, MLIB_DB_READONLY);
	struct mlib_load_info info;
	mlib_index_free(load(db, 0, &info));
	CHECK(!info.from_snapshot && !info.wrote_snapshot);
	char *sp = snap_path(path);
	struct stat st;
	CHECK(stat(sp, &st) != 0);
	mlib_db_close(db);
	/* An empty library round-trips too. */
	char empty[512];
	snprintf(empty, sizeof empty, "%s/empty.db", harness_tmpdir());
	db = open_db(empty, 0);
	struct mlib_index *a = load(db, 0, &info);
	CHECK(info.wrote_snapshot);
	struct mlib_index *b = load(db, 0, &info);
	CHECK(info.from_snapshot);
	CHECK_INT(mlib_index_count(b), 0);
	check_same_index(a, b);
	mlib_index_free(a);
	mlib_index_free(b);
	mlib_db_close(db);
	free(sp);
}

/* Issue 14 item 11: temporary snapshot files of writers killed mid-write
 * (SIGKILL, a power cut) are removed at the next start; a file another
 * live writer holds (a real second process holding its lock), a symlink
 * and files of other names are left alone. */
TEST(stale_temp_snapshots_are_removed_at_start)
{
	const char *path = make_library();
	char *sp = snap_path(path);
	char stale[600], held[600], link_[600], other[600], target[600];
	snprintf(stale, sizeof stale, "%s.tmp.AbC123", sp);
	snprintf(held, sizeof held, "%s.tmp.xYz789", sp);
	snprintf(link_, sizeof link_, "%s.tmp.LnK000", sp);
	snprintf(other, sizeof other, "%s.tmp.toolong1", sp);
	snprintf(target, sizeof target, "%s/keep-me", harness_tmpdir());
	spit(stale, "stale", 5);
	spit(held, "held", 4);
	spit(other, "other", 5);
	spit(target, "target", 6);
	REQUIRE(symlink(target, link_) == 0);
	/* A live writer: a second process holding the lock on its file. */
	int ready[2];
	REQUIRE(pipe(ready) == 0);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		alarm(60); /* never outlive the test */
		int fd = open(held, O_RDWR);
		if (fd < 0 || flock(fd, LOCK_EX) != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char c;
	REQUIRE(read(ready[0], &c, 1) == 1);
	struct mlib_db *db = open_db(path, 0);
	struct mlib_load_info info;
	mlib_index_free(load(db, 0, &info));
	CHECK(info.wrote_snapshot);
	struct stat st;
	CHECK_MSG(lstat(stale, &st) != 0, "%s left behind", stale);
	CHECK_MSG(lstat(held, &st) == 0, "a live writer's file was removed");
	CHECK_MSG(lstat(link_, &st) == 0 && S_ISLNK(st.st_mode), "the symlink was removed");
	CHECK(stat(target, &st) == 0);
	CHECK(lstat(other, &st) == 0);
	/* The writer died: its file goes at the next start. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	mlib_index_free(load(db, 0, &info));
	CHECK_MSG(lstat(held, &st) != 0, "a dead writer's file was left behind");
	/* A read-only open removes nothing. */
	spit(stale, "stale", 5);
	mlib_db_close(db);
	db = open_db(path, MLIB_DB_READONLY);
	mlib_index_free(load(db, 0, &info));
	CHECK(lstat(stale, &st) == 0);
	mlib_db_close(db);
	close(ready[0]);
	close(ready[1]);
	free(sp);
}

/* Number of "<snap>.tmp.*" files. */
static size_t count_temps(const char *sp)
{
	char pat[700];
	snprintf(pat, sizeof pat, "%s.tmp.*", sp);
	glob_t g;
	size_t n = glob(pat, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	globfree(&g);
	return n;
}

/* Issue 14 item 11: SIGINT, SIGTERM and SIGHUP arriving while a snapshot is
 * written remove its temporary file, and the process still dies of the
 * signal (real signals to a real child process). */
TEST(signal_during_snapshot_write_removes_the_temp_file)
{
	char sp[600];
	snprintf(sp, sizeof sp, "%s/sig.db.index", harness_tmpdir());
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < 3; i++) {
		int ready[2];
		REQUIRE(pipe(ready) == 0);
		pid_t pid = fork();
		REQUIRE(pid >= 0);
		if (pid == 0) {
			/* As an interactive crate: a test run in the background
			 * starts with SIGINT ignored, and ignored it would stay. */
			for (size_t k = 0; k < 3; k++)
				signal(sigs[k], SIG_DFL);
			alarm(30); /* never outlive the test */
			tmpfiles_signals_install();
			struct crate_err err = { 0 };
			struct snap_writer *w = snap_writer_open(sp, &err);
			if (!w)
				_exit(1);
			snap_put(w, "half a snapshot", 15);
			if (write(ready[1], "x", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		char c;
		REQUIRE(read(ready[0], &c, 1) == 1);
		CHECK_INT(count_temps(sp), 1);
		kill(pid, sigs[i]);
		int status = 0;
		waitpid(pid, &status, 0);
		CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i],
			  "signal %d: the writer did not die of it (status %d)", sigs[i], status);
		CHECK_MSG(count_temps(sp) == 0, "signal %d left the temporary file", sigs[i]);
		close(ready[0]);
		close(ready[1]);
	}
}

/* Issue 14 item 5c: a FIFO where the snapshot belongs does not hang the
 * start: the index comes from SQLite. */
TEST(fifo_in_place_of_the_snapshot_does_not_hang)
{
	const char *path = make_library();
	char *sp = snap_path(path);
	REQUIRE(mkfifo(sp, 0644) == 0);
	alarm(20); /* the old code blocked in open() forever */
	struct mlib_db *db = open_db(path, MLIB_DB_READONLY);
	struct mlib_load_info info;
	struct mlib_index *idx = load(db, 0, &info);
	CHECK(!info.from_snapshot);
	CHECK_MSG(strstr(info.why, "not a regular file") != NULL, "why: %s", info.why);
	CHECK_INT(mlib_index_count(idx), NTRACKS - 1); /* one is missing */
	mlib_index_free(idx);
	mlib_db_close(db);
	alarm(0);
	free(sp);
}
