/* Reading through the application (app_view.h). */
#include "app/app_view.h"

#include <stdlib.h>

#include "coll/store.h"

/* ---- saved collections and playlists ---- */

bool app_has_store(const struct app *app)
{
	return app->store != NULL;
}

const struct coll_node *app_coll_get(struct app *app, const char *ns, const char *name)
{
	return app->store && ns && name ? coll_store_get(app->store, ns, name) : NULL;
}

const char *app_playlist_active(struct app *app)
{
	return app->store ? coll_store_active_playlist(app->store) : NULL;
}

const struct coll_node *app_playlist_get(struct app *app, const char *name)
{
	return app_coll_get(app, COLL_NS_PLAYLISTS, name ? name : app_playlist_active(app));
}

size_t app_coll_list(struct app *app, const char *ns, char ***names)
{
	*names = NULL;
	return app->store ? coll_store_list(app->store, ns, names) : 0;
}

static int no_store(struct crate_err *err)
{
	return crate_err_set(err, CRATE_ERR_INVALID, "the collection store is not open");
}

int app_coll_save_node(struct app *app, const char *fullname, const struct coll_node *node,
		       char **saved_as, struct crate_err *err)
{
	if (!app->store)
		return no_store(err);
	char *ns = NULL, *nm = NULL;
	if (coll_name_split(fullname, &ns, &nm, err) != 0)
		return -1;
	struct coll_node *copy = coll_node_copy(node);
	int rc = coll_store_save(app->store, ns, nm, copy, err);
	if (rc == 0 && saved_as)
		*saved_as = xasprintf("%s/%s", ns, nm);
	coll_node_unref(copy);
	free(ns);
	free(nm);
	return rc;
}

/* ---- collection rules ---- */

enum rule_state app_rule_state(struct app *app, struct rules *rs, size_t i, char *why,
			       size_t whysize)
{
	return rules_state(rs, i, app->store, app->cfg, why, whysize);
}

int app_rule_from_target(struct app *app, const char *target, struct rule *out,
			 struct crate_err *err)
{
	return rule_from_target(app->store, target, out, err);
}
