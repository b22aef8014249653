/* Hooks (issue 18 part 2): the runner alone (arguments, environment, a hook
 * that hangs, floods, fails or is missing), and through the application
 * (track change, pause, resume, stop, end of a scan) with real playback to
 * ALSA's file plugin. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_hooks.h"
#include "app/app_library.h"
#include "app/app_play.h"
#include "app/app_resume.h"
#include "app/hooks.h"
#include "harness.h"
#include "medialib/index.h"
#include "medialib/scan.h"
#include "test_play_util.h"

/* An executable shell script at dir/name with body. */
static char *script(const char *name, const char *body)
{
	char *p = xasprintf("%s/%s", harness_tmpdir(), name);
	FILE *f = fopen(p, "w");
	REQUIRE(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	REQUIRE(chmod(p, 0755) == 0);
	return p;
}

static char *slurp(const char *path)
{
	size_t len;
	char *b = tp_read_file(path, &len);
	if (!b)
		return xstrdup("");
	b = xrealloc(b, len + 1);
	b[len] = '\0';
	return b;
}

/* A hook that records its arguments and CRATE_* variables, one line per run. */
static char *recorder(const char *out)
{
	char *body = xasprintf(
		"line=\"$(printf '%%s=' \"$@\")|$CRATE_EVENT|$CRATE_STATUS|$CRATE_ARTIST|$CRATE_TITLE|$CRATE_FILE|$CRATE_DURATION\"\n"
		"printf '%%s\\n' \"$line\" >> '%s'", out);
	char *p = script("record.sh", body);
	free(body);
	return p;
}

TEST(hook_gets_pairs_as_arguments_and_environment_never_a_shell)
{
	char *out = xasprintf("%s/out", harness_tmpdir()), *log = xasprintf("%s/h.log", harness_tmpdir());
	char *prog = recorder(out);
	struct hooks_opts o = {prog, log, 5000, 4096, 2};
	struct hooks *h = hooks_new(&o);
	char *pwned = xasprintf("%s/pwned", harness_tmpdir());
	char *evil = xasprintf("$(touch %s); `touch %s`\nnext line", pwned, pwned);
	const char *kv[] = {"event", "track", "status", "playing", "artist", evil, "title", "T"};
	hooks_run(h, kv, 4);
	CHECK(hooks_wait_idle(h, 5000));
	char *got = slurp(out);
	char *want = xasprintf("event=track=status=playing=artist=%s=title=T=|track|playing|%s|T||\n",
			       evil, evil);
	CHECK_STR(got, want);
	CHECK(access(pwned, F_OK) != 0);
	char rep[600];
	CHECK(!hooks_take_report(h, rep, sizeof rep));
	hooks_free(h);
	free(got), free(want), free(evil), free(pwned), free(out), free(log), free(prog);
}

TEST(hook_that_hangs_is_killed_and_reported_once)
{
	char *log = xasprintf("%s/h.log", harness_tmpdir());
	char *prog = script("hang.sh", "sleep 30 & sleep 30");
	struct hooks_opts o = {prog, log, 300, 4096, 2};
	struct hooks *h = hooks_new(&o);
	const char *kv[] = {"event", "track"};
	hooks_run(h, kv, 1);
	hooks_run(h, kv, 1);
	CHECK(hooks_wait_idle(h, 3000)); /* both killed well before 30 s */
	char rep[600];
	CHECK(hooks_take_report(h, rep, sizeof rep));
	CHECK_MSG(strstr(rep, "killed") != NULL, "%s", rep);
	CHECK(!hooks_take_report(h, rep, sizeof rep)); /* once */
	char *l = slurp(log);
	CHECK(strstr(l, "killed") != NULL);
	hooks_free(h);
	free(l), free(log), free(prog);
}

/* Quitting never waits for a hook, but a hook still running then is
 * killed at its timeout all the same (it lived on for its whole 30 s). */
TEST(hook_still_running_at_quit_is_killed_at_its_timeout)
{
	char *log = xasprintf("%s/q.log", harness_tmpdir());
	char *pidf = xasprintf("%s/q.pid", harness_tmpdir());
	char *body = xasprintf("echo $$ > '%s.tmp' && mv '%s.tmp' '%s'; exec sleep 30", pidf, pidf, pidf);
	char *prog = script("quit_hang.sh", body);
	struct hooks_opts o = {prog, log, 500, 4096, 2};
	struct hooks *h = hooks_new(&o);
	const char *kv[] = {"event", "stop"};
	hooks_run(h, kv, 1);
	pid_t pid = 0;
	for (int i = 0; i < 200 && pid <= 0; i++) {
		char *p = slurp(pidf);
		pid = (pid_t)atoi(p);
		free(p);
		if (pid <= 0)
			usleep(10000);
	}
	REQUIRE(pid > 0);
	hooks_free(h); /* quitting, the hook still running */
	int st = 0;
	pid_t w = 0;
	for (int i = 0; i < 300 && w == 0; i++) { /* 3 s: its timeout is 0.5 s */
		w = waitpid(pid, &st, WNOHANG);
		if (w == 0)
			usleep(10000);
	}
	CHECK_MSG(w == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		  "the hook was still running 3 s after quitting (timeout 0.5 s)");
	if (w == 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	free(body), free(prog), free(pidf), free(log);
}

TEST(hook_output_goes_to_the_log_and_a_flood_is_cut)
{
	char *log = xasprintf("%s/h.log", harness_tmpdir());
	char *prog = script("flood.sh", "echo hello from the hook; head -c 5000000 /dev/zero | tr '\\0' x");
	struct hooks_opts o = {prog, log, 5000, 10000, 2};
	struct hooks *h = hooks_new(&o);
	const char *kv[] = {"event", "track"};
	hooks_run(h, kv, 1);
	CHECK(hooks_wait_idle(h, 5000));
	struct stat st;
	REQUIRE(stat(log, &st) == 0);
	CHECK_MSG(st.st_size >= 10000 && st.st_size < 12000, "log has %lld bytes", (long long)st.st_size);
	char *l = slurp(log);
	CHECK(strstr(l, "hello from the hook") != NULL);
	char rep[600];
	CHECK(hooks_take_report(h, rep, sizeof rep) && strstr(rep, "output cut"));
	hooks_free(h);
	free(l), free(log), free(prog);
}

TEST(failing_or_missing_hook_is_reported)
{
	char *log = xasprintf("%s/h.log", harness_tmpdir());
	char *prog = script("fail.sh", "exit 3");
	struct hooks_opts o = {prog, log, 5000, 4096, 2};
	struct hooks *h = hooks_new(&o);
	const char *kv[] = {"event", "stop"};
	hooks_run(h, kv, 1);
	CHECK(hooks_wait_idle(h, 5000));
	char rep[600];
	CHECK(hooks_take_report(h, rep, sizeof rep) && strstr(rep, "exit status 3"));
	hooks_run(h, kv, 1);
	CHECK(hooks_wait_idle(h, 5000));
	CHECK(!hooks_take_report(h, rep, sizeof rep));
	hooks_free(h);
	struct hooks_opts m = {"/nonexistent/hook", log, 5000, 4096, 2};
	h = hooks_new(&m);
	hooks_run(h, kv, 1);
	CHECK(hooks_wait_idle(h, 5000));
	CHECK(hooks_take_report(h, rep, sizeof rep) && strstr(rep, "cannot start"));
	hooks_free(h);
	free(log), free(prog);
}

/* ---- through the application ---- */

static bool stopped_seen;
static int started_seen;
static void listen(void *ud, const struct app_play_notice *n)
{
	(void)ud;
	started_seen += n->type == APP_PLAY_STARTED;
	stopped_seen |= n->type == APP_PLAY_STOPPED;
}

static void pump(struct app *app, int ms, bool (*until)(void))
{
	struct crate_err err = {0};
	int fd = app_play_event_fd(app, &err);
	for (int t = 0; t < ms && !(until && until()); t += 20) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, 20);
		app_play_handle_events(app);
	}
}

static bool one_started(void) { return started_seen >= 1; }
static bool two_started(void) { return started_seen >= 2; }
static bool all_stopped(void) { return stopped_seen; }

/* dir/music/t0.flac and t1.flac (Artist N, Song N, 1.5 s) scanned into a
 * library whose hooks record to *out (owned, as *music); playing to ALSA's
 * file plugin at its pace. */
static struct app *hooked_library(const char *dir, char **music, char **out)
{
	tp_alsa_to_file(dir);
	*music = xasprintf("%s/music", dir);
	*out = xasprintf("%s/events", dir);
	REQUIRE(tp_sh("mkdir -p '%s'", *music));
	for (int i = 0; i < 2; i++) {
		char *p = xasprintf("%s/t%d.flac", *music, i), *extra = xasprintf(
			"-metadata artist='Artist %d' -metadata title='Song %d'", i, i);
		REQUIRE(tp_make_tone(p, 300 + 100 * i, 1.5, 8000, extra));
		free(p), free(extra);
	}
	char *prog = recorder(*out);
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	FILE *f = fopen(cfg, "w");
	REQUIRE(f);
	fprintf(f, "[output]\npace = true\n[hooks]\non_change = %s\non_scan_done = %s\n", prog, prog);
	fclose(f);
	struct app_opts o = {.db_path = db, .config_path = cfg};
	struct app *app;
	struct crate_err err = {0};
	REQUIRE(app_open(&app, &o, &err) == 0);
	struct mlib_scan_result res = {0};
	const char *paths[] = {*music};
	CHECK(app_scan(app, paths, 1, NULL, NULL, &res, &err) == 0);
	mlib_scan_result_free(&res);
	REQUIRE(mlib_index_library_order(app->index)->n == 2);
	app_play_set_listener(app, listen, NULL);
	free(prog), free(db), free(cfg);
	return app;
}

/* Close app and wait for its hook runs to record the stop; the events. */
static char *events_after_close(struct app *app, const char *out)
{
	app_close(app); /* lets queued runs start */
	for (int i = 0; i < 100; i++) { /* the last run may still be writing */
		char *e = slurp(out);
		bool done = strstr(e, "|stop|") != NULL;
		free(e);
		if (done)
			break;
		usleep(20000);
	}
	return slurp(out);
}

TEST(hook_runs_on_track_change_pause_resume_stop_and_scan)
{
	char *music, *out;
	struct app *app = hooked_library(harness_tmpdir(), &music, &out);
	struct crate_err err = {0};
	const struct u32vec *all = mlib_index_library_order(app->index);
	REQUIRE(app_play_list(app, all->v, NULL, 2, APP_PLAY_ANY, &err) == 0);
	pump(app, 5000, one_started);
	REQUIRE(app_play_toggle(app, &err) == 0); /* pause */
	pump(app, 300, NULL);
	REQUIRE(app_play_toggle(app, &err) == 0); /* resume */
	pump(app, 10000, all_stopped);
	CHECK(stopped_seen);
	char *e = events_after_close(app, out);
	char *t0 = xasprintf("|track|playing|Artist 0|Song 0|%s/t0.flac|2", music);
	char *t1 = xasprintf("|track|playing|Artist 1|Song 1|%s/t1.flac|2", music);
	CHECK_MSG(strstr(e, t0) && strstr(e, t1), "events:\n%s", e);
	CHECK_MSG(strstr(e, "|pause|paused|Artist 0|Song 0|"), "events:\n%s", e);
	CHECK_MSG(strstr(e, "|resume|playing|Artist 0|Song 0|"), "events:\n%s", e);
	CHECK_MSG(strstr(e, "event=stop=status=stopped=|stop|stopped|"), "events:\n%s", e);
	CHECK_MSG(strstr(e, "event=scan_done=added=2="), "events:\n%s", e);
	CHECK_MSG(strstr(e, "event=track=status=playing=file="), "events:\n%s", e);
	if (getenv("SHOW_EVENTS"))
		fprintf(stderr, "%s", e);
	free(e), free(t0), free(t1), free(music), free(out);
}

TEST(a_track_resumed_at_its_offset_says_that_position_to_the_hook)
{
	/* Quit at 0:01 of Song 0: the restart loads it there, and the hook's
	 * track event said position 0. */
	char *music, *out;
	started_seen = 0;
	stopped_seen = false;
	const char *dir = harness_tmpdir();
	struct app *app = hooked_library(dir, &music, &out);
	struct crate_err err = {0};
	const struct u32vec *all = mlib_index_library_order(app->index);
	REQUIRE(app_play_list(app, all->v, NULL, 2, APP_PLAY_ANY, &err) == 0);
	pump(app, 5000, one_started);
	REQUIRE(app_play_toggle(app, &err) == 0); /* pause */
	REQUIRE(app_play_seek(app, 1200, false, &err) == 0);
	pump(app, 300, NULL);
	REQUIRE(app_resume_save(app, NULL, NULL, &err) == 0);
	app_close(app);
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	struct app_opts o = {.db_path = db, .config_path = cfg};
	REQUIRE(app_open(&app, &o, &err) == 0);
	app_play_set_listener(app, listen, NULL);
	struct app_resume_ui ui;
	REQUIRE(app_resume_load(app, &ui, &err) == 0);
	app_resume_ui_free(&ui);
	pump(app, 2000, two_started);
	REQUIRE(app_play_stop(app, &err) == 0);
	pump(app, 2000, all_stopped);
	char *e = events_after_close(app, out);
	for (int i = 0; i < 100 && !strstr(e, "event=track=status=paused=file="); i++) {
		usleep(20000); /* the first close's stop came before this run */
		free(e);
		e = slurp(out);
	}
	CHECK_MSG(strstr(e, "event=track=status=paused=file=") &&
		  strstr(e, "title=Song 0=duration=2=position=1="), "events:\n%s", e);
	free(e), free(db), free(cfg), free(music), free(out);
}

TEST(a_track_that_starts_paused_is_paused_to_the_hook)
{
	/* next while paused: the next track waits paused at its start, and
	 * the hook was told "track" with status playing (a status bar
	 * showed it playing). */
	char *music, *out;
	started_seen = 0;
	stopped_seen = false;
	struct app *app = hooked_library(harness_tmpdir(), &music, &out);
	struct crate_err err = {0};
	const struct u32vec *all = mlib_index_library_order(app->index);
	REQUIRE(app_play_list(app, all->v, NULL, 2, APP_PLAY_ANY, &err) == 0);
	pump(app, 5000, one_started);
	REQUIRE(app_play_toggle(app, &err) == 0); /* pause */
	pump(app, 300, NULL);
	REQUIRE(app_play_next(app, &err) == 0);
	pump(app, 2000, two_started);
	pump(app, 300, NULL);
	REQUIRE(app_play_stop(app, &err) == 0);
	pump(app, 2000, all_stopped);
	char *e = events_after_close(app, out);
	char *t1 = xasprintf("|track|paused|Artist 1|Song 1|%s/t1.flac|2", music);
	CHECK_MSG(strstr(e, t1), "events:\n%s", e);
	free(e), free(t1), free(music), free(out);
}
