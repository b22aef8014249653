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
/* Parse a tag value such as "-6.48 dB" or "0.988525"; NAN when not a
 * finite number. */
double play_rg_parse(const char *s);
/* Gains outside this range (dB) are not believed: a ReplayGain tag of
 * +200 dB would turn a quiet file into a full-scale square wave. The range
 * most tools accept (the gain is stored in a signed byte of 0.5 dB steps
 * in some formats). */
#define PLAY_RG_GAIN_MAX_DB 51.0
/* The pre-amp (playback.replaygain_preamp) range in dB. */
#define PLAY_RG_PREAMP_MAX_DB 15.0
/* A gain tag: NAN when absent, not a number or outside
 * -PLAY_RG_GAIN_MAX_DB..PLAY_RG_GAIN_MAX_DB. */
double play_rg_parse_gain(const char *s);
/* A peak tag (linear, 1.0 = full scale): NAN unless 0 < peak <= 64. */
double play_rg_parse_peak(const char *s);
/* Opus's R128_TRACK_GAIN / R128_ALBUM_GAIN (what opusgain and beets write
 * for Opus instead of REPLAYGAIN_*): 1/256 dB steps towards -23 LUFS,
 * 5 dB below ReplayGain 2.0's -18 LUFS. As a ReplayGain gain in dB; NAN
 * when it is not such a number. */
#define PLAY_RG_R128_OFFSET_DB 5.0
double play_rg_parse_r128(const char *s);

/* The linear factor for mode: album falls back to track gain when the
 * album gain is missing, track to album gain when the track gain is
 * (with the peak of the gain taken); the peak (when known) caps the factor at
 * 1/peak so nothing clips. 1.0 when off or no gain is known. Gains and a
 * pre-amp outside their ranges (or not finite) are clamped to them, so the
 * factor is always finite and at most +66 dB; without a peak, samples
 * that would pass full scale are clipped there by play_gain_apply. */
double play_rg_factor(const struct play_rg *rg, enum play_rg_mode mode, double preamp_db);
/* Volume percent (0..100) to a linear factor (linear in amplitude). */
double play_volume_factor(int percent);

/* Multiply n frames in place by factor, rounding to nearest and
 * saturating at full scale (integer formats at their limits, float at
 * +-1.0 when factor > 1). No-op when factor == 1 or not finite. */
void play_gain_apply(void *frames, size_t n, const struct play_format *fmt, double factor);

#endif
