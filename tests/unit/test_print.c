/* coll/print: trees that did not come from the parser, random trees of the
 * printable shapes, and evaluation of printed text against a small real
 * index (the printed query must find the same ids as the tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/parse.h"
#include "harness.h"
#include "medialib/index.h"
#include "tests/unit/test_parse_sexpr.h"

static const struct {
	const char *artist, *album, *title, *genre;
	int year;
} items[] = {
	{"Kraftwerk", "Autobahn", "Autobahn", "Electronic", 1974},
	{"Kraftwerk", "Computerwelt", "Computer Love", "Electronic", 1981},
	{"The Beatles", "Abbey Road", "Come Together", "Rock", 1969},
	{"The Beatles", "Help!", "Help!", "Rock", 1965},
	{"Björk", "Homogenic", "Jóga", "Pop", 1997},
	{"Björk", "Post", "Army of Me", "Pop", 1995},
	{"AC/DC", "Back in Black", "Hells Bells", "Rock", 1980},
	{"Vibrasphere", "Lungs for Life", "Breathing Place", "Psytrance", 2004},
	{"坂本龍一", "音楽図鑑", "Tibetan Dance", "Electronic", 1984},
	{"Prince", "1999", "1999", "Funk", 1982},
	{"Beat Happening", "Dreamy", "Left Behind", "Indie", 1991},
	{"Straße", "Unknown", "Morning (Morning mix)", "", 0},
};
#define NITEMS (sizeof items / sizeof items[0])

static struct mlib_index *build_index(void)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t i = 0; i < NITEMS; i++) {
		uint32_t id = i + 1;
		mlib_index_add_media(idx, id);
		mlib_index_add_str(idx, id, "artist", items[i].artist, strlen(items[i].artist));
		mlib_index_add_str(idx, id, "album", items[i].album, strlen(items[i].album));
		mlib_index_add_str(idx, id, "title", items[i].title, strlen(items[i].title));
		if (items[i].genre[0])
			mlib_index_add_str(idx, id, "genre", items[i].genre,
					   strlen(items[i].genre));
		if (items[i].year)
			mlib_index_set_int(idx, id, "year", items[i].year);
		mlib_index_set_int(idx, id, "tracknr", (int64_t)(i % 4) + 1);
	}
	mlib_index_finish(idx);
	return idx;
}

static bool same_ids(const struct coll_eval_ctx *ctx, const struct coll_node *a,
		     const struct coll_node *b, char *why, size_t whysize)
{
	struct coll_result ra = {0}, rb = {0};
	struct crate_err err;
	if (coll_eval(ctx, a, &ra, &err) != 0) {
		snprintf(why, whysize, "eval a: %s", err.msg);
		return false;
	}
	if (coll_eval(ctx, b, &rb, &err) != 0) {
		coll_result_free(&ra);
		snprintf(why, whysize, "eval b: %s", err.msg);
		return false;
	}
	bool same = ra.ids.n == rb.ids.n &&
		    (ra.ids.n == 0 || memcmp(ra.ids.v, rb.ids.v, ra.ids.n * sizeof *ra.ids.v) == 0);
	snprintf(why, whysize, "%zu ids vs %zu ids", ra.ids.n, rb.ids.n);
	coll_result_free(&ra);
	coll_result_free(&rb);
	return same;
}

static struct coll_node *parse_ok(const char *q)
{
	struct crate_err err;
	struct coll_node *c = coll_parse(q, strlen(q), NULL, &err);
	CHECK_MSG(c != NULL, "'%s': %s", q, err.msg);
	return c;
}

/* print(tree) == want, and the text finds what the tree finds. */
static void check_prints_as(const struct coll_eval_ctx *ctx, struct coll_node *tree,
			    const char *want)
{
	struct crate_err err;
	char *text = coll_print(tree, &err);
	if (!CHECK_MSG(text != NULL, "does not print: %s", err.msg))
		return;
	CHECK_STR(text, want);
	struct coll_node *back = parse_ok(text);
	if (back && ctx) {
		char why[128];
		CHECK_MSG(same_ids(ctx, tree, back, why, sizeof why), "'%s': %s", text, why);
	}
	coll_node_unref(back);
	free(text);
}

static void check_not_expressible(struct coll_node *tree, const char *why)
{
	struct crate_err err;
	char *text = coll_print(tree, &err);
	CHECK_MSG(text == NULL, "printed as '%s'", text ? text : "");
	free(text);
	CHECK_INT(err.code, CRATE_ERR_INVALID);
	CHECK_MSG(strstr(err.msg, "not expressible as text") && strstr(err.msg, why),
		  "message '%s' lacks '%s'", err.msg, why);
}

TEST(trees_not_from_the_parser_print_with_the_same_results)
{
	struct mlib_index *idx = build_index();
	struct coll_eval_ctx ctx = {.index = idx};
	struct coll_node *u, *f, *n;

	/* A filter over another collection: that collection, intersected. */
	u = coll_filter_new(COLL_EQUALS, "genre", "Rock", NULL);
	f = coll_filter_new(COLL_GREATER, "year", "1966", u);
	check_prints_as(&ctx, f, "genre:Rock year>1966");
	coll_node_unref(f);
	coll_node_unref(u);

	/* mediaset(x) -> `* x`. */
	n = coll_node_new(COLL_MEDIASET);
	u = parse_ok("g:Pop ORDER BY -year");
	coll_node_add_operand(n, u);
	check_prints_as(&ctx, n, "* (genre:Pop ORDER BY -year)");
	coll_node_unref(u);
	coll_node_unref(n);

	/* One-operand union and intersection: the operand. */
	n = coll_node_new(COLL_UNION);
	u = coll_filter_new(COLL_EQUALS, "artist", "Björk", NULL);
	coll_node_add_operand(n, u);
	check_prints_as(&ctx, n, "artist:Björk");
	coll_node_unref(n);
	n = coll_node_new(COLL_INTERSECTION);
	coll_node_add_operand(n, u);
	check_prints_as(&ctx, n, "artist:Björk");
	coll_node_unref(n);
	coll_node_unref(u);

	/* The empty union: nothing. */
	n = coll_node_new(COLL_UNION);
	check_prints_as(&ctx, n, "NOT *");
	coll_node_unref(n);

	/* match without a wildcard is equals. */
	n = coll_filter_new(COLL_MATCH, "artist", "kraftwerk", NULL);
	check_prints_as(&ctx, n, "artist:kraftwerk");
	coll_node_unref(n);

	/* Id comparisons other than the parser's shapes. */
	n = coll_filter_new(COLL_NOTEQUAL, NULL, "5", NULL);
	coll_attr_set(n, "type", "id");
	check_prints_as(&ctx, n, "NOT #5");
	coll_node_unref(n);
	n = coll_filter_new(COLL_SMALLER, NULL, "5", NULL);
	coll_attr_set(n, "type", "id");
	check_prints_as(&ctx, n, "#-4");
	coll_node_unref(n);
	n = coll_filter_new(COLL_GREATER, NULL, "5", NULL);
	coll_attr_set(n, "type", "id");
	check_prints_as(&ctx, n, "#6-");
	coll_node_unref(n);
	n = coll_filter_new(COLL_SMALLER, NULL, "1", NULL);
	coll_attr_set(n, "type", "id");
	check_prints_as(&ctx, n, "NOT *");
	coll_node_unref(n);

	/* direction=DESC flips every key. */
	u = coll_node_new(COLL_UNIVERSE);
	n = coll_node_new(COLL_ORDER);
	coll_attr_set(n, "field", "year,-title");
	coll_attr_set(n, "direction", "DESC");
	coll_node_add_operand(n, u);
	check_prints_as(&ctx, n, "* ORDER BY -year, title");
	coll_node_unref(n);

	/* limit without OFFSET and start=0 keep their spelling. */
	n = coll_node_new(COLL_LIMIT);
	coll_attr_set(n, "length", "3");
	coll_attr_set(n, "start", "0");
	coll_node_add_operand(n, u);
	check_prints_as(&ctx, n, "* LIMIT 3 OFFSET 0");
	coll_node_unref(n);

	/* A union of three token filters in another order is a plain OR. */
	n = coll_node_new(COLL_UNION);
	f = coll_filter_new(COLL_EQUALS, "title", "Help!", NULL);
	coll_node_add_operand(n, f);
	coll_node_unref(f);
	f = coll_filter_new(COLL_EQUALS, "album", "Help!", NULL);
	coll_node_add_operand(n, f);
	coll_node_unref(f);
	check_prints_as(&ctx, n, "title:Help! OR album:Help!");
	coll_node_unref(n);

	/* in:"All Media" reads as the universe. */
	n = coll_node_new(COLL_REFERENCE);
	coll_attr_set(n, "namespace", "Collections");
	coll_attr_set(n, "reference", "All Media");
	check_prints_as(NULL, n, "*");
	coll_node_unref(n);

	coll_node_unref(u);
	mlib_index_free(idx);
}

TEST(unexpressible_trees_are_errors_naming_why)
{
	struct coll_node *n = coll_node_new(COLL_IDLIST);
	u32vec_push(&n->idlist, 3);
	check_not_expressible(n, "unsaved list");
	struct coll_node *f = coll_filter_new(COLL_EQUALS, "artist", "x", n);
	check_not_expressible(f, "unsaved list");
	coll_node_unref(f);
	coll_node_unref(n);

	n = coll_filter_new(COLL_TOKEN, "artist", "x", NULL);
	check_not_expressible(n, "token filter on one field");
	coll_node_unref(n);

	n = coll_filter_new(COLL_EQUALS, "artist", "x", NULL);
	coll_attr_set(n, "collation", "BINARY");
	check_not_expressible(n, "collation=BINARY");
	coll_node_unref(n);

	n = coll_filter_new(COLL_EQUALS, "Artist", "x", NULL);
	check_not_expressible(n, "field name 'Artist'");
	coll_node_unref(n);
	n = coll_filter_new(COLL_EQUALS, "a", "x", NULL);
	check_not_expressible(n, "field name 'a'");
	coll_node_unref(n);
	n = coll_filter_new(COLL_EQUALS, "in", "x", NULL);
	check_not_expressible(n, "field name 'in'");
	coll_node_unref(n);
	/* like:x is the similarity operator, whatever the case (the fuzzer's
	 * liKe:x parsed as a filter that printed as like:x) */
	n = coll_filter_new(COLL_EQUALS, "like", "x", NULL);
	check_not_expressible(n, "field name 'like'");
	coll_node_unref(n);
	n = coll_filter_new(COLL_EQUALS, "two words", "x", NULL);
	check_not_expressible(n, "field name");
	coll_node_unref(n);
	n = coll_filter_new(COLL_EQUALS, "artist", "", NULL);
	check_not_expressible(n, "empty value");
	coll_node_unref(n);

	n = coll_node_new(COLL_INTERSECTION);
	check_not_expressible(n, "intersection without operands");
	coll_node_unref(n);

	n = coll_node_new(COLL_REFERENCE);
	coll_attr_set(n, "namespace", "Elsewhere");
	coll_attr_set(n, "reference", "x");
	check_not_expressible(n, "namespace 'Elsewhere'");
	coll_node_unref(n);

	struct coll_node *u = coll_node_new(COLL_UNIVERSE);
	n = coll_node_new(COLL_LIMIT);
	coll_attr_set(n, "start", "2");
	coll_node_add_operand(n, u);
	check_not_expressible(n, "limit length");
	coll_node_unref(n);
	n = coll_node_new(COLL_ORDER);
	coll_attr_set(n, "type", "random");
	coll_attr_set(n, "seed", "-1");
	coll_node_add_operand(n, u);
	check_not_expressible(n, "random seed");
	coll_node_unref(n);
	coll_node_unref(u);

	CHECK(coll_print(NULL, NULL) == NULL);
}

TEST(printed_table_queries_find_the_same_ids)
{
	/* Every query of the table that parses (library context) finds the
	 * same ids as its printed form, on a real index. */
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/queries.tsv", harness_srcdir());
	FILE *fp = fopen(path, "r");
	REQUIRE(fp);
	struct mlib_index *idx = build_index();
	struct coll_eval_ctx ctx = {.index = idx, .now = 1700000000};
	char line[4096];
	size_t evaluated = 0;
	while (fgets(line, sizeof line, fp)) {
		line[strcspn(line, "\n")] = '\0';
		char *tab = strchr(line, '\t');
		if (!tab || strncmp(line, "--- ", 4) == 0 || strncmp(line, "@list ", 6) == 0 ||
		    strchr(line, '%') || strstr(line, "in:") ||
		    (strstr(line, "random") && !strstr(line, "random(")))
			continue; /* references need a store, unseeded random differs,
				   * escapes are handled in test_parse */
		*tab = '\0';
		struct crate_err err;
		struct coll_node *c = coll_parse(line, strlen(line), NULL, &err);
		if (!c)
			continue;
		char *text = coll_print(c, &err);
		struct coll_node *back = text ? coll_parse(text, strlen(text), NULL, &err) : NULL;
		if (back) {
			char why[128];
			CHECK_MSG(same_ids(&ctx, c, back, why, sizeof why), "'%s' vs '%s': %s", line,
				  text, why);
			evaluated++;
		}
		coll_node_unref(back);
		free(text);
		coll_node_unref(c);
	}
	fclose(fp);
	CHECK(evaluated >= 250);
	/* And the examples really select: a sanity check on the index. */
	struct coll_result r = {0};
	struct crate_err err;
	struct coll_node *c = parse_ok("a:bjork");
	REQUIRE(c && coll_eval(&ctx, c, &r, &err) == 0);
	CHECK_INT(r.ids.n, 2);
	coll_result_free(&r);
	coll_node_unref(c);
	mlib_index_free(idx);
}

/* ---- random trees of the printable shapes ---- */

struct rng {
	uint32_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
	r->s = r->s * 1664525u + 1013904223u;
	return (r->s >> 8) % n;
}

static const char *const rnd_fields[] = {"artist", "title", "genre", "year", "my_tag",
					 "Ä", "曲名", "in", "T", "x.y"};
static const char *const rnd_values[] = {
	"Foo", "two words", "AND", "a:b", "x\"y", "back\\slash", "(p)", "1999", "*", "-",
	"日本", "Help?", "'q'", "..", "1..2", "#1", "+x", "ORDER", "tab\there", "é",
};
static const char *const rnd_patterns[] = {"K*", "*x*", "a?c", "\\*lit*", "**", "f\\?o*",
					   "*two words*", "*(x)*", "??"};
static const char *const rnd_numbers[] = {"5", "-12.5", "2024-05-01", "7d", "3mo", "0.5"};

static struct coll_node *rnd_tree(struct rng *r, int depth);

static struct coll_node *rnd_leaf(struct rng *r)
{
	const char *field = rnd_fields[rnd(r, 10)];
	if (strcmp(field, "T") == 0)
		field = "t";
	switch (rnd(r, 12)) {
	case 0:
		return coll_node_new(COLL_UNIVERSE);
	case 1:
		if (strcmp(field, "in") == 0)
			field = "genre";
		return coll_filter_new(COLL_EQUALS, field, rnd_values[rnd(r, 20)], NULL);
	case 2:
		return coll_filter_new(COLL_NOTEQUAL, field, rnd_values[rnd(r, 20)], NULL);
	case 3:
		if (strcmp(field, "in") == 0)
			field = "album"; /* in:PATTERN would be a reference */
		return coll_filter_new(COLL_MATCH, field, rnd_patterns[rnd(r, 9)], NULL);
	case 4: {
		static const enum coll_type t[] = {COLL_SMALLER, COLL_SMALLEREQ, COLL_GREATER,
						   COLL_GREATEREQ};
		bool str = rnd(r, 3) == 0;
		return coll_filter_new(t[rnd(r, 4)], field,
				       str ? rnd_values[rnd(r, 20)] : rnd_numbers[rnd(r, 6)], NULL);
	}
	case 5:
		return coll_filter_new(COLL_HAS, field, NULL, NULL);
	case 6: {
		/* a word: the parser's token union */
		static const char *const words[] = {"beat*", "Foo", "x\\*", "日本", "AND",
						    "1999", "don't", "a:b", "two words"};
		const char *w = words[rnd(r, 9)];
		struct coll_node *u = coll_node_new(COLL_UNION);
		static const char *const f3[] = {"artist", "album", "title"};
		for (int i = 0; i < 3; i++) {
			struct coll_node *t = coll_filter_new(COLL_TOKEN, f3[i], w, NULL);
			coll_node_add_operand(u, t);
			coll_node_unref(t);
		}
		return u;
	}
	case 7: {
		struct coll_node *n = coll_node_new(COLL_REFERENCE);
		coll_attr_set(n, "namespace", rnd(r, 2) ? "Playlists" : "Collections");
		coll_attr_set(n, "reference", rnd(r, 2) ? "Road Trip" : "a/b");
		return n;
	}
	case 8: {
		char v[16];
		snprintf(v, sizeof v, "%u", rnd(r, 100) + 1);
		struct coll_node *n = coll_filter_new(COLL_EQUALS, NULL, v, NULL);
		coll_attr_set(n, "type", "id");
		return n;
	}
	case 9: {
		struct coll_node *lo = coll_filter_new(COLL_GREATEREQ, "year", "1990", NULL);
		struct coll_node *hi = coll_filter_new(COLL_SMALLEREQ, "year", "2000", NULL);
		struct coll_node *n = coll_node_new(COLL_INTERSECTION);
		coll_node_add_operand(n, lo);
		coll_node_add_operand(n, hi);
		coll_node_unref(lo);
		coll_node_unref(hi);
		return n;
	}
	default:
		return coll_filter_new(COLL_EQUALS, "genre", "Rock", NULL);
	}
}

static struct coll_node *rnd_tree(struct rng *r, int depth)
{
	if (depth <= 0 || rnd(r, 3) == 0)
		return rnd_leaf(r);
	struct coll_node *n;
	switch (rnd(r, 5)) {
	case 0:
	case 1: {
		n = coll_node_new(rnd(r, 2) ? COLL_UNION : COLL_INTERSECTION);
		uint32_t k = 2 + rnd(r, 3);
		for (uint32_t i = 0; i < k; i++) {
			struct coll_node *c = rnd_tree(r, depth - 1);
			coll_node_add_operand(n, c);
			coll_node_unref(c);
		}
		return n;
	}
	case 2:
		n = coll_node_new(COLL_COMPLEMENT);
		break;
	case 3:
		n = coll_node_new(COLL_ORDER);
		if (rnd(r, 4) == 0) {
			coll_attr_set(n, "type", "random");
			coll_attr_set(n, "seed", "42");
		} else {
			coll_attr_set(n, "field", rnd(r, 2) ? "year,-title" : "t");
		}
		break;
	default:
		n = coll_node_new(COLL_LIMIT);
		coll_attr_set(n, "length", "10");
		if (rnd(r, 2))
			coll_attr_set(n, "start", "5");
		break;
	}
	struct coll_node *c = rnd_tree(r, depth - 1);
	coll_node_add_operand(n, c);
	coll_node_unref(c);
	return n;
}

TEST(random_trees_print_and_parse_back_equal)
{
	struct rng r = {2024};
	int printed = 0;
	for (int i = 0; i < 3000; i++) {
		struct coll_node *t = rnd_tree(&r, 4);
		struct crate_err err;
		char *text = coll_print(t, &err);
		if (CHECK_MSG(text != NULL, "tree %d does not print: %s", i, err.msg)) {
			struct coll_node *back = coll_parse(text, strlen(text), NULL, &err);
			bool eq = back && coll_node_equal(t, back);
			if (!eq) {
				char *want = test_sexpr(t), *got = back ? test_sexpr(back) : NULL;
				CHECK_MSG(false, "'%s'\n    tree %s\n    back %s", text, want,
					  got ? got : err.msg);
				free(want);
				free(got);
			}
			printed += eq;
			coll_node_unref(back);
			free(text);
		}
		coll_node_unref(t);
	}
	CHECK_INT(printed, 3000);
}
