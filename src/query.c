/* crate-query: `crate search` without a running crate. The launcher
 * (src/launcher.c) execs this program, not crate-core, for a search no
 * running crate answered: it runs crate-core's very command (cli_search_group,
 * the mapped index snapshot, the same output and errors) but is linked with
 * SQLite alone (Makefile), so it starts without loading the ~150 shared
 * libraries FFmpeg, TagLib, ALSA and curses bring, about 40 ms of a
 * one-shot search. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/tmpfiles.h"
#include "cli/cli.h"
#include "cli/output.h"

/* The one command this program runs. */
static const struct cli_group *const query_groups[] = {&cli_search_group, NULL};

int main(int argc, char **argv)
{
	cli_launcher_env_drop();
	struct cli_ctx ctx = {0};
	cli_ctx_stdio(&ctx);
	int i = argc;
	/* The launcher answers --version, --help and a bad global option
	 * itself: anything but `search` means someone ran this directly. */
	if (cli_parse_globals(argc, argv, &ctx, &i) != CLI_GLOBAL_RUN || i >= argc ||
	    strcmp(argv[i], "search") != 0) {
		fputs("crate-query runs `crate search` for the crate launcher: run crate\n", stderr);
		return CLI_FAIL;
	}
	/* A damaged snapshot is rewritten: Ctrl-C must not leave its
	 * temporary file behind. */
	tmpfiles_signals_install();
	int rc = cli_dispatch_in(query_groups, &ctx, argc - i, argv + i);
	app_close(ctx.app);
	return cli_stdout_status(rc);
}
