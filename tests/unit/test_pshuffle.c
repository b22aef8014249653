/* app/pshuffle: Party Shuffle's random pick on a real in-memory index, no
 * database: never a repeat, only the source, artists kept apart, recent
 * picks avoided while others are left, rules obeyed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/pshuffle.h"
#include "harness.h"
#include "medialib/index.h"

/* ids 1..n, artist "A<id % nartists>". */
static struct mlib_index *make_index(uint32_t n, uint32_t nartists)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= n; id++) {
		char a[16];
		snprintf(a, sizeof a, "A%u", id % nartists);
		mlib_index_add_media(idx, id);
		mlib_index_add_str(idx, id, "artist", a, strlen(a));
	}
	mlib_index_finish(idx);
	return idx;
}

static struct u32vec ids_from(uint32_t lo, uint32_t hi)
{
	struct u32vec v = {0};
	for (uint32_t id = lo; id <= hi; id++)
		u32vec_push(&v, id);
	return v;
}

static bool odd_only(void *ud, uint32_t id)
{
	(void)ud;
	return id % 2 == 1;
}

TEST(pshuffle_fill_spreads_artists_and_never_repeats)
{
	struct mlib_index *idx = make_index(60, 3);
	struct u32vec cand = ids_from(1, 40); /* 41..60 are not in the source */
	struct pshuffle_source src = {.idx = idx, .cand = &cand};
	struct u32vec list = {0}, picks = {0};
	uint64_t rng = 12345;
	CHECK_INT(pshuffle_fill(&src, &list, &picks, 30, 0, &rng), 30);
	CHECK_INT(list.n, 30);
	CHECK_INT(picks.n, 30);
	int repeats = 0, outside = 0, same_artist = 0;
	for (size_t i = 0; i < list.n; i++) {
		outside += list.v[i] < 1 || list.v[i] > 40;
		for (size_t j = 0; j < i; j++)
			repeats += list.v[i] == list.v[j];
		same_artist += i && list.v[i] % 3 == list.v[i - 1] % 3;
	}
	CHECK_INT(repeats, 0);
	CHECK_INT(outside, 0);
	CHECK_INT(same_artist, 0);
	/* a source smaller than asked: each of its items once, then no more */
	CHECK_INT(pshuffle_fill(&src, &list, &picks, 30, 0, &rng), 10);
	CHECK_INT(list.n, 40);
	CHECK_INT(pshuffle_fill(&src, &list, &picks, 5, 0, &rng), 0);
	u32vec_free(&list);
	u32vec_free(&picks);
	u32vec_free(&cand);
	mlib_index_free(idx);
}

TEST(pshuffle_fill_avoids_recent_picks_while_others_are_left)
{
	struct mlib_index *idx = make_index(20, 20);
	struct u32vec cand = ids_from(1, 20);
	struct pshuffle_source src = {.idx = idx, .cand = &cand};
	struct u32vec picks = ids_from(1, 15); /* played recently, no longer listed */
	struct u32vec list = {0};
	uint64_t rng = 99;
	CHECK_INT(pshuffle_fill(&src, &list, &picks, 5, 15, &rng), 5);
	int recent = 0;
	for (size_t i = 0; i < list.n; i++)
		recent += list.v[i] <= 15;
	CHECK_INT(recent, 0);
	/* nothing else left: recent picks come back rather than an empty list */
	CHECK_INT(pshuffle_fill(&src, &list, &picks, 3, 15, &rng), 3);
	CHECK_INT(picks.n, 23);
	u32vec_free(&list);
	u32vec_free(&picks);
	u32vec_free(&cand);
	mlib_index_free(idx);
}

TEST(pshuffle_fill_asks_whether_an_item_may_join)
{
	struct mlib_index *idx = make_index(30, 4);
	struct u32vec cand = ids_from(1, 30);
	struct pshuffle_source src = {.idx = idx, .cand = &cand, .allows = odd_only};
	struct u32vec list = {0}, picks = {0};
	uint64_t rng = 7;
	CHECK_INT(pshuffle_fill(&src, &list, &picks, 30, 0, &rng), 15);
	int even = 0;
	for (size_t i = 0; i < list.n; i++)
		even += list.v[i] % 2 == 0;
	CHECK_INT(even, 0);
	u32vec_free(&list);
	u32vec_free(&picks);
	u32vec_free(&cand);
	mlib_index_free(idx);
}
