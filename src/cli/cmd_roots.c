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
#include "cli/output.h"
#include "coll/eval.h"
#include "medialib/roots.h"

/* "Forget N items?": yes with --yes; asked on a terminal; refused otherwise. */
static bool confirmed(bool yes, size_t n, const char *what)
{
	if (yes || n == 0)
		return true;
	if (!isatty(0) || !isatty(2)) {
		cli_error("this would forget %zu item%s %s from the library (the files stay); "
			  "add --yes to do it", n, n == 1 ? "" : "s", what);
		return false;
	}
	fprintf(stderr, "Forget %zu item%s %s from the library (the files stay)? [y/N] ", n,
		n == 1 ? "" : "s", what);
	char line[16];
	return fgets(line, sizeof line, stdin) && (line[0] == 'y' || line[0] == 'Y');
}

static int forget_ids(struct app *app, const struct u32vec *ids)
{
	size_t n = 0;
	struct crate_err err = {0};
	if (app_forget(app, ids->v, ids->n, &n, &err) != 0)
		return cli_fail_safe(err.msg);
	fprintf(stderr, "forgot %zu item%s\n", n, n == 1 ? "" : "s");
	return CLI_OK;
}

static int cmd_roots(struct cli_ctx *ctx, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return cli_usage(cli_find("roots"));
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	char **v;
	size_t n;
	struct crate_err err = {0};
	if (mlib_roots_list(app->db, &v, &n, &err) != 0)
		return cli_fail_safe(err.msg);
	for (size_t i = 0; i < n; i++) {
		cli_put_safe(stdout, v[i], strlen(v[i]));
		putchar('\n');
	}
	mlib_roots_free(v, n);
	return CLI_OK;
}

static int cmd_roots_remove(struct cli_ctx *ctx, int argc, char **argv)
{
	bool yes = false, keep = false;
	const char *dir = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--yes") == 0 || strcmp(argv[i], "-y") == 0)
			yes = true;
		else if (strcmp(argv[i], "--keep") == 0)
			keep = true;
		else if (!dir)
			dir = argv[i];
		else
			return cli_usage(cli_find("roots remove"));
	}
	if (!dir)
		return cli_usage(cli_find("roots remove"));
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	/* A root that is gone is named as it was recorded. */
	char *abs = realpath(dir, NULL);
	const char *root = abs ? abs : dir;
	struct crate_err err = {0};
	char **v;
	size_t n;
	bool known = false;
	if (mlib_roots_list(app->db, &v, &n, &err) != 0) {
		free(abs);
		return cli_fail_safe(err.msg);
	}
	for (size_t i = 0; i < n && !known; i++)
		known = strcmp(v[i], root) == 0;
	mlib_roots_free(v, n);
	int status = CLI_OK;
	struct u32vec ids = {0};
	if (!known) {
		char *msg = xasprintf("%s: not a scanned folder (crate roots lists them)", root);
		status = cli_fail_safe(msg);
		free(msg);
	} else if (!keep && app_items_under(app, root, &ids, &err) != 0) {
		status = cli_fail_safe(err.msg);
	} else if (!keep && !confirmed(yes, ids.n, "under it")) {
		status = CLI_FAIL;
	} else if (app_root_remove(app, root, &err) != 0) {
		status = cli_fail_safe(err.msg);
	} else if (!keep) {
		status = forget_ids(app, &ids);
	}
	u32vec_free(&ids);
	free(abs);
	return status;
}

static int cmd_forget(struct cli_ctx *ctx, int argc, char **argv)
{
	bool yes = false;
	char **words = xcalloc((size_t)argc + 1, sizeof *words);
	int nwords = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--yes") == 0 || strcmp(argv[i], "-y") == 0)
			yes = true;
		else
			words[nwords++] = argv[i];
	}
	if (nwords == 0) {
		free(words);
		return cli_usage(cli_find("forget"));
	}
	char *query = cli_join_args(words, nwords);
	free(words);
	struct app *app = cli_app(ctx);
	int status = CLI_FAIL;
	struct crate_err err = {0};
	struct coll_node *n = app ? app_parse_query(app, query, false, &err) : NULL;
	struct coll_result r = {0};
	if (!app) {
		/* cli_app printed why */
	} else if (!n) {
		status = cli_fail_query(query, &err);
	} else if (app_eval_node(app, n, &r, &err) != 0) {
		status = cli_fail_safe(err.msg);
	} else if (r.ids.n == 0) {
		fprintf(stderr, "nothing matches; nothing forgotten\n");
		status = CLI_OK;
	} else if (confirmed(yes, r.ids.n, "matching the query")) {
		status = forget_ids(app, &r.ids);
	}
	coll_result_free(&r);
	coll_node_unref(n);
	free(query);
	return status;
}

const struct cli_command cli_roots_commands[] = {
	{"roots remove", "roots remove [--yes] [--keep] DIR",
	 "stop watching a scanned folder and forget its items (--keep: keep them)",
	 cmd_roots_remove},
	{"roots", "roots", "the scanned folders (watched while the interface runs)", cmd_roots},
	{"forget", "forget [--yes] QUERY",
	 "remove the matching items from the library (files are not touched)", cmd_forget},
	{NULL, NULL, NULL, NULL},
};
