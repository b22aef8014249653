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
static void print_tree(FILE *out, const struct coll_node *n, const char *query, int depth)
{
	fprintf(out, "%*s%s", depth * 2, "", coll_type_name(n->type));
	for (size_t i = 0; i < n->nattrs; i++) {
		fprintf(out, " %s=\"", n->attrs[i].key);
		cli_put_safe(out, n->attrs[i].value, strlen(n->attrs[i].value));
		fputc('"', out);
	}
	for (size_t i = 0; i < n->idlist.n; i++)
		fprintf(out, "%s%u", i ? "," : " ids=", n->idlist.v[i]);
	if (n->span_start >= 0) {
		size_t a = utf8_count(query, (size_t)n->span_start) + 1;
		size_t b = utf8_count(query, (size_t)n->span_end);
		fprintf(out, "  (col %zu-%zu)", a, b);
	}
	fputc('\n', out);
	/* The universe under a filter is implied. */
	bool skip = coll_type_is_filter(n->type) && n->noperands == 1 &&
		    n->operands[0]->type == COLL_UNIVERSE;
	for (size_t i = 0; i < n->noperands && !skip; i++)
		print_tree(out, n->operands[i], query, depth + 1);
}

static int cmd_parse(struct cli_ctx *ctx, const struct cli_args *a)
{
	/* --json is the default; one of the others wins over it */
	enum { OUT_JSON, OUT_TREE, OUT_TEXT } out = cli_flag(a, "tree")	     ? OUT_TREE
						    : cli_flag(a, "canonical") ? OUT_TEXT
									       : OUT_JSON;
	struct coll_parse_opts opts = {.list_context = cli_flag(a, "list")};
	char *query = cli_join_args(a->argv, a->argc);
	struct crate_err err;
	struct coll_node *c = coll_parse(query, strlen(query), &opts, &err);
	if (!c) {
		int rc = cli_fail_query(ctx, query, &err);
		free(query);
		return rc;
	}
	int rc = CLI_OK;
	if (out == OUT_TREE) {
		print_tree(ctx->out, c, query, 0);
	} else if (out == OUT_TEXT) {
		char *text = coll_print(c, &err);
		if (text) {
			cli_put_safe(ctx->out, text, strlen(text));
			fputc('\n', ctx->out);
			free(text);
		} else {
			rc = cli_fail_safe(ctx, err.msg);
		}
	} else {
		/* JSON escapes every control character, so it is terminal-safe. */
		char *json = coll_to_json(c, false);
		fprintf(ctx->out, "%s\n", json);
		free(json);
	}
	coll_node_unref(c);
	free(query);
	return rc;
}

static int cmd_explain(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool score = cli_flag(a, "score");
	const char *const *pos = (const char *const *)a->argv;
	const char *query = pos[0];
	uint32_t id;
	if (!cli_parse_id(pos[1], &id)) {
		char *msg = xasprintf("'%s' is not a media id", pos[1]);
		cli_fail_safe(ctx, msg);
		free(msg);
		return CLI_FAIL;
	}
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	struct crate_err err;
	struct coll_node *c = app_parse_query(app, query, false, &err);
	if (!c)
		return cli_fail_query(ctx, query, &err);
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
		return cli_fail_safe(ctx, err.msg);
	}
	fputs(text, ctx->out); /* coll_explain sanitises what comes from tags */
	if (why)
		fputs(why, ctx->out); /* so does the score */
	free(text);
	free(why);
	return CLI_OK;
}

static const struct cli_opt parse_opts[] = {
	{"tree", 0, CLI_OPT_FLAG, NULL, "an indented tree with the query columns of each node"},
	{"canonical", 0, CLI_OPT_FLAG, NULL, "the canonical query text"},
	{"json", 0, CLI_OPT_FLAG, NULL, "the collection as JSON (the default)"},
	{"list", 0, CLI_OPT_FLAG, NULL, "read bare numbers as playlist positions"},
	{0},
};
static const struct cli_opt explain_opts[] = {
	{"score", 0, CLI_OPT_FLAG, NULL, "also where it ranks, as 'crate search' ranks"},
	{0},
};

static const struct cli_command parse_commands[] = {
	{"parse", NULL, "parse [--tree|--canonical|--json] [--list] QUERY...",
	 "show the collection a query means (JSON, tree or canonical text)",
	 "The words are joined into one query; a query error points at its column.",
	 1, CLI_ANY, CLI_DASH_ARGS, parse_opts, cmd_parse},
	{"explain", NULL, "explain [--score] QUERY ID",
	 "why a media item is or is not in a query's result (--score: and where it ranks)",
	 "QUERY is one word (quote it); ID a media id (42 or #42).", 2, 2, CLI_DASH_ARGS,
	 explain_opts, cmd_explain},
	{0},
};

const struct cli_group cli_parse_group = {"parse", "what a query means", parse_commands};
