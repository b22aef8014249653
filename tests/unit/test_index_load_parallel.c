/* medialib/index_load.c, the parallel parts: the media table read on a
 * reader thread in batches and indexed on the caller's thread gives every
 * item its values across many batch boundaries; the detached snapshot
 * write (MLIB_LOAD_WRITE_DETACHED) leaves no child behind, and its file is
 * the one a later start uses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "medialib/media.h"
#include "medialib/tags.h"
#include "test_medialib_util.h"

/* More rows than the loader's batches in flight hold (3 x 4096), and
 * than it reads before sizing dictionaries for the rest (16384). */
#define NTRACKS 20000
#define NARTISTS 37

/* The titles after the first 16384 rows are not like those before, so
 * the loader's estimate from them is wrong both ways: up to 18000 much
 * longer than expected (the texts outgrow the room reserved), then far
 * fewer distinct ones (room left over). */
static void expected_title(int i, char *buf, size_t n)
{
	if (i >= 18000)
		snprintf(buf, n, "Title %d", i % 50);
	else if (i >= 16384)
		snprintf(buf, n, "Title %d %0200d", i, i);
	else
		snprintf(buf, n, "Title %d%s", i, i % 3 ? "" : " Ünïcode");
}

/* Track i's tags and file. */
static void fill_track(int i, struct tm_row *row, void *arg)
{
	(void)arg;
	struct mlib_tags *t = &row->tags;
	t->duration_ms = 1000 + i;
	char buf[256];
	snprintf(buf, sizeof buf, "Artist %d", i % NARTISTS);
	mlib_tags_add(t, "artist", buf);
	if (i % 10) { /* every tenth track has no title */
		expected_title(i, buf, sizeof buf);
		mlib_tags_add(t, "title", buf);
	}
	if (i % 4 == 0)
		mlib_tags_add(t, "genre", "Rock");
	if (i == 3) /* a tag of one track (media_tag, after the media columns) */
		mlib_tags_add(t, "mood", "calm");
	snprintf(buf, sizeof buf, "%d", 1950 + i % 70);
	mlib_tags_add(t, "date", buf);
	snprintf(row->url, sizeof row->url, "/music/%06d.flac", i);
	row->size = 100 + i;
	row->mtime = 200 + i;
}

/* Returns the database path (static); ids[i] is the media id of track i. */
static const char *make_library(uint32_t *ids)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/load.db", harness_tmpdir());
	mlib_db_close(tm_write_library(path, NTRACKS, fill_track, NULL, ids));
	return path;
}

static struct mlib_index *load(const char *path, unsigned flags, struct mlib_load_info *info)
{
	struct crate_err err = {0};
	struct mlib_db *db = NULL;
	REQUIRE(mlib_db_open(path, 0, &db, &err) == 0);
	struct mlib_index *idx = NULL;
	REQUIRE(mlib_index_load_ex(db, flags, &idx, info, &err) == 0);
	mlib_db_close(db);
	return idx;
}

static void check_items(const struct mlib_index *idx, const uint32_t *ids)
{
	CHECK_INT(mlib_index_count(idx), NTRACKS);
	int artist = mlib_index_prop(idx, "artist");
	REQUIRE(artist >= 0);
	CHECK_INT(mlib_index_dict_size(idx, artist), NARTISTS); /* each name interned once */
	int bad = 0;
	for (int i = 0; i < NTRACKS && bad < 5; i++) {
		char buf[256], want[256], num[32];
		const char *v = mlib_index_get_text(idx, ids[i], "artist", buf, sizeof buf);
		snprintf(want, sizeof want, "Artist %d", i % NARTISTS);
		bool ok = v && strcmp(v, want) == 0;
		v = mlib_index_get_text(idx, ids[i], "title", buf, sizeof buf);
		expected_title(i, want, sizeof want);
		ok &= i % 10 ? v && strcmp(v, want) == 0 : v == NULL;
		v = mlib_index_get_text(idx, ids[i], "genre", buf, sizeof buf);
		ok &= i % 4 ? v == NULL : v && strcmp(v, "Rock") == 0;
		v = mlib_index_get_text(idx, ids[i], "url", buf, sizeof buf);
		snprintf(want, sizeof want, "/music/%06d.flac", i);
		ok &= v && strcmp(v, want) == 0;
		v = mlib_index_get_text(idx, ids[i], "duration", num, sizeof num);
		snprintf(want, sizeof want, "%d", 1000 + i);
		ok &= v && strcmp(v, want) == 0;
		if (!ok) {
			fprintf(stderr, "    track %d (id %u) has wrong values\n", i, ids[i]);
			bad++;
		}
	}
	CHECK_INT(bad, 0);
}

static uint32_t ids[NTRACKS];

TEST(pipelined_load_keeps_every_value_across_batches)
{
	const char *path = make_library(ids);
	struct mlib_load_info info;
	struct mlib_index *idx = load(path, MLIB_LOAD_NO_SNAPSHOT, &info);
	CHECK(!info.from_snapshot);
	check_items(idx, ids);
	mlib_index_free(idx);
}

/* The load sizes the media columns from max(id) at once; a property
 * defined after them (a tag one track holds) starts small, as in a build:
 * the hint once outlived the media table and gave every such tag a column
 * of max(id) entries, in memory and in the snapshot. */
TEST(a_tag_of_one_track_gets_a_small_column)
{
	const char *path = make_library(ids);
	struct mlib_load_info info;
	struct mlib_index *idx = load(path, MLIB_LOAD_NO_SNAPSHOT, &info);
	char buf[64];
	const char *v = mlib_index_get_text(idx, ids[3], "mood", buf, sizeof buf);
	CHECK(v && strcmp(v, "calm") == 0);
	int mood = mlib_index_prop(idx, "mood"), title = mlib_index_prop(idx, "title");
	REQUIRE(mood >= 0 && title >= 0);
	struct mlib_str_column c;
	REQUIRE(mlib_index_str_column(idx, mood, &c));
	CHECK_MSG(c.len < NTRACKS / 4, "mood's column holds %zu entries", c.len);
	REQUIRE(mlib_index_str_column(idx, title, &c));
	CHECK(c.len > ids[NTRACKS - 1]);
	mlib_index_free(idx);
}

TEST(detached_snapshot_write_leaves_no_child_and_is_used)
{
	const char *path = make_library(ids);
	char snap[600];
	snprintf(snap, sizeof snap, "%s.index", path);
	unlink(snap);
	struct mlib_load_info info;
	struct mlib_index *idx = load(path, MLIB_LOAD_WRITE_DETACHED, &info);
	CHECK(!info.from_snapshot);
	CHECK(info.writing_snapshot);
	CHECK(!info.wrote_snapshot);
	/* The intermediate child was reaped; the writer is not our child. */
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
	check_items(idx, ids); /* the caller's index is usable at once */
	mlib_index_free(idx);
	for (int i = 0; i < 400 && access(snap, F_OK) != 0; i++)
		usleep(50000);
	REQUIRE(access(snap, F_OK) == 0);
	idx = load(path, 0, &info);
	CHECK(info.from_snapshot);
	check_items(idx, ids);
	mlib_index_free(idx);
}

/* The readers hand each row to the loader through an SQL function defined
 * on their connections, the caller's included. Defining it again fails on
 * a connection running a statement: the caller's reader then reads the
 * columns one by one, into the same index. The function is no use to
 * other SQL (an error, not a crash). */
TEST(load_on_a_busy_connection_reads_the_columns)
{
	const char *path = make_library(ids);
	struct crate_err err = {0};
	struct mlib_db *db = NULL;
	REQUIRE(mlib_db_open(path, 0, &db, &err) == 0);
	struct mlib_index *idx = NULL;
	struct mlib_load_info info;
	REQUIRE(mlib_index_load_ex(db, MLIB_LOAD_NO_SNAPSHOT, &idx, &info, &err) == 0);
	check_items(idx, ids);
	mlib_index_free(idx);
	sqlite3_stmt *busy;
	REQUIRE(sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT id FROM media", -1, &busy, NULL) ==
		SQLITE_OK);
	REQUIRE(sqlite3_step(busy) == SQLITE_ROW);
	CHECK(sqlite3_create_function_v2(mlib_db_sqlite(db), "crate_index_load_row", 30,
					 SQLITE_UTF8, NULL, NULL, NULL, NULL, NULL) == SQLITE_BUSY);
	idx = NULL;
	REQUIRE(mlib_index_load_ex(db, MLIB_LOAD_NO_SNAPSHOT, &idx, &info, &err) == 0);
	check_items(idx, ids);
	mlib_index_free(idx);
	sqlite3_finalize(busy);
	sqlite3_stmt *st;
	REQUIRE(sqlite3_prepare_v2(mlib_db_sqlite(db),
				   "SELECT crate_index_load_row(NULL, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,"
				   " 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,"
				   " 27, 28, 29)",
				   -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ERROR);
	sqlite3_finalize(st);
	mlib_db_close(db);
}
