/* The interface's start-up on a library with an index snapshot
 * (app_opts.resident, app_library.c): app->index is the snapshot mapped in
 * place at once, a worker builds the owned index and app_scan_poll swaps
 * it in with the same answers; a change written into the mapped index
 * meanwhile survives the swap; a damaged snapshot ends in the SQLite load,
 * a stale one is loaded from SQLite at once, as before; without one, the
 * snapshot is written on a thread (no fork), which writes and quitting
 * wait for. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_typo.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/node.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "medialib/media.h"
#include "medialib/tags.h"
#include "test_app_util.h"
#include "test_medialib_util.h"

/* Enough distinct titles for the searched fields' items-by-value lists
 * (which a mapped index does without). */
#define NTRACKS 5000

static const char *const artists[] = {"The Beatles", "Björk", "Ärger", "AC/DC", "Кино",
				      "Nina Simone", "Love", "Lovage"};
static const char *const queries[] = {
	"artist:björk", "love", "title~\"song 1\"", "year>1990", "genre:rock OR genre:jazz",
	"album:\"album 7\"", "lov", "NOT artist:love", "tracknr<3", "beatles song",
};

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 32);
}

/* Track i's tags; arg: the generator's state (uint64_t). */
static void fill_track(int i, struct tm_row *row, void *arg)
{
	uint64_t *s = arg;
	struct mlib_tags *t = &row->tags;
	t->duration_ms = 1000 + rnd(s) % 400000;
	char buf[64];
	mlib_tags_add(t, "artist", artists[rnd(s) % 8]);
	snprintf(buf, sizeof buf, "Song %d %s", i, i % 7 ? "" : "love");
	mlib_tags_add(t, "title", buf);
	snprintf(buf, sizeof buf, "Album %u", rnd(s) % 300);
	mlib_tags_add(t, "album", buf);
	mlib_tags_add(t, "genre", i % 3 ? "Rock" : "Jazz");
	snprintf(buf, sizeof buf, "%u", 1 + rnd(s) % 12);
	mlib_tags_add(t, "track", buf);
	snprintf(buf, sizeof buf, "%u", 1950 + rnd(s) % 70);
	mlib_tags_add(t, "date", buf);
}

/* A library of NTRACKS items and its snapshot (written at the library's
 * current counters); with_stats: some items rated, played and skipped
 * (the index has those properties). Returns the database path (static). */
static const char *make_library_ex(bool with_stats)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/lib.db", harness_tmpdir());
	struct crate_err err = {0};
	uint64_t s = 0x9e3779b97f4a7c15ull;
	struct mlib_db *db = tm_write_library(path, NTRACKS, fill_track, &s, NULL);
	if (with_stats)
		REQUIRE(mlib_db_exec(db, "UPDATE media SET rating = 3, timesplayed = 2,"
					 " lastplayed = 1600000000, timesskipped = 1 WHERE id % 10 = 0",
				     &err) == 0);
	struct mlib_index *idx;
	struct mlib_load_info info;
	REQUIRE(mlib_index_load_ex(db, MLIB_LOAD_NO_READ, &idx, &info, &err) == 0);
	CHECK_MSG(info.wrote_snapshot, "snapshot not written: %s", info.why);
	mlib_index_free(idx);
	mlib_db_close(db);
	return path;
}

static const char *make_library(void)
{
	return make_library_ex(true);
}

static struct app *open_app(const char *db, bool resident)
{
	return test_app_open_db(db, resident);
}

/* Every query's answer, as the search bar ranks it, one line per query. */
static char *answers(struct app *app)
{
	struct strbuf out;
	strbuf_init(&out, 4096);
	for (size_t q = 0; q < sizeof queries / sizeof *queries; q++) {
		struct crate_err err = {0};
		struct coll_node *n = app_parse_query(app, queries[q], false, &err);
		CHECK_MSG(n != NULL, "%s: %s", queries[q], err.msg);
		if (!n)
			continue;
		struct coll_result r = {0};
		int rc = app_search(app, n, queries[q], 0, &r, NULL, &err);
		CHECK_MSG(rc == 0, "%s: %s", queries[q], err.msg);
		strbuf_addf(&out, "%s:", queries[q]);
		for (size_t i = 0; rc == 0 && i < r.ids.n; i++)
			strbuf_addf(&out, " %u", r.ids.v[i]);
		strbuf_addf(&out, " (%zu)\n", r.ids.n);
		coll_result_free(&r);
		coll_node_unref(n);
	}
	return strbuf_steal(&out);
}

/* Poll the background worker until none runs (a worker that dropped its
 * index starts again); returns how many finished, *quiet whether every
 * one of them was quiet. */
static int settle(struct app *app, bool *quiet)
{
	int finished = 0;
	*quiet = true;
	for (int i = 0; app_scan_event_fd(app) >= 0 && i < 3000; i++) {
		struct app_scan_progress p;
		int rc = app_scan_poll(app, &p);
		if (rc == 1) {
			finished++;
			*quiet = *quiet && p.quiet;
			CHECK_MSG(p.rc == 0, "%s", p.msg);
		} else {
			usleep(5000);
		}
	}
	CHECK(app_scan_event_fd(app) < 0);
	return finished;
}

static void wait_holding(void)
{
	for (int i = 0; !app_library_holding() && i < 3000; i++)
		usleep(5000);
	REQUIRE(app_library_holding());
}

TEST(starts_mapped_then_owns_with_the_same_answers)
{
	const char *db = make_library();
	/* The reference: the index owned from the start, as before. */
	struct app *ref = open_app(db, false);
	CHECK(!mlib_index_is_mapped(ref->index));
	CHECK(ref->scan == NULL);
	char *want = answers(ref);
	app_close(ref);

	app_library_hold(true); /* the owned copy waits: "still mapped" is certain */
	struct app *app = open_app(db, true);
	CHECK(mlib_index_is_mapped(app->index));
	CHECK(app_scan_is_quiet(app));
	CHECK_INT(mlib_index_count(app->index), NTRACKS);
	/* The first searches run on the mapped index (columns scanned, no
	 * items-by-value lists) and answer the same. */
	char *mapped = answers(app);
	CHECK_STR(mapped, want);
	CHECK(!mlib_index_map_damaged(app->index));
	unsigned serial = app->index_serial;
	app_library_hold(false);
	bool quiet;
	CHECK_INT(settle(app, &quiet), 1);
	CHECK(quiet);
	CHECK(!mlib_index_is_mapped(app->index)); /* the mapping went with the old index */
	CHECK(app->index_serial != serial);
	char *owned = answers(app);
	CHECK_STR(owned, want);
	free(want);
	free(mapped);
	free(owned);
	app_close(app);
}

TEST(a_change_while_mapped_survives_the_swap)
{
	const char *db = make_library();
	app_library_hold(true);
	struct app *app = open_app(db, true);
	REQUIRE(mlib_index_is_mapped(app->index));
	/* The search bar's words are being built from the mapped texts when
	 * the writes below copy arrays out of the mapping. */
	app_typo_hold(true);
	app_typo_start(app);
	wait_holding(); /* the worker has read the library: the writes are newer */
	struct crate_err err = {0};
	CHECK_MSG(app_set_rating(app, 42, 5, &err) == 0, "%s", err.msg);
	CHECK_MSG(app_record_play(app, 43, 1700000123, &err) == 0, "%s", err.msg);
	CHECK_MSG(app_record_skip(app, 45, &err) == 0, "%s", err.msg);
	CHECK_MSG(app_correct_duration(app, 44, 123456, &err) == 0, "%s", err.msg);
	app_typo_hold(false);
	/* Properties the snapshot has: copied out one by one, still mapped. */
	CHECK(mlib_index_is_mapped(app->index));
	CHECK_INT(test_app_int_of(app, 42, "rating"), 5);
	CHECK_INT(test_app_int_of(app, 43, "timesplayed"), 1);
	app_library_hold(false);
	bool quiet;
	/* The first copy is older than the writes: dropped and built again. */
	CHECK_INT(settle(app, &quiet), 2);
	CHECK(quiet);
	CHECK(!mlib_index_is_mapped(app->index));
	CHECK_INT(test_app_int_of(app, 42, "rating"), 5);
	CHECK_INT(test_app_int_of(app, 43, "timesplayed"), 1);
	CHECK_INT(test_app_int_of(app, 43, "lastplayed"), 1700000123);
	CHECK_INT(test_app_int_of(app, 45, "timesskipped"), 1);
	CHECK_INT(test_app_int_of(app, 44, "duration"), 123456);
	CHECK_INT(test_app_int_of(app, 50, "rating"), 3); /* the snapshot's own */
	CHECK(app_typo_wait(app) != NULL); /* the words again, for the new index */
	app_close(app);
}

TEST(a_first_rating_while_mapped_owns_the_index_at_once)
{
	/* No item rated yet: the index has no "rating" to copy out, so the
	 * write makes the whole index its own (and unmaps the file) under a
	 * running word build, which stops first. */
	const char *db = make_library_ex(false);
	app_library_hold(true);
	struct app *app = open_app(db, true);
	REQUIRE(mlib_index_is_mapped(app->index));
	app_typo_hold(true);
	app_typo_start(app);
	wait_holding();
	struct crate_err err = {0};
	CHECK_MSG(app_set_rating(app, 42, 4, &err) == 0, "%s", err.msg);
	app_typo_hold(false);
	CHECK(!mlib_index_is_mapped(app->index));
	app_library_hold(false);
	bool quiet;
	CHECK_INT(settle(app, &quiet), 1); /* its copy is not needed: dropped */
	CHECK_INT(test_app_int_of(app, 42, "rating"), 4);
	CHECK(app_typo_wait(app) != NULL);
	app_close(app);
}

TEST(quitting_while_the_copy_is_built)
{
	const char *db = make_library();
	app_library_hold(true);
	struct app *app = open_app(db, true);
	CHECK(mlib_index_is_mapped(app->index));
	wait_holding();
	app_close(app); /* cancels the worker at the hold; nothing left running */
	app_library_hold(false);
}

TEST(a_damaged_snapshot_ends_in_the_sqlite_load)
{
	const char *db = make_library();
	struct app *ref = open_app(db, false);
	char *want = answers(ref);
	app_close(ref);
	/* Flip bytes inside the file (past the header: the start-up still
	 * maps it; a check finds the damage when the block is read). */
	char *snap = xasprintf("%s.index", db);
	struct stat st;
	REQUIRE(stat(snap, &st) == 0);
	int fd = open(snap, O_RDWR);
	REQUIRE(fd >= 0);
	for (off_t off = st.st_size / 4; off < st.st_size * 3 / 4; off += st.st_size / 16) {
		unsigned char b;
		REQUIRE(pread(fd, &b, 1, off) == 1);
		b ^= 0x5a;
		REQUIRE(pwrite(fd, &b, 1, off) == 1);
	}
	close(fd);
	struct app *app = open_app(db, true);
	bool quiet;
	if (mlib_index_is_mapped(app->index))
		CHECK_INT(settle(app, &quiet), 1);
	CHECK(!mlib_index_is_mapped(app->index));
	char *got = answers(app);
	CHECK_STR(got, want);
	free(got);
	free(want);
	free(snap);
	app_close(app);
}

TEST(a_stale_snapshot_is_loaded_from_sqlite_at_once)
{
	const char *db = make_library();
	struct crate_err err = {0};
	struct mlib_db *d = NULL;
	REQUIRE(mlib_db_open(db, 0, &d, &err) == 0);
	REQUIRE(mlib_db_exec(d, "UPDATE media SET title = 'Changed' WHERE id = 7", &err) == 0);
	mlib_db_close(d);
	struct app *app = open_app(db, true);
	CHECK(!mlib_index_is_mapped(app->index));
	CHECK(app->scan == NULL); /* nothing to own: it is owned */
	struct coll_result r = {0};
	CHECK(app_eval_query(app, "title:changed", false, &r, &err) == 0);
	CHECK_INT(r.ids.n, 1);
	coll_result_free(&r);
	app_close(app);
}

/* Without a usable snapshot the interface loads from SQLite and writes
 * the snapshot on a thread, not from a forked process (a fork
 * write-protected every page of the interface, and its keystrokes paid
 * for that: issue 21). A play recorded meanwhile waits for the writer;
 * the next start maps the snapshot and still counts the play. */
/* The interface on a library (*db) whose snapshot (*snap) is gone. */
static struct app *open_without_snapshot(const char **db, char **snap)
{
	*db = make_library();
	*snap = xasprintf("%s.index", *db);
	REQUIRE(unlink(*snap) == 0);
	struct app *app = open_app(*db, true);
	CHECK(!mlib_index_is_mapped(app->index));
	return app;
}

/* The next start maps the snapshot the last one wrote; id's play count
 * there (-1: none). */
static int64_t reopen_mapped(const char *db, uint32_t id)
{
	struct app *app = open_app(db, true);
	CHECK(mlib_index_is_mapped(app->index));
	int64_t played = test_app_int_of(app, id, "timesplayed");
	bool quiet;
	settle(app, &quiet);
	app_close(app);
	return played;
}

TEST(a_start_from_sqlite_writes_the_snapshot_on_a_thread)
{
	const char *db;
	char *snap;
	struct app *app = open_without_snapshot(&db, &snap);
	int64_t before = test_app_int_of(app, 10, "timesplayed");
	struct crate_err err = {0};
	CHECK_MSG(app_record_play(app, 10, 1700000000, &err) == 0, "%s", err.msg);
	CHECK(app->snapwrite == NULL); /* the write waited for the writer */
	CHECK_INT(test_app_int_of(app, 10, "timesplayed"), before + 1);
	struct stat st;
	CHECK_MSG(stat(snap, &st) == 0 && st.st_size > 0, "no snapshot after the writer");
	struct rusage ru;
	REQUIRE(getrusage(RUSAGE_CHILDREN, &ru) == 0);
	CHECK_MSG(ru.ru_maxrss == 0, "a child process ran (max RSS %ld kB)", ru.ru_maxrss);
	app_close(app);
	CHECK_INT(reopen_mapped(db, 10), before + 1);
	free(snap);
}

/* Quitting while the snapshot is written waits for it: the file is whole
 * (the next start maps it), no temporary file is left. */
TEST(quitting_while_the_snapshot_is_written)
{
	const char *db;
	char *snap;
	app_close(open_without_snapshot(&db, &snap));
	struct stat st;
	CHECK(stat(snap, &st) == 0);
	reopen_mapped(db, 10);
	char *cmd = xasprintf("ls -a '%s' | grep -c tmp", harness_tmpdir());
	FILE *p = popen(cmd, "r");
	char buf[32] = "";
	if (p) {
		if (!fgets(buf, sizeof buf, p))
			buf[0] = '\0';
		pclose(p);
	}
	CHECK_MSG(atoi(buf) == 0, "temporary files left: %s", buf);
	free(cmd);
	free(snap);
}
