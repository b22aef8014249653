/* Commands of the "library" group: scan, info, list. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_library.h"
#include "base/str.h"
#include "base/utf8.h"
#include "cli/cli.h"
#include "medialib/index.h"
#include "medialib/media.h"

/* Print untrusted bytes (tags, file names) made safe for a terminal. */
static void put_safe(FILE *f, const char *s, size_t len)
{
	char *clean = utf8_sanitize(s, len);
	fputs(clean, f);
	free(clean);
}

/* ---- scan ---- */

struct scan_ui {
	int tty;
	double last; /* elapsed time of the last line printed */
};

static void scan_progress(void *ud, const struct mlib_scan_progress *p)
{
	struct scan_ui *ui = ud;
	/* A log file gets a line every 2 s, a terminal one line redrawn. */
	if (!ui->tty && !p->finished && p->elapsed - ui->last < 2.0)
		return;
	ui->last = p->elapsed;
	if (ui->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr,
		"%s %" PRIu64 " files: %" PRIu64 " added, %" PRIu64 " updated, %" PRIu64
		" unchanged, %" PRIu64 " failed (%.0f files/s)",
		p->walking ? "walking," : p->finished ? "scanned" : "scanning,", p->seen, p->added,
		p->updated, p->unchanged, p->failed, p->files_per_sec);
	if (!ui->tty || p->finished)
		fputc('\n', stderr);
	fflush(stderr);
}

static int cmd_scan(struct cli_ctx *ctx, int argc, char **argv)
{
	bool quiet = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0)
			quiet = true;
		else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else
			return cli_usage(cli_find("scan"));
	}
	if (i >= argc)
		return cli_usage(cli_find("scan"));
	if (!ctx->app) {
		/* Open without loading the index: a warm rescan of a big library
		 * would spend most of its time building an index nobody reads. */
		struct crate_err oerr = {0};
		struct app_opts opts = {.db_path = ctx->db_path, .config_path = ctx->config_path,
					.no_index = true};
		if (app_open(&ctx->app, &opts, &oerr) != 0)
			return cli_error("%s", oerr.msg);
	}
	struct app *app = ctx->app;
	struct scan_ui ui = {isatty(2), 0};
	struct mlib_scan_result res;
	struct crate_err err = {0};
	int rc = app_scan(app, (const char *const *)argv + i, (size_t)(argc - i),
			  quiet ? NULL : scan_progress, &ui, &res, &err);
	for (size_t e = 0; e < res.nerrors; e++) {
		fputs("crate: ", stderr);
		put_safe(stderr, res.errors[e].msg, strlen(res.errors[e].msg));
		fputc('\n', stderr);
	}
	const struct mlib_scan_progress *t = &res.totals;
	if (!quiet && t->missing)
		fprintf(stderr, "%" PRIu64 " files are gone (marked missing)\n", t->missing);
	size_t nerr = res.nerrors;
	mlib_scan_result_free(&res);
	if (rc != 0)
		return cli_error("%s", err.msg);
	return nerr ? CLI_PARTIAL : CLI_OK;
}

/* ---- shared: find an item, print properties ---- */

static int parse_id(const char *s, uint32_t *id)
{
	if (*s == '#')
		s++;
	int64_t v;
	if (!*s || !str_parse_int64(s, strlen(s), &v) || v < 1 || v > UINT32_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

static int resolve_item(struct app *app, const char *arg, uint32_t *id)
{
	if (parse_id(arg, id) == 0) {
		if (!mlib_index_has_media(app->index, *id))
			return cli_error("media #%u is not in the library", *id);
		return 0;
	}
	char *abs = realpath(arg, NULL);
	struct crate_err err = {0};
	int rc = mlib_media_find_url(app->db, abs ? abs : arg, strlen(abs ? abs : arg), id, &err);
	free(abs);
	if (rc != 0) {
		char *clean = utf8_sanitize(arg, strlen(arg));
		cli_error("%s: not in the library", clean);
		free(clean);
		return CLI_FAIL;
	}
	if (!mlib_index_has_media(app->index, *id))
		return cli_error("media #%u is missing (the file is gone)", *id);
	return 0;
}

static int cmd_info(struct cli_ctx *ctx, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage(cli_find("info"));
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	int status = CLI_OK;
	for (int a = 1; a < argc; a++) {
		uint32_t id;
		if (resolve_item(app, argv[a], &id) != 0) {
			status = CLI_FAIL;
			continue;
		}
		const struct mlib_index *idx = app->index;
		printf("id = %u\n", id);
		for (int p = 0; p < mlib_index_prop_count(idx); p++) {
			const char *name = mlib_index_prop_name(idx, p);
			if (mlib_index_prop_kind(idx, p) == MLIB_PROP_INT) {
				int64_t v;
				if (mlib_index_int_value(idx, p, id, &v))
					printf("%s = %" PRId64 "\n", name, v);
				continue;
			}
			const uint32_t *vids;
			size_t n = mlib_index_str_values(idx, p, id, &vids);
			for (size_t k = 0; k < n; k++) {
				const char *v = mlib_index_dict_text(idx, p, vids[k]);
				/* free-form tag names come from files too */
				put_safe(stdout, name, strlen(name));
				fputs(" = ", stdout);
				put_safe(stdout, v, strlen(v));
				putchar('\n');
			}
		}
		if (a + 1 < argc)
			putchar('\n');
	}
	return status;
}

/* ---- list ---- */

static void json_str(struct strbuf *b, const char *s, size_t len)
{
	strbuf_addc(b, '"');
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		if (cp == '"' || cp == '\\') {
			strbuf_addc(b, '\\');
			strbuf_addc(b, (char)cp);
		} else if (cp < 0x20 || cp == 0x7f) {
			strbuf_addf(b, "\\u%04x", cp);
		} else {
			char enc[4];
			strbuf_add(b, enc, utf8_encode(cp, enc)); /* invalid bytes -> U+FFFD */
		}
		i += n;
	}
	strbuf_addc(b, '"');
}

static void list_json_item(struct strbuf *b, const struct mlib_index *idx, uint32_t id)
{
	strbuf_addf(b, "{\"id\": %u", id);
	for (int p = 0; p < mlib_index_prop_count(idx); p++) {
		const char *name = mlib_index_prop_name(idx, p);
		if (mlib_index_prop_kind(idx, p) == MLIB_PROP_INT) {
			int64_t v;
			if (mlib_index_int_value(idx, p, id, &v)) {
				strbuf_adds(b, ", ");
				json_str(b, name, strlen(name));
				strbuf_addf(b, ": %" PRId64, v);
			}
			continue;
		}
		const uint32_t *vids;
		size_t n = mlib_index_str_values(idx, p, id, &vids);
		if (!n)
			continue;
		strbuf_adds(b, ", ");
		json_str(b, name, strlen(name));
		strbuf_adds(b, n > 1 ? ": [" : ": ");
		for (size_t k = 0; k < n; k++) {
			const char *v = mlib_index_dict_text(idx, p, vids[k]);
			if (k)
				strbuf_adds(b, ", ");
			json_str(b, v, strlen(v));
		}
		if (n > 1)
			strbuf_addc(b, ']');
	}
	strbuf_addc(b, '}');
}

/* Expand %prop% placeholders for one item; a multi-valued property shows
 * its values joined with ", ". */
static void list_format_item(struct strbuf *b, const struct mlib_index *idx, uint32_t id,
			     const char *fmt, bool title_fallback)
{
	for (const char *p = fmt; *p;) {
		if (*p != '%') {
			strbuf_addc(b, *p++);
			continue;
		}
		const char *end = strchr(p + 1, '%');
		if (!end) {
			strbuf_adds(b, p);
			break;
		}
		if (end == p + 1) {
			strbuf_addc(b, '%');
			p = end + 1;
			continue;
		}
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
		p = end + 1;
		if (strcmp(name, "id") == 0) {
			strbuf_addf(b, "%u", id);
			continue;
		}
		int prop = mlib_index_prop(idx, name);
		size_t before = b->len;
		if (prop >= 0 && mlib_index_prop_kind(idx, prop) == MLIB_PROP_INT) {
			int64_t v;
			if (mlib_index_int_value(idx, prop, id, &v))
				strbuf_addf(b, "%" PRId64, v);
		} else if (prop >= 0) {
			const uint32_t *vids;
			size_t n = mlib_index_str_values(idx, prop, id, &vids);
			for (size_t k = 0; k < n; k++) {
				if (k)
					strbuf_adds(b, ", ");
				strbuf_adds(b, mlib_index_dict_text(idx, prop, vids[k]));
			}
		}
		if (title_fallback && b->len == before && strcmp(name, "title") == 0) {
			/* The display falls back to the file name (the property stays absent). */
			char buf[32];
			const char *url = mlib_index_get_text(idx, id, "url", buf, sizeof buf);
			if (url) {
				const char *slash = strrchr(url, '/');
				strbuf_adds(b, slash ? slash + 1 : url);
			}
		}
	}
}

static int cmd_list(struct cli_ctx *ctx, int argc, char **argv)
{
	const char *fmt = NULL;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
			fmt = argv[++i];
		else if (strncmp(argv[i], "--format=", 9) == 0)
			fmt = argv[i] + 9;
		else
			return cli_usage(cli_find("list"));
	}
	struct app *app = cli_app(ctx);
	if (!app)
		return CLI_FAIL;
	const struct mlib_index *idx = app->index;
	const struct u32vec *order = mlib_index_library_order(idx);
	struct strbuf b;
	strbuf_init(&b, 4096);
	if (json)
		fputs("[", stdout);
	for (size_t i = 0; i < order->n; i++) {
		strbuf_reset(&b);
		if (json) {
			strbuf_adds(&b, i ? ",\n  " : "\n  ");
			list_json_item(&b, idx, order->v[i]);
			fwrite(b.buf, 1, b.len, stdout);
		} else {
			list_format_item(&b, idx, order->v[i], fmt ? fmt : "%artist% - %title%", !fmt);
			put_safe(stdout, b.buf, b.len);
			putchar('\n');
		}
	}
	if (json)
		fputs(order->n ? "\n]\n" : "]\n", stdout);
	strbuf_free(&b);
	return CLI_OK;
}

const struct cli_command cli_library_commands[] = {
	{"scan", "scan [--quiet] PATH...", "add or update files and folders in the library",
	 cmd_scan},
	{"info", "info ID|PATH...", "every property of a library item", cmd_info},
	{"list", "list [--format '%artist% - %title%'] [--json]",
	 "the library in library order", cmd_list},
	{NULL, NULL, NULL, NULL},
};
