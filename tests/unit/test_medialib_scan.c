/* medialib/scan.c + tags.c on real files made with ffmpeg: tags and
 * properties, incremental rescans, per-file problems, kill -9 during a
 * scan, the background scan of app_library.c. */
#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <utime.h>

#include "app/app.h"
#include "base/str.h"
#include "app/app_library.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "medialib/media.h"
#include "medialib/scan.h"
#include "test_medialib_util.h"

static struct mlib_db *open_db(void)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = NULL;
	struct crate_err err = {0};
	CHECK_MSG(mlib_db_open(path, 0, &db, &err) == 0, "%s", err.msg);
	free(path);
	REQUIRE(db != NULL);
	return db;
}

static void scan_ok(struct mlib_db *db, const char *dir, struct mlib_scan_result *res)
{
	struct crate_err err = {0};
	const char *paths[] = {dir};
	struct mlib_scan_opts opts = {.threads = 2};
	CHECK_MSG(mlib_scan(db, paths, 1, &opts, res, &err) == 0, "%s", err.msg);
}

static struct mlib_index *load(struct mlib_db *db)
{
	struct mlib_index *idx = NULL;
	struct crate_err err = {0};
	CHECK_MSG(mlib_index_load(db, &idx, &err) == 0, "%s", err.msg);
	REQUIRE(idx != NULL);
	return idx;
}

static uint32_t id_of(struct mlib_db *db, const char *path)
{
	uint32_t id = 0;
	struct crate_err err = {0};
	char *abs = realpath(path, NULL);
	if (mlib_media_find_url(db, abs ? abs : path, strlen(abs ? abs : path), &id, &err) != 0)
		id = 0;
	free(abs);
	return id;
}

static bool has_error(const struct mlib_scan_result *res, const char *path_part, const char *why)
{
	for (size_t i = 0; i < res->nerrors; i++)
		if (strstr(res->errors[i].path, path_part) && strstr(res->errors[i].msg, why))
			return true;
	return false;
}

static const char *const meta_a[] = {
	"artist=Kraftwerk", "album=Computerwelt", "title=Nummern", "track=3/12",
	"date=1981-05-10", "genre=Electronic", "album_artist=Kraftwerk",
	"REPLAYGAIN_TRACK_GAIN=-6.20 dB", "MOOD=Robotic", NULL};

TEST(scan_reads_tags_and_properties)
{
	char *dir = tm_path("music");
	mkdir(dir, 0755);
	char *flac = xasprintf("%s/a.flac", dir), *mp3 = xasprintf("%s/b.mp3", dir);
	tm_make_audio(flac, 0.5, meta_a);
	const char *meta_b[] = {"title=Plain", NULL};
	tm_make_audio(mp3, 0.3, meta_b);
	struct mlib_db *db = open_db();
	struct mlib_scan_result res;
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.added, 2);
	CHECK_INT(res.nerrors, 0);
	mlib_scan_result_free(&res);
	struct mlib_index *idx = load(db);
	uint32_t id = id_of(db, flac);
	REQUIRE(id > 0);
	char buf[64];
	CHECK_STR(mlib_index_get_text(idx, id, "artist", buf, sizeof buf), "Kraftwerk");
	CHECK_STR(mlib_index_get_text(idx, id, "albumartist", buf, sizeof buf), "Kraftwerk");
	CHECK_STR(mlib_index_get_text(idx, id, "title", buf, sizeof buf), "Nummern");
	CHECK_STR(mlib_index_get_text(idx, id, "tracknr", buf, sizeof buf), "3");
	CHECK_STR(mlib_index_get_text(idx, id, "tracktotal", buf, sizeof buf), "12");
	CHECK_STR(mlib_index_get_text(idx, id, "date", buf, sizeof buf), "1981-05-10");
	CHECK_STR(mlib_index_get_text(idx, id, "year", buf, sizeof buf), "1981");
	CHECK_STR(mlib_index_get_text(idx, id, "format", buf, sizeof buf), "flac");
	CHECK_STR(mlib_index_get_text(idx, id, "mood", buf, sizeof buf), "Robotic");
	CHECK_STR(mlib_index_get_text(idx, id, "replaygain_track_gain", buf, sizeof buf), "-6.20 dB");
	CHECK_STR(mlib_index_get_text(idx, id, "samplerate", buf, sizeof buf), "44100");
	CHECK_STR(mlib_index_get_text(idx, id, "channels", buf, sizeof buf), "1");
	int64_t dur = 0;
	CHECK(mlib_index_int_value(idx, mlib_index_prop(idx, "duration"), id, &dur));
	CHECK_MSG(dur >= 450 && dur <= 550, "duration %lld", (long long)dur);
	uint32_t id2 = id_of(db, mp3);
	REQUIRE(id2 > 0);
	CHECK_STR(mlib_index_get_text(idx, id2, "format", buf, sizeof buf), "mp3");
	CHECK(mlib_index_get_text(idx, id2, "artist", buf, sizeof buf) == NULL); /* absent, not "" */
	CHECK(mlib_index_int_value(idx, mlib_index_prop(idx, "duration"), id2, &dur) && dur > 200);
	mlib_index_free(idx);
	mlib_db_close(db);
	free(flac);
	free(mp3);
	free(dir);
}

TEST(rescan_is_incremental_ids_stable_missing_comes_back)
{
	char *dir = tm_path("music");
	mkdir(dir, 0755);
	char *a = xasprintf("%s/a.flac", dir), *b = xasprintf("%s/b.flac", dir);
	char *c = xasprintf("%s/c.flac", dir), *keep = tm_path("c.keep");
	tm_make_audio(a, 0.2, meta_a);
	const char *mb[] = {"title=Bee", "genre=Only Bee", NULL}, *mc[] = {"title=Sea", NULL};
	tm_make_audio(b, 0.2, mb);
	tm_make_audio(c, 0.2, mc);
	struct mlib_db *db = open_db();
	struct mlib_scan_result res;
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.added, 3);
	mlib_scan_result_free(&res);
	uint32_t ida = id_of(db, a), idb = id_of(db, b), idc = id_of(db, c);
	CHECK(ida && idb && idc && ida < idb && idb < idc); /* walk order */

	/* Nothing changed: all skipped by size+mtime. */
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.unchanged, 3);
	CHECK_INT(res.totals.added + res.totals.updated, 0);
	mlib_scan_result_free(&res);

	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Only Bee'"), 1);

	/* b rewritten with another title and an older mtime: updated in place;
	 * the genre it alone had leaves the tag strings. */
	const char *mb2[] = {"title=Bee Two", "genre=Later", NULL};
	tm_make_audio(b, 0.25, mb2);
	struct utimbuf ut = {1000000000, 1000000000};
	utime(b, &ut);
	tm_copy_file(c, keep);
	unlink(c);
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.updated, 1);
	CHECK_INT(res.totals.unchanged, 1);
	CHECK_INT(res.totals.missing, 1);
	mlib_scan_result_free(&res);
	CHECK_INT(id_of(db, b), idb);
	struct mlib_index *idx = load(db);
	char buf[32];
	CHECK_STR(mlib_index_get_text(idx, idb, "title", buf, sizeof buf), "Bee Two");
	CHECK_STR(mlib_index_get_text(idx, idb, "mtime", buf, sizeof buf), "1000000000");
	CHECK(!mlib_index_has_media(idx, idc)); /* missing: not in the index */
	CHECK_INT(mlib_index_count(idx), 2);
	mlib_index_free(idx);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media"), 3); /* kept, flagged */
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Only Bee'"), 0);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_text WHERE genre = 'Later'"), 1);

	/* c comes back: same id. */
	tm_copy_file(keep, c);
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.updated, 1);
	CHECK_INT(res.totals.added, 0);
	mlib_scan_result_free(&res);
	CHECK_INT(id_of(db, c), idc);
	idx = load(db);
	CHECK(mlib_index_has_media(idx, idc));
	CHECK_STR(mlib_index_get_text(idx, idc, "title", buf, sizeof buf), "Sea");
	mlib_index_free(idx);
	mlib_db_close(db);
	free(a);
	free(b);
	free(c);
	free(keep);
	free(dir);
}

TEST(per_file_problems_reported_scan_goes_on)
{
	char *dir = tm_path("music");
	char *sub = xasprintf("%s/sub", dir);
	mkdir(dir, 0755);
	mkdir(sub, 0755);
	char *good = xasprintf("%s/good.flac", sub);
	tm_make_audio(good, 0.2, meta_a);
	/* Non-UTF-8 name: indexed, the url keeps the raw bytes. */
	char *latin1 = xasprintf("%s/caf\xe9.flac", dir);
	tm_copy_file(good, latin1);
	char *empty = xasprintf("%s/empty.mp3", dir);
	tm_write_file(empty, "", 0);
	char *text = xasprintf("%s/notes.mp3", dir);
	tm_write_file(text, "this is not audio at all, just text\n", 36);
	char *trunc = xasprintf("%s/trunc.flac", dir);
	size_t len;
	char *bytes = tm_read_file(good, &len);
	tm_write_file(trunc, bytes, 30); /* the fLaC header cut short */
	free(bytes);
	char *fifo = xasprintf("%s/pipe.flac", dir);
	CHECK(mkfifo(fifo, 0644) == 0);
	char *loop = xasprintf("%s/loop", sub);
	CHECK(symlink("..", loop) == 0); /* music/sub/loop -> music */
	char *dangling = xasprintf("%s/gone.flac", dir);
	CHECK(symlink("/nonexistent/crate/x.flac", dangling) == 0);
	char *cover = xasprintf("%s/cover.jpg", dir);
	tm_write_file(cover, "jpeg", 4);
	/* A FLAC named .mp3 (and an MP3 named .flac) are read for what they are. */
	char *lies = xasprintf("%s/lies.mp3", dir);
	tm_copy_file(good, lies);
	char *mp3 = xasprintf("%s/real.mp3", dir), *lies2 = xasprintf("%s/lies2.flac", dir);
	const char *mt[] = {"title=Real", NULL};
	tm_make_audio(mp3, 0.2, mt);
	rename(mp3, lies2);

	struct mlib_db *db = open_db();
	struct mlib_scan_result res;
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.added, 4);
	CHECK_INT(res.totals.ignored, 1);
	CHECK(has_error(&res, "empty.mp3", "empty"));
	CHECK(has_error(&res, "notes.mp3", "not audio"));
	CHECK(has_error(&res, "trunc.flac", ""));
	CHECK(has_error(&res, "pipe.flac", "FIFO"));
	CHECK(has_error(&res, "gone.flac", "broken symbolic link"));
	/* The five are audio files by name. The loop is skipped, as MPD and
	 * cmus do: a note, not a failure. */
	CHECK(!has_error(&res, "sub/loop", ""));
	CHECK_INT(res.nnotes, 1);
	CHECK(res.nnotes == 1 && strstr(res.notes[0].path, "sub/loop") &&
	      strstr(res.notes[0].reason, "symlink loop"));
	CHECK_INT(res.totals.failed, 5);
	CHECK_INT(res.totals.folders_failed, 0);
	CHECK_INT(res.totals.failed + res.totals.folders_failed, res.nerrors);
	CHECK_INT(res.nerrors, 5);
	for (size_t i = 0; i < res.nerrors; i++)
		CHECK_MSG(strstr(res.errors[i].msg, res.errors[i].path) == res.errors[i].msg,
			  "message names the file: %s", res.errors[i].msg);
	mlib_scan_result_free(&res);
	uint32_t id = id_of(db, latin1);
	CHECK(id > 0);
	struct mlib_index *idx = load(db);
	char buf[32];
	const char *url = mlib_index_get_text(idx, id, "url", buf, sizeof buf);
	CHECK(url && strstr(url, "caf\xe9.flac"));
	CHECK_STR(mlib_index_get_text(idx, id_of(db, lies), "format", buf, sizeof buf), "flac");
	CHECK_STR(mlib_index_get_text(idx, id_of(db, lies2), "format", buf, sizeof buf), "mp3");
	mlib_index_free(idx);
	mlib_db_close(db);
	free(sub); free(good); free(latin1); free(empty); free(text); free(trunc);
	free(fifo); free(loop); free(dangling); free(cover); free(dir);
	free(lies); free(mp3); free(lies2);
}

/* As root, EACCES never happens: give the files to "nobody" and drop to
 * that user for the rest of this (forked) test. */
static void drop_root(const char *const *paths, size_t n)
{
	if (geteuid() != 0)
		return;
	const uid_t nobody = 65534;
	chmod(harness_tmpdir(), 0755);
	for (size_t i = 0; i < n; i++)
		REQUIRE(chown(paths[i], nobody, nobody) == 0);
	if (setgid(nobody) != 0 || setuid(nobody) != 0)
		harness_skip("cannot drop root privileges to test EACCES");
}

static bool has_reason(const struct mlib_scan_result *res, const char *path_part,
		       const char *why)
{
	for (size_t i = 0; i < res->nerrors; i++)
		if (strstr(res->errors[i].path, path_part) && strstr(res->errors[i].reason, why))
			return true;
	return false;
}

static void check_counters_agree(const struct mlib_scan_progress *t)
{
	CHECK_MSG(t->seen == t->added + t->updated + t->unchanged + t->failed + t->ignored,
		  "seen %llu != %llu added + %llu updated + %llu unchanged + %llu failed + %llu "
		  "ignored", (unsigned long long)t->seen, (unsigned long long)t->added,
		  (unsigned long long)t->updated, (unsigned long long)t->unchanged,
		  (unsigned long long)t->failed, (unsigned long long)t->ignored);
}

/* Issue 16 item 3, issue 14 item 13: what is not audio by name or content
 * (text, images, playlists, cue sheets, sockets, crate's own database
 * files) is ignored, never a failure; the counters add up. */
TEST(not_audio_is_ignored_not_failed)
{
	char *dir = tm_path("music");
	mkdir(dir, 0755);
	char *good = xasprintf("%s/good.flac", dir);
	tm_make_audio(good, 0.2, meta_a);
	const char *names[] = {"README.md", "cover.jpg", "album.cue", "notes", "list.m3u8",
			       "weird.xyz"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *f = xasprintf("%s/%s", dir, names[i]);
		tm_write_file(f, "not audio at all, only text\n", 28);
		free(f);
	}
	char *sock = xasprintf("%s/control.sock", dir);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
	REQUIRE(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
	/* The database lives inside the scanned folder: its file, -wal, -shm
	 * and index snapshot are crate's own, whatever their names. */
	char *dbpath = xasprintf("%s/my.library", dir);
	struct mlib_db *db = NULL;
	struct crate_err err = {0};
	REQUIRE(mlib_db_open(dbpath, 0, &db, &err) == 0);
	struct mlib_scan_result res;
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.added, 1);
	CHECK_INT(res.totals.failed, 0);
	CHECK_INT(res.totals.folders_failed, 0);
	CHECK_INT(res.nerrors, 0);
	for (size_t i = 0; i < res.nerrors; i++)
		fprintf(stderr, "    unexpected: %s\n", res.errors[i].msg);
	CHECK(res.totals.ignored >= 7); /* + my.library and its -wal/-shm when present */
	check_counters_agree(&res.totals);
	mlib_scan_result_free(&res);
	mlib_db_close(db);
	close(fd);
	unlink(sock);
	free(sock); free(dbpath); free(good); free(dir);
}

/* Issue 14 item 13: a path longer than an error message never cuts the
 * reason off. */
TEST(long_path_keeps_the_reason)
{
	char *dir = tm_path("music");
	mkdir(dir, 0755);
	struct strbuf p;
	strbuf_init(&p, 2048);
	strbuf_adds(&p, dir);
	for (int i = 0; i < 12; i++) {
		strbuf_adds(&p, "/a-rather-long-folder-name-of-sixty-bytes-or-so-for-this-test");
		mkdir(p.buf, 0755);
	}
	strbuf_adds(&p, "/broken.mp3");
	tm_write_file(p.buf, "this is not an mp3 file at all\n", 31);
	struct mlib_db *db = open_db();
	struct mlib_scan_result res;
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.failed, 1);
	REQUIRE(res.nerrors == 1);
	CHECK_STR(res.errors[0].path, p.buf);
	CHECK(has_reason(&res, "broken.mp3", "not audio"));
	CHECK(strstr(res.errors[0].msg, "not audio") != NULL);
	check_counters_agree(&res.totals);
	mlib_scan_result_free(&res);
	mlib_db_close(db);
	strbuf_free(&p);
	free(dir);
}

TEST(unreadable_folder_reported_nothing_marked_missing)
{
	char dir[512], sub[600], f[700], dbdir[600], dbpath[700];
	snprintf(dir, sizeof dir, "%s/music", harness_tmpdir());
	snprintf(sub, sizeof sub, "%s/locked", dir);
	snprintf(f, sizeof f, "%s/a.flac", sub);
	snprintf(dbdir, sizeof dbdir, "%s/db", harness_tmpdir());
	snprintf(dbpath, sizeof dbpath, "%s/lib.db", dbdir);
	mkdir(dir, 0755);
	mkdir(sub, 0755);
	mkdir(dbdir, 0755);
	tm_make_audio(f, 0.2, meta_a);
	const char *owned[] = {dir, sub, f, dbdir};
	drop_root(owned, 4);
	struct mlib_db *db = NULL;
	struct crate_err err = {0};
	REQUIRE(mlib_db_open(dbpath, 0, &db, &err) == 0);
	struct mlib_scan_result res;
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.added, 1);
	mlib_scan_result_free(&res);
	chmod(sub, 0);
	scan_ok(db, dir, &res);
	CHECK(has_error(&res, "locked", "Permission denied"));
	CHECK_INT(res.totals.missing, 0); /* unreadable is not gone */
	mlib_scan_result_free(&res);
	/* An unreadable file is reported too. */
	chmod(sub, 0755);
	chmod(f, 0);
	struct utimbuf ut = {1000000000, 1000000000};
	utime(f, &ut); /* changed, so the scanner must open it */
	scan_ok(db, dir, &res);
	CHECK(has_error(&res, "a.flac", "Permission denied"));
	mlib_scan_result_free(&res);
	mlib_db_close(db);
	/* A read-only database file: refused for writing, readable read-only. */
	chmod(dbpath, 0444);
	CHECK(mlib_db_open(dbpath, 0, &db, &err) != 0);
	CHECK(strstr(err.msg, "read-only") != NULL);
	REQUIRE(mlib_db_open(dbpath, MLIB_DB_READONLY, &db, &err) == 0);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media"), 1);
	mlib_db_close(db);
}

/* Fork a child that scans `dir` into the database and SIGKILL it after
 * delay_ms. */
static void scan_and_kill(const char *dbpath, const char *dir, int delay_ms)
{
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct mlib_db *db = NULL;
		struct crate_err err = {0};
		if (mlib_db_open(dbpath, 0, &db, &err) != 0)
			_exit(3);
		const char *paths[] = {dir};
		struct mlib_scan_opts opts = {.batch = 50, .threads = 2};
		struct mlib_scan_result res;
		mlib_scan(db, paths, 1, &opts, &res, &err);
		_exit(0);
	}
	struct timespec ts = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
}

TEST(kill_9_during_scan_leaves_a_sound_database)
{
	char *dir = tm_path("many");
	mkdir(dir, 0755);
	char *tmpl = tm_path("t.flac");
	tm_make_audio(tmpl, 0.1, meta_a);
	enum { N = 1500 };
	for (int i = 0; i < N; i++) {
		char *p = xasprintf("%s/f%05d.flac", dir, i);
		REQUIRE(link(tmpl, p) == 0);
		free(p);
	}
	char *dbpath = tm_path("lib.db");
	const int delays[] = {30, 120, 250, 400};
	long long prev = 0;
	for (size_t k = 0; k < sizeof delays / sizeof delays[0]; k++) {
		scan_and_kill(dbpath, dir, delays[k]);
		struct mlib_db *db = open_db();
		sqlite3_stmt *st;
		REQUIRE(sqlite3_prepare_v2(mlib_db_sqlite(db), "PRAGMA integrity_check", -1, &st,
					   NULL) == SQLITE_OK);
		REQUIRE(sqlite3_step(st) == SQLITE_ROW);
		CHECK_STR((const char *)sqlite3_column_text(st, 0), "ok");
		sqlite3_finalize(st);
		/* Commits are in walk order: the rows are a prefix f00000..fNNNNN
		 * with ids 1..n, and a later kill never loses earlier commits. */
		long long n = tm_query_int(db, "SELECT count(*) FROM media");
		CHECK_MSG(n >= prev, "rows went from %lld to %lld", prev, n);
		fprintf(stderr, "    killed after %d ms: %lld of %d rows committed\n", delays[k], n, N);
		prev = n;
		CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media WHERE id > (SELECT count(*) FROM media)"), 0);
		sqlite3_stmt *q;
		REQUIRE(sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT id, url FROM media ORDER BY id",
					   -1, &q, NULL) == SQLITE_OK);
		while (sqlite3_step(q) == SQLITE_ROW) {
			char want[32];
			snprintf(want, sizeof want, "/f%05lld.flac", sqlite3_column_int64(q, 0) - 1);
			const char *url = (const char *)sqlite3_column_blob(q, 1);
			int ulen = sqlite3_column_bytes(q, 1);
			CHECK(ulen > (int)strlen(want) &&
			      memcmp(url + ulen - strlen(want), want, strlen(want)) == 0);
		}
		sqlite3_finalize(q);
		mlib_db_close(db);
	}
	/* Finishing the scan afterwards completes the library without duplicates. */
	struct mlib_db *db = open_db();
	struct mlib_scan_result res;
	scan_ok(db, dir, &res);
	CHECK_INT(res.totals.added + res.totals.unchanged, N);
	mlib_scan_result_free(&res);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media"), N);
	CHECK_INT(tm_query_int(db, "SELECT max(id) FROM media"), N);
	mlib_db_close(db);
	free(dbpath);
	free(tmpl);
	free(dir);
}

TEST(background_scan_reports_progress_and_reloads_index)
{
	char *dir = tm_path("music");
	mkdir(dir, 0755);
	for (int i = 0; i < 3; i++) {
		char *p = xasprintf("%s/%d.flac", dir, i);
		tm_make_audio(p, 0.1, meta_a);
		free(p);
	}
	char *dbpath = tm_path("lib.db");
	struct app_opts opts = {.db_path = dbpath, .config_path = "/nonexistent/crate-config"};
	struct app *app = NULL;
	struct crate_err err = {0};
	REQUIRE(app_open(&app, &opts, &err) == 0);
	CHECK_INT(mlib_index_count(app->index), 0);
	const char *paths[] = {dir};
	REQUIRE(app_scan_start(app, paths, 1, &err) == 0);
	CHECK(app_scan_start(app, paths, 1, &err) != 0); /* one at a time */
	int fd = app_scan_event_fd(app);
	CHECK(fd >= 0);
	struct app_scan_progress p = {0};
	int rc = 0;
	for (int spins = 0; spins < 1000 && rc == 0; spins++) {
		struct pollfd pfd = {fd, POLLIN, 0};
		poll(&pfd, 1, 100);
		rc = app_scan_poll(app, &p);
	}
	CHECK_INT(rc, 1);
	CHECK(p.finished);
	CHECK_INT(p.rc, 0);
	CHECK_INT(p.p.added, 3);
	CHECK_INT(mlib_index_count(app->index), 3);
	CHECK_INT(app_scan_event_fd(app), -1);
	CHECK(app_record_play(app, 1, 1700000000, &err) == 0);
	app_close(app);
	free(dbpath);
	free(dir);
}

/* A second scan of the same new files, run while the first one is
 * between its walk and its writes (two crate scan in two shells, a
 * scan beside the interface's watch). */
struct rival {
	const char *dir;
	bool ran;
	uint64_t added;
};

static void rival_scan(void *ud, const struct mlib_scan_progress *p)
{
	struct rival *r = ud;
	if (r->ran || p->walking || p->finished)
		return;
	r->ran = true;
	struct mlib_db *db2 = open_db();
	struct mlib_scan_result res;
	scan_ok(db2, r->dir, &res);
	r->added = res.totals.added;
	mlib_scan_result_free(&res);
	mlib_db_close(db2);
}

TEST(two_scans_of_the_same_new_files_add_them_once)
{
	char *dir = tm_path("both");
	mkdir(dir, 0755);
	char *f1 = xasprintf("%s/a.flac", dir), *f2 = xasprintf("%s/b.flac", dir);
	tm_make_audio(f1, 0.2, meta_a);
	tm_copy_file(f1, f2);
	struct mlib_db *db = open_db();
	struct rival r = {.dir = dir};
	struct crate_err err = {0};
	const char *paths[] = {dir};
	struct mlib_scan_opts opts = {.threads = 2, .progress = rival_scan, .ud = &r};
	struct mlib_scan_result res;
	CHECK_MSG(mlib_scan(db, paths, 1, &opts, &res, &err) == 0, "%s", err.msg);
	CHECK(r.ran);
	CHECK_INT(r.added, 2);
	/* The rival stored both first: this scan found them so. */
	CHECK_INT(res.totals.added, 0);
	CHECK_INT(res.totals.unchanged, 2);
	CHECK_INT(res.totals.seen, res.totals.added + res.totals.updated + res.totals.unchanged +
					   res.totals.ignored + res.totals.failed);
	mlib_scan_result_free(&res);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media"), 2);
	mlib_db_close(db);
	free(f1); free(f2); free(dir);
}

/* Issue 16: a root that disappears (an unmounted disk) marks its items
 * missing, never deletes them; they come back with their ids. */
TEST(a_root_that_disappears_marks_missing_and_comes_back)
{
	char *dir = tm_path("disk");
	mkdir(dir, 0755);
	char *f = xasprintf("%s/a.flac", dir);
	tm_make_audio(f, 0.2, meta_a);
	char *abs = realpath(dir, NULL);
	REQUIRE(abs != NULL);
	struct mlib_db *db = open_db();
	struct mlib_scan_result res;
	scan_ok(db, abs, &res);
	CHECK_INT(res.totals.added, 1);
	mlib_scan_result_free(&res);
	uint32_t id = id_of(db, f);
	char *away = tm_path("unmounted");
	REQUIRE(rename(dir, away) == 0);
	scan_ok(db, abs, &res);
	CHECK_INT(res.totals.missing, 1);
	/* Said as a root that is gone, not as a folder that cannot be read. */
	CHECK_INT(res.totals.roots_gone, 1);
	CHECK_INT(res.totals.folders_failed, 0);
	CHECK(res.nerrors == 1 && strstr(res.errors[0].reason, "not mounted"));
	mlib_scan_result_free(&res);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media WHERE missing = 1"), 1);
	REQUIRE(rename(away, dir) == 0);
	scan_ok(db, abs, &res);
	CHECK_INT(res.totals.updated, 1);
	mlib_scan_result_free(&res);
	CHECK_INT(id_of(db, f), id);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media WHERE missing = 0"), 1);
	mlib_db_close(db);
	free(away); free(abs); free(f); free(dir);
}
