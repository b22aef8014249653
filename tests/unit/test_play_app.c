/* What plays next, through the whole application: a real library (scan of
 * generated files), the collection store, the engine and ALSA's file
 * plugin. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_play.h"
#include "app/app_read.h"
#include "coll/store.h"
#include "harness.h"
#include "medialib/index.h"
#include "medialib/scan.h"
#include "test_play_util.h"

struct seen {
	uint32_t started[64];
	int nstarted, nfailed;
	bool stopped;
	char lastfail[512];
};

static void listen(void *ud, const struct app_play_notice *n)
{
	struct seen *s = ud;
	if (n->type == APP_PLAY_STARTED && s->nstarted < 64)
		s->started[s->nstarted++] = n->id;
	if (n->type == APP_PLAY_FAILED) {
		s->nfailed++;
		snprintf(s->lastfail, sizeof s->lastfail, "%s", n->msg);
	}
	if (n->type == APP_PLAY_STOPPED)
		s->stopped = true;
}

/* Run the main loop until cond (checked after each batch) or timeout. */
static bool run_until(struct app *app, struct seen *s, int started, int timeout_ms)
{
	struct crate_err err = {0};
	int fd = app_play_event_fd(app, &err);
	for (int t = 0; t < timeout_ms; t += 20) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, 20);
		app_play_handle_events(app);
		if ((started && s->nstarted >= started) || (!started && s->stopped))
			return true;
	}
	return false;
}

/* A library of n short tones by three artists in dir/music. */
static struct app *open_library(const char *dir, int n, double secs)
{
	tp_alsa_to_file(dir);
	char *music = xasprintf("%s/music", dir);
	REQUIRE(tp_sh("mkdir -p '%s'", music));
	char **extras = xcalloc((size_t)n, sizeof *extras);
	int *rates = xcalloc((size_t)n, sizeof *rates);
	for (int i = 0; i < n; i++) {
		extras[i] = xasprintf("-metadata artist=A%d -metadata title=T%02d -metadata genre=%s",
				      i % 3, i, i < n - 2 ? "Rock" : "Jazz");
		rates[i] = 8000;
	}
	REQUIRE(tp_make_numbered_tones(music, n, secs, rates, extras));
	for (int i = 0; i < n; i++)
		free(extras[i]);
	free(extras);
	free(rates);
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	FILE *f = fopen(cfg, "w");
	REQUIRE(f);
	fclose(f);
	struct app_opts o = {.db_path = db, .config_path = cfg};
	struct app *app;
	struct crate_err err = {0};
	REQUIRE(app_open(&app, &o, &err) == 0);
	struct mlib_scan_result res = {0};
	const char *paths[] = {music};
	CHECK(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0);
	mlib_scan_result_free(&res);
	CHECK_INT(mlib_index_count(app->index), n);
	free(db);
	free(cfg);
	free(music);
	return app;
}

TEST(playlist_plays_in_order_and_counts_plays)
{
	struct app *app = open_library(harness_tmpdir(), 4, 0.4);
	struct crate_err err = {0};
	REQUIRE(app_playlist_new(app, "Road", &err) == 0);
	size_t added = 0;
	REQUIRE(app_playlist_add_query(app, "Road", "genre:Rock", 0, &added, NULL, &err) == 0);
	CHECK_INT(added, 2);
	struct seen s = {0};
	app_play_set_listener(app, listen, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Road", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	CHECK_INT(s.nstarted, 2);
	const struct coll_node *pl = coll_store_get(app->store, "Playlists", "Road");
	REQUIRE(pl);
	CHECK(s.started[0] == pl->idlist.v[0] && s.started[1] == pl->idlist.v[1]);
	CHECK_STR(coll_attr_get(pl, "position"), "1");
	int64_t played = 0;
	int prop = mlib_index_prop(app->index, "timesplayed");
	CHECK(prop >= 0 && mlib_index_int_value(app->index, prop, pl->idlist.v[0], &played));
	CHECK_INT(played, 1);
	app_close(app);
}

TEST(repeat_one_and_all)
{
	struct app *app = open_library(harness_tmpdir(), 3, 0.2);
	struct crate_err err = {0};
	REQUIRE(app_playlist_new(app, "R", &err) == 0);
	REQUIRE(app_playlist_add_query(app, "R", "genre:Rock", 0, NULL, NULL, &err) == 0);
	struct seen s = {0};
	app_play_set_listener(app, listen, &s);
	app_play_set_repeat(app, APP_REPEAT_ALL);
	REQUIRE(app_play_collection(app, "Playlists", "R", 0, &err) == 0);
	CHECK(run_until(app, &s, 3, 10000));
	CHECK(s.started[2] == s.started[0]); /* one-entry list ("Rock" = 1 of 3) wraps */
	app_play_set_repeat(app, APP_REPEAT_ONE);
	CHECK(run_until(app, &s, 5, 10000));
	CHECK(s.started[4] == s.started[3]);
	app_play_stop(app, &err);
	app_close(app);
}

TEST(queue_pops_played_entries)
{
	struct app *app = open_library(harness_tmpdir(), 4, 0.2);
	struct crate_err err = {0};
	REQUIRE(app_playlist_new(app, "Q", &err) == 0);
	REQUIRE(app_playlist_add_query(app, "Q", "genre:Rock OR genre:Jazz", 0, NULL, NULL, &err) == 0);
	const struct coll_node *q = coll_store_get(app->store, "Playlists", "Q");
	REQUIRE(q && q->idlist.n == 4);
	struct coll_node *c = coll_node_copy(q);
	coll_attr_set(c, "type", "queue");
	coll_attr_set(c, "history", "1");
	REQUIRE(coll_store_save(app->store, "Playlists", "Q", c, &err) == 0);
	coll_node_unref(c);
	struct seen s = {0};
	app_play_set_listener(app, listen, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Q", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	CHECK_INT(s.nstarted, 4);
	q = coll_store_get(app->store, "Playlists", "Q");
	/* Only the last played entry and one of history remain. */
	CHECK_INT(q->idlist.n, 2);
	CHECK(q->idlist.n == 2 && q->idlist.v[1] == s.started[3]);
	app_close(app);
}

TEST(party_shuffle_keeps_upcoming_from_its_source)
{
	struct app *app = open_library(harness_tmpdir(), 12, 0.15);
	struct crate_err err = {0};
	REQUIRE(app_pshuffle_create(app, "Party", "genre:Rock", 5, &err) == 0);
	struct seen s = {0};
	app_play_set_listener(app, listen, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Party", 0, &err) == 0);
	CHECK(run_until(app, &s, 7, 20000));
	app_play_handle_events(app);
	app_play_stop(app, &err);
	const struct coll_node *pl = coll_store_get(app->store, "Playlists", "Party");
	REQUIRE(pl);
	const char *ps = coll_attr_get(pl, "position");
	long pos = ps ? atol(ps) : -1;
	/* History popped (default 0): the current entry is first. */
	CHECK_INT(pos, 0);
	CHECK(pl->idlist.n >= (size_t)pos + 1 + 5);
	CHECK(pl->idlist.v[pos] == s.started[s.nstarted - 1]);
	char buf[64];
	int notrock = 0, dup = 0;
	for (size_t i = 0; i < pl->idlist.n; i++) {
		const char *g = mlib_index_get_text(app->index, pl->idlist.v[i], "genre", buf, sizeof buf);
		notrock += !g || strcmp(g, "Rock") != 0;
		for (size_t j = 0; j < i; j++)
			dup += pl->idlist.v[j] == pl->idlist.v[i];
	}
	CHECK_INT(notrock, 0);
	CHECK_INT(dup, 0); /* 10 sources, 6 entries: no repeats needed */
	/* Consecutive plays never repeat a track (norepeat = 5 of 10). */
	for (int i = 1; i < s.nstarted; i++)
		CHECK(s.started[i] != s.started[i - 1]);
	app_close(app);
}

/* A Party Shuffle over two tracks that keeps two played entries: both
 * were in the list after the first two plays, so nothing could join and
 * playback stopped; a played entry now comes back, and the party goes on
 * without a track following itself. */
TEST(party_shuffle_whose_history_holds_its_source_goes_on)
{
	struct app *app = open_library(harness_tmpdir(), 6, 0.15);
	struct crate_err err = {0};
	REQUIRE(app_pshuffle_create(app, "Small", "genre:Jazz", 5, &err) == 0);
	REQUIRE(app_playlist_set_history(app, "Small", 2, &err) == 0);
	struct seen s = {0};
	app_play_set_listener(app, listen, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Small", 0, &err) == 0);
	CHECK(run_until(app, &s, 6, 20000));
	CHECK(!s.stopped);
	app_play_stop(app, &err);
	CHECK(s.nstarted >= 6);
	for (int i = 1; i < s.nstarted; i++)
		CHECK(s.started[i] != s.started[i - 1]);
	const struct coll_node *pl = coll_store_get(app->store, "Playlists", "Small");
	REQUIRE(pl);
	const char *ps = coll_attr_get(pl, "position");
	long pos = ps ? atol(ps) : -1;
	CHECK(pos >= 0 && pos <= 2); /* two played entries kept at most */
	app_close(app);
}

TEST(jumplist_switches_to_the_next_playlist_at_the_end)
{
	struct app *app = open_library(harness_tmpdir(), 4, 0.2);
	struct crate_err err = {0};
	REQUIRE(app_playlist_new(app, "A", &err) == 0);
	REQUIRE(app_playlist_new(app, "B", &err) == 0);
	REQUIRE(app_playlist_add_query(app, "A", "genre:Jazz", 0, NULL, NULL, &err) == 0);
	REQUIRE(app_playlist_add_query(app, "B", "genre:Rock", 0, NULL, NULL, &err) == 0);
	/* A jump goes to a playlist that exists. */
	CHECK(app_playlist_set_jump(app, "A", "Nowhere", &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	CHECK(app_playlist_set_jump(app, "Nowhere", "B", &err) != 0);
	REQUIRE(app_playlist_set_jump(app, "A", "B", &err) == 0);
	CHECK_STR(coll_attr_get(coll_store_get(app->store, "Playlists", "A"), "jumplist"), "B");
	struct seen s = {0};
	app_play_set_listener(app, listen, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	/* A's two entries, then B's two from its first, gaplessly; then B ends. */
	const struct coll_node *a = coll_store_get(app->store, "Playlists", "A");
	const struct coll_node *b = coll_store_get(app->store, "Playlists", "B");
	REQUIRE(a && b && a->idlist.n == 2 && b->idlist.n == 2);
	CHECK_INT(s.nstarted, 4);
	CHECK_INT(s.nfailed, 0);
	CHECK(s.started[0] == a->idlist.v[0] && s.started[1] == a->idlist.v[1]);
	CHECK(s.started[2] == b->idlist.v[0] && s.started[3] == b->idlist.v[1]);
	CHECK_STR(coll_store_active_playlist(app->store), "B");
	CHECK_STR(coll_attr_get(b, "position"), "1");
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.playlist, "B");

	/* A rename of the target follows, as references do. */
	app_play_stop(app, &err);
	app_play_handle_events(app);
	REQUIRE(app_coll_rename(app, "Playlists", "B", "B2", &err) == 0);
	CHECK_STR(coll_attr_get(coll_store_get(app->store, "Playlists", "A"), "jumplist"), "B2");

	/* Cleared, A just ends. */
	REQUIRE(app_playlist_set_jump(app, "A", NULL, &err) == 0);
	CHECK(coll_attr_get(coll_store_get(app->store, "Playlists", "A"), "jumplist") == NULL);
	memset(&s, 0, sizeof s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 1, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	CHECK_INT(s.nstarted, 1);
	CHECK_STR(coll_store_active_playlist(app->store), "A");
	app_close(app);
}

TEST(deleted_and_truncated_entries_are_skipped)
{
	const char *dir = harness_tmpdir();
	struct app *app = open_library(dir, 4, 0.3);
	struct crate_err err = {0};
	REQUIRE(app_playlist_new(app, "P", &err) == 0);
	REQUIRE(app_playlist_add_query(app, "P", "genre:Rock OR genre:Jazz", 0, NULL, NULL, &err) == 0);
	REQUIRE(tp_sh("rm '%s/music/t01.flac' && : > '%s/music/t02.flac'", dir, dir));
	struct seen s = {0};
	app_play_set_listener(app, listen, &s);
	REQUIRE(app_play_collection(app, "Playlists", "P", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	CHECK_INT(s.nstarted, 2);
	CHECK_INT(s.nfailed, 2);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(strstr(st.error, "t02.flac") != NULL);
	CHECK_INT(st.state, ENGINE_STOPPED);
	app_close(app);
}

TEST(no_device_is_reported_and_browsing_goes_on)
{
	const char *dir = harness_tmpdir();
	struct app *app = open_library(dir, 2, 0.2);
	config_set(app->cfg, "output.device", "broken");
	struct crate_err err = {0};
	REQUIRE(app_playlist_new(app, "P", &err) == 0);
	REQUIRE(app_playlist_add_query(app, "P", "genre:Jazz", 0, NULL, NULL, &err) == 0);
	struct seen s = {0};
	app_play_set_listener(app, listen, &s);
	REQUIRE(app_play_collection(app, "Playlists", "P", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 5000));
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(strstr(st.error, "broken") != NULL);
	/* What is shown (status line, remote status, MPRIS): stopped, not
	 * the track asked for, as if it still opened (it said "playing"). */
	app_play_status_shown(app, &st);
	CHECK_INT(st.state, ENGINE_STOPPED);
	CHECK_INT(st.id, 0);
	struct coll_result r = {0};
	CHECK(app_eval_query(app, "genre:Jazz", false, &r, &err) == 0);
	CHECK_INT(r.ids.n, 2);
	coll_result_free(&r);
	app_close(app);
}
