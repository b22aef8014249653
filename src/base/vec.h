/* Growable arrays of media ids and a fixed-size bitset over ids. */
#ifndef CRATE_BASE_VEC_H
#define CRATE_BASE_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

/* An owned array of uint32_t (media ids, string ids, positions). */
struct u32vec {
	uint32_t *v;
	size_t n, cap;
};

static inline void u32vec_reserve(struct u32vec *a, size_t cap)
{
	if (cap > a->cap) {
		size_t c = a->cap ? a->cap : 16;
		while (c < cap)
			c *= 2;
		a->v = xreallocarray(a->v, c, sizeof *a->v);
		a->cap = c;
	}
}

static inline void u32vec_push(struct u32vec *a, uint32_t x)
{
	if (a->n == a->cap)
		u32vec_reserve(a, a->n + 1);
	a->v[a->n++] = x;
}

static inline void u32vec_free(struct u32vec *a)
{
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* A bitset over [0, nbits); owns its words. */
struct bitset {
	uint64_t *w;
	size_t nbits;
};

static inline void bitset_init(struct bitset *b, size_t nbits)
{
	b->nbits = nbits;
	b->w = xcalloc((nbits + 63) / 64, sizeof *b->w);
}

static inline void bitset_free(struct bitset *b)
{
	free(b->w);
	b->w = NULL;
	b->nbits = 0;
}

static inline void bitset_set(struct bitset *b, size_t i)
{
	b->w[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline void bitset_clear(struct bitset *b, size_t i)
{
	b->w[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

static inline bool bitset_test(const struct bitset *b, size_t i)
{
	return i < b->nbits && (b->w[i >> 6] >> (i & 63)) & 1;
}

static inline size_t bitset_words(const struct bitset *b)
{
	return (b->nbits + 63) / 64;
}

/* to = a copy of from (to's words are replaced). */
static inline void bitset_copy(struct bitset *to, const struct bitset *from)
{
	free(to->w);
	to->nbits = from->nbits;
	to->w = xmalloc((bitset_words(from) + 1) * sizeof *to->w);
	memcpy(to->w, from->w, bitset_words(from) * sizeof *to->w);
}

/* Whether any bit is set. */
static inline bool bitset_any(const struct bitset *b)
{
	for (size_t i = 0; i < bitset_words(b); i++)
		if (b->w[i])
			return true;
	return false;
}

static inline bool bitset_equal(const struct bitset *a, const struct bitset *b)
{
	return a->nbits == b->nbits && memcmp(a->w, b->w, bitset_words(a) * sizeof *a->w) == 0;
}

#endif
