/* The scanner's side of cue sheets: finding an audio file's cue sheet,
 * checking it against the audio, and the tags and sample range of each
 * of its tracks. Used only by scan.c (worker threads read; the writer
 * builds the rows). */
#ifndef CRATE_MEDIALIB_SCAN_CUE_H
#define CRATE_MEDIALIB_SCAN_CUE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/err.h"
#include "medialib/cue.h"
#include "medialib/tags.h"

struct scan_cue {
	int state;            /* 0: no cue sheet, 1: cue (usable), -1: a bad one (err) */
	struct mlib_cue cue;  /* state 1 */
	char *path;           /* owned: the .cue file, NULL for a CUESHEET tag */
	struct crate_err err; /* state -1: "<cue path>: line N: ..." */
};

/* The cue sheet beside audio (X.cue, else X.ext.cue, for X.ext, else a
 * sheet of the folder whose FILE line names audio and that is no other
 * file's X.cue): its path (owned) and mtime; false when there is none. */
bool scan_cue_sibling(const char *audio, char **path, struct timespec *mtime);

/* Whether a file's name (or path) ends in ".cue", in any case. */
bool scan_cue_is_sheet_name(const char *name);

/* The audio file whose sheet (as scan_cue_sibling finds it) the cue
 * sheet at the absolute path sheet is, owned; NULL when sheet is not
 * named *.cue or no file of its folder is its audio. */
char *scan_cue_audio_of(const char *sheet);

/* Look for the cue sheet of audio (beside it when beside, else or then
 * its CUESHEET tag in t), parse it and check it against the audio (rate
 * known, every track starting before the end). beside false: the folder
 * holds no *.cue (the scanner's walk knows), so none is looked for there;
 * a sheet named otherwise is found by reading the folder, once a file.
 * Thread-safe. */
void scan_cue_read(const char *audio, const struct mlib_tags *t, bool beside,
		   struct scan_cue *out);
void scan_cue_free(struct scan_cue *c);

/* Track i of cue: its tags (file's tags, the cue's values over them;
 * the CUESHEET tag and the file's track ReplayGain dropped) into *out
 * (initialised by the caller), its range [*start, *end) in samples of the
 * file's rate (*end 0: to the end) and duration. */
void scan_cue_track(const struct mlib_cue *cue, size_t i, const struct mlib_tags *file,
		    struct mlib_tags *out, int64_t *start, int64_t *end);

/* "FILE#N": the url of track number n of the file at url (owned). */
char *scan_cue_url(const char *url, size_t len, int n, size_t *outlen);

#endif
