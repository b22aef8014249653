/* Playlists to and from the files other players use (M3U/M3U8, PLS, XSPF;
 * medialib/plfile.h does the text). Import finds each entry in the library,
 * scans files that exist on disk but are not in it yet, and lists the ones
 * that cannot be found; export writes a playlist's entries. */
#ifndef CRATE_APP_APP_PLFILE_H
#define CRATE_APP_APP_PLFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "medialib/plfile.h"
#include "base/str.h"

/* An entry that could not be imported. */
struct app_import_problem {
	size_t line;  /* in the playlist file */
	char *what;   /* owned: the location and why (untrusted text) */
};

struct app_import_report {
	size_t entries;  /* in the file */
	size_t imported; /* entries of the file put in the playlist */
	size_t scanned;  /* files added to the library on the way */
	size_t cue_files, cue_tracks; /* entries naming a file split by its cue sheet, their tracks */
	struct app_import_problem *problems; /* owned, nproblems of them */
	size_t nproblems;
	size_t problems_cap; /* allocated slots of problems */
};

void app_import_report_free(struct app_import_report *r);

/* Make Playlists/name from the playlist file at path (append: add to an
 * existing playlist instead of refusing it; recorded for app_playlist_undo).
 * Succeeds when the file could be read, even if some entries could not be
 * found (see *rep). */
int app_playlist_import(struct app *app, const char *name, const char *path, bool append,
			struct app_import_report *rep, struct crate_err *err);

/* A list to play: ids[i] an item, or 0 and paths[i] a file or URL to
 * play as it is (owned). */
struct app_plfile_list {
	uint32_t *ids;
	char **paths;
	size_t n, cap;
};
void app_plfile_list_add(struct app_plfile_list *l, uint32_t id, const char *path);
void app_plfile_list_free(struct app_plfile_list *l);

/* The entries of the playlist file at path appended to l, to be played
 * as they are, nothing stored: an entry the library has as its item (a
 * cue-split file as its tracks), another file or a URL as its path. A
 * location nothing can play (missing, another scheme) is in rep's
 * problems, rep->imported counts the others. Fails when the file cannot
 * be read as a playlist. */
int app_playlist_file_entries(struct app *app, const char *path, struct app_plfile_list *l,
			      struct app_import_report *rep, struct crate_err *err);

/* The playlist files (.m3u, .m3u8, .pls, .xspf) under paths (folders are
 * walked without following symbolic links; files are taken as they are),
 * sorted; *out owned (free each, then the array). Returns the count. */
size_t app_playlist_files_find(const char *const *paths, size_t n, char ***out);

/* Playlists/name (NULL: active) as a playlist file in fmt, appended to out.
 * rel_dir: write locations relative to this folder (NULL: absolute).
 * Entries no longer in the library have no location to write: they are
 * left out, and *left_out (may be NULL) says how many. A track of a cue
 * sheet is written as its url, "FILE#N", which crate reads back and no
 * other player does: *cue_tracks (may be NULL) says how many. */
int app_playlist_export(struct app *app, const char *name, enum plfile_format fmt,
			const char *rel_dir, struct strbuf *out, size_t *left_out,
			size_t *cue_tracks, struct crate_err *err);

#endif
