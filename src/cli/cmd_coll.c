/* Commands of the "coll" group, in the spirit of xmms2's collection
 * commands: coll save/show/list/rename/remove/export/import, and the
 * browser levels a collection may have of its own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_read.h"
#include "app/app_view.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/cmd_util.h"
#include "cli/output.h"
#include "coll/json.h"
#include "coll/parse.h"
#include "coll/store.h"

/* Split a full name, printing the error. */
static int split_arg(struct cli_ctx *ctx, const char *full, char **ns, char **name)
{
	struct crate_err err = {0};
	if (coll_name_split(full, ns, name, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	return 0;
}

/* The saved collection a NAME argument names; NULL (after saying why) when
 * there is none. Borrowed from the store. */
static const struct coll_node *saved_arg(struct cli_ctx *ctx, const char *full)
{
	char *ns, *name;
	if (split_arg(ctx, full, &ns, &name) != 0)
		return NULL;
	const struct coll_node *n = NULL;
	struct app *app = cli_app(ctx);
	if (app && !(n = app_coll_resolve(app, ns, name))) {
		/* "P" for a playlist: the name alone means Collections/P */
		bool playlist = !strchr(full, '/') && app_coll_resolve(app, COLL_NS_PLAYLISTS, name);
		char *msg = playlist ? xasprintf("%s/%s does not exist (%s/%s does: name it so)", ns,
						 name, COLL_NS_PLAYLISTS, name)
				     : xasprintf("%s/%s does not exist", ns, name);
		cli_fail_safe(ctx, msg);
		free(msg);
	}
	free(ns);
	free(name);
	return n;
}

static int cmd_coll_save(struct cli_ctx *ctx, const struct cli_args *a)
{
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	char *ns, *name;
	if (split_arg(ctx, a->argv[0], &ns, &name) != 0)
		return CLI_FAIL;
	bool existed = app_coll_resolve(app, ns, name) != NULL;
	char *query = cli_join_args(a->argv + 1, a->argc - 1);
	struct crate_err err = {0};
	int status = CLI_OK;
	if (app_coll_save_query(app, a->argv[0], query, &err) != 0)
		status = cli_fail_query(ctx, query, &err);
	else /* a save replaces: say so, the interface's s asks first */
		cli_say(ctx, "%s %s/%s", existed ? "replaced" : "saved", ns, name);
	free(query);
	free(ns);
	free(name);
	return status;
}

static int cmd_coll_show(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool json = cli_flag(a, "json");
	const struct coll_node *n = saved_arg(ctx, a->argv[0]);
	if (!n)
		return CLI_FAIL;
	/* The canonical query when the collection has one, else its JSON. */
	struct crate_err err = {0};
	char *text = json ? NULL : coll_print(n, &err);
	if (text) {
		cli_put_safe(ctx->out, text, strlen(text));
		fputc('\n', ctx->out);
	} else {
		text = coll_to_json(n, true);
		fputs(text, ctx->out);
	}
	free(text);
	return CLI_OK;
}

static void list_ns(struct cli_ctx *ctx, struct app *app, const char *ns, bool prefix)
{
	char **names;
	size_t n = app_coll_list(app, ns, &names);
	for (size_t i = 0; i < n; i++) {
		if (prefix)
			fprintf(ctx->out, "%s/", ns);
		cli_put_safe(ctx->out, names[i], strlen(names[i]));
		fputc('\n', ctx->out);
		free(names[i]);
	}
	free(names);
}

static int cmd_coll_list(struct cli_ctx *ctx, const struct cli_args *a)
{
	const char *ns = a->argc == 1 ? a->argv[0] : NULL;
	if (ns && strcmp(ns, COLL_NS_COLLECTIONS) != 0 && strcmp(ns, COLL_NS_PLAYLISTS) != 0)
		return cli_fail_safe(ctx, "unknown namespace (Collections or Playlists)");
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	if (ns) {
		list_ns(ctx, app, ns, false);
	} else {
		list_ns(ctx, app, COLL_NS_COLLECTIONS, true);
		list_ns(ctx, app, COLL_NS_PLAYLISTS, true);
	}
	return CLI_OK;
}

static int cmd_coll_rename(struct cli_ctx *ctx, const struct cli_args *a)
{
	const char *old_arg = a->argv[0], *new_arg = a->argv[1];
	char *ns = NULL, *name = NULL, *ns2 = NULL, *name2 = NULL;
	int status = CLI_FAIL;
	if (split_arg(ctx, old_arg, &ns, &name) != 0)
		goto out;
	/* NEW may repeat the namespace, or leave it out (same as OLD's). */
	if (strchr(new_arg, '/')) {
		if (split_arg(ctx, new_arg, &ns2, &name2) != 0)
			goto out;
		if (strcmp(ns, ns2) != 0) {
			cli_error(ctx, "rename cannot move a collection between namespaces");
			goto out;
		}
	} else {
		name2 = xstrdup(new_arg);
	}
	struct app *app = cli_app(ctx);
	if (!app)
		goto out;
	struct crate_err err = {0};
	status = cli_outcome(ctx, app_coll_rename(app, ns, name, name2, &err), &err);
	if (status == CLI_OK)
		cli_say(ctx, "renamed %s/%s to %s/%s", ns, name, ns, name2);
out:
	free(ns);
	free(name);
	free(ns2);
	free(name2);
	return status;
}

static int cmd_coll_remove(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool force = cli_flag(a, "force");
	const char *full = a->argv[0];
	char *ns, *name;
	if (split_arg(ctx, full, &ns, &name) != 0)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? cli_outcome(ctx, app_coll_remove(app, ns, name, force, &err), &err)
			 : CLI_FAIL;
	if (status == CLI_OK)
		cli_say(ctx, "removed %s/%s", ns, name);
	free(ns);
	free(name);
	return status;
}

/* coll levels NAME: show the collection's own browser levels; with
 * PROPERTY...: set them; --clear: back to browser.levels. */
static int cmd_coll_levels(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool clear = cli_flag(a, "clear");
	char *ns, *name;
	if (clear && a->argc > 1)
		return cli_fail_safe(ctx, "coll levels: --clear takes no properties");
	if (split_arg(ctx, a->argv[0], &ns, &name) != 0)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = CLI_FAIL;
	if (!app)
		goto out;
	if (!clear && a->argc == 1 && !app_coll_resolve(app, ns, name)) {
		crate_err_set(&err, CRATE_ERR_NOTFOUND, "%s/%s does not exist", ns, name);
		status = cli_outcome(ctx, -1, &err);
	} else if (clear || a->argc > 1) {
		char *text = clear ? NULL : cli_join_args(a->argv + 1, a->argc - 1);
		status = cli_outcome(ctx, app_coll_levels_set(app, ns, name, text, &err), &err);
		if (status == CLI_OK && text)
			cli_say(ctx, "%s/%s is browsed by %s", ns, name, text);
		else if (status == CLI_OK)
			cli_say(ctx, "%s/%s is browsed by browser.levels", ns, name);
		free(text);
	} else {
		char *own = NULL;
		status = cli_outcome(ctx, app_coll_levels_get(app, ns, name, &own, &err), &err);
		if (status == CLI_OK && own)
			fprintf(ctx->out, "%s\n", own);
		else if (status == CLI_OK)
			fprintf(ctx->out, "(none: browser.levels applies)\n");
		free(own);
	}
out:
	free(ns);
	free(name);
	return status;
}

static int cmd_coll_export(struct cli_ctx *ctx, const struct cli_args *a)
{
	const struct coll_node *n = saved_arg(ctx, a->argv[0]);
	if (!n)
		return CLI_FAIL;
	char *text = coll_to_json(n, true);
	char *path = a->argc == 2 && strcmp(a->argv[1], "-") != 0 ? cli_path_arg(ctx, a->argv[1])
								   : NULL;
	int status = CLI_OK;
	if (!path) {
		fputs(text, ctx->out);
	} else {
		int e = cli_write_file(path, text, strlen(text));
		if (e) {
			char *msg = xasprintf("%s: %s", path, strerror(e));
			status = cli_fail_safe(ctx, msg);
			free(msg);
		} else {
			char *ns = NULL, *name = NULL;
			if (split_arg(ctx, a->argv[0], &ns, &name) == 0)
				cli_say(ctx, "exported %s/%s to %s", ns, name, a->argv[1]);
			free(ns);
			free(name);
		}
	}
	free(path);
	free(text);
	return status;
}

static int cmd_coll_import(struct cli_ctx *ctx, const struct cli_args *a)
{
	const char *name_arg = a->argv[0];
	char *ns, *name;
	if (split_arg(ctx, name_arg, &ns, &name) != 0)
		return CLI_FAIL;
	char *file = cli_path_arg(ctx, a->argv[1]);
	int status = CLI_FAIL;
	struct crate_err err = {0};
	size_t len = 0;
	char *text = cli_read_file(file, &len, &err);
	struct coll_node *n = NULL;
	if (!text) {
		cli_fail_safe(ctx, err.msg);
		goto out;
	}
	n = coll_from_json(text, len, &err);
	if (!n) {
		crate_err_prefix(&err, "%s: ", strcmp(file, "-") == 0 ? "stdin" : file);
		cli_fail_safe(ctx, err.msg);
		goto out;
	}
	struct app *app = cli_app(ctx);
	if (!app)
		goto out;
	/* As playlist import: a file must not silently take the place of a
	 * saved one (which other collections may use). */
	if (!cli_flag(a, "force") && app_coll_resolve(app, ns, name)) {
		crate_err_set(&err, CRATE_ERR_EXISTS,
			      "%s/%s exists (remove it first, or import with --force)", ns, name);
		status = cli_outcome(ctx, -1, &err);
		goto out;
	}
	if (app_queue_name_take(ns, name, n, &err) != 0) {
		status = cli_outcome(ctx, -1, &err);
		goto out;
	}
	bool existed = app_coll_resolve(app, ns, name) != NULL;
	status = cli_outcome(ctx, app_coll_save_node(app, name_arg, n, NULL, &err), &err);
	if (status == CLI_OK)
		cli_say(ctx, "%s %s/%s from %s", existed ? "replaced" : "saved", ns, name,
			strcmp(file, "-") == 0 ? "stdin" : a->argv[1]);
out:
	coll_node_unref(n);
	free(text);
	free(file);
	free(ns);
	free(name);
	return status;
}


static const struct cli_opt show_opts[] = {
	{"json", 0, CLI_OPT_FLAG, NULL, "the collection as JSON even when it has a query"},
	{0},
};
static const struct cli_opt remove_opts[] = {
	{"force", 'f', CLI_OPT_FLAG, NULL, "collections that use it get a copy of it"},
	{0},
};

static const struct cli_opt import_opts[] = {
	{"force", 'f', CLI_OPT_FLAG, NULL, "replace a collection or playlist of that name"},
	{0},
};

static const struct cli_opt levels_opts[] = {
	{"clear", 0, CLI_OPT_FLAG, NULL, "drop its own levels: browser.levels applies"},
	{0},
};

static const struct cli_command coll_commands[] = {
	{"coll save", NULL, "coll save NAME QUERY", "save a query as a collection (replaces)",
	 "NAME is \"Rock 90s\" or \"Collections/Rock 90s\"; the words after it are the query.",
	 2, CLI_ANY, CLI_DASH_ARGS, NULL, cmd_coll_save},
	{"coll show", NULL, "coll show [--json] NAME", "a saved collection as a query (or JSON)",
	 NULL, 1, 1, 0, show_opts, cmd_coll_show},
	{"coll list", NULL, "coll list [NAMESPACE]", "saved collections and playlists",
	 "NAMESPACE is Collections or Playlists; without it both, with their namespace.", 0, 1,
	 0, NULL, cmd_coll_list},
	{"coll rename", NULL, "coll rename OLD NEW", "rename, rewriting every reference", NULL, 2,
	 2, 0, NULL, cmd_coll_rename},
	{"coll remove", NULL, "coll remove [--force] NAME",
	 "remove (--force: users get a copy of it)",
	 "A collection that others use is kept unless --force.", 1, 1, 0, remove_opts,
	 cmd_coll_remove},
	{"coll levels", NULL, "coll levels [--clear] NAME [PROPERTY...]",
	 "the browser's columns for this collection",
	 "1 to 3 properties, outermost first (genre album; year album; composer work); without "
	 "them, shows the collection's own; --clear goes back to the option browser.levels.",
	 1, CLI_ANY, 0, levels_opts, cmd_coll_levels},
	{"coll export", NULL, "coll export NAME [FILE]", "write a collection as JSON",
	 "Without FILE (or with -) to standard output.", 1, 2, 0, NULL, cmd_coll_export},
	{"coll import", NULL, "coll import [--force] NAME FILE",
	 "save a collection from JSON (- = stdin)",
	 "A collection or playlist of that name is kept unless --force (which replaces it; "
	 "collections that use it then see the new one).",
	 2, 2, 0, import_opts, cmd_coll_import},
	{0},
};

const struct cli_group cli_coll_group = {"coll", "saved collections", coll_commands};
