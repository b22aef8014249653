/* Start-up benchmark: how long a crate process takes from "open the
 * database" to "index ready", and how much memory it holds then.
 *
 *   bench_startup DB LABEL [cold|warm]
 *
 * Without a mode the database is opened read-only (a snapshot present is
 * used, none is written). cold: the index snapshot (DB.index) is removed
 * first and the database opened for writing, as crate does: SQLite load
 * plus writing the snapshot. warm: opened for writing with the snapshot
 * in place (run after cold). Also prints cpu_LABEL_s (user + system of
 * the process: the load's threads, not the detached snapshot writer) and
 * cpu_main_LABEL_s (the calling thread's alone).
 * cold and cold-sync: cold writes the snapshot as crate's start-up does,
 * from a detached process (MLIB_LOAD_WRITE_DETACHED: not part of the time;
 * the program then waits, untimed, for the file so that a warm run can
 * follow); cold-sync writes it before the load returns, inside the time
 * (what every start did before the detached write).
 *
 * One measurement per process (so peak RSS is this load's, not an earlier
 * one's): opens DB, runs mlib_index_load, and prints JSON lines
 *   {"name":"startup_LABEL_s","value":...,"unit":"s"}   open + load + finish
 *   {"name":"rss_LABEL_mb","value":...,"unit":"MB"}     peak RSS (VmHWM)
 *   {"name":"index_mem_LABEL_mb","value":...,"unit":"MB"} mlib_index_memory
 * bench/run-bench.sh runs it several times and reports the median. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Peak resident set size in kB from /proc/self/status, or -1. */
static long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long kb = -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmHWM:", 6) == 0) {
			kb = strtol(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: bench_startup DB LABEL [cold|cold-sync|warm]\n");
		return 1;
	}
	const char *mode = argc == 4 ? argv[3] : "";
	unsigned flags = *mode ? 0 : MLIB_DB_READONLY;
	bool cold = strncmp(mode, "cold", 4) == 0;
	unsigned load_flags = strcmp(mode, "cold") == 0 ? MLIB_LOAD_WRITE_DETACHED : 0;
	char snap[4096];
	snprintf(snap, sizeof snap, "%s.index", argv[1]);
	if (cold) {
		unlink(snap);
	}
	struct mlib_load_info info;
	struct crate_err err = {0};
	struct mlib_db *db = NULL;
	struct mlib_index *idx = NULL;
	double t0 = now_s();
	if (mlib_db_open(argv[1], flags, &db, &err) != 0 ||
	    mlib_index_load_ex(db, load_flags, &idx, &info, &err) != 0) {
		fprintf(stderr, "bench_startup: %s\n", err.msg);
		mlib_db_close(db);
		return 1;
	}
	double t1 = now_s();
	long rss = peak_rss_kb();
	struct rusage ru, main_ru;
	getrusage(RUSAGE_SELF, &ru);
	getrusage(RUSAGE_THREAD, &main_ru);
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	double cpu_main = (double)main_ru.ru_utime.tv_sec + (double)main_ru.ru_utime.tv_usec / 1e6 +
			  (double)main_ru.ru_stime.tv_sec + (double)main_ru.ru_stime.tv_usec / 1e6;
	if (strcmp(mode, "warm") == 0 && !info.from_snapshot)
		fprintf(stderr, "bench_startup: warm start did not use the snapshot: %s\n", info.why);
	printf("{\"name\":\"startup_%s_s\",\"value\":%.4f,\"unit\":\"s\",\"n\":%u,"
	       "\"snapshot\":%s}\n",
	       argv[2], t1 - t0, mlib_index_count(idx), info.from_snapshot ? "true" : "false");
	printf("{\"name\":\"cpu_%s_s\",\"value\":%.4f,\"unit\":\"s\"}\n", argv[2], cpu);
	/* The calling thread alone: the load's critical path when the machine
	 * has a core free for the reader thread (a busy one stretches the
	 * wall time, not this). */
	printf("{\"name\":\"cpu_main_%s_s\",\"value\":%.4f,\"unit\":\"s\"}\n", argv[2],
	       cpu_main);
	if (rss >= 0)
		printf("{\"name\":\"rss_%s_mb\",\"value\":%.1f,\"unit\":\"MB\"}\n", argv[2],
		       (double)rss / 1024.0);
	printf("{\"name\":\"index_mem_%s_mb\",\"value\":%.1f,\"unit\":\"MB\"}\n", argv[2],
	       (double)mlib_index_memory(idx) / (1024.0 * 1024.0));
	/* The snapshot's size per track (issue 21: database + snapshot under
	 * 300 bytes per track at 1M), when one was used. */
	struct stat st, dbst;
	uint32_t tracks = mlib_index_count(idx);
	if (info.from_snapshot && tracks && stat(snap, &st) == 0) {
		printf("{\"name\":\"snapshot_%s_bytes_per_track\",\"value\":%.1f,\"unit\":\"B\"}\n",
		       argv[2], (double)st.st_size / tracks);
		/* The database file alone (its -wal is empty once closed) and
		 * both together: the figure. */
		if (stat(argv[1], &dbst) == 0) {
			printf("{\"name\":\"db_%s_bytes_per_track\",\"value\":%.1f,\"unit\":\"B\"}\n",
			       argv[2], (double)dbst.st_size / tracks);
			printf("{\"name\":\"storage_%s_bytes_per_track\",\"value\":%.1f,\"unit\":\"B\"}\n",
			       argv[2], (double)(dbst.st_size + st.st_size) / tracks);
		}
	}
	mlib_index_free(idx);
	mlib_db_close(db);
	/* Untimed: a warm run after this one needs the file in place. */
	for (int i = 0; info.writing_snapshot && i < 1200 && access(snap, F_OK) != 0; i++)
		usleep(50000);
	return 0;
}
