/* An app for unit tests of src/app: a real database and collection store
 * in the test's private directory, no index yet (the test brings one).
 * Header-only; include after harness.h. */
#ifndef CRATE_TEST_APP_UTIL_H
#define CRATE_TEST_APP_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "app/app.h"
#include "app/app_analysis.h"
#include "app/app_typo.h"
#include "app/rules.h"
#include "coll/store.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_groups.h"

static inline struct app *test_app_open(void)
{
	struct app *app = xcalloc(1, sizeof *app);
	struct crate_err err = {0};
	char *path = xasprintf("%s/lib.db", harness_tmpdir());
	int rc = mlib_db_open(path, 0, &app->db, &err);
	free(path);
	CHECK_MSG(rc == 0, "%s", err.msg);
	REQUIRE(rc == 0);
	rc = coll_store_open(app->db, &app->store, &err);
	CHECK_MSG(rc == 0, "%s", err.msg);
	REQUIRE(rc == 0);
	return app;
}

/* The front end's app_open on the database at db (an empty configuration
 * file beside it); resident: as the interface opens it. app_close it. */
static inline struct app *test_app_open_db(const char *db, bool resident)
{
	char *cfg = xasprintf("%s/config", harness_tmpdir());
	FILE *f = fopen(cfg, "w");
	REQUIRE(f);
	fclose(f);
	struct app_opts o = {.db_path = db, .config_path = cfg, .resident = resident};
	struct app *app = NULL;
	struct crate_err err = {0};
	int rc = app_open(&app, &o, &err);
	CHECK_MSG(rc == 0, "%s", err.msg);
	REQUIRE(rc == 0);
	free(cfg);
	return app;
}

/* Item id's integer property prop in app's index; -1 when absent. */
static inline int64_t test_app_int_of(struct app *app, uint32_t id, const char *prop)
{
	int p = mlib_index_prop(app->index, prop);
	int64_t v = -1;
	if (p < 0 || !mlib_index_int_value(app->index, p, id, &v))
		return -1;
	return v;
}

static inline void test_app_close(struct app *app)
{
	app_typo_stop(app); /* its thread reads the index */
	app_space_drop(app); /* a like: search's analysis space */
	rules_free(app->rules);
	coll_store_free(app->store);
	mlib_groups_free(app->groups);
	mlib_index_free(app->index);
	mlib_db_close(app->db);
	free(app);
}

#endif
