/* The fast paths added for a million tracks give the same answers as the
 * one-item path (coll_contains): whole-word scans of a dictionary, set
 * operators evaluated only on the items still in, narrow (32-bit) integer
 * columns and their widening, the branch-free string column selection with
 * multi-valued items, and the bulk value lookup the browser groups with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/eval.h"
#include "harness.h"
#include "medialib/index.h"

#define NOW 1720000000
#define ITEMS 4000

static uint64_t seed = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (uint32_t)(seed % n);
}

/* Pieces glued together without spaces as well as with: word boundaries
 * fall on punctuation, on accented and CJK letters, at both ends. */
static const char *const bits[] = {
	"a", "A", "love", "Love", "LÖVE", "élove", "loveé", "(", ")", "-", " ", " ", " ", "'", "9",
	"10", "東京", "ß", "ss", "x", "night", "nights", "ñ", "…", "—", "a1", "o", "no", "NO",
};
#define NBITS (sizeof bits / sizeof bits[0])

static void text(char *buf, size_t size)
{
	buf[0] = '\0';
	int n = 1 + (int)rnd(6);
	for (int i = 0; i < n; i++)
		strncat(buf, bits[rnd(NBITS)], size - strlen(buf) - 1);
}

static struct mlib_index *make_library(void)
{
	struct mlib_index *idx = mlib_index_new();
	char buf[128];
	for (uint32_t id = 1; id <= ITEMS; id++) {
		if (rnd(40) == 0)
			continue;
		mlib_index_add_media(idx, id);
		text(buf, sizeof buf);
		mlib_index_add_str(idx, id, "title", buf, strlen(buf));
		if (rnd(6)) {
			text(buf, sizeof buf);
			mlib_index_add_str(idx, id, "artist", buf, strlen(buf));
		}
		for (int g = (int)rnd(3); g > 0; g--) /* missing, one or several */
			mlib_index_add_str(idx, id, "genre", bits[rnd(6)], strlen(bits[rnd(6)]));
		if (rnd(4))
			mlib_index_set_int(idx, id, "year", 1950 + (int64_t)rnd(80));
		if (rnd(3))
			mlib_index_set_int(idx, id, "size", (int64_t)rnd(100) - 50);
	}
	mlib_index_finish(idx);
	return idx;
}

/* Every id: bulk evaluation and coll_contains agree. Returns mismatches. */
static size_t compare_paths(const struct coll_eval_ctx *ctx, const struct coll_node *n)
{
	struct coll_result r;
	struct crate_err err;
	if (coll_eval(ctx, n, &r, &err) != 0)
		return 1000000;
	struct bitset in;
	bitset_init(&in, ITEMS + 2);
	for (size_t i = 0; i < r.ids.n; i++)
		bitset_set(&in, r.ids.v[i]);
	size_t bad = 0;
	for (uint32_t id = 0; id <= ITEMS + 1; id++) {
		bool one = false;
		if (coll_contains(ctx, n, id, &one, &err) != 0 || one != bitset_test(&in, id))
			bad++;
	}
	bitset_free(&in);
	coll_result_free(&r);
	return bad;
}

static struct coll_node *token(const char *field, const char *value)
{
	return coll_filter_new(COLL_TOKEN, field, value, NULL);
}

TEST(word_scan_finds_whole_words_only)
{
	struct mlib_index *idx = make_library();
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	static const char *const words[] = {
		"a", "love", "löve", "night", "night*", "no", "o", "a1", "9", "10", "東京", "ss",
		"ß", "x", "lo*", "ñ", "n*", "(love)", "LOVE!",
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		struct coll_node *n = token("title", words[i]);
		size_t bad = compare_paths(&ctx, n);
		CHECK_MSG(bad == 0, "token title '%s': %zu ids differ", words[i], bad);
		coll_node_unref(n);
	}
	mlib_index_free(idx);
}

TEST(word_scan_edges_of_the_dictionary)
{
	/* The word in the first value, the last value, a value shorter than
	 * the word, values of every length around the 16-byte blocks. */
	struct mlib_index *idx = mlib_index_new();
	const char *t[] = { "love", "x", "lov", "glove", "love-love", "xxxxxxxxxxxxxxx love",
			    "xxxxxxxxxxxxxxxx love", "xxxxxxxxxxxxxxxxxlove", "é love", "éllove",
			    "love" /* again: same value */, "LOVE" };
	for (uint32_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		mlib_index_add_media(idx, i + 1);
		mlib_index_add_str(idx, i + 1, "title", t[i], strlen(t[i]));
	}
	mlib_index_add_media(idx, 50);
	mlib_index_add_str(idx, 50, "title", "the end love", 12);
	mlib_index_finish(idx);
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	struct coll_node *n = token("title", "love");
	struct coll_result r;
	struct crate_err err;
	REQUIRE(coll_eval(&ctx, n, &r, &err) == 0);
	/* 1, 5, 6, 7, 9, 11, 12, 50 */
	CHECK_INT(r.ids.n, 8);
	struct bitset in;
	bitset_init(&in, 64);
	for (size_t i = 0; i < r.ids.n; i++)
		bitset_set(&in, r.ids.v[i]);
	CHECK(bitset_test(&in, 1) && bitset_test(&in, 5) && bitset_test(&in, 6));
	CHECK(bitset_test(&in, 7) && bitset_test(&in, 9) && bitset_test(&in, 50));
	CHECK(!bitset_test(&in, 4) && !bitset_test(&in, 8) && !bitset_test(&in, 10));
	bitset_free(&in);
	coll_result_free(&r);
	coll_node_unref(n);
	mlib_index_free(idx);
}

static const enum coll_type filter_ops[] = {
	COLL_EQUALS, COLL_NOTEQUAL, COLL_MATCH, COLL_TOKEN, COLL_SMALLER, COLL_GREATEREQ, COLL_HAS,
};
static const char *const fields[] = { "title", "artist", "genre", "year", "size", "nope" };

static struct coll_node *random_filter(void)
{
	enum coll_type op = filter_ops[rnd(sizeof filter_ops / sizeof filter_ops[0])];
	const char *field = fields[rnd(6)];
	char v[64];
	if (rnd(3) == 0)
		snprintf(v, sizeof v, "%d", (int)rnd(2100) - 60);
	else if (op == COLL_MATCH)
		snprintf(v, sizeof v, "*%s*", bits[rnd(NBITS)]);
	else
		snprintf(v, sizeof v, "%s", bits[rnd(NBITS)]);
	return coll_filter_new(op, field, op == COLL_HAS ? NULL : v, NULL);
}

/* Trees where later intersection operands are whole subtrees (evaluated
 * within the items still in), with a node shared by several parents. */
static struct coll_node *random_tree(int depth, struct coll_node *shared)
{
	if (depth == 0 || rnd(4) == 0) {
		if (shared && rnd(4) == 0)
			return coll_node_ref(shared);
		return random_filter();
	}
	static const enum coll_type kinds[] = { COLL_UNION, COLL_INTERSECTION, COLL_INTERSECTION,
						COLL_COMPLEMENT };
	struct coll_node *n = coll_node_new(kinds[rnd(4)]);
	int k = n->type == COLL_COMPLEMENT ? 1 : 2 + (int)rnd(2);
	for (int i = 0; i < k; i++) {
		struct coll_node *c = random_tree(depth - 1, shared);
		coll_node_add_operand(n, c);
		coll_node_unref(c);
	}
	if (rnd(5) == 0) { /* a filter over a set operator */
		struct coll_node *f = random_filter();
		coll_node_add_operand(f, n);
		coll_node_unref(n);
		return f;
	}
	return n;
}

TEST(restricted_set_operators_equal_item_path)
{
	struct mlib_index *idx = make_library();
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	for (int q = 0; q < 150; q++) {
		struct coll_node *shared = random_tree(2, NULL);
		struct coll_node *n = random_tree(5, shared);
		size_t bad = compare_paths(&ctx, n);
		CHECK_MSG(bad == 0, "query %d: %zu ids differ", q, bad);
		coll_node_unref(n);
		coll_node_unref(shared);
	}
	mlib_index_free(idx);
}

TEST(restricted_intersection_keeps_list_order)
{
	/* A list first: its order and duplicates stay; later operands are
	 * evaluated only on its items. */
	struct mlib_index *idx = make_library();
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	struct coll_node *list = coll_node_new(COLL_IDLIST);
	for (int i = 0; i < 300; i++)
		u32vec_push(&list->idlist, 1 + rnd(ITEMS));
	struct coll_node *n = coll_node_new(COLL_INTERSECTION);
	coll_node_add_operand(n, list);
	struct coll_node *rest = random_tree(3, NULL);
	coll_node_add_operand(n, rest);
	coll_node_unref(rest);
	struct coll_result r, all;
	struct crate_err err;
	REQUIRE(coll_eval(&ctx, n, &r, &err) == 0);
	REQUIRE(coll_eval(&ctx, n->operands[1], &all, &err) == 0);
	CHECK(r.ordered);
	struct bitset in;
	bitset_init(&in, ITEMS + 2);
	for (size_t i = 0; i < all.ids.n; i++)
		bitset_set(&in, all.ids.v[i]);
	size_t k = 0, bad = 0;
	for (size_t i = 0; i < list->idlist.n; i++) {
		uint32_t id = list->idlist.v[i];
		if (!mlib_index_has_media(idx, id) || !bitset_test(&in, id))
			continue;
		if (k >= r.ids.n || r.ids.v[k] != id)
			bad++;
		k++;
	}
	CHECK(bad == 0 && k == r.ids.n);
	bitset_free(&in);
	coll_result_free(&r);
	coll_result_free(&all);
	coll_node_unref(list);
	coll_node_unref(n);
	mlib_index_free(idx);
}

static size_t count_of(const struct coll_eval_ctx *ctx, enum coll_type op, const char *field,
		       const char *value)
{
	struct coll_node *n = coll_filter_new(op, field, value, NULL);
	struct coll_result r;
	struct crate_err err;
	size_t k = coll_eval(ctx, n, &r, &err) == 0 ? r.ids.n : 999999;
	if (k != 999999)
		coll_result_free(&r);
	coll_node_unref(n);
	return k;
}

TEST(narrow_integer_columns_widen_when_needed)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 200; id++)
		mlib_index_add_media(idx, id);
	for (uint32_t id = 1; id <= 100; id++)
		mlib_index_set_int(idx, id, "n", (int64_t)id - 50); /* -49 .. 50 */
	mlib_index_set_int(idx, 150, "n", INT32_MAX);
	mlib_index_set_int(idx, 151, "n", INT32_MIN + 1);
	mlib_index_finish(idx);
	int p = mlib_index_prop(idx, "n");
	struct mlib_int_column col;
	REQUIRE(mlib_index_int_column(idx, p, &col));
	CHECK(col.v32 != NULL && col.v64 == NULL); /* everything fits 32 bits */
	CHECK(mlib_int_column_get(&col, 120) == MLIB_INT_MISSING);
	CHECK(mlib_int_column_get(&col, 151) == INT32_MIN + 1);
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	CHECK_INT(count_of(&ctx, COLL_GREATER, "n", "0"), 51);     /* 1..50 and INT32_MAX */
	CHECK_INT(count_of(&ctx, COLL_SMALLER, "n", "0"), 50);     /* -49..-1 and INT32_MIN+1 */
	CHECK_INT(count_of(&ctx, COLL_NOTEQUAL, "n", "7"), 101);   /* has it, differs */
	CHECK_INT(count_of(&ctx, COLL_EQUALS, "n", "7"), 1);
	CHECK_INT(count_of(&ctx, COLL_GREATER, "n", "99999999999"), 0);
	CHECK_INT(count_of(&ctx, COLL_SMALLER, "n", "99999999999"), 102);
	CHECK_INT(count_of(&ctx, COLL_HAS, "n", NULL), 102);

	/* A value beyond 32 bits (and the narrow "missing" marker itself)
	 * widens the column; nothing else changes. */
	mlib_index_update_int(idx, 160, "n", 5000000000ll);
	mlib_index_update_int(idx, 161, "n", INT32_MIN);
	REQUIRE(mlib_index_int_column(idx, p, &col));
	CHECK(col.v64 != NULL && col.v32 == NULL);
	int64_t v;
	CHECK(mlib_index_int_value(idx, p, 160, &v) && v == 5000000000ll);
	CHECK(mlib_index_int_value(idx, p, 161, &v) && v == INT32_MIN);
	CHECK(mlib_index_int_value(idx, p, 1, &v) && v == -49);
	CHECK(!mlib_index_int_value(idx, p, 120, &v));
	CHECK_INT(count_of(&ctx, COLL_GREATER, "n", "0"), 52);
	CHECK_INT(count_of(&ctx, COLL_SMALLER, "n", "0"), 51);
	CHECK_INT(count_of(&ctx, COLL_HAS, "n", NULL), 104);
	mlib_index_free(idx);
}

TEST(string_selection_with_several_values)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 300; id++) {
		mlib_index_add_media(idx, id);
		if (id % 3 == 0)
			continue; /* no genre */
		mlib_index_add_str(idx, id, "genre", id % 2 ? "Rock" : "Pop", id % 2 ? 4 : 3);
		if (id % 5 == 0)
			mlib_index_add_str(idx, id, "genre", "Jazz", 4);
	}
	mlib_index_finish(idx);
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	size_t have = 200, jazz = 0, rock = 0;
	for (uint32_t id = 1; id <= 300; id++) {
		jazz += id % 3 && id % 5 == 0;
		rock += id % 3 && id % 2;
	}
	CHECK_INT(count_of(&ctx, COLL_EQUALS, "genre", "jazz"), jazz);
	CHECK_INT(count_of(&ctx, COLL_EQUALS, "genre", "rock"), rock);
	CHECK_INT(count_of(&ctx, COLL_NOTEQUAL, "genre", "jazz"), have - jazz);
	CHECK_INT(count_of(&ctx, COLL_NOTEQUAL, "genre", "rock"), have - rock);
	CHECK_INT(count_of(&ctx, COLL_HAS, "genre", NULL), have);

	int p = mlib_index_prop(idx, "genre");
	uint32_t ids[4] = { 3, 5, 10, 999 }, out[4];
	mlib_index_first_vids(idx, p, ids, 4, out);
	CHECK(out[0] == UINT32_MAX && out[3] == UINT32_MAX);
	CHECK_STR(mlib_index_dict_text(idx, p, out[1]), "Rock"); /* first of Rock, Jazz */
	CHECK_STR(mlib_index_dict_text(idx, p, out[2]), "Pop");
	mlib_index_first_vids(idx, -1, ids, 4, out);
	CHECK(out[0] == UINT32_MAX && out[1] == UINT32_MAX);
	mlib_index_free(idx);
}

/* ids of n evaluated with ctx, as an owned vector (empty on error). */
static struct u32vec eval_ids(const struct coll_eval_ctx *ctx, const struct coll_node *n)
{
	struct coll_result r;
	struct crate_err err;
	if (coll_eval(ctx, n, &r, &err) != 0)
		return (struct u32vec){ 0 };
	return r.ids;
}

static bool same_ids(const struct u32vec *a, const struct u32vec *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

TEST(kept_work_between_evaluations_changes_nothing)
{
	struct mlib_index *idx = make_library();
	struct coll_eval_cache *cache = coll_eval_cache_new();
	struct coll_eval_ctx plain = { .index = idx, .now = NOW };
	struct coll_eval_ctx kept = plain;
	kept.cache = cache;
	/* A term typed letter by letter, then erased, in both kinds of
	 * narrowing (contains, word prefix) and the whole word. */
	static const struct {
		enum coll_type op;
		const char *v;
	} typing[] = {
		{ COLL_MATCH, "*l*" }, { COLL_MATCH, "*lo*" }, { COLL_MATCH, "*lov*" },
		{ COLL_MATCH, "*love*" }, { COLL_MATCH, "*lov*" }, { COLL_MATCH, "*löve*" },
		{ COLL_TOKEN, "l*" }, { COLL_TOKEN, "lo*" }, { COLL_TOKEN, "lov*" },
		{ COLL_TOKEN, "love" }, { COLL_TOKEN, "loved" }, { COLL_TOKEN, "no" },
		{ COLL_MATCH, "*o*" }, { COLL_TOKEN, "o" }, { COLL_MATCH, "l*e" },
		{ COLL_EQUALS, "love" }, { COLL_NOTEQUAL, "love" }, { COLL_EQUALS, "love" },
	};
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < sizeof typing / sizeof typing[0]; i++) {
			const char *field = round ? "artist" : "title";
			struct coll_node *n = coll_filter_new(typing[i].op, field, typing[i].v, NULL);
			if (i % 3 == 2) /* also as a later operand, evaluated within */
				for (int k = 0; k < 2; k++) {
					struct coll_node *a = coll_node_new(COLL_INTERSECTION);
					struct coll_node *y = coll_filter_new(COLL_GREATER, "year", "1990", NULL);
					coll_node_add_operand(a, y);
					coll_node_add_operand(a, n);
					coll_node_unref(y);
					struct u32vec x = eval_ids(&plain, a), z = eval_ids(&kept, a);
					CHECK_MSG(same_ids(&x, &z), "within: %s", typing[i].v);
					u32vec_free(&x);
					u32vec_free(&z);
					coll_node_unref(a);
				}
			struct u32vec x = eval_ids(&plain, n), z = eval_ids(&kept, n);
			CHECK_MSG(same_ids(&x, &z), "%s %s '%s': %zu vs %zu", field,
				  coll_type_name(typing[i].op), typing[i].v, x.n, z.n);
			u32vec_free(&x);
			u32vec_free(&z);
			coll_node_unref(n);
		}
	}
	/* Random trees, each evaluated twice with the cache. */
	for (int q = 0; q < 80; q++) {
		struct coll_node *n = random_tree(4, NULL);
		struct u32vec x = eval_ids(&plain, n), z = eval_ids(&kept, n), z2 = eval_ids(&kept, n);
		CHECK_MSG(same_ids(&x, &z) && same_ids(&x, &z2), "tree %d", q);
		u32vec_free(&x);
		u32vec_free(&z);
		u32vec_free(&z2);
		coll_node_unref(n);
	}
	/* The library grows: kept results of the old dictionary do not apply. */
	struct coll_node *n = coll_filter_new(COLL_MATCH, "title", "*zebra*", NULL);
	struct u32vec before = eval_ids(&kept, n);
	CHECK_INT(before.n, 0);
	mlib_index_add_media(idx, ITEMS + 1);
	mlib_index_add_str(idx, ITEMS + 1, "title", "Zebra crossing", 14);
	mlib_index_finish(idx);
	struct u32vec after = eval_ids(&kept, n);
	CHECK(after.n == 1 && after.v[0] == ITEMS + 1);
	u32vec_free(&before);
	u32vec_free(&after);
	coll_node_unref(n);
	coll_eval_cache_free(cache);
	mlib_index_free(idx);
}

TEST(dictionary_after_finish_and_sparse_numbers)
{
	/* finish drops the lookup tables and keeps numbers sparse; values
	 * added later are still interned once, numbers still read. */
	struct mlib_index *idx = mlib_index_new();
	char buf[32];
	for (uint32_t id = 1; id <= 5000; id++) {
		mlib_index_add_media(idx, id);
		if (id % 7 == 0)
			snprintf(buf, sizeof buf, "%u", id);
		else
			snprintf(buf, sizeof buf, "Name %u", id % 3000);
		mlib_index_add_str(idx, id, "title", buf, strlen(buf));
	}
	mlib_index_finish(idx);
	int p = mlib_index_prop(idx, "title");
	uint32_t n0 = mlib_index_dict_size(idx, p);
	for (uint32_t v = 0; v < n0; v++) {
		double d;
		const char *t = mlib_index_dict_text(idx, p, v);
		bool num = mlib_index_dict_number(idx, p, v, &d);
		CHECK(num == (t[0] != 'N'));
		if (num)
			CHECK(d == strtod(t, NULL));
	}
	mlib_index_add_media(idx, 6000);
	mlib_index_add_str(idx, 6000, "title", "Name 17", 7); /* already there */
	mlib_index_add_media(idx, 6001);
	mlib_index_add_str(idx, 6001, "title", "12.5", 4);    /* new, a number */
	mlib_index_finish(idx);
	CHECK_INT(mlib_index_dict_size(idx, p), n0 + 1);
	const uint32_t *a, *b;
	REQUIRE(mlib_index_str_values(idx, p, 6000, &a) == 1);
	REQUIRE(mlib_index_str_values(idx, p, 17, &b) == 1);
	CHECK(a[0] == b[0]);
	REQUIRE(mlib_index_str_values(idx, p, 6001, &a) == 1);
	double d;
	CHECK(mlib_index_dict_number(idx, p, a[0], &d) && d == 12.5);
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	CHECK_INT(count_of(&ctx, COLL_EQUALS, "title", "4998.0"), 1); /* numerically */
	CHECK_INT(count_of(&ctx, COLL_EQUALS, "title", "12.50"), 1);
	CHECK_INT(count_of(&ctx, COLL_EQUALS, "title", "name 17"), 2);
	mlib_index_free(idx);
}

TEST(selective_filters_on_large_dictionaries)
{
	/* Dictionaries large enough for the items-by-value path (a few
	 * thousand values and up): same answers as testing item by item, with
	 * several values per item, missing values and later additions. */
	struct mlib_index *idx = mlib_index_new();
	char buf[64];
	const uint32_t N = 12000;
	for (uint32_t id = 1; id <= N; id++) {
		mlib_index_add_media(idx, id);
		if (id % 11 == 0)
			continue;
		snprintf(buf, sizeof buf, "Song %u %s", id, id % 97 == 0 ? "love" : "x");
		mlib_index_add_str(idx, id, "title", buf, strlen(buf));
		if (id % 13 == 0) {
			snprintf(buf, sizeof buf, "Alt %u", id / 2);
			mlib_index_add_str(idx, id, "title", buf, strlen(buf));
		}
	}
	mlib_index_finish(idx);
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	static const struct {
		enum coll_type op;
		const char *v;
	} qs[] = {
		{ COLL_TOKEN, "love" }, { COLL_EQUALS, "song 194 love" }, { COLL_EQUALS, "alt 13" },
		{ COLL_TOKEN, "1300" }, { COLL_MATCH, "alt 6*" }, { COLL_NOTEQUAL, "alt 13" },
		{ COLL_MATCH, "*9999*" }, { COLL_TOKEN, "nothing" },
	};
	for (int round = 0; round < 2; round++) {
		for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
			struct coll_node *n = coll_filter_new(qs[q].op, "title", qs[q].v, NULL);
			struct coll_result r;
			struct crate_err err;
			REQUIRE(coll_eval(&ctx, n, &r, &err) == 0);
			struct bitset in;
			bitset_init(&in, N + 2);
			for (size_t i = 0; i < r.ids.n; i++)
				bitset_set(&in, r.ids.v[i]);
			size_t bad = 0;
			for (uint32_t id = 0; id <= N + 1; id++) {
				bool one;
				REQUIRE(coll_contains(&ctx, n, id, &one, &err) == 0);
				bad += one != bitset_test(&in, id);
			}
			CHECK_MSG(bad == 0, "round %d %s '%s': %zu differ", round,
				  coll_type_name(qs[q].op), qs[q].v, bad);
			bitset_free(&in);
			coll_result_free(&r);
			coll_node_unref(n);
		}
		/* Items added after finish are found too (the lists are rebuilt). */
		mlib_index_add_str(idx, 22, "title", "love me", 7);
		mlib_index_finish(idx);
	}
	mlib_index_free(idx);
}
