#include "analysis/analyze.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "play/decoder.h"

/* Frames per read: 100 ms at 48 kHz, small enough to check the clock. */
#define READ_FRAMES 4800

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int feed_all(struct decoder *d, struct an_feed *f, int channels, const atomic_int *stop,
		    struct crate_err *err)
{
	float *buf = xmalloc(READ_FRAMES * (size_t)channels * sizeof *buf);
	double t0 = now_s();
	int rc = 0;
	size_t frames = 0;
	for (unsigned reads = 0;; reads++) {
		long n = decoder_read(d, buf, READ_FRAMES, err);
		if (n < 0) {
			rc = -1;
			break;
		}
		if (n == 0) {
			/* A stream whose every packet failed ends at once: no
			 * measure of nothing (playback says the same of it). */
			if (frames == 0)
				rc = crate_err_set(err, CRATE_ERR_MEDIA,
						   "%s: no audio could be decoded", decoder_path(d));
			break;
		}
		frames += (size_t)n;
		if (an_feed_add(f, buf, (size_t)n, err) != 0) {
			rc = -1;
			break;
		}
		if (stop && atomic_load(stop)) {
			rc = crate_err_set(err, CRATE_ERR_REFUSED, "stopped");
			break;
		}
		if ((reads & 63) == 0 && now_s() - t0 > AN_FILE_TIMEOUT_S) {
			rc = crate_err_set(err, CRATE_ERR_MEDIA, "%s: took longer than %d s",
					   decoder_path(d), AN_FILE_TIMEOUT_S);
			break;
		}
	}
	free(buf);
	return rc;
}

int an_analyze_file(const char *path, const atomic_int *stop, struct an_result *out,
		    struct crate_err *err)
{
	return an_analyze_range(path, -1, 0, stop, out, err);
}

int an_analyze_range(const char *path, int64_t start, int64_t end, const atomic_int *stop,
		     struct an_result *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	struct decoder *d;
	if (decoder_open(path, &d, err) != 0)
		return -1;
	struct play_format fmt;
	decoder_native_format(d, &fmt);
	fmt.sfmt = PLAY_SFMT_FLOAT;
	struct an_feed *f = NULL;
	int rc = decoder_set_output(d, &fmt, err);
	if (rc == 0 && start >= 0)
		rc = decoder_set_range(d, start, end, err);
	if (rc == 0) {
		f = an_feed_new(fmt.channels, fmt.rate, decoder_duration_ms(d), err);
		rc = f ? 0 : -1;
	}
	if (rc == 0)
		rc = feed_all(d, f, fmt.channels, stop, err);
	if (rc == 0)
		rc = an_feed_finish(f, out, err);
	an_feed_free(f);
	decoder_free(d);
	return rc;
}
