/* Searches: ranking and forgiveness around the evaluator (search.h).
 *
 * Preparing walks a copy of the query once. Outside NOT, every word search
 * and every text filter on artist, albumartist, album or title becomes a
 * ranking term; a plain word (4+ letters, unquoted, no wildcard) that finds
 * fewer than COLL_SEARCH_FEW items is widened to a union with the words a
 * typo away; an `equals` on a string field that finds nothing becomes a
 * whole-words search of the value in that field. */
#include "coll/search.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/utf8.h"
#include "coll/eval_cache.h"
#include "coll/parse.h"
#include "coll/typo.h"
#include "coll/words.h"
#include "medialib/index.h"

struct prep {
	const struct coll_eval_ctx *ctx;
	const char *text;
	size_t text_len;
	char *folded_text; /* text folded, for the query's own words (owned; NULL without text) */
	unsigned flags;
	struct coll_search *out;
	struct coll_typo_dict *own_dict; /* built here when ctx has no cache */
};

static const char *const word_fields[3] = {"artist", "album", "title"};

static int rank_field(const char *field)
{
	static const char *const names[COLL_RANK_NFIELDS] = {
		[COLL_RANK_ARTIST] = "artist", [COLL_RANK_ALBUMARTIST] = "albumartist",
		[COLL_RANK_ALBUM] = "album",   [COLL_RANK_TITLE] = "title",
	};
	for (int f = 0; f < COLL_RANK_NFIELDS; f++)
		if (field && strcmp(field, names[f]) == 0)
			return f;
	return -1;
}

/* A plain filter on a property over the universe (not ids, positions or
 * binary collation). */
static bool plain_filter(const struct coll_node *n)
{
	return coll_type_is_filter(n->type) && n->noperands == 1 &&
	       n->operands[0]->type == COLL_UNIVERSE && !coll_attr_get(n, "type") &&
	       !coll_attr_get(n, "collation") && coll_attr_get(n, "field") &&
	       coll_attr_get(n, "value");
}

/* The literal text a pattern stands for when it is "X", "X*" or "*X*"
 * (escapes removed); NULL for other patterns. Owned. */
static char *pattern_text(const char *pat)
{
	size_t len = strlen(pat);
	struct strbuf b;
	strbuf_init(&b, len + 1);
	bool lead = len > 0 && pat[0] == '*';
	for (size_t i = lead; i < len; i++) {
		char c = pat[i];
		if (c == '\\' && i + 1 < len) {
			strbuf_addc(&b, pat[++i]);
		} else if (c == '*' && i + 1 == len) {
			break; /* a trailing star */
		} else if (c == '*' || c == '?') {
			strbuf_free(&b);
			return NULL;
		} else {
			strbuf_addc(&b, c);
		}
	}
	if (b.len == 0) {
		strbuf_free(&b);
		return NULL;
	}
	return strbuf_steal(&b);
}

/* A literal as a token/match value (wildcards and backslashes escaped). Owned. */
static char *escape_pattern(const char *s)
{
	struct strbuf b;
	strbuf_init(&b, strlen(s) + 8);
	for (; *s; s++) {
		if (*s == '*' || *s == '?' || *s == '\\')
			strbuf_addc(&b, '\\');
		strbuf_addc(&b, *s);
	}
	return strbuf_steal(&b);
}

static size_t count_items(const struct prep *pp, const struct coll_node *n)
{
	struct coll_result r = {0};
	struct crate_err err;
	struct coll_eval_ctx ctx = *pp->ctx;
	ctx.want_ranks = false; /* a count: no ranks to carry */
	size_t k = coll_eval(&ctx, n, &r, &err) == 0 ? r.ids.n : 0;
	coll_result_free(&r);
	return k;
}

/* Is one of the "; "-separated notes exactly this one? */
static bool has_note(const char *notes, const char *one)
{
	size_t n = strlen(one);
	for (const char *p = notes; (p = strstr(p, one)) != NULL; p++)
		if ((p == notes || (p >= notes + 2 && memcmp(p - 2, "; ", 2) == 0)) &&
		    (p[n] == '\0' || strncmp(p + n, "; ", 2) == 0))
			return true;
	return false;
}

/* Add one note to b, unless b says it already. */
static void note_add(struct strbuf *b, const char *one)
{
	if (has_note(b->buf, one))
		return; /* "bakc in black": both words corrected to "back", said once */
	if (b->len)
		strbuf_adds(b, "; ");
	strbuf_adds(b, one);
}

static void note(struct prep *pp, const char *if_none, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A note on what was forgiven; if_none (NULL: nothing) is what to say
 * instead when the search finds nothing: "showing ..." would promise
 * results the rest of the query took away. */
static void note(struct prep *pp, const char *if_none, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	note_add(&pp->out->notes, buf);
	if (if_none)
		note_add(&pp->out->notes_if_none, if_none);
}

static const struct coll_typo_dict *typo_dict(struct prep *pp)
{
	const struct mlib_index *idx = pp->ctx->index;
	if (pp->ctx->cache)
		return coll_cache_typo_dict(pp->ctx->cache, idx);
	if (!pp->own_dict)
		pp->own_dict = coll_typo_dict_build(idx);
	return pp->own_dict;
}

/* Was the node written in quotes (or with escapes)? Then it is meant as typed. */
static bool written_literally(const struct prep *pp, const struct coll_node *n)
{
	if (!pp->text || n->span_start < 0 || (size_t)n->span_end > pp->text_len)
		return false;
	const char *s = pp->text + n->span_start;
	return *s == '"' || *s == '\'' ||
	       memchr(s, '\\', (size_t)(n->span_end - n->span_start)) != NULL;
}

static struct coll_node *word_node(const char *pattern)
{
	struct coll_node *u = coll_node_new(COLL_UNION);
	for (int i = 0; i < 3; i++) {
		struct coll_node *f = coll_filter_new(COLL_TOKEN, word_fields[i], pattern, NULL);
		coll_node_add_operand(u, f);
		coll_node_unref(f);
	}
	return u;
}

/* Is word (folded) a word of the query as typed? */
static bool word_of_query(const struct prep *pp, const char *word)
{
	if (!pp->folded_text)
		return false;
	size_t len = strlen(pp->folded_text), wl = strlen(word), pos = 0, st, n;
	while (coll_word_next(pp->folded_text, len, &pos, &st, &n))
		if (n == wl && memcmp(pp->folded_text + st, word, wl) == 0)
			return true;
	return false;
}

/* Drop the corrections that are words of the query itself: "back" a typo
 * away from "black" in "back in black" adds nothing the query does not
 * already ask for, and noting it reads as if the exact title were a typo.
 * Returns how many remain (in order). */
static size_t drop_query_words(const struct prep *pp, const char **fix, size_t nfix)
{
	size_t k = 0;
	for (size_t i = 0; i < nfix; i++)
		if (!word_of_query(pp, fix[i]))
			fix[k++] = fix[i];
	return k;
}

/* A word search: a ranking term, and corrections when it finds too little. */
static struct coll_node *visit_word(struct prep *pp, struct coll_node *n, const char *value,
				    bool positive)
{
	char *text = pattern_text(value);
	if (!text)
		return coll_node_ref(n);
	if (!positive) {
		free(text);
		return coll_node_ref(n);
	}
	int group = coll_rank_terms_add(&pp->out->terms, text, COLL_RANK_WORD_FIELDS, -1, false);
	size_t vlen = strlen(value);
	char *folded = utf8_fold(text, strlen(text), NULL);
	size_t flen = strlen(folded), pos = 0, st, wl;
	bool one_word = coll_word_next(folded, flen, &pos, &st, &wl) && st == 0 && wl == flen;
	bool eligible = !(pp->flags & COLL_SEARCH_EXACT) && one_word && vlen > 0 &&
			value[vlen - 1] != '*' && !written_literally(pp, n) &&
			coll_typo_max_distance(utf8_count(folded, flen)) > 0;
	struct coll_node *r = coll_node_ref(n);
	if (eligible && count_items(pp, n) < COLL_SEARCH_FEW) {
		const char *fix[COLL_SEARCH_MAX_CORRECTIONS];
		size_t nfix = coll_typo_lookup(typo_dict(pp), folded, fix, COLL_SEARCH_MAX_CORRECTIONS);
		nfix = drop_query_words(pp, fix, nfix);
		if (nfix) {
			coll_node_unref(r);
			r = coll_node_new(COLL_UNION);
			coll_node_add_operand(r, n);
			struct strbuf list;
			strbuf_init(&list, 64);
			for (size_t i = 0; i < nfix; i++) {
				char *pat = escape_pattern(fix[i]);
				struct coll_node *w = word_node(pat);
				free(pat);
				coll_node_add_operand(r, w);
				coll_node_unref(w);
				coll_rank_terms_add(&pp->out->terms, fix[i], COLL_RANK_WORD_FIELDS, group,
						    true);
				strbuf_addf(&list, "%s%s", i ? ", " : "", fix[i]);
			}
			r->span_start = n->span_start;
			r->span_end = n->span_end;
			note(pp, NULL, "also showing matches for %s", list.buf);
			strbuf_free(&list);
		}
	}
	free(folded);
	free(text);
	return r;
}

/* Up to two distinct values of prop among the items of n, for a note. */
static void example_values(const struct prep *pp, const struct coll_node *n, const char *field,
			   struct strbuf *out)
{
	const struct mlib_index *idx = pp->ctx->index;
	int prop = mlib_index_prop(idx, field);
	struct coll_result r = {0};
	struct crate_err err;
	struct coll_eval_ctx ctx = *pp->ctx;
	ctx.want_ranks = false;
	if (prop < 0 || coll_eval(&ctx, n, &r, &err) != 0)
		return;
	uint32_t seen[2];
	size_t nseen = 0;
	for (size_t i = 0; i < r.ids.n && nseen < 3; i++) {
		const uint32_t *v;
		if (mlib_index_str_values(idx, prop, r.ids.v[i], &v) == 0)
			continue;
		bool dup = false;
		for (size_t k = 0; k < nseen && k < 2; k++)
			dup = dup || seen[k] == v[0];
		if (dup)
			continue;
		if (nseen == 2) {
			strbuf_adds(out, ", \xe2\x80\xa6");
			break;
		}
		char *clean = utf8_sanitize(mlib_index_dict_text(idx, prop, v[0]),
					    strlen(mlib_index_dict_text(idx, prop, v[0])));
		strbuf_addf(out, "%s%s", nseen ? ", " : ": ", clean);
		free(clean);
		seen[nseen++] = v[0];
	}
	coll_result_free(&r);
}

/* `field:value` that finds nothing: the words of value in field instead. */
static struct coll_node *forgive_equals(struct prep *pp, struct coll_node *n, const char *field,
					const char *value)
{
	const struct mlib_index *idx = pp->ctx->index;
	int prop = mlib_index_prop(idx, field);
	if ((pp->flags & COLL_SEARCH_EXACT) || prop < 0 ||
	    mlib_index_prop_kind(idx, prop) != MLIB_PROP_STRING || count_items(pp, n) > 0)
		return NULL;
	char *pat = escape_pattern(value);
	struct coll_node *t = coll_filter_new(COLL_TOKEN, field, pat, NULL);
	free(pat);
	if (count_items(pp, t) == 0) {
		coll_node_unref(t);
		return NULL;
	}
	t->span_start = n->span_start;
	t->span_end = n->span_end;
	struct strbuf ex;
	strbuf_init(&ex, 64);
	example_values(pp, t, field, &ex);
	char *cv = utf8_sanitize(value, strlen(value)), *cf = utf8_sanitize(field, strlen(field));
	char missing[256];
	snprintf(missing, sizeof missing, "no %s '%s'", cf, cv);
	note(pp, missing, "%s; showing the words '%s' in %s%s", missing, cv, cf, ex.buf);
	free(cv);
	free(cf);
	strbuf_free(&ex);
	return t;
}

/* A name's code points (at most max; the count). */
static size_t name_cps(const char *s, uint32_t *out, size_t max)
{
	size_t len = strlen(s), i = 0, n = 0;
	while (i < len && n < max)
		i += utf8_decode(s + i, len - i, &out[n++]);
	return n;
}

/* The property some track has that is nearest to field, within a typo's
 * distance; NULL when none is. */
static const char *nearest_property(const struct mlib_index *idx, const char *field)
{
	uint32_t f[64], c[64];
	size_t nf = name_cps(field, f, 64);
	int best = coll_typo_max_distance(nf) + 1;
	const char *found = NULL;
	for (int p = 0; p < mlib_index_prop_count(idx) && best > 1; p++) {
		const char *name = mlib_index_prop_name(idx, p);
		if (!name || mlib_index_prop(idx, name) != p)
			continue; /* defined, but no track has it */
		int d = coll_typo_distance(f, nf, c, name_cps(name, c, 64), best - 1);
		if (d < best) {
			best = d;
			found = name;
		}
	}
	return found;
}

/* A field no track has, a typo away from one that some have ("yeer" for
 * year): the search stays as typed (a missing property never matches),
 * and a note says what was probably meant. Fields no track has yet
 * (timesplayed before the first play) are near nothing and said nothing. */
static void note_unknown_field(struct prep *pp, const char *field)
{
	const struct mlib_index *idx = pp->ctx->index;
	if (!field || !*field || mlib_index_prop(idx, field) >= 0)
		return;
	const char *near = nearest_property(idx, field);
	if (!near)
		return;
	char *cf = utf8_sanitize(field, strlen(field));
	char text[256];
	snprintf(text, sizeof text, "no track has '%s': did you mean %s?", cf, near);
	note(pp, text, "%s", text);
	free(cf);
}

/* The filters' fields and the sort keys of n, for note_unknown_field. */
static void check_fields(struct prep *pp, const struct coll_node *n)
{
	const char *type = coll_attr_get(n, "type");
	if (coll_type_is_filter(n->type) && !type) {
		note_unknown_field(pp, coll_attr_get(n, "field"));
	} else if (n->type == COLL_ORDER && (!type || strcmp(type, "value") == 0)) {
		const char *fields = coll_attr_get(n, "field");
		for (const char *f = fields; f && *f;) {
			f += *f == '-'; /* descending: the field follows */
			size_t len = strcspn(f, ",");
			char *one = xstrndup(f, len);
			note_unknown_field(pp, one);
			free(one);
			f += len + (f[len] == ',');
		}
	}
}

static struct coll_node *visit(struct prep *pp, struct coll_node *n, bool positive);

static void visit_operands(struct prep *pp, struct coll_node *n, bool positive)
{
	for (size_t i = 0; i < n->noperands; i++) {
		struct coll_node *r = visit(pp, n->operands[i], positive);
		if (r != n->operands[i])
			coll_node_set_operand(n, i, r);
		coll_node_unref(r);
	}
}

/* Returns a new reference to what replaces n (n itself when nothing does). */
static struct coll_node *visit(struct prep *pp, struct coll_node *n, bool positive)
{
	const char *v;
	check_fields(pp, n);
	switch (n->type) {
	case COLL_COMPLEMENT:
		visit_operands(pp, n, !positive);
		return coll_node_ref(n);
	case COLL_UNION:
		if ((v = coll_three_fields_value(n, COLL_TOKEN)) != NULL)
			return visit_word(pp, n, v, positive);
		if (positive && (v = coll_three_fields_value(n, COLL_EQUALS)) != NULL) {
			coll_rank_terms_add(&pp->out->terms, v, COLL_RANK_WORD_FIELDS, -1, false);
			if (!(pp->flags & COLL_SEARCH_EXACT) && count_items(pp, n) == 0) {
				char *pat = escape_pattern(v);
				struct coll_node *w = word_node(pat);
				free(pat);
				if (count_items(pp, w) > 0) {
					char *cv = utf8_sanitize(v, strlen(v));
					char missing[256];
					snprintf(missing, sizeof missing, "nothing is '%s'", cv);
					note(pp, missing, "%s; showing the words '%s'", missing, cv);
					free(cv);
					w->span_start = n->span_start;
					w->span_end = n->span_end;
					return w;
				}
				coll_node_unref(w);
			}
			return coll_node_ref(n);
		}
		if (positive && (v = coll_three_fields_value(n, COLL_MATCH)) != NULL) {
			char *text = pattern_text(v);
			if (text)
				coll_rank_terms_add(&pp->out->terms, text, COLL_RANK_WORD_FIELDS, -1,
						    false);
			free(text);
			return coll_node_ref(n);
		}
		visit_operands(pp, n, positive);
		return coll_node_ref(n);
	case COLL_INTERSECTION:
	case COLL_ORDER:
	case COLL_LIMIT:
		visit_operands(pp, n, positive);
		return coll_node_ref(n);
	case COLL_EQUALS:
	case COLL_MATCH:
	case COLL_TOKEN: {
		if (!positive || !plain_filter(n))
			return coll_node_ref(n);
		const char *field = coll_attr_get(n, "field"), *value = coll_attr_get(n, "value");
		int f = rank_field(field);
		char *text = n->type == COLL_EQUALS ? xstrdup(value) : pattern_text(value);
		if (f >= 0 && text)
			coll_rank_terms_add(&pp->out->terms, text, 1u << f, -1, false);
		free(text);
		struct coll_node *r = n->type == COLL_EQUALS ? forgive_equals(pp, n, field, value)
							     : NULL;
		return r ? r : coll_node_ref(n);
	}
	default: /* references, other filters, lists: nothing to look for */
		return coll_node_ref(n);
	}
}

/* ORDER BY at the top (under LIMIT or not): its order wins. */
static bool ordered_query(const struct coll_node *n)
{
	if (n->type == COLL_LIMIT && n->noperands == 1)
		n = n->operands[0];
	return n->type == COLL_ORDER || coll_type_is_list(n);
}

void coll_search_prepare(const struct coll_eval_ctx *ctx, const struct coll_node *query,
			 const char *text, unsigned flags, struct coll_search *out)
{
	memset(out, 0, sizeof *out);
	strbuf_init(&out->notes, 64);
	strbuf_init(&out->notes_if_none, 0);
	struct prep pp = {.ctx = ctx, .text = text, .text_len = text ? strlen(text) : 0,
			  .folded_text = text ? utf8_fold(text, strlen(text), NULL) : NULL,
			  .flags = flags, .out = out};
	struct coll_node *copy = coll_node_copy(query);
	if (ctx->index)
		out->node = visit(&pp, copy, true);
	else
		out->node = coll_node_ref(copy);
	coll_node_unref(copy);
	coll_typo_dict_free(pp.own_dict);
	free(pp.folded_text);
	out->rank = !(flags & COLL_SEARCH_NO_RANK) && out->terms.n > 0 && !ordered_query(query);
}

void coll_search_free(struct coll_search *s)
{
	coll_node_unref(s->node);
	coll_rank_terms_free(&s->terms);
	strbuf_free(&s->notes);
	strbuf_free(&s->notes_if_none);
	memset(s, 0, sizeof *s);
}

const char *coll_search_notes(const struct coll_search *s, size_t found)
{
	const char *t = found ? s->notes.buf : s->notes_if_none.buf;
	return t ? t : "";
}

void coll_search_rank(const struct coll_eval_ctx *ctx, const struct coll_search *s,
		      struct coll_result *r)
{
	if (!s->rank || r->ordered || !ctx->index)
		return;
	bool ranks = r->ranks.n == r->ids.n;
	double t0 = ctx->timing ? coll_timing_now_ms() : 0;
	coll_rank_sort(ctx->index, &s->terms, ctx->now, ctx->cache, r->ids.v,
		       ranks ? r->ranks.v : NULL, r->ids.n);
	if (ctx->timing)
		ctx->timing->rank_ms += coll_timing_now_ms() - t0;
	if (!ranks)
		r->ranks.n = 0;
	r->ordered = true;
}

static size_t attr_count(const struct coll_node *n, const char *key, size_t dflt)
{
	const char *v = coll_attr_get(n, key);
	if (!v || !*v)
		return dflt;
	char *end;
	unsigned long long x = strtoull(v, &end, 10);
	return *end ? dflt : (size_t)x;
}

bool coll_search_ranked_limit(const struct coll_search *s)
{
	return s->rank && s->node->type == COLL_LIMIT && s->node->noperands == 1;
}

int coll_search_eval(const struct coll_eval_ctx *ctx, const struct coll_search *s,
		     struct coll_result *out, struct crate_err *err)
{
	const struct coll_node *n = s->node;
	bool top_limit = coll_search_ranked_limit(s);
	if (coll_eval(ctx, top_limit ? n->operands[0] : n, out, err) != 0)
		return -1;
	coll_search_rank(ctx, s, out);
	if (top_limit) {
		size_t start = attr_count(n, "start", 0), len = attr_count(n, "length", SIZE_MAX);
		size_t total = out->ids.n;
		if (start > total)
			start = total;
		if (len > total - start)
			len = total - start;
		memmove(out->ids.v, out->ids.v + start, len * sizeof *out->ids.v);
		if (out->ranks.n == total)
			memmove(out->ranks.v, out->ranks.v + start, len * sizeof *out->ranks.v);
		out->ids.n = len;
		out->ranks.n = out->ranks.n == total ? len : 0;
	}
	return 0;
}

char *coll_search_explain_score(const struct coll_eval_ctx *ctx, const struct coll_search *s,
				uint32_t id, struct crate_err *err)
{
	struct coll_result r = {0};
	if (coll_search_eval(ctx, s, &r, err) != 0)
		return NULL;
	size_t at = r.ids.n;
	for (size_t i = 0; i < r.ids.n && at == r.ids.n; i++)
		if (r.ids.v[i] == id)
			at = i;
	struct strbuf b;
	strbuf_init(&b, 256);
	if (at == r.ids.n)
		strbuf_addf(&b, "score: #%u is not among the %zu results\n", id, r.ids.n);
	else if (s->rank)
		strbuf_addf(&b, "score: #%u ranks %zu of %zu (relevance order)\n", id, at + 1,
			    r.ids.n);
	else
		strbuf_addf(&b, "score: #%u is %zu of %zu (%s)\n", id, at + 1, r.ids.n,
			    s->terms.n ? "not ranked: ORDER BY or a list decides the order"
				       : "not ranked: no words to rank by");
	if (s->notes.len)
		strbuf_addf(&b, "  %s\n", s->notes.buf);
	if (s->terms.n && ctx->index && mlib_index_has_media(ctx->index, id))
		coll_rank_score(ctx->index, &s->terms, ctx->now, id, &b);
	coll_result_free(&r);
	return strbuf_steal(&b);
}
