/* The equalizer stage and its presets, on audio made and decoded by the
 * real FFmpeg (the ffmpeg command line, as the test corpus tools do). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "harness.h"
#include "play/eq.h"
#include "play/presets.h"

#define RATE 44100

/* Run an ffmpeg command that writes raw interleaved s16le stereo to stdout;
 * returns the samples (owned) and their frame count. */
static int16_t *ffmpeg_s16(const char *args, size_t *frames)
{
	char *cmd = xasprintf("ffmpeg -nostdin -v error %s -f s16le -ac 2 -ar %d -", args, RATE);
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	int16_t *buf = xmalloc(cap * sizeof *buf);
	size_t got;
	while ((got = fread(buf + n, sizeof *buf, cap - n, p)) > 0) {
		n += got;
		if (n == cap)
			buf = xreallocarray(buf, cap *= 2, sizeof *buf);
	}
	if (pclose(p) != 0) {
		free(buf);
		return NULL;
	}
	*frames = n / 2;
	return buf;
}

/* A FLAC "track" of 2 s holding tones at f1 and f2 (amplitude 0.2 each),
 * made by FFmpeg, then decoded back by FFmpeg. */
static int16_t *two_tones(double f1, double f2, size_t *frames)
{
	const char *dir = harness_tmpdir();
	char *mk = xasprintf("ffmpeg -nostdin -v error -y -f lavfi -i "
			     "\"aevalsrc=0.2*sin(2*PI*%g*t)+0.2*sin(2*PI*%g*t):s=%d:d=2\" "
			     "-ac 2 %s/tones.flac", f1, f2, RATE, dir);
	int rc = system(mk);
	free(mk);
	if (rc != 0)
		return NULL;
	char *args = xasprintf("-i %s/tones.flac", dir);
	int16_t *s = ffmpeg_s16(args, frames);
	free(args);
	return s;
}

/* Amplitude of frequency hz in channel ch over frames [from, from+n) (Goertzel). */
static double tone_level_db(const int16_t *s, size_t from, size_t n, int ch, double hz)
{
	double w = 2 * M_PI * hz / RATE, c = 2 * cos(w), s1 = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		double s0 = s[(from + i) * 2 + ch] / 32768.0 + c * s1 - s2;
		s2 = s1;
		s1 = s0;
	}
	double power = s1 * s1 + s2 * s2 - c * s1 * s2;
	return 20 * log10(2 * sqrt(power) / n);
}

static struct eq *eq_s16(const struct eq_settings *s)
{
	struct crate_err err = {0};
	struct eq *eq = eq_new(s, RATE, 2, EQ_FMT_S16, &err);
	CHECK_MSG(eq != NULL, "eq_new: %s", err.msg);
	return eq;
}

TEST(flat_is_bit_exact)
{
	size_t n;
	int16_t *in = two_tones(100, 10000, &n);
	REQUIRE(in);
	int16_t *out = xmalloc(n * 2 * sizeof *out);
	memcpy(out, in, n * 2 * sizeof *out);
	struct eq_settings flat = {0};
	struct eq *eq = eq_s16(&flat);
	CHECK(eq_bypassed(eq));
	eq_process(eq, out, n);
	CHECK(memcmp(in, out, n * 2 * sizeof *out) == 0);
	/* The built-in "flat" preset is flat too. */
	struct eq_settings p;
	CHECK_INT(eq_preset_get(NULL, "flat", &p, NULL), 0);
	CHECK(eq_settings_flat(&p));
	eq_free(eq);
	free(in);
	free(out);
}

/* The tones' levels after the stage change by the preset's response. */
static void check_preset_levels(const struct eq_settings *s, double f1, double f2)
{
	size_t n;
	int16_t *in = two_tones(f1, f2, &n);
	REQUIRE(in);
	REQUIRE(n >= RATE * 2 - 10);
	int16_t *out = xmalloc(n * 2 * sizeof *out);
	memcpy(out, in, n * 2 * sizeof *out);
	struct eq *eq = eq_s16(s);
	REQUIRE(eq);
	CHECK(!eq_bypassed(eq));
	eq_process(eq, out, n);
	double fs[2] = {f1, f2};
	for (int ch = 0; ch < 2; ch++) {
		for (int k = 0; k < 2; k++) {
			/* one second after the filters settled: whole periods of both tones */
			double gain = tone_level_db(out, RATE / 2, RATE, ch, fs[k]) -
				      tone_level_db(in, RATE / 2, RATE, ch, fs[k]);
			double want = eq_response_db(s, RATE, fs[k]);
			CHECK_MSG(fabs(gain - want) < 0.5, "%g Hz ch%d: measured %.3f dB, want %.3f",
				  fs[k], ch, gain, want);
		}
	}
	eq_free(eq);
	free(in);
	free(out);
}

TEST(band_centres_match_preset)
{
	/* At the band centres the response is the preset's number itself. */
	struct eq_settings s = {.preamp_db = -3, .band_db = {4, 0, 6, 0, 0, 0, 0, -5, 0, 0}};
	for (int i = 0; i < EQ_BANDS; i++) {
		double r = eq_response_db(&s, RATE, eq_band_hz[i]);
		CHECK_MSG(fabs(r - (s.band_db[i] + s.preamp_db)) < 0.05, "band %d: %.3f dB", i, r);
	}
	check_preset_levels(&s, 125, 4000);
}

TEST(tones_100hz_10khz_match_response)
{
	/* A plateau: +6 dB around 100 Hz, -6 dB around 10 kHz. */
	struct eq_settings s = {.band_db = {6, 6, 6, 6, 0, 0, -6, -6, -6, -6}};
	CHECK_MSG(fabs(eq_response_db(&s, RATE, 100) - 6) < 0.5, "100 Hz: %.2f",
		  eq_response_db(&s, RATE, 100));
	check_preset_levels(&s, 100, 10000);
	struct eq_settings rock;
	REQUIRE(eq_preset_get(NULL, "rock", &rock, NULL) == 0);
	check_preset_levels(&rock, 100, 10000);
}

TEST(formats_agree)
{
	size_t n;
	int16_t *in = two_tones(250, 3000, &n);
	REQUIRE(in);
	struct eq_settings s;
	REQUIRE(eq_preset_get(NULL, "vocal", &s, NULL) == 0);
	int16_t *a = xmalloc(n * 2 * sizeof *a);
	int32_t *b = xmalloc(n * 2 * sizeof *b);
	float *c = xmalloc(n * 2 * sizeof *c);
	for (size_t i = 0; i < n * 2; i++) {
		a[i] = in[i];
		b[i] = (int32_t)in[i] * 65536;
		c[i] = in[i] / 32768.0f;
	}
	struct eq *e1 = eq_new(&s, RATE, 2, EQ_FMT_S16, NULL);
	struct eq *e2 = eq_new(&s, RATE, 2, EQ_FMT_S32, NULL);
	struct eq *e3 = eq_new(&s, RATE, 2, EQ_FMT_FLT, NULL);
	REQUIRE(e1 && e2 && e3);
	eq_process(e1, a, n);
	/* in uneven blocks: block size must not matter */
	for (size_t done = 0, blk = 1; done < n; done += blk, blk = blk * 3 % 4093 + 1) {
		if (blk > n - done)
			blk = n - done;
		eq_process(e2, b + done * 2, blk);
		eq_process(e3, c + done * 2, blk);
	}
	int worst_b = 0, worst_c = 0;
	for (size_t i = 0; i < n * 2; i++) {
		int db = abs((int)lrint(b[i] / 65536.0) - a[i]);
		int dc = abs((int)lrint(c[i] * 32768.0) - a[i]);
		worst_b = db > worst_b ? db : worst_b;
		worst_c = dc > worst_c ? dc : worst_c;
	}
	CHECK_MSG(worst_b <= 1, "s32 vs s16: %d", worst_b);
	CHECK_MSG(worst_c <= 1, "float vs s16: %d", worst_c);
	eq_free(e1);
	eq_free(e2);
	eq_free(e3);
	free(in);
	free(a);
	free(b);
	free(c);
}

TEST(integer_output_saturates)
{
	int16_t buf[2 * 4410];
	for (int i = 0; i < 4410; i++)
		buf[2 * i] = buf[2 * i + 1] = (int16_t)(32000 * sin(2 * M_PI * 1000 * i / RATE));
	struct eq_settings s = {.preamp_db = 12, .band_db = {0, 0, 0, 0, 0, 12, 0, 0, 0, 0}};
	struct eq *eq = eq_s16(&s);
	REQUIRE(eq);
	eq_process(eq, buf, 4410);
	int clipped = 0;
	for (int i = 2000; i < 2100; i++) {
		/* a wrapped sample would flip sign against the sine */
		double want = sin(2 * M_PI * 1000 * i / RATE);
		CHECK(want * buf[2 * i] >= 0 || fabs(want) < 0.05);
		clipped += buf[2 * i] == 32767 || buf[2 * i] == -32768;
	}
	CHECK(clipped > 10);
	eq_free(eq);
}

/* Largest |x[i+1]-x[i]| in channel 0 over [from, to). */
static int max_step(const int16_t *s, size_t from, size_t to)
{
	int m = 0;
	for (size_t i = from; i + 1 < to; i++) {
		int d = abs(s[(i + 1) * 2] - s[i * 2]);
		m = d > m ? d : m;
	}
	return m;
}

/* Run in as one stream split at frame b: settings s1 before, s2 from b. */
static int16_t *run_split(const int16_t *in, size_t n, size_t b, const struct eq_settings *s1,
			  const struct eq_settings *s2)
{
	int16_t *out = xmalloc(n * 2 * sizeof *out);
	memcpy(out, in, n * 2 * sizeof *out);
	struct eq *eq = eq_s16(s1);
	eq_process(eq, out, b);
	eq_set_settings(eq, s2);
	/* in two calls, to cross the end of the fade inside a call */
	eq_process(eq, out + b * 2, 100);
	eq_process(eq, out + (b + 100) * 2, n - b - 100);
	eq_free(eq);
	return out;
}

TEST(retune_at_boundary)
{
	/* One continuous signal split into "two tracks" at frame b (gapless). */
	size_t n;
	int16_t *in = two_tones(62.5, 440, &n);
	REQUIRE(in);
	size_t b = RATE + 123;
	struct eq_settings flat = {0}, bass;
	REQUIRE(eq_preset_get(NULL, "bass boost", &bass, NULL) == 0);

	int16_t *ref = xmalloc(n * 2 * sizeof *ref);
	memcpy(ref, in, n * 2 * sizeof *ref);
	struct eq *always = eq_s16(&bass);
	eq_process(always, ref, n);
	/* a click is a step larger than the signal's own, before or after */
	int steady = max_step(ref, RATE / 2, n), steady_in = max_step(in, 0, n);
	steady = steady > steady_in ? steady : steady_in;

	/* flat -> bass: the first part untouched, then a fade that ends on
	 * exactly what a stage always tuned to bass gives. */
	int16_t *up = run_split(in, n, b, &flat, &bass);
	CHECK(memcmp(up, in, b * 2 * sizeof *up) == 0);
	int dev = 0;
	for (size_t i = (b + RATE / 100) * 2; i < n * 2; i++)
		dev = abs(up[i] - ref[i]) > dev ? abs(up[i] - ref[i]) : dev;
	CHECK_MSG(dev <= 1, "after the fade: differs from a steady stage by %d", dev);
	int jump_up = max_step(up, b - 2, b + RATE / 100);
	CHECK_MSG(jump_up <= steady, "flat->bass: step %d > steady step %d", jump_up, steady);

	/* bass -> flat: the old filters fade out into the dry signal over 5 ms,
	 * then the second part is bit-exact with the input. */
	int16_t *down = run_split(in, n, b, &bass, &flat);
	CHECK(memcmp(down, ref, b * 2 * sizeof *down) == 0);
	size_t fade = RATE / 200;
	CHECK(memcmp(down + (b + fade) * 2, in + (b + fade) * 2,
		     (n - b - fade) * 2 * sizeof *down) == 0);
	CHECK(memcmp(down + b * 2, in + b * 2, fade * 2 * sizeof *down) != 0);
	int jump_down = max_step(down, b - 2, b + RATE / 100);
	CHECK_MSG(jump_down <= steady, "bass->flat: step %d > steady step %d", jump_down, steady);

	/* flat -> flat: no fade at all, bit-exact from the first frame. */
	int16_t *still = run_split(in, n, b, &flat, &flat);
	CHECK(memcmp(still, in, n * 2 * sizeof *still) == 0);

	/* rock -> bass */
	struct eq_settings rock;
	REQUIRE(eq_preset_get(NULL, "rock", &rock, NULL) == 0);
	int16_t *swap = run_split(in, n, b, &rock, &bass);
	int jump_swap = max_step(swap, b - 2, b + RATE / 100);
	CHECK_MSG(jump_swap <= steady, "rock->bass: step %d > steady step %d", jump_swap, steady);

	fprintf(stderr, "    max sample step at the boundary (s16): flat->bass %d, rock->bass %d, "
		"bass->flat %d; steady signal max step %d\n",
		jump_up, jump_swap, jump_down, steady);
	eq_free(always);
	free(in);
	free(ref);
	free(up);
	free(down);
	free(still);
	free(swap);
}

TEST(bad_stream_parameters)
{
	struct eq_settings s = {0};
	struct crate_err err = {0};
	CHECK(eq_new(&s, 100, 2, EQ_FMT_S16, &err) == NULL);
	CHECK(strstr(err.msg, "sample rate") != NULL);
	CHECK(eq_new(&s, RATE, 0, EQ_FMT_S16, &err) == NULL);
	CHECK(strstr(err.msg, "channel") != NULL);
	/* 22.05 kHz: the 16 kHz band is above Nyquist and stays flat, the rest works */
	s.band_db[9] = 12;
	s.band_db[0] = 6;
	struct eq *eq = eq_new(&s, 22050, 1, EQ_FMT_FLT, &err);
	REQUIRE(eq);
	CHECK(fabs(eq_response_db(&s, 22050, 31.25) - 6) < 0.05);
	float buf[1024] = {0};
	buf[0] = 1;
	eq_process(eq, buf, 1024);
	for (int i = 0; i < 1024; i++)
		CHECK(isfinite(buf[i]));
	eq_free(eq);
}

TEST(builtin_presets)
{
	const char *want[] = {"flat", "rock", "jazz", "classical", "vocal",
			      "bass boost", "Treble_Boost", "VINYL"};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		struct eq_settings s;
		struct crate_err err = {0};
		CHECK_MSG(eq_preset_get(NULL, want[i], &s, &err) == 0, "%s: %s", want[i], err.msg);
		for (int b = 0; b < EQ_BANDS; b++)
			CHECK(fabs(s.band_db[b]) <= EQ_GAIN_MAX);
	}
	struct eq_settings bass;
	REQUIRE(eq_preset_get(NULL, "bass-boost", &bass, NULL) == 0);
	CHECK(bass.band_db[0] > 3 && bass.band_db[9] == 0);
}

static struct config *config_from(const char *text)
{
	char *path = xasprintf("%s/config", harness_tmpdir());
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	struct config *cfg = NULL;
	struct crate_err err = {0};
	CHECK_MSG(config_load(path, &cfg, &err) == 0, "%s", err.msg);
	free(path);
	return cfg;
}

TEST(user_presets_from_config)
{
	struct config *cfg = config_from("[eq.preset.mine]\n"
					 "bands = -2, 0, 1, 3, 3, 1, 0, -1, -2, +3.5\n"
					 "preamp = -3\n"
					 "[eq.preset.rock]\n"
					 "bands = 1,1,1,1,1,1,1,1,1,1\n"
					 "[eq.preset.broken]\n"
					 "bands = 1,2,3\n"
					 "[eq.preset.loud]\n"
					 "bands = 0,0,0,0,0,0,0,0,0,13\n");
	REQUIRE(cfg);
	struct eq_settings s;
	struct crate_err err = {0};
	CHECK_INT(eq_preset_get(cfg, "Mine", &s, &err), 0);
	CHECK(s.preamp_db == -3 && s.band_db[0] == -2 && s.band_db[9] == 3.5);
	/* a user preset replaces the built-in of the same name */
	CHECK_INT(eq_preset_get(cfg, "rock", &s, &err), 0);
	CHECK(s.band_db[0] == 1 && s.preamp_db == 0);
	CHECK(eq_preset_get(cfg, "broken", &s, &err) != 0);
	CHECK_MSG(strstr(err.msg, "eq.preset.broken.bands") != NULL, "%s", err.msg);
	CHECK(eq_preset_get(cfg, "loud", &s, &err) != 0);
	CHECK_MSG(strstr(err.msg, "band 10") && strstr(err.msg, "13"), "%s", err.msg);
	CHECK(eq_preset_get(cfg, "nosuch", &s, &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	CHECK_MSG(strstr(err.msg, "'nosuch'") && strstr(err.msg, "mine"), "%s", err.msg);

	char **names;
	size_t n = eq_preset_list(cfg, &names);
	CHECK_INT(n, eq_builtin_count + 3); /* mine, broken, loud; rock shadows */
	CHECK_STR(names[0], "flat");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	config_free(cfg);
}
