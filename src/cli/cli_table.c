/* The table of command groups, in the order `crate --help` lists them,
 * `crate help`, and opening the application for a command (cli.h). */
#include "cli/cli.h"

#include "app/app.h"
#include "app/app_read.h"

const struct cli_group *const cli_groups[] = {
	&cli_library_group, &cli_search_group, &cli_coll_group, &cli_playlist_group,
	&cli_pshuffle_group, &cli_parse_group, &cli_play_group, &cli_remote_group,
	&cli_rule_group, &cli_roots_group, &cli_analysis_group, &cli_help_group,
	NULL,
};

int cli_dispatch(struct cli_ctx *ctx, int argc, char **argv)
{
	return cli_dispatch_in(cli_groups, ctx, argc, argv);
}

struct app *cli_app(struct cli_ctx *ctx)
{
	if (ctx->app)
		return ctx->app;
	struct crate_err err = {0};
	struct app_opts opts = {.db_path = ctx->db_path, .config_path = ctx->config_path,
				.map_index = ctx->map_index, .resident = ctx->resident};
	if (app_open(&ctx->app, &opts, &err) != 0) {
		cli_error(ctx, "%s", err.msg);
		return NULL;
	}
	/* Saved collections that could not be read were skipped: say so, the
	 * command still runs on everything else. */
	const char *why;
	for (size_t i = 0; app_coll_unreadable_at(ctx->app, i, &why); i++)
		cli_warning(ctx, "%s", why);
	return ctx->app;
}

void cli_main_help(FILE *f)
{
	fprintf(f, "crate %s, a terminal music player built on collections\n\n"
		   "usage: crate [--db PATH] [--config PATH]            start the interface\n"
		   "       crate [--db PATH] [--config PATH] COMMAND [ARGS...]\n\n"
		   "commands:\n", CRATE_VERSION);
	cli_commands_print(cli_groups, f);
	fprintf(f, "\noptions:\n"
		   "  --db PATH       the library database (default $XDG_DATA_HOME/crate/library.db)\n"
		   "  --config PATH   the configuration file (default $XDG_CONFIG_HOME/crate/config)\n"
		   "  --version       print the version\n"
		   "  --help          this text\n\n"
		   "Keys: ? in the interface, or crate(1) (KEYS); queries: crate(1) (QUERY LANGUAGE).\n");
}

/* help [COMMAND]: everything, a command, or a family ("help coll"). */
static int cmd_help(struct cli_ctx *ctx, const struct cli_args *a)
{
	if (a->argc == 0) {
		cli_main_help(ctx->out);
		return CLI_OK;
	}
	if (cli_help_print(cli_groups, ctx->out, a->argc, a->argv, ctx->on_line))
		return CLI_OK;
	cli_error(ctx, "help: no command '%s%s%s' (see crate help)", a->argv[0],
		  a->argc > 1 ? " " : "", a->argc > 1 ? a->argv[1] : "");
	return CLI_FAIL;
}

static const struct cli_command help_commands[] = {
	{"help", NULL, "help [COMMAND]", "the commands, or one command's options",
	 "COMMAND is a command (\"coll save\"), the first word of several (\"coll\") or a group "
	 "(\"library\").\n'crate COMMAND --help' prints the same.",
	 0, 2, 0, NULL, cmd_help},
	{0},
};

const struct cli_group cli_help_group = {"help", "help on the commands", help_commands};
