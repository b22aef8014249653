#include "app/app.h"

#include <stdlib.h>

int app_open(struct app **out, const struct app_opts *opts, struct crate_err *err)
{
	struct app *app = xcalloc(1, sizeof *app);
	if (config_load(opts->config_path, &app->cfg, err) != 0)
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
	config_free(app->cfg);
	free(app->db_path);
	free(app);
}
