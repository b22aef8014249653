/* View 5: the file system, from the library's roots (cmus's view 5).
 * Folders first, then files, in natural order; files that are library
 * items are marked, folders say how many items they hold. Enter plays a
 * file or opens a folder, Backspace / h / Left go up, a and e add what
 * the cursor is on to the playlist or the queue, A scans it into the
 * library. The folder is read and sorted once (base/dirlist.h); the
 * search bar filters it by name. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_files.h"
#include "app/app_play.h"
#include "app/app_plfile.h"
#include "app/app_view.h"
#include "base/dirlist.h"
#include "ui/actions.h"
#include "ui/draw.h"
#include "ui/pane.h"
#include "ui/pane_files.h"
#include "ui/text.h"
#include "ui/ui_state.h"

/* The view's own state: one interface per process, main thread only. */
static struct files_state {
	struct dirlist dl;
	bool loaded;
	bool show_hidden;
	size_t *vis;         /* entries shown, by index into dl.v */
	size_t nvis;
	char *vis_find;      /* the find vis was made for (owned) */
	bool vis_stale;
	unsigned index_gen;  /* the index the marks come from */
	struct ui_list list;
} F;

/* The entries to show; the cursor stays on its entry when that is still
 * shown, else it goes to the first row. */
static void set_visible(const char *find)
{
	size_t keep = F.list.cur < F.nvis ? F.vis[F.list.cur] : SIZE_MAX;
	free(F.vis);
	F.vis = xcalloc(F.dl.n ? F.dl.n : 1, sizeof *F.vis);
	F.nvis = dirlist_visible(&F.dl, F.show_hidden, find, F.vis);
	free(F.vis_find);
	F.vis_find = xstrdup(find ? find : "");
	F.vis_stale = false;
	F.list.cur = 0;
	for (size_t i = 0; i < F.nvis; i++)
		if (F.vis[i] == keep)
			F.list.cur = i;
}

static void refresh_visible(struct ui *ui)
{
	const char *find = ui->good_query ? ui->good_query : "";
	if (F.vis_stale || !F.vis_find || strcmp(find, F.vis_find) != 0)
		set_visible(find);
}

static struct dirlist_entry *cursor_entry(void)
{
	return F.list.cur < F.nvis ? &F.dl.v[F.vis[F.list.cur]] : NULL;
}

/* Put the cursor on the entry called name, if it is shown. */
static void select_name(const char *name)
{
	for (size_t i = 0; name && i < F.nvis; i++) {
		if (strcmp(F.dl.v[F.vis[i]].name, name) == 0) {
			F.list.cur = i;
			return;
		}
	}
}

/* Show the folder at path; an unreadable one leaves the view where it
 * was and says why. keep: the name to put the cursor on. */
static bool open_dir(struct ui *ui, const char *path, const char *keep)
{
	struct dirlist dl;
	struct crate_err err = {0};
	if (dirlist_read(path, &dl, &err) != 0) {
		ui_message(ui, true, "cannot open %s", err.msg);
		return false;
	}
	bool moved = !F.dl.path || strcmp(F.dl.path, dl.path) != 0;
	dirlist_free(&F.dl);
	F.dl = dl;
	F.loaded = true;
	if (moved && ui->query.len) {
		/* The find was for the folder left behind. */
		strbuf_reset(&ui->query);
		ui->qcur = 0;
		ui_search_apply(ui);
	}
	app_files_mark(ui->app, &F.dl);
	F.index_gen = app_index_generation(ui->app);
	F.list = (struct ui_list){0};
	F.nvis = 0; /* the old rows mean nothing in this folder */
	F.vis_stale = true;
	refresh_visible(ui);
	select_name(keep);
	ui->dirty = true;
	return true;
}

static void files_enter(struct ui *ui)
{
	if (F.loaded) {
		/* Shown again: read the folder again (files come and go). */
		struct dirlist_entry *e = cursor_entry();
		char *keep = e ? xstrdup(e->name) : NULL;
		char *path = xstrdup(F.dl.path);
		open_dir(ui, path, keep);
		free(path);
		free(keep);
		return;
	}
	char *start = app_files_start(ui->app);
	const char *home = getenv("HOME");
	if (!open_dir(ui, start, NULL) && !(home && open_dir(ui, home, NULL)))
		open_dir(ui, "/", NULL);
	free(start);
}

static void go_up(struct ui *ui)
{
	if (!F.loaded || strcmp(F.dl.path, "/") == 0)
		return;
	char *parent = dirlist_parent(F.dl.path);
	const char *slash = strrchr(F.dl.path, '/');
	char *child = xstrdup(slash ? slash + 1 : F.dl.path);
	open_dir(ui, parent, child);
	free(parent);
	free(child);
}

static char *cursor_path(void)
{
	struct dirlist_entry *e = cursor_entry();
	return e ? dirlist_join(F.dl.path, e->name) : NULL;
}

static void go_into(struct ui *ui)
{
	struct dirlist_entry *e = cursor_entry();
	if (!e || !e->dir)
		return;
	char *path = cursor_path();
	open_dir(ui, path, NULL);
	free(path);
}

/* Enter on a playlist file (.m3u, .pls, .xspf): its entries, as crate
 * play FILE plays them (it was opened as audio, "Invalid data found when
 * processing input"); the first entry left out, and how many, said. */
static int play_playlist_file(struct ui *ui, const char *path, struct crate_err *err)
{
	struct app_plfile_list l = {0};
	struct app_import_report rep;
	int rc = app_playlist_file_entries(ui->app, path, &l, &rep, err);
	if (rc == 0)
		rc = app_play_list(ui->app, l.ids, (const char *const *)l.paths, l.n, 0, err);
	if (rc == 0 && rep.nproblems)
		ui_message(ui, true, "line %zu: %s%s", rep.problems[0].line, rep.problems[0].what,
			   rep.nproblems > 1 ? " (and more entries not playable)" : "");
	if (rc == 0)
		app_import_report_free(&rep);
	app_plfile_list_free(&l);
	return rc;
}

/* Enter: open a folder, play a file (a library item as itself, a
 * playlist file as its entries, any other file by its path). */
static void files_play(struct ui *ui)
{
	struct dirlist_entry *e = cursor_entry();
	if (!e)
		return;
	if (e->dir) {
		go_into(ui);
		return;
	}
	char *path = cursor_path();
	const char *paths[1] = {path};
	struct u32vec ids = {0};
	app_files_items(ui->app, path, &ids);
	struct crate_err err = {0};
	/* the file from its start (a cue sheet's first track) */
	int rc = ids.n ? app_play_list(ui->app, ids.v, NULL, ids.n, 0, &err)
		 : plfile_format_of_name(path) != PLFILE_UNKNOWN
			 ? play_playlist_file(ui, path, &err)
			 : app_play_list(ui->app, (const uint32_t[1]){0}, paths, 1, 0, &err);
	if (rc != 0)
		ui_message(ui, true, "%s", err.msg);
	u32vec_free(&ids);
	free(path);
	ui->dirty = true;
}

/* A: scan the folder (or file) under the cursor into the library, the
 * way :scan does; with nothing under the cursor, the folder shown. */
static void library_add(struct ui *ui)
{
	char *path = cursor_path();
	if (!path && F.loaded)
		path = xstrdup(F.dl.path);
	if (!path)
		return;
	char *paths[1] = {path};
	act_scan(ui, paths, 1);
	free(path);
}

static void files_selection(struct ui *ui, struct u32vec *ids, size_t *start, bool one)
{
	(void)start;
	(void)one;
	char *path = cursor_path();
	if (path)
		app_files_items(ui->app, path, ids);
	free(path);
}

static bool files_key_first(struct ui *ui, enum ui_action a)
{
	struct dirlist_entry *e = cursor_entry();
	switch (a) {
	case UA_PARENT:
	case UA_COL_PREV:
	case UA_SEEK_BACK:
		go_up(ui);
		return true;
	case UA_COL_NEXT:
	case UA_SEEK_FWD:
		go_into(ui);
		return true;
	case UA_HIDDEN:
		F.show_hidden = !F.show_hidden;
		F.vis_stale = true;
		refresh_visible(ui);
		ui_message(ui, false, F.show_hidden ? "hidden files shown" : "hidden files hidden");
		return true;
	case UA_LIBRARY_ADD:
		library_add(ui);
		return true;
	case UA_RATE:
		if (e && e->dir) {
			ui_message(ui, false, "* rates a file (a folder's tracks are rated one by one)");
			return true;
		}
		return false;
	case UA_ADD:
	case UA_ENQUEUE:
		/* Nothing of it in the library: say what would help. */
		if (e && (e->dir ? !e->count : !e->id)) {
			ui_message(ui, true, "%s is not in the library (A adds it)",
				   e->dir ? "this folder" : "this file");
			return true;
		}
		return false;
	default:
		return false;
	}
}

static int list_height(const struct ui *ui)
{
	return ui->L.main.h >= 4 ? ui->L.main.h - 1 : ui->L.main.h;
}

static bool files_key(struct ui *ui, enum ui_action a)
{
	return ui_list_move(&F.list, F.nvis, list_height(ui), a);
}

static void draw_row(struct ui *ui, int y, const struct ui_rect *r, size_t i, uint32_t playing)
{
	const struct dirlist_entry *e = &F.dl.v[F.vis[i]];
	const char *mark = !e->id ? " " : ui->ascii ? "+" : "\xe2\x9c\x93"; /* ✓ */
	bool here = playing && e->id == playing;
	char line[1100], right[32] = "";
	snprintf(line, sizeof line, "%s%s %s%s", here ? ui_glyph(ui, UI_GLYPH_PLAYING) : " ", mark,
		 e->name, e->dir ? "/" : "");
	if (e->dir && e->count)
		snprintf(right, sizeof right, " %u item%s ", e->count, e->count == 1 ? "" : "s");
	int attr = here ? theme_attr(UR_PLAYING) : e->dir ? (int)A_BOLD : 0;
	if (i == F.list.cur)
		attr = theme_attr(UR_SELECTED);
	int rw = right[0] && r->w >= 40 ? (int)strlen(right) : 0;
	draw_text(ui, y, r->x, r->w - rw, line, attr);
	if (rw)
		draw_text(ui, y, r->x + r->w - rw, rw, right, attr);
}

static void files_draw(struct ui *ui, const struct ui_rect *r)
{
	int y = r->y, h = r->h;
	if (h <= 0)
		return;
	if (!F.loaded)
		files_enter(ui);
	if (F.index_gen != app_index_generation(ui->app)) {
		app_files_mark(ui->app, &F.dl); /* a scan ended: new marks */
		F.index_gen = app_index_generation(ui->app);
	}
	refresh_visible(ui);
	if (h >= 4) {
		size_t dirs = 0, files = 0, lib = 0;
		for (size_t i = 0; i < F.dl.n; i++) {
			const struct dirlist_entry *e = &F.dl.v[i];
			if (e->hidden && !F.show_hidden)
				continue; /* the folder as shown, whatever the find */
			dirs += e->dir;
			files += !e->dir;
			lib += e->id != 0;
		}
		char head[1200];
		snprintf(head, sizeof head, " %s \xe2\x80\x93 %zu folder%s, %zu file%s, %zu in the library%s",
			 F.dl.path ? F.dl.path : "", dirs, dirs == 1 ? "" : "s", files,
			 files == 1 ? "" : "s", lib, F.show_hidden ? " (hidden shown)" : "");
		draw_text(ui, y, r->x, r->w, head, theme_attr(UR_HEADER));
		y++;
		h--;
	}
	ui_list_fix(&F.list, F.nvis, h);
	uint32_t playing = act_playing_id(ui);
	for (int row = 0; row < h; row++) {
		size_t i = F.list.top + (size_t)row;
		if (i < F.nvis)
			draw_row(ui, y + row, r, i, playing);
		else
			draw_fill(y + row, r->x, r->w, 0);
	}
	if (!F.nvis && h > 0)
		draw_text(ui, y, r->x, r->w,
			  F.dl.n ? " (nothing shown: . shows hidden files, Esc clears the search)"
				 : " (empty folder)", theme_attr(UR_HINT));
}

static bool files_click(struct ui *ui, int y, int x, bool dbl)
{
	(void)x;
	int top = ui->L.main.y + (ui->L.main.h >= 4 ? 1 : 0);
	if (y < top)
		return true;
	size_t i = F.list.top + (size_t)(y - top);
	if (i < F.nvis) {
		F.list.cur = i;
		if (dbl)
			files_play(ui);
	}
	return true;
}

static void files_find_info(struct ui *ui, char *buf, size_t size)
{
	refresh_visible(ui);
	snprintf(buf, size, "%zu of %zu", F.nvis, F.dl.n);
}

static void files_heading(struct ui *ui, int w, char *buf, size_t size)
{
	(void)ui;
	(void)w;
	snprintf(buf, size, "%s ", F.dl.path ? F.dl.path : "");
}

static void files_free(struct ui *ui)
{
	(void)ui;
	dirlist_free(&F.dl);
	free(F.vis);
	free(F.vis_find);
	F = (struct files_state){0};
}

const struct ui_pane ui_pane_files = {
	.title = "Files",
	.hint = "{play} play/open  {parent} up  {add} add  {enqueue} queue  {library_add} add to library  "
		"{hidden} hidden  {search} find",
	.find_label = "find: ",
	.draw = files_draw,
	.key_first = files_key_first,
	.key = files_key,
	.click = files_click,
	.find_info = files_find_info,
	.heading = files_heading,
	.enter = files_enter,
	.play = files_play,
	.selection = files_selection,
	.free = files_free,
};
