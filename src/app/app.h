/* The application: owns one library (database + in-memory index), one
 * collection store and one playback engine. Every user action of the UI,
 * the CLI and the control socket is one app_* call. Only the main thread
 * calls into app. */
#ifndef CRATE_APP_APP_H
#define CRATE_APP_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "base/err.h"

struct mlib_db;
struct mlib_index;
struct coll_store;
struct engine;
struct app_scan;
struct app_analysis;
struct mlib_space;
struct app_play;
struct app_watch;
struct rules;
struct mlib_scan_error;
struct app_hooks;
struct mlib_groups;
struct app_typo;
struct app_snapwrite;

struct app_opts {
	const char *db_path;     /* NULL: $XDG_DATA_HOME/crate/library.db */
	const char *config_path; /* NULL: $XDG_CONFIG_HOME/crate/config */
	bool readonly;           /* open the database read-only (inspection commands) */
	bool no_index;           /* start with an empty index: `crate scan` never reads it */
	bool map_index;          /* use the index snapshot mapped in place (MLIB_LOAD_MAP):
				  * one-shot reading commands */
	bool resident;           /* a front end that keeps running and polls app_scan (the
				  * interface): start on the snapshot mapped in place, ready
				  * in milliseconds, and own a copy built on a worker thread
				  * (app_library_open) */
};

struct app {
	struct config *cfg;
	char *db_path;               /* owned, resolved path */
	struct mlib_db *db;
	struct mlib_index *index;    /* rebuilt from db; replaced after scans */
	struct coll_store *store;    /* saved collections and playlists */
	struct engine *engine;       /* NULL until playback is first used */
	struct app_play *play;       /* player state (app/app_play.h); NULL until first used */
	struct app_scan *scan;       /* background scan (app_library.c); NULL when idle */
	struct app_watch *watch;     /* folder watch (app_watch.c); NULL when not watching */
	struct app_analysis *analysis; /* background analysis (app_analysis.c); NULL when idle */
	struct mlib_space *space;    /* similarity space for like: (app_analysis.c); NULL until used */
	unsigned space_generation;   /* the index_serial it was built for */
	uint32_t space_count;                 /* ... and that index's size */
	struct rules *rules;         /* collection rules (app/rules.h); NULL until first used */
	/* Noticing changes made by others (app/app_changes.h): the library
	 * counters app->index reflects, and the last data_version seen. */
	uint64_t index_gen, index_stats;
	unsigned index_serial;       /* counts replacements of app->index (a new index may
				      * sit at the old one's address): app_index_generation */
	struct mlib_groups *groups;  /* the browser groups of index (app_library_groups); owned */
	unsigned groups_generation;  /* the index_serial they were built at */
	int64_t data_version;
	bool changes_pending;        /* a change seen but not acted on yet (a scan ran) */
	int changes_fd;              /* inotify on the database's folder (app_changes_fd); 0 unset */
	/* Every file and folder the last background scan could not read
	 * (owned; replaced when the next one finishes). */
	struct mlib_scan_error *scan_errors;
	size_t nscan_errors;
	struct app_hooks *hooks;     /* [hooks] (app/app_hooks.h); NULL when none configured */
	struct app_typo *typo;       /* the search bar's correction words (app_typo.h); NULL until used */
	bool typo_wanted;            /* a new index gets its correction words built (app_typo_start) */
	struct app_snapwrite *snapwrite; /* the index's snapshot being written on a thread
					  * (app_library.c); NULL when none */
};

/* Open everything; on failure *err says what and nothing is left open. */
int app_open(struct app **out, const struct app_opts *opts, struct crate_err *err);
void app_close(struct app *app);

#endif
