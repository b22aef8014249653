/* coll/rank, coll/search, coll/typo: the ranking table in
 * tests/data/ranking.tsv (expected first results of each query on a fixed
 * library), the points' bounds, edit distances and the CJK word rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "coll/eval.h"
#include "coll/parse.h"
#include "coll/rank.h"
#include "coll/search.h"
#include "coll/typo.h"
#include "coll/words.h"
#include "base/rng.h"
#include "harness.h"
#include "test_rank_util.h"
#include "medialib/index.h"

#define NOW 1750000000

static void add_item(struct mlib_index *idx, char *line)
{
	char *f[8] = {0};
	int n = 0;
	for (char *p = line; n < 8; n++) {
		f[n] = p;
		char *bar = strchr(p, '|');
		if (!bar) {
			n++;
			break;
		}
		*bar = '\0';
		p = bar + 1;
	}
	uint32_t id = (uint32_t)atoi(f[0]);
	mlib_index_add_media(idx, id);
	static const char *const props[] = {NULL, "artist", "album", "title"};
	for (int i = 1; i < 4 && i < n; i++)
		if (f[i] && *f[i])
			mlib_index_add_str(idx, id, props[i], f[i], strlen(f[i]));
	if (n > 4 && *f[4])
		mlib_index_set_int(idx, id, "rating", atoi(f[4]));
	if (n > 5 && *f[5])
		mlib_index_set_int(idx, id, "timesplayed", atoi(f[5]));
	if (n > 6 && *f[6])
		mlib_index_set_int(idx, id, "lastplayed", NOW - (int64_t)atoi(f[6]) * 86400);
	if (n > 7 && *f[7])
		mlib_index_set_int(idx, id, "timesskipped", atoi(f[7]));
}

/* The titles of the first k results, " | "-separated. Owned. */
static char *titles(const struct mlib_index *idx, const struct coll_result *r, size_t k)
{
	struct strbuf b;
	strbuf_init(&b, 128);
	if (r->ids.n == 0)
		strbuf_adds(&b, "(none)");
	for (size_t i = 0; i < r->ids.n && i < k; i++) {
		char buf[32];
		const char *t = mlib_index_get_text(idx, r->ids.v[i], "title", buf, sizeof buf);
		strbuf_addf(&b, "%s%s", i ? " | " : "", t ? t : "?");
	}
	return strbuf_steal(&b);
}

TEST(ranking_table)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/ranking.tsv", harness_srcdir());
	FILE *f = fopen(path, "r");
	REQUIRE(f != NULL);
	struct mlib_index *idx = mlib_index_new();
	char line[2048];
	int lineno = 0;
	bool finished = false;
	size_t checked = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || strncmp(line, "--- ", 4) == 0)
			continue;
		if (strncmp(line, "@item ", 6) == 0) {
			add_item(idx, line + 6);
			continue;
		}
		if (!finished) {
			mlib_index_finish(idx);
			finished = true;
		}
		char *want = strchr(line, '\t');
		REQUIRE(want != NULL);
		*want++ = '\0';
		char *note = strchr(want, '\t');
		if (note)
			*note++ = '\0';
		size_t k = 1;
		for (const char *p = want; (p = strstr(p, " | ")) != NULL; p += 3)
			k++;
		struct crate_err err;
		struct coll_node *q = coll_parse(line, strlen(line), NULL, &err);
		if (!CHECK_MSG(q != NULL, "line %d: '%s': %s", lineno, line, err.msg))
			continue;
		struct coll_eval_ctx ctx = {.index = idx, .now = NOW};
		struct coll_search s;
		coll_search_prepare(&ctx, q, line, 0, &s);
		struct coll_result r = {0};
		CHECK_MSG(coll_search_eval(&ctx, &s, &r, &err) == 0, "line %d: %s", lineno, err.msg);
		char *got = titles(idx, &r, k);
		CHECK_MSG(strcmp(got, want) == 0, "line %d: '%s'\n    got  %s\n    want %s", lineno,
			  line, got, want);
		if (note)
			CHECK_MSG(strstr(s.notes.buf, note) != NULL, "line %d: '%s': notes '%s' lack '%s'",
				  lineno, line, s.notes.buf, note);
		else
			CHECK_MSG(s.notes.len == 0, "line %d: '%s': unexpected notes '%s'", lineno, line,
				  s.notes.buf);
		free(got);
		coll_result_free(&r);
		coll_search_free(&s);
		coll_node_unref(q);
		checked++;
	}
	fclose(f);
	CHECK(checked >= 30);
	mlib_index_free(idx);
}

/* Two words corrected to the same word ("bakc" and "black" both a typo
 * away from "back"): what was forgiven is said once. */
TEST(a_correction_is_noted_once)
{
	struct mlib_index *idx = mlib_index_new();
	char rows[][64] = {"1|AC/DC|Back in Black|Back in Black", "2|Queen Latifah|Black Reign|Unity",
			   "3|The Lanterns|Harbour Lights|Salt Wind"};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		add_item(idx, rows[i]);
	mlib_index_finish(idx);
	static const char *const queries[] = {"bakc in black", "harbor harbor"};
	for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
		const char *q = queries[i];
		struct crate_err err;
		struct coll_node *n = coll_parse(q, strlen(q), NULL, &err);
		REQUIRE(n != NULL);
		struct coll_eval_ctx ctx = {.index = idx, .now = NOW};
		struct coll_search s;
		coll_search_prepare(&ctx, n, q, 0, &s);
		const char *first = strstr(s.notes.buf, "also showing matches for ");
		CHECK_MSG(first, "'%s': no note", q);
		CHECK_MSG(!first || !strstr(first + 1, "also showing matches for "),
			  "'%s': notes '%s' say it twice", q, s.notes.buf);
		coll_search_free(&s);
		coll_node_unref(n);
	}
	mlib_index_free(idx);
}

TEST(popularity_never_crosses_a_kind_of_match)
{
	/* The boost is below the smallest difference between two kinds of
	 * match, in any field, and between exact matches and corrections. */
	int pts[64], n = 0;
	for (int fld = 0; fld < COLL_RANK_NFIELDS; fld++)
		for (int c = COLL_RANK_SUBSTRING; c <= COLL_RANK_FIELD; c++)
			pts[n++] = coll_rank_points((enum coll_rank_field)fld, (enum coll_rank_class)c,
						    false);
	int min_exact = pts[0];
	for (int i = 0; i < n; i++) {
		if (pts[i] < min_exact)
			min_exact = pts[i];
		for (int j = 0; j < n; j++)
			CHECK(pts[i] == pts[j] || abs(pts[i] - pts[j]) >= COLL_RANK_STEP);
	}
	for (int c = COLL_RANK_SUBSTRING; c <= COLL_RANK_FIELD; c++)
		CHECK(coll_rank_points(COLL_RANK_TITLE, (enum coll_rank_class)c, true) +
			      COLL_RANK_STEP <= min_exact);
	CHECK(COLL_RANK_BOOST_MAX < 10 * COLL_RANK_STEP);
}

static size_t cps(const char *s, uint32_t *out)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; n++) {
		uint32_t cp = *p++;
		if (cp >= 0xC0) { /* 2- and 3-byte sequences are enough here */
			int more = cp >= 0xE0 ? 2 : 1;
			cp &= more == 2 ? 0x0F : 0x1F;
			while (more--)
				cp = cp << 6 | (*p++ & 0x3F);
		}
		out[n] = cp;
	}
	return n;
}

TEST(edit_distance_counts_transpositions_as_one)
{
	static const struct {
		const char *a, *b;
		int d;
	} cases[] = {
		{"beatles", "beatels", 1}, {"beatles", "beatle", 1},   {"beatles", "beatlees", 1},
		{"beatles", "bxatles", 1}, {"beatles", "ebatlse", 2},  {"bachelorette", "bchelorete", 2},
		{"help", "help", 0},       {"abc", "xyz", 3},          {"straße", "strase", 1},
		{"jóga", "joga", 1},       {"", "ab", 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t a[64], b[64];
		size_t na = cps(cases[i].a, a), nb = cps(cases[i].b, b);
		CHECK_MSG(coll_typo_distance(a, na, b, nb, 5) == cases[i].d, "%s/%s: %d, want %d",
			  cases[i].a, cases[i].b, coll_typo_distance(a, na, b, nb, 5), cases[i].d);
		/* bounded: never more than limit + 1 */
		CHECK(coll_typo_distance(a, na, b, nb, 0) == (cases[i].d > 0 ? 1 : 0));
	}
	CHECK_INT(coll_typo_max_distance(3), 0);
	CHECK_INT(coll_typo_max_distance(4), 1);
	CHECK_INT(coll_typo_max_distance(7), 1);
	CHECK_INT(coll_typo_max_distance(8), 2);
}

TEST(cjk_characters_are_words_latin_runs_unchanged)
{
	const char *s = "東京ソナタ – 夜の街 rock'n'roll Straße";
	size_t pos = 0, st, wl, n = 0;
	char words[16][32];
	while (n < 16 && coll_word_next(s, strlen(s), &pos, &st, &wl)) {
		snprintf(words[n], sizeof words[n], "%.*s", (int)wl, s + st);
		n++;
	}
	REQUIRE(n == 12);
	CHECK_STR(words[0], "東");
	CHECK_STR(words[4], "タ");
	CHECK_STR(words[5], "夜");
	CHECK_STR(words[8], "rock");
	CHECK_STR(words[9], "n");
	CHECK_STR(words[11], "Straße");
	CHECK(coll_rank_classify("東京ソナタ", strlen("東京ソナタ"), "ソナタ", strlen("ソナタ")) ==
	      COLL_RANK_WORD);
	CHECK(coll_rank_classify("help!", 5, "help", 4) == COLL_RANK_FIELD);
	CHECK(coll_rank_classify("help me, rhonda", 15, "help", 4) == COLL_RANK_WORD);
	CHECK(coll_rank_classify("helpless", 8, "help", 4) == COLL_RANK_PREFIX);
	CHECK(coll_rank_classify("whelp", 5, "help", 4) == COLL_RANK_SUBSTRING);
	CHECK(coll_rank_classify("hello", 5, "help", 4) == COLL_RANK_NONE);
}

/* ---- the fast sort against the reference scores ---- */

static uint64_t lib_rng_state = 0x9E3779B97F4A7C15ull; /* fixed: the same library each run */

static uint64_t lib_rng(void)
{
	return rng_next(&lib_rng_state);
}

/* A few words in several scripts and shapes, so every kind of match and
 * many ties occur. */
static const char *const vocab[] = {
	"la", "lamp", "Lantern", "love", "mo", "moon", "Món", "mosaic", "夜", "東京", "help!",
	"la-la", "Björk", "night", "allay", "salamo", "Moonlight", "(live)", "rock'n'roll", "ÉLAN",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

static void random_phrase(char *buf, size_t size, int maxwords)
{
	buf[0] = '\0';
	int n = 1 + (int)(lib_rng() % (uint64_t)maxwords);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? " " : "", vocab[lib_rng() % NVOCAB]);
	}
}

static struct mlib_index *random_library(uint32_t n)
{
	struct mlib_index *idx = mlib_index_new();
	char buf[256];
	for (uint32_t k = 0; k < n; k++) {
		/* ids out of library order, as a real library's are */
		uint32_t id = 1 + (uint32_t)((k * 7919u) % n);
		mlib_index_add_media(idx, id);
		static const char *const props[] = {"artist", "album", "title"};
		for (int p = 0; p < 3; p++) {
			if (lib_rng() % 40 == 0)
				continue; /* missing */
			random_phrase(buf, sizeof buf, p == 2 ? 4 : 2);
			mlib_index_add_str(idx, id, props[p], buf, strlen(buf));
			if (p == 0 && lib_rng() % 30 == 0) { /* a second artist */
				random_phrase(buf, sizeof buf, 1);
				mlib_index_add_str(idx, id, "artist", buf, strlen(buf));
			}
		}
		if (lib_rng() % 8 == 0)
			mlib_index_add_str(idx, id, "albumartist", "Various Artists", 15);
		if (lib_rng() % 5 == 0)
			mlib_index_set_int(idx, id, "rating", (int64_t)(lib_rng() % 6));
		if (lib_rng() % 3 == 0)
			mlib_index_set_int(idx, id, "timesplayed", (int64_t)(lib_rng() % 40));
		if (lib_rng() % 7 == 0)
			mlib_index_set_int(idx, id, "lastplayed", NOW - (int64_t)(lib_rng() % 800) * 86400);
		if (lib_rng() % 9 == 0)
			mlib_index_set_int(idx, id, "timesskipped", (int64_t)(lib_rng() % 9));
	}
	mlib_index_finish(idx);
	return idx;
}

/* Rank the result of query text on idx every way the search bar does and
 * check each order against the reference scores. Returns false when the
 * query had nothing to rank; *ties counts equal scores seen. */
static bool check_ranked_query(struct mlib_index *idx, const char *text,
			       struct coll_eval_cache *cache, size_t *ties)
{
	struct crate_err err;
	struct coll_node *q = coll_parse(text, strlen(text), NULL, &err);
	if (!CHECK_MSG(q != NULL, "'%s': %s", text, err.msg))
		return false;
	struct coll_eval_ctx ctx = {.index = idx, .now = NOW};
	struct coll_search s;
	coll_search_prepare(&ctx, q, text, 0, &s);
	struct coll_result r = {0};
	REQUIRE(coll_eval(&ctx, s.node, &r, &err) == 0);
	bool ranked = s.terms.n && r.ids.n > 1;
	if (ranked) {
		/* the whole result (scored in id order), and a small part of
		 * it (scored in place) */
		*ties += rank_check_sort(idx, &s.terms, NOW, NULL, r.ids.v, r.ids.n, text);
		rank_check_sort(idx, &s.terms, NOW, NULL, r.ids.v, r.ids.n < 1000 ? r.ids.n : 1000,
				text);
		/* with the memos kept between keystrokes: first a part of
		 * the result (some values known), then all of it, twice */
		rank_check_sort(idx, &s.terms, NOW, cache, r.ids.v, r.ids.n / 3, text);
		rank_check_sort(idx, &s.terms, NOW, cache, r.ids.v, r.ids.n, text);
		rank_check_sort(idx, &s.terms, NOW, cache, r.ids.v, r.ids.n, text);
	}
	coll_result_free(&r);
	coll_search_free(&s);
	coll_node_unref(q);
	return ranked;
}

TEST(fast_rank_order_equals_reference_scores_on_a_random_library)
{
	struct mlib_index *idx = random_library(20000);
	static const char *const queries[] = {
		"la",    "la* OR mo*", "love moon", "a:lamp",   "t~la",     "夜",    "help",
		"lamp love mo", "moonx", "\"la la\"", "l:elan", "bjork night", "a~o NOT t:la",
	};
	size_t ties = 0, checked = 0;
	struct coll_eval_cache *cache = coll_eval_cache_new();
	for (size_t qi = 0; qi < sizeof queries / sizeof queries[0]; qi++)
		checked += check_ranked_query(idx, queries[qi], cache, &ties);
	coll_eval_cache_free(cache);
	CHECK(checked >= 10);
	CHECK(ties > 1000); /* ties keeping their order were tested */
	mlib_index_free(idx);
}

/* A result of 65536 items or more is keyed and counting-sorted on two
 * threads, in parts: the order, ties included, must be the one a single
 * pass gives. */
TEST(a_large_result_keyed_on_two_threads_keeps_the_reference_order)
{
	struct mlib_index *idx = random_library(90000);
	static const char *const queries[] = {"la* OR mo*", "a~o NOT t:la", "t~l OR a~m"};
	size_t ties = 0, checked = 0;
	struct coll_eval_cache *cache = coll_eval_cache_new();
	for (size_t qi = 0; qi < sizeof queries / sizeof queries[0]; qi++)
		checked += check_ranked_query(idx, queries[qi], cache, &ties);
	coll_eval_cache_free(cache);
	CHECK(checked == 3);
	CHECK(ties > 10000);
	mlib_index_free(idx);
}

/* The class of term in value by definition: every occurrence, its edges
 * tested with coll/words.c alone. coll_rank_classify answers ASCII bytes
 * inline; it must agree on texts mixing them with other scripts. */
static enum coll_rank_class reference_class(const char *v, size_t vlen, const char *t, size_t tlen)
{
	enum coll_rank_class best = COLL_RANK_NONE;
	for (size_t i = 0; tlen && i + tlen <= vlen; i++) {
		if (((unsigned char)v[i] & 0xc0) == 0x80 || memcmp(v + i, t, tlen) != 0)
			continue;
		const char *h = v + i, *end = v + vlen;
		bool b0 = coll_word_boundary(v, end, h), b1 = coll_word_boundary(v, end, h + tlen);
		size_t p0 = 0, p1 = 0, st, wl;
		/* one leading article before is no word: "doors" is the whole of "the doors" */
		size_t before = 0;
		bool article = false;
		while (coll_word_next(v, i, &p0, &st, &wl)) {
			article = before == 0 && ((wl == 3 && memcmp(v + st, "the", 3) == 0) ||
						  (wl == 2 && memcmp(v + st, "an", 2) == 0) ||
						  (wl == 1 && v[st] == 'a'));
			before++;
		}
		bool words = (before > 0 && !(before == 1 && article)) ||
			     coll_word_next(h + tlen, vlen - i - tlen, &p1, &st, &wl);
		enum coll_rank_class c = !b0 ? COLL_RANK_SUBSTRING
					 : !b1 ? COLL_RANK_PREFIX
					 : words ? COLL_RANK_WORD
						 : COLL_RANK_FIELD;
		best = c > best ? c : best;
	}
	return best;
}

TEST(classes_agree_with_the_word_rules_on_mixed_scripts)
{
	static const char *const bits[] = {"la", "a", "l", " ", "-", "é", "é", "ß", "東", "😀", "0",
					   "’", "l\xcc\x81", "x"};
	uint64_t r = 21; /* fixed: the same texts each run */
	size_t nb = sizeof bits / sizeof *bits, checked = 0;
	for (int i = 0; i < 20000; i++) {
		char v[64] = "", t[16] = "";
		for (int k = (int)rng_below(&r, 8); k >= 0; k--)
			strcat(v, bits[rng_below(&r, nb)]);
		for (int k = (int)rng_below(&r, 2); k >= 0; k--)
			strcat(t, bits[rng_below(&r, nb)]);
		enum coll_rank_class want = reference_class(v, strlen(v), t, strlen(t));
		CHECK_INT(coll_rank_classify(v, strlen(v), t, strlen(t)), want);
		checked += want != COLL_RANK_NONE;
	}
	CHECK(checked > 1000);
}

/* A ranking made now stays right until a last play crosses 30 days or a
 * year ago, or one dated ahead comes to pass (the search bar keeps ranked
 * results until then). */
TEST(boosts_are_steady_until_a_last_play_crosses_a_threshold)
{
	const int64_t now = 1750000000, day = 86400;
	struct mlib_index *idx = mlib_index_new();
	const int64_t last[] = {now - 29 * day, now + 100, now - 400 * day, 0};
	for (uint32_t id = 1; id <= 4; id++) {
		mlib_index_add_media(idx, id);
		if (last[id - 1])
			mlib_index_set_int(idx, id, "lastplayed", last[id - 1]);
	}
	mlib_index_finish(idx);
	CHECK_INT(coll_rank_boost_steady_until(idx, now), now + 100);
	int64_t next = now - 29 * day + 30 * day + 1;
	CHECK_INT(coll_rank_boost_steady_until(idx, now + 100), next);
	/* the boost does change there, and not before */
	CHECK(coll_rank_boost(idx, 1, next - 1) != coll_rank_boost(idx, 1, next));
	CHECK(coll_rank_boost(idx, 2, now + 99) != coll_rank_boost(idx, 2, now + 100));
	CHECK_INT(coll_rank_boost_steady_until(idx, now + 100 + 365 * day + 1), INT64_MAX);
	mlib_index_free(idx);
	struct mlib_index *none = mlib_index_new();
	mlib_index_add_media(none, 1);
	mlib_index_finish(none);
	CHECK_INT(coll_rank_boost_steady_until(none, now), INT64_MAX);
	mlib_index_free(none);
}
