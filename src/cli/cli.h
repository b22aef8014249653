/* Command-line commands. Each command group (cmd_*.c) declares a table of
 * commands, tmux-style: name, usage, summary and handler in one entry.
 * main.c dispatches argv to the first entry whose name matches: two-word
 * names ("coll save") are tried before one-word names ("scan"). */
#ifndef CRATE_CLI_CLI_H
#define CRATE_CLI_CLI_H

#include <stdbool.h>

#include "base/err.h"

struct app;

/* Global options, and the application opened on first use. */
struct cli_ctx {
	const char *db_path;     /* --db, or NULL for the XDG default */
	const char *config_path; /* --config, or NULL for the XDG default */
	struct app *app;         /* opened by cli_app(); closed by main */
};

/* Exit statuses (DESIGN.md): 0 ok, 1 bad usage or fatal, 2 done with some failures. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_PARTIAL = 2 };

struct cli_command {
	const char *name;     /* "scan", "coll save" */
	const char *usage;    /* "scan [--quiet] DIR..." (without "crate ") */
	const char *summary;  /* one line for --help */
	/* argv[0] is the last word of the name; options follow. */
	int (*run)(struct cli_ctx *ctx, int argc, char **argv);
};

/* What the global options before the command word ask for. */
enum cli_global_action {
	CLI_GLOBAL_RUN,     /* run the command at argv[*next], or the interface (*next == argc) */
	CLI_GLOBAL_VERSION, /* --version */
	CLI_GLOBAL_HELP,    /* --help, -h */
	CLI_GLOBAL_UNKNOWN, /* an unknown option: message printed; show the help on stderr */
	CLI_GLOBAL_ERROR,   /* --db/--config without a path: message printed */
};
/* Read the global options argv[1..] (--db, --config, --version, --help)
 * into ctx, up to the first word that is not one; *next is its index.
 * Shared by the launcher (src/launcher.c) and the full program (src/main.c)
 * so that both read argv the same way. */
enum cli_global_action cli_parse_globals(int argc, char **argv, struct cli_ctx *ctx, int *next);

/* Open the application (database, index, collections) on first use.
 * On failure prints "crate: <message>" to stderr and returns NULL. */
struct app *cli_app(struct cli_ctx *ctx);
/* Print "crate: <msg>" to stderr, return CLI_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "usage: crate <usage>" to stderr, return CLI_FAIL. */
int cli_usage(const struct cli_command *cmd);
/* Find a command by its full name, for usage messages. */
const struct cli_command *cli_find(const char *name);

/* `crate search ARGS` (argv[0] "search") on an open application, its
 * standard output appended to out: how a running crate answers the
 * search the launcher forwards through the control socket, with the very
 * output `crate search` prints. Any error (bad arguments, a query error)
 * is -1 with *err and nothing in out. */
struct strbuf;
int cli_search_to_buffer(struct app *app, int argc, char **argv, struct strbuf *out,
			 struct crate_err *err);

/* Tables, NULL-name terminated, one per group. */
extern const struct cli_command cli_library_commands[]; /* scan, info, list */
extern const struct cli_command cli_coll_commands[];    /* search, coll, playlist, pshuffle */
extern const struct cli_command cli_parse_commands[];   /* parse, explain */
extern const struct cli_command cli_play_commands[];    /* play, pause, next, ... */
extern const struct cli_command cli_remote_commands[];  /* remote */
extern const struct cli_command cli_rule_commands[];    /* rule: collection rules */
extern const struct cli_command cli_roots_commands[];   /* roots, forget */
extern const struct cli_command cli_analysis_commands[]; /* analyze */

#endif
