/* app/app_config.c: the option table checks the file at open and `:set`
 * changes options while crate runs, with the same names and ranges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_config.h"
#include "app/app_play.h"
#include "harness.h"

static struct app *open_with(const char *config_text, struct crate_err *err)
{
	const char *dir = harness_tmpdir();
	char *db = xasprintf("%s/lib.db", dir), *cfg = xasprintf("%s/config", dir);
	FILE *f = fopen(cfg, "w");
	REQUIRE(f);
	fputs(config_text, f);
	fclose(f);
	struct app_opts o = {.db_path = db, .config_path = cfg};
	struct app *app = NULL;
	if (app_open(&app, &o, err) != 0)
		app = NULL;
	free(db);
	free(cfg);
	return app;
}

TEST(set_checks_like_the_file_and_applies_live)
{
	struct crate_err err = {0};
	struct app *app = open_with("[playback]\nvolume = 80\n", &err);
	REQUIRE(app);
	CHECK_STR(app_config_value(app, "playback.volume"), "80");
	CHECK_STR(app_config_value(app, "playback.volume_step"), "5"); /* the default */
	REQUIRE(app_config_set(app, "playback.volume", "40", &err) == 0);
	struct app_play_status ps;
	app_play_status(app, &ps);
	CHECK_INT(ps.volume, 40);
	CHECK_STR(app_config_value(app, "playback.volume"), "40");
	CHECK(app_config_set(app, "playback.volume", "101", &err) != 0);
	CHECK_STR(err.msg, "playback.volume = 101: must be a whole number in 0..100");
	CHECK(app_config_set(app, "playback.repeat", "sometimes", &err) != 0);
	CHECK_MSG(strstr(err.msg, "must be one of off|all|one") != NULL, "%s", err.msg);
	REQUIRE(app_config_set(app, "playback.repeat", "one", &err) == 0);
	REQUIRE(app_config_set(app, "playback.shuffle", "albums", &err) == 0);
	app_play_status(app, &ps);
	CHECK_INT(ps.repeat, APP_REPEAT_ONE);
	CHECK_INT(ps.shuffle_mode, APP_SHUFFLE_ALBUMS);
	CHECK(app_config_set(app, "output.device", "hw:1", &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_REFUSED);
	CHECK_MSG(strstr(err.msg, "read at start") != NULL, "%s", err.msg);
	CHECK_STR(app_config_value(app, "output.device"), "default"); /* untouched */
	CHECK(app_config_set(app, "no.such", "1", &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_NOTFOUND);
	REQUIRE(app_config_set(app, "playback.replaygain_preamp", "-3.5", &err) == 0);
	CHECK(app_config_set(app, "playback.replaygain_preamp", "16", &err) != 0);
	app_close(app);
}

/* config.example documents shuffle = off|tracks|albums, but the table said
 * yes/no, so `shuffle = albums` stopped crate at start. */
TEST(shuffle_modes_in_the_file_are_accepted)
{
	struct crate_err err = {0};
	struct app *app = open_with("[playback]\nshuffle = albums\n", &err);
	CHECK_MSG(app != NULL, "%s", err.msg);
	if (app) {
		struct app_play_status ps;
		app_play_status(app, &ps);
		CHECK_INT(ps.shuffle_mode, APP_SHUFFLE_ALBUMS);
		app_close(app);
	}
	app = open_with("[playback]\nshuffle = sideways\n", &err);
	CHECK(app == NULL);
	CHECK_MSG(strstr(err.msg, "playback.shuffle = sideways") != NULL, "%s", err.msg);
}

TEST(every_option_has_a_default_and_a_known_kind)
{
	size_t n;
	const struct config_option *o = app_config_options(&n);
	CHECK(n > 20);
	for (size_t i = 0; i < n; i++) {
		CHECK_MSG(o[i].def != NULL, "%s has no default", o[i].key);
		char why[120];
		CHECK_MSG(!o[i].def || config_value_ok(&o[i], o[i].def, why, sizeof why),
			  "%s: default '%s' %s", o[i].key, o[i].def, why);
		CHECK(app_config_option(o[i].key) == &o[i]);
	}
}
