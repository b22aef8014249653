#include "app/app.h"
#include "app/app_analysis.h"
#include "app/app_library.h"
#include "app/app_changes.h"
#include "app/app_play.h"
#include "app/app_hooks.h"
#include "app/app_watch.h"
#include "app/rules.h"
#include "coll/store.h"
#include "medialib/index_groups.h"

#include <stdlib.h>

/* Every option read with config_get* in app/ and ui/ and its range: a
 * value outside it is an error naming its line, never silently a default
 * or an overflow (volume = 2147483647). Keys of [keys], [colors] and
 * [eq.preset.*] are checked where they are read. */
static const struct config_option options[] = {
	{"output.device", CONFIG_STRING, 0, 0, NULL},
	{"output.file_overwrite", CONFIG_BOOL, 0, 0, NULL},
	{"output.buffer_ms", CONFIG_INT, 10, 10000, NULL},
	{"output.pace", CONFIG_BOOL, 0, 0, NULL},
	{"output.format", CONFIG_CHOICE, 0, 0, "auto|s16|s32|float"},
	{"playback.replaygain", CONFIG_CHOICE, 0, 0, "off|none|track|album"},
	{"playback.replaygain_preamp", CONFIG_NUMBER, -15, 15, NULL},
	{"playback.volume", CONFIG_INT, 0, 100, NULL},
	{"playback.repeat", CONFIG_CHOICE, 0, 0, "off|all|one"},
	{"playback.shuffle", CONFIG_BOOL, 0, 0, NULL},
	{"pshuffle.upcoming", CONFIG_INT, 1, 100000, NULL},
	{"layout.sidebar", CONFIG_INT, 0, 90, NULL},
	{"layout.artist", CONFIG_INT, 0, 90, NULL},
	{"layout.album", CONFIG_INT, 0, 90, NULL},
	{"layout.start_view", CONFIG_CHOICE, 0, 0, "browser|playlist|collections|rules"},
};

int app_open(struct app **out, const struct app_opts *opts, struct crate_err *err)
{
	struct app *app = xcalloc(1, sizeof *app);
	if (config_load(opts->config_path, &app->cfg, err) != 0 ||
	    config_check(app->cfg, options, sizeof options / sizeof options[0], err) != 0)
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
	if (app_library_open(app, opts->readonly, opts->no_index, err) != 0)
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
