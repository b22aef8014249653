/* `crate remote COMMAND [ARGS]`: send one command to the running crate
 * through its control socket (src/app/app_remote.h) and print the answer. */
#include "cli/cli.h"
#include "cli/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app_remote.h"
#include "base/str.h"

static const char *const commands[] = {"play", "pause", "toggle", "next", "prev",
				       "stop", "status", "search", "vol", "ping"};

static int cmd_remote(struct cli_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	const struct cli_command *self = cli_find("remote");
	if (argc < 2)
		return cli_usage(self);
	bool known = false;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		known |= strcmp(argv[1], commands[i]) == 0;
	if (!known) {
		cli_error("remote: unknown command '%s'", argv[1]);
		return cli_usage(self);
	}
	if ((strcmp(argv[1], "search") == 0 || strcmp(argv[1], "vol") == 0) && argc < 3)
		return cli_usage(self);
	char *line = cli_join_args(argv + 1, argc - 1);
	if (strlen(line) > APP_REMOTE_MAX_LINE) {
		free(line);
		return cli_error("remote: the command is too long (at most %d bytes)", APP_REMOTE_MAX_LINE);
	}
	struct crate_err err = {0};
	char *path = app_remote_socket_path(&err);
	if (!path) {
		free(line);
		return cli_fail_safe(err.msg);
	}
	struct strbuf reply;
	strbuf_init(&reply, 256);
	int rc = app_remote_send(path, line, &reply, 5000, &err);
	if (reply.len) {
		/* The answer holds tag text: sanitise each line for the terminal. */
		char *save = NULL;
		for (char *l = strtok_r(reply.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			cli_put_safe(stdout, l, strlen(l));
			putchar('\n');
		}
	}
	strbuf_free(&reply);
	free(line);
	free(path);
	if (rc != 0)
		return cli_fail_safe(err.msg);
	return CLI_OK;
}

const struct cli_command cli_remote_commands[] = {
	{"remote", "remote play|pause|toggle|next|prev|stop|status|search QUERY|vol [+-]N",
	 "control a running crate through its socket", cmd_remote},
	{NULL, NULL, NULL, NULL},
};
