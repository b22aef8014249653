#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

struct test_case {
	const char *name;
	harness_fn fn;
	const char *file;
};

static struct test_case tests[1024];
static int ntests;
static int failures_in_test;
static char tmpdir[PATH_MAX];
static char srcdir[PATH_MAX];
static char corpus[PATH_MAX];

#define EXIT_SKIP 77
#define EXIT_FAIL 1

void harness_register(const char *name, harness_fn fn, const char *file)
{
	if (ntests < (int)(sizeof tests / sizeof tests[0]))
		tests[ntests++] = (struct test_case){name, fn, file};
}

bool harness_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	if (ok)
		return true;
	failures_in_test++;
	if (failures_in_test <= 20) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "    %s:%d: check failed: ", file, line);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	return false;
}

void harness_abort_test(void)
{
	fflush(NULL);
	_exit(EXIT_FAIL);
}

void harness_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "    skipped: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fflush(NULL);
	_exit(EXIT_SKIP);
}

const char *harness_tmpdir(void)
{
	return tmpdir;
}

const char *harness_srcdir(void)
{
	return srcdir;
}

const char *harness_corpus_dir(void)
{
	struct stat st;
	return corpus[0] && stat(corpus, &st) == 0 && S_ISDIR(st.st_mode) ? corpus : NULL;
}

static void remove_tree(const char *path)
{
	char cmd[PATH_MAX + 32];
	/* The path is ours (mkdtemp), never user text. */
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "    warning: could not remove %s\n", path);
}

static void find_dirs(const char *argv0)
{
	const char *env = getenv("CRATE_SRCDIR");
	if (env) {
		snprintf(srcdir, sizeof srcdir, "%s", env);
	} else if (!getcwd(srcdir, sizeof srcdir)) {
		snprintf(srcdir, sizeof srcdir, ".");
	}
	(void)argv0;
	env = getenv("CRATE_SHARED");
	if (env)
		snprintf(corpus, sizeof corpus, "%s/corpus", env);
	else
		snprintf(corpus, sizeof corpus, "%s/../shared/corpus", srcdir);
}

static int run_one(const struct test_case *t, unsigned timeout)
{
	char tmpl[] = "/tmp/crate-test-XXXXXX";
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		return EXIT_FAIL;
	}
	snprintf(tmpdir, sizeof tmpdir, "%s", tmpl);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(timeout);
		failures_in_test = 0;
		t->fn();
		fflush(NULL);
#ifdef __SANITIZE_ADDRESS__
		/* _exit skips LeakSanitizer's check at exit: the test's leaks
		 * are looked for here, and fail it. */
		if (__lsan_do_recoverable_leak_check()) {
			fprintf(stderr, "    leaks found (LeakSanitizer's report above)\n");
			failures_in_test++;
		}
#endif
		_exit(failures_in_test ? EXIT_FAIL : 0);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	const char *keep = getenv("HARNESS_KEEP");
	if (!keep || strcmp(keep, "1") != 0)
		remove_tree(tmpl);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		fprintf(stderr, "    killed by signal %d%s\n", sig,
			sig == SIGALRM ? " (timeout)" : "");
		return EXIT_FAIL;
	}
	return WEXITSTATUS(status);
}

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A test that took 2 s or more says how long, to show where a suite's time
 * goes (the shell suites' tests/lib.sh does the same). */
static void print_result(const char *word, const char *name, double secs)
{
	if (secs >= 2.0)
		printf("%-7s %s (%.1f s)\n", word, name, secs);
	else
		printf("%-7s %s\n", word, name);
}

int main(int argc, char **argv)
{
	find_dirs(argv[0]);
	const char *filter = argc > 1 ? argv[1] : getenv("TEST_FILTER");
	const char *tmo = getenv("TEST_TIMEOUT");
	unsigned timeout = tmo ? (unsigned)atoi(tmo) : 120;
	int passed = 0, failed = 0, skipped = 0;
	for (int i = 0; i < ntests; i++) {
		if (filter && !strstr(tests[i].name, filter))
			continue;
		double start = seconds_now();
		int rc = run_one(&tests[i], timeout);
		double secs = seconds_now() - start;
		if (rc == 0) {
			print_result("ok", tests[i].name, secs);
			passed++;
		} else if (rc == EXIT_SKIP) {
			print_result("skip", tests[i].name, secs);
			skipped++;
		} else {
			print_result("FAIL", tests[i].name, secs);
			failed++;
		}
		fflush(stdout);
	}
	printf("RESULT %d %d %d\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
