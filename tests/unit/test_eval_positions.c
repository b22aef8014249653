/* coll/eval_positions: a query in the playlist view selects the list's
 * entries; bare numbers and ranges are entry positions, not library ones. */
#include <stdio.h>
#include <string.h>

#include "coll/eval_positions.h"
#include "coll/parse.h"
#include "harness.h"
#include "medialib/index.h"

/* Tracks 1..4 by A, B, A, C; library order = id order. */
static struct mlib_index *library(void)
{
	struct mlib_index *idx = mlib_index_new();
	const char *artists[] = {"A", "B", "A", "C"};
	for (uint32_t id = 1; id <= 4; id++) {
		mlib_index_add_media(idx, id);
		mlib_index_add_str(idx, id, "artist", artists[id - 1], 1);
		mlib_index_set_int(idx, id, "tracknr", id);
	}
	mlib_index_finish(idx);
	return idx;
}

/* The marked entries as a string of 0/1, one per entry. */
static const char *marks(struct mlib_index *idx, const struct u32vec *list, const char *q)
{
	static char out[64];
	struct coll_parse_opts o = {.list_context = true};
	struct crate_err err = {0};
	struct coll_node *n = coll_parse(q, strlen(q), &o, &err);
	if (!n) {
		snprintf(out, sizeof out, "parse: %s", err.msg);
		return out;
	}
	struct coll_eval_ctx ctx = {.index = idx};
	struct bitset b;
	if (coll_eval_positions(&ctx, list, n, &b, &err) != 0) {
		coll_node_unref(n);
		bitset_free(&b);
		snprintf(out, sizeof out, "error: %s", err.msg);
		return out;
	}
	size_t i;
	for (i = 0; i < list->n && i + 1 < sizeof out; i++)
		out[i] = bitset_test(&b, i) ? '1' : '0';
	out[i] = 0;
	bitset_free(&b);
	coll_node_unref(n);
	return out;
}

TEST(numbers_and_ranges_are_entries_of_the_list)
{
	struct mlib_index *idx = library();
	/* The list: tracks 4, 1, 1, 2, 3, 1 (duplicates, not library order). */
	uint32_t v[] = {4, 1, 1, 2, 3, 1};
	struct u32vec list = {.v = v, .n = 6, .cap = 6};
	CHECK_STR(marks(idx, &list, "3-5"), "001110");
	CHECK_STR(marks(idx, &list, "2"), "010000");
	CHECK_STR(marks(idx, &list, "1,6"), "100001");
	CHECK_STR(marks(idx, &list, "5-"), "000011");
	CHECK_STR(marks(idx, &list, "-2"), "110000");
	/* Tracks: every entry of the track, duplicates included. */
	CHECK_STR(marks(idx, &list, "a:A"), "011011");
	/* Combined: the track AND the position. */
	CHECK_STR(marks(idx, &list, "a:A 3-6"), "001011");
	CHECK_STR(marks(idx, &list, "a:C OR 6"), "100001");
	CHECK_STR(marks(idx, &list, "NOT 2-5"), "100001");
	CHECK_STR(marks(idx, &list, "*"), "111111");
	mlib_index_free(idx);
}
