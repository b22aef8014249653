/* Argument helpers shared by the collection commands (cmd_coll.c,
 * cmd_playlist.c, cmd_pshuffle.c, cmd_search.c). Errors are printed to the
 * command's ctx->err. */
#ifndef CRATE_CLI_CMD_UTIL_H
#define CRATE_CLI_CMD_UTIL_H

#include <stdarg.h>
#include <stdbool.h>

#include "base/err.h"
#include "cli/cli.h"

/* A whole number from min to INT32_MAX; false when s is not one. */
bool cli_parse_count(const char *s, long min, long *out);
/* A playlist argument: "Road Trip" or "Playlists/Road Trip" -> "Road Trip"
 * (owned); NULL after saying why (another namespace, an empty name). */
char *cli_playlist_arg(struct cli_ctx *ctx, const char *arg);
/* A FILE or DIR argument as the command reads it (owned): on the ':'
 * line, where no shell ran, a leading ~, ~user or $HOME is expanded as
 * :scan and Tab's path completion read it; from a shell, as given. */
char *cli_path_arg(const struct cli_ctx *ctx, const char *arg);
/* Write len bytes of buf to the file at path: 0, or an errno. A regular
 * file that is there is replaced whole (a temporary file beside it,
 * renamed over it, its mode kept), so a failed write (a full disk) leaves
 * the file as it was rather than cut; anything else (a new file, a FIFO,
 * /dev/stdout), or a file in a folder that takes no new file, is written
 * in place. A symbolic link's target is replaced. */
int cli_write_file(const char *path, const char *buf, size_t len);
/* What a command did, one line on ctx->err, sanitised (it holds names):
 * "saved Collections/Rock". */
void cli_say(struct cli_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same from a va_list, with tail (ours, not sanitised) after it. */
void cli_vsay(struct cli_ctx *ctx, const char *tail, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* The exit status of an app call that returned rc, printing err->msg. */
int cli_outcome(struct cli_ctx *ctx, int rc, const struct crate_err *err);

struct app;
struct coll_result;
/* What `crate search` lists for query (app_search_text with flags
 * COLL_SEARCH_*) into out, for a command that acts on it (rate, play);
 * what the search forgave is said on ctx->err as search says it. 0, or -1
 * with *err. */
int cli_search_ids(struct cli_ctx *ctx, struct app *app, const char *query, unsigned flags,
		   struct coll_result *out, struct crate_err *err);
/* The search flags of a command acting on a query's matches: library
 * order (COLL_SEARCH_NO_RANK, as `crate search --order library` lists
 * them), and COLL_SEARCH_EXACT when it was given --exact. */
unsigned cli_search_flags(const struct cli_args *a);

struct app_import_report;
/* What importing file as Playlists/name did, on ctx->err: each entry not
 * imported with its line and reason, then the counts. CLI_PARTIAL when
 * some entry was not imported, else CLI_OK. appended: the entries went
 * into a list that was there, recorded for undo (said on the ':' line). */
int cli_import_report(struct cli_ctx *ctx, const char *file, const char *name,
		      const struct app_import_report *rep, bool appended);

#endif
