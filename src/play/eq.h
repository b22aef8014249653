/* The equalizer: a 10-band graphic EQ with pre-amp, applied in place to
 * interleaved samples between the decoder and the output (the engine's
 * per-track DSP stage).
 *
 * Ten peaking biquads (31 Hz .. 16 kHz, one octave apart) in cascade, in
 * double precision. The band gains given by the user are what the response
 * measures at the band centres: the filter gains are solved for at set-up so
 * that the overlap of neighbouring bands does not add up (a plain cascade
 * would give +10 dB at 100 Hz for "+6 dB on every bass band").
 *
 * Flat settings (every band and the pre-amp 0 dB) bypass the stage entirely:
 * the output is bit-exact with the input.
 *
 * Track boundaries: eq_set_settings() retunes between two eq_process() calls
 * (the engine calls it before the first frame of the next track). No frame
 * of the previous track is touched. The new filters start warm: their state
 * is computed by running them over the last 150 ms of input the stage has
 * seen, so they have no start-up transient. The output then crossfades
 * over 5 ms from the old settings' output to the new ones' (a filter change
 * shifts phase, which would otherwise be a step in the waveform, heard as a
 * click). Into flat settings that is a fade from the old filters to the dry
 * signal: the track is bit-exact from 5 ms on; a flat track that follows a
 * flat one is bit-exact from its first frame. */
#ifndef CRATE_PLAY_EQ_H
#define CRATE_PLAY_EQ_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define EQ_BANDS 10
#define EQ_GAIN_MAX 12.0   /* dB, per band and for the pre-amp */

/* Band centres in Hz: 31, 62, 125, 250, 500, 1k, 2k, 4k, 8k, 16k. */
extern const double eq_band_hz[EQ_BANDS];

struct eq_settings {
	double preamp_db;          /* gain applied to everything, [-12, 12] */
	double band_db[EQ_BANDS];  /* gain at each band centre, [-12, 12] */
};

/* Interleaved sample formats the stage processes (native endianness). */
enum eq_fmt {
	EQ_FMT_S16,
	EQ_FMT_S32,
	EQ_FMT_FLT,
};

struct eq;

/* True when s changes nothing (the stage then bypasses). */
bool eq_settings_flat(const struct eq_settings *s);
/* Clamp every value into [-EQ_GAIN_MAX, EQ_GAIN_MAX]; NaN becomes 0. */
void eq_settings_clamp(struct eq_settings *s);

/* A stage for one stream format; owned by the caller (eq_free). NULL with
 * *err when rate or channels are out of range (rate 8000..768000, 1..32
 * channels). Bands at or above 0.45 x rate cannot be realised and are left
 * flat. */
struct eq *eq_new(const struct eq_settings *s, int rate, int channels, enum eq_fmt fmt,
		  struct crate_err *err);
void eq_free(struct eq *eq);

/* Process frames interleaved frames in place. Integer formats saturate. */
void eq_process(struct eq *eq, void *samples, size_t frames);

/* New settings from the next frame on (call at the track boundary). */
void eq_set_settings(struct eq *eq, const struct eq_settings *s);
/* Forget the signal history (after a seek or stop: the next frames do not
 * continue the previous ones). */
void eq_reset(struct eq *eq);
bool eq_bypassed(const struct eq *eq);

/* The magnitude response in dB of settings s at frequency hz for a stream
 * at rate, as the stage realises it (used by tests and a UI curve). */
double eq_response_db(const struct eq_settings *s, int rate, double hz);

#endif
