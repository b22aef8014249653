/* Commands of the "playlist" group: new, add, insert, move, remove, list,
 * clear, import, export, shuffle, sort, use, jump. Positions on the
 * command line count from 1. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_play.h"
#include "app/app_plfile.h"
#include "app/app_read.h"
#include "app/app_view.h"
#include "app/app_stream.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/cmd_util.h"
#include "cli/output.h"
#include "coll/store.h"

/* What an edit did (cli_say): "cleared Playlists/Road: 12 entries". An
 * edit recorded for undo says so on the ':' line, where u is a key away. */
static void __attribute__((format(printf, 3, 4)))
say_done(struct cli_ctx *ctx, bool undoable, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vsay(ctx, undoable && ctx->on_line ? " (u undoes)" : "", fmt, ap);
	va_end(ap);
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

static int cmd_playlist_new(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool queue = cli_flag(a, "queue");
	char *name = cli_playlist_arg(ctx, a->argv[0]);
	if (!name)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? cli_outcome(ctx, app_playlist_new_typed(app, name, queue ? "queue" : NULL, &err),
				   &err)
			 : CLI_FAIL;
	if (status == CLI_OK && strcmp(name, APP_QUEUE_NAME) == 0)
		say_done(ctx, false, "created Playlists/%s (the queue: played entries are removed)",
			 name);
	else if (status == CLI_OK)
		say_done(ctx, false, "created Playlists/%s%s", name,
			 queue ? " (a queue: played entries are removed)" : "");
	free(name);
	return status;
}

/* add [NAME] QUERY / insert NAME POS QUERY: what `crate search` lists for
 * QUERY (forgiving unless --exact), in library order. */
static int playlist_add_common(struct cli_ctx *ctx, const struct cli_args *a, const char *name_arg,
			       long pos, char **qargv, int qargc)
{
	char *name = NULL;
	if (name_arg && !(name = cli_playlist_arg(ctx, name_arg)))
		return CLI_FAIL;
	char *query = cli_join_args(qargv, qargc);
	int status = CLI_FAIL;
	struct app *app = cli_app(ctx);
	if (app) {
		struct crate_err err = {0};
		size_t added = 1;
		struct strbuf notes;
		strbuf_init(&notes, 64);
		int rc = qargc == 1 && app_is_stream_url(qargv[0]) /* a radio stream */
				 ? app_playlist_add_stream(app, name, pos < 0 ? SIZE_MAX : (size_t)pos,
							   qargv[0], &err)
				 : app_playlist_insert_query(app, name, pos < 0 ? SIZE_MAX : (size_t)pos,
							     query, cli_search_flags(a), &added, &notes,
							     &err);
		if (notes.len) /* what the search forgave, as `crate search` says it */
			cli_fail_safe(ctx, notes.buf);
		strbuf_free(&notes);
		if (rc != 0) {
			cli_fail_query(ctx, query, &err);
		} else if (added == 0) {
			char *what = xasprintf("nothing added to Playlists/%s",
					       app_playlist_name(app, name));
			cli_nothing_matches(ctx, query, what);
			free(what);
		} else {
			say_done(ctx, true, "added %zu %s to Playlists/%s", added,
				 str_plural(added, "entry", "entries"), app_playlist_name(app, name));
			status = CLI_OK;
		}
	}
	free(query);
	free(name);
	return status;
}

static int cmd_playlist_add(struct cli_ctx *ctx, const struct cli_args *a)
{
	/* Two or more words: the first names the playlist. */
	if (a->argc == 1)
		return playlist_add_common(ctx, a, NULL, -1, a->argv, 1);
	return playlist_add_common(ctx, a, a->argv[0], -1, a->argv + 1, a->argc - 1);
}

static int cmd_playlist_insert(struct cli_ctx *ctx, const struct cli_args *a)
{
	long pos;
	if (!cli_parse_count(a->argv[1], 1, &pos))
		return cli_error(ctx, "'%s' is not a position (1 is the first entry)", a->argv[1]);
	return playlist_add_common(ctx, a, a->argv[0], pos - 1, a->argv + 2, a->argc - 2);
}

static int cmd_playlist_move(struct cli_ctx *ctx, const struct cli_args *a)
{
	long from, to;
	if (!cli_parse_count(a->argv[1], 1, &from) || !cli_parse_count(a->argv[2], 1, &to))
		return cli_error(ctx, "positions are numbers from 1");
	char *name = cli_playlist_arg(ctx, a->argv[0]);
	if (!name)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? cli_outcome(ctx, app_playlist_move(app, name, (size_t)from - 1, (size_t)to - 1,
						     &err), &err)
			 : CLI_FAIL;
	if (status == CLI_OK && from == to)
		say_done(ctx, false, "entry %ld of Playlists/%s stays where it is", from,
			 app_playlist_name(app, name));
	else if (status == CLI_OK)
		say_done(ctx, true, "moved entry %ld of Playlists/%s to position %ld", from,
			 app_playlist_name(app, name), to);
	free(name);
	return status;
}

static int cmd_playlist_remove(struct cli_ctx *ctx, const struct cli_args *a)
{
	int first = 0;
	char *name = NULL;
	if (a->argc >= 2 && !looks_like_positions(a->argv[0])) {
		if (!(name = cli_playlist_arg(ctx, a->argv[0])))
			return CLI_FAIL;
		first = 1;
	}
	char *positions = cli_join_args(a->argv + first, a->argc - first);
	int status = CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	size_t removed;
	if (app) {
		if (app_playlist_remove_positions(app, name, positions, &removed, &err) != 0) {
			cli_fail_safe(ctx, err.msg);
		} else {
			say_done(ctx, removed > 0, "removed %zu %s from Playlists/%s", removed,
				 str_plural(removed, "entry", "entries"), app_playlist_name(app, name));
			status = CLI_OK;
		}
	}
	free(positions);
	free(name);
	return status;
}

static int cmd_playlist_list(struct cli_ctx *ctx, const struct cli_args *a)
{
	struct cli_items_out o = {.numbered = true, .current = -1, .json = cli_flag(a, "json"),
				  .fmt = cli_value(a, "format"), .out = ctx->out};
	const char *name_arg = a->argc ? a->argv[0] : NULL;
	char *name = NULL;
	if (cli_check_format(ctx, o.fmt, o.json) != CLI_OK)
		return CLI_FAIL;
	if (name_arg && !(name = cli_playlist_arg(ctx, name_arg)))
		return CLI_FAIL;
	int status = CLI_FAIL;
	struct app *app = cli_app(ctx);
	if (!app)
		goto out;
	const char *pl_name = app_playlist_name(app, name);
	const struct coll_node *pl = app_playlist_get(app, pl_name);
	if (!pl) {
		char *msg = xasprintf("Playlists/%s does not exist", pl_name);
		cli_fail_safe(ctx, msg);
		free(msg);
		goto out;
	}
	const char *p = coll_attr_get(pl, "position");
	int64_t cur;
	if (p && str_parse_int64(p, strlen(p), &cur) && cur >= 0)
		o.current = (long)cur;
	o.sep = config_get(app->cfg, "display.separator", NULL);
	struct crate_err err = {0};
	status = cli_print_items(app, pl->idlist.v, pl->idlist.n, &o, &err) == 0
			 ? CLI_OK
			 : cli_fail_safe(ctx, err.msg);
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
static int cmd_playlist_import(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool append = cli_flag(a, "append");
	char *name = cli_playlist_arg(ctx, a->argv[0]);
	if (!name)
		return CLI_FAIL;
	char *file = cli_path_arg(ctx, a->argv[1]);
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	struct app_import_report rep;
	int status = CLI_FAIL;
	/* Only an import into a list that was there is recorded for undo. */
	bool existed = app && append && app_playlist_get(app, name);
	if (app && app_playlist_import(app, name, file, append, &rep, &err) == 0) {
		status = cli_import_report(ctx, file, name, &rep, existed);
		app_import_report_free(&rep);
	} else if (app) {
		status = cli_fail_safe(ctx, err.msg);
	}
	free(file);
	free(name);
	return status;
}

/* export [--relative] [--format F] NAME [FILE] */
static int cmd_playlist_export(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool relative = cli_flag(a, "relative");
	const char *fmt_name = cli_value(a, "format");
	char *path = a->argc == 2 && strcmp(a->argv[1], "-") != 0 ? cli_path_arg(ctx, a->argv[1])
								   : NULL;
	enum plfile_format fmt = fmt_name ? format_named(fmt_name)
					  : path ? plfile_format_of_name(path) : PLFILE_M3U;
	char *name = NULL;
	struct stat st;
	if (path && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* said as it is, not as a name without an extension */
		char *msg = xasprintf("%s: Is a directory (playlist export writes a FILE)", path);
		cli_fail_safe(ctx, msg);
		free(msg);
	} else if (fmt == PLFILE_UNKNOWN)
		cli_error(ctx, "playlist export: say --format m3u, pls or xspf (or name the file .m3u8, .pls, .xspf)");
	else if (relative && !path)
		cli_error(ctx, "playlist export: --relative needs a FILE to be relative to");
	else
		name = cli_playlist_arg(ctx, a->argv[0]);
	if (!name) {
		free(path);
		return CLI_FAIL;
	}
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
	size_t left_out = 0, cues = 0;
	if (relative && !dir) {
		char *msg = xasprintf("%s: %s", path, strerror(errno));
		cli_fail_safe(ctx, msg);
		free(msg);
	} else if (app && app_playlist_export(app, name, fmt, dir, &b, &left_out, &cues, &err) == 0) {
		status = CLI_OK;
		if (cues) /* written all the same: no standard names a cue track */
			cli_warning(ctx, "%zu %s of Playlists/%s %s of cue sheets, written as "
				    "FILE#N (FILE.flac#2), which crate reads back and other players "
				    "do not",
				    cues, str_plural(cues, "entry", "entries"), name,
				    cues == 1 ? "is a track" : "are tracks");
		if (left_out) { /* written all the same: say what is missing from it */
			cli_error(ctx, "playlist export: %zu %s of Playlists/%s no longer in the "
				  "library: left out", left_out, str_plural(left_out, "entry", "entries"),
				  name);
			status = CLI_PARTIAL;
		}
		int e = path ? cli_write_file(path, b.buf, b.len)
			     : fwrite(b.buf, 1, b.len, ctx->out) == b.len ? 0 : errno;
		if (e) {
			char *msg = xasprintf("%s: %s", path ? path : "stdout", strerror(e));
			status = cli_fail_safe(ctx, msg);
			free(msg);
		} else if (path) {
			const struct coll_node *pl = app_playlist_get(app, app_playlist_name(app, name));
			size_t n = (pl ? pl->idlist.n : 0) - left_out;
			say_done(ctx, false, "exported Playlists/%s to %s: %zu %s", name, a->argv[1], n,
				 str_plural(n, "entry", "entries"));
		}
	} else if (app) {
		status = cli_fail_safe(ctx, err.msg);
	}
	strbuf_free(&b);
	free(dir);
	free(path);
	free(name);
	return status;
}

/* clear / shuffle: one optional playlist name; what was done is said. */
static int playlist_whole(struct cli_ctx *ctx, const struct cli_args *a, const char *done,
			  const char *undone,
			  int (*fn)(struct app *, const char *, size_t *, struct crate_err *))
{
	char *name = NULL;
	if (a->argc == 1 && !(name = cli_playlist_arg(ctx, a->argv[0])))
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	size_t n = 0;
	int status = app ? cli_outcome(ctx, fn(app, name, &n, &err), &err) : CLI_FAIL;
	if (status == CLI_OK && n)
		say_done(ctx, true, "%s Playlists/%s: %zu %s", done, app_playlist_name(app, name),
			 n, str_plural(n, "entry", "entries"));
	else if (status == CLI_OK)
		say_done(ctx, false, "Playlists/%s %s", app_playlist_name(app, name), undone);
	free(name);
	return status;
}

static int cmd_playlist_clear(struct cli_ctx *ctx, const struct cli_args *a)
{
	return playlist_whole(ctx, a, "cleared", "is empty already", app_playlist_clear);
}

static int cmd_playlist_shuffle(struct cli_ctx *ctx, const struct cli_args *a)
{
	return playlist_whole(ctx, a, "shuffled", "has fewer than 2 entries: nothing to shuffle",
			      app_playlist_shuffle);
}

static int cmd_playlist_use(struct cli_ctx *ctx, const struct cli_args *a)
{
	char *name = cli_playlist_arg(ctx, a->argv[0]);
	if (!name)
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	int status = app ? cli_outcome(ctx, app_playlist_use(app, name, &err), &err) : CLI_FAIL;
	if (status == CLI_OK)
		say_done(ctx, false, "Playlists/%s is the active playlist", name);
	free(name);
	return status;
}

static int cmd_playlist_sort(struct cli_ctx *ctx, const struct cli_args *a)
{
	char *name = NULL;
	if (a->argc == 2 && !(name = cli_playlist_arg(ctx, a->argv[0])))
		return CLI_FAIL;
	struct app *app = cli_app(ctx);
	struct crate_err err = {0};
	const char *fields = a->argv[a->argc - 1];
	size_t n = 0;
	int status = app ? cli_outcome(ctx, app_playlist_sort(app, name, fields, &n, &err), &err)
			 : CLI_FAIL;
	if (status == CLI_OK && n)
		say_done(ctx, true, "sorted Playlists/%s by %s: %zu %s",
			 app_playlist_name(app, name), fields, n, str_plural(n, "entry", "entries"));
	else if (status == CLI_OK)
		say_done(ctx, false, "Playlists/%s is in that order already",
			 app_playlist_name(app, name));
	free(name);
	return status;
}

/* jump NAME TARGET | jump NAME --none */
static int cmd_playlist_jump(struct cli_ctx *ctx, const struct cli_args *a)
{
	bool none = cli_flag(a, "none");
	if (a->argc != (none ? 1 : 2))
		return cli_usage(ctx, a->cmd);
	char *name = cli_playlist_arg(ctx, a->argv[0]);
	if (!name)
		return CLI_FAIL;
	char *target = NULL;
	int status = CLI_FAIL;
	if (none || (target = cli_playlist_arg(ctx, a->argv[1]))) {
		struct app *app = cli_app(ctx);
		struct crate_err err = {0};
		if (app)
			status = cli_outcome(ctx, app_playlist_set_jump(app, name, target, &err), &err);
		if (status == CLI_OK && target)
			say_done(ctx, false, "Playlists/%s jumps to Playlists/%s when it ends", name,
				 target);
		else if (status == CLI_OK)
			say_done(ctx, false, "Playlists/%s stops when it ends (no jump)", name);
	}
	free(target);
	free(name);
	return status;
}


static const struct cli_opt new_opts[] = {
	{"queue", 0, CLI_OPT_FLAG, NULL, "a queue: entries are removed once played"},
	{0},
};
static const struct cli_opt add_opts[] = {
	{"exact", 0, CLI_OPT_FLAG, NULL, "no spelling corrections or word fallbacks"},
	{0},
};
static const struct cli_opt list_opts[] = {
	{"format", 0, CLI_OPT_VALUE, "F",
	 "each entry's whole line from a format (%pos% its number, %url%, %{a|b}, ...)"},
	{"json", 0, CLI_OPT_FLAG, NULL, "a JSON array of items with every property"},
	{0},
};
static const struct cli_opt import_opts[] = {
	{"append", 0, CLI_OPT_FLAG, NULL,
	 "add to an existing playlist (without it, an existing NAME is refused)"},
	{0},
};
static const struct cli_opt export_opts[] = {
	{"relative", 0, CLI_OPT_FLAG, NULL, "paths relative to FILE's folder"},
	{"format", 0, CLI_OPT_VALUE, "m3u|pls|xspf", "the file format (default: from FILE's name, else M3U8)"},
	{0},
};
static const struct cli_opt jump_opts[] = {
	{"none", 0, CLI_OPT_FLAG, NULL, "no jump: stop when NAME ends"},
	{0},
};

#define ANY_NAME "NAME is \"Road Trip\" or \"Playlists/Road Trip\"."
#define ACTIVE "Without NAME the active playlist."

static const struct cli_command playlist_commands[] = {
	{"playlist new", NULL, "playlist new NAME [--queue]",
	 "create an empty playlist (--queue: played entries are removed)", ANY_NAME, 1, 1, 0,
	 new_opts, cmd_playlist_new},
	{"playlist add", NULL, "playlist add [NAME] QUERY [--exact]",
	 "append the tracks `crate search QUERY` lists",
	 "With one word it is the query (or a stream's URL) for the active playlist; with more "
	 "the\nfirst names the playlist. The tracks are those `crate search` lists, in library\n"
	 "order; what the search forgave (a corrected word) is said on stderr.",
	 1, CLI_ANY, CLI_DASH_ARGS, add_opts, cmd_playlist_add},
	{"playlist insert", NULL, "playlist insert NAME POS QUERY [--exact]",
	 "insert the tracks search lists before POS", NULL, 3, CLI_ANY, CLI_DASH_ARGS, add_opts,
	 cmd_playlist_insert},
	{"playlist move", NULL, "playlist move NAME FROM TO", "move one entry", NULL, 3, 3, 0, NULL,
	 cmd_playlist_move},
	{"playlist remove", NULL, "playlist remove [NAME] POSITIONS",
	 "remove entries (3, 3-7, 1,4-6, 5-)", ACTIVE, 1, CLI_ANY, CLI_DASH_ARGS, NULL,
	 cmd_playlist_remove},
	{"playlist list", NULL, "playlist list [NAME] [--format F] [--json]",
	 "the entries, current one marked '>'", ACTIVE, 0, 1, 0, list_opts, cmd_playlist_list},
	{"playlist clear", NULL, "playlist clear [NAME]", "remove every entry", ACTIVE, 0, 1, 0,
	 NULL, cmd_playlist_clear},
	{"playlist import", NULL, "playlist import [--append] NAME FILE",
	 "a playlist from an M3U/M3U8, PLS or XSPF file",
	 "Makes a new playlist; --append adds to one that exists (recorded: u in the interface\n"
	 "undoes it). Entries not in the library are scanned; those not found are listed\n"
	 "(exit status 2).", 2,
	 2, 0, import_opts, cmd_playlist_import},
	{"playlist export", NULL, "playlist export [--relative] [--format m3u|pls|xspf] NAME [FILE]",
	 "write a playlist as M3U8 (default), PLS or XSPF",
	 "Without FILE (or with -) to standard output.", 1, 2, 0, export_opts,
	 cmd_playlist_export},
	{"playlist shuffle", NULL, "playlist shuffle [NAME]", "shuffle (the current entry goes first)",
	 ACTIVE, 0, 1, 0, NULL, cmd_playlist_shuffle},
	{"playlist sort", NULL, "playlist sort [NAME] FIELDS", "sort by fields ('artist,-year')",
	 ACTIVE, 1, 2, CLI_DASH_ARGS, NULL, cmd_playlist_sort},
	{"playlist use", NULL, "playlist use NAME", "make a playlist the active one", NULL, 1, 1, 0,
	 NULL, cmd_playlist_use},
	{"playlist jump", NULL, "playlist jump NAME TARGET|--none",
	 "play TARGET when NAME ends (the jumplist)", NULL, 1, 2, 0, jump_opts,
	 cmd_playlist_jump},
	{0},
};

const struct cli_group cli_playlist_group = {"playlist", "playlists", playlist_commands};
