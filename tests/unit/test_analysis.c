/* analysis/features: loudness against EBU Tech 3341 signals made here,
 * tempo against click tracks of known BPM, bad input. */
#include <ebur128.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/features.h"
#include "harness.h"

#define RATE 48000

/* A stereo 1 kHz sine whose peak is dbfs on both channels (EBU Tech 3341
 * states its levels so). */
static void add_sine(float **buf, size_t *n, double seconds, double dbfs, int channels)
{
	size_t add = (size_t)(seconds * RATE);
	*buf = xreallocarray(*buf, (*n + add) * (size_t)channels, sizeof **buf);
	double a = pow(10.0, dbfs / 20.0);
	for (size_t i = 0; i < add; i++) {
		float s = (float)(a * sin(2 * M_PI * 1000.0 * (double)(*n + i) / RATE));
		for (int c = 0; c < channels; c++)
			(*buf)[(*n + i) * (size_t)channels + (size_t)c] = s;
	}
	*n += add;
}

static void analyse(const float *buf, size_t n, int channels, int rate, struct an_result *r)
{
	struct crate_err err = {0};
	struct an_feed *f = an_feed_new(channels, rate, (int64_t)n * 1000 / rate, &err);
	REQUIRE(f != NULL);
	/* Odd chunk sizes: block boundaries must not depend on them. */
	for (size_t i = 0; i < n; i += 1234) {
		size_t m = n - i < 1234 ? n - i : 1234;
		CHECK(an_feed_add(f, buf + i * (size_t)channels, m, &err) == 0);
	}
	CHECK(an_feed_finish(f, r, &err) == 0);
	an_feed_free(f);
}

static void check_lufs(float *buf, size_t n, double want)
{
	struct an_result r;
	analyse(buf, n, 2, RATE, &r);
	CHECK(r.has_loudness);
	CHECK_MSG(fabs(r.loudness - want) <= 0.1, "loudness %.3f, want %.1f", r.loudness, want);
	/* The block histogram gives the same figure (album loudness). */
	const uint32_t *h = r.hist;
	double hl = 0;
	CHECK(an_hist_loudness(&h, 1, &hl));
	CHECK_MSG(fabs(hl - r.loudness) <= 0.05, "histogram %.3f vs %.3f", hl, r.loudness);
	an_result_clear(&r);
	free(buf);
}

TEST(tech3341_case1_sine_minus23_is_minus23_lufs)
{
	float *b = NULL;
	size_t n = 0;
	add_sine(&b, &n, 20, -23, 2);
	check_lufs(b, n, -23.0);
}

TEST(tech3341_case2_sine_minus33_is_minus33_lufs)
{
	float *b = NULL;
	size_t n = 0;
	add_sine(&b, &n, 20, -33, 2);
	check_lufs(b, n, -33.0);
}

TEST(tech3341_case3_relative_gate)
{
	float *b = NULL;
	size_t n = 0;
	add_sine(&b, &n, 10, -36, 2);
	add_sine(&b, &n, 60, -23, 2);
	add_sine(&b, &n, 10, -36, 2);
	check_lufs(b, n, -23.0);
}

TEST(tech3341_case4_absolute_and_relative_gate)
{
	float *b = NULL;
	size_t n = 0;
	add_sine(&b, &n, 10, -72, 2);
	add_sine(&b, &n, 10, -36, 2);
	add_sine(&b, &n, 60, -23, 2);
	add_sine(&b, &n, 10, -36, 2);
	add_sine(&b, &n, 10, -72, 2);
	check_lufs(b, n, -23.0);
}

/* Tech 3341 true-peak idea: a sine at a quarter of the rate, sampled 45
 * degrees off its crests, has samples 3 dB below its true peak. */
TEST(true_peak_between_samples)
{
	size_t n = 10 * RATE;
	float *b = xmalloc(n * 2 * sizeof *b);
	for (size_t i = 0; i < n; i++)
		b[2 * i] = b[2 * i + 1] = (float)(0.5 * sin(M_PI / 2 * (double)i + M_PI / 4));
	struct an_result r;
	analyse(b, n, 2, RATE, &r);
	double want = 20 * log10(0.5);
	CHECK_MSG(fabs(r.truepeak - want) <= 0.2, "true peak %.2f dBTP, want %.2f", r.truepeak,
		  want);
	an_result_clear(&r);
	free(b);
}

/* A click (decaying 1.5 kHz burst) every 60/bpm seconds, mono 44.1 kHz. */
static float *click_track(double bpm, double seconds, size_t *n)
{
	*n = (size_t)(seconds * 44100);
	float *b = xmalloc(*n * sizeof *b);
	double period = 60.0 / bpm;
	for (size_t i = 0; i < *n; i++) {
		double t = (double)i / 44100;
		b[i] = (float)(0.5 * sin(2 * M_PI * 1500 * t) * exp(-60 * fmod(t, period)));
	}
	return b;
}

TEST(tempo_of_click_tracks_within_one_bpm)
{
	static const double bpms[] = {90, 120, 128, 174};
	for (size_t k = 0; k < sizeof bpms / sizeof bpms[0]; k++) {
		size_t n;
		float *b = click_track(bpms[k], 40, &n);
		struct an_result r;
		analyse(b, n, 1, 44100, &r);
		CHECK_MSG(r.has_tempo && fabs(r.bpm - bpms[k]) <= 1.0, "%g BPM: got %.2f (%d)",
			  bpms[k], r.bpm, r.has_tempo);
		CHECK_MSG(r.bpm_confidence > 0.5, "%g BPM: confidence %.2f", bpms[k],
			  r.bpm_confidence);
		CHECK(r.has_timbre);
		an_result_clear(&r);
		free(b);
	}
}

TEST(silence_has_no_loudness_tempo_or_timbre)
{
	size_t n = 5 * RATE;
	float *b = xcalloc(n * 2, sizeof *b);
	struct an_result r;
	analyse(b, n, 2, RATE, &r);
	CHECK(!r.has_loudness);
	CHECK(!r.has_tempo);
	CHECK(!r.has_timbre);
	CHECK(r.hist == NULL);
	CHECK(fabs(r.seconds - 5.0) < 0.01);
	an_result_clear(&r);
	free(b);
}

TEST(short_signal_gives_loudness_but_no_tempo)
{
	float *b = NULL;
	size_t n = 0;
	add_sine(&b, &n, 1, -23, 2);
	struct an_result r;
	analyse(b, n, 2, RATE, &r);
	CHECK(r.has_loudness && fabs(r.loudness + 23) < 0.2);
	CHECK(!r.has_tempo);
	an_result_clear(&r);
	free(b);
}

TEST(mono_counts_as_dual_mono_and_eight_channels_work)
{
	float *b = NULL;
	size_t n = 0;
	add_sine(&b, &n, 10, -23, 1);
	struct an_result r;
	analyse(b, n, 1, RATE, &r);
	/* One channel at -23 dBFS played on both speakers: as the stereo case. */
	CHECK_MSG(fabs(r.loudness + 23) <= 0.1, "mono %.2f", r.loudness);
	an_result_clear(&r);
	free(b);
	b = NULL;
	n = 0;
	add_sine(&b, &n, 10, -23, 8);
	analyse(b, n, 8, RATE, &r);
	CHECK(r.has_loudness && isfinite(r.loudness));
	an_result_clear(&r);
	free(b);
}

TEST(bad_formats_are_refused_with_a_reason)
{
	struct crate_err err = {0};
	CHECK(an_feed_new(0, 44100, -1, &err) == NULL);
	CHECK(err.msg[0] != '\0');
	CHECK(an_feed_new(2, 10, -1, &err) == NULL);
}

/* Album loudness from the histograms against libebur128's own
 * loudness_global_multiple over the same two signals. */
TEST(album_loudness_matches_libebur128)
{
	float *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	add_sine(&a, &na, 20, -20, 2);
	add_sine(&b, &nb, 30, -30, 2);
	struct an_result ra, rb;
	analyse(a, na, 2, RATE, &ra);
	analyse(b, nb, 2, RATE, &rb);
	ebur128_state *s[2] = {ebur128_init(2, RATE, EBUR128_MODE_I),
			       ebur128_init(2, RATE, EBUR128_MODE_I)};
	ebur128_add_frames_float(s[0], a, na);
	ebur128_add_frames_float(s[1], b, nb);
	double want;
	REQUIRE(ebur128_loudness_global_multiple(s, 2, &want) == EBUR128_SUCCESS);
	/* Round trip through the stored form on the way. */
	size_t la, lb;
	unsigned char *ea = an_hist_encode(ra.hist, &la), *eb = an_hist_encode(rb.hist, &lb);
	uint32_t *ha = xcalloc(AN_HIST_BINS, sizeof *ha), *hb = xcalloc(AN_HIST_BINS, sizeof *hb);
	CHECK(an_hist_decode(ea, la, ha) && an_hist_decode(eb, lb, hb));
	uint32_t *scratch = xcalloc(AN_HIST_BINS, sizeof *scratch);
	CHECK(!an_hist_decode(ea, la - 1, scratch)); /* a torn blob is refused */
	free(scratch);
	const uint32_t *h[2] = {ha, hb};
	double got;
	CHECK(an_hist_loudness(h, 2, &got));
	CHECK_MSG(fabs(got - want) <= 0.1, "album %.3f, libebur128 %.3f", got, want);
	ebur128_destroy(&s[0]);
	ebur128_destroy(&s[1]);
	free(ea);
	free(eb);
	free(ha);
	free(hb);
	an_result_clear(&ra);
	an_result_clear(&rb);
	free(a);
	free(b);
}
