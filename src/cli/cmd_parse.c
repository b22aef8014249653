/* Commands of the "parse" group: `crate parse` shows what a query means (the
 * collection as JSON, an indented tree, or its canonical text) and `crate
 * explain` says why one media item is or is not in a query's result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "base/str.h"
#include "base/utf8.h"
#include "cli/cli.h"
#include "coll/explain.h"
#include "coll/json.h"
#include "coll/parse.h"

/* Words after the options joined by spaces (`crate parse a:x g:y`). Owned. */
static char *join_words(char **words, int n)
{
	struct strbuf b;
	strbuf_init(&b, 64);
	for (int i = 0; i < n; i++) {
		if (i)
			strbuf_addc(&b, ' ');
		strbuf_adds(&b, words[i]);
	}
	return strbuf_steal(&b);
}

/* "crate: col N: message", then the query with a caret under column N. */
static int fail_query(const char *query, const struct crate_err *err)
{
	char *msg = utf8_sanitize(err->msg, strlen(err->msg));
	cli_error("%s", msg);
	free(msg);
	if (err->pos < 1 || strncmp(err->msg, "col ", 4) != 0 ||
	    (err->code != CRATE_ERR_PARSE && err->code != CRATE_ERR_INCOMPLETE))
		return CLI_FAIL;
	/* Sanitising keeps one character per character, so columns still hold. */
	char *clean = utf8_sanitize(query, strlen(query));
	size_t len = strlen(clean), bytes = 0;
	for (int c = 1; c < err->pos && bytes < len; c++) {
		uint32_t cp;
		bytes += utf8_decode(clean + bytes, len - bytes, &cp);
	}
	fprintf(stderr, "  %s\n  %*s^\n", clean, (int)utf8_width(clean, bytes), "");
	free(clean);
	return CLI_FAIL;
}

static void put_sanitized(const char *s)
{
	char *clean = utf8_sanitize(s, strlen(s));
	fputs(clean, stdout);
	free(clean);
}

/* One node per line, operands indented, with the query columns it spans. */
static void print_tree(const struct coll_node *n, const char *query, int depth)
{
	printf("%*s%s", depth * 2, "", coll_type_name(n->type));
	for (size_t i = 0; i < n->nattrs; i++) {
		printf(" %s=\"", n->attrs[i].key);
		put_sanitized(n->attrs[i].value);
		putchar('"');
	}
	for (size_t i = 0; i < n->idlist.n; i++)
		printf("%s%u", i ? "," : " ids=", n->idlist.v[i]);
	if (n->span_start >= 0) {
		size_t a = utf8_count(query, (size_t)n->span_start) + 1;
		size_t b = utf8_count(query, (size_t)n->span_end);
		printf("  (col %zu-%zu)", a, b);
	}
	putchar('\n');
	/* The universe under a filter is implied. */
	bool skip = coll_type_is_filter(n->type) && n->noperands == 1 &&
		    n->operands[0]->type == COLL_UNIVERSE;
	for (size_t i = 0; i < n->noperands && !skip; i++)
		print_tree(n->operands[i], query, depth + 1);
}

static int cmd_parse(struct cli_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	const struct cli_command *self = cli_find("parse");
	enum { OUT_JSON, OUT_TREE, OUT_TEXT } out = OUT_JSON;
	struct coll_parse_opts opts = {0};
	int first = 1;
	for (; first < argc; first++) {
		const char *a = argv[first];
		if (strcmp(a, "--tree") == 0)
			out = OUT_TREE;
		else if (strcmp(a, "--canonical") == 0)
			out = OUT_TEXT;
		else if (strcmp(a, "--json") == 0)
			out = OUT_JSON;
		else if (strcmp(a, "--list") == 0)
			opts.list_context = true;
		else if (strcmp(a, "--") == 0) {
			first++;
			break;
		} else if (a[0] == '-' && a[1] == '-')
			return cli_usage(self);
		else
			break;
	}
	if (first >= argc)
		return cli_usage(self);
	char *query = join_words(argv + first, argc - first);
	struct crate_err err;
	struct coll_node *c = coll_parse(query, strlen(query), &opts, &err);
	if (!c) {
		int rc = fail_query(query, &err);
		free(query);
		return rc;
	}
	int rc = CLI_OK;
	if (out == OUT_TREE) {
		print_tree(c, query, 0);
	} else if (out == OUT_TEXT) {
		char *text = coll_print(c, &err);
		if (text) {
			put_sanitized(text);
			putchar('\n');
			free(text);
		} else {
			rc = cli_error("%s", err.msg);
		}
	} else {
		/* JSON escapes every control character, so it is terminal-safe. */
		char *json = coll_to_json(c, false);
		puts(json);
		free(json);
	}
	coll_node_unref(c);
	free(query);
	return rc;
}

static int cmd_explain(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_command *self = cli_find("explain");
	if (argc != 3)
		return cli_usage(self);
	const char *query = argv[1], *idtext = argv[2];
	if (idtext[0] == '#')
		idtext++;
	char *end;
	unsigned long id = strtoul(idtext, &end, 10);
	if (!*idtext || *end || id == 0 || id > UINT32_MAX) {
		char *clean = utf8_sanitize(argv[2], strlen(argv[2]));
		cli_error("'%s' is not a media id", clean);
		free(clean);
		return CLI_FAIL;
	}
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	struct crate_err err;
	struct coll_node *c = app_parse_query(app, query, false, &err);
	if (!c)
		return fail_query(query, &err);
	struct coll_eval_ctx ectx;
	app_eval_ctx(app, &ectx);
	char *text = coll_explain(&ectx, c, (uint32_t)id, &err);
	coll_node_unref(c);
	if (!text) {
		char *msg = utf8_sanitize(err.msg, strlen(err.msg));
		cli_error("%s", msg);
		free(msg);
		return CLI_FAIL;
	}
	fputs(text, stdout); /* coll_explain sanitises what comes from tags */
	free(text);
	return CLI_OK;
}

const struct cli_command cli_parse_commands[] = {
	{"parse", "parse [--tree|--canonical|--json] [--list] QUERY...",
	 "show the collection a query means (JSON, tree or canonical text)", cmd_parse},
	{"explain", "explain QUERY ID", "why a media item is or is not in a query's result",
	 cmd_explain},
	{NULL, NULL, NULL, NULL},
};
