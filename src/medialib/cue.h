/* Cue sheets: the text of a .cue file (or a FLAC CUESHEET comment) read
 * into the tracks of one audio file. Pure: no I/O, no database. */
#ifndef CRATE_MEDIALIB_CUE_H
#define CRATE_MEDIALIB_CUE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define MLIB_CUE_FPS 75      /* CD frames per second: INDEX mm:ss:ff */
#define MLIB_CUE_MAX_TRACKS 99 /* the Red Book's limit, TRACK 01..99 */

struct mlib_cue_track {
	int number;       /* TRACK nn, 1..99, strictly increasing */
	int line;         /* where TRACK stands (for messages) */
	int64_t start;    /* INDEX 01 in CD frames from the file's start */
	char *title;      /* owned UTF-8, NULL when absent (likewise below) */
	char *performer;
	char *songwriter;
	char *isrc;
};

struct mlib_cue {
	char *file;       /* FILE's name as written (owned) */
	char *title;      /* the disc: album */
	char *performer;  /* album artist */
	char *songwriter;
	char *genre;      /* REM GENRE */
	char *date;       /* REM DATE */
	char *comment;    /* REM COMMENT */
	char *discnumber; /* REM DISCNUMBER */
	char *disctotal;  /* REM TOTALDISCS */
	struct mlib_cue_track *tracks;
	size_t ntracks;
};

/* Parse len bytes of cue sheet text. A UTF-8 BOM is skipped; text that is
 * not valid UTF-8 is read as Latin-1. CRLF, CR and LF line ends; values
 * quoted or bare. Errors (CRATE_ERR_PARSE) name the line: no FILE, more
 * than one FILE, a TRACK before FILE, track numbers out of 1..99 or not
 * increasing, an INDEX that is malformed or goes backwards, a track
 * without INDEX 01, a track starting where or before the one before it,
 * binary data. *out is filled on success and owned by the caller
 * (mlib_cue_free); on failure it is left empty. */
int mlib_cue_parse(const char *text, size_t len, struct mlib_cue *out, struct crate_err *err);
void mlib_cue_free(struct mlib_cue *c);

/* A CD-frame time as mm:ss:ff into buf (for messages). */
const char *mlib_cue_time(int64_t frames, char *buf, size_t size);
/* Frames -> samples at rate (exact for 44.1/48/88.2/96/176.4/192 kHz). */
int64_t mlib_cue_samples(int64_t frames, int rate);

#endif
