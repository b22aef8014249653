/* Saved collections (spec/collections.md, "Saved collections"): namespaces
 * Collections and Playlists, All Media built in, persisted to SQLite in
 * the library database, every change in one transaction.
 *
 * Ownership of what the store hands out (one rule for every pointer):
 * - Roots (coll_store_get, coll_store_resolve) are borrowed, valid until
 *   the next call that may change the store in memory: every write below
 *   (save, rename, remove, set_active_playlist, the playlist edits) and
 *   coll_store_refresh, because each first catches up with what other
 *   processes committed and drops the roots that changed. To keep a root
 *   across such a call, take a reference (coll_node_ref) and drop it after.
 *   The universe "All Media" resolves to lives as long as the store.
 * - The active playlist's name (coll_store_active_playlist) lives as long
 *   as the store: the store keeps every name the active playlist had.
 * - Strings returned as owned (coll_name_split, coll_store_list) are the
 *   caller's to free.
 * - Arguments may be anything the store handed out (the active name, a
 *   string or id array inside a root): every write copies its arguments
 *   before it changes anything. */
#ifndef CRATE_COLL_STORE_H
#define CRATE_COLL_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "coll/node.h"

struct mlib_db;
struct coll_store;

#define COLL_NS_COLLECTIONS "Collections"
#define COLL_NS_PLAYLISTS "Playlists"

/* Load every saved collection from db (creating the tables and the Default
 * playlist on first use). The store borrows db. */
int coll_store_open(struct mlib_db *db, struct coll_store **out, struct crate_err *err);
void coll_store_free(struct coll_store *st);

/* Split "Playlists/Road Trip" or "Rock 90s" (-> Collections) into ns/name.
 * Writes owned strings. Fails on an unknown namespace or empty name. */
int coll_name_split(const char *full, char **ns, char **name, struct crate_err *err);

/* The saved root, borrowed (see the rule above); NULL if absent. "All
 * Media" is never stored. */
const struct coll_node *coll_store_get(const struct coll_store *st, const char *ns,
				       const char *name);
/* Resolver for coll_eval_ctx / exists for coll_parse_opts (ud = store).
 * Collections/All Media resolves to a universe node owned by the store. */
const struct coll_node *coll_store_resolve(void *store, const char *ns, const char *name);
bool coll_store_exists(void *store, const char *ns, const char *name);
/* exists_prefix for coll_parse_opts: a collection of ns (All Media
 * included) whose name starts with prefix. */
bool coll_store_exists_prefix(void *store, const char *ns, const char *prefix);

/* Save (replace) ns/name = node. Refused when it could not be read back
 * (deeper than COLL_MAX_DEPTH, see node.h). Borrowed roots of other collections stay
 * valid unless another process changed them (see coll_store_refresh). The
 * store takes its own reference (so do not change node afterwards: copy it
 * first). Refuses cycles, references to
 * missing collections, non-lists in Playlists, 'All Media', names with
 * control characters. */
int coll_store_save(struct coll_store *st, const char *ns, const char *name,
		    struct coll_node *node, struct crate_err *err);
/* Rename, rewriting every reference to the old name. */
int coll_store_rename(struct coll_store *st, const char *ns, const char *old_name,
		      const char *new_name, struct crate_err *err);
/* Remove. With referrers: refused (message lists them) unless force, which
 * replaces each referring reference by a copy of the removed definition
 * (refused when a copy would nest too deep). Also deletes an unreadable
 * row (coll_store_unreadable). */
int coll_store_remove(struct coll_store *st, const char *ns, const char *name, bool force,
		      struct crate_err *err);
/* Names in a namespace, in natural case-insensitive order; the built-in
 * 'All Media' is not listed. The array (NULL-terminated) and strings are
 * owned by the caller (free each, then the array). */
size_t coll_store_list(const struct coll_store *st, const char *ns, char ***names);

/* Saved collections that could not be read back (a damaged row, one
 * written by another version): skipped so everything else opens. Returns
 * how many; for i below that, fills (each may be NULL) the row's namespace,
 * name and a message naming the database, the collection and the reason
 * (sanitised for a terminal). Borrowed, like roots. coll_store_remove
 * deletes such a row. */
size_t coll_store_unreadable(const struct coll_store *st, size_t i, const char **ns,
			     const char **name, const char **why);

/* The active playlist's name (in Playlists). Borrowed, valid until
 * coll_store_free (even after the active playlist changes). */
const char *coll_store_active_playlist(const struct coll_store *st);
int coll_store_set_active_playlist(struct coll_store *st, const char *name, struct crate_err *err);

/* Playlist edits (playlist_edit.c, each one coll_store_playlist_edit),
 * each persisted in one transaction. Positions are 0-based.
 * The list's "position" attribute (the current entry, 0-based) follows the
 * current entry: inserting or removing before it shifts it; removing the
 * current entry makes the entry after the removed ones current (position
 * may then equal the length: nothing left to play); moving it moves it. */
int coll_store_playlist_insert(struct coll_store *st, const char *name, size_t pos,
			       const uint32_t *ids, size_t n, struct crate_err *err);
int coll_store_playlist_remove(struct coll_store *st, const char *name, size_t pos, size_t n,
			       struct crate_err *err);
int coll_store_playlist_move(struct coll_store *st, const char *name, size_t from, size_t to,
			     struct crate_err *err);
/* Set (value NULL: remove) one attribute of a playlist, e.g. the player's
 * "position", without touching its entries: use this rather than saving a
 * copy, which would undo edits another process made meanwhile. */
int coll_store_playlist_set_attr(struct coll_store *st, const char *name, const char *key,
				 const char *value, struct crate_err *err);
/* The general form: fn edits a private copy of the playlist as it is in the
 * database right now (inside the write transaction) and returns 0 to save
 * it, 1 when there is nothing to change, -1 (with *err) to abandon. */
typedef int (*coll_store_edit_fn)(void *ud, struct coll_node *list, struct crate_err *err);
int coll_store_playlist_edit(struct coll_store *st, const char *name, coll_store_edit_fn fn,
			     void *ud, struct crate_err *err);
/* The same, recorded for coll_store_playlist_undo under label ("move of 3
 * entries"): the list before and after the edit is kept in the database
 * (coll/playlist_undo.h), in the same transaction. label is read once fn
 * has run, so fn may write it (to say what it did); it must be the
 * caller's own text, not one the store handed out. */
int coll_store_playlist_edit_undoable(struct coll_store *st, const char *name, const char *label,
				      coll_store_edit_fn fn, void *ud, struct crate_err *err);
/* Undoable edits for the interface (playlist_edit.c). Positions are
 * distinct, 0-based, in any order. move_set moves each entry one place
 * (delta -1: up, +1: down) past its unselected neighbour; entries already
 * packed against that end stay. pos receives the new positions and *moved
 * (may be NULL) how many entries moved (0: nothing changed, nothing
 * recorded). remove_set removes them; *removed (may be NULL) the count. */
int coll_store_playlist_insert_undoable(struct coll_store *st, const char *name, size_t pos,
					const uint32_t *ids, size_t n, struct crate_err *err);
/* One entry moved from one position to another, recorded likewise. */
int coll_store_playlist_move_undoable(struct coll_store *st, const char *name, size_t from,
				      size_t to, struct crate_err *err);
int coll_store_playlist_move_set(struct coll_store *st, const char *name, size_t *pos, size_t n,
				 int delta, size_t *moved, struct crate_err *err);
int coll_store_playlist_remove_set(struct coll_store *st, const char *name, const size_t *pos,
				   size_t n, size_t *removed, struct crate_err *err);
/* Undo the latest recorded edit (of any playlist): its list goes back to
 * what it was, provided it is still what the edit left. Refused
 * (CRATE_ERR_REFUSED, *err says why; the record is dropped so the next
 * undo reaches the one before) when the list changed since, e.g. another
 * process edited it. CRATE_ERR_NOTFOUND when there is nothing to undo.
 * *name and *label (owned, NULL when no record) name the edit. */
int coll_store_playlist_undo(struct coll_store *st, char **name, char **label,
			     struct crate_err *err);

/* A saved collection's own browser levels (text like "genre album", the
 * caller checks it: medialib/index_groups.h), kept beside its definition:
 * a rename takes them along, a remove drops them, a save over it keeps
 * them. get: *out owned, NULL when it has none (or the database is too
 * old and read-only to hold them). set: NULL or "" clears; the collection
 * must exist and not be All Media (the browser.levels option is its). */
int coll_store_levels_get(struct coll_store *st, const char *ns, const char *name, char **out,
			  struct crate_err *err);
int coll_store_levels_set(struct coll_store *st, const char *ns, const char *name,
			  const char *levels, struct crate_err *err);

/* Bumped by every change, so views can tell when to re-evaluate. */
unsigned coll_store_generation(const struct coll_store *st);

/* Several processes may share the database (the UI, `crate playlist add`).
 * Every change above first catches up with what others committed, inside
 * its transaction. Readers call this (e.g. once a second, or when idle) to
 * pick up others' changes; *changed (may be NULL) tells whether anything
 * was reloaded. Roots borrowed earlier stay valid only for collections that
 * did not change. */
int coll_store_refresh(struct coll_store *st, bool *changed, struct crate_err *err);

#endif
