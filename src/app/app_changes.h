/* Noticing changes made by anyone else: another crate process (a CLI scan,
 * `crate coll save`, a second interface popping Party Shuffle), or this
 * process's own worker threads, which write through their own connections.
 *
 * One mechanism for every view: SQLite's PRAGMA data_version moves when
 * another connection commits, and costs no table read, so the interface
 * asks a few times a second. Only when it moved are the per-component
 * counters read: media_generation (items and tags; play statistics and
 * ratings) for the library, the collection store's reload for saved
 * collections and playlists, the rule list for rules. */
#ifndef CRATE_APP_APP_CHANGES_H
#define CRATE_APP_APP_CHANGES_H

#include "app/app.h"

enum app_change {
	APP_CHANGED_COLLECTIONS = 1u << 0, /* the store was reloaded (coll_store_generation moved) */
	APP_CHANGED_RULES = 1u << 1,       /* the rule list was replaced */
	APP_CHANGED_LIBRARY = 1u << 2,     /* an index rebuild started (ends in app_scan_poll) */
	APP_CHANGED_STATS = 1u << 3,       /* play statistics or ratings set in the index in place */
};

/* A descriptor that becomes readable when the database files change
 * (inotify on their folder: another program's commit writes the -wal
 * file), so the interface can look at once instead of polling often; -1
 * when inotify is not available (then poll app_changes_check every 250 ms
 * or so). Drain it with app_changes_drain, which says whether the event
 * concerned the database. */
int app_changes_fd(struct app *app);
bool app_changes_drain(struct app *app);
/* Close it (app_close does). */
void app_changes_close(struct app *app);

/* Look for changes; returns the enum app_change bits of what was reloaded
 * or started, or -1 with *err set (the next call tries again). A library
 * change seen while a scan runs is kept pending: that scan's end rebuilds
 * the index if the counters moved, and the next call checks again. */
int app_changes_check(struct app *app, struct crate_err *err);

#endif
