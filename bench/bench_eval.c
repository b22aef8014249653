/* Micro-benchmark of the in-memory index and the evaluator.
 *
 * Builds a synthetic library (deterministic: Zipf-ish artists, albums of
 * 8-15 tracks, years 1950-2026, genres, some accented / CJK / Cyrillic
 * names) through the index builder, then times each query of the mix and
 * prints one JSON line per measurement:
 *   {"name":...,"median_ms":...,"min_ms":...,"max_ms":...,"n":TRACKS,"results":K}
 * Then search ranking (issue 19): a query of about a quarter of the library
 * searched, ranked and its first screen formatted, as the search bar does
 * per keystroke (with what earlier keystrokes kept, and with every word
 * new); and spelling-correction lookups over 650,000 distinct titles.
 * Then the browser's library groups (medialib/index_groups.h) by two
 * levels, artist > album and genre > album (--only groups: just those;
 * --only "groups LEVELS": by those levels).
 * Usage: bench_eval [--tracks N] [--runs R] [--only QUERY] [--probe QUERY]  */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "app/app_typo.h"
#include "app/app_view.h"
#include "base/err.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/node.h"
#include "coll/parse.h"
#include "coll/rank.h"
#include "coll/search.h"
#include "coll/typo.h"
#include "medialib/index.h"
#include "medialib/index_groups.h"
#include "bench_common.h"

#define NOW 1750000000

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static double rng_unit(void)
{
	return (double)(rng() >> 11) / 9007199254740992.0;
}

static size_t rng_below(size_t n)
{
	return (size_t)(rng() % n);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of this process: robust when other processes share the
 * machine, and it counts the helper thread ranking starts for a new word
 * (nothing else runs beside the timed work). */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- vocabulary ---- */

#define NWORDS 6000
static char *words[NWORDS];

static const char *const syllables[] = {
	"la", "ve", "mo", "ri", "ta", "ko", "su", "ne", "da", "mi", "ro", "sa", "ki", "lu", "pe",
	"to", "na", "el", "an", "or", "in", "us", "ar", "en", "bo", "che", "sto", "gra", "fin",
	"bel", "dor", "mar", "sol", "tur", "wen", "zy", "qua", "ph", "th", "str",
};
static const char *const special[] = {
	"love", "you", "night", "heart", "Björk", "Straße", "Café", "Ñandú", "Żółw", "Øresund",
	"東京", "夜明け", "音楽", "Москва", "Любовь", "Ночь", "Sigur", "Rós", "naïve", "Mötley",
	"(Morning", "mix)", "Remix", "Live", "Part", "II", "feat.", "&", "don't", "rock'n'roll",
};

static void make_words(void)
{
	size_t ns = sizeof special / sizeof special[0];
	for (size_t i = 0; i < NWORDS; i++) {
		if (i < ns) {
			words[i] = xstrdup(special[i]);
			continue;
		}
		char buf[32] = "";
		size_t k = 2 + rng_below(3);
		for (size_t j = 0; j < k; j++)
			strcat(buf, syllables[rng_below(sizeof syllables / sizeof syllables[0])]);
		if (rng_below(3) == 0)
			buf[0] = (char)(buf[0] - 32); /* capitalised */
		words[i] = xstrdup(buf);
	}
}

/* Zipf-ish word choice: common words are much more frequent. */
static const char *word(void)
{
	return words[(size_t)(NWORDS * pow(rng_unit(), 2.2))];
}

static void phrase(char *buf, size_t size, size_t nwords)
{
	buf[0] = '\0';
	for (size_t i = 0; i < nwords; i++) {
		if (i)
			strncat(buf, " ", size - strlen(buf) - 1);
		strncat(buf, word(), size - strlen(buf) - 1);
	}
}

static const char *const genres[] = {
	"Rock", "Pop", "Jazz", "Classical", "Electronic", "Hip-Hop", "Metal", "Folk", "Blues",
	"Reggae", "Soul", "Funk", "Country", "Punk", "Ambient", "Techno", "House", "Trance",
	"Indie", "Alternative", "R&B", "Disco", "Latin", "World", "Soundtrack", "Chanson",
	"J-Pop", "K-Pop", "Schlager", "Gospel",
};
#define NGENRES (sizeof genres / sizeof genres[0])

/* ---- the library ---- */

#define NARTISTS 40000
static char *artists[NARTISTS];

static void add(struct mlib_index *idx, uint32_t id, const char *prop, const char *v)
{
	mlib_index_add_str(idx, id, prop, v, strlen(v));
}

static double finish_ms;

static struct mlib_index *build_library(uint32_t tracks)
{
	for (size_t a = 0; a < NARTISTS; a++) {
		char buf[128];
		if (a % 7 == 0)
			snprintf(buf, sizeof buf, "The %s %s", word(), word());
		else
			phrase(buf, sizeof buf, 1 + rng_below(2));
		if (a == 1)
			snprintf(buf, sizeof buf, "Björk");
		artists[a] = xstrdup(buf);
	}
	struct mlib_index *idx = mlib_index_new();
	uint32_t id = 1;
	while (id <= tracks) {
		size_t a = (size_t)(NARTISTS * pow(rng_unit(), 3.0)); /* few artists, many albums */
		char album[128], title[160], url[512];
		phrase(album, sizeof album, 1 + rng_below(3));
		int year = 1950 + (int)rng_below(77);
		const char *genre = genres[(size_t)(NGENRES * pow(rng_unit(), 1.7))];
		int ntracks = 8 + (int)rng_below(8);
		bool various = rng_below(20) == 0;
		for (int t = 1; t <= ntracks && id <= tracks; t++, id++) {
			mlib_index_add_media(idx, id);
			const char *artist = various ? artists[rng_below(NARTISTS)] : artists[a];
			add(idx, id, "artist", artist);
			if (various)
				add(idx, id, "albumartist", "Various Artists");
			add(idx, id, "album", album);
			phrase(title, sizeof title, 1 + rng_below(4));
			add(idx, id, "title", title);
			add(idx, id, "genre", genre);
			if (rng_below(50) == 0) /* a few multi-genre tracks */
				add(idx, id, "genre", genres[rng_below(NGENRES)]);
			mlib_index_set_int(idx, id, "year", year);
			mlib_index_set_int(idx, id, "tracknr", t);
			mlib_index_set_int(idx, id, "duration", 60000 + (int64_t)rng_below(480000));
			mlib_index_set_int(idx, id, "added", NOW - (int64_t)rng_below(5 * 365 * 86400));
			if (rng_below(3) == 0)
				mlib_index_set_int(idx, id, "timesplayed", (int64_t)rng_below(200));
			snprintf(url, sizeof url, "file:///music/%s/%s/%02d %s.flac", artist, album, t, title);
			add(idx, id, "url", url);
		}
	}
	double f0 = cpu_ms();
	mlib_index_finish(idx);
	finish_ms = cpu_ms() - f0;
	return idx;
}

/* ---- queries ---- */

static struct coll_node *F(enum coll_type t, const char *field, const char *value)
{
	return coll_filter_new(t, field, value, NULL);
}

static struct coll_node *op(enum coll_type t, struct coll_node *a, struct coll_node *b)
{
	struct coll_node *n = coll_node_new(t);
	coll_node_add_operand(n, a);
	coll_node_unref(a);
	if (b) {
		coll_node_add_operand(n, b);
		coll_node_unref(b);
	}
	return n;
}

static struct coll_node *word_search(const char *w)
{
	return op(COLL_UNION, op(COLL_UNION, F(COLL_TOKEN, "artist", w), F(COLL_TOKEN, "album", w)),
		  F(COLL_TOKEN, "title", w));
}

static struct coll_node *top(const char *field, const char *length, struct coll_node *operand)
{
	struct coll_node *o = coll_node_new(COLL_ORDER);
	coll_attr_set(o, "field", field);
	coll_node_add_operand(o, operand);
	coll_node_unref(operand);
	struct coll_node *l = coll_node_new(COLL_LIMIT);
	coll_attr_set(l, "length", length);
	coll_node_add_operand(l, o);
	coll_node_unref(o);
	return l;
}

struct query {
	const char *name;
	struct coll_node *node;
};

static size_t make_queries(struct query *q)
{
	size_t n = 0;
	const char *popular = artists[3];
	q[n++] = (struct query){ "exact_artist", F(COLL_EQUALS, "artist", popular) };
	q[n++] = (struct query){ "exact_title", F(COLL_EQUALS, "title", "love you") };
	q[n++] = (struct query){ "title_contains", F(COLL_MATCH, "title", "*love*") };
	q[n++] = (struct query){ "title_contains_rare", F(COLL_MATCH, "title", "*moskva*") };
	q[n++] = (struct query){ "title_wildcard", F(COLL_MATCH, "title", "*l?ve*you*") };
	q[n++] = (struct query){ "title_prefix", F(COLL_MATCH, "title", "la*") };
	q[n++] = (struct query){ "word_search", word_search("night") };
	q[n++] = (struct query){ "word_prefix_search", word_search("nig*") };
	q[n++] = (struct query){ "year_range", op(COLL_INTERSECTION, F(COLL_GREATEREQ, "year", "1990"),
						  F(COLL_SMALLEREQ, "year", "1999")) };
	q[n++] = (struct query){ "genre_and_year", op(COLL_INTERSECTION, F(COLL_EQUALS, "genre", "rock"),
						      F(COLL_GREATER, "year", "2000")) };
	q[n++] = (struct query){ "negation", op(COLL_COMPLEMENT, F(COLL_EQUALS, "genre", "rock"), NULL) };
	q[n++] = (struct query){ "or_artists",
				 op(COLL_UNION,
				    op(COLL_UNION, F(COLL_EQUALS, "artist", artists[1]),
				       F(COLL_EQUALS, "artist", artists[2])),
				    F(COLL_EQUALS, "artist", artists[5])) };
	q[n++] = (struct query){ "added_last_week", F(COLL_SMALLER, "added", "7d") };
	q[n++] = (struct query){ "order_limit_top20", top("-timesplayed", "20", coll_node_new(COLL_UNIVERSE)) };
	q[n++] = (struct query){ "order_title_limit_top20",
				 top("title", "20", F(COLL_GREATER, "year", "1960")) };
	struct coll_node *nested = op(
		COLL_INTERSECTION,
		op(COLL_UNION,
		   op(COLL_INTERSECTION, F(COLL_TOKEN, "title", "love"),
		      op(COLL_COMPLEMENT, F(COLL_EQUALS, "genre", "pop"), NULL)),
		   op(COLL_INTERSECTION, F(COLL_GREATEREQ, "year", "1970"),
		      op(COLL_UNION, F(COLL_MATCH, "artist", "the *"), F(COLL_EQUALS, "genre", "jazz")))),
		F(COLL_HAS, "timesplayed", NULL));
	q[n++] = (struct query){ "nested_5_levels", nested };
	q[n++] = (struct query){ "union_two_large", op(COLL_UNION, F(COLL_GREATER, "year", "1980"),
						       F(COLL_SMALLER, "duration", "300000")) };
	q[n++] = (struct query){ "intersection_two_large",
				 op(COLL_INTERSECTION, F(COLL_GREATER, "year", "1980"),
				    F(COLL_SMALLER, "duration", "300000")) };
	q[n++] = (struct query){ "complement_large", op(COLL_COMPLEMENT, F(COLL_GREATER, "year", "1980"), NULL) };
	q[n++] = (struct query){ "universe", coll_node_new(COLL_UNIVERSE) };
	return n;
}

/* About a quarter of the generated library, matched on artist, album and
 * title words, so ranking has every kind of match to sort. */
#define RANK_QUERY "la* OR mo*"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static long rss_bytes(void)
{
	long kb = bench_status_kb("VmRSS:");
	return kb < 0 ? -1 : kb * 1024;
}

/* ---- ranking and corrections (issue 19) ---- */

static int cmp_double(const void *a, const void *b);

/* Wall-clock figures, with the process's CPU time beside them (the machine
 * may be shared: CPU time shows the work, wall time what a user waits). */
static void report(const char *name, double *ms, double *cpu, int runs, uint32_t tracks,
		   size_t results)
{
	qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
	qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
	int p99 = (int)((runs - 1) * 0.99 + 0.5);
	printf("{\"name\":\"%s\",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,"
	       "\"p99_ms\":%.3f,\"cpu_median_ms\":%.3f,\"cpu_p99_ms\":%.3f,\"n\":%u,"
	       "\"results\":%zu}\n",
	       name, ms[runs / 2], ms[0], ms[runs - 1], ms[p99], cpu[runs / 2], cpu[p99], tracks,
	       results);
	printf("{\"name\":\"%s_p99\",\"value\":%.3f,\"unit\":\"ms\"}\n", name, ms[p99]);
	fflush(stdout);
}

/* One keystroke of the search bar: prepare (forgiveness), evaluate with the
 * bar's cache, rank, format the first screen (40 rows of three fields). */
static size_t search_keystroke(const struct coll_eval_ctx *ctx, const char *text, bool rank)
{
	struct bench_search b;
	bench_search_top_screen(ctx, text, rank ? 0 : COLL_SEARCH_NO_RANK, &b);
	size_t n = b.result.ids.n + (b.bytes == (size_t)-1);
	bench_search_free(&b);
	return n;
}

static void bench_rank(const struct mlib_index *idx, uint32_t tracks, const char *text,
		       const char *size)
{
	char name[4][64];
	snprintf(name[0], sizeof name[0], "search_%s_library_order_top_screen", size);
	snprintf(name[1], sizeof name[1], "search_%s_ranked_top_screen", size);
	snprintf(name[2], sizeof name[2], "rank_%s_sort_only", size);
	snprintf(name[3], sizeof name[3], "search_%s_ranked_new_words_top_screen", size);
	enum { RUNS = 31 };
	double ms[RUNS], cpu[RUNS];
	struct coll_eval_cache *cache = coll_eval_cache_new();
	struct coll_eval_ctx ctx = {.index = idx, .now = NOW, .cache = cache};
	size_t results = 0;
	/* library order (before ranking) and ranked, both with a warm cache */
	for (int rank = 0; rank < 2; rank++) {
		for (int r = -1; r < RUNS; r++) {
			double a = now_ms(), ca = cpu_ms();
			results = search_keystroke(&ctx, text, rank);
			if (r >= 0) {
				ms[r] = now_ms() - a;
				cpu[r] = cpu_ms() - ca;
			}
		}
		report(name[rank], ms, cpu, RUNS, tracks, results);
	}
	/* the same keystroke when every word in it is new: nothing kept from
	 * earlier keystrokes (a fresh cache per run) */
	for (int r = -1; r < RUNS; r++) {
		struct coll_eval_cache *fresh = coll_eval_cache_new();
		struct coll_eval_ctx fctx = {.index = idx, .now = NOW, .cache = fresh};
		double a = now_ms(), ca = cpu_ms();
		results = search_keystroke(&fctx, text, true);
		if (r >= 0) {
			ms[r] = now_ms() - a;
			cpu[r] = cpu_ms() - ca;
		}
		coll_eval_cache_free(fresh);
	}
	report(name[3], ms, cpu, RUNS, tracks, results);
	/* the ranking step alone */
	struct crate_err err;
	struct coll_node *q = coll_parse(text, strlen(text), NULL, &err);
	struct coll_search s;
	coll_search_prepare(&ctx, q, text, 0, &s);
	struct coll_result base = {0};
	coll_eval(&ctx, s.node, &base, &err);
	uint32_t *ids = xmalloc((base.ids.n + 1) * sizeof *ids);
	for (int r = -1; r < RUNS; r++) {
		memcpy(ids, base.ids.v, base.ids.n * sizeof *ids);
		double a = now_ms(), ca = cpu_ms();
		coll_rank_sort(idx, &s.terms, NOW, NULL, ids, NULL, base.ids.n);
		if (r >= 0) {
			ms[r] = now_ms() - a;
			cpu[r] = cpu_ms() - ca;
		}
	}
	report(name[2], ms, cpu, RUNS, tracks, base.ids.n);
	/* evaluated and ranked with every result's library rank, as the
	 * browser groups them: looked up afterwards, or carried along */
	for (int carried = 0; carried < 2; carried++) {
		char what[96];
		snprintf(what, sizeof what, "search_%s_ranked_library_ranks_%s", size,
			 carried ? "carried" : "looked_up");
		struct coll_eval_ctx rctx = ctx;
		rctx.want_ranks = carried;
		for (int r = -1; r < RUNS; r++) {
			struct coll_result got = {0};
			double a = now_ms(), ca = cpu_ms();
			coll_search_eval(&rctx, &s, &got, &err);
			if (!carried) {
				u32vec_reserve(&got.ranks, got.ids.n + 1);
				mlib_index_ranks(idx, got.ids.v, got.ids.n, false, got.ranks.v);
				got.ranks.n = got.ids.n;
			}
			if (r >= 0) {
				ms[r] = now_ms() - a;
				cpu[r] = cpu_ms() - ca;
			}
			results = got.ranks.n;
			coll_result_free(&got);
		}
		report(what, ms, cpu, RUNS, tracks, results);
	}
	free(ids);
	coll_result_free(&base);
	coll_search_free(&s);
	coll_node_unref(q);
	coll_eval_cache_free(cache);
}

/* 650,000 distinct titles of 1-4 words from a vocabulary of 150,000 words
 * (syllable compounds), then lookups of misspelt words (1 and 2 edits, and
 * a word with no correction). */
/* Grouping the whole library as the browser does on a new index or new
 * levels: CPU time, best and median of runs. */
static void bench_groups(const struct mlib_index *idx, uint32_t tracks, int runs, const char *text)
{
	double *cpu = xmalloc((size_t)runs * sizeof *cpu);
	uint32_t ng0 = 0, ng1 = 0;
#ifdef MLIB_GROUP_LEVELS
	struct mlib_levels lv;
	struct crate_err err;
	if (mlib_levels_parse(text, &lv, &err) != 0) {
		fprintf(stderr, "%s: %s\n", text, err.msg);
		exit(1);
	}
#else
	if (strcmp(text, "artist album") != 0)
		return; /* a build from before the levels: only its fixed pair */
#endif
	for (int r = 0; r < runs; r++) {
		double ca = cpu_ms();
#ifdef MLIB_GROUP_LEVELS
		struct mlib_groups *g = mlib_index_groups(idx, &lv);
		ng0 = g->ngroups[0];
		ng1 = g->ngroups[1];
#else
		struct mlib_groups *g = mlib_index_groups(idx);
		ng0 = g->nartists;
		ng1 = g->nalbums;
#endif
		cpu[r] = cpu_ms() - ca;
		mlib_groups_free(g);
	}
	qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
	printf("{\"name\":\"groups %s\",\"cpu_min_ms\":%.3f,\"cpu_median_ms\":%.3f,\"n\":%u,"
	       "\"groups\":[%u,%u]}\n", text, cpu[0], cpu[runs / 2], tracks, ng0, ng1);
	fflush(stdout);
	free(cpu);
}

/* The search bar's first keystroke needing a correction on a fresh cache,
 * typed while the correction words are still being built in the
 * background (an index just loaded or replaced): what the interface does
 * (app_eval_ctx_cached starts the build, as the search bar's first view
 * does), then the search. Before the build ran off the keystroke path,
 * the keystroke waited for the build. */
static void bench_typo_first_keystroke(struct mlib_index *idx, uint32_t tracks)
{
	enum { RUNS = 5 };
	const char *text = "nigh";
	struct app *app = xcalloc(1, sizeof *app);
	app->index = idx;
	double ms[RUNS], cpu[RUNS];
	size_t results = 0;
	for (int r = 0; r < RUNS; r++) {
		app->index_serial++; /* as a reload does: nothing built for this index */
		struct app_eval_cache c = {0};
		double a = now_ms(), ca = cpu_ms();
		struct coll_eval_ctx ctx;
		app_eval_ctx_cached(app, &c, &ctx);
		ctx.now = NOW;
		results = search_keystroke(&ctx, text, true);
		ms[r] = now_ms() - a;
		cpu[r] = cpu_ms() - ca;
		app_typo_stop(app);
		app_eval_cache_free(&c);
	}
	qsort(ms, RUNS, sizeof *ms, cmp_double);
	qsort(cpu, RUNS, sizeof *cpu, cmp_double);
	printf("{\"name\":\"search_typo_first_keystroke\",\"median_ms\":%.3f,\"min_ms\":%.3f,"
	       "\"max_ms\":%.3f,\"cpu_median_ms\":%.3f,\"n\":%u,\"results\":%zu,\"query\":\"%s\"}\n",
	       ms[RUNS / 2], ms[0], ms[RUNS - 1], cpu[RUNS / 2], tracks, results, text);
	fflush(stdout);
	app->index = NULL;
	free(app);
}

static void bench_typo(void)
{
	enum { TITLES = 725000, VOCAB = 150000, RUNS = 21 }; /* ~650,000 distinct */
	char **vocab = xmalloc(VOCAB * sizeof *vocab);
	for (size_t i = 0; i < VOCAB; i++) {
		char buf[40] = "";
		size_t k = 2 + rng_below(3);
		for (size_t j = 0; j < k; j++)
			strcat(buf, syllables[rng_below(sizeof syllables / sizeof syllables[0])]);
		vocab[i] = xstrdup(buf);
	}
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= TITLES; id++) {
		char title[200] = "";
		size_t k = 1 + rng_below(4);
		for (size_t j = 0; j < k; j++) {
			if (j)
				strcat(title, " ");
			strcat(title, vocab[(size_t)(VOCAB * pow(rng_unit(), 1.5))]);
		}
		char num[16];
		snprintf(num, sizeof num, " %u", id % 97); /* keep titles distinct enough */
		if (id % 3 == 0)
			strcat(title, num);
		mlib_index_add_media(idx, id);
		mlib_index_add_str(idx, id, "title", title, strlen(title));
	}
	mlib_index_finish(idx);
	int pt = mlib_index_prop(idx, "title");
	double a = now_ms();
	struct coll_typo_dict *d = coll_typo_dict_build(idx);
	double build = now_ms() - a;
	printf("{\"name\":\"typo_dict_build_650k_titles\",\"value\":%.1f,\"unit\":\"ms\","
	       "\"titles\":%u,\"words\":%zu}\n",
	       build, mlib_index_dict_size(idx, pt), coll_typo_dict_size(d));
	/* misspell common and rare vocabulary words */
	char typos[8][48];
	for (int w = 0; w < 8; w++) {
		const char *v = vocab[(size_t)(VOCAB * pow(rng_unit(), 1.5))];
		snprintf(typos[w], sizeof typos[w], "%s", v);
		size_t len = strlen(typos[w]);
		if (w % 2 == 0 && len > 3) { /* swap two neighbours */
			char t = typos[w][1];
			typos[w][1] = typos[w][2];
			typos[w][2] = t;
		} else if (len > 1) { /* drop one letter, add another */
			memmove(typos[w] + 1, typos[w] + 2, len - 1);
			strcat(typos[w], "q");
		}
	}
	double ms[RUNS], cpu[RUNS];
	size_t found = 0;
	for (int r = -1; r < RUNS; r++) {
		double t0 = now_ms(), c0 = cpu_ms();
		found = 0;
		for (int w = 0; w < 8; w++) {
			const char *out[3];
			found += coll_typo_lookup(d, typos[w], out, 3);
		}
		if (r >= 0) {
			ms[r] = (now_ms() - t0) / 8;
			cpu[r] = (cpu_ms() - c0) / 8;
		}
	}
	report("typo_lookup_650k_titles", ms, cpu, RUNS, mlib_index_dict_size(idx, pt), found);
	coll_typo_dict_free(d);
	mlib_index_free(idx);
	for (size_t i = 0; i < VOCAB; i++)
		free(vocab[i]);
	free(vocab);
}

int main(int argc, char **argv)
{
	uint32_t tracks = 1000000;
	int runs = 9;
	const char *only = NULL, *probe = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--tracks") == 0 && i + 1 < argc)
			tracks = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--probe") == 0 && i + 1 < argc)
			probe = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--tracks N] [--runs R] [--only QUERY]\n", argv[0]);
			return 1;
		}
	}
	if (runs < 1)
		runs = 1;
	make_words();
	long rss0 = rss_bytes();
	double t0 = now_ms();
	struct mlib_index *idx = build_library(tracks);
	double t1 = now_ms();
	long rss1 = rss_bytes();
	printf("{\"name\":\"index_build_with_generator\",\"ms\":%.1f,\"finish_cpu_ms\":%.1f,\"n\":%u}\n",
	       t1 - t0, finish_ms, tracks);
	printf("{\"name\":\"index_memory\",\"bytes\":%zu,\"rss_growth_bytes\":%ld,\"n\":%u}\n",
	       mlib_index_memory(idx), rss1 - rss0, tracks);

	if (probe) { /* how many results a query has, to pick the ranking query */
		struct coll_eval_ctx pctx = {.index = idx, .now = NOW};
		printf("%s: %zu results\n", probe, search_keystroke(&pctx, probe, false));
		return 0;
	}
	struct query q[32];
	size_t nq = make_queries(q);
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	double *ms = xmalloc((size_t)runs * sizeof *ms);
	double *cpu = xmalloc((size_t)runs * sizeof *cpu);
	for (size_t i = 0; i < nq; i++) {
		size_t results = 0;
		if (only && strcmp(only, q[i].name) != 0)
			continue;
		for (int r = -1; r < runs; r++) { /* run -1 warms caches (and lazy ranks) */
			struct coll_result res;
			struct crate_err err;
			double a = now_ms(), ca = cpu_ms();
			if (coll_eval(&ctx, q[i].node, &res, &err) < 0) {
				fprintf(stderr, "%s: %s\n", q[i].name, err.msg);
				return 1;
			}
			double b = now_ms(), cb = cpu_ms();
			results = res.ids.n;
			coll_result_free(&res);
			if (r >= 0) {
				ms[r] = b - a;
				cpu[r] = cb - ca;
			}
		}
		qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
		qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
		printf("{\"name\":\"%s\",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,"
		       "\"cpu_median_ms\":%.3f,\"n\":%u,\"results\":%zu}\n",
		       q[i].name, ms[runs / 2], ms[0], ms[runs - 1], cpu[runs / 2], tracks, results);
		fflush(stdout);
	}
	/* coll_contains on a filter tree: microseconds, not a full evaluation. */
	{
		struct coll_node *tree = q[15].node;
		double a = now_ms();
		size_t hits = 0;
		for (uint32_t id = 1; id <= 10000; id++) {
			bool in;
			struct crate_err err;
			if (coll_contains(&ctx, tree, id * 97 % tracks + 1, &in, &err) == 0 && in)
				hits++;
		}
		double b = now_ms();
		printf("{\"name\":\"contains_nested_per_call\",\"median_ms\":%.5f,\"min_ms\":%.5f,"
		       "\"max_ms\":%.5f,\"n\":%u,\"results\":%zu}\n",
		       (b - a) / 10000, (b - a) / 10000, (b - a) / 10000, tracks, hits);
	}
	free(ms);
	free(cpu);
	if (!only || strcmp(only, "rank") == 0) {
		bench_rank(idx, tracks, RANK_QUERY, "250k");
		bench_rank(idx, tracks, "night", "35k");
		bench_rank(idx, tracks, "t~l", "one_letter");
	}
	if (!only || strcmp(only, "typo") == 0) {
		bench_typo();
		bench_typo_first_keystroke(idx, tracks);
	}
	if (!only || strcmp(only, "groups") == 0) {
		bench_groups(idx, tracks, runs, "artist album");
		bench_groups(idx, tracks, runs, "genre album");
	} else if (strncmp(only, "groups ", 7) == 0) { /* --only "groups year album" */
		bench_groups(idx, tracks, runs, only + 7);
	}
	for (size_t i = 0; i < nq; i++)
		coll_node_unref(q[i].node);
	mlib_index_free(idx);
	for (size_t i = 0; i < NWORDS; i++)
		free(words[i]);
	for (size_t a = 0; a < NARTISTS; a++)
		free(artists[a]);
	return 0;
}
