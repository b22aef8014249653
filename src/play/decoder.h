/* One audio file decoded to interleaved PCM in a format the caller picks:
 * FFmpeg demuxes and decodes, libswresample converts (sample format,
 * channel count, rate). Not thread-safe; the engine thread owns it. */
#ifndef CRATE_PLAY_DECODER_H
#define CRATE_PLAY_DECODER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "play/gain.h"
#include "play/pcm.h"

struct decoder;

/* Open path and decode its first frame, so the native format is known.
 * Errors name the file and the reason. *out is owned by the caller. */
int decoder_open(const char *path, struct decoder **out, struct crate_err *err);
/* The same; an http(s):// path is a stream (reconnects on drops, ICY
 * titles, gives up after 15 s without data: "timed out"). While stop is
 * set (by another thread) any wait for the network ends at once. */
int decoder_open_stoppable(const char *path, const atomic_int *stop, struct decoder **out,
			   struct crate_err *err);
bool decoder_is_stream_url(const char *path);
/* A stream's title changed (ICY StreamTitle): true once per change, the
 * title (untrusted text) in buf. */
bool decoder_stream_title(struct decoder *d, char *buf, size_t size);
/* A stream's station name (its icy-name header, UTF-8, untrusted text):
 * true once, after the stream opened, when the server sent one. */
bool decoder_station_name(struct decoder *d, char *buf, size_t size);
void decoder_free(struct decoder *d);

/* The stream's own format: its rate and channels, and the sample format
 * closest to what the codec produces (s16 for 8/16-bit, s32 for 24/32-bit,
 * float for lossy codecs). */
void decoder_native_format(const struct decoder *d, struct play_format *out);
/* Container duration in ms, -1 when unknown or a stream (it can be wrong:
 * trust EOF). */
int64_t decoder_duration_ms(const struct decoder *d);
const char *decoder_path(const struct decoder *d);
/* The ReplayGain tags of the file itself (all NAN for a stream or a file
 * without them): for a file the library does not know. */
struct play_rg decoder_replaygain(const struct decoder *d);

/* Choose the output format (call before the first read; may be called
 * again, e.g. after a device reopen). Defaults to the native format. */
int decoder_set_output(struct decoder *d, const struct play_format *fmt, struct crate_err *err);
void decoder_output_format(const struct decoder *d, struct play_format *out);

/* Read up to max_frames frames into buf. Returns the frames written, 0 at
 * the end of the stream, -1 on a fatal error (bad packets are skipped;
 * only a stream that yields nothing at all is fatal). */
long decoder_read(struct decoder *d, void *buf, size_t max_frames, struct crate_err *err);

/* Play only samples [start, end) of the file (at its native rate; end 0:
 * to its end), as a track of its own: positions, seeks and the duration
 * are relative to start, and reading ends exactly at end. Seeks to start
 * (call before the first read). For cue sheet tracks. */
int decoder_set_range(struct decoder *d, int64_t start, int64_t end, struct crate_err *err);

/* Seek to ms from the start, sample-accurately where timestamps allow. */
int decoder_seek(struct decoder *d, int64_t ms, struct crate_err *err);
/* False for a stream whose server offers no ranges (a live station):
 * decoder_seek refuses it. */
bool decoder_can_seek(const struct decoder *d);
/* Position of the next frame decoder_read will return, in ms. */
int64_t decoder_position_ms(const struct decoder *d);
/* After decoder_read returned 0: where the file's audio ends (the length
 * it really has, whatever its header says), -1 when that is not known: a
 * seek went past the end (no audio came after it), decoding gave up on a
 * run of bad data, or a range's end was reached. */
int64_t decoder_end_ms(const struct decoder *d);
/* Bad packets/frames skipped so far (for reports and tests). */
unsigned decoder_skipped(const struct decoder *d);

#endif
