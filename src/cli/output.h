/* Output shared by the CLI commands: untrusted text made safe for the
 * terminal, error messages (a query error with a caret under its column),
 * and library items printed as lines (a %prop% format) or as JSON. */
#ifndef CRATE_CLI_OUTPUT_H
#define CRATE_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "base/str.h"

struct app;
struct mlib_index;
struct cli_ctx;
struct item_format;

/* Untrusted bytes (tags, file names, collection names) sanitised for a terminal. */
void cli_put_safe(FILE *f, const char *s, size_t len);
/* cli_error(ctx, "%s", msg): "crate: <msg>" on ctx->err, sanitised.
 * Returns CLI_FAIL. */
int cli_fail_safe(struct cli_ctx *ctx, const char *msg);
/* A program's exit status rc, unless what it wrote to stdout did not all
 * arrive (a full disk under `crate list > file`, a closed pipe with
 * SIGPIPE ignored): then that is said on stderr and the status is
 * CLI_FAIL, so a script never takes a cut output for a whole one. */
int cli_stdout_status(int rc);
/* cli_fail_safe(err->msg); for a parse error with a column (err->pos) also
 * the query and a caret under that column. Returns CLI_FAIL. */
int cli_fail_query(struct cli_ctx *ctx, const char *query, const struct crate_err *err);
/* A command that acts on what a query matches and found nothing:
 * "nothing matches 'QUERY': <not_done>". Returns CLI_FAIL (exit 1, as
 * pkill's for no match), so a script does not go on as if it acted. */
int cli_nothing_matches(struct cli_ctx *ctx, const char *query, const char *not_done);

/* The whole file at path ("-": stdin) into an owned buffer of *len bytes
 * (NUL-terminated); NULL with *err naming the file. */
char *cli_read_file(const char *path, size_t *len, struct crate_err *err);
/* argv[0..n) joined by spaces: a query given unquoted as several words. Owned. */
char *cli_join_args(char *const *argv, int n);
/* A media id "42" or "#42" (1..UINT32_MAX); false when s is not one. */
bool cli_parse_id(const char *s, uint32_t *id);

/* One line for an item into b from fmt (medialib/item_format.h; multiple
 * values joined by sep, %= joining its halves). fmt NULL is "artist -
 * album - title" with absent parts left out together with their
 * separators. An item whose file is missing is named from its stored row
 * and marked "  (missing)", as the interface shows it; an id whose row is
 * gone (forgotten) gives a line saying it is no longer in the library. */
void cli_item_line(struct strbuf *b, const struct app *app, uint32_t id,
		   const struct item_format *fmt, const char *sep);
/* What --format beside --json says on stderr: a JSON item has every
 * property, so the format is ignored, and a script should not have to
 * guess why (the JSON is still printed: scripts passing both keep it). */
#define CLI_FORMAT_WITH_JSON "--format is ignored with --json (a JSON item has every property)"

/* CLI_OK when fmt (may be NULL) is a valid --format, else the error with a
 * caret under its column; with json the format is not used and a warning
 * says so. */
int cli_check_format(struct cli_ctx *ctx, const char *fmt, bool json);
/* {"id": N, "prop": value or [values], ...}: every property of the item. */
void cli_item_json(struct strbuf *b, const struct mlib_index *idx, uint32_t id);

struct cli_items_out {
	const char *fmt; /* line format; NULL: cli_item_line's default */
	bool json;       /* a JSON array of cli_item_json objects instead of lines
			  * (an entry the index lacks: {"id": N, "missing": true, ...}) */
	bool numbered;   /* playlist listing: "  3. ...", the current entry marked '>';
			  * with fmt the format alone, %pos% the entry's number;
			  * in JSON "pos": 3 and "current": true */
	long current;    /* 0-based current entry, -1 for none */
	FILE *out;       /* where to print (a command's ctx->out) */
	const char *sep; /* between a property's values; NULL: MLIB_VALUE_SEPARATOR */
};

/* Print items to o->out as lines (sanitised) or as a JSON array; -1 with
 * err, printing nothing, when o->fmt is malformed (cli_check_format says
 * so with a caret before any work). */
int cli_print_items(const struct app *app, const uint32_t *ids, size_t n,
		    const struct cli_items_out *o, struct crate_err *err);

#endif
