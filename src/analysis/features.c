/* Loudness with libebur128 (the EBU's reference implementation, what
 * loudgain, rsgain and FFmpeg-based taggers agree with); spectrum, spectral
 * flux, centroid, rolloff and MFCC with aubio on a mono 22,050 Hz excerpt
 * made by libswresample. Tempo is read from the autocorrelation of aubio's
 * spectral-flux onset function (aubio's own beat tracker was off by 1-2 BPM
 * or an octave on plain click tracks: its period is whole hops). */
#include "analysis/features.h"
#include "analysis/truepeak.h"

#include <aubio/aubio.h>
#include <ebur128.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AN_RATE 22050
#define AN_WIN 1024
#define AN_HOP 256
/* Timbre statistics on every fourth hop (21 a second): a quarter of the
 * MFCC cost, the same means and deviations. */
#define TIMBRE_EVERY 4
/* Tempo search range (BPM) and grid step. */
#define BPM_MIN 55.0
#define BPM_MAX 210.0
#define BPM_STEP 0.01
/* Comb: a candidate period is scored on this many multiples. */
#define COMB 4
/* A tempo 2 or 3 times the best that explains the onsets nearly as well
 * (within this ratio) is the beat; the best was a bar or half-bar.
 * Only up to PROMOTE_MAX BPM, where beats rather than subdivisions are. */
#define PROMOTE_RATIO 0.85
#define PROMOTE_MAX 190.0
/* Below this confidence there is no tempo (a drone, silence, noise). */
#define TEMPO_MIN_CONFIDENCE 0.05
#define MFCC_FILTERS 40
#define MFCC_COEFS 13
/* Frames quieter than this (RMS, dBFS) say nothing of timbre. */
#define TIMBRE_GATE_DB (-60.0)

struct an_feed {
	int channels, rate;
	ebur128_state *r128;
	struct an_truepeak *tp; /* ours: libebur128's took 40 % of the analysis */
	/* 100 ms blocks for the histogram: frames since the last boundary. */
	size_t blk_frames, blk_fill;
	uint64_t blocks;
	uint32_t *hist;

	/* Excerpt for tempo/timbre, in native frames. */
	int64_t fed, ex_start, ex_end;
	SwrContext *swr;
	float *mono;           /* downmixed chunk, native rate */
	size_t mono_cap;
	float *rs;             /* resampled, AN_RATE */
	size_t rs_cap;
	fvec_t *hop;           /* pending excerpt samples (hop_fill of AN_HOP) */
	size_t hop_fill;

	aubio_pvoc_t *pv;
	cvec_t *grain;
	aubio_mfcc_t *mfcc;
	fvec_t *mfcc_out;
	aubio_specdesc_t *centroid, *rolloff, *flux;
	fvec_t *desc;
	uint64_t hops;

	/* Onset function (spectral flux per hop) and accumulated statistics. */
	float *onset;
	size_t nonset, onset_cap;
	double mfcc_sum[MFCC_COEFS], mfcc_sq[MFCC_COEFS];
	double cent_sum, cent_sq, roll_sum, flux_sum, mag_sum;
	uint64_t voiced;
};

void an_result_clear(struct an_result *r)
{
	free(r->hist);
	memset(r, 0, sizeof *r);
}

void an_feed_free(struct an_feed *f)
{
	if (!f)
		return;
	if (f->r128)
		ebur128_destroy(&f->r128);
	an_truepeak_free(f->tp);
	swr_free(&f->swr);
	free(f->hist);
	free(f->mono);
	free(f->rs);
	free(f->onset);
	if (f->hop)
		del_fvec(f->hop);
	if (f->pv)
		del_aubio_pvoc(f->pv);
	if (f->grain)
		del_cvec(f->grain);
	if (f->mfcc)
		del_aubio_mfcc(f->mfcc);
	if (f->mfcc_out)
		del_fvec(f->mfcc_out);
	if (f->centroid)
		del_aubio_specdesc(f->centroid);
	if (f->rolloff)
		del_aubio_specdesc(f->rolloff);
	if (f->flux)
		del_aubio_specdesc(f->flux);
	if (f->desc)
		del_fvec(f->desc);
	free(f);
}

/* ITU-R BS.1770 channel weights, as FFmpeg's ebur128 filter gives them
 * for the decoder's output layout (FFmpeg's default for the channel
 * count): 1.41 for back, side and surround channels, none for LFE, 1.0
 * for the rest. A mono file counts as played on both speakers (dual
 * mono, the ReplayGain 2.0 convention). */
static void map_channels(ebur128_state *st, int channels)
{
	if (channels == 1) {
		ebur128_set_channel(st, 0, EBUR128_DUAL_MONO);
		return;
	}
	const uint64_t surround = AV_CH_BACK_LEFT | AV_CH_BACK_CENTER | AV_CH_BACK_RIGHT |
				  AV_CH_TOP_BACK_LEFT | AV_CH_TOP_BACK_CENTER |
				  AV_CH_TOP_BACK_RIGHT | AV_CH_SIDE_LEFT | AV_CH_SIDE_RIGHT |
				  AV_CH_SURROUND_DIRECT_LEFT | AV_CH_SURROUND_DIRECT_RIGHT;
	AVChannelLayout layout;
	av_channel_layout_default(&layout, channels);
	for (int c = 0; c < channels; c++) {
		enum AVChannel ch = av_channel_layout_channel_from_index(&layout, (unsigned)c);
		uint64_t bit = ch >= 0 && ch < 64 ? 1ull << ch : 0;
		int w = EBUR128_LEFT; /* weight 1.0 */
		if (bit & (AV_CH_LOW_FREQUENCY | AV_CH_LOW_FREQUENCY_2))
			w = EBUR128_UNUSED;
		else if (bit & surround)
			w = EBUR128_LEFT_SURROUND; /* weight 1.41 */
		ebur128_set_channel(st, (unsigned)c, w);
	}
	av_channel_layout_uninit(&layout);
}

static int setup_aubio(struct an_feed *f, struct crate_err *err)
{
	f->hop = new_fvec(AN_HOP);
	f->pv = new_aubio_pvoc(AN_WIN, AN_HOP);
	f->grain = new_cvec(AN_WIN);
	f->mfcc = new_aubio_mfcc(AN_WIN, MFCC_FILTERS, MFCC_COEFS, AN_RATE);
	f->mfcc_out = new_fvec(MFCC_COEFS);
	f->centroid = new_aubio_specdesc("centroid", AN_WIN);
	f->rolloff = new_aubio_specdesc("rolloff", AN_WIN);
	f->flux = new_aubio_specdesc("specflux", AN_WIN);
	f->desc = new_fvec(1);
	if (!f->hop || !f->pv || !f->grain || !f->mfcc ||
	    !f->mfcc_out || !f->centroid || !f->rolloff || !f->flux || !f->desc)
		return crate_err_set(err, CRATE_ERR_NOMEM, "cannot set up aubio");
	return 0;
}

static int setup_resampler(struct an_feed *f, struct crate_err *err)
{
	AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
	if (swr_alloc_set_opts2(&f->swr, &mono, AV_SAMPLE_FMT_FLT, AN_RATE, &mono,
				AV_SAMPLE_FMT_FLT, f->rate, 0, NULL) < 0 ||
	    swr_init(f->swr) < 0)
		return crate_err_set(err, CRATE_ERR_MEDIA, "cannot resample %d Hz for analysis",
				     f->rate);
	return 0;
}

struct an_feed *an_feed_new(int channels, int rate, int64_t duration_ms, struct crate_err *err)
{
	if (channels < 1 || channels > 64 || rate < 1000 || rate > 768000) {
		crate_err_set(err, CRATE_ERR_MEDIA, "cannot analyse %d channels at %d Hz", channels,
			      rate);
		return NULL;
	}
	struct an_feed *f = xcalloc(1, sizeof *f);
	f->channels = channels;
	f->rate = rate;
	f->r128 = ebur128_init((unsigned)channels, (unsigned long)rate,
			       EBUR128_MODE_I | EBUR128_MODE_LRA);
	f->tp = an_truepeak_new(channels, rate);
	if (!f->r128 || !f->tp) {
		crate_err_set(err, CRATE_ERR_NOMEM, "cannot set up loudness measurement");
		an_feed_free(f);
		return NULL;
	}
	map_channels(f->r128, channels);
	/* libebur128 closes a gating block every 100 ms (rounded like this). */
	f->blk_frames = ((size_t)rate + 5) / 10;
	f->hist = xcalloc(AN_HIST_BINS, sizeof *f->hist);
	int64_t ex = (int64_t)AN_EXCERPT_MS * rate / 1000;
	int64_t total = duration_ms > 0 ? duration_ms * rate / 1000 : -1;
	f->ex_start = total > ex ? (total - ex) / 2 : 0;
	f->ex_end = f->ex_start + ex;
	if (setup_resampler(f, err) != 0 || setup_aubio(f, err) != 0) {
		an_feed_free(f);
		return NULL;
	}
	return f;
}

/* After each 100 ms: the momentary loudness is the gating block that
 * libebur128 just closed (400 ms, 75 % overlap). */
static void block_done(struct an_feed *f)
{
	if (++f->blocks < 4)
		return; /* the first block closes after 400 ms */
	double m;
	if (ebur128_loudness_momentary(f->r128, &m) != EBUR128_SUCCESS || !isfinite(m) ||
	    m < AN_HIST_MIN)
		return;
	long bin = lround((m - AN_HIST_MIN) * 10.0);
	if (bin >= AN_HIST_BINS)
		bin = AN_HIST_BINS - 1;
	f->hist[bin]++;
}

static int add_loudness(struct an_feed *f, const float *frames, size_t n)
{
	while (n > 0) {
		size_t take = f->blk_frames - f->blk_fill;
		if (take > n)
			take = n;
		if (ebur128_add_frames_float(f->r128, frames, take) != EBUR128_SUCCESS)
			return -1;
		an_truepeak_add(f->tp, frames, take);
		frames += take * (size_t)f->channels;
		n -= take;
		f->blk_fill += take;
		if (f->blk_fill == f->blk_frames) {
			f->blk_fill = 0;
			block_done(f);
		}
	}
	return 0;
}

static void hop_done(struct an_feed *f)
{
	f->hops++;
	aubio_pvoc_do(f->pv, f->hop, f->grain);
	aubio_specdesc_do(f->flux, f->grain, f->desc);
	double flux = f->desc->data[0];
	if (f->nonset == f->onset_cap) {
		f->onset_cap = f->onset_cap ? 2 * f->onset_cap : 4096;
		f->onset = xreallocarray(f->onset, f->onset_cap, sizeof *f->onset);
	}
	f->onset[f->nonset++] = (float)flux;
	if (f->hops % TIMBRE_EVERY)
		return;
	double energy = 0;
	for (size_t i = 0; i < AN_HOP; i++)
		energy += (double)f->hop->data[i] * f->hop->data[i];
	if (10.0 * log10(energy / AN_HOP + 1e-20) < TIMBRE_GATE_DB)
		return;
	f->voiced++;
	aubio_mfcc_do(f->mfcc, f->grain, f->mfcc_out);
	for (int c = 0; c < MFCC_COEFS; c++) {
		double v = f->mfcc_out->data[c];
		f->mfcc_sum[c] += v;
		f->mfcc_sq[c] += v * v;
	}
	double hz_per_bin = (double)AN_RATE / AN_WIN;
	aubio_specdesc_do(f->centroid, f->grain, f->desc);
	double cent = log1p(f->desc->data[0] * hz_per_bin);
	f->cent_sum += cent;
	f->cent_sq += cent * cent;
	aubio_specdesc_do(f->rolloff, f->grain, f->desc);
	f->roll_sum += log1p(f->desc->data[0] * hz_per_bin);
	f->flux_sum += flux;
	double mag = 0;
	for (uint_t i = 0; i < f->grain->length; i++)
		mag += f->grain->norm[i];
	f->mag_sum += mag;
}

static void add_excerpt(struct an_feed *f, const float *mono, size_t n)
{
	size_t need = (size_t)swr_get_out_samples(f->swr, (int)n);
	if (need > f->rs_cap) {
		f->rs_cap = need;
		f->rs = xreallocarray(f->rs, f->rs_cap, sizeof *f->rs);
	}
	uint8_t *out = (uint8_t *)f->rs;
	const uint8_t *in = (const uint8_t *)mono;
	int got = swr_convert(f->swr, &out, (int)f->rs_cap, mono ? &in : NULL, (int)n);
	for (int i = 0; i < got; i++) {
		f->hop->data[f->hop_fill++] = f->rs[i];
		if (f->hop_fill == AN_HOP) {
			f->hop_fill = 0;
			hop_done(f);
		}
	}
}

int an_feed_add(struct an_feed *f, const float *frames, size_t n, struct crate_err *err)
{
	if (add_loudness(f, frames, n) != 0)
		return crate_err_set(err, CRATE_ERR_MEDIA, "loudness measurement failed");
	/* The part of these frames inside the excerpt, downmixed. */
	int64_t from = f->fed, to = f->fed + (int64_t)n;
	f->fed = to;
	if (to <= f->ex_start || from >= f->ex_end)
		return 0;
	int64_t a = from < f->ex_start ? f->ex_start : from;
	int64_t b = to > f->ex_end ? f->ex_end : to;
	size_t m = (size_t)(b - a);
	if (m > f->mono_cap) {
		f->mono_cap = m;
		f->mono = xreallocarray(f->mono, m, sizeof *f->mono);
	}
	const float *src = frames + (size_t)(a - from) * (size_t)f->channels;
	float scale = 1.0f / (float)f->channels;
	for (size_t i = 0; i < m; i++) {
		float s = 0;
		for (int c = 0; c < f->channels; c++)
			s += src[i * (size_t)f->channels + (size_t)c];
		f->mono[i] = s * scale;
	}
	add_excerpt(f, f->mono, m);
	return 0;
}

/* Autocorrelation at a fractional lag (linear interpolation). */
static double acf_at(const double *acf, size_t nlags, double lag)
{
	size_t i = (size_t)lag;
	if (i + 1 >= nlags)
		return 0;
	double fr = lag - (double)i;
	return acf[i] * (1 - fr) + acf[i + 1] * fr;
}

/* How well beats every `period` frames explain the onset function: the
 * autocorrelation at its multiples, less that half-way between them (so
 * half the true tempo, whose half-way points are beats, loses). */
static double comb_score(const double *acf, size_t nlags, double period)
{
	double on = 0, off = 0;
	for (int k = 1; k <= COMB; k++) {
		on += acf_at(acf, nlags, k * period);
		off += acf_at(acf, nlags, (k - 0.5) * period);
	}
	return (on - 0.5 * off) / COMB;
}

/* Tempo from the onset function: detrended, half-wave rectified, its
 * autocorrelation searched on a fine BPM grid. Confidence: the best
 * comb score relative to the zero-lag energy (0 = no periodicity). */
static void finish_tempo(struct an_feed *f, struct an_result *out)
{
	double fps = (double)AN_RATE / AN_HOP;
	size_t n = f->nonset;
	size_t nlags = (size_t)(COMB * 60.0 / BPM_MIN * fps) + 2;
	if (n < 2 * nlags)
		return; /* too short for a tempo */
	/* Remove a moving average (~0.5 s) so sustained notes do not count. */
	size_t w = (size_t)(fps / 2);
	double *o = xcalloc(n, sizeof *o), run = 0;
	for (size_t i = 0; i < n; i++) {
		run += f->onset[i];
		if (i >= w)
			run -= f->onset[i - w];
		double mean = run / (double)(i < w ? i + 1 : w);
		o[i] = f->onset[i] > mean ? f->onset[i] - mean : 0;
	}
	double *acf = xcalloc(nlags, sizeof *acf);
	for (size_t lag = 0; lag < nlags; lag++) {
		double s = 0;
		for (size_t i = lag; i < n; i++)
			s += o[i] * o[i - lag];
		acf[lag] = s / (double)(n - lag);
	}
	double best = 0, best_bpm = 0;
	for (double bpm = BPM_MIN; bpm <= BPM_MAX; bpm += BPM_STEP) {
		double sc = comb_score(acf, nlags, 60.0 * fps / bpm);
		if (sc > best) {
			best = sc;
			best_bpm = bpm;
		}
	}
	for (int m = 3; m >= 2 && best > 0; m--) {
		if (best_bpm * m > PROMOTE_MAX)
			continue;
		double sc = comb_score(acf, nlags, 60.0 * fps / (best_bpm * m));
		if (sc >= PROMOTE_RATIO * best) {
			best_bpm *= m;
			break;
		}
	}
	if (best > 0 && acf[0] > 0 && best / acf[0] >= TEMPO_MIN_CONFIDENCE) {
		out->has_tempo = true;
		out->bpm = best_bpm;
		out->bpm_confidence = best / acf[0];
	}
	free(acf);
	free(o);
}

static void finish_timbre(struct an_feed *f, struct an_result *out)
{
	/* Under ~1 s of sound the statistics are noise (voiced counts only
	 * every TIMBRE_EVERY-th hop: AN_RATE / AN_HOP alone was 4 s). */
	if (f->voiced < (uint64_t)(AN_RATE / AN_HOP / TIMBRE_EVERY))
		return;
	double n = (double)f->voiced;
	size_t d = 0;
	for (int c = 1; c < MFCC_COEFS; c++)
		out->timbre[d++] = (float)(f->mfcc_sum[c] / n);
	for (int c = 1; c < MFCC_COEFS; c++) {
		double mean = f->mfcc_sum[c] / n;
		double var = f->mfcc_sq[c] / n - mean * mean;
		out->timbre[d++] = (float)sqrt(var > 0 ? var : 0);
	}
	double cm = f->cent_sum / n, cv = f->cent_sq / n - cm * cm;
	out->timbre[d++] = (float)cm;
	out->timbre[d++] = (float)sqrt(cv > 0 ? cv : 0);
	out->timbre[d++] = (float)(f->roll_sum / n);
	out->timbre[d++] = (float)log1p(f->flux_sum / n);
	out->has_timbre = true;
	out->onset = f->mag_sum > 0 ? f->flux_sum / f->mag_sum : 0;
}

int an_feed_finish(struct an_feed *f, struct an_result *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	out->seconds = (double)f->fed / f->rate;
	add_excerpt(f, NULL, 0); /* flush the resampler */
	double l = -HUGE_VAL;
	if (ebur128_loudness_global(f->r128, &l) != EBUR128_SUCCESS)
		return crate_err_set(err, CRATE_ERR_MEDIA, "loudness measurement failed");
	if (isfinite(l)) {
		out->has_loudness = true;
		out->loudness = l;
		if (ebur128_loudness_range(f->r128, &out->lra) != EBUR128_SUCCESS ||
		    !isfinite(out->lra))
			out->lra = 0;
		double peak = an_truepeak_value(f->tp);
		out->peak = peak;
		out->truepeak = peak > 0 ? 20.0 * log10(peak) : -HUGE_VAL;
		out->hist = f->hist;
		f->hist = NULL;
	}
	finish_tempo(f, out);
	finish_timbre(f, out);
	return 0;
}

/* Mean energy of the blocks in bins [from, AN_HIST_BINS); false when none. */
static bool hist_mean(const uint32_t *const *hists, size_t n, long from, double *energy)
{
	double sum = 0, count = 0;
	for (long b = from < 0 ? 0 : from; b < AN_HIST_BINS; b++) {
		double c = 0;
		for (size_t i = 0; i < n; i++)
			c += hists[i] ? hists[i][b] : 0;
		if (c == 0)
			continue;
		/* BS.1770: L = -0.691 + 10 log10(energy). */
		sum += c * pow(10.0, (AN_HIST_MIN + b / 10.0 + 0.691) / 10.0);
		count += c;
	}
	if (count == 0)
		return false;
	*energy = sum / count;
	return true;
}

bool an_hist_loudness(const uint32_t *const *hists, size_t n, double *lufs)
{
	double e;
	if (!hist_mean(hists, n, 0, &e))
		return false;
	double gate = -0.691 + 10.0 * log10(e) - 10.0; /* relative gate */
	long from = lround(ceil((gate - AN_HIST_MIN) * 10.0 - 1e-9));
	if (!hist_mean(hists, n, from, &e))
		return false;
	*lufs = -0.691 + 10.0 * log10(e);
	return true;
}

unsigned char *an_hist_encode(const uint32_t *hist, size_t *len)
{
	size_t n = 0;
	for (int b = 0; b < AN_HIST_BINS; b++)
		n += hist[b] != 0;
	unsigned char *p = xmalloc(n * 6 + 1), *q = p;
	for (int b = 0; b < AN_HIST_BINS; b++) {
		if (!hist[b])
			continue;
		*q++ = (unsigned char)(b & 0xff);
		*q++ = (unsigned char)(b >> 8);
		for (int k = 0; k < 4; k++)
			*q++ = (unsigned char)(hist[b] >> (8 * k));
	}
	*len = (size_t)(q - p);
	return p;
}

bool an_hist_decode(const void *blob, size_t len, uint32_t *hist)
{
	memset(hist, 0, AN_HIST_BINS * sizeof *hist);
	if (len % 6)
		return false;
	const unsigned char *p = blob;
	for (size_t i = 0; i < len; i += 6) {
		unsigned b = p[i] | (unsigned)p[i + 1] << 8;
		if (b >= AN_HIST_BINS)
			return false;
		uint32_t c = 0;
		for (int k = 0; k < 4; k++)
			c |= (uint32_t)p[i + 2 + k] << (8 * k);
		hist[b] = c;
	}
	return true;
}
