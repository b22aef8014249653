/* What the command line reads from the application besides app_view.h:
 * the index for printing items, a name resolved as queries resolve it
 * ("All Media" included), every unreadable saved collection. Through these
 * and app_view.h, src/cli/ never reads app->store or app->index itself
 * (DESIGN.md: every user action is one app_* call). */
#ifndef CRATE_APP_APP_READ_H
#define CRATE_APP_APP_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "base/err.h"

struct coll_node;

/* The library index, for printing items (medialib/index.h readers).
 * Borrowed: valid until the next scan or reload replaces it. */
const struct mlib_index *app_index(const struct app *app);
/* Saved collection ns/name as a query's reference resolves it
 * (Collections/All Media is the whole library); NULL when absent.
 * Borrowed from the store: valid until it changes. */
const struct coll_node *app_coll_resolve(struct app *app, const char *ns, const char *name);
/* Saved collection i of those that could not be read back
 * (coll_store_unreadable): true with *why (borrowed, sanitised) while i is
 * below their count. */
bool app_coll_unreadable_at(struct app *app, size_t i, const char **why);
/* Playlists/name's "history" attribute: how many played entries Party
 * Shuffle keeps. */
int app_playlist_set_history(struct app *app, const char *name, long history,
			     struct crate_err *err);

#endif
