/* Start-up benchmark: how long a crate process takes from "open the
 * database" to "index ready", and how much memory it holds then.
 *
 *   bench_startup DB LABEL
 *
 * One measurement per process (so peak RSS is this load's, not an earlier
 * one's): opens DB, runs mlib_index_load, and prints JSON lines
 *   {"name":"startup_LABEL_s","value":...,"unit":"s"}   open + load + finish
 *   {"name":"rss_LABEL_mb","value":...,"unit":"MB"}     peak RSS (VmHWM)
 *   {"name":"index_mem_LABEL_mb","value":...,"unit":"MB"} mlib_index_memory
 * bench/run-bench.sh runs it several times and reports the median. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	if (argc != 3) {
		fprintf(stderr, "usage: bench_startup DB LABEL\n");
		return 1;
	}
	struct crate_err err = {0};
	struct mlib_db *db = NULL;
	struct mlib_index *idx = NULL;
	double t0 = now_s();
	if (mlib_db_open(argv[1], MLIB_DB_READONLY, &db, &err) != 0 ||
	    mlib_index_load(db, &idx, &err) != 0) {
		fprintf(stderr, "bench_startup: %s\n", err.msg);
		mlib_db_close(db);
		return 1;
	}
	double t1 = now_s();
	long rss = peak_rss_kb();
	printf("{\"name\":\"startup_%s_s\",\"value\":%.4f,\"unit\":\"s\",\"n\":%u}\n", argv[2],
	       t1 - t0, mlib_index_count(idx));
	if (rss >= 0)
		printf("{\"name\":\"rss_%s_mb\",\"value\":%.1f,\"unit\":\"MB\"}\n", argv[2],
		       (double)rss / 1024.0);
	printf("{\"name\":\"index_mem_%s_mb\",\"value\":%.1f,\"unit\":\"MB\"}\n", argv[2],
	       (double)mlib_index_memory(idx) / (1024.0 * 1024.0));
	mlib_index_free(idx);
	mlib_db_close(db);
	return 0;
}
