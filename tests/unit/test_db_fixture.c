/* A library database made by an older crate (tests/data/db/
 * library-8089ce7.sql, dumped from a database crate at 8089ce7 wrote)
 * opens with today's code as before: only the later steps run (media 4 -> 5,
 * the cue sheet columns; media 5 -> 6, tag strings stored once;
 * collections 1 -> 2, their browser levels), nothing else is migrated or
 * rewritten, it then has the schema a new database gets, and the data
 * reads as written, every value of every row. Guards the registration of migrations
 * (mlib_db_components) and any later change of a component's steps. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "coll/node.h"
#include "coll/store.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "test_medialib_util.h"

#define FIXTURE "tests/data/db/library-8089ce7.sql"
/* The schema objects the media component's steps 4 -> 5 and 5 -> 6
 * change: the media table (two columns; the tag string ids), the trigger
 * that lists its columns, the strings table with its index and triggers,
 * and the view; and the version row. (Step 6 makes the media table's
 * other triggers again: they must come out as they were.) */
#define NOT_MEDIA_STEPS                                                                  \
	"name NOT IN ('media', 'media_gen_upd', 'media_string', 'media_string_gen_upd',"   \
	" 'media_string_gen_del', 'sqlite_autoindex_media_string_1', 'media_text')"
/* ... and the table the collections' step 1 -> 2 adds, and what the
 * analysis step 1 -> 2 adds (the albums due and their triggers). */
#define NOT_ANALYSIS_STEPS                                                               \
	" AND name NOT IN ('media_analysis_albums_due', 'media_analysis_album_moves',"     \
	" 'media_analysis_album_forget')"
#define NOT_LATER_STEPS NOT_MEDIA_STEPS NOT_ANALYSIS_STEPS " AND tbl_name != 'coll_levels'"

/* A new database file at name holding the fixture's dump; its path, owned. */
static char *load_fixture(const char *name)
{
	char *sqlpath = xasprintf("%s/%s", harness_srcdir(), FIXTURE);
	size_t len;
	char *sql = tm_read_file(sqlpath, &len);
	REQUIRE(sql != NULL);
	char *path = tm_path(name);
	remove(path);
	sqlite3 *s;
	REQUIRE(sqlite3_open(path, &s) == SQLITE_OK);
	char *msg = NULL;
	CHECK_MSG(sqlite3_exec(s, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sqlpath,
		  msg ? msg : "?");
	sqlite3_free(msg);
	sqlite3_close(s);
	free(sql);
	free(sqlpath);
	return path;
}

/* Every schema object (tables, indexes, triggers) as text, in name order,
 * limited to where (an SQL condition on sqlite_master). Owned. */
static char *schema_of(sqlite3 *s, const char *where)
{
	char *q = xasprintf("SELECT type, name, tbl_name, ifnull(sql, '') FROM sqlite_master"
			    " WHERE %s ORDER BY type, name",
			    where);
	sqlite3_stmt *st;
	REQUIRE(sqlite3_prepare_v2(s, q, -1, &st, NULL) == SQLITE_OK);
	struct strbuf b;
	strbuf_init(&b, 4096);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int c = 0; c < 4; c++) {
			strbuf_adds(&b, (const char *)sqlite3_column_text(st, c));
			strbuf_addc(&b, c < 3 ? '|' : '\n');
		}
	sqlite3_finalize(st);
	free(q);
	return b.buf;
}

static char *schema_of_file(const char *path, const char *where)
{
	sqlite3 *s;
	REQUIRE(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	char *r = schema_of(s, where);
	sqlite3_close(s);
	return r;
}

static struct mlib_db *open_db(const char *path, unsigned flags)
{
	struct mlib_db *db = NULL;
	struct crate_err err = {0};
	CHECK_MSG(mlib_db_open(path, flags, &db, &err) == 0, "open %s: %s", path, err.msg);
	REQUIRE(db != NULL);
	return db;
}

TEST(old_database_opens_with_only_the_cue_step)
{
	char *path = load_fixture("old.db");
	char *before = schema_of_file(path, NOT_LATER_STEPS);
	char *media_before = schema_of_file(path, "name = 'media'");
	struct mlib_db *db = open_db(path, 0);
	long long gen = tm_query_int(db, "SELECT n FROM media_generation");
	long long dbid = tm_query_int(db, "SELECT dbid FROM media_generation");
	/* every registered component is at the version this build writes */
	struct crate_err err = {0};
	for (size_t i = 0; i < mlib_db_ncomponents; i++) {
		const struct mlib_db_component *c = mlib_db_components[i];
		CHECK_MSG(mlib_db_version(db, c->name, &err) == c->version, "%s at %d, want %d",
			  c->name, mlib_db_version(db, c->name, &err), c->version);
	}
	CHECK_INT(tm_query_int(db, "SELECT version FROM schema_version WHERE component='medialib'"), 8);
	CHECK_INT(tm_query_int(db, "SELECT version FROM schema_version WHERE component='analysis'"), 2);

	/* the data reads as it was written */
	struct mlib_index *idx = NULL;
	CHECK(mlib_index_load(db, &idx, &err) == 0);
	REQUIRE(idx != NULL);
	CHECK_INT(mlib_index_count(idx), 3);
	int64_t rating = 0;
	CHECK(mlib_index_int_value(idx, mlib_index_prop(idx, "rating"), 1, &rating));
	CHECK_INT(rating, 4);
	char buf[128];
	const char *artist = mlib_index_get_text(idx, 2, "artist", buf, sizeof buf);
	CHECK_STR(artist ? artist : "(none)", "Sam Cooke");
	mlib_index_free(idx);
	struct coll_store *st = NULL;
	CHECK(coll_store_open(db, &st, &err) == 0);
	REQUIRE(st != NULL);
	CHECK(coll_store_get(st, "Collections", "Cooke") != NULL);
	CHECK(coll_store_get(st, "Playlists", "Mix") != NULL);
	coll_store_free(st);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM rules"), 1);
	mlib_db_close(db);

	/* nothing else was migrated or rewritten: no other schema object, no
	 * data change (adding columns touches no row) */
	char *after = schema_of_file(path, NOT_LATER_STEPS);
	CHECK_STR(after, before);
	char *media = schema_of_file(path, "name = 'media'");
	CHECK(strstr(media_before, "cue_start") == NULL);
	CHECK(strstr(media, "timesskipped INTEGER, cue_start INTEGER, cue_end INTEGER") != NULL);
	free(media);
	free(media_before);
	db = open_db(path, MLIB_DB_READONLY);
	CHECK_INT(tm_query_int(db, "SELECT n FROM media_generation"), gen);
	CHECK_INT(tm_query_int(db, "SELECT dbid FROM media_generation"), dbid);
	mlib_db_close(db);
	free(after);
	free(before);
	free(path);
}

/* The collections' levels table comes with the first writable open; a
 * read-only open of the old file works without it (no levels, none
 * settable), and the levels then follow a rename and go with a remove. */
TEST(old_database_gains_collection_levels)
{
	char *path = load_fixture("old-levels.db");
	struct crate_err err = {0};
	mlib_db_close(open_db(path, 0)); /* the media steps (collections are the store's) */
	struct mlib_db *db = open_db(path, MLIB_DB_READONLY);
	CHECK_INT(mlib_db_version(db, "collections", &err), 1);
	struct coll_store *st = NULL;
	CHECK_MSG(coll_store_open(db, &st, &err) == 0, "%s", err.msg);
	REQUIRE(st != NULL);
	static char unset[] = "x"; /* overwritten, never freed: not owned */
	char *lv = unset;
	CHECK(coll_store_levels_get(st, "Collections", "Cooke", &lv, &err) == 0);
	CHECK(lv == NULL);
	CHECK(coll_store_levels_set(st, "Collections", "Cooke", "genre album", &err) == -1);
	coll_store_free(st);
	mlib_db_close(db);

	db = open_db(path, 0);
	CHECK(coll_store_open(db, &st, &err) == 0);
	REQUIRE(st != NULL);
	CHECK_INT(mlib_db_version(db, "collections", &err), 2);
	CHECK(coll_store_levels_set(st, "Collections", "Cooke", "genre album", &err) == 0);
	CHECK(coll_store_levels_set(st, "Collections", "Nope", "genre", &err) == -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	CHECK(coll_store_levels_set(st, "Collections", "All Media", "genre", &err) == -1);
	CHECK(coll_store_rename(st, "Collections", "Cooke", "Sam", &err) == 0);
	coll_store_free(st);
	mlib_db_close(db);

	db = open_db(path, 0); /* as the next start reads it */
	CHECK(coll_store_open(db, &st, &err) == 0);
	REQUIRE(st != NULL);
	CHECK(coll_store_levels_get(st, "Collections", "Sam", &lv, &err) == 0);
	CHECK_STR(lv ? lv : "(none)", "genre album");
	free(lv);
	CHECK(coll_store_levels_get(st, "Collections", "Cooke", &lv, &err) == 0);
	CHECK(lv == NULL);
	CHECK(coll_store_levels_set(st, "Collections", "Sam", NULL, &err) == 0);
	CHECK(coll_store_levels_get(st, "Collections", "Sam", &lv, &err) == 0);
	CHECK(lv == NULL);
	CHECK(coll_store_levels_set(st, "Collections", "Sam", "year", &err) == 0);
	CHECK(coll_store_remove(st, "Collections", "Sam", true, &err) == 0);
	coll_store_free(st);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM coll_levels"), 0);
	mlib_db_close(db);
	free(path);
}

/* Rows an older crate left behind (it removed a collection without knowing
 * coll_levels) are not inherited by a new collection of that name, and do
 * not stop a rename onto that name (a primary-key error before). */
TEST(stale_levels_rows_are_not_inherited)
{
	char *path = load_fixture("old-levels.db");
	struct crate_err err = {0};
	struct mlib_db *db = open_db(path, 0);
	struct coll_store *st = NULL;
	REQUIRE(coll_store_open(db, &st, &err) == 0 && st != NULL);
	REQUIRE(sqlite3_exec(mlib_db_sqlite(db),
			     "INSERT INTO coll_levels VALUES ('Collections', 'Ghost', 'genre');"
			     "INSERT INTO coll_levels VALUES ('Collections', 'Sam', 'year');",
			     NULL, NULL, NULL) == SQLITE_OK);
	struct coll_node *u = coll_node_new(COLL_UNIVERSE);
	CHECK_MSG(coll_store_save(st, "Collections", "Ghost", u, &err) == 0, "%s", err.msg);
	coll_node_unref(u);
	static char unset[] = "x"; /* overwritten, never freed: not owned */
	char *lv = unset;
	CHECK(coll_store_levels_get(st, "Collections", "Ghost", &lv, &err) == 0);
	CHECK_MSG(lv == NULL, "a new collection inherited '%s'", lv ? lv : "");
	free(lv);
	CHECK(coll_store_levels_set(st, "Collections", "Cooke", "genre album", &err) == 0);
	CHECK_MSG(coll_store_rename(st, "Collections", "Cooke", "Sam", &err) == 0, "%s", err.msg);
	CHECK(coll_store_levels_get(st, "Collections", "Sam", &lv, &err) == 0);
	CHECK_STR(lv ? lv : "(none)", "genre album");
	free(lv);
	coll_store_free(st);
	mlib_db_close(db);
	free(path);
}

/* A new database gets, object for object, the tables the old code made
 * and brought up to date. */
TEST(new_database_has_the_old_schema)
{
	const char *mine = "tbl_name = 'schema_version' OR tbl_name LIKE 'media%'";
	char *old = load_fixture("old.db");
	mlib_db_close(open_db(old, 0));
	char *want = schema_of_file(old, mine);
	char *path = tm_path("new.db");
	remove(path);
	mlib_db_close(open_db(path, 0));
	char *got = schema_of_file(path, mine);
	CHECK_STR(got, want);
	CHECK(strstr(got, "media_analysis") != NULL && strstr(got, "media_stats_upd") != NULL);
	free(got);
	free(want);
	free(path);
	free(old);
}

/* A database from before the analysis component (crate up to 07fb2ce)
 * gains its table on the first writable open, as it did, and is left
 * alone by a read-only one. */
TEST(database_without_analysis_migrates_as_before)
{
	char *path = load_fixture("noanalysis.db");
	char *want = schema_of_file(path, NOT_MEDIA_STEPS NOT_ANALYSIS_STEPS);
	struct mlib_db *db = open_db(path, 0);
	struct crate_err err = {0};
	CHECK(mlib_db_exec(db,
			   "DROP TABLE media_analysis;"
			   "DROP TABLE media_analysis_albums_due;"
			   "DROP TRIGGER media_analysis_album_moves;"
			   "DROP TRIGGER media_analysis_album_forget;"
			   "DELETE FROM schema_version WHERE component = 'analysis'",
			   &err) == 0);
	mlib_db_close(db);
	db = open_db(path, MLIB_DB_READONLY);
	CHECK_INT(mlib_db_version(db, "analysis", &err), 0);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'media_analysis%'"), 0);
	mlib_db_close(db);
	db = open_db(path, 0);
	CHECK_INT(mlib_db_version(db, "analysis", &err), 2);
	mlib_db_close(db);
	char *got = schema_of_file(path, NOT_MEDIA_STEPS NOT_ANALYSIS_STEPS);
	CHECK_STR(got, want);
	free(got);
	free(want);
	free(path);
}

/* Every column of every row of media (the fixture's table at version 4,
 * or the view media_text after step 6: the same names; the cue columns
 * came with step 5), media_tag and media_analysis as text: type and bytes
 * of each value. Owned. */
static char *rows_of(const char *path, const char *media)
{
	static const char *const cols[] = {
		"id",	      "url",	    "missing",	   "filesize",	 "mtime",     "added",
		"duration",   "bitrate",    "samplerate",  "channels",	 "format",    "lastplayed",
		"timesplayed", "rating",    "artist",	   "album",	 "albumartist", "title",
		"tracknr",    "tracktotal", "discnr",	   "disctotal",	 "date",      "year",
		"genre",      "composer",   "comment",	   "timesskipped",
	};
	struct strbuf q;
	strbuf_init(&q, 1024);
	strbuf_adds(&q, "SELECT ''");
	for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
		strbuf_addf(&q, " || typeof(%s) || ':' || hex(%s) || ' '", cols[c], cols[c]);
	strbuf_addf(&q, " FROM %s ORDER BY id", media);
	sqlite3 *s;
	REQUIRE(sqlite3_open_v2(path, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	struct strbuf b;
	strbuf_init(&b, 4096);
	const char *const queries[] = {
		q.buf,
		"SELECT media_id || ' ' || key || ' ' || seq || ' ' || typeof(value) || ':' ||"
		" hex(value) FROM media_tag ORDER BY media_id, key, seq",
		"SELECT media_id || ' ' || hex(timbre) || ' ' || quote(loudness)"
		" FROM media_analysis ORDER BY media_id",
	};
	for (size_t i = 0; i < 3; i++) {
		sqlite3_stmt *st;
		CHECK_MSG(sqlite3_prepare_v2(s, queries[i], -1, &st, NULL) == SQLITE_OK, "%s: %s",
			  queries[i], sqlite3_errmsg(s));
		while (sqlite3_step(st) == SQLITE_ROW) {
			strbuf_adds(&b, (const char *)sqlite3_column_text(st, 0));
			strbuf_addc(&b, '\n');
		}
		sqlite3_finalize(st);
		strbuf_adds(&b, "--\n");
	}
	sqlite3_close(s);
	strbuf_free(&q);
	return b.buf;
}

/* Step 5 -> 6 moves the repetitive tags into media_string: every value
 * comes back byte for byte and of the same type (NULL and '' apart, a
 * BLOB apart from a TEXT of the same bytes, bytes that are not UTF-8, a
 * NUL inside), nothing of media_tag or media_analysis goes (dropping the
 * old table must not cascade), each distinct value is stored once, and
 * foreign keys are on again afterwards; the file is compacted. */
TEST(string_step_keeps_every_value)
{
	char *path = load_fixture("strings.db");
	sqlite3 *s;
	REQUIRE(sqlite3_open(path, &s) == SQLITE_OK);
	char *msg = NULL;
	CHECK_MSG(sqlite3_exec(
			  s,
			  "INSERT INTO media(id, url, format, artist, album, albumartist, genre,"
			  " composer, date, title, comment) VALUES"
			  "(10, x'2f61', 'flac', x'ff41', '', 'Joy Wellboy', 'Rock', 'Sam Cooke',"
			  "  '2001', 'T1', 'c'),"
			  "(11, x'2f62', 'flac', CAST(x'ff41' AS TEXT), NULL, NULL, 'rock', NULL,"
			  "  '2001', NULL, NULL),"
			  "(12, x'2f63', 'mp3', CAST(x'410042' AS TEXT), 'Greatest Hits', '', 'Rock',"
			  "  'Joy Wellboy', NULL, x'00', ''),"
			  "(13, x'2f64', NULL, 'Sam Cooke', 'Greatest Hits', 'Sam Cooke', 'Rock',"
			  "  NULL, '2001-02-03', 'T4', NULL);"
			  "INSERT INTO media_analysis(media_id, version, analysed, loudness, timbre)"
			  "  VALUES(2, 1, 5, -7.25, x'0102'), (12, 1, 6, NULL, NULL);"
			  "INSERT INTO media_tag VALUES(12, 'artist', 1, 'Second');",
			  NULL, NULL, &msg) == SQLITE_OK,
		  "%s", msg ? msg : "?");
	sqlite3_free(msg);
	sqlite3_stmt *st;
	REQUIRE(sqlite3_prepare_v2(
			s,
			"SELECT count(DISTINCT v) FROM (SELECT format AS v FROM media UNION ALL"
			" SELECT artist FROM media UNION ALL SELECT album FROM media UNION ALL"
			" SELECT albumartist FROM media UNION ALL SELECT genre FROM media UNION ALL"
			" SELECT composer FROM media UNION ALL SELECT date FROM media)",
			-1, &st, NULL) == SQLITE_OK);
	REQUIRE(sqlite3_step(st) == SQLITE_ROW);
	long long distinct = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
	CHECK(distinct >= 12);
	char *before = rows_of(path, "media");

	struct mlib_db *db = open_db(path, 0);
	CHECK_INT(mlib_db_version(db, "medialib", &(struct crate_err){0}), 8);
	CHECK_INT(tm_query_int(db, "PRAGMA foreign_keys"), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	CHECK_INT(tm_query_int(db, "PRAGMA freelist_count"), 0); /* the old table's pages went */
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string"), distinct);
	/* 'Sam Cooke' is an artist, an album artist and a composer: one row */
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media_string WHERE value = 'Sam Cooke'"), 1);
	CHECK_INT(tm_query_int(db, "SELECT count(DISTINCT composer_sid) FROM media m WHERE"
				   " composer_sid = (SELECT artist_sid FROM media WHERE id = 13)"),
		  1);
	/* the index reads the same texts */
	struct crate_err err = {0};
	struct mlib_index *idx = NULL;
	REQUIRE(mlib_index_load_ex(db, MLIB_LOAD_NO_SNAPSHOT, &idx, NULL, &err) == 0);
	char buf[128];
	const char *v = mlib_index_get_text(idx, 13, "albumartist", buf, sizeof buf);
	CHECK_STR(v ? v : "(none)", "Sam Cooke");
	v = mlib_index_get_text(idx, 11, "genre", buf, sizeof buf);
	CHECK_STR(v ? v : "(none)", "rock");
	CHECK(mlib_index_get_text(idx, 10, "album", buf, sizeof buf) == NULL); /* '' is absent */
	mlib_index_free(idx);
	mlib_db_close(db);

	char *after = rows_of(path, "media_text");
	db = open_db(path, MLIB_DB_READONLY);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM media WHERE cue_start IS NOT NULL"
				   " OR cue_end IS NOT NULL"),
		  0);
	mlib_db_close(db);
	CHECK_STR(after, before);
	free(after);
	free(before);
	free(path);
}
