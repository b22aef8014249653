/* Software volume and ReplayGain: one linear factor applied to the
 * samples after the per-track DSP stage. A factor of exactly 1 leaves the
 * samples untouched (bit-exact playback at 100 % without gain). */
#ifndef CRATE_PLAY_GAIN_H
#define CRATE_PLAY_GAIN_H

#include <stddef.h>

#include "play/pcm.h"

enum play_rg_mode { PLAY_RG_OFF, PLAY_RG_TRACK, PLAY_RG_ALBUM };

/* ReplayGain values of a track; NAN where the tag is absent. */
struct play_rg {
	double track_gain_db, track_peak, album_gain_db, album_peak;
};

/* All NAN: no ReplayGain information. */
struct play_rg play_rg_none(void);
/* "off", "track", "album"; -1 when unknown. */
int play_rg_mode_parse(const char *s);
const char *play_rg_mode_name(enum play_rg_mode m);
/* Parse a tag value such as "-6.48 dB" or "0.988525"; NAN when not a number. */
double play_rg_parse(const char *s);

/* The linear factor for mode: album falls back to track gain when the
 * album gain is missing; the peak (when known) caps the factor at
 * 1/peak so nothing clips. 1.0 when off or no gain is known. */
double play_rg_factor(const struct play_rg *rg, enum play_rg_mode mode, double preamp_db);
/* Volume percent (0..100) to a linear factor (linear in amplitude). */
double play_volume_factor(int percent);

/* Multiply n frames in place by factor, rounding to nearest and
 * saturating integer formats. No-op when factor == 1. */
void play_gain_apply(void *frames, size_t n, const struct play_format *fmt, double factor);

#endif
