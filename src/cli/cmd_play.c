/* crate play --no-ui: play a playlist, a query's results or files in the
 * foreground until the end, printing each track as it starts. (Controlling
 * a running instance goes through `crate remote`.) */
#include "cli/cli.h"
#include "cli/output.h"

#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_hooks.h"
#include "app/app_mpris.h"
#include "app/app_stream.h"
#include "app/app_play.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/store.h"
#include "medialib/index.h"
#include "medialib/media.h"

struct play_run {
	struct app *app;
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

/* "artist - title" from the library, else the file's name. */
static void print_track(struct app *app, uint32_t id, const char *path)
{
	char b1[32], b2[32];
	const char *artist = NULL, *title = NULL;
	if (id && app->index) {
		artist = mlib_index_get_text(app->index, id, "artist", b1, sizeof b1);
		title = mlib_index_get_text(app->index, id, "title", b2, sizeof b2);
	}
	if (title) {
		char *line = xasprintf("%s - %s", artist ? artist : "Unknown artist", title);
		print_clean(stdout, "", line);
		free(line);
		return;
	}
	const char *slash = strrchr(path, '/');
	print_clean(stdout, "", slash ? slash + 1 : path);
}

static void on_notice(void *ud, const struct app_play_notice *n)
{
	struct play_run *r = ud;
	switch (n->type) {
	case APP_PLAY_STARTED:
		r->started++;
		print_track(r->app, n->id, n->path);
		break;
	case APP_PLAY_FAILED:
		r->failed++;
		print_clean(stderr, "crate: ", n->msg);
		break;
	case APP_PLAY_DEVICE:
		r->device_failed = true;
		r->done = true;
		print_clean(stderr, "crate: ", n->msg);
		break;
	case APP_PLAY_STOPPED:
		r->done = true;
		break;
	case APP_PLAY_PAUSED:
	case APP_PLAY_RESUMED:
	case APP_PLAY_TITLE: /* a stream's new title */
		print_clean(stdout, "  ", n->msg);
		break;
	case APP_PLAY_SEEKED:
	case APP_PLAY_VOLUME:
		break;
	}
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Start whatever args name; 0 or -1 with *err. */
static int start(struct app *app, int argc, char **argv, struct crate_err *err)
{
	if (argc == 1 && str_has_prefix(argv[0], COLL_NS_PLAYLISTS "/"))
		return app_play_collection(app, COLL_NS_PLAYLISTS,
					   argv[0] + strlen(COLL_NS_PLAYLISTS "/"), 0, err);
	bool files = true;
	for (int i = 0; i < argc && files; i++)
		files = is_file(argv[i]) || app_is_stream_url(argv[i]);
	if (files) {
		/* Files: use their library entry (tags, statistics) when scanned. */
		uint32_t *ids = xcalloc((size_t)argc, sizeof *ids);
		for (int i = 0; i < argc; i++) {
			char real[PATH_MAX];
			struct crate_err ignore = {0};
			bool url = app_is_stream_url(argv[i]);
			const char *key = url ? argv[i] : realpath(argv[i], real);
			if (app->db && key &&
			    mlib_media_find_url(app->db, key, strlen(key), &ids[i], &ignore) != 0)
				ids[i] = 0;
		}
		int rc = app_play_list(app, ids, (const char *const *)argv, (size_t)argc, err);
		free(ids);
		return rc;
	}
	char *query = cli_join_args(argv, argc);
	struct coll_result res = {0};
	int rc = app_eval_query(app, query, false, &res, err);
	if (rc == 0) {
		rc = res.ids.n ? app_play_list(app, res.ids.v, NULL, res.ids.n, err)
			       : crate_err_set(err, CRATE_ERR_NOTFOUND, "no media matches '%s'", query);
	}
	coll_result_free(&res);
	free(query);
	return rc;
}

static int cmd_play(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_command *self = cli_find("play");
	bool no_ui = false;
	const char *device = NULL;
	int i = 1;
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--no-ui") == 0) {
			no_ui = true;
		} else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
			device = argv[++i];
		} else if (strncmp(argv[i], "--device=", 9) == 0) {
			device = argv[i] + 9;
		} else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			cli_error("play: unknown option '%s'", argv[i]);
			return cli_usage(self);
		} else {
			break;
		}
	}
	if (i >= argc)
		return cli_usage(self);
	if (!no_ui)
		return cli_error("play: use --no-ui to play in the foreground "
				 "(a running crate is controlled with 'crate remote')");
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	if (device)
		config_set(app->cfg, "output.device", device);
	struct play_run run = {.app = app};
	app_play_set_listener(app, on_notice, &run);
	struct crate_err err = {0};
	int fd = app_play_event_fd(app, &err);
	if (fd < 0 || start(app, argc - i, argv + i, &err) != 0)
		return cli_fail_safe(err.msg);
	struct app_mpris *mpris = app_mpris_open(app);
	while (!run.done) {
		short mev;
		int mtimeout;
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = app_mpris_fd(mpris, &mev, &mtimeout), .events = mev}};
		poll(p, p[1].fd >= 0 ? 2 : 1, mtimeout >= 0 && mtimeout < 1000 ? mtimeout : 1000);
		app_play_handle_events(app);
		if (p[1].fd >= 0 && p[1].revents)
			app_mpris_process(mpris);
		char hook_msg[600];
		if (app_hooks_report(app, hook_msg, sizeof hook_msg))
			print_clean(stderr, "crate: hook: ", hook_msg);
	}
	app_mpris_close(mpris);
	app_play_set_listener(app, NULL, NULL);
	if (run.device_failed || run.started == 0)
		return CLI_FAIL;
	return run.failed ? CLI_PARTIAL : CLI_OK;
}

const struct cli_command cli_play_commands[] = {
	{"play", "play --no-ui [--device D] QUERY|Playlists/NAME|FILE...",
	 "play to the end in the foreground, printing each track", cmd_play},
	{NULL, NULL, NULL, NULL},
};
