/* [hooks]: which events run the user's program, and what it is told.
 *
 *   on_change = PROGRAM     track change, pause, resume, stop
 *   on_scan_done = PROGRAM  the end of every scan
 *   timeout = 10            seconds before a run is killed
 *   log = PATH              output and failures (default: hooks.log beside
 *                           the database)
 *
 * The program gets `key value` pairs as arguments (like cmus's
 * status_display_program) and the same as CRATE_KEY variables. */
#include "app/app_hooks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_play.h"
#include "app/hooks.h"
#include "base/str.h"
#include "medialib/index.h"
#include "medialib/scan.h"

struct app_hooks {
	struct hooks *change, *scan_done;
	const char *sep; /* between a tag's values; borrowed from the config */
};

/* Bounded list of key/value pairs; texts live in one arena. */
struct kv {
	const char *p[64];
	size_t n; /* strings (2 per pair) */
	char arena[16384];
	size_t used;
};

static void kv_add(struct kv *kv, const char *key, const char *value)
{
	size_t len = strlen(value) + 1;
	if (kv->n + 2 > sizeof kv->p / sizeof kv->p[0] || kv->used + len > sizeof kv->arena)
		return;
	char *v = kv->arena + kv->used;
	memcpy(v, value, len);
	kv->used += len;
	kv->p[kv->n++] = key;
	kv->p[kv->n++] = v;
}

static void kv_add_int(struct kv *kv, const char *key, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRId64, v);
	kv_add(kv, key, buf);
}

static const char *const track_props[] = {
	"artist", "albumartist", "album", "title", "tracknr", "discnr", "date", "genre",
	"composer", "rating", "timesplayed", "musicbrainz_trackid",
};

static bool has_title(struct app *app, uint32_t id)
{
	char buf[16];
	return id && app->index && mlib_index_get_text(app->index, id, "title", buf, sizeof buf);
}

/* The player's state as the event leaves it: a track that starts
 * paused (next while paused, a restart's resume) is "paused". */
static const char *hook_status(enum app_play_notice_type type, enum engine_state state)
{
	if (type == APP_PLAY_STOPPED)
		return "stopped";
	if (type == APP_PLAY_PAUSED)
		return "paused";
	if (type == APP_PLAY_RESUMED)
		return "playing";
	return state == ENGINE_PAUSED ? "paused" : "playing";
}

static void on_notice(void *ud, const struct app_play_notice *n)
{
	struct app *app = ud;
	const char *event = n->type == APP_PLAY_STARTED   ? "track"
			    : n->type == APP_PLAY_PAUSED  ? "pause"
			    : n->type == APP_PLAY_RESUMED ? "resume"
			    : n->type == APP_PLAY_STOPPED ? "stop"
			    : n->type == APP_PLAY_TITLE   ? "title"
							  : NULL;
	if (!event)
		return;
	struct app_play_status st;
	app_play_status(app, &st);
	struct kv kv = {0};
	kv_add(&kv, "event", event);
	kv_add(&kv, "status", hook_status(n->type, st.state));
	if (n->type != APP_PLAY_STOPPED) {
		if (n->path && n->path[0])
			kv_add(&kv, "file", n->path);
		if (n->id)
			kv_add_int(&kv, "id", n->id);
		if (st.title[0]) /* a stream: its ICY title is the title */
			kv_add(&kv, "title", st.title);
		for (size_t i = 0; n->id && app->index && i < sizeof track_props / sizeof *track_props;
		     i++) {
			char buf[2048];
			const char *v = mlib_index_get_joined(app->index, n->id, track_props[i],
							      app->hooks->sep, buf, sizeof buf);
			if (v && !(st.title[0] && strcmp(track_props[i], "title") == 0))
				kv_add(&kv, track_props[i], v);
		}
		/* A stream with no title is its station (icy-name), as it is
		 * named everywhere else. */
		if (!st.title[0] && st.station[0] && !has_title(app, n->id))
			kv_add(&kv, "title", st.station);
		if (st.dur_ms >= 0)
			kv_add_int(&kv, "duration", (st.dur_ms + 500) / 1000);
		kv_add_int(&kv, "position", st.pos_ms / 1000);
	}
	hooks_run(app->hooks->change, kv.p, kv.n / 2);
}

/* "~/x" -> "$HOME/x"; owned. */
static char *expand_home(const char *path)
{
	const char *home = getenv("HOME");
	if (path[0] == '~' && path[1] == '/' && home && home[0])
		return xasprintf("%s%s", home, path + 1);
	return xstrdup(path);
}

static struct hooks *runner(struct app *app, const char *program_cfg, const char *log)
{
	if (!program_cfg || !program_cfg[0])
		return NULL;
	char *program = expand_home(program_cfg);
	long secs = config_get_int(app->cfg, "hooks.timeout", 10);
	struct hooks_opts o = {
		.program = program,
		.log_path = log,
		.timeout_ms = (int)(secs >= 1 && secs <= 86400 ? secs : 10) * 1000, /* checked at start */
		.max_output = 64 * 1024,
		.max_running = 2,
	};
	struct hooks *h = hooks_new(&o);
	free(program);
	return h;
}

void app_hooks_open(struct app *app)
{
	const char *change = config_get(app->cfg, "hooks.on_change", NULL);
	const char *scan = config_get(app->cfg, "hooks.on_scan_done", NULL);
	if ((!change || !change[0]) && (!scan || !scan[0]))
		return;
	char *log = NULL;
	const char *cfg_log = config_get(app->cfg, "hooks.log", NULL);
	if (cfg_log && cfg_log[0]) {
		log = expand_home(cfg_log);
	} else {
		const char *slash = strrchr(app->db_path, '/');
		log = slash ? xasprintf("%.*s/hooks.log", (int)(slash - app->db_path), app->db_path)
			    : xstrdup("hooks.log");
	}
	struct app_hooks *ah = xcalloc(1, sizeof *ah);
	ah->change = runner(app, change, log);
	ah->scan_done = runner(app, scan, log);
	ah->sep = config_get(app->cfg, "display.separator", MLIB_VALUE_SEPARATOR);
	free(log);
	app->hooks = ah;
	if (ah->change)
		app_play_add_observer(app, on_notice, app);
}

void app_hooks_close(struct app *app)
{
	struct app_hooks *ah = app->hooks;
	if (!ah)
		return;
	if (ah->change)
		app_play_remove_observer(app, on_notice, app);
	hooks_free(ah->change);
	hooks_free(ah->scan_done);
	free(ah);
	app->hooks = NULL;
}

void app_hooks_scan_done(struct app *app, const struct mlib_scan_progress *t, size_t nerrors)
{
	if (!app->hooks || !app->hooks->scan_done)
		return;
	struct kv kv = {0};
	kv_add(&kv, "event", "scan_done");
	kv_add_int(&kv, "added", (int64_t)t->added);
	kv_add_int(&kv, "updated", (int64_t)t->updated);
	kv_add_int(&kv, "unchanged", (int64_t)t->unchanged);
	kv_add_int(&kv, "failed", (int64_t)(t->failed > nerrors ? t->failed : nerrors));
	kv_add_int(&kv, "missing", (int64_t)t->missing);
	hooks_run(app->hooks->scan_done, kv.p, kv.n / 2);
}

bool app_hooks_report(struct app *app, char *buf, size_t size)
{
	if (!app->hooks)
		return false;
	return hooks_take_report(app->hooks->change, buf, size) ||
	       hooks_take_report(app->hooks->scan_done, buf, size);
}
