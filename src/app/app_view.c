/* What the front ends show, read through the application (app_view.h). */
#include "app/app_view.h"

#include "base/str.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app_coll.h"
#include "app/app_play.h"
#include "app/app_stream.h"
#include "app/app_typo.h"
#include "app/rules.h"
#include "coll/eval_positions.h"
#include "coll/rank.h"
#include "coll/search.h"
#include "coll/store.h"
#include "coll/value.h"
#include "medialib/index.h"
#include "medialib/index_groups.h"
#include "medialib/media.h"

/* ---- the library ---- */

unsigned app_index_generation(const struct app *app)
{
	return app->index_serial;
}

uint32_t app_library_size(const struct app *app)
{
	return app->index ? mlib_index_count(app->index) : 0;
}

bool app_has_media(const struct app *app, uint32_t id)
{
	return app->index && mlib_index_has_media(app->index, id);
}

/* An item the index lacks whose row remains (its file went missing while
 * a playlist, the queue or the player holds it): its stored texts, so it is
 * still named rather than "?". A title falls back to the file name, as the
 * index's does. Numbers stay absent: they describe a file that is gone;
 * %id% is the entry's own and stays. */
static bool stored_text(const struct app *app, uint32_t id, const char *name, const char *sep,
			struct strbuf *out)
{
	struct crate_err err;
	size_t start = out->len;
	if (app->db &&
	    mlib_media_stored_text(app->db, id, name, sep ? sep : MLIB_VALUE_SEPARATOR, out, &err) == 1)
		return true;
	out->len = start; /* an error may leave part of a value */
	out->buf[start] = '\0';
	return false;
}

static enum item_value stored_value(const struct app *app, uint32_t id, const char *name,
				    const char *sep, struct strbuf *out)
{
	if (strcmp(name, "id") == 0) { /* the entry's own number, not the file's */
		strbuf_addf(out, "%" PRIu32, id);
		return ITEM_NUMBER;
	}
	if (stored_text(app, id, name, sep, out))
		return ITEM_TEXT;
	if (strcmp(name, "title") != 0)
		return ITEM_ABSENT;
	struct strbuf url;
	strbuf_init(&url, 128);
	bool have = stored_text(app, id, "url", "", &url);
	if (have) {
		size_t len;
		const char *file = str_path_name(url.buf, &len);
		strbuf_add(out, file, len);
	}
	strbuf_free(&url);
	return have ? ITEM_TEXT : ITEM_ABSENT;
}

bool app_item_is_stream(const struct app *app, uint32_t id)
{
	char buf[16];
	const char *url = app->index ? mlib_index_get_text(app->index, id, "url", buf, sizeof buf)
				     : NULL;
	return url && app_is_stream_url(url);
}

bool app_item_known(const struct app *app, uint32_t id)
{
	if (app_has_media(app, id))
		return true;
	if (!app->db || !id)
		return false;
	/* Every row has a url. A database that cannot answer does not make an
	 * entry forgotten: only a row that is surely gone is. */
	struct crate_err err;
	struct strbuf url;
	strbuf_init(&url, 128);
	int rc = mlib_media_stored_text(app->db, id, "url", "", &url, &err);
	strbuf_free(&url);
	return rc != 0;
}

const char *app_item_text(const struct app *app, uint32_t id, const char *prop, const char *sep,
			  char *buf, size_t size)
{
	if (!app->index || !id || !size)
		return NULL;
	if (mlib_index_has_media(app->index, id))
		return mlib_index_get_joined(app->index, id, prop, sep, buf, size);
	struct strbuf b;
	strbuf_init(&b, 128);
	bool have = stored_text(app, id, prop, sep, &b);
	if (have)
		snprintf(buf, size, "%s", b.buf);
	strbuf_free(&b);
	return have ? buf : NULL;
}

char *app_track_line(const struct app *app, const struct app_play_status *st)
{
	char ab[512], tb[512];
	const char *artist = NULL, *title = NULL;
	char *name = NULL;
	if (st->id) { /* a file removed while it plays is named from its stored row */
		artist = app_item_text(app, st->id, "artist", MLIB_VALUE_SEPARATOR, ab, sizeof ab);
		title = app_item_text(app, st->id, "title", MLIB_VALUE_SEPARATOR, tb, sizeof tb);
	}
	if (!title) /* a stream: its station's name (icy-name) while it has no title */
		title = st->station[0] ? st->station : (name = str_path_name_dup(st->path));
	/* A stream says what it plays now (ICY), then its name, as the
	 * interface's status line does. */
	char *line = st->title[0] ? xasprintf("%s (%s)", st->title, title)
				  : xasprintf("%s%s%s", artist ? artist : "", artist ? " - " : "", title);
	free(name);
	return line;
}

enum item_value app_item_value(const struct app *app, uint32_t id, const char *name,
			       const char *sep, struct strbuf *out)
{
	if (!app->index || !id)
		return ITEM_ABSENT;
	if (!mlib_index_has_media(app->index, id))
		return stored_value(app, id, name, sep, out);
	struct item_format_item it = {.idx = app->index, .id = id, .sep = sep};
	return item_format_index_get(&it, name, out);
}

const struct mlib_groups *app_library_groups(struct app *app, const struct mlib_levels *lv)
{
	if (!app->index)
		return NULL;
	struct mlib_levels def;
	struct crate_err err;
	if (!lv && mlib_levels_parse(MLIB_LEVELS_DEFAULT, &def, &err) == 0)
		lv = &def;
	/* One level set is kept: switching between collections with their own
	 * levels regroups (tens of ms at a million tracks), browsing does not. */
	if (!app->groups || app->groups_generation != app->index_serial ||
	    !mlib_levels_equal(&app->groups->levels, lv)) {
		mlib_groups_free(app->groups);
		app->groups = mlib_index_groups(app->index, lv);
		app->groups_generation = app->index_serial;
	}
	return app->groups;
}

int app_levels_parse(struct app *app, const char *text, struct mlib_levels *out,
		     struct crate_err *err)
{
	struct mlib_levels lv;
	if (mlib_levels_parse(text, &lv, err) != 0)
		return -1;
	for (unsigned k = 0; app->index && app_library_size(app) && k < lv.n; k++)
		if (strcmp(lv.prop[k], "artist") != 0 && mlib_index_prop(app->index, lv.prop[k]) < 0)
			return crate_err_set(err, CRATE_ERR_NOTFOUND,
					     "no track in the library has '%s' (a typo?)", lv.prop[k]);
	if (out)
		*out = lv;
	return 0;
}

void app_library_ranks(const struct app *app, const uint32_t *ids, size_t n,
		       bool in_library_order, uint32_t *rank)
{
	if (app->index)
		mlib_index_ranks(app->index, ids, n, in_library_order, rank);
	else if (n)
		memset(rank, 0xff, n * sizeof *rank);
}

/* ---- evaluating views ---- */

/* ---- recent results (app_eval_cache.memo) ---- */

/* A view's results are kept while nothing they depend on changed: the
 * index (replaced: generation; updated in place: edits), the saved
 * collections (store generation), and the time where it counts: a search
 * ranks by how recently items were played (coll_rank_boost_steady_until).
 * Views whose results depend on more are not kept: ages (added<7d), a
 * random order, like: (the similarity space grows as analysis runs), a
 * search that went without its corrections (the words were being built). */
#define MEMO_SLOTS 8
#define MEMO_IDS_MAX ((size_t)8 << 20) /* ids kept across the entries: 32 MiB */

/* What a search's ranking was given: the set it ranked and its terms,
 * kept beside the ranked result. A keystroke that leaves both as they were
 * (typing "y>19" after "y>1", a space, an operator not yet complete)
 * takes that ranking instead of ranking again (5-6 ms at 250k results). */
struct rank_input {
	struct bitset set; /* owned; nbits 0: none (not a ranked set) */
	char *terms;       /* owned: the terms written out (rank_terms_text) */
};

struct memo_entry {
	bool used_slot;
	char *base_ns, *base_name, *text; /* owned; NULL as in the view */
	struct coll_node *query;          /* a reference; NULL: the base alone */
	bool search;
	const struct mlib_index *idx;
	unsigned generation, store_gen;
	uint64_t edits;
	int64_t at;                       /* the moment it was evaluated at */
	struct coll_result res;           /* owned */
	char *notes;                      /* owned */
	struct rank_input rank_in;        /* a ranked search's; owned */
	uint64_t used;                    /* least recently used goes */
};

struct app_view_memo {
	struct memo_entry e[MEMO_SLOTS];
	uint64_t clock;
	/* Rankings made from steady_at on are the same until steady_until,
	 * for this index at these edits. */
	const struct mlib_index *steady_idx;
	unsigned steady_gen;
	uint64_t steady_edits;
	int64_t steady_at, steady_until;
	bool steady_known;
};

static void rank_input_free(struct rank_input *in)
{
	bitset_free(&in->set);
	free(in->terms);
	in->terms = NULL;
}

/* A search's ranking terms written out: equal texts, equal rankings. */
static char *rank_terms_text(const struct coll_rank_terms *t)
{
	struct strbuf b;
	strbuf_init(&b, 64);
	for (size_t i = 0; i < t->n; i++)
		strbuf_addf(&b, "%s\x1f%u\x1f%d\x1f%d\x1e", t->v[i].text, t->v[i].fields, t->v[i].group,
			    (int)t->v[i].typo);
	return strbuf_steal(&b);
}

static void memo_entry_clear(struct memo_entry *m)
{
	free(m->base_ns);
	free(m->base_name);
	free(m->text);
	coll_node_unref(m->query);
	coll_result_free(&m->res);
	free(m->notes);
	rank_input_free(&m->rank_in);
	memset(m, 0, sizeof *m);
}

static void memo_free(struct app_view_memo *memo)
{
	if (!memo)
		return;
	for (size_t i = 0; i < MEMO_SLOTS; i++)
		memo_entry_clear(&memo->e[i]);
	free(memo);
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Whether n's results (followed through references) depend on nothing but
 * the library, the saved collections and how recently items were played. */
static bool memo_node_ok(const struct coll_eval_ctx *ctx, const struct coll_node *n, int depth)
{
	if (!n || depth > 64) /* deeper: likely a cycle, which fails anyway */
		return false;
	switch (n->type) {
	case COLL_SIMILAR:
		return false;
	case COLL_ORDER: {
		const char *t = coll_attr_get(n, "type");
		if (t && strcmp(t, "random") == 0)
			return false;
		break;
	}
	case COLL_REFERENCE: {
		const char *ns = coll_attr_get(n, "namespace"), *name = coll_attr_get(n, "reference");
		const struct coll_node *t = ctx->resolve && ns && name
						    ? ctx->resolve(ctx->resolve_ud, ns, name) : NULL;
		if (!t || !memo_node_ok(ctx, t, depth + 1))
			return false;
		break;
	}
	case COLL_EQUALS: case COLL_NOTEQUAL: case COLL_MATCH: case COLL_TOKEN:
	case COLL_SMALLER: case COLL_SMALLEREQ: case COLL_GREATER: case COLL_GREATEREQ: {
		const char *field = coll_attr_get(n, "field"), *value = coll_attr_get(n, "value");
		if (field && value && coll_value_is_time_field(field)) {
			struct coll_value cv;
			coll_value_read(value, &cv);
			if (cv.kind == COLL_VALUE_AGE)
				return false;
		}
		break;
	}
	default:
		break;
	}
	for (size_t i = 0; i < n->noperands; i++)
		if (!memo_node_ok(ctx, n->operands[i], depth + 1))
			return false;
	return true;
}

/* Whether the view may be kept at all (ctx: for references). */
static bool memo_view_ok(const struct coll_eval_ctx *ctx, const struct app_view *v)
{
	if (v->base_ns) {
		const struct coll_node *b = ctx->resolve ? ctx->resolve(ctx->resolve_ud, v->base_ns,
									 v->base_name) : NULL;
		if (!b || !memo_node_ok(ctx, b, 1))
			return false;
	}
	return !v->query || memo_node_ok(ctx, v->query, 0);
}

/* Rankings are steady from memo->steady_at until steady_until (recounted
 * when the index changed or the time came). */
static void memo_steady(struct app *app, struct app_view_memo *memo, int64_t now)
{
	if (memo->steady_known && memo->steady_idx == app->index &&
	    memo->steady_gen == app->index_serial &&
	    memo->steady_edits == mlib_index_edits(app->index) && now < memo->steady_until)
		return;
	memo->steady_idx = app->index;
	memo->steady_gen = app->index_serial;
	memo->steady_edits = mlib_index_edits(app->index);
	memo->steady_at = now;
	memo->steady_until = coll_rank_boost_steady_until(app->index, now);
	memo->steady_known = true;
}

static bool memo_matches(struct app *app, const struct app_view_memo *memo,
			 const struct memo_entry *m, const struct app_view *v, int64_t now)
{
	if (!m->used_slot || m->idx != app->index || m->generation != app->index_serial ||
	    m->edits != mlib_index_edits(app->index) || m->store_gen != app_store_generation(app) ||
	    m->search != v->search || !same_text(m->base_ns, v->base_ns) ||
	    !same_text(m->base_ns ? m->base_name : NULL, v->base_ns ? v->base_name : NULL) ||
	    !same_text(m->text, v->query ? v->text : NULL))
		return false;
	if ((m->query == NULL) != (v->query == NULL) ||
	    (m->query && !coll_node_equal(m->query, v->query)))
		return false;
	/* a search's ranking: nothing crossed a boost's moment since */
	return !m->search || (m->at >= memo->steady_at && now < memo->steady_until);
}

static void result_copy(struct coll_result *to, const struct coll_result *from)
{
	memset(to, 0, sizeof *to);
	u32vec_reserve(&to->ids, from->ids.n + 1);
	if (from->ids.n)
		memcpy(to->ids.v, from->ids.v, from->ids.n * sizeof *from->ids.v);
	to->ids.n = from->ids.n;
	to->ordered = from->ordered;
	if (from->ranks.n && from->ranks.n == from->ids.n) {
		u32vec_reserve(&to->ranks, from->ranks.n + 1);
		memcpy(to->ranks.v, from->ranks.v, from->ranks.n * sizeof *from->ranks.v);
		to->ranks.n = from->ranks.n;
	}
}

static struct memo_entry *memo_find(struct app *app, struct app_view_memo *memo,
				    const struct app_view *v, int64_t now)
{
	for (size_t i = 0; i < MEMO_SLOTS; i++)
		if (memo_matches(app, memo, &memo->e[i], v, now)) {
			memo->e[i].used = ++memo->clock;
			return &memo->e[i];
		}
	return NULL;
}

static void memo_store(struct app *app, struct app_view_memo *memo, const struct app_view *v,
		       int64_t now, const struct coll_result *res, const char *notes,
		       struct rank_input *rank_in)
{
	if (res->ids.n > MEMO_IDS_MAX / 2)
		return;
	struct memo_entry *slot = &memo->e[0];
	size_t kept = 0;
	for (size_t i = 0; i < MEMO_SLOTS; i++) {
		struct memo_entry *m = &memo->e[i];
		if (!m->used_slot || m->idx != app->index || m->generation != app->index_serial) {
			memo_entry_clear(m); /* stale: of another index */
			slot = m;
			continue;
		}
		kept += m->res.ids.n;
		if (slot->used_slot && m->used < slot->used)
			slot = m;
	}
	if (kept + res->ids.n > MEMO_IDS_MAX) /* room: drop all but this one */
		for (size_t i = 0; i < MEMO_SLOTS; i++)
			memo_entry_clear(&memo->e[i]);
	memo_entry_clear(slot);
	slot->used_slot = true;
	slot->base_ns = v->base_ns ? xstrdup(v->base_ns) : NULL;
	slot->base_name = v->base_ns && v->base_name ? xstrdup(v->base_name) : NULL;
	slot->text = v->query && v->text ? xstrdup(v->text) : NULL;
	slot->query = v->query ? coll_node_ref((struct coll_node *)v->query) : NULL;
	slot->search = v->search;
	slot->idx = app->index;
	slot->generation = app->index_serial;
	slot->edits = mlib_index_edits(app->index);
	slot->store_gen = app_store_generation(app);
	slot->at = now;
	result_copy(&slot->res, res);
	slot->notes = xstrdup(notes ? notes : "");
	slot->rank_in = *rank_in; /* moved */
	*rank_in = (struct rank_input){{0}, NULL};
	slot->used = ++memo->clock;
}

/* The kept ranking of the set and terms in, when a search ranked them
 * at a moment whose boosts are now's, on this index: borrowed until the
 * next store. */
static const struct memo_entry *memo_find_ranking(struct app *app, struct app_view_memo *memo,
						  const struct rank_input *in, int64_t now)
{
	for (size_t i = 0; i < MEMO_SLOTS; i++) {
		struct memo_entry *m = &memo->e[i];
		if (m->used_slot && m->search && m->rank_in.terms && m->idx == app->index &&
		    m->generation == app->index_serial && m->edits == mlib_index_edits(app->index) &&
		    m->at >= memo->steady_at && now < memo->steady_until &&
		    strcmp(m->rank_in.terms, in->terms) == 0 && bitset_equal(&m->rank_in.set, &in->set)) {
			m->used = ++memo->clock;
			return m;
		}
	}
	return NULL;
}

void app_eval_cache_free(struct app_eval_cache *c)
{
	coll_eval_cache_free(c->cache);
	c->cache = NULL;
	memo_free(c->memo);
	c->memo = NULL;
}

/* c's cache, made, or emptied when the index changed since its work. */
static struct coll_eval_cache *cache_fit(struct app *app, struct app_eval_cache *c)
{
	if (!c->cache) {
		c->cache = coll_eval_cache_new();
		c->generation = app->index_serial;
		coll_eval_cache_typo_provider(c->cache, app_typo_get, app);
	} else if (c->generation != app->index_serial) { /* a new index: nothing kept applies */
		coll_eval_cache_clear(c->cache);
		memo_free(c->memo);
		c->memo = NULL;
		c->generation = app->index_serial;
	}
	return c->cache;
}

void app_eval_ctx_cached(struct app *app, struct app_eval_cache *c, struct coll_eval_ctx *ctx)
{
	app_eval_ctx(app, ctx);
	if (!c)
		return;
	ctx->cache = cache_fit(app, c);
	/* A view with a cache is the search bar's: have its corrections'
	 * words ready before a keystroke needs them. */
	app_typo_start(app);
}

bool app_eval_cache_prepare(struct app *app, struct app_eval_cache *c)
{
	if (!app->index)
		return false;
	/* not app_eval_ctx_cached: the corrections' words wait for a search */
	return coll_eval_cache_prepare_step(cache_fit(app, c), app->index);
}

static struct coll_node *base_node(const struct app_view *v)
{
	if (!v->base_ns)
		return coll_node_new(COLL_UNIVERSE);
	struct coll_node *r = coll_node_new(COLL_REFERENCE);
	coll_attr_set(r, "namespace", v->base_ns);
	coll_attr_set(r, "reference", v->base_name);
	return r;
}

/* The base AND query (NULL: the base alone); a new reference. */
static struct coll_node *view_and(const struct app_view *v, const struct coll_node *query)
{
	struct coll_node *base = base_node(v);
	if (!query)
		return base;
	if (base->type == COLL_UNIVERSE) {
		coll_node_unref(base);
		return coll_node_ref((struct coll_node *)query);
	}
	struct coll_node *both = coll_node_new(COLL_INTERSECTION);
	coll_node_add_operand(both, base);
	coll_node_add_operand(both, (struct coll_node *)query);
	coll_node_unref(base);
	return both;
}

struct coll_node *app_view_node(const struct app_view *v)
{
	return view_and(v, v->query);
}

struct coll_node *app_view_node_shown(struct app *app, const struct app_view *v,
				      struct strbuf *notes)
{
	if (!v->search || !v->query || !app->index)
		return view_and(v, v->query);
	struct coll_eval_ctx ctx;
	app_eval_ctx_cached(app, v->cache, &ctx);
	struct coll_search s;
	coll_search_prepare(&ctx, v->query, v->text, COLL_SEARCH_NO_RANK, &s);
	struct coll_node *node = view_and(v, s.node);
	if (notes)
		strbuf_adds(notes, s.notes.buf);
	coll_search_free(&s);
	return node;
}

/* Where view_eval may find and leaves a search's ranking: NULL, or the
 * memo at one moment and what this evaluation ranked (filled). */
struct rank_reuse {
	struct app_view_memo *memo;
	int64_t now;
	struct rank_input in;
	unsigned *hits; /* counted on a ranking taken from the memo */
};

static int view_eval(struct app *app, const struct app_view *v, struct coll_eval_ctx *ctx,
		     struct rank_reuse *reuse, struct coll_result *out, struct strbuf *notes,
		     struct crate_err *err);

int app_view_eval(struct app *app, const struct app_view *v, struct coll_result *out,
		  struct strbuf *notes, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	if (!app->index)
		return 0;
	struct coll_eval_ctx ctx;
	app_eval_ctx_cached(app, v->cache, &ctx);
	ctx.want_ranks = v->ranks;
	ctx.timing = v->timing;
	if (!v->cache || !memo_view_ok(&ctx, v))
		return view_eval(app, v, &ctx, NULL, out, notes, err);
	/* One moment for the evaluation, the ranking and the memo. */
	int64_t now = (int64_t)time(NULL);
	ctx.now = now;
	if (!v->cache->memo)
		v->cache->memo = xcalloc(1, sizeof *v->cache->memo);
	struct app_view_memo *memo = v->cache->memo;
	if (v->search)
		memo_steady(app, memo, now);
	const struct memo_entry *m = memo_find(app, memo, v, now);
	if (m) {
		v->cache->memo_hits++;
		result_copy(out, &m->res);
		if (notes)
			strbuf_adds(notes, m->notes);
		return 0;
	}
	unsigned waits = coll_eval_cache_typo_waits(ctx.cache);
	struct strbuf mine;
	strbuf_init(&mine, 0);
	struct rank_reuse reuse = {.memo = memo, .now = now, .hits = &v->cache->rank_reuses};
	int rc = view_eval(app, v, &ctx, &reuse, out, &mine, err);
	if (rc == 0 && coll_eval_cache_typo_waits(ctx.cache) == waits)
		memo_store(app, memo, v, now, out, mine.buf, &reuse.in);
	if (rc == 0 && notes)
		strbuf_adds(notes, mine.buf ? mine.buf : "");
	strbuf_free(&mine);
	rank_input_free(&reuse.in);
	return rc;
}

/* Rank the set out of search s, or take the ranking an earlier keystroke
 * made of the same set with the same terms (reuse, when not NULL). */
static void search_rank(struct app *app, struct coll_eval_ctx *ctx, const struct coll_search *s,
			struct rank_reuse *reuse, struct bitset *set, struct coll_result *out)
{
	if (reuse && s->rank && !out->ordered && set->nbits) {
		reuse->in.set = *set; /* moved */
		*set = (struct bitset){0};
		reuse->in.terms = rank_terms_text(&s->terms);
		const struct memo_entry *m = memo_find_ranking(app, reuse->memo, &reuse->in, reuse->now);
		if (m) {
			coll_result_free(out);
			result_copy(out, &m->res);
			(*reuse->hits)++;
			return;
		}
	}
	coll_search_rank(ctx, s, out);
}

static int view_eval(struct app *app, const struct app_view *v, struct coll_eval_ctx *ctx_,
		     struct rank_reuse *reuse, struct coll_result *out, struct strbuf *notes,
		     struct crate_err *err)
{
	struct coll_eval_ctx ctx = *ctx_;
	if (!v->search || !v->query) {
		struct coll_node *node = view_and(v, v->query);
		int rc = coll_eval(&ctx, node, out, err);
		coll_node_unref(node);
		return rc;
	}
	struct coll_search s = {0};
	coll_search_prepare(&ctx, v->query, v->text, 0, &s);
	struct coll_node *node = view_and(v, s.node);
	int rc;
	if (node == s.node && coll_search_ranked_limit(&s)) {
		/* The search alone: its LIMIT keeps the best, not the first. */
		rc = coll_search_eval(&ctx, &s, out, err);
	} else {
		struct bitset set = {0};
		ctx.set_out = reuse && s.rank ? &set : NULL; /* a ranking to reuse */
		rc = coll_eval(&ctx, node, out, err);
		if (rc == 0)
			search_rank(app, &ctx, &s, reuse, &set, out);
		bitset_free(&set);
	}
	if (rc == 0 && notes)
		strbuf_adds(notes, coll_search_notes(&s, out->ids.n));
	coll_node_unref(node);
	coll_search_free(&s);
	return rc;
}

int app_eval_positions(struct app *app, struct app_eval_cache *c, const struct u32vec *list,
		       const struct coll_node *query, const char *text, struct bitset *out,
		       struct strbuf *notes, struct crate_err *err)
{
	struct coll_eval_ctx ctx;
	app_eval_ctx_cached(app, c, &ctx);
	struct coll_search s;
	coll_search_prepare(&ctx, query, text, COLL_SEARCH_NO_RANK, &s);
	int rc = coll_eval_positions(&ctx, list, s.node, out, err);
	if (rc == 0 && notes)
		strbuf_adds(notes, coll_search_notes(&s, bitset_any(out)));
	coll_search_free(&s);
	return rc;
}

/* ---- saved collections and playlists ---- */

bool app_has_store(const struct app *app)
{
	return app->store != NULL;
}

unsigned app_store_generation(const struct app *app)
{
	return app->store ? coll_store_generation(app->store) : 0;
}

const struct coll_node *app_coll_get(struct app *app, const char *ns, const char *name)
{
	return app->store && ns && name ? coll_store_get(app->store, ns, name) : NULL;
}

const char *app_playlist_active(struct app *app)
{
	return app->store ? coll_store_active_playlist(app->store) : NULL;
}

const struct coll_node *app_playlist_get(struct app *app, const char *name)
{
	return app_coll_get(app, COLL_NS_PLAYLISTS, name ? name : app_playlist_active(app));
}

size_t app_coll_list(struct app *app, const char *ns, char ***names)
{
	*names = NULL;
	return app->store ? coll_store_list(app->store, ns, names) : 0;
}

size_t app_coll_unreadable(struct app *app, const char **why)
{
	*why = NULL;
	return app->store ? coll_store_unreadable(app->store, 0, NULL, NULL, why) : 0;
}

static int no_store(struct crate_err *err)
{
	return crate_err_set(err, CRATE_ERR_INVALID, "the collection store is not open");
}

int app_coll_save_node(struct app *app, const char *fullname, const struct coll_node *node,
		       char **saved_as, struct crate_err *err)
{
	if (!app->store)
		return no_store(err);
	char *ns = NULL, *nm = NULL;
	if (coll_name_split(fullname, &ns, &nm, err) != 0)
		return -1;
	struct coll_node *copy = coll_node_copy(node);
	int rc = coll_store_save(app->store, ns, nm, copy, err);
	if (rc == 0 && saved_as)
		*saved_as = xasprintf("%s/%s", ns, nm);
	coll_node_unref(copy);
	free(ns);
	free(nm);
	return rc;
}

int app_playlist_insert_ids(struct app *app, const char *name, size_t pos, const uint32_t *ids,
			    size_t n, struct crate_err *err)
{
	if (!app->store)
		return no_store(err);
	name = app_playlist_name(app, name);
	const struct coll_node *pl = app_coll_get(app, COLL_NS_PLAYLISTS, name);
	if (!pl && !name)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "there is no active playlist");
	if (!pl)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "Playlists/%s does not exist", name);
	if (pos > pl->idlist.n)
		pos = pl->idlist.n;
	return coll_store_playlist_insert_undoable(app->store, name, pos, ids, n, err);
}

int app_playlist_remove_at(struct app *app, const char *name, size_t pos, size_t n,
			   struct crate_err *err)
{
	if (!app->store)
		return no_store(err);
	return coll_store_playlist_remove(app->store, app_playlist_name(app, name), pos, n, err);
}

int app_playlist_move_entries(struct app *app, const char *name, size_t *positions, size_t n,
			      int delta, size_t *moved, struct crate_err *err)
{
	if (moved)
		*moved = 0;
	if (!app->store)
		return no_store(err);
	return coll_store_playlist_move_set(app->store, app_playlist_name(app, name), positions, n,
					    delta, moved, err);
}

int app_playlist_remove_entries(struct app *app, const char *name, const size_t *positions,
				size_t n, size_t *removed, struct crate_err *err)
{
	if (removed)
		*removed = 0;
	if (!app->store)
		return no_store(err);
	return coll_store_playlist_remove_set(app->store, app_playlist_name(app, name), positions, n,
					      removed, err);
}

int app_playlist_undo(struct app *app, char **what, struct crate_err *err)
{
	*what = NULL;
	if (!app->store)
		return no_store(err);
	char *name, *label;
	int rc = coll_store_playlist_undo(app->store, &name, &label, err);
	if (rc == 0) {
		*what = xasprintf("%s in %s", label, name);
		/* The undo put back the position of before the edit; what plays
		 * may have moved on since (the entry after a removed one). */
		app_play_lists_changed(app);
	}
	free(name);
	free(label);
	return rc;
}

/* ---- collection rules ---- */

enum rule_state app_rule_state(struct app *app, struct rules *rs, size_t i, char *why,
			       size_t whysize)
{
	return rules_state(rs, i, app->store, app->cfg, why, whysize);
}

int app_rule_from_target(struct app *app, const char *target, bool query, struct rule *out,
			 struct crate_err *err)
{
	if (query)
		return rule_from_query(app->store, target, out, err);
	return rule_from_target(app->store, target, out, err);
}
