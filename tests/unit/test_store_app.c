/* The store as the application uses it (src/app/app_coll.c): real SQLite
 * store, real in-memory index, real parser and evaluator. Party Shuffle
 * refill rules, playlist positions/sort/shuffle, forced removal keeping
 * results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_view.h"
#include "app/rules.h"
#include "base/err.h"
#include "coll/eval.h"
#include "coll/store.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "test_app_util.h"

#define NARTISTS 8
#define PER_ARTIST 5
#define NTRACKS (NARTISTS * PER_ARTIST)

/* An app over a synthetic library: track i (1..40) by "Artist (i-1)/5",
 * title "Title <41-i>" (so title order reverses id order), year 1970+i. */
static struct app *app_fixture(void)
{
	struct app *app = test_app_open();
	app->index = mlib_index_new();
	for (uint32_t i = 1; i <= NTRACKS; i++) {
		char artist[32], title[32];
		snprintf(artist, sizeof artist, "Artist %u", (i - 1) / PER_ARTIST);
		snprintf(title, sizeof title, "Title %u", NTRACKS + 1 - i);
		mlib_index_add_media(app->index, i);
		mlib_index_add_str(app->index, i, "artist", artist, strlen(artist));
		mlib_index_add_str(app->index, i, "title", title, strlen(title));
		mlib_index_set_int(app->index, i, "year", 1970 + i);
	}
	mlib_index_finish(app->index);
	return app;
}

static const struct coll_node *pl(struct app *app, const char *name)
{
	return coll_store_get(app->store, COLL_NS_PLAYLISTS, name);
}

static uint32_t artist_of(uint32_t id)
{
	return (id - 1) / PER_ARTIST;
}

/* No id twice, no artist twice in a row. */
static void check_spread(const struct u32vec *v, size_t from)
{
	for (size_t i = from; i < v->n; i++) {
		for (size_t j = from; j < i; j++)
			CHECK_MSG(v->v[i] != v->v[j], "id %u twice (entries %zu, %zu)", v->v[i], j, i);
		if (i > 0)
			CHECK_MSG(artist_of(v->v[i]) != artist_of(v->v[i - 1]),
				  "same artist at entries %zu and %zu", i - 1, i);
	}
}

TEST(app_pshuffle_fills_spreads_and_does_not_repeat)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	int rc = app_pshuffle_create(app, "Party", "*", 10, &err);
	CHECK_MSG(rc == 0, "%s", err.msg);
	REQUIRE(rc == 0);
	const struct coll_node *p = pl(app, "Party");
	REQUIRE(p != NULL);
	CHECK_STR(coll_attr_get(p, "type"), "pshuffle");
	CHECK_INT(p->idlist.n, 10);
	check_spread(&p->idlist, 0);
	/* Already full: a refill adds nothing. */
	size_t added = 99;
	REQUIRE(app_pshuffle_refill(app, COLL_NS_PLAYLISTS, "Party", &added, &err) == 0);
	CHECK_INT(added, 0);

	/* Play through: playback removes played entries; each refill must
	 * avoid the last norepeat (= 40/2 = 20) picks. */
	struct u32vec history = {0};
	for (int round = 0; round < 3; round++) {
		p = pl(app, "Party");
		for (size_t i = 0; i < p->idlist.n; i++)
			u32vec_push(&history, p->idlist.v[i]);
		REQUIRE(coll_store_playlist_remove(app->store, "Party", 0, p->idlist.n, &err) == 0);
		REQUIRE(app_pshuffle_refill(app, COLL_NS_PLAYLISTS, "Party", &added, &err) == 0);
		CHECK_INT(added, 10);
		p = pl(app, "Party");
		check_spread(&p->idlist, 0);
		size_t recent = history.n > 20 ? history.n - 20 : 0;
		for (size_t i = 0; i < p->idlist.n; i++)
			for (size_t h = recent; h < history.n; h++)
				CHECK_MSG(p->idlist.v[i] != history.v[h],
					  "round %d: %u picked again within 20 picks", round,
					  p->idlist.v[i]);
	}
	u32vec_free(&history);

	/* With a current position, "upcoming" counts entries after it. */
	struct coll_node *c = coll_node_copy(pl(app, "Party"));
	coll_attr_set(c, "position", "7"); /* 2 entries after the current one */
	REQUIRE(coll_store_save(app->store, COLL_NS_PLAYLISTS, "Party", c, &err) == 0);
	coll_node_unref(c);
	REQUIRE(app_pshuffle_refill(app, COLL_NS_PLAYLISTS, "Party", &added, &err) == 0);
	CHECK_INT(added, 8);
	CHECK_INT(pl(app, "Party")->idlist.n, 18);
	check_spread(&pl(app, "Party")->idlist, 0);
	test_app_close(app);
}

TEST(app_pshuffle_small_sources_and_errors)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	/* Two tracks, ten wanted: accepted, and each source item at most once. */
	REQUIRE(app_pshuffle_create(app, "Small", "#1-2", 10, &err) == 0);
	const struct coll_node *p = pl(app, "Small");
	CHECK_INT(p->idlist.n, 2);
	CHECK(p->idlist.n == 2 && p->idlist.v[0] != p->idlist.v[1]);
	for (size_t i = 0; i < p->idlist.n; i++)
		CHECK(p->idlist.v[i] == 1 || p->idlist.v[i] == 2);
	/* An empty source fills nothing, without error. */
	REQUIRE(app_pshuffle_create(app, "Empty", "a:Nobody", 5, &err) == 0);
	CHECK_INT(pl(app, "Empty")->idlist.n, 0);
	/* The source is a query over saved collections, references checked. */
	CHECK_INT(app_pshuffle_create(app, "Bad", "in:Nope", 5, &err), -1);
	CHECK_INT(app_pshuffle_create(app, "Default", "*", 5, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_EXISTS);
	CHECK_INT(app_pshuffle_refill(app, COLL_NS_PLAYLISTS, "Default", NULL, &err), -1);
	/* Re-sourcing keeps the entries. */
	REQUIRE(app_pshuffle_create(app, "Small", "#3-40", 12, &err) == 0);
	p = pl(app, "Small");
	CHECK_INT(p->idlist.n, 12);
	CHECK(p->idlist.v[0] == 1 || p->idlist.v[0] == 2);
	CHECK(p->idlist.v[11] >= 3);
	test_app_close(app);
}

static struct coll_node *list_of(const uint32_t *ids, size_t n, const char *pos)
{
	struct coll_node *l = coll_node_new(COLL_IDLIST);
	for (size_t i = 0; i < n; i++)
		u32vec_push(&l->idlist, ids[i]);
	if (pos)
		coll_attr_set(l, "position", pos);
	return l;
}

static void save_list(struct app *app, const char *name, const uint32_t *ids, size_t n,
		      const char *pos)
{
	struct crate_err err = {0};
	struct coll_node *l = list_of(ids, n, pos);
	int rc = coll_store_save(app->store, COLL_NS_PLAYLISTS, name, l, &err);
	CHECK_MSG(rc == 0, "%s", err.msg);
	coll_node_unref(l);
}

static bool ids_are(const struct coll_node *n, const uint32_t *ids, size_t k)
{
	return n && n->idlist.n == k && (k == 0 || memcmp(n->idlist.v, ids, k * sizeof *ids) == 0);
}

TEST(app_playlist_remove_positions)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	uint32_t ids[] = {1, 2, 3, 4, 5, 6, 7, 8};
	save_list(app, "L", ids, 8, "4"); /* entry 5 is current */
	size_t removed;
	REQUIRE(app_playlist_remove_positions(app, "L", "1,3-4", &removed, &err) == 0);
	CHECK_INT(removed, 3);
	uint32_t e1[] = {2, 5, 6, 7, 8};
	CHECK(ids_are(pl(app, "L"), e1, 5));
	CHECK_STR(coll_attr_get(pl(app, "L"), "position"), "1");
	REQUIRE(app_playlist_remove_positions(app, "L", "2 4-", &removed, &err) == 0);
	CHECK_INT(removed, 3); /* current removed: the next kept entry is current */
	uint32_t e2[] = {2, 6};
	CHECK(ids_are(pl(app, "L"), e2, 2));
	CHECK_STR(coll_attr_get(pl(app, "L"), "position"), "1");
	const char *bad[] = {"0", "3", "2-1", "x", "", "-", "1,,", "1-2-3"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_MSG(app_playlist_remove_positions(app, "L", bad[i], NULL, &err) == -1,
			  "'%s' accepted", bad[i]);
		CHECK_INT(err.code, CRATE_ERR_INVALID);
	}
	CHECK(ids_are(pl(app, "L"), e2, 2));
	REQUIRE(app_playlist_remove_positions(app, "L", "-2", &removed, &err) == 0);
	CHECK_INT(pl(app, "L")->idlist.n, 0);
	CHECK_INT(app_playlist_remove_positions(app, "Nope", "1", NULL, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	test_app_close(app);
}

TEST(app_playlist_sort_shuffle_add)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	/* 999 is not in the library: kept, at the end. */
	uint32_t ids[] = {3, 999, 12, 7, 3, 40};
	save_list(app, "L", ids, 6, "2"); /* id 12 current */
	int rc = app_playlist_sort(app, "L", "title", NULL, &err);
	CHECK_MSG(rc == 0, "%s", err.msg);
	/* Titles reverse id order ("Title 1" is id 40), natural order. */
	uint32_t e1[] = {40, 12, 7, 3, 3, 999};
	CHECK(ids_are(pl(app, "L"), e1, 6));
	CHECK_STR(coll_attr_get(pl(app, "L"), "position"), "1");
	REQUIRE(app_playlist_sort(app, "L", "-year", NULL, &err) == 0);
	CHECK(ids_are(pl(app, "L"), e1, 6));
	REQUIRE(app_playlist_sort(app, "L", "artist, -title", NULL, &err) == 0);
	uint32_t e2[] = {3, 3, 7, 12, 40, 999};
	CHECK(ids_are(pl(app, "L"), e2, 6));
	CHECK_INT(app_playlist_sort(app, "L", "", NULL, &err), -1);
	CHECK_INT(app_playlist_sort(app, "L", "artist,random", NULL, &err), -1);
	CHECK_INT(app_playlist_sort(app, "L", "ti(tle", NULL, &err), -1);

	REQUIRE(app_playlist_shuffle(app, "L", NULL, &err) == 0);
	const struct coll_node *s = pl(app, "L");
	CHECK_STR(coll_attr_get(s, "position"), "0");
	CHECK_INT(s->idlist.v[0], 12); /* the current entry goes first */
	uint32_t sum = 0;
	for (size_t i = 0; i < s->idlist.n; i++)
		sum += s->idlist.v[i];
	CHECK_INT(sum, 3 + 999 + 12 + 7 + 3 + 40);

	size_t added;
	REQUIRE(app_playlist_add_query(app, NULL, "a:\"Artist 1\" ORDER BY -year", 0, &added, NULL, &err) ==
		0);
	CHECK_INT(added, 5);
	uint32_t e3[] = {10, 9, 8, 7, 6};
	CHECK(ids_are(pl(app, "Default"), e3, 5));
	REQUIRE(app_playlist_insert_query(app, NULL, 1, "#1", 0, &added, NULL, &err) == 0);
	CHECK_INT(pl(app, "Default")->idlist.v[1], 1);
	CHECK_INT(app_playlist_add_query(app, NULL, "a:", 0, &added, NULL, &err), -1);
	CHECK(err.pos > 0);
	REQUIRE(app_playlist_clear(app, NULL, NULL, &err) == 0);
	CHECK_INT(pl(app, "Default")->idlist.n, 0);
	test_app_close(app);
}

TEST(app_saved_queries_and_forced_remove_keep_results)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	REQUIRE(app_coll_save_query(app, "Early", "year<1990", &err) == 0);
	REQUIRE(app_coll_save_query(app, "Early odd", "in:Early a:\"Artist 1\"", &err) == 0);
	CHECK_INT(app_coll_save_query(app, "Playlists/P", "*", &err), -1);
	CHECK_INT(app_coll_save_query(app, "Broken", "a:", &err), -1);
	struct coll_result before = {0}, after = {0};
	REQUIRE(app_eval_named(app, COLL_NS_COLLECTIONS, "Early odd", &before, &err) == 0);
	CHECK_INT(before.ids.n, 5);
	REQUIRE(coll_store_remove(app->store, COLL_NS_COLLECTIONS, "Early", true, &err) == 0);
	int rc = app_eval_named(app, COLL_NS_COLLECTIONS, "Early odd", &after, &err);
	CHECK_MSG(rc == 0, "%s", err.msg);
	CHECK(after.ids.n == before.ids.n &&
	      memcmp(after.ids.v, before.ids.v, before.ids.n * sizeof *before.ids.v) == 0);
	coll_result_free(&before);
	coll_result_free(&after);
	struct coll_result all = {0};
	REQUIRE(app_eval_named(app, COLL_NS_COLLECTIONS, "All Media", &all, &err) == 0);
	CHECK_INT(all.ids.n, NTRACKS);
	coll_result_free(&all);
	CHECK_INT(app_eval_named(app, COLL_NS_COLLECTIONS, "Early", &all, &err), -1);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	test_app_close(app);
}

/* The interface's edits through app (app_view.h): marked positions moved
 * and removed on the active playlist (NULL name), the interface's adds
 * recorded, and undo saying what it undid. */
TEST(app_playlist_edits_of_marks_and_undo)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	uint32_t ids[] = {1, 2, 3, 4, 5};
	CHECK_INT(app_playlist_insert_ids(app, NULL, SIZE_MAX, ids, 5, &err), 0);
	size_t pos[] = {4, 2}, moved;
	CHECK_INT(app_playlist_move_entries(app, NULL, pos, 2, -1, &moved, &err), 0);
	CHECK_INT(moved, 2);
	CHECK_INT(pos[0], 1); /* ascending: where 3 and 5 went */
	CHECK_INT(pos[1], 3);
	const struct coll_node *d = pl(app, "Default");
	uint32_t want[] = {1, 3, 2, 5, 4};
	CHECK(d->idlist.n == 5 && memcmp(d->idlist.v, want, sizeof want) == 0);
	size_t removed;
	CHECK_INT(app_playlist_remove_entries(app, NULL, pos, 2, &removed, &err), 0);
	CHECK_INT(removed, 2);
	CHECK_INT(pl(app, "Default")->idlist.n, 3);
	char *what;
	CHECK_INT(app_playlist_undo(app, &what, &err), 0);
	CHECK_STR(what, "removal of 2 entries in Default");
	free(what);
	CHECK_INT(app_playlist_undo(app, &what, &err), 0);
	CHECK_STR(what, "move of 2 entries in Default");
	free(what);
	CHECK_INT(app_playlist_undo(app, &what, &err), 0);
	CHECK_STR(what, "addition of 5 entries in Default");
	free(what);
	CHECK_INT(pl(app, "Default")->idlist.n, 0);
	CHECK_INT(app_playlist_undo(app, &what, &err), -1);
	CHECK(what == NULL);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	test_app_close(app);
}
