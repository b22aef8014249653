/* Commands of the "roots" group: the scanned folders, and forgetting
 * items. Forgetting never touches files; it asks first (or takes --yes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/cmd_util.h"
#include "cli/output.h"
#include "coll/eval.h"
#include "coll/search.h"
#include "medialib/roots.h"

/* "Forget N items?": yes with --yes; asked on a terminal; refused otherwise. */
static bool confirmed(struct cli_ctx *ctx, bool yes, size_t n, const char *what)
{
	if (yes || n == 0)
		return true;
	/* Asked only with a person at a terminal (never in the interface,
	 * whose ctx->err is its message line). */
	if (!isatty(0) || !isatty(fileno(ctx->err))) {
		cli_error(ctx, "this would forget %zu item%s %s from the library (the files stay); "
			  "add --yes to do it", n, n == 1 ? "" : "s", what);
		return false;
	}
	fprintf(ctx->err, "Forget %zu item%s %s from the library (the files stay)? [y/N] ", n,
		n == 1 ? "" : "s", what);
	char line[16];
	return fgets(line, sizeof line, stdin) && (line[0] == 'y' || line[0] == 'Y');
}

static int forget_ids(struct cli_ctx *ctx, struct app *app, const struct u32vec *ids)
{
	size_t n = 0;
	struct crate_err err = {0};
	if (app_forget(app, ids->v, ids->n, &n, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	fprintf(ctx->err, "forgot %zu item%s\n", n, n == 1 ? "" : "s");
	return CLI_OK;
}

static int cmd_roots(struct cli_ctx *ctx, const struct cli_args *a)
{
	(void)a;
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	char **v;
	size_t n;
	struct crate_err err = {0};
	if (mlib_roots_list(app->db, &v, &n, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	for (size_t i = 0; i < n; i++) {
		cli_put_safe(ctx->out, v[i], strlen(v[i]));
		fputc('\n', ctx->out);
	}
	mlib_roots_free(v, n);
	return CLI_OK;
}

static int cmd_roots_remove(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool yes = cli_flag(a, "yes"), keep = cli_flag(a, "keep");
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	/* A root that is gone is named as it was recorded, or relatively. */
	char *dir = cli_path_arg(ctx, a->argv[0]);
	char *abs = str_abs_path(dir);
	if (abs) {
		free(dir);
		dir = abs;
	}
	const char *root = dir;
	struct crate_err err = {0};
	char **v;
	size_t n;
	bool known = false;
	if (mlib_roots_list(app->db, &v, &n, &err) != 0) {
		free(dir);
		return cli_fail_safe(ctx, err.msg);
	}
	for (size_t i = 0; i < n && !known; i++)
		known = strcmp(v[i], root) == 0;
	mlib_roots_free(v, n);
	int status = CLI_OK;
	struct u32vec ids = {0};
	if (!known) {
		char *msg = xasprintf("%s: not a scanned folder (crate roots lists them)", root);
		status = cli_fail_safe(ctx, msg);
		free(msg);
	} else if (!keep && app_items_under(app, root, &ids, &err) != 0) {
		status = cli_fail_safe(ctx, err.msg);
	} else if (!keep && !confirmed(ctx, yes, ids.n, "under it")) {
		status = CLI_FAIL;
	} else if (app_root_remove(app, root, &err) != 0) {
		status = cli_fail_safe(ctx, err.msg);
	} else if (!keep) {
		status = forget_ids(ctx, app, &ids);
	} else { /* said, as every command that changes something says it */
		fputs("removed the root ", ctx->err);
		cli_put_safe(ctx->err, root, strlen(root));
		fputs(": its items stay in the library (a plain crate scan still looks at them)\n",
		      ctx->err);
	}
	u32vec_free(&ids);
	free(dir);
	return status;
}

/* forget takes its query as written, never forgiven as search's (what it
 * removes must be what was meant). When crate search would forgive it to
 * tracks, "nothing matches" beside that search's list needs the reason. */
static int nothing_forgotten(struct cli_ctx *ctx, struct app *app, const char *query)
{
	struct coll_result r = {0};
	struct strbuf notes;
	strbuf_init(&notes, 64);
	struct crate_err err = {0};
	size_t n = app_search_text(app, query, COLL_SEARCH_NO_RANK, &r, &notes, &err) == 0
			   ? r.ids.n : 0;
	coll_result_free(&r);
	strbuf_free(&notes);
	if (n == 0)
		return cli_nothing_matches(ctx, query, "nothing forgotten");
	return cli_error(ctx,
			 "nothing matches '%s' as written: nothing forgotten (forget never "
			 "forgives a query; crate search forgives this one to %zu track%s)",
			 query, n, n == 1 ? "" : "s");
}

static int cmd_forget(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool yes = cli_flag(a, "yes");
	char *query = cli_join_args(a->argv, a->argc);
	struct app *app = cli_app(ctx);
	int status = CLI_FAIL;
	struct crate_err err = {0};
	struct coll_node *n = app ? app_parse_query(app, query, false, &err) : NULL;
	struct coll_result r = {0};
	if (!app) {
		/* cli_app printed why */
	} else if (!n) {
		status = cli_fail_query(ctx, query, &err);
	} else if (app_eval_node(app, n, &r, &err) != 0) {
		status = cli_fail_safe(ctx, err.msg);
	} else if (r.ids.n == 0) {
		status = nothing_forgotten(ctx, app, query);
	} else if (confirmed(ctx, yes, r.ids.n, "matching the query")) {
		status = forget_ids(ctx, app, &r.ids);
	}
	coll_result_free(&r);
	coll_node_unref(n);
	free(query);
	return status;
}

#define YES_OPT {"yes", 'y', CLI_OPT_FLAG, NULL, "do not ask (needed when not at a terminal)"}
static const struct cli_opt remove_opts[] = {
	YES_OPT,
	{"keep", 0, CLI_OPT_FLAG, NULL, "keep the folder's items in the library"},
	{0},
};
static const struct cli_opt forget_opts[] = {YES_OPT, {0}};

static const struct cli_command roots_commands[] = {
	{"roots remove", NULL, "roots remove [--yes] [--keep] DIR",
	 "stop watching a scanned folder and forget its items (--keep: keep them)",
	 "Files are never touched. Forgetting asks first at a terminal.", 1, 1, 0, remove_opts,
	 cmd_roots_remove},
	{"roots", NULL, "roots", "the scanned folders (watched while the interface runs)", NULL, 0,
	 0, 0, NULL, cmd_roots},
	{"forget", NULL, "forget [--yes] QUERY",
	 "remove the matching items from the library (files are not touched)",
	 "Asks first at a terminal; elsewhere it needs --yes.", 1, CLI_ANY, CLI_DASH_ARGS,
	 forget_opts, cmd_forget},
	{0},
};

const struct cli_group cli_roots_group = {"roots", "scanned folders and forgetting items",
					  roots_commands};
