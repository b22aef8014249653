/* The folder watch of a running interface: the library's roots (every
 * folder scanned with `crate scan` or `:scan`) are watched with inotify
 * (`library.watch`, default on). When changed folders have been quiet for
 * a moment they are scanned in the background (app_scan_start_auto): new,
 * changed, deleted, moved files update the library, and the views follow
 * through app_changes. Where watching falls short (the inotify watch
 * limit, a network file system, a root that is gone, watch = false) the
 * roots are rescanned every `library.rescan_interval` seconds (default
 * 300; 0: never). */
#ifndef CRATE_APP_APP_WATCH_H
#define CRATE_APP_APP_WATCH_H

#include <stddef.h>

#include "app/app.h"

/* Start watching the recorded roots. msg receives what the user should
 * know once (the watch limit, with the sysctl to raise it), "" if
 * nothing. Never fails: without inotify the periodic rescan remains. */
void app_watch_start(struct app *app, char *msg, size_t msgsize);
void app_watch_stop(struct app *app);
/* Poll this fd (-1: none) and call app_watch_tick when it is readable or
 * when app_watch_timeout (ms, -1: never) has passed. */
int app_watch_fd(const struct app *app);
int app_watch_timeout(const struct app *app);
/* Read events; start the due scan unless another one runs. msg as for
 * app_watch_start (the watch limit reached by a new folder). */
void app_watch_tick(struct app *app, char *msg, size_t msgsize);
/* Crate's own scan of paths ended (ok false: it failed, e.g. on a locked
 * database): a failed one is tried again later, 2 s after the first
 * failure, doubling up to a minute, so no change is lost. */
void app_watch_scanned(struct app *app, const char *const *paths, size_t n, bool ok);
/* A folder was just recorded as a root (app_roots_record): watch it. */
void app_watch_add(struct app *app, const char *path);
/* Stop watching a root that was removed. */
void app_watch_remove(struct app *app, const char *root);
/* Another program may have recorded roots (`crate scan DIR`): watch the
 * new ones (app_changes_check calls this when the database changed). */
void app_watch_sync_roots(struct app *app);

#endif
