/* medialib/index_groups: the browser's artist and album groups of the
 * whole library (albumartist before artist, albums per artist, several
 * artists listing a track under each, years), and library ranks. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "medialib/index.h"
#include "medialib/index_groups.h"

static void add(struct mlib_index *idx, uint32_t id, const char *prop, const char *v)
{
	mlib_index_add_str(idx, id, prop, v, strlen(v));
}

/* The artist group's text of item id (first artist), "(none)" for NULL. */
static const char *artist_of(const struct mlib_groups *g, const struct mlib_index *idx, uint32_t id)
{
	uint32_t r = mlib_index_library_rank(idx, id);
	if (r >= g->n)
		return "(not in the library)";
	const char *t = g->text[0][g->of[0][r]];
	return t ? t : "(none)";
}

static uint32_t album_of(const struct mlib_groups *g, const struct mlib_index *idx, uint32_t id)
{
	return g->of[1][mlib_index_library_rank(idx, id)];
}

/* Tracks under the first-level group with this text: first values and extras. */
static unsigned first_count(const struct mlib_groups *g, const char *text)
{
	unsigned n = 0;
	for (uint32_t r = 0; r < g->n; r++) {
		const char *t = g->text[0][g->of[0][r]];
		n += (!t && !text) || (t && text && strcmp(t, text) == 0);
	}
	for (size_t k = 0; k < g->nextra; k++) {
		const char *t = g->text[0][g->extra[k].grp[0]];
		n += t && text && strcmp(t, text) == 0;
	}
	return n;
}

TEST(groups_by_artist_and_album)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 6; id++)
		mlib_index_add_media(idx, id);
	add(idx, 1, "artist", "Ann");
	add(idx, 1, "album", "Greatest Hits");
	add(idx, 2, "artist", "Ann");
	add(idx, 2, "album", "Greatest Hits");
	add(idx, 3, "artist", "Ann");
	add(idx, 3, "album", "Live");
	add(idx, 4, "albumartist", "Ann"); /* albumartist first: Ann, not Bob */
	add(idx, 4, "artist", "Bob");
	add(idx, 4, "album", "Greatest Hits");
	add(idx, 5, "artist", "Bob");      /* another artist's album of that title */
	add(idx, 5, "album", "Greatest Hits");
	mlib_index_set_int(idx, 5, "year", 1999);
	/* 6: no artist, no album */
	mlib_index_finish(idx);
	struct mlib_groups *g = mlib_index_groups(idx, NULL);
	CHECK_INT(g->n, 6);
	CHECK_INT(g->ngroups[0], 3); /* Ann, Bob, unknown */
	CHECK_INT(g->ngroups[1], 3);  /* Greatest Hits, Live, none: values */
	CHECK_INT(g->nextra, 0);
	CHECK_STR(artist_of(g, idx, 1), "Ann");
	CHECK_STR(artist_of(g, idx, 4), "Ann");
	CHECK_STR(artist_of(g, idx, 5), "Bob");
	CHECK_STR(artist_of(g, idx, 6), "(none)");
	CHECK_INT(first_count(g, "Ann"), 4);
	CHECK_INT(first_count(g, "Bob"), 1);
	CHECK_INT(first_count(g, NULL), 1);
	CHECK(album_of(g, idx, 1) == album_of(g, idx, 2));
	CHECK(album_of(g, idx, 1) == album_of(g, idx, 4));
	CHECK(album_of(g, idx, 1) != album_of(g, idx, 3));
	/* Same title, other artist: one value, told apart by the artist
	 * column (under "All" artists it is one row). */
	CHECK(album_of(g, idx, 1) == album_of(g, idx, 5));
	CHECK_STR(g->text[1][album_of(g, idx, 5)], "Greatest Hits");
	CHECK(g->text[1][album_of(g, idx, 6)] == NULL);
	CHECK_INT(g->year_of[mlib_index_library_rank(idx, 5)], 1999);
	CHECK_INT(g->year_of[mlib_index_library_rank(idx, 1)], 0);
	/* Ann's Greatest Hits has no year, Bob's 1999: the row of both none. */
	REQUIRE(g->group_year[1] != NULL);
	CHECK(g->group_year[0] == NULL);
	CHECK_INT(g->group_year[1][album_of(g, idx, 5)], 0);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

TEST(multi_valued_artists_list_a_track_under_each)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 5; id++)
		mlib_index_add_media(idx, id);
	add(idx, 1, "artist", "Cat");
	add(idx, 1, "artist", "Dan");      /* a duet: under Cat and under Dan */
	add(idx, 1, "album", "Duets");
	add(idx, 2, "artist", "Dan");
	add(idx, 2, "album", "Solo");
	add(idx, 3, "albumartist", "Eve"); /* one albumartist: its artists do not count */
	add(idx, 3, "artist", "Fay");
	add(idx, 3, "artist", "Gus");
	add(idx, 4, "albumartist", "Hal");
	add(idx, 4, "albumartist", "Ivy");
	add(idx, 4, "album", "Split");
	add(idx, 5, "year", "2004");       /* a year as text */
	mlib_index_finish(idx);
	struct mlib_groups *g = mlib_index_groups(idx, NULL);
	CHECK_STR(artist_of(g, idx, 1), "Cat");
	CHECK_STR(artist_of(g, idx, 3), "Eve");
	CHECK_STR(artist_of(g, idx, 4), "Hal");
	REQUIRE(g->nextra == 2);
	CHECK_INT(first_count(g, "Cat"), 1);
	CHECK_INT(first_count(g, "Dan"), 2);
	CHECK_INT(first_count(g, "Fay"), 0);
	CHECK_INT(first_count(g, "Ivy"), 1);
	/* Extras are sorted by rank and found by it; the duet's album under
	 * Dan is "Duets", not Dan's "Solo". */
	uint32_t r1 = mlib_index_library_rank(idx, 1);
	size_t k = mlib_extra_find(g->extra, g->nextra, r1);
	REQUIRE(k < g->nextra);
	CHECK_STR(g->text[0][g->extra[k].grp[0]], "Dan");
	CHECK(g->extra[k].grp[1] == g->of[1][r1]);
	CHECK(g->extra[k].grp[1] != album_of(g, idx, 2));
	CHECK_STR(g->text[1][g->extra[k].grp[1]], "Duets");
	CHECK(g->extra[0].at <= g->extra[1].at);
	CHECK_INT(mlib_extra_find(g->extra, g->nextra, mlib_index_library_rank(idx, 2)), g->nextra);
	CHECK_INT(g->year_of[mlib_index_library_rank(idx, 5)], 2004);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

/* A compilation (compilation=1, iTunes' cpil) without an album artist was
 * split across its track artists: the album showed once under each. */
TEST(a_compilation_without_album_artist_is_one_album_under_various_artists)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 6; id++)
		mlib_index_add_media(idx, id);
	const char *artists[] = {"Ann", "Bob", "Cat"};
	for (uint32_t id = 1; id <= 3; id++) {
		add(idx, id, "artist", artists[id - 1]);
		add(idx, id, "album", "Hits 1");
		add(idx, id, "compilation", id == 2 ? "true" : "1");
	}
	add(idx, 2, "artist", "Dan");            /* a duet on it: no extra under Dan */
	add(idx, 4, "artist", "Ann");            /* Ann's own album stays hers */
	add(idx, 4, "album", "Solo");
	add(idx, 5, "albumartist", "DJ Eve");    /* a mix with an album artist: hers */
	add(idx, 5, "artist", "Fay");
	add(idx, 5, "album", "Mix");
	add(idx, 5, "compilation", "1");
	add(idx, 6, "artist", "Gus");            /* compilation=0 is no compilation */
	add(idx, 6, "album", "Hits 1");
	add(idx, 6, "compilation", "0");
	mlib_index_finish(idx);
	struct mlib_groups *g = mlib_index_groups(idx, NULL);
	CHECK_STR(artist_of(g, idx, 1), MLIB_VARIOUS_ARTISTS);
	CHECK_STR(artist_of(g, idx, 2), MLIB_VARIOUS_ARTISTS);
	CHECK_STR(artist_of(g, idx, 3), MLIB_VARIOUS_ARTISTS);
	CHECK(album_of(g, idx, 1) == album_of(g, idx, 2));
	CHECK(album_of(g, idx, 1) == album_of(g, idx, 3));
	CHECK_INT(first_count(g, MLIB_VARIOUS_ARTISTS), 3);
	CHECK_INT(first_count(g, "Dan"), 0);
	CHECK_STR(artist_of(g, idx, 4), "Ann");
	CHECK_STR(artist_of(g, idx, 5), "DJ Eve");
	CHECK_STR(artist_of(g, idx, 6), "Gus");
	/* One album value: the artist column tells Gus's from the compilation. */
	CHECK(album_of(g, idx, 6) == album_of(g, idx, 1));
	mlib_groups_free(g);
	/* Under other levels (genre album) nothing changes. */
	struct mlib_levels lv = {0};
	struct crate_err err = {0};
	REQUIRE(mlib_levels_parse("album artist", &lv, &err) == 0);
	g = mlib_index_groups(idx, &lv);
	CHECK_STR(g->text[1][g->of[1][mlib_index_library_rank(idx, 3)]], MLIB_VARIOUS_ARTISTS);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

/* An artist's tracks without an album were one group with her album
 * whose dictionary value is 0 (the first album the index met): Ann's
 * "Greatest Hits" and loose track showed as one "(no album)" row. */
TEST(tracks_without_album_are_not_the_first_album)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 4; id++)
		mlib_index_add_media(idx, id);
	add(idx, 1, "artist", "Ann");
	add(idx, 1, "album", "Greatest Hits");
	add(idx, 2, "artist", "Ann");      /* no album */
	add(idx, 3, "artist", "Bob");
	add(idx, 3, "album", "Greatest Hits");
	add(idx, 4, "artist", "Bob");      /* no album */
	mlib_index_finish(idx);
	struct mlib_groups *g = mlib_index_groups(idx, NULL);
	CHECK_INT(g->ngroups[1], 2); /* Greatest Hits and none: values */
	CHECK(album_of(g, idx, 1) != album_of(g, idx, 2));
	CHECK(album_of(g, idx, 3) != album_of(g, idx, 4));
	CHECK(album_of(g, idx, 1) == album_of(g, idx, 3));
	CHECK(album_of(g, idx, 2) == album_of(g, idx, 4));
	CHECK_STR(g->text[1][album_of(g, idx, 1)], "Greatest Hits");
	CHECK_STR(g->text[1][album_of(g, idx, 3)], "Greatest Hits");
	CHECK(g->text[1][album_of(g, idx, 2)] == NULL);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

static struct mlib_levels levels(const char *text)
{
	struct mlib_levels lv = {0};
	struct crate_err err = {0};
	CHECK_MSG(mlib_levels_parse(text, &lv, &err) == 0, "%s: %s", text, err.msg);
	return lv;
}

/* Level k's text of item id ("(none)" for the unknown group). */
static const char *text_at(const struct mlib_groups *g, const struct mlib_index *idx, unsigned k,
			   uint32_t id)
{
	const char *t = g->text[k][g->of[k][mlib_index_library_rank(idx, id)]];
	return t ? t : "(none)";
}


/* Six tracks: genres (one multi-valued, one missing), albums, years. */
static struct mlib_index *genre_library(void)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 6; id++)
		mlib_index_add_media(idx, id);
	add(idx, 1, "genre", "Jazz");
	add(idx, 1, "album", "Kind of Blue");
	mlib_index_set_int(idx, 1, "year", 1959);
	add(idx, 2, "genre", "Jazz");
	add(idx, 2, "album", "Kind of Blue");
	mlib_index_set_int(idx, 2, "year", 1959);
	add(idx, 3, "genre", "Rock");
	add(idx, 3, "genre", "Pop");         /* under Rock and under Pop */
	add(idx, 3, "album", "Abbey Road");
	mlib_index_set_int(idx, 3, "year", 1969);
	add(idx, 4, "genre", "Pop");
	add(idx, 4, "album", "Abbey Road"); /* Pop's Abbey Road: the same album */
	mlib_index_set_int(idx, 4, "year", 1969);
	add(idx, 5, "genre", "Rock");
	add(idx, 5, "album", "Kind of Blue"); /* Rock's: not Jazz's */
	add(idx, 6, "album", "Kind of Blue"); /* no genre, no year */
	add(idx, 6, "composer", "Miles");
	mlib_index_finish(idx);
	return idx;
}

TEST(genre_then_album)
{
	struct mlib_index *idx = genre_library();
	struct mlib_levels lv = levels("genre album");
	struct mlib_groups *g = mlib_index_groups(idx, &lv);
	CHECK_INT(g->levels.n, 2);
	CHECK_INT(g->ngroups[0], 4); /* Jazz, Rock, Pop, unknown */
	CHECK_STR(text_at(g, idx, 0, 1), "Jazz");
	CHECK_STR(text_at(g, idx, 0, 3), "Rock");
	CHECK_STR(text_at(g, idx, 0, 6), "(none)"); /* missing: the unknown group */
	CHECK_INT(first_count(g, "Jazz"), 2);
	CHECK_INT(first_count(g, "Rock"), 2);
	CHECK_INT(first_count(g, "Pop"), 2);      /* 4, and 3 through its second genre */
	CHECK_INT(first_count(g, NULL), 1);
	uint32_t r1 = mlib_index_library_rank(idx, 1), r2 = mlib_index_library_rank(idx, 2);
	uint32_t r5 = mlib_index_library_rank(idx, 5), r6 = mlib_index_library_rank(idx, 6);
	CHECK(g->of[1][r1] == g->of[1][r2]);
	/* A value: the same title under another genre or none is one row
	 * under "All" genres, and its genre's alone under a genre. */
	CHECK(g->of[1][r1] == g->of[1][r5]);
	CHECK(g->of[1][r1] == g->of[1][r6]);
	CHECK_STR(text_at(g, idx, 1, 5), "Kind of Blue");
	/* The track under its second genre has Pop's Abbey Road, the group
	 * of track 4. */
	uint32_t r3 = mlib_index_library_rank(idx, 3), r4 = mlib_index_library_rank(idx, 4);
	REQUIRE(g->nextra == 1);
	CHECK_INT(g->extra[0].at, r3);
	CHECK(g->extra[0].grp[0] == g->of[0][r4]);
	CHECK(g->extra[0].grp[1] == g->of[1][r4]);
	CHECK(g->year_of != NULL); /* albums show their year */
	CHECK_INT(g->year_of[r1], 1959);
	/* Abbey Road's tracks share 1969; Kind of Blue's are 1959 and none. */
	CHECK_INT(g->group_year[1][g->of[1][r3]], 1969);
	CHECK_INT(g->group_year[1][g->of[1][r1]], 0);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

TEST(year_then_album_groups_by_number)
{
	struct mlib_index *idx = genre_library();
	struct mlib_levels lv = levels("year, album");
	struct mlib_groups *g = mlib_index_groups(idx, &lv);
	CHECK_INT(g->ngroups[0], 3); /* 1959, 1969, unknown */
	CHECK_STR(text_at(g, idx, 0, 1), "1959");
	CHECK_STR(text_at(g, idx, 0, 4), "1969");
	CHECK_STR(text_at(g, idx, 0, 5), "(none)");
	CHECK(g->of[0][mlib_index_library_rank(idx, 5)] == g->of[0][mlib_index_library_rank(idx, 6)]);
	CHECK_INT(g->ngroups[1], 2); /* Kind of Blue, Abbey Road, whatever the year */
	CHECK(g->of[1][mlib_index_library_rank(idx, 3)] == g->of[1][mlib_index_library_rank(idx, 4)]);
	CHECK_INT(g->nextra, 0);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

TEST(three_levels_and_a_property_no_track_has)
{
	struct mlib_index *idx = genre_library();
	struct mlib_levels lv = levels("composer genre album");
	struct mlib_groups *g = mlib_index_groups(idx, &lv);
	CHECK_INT(g->ngroups[0], 2); /* Miles, unknown */
	CHECK_STR(text_at(g, idx, 0, 6), "Miles");
	CHECK_STR(text_at(g, idx, 1, 6), "(none)");
	CHECK_STR(text_at(g, idx, 2, 6), "Kind of Blue");
	CHECK_STR(text_at(g, idx, 2, 1), "Kind of Blue");
	CHECK(g->of[2][mlib_index_library_rank(idx, 1)] == g->of[2][mlib_index_library_rank(idx, 6)]);
	mlib_groups_free(g);
	lv = levels("work");
	g = mlib_index_groups(idx, &lv); /* no track has a work: all unknown */
	CHECK_INT(g->ngroups[0], 1);
	CHECK(g->text[0][0] == NULL);
	CHECK(g->year_of == NULL);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

TEST(level_sets_parse_or_say_why_not)
{
	struct mlib_levels lv = levels("  genre,albumartist  album ");
	CHECK_INT(lv.n, 3);
	char buf[128];
	mlib_levels_format(&lv, buf, sizeof buf);
	CHECK_STR(buf, "genre albumartist album");
	struct mlib_levels d = levels(MLIB_LEVELS_DEFAULT);
	CHECK(!mlib_levels_equal(&lv, &d));
	CHECK(mlib_levels_equal(&d, &d));
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"", "no levels"},
		{"genre Album", "'Album' is not a field name"},
		{"genre title", "'title' cannot be a level"},
		{"album album", "'album' is a level twice"},
		{"genre year albumartist album", "at most 3 levels"},
		{"a:b", "'a:b' is not a field name"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct crate_err err = {0};
		struct mlib_levels keep = lv;
		CHECK_MSG(mlib_levels_parse(bad[i].text, &lv, &err) == -1, "%s", bad[i].text);
		CHECK_MSG(strstr(err.msg, bad[i].why) != NULL, "%s: %s", bad[i].text, err.msg);
		CHECK(mlib_levels_equal(&lv, &keep)); /* untouched on failure */
	}
}

TEST(empty_library_has_no_groups)
{
	struct mlib_index *idx = mlib_index_new();
	mlib_index_finish(idx);
	struct mlib_groups *g = mlib_index_groups(idx, NULL);
	CHECK_INT(g->n, 0);
	CHECK_INT(g->ngroups[0], 0);
	CHECK_INT(g->ngroups[1], 0);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

TEST(ranks_walked_or_looked_up_agree)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 200; id++) {
		char a[32];
		snprintf(a, sizeof a, "Artist %03u", (id * 37) % 200);
		mlib_index_add_media(idx, id);
		add(idx, id, "artist", a);
	}
	mlib_index_finish(idx);
	const struct u32vec *lib = mlib_index_library_order(idx);
	uint32_t ids[101], walked[101], looked[101];
	size_t n = 0;
	for (size_t r = 0; r < lib->n; r += 2) /* a set in library order */
		ids[n++] = lib->v[r];
	ids[n++] = 999; /* not in the library */
	mlib_index_ranks(idx, ids, n, true, walked);
	mlib_index_ranks(idx, ids, n, false, looked);
	for (size_t i = 0; i + 1 < n; i++) {
		CHECK_INT(walked[i], 2 * i);
		CHECK_INT(looked[i], 2 * i);
	}
	CHECK_INT(walked[n - 1], UINT32_MAX);
	CHECK_INT(looked[n - 1], UINT32_MAX);
	mlib_index_free(idx);
}
