/* crate: argv -> the terminal interface (default) or one CLI command. Only
 * the global options are read here; the command layer is src/cli/. */
#include <stdio.h>
#include <stdlib.h>

#include "app/app.h"
#include "base/tmpfiles.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "ui/ui.h"

int main(int argc, char **argv)
{
	cli_launcher_env_drop();
	struct cli_ctx ctx = {0};
	cli_ctx_stdio(&ctx);
	int i = argc;
	switch (cli_parse_globals(argc, argv, &ctx, &i)) {
	case CLI_GLOBAL_VERSION:
		printf("crate %s\n", CRATE_VERSION);
		return cli_stdout_status(CLI_OK);
	case CLI_GLOBAL_HELP:
		cli_main_help(stdout);
		return cli_stdout_status(CLI_OK);
	case CLI_GLOBAL_UNKNOWN:
		cli_main_help(stderr);
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
		ctx.resident = true; /* ready on the mapped snapshot, owned in the background */
		struct app *app = cli_app(&ctx);
		if (!app)
			return CLI_FAIL;
		struct crate_err err = {0};
		rc = ui_run(app, &err) == 0 ? CLI_OK : cli_error(&ctx, "%s", err.msg);
	} else {
		rc = cli_dispatch(&ctx, argc - i, argv + i);
	}
	app_close(ctx.app);
	return cli_stdout_status(rc);
}
