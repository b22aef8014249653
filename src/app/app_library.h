/* The application's library actions: scanning (synchronously for the CLI,
 * in a worker thread for the UI), reloading the index, play statistics. */
#ifndef CRATE_APP_APP_LIBRARY_H
#define CRATE_APP_APP_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "base/vec.h"
#include "medialib/scan.h"

/* Open app->db (read-write, falling back to read-only when the file or its
 * directory cannot be written) and load app->index (an empty one when
 * opts->no_index: commands that only write skip the load; the snapshot in
 * place when opts->map_index). With opts->resident the snapshot is used in
 * place too, and a worker (app->scan, quiet) builds the owned index that a
 * later app_scan_poll swaps in: the caller polls app_scan_event_fd as for
 * any background scan. Called by app_open. */
int app_library_open(struct app *app, const struct app_opts *opts, struct crate_err *err);
/* Stop a background scan, free the index, close the database. */
void app_library_close(struct app *app);

/* Make idx (finished; ownership passes) the library's index: the old one
 * is freed and app_index_generation (app_view.h) moves on, so whatever was
 * computed from the old index is noticed as stale even when idx sits at
 * its address. */
void app_index_replace(struct app *app, struct mlib_index *idx);

/* Wait until the interface's snapshot of app->index, written on a thread
 * after a load from SQLite, is done (nothing to wait for otherwise).
 * Whatever writes into app->index or frees it calls this first. */
void app_snapshot_wait(struct app *app);

/* Rebuild app->index from the database (after a scan). The old index is
 * freed: callers must not keep pointers into it. */
int app_reload_index(struct app *app, struct crate_err *err);

/* Scan synchronously on this thread, then reload the index. res receives
 * the counts and per-file errors (free with mlib_scan_result_free). */
int app_scan(struct app *app, const char *const *paths, size_t n, mlib_scan_progress_fn cb,
	     void *ud, struct mlib_scan_result *res, struct crate_err *err);

/* ---- background scan (UI) ---- */

struct app_scan_progress {
	struct mlib_scan_progress p;
	bool finished;      /* the worker is done and the index was reloaded */
	bool reload_only;   /* no scan: the index is rebuilt (someone changed the library) */
	bool automatic;     /* started by crate itself (folder watch, periodic rescan) */
	bool quiet;         /* the owned copy of the mapped start-up index (reload_only
			     * too): nothing to show, no scan_done hook; finished, the
			     * index may have been replaced like after a reload */
	size_t new_errors;  /* when finished: problems not reported by the scan before */
	bool indexing;      /* the files are done; the new index is being built */
	int rc;             /* when finished: 0, or -1 with msg set (fatal error) */
	size_t nerrors;     /* per-file errors so far */
	char msg[512];      /* fatal error, or the latest per-file error */
};

/* Start scanning paths in a worker thread with its own database
 * connection. Refused while another background scan runs. */
int app_scan_start(struct app *app, const char *const *paths, size_t n, struct crate_err *err);
/* The same for a scan crate starts itself (app/app_watch.c): reported with
 * `automatic` set; its problems replace only those under its paths in
 * app->scan_errors, and new_errors counts the ones not known before (a
 * loop or an unreadable folder is reported once, not at every rescan). */
int app_scan_start_auto(struct app *app, const char *const *paths, size_t n,
			struct crate_err *err);
/* Record the folders among paths as roots of the library (to watch and
 * list); files and missing paths are skipped. */
int app_roots_record(struct app *app, const char *const *paths, size_t n, struct crate_err *err);
/* The roots of the library (owned: mlib_roots_free); 0 or -1 with *err. */
int app_roots_list(struct app *app, char ***out, size_t *n, struct crate_err *err);
/* Rebuild the index in a worker thread (the library was changed by
 * someone else); finishes like a scan (app_scan_poll, reload_only set).
 * Refused while a scan runs: that scan rebuilds the index itself. A scan
 * started meanwhile waits for the rebuild and then replaces it. */
int app_index_reload_start(struct app *app, struct crate_err *err);
/* The running job is crate's own (folder watch, periodic rescan, index
 * rebuild), not one the user asked for. */
bool app_scan_is_automatic(const struct app *app);
/* The running job is the quiet owned copy of the start-up index
 * (app_library_open): nothing for a front end to show. */
bool app_scan_is_quiet(const struct app *app);
/* A file descriptor that becomes readable when progress is available;
 * -1 when no scan runs. Poll it together with the terminal. */
int app_scan_event_fd(const struct app *app);
/* Drain the event fd and copy the latest progress into *out. Returns 1
 * when the scan has finished (the worker is joined and app->index was
 * reloaded; the event fd is closed), 0 while it runs, -1 when none runs. */
int app_scan_poll(struct app *app, struct app_scan_progress *out);
/* Tests: while held, a background worker that has built its index waits
 * before it reports, so a change made meanwhile is certain to be newer
 * than what it built (a cancel still ends the wait). */
void app_library_hold(bool hold);
/* Tests: a worker has built its index and waits at the hold. */
bool app_library_holding(void);
/* Free app->scan_errors. */
void app_scan_errors_clear(struct app *app);
/* Ask a running background scan to stop (what was committed stays). */
void app_scan_cancel(struct app *app);

/* The present tracks, in order, of the file at path (absolute) when its
 * cue sheet splits it, or, path naming a cue sheet, of its audio file
 * (scan_cue_audio_of): such a file is no item of its own. Returns their
 * count, *ids owned (NULL for none). */
size_t app_cue_tracks(struct app *app, const char *path, uint32_t **ids);

/* ---- forgetting (the files are never touched) ---- */

/* Remove items from the library and reload the index. Playlists keep the
 * ids (shown as missing); *n receives how many rows went. */
int app_forget(struct app *app, const uint32_t *ids, size_t nids, size_t *n,
	       struct crate_err *err);
/* Forget every item marked missing (files gone), except those under a
 * root that is not there (gone, or an empty folder: a disk not mounted),
 * counted in *kept. */
int app_prune_missing(struct app *app, size_t *n, size_t *kept, struct crate_err *err);
/* Ids of every row (present or missing) whose file is dir or under it;
 * out is the caller's (u32vec_free). */
int app_items_under(struct app *app, const char *dir, struct u32vec *out, struct crate_err *err);
/* Stop watching root and forget it as a root (its items stay unless
 * forgotten with app_forget). CRATE_ERR_NOTFOUND when it is no root. */
int app_root_remove(struct app *app, const char *root, struct crate_err *err);

/* What a plain rescan (`crate scan`, `:scan` with no folder) looks at, as
 * `mpc update` and cmus's :update-cache look at the whole library. */
struct app_rescan {
	char **paths;    /* the roots, then the files: n of them */
	size_t n;
	size_t nroots;   /* paths[0 .. nroots) are roots */
	size_t nfiles;   /* files of the library outside every root (given by name) */
	char **dropped;  /* roots forgotten: gone, nothing of the library under them */
	size_t ndropped;
};
/* Fill r: every root, and every file of the library outside them
 * (mlib_roots_loose_files), so that one given to `crate scan FILE` that is
 * gone is marked missing and one changed is read again. A root gone from
 * the disk with nothing of the library left under it is forgotten first
 * and named in r->dropped. Free with app_rescan_free. */
int app_rescan_paths(struct app *app, struct app_rescan *r, struct crate_err *err);
/* path, given to a scan, is not there and never was anything of the
 * library's (no root, nothing stored under it): a typo, to be said as
 * "No such file or directory", not scanned as a root that went. */
bool app_scan_path_unknown(struct app *app, const char *path);
/* Whether path, gone or not, names a recorded root (compared canonically:
 * "Album" relative to its parent names the root .../Album). */
bool app_path_is_root(struct app *app, const char *path);
void app_rescan_free(struct app_rescan *r);

/* Another process changed play statistics or ratings only: set them in
 * the index in place (mlib_index_refresh_stats) instead of loading it
 * again, and the counter the index reflects with them. *applied false
 * when that cannot be done (a reload is needed). */
int app_index_refresh_stats(struct app *app, bool *applied, struct crate_err *err);
/* Play statistics and rating, written through to SQLite and the index. */
int app_record_play(struct app *app, uint32_t id, int64_t when, struct crate_err *err);
/* Playback reached the true end of id at ms: store that as its length. */
int app_correct_duration(struct app *app, uint32_t id, int64_t ms, struct crate_err *err);
int app_record_skip(struct app *app, uint32_t id, struct crate_err *err);
int app_set_rating(struct app *app, uint32_t id, int rating, struct crate_err *err);
/* One rating for several items, one transaction (all or none). */
int app_set_ratings(struct app *app, const uint32_t *ids, size_t n, int rating,
		    struct crate_err *err);

#endif
