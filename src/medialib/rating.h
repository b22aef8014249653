/* Ratings from files onto crate's one scale: 1 to 5 stars (0: none).
 * Read at scan time from Vorbis/FLAC/Opus RATING, ID3v2 POPM and
 * TXXX:RATING, APE RATING and MP4 `rate`; crate never writes them back.
 *
 * Text values: 1-5 are stars; 6-100 a percentage (80 -> 4); above 100
 * up to 255 the POPM byte scale; a fraction 0.0-1.0 a share (0.8 -> 4).
 * POPM bytes as Windows Media Player writes them: 1-31 -> 1, 32-95 -> 2,
 * 96-159 -> 3, 160-223 -> 4, 224-255 -> 5. MP4 `rate` is a percentage. */
#ifndef CRATE_MEDIALIB_RATING_H
#define CRATE_MEDIALIB_RATING_H

#include <stddef.h>

/* Stars from a tag's text; 0 when it is not a rating. */
int mlib_rating_from_text(const char *s);
/* Stars from a POPM rating byte (0: unrated). */
int mlib_rating_from_popm(unsigned byte);
/* Stars from the rating frames of an ID3v2 tag at the start of buf (the
 * file's first n bytes): POPM first, then TXXX:RATING. 0 when none. */
int mlib_rating_from_id3v2(const unsigned char *buf, size_t n);
/* Stars from the `rate` item of an MP4 file's moov/udta/meta/ilst (the
 * whole file is not needed: boxes are read from the path). 0 when none. */
int mlib_rating_from_mp4(const char *path);

#endif
