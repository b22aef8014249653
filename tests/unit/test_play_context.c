/* The play context, through the whole application and ALSA's file plugin:
 * starting a list replaces what follows, N presses of next are N steps
 * even when the device is slow to open, the queue plays before the
 * context, shuffle is a permutation. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_play.h"
#include "app/app_resume.h"
#include "app/app_view.h"
#include "app/rules.h"
#include "coll/store.h"
#include "harness.h"
#include "medialib/index.h"
#include "medialib/media.h"
#include "medialib/scan.h"
#include "test_play_util.h"

struct seen {
	struct app *app;
	uint32_t started[256];
	int nstarted, nfailed;
	bool stopped;
	int disagree; /* STARTED notices where the status named another entry */
};

static void take_notice(void *ud, const struct app_play_notice *n)
{
	struct seen *s = ud;
	if (n->type == APP_PLAY_STARTED) {
		if (s->nstarted < 256)
			s->started[s->nstarted++] = n->id;
		/* Every view reads this status: it must name the entry that started. */
		struct app_play_status st;
		app_play_status(s->app, &st);
		const struct coll_node *pl =
			st.playlist[0] ? coll_store_get(s->app->store, "Playlists", st.playlist) : NULL;
		if (pl && !st.from_queue &&
		    (st.position >= pl->idlist.n || pl->idlist.v[st.position] != n->id))
			s->disagree++;
	}
	if (n->type == APP_PLAY_FAILED)
		s->nfailed++;
	if (n->type == APP_PLAY_STOPPED)
		s->stopped = true;
}

/* Handle events until `started` tracks started (0: until stopped) or timeout. */
static double now_ms(void);

static bool run_until(struct app *app, struct seen *s, int started, int timeout_ms)
{
	struct crate_err err = {0};
	int fd = app_play_event_fd(app, &err);
	for (double t0 = now_ms(); now_ms() - t0 < timeout_ms;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, 10);
		app_play_handle_events(app);
		if ((started && s->nstarted >= started) || (!started && s->stopped))
			return true;
	}
	return false;
}

static void run_for(struct app *app, int ms)
{
	struct crate_err err = {0};
	int fd = app_play_event_fd(app, &err);
	for (double t0 = now_ms(); now_ms() - t0 < ms;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, 10);
		app_play_handle_events(app);
	}
}

/* n tones of secs seconds in dir/music, titled T00..; rate48 makes the odd
 * ones 48 kHz (the device is reopened between them). pace: real time. */
static struct app *open_library(const char *dir, int n, double secs, bool rate48, bool pace)
{
	char *music = xasprintf("%s/music", dir);
	REQUIRE(tp_sh("mkdir -p '%s'", music));
	char **extras = xcalloc((size_t)n, sizeof *extras);
	int *rates = xcalloc((size_t)n, sizeof *rates);
	for (int i = 0; i < n; i++) {
		extras[i] = xasprintf("-metadata artist=A%d -metadata album=Al%d -metadata title=T%02d "
				      "-metadata track=%d",
				      i / 5, i / 5, i, i % 5 + 1);
		rates[i] = rate48 && i % 2 ? 48000 : 44100;
	}
	REQUIRE(tp_make_numbered_tones(music, n, secs, rates, extras));
	for (int i = 0; i < n; i++)
		free(extras[i]);
	free(extras);
	free(rates);
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	FILE *f = fopen(cfg, "w");
	REQUIRE(f);
	if (pace)
		fprintf(f, "[output]\npace = true\n");
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

/* The media id of title Txx. */
static uint32_t id_of_title(struct app *app, int i)
{
	char q[32];
	snprintf(q, sizeof q, "title:T%02d", i);
	struct coll_result r = {0};
	struct crate_err err = {0};
	uint32_t id = 0;
	if (app_eval_query(app, q, false, &r, &err) == 0 && r.ids.n == 1)
		id = r.ids.v[0];
	coll_result_free(&r);
	return id;
}

static size_t len_of_queue(struct app *app)
{
	const struct coll_node *q = coll_store_get(app->store, "Playlists", "Queue");
	return q ? q->idlist.n : 0;
}

static void make_list(struct app *app, const char *name, const int *titles, size_t n)
{
	struct crate_err err = {0};
	REQUIRE(app_playlist_new(app, name, &err) == 0);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = id_of_title(app, titles[i]);
		REQUIRE(id);
		const struct coll_node *pl = coll_store_get(app->store, "Playlists", name);
		REQUIRE(coll_store_playlist_insert(app->store, name, pl->idlist.n, &id, 1, &err) == 0);
	}
}

TEST(starting_another_list_replaces_what_follows)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 6, 0.6, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 150); /* the engine asked for A's next track and got it */
	/* Enter on a browser track: a temporary list of T03, T04. */
	uint32_t b[2] = {id_of_title(app, 3), id_of_title(app, 4)};
	REQUIRE(app_play_list(app, b, NULL, 2, APP_PLAY_ANY, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 3);
	CHECK(s.started[1] == b[0]);
	CHECK(s.started[2] == b[1]);
	app_close(app);
}

TEST(playlist_switch_then_end_does_not_return_to_the_old_list)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 6, 0.5, false, true);
	struct crate_err err = {0};
	make_list(app, "Party", (int[]){0, 1, 2}, 3);
	make_list(app, "Road", (int[]){3, 4}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Party", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 150);
	REQUIRE(app_playlist_use(app, "Road", &err) == 0);
	REQUIRE(app_play_collection(app, "Playlists", "Road", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 3);
	CHECK(s.started[1] == id_of_title(app, 3) && s.started[2] == id_of_title(app, 4));
	CHECK_INT(s.disagree, 0);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.playlist, "Road");
	CHECK_INT(st.position, 1);
	app_close(app);
}

TEST(jumplist_and_status_agree_after_the_jump)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 6, 0.3, false, true);
	struct crate_err err = {0};
	make_list(app, "Party", (int[]){0, 1}, 2);
	make_list(app, "Road", (int[]){3, 4, 5}, 3);
	REQUIRE(app_playlist_set_jump(app, "Party", "Road", &err) == 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Party", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	CHECK_INT(s.nstarted, 5);
	CHECK_INT(s.disagree, 0);
	CHECK(s.started[2] == id_of_title(app, 3) && s.started[4] == id_of_title(app, 5));
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.playlist, "Road");
	CHECK_INT(st.position, 2);
	app_close(app);
}

/* ---- a device that is slow to open ---- */

/* ALSA's file plugin writes to a FIFO, and the reader opens its end only
 * SLOW_MS after the previous writer closed: every open of the device (a
 * format change reopens it) blocks that long, as a real device or plugin
 * chain can. */
#define SLOW_MS 300

struct slow_sink {
	char fifo[4096];
	pthread_t thread;
	atomic_bool quit;
};

static void *slow_reader(void *arg)
{
	struct slow_sink *s = arg;
	char buf[65536];
	while (!atomic_load(&s->quit)) {
		struct timespec ts = {0, SLOW_MS * 1000000L};
		nanosleep(&ts, NULL);
		int fd = open(s->fifo, O_RDONLY);
		if (fd < 0)
			break;
		while (read(fd, buf, sizeof buf) > 0)
			;
		close(fd);
	}
	return NULL;
}

static void slow_sink_start(struct slow_sink *s, const char *dir)
{
	snprintf(s->fifo, sizeof s->fifo, "%s/sink.fifo", dir);
	REQUIRE(mkfifo(s->fifo, 0600) == 0);
	char *rc = xasprintf("%s/.asoundrc", dir);
	FILE *f = fopen(rc, "w");
	REQUIRE(f);
	fprintf(f, "pcm.!default { type file; slave.pcm \"null\"; file \"%s\"; format \"raw\" }\n",
		s->fifo);
	fclose(f);
	free(rc);
	setenv("HOME", dir, 1);
	atomic_store(&s->quit, false);
	REQUIRE(pthread_create(&s->thread, NULL, slow_reader, s) == 0);
}

static void slow_sink_stop(struct slow_sink *s)
{
	atomic_store(&s->quit, true);
	/* Wake the reader if it waits for a writer. */
	int fd = open(s->fifo, O_WRONLY);
	if (fd >= 0)
		close(fd);
	pthread_join(s->thread, NULL);
}

static double now_ms(void)
{
	/* Wall clock: a loaded machine must not shorten the waits. */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

TEST(four_quick_nexts_are_four_steps_on_a_slow_device)
{
	const char *dir = harness_tmpdir();
	struct slow_sink sink;
	slow_sink_start(&sink, dir);
	/* 44.1 and 48 kHz alternate: each step reopens the device. */
	struct app *app = open_library(dir, 8, 4, true, true);
	struct crate_err err = {0};
	make_list(app, "L", (int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
	const struct coll_node *l = coll_store_get(app->store, "Playlists", "L");
	REQUIRE(l && l->idlist.n == 8);
	uint32_t want = l->idlist.v[4];
	int good = 0;
	double slowest = 0;
	for (int run = 0; run < 20; run++) {
		struct seen s = {.app = app};
		app_play_set_listener(app, take_notice, &s);
		REQUIRE(app_play_collection(app, "Playlists", "L", 0, &err) == 0);
		CHECK(run_until(app, &s, 1, 5000));
		double t0 = now_ms();
		for (int k = 0; k < 4; k++) {
			CHECK(app_play_next(app, &err) == 0);
			run_for(app, 30); /* presses 30 ms apart: faster than the device opens */
		}
		/* Until the fifth entry started (the device may have been quicker
		 * than the presses on a loaded machine: then it already has). */
		while ((!s.nstarted || s.started[s.nstarted - 1] != want) && now_ms() - t0 < 5000)
			run_for(app, 10);
		double took = now_ms() - t0;
		slowest = took > slowest ? took : slowest;
		run_for(app, SLOW_MS); /* late events of the replaced tracks arrive */
		struct app_play_status st;
		app_play_status(app, &st);
		bool ok = st.position == 4 && s.nstarted >= 1 && s.started[s.nstarted - 1] == want &&
			  st.id == want && st.state == ENGINE_PLAYING;
		if (!ok)
			fprintf(stderr, "run %d: position %zu, playing %u (want %u), %d started\n", run,
				st.position, st.id, want, s.nstarted);
		good += ok;
		app_play_stop(app, &err);
		run_for(app, 50);
	}
	CHECK_INT(good, 20);
	/* The sink really is slow: reopening it waited. */
	CHECK(slowest >= SLOW_MS * 0.8);
	app_close(app);
	slow_sink_stop(&sink);
}

/* A station that connects for ever: a socket that takes connections and
 * never answers. Its URL into url; the socket, to close. */
static int silent_station(char *url, size_t size)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	REQUIRE(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 8) == 0 &&
		getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	snprintf(url, size, "http://127.0.0.1:%d/radio", ntohs(a.sin_port));
	return fd;
}

TEST(next_then_stop_while_a_station_connects_says_stopped)
{
	/* next then stop (two quick presses, crate remote next; crate remote
	 * stop) while a station connects: the engine dropped the play, found
	 * itself stopped and said nothing, so "stopped" never came and crate
	 * play --no-ui never ended. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 1, 3, false, true);
	struct crate_err err = {0};
	char url[64];
	int srv = silent_station(url, sizeof url);
	uint32_t ids[2] = {0, id_of_title(app, 0)};
	const char *paths[2] = {url, NULL};
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_list(app, ids, paths, 2, 0, &err) == 0);
	run_for(app, 300); /* the engine waits for the station's answer */
	CHECK(app_play_next(app, &err) == 0);
	CHECK(app_play_stop(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 3000));
	CHECK_INT(s.nstarted, 0);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(st.state == ENGINE_STOPPED);
	app_close(app);
	close(srv);
}

TEST(queue_plays_before_the_context_resumes)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 6, 0.2, false, false);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	make_list(app, "Queue", (int[]){5, 4}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	CHECK_INT(s.nstarted, 5);
	int want[] = {0, 5, 4, 1, 2};
	for (int i = 0; i < 5 && i < s.nstarted; i++)
		CHECK(s.started[i] == id_of_title(app, want[i]));
	CHECK_INT(coll_store_get(app->store, "Playlists", "Queue")->idlist.n, 0);
	CHECK_INT(s.disagree, 0);
	app_close(app);
}

TEST(shuffle_is_a_permutation_that_skips_undecodable_entries)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 30, 0.1, false, false);
	struct crate_err err = {0};
	int all[30];
	for (int i = 0; i < 30; i++)
		all[i] = i;
	make_list(app, "S", all, 30);
	/* Six entries become undecodable after the scan. */
	for (int i = 0; i < 30; i += 5)
		REQUIRE(tp_sh("printf 'not audio at all' > '%s/music/t%02d.flac'", dir, i));
	app_play_set_shuffle(app, true);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "S", 1, &err) == 0);
	CHECK(run_until(app, &s, 0, 20000));
	CHECK_INT(s.nstarted, 24);
	int dup = 0;
	for (int i = 0; i < s.nstarted; i++)
		for (int j = 0; j < i; j++)
			dup += s.started[i] == s.started[j];
	CHECK_INT(dup, 0);
	CHECK_INT(s.nfailed, 6);
	app_close(app);
}

TEST(a_list_where_everything_fails_stops_with_a_message)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 0.1, false, false);
	struct crate_err err = {0};
	make_list(app, "Bad", (int[]){0, 1, 2, 3, 4}, 5);
	for (int i = 0; i < 5; i++)
		REQUIRE(tp_sh("printf 'not audio' > '%s/music/t%02d.flac'", dir, i));
	app_play_set_shuffle(app, true);
	app_play_set_repeat(app, APP_REPEAT_ALL);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Bad", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	CHECK_INT(s.nstarted, 0);
	CHECK(s.nfailed <= 6);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(strstr(st.error, "no entry of Bad could be played") != NULL);
	app_close(app);
}

/* Entries that start and then break off before a sound (a partial MP4:
 * the header promises 5 minutes) under repeat all: each one started, so
 * none counted as failed, and the list looped at 0:00 forever. */
TEST(a_list_whose_tracks_break_off_at_once_stops_under_repeat)
{
	const char *corpus = harness_corpus_dir();
	if (!corpus)
		harness_skip("no corpus");
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 0.1, false, false);
	struct crate_err err = {0};
	make_list(app, "Broken", (int[]){0, 1}, 2);
	for (int i = 0; i < 2; i++)
		REQUIRE(tp_sh("cp '%s/musicmetadata-mp4_issue-79.m4a' '%s/music/t%02d.flac'", corpus, dir, i));
	app_play_set_repeat(app, APP_REPEAT_ALL);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Broken", 0, &err) == 0);
	run_for(app, 3000);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_MSG(st.state == ENGINE_STOPPED, "still going after %d starts and %d failures",
		  s.nstarted, s.nfailed);
	CHECK_MSG(strstr(st.error, "no entry of Broken could be played") != NULL, "error '%s'",
		  st.error);
	CHECK_MSG(s.nfailed <= 6, "%d starts, %d failures", s.nstarted, s.nfailed);
	app_close(app);
}

/* The list changed while its last entry plays (no follower was chosen):
 * an entry added after it plays next, and a removed list says why it
 * stops. Only a chosen follower was looked at again. */
TEST(the_last_entry_playing_sees_its_list_grow_or_go)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 1, false, true);
	struct crate_err err = {0};
	make_list(app, "Grow", (int[]){0}, 1);
	make_list(app, "Solo", (int[]){1}, 1);
	make_list(app, "Other", (int[]){2}, 1);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Grow", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 300); /* its follower asked for: none */
	uint32_t added = id_of_title(app, 3);
	REQUIRE(coll_store_playlist_insert(app->store, "Grow", 1, &added, 1, &err) == 0);
	CHECK_MSG(run_until(app, &s, 2, 5000), "nothing played after the last entry");
	CHECK(s.nstarted >= 2 && s.started[1] == added);
	app_play_stop(app, &err);

	REQUIRE(app_play_collection(app, "Playlists", "Solo", 0, &err) == 0);
	CHECK_MSG(run_until(app, &s, 3, 5000), "%d started, %d failed", s.nstarted, s.nfailed);
	run_for(app, 300);
	REQUIRE(coll_store_set_active_playlist(app->store, "Other", &err) == 0);
	REQUIRE(coll_store_remove(app->store, "Playlists", "Solo", true, &err) == 0);
	run_for(app, 1500);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_MSG(strstr(st.error, "playlist Solo was removed") != NULL, "error '%s'", st.error);
	app_play_stop(app, &err);
	app_close(app);
}

TEST(album_shuffle_keeps_albums_together_in_track_order)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	/* Albums Al0..Al2 of five tracks each (i / 5), tracks 1..5. */
	struct app *app = open_library(dir, 15, 0.1, false, false);
	struct crate_err err = {0};
	int all[15];
	for (int i = 0; i < 15; i++)
		all[i] = i;
	make_list(app, "Albums", all, 15);
	app_play_set_shuffle_mode(app, APP_SHUFFLE_ALBUMS);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Albums", 5, &err) == 0);
	CHECK(run_until(app, &s, 0, 20000));
	CHECK_INT(s.nstarted, 15);
	/* Runs of five, each an album from its first track on; T05 starts. */
	CHECK(s.started[0] == id_of_title(app, 5));
	int seen_album[3] = {0};
	for (int run = 0; run < 3 && s.nstarted == 15; run++) {
		int first = -1;
		for (int t = 0; t < 15; t++)
			if (s.started[run * 5] == id_of_title(app, t))
				first = t;
		REQUIRE(first >= 0 && first % 5 == 0);
		seen_album[first / 5]++;
		for (int k = 0; k < 5; k++)
			CHECK(s.started[run * 5 + k] == id_of_title(app, first + k));
	}
	CHECK(seen_album[0] == 1 && seen_album[1] == 1 && seen_album[2] == 1);
	app_close(app);
}

static bool stat_of(struct app *app, uint32_t id, const char *prop, int64_t *v)
{
	int h = mlib_index_prop(app->index, prop);
	*v = 0;
	return h >= 0 && mlib_index_int_value(app->index, h, id, v);
}

TEST(statistics_count_only_audio_that_was_heard)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 1.2, false, true);
	struct crate_err err = {0};
	make_list(app, "St", (int[]){0, 1, 2}, 3);
	REQUIRE(tp_sh("printf 'not audio' > '%s/music/t01.flac'", dir));
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "St", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 400); /* some of T00 heard, far from half of it */
	CHECK(app_play_next(app, &err) == 0); /* skipped by the user */
	CHECK(run_until(app, &s, 0, 8000));   /* T01 fails, T02 plays to its end */
	CHECK_INT(s.nstarted, 2);
	CHECK_INT(s.nfailed, 1);
	int64_t v;
	uint32_t t0 = id_of_title(app, 0), t1 = id_of_title(app, 1), t2 = id_of_title(app, 2);
	CHECK(stat_of(app, t0, "timesskipped", &v) && v == 1);
	CHECK(!stat_of(app, t0, "timesplayed", &v));
	CHECK(!stat_of(app, t1, "timesplayed", &v));
	CHECK(!stat_of(app, t1, "timesskipped", &v));
	CHECK(!stat_of(app, t1, "lastplayed", &v));
	CHECK(stat_of(app, t2, "timesplayed", &v) && v == 1);
	CHECK(stat_of(app, t2, "lastplayed", &v) && v > 0);
	CHECK(!stat_of(app, t2, "timesskipped", &v));
	/* Queryable, and kept in the database (a fresh index sees it). */
	struct coll_result r = {0};
	REQUIRE(app_eval_query(app, "timesskipped>=1", false, &r, &err) == 0);
	CHECK(r.ids.n == 1 && r.ids.v[0] == t0);
	coll_result_free(&r);
	REQUIRE(app_reload_index(app, &err) == 0);
	CHECK(stat_of(app, t0, "timesskipped", &v) && v == 1);
	app_close(app);
}

TEST(a_file_without_audio_is_not_a_play)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 0.2, false, false);
	struct crate_err err = {0};
	/* A WAV whose header promises audio and holds none. */
	char *wav = xasprintf("%s/music/empty.wav", dir);
	REQUIRE(tp_sh("ffmpeg -nostdin -v quiet -y -f lavfi -i 'sine=d=1' -bitexact -map_metadata -1 '%s' "
		      "&& head -c 44 '%s' > '%s.tmp' && mv '%s.tmp' '%s'",
		      wav, wav, wav, wav, wav));
	struct mlib_scan_result res = {0};
	char *music = xasprintf("%s/music", dir);
	const char *paths[] = {music};
	CHECK(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0);
	mlib_scan_result_free(&res);
	free(music);
	struct coll_result r = {0};
	REQUIRE(app_eval_query(app, "url~empty.wav", false, &r, &err) == 0);
	REQUIRE(r.ids.n == 1);
	uint32_t id = r.ids.v[0];
	coll_result_free(&r);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_list(app, &id, NULL, 1, APP_PLAY_ANY, &err) == 0);
	CHECK(run_until(app, &s, 0, 5000));
	int64_t v;
	CHECK(!stat_of(app, id, "timesplayed", &v));
	CHECK(!stat_of(app, id, "lastplayed", &v));
	CHECK(!stat_of(app, id, "timesskipped", &v));
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(strstr(st.error, "empty.wav") != NULL);
	free(wav);
	app_close(app);
}

/* id's stored length in ms, -1 when it has none. */
static int64_t duration_of(struct app *app, uint32_t id)
{
	int64_t v;
	return stat_of(app, id, "duration", &v) ? v : -1;
}

/* Store ms as id's length, then play id alone to its end (s listens). */
static void play_to_end_stored_as(struct app *app, uint32_t id, int64_t ms, struct seen *s)
{
	struct crate_err err = {0};
	REQUIRE(mlib_media_set_duration(app->db, app->index, id, ms, &err) == 0);
	app_play_set_listener(app, take_notice, s);
	REQUIRE(app_play_list(app, &id, NULL, 1, APP_PLAY_ANY, &err) == 0);
	CHECK(run_until(app, s, 0, 8000));
}

TEST(playing_to_the_end_corrects_a_wrong_stored_duration)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 1, 0.5, false, false);
	struct crate_err err = {0};
	uint32_t id = id_of_title(app, 0);
	/* As a header that lies would have it: nearly ten hours. */
	struct seen s = {.app = app};
	play_to_end_stored_as(app, id, 35287386, &s);
	int64_t v;
	CHECK(stat_of(app, id, "duration", &v) && v >= 400 && v <= 600);
	REQUIRE(app_reload_index(app, &err) == 0); /* and in the database */
	CHECK(stat_of(app, id, "duration", &v) && v >= 400 && v <= 600);
	app_close(app);
}

TEST(a_truncated_mp3_shows_its_real_length_and_a_seek_past_its_end_keeps_it)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 1, 0.5, false, true);
	struct crate_err err = {0};
	/* The first 3 s of a minute: its Xing header still says 1:00. */
	REQUIRE(tp_sh("ffmpeg -nostdin -v quiet -y -f lavfi -i 'sine=f=440:d=60' -ac 2 "
		      "-c:a libmp3lame -b:a 128k -metadata title=Cut '%s/full.mp3' && "
		      "head -c 50000 '%s/full.mp3' >'%s/music/cut.mp3'",
		      dir, dir, dir));
	char *music = xasprintf("%s/music", dir);
	const char *paths[] = {music};
	struct mlib_scan_result res = {0};
	REQUIRE(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0);
	mlib_scan_result_free(&res);
	free(music);
	struct coll_result r = {0};
	REQUIRE(app_eval_query(app, "title:Cut", false, &r, &err) == 0 && r.ids.n == 1);
	uint32_t id = r.ids.v[0];
	coll_result_free(&r);
	/* As a scan that believed the header left it; played to its end, the
	 * library learns the real length. */
	struct seen s = {.app = app};
	play_to_end_stored_as(app, id, 60029, &s);
	int64_t v = duration_of(app, id);
	CHECK_MSG(v >= 2800 && v <= 3300, "stored %lld ms", (long long)v);

	/* Played again, the status says that length (not the header's 1:00),
	 * so that a seek in per cent lands in the audio. */
	s.stopped = false;
	REQUIRE(app_play_list(app, &id, NULL, 1, APP_PLAY_ANY, &err) == 0);
	CHECK(run_until(app, &s, 2, 5000));
	run_for(app, 300);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_MSG(st.dur_ms >= 2800 && st.dur_ms <= 3300, "status length %lld ms",
		  (long long)st.dur_ms);
	/* A seek past the real end (where 50 % of the header's length is)
	 * ends the track cleanly, and its target is not taken for a length. */
	REQUIRE(app_play_seek(app, 30000, false, &err) == 0);
	CHECK(run_until(app, &s, 0, 5000));
	CHECK_INT(s.nfailed, 0);
	app_play_status(app, &st);
	CHECK_STR(st.error, "");
	v = duration_of(app, id);
	CHECK_MSG(v >= 2800 && v <= 3300, "stored %lld ms", (long long)v);
	app_close(app);
}

TEST(a_file_replaced_while_it_plays_keeps_the_length_its_scan_found)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 1, 2, false, true);
	struct crate_err err = {0};
	uint32_t id = id_of_title(app, 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_list(app, &id, NULL, 1, APP_PLAY_ANY, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	REQUIRE(app_play_toggle(app, &err) == 0); /* paused */
	/* Replaced by a longer version (written beside it and renamed over
	 * it, as converters and taggers do), and rescanned: the player goes
	 * on with the file it opened, 2 s long. */
	char *music = xasprintf("%s/music", dir);
	REQUIRE(tp_sh("ffmpeg -nostdin -v quiet -y -f lavfi -i 'sine=f=300:d=6' -ac 2 "
		      "-metadata title=T00 '%s/new.flac' && mv '%s/new.flac' '%s/t00.flac'",
		      dir, dir, music));
	const char *paths[] = {music};
	struct mlib_scan_result res = {0};
	REQUIRE(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0);
	mlib_scan_result_free(&res);
	int64_t v = duration_of(app, id);
	REQUIRE(v >= 5900 && v <= 6100);
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	/* The end of the old file is no length of the new one. */
	v = duration_of(app, id);
	CHECK_MSG(v >= 5900 && v <= 6100, "stored %lld ms for the 6 s file", (long long)v);
	REQUIRE(app_reload_index(app, &err) == 0);
	v = duration_of(app, id);
	CHECK_MSG(v >= 5900 && v <= 6100, "stored %lld ms in the database", (long long)v);
	REQUIRE(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0);
	mlib_scan_result_free(&res);
	v = duration_of(app, id);
	CHECK_MSG(v >= 5900 && v <= 6100, "stored %lld ms after a rescan", (long long)v);
	free(music);
	app_close(app);
}

TEST(stop_after_queue_stops_when_the_queue_is_done)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 6, 0.2, false, false);
	struct crate_err err = {0};
	config_set(app->cfg, "playback.stop_after_queue", "true");
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	uint32_t q[2] = {id_of_title(app, 5), id_of_title(app, 4)};
	REQUIRE(app_play_enqueue(app, q, 2, &err) == 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 10000));
	CHECK_INT(s.nstarted, 3);
	CHECK(s.started[1] == q[0] && s.started[2] == q[1]);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(st.state == ENGINE_STOPPED && !st.from_queue); /* nothing plays, from anywhere */
	/* The queue is a collection: in:Playlists/Queue, and empty now. */
	struct coll_result r = {0};
	REQUIRE(app_eval_query(app, "in:Playlists/Queue", false, &r, &err) == 0);
	CHECK_INT(r.ids.n, 0);
	coll_result_free(&r);
	/* play goes on as the queue's end would have: A's second entry (it
	 * played the first again, heard before the queue). */
	memset(&s, 0, sizeof s);
	s.app = app;
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(s.started[0] == id_of_title(app, 1));
	app_close(app);
}

TEST(next_on_the_last_entry_says_the_list_ended)
{
	/* b on the last entry (repeat off) stopped without a word. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 3, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 1, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(app_play_next(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 5000));
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(st.state == ENGINE_STOPPED);
	CHECK_STR(st.error, "end of A: nothing follows (repeat is off)");
	app_close(app);
}

/* List A played, paused on its first track, then next: what b while
 * paused does (s receives the events). */
static void next_while_paused(struct app *app, struct seen *s)
{
	struct crate_err err = {0};
	app_play_set_listener(app, take_notice, s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, s, 1, 5000));
	REQUIRE(app_play_toggle(app, &err) == 0); /* pause */
	run_for(app, 200);
	CHECK(app_play_next(app, &err) == 0);
	CHECK(run_until(app, s, 2, 5000));
}

TEST(next_and_prev_while_paused_stay_paused)
{
	/* b while paused started the next track playing; cmus and the MPRIS
	 * specification keep a paused player paused on its new track. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 3, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	struct seen s = {.app = app};
	next_while_paused(app, &s);
	run_for(app, 500);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(st.state == ENGINE_PAUSED);
	CHECK_INT(st.position, 1);
	CHECK(st.pos_ms < 100);
	CHECK(app_play_prev(app, &err) == 0);
	CHECK(run_until(app, &s, 3, 5000));
	run_for(app, 300);
	app_play_status(app, &st);
	CHECK(st.state == ENGINE_PAUSED);
	CHECK_INT(st.position, 0);
	REQUIRE(app_play_toggle(app, &err) == 0); /* resume: plays on */
	run_for(app, 500);
	app_play_status(app, &st);
	CHECK(st.state == ENGINE_PLAYING && st.pos_ms > 200);
	app_close(app);
}

TEST(a_track_waiting_paused_plays_at_its_pace_when_resumed)
{
	/* next while paused, then play a while later: on a paced device
	 * (output.pace: null, file, a FIFO to snapcast) the track was
	 * written as fast as it decoded, to catch up with a clock that ran
	 * from when it was loaded, so it ended at once. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 4, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	struct seen s = {.app = app};
	next_while_paused(app, &s);
	run_for(app, 2500); /* waits paused */
	REQUIRE(app_play_toggle(app, &err) == 0);
	run_for(app, 500);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(st.state == ENGINE_PLAYING);
	CHECK_INT(st.position, 1);
	CHECK_MSG(st.pos_ms < 1500, "at %lld ms 0.5 s after play", (long long)st.pos_ms);
	app_close(app);
}

TEST(next_while_paused_onto_a_missing_file_stays_paused)
{
	/* b while paused, the next entry's file gone: it was skipped and the
	 * one after it started playing, the pause lost. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 3, false, true);
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	REQUIRE(tp_sh("rm '%s/music/t01.flac'", dir));
	struct seen s = {.app = app};
	next_while_paused(app, &s);
	run_for(app, 500);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_INT(s.nfailed, 1);
	CHECK_INT(st.position, 2);
	CHECK_MSG(st.state == ENGINE_PAUSED, "%s after the skip", engine_state_name(st.state));
	CHECK(st.pos_ms < 100);
	app_close(app);
}

TEST(next_when_stopped_at_the_list_end_says_so)
{
	/* The list had played to its end: crate remote next exited 0 and
	 * nothing happened, without a word. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 0.3, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 1, &err) == 0);
	CHECK(run_until(app, &s, 0, 5000));
	CHECK(app_play_next(app, &err) != 0);
	CHECK_STR(err.msg, "end of A: nothing follows (repeat is off)");
	app_close(app);
}

TEST(play_with_only_the_queue_plays_the_queue)
{
	/* A fresh start: e on two tracks, then play (x, crate remote play):
	 * "Playlists/Default is empty", where next played the queue. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 0.3, false, true);
	struct crate_err err = {0};
	uint32_t q[2] = {id_of_title(app, 3), id_of_title(app, 1)};
	REQUIRE(app_play_enqueue(app, q, 2, &err) == 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	CHECK(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 5000));
	CHECK_INT(s.nstarted, 2);
	CHECK(s.started[0] == q[0] && s.started[1] == q[1]);
	CHECK(app_play_toggle(app, &err) != 0); /* nothing left: said */
	CHECK(strstr(err.msg, "Default is empty") != NULL);
	app_close(app);
}

TEST(next_and_prev_on_a_fresh_start_start_the_active_list)
{
	/* crate remote next with nothing played yet (the active list not
	 * empty) did nothing and exited 0, prev said "nothing to play". */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 3, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	REQUIRE(app_playlist_use(app, "A", &err) == 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	CHECK(app_play_next(app, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(s.nstarted == 1 && s.started[0] == id_of_title(app, 0));
	app_close(app);
	app = open_library(dir, 3, 3, false, true);
	s = (struct seen){.app = app};
	app_play_set_listener(app, take_notice, &s);
	err.msg[0] = 0;
	CHECK(app_play_prev(app, &err) == 0);
	CHECK_STR(err.msg, "");
	CHECK(run_until(app, &s, 1, 5000));
	app_close(app);
	/* A track queued on a fresh start comes first, as ever. */
	app = open_library(dir, 3, 3, false, true);
	s = (struct seen){.app = app};
	app_play_set_listener(app, take_notice, &s);
	uint32_t q = id_of_title(app, 2);
	REQUIRE(app_play_enqueue(app, &q, 1, &err) == 0);
	CHECK(app_play_next(app, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(s.nstarted == 1 && s.started[0] == q);
	app_close(app);
}

TEST(prev_passes_back_over_an_entry_gone_from_the_library)
{
	/* [T00, T01, T02], T01 forgotten: prev on T02 walked forward from
	 * T01 and started T02 again ("skipped" T01 on the way). */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 3, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	uint32_t gone = id_of_title(app, 1);
	size_t nf = 0;
	REQUIRE(app_forget(app, &gone, 1, &nf, &err) == 0 && nf == 1);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 2, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(app_play_prev(app, &err) == 0);
	CHECK(run_until(app, &s, 2, 5000));
	CHECK(s.started[1] == id_of_title(app, 0));
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_INT(st.position, 0);
	app_close(app);
}

TEST(an_entry_gone_from_the_library_is_skipped_at_its_turn)
{
	/* [T00, T01, T02], T01 forgotten: "skipped" came as T00 started,
	 * when its follower was chosen, long before T01's turn (and again at
	 * every edit of a list); queued entries were already judged so. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 1.5, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	uint32_t gone = id_of_title(app, 1);
	size_t nf = 0;
	REQUIRE(app_forget(app, &gone, 1, &nf, &err) == 0 && nf == 1);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 500); /* the follower (T02) is chosen */
	CHECK_INT(s.nfailed, 0);
	CHECK(run_until(app, &s, 2, 5000));
	CHECK_INT(s.nfailed, 1);
	CHECK(s.started[1] == id_of_title(app, 2));
	app_close(app);
}

/* List A (T00, T01, T02) with T05 queued: A plays, next takes the queued
 * track, and playback stops during it. Returns T05's id; s listens. */
static uint32_t stop_during_a_queued_track(struct app *app, struct seen *s)
{
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	uint32_t q = id_of_title(app, 5);
	REQUIRE(app_play_enqueue(app, &q, 1, &err) == 0);
	*s = (struct seen){.app = app};
	app_play_set_listener(app, take_notice, s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, s, 1, 5000));
	CHECK(app_play_next(app, &err) == 0);
	CHECK(run_until(app, s, 2, 5000));
	CHECK(s->started[1] == q);
	CHECK(app_play_stop(app, &err) == 0);
	CHECK(run_until(app, s, 0, 5000));
	return q;
}

TEST(play_after_a_stop_during_a_queued_track_plays_that_track_again)
{
	/* As a stopped entry of the list plays again: it played the entry
	 * heard before the queue, and the queued track was lost. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 6, 3, false, true);
	struct crate_err err = {0};
	struct seen s;
	uint32_t q = stop_during_a_queued_track(app, &s);
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 3, 5000));
	CHECK(s.started[2] == q);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(st.from_queue);
	app_close(app);
}

TEST(a_queued_track_stopped_mid_way_plays_again_after_a_restart)
{
	/* The state kept a queued track only while it played: stop during
	 * it, quit, start, play: the list's entry played instead. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 6, 3, false, true);
	struct crate_err err = {0};
	struct seen s;
	uint32_t q = stop_during_a_queued_track(app, &s);
	struct app_play_resume r;
	app_play_get_resume(app, &r);
	CHECK(r.queued == q);
	app_close(app);
	app = open_library(dir, 6, 3, false, true);
	s = (struct seen){.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_resume(app, &r, false, &err) == 0);
	app_play_resume_free(&r);
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(s.started[0] == q);
	CHECK_INT(len_of_queue(app), 0); /* taken from the queue once */
	CHECK(app_play_next(app, &err) == 0); /* then the list goes on */
	CHECK(run_until(app, &s, 2, 5000));
	CHECK(s.started[1] == id_of_title(app, 1));
	app_close(app);
}

TEST(a_queue_of_100000_entries)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 0.2, false, false);
	struct crate_err err = {0};
	uint32_t *ids = xmalloc(100000 * sizeof *ids);
	for (size_t i = 0; i < 100000; i++)
		ids[i] = id_of_title(app, (int)(i % 2));
	REQUIRE(app_play_enqueue(app, ids, 100000, &err) == 0);
	free(ids);
	CHECK_INT(coll_store_get(app->store, "Playlists", "Queue")->idlist.n, 100000);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	make_list(app, "A", (int[]){0}, 1);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	/* Each start rewrites the 100,000-entry list: slow under sanitizers. */
	CHECK(run_until(app, &s, 4, 60000));
	/* One entry popped per queued track that started (A's first came first). */
	CHECK_INT(coll_store_get(app->store, "Playlists", "Queue")->idlist.n,
		  100000 - (size_t)(s.nstarted - 1));
	app_play_stop(app, &err);
	app_close(app);
}

TEST(a_context_edited_while_it_plays_keeps_playing_sensibly)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 0.6, false, true);
	struct crate_err err = {0};
	make_list(app, "Road", (int[]){0, 1, 2, 3}, 4);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Road", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 100); /* T01 is chosen to follow */
	/* Another process removes the entry that was to follow... */
	REQUIRE(coll_store_playlist_remove(app->store, "Road", 1, 1, &err) == 0);
	CHECK(run_until(app, &s, 2, 5000));
	CHECK(s.started[1] == id_of_title(app, 2));
	/* ...and renames the list: playback follows it. */
	REQUIRE(app_coll_rename(app, "Playlists", "Road", "Trip", &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 3);
	CHECK(s.started[2] == id_of_title(app, 3));
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.playlist, "Trip");
	CHECK(strstr(st.error, "renamed to Trip") != NULL);
	app_close(app);
}

TEST(repeat_all_reshuffles_without_repeating_the_last_track)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 0.1, false, false);
	struct crate_err err = {0};
	make_list(app, "R", (int[]){0, 1, 2}, 3);
	app_play_set_shuffle(app, true);
	app_play_set_repeat(app, APP_REPEAT_ALL);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "R", 0, &err) == 0);
	CHECK(run_until(app, &s, 30, 20000));
	app_play_stop(app, &err);
	/* Every cycle of three is a permutation; no track twice in a row. */
	for (int c = 0; c + 3 <= 30; c += 3)
		CHECK(s.started[c] != s.started[c + 1] && s.started[c] != s.started[c + 2] &&
		      s.started[c + 1] != s.started[c + 2]);
	for (int i = 1; i < 30; i++)
		CHECK(s.started[i] != s.started[i - 1]);
	app_close(app);
}

TEST(play_after_a_shuffled_list_ended_starts_a_new_cycle)
{
	/* x after the shuffled list's end (repeat off) played its last
	 * track again, alone, and stopped. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 0.1, false, false);
	struct crate_err err = {0};
	make_list(app, "R", (int[]){0, 1, 2}, 3);
	app_play_set_shuffle(app, true);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "R", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 3);
	s.stopped = false;
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 6);
	CHECK(s.started[3] != s.started[2]); /* not the last track again */
	CHECK(s.started[3] != s.started[4] && s.started[3] != s.started[5] &&
	      s.started[4] != s.started[5]);
	app_close(app);
}

TEST(play_after_a_list_ended_plays_it_from_the_top)
{
	/* x after a plain list's end (repeat off) played its last track
	 * again, alone, and stopped. MPD plays from the first song; an
	 * entry added after the end plays first, as cmus goes on to it. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 0.1, false, false);
	struct crate_err err = {0};
	make_list(app, "R", (int[]){0, 1, 2}, 3);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "R", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 3);
	s.stopped = false;
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 6);
	CHECK(s.started[3] == id_of_title(app, 0) && s.started[5] == id_of_title(app, 2));
	uint32_t added = id_of_title(app, 3);
	REQUIRE(coll_store_playlist_insert(app->store, "R", 3, &added, 1, &err) == 0);
	s.stopped = false;
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 7);
	CHECK(s.started[6] == added);
	app_close(app);
}

TEST(play_after_a_list_ended_plays_the_queue_first)
{
	/* The list ended, then e on a track, then play: the list's first
	 * entry played before the queued track (before that change: its
	 * last entry again); the queue comes first, as it does while a list
	 * plays and as in cmus, and the list, at its end, stops after it. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 0.1, false, false);
	struct crate_err err = {0};
	make_list(app, "R", (int[]){0, 1}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "R", 0, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	uint32_t q = id_of_title(app, 3);
	REQUIRE(app_play_enqueue(app, &q, 1, &err) == 0);
	s.stopped = false;
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 3);
	CHECK(s.started[2] == q);
	s.stopped = false; /* and then the list from its top */
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 5);
	CHECK(s.started[3] == id_of_title(app, 0) && s.started[4] == id_of_title(app, 1));
	app_close(app);
}

/* Are the first ids->n of started the entries of ids, each once? */
static bool is_permutation(const uint32_t *started, const struct u32vec *ids)
{
	for (size_t i = 0; i < ids->n; i++) {
		size_t times = 0;
		for (size_t k = 0; k < ids->n; k++)
			times += started[k] == ids->v[i];
		if (times != 1)
			return false;
	}
	return true;
}

TEST(next_through_shuffle_cycles_plays_every_entry_once_per_cycle)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 3, false, true);
	struct crate_err err = {0};
	make_list(app, "Five", (int[]){0, 1, 2, 3, 4}, 5);
	app_play_set_shuffle(app, true);
	app_play_set_repeat(app, APP_REPEAT_ALL);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Five", 0, &err) == 0);
	/* Each press after the follower was chosen: at the last track of a
	 * cycle that is the next cycle's first. */
	for (int k = 1; k < 20; k++) {
		CHECK(run_until(app, &s, k, 5000));
		run_for(app, 100);
		CHECK(app_play_next(app, &err) == 0);
	}
	CHECK(run_until(app, &s, 20, 5000));
	app_play_stop(app, &err);
	const struct coll_node *l = coll_store_get(app->store, "Playlists", "Five");
	for (int c = 0; c + 5 <= s.nstarted; c += 5)
		CHECK_MSG(is_permutation(s.started + c, &l->idlist), "cycle %d is not a permutation",
			  c / 5 + 1);
	app_close(app);
}

TEST(repeat_changed_during_a_track_decides_what_follows_it)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 1, false, true);
	struct crate_err err = {0};
	make_list(app, "Tones", (int[]){0, 1, 2}, 3);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Tones", 0, &err) == 0);
	/* Each change after the follower was chosen (and opened) under the old mode. */
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 200);
	app_play_set_repeat(app, APP_REPEAT_ONE); /* T00 again */
	CHECK(run_until(app, &s, 2, 5000));
	run_for(app, 200);
	app_play_set_repeat(app, APP_REPEAT_OFF); /* T00 not a third time: T01 */
	CHECK(run_until(app, &s, 3, 5000));
	run_for(app, 200);
	uint32_t queued = id_of_title(app, 4);
	REQUIRE(app_play_enqueue(app, &queued, 1, &err) == 0);
	run_for(app, 100);
	app_play_set_repeat(app, APP_REPEAT_ONE); /* T01 again, not the queued T04 */
	CHECK(run_until(app, &s, 4, 5000));
	run_for(app, 200);
	app_play_set_repeat(app, APP_REPEAT_OFF); /* now the queue */
	CHECK(run_until(app, &s, 5, 5000));
	app_play_stop(app, &err);
	int want[] = {0, 0, 1, 1, 4};
	for (int i = 0; i < 5; i++)
		CHECK_MSG(i < s.nstarted && s.started[i] == id_of_title(app, want[i]),
			  "track %d is not T%02d", i + 1, want[i]);
	CHECK_INT(s.disagree, 0);
	app_close(app);
}

/* A track queued while the list's last track plays (repeat off: no
 * follower) plays after it; playback stopped at the list's end instead. */
TEST(a_track_queued_during_the_last_entry_plays_after_it)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 1, false, true);
	struct crate_err err = {0};
	make_list(app, "Two", (int[]){0, 1}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Two", 1, &err) == 0); /* the last */
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 200); /* its follower asked for: none */
	uint32_t queued = id_of_title(app, 3);
	REQUIRE(app_play_enqueue(app, &queued, 1, &err) == 0);
	CHECK_MSG(run_until(app, &s, 2, 5000), "nothing played after the last entry");
	CHECK(s.nstarted >= 2 && s.started[1] == queued);
	app_play_stop(app, &err);
	CHECK_INT(s.disagree, 0);
	app_close(app);
}

/* Rescan dir/music: files removed or put back are noticed. */
static void rescan(struct app *app, const char *dir)
{
	char *music = xasprintf("%s/music", dir);
	const char *paths[] = {music};
	struct mlib_scan_result res = {0};
	struct crate_err err = {0};
	CHECK(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0);
	mlib_scan_result_free(&res);
	free(music);
}

/* Move dir/music/tNN.flac away (back: put it back). */
static void move_tone(const char *dir, int i, bool back)
{
	if (back)
		REQUIRE(tp_sh("mv '%s/t%02d.away' '%s/music/t%02d.flac'", dir, i, dir, i));
	else
		REQUIRE(tp_sh("mv '%s/music/t%02d.flac' '%s/t%02d.away'", dir, i, dir, i));
}

static size_t queue_len(struct app *app)
{
	const struct coll_node *q = coll_store_get(app->store, "Playlists", APP_QUEUE_NAME);
	return q ? q->idlist.n : 0;
}

/* A queued track whose file is gone is judged at its turn, not when it is
 * chosen to follow: one back by then plays, one still gone is skipped
 * then (with its message) and the next plays. */
TEST(a_vanished_queued_track_is_judged_at_its_turn)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 6, 2, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	uint32_t q[2] = {id_of_title(app, 4), id_of_title(app, 5)};
	REQUIRE(app_play_enqueue(app, q, 2, &err) == 0);
	move_tone(dir, 4, false);
	move_tone(dir, 5, false);
	rescan(app, dir);
	CHECK(!mlib_index_has_media(app->index, q[0]) && !mlib_index_has_media(app->index, q[1]));
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 300); /* T00's follower is chosen */
	CHECK_MSG(s.nfailed == 0, "%d queued entries skipped while T00 plays", s.nfailed);
	CHECK_INT(queue_len(app), 2);
	move_tone(dir, 5, true); /* a re-sync brings T05 back before its turn */
	rescan(app, dir);
	CHECK(run_until(app, &s, 2, 5000));
	CHECK_MSG(s.started[1] == q[1], "id %u followed T00, not the queued T05",
		  (unsigned)s.started[1]);
	CHECK_INT(s.nfailed, 1); /* T04, at its turn */
	CHECK_INT(queue_len(app), 0);
	CHECK(run_until(app, &s, 3, 5000));
	CHECK(s.started[2] == id_of_title(app, 1));
	app_play_stop(app, &err);
	CHECK_INT(s.disagree, 0);
	app_close(app);
}

/* The last track plays with only vanished files queued: none follows, and
 * at its end they are skipped (with their messages), not before. */
TEST(vanished_queued_tracks_after_the_last_entry_go_at_its_end)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 1, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0}, 1);
	uint32_t q = id_of_title(app, 3);
	REQUIRE(app_play_enqueue(app, &q, 1, &err) == 0);
	move_tone(dir, 3, false);
	rescan(app, dir);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 300);
	CHECK_INT(s.nfailed, 0);
	CHECK_INT(queue_len(app), 1);
	CHECK(run_until(app, &s, 0, 5000));
	CHECK_INT(s.nstarted, 1);
	CHECK_INT(s.nfailed, 1);
	CHECK_INT(queue_len(app), 0);
	app_close(app);
}

/* Repeat one repeats what plays: a queued track too, not the context's
 * entry (which played instead); off again, the context goes on after its
 * entry. */
TEST(repeat_one_during_a_queued_track_repeats_that_track)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 1, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	make_list(app, "Queue", (int[]){3}, 1);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	REQUIRE(app_play_next(app, &err) == 0); /* the queued T03 */
	CHECK(run_until(app, &s, 2, 5000));
	run_for(app, 200);
	app_play_set_repeat(app, APP_REPEAT_ONE);
	CHECK(run_until(app, &s, 3, 5000)); /* T03 again */
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(st.from_queue);
	run_for(app, 200);
	app_play_set_repeat(app, APP_REPEAT_OFF);
	CHECK(run_until(app, &s, 4, 5000)); /* the context after T00 */
	app_play_stop(app, &err);
	int want[] = {0, 3, 3, 1};
	for (int i = 0; i < 4; i++)
		CHECK_MSG(i < s.nstarted && s.started[i] == id_of_title(app, want[i]),
			  "track %d is not T%02d", i + 1, want[i]);
	CHECK_INT(s.disagree, 0);
	app_close(app);
}

TEST(repeat_one_of_the_last_queued_track_repeats_it_under_stop_after_queue)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 1, false, true);
	struct crate_err err = {0};
	config_set(app->cfg, "playback.stop_after_queue", "true");
	make_list(app, "A", (int[]){0, 1}, 2);
	make_list(app, "Queue", (int[]){3}, 1);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	REQUIRE(app_play_next(app, &err) == 0); /* the queued T03, the queue's last */
	CHECK(run_until(app, &s, 2, 5000));
	run_for(app, 200);
	/* Asked to repeat the track that plays: it does, the queue being
	 * done is no reason to stop while it repeats. */
	app_play_set_repeat(app, APP_REPEAT_ONE);
	CHECK_MSG(run_until(app, &s, 3, 5000), "stopped after T03 (%d started)", s.nstarted);
	CHECK(s.nstarted >= 3 && s.started[2] == id_of_title(app, 3));
	/* Turned off, the queue is done: playback stops there. */
	app_play_set_repeat(app, APP_REPEAT_OFF);
	s.stopped = false;
	CHECK(run_until(app, &s, 0, 5000));
	CHECK_INT(s.nstarted, 3);
	app_close(app);
}

/* Entries are numbered from 1 wherever people see them ("has no entry 0"
 * was the answer to playing an empty list). */
TEST(playing_an_empty_list_or_past_the_end_says_so_in_entry_numbers)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 1, false, false);
	struct crate_err err = {0};
	make_list(app, "Empty", (int[]){0}, 0);
	make_list(app, "One", (int[]){1}, 1);
	CHECK(app_play_collection(app, "Playlists", "Empty", 0, &err) != 0);
	CHECK_STR(err.msg, "Playlists/Empty is empty");
	crate_err_clear(&err);
	CHECK(app_play_collection(app, "Playlists", "One", 1, &err) != 0);
	CHECK_STR(err.msg, "Playlists/One has no entry 2 (1 entry)");
	app_close(app);
}

/* A start that is refused (an empty list, an entry past the end, a Party
 * Shuffle with nothing to pick) changes nothing: the list that plays stays
 * the context and the active playlist, and goes on after its track. The
 * refused list became both, so playback stopped after T00. */
TEST(a_refused_start_leaves_the_context_and_what_follows)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 1, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	make_list(app, "Empty", NULL, 0);
	make_list(app, "One", (int[]){2}, 1);
	REQUIRE(app_pshuffle_create(app, "Party", "title:Nothing", 5, &err) == 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(app_play_collection(app, "Playlists", "Empty", 0, &err) != 0);
	CHECK_STR(err.msg, "Playlists/Empty is empty");
	crate_err_clear(&err);
	CHECK(app_play_collection(app, "Playlists", "One", 2, &err) != 0);
	CHECK_STR(err.msg, "Playlists/One has no entry 3 (1 entry)");
	crate_err_clear(&err);
	CHECK(app_play_collection(app, "Playlists", "Party", 0, &err) != 0);
	CHECK_STR(err.msg, "Playlists/Party is empty (its source has nothing to pick)");
	crate_err_clear(&err);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.playlist, "A");
	CHECK_INT(st.position, 0);
	CHECK_STR(coll_store_active_playlist(app->store), "A");
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 2);
	CHECK_MSG(s.nstarted >= 2 && s.started[1] == id_of_title(app, 1),
		  "T01 did not follow T00 (%d started)", s.nstarted);
	CHECK_INT(s.disagree, 0);
	app_close(app);
}

/* A start whose entries have no file (missing, or no longer in the
 * library) is refused before the switch, as an empty list's is. */
TEST(a_start_with_nothing_to_play_leaves_what_plays)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 1, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	make_list(app, "Gone", (int[]){2, 3}, 2);
	uint32_t gone[2] = {id_of_title(app, 2), id_of_title(app, 3)};
	move_tone(dir, 2, false);
	move_tone(dir, 3, false);
	rescan(app, dir);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(app_play_collection(app, "Playlists", "Gone", 0, &err) != 0);
	CHECK_STR(err.msg, "Playlists/Gone has nothing to play: none of its entries has a file");
	crate_err_clear(&err);
	CHECK(app_play_list(app, gone, NULL, 2, APP_PLAY_ANY, &err) != 0);
	CHECK_STR(err.msg, "nothing to play: none of the list's entries has a file");
	crate_err_clear(&err);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.playlist, "A");
	CHECK_INT(st.position, 0);
	CHECK(st.state == ENGINE_PLAYING);
	CHECK_STR(coll_store_active_playlist(app->store), "A");
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 2);
	CHECK_MSG(s.nstarted >= 2 && s.started[1] == id_of_title(app, 1),
		  "T01 did not follow T00 (%d started)", s.nstarted);
	CHECK_INT(s.nfailed, 0);
	CHECK_INT(s.disagree, 0);
	app_close(app);
}

/* Quit as the interface does (state saved, app closed) and start again
 * on dir's library: the resumed app, its first track started (seen in r). */
static struct app *reopen_and_resume(struct app *app, const char *dir, struct seen *r);

static struct app *quit_and_resume(struct app *app, const char *dir, struct seen *r)
{
	struct crate_err err = {0};
	REQUIRE(app_resume_save(app, NULL, NULL, &err) == 0);
	return reopen_and_resume(app, dir, r);
}

/* Close app (its state saved before) and start again from that state. */
static struct app *reopen_and_resume(struct app *app, const char *dir, struct seen *r)
{
	struct crate_err err = {0};
	app_close(app);
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	struct app_opts o = {.db_path = db, .config_path = cfg};
	REQUIRE(app_open(&app, &o, &err) == 0);
	free(db);
	free(cfg);
	r->app = app;
	app_play_set_listener(app, take_notice, r);
	struct app_resume_ui ui;
	REQUIRE(app_resume_load(app, &ui, &err) == 0);
	app_resume_ui_free(&ui);
	CHECK(run_until(app, r, 1, 5000));
	return app;
}

TEST(resume_keeps_the_position_to_the_millisecond)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 4, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 1700);
	REQUIRE(app_play_toggle(app, &err) == 0); /* paused mid-second */
	run_for(app, 300);
	struct app_play_status st;
	app_play_status(app, &st);
	int64_t paused_at = st.pos_ms;
	CHECK_MSG(paused_at % 1000 >= 100, "paused at %lld ms, too near a whole second",
		  (long long)paused_at);
	struct seen r = {0};
	app = quit_and_resume(app, dir, &r);
	app_play_status(app, &st);
	CHECK(r.started[0] == id_of_title(app, 0));
	/* MPD resumes where it stopped; a second heard again is a fault. */
	CHECK_MSG(llabs(st.pos_ms - paused_at) <= 50, "paused at %lld ms, resumed at %lld ms",
		  (long long)paused_at, (long long)st.pos_ms);
	app_play_stop(app, &err);
	app_close(app);
}

/* Append text to dir's config (read at the next app_open). */
static void config_append(const char *dir, const char *text)
{
	char *cfg = xasprintf("%s/config", dir);
	FILE *f = fopen(cfg, "a");
	REQUIRE(f);
	fputs(text, f);
	fclose(f);
	free(cfg);
}

TEST(resume_play_leaves_a_track_paused_at_quit_paused)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 4, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 500);
	REQUIRE(app_play_toggle(app, &err) == 0);
	run_for(app, 200);
	/* resume = play plays on what was playing, as MPD restores its
	 * state: what the user paused before quitting stays paused. */
	config_append(dir, "[playback]\nresume = play\n");
	struct seen r = {0};
	app = quit_and_resume(app, dir, &r);
	run_for(app, 300);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(r.started[0] == id_of_title(app, 0));
	CHECK_MSG(st.state == ENGINE_PAUSED, "paused at quit, %s after the restart",
		  engine_state_name(st.state));
	/* What was playing at quit plays on. */
	REQUIRE(app_play_toggle(app, &err) == 0);
	run_for(app, 300);
	r = (struct seen){0};
	app = quit_and_resume(app, dir, &r);
	run_for(app, 300);
	app_play_status(app, &st);
	CHECK_MSG(st.state == ENGINE_PLAYING, "playing at quit, %s after the restart",
		  engine_state_name(st.state));
	app_play_stop(app, &err);
	app_close(app);
}

TEST(a_track_resumed_paused_whose_file_is_gone_leaves_the_next_paused)
{
	/* Quit paused, the track's file gone by the next start: it was
	 * skipped and the next entry played aloud at start-up. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 4, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1}, 2);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 500);
	REQUIRE(app_play_toggle(app, &err) == 0); /* pause */
	run_for(app, 200);
	REQUIRE(app_resume_save(app, NULL, NULL, &err) == 0);
	REQUIRE(tp_sh("rm '%s/music/t00.flac'", dir));
	struct seen r = {0};
	app = reopen_and_resume(app, dir, &r);
	run_for(app, 300);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_INT(r.nfailed, 1);
	CHECK(r.started[0] == id_of_title(app, 1));
	CHECK_MSG(st.state == ENGINE_PAUSED, "%s after the skip", engine_state_name(st.state));
	app_close(app);
}

TEST(a_long_temporary_list_is_resumed_at_its_entry)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 3, false, true);
	struct crate_err err = {0};
	/* The whole library played from the browser: a temporary list whose
	 * ids line passes 64 KiB. It was read in 64 KiB pieces, so the list
	 * came back cut short and its playing entry was lost. */
	enum { ENTRIES = 40000 };
	uint32_t *ids = xcalloc(ENTRIES, sizeof *ids);
	for (size_t i = 0; i < ENTRIES; i++)
		ids[i] = id_of_title(app, (int)(i % 2));
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_list(app, ids, NULL, ENTRIES, ENTRIES - 1, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	struct seen r = {0};
	app = quit_and_resume(app, dir, &r);
	struct app_play_resume back;
	app_play_get_resume(app, &back);
	CHECK_MSG(back.ids.n == ENTRIES, "%zu entries came back", back.ids.n);
	CHECK_MSG(back.entry == ENTRIES - 1, "entry %zu", back.entry);
	CHECK(r.started[0] == id_of_title(app, 1));
	app_play_resume_free(&back);
	app_play_stop(app, &err);
	app_close(app);
	free(ids);
}

TEST(a_file_outside_the_library_is_resumed_by_its_path)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 1, 4, false, true);
	struct crate_err err = {0};
	/* Played from view 5 by its path: no library id. */
	char *outside = xasprintf("%s/outside=1.flac", dir);
	REQUIRE(tp_make_tone(outside, 550, 4, 44100, NULL));
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_volume(app, 60, false, &err) == 0);
	app_play_set_repeat(app, APP_REPEAT_ALL);
	const char *paths[] = {outside};
	REQUIRE(app_play_list(app, (const uint32_t[]){0}, paths, 1, 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	run_for(app, 1200);
	REQUIRE(app_resume_save(app, NULL, NULL, &err) == 0);
	app_close(app);
	/* The state file was refused whole ("not a crate state file"): no
	 * track, volume or repeat came back. */
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	struct app_opts o = {.db_path = db, .config_path = cfg};
	REQUIRE(app_open(&app, &o, &err) == 0);
	struct seen r = {.app = app};
	app_play_set_listener(app, take_notice, &r);
	struct app_resume_ui ui;
	int rc = app_resume_load(app, &ui, &err);
	CHECK_MSG(rc == 0, "resume: %s", err.msg);
	app_resume_ui_free(&ui);
	CHECK(run_until(app, &r, 1, 5000));
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.path, outside);
	CHECK(st.state == ENGINE_PAUSED);
	CHECK_MSG(st.pos_ms >= 1000 && st.pos_ms < 2500, "resumed at %lld ms",
		  (long long)st.pos_ms);
	CHECK_INT(st.volume, 60);
	CHECK(st.repeat == APP_REPEAT_ALL);
	app_play_stop(app, &err);
	app_close(app);
	free(db);
	free(cfg);
	free(outside);
}

TEST(quitting_during_a_queued_track_resumes_that_track_then_the_context)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 3, false, true);
	struct crate_err err = {0};
	make_list(app, "A", (int[]){0, 1, 2}, 3);
	make_list(app, "Queue", (int[]){4}, 1);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	REQUIRE(app_play_next(app, &err) == 0); /* the queued T04 */
	CHECK(run_until(app, &s, 2, 5000));
	run_for(app, 1300);
	struct seen r = {0};
	app = quit_and_resume(app, dir, &r);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(r.started[0] == id_of_title(app, 4));
	CHECK(st.from_queue);
	CHECK_MSG(st.pos_ms >= 1000 && st.pos_ms < 2500, "resumed at %lld ms", (long long)st.pos_ms);
	CHECK_STR(st.playlist, "A");
	CHECK_INT(st.position, 0);
	CHECK_INT(coll_store_get(app->store, "Playlists", "Queue")->idlist.n, 0);
	/* After it, the context goes on from its entry. */
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &r, 2, 5000));
	CHECK(r.started[1] == id_of_title(app, 1));
	app_play_stop(app, &err);
	app_close(app);
}

TEST(a_queued_track_quit_before_the_context_played_resumes_at_its_first_entry)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 3, false, true);
	struct crate_err err = {0};
	/* A was emptied while crate was closed: resumed, it is the context
	 * with no entry; filled again, with a track queued, next plays the
	 * queued one before any entry of it. */
	make_list(app, "A", (int[]){0}, 1);
	struct seen s0 = {.app = app};
	app_play_set_listener(app, take_notice, &s0);
	REQUIRE(app_play_collection(app, "Playlists", "A", 0, &err) == 0);
	CHECK(run_until(app, &s0, 1, 5000));
	REQUIRE(app_resume_save(app, NULL, NULL, &err) == 0);
	app_close(app);
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	struct app_opts o = {.db_path = db, .config_path = cfg};
	REQUIRE(app_open(&app, &o, &err) == 0);
	free(db);
	free(cfg);
	REQUIRE(coll_store_playlist_remove(app->store, "A", 0, 1, &err) == 0);
	struct app_resume_ui ui;
	REQUIRE(app_resume_load(app, &ui, &err) == 0);
	app_resume_ui_free(&ui);
	for (int i = 0; i < 3; i++) {
		uint32_t id = id_of_title(app, i);
		REQUIRE(coll_store_playlist_insert(app->store, "A", (size_t)i, &id, 1, &err) == 0);
	}
	uint32_t queued = id_of_title(app, 4);
	REQUIRE(app_play_enqueue(app, &queued, 1, &err) == 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_next(app, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(s.started[0] == queued);
	run_for(app, 1300);
	struct seen r = {0};
	app = quit_and_resume(app, dir, &r);
	CHECK(r.started[0] == queued);
	/* After it the context starts, as it would have without the restart:
	 * at T00, not after it. */
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &r, 2, 5000));
	CHECK_MSG(r.started[1] == id_of_title(app, 0), "id %u played after the queued track, not T00",
		  (unsigned)r.started[1]);
	app_play_stop(app, &err);
	app_close(app);
}

/* Nothing had played (no context): next plays the queue's first track,
 * which is what a restart resumes; the state saved nothing, so it was lost. */
TEST(a_queued_track_played_before_any_context_is_resumed)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 3, false, true);
	struct crate_err err = {0};
	uint32_t q[2] = {id_of_title(app, 4), id_of_title(app, 3)};
	REQUIRE(app_play_enqueue(app, q, 2, &err) == 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_next(app, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	CHECK(s.started[0] == q[0]);
	run_for(app, 1300);
	struct seen r = {0};
	app = quit_and_resume(app, dir, &r);
	CHECK_MSG(r.started[0] == q[0], "resumed id %u, not the queued T04", (unsigned)r.started[0]);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK(st.from_queue);
	CHECK(!st.has_context);
	CHECK_MSG(st.pos_ms >= 1000 && st.pos_ms < 2500, "resumed at %lld ms", (long long)st.pos_ms);
	CHECK_INT(coll_store_get(app->store, "Playlists", "Queue")->idlist.n, 1);
	/* After it, the rest of the queue. */
	REQUIRE(app_play_toggle(app, &err) == 0);
	CHECK(run_until(app, &r, 2, 5000));
	CHECK(r.started[1] == q[1]);
	app_play_stop(app, &err);
	app_close(app);
}

/* Playlists/Tones (T00 T01 T02) played from entry start (0-based), its
 * first track started, s listening. */
static struct app *tones_playing_from(size_t start, struct seen *s)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 3, false, true);
	struct crate_err err = {0};
	make_list(app, "Tones", (int[]){0, 1, 2}, 3);
	*s = (struct seen){.app = app};
	app_play_set_listener(app, take_notice, s);
	REQUIRE(app_play_collection(app, "Playlists", "Tones", start, &err) == 0);
	CHECK(run_until(app, s, 1, 5000));
	return app;
}

TEST(undo_of_removing_the_playing_entry_marks_the_entry_that_plays)
{
	struct crate_err err = {0};
	struct seen s;
	struct app *app = tones_playing_from(1, &s);
	size_t playing = 1, removed = 0;
	REQUIRE(app_playlist_remove_entries(app, "Tones", &playing, 1, &removed, &err) == 0);
	REQUIRE(app_play_next(app, &err) == 0); /* T02, now entry 1 */
	CHECK(run_until(app, &s, 2, 5000));
	char *what = NULL;
	REQUIRE(app_playlist_undo(app, &what, &err) == 0); /* T01 back at 1, T02 at 2 */
	free(what);
	const struct coll_node *l = coll_store_get(app->store, "Playlists", "Tones");
	CHECK_STR(coll_attr_get(l, "position"), "2");
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_INT(st.position, 2);
	CHECK(st.id == id_of_title(app, 2));
	app_play_stop(app, &err);
	app_close(app);
}

TEST(undo_of_removing_the_playing_entry_takes_back_the_message)
{
	/* crate remote status went on saying "message: the playing entry was
	 * removed from Tones" with the entry back in the list and playing. */
	struct crate_err err = {0};
	struct seen s;
	struct app *app = tones_playing_from(1, &s);
	size_t playing = 1, removed = 0;
	REQUIRE(app_playlist_remove_entries(app, "Tones", &playing, 1, &removed, &err) == 0);
	app_play_lists_changed(app);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.error, "the playing entry was removed from Tones");
	char *what = NULL;
	REQUIRE(app_playlist_undo(app, &what, &err) == 0);
	free(what);
	app_play_status(app, &st);
	CHECK_STR(st.error, "");
	CHECK_INT(st.position, 1);
	CHECK(st.id == id_of_title(app, 1));
	app_play_stop(app, &err);
	app_close(app);
}

TEST(an_edit_while_paused_moves_the_entry_status_shows)
{
	/* Paused on entry 3 of Tones, entry 1 removed: the status line said
	 * "Tones 3/2" (crate remote status "entry 3") until play went on. */
	struct crate_err err = {0};
	struct seen s;
	struct app *app = tones_playing_from(2, &s);
	REQUIRE(app_play_toggle(app, &err) == 0); /* paused */
	run_for(app, 200);
	size_t first = 0, removed = 0;
	REQUIRE(app_playlist_remove_entries(app, "Tones", &first, 1, &removed, &err) == 0);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_INT(st.state, ENGINE_PAUSED);
	CHECK_INT(st.context_len, 2);
	CHECK_INT(st.position, 1);
	app_play_stop(app, &err);
	app_close(app);
}

TEST(next_on_a_party_shuffle_run_dry_blames_its_source_not_repeat)
{
	/* Its source re-made to match nothing, next past its last entry said
	 * "end of Party: nothing follows (repeat is off)", and repeat never
	 * wraps a Party Shuffle: turning it on changed nothing. */
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 3, 3, false, true);
	struct crate_err err = {0};
	REQUIRE(app_pshuffle_create(app, "Party", "*", 1, &err) == 0);
	struct seen s = {.app = app};
	app_play_set_listener(app, take_notice, &s);
	REQUIRE(app_play_collection(app, "Playlists", "Party", 0, &err) == 0);
	CHECK(run_until(app, &s, 1, 5000));
	REQUIRE(app_pshuffle_create(app, "Party", "title:Nothing", 0, &err) == 0);
	REQUIRE(app_play_next(app, &err) == 0); /* its one entry still to play */
	CHECK(run_until(app, &s, 2, 5000));
	REQUIRE(app_play_next(app, &err) == 0);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_STR(st.error, "end of Party: nothing follows (its source has nothing to pick)");
	app_play_stop(app, &err);
	app_close(app);
}

/* The RMS level of n s16 stereo frames at s, in dB full scale. */
static double rms_db(const char *s, size_t n)
{
	const int16_t *v = (const int16_t *)s;
	double sum = 0;
	for (size_t i = 0; i < n * 2; i++)
		sum += (double)v[i] * v[i];
	return 10 * log10(sum / (double)(n * 2) / (32768.0 * 32768.0));
}

/* Make Playlists/name of titles, listen with s and start it at entry
 * start; returns once its first track started. */
static void start_list(struct app *app, struct seen *s, const char *name, const int *titles,
		       size_t n, size_t start)
{
	struct crate_err err = {0};
	make_list(app, name, titles, n);
	*s = (struct seen){.app = app};
	app_play_set_listener(app, take_notice, s);
	REQUIRE(app_play_collection(app, "Playlists", name, start, &err) == 0);
	CHECK(run_until(app, s, 1, 5000));
}

/* A rule turning target's tracks 20 dB down. */
static void add_rule_20db_down(struct app *app, const char *target)
{
	struct crate_err err = {0};
	struct rules *rs = app_rules(app, &err);
	REQUIRE(rs);
	struct rule rule;
	REQUIRE(rule_from_target(app->store, target, &rule, &err) == 0);
	rule.volume_db = -20;
	REQUIRE(rules_add(rs, SIZE_MAX, &rule, &err) == 0);
	rule_clear(&rule);
}

/* Play T00 then T01 of dir's library (s16 into the sink out), calling
 * change while T00 plays and T01 is already chosen to follow: T00 must
 * come out untouched, T01 20 dB down. */
static void check_follower_20db_down(struct app *app, const char *dir, const char *out,
				     void (*change)(struct app *))
{
	config_set(app->cfg, "output.format", "s16");
	struct crate_err err = {0};
	struct seen s;
	start_list(app, &s, "Two", (int[]){0, 1}, 2, 0);
	run_for(app, 300);
	change(app);
	CHECK(run_until(app, &s, 0, 8000));
	CHECK_INT(s.nstarted, 2);
	size_t len = 0, l0 = 0, l1 = 0;
	char *got = tp_read_file(out, &len);
	char *p0 = xasprintf("%s/music/t00.flac", dir), *p1 = xasprintf("%s/music/t01.flac", dir);
	char *r0 = tp_ffmpeg_decode(p0, "s16le", 2, 44100, &l0);
	char *r1 = tp_ffmpeg_decode(p1, "s16le", 2, 44100, &l1);
	REQUIRE(got && r0 && r1 && len == l0 + l1);
	/* T00, under no rule when it started, is untouched to its end. */
	CHECK_MSG(memcmp(got, r0, l0) == 0, "the playing track changed mid-way");
	/* T01 is 20 dB down all along (a settled second of it). */
	size_t from = 44100 / 4 * 4, n = 44100;
	double drop = rms_db(r1 + from, n) - rms_db(got + l0 + from, n);
	CHECK_MSG(fabs(drop - 20) < 0.5, "T01 is %.2f dB down, not 20", drop);
	free(got);
	free(r0);
	free(r1);
	free(p0);
	free(p1);
	app_play_stop(app, &err);
}

static void add_rule_for_t01(struct app *app)
{
	add_rule_20db_down(app, "title:T01");
}

TEST(a_rule_added_while_a_track_plays_applies_from_the_next_track)
{
	const char *dir = harness_tmpdir();
	const char *out = tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 1.5, false, true);
	check_follower_20db_down(app, dir, out, add_rule_for_t01);
	app_close(app);
}

TEST(entries_inserted_before_a_repeated_track_keep_its_place)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 5, 1.0, false, true);
	struct crate_err err = {0};
	struct seen s; /* T00 twice: entries 0 and 3 */
	start_list(app, &s, "Dup", (int[]){0, 1, 2, 0}, 4, 3);
	run_for(app, 200);
	/* Two tracks put at the top (another shell's playlist add): the
	 * playing entry is now 5, the other T00 entry 2. */
	uint32_t top[2] = {id_of_title(app, 3), id_of_title(app, 4)};
	REQUIRE(coll_store_playlist_insert(app->store, "Dup", 0, top, 2, &err) == 0);
	/* the change is seen within a few polls; a loaded machine takes longer */
	struct app_play_status st;
	for (int i = 0; i < 30; i++) {
		run_for(app, 100);
		app_play_status(app, &st);
		if (st.position == 5)
			break;
	}
	CHECK_INT(st.position, 5);
	CHECK(run_until(app, &s, 0, 8000)); /* it was the last entry: nothing follows */
	CHECK_MSG(s.nstarted == 1, "%d tracks started; the second was T%02d", s.nstarted,
		  s.nstarted > 1 && s.started[1] == id_of_title(app, 1) ? 1 : -1);
	const struct coll_node *l = coll_store_get(app->store, "Playlists", "Dup");
	CHECK_STR(coll_attr_get(l, "position"), "5");
	app_close(app);
}

TEST(a_list_edited_while_crate_was_closed_resumes_the_track_that_played)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 4, 3, false, true);
	struct crate_err err = {0};
	struct seen s;
	start_list(app, &s, "Road", (int[]){0, 1, 2}, 3, 1);
	run_for(app, 1300);
	REQUIRE(app_resume_save(app, NULL, NULL, &err) == 0); /* quit during T01 */
	app_play_stop(app, &err);
	/* Then, crate closed, `crate playlist add` puts T03 at the top: T01 is
	 * entry 2 now, entry 1 is T00. */
	uint32_t t3 = id_of_title(app, 3);
	REQUIRE(coll_store_playlist_insert(app->store, "Road", 0, &t3, 1, &err) == 0);
	struct seen r = {0};
	app = reopen_and_resume(app, dir, &r);
	struct app_play_status st;
	app_play_status(app, &st);
	CHECK_MSG(r.started[0] == id_of_title(app, 1), "resumed T%02d, not T01",
		  r.started[0] == id_of_title(app, 0) ? 0 : -1);
	CHECK_INT(st.position, 2);
	CHECK_MSG(st.pos_ms >= 1000 && st.pos_ms < 2500, "resumed at %lld ms", (long long)st.pos_ms);
	/* Quit again, and T01 is removed meanwhile: the entry that took its
	 * place plays, from its start (the offset was T01's). */
	REQUIRE(app_resume_save(app, NULL, NULL, &err) == 0);
	app_play_stop(app, &err);
	size_t at = 2, removed = 0;
	REQUIRE(app_playlist_remove_entries(app, "Road", &at, 1, &removed, &err) == 0);
	struct seen r2 = {0};
	app = reopen_and_resume(app, dir, &r2);
	app_play_status(app, &st);
	CHECK(r2.started[0] == id_of_title(app, 2));
	CHECK_INT(st.position, 2);
	CHECK_MSG(st.pos_ms < 1000, "resumed at %lld ms", (long long)st.pos_ms);
	app_play_stop(app, &err);
	app_close(app);
}

TEST(prev_at_the_first_entry_restarts_the_track_without_a_skip)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 1.2, false, true);
	struct crate_err err = {0};
	struct seen s;
	start_list(app, &s, "Two", (int[]){0, 1}, 2, 0);
	run_for(app, 400); /* some of T00 heard, far from half of it */
	REQUIRE(app_play_prev(app, &err) == 0); /* nothing before it: T00 again */
	CHECK(run_until(app, &s, 2, 5000));
	uint32_t t0 = id_of_title(app, 0);
	CHECK(s.started[1] == t0);
	int64_t v;
	CHECK_MSG(!stat_of(app, t0, "timesskipped", &v), "restarting T00 counted a skip");
	/* Heard to its end from the restart: a play, and still no skip. */
	CHECK(run_until(app, &s, 3, 5000));
	CHECK(stat_of(app, t0, "timesplayed", &v) && v == 1);
	CHECK(!stat_of(app, t0, "timesskipped", &v));
	/* A real replacement is still a skip: next after some of T01. */
	run_for(app, 300);
	REQUIRE(app_play_next(app, &err) == 0);
	run_for(app, 200);
	CHECK(stat_of(app, id_of_title(app, 1), "timesskipped", &v) && v == 1);
	app_play_stop(app, &err);
	app_close(app);
}

/* The entry of Playlists/name holding id, or -1. */
static long entry_of(struct app *app, const char *name, uint32_t id)
{
	const struct coll_node *l = coll_store_get(app->store, "Playlists", name);
	for (size_t i = 0; l && i < l->idlist.n; i++)
		if (l->idlist.v[i] == id)
			return (long)i;
	return -1;
}

/* next pressed until `to` tracks started, from the first's start. */
static void next_until_started(struct app *app, struct seen *s, int to)
{
	struct crate_err err = {0};
	for (int k = s->nstarted; k < to; k++) {
		CHECK(run_until(app, s, k, 5000));
		run_for(app, 100);
		CHECK(app_play_next(app, &err) == 0);
	}
	CHECK(run_until(app, s, to, 5000));
}

/* next pressed until playback stops (at most max starts), then: were
 * `expected` tracks started, none twice? */
static void next_to_the_end_once_each(struct app *app, struct seen *s, int max, int expected)
{
	struct crate_err err = {0};
	for (int k = s->nstarted; k < max && !s->stopped; k++) {
		run_for(app, 100);
		CHECK(app_play_next(app, &err) == 0);
		run_until(app, s, k + 1, 2000);
	}
	run_for(app, 200);
	CHECK_MSG(s->nstarted == expected, "%d tracks started, not %d", s->nstarted, expected);
	for (int i = 0; i < s->nstarted; i++)
		for (int j = 0; j < i; j++)
			CHECK_MSG(s->started[i] != s->started[j], "start %d repeats start %d", i + 1,
				  j + 1);
}

TEST(editing_a_shuffled_list_keeps_its_cycle)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 10, 3, false, true);
	struct crate_err err = {0};
	app_play_set_shuffle(app, true);
	struct seen s;
	start_list(app, &s, "Mix", (int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8, 0);
	next_until_started(app, &s, 4);
	/* Four of eight played: two tracks added at the end, and the first
	 * that played removed (the entries after it move up). */
	uint32_t more[2] = {id_of_title(app, 8), id_of_title(app, 9)};
	REQUIRE(coll_store_playlist_insert(app->store, "Mix", SIZE_MAX, more, 2, &err) == 0);
	size_t first = (size_t)entry_of(app, "Mix", s.started[0]), removed = 0;
	REQUIRE(app_playlist_remove_entries(app, "Mix", &first, 1, &removed, &err) == 0);
	/* The cycle went on: the six not yet played, each once, then the end. */
	next_to_the_end_once_each(app, &s, 12, 10);
	app_play_stop(app, &err);
	app_close(app);
}

/* The album (0, 1, 2: five tracks each) of media id. */
static int album_of(struct app *app, uint32_t id)
{
	for (int i = 0; i < 15; i++)
		if (id_of_title(app, i) == id)
			return i / 5;
	return -1;
}

TEST(editing_a_list_shuffled_by_albums_keeps_its_cycle)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 15, 3, false, true);
	struct crate_err err = {0};
	app_play_set_shuffle_mode(app, APP_SHUFFLE_ALBUMS);
	struct seen s;
	start_list(app, &s, "Two", (int[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10, 0);
	next_until_started(app, &s, 7); /* album 0, then into album 1 */
	/* A third album added at the end (crate playlist add, the queue key). */
	int added[5] = {10, 11, 12, 13, 14};
	for (int i = 0; i < 5; i++) {
		uint32_t id = id_of_title(app, added[i]);
		REQUIRE(coll_store_playlist_insert(app->store, "Two", SIZE_MAX, &id, 1, &err) == 0);
	}
	/* Album 1 went on in order, then album 2; album 0 did not come again. */
	next_to_the_end_once_each(app, &s, 25, 15);
	for (int i = 5; i < s.nstarted; i++) /* album 1's rest, then album 2 */
		CHECK_MSG(album_of(app, s.started[i]) == (i < 10 ? 1 : 2), "start %d is of album %d",
			  i + 1, album_of(app, s.started[i]));
	app_play_stop(app, &err);
	app_close(app);
}

static void rate_t01_4_stars(struct app *app)
{
	struct crate_err err = {0};
	REQUIRE(app_set_rating(app, id_of_title(app, 1), 4, &err) == 0);
}

TEST(rating_the_next_track_into_a_rule_applies_it_from_that_track)
{
	const char *dir = harness_tmpdir();
	const char *out = tp_alsa_to_file(dir);
	struct app *app = open_library(dir, 2, 1.5, false, true);
	add_rule_20db_down(app, "rating>=4");
	check_follower_20db_down(app, dir, out, rate_t01_4_stars);
	app_close(app);
}
