/* See pshuffle.h. */
#include "app/pshuffle.h"

#include <stdlib.h>
#include <string.h>

#include "app/pshuffle_smooth.h"
#include "base/rng.h"
#include "base/utf8.h"
#include "medialib/index.h"

/* The artist used to spread picks: folded, so case variants count as one. */
static char *artist_key(const struct mlib_index *idx, uint32_t id)
{
	char buf[32];
	const char *a = mlib_index_get_text(idx, id, "artist", buf, sizeof buf);
	return a ? utf8_fold(a, strlen(a), NULL) : NULL;
}

static bool same_artist(const struct mlib_index *idx, uint32_t id, const char *prev)
{
	if (!prev)
		return false;
	char *a = artist_key(idx, id);
	bool same = a && strcmp(a, prev) == 0;
	free(a);
	return same;
}

/* An index into pool: random, preferring another artist than prev and
 * another id than avoid (0: none); a few random tries, then a scan from a
 * random start, then whatever the first try gave. */
static size_t choose_random(const struct mlib_index *idx, const struct u32vec *pool,
			    const char *prev, uint32_t avoid, uint64_t *rng)
{
	size_t first = rng_below(rng, pool->n);
	for (int t = 0; t < 8; t++) {
		size_t k = t ? rng_below(rng, pool->n) : first;
		if (pool->v[k] != avoid && !same_artist(idx, pool->v[k], prev))
			return k;
	}
	for (size_t i = 0, k = first; i < pool->n; i++, k = (k + 1) % pool->n)
		if (pool->v[k] != avoid && !same_artist(idx, pool->v[k], prev))
			return k;
	for (size_t i = 0, k = first; i < pool->n; i++, k = (k + 1) % pool->n)
		if (pool->v[k] != avoid)
			return k;
	return first;
}

struct artist_check {
	const struct mlib_index *idx;
	const char *prev;
};

static bool other_artist(void *ud, uint32_t id)
{
	const struct artist_check *ac = ud;
	return !same_artist(ac->idx, id, ac->prev);
}

size_t pshuffle_fill(const struct pshuffle_source *src, struct u32vec *list, size_t played,
		     struct u32vec *picks, size_t need, size_t norepeat, uint64_t *rng)
{
	const struct mlib_index *idx = src->idx;
	uint32_t bound = mlib_index_id_bound(idx);
	/* Exclusions: entries still in the list (ahead: those still to
	 * play), and the recent picks. */
	struct bitset in_list, ahead, recent;
	bitset_init(&in_list, bound);
	bitset_init(&ahead, bound);
	bitset_init(&recent, bound);
	played = played < list->n ? played : list->n;
	for (size_t i = 0; i < list->n; i++)
		if (list->v[i] < bound) {
			bitset_set(&in_list, list->v[i]);
			if (i >= played)
				bitset_set(&ahead, list->v[i]);
		}
	size_t rstart = picks->n > norepeat ? picks->n - norepeat : 0;
	for (size_t i = rstart; i < picks->n; i++)
		if (picks->v[i] < bound)
			bitset_set(&recent, picks->v[i]);

	char *prev = list->n ? artist_key(idx, list->v[list->n - 1]) : NULL;
	size_t got = 0;
	/* Pools from strict to relaxed, so a small source still fills up:
	 * 0 skips entries in the list and recent picks, 1 only entries in the
	 * list, 2 only entries still to play: a played one comes back rather
	 * than the party running dry (a source of one track repeats it). The
	 * entries still to play never hold an item twice. */
	for (int level = 0; level < 3 && got < need; level++) {
		struct u32vec pool = {0};
		for (size_t i = 0; i < src->cand->n; i++) {
			uint32_t id = src->cand->v[i];
			if (bitset_test(level < 2 ? &in_list : &ahead, id))
				continue;
			if (level < 1 && bitset_test(&recent, id))
				continue;
			u32vec_push(&pool, id);
		}
		while (got < need && pool.n) {
			uint32_t last = list->n ? list->v[list->n - 1] : 0;
			struct artist_check ac = {idx, prev};
			size_t pick = src->space ? pshuffle_smooth_choose(src->space, pool.v, pool.n, last,
									  0, src->drift, other_artist,
									  &ac, rng)
						 : SIZE_MAX;
			if (pick == SIZE_MAX || pool.v[pick] == last)
				pick = choose_random(idx, &pool, prev, last, rng);
			uint32_t id = pool.v[pick];
			pool.v[pick] = pool.v[--pool.n]; /* now in the list: out of this pool */
			if (src->allows && !src->allows(src->allows_ud, id))
				continue;
			u32vec_push(list, id);
			u32vec_push(picks, id);
			bitset_set(&in_list, id);
			bitset_set(&ahead, id);
			free(prev);
			prev = artist_key(idx, id);
			got++;
		}
		u32vec_free(&pool);
	}
	free(prev);
	bitset_free(&in_list);
	bitset_free(&ahead);
	bitset_free(&recent);
	return got;
}
