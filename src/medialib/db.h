/* The library database: one SQLite file (WAL mode) shared by the media
 * library and the collection store. Each component versions its own tables
 * through mlib_db_migrate(); those needed on every open register in
 * mlib_db_components (db_components.c), so this module knows none by name. */
#ifndef CRATE_MEDIALIB_DB_H
#define CRATE_MEDIALIB_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct mlib_db;

enum {
	MLIB_DB_READONLY = 1u << 0, /* never write: inspection commands, read-only files */
	MLIB_DB_CHECK = 1u << 1,    /* run PRAGMA quick_check on open (costs a full read) */
};

/* A component whose tables mlib_db_open brings up to date: its row in
 * schema_version, the version this build writes, and the function that
 * migrates to it (normally mlib_db_migrate over its steps). */
struct mlib_db_component {
	const char *name;
	int version;
	int (*migrate)(struct mlib_db *db, struct crate_err *err);
	/* Optional tables: a read-only database is opened without them
	 * (readers check that the table exists). */
	bool writable_only;
};

/* The components mlib_db_open migrates, in order (a later one may refer to
 * an earlier one's tables). */
extern const struct mlib_db_component *const mlib_db_components[];
extern const size_t mlib_db_ncomponents;

/* Open (or create, unless read-only) the database at path and bring every
 * registered component's tables up to date. A file that is not a database, fails
 * the check, is newer than this program, or cannot be written is an error
 * naming the file; the file is never modified or "repaired" then.
 * *out is owned by the caller (mlib_db_close). */
int mlib_db_open(const char *path, unsigned flags, struct mlib_db **out, struct crate_err *err);
void mlib_db_close(struct mlib_db *db);

sqlite3 *mlib_db_sqlite(struct mlib_db *db);
const char *mlib_db_path(const struct mlib_db *db);
int mlib_db_readonly(const struct mlib_db *db);

int mlib_db_begin(struct mlib_db *db, struct crate_err *err);
int mlib_db_commit(struct mlib_db *db, struct crate_err *err);
int mlib_db_rollback(struct mlib_db *db, struct crate_err *err);

/* Bring component's tables to version nsteps: steps[i] (SQL, may hold
 * several statements) upgrades version i to i+1, each in its own
 * transaction. A stored version above nsteps is refused untouched. On a
 * read-only database an out-of-date schema is an error. */
int mlib_db_migrate(struct mlib_db *db, const char *component, const char *const *steps,
		    int nsteps, struct crate_err *err);
/* The stored version of component (0 when it has none), or -1 on error. */
int mlib_db_version(struct mlib_db *db, const char *component, struct crate_err *err);

/* PRAGMA data_version: a number that changes when another connection (a
 * second process, or a worker thread's own connection) commits. Cheap: no
 * table is read. */
int mlib_db_data_version(struct mlib_db *db, int64_t *out, struct crate_err *err);

/* Run PRAGMA quick_check; an error naming the file when it fails. */
int mlib_db_check(struct mlib_db *db, struct crate_err *err);
/* How many quick_checks this process has run (for tests: an unchanged
 * database is not checked again, medialib/db_checked.h). */
unsigned long mlib_db_checks_run(void);

/* SQLite's own text s (an error message, a report; NULL: "?") for a
 * message, owned: folded to one line without control characters. Every
 * connection's errors use it, the library's and other modules' own. */
char *mlib_db_sqlite_text(const char *s);
/* Fill err from the connection's last SQLite error: "<file>: <what>: <sqlite msg>". */
int mlib_db_error(struct mlib_db *db, const char *what, struct crate_err *err);

/* End a statement whose last sqlite3_step returned rc: finalize it; 0 when
 * rc is SQLITE_DONE, else -1 with err as mlib_db_error (the message is read
 * before finalizing). */
int mlib_db_finish(struct mlib_db *db, sqlite3_stmt *st, int rc, const char *what,
		   struct crate_err *err);

/* Execute SQL without parameters (schema text, pragmas). */
int mlib_db_exec(struct mlib_db *db, const char *sql, struct crate_err *err);

#endif
