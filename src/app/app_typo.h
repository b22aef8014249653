/* The search bar's word dictionary for spelling corrections (coll/typo.h),
 * built once per index on a background thread: at a million tracks it
 * takes about a second, which the first keystroke needing a correction
 * used to wait for. A search that needs it before it is ready waits for
 * the build under way instead of starting another. */
#ifndef CRATE_APP_APP_TYPO_H
#define CRATE_APP_APP_TYPO_H

#include "app/app.h"

struct coll_typo_dict;

/* Start building for app->index unless a build for it is under way or
 * done. */
void app_typo_start(struct app *app);
/* Stop (cancel and wait for) the build and drop the dictionary: before
 * app->index goes. */
void app_typo_stop(struct app *app);
/* The dictionary of idx when it is app->index and a build was started
 * (waiting for it to finish), else NULL. arg: the app. A
 * coll_typo_provider. */
const struct coll_typo_dict *app_typo_get(void *arg, const struct mlib_index *idx);

#endif
