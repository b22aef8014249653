/* The global options before the command word (see cli.h). */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

void cli_launcher_env_drop(void)
{
	if (getenv("CRATE_LAUNCHER_TUNABLES")) {
		unsetenv("GLIBC_TUNABLES");
		unsetenv("CRATE_LAUNCHER_TUNABLES");
	}
}

enum cli_global_action cli_parse_globals(int argc, char **argv, struct cli_ctx *ctx, int *next)
{
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--version") == 0)
			return CLI_GLOBAL_VERSION;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return CLI_GLOBAL_HELP;
		if (strcmp(a, "--db") == 0 || strcmp(a, "--config") == 0) {
			if (i + 1 >= argc) {
				cli_error(ctx, "%s needs a path", a);
				return CLI_GLOBAL_ERROR;
			}
			if (a[2] == 'd')
				ctx->db_path = argv[++i];
			else
				ctx->config_path = argv[++i];
		} else if (strncmp(a, "--db=", 5) == 0) {
			ctx->db_path = a + 5;
		} else if (strncmp(a, "--config=", 9) == 0) {
			ctx->config_path = a + 9;
		} else if (a[0] == '-' && a[1]) {
			cli_error(ctx, "unknown option '%s'", a);
			return CLI_GLOBAL_UNKNOWN;
		} else {
			break;
		}
	}
	*next = i;
	return CLI_GLOBAL_RUN;
}
