/* app/app_view: what the interface reads through the application. The
 * index generation (a new index at the old address is still noticed), the
 * library groups cached per generation, a view (collection AND search)
 * evaluated, a node saved, playlist edits by position, the search bar's
 * correction words built in the background once per index (a keystroke
 * never waits for them; a stale build is discarded). Real SQLite store,
 * real index, parser and evaluator. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_typo.h"
#include "app/app_view.h"
#include "app/rules.h"
#include "base/err.h"
#include "coll/eval_cache.h"
#include "coll/store.h"
#include "coll/typo.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_groups.h"
#include "medialib/index_load.h"
#include "medialib/item_format.h"
#include "medialib/media.h"
#include "medialib/tags.h"
#include "test_app_util.h"

/* An index of n tracks: track i by "<artist> <(i-1)/3>", title "Song i". */
static struct mlib_index *library(uint32_t n, const char *artist)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t i = 1; i <= n; i++) {
		char a[64], t[32];
		snprintf(a, sizeof a, "%s %u", artist, (i - 1) / 3);
		snprintf(t, sizeof t, "Song %u", i);
		mlib_index_add_media(idx, i);
		mlib_index_add_str(idx, i, "artist", a, strlen(a));
		mlib_index_add_str(idx, i, "title", t, strlen(t));
	}
	mlib_index_finish(idx);
	return idx;
}

static struct app *app_fixture(void)
{
	struct app *app = test_app_open();
	app_index_replace(app, library(9, "Ann"));
	return app;
}

TEST(a_new_index_at_the_old_address_is_noticed)
{
	struct app *app = app_fixture();
	const struct mlib_groups *g = app_library_groups(app, NULL);
	REQUIRE(g != NULL);
	CHECK_INT(g->ngroups[0], 3);
	CHECK_STR(g->text[0][0], "Ann 0");
	CHECK(app_library_groups(app, NULL) == g); /* cached while the index stays */
	unsigned gen = app_index_generation(app);
	/* Free the index first, so the next one is likely allocated where it
	 * was: the pointer alone cannot tell them apart. */
	const void *old = app->index;
	mlib_index_free(app->index);
	app->index = NULL;
	struct mlib_index *idx = library(6, "Bob");
	app_index_replace(app, idx);
	CHECK(app_index_generation(app) != gen);
	g = app_library_groups(app, NULL);
	REQUIRE(g != NULL);
	CHECK_INT(g->n, 6);
	CHECK_INT(g->ngroups[0], 2);
	CHECK_STR(g->text[0][0], "Bob 0");
	printf("# new index %s the old address\n", (const void *)idx == old ? "at" : "not at");
	test_app_close(app);
}

TEST(an_eval_cache_is_dropped_with_the_index)
{
	struct app *app = app_fixture();
	struct app_eval_cache c = {0};
	struct coll_eval_ctx ctx;
	app_eval_ctx_cached(app, &c, &ctx);
	REQUIRE(c.cache != NULL);
	CHECK(ctx.cache == c.cache);
	CHECK_INT(c.generation, app_index_generation(app));
	app_index_replace(app, library(3, "Cy"));
	app_eval_ctx_cached(app, &c, &ctx);
	CHECK_INT(c.generation, app_index_generation(app));
	CHECK(ctx.index == app->index);
	app_eval_cache_free(&c);
	test_app_close(app);
}

TEST(correction_words_are_built_in_the_background_once_per_index)
{
	struct app *app = app_fixture();
	struct app_eval_cache c = {0};
	struct coll_eval_ctx ctx;
	app_eval_ctx_cached(app, &c, &ctx); /* the search bar's view: the build starts */
	REQUIRE(app->typo != NULL);
	const struct coll_typo_dict *d = app_typo_wait(app);
	REQUIRE(d != NULL);
	CHECK(coll_typo_dict_fits(d, app->index));
	const char *fix[3];
	REQUIRE(coll_typo_lookup(d, "sonng", fix, 3) == 1);
	CHECK_STR(fix[0], "song");
	bool pending = true;
	CHECK(app_typo_get(app, app->index, &pending) == d);
	CHECK(!pending);
	CHECK(coll_cache_typo_dict(c.cache, app->index) == d); /* the cache borrows it */
	app_eval_ctx_cached(app, &c, &ctx);
	CHECK(app_typo_get(app, app->index, &pending) == d); /* once per index */
	/* A new index: the old words go with the old index and the new
	 * index's build starts at once; a replacement stops a build under way. */
	app_index_replace(app, library(3000, "Dee"));
	REQUIRE(app->typo != NULL);
	app_index_replace(app, library(3, "Eve"));
	app_eval_ctx_cached(app, &c, &ctx);
	d = app_typo_wait(app);
	REQUIRE(d != NULL);
	CHECK(coll_typo_dict_fits(d, app->index));
	CHECK(coll_typo_lookup(d, "evw", fix, 3) == 0); /* 3 letters: never corrected */
	/* a cancelled build gives nothing */
	struct coll_typo_source src;
	coll_typo_source_get(app->index, &src);
	atomic_int cancel;
	atomic_init(&cancel, 1);
	CHECK(coll_typo_dict_build_from(&src, &cancel) == NULL);
	app_eval_cache_free(&c);
	test_app_close(app);
}

/* Wait (no time limit) for the build under way to say it is done. */
static bool typo_ready(struct app *app)
{
	int fd = app_typo_event_fd(app);
	REQUIRE(fd >= 0);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (poll(&p, 1, -1) < 0)
		;
	return app_typo_poll(app);
}

static size_t view_search(struct app *app, struct app_eval_cache *c, const char *text,
			  struct strbuf *notes)
{
	struct crate_err err = {0};
	struct coll_node *q = app_parse_query(app, text, false, &err);
	REQUIRE(q != NULL);
	struct app_view v = {.query = q, .text = text, .search = true, .cache = c};
	struct coll_result r = {0};
	strbuf_reset(notes);
	CHECK_MSG(app_view_eval(app, &v, &r, notes, &err) == 0, "%s", err.msg);
	size_t n = r.ids.n;
	coll_result_free(&r);
	coll_node_unref(q);
	return n;
}

/* Issue 21: the first keystroke needing a correction built the whole
 * dictionary (or waited for the build), ~140 ms at a million tracks. Now
 * it answers without corrections, and once the build is done the search
 * bar is told to search again, which offers them. */
TEST(a_keystroke_never_waits_for_the_correction_words)
{
	struct app *app = app_fixture();
	app_typo_hold(true); /* the build cannot finish before the keystroke */
	struct app_eval_cache c = {0};
	struct strbuf notes;
	strbuf_init(&notes, 16);
	CHECK_INT(view_search(app, &c, "sonng", &notes), 0); /* a fresh cache */
	CHECK_STR(notes.buf, "");
	REQUIRE(app->typo != NULL);
	bool pending = false;
	CHECK(app_typo_get(app, app->index, &pending) == NULL);
	CHECK(pending);
	CHECK(!app_typo_poll(app)); /* not done: nothing to search again */
	app_typo_hold(false);
	CHECK(typo_ready(app)); /* done, and a search went without it */
	CHECK_INT(view_search(app, &c, "sonng", &notes), 9);
	CHECK_MSG(strstr(notes.buf, "song") != NULL, "note: '%s'", notes.buf);
	CHECK(!app_typo_poll(app)); /* said once */
	strbuf_free(&notes);
	app_eval_cache_free(&c);
	test_app_close(app);
}

/* A build for an index that was replaced is cancelled and its words are
 * never offered for the new one, wherever the new index was allocated. */
TEST(a_stale_build_is_discarded_after_an_index_swap)
{
	struct app *app = app_fixture();
	struct app_eval_cache c = {0};
	struct strbuf notes;
	strbuf_init(&notes, 16);
	app_typo_hold(true);
	CHECK_INT(view_search(app, &c, "annn", &notes), 0); /* Ann's build starts, held */
	unsigned first = app_index_generation(app);
	/* The library reloads while the build waits: it is stopped (a held
	 * build too), and the new index's build starts. */
	app_index_replace(app, library(30, "Dora"));
	REQUIRE(app->typo != NULL);
	CHECK(app_index_generation(app) != first);
	bool pending = false;
	CHECK(app_typo_get(app, app->index, &pending) == NULL);
	CHECK(pending);
	CHECK_INT(view_search(app, &c, "annn", &notes), 0);
	CHECK_STR(notes.buf, "");
	app_typo_hold(false);
	CHECK(typo_ready(app));
	const struct coll_typo_dict *d = app_typo_get(app, app->index, &pending);
	REQUIRE(d != NULL);
	CHECK(coll_typo_dict_fits(d, app->index));
	const char *fix[3];
	CHECK(coll_typo_lookup(d, "annn", fix, 3) == 0); /* no word of the old index */
	REQUIRE(coll_typo_lookup(d, "dorra", fix, 3) == 1);
	CHECK_STR(fix[0], "dora");
	/* A finished build goes with its index too: the next one's words are
	 * its own, even at the old index's address. */
	const void *old = app->index;
	mlib_index_free(app->index);
	app->index = NULL;
	app_typo_hold(true);
	app_index_replace(app, library(6, "Bob"));
	printf("# new index %s the old address\n", (const void *)app->index == old ? "at" : "not at");
	CHECK(app_typo_get(app, app->index, &pending) == NULL);
	CHECK(pending);
	CHECK_INT(view_search(app, &c, "dorra", &notes), 0);
	CHECK_STR(notes.buf, "");
	app_typo_hold(false);
	CHECK(typo_ready(app));
	CHECK_INT(view_search(app, &c, "dorra", &notes), 0); /* Bob's words only */
	CHECK_INT(view_search(app, &c, "bobb", &notes), 6);
	strbuf_free(&notes);
	app_eval_cache_free(&c);
	test_app_close(app);
}

TEST(a_view_is_its_collection_and_search)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	CHECK_MSG(app_coll_save_query(app, "Ann1", "artist:\"Ann 1\"", &err) == 0, "%s", err.msg);
	struct coll_node *q = app_parse_query(app, "song", false, &err);
	REQUIRE(q != NULL);
	struct app_eval_cache c = {0};
	struct app_view v = {.query = q, .text = "song", .search = true, .cache = &c};
	struct coll_result r = {0};
	struct strbuf notes;
	strbuf_init(&notes, 16);
	REQUIRE(app_view_eval(app, &v, &r, &notes, &err) == 0);
	CHECK_INT(r.ids.n, 9); /* All Media AND song */
	coll_result_free(&r);
	v.base_ns = "Collections";
	v.base_name = "Ann1";
	REQUIRE(app_view_eval(app, &v, &r, &notes, &err) == 0);
	CHECK_INT(r.ids.n, 3); /* Ann 1's three songs */
	coll_result_free(&r);
	/* A typo is forgiven in a search and said so, once the correction
	 * words are ready (built in the background: a keystroke never waits). */
	REQUIRE(app_typo_wait(app) != NULL);
	coll_node_unref(q);
	q = app_parse_query(app, "sonng", false, &err);
	REQUIRE(q != NULL);
	v.query = q;
	v.text = "sonng";
	strbuf_reset(&notes);
	REQUIRE(app_view_eval(app, &v, &r, &notes, &err) == 0);
	CHECK_INT(r.ids.n, 3);
	CHECK_MSG(notes.len > 0, "no note for a forgiven typo");
	coll_result_free(&r);
	/* The view saved as a collection of its own. */
	struct coll_node *node = app_view_node(&v);
	char *saved = NULL;
	CHECK_MSG(app_coll_save_node(app, "Typo", node, &saved, &err) == 0, "%s", err.msg);
	CHECK_STR(saved, "Collections/Typo");
	free(saved);
	coll_node_unref(node);
	CHECK(app_coll_get(app, "Collections", "Typo") != NULL);
	CHECK(app_coll_save_node(app, "Playlists/x", q, NULL, &err) != 0); /* not a list */
	REQUIRE(app_eval_named(app, "Collections", "Ann1", &r, &err) == 0);
	CHECK_INT(r.ids.n, 3);
	coll_result_free(&r);
	strbuf_free(&notes);
	coll_node_unref(q);
	app_eval_cache_free(&c);
	test_app_close(app);
}

TEST(playlist_edits_by_position)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	REQUIRE(app_playlist_new(app, "Mix", &err) == 0);
	REQUIRE(app_playlist_use(app, "Mix", &err) == 0);
	CHECK_STR(app_playlist_active(app), "Mix");
	unsigned gen = app_store_generation(app);
	uint32_t ids[] = {4, 5, 6};
	CHECK_MSG(app_playlist_insert_ids(app, NULL, SIZE_MAX, ids, 3, &err) == 0, "%s", err.msg);
	CHECK(app_store_generation(app) != gen);
	uint32_t first[] = {9};
	CHECK_MSG(app_playlist_insert_ids(app, "Mix", 0, first, 1, &err) == 0, "%s", err.msg);
	const struct coll_node *pl = app_playlist_get(app, NULL);
	REQUIRE(pl && pl->idlist.n == 4);
	CHECK_INT(pl->idlist.v[0], 9);
	CHECK_INT(pl->idlist.v[3], 6);
	CHECK_MSG(app_playlist_remove_at(app, NULL, 1, 2, &err) == 0, "%s", err.msg);
	pl = app_playlist_get(app, "Mix");
	REQUIRE(pl && pl->idlist.n == 2);
	CHECK_INT(pl->idlist.v[1], 6);
	CHECK(app_playlist_insert_ids(app, "Nope", 0, ids, 1, &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	char **names;
	size_t n = app_coll_list(app, "Playlists", &names);
	bool mix = false;
	for (size_t i = 0; i < n; i++) {
		mix = mix || strcmp(names[i], "Mix") == 0;
		free(names[i]);
	}
	CHECK(mix);
	free(names);
	test_app_close(app);
}

/* like: on a library where nothing is analysed says so, not a crash: the
 * similarity space of no rows was built from a NULL id array (UBSan:
 * memcpy from NULL; CI's tui_analysis_auto_off_is_respected), and the
 * message counted a freed list ("the collection is empty (1 items)"). */
TEST(like_with_nothing_analysed_says_so)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	struct coll_node *q = app_parse_query(app, "like:t:\"Song 1\"", false, &err);
	REQUIRE(q != NULL);
	struct app_view v = {.query = q, .text = "like:t:\"Song 1\"", .search = true};
	struct coll_result r = {0};
	struct strbuf notes;
	strbuf_init(&notes, 16);
	CHECK(app_view_eval(app, &v, &r, &notes, &err) != 0);
	CHECK_STR(err.msg, "like: none of the 1 item is analysed (run 'crate analyze')");
	coll_result_free(&r);
	strbuf_free(&notes);
	coll_node_unref(q);
	test_app_close(app);
}

/* The ids of a search of text, with c (may be NULL: evaluated afresh). */
static struct coll_result search_ids(struct app *app, struct app_eval_cache *c, const char *base,
				     const char *text)
{
	struct crate_err err = {0};
	struct coll_node *q = app_parse_query(app, text, false, &err);
	REQUIRE(q != NULL);
	struct app_view v = {.base_ns = base ? "Collections" : NULL, .base_name = base,
			     .query = q, .text = text, .search = true, .cache = c};
	struct coll_result r = {0};
	CHECK_MSG(app_view_eval(app, &v, &r, NULL, &err) == 0, "%s", err.msg);
	coll_node_unref(q);
	return r;
}

static bool same_ids(const struct coll_result *a, const struct coll_result *b)
{
	return a->ids.n == b->ids.n && a->ordered == b->ordered &&
	       (!a->ids.n || memcmp(a->ids.v, b->ids.v, a->ids.n * sizeof *a->ids.v) == 0);
}

/* c as the search bar has it: the correction words built (searches that
 * go without them are not kept). */
static void search_bar_cache(struct app *app, struct app_eval_cache *c)
{
	struct coll_eval_ctx ctx;
	app_eval_ctx_cached(app, c, &ctx); /* the correction words' build starts */
	REQUIRE(app_typo_wait(app) != NULL);
}

/* Issue 21: backspacing to a query typed a moment ago evaluated it again
 * (20-30 ms a key at a million tracks). The last views' results are kept:
 * the same query (and base) is answered from them, ranked the same. */
TEST(typing_back_to_an_earlier_query_shows_its_results_again)
{
	struct app *app = app_fixture();
	struct app_eval_cache c = {0};
	search_bar_cache(app, &c);
	const char *typed[] = {"song", "song 1", "song 1 OR ann", "song 1", "song"};
	for (size_t i = 0; i < 5; i++) {
		struct coll_result kept = search_ids(app, &c, NULL, typed[i]);
		struct coll_result fresh = search_ids(app, NULL, NULL, typed[i]);
		CHECK_MSG(same_ids(&kept, &fresh), "%s: %zu vs %zu ids", typed[i], kept.ids.n,
			  fresh.ids.n);
		coll_result_free(&kept);
		coll_result_free(&fresh);
	}
	CHECK_INT(c.memo_hits, 2); /* the last two were typed before */
	app_eval_cache_free(&c);
	test_app_close(app);
}

/* A keystroke that leaves the searched set and the ranking's words as they
 * were (typing "y>19" after "y>1", a space, a NOT not yet finished) ranked
 * the set again: 5-6 ms a key at 250k results. It takes the ranking kept
 * with an earlier keystroke's results, equal to one made afresh; other
 * words, or a rating since, rank again. */
TEST(the_same_set_with_the_same_words_takes_the_kept_ranking)
{
	struct app *app = app_fixture();
	struct app_eval_cache c = {0};
	search_bar_cache(app, &c);
	const char *typed[] = {"song", "song NOT artist:zzz", "song NOT artist:zzzq",
			       "song OR zzz"};
	unsigned reuses[] = {0, 1, 2, 2}; /* "OR zzz": another word to rank by */
	for (size_t i = 0; i < 4; i++) {
		struct coll_result kept = search_ids(app, &c, NULL, typed[i]);
		struct coll_result fresh = search_ids(app, NULL, NULL, typed[i]);
		CHECK_INT(kept.ids.n, 9);
		CHECK_MSG(same_ids(&kept, &fresh), "%s: not the order made afresh", typed[i]);
		CHECK_MSG(c.rank_reuses == reuses[i], "%s: %u rankings taken", typed[i], c.rank_reuses);
		coll_result_free(&kept);
		coll_result_free(&fresh);
	}
	/* rated since: ranked again, the rated item first */
	mlib_index_update_int(app->index, 5, "rating", 5);
	struct coll_result r = search_ids(app, &c, NULL, "song NOT artist:zzzr");
	REQUIRE(r.ids.n == 9);
	CHECK_INT(r.ids.v[0], 5);
	CHECK_INT(c.rank_reuses, 2);
	coll_result_free(&r);
	CHECK_INT(c.memo_hits, 0);
	app_eval_cache_free(&c);
	test_app_close(app);
}

/* What the kept results came from changes: a rating or a play (updated in
 * place), a tag edit or a scan (a new index), a saved collection the view
 * browses. The next evaluation is fresh. */
TEST(kept_results_never_outlive_a_change_to_the_library)
{
	struct app *app = app_fixture();
	struct crate_err err = {0};
	struct app_eval_cache c = {0};
	struct coll_eval_ctx ctx;
	app_eval_ctx_cached(app, &c, &ctx);
	REQUIRE(app_typo_wait(app) != NULL);
	struct coll_result r = search_ids(app, &c, NULL, "rating>3");
	CHECK_INT(r.ids.n, 0);
	coll_result_free(&r);
	mlib_index_update_int(app->index, 5, "rating", 5); /* rated in place */
	r = search_ids(app, &c, NULL, "rating>3");
	CHECK_INT(r.ids.n, 1);
	coll_result_free(&r);
	/* a rating moves an item up the ranking of a search it is in */
	r = search_ids(app, &c, NULL, "song");
	REQUIRE(r.ids.n == 9);
	CHECK_INT(r.ids.v[0], 5);
	coll_result_free(&r);
	mlib_index_update_int(app->index, 8, "rating", 5);
	mlib_index_update_int(app->index, 8, "timesplayed", 40);
	r = search_ids(app, &c, NULL, "song");
	REQUIRE(r.ids.n == 9);
	CHECK_INT(r.ids.v[0], 8);
	coll_result_free(&r);
	mlib_index_clear_int(app->index, 8, "rating");
	mlib_index_clear_int(app->index, 8, "timesplayed");
	r = search_ids(app, &c, NULL, "song");
	REQUIRE(r.ids.n == 9);
	CHECK_INT(r.ids.v[0], 5);
	coll_result_free(&r);
	/* a tag edit or a scan: a new index */
	r = search_ids(app, &c, NULL, "bob");
	CHECK_INT(r.ids.n, 0);
	coll_result_free(&r);
	app_index_replace(app, library(6, "Bob"));
	r = search_ids(app, &c, NULL, "bob");
	CHECK_INT(r.ids.n, 6);
	coll_result_free(&r);
	/* a saved collection browsed, redefined */
	CHECK_MSG(app_coll_save_query(app, "B", "artist:\"Bob 0\"", &err) == 0, "%s", err.msg);
	r = search_ids(app, &c, "B", "song");
	CHECK_INT(r.ids.n, 3);
	coll_result_free(&r);
	CHECK_MSG(app_coll_save_query(app, "B", "title:\"Song 1\"", &err) == 0, "%s", err.msg);
	r = search_ids(app, &c, "B", "song");
	CHECK_INT(r.ids.n, 1);
	coll_result_free(&r);
	CHECK_INT(c.memo_hits, 0);
	app_eval_cache_free(&c);
	test_app_close(app);
}

/* Ages count back from the moment of the search (added<7d): such a view is
 * evaluated every time, as are random orders. */
TEST(views_that_depend_on_the_moment_are_not_kept)
{
	struct app *app = app_fixture();
	struct app_eval_cache c = {0};
	search_bar_cache(app, &c);
	for (int i = 0; i < 2; i++) {
		struct coll_result r = search_ids(app, &c, NULL, "lastplayed<7d OR song");
		CHECK_INT(r.ids.n, 9);
		coll_result_free(&r);
	}
	CHECK_INT(c.memo_hits, 0);
	app_eval_cache_free(&c);
	test_app_close(app);
}

/* Whether r carries its library ranks, each the one app_library_ranks looks up. */
static bool ranks_are_right(struct app *app, const struct coll_result *r, const char *what)
{
	if (r->ranks.n != r->ids.n) {
		CHECK_MSG(false, "%s: %zu ranks for %zu ids", what, r->ranks.n, r->ids.n);
		return false;
	}
	uint32_t *want = xmalloc((r->ids.n + 1) * sizeof *want);
	app_library_ranks(app, r->ids.v, r->ids.n, false, want);
	size_t bad = r->ids.n;
	for (size_t i = 0; i < r->ids.n && bad == r->ids.n; i++)
		if (r->ranks.v[i] != want[i])
			bad = i;
	CHECK_MSG(bad == r->ids.n, "%s: #%u at %zu has rank %u, want %u", what,
		  bad < r->ids.n ? r->ids.v[bad] : 0, bad, bad < r->ids.n ? r->ranks.v[bad] : 0,
		  bad < r->ids.n ? want[bad] : 0);
	free(want);
	return bad == r->ids.n;
}

/* Issue 21: the browser looked up every result's library rank (a random
 * read each, 9% of a keystroke at a million tracks). A view asked for
 * ranks brings them from the evaluation: sets (every member, many, few),
 * ranked searches (moved along by the ranking), a search in a collection,
 * the best of a search (LIMIT), and a result kept from an earlier
 * keystroke. */
TEST(a_view_brings_the_library_ranks_of_its_results)
{
	struct app *app = test_app_open();
	/* ids apart from library order: artists by a stride through 40 names */
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t i = 1; i <= 3000; i++) {
		char a[32], t[32];
		snprintf(a, sizeof a, "Band %u", (i * 17) % 40);
		snprintf(t, sizeof t, "%s %u", i % 7 ? "Song" : "Tune", i);
		mlib_index_add_media(idx, i);
		mlib_index_add_str(idx, i, "artist", a, strlen(a));
		mlib_index_add_str(idx, i, "title", t, strlen(t));
		mlib_index_set_int(idx, i, "timesplayed", i % 5);
	}
	mlib_index_finish(idx);
	app_index_replace(app, idx);
	struct crate_err err = {0};
	CHECK_MSG(app_coll_save_query(app, "Tunes", "title~tune", &err) == 0, "%s", err.msg);
	struct app_eval_cache c = {0};
	const struct {
		const char *base, *text;
		bool search;
	} views[] = {
		{NULL, NULL, false},	     {NULL, "artist:\"band 3\"", false},
		{NULL, "song", true},	     {NULL, "band 1", true},
		{NULL, "tune OR band 2", true}, {"Tunes", "band", true},
		{NULL, "song LIMIT 40 OFFSET 7", true}, /* the best 40 after 7 */
		{NULL, "song", true}, /* typed before: kept */
	};
	for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
		struct coll_node *q = views[i].text ? app_parse_query(app, views[i].text, false, &err)
						    : NULL;
		REQUIRE(!views[i].text || q);
		struct app_view v = {.base_ns = views[i].base ? "Collections" : NULL,
				     .base_name = views[i].base, .query = q, .text = views[i].text,
				     .search = views[i].search, .cache = &c, .ranks = true};
		struct coll_result r = {0}, plain = {0};
		CHECK_MSG(app_view_eval(app, &v, &r, NULL, &err) == 0, "%s", err.msg);
		v.ranks = false;
		v.cache = NULL;
		CHECK_MSG(app_view_eval(app, &v, &plain, NULL, &err) == 0, "%s", err.msg);
		const char *what = views[i].text ? views[i].text : "everything";
		CHECK_MSG(r.ids.n > 0 && same_ids(&r, &plain), "%s: %zu results with ranks, %zu without", what,
			  r.ids.n, plain.ids.n);
		ranks_are_right(app, &r, what);
		coll_result_free(&r);
		coll_result_free(&plain);
		coll_node_unref(q);
	}
	CHECK_INT(c.memo_hits, 1);
	app_eval_cache_free(&c);
	test_app_close(app);
}

/* A row written by the media library's own writer. */
static uint32_t put_row(struct mlib_media_writer *w, const char *url, const char *const *kv)
{
	struct crate_err err = {0};
	struct mlib_tags t;
	mlib_tags_init(&t);
	t.duration_ms = 60000;
	for (size_t i = 0; kv[i]; i += 2)
		mlib_tags_add(&t, kv[i], kv[i + 1]);
	uint32_t id = 0;
	CHECK_MSG(mlib_media_put(w, url, strlen(url), 10, 20, 30, &t, &id, &err) == 0, "%s", err.msg);
	mlib_tags_free(&t);
	return id;
}

static const char *value_of(struct app *app, uint32_t id, const char *name, struct strbuf *b,
			    enum item_value *k)
{
	strbuf_reset(b);
	*k = app_item_value(app, id, name, " / ", b);
	return b->buf;
}

/* A file removed while a playlist, the queue or the player holds it: the
 * index drops it, but its rows still say what it was (they showed "?"). */
TEST(a_missing_item_is_still_named_by_its_stored_tags)
{
	struct app *app = test_app_open();
	struct crate_err err = {0};
	struct mlib_media_writer *w = mlib_media_writer_new(app->db, &err);
	REQUIRE(w != NULL);
	const char *a[] = {"artist", "Longa", "artist", "Second", "title", "Long Two", "album", "LongAlb",
			   "track", "2", "mood", "calm", NULL};
	const char *b[] = {"album", "Untitled", NULL};
	const char *c[] = {"title", "Here", NULL};
	uint32_t ia = put_row(w, "/music/long2.flac", a), ib = put_row(w, "/music/no title.ogg", b);
	uint32_t ic = put_row(w, "/music/here.ogg", c);
	REQUIRE(mlib_media_set_missing(w, ia, 1, &err) == 0);
	REQUIRE(mlib_media_set_missing(w, ib, 1, &err) == 0);
	mlib_media_writer_free(w);
	struct mlib_index *idx = NULL;
	REQUIRE(mlib_index_load(app->db, &idx, &err) == 0);
	app_index_replace(app, idx);
	REQUIRE(!app_has_media(app, ia) && !app_has_media(app, ib) && app_has_media(app, ic));

	struct strbuf s;
	strbuf_init(&s, 64);
	enum item_value k;
	CHECK_STR(value_of(app, ia, "title", &s, &k), "Long Two");
	CHECK_INT(k, ITEM_TEXT);
	CHECK_STR(value_of(app, ia, "artist", &s, &k), "Longa / Second"); /* every value */
	CHECK_STR(value_of(app, ia, "album", &s, &k), "LongAlb");
	CHECK_STR(value_of(app, ia, "mood", &s, &k), "calm");
	value_of(app, ia, "duration", &s, &k); /* numbers describe a file that is gone */
	CHECK_INT(k, ITEM_ABSENT);
	value_of(app, ia, "genre", &s, &k);
	CHECK_INT(k, ITEM_ABSENT);
	CHECK_STR(value_of(app, ib, "title", &s, &k), "no title.ogg"); /* the file name, as present ones */
	CHECK_STR(value_of(app, ic, "title", &s, &k), "Here");
	value_of(app, 999, "title", &s, &k); /* no row at all (forgotten) */
	CHECK_INT(k, ITEM_ABSENT);
	char buf[64];
	const char *t = app_item_text(app, ia, "title", "; ", buf, sizeof buf);
	CHECK_STR(t ? t : "(null)", "Long Two");
	t = app_item_text(app, ia, "artist", "; ", buf, sizeof buf);
	CHECK_STR(t ? t : "(null)", "Longa; Second");
	CHECK(app_item_text(app, ib, "title", "; ", buf, sizeof buf) == NULL); /* no tag */
	strbuf_free(&s);
	test_app_close(app);
}

struct format_src {
	struct app *app;
	uint32_t id;
};

/* A format read through the application, as both front ends' rows are. */
static enum item_value format_value(void *ud, const char *name, struct strbuf *out)
{
	const struct format_src *s = ud;
	return app_item_value(s->app, s->id, name, " / ", out);
}

/* %id% of an item the index lacks is its entry's own number, known from
 * the entry whether or not its file (or row) remains; it was empty, like
 * the numbers that describe a file that is gone, in the CLI's --format
 * and the interface's rows alike. */
TEST(a_missing_item_keeps_its_id_in_formats)
{
	struct app *app = test_app_open();
	struct crate_err err = {0};
	struct mlib_media_writer *w = mlib_media_writer_new(app->db, &err);
	REQUIRE(w != NULL);
	const char *a[] = {"title", "Gone", NULL};
	uint32_t ia = put_row(w, "/music/gone.ogg", a);
	REQUIRE(mlib_media_set_missing(w, ia, 1, &err) == 0);
	mlib_media_writer_free(w);
	struct mlib_index *idx = NULL;
	REQUIRE(mlib_index_load(app->db, &idx, &err) == 0);
	app_index_replace(app, idx);
	REQUIRE(!app_has_media(app, ia));

	struct strbuf s, want;
	strbuf_init(&s, 64);
	strbuf_init(&want, 16);
	strbuf_addf(&want, "%u", (unsigned)ia);
	enum item_value k;
	CHECK_STR(value_of(app, ia, "id", &s, &k), want.buf);
	CHECK_INT(k, ITEM_NUMBER);
	value_of(app, ia, "duration", &s, &k); /* the file's numbers stay absent */
	CHECK_INT(k, ITEM_ABSENT);
	struct item_format *f = NULL;
	REQUIRE(item_format_parse("%id% %title%%{?duration? %duration%}", &f, NULL) == 0);
	struct format_src src = {app, ia};
	strbuf_reset(&s);
	strbuf_addf(&want, " Gone");
	item_format_render(f, format_value, &src, &s, NULL);
	CHECK_STR(s.buf, want.buf);
	item_format_free(f);
	strbuf_free(&want);
	strbuf_free(&s);
	test_app_close(app);
}
