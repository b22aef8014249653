/* `crate search`: the library items a query matches, ranked and
 * forgiving (coll/search.h), printed as lines or JSON; also how a running
 * crate answers a search the launcher forwards (cli_search_to_buffer). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_read.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/cmd_util.h"
#include "medialib/item_format.h"
#include "cli/output.h"
#include "coll/search.h"
#include "medialib/index.h"

/* `search`'s arguments. */
struct search_args {
	struct cli_items_out o;
	const char *order;
	long limit; /* -1: none */
	unsigned flags; /* COLL_SEARCH_*: --order library, --exact */
	char *query; /* owned */
};

/* The parsed options into sa (the query joined from the words); false
 * with *err when --limit is no count. */
static bool search_args_read(const struct cli_args *args, struct search_args *sa,
			     struct crate_err *err)
{
	*sa = (struct search_args){.o = {.current = -1, .json = cli_flag(args, "json"),
					 .fmt = cli_value(args, "format")},
				   .order = cli_value(args, "order"), .limit = -1};
	if (sa->order && strcmp(sa->order, "library") == 0) { /* the order before ranking */
		sa->flags |= COLL_SEARCH_NO_RANK;
		sa->order = NULL;
	}
	if (cli_flag(args, "exact"))
		sa->flags |= COLL_SEARCH_EXACT;
	const char *limit = cli_value(args, "limit");
	if (limit && !cli_parse_count(limit, 0, &sa->limit)) {
		crate_err_set(err, CRATE_ERR_INVALID, "--limit needs a count (0 or more), not '%s'",
			      limit);
		return false;
	}
	struct item_format *f;
	if (sa->o.fmt && !sa->o.json && item_format_parse(sa->o.fmt, &f, err) != 0)
		return false; /* before any work: a query is not run for nothing */
	if (sa->o.fmt && !sa->o.json)
		item_format_free(f);
	sa->query = cli_join_args(args->argv, args->argc);
	return true;
}

/* Evaluate a's query and print the items to ctx->out, and what the search
 * forgave to ctx->err. -1 with *err (and *in_query when
 * the query text itself is at fault) prints nothing. */
static int search_run(struct cli_ctx *ctx, struct app *app, const struct search_args *a,
		      struct crate_err *err, bool *in_query)
{
	*in_query = false;
	if (a->o.fmt && a->o.json)
		cli_warning(ctx, "%s", CLI_FORMAT_WITH_JSON);
	struct coll_node *n = app_parse_query(app, a->query, false, err);
	if (!n) {
		*in_query = true;
		return -1;
	}
	if (a->order) {
		struct coll_node *o2 = app_order_by(app, n, a->order, err);
		coll_node_unref(n);
		if (!(n = o2))
			return -1;
	}
	if (a->limit >= 0) {
		struct coll_node *l = coll_node_new(COLL_LIMIT);
		char buf[32];
		snprintf(buf, sizeof buf, "%ld", a->limit);
		coll_attr_set(l, "length", buf);
		coll_node_add_operand(l, n);
		coll_node_unref(n);
		n = l;
	}
	/* ranked and forgiving (coll/search.h); what was forgiven goes to
	 * ctx->err */
	struct coll_result r = {0};
	struct strbuf notes;
	strbuf_init(&notes, 64);
	int rc = app_search(app, n, a->query, a->flags, &r, &notes, err);
	if (rc == 0) {
		if (notes.len)
			cli_fail_safe(ctx, notes.buf);
		struct cli_items_out o = a->o;
		o.out = ctx->out;
		o.sep = config_get(app->cfg, "display.separator", NULL);
		rc = cli_print_items(app, r.ids.v, r.ids.n, &o, err);
	}
	strbuf_free(&notes);
	coll_result_free(&r);
	coll_node_unref(n);
	return rc;
}

/* search_run on a mapped index, whose damage shows only as it is read
 * (mlib_index_snapshot_map): the answer is written to memory first and
 * printed only when the mapping proved sound; otherwise it is dropped, the
 * index loaded from SQLite (which rewrites the snapshot) and the search run
 * again. */
static int search_run_checked(struct cli_ctx *ctx, struct app *app, const struct search_args *a,
			      struct crate_err *err, bool *in_query)
{
	if (!mlib_index_is_mapped(app_index(app)))
		return search_run(ctx, app, a, err, in_query);
	char *out_buf = NULL, *err_buf = NULL;
	size_t out_len = 0, err_len = 0;
	struct cli_ctx mem = *ctx;
	mem.out = open_memstream(&out_buf, &out_len);
	mem.err = open_memstream(&err_buf, &err_len);
	int rc;
	if (!mem.out || !mem.err) { /* no memory for the answer: print as it comes */
		rc = search_run(ctx, app, a, err, in_query);
	} else {
		rc = search_run(&mem, app, a, err, in_query);
		fflush(mem.out);
		fflush(mem.err);
	}
	if (mem.out && mem.err && mlib_index_map_damaged(app_index(app))) {
		crate_err_clear(err);
		rc = app_reload_index(app, err) != 0 ? -1 : search_run(ctx, app, a, err, in_query);
	} else if (mem.out && mem.err) {
		fwrite(err_buf, 1, err_len, ctx->err);
		fwrite(out_buf, 1, out_len, ctx->out);
	}
	if (mem.out)
		fclose(mem.out);
	if (mem.err)
		fclose(mem.err);
	free(out_buf);
	free(err_buf);
	return rc;
}

static int cmd_search(struct cli_ctx *ctx, const struct cli_args *args)
{
	struct search_args a;
	struct crate_err err = {0};
	if (!search_args_read(args, &a, &err))
		return err.code == CRATE_ERR_PARSE ? cli_fail_query(ctx, a.o.fmt, &err)
						   : cli_fail_safe(ctx, err.msg);
	/* A one-shot search reads a few properties of the library: the
	 * snapshot is used in place, not loaded (MLIB_LOAD_MAP). */
	ctx->map_index = true;
	struct app *app = cli_app(ctx);
	int status = CLI_FAIL;
	if (app) {
		bool in_query;
		status = CLI_OK;
		if (search_run_checked(ctx, app, &a, &err, &in_query) != 0)
			status = in_query ? cli_fail_query(ctx, a.query, &err)
					  : cli_fail_safe(ctx, err.msg);
	}
	free(a.query);
	return status;
}

static const struct cli_opt search_opts[] = {
	{"format", 0, CLI_OPT_VALUE, "F", "one line per item from a format (%artist%, %{a|b}, ...)"},
	{"json", 0, CLI_OPT_FLAG, NULL, "a JSON array of items with every property"},
	{"order", 0, CLI_OPT_VALUE, "FIELDS", "sort by fields ('artist,-year'); 'library': unranked"},
	{"limit", 0, CLI_OPT_VALUE, "N", "at most N items"},
	{"exact", 0, CLI_OPT_FLAG, NULL, "no spelling corrections or word fallbacks"},
	{0},
};

static const struct cli_command search_commands[] = {
	{"search", NULL,
	 "search QUERY [--format F] [--json] [--order FIELDS|library] [--limit N] [--exact]",
	 "print the library items a query matches, best first",
	 "The words are joined into one query. What the search forgave (a corrected word)\n"
	 "is said on stderr.",
	 1, CLI_ANY, CLI_DASH_ARGS, search_opts, cmd_search},
	{0},
};

const struct cli_group cli_search_group = {"search", "searching the library", search_commands};

int cli_search_to_buffer(struct app *app, int argc, char **argv, char err_mark,
			 struct strbuf *out, struct crate_err *err)
{
	struct cli_args args = {0};
	char why[200];
	/* argv[0] is "search" */
	if (argc < 1 || cli_args_parse(&search_commands[0], argc - 1, argv + 1, &args, why,
				       sizeof why) != CLI_PARSE_OK) {
		cli_args_free(&args);
		return crate_err_set(err, CRATE_ERR_INVALID, "search: bad arguments");
	}
	struct search_args a;
	bool ok = search_args_read(&args, &a, err);
	cli_args_free(&args);
	if (!ok)
		return -1;
	char *buf = NULL, *ebuf = NULL;
	size_t len = 0, elen = 0;
	struct cli_ctx ctx = {.app = app, .out = open_memstream(&buf, &len),
			      .err = open_memstream(&ebuf, &elen)};
	int rc = 0;
	if (!ctx.out || !ctx.err)
		rc = crate_err_set(err, CRATE_ERR_IO, "search: %s", strerror(errno));
	bool in_query;
	if (rc == 0)
		rc = search_run(&ctx, app, &a, err, &in_query);
	if (ctx.out && fclose(ctx.out) != 0 && rc == 0)
		rc = crate_err_set(err, CRATE_ERR_IO, "search: %s", strerror(errno));
	if (ctx.err && fclose(ctx.err) != 0 && rc == 0)
		rc = crate_err_set(err, CRATE_ERR_IO, "search: %s", strerror(errno));
	/* stderr's lines first, each marked: the launcher prints them there */
	for (size_t i = 0; rc == 0 && i < elen;) {
		const char *nl = memchr(ebuf + i, '\n', elen - i);
		size_t end = nl ? (size_t)(nl - ebuf) + 1 : elen;
		strbuf_addc(out, err_mark);
		strbuf_add(out, ebuf + i, end - i);
		if (!nl)
			strbuf_addc(out, '\n');
		i = end;
	}
	if (rc == 0)
		strbuf_add(out, buf, len);
	free(buf);
	free(ebuf);
	free(a.query);
	return rc;
}

