/* The folders the user scans ("roots"): every `crate scan DIR` and `:scan
 * DIR` records DIR (canonical). The interface watches them for changes
 * (medialib/watch.h), `crate roots` lists and removes them. Kept in the
 * library database (table scan_root, component "roots"). */
#ifndef CRATE_MEDIALIB_ROOTS_H
#define CRATE_MEDIALIB_ROOTS_H

#include <stddef.h>

#include "base/err.h"
#include "medialib/db.h"

/* Record path (an absolute, canonical folder) as a root; known ones are
 * kept. A root under another root is not recorded (the outer one covers
 * it); an outer one replaces the roots it covers. */
int mlib_roots_add(struct mlib_db *db, const char *path, struct crate_err *err);
/* Forget the root path: CRATE_ERR_NOTFOUND when it is not one. */
int mlib_roots_remove(struct mlib_db *db, const char *path, struct crate_err *err);
/* Every root, sorted. *out is owned by the caller (mlib_roots_free); a
 * read-only library without the table has none. */
int mlib_roots_list(struct mlib_db *db, char ***out, size_t *n, struct crate_err *err);
void mlib_roots_free(char **v, size_t n);
/* The files of the library that lie under none of roots (given to `crate
 * scan` by name, or scanned by a playlist import), sorted, once each (a
 * cue track's file for its tracks): those still there, and those marked
 * missing whose file is back. A plain rescan looks at them with the roots.
 * *out as for mlib_roots_list. */
int mlib_roots_loose_files(struct mlib_db *db, char *const *roots, size_t nroots, char ***out,
			   size_t *n, struct crate_err *err);

#endif
