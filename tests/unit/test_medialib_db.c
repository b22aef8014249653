/* medialib/db.c and media.c on a real SQLite file: schema, migrations,
 * refusing newer/corrupt/read-only files, media rows, play statistics. */
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "medialib/media.h"
#include "medialib/roots.h"
#include "medialib/tags.h"
#include "test_medialib_util.h"

static struct mlib_db *open_ok(const char *path, unsigned flags)
{
	struct mlib_db *db = NULL;
	struct crate_err err = {0};
	int rc = mlib_db_open(path, flags, &db, &err);
	CHECK_MSG(rc == 0, "open %s: %s", path, err.msg);
	REQUIRE(db != NULL);
	return db;
}

/* Put one fake file (no real audio needed for the row) and return its id. */
static uint32_t put_fake(struct mlib_db *db, const char *url, const char *artist, const char *title)
{
	struct crate_err err = {0};
	struct mlib_media_writer *w = mlib_media_writer_new(db, &err);
	REQUIRE(w != NULL);
	struct mlib_tags t;
	mlib_tags_init(&t);
	t.duration_ms = 1234;
	t.format = xstrdup("flac");
	if (artist)
		mlib_tags_add(&t, "ARTIST", artist);
	if (title)
		mlib_tags_add(&t, "title", title);
	mlib_tags_add(&t, "track", "3/12");
	mlib_tags_add(&t, "date", "2004-05-01");
	mlib_tags_add(&t, "artist", "Second Artist");
	mlib_tags_add(&t, "REPLAYGAIN_TRACK_GAIN", "-6.5 dB");
	mlib_tags_add(&t, "comment", "   ");
	uint32_t id = 0;
	CHECK(mlib_media_put(w, url, strlen(url), 100, 200, 300, &t, &id, &err) == 0);
	mlib_tags_free(&t);
	mlib_media_writer_free(w);
	return id;
}

TEST(schema_created_wal_and_versioned)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	CHECK_INT(tm_query_int(db, "SELECT version FROM schema_version WHERE component='medialib'"), 8);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('media','media_tag')"), 2);
	CHECK_INT(tm_query_int(db, "PRAGMA foreign_keys"), 1);
	sqlite3_stmt *st;
	REQUIRE(sqlite3_prepare_v2(mlib_db_sqlite(db), "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK);
	REQUIRE(sqlite3_step(st) == SQLITE_ROW);
	CHECK_STR((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	CHECK_STR(mlib_db_path(db), path);
	mlib_db_close(db);
	/* Reopening an up-to-date database changes nothing. */
	db = open_ok(path, 0);
	/* medialib and analysis (media_analysis.c), nothing more. */
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM schema_version"), 2);
	CHECK_INT(tm_query_int(db, "SELECT version FROM schema_version WHERE component='analysis'"), 2);
	mlib_db_close(db);
	free(path);
}

TEST(migration_steps_run_in_order_once)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	struct crate_err err = {0};
	const char *steps[] = {
		"CREATE TABLE t1(x INTEGER)",
		"INSERT INTO t1 VALUES(1); CREATE TABLE t2(y)",
		"INSERT INTO t1 VALUES(2)",
	};
	CHECK(mlib_db_migrate(db, "test", steps, 2, &err) == 0);
	CHECK_INT(mlib_db_version(db, "test", &err), 2);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM t1"), 1);
	/* Later program version adds a step: only that one runs. */
	CHECK(mlib_db_migrate(db, "test", steps, 3, &err) == 0);
	CHECK(mlib_db_migrate(db, "test", steps, 3, &err) == 0);
	CHECK_INT(mlib_db_version(db, "test", &err), 3);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM t1"), 2);
	/* Components are independent. */
	CHECK_INT(mlib_db_version(db, "medialib", &err), 8);
	mlib_db_close(db);
	free(path);
}

TEST(failing_migration_step_rolls_back)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	struct crate_err err = {0};
	const char *steps[] = {"CREATE TABLE a(x)", "CREATE TABLE b(y); CREATE TABLE oops("};
	CHECK(mlib_db_migrate(db, "test", steps, 2, &err) != 0);
	CHECK(strstr(err.msg, "version 2") != NULL);
	CHECK(strstr(err.msg, path) != NULL);
	CHECK_INT(mlib_db_version(db, "test", &err), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM sqlite_master WHERE name='b'"), 0);
	mlib_db_close(db);
	free(path);
}

TEST(newer_version_refused_file_untouched)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	put_fake(db, "/music/a.flac", "A", "T");
	CHECK(mlib_db_exec(db, "UPDATE schema_version SET version=99 WHERE component='medialib'",
			   NULL) == 0);
	mlib_db_close(db);
	size_t len1, len2;
	char *before = tm_read_file(path, &len1);
	struct crate_err err = {0};
	CHECK(mlib_db_open(path, 0, &db, &err) != 0);
	CHECK(db == NULL);
	CHECK(strstr(err.msg, "newer") != NULL);
	CHECK(strstr(err.msg, path) != NULL);
	CHECK(mlib_db_open(path, MLIB_DB_READONLY, &db, &err) != 0);
	char *after = tm_read_file(path, &len2);
	CHECK(len1 == len2 && memcmp(before, after, len1) == 0);
	free(before);
	free(after);
	free(path);
}

/* A newer database written by a crate that did not use WAL (rollback journal):
 * refusing it must not switch it to WAL, which would rewrite its header. */
TEST(newer_version_in_rollback_mode_untouched)
{
	char *path = tm_path("old.db");
	struct mlib_db *db = open_ok(path, 0);
	CHECK(mlib_db_exec(db, "UPDATE schema_version SET version=99 WHERE component='medialib'",
			   NULL) == 0);
	CHECK(mlib_db_exec(db, "PRAGMA journal_mode=DELETE", NULL) == 0);
	mlib_db_close(db);
	size_t len1, len2;
	char *before = tm_read_file(path, &len1);
	struct crate_err err = {0};
	CHECK(mlib_db_open(path, 0, &db, &err) != 0);
	CHECK(strstr(err.msg, "newer") != NULL);
	char *after = tm_read_file(path, &len2);
	CHECK(len1 == len2 && memcmp(before, after, len1) == 0);
	free(before);
	free(after);
	free(path);
}

TEST(not_a_database_refused_file_untouched)
{
	char *path = tm_path("garbage.db");
	char junk[8192];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)(i * 37 + 11);
	tm_write_file(path, junk, sizeof junk);
	struct mlib_db *db = NULL;
	struct crate_err err = {0};
	CHECK(mlib_db_open(path, 0, &db, &err) != 0);
	CHECK(strstr(err.msg, path) != NULL);
	CHECK(strstr(err.msg, "not a database") != NULL);
	size_t len;
	char *after = tm_read_file(path, &len);
	CHECK(len == sizeof junk && memcmp(after, junk, len) == 0);
	free(after);
	char *wal = xasprintf("%s-wal", path);
	CHECK(access(wal, F_OK) != 0);
	free(wal);
	free(path);
}

TEST(corrupt_pages_refused_file_untouched)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	char url[64];
	for (int i = 0; i < 300; i++) {
		snprintf(url, sizeof url, "/music/file-%04d.flac", i);
		put_fake(db, url, "Artist with a long enough name to fill pages", "Title");
	}
	mlib_db_close(db);
	size_t len;
	char *bytes = tm_read_file(path, &len);
	REQUIRE(len > 4096 * 6);
	/* Smash the b-tree page headers of pages 3 to 6 (media and its url
	 * index live there): an invalid page type is what quick_check sees. */
	for (int pg = 2; pg < 6; pg++)
		memset(bytes + 4096 * pg, 0x5a, 12);
	tm_write_file(path, bytes, len);
	struct crate_err err = {0};
	CHECK(mlib_db_open(path, 0, &db, &err) != 0);
	CHECK(strstr(err.msg, path) != NULL);
	CHECK_MSG(strstr(err.msg, "corrupt") != NULL || strstr(err.msg, "malformed") != NULL,
		  "message: %s", err.msg);
	size_t len2;
	char *after = tm_read_file(path, &len2);
	CHECK(len2 == len && memcmp(after, bytes, len) == 0);
	free(after);
	free(bytes);
	free(path);
}

/* The file's modification time set back a minute: what a database last
 * written by then looks like (a note is only made for a file not written
 * in the last seconds, db_checked.c). */
static void age(const char *path)
{
	struct timespec t[2] = {{time(NULL) - 60, 0}, {time(NULL) - 60, 0}};
	REQUIRE(utimensat(AT_FDCWD, path, t, 0) == 0);
}

/* Every open of a database under 64 MB ran PRAGMA quick_check, a read of
 * every page: at 20,000 tracks two thirds of a one-shot `crate search`
 * (26 ms of processor time where the search took 8). A file unchanged
 * since it passed is not checked again; one changed by another program,
 * or damaged, is. */
TEST(an_unchanged_database_is_not_checked_again)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	put_fake(db, "/music/a.flac", "Ann", "One");
	mlib_db_close(db);
	age(path);
	unsigned long c0 = mlib_db_checks_run();
	mlib_db_close(open_ok(path, 0)); /* checked, and noted at close */
	CHECK_INT(mlib_db_checks_run(), c0 + 1);
	mlib_db_close(open_ok(path, 0));
	mlib_db_close(open_ok(path, MLIB_DB_READONLY));
	CHECK_INT(mlib_db_checks_run(), c0 + 1);
	/* another program's write: checked again */
	sqlite3 *raw = NULL;
	REQUIRE(sqlite3_open(path, &raw) == SQLITE_OK);
	REQUIRE(sqlite3_exec(raw, "PRAGMA user_version = 7", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(raw);
	mlib_db_close(open_ok(path, 0));
	CHECK_INT(mlib_db_checks_run(), c0 + 2);
	/* a file written moments ago is not noted: its next open checks */
	mlib_db_close(open_ok(path, 0));
	CHECK_INT(mlib_db_checks_run(), c0 + 3);
	/* noted, then damaged in place with its times put back: refused */
	age(path);
	mlib_db_close(open_ok(path, 0));
	mlib_db_close(open_ok(path, 0));
	CHECK_INT(mlib_db_checks_run(), c0 + 4);
	size_t len;
	char *bytes = tm_read_file(path, &len);
	REQUIRE(len >= 4096 * 3);
	memset(bytes + 4096 * 2, 0x5a, 12);
	tm_write_file(path, bytes, len);
	age(path);
	struct crate_err err = {0};
	CHECK(mlib_db_open(path, 0, &db, &err) != 0);
	CHECK_MSG(strstr(err.msg, "corrupt") != NULL || strstr(err.msg, "malformed") != NULL,
		  "message: %s", err.msg);
	free(bytes);
	free(path);
}

/* The files under no root, read from the gaps between the roots' ranges
 * of urls (it read every row): byte order puts "/a b/" before "/a/", a
 * root's own url and a nested root's files are in, "/ab" is not. */
TEST(loose_files_are_those_under_no_root)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	static const char *const urls[] = {"/a/x.flac", "/a b/y.flac", "/ab.flac", "/a",
					   "/z/n.flac", "/a/sub/w.flac", "/b/c.flac"};
	for (size_t i = 0; i < sizeof urls / sizeof *urls; i++)
		put_fake(db, urls[i], "A", "T");
	char *roots[] = {"/a/sub", "/a b", "/a"};
	char **got;
	size_t n;
	struct crate_err err = {0};
	REQUIRE(mlib_roots_loose_files(db, roots, 3, &got, &n, &err) == 0);
	REQUIRE(n == 3);
	CHECK_STR(got[0], "/ab.flac");
	CHECK_STR(got[1], "/b/c.flac");
	CHECK_STR(got[2], "/z/n.flac");
	mlib_roots_free(got, n);
	REQUIRE(mlib_roots_loose_files(db, roots, 0, &got, &n, &err) == 0);
	CHECK_INT(n, 7);
	mlib_roots_free(got, n);
	char *all[] = {"/"};
	REQUIRE(mlib_roots_loose_files(db, all, 1, &got, &n, &err) == 0);
	CHECK_INT(n, 0);
	mlib_roots_free(got, n);
	mlib_db_close(db);
	free(path);
}

TEST(readonly_open_reads_but_refuses_writes)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	uint32_t id = put_fake(db, "/music/a.flac", "A", "T");
	mlib_db_close(db);
	db = open_ok(path, MLIB_DB_READONLY);
	CHECK(mlib_db_readonly(db));
	struct mlib_index *idx = NULL;
	struct crate_err err = {0};
	CHECK(mlib_index_load(db, &idx, &err) == 0);
	CHECK(idx && mlib_index_has_media(idx, id));
	CHECK(mlib_media_record_play(db, NULL, id, 5, &err) != 0);
	CHECK_MSG(strstr(err.msg, "read-only") != NULL, "message: %s", err.msg);
	mlib_index_free(idx);
	mlib_db_close(db);
	/* Read-only open never creates a file. */
	char *none = tm_path("none.db");
	CHECK(mlib_db_open(none, MLIB_DB_READONLY, &db, &err) != 0);
	CHECK(strstr(err.msg, none) != NULL);
	CHECK(access(none, F_OK) != 0);
	free(none);
	free(path);
}

TEST(readonly_file_permissions)
{
	if (geteuid() == 0)
		harness_skip("running as root: file permissions do not apply (test_medialib_scan "
			     "drops root to cover them)");
	char *dir = tm_path("ro");
	mkdir(dir, 0755);
	char *path = xasprintf("%s/lib.db", dir);
	struct mlib_db *db = open_ok(path, 0);
	put_fake(db, "/music/a.flac", "A", "T");
	mlib_db_close(db);
	chmod(path, 0444);
	chmod(dir, 0555);
	struct crate_err err = {0};
	CHECK(mlib_db_open(path, 0, &db, &err) != 0);
	CHECK(strstr(err.msg, path) != NULL && strstr(err.msg, "read-only") != NULL);
	db = open_ok(path, MLIB_DB_READONLY);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media"), 1);
	mlib_db_close(db);
	chmod(dir, 0755);
	free(path);
	free(dir);
}

TEST(media_row_columns_and_extra_values)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	uint32_t id = put_fake(db, "/music/a.flac", "First Artist", "Song");
	CHECK(id >= 1);
	CHECK_INT(tm_query_int(db, "SELECT tracknr FROM media"), 3);
	CHECK_INT(tm_query_int(db, "SELECT tracktotal FROM media"), 12);
	CHECK_INT(tm_query_int(db, "SELECT year FROM media"), 2004);
	CHECK_INT(tm_query_int(db, "SELECT comment IS NULL FROM media"), 1); /* blank -> absent */
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_tag WHERE key='artist' AND seq=1"), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_tag WHERE key='replaygain_track_gain'"), 1);
	/* Updating the same url keeps the id and replaces the extra tags. */
	uint32_t id2 = put_fake(db, "/music/a.flac", "Other", NULL);
	CHECK_INT(id2, id);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media"), 1);
	CHECK_INT(tm_query_int(db, "SELECT title IS NULL FROM media"), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_tag WHERE key='artist'"), 1);

	struct mlib_index *idx = NULL;
	struct crate_err err = {0};
	REQUIRE(mlib_index_load(db, &idx, &err) == 0);
	int p = mlib_index_prop(idx, "artist");
	REQUIRE(p >= 0);
	const uint32_t *vids;
	CHECK_INT(mlib_index_str_values(idx, p, id, &vids), 2);
	CHECK_STR(mlib_index_dict_text(idx, p, vids[0]), "Other");
	CHECK_STR(mlib_index_dict_text(idx, p, vids[1]), "Second Artist");
	char buf[32];
	CHECK_STR(mlib_index_get_text(idx, id, "url", buf, sizeof buf), "/music/a.flac");
	CHECK_STR(mlib_index_get_text(idx, id, "duration", buf, sizeof buf), "1234");
	CHECK_STR(mlib_index_get_text(idx, id, "replaygain_track_gain", buf, sizeof buf), "-6.5 dB");
	CHECK(mlib_index_get_text(idx, id, "title", buf, sizeof buf) == NULL);
	CHECK(mlib_index_get_text(idx, id, "timesplayed", buf, sizeof buf) == NULL);
	mlib_index_free(idx);
	mlib_db_close(db);
	free(path);
}

/* The repetitive tags are stored once in media_string and referred to by
 * id; rows read back (view media_text, index) as written; strings no row
 * uses go with forget, prune and mlib_media_gc_strings, and a string two
 * rows share stays while one of them does. */
TEST(tag_strings_stored_once_and_collected)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	struct crate_err err = {0};
	uint32_t a = put_fake(db, "/music/a.flac", "Shared", "A");
	uint32_t b = put_fake(db, "/music/b.flac", "Shared", "B");
	/* outside a transaction a put makes and ends its own */
	CHECK(sqlite3_get_autocommit(mlib_db_sqlite(db)) != 0);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Shared'"), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(DISTINCT artist_sid) FROM media"), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'flac'"), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_text WHERE artist = 'Shared' AND"
				   " format = 'flac' AND date = '2004-05-01' AND album IS NULL"),
		  2);
	/* a tag change (an id in the row) and a string's text both count */
	long long gen = tm_query_int(db, "SELECT n FROM media_generation");
	put_fake(db, "/music/a.flac", "Gone", "A");
	CHECK(tm_query_int(db, "SELECT n FROM media_generation") > gen);
	gen = tm_query_int(db, "SELECT n FROM media_generation");
	REQUIRE(mlib_db_exec(db, "UPDATE media_string SET value = 'Gone!' WHERE value = 'Gone'",
			     &err) == 0);
	CHECK(tm_query_int(db, "SELECT n FROM media_generation") > gen);
	put_fake(db, "/music/a.flac", "Solo", "A");
	/* 'Gone!' is used by no row now; 'Shared' still by b */
	size_t n = 99;
	CHECK(mlib_media_gc_strings(db, &n, &err) == 0);
	CHECK_INT(n, 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value LIKE 'Gone%'"), 0);
	CHECK(mlib_media_gc_strings(db, &n, &err) == 0);
	CHECK_INT(n, 0);
	long long strings = tm_query_int(db, "SELECT count(*) FROM media_string");

	/* forgetting b takes 'Shared' with it, not what a shares with b */
	CHECK(mlib_media_forget(db, &b, 1, &n, &err) == 0);
	CHECK_INT(n, 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Shared'"), 0);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string"), strings - 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_text WHERE artist = 'Solo' AND"
				   " format = 'flac' AND date = '2004-05-01'"),
		  1);

	/* prune: c goes, d keeps the album both had */
	uint32_t c = put_fake(db, "/music/c.flac", "Cee", "C");
	uint32_t d = put_fake(db, "/music/d.flac", "Dee", "D");
	char sql[160];
	snprintf(sql, sizeof sql,
		 "INSERT INTO media_string(value) VALUES('Both');"
		 "UPDATE media SET album_sid = last_insert_rowid() WHERE id IN (%u, %u)",
		 c, d);
	REQUIRE(mlib_db_exec(db, sql, &err) == 0);
	struct mlib_media_writer *w = mlib_media_writer_new(db, &err);
	REQUIRE(w != NULL);
	CHECK(mlib_media_set_missing(w, c, 1, &err) == 0);
	mlib_media_writer_free(w);
	CHECK(mlib_media_prune_missing(db, NULL, 0, &n, NULL, &err) == 0);
	CHECK_INT(n, 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Cee'"), 0);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Both'"), 1);

	struct mlib_index *idx = NULL;
	REQUIRE(mlib_index_load_ex(db, MLIB_LOAD_NO_SNAPSHOT, &idx, NULL, &err) == 0);
	char buf[64];
	CHECK_INT(mlib_index_count(idx), 2);
	const char *v = mlib_index_get_text(idx, a, "artist", buf, sizeof buf);
	CHECK_STR(v ? v : "(none)", "Solo");
	v = mlib_index_get_text(idx, d, "album", buf, sizeof buf);
	CHECK_STR(v ? v : "(none)", "Both");
	v = mlib_index_get_text(idx, d, "format", buf, sizeof buf);
	CHECK_STR(v ? v : "(none)", "flac");
	v = mlib_index_get_text(idx, d, "date", buf, sizeof buf);
	CHECK_STR(v ? v : "(none)", "2004-05-01");
	CHECK(mlib_index_get_text(idx, a, "album", buf, sizeof buf) == NULL);
	mlib_index_free(idx);
	mlib_db_close(db);
	free(path);
}

/* String ids far apart (a hand-edited or hostile database): the
 * collection's SQL path (ids past 2^28) must still delete what no row
 * uses although absent tags put NULLs in the list of ids in use, and the
 * loader must take an id of INT64_MAX without wrapping its table size. */
TEST(far_apart_string_ids_are_collected_and_loaded)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	struct crate_err err = {0};
	uint32_t a = put_fake(db, "/music/a.flac", "Kept", "A"); /* no album: a NULL id */
	char sql[256];
	snprintf(sql, sizeof sql,
		 "INSERT INTO media_string(id, value) VALUES(300000000, 'Far'),"
		 " (9223372036854775807, 'Top');"
		 "UPDATE media SET genre_sid = 9223372036854775807 WHERE id = %u",
		 a);
	REQUIRE(mlib_db_exec(db, sql, &err) == 0);
	size_t n = 99;
	CHECK(mlib_media_gc_strings(db, &n, &err) == 0);
	CHECK_INT(n, 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Far'"), 0);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Top'"), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Kept'"), 1);
	struct mlib_index *idx = NULL;
	REQUIRE(mlib_index_load_ex(db, MLIB_LOAD_NO_SNAPSHOT, &idx, NULL, &err) == 0);
	char buf[64];
	const char *v = mlib_index_get_text(idx, a, "genre", buf, sizeof buf);
	CHECK_STR(v ? v : "(none)", "Top");
	v = mlib_index_get_text(idx, a, "artist", buf, sizeof buf);
	CHECK_STR(v ? v : "(none)", "Kept");
	mlib_index_free(idx);
	mlib_db_close(db);
	free(path);
}

TEST(play_statistics_and_rating_written_through)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	uint32_t id = put_fake(db, "/music/a.flac", "A", "T");
	struct mlib_index *idx = NULL;
	struct crate_err err = {0};
	REQUIRE(mlib_index_load(db, &idx, &err) == 0);
	CHECK(mlib_media_record_play(db, idx, id, 1700000000, &err) == 0);
	CHECK(mlib_media_record_play(db, idx, id, 1700000100, &err) == 0);
	CHECK(mlib_media_set_rating(db, idx, id, 4, &err) == 0);
	CHECK(mlib_media_set_rating(db, idx, id, 9, &err) != 0);
	CHECK(mlib_media_record_play(db, idx, 999, 1, &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	int64_t v = 0;
	CHECK(mlib_index_int_value(idx, mlib_index_prop(idx, "timesplayed"), id, &v) && v == 2);
	CHECK(mlib_index_int_value(idx, mlib_index_prop(idx, "lastplayed"), id, &v) && v == 1700000100);
	CHECK(mlib_index_int_value(idx, mlib_index_prop(idx, "rating"), id, &v) && v == 4);
	mlib_index_free(idx);
	mlib_db_close(db);
	/* And they are in SQLite, for the next start. */
	db = open_ok(path, MLIB_DB_READONLY);
	CHECK_INT(tm_query_int(db, "SELECT timesplayed FROM media"), 2);
	CHECK_INT(tm_query_int(db, "SELECT rating FROM media"), 4);
	mlib_db_close(db);
	free(path);
}

/* mlib_media_find_urls: the ids of many urls in one statement, NULL skipped,
 * absent ones 0; its own read transaction is closed, a caller's is left open. */
TEST(find_urls_in_one_batch)
{
	char *path = tm_path("lib.db");
	struct mlib_db *db = open_ok(path, 0);
	uint32_t a = put_fake(db, "/music/a.flac", "A", "T");
	uint32_t b = put_fake(db, "/music/b.flac", "B", "U");
	const char *urls[] = {"/music/b.flac", NULL, "/music/none.flac", "/music/a.flac", "/music/b.flac"};
	uint32_t ids[5] = {7, 7, 7, 7, 7};
	struct crate_err err = {0};
	CHECK_MSG(mlib_media_find_urls(db, urls, 5, ids, &err) == 0, "%s", err.msg);
	CHECK_INT(ids[0], b);
	CHECK_INT(ids[1], 0);
	CHECK_INT(ids[2], 0);
	CHECK_INT(ids[3], a);
	CHECK_INT(ids[4], b);
	CHECK(sqlite3_get_autocommit(mlib_db_sqlite(db)));
	REQUIRE(mlib_db_begin(db, &err) == 0);
	CHECK(mlib_media_find_urls(db, urls, 5, ids, &err) == 0 && ids[3] == a);
	CHECK(!sqlite3_get_autocommit(mlib_db_sqlite(db)));
	CHECK(mlib_db_rollback(db, &err) == 0);
	CHECK(mlib_media_find_urls(db, NULL, 0, NULL, &err) == 0);
	mlib_db_close(db);
	db = open_ok(path, MLIB_DB_READONLY);
	CHECK(mlib_media_find_urls(db, urls, 5, ids, &err) == 0 && ids[0] == b && ids[2] == 0);
	mlib_db_close(db);
	free(path);
}

TEST(number_and_year_parsing)
{
	int64_t n, t;
	CHECK(mlib_media_parse_number_pair("03/12", &n, &t) && n == 3 && t == 12);
	CHECK(mlib_media_parse_number_pair(" 7 ", &n, &t) && n == 7 && t == 0);
	CHECK(mlib_media_parse_number_pair("4 / 9", &n, &t) && n == 4 && t == 9);
	CHECK(!mlib_media_parse_number_pair("A1", &n, &t));
	CHECK_INT(mlib_media_year_of("2004-05-01"), 2004);
	CHECK_INT(mlib_media_year_of("May 1999"), 1999);
	CHECK_INT(mlib_media_year_of("20041"), 0);
	CHECK_INT(mlib_media_year_of("12/03/1987"), 1987);
	char k[64];
	CHECK_STR(mlib_tags_norm_key("ALBUM_ARTIST", k, sizeof k), "albumartist");
	CHECK_STR(mlib_tags_norm_key("MusicBrainz Album Id", k, sizeof k), "musicbrainz_album_id");
	CHECK(mlib_tags_norm_key("duration", k, sizeof k) == NULL);
}
