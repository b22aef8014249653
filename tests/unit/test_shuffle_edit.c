/* A shuffle cycle carried across an edit of its list (shuffle_edit.h). */
#include <string.h>

#include "app/shuffle_edit.h"
#include "harness.h"

TEST(played_entries_stay_played_and_added_ones_are_still_to_come)
{
	/* List 10 20 30 40 50; the cycle 2 0 4 | 1 3 is at entry 4 (50). */
	const uint32_t old_ids[] = {10, 20, 30, 40, 50};
	struct u32vec order = {0};
	const uint32_t o[] = {2, 0, 4, 1, 3};
	for (size_t i = 0; i < 5; i++)
		u32vec_push(&order, o[i]);
	/* 10 removed, 60 added at the top, 70 at the end: 60 20 30 40 50 70. */
	const uint32_t new_ids[] = {60, 20, 30, 40, 50, 70};
	uint64_t rng = 42;
	size_t at = shuffle_follow_edit(&order, 2, old_ids, new_ids, 6, 4, &rng);
	CHECK_INT(at, 1);
	REQUIRE(order.n == 6);
	CHECK_INT(order.v[0], 2); /* 30 played (10 is gone) */
	CHECK_INT(order.v[1], 4); /* 50 plays */
	/* Still to come, each once: 60, 20, 40, 70. */
	int seen[6] = {0};
	for (size_t i = 2; i < order.n; i++)
		seen[order.v[i]]++;
	CHECK(seen[0] == 1 && seen[1] == 1 && seen[3] == 1 && seen[5] == 1);
	CHECK(seen[2] == 0 && seen[4] == 0);
	u32vec_free(&order);
}

TEST(a_track_listed_twice_keeps_one_copy_per_play)
{
	/* 7 8 7 9: the first 7 played, 8 plays; the other 7 is still to come. */
	const uint32_t ids[] = {7, 8, 7, 9};
	struct u32vec order = {0};
	const uint32_t o[] = {0, 1, 2, 3};
	for (size_t i = 0; i < 4; i++)
		u32vec_push(&order, o[i]);
	const uint32_t now[] = {9, 7, 8, 7}; /* 9 moved to the top */
	uint64_t rng = 1;
	size_t at = shuffle_follow_edit(&order, 1, ids, now, 4, 2, &rng);
	CHECK_INT(at, 1);
	REQUIRE(order.n == 4);
	CHECK_INT(order.v[0], 1);
	CHECK_INT(order.v[1], 2);
	CHECK((order.v[2] == 0 && order.v[3] == 3) || (order.v[2] == 3 && order.v[3] == 0));
	u32vec_free(&order);
}

TEST(under_albums_what_is_to_come_is_whole_albums_the_playing_one_first)
{
	/* Albums a (0 1 2), b (3 4), c (5 6): 0 1 played, 3 plays, then the
	 * rest scattered as shuffle_follow_edit leaves it. */
	const uint32_t group[] = {0, 0, 0, 3, 3, 5, 5};
	const uint32_t o[] = {0, 1, 3, 6, 2, 4, 5};
	struct u32vec order = {0};
	for (size_t i = 0; i < 7; i++)
		u32vec_push(&order, o[i]);
	uint64_t rng = 7;
	shuffle_regroup_albums(&order, 2, group, &rng);
	REQUIRE(order.n == 7);
	CHECK(order.v[0] == 0 && order.v[1] == 1 && order.v[2] == 3);
	CHECK_INT(order.v[3], 4); /* b's rest */
	/* Then a's rest and c, each in list order, in either order. */
	bool a_first = order.v[4] == 2 && order.v[5] == 5 && order.v[6] == 6;
	bool c_first = order.v[4] == 5 && order.v[5] == 6 && order.v[6] == 2;
	CHECK(a_first || c_first);
	u32vec_free(&order);
}
