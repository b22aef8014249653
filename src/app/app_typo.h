/* The search bar's word dictionary for spelling corrections (coll/typo.h),
 * built once per index on a background thread: at a million tracks it
 * takes well over a frame, so no keystroke waits for it. A search that
 * needs it before it is ready answers without corrections; when the build
 * finishes, app_typo_event_fd becomes readable and app_typo_poll says
 * whether such a search should be evaluated again.
 *
 * Threading: everything here runs on the thread that owns app->index. The
 * build thread reads only the index's string dictionaries (found here,
 * before it starts); the index is never freed or replaced while it runs
 * (app_typo_stop comes first), and its result is used only for the index
 * it was started for. */
#ifndef CRATE_APP_APP_TYPO_H
#define CRATE_APP_APP_TYPO_H

#include <stdbool.h>

#include "app/app.h"

struct coll_typo_dict;
struct mlib_index;

/* Start building for app->index unless a build for it is under way or
 * done; from now on every new index gets its build too (app_index_replace),
 * until app_library_close. */
void app_typo_start(struct app *app);
/* Stop (cancel and wait for) the build and drop the dictionary: before
 * app->index goes. A cancelled build stops within a few thousand values. */
void app_typo_stop(struct app *app);
/* The dictionary of idx when it is app->index and its build has finished
 * (never waits). NULL with *pending set when the build is under way (the
 * search answers without corrections; app_typo_poll then says so); NULL
 * without it when no build was started for idx (the caller may build its
 * own). arg: the app. A coll_typo_provider. */
const struct coll_typo_dict *app_typo_get(void *arg, const struct mlib_index *idx, bool *pending);
/* A build thread is running (it may be reading the index's texts). */
bool app_typo_running(const struct app *app);
/* Readable once the build under way finishes; -1 when none. For poll(2). */
int app_typo_event_fd(const struct app *app);
/* After app_typo_event_fd: whether the dictionary is now ready and a
 * search answered without it since the build started (evaluate that search
 * again: its corrections may change what is shown). Says so once. */
bool app_typo_poll(struct app *app);
/* Wait for the build under way (for one-shot callers and tests); the
 * dictionary of app->index, or NULL without a build. */
const struct coll_typo_dict *app_typo_wait(struct app *app);
/* Tests: while held, a started build waits before reading anything (a
 * stop still cancels it), so "not ready yet" is certain, not a race. */
void app_typo_hold(bool hold);

#endif
