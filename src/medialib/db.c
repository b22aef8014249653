/* The library database: opening with the right pragmas, refusing files we
 * must not touch, transactions and per-component schema migrations. */
#include "medialib/db.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/str.h"
#include "base/utf8.h"
#include "medialib/db_checked.h"

struct mlib_db {
	sqlite3 *sql;
	char *path;
	int readonly;
	sqlite3_stmt *data_version; /* kept prepared: asked several times a second */
	bool trusted; /* passed quick_check (or its note held, or made here): noted at close */
};

static _Atomic unsigned long checks_run;

/* quick_check reads every page; above this size it would cost more than the
 * index load it protects, so big files are only checked on request
 * (MLIB_DB_CHECK). Below it, a file unchanged since it last passed is not
 * read again (medialib/db_checked.h). Corruption found later still
 * surfaces as an error naming the file (mlib_db_error), never as a
 * repair. */
#define MLIB_DB_CHECK_MAX_BYTES (64 * 1024 * 1024)

/* Its reports may span lines (quick_check's "*** in database main
 * ***\nPage 2: ..."), and a message is one line wherever it is shown, so
 * newlines (and any other control character) are folded where the error
 * is made. */
char *mlib_db_sqlite_text(const char *s)
{
	return s ? utf8_sanitize(s, strlen(s)) : xstrdup("?");
}

int mlib_db_error(struct mlib_db *db, const char *what, struct crate_err *err)
{
	int rc = sqlite3_extended_errcode(db->sql) & 0xff;
	char *msg = mlib_db_sqlite_text(sqlite3_errmsg(db->sql));
	const char *why = msg;
	if (rc == SQLITE_NOTADB)
		why = "not a database (refusing to touch it)";
	else if (rc == SQLITE_CORRUPT)
		why = "the database is corrupt (refusing to repair it; restore a backup or "
		      "remove the file)";
	else if (rc == SQLITE_READONLY)
		why = "the database is read-only";
	else if (rc == SQLITE_BUSY)
		why = "database is locked (another program has held its write lock for over 5 s: "
		      "another crate scan, a sqlite3 shell?); try again";
	crate_err_set(err, CRATE_ERR_DB, "%s: %s: %s", db->path, what, why);
	free(msg);
	return -1;
}

int mlib_db_finish(struct mlib_db *db, sqlite3_stmt *st, int rc, const char *what,
		   struct crate_err *err)
{
	if (rc != SQLITE_DONE)
		mlib_db_error(db, what, err);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int mlib_db_exec(struct mlib_db *db, const char *sql, struct crate_err *err)
{
	if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
		return mlib_db_error(db, "SQL failed", err);
	return 0;
}

sqlite3 *mlib_db_sqlite(struct mlib_db *db)
{
	return db->sql;
}

const char *mlib_db_path(const struct mlib_db *db)
{
	return db->path;
}

int mlib_db_readonly(const struct mlib_db *db)
{
	return db->readonly;
}

int mlib_db_data_version(struct mlib_db *db, int64_t *out, struct crate_err *err)
{
	if (!db->data_version &&
	    sqlite3_prepare_v3(db->sql, "PRAGMA data_version", -1, SQLITE_PREPARE_PERSISTENT,
			       &db->data_version, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the data version", err);
	int rc = sqlite3_step(db->data_version);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(db->data_version, 0);
	sqlite3_reset(db->data_version);
	return rc == SQLITE_ROW ? 0 : mlib_db_error(db, "cannot read the data version", err);
}

int mlib_db_begin(struct mlib_db *db, struct crate_err *err)
{
	/* IMMEDIATE: take the write lock now, so a concurrent writer makes us
	 * wait (busy_timeout) here instead of failing half-way through. */
	if (sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot start a transaction", err);
	return 0;
}

int mlib_db_commit(struct mlib_db *db, struct crate_err *err)
{
	if (sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot commit", err);
	return 0;
}

int mlib_db_rollback(struct mlib_db *db, struct crate_err *err)
{
	if (sqlite3_get_autocommit(db->sql))
		return 0;
	if (sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot roll back", err);
	return 0;
}

unsigned long mlib_db_checks_run(void)
{
	return checks_run;
}

int mlib_db_check(struct mlib_db *db, struct crate_err *err)
{
	checks_run++;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot check the database", err);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return mlib_db_error(db, "cannot check the database", err);
	}
	const char *res = (const char *)sqlite3_column_text(st, 0);
	int ok = res && strcmp(res, "ok") == 0;
	if (!ok) {
		char *why = mlib_db_sqlite_text(res);
		crate_err_set(err, CRATE_ERR_DB,
			      "%s: the database is corrupt (%s); refusing to repair it: restore a "
			      "backup or remove the file",
			      db->path, why);
		free(why);
	}
	sqlite3_finalize(st);
	return ok ? 0 : -1;
}

static int table_exists(struct mlib_db *db, const char *name, int *exists, struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the schema", err);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		mlib_db_error(db, "cannot read the schema", err); /* before finalize clears it */
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	*exists = rc == SQLITE_ROW;
	return 0;
}

int mlib_db_version(struct mlib_db *db, const char *component, struct crate_err *err)
{
	int exists = 0;
	if (table_exists(db, "schema_version", &exists, err) != 0)
		return -1;
	if (!exists)
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "SELECT version FROM schema_version WHERE component=?", -1,
			       &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read schema_version", err);
	sqlite3_bind_text(st, 1, component, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	int v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		mlib_db_error(db, "cannot read schema_version", err); /* before finalize clears it */
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return v;
}

static int set_version(struct mlib_db *db, const char *component, int v, struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql,
			       "INSERT INTO schema_version(component, version) VALUES(?, ?) "
			       "ON CONFLICT(component) DO UPDATE SET version=excluded.version",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot write schema_version", err);
	sqlite3_bind_text(st, 1, component, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, v);
	int rc = sqlite3_step(st);
	int ret = rc == SQLITE_DONE ? 0 : mlib_db_error(db, "cannot write schema_version", err);
	sqlite3_finalize(st);
	return ret;
}

static int refuse_newer(struct mlib_db *db, const char *component, int have, int known,
			struct crate_err *err)
{
	return crate_err_set(err, CRATE_ERR_REFUSED,
			     "%s: the %s tables are at version %d, newer than this crate knows "
			     "(%d); upgrade crate (the file was not changed)",
			     db->path, component, have, known);
}

int mlib_db_migrate(struct mlib_db *db, const char *component, const char *const *steps,
		    int nsteps, struct crate_err *err)
{
	int v = mlib_db_version(db, component, err);
	if (v < 0)
		return -1;
	if (v > nsteps)
		return refuse_newer(db, component, v, nsteps, err);
	if (v == nsteps)
		return 0;
	if (db->readonly)
		return crate_err_set(err, CRATE_ERR_DB,
				     "%s: the %s tables need an upgrade (version %d to %d), but the "
				     "database is open read-only",
				     db->path, component, v, nsteps);
	if (mlib_db_exec(db, "CREATE TABLE IF NOT EXISTS schema_version("
			     "component TEXT PRIMARY KEY, version INTEGER NOT NULL)", err) != 0)
		return -1;
	for (;;) {
		if (mlib_db_begin(db, err) != 0)
			return -1;
		/* Re-read under the write lock: another process may have migrated. */
		v = mlib_db_version(db, component, err);
		if (v < 0)
			goto fail;
		if (v > nsteps) {
			mlib_db_rollback(db, NULL);
			return refuse_newer(db, component, v, nsteps, err);
		}
		if (v == nsteps)
			return mlib_db_commit(db, err);
		if (sqlite3_exec(db->sql, steps[v], NULL, NULL, NULL) != SQLITE_OK) {
			char *why = mlib_db_sqlite_text(sqlite3_errmsg(db->sql));
			crate_err_set(err, CRATE_ERR_DB, "%s: upgrading the %s tables to version %d: %s",
				      db->path, component, v + 1, why);
			free(why);
			goto fail;
		}
		if (set_version(db, component, v + 1, err) != 0)
			goto fail;
		if (mlib_db_commit(db, err) != 0)
			goto fail;
	}
fail:
	mlib_db_rollback(db, NULL);
	return -1;
}

/* "file:" URI for path with the characters URIs reserve escaped. */
static char *path_uri(const char *path, const char *query)
{
	struct strbuf b;
	strbuf_init(&b, strlen(path) + 32);
	strbuf_adds(&b, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
			strbuf_addf(&b, "%%%02X", *p);
		else
			strbuf_addc(&b, (char)*p);
	}
	strbuf_addf(&b, "?%s", query);
	return strbuf_steal(&b);
}

static int open_conn(struct mlib_db *db, const char *uri, int oflags, struct crate_err *err)
{
	if (db->sql)
		sqlite3_close(db->sql);
	db->sql = NULL;
	/* NOMUTEX: a connection is used by one thread (the scan worker opens its
	 * own); SQLite's per-call mutex costs ~7 % of an index load. */
	int rc = sqlite3_open_v2(uri, &db->sql, oflags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		char *why = mlib_db_sqlite_text(db->sql ? sqlite3_errmsg(db->sql) : sqlite3_errstr(rc));
		crate_err_set(err, CRATE_ERR_DB, "%s: cannot open the database: %s", db->path, why);
		free(why);
		return -1;
	}
	sqlite3_extended_result_codes(db->sql, 1);
	sqlite3_busy_timeout(db->sql, 5000);
	return 0;
}

/* Reading the schema is the first access to the file: a file that is not a
 * database fails here, before anything could be written to it. */
static int probe(struct mlib_db *db)
{
	return sqlite3_exec(db->sql, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
}

static int writable_dir_of(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int ok;
	if (!slash)
		ok = access(".", W_OK) == 0;
	else {
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		ok = access(dir, W_OK) == 0;
	}
	free(dir);
	return ok;
}

/* WAL: readers never block the writer (the UI reads while a scan writes).
 * synchronous=NORMAL with WAL syncs the log only at checkpoints, not at
 * every commit: a killed process (kill -9, crash) loses nothing that was
 * committed, because committed frames are already in the -wal file; a power
 * loss or OS crash may lose the last commits since the previous checkpoint,
 * but the database is never corrupted by it. That trade is right for a
 * rebuildable music library. Switching the journal mode needs an exclusive
 * moment, which the busy handler does not wait for; several crates opening
 * one new database at once retry here for up to five seconds. */
static int enable_wal(struct mlib_db *db, struct crate_err *err)
{
	for (int attempt = 0;; attempt++) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db->sql, "PRAGMA journal_mode=WAL", -1, &st, NULL) != SQLITE_OK)
			return mlib_db_error(db, "cannot set WAL mode", err);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			sqlite3_finalize(st);
			break;
		}
		if ((rc & 0xff) == SQLITE_BUSY && attempt < 100) {
			sqlite3_finalize(st);
			usleep(50 * 1000);
			continue;
		}
		mlib_db_error(db, "cannot set WAL mode", err); /* before finalize clears it */
		sqlite3_finalize(st);
		return -1;
	}
	return mlib_db_exec(db, "PRAGMA synchronous=NORMAL", err);
}

/* A new database's folder must be there to hold it: said so, naming the
 * folder (SQLite only says "unable to open database file"). */
static int check_new_dir(const struct mlib_db *db, struct crate_err *err)
{
	char *dir = xstrdup(db->path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else
		slash[slash == dir] = '\0';
	struct stat st;
	int rc = 0;
	if (stat(dir, &st) != 0)
		rc = crate_err_set(err, CRATE_ERR_NOTFOUND, "%s: cannot create the database: %s: %s",
				   db->path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = crate_err_set(err, CRATE_ERR_NOTFOUND,
				   "%s: cannot create the database: %s is not a folder", db->path, dir);
	else if (access(dir, W_OK) != 0)
		rc = crate_err_set(err, CRATE_ERR_REFUSED,
				   "%s: cannot create the database: the folder %s is read-only", db->path,
				   dir);
	free(dir);
	return rc;
}

static int db_open_inner(struct mlib_db *db, unsigned flags, struct crate_err *err)
{
	struct stat stb;
	int exists = stat(db->path, &stb) == 0;
	if (!exists && !db->readonly && check_new_dir(db, err) != 0)
		return -1;
	if (exists && !S_ISREG(stb.st_mode))
		return crate_err_set(err, CRATE_ERR_DB, "%s: not a regular file", db->path);
	if (db->readonly && !exists)
		return crate_err_set(err, CRATE_ERR_NOTFOUND,
				     "%s: no library database here (run 'crate scan DIR' first)",
				     db->path);
	if (!db->readonly && exists && (access(db->path, W_OK) != 0 || !writable_dir_of(db->path)))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "%s: the database (or its directory) is read-only", db->path);

	char *uri = path_uri(db->path, db->readonly ? "mode=ro" : "mode=rwc");
	int rc = open_conn(db, uri, db->readonly ? SQLITE_OPEN_READONLY
						 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			   err);
	free(uri);
	if (rc != 0)
		return -1;
	rc = probe(db);
	/* Extended result codes are on: SQLITE_READONLY_DIRECTORY (1544) is a
	 * kind of SQLITE_READONLY, so compare the primary code. */
	int primary = sqlite3_extended_errcode(db->sql) & 0xff;
	if (rc != SQLITE_OK && db->readonly &&
	    (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY)) {
		/* A WAL database in a directory we cannot write: without its -shm
		 * file SQLite cannot share it, so read it as an immutable file. */
		uri = path_uri(db->path, "mode=ro&immutable=1");
		rc = open_conn(db, uri, SQLITE_OPEN_READONLY, err);
		free(uri);
		if (rc != 0)
			return -1;
		rc = probe(db);
	}
	if (rc != SQLITE_OK)
		return mlib_db_error(db, "cannot read the database", err);

	if (exists && ((flags & MLIB_DB_CHECK) || stb.st_size <= MLIB_DB_CHECK_MAX_BYTES)) {
		if ((flags & MLIB_DB_CHECK) || !mlib_db_checked_holds(db->path)) {
			if (mlib_db_check(db, err) != 0)
				return -1;
		}
		db->trusted = true;
	}
	db->trusted |= !exists;

	if (mlib_db_exec(db, "PRAGMA foreign_keys=ON", err) != 0)
		return -1;
	/* Migrate (and refuse a newer schema) before switching to WAL: turning
	 * WAL on rewrites the file header, and a database we refuse must be
	 * left exactly as it was. */
	for (size_t i = 0; i < mlib_db_ncomponents; i++) {
		const struct mlib_db_component *c = mlib_db_components[i];
		if (!(db->readonly && c->writable_only) && c->migrate(db, err) != 0)
			return -1;
	}
	return db->readonly ? 0 : enable_wal(db, err);
}

int mlib_db_open(const char *path, unsigned flags, struct mlib_db **out, struct crate_err *err)
{
	struct mlib_db *db = xcalloc(1, sizeof *db);
	db->path = xstrdup(path);
	db->readonly = (flags & MLIB_DB_READONLY) != 0;
	if (db_open_inner(db, flags, err) != 0) {
		mlib_db_close(db);
		*out = NULL;
		return -1;
	}
	*out = db;
	return 0;
}

void mlib_db_close(struct mlib_db *db)
{
	if (!db)
		return;
	sqlite3_finalize(db->data_version);
	bool opened = db->sql != NULL;
	if (opened)
		sqlite3_close_v2(db->sql);
	/* after the close: the last connection's checkpoint writes the file */
	if (opened && db->trusted && !mlib_db_checked_holds(db->path))
		mlib_db_checked_record(db->path);
	free(db->path);
	free(db);
}
