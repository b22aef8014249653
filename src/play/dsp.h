/* A per-track processing stage in the sample path, between the decoder
 * and the volume/ReplayGain gain (the equalizer and collection rules plug
 * in here). The application builds one for a track when it hands the
 * track to the engine (engine_track.dsp); the engine thread then owns it:
 * it calls configure whenever the stage's format is (re)set - at the
 * track boundary and after a device reopen - process for every block,
 * and destroy when the track is done. None of the callbacks may block. */
#ifndef CRATE_PLAY_DSP_H
#define CRATE_PLAY_DSP_H

#include <stddef.h>

#include "play/pcm.h"

struct play_dsp {
	void *ud;
	/* fmt is the output format (interleaved s16, s32 or float). Return
	 * 0, or -1 to bypass the stage for this format. May be NULL. */
	int (*configure)(void *ud, const struct play_format *fmt);
	/* Transform nframes frames in place. */
	void (*process)(void *ud, void *frames, size_t nframes, const struct play_format *fmt);
	/* Free ud and the struct itself. May be NULL (nothing to free). */
	void (*destroy)(struct play_dsp *dsp);
};

#endif
