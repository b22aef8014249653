/* The scanner: walks directories (and files), reads new and changed files
 * with worker threads, writes them to the database in batched transactions,
 * and marks vanished files missing. Per-file problems never stop a scan;
 * each is reported with its path and reason. */
#ifndef CRATE_MEDIALIB_SCAN_H
#define CRATE_MEDIALIB_SCAN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "medialib/db.h"

/* Counts of files (never folders). When a scan ends without a fatal
 * error, seen = added + updated + unchanged + failed + ignored. added,
 * updated and missing count what the database has stored (committed):
 * when it cannot be written, what was read but lost is not_stored. */
struct mlib_scan_progress {
	uint64_t seen;      /* files found by the walk so far */
	uint64_t added;     /* new rows */
	uint64_t updated;   /* changed files rewritten in place (same id), or files back from missing */
	uint64_t unchanged; /* same size and mtime: skipped without opening */
	uint64_t failed;    /* audio files (by name, or known ones) that could not be read */
	uint64_t ignored;   /* not audio by name or content: text, images, playlists, cue
			     * sheets, sockets, crate's own database files */
	uint64_t missing;   /* rows newly marked missing (file gone) */
	uint64_t folders_failed; /* folders and roots that could not be read */
	uint64_t roots_gone; /* paths given to the scan that do not exist (an unmounted
			      * disk): not in folders_failed */
	uint64_t cue_failed; /* cue sheets that could not be used (their audio is indexed whole) */
	uint64_t not_stored; /* after a fatal error: files read or found, not in the database */
	uint64_t to_read;   /* new and changed files the walk found (to open and read) */
	uint64_t read;      /* of which read so far */
	double elapsed;     /* seconds since the scan started */
	double files_per_sec; /* files dealt with (seen - to_read + read) / elapsed */
	int walking;        /* 1 while the directory walk is still running */
	int finished;       /* 1 in the last report */
	char current[256];  /* the folder being walked or read (raw bytes: sanitise; the
			     * end of a longer path) */
};

typedef void (*mlib_scan_progress_fn)(void *ud, const struct mlib_scan_progress *p);

struct mlib_scan_opts {
	mlib_scan_progress_fn progress; /* may be NULL; called on the scanning thread */
	void *ud;
	int progress_ms;   /* minimum interval between reports; 0: 200 ms */
	int timeout_ms;    /* per-file probe deadline; 0: 5000 ms */
	int threads;       /* tag-reading threads; 0: one per CPU, at most 4 */
	int batch;         /* files per transaction; 0: 500 (also committed every second) */
	atomic_int *cancel; /* may be NULL; set to 1 to stop soon (committed work is kept) */
};

struct mlib_scan_error {
	char *path;   /* owned, raw bytes of the file or directory */
	char *reason; /* owned, why, without the path (untrusted bytes: sanitise) */
	char *msg;    /* owned, "<path>: <reason>" (untrusted bytes: sanitise for display) */
	int folder;   /* 1: a folder or root (counted in folders_failed, or roots_gone;
		       * not in failed) */
	int cue;      /* 1: a cue sheet (counted in cue_failed, not failed); path is the
		       * .cue file, or the audio file for a CUESHEET tag */
};

/* Something skipped on purpose that is no failure (a link to a folder
 * that contains it): said, never counted. */
struct mlib_scan_note {
	char *path;   /* owned, raw bytes */
	char *reason; /* owned, why it was skipped */
};

struct mlib_scan_result {
	struct mlib_scan_progress totals;
	struct mlib_scan_error *errors;
	size_t nerrors;
	struct mlib_scan_note *notes;
	size_t nnotes;
	int cancelled;
};

/* Scan paths (directories are walked recursively, symlinks followed with
 * loop detection; a link to a file the library has at its own path is no
 * second item). Returns 0 when the scan ran (even if files failed; see
 * res->errors), -1 on a fatal error (database unwritable...) with *err set;
 * work committed before a fatal error stays. res is owned by the caller
 * (mlib_scan_result_free). */
int mlib_scan(struct mlib_db *db, const char *const *paths, size_t npaths,
	      const struct mlib_scan_opts *opts, struct mlib_scan_result *res,
	      struct crate_err *err);
void mlib_scan_result_free(struct mlib_scan_result *res);

#endif
