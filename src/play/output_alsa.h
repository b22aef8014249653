/* ALSA playback device: negotiates a format close to what is asked,
 * writes interleaved frames, recovers from underruns. Owned by the
 * engine thread. */
#ifndef CRATE_PLAY_OUTPUT_ALSA_H
#define CRATE_PLAY_OUTPUT_ALSA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "play/pcm.h"

struct alsa_out;

struct alsa_opts {
	const char *device; /* ALSA PCM name; NULL = "default" */
	int buffer_ms;      /* device buffer (latency); 0 = 100 */
	/* Keep writes to real time by the wall clock: for devices such as
	 * null/file that consume instantly (benchmarks, tests of pausing). */
	bool pace;
};

/* ALSA's `file` plugin truncates its target: refuse a device string whose
 * file: argument names an existing regular file that is not empty and does
 * not look like audio output (.raw .pcm .wav .au), unless overwrite. 0, or
 * -1 with err naming the file (crate may run as root: output.device =
 * file:/etc/passwd would overwrite it). */
int alsa_device_file_check(const char *device, bool overwrite, struct crate_err *err);

/* Open the device for want (rate, channels, sample format; AUTO not
 * allowed). The device may choose another rate, channel count or format;
 * *got says what it took, and the caller converts to it.
 * Errors name the device. *out is owned by the caller. */
int alsa_out_open(const struct alsa_opts *opts, const struct play_format *want,
		  struct play_format *got, struct alsa_out **out, struct crate_err *err);
/* Drain (unless drop) and close. NULL is fine. */
void alsa_out_close(struct alsa_out *o, bool drop);

/* Write all frames (blocking at most about a buffer's time), recovering
 * from underruns. */
int alsa_out_write(struct alsa_out *o, const void *buf, size_t frames, struct crate_err *err);
/* With pace: how long the writer should wait before the next write to stay
 * a buffer's time ahead of the wall clock (0: write now). The caller waits,
 * so that it can wake for a command meanwhile. */
int alsa_out_pace_wait_ms(const struct alsa_out *o);
/* Let everything written play out. */
int alsa_out_drain(struct alsa_out *o, struct crate_err *err);
/* Throw away what is buffered (stop, seek) and get ready to play again. */
void alsa_out_drop(struct alsa_out *o);
/* Pause or resume; devices that cannot pause simply run dry. */
void alsa_out_pause(struct alsa_out *o, bool pause);
/* Frames written but not yet heard. */
int64_t alsa_out_delay(struct alsa_out *o);
void alsa_out_format(const struct alsa_out *o, struct play_format *out);

#endif
