/* analysis/features: loudness against EBU Tech 3341 signals made here,
 * tempo against click tracks of known BPM, bad input. */
#include <ebur128.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/features.h"
#include "analysis/truepeak.h"
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

/* libebur128's true peak of n interleaved frames (its reference filter). */
static double ebur128_peak(const float *b, size_t n, int channels, int rate)
{
	ebur128_state *st = ebur128_init((unsigned)channels, (unsigned long)rate,
					 EBUR128_MODE_TRUE_PEAK);
	REQUIRE(st != NULL);
	REQUIRE(ebur128_add_frames_float(st, b, n) == EBUR128_SUCCESS);
	double peak = 0;
	for (int c = 0; c < channels; c++) {
		double p = 0;
		REQUIRE(ebur128_true_peak(st, (unsigned)c, &p) == EBUR128_SUCCESS);
		peak = fmax(peak, p);
	}
	ebur128_destroy(&st);
	return peak;
}

static double our_peak(const float *b, size_t n, int channels, int rate, bool exhaustive)
{
	struct an_truepeak *tp = an_truepeak_new(channels, rate);
	REQUIRE(tp != NULL);
	an_truepeak_set_exhaustive(tp, exhaustive);
	/* Odd chunks: blocks must not depend on how frames arrive. */
	for (size_t i = 0; i < n; i += 777)
		an_truepeak_add(tp, b + i * (size_t)channels, n - i < 777 ? n - i : 777);
	double v = an_truepeak_value(tp);
	an_truepeak_free(tp);
	return v;
}

/* Our interpolator (analysis/truepeak.c, used because libebur128's took
 * 40 % of the analysis time) agrees with libebur128 within 0.2 dB at 44.1
 * and 48 kHz on sines near and far from the crests, noise, a clipped
 * square and a lone impulse, finds sines' amplitudes at 96 and 192 kHz,
 * and skipping quiet blocks changes nothing. */
TEST(true_peak_agrees_with_libebur128)
{
	static const int rates[] = {44100, 48000, 96000, 192000};
	uint64_t rng = 99;
	for (size_t ri = 0; ri < sizeof rates / sizeof *rates; ri++) {
		int rate = rates[ri], ch = ri % 2 ? 1 : 2;
		for (int kind = 0; kind < 6; kind++) {
			size_t n = (size_t)rate * 2;
			float *b = xcalloc(n * (size_t)ch, sizeof *b);
			for (size_t i = 0; i < n; i++) {
				double t = (double)i / rate, v;
				switch (kind) {
				case 0: v = 0.5 * sin(2 * M_PI * 997 * t); break;
				case 1: v = 0.7 * sin(2 * M_PI * rate / 4 * t + M_PI / 4); break;
				case 2: v = 0.9 * sin(2 * M_PI * 0.4 * rate * t + 0.3); break;
				case 3: /* noise, loud in the second half only */
					rng = rng * 6364136223846793005ull + 1442695040888963407ull;
					v = ((double)(rng >> 11) / 9007199254740992.0 - 0.5) *
					    (i > n / 2 ? 1.6 : 0.2);
					break;
				case 4: v = sin(2 * M_PI * 440 * t) > 0 ? 0.8 : -0.8; break;
				default: v = i == n / 3 ? 0.6 : 0; break;
				}
				for (int c = 0; c < ch; c++)
					b[i * (size_t)ch + (size_t)c] = (float)(c ? v * 0.5 : v);
			}
			/* BS.1770's filter is specified up to 48 kHz; above, the two
			 * filters differ near Nyquist (libebur128 overshoots a 38 kHz
			 * sine at 96 kHz by 0.36 dB), so sines are checked against
			 * their amplitude there. At 192 kHz nothing is oversampled. */
			static const double amplitude[] = {0.5, 0.7, 0.9};
			bool reference = rate <= 48000 || kind == 5;
			bool analytic = !reference && kind < 3 && (rate < 192000 || kind == 0);
			double want = reference ? ebur128_peak(b, n, ch, rate)
				    : analytic  ? amplitude[kind]
						: 0;
			double got = our_peak(b, n, ch, rate, false);
			double all = our_peak(b, n, ch, rate, true);
			CHECK_MSG(!want || fabs(20 * log10(got / want)) <= 0.2,
				  "rate %d kind %d: %.3f dBTP, want %.3f", rate, kind,
				  20 * log10(got), 20 * log10(want));
			CHECK_MSG(got == all, "rate %d kind %d: skipping changed %.6f to %.6f", rate,
				  kind, all, got);
			free(b);
		}
	}
	/* Silence and NaN are 0, not NaN. */
	float z[64] = {0};
	z[7] = NAN;
	CHECK(our_peak(z, 32, 2, 48000, false) == 0);
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

/* Timbre (like: and smooth picks) from a second of sound: a 2 s track
 * had none (the gate counted every fourth hop against a second of hops),
 * half a second still has none. */
TEST(timbre_from_a_second_of_sound)
{
	static const double seconds[] = {0.5, 2, 3.5};
	for (size_t k = 0; k < sizeof seconds / sizeof seconds[0]; k++) {
		float *b = NULL;
		size_t n = 0;
		add_sine(&b, &n, seconds[k], -20, 2);
		struct an_result r;
		analyse(b, n, 2, RATE, &r);
		CHECK_MSG(r.has_timbre == (seconds[k] >= 1), "%.1f s: timbre %d", seconds[k],
			  r.has_timbre);
		an_result_clear(&r);
		free(b);
	}
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
