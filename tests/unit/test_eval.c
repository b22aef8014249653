/* coll/eval: every operator on a small hand-made library whose results are
 * known exactly (spec/collections.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/eval.h"
#include "coll/eval_filter.h"
#include "coll/parse.h"
#include "coll/value.h"
#include "harness.h"
#include "medialib/index.h"

#define NOW 1720000000 /* July 2024 */
#define DAY 86400

static int64_t local_time(int y, int mo, int d, int h)
{
	struct tm tm = { 0 };
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

static void add(struct mlib_index *idx, uint32_t id, const char *prop, const char *v)
{
	mlib_index_add_str(idx, id, prop, v, strlen(v));
}

/* id | artist     | album          | title                 | year | tracknr | genre            | added
 *  1 | Björk      | Homogenic      | Jóga                  | 1997 | 1       | Electronic       | now-2d
 *  2 | Björk      | Homogenic      | Bachelorette          | 1997 | 2       | Electronic       | now-10d
 *  3 | Kraftwerk  | Computer World | Track 9               | 1981 | 9       | Electronic, Pop  | now-100d
 *  4 | Kraftwerk  | Computer World | Track 10              | 1981 | 10      | -                | -
 *  5 | Die Straße | Weg            | Sunrise (Morning mix) | 2005 | 3       | Trance           | now-1d
 *  6 | -          | Singles        | ?naïve                | -    | -       | Pop              | 2024-05-01 12:00
 *  7 | The Beatles| Abbey Road     | Come Together         | 1969 | 1       | Rock             | -
 *  8 | 坂本龍一   | 音楽図鑑       | 羽の林で              | 1984 | 4       | Electronic       | -
 * Library order (artist missing first, then natural folded): 6 1 2 5 3 4 7 8. */
static struct mlib_index *library(void)
{
	struct mlib_index *idx = mlib_index_new();
	static const struct {
		const char *artist, *album, *title, *year;
		int track;
		const char *genre;
	} rows[] = {
		{ "Björk", "Homogenic", "Jóga", "1997", 1, "Electronic" },
		{ "Björk", "Homogenic", "Bachelorette", "1997", 2, "Electronic" },
		{ "Kraftwerk", "Computer World", "Track 9", "1981", 9, "Electronic" },
		{ "Kraftwerk", "Computer World", "Track 10", "1981", 10, NULL },
		{ "Die Straße", "Weg", "Sunrise (Morning mix)", "2005", 3, "Trance" },
		{ NULL, "Singles", "?naïve", NULL, 0, "Pop" },
		{ "The Beatles", "Abbey Road", "Come Together", "1969", 1, "Rock" },
		{ "坂本龍一", "音楽図鑑", "羽の林で", "1984", 4, "Electronic" },
	};
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t id = i + 1;
		mlib_index_add_media(idx, id);
		if (rows[i].artist)
			add(idx, id, "artist", rows[i].artist);
		add(idx, id, "album", rows[i].album);
		add(idx, id, "title", rows[i].title);
		if (rows[i].year)
			add(idx, id, "year", rows[i].year);
		if (rows[i].track)
			mlib_index_set_int(idx, id, "tracknr", rows[i].track);
		if (rows[i].genre)
			add(idx, id, "genre", rows[i].genre);
		char url[64];
		snprintf(url, sizeof url, "file:///m/%u.flac", id);
		add(idx, id, "url", url);
	}
	add(idx, 3, "genre", "Pop"); /* multi-valued */
	mlib_index_set_int(idx, 1, "added", NOW - 2 * DAY);
	mlib_index_set_int(idx, 2, "added", NOW - 10 * DAY);
	mlib_index_set_int(idx, 3, "added", NOW - 100 * DAY);
	mlib_index_set_int(idx, 5, "added", NOW - 1 * DAY);
	mlib_index_set_int(idx, 6, "added", local_time(2024, 5, 1, 12));
	mlib_index_finish(idx);
	return idx;
}

static struct mlib_index *g_idx;

static const struct coll_node *resolver(void *ud, const char *ns, const char *name)
{
	struct coll_node **saved = ud; /* [0] = Collections/A, [1] = Collections/B */
	if (strcmp(ns, "Collections") != 0)
		return NULL;
	if (strcmp(name, "A") == 0)
		return saved[0];
	if (strcmp(name, "B") == 0)
		return saved[1];
	return NULL;
}

static struct coll_eval_ctx ctx_for(struct mlib_index *idx)
{
	struct coll_eval_ctx ctx = { .index = idx, .now = NOW };
	return ctx;
}

/* Evaluate n (consuming the caller's reference) and compare with the
 * expected ids, in order; n_exp < 0 means "evaluation must fail". */
static void expect_(const char *file, int line, struct coll_node *n, int ordered, int n_exp, ...)
{
	if (!g_idx)
		g_idx = library();
	struct coll_eval_ctx ctx = ctx_for(g_idx);
	struct coll_result r;
	struct crate_err err = { 0 };
	int rc = coll_eval(&ctx, n, &r, &err);
	coll_node_unref(n);
	if (n_exp < 0) {
		harness_check(rc < 0, file, line, "evaluation should fail");
		if (rc == 0)
			coll_result_free(&r);
		return;
	}
	if (!harness_check(rc == 0, file, line, "coll_eval failed: %s", err.msg))
		return;
	char got[256] = "", want[256] = "";
	for (size_t i = 0; i < r.ids.n; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%u ", r.ids.v[i]);
	va_list ap;
	va_start(ap, n_exp);
	for (int i = 0; i < n_exp; i++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "%d ", va_arg(ap, int));
	va_end(ap);
	harness_check(strcmp(got, want) == 0, file, line, "ids [%s] != expected [%s]", got, want);
	if (ordered >= 0)
		harness_check(r.ordered == (ordered == 1), file, line, "ordered is %d, expected %d",
			      r.ordered, ordered);
	coll_result_free(&r);
}
#define SET 0
#define LIST 1
#define EXPECT(n, ordered, ...) expect_(__FILE__, __LINE__, (n), (ordered), __VA_ARGS__)

static struct coll_node *F(enum coll_type t, const char *field, const char *value)
{
	return coll_filter_new(t, field, value, NULL);
}

/* Give n its operand (a filter's default universe operand is replaced). */
static struct coll_node *on(struct coll_node *filter, struct coll_node *operand)
{
	if (coll_type_is_filter(filter->type) && filter->noperands == 1)
		coll_node_set_operand(filter, 0, operand);
	else
		coll_node_add_operand(filter, operand);
	coll_node_unref(operand);
	return filter;
}

static struct coll_node *op2(enum coll_type t, struct coll_node *a, struct coll_node *b)
{
	struct coll_node *n = coll_node_new(t);
	if (a)
		on(n, a);
	if (b)
		on(n, b);
	return n;
}

static struct coll_node *list_of(int n, ...)
{
	struct coll_node *l = coll_node_new(COLL_IDLIST);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		u32vec_push(&l->idlist, (uint32_t)va_arg(ap, int));
	va_end(ap);
	return l;
}

static struct coll_node *attr(struct coll_node *n, const char *k, const char *v)
{
	coll_attr_set(n, k, v);
	return n;
}

static struct coll_node *order(const char *fields, struct coll_node *operand)
{
	struct coll_node *o = coll_node_new(COLL_ORDER);
	coll_attr_set(o, "field", fields);
	return operand ? on(o, operand) : o;
}

TEST(universe_in_library_order)
{
	EXPECT(coll_node_new(COLL_UNIVERSE), SET, 8, 6, 1, 2, 5, 3, 4, 7, 8);
}

TEST(equals_folds_case_and_accents)
{
	EXPECT(F(COLL_EQUALS, "artist", "bjork"), SET, 2, 1, 2);
	EXPECT(F(COLL_EQUALS, "artist", "BJÖRK"), SET, 2, 1, 2);
	EXPECT(F(COLL_EQUALS, "artist", "die strasse"), SET, 1, 5);
	EXPECT(F(COLL_EQUALS, "artist", "björ"), SET, 0);
	EXPECT(F(COLL_EQUALS, "artist", "坂本龍一"), SET, 1, 8);
}

TEST(collation_binary_is_exact)
{
	EXPECT(attr(F(COLL_EQUALS, "artist", "bjork"), "collation", "BINARY"), SET, 0);
	EXPECT(attr(F(COLL_EQUALS, "artist", "Björk"), "collation", "BINARY"), SET, 2, 1, 2);
	EXPECT(attr(F(COLL_MATCH, "title", "?na?ve"), "collation", "BINARY"), SET, 1, 6);
	EXPECT(attr(F(COLL_EQUALS, "artist", "x"), "collation", "bogus"), SET, -1);
}

TEST(missing_property_never_matches)
{
	/* 6 has no artist: notequal does not include it. */
	EXPECT(F(COLL_NOTEQUAL, "artist", "Björk"), SET, 5, 5, 3, 4, 7, 8);
	EXPECT(F(COLL_EQUALS, "nosuchprop", "x"), SET, 0);
	EXPECT(F(COLL_NOTEQUAL, "nosuchprop", "x"), SET, 0);
	EXPECT(F(COLL_HAS, "genre", NULL), SET, 7, 6, 1, 2, 5, 3, 7, 8);
	/* NOT +genre */
	EXPECT(op2(COLL_COMPLEMENT, F(COLL_HAS, "genre", NULL), NULL), SET, 1, 4);
}

TEST(multi_valued_any_value_matches)
{
	EXPECT(F(COLL_EQUALS, "genre", "pop"), SET, 2, 6, 3);
	/* notequal: has genre and none of its values equals */
	EXPECT(F(COLL_NOTEQUAL, "genre", "electronic"), SET, 3, 6, 5, 7);
}

TEST(match_glob)
{
	EXPECT(F(COLL_MATCH, "title", "track 9*"), SET, 1, 3);      /* '*' matches empty */
	EXPECT(F(COLL_MATCH, "title", "track ?"), SET, 1, 3);
	EXPECT(F(COLL_MATCH, "title", "track ??"), SET, 1, 4);
	EXPECT(F(COLL_MATCH, "title", "*TOGETHER"), SET, 1, 7);
	EXPECT(F(COLL_MATCH, "title", "*o*"), SET, 4, 1, 2, 5, 7);
}

TEST(match_wildcards_and_escapes)
{
	EXPECT(F(COLL_MATCH, "title", "?na?ve"), SET, 1, 6);          /* ? = one code point (ï) */
	EXPECT(F(COLL_MATCH, "title", "\\?naive"), SET, 1, 6);        /* \? literal */
	EXPECT(F(COLL_MATCH, "title", "\\?"), SET, 0);
	EXPECT(F(COLL_MATCH, "title", "*\\*"), SET, 0);               /* no literal star */
	EXPECT(F(COLL_MATCH, "title", "羽?林*"), SET, 1, 8);
	EXPECT(F(COLL_MATCH, "artist", "*"), SET, 7, 1, 2, 5, 3, 4, 7, 8);
	CHECK(coll_glob_match("a\\\\b", "a\\b", 3));
	CHECK(!coll_glob_match("a?", "a", 1));
	CHECK(coll_glob_match("*", "", 0));
	CHECK(coll_glob_match("a*b*c", "axxbyyc", 7));
	CHECK(!coll_glob_match("a*b*c", "axxbyy", 6));
}

TEST(token_words)
{
	EXPECT(F(COLL_TOKEN, "title", "morning"), SET, 1, 5);  /* split at '(' */
	EXPECT(F(COLL_TOKEN, "title", "MIX"), SET, 1, 5);
	EXPECT(F(COLL_TOKEN, "title", "morning mix"), SET, 1, 5);
	EXPECT(F(COLL_TOKEN, "title", "mix morning"), SET, 0);
	EXPECT(F(COLL_TOKEN, "title", "morn*"), SET, 1, 5);
	EXPECT(F(COLL_TOKEN, "title", "morn"), SET, 0);
	EXPECT(F(COLL_TOKEN, "title", "track"), SET, 2, 3, 4);
	EXPECT(F(COLL_TOKEN, "title", "naive"), SET, 1, 6);
	EXPECT(F(COLL_TOKEN, "artist", "strasse"), SET, 1, 5);
	CHECK(coll_token_match("b c", "a-b,c.d", 7));
	CHECK(!coll_token_match("b d", "a-b,c.d", 7));
	CHECK(coll_token_match("über*", "das überall", strlen("das überall")));
	CHECK(!coll_token_match("-", "a - b", 5));
}

TEST(natural_and_numeric_compare)
{
	/* "Track 9" < "Track 10": natural order */
	EXPECT(F(COLL_GREATER, "title", "Track 9"), SET, 2, 4, 8);
	EXPECT(F(COLL_SMALLER, "title", "track 10"), SET, 6, 6, 1, 2, 5, 3, 7);
	/* year stored as text compares numerically */
	EXPECT(F(COLL_GREATER, "year", "1990"), SET, 3, 1, 2, 5);
	EXPECT(F(COLL_SMALLEREQ, "year", "1981"), SET, 3, 3, 4, 7);
	EXPECT(F(COLL_GREATEREQ, "year", "1984.5"), SET, 3, 1, 2, 5);
	EXPECT(F(COLL_EQUALS, "year", "01997"), SET, 2, 1, 2);
}

TEST(integer_columns_work_with_every_filter)
{
	EXPECT(F(COLL_EQUALS, "tracknr", "1"), SET, 2, 1, 7);
	EXPECT(F(COLL_NOTEQUAL, "tracknr", "1"), SET, 5, 2, 5, 3, 4, 8);
	EXPECT(F(COLL_GREATER, "tracknr", "3"), SET, 3, 3, 4, 8);
	EXPECT(F(COLL_SMALLER, "tracknr", "-1"), SET, 0);
	EXPECT(F(COLL_MATCH, "tracknr", "1*"), SET, 3, 1, 4, 7);
	EXPECT(F(COLL_TOKEN, "tracknr", "10"), SET, 1, 4);
	EXPECT(F(COLL_EQUALS, "tracknr", "abc"), SET, 0);
	EXPECT(F(COLL_HAS, "tracknr", NULL), SET, 7, 1, 2, 5, 3, 4, 7, 8);
}

TEST(ages_and_dates)
{
	EXPECT(F(COLL_SMALLER, "added", "7d"), SET, 2, 1, 5);           /* less than 7 days ago */
	EXPECT(F(COLL_GREATER, "added", "7d"), SET, 3, 6, 2, 3);
	EXPECT(F(COLL_SMALLER, "added", "36h"), SET, 1, 5);
	EXPECT(F(COLL_EQUALS, "added", "2024-05-01"), SET, 1, 6);       /* that local day */
	EXPECT(F(COLL_SMALLER, "added", "2024-05-01"), SET, 1, 3);
	EXPECT(F(COLL_GREATEREQ, "added", "2024-05"), SET, 4, 6, 1, 2, 5);
	EXPECT(F(COLL_SMALLEREQ, "added", "2024-05"), SET, 2, 6, 3);    /* through May */
	EXPECT(F(COLL_GREATER, "added", "2023"), SET, 5, 6, 1, 2, 5, 3);
}

/* Ids of the items of idx that the query q finds, space-separated; "ERR"
 * when it does not parse or evaluate. */
static void ids_of_query(struct mlib_index *idx, const char *q, char *out, size_t size)
{
	struct crate_err err = { 0 };
	struct coll_node *n = coll_parse(q, strlen(q), NULL, &err);
	struct coll_eval_ctx ctx = ctx_for(idx);
	struct coll_result r;
	snprintf(out, size, "ERR");
	if (n && coll_eval(&ctx, n, &r, &err) == 0) {
		out[0] = '\0';
		for (size_t i = 0; i < r.ids.n; i++)
			snprintf(out + strlen(out), size - strlen(out), "%s%u", i ? " " : "", r.ids.v[i]);
		coll_result_free(&r);
	}
	coll_node_unref(n);
}

/* duration holds milliseconds; a length typed with a unit or as a clock
 * compares as one (a bare number stays milliseconds). */
TEST(durations_compare_as_lengths)
{
	struct mlib_index *idx = mlib_index_new();
	static const int64_t ms[] = { 90000, 210000, 400000 }; /* 1:30, 3:30, 6:40 */
	for (uint32_t id = 1; id <= 4; id++) {
		mlib_index_add_media(idx, id);
		char url[32];
		snprintf(url, sizeof url, "file:///m/%u.flac", id);
		add(idx, id, "url", url);
		if (id <= 3)
			mlib_index_set_int(idx, id, "duration", ms[id - 1]);
	}
	mlib_index_finish(idx);
	static const struct {
		const char *q, *ids;
	} cases[] = {
		{ "duration<5m", "1 2" },         { "duration>=3:30", "2 3" },
		{ "duration>1:02:03", "" },       { "duration:3m..5m", "2" },
		{ "duration:1:00..3:30", "1 2" }, { "duration>90s", "2 3" },
		{ "duration<0.1h", "1 2" },       { "duration:3:30", "2" },
		{ "duration>100000", "2 3" },     { "duration:5:00..3:00 +url", "ERR" },
		{ "duration>300", "1 2 3" },      { "duration<3:60", "ERR" },
		{ "duration<-5m", "ERR" },        { "duration:3:5", "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char got[64];
		ids_of_query(idx, cases[i].q, got, sizeof got);
		CHECK_MSG(strcmp(got, cases[i].ids) == 0, "%s: [%s], want [%s]", cases[i].q, got,
			  cases[i].ids);
	}
	mlib_index_free(idx);
}

TEST(value_reading)
{
	struct coll_value v;
	coll_value_read("-3.5", &v);
	CHECK_INT(v.kind, COLL_VALUE_NUMBER);
	coll_value_read("3mo", &v);
	CHECK_INT(v.kind, COLL_VALUE_AGE);
	CHECK_INT(v.seconds, 90 * DAY);
	/* too many years for seconds (a fuzzer's find: signed overflow) */
	coll_value_read("888888888888y", &v);
	CHECK_INT(v.kind, COLL_VALUE_AGE);
	CHECK(v.seconds == INT64_MAX);
	coll_value_read("2024-02-29", &v);
	CHECK_INT(v.kind, COLL_VALUE_DATE);
	CHECK_INT(v.seconds, local_time(2024, 2, 29, 0));
	CHECK_INT(v.seconds_end, local_time(2024, 3, 1, 0));
	coll_value_read("2023-02-29", &v);
	CHECK_INT(v.kind, COLL_VALUE_STRING);
	coll_value_read("7x", &v);
	CHECK_INT(v.kind, COLL_VALUE_STRING);
	CHECK(coll_value_is_time_field("lastplayed"));
	CHECK(!coll_value_is_time_field("year"));
}

TEST(type_id)
{
	EXPECT(attr(F(COLL_EQUALS, NULL, "3"), "type", "id"), SET, 1, 3);
	EXPECT(attr(F(COLL_GREATER, NULL, "6"), "type", "id"), SET, 2, 7, 8);
	EXPECT(attr(F(COLL_EQUALS, NULL, "99"), "type", "id"), SET, 0);
	EXPECT(attr(F(COLL_EQUALS, "x", "1"), "type", "bogus"), SET, -1);
}

TEST(type_position_in_list)
{
	EXPECT(on(attr(F(COLL_EQUALS, NULL, "2"), "type", "position"), list_of(4, 3, 1, 3, 5)), LIST, 1,
	       1);
	EXPECT(on(attr(F(COLL_GREATER, NULL, "2"), "type", "position"), list_of(4, 3, 1, 3, 5)), LIST,
	       2, 3, 5);
	/* on a set: positions in library order */
	EXPECT(attr(F(COLL_SMALLEREQ, NULL, "2"), "type", "position"), SET, 2, 6, 1);
}

TEST(idlist_keeps_order_and_duplicates_skips_missing)
{
	EXPECT(list_of(5, 3, 1, 3, 99, 5), LIST, 4, 3, 1, 3, 5);
	struct coll_node *q = attr(list_of(2, 7, 7), "type", "queue");
	EXPECT(q, LIST, 2, 7, 7);
	struct coll_node *ps = attr(list_of(1, 2), "type", "pshuffle");
	on(ps, coll_node_new(COLL_UNIVERSE));
	EXPECT(ps, LIST, 1, 2);
}

TEST(filter_on_list_keeps_order_and_duplicates)
{
	EXPECT(on(F(COLL_EQUALS, "artist", "kraftwerk"), list_of(5, 3, 1, 4, 3, 2)), LIST, 3, 3, 4, 3);
	EXPECT(on(F(COLL_NOTEQUAL, "artist", "kraftwerk"), list_of(5, 3, 1, 6, 3, 2)), LIST, 2, 1, 2);
}

TEST(union_lists_concatenate_mixed_is_set)
{
	EXPECT(op2(COLL_UNION, list_of(2, 3, 1), list_of(2, 1, 8)), LIST, 4, 3, 1, 1, 8);
	EXPECT(op2(COLL_UNION, list_of(2, 3, 1), F(COLL_EQUALS, "artist", "the beatles")), SET, 3, 1,
	       3, 7);
	EXPECT(op2(COLL_UNION, F(COLL_EQUALS, "year", "1981"), F(COLL_EQUALS, "genre", "rock")), SET,
	       3, 3, 4, 7);
	EXPECT(coll_node_new(COLL_UNION), SET, 0);
}

TEST(intersection_keeps_first_operand_order)
{
	EXPECT(op2(COLL_INTERSECTION, list_of(4, 4, 2, 3, 4), F(COLL_EQUALS, "artist", "kraftwerk")),
	       LIST, 3, 4, 3, 4);
	EXPECT(op2(COLL_INTERSECTION, F(COLL_EQUALS, "artist", "kraftwerk"), list_of(3, 4, 2, 3)), SET,
	       2, 3, 4);
	EXPECT(op2(COLL_INTERSECTION, F(COLL_HAS, "genre", NULL), F(COLL_GREATER, "year", "1990")),
	       SET, 3, 1, 2, 5);
}

TEST(complement_of_a_list_is_the_rest)
{
	/* (fix) XMMS2 returns nothing here */
	EXPECT(op2(COLL_COMPLEMENT, list_of(3, 1, 3, 1), NULL), SET, 6, 6, 2, 5, 4, 7, 8);
	EXPECT(op2(COLL_COMPLEMENT, F(COLL_EQUALS, "artist", "bjork"), NULL), SET, 6, 6, 5, 3, 4, 7,
	       8);
	EXPECT(coll_node_new(COLL_COMPLEMENT), SET, -1);
}

TEST(order_several_keys_and_missing)
{
	EXPECT(order("year", NULL), LIST, 8, 6, 7, 3, 4, 8, 1, 2, 5);   /* missing first, stable */
	EXPECT(order("-year", NULL), LIST, 8, 5, 1, 2, 8, 3, 4, 7, 6);  /* missing last */
	EXPECT(attr(order("year", NULL), "direction", "DESC"), LIST, 8, 5, 1, 2, 8, 3, 4, 7, 6);
	EXPECT(order("year, -tracknr", NULL), LIST, 8, 6, 7, 4, 3, 8, 2, 1, 5);
	EXPECT(order("title", F(COLL_EQUALS, "artist", "kraftwerk")), LIST, 2, 3, 4);
	EXPECT(order("-title", F(COLL_EQUALS, "artist", "kraftwerk")), LIST, 2, 4, 3);
	EXPECT(order("tracknr", list_of(4, 4, 1, 3, 1)), LIST, 4, 1, 1, 3, 4);
	EXPECT(order("genre", list_of(3, 1, 4, 7)), LIST, 3, 4, 1, 7);
	EXPECT(attr(coll_node_new(COLL_ORDER), "type", "id"), LIST, 8, 1, 2, 3, 4, 5, 6, 7, 8);
	EXPECT(coll_node_new(COLL_ORDER), LIST, -1);
}

static void eval_ids(struct coll_node *n, char *out, size_t size)
{
	if (!g_idx)
		g_idx = library();
	struct coll_eval_ctx ctx = ctx_for(g_idx);
	struct coll_result r;
	struct crate_err err;
	out[0] = '\0';
	if (coll_eval(&ctx, n, &r, &err) < 0)
		return;
	for (size_t i = 0; i < r.ids.n; i++)
		snprintf(out + strlen(out), size - strlen(out), "%u ", r.ids.v[i]);
	coll_result_free(&r);
}

TEST(order_random_seed_reproducible)
{
	struct coll_node *a = attr(attr(coll_node_new(COLL_ORDER), "type", "random"), "seed", "42");
	struct coll_node *b = attr(attr(coll_node_new(COLL_ORDER), "type", "random"), "seed", "42");
	struct coll_node *c = attr(attr(coll_node_new(COLL_ORDER), "type", "random"), "seed", "7");
	char ra[128], rb[128], rc[128];
	eval_ids(a, ra, sizeof ra);
	eval_ids(b, rb, sizeof rb);
	eval_ids(c, rc, sizeof rc);
	CHECK_STR(ra, rb);
	CHECK(strcmp(ra, rc) != 0);
	CHECK_INT(strlen(ra), strlen("1 2 3 4 5 6 7 8 "));
	coll_node_unref(a);
	coll_node_unref(b);
	coll_node_unref(c);
}

TEST(limit_slices)
{
	struct coll_node *l = coll_node_new(COLL_LIMIT);
	coll_attr_set(l, "start", "1");
	coll_attr_set(l, "length", "3");
	EXPECT(on(l, order("year", NULL)), LIST, 3, 7, 3, 4);
	struct coll_node *top = attr(coll_node_new(COLL_LIMIT), "length", "2");
	EXPECT(on(top, order("-tracknr", NULL)), LIST, 2, 4, 3);
	struct coll_node *ls = attr(coll_node_new(COLL_LIMIT), "start", "6");
	EXPECT(on(ls, coll_node_new(COLL_UNIVERSE)), SET, 2, 7, 8);
	EXPECT(on(attr(coll_node_new(COLL_LIMIT), "start", "-1"), list_of(1, 1)), LIST, -1);
}

TEST(mediaset_drops_order_and_duplicates)
{
	EXPECT(on(coll_node_new(COLL_MEDIASET), list_of(5, 8, 3, 8, 1, 3)), SET, 3, 1, 3, 8);
}

TEST(references_and_cycles)
{
	struct coll_node *saved[2];
	saved[0] = F(COLL_EQUALS, "artist", "kraftwerk");
	saved[1] = op2(COLL_UNION, F(COLL_EQUALS, "genre", "rock"),
		       attr(attr(coll_node_new(COLL_REFERENCE), "namespace", "Collections"),
			    "reference", "A"));
	if (!g_idx)
		g_idx = library();
	struct coll_eval_ctx ctx = ctx_for(g_idx);
	ctx.resolve = resolver;
	ctx.resolve_ud = saved;
	struct coll_node *ref = attr(coll_node_new(COLL_REFERENCE), "reference", "B");
	struct coll_result r;
	struct crate_err err;
	REQUIRE(coll_eval(&ctx, ref, &r, &err) == 0);
	CHECK_INT(r.ids.n, 3);
	CHECK_INT(r.ids.v[0], 3);
	CHECK_INT(r.ids.v[2], 7);
	coll_result_free(&r);
	bool in;
	CHECK(coll_contains(&ctx, ref, 4, &in, &err) == 0 && in);
	CHECK(coll_contains(&ctx, ref, 1, &in, &err) == 0 && !in);
	coll_node_unref(ref);

	/* All Media is the universe */
	ref = attr(coll_node_new(COLL_REFERENCE), "reference", "All Media");
	REQUIRE(coll_eval(&ctx, ref, &r, &err) == 0);
	CHECK_INT(r.ids.n, 8);
	coll_result_free(&r);
	coll_node_unref(ref);

	/* missing */
	ref = attr(coll_node_new(COLL_REFERENCE), "reference", "Nope");
	CHECK(coll_eval(&ctx, ref, &r, &err) < 0);
	CHECK(strstr(err.msg, "Collections/Nope") != NULL);
	coll_node_unref(ref);

	/* A -> B -> A: a cycle made behind the store's back is still caught */
	coll_node_unref(saved[0]);
	saved[0] = op2(COLL_INTERSECTION, coll_node_new(COLL_UNIVERSE),
		       attr(coll_node_new(COLL_REFERENCE), "reference", "B"));
	ref = attr(coll_node_new(COLL_REFERENCE), "reference", "A");
	CHECK(coll_eval(&ctx, ref, &r, &err) < 0);
	CHECK_MSG(strstr(err.msg, "cycle") != NULL, "message: %s", err.msg);
	CHECK(coll_contains(&ctx, ref, 3, &in, &err) < 0);
	coll_node_unref(ref);
	coll_node_unref(saved[0]);
	coll_node_unref(saved[1]);
}

TEST(shared_operands_evaluate_once_and_agree)
{
	struct coll_node *shared = F(COLL_EQUALS, "genre", "electronic");
	struct coll_node *u = coll_node_new(COLL_UNION);
	coll_node_add_operand(u, shared);
	struct coll_node *c = coll_node_new(COLL_COMPLEMENT);
	coll_node_add_operand(c, shared);
	on(u, c);
	coll_node_unref(shared);
	EXPECT(u, SET, 8, 6, 1, 2, 5, 3, 4, 7, 8);
}

TEST(contains_matches_evaluation)
{
	if (!g_idx)
		g_idx = library();
	struct coll_eval_ctx ctx = ctx_for(g_idx);
	struct coll_node *qs[] = {
		op2(COLL_INTERSECTION, F(COLL_HAS, "genre", NULL),
		    op2(COLL_COMPLEMENT, F(COLL_TOKEN, "title", "track"), NULL)),
		on(F(COLL_EQUALS, "artist", "kraftwerk"), list_of(2, 4, 1)),
		on(attr(coll_node_new(COLL_LIMIT), "length", "3"), order("-year", NULL)),
		F(COLL_SMALLER, "added", "7d"),
		attr(F(COLL_EQUALS, NULL, "2"), "type", "position"),
	};
	for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
		struct coll_result r;
		struct crate_err err;
		REQUIRE(coll_eval(&ctx, qs[q], &r, &err) == 0);
		for (uint32_t id = 0; id <= 9; id++) {
			bool in, want = false;
			for (size_t i = 0; i < r.ids.n; i++)
				want = want || r.ids.v[i] == id;
			REQUIRE(coll_contains(&ctx, qs[q], id, &in, &err) == 0);
			CHECK_MSG(in == want, "query %zu id %u: contains %d, eval %d", q, id, in, want);
		}
		coll_result_free(&r);
		coll_node_unref(qs[q]);
	}
}

TEST(bad_attributes_are_errors_naming_them)
{
	if (!g_idx)
		g_idx = library();
	struct coll_eval_ctx ctx = ctx_for(g_idx);
	struct coll_node *n = coll_node_new(COLL_EQUALS);
	coll_attr_set(n, "value", "x");
	struct coll_result r;
	struct crate_err err;
	CHECK(coll_eval(&ctx, n, &r, &err) < 0);
	CHECK(strstr(err.msg, "field") != NULL);
	coll_node_unref(n);
	n = attr(order("year", NULL), "type", "sideways");
	CHECK(coll_eval(&ctx, n, &r, &err) < 0);
	CHECK(strstr(err.msg, "sideways") != NULL);
	coll_node_unref(n);
}
