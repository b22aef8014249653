/* Every value of every tag through TagLib's C++ PropertyMap (the C binding
 * of TagLib 1.x has only the seven basic fields, one joined value each).
 * A small C interface over tags_taglib.cpp. Safe to call from several
 * threads at once (each call has its own TagLib objects). */
#ifndef CRATE_MEDIALIB_TAGS_TAGLIB_H
#define CRATE_MEDIALIB_TAGS_TAGLIB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called once per value (a key's values in the file's order); key is TagLib's property name
 * ("ARTIST", "ALBUMARTIST", "TRACKNUMBER"), value UTF-8. Both borrowed for
 * the call. */
typedef void (*mlib_taglib_value_fn)(void *ud, const char *key, const char *value);

/* Read path's tags. *length_ms gets the audio length when length_ms is not
 * NULL and TagLib knows it (0 otherwise); reading it costs more (TagLib
 * then reads audio properties). Returns 0, or -1 when TagLib cannot read
 * the file (unknown format, broken or unreadable): the caller keeps what
 * FFmpeg found. Never throws. */
int mlib_taglib_read(const char *path, mlib_taglib_value_fn fn, void *ud, int64_t *length_ms);

#ifdef __cplusplus
}
#endif

#endif
