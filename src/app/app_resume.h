/* Exact resume: the player's state (context, entry, offset, volume, repeat,
 * shuffle) and the interface's (view, browsed collection, search) in a
 * small text file beside the database (<db>.state). It is replaced
 * atomically (a temporary file renamed over it), so a crash leaves the
 * last complete state; the interface writes it every few seconds. */
#ifndef CRATE_APP_APP_RESUME_H
#define CRATE_APP_APP_RESUME_H

#include "base/err.h"

struct app;

/* The interface's part. Strings owned (app_resume_ui_free); NULL: none. */
struct app_resume_ui {
	int view;                 /* the front end's own numbering; -1: none saved */
	char *browse_ns, *browse_name; /* the browsed collection (NULL ns: All Media) */
	char *search;             /* the browser's search text */
};
void app_resume_ui_free(struct app_resume_ui *ui);

/* Write the state file. last (may be NULL) holds the text written last
 * time (owned by the caller, updated here): nothing is written when the
 * state is the same, so an idle interface does not touch the disk. */
int app_resume_save(struct app *app, const struct app_resume_ui *ui, char **last,
		    struct crate_err *err);
/* Read the state file: restore the player (config playback.resume: pause,
 * the default, resumes paused at the offset; play keeps playing; off
 * restores nothing) and fill *ui. No file: 0 with ui->view -1. A file that
 * cannot be used is an error that names it; nothing is restored then. */
int app_resume_load(struct app *app, struct app_resume_ui *ui, struct crate_err *err);

#endif
