/* The in-memory index of the media library (DESIGN.md, "Evaluation and
 * speed"). SQLite is the truth; this is a cache built from it at start-up
 * (medialib/index_load.c) and rebuilt after a scan commits. The evaluator
 * reads it; nothing else writes it.
 *
 * Shape: media ids are dense-ish integers from SQLite; per property one
 * column indexed by media id. A string column holds ids into the column's
 * own dictionary of distinct values (each value interned once, with a
 * case- and accent-folded twin and its numeric value when it parses as a
 * number), so a filter tests each distinct value once and then maps the
 * hits to tracks. Integer columns hold int64 values directly.
 * Multi-valued tags: a media item can hold several values of one property.
 */
#ifndef CRATE_MEDIALIB_INDEX_H
#define CRATE_MEDIALIB_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/vec.h"

struct mlib_index;

enum mlib_prop_kind {
	MLIB_PROP_STRING,
	MLIB_PROP_INT,
};

/* ---- building (index_load.c, tests, the benchmark generator) ---- */

/* An empty index, owned by the caller. */
struct mlib_index *mlib_index_new(void);
void mlib_index_free(struct mlib_index *idx);

/* Ids below bound are expected (a loader's max(id) + 1): the present set
 * and every column allocated from now on get room for them at once rather
 * than doubling up to it. A hint only: other ids are taken as ever.
 * bound 0 ends the hint (properties defined later start small). */
void mlib_index_reserve(struct mlib_index *idx, uint32_t bound);
/* Declare a media item (id >= 1). Items not declared do not exist. */
void mlib_index_add_media(struct mlib_index *idx, uint32_t id);
/* Append one value of a string property (a second call for the same item and
 * property adds a second value: multi-valued tags). Property names are
 * lower-case. value need not be NUL-terminated. */
void mlib_index_add_str(struct mlib_index *idx, uint32_t id, const char *prop,
			const char *value, size_t len);
/* Set an integer property (duration, tracknr, timesplayed, added, ...).
 * A property's kind is fixed by its first use: set_int on a string property
 * stores the decimal text; add_str on an integer property stores the
 * integer when the text is one, and otherwise turns the whole column into a
 * string column (integers become their decimal text). */
void mlib_index_set_int(struct mlib_index *idx, uint32_t id, const char *prop, int64_t value);
/* The same by property handle, for loaders adding millions of values
 * (resolving a name per value cost a tenth of the load). define returns
 * the handle of name, creating the property with kind when it does not
 * exist yet (creating it makes mlib_index_prop find it, so define a
 * property when its first value comes). Handles stay valid while the
 * index lives. Out-of-range handles are ignored. */
int mlib_index_prop_define(struct mlib_index *idx, const char *name, enum mlib_prop_kind kind);
void mlib_index_add_str_p(struct mlib_index *idx, uint32_t id, int prop, const char *value,
			  size_t len);
void mlib_index_set_int_p(struct mlib_index *idx, uint32_t id, int prop, int64_t value);
/* add_str_p for a value the caller guarantees no other item of this
 * property holds (url: UNIQUE in the database). Skips the duplicate lookup;
 * a wrong guarantee gives a dictionary with two equal values. */
void mlib_index_add_unique_str_p(struct mlib_index *idx, uint32_t id, int prop, const char *value,
				 size_t len);
/* Call once after adding everything (and after later changes): builds the
 * sort ranks and the library order. */
void mlib_index_finish(struct mlib_index *idx);

/* Small in-place updates that do not need a reload (play statistics,
 * rating): the caller has already written them to SQLite. The library
 * order is not recomputed (these properties are not part of it). */
void mlib_index_update_int(struct mlib_index *idx, uint32_t id, const char *prop, int64_t value);
/* The same for a value that became absent (a cleared rating): the item
 * then lacks prop, as after a load. Does nothing when no item has prop. */
void mlib_index_clear_int(struct mlib_index *idx, uint32_t id, const char *prop);
/* How many in-place updates (the two calls above) idx has had: what was
 * computed from idx at one count (a search's results) is stale at
 * another. */
uint64_t mlib_index_edits(const struct mlib_index *idx);

/* ---- reading ---- */

/* Largest media id + 1: arrays indexed by id have this length. */
uint32_t mlib_index_id_bound(const struct mlib_index *idx);
uint32_t mlib_index_count(const struct mlib_index *idx);
bool mlib_index_has_media(const struct mlib_index *idx, uint32_t id);
/* Every existing media id, ascending. Borrowed. */
const struct u32vec *mlib_index_all_ids(const struct mlib_index *idx);
/* Every existing media id as a bitset over [0, id_bound). Borrowed. */
const struct bitset *mlib_index_present_set(const struct mlib_index *idx);
/* Every existing media id in library order (spec/collections.md, "Names and
 * order"). Borrowed; valid until the index changes. */
const struct u32vec *mlib_index_library_order(const struct mlib_index *idx);
/* Position of id in library order (for sorting sets); UINT32_MAX if absent. */
uint32_t mlib_index_library_rank(const struct mlib_index *idx, uint32_t id);
/* The same for many ids at once: rank[i] of ids[i] (one lookup table read
 * per id instead of a call). */
void mlib_index_library_rank_many(const struct mlib_index *idx, const uint32_t *ids, size_t n,
				  uint32_t *rank);
/* False while the ranks are not built (a mapped index derives them on the
 * first mlib_index_library_rank: a pass over the library order plus 4
 * bytes per id; one walk of mlib_index_library_order costs less). */
bool mlib_index_library_ranks_ready(const struct mlib_index *idx);

/* Property handles: -1 when no item has the property. */
int mlib_index_prop(const struct mlib_index *idx, const char *name);
enum mlib_prop_kind mlib_index_prop_kind(const struct mlib_index *idx, int prop);
const char *mlib_index_prop_name(const struct mlib_index *idx, int prop);
int mlib_index_prop_count(const struct mlib_index *idx);

/* String columns: the dictionary of distinct values. */
uint32_t mlib_index_dict_size(const struct mlib_index *idx, int prop);
const char *mlib_index_dict_text(const struct mlib_index *idx, int prop, uint32_t vid);
const char *mlib_index_dict_folded(const struct mlib_index *idx, int prop, uint32_t vid);
/* The value's numeric reading; false when it is not a number. */
bool mlib_index_dict_number(const struct mlib_index *idx, int prop, uint32_t vid, double *out);
/* Rank of the value in natural, case-insensitive order (for ORDER BY):
 * values that read as numbers come first, in numeric order; then the rest
 * by str_natcmp on the folded text. Equal folded texts share a rank. Ranks
 * of large dictionaries not needed for the library order are computed on
 * first use (the index belongs to the main thread, so this is safe). */
uint32_t mlib_index_dict_rank(const struct mlib_index *idx, int prop, uint32_t vid);
/* All folded texts of a dictionary, NUL-terminated and contiguous in value-id
 * order: value vid occupies base[offs[vid] .. offs[vid+1]-1) (the NUL is at
 * offs[vid+1]-1). Lets the evaluator find substrings in every distinct value
 * with one memmem pass. Borrowed; *n receives the dictionary size. */
void mlib_index_dict_fold_span(const struct mlib_index *idx, int prop, const char **base,
			       const uint32_t **offs, uint32_t *n);
/* Value ids of one item for a string property; returns how many (0 = the
 * item lacks the property). *vids is borrowed. */
size_t mlib_index_str_values(const struct mlib_index *idx, int prop, uint32_t id,
			     const uint32_t **vids);
/* The raw string column, for hot loops over many items (ranking): the
 * same answers as mlib_index_str_values without a call per item. Borrowed
 * until the index changes; false (and all zero) for a non-string property. */
#define MLIB_STR_MISSING UINT32_MAX
#define MLIB_STR_MULTI 0x80000000u
struct mlib_str_column {
	const uint32_t *scol; /* per id: vid, MLIB_STR_MISSING or MLIB_STR_MULTI | offset */
	const uint32_t *multi; /* groups [count, vid, vid, ...] */
	size_t len;
	/* Instead of scol, a snapshot mapped in place may hold a narrow
	 * column (single values only): per id the vid, UINT8_MAX / UINT16_MAX
	 * when missing; ident[v] == v gives *vids a place to point. */
	const uint8_t *s8;
	const uint16_t *s16;
	const uint32_t *ident;
};
bool mlib_index_str_column(const struct mlib_index *idx, int prop, struct mlib_str_column *out);
/* The column's code for id: a vid, MLIB_STR_MISSING or MLIB_STR_MULTI | offset. */
static inline uint32_t mlib_str_column_code(const struct mlib_str_column *c, uint32_t id)
{
	if (id >= c->len)
		return MLIB_STR_MISSING;
	if (c->scol)
		return c->scol[id];
	if (c->s8)
		return c->s8[id] == UINT8_MAX ? MLIB_STR_MISSING : c->s8[id];
	return c->s16[id] == UINT16_MAX ? MLIB_STR_MISSING : c->s16[id];
}
static inline size_t mlib_str_column_get(const struct mlib_str_column *c, uint32_t id,
					 const uint32_t **vids)
{
	uint32_t code = mlib_str_column_code(c, id);
	if (code == MLIB_STR_MISSING)
		return 0;
	if (code & MLIB_STR_MULTI) {
		const uint32_t *g = c->multi + (code & ~MLIB_STR_MULTI);
		*vids = g + 1;
		return g[0];
	}
	*vids = c->scol ? &c->scol[id] : &c->ident[code];
	return 1;
}
/* The items that may hold several values of a string property (a superset:
 * check each with mlib_index_str_values), in no particular order; *ids is
 * borrowed until the index changes. Multi-values are rare, so walking these
 * is how callers treat every value without visiting every item. */
size_t mlib_index_multi_ids(const struct mlib_index *idx, int prop, const uint32_t **ids);
/* Bulk selection for the evaluator: set in out (a bitset over at least
 * id_bound bits) every item having the string property with ANY of its
 * values' ids set in vals (none == false), or having the property with
 * NONE of them set (none == true). */
void mlib_index_select_str(const struct mlib_index *idx, int prop, const struct bitset *vals,
			   bool none, struct bitset *out);
/* Sort keys for ORDER BY on a string property: out[i] = 1 + the rank of
 * the first value of ids[i], 0 when it lacks the property. */
void mlib_index_first_ranks(const struct mlib_index *idx, int prop, const uint32_t *ids, size_t n,
			    uint64_t *out);
/* The first value id of each of ids[0..n) (UINT32_MAX when the item lacks
 * the property, or prop is not a string property / is -1): one call per
 * column instead of one per item, for grouping large results. */
void mlib_index_first_vids(const struct mlib_index *idx, int prop, const uint32_t *ids, size_t n,
			   uint32_t *out);
/* Ranks of every value of a string dictionary (mlib_index_dict_rank for all
 * vids at once). Borrowed. */
const uint32_t *mlib_index_dict_ranks(const struct mlib_index *idx, int prop);
/* Integer columns. */
#define MLIB_INT_MISSING INT64_MIN
/* The raw column, indexed by id, for ids below len only: exactly one of
 * v8, v16 (a snapshot mapped in place stores a column whose values span
 * fewer than 65535 at that width: value = base + stored, UINT8_MAX /
 * UINT16_MAX when absent), v32 (every value fits 32 bits;
 * MLIB_INT32_MISSING when absent) or v64 (MLIB_INT_MISSING when absent)
 * is set. Borrowed. False (and all zero) for a string property. */
#define MLIB_INT32_MISSING INT32_MIN
struct mlib_int_column {
	const uint8_t *v8;
	const uint16_t *v16;
	const int32_t *v32;
	const int64_t *v64;
	int64_t base;
	size_t len;
};
bool mlib_index_int_column(const struct mlib_index *idx, int prop, struct mlib_int_column *out);
/* One value of such a column: MLIB_INT_MISSING when absent. */
static inline int64_t mlib_int_column_get(const struct mlib_int_column *c, size_t id)
{
	if (id >= c->len)
		return MLIB_INT_MISSING;
	if (c->v8)
		return c->v8[id] == UINT8_MAX ? MLIB_INT_MISSING : c->base + c->v8[id];
	if (c->v16)
		return c->v16[id] == UINT16_MAX ? MLIB_INT_MISSING : c->base + c->v16[id];
	if (c->v64)
		return c->v64[id];
	return c->v32[id] == MLIB_INT32_MISSING ? MLIB_INT_MISSING : c->v32[id];
}
bool mlib_index_int_value(const struct mlib_index *idx, int prop, uint32_t id, int64_t *out);

/* Convenience for display and CLI output: the first value of a property as
 * text (integers formatted), NULL when absent. Borrowed, or written into
 * buf for integers. Not for hot loops. */
const char *mlib_index_get_text(const struct mlib_index *idx, uint32_t id, const char *prop,
				char *buf, size_t bufsize);
/* The separator display puts between the values of a multi-valued property
 * when the configuration (display.separator) does not choose one. */
#define MLIB_VALUE_SEPARATOR "; "
/* Like mlib_index_get_text, but every value, joined with sep, written into
 * buf (cut at bufsize). NULL when absent. */
const char *mlib_index_get_joined(const struct mlib_index *idx, uint32_t id, const char *prop,
				  const char *sep, char *buf, size_t bufsize);

/* Approximate bytes used (for the benchmark report). */
size_t mlib_index_memory(const struct mlib_index *idx);

/* ---- snapshot: the finished index as a file (medialib/index_snapshot.h) ----
 * Lets start-up skip the SQLite load when the database has not changed
 * (index_load.c decides when). */
struct snap_key;
/* Write idx (finished) to path atomically (temporary file + rename). */
int mlib_index_snapshot_write(const struct mlib_index *idx, const char *path,
			      const struct snap_key *key, struct crate_err *err);
/* Read a snapshot written for key into a new finished index (*out, owned by
 * the caller). Any mismatch, damage or inconsistency is an error (and no
 * index): the caller loads from SQLite instead. */
int mlib_index_snapshot_read(const char *path, const struct snap_key *key,
			     struct mlib_index **out, struct crate_err *err);
/* The same index with its arrays in the mapped file, used in place: for a
 * one-shot command, which then touches only the pages its query reads.
 * The header, table of contents and item lists are checked here; each
 * property (checksums and structure) when first read. A property that
 * fails reads as empty and mlib_index_map_damaged turns true: the caller
 * discards what it computed and loads from SQLite. Changing the index
 * (add, set, update, finish) first copies everything out of the mapping. */
int mlib_index_snapshot_map(const char *path, const struct snap_key *key,
			    struct mlib_index **out, struct crate_err *err);
/* Whether idx still reads from a mapped snapshot. */
bool mlib_index_is_mapped(const struct mlib_index *idx);
/* Whether a property of idx, read from a mapping, failed its check (see
 * above); stays true after the mapping is released. */
bool mlib_index_map_damaged(const struct mlib_index *idx);

#endif
