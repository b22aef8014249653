/* Read access for the command line (app_read.h). */
#include "app/app_read.h"

#include <stdio.h>

#include "coll/store.h"

const struct mlib_index *app_index(const struct app *app)
{
	return app->index;
}

const struct coll_node *app_coll_resolve(struct app *app, const char *ns, const char *name)
{
	return app->store ? coll_store_resolve(app->store, ns, name) : NULL;
}

bool app_coll_unreadable_at(struct app *app, size_t i, const char **why)
{
	return app->store && i < coll_store_unreadable(app->store, i, NULL, NULL, why);
}

int app_playlist_set_history(struct app *app, const char *name, long history,
			     struct crate_err *err)
{
	char h[32];
	snprintf(h, sizeof h, "%ld", history);
	return coll_store_playlist_set_attr(app->store, name, "history", h, err);
}
