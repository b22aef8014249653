/* The similarity space and smooth Party Shuffle's pick, on vectors made
 * here: four families of tracks, each a cluster. (tests/integration/
 * similarity.sh does the same from real, synthesised audio.) */
#include <math.h>
#include <stdlib.h>

#include "app/pshuffle_smooth.h"
#include "harness.h"
#include "medialib/similarity.h"

#define FAMILIES 4
#define PER 25
#define N (FAMILIES * PER)

static uint64_t rng_state = 12345;

static double gauss(void)
{
	/* Box-Muller on xorshift: reproducible. */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	double u = ((rng_state >> 11) + 0.5) / 9007199254740992.0;
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	double v = ((rng_state >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Ids 1..N; family of id = (id-1) / PER; centres far apart in a few dims. */
static struct mlib_space *make_space(void)
{
	uint32_t ids[N];
	float *raw = xcalloc(N * MLIB_SPACE_DIMS, sizeof *raw);
	for (int i = 0; i < N; i++) {
		ids[i] = (uint32_t)(N - i); /* unsorted on purpose */
		int fam = (int)(ids[i] - 1) / PER;
		for (int d = 0; d < MLIB_SPACE_DIMS; d++)
			raw[i * MLIB_SPACE_DIMS + d] =
				(float)((d % FAMILIES == fam ? 4.0 : 0.0) + 0.5 * gauss());
	}
	/* One item without tempo, loudness and onset: absent values. */
	raw[0 * MLIB_SPACE_DIMS + MLIB_SPACE_DIMS - 1] = NAN;
	struct mlib_space *s = mlib_space_from_raw(ids, raw, N, MLIB_SPACE_DIMS);
	free(raw);
	return s;
}

static int family(uint32_t id)
{
	return (int)(id - 1) / PER;
}

TEST(nearest_are_the_same_family)
{
	struct mlib_space *s = make_space();
	CHECK_INT(mlib_space_count(s), N);
	CHECK(!mlib_space_has(s, 0) && !mlib_space_has(s, N + 1));
	double hits = 0;
	for (uint32_t id = 1; id <= N; id++) {
		int16_t c[MLIB_SPACE_DIMS];
		REQUIRE(mlib_space_centroid(s, &id, 1, c));
		struct bitset skip;
		bitset_init(&skip, N + 1);
		bitset_set(&skip, id);
		struct u32vec out = {0};
		mlib_space_nearest(s, c, &skip, SIZE_MAX, &out);
		CHECK_INT(out.n, N - 1);
		for (size_t k = 0; k < 5; k++)
			hits += family(out.v[k]) == family(id);
		/* Ordered by distance. */
		for (size_t k = 1; k < out.n; k++)
			CHECK(mlib_space_distance(s, id, out.v[k - 1]) <=
			      mlib_space_distance(s, id, out.v[k]));
		/* The first k alone are the same as the first k of all. */
		struct u32vec few = {0};
		mlib_space_nearest(s, c, &skip, 7, &few);
		CHECK_INT(few.n, 7);
		for (size_t k = 0; k < few.n && k < out.n; k++)
			CHECK_INT(few.v[k], out.v[k]);
		u32vec_free(&few);
		u32vec_free(&out);
		bitset_free(&skip);
	}
	double precision = hits / (5.0 * N);
	CHECK_MSG(precision >= 0.8, "precision@5 %.2f", precision);
	mlib_space_free(s);
}

TEST(centroid_of_nothing_analysed_is_refused)
{
	struct mlib_space *s = make_space();
	int16_t c[MLIB_SPACE_DIMS];
	uint32_t none[2] = {0, N + 5};
	CHECK(!mlib_space_centroid(s, none, 2, c));
	CHECK(!mlib_space_centroid(s, NULL, 0, c));
	mlib_space_free(s);
}

static bool never_same(void *ud, uint32_t id)
{
	(void)ud;
	(void)id;
	return true;
}

/* A walk of `steps` picks from pool (everything but what was picked). */
static double walk(const struct mlib_space *s, double drift, bool smooth, uint64_t seed)
{
	uint32_t pool[N];
	size_t n = 0;
	for (uint32_t id = 2; id <= N; id++)
		pool[n++] = id;
	uint32_t prev = 1;
	uint64_t rng = seed;
	double sum = 0;
	int steps = 40;
	for (int t = 0; t < steps; t++) {
		size_t k = smooth ? pshuffle_smooth_choose(s, pool, n, prev, 0, drift, never_same,
							   NULL, &rng)
				  : (size_t)((rng = rng * 6364136223846793005ull + 1) >> 33) % n;
		REQUIRE(k < n);
		sum += sqrt((double)mlib_space_distance(s, prev, pool[k]));
		prev = pool[k];
		pool[k] = pool[--n];
	}
	return sum / steps;
}

TEST(smooth_walk_is_closer_than_uniform)
{
	struct mlib_space *s = make_space();
	double smooth = 0, uniform = 0, wander = 0;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		smooth += walk(s, 0.0, true, seed) / 5;
		wander += walk(s, 1.0, true, seed) / 5;
		uniform += walk(s, 0.0, false, seed) / 5;
	}
	CHECK_MSG(smooth < 0.6 * uniform, "smooth %.1f, uniform %.1f", smooth, uniform);
	CHECK_MSG(smooth < wander, "drift 0 %.1f, drift 1 %.1f", smooth, wander);
	mlib_space_free(s);
}

static bool not_even(void *ud, uint32_t id)
{
	(void)ud;
	return id % 2;
}

TEST(smooth_keeps_artists_apart_and_never_picks_avoid)
{
	struct mlib_space *s = make_space();
	uint32_t pool[] = {2, 3, 4, 5, 6};
	uint64_t rng = 7;
	for (int t = 0; t < 50; t++) {
		size_t k = pshuffle_smooth_choose(s, pool, 5, 1, 3, 0.0, not_even, NULL, &rng);
		REQUIRE(k < 5);
		CHECK(pool[k] % 2 == 1); /* another artist where one exists */
		CHECK(pool[k] != 3);     /* avoid */
	}
	/* Only same-artist candidates: one of them still. */
	uint32_t evens[] = {2, 4};
	CHECK(pshuffle_smooth_choose(s, evens, 2, 1, 0, 0.0, not_even, NULL, &rng) < 2);
	/* No analysis for prev: sound cannot decide. */
	CHECK(pshuffle_smooth_choose(s, pool, 5, N + 7, 0, 0.0, NULL, NULL, &rng) == SIZE_MAX);
	CHECK(pshuffle_smooth_choose(NULL, pool, 5, 1, 0, 0.0, NULL, NULL, &rng) == SIZE_MAX);
	mlib_space_free(s);
}

TEST(circle_grows_with_drift)
{
	CHECK_INT(pshuffle_smooth_circle(1000, 0), 20);
	CHECK_INT(pshuffle_smooth_circle(1000, 1), 500);
	CHECK_INT(pshuffle_smooth_circle(10, 0), 3);
	CHECK_INT(pshuffle_smooth_circle(2, 0), 2);
	CHECK(pshuffle_smooth_circle(1000, 0.5) > 20 && pshuffle_smooth_circle(1000, 0.5) < 500);
	CHECK_INT(pshuffle_smooth_circle(1000, NAN), 20);
}

/* Enough items for the radix path: still ordered by distance, then id. */
TEST(large_order_is_sorted)
{
	enum { M = 9000 };
	uint32_t *ids = xmalloc(M * sizeof *ids);
	float *raw = xmalloc(M * 4 * sizeof *raw);
	for (uint32_t i = 0; i < M; i++) {
		ids[i] = i + 1;
		for (int d = 0; d < 4; d++)
			raw[i * 4 + d] = (float)gauss();
	}
	struct mlib_space *s = mlib_space_from_raw(ids, raw, M, 4);
	uint32_t seed = 17;
	int16_t c[MLIB_SPACE_DIMS];
	REQUIRE(mlib_space_centroid(s, &seed, 1, c));
	struct u32vec out = {0};
	mlib_space_nearest(s, c, NULL, SIZE_MAX, &out);
	CHECK_INT(out.n, M);
	CHECK_INT(out.v[0], 17);
	for (size_t k = 1; k < out.n; k++) {
		uint32_t a = mlib_space_distance(s, seed, out.v[k - 1]);
		uint32_t b = mlib_space_distance(s, seed, out.v[k]);
		CHECK(a < b || (a == b && out.v[k - 1] < out.v[k]));
	}
	u32vec_free(&out);
	mlib_space_free(s);
	free(ids);
	free(raw);
}

/* Tempo window: at drift 0 a track at 121 BPM after one at 120 wins over
 * closer-sounding ones at 170; with only those left it falls back. */
TEST(smooth_keeps_the_tempo_window)
{
	enum { M = 12, TEMPO = MLIB_SPACE_DIMS - 3 };
	uint32_t ids[M];
	float raw[M * MLIB_SPACE_DIMS];
	for (int i = 0; i < M; i++) {
		ids[i] = (uint32_t)i + 1;
		for (int d = 0; d < MLIB_SPACE_DIMS; d++)
			raw[i * MLIB_SPACE_DIMS + d] = (float)(0.1 * gauss());
		raw[i * MLIB_SPACE_DIMS + TEMPO] = (float)log2(170.0);
	}
	raw[0 * MLIB_SPACE_DIMS + TEMPO] = (float)log2(120.0); /* prev, id 1 */
	raw[1 * MLIB_SPACE_DIMS + TEMPO] = (float)log2(121.0); /* id 2 */
	for (int d = 0; d < 8; d++)
		raw[1 * MLIB_SPACE_DIMS + d] += 3; /* id 2 sounds unlike the rest */
	struct mlib_space *s = mlib_space_from_raw(ids, raw, M, MLIB_SPACE_DIMS);
	uint32_t pool[M - 1];
	for (int i = 0; i < M - 1; i++)
		pool[i] = (uint32_t)i + 2;
	uint64_t rng = 3;
	for (int t = 0; t < 20; t++) {
		size_t k = pshuffle_smooth_choose(s, pool, M - 1, 1, 0, 0.0, NULL, NULL, &rng);
		REQUIRE(k < M - 1);
		CHECK_INT(pool[k], 2);
	}
	/* Without id 2: someone at 170 still comes. */
	size_t k = pshuffle_smooth_choose(s, pool + 1, M - 2, 1, 0, 0.0, NULL, NULL, &rng);
	CHECK(k < M - 2);
	CHECK(fabs(mlib_space_tempo(s, 2) - log2(121.0)) < 1e-6);
	CHECK(isnan(mlib_space_tempo(s, 99)));
	mlib_space_free(s);
}
