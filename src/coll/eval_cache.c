/* A small least-recently-used table of string-filter results (see
 * eval_cache.h). A handful of entries is enough: they serve the terms of
 * the query being typed. */
#include "coll/eval_cache.h"

#include <stdlib.h>
#include <string.h>

#include "base/crew.h"
#include "base/str.h"
#include "coll/typo.h"
#include "medialib/index.h"

#define CACHE_SLOTS 24
/* Ranking memos: the words of the query being typed (a title's memo is a
 * byte per distinct title). */
#define RANK_SLOTS COLL_CACHE_RANK_SLOTS

struct rank_memo {
	struct coll_cache_key key; /* key.value: the term, owned */
	uint8_t *m;
	uint64_t used;
};

/* Arrays derived from a dictionary or from the library order, of either
 * kind (eval_cache.h): a few per field. */
#define DERIVED_SLOTS (2 * COLL_CACHE_LIBRARY_SLOTS)

struct derived {
	struct coll_cache_key key; /* key.op: the kind; key.value unused (NULL) */
	void *data;
	uint64_t used;
};

struct coll_eval_cache {
	struct coll_cache_entry e[CACHE_SLOTS];
	struct coll_cache_entry *view[CACHE_SLOTS]; /* answer of coll_cache_same_dict */
	size_t n;
	uint64_t clock;
	struct coll_typo_dict *typo; /* owned; NULL until a correction is looked up */
	struct rank_memo rank[RANK_SLOTS];
	size_t nrank;
	struct derived derived[DERIVED_SLOTS];
	size_t nderived;
	struct library_boost {
		const struct mlib_index *idx;
		uint64_t edits;
		uint32_t count, bound;
		int64_t from, until; /* valid for moments in [from, until) */
		uint8_t *v;          /* owned; NULL: none kept */
	} boost;
	struct coll_cache_job job;   /* the array being made between keystrokes */
	size_t prepare_slice;        /* entries a step (0: each kind's own) */
	coll_typo_provider typo_get; /* the owner's dictionary, or NULL */
	void *typo_arg;
	unsigned typo_waits;         /* searches that went without it (pending) */
};

unsigned coll_eval_cache_typo_waits(const struct coll_eval_cache *c)
{
	return c ? c->typo_waits : 0;
}

void coll_eval_cache_typo_provider(struct coll_eval_cache *c, coll_typo_provider get, void *arg)
{
	c->typo_get = get;
	c->typo_arg = arg;
}

struct coll_eval_cache *coll_eval_cache_new(void)
{
	return xcalloc(1, sizeof(struct coll_eval_cache));
}

static void entry_free(struct coll_cache_entry *e)
{
	free((char *)e->key.value);
	free(e->needle);
	bitset_free(&e->vbits);
	bitset_free(&e->items);
	memset(e, 0, sizeof *e);
}

void coll_eval_cache_clear(struct coll_eval_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		entry_free(&c->e[i]);
	c->n = 0;
	for (size_t i = 0; i < c->nrank; i++) {
		free((char *)c->rank[i].key.value);
		free(c->rank[i].m);
	}
	c->nrank = 0;
	for (size_t i = 0; i < c->nderived; i++)
		free(c->derived[i].data);
	c->nderived = 0;
	free(c->boost.v);
	c->boost.v = NULL;
	coll_cache_job_drop(&c->job);
	coll_typo_dict_free(c->typo);
	c->typo = NULL;
}

const struct coll_typo_dict *coll_cache_typo_dict(struct coll_eval_cache *c,
						  const struct mlib_index *idx)
{
	if (c->typo_get) {
		bool pending = false;
		const struct coll_typo_dict *d = c->typo_get(c->typo_arg, idx, &pending);
		if (!d && pending)
			c->typo_waits++;
		if (d || pending)
			return d; /* pending: no corrections until the owner's build is done */
	}
	if (!coll_typo_dict_fits(c->typo, idx)) {
		coll_typo_dict_free(c->typo);
		c->typo = coll_typo_dict_build(idx);
	}
	return c->typo;
}

void coll_eval_cache_free(struct coll_eval_cache *c)
{
	coll_eval_cache_clear(c);
	free(c);
}

static bool same_dict(const struct coll_cache_key *a, const struct coll_cache_key *b)
{
	return a->idx == b->idx && a->prop == b->prop && a->ndict == b->ndict &&
	       a->bound == b->bound && a->count == b->count;
}

struct coll_cache_entry *coll_cache_find(struct coll_eval_cache *c, const struct coll_cache_key *k)
{
	for (size_t i = 0; i < c->n; i++) {
		struct coll_cache_entry *e = &c->e[i];
		if (same_dict(&e->key, k) && e->key.op == k->op && e->key.binary == k->binary &&
		    strcmp(e->key.value, k->value) == 0) {
			e->used = ++c->clock;
			return e;
		}
	}
	return NULL;
}

struct coll_cache_entry **coll_cache_same_dict(struct coll_eval_cache *c,
					       const struct coll_cache_key *k, size_t *n)
{
	size_t m = 0;
	for (size_t i = 0; i < c->n; i++)
		if (same_dict(&c->e[i].key, k))
			c->view[m++] = &c->e[i];
	*n = m;
	return c->view;
}

struct coll_cache_entry *coll_cache_store(struct coll_eval_cache *c, const struct coll_cache_key *k,
					  enum coll_cache_kind kind, const char *needle,
					  size_t nneedle)
{
	struct coll_cache_entry *e;
	if (c->n < CACHE_SLOTS) {
		e = &c->e[c->n++];
	} else {
		e = &c->e[0];
		for (size_t i = 1; i < CACHE_SLOTS; i++)
			if (c->e[i].used < e->used)
				e = &c->e[i];
		entry_free(e);
	}
	e->key = *k;
	e->key.value = xstrdup(k->value);
	e->kind = kind;
	e->needle = xmalloc(nneedle + 1);
	memcpy(e->needle, needle, nneedle);
	e->needle[nneedle] = '\0';
	e->nneedle = nneedle;
	bitset_init(&e->vbits, (size_t)k->ndict + 1);
	e->used = ++c->clock;
	return e;
}

uint8_t *coll_cache_rank_memo(struct coll_eval_cache *c, const struct coll_cache_key *k,
			      const char *term)
{
	struct rank_memo *r = NULL;
	for (size_t i = 0; i < c->nrank && !r; i++)
		if (same_dict(&c->rank[i].key, k) && strcmp(c->rank[i].key.value, term) == 0)
			r = &c->rank[i];
	if (r) {
		r->used = ++c->clock;
		return r->m;
	}
	if (c->nrank < RANK_SLOTS) {
		r = &c->rank[c->nrank++];
	} else {
		r = &c->rank[0];
		for (size_t i = 1; i < RANK_SLOTS; i++)
			if (c->rank[i].used < r->used)
				r = &c->rank[i];
		free((char *)r->key.value);
		free(r->m);
	}
	r->key = *k;
	r->key.value = xstrdup(term);
	r->m = xcalloc((size_t)k->ndict + 1, 1);
	r->used = ++c->clock;
	return r->m;
}

/* Building a library-order column: 1M random reads, shared in this many
 * pieces by both cores once it is large enough to pay for the thread. */
#define LIBRARY_CODE_PARTS 8
#define LIBRARY_CODE_SHARE_MIN (1u << 16)

struct code_build {
	const uint32_t *order;
	size_t n;
	struct mlib_str_column col;
	uint32_t *code;
};

static void code_build_part(void *ctx, size_t part)
{
	const struct code_build *b = ctx;
	size_t lo = b->n * part / LIBRARY_CODE_PARTS, hi = b->n * (part + 1) / LIBRARY_CODE_PARTS;
	for (size_t r = lo; r < hi; r++)
		b->code[r] = mlib_str_column_code(&b->col, b->order[r]);
}

static struct derived *derived_find(const struct coll_eval_cache *c, int kind,
				    const struct coll_cache_key *k)
{
	for (size_t i = 0; i < c->nderived; i++)
		if (c->derived[i].key.op == kind && same_dict(&c->derived[i].key, k))
			return (struct derived *)&c->derived[i];
	return NULL;
}

const void *coll_cache_derived_find(const struct coll_eval_cache *c, enum coll_cache_derived kind,
				    const struct coll_cache_key *k)
{
	const struct derived *d = derived_find(c, (int)kind, k);
	return d ? d->data : NULL;
}

/* A slot for a new array of kind for k: a free one, or the least
 * recently used one's, its array freed. */
static struct derived *derived_slot(struct coll_eval_cache *c, enum coll_cache_derived kind,
				    const struct coll_cache_key *k)
{
	struct derived *d;
	if (c->nderived < DERIVED_SLOTS) {
		d = &c->derived[c->nderived++];
	} else {
		d = &c->derived[0];
		for (size_t i = 1; i < DERIVED_SLOTS; i++)
			if (c->derived[i].used < d->used)
				d = &c->derived[i];
		free(d->data);
	}
	d->key = *k;
	d->key.op = (int)kind;
	d->key.value = NULL;
	d->data = NULL;
	d->used = ++c->clock;
	return d;
}

void *coll_cache_derived(struct coll_eval_cache *c, enum coll_cache_derived kind,
			 const struct coll_cache_key *k, size_t bytes, bool *fresh)
{
	struct derived *d = derived_find(c, (int)kind, k);
	*fresh = !d;
	if (d) {
		d->used = ++c->clock;
		return d->data;
	}
	d = derived_slot(c, kind, k);
	d->data = xmalloc(bytes ? bytes : 1);
	return d->data;
}

void *coll_cache_derived_adopt(struct coll_eval_cache *c, enum coll_cache_derived kind,
			       const struct coll_cache_key *k, void *data)
{
	struct derived *d = derived_find(c, (int)kind, k);
	if (d) {
		free(data);
	} else {
		d = derived_slot(c, kind, k);
		d->data = data;
	}
	d->used = ++c->clock;
	return d->data;
}

size_t coll_cache_prepare_slice(const struct coll_eval_cache *c)
{
	return c->prepare_slice;
}

void coll_eval_cache_set_prepare_slice(struct coll_eval_cache *c, size_t entries)
{
	c->prepare_slice = entries;
}

struct coll_cache_job *coll_cache_job(struct coll_eval_cache *c)
{
	return &c->job;
}

void coll_cache_job_drop(struct coll_cache_job *j)
{
	free(j->data);
	*j = (struct coll_cache_job){.kind = COLL_JOB_NONE};
}

void *coll_cache_job_take(struct coll_eval_cache *c, enum coll_cache_job_kind kind,
			  const struct coll_cache_key *k, size_t *done)
{
	struct coll_cache_job *j = &c->job;
	if (j->kind != kind || !j->data || !same_dict(&j->key, k))
		return NULL;
	void *data = j->data;
	*done = j->done;
	j->data = NULL;
	coll_cache_job_drop(j);
	return data;
}

void coll_cache_library_codes_fill(const struct coll_cache_key *k, uint32_t *code, size_t lo,
				   size_t hi)
{
	const struct u32vec *order = mlib_index_library_order(k->idx);
	hi = hi < order->n ? hi : order->n;
	if (lo >= hi)
		return;
	struct code_build b = {.order = order->v + lo, .n = hi - lo, .code = code + lo};
	if (!mlib_index_str_column(k->idx, k->prop, &b.col))
		memset(&b.col, 0, sizeof b.col); /* no item has it: every code missing */
	crew_run(LIBRARY_CODE_PARTS, b.n >= LIBRARY_CODE_SHARE_MIN, code_build_part, &b);
}

const uint32_t *coll_cache_library_codes(struct coll_eval_cache *c, const struct coll_cache_key *k)
{
	struct derived *d = derived_find(c, COLL_CACHE_LIBRARY_CODES, k);
	if (d) {
		d->used = ++c->clock;
		return d->data;
	}
	const struct u32vec *order = mlib_index_library_order(k->idx);
	size_t done = 0;
	uint32_t *code = coll_cache_job_take(c, COLL_JOB_CODES, k, &done);
	if (!code)
		code = xmalloc((order->n + 1) * sizeof *code);
	coll_cache_library_codes_fill(k, code, done, order->n);
	return coll_cache_derived_adopt(c, COLL_CACHE_LIBRARY_CODES, k, code);
}

const uint8_t *coll_cache_library_boost(const struct coll_eval_cache *c,
					const struct mlib_index *idx, int64_t now)
{
	const struct library_boost *b = &c->boost;
	bool holds = b->v && b->idx == idx && b->edits == mlib_index_edits(idx) &&
		     b->count == mlib_index_count(idx) && b->bound == mlib_index_id_bound(idx) &&
		     now >= b->from && now < b->until;
	return holds ? b->v : NULL;
}

void coll_cache_library_boost_adopt(struct coll_eval_cache *c, const struct mlib_index *idx,
				    int64_t from, int64_t until, uint8_t *v)
{
	struct library_boost *b = &c->boost;
	free(b->v);
	*b = (struct library_boost){.idx = idx, .edits = mlib_index_edits(idx),
				    .count = mlib_index_count(idx),
				    .bound = mlib_index_id_bound(idx), .from = from, .until = until,
				    .v = v};
}

