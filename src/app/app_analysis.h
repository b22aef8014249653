/* Listening to the library (issue 20): running the analysis of files
 * (synchronously for `crate analyze`, in a low-priority worker thread for
 * the interface, pausable and resumable), and what the results feed: the
 * ReplayGain of files without ReplayGain tags. */
#ifndef CRATE_APP_APP_ANALYSIS_H
#define CRATE_APP_APP_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "play/gain.h"

struct app_analysis_progress {
	size_t total;        /* files in this run */
	size_t done;         /* finished (analysed or failed) */
	size_t failed;
	size_t failed_before; /* finished with nothing to do: the files asked for whose
			       * analysis failed earlier (tried again when they change) */
	double audio_s;      /* seconds of audio analysed */
	double elapsed_s;
	bool paused;
	bool finished;       /* the run ended (and, in the background, the index was reloaded) */
	int rc;              /* when finished: 0, or -1 with msg */
	char current[256];   /* file being analysed (raw path bytes; sanitise to show) */
	char msg[512];       /* fatal error, or the latest per-file failure */
};

/* Called after each file (and once at the end with finished set). */
typedef void (*app_analysis_fn)(void *ud, const struct app_analysis_progress *p);

/* Analyse the files matching query (NULL: the whole library) that have no
 * current result (all: every matching file again), on this thread; then
 * compute album loudness and reload the index. Per-file failures are
 * recorded ("not analysed: reason") and counted, not fatal. */
int app_analyze(struct app *app, const char *query, bool all, app_analysis_fn cb, void *ud,
		struct app_analysis_progress *out, struct crate_err *err);

/* Results exported by `crate info --json` (json[0..len)), stored for the
 * library's files of the same url, then album loudness and the index.
 * *imported and *skipped count the items. */
int app_analysis_import(struct app *app, const char *json, size_t len, size_t *imported,
			size_t *skipped, struct crate_err *err);

/* Album loudness again for the albums an analysed track left or joined
 * (mlib_analysis_update_due_albums), after scans and forgets on db (the
 * app's connection or a worker's). A failure leaves them due for the
 * next call; it fails nothing else. */
struct mlib_db;
void app_analysis_albums_due(struct mlib_db *db);

/* ---- background (interface) ---- */

/* Start analysing every file without a result in a worker thread (its own
 * database connection, lowest CPU priority). Refused while one runs. */
int app_analysis_start(struct app *app, struct crate_err *err);
/* Start it when `[analysis] auto` is on (default off) and files wait;
 * errors only cost the background run: returns whether one runs. */
bool app_analysis_auto(struct app *app);
void app_analysis_pause(struct app *app, bool paused);
bool app_analysis_running(const struct app *app);
/* Readable when progress is available; -1 when nothing runs. */
int app_analysis_event_fd(const struct app *app);
/* Latest progress. 1 when the run has finished (thread joined; the index
 * catches up through app_changes_check), 0 while it runs, -1 none. */
int app_analysis_poll(struct app *app, struct app_analysis_progress *out);
/* For app_changes_check: true while a running analysis asks to keep the
 * current index (its per-file commits are folded into one rebuild a
 * minute, and one when it ends). */
bool app_analysis_defers_reload(struct app *app);
/* Stop it (what was stored stays; the next run resumes). */
void app_analysis_stop(struct app *app);

/* ---- what the results feed ---- */

/* The similarity space of the current index (coll_space_fn for
 * coll_eval_ctx.space, ud = app): built on first use, rebuilt when the
 * index or the analyses changed. Borrowed; NULL with *err on failure. */
const struct mlib_space *app_space(void *app, struct crate_err *err);
void app_space_drop(struct app *app);

/* ReplayGain for id: tags first; where a value is absent (or when
 * `playback.replaygain_source = analysis`), the analysed loudness against
 * the ReplayGain 2.0 reference of -18 LUFS and the analysed true peak (a
 * peak also where a gain tag comes without one). */
struct play_rg app_analysis_rg(struct app *app, uint32_t id);

#endif
