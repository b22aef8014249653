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
	const char *t = g->artist_text[g->artist_of[r]];
	return t ? t : "(none)";
}

static uint32_t album_of(const struct mlib_groups *g, const struct mlib_index *idx, uint32_t id)
{
	return g->album_of[mlib_index_library_rank(idx, id)];
}

/* Tracks listed under the artist with this text: first artists and extras. */
static unsigned artist_count(const struct mlib_groups *g, const char *text)
{
	unsigned n = 0;
	for (uint32_t r = 0; r < g->n; r++) {
		const char *t = g->artist_text[g->artist_of[r]];
		n += (!t && !text) || (t && text && strcmp(t, text) == 0);
	}
	for (size_t k = 0; k < g->nextra; k++) {
		const char *t = g->artist_text[g->extra[k].artist];
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
	struct mlib_groups *g = mlib_index_groups(idx);
	CHECK_INT(g->n, 6);
	CHECK_INT(g->nartists, 3); /* Ann, Bob, unknown */
	CHECK_INT(g->nalbums, 4);  /* Ann's two, Bob's one, none */
	CHECK_INT(g->nextra, 0);
	CHECK_STR(artist_of(g, idx, 1), "Ann");
	CHECK_STR(artist_of(g, idx, 4), "Ann");
	CHECK_STR(artist_of(g, idx, 5), "Bob");
	CHECK_STR(artist_of(g, idx, 6), "(none)");
	CHECK_INT(artist_count(g, "Ann"), 4);
	CHECK_INT(artist_count(g, "Bob"), 1);
	CHECK_INT(artist_count(g, NULL), 1);
	CHECK(album_of(g, idx, 1) == album_of(g, idx, 2));
	CHECK(album_of(g, idx, 1) == album_of(g, idx, 4));
	CHECK(album_of(g, idx, 1) != album_of(g, idx, 3));
	CHECK(album_of(g, idx, 1) != album_of(g, idx, 5)); /* same title, other artist */
	CHECK_STR(g->album_text[album_of(g, idx, 5)], "Greatest Hits");
	CHECK(g->album_text[album_of(g, idx, 6)] == NULL);
	CHECK_INT(g->year_of[mlib_index_library_rank(idx, 5)], 1999);
	CHECK_INT(g->year_of[mlib_index_library_rank(idx, 1)], 0);
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
	struct mlib_groups *g = mlib_index_groups(idx);
	CHECK_STR(artist_of(g, idx, 1), "Cat");
	CHECK_STR(artist_of(g, idx, 3), "Eve");
	CHECK_STR(artist_of(g, idx, 4), "Hal");
	REQUIRE(g->nextra == 2);
	CHECK_INT(artist_count(g, "Cat"), 1);
	CHECK_INT(artist_count(g, "Dan"), 2);
	CHECK_INT(artist_count(g, "Fay"), 0);
	CHECK_INT(artist_count(g, "Ivy"), 1);
	/* Extras are sorted by rank and found by it; the duet's album under
	 * Dan is Dan's "Duets", not Cat's and not Dan's "Solo". */
	uint32_t r1 = mlib_index_library_rank(idx, 1);
	size_t k = mlib_extra_find(g->extra, g->nextra, r1);
	REQUIRE(k < g->nextra);
	CHECK_STR(g->artist_text[g->extra[k].artist], "Dan");
	CHECK(g->extra[k].album != g->album_of[r1]);
	CHECK(g->extra[k].album != album_of(g, idx, 2));
	CHECK_STR(g->album_text[g->extra[k].album], "Duets");
	CHECK(g->extra[0].at <= g->extra[1].at);
	CHECK_INT(mlib_extra_find(g->extra, g->nextra, mlib_index_library_rank(idx, 2)), g->nextra);
	CHECK_INT(g->year_of[mlib_index_library_rank(idx, 5)], 2004);
	mlib_groups_free(g);
	mlib_index_free(idx);
}

TEST(empty_library_has_no_groups)
{
	struct mlib_index *idx = mlib_index_new();
	mlib_index_finish(idx);
	struct mlib_groups *g = mlib_index_groups(idx);
	CHECK_INT(g->n, 0);
	CHECK_INT(g->nartists, 0);
	CHECK_INT(g->nalbums, 0);
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
