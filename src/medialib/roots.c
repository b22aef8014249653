#include "medialib/roots.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const schema[] = {
	"CREATE TABLE scan_root(path BLOB PRIMARY KEY, added INTEGER NOT NULL);",
};

static int ready(struct mlib_db *db, struct crate_err *err)
{
	return mlib_db_migrate(db, "roots", schema, 1, err);
}

/* inner is outer or a folder under it */
static bool covers(const char *outer, const char *inner)
{
	size_t n = strlen(outer);
	if (n == 1 && outer[0] == '/')
		return true;
	return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

int mlib_roots_add(struct mlib_db *db, const char *path, struct crate_err *err)
{
	char **v;
	size_t n;
	if (ready(db, err) != 0 || mlib_roots_list(db, &v, &n, err) != 0)
		return -1;
	bool covered = false;
	for (size_t i = 0; i < n && !covered; i++)
		covered = covers(v[i], path);
	int rc = 0;
	if (!covered) {
		if (mlib_db_begin(db, err) != 0) {
			mlib_roots_free(v, n);
			return -1;
		}
		sqlite3 *s = mlib_db_sqlite(db);
		sqlite3_stmt *del = NULL, *ins = NULL;
		rc = sqlite3_prepare_v2(s, "DELETE FROM scan_root WHERE path=?", -1, &del, NULL) ==
				     SQLITE_OK &&
			     sqlite3_prepare_v2(s, "INSERT INTO scan_root VALUES(?, strftime('%s'))",
						-1, &ins, NULL) == SQLITE_OK
			 ? 0 : mlib_db_error(db, "cannot record a scanned folder", err);
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (!covers(path, v[i]))
				continue;
			sqlite3_reset(del);
			sqlite3_bind_blob(del, 1, v[i], (int)strlen(v[i]), SQLITE_STATIC);
			if (sqlite3_step(del) != SQLITE_DONE)
				rc = mlib_db_error(db, "cannot record a scanned folder", err);
		}
		if (rc == 0) {
			sqlite3_bind_blob(ins, 1, path, (int)strlen(path), SQLITE_STATIC);
			if (sqlite3_step(ins) != SQLITE_DONE)
				rc = mlib_db_error(db, "cannot record a scanned folder", err);
		}
		sqlite3_finalize(del);
		sqlite3_finalize(ins);
		if (rc == 0)
			rc = mlib_db_commit(db, err);
		if (rc != 0)
			mlib_db_rollback(db, NULL);
	}
	mlib_roots_free(v, n);
	return rc;
}

int mlib_roots_remove(struct mlib_db *db, const char *path, struct crate_err *err)
{
	if (ready(db, err) != 0)
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "DELETE FROM scan_root WHERE path=?", -1, &st,
			       NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot remove a root", err);
	sqlite3_bind_blob(st, 1, path, (int)strlen(path), SQLITE_STATIC);
	if (mlib_db_finish(db, st, sqlite3_step(st), "cannot remove a root", err) != 0)
		return -1;
	if (sqlite3_changes(mlib_db_sqlite(db)) == 0)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "%s: not a scanned folder (crate roots lists them)",
				     path);
	return 0;
}

int mlib_roots_list(struct mlib_db *db, char ***out, size_t *n, struct crate_err *err)
{
	*out = NULL;
	*n = 0;
	if (mlib_db_readonly(db) ? mlib_db_version(db, "roots", NULL) <= 0 : 0)
		return 0;
	if (!mlib_db_readonly(db) && ready(db, err) != 0)
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT path FROM scan_root ORDER BY path", -1,
			       &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the scanned folders", err);
	int rc;
	char **v = NULL;
	size_t k = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *p = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		if (!p || memchr(p, '\0', len))
			continue;
		v = xreallocarray(v, k + 1, sizeof *v);
		v[k++] = xstrndup(p, len);
	}
	if (mlib_db_finish(db, st, rc, "cannot read the scanned folders", err) != 0) {
		mlib_roots_free(v, k);
		return -1;
	}
	*out = v;
	*n = k;
	return 0;
}

void mlib_roots_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* url (len bytes) lies in one of roots (or is one). */
static bool under_a_root(const char *url, size_t len, char *const *roots, size_t nroots)
{
	for (size_t i = 0; i < nroots; i++) {
		size_t n = strlen(roots[i]);
		if ((n == 1 && roots[i][0] == '/') ||
		    (len >= n && memcmp(url, roots[i], n) == 0 && (len == n || url[n] == '/')))
			return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A root's subtree as a range of urls in byte order: [root "/", root "0")
 * ('0' follows '/'). */
struct url_range {
	char *lo, *hi;
};

static int range_cmp(const void *a, const void *b)
{
	return strcmp(((const struct url_range *)a)->lo, ((const struct url_range *)b)->lo);
}

/* Append the rows of urls in [lo, hi) that lie under no root to v. */
static int gap_rows(struct mlib_db *db, sqlite3_stmt *st, const char *lo, const char *hi,
		    char *const *roots, size_t nroots, char ***v, size_t *k, size_t *cap,
		    struct crate_err *err)
{
	sqlite3_reset(st);
	sqlite3_bind_blob(st, 1, lo, (int)strlen(lo), SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, hi, (int)strlen(hi), SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *url = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		if (!url || memchr(url, '\0', len))
			continue;
		if (sqlite3_column_int(st, 2)) { /* a cue track: its file, "FILE#N" */
			const char *hash = memrchr(url, '#', len);
			len = hash ? (size_t)(hash - url) : len;
		}
		if (under_a_root(url, len, roots, nroots)) /* a root itself, a cue file in one */
			continue;
		char *path = xstrndup(url, len);
		/* a missing one only once its file is back */
		if (sqlite3_column_int(st, 1) && access(path, F_OK) != 0) {
			free(path);
			continue;
		}
		if (*k == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*v = xreallocarray(*v, *cap, sizeof **v);
		}
		(*v)[(*k)++] = path;
	}
	if (rc != SQLITE_DONE)
		return mlib_db_error(db, "cannot read the library", err);
	return 0;
}

int mlib_roots_loose_files(struct mlib_db *db, char *const *roots, size_t nroots, char ***out,
			   size_t *n, struct crate_err *err)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < nroots; i++)
		if (strcmp(roots[i], "/") == 0) /* every file is under it */
			return 0;
	/* Only the gaps between the roots' subtrees are read, through the
	 * url index: a library of a million tracks in its roots costs a few
	 * lookups, not a pass over every row (the interface's :scan asks). */
	struct url_range *r = xcalloc(nroots + 1, sizeof *r);
	for (size_t i = 0; i < nroots; i++)
		r[i] = (struct url_range){xasprintf("%s/", roots[i]), xasprintf("%s0", roots[i])};
	qsort(r, nroots, sizeof *r, range_cmp);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT url, missing, cue_start IS NOT NULL FROM media"
			       " WHERE url >= ?1 AND url < ?2",
			       -1, &st, NULL) != SQLITE_OK) {
		for (size_t i = 0; i < nroots; i++) {
			free(r[i].lo);
			free(r[i].hi);
		}
		free(r);
		return mlib_db_error(db, "cannot read the library", err);
	}
	char **v = NULL;
	size_t k = 0, cap = 0;
	const char *from = "/"; /* urls of files start with '/', streams do not */
	int rc = 0;
	for (size_t i = 0; i <= nroots && rc == 0; i++) {
		const char *to = i < nroots ? r[i].lo : "0";
		if (strcmp(from, to) < 0)
			rc = gap_rows(db, st, from, to, roots, nroots, &v, &k, &cap, err);
		if (i < nroots && strcmp(r[i].hi, from) > 0) /* nested roots overlap */
			from = r[i].hi;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < nroots; i++) {
		free(r[i].lo);
		free(r[i].hi);
	}
	free(r);
	if (rc != 0) {
		mlib_roots_free(v, k);
		return -1;
	}
	/* a split file's tracks name it once each */
	if (k)
		qsort(v, k, sizeof *v, cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < k; i++) {
		if (u && strcmp(v[u - 1], v[i]) == 0)
			free(v[i]);
		else
			v[u++] = v[i];
	}
	*out = v;
	*n = u;
	return 0;
}
