#include "app/pshuffle_smooth.h"

#include <math.h>
#include <stdlib.h>

#include "base/err.h"
#include "base/rng.h"
#include "medialib/similarity.h"

#define CIRCLE_MIN 3
#define CIRCLE_NEAR 0.02 /* drift 0 */
#define CIRCLE_FAR 0.5   /* drift 1 */
/* Tempo window around the previous track: +-6 % at drift 0, +-30 % at
 * drift 1 (a DJ's pitch range, then a mood's). Candidates whose tempo is
 * unknown pass; when none is inside, the window is dropped. */
#define WINDOW_NEAR 0.06
#define WINDOW_FAR 0.30

struct cand {
	uint32_t dist;
	uint32_t at; /* index into pool */
};

size_t pshuffle_smooth_circle(size_t m, double drift)
{
	if (!(drift >= 0))
		drift = 0;
	if (drift > 1)
		drift = 1;
	double frac = CIRCLE_NEAR + (CIRCLE_FAR - CIRCLE_NEAR) * drift * drift;
	size_t k = (size_t)ceil((double)m * frac);
	if (k < CIRCLE_MIN)
		k = CIRCLE_MIN;
	return k < m ? k : m;
}

static bool less(const struct cand *a, const struct cand *b)
{
	return a->dist < b->dist || (a->dist == b->dist && a->at < b->at);
}

static void swap(struct cand *a, struct cand *b)
{
	struct cand t = *a;
	*a = *b;
	*b = t;
}

/* Move the k smallest to c[0..k) (quickselect, three-way partition; their
 * order among themselves is free). */
static void select_k(struct cand *c, size_t n, size_t k, uint64_t *rng)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		struct cand p = c[lo + rng_below(rng, hi - lo)];
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			if (less(&c[i], &p))
				swap(&c[lt++], &c[i++]);
			else if (less(&p, &c[i]))
				swap(&c[i], &c[--gt]);
			else
				i++;
		}
		/* [lo,lt) < p, [lt,gt) = p, [gt,hi) > p */
		if (k < lt)
			hi = lt;
		else if (k <= gt)
			return;
		else
			lo = gt;
	}
}

size_t pshuffle_smooth_choose(const struct mlib_space *s, const uint32_t *pool, size_t n,
			      uint32_t prev, uint32_t avoid, double drift,
			      pshuffle_other_artist_fn other_artist, void *ud, uint64_t *rng)
{
	if (!s || !prev || !mlib_space_has(s, prev) || n == 0)
		return SIZE_MAX;
	struct cand *c = xmalloc(n * sizeof *c);
	size_t m = 0;
	double d01 = drift >= 0 && drift <= 1 ? drift : drift > 1 ? 1 : 0;
	double window = log2(1 + WINDOW_NEAR + (WINDOW_FAR - WINDOW_NEAR) * d01);
	double tprev = mlib_space_tempo(s, prev);
	/* Passes from strict to loose: another artist within the tempo
	 * window; another artist; anyone. */
	for (int pass = 0; pass < 3 && m == 0; pass++) {
		for (size_t i = 0; i < n; i++) {
			if (pool[i] == avoid || pool[i] == prev)
				continue;
			uint32_t d = mlib_space_distance(s, prev, pool[i]);
			if (d == UINT32_MAX)
				continue;
			if (pass < 2 && other_artist && !other_artist(ud, pool[i]))
				continue;
			double t = pass == 0 ? mlib_space_tempo(s, pool[i]) : NAN;
			if (pass == 0 && !isnan(tprev) && !isnan(t) && fabs(t - tprev) > window)
				continue;
			c[m++] = (struct cand){d, (uint32_t)i};
		}
	}
	size_t pick = SIZE_MAX;
	if (m > 0) {
		if (!*rng) /* xorshift stays at 0 */
			*rng = 0x9E3779B97F4A7C15ULL;
		size_t k = pshuffle_smooth_circle(m, drift);
		select_k(c, m, k, rng);
		pick = c[rng_below(rng, k)].at;
	}
	free(c);
	return pick;
}
