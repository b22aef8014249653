/* crate: argv -> the terminal interface (default) or one CLI command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/tmpfiles.h"
#include "cli/cli.h"
#include "coll/store.h"
#include "ui/ui.h"

static const struct cli_command *const groups[] = {
	cli_library_commands, cli_coll_commands, cli_parse_commands,
	cli_play_commands, cli_remote_commands, cli_rule_commands, cli_roots_commands,
	cli_analysis_commands,
};
#define NGROUPS (sizeof groups / sizeof groups[0])

const struct cli_command *cli_find(const char *name)
{
	for (size_t g = 0; g < NGROUPS; g++)
		for (const struct cli_command *c = groups[g]; c->name; c++)
			if (strcmp(c->name, name) == 0)
				return c;
	return NULL;
}

struct app *cli_app(struct cli_ctx *ctx)
{
	if (ctx->app)
		return ctx->app;
	struct crate_err err = {0};
	struct app_opts opts = {.db_path = ctx->db_path, .config_path = ctx->config_path};
	if (app_open(&ctx->app, &opts, &err) != 0) {
		cli_error("%s", err.msg);
		return NULL;
	}
	/* Saved collections that could not be read were skipped: say so, the
	 * command still runs on everything else. */
	const char *why;
	for (size_t i = 0; i < coll_store_unreadable(ctx->app->store, i, NULL, NULL, &why); i++)
		fprintf(stderr, "crate: warning: %s\n", why);
	return ctx->app;
}

static void print_help(FILE *f)
{
	fprintf(f, "crate %s, a terminal music player built on collections\n\n"
		   "usage: crate [--db PATH] [--config PATH]            start the interface\n"
		   "       crate [--db PATH] [--config PATH] COMMAND [ARGS...]\n\n"
		   "commands:\n", CRATE_VERSION);
	for (size_t g = 0; g < NGROUPS; g++)
		for (const struct cli_command *c = groups[g]; c->name; c++)
			fprintf(f, "  %-44s %s\n", c->usage, c->summary);
	fprintf(f, "\noptions:\n"
		   "  --db PATH       the library database (default $XDG_DATA_HOME/crate/library.db)\n"
		   "  --config PATH   the configuration file (default $XDG_CONFIG_HOME/crate/config)\n"
		   "  --version       print the version\n"
		   "  --help          this text\n\n"
		   "See crate(1) for key bindings and the query syntax.\n");
}

static const struct cli_command *dispatch(int argc, char **argv, int *consumed)
{
	if (argc >= 2) {
		char two[256];
		snprintf(two, sizeof two, "%s %s", argv[0], argv[1]);
		const struct cli_command *c = cli_find(two);
		if (c) {
			*consumed = 1;
			return c;
		}
	}
	*consumed = 0;
	return cli_find(argv[0]);
}

int main(int argc, char **argv)
{
	/* Set by the launcher for this process only (src/launcher.c). */
	if (getenv("CRATE_LAUNCHER_TUNABLES")) {
		unsetenv("GLIBC_TUNABLES");
		unsetenv("CRATE_LAUNCHER_TUNABLES");
	}
	struct cli_ctx ctx = {0};
	int i = argc;
	switch (cli_parse_globals(argc, argv, &ctx, &i)) {
	case CLI_GLOBAL_VERSION:
		printf("crate %s\n", CRATE_VERSION);
		return 0;
	case CLI_GLOBAL_HELP:
		print_help(stdout);
		return 0;
	case CLI_GLOBAL_UNKNOWN:
		print_help(stderr);
		return CLI_FAIL;
	case CLI_GLOBAL_ERROR:
		return CLI_FAIL;
	case CLI_GLOBAL_RUN:
		break;
	}
	/* Ctrl-C, kill or a hang-up while a snapshot is written must not leave
	 * its temporary file behind (the interface re-installs this around
	 * ncurses' own handlers). */
	tmpfiles_signals_install();
	int rc;
	if (i == argc) {
		struct app *app = cli_app(&ctx);
		if (!app)
			return CLI_FAIL;
		struct crate_err err = {0};
		rc = ui_run(app, &err) == 0 ? CLI_OK : cli_error("%s", err.msg);
	} else {
		int consumed;
		const struct cli_command *cmd = dispatch(argc - i, argv + i, &consumed);
		if (!cmd) {
			cli_error("unknown command '%s' (see crate --help)", argv[i]);
			return CLI_FAIL;
		}
		rc = cmd->run(&ctx, argc - i - consumed, argv + i + consumed);
	}
	app_close(ctx.app);
	return rc;
}
