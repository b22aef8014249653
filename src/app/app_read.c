/* Read access for the front ends (app_read.h). */
#include "app/app_read.h"

#include <stdio.h>

#include "app/rules.h"
#include "coll/store.h"

const struct mlib_index *app_index(const struct app *app)
{
	return app->index;
}

bool app_coll_unreadable(struct app *app, size_t i, const char **why)
{
	return i < coll_store_unreadable(app->store, i, NULL, NULL, why);
}

const struct coll_node *app_coll_get(struct app *app, const char *ns, const char *name)
{
	return coll_store_resolve(app->store, ns, name);
}

size_t app_coll_list(struct app *app, const char *ns, char ***names)
{
	return coll_store_list(app->store, ns, names);
}

int app_coll_save_node(struct app *app, const char *ns, const char *name, struct coll_node *node,
		       struct crate_err *err)
{
	return coll_store_save(app->store, ns, name, node, err);
}

int app_playlist_set_history(struct app *app, const char *name, long history,
			     struct crate_err *err)
{
	char h[32];
	snprintf(h, sizeof h, "%ld", history);
	return coll_store_playlist_set_attr(app->store, name, "history", h, err);
}

int app_rule_from_target(struct app *app, const char *target, struct rule *out,
			 struct crate_err *err)
{
	if (!app->store)
		return crate_err_set(err, CRATE_ERR_INVALID, "the collection store is not available");
	return rule_from_target(app->store, target, out, err);
}

int app_rule_state(struct app *app, size_t i, char *why, size_t whysize)
{
	struct crate_err err = {0};
	struct rules *rs = app_rules(app, &err);
	if (!rs) {
		snprintf(why, whysize, "%s", err.msg);
		return RULE_INACTIVE;
	}
	return rules_state(rs, i, app->store, app->cfg, why, whysize);
}
