/* The similarity space: one small vector per analysed item (timbre, tempo,
 * loudness, onset strength, each standardised over the library and
 * quantised to a byte), for `like:` and smooth Party Shuffle. Built from
 * the media_analysis table for the items of one index; read-only after. */
#ifndef CRATE_MEDIALIB_SIMILARITY_H
#define CRATE_MEDIALIB_SIMILARITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/vec.h"
#include "medialib/db.h"

struct mlib_index;
struct mlib_space;

/* Dimensions of a vector: 28 timbre, tempo, loudness, onset. */
#define MLIB_SPACE_DIMS 31

/* Build the space of idx's items from db. *out owned by the caller
 * (mlib_space_free); an empty space when nothing is analysed. */
int mlib_space_load(struct mlib_db *db, const struct mlib_index *idx, struct mlib_space **out,
		    struct crate_err *err);
/* The same from raw vectors (tests, benchmarks): raw[i*dims ..] for ids[i],
 * standardised here. */
struct mlib_space *mlib_space_from_raw(const uint32_t *ids, const float *raw, size_t n,
				       size_t dims);
void mlib_space_free(struct mlib_space *s);

/* Items with a vector. */
size_t mlib_space_count(const struct mlib_space *s);
bool mlib_space_has(const struct mlib_space *s, uint32_t id);
/* id's vector widened into v (MLIB_SPACE_DIMS values); false without one. */
bool mlib_space_vector(const struct mlib_space *s, uint32_t id, int16_t *v);
/* id's tempo as log2(BPM) when it is known and sure (confidence >= 0.3);
 * NAN otherwise. */
double mlib_space_tempo(const struct mlib_space *s, uint32_t id);
/* Squared distance between two items (UINT32_MAX when either lacks a vector). */
uint32_t mlib_space_distance(const struct mlib_space *s, uint32_t a, uint32_t b);

/* The centroid of the items of seed that have a vector, into c
 * (MLIB_SPACE_DIMS values); false when none has one. */
bool mlib_space_centroid(const struct mlib_space *s, const uint32_t *seed, size_t n,
			 int16_t *c);
/* The first `keep` (SIZE_MAX: all) items with a vector, not in skip (may
 * be NULL), ordered by distance to c (nearest first; ties by id),
 * appended to out. */
void mlib_space_nearest(const struct mlib_space *s, const int16_t *c, const struct bitset *skip,
			size_t keep, struct u32vec *out);

#endif
