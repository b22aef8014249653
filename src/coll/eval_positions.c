#include "coll/eval_positions.h"

#include <stdlib.h>
#include <string.h>

#include "medialib/index.h"

#define MAX_DEPTH 64

static bool is_position_filter(const struct coll_node *n)
{
	const char *t = coll_type_is_filter(n->type) ? coll_attr_get(n, "type") : NULL;
	return t && strcmp(t, "position") == 0;
}

static bool has_position(const struct coll_node *n, int depth)
{
	if (depth > MAX_DEPTH)
		return false;
	if (is_position_filter(n))
		return true;
	for (size_t i = 0; i < n->noperands; i++)
		if (has_position(n->operands[i], depth + 1))
			return true;
	return false;
}

static bool compare(enum coll_type op, long long pos, long long v)
{
	switch (op) {
	case COLL_EQUALS: return pos == v;
	case COLL_NOTEQUAL: return pos != v;
	case COLL_SMALLER: return pos < v;
	case COLL_SMALLEREQ: return pos <= v;
	case COLL_GREATER: return pos > v;
	case COLL_GREATEREQ: return pos >= v;
	default: return false;
	}
}

/* A part without positions: the entries whose track it contains. */
static int mark_tracks(const struct coll_eval_ctx *ctx, const struct u32vec *entries,
		       const struct coll_node *q, struct bitset *out, struct crate_err *err)
{
	struct coll_result r = {0};
	if (coll_eval(ctx, q, &r, err) != 0)
		return -1;
	struct bitset ids;
	bitset_init(&ids, mlib_index_id_bound(ctx->index));
	for (size_t i = 0; i < r.ids.n; i++)
		if (r.ids.v[i] < ids.nbits)
			bitset_set(&ids, r.ids.v[i]);
	for (size_t i = 0; i < entries->n; i++)
		if (bitset_test(&ids, entries->v[i]))
			bitset_set(out, i);
	bitset_free(&ids);
	coll_result_free(&r);
	return 0;
}

static int mark(const struct coll_eval_ctx *ctx, const struct u32vec *entries,
		const struct coll_node *q, struct bitset *out, int depth, struct crate_err *err)
{
	size_t n = entries->n, words = (n + 63) / 64;
	bitset_init(out, n);
	if (depth > MAX_DEPTH)
		return crate_err_set(err, CRATE_ERR_INVALID, "query nested too deeply");
	if (!has_position(q, 0))
		return mark_tracks(ctx, entries, q, out, err);
	if (is_position_filter(q)) {
		struct bitset in;
		if (q->noperands) {
			if (mark(ctx, entries, q->operands[0], &in, depth + 1, err) != 0) {
				bitset_free(&in);
				return -1;
			}
		} else {
			bitset_init(&in, n);
			memset(in.w, 0xff, words * sizeof *in.w);
		}
		const char *v = coll_attr_get(q, "value");
		long long want = v ? strtoll(v, NULL, 10) : 0;
		for (size_t i = 0; i < n; i++)
			if (bitset_test(&in, i) && compare(q->type, (long long)i + 1, want))
				bitset_set(out, i);
		bitset_free(&in);
		return 0;
	}
	switch (q->type) {
	case COLL_UNIVERSE:
		memset(out->w, 0xff, words * sizeof *out->w);
		return 0;
	case COLL_INTERSECTION:
	case COLL_UNION:
	case COLL_COMPLEMENT: {
		bool and = q->type == COLL_INTERSECTION;
		if (and)
			memset(out->w, 0xff, words * sizeof *out->w);
		for (size_t k = 0; k < q->noperands; k++) {
			struct bitset m;
			if (mark(ctx, entries, q->operands[k], &m, depth + 1, err) != 0) {
				bitset_free(&m);
				return -1;
			}
			for (size_t w = 0; w < words; w++)
				out->w[w] = q->type == COLL_COMPLEMENT ? ~m.w[w]
					    : and			  ? out->w[w] & m.w[w]
									  : out->w[w] | m.w[w];
			bitset_free(&m);
		}
		if (n % 64 && words) /* no bits past the end */
			out->w[words - 1] &= ((uint64_t)1 << (n % 64)) - 1;
		return 0;
	}
	default:
		/* Filters over positions, orders, limits: positions mean the
		 * list's entries only where they stand as terms of the query. */
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "positions can only be combined with AND, OR and NOT here");
	}
}

int coll_eval_positions(const struct coll_eval_ctx *ctx, const struct u32vec *entries,
			const struct coll_node *query, struct bitset *out, struct crate_err *err)
{
	return mark(ctx, entries, query, out, 0, err);
}
