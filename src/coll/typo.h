/* Spelling corrections for word search: the distinct words of the artist,
 * album and title dictionaries, and the ones within a small
 * Damerau–Levenshtein distance (optimal string alignment) of a word. */
#ifndef CRATE_COLL_TYPO_H
#define CRATE_COLL_TYPO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct mlib_index;
struct coll_typo_dict;

/* The words of idx's artist, album and title values (folded), owned by the
 * caller. Valid while idx is unchanged. */
struct coll_typo_dict *coll_typo_dict_build(const struct mlib_index *idx);

/* The same in two steps, so another thread can build: the source (the
 * dictionaries' texts, found on the thread that owns idx), then the
 * dictionary from it, reading only those texts. cancel (may be NULL) is
 * polled: once set, the build stops and returns NULL. */
struct coll_typo_source {
	const struct mlib_index *idx;
	const char *base[3];
	const uint32_t *offs[3];
	uint32_t n[3];
};
void coll_typo_source_get(const struct mlib_index *idx, struct coll_typo_source *out);
struct coll_typo_dict *coll_typo_dict_build_from(const struct coll_typo_source *src,
						 const atomic_int *cancel);
void coll_typo_dict_free(struct coll_typo_dict *d);
/* Was d built from this index (same address and dictionary sizes)? */
int coll_typo_dict_fits(const struct coll_typo_dict *d, const struct mlib_index *idx);
size_t coll_typo_dict_size(const struct coll_typo_dict *d);

/* How far a word of this many characters may be from a correction: 0 under
 * 4 characters, 1 for 4 to 7, 2 from 8. */
int coll_typo_max_distance(size_t nchars);

/* Up to max dictionary words within coll_typo_max_distance of word (folded)
 * and different from it, nearest first, then the most common first.
 * out[i] point into d (valid while d lives). Returns how many. */
size_t coll_typo_lookup(const struct coll_typo_dict *d, const char *word, const char **out,
			size_t max);

/* Optimal string alignment distance between two code point strings, or
 * limit + 1 when it exceeds limit. */
int coll_typo_distance(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, int limit);

#endif
