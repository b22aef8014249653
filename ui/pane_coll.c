/* The collections list: All Media, saved collections, playlists (Party
 * Shuffle and queues marked, the active playlist starred). View 3 shows it
 * full width with each collection's query; on wide screens it is also a
 * sidebar of view 1. Enter browses a collection or opens a playlist. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_view.h"
#include "base/utf8.h"
#include "coll/parse.h"
#include "coll/store.h" /* COLL_NS_* */
#include "ui/draw.h"
#include "ui/find.h"
#include "ui/pane.h"
#include "ui/pane_coll.h"
#include "ui/text.h"
#include "ui/ui_state.h"

static void rows_free(struct ui *ui)
{
	for (size_t i = 0; i < ui->ncolls; i++) {
		free(ui->colls[i].ns);
		free(ui->colls[i].name);
		free(ui->colls[i].label);
		coll_node_unref(ui->colls[i].def);
	}
	free(ui->colls);
	ui->colls = NULL;
	ui->ncolls = 0;
}

static void coll_pane_free(struct ui *ui)
{
	rows_free(ui);
}

static void row_add(struct ui *ui, const char *ns, const char *name, const char *label)
{
	ui->colls = xreallocarray(ui->colls, ui->ncolls + 1, sizeof *ui->colls);
	struct ui_coll_row *r = &ui->colls[ui->ncolls++];
	memset(r, 0, sizeof *r);
	r->ns = ns ? xstrdup(ns) : NULL;
	r->name = name ? xstrdup(name) : NULL;
	r->label = xstrdup(label);
}

/* The name the cursor's row r has now: its own, or where it was renamed
 * to meanwhile (by :coll rename or another process), judged against the
 * names its namespace had at the last load. */
static char *row_name_now(struct ui *ui, const struct ui_coll_row *r)
{
	if (!r->name || !r->ns || !r->ns[0] || app_coll_get(ui->app, r->ns, r->name))
		return r->name ? xstrdup(r->name) : NULL;
	char **seen = xreallocarray(NULL, ui->ncolls, sizeof *seen);
	size_t nseen = 0;
	for (size_t i = 0; i < ui->ncolls; i++)
		if (ui->colls[i].name && ui->colls[i].ns && strcmp(ui->colls[i].ns, r->ns) == 0)
			seen[nseen++] = ui->colls[i].name;
	char *now = ui_coll_renamed(ui, r->ns, r->def, seen, nseen);
	free(seen);
	return now ? now : xstrdup(r->name);
}

static void coll_pane_reload(struct ui *ui)
{
	ui->colls_stale = false;
	char *keep_ns = NULL, *keep_name = NULL;
	size_t was = ui->coll_list.cur;
	if (ui->coll_list.cur < ui->ncolls) {
		struct ui_coll_row *r = &ui->colls[ui->coll_list.cur];
		keep_ns = r->ns ? xstrdup(r->ns) : NULL;
		keep_name = row_name_now(ui, r);
	}
	rows_free(ui);
	row_add(ui, NULL, "All Media", "All Media");
	if (app_has_store(ui->app)) {
		const char *active = app_playlist_active(ui->app);
		static const char *const nss[] = {COLL_NS_COLLECTIONS, COLL_NS_PLAYLISTS};
		for (int k = 0; k < 2; k++) {
			char **names = NULL;
			size_t n = app_coll_list(ui->app, nss[k], &names);
			row_add(ui, "", NULL, nss[k]);
			for (size_t i = 0; i < n; i++) {
				if (names[i][0] == '_') { /* internal entries such as _active */
					free(names[i]);
					continue;
				}
				row_add(ui, nss[k], names[i], names[i]);
				struct ui_coll_row *r = &ui->colls[ui->ncolls - 1];
				const struct coll_node *node = app_coll_get(ui->app, nss[k], names[i]);
				r->def = node ? coll_node_copy(node) : NULL;
				const char *type = node && node->type == COLL_IDLIST ? coll_attr_get(node, "type") : NULL;
				r->pshuffle = type && strcmp(type, "pshuffle") == 0;
				r->queue = type && strcmp(type, "queue") == 0;
				r->active = k == 1 && active && strcmp(active, names[i]) == 0;
				free(names[i]);
			}
			free(names);
		}
	}
	/* A row that went (renamed or removed elsewhere): its neighbour, as
	 * cmus keeps the place in a list that shrank, not the top. */
	ui->coll_list.cur = was < ui->ncolls ? was : ui->ncolls ? ui->ncolls - 1 : 0;
	while (ui->coll_list.cur > 0 && !ui->colls[ui->coll_list.cur].name)
		ui->coll_list.cur--; /* a namespace's heading is no row to stand on */
	for (size_t i = 0; i < ui->ncolls; i++) {
		struct ui_coll_row *r = &ui->colls[i];
		bool ns_eq = (!r->ns && !keep_ns) || (r->ns && keep_ns && strcmp(r->ns, keep_ns) == 0);
		bool name_eq = (!r->name && !keep_name) || (r->name && keep_name && strcmp(r->name, keep_name) == 0);
		if (ns_eq && name_eq && (keep_ns || keep_name)) {
			ui->coll_list.cur = i;
			break;
		}
	}
	free(keep_ns);
	free(keep_name);
	ui->dirty = true;
}

/* The rows, reloaded when collections changed since (ui_colls_changed). */
static void fresh(struct ui *ui)
{
	if (!ui->colls || ui->colls_stale)
		coll_pane_reload(ui);
}

static bool row_is_current(struct ui *ui, const struct ui_coll_row *r)
{
	if (!r->ns)
		return !ui->base_ns;
	return ui->base_ns && r->name && strcmp(r->ns, ui->base_ns) == 0 &&
	       strcmp(r->name, ui->base_name) == 0;
}

static bool row_matches_find(struct ui *ui, const struct ui_coll_row *r)
{
	const char *q = ui->good_query;
	if (!q || !*q || !r->name)
		return false;
	char *fq = utf8_fold(q, strlen(q), NULL), *fn = utf8_fold(r->name, strlen(r->name), NULL);
	bool m = strstr(fn, fq) != NULL;
	free(fq);
	free(fn);
	return m;
}

/* full: view 3 (with each collection's query, the find marked); else
 * the browser's sidebar. */
static void coll_draw(struct ui *ui, const struct ui_rect *r, bool full)
{
	fresh(ui);
	ui_list_fix(&ui->coll_list, ui->ncolls, r->h);
	bool focused = full;
	for (int row = 0; row < r->h; row++) {
		size_t i = ui->coll_list.top + (size_t)row;
		int y = r->y + row;
		if (i >= ui->ncolls) {
			draw_fill(y, r->x, r->w, 0);
			if (!full)
				draw_text(ui, y, r->x + r->w - 1, 1, "\xe2\x94\x82", theme_attr(UR_HINT));
			continue;
		}
		const struct ui_coll_row *c = &ui->colls[i];
		char line[700];
		int attr = 0;
		if (c->ns && !c->ns[0]) {
			snprintf(line, sizeof line, "%s", c->label);
			attr = theme_attr(UR_HEADER);
		} else {
			const char *mark = c->pshuffle ? " [party]" : c->queue ? " [queue]" : "";
			/* Not the playing glyph: a collection is current, a track plays. */
			const char *here = row_is_current(ui, c) ? ui_glyph(ui, UI_GLYPH_CURRENT) : " ";
			snprintf(line, sizeof line, "%s%s%s%s", here, c->ns ? " " : "", c->label, mark);
			if (c->active)
				snprintf(line + strlen(line), sizeof line - strlen(line), " *");
			if (full && row_matches_find(ui, c))
				attr |= theme_attr(UR_MATCH);
			if (row_is_current(ui, c))
				attr |= A_BOLD;
		}
		if (full && i == ui->coll_list.cur)
			attr = theme_attr(focused ? UR_SELECTED : UR_SELECTED_DIM);
		else if (!full && row_is_current(ui, c))
			attr = theme_attr(UR_SELECTED_DIM);
		int lw = full ? r->w * 2 / 5 : r->w - 1;
		if (lw < 12)
			lw = r->w;
		draw_text(ui, y, r->x, lw, line, attr);
		if (!full) {
			draw_text(ui, y, r->x + r->w - 1, 1, "\xe2\x94\x82", theme_attr(UR_HINT));
			continue;
		}
		if (lw >= r->w)
			continue;
		/* View 3: what the collection is, as a query. */
		char desc[800] = "";
		const struct coll_node *node = c->ns && c->ns[0] ? app_coll_get(ui->app, c->ns, c->name)
								 : NULL;
		if (!c->ns) {
			snprintf(desc, sizeof desc, "*  (the whole library)");
		} else if (node && node->type == COLL_IDLIST) {
			char *src = c->pshuffle && node->noperands ? coll_print(node->operands[0], NULL) : NULL;
			const char *entries = str_plural(node->idlist.n, "entry", "entries");
			double drift;
			bool smooth = c->pshuffle && app_pshuffle_smooth(node, &drift);
			if (smooth)
				snprintf(desc, sizeof desc,
					 "%zu %s, refilled from: %s (upcoming %ld, smooth, drift %.2f)",
					 node->idlist.n, entries, src ? src : "?",
					 app_pshuffle_upcoming(ui->app, node), drift);
			else if (c->pshuffle)
				snprintf(desc, sizeof desc, "%zu %s, refilled from: %s (upcoming %ld)",
					 node->idlist.n, entries, src ? src : "?",
					 app_pshuffle_upcoming(ui->app, node));
			else
				snprintf(desc, sizeof desc, "%zu %s", node->idlist.n, entries);
			free(src);
		} else if (node) {
			char *q = coll_print(node, NULL);
			snprintf(desc, sizeof desc, "%s", q ? q : "(not expressible as text)");
			free(q);
		}
		draw_text(ui, y, r->x + lw, r->w - lw, desc,
			  i == ui->coll_list.cur ? attr : theme_attr(UR_HINT));
	}
}

static void open_row(struct ui *ui, size_t i)
{
	if (i >= ui->ncolls)
		return;
	struct ui_coll_row *c = &ui->colls[i];
	if (c->ns && !c->ns[0])
		return;
	if (c->ns && strcmp(c->ns, COLL_NS_PLAYLISTS) == 0)
		ui_open_playlist(ui, c->name);
	else
		ui_browse(ui, c->ns, c->name, NULL);
}

/* Enter: browse the selected collection or open the playlist. */
static void coll_play(struct ui *ui)
{
	fresh(ui);
	open_row(ui, ui->coll_list.cur);
}

static bool coll_row_matches(struct ui *ui, size_t i, void *ctx)
{
	(void)ctx;
	return row_matches_find(ui, &ui->colls[i]);
}

static bool coll_find_rows(struct ui *ui, struct ui_find_rows *f)
{
	fresh(ui);
	*f = (struct ui_find_rows){ui->ncolls, ui->L.main.h, &ui->coll_list, coll_row_matches, NULL};
	return true;
}

static bool coll_key(struct ui *ui, enum ui_action a)
{
	int h = ui->L.main.h;
	fresh(ui);
	if (a == UA_MATCH_NEXT || a == UA_MATCH_PREV)
		return ui_find_step(ui, a == UA_MATCH_NEXT ? 1 : -1);
	size_t before = ui->coll_list.cur;
	bool moved = ui_list_move(&ui->coll_list, ui->ncolls, h, a);
	/* Headings are not rows to stand on: step over them. */
	struct ui_coll_row *c = ui->coll_list.cur < ui->ncolls ? &ui->colls[ui->coll_list.cur] : NULL;
	if (c && c->ns && !c->ns[0]) {
		bool up = ui->coll_list.cur < before;
		if (up && ui->coll_list.cur > 0)
			ui->coll_list.cur--;
		else if (!up && ui->coll_list.cur + 1 < ui->ncolls)
			ui->coll_list.cur++;
		ui_list_fix(&ui->coll_list, ui->ncolls, h);
	}
	return moved;
}

/* A click on row y of r: select; open at once when asked to. */
static bool click_row(struct ui *ui, const struct ui_rect *r, int y, bool open)
{
	fresh(ui);
	size_t i = ui->coll_list.top + (size_t)(y - r->y);
	if (i >= ui->ncolls)
		return true;
	ui->coll_list.cur = i;
	if (open)
		open_row(ui, i);
	ui->dirty = true;
	return true;
}

static bool coll_click(struct ui *ui, int y, int x, bool dbl)
{
	(void)x;
	return click_row(ui, &ui->L.main, y, dbl);
}

/* The selected row, for removal: returns false for All Media and headings. */
static struct ui_coll_row *selected_row(struct ui *ui)
{
	if (ui->coll_list.cur >= ui->ncolls)
		return NULL;
	struct ui_coll_row *c = &ui->colls[ui->coll_list.cur];
	return c->ns && c->ns[0] ? c : NULL;
}

/* y: the collection the question named, not the row under the cursor
 * now: the rows reload when another process changes them, and with the
 * one asked about removed there, the cursor stands on its neighbour. */
static void coll_remove_confirmed(struct ui *ui)
{
	if (!ui->prompt_arg || !app_has_store(ui->app))
		return;
	char *ns, *name;
	struct crate_err err = {0};
	/* Through the app: a collection used by a rule is refused (the message
	 * names the rule), as with `crate coll remove`. */
	if (coll_name_split(ui->prompt_arg, &ns, &name, &err) != 0 ||
	    app_coll_remove(ui->app, ns, name, false, &err) != 0) {
		ui_message(ui, true, "%s", err.msg);
	} else {
		ui_message(ui, false, "removed %s/%s", ns, name);
		if (ui->base_ns && strcmp(ui->base_ns, ns) == 0 && strcmp(ui->base_name, name) == 0) {
			free(ui->base_ns);
			free(ui->base_name);
			ui->base_ns = ui->base_name = NULL;
			ui_refresh_browser(ui);
		}
	}
	free(ns);
	free(name);
	coll_pane_reload(ui);
}

/* d: asks first. */
static void coll_remove(struct ui *ui)
{
	fresh(ui);
	struct ui_coll_row *c = selected_row(ui);
	if (!c) {
		ui_message(ui, true, "All Media is built in and cannot be removed");
		return;
	}
	char q[600];
	snprintf(q, sizeof q, "%s/%s", c->ns, c->name);
	prompt_begin(ui, UI_PROMPT_REMOVE_COLL, q, NULL);
}

/* a e *: the tracks of the collection or playlist under the cursor, in
 * its order (All Media's too), as Enter would browse or open them. */
static void coll_selection(struct ui *ui, struct u32vec *ids, size_t *start, bool one)
{
	(void)one;
	*start = 0;
	fresh(ui);
	if (ui->coll_list.cur >= ui->ncolls)
		return;
	const struct ui_coll_row *c = &ui->colls[ui->coll_list.cur];
	if (c->ns && !c->ns[0])
		return; /* a heading */
	struct coll_result r = {0};
	struct crate_err err = {0};
	if (app_eval_named(ui->app, c->ns, c->name, &r, &err) != 0) {
		ui_message(ui, true, "%s", err.msg);
		return;
	}
	for (size_t i = 0; i < r.ids.n; i++)
		u32vec_push(ids, r.ids.v[i]);
	coll_result_free(&r);
}

static void coll_draw_full(struct ui *ui, const struct ui_rect *r)
{
	coll_draw(ui, r, true);
}

const struct ui_pane ui_pane_collections = {
	.title = "Collections",
	.find_label = "find: ",
	.draw = coll_draw_full,
	.key = coll_key,
	.click = coll_click,
	.find_rows = coll_find_rows,
	.find_info = ui_find_count,
	.heading = ui_browse_heading,
	.enter = coll_pane_reload,
	.play = coll_play,
	.remove = coll_remove,
	.selection = coll_selection,
	.confirm = coll_remove_confirmed,
	.free = coll_pane_free,
};

/* ---- the browser's sidebar: the same rows, narrow; a click opens ---- */

static void sidebar_draw(struct ui *ui, const struct ui_rect *r)
{
	coll_draw(ui, r, false);
}

static bool sidebar_click(struct ui *ui, int y, int x, bool dbl)
{
	(void)x;
	(void)dbl;
	return click_row(ui, &ui->L.sidebar, y, true);
}

const struct ui_pane ui_pane_sidebar = {
	.draw = sidebar_draw,
	.click = sidebar_click,
};
