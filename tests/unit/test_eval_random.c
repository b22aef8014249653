/* Property test: on a generated library, random filters and combinations
 * evaluated by the bulk path (dictionary bitmaps, memmem scans, integer
 * ranges, bitset operators) give exactly the items the one-item path
 * (coll_contains, testing each item's values directly) accepts, and a
 * filter over a shuffled list keeps exactly those items in list order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/eval.h"
#include "coll/eval_cache.h"
#include "harness.h"
#include "medialib/index.h"

#define NOW 1720000000
#define ITEMS 3000

static uint64_t seed = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (uint32_t)(seed % n);
}

static const char *const vocab[] = {
	"Love", "love", "LÖVE", "night", "Nacht", "Straße", "strasse", "Björk", "bjork", "東京",
	"Москва", "ночь", "(Morning", "mix)", "Track", "9", "10", "09", "a*b", "what?", "naïve",
	"rock'n'roll", "-", "The", "the", "Über", "über", "x", "",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

static void phrase(char *buf, size_t size)
{
	buf[0] = '\0';
	int n = 1 + (int)rnd(3);
	for (int i = 0; i < n; i++) {
		if (i)
			strncat(buf, " ", size - strlen(buf) - 1);
		strncat(buf, vocab[rnd(NVOCAB)], size - strlen(buf) - 1);
	}
}

static struct mlib_index *make_library(void)
{
	struct mlib_index *idx = mlib_index_new();
	char buf[128];
	for (uint32_t id = 1; id <= ITEMS; id++) {
		if (rnd(50) == 0)
			continue; /* holes in the id space */
		mlib_index_add_media(idx, id);
		if (rnd(10)) {
			phrase(buf, sizeof buf);
			mlib_index_add_str(idx, id, "artist", buf, strlen(buf));
		}
		phrase(buf, sizeof buf);
		mlib_index_add_str(idx, id, "title", buf, strlen(buf));
		int k = (int)rnd(4); /* 0..3 genres: missing and multi-valued */
		for (int g = 0; g < k; g++) {
			const char *v = vocab[rnd(8)];
			mlib_index_add_str(idx, id, "genre", v, strlen(v));
		}
		if (rnd(8)) {
			if (rnd(6) == 0)
				snprintf(buf, sizeof buf, "%s", rnd(2) ? "unknown" : "199x");
			else
				snprintf(buf, sizeof buf, "%u", 1950 + rnd(80));
			mlib_index_add_str(idx, id, "year", buf, strlen(buf));
		}
		if (rnd(5))
			mlib_index_set_int(idx, id, "tracknr", (int64_t)rnd(25) - 2);
		if (rnd(3))
			mlib_index_set_int(idx, id, "added", NOW - (int64_t)rnd(400 * 86400));
	}
	mlib_index_finish(idx);
	return idx;
}

static const char *const fields[] = { "artist", "title", "genre", "year", "tracknr", "added", "nope" };
static const enum coll_type ops[] = {
	COLL_EQUALS, COLL_NOTEQUAL, COLL_MATCH, COLL_TOKEN, COLL_SMALLER,
	COLL_SMALLEREQ, COLL_GREATER, COLL_GREATEREQ, COLL_HAS,
};

static void random_value(enum coll_type op, char *buf, size_t size)
{
	switch (rnd(8)) {
	case 0:
		snprintf(buf, size, "%d", (int)rnd(2100) - 50);
		return;
	case 1:
		snprintf(buf, size, "%u%s", 1 + rnd(30), rnd(2) ? "d" : "w");
		return;
	case 2:
		snprintf(buf, size, "2024-0%u", 1 + rnd(7));
		return;
	default:
		break;
	}
	const char *w = vocab[rnd(NVOCAB)];
	if (op == COLL_MATCH) {
		switch (rnd(6)) {
		case 0: snprintf(buf, size, "*%s*", w); break;
		case 1: snprintf(buf, size, "%s*", w); break;
		case 2: snprintf(buf, size, "*%s", w); break;
		case 3: snprintf(buf, size, "%s", w); break;
		case 4: snprintf(buf, size, "?%s*", w); break;
		default: snprintf(buf, size, "*%s?*", w); break;
		}
	} else if (op == COLL_TOKEN && rnd(3) == 0) {
		snprintf(buf, size, "%.2s*", w);
	} else {
		snprintf(buf, size, "%s", w);
	}
}

static struct coll_node *random_filter(void)
{
	enum coll_type op = ops[rnd(sizeof ops / sizeof ops[0])];
	char value[64];
	random_value(op, value, sizeof value);
	struct coll_node *n = coll_filter_new(op, fields[rnd(7)], op == COLL_HAS ? NULL : value, NULL);
	if (rnd(8) == 0)
		coll_attr_set(n, "collation", "BINARY");
	return n;
}

static struct coll_node *random_tree(int depth)
{
	if (depth == 0 || rnd(3) == 0)
		return random_filter();
	static const enum coll_type kinds[] = { COLL_UNION, COLL_INTERSECTION, COLL_COMPLEMENT };
	struct coll_node *n = coll_node_new(kinds[rnd(3)]);
	int k = n->type == COLL_COMPLEMENT ? 1 : 2;
	for (int i = 0; i < k; i++) {
		struct coll_node *c = random_tree(depth - 1);
		coll_node_add_operand(n, c);
		coll_node_unref(c);
	}
	return n;
}

TEST(bulk_path_equals_item_path)
{
	struct mlib_index *idx = make_library();
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	for (int q = 0; q < 300; q++) {
		struct coll_node *n = random_tree(3);
		struct coll_result r;
		struct crate_err err;
		REQUIRE(coll_eval(&ctx, n, &r, &err) == 0);
		struct bitset in;
		bitset_init(&in, ITEMS + 2);
		for (size_t i = 0; i < r.ids.n; i++)
			bitset_set(&in, r.ids.v[i]);
		size_t mismatches = 0;
		for (uint32_t id = 0; id <= ITEMS + 1; id++) {
			bool one;
			REQUIRE(coll_contains(&ctx, n, id, &one, &err) == 0);
			if (one != bitset_test(&in, id) && mismatches++ < 3)
				CHECK_MSG(false, "query %d, id %u: bulk %d, item %d (%s %s %s)", q, id,
					  bitset_test(&in, id), one, coll_type_name(n->type),
					  coll_attr_get(n, "field") ? coll_attr_get(n, "field") : "",
					  coll_attr_get(n, "value") ? coll_attr_get(n, "value") : "");
		}
		/* Sets come out in library order. */
		for (size_t i = 1; i < r.ids.n; i++)
			CHECK(mlib_index_library_rank(idx, r.ids.v[i - 1]) <
			      mlib_index_library_rank(idx, r.ids.v[i]));
		bitset_free(&in);
		coll_result_free(&r);
		coll_node_unref(n);
	}
	mlib_index_free(idx);
}

TEST(filter_over_large_list_equals_item_path)
{
	struct mlib_index *idx = make_library();
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	/* A list longer than the evaluator's per-item threshold, with duplicates. */
	struct coll_node *list = coll_node_new(COLL_IDLIST);
	for (int i = 0; i < 6000; i++)
		u32vec_push(&list->idlist, 1 + rnd(ITEMS + 5));
	for (int q = 0; q < 100; q++) {
		struct coll_node *f = random_filter();
		coll_node_set_operand(f, 0, list);
		struct coll_result r;
		struct crate_err err;
		REQUIRE(coll_eval(&ctx, f, &r, &err) == 0);
		CHECK(r.ordered);
		size_t k = 0, bad = 0;
		for (size_t i = 0; i < list->idlist.n; i++) {
			uint32_t id = list->idlist.v[i];
			bool one;
			REQUIRE(coll_contains(&ctx, f, id, &one, &err) == 0);
			if (!one)
				continue;
			if (k >= r.ids.n || r.ids.v[k] != id)
				bad++;
			k++;
		}
		CHECK_MSG(bad == 0 && k == r.ids.n, "query %d (%s %s %s): %zu of %zu differ", q,
			  coll_type_name(f->type), coll_attr_get(f, "field"),
			  coll_attr_get(f, "value") ? coll_attr_get(f, "value") : "", bad, r.ids.n);
		coll_result_free(&r);
		coll_node_unref(f);
	}
	coll_node_unref(list);
	mlib_index_free(idx);
}

/* Titles nearly all distinct, as in large libraries: scans of their
 * dictionary are long enough to be shared between threads. */
#define BIG_ITEMS 20000

static struct mlib_index *big_library(void)
{
	struct mlib_index *idx = mlib_index_new();
	char buf[160];
	for (uint32_t id = 1; id <= BIG_ITEMS; id++) {
		mlib_index_add_media(idx, id);
		phrase(buf, sizeof buf - 16);
		snprintf(buf + strlen(buf), 16, " %u", rnd(BIG_ITEMS));
		mlib_index_add_str(idx, id, "title", buf, strlen(buf));
		phrase(buf, sizeof buf);
		mlib_index_add_str(idx, id, "artist", buf, strlen(buf));
	}
	mlib_index_finish(idx);
	return idx;
}

/* A union of many filters with a cache: their dictionary scans run on two
 * threads first (coll_filters_prepare) and are kept; the result, and the
 * next evaluation's from the cache, are those of the one-item path. */
TEST(union_scanned_on_two_threads_equals_item_path)
{
	struct mlib_index *idx = big_library();
	struct coll_eval_cache *cache = coll_eval_cache_new();
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW, .cache = cache };
	struct coll_eval_ctx plain = { .index = idx, .now = NOW };
	for (int q = 0; q < 30; q++) {
		struct coll_node *u = coll_node_new(COLL_UNION), *inner = coll_node_new(COLL_UNION);
		for (int i = 6 + (int)rnd(4); i > 0; i--) {
			struct coll_node *f = random_filter();
			coll_node_add_operand(rnd(3) ? u : inner, f);
			coll_node_unref(f);
		}
		coll_node_add_operand(u, inner);
		coll_node_unref(inner);
		/* The one-item path's count is asked in the first pass only: it
		 * has no cache, so the second would ask the same 20,000 again. */
		size_t k = 0;
		for (int pass = 0; pass < 2; pass++) {
			struct coll_result r, want;
			struct crate_err err;
			REQUIRE(coll_eval(&ctx, u, &r, &err) == 0);
			REQUIRE(coll_eval(&plain, u, &want, &err) == 0);
			CHECK_INT(r.ids.n, want.ids.n);
			for (size_t i = 0; i < r.ids.n && i < want.ids.n; i++)
				if (r.ids.v[i] != want.ids.v[i]) {
					CHECK_MSG(false, "query %d pass %d: item %zu differs", q, pass, i);
					break;
				}
			for (uint32_t id = 0; pass == 0 && id <= BIG_ITEMS + 1; id++) {
				bool one;
				REQUIRE(coll_contains(&plain, u, id, &one, &err) == 0);
				k += one;
			}
			CHECK_INT(k, r.ids.n);
			coll_result_free(&r);
			coll_result_free(&want);
		}
		coll_node_unref(u);
	}
	coll_eval_cache_free(cache);
	mlib_index_free(idx);
}
