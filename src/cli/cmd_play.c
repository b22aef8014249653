/* crate play --no-ui: play a playlist, a query's results or files in the
 * foreground until the end, printing each track as it starts. It listens
 * on the control socket as the interface does, so `crate remote` pauses,
 * skips or stops it (over SSH there may be no D-Bus for MPRIS). */
#include "cli/cli.h"
#include "cli/output.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app/app.h"
#include "app/app_changes.h"
#include "app/app_coll.h"
#include "cli/cmd_util.h"
#include "app/app_hooks.h"
#include "app/app_library.h"
#include "app/app_mpris.h"
#include "app/app_stream.h"
#include "app/app_play.h"
#include "app/app_plfile.h"
#include "app/app_read.h"
#include "app/app_remote.h"
#include "app/app_view.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/store.h"
#include "medialib/index.h"
#include "medialib/media.h"
#include "medialib/scan_cue.h"

struct play_run {
	struct app *app;
	FILE *out, *err; /* the command's ctx->out and ctx->err */
	int started, failed;
	bool done, device_failed;
};

static void print_clean(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	cli_put_safe(f, s, strlen(s));
	fputc('\n', f);
	fflush(f);
}

/* The track that started, named as crate remote status names it. */
static void print_track(struct play_run *r)
{
	struct app_play_status st;
	app_play_status(r->app, &st);
	char *line = app_track_line(r->app, &st);
	print_clean(r->out, "", line);
	free(line);
}

static void on_notice(void *ud, const struct app_play_notice *n)
{
	struct play_run *r = ud;
	switch (n->type) {
	case APP_PLAY_STARTED:
		r->started++;
		print_track(r);
		break;
	case APP_PLAY_FAILED:
		r->failed++;
		print_clean(r->err, "crate: ", n->msg);
		break;
	case APP_PLAY_DEVICE:
		r->device_failed = true;
		r->done = true;
		print_clean(r->err, "crate: ", n->msg);
		break;
	case APP_PLAY_STOPPED:
		r->done = true;
		break;
	case APP_PLAY_PAUSED: /* these notices carry no text of their own */
		print_clean(r->out, "  ", "paused");
		break;
	case APP_PLAY_RESUMED:
		print_clean(r->out, "  ", "resumed");
		break;
	case APP_PLAY_TITLE: /* a stream's new title; "" (none now) is no line */
		if (n->msg[0])
			print_clean(r->out, "  ", n->msg);
		break;
	case APP_PLAY_SEEKED:
	case APP_PLAY_VOLUME:
		break;
	}
}

/* Ctrl-C, SIGTERM or a hang-up end the player as crate remote stop does
 * (the hook's stop event, the control socket removed), and then it dies of
 * that signal, so that a shell loop around it stops too; it died at once,
 * with neither. A second signal ends it at once, unless it is the first
 * one again within half a second (timeout(1) sends its signal to the
 * player and to its process group); an ignored one (nohup) stays ignored. */
static volatile sig_atomic_t stop_signal;
static struct timespec stop_signal_at;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])
static struct sigaction stop_previous[NSTOP];
static bool stop_installed[NSTOP];

static void on_stop_signal(int sig)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
	if (!stop_signal) {
		stop_signal = sig;
		stop_signal_at = now;
		return;
	}
	long ms = (long)(now.tv_sec - stop_signal_at.tv_sec) * 1000 +
		  (now.tv_nsec - stop_signal_at.tv_nsec) / 1000000;
	if (sig == stop_signal && ms < 500)
		return;
	int saved = errno;
	for (size_t i = 0; i < NSTOP; i++)
		if (stop_signals[i] == sig && stop_installed[i]) {
			/* delivered once this handler returns, to the one before */
			sigaction(sig, &stop_previous[i], NULL);
			raise(sig);
		}
	errno = saved;
}

static void stop_signals_install(void)
{
	stop_signal = 0;
	for (size_t i = 0; i < NSTOP; i++) {
		struct sigaction sa = {0}, old;
		sa.sa_handler = on_stop_signal;
		sigemptyset(&sa.sa_mask);
		bool ignored = sigaction(stop_signals[i], NULL, &old) != 0 ||
			       (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN);
		stop_installed[i] = !ignored && sigaction(stop_signals[i], &sa, &stop_previous[i]) == 0;
	}
}

static void stop_signals_uninstall(void)
{
	for (size_t i = 0; i < NSTOP; i++)
		if (stop_installed[i]) {
			sigaction(stop_signals[i], &stop_previous[i], NULL);
			stop_installed[i] = false;
		}
}

/* How long a stop asked by a signal may take before the player ends
 * anyway (s). */
#define SIGNAL_STOP_S 3

static double monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How often edits by other processes are looked for (ms). */
#define CHANGES_EVERY_MS 250

/* Another shell's edits (`crate playlist add Queue ...`, the playing list
 * edited or removed, a scan) reach the player as they reach the
 * interface: the store is reloaded, and a library rebuild this starts is
 * swapped in when done. Errors are retried at the next call. */
static void notice_changes(struct app *app)
{
	struct crate_err ignore = {0};
	struct app_scan_progress progress;
	app_changes_check(app, &ignore);
	app_scan_poll(app, &progress);
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A path by its spelling, there or not ("/music/x.flac", "./x", "../x"):
 * one that is missing fails as a file does, with the system's reason,
 * and the others play (it made the whole line a query that matched
 * nothing: "nothing matches '/m/a.flac /m/typo.flac'", nothing played). */
static bool names_a_path(const char *p)
{
	return p[0] == '/' || str_has_prefix(p, "./") || str_has_prefix(p, "../");
}

/* A cue sheet given to play whose tracks the library lacks: said (FFmpeg
 * would open the text and answer "End of file"). */
static bool not_audio_sheet(const char *path, struct crate_err *err)
{
	if (!scan_cue_is_sheet_name(path))
		return false;
	char *audio = scan_cue_audio_of(path);
	if (audio)
		crate_err_set(err, CRATE_ERR_NOTFOUND,
			      "%s: a cue sheet, whose audio file %s is not in the library (crate scan "
			      "it, then play either)", path, audio);
	else
		crate_err_set(err, CRATE_ERR_NOTFOUND,
			      "%s: a cue sheet whose audio file is not in its folder", path);
	free(audio);
	return true;
}

/* A playlist file given to play: its entries, in order (FFmpeg opened it
 * as audio: "Invalid data found when processing input"); those that name
 * nothing playable are said with their line, as import says them. */
static int add_playlist_file(struct cli_ctx *ctx, struct app *app, const char *path,
			     struct app_plfile_list *l, size_t *unplayable, struct crate_err *err)
{
	struct app_import_report rep;
	if (app_playlist_file_entries(app, path, l, &rep, err) != 0)
		return -1;
	*unplayable += rep.nproblems;
	for (size_t i = 0; i < rep.nproblems; i++) {
		char *msg = xasprintf("%s:%zu: %s", path, rep.problems[i].line, rep.problems[i].what);
		cli_fail_safe(ctx, msg);
		free(msg);
	}
	app_import_report_free(&rep);
	return 0;
}

/* One FILE (or URL) given to play, appended to l: its library item (tags,
 * statistics) when scanned, a cue-split file's or its sheet's tracks, a
 * playlist file's entries, else the file itself by its path. */
static int add_file_arg(struct cli_ctx *ctx, struct app *app, const char *arg,
			struct app_plfile_list *l, size_t *unplayable, struct crate_err *err)
{
	char real[PATH_MAX];
	struct crate_err ignore = {0};
	bool url = app_is_stream_url(arg);
	const char *key = url ? arg : realpath(arg, real);
	if (key && !url && is_file(key) && plfile_format_of_name(key) != PLFILE_UNKNOWN)
		return add_playlist_file(ctx, app, arg, l, unplayable, err);
	uint32_t id = 0, *split = NULL;
	size_t nsplit = 0;
	if (app->db && key && !url)
		nsplit = app_cue_tracks(app, key, &split);
	if (!nsplit && key && !url && not_audio_sheet(key, err))
		return -1;
	if (app->db && key && !nsplit &&
	    mlib_media_find_url(app->db, key, strlen(key), &id, &ignore) != 0)
		id = 0;
	for (size_t k = 0; k < nsplit; k++)
		app_plfile_list_add(l, split[k], NULL);
	if (!nsplit)
		app_plfile_list_add(l, id, arg);
	free(split);
	return 0;
}

/* Start whatever args name (a query as search finds it, with flags
 * COLL_SEARCH_*); 0 or -1 with *err. *unplayable counts the entries of
 * playlist files left out (said). */
static int start(struct cli_ctx *ctx, struct app *app, int argc, char **argv, unsigned flags,
		 size_t *unplayable, struct crate_err *err)
{
	if (argc == 1 && str_has_prefix(argv[0], COLL_NS_PLAYLISTS "/"))
		return app_play_collection(app, COLL_NS_PLAYLISTS,
					   argv[0] + strlen(COLL_NS_PLAYLISTS "/"), 0, err);
	bool files = true;
	for (int i = 0; i < argc && files; i++)
		files = is_file(argv[i]) || app_is_stream_url(argv[i]) || names_a_path(argv[i]);
	if (files) {
		struct app_plfile_list l = {0};
		int rc = 0;
		for (int i = 0; i < argc && rc == 0; i++)
			rc = add_file_arg(ctx, app, argv[i], &l, unplayable, err);
		if (rc == 0)
			rc = app_play_list(app, l.ids, (const char *const *)l.paths, l.n, APP_PLAY_ANY,
					   err);
		app_plfile_list_free(&l);
		return rc;
	}
	char *query = cli_join_args(argv, argc);
	struct coll_result res = {0};
	int rc = cli_search_ids(ctx, app, query, flags, &res, err);
	if (rc == 0) {
		rc = res.ids.n ? app_play_list(app, res.ids.v, NULL, res.ids.n, APP_PLAY_ANY, err)
			       : crate_err_set(err, CRATE_ERR_NOTFOUND,
						 "nothing matches '%s': nothing to play", query);
	}
	coll_result_free(&res);
	free(query);
	return rc;
}

static int cmd_play(struct cli_ctx *ctx, const struct cli_args *a)
{
	const char *device = cli_value(a, "device");
	if (!cli_flag(a, "no-ui"))
		return cli_error(ctx, "play: use --no-ui to play in the foreground "
				 "(a running crate is controlled with 'crate remote')");
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	if (device)
		config_set(app->cfg, "output.device", device);
	struct play_run run = {.app = app, .out = ctx->out, .err = ctx->err};
	app_play_set_listener(app, on_notice, &run);
	struct crate_err err = {0};
	int fd = app_play_event_fd(app, &err);
	size_t unplayable = 0; /* entries of playlist files left out */
	if (fd < 0 || start(ctx, app, a->argc, a->argv, cli_search_flags(a), &unplayable, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	struct app_mpris *mpris = app_mpris_open(app);
	/* Quietly without it when another crate holds the socket (that one
	 * answers `crate remote`), as without a session bus for MPRIS. */
	struct app_remote *remote = NULL;
	struct app_remote_hooks no_hooks = {0};
	struct crate_err rerr = {0};
	if (app_remote_open(app, &no_hooks, &remote, &rerr) != 0)
		remote = NULL;
	stop_signals_install();
	double stop_by = 0; /* when a stop a signal asked for has taken too long */
	while (!run.done && !(stop_by > 0 && monotonic_s() > stop_by)) {
		short mev;
		int mtimeout;
		struct pollfd p[2 + APP_REMOTE_MAX_CLIENTS + 1] = {
			{.fd = fd, .events = POLLIN},
			{.fd = app_mpris_fd(mpris, &mev, &mtimeout), .events = mev}};
		size_t nr = remote ? app_remote_pollfds(remote, p + 2, sizeof p / sizeof p[0] - 2) : 0;
		poll(p, 2 + nr, mtimeout >= 0 && mtimeout < CHANGES_EVERY_MS ? mtimeout : CHANGES_EVERY_MS);
		notice_changes(app);
		app_play_handle_events(app);
		if (p[1].fd >= 0 && p[1].revents)
			app_mpris_process(mpris);
		if (remote)
			app_remote_handle(remote, p + 2, nr);
		char hook_msg[600];
		if (app_hooks_report(app, hook_msg, sizeof hook_msg))
			print_clean(ctx->err, "crate: hook: ", hook_msg);
		if (stop_signal && stop_by == 0) {
			app_play_stop(app, &err);
			stop_by = monotonic_s() + SIGNAL_STOP_S;
		}
	}
	app_remote_close(remote);
	app_mpris_close(mpris);
	app_play_set_listener(app, NULL, NULL);
	stop_signals_uninstall();
	if (stop_signal) {
		int sig = stop_signal;
		app_close(app); /* its hooks' last runs start, its database closes */
		ctx->app = NULL;
		raise(sig);
	}
	/* Nothing started and nothing failed: stopped (crate remote stop)
	 * before the first track opened, as asked. */
	if (run.device_failed || (run.started == 0 && run.failed > 0))
		return CLI_FAIL;
	return run.failed || unplayable ? CLI_PARTIAL : CLI_OK;
}

static const struct cli_opt play_opts[] = {
	{"no-ui", 0, CLI_OPT_FLAG, NULL, "play in the foreground (required)"},
	{"device", 0, CLI_OPT_VALUE, "D", "the ALSA device (default: output.device)"},
	{"exact", 0, CLI_OPT_FLAG, NULL, "a query: no spelling corrections or word fallbacks"},
	{0},
};

static const struct cli_command play_commands[] = {
	{"play", NULL, "play --no-ui [--device D] [--exact] QUERY|Playlists/NAME|FILE...",
	 "play to the end in the foreground, printing each track",
	 "Files play in the order given (a playlist file, .m3u, .pls or .xspf, as its entries),\n"
	 "a query's matches (the tracks `crate search` lists) in library order. A running\n"
	 "crate is controlled with 'crate remote'.",
	 1, CLI_ANY, CLI_OPTS_FIRST, play_opts, cmd_play},
	{0},
};

const struct cli_group cli_play_group = {"play", "playing without the interface", play_commands};
