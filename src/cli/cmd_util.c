/* Argument helpers of the collection commands (cmd_util.h). */
#include "cli/cmd_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app_coll.h"
#include "app/app_plfile.h"
#include "base/str.h"
#include "cli/output.h"
#include "coll/search.h"
#include "coll/store.h"

bool cli_parse_count(const char *s, long min, long *out)
{
	int64_t v;
	if (!str_parse_int64(s, strlen(s), &v) || v < min || v > INT32_MAX)
		return false;
	*out = (long)v;
	return true;
}

char *cli_playlist_arg(struct cli_ctx *ctx, const char *arg)
{
	char *ns, *name;
	struct crate_err err = {0};
	if (str_has_prefix(arg, COLL_NS_PLAYLISTS "/"))
		arg += strlen(COLL_NS_PLAYLISTS "/");
	else if (strchr(arg, '/') && coll_name_split(arg, &ns, &name, &err) == 0) {
		char *msg = xasprintf("%s/%s is not a playlist (playlists live in Playlists/)", ns,
				      name);
		cli_fail_safe(ctx, msg);
		free(msg);
		free(ns);
		free(name);
		return NULL;
	}
	if (!*arg) {
		cli_error(ctx, "empty playlist name");
		return NULL;
	}
	return xstrdup(arg);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static int write_in_place(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return errno;
	int e = write_all(fd, buf, len);
	if (close(fd) != 0 && !e)
		e = errno;
	return e;
}

int cli_write_file(const char *path, const char *buf, size_t len)
{
	struct stat st;
	char *target = realpath(path, NULL); /* a link's target; NULL: a new file */
	if (!target || stat(target, &st) != 0 || !S_ISREG(st.st_mode)) {
		free(target);
		return write_in_place(path, buf, len);
	}
	char *slash = strrchr(target, '/');
	char *tmp = xasprintf("%.*s/.%s.XXXXXX", (int)(slash - target), target, slash + 1);
	int fd = mkstemp(tmp);
	if (fd < 0) { /* a folder we may not write to, a file we may: as before */
		free(tmp);
		free(target);
		return write_in_place(path, buf, len);
	}
	int e = 0;
	if (fchmod(fd, st.st_mode & 07777) != 0)
		e = errno;
	if (!e)
		e = write_all(fd, buf, len);
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, target) != 0)
		e = errno;
	if (e)
		unlink(tmp);
	free(tmp);
	free(target);
	return e;
}

void cli_vsay(struct cli_ctx *ctx, const char *tail, const char *fmt, va_list ap)
{
	char *msg = NULL;
	int n = vasprintf(&msg, fmt, ap);
	if (n < 0)
		return;
	cli_put_safe(ctx->err, msg, (size_t)n);
	fputs(tail, ctx->err);
	fputc('\n', ctx->err);
	free(msg);
}

void cli_say(struct cli_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_vsay(ctx, "", fmt, ap);
	va_end(ap);
}

char *cli_path_arg(const struct cli_ctx *ctx, const char *arg)
{
	return ctx->on_line ? str_expand_home(arg) : xstrdup(arg);
}

int cli_outcome(struct cli_ctx *ctx, int rc, const struct crate_err *err)
{
	return rc == 0 ? CLI_OK : cli_fail_safe(ctx, err->msg);
}

int cli_import_report(struct cli_ctx *ctx, const char *file, const char *name,
		      const struct app_import_report *rep, bool appended)
{
	for (size_t i = 0; i < rep->nproblems; i++) {
		char *msg = xasprintf("%s:%zu: %s", file, rep->problems[i].line,
				      rep->problems[i].what);
		cli_fail_safe(ctx, msg);
		free(msg);
	}
	fprintf(ctx->err, "Playlists/");
	cli_put_safe(ctx->err, name, strlen(name));
	/* not imported: missing, not playable, another scheme or host */
	fprintf(ctx->err, ": %zu of %zu %s imported (%zu newly scanned", rep->imported, rep->entries,
		str_plural(rep->entries, "entry", "entries"), rep->scanned);
	if (rep->cue_files) /* one entry, several tracks: said, or the count looks wrong */
		fprintf(ctx->err, "; %zu %s split by %s cue sheet%s, as %zu tracks", rep->cue_files,
			str_plural(rep->cue_files, "file", "files"), rep->cue_files == 1 ? "its" : "their",
			rep->cue_files == 1 ? "" : "s", rep->cue_tracks);
	fprintf(ctx->err, "), %zu not imported%s\n", rep->nproblems,
		appended && rep->imported && ctx->on_line ? " (u undoes)" : "");
	return rep->nproblems ? CLI_PARTIAL : CLI_OK;
}

int cli_search_ids(struct cli_ctx *ctx, struct app *app, const char *query, unsigned flags,
		   struct coll_result *out, struct crate_err *err)
{
	struct strbuf notes;
	strbuf_init(&notes, 64);
	int rc = app_search_text(app, query, flags, out, &notes, err);
	if (notes.len)
		cli_fail_safe(ctx, notes.buf);
	strbuf_free(&notes);
	return rc;
}

unsigned cli_search_flags(const struct cli_args *a)
{
	return COLL_SEARCH_NO_RANK | (cli_flag(a, "exact") ? COLL_SEARCH_EXACT : 0);
}
