/* A small private random generator (xorshift64*): each user keeps its own
 * state, so there is no global random state and no locking. Plenty for
 * shuffling; not for anything secret. */
#ifndef CRATE_BASE_RNG_H
#define CRATE_BASE_RNG_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* A state from the clock and the process id (never 0, which would stay 0). */
static inline uint64_t rng_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
		     ((uint64_t)getpid() << 48);
	return s ? s : 0x9E3779B97F4A7C15ULL;
}

/* A number in [0, n); n > 0. */
static inline size_t rng_below(uint64_t *s, size_t n)
{
	return (size_t)(rng_next(s) % n);
}

#endif
