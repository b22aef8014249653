/* Commands of the "library" group: scan, info, list. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_files.h"
#include "app/app_library.h"
#include "app/app_plfile.h"
#include "app/app_read.h"
#include "coll/eval.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/cmd_util.h"
#include "cli/output.h"
#include "medialib/index.h"
#include "medialib/media.h"
#include "medialib/media_analysis.h"
#include "medialib/roots.h"
#include "medialib/scan_cue.h"

/* ---- scan ---- */

struct scan_ui {
	FILE *err;   /* the command's ctx->err */
	bool bar;    /* err is a terminal: one progress line, redrawn */
	double last; /* elapsed time of the last drawing */
};

/* One line, redrawn on a terminal: a bar over the files found (while the
 * walk runs only the count is known), files per second, the folder. */
static void scan_progress(void *ud, const struct mlib_scan_progress *p)
{
	struct scan_ui *ui = ud;
	if (!ui->bar || p->finished || p->elapsed - ui->last < 0.1)
		return;
	ui->last = p->elapsed;
	FILE *err = ui->err;
	fputs("\r\033[K", err);
	if (p->walking) {
		fprintf(err, "finding files: %" PRIu64 " ", p->seen);
	} else {
		uint64_t done = p->seen - p->to_read + p->read;
		int width = 24, fill = p->seen ? (int)((double)done / (double)p->seen * width) : width;
		fputc('[', err);
		for (int i = 0; i < width; i++)
			fputc(i < fill ? '#' : '-', err);
		fprintf(err, "] %" PRIu64 "/%" PRIu64 " files %.0f/s ", done, p->seen,
			p->files_per_sec);
	}
	/* The end of the folder, to fit an 80-column terminal. */
	size_t n = strlen(p->current), room = 36;
	const char *c = p->current + (n > room ? n - room : 0);
	while (*c && ((unsigned char)*c & 0xC0) == 0x80)
		c++;
	cli_put_safe(err, c, strlen(c));
	fflush(err);
}

/* The summary: the last line a scan prints. */
static void scan_summary(FILE *err, const struct mlib_scan_progress *t, bool stopped)
{
	fprintf(err,
		"%s %" PRIu64 " files: %" PRIu64 " added, %" PRIu64 " updated, %" PRIu64
		" unchanged, %" PRIu64 " ignored, %" PRIu64 " failed",
		stopped ? "scan stopped after" : "scanned", t->seen, t->added, t->updated,
		t->unchanged, t->ignored, t->failed);
	if (t->missing)
		fprintf(err, ", %" PRIu64 " gone (marked missing)", t->missing);
	if (t->roots_gone)
		fprintf(err, ", %" PRIu64 " root%s not found", t->roots_gone,
			t->roots_gone == 1 ? "" : "s");
	if (t->folders_failed)
		fprintf(err, ", %" PRIu64 " folder%s unreadable", t->folders_failed,
			t->folders_failed == 1 ? "" : "s");
	if (t->cue_failed)
		fprintf(err, ", %" PRIu64 " cue sheet%s not used", t->cue_failed,
			t->cue_failed == 1 ? "" : "s");
	if (stopped)
		fprintf(err, "; %" PRIu64 " file%s not stored", t->not_stored,
			t->not_stored == 1 ? "" : "s");
	fprintf(err, " (%.1f s, %.0f files/s)\n", t->elapsed, t->files_per_sec);
}

/* --prune: forget the items whose files are gone. */
static int scan_prune(struct cli_ctx *ctx)
{
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	size_t n = 0, kept = 0;
	struct crate_err err = {0};
	if (app_prune_missing(app, &n, &kept, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	fprintf(ctx->err, "forgot %zu missing item%s\n", n, n == 1 ? "" : "s");
	if (kept)
		fprintf(ctx->err,
			"kept %zu missing item%s under roots that are not there (a disk not "
			"mounted?); crate roots remove DIR forgets them\n",
			kept, kept == 1 ? "" : "s");
	return CLI_OK;
}

/* "FILE: not imported: why", naming the file the error does not name
 * (a playlist name it cannot give, "a collection name cannot hold control
 * characters", said alone, left the user to guess which file). */
static void not_imported(struct cli_ctx *ctx, const char *file, const struct crate_err *err)
{
	char *msg = str_has_prefix(err->msg, file) ? xstrdup(err->msg)
						    : xasprintf("%s: not imported: %s", file, err->msg);
	cli_fail_safe(ctx, msg);
	free(msg);
}

/* Playlist files found under the scanned paths: listed, or with --playlists
 * imported as playlists named after the file (an existing name is kept).
 * Returns CLI_PARTIAL when some entry or file could not be imported. */
static int scan_playlists(struct cli_ctx *ctx, struct app *app, char *const *paths, size_t n,
			  bool import)
{
	char **files;
	size_t nf = app_playlist_files_find((const char *const *)paths, n, &files);
	int status = CLI_OK;
	if (nf && !import)
		fprintf(ctx->err, "%zu playlist file%s found (crate scan --playlists imports them):\n", nf,
			nf == 1 ? "" : "s");
	struct crate_err err = {0};
	if (nf && import && app_reload_index(app, &err) != 0) {
		cli_fail_safe(ctx, err.msg);
		import = false;
		status = CLI_PARTIAL;
	}
	for (size_t i = 0; i < nf; i++) {
		const char *base = strrchr(files[i], '/');
		base = base ? base + 1 : files[i];
		if (!import) {
			if (i < 20) {
				fputs("  ", ctx->err);
				cli_put_safe(ctx->err, files[i], strlen(files[i]));
				fputc('\n', ctx->err);
			}
			free(files[i]);
			continue;
		}
		char *name = xstrndup(base, (size_t)(strrchr(base, '.') - base));
		struct app_import_report rep;
		if (!name[0]) {
			/* ".m3u": no name to give it; said, not silently passed */
			cli_say(ctx, "%s: not imported (a playlist is named after its file, and this "
				"one has only an extension)", files[i]);
		} else if (app_playlist_import(app, name, files[i], false, &rep, &err) == 0) {
			if (cli_import_report(ctx, files[i], name, &rep, false) != CLI_OK)
				status = CLI_PARTIAL;
			app_import_report_free(&rep);
		} else if (err.code == CRATE_ERR_EXISTS) {
			/* kept as documented; said, so a rescan does not look like
			 * it found nothing */
			cli_say(ctx, "%s: Playlists/%s exists, left as it is (crate playlist import "
				"--append adds to it)", files[i], name);
		} else {
			not_imported(ctx, files[i], &err);
			status = CLI_PARTIAL;
		}
		free(name);
		free(files[i]);
	}
	if (nf > 20 && !import)
		fprintf(ctx->err, "  ... and %zu more\n", nf - 20);
	free(files);
	return status;
}

/* A plain scan with nothing to look at: no root, and no file given by
 * name that is there (those are rescanned with the roots). */
static int no_roots(struct cli_ctx *ctx)
{
	struct u32vec ids = {0};
	struct crate_err err = {0};
	if (app_items_under(ctx->app, "/", &ids, &err) != 0 || ids.n == 0) {
		u32vec_free(&ids);
		return cli_error(ctx, "no folder is scanned yet: 'crate scan DIR' adds one");
	}
	size_t n = ids.n;
	u32vec_free(&ids);
	return cli_error(ctx,
			 "no folder is scanned yet, and the library's %zu item%s, from files given "
			 "by name, %s gone (crate scan --prune forgets them); 'crate scan DIR' adds "
			 "a folder",
			 n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
}

static int scan_paths(struct cli_ctx *ctx, const struct cli_args *a, char **argv, int argc);

static int cmd_scan(struct cli_ctx *ctx, const struct cli_args *a)
{
	if (a->argc == 0 && cli_flag(a, "prune"))
		return scan_prune(ctx);
	if (!ctx->app) {
		/* Open without loading the index: a warm rescan of a big library
		 * would spend most of its time building an index nobody reads. */
		struct crate_err oerr = {0};
		struct app_opts opts = {.db_path = ctx->db_path, .config_path = ctx->config_path,
					.no_index = true};
		if (app_open(&ctx->app, &opts, &oerr) != 0)
			return cli_fail_safe(ctx, oerr.msg);
	}
	if (a->argc > 0) {
		char **paths = xcalloc((size_t)a->argc + 1, sizeof *paths);
		int n = 0;
		for (int i = 0; i < a->argc; i++) {
			char *p = cli_path_arg(ctx, a->argv[i]);
			/* a typo: said as ls says it, not scanned as a lost root */
			if (app_scan_path_unknown(ctx->app, p)) {
				char *msg = xasprintf("%s: %s", p, strerror(ENOENT));
				cli_fail_safe(ctx, msg);
				free(msg);
				free(p);
				continue;
			}
			paths[n++] = p;
		}
		/* some paths failed: 2, as when the scan finds one gone */
		int rc = n == 0 ? CLI_PARTIAL : scan_paths(ctx, a, paths, n);
		if (n < a->argc && rc == CLI_OK)
			rc = CLI_PARTIAL;
		for (int i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
		return rc;
	}
	/* No folder: every root again, and the files given by name, as `mpc
	 * update` and cmus's :update-cache look at the whole library. */
	struct app_rescan r;
	struct crate_err err = {0};
	if (app_rescan_paths(ctx->app, &r, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	for (size_t i = 0; i < r.ndropped; i++) {
		fputs("crate: note: ", ctx->err);
		cli_put_safe(ctx->err, r.dropped[i], strlen(r.dropped[i]));
		fputs(": gone, with nothing of the library under it: no longer scanned\n", ctx->err);
	}
	int rc = r.n ? scan_paths(ctx, a, r.paths, (int)r.n) : no_roots(ctx);
	app_rescan_free(&r);
	return rc;
}

/* The paths given to the scan that were gone (scan.c's root_gone): which
 * of them are roots, which only a folder or file under one. */
static void gone_kinds(struct app *app, const struct mlib_scan_result *res, bool *root,
		       bool *other)
{
	*root = *other = false;
	for (size_t e = 0; e < res->nerrors; e++) {
		const struct mlib_scan_error *x = &res->errors[e];
		if (!x->folder || !strstr(x->reason, "(deleted, renamed"))
			continue;
		bool is_root = app_path_is_root(app, x->path);
		*root |= is_root;
		*other |= !is_root;
	}
}

/* Scan argv (folders and files) and say what happened. */
static int scan_paths(struct cli_ctx *ctx, const struct cli_args *a, char **argv, int argc)
{
	bool quiet = cli_flag(a, "quiet"), prune = cli_flag(a, "prune");
	bool playlists = cli_flag(a, "playlists");
	struct app *app = ctx->app;
	struct scan_ui ui = {ctx->err, !quiet && isatty(fileno(ctx->err)), 0};
	struct mlib_scan_result res;
	struct crate_err err = {0};
	/* The folders become roots: a running interface watches them. */
	if (app_roots_record(app, (const char *const *)argv, (size_t)argc, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	int rc = app_scan(app, (const char *const *)argv, (size_t)argc,
			  ui.bar ? scan_progress : NULL, &ui, &res, &err);
	if (ui.bar)
		fputs("\r\033[K", ctx->err);
	/* Every failure with its whole reason (the path may be long). */
	for (size_t e = 0; e < res.nerrors; e++) {
		fputs("crate: ", ctx->err);
		cli_put_safe(ctx->err, res.errors[e].path, strlen(res.errors[e].path));
		fputs(": ", ctx->err);
		cli_put_safe(ctx->err, res.errors[e].reason, strlen(res.errors[e].reason));
		fputc('\n', ctx->err);
	}
	for (size_t e = 0; e < res.nnotes && !quiet; e++) {
		fputs("crate: note: ", ctx->err);
		cli_put_safe(ctx->err, res.notes[e].path, strlen(res.notes[e].path));
		fputs(": ", ctx->err);
		cli_put_safe(ctx->err, res.notes[e].reason, strlen(res.notes[e].reason));
		fputc('\n', ctx->err);
	}
	if (rc != 0) {
		fputs("crate: ", ctx->err);
		cli_put_safe(ctx->err, err.msg, strlen(err.msg));
		fputc('\n', ctx->err);
	}
	if (res.totals.roots_gone && !quiet) { /* before the summary, the last line */
		bool root, other;
		gone_kinds(app, &res, &root, &other);
		if (root)
			fputs("crate: note: 'crate roots remove DIR' forgets a folder gone for good\n",
			      ctx->err);
		if (other && !prune) /* no root: roots remove would refuse it */
			fputs("crate: note: what was there is marked missing; 'crate scan --prune' "
			      "forgets it\n",
			      ctx->err);
	}
	if (!quiet || rc != 0)
		scan_summary(ctx->err, &res.totals, rc != 0);
	bool partial = res.totals.failed > 0 || res.totals.folders_failed > 0 ||
		       res.totals.roots_gone > 0 ||
		       res.totals.cue_failed > 0;
	mlib_scan_result_free(&res);
	if (rc != 0)
		return CLI_FAIL;
	int pl = quiet && !playlists ? CLI_OK
				     : scan_playlists(ctx, app, argv, (size_t)argc, playlists);
	if (prune && scan_prune(ctx) != CLI_OK)
		return CLI_FAIL;
	return partial || pl != CLI_OK ? CLI_PARTIAL : CLI_OK;
}

/* ---- shared: find an item, print properties ---- */

/* Item id is not in the index: a row marked missing (its file gone, its
 * statistics kept) is said so, with the path it had; else it is not in
 * the library at all. */
static int item_not_present(struct cli_ctx *ctx, struct app *app, uint32_t id)
{
	struct strbuf url;
	strbuf_init(&url, 256);
	struct crate_err err = {0};
	int rc = mlib_media_stored_text(app->db, id, "url", "", &url, &err) == 1
			 ? cli_error(ctx, "media #%u is missing: %s is gone (crate scan --prune "
					  "forgets it)", id, url.buf)
			 : cli_error(ctx, "media #%u is not in the library", id);
	strbuf_free(&url);
	return rc;
}

static int resolve_item(struct cli_ctx *ctx, struct app *app, const char *arg, uint32_t *id)
{
	if (cli_parse_id(arg, id))
		return mlib_index_has_media(app_index(app), *id) ? 0 : item_not_present(ctx, app, *id);
	/* A file that is gone has no real path: its absolute one finds the row
	 * stored under it (a relative name was looked up as it was). */
	char *abs = realpath(arg, NULL);
	if (!abs)
		abs = str_abs_path(arg);
	struct crate_err err = {0};
	int rc = mlib_media_find_url(app->db, abs ? abs : arg, strlen(abs ? abs : arg), id, &err);
	free(abs);
	if (rc != 0) {
		char *msg = xasprintf("%s: not in the library", arg);
		cli_fail_safe(ctx, msg);
		free(msg);
		return CLI_FAIL;
	}
	return mlib_index_has_media(app_index(app), *id) ? 0 : item_not_present(ctx, app, *id);
}

/* The items standing for arg (a path, not an id) that is no item itself:
 * the tracks of a file split by its cue sheet, or of the sheet, or the
 * items under a folder in view 5's order (none: *n 0). True with *ids
 * (owned) and *what ("split by its cue sheet into") when it is one. */
static bool stand_ins(struct app *app, const char *arg, uint32_t **ids, size_t *n,
		      const char **what)
{
	uint32_t id;
	*ids = NULL;
	*n = 0;
	if (cli_parse_id(arg, &id))
		return false;
	char *abs = realpath(arg, NULL);
	struct stat st;
	bool folder = abs && stat(abs, &st) == 0 && S_ISDIR(st.st_mode);
	if (folder) {
		struct u32vec items = {0};
		app_files_items(app, abs, &items);
		*ids = items.v;
		*n = items.n;
		*what = "a folder of";
	} else {
		*n = app_cue_tracks(app, abs ? abs : arg, ids);
		*what = scan_cue_is_sheet_name(arg) ? "a cue sheet of" : "split by its cue sheet into";
	}
	free(abs);
	return folder || *n > 0;
}

/* A folder given to info with no library item under it: said (it was
 * "not in the library", as if it were a file). Returns 1 (a failure). */
static int no_items_under(struct cli_ctx *ctx, const char *folder)
{
	char *msg = xasprintf("%s: a folder with no library item under it (crate scan adds them)",
			      folder);
	cli_fail_safe(ctx, msg);
	free(msg);
	return 1;
}

/* info's exit status: 2 when some of the items named were shown and some
 * not (each said why), 1 when none was. */
static int info_status(size_t shown, size_t failed)
{
	return failed == 0 ? CLI_OK : shown ? CLI_PARTIAL : CLI_FAIL;
}

/* info --json: one array of items, each with every property and, when
 * the file was analysed, an "analysis" object `crate analyze --import`
 * reads back. */
static int info_json(struct cli_ctx *ctx, struct app *app, int argc, char **argv)
{
	struct strbuf b;
	strbuf_init(&b, 1024);
	size_t n = 0, failed = 0;
	fputs("[", ctx->out);
	for (int a = 0; a < argc; a++) {
		uint32_t id, *split;
		size_t nsplit;
		const char *what;
		if (stand_ins(app, argv[a], &split, &nsplit, &what)) {
			/* its tracks (or items) stand for the file */
			failed += !nsplit && no_items_under(ctx, argv[a]);
			for (size_t i = 0; i < nsplit; i++) {
				strbuf_reset(&b);
				strbuf_adds(&b, n++ ? ",\n  " : "\n  ");
				cli_item_json(&b, app_index(app), split[i]);
				fwrite(b.buf, 1, b.len, ctx->out);
			}
			free(split);
			continue;
		}
		if (resolve_item(ctx, app, argv[a], &id) != 0) {
			failed++;
			continue;
		}
		strbuf_reset(&b);
		strbuf_adds(&b, n++ ? ",\n  " : "\n  ");
		cli_item_json(&b, app_index(app), id);
		size_t close = b.len;
		while (close > 0 && b.buf[close - 1] != '}')
			close--;
		if (close > 0) {
			b.len = close - 1; /* reopen the object */
			b.buf[b.len] = '\0';
			size_t before = b.len;
			strbuf_adds(&b, ", \"analysis\": ");
			struct crate_err err = {0};
			if (!mlib_analysis_json(app->db, id, &b, &err)) {
				b.len = before;
				b.buf[b.len] = '\0';
				if (err.code) {
					cli_fail_safe(ctx, err.msg);
					failed++;
				}
			}
			strbuf_addc(&b, '}');
		}
		fwrite(b.buf, 1, b.len, ctx->out);
	}
	fputs(n ? "\n]\n" : "]\n", ctx->out);
	strbuf_free(&b);
	return info_status(n, failed);
}

static int info_items(struct cli_ctx *ctx, struct app *app, int argc, char **argv);

static int cmd_info(struct cli_ctx *ctx, const struct cli_args *args)
{
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	/* A PATH typed on the ':' line may start with ~ (an id never does) */
	int argc = args->argc;
	char **argv = xcalloc((size_t)argc + 1, sizeof *argv);
	for (int i = 0; i < argc; i++)
		argv[i] = cli_path_arg(ctx, args->argv[i]);
	int status = cli_flag(args, "json") ? info_json(ctx, app, argc, argv)
					    : info_items(ctx, app, argc, argv);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return status;
}

/* info without --json: each item's properties, one per line. */
static int info_items(struct cli_ctx *ctx, struct app *app, int argc, char **argv)
{
	size_t shown = 0, failed = 0;
	for (int a = 0; a < argc; a++) {
		uint32_t id, *split;
		size_t nsplit;
		const char *what;
		if (stand_ins(app, argv[a], &split, &nsplit, &what)) {
			if (!nsplit) {
				failed += no_items_under(ctx, argv[a]);
				free(split);
				continue;
			}
			/* not an item itself: say what it is, and its items */
			bool folder = strcmp(what, "a folder of") == 0;
			cli_put_safe(ctx->out, argv[a], strlen(argv[a]));
			fprintf(ctx->out, ": %s %zu %s:\n", what, nsplit,
				folder ? str_plural(nsplit, "item", "items")
				       : str_plural(nsplit, "track", "tracks"));
			struct cli_items_out o = {
				.fmt = folder ? "  #%id%  %{?artist?%artist% - }%title%"
					      : "  #%id%  %tracknr%. %artist% - %title%",
				.out = ctx->out};
			struct crate_err err = {0};
			if (cli_print_items(app, split, nsplit, &o, &err) != 0) {
				cli_fail_safe(ctx, err.msg);
				failed++;
			} else {
				shown++;
			}
			free(split);
			continue;
		}
		if (resolve_item(ctx, app, argv[a], &id) != 0) {
			failed++;
			continue;
		}
		shown++;
		const struct mlib_index *idx = app_index(app);
		fprintf(ctx->out, "id = %u\n", id);
		for (int p = 0; p < mlib_index_prop_count(idx); p++) {
			const char *name = mlib_index_prop_name(idx, p);
			if (mlib_index_prop_kind(idx, p) == MLIB_PROP_INT) {
				int64_t v;
				if (mlib_index_int_value(idx, p, id, &v))
					fprintf(ctx->out, "%s = %" PRId64 "\n", name, v);
				continue;
			}
			const uint32_t *vids;
			size_t n = mlib_index_str_values(idx, p, id, &vids);
			for (size_t k = 0; k < n; k++) {
				const char *v = mlib_index_dict_text(idx, p, vids[k]);
				/* free-form tag names come from files too */
				cli_put_safe(ctx->out, name, strlen(name));
				fputs(" = ", ctx->out);
				cli_put_safe(ctx->out, v, strlen(v));
				fputc('\n', ctx->out);
			}
		}
		if (a + 1 < argc)
			fputc('\n', ctx->out);
	}
	return info_status(shown, failed);
}

/* ---- list ---- */

static int cmd_list(struct cli_ctx *ctx, const struct cli_args *a)
{
	const char *fmt = cli_value(a, "format");
	if (cli_check_format(ctx, fmt, cli_flag(a, "json")) != CLI_OK)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	const struct u32vec *order = mlib_index_library_order(app_index(app));
	struct cli_items_out o = {.fmt = fmt ? fmt : "%artist% - %title%",
				  .json = cli_flag(a, "json"), .current = -1, .out = ctx->out};
	o.sep = config_get(app->cfg, "display.separator", NULL);
	struct crate_err err = {0};
	if (cli_print_items(app, order->v, order->n, &o, &err) != 0)
		return cli_fail_safe(ctx, err.msg);
	return CLI_OK;
}

/* The items of the file arg names, when it is a file the library has:
 * its tracks when a cue sheet splits it. Anything else is a query. */
static bool library_file(struct app *app, const char *arg, struct u32vec *ids)
{
	struct stat st;
	if (stat(arg, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	uint32_t *split, id;
	size_t n;
	const char *what;
	if (stand_ins(app, arg, &split, &n, &what)) {
		for (size_t i = 0; i < n; i++)
			u32vec_push(ids, split[i]);
		free(split);
		return true;
	}
	char *abs = realpath(arg, NULL);
	struct crate_err err = {0};
	bool found = abs && mlib_media_find_url(app->db, abs, strlen(abs), &id, &err) == 0 &&
		     mlib_index_has_media(app_index(app), id);
	free(abs);
	if (found)
		u32vec_push(ids, id);
	return found;
}

/* rate QUERY|ID|FILE N: the rating (0-5 stars; 0 clears it) of every match,
 * in the database only (files are never written). */
static int cmd_rate(struct cli_ctx *ctx, const struct cli_args *a)
{
	int argc = a->argc;
	char **argv = a->argv;
	const char *n = argv[argc - 1];
	if (!(n[0] >= '0' && n[0] <= '5' && !n[1]))
		return cli_error(ctx, "rating '%s': must be 0 (none) to 5", n);
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	struct u32vec ids = {0};
	uint32_t one;
	if (argc == 2 && cli_parse_id(argv[0], &one)) {
		if (resolve_item(ctx, app, argv[0], &one) != 0)
			return CLI_FAIL;
		u32vec_push(&ids, one);
	} else if (argc == 2 && library_file(app, argv[0], &ids)) {
		/* a file named as info names it (a hook's "file") */
	} else {
		char *query = cli_join_args(argv, argc - 1);
		struct coll_result r = {0};
		struct crate_err err = {0};
		int rc = cli_search_ids(ctx, app, query, cli_search_flags(a), &r, &err);
		if (rc != 0 || r.ids.n == 0) {
			rc = rc != 0 ? cli_fail_query(ctx, query, &err)
				     : cli_nothing_matches(ctx, query, "no rating set");
			coll_result_free(&r);
			free(query);
			return rc;
		}
		free(query);
		ids = r.ids;
		r.ids = (struct u32vec){0};
		coll_result_free(&r);
	}
	struct crate_err err = {0};
	size_t done = ids.n; /* one transaction: all of them or none */
	int rc = app_set_ratings(app, ids.v, ids.n, n[0] - '0', &err);
	u32vec_free(&ids);
	if (rc != 0)
		return cli_fail_safe(ctx, err.msg);
	fprintf(ctx->err, "rated %zu track%s %c\n", done, done == 1 ? "" : "s", n[0]);
	return CLI_OK;
}

static const struct cli_opt scan_opts[] = {
	{"quiet", 'q', CLI_OPT_FLAG, NULL, "no progress and no summary (errors are still printed)"},
	{"prune", 0, CLI_OPT_FLAG, NULL, "forget the items whose files are gone (alone: only that)"},
	{"playlists", 0, CLI_OPT_FLAG, NULL, "import the playlist files found as playlists"},
	{0},
};
static const struct cli_opt json_opt[] = {
	{"json", 0, CLI_OPT_FLAG, NULL, "as JSON, with the analysis (for analyze --import)"},
	{0},
};
static const struct cli_opt list_opts[] = {
	{"format", 0, CLI_OPT_VALUE, "F", "one line per item from a format (%artist%, %{a|b}, ...)"},
	{"json", 0, CLI_OPT_FLAG, NULL, "a JSON array of items with every property"},
	{0},
};

static const struct cli_opt rate_opts[] = {
	{"exact", 0, CLI_OPT_FLAG, NULL, "no spelling corrections or word fallbacks"},
	{0},
};

static const struct cli_command library_commands[] = {
	{"scan", NULL, "scan [--quiet] [--prune] [--playlists] [PATH...]",
	 "add or update files and folders (--prune: forget missing items; --playlists: import playlist files found)",
	 "The folders become roots that a running interface watches; without a PATH every root "
	 "is scanned again, with the files of the library outside them.\nFiles that cannot be read are listed with the reason; the exit "
	 "status is then 2.",
	 0, CLI_ANY, CLI_OPTS_FIRST, scan_opts, cmd_scan},
	{"info", NULL, "info [--json] ID|PATH...",
	 "every property of a library item (--json: with its analysis, for analyze --import)",
	 "An item is named by its media id (42 or #42) or by its file's path; a file split by\n"
	 "its cue sheet, the sheet, or a folder lists the items it stands for.",
	 1, CLI_ANY, 0, json_opt, cmd_info},
	{"rate", NULL, "rate QUERY|ID|FILE N [--exact]",
	 "set the rating (0-5 stars, 0 clears) in the library",
	 "Every item `crate search QUERY` lists gets N stars (what the search forgave is said\n"
	 "on stderr), or the item of a FILE the library has (its tracks for a cue sheet's);\n"
	 "files are never written.",
	 2, CLI_ANY, CLI_DASH_ARGS, rate_opts, cmd_rate},
	{"list", NULL, "list [--format '%artist% - %title%'] [--json]",
	 "the library in library order", NULL, 0, 0, 0, list_opts, cmd_list},
	{0},
};

const struct cli_group cli_library_group = {"library", "the library: scanning and items",
					    library_commands};
