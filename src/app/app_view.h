/* What the front ends show, read through the application: saved
 * collections and playlists, collection rules. The front ends read the
 * store only through these calls (DESIGN.md: every user action is one
 * app_* call); README "Where the code departs from DESIGN.md" lists what
 * still reads around them. (The panes branch extends this file with views,
 * groups and items.) */
#ifndef CRATE_APP_APP_VIEW_H
#define CRATE_APP_APP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "app/rules.h"
#include "base/str.h"
#include "coll/node.h"

/* ---- saved collections and playlists ---- */

/* The collection store is open (collections and playlists can be read). */
bool app_has_store(const struct app *app);
/* A saved collection's root: borrowed, valid until the store generation
 * changes. NULL when absent (or no store). */
const struct coll_node *app_coll_get(struct app *app, const char *ns, const char *name);
/* A playlist (NULL name: the active one); borrowed like app_coll_get. */
const struct coll_node *app_playlist_get(struct app *app, const char *name);
/* The active playlist's name, borrowed; NULL when none (or no store). */
const char *app_playlist_active(struct app *app);
/* Names in ns (coll_store_list: owned array and strings); 0 without a store. */
size_t app_coll_list(struct app *app, const char *ns, char ***names);
/* Save node (the caller's; a copy is stored) as fullname ("Rock 90s",
 * "Collections/x"). saved_as (may be NULL) receives "Collections/Rock 90s"
 * (owned) on success. */
int app_coll_save_node(struct app *app, const char *fullname, const struct coll_node *node,
		       char **saved_as, struct crate_err *err);

/* ---- collection rules (app/rules.h) over the app's store and settings ---- */

/* rules_state of rule i of rs (app_rules(app)). */
enum rule_state app_rule_state(struct app *app, struct rules *rs, size_t i, char *why,
			       size_t whysize);
/* rule_from_target with the app's store. */
int app_rule_from_target(struct app *app, const char *target, struct rule *out,
			 struct crate_err *err);

#endif
