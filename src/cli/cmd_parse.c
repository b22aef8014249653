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
#include "cli/output.h"
#include "coll/explain.h"
#include "coll/search.h"
#include "coll/json.h"
#include "coll/parse.h"

/* One node per line, operands indented, with the query columns it spans. */
static void print_tree(const struct coll_node *n, const char *query, int depth)
{
	printf("%*s%s", depth * 2, "", coll_type_name(n->type));
	for (size_t i = 0; i < n->nattrs; i++) {
		printf(" %s=\"", n->attrs[i].key);
		cli_put_safe(stdout, n->attrs[i].value, strlen(n->attrs[i].value));
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
	char *query = cli_join_args(argv + first, argc - first);
	struct crate_err err;
	struct coll_node *c = coll_parse(query, strlen(query), &opts, &err);
	if (!c) {
		int rc = cli_fail_query(query, &err);
		free(query);
		return rc;
	}
	int rc = CLI_OK;
	if (out == OUT_TREE) {
		print_tree(c, query, 0);
	} else if (out == OUT_TEXT) {
		char *text = coll_print(c, &err);
		if (text) {
			cli_put_safe(stdout, text, strlen(text));
			putchar('\n');
			free(text);
		} else {
			rc = cli_fail_safe(err.msg);
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
	bool score = false;
	const char *pos[2];
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--score") == 0)
			score = true;
		else if (npos < 2 && (argv[i][0] != '-' || argv[i][1] != '-'))
			pos[npos++] = argv[i];
		else
			return cli_usage(self);
	}
	if (npos != 2)
		return cli_usage(self);
	const char *query = pos[0];
	uint32_t id;
	if (!cli_parse_id(pos[1], &id)) {
		char *msg = xasprintf("'%s' is not a media id", pos[1]);
		cli_fail_safe(msg);
		free(msg);
		return CLI_FAIL;
	}
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	struct crate_err err;
	struct coll_node *c = app_parse_query(app, query, false, &err);
	if (!c)
		return cli_fail_query(query, &err);
	struct coll_eval_ctx ectx;
	app_eval_ctx(app, &ectx);
	/* --score: the search as `crate search` runs it (forgiven, ranked) */
	struct coll_search s = {0};
	if (score)
		coll_search_prepare(&ectx, c, query, 0, &s);
	char *text = coll_explain(&ectx, score ? s.node : c, id, &err);
	char *why = text && score ? coll_search_explain_score(&ectx, &s, id, &err) : NULL;
	coll_node_unref(c);
	if (score)
		coll_search_free(&s);
	if (!text || (score && !why)) {
		free(text);
		return cli_fail_safe(err.msg);
	}
	fputs(text, stdout); /* coll_explain sanitises what comes from tags */
	if (why)
		fputs(why, stdout); /* so does the score */
	free(text);
	free(why);
	return CLI_OK;
}

const struct cli_command cli_parse_commands[] = {
	{"parse", "parse [--tree|--canonical|--json] [--list] QUERY...",
	 "show the collection a query means (JSON, tree or canonical text)", cmd_parse},
	{"explain", "explain [--score] QUERY ID",
	 "why a media item is or is not in a query's result (--score: and where it ranks)",
	 cmd_explain},
	{NULL, NULL, NULL, NULL},
};
