/* View 2: a playlist (the active one unless another was opened from the
 * collections view), Party Shuffle included: its header names the source
 * collection, and the list refills as tracks are played. The search bar
 * here is a find: matching rows are marked and n/N jump between them. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_view.h"
#include "coll/parse.h" /* coll_print */
#include "coll/store.h" /* COLL_NS_PLAYLISTS */
#include "app/app_play.h"
#include "ui/actions.h"
#include "ui/draw.h"
#include "ui/pane.h"
#include "ui/pane_playlist.h"
#include "ui/text.h"
#include "ui/ui_state.h"

static const struct coll_node *shown_node(struct ui *ui)
{
	const char *name = ui_playlist_shown(ui);
	return name ? app_playlist_get(ui->app, name) : NULL;
}

static void playlist_free(struct ui *ui)
{
	free(ui->pl_name);
	bitset_free(&ui->pl_match);
}

void playlist_find(struct ui *ui)
{
	double t0 = ui_now_ms();
	bitset_free(&ui->pl_match);
	ui->pl_have_match = false;
	const struct coll_node *n = shown_node(ui);
	if (!ui->qnode || !n)
		return;
	ui->pl_match_gen = app_store_generation(ui->app);
	struct crate_err err = {0};
	/* By entry: `3-7` marks entries 3 to 7 of this list (the spec). */
	if (app_eval_positions(ui->app, &ui->ecache, &n->idlist, ui->qnode, &ui->pl_match, &err) == 0) {
		ui->pl_have_match = true;
	} else {
		bitset_free(&ui->pl_match);
		ui_message(ui, true, "%s", err.msg);
	}
	ui->eval_ms += ui_now_ms() - t0;
	ui->dirty = true;
}

static long current_pos(const struct coll_node *n)
{
	const char *p = coll_attr_get(n, "position");
	return p ? strtol(p, NULL, 10) : -1;
}

static void playlist_draw(struct ui *ui, const struct ui_rect *r)
{
	const struct coll_node *n = shown_node(ui);
	const char *name = ui_playlist_shown(ui);
	int y = r->y, h = r->h;
	if (h <= 0)
		return;
	char head[900];
	if (!n) {
		draw_text(ui, y, r->x, r->w, " No playlist (the collection store is not open).",
			  theme_attr(UR_HINT));
		for (int i = 1; i < h; i++)
			draw_fill(y + i, r->x, r->w, 0);
		return;
	}
	const char *type = coll_attr_get(n, "type");
	bool party = type && strcmp(type, "pshuffle") == 0;
	const char *act = app_playlist_active(ui->app);
	bool active = act && strcmp(act, name) == 0;
	if (party) {
		char *src = n->noperands ? coll_print(n->operands[0], NULL) : NULL;
		snprintf(head, sizeof head, " Party Shuffle %s%s \xe2\x80\x93 %zu entries \xe2\x80\x93 from: %s",
			 name, active ? " (active)" : "", n->idlist.n, src ? src : "?");
		free(src);
	} else {
		snprintf(head, sizeof head, " Playlist %s%s%s \xe2\x80\x93 %zu entries", name,
			 type && strcmp(type, "queue") == 0 ? " [queue]" : "",
			 active ? " (active)" : "", n->idlist.n);
	}
	if (h >= 4) {
		draw_text(ui, y, r->x, r->w, head, theme_attr(UR_HEADER));
		y++;
		h--;
	}
	if (ui->pl_have_match && ui->pl_match_gen != app_store_generation(ui->app))
		playlist_find(ui); /* entries moved (played, edited): mark them again */
	long cur = current_pos(n);
	uint32_t playing = act_playing_id(ui);
	ui_list_fix(&ui->pl_list, n->idlist.n, h);
	for (int row = 0; row < h; row++) {
		size_t i = ui->pl_list.top + (size_t)row;
		if (i >= n->idlist.n) {
			draw_fill(y + row, r->x, r->w, 0);
			continue;
		}
		uint32_t id = n->idlist.v[i];
		char line[1200], title[512], art[256], dur[32], t[32];
		const char *artist = ui_prop(ui, id, "artist", art, sizeof art);
		ui_title(ui, id, title, sizeof title);
		const char *d = ui_prop(ui, id, "duration", dur, sizeof dur);
		ui_fmt_time(d ? strtoll(d, NULL, 10) : -1, t, sizeof t);
		bool here = (long)i == cur;
		bool missing = !app_has_media(ui->app, id);
		char stars[64];
		ui_rating_marks(ui, id, stars, sizeof stars);
		snprintf(line, sizeof line, "%c%4zu. %s%s%s%s", here ? '>' : ' ', i + 1,
			 artist ? artist : "", artist ? " \xe2\x80\x93 " : "", title,
			 missing ? "  (missing)" : "");
		int attr = 0;
		if (here || (playing && id == playing && cur < 0))
			attr = theme_attr(UR_PLAYING);
		else if (party && cur >= 0 && (long)i < cur)
			attr = theme_attr(UR_HINT); /* already played */
		if (ui->pl_have_match && bitset_test(&ui->pl_match, i))
			attr |= theme_attr(UR_MATCH);
		if (i == ui->pl_list.cur)
			attr = theme_attr(UR_SELECTED) | (here ? A_BOLD : 0);
		int tw = r->w >= 24 ? 8 : 0;
		int sw = tw && stars[0] ? (int)ui_text_width(stars) : 0;
		draw_text(ui, y + row, r->x, r->w - tw - sw, line, attr);
		if (sw)
			draw_text(ui, y + row, r->x + r->w - tw - sw, sw, stars, attr);
		if (tw) {
			char t8[16];
			snprintf(t8, sizeof t8, "%7s ", t);
			draw_text(ui, y + row, r->x + r->w - tw, tw, t8, attr);
		}
	}
	if (n->idlist.n == 0 && h > 0)
		draw_text(ui, y, r->x, r->w,
			  party ? " (empty: the source matches nothing yet)"
				: " (empty: 'a' in the browser adds tracks here)", theme_attr(UR_HINT));
}

static bool playlist_key(struct ui *ui, enum ui_action a)
{
	const struct coll_node *n = shown_node(ui);
	if (!n)
		return false;
	int h = ui->L.main.h >= 4 ? ui->L.main.h - 1 : ui->L.main.h;
	if (a == UA_MATCH_NEXT || a == UA_MATCH_PREV) {
		if (!ui->pl_have_match || !n->idlist.n)
			return true;
		for (size_t k = 1; k <= n->idlist.n; k++) {
			size_t i = a == UA_MATCH_NEXT ? (ui->pl_list.cur + k) % n->idlist.n
						      : (ui->pl_list.cur + n->idlist.n - k) % n->idlist.n;
			if (bitset_test(&ui->pl_match, i)) {
				ui->pl_list.cur = i;
				ui_list_fix(&ui->pl_list, n->idlist.n, h);
				break;
			}
		}
		return true;
	}
	return ui_list_move(&ui->pl_list, n->idlist.n, h, a);
}

static void playlist_play(struct ui *ui);

static bool playlist_click(struct ui *ui, int y, int x, bool dbl)
{
	(void)x;
	const struct coll_node *n = shown_node(ui);
	if (!n)
		return false;
	int top = ui->L.main.y + (ui->L.main.h >= 4 ? 1 : 0);
	if (y < top)
		return true;
	size_t i = ui->pl_list.top + (size_t)(y - top);
	if (i < n->idlist.n) {
		ui->pl_list.cur = i;
		if (dbl)
			playlist_play(ui);
	}
	return true;
}

/* Enter: play the list from the selected entry. */
static void playlist_play(struct ui *ui)
{
	const char *name = ui_playlist_shown(ui);
	if (!name)
		return;
	struct crate_err err = {0};
	if (app_play_collection(ui->app, COLL_NS_PLAYLISTS, name, ui->pl_list.cur, &err) != 0)
		ui_message(ui, true, "%s", err.msg);
	ui->dirty = true;
}

static void playlist_selection(struct ui *ui, struct u32vec *ids, size_t *start, bool one)
{
	(void)one;
	(void)start;
	const struct coll_node *n = shown_node(ui);
	if (n && ui->pl_list.cur < n->idlist.n)
		u32vec_push(ids, n->idlist.v[ui->pl_list.cur]);
}

static void playlist_remove(struct ui *ui)
{
	const char *name = ui_playlist_shown(ui);
	const struct coll_node *n = name ? app_playlist_get(ui->app, name) : NULL;
	if (!n || ui->pl_list.cur >= n->idlist.n)
		return;
	struct crate_err err = {0};
	if (app_playlist_remove_at(ui->app, name, ui->pl_list.cur, 1, &err) != 0)
		ui_message(ui, true, "%s", err.msg);
	ui->dirty = true;
}

static void playlist_heading(struct ui *ui, int w, char *buf, size_t size)
{
	(void)w;
	const char *name = ui_playlist_shown(ui);
	snprintf(buf, size, "%s ", name ? name : "");
}

const struct ui_pane ui_pane_playlist = {
	.title = " 2 Playlist ",
	.find_label = "find: ",
	.find_list = true,
	.draw = playlist_draw,
	.key = playlist_key,
	.click = playlist_click,
	.find = playlist_find,
	.heading = playlist_heading,
	.play = playlist_play,
	.remove = playlist_remove,
	.selection = playlist_selection,
	.free = playlist_free,
};
