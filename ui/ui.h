/* The curses front end. */
#ifndef CRATE_UI_UI_H
#define CRATE_UI_UI_H

#include "base/err.h"

struct app;

/* Run the interface until the user quits. Returns 0, or -1 with *err set
 * (e.g. not a terminal). */
int ui_run(struct app *app, struct crate_err *err);

#endif
