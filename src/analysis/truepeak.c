/* True peak by polyphase interpolation. The low-pass is a Hann-windowed
 * sinc of PHASE_TAPS taps per phase cut at the input's Nyquist frequency,
 * each phase normalised to unity gain at DC (BS.1770 Annex 2 uses 12 taps
 * per phase at 4x; so does this). Phase p (1..P-1, between samples n - 6
 * and n - 5) is
 *   y = sum_k c_p[k] * x[n - k],
 * and |y| <= G * max|x[n - k]| with G the largest sum of |c_p[k]|: a block
 * whose largest sample times G does not exceed the peak so far cannot
 * raise it and is skipped. Most blocks of music are skipped once the loud
 * part has been seen; the rest run as one multiply-add per tap over the
 * whole block, which vectorises. */
#include "analysis/truepeak.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

#define PHASE_TAPS 12
#define MAX_PHASES 4
#define BLOCK 512

struct an_truepeak {
	int channels, phases;
	bool exhaustive;
	/* taps[p][j] = c_p[PHASE_TAPS - 1 - j]: applied to buf[i + j]. */
	float taps[MAX_PHASES][PHASE_TAPS];
	float gain_bound;
	float peak;
	/* Per channel: PHASE_TAPS - 1 samples of history, then a block. */
	float *buf;
	size_t fill; /* frames of the current block in buf */
	float acc[BLOCK];
};

/* Centred on a tap, so phase 0 is the input itself (its peak is the
 * sample peak, kept apart) and phases 1..P-1 fall between samples. */
static void design(struct an_truepeak *tp)
{
	int p_n = tp->phases, half = p_n * PHASE_TAPS / 2;
	tp->gain_bound = 0;
	for (int p = 1; p < p_n; p++) {
		double c[PHASE_TAPS], sum = 0, abs_sum = 0;
		for (int k = 0; k < PHASE_TAPS; k++) {
			int j = p + p_n * k - half; /* -half < j < half */
			double t = (double)j / p_n; /* in input samples */
			double sinc = sin(M_PI * t) / (M_PI * t);
			double w = 0.5 + 0.5 * cos(M_PI * j / (half + 1));
			c[k] = sinc * w;
			sum += c[k];
		}
		for (int k = 0; k < PHASE_TAPS; k++) {
			c[k] /= sum;
			abs_sum += fabs(c[k]);
			tp->taps[p][PHASE_TAPS - 1 - k] = (float)c[k];
		}
		/* A little above the exact bound: float rounding in the sums. */
		if (abs_sum * 1.0001 > tp->gain_bound)
			tp->gain_bound = (float)(abs_sum * 1.0001);
	}
}

struct an_truepeak *an_truepeak_new(int channels, int rate)
{
	if (channels < 1 || channels > 64 || rate < 1)
		return NULL;
	struct an_truepeak *tp = xcalloc(1, sizeof *tp);
	tp->channels = channels;
	tp->phases = rate < 96000 ? 4 : rate < 192000 ? 2 : 1;
	design(tp);
	tp->buf = xcalloc((size_t)channels * (PHASE_TAPS - 1 + BLOCK), sizeof *tp->buf);
	return tp;
}

void an_truepeak_free(struct an_truepeak *tp)
{
	if (!tp)
		return;
	free(tp->buf);
	free(tp);
}

void an_truepeak_set_exhaustive(struct an_truepeak *tp, bool exhaustive)
{
	tp->exhaustive = exhaustive;
}

static float max_abs(const float *x, size_t n)
{
	float m = 0;
	for (size_t i = 0; i < n; i++)
		m = fmaxf(m, fabsf(x[i]));
	return m;
}

/* One channel's block: x holds PHASE_TAPS - 1 samples of history, then n. */
static void interpolate(struct an_truepeak *tp, const float *x, size_t n)
{
	float m = tp->peak;
	for (int p = 1; p < tp->phases; p++) {
		const float *c = tp->taps[p];
		float *acc = tp->acc;
		for (size_t i = 0; i < n; i++)
			acc[i] = c[0] * x[i];
		for (int j = 1; j < PHASE_TAPS; j++) {
			float cj = c[j];
			const float *xj = x + j;
			for (size_t i = 0; i < n; i++)
				acc[i] += cj * xj[i];
		}
		m = fmaxf(m, max_abs(acc, n));
	}
	tp->peak = m;
}

static void flush_block(struct an_truepeak *tp)
{
	const size_t hist = PHASE_TAPS - 1, stride = hist + BLOCK;
	for (int c = 0; c < tp->channels; c++) {
		float *x = tp->buf + (size_t)c * stride;
		float block_max = max_abs(x + hist, tp->fill);
		tp->peak = fmaxf(tp->peak, block_max); /* never below a sample */
		if (tp->phases > 1 &&
		    (tp->exhaustive || fmaxf(block_max, max_abs(x, hist)) * tp->gain_bound > tp->peak))
			interpolate(tp, x, tp->fill);
		memmove(x, x + tp->fill, hist * sizeof *x);
	}
	tp->fill = 0;
}

void an_truepeak_add(struct an_truepeak *tp, const float *frames, size_t n)
{
	const size_t hist = PHASE_TAPS - 1, stride = hist + BLOCK;
	const size_t ch = (size_t)tp->channels;
	while (n > 0) {
		size_t take = BLOCK - tp->fill;
		if (take > n)
			take = n;
		for (size_t c = 0; c < ch; c++) {
			float *dst = tp->buf + c * stride + hist + tp->fill;
			for (size_t i = 0; i < take; i++) {
				float v = frames[i * ch + c];
				dst[i] = isfinite(v) ? v : 0; /* NaN must not poison the peak */
			}
		}
		frames += take * ch;
		n -= take;
		tp->fill += take;
		if (tp->fill == BLOCK)
			flush_block(tp);
	}
}

double an_truepeak_value(struct an_truepeak *tp)
{
	if (tp->fill > 0) /* a short block is a block: the history carries on */
		flush_block(tp);
	return tp->peak;
}
