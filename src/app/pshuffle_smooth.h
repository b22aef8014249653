/* Smooth Party Shuffle (issue 20): the next entry is drawn at random among
 * the candidates that sound nearest to the previous one (tempo, timbre,
 * loudness and onset strength: medialib/similarity.h), within a tempo
 * window, keeping artists apart. `drift` widens both: 0 stays in the mood
 * (the nearest 2 %, at least 3; tempo +-6 %), 1 wanders (the nearest half;
 * +-30 %). A pure algorithm: no player,
 * no database; app_coll.c's refill calls it. */
#ifndef CRATE_APP_PSHUFFLE_SMOOTH_H
#define CRATE_APP_PSHUFFLE_SMOOTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mlib_space;

#define PSHUFFLE_DRIFT_DEFAULT 0.3

/* Tells whether id's artist differs from the previous entry's. */
typedef bool (*pshuffle_other_artist_fn)(void *ud, uint32_t id);

/* An index into pool[0..n) for the entry after prev, never avoid (0:
 * none); SIZE_MAX when sound cannot decide (prev or every candidate lacks
 * an analysis): the caller then draws as plain Party Shuffle does. rng is
 * xorshift64 state. */
size_t pshuffle_smooth_choose(const struct mlib_space *s, const uint32_t *pool, size_t n,
			      uint32_t prev, uint32_t avoid, double drift,
			      pshuffle_other_artist_fn other_artist, void *ud, uint64_t *rng);

/* How many of m ranked candidates the draw is among, for a drift. */
size_t pshuffle_smooth_circle(size_t m, double drift);

#endif
