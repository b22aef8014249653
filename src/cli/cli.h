/* The command layer of both front ends (DESIGN.md): one table of command
 * groups (cli_table.c), each entry declaring its names, arguments, options
 * and help, tmux-style; one dispatcher (dispatch.c) that finds the command
 * (two-word names such as "coll save" before one-word names), parses argv
 * against the declaration once and calls run(ctx, args). The shell
 * (src/main.c) and the interface's ':' line (ui/cmdline.c) both call
 * cli_dispatch; what a command prints goes to ctx->out and ctx->err. */
#ifndef CRATE_CLI_CLI_H
#define CRATE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

struct app;

/* Where a command's output goes: two callbacks and their user data. The
 * interface passes its message line and scrollback pane (ui/cmdline.c). */
struct cli_sink {
	void (*out)(void *ud, const char *text, size_t len); /* results */
	void (*err)(void *ud, const char *text, size_t len); /* messages, errors */
	void *ud;
};

/* What every command runs with: the global options, the application
 * (opened on first use) and the output streams. */
struct cli_ctx {
	const char *db_path;     /* --db, or NULL for the XDG default */
	const char *config_path; /* --config, or NULL for the XDG default */
	struct app *app;         /* opened by cli_app(); closed by main */
	bool map_index;          /* cli_app: use the index snapshot in place (a
				  * one-shot read-only command asks before cli_app) */
	bool resident;           /* cli_app: the interface (app_opts.resident) */
	bool on_line;            /* run from the interface's ':' line: no shell
				  * expanded ~ in a path (cli_path_arg does), and u
				  * undoes a playlist edit (the edit says so) */
	/* stdout/stderr (cli_ctx_stdio), or streams writing into a sink
	 * (cli_ctx_open_sink). A command prints only through these. */
	FILE *out, *err;
};

/* out = stdout, err = stderr. */
void cli_ctx_stdio(struct cli_ctx *ctx);
/* out and err as streams that hand everything written to sink's callbacks
 * (line-buffered; cli_ctx_close_sink flushes). -1 with *err on failure. */
int cli_ctx_open_sink(struct cli_ctx *ctx, const struct cli_sink *sink, struct crate_err *err);
void cli_ctx_close_sink(struct cli_ctx *ctx);

/* Exit statuses (DESIGN.md): 0 ok, 1 bad usage or fatal, 2 done with some failures. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_PARTIAL = 2 };

/* ---- declarations ---- */

enum cli_opt_kind {
	CLI_OPT_FLAG,  /* --json: given or not */
	CLI_OPT_VALUE, /* --format F or --format=F: the last value given */
	CLI_OPT_COUNT, /* -v -v: how many times */
};

struct cli_opt {
	const char *name;   /* long form without "--": "json" */
	char short_name;    /* 'q' for -q, 0 for none */
	enum cli_opt_kind kind;
	const char *arg;    /* CLI_OPT_VALUE: what the value is, for help ("F") */
	const char *help;   /* one line for the command's help */
};

enum {
	CLI_OPTS_FIRST = 1 << 0, /* options only before the first argument; the rest is
				  * passed as it is (remote, play, scan, analyze) */
	CLI_DASH_ARGS = 1 << 1,  /* a word "-x" that is no declared short option is an
				  * argument (queries: -year, -g:Pop), not an unknown option */
};

#define CLI_MAX_OPTS 8
#define CLI_ANY (-1) /* max_args: no limit */

struct cli_args;
struct cli_command {
	const char *name;     /* "scan", "coll save" */
	const char *alias;    /* another name ("analyse"), or NULL */
	const char *usage;    /* "scan [--quiet] DIR..." (without "crate ") */
	const char *summary;  /* one line for `crate help` */
	const char *help;     /* a few sentences for `crate help NAME`, or NULL */
	int min_args, max_args;      /* arguments after the options; max CLI_ANY */
	unsigned flags;              /* CLI_OPTS_FIRST, CLI_DASH_ARGS */
	const struct cli_opt *opts;  /* NULL-name terminated, at most CLI_MAX_OPTS; or NULL */
	int (*run)(struct cli_ctx *ctx, const struct cli_args *args);
};

/* A group of commands: one cmd_*.c file. */
struct cli_group {
	const char *name;     /* "coll" */
	const char *summary;  /* "saved collections" */
	const struct cli_command *commands; /* NULL-name terminated */
};

/* ---- parsed arguments ---- */

struct cli_args {
	const struct cli_command *cmd;
	int argc;             /* the arguments, options taken out */
	char **argv;          /* owned array (NULL-terminated) of borrowed words */
	const char *value[CLI_MAX_OPTS]; /* per declared option: its value (VALUE), or NULL */
	int count[CLI_MAX_OPTS];         /* per declared option: times given */
	bool help;            /* --help or -h was given */
};

enum cli_parse_status { CLI_PARSE_OK, CLI_PARSE_HELP, CLI_PARSE_BAD };

/* Parse words (after the command's name) against cmd's declaration into
 * *out (cli_args_free it whatever the result). CLI_PARSE_BAD says why in
 * why[] ("unknown option '--x'", "" for a wrong argument count). */
enum cli_parse_status cli_args_parse(const struct cli_command *cmd, int argc, char **argv,
				     struct cli_args *out, char *why, size_t whylen);
void cli_args_free(struct cli_args *a);

/* The option named name (its long form) of a's command; the name must be
 * declared (a programming error otherwise: assert). */
bool cli_flag(const struct cli_args *a, const char *name);
const char *cli_value(const struct cli_args *a, const char *name);
int cli_count(const struct cli_args *a, const char *name);

/* ---- dispatch ---- */

/* The command argv names in groups (NULL-terminated): the two-word name
 * argv[0] argv[1] first, then the one-word name argv[0] (or an alias).
 * *consumed is the number of words the name took. NULL when none. */
const struct cli_command *cli_lookup(const struct cli_group *const *groups, int argc,
				     char **argv, int *consumed);
/* Find the command argv names, parse its options and arguments and run it.
 * A wrong option or argument count prints that command's usage on
 * ctx->err (CLI_FAIL); --help prints its help on ctx->out (CLI_OK); a
 * group word alone or with an unknown second word ("crate playlist",
 * "crate rule bogus") prints the group's commands on ctx->err. */
int cli_dispatch_in(const struct cli_group *const *groups, struct cli_ctx *ctx, int argc,
		    char **argv);
/* Help for names (argv, argc words: a command, a command's first word or
 * a group name; none: every command) printed to f; false when the words
 * name nothing. on_line: written as typed on the ':' line (no "crate "). */
bool cli_help_print(const struct cli_group *const *groups, FILE *f, int argc, char **argv,
		    bool on_line);
/* Every command: "  usage   summary" lines. */
void cli_commands_print(const struct cli_group *const *groups, FILE *f);

/* The whole table (cli_table.c), and dispatch over it. */
extern const struct cli_group *const cli_groups[];
int cli_dispatch(struct cli_ctx *ctx, int argc, char **argv);
/* `crate --help`: usage, every command, the global options. */
void cli_main_help(FILE *f);

/* ---- for handlers ---- */

/* Open the application (database, index, collections) on first use.
 * On failure prints "crate: <message>" to ctx->err and returns NULL. */
struct app *cli_app(struct cli_ctx *ctx);
/* Print "crate: <msg>" to ctx->err as one line, control characters of
 * the whole message (a quoted path, value or name) folded (utf8_sanitize);
 * return CLI_FAIL. */
int cli_error(struct cli_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same as "crate: warning: <msg>", for a command that still runs. */
void cli_warning(struct cli_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "usage: crate <usage>" to ctx->err, return CLI_FAIL. */
int cli_usage(struct cli_ctx *ctx, const struct cli_command *cmd);

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
 * so that both read argv the same way. Messages go to ctx->err. */
enum cli_global_action cli_parse_globals(int argc, char **argv, struct cli_ctx *ctx, int *next);
/* Drop the environment the launcher set for the program it execs only
 * (GLIBC_TUNABLES, src/launcher.c): what crate-core and crate-query start
 * must not inherit it. */
void cli_launcher_env_drop(void);

/* `crate search ARGS` (argv[0] "search") on an
 * open application, its standard output appended to out and each line of
 * its standard error to out after the byte err_mark: how a running crate
 * answers the search the launcher forwards through the control socket,
 * with the very output `crate search` prints. Any error (bad arguments, a
 * query error) is -1 with *err and nothing in out. */
struct strbuf;
int cli_search_to_buffer(struct app *app, int argc, char **argv, char err_mark,
			 struct strbuf *out, struct crate_err *err);

/* The groups, one per cmd_*.c file. */
extern const struct cli_group cli_library_group;  /* scan, info, rate, list */
extern const struct cli_group cli_search_group;   /* search */
extern const struct cli_group cli_coll_group;     /* coll ... */
extern const struct cli_group cli_playlist_group; /* playlist ... */
extern const struct cli_group cli_pshuffle_group; /* pshuffle */
extern const struct cli_group cli_parse_group;    /* parse, explain */
extern const struct cli_group cli_play_group;     /* play --no-ui */
extern const struct cli_group cli_remote_group;   /* remote */
extern const struct cli_group cli_rule_group;     /* rule ... */
extern const struct cli_group cli_roots_group;    /* roots, roots remove, forget */
extern const struct cli_group cli_analysis_group; /* analyze */
extern const struct cli_group cli_help_group;     /* help */

#endif
