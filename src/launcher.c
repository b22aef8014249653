/* crate: the launcher. One-shot commands that a hotkey or a status bar runs
 * many times a second (`crate remote status`, `crate remote next`,
 * `crate --version`, `crate --help`) are answered here, in a program that
 * links only libc, so that they start in about a millisecond. Everything
 * else execs crate-core (src/main.c), the whole player, with the same
 * arguments: the exec costs well under a millisecond next to the ~40 ms that
 * loading FFmpeg, TagLib and ALSA takes.
 *
 * crate-core is looked up next to this program (the build tree), then in
 * ../libexec/crate/ from this program's directory (an installed tree), so
 * an installation is relocatable and a build never runs an installed core. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* crate-core --help, captured at build time (scripts/embed-text.sh). */
extern const char crate_help_text[];

const struct cli_command *cli_find(const char *name)
{
	for (const struct cli_command *c = cli_remote_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* Replace this process with crate-core; returns only on failure. */
static int exec_core(char **argv)
{
	static const char *const places[] = {"/crate-core", "/../libexec/crate/crate-core"};
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return cli_error("cannot find crate-core: /proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	int first_errno = 0;
	char path[PATH_MAX + 64];
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		snprintf(path, sizeof path, "%s%s", self, places[i]);
		execv(path, argv);
		if (!first_errno || errno != ENOENT)
			first_errno = errno;
	}
	return cli_error("cannot run crate-core (looked in %s and %s/../libexec/crate): %s", self,
			 self, strerror(first_errno));
}

int main(int argc, char **argv)
{
	struct cli_ctx ctx = {0};
	int i = argc;
	switch (cli_parse_globals(argc, argv, &ctx, &i)) {
	case CLI_GLOBAL_VERSION:
		printf("crate %s\n", CRATE_VERSION);
		return CLI_OK;
	case CLI_GLOBAL_HELP:
		fputs(crate_help_text, stdout);
		return CLI_OK;
	case CLI_GLOBAL_UNKNOWN:
		fputs(crate_help_text, stderr);
		return CLI_FAIL;
	case CLI_GLOBAL_ERROR:
		return CLI_FAIL;
	case CLI_GLOBAL_RUN:
		break;
	}
	if (i < argc && strcmp(argv[i], "remote") == 0)
		return cli_remote_commands[0].run(&ctx, argc - i, argv + i);
	return exec_core(argv);
}
