/* The [hooks] section: the user's program run on player events (track
 * change, pause, resume, stop) and at the end of a scan, as a listener of
 * app_play's notices (see app/hooks.h for how it runs). */
#ifndef CRATE_APP_APP_HOOKS_H
#define CRATE_APP_APP_HOOKS_H

#include <stdbool.h>
#include <stddef.h>

struct app;
struct mlib_scan_progress;

/* Read [hooks] and start listening when hooks.on_change or
 * hooks.on_scan_done is set. Nothing to fail: a program that cannot run
 * is reported when an event comes. */
void app_hooks_open(struct app *app);
void app_hooks_close(struct app *app);
/* A scan finished (totals, how many files failed). */
void app_hooks_scan_done(struct app *app, const struct mlib_scan_progress *t, size_t nerrors);
/* A hook failure not shown yet (once per kind), for the front end. */
bool app_hooks_report(struct app *app, char *buf, size_t size);

#endif
