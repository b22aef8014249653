/* coll/rank's paths for large results: classes of a whole dictionary in
 * one pass over its folded span, scoring from known classes, and the
 * counting sort of keys (with its fallback for keys of many values). Each
 * order is compared with the reference: items sorted by coll_rank_score,
 * ties in their given order. */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/eval_cache.h"
#include "coll/parse.h"
#include "coll/search.h"
#include "coll/rank.h"
#include "coll/rank_fill.h"
#include "coll/rank_letters.h"
#include "harness.h"
#include "test_rank_util.h"
#include "medialib/index.h"

#define NOW 1750000000

static uint64_t rng_state = 0xC2B2AE3D27D4EB4Full; /* fixed: the same library each run */

/* Words sharing letters, in several scripts, so every class occurs, terms
 * sit at the start and end of values, and many items tie. */
static const char *const vocab[] = {
	"la", "lamp", "Lantern", "love", "mo", "moon", "Món", "mosaic", "夜", "東京", "help!",
	"la-la", "Björk", "night", "allay", "salamo", "Moonlight", "(live)", "ÉLAN", "ámo",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

static void phrase(char *buf, size_t size, size_t maxwords)
{
	buf[0] = '\0';
	size_t n = 1 + rng_below(&rng_state, maxwords);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? " " : "",
			 vocab[rng_below(&rng_state, NVOCAB)]);
	}
}

/* n items whose titles are nearly all different (a number in most), as a
 * real library's are: the title dictionary is as large as the result. */
static struct mlib_index *library(uint32_t n)
{
	struct mlib_index *idx = mlib_index_new();
	char buf[256];
	for (uint32_t k = 0; k < n; k++) {
		uint32_t id = 1 + (uint32_t)((k * 7919u) % n); /* not in library order */
		mlib_index_add_media(idx, id);
		phrase(buf, sizeof buf, 2);
		mlib_index_add_str(idx, id, "artist", buf, strlen(buf));
		if (rng_below(&rng_state, 25) == 0) { /* a second artist */
			phrase(buf, sizeof buf, 1);
			mlib_index_add_str(idx, id, "artist", buf, strlen(buf));
		}
		phrase(buf, sizeof buf, 2);
		mlib_index_add_str(idx, id, "album", buf, strlen(buf));
		if (rng_below(&rng_state, 30) != 0) { /* a few without a title */
			phrase(buf, sizeof buf, 3);
			size_t len = strlen(buf);
			if (rng_below(&rng_state, 4) != 0)
				snprintf(buf + len, sizeof buf - len, " %u", k);
			mlib_index_add_str(idx, id, "title", buf, strlen(buf));
		}
		if (rng_below(&rng_state, 3) == 0)
			mlib_index_set_int(idx, id, "timesplayed", (int64_t)rng_below(&rng_state, 40));
		if (rng_below(&rng_state, 5) == 0)
			mlib_index_set_int(idx, id, "rating", (int64_t)rng_below(&rng_state, 6));
	}
	mlib_index_finish(idx);
	return idx;
}

/* Every id of idx in a shuffled order (a result in some library order). */
static uint32_t *shuffled_ids(uint32_t n)
{
	uint32_t *ids = xmalloc((size_t)n * sizeof *ids);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i + 1;
	for (uint32_t i = n; i > 1; i--) {
		size_t j = rng_below(&rng_state, i);
		uint32_t x = ids[i - 1];
		ids[i - 1] = ids[j];
		ids[j] = x;
	}
	return ids;
}

/* Terms from words separated by '|', each its own group; '~' before a
 * word makes it a correction. */
static void terms_of(struct coll_rank_terms *t, const char *spec)
{
	char *copy = xstrdup(spec), *save = NULL;
	for (char *w = strtok_r(copy, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
		bool typo = *w == '~';
		coll_rank_terms_add(t, w + typo, COLL_RANK_WORD_FIELDS, -1, typo);
	}
	free(copy);
}

/* Two terms with the same text may share one kept memo; rank.c queues it
 * once (crew_has) so two threads never fill the same bytes. Found by
 * reading the code; this library did not make ThreadSanitizer report it
 * on the old code, so this checks the order with repeated words, kept
 * memos and the second thread, under whatever sanitizer builds it. */
TEST(repeated_words_fill_their_shared_memo_once)
{
	enum { N = 40000 }; /* enough values for the second thread */
	struct mlib_index *idx = library(N);
	uint32_t *ids = shuffled_ids(N);
	static const char *const specs[] = {"mo|mo", "la|la|night"};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		struct coll_rank_terms t = {0};
		terms_of(&t, specs[i]);
		struct coll_eval_cache *cache = coll_eval_cache_new();
		rank_check_sort(idx, &t, NOW, cache, ids, N, specs[i]);
		rank_check_sort(idx, &t, NOW, cache, ids, N, specs[i]);
		coll_eval_cache_free(cache);
		coll_rank_terms_free(&t);
	}
	free(ids);
	mlib_index_free(idx);
}

TEST(whole_dictionary_classes_give_the_reference_order)
{
	enum { N = 12000 };
	struct mlib_index *idx = library(N);
	uint32_t *ids = shuffled_ids(N);
	/* single words (classified a dictionary at a time), a word at the
	 * very start of values, one in no value, a whole value, CJK, accents
	 * folded, a correction, several words (classified per value) */
	static const char *const specs[] = {
		"la", "la|mo", "moon", "zzzq", "help", "東", "elan", "amo|~lamp", "la la",
		"love|la la|night", "11", "b",
	};
	size_t ties = 0;
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		struct coll_rank_terms t = {0};
		terms_of(&t, specs[i]);
		/* a fresh scorer's memos, the whole result and part of it */
		ties += rank_check_sort(idx, &t, NOW, NULL, ids, N, specs[i]);
		rank_check_sort(idx, &t, NOW, NULL, ids + 100, N / 2, specs[i]);
		/* kept memos: some values known (a small result), then every
		 * value (filled around the known ones), then read back */
		struct coll_eval_cache *cache = coll_eval_cache_new();
		rank_check_sort(idx, &t, NOW, cache, ids, 900, specs[i]);
		rank_check_sort(idx, &t, NOW, cache, ids, N, specs[i]);
		rank_check_sort(idx, &t, NOW, cache, ids + 7, N - 7, specs[i]);
		coll_eval_cache_free(cache);
		coll_rank_terms_free(&t);
	}
	CHECK(ties > 10000); /* ties kept their order in every pass */
	free(ids);
	mlib_index_free(idx);
}

TEST(typing_a_word_letter_by_letter_keeps_the_reference_order)
{
	enum { N = 9000 };
	struct mlib_index *idx = library(N);
	uint32_t *ids = shuffled_ids(N);
	/* one cache across keystrokes, as the search bar keeps it: earlier
	 * words' memos are read back, new ones filled, old ones evicted */
	static const char *const keys[] = {
		"l", "la", "lan", "lant", "lante", "lantern", "lantern|m", "lantern|mo",
		"lantern|moo", "lantern|moon", "lantern|moonl", "lantern|moon", "la",
	};
	struct coll_eval_cache *cache = coll_eval_cache_new();
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		struct coll_rank_terms t = {0};
		terms_of(&t, keys[i]);
		rank_check_sort(idx, &t, NOW, cache, ids, N, keys[i]);
		coll_rank_terms_free(&t);
	}
	coll_eval_cache_free(cache);
	free(ids);
	mlib_index_free(idx);
}

TEST(keys_of_many_words_sort_like_keys_of_few)
{
	enum { N = 6000 };
	struct mlib_index *idx = library(N);
	uint32_t *ids = shuffled_ids(N);
	/* Many words, each its own group: the keys take more values than the
	 * counting sort's buckets, and the radix sorts take over. */
	struct coll_rank_terms t = {0};
	terms_of(&t, "a|e|i|o|u|l|m|n|t|s|r|h|p|k|g|c|v|y|d|b|w|f|la|mo|lo|ni|on|an|ht|nt|"
		     "oo|ig|el|am|ma|er|sa|ar|li|ve|de|ee|gh|it|ns|te|ou|al|ta|ll|mp|pa|ai");
	rank_check_sort(idx, &t, NOW, NULL, ids, N, "many words");
	struct coll_eval_cache *cache = coll_eval_cache_new();
	rank_check_sort(idx, &t, NOW, cache, ids, N, "many words, kept");
	coll_eval_cache_free(cache);
	coll_rank_terms_free(&t);
	free(ids);
	mlib_index_free(idx);
}

/* The popularity boosts by library rank (coll_cache_library_boost) are
 * made between keystrokes at the clock's now, and a ranking at that
 * moment reads them instead of four columns by id. They must equal each
 * item's boost, and stop serving (the ranking falling back to the
 * columns) once an edit or the clock changes a boost, until the next
 * preparation step makes them again. */
TEST(library_order_boosts_hold_until_an_edit_or_the_clock_changes_them)
{
	enum { N = 6000 };
	struct mlib_index *idx = library(N);
	int64_t now = (int64_t)time(NULL);
	const struct u32vec *order = mlib_index_library_order(idx);
	/* last plays a few days, a few months, two years ago; some skips */
	for (size_t r = 0; r < N; r += 7) {
		static const int64_t days[] = {3, 100, 700};
		mlib_index_update_int(idx, order->v[r], "lastplayed",
				      now - days[r % 3] * 86400 - (int64_t)(r % 5000));
		if (r % 3 == 0)
			mlib_index_update_int(idx, order->v[r], "timesskipped", (int64_t)(r % 4));
	}
	/* The steps read the clock themselves: the boosts hold from the
	 * moment they were made, which a slow run (under a sanitizer) finds a
	 * second or more after the clock read above. */
	struct coll_eval_cache *cache = coll_eval_cache_new();
	while (coll_eval_cache_prepare_step(cache, idx))
		;
	now = (int64_t)time(NULL);
	const uint8_t *b = coll_cache_library_boost(cache, idx, now);
	CHECK(b != NULL);
	size_t bad = N, boosted = 0;
	for (size_t r = 0; b && r < N && bad == N; r++) {
		if (b[r] != coll_rank_boost(idx, order->v[r], now))
			bad = r;
		boosted += b[r] > 0;
	}
	CHECK_MSG(bad == N, "library position %zu", bad);
	CHECK(boosted > N / 4); /* the boosts were tested, not only zeros */
	struct coll_rank_terms t = {0};
	terms_of(&t, "la");
	rank_check_sort(idx, &t, now, cache, order->v, N, "la, the boosts kept");
	/* an edit: the kept boosts no longer hold; the ranking sees the edit
	 * (a result well down the order, now rated and played a lot) */
	uint32_t *ranked = xmalloc(N * sizeof *ranked);
	memcpy(ranked, order->v, N * sizeof *ranked);
	coll_rank_sort(idx, &t, now, NULL, ranked, NULL, N);
	uint32_t top = ranked[N / 8];
	CHECK(coll_rank_score(idx, &t, now, top, NULL) >= 100); /* a match */
	free(ranked);
	mlib_index_update_int(idx, top, "rating", 5);
	mlib_index_update_int(idx, top, "timesplayed", 1000);
	CHECK(coll_cache_library_boost(cache, idx, now) == NULL);
	rank_check_sort(idx, &t, now, cache, order->v, N, "la, after an edit");
	int64_t before = (int64_t)time(NULL);
	CHECK(!coll_eval_cache_prepare_step(cache, idx)); /* made again, in one step */
	now = (int64_t)time(NULL);
	b = coll_cache_library_boost(cache, idx, now);
	uint32_t at = mlib_index_library_rank(idx, top);
	CHECK(b && b[at] == coll_rank_boost(idx, top, now) && b[at] >= 80);
	/* the clock: they hold until the first moment a boost changes */
	int64_t until = coll_rank_boost_steady_until(idx, now);
	CHECK(until > now && until <= now + 31 * 86400);
	CHECK(coll_cache_library_boost(cache, idx, until - 1) != NULL);
	CHECK(coll_cache_library_boost(cache, idx, until) == NULL);
	CHECK(coll_cache_library_boost(cache, idx, before - 1) == NULL);
	coll_rank_terms_free(&t);
	coll_eval_cache_free(cache);
	mlib_index_free(idx);
}

/* A large result in library order (its library ranks given, as the
 * search bar's results are) is keyed from the fields' codes copied into
 * library order; the search bar builds those copies while idle
 * (coll_eval_cache_prepare_step, a field a step). Each copy must hold the
 * column's code of the item at each library position, and the order must
 * stay the reference one with them. */
TEST(library_order_codes_match_the_columns_and_keep_the_reference_order)
{
	enum { N = 6000 };
	struct mlib_index *idx = library(N);
	struct coll_eval_cache *cache = coll_eval_cache_new();
	size_t steps = 1;
	while (coll_eval_cache_prepare_step(cache, idx))
		steps++;
	CHECK_MSG(steps == 7, "%zu steps: two arrays each for artist, album and title, then the boosts",
		  steps);
	CHECK(!coll_eval_cache_prepare_step(cache, idx)); /* nothing left */
	const struct u32vec *order = mlib_index_library_order(idx);
	CHECK(order->n == N);
	static const char *const fields[] = {"artist", "album", "title"};
	for (size_t f = 0; f < 3; f++) {
		int p = mlib_index_prop(idx, fields[f]);
		const char *base;
		const uint32_t *offs;
		uint32_t ndict;
		mlib_index_dict_fold_span(idx, p, &base, &offs, &ndict);
		struct coll_cache_key k = {.idx = idx, .prop = p, .ndict = ndict,
					   .bound = mlib_index_id_bound(idx),
					   .count = mlib_index_count(idx), .op = -1};
		const uint32_t *code = coll_cache_derived_find(cache, COLL_CACHE_LIBRARY_CODES, &k);
		CHECK(code && coll_cache_derived_find(cache, COLL_CACHE_LETTERS, &k));
		if (!code)
			continue;
		struct mlib_str_column col;
		CHECK(mlib_index_str_column(idx, p, &col));
		size_t bad = N;
		for (size_t r = 0; r < N && bad == N; r++)
			if (code[r] != mlib_str_column_code(&col, order->v[r]))
				bad = r;
		CHECK_MSG(bad == N, "%s: library position %zu", fields[f], bad);
	}
	uint32_t *ids = shuffled_ids(N);
	static const char *const specs[] = {"la", "mo|night", "l", "~lamp|mo"};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		struct coll_rank_terms t = {0};
		terms_of(&t, specs[i]);
		rank_check_sort(idx, &t, NOW, cache, ids, N, specs[i]); /* fills the memos */
		rank_check_sort(idx, &t, NOW, cache, ids, N, specs[i]); /* keyed in order */
		rank_check_sort(idx, &t, NOW, cache, order->v, N, specs[i]); /* ranks ascending */
		coll_rank_terms_free(&t);
	}
	free(ids);
	coll_eval_cache_free(cache);
	mlib_index_free(idx);
	/* A small library is never keyed so: nothing to prepare. */
	idx = library(100);
	cache = coll_eval_cache_new();
	CHECK(!coll_eval_cache_prepare_step(cache, idx));
	coll_eval_cache_free(cache);
	mlib_index_free(idx);
}

/* The dictionary key of field name in idx, with its folded span. */
static struct coll_cache_key field_key(const struct mlib_index *idx, const char *name,
				       const char **base, const uint32_t **offs)
{
	int p = mlib_index_prop(idx, name);
	uint32_t ndict;
	mlib_index_dict_fold_span(idx, p, base, offs, &ndict);
	return (struct coll_cache_key){.idx = idx, .prop = p, .ndict = ndict,
				       .bound = mlib_index_id_bound(idx),
				       .count = mlib_index_count(idx), .op = -1};
}

static const char *const prepared_fields[] = {"artist", "album", "title"};

/* Every array the cache shows for idx is whole and right (the library's
 * codes, the letters of each value); how many it shows. */
static size_t kept_arrays_whole(struct coll_eval_cache *cache, const struct mlib_index *idx,
				const char *when)
{
	const struct u32vec *order = mlib_index_library_order(idx);
	size_t shown = 0;
	for (size_t f = 0; f < 3; f++) {
		const char *base;
		const uint32_t *offs;
		struct coll_cache_key k = field_key(idx, prepared_fields[f], &base, &offs);
		const uint32_t *code = coll_cache_derived_find(cache, COLL_CACHE_LIBRARY_CODES, &k);
		if (code) {
			struct mlib_str_column col;
			REQUIRE(mlib_index_str_column(idx, k.prop, &col));
			size_t bad = order->n;
			for (size_t r = 0; r < order->n && bad == order->n; r++)
				if (code[r] != mlib_str_column_code(&col, order->v[r]))
					bad = r;
			CHECK_MSG(bad == order->n, "%s: %s codes wrong at %zu", when, prepared_fields[f], bad);
			shown++;
		}
		const uint64_t *t = coll_cache_derived_find(cache, COLL_CACHE_LETTERS, &k);
		if (t) {
			uint64_t *want = xmalloc(((size_t)k.ndict + 1) * sizeof *want);
			coll_letters_build_all(base, offs, k.ndict, want);
			CHECK_MSG(memcmp(t, want, k.ndict * sizeof *t) == 0, "%s: %s letters wrong", when,
				  prepared_fields[f]);
			free(want);
			shown++;
		}
	}
	return shown;
}

/* Preparation steps until the cache's job is of kind (on field prop, or
 * any for -1) with some of it made; false if the preparation ended first. */
static bool step_into(struct coll_eval_cache *cache, const struct mlib_index *idx,
		      enum coll_cache_job_kind kind, int prop, size_t *steps)
{
	const struct coll_cache_job *j = coll_cache_job(cache);
	while (!(j->kind == kind && j->done > 0 && (prop < 0 || j->key.prop == prop))) {
		(*steps)++;
		if (!coll_eval_cache_prepare_step(cache, idx))
			return false;
	}
	return true;
}

/* The preparation makes each array a slice a step (at a million tracks a
 * whole title table took 30 ms, which a key pressed meanwhile waited):
 * here slices of 1000 entries on 6000 tracks. An array is seen only once
 * whole; a keystroke that needs one under way finishes it (and ranks as
 * the reference does); an edit while the boosts are under way starts them
 * again, and the boosts made hold the edit. */
TEST(preparation_makes_arrays_a_slice_a_step_and_shows_them_whole)
{
	enum { N = 6000, SLICE = 1000 };
	struct mlib_index *idx = library(N);
	struct coll_eval_cache *cache = coll_eval_cache_new();
	coll_eval_cache_set_prepare_slice(cache, SLICE);
	size_t want_steps = (N + SLICE - 1) / SLICE; /* the boosts */
	for (size_t f = 0; f < 3; f++) {
		const char *base;
		const uint32_t *offs;
		struct coll_cache_key k = field_key(idx, prepared_fields[f], &base, &offs);
		want_steps += (N + SLICE - 1) / SLICE + (k.ndict + SLICE - 1) / SLICE;
	}
	size_t steps = 1, shown = 0;
	bool more = true;
	for (; more; steps++) {
		more = coll_eval_cache_prepare_step(cache, idx);
		size_t now_shown = kept_arrays_whole(cache, idx, "stepping");
		const struct coll_cache_job *j = coll_cache_job(cache);
		/* an array shows when its last slice is made, not before */
		CHECK(now_shown == shown || (now_shown == shown + 1 && j->kind == COLL_JOB_NONE) ||
		      (now_shown == shown + 1 && j->done == 0));
		shown = now_shown;
		if (steps > want_steps + 5)
			break;
	}
	steps--;
	CHECK_MSG(steps == want_steps, "%zu steps, %zu slices", steps, want_steps);
	CHECK(shown == 6);
	CHECK(coll_cache_library_boost(cache, idx, (int64_t)time(NULL)) != NULL);
	coll_eval_cache_free(cache);

	/* a one-letter search while the title letters are under way */
	cache = coll_eval_cache_new();
	coll_eval_cache_set_prepare_slice(cache, SLICE);
	const char *base;
	const uint32_t *offs;
	struct coll_cache_key title = field_key(idx, "title", &base, &offs);
	steps = 0;
	REQUIRE(step_into(cache, idx, COLL_JOB_LETTERS, title.prop, &steps));
	CHECK(coll_cache_derived_find(cache, COLL_CACHE_LETTERS, &title) == NULL);
	struct coll_rank_terms t = {0};
	terms_of(&t, "l");
	uint32_t *ids = shuffled_ids(N);
	rank_check_sort(idx, &t, NOW, cache, ids, N, "l, the title letters under way");
	coll_rank_terms_free(&t);
	free(ids);
	CHECK(coll_cache_derived_find(cache, COLL_CACHE_LETTERS, &title) != NULL);
	CHECK(coll_cache_job(cache)->kind == COLL_JOB_NONE); /* taken and finished */
	CHECK(kept_arrays_whole(cache, idx, "after the search") == 6);

	/* an edit while the boosts are under way */
	REQUIRE(step_into(cache, idx, COLL_JOB_BOOSTS, -1, &steps));
	const struct u32vec *order = mlib_index_library_order(idx);
	uint32_t first = order->v[0]; /* in the slice made already */
	mlib_index_update_int(idx, first, "rating", 5);
	mlib_index_update_int(idx, first, "timesplayed", 1000);
	CHECK(coll_eval_cache_prepare_step(cache, idx)); /* started again */
	CHECK(coll_cache_job(cache)->done == SLICE);
	while (coll_eval_cache_prepare_step(cache, idx))
		;
	int64_t now = (int64_t)time(NULL);
	const uint8_t *b = coll_cache_library_boost(cache, idx, now);
	REQUIRE(b != NULL);
	size_t bad = N;
	for (size_t r = 0; r < N && bad == N; r++)
		if (b[r] != coll_rank_boost(idx, order->v[r], now))
			bad = r;
	CHECK_MSG(bad == N, "library position %zu", bad);
	CHECK(b[0] >= 80);
	coll_eval_cache_free(cache);
	mlib_index_free(idx);
}

/* A folded span of nv values (each ending in its NUL; offs[nv] the end)
 * made of parts that put terms at the start, end and middle of values,
 * several times in one, overlapping ("lala"), next to ASCII punctuation,
 * accented letters, CJK and digits; now and then a NUL inside a value. */
static uint32_t *random_span(uint32_t nv, struct strbuf *span)
{
	static const char *const parts[] = {
		"la", "l", "lala", "lam", "ala", "mo", "-", " ", "(", ")", "'", "é", "东", "ß",
		"night", "1", "9la", "la9", "x", "Ñ", "nightla", "", ".", "moon", "\xc2\xa0",
		"@", "[", "`", "{", "_", "~", ":", "?", "/", "^", "\x7f", "0", "z", "Z", "A",
		"nigxt", "niht", "a", "b", "q", "y", "é1", "1a", "a_",
	};
	strbuf_init(span, 1 << 16);
	uint32_t *offs = xmalloc((nv + 1) * sizeof *offs);
	for (uint32_t v = 0; v < nv; v++) {
		offs[v] = (uint32_t)span->len;
		size_t np = rng_below(&rng_state, 9);
		for (size_t k = 0; k < np; k++) {
			strbuf_adds(span, parts[rng_below(&rng_state, sizeof parts / sizeof parts[0])]);
			if (rng_below(&rng_state, 200) == 0) /* no value holds one; still right */
				strbuf_addc(span, '\0');
		}
		strbuf_addc(span, '\0');
	}
	offs[nv] = (uint32_t)span->len;
	return offs;
}

/* coll/rank_fill.c's vector pass against coll_rank_classify value by
 * value (random_span), the whole value too, at the vector blocks' edges
 * (values of every length), in ranges of the span and around classes known
 * already; a NUL inside a value must not throw the pass's count of values
 * off. */
TEST(vector_class_pass_equals_classifying_each_value)
{
	enum { NV = 4000 };
	struct strbuf span;
	uint32_t *offs = random_span(NV, &span);
	static const char *const terms[] = {"la", "l", "lal", "lala", "mo", "night", "1", "a", "9la",
					    "moon", "x"};
	uint8_t *m = xmalloc(NV + 1);
	for (size_t ti = 0; ti < sizeof terms / sizeof terms[0]; ti++) {
		const char *t = terms[ti];
		size_t tlen = strlen(t);
		REQUIRE(coll_rank_fill_fast_term(t, tlen));
		for (int round = 0; round < 3; round++) {
			memset(m, 0, NV + 1);
			uint32_t lo = round == 1 ? 17 : 0, hi = round == 1 ? NV - 33 : NV;
			if (round == 2) /* some classes known before the pass */
				for (uint32_t v = 0; v < NV; v += 3)
					m[v] = (uint8_t)(1 + coll_rank_classify(span.buf + offs[v],
										offs[v + 1] - offs[v] - 1, t,
										tlen));
			coll_rank_fill_span(span.buf, offs, lo, hi, t, tlen, m);
			for (uint32_t v = 0; v < NV; v++) {
				int want = v < lo || v >= hi
						   ? 0
						   : 1 + (int)coll_rank_classify(span.buf + offs[v],
										 offs[v + 1] - offs[v] - 1, t,
										 tlen);
				if (round == 2 && (v < lo || v >= hi) && v % 3 == 0)
					continue;
				CHECK_MSG(m[v] == want, "'%s' in '%s' (round %d): %d, want %d", t,
					  span.buf + offs[v], round, m[v], want);
			}
		}
	}
	CHECK(!coll_rank_fill_fast_term("", 0));
	CHECK(!coll_rank_fill_fast_term("la-la", 5));
	CHECK(!coll_rank_fill_fast_term("東", strlen("東")));
	CHECK(!coll_rank_fill_fast_term("é", strlen("é")));
	free(m);
	free(offs);
	strbuf_free(&span);
}

/* coll/rank_letters.c against coll_rank_classify, for every letter a-z in
 * every value of random_span: the table built whole (on two threads) and
 * in two ranges, the memo filled whole, in a range, and around classes
 * known already. Only single ASCII letters qualify. */
TEST(one_letter_tables_equal_classifying_each_value)
{
	enum { NV = 40003 }; /* enough values for the second thread; not whole words */
	struct strbuf span;
	uint32_t *offs = random_span(NV, &span);
	uint64_t *t = xmalloc((NV + 1) * sizeof *t), *t2 = xmalloc((NV + 1) * sizeof *t2);
	coll_letters_build_all(span.buf, offs, NV, t);
	coll_letters_build(span.buf, offs, 0, NV / 3, t2);
	coll_letters_build(span.buf, offs, NV / 3, NV, t2);
	CHECK(memcmp(t, t2, NV * sizeof *t) == 0);
	uint8_t *m = xmalloc(NV + 1);
	size_t bad = 0;
	for (char letter = 'a'; letter <= 'z'; letter++) {
		for (int round = 0; round < 3; round++) {
			memset(m, 0, NV + 1);
			uint32_t lo = round == 1 ? 17 : 0, hi = round == 1 ? NV - 33 : NV;
			if (round == 2) /* some classes known before */
				for (uint32_t v = 0; v < NV; v += 3)
					m[v] = (uint8_t)(1 + coll_rank_classify(span.buf + offs[v],
										offs[v + 1] - offs[v] - 1,
										&letter, 1));
			coll_letters_fill(t, span.buf, offs, lo, hi, letter, m);
			for (uint32_t v = 0; v < NV && bad < 5; v++) {
				int want = v < lo || v >= hi
						   ? 0
						   : 1 + (int)coll_rank_classify(span.buf + offs[v],
										 offs[v + 1] - offs[v] - 1,
										 &letter, 1);
				if (m[v] != want) {
					bad++;
					CHECK_MSG(m[v] == want, "'%c' in '%s' (round %d): %d, want %d",
						  letter, span.buf + offs[v], round, m[v], want);
				}
			}
		}
	}
	/* "*letter*": any occurrence */
	uint64_t *bits = xcalloc(NV / 64 + 2, sizeof *bits);
	for (char letter = 'a'; letter <= 'z'; letter++) {
		memset(bits, 0xff, (NV / 64 + 2) * sizeof *bits);
		coll_letters_contains(t, NV, letter, bits);
		size_t wrong = NV;
		for (uint32_t v = 0; v < NV && wrong == NV; v++) {
			bool has = memchr(span.buf + offs[v], letter, offs[v + 1] - offs[v] - 1) != NULL;
			if (has != ((bits[v / 64] >> (v % 64) & 1) != 0))
				wrong = v;
		}
		CHECK_MSG(wrong == NV, "'%c' anywhere in value %zu", letter, wrong);
		CHECK((bits[NV / 64] >> (NV % 64)) == 0); /* nothing past the last value */
		CHECK(bits[NV / 64 + 1] == ~(uint64_t)0); /* nor past its word */
	}
	free(bits);
	CHECK(coll_letters_term("a", 1) && coll_letters_term("z", 1));
	CHECK(!coll_letters_term("A", 1));
	CHECK(!coll_letters_term("1", 1));
	CHECK(!coll_letters_term("la", 2));
	CHECK(!coll_letters_term("é", strlen("é")));
	free(m);
	free(t);
	free(t2);
	free(offs);
	strbuf_free(&span);
}

/* One search-bar keystroke: the result of text, searched and ranked (kind
 * 0: no cache, the filters' own scans; 1: a fresh cache, every word new;
 * 2: the cache kept across keystrokes). The ranked order is also held to
 * the reference scores. */
static struct u32vec keystroke(const struct mlib_index *idx, struct coll_eval_cache *cache,
			       const char *text, bool check_order)
{
	struct crate_err err;
	struct coll_node *q = coll_parse(text, strlen(text), NULL, &err);
	REQUIRE(q != NULL);
	struct coll_eval_ctx ctx = {.index = idx, .now = NOW, .cache = cache};
	struct coll_search s;
	coll_search_prepare(&ctx, q, text, 0, &s);
	struct coll_result r = {0};
	CHECK(coll_search_eval(&ctx, &s, &r, &err) == 0);
	if (check_order && s.rank) {
		/* the same members in library order, ranked by the reference */
		struct coll_eval_ctx plain = {.index = idx, .now = NOW};
		struct coll_result lib = {0};
		CHECK(coll_eval(&plain, s.node, &lib, &err) == 0);
		rank_check_sort(idx, &s.terms, NOW, NULL, lib.ids.v, lib.ids.n, text);
		CHECK_MSG(lib.ids.n == r.ids.n, "'%s': %zu results, %zu in library order", text,
			  r.ids.n, lib.ids.n);
		coll_result_free(&lib);
	}
	struct u32vec out = r.ids;
	r.ids = (struct u32vec){0};
	coll_result_free(&r);
	coll_search_free(&s);
	coll_node_unref(q);
	return out;
}

/* A new word's token filters take their matches from ranking's classes
 * (coll/eval_filter.c, memo_answers): typing words letter by letter, then
 * erasing them, gives what the filters' own scans give, in the reference
 * order, with the cache kept, with a fresh one per keystroke and with
 * none; words with accents (folded), CJK, digits, several words, prefixes
 * and whole words. */
TEST(new_word_filters_from_ranking_classes_equal_their_own_scans)
{
	enum { N = 20000 }; /* enough values for the second thread */
	struct mlib_index *idx = library(N);
	static const char *const keys[] = {
		"l", "la", "lan", "lant", "lan", "la", "l", "la*", "la* OR mo*", "la* OR m*",
		"la* OR mo*", "la mo", "la moo", "la moon", "moon la", "night", "nigh*", "n*",
		"ÉLAN", "élan*", "elan", "ám*", "ámo", "東", "東京", "夜 la", "11", "1*", "help",
		"help!", "la-la", "title:la*", "artist:mo* album:la", "la* -mo*", "b", "zzq*", "la",
		"la* mo*", "mo* la* night", "l*", "la*", "lan*", "la*", "l*", "m*", "t*", "a*",
		"n* OR l*", "y*", "z*", "q*", "t~l", "a~t", "t~l OR a~m", "t~lo", "title~e",
		"artist~z", "a~é", "t~1", "t~la", "t~lan", "t~lant", "t~la OR t~mo", "a~oo",
		"t~ht", "t~9l", "t~l-l", "a", "x", "t", "l la", "a~the OR t", "NOT l",
	};
	struct coll_eval_cache *kept = coll_eval_cache_new();
	/* as the search bar's after an idle moment: one-letter tables kept,
	 * so single letters take their matches from them */
	struct coll_eval_cache *prepared = coll_eval_cache_new();
	while (coll_eval_cache_prepare_step(prepared, idx))
		;
	size_t found = 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		struct u32vec none = keystroke(idx, NULL, keys[i], true);
		struct coll_eval_cache *fresh = coll_eval_cache_new();
		struct u32vec f = keystroke(idx, fresh, keys[i], false);
		coll_eval_cache_free(fresh);
		struct u32vec k = keystroke(idx, kept, keys[i], false);
		struct u32vec p = keystroke(idx, prepared, keys[i], false);
		CHECK_MSG(f.n == none.n && (f.n == 0 || memcmp(f.v, none.v, f.n * sizeof *f.v) == 0),
			  "'%s' with a fresh cache: %zu results, %zu without", keys[i], f.n, none.n);
		CHECK_MSG(k.n == none.n && (k.n == 0 || memcmp(k.v, none.v, k.n * sizeof *k.v) == 0),
			  "'%s' with the kept cache: %zu results, %zu without", keys[i], k.n, none.n);
		CHECK_MSG(p.n == none.n && (p.n == 0 || memcmp(p.v, none.v, p.n * sizeof *p.v) == 0),
			  "'%s' with the prepared cache: %zu results, %zu without", keys[i], p.n,
			  none.n);
		found += none.n > 0;
		u32vec_free(&none);
		u32vec_free(&f);
		u32vec_free(&k);
		u32vec_free(&p);
	}
	CHECK(found >= 46); /* whole words not in the vocabulary ("lan", "b") find nothing */
	coll_eval_cache_free(prepared);
	coll_eval_cache_free(kept);
	mlib_index_free(idx);
}

/* The interface's frame trace asks an evaluation for its steps' times
 * (coll_eval_ctx.timing): a search of a set adds the time it listed the
 * set in library order and the time it ranked, each search to the last,
 * and nothing is timed without it. */
TEST(a_timed_search_adds_its_listing_and_ranking_times)
{
	struct mlib_index *idx = library(6000);
	struct coll_eval_cache *cache = coll_eval_cache_new();
	struct coll_eval_timing tm = {0, 0};
	struct crate_err err;
	const char *text = "la";
	struct coll_node *q = coll_parse(text, strlen(text), NULL, &err);
	REQUIRE(q != NULL);
	struct coll_eval_ctx ctx = {.index = idx, .now = NOW, .cache = cache, .want_ranks = true,
				    .timing = &tm};
	double list = 0, rank = 0;
	for (int round = 0; round < 3; round++) {
		if (round == 2)
			ctx.timing = NULL;
		struct coll_search s;
		coll_search_prepare(&ctx, q, text, 0, &s);
		struct coll_result r = {0};
		CHECK(coll_search_eval(&ctx, &s, &r, &err) == 0);
		CHECK(s.rank && r.ids.n > 100 && r.ordered);
		if (round < 2) {
			CHECK_MSG(tm.list_ms > list && tm.rank_ms > rank,
				  "round %d: listing %.6f ms, ranking %.6f ms", round, tm.list_ms,
				  tm.rank_ms);
		} else {
			CHECK(tm.list_ms == list && tm.rank_ms == rank);
		}
		list = tm.list_ms;
		rank = tm.rank_ms;
		coll_result_free(&r);
		coll_search_free(&s);
	}
	coll_node_unref(q);
	coll_eval_cache_free(cache);
	mlib_index_free(idx);
}
