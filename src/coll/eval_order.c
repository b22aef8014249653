/* Sorting for order nodes: keys are integers per item (dictionary ranks,
 * biased integers, ids), so comparing never touches strings. */
#include "coll/eval_order.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "base/vec.h"
#include "medialib/index.h"

struct sorter {
	const uint64_t *keys; /* nkeys rows of n keys, indexed by position */
	size_t nkeys, n;
};

static int pos_cmp(const void *pa, const void *pb, void *ud)
{
	const struct sorter *s = ud;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	for (size_t k = 0; k < s->nkeys; k++) {
		uint64_t ka = s->keys[k * s->n + a], kb = s->keys[k * s->n + b];
		if (ka != kb)
			return ka < kb ? -1 : 1;
	}
	return a < b ? -1 : a > b; /* stable: earlier position first */
}

/* Key of one item for one field: 0 when missing, else >= 1, increasing
 * with the value; descending keys are inverted (missing becomes last). */
static void fill_keys(const struct mlib_index *idx, const char *field, bool desc,
		      const uint32_t *ids, size_t n, uint64_t *out)
{
	int prop = mlib_index_prop(idx, field);
	if (prop < 0 && strcmp(field, "id") == 0) {
		for (size_t i = 0; i < n; i++)
			out[i] = ids[i];
	} else if (prop < 0) {
		memset(out, 0, n * sizeof *out);
	} else if (mlib_index_prop_kind(idx, prop) == MLIB_PROP_STRING) {
		mlib_index_first_ranks(idx, prop, ids, n, out); /* multi-valued: the first value */
	} else {
		struct mlib_int_column col;
		mlib_index_int_column(idx, prop, &col);
		/* biased: INT64_MIN (missing) becomes 0, the smallest key */
		const int32_t *c32 = col.v32;
		const int64_t *c64 = col.v64;
		size_t len = col.len;
		if (col.v8 || col.v16) { /* a mapped narrow column */
			for (size_t i = 0; i < n; i++)
				out[i] = (uint64_t)mlib_int_column_get(&col, ids[i]) ^ (1ull << 63);
		} else if (c32) {
			for (size_t i = 0; i < n; i++) {
				int32_t v = ids[i] < len ? c32[ids[i]] : MLIB_INT32_MISSING;
				int64_t w = v == MLIB_INT32_MISSING ? MLIB_INT_MISSING : v;
				out[i] = (uint64_t)w ^ (1ull << 63);
			}
		} else {
			for (size_t i = 0; i < n; i++) {
				int64_t v = ids[i] < len ? c64[ids[i]] : MLIB_INT_MISSING;
				out[i] = (uint64_t)v ^ (1ull << 63);
			}
		}
	}
	if (desc)
		for (size_t i = 0; i < n; i++)
			out[i] = ~out[i];
}

static void heap_sift_down(uint32_t *h, size_t n, size_t i, struct sorter *s)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && pos_cmp(&h[l], &h[m], s) > 0)
			m = l;
		if (r < n && pos_cmp(&h[r], &h[m], s) > 0)
			m = r;
		if (m == i)
			return;
		uint32_t t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* perm receives positions: the first `keep` in sorted order. */
static void sort_positions(struct sorter *s, uint32_t *perm, size_t n, size_t keep)
{
	if (keep >= n / 4) {
		for (size_t i = 0; i < n; i++)
			perm[i] = (uint32_t)i;
		qsort_r(perm, n, sizeof *perm, pos_cmp, s);
		return;
	}
	/* Partial selection: a max-heap of the best `keep` seen so far. */
	uint32_t *h = xmalloc((keep + 1) * sizeof *h);
	size_t hn = 0;
	const uint64_t *k0 = s->keys;
	for (size_t i = 0; i < n; i++) {
		uint32_t p = (uint32_t)i;
		/* Most items lose against the heap's worst on the first key. */
		if (hn == keep && hn > 0 && k0[p] > k0[h[0]])
			continue;
		if (hn < keep) {
			size_t c = hn++;
			h[c] = p;
			while (c > 0 && pos_cmp(&h[(c - 1) / 2], &h[c], s) < 0) {
				uint32_t t = h[c];
				h[c] = h[(c - 1) / 2];
				h[(c - 1) / 2] = t;
				c = (c - 1) / 2;
			}
		} else if (hn > 0 && pos_cmp(&p, &h[0], s) < 0) {
			h[0] = p;
			heap_sift_down(h, hn, 0, s);
		}
	}
	qsort_r(h, hn, sizeof *h, pos_cmp, s);
	struct bitset taken;
	bitset_init(&taken, n);
	for (size_t i = 0; i < hn; i++) {
		perm[i] = h[i];
		bitset_set(&taken, h[i]);
	}
	size_t o = hn;
	for (size_t i = 0; i < n; i++) /* the rest, in their old order */
		if (!bitset_test(&taken, i))
			perm[o++] = (uint32_t)i;
	bitset_free(&taken);
	free(h);
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void shuffle(uint32_t *ids, size_t n, const char *seed_text, int64_t now)
{
	uint64_t state;
	int64_t seed;
	if (seed_text && str_parse_int64(seed_text, strlen(seed_text), &seed)) {
		state = (uint64_t)seed;
	} else if (seed_text) {
		state = 1469598103934665603ull; /* FNV-1a of a non-numeric seed */
		for (const char *c = seed_text; *c; c++)
			state = (state ^ (unsigned char)*c) * 1099511628211ull;
	} else {
		state = (uint64_t)now ^ (uint64_t)(uintptr_t)ids;
	}
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(splitmix64(&state) % i);
		uint32_t t = ids[i - 1];
		ids[i - 1] = ids[j];
		ids[j] = t;
	}
}

/* Split "artist, -year" into fields; a leading '-' means descending, '+'
 * ascending. Returns the count; names are written into buf (owned by the caller). */
static size_t split_fields(const char *spec, char **buf, const char ***names, bool **desc)
{
	*buf = xstrdup(spec);
	size_t cap = 1;
	for (const char *c = spec; *c; c++)
		cap += *c == ',';
	*names = xcalloc(cap, sizeof **names);
	*desc = xcalloc(cap, sizeof **desc);
	size_t n = 0;
	for (char *tok = strtok(*buf, ","); tok; tok = strtok(NULL, ",")) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		char *e = tok + strlen(tok);
		while (e > tok && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		bool d = false;
		if (*tok == '-' || *tok == '+')
			d = *tok++ == '-';
		if (!*tok)
			continue;
		(*names)[n] = tok;
		(*desc)[n++] = d;
	}
	return n;
}

int coll_order_sort(const struct mlib_index *idx, const struct coll_node *order, uint32_t *ids,
		    size_t n, size_t keep, int64_t now, struct crate_err *err)
{
	const char *type = coll_attr_get(order, "type");
	const char *dir = coll_attr_get(order, "direction");
	bool global_desc = dir && strcasecmp(dir, "DESC") == 0;
	if (dir && !global_desc && strcasecmp(dir, "ASC") != 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "order: unknown direction '%s' (ASC or DESC)",
				     dir);
	if (type && strcmp(type, "random") == 0) {
		shuffle(ids, n, coll_attr_get(order, "seed"), now);
		return 0;
	}
	char *buf = NULL;
	const char **names = NULL;
	bool *desc = NULL;
	size_t nk;
	if (type && strcmp(type, "id") == 0) {
		buf = xstrdup("id");
		names = xcalloc(1, sizeof *names);
		desc = xcalloc(1, sizeof *desc);
		names[0] = "id";
		nk = 1;
	} else if (type && strcmp(type, "value") != 0) {
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "order: unknown type '%s' (value, id or random)", type);
	} else {
		const char *field = coll_attr_get(order, "field");
		nk = field ? split_fields(field, &buf, &names, &desc) : 0;
		if (nk == 0) {
			free(buf);
			free(names);
			free(desc);
			return crate_err_set(err, CRATE_ERR_INVALID, "order: attribute 'field' is missing");
		}
	}
	if (n > 1) {
		uint64_t *keys = xmalloc(nk * n * sizeof *keys);
		for (size_t k = 0; k < nk; k++)
			fill_keys(idx, names[k], desc[k] != global_desc, ids, n, keys + k * n);
		struct sorter s = { keys, nk, n };
		uint32_t *perm = xmalloc(n * sizeof *perm);
		sort_positions(&s, perm, n, keep);
		uint32_t *copy = xmalloc(n * sizeof *copy);
		for (size_t i = 0; i < n; i++)
			copy[i] = ids[perm[i]];
		memcpy(ids, copy, n * sizeof *ids);
		free(copy);
		free(perm);
		free(keys);
	}
	free(buf);
	free(names);
	free(desc);
	return 0;
}
