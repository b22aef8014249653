/* The undo records of playlist edits (store.c's helper, not an API of its
 * own): a small table beside the saved collections, coll_undo, holding for
 * each undoable edit the list before and after it. It lives in the
 * database so that undo survives a restart, and it is bounded
 * (PLAYLIST_UNDO_LEVELS). Every function runs inside the caller's write
 * transaction; the table is created on first use. */
#ifndef CRATE_COLL_PLAYLIST_UNDO_H
#define CRATE_COLL_PLAYLIST_UNDO_H

#include <sqlite3.h>
#include <stdint.h>

#include "base/err.h"
#include "base/vec.h"

#define PLAYLIST_UNDO_LEVELS 32

struct playlist_undo {
	int64_t seq;
	char *name, *label;         /* owned */
	struct u32vec before, after; /* owned */
	long before_pos, after_pos;  /* the "position" attribute, -1: unset */
};

/* Record an edit of Playlists/name; older records beyond the bound go. */
int playlist_undo_push(sqlite3 *db, const char *name, const char *label,
		       const struct u32vec *before, long before_pos, const struct u32vec *after,
		       long after_pos, struct crate_err *err);
/* The latest record: 1 (filled, playlist_undo_free), 0 none, -1 error. */
int playlist_undo_top(sqlite3 *db, struct playlist_undo *out, struct crate_err *err);
int playlist_undo_drop(sqlite3 *db, int64_t seq, struct crate_err *err);
void playlist_undo_free(struct playlist_undo *u);

#endif
