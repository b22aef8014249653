/* The player side of the application: which entry of which list plays,
 * what follows it, and what happens to lists as tracks go by. */
#include "app/app_play.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/rules.h"
#include "base/str.h"
#include "coll/store.h"
#include "medialib/index.h"
#include "play/engine.h"

#define NONE ((size_t)-1)
/* A play counts once past half the track or this long (as Last.fm does). */
#define COUNT_AFTER_MS (4 * 60 * 1000)

struct app_play {
	struct engine *engine;
	enum engine_state state;
	enum app_repeat repeat;
	bool shuffle;
	int volume;
	double rg_preamp;
	char *playlist;             /* Playlists/<playlist>, or NULL: ad-hoc list */
	struct u32vec adhoc_ids;    /* the ad-hoc list */
	char **adhoc_paths;         /* owned; entries NULL for library ids */
	size_t cur;                 /* current entry, NONE when idle */
	uint32_t cur_id;
	char cur_path[1024];
	size_t started_pos;         /* entry given to engine_play */
	uint32_t started_id;
	size_t next_pos;            /* entry given to engine_set_next */
	uint32_t next_id;
	int64_t pos_ms, dur_ms;
	bool counted;
	size_t failures;            /* consecutive tracks that failed */
	struct u32vec order;        /* shuffle order of entry positions */
	size_t order_at;
	uint64_t rng;
	char error[512];
	app_play_listener listener;
	void *listener_ud;
};

/* ---- small helpers ---- */

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64*: plenty for shuffling, and no global state. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static struct app_play *player(struct app *app)
{
	if (!app->play) {
		struct app_play *p = xcalloc(1, sizeof *p);
		p->cur = p->started_pos = p->next_pos = NONE;
		p->volume = (int)config_get_int(app->cfg, "playback.volume", 100);
		p->rg_preamp = strtod(config_get(app->cfg, "playback.replaygain_preamp", "0"), NULL);
		int r = app_repeat_parse(config_get(app->cfg, "playback.repeat", "off"));
		p->repeat = r < 0 ? APP_REPEAT_OFF : (enum app_repeat)r;
		p->shuffle = config_get_bool(app->cfg, "playback.shuffle", false);
		p->rng = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull | 1;
		app->play = p;
	}
	return app->play;
}

static void notify(struct app_play *p, enum app_play_notice_type type, uint32_t id,
		   const char *path, const char *msg)
{
	if (p->listener) {
		struct app_play_notice n = {type, id, path ? path : "", msg ? msg : ""};
		p->listener(p->listener_ud, &n);
	}
}

static struct engine *get_engine(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	if (p->engine)
		return p->engine;
	struct engine_opts o = {0};
	o.device = config_get(app->cfg, "output.device", "default");
	o.buffer_ms = (int)config_get_int(app->cfg, "output.buffer_ms", 100);
	o.pace = config_get_bool(app->cfg, "output.pace", false);
	int f = play_sfmt_parse(config_get(app->cfg, "output.format", "auto"));
	if (f < 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "output.format must be auto, s16, s32 or float"),
		       NULL;
	o.sfmt = (enum play_sfmt)f;
	int rg = play_rg_mode_parse(config_get(app->cfg, "playback.replaygain", "off"));
	if (rg < 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "playback.replaygain must be off, track or album"),
		       NULL;
	o.rg_mode = (enum play_rg_mode)rg;
	o.rg_preamp_db = p->rg_preamp;
	o.volume = p->volume;
	if (engine_new(&o, &p->engine, err) != 0)
		p->engine = NULL;
	app->engine = p->engine;
	return p->engine;
}

static const struct coll_node *cur_list(struct app *app)
{
	struct app_play *p = player(app);
	if (!p->playlist)
		return NULL;
	return coll_store_get(app->store, COLL_NS_PLAYLISTS, p->playlist);
}

static size_t list_len(struct app *app)
{
	struct app_play *p = player(app);
	if (!p->playlist)
		return p->adhoc_ids.n;
	const struct coll_node *n = cur_list(app);
	return n ? n->idlist.n : 0;
}

static uint32_t list_id(struct app *app, size_t i)
{
	struct app_play *p = player(app);
	if (!p->playlist)
		return i < p->adhoc_ids.n ? p->adhoc_ids.v[i] : 0;
	const struct coll_node *n = cur_list(app);
	return n && i < n->idlist.n ? n->idlist.v[i] : 0;
}

static const char *list_type(struct app *app)
{
	const struct coll_node *n = cur_list(app);
	const char *t = n ? coll_attr_get(n, "type") : NULL;
	return t ? t : "list";
}

static bool list_pops(struct app *app)
{
	const char *t = list_type(app);
	return strcmp(t, "queue") == 0 || strcmp(t, "pshuffle") == 0;
}

static long attr_long(const struct coll_node *n, const char *key, long def)
{
	const char *v = n ? coll_attr_get(n, key) : NULL;
	int64_t x;
	if (!v || !str_parse_int64(v, strlen(v), &x) || x < 0)
		return def;
	return (long)x;
}

/* The file of entry i (into buf); NULL when it has none. */
static const char *entry_path(struct app *app, size_t i, char *buf, size_t size)
{
	struct app_play *p = player(app);
	if (!p->playlist && p->adhoc_paths && i < p->adhoc_ids.n && p->adhoc_paths[i]) {
		snprintf(buf, size, "%s", p->adhoc_paths[i]);
		return buf;
	}
	uint32_t id = list_id(app, i);
	if (!id || !app->index || !mlib_index_has_media(app->index, id))
		return NULL;
	const char *u = mlib_index_get_text(app->index, id, "url", buf, size);
	if (u && u != buf) {
		snprintf(buf, size, "%s", u);
		u = buf;
	}
	return u;
}

static double tag_number(struct app *app, uint32_t id, const char *prop)
{
	char buf[64];
	const char *v = id && app->index ? mlib_index_get_text(app->index, id, prop, buf, sizeof buf)
					: NULL;
	return play_rg_parse(v);
}

/* Fill t for entry i; false (with *err) when the entry has no file. */
static bool make_track(struct app *app, size_t i, struct engine_track *t, char *path,
		       size_t size, struct crate_err *err)
{
	uint32_t id = list_id(app, i);
	if (!entry_path(app, i, path, size)) {
		crate_err_set(err, CRATE_ERR_NOTFOUND, "media %u is no longer in the library", id);
		return false;
	}
	*t = (struct engine_track){.path = path, .id = id, .rg = play_rg_none()};
	t->rg.track_gain_db = tag_number(app, id, "replaygain_track_gain");
	t->rg.track_peak = tag_number(app, id, "replaygain_track_peak");
	t->rg.album_gain_db = tag_number(app, id, "replaygain_album_gain");
	t->rg.album_peak = tag_number(app, id, "replaygain_album_peak");
	if (id && app->index && app->store && app->db)
		rules_track_prepare(app, t, player(app)->rg_preamp);
	return true;
}

/* Persist the position (and any other change) of the playing list. */
static void save_position(struct app *app, size_t pos)
{
	const struct coll_node *n = cur_list(app);
	if (!n)
		return;
	char buf[32];
	snprintf(buf, sizeof buf, "%zu", pos);
	const char *old = coll_attr_get(n, "position");
	if (old && strcmp(old, buf) == 0)
		return;
	/* Only the attribute: saving a copy would undo edits that another
	 * process (crate playlist add ...) committed meanwhile. */
	struct crate_err err = {0};
	if (coll_store_playlist_set_attr(app->store, player(app)->playlist, "position", buf,
					 &err) != 0)
		snprintf(player(app)->error, sizeof player(app)->error, "%s", err.msg);
}

/* Queue and Party Shuffle: drop entries before pos beyond `history`, then
 * (Party Shuffle) top the list up. Returns the new index of pos. */
static size_t pop_played(struct app *app, size_t pos)
{
	struct app_play *p = player(app);
	const struct coll_node *n = cur_list(app);
	if (!n || !list_pops(app))
		return pos;
	size_t history = (size_t)attr_long(n, "history", 0);
	struct crate_err err = {0};
	if (pos > history) {
		size_t drop = pos - history;
		if (coll_store_playlist_remove(app->store, p->playlist, 0, drop, &err) == 0)
			pos -= drop;
		else
			snprintf(p->error, sizeof p->error, "%s", err.msg);
	}
	save_position(app, pos);
	if (strcmp(list_type(app), "pshuffle") == 0 &&
	    app_pshuffle_refill(app, COLL_NS_PLAYLISTS, p->playlist, NULL, &err) != 0)
		snprintf(p->error, sizeof p->error, "%s", err.msg);
	return pos;
}

static void shuffle_rebuild(struct app *app, size_t first)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	p->order.n = 0;
	for (size_t i = 0; i < n; i++)
		u32vec_push(&p->order, (uint32_t)i);
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_next(&p->rng) % i;
		uint32_t t = p->order.v[i - 1];
		p->order.v[i - 1] = p->order.v[j];
		p->order.v[j] = t;
	}
	p->order_at = 0;
	for (size_t i = 0; i < n; i++)
		if (p->order.v[i] == first) {
			p->order.v[i] = p->order.v[0];
			p->order.v[0] = (uint32_t)first;
		}
}

/* The entry after from: repeat, shuffle, list type. NONE at the end.
 * manual: the user asked (repeat-one then moves on too). */
static size_t next_pos(struct app *app, size_t from, bool manual)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	if (n == 0)
		return NONE;
	if (from == NONE)
		return 0;
	bool plain = !list_pops(app);
	if (p->repeat == APP_REPEAT_ONE && !manual && from < n)
		return from;
	if (p->shuffle && plain) {
		if (p->order.n != n || p->order_at >= n || p->order.v[p->order_at] != from)
			shuffle_rebuild(app, from);
		if (p->order_at + 1 < n)
			return p->order.v[p->order_at + 1];
		if (p->repeat == APP_REPEAT_ALL) {
			shuffle_rebuild(app, NONE);
			return p->order.v[0];
		}
		return NONE;
	}
	if (from + 1 < n)
		return from + 1;
	return plain && p->repeat == APP_REPEAT_ALL ? 0 : NONE;
}

static size_t prev_pos(struct app *app, size_t from)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	if (n == 0 || from == NONE)
		return NONE;
	if (p->shuffle && !list_pops(app) && p->order.n == n && p->order_at > 0 &&
	    p->order_at < n && p->order.v[p->order_at] == from)
		return p->order.v[p->order_at - 1];
	if (from > 0)
		return from - 1;
	return p->repeat == APP_REPEAT_ALL && !list_pops(app) ? n - 1 : NONE;
}

static void adhoc_clear(struct app_play *p)
{
	for (size_t i = 0; p->adhoc_paths && i < p->adhoc_ids.n; i++)
		free(p->adhoc_paths[i]);
	free(p->adhoc_paths);
	p->adhoc_paths = NULL;
	u32vec_free(&p->adhoc_ids);
}

/* Make Playlists/name the list that plays (and the active playlist), with
 * nothing of it playing yet; a Party Shuffle is topped up from start_pos. */
static int list_activate(struct app *app, const char *name, size_t start_pos,
			 struct crate_err *err)
{
	struct app_play *p = player(app);
	char *copy = xstrdup(name); /* name may live in a node the store replaces */
	if (coll_store_set_active_playlist(app->store, copy, err) != 0) {
		free(copy);
		return -1;
	}
	adhoc_clear(p);
	free(p->playlist);
	p->playlist = copy;
	p->cur = NONE;
	p->order.n = 0;
	p->failures = 0;
	if (strcmp(list_type(app), "pshuffle") == 0) {
		save_position(app, start_pos);
		if (app_pshuffle_refill(app, COLL_NS_PLAYLISTS, p->playlist, NULL, err) != 0)
			return -1;
	}
	return 0;
}

/* The playing list ended: switch to the playlist its `jumplist` names and
 * return the entry to start there (its first); NONE when there is none. */
static size_t jump_at_end(struct app *app)
{
	struct app_play *p = player(app);
	const struct coll_node *n = cur_list(app);
	const char *target = n ? coll_attr_get(n, "jumplist") : NULL;
	const struct coll_node *t =
		target ? coll_store_get(app->store, COLL_NS_PLAYLISTS, target) : NULL;
	if (!t || !coll_type_is_list(t))
		return NONE;
	struct crate_err err = {0};
	if (list_activate(app, target, 0, &err) != 0) {
		snprintf(p->error, sizeof p->error, "%s", err.msg);
		return NONE;
	}
	return list_len(app) ? 0 : NONE;
}

/* The entry after from, going on to the jumplist at the end of the list. */
static size_t advance(struct app *app, size_t from, bool manual)
{
	size_t pos = next_pos(app, from, manual);
	return pos != NONE ? pos : jump_at_end(app);
}

/* From entry pos on, the first entry that has a file, its track in *t; the
 * entries skipped on the way are reported. NONE when none has one. */
static size_t first_playable(struct app *app, size_t pos, struct engine_track *t, char *path,
			     size_t size)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	for (size_t tries = 0; pos != NONE && tries <= n; tries++) {
		struct crate_err err = {0};
		if (make_track(app, pos, t, path, size, &err))
			return pos;
		snprintf(p->error, sizeof p->error, "%s", err.msg);
		notify(p, APP_PLAY_FAILED, list_id(app, pos), NULL, err.msg);
		pos = next_pos(app, pos, true);
	}
	return NONE;
}

/* Start entry pos (skipping entries without a file); stop at the end. */
static int play_at(struct app *app, size_t pos, struct crate_err *err)
{
	struct app_play *p = player(app);
	struct engine *e = get_engine(app, err);
	if (!e)
		return -1;
	char path[1024];
	struct engine_track t;
	pos = first_playable(app, pos, &t, path, sizeof path);
	if (pos == NONE) {
		engine_stop(e);
		p->cur = NONE;
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "nothing to play");
	}
	p->started_pos = pos;
	p->started_id = t.id;
	p->next_pos = NONE;
	if (p->shuffle && p->order.n == list_len(app))
		for (size_t i = 0; i < p->order.n; i++)
			if (p->order.v[i] == pos)
				p->order_at = i;
	engine_play(e, &t);
	return 0;
}

/* ---- events ---- */

static void on_started(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	size_t pos;
	if (p->next_pos != NONE && ev->id == p->next_id)
		pos = p->next_pos;
	else
		pos = p->started_pos;
	p->next_pos = NONE;
	p->started_pos = NONE;
	p->cur_id = ev->id;
	p->counted = false;
	p->failures = 0;
	p->pos_ms = 0;
	p->dur_ms = ev->dur_ms;
	p->state = ENGINE_PLAYING;
	char buf[1024];
	const char *path = pos != NONE ? entry_path(app, pos, buf, sizeof buf) : NULL;
	snprintf(p->cur_path, sizeof p->cur_path, "%s", path ? path : "");
	if (p->shuffle && p->order.n == list_len(app))
		for (size_t i = 0; i < p->order.n; i++)
			if (p->order.v[i] == pos)
				p->order_at = i;
	if (pos != NONE && p->playlist) {
		if (list_pops(app)) {
			pos = pop_played(app, pos);
		} else {
			save_position(app, pos);
		}
	}
	p->cur = pos;
	if (app->store && app->index)
		app_rules_track_started(app, ev->id);
	notify(p, APP_PLAY_STARTED, ev->id, p->cur_path, NULL);
}

static void on_need_next(struct app *app)
{
	struct app_play *p = player(app);
	char path[1024];
	struct engine_track t;
	p->next_pos = first_playable(app, advance(app, p->cur, false), &t, path, sizeof path);
	if (p->next_pos == NONE) {
		engine_set_next(p->engine, NULL);
		return;
	}
	p->next_id = t.id;
	engine_set_next(p->engine, &t);
}

static void on_position(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	p->pos_ms = ev->pos_ms;
	p->dur_ms = ev->dur_ms;
	if (p->counted || !ev->id || ev->id != p->cur_id || !app->db)
		return;
	if ((ev->dur_ms > 0 && ev->pos_ms * 2 >= ev->dur_ms) || ev->pos_ms >= COUNT_AFTER_MS) {
		struct crate_err err = {0};
		p->counted = true;
		if (app_record_play(app, ev->id, (int64_t)time(NULL), &err) != 0)
			snprintf(p->error, sizeof p->error, "%s", err.msg);
	}
}

/* A track could not be played: report it, skip to the entry after it. */
static void on_track_error(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	snprintf(p->error, sizeof p->error, "%s", ev->msg);
	size_t failed;
	notify(p, APP_PLAY_FAILED, ev->id, NULL, ev->msg);
	if (p->next_pos != NONE && ev->id == p->next_id) {
		failed = p->next_pos;
	} else if (p->started_pos != NONE && ev->id == p->started_id) {
		failed = p->started_pos;
	} else {
		/* The playing track broke off mid-way: the engine goes on to the
		 * next track it was given, or stops at the end of the list. */
		return;
	}
	p->next_pos = p->started_pos = NONE;
	if (++p->failures > list_len(app))
		return;
	if (p->playlist && list_pops(app))
		failed = pop_played(app, failed);
	p->cur = failed;
	size_t nx = advance(app, failed, true);
	struct crate_err err = {0};
	if (nx == NONE || play_at(app, nx, &err) != 0) {
		p->state = ENGINE_STOPPED;
		notify(p, APP_PLAY_STOPPED, 0, NULL, NULL);
	}
}

int app_play_handle_events(struct app *app)
{
	struct app_play *p = player(app);
	if (!p->engine)
		return 0;
	int handled = 0;
	struct engine_event ev;
	while (engine_next_event(p->engine, &ev)) {
		handled++;
		switch (ev.type) {
		case ENGINE_EV_STARTED: on_started(app, &ev); break;
		case ENGINE_EV_NEED_NEXT: on_need_next(app); break;
		case ENGINE_EV_POSITION: on_position(app, &ev); break;
		case ENGINE_EV_FINISHED: {
			/* Played to its end: that counts, however short the track. */
			struct engine_event end = ev;
			end.pos_ms = end.dur_ms > 0 ? end.dur_ms : COUNT_AFTER_MS;
			on_position(app, &end);
			break;
		}
		case ENGINE_EV_STATE: {
			bool was = p->state != ENGINE_STOPPED;
			p->state = ev.state;
			if (ev.state == ENGINE_STOPPED && was && p->started_pos == NONE) {
				p->cur_id = 0;
				p->cur_path[0] = 0;
				if (app->store && app->index)
					app_rules_track_started(app, 0);
				notify(p, APP_PLAY_STOPPED, 0, NULL, NULL);
			}
			break;
		}
		case ENGINE_EV_ERROR:
			if (ev.device) {
				snprintf(p->error, sizeof p->error, "%s", ev.msg);
				notify(p, ev.device ? APP_PLAY_DEVICE : APP_PLAY_FAILED, 0, NULL, ev.msg);
				if (ev.device) {
					p->started_pos = NONE;
					if (p->state == ENGINE_STOPPED)
						notify(p, APP_PLAY_STOPPED, 0, NULL, NULL);
				}
			} else {
				on_track_error(app, &ev);
			}
			break;
		}
	}
	return handled;
}

/* ---- commands ---- */

void app_play_set_listener(struct app *app, app_play_listener fn, void *ud)
{
	struct app_play *p = player(app);
	p->listener = fn;
	p->listener_ud = ud;
}

int app_play_collection(struct app *app, const char *ns, const char *name, size_t start_pos,
			struct crate_err *err)
{
	if (!app->store)
		return crate_err_set(err, CRATE_ERR_INVALID, "no collection store");
	if (strcmp(ns, COLL_NS_PLAYLISTS) != 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "%s/%s: only playlists (Playlists/...) can be played", ns, name);
	const struct coll_node *n = coll_store_get(app->store, ns, name);
	if (!n)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "%s/%s does not exist", ns, name);
	if (!coll_type_is_list(n))
		return crate_err_set(err, CRATE_ERR_INVALID, "%s/%s is not a list", ns, name);
	struct app_play *p = player(app);
	if (!get_engine(app, err) || list_activate(app, name, start_pos, err) != 0)
		return -1;
	if (start_pos >= list_len(app))
		return crate_err_set(err, CRATE_ERR_INVALID, "%s/%s has no entry %zu (%zu entries)",
				     ns, name, start_pos, list_len(app));
	p->error[0] = 0;
	return play_at(app, start_pos, err);
}

int app_play_list(struct app *app, const uint32_t *ids, const char *const *paths, size_t n,
		  struct crate_err *err)
{
	if (n == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to play");
	struct app_play *p = player(app);
	if (!get_engine(app, err))
		return -1;
	adhoc_clear(p);
	free(p->playlist);
	p->playlist = NULL;
	p->adhoc_paths = xcalloc(n, sizeof *p->adhoc_paths);
	for (size_t i = 0; i < n; i++) {
		u32vec_push(&p->adhoc_ids, ids ? ids[i] : 0);
		if (paths && paths[i])
			p->adhoc_paths[i] = xstrdup(paths[i]);
	}
	p->order.n = 0;
	p->failures = 0;
	p->error[0] = 0;
	return play_at(app, p->shuffle ? rng_next(&p->rng) % n : 0, err);
}

int app_play_toggle(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	if (p->engine && p->state != ENGINE_STOPPED) {
		engine_toggle(p->engine);
		return 0;
	}
	if (p->playlist || !app->store)
		return p->playlist ? play_at(app, p->cur == NONE ? 0 : p->cur, err)
				   : crate_err_set(err, CRATE_ERR_INVALID, "nothing to play");
	const char *active = coll_store_active_playlist(app->store);
	const struct coll_node *n = active ? coll_store_get(app->store, COLL_NS_PLAYLISTS, active)
					   : NULL;
	if (!n)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "no active playlist");
	size_t pos = (size_t)attr_long(n, "position", 0);
	return app_play_collection(app, COLL_NS_PLAYLISTS, active,
				   pos < n->idlist.n ? pos : 0, err);
}

int app_play_stop(struct app *app, struct crate_err *err)
{
	(void)err;
	struct app_play *p = player(app);
	if (p->engine)
		engine_stop(p->engine);
	p->started_pos = p->next_pos = NONE;
	return 0;
}

int app_play_next(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	size_t nx = advance(app, p->cur, true);
	if (nx == NONE) {
		app_play_stop(app, err);
		return 0;
	}
	return play_at(app, nx, err);
}

int app_play_prev(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	size_t pv = prev_pos(app, p->cur);
	if (pv == NONE)
		pv = p->cur == NONE ? 0 : p->cur; /* at the start: restart the track */
	return play_at(app, pv, err);
}

int app_play_seek(struct app *app, int64_t ms, bool relative, struct crate_err *err)
{
	struct engine *e = get_engine(app, err);
	if (!e)
		return -1;
	engine_seek(e, ms, relative);
	return 0;
}

int app_play_volume(struct app *app, int value, bool relative, struct crate_err *err)
{
	struct app_play *p = player(app);
	int v = relative ? p->volume + value : value;
	p->volume = v < 0 ? 0 : v > 100 ? 100 : v;
	struct engine *e = get_engine(app, err);
	if (!e)
		return -1;
	engine_set_volume(e, p->volume);
	return 0;
}

void app_play_set_repeat(struct app *app, enum app_repeat mode)
{
	player(app)->repeat = mode;
}

void app_play_set_shuffle(struct app *app, bool on)
{
	struct app_play *p = player(app);
	p->shuffle = on;
	p->order.n = 0;
}

int app_repeat_parse(const char *s)
{
	if (strcmp(s, "off") == 0)
		return APP_REPEAT_OFF;
	if (strcmp(s, "all") == 0)
		return APP_REPEAT_ALL;
	if (strcmp(s, "one") == 0)
		return APP_REPEAT_ONE;
	return -1;
}

const char *app_repeat_name(enum app_repeat r)
{
	return r == APP_REPEAT_ALL ? "all" : r == APP_REPEAT_ONE ? "one" : "off";
}

int app_play_event_fd(struct app *app, struct crate_err *err)
{
	struct engine *e = get_engine(app, err);
	return e ? engine_event_fd(e) : -1;
}

void app_play_status(struct app *app, struct app_play_status *st)
{
	struct app_play *p = player(app);
	memset(st, 0, sizeof *st);
	st->volume = p->volume;
	st->repeat = p->repeat;
	st->shuffle = p->shuffle;
	st->dur_ms = -1;
	if (p->engine) {
		struct engine_status es;
		engine_get_status(p->engine, &es);
		st->state = es.state;
		st->id = es.id;
		st->pos_ms = es.pos_ms;
		st->dur_ms = es.dur_ms;
		if (es.state != ENGINE_STOPPED)
			snprintf(st->path, sizeof st->path, "%s", p->cur_path);
	}
	if (p->playlist)
		snprintf(st->playlist, sizeof st->playlist, "%s", p->playlist);
	st->position = p->cur == NONE ? 0 : p->cur;
	snprintf(st->error, sizeof st->error, "%s", p->error);
}

void app_play_close(struct app *app)
{
	struct app_play *p = app->play;
	if (!p)
		return;
	engine_free(p->engine);
	app->engine = NULL;
	adhoc_clear(p);
	u32vec_free(&p->order);
	free(p->playlist);
	free(p);
	app->play = NULL;
}
