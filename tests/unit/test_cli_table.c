/* cli/: the dispatcher and the option parser (cli/dispatch.c) on a table of
 * test commands, the output sink (cli/ctx.c), and the real table
 * (cli/cli_table.c): every command declared sanely and reachable. */
#include <stdio.h>
#include <stdlib.h>

#include "base/str.h"
#include "cli/cli.h"
#include "harness.h"

/* ---- a small table of test commands ---- */

static int last_argc;
static const char *last_args[8];
static int runs;

static int record(struct cli_ctx *ctx, const struct cli_args *a)
{
	(void)ctx;
	runs++;
	last_argc = a->argc;
	for (int i = 0; i < a->argc && i < 8; i++)
		last_args[i] = a->argv[i];
	return 7; /* the handler's own status reaches the caller */
}

/* The options record_opts saw. */
static bool v_json, v_quiet;
static int v_verbose;
static const char *v_format; /* v_format_buf, or NULL */
static char v_format_buf[64];

static int record_opts(struct cli_ctx *ctx, const struct cli_args *a)
{
	v_json = cli_flag(a, "json");
	v_quiet = cli_flag(a, "quiet");
	v_verbose = cli_count(a, "verbose");
	const char *f = cli_value(a, "format");
	snprintf(v_format_buf, sizeof v_format_buf, "%s", f ? f : "");
	v_format = f ? v_format_buf : NULL; /* a copy: argv is freed after the run */
	return record(ctx, a);
}

static const struct cli_opt opts[] = {
	{"json", 0, CLI_OPT_FLAG, NULL, "as JSON"},
	{"quiet", 'q', CLI_OPT_FLAG, NULL, "say less"},
	{"verbose", 'v', CLI_OPT_COUNT, NULL, "say more"},
	{"format", 'f', CLI_OPT_VALUE, "F", "line format"},
	{0},
};

static const struct cli_command thing_commands[] = {
	{"thing add", NULL, "thing add NAME [WORD...]", "add", "Adds a thing.", 1, CLI_ANY, 0, opts,
	 record_opts},
	{"thing two", NULL, "thing two A B", "exactly two", NULL, 2, 2, 0, NULL, record},
	{"thing", NULL, "thing [--json]", "one-word with a family", NULL, 0, 0, 0, opts,
	 record_opts},
	{0},
};
static const struct cli_command misc_commands[] = {
	{"query", "q", "query [-q] WORDS...", "dash words are arguments", NULL, 1, CLI_ANY,
	 CLI_DASH_ARGS, opts, record_opts},
	{"first", NULL, "first [-q] ARGS...", "options only first", NULL, 0, CLI_ANY, CLI_OPTS_FIRST,
	 opts, record_opts},
	{0},
};
static const struct cli_group thing_group = {"things", "test things", thing_commands};
static const struct cli_group misc_group = {"misc", "test misc", misc_commands};
static const struct cli_group *const groups[] = {&thing_group, &misc_group, NULL};

/* Captured output of one dispatch. */
struct run {
	char *out, *err;
	size_t outlen, errlen;
	int rc;
};

static struct run dispatch(const char *const *words)
{
	int argc = 0;
	while (words[argc])
		argc++;
	char **argv = xcalloc((size_t)argc + 1, sizeof *argv);
	for (int i = 0; i < argc; i++)
		argv[i] = xstrdup(words[i]);
	struct run r = {0};
	struct cli_ctx ctx = {.out = open_memstream(&r.out, &r.outlen),
			      .err = open_memstream(&r.err, &r.errlen)};
	runs = 0;
	r.rc = cli_dispatch_in(groups, &ctx, argc, argv);
	fclose(ctx.out);
	fclose(ctx.err);
	/* record's argument pointers are argv's: map them back to words */
	for (int i = 0; i < last_argc && i < 8; i++)
		for (int k = 0; k < argc; k++)
			if (last_args[i] == argv[k])
				last_args[i] = words[k];
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

TEST(two_word_names_before_one_word)
{
	struct run r = dispatch(WORDS("thing", "add", "x", "y"));
	CHECK_INT(r.rc, 7);
	CHECK_INT(runs, 1);
	CHECK_INT(last_argc, 2);
	CHECK_STR(last_args[0], "x");
	CHECK_STR(last_args[1], "y");
	run_free(&r);
	r = dispatch(WORDS("thing"));
	CHECK_INT(r.rc, 7);
	CHECK_INT(last_argc, 0);
	run_free(&r);
	r = dispatch(WORDS("q", "alias"));
	CHECK_INT(r.rc, 7);
	CHECK_STR(last_args[0], "alias");
	run_free(&r);
}

TEST(min_and_max_arguments_give_usage)
{
	struct run r = dispatch(WORDS("thing", "two", "a"));
	CHECK_INT(r.rc, CLI_FAIL);
	CHECK_INT(runs, 0);
	CHECK_STR(r.err, "usage: crate thing two A B\n");
	CHECK_INT(r.outlen, 0);
	run_free(&r);
	r = dispatch(WORDS("thing", "two", "a", "b", "c"));
	CHECK_INT(r.rc, CLI_FAIL);
	CHECK_STR(r.err, "usage: crate thing two A B\n");
	run_free(&r);
	r = dispatch(WORDS("thing", "two", "a", "b"));
	CHECK_INT(r.rc, 7);
	run_free(&r);
	/* "thing x": no command "thing x", and the one-word "thing" takes no
	 * argument: a guessed sub-command, answered as one (it said only
	 * "usage: crate thing [--json]", as `crate roots list` did) */
	r = dispatch(WORDS("thing", "x"));
	CHECK_INT(r.rc, CLI_FAIL);
	CHECK(strstr(r.err, "  thing two A B"));
	CHECK(strstr(r.err, "crate: unknown command 'thing x'\n"));
	run_free(&r);
}

TEST(flag_value_and_count_options)
{
	struct run r = dispatch(WORDS("thing", "add", "-v", "n", "--json", "--verbose", "-f", "%a%",
				      "-q", "w"));
	CHECK_INT(r.rc, 7);
	CHECK(v_json);
	CHECK(v_quiet);
	CHECK_INT(v_verbose, 2);
	CHECK_STR(v_format, "%a%");
	CHECK_INT(last_argc, 2); /* options anywhere: n and w are the arguments */
	CHECK_STR(last_args[0], "n");
	CHECK_STR(last_args[1], "w");
	run_free(&r);
	r = dispatch(WORDS("thing", "add", "n"));
	CHECK(!v_json && !v_quiet && v_verbose == 0 && v_format == NULL);
	run_free(&r);
}

TEST(long_option_with_equals)
{
	struct run r = dispatch(WORDS("thing", "add", "--format=%t% - %a%", "n"));
	CHECK_INT(r.rc, 7);
	CHECK_STR(v_format, "%t% - %a%");
	run_free(&r);
	/* an empty value is a value */
	r = dispatch(WORDS("thing", "add", "--format=", "n"));
	CHECK_STR(v_format, "");
	run_free(&r);
	r = dispatch(WORDS("thing", "add", "--json=yes", "n"));
	CHECK_INT(r.rc, CLI_FAIL);
	CHECK_STR(r.err, "crate: thing add: option '--json' takes no value\n"
			 "usage: crate thing add NAME [WORD...]\n");
	run_free(&r);
	r = dispatch(WORDS("thing", "add", "n", "--format"));
	CHECK_INT(r.rc, CLI_FAIL);
	CHECK_STR(r.err, "crate: thing add: option '--format' needs a value\n"
			 "usage: crate thing add NAME [WORD...]\n");
	run_free(&r);
}

TEST(double_dash_ends_options)
{
	struct run r = dispatch(WORDS("thing", "add", "--", "--json", "-q", "--"));
	CHECK_INT(r.rc, 7);
	CHECK(!v_json && !v_quiet);
	CHECK_INT(last_argc, 3);
	CHECK_STR(last_args[0], "--json");
	CHECK_STR(last_args[1], "-q");
	CHECK_STR(last_args[2], "--");
	run_free(&r);
	/* "-" alone is an argument (standard input) */
	r = dispatch(WORDS("thing", "add", "-"));
	CHECK_INT(r.rc, 7);
	CHECK_STR(last_args[0], "-");
	run_free(&r);
}

TEST(unknown_option_gives_usage)
{
	struct run r = dispatch(WORDS("thing", "add", "n", "--bogus"));
	CHECK_INT(r.rc, CLI_FAIL);
	CHECK_INT(runs, 0);
	CHECK_INT(r.outlen, 0);
	CHECK_STR(r.err, "crate: thing add: unknown option '--bogus'\n"
			 "usage: crate thing add NAME [WORD...]\n");
	run_free(&r);
	r = dispatch(WORDS("thing", "add", "n", "-x"));
	CHECK_STR(r.err, "crate: thing add: unknown option '-x'\n"
			 "usage: crate thing add NAME [WORD...]\n");
	run_free(&r);
}

TEST(dash_words_are_arguments_where_declared)
{
	struct run r = dispatch(WORDS("query", "-year", "-q", "-g:Pop"));
	CHECK_INT(r.rc, 7);
	CHECK(v_quiet); /* a declared short option is still one */
	CHECK_INT(last_argc, 2);
	CHECK_STR(last_args[0], "-year");
	CHECK_STR(last_args[1], "-g:Pop");
	run_free(&r);
	r = dispatch(WORDS("query", "x", "--nope"));
	CHECK_INT(r.rc, CLI_FAIL); /* long options are never query words */
	run_free(&r);
}

TEST(options_first_passes_the_rest_as_it_is)
{
	struct run r = dispatch(WORDS("first", "-q", "a", "--json", "-q"));
	CHECK_INT(r.rc, 7);
	CHECK(v_quiet);
	CHECK(!v_json);
	CHECK_INT(last_argc, 3);
	CHECK_STR(last_args[1], "--json");
	run_free(&r);
}

TEST(help_on_stdout_with_status_0)
{
	struct run r = dispatch(WORDS("thing", "add", "--help"));
	CHECK_INT(r.rc, CLI_OK);
	CHECK_INT(runs, 0);
	CHECK_INT(r.errlen, 0);
	CHECK(r.out && strstr(r.out, "usage: crate thing add NAME [WORD...]\n"));
	CHECK(r.out && strstr(r.out, "Adds a thing."));
	CHECK(r.out && strstr(r.out, "  -f, --format F"));
	CHECK(r.out && strstr(r.out, "  -v, --verbose"));
	CHECK(r.out && strstr(r.out, "  --json "));
	run_free(&r);
	/* --help wins over a wrong argument count or an unknown option */
	r = dispatch(WORDS("thing", "two", "--bogus", "-h"));
	CHECK_INT(r.rc, CLI_OK);
	CHECK(r.out && strstr(r.out, "usage: crate thing two A B"));
	run_free(&r);
	/* a command's first word: its family */
	r = dispatch(WORDS("thing", "--help"));
	CHECK_INT(r.rc, CLI_OK);
	CHECK(r.out && strstr(r.out, "thing add NAME") && strstr(r.out, "thing two A B"));
	run_free(&r);
}

TEST(group_word_alone_or_unknown_second_word)
{
	static const struct cli_command lone[] = {
		{"box open", NULL, "box open", "open", NULL, 0, 0, 0, NULL, record},
		{0},
	};
	static const struct cli_group box = {"box", "boxes", lone};
	static const struct cli_group *const g2[] = {&box, NULL};
	char *out = NULL, *err = NULL;
	size_t ol = 0, el = 0;
	struct cli_ctx ctx = {.out = open_memstream(&out, &ol), .err = open_memstream(&err, &el)};
	char *w1[] = {"box", NULL};
	CHECK_INT(cli_dispatch_in(g2, &ctx, 1, w1), CLI_FAIL);
	char *w2[] = {"box", "bogus", NULL};
	CHECK_INT(cli_dispatch_in(g2, &ctx, 2, w2), CLI_FAIL);
	char *w3[] = {"box", "--help", NULL};
	CHECK_INT(cli_dispatch_in(g2, &ctx, 2, w3), CLI_OK);
	char *w4[] = {"nothing", NULL};
	CHECK_INT(cli_dispatch_in(g2, &ctx, 1, w4), CLI_FAIL);
	fclose(ctx.out);
	fclose(ctx.err);
	CHECK(strstr(err, "crate: 'box' needs a command\n"));
	CHECK(strstr(err, "crate: unknown command 'box bogus'\n"));
	CHECK(strstr(err, "  box open "));
	CHECK(strstr(err, "crate: unknown command 'nothing' (see crate --help)\n"));
	CHECK(strstr(out, "crate box: boxes\n"));
	free(out);
	free(err);
}

/* ---- the sink ---- */

static void add_out(void *ud, const char *s, size_t n)
{
	strbuf_adds(ud, "O:");
	strbuf_add(ud, s, n);
}

static void add_err(void *ud, const char *s, size_t n)
{
	strbuf_adds(ud, "E:");
	strbuf_add(ud, s, n);
}

TEST(sink_gets_out_and_err_in_order)
{
	struct strbuf b;
	strbuf_init(&b, 64);
	struct cli_sink sink = {add_out, add_err, &b};
	struct cli_ctx ctx = {0};
	struct crate_err err = {0};
	REQUIRE(cli_ctx_open_sink(&ctx, &sink, &err) == 0);
	fprintf(ctx.out, "one\n");
	cli_error(&ctx, "bad %d", 2);
	fprintf(ctx.out, "three\n");
	cli_ctx_close_sink(&ctx);
	CHECK_STR(b.buf, "O:one\nE:crate: bad 2\nO:three\n");
	CHECK(ctx.out == NULL && ctx.err == NULL);
	strbuf_free(&b);
}

/* ---- the real table ---- */

TEST(every_command_is_declared_sanely_and_reachable)
{
	int n = 0;
	for (size_t g = 0; cli_groups[g]; g++) {
		for (const struct cli_command *c = cli_groups[g]->commands; c->name; c++, n++) {
			CHECK_MSG(c->usage && c->summary && c->run, "%s: usage, summary, run", c->name);
			CHECK_MSG(c->max_args == CLI_ANY || c->max_args >= c->min_args, "%s: max",
				  c->name);
			CHECK_MSG(str_has_prefix(c->usage, c->name), "%s: usage starts with the name",
				  c->name);
			int nopts = 0;
			for (const struct cli_opt *o = c->opts; o && o->name; o++, nopts++)
				CHECK_MSG(o->help && (o->kind != CLI_OPT_VALUE || o->arg),
					  "%s --%s: help and value name", c->name, o->name);
			CHECK_MSG(nopts <= CLI_MAX_OPTS, "%s: too many options", c->name);
			/* the dispatcher finds it by its own name */
			char *name = xstrdup(c->name), *sp = strchr(name, ' ');
			char *words[3] = {name, NULL, NULL};
			if (sp) {
				*sp = '\0';
				words[1] = sp + 1;
			}
			int consumed;
			CHECK_MSG(cli_lookup(cli_groups, sp ? 2 : 1, words, &consumed) == c,
				  "%s: found", c->name);
			free(name);
		}
	}
	CHECK_MSG(n >= 40, "%d commands", n);
}

TEST(help_names_commands_families_and_groups)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	char *coll[] = {"coll"}, *save[] = {"coll", "save"}, *lib[] = {"library"},
	     *none[] = {"nonesuch"};
	CHECK(cli_help_print(cli_groups, f, 1, coll, false));
	CHECK(cli_help_print(cli_groups, f, 2, save, false));
	CHECK(cli_help_print(cli_groups, f, 1, lib, false));
	CHECK(!cli_help_print(cli_groups, f, 1, none, false));
	fclose(f);
	CHECK(strstr(out, "crate coll: saved collections\n"));
	CHECK(strstr(out, "usage: crate coll save NAME QUERY\n"));
	CHECK(strstr(out, "  scan [--quiet]"));
	free(out);
}
