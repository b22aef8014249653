/* The evaluator: collection DAG -> media ids (spec/collections.md).
 *
 * Sets are bitsets over media ids (set operators are word-wise), lists are
 * id arrays (order and duplicates kept). Each node is evaluated once per
 * coll_eval (memoised by node pointer: operands are shared), and a node met
 * again while it is still being evaluated is a cycle. */
#include "coll/eval.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/str.h"
#include "coll/eval_filter.h"
#include "coll/eval_order.h"
#include "medialib/index.h"
#include "medialib/similarity.h"

/* References nest; a chain this deep is taken for a runaway. */
#define EVAL_MAX_DEPTH 1000

struct eres {
	bool ordered;
	struct bitset bits;  /* set: valid when !ordered */
	struct u32vec list;  /* list: valid when ordered */
};

struct memo {
	const struct coll_node *node;
	bool done;
	struct eres *res;    /* owned, unless alias */
	bool alias;          /* res belongs to another entry (references) */
};

struct ev {
	const struct coll_eval_ctx *ctx;
	const struct mlib_index *idx;
	size_t nbits;        /* id bound */
	int64_t now;
	struct memo *memo;
	size_t nmemo, memo_cap;
	int depth;
	struct crate_err *err;
	const struct coll_node **restricted; /* nodes evaluated within a candidate set */
	size_t nrestricted, restricted_cap;
};

/* ---- results ---- */

static struct eres *eres_new_set(size_t nbits)
{
	struct eres *r = xcalloc(1, sizeof *r);
	bitset_init(&r->bits, nbits);
	return r;
}

static struct eres *eres_new_list(void)
{
	struct eres *r = xcalloc(1, sizeof *r);
	r->ordered = true;
	return r;
}

static void eres_free(struct eres *r)
{
	if (!r)
		return;
	bitset_free(&r->bits);
	u32vec_free(&r->list);
	free(r);
}

static void bits_from_list(const struct u32vec *l, struct bitset *out)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] < out->nbits)
			bitset_set(out, l->v[i]);
}

/* The members of a bitset in library order; with rank (may be NULL),
 * each one's library rank beside it (the same walk finds both). */
static void bits_to_library_list(const struct ev *e, const struct bitset *b, struct u32vec *out,
				 struct u32vec *rank)
{
	size_t count = 0, nw = bitset_words(b);
	for (size_t w = 0; w < nw; w++)
		count += (size_t)__builtin_popcountll(b->w[w]);
	const struct u32vec *lib = mlib_index_library_order(e->idx);
	/* the branch-free scan below may write one slot past the last member */
	u32vec_reserve(out, out->n + count + 2);
	if (rank) {
		rank->n = 0;
		u32vec_reserve(rank, count + 2);
	}
	if (count == lib->n && count > 0) { /* everything: the library order itself */
		memcpy(out->v + out->n, lib->v, lib->n * sizeof *lib->v);
		out->n += lib->n;
		for (size_t i = 0; rank && i < lib->n; i++)
			rank->v[i] = (uint32_t)i;
		if (rank)
			rank->n = lib->n;
		return;
	}
	/* A mapped index (one query) has no library ranks until asked:
	 * deriving them costs more than this one pass. Looking up a member's
	 * rank misses the cache: the pass costs less from an eighth of the
	 * library on (1M tracks, 250k members: 1.4 ms against 2.0 ms). */
	if (count > lib->n / 8 || !mlib_index_library_ranks_ready(e->idx)) {
		/* Branch-free: write every id, advance only past members (a
		 * mispredicted branch per item would cost more than the store). */
		uint32_t *o = out->v + out->n;
		size_t k = 0;
		const uint64_t *w = b->w;
		if (rank) {
			uint32_t *ro = rank->v;
			for (size_t i = 0; i < lib->n; i++) {
				uint32_t id = lib->v[i];
				o[k] = id;
				ro[k] = (uint32_t)i;
				k += (w[id >> 6] >> (id & 63)) & 1;
			}
			rank->n = k;
		} else {
			for (size_t i = 0; i < lib->n; i++) {
				uint32_t id = lib->v[i];
				o[k] = id;
				k += (w[id >> 6] >> (id & 63)) & 1;
			}
		}
		out->n += k;
		return;
	}
	/* Fewer members: mark their library ranks in a bitset and read it in
	 * order (no sort). */
	struct bitset ranks;
	bitset_init(&ranks, lib->n + 1);
	for (size_t w = 0; w < nw; w++) {
		uint64_t bits = b->w[w];
		while (bits) {
			uint32_t id = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			bits &= bits - 1;
			uint32_t r = mlib_index_library_rank(e->idx, id);
			if (r != UINT32_MAX)
				bitset_set(&ranks, r);
		}
	}
	for (size_t w = 0; w < bitset_words(&ranks); w++) {
		uint64_t bits = ranks.w[w];
		while (bits) {
			size_t r = w * 64 + (size_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			out->v[out->n++] = lib->v[r];
			if (rank)
				rank->v[rank->n++] = (uint32_t)r;
		}
	}
	bitset_free(&ranks);
}

/* r as a set. When r is a list, the set is built in *tmp (zeroed by the
 * caller; free it with bitset_free afterwards). */
static const struct bitset *as_bits(const struct ev *e, const struct eres *r, struct bitset *tmp)
{
	if (!r->ordered)
		return &r->bits;
	bitset_init(tmp, e->nbits);
	bits_from_list(&r->list, tmp);
	return tmp;
}

/* r as a list: its own order, or library order for a set (built in *tmp,
 * zeroed by the caller; free it with u32vec_free afterwards). */
static const struct u32vec *as_list(const struct ev *e, const struct eres *r, struct u32vec *tmp)
{
	if (r->ordered)
		return &r->list;
	bits_to_library_list(e, &r->bits, tmp, NULL);
	return tmp;
}

static size_t bits_count(const struct bitset *b)
{
	size_t count = 0;
	for (size_t w = 0; w < bitset_words(b); w++)
		count += (size_t)__builtin_popcountll(b->w[w]);
	return count;
}

/* ---- memo ---- */

static const struct eres *eval_node(struct ev *e, const struct coll_node *n);

static struct memo *memo_find(struct ev *e, const struct coll_node *n)
{
	for (size_t i = 0; i < e->nmemo; i++)
		if (e->memo[i].node == n)
			return &e->memo[i];
	return NULL;
}

/* ---- operators ---- */

static const struct eres *universe(struct ev *e)
{
	static const struct coll_node universe_key; /* memo key for the implicit universe */
	struct memo *m = memo_find(e, &universe_key);
	if (m)
		return m->res;
	struct eres *r = eres_new_set(e->nbits);
	const struct bitset *present = mlib_index_present_set(e->idx);
	size_t nw = bitset_words(present) < bitset_words(&r->bits) ? bitset_words(present)
								   : bitset_words(&r->bits);
	memcpy(r->bits.w, present->w, nw * sizeof *r->bits.w);
	if (e->nmemo == e->memo_cap) {
		e->memo_cap = e->memo_cap ? e->memo_cap * 2 : 16;
		e->memo = xreallocarray(e->memo, e->memo_cap, sizeof *e->memo);
	}
	e->memo[e->nmemo++] = (struct memo){ &universe_key, true, r, false };
	return r;
}

static const struct eres *operand(struct ev *e, const struct coll_node *n)
{
	return n->noperands ? eval_node(e, n->operands[0]) : universe(e);
}

static struct eres *op_filter(struct ev *e, const struct coll_node *n)
{
	const struct eres *op = operand(e, n);
	if (!op)
		return NULL;
	struct coll_filter *f = coll_filter_compile(e->idx, n, e->now, e->err);
	if (!f)
		return NULL;
	coll_filter_set_cache(f, e->ctx->cache);
	struct eres *r;
	if (coll_filter_on_position(f)) {
		struct u32vec tmp = { 0 };
		const struct u32vec *l = as_list(e, op, &tmp);
		r = op->ordered ? eres_new_list() : eres_new_set(e->nbits);
		for (size_t i = 0; i < l->n; i++) {
			if (!coll_filter_test_position(f, i + 1))
				continue;
			if (r->ordered)
				u32vec_push(&r->list, l->v[i]);
			else
				bitset_set(&r->bits, l->v[i]);
		}
		u32vec_free(&tmp);
	} else if (op->ordered) {
		/* Search inside a list: keep its order and duplicates. */
		r = eres_new_list();
		if (op->list.n > 4096) {
			struct bitset pass;
			bitset_init(&pass, e->nbits);
			coll_filter_fill(f, &pass);
			for (size_t i = 0; i < op->list.n; i++)
				if (bitset_test(&pass, op->list.v[i]))
					u32vec_push(&r->list, op->list.v[i]);
			bitset_free(&pass);
		} else {
			for (size_t i = 0; i < op->list.n; i++)
				if (coll_filter_test_item(f, op->list.v[i]))
					u32vec_push(&r->list, op->list.v[i]);
		}
	} else {
		r = eres_new_set(e->nbits);
		size_t members = bits_count(&op->bits);
		if (members < e->nbits / 256) {
			/* A small operand: testing its members beats scanning the library. */
			for (size_t w = 0; w < bitset_words(&op->bits); w++) {
				uint64_t bits = op->bits.w[w];
				while (bits) {
					uint32_t id = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
					bits &= bits - 1;
					if (coll_filter_test_item(f, id))
						bitset_set(&r->bits, id);
				}
			}
		} else {
			coll_filter_fill(f, &r->bits);
			for (size_t w = 0; w < bitset_words(&r->bits); w++)
				r->bits.w[w] &= op->bits.w[w];
		}
	}
	coll_filter_free(f);
	return r;
}

/* ---- evaluation restricted to candidates ----
 *
 * An intersection only needs its later operands on the items that are
 * still in: "a~the y>1990 NOT g:Pop" tests the year and genre of the few
 * thousand "the" artists instead of scanning the whole library twice.
 * Subtrees made only of filters, set operators and the universe (no lists,
 * orders, limits, positions or references) can be evaluated within a
 * candidate set W: the result is exactly (full result) AND W. Such results
 * are not memoised; a node asked for twice that way is evaluated in full
 * (memoised) instead, so shared operands never cost more than twice. */

#define RESTRICT_MAX_DEPTH 64

static bool is_position_filter(const struct coll_node *n)
{
	const char *type = coll_attr_get(n, "type");
	return type && strcmp(type, "position") == 0;
}

static bool restrictable(const struct coll_node *n, int depth)
{
	if (depth > RESTRICT_MAX_DEPTH)
		return false;
	switch (n->type) {
	case COLL_UNIVERSE:
		return true;
	case COLL_UNION:
	case COLL_INTERSECTION:
		if (n->noperands == 0)
			return false;
		for (size_t i = 0; i < n->noperands; i++)
			if (!restrictable(n->operands[i], depth + 1))
				return false;
		return true;
	case COLL_COMPLEMENT:
		return n->noperands == 1 && restrictable(n->operands[0], depth + 1);
	default:
		if (!coll_type_is_filter(n->type) || is_position_filter(n))
			return false;
		return n->noperands == 0 || restrictable(n->operands[0], depth + 1);
	}
}

static void bits_and(struct bitset *r, const struct bitset *a)
{
	for (size_t w = 0; w < bitset_words(r); w++)
		r->w[w] &= a->w[w];
}

/* out = the members of w that pass f. */
static void filter_within(struct coll_filter *f, const struct bitset *w, struct bitset *out)
{
	coll_filter_fill_within(f, w, out);
}

static bool restricted_before(struct ev *e, const struct coll_node *n)
{
	for (size_t i = 0; i < e->nrestricted; i++)
		if (e->restricted[i] == n)
			return true;
	if (e->nrestricted == e->restricted_cap) {
		e->restricted_cap = e->restricted_cap ? e->restricted_cap * 2 : 16;
		e->restricted = xreallocarray(e->restricted, e->restricted_cap, sizeof *e->restricted);
	}
	e->restricted[e->nrestricted++] = n;
	return false;
}

/* (full result of n) AND w, as an owned set; NULL with *e->err on failure.
 * n must be restrictable(). */
static struct eres *eval_within(struct ev *e, const struct coll_node *n, const struct bitset *w)
{
	struct memo *m = memo_find(e, n);
	if ((m && m->done) || (!m && restricted_before(e, n))) {
		const struct eres *full = eval_node(e, n);
		if (!full)
			return NULL;
		struct eres *r = eres_new_set(e->nbits);
		for (size_t k = 0; k < bitset_words(&r->bits); k++)
			r->bits.w[k] = full->bits.w[k] & w->w[k];
		return r;
	}
	struct eres *r = NULL;
	if (n->type == COLL_UNIVERSE) {
		const struct eres *all = universe(e);
		r = eres_new_set(e->nbits);
		for (size_t k = 0; k < bitset_words(&r->bits); k++)
			r->bits.w[k] = all->bits.w[k] & w->w[k];
	} else if (n->type == COLL_UNION) {
		/* Later operands need not look at what earlier ones found. */
		struct bitset rest = {0};
		bitset_copy(&rest, w);
		r = eres_new_set(e->nbits);
		for (size_t i = 0; i < n->noperands; i++) {
			struct eres *sub = eval_within(e, n->operands[i], &rest);
			if (!sub) {
				eres_free(r);
				r = NULL;
				break;
			}
			for (size_t k = 0; k < bitset_words(&r->bits); k++) {
				r->bits.w[k] |= sub->bits.w[k];
				rest.w[k] &= ~sub->bits.w[k];
			}
			eres_free(sub);
		}
		bitset_free(&rest);
	} else if (n->type == COLL_INTERSECTION) {
		const struct bitset *cur = w;
		for (size_t i = 0; i < n->noperands; i++) {
			struct eres *sub = eval_within(e, n->operands[i], cur);
			eres_free(r);
			r = sub;
			if (!r)
				break;
			cur = &r->bits;
		}
	} else if (n->type == COLL_COMPLEMENT) {
		struct eres *sub = eval_within(e, n->operands[0], w);
		const struct eres *all = sub ? universe(e) : NULL;
		if (all) {
			r = eres_new_set(e->nbits);
			for (size_t k = 0; k < bitset_words(&r->bits); k++)
				r->bits.w[k] = all->bits.w[k] & w->w[k] & ~sub->bits.w[k];
		}
		eres_free(sub);
	} else { /* a filter */
		struct eres *base = n->noperands ? eval_within(e, n->operands[0], w) : NULL;
		if (n->noperands && !base)
			return NULL;
		struct coll_filter *f = coll_filter_compile(e->idx, n, e->now, e->err);
		if (f) {
			coll_filter_set_cache(f, e->ctx->cache);
			r = eres_new_set(e->nbits);
			if (base) {
				filter_within(f, &base->bits, &r->bits);
			} else {
				struct bitset in;
				const struct eres *all = universe(e);
				bitset_init(&in, e->nbits);
				for (size_t k = 0; k < bitset_words(&in); k++)
					in.w[k] = all->bits.w[k] & w->w[k];
				filter_within(f, &in, &r->bits);
				bitset_free(&in);
			}
			coll_filter_free(f);
		}
		eres_free(base);
	}
	return r;
}

/* The filters of the whole library among the union n's (and its unions')
 * operands, compiled with the cache, appended to *fs. */
static void union_filters(struct ev *e, const struct coll_node *n, struct coll_filter ***fs,
			  size_t *nf, size_t *cap)
{
	for (size_t i = 0; i < n->noperands; i++) {
		const struct coll_node *o = n->operands[i];
		if (o->type == COLL_UNION) {
			union_filters(e, o, fs, nf, cap);
			continue;
		}
		bool whole = o->noperands == 0 ||
			     (o->noperands == 1 && o->operands[0]->type == COLL_UNIVERSE);
		if (!coll_type_is_filter(o->type) || !whole || is_position_filter(o))
			continue;
		struct crate_err err; /* a filter in error reports it when evaluated */
		struct coll_filter *f = coll_filter_compile(e->idx, o, e->now, &err);
		if (!f)
			continue;
		coll_filter_set_cache(f, e->ctx->cache);
		if (*nf == *cap) {
			*cap = *cap ? 2 * *cap : 8;
			*fs = xreallocarray(*fs, *cap, sizeof **fs);
		}
		(*fs)[(*nf)++] = f;
	}
}

/* A union of filters that scan whole dictionaries (a new word looked
 * for in every field) scans them on two cores first, into the cache. */
static void union_prepare(struct ev *e, const struct coll_node *n)
{
	if (!e->ctx->cache)
		return;
	struct coll_filter **fs = NULL;
	size_t nf = 0, cap = 0;
	union_filters(e, n, &fs, &nf, &cap);
	coll_filters_prepare(fs, nf);
	for (size_t i = 0; i < nf; i++)
		coll_filter_free(fs[i]);
	free(fs);
}

static struct eres *op_union(struct ev *e, const struct coll_node *n)
{
	union_prepare(e, n);
	const struct eres **ops = xcalloc(n->noperands + 1, sizeof *ops);
	bool all_ordered = n->noperands > 0;
	for (size_t i = 0; i < n->noperands; i++) {
		ops[i] = eval_node(e, n->operands[i]);
		if (!ops[i]) {
			free(ops);
			return NULL;
		}
		all_ordered = all_ordered && ops[i]->ordered;
	}
	struct eres *r;
	if (all_ordered) { /* lists concatenate, duplicates kept */
		r = eres_new_list();
		for (size_t i = 0; i < n->noperands; i++)
			for (size_t k = 0; k < ops[i]->list.n; k++)
				u32vec_push(&r->list, ops[i]->list.v[k]);
	} else {
		r = eres_new_set(e->nbits);
		for (size_t i = 0; i < n->noperands; i++) {
			if (ops[i]->ordered) {
				bits_from_list(&ops[i]->list, &r->bits);
				continue;
			}
			for (size_t w = 0; w < bitset_words(&r->bits); w++)
				r->bits.w[w] |= ops[i]->bits.w[w];
		}
	}
	free(ops);
	return r;
}

static struct eres *op_intersection(struct ev *e, const struct coll_node *n)
{
	if (n->noperands == 0)
		return eres_new_set(e->nbits);
	const struct eres *first = eval_node(e, n->operands[0]);
	if (!first)
		return NULL;
	/* The items still in, narrowed operand by operand; later operands that
	 * allow it are evaluated only on those (see eval_within). */
	struct bitset tmp = { 0 };
	const struct bitset *fb = as_bits(e, first, &tmp);
	struct eres *cur = eres_new_set(e->nbits);
	memcpy(cur->bits.w, fb->w, bitset_words(fb) * sizeof *fb->w);
	bitset_free(&tmp);
	for (size_t i = 1; i < n->noperands; i++) {
		const struct coll_node *o = n->operands[i];
		if (restrictable(o, 0)) {
			struct eres *sub = eval_within(e, o, &cur->bits);
			eres_free(cur);
			cur = sub;
			if (!cur)
				return NULL;
			continue;
		}
		const struct eres *op = eval_node(e, o);
		if (!op) {
			eres_free(cur);
			return NULL;
		}
		struct bitset t2 = { 0 };
		bits_and(&cur->bits, as_bits(e, op, &t2));
		bitset_free(&t2);
	}
	if (!first->ordered)
		return cur;
	/* Keeps the first operand's order (and its duplicates). */
	struct eres *r = eres_new_list();
	for (size_t i = 0; i < first->list.n; i++)
		if (bitset_test(&cur->bits, first->list.v[i]))
			u32vec_push(&r->list, first->list.v[i]);
	eres_free(cur);
	return r;
}

static struct eres *op_complement(struct ev *e, const struct coll_node *n)
{
	if (n->noperands != 1) {
		crate_err_set(e->err, CRATE_ERR_INVALID, "complement needs exactly one operand, not %zu",
			      n->noperands);
		return NULL;
	}
	const struct eres *op = eval_node(e, n->operands[0]);
	const struct eres *all = op ? universe(e) : NULL;
	if (!all)
		return NULL;
	/* (fix) a list operand is complemented like any other: as a set. */
	struct bitset tmp = { 0 };
	const struct bitset *b = as_bits(e, op, &tmp);
	struct eres *r = eres_new_set(e->nbits);
	for (size_t w = 0; w < bitset_words(&r->bits); w++)
		r->bits.w[w] = all->bits.w[w] & ~b->w[w];
	bitset_free(&tmp);
	return r;
}

static int read_count(struct ev *e, const struct coll_node *n, const char *key, size_t dflt,
		      size_t *out)
{
	const char *s = coll_attr_get(n, key);
	int64_t v;
	if (!s || !*s) {
		*out = dflt;
		return 0;
	}
	if (!str_parse_int64(s, strlen(s), &v) || v < 0)
		return crate_err_set(e->err, CRATE_ERR_INVALID,
				     "limit: attribute '%s' must be a whole number >= 0, not '%s'", key, s);
	*out = (size_t)v;
	return 0;
}

static struct eres *op_order(struct ev *e, const struct coll_node *n, size_t keep)
{
	const struct eres *op = operand(e, n);
	if (!op)
		return NULL;
	struct eres *r = eres_new_list();
	struct u32vec tmp = { 0 };
	const struct u32vec *l = as_list(e, op, &tmp);
	u32vec_reserve(&r->list, l->n + 1);
	if (l->n)
		memcpy(r->list.v, l->v, l->n * sizeof *l->v);
	r->list.n = l->n;
	u32vec_free(&tmp);
	if (coll_order_sort(e->idx, n, r->list.v, r->list.n, keep, e->now, e->err) < 0) {
		eres_free(r);
		return NULL;
	}
	return r;
}

static struct eres *op_similar(struct ev *e, const struct coll_node *n, size_t keep);

static struct eres *op_limit(struct ev *e, const struct coll_node *n)
{
	size_t start, length;
	if (read_count(e, n, "start", 0, &start) < 0 || read_count(e, n, "length", SIZE_MAX, &length) < 0)
		return NULL;
	size_t end = length > SIZE_MAX - start ? SIZE_MAX : start + length;
	const struct coll_node *child = n->noperands ? n->operands[0] : NULL;
	struct eres *owned = NULL;
	const struct eres *op;
	if (child && child->type == COLL_ORDER && !memo_find(e, child)) {
		/* limit over order: only the first `end` need sorting. The
		 * partial result is not memoised under the order node. */
		op = owned = op_order(e, child, end);
	} else if (child && child->type == COLL_SIMILAR && !memo_find(e, child)) {
		op = owned = op_similar(e, child, end); /* the same for like: */
	} else {
		op = operand(e, n);
	}
	if (!op)
		return NULL;
	struct u32vec tmp = { 0 };
	const struct u32vec *l = as_list(e, op, &tmp);
	struct eres *r = op->ordered ? eres_new_list() : eres_new_set(e->nbits);
	for (size_t i = start; i < l->n && i < end; i++) {
		if (r->ordered)
			u32vec_push(&r->list, l->v[i]);
		else
			bitset_set(&r->bits, l->v[i]);
	}
	u32vec_free(&tmp);
	eres_free(owned);
	return r;
}

static struct eres *op_mediaset(struct ev *e, const struct coll_node *n)
{
	const struct eres *op = operand(e, n);
	if (!op)
		return NULL;
	struct eres *r = eres_new_set(e->nbits);
	if (op->ordered)
		bits_from_list(&op->list, &r->bits);
	else
		memcpy(r->bits.w, op->bits.w, bitset_words(&op->bits) * sizeof *op->bits.w);
	return r;
}

static struct eres *op_idlist(struct ev *e, const struct coll_node *n)
{
	struct eres *r = eres_new_list();
	for (size_t i = 0; i < n->idlist.n; i++)
		if (mlib_index_has_media(e->idx, n->idlist.v[i])) /* removed media are skipped */
			u32vec_push(&r->list, n->idlist.v[i]);
	return r;
}

/* like: of a seed none of whose n items has a point: say why, and name
 * 'crate analyze' only when it would help (an item that failed, or whose
 * sound is under a second, stays without a point after it). */
static void seed_unplaced(struct ev *e, const uint32_t *ids, size_t n)
{
	int failed_prop = mlib_index_prop(e->idx, "analysis_error");
	int loud_prop = mlib_index_prop(e->idx, "loudness");
	size_t failed = 0, short_sound = 0;
	for (size_t i = 0; i < n; i++) {
		const uint32_t *v;
		if (failed_prop >= 0 && mlib_index_str_values(e->idx, failed_prop, ids[i], &v))
			failed++;
		else if (loud_prop >= 0 && mlib_index_str_values(e->idx, loud_prop, ids[i], &v))
			short_sound++;
	}
	if (failed + short_sound < n)
		crate_err_set(e->err, CRATE_ERR_NOTFOUND,
			      "like: none of the %zu item%s is analysed (run 'crate analyze')", n,
			      n == 1 ? "" : "s");
	else if (n == 1)
		crate_err_set(e->err, CRATE_ERR_NOTFOUND, "like: #%u %s", (unsigned)ids[0],
			      failed ? "could not be analysed (its analysis_error says why)"
				     : "has too little sound to compare (under a second; if it is "
				       "longer, 'crate analyze --again' measures it anew)");
	else
		crate_err_set(e->err, CRATE_ERR_NOTFOUND,
			      "like: none of the %zu items has a sound to compare: %zu could not be "
			      "analysed (analysis_error says why), %zu too little sound",
			      n, failed, short_sound);
}

/* like: the seed's centroid and the seed as a bitset (*skip, for the
 * caller to free). The space is borrowed from the context's owner. */
static const struct mlib_space *similar_seed(struct ev *e, const struct coll_node *n, int16_t *c,
					     struct bitset *skip, size_t *nseed, size_t *nanalysed)
{
	if (n->noperands != 1) {
		crate_err_set(e->err, CRATE_ERR_INVALID, "like: needs one operand, not %zu",
			      n->noperands);
		return NULL;
	}
	const struct mlib_space *s = NULL;
	if (!e->ctx->space)
		crate_err_set(e->err, CRATE_ERR_INVALID, "like: similarity is not available here");
	else
		s = e->ctx->space(e->ctx->space_ud, e->err);
	if (!s)
		return NULL;
	const struct eres *op = eval_node(e, n->operands[0]);
	if (!op)
		return NULL;
	struct u32vec tmp = {0};
	const struct u32vec *seed = as_list(e, op, &tmp);
	*nseed = seed->n;
	*nanalysed = 0;
	bitset_init(skip, e->nbits);
	for (size_t i = 0; i < seed->n; i++) {
		bitset_set(skip, seed->v[i]);
		*nanalysed += mlib_space_has(s, seed->v[i]);
	}
	bool ok = mlib_space_centroid(s, seed->v, seed->n, c);
	if (!ok && seed->n)
		seed_unplaced(e, seed->v, seed->n);
	else if (!ok)
		crate_err_set(e->err, CRATE_ERR_NOTFOUND, "like: the collection is empty");
	u32vec_free(&tmp);
	if (!ok) {
		bitset_free(skip);
		return NULL;
	}
	return s;
}

/* Every analysed item except the seed's, nearest to the seed first (the
 * first `keep` of them under a LIMIT). */
static struct eres *op_similar(struct ev *e, const struct coll_node *n, size_t keep)
{
	int16_t c[MLIB_SPACE_DIMS];
	struct bitset skip;
	size_t nseed, nanalysed;
	const struct mlib_space *s = similar_seed(e, n, c, &skip, &nseed, &nanalysed);
	if (!s)
		return NULL;
	struct eres *r = eres_new_list();
	mlib_space_nearest(s, c, &skip, keep, &r->list);
	bitset_free(&skip);
	/* The space may be older than the index: keep only present items. */
	size_t k = 0;
	for (size_t i = 0; i < r->list.n; i++)
		if (mlib_index_has_media(e->idx, r->list.v[i]))
			r->list.v[k++] = r->list.v[i];
	r->list.n = k;
	return r;
}

static bool is_all_media(const char *name)
{
	return strcmp(name, "All Media") == 0;
}

/* Resolve a reference node; NULL with *err when it cannot be. */
static const struct coll_node *resolve(const struct coll_eval_ctx *ctx, const struct coll_node *n,
				       struct crate_err *err)
{
	const char *ns = coll_attr_get(n, "namespace");
	const char *name = coll_attr_get(n, "reference");
	if (!ns || !*ns)
		ns = "Collections";
	if (!name || !*name) {
		crate_err_set(err, CRATE_ERR_INVALID, "reference: attribute 'reference' is missing");
		return NULL;
	}
	const struct coll_node *t = ctx->resolve ? ctx->resolve(ctx->resolve_ud, ns, name) : NULL;
	if (!t)
		crate_err_set(err, CRATE_ERR_NOTFOUND, "reference to %s/%s: no such collection", ns, name);
	return t;
}

/* Returns the target's result, borrowed (*alias set). */
static const struct eres *op_reference(struct ev *e, const struct coll_node *n)
{
	const char *name = coll_attr_get(n, "reference");
	if (name && is_all_media(name))
		return universe(e);
	const struct coll_node *t = resolve(e->ctx, n, e->err);
	if (!t)
		return NULL;
	struct memo *m = memo_find(e, t);
	if (m && !m->done) {
		const char *ns = coll_attr_get(n, "namespace");
		crate_err_set(e->err, CRATE_ERR_REFUSED, "reference to %s/%s makes a cycle",
			      ns && *ns ? ns : "Collections", name);
		return NULL;
	}
	return eval_node(e, t);
}

static const struct eres *eval_node(struct ev *e, const struct coll_node *n)
{
	struct memo *m = memo_find(e, n);
	if (m) {
		if (!m->done) {
			crate_err_set(e->err, CRATE_ERR_REFUSED, "the collection contains a cycle");
			return NULL;
		}
		return m->res;
	}
	if (e->depth >= EVAL_MAX_DEPTH) {
		crate_err_set(e->err, CRATE_ERR_INVALID, "collection nested deeper than %d levels",
			      EVAL_MAX_DEPTH);
		return NULL;
	}
	if (e->nmemo == e->memo_cap) {
		e->memo_cap = e->memo_cap ? e->memo_cap * 2 : 16;
		e->memo = xreallocarray(e->memo, e->memo_cap, sizeof *e->memo);
	}
	size_t slot = e->nmemo++;
	e->memo[slot] = (struct memo){ n, false, NULL, false };
	e->depth++;
	const struct eres *borrowed = NULL;
	struct eres *r = NULL;
	switch (n->type) {
	case COLL_UNIVERSE: borrowed = universe(e); break;
	case COLL_REFERENCE: borrowed = op_reference(e, n); break;
	case COLL_UNION: r = op_union(e, n); break;
	case COLL_INTERSECTION: r = op_intersection(e, n); break;
	case COLL_COMPLEMENT: r = op_complement(e, n); break;
	case COLL_ORDER: r = op_order(e, n, SIZE_MAX); break;
	case COLL_LIMIT: r = op_limit(e, n); break;
	case COLL_MEDIASET: r = op_mediaset(e, n); break;
	case COLL_IDLIST: r = op_idlist(e, n); break;
	case COLL_SIMILAR: r = op_similar(e, n, SIZE_MAX); break;
	case COLL_TYPE_COUNT:
		crate_err_set(e->err, CRATE_ERR_INVALID, "unknown collection type %d", (int)n->type);
		break;
	default:
		if (coll_type_is_filter(n->type))
			r = op_filter(e, n);
		else
			crate_err_set(e->err, CRATE_ERR_INVALID, "unknown collection type %d", (int)n->type);
		break;
	}
	e->depth--;
	if (!r && !borrowed)
		return NULL;
	/* The memo array may have grown meanwhile: index, not pointer. */
	e->memo[slot].done = true;
	e->memo[slot].res = r ? r : (struct eres *)borrowed;
	e->memo[slot].alias = r == NULL;
	return e->memo[slot].res;
}

static void ev_init(struct ev *e, const struct coll_eval_ctx *ctx, struct crate_err *err)
{
	memset(e, 0, sizeof *e);
	e->ctx = ctx;
	e->idx = ctx->index;
	e->nbits = mlib_index_id_bound(ctx->index) + 1;
	e->now = ctx->now ? ctx->now : (int64_t)time(NULL);
	e->err = err;
}

static void ev_free(struct ev *e)
{
	for (size_t i = 0; i < e->nmemo; i++)
		if (!e->memo[i].alias)
			eres_free(e->memo[i].res);
	free(e->memo);
	free(e->restricted);
}

int coll_eval(const struct coll_eval_ctx *ctx, const struct coll_node *node,
	      struct coll_result *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	struct ev e;
	ev_init(&e, ctx, err);
	const struct eres *r = eval_node(&e, node);
	if (!r) {
		ev_free(&e);
		return -1;
	}
	out->ordered = r->ordered;
	if (ctx->set_out) {
		if (r->ordered)
			bitset_free(ctx->set_out);
		else
			bitset_copy(ctx->set_out, &r->bits);
	}
	if (r->ordered) {
		u32vec_reserve(&out->ids, r->list.n + 1);
		if (r->list.n)
			memcpy(out->ids.v, r->list.v, r->list.n * sizeof *r->list.v);
		out->ids.n = r->list.n;
	} else {
		/* ranks beside a list that starts empty (out->ids.n 0) */
		double t0 = ctx->timing ? coll_timing_now_ms() : 0;
		bits_to_library_list(&e, &r->bits, &out->ids, ctx->want_ranks ? &out->ranks : NULL);
		if (ctx->timing)
			ctx->timing->list_ms += coll_timing_now_ms() - t0;
	}
	ev_free(&e);
	return 0;
}

double coll_timing_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void coll_result_free(struct coll_result *r)
{
	u32vec_free(&r->ids);
	u32vec_free(&r->ranks);
	r->ordered = false;
}

/* ---- membership ---- */

#define CONTAINS_MAX_DEPTH 64

/* 1: *out answered by testing the one item; 0: needs a full evaluation
 * (limits, positions, deep reference chains); -1: error. */
static int contains_fast(const struct coll_eval_ctx *ctx, int64_t now,
			 const struct coll_node *n, uint32_t id, int depth, bool *out,
			 struct crate_err *err)
{
	const struct mlib_index *idx = ctx->index;
	if (depth > CONTAINS_MAX_DEPTH)
		return 0;
	switch (n->type) {
	case COLL_UNIVERSE:
		*out = mlib_index_has_media(idx, id);
		return 1;
	case COLL_REFERENCE: {
		const char *name = coll_attr_get(n, "reference");
		if (name && is_all_media(name)) {
			*out = mlib_index_has_media(idx, id);
			return 1;
		}
		const struct coll_node *t = resolve(ctx, n, err);
		return t ? contains_fast(ctx, now, t, id, depth + 1, out, err) : -1;
	}
	case COLL_UNION:
	case COLL_INTERSECTION: {
		bool is_union = n->type == COLL_UNION;
		*out = !is_union && n->noperands > 0;
		for (size_t i = 0; i < n->noperands; i++) {
			bool in;
			int rc = contains_fast(ctx, now, n->operands[i], id, depth + 1, &in, err);
			if (rc <= 0)
				return rc;
			if (in == is_union) {
				*out = is_union;
				return 1;
			}
		}
		return 1;
	}
	case COLL_COMPLEMENT: {
		if (n->noperands != 1)
			return 0; /* let the evaluator report it */
		bool in;
		int rc = contains_fast(ctx, now, n->operands[0], id, depth + 1, &in, err);
		if (rc <= 0)
			return rc;
		*out = !in && mlib_index_has_media(idx, id);
		return 1;
	}
	case COLL_ORDER:
	case COLL_MEDIASET: /* membership does not depend on order */
		if (n->noperands == 0) {
			*out = mlib_index_has_media(idx, id);
			return 1;
		}
		return contains_fast(ctx, now, n->operands[0], id, depth + 1, out, err);
	case COLL_IDLIST:
		*out = false;
		if (!mlib_index_has_media(idx, id))
			return 1;
		for (size_t i = 0; i < n->idlist.n && !*out; i++)
			*out = n->idlist.v[i] == id;
		return 1;
	case COLL_LIMIT:
	case COLL_TYPE_COUNT:
		return 0;
	default:
		break;
	}
	if (!coll_type_is_filter(n->type))
		return 0;
	const char *type = coll_attr_get(n, "type");
	if (type && strcmp(type, "position") == 0)
		return 0;
	if (n->noperands) {
		int rc = contains_fast(ctx, now, n->operands[0], id, depth + 1, out, err);
		if (rc <= 0 || !*out)
			return rc;
	} else if (!mlib_index_has_media(idx, id)) {
		*out = false;
		return 1;
	}
	struct coll_filter *f = coll_filter_compile(idx, n, now, err);
	if (!f)
		return -1;
	*out = coll_filter_test_item(f, id);
	coll_filter_free(f);
	return 1;
}

int coll_contains(const struct coll_eval_ctx *ctx, const struct coll_node *node, uint32_t id,
		  bool *out, struct crate_err *err)
{
	*out = false;
	int64_t now = ctx->now ? ctx->now : (int64_t)time(NULL);
	int rc = contains_fast(ctx, now, node, id, 0, out, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	struct coll_result r;
	if (coll_eval(ctx, node, &r, err) < 0)
		return -1;
	for (size_t i = 0; i < r.ids.n && !*out; i++)
		*out = r.ids.v[i] == id;
	coll_result_free(&r);
	return 0;
}

int coll_similar_explain(const struct coll_eval_ctx *ctx, const struct coll_node *n, uint32_t id,
			 struct coll_similar_info *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	struct ev e;
	ev_init(&e, ctx, err);
	int16_t c[MLIB_SPACE_DIMS];
	struct bitset skip;
	const struct mlib_space *s =
		n->type == COLL_SIMILAR ? similar_seed(&e, n, c, &skip, &out->seed, &out->seed_analysed)
					: NULL;
	if (n->type != COLL_SIMILAR)
		crate_err_set(err, CRATE_ERR_INVALID, "not a like: node");
	if (!s) {
		ev_free(&e);
		return -1;
	}
	struct u32vec order = {0};
	mlib_space_nearest(s, c, &skip, SIZE_MAX, &order);
	out->ranked = order.n;
	for (size_t i = 0; i < order.n; i++)
		if (order.v[i] == id)
			out->rank = i + 1;
	out->distance = UINT32_MAX;
	if (mlib_space_has(s, id)) {
		/* The distance to the centroid: as the ranking measured it. */
		uint32_t d = 0;
		int16_t v[MLIB_SPACE_DIMS];
		mlib_space_vector(s, id, v);
		for (size_t k = 0; k < MLIB_SPACE_DIMS; k++)
			d += (uint32_t)((v[k] - c[k]) * (v[k] - c[k]));
		out->distance = d;
	}
	u32vec_free(&order);
	bitset_free(&skip);
	ev_free(&e);
	return 0;
}
