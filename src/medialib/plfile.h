/* Playlist files other players read and write: M3U/M3U8 (extended with
 * #EXTINF), PLS and XSPF. Parsing turns a file into entries whose
 * locations are absolute paths (relative ones resolved against the
 * playlist's folder, file:// URIs decoded) or http(s) URLs; writing turns
 * entries into a file. Pure text work: no library, no disk access except
 * what the caller does with the result. */
#ifndef CRATE_MEDIALIB_PLFILE_H
#define CRATE_MEDIALIB_PLFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/str.h"

enum plfile_format { PLFILE_UNKNOWN, PLFILE_M3U, PLFILE_PLS, PLFILE_XSPF };

struct plfile_entry {
	char *location;      /* owned: absolute path (raw bytes) or an http(s) URL;
			      * with a problem, the location as written */
	char *problem;       /* owned, NULL for a usable entry: why it cannot be
			      * played here ("unsupported scheme", "remote host") */
	char *title;         /* owned, NULL when the file gives none (untrusted) */
	int64_t duration_ms; /* -1 when unknown */
	size_t line;         /* where it was in the file (1-based), for messages */
	/* A location written the Windows way (with a backslash, or a drive letter):
	 * the caller tries these when no file has location's very name. */
	char *windows;       /* owned, NULL unless so written: the text as written */
	char *slashed;       /* owned, NULL but for a relative Windows location:
			      * it resolved with '/' for each backslash */
	char *relative;      /* owned, NULL but for a relative location: as written
			      * (decoded), for the caller to look up elsewhere */
};

struct plfile {
	struct plfile_entry *v;
	size_t n, cap;
};

void plfile_free(struct plfile *pl);

/* The format a name says (".m3u", ".m3u8", ".pls", ".xspf", any case). */
enum plfile_format plfile_format_of_name(const char *name);
/* The format of the file's contents (sniffed), else of its name. */
enum plfile_format plfile_format_detect(const char *name, const char *data, size_t len);

/* Parse data (the whole file) as fmt. dir is the playlist's folder
 * (absolute), against which relative locations are resolved. Malformed
 * parts are skipped; an XSPF that is not a playlist is an error. */
int plfile_parse(enum plfile_format fmt, const char *data, size_t len, const char *dir,
		 struct plfile *out, struct crate_err *err);

/* One entry to write: location as given (already relative when wanted). */
struct plfile_out_entry {
	const char *location;
	const char *artist, *title; /* may be NULL */
	int64_t duration_ms;        /* -1 when unknown */
};

/* Whether path cannot be written as it is on a line of M3U or PLS: it
 * holds a control character (a newline would end the line) or starts or
 * ends with a space (readers trim them). Such an absolute path is written
 * as a file:// URI instead. */
bool plfile_path_needs_uri(const char *path);
/* Append the playlist in fmt to b (M3U is written extended, UTF-8). */
void plfile_write(enum plfile_format fmt, const struct plfile_out_entry *e, size_t n,
		  struct strbuf *b);

/* path relative to dir when it lies below it ("a/b.flac"), or with ../
 * steps when they are shorter; owned. Both must be absolute. */
char *plfile_relative(const char *path, const char *dir);

#endif
