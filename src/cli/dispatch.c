/* The dispatcher (cli.h): finds a command in a table of groups, parses its
 * options and arguments against the declaration once, and prints usage and
 * help from the declarations. Needs only libc: the launcher (src/launcher.c)
 * dispatches `crate remote` with it. */
#include "cli/cli.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"

/* ---- parsing ---- */

static int opt_index(const struct cli_command *cmd, const char *name, size_t len)
{
	for (int i = 0; cmd->opts && cmd->opts[i].name; i++)
		if (strlen(cmd->opts[i].name) == len && memcmp(cmd->opts[i].name, name, len) == 0)
			return i;
	return -1;
}

static int opt_short(const struct cli_command *cmd, char c)
{
	for (int i = 0; cmd->opts && cmd->opts[i].name; i++)
		if (cmd->opts[i].short_name == c)
			return i;
	return -1;
}

/* Record option i; its value is inline (--x=v), else the next word. Returns
 * the number of extra words taken, or -1 with why[] set. */
static int take_opt(const struct cli_command *cmd, int i, const char *word, const char *inline_val,
		    const char *next, struct cli_args *out, char *why, size_t whylen)
{
	const struct cli_opt *o = &cmd->opts[i];
	out->count[i]++;
	if (o->kind != CLI_OPT_VALUE) {
		if (inline_val) {
			snprintf(why, whylen, "option '--%s' takes no value", o->name);
			return -1;
		}
		return 0;
	}
	if (inline_val) {
		out->value[i] = inline_val;
		return 0;
	}
	if (!next) {
		snprintf(why, whylen, "option '%s' needs a value", word);
		return -1;
	}
	out->value[i] = next;
	return 1;
}

/* One word that starts with '-': an option (returns the extra words it
 * took), help, an argument (-2), or an error (-1 with why[]). */
static int parse_dash(const struct cli_command *cmd, const char *w, const char *next,
		      struct cli_args *out, char *why, size_t whylen)
{
	if (strcmp(w, "--help") == 0 || strcmp(w, "-h") == 0) {
		out->help = true;
		return 0;
	}
	if (w[1] == '-') {
		const char *eq = strchr(w + 2, '=');
		size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
		int i = opt_index(cmd, w + 2, len);
		if (i >= 0)
			return take_opt(cmd, i, w, eq ? eq + 1 : NULL, next, out, why, whylen);
	} else {
		int i = w[2] ? -1 : opt_short(cmd, w[1]);
		if (i >= 0)
			return take_opt(cmd, i, w, NULL, next, out, why, whylen);
		if (cmd->flags & CLI_DASH_ARGS)
			return -2;
	}
	snprintf(why, whylen, "unknown option '%s'", w);
	return -1;
}

enum cli_parse_status cli_args_parse(const struct cli_command *cmd, int argc, char **argv,
				     struct cli_args *out, char *why, size_t whylen)
{
	*out = (struct cli_args){.cmd = cmd};
	out->argv = xcalloc((size_t)argc + 1, sizeof *out->argv);
	why[0] = '\0';
	bool opts_done = false, bad = false;
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		if (!opts_done && (cmd->flags & CLI_OPTS_FIRST) && out->argc > 0)
			opts_done = true;
		if (!opts_done && strcmp(w, "--") == 0) {
			opts_done = true;
			continue;
		}
		if (opts_done || w[0] != '-' || !w[1]) {
			out->argv[out->argc++] = argv[i];
			continue;
		}
		char msg[200];
		int took = parse_dash(cmd, w, i + 1 < argc ? argv[i + 1] : NULL, out, msg, sizeof msg);
		if (took == -2) {
			out->argv[out->argc++] = argv[i];
		} else if (took == -1) {
			if (!bad)
				snprintf(why, whylen, "%s", msg);
			bad = true;
		} else {
			i += took;
		}
	}
	if (out->help)
		return CLI_PARSE_HELP;
	if (bad)
		return CLI_PARSE_BAD;
	if (out->argc < cmd->min_args || (cmd->max_args != CLI_ANY && out->argc > cmd->max_args))
		return CLI_PARSE_BAD;
	return CLI_PARSE_OK;
}

void cli_args_free(struct cli_args *a)
{
	free(a->argv);
	a->argv = NULL;
	a->argc = 0;
}

static int declared(const struct cli_args *a, const char *name)
{
	int i = opt_index(a->cmd, name, strlen(name));
	assert(i >= 0 && "option not declared for this command");
	return i;
}

bool cli_flag(const struct cli_args *a, const char *name)
{
	return a->count[declared(a, name)] > 0;
}

const char *cli_value(const struct cli_args *a, const char *name)
{
	return a->value[declared(a, name)];
}

int cli_count(const struct cli_args *a, const char *name)
{
	return a->count[declared(a, name)];
}

/* ---- lookup ---- */

static bool named(const struct cli_command *c, const char *name)
{
	return strcmp(c->name, name) == 0 || (c->alias && strcmp(c->alias, name) == 0);
}

static const struct cli_command *find(const struct cli_group *const *groups, const char *name)
{
	for (size_t g = 0; groups[g]; g++)
		for (const struct cli_command *c = groups[g]->commands; c->name; c++)
			if (named(c, name))
				return c;
	return NULL;
}

const struct cli_command *cli_lookup(const struct cli_group *const *groups, int argc,
				     char **argv, int *consumed)
{
	if (argc >= 2) {
		char *two = xasprintf("%s %s", argv[0], argv[1]);
		const struct cli_command *c = find(groups, two);
		free(two);
		if (c) {
			*consumed = 2;
			return c;
		}
	}
	*consumed = 1;
	return argc >= 1 ? find(groups, argv[0]) : NULL;
}

/* Whether a command's name is word or starts with "word ". */
static bool in_family(const struct cli_command *c, const char *word)
{
	size_t n = strlen(word);
	return strncmp(c->name, word, n) == 0 && (c->name[n] == '\0' || c->name[n] == ' ');
}

static size_t family_size(const struct cli_group *const *groups, const char *word)
{
	size_t n = 0;
	for (size_t g = 0; groups[g]; g++)
		for (const struct cli_command *c = groups[g]->commands; c->name; c++)
			n += in_family(c, word);
	return n;
}

/* ---- help ---- */

static void command_line(FILE *f, const struct cli_command *c)
{
	fprintf(f, "  %-44s %s\n", c->usage, c->summary);
}

void cli_commands_print(const struct cli_group *const *groups, FILE *f)
{
	for (size_t g = 0; groups[g]; g++)
		for (const struct cli_command *c = groups[g]->commands; c->name; c++)
			command_line(f, c);
}

/* "  -f, --format F         line format" */
static void option_help(FILE *f, const struct cli_opt *o)
{
	char left[64];
	int n = o->short_name ? snprintf(left, sizeof left, "-%c, ", o->short_name) : 0;
	bool value = o->kind == CLI_OPT_VALUE;
	snprintf(left + n, sizeof left - (size_t)n, "--%s%s%s", o->name, value ? " " : "",
		 value ? o->arg : "");
	fprintf(f, "  %-22s %s\n", left, o->help);
}

/* How a command is typed where it runs: "crate coll save" in a shell,
 * "coll save" on the interface's ':' line. */
static const char *invoker(bool on_line)
{
	return on_line ? "" : "crate ";
}

static void command_help(FILE *f, const struct cli_command *c, bool on_line)
{
	fprintf(f, "usage: %s%s\n\n%s\n", invoker(on_line), c->usage, c->summary);
	if (c->help)
		fprintf(f, "\n%s\n", c->help);
	if (c->alias)
		fprintf(f, "\nAlso called '%s'.\n", c->alias);
	if (!c->opts || !c->opts[0].name)
		return;
	fputs("\noptions:\n", f);
	for (const struct cli_opt *o = c->opts; o->name; o++)
		option_help(f, o);
}

/* The commands whose first word is word and those of the group called
 * word; false when there are none. */
static bool family_help(const struct cli_group *const *groups, FILE *f, const char *word,
			bool on_line)
{
	const struct cli_group *group = NULL;
	for (size_t g = 0; groups[g]; g++)
		if (strcmp(groups[g]->name, word) == 0)
			group = groups[g];
	size_t n = family_size(groups, word);
	if (!n && !group)
		return false;
	fprintf(f, "crate %s: %s\n\n", word, group ? group->summary : "commands");
	for (size_t g = 0; groups[g]; g++)
		for (const struct cli_command *c = groups[g]->commands; c->name; c++)
			if (in_family(c, word) || groups[g] == group)
				command_line(f, c);
	if (on_line)
		fprintf(f, "\n':help COMMAND' (or ':COMMAND --help') says more about one.\n");
	else
		fprintf(f, "\n'crate help COMMAND' (or 'crate COMMAND --help') says more about one.\n");
	return true;
}

bool cli_help_print(const struct cli_group *const *groups, FILE *f, int argc, char **argv,
		    bool on_line)
{
	if (argc == 0) {
		cli_commands_print(groups, f);
		return true;
	}
	char *name = argc >= 2 ? xasprintf("%s %s", argv[0], argv[1]) : xstrdup(argv[0]);
	const struct cli_command *c = argc <= 2 ? find(groups, name) : NULL;
	bool ok = true;
	if (c && (argc == 2 || family_size(groups, c->name) <= 1))
		command_help(f, c, on_line);
	else if (argc == 1)
		ok = family_help(groups, f, argv[0], on_line);
	else
		ok = false;
	free(name);
	return ok;
}

/* ---- dispatch ---- */

/* argv[0] is no command: maybe the first word of some ("crate playlist",
 * "crate rule bogus", "crate coll --help"). */
static int not_a_command(const struct cli_group *const *groups, struct cli_ctx *ctx, int argc,
			 char **argv)
{
	if (!family_size(groups, argv[0]))
		return cli_error(ctx, "unknown command '%s' (see crate --help)", argv[0]);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		family_help(groups, ctx->out, argv[0], ctx->on_line);
		return CLI_OK;
	}
	/* The family first, the error last: the ':' line shows the last line
	 * of a failed command, which was the list's trailer, not the error. */
	family_help(groups, ctx->err, argv[0], ctx->on_line);
	if (argc >= 2)
		cli_error(ctx, "unknown command '%s %s'", argv[0], argv[1]);
	else
		cli_error(ctx, "'%s' needs a command", argv[0]);
	return CLI_FAIL;
}

/* A word after a command that takes none, and heads a family ("roots
 * list"): a guessed sub-command, answered as one ("playlist bogus"). */
static bool guessed_subcommand(const struct cli_group *const *groups,
			       const struct cli_command *cmd, int consumed,
			       const struct cli_args *a, const char *why)
{
	return !why[0] && consumed == 1 && cmd->max_args == 0 && a->argc > 0 &&
	       family_size(groups, cmd->name) > 1;
}

int cli_dispatch_in(const struct cli_group *const *groups, struct cli_ctx *ctx, int argc,
		    char **argv)
{
	if (!ctx->out || !ctx->err)
		cli_ctx_stdio(ctx);
	if (argc < 1)
		return cli_error(ctx, "no command (see crate --help)");
	int consumed;
	const struct cli_command *cmd = cli_lookup(groups, argc, argv, &consumed);
	if (!cmd)
		return not_a_command(groups, ctx, argc, argv);
	struct cli_args args;
	char why[200];
	int rc;
	switch (cli_args_parse(cmd, argc - consumed, argv + consumed, &args, why, sizeof why)) {
	case CLI_PARSE_HELP:
		/* "roots --help": the one-word command and its family */
		if (consumed == 1 && family_size(groups, cmd->name) > 1)
			family_help(groups, ctx->out, cmd->name, ctx->on_line);
		else
			command_help(ctx->out, cmd, ctx->on_line);
		rc = CLI_OK;
		break;
	case CLI_PARSE_BAD:
		if (guessed_subcommand(groups, cmd, consumed, &args, why)) {
			family_help(groups, ctx->err, cmd->name, ctx->on_line);
			rc = cli_error(ctx, "unknown command '%s %s'", cmd->name, args.argv[0]);
			break;
		}
		if (why[0])
			cli_error(ctx, "%s: %s", cmd->name, why);
		rc = cli_usage(ctx, cmd);
		break;
	default:
		rc = cmd->run(ctx, &args);
		break;
	}
	cli_args_free(&args);
	return rc;
}
