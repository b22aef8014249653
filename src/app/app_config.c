#include "app/app_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_play.h"
#include "app/app_view.h"
#include "base/utf8.h"
#include "medialib/index_groups.h"
#include "medialib/item_format.h"

/* Every option read with config_get* in app/ and ui/ and its range: a
 * value outside it is an error naming its line, never silently a default
 * or an overflow (volume = 2147483647). Keys of [keys], [colors] and
 * [eq.preset.*] are checked where they are read. */
/* A glyph marks a row in its first cell: one character, one cell wide. */
static bool glyph_check(const char *value, char *why, size_t whysize)
{
	char *clean = utf8_sanitize(value, strlen(value));
	uint32_t cp;
	size_t len = strlen(clean);
	size_t n = len ? utf8_decode(clean, len, &cp) : 0;
	bool ok = n == len && len && strcmp(clean, value) == 0 && utf8_cp_width(cp) == 1;
	free(clean);
	if (!ok)
		snprintf(why, whysize, "must be one character one cell wide");
	return ok;
}

/* The default rows, as they were before they could be configured: the
 * track number (blank when none), "artist – title", and on the right the
 * rating's stars and the length (-:-- when unknown) in 7 cells. */
#define FORMAT_NR "%{?tracknr?%{tracknr:>2}.:   }"
#define FORMAT_ARTIST "%{?artist?%artist% \xe2\x80\x93 }%title%"
#define FORMAT_RIGHT "%=%{?stars?  %stars%}%{?duration?%{duration:>7}:   -:--} "

#define AT_START CONFIG_AT_START
static const struct config_option options[] = {
	{"output.device", CONFIG_STRING, 0, 0, NULL, "default", AT_START},
	{"output.file_overwrite", CONFIG_BOOL, 0, 0, NULL, "no", AT_START},
	{"output.buffer_ms", CONFIG_INT, 10, 10000, NULL, "100", AT_START},
	{"output.pace", CONFIG_BOOL, 0, 0, NULL, "no", AT_START},
	{"output.format", CONFIG_CHOICE, 0, 0, "auto|s16|s32|float", "auto", AT_START},
	{"playback.replaygain", CONFIG_CHOICE, 0, 0, "off|none|track|album", "off", 0},
	{"playback.replaygain_preamp", CONFIG_NUMBER, -15, 15, NULL, "0", 0},
	{"playback.replaygain_source", CONFIG_CHOICE, 0, 0, "tags|analysis", "tags", 0},
	{"playback.volume", CONFIG_INT, 0, 100, NULL, "100", 0},
	{"playback.volume_step", CONFIG_INT, 1, 50, NULL, "5", 0},
	{"playback.seek_step", CONFIG_INT, 1, 600, NULL, "5", 0},
	{"playback.shuffle", CONFIG_CHOICE, 0, 0, "off|tracks|albums|on|yes|no|true|false", "off", 0},
	{"playback.repeat", CONFIG_CHOICE, 0, 0, "off|all|one", "off", 0},
	{"playback.stop_after_queue", CONFIG_BOOL, 0, 0, NULL, "false", 0},
	{"playback.resume", CONFIG_CHOICE, 0, 0, "pause|play|off", "pause", AT_START},
	{"library.watch", CONFIG_BOOL, 0, 0, NULL, "true", AT_START},
	{"library.rescan_interval", CONFIG_STRING, 0, 0, NULL, "300", AT_START},
	{"library.watch_quiet_ms", CONFIG_STRING, 0, 0, NULL, "400", AT_START},
	{"hooks.on_change", CONFIG_STRING, 0, 0, NULL, "", AT_START},
	{"hooks.on_scan_done", CONFIG_STRING, 0, 0, NULL, "", AT_START},
	{"hooks.timeout", CONFIG_INT, 1, 86400, NULL, "10", AT_START},
	{"hooks.log", CONFIG_STRING, 0, 0, NULL, "", AT_START},
	{"mpris.enable", CONFIG_BOOL, 0, 0, NULL, "yes", AT_START},
	{"analysis.auto", CONFIG_STRING, 0, 0, NULL, "false", AT_START},
	{"pshuffle.upcoming", CONFIG_INT, 1, 100000, NULL, "20", AT_START},
	{"layout.sidebar", CONFIG_INT, 0, 90, NULL, "18", 0},
	{"layout.artist", CONFIG_INT, 0, 90, NULL, "25", 0},
	{"layout.album", CONFIG_INT, 0, 90, NULL, "25", 0},
	{"layout.start_view", CONFIG_CHOICE, 0, 0, "browser|playlist|collections|rules|files", "browser",
	 AT_START},
	{"browser.levels", CONFIG_STRING, 0, 0, NULL, MLIB_LEVELS_DEFAULT, 0},
	{"display.separator", CONFIG_STRING, 0, 0, NULL, "; ", AT_START},
	{"display.title", CONFIG_BOOL, 0, 0, NULL, "yes", AT_START},
	{"display.glyph_playing", CONFIG_STRING, 0, 0, NULL, ">", 0},
	{"display.glyph_current", CONFIG_STRING, 0, 0, NULL, "\xe2\x80\xa2", 0},
	{"display.glyph_marked", CONFIG_STRING, 0, 0, NULL, "+", 0},
	{"format.track", CONFIG_STRING, 0, 0, NULL, FORMAT_NR " %title%" FORMAT_RIGHT, 0},
	{"format.track_all", CONFIG_STRING, 0, 0, NULL, FORMAT_NR " " FORMAT_ARTIST FORMAT_RIGHT, 0},
	{"format.playlist", CONFIG_STRING, 0, 0, NULL, "%{pos:>4}. " FORMAT_ARTIST FORMAT_RIGHT, 0},
	{"format.status", CONFIG_STRING, 0, 0, NULL, FORMAT_ARTIST "%{?album? (%album%)}", 0},
};
#undef AT_START

const struct config_option *app_config_options(size_t *n)
{
	*n = sizeof options / sizeof options[0];
	return options;
}

const struct config_option *app_config_option(const char *key)
{
	for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
		if (strcmp(options[i].key, key) == 0)
			return &options[i];
	return NULL;
}

/* browser.levels: 1 to 3 field names (mlib_levels_parse). */
static bool levels_check(const char *value, char *why, size_t whysize)
{
	struct crate_err err = {0};
	if (mlib_levels_parse(value, &(struct mlib_levels){0}, &err) == 0)
		return true;
	snprintf(why, whysize, "%s", err.msg);
	return false;
}

/* The test beyond the option's kind, by key: a format's syntax, a glyph's
 * width, the browser's levels. NULL: none. */
static bool (*value_check(const char *key))(const char *, char *, size_t)
{
	if (strncmp(key, "format.", 7) == 0)
		return item_format_check;
	if (strncmp(key, "display.glyph_", 14) == 0)
		return glyph_check;
	if (strcmp(key, "browser.levels") == 0)
		return levels_check;
	return NULL;
}

bool app_config_value_ok(const struct config_option *o, const char *value, char *why,
			 size_t whysize)
{
	bool (*check)(const char *, char *, size_t) = value_check(o->key);
	return config_value_ok(o, value, why, whysize) && (!check || check(value, why, whysize));
}

int app_config_check(struct app *app, struct crate_err *err)
{
	if (config_check(app->cfg, options, sizeof options / sizeof options[0], err) != 0)
		return -1;
	/* Then the formats and glyphs, each problem with its line. */
	struct config_problems pr;
	config_problems_init(&pr, config_path(app->cfg));
	for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
		const char *key = options[i].key, *v = config_get(app->cfg, key, NULL);
		char why[200];
		if (v && value_check(key) && !value_check(key)(v, why, sizeof why))
			config_problem(&pr, config_line(app->cfg, key), "%s = %s: %s", key, v, why);
	}
	return config_problems_finish(&pr, err);
}

const char *app_config_value(struct app *app, const char *key)
{
	const struct config_option *o = app_config_option(key);
	return config_get(app->cfg, key, o && o->def ? o->def : "");
}

/* What plays follows the new value. */
static int apply(struct app *app, const char *key, const char *value, struct crate_err *err)
{
	if (strcmp(key, "playback.volume") == 0)
		return app_play_volume(app, atoi(value), false, err);
	if (strcmp(key, "playback.repeat") == 0) {
		app_play_set_repeat(app, (enum app_repeat)app_repeat_parse(value));
	} else if (strcmp(key, "playback.shuffle") == 0) {
		app_play_set_shuffle_mode(app, (enum app_shuffle)app_shuffle_parse(value));
	} else if (strncmp(key, "playback.replaygain", 19) == 0) {
		app_play_replaygain_changed(app);
	}
	return 0;
}

int app_config_set(struct app *app, const char *key, const char *value, struct crate_err *err)
{
	const struct config_option *o = app_config_option(key);
	char why[120];
	if (!o)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "set: no option '%s' (:set lists them)",
				     key);
	if (o->flags & CONFIG_AT_START)
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "%s is read at start: it cannot change while crate runs "
				     "(set it in %s)", key, config_path(app->cfg));
	if (!app_config_value_ok(o, value, why, sizeof why))
		return crate_err_set(err, CRATE_ERR_INVALID, "%s = %s: %s", key, value, why);
	if (strcmp(key, "browser.levels") == 0 && app_levels_parse(app, value, NULL, err) != 0)
		return crate_err_prefix(err, "%s = %s: ", key, value);
	config_set(app->cfg, key, value);
	return apply(app, key, value, err);
}
