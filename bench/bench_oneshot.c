/* One-shot command benchmark: the wall time of a whole process, from spawn
 * to exit, as a hotkey or a status-bar poll sees it.
 *
 *   bench_oneshot NAME RUNS COMMAND [ARGS...]
 *
 * Runs COMMAND RUNS times (stdout and stderr to /dev/null, after one
 * untimed warm-up run so that the binary and its libraries are in the page
 * cache) and prints one JSON line:
 *   {"name":"NAME","median_ms":..,"min_ms":..,"max_ms":..,"p90_ms":..,"n":RUNS,"failed":F}
 * F counts runs whose exit status was not 0. A second line, named NAME with
 * its "_ms" turned into "_cpu_ms", gives the same for the CPU time the
 * process used (user + system, from wait4): on a machine shared with other
 * work, wall time measures the machine, CPU time the program. bench/run-bench.sh calls it for
 * `crate --version`, `crate remote status`, `crate search` ... and for the
 * same commands through crate-core (the whole player: the path every
 * command took before the launcher) in the same run. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Run argv once; returns its wall time in ms, *cpu its CPU time (user +
 * system) in ms, *ok whether it exited 0. */
static double run_once(char **argv, int *ok, double *cpu)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	double t0 = now_ms();
	pid_t pid;
	int st = 0;
	struct rusage ru;
	*ok = 0;
	*cpu = 0;
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) == 0 &&
	    wait4(pid, &st, 0, &ru) == pid) {
		*ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	}
	double t1 = now_ms();
	posix_spawn_file_actions_destroy(&fa);
	return t1 - t0;
}

/* One JSON line for the runs times ms (sorted here). */
static void print_figure(const char *name, double *ms, int runs, int failed)
{
	qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
	double med = runs % 2 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
	printf("{\"name\":\"%s\",\"median_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,"
	       "\"p90_ms\":%.3f,\"n\":%d,\"failed\":%d}\n",
	       name, med, ms[0], ms[runs - 1], ms[(runs * 9) / 10 < runs ? (runs * 9) / 10 : runs - 1],
	       runs, failed);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_oneshot NAME RUNS COMMAND [ARGS...]\n");
		return 1;
	}
	const char *name = argv[1];
	int runs = atoi(argv[2]);
	if (runs < 1 || runs > 100000) {
		fprintf(stderr, "bench_oneshot: RUNS must be 1..100000\n");
		return 1;
	}
	char **cmd = argv + 3;
	int ok;
	double cpu;
	run_once(cmd, &ok, &cpu); /* warm-up: page cache, not measured */
	double *ms = calloc((size_t)runs, sizeof *ms), *cpu_ms = calloc((size_t)runs, sizeof *cpu_ms);
	if (!ms || !cpu_ms)
		return 1;
	int failed = 0;
	for (int i = 0; i < runs; i++) {
		ms[i] = run_once(cmd, &ok, &cpu_ms[i]);
		failed += !ok;
	}
	print_figure(name, ms, runs, failed);
	size_t nl = strlen(name);
	char cpu_name[512];
	if (nl > 3 && strcmp(name + nl - 3, "_ms") == 0)
		snprintf(cpu_name, sizeof cpu_name, "%.*s_cpu_ms", (int)(nl - 3), name);
	else
		snprintf(cpu_name, sizeof cpu_name, "%s_cpu", name);
	print_figure(cpu_name, cpu_ms, runs, failed);
	free(ms);
	free(cpu_ms);
	return 0;
}
