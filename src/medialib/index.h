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

/* Declare a media item (id >= 1). Items not declared do not exist. */
void mlib_index_add_media(struct mlib_index *idx, uint32_t id);
/* Append one value of a string property (a second call for the same item and
 * property adds a second value: multi-valued tags). Property names are
 * lower-case. value need not be NUL-terminated. */
void mlib_index_add_str(struct mlib_index *idx, uint32_t id, const char *prop,
			const char *value, size_t len);
/* Set an integer property (duration, tracknr, timesplayed, added, ...). */
void mlib_index_set_int(struct mlib_index *idx, uint32_t id, const char *prop, int64_t value);
/* Call once after adding everything (and after later changes): builds the
 * sort ranks and the library order. */
void mlib_index_finish(struct mlib_index *idx);

/* Small in-place updates that do not need a reload (play statistics,
 * rating): the caller has already written them to SQLite. */
void mlib_index_update_int(struct mlib_index *idx, uint32_t id, const char *prop, int64_t value);

/* ---- reading ---- */

/* Largest media id + 1: arrays indexed by id have this length. */
uint32_t mlib_index_id_bound(const struct mlib_index *idx);
uint32_t mlib_index_count(const struct mlib_index *idx);
bool mlib_index_has_media(const struct mlib_index *idx, uint32_t id);
/* Every existing media id, ascending. Borrowed. */
const struct u32vec *mlib_index_all_ids(const struct mlib_index *idx);
/* Every existing media id in library order (spec/collections.md, "Names and
 * order"). Borrowed; valid until the index changes. */
const struct u32vec *mlib_index_library_order(const struct mlib_index *idx);
/* Position of id in library order (for sorting sets); UINT32_MAX if absent. */
uint32_t mlib_index_library_rank(const struct mlib_index *idx, uint32_t id);

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
/* Rank of the value in natural, case-insensitive order (for ORDER BY). */
uint32_t mlib_index_dict_rank(const struct mlib_index *idx, int prop, uint32_t vid);
/* Value ids of one item for a string property; returns how many (0 = the
 * item lacks the property). *vids is borrowed. */
size_t mlib_index_str_values(const struct mlib_index *idx, int prop, uint32_t id,
			     const uint32_t **vids);
/* Integer columns. */
bool mlib_index_int_value(const struct mlib_index *idx, int prop, uint32_t id, int64_t *out);

/* Convenience for display and CLI output: the first value of a property as
 * text (integers formatted), NULL when absent. Borrowed, or written into
 * buf for integers. Not for hot loops. */
const char *mlib_index_get_text(const struct mlib_index *idx, uint32_t id, const char *prop,
				char *buf, size_t bufsize);

/* Approximate bytes used (for the benchmark report). */
size_t mlib_index_memory(const struct mlib_index *idx);

#endif
