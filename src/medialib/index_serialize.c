/* The index as the blobs of a snapshot file (the file itself, header and
 * checksum: index_snapshot.c). See mlib_index_snapshot_write in index.h. */
#include "medialib/index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "medialib/index_internal.h"
#include "medialib/index_snapshot.h"

/* ---- snapshot (see index_snapshot.h for the file around this) ----
 * The finished index, array by array, one section each. Read back, every
 * array points into the mapped file (mlib_index_snapshot_map: a one-shot
 * command touches only the pages its query needs) or is copied out of it
 * into an allocation of exactly its length (mlib_index_snapshot_read: an
 * index owned, freed and grown exactly like a built one). Neither does
 * per-string work. The hash tables (dropped at finish) are not stored;
 * ranks are stored when finish built them.
 *
 * What is cheap to derive is not stored (format 5; about 40 bytes per
 * track at a million): the ascending id list (the present bits say it),
 * the library rank per id (the inverse of the library order; both are
 * derived on first use by a mapped index, which may never need them,
 * and at snapshot_read), a dictionary's original-text offsets when every text equals its
 * folded form (raw_len 0: urls; the mapped dictionary has raw_off NULL,
 * see index_dict_text), the items-by-value lists (built on first need by
 * an owned index, at snapshot_read for the searched fields as at finish; a
 * mapped index, which answers one query, scans the column instead) and
 * a column's growth room past the id bound (col_cap is stored as at most
 * bound; an owned index grows it again on demand).
 *
 * Ownership: while idx->map is set, an array whose address lies in the
 * mapping belongs to the mapping (read-only, lives until the index is
 * freed or index_map_release copies it out); anything computed later on
 * first use (ranks, items-by-value lists) is the index's own allocation,
 * so lazily filled caches work on a read-only mapping. The derived arrays
 * above (all_ids, lib_rank, a materialised raw_off, postings) are such
 * allocations: mlib_index_free frees them, index_map_drop leaves them. */

#define SNAP_PROP_FIELDS 11
#define SNAP_PROP_ARRAYS 11
#define SNAP_PROP_SECTIONS (2 + SNAP_PROP_ARRAYS)
#define SNAP_ITEM_ARRAYS 2
#define SNAP_ITEM_SECTIONS (1 + SNAP_ITEM_ARRAYS)

/* One array of the index: where its pointer is, its element size and its
 * length in elements as the index's counts state it. */
struct snap_arr {
	void **p;
	size_t elem, n;
};

/* A property's arrays in file order; ranks as present or not. raw_off
 * has no entries when no text differs from its folded form (raw_len 0). */
static void prop_arrays(struct prop *p, struct snap_arr a[SNAP_PROP_ARRAYS], bool has_rank)
{
	struct dict *d = &p->d;
	size_t n = d->n;
	if (p->nw)
		a[0] = (struct snap_arr){&p->ncol, p->nw, p->col_cap};
	else if (p->kind == MLIB_PROP_STRING)
		a[0] = (struct snap_arr){(void **)&p->scol, sizeof *p->scol, p->col_cap};
	else if (p->wide)
		a[0] = (struct snap_arr){(void **)&p->icol, sizeof *p->icol, p->col_cap};
	else
		a[0] = (struct snap_arr){(void **)&p->icol32, sizeof *p->icol32, p->col_cap};
	a[1] = (struct snap_arr){(void **)&p->multi, sizeof *p->multi, p->multi_len};
	a[2] = (struct snap_arr){(void **)&p->multi_ids.v, sizeof *p->multi_ids.v, p->multi_ids.n};
	a[3] = (struct snap_arr){(void **)&d->fold, 1, n ? d->fold_len : 0};
	a[4] = (struct snap_arr){(void **)&d->raw, 1, n ? d->raw_len : 0};
	a[5] = (struct snap_arr){(void **)&d->fold_off, sizeof *d->fold_off, n ? n + 1 : 0};
	a[6] = (struct snap_arr){(void **)&d->raw_off, sizeof *d->raw_off, d->raw_len ? n : 0};
	a[7] = (struct snap_arr){(void **)&d->numbits, sizeof *d->numbits, (n + 63) / 64};
	a[8] = (struct snap_arr){(void **)&d->num_vid, sizeof *d->num_vid, d->nnum};
	a[9] = (struct snap_arr){(void **)&d->num_val, sizeof *d->num_val, d->nnum};
	a[10] = (struct snap_arr){(void **)&d->rank, sizeof *d->rank, has_rank ? n : 0};
}

/* The items stored in the file, in order (after the index head); all_ids
 * and lib_rank are derived from them (items_derive). */
static void item_arrays(struct mlib_index *idx, struct snap_arr a[SNAP_ITEM_ARRAYS])
{
	a[0] = (struct snap_arr){(void **)&idx->present.w, sizeof *idx->present.w,
				 bitset_words(&idx->present)};
	a[1] = (struct snap_arr){(void **)&idx->lib_order.v, sizeof *idx->lib_order.v,
				 idx->lib_order.n};
}

/* The column entries written: up to the id bound (entries past it are
 * all missing: growth room). */
static size_t prop_col_len(const struct mlib_index *idx, const struct prop *p)
{
	return p->col_cap < idx->bound ? p->col_cap : idx->bound;
}

/* An integer column at the width its values need: 1 or 2 bytes when the
 * values span fewer than 255 or 65535 (stored minus *base, the largest
 * stored value for missing; years, track and disc numbers, channels,
 * sample rates, bit rates, constant columns), else NULL (written as it
 * is: 4 or 8 bytes). Allocated; *width its bytes per item. */
static void *int_narrow(const struct prop *p, size_t len, unsigned *width, int64_t *base)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t id = 0; id < len; id++) {
		int64_t v = index_icol_get(p, id);
		if (v == INT_MISSING)
			continue;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (lo > hi)
		lo = hi = 0; /* no values */
	uint64_t span = (uint64_t)hi - (uint64_t)lo;
	/* The reader takes a base up to INT64_MAX - UINT16_MAX (so that base
	 * + any stored value fits): a column near the top stays wide, or it
	 * would be refused at every start and rewritten the same. */
	if (span >= UINT16_MAX || lo > INT64_MAX - UINT16_MAX)
		return NULL;
	*width = span < UINT8_MAX ? 1 : 2;
	*base = lo;
	void *out = xmalloc((len ? len : 1) * *width);
	for (size_t id = 0; id < len; id++) {
		int64_t v = index_icol_get(p, id);
		uint64_t s = v == INT_MISSING ? UINT64_MAX : (uint64_t)v - (uint64_t)lo;
		if (*width == 1)
			((uint8_t *)out)[id] = (uint8_t)(s == UINT64_MAX ? UINT8_MAX : s);
		else
			((uint16_t *)out)[id] = (uint16_t)(s == UINT64_MAX ? UINT16_MAX : s);
	}
	return out;
}

/* A string column of single values at 1 or 2 bytes per item when every
 * value id fits below UINT8_MAX or UINT16_MAX (formats, genres, dates,
 * album artists, artists of most libraries), else NULL (4 bytes).
 * Allocated; *width its bytes per item. */
static void *str_narrow(const struct prop *p, size_t len, unsigned *width)
{
	if (p->multi_len || p->d.n >= UINT16_MAX)
		return NULL;
	*width = p->d.n < UINT8_MAX ? 1 : 2;
	void *out = xmalloc((len ? len : 1) * *width);
	for (size_t id = 0; id < len; id++) {
		uint32_t c = index_scol_get(p, id);
		if (c & STR_MULTI)
			c = UINT32_MAX; /* (only STR_MISSING: no groups) */
		if (*width == 1)
			((uint8_t *)out)[id] = (uint8_t)(c >= UINT8_MAX ? UINT8_MAX : c);
		else
			((uint16_t *)out)[id] = (uint16_t)(c >= UINT16_MAX ? UINT16_MAX : c);
	}
	return out;
}

static void prop_snap_write(struct snap_writer *w, const struct mlib_index *idx,
			    const struct prop *cp)
{
	struct prop *p = (struct prop *)cp; /* prop_arrays hands out pointers; only read here */
	const struct dict *d = &p->d;
	size_t col_len = prop_col_len(idx, p);
	unsigned width = p->kind == MLIB_PROP_INT && p->wide ? 8 : 4;
	int64_t base = 0;
	void *narrow = p->kind == MLIB_PROP_INT ? int_narrow(p, col_len, &width, &base)
						: str_narrow(p, col_len, &width);
	uint64_t head[SNAP_PROP_FIELDS] = {
		(uint64_t)p->kind, width, col_len, p->multi_len, p->multi_ids.n, d->n,
		d->fold_len, d->raw_len, d->nnum, d->rank != NULL, (uint64_t)base,
	};
	snap_put(w, p->name, strlen(p->name));
	snap_put(w, head, sizeof head);
	struct snap_arr a[SNAP_PROP_ARRAYS];
	prop_arrays(p, a, d->rank != NULL);
	a[0].n = col_len;
	if (narrow)
		a[0] = (struct snap_arr){&narrow, width, col_len};
	for (int i = 0; i < SNAP_PROP_ARRAYS; i++)
		snap_put(w, *a[i].p, a[i].n * a[i].elem);
	free(narrow);
}

int mlib_index_snapshot_write(const struct mlib_index *idx, const char *path,
			      const struct snap_key *key, struct crate_err *err)
{
	/* A mapped index writes only what passed its checks. */
	for (int i = 0; i < idx->nprops; i++)
		index_map_check(idx, i, INDEX_GROUP_ALL);
	struct snap_writer *w = snap_writer_open(path, err);
	if (!w)
		return -1;
	uint64_t head[4] = { (uint64_t)idx->nprops, idx->present.nbits, idx->bound, idx->count };
	snap_put(w, head, sizeof head);
	struct snap_arr a[SNAP_ITEM_ARRAYS];
	item_arrays((struct mlib_index *)idx, a); /* only read here */
	for (int i = 0; i < SNAP_ITEM_ARRAYS; i++)
		snap_put(w, *a[i].p, a[i].n * a[i].elem);
	for (int i = 0; i < idx->nprops; i++)
		prop_snap_write(w, idx, &idx->props[i]);
	return snap_writer_commit(w, key, idx->count, err);
}

/* Point each of a[0..n) at its section in place; false (cursor failed)
 * when a section holds another count than the index states. */
static bool view_arrays(struct snap_cursor *c, const struct snap_arr *a, int n)
{
	for (int i = 0; i < n; i++) {
		size_t got;
		*a[i].p = (void *)snap_view(c, a[i].elem, &got); /* read-only: see ownership above */
		if (got != a[i].n) {
			snap_fail(c, "an array has the wrong length");
			return false;
		}
	}
	return true;
}

/* A property's name, head and arrays, in place. Only sizes are checked
 * here (every array holds what the head says); contents are checked on
 * first use, group by group (index_map_check). */
static bool prop_snap_map(struct snap_cursor *c, struct prop *p)
{
	size_t n;
	const char *name = snap_view(c, 1, &n);
	if (!name || memchr(name, '\0', n) || !snap_map_check(c->m, c->next - 1, 1)) {
		snap_fail(c, "bad property name");
		return false;
	}
	p->name = xstrndup(name, n); /* owned: names are looked up before any check */
	uint64_t h[SNAP_PROP_FIELDS];
	if (!snap_get_fixed(c, h, sizeof h))
		return false;
	/* Sizes the code's 32-bit offsets and the STR_MULTI tag can address;
	 * column widths: 1, 2 (single values only) or 4 for strings, 1, 2, 4
	 * or 8 for integers (a base with 1 and 2 that keeps every value off
	 * INT_MISSING and in range). */
	int64_t base = (int64_t)h[10];
	bool width_ok = h[0] == MLIB_PROP_STRING
				? base == 0 && (h[1] == 4 || ((h[1] == 1 || h[1] == 2) && h[3] == 0))
			: h[1] == 4 || h[1] == 8 ? base == 0
			: (h[1] == 1 || h[1] == 2) && base > INT64_MIN && base <= INT64_MAX - UINT16_MAX;
	if (h[0] > MLIB_PROP_INT || !width_ok ||
	    h[2] > STR_MULTI || h[3] >= STR_MULTI || h[4] > h[2] || h[5] >= STR_MULTI ||
	    h[6] >= UINT32_MAX || h[7] >= UINT32_MAX || h[8] > h[5] || h[9] > 1) {
		snap_fail(c, "bad property header");
		return false;
	}
	p->kind = (enum mlib_prop_kind)h[0];
	p->wide = h[1] == 8;
	p->nw = h[1] < 4 ? (uint8_t)h[1] : 0;
	p->nbase = base;
	if (p->nw)
		index_vid_ident_ready(); /* before any reader points into it */
	p->col_cap = h[2];
	p->multi_len = p->multi_cap = h[3];
	p->multi_ids.n = p->multi_ids.cap = h[4];
	struct dict *d = &p->d;
	uint64_t nd = h[5];
	d->n = d->cap = (uint32_t)nd;
	d->fold_len = d->fold_cap = nd ? h[6] : 0;
	d->raw_len = d->raw_cap = nd ? h[7] : 0;
	d->nnum = d->num_cap = h[8];
	struct snap_arr a[SNAP_PROP_ARRAYS];
	prop_arrays(p, a, h[9]);
	if (!view_arrays(c, a, SNAP_PROP_ARRAYS))
		return false;
	if (!d->raw_len)
		d->raw_off = NULL; /* every text its folded form (not stored) */
	return true;
}

/* Every offset and id the reading functions (and later additions) follow
 * stays inside its array: a snapshot that passed its checksum but is
 * inconsistent anyway (written by a buggy build, forged) must not crash.
 * Each offset is checked against its array's length before it is used. */
/* The structure of each group of a property's arrays, checked on its own
 * (a mapped index checks a group when something first reads it). */

/* Texts: value v is fold[fold_off[v] .. fold_off[v+1]-1), NUL-ended. */
static bool fold_valid(const struct prop *p)
{
	const struct dict *d = &p->d;
	if (d->n == 0)
		return true;
	if (d->fold_len == 0 || d->fold_off[0] != 0 || d->fold_off[d->n] != d->fold_len)
		return false;
	for (uint32_t v = 0; v < d->n; v++) {
		uint32_t end = d->fold_off[v + 1];
		if (end <= d->fold_off[v] || end > d->fold_len || d->fold[end - 1] != '\0')
			return false;
	}
	return true;
}

/* Original texts: inside raw, which ends in a NUL (so does every text). */
static bool raw_valid(const struct prop *p)
{
	const struct dict *d = &p->d;
	for (uint32_t v = 0; d->raw_off && v < d->n; v++)
		if (d->raw_off[v] != RAW_SAME && d->raw_off[v] >= d->raw_len)
			return false;
	return !d->raw_len || d->raw[d->raw_len - 1] == '\0';
}

/* Numbers: a bit per value exactly for the values listed, ascending
 * (index_dict_number's binary search relies on both). */
static bool num_valid(const struct prop *p)
{
	const struct dict *d = &p->d;
	if (d->n == 0)
		return d->nnum == 0;
	size_t bits = 0, nw = ((size_t)d->n + 63) / 64;
	for (size_t w = 0; w < nw; w++)
		bits += (size_t)__builtin_popcountll(d->numbits[w]);
	if (bits != d->nnum || (d->n % 64 && d->numbits[nw - 1] >> (d->n % 64)))
		return false;
	for (size_t i = 0; i < d->nnum; i++) {
		uint32_t v = d->num_vid[i];
		if (v >= d->n || (i && v <= d->num_vid[i - 1]) || !((d->numbits[v >> 6] >> (v & 63)) & 1) ||
		    !isfinite(d->num_val[i]))
			return false;
	}
	return true;
}

static bool rank_valid(const struct prop *p)
{
	for (uint32_t v = 0; p->d.rank && v < p->d.n; v++)
		if (p->d.rank[v] >= p->d.n)
			return false;
	return true;
}

/* Items by value: ascending offsets, item ids inside the column. */
static bool post_valid(const struct prop *p)
{
	if (!p->post_off)
		return true;
	if (p->post_off[0] != 0)
		return false;
	for (uint32_t v = 0; v < p->d.n; v++)
		if (p->post_off[v + 1] < p->post_off[v])
			return false;
	for (uint32_t k = 0; k < p->post_off[p->d.n]; k++)
		if (p->post[k] >= p->col_cap)
			return false;
	return true;
}

/* The column: value ids inside the dictionary, multi-value groups inside
 * multi, items listed as holding a group inside the column. */
static bool col_valid(const struct prop *p)
{
	for (size_t i = 0; i < p->multi_ids.n; i++)
		if (p->multi_ids.v[i] >= p->col_cap)
			return false;
	if (p->kind != MLIB_PROP_STRING)
		return true;
	for (size_t id = 0; id < p->col_cap; id++) {
		uint32_t c = index_scol_get(p, id);
		if (c == STR_MISSING)
			continue;
		if (!(c & STR_MULTI)) {
			if (c >= p->d.n)
				return false;
			continue;
		}
		size_t off = c & ~STR_MULTI;
		if (off >= p->multi_len || p->multi[off] == 0 || p->multi[off] > p->multi_len - off - 1)
			return false;
		for (uint32_t k = 1; k <= p->multi[off]; k++)
			if (p->multi[off + k] >= p->d.n)
				return false;
	}
	return true;
}

/* ---- groups: what a mapped index checks together ---- */

/* Per group: its sections (indices within the property's 13, see
 * prop_snap_write: name, head, then the arrays of prop_arrays) and its
 * structure. Items-by-value lists are never in the file: always the
 * index's own, built from a checked column. */
static const struct {
	unsigned char sec[3], nsec;
	bool (*valid)(const struct prop *p);
} groups[INDEX_GROUPS] = {
	[INDEX_GROUP_COL] = {{2, 3, 4}, 3, col_valid},
	[INDEX_GROUP_FOLD] = {{5, 7}, 2, fold_valid},
	[INDEX_GROUP_RAW] = {{6, 8}, 2, raw_valid},
	[INDEX_GROUP_NUM] = {{9, 10, 11}, 3, num_valid},
	[INDEX_GROUP_RANK] = {{12}, 1, rank_valid},
	[INDEX_GROUP_POST] = {{0}, 0, post_valid},
	[INDEX_GROUP_RAW_OFF] = {{8}, 1, raw_valid},
};

/* The items from the file: ids present below bound (never 0), count of
 * them, and the library order a permutation of them (each id present and
 * seen once: a bitset of bound bits, not the 4 bytes per id of lib_rank).
 * all_ids and lib_rank are derived later (index_items_derive). */
static bool items_snap_valid(const struct mlib_index *idx)
{
	if (idx->bound > idx->present.nbits || idx->lib_order.n != idx->count ||
	    bitset_test(&idx->present, 0))
		return false;
	size_t bits = 0, nw = bitset_words(&idx->present), bw = idx->bound / 64;
	for (size_t w = 0; w < nw; w++) {
		uint64_t x = idx->present.w[w];
		if (x && (w > bw || (w == bw && x >> (idx->bound % 64))))
			return false; /* an id at or past bound */
		bits += (size_t)__builtin_popcountll(x);
	}
	if (bits != idx->count)
		return false;
	struct bitset seen;
	bitset_init(&seen, (size_t)idx->bound + 1);
	bool ok = true;
	for (uint32_t r = 0; ok && r < idx->count; r++) {
		uint32_t id = idx->lib_order.v[r];
		ok = id < idx->bound && bitset_test(&idx->present, id) && !bitset_test(&seen, id);
		if (ok)
			bitset_set(&seen, id);
	}
	bitset_free(&seen);
	return ok;
}

void index_items_derive(struct mlib_index *idx)
{
	u32vec_free(&idx->all_ids);
	u32vec_reserve(&idx->all_ids, (size_t)idx->count + 1);
	for (size_t w = 0; w < bitset_words(&idx->present); w++) {
		uint64_t bits = idx->present.w[w];
		while (bits) {
			idx->all_ids.v[idx->all_ids.n++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			bits &= bits - 1;
		}
	}
	uint32_t *rank = xmalloc(((size_t)idx->bound + 1) * sizeof *rank);
	memset(rank, 0xff, ((size_t)idx->bound + 1) * sizeof *rank);
	for (uint32_t r = 0; r < idx->lib_order.n; r++)
		rank[idx->lib_order.v[r]] = r;
	free(idx->lib_rank);
	idx->lib_rank = rank;
}

void index_map_derive_items_slow(const struct mlib_index *cidx)
{
	struct mlib_index *idx = (struct mlib_index *)cidx; /* derived arrays are caches */
	struct index_map *map = idx->map;
	pthread_mutex_lock(&map->lock);
	if (!map->items_derived) {
		index_items_derive(idx);
		map->items_derived = true; /* published after the arrays */
	}
	pthread_mutex_unlock(&map->lock);
}

/* ---- the mapped index ---- */

/* Set every array of p that lies in m to NULL (the mapping owns it). */
static void prop_forget_mapped(struct prop *p, const struct snap_map *m)
{
	struct snap_arr a[SNAP_PROP_ARRAYS];
	prop_arrays(p, a, p->d.rank != NULL);
	for (int i = 0; i < SNAP_PROP_ARRAYS; i++)
		if (snap_map_contains(m, *a[i].p))
			*a[i].p = NULL;
}

/* Group g of p failed its check: its arrays are replaced by harmless ones
 * of the same sizes (a reader may hold the dictionary size or the column
 * length already), owned by the index; the mapped ones are never read
 * again. */
static void group_neutralise(struct prop *p, int g)
{
	struct dict *d = &p->d;
	size_t n = d->n;
	switch (g) {
	case INDEX_GROUP_COL:
		if (p->kind == MLIB_PROP_STRING) {
			p->nw = 0; /* a narrow one stays in the mapping */
			p->ncol = NULL;
			p->scol = xmalloc((p->col_cap + 1) * sizeof *p->scol);
			for (size_t i = 0; i < p->col_cap; i++)
				p->scol[i] = STR_MISSING;
		} else if (p->wide && !p->nw) {
			p->icol = xmalloc((p->col_cap + 1) * sizeof *p->icol);
			for (size_t i = 0; i < p->col_cap; i++)
				p->icol[i] = INT_MISSING;
		} else {
			p->nw = 0; /* the narrow one stays in the mapping */
			p->ncol = NULL;
			p->wide = false;
			p->icol32 = xmalloc((p->col_cap + 1) * sizeof *p->icol32);
			for (size_t i = 0; i < p->col_cap; i++)
				p->icol32[i] = INT32_MISSING;
		}
		p->multi = NULL;
		p->multi_len = p->multi_cap = 0;
		p->multi_ids = (struct u32vec){0};
		break;
	case INDEX_GROUP_FOLD: /* every value "" */
		d->fold = xcalloc(n + 1, 1);
		d->fold_len = d->fold_cap = n;
		d->fold_off = xmalloc((n + 1) * sizeof *d->fold_off);
		for (size_t v = 0; v <= n; v++)
			d->fold_off[v] = (uint32_t)v;
		break;
	case INDEX_GROUP_RAW: /* every text its folded form */
	case INDEX_GROUP_RAW_OFF:
		d->raw = NULL;
		d->raw_len = d->raw_cap = 0;
		d->raw_off = xmalloc((n + 1) * sizeof *d->raw_off);
		for (size_t v = 0; v < n; v++)
			d->raw_off[v] = RAW_SAME;
		break;
	case INDEX_GROUP_NUM: /* no numbers */
		d->numbits = xcalloc((n + 63) / 64 + 1, sizeof *d->numbits);
		d->num_vid = NULL;
		d->num_val = NULL;
		d->nnum = d->num_cap = 0;
		break;
	case INDEX_GROUP_RANK: /* computed again on first need */
		d->rank = NULL;
		break;
	case INDEX_GROUP_POST: /* built again on first need */
		p->post_off = p->post = NULL;
		break;
	}
}

void index_map_check_slow(const struct mlib_index *cidx, int i, unsigned mask)
{
	/* The check state and a neutralised group are caches of the file's
	 * verdict: reading functions take a const index. */
	struct mlib_index *idx = (struct mlib_index *)cidx;
	struct index_map *map = idx->map;
	struct prop *p = &idx->props[i];
	pthread_mutex_lock(&map->lock);
	unsigned done = map->props[i].checked;
	for (int g = 0; g < INDEX_GROUPS; g++) {
		if (!(mask & (1u << g)) || (done & (1u << g)))
			continue;
		bool ok = groups[g].valid(p);
		for (int k = 0; ok && k < groups[g].nsec; k++)
			ok = snap_map_check(map->snap, map->props[i].first + groups[g].sec[k], 1);
		if (!ok) {
			/* Texts rest on RAW_OFF's offsets: once those passed, a
			 * reader on another thread may hold an offset and be
			 * about to read the blob, so a bad blob checksum only
			 * marks the index damaged (the answer is dropped) and
			 * swaps no arrays under it; the structure it relies on
			 * was proven by RAW_OFF's check. */
			if (!(g == INDEX_GROUP_RAW && (done & IG(RAW_OFF))))
				group_neutralise(p, g);
			idx->damaged = true;
		}
		done |= 1u << g;
		/* RAW covers RAW_OFF; texts neutralised are so for both. */
		if (g == INDEX_GROUP_RAW || (g == INDEX_GROUP_RAW_OFF && !ok))
			done |= IG(RAW) | IG(RAW_OFF);
	}
	map->props[i].checked = done; /* published after the arrays it covers */
	pthread_mutex_unlock(&map->lock);
}

/* Past this many texts of a property checked one by one, the rest are
 * checked at once (a long listing: hashing the whole blob once costs
 * less than a lookup per text). */
#define INDEX_TEXTS_ONE_BY_ONE 1024u

void index_map_check_text(const struct mlib_index *cidx, int i, size_t off, size_t len)
{
	struct mlib_index *idx = (struct mlib_index *)cidx; /* the verdict is a cache */
	struct index_map *map = idx->map;
	if (++map->props[i].texts > INDEX_TEXTS_ONE_BY_ONE) {
		index_map_check(idx, i, IG(RAW)); /* damage neutralises it and marks idx */
		return;
	}
	size_t sec = map->props[i].first + groups[INDEX_GROUP_RAW].sec[0];
	if (!snap_map_check_range(map->snap, sec, off, len))
		idx->damaged = true;
}

/* A copy of *p's n elements of elem bytes when it lies in m. */
static void own_array(const struct snap_map *m, void **p, size_t elem, size_t n)
{
	if (!snap_map_contains(m, *p))
		return;
	void *copy = n ? xmalloc(n * elem) : NULL;
	if (n)
		memcpy(copy, *p, n * elem);
	*p = copy;
}

static void own_arrays(const struct snap_map *m, const struct snap_arr *a, int n)
{
	for (int i = 0; i < n; i++)
		own_array(m, a[i].p, a[i].elem, a[i].n);
}

static void map_free(struct index_map *map)
{
	snap_map_free(map->snap);
	pthread_mutex_destroy(&map->lock);
	free(map->props);
	free(map);
}

/* Copies of p's arrays that lie in m (p checked); original-text offsets
 * not stored become an owned array of RAW_SAME (an owned dictionary always
 * has one entry per value: index_dict.c grows it). */
static void prop_own(struct prop *p, const struct snap_map *m)
{
	if (p->nw && p->kind == MLIB_PROP_STRING) { /* owned: 32 bits (index.c writes it) */
		uint32_t *col = xmalloc((p->col_cap ? p->col_cap : 1) * sizeof *col);
		for (size_t id = 0; id < p->col_cap; id++)
			col[id] = index_scol_get(p, id);
		p->scol = col;
		p->nw = 0;
		p->ncol = NULL; /* the mapping's */
	}
	if (p->nw) { /* an owned column is 32 or 64 bits wide (index.c writes it) */
		int64_t top = p->nbase + (p->nw == 1 ? UINT8_MAX - 1 : UINT16_MAX - 1);
		bool fits = p->nbase > INT32_MISSING && top <= INT32_MAX;
		void *col = xmalloc((p->col_cap ? p->col_cap : 1) * (fits ? 4 : 8));
		for (size_t id = 0; id < p->col_cap; id++) {
			int64_t v = index_icol_get(p, id);
			if (fits)
				((int32_t *)col)[id] = v == INT_MISSING ? INT32_MISSING : (int32_t)v;
			else
				((int64_t *)col)[id] = v;
		}
		if (fits)
			p->icol32 = col;
		else
			p->icol = col;
		p->wide = !fits;
		p->nw = 0;
		p->ncol = NULL; /* the mapping's */
	}
	struct snap_arr a[SNAP_PROP_ARRAYS];
	prop_arrays(p, a, p->d.rank != NULL);
	own_arrays(m, a, SNAP_PROP_ARRAYS);
	struct dict *d = &p->d;
	if (d->n && !d->raw_off) {
		d->raw_off = xmalloc((size_t)d->n * sizeof *d->raw_off);
		memset(d->raw_off, 0xff, (size_t)d->n * sizeof *d->raw_off); /* RAW_SAME */
	}
}

void index_map_own_prop(struct mlib_index *idx, int i)
{
	if (!idx->map)
		return;
	index_map_check(idx, i, INDEX_GROUP_ALL);
	prop_own(&idx->props[i], idx->map->snap);
}

void index_map_release(struct mlib_index *idx)
{
	struct index_map *map = idx->map;
	if (!map)
		return;
	for (int i = 0; i < idx->nprops; i++)
		index_map_check(idx, i, INDEX_GROUP_ALL);
	index_map_derive_items(idx);
	struct snap_arr a[SNAP_ITEM_ARRAYS];
	item_arrays(idx, a);
	own_arrays(map->snap, a, SNAP_ITEM_ARRAYS);
	for (int i = 0; i < idx->nprops; i++)
		prop_own(&idx->props[i], map->snap);
	idx->map = NULL;
	map_free(map);
}

void index_map_drop(struct mlib_index *idx)
{
	struct index_map *map = idx->map;
	if (!map)
		return;
	struct snap_arr a[SNAP_ITEM_ARRAYS];
	item_arrays(idx, a);
	for (int i = 0; i < SNAP_ITEM_ARRAYS; i++)
		if (snap_map_contains(map->snap, *a[i].p))
			*a[i].p = NULL;
	for (int i = 0; i < idx->nprops; i++)
		prop_forget_mapped(&idx->props[i], map->snap);
	idx->map = NULL;
	map_free(map);
}

bool mlib_index_map_damaged(const struct mlib_index *idx)
{
	return idx->damaged;
}

bool mlib_index_is_mapped(const struct mlib_index *idx)
{
	return idx->map != NULL;
}

/* The index head and item arrays, in place and checked (every query
 * reads them). */
static bool items_snap_map(struct snap_cursor *c, struct mlib_index *idx, uint64_t *nprops)
{
	uint64_t h[4];
	if (!snap_get_fixed(c, h, sizeof h))
		return false;
	if (h[0] > 4096 || h[1] == 0 || h[1] > (uint64_t)STR_MULTI * 2 || h[2] > h[1] ||
	    h[3] >= h[2] + (h[2] == 0) || h[3] != snap_map_count(c->m) ||
	    snap_map_sections(c->m) != SNAP_ITEM_SECTIONS + h[0] * SNAP_PROP_SECTIONS) {
		snap_fail(c, "bad index header");
		return false;
	}
	*nprops = h[0];
	idx->present.nbits = h[1];
	idx->bound = (uint32_t)h[2];
	idx->count = (uint32_t)h[3];
	idx->lib_order.n = idx->lib_order.cap = h[3];
	struct snap_arr a[SNAP_ITEM_ARRAYS];
	item_arrays(idx, a);
	if (!view_arrays(c, a, SNAP_ITEM_ARRAYS))
		return false;
	if (!snap_map_check(c->m, 1, SNAP_ITEM_ARRAYS) || !items_snap_valid(idx)) {
		snap_fail(c, "inconsistent item lists");
		return false;
	}
	return true;
}

/* Map path under a new index whose properties are checked on first use;
 * 0, or -1 with err (nothing left mapped). */
static int snapshot_map(const char *path, const struct snap_key *key, struct mlib_index **out,
			struct crate_err *err)
{
	*out = NULL;
	struct snap_map *snap = snap_map_open(path, key, err);
	if (!snap)
		return -1;
	struct mlib_index *idx = xcalloc(1, sizeof *idx);
	idx->map = xcalloc(1, sizeof *idx->map);
	idx->map->snap = snap;
	pthread_mutex_init(&idx->map->lock, NULL);
	struct snap_cursor c = snap_cursor_start(snap);
	uint64_t nprops = 0;
	bool ok = items_snap_map(&c, idx, &nprops);
	if (ok) {
		idx->props = xcalloc(nprops ? nprops : 1, sizeof *idx->props);
		idx->props_cap = (int)(nprops ? nprops : 1);
		idx->map->props = xcalloc(nprops ? nprops : 1, sizeof *idx->map->props);
		for (uint64_t i = 0; ok && i < nprops; i++) {
			idx->map->props[i].first = c.next;
			idx->nprops++; /* counted first: free sees what was read */
			ok = prop_snap_map(&c, &idx->props[i]);
		}
	}
	if (!ok || c.next != snap_map_sections(snap)) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s: %s", path,
			      c.failed ? c.failed : "trailing data");
		mlib_index_free(idx);
		return -1;
	}
	*out = idx;
	return 0;
}

int mlib_index_snapshot_map(const char *path, const struct snap_key *key,
			    struct mlib_index **out, struct crate_err *err)
{
	return snapshot_map(path, key, out, err);
}

int mlib_index_snapshot_read(const char *path, const struct snap_key *key,
			     struct mlib_index **out, struct crate_err *err)
{
	if (snapshot_map(path, key, out, err) != 0)
		return -1;
	/* Every property checked, then copied out of the mapping. */
	struct mlib_index *idx = *out;
	for (int i = 0; i < idx->nprops; i++)
		index_map_check(idx, i, INDEX_GROUP_ALL);
	if (idx->damaged) {
		mlib_index_free(idx);
		*out = NULL;
		return crate_err_set(err, CRATE_ERR_INVALID, "%s: inconsistent index snapshot", path);
	}
	index_map_release(idx);
	index_build_search_postings(idx); /* as finish does: not stored */
	return 0;
}
