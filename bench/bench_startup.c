/* Start-up benchmark: how long a crate process takes from "open the
 * database" to "index ready", and how much memory it holds then.
 *
 *   bench_startup DB LABEL [cold|cold-sync|warm|warm-owned]
 *
 * Without a mode the database is opened read-only (a snapshot present is
 * used, none is written). cold: the index snapshot (DB.index) is removed
 * first and the database opened for writing, as crate does: SQLite load
 * plus writing the snapshot. warm (run after cold): opened for writing
 * with the snapshot in place, loaded as the interface loads it
 * (app_library_open with app_opts.resident): mapped in place
 * (MLIB_LOAD_MAP), ready in milliseconds; then, timed on its own as the
 * interface's worker does it, the owned index built from the snapshot on
 * a second connection and swapped in (the mapped one freed).
 * warm-owned: the snapshot copied into owned arrays before the index is
 * ready (mlib_index_snapshot_read): every start-up before the mapped one,
 * and one-shot commands other than search today. Also prints cpu_LABEL_s
 * (user + system of the process: the load's threads, not the detached
 * snapshot writer) and cpu_main_LABEL_s (the calling thread's alone).
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
 * and with warm / warm-owned
 *   {"name":"startup_owned_LABEL_s",...}   warm: the owned build + swap
 *   {"name":"first_search_mapped_LABEL_ms",...}  the search bar's first
 *       ranked search ("night", first screen formatted, fresh cache) on
 *       the index as it is when ready (mapped: columns scanned, nothing
 *       built yet); _wide_ the same for "la* OR mo*" (~274,000 items at 1M)
 *   {"name":"first_search_owned_LABEL_ms",...}  the same on the owned index
 * (rss after the owned build with warm: both were held at its peak).
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
#include "coll/eval.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "bench_common.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The search bar's first search on idx, ranked, with a fresh cache (as
 * after start-up), and its first screen formatted; ms of wall time. */
static double first_search(const struct mlib_index *idx, const char *text)
{
	struct coll_eval_cache *cache = coll_eval_cache_new();
	struct coll_eval_ctx ctx = {.index = idx, .cache = cache};
	struct bench_search b;
	double t0 = now_s();
	bench_search_top_screen(&ctx, text, 0, &b);
	double ms = (now_s() - t0) * 1000.0;
	if (!b.result.ids.n || !b.bytes)
		fprintf(stderr, "bench_startup: %s found nothing\n", text);
	bench_search_free(&b);
	coll_eval_cache_free(cache);
	return ms;
}

static void print_searches(const struct mlib_index *idx, const char *what, const char *label)
{
	printf("{\"name\":\"first_search_%s_%s_ms\",\"value\":%.2f,\"unit\":\"ms\"}\n", what,
	       label, first_search(idx, "night"));
	printf("{\"name\":\"first_search_%s_wide_%s_ms\",\"value\":%.2f,\"unit\":\"ms\"}\n",
	       what, label, first_search(idx, "la* OR mo*"));
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: bench_startup DB LABEL [cold|cold-sync|warm|warm-owned]\n");
		return 1;
	}
	const char *mode = argc == 4 ? argv[3] : "";
	unsigned flags = *mode ? 0 : MLIB_DB_READONLY;
	bool cold = strncmp(mode, "cold", 4) == 0;
	bool warm = strcmp(mode, "warm") == 0, warm_owned = strcmp(mode, "warm-owned") == 0;
	/* cold and warm: the front ends' start-up (app_library_open); warm
	 * as the interface (resident), warm-owned as before it. */
	unsigned load_flags = strcmp(mode, "cold") == 0 || warm || warm_owned
				      ? MLIB_LOAD_WRITE_DETACHED | (warm ? MLIB_LOAD_MAP : 0)
				      : 0;
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
	bool mapped = mlib_index_is_mapped(idx);
	if ((warm || warm_owned) && !info.from_snapshot)
		fprintf(stderr, "bench_startup: warm start did not use the snapshot: %s\n", info.why);
	printf("{\"name\":\"startup_%s_s\",\"value\":%.4f,\"unit\":\"s\",\"n\":%u,"
	       "\"snapshot\":%s,\"mapped\":%s}\n",
	       argv[2], t1 - t0, mlib_index_count(idx), info.from_snapshot ? "true" : "false",
	       mapped ? "true" : "false");
	if (warm || warm_owned)
		print_searches(idx, mapped ? "mapped" : "owned", argv[2]);
	if (mapped) {
		/* The interface's worker: its own connection, the owned index
		 * (the snapshot copied out), then the swap on the main thread
		 * (the mapped index freed: unmapped). */
		struct mlib_db *db2 = NULL;
		struct mlib_index *owned = NULL;
		struct mlib_load_info info2;
		double t2 = now_s();
		if (mlib_db_open(argv[1], 0, &db2, &err) != 0 ||
		    mlib_index_load_ex(db2, 0, &owned, &info2, &err) != 0) {
			fprintf(stderr, "bench_startup: %s\n", err.msg);
			return 1;
		}
		mlib_db_close(db2);
		mlib_index_free(idx);
		idx = owned;
		double t3 = now_s();
		printf("{\"name\":\"startup_owned_%s_s\",\"value\":%.4f,\"unit\":\"s\","
		       "\"snapshot\":%s}\n",
		       argv[2], t3 - t2, info2.from_snapshot ? "true" : "false");
		print_searches(idx, "owned", argv[2]);
	}
	long rss = bench_status_kb("VmHWM:"); /* peak */
	struct rusage ru, main_ru;
	getrusage(RUSAGE_SELF, &ru);
	getrusage(RUSAGE_THREAD, &main_ru);
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	double cpu_main = (double)main_ru.ru_utime.tv_sec + (double)main_ru.ru_utime.tv_usec / 1e6 +
			  (double)main_ru.ru_stime.tv_sec + (double)main_ru.ru_stime.tv_usec / 1e6;
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
