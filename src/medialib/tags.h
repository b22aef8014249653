/* Reading one audio file: tags (FFmpeg's metadata dictionaries plus TagLib)
 * and stream properties (FFmpeg probe). Safe to call from several threads
 * at once. */
#ifndef CRATE_MEDIALIB_TAGS_H
#define CRATE_MEDIALIB_TAGS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* One tag value; a key that appears several times is multi-valued. */
struct mlib_tag {
	char *key;   /* owned; lower-case, normalised ("album_artist" -> "albumartist") */
	char *value; /* owned; never empty; UTF-8 as the file gave it (untrusted) */
};

struct mlib_tags {
	int64_t duration_ms; /* 0 when unknown */
	int64_t bitrate;     /* bits per second, 0 when unknown */
	int samplerate, channels;
	char *format; /* owned codec name ("flac", "mp3", "aac"), NULL when unknown */
	int rating;   /* 1-5 stars from the file's rating tags (medialib/rating.h), 0 none */
	struct mlib_tag *v;
	size_t n, cap;
};

void mlib_tags_init(struct mlib_tags *t);
void mlib_tags_free(struct mlib_tags *t);
/* Append key=value (copied, key normalised; empty values are dropped). */
void mlib_tags_add(struct mlib_tags *t, const char *key, const char *value);
/* First value of key, or NULL. Borrowed. */
const char *mlib_tags_get(const struct mlib_tags *t, const char *key);

/* Normalise a tag name into out (lower-case, aliases mapped, spaces -> '_').
 * Returns out, or NULL when the key is not kept (container bookkeeping or a
 * name reserved for a library property such as "duration"). */
const char *mlib_tags_norm_key(const char *key, char *out, size_t outsize);

/* Read path. Fails (CRATE_ERR_MEDIA / CRATE_ERR_IO, message naming the file
 * and the reason) when the file cannot be opened, has no audio stream
 * FFmpeg can open, or takes longer than timeout_ms to probe. *out must be
 * initialised; it is filled on success (and may hold partial data on
 * failure; free it either way). */
int mlib_tags_read(const char *path, int timeout_ms, struct mlib_tags *out, struct crate_err *err);

/* Call once before using mlib_tags_read from several threads (TagLib's C
 * binding keeps global string bookkeeping that must be switched off). */
void mlib_tags_global_init(void);

#endif
