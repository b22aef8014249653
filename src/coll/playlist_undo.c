/* Undo records of playlist edits: see playlist_undo.h. The lists are
 * stored as blobs of 32-bit media ids in host order (the file never
 * leaves the machine that wrote it, like the index snapshot). */
#include "coll/playlist_undo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "medialib/db.h"

static int db_fail(sqlite3 *db, struct crate_err *err)
{
	char *why = mlib_db_sqlite_text(sqlite3_errmsg(db)); /* one line, as the library's */
	crate_err_set(err, CRATE_ERR_DB, "playlist undo: %s", why);
	free(why);
	return -1;
}

static int ensure_table(sqlite3 *db, struct crate_err *err)
{
	if (sqlite3_exec(db,
			 "CREATE TABLE IF NOT EXISTS coll_undo("
			 "  seq INTEGER PRIMARY KEY,"
			 "  name TEXT NOT NULL,"
			 "  label TEXT NOT NULL,"
			 "  before BLOB,"
			 "  before_pos INTEGER,"
			 "  after BLOB,"
			 "  after_pos INTEGER)",
			 NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, err);
	return 0;
}

static void bind_list(sqlite3_stmt *s, int col, const struct u32vec *v)
{
	static const uint32_t none;
	sqlite3_bind_blob(s, col, v->n ? (const void *)v->v : (const void *)&none,
			  (int)(v->n * sizeof *v->v), SQLITE_STATIC);
}

static void bind_pos(sqlite3_stmt *s, int col, long pos)
{
	if (pos < 0)
		sqlite3_bind_null(s, col);
	else
		sqlite3_bind_int64(s, col, pos);
}

int playlist_undo_push(sqlite3 *db, const char *name, const char *label,
		       const struct u32vec *before, long before_pos, const struct u32vec *after,
		       long after_pos, struct crate_err *err)
{
	if (ensure_table(db, err) != 0)
		return -1;
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO coll_undo(name, label, before, before_pos, after, after_pos)"
			       " VALUES (?, ?, ?, ?, ?, ?)",
			       -1, &s, NULL) != SQLITE_OK)
		return db_fail(db, err);
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, label, -1, SQLITE_STATIC);
	bind_list(s, 3, before);
	bind_pos(s, 4, before_pos);
	bind_list(s, 5, after);
	bind_pos(s, 6, after_pos);
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_fail(db, err);
	char sql[160];
	snprintf(sql, sizeof sql,
		 "DELETE FROM coll_undo WHERE seq <= (SELECT max(seq) FROM coll_undo) - %d",
		 PLAYLIST_UNDO_LEVELS);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, err);
	return 0;
}

static void column_list(sqlite3_stmt *s, int col, struct u32vec *v)
{
	size_t bytes = (size_t)sqlite3_column_bytes(s, col);
	const void *p = sqlite3_column_blob(s, col);
	size_t n = bytes / sizeof(uint32_t);
	u32vec_reserve(v, n ? n : 1);
	if (n && p)
		memcpy(v->v, p, n * sizeof(uint32_t));
	v->n = p ? n : 0;
}

static long column_pos(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ? -1 : (long)sqlite3_column_int64(s, col);
}

int playlist_undo_top(sqlite3 *db, struct playlist_undo *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	if (ensure_table(db, err) != 0)
		return -1;
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(db,
			       "SELECT seq, name, label, before, before_pos, after, after_pos"
			       " FROM coll_undo ORDER BY seq DESC LIMIT 1",
			       -1, &s, NULL) != SQLITE_OK)
		return db_fail(db, err);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->seq = sqlite3_column_int64(s, 0);
		out->name = xstrdup((const char *)sqlite3_column_text(s, 1));
		out->label = xstrdup((const char *)sqlite3_column_text(s, 2));
		column_list(s, 3, &out->before);
		out->before_pos = column_pos(s, 4);
		column_list(s, 5, &out->after);
		out->after_pos = column_pos(s, 6);
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_fail(db, err);
}

int playlist_undo_drop(sqlite3 *db, int64_t seq, struct crate_err *err)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(db, "DELETE FROM coll_undo WHERE seq = ?", -1, &s, NULL) != SQLITE_OK)
		return db_fail(db, err);
	sqlite3_bind_int64(s, 1, seq);
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_fail(db, err);
}

void playlist_undo_free(struct playlist_undo *u)
{
	free(u->name);
	free(u->label);
	u32vec_free(&u->before);
	u32vec_free(&u->after);
	memset(u, 0, sizeof *u);
}
