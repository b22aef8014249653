/* coll_explain: the evaluator decides membership (coll_contains on every
 * sub-node); this module only describes the decision, reading the item's
 * values from the index for the filter lines. */
#include "coll/explain.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "base/utf8.h"
#include "coll/eval.h"
#include "coll/parse.h"
#include "medialib/index.h"

/* Deeper trees are cut with "..." (the parser allows 256 levels). */
#define EXPLAIN_MAX_DEPTH 64
#define MAX_VALUES 8

struct explainer {
	const struct coll_eval_ctx *ctx;
	uint32_t id;
	struct strbuf out;
	struct crate_err *err;
};

/* Untrusted text, sanitised, in single quotes. */
static void put_quoted(struct strbuf *b, const char *s)
{
	char *clean = utf8_sanitize(s, strlen(s));
	strbuf_addc(b, '\'');
	strbuf_adds(b, clean);
	strbuf_addc(b, '\'');
	free(clean);
}

/* A short label for a node: its query text when it is a leaf the printer
 * can write, else its type and attributes. */
static void put_label(struct strbuf *b, const struct coll_node *n)
{
	bool leaf = coll_type_is_filter(n->type) || n->type == COLL_UNIVERSE ||
		    n->type == COLL_REFERENCE || n->type == COLL_SIMILAR;
	/* A union of filters is a word search (`beat*`, `:x`, `#1,5`) or a
	 * short OR: its query text says more than "union". */
	if (n->type == COLL_UNION && n->noperands > 0) {
		leaf = true;
		for (size_t i = 0; i < n->noperands && leaf; i++) {
			const struct coll_node *o = n->operands[i];
			leaf = coll_type_is_filter(o->type) && o->noperands == 1 &&
			       o->operands[0]->type == COLL_UNIVERSE;
		}
	}
	char *text = leaf ? coll_print(n, NULL) : NULL;
	if (text) {
		char *clean = utf8_sanitize(text, strlen(text));
		strbuf_adds(b, clean);
		free(clean);
		free(text);
		return;
	}
	strbuf_adds(b, coll_type_name(n->type));
	for (size_t i = 0; i < n->nattrs; i++) {
		strbuf_addf(b, " %s=", n->attrs[i].key);
		put_quoted(b, n->attrs[i].value);
	}
	if (n->idlist.n)
		strbuf_addf(b, " (%zu ids)", n->idlist.n);
}

static const char *op_text(enum coll_type t)
{
	switch (t) {
	case COLL_SMALLER:
		return "<";
	case COLL_SMALLEREQ:
		return "<=";
	case COLL_GREATER:
		return ">";
	case COLL_GREATEREQ:
		return ">=";
	default:
		return "?";
	}
}

/* The item's values of field, quoted and joined into b; false when it has
 * none. *exact_equal: one of them is byte-equal to want. */
static bool put_values(struct explainer *ex, struct strbuf *b, const char *field,
		       bool *exact_equal, const char *want)
{
	const struct mlib_index *idx = ex->ctx->index;
	int prop = mlib_index_prop(idx, field);
	*exact_equal = false;
	if (prop < 0)
		return false;
	if (mlib_index_prop_kind(idx, prop) == MLIB_PROP_INT) {
		int64_t v;
		if (!mlib_index_int_value(idx, prop, ex->id, &v))
			return false;
		char num[32];
		snprintf(num, sizeof num, "%" PRId64, v);
		strbuf_adds(b, num);
		*exact_equal = want && strcmp(num, want) == 0;
		return true;
	}
	const uint32_t *vids;
	size_t n = mlib_index_str_values(idx, prop, ex->id, &vids);
	for (size_t i = 0; i < n && i < MAX_VALUES; i++) {
		const char *text = mlib_index_dict_text(idx, prop, vids[i]);
		if (i)
			strbuf_adds(b, ", ");
		put_quoted(b, text);
		if (want && strcmp(text, want) == 0)
			*exact_equal = true;
	}
	if (n > MAX_VALUES)
		strbuf_addf(b, " (and %zu more)", n - MAX_VALUES);
	return n > 0;
}

/* "-- artist 'Björk' equals 'bjork' (folded)" for a filter node. */
static void put_reason(struct explainer *ex, const struct coll_node *n, bool in)
{
	struct strbuf *b = &ex->out;
	const char *type = coll_attr_get(n, "type");
	const char *field = coll_attr_get(n, "field"), *value = coll_attr_get(n, "value");
	if (type && strcmp(type, "position") == 0) {
		strbuf_adds(b, in ? "  -- at a matching position" : "  -- at no matching position");
		return;
	}
	strbuf_adds(b, "  -- ");
	if (type && strcmp(type, "id") == 0) {
		strbuf_addf(b, "media id %u %s %s %s", ex->id, in ? "is" : "is not",
			    n->type == COLL_NOTEQUAL ? "!=" : n->type == COLL_EQUALS ? "=" :
			    n->type == COLL_HAS ? "present" : op_text(n->type),
			    value && n->type != COLL_HAS ? value : "");
		return;
	}
	if (!field) {
		strbuf_adds(b, in ? "passes" : "fails");
		return;
	}
	struct strbuf vals;
	strbuf_init(&vals, 64);
	bool exact;
	bool has = put_values(ex, &vals, field, &exact, value);
	if (!has) {
		strbuf_free(&vals);
		strbuf_adds(b, "has no ");
		put_quoted(b, field);
		return;
	}
	char *cfield = utf8_sanitize(field, strlen(field));
	strbuf_addf(b, "%s %s ", cfield, vals.buf);
	free(cfield);
	strbuf_free(&vals);
	switch (n->type) {
	case COLL_HAS:
		strbuf_adds(b, "is set");
		return;
	case COLL_EQUALS:
		strbuf_adds(b, in ? "equals " : "does not equal ");
		break;
	case COLL_NOTEQUAL:
		strbuf_adds(b, in ? "differs from " : "equals ");
		break;
	case COLL_MATCH:
		strbuf_adds(b, in ? "matches " : "does not match ");
		break;
	case COLL_TOKEN:
		strbuf_adds(b, in ? "has the word " : "does not have the word ");
		break;
	default: {
		/* Numbers, dates and ages read best unquoted: "is not < 1990". */
		char *clean = utf8_sanitize(value ? value : "", value ? strlen(value) : 0);
		strbuf_addf(b, "is %s%s %s", in ? "" : "not ", op_text(n->type), clean);
		free(clean);
		return;
	}
	}
	put_quoted(b, value ? value : "");
	/* Equal only after case and accent folding. */
	if (in && !exact && n->type == COLL_EQUALS)
		strbuf_adds(b, " (folded)");
}

/* "-- rank 3 of 120, distance 812 to the centroid of 1 item" for like:. */
static int put_similar(struct explainer *ex, const struct coll_node *n)
{
	struct coll_similar_info si;
	if (coll_similar_explain(ex->ctx, n, ex->id, &si, ex->err) != 0)
		return -1;
	struct strbuf *b = &ex->out;
	strbuf_adds(b, "  -- ");
	if (si.distance == UINT32_MAX)
		strbuf_adds(b, "not analysed, so not ranked");
	else if (!si.rank)
		strbuf_addf(b, "one of the %zu items it is like, so not ranked", si.seed);
	else
		strbuf_addf(b, "rank %zu of %zu", si.rank, si.ranked);
	if (si.distance != UINT32_MAX)
		strbuf_addf(b, ", distance %u", si.distance);
	strbuf_addf(b, " to the centroid of %zu analysed item%s (of %zu)", si.seed_analysed,
		    si.seed_analysed == 1 ? "" : "s", si.seed);
	return 0;
}

static int explain_node(struct explainer *ex, const struct coll_node *n, int depth)
{
	for (int i = 0; i < depth; i++)
		strbuf_adds(&ex->out, "  ");
	if (depth >= EXPLAIN_MAX_DEPTH) {
		strbuf_adds(&ex->out, "...\n");
		return 0;
	}
	bool in;
	if (coll_contains(ex->ctx, n, ex->id, &in, ex->err) != 0)
		return -1;
	strbuf_adds(&ex->out, in ? "yes  " : "no   ");
	put_label(&ex->out, n);
	bool filter_on_universe = coll_type_is_filter(n->type) && n->noperands == 1 &&
				  n->operands[0]->type == COLL_UNIVERSE;
	if (coll_type_is_filter(n->type))
		put_reason(ex, n, in);
	if (n->type == COLL_SIMILAR && put_similar(ex, n) != 0)
		return -1;
	strbuf_addc(&ex->out, '\n');
	if (filter_on_universe)
		return 0;
	for (size_t i = 0; i < n->noperands; i++)
		if (explain_node(ex, n->operands[i], depth + 1) != 0)
			return -1;
	return 0;
}

char *coll_explain(const struct coll_eval_ctx *ctx, const struct coll_node *node, uint32_t id,
		   struct crate_err *err)
{
	struct explainer ex = {.ctx = ctx, .id = id, .err = err};
	crate_err_clear(err);
	if (!mlib_index_has_media(ctx->index, id)) {
		crate_err_set(err, CRATE_ERR_NOTFOUND, "no media item #%u", id);
		return NULL;
	}
	strbuf_init(&ex.out, 256);
	if (explain_node(&ex, node, 0) != 0) {
		strbuf_free(&ex.out);
		return NULL;
	}
	return strbuf_steal(&ex.out);
}
