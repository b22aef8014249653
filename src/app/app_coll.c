/* Collection actions of the application (see app_coll.h). */
#include "app/app_coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config.h"
#include "base/rng.h"
#include "base/str.h"
#include "base/utf8.h"
#include "app/app_analysis.h"
#include "app/app_play.h"
#include "app/pshuffle.h"
#include "app/pshuffle_smooth.h"
#include "app/rules.h"
#include "app/app_view.h"
#include "coll/search.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "medialib/index_groups.h"
#include "medialib/index.h"
#include "medialib/media_analysis.h"
#include "medialib/similarity.h"


/* ---- evaluation ---- */

void app_eval_ctx(struct app *app, struct coll_eval_ctx *ctx)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->index = app->index;
	ctx->resolve = coll_store_resolve;
	ctx->resolve_ud = app->store;
	ctx->space = app_space;
	ctx->space_ud = app;
}

struct coll_node *app_parse_query(struct app *app, const char *query, bool list_context,
				  struct crate_err *err)
{
	struct coll_parse_opts opts = {
		.list_context = list_context,
		.exists = app->store ? coll_store_exists : NULL, /* NULL: references unchecked */
		.exists_prefix = app->store ? coll_store_exists_prefix : NULL,
		.exists_ud = app->store,
	};
	return coll_parse(query, strlen(query), &opts, err);
}

int app_eval_node(struct app *app, const struct coll_node *node, struct coll_result *out,
		  struct crate_err *err)
{
	struct coll_eval_ctx ctx;
	app_eval_ctx(app, &ctx);
	return coll_eval(&ctx, node, out, err);
}

int app_search(struct app *app, const struct coll_node *query, const char *text, unsigned flags,
	       struct coll_result *out, struct strbuf *notes, struct crate_err *err)
{
	struct coll_eval_ctx ctx;
	app_eval_ctx(app, &ctx);
	struct coll_search s;
	coll_search_prepare(&ctx, query, text, flags, &s);
	int rc = coll_search_eval(&ctx, &s, out, err);
	if (notes)
		strbuf_adds(notes, coll_search_notes(&s, rc == 0 ? out->ids.n : 1));
	coll_search_free(&s);
	return rc;
}

int app_search_text(struct app *app, const char *query, unsigned flags, struct coll_result *out,
		    struct strbuf *notes, struct crate_err *err)
{
	struct coll_node *n = app_parse_query(app, query, false, err);
	if (!n)
		return -1;
	int rc = app_search(app, n, query, flags, out, notes, err);
	coll_node_unref(n);
	return rc;
}

int app_eval_query(struct app *app, const char *query, bool list_context,
		   struct coll_result *out, struct crate_err *err)
{
	struct coll_node *n = app_parse_query(app, query, list_context, err);
	if (!n)
		return -1;
	int rc = app_eval_node(app, n, out, err);
	coll_node_unref(n);
	return rc;
}

int app_eval_named(struct app *app, const char *ns, const char *name, struct coll_result *out,
		   struct crate_err *err)
{
	const struct coll_node *n = coll_store_resolve(app->store, ns, name);
	if (!n)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "%s/%s does not exist", ns, name);
	return app_eval_node(app, n, out, err);
}

/* ---- ORDER BY fields ---- */

struct order_key {
	char *field; /* owned; NULL for id / random */
	bool desc;
	int kind;    /* 0 value, 1 id, 2 random */
	char *seed;  /* owned, random only */
};

static void order_keys_free(struct order_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(k[i].field);
		free(k[i].seed);
	}
	free(k);
}

/* "random" or "random(N)" (s, len) into *k, as ORDER BY reads it. */
static int order_key_read_random(const char *s, size_t len, struct order_key *k,
				 struct crate_err *err)
{
	if (k->desc)
		return crate_err_set(err, CRATE_ERR_INVALID, "sort: 'random' cannot be descending");
	k->kind = 2;
	if (len == 6)
		return 0;
	int64_t seed;
	if (len < 9 || s[len - 1] != ')' || !str_parse_int64(s + 7, len - 8, &seed) || seed < 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "sort: expected a seed number and ')' after 'random('");
	k->seed = xstrndup(s + 7, len - 8);
	return 0;
}

/* One field spec ("-year", "random(42)", "id") into *k. */
static int order_key_read(const char *s, size_t len, struct order_key *k, struct crate_err *err)
{
	memset(k, 0, sizeof *k);
	if (len && s[0] == '-') {
		k->desc = true;
		s++;
		len--;
	}
	if (len == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "sort: a field name is missing");
	if (len == 2 && memcmp(s, "id", 2) == 0) {
		k->kind = 1;
		return 0;
	}
	/* Only "random" or "random(N)" shuffle, in any case as ORDER BY reads
	 * them; "randomness" is a field name like any other. */
	if (len >= 6 && strncasecmp(s, "random", 6) == 0 && (len == 6 || s[6] == '('))
		return order_key_read_random(s, len, k, err);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80 && !(c == '_' || c == '-' || c == '.' || (c >= '0' && c <= '9') ||
				  (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
			char *shown = utf8_sanitize(s, len);
			crate_err_set(err, CRATE_ERR_INVALID, "sort: '%s' is not a field name", shown);
			free(shown);
			return -1;
		}
	}
	/* Property names are lower-case (tags are lower-cased at scan). */
	k->field = xstrndup(s, len);
	for (char *p = k->field; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return 0;
}

/* A sort field no item of app's library has: a typo ("artsit") that would
 * sort nothing, refused as browser levels refuse one. Play statistics
 * are every item's, played or not; an empty library refuses nothing. */
static int order_field_check(struct app *app, const char *field, struct crate_err *err)
{
	static const char *const stats[] = {"rating", "lastplayed", "timesplayed",
					    "timesskipped"};
	if (!app || !app->index || !app_library_size(app) ||
	    mlib_index_prop(app->index, field) >= 0)
		return 0;
	for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
		if (strcmp(field, stats[i]) == 0)
			return 0;
	return crate_err_set(err, CRATE_ERR_NOTFOUND,
			     "sort: no track in the library has '%s' (a typo?)", field);
}

struct coll_node *app_order_by(struct app *app, struct coll_node *node, const char *fields,
			       struct crate_err *err)
{
	struct order_key *keys = NULL;
	size_t n = 0;
	for (const char *p = fields; *p;) {
		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *e = p;
		while (*e && *e != ',' && *e != ' ' && *e != '\t')
			e++;
		keys = xreallocarray(keys, n + 1, sizeof *keys);
		if (order_key_read(p, (size_t)(e - p), &keys[n], err) != 0 ||
		    (keys[n].kind == 0 && order_field_check(app, keys[n].field, err) != 0)) {
			order_keys_free(keys, n + 1); /* keys[n] holds what it read */
			return NULL;
		}
		n++;
		p = e;
	}
	if (n == 0) {
		free(keys);
		crate_err_set(err, CRATE_ERR_INVALID, "sort: no fields given");
		return NULL;
	}
	/* The shape the parser gives ORDER BY: one node, "a,-b" for value
	 * keys; id and random only alone. */
	struct coll_node *o = coll_node_new(COLL_ORDER);
	struct strbuf b;
	strbuf_init(&b, 32);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (keys[i].kind != 0 && n > 1) {
			rc = crate_err_set(err, CRATE_ERR_INVALID, "sort: '%s' must be the only key",
					   keys[i].kind == 1 ? "id" : "random");
		} else if (keys[i].kind == 1) {
			coll_attr_set(o, "type", "id");
			if (keys[i].desc)
				coll_attr_set(o, "direction", "DESC");
		} else if (keys[i].kind == 2) {
			coll_attr_set(o, "type", "random");
			if (keys[i].seed)
				coll_attr_set(o, "seed", keys[i].seed);
		} else {
			strbuf_addf(&b, "%s%s%s", i ? "," : "", keys[i].desc ? "-" : "",
				    keys[i].field);
		}
	}
	if (b.len)
		coll_attr_set(o, "field", b.buf);
	strbuf_free(&b);
	order_keys_free(keys, n);
	if (rc != 0) {
		coll_node_unref(o);
		return NULL;
	}
	coll_node_add_operand(o, node);
	return o;
}

/* ---- saving ---- */

int app_coll_save_query(struct app *app, const char *fullname, const char *query,
			struct crate_err *err)
{
	char *ns, *name;
	if (coll_name_split(fullname, &ns, &name, err) != 0)
		return -1;
	int rc = -1;
	if (strcmp(ns, COLL_NS_PLAYLISTS) == 0) {
		crate_err_set(err, CRATE_ERR_INVALID,
			      "Playlists/%s: a query cannot be saved as a playlist (use "
			      "'playlist add' to fill one, or 'pshuffle')", name);
		goto out;
	}
	struct coll_node *n = app_parse_query(app, query, false, err);
	if (!n)
		goto out;
	rc = coll_store_save(app->store, ns, name, n, err);
	coll_node_unref(n);
out:
	free(ns);
	free(name);
	return rc;
}

int app_coll_levels_get(struct app *app, const char *ns, const char *name, char **out,
			struct crate_err *err)
{
	return coll_store_levels_get(app->store, ns, name, out, err);
}

int app_coll_levels_set(struct app *app, const char *ns, const char *name, const char *text,
			struct crate_err *err)
{
	if (!text || !*text)
		return coll_store_levels_set(app->store, ns, name, NULL, err);
	struct mlib_levels lv;
	char canon[MLIB_GROUP_LEVELS * MLIB_LEVEL_NAME];
	if (app_levels_parse(app, text, &lv, err) != 0)
		return crate_err_prefix(err, "levels of %s/%s: ", ns, name);
	mlib_levels_format(&lv, canon, sizeof canon);
	return coll_store_levels_set(app->store, ns, name, canon, err);
}

/* Playlists/Queue is the play queue, found by its name (app_play.c): its
 * entries play first and go once played. A list that is not a queue must
 * not take that name, or playing would consume it. */
static bool queue_name_refused(struct app *app, const char *ns, const char *old_name,
			       const char *new_name, struct crate_err *err)
{
	if (strcmp(ns, COLL_NS_PLAYLISTS) != 0 || strcmp(new_name, APP_QUEUE_NAME) != 0 ||
	    coll_store_get(app->store, ns, new_name))
		return false; /* an existing Queue: the store says so */
	const struct coll_node *n = coll_store_get(app->store, ns, old_name);
	const char *type = n ? coll_attr_get(n, "type") : NULL;
	if (!n || (coll_type_is_list(n) && type && strcmp(type, "queue") == 0))
		return false;
	crate_err_set(err, CRATE_ERR_REFUSED,
		      "Playlists/%s is the play queue: only a queue list can take its name (crate "
		      "playlist add %s 'in:\"Playlists/%s\"' queues its tracks)",
		      APP_QUEUE_NAME, APP_QUEUE_NAME, old_name);
	return true;
}

int app_queue_name_take(const char *ns, const char *name, struct coll_node *n,
			struct crate_err *err)
{
	if (strcmp(ns, COLL_NS_PLAYLISTS) != 0 || strcmp(name, APP_QUEUE_NAME) != 0)
		return 0;
	if (!coll_type_is_list(n))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "Playlists/%s is the play queue: only a list can be saved as it",
				     APP_QUEUE_NAME);
	/* as a list made under that name (app_playlist_new_typed) */
	coll_attr_set(n, "type", "queue");
	return 0;
}

int app_coll_rename(struct app *app, const char *ns, const char *old_name, const char *new_name,
		    struct crate_err *err)
{
	if (queue_name_refused(app, ns, old_name, new_name, err))
		return -1;
	if (coll_store_rename(app->store, ns, old_name, new_name, err) != 0)
		return -1;
	/* Rules name collections too (app/rules.h); a separate table, so a
	 * separate transaction: if it fails the rule is left inactive and
	 * the error says so. */
	if (app_rules_coll_renamed(app, ns, old_name, new_name, err) != 0)
		return crate_err_prefix(err, "renamed, but the rules were not updated: ");
	return 0;
}

int app_coll_remove(struct app *app, const char *ns, const char *name, bool force,
		    struct crate_err *err)
{
	/* Without force, a rule using it refuses first (nothing changes). */
	if (!force && app_rules_coll_removing(app, ns, name, false, err) != 0)
		return -1;
	if (coll_store_remove(app->store, ns, name, force, err) != 0)
		return -1;
	if (force && app_rules_coll_removing(app, ns, name, true, err) != 0)
		return crate_err_prefix(err, "removed, but the rules were not updated: ");
	return 0;
}

/* ---- playlists ---- */

const char *app_playlist_name(struct app *app, const char *name)
{
	return name ? name : coll_store_active_playlist(app->store);
}

int app_playlist_new(struct app *app, const char *name, struct crate_err *err)
{
	return app_playlist_new_typed(app, name, NULL, err);
}

int app_playlist_new_typed(struct app *app, const char *name, const char *type,
			   struct crate_err *err)
{
	if (coll_store_get(app->store, COLL_NS_PLAYLISTS, name))
		return crate_err_set(err, CRATE_ERR_EXISTS, "Playlists/%s already exists", name);
	/* The queue is found by its name: a list made under it is the queue. */
	if (strcmp(name, APP_QUEUE_NAME) == 0)
		type = "queue";
	struct coll_node *l = coll_node_new(COLL_IDLIST);
	if (type)
		coll_attr_set(l, "type", type);
	int rc = coll_store_save(app->store, COLL_NS_PLAYLISTS, name, l, err);
	coll_node_unref(l);
	return rc;
}

/* Every edit below runs through coll_store_playlist_edit: it computes the
 * change from the list as it is in the database at that moment, inside the
 * write transaction, so edits made by other processes are never undone.
 * Each one a person asks for (add, insert, move, remove, clear, shuffle,
 * sort, from a shell or the ':' line) is recorded for app_playlist_undo, as
 * the interface's are: u takes back any of them the same way. */

int app_playlist_ready(struct app *app, const char *name, struct crate_err *err)
{
	name = app_playlist_name(app, name);
	if (name && coll_store_get(app->store, COLL_NS_PLAYLISTS, name))
		return 0;
	if (name && strcmp(name, APP_QUEUE_NAME) == 0)
		return app_playlist_new_typed(app, name, "queue", err);
	return crate_err_set(err, CRATE_ERR_NOTFOUND, "Playlists/%s does not exist",
			     name ? name : "(none active)");
}

int app_playlist_insert_query(struct app *app, const char *name, size_t pos, const char *query,
			      unsigned flags, size_t *added, struct strbuf *notes,
			      struct crate_err *err)
{
	name = app_playlist_name(app, name);
	if (added)
		*added = 0;
	if (app_playlist_ready(app, name, err) != 0)
		return -1;
	struct coll_result r = {0};
	/* the tracks `crate search` lists for the same words */
	if (app_search_text(app, query, flags, &r, notes, err) != 0)
		return -1;
	int rc = 0;
	if (r.ids.n)
		rc = coll_store_playlist_insert_undoable(app->store, name, pos, r.ids.v, r.ids.n,
							 err);
	if (rc == 0 && added)
		*added = r.ids.n;
	coll_result_free(&r);
	return rc;
}

int app_playlist_add_query(struct app *app, const char *name, const char *query, unsigned flags,
			   size_t *added, struct strbuf *notes, struct crate_err *err)
{
	return app_playlist_insert_query(app, name, SIZE_MAX, query, flags, added, notes, err);
}

/* "3", "3-7", "5-", "-2" within a list of len entries -> [*a, *b] 1-based. */
static int position_range(const char *s, size_t n, size_t len, size_t *a, size_t *b,
			  struct crate_err *err)
{
	const char *dash = memchr(s, '-', n);
	int64_t x = 1, y;
	bool ok;
	if (!dash) {
		ok = str_parse_int64(s, n, &x);
		y = x;
	} else {
		size_t left = (size_t)(dash - s), right = n - left - 1;
		ok = (left || right) && (left == 0 || str_parse_int64(s, left, &x));
		y = (int64_t)len;
		if (ok && right)
			ok = str_parse_int64(dash + 1, right, &y);
	}
	char *shown = utf8_sanitize(s, n);
	int rc = 0;
	if (!ok || x < 1 || y < 1)
		rc = crate_err_set(err, CRATE_ERR_INVALID,
				   "'%s' is not a position or range (1-based: 3, 3-7, 5-, -2)",
				   shown);
	else if (x > y)
		rc = crate_err_set(err, CRATE_ERR_INVALID, "'%s' is a reversed range", shown);
	else if ((uint64_t)y > len)
		rc = crate_err_set(err, CRATE_ERR_INVALID,
				   "position %lld is past the end (%zu %s)", (long long)y, len,
				   str_plural(len, "entry", "entries"));
	free(shown);
	*a = (size_t)x;
	*b = (size_t)y;
	return rc;
}

/* The label of an edit recorded for app_playlist_undo, written by the
 * edit, which knows the count: "shuffle of 12 entries". */
enum { EDIT_LABEL_SIZE = 64 };

static void whole_list_label(char *label, const char *what, size_t n)
{
	snprintf(label, EDIT_LABEL_SIZE, "%s of %zu %s", what, n, str_plural(n, "entry", "entries"));
}

struct remove_args {
	const char *positions;
	size_t removed;
	char label[EDIT_LABEL_SIZE]; /* the undo record's, written by the edit */
};

static int edit_remove_positions(void *ud, struct coll_node *c, struct crate_err *err)
{
	struct remove_args *a = ud;
	size_t len = c->idlist.n;
	struct bitset del;
	bitset_init(&del, len + 1);
	size_t count = 0, parts = 0;
	int rc = 0;
	/* Words separated by blanks, each a comma list with no empty element. */
	for (const char *p = a->positions; *p && rc == 0;) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		const char *e = p;
		while (*e && *e != ',' && *e != ' ' && *e != '\t')
			e++;
		size_t x = 0, y = 0;
		if (e == p || (*e == ',' && (e[1] == '\0' || e[1] == ',')))
			rc = crate_err_set(err, CRATE_ERR_INVALID,
					   "an empty position in a list (write 1,3 or 1 3)");
		else
			rc = position_range(p, (size_t)(e - p), len, &x, &y, err);
		for (size_t i = x; rc == 0 && i <= y; i++) {
			if (!bitset_test(&del, i - 1))
				count++;
			bitset_set(&del, i - 1);
		}
		parts++;
		p = *e == ',' ? e + 1 : e;
	}
	if (rc == 0 && parts == 0)
		rc = crate_err_set(err, CRATE_ERR_INVALID, "no positions given");
	if (rc == 0 && count) {
		/* The current entry: the first kept entry at or after it. */
		const char *ps = coll_attr_get(c, "position");
		int64_t cur = -1;
		if (ps && !str_parse_int64(ps, strlen(ps), &cur))
			cur = -1;
		size_t k = 0, newcur = 0;
		for (size_t i = 0; i < len; i++) {
			if (cur >= 0 && (size_t)cur == i)
				newcur = k;
			if (!bitset_test(&del, i))
				c->idlist.v[k++] = c->idlist.v[i];
		}
		if (cur >= 0 && (size_t)cur >= len)
			newcur = k;
		c->idlist.n = k;
		if (cur >= 0) {
			char buf[32];
			snprintf(buf, sizeof buf, "%zu", newcur);
			coll_attr_set(c, "position", buf);
		}
	}
	bitset_free(&del);
	a->removed = count;
	whole_list_label(a->label, "removal", count);
	return rc < 0 ? -1 : count ? 0 : 1;
}

int app_playlist_remove_positions(struct app *app, const char *name, const char *positions,
				  size_t *removed, struct crate_err *err)
{
	struct remove_args a = {.positions = positions};
	int rc = coll_store_playlist_edit_undoable(app->store, app_playlist_name(app, name),
						   a.label, edit_remove_positions, &a, err);
	if (removed)
		*removed = rc == 0 ? a.removed : 0;
	return rc;
}

int app_playlist_move(struct app *app, const char *name, size_t from, size_t to,
		      struct crate_err *err)
{
	return coll_store_playlist_move_undoable(app->store, app_playlist_name(app, name), from, to,
						 err);
}

/* What a whole-list edit did: the undo record's label and the count the
 * command reports (0: the list was left as it was). */
struct whole_args {
	char label[EDIT_LABEL_SIZE];
	size_t n;
};

static int edit_clear(void *ud, struct coll_node *c, struct crate_err *err)
{
	struct whole_args *a = ud;
	(void)err;
	if (!c->idlist.n)
		return 1; /* nothing to undo either */
	whole_list_label(a->label, "clearing", c->idlist.n);
	a->n = c->idlist.n;
	c->idlist.n = 0;
	coll_attr_remove(c, "position");
	return 0;
}

/* Run a whole-list edit recorded for undo; *n (may be NULL) its count. */
static int whole_list_edit(struct app *app, const char *name, coll_store_edit_fn fn, size_t *n,
			   struct crate_err *err)
{
	struct whole_args a = {"", 0};
	int rc = coll_store_playlist_edit_undoable(app->store, app_playlist_name(app, name),
						   a.label, fn, &a, err);
	if (n)
		*n = rc == 0 ? a.n : 0;
	return rc;
}

/* Clearing, shuffling and sorting are recorded for app_playlist_undo, as
 * the interface's edits are: ':playlist clear' by mistake, or a shuffle
 * of a list put in order by hand, is not lost. */
int app_playlist_clear(struct app *app, const char *name, size_t *n, struct crate_err *err)
{
	return whole_list_edit(app, name, edit_clear, n, err);
}

static long node_position(const struct coll_node *n)
{
	const char *p = coll_attr_get(n, "position");
	int64_t v;
	if (!p || !str_parse_int64(p, strlen(p), &v) || v < 0 || (uint64_t)v >= n->idlist.n)
		return -1;
	return (long)v;
}

static int edit_shuffle(void *ud, struct coll_node *c, struct crate_err *err)
{
	struct whole_args *a = ud;
	(void)err;
	if (c->idlist.n < 2)
		return 1;
	whole_list_label(a->label, "shuffle", c->idlist.n);
	a->n = c->idlist.n;
	uint32_t *v = c->idlist.v;
	size_t n = c->idlist.n, first = 0;
	long cur = node_position(c);
	if (cur >= 0) {
		/* The playing entry goes to the top and stays current. */
		uint32_t t = v[0];
		v[0] = v[cur];
		v[cur] = t;
		first = 1;
		coll_attr_set(c, "position", "0");
	}
	uint64_t s = rng_seed();
	for (size_t i = n; i > first + 1; i--) {
		size_t j = first + rng_below(&s, i - first);
		uint32_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
	return 0;
}

int app_playlist_shuffle(struct app *app, const char *name, size_t *n, struct crate_err *err)
{
	return whole_list_edit(app, name, edit_shuffle, n, err);
}

struct sort_args {
	struct app *app;
	const char *fields;
	char label[EDIT_LABEL_SIZE]; /* the undo record's, written by the edit */
	size_t n;		     /* how many were sorted; 0: in order already */
};

static int edit_sort(void *ud, struct coll_node *c, struct crate_err *err)
{
	struct sort_args *a = ud;
	/* Sort a bare copy of the list with the evaluator's ORDER, so the
	 * playlist sorts exactly as a query would. */
	struct coll_node *bare = coll_node_new(COLL_IDLIST);
	for (size_t i = 0; i < c->idlist.n; i++)
		u32vec_push(&bare->idlist, c->idlist.v[i]);
	struct coll_node *o = app_order_by(a->app, bare, a->fields, err);
	coll_node_unref(bare);
	if (!o)
		return -1;
	struct coll_result r = {0};
	int rc = app_eval_node(a->app, o, &r, err);
	coll_node_unref(o);
	if (rc != 0)
		return -1;
	/* Entries the evaluator skipped (media gone) go to the end. */
	struct u32vec old = c->idlist;
	uint32_t bound = 0;
	for (size_t i = 0; i < old.n; i++)
		if (old.v[i] >= bound)
			bound = old.v[i] + 1;
	uint32_t *seen = xcalloc((size_t)bound + 1, sizeof *seen);
	for (size_t i = 0; i < r.ids.n; i++)
		if (r.ids.v[i] < bound)
			seen[r.ids.v[i]]++;
	struct u32vec sorted = {0};
	u32vec_reserve(&sorted, old.n);
	for (size_t i = 0; i < r.ids.n; i++)
		u32vec_push(&sorted, r.ids.v[i]);
	for (size_t i = 0; i < old.n; i++) {
		if (seen[old.v[i]])
			seen[old.v[i]]--;
		else
			u32vec_push(&sorted, old.v[i]);
	}
	free(seen);
	coll_result_free(&r);
	long cur = node_position(c);
	if (cur >= 0) {
		/* The current entry keeps being current (first equal id). */
		for (size_t i = 0; i < sorted.n; i++) {
			if (sorted.v[i] == old.v[cur]) {
				char buf[32];
				snprintf(buf, sizeof buf, "%zu", i);
				coll_attr_set(c, "position", buf);
				break;
			}
		}
	}
	bool same = !old.n || memcmp(sorted.v, old.v, old.n * sizeof *old.v) == 0;
	u32vec_free(&c->idlist);
	c->idlist = sorted;
	whole_list_label(a->label, "sort", sorted.n);
	a->n = same ? 0 : sorted.n;
	return same ? 1 : 0; /* in order already: no edit to undo */
}

int app_playlist_sort(struct app *app, const char *name, const char *fields, size_t *n,
		      struct crate_err *err)
{
	struct sort_args a = {app, fields, "", 0};
	int rc = coll_store_playlist_edit_undoable(app->store, app_playlist_name(app, name),
						   a.label, edit_sort, &a, err);
	if (n)
		*n = rc == 0 ? a.n : 0;
	return rc;
}

int app_playlist_use(struct app *app, const char *name, struct crate_err *err)
{
	return coll_store_set_active_playlist(app->store, name, err);
}

int app_playlist_set_jump(struct app *app, const char *name, const char *target,
			  struct crate_err *err)
{
	name = app_playlist_name(app, name);
	if (target && !coll_store_get(app->store, COLL_NS_PLAYLISTS, target))
		return crate_err_set(err, CRATE_ERR_NOTFOUND,
				     "Playlists/%s does not exist (a jump goes to a playlist)", target);
	return coll_store_playlist_set_attr(app->store, name, "jumplist", target, err);
}

/* ---- Party Shuffle ---- */

static bool is_pshuffle(const struct coll_node *n)
{
	const char *t = coll_attr_get(n, "type");
	return n->type == COLL_IDLIST && t && strcmp(t, "pshuffle") == 0;
}

static bool is_smooth(const char *mode)
{
	return mode && strcmp(mode, "smooth") == 0;
}

int app_pshuffle_create(struct app *app, const char *name, const char *query, long upcoming,
			struct crate_err *err)
{
	return app_pshuffle_create_mode(app, name, query, upcoming, NULL, -1, err);
}

int app_pshuffle_create_mode(struct app *app, const char *name, const char *query,
			     long upcoming, const char *mode, double drift, struct crate_err *err)
{
	if (mode && strcmp(mode, "random") != 0 && strcmp(mode, "smooth") != 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "mode '%s': random or smooth", mode);
	if (drift > 1)
		return crate_err_set(err, CRATE_ERR_INVALID, "drift must be between 0 and 1");
	/* the queue is found by its name (app_play.c): a Party Shuffle under
	 * it would play its random picks before everything, without end */
	if (strcmp(name, APP_QUEUE_NAME) == 0)
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "Playlists/%s is the play queue: it cannot be a Party Shuffle "
				     "(give the Party Shuffle another name)",
				     APP_QUEUE_NAME);
	const struct coll_node *old = coll_store_get(app->store, COLL_NS_PLAYLISTS, name);
	if (old && !is_pshuffle(old))
		return crate_err_set(err, CRATE_ERR_EXISTS,
				     "Playlists/%s already exists and is not a Party Shuffle", name);
	/* A drift random picks never read would be kept without a word. */
	if (drift >= 0 && !is_smooth(mode ? mode : old ? coll_attr_get(old, "mode") : NULL))
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "--drift is for smooth mode, and Playlists/%s would pick at "
				     "random: add --mode smooth", name);
	if (upcoming < 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "--upcoming must be positive");
	struct coll_node *src = app_parse_query(app, query, false, err);
	if (!src)
		return -1;
	/* Re-sourcing keeps the entries and the position. */
	struct coll_node *ps = old ? coll_node_copy(old) : coll_node_new(COLL_IDLIST);
	while (ps->noperands)
		coll_node_remove_operand(ps, 0);
	coll_node_add_operand(ps, src);
	coll_node_unref(src);
	coll_attr_set(ps, "type", "pshuffle");
	if (mode)
		coll_attr_set(ps, "mode", mode);
	if (drift >= 0) {
		char buf[32];
		mlib_analysis_format(drift, 2, buf, sizeof buf);
		coll_attr_set(ps, "drift", buf);
	}
	if (upcoming > 0) {
		char buf[32];
		snprintf(buf, sizeof buf, "%ld", upcoming);
		coll_attr_set(ps, "upcoming", buf);
		coll_attr_remove(ps, "size");
	}
	int rc = coll_store_save(app->store, COLL_NS_PLAYLISTS, name, ps, err);
	coll_node_unref(ps);
	if (rc != 0)
		return -1;
	return app_pshuffle_refill(app, COLL_NS_PLAYLISTS, name, NULL, err);
}

int app_pshuffle_set_mode(struct app *app, const char *name, const char *mode, double drift,
			  struct crate_err *err)
{
	const struct coll_node *n = coll_store_get(app->store, COLL_NS_PLAYLISTS, name);
	if (!n || !is_pshuffle(n))
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "Playlists/%s is not a Party Shuffle",
				     name);
	if (strcmp(mode, "random") != 0 && strcmp(mode, "smooth") != 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "mode '%s': random or smooth", mode);
	if (drift > 1)
		return crate_err_set(err, CRATE_ERR_INVALID, "drift must be between 0 and 1");
	if (drift >= 0 && !is_smooth(mode))
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "a drift is for smooth mode: random picks take none");
	if (coll_store_playlist_set_attr(app->store, name, "mode", mode, err) != 0)
		return -1;
	if (drift < 0)
		return 0;
	char buf[32];
	mlib_analysis_format(drift, 2, buf, sizeof buf);
	return coll_store_playlist_set_attr(app->store, name, "drift", buf, err);
}

static long attr_long(const struct coll_node *n, const char *key, long def)
{
	const char *v = coll_attr_get(n, key);
	int64_t x;
	if (!v || !str_parse_int64(v, strlen(v), &x) || x < 0 || x > 1000000)
		return def;
	return (long)x;
}

/* Smooth mode's drift: the attribute, else the default. */
static double attr_drift(const struct coll_node *n)
{
	const char *v = coll_attr_get(n, "drift");
	char *end;
	double d = v ? strtod(v, &end) : NAN;
	return v && end != v && !*end && d >= 0 && d <= 1 ? d : PSHUFFLE_DRIFT_DEFAULT;
}

bool app_pshuffle_smooth(const struct coll_node *n, double *drift)
{
	*drift = attr_drift(n);
	return is_smooth(coll_attr_get(n, "mode"));
}

int app_pshuffle_analysed(struct app *app, const char *name, size_t *analysed, size_t *total,
			  struct crate_err *err)
{
	*analysed = *total = 0;
	const struct coll_node *n = coll_store_get(app->store, COLL_NS_PLAYLISTS, name);
	if (!n || !is_pshuffle(n) || n->noperands != 1)
		return crate_err_set(err, CRATE_ERR_NOTFOUND,
				     "Playlists/%s is not a Party Shuffle with a source", name);
	struct coll_result src = {0};
	if (app_eval_node(app, n->operands[0], &src, err) != 0)
		return -1;
	const struct mlib_space *s = src.ids.n ? app_space(app, NULL) : NULL;
	*total = src.ids.n;
	for (size_t i = 0; s && i < src.ids.n; i++)
		*analysed += mlib_space_has(s, src.ids.v[i]);
	coll_result_free(&src);
	return 0;
}

/* Ids from the space-separated "picks" attribute. */
static void picks_read(const struct coll_node *n, struct u32vec *out)
{
	const char *p = coll_attr_get(n, "picks");
	while (p && *p) {
		while (*p == ' ')
			p++;
		const char *e = p;
		while (*e && *e != ' ')
			e++;
		int64_t v;
		if (e > p && str_parse_int64(p, (size_t)(e - p), &v) && v > 0 && v <= UINT32_MAX)
			u32vec_push(out, (uint32_t)v);
		p = e;
	}
}

/* A rule can keep its collection out of Party Shuffle; streams never
 * join (a party that picked one would stay on it until someone pressed
 * next). */
static bool rule_allows(void *ud, uint32_t id)
{
	return !app_item_is_stream(ud, id) && app_rules_pshuffle_allows(ud, id);
}

long app_pshuffle_upcoming(const struct app *app, const struct coll_node *n)
{
	long configured = config_get_int(app->cfg, "pshuffle.upcoming", PSHUFFLE_UPCOMING_DEFAULT);
	return attr_long(n, "upcoming", attr_long(n, "size", configured));
}

struct refill_args {
	struct app *app;
	const char *name;
	size_t added;
};

static int edit_refill(void *ud, struct coll_node *c, struct crate_err *err)
{
	struct refill_args *a = ud;
	if (!is_pshuffle(c) || c->noperands != 1)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "Playlists/%s is not a Party Shuffle with a source", a->name);
	long upcoming = app_pshuffle_upcoming(a->app, c);
	const char *ps = coll_attr_get(c, "position");
	int64_t pos = -1;
	if (ps && !str_parse_int64(ps, strlen(ps), &pos))
		pos = -1;
	size_t len = c->idlist.n;
	size_t after = pos < 0 ? len : (size_t)pos + 1 >= len ? 0 : len - (size_t)pos - 1;
	if ((long)after >= upcoming)
		return 1;
	size_t need = (size_t)upcoming - after;

	struct coll_result src = {0};
	if (app_eval_node(a->app, c->operands[0], &src, err) != 0)
		return crate_err_prefix(err, "Playlists/%s: source: ", a->name);
	const struct mlib_index *idx = a->app->index;
	uint32_t bound = mlib_index_id_bound(idx);
	/* Candidates: the source as a set. */
	struct bitset in_src;
	bitset_init(&in_src, bound);
	struct u32vec cand = {0};
	for (size_t i = 0; i < src.ids.n; i++) {
		uint32_t id = src.ids.v[i];
		if (id < bound && !bitset_test(&in_src, id)) {
			bitset_set(&in_src, id);
			u32vec_push(&cand, id);
		}
	}
	coll_result_free(&src);
	bitset_free(&in_src);
	long half = (long)(cand.n / 2);
	long norepeat = attr_long(c, "norepeat",
				  half < PSHUFFLE_NOREPEAT_MAX ? half : PSHUFFLE_NOREPEAT_MAX);
	struct u32vec picks = {0};
	picks_read(c, &picks);
	/* Smooth mode: chosen by sound where there is an analysis. */
	const char *mode = coll_attr_get(c, "mode");
	struct pshuffle_source from = {
		.idx = idx,
		.cand = &cand,
		.space = mode && strcmp(mode, "smooth") == 0 ? app_space(a->app, NULL) : NULL,
		.drift = attr_drift(c),
		.allows = rule_allows,
		.allows_ud = a->app,
	};
	uint64_t rng = rng_seed();
	/* the playing entry and those before it have played */
	size_t played = pos < 0 ? 0 : (size_t)pos + 1;
	size_t got = pshuffle_fill(&from, &c->idlist, played, &picks, need, (size_t)norepeat, &rng);
	/* Remember the recent picks, bounded. */
	size_t keep = picks.n > PSHUFFLE_NOREPEAT_MAX ? picks.n - PSHUFFLE_NOREPEAT_MAX : 0;
	struct strbuf b;
	strbuf_init(&b, 16 * (picks.n - keep) + 1);
	for (size_t i = keep; i < picks.n; i++)
		strbuf_addf(&b, "%s%u", i > keep ? " " : "", (unsigned)picks.v[i]);
	if (b.len)
		coll_attr_set(c, "picks", b.buf);
	strbuf_free(&b);
	u32vec_free(&picks);
	u32vec_free(&cand);
	a->added = got;
	return got ? 0 : 1;
}

int app_pshuffle_refill(struct app *app, const char *ns, const char *name, size_t *added,
			struct crate_err *err)
{
	if (added)
		*added = 0;
	if (strcmp(ns, COLL_NS_PLAYLISTS) != 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "%s/%s: a Party Shuffle lives in Playlists", ns, name);
	struct refill_args a = {app, name, 0};
	int rc = coll_store_playlist_edit(app->store, name, edit_refill, &a, err);
	if (rc == 0 && added)
		*added = a.added;
	return rc;
}
