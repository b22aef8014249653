/* CLI output helpers (output.h): one place for how errors and untrusted
 * text look. Items are printed by output_items.c. */
#include "cli/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "cli/cli.h"

static FILE *err_stream(struct cli_ctx *ctx)
{
	return ctx && ctx->err ? ctx->err : stderr;
}

/* Every error and warning line goes out here. Its text may quote a path
 * (--db), a config value, a name or SQLite's report: control characters
 * are folded once here (utf8_sanitize), not at each error site, so none
 * reaches the terminal. */
static void err_line(struct cli_ctx *ctx, const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void err_line(struct cli_ctx *ctx, const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf b;
	strbuf_init(&b, 128);
	strbuf_vaddf(&b, fmt, ap);
	char *clean = utf8_sanitize(b.buf, b.len);
	fprintf(err_stream(ctx), "%s%s\n", prefix, clean);
	free(clean);
	strbuf_free(&b);
}

int cli_error(struct cli_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_line(ctx, "crate: ", fmt, ap);
	va_end(ap);
	return CLI_FAIL;
}

void cli_warning(struct cli_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_line(ctx, "crate: warning: ", fmt, ap);
	va_end(ap);
}

int cli_usage(struct cli_ctx *ctx, const struct cli_command *cmd)
{
	/* on the ':' line a command is typed without "crate " */
	fprintf(err_stream(ctx), "usage: %s%s\n", ctx && ctx->on_line ? "" : "crate ", cmd->usage);
	return CLI_FAIL;
}

void cli_put_safe(FILE *f, const char *s, size_t len)
{
	char *clean = utf8_sanitize(s, len);
	fputs(clean, f);
	free(clean);
}

int cli_fail_safe(struct cli_ctx *ctx, const char *msg)
{
	return cli_error(ctx, "%s", msg); /* which sanitises */
}

int cli_nothing_matches(struct cli_ctx *ctx, const char *query, const char *not_done)
{
	return cli_error(ctx, "nothing matches '%s': %s", query, not_done);
}

int cli_stdout_status(int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	/* errno is fflush's, or 0 when only an earlier write failed */
	fprintf(stderr, "crate: cannot write the output: %s\n",
		errno ? strerror(errno) : "a write failed");
	return CLI_FAIL;
}

int cli_fail_query(struct cli_ctx *ctx, const char *query, const struct crate_err *err)
{
	cli_fail_safe(ctx, err->msg);
	if (err->pos < 1 || (err->code != CRATE_ERR_PARSE && err->code != CRATE_ERR_INCOMPLETE))
		return CLI_FAIL;
	/* Columns count characters; sanitising keeps one per character. */
	char *clean = utf8_sanitize(query, strlen(query));
	size_t len = strlen(clean), bytes = 0;
	for (int c = 1; c < err->pos && bytes < len; c++) {
		uint32_t cp;
		bytes += utf8_decode(clean + bytes, len - bytes, &cp);
	}
	fprintf(err_stream(ctx), "  %s\n  %*s^\n", clean, (int)utf8_width(clean, bytes), "");
	free(clean);
	return CLI_FAIL;
}

char *cli_join_args(char *const *argv, int n)
{
	struct strbuf b;
	strbuf_init(&b, 64);
	for (int i = 0; i < n; i++) {
		if (i)
			strbuf_addc(&b, ' ');
		strbuf_adds(&b, argv[i]);
	}
	return strbuf_steal(&b);
}

bool cli_parse_id(const char *s, uint32_t *id)
{
	if (*s == '#')
		s++;
	int64_t v;
	if (!*s || !str_parse_int64(s, strlen(s), &v) || v < 1 || v > UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	return true;
}

char *cli_read_file(const char *path, size_t *len, struct crate_err *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f) {
		crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct strbuf b;
	strbuf_init(&b, 4096);
	char chunk[8192];
	size_t n;
	errno = 0;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		strbuf_add(&b, chunk, n);
	bool bad = ferror(f);
	int why = bad ? errno : 0; /* a folder opens, then reads EISDIR */
	if (f != stdin)
		fclose(f);
	if (bad) {
		crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, why ? strerror(why) : "read error");
		strbuf_free(&b);
		return NULL;
	}
	*len = b.len;
	return strbuf_steal(&b);
}
