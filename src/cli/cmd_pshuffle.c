/* `crate pshuffle`: a Party Shuffle playlist over a query, refilled with
 * random (or, smooth, similar-sounding) picks as it plays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_read.h"
#include "app/app_view.h" /* app_playlist_get */
#include "base/str.h"
#include "cli/cli.h"
#include "cli/cmd_util.h"
#include "cli/output.h"

/* The options of pshuffle. */
struct pshuffle_opts {
	long upcoming;          /* 0: the default */
	long history;           /* -1: not given */
	const char *mode;
	double drift;           /* -1: the default */
};

/* A drift from 0 to 1. */
static bool parse_drift(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return end != s && !*end && *out >= 0 && *out <= 1;
}

/* Read them; false after saying what is wrong. */
static bool pshuffle_opts_read(struct cli_ctx *ctx, const struct cli_args *a,
			       struct pshuffle_opts *o)
{
	*o = (struct pshuffle_opts){.upcoming = 0, .history = -1, .mode = cli_value(a, "mode"),
				    .drift = -1};
	const char *why = NULL, *v;
	if ((v = cli_value(a, "upcoming")) && !cli_parse_count(v, 1, &o->upcoming))
		why = "--upcoming needs a count of 1 or more";
	else if ((v = cli_value(a, "history")) && !cli_parse_count(v, 0, &o->history))
		why = "--history needs a count of 0 or more";
	else if ((v = cli_value(a, "drift")) && !parse_drift(v, &o->drift))
		why = "--drift needs a number from 0 (stay in the mood) to 1 (wander)";
	if (why)
		cli_error(ctx, "%s", why);
	return !why;
}

/* "crate: " and msg (owned), sanitised. */
static void put_warning(struct cli_ctx *ctx, char *msg)
{
	fputs("crate: ", ctx->err);
	cli_put_safe(ctx->err, msg, strlen(msg));
	fputc('\n', ctx->err);
	free(msg);
}

/* The source matched something, yet nothing joined: all of it streams,
 * or kept out by a rule. */
static bool nothing_picked(struct app *app, const char *name)
{
	const struct coll_node *n = app_playlist_get(app, name);
	return n && n->idlist.n == 0;
}

/* Smooth mode with fewer than two analysed tracks to draw from can only
 * pick at random: say so, or the list passes for a smooth one. */
static void warn_smooth_without_analyses(struct cli_ctx *ctx, struct app *app, const char *name,
					 const char *query)
{
	const struct coll_node *n = app_playlist_get(app, name);
	double drift;
	size_t analysed, total;
	struct crate_err err = {0};
	if (!n || !app_pshuffle_smooth(n, &drift) ||
	    app_pshuffle_analysed(app, name, &analysed, &total, &err) != 0 || total < 2 ||
	    analysed >= 2)
		return;
	put_warning(ctx, xasprintf("warning: %s of the %zu %s '%s' matches is analysed: "
				   "Playlists/%s picks at random until they are ('crate analyze')",
				   analysed ? "only 1" : "none", total,
				   str_plural(total, "track", "tracks"), query, name));
}

static int cmd_pshuffle(struct cli_ctx *ctx, const struct cli_args *a)
{
	struct pshuffle_opts o;
	if (!pshuffle_opts_read(ctx, a, &o))
		return CLI_FAIL;
	char *query = cli_join_args(a->argv + 1, a->argc - 1);
	char *name = cli_playlist_arg(ctx, a->argv[0]);
	int status = CLI_FAIL;
	struct app *app = name ? cli_app(ctx) : NULL;
	if (app) {
		struct crate_err err = {0};
		bool existed = app_playlist_get(app, name) != NULL;
		status = app_pshuffle_create_mode(app, name, query, o.upcoming, o.mode, o.drift, &err) == 0
				 ? CLI_OK : cli_fail_query(ctx, query, &err);
		if (status == CLI_OK && o.history >= 0 &&
		    app_playlist_set_history(app, name, o.history, &err) != 0)
			status = cli_fail_safe(ctx, err.msg);
		struct coll_result src = {0};
		if (status == CLI_OK && app_eval_query(app, query, false, &src, &err) == 0 &&
		    src.ids.n == 0) {
			/* Not an error: the source may match files scanned later. */
			char *msg = xasprintf("warning: '%s' matches nothing yet: Playlists/%s stays "
					      "empty until it does", query, name);
			fputs("crate: ", ctx->err);
			cli_put_safe(ctx->err, msg, strlen(msg));
			fputc('\n', ctx->err);
			free(msg);
		} else if (status == CLI_OK && src.ids.n > 0 && nothing_picked(app, name)) {
			put_warning(ctx, xasprintf("warning: nothing '%s' matches can be picked (Party "
						   "Shuffle takes no stream, nor a track a rule keeps "
						   "out): Playlists/%s stays empty", query, name));
		} else if (status == CLI_OK && src.ids.n > 0) {
			warn_smooth_without_analyses(ctx, app, name, query);
		}
		coll_result_free(&src);
		/* what was done, last (after any warning), as playlist new says */
		if (status == CLI_OK && existed)
			cli_say(ctx, "Playlists/%s now picks from '%s'", name, query);
		else if (status == CLI_OK)
			cli_say(ctx, "created Playlists/%s, a Party Shuffle picking from '%s'", name,
				query);
	}
	free(name);
	free(query);
	return status;
}


static const struct cli_opt pshuffle_opts[] = {
	{"upcoming", 0, CLI_OPT_VALUE, "N",
	 "how many picks are kept ahead ([pshuffle] upcoming, 20)"},
	{"history", 0, CLI_OPT_VALUE, "N", "how many played entries are kept (0)"},
	{"mode", 0, CLI_OPT_VALUE, "random|smooth", "smooth: each pick sounds like the one before"},
	{"drift", 0, CLI_OPT_VALUE, "D", "smooth mode: 0 stays in the mood, 1 wanders (0.3)"},
	{0},
};

static const struct cli_command pshuffle_commands[] = {
	{"pshuffle", NULL,
	 "pshuffle NAME QUERY [--upcoming N] [--history N] [--mode random|smooth] [--drift D]",
	 "a Party Shuffle playlist over a query (smooth: by sound)",
	 "Playlists/NAME is created; an existing Party Shuffle takes the new query and options "
	 "but keeps its entries and mode (another playlist of that name is refused). The words "
	 "after NAME are the query.", 2, CLI_ANY,
	 CLI_DASH_ARGS, pshuffle_opts, cmd_pshuffle},
	{0},
};

const struct cli_group cli_pshuffle_group = {"pshuffle", "Party Shuffle", pshuffle_commands};
