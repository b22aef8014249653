/* What keys do: each user action is one app_* call (DESIGN.md); this file
 * is where the interface meets the application. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_watch.h"
#include "base/str.h"
#include "app/app_analysis.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_play.h"
#include "app/rules.h"
#include "coll/eval.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "medialib/index.h"
#include "medialib/roots.h"
#include "ui/actions.h"
#include "ui/pane.h"
#include "ui/text.h"
#include "ui/ui_state.h"

void ui_eval_ctx(struct ui *ui, struct coll_eval_ctx *ctx)
{
	app_eval_ctx_cached(ui->app, &ui->ecache, ctx);
}

const char *ui_prop(struct ui *ui, uint32_t id, const char *prop, char *buf, size_t size)
{
	return app_item_text(ui->app, id, prop, ui->value_sep, buf, size);
}

const char *ui_title(struct ui *ui, uint32_t id, char *buf, size_t size)
{
	char tmp[512];
	const char *t = ui_prop(ui, id, "title", tmp, sizeof tmp);
	if (!t) {
		/* No title tag: show the file name (the property stays absent). */
		const char *url = ui_prop(ui, id, "url", tmp, sizeof tmp);
		if (url)
			return ui_text_basename(url, buf, size);
		t = "?";
	}
	snprintf(buf, size, "%s", t);
	return buf;
}

/* ---- the player ---- */

void act_status(struct ui *ui, struct ui_status *st)
{
	memset(st, 0, sizeof *st);
	struct app_play_status ps;
	app_play_status_shown(ui->app, &ps); /* a station connecting: playing, as asked */
	st->available = true;
	st->state = ps.state == ENGINE_PLAYING ? 1 : ps.state == ENGINE_PAUSED ? 2 : 0;
	st->id = st->state ? ps.id : 0;
	if (st->state)
		snprintf(st->path, sizeof st->path, "%s", ps.path);
	st->pos_ms = ps.pos_ms;
	st->dur_ms = ps.dur_ms;
	st->volume = ps.volume;
	st->repeat = ps.repeat == APP_REPEAT_ALL ? 1 : ps.repeat == APP_REPEAT_ONE ? 2 : 0;
	st->shuffle = ps.shuffle;
	snprintf(st->shuffle_mode, sizeof st->shuffle_mode, "%s", app_shuffle_name(ps.shuffle_mode));
	if (ps.from_queue)
		snprintf(st->context, sizeof st->context, "queue");
	else if (ps.has_context && ps.context_len)
		snprintf(st->context, sizeof st->context, "%s %zu/%zu",
			 ps.playlist[0] ? ps.playlist : "browser list", ps.position + 1, ps.context_len);
	snprintf(st->stream_title, sizeof st->stream_title, "%s", ps.title);
	snprintf(st->station, sizeof st->station, "%s", ps.station);
	const char *rule = app_rules_active_name(ui->app);
	if (rule)
		snprintf(st->rule, sizeof st->rule, "%s", rule);
	if (ui->app->scan && !app_scan_is_quiet(ui->app)) {
		st->scanning = true;
		snprintf(st->scan, sizeof st->scan, "%s", ui->msg_scan);
	} else if (ui->app->analysis) {
		st->scanning = true;
		snprintf(st->scan, sizeof st->scan, "%s",
			 ui->msg_analysis[0] ? ui->msg_analysis : "analysis starting");
	}
}

uint32_t act_playing_id(struct ui *ui)
{
	struct app_play_status ps;
	app_play_status(ui->app, &ps);
	return ps.state != ENGINE_STOPPED ? ps.id : 0;
}

static void report(struct ui *ui, int rc, const struct crate_err *err)
{
	if (rc != 0)
		ui_message(ui, true, "%s", err->msg);
	ui->dirty = true;
}

/* Shuffle and repeat all pass over a queue or Party Shuffle being played
 * (consumed in order): the mode is set all the same, for the lists played
 * next, and the message says why nothing changes now. */
static const char *in_order_note(struct ui *ui, bool shuffle, char *buf, size_t size)
{
	struct app_play_status ps;
	app_play_status(ui->app, &ps);
	bool set = shuffle ? ps.shuffle_mode != APP_SHUFFLE_OFF : ps.repeat == APP_REPEAT_ALL;
	const struct coll_node *n =
		set && ps.has_context && ps.playlist[0] ? app_playlist_get(ui->app, ps.playlist) : NULL;
	const char *type = n ? coll_attr_get(n, "type") : NULL;
	bool party = type && strcmp(type, "pshuffle") == 0;
	if (!party && !(type && strcmp(type, "queue") == 0))
		return "";
	snprintf(buf, size, " (%s is a %s: it plays in order)", ps.playlist,
		 party ? "Party Shuffle" : "queue list");
	return buf;
}

/* "shuffle tracks", "repeat all": the mode now, and why it does not
 * apply to what plays when it does not. */
static void say_mode(struct ui *ui, bool shuffle)
{
	struct app_play_status ps;
	char note[300];
	app_play_status(ui->app, &ps);
	ui_message(ui, false, "%s %s%s", shuffle ? "shuffle" : "repeat",
		   shuffle ? app_shuffle_name(ps.shuffle_mode) : app_repeat_name(ps.repeat),
		   in_order_note(ui, shuffle, note, sizeof note));
}

void act_player(struct ui *ui, enum ui_action a)
{
	struct crate_err err = {0};
	struct app *app = ui->app;
	struct app_play_status ps;
	int rc = 0;
	long step;
	switch (a) {
	case UA_PLAY:
	case UA_PAUSE:
		rc = app_play_toggle(app, &err);
		break;
	case UA_STOP:
		rc = app_play_stop(app, &err);
		break;
	case UA_NEXT:
		rc = app_play_next(app, &err);
		break;
	case UA_PREV:
		rc = app_play_prev(app, &err);
		break;
	case UA_SEEK_BACK:
	case UA_SEEK_FWD:
		step = config_get_int(app->cfg, "playback.seek_step", 5) * 1000;
		rc = app_play_seek(app, a == UA_SEEK_FWD ? step : -step, true, &err);
		break;
	case UA_VOL_UP:
	case UA_VOL_DOWN:
		step = config_get_int(app->cfg, "playback.volume_step", 5);
		rc = app_play_volume(app, (int)(a == UA_VOL_UP ? step : -step), true, &err);
		break;
	case UA_REPEAT:
		app_play_status(app, &ps);
		app_play_set_repeat(app, ps.repeat == APP_REPEAT_OFF ? APP_REPEAT_ALL
				    : ps.repeat == APP_REPEAT_ALL ? APP_REPEAT_ONE : APP_REPEAT_OFF);
		say_mode(ui, false);
		break;
	case UA_SHUFFLE: /* off -> tracks -> albums -> off, as cmus */
		app_play_status(app, &ps);
		app_play_set_shuffle_mode(app, (enum app_shuffle)((ps.shuffle_mode + 1) % 3));
		say_mode(ui, true);
		break;
	default:
		break;
	}
	report(ui, rc, &err);
}

void act_play(struct ui *ui)
{
	const struct ui_pane *p = ui_pane_current(ui);
	if (p->play)
		p->play(ui);
}

void act_modes(struct ui *ui, const char *word, const char *arg)
{
	bool shuffle = strcmp(word, "shuffle") == 0;
	if (!arg) {
		/* No argument: cycle, as the key does. */
		act_player(ui, shuffle ? UA_SHUFFLE : UA_REPEAT);
		return;
	}
	int m = shuffle ? app_shuffle_parse(arg) : app_repeat_parse(arg);
	if (m < 0) {
		ui_message(ui, true, shuffle ? "usage: shuffle [off|tracks|albums]"
					     : "usage: repeat [off|all|one]");
		return;
	}
	if (shuffle)
		app_play_set_shuffle_mode(ui->app, (enum app_shuffle)m);
	else
		app_play_set_repeat(ui->app, (enum app_repeat)m);
	say_mode(ui, shuffle);
	ui->dirty = true;
}

void act_command(struct ui *ui, const char *line)
{
	char word[16];
	char arg[64];
	struct crate_err err = {0};
	int rc = 0;
	if (sscanf(line, "%15s %63s", word, arg) != 2) {
		ui_message(ui, true, "usage: vol [+-]N | seek POSITION");
		return;
	}
	if (strcmp(word, "seek") == 0) {
		struct app_play_status ps;
		app_play_status(ui->app, &ps);
		if (ps.state == ENGINE_STOPPED) /* as crate remote seek says it */
			ui_message(ui, true, "seek: nothing is playing");
		else
			report(ui, app_play_seek_arg(ui->app, arg, &err), &err);
		return;
	}
	/* :vol and crate remote vol say the same of a bad value. */
	rc = app_play_volume_arg(ui->app, arg, &err);
	report(ui, rc, &err);
}

/* skipped "Uprising": /music/x.m4a: no audio could be decoded. The reason
 * names the file when the decoder gave it; the title says which track that
 * is, and a bare file's name is said only when the reason does not. */
static void show_skipped(struct ui *ui, const struct app_play_notice *n)
{
	char t[512], url[1024];
	const char *what = NULL;
	if (n->id && ui_prop(ui, n->id, "url", url, sizeof url))
		what = ui_title(ui, n->id, t, sizeof t);
	else if (n->id) { /* gone from the library: as the list names it */
		snprintf(t, sizeof t, "#%u", (unsigned)n->id);
		what = t;
	}
	if (!what && n->path[0] && !strstr(n->msg, n->path))
		what = ui_text_basename(n->path, t, sizeof t);
	if (what && *what)
		ui_message(ui, true, "skipped \"%s\": %s", what, n->msg);
	else
		ui_message(ui, true, "skipped %s", n->msg);
	snprintf(ui->play_error, sizeof ui->play_error, "%s", n->msg); /* said */
}

/* Why the player stopped or changed course (a removed or renamed
 * playlist, every entry failed) is kept in its status, not sent as a
 * notice: say it once when it is new. */
static void show_player_error(struct ui *ui)
{
	struct app_play_status ps;
	app_play_status(ui->app, &ps);
	if (strcmp(ps.error, ui->play_error) == 0)
		return;
	snprintf(ui->play_error, sizeof ui->play_error, "%s", ps.error);
	if (ps.error[0])
		ui_message(ui, true, "%s", ps.error);
}

static void on_notice(void *ud, const struct app_play_notice *n)
{
	struct ui *ui = ud;
	ui->dirty = true;
	if (n->type == APP_PLAY_FAILED) {
		show_skipped(ui, n);
	} else if (n->type == APP_PLAY_DEVICE) {
		ui_message(ui, true, "audio device: %s", n->msg);
		snprintf(ui->play_error, sizeof ui->play_error, "%s", n->msg); /* said */
	}
}

void ui_play_init(struct ui *ui)
{
	app_play_set_listener(ui->app, on_notice, ui);
}

int ui_play_event_fd(struct ui *ui)
{
	if (!ui->app->engine)
		return -1; /* the engine starts with the first play */
	struct crate_err err = {0};
	return app_play_event_fd(ui->app, &err);
}

void ui_play_events(struct ui *ui)
{
	app_play_handle_events(ui->app);
	show_player_error(ui);
}

bool ui_play_tick(struct ui *ui)
{
	return act_playing_id(ui) != 0;
}

/* The selection of the view shown (its pane's). */
static void selection(struct ui *ui, struct u32vec *ids, size_t *start, bool one)
{
	ids->n = 0;
	*start = 0;
	const struct ui_pane *p = ui_pane_current(ui);
	if (p->selection)
		p->selection(ui, ids, start, one);
}

/* The marks of the view shown when it has any (*marked true), else its
 * selection (one: just the selected track). */
static void targets(struct ui *ui, struct u32vec *ids, bool *marked)
{
	size_t start;
	const struct ui_pane *p = ui_pane_current(ui);
	ids->n = 0;
	*marked = p->marked && p->marked(ui, ids);
	if (!*marked)
		selection(ui, ids, &start, true);
}

bool act_rate_prompt(struct ui *ui, char *label, size_t size)
{
	struct u32vec ids = {0};
	bool marked;
	targets(ui, &ids, &marked);
	size_t n = ids.n;
	u32vec_free(&ids);
	if (marked)
		snprintf(label, size, "Rate the marked tracks: 0-5 (0 clears) ");
	else if (n > 1)
		snprintf(label, size, "Rate the %zu tracks of the selected row: 0-5 (0 clears) ", n);
	else
		snprintf(label, size, "Rate the selected track: 0-5 (0 clears) ");
	return n > 0;
}

/* Several tracks all get the rating in one transaction: one commit (and
 * one wake-up of other crates) for any number, and all or none. */
static void rate_many(struct ui *ui, const struct u32vec *ids, int stars, bool marked)
{
	struct crate_err err = {0};
	size_t n = ids->n;
	const char *which = marked ? " marked" : "";
	if (app_set_ratings(ui->app, ids->v, n, stars, &err) != 0)
		ui_message(ui, true, "%s (none rated)", err.msg);
	else if (stars)
		ui_message(ui, false, "rated %zu%s track%s: %d star%s", n, which, n == 1 ? "" : "s",
			   stars, stars == 1 ? "" : "s");
	else
		ui_message(ui, false, "rating of %zu%s track%s cleared", n, which, n == 1 ? "" : "s");
}

void act_rate(struct ui *ui, int stars)
{
	struct u32vec ids = {0};
	bool marked;
	targets(ui, &ids, &marked);
	uint32_t id = ids.n ? ids.v[0] : 0;
	struct crate_err err = {0};
	char t[512];
	if (marked || ids.n > 1)
		rate_many(ui, &ids, stars, marked);
	else if (!id)
		ui_message(ui, true, "nothing selected");
	else if (app_set_rating(ui->app, id, stars, &err) != 0)
		ui_message(ui, true, "%s", err.msg);
	else if (stars)
		ui_message(ui, false, "rated %s: %d star%s", ui_title(ui, id, t, sizeof t), stars,
			   stars == 1 ? "" : "s");
	else
		ui_message(ui, false, "rating of %s cleared", ui_title(ui, id, t, sizeof t));
	u32vec_free(&ids);
	ui->dirty = true;
}

void act_add(struct ui *ui, bool enqueue)
{
	if (!app_has_store(ui->app))
		return;
	struct u32vec ids = {0};
	bool marked;
	targets(ui, &ids, &marked);
	const char *what = marked ? " marked" : "";
	struct crate_err err = {0};
	if (enqueue) {
		/* The end of the queue: first in, first out, before the context. */
		if (!ids.n)
			ui_message(ui, true, "nothing selected");
		else if (app_play_enqueue(ui->app, ids.v, ids.n, &err) != 0)
			ui_message(ui, true, "%s", err.msg);
		else
			ui_message(ui, false, "queued %zu%s track%s (u undoes)", ids.n, what,
				   ids.n == 1 ? "" : "s");
		u32vec_free(&ids);
		ui->dirty = true;
		return;
	}
	const char *name = app_playlist_active(ui->app);
	if (!ids.n || !app_playlist_get(ui->app, name)) {
		ui_message(ui, true, ids.n ? "there is no active playlist" : "nothing selected");
		u32vec_free(&ids);
		return;
	}
	if (app_playlist_insert_ids(ui->app, name, SIZE_MAX, ids.v, ids.n, &err) != 0)
		ui_message(ui, true, "%s", err.msg);
	else
		ui_message(ui, false, "added %zu%s track%s to %s (u undoes)", ids.n, what,
			   ids.n == 1 ? "" : "s", name);
	u32vec_free(&ids);
}

/* ---- collections ---- */

void act_save(struct ui *ui, const char *name)
{
	if (!name || !*name) {
		ui_message(ui, true, "save: a name is needed");
		return;
	}
	/* Replacing a saved collection loses its query: ask first. Not for a
	 * playlist: a search cannot be saved there, and a yes was refused. */
	char *ns = NULL, *nm = NULL;
	struct crate_err nerr = {0};
	if (coll_name_split(name, &ns, &nm, &nerr) == 0 && app_coll_get(ui->app, ns, nm) &&
	    strcmp(ns, COLL_NS_PLAYLISTS) != 0) {
		char *full = xasprintf("%s/%s", ns, nm);
		prompt_begin(ui, UI_PROMPT_OVERWRITE, full, NULL);
		free(full);
	} else {
		act_save_now(ui, name); /* a bad name: saving says why */
	}
	free(ns);
	free(nm);
}

void act_save_now(struct ui *ui, const char *name)
{
	struct crate_err err = {0};
	/* The view's collection: the browsed collection AND the query, with
	 * what the search forgave, or the saved one would not find what was
	 * shown (saved collections are never forgiven). */
	struct strbuf forgiven;
	strbuf_init(&forgiven, 0);
	struct coll_node *view = ui_browse_view_node(ui, &forgiven);
	char *shown = NULL;
	if (app_coll_save_node(ui->app, name, view, &shown, &err) != 0)
		ui_message(ui, true, "save %s: %s", name, err.msg);
	else if (forgiven.len)
		ui_message(ui, false, "saved %s as shown (%s)", shown, forgiven.buf);
	else
		ui_message(ui, false, "saved %s", shown);
	free(shown);
	strbuf_free(&forgiven);
	coll_node_unref(view);
	ui_colls_changed(ui);
}

void act_remove(struct ui *ui)
{
	const struct ui_pane *p = ui_pane_current(ui);
	if (p->remove)
		p->remove(ui);
	else
		ui_message(ui, false, "d removes entries in the playlist (2), collections (3) and rules (4) views");
}

/* u: the last recorded playlist edit, of this run or an earlier one. */
void act_undo(struct ui *ui)
{
	char *what;
	struct crate_err err = {0};
	if (app_playlist_undo(ui->app, &what, &err) != 0)
		ui_message(ui, err.code != CRATE_ERR_NOTFOUND, "%s", err.msg);
	else
		ui_message(ui, false, "undid the %s", what);
	free(what);
	ui->dirty = true;
}

/* ---- scanning ---- */

bool act_scan_running(struct ui *ui)
{
	/* crate's own scans (the folder watch) never hold up quitting. */
	return (ui->app->scan && !app_scan_is_automatic(ui->app)) || ui->queued_scan;
}

static void queue_free(struct ui *ui)
{
	for (int i = 0; i < ui->nqueued_scan; i++)
		free(ui->queued_scan[i]);
	free(ui->queued_scan);
	ui->queued_scan = NULL;
	ui->nqueued_scan = 0;
}

void act_scan_queued(struct ui *ui)
{
	if (!ui->queued_scan || ui->app->scan)
		return;
	char **q = ui->queued_scan;
	int n = ui->nqueued_scan;
	ui->queued_scan = NULL;
	ui->nqueued_scan = 0;
	act_scan(ui, q, n);
	for (int i = 0; i < n; i++)
		free(q[i]);
	free(q);
}

/* ":scan" alone: what `crate scan` alone looks at (app_rescan_paths): the
 * roots and the files given by name; a root gone with nothing of the
 * library under it is forgotten, said when the scan is done. */
void act_scan_roots(struct ui *ui)
{
	struct app_rescan r;
	struct crate_err err = {0};
	if (app_rescan_paths(ui->app, &r, &err) != 0) {
		ui_message(ui, true, "scan: %s", err.msg);
		return;
	}
	ui->scan_note[0] = '\0';
	if (r.ndropped)
		snprintf(ui->scan_note, sizeof ui->scan_note,
			 "%s%s: gone, with nothing of the library under it: no longer scanned",
			 r.dropped[0], r.ndropped > 1 ? " and others" : "");
	if (r.n == 0) {
		if (r.ndropped)
			ui_message(ui, false, "%s", ui->scan_note);
		else
			ui_message(ui, true, "no folder is scanned yet: ':scan DIR' adds one");
		ui->scan_note[0] = '\0';
	} else {
		act_scan(ui, r.paths, (int)r.n);
	}
	app_rescan_free(&r);
}

void act_scan(struct ui *ui, char *const *paths, int n)
{
	struct crate_err err = {0};
	if (app_scan_is_automatic(ui->app)) {
		queue_free(ui);
		ui->queued_scan = xcalloc((size_t)n, sizeof *ui->queued_scan);
		for (int i = 0; i < n; i++)
			ui->queued_scan[i] = xstrdup(paths[i]);
		ui->nqueued_scan = n;
		/* The start-up index's owned copy ends in a moment: unsaid. */
		if (!app_scan_is_quiet(ui->app))
			ui_message(ui, false, "scanning once the library update in progress ends");
		return;
	}
	char **full = xcalloc((size_t)n + 1, sizeof *full);
	int given = n;
	n = 0;
	for (int i = 0; i < given; i++) {
		char *p = str_expand_home(paths[i]);
		if (app_scan_path_unknown(ui->app, p)) { /* a typo, not a root gone */
			ui_message(ui, true, "scan: %s: No such file or directory", p);
			free(p);
			continue;
		}
		full[n++] = p;
	}
	if (n == 0) {
		free(full);
		return;
	}
	int rc = app_scan_start(ui->app, (const char *const *)full, (size_t)n, &err);
	struct crate_err rerr = {0};
	if (rc == 0 && app_roots_record(ui->app, (const char *const *)full, (size_t)n, &rerr) != 0)
		ui_message(ui, true, "scan: %s", rerr.msg);
	for (int i = 0; rc == 0 && i < n; i++)
		app_watch_add(ui->app, full[i]);
	for (int i = 0; i < n; i++)
		free(full[i]);
	free(full);
	if (rc != 0) {
		ui_message(ui, true, "scan: %s", err.msg);
		return;
	}
	memset(&ui->scan_prog, 0, sizeof ui->scan_prog);
	ui->scan_prog.p.walking = 1;
	ui->scan_active = true;
	ui->msg[0] = '\0'; /* the bottom row shows the progress */
	snprintf(ui->msg_scan, sizeof ui->msg_scan, "scanning");
}

void act_scan_progress_line(struct ui *ui, char *buf, size_t size, size_t *fill, size_t cells)
{
	const struct mlib_scan_progress *p = &ui->scan_prog.p;
	*fill = 0;
	if (ui->scan_prog.indexing) {
		snprintf(buf, size, "scan: %llu files read; building the index...",
			 (unsigned long long)p->seen);
		*fill = cells;
		return;
	}
	if (p->walking) {
		snprintf(buf, size, "scan: finding files: %llu  %s", (unsigned long long)p->seen,
			 p->current);
		return;
	}
	unsigned long long done = p->seen - p->to_read + p->read;
	*fill = p->seen ? (size_t)((double)done / (double)p->seen * (double)cells) : cells;
	snprintf(buf, size, "scan: %llu/%llu files  %.0f/s  %llu failed  %s", done,
		 (unsigned long long)p->seen, p->files_per_sec, (unsigned long long)p->failed,
		 p->current);
}

/* ---- smooth Party Shuffle ---- */

void act_smooth(struct ui *ui, const char *onoff, const char *drift_arg)
{
	const char *name = ui_playlist_shown(ui);
	const struct coll_node *n = name ? app_playlist_get(ui->app, name) : NULL;
	const char *type = n ? coll_attr_get(n, "type") : NULL;
	if (!type || strcmp(type, "pshuffle") != 0) {
		ui_message(ui, true, "smooth: view 2 does not show a Party Shuffle");
		return;
	}
	const char *cur = coll_attr_get(n, "mode");
	bool on = !(cur && strcmp(cur, "smooth") == 0);
	if (onoff && strcmp(onoff, "on") == 0)
		on = true;
	else if (onoff && strcmp(onoff, "off") == 0)
		on = false;
	else if (onoff && !drift_arg) { /* ":smooth 0.5" */
		drift_arg = onoff;
		on = true;
	}
	double drift = -1;
	if (drift_arg) {
		char *end;
		drift = strtod(drift_arg, &end);
		if (end == drift_arg || *end || !(drift >= 0 && drift <= 1)) {
			ui_message(ui, true, "smooth: drift is a number from 0 (stay) to 1 (wander)");
			return;
		}
	}
	struct crate_err err = {0};
	char *keep = xstrdup(name); /* the store may replace the node */
	size_t analysed = 0, total = 0;
	if (app_pshuffle_set_mode(ui->app, keep, on ? "smooth" : "random", drift, &err) != 0)
		ui_message(ui, true, "smooth: %s", err.msg);
	else if (on && app_pshuffle_analysed(ui->app, keep, &analysed, &total, &err) == 0 &&
		 total >= 2 && analysed < 2) /* smooth in name only: say so */
		ui_message(ui, true,
			   "Playlists/%s: smooth, but %s of the %zu tracks it draws from is analysed: "
			   "picks stay random until they are (:analyze)",
			   keep, analysed ? "only 1" : "none", total);
	else
		ui_message(ui, false, "Playlists/%s: %s (next picks)", keep,
			   on ? "smooth: each pick sounds like the one before" : "random picks");
	free(keep);
	ui->dirty = true;
}

/* ---- background analysis ---- */

void act_analysis(struct ui *ui, const char *what, bool more_words)
{
	struct app *app = ui->app;
	struct crate_err err = {0};
	if (more_words)
		what = ""; /* ":analyze start x": the x is a mistake, the usage says so */
	if (!what || strcmp(what, "start") == 0 || strcmp(what, "resume") == 0) {
		if (app_analysis_running(app)) {
			app_analysis_pause(app, false);
			ui_message(ui, false, "analysis resumed");
		} else if (app_analysis_start(app, &err) != 0) {
			ui_message(ui, true, "analyze: %s", err.msg);
		} else {
			ui->analysis_manual = true;
			ui_message(ui, false, "analysing the library in the background");
		}
	} else if (strcmp(what, "pause") == 0) {
		app_analysis_pause(app, true);
		ui_message(ui, false, app_analysis_running(app) ? "analysis paused" : "no analysis runs");
	} else if (strcmp(what, "stop") == 0) {
		app_analysis_stop(app);
		ui->msg_analysis[0] = '\0';
		ui_message(ui, false, "analysis stopped (':analyze' resumes it)");
	} else {
		ui_message(ui, true, "usage: analyze [start|pause|resume|stop]");
	}
	ui->dirty = true;
}

