/* app/pshuffle: Party Shuffle's random pick on a real in-memory index, no
 * database: never a repeat among the entries to play, only the source,
 * artists kept apart, recent picks avoided while others are left, played
 * entries back when nothing else is left, rules obeyed. */
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
	CHECK_INT(pshuffle_fill(&src, &list, 0, &picks, 30, 0, &rng), 30);
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
	CHECK_INT(pshuffle_fill(&src, &list, 0, &picks, 30, 0, &rng), 10);
	CHECK_INT(list.n, 40);
	CHECK_INT(pshuffle_fill(&src, &list, 0, &picks, 5, 0, &rng), 0);
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
	CHECK_INT(pshuffle_fill(&src, &list, 0, &picks, 5, 15, &rng), 5);
	int recent = 0;
	for (size_t i = 0; i < list.n; i++)
		recent += list.v[i] <= 15;
	CHECK_INT(recent, 0);
	/* nothing else left: recent picks come back rather than an empty list */
	CHECK_INT(pshuffle_fill(&src, &list, 0, &picks, 3, 15, &rng), 3);
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
	CHECK_INT(pshuffle_fill(&src, &list, 0, &picks, 30, 0, &rng), 15);
	int even = 0;
	for (size_t i = 0; i < list.n; i++)
		even += list.v[i] % 2 == 0;
	CHECK_INT(even, 0);
	u32vec_free(&list);
	u32vec_free(&picks);
	u32vec_free(&cand);
	mlib_index_free(idx);
}

/* A Party Shuffle whose played entries (--history) hold its whole source
 * ran dry: playback stopped after the source had played once, and a
 * source of one track played it once. A played entry now comes back when
 * nothing else is left, never twice among the entries still to play. */
TEST(pshuffle_fill_brings_played_entries_back_when_nothing_else_is_left)
{
	struct mlib_index *idx = make_index(10, 10);
	struct u32vec cand = ids_from(1, 3);
	struct pshuffle_source src = {.idx = idx, .cand = &cand};
	struct u32vec list = ids_from(1, 3), picks = ids_from(1, 3);
	uint64_t rng = 5;
	/* 1 and 2 played, 3 plays: 1 and 2 come back, 3 not right after itself */
	CHECK_INT(pshuffle_fill(&src, &list, 3, &picks, 5, 3, &rng), 3);
	CHECK_INT(list.n, 6);
	CHECK(list.v[3] != 3);
	int seen[4] = {0};
	for (size_t i = 3; i < list.n; i++)
		seen[list.v[i]]++;
	CHECK_INT(seen[1], 1);
	CHECK_INT(seen[2], 1);
	CHECK_INT(seen[3], 1);
	/* the entries to play hold every source item: no more */
	CHECK_INT(pshuffle_fill(&src, &list, 3, &picks, 5, 3, &rng), 0);
	/* nothing played yet: the list's items are all still to play */
	struct u32vec fresh = ids_from(1, 3);
	CHECK_INT(pshuffle_fill(&src, &fresh, 0, &picks, 5, 3, &rng), 0);
	u32vec_free(&fresh);
	/* a source of one track: it follows itself */
	struct u32vec one = ids_from(7, 7), single = ids_from(7, 7);
	src.cand = &one;
	CHECK_INT(pshuffle_fill(&src, &single, 1, &picks, 3, 3, &rng), 1);
	CHECK_INT(single.n, 2);
	CHECK_INT(single.v[1], 7);
	u32vec_free(&one);
	u32vec_free(&single);
	u32vec_free(&list);
	u32vec_free(&picks);
	u32vec_free(&cand);
	mlib_index_free(idx);
}
