/* Commands of the "coll" group, in the spirit of xmms2's collection
 * commands: search, coll save/show/list/rename/remove/export/import,
 * playlist new/add/insert/move/remove/list/clear/shuffle/sort/use, pshuffle. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_plfile.h"
#include "app/app_stream.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "coll/json.h"
#include "coll/parse.h"
#include "coll/search.h"
#include "coll/store.h"
#include "medialib/index.h"

/* ---- argument helpers ---- */

static bool parse_count(const char *s, long min, long *out)
{
	int64_t v;
	if (!str_parse_int64(s, strlen(s), &v) || v < min || v > INT32_MAX)
		return false;
	*out = (long)v;
	return true;
}

/* A playlist argument: "Road Trip" or "Playlists/Road Trip". Owned. */
static char *playlist_arg(const char *arg)
{
	char *ns, *name;
	struct crate_err err = {0};
	if (str_has_prefix(arg, COLL_NS_PLAYLISTS "/"))
		arg += strlen(COLL_NS_PLAYLISTS "/");
	else if (strchr(arg, '/') && coll_name_split(arg, &ns, &name, &err) == 0) {
		char *msg = xasprintf("%s/%s is not a playlist (playlists live in Playlists/)", ns,
				      name);
		cli_fail_safe(msg);
		free(msg);
		free(ns);
		free(name);
		return NULL;
	}
	if (!*arg) {
		cli_error("empty playlist name");
		return NULL;
	}
	return xstrdup(arg);
}

/* Positions text ("3", "1,4-6", "5-"): only digits, commas and dashes. */
static bool looks_like_positions(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == ',' || *s == '-'))
			return false;
	return true;
}

static int fail_err(const struct crate_err *err)
{
	return cli_fail_safe(err->msg);
}

/* The exit status of an app call that returned rc, printing its error. */
static int outcome(int rc, const struct crate_err *err)
{
	return rc == 0 ? CLI_OK : fail_err(err);
}

/* ---- search ---- */

/* `search`'s arguments. */
struct search_args {
	struct cli_items_out o;
	const char *order;
	long limit; /* -1: none */
	unsigned flags; /* COLL_SEARCH_*: --order library, --exact */
	char *query; /* owned */
};

enum { SEARCH_ARGS_OK, SEARCH_ARGS_USAGE, SEARCH_ARGS_BAD_LIMIT };

/* Read argv (argv[0] is "search") into a; the query is joined from the
 * words. On SEARCH_ARGS_BAD_LIMIT *bad is the offending text. */
static int search_args_parse(int argc, char **argv, struct search_args *a, const char **bad)
{
	*a = (struct search_args){.o = {.current = -1}, .limit = -1};
	char **words = xcalloc((size_t)argc + 1, sizeof *words);
	int nwords = 0;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "--json") == 0) {
			a->o.json = true;
		} else if (strcmp(s, "--format") == 0 && i + 1 < argc) {
			a->o.fmt = argv[++i];
		} else if (strcmp(s, "--order") == 0 && i + 1 < argc) {
			a->order = argv[++i];
			if (strcmp(a->order, "library") == 0) { /* the order before ranking */
				a->flags |= COLL_SEARCH_NO_RANK;
				a->order = NULL;
			}
		} else if (strcmp(s, "--exact") == 0) {
			a->flags |= COLL_SEARCH_EXACT;
		} else if (strcmp(s, "--limit") == 0 && i + 1 < argc) {
			if (!parse_count(argv[++i], 0, &a->limit)) {
				*bad = argv[i];
				free(words);
				return SEARCH_ARGS_BAD_LIMIT;
			}
		} else if (strcmp(s, "--") == 0) {
			while (++i < argc)
				words[nwords++] = argv[i];
		} else if (s[0] == '-' && s[1] == '-') {
			free(words);
			return SEARCH_ARGS_USAGE;
		} else {
			words[nwords++] = argv[i];
		}
	}
	if (nwords == 0) {
		free(words);
		return SEARCH_ARGS_USAGE;
	}
	a->query = cli_join_args(words, nwords);
	free(words);
	return SEARCH_ARGS_OK;
}

/* Evaluate a's query and print the items to a->o.out. -1 with *err (and
 * *in_query when the query text itself is at fault) prints nothing. */
static int search_run(struct app *app, const struct search_args *a, struct crate_err *err,
		      bool *in_query)
{
	*in_query = false;
	struct coll_node *n = app_parse_query(app, a->query, false, err);
	if (!n) {
		*in_query = true;
		return -1;
	}
	if (a->order) {
		struct coll_node *o2 = app_order_by(n, a->order, err);
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
	 * stderr when printing to stdout (a running crate answering for the
	 * launcher prints the items only) */
	struct coll_result r = {0};
	struct strbuf notes;
	strbuf_init(&notes, 64);
	int rc = app_search(app, n, a->query, a->flags, &r, &notes, err);
	if (rc == 0) {
		if (notes.len && !a->o.out)
			cli_fail_safe(notes.buf);
		struct cli_items_out o = a->o;
		o.sep = config_get(app->cfg, "display.separator", NULL);
		cli_print_items(app->index, r.ids.v, r.ids.n, &o);
	}
	strbuf_free(&notes);
	coll_result_free(&r);
	coll_node_unref(n);
	return rc;
}

static int cmd_search(struct cli_ctx *ctx, int argc, char **argv)
{
	struct search_args a;
	const char *bad = NULL;
	switch (search_args_parse(argc, argv, &a, &bad)) {
	case SEARCH_ARGS_USAGE:
		return cli_usage(cli_find("search"));
	case SEARCH_ARGS_BAD_LIMIT:
		return cli_error("--limit needs a count (0 or more), not '%s'", bad);
	}
	struct app *app = cli_app(ctx);
	int status = CLI_FAIL;
	if (app) {
		struct crate_err err = {0};
		bool in_query;
		status = CLI_OK;
		if (search_run(app, &a, &err, &in_query) != 0)
			status = in_query ? cli_fail_query(a.query, &err) : fail_err(&err);
	}
	free(a.query);
	return status;
}

int cli_search_to_buffer(struct app *app, int argc, char **argv, struct strbuf *out,
			 struct crate_err *err)
{
	struct search_args a;
	const char *bad = NULL;
	if (search_args_parse(argc, argv, &a, &bad) != SEARCH_ARGS_OK)
		return crate_err_set(err, CRATE_ERR_INVALID, "search: bad arguments");
	char *buf = NULL;
	size_t len = 0;
	a.o.out = open_memstream(&buf, &len);
	if (!a.o.out) {
		free(a.query);
		return crate_err_set(err, CRATE_ERR_IO, "search: %s", strerror(errno));
	}
	bool in_query;
	int rc = search_run(app, &a, err, &in_query);
	if (fclose(a.o.out) != 0 && rc == 0)
		rc = crate_err_set(err, CRATE_ERR_IO, "search: %s", strerror(errno));
	if (rc == 0)
		strbuf_add(out, buf, len);
	free(buf);
	free(a.query);
	return rc;
}

/* ---- coll ---- */

/* Split a full name, printing the error. */
static int split_arg(const char *full, char **ns, char **name)
{
	struct crate_err err = {0};
	if (coll_name_split(full, ns, name, &err) != 0)
		return fail_err(&err);
	return 0;
}

/* The saved collection a NAME argument names; NULL (after saying why) when
 * there is none. Borrowed from the store. */
static const struct coll_node *saved_arg(struct cli_ctx *ctx, const char *full)
{
	char *ns, *name;
	if (split_arg(full, &ns, &name) != 0)
		return NULL;
	const struct coll_node *n = NULL;
	struct app *app = cli_app(ctx);
	if (app && !(n = coll_store_resolve(app->store, ns, name))) {
		char *msg = xasprintf("%s/%s does not exist", ns, name);
		cli_fail_safe(msg);
		free(msg);
	}
	free(ns);
	free(name);
	return n;
}

static int cmd_coll_save(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc < 3)
		return cli_usage(cli_find("coll save"));
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	char *query = cli_join_args(argv + 2, argc - 2);
	struct crate_err err = {0};
	int status = CLI_OK;
	if (app_coll_save_query(app, argv[1], query, &err) != 0)
		status = cli_fail_query(query, &err);
	free(query);
	return status;
}

static int cmd_coll_show(struct cli_ctx *ctx, int argc, char **argv)
{
	bool json = false;
	const char *full = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (!full)
			full = argv[i];
		else
			return cli_usage(cli_find("coll show"));
	}
	if (!full)
		return cli_usage(cli_find("coll show"));
	const struct coll_node *n = saved_arg(ctx, full);
	if (!n)
		return CLI_FAIL;
	/* The canonical query when the collection has one, else its JSON. */
	struct crate_err err = {0};
	char *text = json ? NULL : coll_print(n, &err);
	if (text) {
		cli_put_safe(stdout, text, strlen(text));
		putchar('\n');
	} else {
		text = coll_to_json(n, true);
		fputs(text, stdout);
	}
	free(text);
	return CLI_OK;
}

static void list_ns(const struct coll_store *st, const char *ns, bool prefix)
{
	char **names;
	size_t n = coll_store_list(st, ns, &names);
	for (size_t i = 0; i < n; i++) {
		if (prefix)
			printf("%s/", ns);
		cli_put_safe(stdout, names[i], strlen(names[i]));
		putchar('\n');
		free(names[i]);
	}
	free(names);
}

static int cmd_coll_list(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc > 2)
		return cli_usage(cli_find("coll list"));
	const char *ns = argc == 2 ? argv[1] : NULL;
	if (ns && strcmp(ns, COLL_NS_COLLECTIONS) != 0 && strcmp(ns, COLL_NS_PLAYLISTS) != 0)
		return cli_fail_safe("unknown namespace (Collections or Playlists)");
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	if (ns) {
		list_ns(app->store, ns, false);
	} else {
		list_ns(app->store, COLL_NS_COLLECTIONS, true);
		list_ns(app->store, COLL_NS_PLAYLISTS, true);
	}
	return CLI_OK;
}

static int cmd_coll_rename(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc != 3)
		return cli_usage(cli_find("coll rename"));
	char *ns = NULL, *name = NULL, *ns2 = NULL, *name2 = NULL;
	int status = CLI_FAIL;
	if (split_arg(argv[1], &ns, &name) != 0)
		goto out;
	/* NEW may repeat the namespace, or leave it out (same as OLD's). */
	if (strchr(argv[2], '/')) {
		if (split_arg(argv[2], &ns2, &name2) != 0)
			goto out;
		if (strcmp(ns, ns2) != 0) {
			cli_error("rename cannot move a collection between namespaces");
			goto out;
		}
	} else {
		name2 = xstrdup(argv[2]);
	}
	struct app *app = cli_app(ctx);
	if (!app)
		goto out;
	struct crate_err err = {0};
	status = outcome(app_coll_rename(app, ns, name, name2, &err), &err);
out:
	free(ns);
	free(name);
	free(ns2);
	free(name2);
	return status;
}

static int cmd_coll_remove(struct cli_ctx *ctx, int argc, char **argv)
{
	bool force = false;
	const char *full = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--force") == 0 || strcmp(argv[i], "-f") == 0)
			force = true;
		else if (!full)
			full = argv[i];
		else
			return cli_usage(cli_find("coll remove"));
	}
	if (!full)
		return cli_usage(cli_find("coll remove"));
	char *ns, *name;
	if (split_arg(full, &ns, &name) != 0)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? outcome(app_coll_remove(app, ns, name, force, &err), &err) : CLI_FAIL;
	free(ns);
	free(name);
	return status;
}

static int cmd_coll_export(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc < 2 || argc > 3)
		return cli_usage(cli_find("coll export"));
	const struct coll_node *n = saved_arg(ctx, argv[1]);
	if (!n)
		return CLI_FAIL;
	char *text = coll_to_json(n, true);
	const char *path = argc == 3 && strcmp(argv[2], "-") != 0 ? argv[2] : NULL;
	int status = CLI_OK;
	if (!path) {
		fputs(text, stdout);
	} else {
		FILE *f = fopen(path, "w");
		bool ok = f && fputs(text, f) != EOF;
		int e = errno;
		if (f && fclose(f) != 0 && ok) {
			ok = false;
			e = errno;
		}
		if (!ok) {
			char *msg = xasprintf("%s: %s", path, strerror(e));
			status = cli_fail_safe(msg);
			free(msg);
		}
	}
	free(text);
	return status;
}

static int cmd_coll_import(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc != 3)
		return cli_usage(cli_find("coll import"));
	char *ns, *name;
	if (split_arg(argv[1], &ns, &name) != 0)
		return CLI_FAIL;
	int status = CLI_FAIL;
	struct crate_err err = {0};
	size_t len = 0;
	char *text = cli_read_file(argv[2], &len, &err);
	struct coll_node *n = NULL;
	if (!text) {
		fail_err(&err);
		goto out;
	}
	n = coll_from_json(text, len, &err);
	if (!n) {
		crate_err_prefix(&err, "%s: ", strcmp(argv[2], "-") == 0 ? "stdin" : argv[2]);
		fail_err(&err);
		goto out;
	}
	struct app *app = cli_app(ctx);
	if (!app)
		goto out;
	status = outcome(coll_store_save(app->store, ns, name, n, &err), &err);
out:
	coll_node_unref(n);
	free(text);
	free(ns);
	free(name);
	return status;
}

/* ---- playlist ---- */

static int cmd_playlist_new(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *name_arg = NULL;
	bool queue = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--queue") == 0)
			queue = true;
		else if (!name_arg && argv[i][0] != '-')
			name_arg = argv[i];
		else
			return cli_usage(cli_find("playlist new"));
	}
	if (!name_arg)
		return cli_usage(cli_find("playlist new"));
	char *name = playlist_arg(name_arg);
	if (!name)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? outcome(app_playlist_new_typed(app, name, queue ? "queue" : NULL, &err),
				   &err)
			 : CLI_FAIL;
	free(name);
	return status;
}

/* add [NAME] QUERY / insert NAME POS QUERY */
static int playlist_add_common(struct cli_ctx *ctx, const char *cmdname, const char *name_arg,
			       long pos, char **qargv, int qargc)
{
	if (qargc < 1)
		return cli_usage(cli_find(cmdname));
	char *name = NULL;
	if (name_arg && !(name = playlist_arg(name_arg)))
		return CLI_FAIL;
	char *query = cli_join_args(qargv, qargc);
	int status = CLI_FAIL;
	struct app *app = cli_app(ctx);
	if (app) {
		struct crate_err err = {0};
		size_t added = 1;
		int rc = qargc == 1 && app_is_stream_url(qargv[0]) /* a radio stream */
				 ? app_playlist_add_stream(app, name, pos < 0 ? SIZE_MAX : (size_t)pos,
							   qargv[0], &err)
			 : pos < 0
				 ? app_playlist_add_query(app, name, query, &added, &err)
				 : app_playlist_insert_query(app, name, (size_t)pos, query, &added,
							     &err);
		if (rc != 0) {
			cli_fail_query(query, &err);
		} else {
			const char *shown_name = app_playlist_name(app, name);
			fprintf(stderr, "added %zu %s to Playlists/", added,
				added == 1 ? "entry" : "entries");
			cli_put_safe(stderr, shown_name, strlen(shown_name));
			fputc('\n', stderr);
			status = CLI_OK;
		}
	}
	free(query);
	free(name);
	return status;
}

static int cmd_playlist_add(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage(cli_find("playlist add"));
	/* Two or more words: the first names the playlist. */
	if (argc == 2)
		return playlist_add_common(ctx, "playlist add", NULL, -1, argv + 1, 1);
	return playlist_add_common(ctx, "playlist add", argv[1], -1, argv + 2, argc - 2);
}

static int cmd_playlist_insert(struct cli_ctx *ctx, int argc, char **argv)
{
	long pos;
	if (argc < 4)
		return cli_usage(cli_find("playlist insert"));
	if (!parse_count(argv[2], 1, &pos))
		return cli_error("'%s' is not a position (1 is the first entry)", argv[2]);
	return playlist_add_common(ctx, "playlist insert", argv[1], pos - 1, argv + 3, argc - 3);
}

static int cmd_playlist_move(struct cli_ctx *ctx, int argc, char **argv)
{
	long from, to;
	if (argc != 4)
		return cli_usage(cli_find("playlist move"));
	if (!parse_count(argv[2], 1, &from) || !parse_count(argv[3], 1, &to))
		return cli_error("positions are numbers from 1");
	char *name = playlist_arg(argv[1]);
	if (!name)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? outcome(app_playlist_move(app, name, (size_t)from - 1, (size_t)to - 1,
						     &err), &err)
			 : CLI_FAIL;
	free(name);
	return status;
}

static int cmd_playlist_remove(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage(cli_find("playlist remove"));
	int first = 1;
	char *name = NULL;
	if (argc >= 3 && !looks_like_positions(argv[1])) {
		if (!(name = playlist_arg(argv[1])))
			return CLI_FAIL;
		first = 2;
	}
	char *positions = cli_join_args(argv + first, argc - first);
	int status = CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	size_t removed;
	if (app) {
		if (app_playlist_remove_positions(app, name, positions, &removed, &err) != 0) {
			fail_err(&err);
		} else {
			fprintf(stderr, "removed %zu %s\n", removed, removed == 1 ? "entry" : "entries");
			status = CLI_OK;
		}
	}
	free(positions);
	free(name);
	return status;
}

static int cmd_playlist_list(struct cli_ctx *ctx, int argc, char **argv)
{
	struct cli_items_out o = {.numbered = true, .current = -1};
	const char *name_arg = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			o.json = true;
		else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
			o.fmt = argv[++i];
		else if (!name_arg && argv[i][0] != '-')
			name_arg = argv[i];
		else
			return cli_usage(cli_find("playlist list"));
	}
	char *name = NULL;
	if (name_arg && !(name = playlist_arg(name_arg)))
		return CLI_FAIL;
	int status = CLI_FAIL;
	struct app *app = cli_app(ctx);
	if (!app)
		goto out;
	const char *pl_name = app_playlist_name(app, name);
	const struct coll_node *pl = coll_store_get(app->store, COLL_NS_PLAYLISTS, pl_name);
	if (!pl) {
		char *msg = xasprintf("Playlists/%s does not exist", pl_name);
		cli_fail_safe(msg);
		free(msg);
		goto out;
	}
	const char *p = coll_attr_get(pl, "position");
	int64_t cur;
	if (p && str_parse_int64(p, strlen(p), &cur) && cur >= 0)
		o.current = (long)cur;
	o.sep = config_get(app->cfg, "display.separator", NULL);
	cli_print_items(app->index, pl->idlist.v, pl->idlist.n, &o);
	status = CLI_OK;
out:
	free(name);
	return status;
}

/* "m3u", "m3u8", "pls", "xspf" */
static enum plfile_format format_named(const char *s)
{
	return strcasecmp(s, "m3u") == 0 || strcasecmp(s, "m3u8") == 0 ? PLFILE_M3U
	       : strcasecmp(s, "pls") == 0				? PLFILE_PLS
	       : strcasecmp(s, "xspf") == 0				? PLFILE_XSPF
									: PLFILE_UNKNOWN;
}

/* import [--append] NAME FILE: entries not found are listed (exit 2). */
static int cmd_playlist_import(struct cli_ctx *ctx, int argc, char **argv)
{
	bool append = argc > 1 && strcmp(argv[1], "--append") == 0;
	if (argc != 3 + append)
		return cli_usage(cli_find("playlist import"));
	char *name = playlist_arg(argv[1 + append]);
	if (!name)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	struct app_import_report rep;
	int status = CLI_FAIL;
	if (app && app_playlist_import(app, name, argv[2 + append], append, &rep, &err) == 0) {
		for (size_t i = 0; i < rep.nproblems; i++) {
			char *msg = xasprintf("%s:%zu: %s", argv[2 + append], rep.problems[i].line,
					      rep.problems[i].what);
			cli_fail_safe(msg);
			free(msg);
		}
		fprintf(stderr, "Playlists/");
		cli_put_safe(stderr, name, strlen(name));
		fprintf(stderr, ": %zu of %zu entries imported (%zu newly scanned), %zu not found\n",
			rep.imported, rep.entries, rep.scanned, rep.nproblems);
		status = rep.nproblems ? CLI_PARTIAL : CLI_OK;
		app_import_report_free(&rep);
	} else if (app) {
		status = fail_err(&err);
	}
	free(name);
	return status;
}

/* export [--relative] [--format F] NAME [FILE] */
static int cmd_playlist_export(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_command *self = cli_find("playlist export");
	bool relative = false;
	const char *fmt_name = NULL;
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (strcmp(argv[i], "--relative") == 0)
			relative = true;
		else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
			fmt_name = argv[++i];
		else
			return cli_usage(self);
	}
	if (argc - i < 1 || argc - i > 2)
		return cli_usage(self);
	const char *path = argc - i == 2 && strcmp(argv[i + 1], "-") != 0 ? argv[i + 1] : NULL;
	enum plfile_format fmt = fmt_name ? format_named(fmt_name)
					  : path ? plfile_format_of_name(path) : PLFILE_M3U;
	if (fmt == PLFILE_UNKNOWN) {
		cli_error("playlist export: say --format m3u, pls or xspf (or name the file .m3u8, .pls, .xspf)");
		return CLI_FAIL;
	}
	if (relative && !path) {
		cli_error("playlist export: --relative needs a FILE to be relative to");
		return CLI_FAIL;
	}
	char *name = playlist_arg(argv[i]);
	if (!name)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	char *dir = NULL;
	if (relative) { /* the folder the file goes to */
		char *copy = xstrdup(path), *slash = strrchr(copy, '/');
		if (slash)
			*slash = '\0';
		dir = realpath(slash ? (copy[0] ? copy : "/") : ".", NULL);
		free(copy);
	}
	struct crate_err err = {0};
	struct strbuf b;
	strbuf_init(&b, 4096);
	int status = CLI_FAIL;
	if (relative && !dir) {
		char *msg = xasprintf("%s: %s", path, strerror(errno));
		cli_fail_safe(msg);
		free(msg);
	} else if (app && app_playlist_export(app, name, fmt, dir, &b, &err) == 0) {
		status = CLI_OK;
		FILE *f = path ? fopen(path, "w") : stdout;
		bool ok = f && fwrite(b.buf, 1, b.len, f) == b.len;
		int e = errno;
		if (f && f != stdout && fclose(f) != 0 && ok) {
			ok = false;
			e = errno;
		}
		if (!ok) {
			char *msg = xasprintf("%s: %s", path ? path : "stdout", strerror(e));
			status = cli_fail_safe(msg);
			free(msg);
		}
	} else if (app) {
		status = fail_err(&err);
	}
	strbuf_free(&b);
	free(dir);
	free(name);
	return status;
}

/* clear / shuffle / use: one optional (use: required) playlist name. */
static int playlist_simple(struct cli_ctx *ctx, int argc, char **argv, const char *cmdname,
			   int (*fn)(struct app *, const char *, struct crate_err *),
			   bool name_required)
{
	if (argc > 2 || (name_required && argc != 2))
		return cli_usage(cli_find(cmdname));
	char *name = NULL;
	if (argc == 2 && !(name = playlist_arg(argv[1])))
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? outcome(fn(app, name, &err), &err) : CLI_FAIL;
	free(name);
	return status;
}

static int cmd_playlist_clear(struct cli_ctx *ctx, int argc, char **argv)
{
	return playlist_simple(ctx, argc, argv, "playlist clear", app_playlist_clear, false);
}

static int cmd_playlist_shuffle(struct cli_ctx *ctx, int argc, char **argv)
{
	return playlist_simple(ctx, argc, argv, "playlist shuffle", app_playlist_shuffle, false);
}

static int cmd_playlist_use(struct cli_ctx *ctx, int argc, char **argv)
{
	return playlist_simple(ctx, argc, argv, "playlist use", app_playlist_use, true);
}

static int cmd_playlist_sort(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc < 2 || argc > 3)
		return cli_usage(cli_find("playlist sort"));
	char *name = NULL;
	if (argc == 3 && !(name = playlist_arg(argv[1])))
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? outcome(app_playlist_sort(app, name, argv[argc - 1], &err), &err)
			 : CLI_FAIL;
	free(name);
	return status;
}

/* jump NAME TARGET | jump NAME --none */
static int cmd_playlist_jump(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc != 3)
		return cli_usage(cli_find("playlist jump"));
	char *name = playlist_arg(argv[1]);
	if (!name)
		return CLI_FAIL;
	char *target = NULL;
	int status = CLI_FAIL;
	if (strcmp(argv[2], "--none") == 0 || (target = playlist_arg(argv[2]))) {
		struct app *app = cli_app(ctx);
		struct crate_err err = {0};
		if (app)
			status = outcome(app_playlist_set_jump(app, name, target, &err), &err);
	}
	free(target);
	free(name);
	return status;
}

/* ---- pshuffle ---- */

static int cmd_pshuffle(struct cli_ctx *ctx, int argc, char **argv)
{
	const struct cli_command *self = cli_find("pshuffle");
	long upcoming = 0, history = -1;
	const char *name_arg = NULL, *mode = NULL;
	double drift = -1;
	char **words = xcalloc((size_t)argc + 1, sizeof *words);
	int nwords = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--upcoming") == 0 && i + 1 < argc) {
			if (!parse_count(argv[++i], 1, &upcoming)) {
				free(words);
				return cli_error("--upcoming needs a count of 1 or more");
			}
		} else if (strcmp(argv[i], "--history") == 0 && i + 1 < argc) {
			if (!parse_count(argv[++i], 0, &history)) {
				free(words);
				return cli_error("--history needs a count of 0 or more");
			}
		} else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
			mode = argv[++i];
		} else if (strcmp(argv[i], "--drift") == 0 && i + 1 < argc) {
			char *end;
			drift = strtod(argv[++i], &end);
			if (end == argv[i] || *end || !(drift >= 0 && drift <= 1)) {
				free(words);
				return cli_error("--drift needs a number from 0 (stay in the mood) to 1 (wander)");
			}
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			free(words);
			return cli_usage(self);
		} else if (!name_arg) {
			name_arg = argv[i];
		} else {
			words[nwords++] = argv[i];
		}
	}
	if (!name_arg || nwords == 0) {
		free(words);
		return cli_usage(self);
	}
	char *query = cli_join_args(words, nwords);
	free(words);
	char *name = playlist_arg(name_arg);
	int status = CLI_FAIL;
	struct app *app = name ? cli_app(ctx) : NULL;
	if (app) {
		struct crate_err err = {0};
		status = app_pshuffle_create_mode(app, name, query, upcoming, mode, drift, &err) == 0
				 ? CLI_OK : cli_fail_query(query, &err);
		if (status == CLI_OK && history >= 0) {
			char h[32];
			snprintf(h, sizeof h, "%ld", history);
			if (coll_store_playlist_set_attr(app->store, name, "history", h, &err) != 0)
				status = cli_fail_safe(err.msg);
		}
		struct coll_result src = {0};
		if (status == CLI_OK && app_eval_query(app, query, false, &src, &err) == 0 &&
		    src.ids.n == 0) {
			/* Not an error: the source may match files scanned later. */
			char *msg = xasprintf("warning: '%s' matches nothing yet: Playlists/%s stays "
					      "empty until it does", query, name);
			fputs("crate: ", stderr);
			cli_put_safe(stderr, msg, strlen(msg));
			fputc('\n', stderr);
			free(msg);
		}
		coll_result_free(&src);
	}
	free(name);
	free(query);
	return status;
}

const struct cli_command cli_coll_commands[] = {
	{"search", "search QUERY [--format F] [--json] [--order FIELDS|library] [--limit N] [--exact]",
	 "print the library items a query matches, best first", cmd_search},
	{"coll save", "coll save NAME QUERY", "save a query as a collection (replaces)",
	 cmd_coll_save},
	{"coll show", "coll show [--json] NAME", "a saved collection as a query (or JSON)",
	 cmd_coll_show},
	{"coll list", "coll list [NAMESPACE]", "saved collections and playlists", cmd_coll_list},
	{"coll rename", "coll rename OLD NEW", "rename, rewriting every reference",
	 cmd_coll_rename},
	{"coll remove", "coll remove [--force] NAME",
	 "remove (--force: users get a copy of it)", cmd_coll_remove},
	{"coll export", "coll export NAME [FILE]", "write a collection as JSON", cmd_coll_export},
	{"coll import", "coll import NAME FILE", "save a collection from JSON (- = stdin)",
	 cmd_coll_import},
	{"playlist new", "playlist new NAME [--queue]",
	 "create an empty playlist (--queue: played entries are removed)", cmd_playlist_new},
	{"playlist add", "playlist add [NAME] QUERY", "append the matches of a query",
	 cmd_playlist_add},
	{"playlist insert", "playlist insert NAME POS QUERY", "insert matches before POS",
	 cmd_playlist_insert},
	{"playlist move", "playlist move NAME FROM TO", "move one entry", cmd_playlist_move},
	{"playlist remove", "playlist remove [NAME] POSITIONS",
	 "remove entries (3, 3-7, 1,4-6, 5-)", cmd_playlist_remove},
	{"playlist list", "playlist list [NAME] [--format F] [--json]",
	 "the entries, current one marked '>'", cmd_playlist_list},
	{"playlist clear", "playlist clear [NAME]", "remove every entry", cmd_playlist_clear},
	{"playlist import", "playlist import [--append] NAME FILE",
	 "a playlist from an M3U/M3U8, PLS or XSPF file", cmd_playlist_import},
	{"playlist export", "playlist export [--relative] [--format m3u|pls|xspf] NAME [FILE]",
	 "write a playlist as M3U8 (default), PLS or XSPF", cmd_playlist_export},
	{"playlist shuffle", "playlist shuffle [NAME]", "shuffle (the current entry goes first)",
	 cmd_playlist_shuffle},
	{"playlist sort", "playlist sort [NAME] FIELDS", "sort by fields ('artist,-year')",
	 cmd_playlist_sort},
	{"playlist use", "playlist use NAME", "make a playlist the active one", cmd_playlist_use},
	{"playlist jump", "playlist jump NAME TARGET|--none",
	 "play TARGET when NAME ends (the jumplist)", cmd_playlist_jump},
	{"pshuffle",
	 "pshuffle NAME QUERY [--upcoming N] [--history N] [--mode random|smooth] [--drift D]",
	 "a Party Shuffle playlist over a query (smooth: by sound)", cmd_pshuffle},
	{NULL, NULL, NULL, NULL},
};
