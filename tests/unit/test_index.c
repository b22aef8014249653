/* medialib/index: the builder, dictionaries with folded twins and numbers,
 * multi-valued items, integer columns, ranks and the library order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "harness.h"
#include "medialib/index.h"

static void add(struct mlib_index *idx, uint32_t id, const char *prop, const char *v)
{
	mlib_index_add_str(idx, id, prop, v, strlen(v));
}

static uint32_t vid_of(struct mlib_index *idx, int prop, uint32_t id)
{
	const uint32_t *vids;
	return mlib_index_str_values(idx, prop, id, &vids) ? vids[0] : UINT32_MAX;
}

TEST(builder_counts_and_ids)
{
	struct mlib_index *idx = mlib_index_new();
	mlib_index_add_media(idx, 5);
	mlib_index_add_media(idx, 2);
	mlib_index_add_media(idx, 5);
	mlib_index_add_media(idx, 0); /* ids start at 1 */
	mlib_index_finish(idx);
	CHECK_INT(mlib_index_count(idx), 2);
	CHECK_INT(mlib_index_id_bound(idx), 6);
	CHECK(mlib_index_has_media(idx, 2));
	CHECK(!mlib_index_has_media(idx, 3));
	CHECK(!mlib_index_has_media(idx, 100000));
	const struct u32vec *all = mlib_index_all_ids(idx);
	REQUIRE(all->n == 2);
	CHECK_INT(all->v[0], 2);
	CHECK_INT(all->v[1], 5);
	CHECK_INT(mlib_index_prop(idx, "artist"), -1);
	CHECK_INT(mlib_index_library_rank(idx, 3), UINT32_MAX);
	mlib_index_free(idx);
}

TEST(dictionary_interns_once_with_folded_twin)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 4; id++)
		mlib_index_add_media(idx, id);
	add(idx, 1, "artist", "Björk");
	add(idx, 2, "artist", "Björk");
	add(idx, 3, "artist", "björk");  /* a different value with the same fold */
	add(idx, 4, "artist", "kraftwerk");
	mlib_index_finish(idx);
	int p = mlib_index_prop(idx, "artist");
	REQUIRE(p >= 0);
	CHECK_INT(mlib_index_prop_kind(idx, p), MLIB_PROP_STRING);
	CHECK_STR(mlib_index_prop_name(idx, p), "artist");
	CHECK_INT(mlib_index_dict_size(idx, p), 3);
	uint32_t v1 = vid_of(idx, p, 1);
	CHECK_INT(vid_of(idx, p, 2), v1);
	CHECK_STR(mlib_index_dict_text(idx, p, v1), "Björk");
	CHECK_STR(mlib_index_dict_folded(idx, p, v1), "bjork");
	uint32_t v4 = vid_of(idx, p, 4);
	/* identical fold: the twin is not stored, text and fold are one string */
	CHECK(mlib_index_dict_text(idx, p, v4) == mlib_index_dict_folded(idx, p, v4));
	/* same folded text -> same rank */
	CHECK_INT(mlib_index_dict_rank(idx, p, v1), mlib_index_dict_rank(idx, p, vid_of(idx, p, 3)));
	CHECK(mlib_index_dict_rank(idx, p, v1) < mlib_index_dict_rank(idx, p, v4));
	char buf[8];
	CHECK_STR(mlib_index_get_text(idx, 1, "artist", buf, sizeof buf), "Björk");
	CHECK(mlib_index_get_text(idx, 1, "album", buf, sizeof buf) == NULL);
	mlib_index_free(idx);
}

/* Interning remembers the value before (items come album by album): a
 * repeat, a longer or shorter text sharing its prefix, a text cut by a NUL
 * and a value seen earlier all get the ids a fresh lookup gives. */
TEST(repeated_values_intern_like_fresh_ones)
{
	struct mlib_index *idx = mlib_index_new();
	static const struct {
		const char *v;
		size_t len;
	} seq[] = { { "Abba", 4 }, { "Abba", 4 }, { "Abbado", 6 }, { "Abb", 3 }, { "Abba\0x", 6 },
		    { "Abba", 4 }, { "Abb", 3 }, { "abba", 4 }, { "Abbado", 6 }, { "", 0 } };
	static const uint32_t want[] = { 0, 0, 1, 2, 0, 0, 2, 3, 1, 4 };
	size_t n = sizeof seq / sizeof seq[0];
	for (uint32_t i = 0; i < n; i++) {
		mlib_index_add_media(idx, i + 1);
		mlib_index_add_str(idx, i + 1, "artist", seq[i].v, seq[i].len);
	}
	mlib_index_finish(idx);
	int p = mlib_index_prop(idx, "artist");
	REQUIRE(p >= 0);
	CHECK_INT(mlib_index_dict_size(idx, p), 5);
	for (uint32_t i = 0; i < n; i++)
		CHECK_INT(vid_of(idx, p, i + 1), want[i]);
	CHECK_STR(mlib_index_dict_text(idx, p, 0), "Abba");
	CHECK_STR(mlib_index_dict_text(idx, p, 4), "");
	/* after finish dropped the lookup table, interning still finds them */
	mlib_index_add_media(idx, 20);
	add(idx, 20, "artist", "Abbado");
	mlib_index_add_media(idx, 21);
	add(idx, 21, "artist", "Abb");
	CHECK_INT(vid_of(idx, p, 20), 1);
	CHECK_INT(vid_of(idx, p, 21), 2);
	CHECK_INT(mlib_index_dict_size(idx, p), 5);
	mlib_index_free(idx);
}

TEST(fold_covers_special_letters)
{
	struct mlib_index *idx = mlib_index_new();
	mlib_index_add_media(idx, 1);
	mlib_index_add_media(idx, 2);
	add(idx, 1, "title", "Straße ØÆ");
	add(idx, 2, "title", "ÀÉÎÕÜ");
	mlib_index_finish(idx);
	int p = mlib_index_prop(idx, "title");
	CHECK_STR(mlib_index_dict_folded(idx, p, vid_of(idx, p, 1)), "strasse oae");
	CHECK_STR(mlib_index_dict_folded(idx, p, vid_of(idx, p, 2)), "aeiou");
	mlib_index_free(idx);
}

TEST(numbers_and_natural_ranks)
{
	struct mlib_index *idx = mlib_index_new();
	const char *vals[] = { "Track 10", "track 9", "10", "-2.5", "9", "Track 09", "abc", "" };
	for (uint32_t i = 0; i < 8; i++) {
		mlib_index_add_media(idx, i + 1);
		add(idx, i + 1, "title", vals[i]);
	}
	mlib_index_finish(idx);
	int p = mlib_index_prop(idx, "title");
	double d;
	CHECK(mlib_index_dict_number(idx, p, vid_of(idx, p, 4), &d) && d == -2.5);
	CHECK(mlib_index_dict_number(idx, p, vid_of(idx, p, 3), &d) && d == 10);
	CHECK(!mlib_index_dict_number(idx, p, vid_of(idx, p, 1), &d));
#define R(id) mlib_index_dict_rank(idx, p, vid_of(idx, p, id))
	/* numbers first, numerically: -2.5 < 9 < 10 */
	CHECK(R(4) < R(5));
	CHECK(R(5) < R(3));
	CHECK(R(3) < R(8)); /* then texts: "" first */
	CHECK(R(8) < R(7));
	CHECK(R(7) < R(2)); /* "abc" < "track 9" */
	CHECK(R(2) < R(1)); /* "track 9" < "track 10" */
	CHECK_INT(R(6), R(2)); /* "track 09" == "track 9" naturally */
#undef R
	const uint32_t *ranks = mlib_index_dict_ranks(idx, p);
	CHECK_INT(ranks[vid_of(idx, p, 1)], mlib_index_dict_rank(idx, p, vid_of(idx, p, 1)));
	mlib_index_free(idx);
}

TEST(multi_valued_items)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 3; id++)
		mlib_index_add_media(idx, id);
	add(idx, 1, "genre", "Rock");
	add(idx, 2, "genre", "Pop");
	add(idx, 1, "genre", "Jazz");
	add(idx, 2, "genre", "Rock");
	add(idx, 1, "genre", "Blues");
	add(idx, 1, "genre", "Rock"); /* repeated: no second copy */
	add(idx, 3, "genre", "Pop");
	mlib_index_finish(idx);
	int p = mlib_index_prop(idx, "genre");
	const uint32_t *vids;
	REQUIRE(mlib_index_str_values(idx, p, 1, &vids) == 3);
	CHECK_STR(mlib_index_dict_text(idx, p, vids[0]), "Rock");
	CHECK_STR(mlib_index_dict_text(idx, p, vids[1]), "Jazz");
	CHECK_STR(mlib_index_dict_text(idx, p, vids[2]), "Blues");
	REQUIRE(mlib_index_str_values(idx, p, 2, &vids) == 2);
	CHECK_STR(mlib_index_dict_text(idx, p, vids[1]), "Rock");
	CHECK_INT(mlib_index_str_values(idx, p, 3, &vids), 1);
	CHECK_INT(mlib_index_dict_size(idx, p), 4);
	mlib_index_free(idx);
}

TEST(integer_columns_and_kind_changes)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 3; id++)
		mlib_index_add_media(idx, id);
	mlib_index_set_int(idx, 1, "duration", 185000);
	mlib_index_set_int(idx, 2, "duration", -1);
	mlib_index_set_int(idx, 1, "tracknr", 3);
	add(idx, 2, "tracknr", "7");   /* an integer text stays an integer */
	add(idx, 3, "tracknr", "A1");  /* vinyl side: the column becomes text */
	add(idx, 1, "year", "1999");
	mlib_index_set_int(idx, 2, "year", 2001); /* string column: stored as text */
	mlib_index_finish(idx);
	int d = mlib_index_prop(idx, "duration");
	CHECK_INT(mlib_index_prop_kind(idx, d), MLIB_PROP_INT);
	int64_t v;
	CHECK(mlib_index_int_value(idx, d, 1, &v) && v == 185000);
	CHECK(mlib_index_int_value(idx, d, 2, &v) && v == -1);
	CHECK(!mlib_index_int_value(idx, d, 3, &v));
	struct mlib_int_column col;
	CHECK(mlib_index_int_column(idx, d, &col));
	CHECK(col.len >= 3 && mlib_int_column_get(&col, 3) == MLIB_INT_MISSING);
	int t = mlib_index_prop(idx, "tracknr");
	CHECK_INT(mlib_index_prop_kind(idx, t), MLIB_PROP_STRING);
	char buf[32];
	CHECK_STR(mlib_index_get_text(idx, 1, "tracknr", buf, sizeof buf), "3");
	CHECK_STR(mlib_index_get_text(idx, 2, "tracknr", buf, sizeof buf), "7");
	CHECK_STR(mlib_index_get_text(idx, 3, "tracknr", buf, sizeof buf), "A1");
	CHECK_STR(mlib_index_get_text(idx, 2, "year", buf, sizeof buf), "2001");
	CHECK_STR(mlib_index_get_text(idx, 1, "duration", buf, sizeof buf), "185000");
	mlib_index_update_int(idx, 1, "timesplayed", 4);
	int tp = mlib_index_prop(idx, "timesplayed");
	CHECK(tp >= 0 && mlib_index_int_value(idx, tp, 1, &v) && v == 4);
	CHECK(mlib_index_memory(idx) > 0);
	mlib_index_free(idx);
}

TEST(library_order)
{
	/* albumartist (else artist), year, album, discnr, tracknr, url */
	struct mlib_index *idx = mlib_index_new();
	struct {
		const char *aa, *artist, *album, *url;
		int year, disc, track;
	} rows[] = {
		/* 1 */ { NULL, "Zappa", "Apostrophe", "/z/1", 1974, 0, 1 },
		/* 2 */ { "Various", "Abba", "Hits", "/v/2", 1990, 1, 2 },
		/* 3 */ { NULL, "abba", "Arrival", "/a/3", 1976, 0, 10 },
		/* 4 */ { NULL, "Abba", "Arrival", "/a/4", 1976, 0, 9 },
		/* 5 */ { NULL, "ABBA", "Waterloo", "/a/5", 1974, 0, 1 },
		/* 6 */ { NULL, NULL, "Unknown", "/u/6", 0, 0, 0 },
		/* 7 */ { "Various", "Zappa", "Hits", "/v/7", 1990, 1, 1 },
		/* 8 */ { "Various", "Abba", "Hits", "/v/8", 1990, 2, 1 },
		/* 9 */ { NULL, "Abba", "Arrival", "/a/9b", 1976, 0, 9 },
	};
	for (uint32_t i = 0; i < 9; i++) {
		uint32_t id = i + 1;
		mlib_index_add_media(idx, id);
		if (rows[i].aa)
			add(idx, id, "albumartist", rows[i].aa);
		if (rows[i].artist)
			add(idx, id, "artist", rows[i].artist);
		add(idx, id, "album", rows[i].album);
		add(idx, id, "url", rows[i].url);
		if (rows[i].year)
			mlib_index_set_int(idx, id, "year", rows[i].year);
		if (rows[i].disc)
			mlib_index_set_int(idx, id, "discnr", rows[i].disc);
		if (rows[i].track)
			mlib_index_set_int(idx, id, "tracknr", rows[i].track);
	}
	mlib_index_finish(idx);
	const struct u32vec *o = mlib_index_library_order(idx);
	char got[64] = "";
	for (size_t i = 0; i < o->n; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%u ", o->v[i]);
	/* 6 (no artist); abba: 5 (1974), 4, 9 (1976 Arrival track 9, url), 3 (track 10);
	 * various: 7, 2 (disc 1), 8 (disc 2); zappa: 1 */
	CHECK_STR(got, "6 5 4 9 3 7 2 8 1 ");
	for (size_t i = 0; i < o->n; i++)
		CHECK_INT(mlib_index_library_rank(idx, o->v[i]), i);
	mlib_index_free(idx);
}

/* A random item of random_library_order: -1 = missing. Names are
 * zero-padded numbers, so their natural order is the numbers'. */
struct order_row {
	uint32_t id;
	int aa, artist, album, url;
	int64_t year, disc, track;
	bool has_year, has_disc, has_track;
};

static int cmp_missing_first(bool ha, int64_t a, bool hb, int64_t b)
{
	if (ha != hb)
		return ha ? 1 : -1;
	return !ha ? 0 : a < b ? -1 : a > b;
}

/* albumartist (else artist), year, album, disc, track, url, id. */
static int order_row_cmp(const void *pa, const void *pb)
{
	const struct order_row *a = pa, *b = pb;
	int aa = a->aa >= 0 ? a->aa : a->artist, ba = b->aa >= 0 ? b->aa : b->artist;
	int c = cmp_missing_first(aa >= 0, aa, ba >= 0, ba);
	if (!c)
		c = cmp_missing_first(a->has_year, a->year, b->has_year, b->year);
	if (!c)
		c = cmp_missing_first(a->album >= 0, a->album, b->album >= 0, b->album);
	if (!c)
		c = cmp_missing_first(a->has_disc, a->disc, b->has_disc, b->disc);
	if (!c)
		c = cmp_missing_first(a->has_track, a->track, b->has_track, b->track);
	if (!c)
		c = a->url < b->url ? -1 : a->url > b->url;
	return c ? c : a->id < b->id ? -1 : a->id > b->id;
}

static int64_t pick(uint64_t *rng, int64_t lo, int64_t hi)
{
	return lo + (int64_t)rng_below(rng, (size_t)(hi - lo + 1));
}

/* n random items (every fourth id skipped) with years in [ylo, yhi] and
 * discs and tracks below nmax, ordered by the index and by qsort. */
static void check_random_order(uint64_t seed, uint32_t n, int64_t ylo, int64_t yhi, int64_t nmax)
{
	uint64_t rng = seed;
	struct order_row *rows = calloc(n, sizeof *rows);
	struct mlib_index *idx = mlib_index_new();
	char buf[32];
	for (uint32_t i = 0; i < n; i++) {
		struct order_row *r = &rows[i];
		r->id = i + 1 + i / 3;
		r->aa = rng_below(&rng, 4) == 0 ? (int)pick(&rng, 0, 40) : -1;
		r->artist = rng_below(&rng, 10) ? (int)pick(&rng, 0, 300) : -1;
		r->album = rng_below(&rng, 10) ? (int)pick(&rng, 0, 500) : -1;
		r->url = (int)pick(&rng, 0, 999999); /* a repeat now and then: settled by id */
		r->has_year = rng_below(&rng, 8) != 0;
		r->year = pick(&rng, ylo, yhi);
		r->has_disc = rng_below(&rng, 3) != 0;
		r->disc = pick(&rng, 0, nmax);
		r->has_track = rng_below(&rng, 8) != 0;
		r->track = pick(&rng, 0, nmax);
		mlib_index_add_media(idx, r->id);
		if (r->aa >= 0) {
			snprintf(buf, sizeof buf, "Artist %04d", r->aa);
			add(idx, r->id, "albumartist", buf);
		}
		if (r->artist >= 0) {
			snprintf(buf, sizeof buf, "artist %04d", r->artist);
			add(idx, r->id, "artist", buf);
		}
		if (r->album >= 0) {
			snprintf(buf, sizeof buf, "Album %04d", r->album);
			add(idx, r->id, "album", buf);
		}
		snprintf(buf, sizeof buf, "/m/%06d", r->url);
		add(idx, r->id, "url", buf);
		if (r->has_year)
			mlib_index_set_int(idx, r->id, "year", r->year);
		if (r->has_disc)
			mlib_index_set_int(idx, r->id, "discnr", r->disc);
		if (r->has_track)
			mlib_index_set_int(idx, r->id, "tracknr", r->track);
	}
	mlib_index_finish(idx);
	qsort(rows, n, sizeof *rows, order_row_cmp);
	const struct u32vec *o = mlib_index_library_order(idx);
	REQUIRE(o->n == n);
	size_t wrong = 0;
	for (uint32_t i = 0; i < n; i++)
		wrong += o->v[i] != rows[i].id || mlib_index_library_rank(idx, rows[i].id) != i;
	CHECK_INT(wrong, 0);
	mlib_index_free(idx);
	free(rows);
}

TEST(random_library_order)
{
	/* Small parts: the key fits one word (artist, year, album, disc,
	 * track ~9 + 7 + 9 + 2 + 6 bits beside 13 of position). */
	check_random_order(1, 5000, 1950, 2020, 40);
	/* Years over most of the 32-bit range and tracks up to 30000: two
	 * words. */
	check_random_order(2, 5000, -2000000000, 2000000000, 30000);
	check_random_order(3, 1, 2000, 2000, 1);
}

TEST(fold_span_is_contiguous)
{
	struct mlib_index *idx = mlib_index_new();
	mlib_index_add_media(idx, 1);
	mlib_index_add_media(idx, 2);
	add(idx, 1, "title", "ABC");
	add(idx, 2, "title", "dé");
	mlib_index_finish(idx);
	int p = mlib_index_prop(idx, "title");
	const char *base;
	const uint32_t *offs;
	uint32_t n;
	mlib_index_dict_fold_span(idx, p, &base, &offs, &n);
	REQUIRE(n == 2);
	CHECK_STR(base + offs[0], "abc");
	CHECK_STR(base + offs[1], "de");
	CHECK_INT(offs[2] - offs[1], 3);
	mlib_index_free(idx);
}

TEST(bulk_build_is_consistent)
{
	/* Enough values to force several rehashes and arena moves. */
	struct mlib_index *idx = mlib_index_new();
	char buf[64];
	for (uint32_t id = 1; id <= 50000; id++) {
		mlib_index_add_media(idx, id);
		int n = snprintf(buf, sizeof buf, "Title %u É", id % 20000);
		mlib_index_add_str(idx, id, "title", buf, (size_t)n);
		n = snprintf(buf, sizeof buf, "Artist %u", id % 700);
		mlib_index_add_str(idx, id, "artist", buf, (size_t)n);
	}
	mlib_index_finish(idx);
	int t = mlib_index_prop(idx, "title");
	CHECK_INT(mlib_index_dict_size(idx, t), 20000);
	CHECK_INT(mlib_index_dict_size(idx, mlib_index_prop(idx, "artist")), 700);
	for (uint32_t id = 1; id <= 50000; id += 997) {
		snprintf(buf, sizeof buf, "title %u e", id % 20000);
		CHECK_STR(mlib_index_dict_folded(idx, t, vid_of(idx, t, id)), buf);
	}
	CHECK_INT(mlib_index_library_order(idx)->n, 50000);
	mlib_index_free(idx);
}
