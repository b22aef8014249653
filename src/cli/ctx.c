/* The output streams of a command's context (cli.h): stdio, or a sink's
 * callbacks behind stdio streams so that every printer keeps its format
 * strings and only says where it prints. */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/str.h"

void cli_ctx_stdio(struct cli_ctx *ctx)
{
	ctx->out = stdout;
	ctx->err = stderr;
}

/* A stream's cookie: the sink and which of its callbacks this stream feeds. */
struct sink_cookie {
	struct cli_sink sink;
	bool is_err;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct sink_cookie *c = cookie;
	(c->is_err ? c->sink.err : c->sink.out)(c->sink.ud, buf, n);
	return (ssize_t)n;
}

static int sink_close(void *cookie)
{
	free(cookie);
	return 0;
}

static FILE *sink_stream(const struct cli_sink *sink, bool is_err)
{
	struct sink_cookie *c = xmalloc(sizeof *c);
	*c = (struct sink_cookie){*sink, is_err};
	FILE *f = fopencookie(c, "w", (cookie_io_functions_t){.write = sink_write,
							     .close = sink_close});
	if (!f) {
		free(c);
		return NULL;
	}
	/* By line: what out and err say stays in the order it was said. */
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

int cli_ctx_open_sink(struct cli_ctx *ctx, const struct cli_sink *sink, struct crate_err *err)
{
	ctx->out = sink_stream(sink, false);
	ctx->err = ctx->out ? sink_stream(sink, true) : NULL;
	if (!ctx->err) {
		int e = errno;
		if (ctx->out)
			fclose(ctx->out);
		ctx->out = NULL;
		return crate_err_set(err, CRATE_ERR_IO, "cannot capture a command's output: %s",
				     strerror(e));
	}
	return 0;
}

void cli_ctx_close_sink(struct cli_ctx *ctx)
{
	if (ctx->out)
		fclose(ctx->out);
	if (ctx->err)
		fclose(ctx->err);
	ctx->out = ctx->err = NULL;
}
