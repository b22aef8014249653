/* The in-memory index: columns per property, the library order, and
 * reading them (dictionaries: index_dict.c; snapshots: index_serialize.c).
 * See index.h. */
#include "medialib/index.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "medialib/index_internal.h"

/* ---- properties and columns ---- */

/* Property i for reading the groups of arrays in mask (IG bits; 0 for
 * its kind and sizes): a mapped index checks them first (see
 * index_map_check). Every reading function goes through this. */
static inline const struct prop *prop_r(const struct mlib_index *idx, int i, unsigned mask)
{
	index_map_check(idx, i, mask);
	return &idx->props[i];
}

/* The original text of value vid of property i, for a reader that asked
 * for IG(RAW_OFF): in a mapped index whose texts were not all checked,
 * only the blocks holding this one are (index_map_check_text); their
 * structure, checked already, keeps even a damaged text inside them. */
static const char *text_r(const struct mlib_index *idx, int i, uint32_t vid)
{
	const struct dict *d = &idx->props[i].d;
	const char *t = index_dict_text(d, vid);
	if (idx->map && d->raw_off && d->raw_off[vid] != RAW_SAME &&
	    !(idx->map->props[i].checked & IG(RAW)))
		index_map_check_text(idx, i, d->raw_off[vid], strlen(t) + 1);
	return t;
}

static int prop_find(const struct mlib_index *idx, const char *name)
{
	int last = atomic_load_explicit(&idx->last_prop, memory_order_relaxed);
	if (last < idx->nprops && strcmp(idx->props[last].name, name) == 0)
		return last;
	for (int i = 0; i < idx->nprops; i++)
		if (strcmp(idx->props[i].name, name) == 0) {
			atomic_store_explicit(&((struct mlib_index *)idx)->last_prop, i,
					      memory_order_relaxed); /* cache only */
			return i;
		}
	return -1;
}

static struct prop *prop_get(struct mlib_index *idx, const char *name, enum mlib_prop_kind kind)
{
	int i = prop_find(idx, name);
	if (i >= 0)
		return &idx->props[i];
	if (idx->nprops == idx->props_cap) {
		idx->props_cap = idx->props_cap ? idx->props_cap * 2 : 16;
		idx->props = xreallocarray(idx->props, (size_t)idx->props_cap, sizeof *idx->props);
	}
	struct prop *p = &idx->props[idx->nprops];
	memset(p, 0, sizeof *p);
	p->name = xstrdup(name);
	p->kind = kind;
	p->col_hint = idx->bound_hint;
	atomic_store_explicit(&idx->last_prop, idx->nprops++, memory_order_relaxed);
	return p;
}

static int64_t icol_get(const struct prop *p, size_t id)
{
	return index_icol_get(p, id);
}

/* Turn a narrow integer column into a wide one. */
static void icol_widen(struct prop *p)
{
	int64_t *w = xmalloc((p->col_cap ? p->col_cap : 1) * sizeof *w);
	for (size_t i = 0; i < p->col_cap; i++)
		w[i] = p->icol32[i] == INT32_MISSING ? INT_MISSING : p->icol32[i];
	free(p->icol32);
	p->icol32 = NULL;
	p->icol = w;
	p->wide = true;
}

/* Room in p's column for id. The first allocation takes the index's
 * expected bound (p->col_hint) when id lies below it; later growth doubles. */
static void prop_ensure(struct prop *p, uint32_t id)
{
	uint32_t hint = p->col_hint;
	if (id < p->col_cap)
		return;
	size_t c = p->col_cap ? p->col_cap : 1024;
	while (c <= id)
		c *= 2;
	if (id < hint && p->col_cap < hint)
		c = hint;
	size_t elem = p->kind == MLIB_PROP_STRING ? sizeof *p->scol
		      : p->wide			  ? sizeof *p->icol
							  : sizeof *p->icol32;
	void **arr = p->kind == MLIB_PROP_STRING ? (void **)&p->scol
		     : p->wide			 ? (void **)&p->icol
						 : (void **)&p->icol32;
	if (!p->col_cap) { /* filled right after: huge pages, no copy to make */
		free(*arr);
		*arr = xmalloc_huge(c * elem);
	} else {
		*arr = xreallocarray(*arr, c, elem);
	}
	if (p->kind == MLIB_PROP_STRING) {
		for (size_t i = p->col_cap; i < c; i++)
			p->scol[i] = STR_MISSING;
	} else if (p->wide) {
		for (size_t i = p->col_cap; i < c; i++)
			p->icol[i] = INT_MISSING;
	} else {
		for (size_t i = p->col_cap; i < c; i++)
			p->icol32[i] = INT32_MISSING;
	}
	p->col_cap = c;
}

uint32_t index_vid_ident[UINT16_MAX + 1];
static pthread_once_t vid_ident_once = PTHREAD_ONCE_INIT;

static void vid_ident_fill(void)
{
	for (uint32_t v = 0; v <= UINT16_MAX; v++)
		index_vid_ident[v] = v;
}

void index_vid_ident_ready(void)
{
	pthread_once(&vid_ident_once, vid_ident_fill);
}

static size_t prop_str_values(const struct prop *p, uint32_t id, const uint32_t **vids)
{
	if (p->kind != MLIB_PROP_STRING)
		return 0;
	uint32_t c = index_scol_get(p, id);
	if (c == STR_MISSING)
		return 0;
	if (c & STR_MULTI) {
		const uint32_t *g = p->multi + (c & ~STR_MULTI);
		*vids = g + 1;
		return g[0];
	}
	*vids = p->nw ? &index_vid_ident[c] : &p->scol[id];
	return 1;
}

static void prop_drop_postings(struct prop *p)
{
	free(p->post_off);
	free(p->post);
	p->post_off = p->post = NULL;
}

static void prop_add_vid(struct prop *p, uint32_t id, uint32_t vid)
{
	prop_drop_postings(p);
	prop_ensure(p, id);
	uint32_t cur = p->scol[id];
	if (cur == STR_MISSING) {
		p->scol[id] = vid;
		return;
	}
	const uint32_t *have = NULL;
	size_t n = prop_str_values(p, id, &have);
	for (size_t i = 0; i < n; i++)
		if (have[i] == vid)
			return; /* the same value twice adds nothing */
	if (cur & STR_MULTI) {
		size_t off = cur & ~STR_MULTI;
		if (off + 1 + p->multi[off] == p->multi_len) { /* last group: extend in place */
			p->multi = index_grow_array(p->multi, &p->multi_cap, p->multi_len + 1, sizeof *p->multi);
			p->multi[p->multi_len++] = vid;
			p->multi[off]++;
			return;
		}
	}
	/* Copy the group to the end with room for one more (the old copy is
	 * abandoned: multi-values are rare and added item by item). */
	size_t off = p->multi_len;
	p->multi = index_grow_array(p->multi, &p->multi_cap, p->multi_len + n + 2, sizeof *p->multi);
	n = prop_str_values(p, id, &have); /* re-read: multi may have moved */
	p->multi[off] = (uint32_t)(n + 1);
	memcpy(p->multi + off + 1, have, n * sizeof *have);
	p->multi[off + 1 + n] = vid;
	p->multi_len = off + n + 2;
	if (!(cur & STR_MULTI))
		u32vec_push(&p->multi_ids, id);
	p->scol[id] = STR_MULTI | (uint32_t)off;
}

/* An integer column that received a non-integer text becomes a string column. */
static void prop_convert_to_string(struct prop *p)
{
	prop_drop_postings(p);
	if (!p->wide)
		icol_widen(p);
	int64_t *icol = p->icol;
	size_t cap = p->col_cap;
	p->icol = NULL;
	p->wide = false;
	p->col_cap = 0;
	p->kind = MLIB_PROP_STRING;
	if (cap)
		prop_ensure(p, (uint32_t)(cap - 1));
	for (size_t i = 0; i < cap; i++) {
		if (icol[i] == INT_MISSING)
			continue;
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%" PRId64, icol[i]);
		p->scol[i] = index_dict_intern(&p->d, buf, (size_t)n);
	}
	free(icol);
}

static void prop_free(struct prop *p)
{
	prop_drop_postings(p);
	free(p->name);
	free(p->scol);
	free(p->icol);
	free(p->icol32);
	free(p->multi);
	u32vec_free(&p->multi_ids);
	index_dict_free(&p->d);
}

/* ---- building ---- */

struct mlib_index *mlib_index_new(void)
{
	struct mlib_index *idx = xcalloc(1, sizeof *idx);
	bitset_init(&idx->present, 1024);
	return idx;
}

void mlib_index_free(struct mlib_index *idx)
{
	if (!idx)
		return;
	index_map_drop(idx); /* the mapping's arrays are not ours to free */
	for (int i = 0; i < idx->nprops; i++)
		prop_free(&idx->props[i]);
	free(idx->props);
	bitset_free(&idx->present);
	u32vec_free(&idx->all_ids);
	u32vec_free(&idx->lib_order);
	free(idx->lib_rank);
	free(idx);
}

void mlib_index_add_media(struct mlib_index *idx, uint32_t id)
{
	index_map_release(idx); /* changes go to owned arrays */
	if (id == 0 || id >= STR_MULTI)
		return;
	if (id >= idx->present.nbits) {
		size_t nb = idx->present.nbits;
		while (nb <= id)
			nb *= 2;
		size_t old = bitset_words(&idx->present);
		idx->present.w = xreallocarray(idx->present.w, (nb + 63) / 64, sizeof(uint64_t));
		memset(idx->present.w + old, 0, ((nb + 63) / 64 - old) * sizeof(uint64_t));
		idx->present.nbits = nb;
	}
	if (!bitset_test(&idx->present, id)) {
		bitset_set(&idx->present, id);
		idx->count++;
	}
	if (id + 1 > idx->bound)
		idx->bound = id + 1;
}

static void set_int_in(struct prop *p, uint32_t id, int64_t value)
{
	prop_ensure(p, id);
	if (value == INT_MISSING)
		value = INT_MISSING + 1;
	if (!p->wide && (value <= INT32_MISSING || value > INT32_MAX))
		icol_widen(p);
	if (p->wide)
		p->icol[id] = value;
	else
		p->icol32[id] = (int32_t)value;
}

static void set_str_single(struct prop *p, uint32_t id, const char *value, size_t len)
{
	prop_drop_postings(p);
	prop_ensure(p, id);
	p->scol[id] = index_dict_intern(&p->d, value, len);
}

/* One string value into p (see mlib_index_add_str for integer columns). */
static void prop_add_str(struct prop *p, uint32_t id, const char *value, size_t len)
{
	if (p->kind == MLIB_PROP_INT) {
		int64_t v;
		if (str_parse_int64(value, strnlen(value, len), &v)) {
			set_int_in(p, id, v);
			return;
		}
		prop_convert_to_string(p);
	}
	prop_add_vid(p, id, index_dict_intern(&p->d, value, len));
}

static void prop_set_int(struct prop *p, uint32_t id, int64_t value)
{
	if (p->kind == MLIB_PROP_STRING) {
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%" PRId64, value);
		set_str_single(p, id, buf, (size_t)n);
		return;
	}
	set_int_in(p, id, value);
}

void mlib_index_add_str(struct mlib_index *idx, uint32_t id, const char *prop, const char *value,
			size_t len)
{
	index_map_release(idx); /* changes go to owned arrays */
	if (id == 0 || id >= STR_MULTI)
		return;
	prop_add_str(prop_get(idx, prop, MLIB_PROP_STRING), id, value, len);
}

void mlib_index_set_int(struct mlib_index *idx, uint32_t id, const char *prop, int64_t value)
{
	index_map_release(idx); /* changes go to owned arrays */
	if (id == 0 || id >= STR_MULTI)
		return;
	prop_set_int(prop_get(idx, prop, MLIB_PROP_INT), id, value);
}

int mlib_index_prop_define(struct mlib_index *idx, const char *name, enum mlib_prop_kind kind)
{
	index_map_release(idx); /* changes go to owned arrays */
	return (int)(prop_get(idx, name, kind) - idx->props);
}

void index_reserve_props(struct mlib_index *idx, int n)
{
	index_map_release(idx); /* changes go to owned arrays */
	if (n <= idx->props_cap)
		return;
	idx->props = xreallocarray(idx->props, (size_t)n, sizeof *idx->props);
	idx->props_cap = n;
}

void mlib_index_reserve(struct mlib_index *idx, uint32_t bound)
{
	index_map_release(idx); /* changes go to owned arrays */
	if (bound >= STR_MULTI)
		bound = STR_MULTI;
	idx->bound_hint = bound;
	for (int i = 0; i < idx->nprops; i++)
		idx->props[i].col_hint = bound;
	if (bound > idx->present.nbits) { /* the size add_media would reach */
		size_t nb = idx->present.nbits;
		while (nb < bound)
			nb *= 2;
		size_t old = bitset_words(&idx->present), nw = (nb + 63) / 64;
		idx->present.w = xreallocarray(idx->present.w, nw, sizeof(uint64_t));
		memset(idx->present.w + old, 0, (nw - old) * sizeof(uint64_t));
		idx->present.nbits = nb;
	}
}

void index_prop_add_str_h(struct prop *p, uint32_t id, const char *value, size_t len, uint32_t h)
{
	if (id == 0 || id >= STR_MULTI)
		return;
	if (p->kind == MLIB_PROP_INT) {
		prop_add_str(p, id, value, len);
		return;
	}
	prop_add_vid(p, id, index_dict_intern_h(&p->d, value, len, h));
}

void index_prop_add_str(struct prop *p, uint32_t id, const char *value, size_t len)
{
	if (id == 0 || id >= STR_MULTI)
		return;
	prop_add_str(p, id, value, len);
}

uint32_t index_prop_intern(struct prop *p, const char *value, size_t len)
{
	return p->kind == MLIB_PROP_STRING ? index_dict_intern(&p->d, value, len) : UINT32_MAX;
}

void index_prop_add_vid(struct prop *p, uint32_t id, uint32_t vid)
{
	if (id == 0 || id >= STR_MULTI || p->kind != MLIB_PROP_STRING)
		return;
	prop_add_vid(p, id, vid);
}

/* The largest of n ascending ids an item may have (0: none). */
static uint32_t last_item_id(const uint32_t *ids, size_t n)
{
	while (n && (ids[n - 1] == 0 || ids[n - 1] >= STR_MULTI))
		n--;
	return n ? ids[n - 1] : 0;
}

void index_prop_add_vids(struct prop *p, const uint32_t *ids, const uint32_t *vids, size_t n)
{
	uint32_t top = last_item_id(ids, n);
	if (!top || p->kind != MLIB_PROP_STRING)
		return;
	prop_drop_postings(p);
	prop_ensure(p, top);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		if (id == 0 || id >= STR_MULTI)
			continue;
		if (p->scol[id] == STR_MISSING) /* the item's first value: most of a load */
			p->scol[id] = vids[i];
		else
			prop_add_vid(p, id, vids[i]);
	}
}

void index_prop_set_ints(struct prop *p, const uint32_t *ids, const int64_t *values, size_t n)
{
	uint32_t top = last_item_id(ids, n);
	if (!top || p->kind != MLIB_PROP_INT) { /* a string column: values as texts */
		for (size_t i = 0; i < n; i++)
			index_prop_set_int(p, ids[i], values[i]);
		return;
	}
	prop_ensure(p, top);
	for (size_t i = 0; i < n; i++)
		if (ids[i] != 0 && ids[i] < STR_MULTI)
			set_int_in(p, ids[i], values[i]);
}

void index_prop_add_unique_str(struct prop *p, uint32_t id, const char *value, size_t len)
{
	if (id == 0 || id >= STR_MULTI)
		return;
	if (p->kind != MLIB_PROP_STRING) {
		prop_add_str(p, id, value, len);
		return;
	}
	prop_add_vid(p, id, index_dict_add_unique(&p->d, value, len));
}

void index_prop_set_int(struct prop *p, uint32_t id, int64_t value)
{
	if (id == 0 || id >= STR_MULTI)
		return;
	prop_set_int(p, id, value);
}

void mlib_index_add_str_p(struct mlib_index *idx, uint32_t id, int prop, const char *value,
			  size_t len)
{
	index_map_release(idx); /* changes go to owned arrays */
	if (prop >= 0 && prop < idx->nprops)
		index_prop_add_str(&idx->props[prop], id, value, len);
}

void mlib_index_add_unique_str_p(struct mlib_index *idx, uint32_t id, int prop, const char *value,
				 size_t len)
{
	index_map_release(idx); /* changes go to owned arrays */
	if (prop >= 0 && prop < idx->nprops)
		index_prop_add_unique_str(&idx->props[prop], id, value, len);
}

void mlib_index_set_int_p(struct mlib_index *idx, uint32_t id, int prop, int64_t value)
{
	index_map_release(idx); /* changes go to owned arrays */
	if (prop >= 0 && prop < idx->nprops)
		index_prop_set_int(&idx->props[prop], id, value);
}

/* Property h (or -1) about to change in one item: on a mapped index only
 * its own arrays are copied out of the mapping (play statistics applied
 * to a mapped index must not copy the whole library); a new property
 * needs everything released. */
static void own_for_update(struct mlib_index *idx, int h)
{
	if (h >= 0)
		index_map_own_prop(idx, h);
	else
		index_map_release(idx);
}

void mlib_index_update_int(struct mlib_index *idx, uint32_t id, const char *prop, int64_t value)
{
	if (id == 0 || id >= STR_MULTI)
		return;
	int h = prop_find(idx, prop);
	own_for_update(idx, h);
	prop_set_int(h >= 0 ? &idx->props[h] : prop_get(idx, prop, MLIB_PROP_INT), id, value);
	idx->edits++;
}

void mlib_index_clear_int(struct mlib_index *idx, uint32_t id, const char *prop)
{
	int h = mlib_index_prop(idx, prop);
	if (h < 0) /* no item has it: nothing to clear, and do not create it */
		return;
	own_for_update(idx, h);
	idx->edits++;
	struct prop *p = &idx->props[h];
	if (id >= p->col_cap)
		return;
	if (p->kind == MLIB_PROP_STRING) {
		/* A multi-value group left behind is only unused memory. */
		prop_drop_postings(p);
		p->scol[id] = STR_MISSING;
	} else if (p->wide) {
		p->icol[id] = INT_MISSING;
	} else {
		p->icol32[id] = INT32_MISSING;
	}
}

/* ---- finishing: ranks and the library order ---- */

/* Room for cap ids in the empty a, in huge pages when large (filled at
 * once: a copy of the old contents would be of nothing). */
static void u32vec_reserve_fresh(struct u32vec *a, size_t cap)
{
	if (a->n == 0 && cap > a->cap) {
		free(a->v);
		a->v = xmalloc_huge(cap * sizeof *a->v);
		a->cap = cap;
	}
	u32vec_reserve(a, cap);
}

struct lib_key {
	uint64_t k0; /* artist rank << 32 | year */
	uint64_t k1; /* album rank << 32 | disc << 16 | track */
	uint32_t id;
};

/* Ties on (k0, k1) are settled by the url, then the id. */
struct lib_tie {
	const char *url;
	uint32_t id;
};

static int lib_tie_cmp(const void *pa, const void *pb)
{
	const struct lib_tie *a = pa, *b = pb;
	if (a->url != b->url) {
		if (!a->url || !b->url)
			return a->url ? 1 : -1;
		int c = str_natcmp(a->url, b->url);
		if (c)
			return c;
	}
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Byte b (0 = lowest) of the 128-bit key k0:k1. */
static unsigned lib_key_byte(const struct lib_key *k, int b)
{
	return (unsigned)((b < 8 ? k->k1 >> (8 * b) : k->k0 >> (8 * (b - 8))) & 0xff);
}

/* Sort keys by (k0, k1), stable: a least-significant-digit radix sort,
 * byte by byte, skipping the bytes every key shares (most of them: ranks
 * and years use few bits). Several times faster than qsort with a
 * comparison callback at a million items. */
static void lib_keys_radix_sort(struct lib_key *keys, size_t n)
{
	uint32_t (*hist)[256] = xcalloc(16, sizeof *hist);
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 16; b++)
			hist[b][lib_key_byte(&keys[i], b)]++;
	struct lib_key *tmp = NULL, *src = keys, *dst = NULL;
	for (int b = 0; b < 16; b++) {
		if (n == 0 || hist[b][lib_key_byte(&keys[0], b)] == n)
			continue; /* every key has the same byte here */
		if (!tmp)
			tmp = xmalloc_huge(n * sizeof *tmp);
		dst = src == keys ? tmp : keys;
		uint32_t pos[256], sum = 0;
		for (int d = 0; d < 256; d++) {
			pos[d] = sum;
			sum += hist[b][d];
		}
		for (size_t i = 0; i < n; i++)
			dst[pos[lib_key_byte(&src[i], b)]++] = src[i];
		src = dst;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof *keys);
	free(tmp);
	free(hist);
}

static const struct prop *prop_by_name(const struct mlib_index *idx, const char *name)
{
	int i = prop_find(idx, name);
	return i < 0 ? NULL : &idx->props[i];
}

/* Sort key of an item's value for a library-order component, in [0, max];
 * 0 when missing. String values use their rank. */
static uint64_t component_key(const struct prop *p, uint32_t id, uint64_t max)
{
	if (!p)
		return 0;
	if (p->kind == MLIB_PROP_INT) {
		int64_t v = icol_get(p, id);
		if (v == INT_MISSING)
			return 0;
		/* Bias so negatives order below positives, then clamp. */
		int64_t lo = -(int64_t)(max / 2) + 1, hi = (int64_t)(max / 2) - 1;
		if (v < lo)
			v = lo;
		if (v > hi)
			v = hi;
		return (uint64_t)(v - lo) + 1;
	}
	const uint32_t *vids;
	if (!prop_str_values(p, id, &vids))
		return 0;
	uint64_t r = (uint64_t)p->d.rank[vids[0]] + 1;
	return r > max ? max : r;
}

/* albumartist and artist are one sort key ("albumartist, else artist"), so
 * their values are ranked together in one sort. */
static void artist_ranks(const struct prop *aa, const struct prop *ar, uint32_t **aa_rank,
			 uint32_t **ar_rank)
{
	index_dict_joint_ranks(aa && aa->kind == MLIB_PROP_STRING ? &aa->d : NULL,
			       ar && ar->kind == MLIB_PROP_STRING ? &ar->d : NULL, aa_rank, ar_rank);
}

static uint64_t artist_key(const struct prop *p, const uint32_t *ranks, uint32_t id)
{
	const uint32_t *vids;
	if (!p || p->kind != MLIB_PROP_STRING || !prop_str_values(p, id, &vids))
		return 0;
	return (uint64_t)ranks[vids[0]] + 1;
}

/* The library order's key of an item, in parts: albumartist (else
 * artist), year, album, disc, track; then the url and the id. */
enum { LIB_ARTIST, LIB_YEAR, LIB_ALBUM, LIB_DISC, LIB_TRACK, LIB_PARTS };

/* component_key's bound for each part (the artist's: its rank + 1). */
static const uint64_t lib_part_max[LIB_PARTS] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT16_MAX,
						 UINT16_MAX};

struct lib_parts {
	const struct prop *aa, *ar;    /* the artist part */
	const uint32_t *aa_rank, *ar_rank;
	size_t artists;                /* values ranked jointly: ranks lie below */
	const struct prop *p[LIB_PARTS]; /* the others (p[LIB_ARTIST] unused) */
};

static uint64_t lib_part(const struct lib_parts *lp, int k, uint32_t id)
{
	if (k != LIB_ARTIST)
		return component_key(lp->p[k], id, lib_part_max[k]);
	uint64_t a = artist_key(lp->aa, lp->aa_rank, id);
	return a ? a : artist_key(lp->ar, lp->ar_rank, id);
}

/* Part k's keys over ids as small codes: 0 when missing (key 0), else
 * key - *lo + 1, up to *top. Ranks lie below their dictionary's size (no
 * pass needed); integers (a year: ~2^31 + 2000 as a key) take one pass
 * over their column for the least and greatest present key. */
static void lib_part_range(const struct lib_parts *lp, int k, const struct u32vec *ids,
			   uint64_t *lo, uint64_t *top)
{
	const struct prop *p = lp->p[k];
	uint64_t least = 1, most = 0;
	if (k == LIB_ARTIST) {
		most = lp->artists;
	} else if (p && p->kind == MLIB_PROP_STRING) {
		most = p->d.n < lib_part_max[k] ? p->d.n : lib_part_max[k];
	} else if (p) {
		least = UINT64_MAX;
		for (size_t i = 0; i < ids->n; i++) {
			uint64_t v = component_key(p, ids->v[i], lib_part_max[k]);
			if (v) {
				least = v < least ? v : least;
				most = v > most ? v : most;
			}
		}
	}
	*lo = least;
	*top = most >= least ? most - least + 1 : 0;
}

static unsigned bit_width(uint64_t x)
{
	return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

/* Sort keys by their bits from `from` up to `to` (exclusive), stable: the
 * bits below keep the order they had. Least significant digit first, 11
 * bits a pass (2048 counters stay in the first-level cache), skipping a
 * digit every key shares. */
static void u64_radix_sort(uint64_t *keys, size_t n, unsigned from, unsigned to)
{
	unsigned width = to > from ? to - from : 0;
	if (width == 0 || n < 2)
		return;
	unsigned passes = (width + 10) / 11, digit = (width + passes - 1) / passes;
	size_t nd = (size_t)1 << digit;
	uint64_t mask = nd - 1;
	uint32_t *hist = xcalloc(passes * nd, sizeof *hist);
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < passes; p++)
			hist[p * nd + ((keys[i] >> (from + p * digit)) & mask)]++;
	uint64_t *tmp = NULL, *src = keys;
	for (unsigned p = 0; p < passes; p++) {
		unsigned shift = from + p * digit;
		uint32_t *pos = hist + p * nd;
		if (pos[(keys[0] >> shift) & mask] == n)
			continue; /* every key has the same digit here */
		if (!tmp)
			tmp = xmalloc_huge(n * sizeof *tmp);
		uint64_t *dst = src == keys ? tmp : keys;
		uint32_t sum = 0;
		for (size_t d = 0; d < nd; d++) {
			uint32_t c = pos[d];
			pos[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[pos[(src[i] >> shift) & mask]++] = src[i];
		src = dst;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof *keys);
	free(tmp);
	free(hist);
}

/* ids (items whose keys are equal) by url, then id (few and short). */
static void lib_settle_ties(const struct prop *url, uint32_t *ids, size_t n)
{
	bool url_ok = url && url->kind == MLIB_PROP_STRING;
	struct lib_tie *t = xmalloc(n * sizeof *t);
	for (size_t k = 0; k < n; k++) {
		const uint32_t *vids;
		t[k].url = url_ok && prop_str_values(url, ids[k], &vids)
				   ? url->d.fold + url->d.fold_off[vids[0]]
				   : NULL;
		t[k].id = ids[k];
	}
	qsort(t, n, sizeof *t, lib_tie_cmp);
	for (size_t k = 0; k < n; k++)
		ids[k] = t[k].id;
	free(t);
}

/* The library order into order (n ids) when the key parts, less their
 * least values, fit one 64-bit word beside the item's position in
 * all_ids (a million tracks need ~44 + 20 bits): one word per item, four
 * sorting passes. False when they do not fit. */
static bool lib_order_packed(const struct mlib_index *idx, const struct lib_parts *lp,
			     const struct prop *url, uint32_t *order)
{
	const struct u32vec *ids = &idx->all_ids;
	size_t n = ids->n;
	uint64_t lo[LIB_PARTS], top;
	unsigned bits[LIB_PARTS], total = 0, pos_bits = bit_width(n);
	for (int k = 0; k < LIB_PARTS; k++) {
		lib_part_range(lp, k, ids, &lo[k], &top);
		bits[k] = bit_width(top);
		total += bits[k];
	}
	if (total + pos_bits > 64)
		return false;
	uint64_t *keys = xmalloc_huge((n + 1) * sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		uint64_t key = 0;
		for (int k = 0; k < LIB_PARTS; k++) {
			uint64_t v = lib_part(lp, k, ids->v[i]);
			key = key << bits[k] | (v ? v - lo[k] + 1 : 0);
		}
		keys[i] = key << pos_bits | i;
	}
	/* all_ids ascends: the positions are in order, and stay so among equal keys. */
	u64_radix_sort(keys, n, pos_bits, pos_bits + total);
	uint64_t pos_mask = ((uint64_t)1 << pos_bits) - 1;
	for (size_t i = 0; i < n; i++)
		order[i] = ids->v[keys[i] & pos_mask];
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && keys[j] >> pos_bits == keys[i] >> pos_bits; j++)
			;
		if (j - i > 1)
			lib_settle_ties(url, order + i, j - i);
	}
	free(keys);
	return true;
}

/* The same with two words per item (any parts). */
static void lib_order_wide(const struct mlib_index *idx, const struct lib_parts *lp,
			   const struct prop *url, uint32_t *order)
{
	size_t n = idx->all_ids.n;
	struct lib_key *keys = xmalloc_huge((n + 1) * sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = idx->all_ids.v[i];
		keys[i].k0 = lib_part(lp, LIB_ARTIST, id) << 32 | lib_part(lp, LIB_YEAR, id);
		keys[i].k1 = lib_part(lp, LIB_ALBUM, id) << 32 | lib_part(lp, LIB_DISC, id) << 16 |
			     lib_part(lp, LIB_TRACK, id);
		keys[i].id = id;
	}
	lib_keys_radix_sort(keys, n);
	for (size_t i = 0; i < n; i++)
		order[i] = keys[i].id;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].k0 == keys[i].k0 && keys[j].k1 == keys[i].k1; j++)
			;
		if (j - i > 1)
			lib_settle_ties(url, order + i, j - i);
	}
	free(keys);
}

static void build_library_order(struct mlib_index *idx)
{
	struct lib_parts lp = {
		.aa = prop_by_name(idx, "albumartist"),
		.ar = prop_by_name(idx, "artist"),
		.p = {NULL, prop_by_name(idx, "year"), prop_by_name(idx, "album"),
		      prop_by_name(idx, "discnr"), prop_by_name(idx, "tracknr")},
	};
	const struct prop *url = prop_by_name(idx, "url");
	for (int k = LIB_YEAR; k < LIB_PARTS; k++)
		if (lp.p[k] && lp.p[k]->kind == MLIB_PROP_STRING)
			index_dict_compute_ranks((struct dict *)&lp.p[k]->d);
	uint32_t *aa_rank, *ar_rank;
	artist_ranks(lp.aa, lp.ar, &aa_rank, &ar_rank);
	lp.aa_rank = aa_rank;
	lp.ar_rank = ar_rank;
	lp.artists = (lp.aa && lp.aa->kind == MLIB_PROP_STRING ? lp.aa->d.n : 0) +
		     (lp.ar && lp.ar->kind == MLIB_PROP_STRING ? lp.ar->d.n : 0);

	size_t n = idx->all_ids.n;
	idx->lib_order.n = 0;
	u32vec_reserve_fresh(&idx->lib_order, n);
	if (!lib_order_packed(idx, &lp, url, idx->lib_order.v))
		lib_order_wide(idx, &lp, url, idx->lib_order.v);
	free(aa_rank); /* ar_rank points into the same block */
	idx->lib_order.n = n;
	free(idx->lib_rank);
	idx->lib_rank = xmalloc_huge((size_t)(idx->bound + 1) * sizeof *idx->lib_rank);
	memset(idx->lib_rank, 0xff, (size_t)(idx->bound + 1) * sizeof *idx->lib_rank);
	for (size_t i = 0; i < n; i++)
		idx->lib_rank[idx->lib_order.v[i]] = (uint32_t)i;
}

/* Items-by-value lists pay off for dictionaries at least this large. */
#define POSTINGS_MIN_DICT 4096
static void prop_build_postings(struct prop *p);

/* Dictionaries at most this large get their ranks at finish; larger ones
 * (titles, urls: one value per track) when something first sorts by them. */
#define EAGER_RANK_LIMIT 65536

struct postings_job {
	struct prop *p[4];
	int n;
};

static void *postings_main(void *arg)
{
	struct postings_job *job = arg;
	for (int i = 0; i < job->n; i++) {
		prop_build_postings(job->p[i]);
	}
	return NULL;
}

/* The searched fields lacking items-by-value lists, into job. */
static void search_postings_due(struct mlib_index *idx, struct postings_job *job)
{
	static const char *const searched[] = { "artist", "albumartist", "album", "title" };
	for (size_t i = 0; i < sizeof searched / sizeof searched[0]; i++) {
		int pi = prop_find(idx, searched[i]);
		struct prop *p = pi >= 0 ? &idx->props[pi] : NULL;
		if (p && p->kind == MLIB_PROP_STRING && p->d.n >= POSTINGS_MIN_DICT && !p->post_off)
			job->p[job->n++] = p;
	}
}

void index_build_search_postings(struct mlib_index *idx)
{
	struct postings_job all = { .n = 0 }, half = { .n = 0 };
	search_postings_due(idx, &all);
	/* Every other list to a helper thread (they touch separate fields). */
	for (int i = 1; i < all.n; i += 2)
		half.p[half.n++] = all.p[i];
	int k = 0;
	for (int i = 0; i < all.n; i += 2)
		all.p[k++] = all.p[i];
	all.n = k;
	pthread_t th;
	bool threaded = half.n > 0 && pthread_create(&th, NULL, postings_main, &half) == 0;
	postings_main(&all);
	if (threaded)
		pthread_join(th, NULL);
	else
		postings_main(&half);
}

void mlib_index_finish(struct mlib_index *idx)
{
	index_map_release(idx); /* changes go to owned arrays */
	idx->all_ids.n = 0;
	u32vec_reserve_fresh(&idx->all_ids, idx->count + 1);
	for (size_t w = 0; w < bitset_words(&idx->present); w++) {
		uint64_t bits = idx->present.w[w];
		while (bits) {
			int b = __builtin_ctzll(bits);
			idx->all_ids.v[idx->all_ids.n++] = (uint32_t)(w * 64 + (size_t)b);
			bits &= bits - 1;
		}
	}
	/* Lookup tables go first: the sorts below need memory, and peak
	 * resident memory at start-up is what the user sees. */
	for (int i = 0; i < idx->nprops; i++)
		if (idx->props[i].kind == MLIB_PROP_STRING)
			index_dict_compact(&idx->props[i].d);
	/* The fields a plain search word looks in get their items-by-value now
	 * rather than during the first keystrokes (others on first need), on
	 * a thread of their own while this one ranks values and orders the
	 * library (which touch other fields of the properties). */
	struct postings_job job = { .n = 0 };
	search_postings_due(idx, &job);
	pthread_t th;
	bool threaded = job.n > 0 && pthread_create(&th, NULL, postings_main, &job) == 0;
	for (int i = 0; i < idx->nprops; i++)
		if (idx->props[i].kind == MLIB_PROP_STRING && idx->props[i].d.n <= EAGER_RANK_LIMIT)
			index_dict_compute_ranks(&idx->props[i].d);
	build_library_order(idx);
	if (threaded)
		pthread_join(th, NULL);
	else
		postings_main(&job);
}

/* ---- reading ---- */

const uint32_t *mlib_index_dict_ranks(const struct mlib_index *idx, int prop);

uint32_t mlib_index_id_bound(const struct mlib_index *idx)
{
	return idx->bound;
}

uint32_t mlib_index_count(const struct mlib_index *idx)
{
	return idx->count;
}

bool mlib_index_has_media(const struct mlib_index *idx, uint32_t id)
{
	return bitset_test(&idx->present, id);
}

const struct u32vec *mlib_index_all_ids(const struct mlib_index *idx)
{
	index_map_derive_items(idx);
	return &idx->all_ids;
}

const struct u32vec *mlib_index_library_order(const struct mlib_index *idx)
{
	return &idx->lib_order;
}

uint32_t mlib_index_library_rank(const struct mlib_index *idx, uint32_t id)
{
	if (id >= idx->bound)
		return UINT32_MAX;
	index_map_derive_items(idx);
	return idx->lib_rank ? idx->lib_rank[id] : UINT32_MAX;
}

void mlib_index_library_rank_many(const struct mlib_index *idx, const uint32_t *ids, size_t n,
				  uint32_t *rank)
{
	if (n)
		index_map_derive_items(idx);
	const uint32_t *lr = idx->lib_rank;
	uint32_t bound = idx->bound;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		rank[i] = lr && id < bound ? lr[id] : UINT32_MAX;
	}
}

uint64_t mlib_index_edits(const struct mlib_index *idx)
{
	return idx->edits;
}

bool mlib_index_library_ranks_ready(const struct mlib_index *idx)
{
	return !idx->map || idx->map->items_derived;
}

int mlib_index_prop(const struct mlib_index *idx, const char *name)
{
	return prop_find(idx, name);
}

enum mlib_prop_kind mlib_index_prop_kind(const struct mlib_index *idx, int prop)
{
	return idx->props[prop].kind;
}

const char *mlib_index_prop_name(const struct mlib_index *idx, int prop)
{
	return idx->props[prop].name;
}

int mlib_index_prop_count(const struct mlib_index *idx)
{
	return idx->nprops;
}

uint32_t mlib_index_dict_size(const struct mlib_index *idx, int prop)
{
	return prop_r(idx, prop, 0)->kind == MLIB_PROP_STRING ? prop_r(idx, prop, 0)->d.n : 0;
}

const char *mlib_index_dict_text(const struct mlib_index *idx, int prop, uint32_t vid)
{
	prop_r(idx, prop, IG(FOLD) | IG(RAW_OFF));
	return text_r(idx, prop, vid);
}

const char *mlib_index_dict_folded(const struct mlib_index *idx, int prop, uint32_t vid)
{
	const struct dict *d = &prop_r(idx, prop, IG(FOLD))->d;
	return d->fold + d->fold_off[vid];
}

bool mlib_index_dict_number(const struct mlib_index *idx, int prop, uint32_t vid, double *out)
{
	double v = index_dict_number(&prop_r(idx, prop, IG(NUM))->d, vid);
	if (isnan(v))
		return false;
	*out = v;
	return true;
}

uint32_t mlib_index_dict_rank(const struct mlib_index *idx, int prop, uint32_t vid)
{
	struct dict *d = (struct dict *)&prop_r(idx, prop, IG(RANK) | IG(FOLD) | IG(NUM))->d; /* lazily filled cache */
	index_dict_compute_ranks(d);
	return d->rank[vid];
}

void mlib_index_dict_fold_span(const struct mlib_index *idx, int prop, const char **base,
			       const uint32_t **offs, uint32_t *n)
{
	const struct dict *d = &prop_r(idx, prop, IG(FOLD))->d;
	/* No values (an emptied, damaged mapped property has no arrays): one
	 * offset still, so base + offs[n] is the end for every caller. */
	static const uint32_t no_offs[1];
	bool none = prop_r(idx, prop, 0)->kind != MLIB_PROP_STRING || d->n == 0;
	*base = none ? "" : d->fold;
	*offs = none ? no_offs : d->fold_off;
	*n = none ? 0 : d->n;
}

size_t mlib_index_str_values(const struct mlib_index *idx, int prop, uint32_t id,
			     const uint32_t **vids)
{
	return prop_str_values(prop_r(idx, prop, IG(COL)), id, vids);
}

bool mlib_index_str_column(const struct mlib_index *idx, int prop, struct mlib_str_column *out)
{
	memset(out, 0, sizeof *out);
	if (prop < 0 || prop >= idx->nprops || prop_r(idx, prop, 0)->kind != MLIB_PROP_STRING)
		return false;
	const struct prop *p = prop_r(idx, prop, IG(COL));
	*out = (struct mlib_str_column){p->nw ? NULL : p->scol, p->multi,
					p->nw || p->scol ? p->col_cap : 0, p->nw == 1 ? p->ncol : NULL,
					p->nw == 2 ? p->ncol : NULL, index_vid_ident};
	return true;
}

bool mlib_index_int_value(const struct mlib_index *idx, int prop, uint32_t id, int64_t *out)
{
	const struct prop *p = prop_r(idx, prop, IG(COL));
	if (p->kind != MLIB_PROP_INT)
		return false;
	int64_t v = icol_get(p, id);
	if (v == INT_MISSING)
		return false;
	*out = v;
	return true;
}

const char *mlib_index_get_text(const struct mlib_index *idx, uint32_t id, const char *prop,
				char *buf, size_t bufsize)
{
	int pi = prop_find(idx, prop);
	if (pi < 0 || !mlib_index_has_media(idx, id))
		return NULL;
	const struct prop *p = prop_r(idx, pi, IG(COL) | IG(FOLD) | IG(RAW_OFF));
	if (p->kind == MLIB_PROP_INT) {
		int64_t v;
		if (!mlib_index_int_value(idx, pi, id, &v) || !buf || bufsize == 0)
			return NULL;
		snprintf(buf, bufsize, "%" PRId64, v);
		return buf;
	}
	const uint32_t *vids;
	if (!prop_str_values(p, id, &vids))
		return NULL;
	return text_r(idx, pi, vids[0]);
}

const char *mlib_index_get_joined(const struct mlib_index *idx, uint32_t id, const char *prop,
				  const char *sep, char *buf, size_t bufsize)
{
	int pi = prop_find(idx, prop);
	if (pi < 0 || !mlib_index_has_media(idx, id) || !buf || bufsize == 0)
		return NULL;
	const struct prop *p = prop_r(idx, pi, IG(COL) | IG(FOLD) | IG(RAW_OFF));
	const uint32_t *vids;
	size_t n = p->kind == MLIB_PROP_STRING ? prop_str_values(p, id, &vids) : 0;
	if (n <= 1) {
		const char *t = mlib_index_get_text(idx, id, prop, buf, bufsize);
		if (t && t != buf)
			snprintf(buf, bufsize, "%s", t);
		return t ? buf : NULL;
	}
	size_t len = 0;
	for (size_t k = 0; k < n && len + 1 < bufsize; k++)
		len += (size_t)snprintf(buf + len, bufsize - len, "%s%s", k ? sep : "",
					text_r(idx, pi, vids[k]));
	return buf;
}

size_t mlib_index_memory(const struct mlib_index *idx)
{
	size_t total = sizeof *idx + (size_t)idx->props_cap * sizeof *idx->props;
	total += bitset_words(&idx->present) * 8 + idx->all_ids.cap * 4 + idx->lib_order.cap * 4;
	total += idx->lib_rank ? (size_t)(idx->bound + 1) * 4 : 0;
	for (int i = 0; i < idx->nprops; i++) {
		const struct prop *p = &idx->props[i];
		const struct dict *d = &p->d;
		total += p->col_cap * (p->nw ? p->nw : p->kind == MLIB_PROP_INT && p->wide ? 8 : 4) +
			 p->multi_cap * 4;
		total += p->multi_ids.cap * 4;
		if (p->post_off)
			total += ((size_t)p->d.n + 1) * 4 + (size_t)p->post_off[p->d.n] * 4;
		total += d->fold_cap + d->raw_cap + hashtab_memory(&d->lookup);
		total += (size_t)d->cap * (4 + 4) + ((size_t)d->cap + 63) / 64 * 8;
		total += d->num_cap * (4 + 8) + (d->rank ? (size_t)d->n * 4 : 0);
	}
	return total;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_SELECT 1
/* The single-value part of mlib_index_select_str, eight items per step
 * where the processor has AVX2 (the build targets plain x86-64): gather
 * each item's word of vals, shift its bit down, collect the bits. Whole
 * 64-item words only; returns how many items it did. */
__attribute__((target("avx2"))) static size_t select_single_avx2(const uint32_t *col, size_t n,
								 const uint64_t *vw, uint32_t nd,
								 bool none, uint64_t *out)
{
	if (nd == 0)
		return 0;
	const __m256i last = _mm256_set1_epi32((int)(nd - 1)), one = _mm256_set1_epi32(1);
	const __m256i b31 = _mm256_set1_epi32(31), flip = _mm256_set1_epi32(none ? 1 : 0);
	const __m256i multi = _mm256_set1_epi32((int)STR_MULTI);
	const int *words = (const int *)(const void *)vw; /* little-endian: bit v of word v >> 5 */
	size_t done = n / 64 * 64;
	for (size_t base = 0; base < done; base += 64) {
		uint64_t word = 0;
		for (size_t b = 0; b < 64; b += 8) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(col + base + b));
			/* v <= nd - 1 (unsigned): a single value inside the dictionary */
			__m256i valid = _mm256_cmpeq_epi32(_mm256_max_epu32(v, last), last);
			__m256i idx = _mm256_and_si256(_mm256_srli_epi32(v, 5), valid);
			__m256i w = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), words, idx, valid, 4);
			__m256i bit = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_and_si256(v, b31)), one);
			/* any ^ none, for items having one value (not several, not missing) */
			__m256i single = _mm256_cmpeq_epi32(_mm256_and_si256(v, multi), _mm256_setzero_si256());
			__m256i pass = _mm256_and_si256(_mm256_xor_si256(bit, flip), single);
			unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(pass, one)));
			word |= (uint64_t)m << b;
		}
		out[base >> 6] |= word;
	}
	return done;
}
#endif

/* Items by value for p (see struct prop): one counting pass, one filling
 * pass in id order. */
static void prop_build_postings(struct prop *p)
{
	uint32_t nd = p->d.n;
	/* Huge pages: a title's lists are ~7 MB, filled at once on a thread
	 * of their own (its arena would fault them in 4 kB at a time). */
	uint32_t *off = xcalloc_huge((size_t)nd + 2, sizeof *off);
	for (size_t id = 0; id < p->col_cap; id++) {
		const uint32_t *vids;
		size_t k = prop_str_values(p, (uint32_t)id, &vids);
		for (size_t j = 0; j < k; j++)
			off[vids[j] + 2]++;
	}
	for (uint32_t v = 0; v < nd; v++)
		off[v + 2] += off[v + 1];
	uint32_t *post = xmalloc_huge(((size_t)off[nd + 1] + 1) * sizeof *post);
	for (size_t id = 0; id < p->col_cap; id++) {
		const uint32_t *vids;
		size_t k = prop_str_values(p, (uint32_t)id, &vids);
		for (size_t j = 0; j < k; j++)
			post[off[vids[j] + 1]++] = (uint32_t)id;
	}
	p->post_off = off; /* now off[v] .. off[v+1] */
	p->post = post;
}

/* When few values match, set their items from the postings instead of
 * reading the whole column. False when the column read is the better way. */
static bool select_by_postings(const struct mlib_index *idx, int prop, struct prop *p,
			       const struct bitset *vals, uint32_t nd, size_t n, struct bitset *out)
{
	size_t matched = 0, nw = ((size_t)nd + 63) / 64;
	for (size_t w = 0; w < nw; w++)
		matched += (size_t)__builtin_popcountll(vals->w[w] & (w + 1 < nw || nd % 64 == 0
									? ~(uint64_t)0
									: (((uint64_t)1 << (nd % 64)) - 1)));
	/* Worth it for a handful of values of a large dictionary only. */
	if (nd < POSTINGS_MIN_DICT || matched > nd / 32)
		return false;
	/* A mapped index checks the lists, not the column they replace
	 * (unless they must be built from it). */
	index_map_check(idx, prop, IG(POST));
	if (!p->post_off) {
		/* A mapped index answers one query: one pass over the column
		 * costs less than building the lists (two passes). */
		if (idx->map)
			return false;
		index_map_check(idx, prop, IG(COL));
		prop_build_postings(p);
	}
	size_t items = 0;
	for (size_t w = 0; w < nw; w++) {
		uint64_t bits = vals->w[w];
		while (bits) {
			uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			bits &= bits - 1;
			if (v < nd)
				items += p->post_off[v + 1] - p->post_off[v];
		}
	}
	if (items > n / 16)
		return false;
	for (size_t w = 0; w < nw; w++) {
		uint64_t bits = vals->w[w];
		while (bits) {
			uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			bits &= bits - 1;
			if (v >= nd)
				continue;
			for (uint32_t k = p->post_off[v]; k < p->post_off[v + 1]; k++)
				if (p->post[k] < n)
					bitset_set(out, p->post[k]);
		}
	}
	return true;
}

void mlib_index_select_str(const struct mlib_index *idx, int prop, const struct bitset *vals,
			   bool none, struct bitset *out)
{
	const struct prop *p = prop_r(idx, prop, 0); /* the groups as used, below */
	if (p->kind != MLIB_PROP_STRING)
		return;
	size_t n = p->col_cap < idx->bound ? p->col_cap : idx->bound;
	if (n > out->nbits)
		n = out->nbits;
	const uint64_t *vw = vals->w;
	uint32_t nd = p->d.n < vals->nbits ? p->d.n : (uint32_t)vals->nbits;
	if (!none && select_by_postings(idx, prop, (struct prop *)p, vals, nd, n, out)) /* lazily built cache */
		return;
	index_map_check(idx, prop, IG(COL));
	const uint32_t *col = p->scol; /* after the check: a failed column is replaced */
	const uint64_t zero = 0;
	uint64_t flip = none;
	if (p->nw) { /* narrow (mapped): single values only, missing = all ones */
		uint32_t miss = p->nw == 1 ? UINT8_MAX : UINT16_MAX;
		for (size_t base = 0; base < n; base += 64) {
			size_t lim = n - base < 64 ? n - base : 64;
			uint64_t word = 0;
			for (size_t b = 0; b < lim; b++) {
				uint32_t v = p->nw == 1 ? ((const uint8_t *)p->ncol)[base + b]
						       : ((const uint16_t *)p->ncol)[base + b];
				const uint64_t *wp = v < nd ? vw + (v >> 6) : &zero;
				uint64_t any = (*wp >> (v & 63)) & 1;
				word |= ((any ^ flip) & (v != miss)) << b;
			}
			out->w[base >> 6] |= word;
		}
		return;
	}
	size_t start = 0;
#ifdef HAVE_AVX2_SELECT
	if (__builtin_cpu_supports("avx2"))
		start = select_single_avx2(col, n, vw, nd, none, out->w);
#endif
	/* Single values without a branch per item (a mispredicted branch costs
	 * more than the work); items with several values are done after. */
	for (size_t base = start; base < n; base += 64) {
		size_t lim = n - base < 64 ? n - base : 64;
		const uint32_t *c = col + base;
		uint64_t word = 0;
		for (size_t b = 0; b < lim; b++) {
			uint32_t v = c[b];
			const uint64_t *wp = v < nd ? vw + (v >> 6) : &zero;
			uint64_t any = (*wp >> (v & 63)) & 1;
			uint64_t single = (v & STR_MULTI) == 0;
			word |= ((any ^ flip) & single) << b;
		}
		out->w[base >> 6] |= word;
	}
	for (size_t i = 0; i < p->multi_ids.n; i++) {
		uint32_t id = p->multi_ids.v[i];
		if (id >= n || !(col[id] & STR_MULTI) || col[id] == STR_MISSING)
			continue;
		const uint32_t *g = p->multi + (col[id] & ~STR_MULTI);
		bool any = false;
		for (uint32_t k = 1; k <= g[0] && !any; k++)
			any = g[k] < nd && ((vw[g[k] >> 6] >> (g[k] & 63)) & 1);
		if (any != none)
			bitset_set(out, id);
	}
}

void mlib_index_first_ranks(const struct mlib_index *idx, int prop, const uint32_t *ids, size_t n,
			    uint64_t *out)
{
	const struct prop *p = prop_r(idx, prop, IG(COL) | IG(RANK) | IG(FOLD) | IG(NUM));
	if (p->kind != MLIB_PROP_STRING) {
		memset(out, 0, n * sizeof *out);
		return;
	}
	const uint32_t *ranks = mlib_index_dict_ranks(idx, prop);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		uint32_t c = index_scol_get(p, id);
		if (c == STR_MISSING)
			out[i] = 0;
		else if (c & STR_MULTI)
			out[i] = (uint64_t)ranks[p->multi[(c & ~STR_MULTI) + 1]] + 1;
		else
			out[i] = (uint64_t)ranks[c] + 1;
	}
}

const uint32_t *mlib_index_dict_ranks(const struct mlib_index *idx, int prop)
{
	struct dict *d = (struct dict *)&prop_r(idx, prop, IG(RANK) | IG(FOLD) | IG(NUM))->d; /* lazily filled cache */
	index_dict_compute_ranks(d);
	return d->rank;
}

bool mlib_index_int_column(const struct mlib_index *idx, int prop, struct mlib_int_column *out)
{
	const struct prop *p = prop_r(idx, prop, IG(COL));
	memset(out, 0, sizeof *out);
	if (p->kind != MLIB_PROP_INT)
		return false;
	out->len = p->col_cap < idx->bound ? p->col_cap : idx->bound;
	out->base = p->nbase;
	if (p->nw == 1)
		out->v8 = p->ncol;
	else if (p->nw == 2)
		out->v16 = p->ncol;
	else if (p->wide)
		out->v64 = p->icol;
	else
		out->v32 = p->icol32;
	return true;
}

const struct bitset *mlib_index_present_set(const struct mlib_index *idx)
{
	return &idx->present;
}

size_t mlib_index_multi_ids(const struct mlib_index *idx, int prop, const uint32_t **ids)
{
	if (prop < 0 || prop >= idx->nprops || prop_r(idx, prop, 0)->kind != MLIB_PROP_STRING) {
		*ids = NULL;
		return 0;
	}
	*ids = prop_r(idx, prop, IG(COL))->multi_ids.v;
	return prop_r(idx, prop, IG(COL))->multi_ids.n;
}

void mlib_index_first_vids(const struct mlib_index *idx, int prop, const uint32_t *ids, size_t n,
			   uint32_t *out)
{
	const struct prop *p = prop >= 0 ? prop_r(idx, prop, IG(COL)) : NULL;
	if (!p || p->kind != MLIB_PROP_STRING) {
		memset(out, 0xff, n * sizeof *out);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		uint32_t c = index_scol_get(p, id);
		if (c != STR_MISSING && (c & STR_MULTI))
			c = p->multi[(c & ~STR_MULTI) + 1];
		out[i] = c;
	}
}
