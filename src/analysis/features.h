/* What crate hears in a signal: EBU R128 loudness (libebur128) over the
 * whole signal, and tempo, onset strength and a timbre vector (aubio) over
 * a mono 22,050 Hz excerpt. Fed with interleaved float PCM in any rate and
 * channel count; knows nothing of files (analysis/analyze.c decodes). */
#ifndef CRATE_ANALYSIS_FEATURES_H
#define CRATE_ANALYSIS_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Bump MLIB_ANALYSIS_VERSION (medialib/media_analysis.h) when what is
 * computed here changes: stored results are then analysed again. */

/* Timbre vector: MFCC 1..12 means and standard deviations, spectral
 * centroid (mean, deviation; log Hz), rolloff (mean, log Hz) and log
 * spectral flux. Raw values; analysis/space.c standardises them per
 * library before measuring distances. */
#define AN_TIMBRE_DIMS 28

/* Tempo and timbre look at most this much audio, from the middle of the
 * track (intros and fades say little about a song's beat). */
#define AN_EXCERPT_MS (60 * 1000)

/* Block-loudness histogram for album loudness: 0.1 LU bins from -70 LUFS
 * (the absolute gate) to +30, as libebur128's histogram mode. */
#define AN_HIST_BINS 1000
#define AN_HIST_MIN (-70.0)

struct an_result {
	/* Loudness of the whole signal. has_loudness is false for silence
	 * (no 400 ms block above -70 LUFS). */
	bool has_loudness;
	double loudness;  /* integrated, LUFS */
	double lra;       /* loudness range, LU */
	double truepeak;  /* dBTP (max over channels) */
	double peak;      /* true peak, linear (for ReplayGain clipping prevention) */
	/* Tempo of the excerpt: has_tempo false when no beat was found. */
	bool has_tempo;
	double bpm, bpm_confidence;
	double onset;     /* onset strength: mean positive spectral flux / mean magnitude, >= 0 */
	bool has_timbre;  /* false when the excerpt was silent or too short */
	float timbre[AN_TIMBRE_DIMS];
	double seconds;   /* audio analysed (whole signal) */
	/* Gated blocks per 0.1 LU bin (owned, AN_HIST_BINS entries, NULL when
	 * silent); freed by an_result_clear. */
	uint32_t *hist;
};

void an_result_clear(struct an_result *r);

struct an_feed;

/* A feed for a signal of channels x rate; duration_ms (-1 unknown) places
 * the tempo/timbre excerpt. Owned by the caller (an_feed_free). */
struct an_feed *an_feed_new(int channels, int rate, int64_t duration_ms, struct crate_err *err);
void an_feed_free(struct an_feed *f);
/* Add interleaved float frames. */
int an_feed_add(struct an_feed *f, const float *frames, size_t n, struct crate_err *err);
/* Compute the results of everything fed so far. *out is filled (its hist
 * owned by the caller). */
int an_feed_finish(struct an_feed *f, struct an_result *out, struct crate_err *err);

/* Album loudness from the tracks' histograms, as EBU R128 gates a whole
 * album played in a row: integrated LUFS; false when all are silent. */
bool an_hist_loudness(const uint32_t *const *hists, size_t n, double *lufs);

/* Histograms stored compactly: (bin u16, count u32) little-endian pairs
 * for non-empty bins. Encode returns an owned buffer (*len bytes); decode
 * fills hist (AN_HIST_BINS entries), false for a malformed blob. */
unsigned char *an_hist_encode(const uint32_t *hist, size_t *len);
bool an_hist_decode(const void *blob, size_t len, uint32_t *hist);

#endif
