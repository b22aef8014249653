/* The equalizer stage (eq.h): RBJ peaking biquads, transposed direct form
 * II, double precision (float state loses the 31 Hz band in rounding noise
 * at high rates). Hand-written rather than libavfilter: it is not among the
 * libraries crate may link, ten biquads are ~100 lines, and an in-place
 * stage has no filter-graph latency or buffering at track boundaries. */
#include "play/eq.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const double eq_band_hz[EQ_BANDS] = {31.25, 62.5, 125, 250, 500, 1000, 2000, 4000, 8000, 16000};

/* Broader than one octave (Q 1.41) so that two equal neighbours give a
 * plateau (ripple 0.3 dB at +6 dB, 0.7 dB at +12 dB between centres) while
 * the gain solve can still reach alternating +-12 dB within ~1.5 dB. */
#define EQ_Q 1.0
/* Filter gains may exceed the user's range to hold a neighbour in place. */
#define EQ_FILTER_MAX (2 * EQ_GAIN_MAX)
/* Seconds of input kept to warm up retuned filters (the 31 Hz band decays
 * by ~90 dB in that time). */
#define EQ_HISTORY_S 0.15
/* Seconds over which the output crossfades from the old settings to the
 * new ones at a track boundary (into flat settings only when the old ones
 * were not flat). */
#define EQ_FADE_S 0.005

struct biquad {
	double b0, b1, b2, a1, a2; /* normalised: a0 = 1 */
};

struct eq_design {
	int nactive;
	struct biquad bq[EQ_BANDS]; /* the active bands, in band order */
	double gain;                /* linear pre-amp */
	bool flat;
};

struct eq {
	int rate, channels;
	enum eq_fmt fmt;
	struct eq_design d;
	double *state;   /* [channels][EQ_BANDS][2] */
	/* While fade_left > 0 the previous settings keep running and the
	 * output moves from theirs to the new ones. */
	struct eq_design old;
	double *old_state;
	size_t fade_left, fade_len;
	double *hist;    /* ring of the last hcap input frames, interleaved */
	size_t hcap, hpos, hlen;
};

bool eq_settings_flat(const struct eq_settings *s)
{
	if (s->preamp_db != 0)
		return false;
	for (int i = 0; i < EQ_BANDS; i++)
		if (s->band_db[i] != 0)
			return false;
	return true;
}

static double clampd(double v, double lim)
{
	if (isnan(v))
		return 0;
	return v < -lim ? -lim : v > lim ? lim : v;
}

void eq_settings_clamp(struct eq_settings *s)
{
	s->preamp_db = clampd(s->preamp_db, EQ_GAIN_MAX);
	for (int i = 0; i < EQ_BANDS; i++)
		s->band_db[i] = clampd(s->band_db[i], EQ_GAIN_MAX);
}

static struct biquad biquad_peaking(double hz, double db, int rate)
{
	double a = pow(10, db / 40), w0 = 2 * M_PI * hz / rate;
	double alpha = sin(w0) / (2 * EQ_Q), c = cos(w0);
	double a0 = 1 + alpha / a;
	return (struct biquad){
		.b0 = (1 + alpha * a) / a0,
		.b1 = -2 * c / a0,
		.b2 = (1 - alpha * a) / a0,
		.a1 = -2 * c / a0,
		.a2 = (1 - alpha / a) / a0,
	};
}

/* |H(e^jw)| in dB. */
static double biquad_db(const struct biquad *q, double hz, int rate)
{
	double w = 2 * M_PI * hz / rate, c1 = cos(w), s1 = sin(w), c2 = cos(2 * w), s2 = sin(2 * w);
	double nr = q->b0 + q->b1 * c1 + q->b2 * c2, ni = -q->b1 * s1 - q->b2 * s2;
	double dr = 1 + q->a1 * c1 + q->a2 * c2, di = -q->a1 * s1 - q->a2 * s2;
	return 10 * log10((nr * nr + ni * ni) / (dr * dr + di * di));
}

static double band_db_at(int band, double gain_db, double hz, int rate)
{
	struct biquad q = biquad_peaking(eq_band_hz[band], gain_db, rate);
	return biquad_db(&q, hz, rate);
}

/* Solve a x = b (n x n, row-major) in place by Gaussian elimination with
 * partial pivoting; b receives x. False when singular. */
static bool solve_linear(double *a, double *b, int n)
{
	for (int col = 0; col < n; col++) {
		int piv = col;
		for (int r = col + 1; r < n; r++)
			if (fabs(a[r * n + col]) > fabs(a[piv * n + col]))
				piv = r;
		if (fabs(a[piv * n + col]) < 1e-12)
			return false;
		if (piv != col) {
			for (int k = 0; k < n; k++) {
				double t = a[col * n + k];
				a[col * n + k] = a[piv * n + k];
				a[piv * n + k] = t;
			}
			double t = b[col];
			b[col] = b[piv];
			b[piv] = t;
		}
		for (int r = col + 1; r < n; r++) {
			double f = a[r * n + col] / a[col * n + col];
			for (int k = col; k < n; k++)
				a[r * n + k] -= f * a[col * n + k];
			b[r] -= f * b[col];
		}
	}
	for (int r = n - 1; r >= 0; r--) {
		double s = b[r];
		for (int k = r + 1; k < n; k++)
			s -= a[r * n + k] * b[k];
		b[r] = s / a[r * n + r];
	}
	return true;
}

/* Filter gains (dB) for the realisable bands so that the cascade's response
 * at each band centre equals the user's gain there: Newton's method on the
 * band interaction (each filter's gain moves its neighbours' centres too). */
static int design_gains(const struct eq_settings *s, int rate, int *band, double *g)
{
	int n = 0;
	double target[EQ_BANDS];
	for (int i = 0; i < EQ_BANDS; i++) {
		if (eq_band_hz[i] >= 0.45 * rate)
			continue;
		band[n] = i;
		target[n] = clampd(s->band_db[i], EQ_GAIN_MAX);
		g[n] = target[n];
		n++;
	}
	bool any = false;
	for (int i = 0; i < n; i++)
		any |= target[i] != 0;
	if (!any)
		return 0;
	for (int iter = 0; iter < 12; iter++) {
		double res[EQ_BANDS], jac[EQ_BANDS * EQ_BANDS], worst = 0;
		for (int k = 0; k < n; k++) {
			double hz = eq_band_hz[band[k]], r = 0;
			for (int j = 0; j < n; j++) {
				r += band_db_at(band[j], g[j], hz, rate);
				double h = 0.01;
				jac[k * n + j] = (band_db_at(band[j], g[j] + h, hz, rate) -
						  band_db_at(band[j], g[j] - h, hz, rate)) / (2 * h);
			}
			res[k] = target[k] - r;
			worst = fmax(worst, fabs(res[k]));
		}
		if (worst < 1e-4 || !solve_linear(jac, res, n))
			break;
		for (int k = 0; k < n; k++)
			g[k] = clampd(g[k] + res[k], EQ_FILTER_MAX);
	}
	return n;
}

static void design(const struct eq_settings *s, int rate, struct eq_design *d)
{
	memset(d, 0, sizeof *d);
	d->gain = pow(10, clampd(s->preamp_db, EQ_GAIN_MAX) / 20);
	int band[EQ_BANDS];
	double g[EQ_BANDS];
	int n = design_gains(s, rate, band, g);
	for (int k = 0; k < n; k++)
		if (fabs(g[k]) > 1e-9) /* a 0 dB peaking filter is the identity */
			d->bq[d->nactive++] = biquad_peaking(eq_band_hz[band[k]], g[k], rate);
	d->flat = eq_settings_flat(s) || (d->nactive == 0 && d->gain == 1);
}

double eq_response_db(const struct eq_settings *s, int rate, double hz)
{
	struct eq_design d;
	design(s, rate, &d);
	double r = 20 * log10(d.gain);
	for (int k = 0; k < d.nactive; k++)
		r += biquad_db(&d.bq[k], hz, rate);
	return r;
}

struct eq *eq_new(const struct eq_settings *s, int rate, int channels, enum eq_fmt fmt,
		  struct crate_err *err)
{
	if (rate < 8000 || rate > 768000) {
		crate_err_set(err, CRATE_ERR_INVALID, "equalizer: unsupported sample rate %d Hz", rate);
		return NULL;
	}
	if (channels < 1 || channels > 32) {
		crate_err_set(err, CRATE_ERR_INVALID, "equalizer: unsupported channel count %d",
			      channels);
		return NULL;
	}
	if (fmt != EQ_FMT_S16 && fmt != EQ_FMT_S32 && fmt != EQ_FMT_FLT) {
		crate_err_set(err, CRATE_ERR_INVALID, "equalizer: unsupported sample format %d",
			      (int)fmt);
		return NULL;
	}
	struct eq *eq = xcalloc(1, sizeof *eq);
	eq->rate = rate;
	eq->channels = channels;
	eq->fmt = fmt;
	eq->state = xcalloc((size_t)channels * EQ_BANDS * 2, sizeof *eq->state);
	eq->old_state = xcalloc((size_t)channels * EQ_BANDS * 2, sizeof *eq->state);
	eq->fade_len = (size_t)(rate * EQ_FADE_S);
	eq->hcap = (size_t)(rate * EQ_HISTORY_S);
	eq->hist = xcalloc(eq->hcap * (size_t)channels, sizeof *eq->hist);
	design(s, rate, &eq->d);
	return eq;
}

void eq_free(struct eq *eq)
{
	if (!eq)
		return;
	free(eq->state);
	free(eq->old_state);
	free(eq->hist);
	free(eq);
}

bool eq_bypassed(const struct eq *eq)
{
	return eq->d.flat;
}

void eq_reset(struct eq *eq)
{
	memset(eq->state, 0, (size_t)eq->channels * EQ_BANDS * 2 * sizeof *eq->state);
	eq->hlen = eq->hpos = 0;
	eq->fade_left = 0;
}

static double sample_in(const struct eq *eq, const void *buf, size_t i)
{
	switch (eq->fmt) {
	case EQ_FMT_S16:
		return ((const int16_t *)buf)[i] * (1.0 / 32768);
	case EQ_FMT_S32:
		return ((const int32_t *)buf)[i] * (1.0 / 2147483648.0);
	default:
		return ((const float *)buf)[i];
	}
}

static void sample_out(const struct eq *eq, void *buf, size_t i, double x)
{
	switch (eq->fmt) {
	case EQ_FMT_S16: {
		double v = nearbyint(x * 32768);
		((int16_t *)buf)[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
		break;
	}
	case EQ_FMT_S32: {
		double v = nearbyint(x * 2147483648.0);
		((int32_t *)buf)[i] = (int32_t)(v < -2147483648.0 ? -2147483648.0
					       : v > 2147483647.0 ? 2147483647.0 : v);
		break;
	}
	default:
		((float *)buf)[i] = (float)x;
		break;
	}
}

/* Run one sample of channel ch through the active bands. */
static inline double filter_one(const struct eq_design *d, double *st, double x)
{
	for (int k = 0; k < d->nactive; k++) {
		const struct biquad *q = &d->bq[k];
		double *z = st + 2 * k;
		double y = q->b0 * x + z[0];
		z[0] = q->b1 * x - q->a1 * y + z[1];
		z[1] = q->b2 * x - q->a2 * y;
		x = y;
	}
	return x;
}

/* The history ring keeps the last hcap input frames (as the stage saw them,
 * before filtering) for retuning. */
static double *history_slot(struct eq *eq)
{
	double *dst = eq->hist + eq->hpos * (size_t)eq->channels;
	eq->hpos = (eq->hpos + 1) % eq->hcap;
	if (eq->hlen < eq->hcap)
		eq->hlen++;
	return dst;
}

/* Denormal filter state makes the FPU crawl during silence. */
static void state_flush_tiny(struct eq *eq)
{
	size_t n = (size_t)eq->channels * EQ_BANDS * 2;
	for (size_t i = 0; i < n; i++)
		if (fabs(eq->state[i]) < 1e-30)
			eq->state[i] = 0;
}

/* Frames at the start of a retune: both settings run, the output moves
 * from the old to the new along a raised cosine. */
static size_t process_fade(struct eq *eq, void *samples, size_t frames)
{
	size_t ch = (size_t)eq->channels, n = frames < eq->fade_left ? frames : eq->fade_left;
	for (size_t f = 0; f < n; f++) {
		size_t k = eq->fade_len - eq->fade_left + f + 1;
		double w = 0.5 - 0.5 * cos(M_PI * (double)k / (double)(eq->fade_len + 1));
		double *h = history_slot(eq);
		for (size_t c = 0; c < ch; c++) {
			size_t i = f * ch + c;
			double x = sample_in(eq, samples, i);
			h[c] = x;
			double yo = eq->old.flat ? x
				: filter_one(&eq->old, eq->old_state + c * EQ_BANDS * 2, x) * eq->old.gain;
			double yn = eq->d.flat ? x
				: filter_one(&eq->d, eq->state + c * EQ_BANDS * 2, x) * eq->d.gain;
			sample_out(eq, samples, i, yo + w * (yn - yo));
		}
	}
	eq->fade_left -= n;
	return n;
}

void eq_process(struct eq *eq, void *samples, size_t frames)
{
	size_t ch = (size_t)eq->channels;
	if (eq->fade_left) {
		size_t done = process_fade(eq, samples, frames);
		samples = (char *)samples + done * ch * (eq->fmt == EQ_FMT_S16 ? 2 : 4);
		frames -= done;
	}
	if (eq->d.flat) {
		/* Only the last hcap frames can matter to the history. */
		size_t from = frames > eq->hcap ? frames - eq->hcap : 0;
		for (size_t f = from; f < frames; f++) {
			double *h = history_slot(eq);
			for (size_t c = 0; c < ch; c++)
				h[c] = sample_in(eq, samples, f * ch + c);
		}
		return;
	}
	size_t keep_from = frames > eq->hcap ? frames - eq->hcap : 0;
	for (size_t f = 0; f < frames; f++) {
		double *h = f >= keep_from ? history_slot(eq) : NULL;
		for (size_t c = 0; c < ch; c++) {
			size_t i = f * ch + c;
			double x = sample_in(eq, samples, i);
			if (h)
				h[c] = x;
			x = filter_one(&eq->d, eq->state + c * EQ_BANDS * 2, x);
			sample_out(eq, samples, i, x * eq->d.gain);
		}
	}
	state_flush_tiny(eq);
}

void eq_set_settings(struct eq *eq, const struct eq_settings *s)
{
	size_t ch = (size_t)eq->channels, nstate = ch * EQ_BANDS * 2;
	/* The old settings keep running through the fade; a fade already in
	 * progress is cut short (its new settings become the old ones). */
	eq->old = eq->d;
	memcpy(eq->old_state, eq->state, nstate * sizeof *eq->state);
	design(s, eq->rate, &eq->d);
	memset(eq->state, 0, nstate * sizeof *eq->state);
	eq->fade_left = 0;
	/* From nothing (no history): nothing to fade from. Flat to flat:
	 * nothing to fade, the track is bit-exact from its first frame. */
	if (eq->hlen == 0 || (eq->d.flat && eq->old.flat))
		return;
	/* Into flat: the old filters (warm) fade out into the dry signal, so
	 * the track is bit-exact once the fade is over. */
	if (eq->d.flat) {
		eq->fade_left = eq->fade_len;
		return;
	}
	size_t start = (eq->hpos + eq->hcap - eq->hlen) % eq->hcap;
	for (size_t n = 0; n < eq->hlen; n++) {
		const double *fr = eq->hist + ((start + n) % eq->hcap) * ch;
		for (size_t c = 0; c < ch; c++)
			filter_one(&eq->d, eq->state + c * EQ_BANDS * 2, fr[c]);
	}
	eq->fade_left = eq->fade_len;
}
