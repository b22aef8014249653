/* Names for completion from an open application (complete.h). Only names:
 * the store's collections and playlists, the index's properties (tens),
 * presets and options, never values from the library. */
#include "cli/complete.h"

#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_config.h"
#include "app/app_library.h"
#include "app/app_read.h"
#include "app/app_view.h"
#include "coll/store.h"
#include "medialib/index.h"
#include "medialib/roots.h"
#include "play/presets.h"

static void each_free(char **names, size_t n, void (*add)(void *acc, const char *name), void *acc)
{
	for (size_t i = 0; i < n; i++) {
		add(acc, names[i]);
		free(names[i]);
	}
	free(names);
}

static void option_values(const char *key, void (*add)(void *acc, const char *name), void *acc)
{
	const struct config_option *o = app_config_option(key);
	if (!o)
		return;
	if (o->kind == CONFIG_BOOL) {
		add(acc, "yes");
		add(acc, "no");
	}
	for (const char *c = o->kind == CONFIG_CHOICE ? o->choices : ""; *c;) {
		size_t l = strcspn(c, "|");
		char *one = xstrndup(c, l);
		add(acc, one);
		free(one);
		c += l + (c[l] == '|');
	}
}

void cli_complete_app_names(void *ud, enum cli_names kind, const char *arg,
			    void (*add)(void *acc, const char *name), void *acc)
{
	struct app *app = ud;
	char **names;
	size_t n;
	switch (kind) {
	case CLI_NAMES_COLLECTION:
	case CLI_NAMES_PLAYLIST:
		n = app_coll_list(app, kind == CLI_NAMES_PLAYLIST ? COLL_NS_PLAYLISTS
								 : COLL_NS_COLLECTIONS,
				  &names);
		each_free(names, n, add, acc);
		break;
	case CLI_NAMES_FIELD: {
		const struct mlib_index *idx = app_index(app);
		for (int i = 0; idx && i < mlib_index_prop_count(idx); i++)
			add(acc, mlib_index_prop_name(idx, i));
		break;
	}
	case CLI_NAMES_PRESET:
		n = eq_preset_list(app->cfg, &names);
		each_free(names, n, add, acc);
		break;
	case CLI_NAMES_OPTION: {
		const struct config_option *o = app_config_options(&n);
		for (size_t i = 0; i < n; i++)
			add(acc, o[i].key);
		break;
	}
	case CLI_NAMES_OPTION_VALUE:
		if (arg)
			option_values(arg, add, acc);
		break;
	case CLI_NAMES_ROOT:
		if (app_roots_list(app, &names, &n, NULL) == 0) {
			for (size_t i = 0; i < n; i++)
				add(acc, names[i]);
			mlib_roots_free(names, n);
		}
		break;
	}
}
