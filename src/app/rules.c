/* Collection rules (rules.h): the list, its table, matching, the settings
 * a rule gives and the rename/remove follow-ups (what happens when a track
 * plays: rules_play.c). */
#include "app/rules.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/rules_internal.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "medialib/db.h"
#include "play/gain.h"
#include "play/presets.h"

static const char *const schema[] = {
	"CREATE TABLE rules("
	" pos INTEGER PRIMARY KEY," /* 0-based order */
	" ns TEXT, name TEXT,"      /* a saved collection ... */
	" query TEXT,"              /* ... or a query */
	" eq TEXT,"                 /* preset name, NULL = none */
	" volume_db REAL NOT NULL DEFAULT 0,"
	" replaygain TEXT,"         /* NULL = default, off|track|album */
	" pshuffle INTEGER NOT NULL DEFAULT 1,"
	" CHECK ((name IS NULL) <> (query IS NULL)))",
};

static void entry_clear(struct rule_entry *e)
{
	rule_clear(&e->r);
	free(e->target);
	coll_node_unref(e->node);
	memset(e, 0, sizeof *e);
}

static void entry_set(struct rule_entry *e, const struct rule *r)
{
	memset(e, 0, sizeof *e);
	e->r.ns = r->ns ? xstrdup(r->ns) : NULL;
	e->r.name = r->name ? xstrdup(r->name) : NULL;
	e->r.query = r->query ? xstrdup(r->query) : NULL;
	e->r.eq = r->eq ? xstrdup(r->eq) : NULL;
	e->r.volume_db = r->volume_db;
	e->r.replaygain = r->replaygain;
	e->r.pshuffle = r->pshuffle;
	e->target = r->name ? xasprintf("%s/%s", r->ns, r->name) : xstrdup(r->query ? r->query : "");
}

void rule_clear(struct rule *r)
{
	free(r->ns);
	free(r->name);
	free(r->query);
	free(r->eq);
	memset(r, 0, sizeof *r);
}

int rule_rg_parse(const char *s)
{
	if (strcmp(s, "default") == 0)
		return RULE_RG_DEFAULT;
	int m = play_rg_mode_parse(s);
	return m < 0 ? -2 : m;
}

const char *rule_rg_name(int mode)
{
	return mode == RULE_RG_DEFAULT ? "default" : play_rg_mode_name((enum play_rg_mode)mode);
}

/* ---- the table ---- */

static int load(struct rules *rs, struct crate_err *err)
{
	sqlite3 *db = mlib_db_sqlite(rs->db);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT ns, name, query, eq, volume_db, replaygain, pshuffle "
			       "FROM rules ORDER BY pos", -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(rs->db, "reading rules", err);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rule r = {0};
		r.ns = (char *)sqlite3_column_text(st, 0);
		r.name = (char *)sqlite3_column_text(st, 1);
		r.query = (char *)sqlite3_column_text(st, 2);
		r.eq = (char *)sqlite3_column_text(st, 3);
		r.volume_db = sqlite3_column_double(st, 4);
		const char *rg = (const char *)sqlite3_column_text(st, 5);
		r.replaygain = rg ? rule_rg_parse(rg) : RULE_RG_DEFAULT;
		if (r.replaygain == -2)
			r.replaygain = RULE_RG_DEFAULT;
		r.pshuffle = sqlite3_column_int(st, 6) != 0;
		if (r.name && !r.ns)
			r.ns = COLL_NS_COLLECTIONS;
		rs->v = xreallocarray(rs->v, rs->n + 1, sizeof *rs->v);
		entry_set(&rs->v[rs->n++], &r);
	}
	return mlib_db_finish(rs->db, st, rc, "reading rules", err);
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Write the whole list in one transaction: lists are short, and a rewrite
 * keeps positions dense whatever the edit was. */
static int save(struct rules *rs, struct crate_err *err)
{
	if (mlib_db_begin(rs->db, err) != 0)
		return -1;
	sqlite3 *db = mlib_db_sqlite(rs->db);
	sqlite3_stmt *st = NULL;
	if (mlib_db_exec(rs->db, "DELETE FROM rules", err) != 0)
		goto fail;
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO rules(pos, ns, name, query, eq, volume_db, replaygain,"
			       " pshuffle) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
		mlib_db_error(rs->db, "saving rules", err);
		goto fail;
	}
	for (size_t i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->v[i].r;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		bind_text(st, 2, r->name ? r->ns : NULL);
		bind_text(st, 3, r->name);
		bind_text(st, 4, r->name ? NULL : r->query);
		bind_text(st, 5, r->eq);
		sqlite3_bind_double(st, 6, r->volume_db);
		bind_text(st, 7, r->replaygain == RULE_RG_DEFAULT ? NULL : rule_rg_name(r->replaygain));
		sqlite3_bind_int(st, 8, r->pshuffle);
		if (sqlite3_step(st) != SQLITE_DONE) {
			mlib_db_error(rs->db, "saving rules", err);
			goto fail;
		}
	}
	sqlite3_finalize(st);
	return mlib_db_commit(rs->db, err);
fail:
	sqlite3_finalize(st);
	mlib_db_rollback(rs->db, NULL);
	return -1;
}

int rules_open(struct mlib_db *db, struct rules **out, struct crate_err *err)
{
	if (mlib_db_migrate(db, "rules", schema, sizeof schema / sizeof *schema, err) != 0)
		return -1;
	struct rules *rs = xcalloc(1, sizeof *rs);
	rs->db = db;
	if (load(rs, err) != 0) {
		rules_free(rs);
		return -1;
	}
	*out = rs;
	return 0;
}

static bool str_same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool rule_same(const struct rule *a, const struct rule *b)
{
	return str_same(a->ns, b->ns) && str_same(a->name, b->name) &&
	       str_same(a->query, b->query) && str_same(a->eq, b->eq) &&
	       a->volume_db == b->volume_db && a->replaygain == b->replaygain &&
	       a->pshuffle == b->pshuffle;
}

int rules_reload(struct rules *rs, bool *changed, struct crate_err *err)
{
	*changed = false;
	struct rules fresh = {.db = rs->db};
	if (load(&fresh, err) != 0) {
		for (size_t i = 0; i < fresh.n; i++)
			entry_clear(&fresh.v[i]);
		free(fresh.v);
		return -1;
	}
	bool same = fresh.n == rs->n;
	for (size_t i = 0; same && i < rs->n; i++)
		same = rule_same(&fresh.v[i].r, &rs->v[i].r);
	struct rule_entry *drop = same ? fresh.v : rs->v;
	size_t ndrop = same ? fresh.n : rs->n;
	if (!same) {
		/* The playing track's rule stays marked if it is still there. */
		for (size_t i = 0; i < fresh.n; i++)
			fresh.v[i].playing = rs->active && strcmp(fresh.v[i].target, rs->active) == 0;
		rs->v = fresh.v;
		rs->n = fresh.n;
		rs->generation++;
		*changed = true;
	}
	for (size_t i = 0; i < ndrop; i++)
		entry_clear(&drop[i]);
	free(drop);
	return 0;
}

void rules_free(struct rules *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->n; i++)
		entry_clear(&rs->v[i]);
	free(rs->v);
	free(rs->active);
	rules_eq_chain_unref(rs->chain);
	free(rs);
}

size_t rules_count(const struct rules *rs)
{
	return rs->n;
}

unsigned rules_generation(const struct rules *rs)
{
	return rs->generation;
}

const struct rule *rules_get(const struct rules *rs, size_t i)
{
	return i < rs->n ? &rs->v[i].r : NULL;
}

const char *rules_target(const struct rules *rs, size_t i)
{
	return i < rs->n ? rs->v[i].target : NULL;
}

/* ---- edits: in memory first, then the table; undone when saving fails ---- */

static struct rule_entry *entries_copy(const struct rules *rs)
{
	struct rule_entry *v = xcalloc(rs->n ? rs->n : 1, sizeof *v);
	for (size_t i = 0; i < rs->n; i++) {
		entry_set(&v[i], &rs->v[i].r);
		v[i].playing = rs->v[i].playing;
	}
	return v;
}

static void entries_free(struct rule_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		entry_clear(&v[i]);
	free(v);
}

/* Persist; on failure put back the saved copy (taking ownership of it). */
static int commit_or_restore(struct rules *rs, struct rule_entry *old, size_t oldn,
			     struct crate_err *err)
{
	if (save(rs, err) == 0) {
		entries_free(old, oldn);
		rs->generation++;
		return 0;
	}
	entries_free(rs->v, rs->n);
	rs->v = old;
	rs->n = oldn;
	return -1;
}

static int rule_check(const struct rule *r, struct crate_err *err)
{
	if (!r->name == !r->query)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "a rule needs a collection name or a query");
	if (!isfinite(r->volume_db) || fabs(r->volume_db) > 24)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "volume offset %g dB is outside -24..24", r->volume_db);
	if (r->replaygain != RULE_RG_DEFAULT &&
	    (r->replaygain < PLAY_RG_OFF || r->replaygain > PLAY_RG_ALBUM))
		return crate_err_set(err, CRATE_ERR_INVALID, "unknown ReplayGain mode %d",
				     r->replaygain);
	return 0;
}

int rules_add(struct rules *rs, size_t at, const struct rule *r, struct crate_err *err)
{
	if (rule_check(r, err) != 0)
		return -1;
	if (at == SIZE_MAX)
		at = rs->n;
	if (at > rs->n)
		return crate_err_set(err, CRATE_ERR_INVALID, "position %zu is past the end (%zu %s)",
				     at + 1, rs->n, str_plural(rs->n, "rule", "rules"));
	size_t oldn = rs->n;
	struct rule_entry *old = entries_copy(rs);
	rs->v = xreallocarray(rs->v, rs->n + 1, sizeof *rs->v);
	memmove(rs->v + at + 1, rs->v + at, (rs->n - at) * sizeof *rs->v);
	entry_set(&rs->v[at], r);
	rs->n++;
	return commit_or_restore(rs, old, oldn, err);
}

static int bad_index(const struct rules *rs, size_t i, struct crate_err *err)
{
	return crate_err_set(err, CRATE_ERR_NOTFOUND, "there is no rule %zu (%zu %s)", i + 1,
			     rs->n, str_plural(rs->n, "rule", "rules"));
}

int rules_remove(struct rules *rs, size_t i, struct crate_err *err)
{
	if (i >= rs->n)
		return bad_index(rs, i, err);
	size_t oldn = rs->n;
	struct rule_entry *old = entries_copy(rs);
	entry_clear(&rs->v[i]);
	memmove(rs->v + i, rs->v + i + 1, (rs->n - i - 1) * sizeof *rs->v);
	rs->n--;
	return commit_or_restore(rs, old, oldn, err);
}

int rules_move(struct rules *rs, size_t from, size_t to, struct crate_err *err)
{
	if (from >= rs->n)
		return bad_index(rs, from, err);
	if (to >= rs->n)
		return bad_index(rs, to, err);
	if (from == to)
		return 0;
	size_t oldn = rs->n;
	struct rule_entry *old = entries_copy(rs);
	struct rule_entry e = rs->v[from];
	if (from < to)
		memmove(rs->v + from, rs->v + from + 1, (to - from) * sizeof *rs->v);
	else
		memmove(rs->v + to + 1, rs->v + to, (from - to) * sizeof *rs->v);
	rs->v[to] = e;
	return commit_or_restore(rs, old, oldn, err);
}

int rules_set(struct rules *rs, size_t i, const struct rule *r, struct crate_err *err)
{
	if (i >= rs->n)
		return bad_index(rs, i, err);
	if (rule_check(r, err) != 0)
		return -1;
	size_t oldn = rs->n;
	struct rule_entry *old = entries_copy(rs);
	/* r may point into rs->v[i] (rules_get): copy before clearing. */
	struct rule_entry ne;
	entry_set(&ne, r);
	ne.playing = rs->v[i].playing;
	entry_clear(&rs->v[i]);
	rs->v[i] = ne;
	return commit_or_restore(rs, old, oldn, err);
}

/* ---- parsing and describing, shared by the CLI and the interface ---- */

bool rule_volume_parse(const char *s, double *out)
{
	while (*s == ' ')
		s++;
	const char *num = *s == '+' ? s + 1 : s;
	size_t len = strlen(num);
	while (len && num[len - 1] == ' ')
		len--;
	if (len > 2 && (strncmp(num + len - 2, "dB", 2) == 0 || strncmp(num + len - 2, "db", 2) == 0))
		len -= 2;
	while (len && num[len - 1] == ' ')
		len--;
	double v;
	if (!len || !str_parse_number(num, len, &v) || !isfinite(v) || fabs(v) > 24)
		return false;
	*out = v;
	return true;
}

int rule_eq_set(struct rule *r, const struct config *cfg, const char *name,
		struct crate_err *err)
{
	if (!name || !*name || strcmp(name, "none") == 0) {
		free(r->eq);
		r->eq = NULL;
		return 0;
	}
	struct eq_settings s;
	if (eq_preset_get(cfg, name, &s, err) != 0)
		return -1;
	free(r->eq);
	r->eq = xstrdup(name);
	return 0;
}

enum rule_state rules_state(struct rules *rs, size_t i, struct coll_store *store,
			    const struct config *cfg, char *why, size_t whysize)
{
	if (whysize)
		why[0] = '\0';
	if (i >= rs->n) {
		snprintf(why, whysize, "there is no rule %zu", i + 1);
		return RULE_INACTIVE;
	}
	if (!store) {
		snprintf(why, whysize, "no collection store");
		return RULE_INACTIVE;
	}
	if (!rules_is_active(rs, i, store, why, whysize))
		return RULE_INACTIVE;
	const char *eq = rs->v[i].r.eq;
	if (eq) {
		struct eq_settings s;
		struct crate_err err = {0};
		if (eq_preset_get(cfg, eq, &s, &err) != 0) {
			snprintf(why, whysize, "%s", err.msg);
			return RULE_NO_EQ;
		}
	}
	return RULE_ACTIVE;
}

/* ---- targets and matching ---- */

static void rule_defaults(struct rule *out)
{
	memset(out, 0, sizeof *out);
	out->replaygain = RULE_RG_DEFAULT;
	out->pshuffle = true;
}

int rule_from_query(struct coll_store *store, const char *query, struct rule *out,
		    struct crate_err *err)
{
	rule_defaults(out);
	struct coll_parse_opts po = {.exists = coll_store_exists, .exists_ud = store};
	struct coll_node *n = coll_parse(query, strlen(query), &po, err);
	if (!n)
		return crate_err_prefix(err, "query '%s': ", query);
	coll_node_unref(n);
	out->query = xstrdup(query);
	return 0;
}

/* Words only: no field, comparison, wildcard or group, which as a query
 * would be a search for the words in every field. */
static bool bare_words(const char *s)
{
	return !strpbrk(s, ":<>=~*()");
}

int rule_from_target(struct coll_store *store, const char *target, struct rule *out,
		     struct crate_err *err)
{
	rule_defaults(out);
	char *ns = NULL, *name = NULL;
	if (coll_name_split(target, &ns, &name, NULL) == 0 && coll_store_exists(store, ns, name)) {
		out->ns = ns;
		out->name = name;
		return 0;
	}
	free(ns);
	free(name);
	if (bare_words(target))
		return crate_err_set(err, CRATE_ERR_NOTFOUND,
				     "'%s' names no collection; use --query to mean a search",
				     target);
	struct coll_parse_opts po = {.exists = coll_store_exists, .exists_ud = store};
	struct coll_node *n = coll_parse(target, strlen(target), &po, err);
	if (!n)
		return crate_err_prefix(err, "'%s' is no saved collection, and as a query: ", target);
	coll_node_unref(n);
	out->query = xstrdup(target);
	return 0;
}

static struct coll_node *reference_new(const char *ns, const char *name)
{
	struct coll_node *n = coll_node_new(COLL_REFERENCE);
	coll_attr_set(n, "namespace", ns);
	coll_attr_set(n, "reference", name);
	return n;
}

/* The rule's collection as a node (borrowed), parsed once; NULL with
 * e->why when the query does not parse. */
static struct coll_node *entry_node(struct rule_entry *e)
{
	if (e->parsed)
		return e->node;
	e->parsed = true;
	if (e->r.name) {
		e->node = reference_new(e->r.ns, e->r.name);
	} else {
		struct crate_err err = {0};
		struct coll_parse_opts po = {0};
		e->node = coll_parse(e->r.query, strlen(e->r.query), &po, &err);
		if (!e->node)
			snprintf(e->why, sizeof e->why, "query: %s", err.msg);
	}
	return e->node;
}

/* First reference in n to a collection that does not exist, or NULL. */
static const struct coll_node *missing_ref(const struct coll_node *n, struct coll_store *store)
{
	if (n->type == COLL_REFERENCE) {
		const char *ns = coll_attr_get(n, "namespace"), *name = coll_attr_get(n, "reference");
		if (!coll_store_exists(store, ns ? ns : COLL_NS_COLLECTIONS, name ? name : ""))
			return n;
	}
	for (size_t i = 0; i < n->noperands; i++) {
		const struct coll_node *m = missing_ref(n->operands[i], store);
		if (m)
			return m;
	}
	return NULL;
}

bool rules_is_active(struct rules *rs, size_t i, struct coll_store *store, char *why,
		     size_t whysize)
{
	if (i >= rs->n)
		return false;
	struct rule_entry *e = &rs->v[i];
	const struct coll_node *n = entry_node(e);
	if (!n) {
		snprintf(why, whysize, "%s", e->why);
		return false;
	}
	const struct coll_node *m = missing_ref(n, store);
	if (m) {
		const char *ns = coll_attr_get(m, "namespace"), *name = coll_attr_get(m, "reference");
		snprintf(why, whysize, "collection '%s/%s' was removed",
			 ns ? ns : COLL_NS_COLLECTIONS, name ? name : "");
		return false;
	}
	if (whysize)
		why[0] = '\0';
	return true;
}

int rules_match(struct rules *rs, const struct mlib_index *index, struct coll_store *store,
		uint32_t id)
{
	struct coll_eval_ctx ctx = {
		.index = index, .resolve = coll_store_resolve, .resolve_ud = store,
	};
	for (size_t i = 0; i < rs->n; i++) {
		const struct coll_node *n = entry_node(&rs->v[i]);
		if (!n)
			continue;
		/* A removed collection: inactive, skip (its evaluation fails too,
		 * but this way the cost is one lookup). */
		if (rs->v[i].r.name && !coll_store_exists(store, rs->v[i].r.ns, rs->v[i].r.name))
			continue;
		bool in = false;
		if (coll_contains(&ctx, n, id, &in, NULL) != 0)
			continue;
		if (in)
			return (int)i;
	}
	return -1;
}

/* ---- rename / remove ---- */

static bool ref_is(const struct coll_node *n, const char *ns, const char *name)
{
	const char *rns = coll_attr_get(n, "namespace"), *rname = coll_attr_get(n, "reference");
	return n->type == COLL_REFERENCE && rname && strcmp(rname, name) == 0 &&
	       strcmp(rns ? rns : COLL_NS_COLLECTIONS, ns) == 0;
}

/* Rewrite references ns/old -> new in n; returns how many. */
static int rename_refs(struct coll_node *n, const char *ns, const char *old_name,
		       const char *new_name)
{
	int k = 0;
	if (ref_is(n, ns, old_name)) {
		coll_attr_set(n, "reference", new_name);
		k++;
	}
	for (size_t i = 0; i < n->noperands; i++)
		k += rename_refs(n->operands[i], ns, old_name, new_name);
	return k;
}

static bool refers(const struct coll_node *n, const char *ns, const char *name)
{
	if (ref_is(n, ns, name))
		return true;
	for (size_t i = 0; i < n->noperands; i++)
		if (refers(n->operands[i], ns, name))
			return true;
	return false;
}

/* Does rule e use ns/name (by name, or in its query)? */
static bool entry_uses(struct rule_entry *e, const char *ns, const char *name)
{
	if (e->r.name)
		return strcmp(e->r.ns, ns) == 0 && strcmp(e->r.name, name) == 0;
	const struct coll_node *n = entry_node(e);
	return n && refers(n, ns, name);
}

int rules_on_rename(struct rules *rs, const char *ns, const char *old_name,
		    const char *new_name, struct crate_err *err)
{
	size_t oldn = rs->n;
	struct rule_entry *old = entries_copy(rs);
	bool changed = false;
	for (size_t i = 0; i < rs->n; i++) {
		struct rule_entry *e = &rs->v[i];
		if (!entry_uses(e, ns, old_name))
			continue;
		struct rule r = {0};
		if (e->r.name) {
			r = e->r;
			r.name = (char *)new_name;
		} else {
			struct coll_node *n = coll_node_copy(entry_node(e));
			rename_refs(n, ns, old_name, new_name);
			char *text = coll_print(n, err);
			coll_node_unref(n);
			if (!text) {
				entries_free(rs->v, rs->n);
				rs->v = old;
				rs->n = oldn;
				return crate_err_prefix(err, "rule %zu: ", i + 1);
			}
			r = e->r;
			r.query = text;
		}
		struct rule_entry ne;
		entry_set(&ne, &r);
		ne.playing = e->playing;
		if (!e->r.name)
			free(r.query);
		entry_clear(e);
		*e = ne;
		changed = true;
	}
	if (!changed) {
		entries_free(old, oldn);
		return 0;
	}
	return commit_or_restore(rs, old, oldn, err);
}

int rules_on_remove(struct rules *rs, const char *ns, const char *name, bool force,
		    struct crate_err *err)
{
	size_t first = SIZE_MAX, count = 0;
	for (size_t i = 0; i < rs->n; i++) {
		if (entry_uses(&rs->v[i], ns, name)) {
			if (first == SIZE_MAX)
				first = i;
			count++;
		}
	}
	if (!count)
		return 0;
	if (!force)
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "rule %zu%s uses '%s/%s' (remove %s first, or use --force to "
				     "drop %s)", first + 1, count > 1 ? " and others" : "", ns, name,
				     count > 1 ? "them" : "it", count > 1 ? "those rules" : "the rule");
	size_t oldn = rs->n;
	struct rule_entry *old = entries_copy(rs);
	size_t w = 0;
	for (size_t i = 0; i < rs->n; i++) {
		if (entry_uses(&rs->v[i], ns, name))
			entry_clear(&rs->v[i]);
		else
			rs->v[w++] = rs->v[i];
	}
	rs->n = w;
	return commit_or_restore(rs, old, oldn, err);
}

/* ---- settings ---- */

void rules_settings_compute(struct rules *rs, const struct mlib_index *index,
			    struct coll_store *store, const struct config *cfg, uint32_t id,
			    struct rule_settings *out)
{
	memset(out, 0, sizeof *out);
	out->rule = -1;
	out->replaygain = RULE_RG_DEFAULT;
	out->pshuffle = true;
	if (!rs || !index || !store)
		return;
	int i = rules_match(rs, index, store, id);
	if (i < 0)
		return;
	const struct rule *r = &rs->v[i].r;
	out->rule = i;
	out->volume_db = r->volume_db;
	out->replaygain = r->replaygain;
	out->pshuffle = r->pshuffle;
	if (r->eq) {
		struct crate_err err = {0};
		if (eq_preset_get(cfg, r->eq, &out->eq, &err) != 0) {
			/* The rest of the rule still applies; the equalizer stays flat. */
			memset(&out->eq, 0, sizeof out->eq);
			snprintf(out->msg, sizeof out->msg, "rule %d: %s; no equalizer", i + 1, err.msg);
		} else {
			snprintf(out->eq_name, sizeof out->eq_name, "%s", r->eq);
		}
	}
}
