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
				       "stop", "status", "search", "seek", "vol", "ping"};

/* remote search's words: an option of crate search (--json, --format F)
 * would be sent as a query word and find nothing, saying "0 tracks";
 * refused, naming it. A word after "--" is the query's, as in crate
 * search (the "--" itself is dropped). Returns the words to send, in
 * argv's place, or -1 after saying why. */
static int search_words(struct cli_ctx *ctx, int argc, char **argv)
{
	int n = 1;
	bool literal = false;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (!literal && strcmp(w, "--") == 0) {
			literal = true;
			continue;
		}
		if (!literal && w[0] == '-' && w[1] == '-') {
			cli_error(ctx, "remote search: '%s' is not a query word: remote search shows "
				  "the results in the running crate and prints their count (crate "
				  "search prints them, with its options; '-- %s' searches for the word)",
				  w, w);
			return -1;
		}
		argv[n++] = argv[i];
	}
	return n;
}

static int cmd_remote(struct cli_ctx *ctx, const struct cli_args *a)
{
	int argc = a->argc;
	char **argv = a->argv;
	bool known = false;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		known |= strcmp(argv[0], commands[i]) == 0;
	if (!known) {
		cli_error(ctx, "remote: unknown command '%s'", argv[0]);
		return cli_usage(ctx, a->cmd);
	}
	if (strcmp(argv[0], "search") == 0 && (argc = search_words(ctx, argc, argv)) < 0)
		return CLI_FAIL;
	if ((strcmp(argv[0], "search") == 0 || strcmp(argv[0], "seek") == 0 ||
	     strcmp(argv[0], "vol") == 0) && argc < 2)
		return cli_usage(ctx, a->cmd);
	char *line = cli_join_args(argv, argc);
	if (strlen(line) > APP_REMOTE_MAX_LINE) {
		free(line);
		return cli_error(ctx, "remote: the command is too long (at most %d bytes)", APP_REMOTE_MAX_LINE);
	}
	struct crate_err err = {0};
	char *path = app_remote_socket_path(&err);
	if (!path) {
		free(line);
		return cli_fail_safe(ctx, err.msg);
	}
	struct strbuf reply;
	strbuf_init(&reply, 256);
	int rc = app_remote_send(path, line, &reply, 5000, &err);
	if (reply.len) {
		/* The answer holds tag text: sanitise each line for the terminal. */
		char *save = NULL;
		for (char *l = strtok_r(reply.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			cli_put_safe(ctx->out, l, strlen(l));
			fputc('\n', ctx->out);
		}
	}
	strbuf_free(&reply);
	free(line);
	free(path);
	if (rc != 0)
		return cli_fail_safe(ctx, err.msg);
	return CLI_OK;
}

static const struct cli_command remote_commands[] = {
	{"remote", NULL, "remote play|pause|toggle|next|prev|stop|status|search QUERY|seek POS|vol [+-]N",
	 "control a running crate through its socket",
	 "The answer of the running crate is printed; status prints what plays. search shows\n"
	 "QUERY's results in the running crate's browser and prints how many (crate search\n"
	 "prints them). seek takes 90 (seconds), 1:30, +10, -0:05 (relative) or 50% (of the\n"
	 "track).", 1, CLI_ANY,
	 CLI_OPTS_FIRST | CLI_DASH_ARGS, NULL, cmd_remote},
	{0},
};

const struct cli_group cli_remote_group = {"remote", "controlling a running crate",
					   remote_commands};
