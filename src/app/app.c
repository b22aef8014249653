#include "app/app.h"
#include "app/app_analysis.h"
#include "app/app_library.h"
#include "app/app_changes.h"
#include "app/app_config.h"
#include "app/app_play.h"
#include "app/app_hooks.h"
#include "app/app_watch.h"
#include "app/rules.h"
#include "coll/store.h"
#include "medialib/index_groups.h"

#include <stdlib.h>

int app_open(struct app **out, const struct app_opts *opts, struct crate_err *err)
{
	struct app *app = xcalloc(1, sizeof *app);
	if (config_load(opts->config_path, &app->cfg, err) != 0 ||
	    app_config_check(app, err) != 0)
		goto fail;
	if (opts->db_path) {
		app->db_path = xstrdup(opts->db_path);
	} else {
		char *dir = config_data_dir(err);
		if (!dir)
			goto fail;
		app->db_path = xasprintf("%s/library.db", dir);
		free(dir);
	}
	/* Database, index and store are opened here as their modules land. */
	if (app_library_open(app, opts, err) != 0)
		goto fail;
	if (coll_store_open(app->db, &app->store, err) != 0)
		goto fail;
	app_hooks_open(app);
	*out = app;
	return 0;
fail:
	app_close(app);
	return -1;
}

void app_close(struct app *app)
{
	if (!app)
		return;
	app_play_close(app); /* the engine first: nothing plays while the rest closes */
	app_hooks_close(app);
	coll_store_free(app->store); /* before the database it borrows */
	app->store = NULL;
	rules_free(app->rules); /* before the database it borrows */
	app_watch_stop(app);
	app_changes_close(app);
	app_analysis_stop(app); /* its thread reads the library's files */
	app_space_drop(app);
	mlib_groups_free(app->groups); /* texts borrowed from the index */
	app->groups = NULL;
	app_library_close(app);
	config_free(app->cfg);
	free(app->db_path);
	free(app);
}
