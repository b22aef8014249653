/* PCM formats shared by the decoder, the sample path and the ALSA output:
 * always interleaved, native endian. */
#ifndef CRATE_PLAY_PCM_H
#define CRATE_PLAY_PCM_H

#include <stdbool.h>
#include <stddef.h>

enum play_sfmt {
	PLAY_SFMT_AUTO = 0, /* only in requests: "whatever suits the source" */
	PLAY_SFMT_S16,
	PLAY_SFMT_S32,
	PLAY_SFMT_FLOAT,
};

struct play_format {
	enum play_sfmt sfmt;
	int rate;     /* frames per second */
	int channels;
};

/* Bytes per sample of one channel (0 for AUTO). */
size_t play_sfmt_bytes(enum play_sfmt f);
size_t play_frame_bytes(const struct play_format *f);
bool play_format_equal(const struct play_format *a, const struct play_format *b);
/* "s16", "s32", "float", "auto". */
const char *play_sfmt_name(enum play_sfmt f);
/* Parse the names above; -1 when unknown. */
int play_sfmt_parse(const char *s);

#endif
