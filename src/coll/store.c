/* Saved collections: the in-memory DAG roots plus their SQLite rows.
 *
 * Persistence: each saved collection is ONE row holding its JSON text
 * (coll_saved(ns, name, json)). A save, a rename with its rewritten
 * referrers, a forced remove with its patched referrers, a playlist edit:
 * each is one transaction over a few rows, so a crash leaves every
 * collection either wholly old or wholly new. Rewriting a whole row for a
 * playlist edit costs ~60 KB of JSON for a 10,000-entry list, which SQLite
 * writes in well under a millisecond; per-entry tables would buy nothing
 * but code. References are stored by name and resolved at evaluation, so a
 * save is seen by every collection that refers to it.
 *
 * Memory: the store holds one reference on each root and never mutates a
 * root in place (copy, change, persist, swap), so a caller holding a root
 * it got earlier (and a reference on it) keeps a consistent (if old)
 * collection. What the store hands out and how long it lives: store.h. */
#include "coll/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/str.h"
#include "base/utf8.h"
#include "coll/json.h"
#include "coll/playlist_undo.h"
#include "medialib/db.h"

#define ALL_MEDIA "All Media"
#define DEFAULT_PLAYLIST "Default"
#define NAME_MAX_BYTES 1024

struct coll_entry {
	char *ns, *name;        /* owned */
	struct coll_node *root; /* one reference */
};

/* A row that could not be read back (damaged, or written by another
 * version): skipped so the rest opens, reported, and removable. */
struct coll_bad_row {
	char *ns, *name, *why; /* owned */
};

struct coll_store {
	struct mlib_db *db; /* borrowed */
	struct coll_entry *v;
	size_t n, cap;
	struct coll_bad_row *bad;
	size_t nbad;
	const char *active;         /* the active playlist's name: one of names_kept */
	/* Every name the active playlist ever had in this store, each kept
	 * until coll_store_free: callers may hold the active name across
	 * changes (see store.h). Switching back reuses the kept copy. */
	char **names_kept;
	size_t nkept;
	struct coll_node *universe; /* what "All Media" resolves to */
	unsigned generation;
	/* PRAGMA data_version when memory last matched the file: another
	 * process's commit changes it, and the next write (or a refresh)
	 * reloads first, so no change is computed from a stale copy. */
	int64_t data_version;
	bool detached; /* read-only file without our tables: memory only */
	bool no_levels; /* read-only file from before coll_levels: none to read */
};

/* The "collections" tables. Version 1: the Default playlist and the
 * active-playlist setting are part of the schema's birth, so they exist
 * from the first start and are created exactly once. Version 2: a saved
 * collection's own browser levels, a table of their own so the JSON
 * definitions (and older readers of them) stay as they were. */
static const char *const schema_steps[] = {
	"CREATE TABLE coll_saved("
	"  ns TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  json TEXT NOT NULL,"
	"  PRIMARY KEY (ns, name));"
	"CREATE TABLE coll_setting(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"INSERT INTO coll_saved VALUES ('Playlists', 'Default', '{\"type\":\"idlist\"}');"
	"INSERT INTO coll_setting VALUES ('active_playlist', 'Default');",
	"CREATE TABLE coll_levels("
	"  ns TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  levels TEXT NOT NULL,"
	"  PRIMARY KEY (ns, name));",
};
#define SCHEMA_STEPS ((int)(sizeof schema_steps / sizeof schema_steps[0]))

/* ---- names ---- */

static bool ns_known(const char *ns)
{
	return ns && (strcmp(ns, COLL_NS_COLLECTIONS) == 0 || strcmp(ns, COLL_NS_PLAYLISTS) == 0);
}

static bool is_all_media(const char *ns, const char *name)
{
	return strcmp(ns, COLL_NS_COLLECTIONS) == 0 && strcmp(name, ALL_MEDIA) == 0;
}

/* Names reach terminals and file names: valid UTF-8, no control characters. */
static int name_check(const char *ns, const char *name, struct crate_err *err)
{
	if (!ns_known(ns))
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "unknown namespace '%s' (Collections or Playlists)",
				     ns ? ns : "");
	size_t len = strlen(name);
	if (len == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "%s/: empty collection name", ns);
	if (len > NAME_MAX_BYTES)
		return crate_err_set(err, CRATE_ERR_INVALID, "%s/%.40s...: name too long", ns,
				     name);
	if (!utf8_valid(name, len))
		return crate_err_set(err, CRATE_ERR_INVALID, "%s: name is not valid UTF-8", ns);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		i += utf8_decode(name + i, len - i, &cp);
		if (utf8_is_control(cp))
			return crate_err_set(err, CRATE_ERR_INVALID,
					     "%s: a collection name cannot hold control characters",
					     ns);
	}
	return 0;
}

int coll_name_split(const char *full, char **ns, char **name, struct crate_err *err)
{
	*ns = *name = NULL;
	const char *slash = strchr(full, '/');
	char *n, *s;
	if (slash) {
		s = xstrndup(full, (size_t)(slash - full));
		if (!ns_known(s)) {
			char *shown = utf8_sanitize(s, strlen(s));
			crate_err_set(err, CRATE_ERR_INVALID,
				      "unknown namespace '%s' in '%s/...' (Collections or Playlists)",
				      shown, shown);
			free(shown);
			free(s);
			return -1;
		}
		n = xstrdup(slash + 1);
	} else {
		s = xstrdup(COLL_NS_COLLECTIONS);
		n = xstrdup(full);
	}
	if (name_check(s, n, err) != 0) {
		free(s);
		free(n);
		return -1;
	}
	*ns = s;
	*name = n;
	return 0;
}

/* ---- lookup ---- */

static struct coll_entry *entry_find(const struct coll_store *st, const char *ns,
				     const char *name)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->v[i].name, name) == 0 && strcmp(st->v[i].ns, ns) == 0)
			return &st->v[i];
	return NULL;
}

const struct coll_node *coll_store_get(const struct coll_store *st, const char *ns,
				       const char *name)
{
	const struct coll_entry *e = entry_find(st, ns, name);
	return e ? e->root : NULL;
}

const struct coll_node *coll_store_resolve(void *store, const char *ns, const char *name)
{
	struct coll_store *st = store;
	if (!ns)
		ns = COLL_NS_COLLECTIONS;
	if (is_all_media(ns, name))
		return st->universe;
	return coll_store_get(st, ns, name);
}

bool coll_store_exists(void *store, const char *ns, const char *name)
{
	return coll_store_resolve(store, ns, name) != NULL;
}

bool coll_store_exists_prefix(void *store, const char *ns, const char *prefix)
{
	const struct coll_store *st = store;
	size_t pl = strlen(prefix);
	if (!ns)
		ns = COLL_NS_COLLECTIONS;
	if (strcmp(ns, COLL_NS_COLLECTIONS) == 0 && strncmp("All Media", prefix, pl) == 0)
		return true;
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->v[i].ns, ns) == 0 && strncmp(st->v[i].name, prefix, pl) == 0)
			return true;
	return false;
}

unsigned coll_store_generation(const struct coll_store *st)
{
	return st->generation;
}

/* The namespace a reference node names ("Collections" when unset). */
static const char *ref_ns(const struct coll_node *n)
{
	const char *ns = coll_attr_get(n, "namespace");
	return ns ? ns : COLL_NS_COLLECTIONS;
}

static const char *ref_name(const struct coll_node *n)
{
	const char *name = coll_attr_get(n, "reference");
	return name ? name : "";
}

static bool ref_is(const struct coll_node *n, const char *ns, const char *name)
{
	return n->type == COLL_REFERENCE && strcmp(ref_ns(n), ns) == 0 &&
	       strcmp(ref_name(n), name) == 0;
}

/* Does the tree under n hold a reference to ns/name (directly)? */
static bool tree_refers(const struct coll_node *n, const char *ns, const char *name)
{
	if (ref_is(n, ns, name))
		return true;
	for (size_t i = 0; i < n->noperands; i++)
		if (tree_refers(n->operands[i], ns, name))
			return true;
	return false;
}

/* ---- cycles and dangling references ---- */

struct walk {
	const struct coll_store *st;
	const char *ns, *name; /* the collection being saved */
	bool *seen;            /* per entry, so shared targets are walked once */
};

/* True when entry e's definition reaches ns/name through references. */
static bool entry_reaches(struct walk *w, const struct coll_node *n);

static bool ref_reaches(struct walk *w, const struct coll_node *ref)
{
	const char *ns = ref_ns(ref), *name = ref_name(ref);
	if (strcmp(ns, w->ns) == 0 && strcmp(name, w->name) == 0)
		return true;
	const struct coll_entry *e = entry_find(w->st, ns, name);
	if (!e)
		return false;
	size_t k = (size_t)(e - w->st->v);
	if (w->seen[k])
		return false;
	w->seen[k] = true;
	return entry_reaches(w, e->root);
}

static bool entry_reaches(struct walk *w, const struct coll_node *n)
{
	if (n->type == COLL_REFERENCE)
		return ref_reaches(w, n);
	for (size_t i = 0; i < n->noperands; i++)
		if (entry_reaches(w, n->operands[i]))
			return true;
	return false;
}

/* Every reference in node must name an existing collection that does not
 * lead back to ns/name. */
static int refs_check(const struct coll_store *st, const char *ns, const char *name,
		      const struct coll_node *n, struct crate_err *err)
{
	if (n->type == COLL_REFERENCE) {
		const char *rns = ref_ns(n), *rname = ref_name(n);
		if (!ns_known(rns))
			return crate_err_set(err, CRATE_ERR_INVALID,
					     "%s/%s: a reference names the unknown namespace '%s'",
					     ns, name, rns);
		if (is_all_media(rns, rname))
			return 0;
		if (strcmp(rns, ns) == 0 && strcmp(rname, name) == 0)
			return crate_err_set(err, CRATE_ERR_REFUSED,
					     "%s/%s cannot refer to itself", ns, name);
		if (!entry_find(st, rns, rname))
			return crate_err_set(err, CRATE_ERR_NOTFOUND,
					     "%s/%s refers to %s/%s, which does not exist", ns,
					     name, rns, rname);
		struct walk w = {st, ns, name, xcalloc(st->n + 1, sizeof(bool))};
		bool cycle = ref_reaches(&w, n);
		free(w.seen);
		if (cycle)
			return crate_err_set(err, CRATE_ERR_REFUSED,
					     "saving %s/%s would make a cycle: %s/%s refers back "
					     "to it",
					     ns, name, rns, rname);
		return 0;
	}
	for (size_t i = 0; i < n->noperands; i++)
		if (refs_check(st, ns, name, n->operands[i], err) != 0)
			return -1;
	return 0;
}

/* ---- SQLite ---- */

static int db_fail(struct coll_store *st, const char *what, struct crate_err *err)
{
	return mlib_db_error(st->db, what, err);
}

/* Run one statement with texts bound to ?1..?nargs; what names the action
 * in an error. */
static int db_run(struct coll_store *st, const char *sql, const char *const *args, int nargs,
		  const char *what, struct crate_err *err)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(mlib_db_sqlite(st->db), sql, -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, what, err);
	for (int i = 0; i < nargs; i++)
		sqlite3_bind_text(s, i + 1, args[i], -1, SQLITE_STATIC);
	return mlib_db_finish(st->db, s, sqlite3_step(s), what, err);
}

/* Empty every idlist of a tree the caller owns alone (a fresh copy). */
static void idlists_clear(struct coll_node *n)
{
	n->idlist.n = 0;
	for (size_t i = 0; i < n->noperands; i++)
		idlists_clear(n->operands[i]);
}

/* Refuse to store what could not be read back (the next start would
 * have to skip it): too deep a tree, or any JSON the loader refuses. A
 * plain list (no operands) always reads back; its check would cost a
 * parse of every entry on each playlist edit. */
static int check_loadable(struct coll_store *st, const char *ns, const char *name,
			  const struct coll_node *root, struct crate_err *err)
{
	if (coll_node_depth(root, COLL_MAX_DEPTH) > COLL_MAX_DEPTH)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "%s/%s: nesting deeper than %d levels could not be read back; "
				     "not saved", ns, name, COLL_MAX_DEPTH);
	if (root->noperands == 0)
		return 0;
	/* The structure is what can fail to load (operand counts, references,
	 * types), never the entries of an idlist: read back a skeleton without
	 * them, so a save costs no parse of thousands of numbers. */
	struct coll_node *skel = coll_node_copy(root); /* deep: nothing shared */
	idlists_clear(skel);
	char *sjson = coll_to_json(skel, false);
	coll_node_unref(skel);
	struct crate_err lerr = {0};
	struct coll_node *back =
		coll_from_json_db(mlib_db_sqlite(st->db), sjson, strlen(sjson), &lerr);
	free(sjson);
	if (!back)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "%s/%s could not be read back (%s); not saved", ns, name,
				     lerr.msg);
	coll_node_unref(back);
	return 0;
}

static int db_put(struct coll_store *st, const char *ns, const char *name,
		  const struct coll_node *root, struct crate_err *err)
{
	if (check_loadable(st, ns, name, root, err) != 0)
		return -1;
	char *json = coll_to_json(root, false);
	const char *args[] = {ns, name, json};
	/* A new collection starts without levels: a row left by an older
	 * crate that removed a collection of this name is not inherited
	 * (saving over an existing one keeps its levels). */
	int rc = st->no_levels ? 0
		 : db_run(st, "DELETE FROM coll_levels WHERE ns = ?1 AND name = ?2 AND NOT EXISTS "
			      "(SELECT 1 FROM coll_saved WHERE ns = ?1 AND name = ?2)",
			  args, 2, "cannot save a collection", err);
	if (rc == 0)
		rc = db_run(st, "INSERT OR REPLACE INTO coll_saved(ns, name, json) VALUES (?1, ?2, ?3)",
			    args, 3, "cannot save a collection", err);
	free(json);
	return rc;
}

static int db_delete(struct coll_store *st, const char *ns, const char *name,
		     struct crate_err *err)
{
	const char *args[] = {ns, name};
	return db_run(st, "DELETE FROM coll_saved WHERE ns = ?1 AND name = ?2", args, 2,
		      "cannot remove a collection", err);
}

/* A collection's levels go with it (no row when it has none). */
static int db_levels_delete(struct coll_store *st, const char *ns, const char *name,
			    struct crate_err *err)
{
	const char *args[] = {ns, name};
	if (st->no_levels)
		return 0;
	return db_run(st, "DELETE FROM coll_levels WHERE ns = ?1 AND name = ?2", args, 2,
		      "cannot remove a collection's levels", err);
}

static int db_levels_rename(struct coll_store *st, const char *ns, const char *old_name,
			    const char *new_name, struct crate_err *err)
{
	const char *args[] = {ns, old_name, new_name};
	if (st->no_levels)
		return 0;
	return db_run(st, "UPDATE OR REPLACE coll_levels SET name = ?3 WHERE ns = ?1 AND name = ?2", args, 3,
		      "cannot rename a collection's levels", err);
}

static int db_set_setting(struct coll_store *st, const char *key, const char *value,
			  struct crate_err *err)
{
	const char *args[] = {key, value};
	return db_run(st, "INSERT OR REPLACE INTO coll_setting(key, value) VALUES (?1, ?2)", args,
		      2, "cannot store a setting", err);
}

/* ---- in-memory changes (after the transaction committed) ---- */

static void entry_set_root(struct coll_entry *e, struct coll_node *root)
{
	coll_node_ref(root);
	coll_node_unref(e->root);
	e->root = root;
}

static void entry_add(struct coll_store *st, const char *ns, const char *name,
		      struct coll_node *root)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 16;
		st->v = xreallocarray(st->v, st->cap, sizeof *st->v);
	}
	st->v[st->n].ns = xstrdup(ns);
	st->v[st->n].name = xstrdup(name);
	st->v[st->n].root = coll_node_ref(root);
	st->n++;
}

static void entry_drop(struct coll_store *st, struct coll_entry *e)
{
	free(e->ns);
	free(e->name);
	coll_node_unref(e->root);
	size_t k = (size_t)(e - st->v);
	memmove(st->v + k, st->v + k + 1, (st->n - k - 1) * sizeof *st->v);
	st->n--;
}

/* Make name the active playlist's name (in memory). */
static void active_set(struct coll_store *st, const char *name)
{
	if (st->active && strcmp(st->active, name) == 0)
		return;
	for (size_t i = 0; i < st->nkept; i++)
		if (strcmp(st->names_kept[i], name) == 0) {
			st->active = st->names_kept[i];
			return;
		}
	st->names_kept = xreallocarray(st->names_kept, st->nkept + 1, sizeof *st->names_kept);
	st->active = st->names_kept[st->nkept++] = xstrdup(name);
}

/* ---- open / free ---- */

static void entries_free(struct coll_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].ns);
		free(v[i].name);
		coll_node_unref(v[i].root);
	}
	free(v);
}

/* Read every row into st (empty before). Where old holds an equal root
 * under the same name, that root is kept, so pointers callers borrowed stay
 * valid for collections that did not change. */
static void bad_rows_free(struct coll_bad_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].ns);
		free(v[i].name);
		free(v[i].why);
	}
	free(v);
}

/* Remember a row load_rows skips; why is taken over (owned). */
static void bad_row_add(struct coll_store *st, const char *ns, const char *name, char *why)
{
	st->bad = xreallocarray(st->bad, st->nbad + 1, sizeof *st->bad);
	st->bad[st->nbad].ns = xstrdup(ns ? ns : "");
	st->bad[st->nbad].name = xstrdup(name ? name : "");
	st->bad[st->nbad].why = why;
	st->nbad++;
}

static int load_rows(struct coll_store *st, const struct coll_entry *old, size_t nold,
		     struct crate_err *err)
{
	sqlite3 *db = mlib_db_sqlite(st->db);
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db, "SELECT ns, name, json FROM coll_saved", -1, &s, NULL) !=
	    SQLITE_OK)
		return db_fail(st, "cannot read saved collections", err);
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *ns = (const char *)sqlite3_column_text(s, 0);
		const char *name = (const char *)sqlite3_column_text(s, 1);
		const char *json = (const char *)sqlite3_column_text(s, 2);
		/* One unreadable row must not take the rest of the library
		 * down with it: skip it, and say so (coll_store_unreadable). */
		struct crate_err rerr = {0};
		struct coll_node *root = NULL;
		if (!ns || !name || !json)
			crate_err_set(&rerr, CRATE_ERR_INVALID, "a column is NULL");
		else if (name_check(ns, name, &rerr) == 0)
			root = coll_from_json_db(db, json, (size_t)sqlite3_column_bytes(s, 2), &rerr);
		if (!root) {
			char *sns = utf8_sanitize(ns ? ns : "", ns ? strlen(ns) : 0);
			char *sname = utf8_sanitize(name ? name : "", name ? strlen(name) : 0);
			bad_row_add(st, ns, name,
				    xasprintf("%s: saved collection %s/%s cannot be read (skipped; "
					      "'crate coll remove' deletes it): %s",
					      mlib_db_path(st->db), sns, sname, rerr.msg));
			free(sns);
			free(sname);
			continue;
		}
		for (size_t i = 0; i < nold; i++) {
			if (strcmp(old[i].name, name) == 0 && strcmp(old[i].ns, ns) == 0) {
				if (coll_node_equal(old[i].root, root)) {
					coll_node_unref(root);
					root = coll_node_ref(old[i].root);
				}
				break;
			}
		}
		entry_add(st, ns, name, root);
		coll_node_unref(root);
	}
	return mlib_db_finish(st->db, s, rc, "cannot read saved collections", err);
}

/* The stored active playlist's name (owned), NULL when unset. */
static int read_active(struct coll_store *st, char **out, struct crate_err *err)
{
	*out = NULL;
	sqlite3 *db = mlib_db_sqlite(st->db);
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db, "SELECT value FROM coll_setting WHERE key = 'active_playlist'",
			       -1, &s, NULL) != SQLITE_OK)
		return db_fail(st, "cannot read the active playlist", err);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		*out = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return 0;
}

static int read_data_version(struct coll_store *st, int64_t *out, struct crate_err *err)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(mlib_db_sqlite(st->db), "PRAGMA data_version", -1, &s, NULL) !=
	    SQLITE_OK)
		return db_fail(st, "cannot read the data version", err);
	int rc = sqlite3_step(s);
	*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : db_fail(st, "cannot read the data version", err);
}

/* Reload from the file if another connection committed since we looked. */
static int store_sync(struct coll_store *st, bool *changed, struct crate_err *err)
{
	int64_t v;
	if (changed)
		*changed = false;
	if (st->detached)
		return 0;
	if (read_data_version(st, &v, err) != 0)
		return -1;
	if (v == st->data_version)
		return 0;
	struct coll_entry *ov = st->v;
	size_t on = st->n, ocap = st->cap;
	struct coll_bad_row *obad = st->bad;
	size_t onbad = st->nbad;
	st->v = NULL;
	st->n = st->cap = 0;
	st->bad = NULL;
	st->nbad = 0;
	char *active = NULL;
	if (load_rows(st, ov, on, err) != 0 || read_active(st, &active, err) != 0) {
		entries_free(st->v, st->n);
		bad_rows_free(st->bad, st->nbad);
		st->v = ov;
		st->n = on;
		st->cap = ocap;
		st->bad = obad;
		st->nbad = onbad;
		return -1;
	}
	entries_free(ov, on);
	bad_rows_free(obad, onbad);
	if (active && entry_find(st, COLL_NS_PLAYLISTS, active))
		active_set(st, active);
	free(active);
	st->data_version = v;
	st->generation++;
	if (changed)
		*changed = true;
	return 0;
}

int coll_store_refresh(struct coll_store *st, bool *changed, struct crate_err *err)
{
	return store_sync(st, changed, err);
}

/* Start a write: take the write lock, then catch up with other writers, so
 * checks and edits below see the file as it is. */
static int tx_begin(struct coll_store *st, struct crate_err *err)
{
	if (mlib_db_begin(st->db, err) != 0)
		return -1;
	if (store_sync(st, NULL, err) != 0) {
		mlib_db_rollback(st->db, NULL);
		return -1;
	}
	return 0;
}

static int load_active(struct coll_store *st, struct crate_err *err)
{
	char *stored;
	if (read_active(st, &stored, err) != 0)
		return -1;
	bool usable = stored && entry_find(st, COLL_NS_PLAYLISTS, stored);
	active_set(st, usable ? stored : DEFAULT_PLAYLIST);
	free(stored);
	if (usable)
		return 0;
	/* The setting names nothing usable (edited by hand?): fall back to
	 * Default, recreating it if it is gone. */
	if (mlib_db_readonly(st->db))
		return 0;
	bool need_default = !entry_find(st, COLL_NS_PLAYLISTS, DEFAULT_PLAYLIST);
	struct coll_node *empty = coll_node_new(COLL_IDLIST);
	int rc = -1;
	if (mlib_db_begin(st->db, err) != 0)
		goto out;
	if ((need_default && db_put(st, COLL_NS_PLAYLISTS, DEFAULT_PLAYLIST, empty, err) != 0) ||
	    db_set_setting(st, "active_playlist", DEFAULT_PLAYLIST, err) != 0 ||
	    mlib_db_commit(st->db, err) != 0) {
		mlib_db_rollback(st->db, NULL);
		goto out;
	}
	if (need_default)
		entry_add(st, COLL_NS_PLAYLISTS, DEFAULT_PLAYLIST, empty);
	rc = 0;
out:
	coll_node_unref(empty);
	return rc;
}

int coll_store_open(struct mlib_db *db, struct coll_store **out, struct crate_err *err)
{
	*out = NULL;
	struct coll_store *st = xcalloc(1, sizeof *st);
	st->db = db;
	st->universe = coll_node_new(COLL_UNIVERSE);
	if (mlib_db_readonly(db) && mlib_db_version(db, "collections", NULL) == 0) {
		/* A read-only library that never had collections: show the empty
		 * Default playlist; changes fail with the database's error. */
		struct coll_node *empty = coll_node_new(COLL_IDLIST);
		entry_add(st, COLL_NS_PLAYLISTS, DEFAULT_PLAYLIST, empty);
		coll_node_unref(empty);
		active_set(st, DEFAULT_PLAYLIST);
		st->detached = true;
		*out = st;
		return 0;
	}
	/* A read-only file from before the levels opens as it is: it has none. */
	int have = mlib_db_readonly(db) ? mlib_db_version(db, "collections", NULL) : 0;
	st->no_levels = have > 0 && have < SCHEMA_STEPS;
	if ((!st->no_levels && mlib_db_migrate(db, "collections", schema_steps, SCHEMA_STEPS, err) != 0) ||
	    read_data_version(st, &st->data_version, err) != 0 || load_rows(st, NULL, 0, err) != 0 ||
	    load_active(st, err) != 0) {
		coll_store_free(st);
		return -1;
	}
	*out = st;
	return 0;
}

void coll_store_free(struct coll_store *st)
{
	if (!st)
		return;
	entries_free(st->v, st->n);
	bad_rows_free(st->bad, st->nbad);
	for (size_t i = 0; i < st->nkept; i++)
		free(st->names_kept[i]);
	free(st->names_kept);
	coll_node_unref(st->universe);
	free(st);
}

/* ---- rewriting references ---- */

/* Produces the node that replaces a reference to the target. */
typedef struct coll_node *(*ref_replace_fn)(void *ud, const struct coll_node *ref);

/* n with every reference to ns/name replaced by replace(): a new tree
 * (owned), n untouched. Subtrees without such references are shared. */
static struct coll_node *tree_rewrite(struct coll_node *n, const char *ns, const char *name,
				      ref_replace_fn replace, void *ud)
{
	if (ref_is(n, ns, name))
		return replace(ud, n);
	if (!tree_refers(n, ns, name))
		return coll_node_ref(n);
	struct coll_node *c = coll_node_new(n->type);
	for (size_t i = 0; i < n->nattrs; i++)
		coll_attr_set(c, n->attrs[i].key, n->attrs[i].value);
	for (size_t i = 0; i < n->noperands; i++) {
		struct coll_node *op = tree_rewrite(n->operands[i], ns, name, replace, ud);
		coll_node_add_operand(c, op);
		coll_node_unref(op);
	}
	for (size_t i = 0; i < n->idlist.n; i++)
		u32vec_push(&c->idlist, n->idlist.v[i]);
	return c;
}

static struct coll_node *rename_ref(void *ud, const struct coll_node *ref)
{
	struct coll_node *c = coll_node_copy(ref);
	coll_attr_set(c, "reference", ud);
	return c;
}

static struct coll_node *inline_def(void *ud, const struct coll_node *ref)
{
	(void)ref;
	return coll_node_copy(ud);
}

/* ---- save / rename / remove ---- */

/* Checks that need no database. */
static int save_precheck(const char *ns, const char *name, const struct coll_node *node,
			 struct crate_err *err)
{
	if (name_check(ns, name, err) != 0)
		return -1;
	if (is_all_media(ns, name))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "'All Media' is built in and cannot be saved over");
	if (strcmp(ns, COLL_NS_PLAYLISTS) == 0 && !coll_type_is_list(node))
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "Playlists/%s: only lists can be saved in Playlists "
				     "(save queries in Collections)", name);
	return 0;
}

/* Inside a transaction: check references, write the row. */
static int save_in_tx(struct coll_store *st, const char *ns, const char *name,
		      const struct coll_node *node, struct crate_err *err)
{
	if (refs_check(st, ns, name, node, err) != 0)
		return -1;
	return db_put(st, ns, name, node, err);
}

/* After the commit. */
static void save_apply(struct coll_store *st, const char *ns, const char *name,
		       struct coll_node *node)
{
	struct coll_entry *e = entry_find(st, ns, name);
	if (e)
		entry_set_root(e, node);
	else
		entry_add(st, ns, name, node);
	st->generation++;
}

static int store_save(struct coll_store *st, const char *ns, const char *name,
		      struct coll_node *node, struct crate_err *err)
{
	if (save_precheck(ns, name, node, err) != 0 || tx_begin(st, err) != 0)
		return -1;
	if (save_in_tx(st, ns, name, node, err) != 0 || mlib_db_commit(st->db, err) != 0) {
		mlib_db_rollback(st->db, NULL);
		return -1;
	}
	save_apply(st, ns, name, node);
	return 0;
}

/* Roots (new, owned) for every saved collection that refers to ns/name,
 * rewritten by replace(); rewritten[i] NULL when entry i is unchanged. */
static struct coll_node **rewrite_referrers(struct coll_store *st, const char *ns,
					    const char *name, ref_replace_fn replace, void *ud,
					    size_t *count)
{
	struct coll_node **out = xcalloc(st->n + 1, sizeof *out);
	*count = 0;
	for (size_t i = 0; i < st->n; i++) {
		if (!tree_refers(st->v[i].root, ns, name))
			continue;
		out[i] = tree_rewrite(st->v[i].root, ns, name, replace, ud);
		(*count)++;
	}
	return out;
}

/* A playlist's `jumplist` names another playlist: a rename follows it like
 * a reference. Edits rw (as rewrite_referrers fills it). */
static void jumplists_rename(struct coll_store *st, struct coll_node **rw, const char *old_name,
			     const char *new_name)
{
	for (size_t i = 0; i < st->n; i++) {
		if (strcmp(st->v[i].ns, COLL_NS_PLAYLISTS) != 0)
			continue;
		const char *j = coll_attr_get(rw[i] ? rw[i] : st->v[i].root, "jumplist");
		if (!j || strcmp(j, old_name) != 0)
			continue;
		if (!rw[i])
			rw[i] = coll_node_copy(st->v[i].root);
		coll_attr_set(rw[i], "jumplist", new_name);
	}
}

static void rewritten_free(struct coll_node **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		coll_node_unref(v[i]);
	free(v);
}

static int store_rename(struct coll_store *st, const char *ns, const char *old_name,
			const char *new_name, struct crate_err *err)
{
	if (name_check(ns, old_name, err) != 0 || name_check(ns, new_name, err) != 0)
		return -1;
	if (is_all_media(ns, old_name))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "'All Media' is built in and cannot be renamed");
	if (is_all_media(ns, new_name))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "'All Media' is built in: %s/%s cannot take its name", ns, old_name);
	if (tx_begin(st, err) != 0)
		return -1;
	struct coll_node **rw = NULL;
	size_t n = st->n, count;
	struct coll_entry *e = entry_find(st, ns, old_name);
	if (!e) {
		crate_err_set(err, CRATE_ERR_NOTFOUND, "%s/%s does not exist", ns, old_name);
		goto rollback;
	}
	if (strcmp(old_name, new_name) == 0) {
		mlib_db_rollback(st->db, NULL);
		return 0;
	}
	if (entry_find(st, ns, new_name)) {
		crate_err_set(err, CRATE_ERR_EXISTS, "%s/%s already exists", ns, new_name);
		goto rollback;
	}
	rw = rewrite_referrers(st, ns, old_name, rename_ref, (void *)new_name, &count);
	if (strcmp(ns, COLL_NS_PLAYLISTS) == 0)
		jumplists_rename(st, rw, old_name, new_name);
	size_t ei = (size_t)(e - st->v);
	bool active = strcmp(ns, COLL_NS_PLAYLISTS) == 0 && strcmp(st->active, old_name) == 0;
	if (db_delete(st, ns, old_name, err) != 0 ||
	    db_put(st, ns, new_name, rw[ei] ? rw[ei] : e->root, err) != 0 ||
	    db_levels_rename(st, ns, old_name, new_name, err) != 0)
		goto rollback;
	for (size_t i = 0; i < n; i++)
		if (rw[i] && &st->v[i] != e &&
		    db_put(st, st->v[i].ns, st->v[i].name, rw[i], err) != 0)
			goto rollback;
	if (active && db_set_setting(st, "active_playlist", new_name, err) != 0)
		goto rollback;
	if (mlib_db_commit(st->db, err) != 0)
		goto rollback;
	for (size_t i = 0; i < n; i++)
		if (rw[i])
			entry_set_root(&st->v[i], rw[i]);
	free(e->name);
	e->name = xstrdup(new_name);
	if (active)
		active_set(st, new_name);
	rewritten_free(rw, n);
	st->generation++;
	return 0;
rollback:
	mlib_db_rollback(st->db, NULL);
	if (rw)
		rewritten_free(rw, n);
	return -1;
}

static int bad_row_find(const struct coll_store *st, const char *ns, const char *name)
{
	for (size_t i = 0; i < st->nbad; i++)
		if (strcmp(st->bad[i].ns, ns) == 0 && strcmp(st->bad[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Inside the transaction tx_begin opened: delete an unreadable row. */
static int remove_bad_row(struct coll_store *st, const char *ns, const char *name,
			  struct crate_err *err)
{
	if (db_delete(st, ns, name, err) != 0 || db_levels_delete(st, ns, name, err) != 0 ||
	    mlib_db_commit(st->db, err) != 0) {
		mlib_db_rollback(st->db, NULL);
		return -1;
	}
	int i = bad_row_find(st, ns, name);
	if (i >= 0) {
		free(st->bad[i].ns);
		free(st->bad[i].name);
		free(st->bad[i].why);
		st->bad[i] = st->bad[--st->nbad];
	}
	st->generation++;
	return 0;
}

static int store_remove(struct coll_store *st, const char *ns, const char *name, bool force,
			struct crate_err *err)
{
	if (name_check(ns, name, err) != 0)
		return -1;
	if (is_all_media(ns, name))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "'All Media' is built in and cannot be removed");
	if (tx_begin(st, err) != 0)
		return -1;
	struct coll_node **rw = NULL;
	size_t n = st->n, count;
	struct coll_entry *e = entry_find(st, ns, name);
	if (!e && bad_row_find(st, ns, name) >= 0)
		return remove_bad_row(st, ns, name, err);
	if (!e) {
		crate_err_set(err, CRATE_ERR_NOTFOUND, "%s/%s does not exist", ns, name);
		goto rollback;
	}
	if (strcmp(ns, COLL_NS_PLAYLISTS) == 0 && strcmp(st->active, name) == 0) {
		crate_err_set(err, CRATE_ERR_REFUSED,
			      "Playlists/%s is the active playlist and cannot be removed "
			      "(switch to another first)", name);
		goto rollback;
	}
	rw = rewrite_referrers(st, ns, name, inline_def, e->root, &count);
	for (size_t i = 0; i < n; i++)
		if (rw[i] && coll_node_depth(rw[i], COLL_MAX_DEPTH) > COLL_MAX_DEPTH) {
			crate_err_set(err, CRATE_ERR_REFUSED,
				      "removing %s/%s would make %s/%s, with a copy of it, nest deeper "
				      "than %d levels", ns, name, st->v[i].ns, st->v[i].name,
				      COLL_MAX_DEPTH);
			goto rollback;
		}
	if (count && !force) {
		struct strbuf b;
		strbuf_init(&b, 128);
		for (size_t i = 0; i < n; i++)
			if (rw[i])
				strbuf_addf(&b, "%s%s/%s", b.len ? ", " : "", st->v[i].ns,
					    st->v[i].name);
		crate_err_set(err, CRATE_ERR_REFUSED,
			      "%s/%s is used by %s (remove those first, or force: each use is "
			      "replaced by a copy)", ns, name, b.buf);
		strbuf_free(&b);
		goto rollback;
	}
	if (db_delete(st, ns, name, err) != 0 || db_levels_delete(st, ns, name, err) != 0)
		goto rollback;
	for (size_t i = 0; i < n; i++)
		if (rw[i] && db_put(st, st->v[i].ns, st->v[i].name, rw[i], err) != 0)
			goto rollback;
	if (mlib_db_commit(st->db, err) != 0)
		goto rollback;
	for (size_t i = 0; i < n; i++)
		if (rw[i])
			entry_set_root(&st->v[i], rw[i]);
	rewritten_free(rw, n);
	entry_drop(st, e);
	st->generation++;
	return 0;
rollback:
	mlib_db_rollback(st->db, NULL);
	if (rw)
		rewritten_free(rw, n);
	return -1;
}

/* ---- arguments borrowed from the store ----
 * A write first catches up with other processes (store_sync), which frees
 * what changed: the caller's name or root may be one the store handed out
 * (the active name, a string or id array inside a root). Each public
 * writer therefore works on its own copies. */

static char *arg_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

int coll_store_save(struct coll_store *st, const char *ns, const char *name,
		    struct coll_node *node, struct crate_err *err)
{
	char *n = arg_dup(ns), *m = arg_dup(name);
	coll_node_ref(node);
	int rc = store_save(st, n, m, node, err);
	coll_node_unref(node);
	free(n);
	free(m);
	return rc;
}

int coll_store_rename(struct coll_store *st, const char *ns, const char *old_name,
		      const char *new_name, struct crate_err *err)
{
	char *n = arg_dup(ns), *o = arg_dup(old_name), *m = arg_dup(new_name);
	int rc = store_rename(st, n, o, m, err);
	free(n);
	free(o);
	free(m);
	return rc;
}

int coll_store_remove(struct coll_store *st, const char *ns, const char *name, bool force,
		      struct crate_err *err)
{
	char *n = arg_dup(ns), *m = arg_dup(name);
	int rc = store_remove(st, n, m, force, err);
	free(n);
	free(m);
	return rc;
}

/* ---- browser levels ---- */

int coll_store_levels_get(struct coll_store *st, const char *ns, const char *name, char **out,
			  struct crate_err *err)
{
	*out = NULL;
	if (st->detached || st->no_levels)
		return 0;
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(mlib_db_sqlite(st->db),
			       "SELECT levels FROM coll_levels WHERE ns = ?1 AND name = ?2", -1, &s,
			       NULL) != SQLITE_OK)
		return db_fail(st, "cannot read a collection's levels", err);
	sqlite3_bind_text(s, 1, ns, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_text(s, 0))
		*out = xstrdup((const char *)sqlite3_column_text(s, 0));
	return mlib_db_finish(st->db, s, rc == SQLITE_ROW ? SQLITE_DONE : rc,
			      "cannot read a collection's levels", err);
}

static int levels_set(struct coll_store *st, const char *ns, const char *name, const char *levels,
		      struct crate_err *err)
{
	if (name_check(ns, name, err) != 0)
		return -1;
	if (is_all_media(ns, name))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "All Media's levels are the option browser.levels (:set)");
	if (st->no_levels)
		return crate_err_set(err, CRATE_ERR_DB,
				     "the database is read-only and from before collection levels");
	if (tx_begin(st, err) != 0)
		return -1;
	int rc;
	if (!entry_find(st, ns, name)) {
		rc = crate_err_set(err, CRATE_ERR_NOTFOUND, "%s/%s does not exist", ns, name);
	} else if (!levels || !*levels) {
		rc = db_levels_delete(st, ns, name, err);
	} else {
		const char *args[] = {ns, name, levels};
		rc = db_run(st, "INSERT OR REPLACE INTO coll_levels(ns, name, levels) VALUES (?1, ?2, ?3)",
			    args, 3, "cannot store a collection's levels", err);
	}
	if (rc != 0 || mlib_db_commit(st->db, err) != 0) {
		mlib_db_rollback(st->db, NULL);
		return -1;
	}
	st->generation++;
	return 0;
}

int coll_store_levels_set(struct coll_store *st, const char *ns, const char *name,
			  const char *levels, struct crate_err *err)
{
	char *n = arg_dup(ns), *m = arg_dup(name), *l = arg_dup(levels);
	int rc = levels_set(st, n, m, l, err);
	free(n);
	free(m);
	free(l);
	return rc;
}

/* ---- listing ---- */

size_t coll_store_unreadable(const struct coll_store *st, size_t i, const char **ns,
			     const char **name, const char **why)
{
	if (i < st->nbad) {
		if (ns)
			*ns = st->bad[i].ns;
		if (name)
			*name = st->bad[i].name;
		if (why)
			*why = st->bad[i].why;
	}
	return st->nbad;
}

struct sort_key {
	char *folded, *name;
};

static int sort_key_cmp(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	int c = str_natcmp(x->folded, y->folded);
	return c ? c : strcmp(x->name, y->name);
}

size_t coll_store_list(const struct coll_store *st, const char *ns, char ***names)
{
	struct sort_key *keys = xcalloc(st->n + 1, sizeof *keys);
	size_t k = 0;
	for (size_t i = 0; i < st->n; i++) {
		if (strcmp(st->v[i].ns, ns) != 0)
			continue;
		keys[k].name = xstrdup(st->v[i].name);
		keys[k].folded = utf8_fold(keys[k].name, strlen(keys[k].name), NULL);
		k++;
	}
	qsort(keys, k, sizeof *keys, sort_key_cmp);
	char **out = xcalloc(k + 1, sizeof *out);
	for (size_t i = 0; i < k; i++) {
		out[i] = keys[i].name;
		free(keys[i].folded);
	}
	free(keys);
	*names = out;
	return k;
}

/* ---- the active playlist ---- */

const char *coll_store_active_playlist(const struct coll_store *st)
{
	return st->active;
}

static int store_set_active(struct coll_store *st, const char *name, struct crate_err *err)
{
	if (tx_begin(st, err) != 0)
		return -1;
	if (!entry_find(st, COLL_NS_PLAYLISTS, name)) {
		mlib_db_rollback(st->db, NULL);
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "Playlists/%s does not exist", name);
	}
	if (db_set_setting(st, "active_playlist", name, err) != 0 ||
	    mlib_db_commit(st->db, err) != 0) {
		mlib_db_rollback(st->db, NULL);
		return -1;
	}
	active_set(st, name);
	st->generation++;
	return 0;
}

int coll_store_set_active_playlist(struct coll_store *st, const char *name,
				   struct crate_err *err)
{
	char *m = arg_dup(name);
	int rc = store_set_active(st, m, err);
	free(m);
	return rc;
}

/* ---- playlist edits ---- */

/* The "position" attribute (the current entry), -1 when unset or bad. */
static long node_position(const struct coll_node *n)
{
	const char *p = coll_attr_get(n, "position");
	int64_t v;
	if (!p || !str_parse_int64(p, strlen(p), &v) || v < 0 || v > UINT32_MAX)
		return -1;
	return (long)v;
}

static int store_playlist_edit(struct coll_store *st, const char *name, coll_store_edit_fn fn,
			       void *ud, const char *undo_label, struct crate_err *err)
{
	if (tx_begin(st, err) != 0)
		return -1;
	const struct coll_entry *e = entry_find(st, COLL_NS_PLAYLISTS, name);
	if (!e) {
		mlib_db_rollback(st->db, NULL);
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "Playlists/%s does not exist", name);
	}
	/* Edit a private copy of the current list, so a failure leaves the
	 * saved one as it was, in memory and on disk. */
	struct coll_node *c = coll_node_copy(e->root);
	int rc = fn(ud, c, err);
	if (rc > 0) { /* nothing to change */
		mlib_db_rollback(st->db, NULL);
		coll_node_unref(c);
		return 0;
	}
	if (rc < 0 || save_precheck(COLL_NS_PLAYLISTS, name, c, err) != 0 ||
	    save_in_tx(st, COLL_NS_PLAYLISTS, name, c, err) != 0 ||
	    (undo_label && playlist_undo_push(mlib_db_sqlite(st->db), name, undo_label,
					      &e->root->idlist, node_position(e->root),
					      &c->idlist, node_position(c), err) != 0) ||
	    mlib_db_commit(st->db, err) != 0) {
		mlib_db_rollback(st->db, NULL);
		coll_node_unref(c);
		return -1;
	}
	save_apply(st, COLL_NS_PLAYLISTS, name, c);
	coll_node_unref(c);
	return 0;
}

int coll_store_playlist_edit(struct coll_store *st, const char *name, coll_store_edit_fn fn,
			     void *ud, struct crate_err *err)
{
	char *m = arg_dup(name);
	int rc = store_playlist_edit(st, m, fn, ud, NULL, err);
	free(m);
	return rc;
}

int coll_store_playlist_edit_undoable(struct coll_store *st, const char *name, const char *label,
				      coll_store_edit_fn fn, void *ud, struct crate_err *err)
{
	/* label is the caller's own text, read after fn (which may write it):
	 * not copied before like name. */
	char *m = arg_dup(name);
	int rc = store_playlist_edit(st, m, fn, ud, label, err);
	free(m);
	return rc;
}

/* Inside the transaction: put u's "before" back into Playlists/u->name,
 * when the list is still what the edit left. 0 done, 1 refused (*err
 * says why), -1 failed. */
static int undo_apply(struct coll_store *st, const struct playlist_undo *u, struct coll_node **out,
		      struct crate_err *err)
{
	const struct coll_entry *e = entry_find(st, COLL_NS_PLAYLISTS, u->name);
	if (!e || !coll_type_is_list(e->root)) {
		crate_err_set(err, CRATE_ERR_REFUSED,
			      "cannot undo the %s: Playlists/%s no longer exists", u->label, u->name);
		return 1;
	}
	const struct u32vec *now = &e->root->idlist;
	if (now->n != u->after.n ||
	    (now->n && memcmp(now->v, u->after.v, now->n * sizeof *now->v) != 0)) {
		crate_err_set(err, CRATE_ERR_REFUSED,
			      "cannot undo the %s: Playlists/%s was changed since "
			      "(by another process or command); left as it is",
			      u->label, u->name);
		return 1;
	}
	struct coll_node *c = coll_node_copy(e->root);
	c->idlist.n = 0;
	u32vec_reserve(&c->idlist, u->before.n ? u->before.n : 1);
	if (u->before.n)
		memcpy(c->idlist.v, u->before.v, u->before.n * sizeof *c->idlist.v);
	c->idlist.n = u->before.n;
	/* The current entry goes back only if playing did not move it since. */
	if (node_position(c) == u->after_pos) {
		if (u->before_pos >= 0) {
			char buf[32];
			snprintf(buf, sizeof buf, "%ld", u->before_pos);
			coll_attr_set(c, "position", buf);
		} else {
			coll_attr_remove(c, "position");
		}
	}
	if (save_in_tx(st, COLL_NS_PLAYLISTS, u->name, c, err) != 0) {
		coll_node_unref(c);
		return -1;
	}
	*out = c;
	return 0;
}

int coll_store_playlist_undo(struct coll_store *st, char **name, char **label,
			     struct crate_err *err)
{
	*name = *label = NULL;
	if (tx_begin(st, err) != 0)
		return -1;
	struct playlist_undo u;
	int found = playlist_undo_top(mlib_db_sqlite(st->db), &u, err);
	if (found <= 0) {
		mlib_db_rollback(st->db, NULL);
		return found < 0 ? -1
				 : crate_err_set(err, CRATE_ERR_NOTFOUND, "no playlist edit to undo");
	}
	struct coll_node *c = NULL;
	struct crate_err why = {0};
	int rc = undo_apply(st, &u, &c, &why);
	/* A refused undo can never apply (the list moved on): drop it, so
	 * that the next undo reaches the edit before it. */
	if (rc < 0 || playlist_undo_drop(mlib_db_sqlite(st->db), u.seq, err) != 0 ||
	    mlib_db_commit(st->db, err) != 0) {
		if (rc < 0)
			*err = why;
		mlib_db_rollback(st->db, NULL);
		if (c)
			coll_node_unref(c);
		playlist_undo_free(&u);
		return -1;
	}
	if (c) {
		save_apply(st, COLL_NS_PLAYLISTS, u.name, c);
		coll_node_unref(c);
	}
	*name = u.name;
	*label = u.label;
	u.name = u.label = NULL;
	playlist_undo_free(&u);
	if (rc > 0) {
		*err = why;
		return -1;
	}
	return 0;
}
