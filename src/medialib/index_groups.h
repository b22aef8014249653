/* Artist and album groups of a whole library, as the browser shows them:
 * computed once per index and indexed by library rank (position in
 * mlib_index_library_order), so grouping a result that comes in library
 * order reads these arrays front to back instead of jumping around by id.
 *
 * artist = albumartist, else artist, the same text in either dictionary
 * being the same artist; album = (artist group, album title), so "Greatest
 * Hits" of two artists stay apart. An item with several artists (values)
 * is in each one's group: the first in artist_of, the others in extra. */
#ifndef CRATE_MEDIALIB_INDEX_GROUPS_H
#define CRATE_MEDIALIB_INDEX_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mlib_index;

/* A further artist of a multi-artist item: its artist and album group. */
struct mlib_extra_group {
	uint32_t at;    /* library rank (mlib_groups) or whatever position the user keeps */
	uint32_t artist, album;
};

struct mlib_groups {
	uint32_t n;                     /* library size: ranks 0 .. n-1 */
	uint32_t *artist_of;            /* by rank: artist group */
	uint32_t *album_of;             /* by rank: album group (artist, album) */
	uint32_t *year_of;              /* by rank: the item's year, 0 = none */
	const char **artist_text;       /* by artist group: text borrowed from the index,
					 * NULL = no artist */
	const char **album_text;        /* by album group: borrowed text, NULL = no album */
	uint32_t nartists, nalbums;
	struct mlib_extra_group *extra; /* items with several artists: the 2nd.., sorted by rank */
	size_t nextra;
};

/* Group every item of idx (finished). The texts point into idx: the
 * groups live no longer than it. Free with mlib_groups_free. */
struct mlib_groups *mlib_index_groups(const struct mlib_index *idx);
void mlib_groups_free(struct mlib_groups *g);

/* The first of extra[0..n) (sorted by `at`) at `at`; n when none. */
size_t mlib_extra_find(const struct mlib_extra_group *extra, size_t n, uint32_t at);

/* Library rank of each of ids[0..n) into rank[] (UINT32_MAX: not in the
 * library). in_library_order: ids are a set in library order (a walk
 * alongside the library order replaces the lookups when that pays). */
void mlib_index_ranks(const struct mlib_index *idx, const uint32_t *ids, size_t n,
		      bool in_library_order, uint32_t *rank);

#endif
