/* What the index's own files share (index.c builds and reads it,
 * index_dict.c keeps its dictionaries, index_serialize.c writes and reads
 * snapshots): the layout of struct mlib_index. Private to medialib/index*.c;
 * everyone else goes through index.h. */
#ifndef CRATE_MEDIALIB_INDEX_INTERNAL_H
#define CRATE_MEDIALIB_INDEX_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/hashtab.h"
#include "base/vec.h"
#include "medialib/index_snapshot.h"
#include "medialib/index.h"

#define STR_MISSING MLIB_STR_MISSING /* string column: the item lacks the property */
#define STR_MULTI MLIB_STR_MULTI     /* string column: offset into prop->multi */
#define INT_MISSING INT64_MIN       /* integer column: the item lacks the property */
#define INT32_MISSING INT32_MIN     /* the same in a narrow (32-bit) integer column */
#define RAW_SAME UINT32_MAX         /* dict raw_off: the text equals its folded form */

/* Distinct values of one string property. Texts live in two arenas (one
 * allocation each, growing by doubling, addressed by offsets so growth is
 * free): every folded form in `fold`, and the original text in `raw` only
 * when it differs from the folded form. */
struct dict {
	char *fold;
	size_t fold_len, fold_cap;
	char *raw;
	size_t raw_len, raw_cap;
	uint32_t *fold_off;  /* n+1 entries */
	uint32_t *raw_off;   /* RAW_SAME or offset into raw; NULL in a mapped
			      * dictionary whose texts all equal their folded
			      * forms (raw_len 0: not stored in the snapshot) */
	/* Numeric readings, kept sparse (most titles and urls are not
	 * numbers): a bit per value, then (vid, number) pairs by vid. */
	uint64_t *numbits;
	uint32_t *num_vid;
	double *num_val;
	size_t nnum, num_cap;
	uint32_t *rank;      /* natural-order rank; NULL until computed */
	uint32_t n, cap;
	/* Lookup by original text while building (dropped at finish, rebuilt
	 * if more values come); no slots (nslots 0) = no lookup table. */
	struct hashtab lookup;
	/* The value interned last, + 1 (0 = none), and its length: items
	 * arrive album by album, so most values repeat the one before and
	 * skip the hash and the probe. */
	uint32_t last;
	size_t last_len;
};

struct prop {
	char *name;
	enum mlib_prop_kind kind;
	uint32_t *scol;      /* STRING: vid, STR_MISSING or STR_MULTI|offset */
	/* INT: 32 bits per item while every value fits (years, durations,
	 * counts, Unix times before 2038), widened to 64 on the first that does
	 * not: half the memory, and filters scan half the bytes. */
	int32_t *icol32;     /* narrow: value or INT32_MISSING */
	int64_t *icol;       /* wide: value or INT_MISSING */
	bool wide;
	/* A mapped column narrower than 32 bits (the snapshot stores each at
	 * the width its values need): nw bytes per item (1 or 2), the largest
	 * stored value (0xff, 0xffff) meaning missing. INT: value = nbase +
	 * stored. STRING: stored = the value id (single values only: a
	 * property with multi-value groups stays 32 bits). nw 0 = scol,
	 * icol32 or icol. Only ever inside a mapping (never freed, never
	 * written to): owning the property widens it (prop_own). */
	uint8_t nw;
	void *ncol;
	int64_t nbase;
	size_t col_cap;
	uint32_t col_hint;   /* the index's bound_hint when defined */
	struct dict d;
	/* Multi-valued items: groups [count, vid, vid, ...]. */
	uint32_t *multi;
	size_t multi_len, multi_cap;
	struct u32vec multi_ids; /* the items holding a group, ascending or not */
	/* Items by value, built on first need (a selective string filter) or
	 * for the searched fields at finish and snapshot_read; always the
	 * index's own (never in a snapshot): the items holding value v are
	 * post[post_off[v] .. post_off[v+1]). */
	uint32_t *post_off, *post;
};

/* A snapshot mapped in place under an index (index_serialize.c): the
 * index's arrays point into it until index_map_release copies them out.
 * A property's arrays are checked (checksums, then structure) group by
 * group when something first reads them, not at mapping: a query pays
 * only for what it touches (a search on titles reads their folded texts,
 * not the 20 MB of original ones; printing ten rows checks those). */
enum {
	INDEX_GROUP_COL,  /* column, multi-value groups, items with groups */
	INDEX_GROUP_FOLD, /* folded texts and their offsets */
	INDEX_GROUP_RAW,  /* original texts and their offsets */
	INDEX_GROUP_NUM,  /* numeric readings */
	INDEX_GROUP_RANK, /* natural-order ranks */
	INDEX_GROUP_POST, /* items by value */
	/* The original texts' offsets alone: their structure is checked
	 * whole, the texts block by block as they are read (text_r in
	 * index.c); checking RAW covers it. */
	INDEX_GROUP_RAW_OFF,
	INDEX_GROUPS
};
#define IG(g) (1u << INDEX_GROUP_##g)
#define INDEX_GROUP_ALL ((1u << INDEX_GROUPS) - 1)
struct index_map {
	struct snap_map *snap;  /* owned; unmapped with the index */
	pthread_mutex_t lock;   /* one checker at a time */
	struct {
		size_t first;         /* its first section in the table of contents */
		_Atomic unsigned checked; /* groups checked (IG bits) */
		_Atomic unsigned texts; /* original texts checked one by one */
	} *props;
	_Atomic bool items_derived; /* all_ids and lib_rank built (not stored) */
};

struct mlib_index {
	/* Non-NULL while arrays point into a mapped snapshot: those arrays are
	 * read-only and not owned (never freed or grown); every mutator calls
	 * index_map_release first. */
	struct index_map *map;
	_Atomic bool damaged;      /* a mapped property failed its check (emptied) */
	struct prop *props;
	int nprops, props_cap;
	/* lookup cache: loaders add props in a cycle; atomic because readers on
	 * other threads (the search words, the interface's snapshot) set it */
	atomic_int last_prop;
	struct bitset present;     /* ids declared with add_media */
	uint32_t bound, count;
	/* all_ids and lib_rank follow from present and lib_order: a mapped
	 * index derives them on first use (index_map_derive_items). */
	/* Expected id bound while loading (mlib_index_reserve): a column's
	 * first allocation takes this size at once instead of doubling up to
	 * it. Only a hint: larger ids still grow the arrays. */
	uint32_t bound_hint;
	struct u32vec all_ids;     /* ascending */
	struct u32vec lib_order;
	uint32_t *lib_rank;        /* per id; UINT32_MAX when absent */
	uint64_t edits;            /* in-place updates so far (mlib_index_edits) */
};

/* vid -> vid for every 16-bit value id: what mlib_index_str_values and
 * mlib_str_column_get point *vids into for a narrow string column. Filled
 * (index_vid_ident_ready) before any narrow column is mapped. */
extern uint32_t index_vid_ident[UINT16_MAX + 1];
void index_vid_ident_ready(void);

/* Code of item id of a string column (any width): a vid, STR_MISSING or
 * STR_MULTI | offset. */
static inline uint32_t index_scol_get(const struct prop *p, size_t id)
{
	if (id >= p->col_cap)
		return STR_MISSING;
	if (p->nw == 1) {
		uint8_t c = ((const uint8_t *)p->ncol)[id];
		return c == UINT8_MAX ? STR_MISSING : c;
	}
	if (p->nw == 2) {
		uint16_t c = ((const uint16_t *)p->ncol)[id];
		return c == UINT16_MAX ? STR_MISSING : c;
	}
	return p->scol[id];
}

/* Value of item id of an integer column (any width); INT_MISSING when
 * absent or past the column. */
static inline int64_t index_icol_get(const struct prop *p, size_t id)
{
	if (id >= p->col_cap)
		return INT_MISSING;
	if (p->nw == 1) {
		uint8_t v = ((const uint8_t *)p->ncol)[id];
		return v == UINT8_MAX ? INT_MISSING : p->nbase + v;
	}
	if (p->nw == 2) {
		uint16_t v = ((const uint16_t *)p->ncol)[id];
		return v == UINT16_MAX ? INT_MISSING : p->nbase + v;
	}
	if (p->wide)
		return p->icol[id];
	return p->icol32[id] == INT32_MISSING ? INT_MISSING : p->icol32[id];
}

/* Grow *p (of *cap elements of elem bytes) by doubling until need fit. */
static inline void *index_grow_array(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	p = xreallocarray(p, c, elem);
	*cap = c;
	return p;
}

/* ---- mapped snapshots (index_serialize.c) ---- */

/* Check groups mask (IG bits) of property i of a mapped index before
 * they are read (no-op once done, or for an index that owns its arrays).
 * A group that fails is replaced by harmless arrays of the same sizes and
 * the index marked damaged (mlib_index_map_damaged). Thread-safe. */
void index_map_check_slow(const struct mlib_index *idx, int i, unsigned mask);
/* Check bytes [off, off + len) of property i's original texts (IG(RAW_OFF)
 * checked first) against their blocks' checksums; on a mismatch the index
 * is marked damaged (the text stays readable: its structure holds).
 * Thread-safe. */
void index_map_check_text(const struct mlib_index *idx, int i, size_t off, size_t len);
static inline void index_map_check(const struct mlib_index *idx, int i, unsigned mask)
{
	if (idx->map && (idx->map->props[i].checked & mask) != mask)
		index_map_check_slow(idx, i, mask);
}
/* all_ids from the present bits and lib_rank from lib_order (replacing
 * any), as the index's own allocations. */
void index_items_derive(struct mlib_index *idx);
/* For a mapped index: index_items_derive once (thread-safe). */
void index_map_derive_items_slow(const struct mlib_index *idx);
static inline void index_map_derive_items(const struct mlib_index *idx)
{
	if (idx->map && !idx->map->items_derived)
		index_map_derive_items_slow(idx);
}
/* Make idx own every array (copies of the mapped ones, every property
 * checked first) and unmap the snapshot: before anything changes the
 * index. No-op for an index that owns its arrays. */
void index_map_release(struct mlib_index *idx);
/* The same for property i alone (checked, then its arrays copied out);
 * the rest stays mapped. */
void index_map_own_prop(struct mlib_index *idx, int i);
/* Forget (do not free) the arrays inside the mapping and unmap it: for
 * mlib_index_free. */
void index_map_drop(struct mlib_index *idx);

/* ---- building one property (index.c) ----
 * What mlib_index_add_str_p, _add_unique_str_p and _set_int_p do to one
 * property, for a loader filling several properties from several threads
 * at once: each property from one thread only, and idx->props must not
 * move meanwhile (index_reserve_props first; prop definitions on one
 * thread). */
void index_reserve_props(struct mlib_index *idx, int n);
static inline struct prop *index_prop(struct mlib_index *idx, int h)
{
	return &idx->props[h];
}
void index_prop_add_str(struct prop *p, uint32_t id, const char *value, size_t len);
void index_prop_add_unique_str(struct prop *p, uint32_t id, const char *value, size_t len);
void index_prop_set_int(struct prop *p, uint32_t id, int64_t value);
/* For a loader that maps its own string ids to value ids once: the
 * value id of value in p's dictionary (added when new; UINT32_MAX when p
 * is not a string property), then that value for item id, as
 * index_prop_add_str would add it. */
uint32_t index_prop_intern(struct prop *p, const char *value, size_t len);
void index_prop_add_vid(struct prop *p, uint32_t id, uint32_t vid);
/* n values at once, ids ascending (a batch of a loader): the same as
 * index_prop_add_vid / index_prop_set_int for each, with the column sized
 * and the checks made once. */
void index_prop_add_vids(struct prop *p, const uint32_t *ids, const uint32_t *vids, size_t n);
void index_prop_set_ints(struct prop *p, const uint32_t *ids, const int64_t *values, size_t n);

/* Items-by-value lists for the fields a plain search word looks in
 * (large dictionaries only), where missing; one helper thread shares the
 * work. For an owned index (finish, snapshot_read). */
void index_build_search_postings(struct mlib_index *idx);
/* index_prop_add_str of a value holding no NUL whose hash_bytes is h. */
void index_prop_add_str_h(struct prop *p, uint32_t id, const char *value, size_t len, uint32_t h);

/* ---- dictionaries (index_dict.c) ---- */

/* The original text of value vid; lives as long as the dictionary.
 * Inline: readers call it once per value shown or compared. */
static inline const char *index_dict_text(const struct dict *d, uint32_t vid)
{
	return !d->raw_off || d->raw_off[vid] == RAW_SAME ? d->fold + d->fold_off[vid] : d->raw + d->raw_off[vid];
}
/* The value's numeric reading; NAN when it is not a number. */
double index_dict_number(const struct dict *d, uint32_t vid);
/* The id of text s[0..len) (cut at a NUL), added when new. */
uint32_t index_dict_intern(struct dict *d, const char *s, size_t len);
/* The same for s[0..len) holding no NUL, whose hash_bytes is h: a loader
 * hashes a batch of values first and prefetches their slots (a probe of a
 * million-value table otherwise waits on memory for each value). */
uint32_t index_dict_intern_h(struct dict *d, const char *s, size_t len, uint32_t h);
void index_dict_prefetch(const struct dict *d, uint32_t h);
/* After index_dict_prefetch(h) has had time: the next step of the
 * lookup, for the values already filed under h (half of a library's
 * titles repeat an earlier one): step 0 their offsets, step 1 (after
 * step 0) their texts. A comparison then finds them in the cache. */
void index_dict_prefetch_match(const struct dict *d, uint32_t h, int step);
/* Add a value the caller guarantees differs from every other. */
uint32_t index_dict_add_unique(struct dict *d, const char *s, size_t len);
/* Room for n values holding fold_bytes folded and raw_bytes original
 * bytes (terminators included) without growing; a loader's estimate. */
void index_dict_reserve(struct dict *d, uint32_t n, size_t fold_bytes, size_t raw_bytes);
/* Once built: drop what only interning needs and trim the growth room. */
void index_dict_compact(struct dict *d);
/* Natural-order ranks into d->rank (kept until a value is added). */
void index_dict_compute_ranks(struct dict *d);
/* The values of a and b (either may be NULL) ranked together in one
 * natural order: *a_rank and *b_rank point into one allocation, owned by
 * the caller through *a_rank. */
void index_dict_joint_ranks(const struct dict *a, const struct dict *b, uint32_t **a_rank,
			    uint32_t **b_rank);
void index_dict_free(struct dict *d);

#endif
