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

/* [hooks] timeout and [mpris] enable were taken as text: "timeout = 60s"
 * or "enable = maybe" started crate without a word, the hook killed
 * after 10 s and MPRIS left on. */
TEST(hooks_timeout_and_mpris_enable_are_checked_at_start)
{
	struct crate_err err = {0};
	struct app *app = open_with("[hooks]\ntimeout = 60s\n[mpris]\nenable = maybe\n", &err);
	CHECK(app == NULL);
	CHECK_MSG(strstr(err.msg, "line 2: hooks.timeout = 60s: must be a whole number in 1..86400") != NULL,
		  "%s", err.msg);
	CHECK_MSG(strstr(err.msg, "line 4: mpris.enable = maybe: must be yes or no") != NULL, "%s",
		  err.msg);
	if (app)
		app_close(app);
	app = open_with("[hooks]\ntimeout = 0\n", &err);
	CHECK(app == NULL);
	if (app)
		app_close(app);
	app = open_with("[hooks]\ntimeout = 600\n[mpris]\nenable = no\n", &err);
	CHECK_MSG(app != NULL, "%s", err.msg);
	if (app)
		app_close(app);
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

/* format.* and display.glyph_* are checked beyond their kind (a string):
 * a malformed format names its line and column at open, `:set` refuses it
 * and keeps the value in effect. */
TEST(formats_and_glyphs_are_checked_at_open_and_at_set)
{
	struct crate_err err = {0};
	struct app *app = open_with("[format]\ntrack = \"%title% %{?rating>=4?*}%=%duration%\"\n"
				    "[display]\nglyph_current = o\n",
				    &err);
	CHECK_MSG(app != NULL, "%s", err.msg);
	REQUIRE(app);
	CHECK_STR(app_config_value(app, "format.track"), "%title% %{?rating>=4?*}%=%duration%");
	CHECK_STR(app_config_value(app, "display.glyph_current"), "o");
	CHECK_STR(app_config_value(app, "display.glyph_playing"), ">"); /* the default */
	REQUIRE(app_config_set(app, "format.playlist", "%{pos:>3} %{albumartist|artist}", &err) == 0);
	CHECK_STR(app_config_value(app, "format.playlist"), "%{pos:>3} %{albumartist|artist}");
	CHECK(app_config_set(app, "format.playlist", "%{pos:>3", &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_INVALID);
	CHECK_STR(err.msg, "format.playlist = %{pos:>3: column 1: %{ is not closed with }");
	CHECK_STR(app_config_value(app, "format.playlist"), "%{pos:>3} %{albumartist|artist}");
	CHECK(app_config_set(app, "format.status", "50% off", &err) != 0);
	CHECK_MSG(strstr(err.msg, "column 3: '%' begins") != NULL, "%s", err.msg);
	CHECK(app_config_set(app, "display.glyph_marked", "++", &err) != 0);
	CHECK_MSG(strstr(err.msg, "one character one cell wide") != NULL, "%s", err.msg);
	CHECK(app_config_set(app, "display.glyph_marked", "\xe6\x9d\xb1", &err) != 0); /* 2 cells */
	CHECK(app_config_set(app, "display.glyph_marked", "\x1b", &err) != 0);
	REQUIRE(app_config_set(app, "display.glyph_marked", "\xe2\x9c\x93", &err) == 0); /* ✓ */
	app_close(app);

	app = open_with("[playback]\nvolume = 50\n\n[format]\nstatus = %{?rating>4?x\n"
			"track = %{title:0}\n", &err);
	CHECK(app == NULL);
	CHECK_MSG(strstr(err.msg, "2 problems") != NULL, "%s", err.msg);
	CHECK_MSG(strstr(err.msg, "line 5: format.status = %{?rating>4?x: column 1: %{ is not closed") != NULL,
		  "%s", err.msg);
	CHECK_MSG(strstr(err.msg, "line 6: format.track = %{title:0}: column 8: a width") != NULL,
		  "%s", err.msg);
}

TEST(default_formats_and_glyphs_pass_their_own_checks)
{
	size_t n;
	const struct config_option *o = app_config_options(&n);
	int seen = 0;
	for (size_t i = 0; i < n; i++) {
		char why[200];
		if (strncmp(o[i].key, "format.", 7) && strncmp(o[i].key, "display.glyph_", 14))
			continue;
		seen++;
		CHECK_MSG(app_config_value_ok(&o[i], o[i].def, why, sizeof why), "%s: %s", o[i].key, why);
	}
	CHECK_INT(seen, 7);
}
