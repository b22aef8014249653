/* What the front ends read from the application without changing it: the
 * index for showing items, saved collections and playlists, the rules'
 * states. Through these the CLI (src/cli/) never reads app->store or
 * app->index itself (DESIGN.md: every user action is one app_* call). */
#ifndef CRATE_APP_APP_READ_H
#define CRATE_APP_APP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "base/err.h"

struct coll_node;
struct rule;

/* The library index, for showing items (medialib/index.h readers).
 * Borrowed: valid until the next scan or reload replaces it. */
const struct mlib_index *app_index(const struct app *app);

/* Saved collection i that could not be read back (coll_store_unreadable):
 * true with *why (borrowed, sanitised) while i is below their count. */
bool app_coll_unreadable(struct app *app, size_t i, const char **why);
/* The saved collection ns/name, or NULL. Borrowed from the store: valid
 * until it changes. */
const struct coll_node *app_coll_get(struct app *app, const char *ns, const char *name);
/* Names in a namespace (coll_store_list: the caller frees each name, then
 * the array). */
size_t app_coll_list(struct app *app, const char *ns, char ***names);
/* Save node (a collection read from JSON) as ns/name, replacing. */
int app_coll_save_node(struct app *app, const char *ns, const char *name, struct coll_node *node,
		       struct crate_err *err);
/* Playlists/name's "history" attribute (how many played entries Party
 * Shuffle keeps). */
int app_playlist_set_history(struct app *app, const char *name, long history,
			     struct crate_err *err);

/* rule_from_target and rules_state (app/rules.h) on the app's store and
 * configuration. */
int app_rule_from_target(struct app *app, const char *target, struct rule *out,
			 struct crate_err *err);
int app_rule_state(struct app *app, size_t i, char *why, size_t whysize);

#endif
