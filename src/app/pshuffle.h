/* Party Shuffle's pick (random mode): which tracks join a Party Shuffle
 * playlist when it runs low. Random draws from the source, keeping the
 * previous entry's artist apart, entries already in the list out, and the
 * recent picks out while others are left; smooth mode (pshuffle_smooth.h)
 * chooses by sound where it can and falls back to this. A pure algorithm:
 * no player, no database; app_coll.c's refill reads the playlist, calls
 * pshuffle_fill and saves the result. */
#ifndef CRATE_APP_PSHUFFLE_H
#define CRATE_APP_PSHUFFLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

struct mlib_index;
struct mlib_space;

#define PSHUFFLE_UPCOMING_DEFAULT 20 /* entries kept ahead of the playing one */
#define PSHUFFLE_NOREPEAT_MAX 200    /* recent picks remembered */

/* Whether id may join (a rule can keep its collection out). */
typedef bool (*pshuffle_allows_fn)(void *ud, uint32_t id);

struct pshuffle_source {
	const struct mlib_index *idx;   /* for artists */
	const struct u32vec *cand;      /* the source's ids, each once */
	const struct mlib_space *space; /* smooth mode's sounds; NULL: random */
	double drift;                   /* smooth mode's drift */
	pshuffle_allows_fn allows;      /* NULL: everything may join */
	void *allows_ud;
};

/* Append up to need picks to list (the playlist's ids; its first played
 * entries have played, the playing one included) and to picks (the
 * earlier picks, oldest first: the last norepeat of them are drawn again
 * only when nothing else is left). An id already in list only when
 * nothing else is left, and never one of the entries still to play. rng
 * is rng.h state. Returns how many were added. */
size_t pshuffle_fill(const struct pshuffle_source *src, struct u32vec *list, size_t played,
		     struct u32vec *picks, size_t need, size_t norepeat, uint64_t *rng);

#endif
