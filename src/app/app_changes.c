#include "app/app_changes.h"

#include "app/app_library.h"
#include "app/app_watch.h"
#include "app/rules.h"
#include "coll/store.h"
#include "medialib/db.h"
#include "medialib/media.h"

int app_changes_check(struct app *app, struct crate_err *err)
{
	if (!app->db)
		return 0;
	int64_t v;
	if (mlib_db_data_version(app->db, &v, err) != 0)
		return -1;
	if (v == app->data_version && !app->changes_pending)
		return 0;
	app->data_version = v;
	app->changes_pending = false;
	int what = 0;
	bool changed = false;
	if (app->store) {
		if (coll_store_refresh(app->store, &changed, err) != 0)
			return -1;
		if (changed)
			what |= APP_CHANGED_COLLECTIONS;
	}
	if (app->rules) {
		if (rules_reload(app->rules, &changed, err) != 0)
			return -1;
		if (changed)
			what |= APP_CHANGED_RULES;
	}
	app_watch_sync_roots(app);
	uint64_t gen, stats;
	if (mlib_media_counters(app->db, &gen, &stats, err) != 0)
		return -1;
	if (gen == app->index_gen && stats == app->index_stats)
		return what;
	if (app->scan) {
		/* A scan or rebuild runs: look again when it is over. */
		app->changes_pending = true;
		return what;
	}
	if (app_index_reload_start(app, err) != 0) {
		app->changes_pending = true;
		return -1;
	}
	return what | APP_CHANGED_LIBRARY;
}
