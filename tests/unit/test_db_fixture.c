/* A library database made by an older crate (tests/data/db/
 * library-8089ce7.sql, dumped from a database crate at 8089ce7 wrote)
 * opens with today's code as before: only the later steps run (media 4 -> 5,
 * the cue sheet columns; collections 1 -> 2, their browser levels), nothing
 * else is migrated or
 * rewritten, it then has the schema a new database gets, and the data
 * reads as written. Guards the registration of migrations
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
/* The schema objects the media component's step 4 -> 5 changes: the media
 * table (two columns) and the trigger that lists its columns; and the
 * version row. */
#define NOT_CUE_STEP "name NOT IN ('media', 'media_gen_upd')"
/* ... and the table the collections' step 1 -> 2 adds. */
#define NOT_LATER_STEPS NOT_CUE_STEP " AND tbl_name != 'coll_levels'"

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
	CHECK_INT(tm_query_int(db, "SELECT version FROM schema_version WHERE component='medialib'"), 5);
	CHECK_INT(tm_query_int(db, "SELECT version FROM schema_version WHERE component='analysis'"), 1);

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
	char *lv = xstrdup("x");
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
	char *lv = xstrdup("x");
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
	char *want = schema_of_file(path, NOT_CUE_STEP);
	struct mlib_db *db = open_db(path, 0);
	struct crate_err err = {0};
	CHECK(mlib_db_exec(db,
			   "DROP TABLE media_analysis;"
			   "DELETE FROM schema_version WHERE component = 'analysis'",
			   &err) == 0);
	mlib_db_close(db);
	db = open_db(path, MLIB_DB_READONLY);
	CHECK_INT(mlib_db_version(db, "analysis", &err), 0);
	CHECK_INT(tm_query_int(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'media_analysis%'"), 0);
	mlib_db_close(db);
	db = open_db(path, 0);
	CHECK_INT(mlib_db_version(db, "analysis", &err), 1);
	mlib_db_close(db);
	char *got = schema_of_file(path, NOT_CUE_STEP);
	CHECK_STR(got, want);
	free(got);
	free(want);
	free(path);
}
