/* crate: the launcher. One-shot commands that a hotkey or a status bar runs
 * many times a second (`crate remote status`, `crate remote next`,
 * `crate --version`, `crate --help`) are answered here, in a program that
 * links only libc, so that they start in about a millisecond. Everything
 * else execs crate-core (src/main.c), the whole player, with the same
 * arguments: the exec costs well under a millisecond next to the ~40 ms that
 * loading FFmpeg, TagLib and ALSA takes.
 *
 * `crate search` is answered by a running crate when one has the same
 * database open: its index is in memory already, so the answer takes a
 * round trip instead of loading the library (APP_REMOTE_CLI in
 * app_remote.h). Otherwise, and whenever the running crate declines or
 * fails, crate-query (src/query.c) runs it: crate-core's own search
 * command in a program that loads SQLite but no decoder, so the output
 * and any error are always crate-core's.
 *
 * crate-core and crate-query are looked up next to this program (the
 * build tree), then at CRATE_CORE_RELDIR from this program's directory
 * (an installed tree: bindir to libexecdir/crate, "../libexec/crate" by
 * default, computed by the Makefile), so an installation is relocatable
 * and a build never runs an installed core. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app_remote.h"
#include "base/config.h"
#include "base/str.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "core_path.h" /* CRATE_CORE_RELDIR, written by the Makefile */

/* crate-core --help, captured at build time (scripts/embed-text.sh). */
extern const char crate_help_text[];

/* The one group the launcher runs itself. */
static const struct cli_group *const launcher_groups[] = {&cli_remote_group, NULL};

/* Replace this process with program ("crate-core" or "crate-query");
 * returns only on failure. */
static int exec_core(struct cli_ctx *ctx, const char *program, char **argv)
{
	static const char *const places[] = {"", CRATE_CORE_RELDIR "/"};
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return cli_error(ctx, "cannot find %s: /proc/self/exe: %s", program, strerror(errno));
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	/* Large arrays on transparent huge pages: glibc's malloc advises its
	 * big mappings when this tunable is set, and it reads tunables only as
	 * a program starts, hence here. A million-track index page-faults
	 * ~45,000 times without it and ~20,000 times with it (a start from the
	 * snapshot takes ~30 % less CPU, RSS grows ~1 MB). A user's own
	 * GLIBC_TUNABLES is left alone; the program removes ours again so that
	 * the programs it starts do not inherit it (cli_launcher_env_drop). */
	if (!getenv("GLIBC_TUNABLES")) {
		setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
		setenv("CRATE_LAUNCHER_TUNABLES", "1", 1);
	}
	int first_errno = 0;
	char path[PATH_MAX + 64];
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		snprintf(path, sizeof path, "%s/%s%s", self, places[i], program);
		execv(path, argv);
		if (!first_errno || errno != ENOENT)
			first_errno = errno;
	}
	return cli_error(ctx, "cannot run %s (looked in %s and %s/%s): %s", program, self, self,
			 CRATE_CORE_RELDIR, strerror(first_errno));
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20)
			return true;
	return false;
}

/* A forwarded command's answer: its stdout, and the lines it printed on
 * stderr (marked APP_REMOTE_STDERR) to stderr. */
static void print_answer(const char *a, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(a + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - a) + 1 : len;
		if (a[i] == APP_REMOTE_STDERR)
			fwrite(a + i + 1, 1, end - i - 1, stderr);
		else
			fwrite(a + i, 1, end - i, stdout);
		i = end;
	}
}

/* Ask a running crate to run `search` (argv[0]) on the database the
 * options name, printing its answer. False when it cannot (no crate runs,
 * another database, an argument the line protocol cannot carry, any
 * error): the caller then runs crate-core. */
static bool search_remote(const struct cli_ctx *ctx, int argc, char **argv)
{
	struct crate_err err = {0};
	char *dir = NULL, *db = NULL, *sock = NULL, *real = NULL;
	bool done = false;
	if (!ctx->db_path && !(dir = config_data_dir(&err)))
		goto out;
	db = ctx->db_path ? xstrdup(ctx->db_path) : xasprintf("%s/library.db", dir);
	/* A database that does not exist yet is crate-core's to create. */
	if (!(real = realpath(db, NULL)) || !(sock = app_remote_socket_path(&err)))
		goto out;
	struct strbuf line;
	strbuf_init(&line, 256);
	strbuf_addf(&line, "%s %s", APP_REMOTE_CLI, real);
	for (int i = 0; i < argc; i++) {
		strbuf_addc(&line, '\t');
		strbuf_adds(&line, argv[i]);
	}
	/* Tabs separate the words; no word may hold one, nor a newline. */
	bool sendable = line.len <= APP_REMOTE_MAX_LINE && !has_control(real);
	for (int i = 0; i < argc && sendable; i++)
		sendable = !has_control(argv[i]);
	struct strbuf reply;
	strbuf_init(&reply, 4096);
	if (sendable && app_remote_send_max(sock, line.buf, &reply, 5000, SIZE_MAX / 2, &err) == 0) {
		print_answer(reply.buf ? reply.buf : "", reply.len);
		done = true;
	}
	strbuf_free(&reply);
	strbuf_free(&line);
out:
	free(real);
	free(sock);
	free(db);
	free(dir);
	return done;
}

int main(int argc, char **argv)
{
	struct cli_ctx ctx = {0};
	cli_ctx_stdio(&ctx);
	int i = argc;
	switch (cli_parse_globals(argc, argv, &ctx, &i)) {
	case CLI_GLOBAL_VERSION:
		printf("crate %s\n", CRATE_VERSION);
		return cli_stdout_status(CLI_OK);
	case CLI_GLOBAL_HELP:
		fputs(crate_help_text, stdout);
		return cli_stdout_status(CLI_OK);
	case CLI_GLOBAL_UNKNOWN:
		fputs(crate_help_text, stderr);
		return CLI_FAIL;
	case CLI_GLOBAL_ERROR:
		return CLI_FAIL;
	case CLI_GLOBAL_RUN:
		break;
	}
	if (i < argc && strcmp(argv[i], "remote") == 0)
		return cli_stdout_status(cli_dispatch_in(launcher_groups, &ctx, argc - i, argv + i));
	if (i < argc && strcmp(argv[i], "search") == 0)
		return search_remote(&ctx, argc - i, argv + i)
			       ? cli_stdout_status(CLI_OK)
			       : exec_core(&ctx, "crate-query", argv);
	return exec_core(&ctx, "crate-core", argv);
}
