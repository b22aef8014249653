/* Audio analysis throughput (decode + loudness + tempo + timbre) in
 * multiples of real time per core, on a 3-minute MP3 and FLAC made with
 * ffmpeg; and `like:#N LIMIT 50` evaluated over a million analysed items.
 * Prints one JSON line per figure. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analyze.h"
#include "coll/eval.h"
#include "coll/parse.h"
#include "medialib/index.h"
#include "medialib/similarity.h"

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench_file(const char *dir, const char *ext, const char *codec)
{
	char path[512], cmd[1024];
	snprintf(path, sizeof path, "%s/music.%s", dir, ext);
	/* Music-like: pink noise, a kick at 124 BPM and a decaying tone. */
	snprintf(cmd, sizeof cmd,
		 "ffmpeg -nostdin -v error -y -f lavfi -i 'anoisesrc=d=180:c=pink:a=0.1:seed=3' "
		 "-f lavfi -i \"aevalsrc='0.5*sin(2*PI*55*t)*exp(-10*mod(t,60/124))"
		 "+0.2*sin(2*PI*440*t)*exp(-3*mod(t,60/31))':s=44100:d=180\" "
		 "-filter_complex amix=inputs=2 -ac 2 -ar 44100 %s '%s'",
		 codec, path);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench_analysis: ffmpeg failed for %s\n", ext);
		return;
	}
	double best = 0;
	for (int run = 0; run < 3; run++) {
		struct an_result r;
		struct crate_err err = {0};
		double t0 = cpu_seconds();
		if (an_analyze_file(path, NULL, &r, &err) != 0) {
			fprintf(stderr, "bench_analysis: %s\n", err.msg);
			return;
		}
		double x = r.seconds / (cpu_seconds() - t0);
		if (x > best)
			best = x;
		an_result_clear(&r);
	}
	printf("{\"name\":\"analysis_%s_x_realtime\",\"value\":%.0f,\"unit\":\"x per core\"}\n",
	       ext, best);
	unlink(path);
}

static const struct mlib_space *space_of(void *ud, struct crate_err *err)
{
	(void)err;
	return ud;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void bench_like(size_t n)
{
	struct mlib_index *idx = mlib_index_new();
	uint32_t *ids = xmalloc(n * sizeof *ids);
	float *raw = xmalloc(n * MLIB_SPACE_DIMS * sizeof *raw);
	uint64_t s = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {
		ids[i] = (uint32_t)i + 1;
		mlib_index_add_media(idx, ids[i]);
		for (size_t d = 0; d < MLIB_SPACE_DIMS; d++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			raw[i * MLIB_SPACE_DIMS + d] = (float)((s >> 11) * 0x1.0p-53);
		}
	}
	mlib_index_finish(idx);
	struct mlib_space *sp = mlib_space_from_raw(ids, raw, n, MLIB_SPACE_DIMS);
	free(raw);
	free(ids);
	struct crate_err err = {0};
	struct coll_node *q = coll_parse("like:#42 LIMIT 50", 17, NULL, &err);
	struct coll_eval_ctx ctx = {.index = idx, .space = space_of, .space_ud = sp};
	double times[7], cpu_ms[7];
	for (int run = 0; run < 7; run++) {
		struct coll_result res;
		double t0 = wall_seconds(), c0 = cpu_seconds();
		if (!q || coll_eval(&ctx, q, &res, &err) != 0) {
			fprintf(stderr, "bench_analysis: like: %s\n", err.msg);
			break;
		}
		times[run] = (wall_seconds() - t0) * 1000;
		cpu_ms[run] = (cpu_seconds() - c0) * 1000;
		coll_result_free(&res);
	}
	double mn = times[0], mx = times[0], sorted[7];
	memcpy(sorted, times, sizeof sorted);
	for (int i = 1; i < 7; i++) {
		mn = times[i] < mn ? times[i] : mn;
		mx = times[i] > mx ? times[i] : mx;
		for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
			double t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	}
	/* CPU time too: on a busy machine the wall figure mostly measures
	 * waiting for a core (the evaluation is single-threaded). */
	double cpu_sorted[7];
	memcpy(cpu_sorted, cpu_ms, sizeof cpu_sorted);
	qsort(cpu_sorted, 7, sizeof *cpu_sorted, cmp_double);
	printf("{\"name\":\"like_%zuk_limit50\",\"median_ms\":%.2f,\"min_ms\":%.2f,\"max_ms\":%.2f,"
	       "\"cpu_median_ms\":%.2f}\n",
	       n / 1000, sorted[3], mn, mx, cpu_sorted[3]);
	coll_node_unref(q);
	mlib_space_free(sp);
	mlib_index_free(idx);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	char dir[] = "/tmp/crate-bench-analysis-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	bench_file(dir, "mp3", "-c:a libmp3lame -b:a 192k");
	bench_file(dir, "flac", "-c:a flac");
	rmdir(dir);
	bench_like(quick ? 100000 : 1000000);
	return 0;
}
