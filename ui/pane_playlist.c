/* View 2: a playlist (the active one unless another was opened from the
 * collections view), Party Shuffle included: its header names the source
 * collection (and smooth mode), and the list refills as tracks are played. The search bar
 * here is a find: matching rows are marked, n/N jump between them, and
 * the bar counts them. It forgives as the browser's search does (a typo,
 * `a:bjork`), so a word that found the track there finds its entry here. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h" /* app_pshuffle_smooth */
#include "app/app_view.h"
#include "coll/parse.h" /* coll_print */
#include "coll/store.h" /* COLL_NS_PLAYLISTS */
#include "app/app_play.h"
#include "ui/actions.h"
#include "ui/draw.h"
#include "ui/find.h"
#include "ui/pane.h"
#include "ui/pane_playlist.h"
#include "ui/text.h"
#include "ui/ui_state.h"

static const struct coll_node *shown_node(struct ui *ui)
{
	const char *name = ui_playlist_shown(ui);
	return name ? app_playlist_get(ui->app, name) : NULL;
}

/* How much entry j of now looks like entry cur of was: its neighbours
 * (three each side) that are the same tracks at the same distance. */
static int context_score(const struct u32vec *was, size_t cur, const struct u32vec *now, size_t j)
{
	int score = 0;
	for (long d = -3; d <= 3; d++) {
		long a = (long)cur + d, b = (long)j + d;
		if (d != 0 && a >= 0 && b >= 0 && (size_t)a < was->n && (size_t)b < now->n)
			score += was->v[a] == now->v[b];
	}
	return score;
}

/* Where entry cur of was (the k-th repeat of its track) is in now: among
 * the repeats of the track, the one whose neighbours are most like its
 * own, then the k-th, then the nearest. Neighbours tell the right repeat
 * when earlier ones went: a Party Shuffle drops its played entries from
 * the top, so the k-th repeat may be another one or none at all. SIZE_MAX
 * when the track is no longer in the list. */
static size_t entry_now(const struct u32vec *was, size_t cur, const struct u32vec *now)
{
	uint32_t id = was->v[cur];
	size_t k = 0, rank = 0, best = SIZE_MAX;
	int best_score = -1;
	for (size_t i = 0; i < cur; i++)
		k += was->v[i] == id;
	for (size_t j = 0; j < now->n; j++) {
		if (now->v[j] != id)
			continue;
		int score = context_score(was, cur, now, j) * 4 + (rank++ == k) * 2;
		size_t dist = j > cur ? j - cur : cur - j, best_dist = best > cur ? best - cur : cur - best;
		if (score > best_score || (score == best_score && dist < best_dist)) {
			best = j;
			best_score = score;
		}
	}
	return best;
}

/* ---- marks (by position) ---- */

static void marks_forget(struct ui *ui)
{
	marks_clear(&ui->pl_marks);
	ui->pl_marks_list.n = 0;
	free(ui->pl_marks_name);
	ui->pl_marks_name = NULL;
}

/* The marks index this list (name, n) as it is now: remember it. */
static void marks_note(struct ui *ui, const char *name, const struct coll_node *n)
{
	if (!ui->pl_marks_name || strcmp(ui->pl_marks_name, name) != 0) {
		free(ui->pl_marks_name);
		ui->pl_marks_name = xstrdup(name);
	}
	ui->pl_marks_list.n = 0;
	u32vec_reserve(&ui->pl_marks_list, n->idlist.n + 1);
	if (n->idlist.n)
		memcpy(ui->pl_marks_list.v, n->idlist.v, n->idlist.n * sizeof *n->idlist.v);
	ui->pl_marks_list.n = n->idlist.n;
}

/* The list changed under its marks (the queue played on, a Party
 * Shuffle refill, another program's edit): each mark goes with its
 * entry, as the cursor does (entry_now); one whose entry went is dropped. */
static void marks_follow(struct ui *ui, const char *name, const struct coll_node *n)
{
	size_t *pos, np = marks_list(&ui->pl_marks, ui->pl_marks_list.n, &pos);
	struct ui_marks now = {0};
	for (size_t k = 0; k < np; k++) {
		size_t i = entry_now(&ui->pl_marks_list, pos[k], &n->idlist);
		if (i != SIZE_MAX)
			marks_set(&now, i, true);
	}
	free(pos);
	marks_clear(&ui->pl_marks);
	ui->pl_marks = now;
	marks_note(ui, name, n);
}

/* The marks of the list shown, following their entries when the list
 * changed under them; they go when another list is shown. */
static struct ui_marks *marks_of(struct ui *ui, const char *name, const struct coll_node *n)
{
	if (!ui->pl_marks.n)
		return &ui->pl_marks;
	if (!n || !name || !ui->pl_marks_name || strcmp(ui->pl_marks_name, name) != 0) {
		marks_forget(ui);
		return &ui->pl_marks;
	}
	bool same = ui->pl_marks_list.n == n->idlist.n &&
		    (!n->idlist.n || memcmp(ui->pl_marks_list.v, n->idlist.v,
					    n->idlist.n * sizeof *n->idlist.v) == 0);
	if (!same)
		marks_follow(ui, name, n);
	return &ui->pl_marks;
}

/* The positions an action takes: the marks, else the cursor row. Owned;
 * 0 when the list is empty. */
static size_t target_positions(struct ui *ui, const char *name, const struct coll_node *n,
			       size_t **pos, bool *marked)
{
	struct ui_marks *m = marks_of(ui, name, n);
	*marked = m->n > 0;
	if (*marked)
		return marks_list(m, n->idlist.n, pos);
	*pos = xmalloc(sizeof **pos);
	if (ui->pl_list.cur >= n->idlist.n)
		return 0;
	(*pos)[0] = ui->pl_list.cur;
	return 1;
}

static void playlist_free(struct ui *ui)
{
	free(ui->pl_name);
	bitset_free(&ui->pl_match);
	free(ui->pl_match_name);
	free(ui->pl_note);
	marks_forget(ui);
	u32vec_free(&ui->pl_marks_list);
	u32vec_free(&ui->pl_seen);
	free(ui->pl_seen_name);
}

/* The list changed under the cursor (another program's move or removal,
 * a Party Shuffle refill, the queue played on): keep the cursor on the
 * entry it was on, as cmus and ncmpcpp do, the row where it was on the
 * screen; an entry that went leaves the cursor at its place. A cursor
 * moved since (an edit here put it) is left alone. Among repeats of a
 * track, entry_now tells which is the entry. */
static void cursor_follow(struct ui *ui, const char *name, const struct coll_node *n)
{
	struct u32vec *seen = &ui->pl_seen;
	bool same_list = ui->pl_seen_name && strcmp(ui->pl_seen_name, name) == 0;
	unsigned gen = app_store_generation(ui->app);
	if (same_list && gen && gen == ui->pl_seen_gen)
		return; /* no list changed since: no compare and copy on every frame */
	size_t cur = ui->pl_list.cur;
	if (same_list && cur == ui->pl_seen_cur && cur < seen->n &&
	    (seen->n != n->idlist.n ||
	     memcmp(seen->v, n->idlist.v, n->idlist.n * sizeof *n->idlist.v) != 0)) {
		size_t i = entry_now(seen, cur, &n->idlist);
		if (i != SIZE_MAX) {
			size_t row = cur >= ui->pl_list.top ? cur - ui->pl_list.top : 0;
			ui->pl_list.cur = i;
			ui->pl_list.top = i >= row ? i - row : 0;
		}
	}
	if (!same_list) {
		free(ui->pl_seen_name);
		ui->pl_seen_name = xstrdup(name);
	}
	seen->n = 0;
	u32vec_reserve(seen, n->idlist.n + 1);
	if (n->idlist.n)
		memcpy(seen->v, n->idlist.v, n->idlist.n * sizeof *n->idlist.v);
	seen->n = n->idlist.n;
	ui->pl_seen_gen = gen;
}

void playlist_find(struct ui *ui)
{
	double t0 = ui_now_ms();
	bitset_free(&ui->pl_match);
	ui->pl_have_match = false;
	ui->pl_nmatch = 0;
	free(ui->pl_note);
	ui->pl_note = NULL;
	const struct coll_node *n = shown_node(ui);
	if (!ui->qnode || !ui->qlist || !n) /* qnode: another view's search */
		return;
	ui->pl_match_gen = app_store_generation(ui->app);
	free(ui->pl_match_name);
	ui->pl_match_name = xstrdup(ui_playlist_shown(ui));
	struct crate_err err = {0};
	struct strbuf notes;
	strbuf_init(&notes, 0);
	/* By entry: `3-7` marks entries 3 to 7 of this list (the spec). */
	if (app_eval_positions(ui->app, &ui->ecache, &n->idlist, ui->qnode, ui->good_query,
			       &ui->pl_match, &notes, &err) == 0) {
		ui->pl_have_match = true;
		for (size_t i = 0; i < n->idlist.n; i++)
			ui->pl_nmatch += bitset_test(&ui->pl_match, i);
		if (notes.len)
			ui->pl_note = xstrdup(notes.buf);
	} else {
		bitset_free(&ui->pl_match);
		ui_message(ui, true, "%s", err.msg);
	}
	strbuf_free(&notes);
	ui->eval_ms += ui_now_ms() - t0;
	ui->dirty = true;
}

/* The find's marks are positions in the list shown as it is now: made
 * again when its entries moved (played, edited) or another list is shown
 * (Q, a playlist opened or renamed, the queue played out). */
static void matches_fresh(struct ui *ui)
{
	const char *name = ui_playlist_shown(ui);
	if (ui->pl_have_match && (ui->pl_match_gen != app_store_generation(ui->app) || !name ||
				  strcmp(name, ui->pl_match_name) != 0))
		playlist_find(ui);
}

static long current_pos(const struct coll_node *n)
{
	const char *p = coll_attr_get(n, "position");
	return p ? strtol(p, NULL, 10) : -1;
}

/* What fills an empty list, with the key as bound: add reaches only the
 * active playlist, enqueue only the queue. */
static void empty_hint(struct ui *ui, const char *name, bool party, bool active, char *buf,
		       size_t size)
{
	const char *how = party ? " (empty: the source matches nothing yet)"
			  : strcmp(name, APP_QUEUE_NAME) == 0
				  ? " (empty: {enqueue} in the browser appends tracks here)"
			  : active ? " (empty: {add} in the browser adds tracks here)"
				   : " (empty: {add} in the browser adds to the active playlist;"
				     " :playlist use makes this one active)";
	keymap_expand(&ui->km, how, false, buf, size);
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
	const char *entries = str_plural(n->idlist.n, "entry", "entries");
	if (party) {
		char *src = n->noperands ? coll_print(n->operands[0], NULL) : NULL;
		char how[48] = ""; /* smooth mode changes every pick: say so */
		double drift;
		if (app_pshuffle_smooth(n, &drift))
			snprintf(how, sizeof how, " \xe2\x80\x93 smooth, drift %.2f", drift);
		snprintf(head, sizeof head,
			 " Party Shuffle %s%s%s \xe2\x80\x93 %zu %s \xe2\x80\x93 from: %s", name,
			 active ? " (active)" : "", how, n->idlist.n, entries, src ? src : "?");
		free(src);
	} else {
		snprintf(head, sizeof head, " Playlist %s%s%s \xe2\x80\x93 %zu %s", name,
			 type && strcmp(type, "queue") == 0 ? " [queue]" : "",
			 active ? " (active)" : "", n->idlist.n, entries);
	}
	if (h >= 4) {
		draw_text(ui, y, r->x, r->w, head, theme_attr(UR_HEADER));
		y++;
		h--;
	}
	matches_fresh(ui);
	long cur = current_pos(n);
	uint32_t playing = act_playing_id(ui);
	const struct ui_marks *marks = marks_of(ui, name, n);
	cursor_follow(ui, name, n);
	ui_list_fix(&ui->pl_list, n->idlist.n, h);
	ui->pl_seen_cur = ui->pl_list.cur;
	struct strbuf left, right;
	strbuf_init(&left, 256);
	strbuf_init(&right, 64);
	for (int row = 0; row < h; row++) {
		size_t i = ui->pl_list.top + (size_t)row;
		if (i >= n->idlist.n) {
			draw_fill(y + row, r->x, r->w, 0);
			continue;
		}
		uint32_t id = n->idlist.v[i];
		bool here = (long)i == cur;
		bool marked = marks_has(marks, i);
		/* The mark wins the first column; the current entry is marked as
		 * playing only while it plays. */
		strbuf_reset(&left);
		strbuf_reset(&right);
		strbuf_adds(&left, marked ? ui_glyph(ui, UI_GLYPH_MARKED)
				   : here && playing && id == playing ? ui_glyph(ui, UI_GLYPH_PLAYING)
				   : here ? ui_glyph(ui, UI_GLYPH_CURRENT) : " ");
		/* A forgotten entry's title says so (ui_rows_render); a missing
		 * file's is its stored name, marked here. */
		ui_rows_render(ui, UI_FMT_PLAYLIST, id, i + 1, &left, &right);
		if (!app_has_media(ui->app, id) && app_item_known(ui->app, id))
			strbuf_adds(&left, "  (missing)");
		int attr = 0;
		if (here || (playing && id == playing && cur < 0))
			attr = theme_attr(UR_PLAYING);
		else if (party && cur >= 0 && (long)i < cur)
			attr = theme_attr(UR_HINT); /* already played */
		if (ui->pl_have_match && bitset_test(&ui->pl_match, i))
			attr |= theme_attr(UR_MATCH);
		if (marked && !attr)
			attr = theme_attr(UR_MARK);
		if (i == ui->pl_list.cur)
			attr = theme_attr(UR_SELECTED) | (here || marked ? A_BOLD : 0);
		draw_halves(ui, y + row, r->x, r->w, left.buf, r->w >= 24 ? right.buf : NULL, attr);
	}
	strbuf_free(&left);
	strbuf_free(&right);
	if (n->idlist.n == 0 && h > 0) {
		char hint[300];
		empty_hint(ui, name, party, active, hint, sizeof hint);
		draw_text(ui, y, r->x, r->w, hint, theme_attr(UR_HINT));
	}
}

/* K/J (P/p): the marks, else the cursor row, one place up or down, in
 * one transaction; marks and cursor follow their entries. */
static void playlist_move(struct ui *ui, const char *name, const struct coll_node *n, int delta)
{
	size_t *pos, moved = 0;
	bool marked;
	size_t np = target_positions(ui, name, n, &pos, &marked);
	struct crate_err err = {0};
	size_t cur = ui->pl_list.cur, at = SIZE_MAX;
	for (size_t k = 0; k < np; k++)
		if (pos[k] == cur)
			at = k;
	if (!np) {
		free(pos);
		return;
	}
	if (app_playlist_move_entries(ui->app, name, pos, np, delta, &moved, &err) != 0) {
		ui_message(ui, true, "%s", err.msg);
	} else if (!moved) {
		ui_message(ui, false, "already at the %s", delta < 0 ? "top" : "bottom");
	} else {
		const struct coll_node *now = app_playlist_get(ui->app, name);
		if (at != SIZE_MAX)
			ui->pl_list.cur = pos[at];
		if (marked && now) {
			marks_clear(&ui->pl_marks);
			for (size_t k = 0; k < np; k++)
				marks_set(&ui->pl_marks, pos[k], true);
			marks_note(ui, name, now);
		}
		ui_message(ui, false, "moved %zu %s %s (u undoes)", moved,
			   str_plural(moved, "entry", "entries"), delta < 0 ? "up" : "down");
	}
	free(pos);
	ui->dirty = true;
}

/* Space: mark or unmark the cursor row and go down; m: mark what the find
 * matches; M: no marks. */
static void playlist_mark(struct ui *ui, const char *name, const struct coll_node *n,
			  enum ui_action a, int h)
{
	struct ui_marks *m = marks_of(ui, name, n);
	matches_fresh(ui);
	if (a == UA_UNMARK_ALL) {
		size_t had = m->n;
		marks_forget(ui);
		ui_message(ui, false, had ? "marks cleared" : "nothing is marked");
		return;
	}
	if (a == UA_MARK) {
		if (ui->pl_list.cur >= n->idlist.n)
			return;
		marks_toggle(m, ui->pl_list.cur);
		marks_note(ui, name, n);
		ui_list_move(&ui->pl_list, n->idlist.n, h, UA_DOWN);
		return;
	}
	if (!ui->pl_have_match) {
		ui_message(ui, false, "m marks what the find (/) matches: find something first");
		return;
	}
	size_t added = 0;
	for (size_t i = 0; i < n->idlist.n; i++)
		if (bitset_test(&ui->pl_match, i) && !marks_has(m, i)) {
			marks_set(m, i, true);
			added++;
		}
	marks_note(ui, name, n);
	ui_message(ui, false, "marked %zu %s (%zu marked)", added,
		   str_plural(added, "entry", "entries"), m->n);
}

static bool entry_matches(struct ui *ui, size_t i, void *ctx)
{
	(void)ctx;
	return ui->pl_have_match && bitset_test(&ui->pl_match, i);
}

static int list_height(const struct ui *ui)
{
	return ui->L.main.h >= 4 ? ui->L.main.h - 1 : ui->L.main.h;
}

/* The entries the find marks, in the list as it is now. */
static bool playlist_find_rows(struct ui *ui, struct ui_find_rows *f)
{
	const struct coll_node *n = shown_node(ui);
	if (!n)
		return false;
	matches_fresh(ui);
	*f = (struct ui_find_rows){n->idlist.n, list_height(ui), &ui->pl_list, entry_matches, NULL};
	return true;
}

static bool playlist_key(struct ui *ui, enum ui_action a)
{
	const char *name = ui_playlist_shown(ui);
	const struct coll_node *n = shown_node(ui);
	if (!n)
		return false;
	int h = list_height(ui);
	if (a == UA_MOVE_UP || a == UA_MOVE_DOWN) {
		playlist_move(ui, name, n, a == UA_MOVE_UP ? -1 : 1);
		return true;
	}
	if (a == UA_MARK || a == UA_MARK_MATCHES || a == UA_UNMARK_ALL) {
		playlist_mark(ui, name, n, a, h);
		return true;
	}
	if (a == UA_MATCH_NEXT || a == UA_MATCH_PREV)
		return ui_find_step(ui, a == UA_MATCH_NEXT ? 1 : -1);
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

/* The marked entries' media ids, in list order. */
static bool playlist_marked(struct ui *ui, struct u32vec *ids)
{
	const char *name = ui_playlist_shown(ui);
	const struct coll_node *n = shown_node(ui);
	if (!n || !marks_of(ui, name, n)->n)
		return false;
	size_t *pos, np = marks_list(&ui->pl_marks, n->idlist.n, &pos);
	for (size_t k = 0; k < np; k++)
		u32vec_push(ids, n->idlist.v[pos[k]]);
	free(pos);
	return np > 0;
}

/* d: the marks, else the cursor row; one transaction, undoable. */
static void playlist_remove(struct ui *ui)
{
	const char *name = ui_playlist_shown(ui);
	const struct coll_node *n = name ? app_playlist_get(ui->app, name) : NULL;
	if (!n)
		return;
	size_t *pos, removed = 0;
	bool marked;
	size_t np = target_positions(ui, name, n, &pos, &marked);
	struct crate_err err = {0};
	if (np && app_playlist_remove_entries(ui->app, name, pos, np, &removed, &err) != 0) {
		ui_message(ui, true, "%s", err.msg);
	} else if (np) {
		if (marked)
			marks_forget(ui); /* their entries are gone */
		ui_message(ui, false, "removed %zu %s (u undoes)", removed,
			   str_plural(removed, "entry", "entries"));
	}
	free(pos);
	ui->dirty = true;
}

/* As the browser counts its tracks: "3 of 12 entries", and what was forgiven. */
static void playlist_find_info(struct ui *ui, char *buf, size_t size)
{
	const struct coll_node *n = shown_node(ui);
	size_t total = n ? n->idlist.n : 0;
	matches_fresh(ui);
	if (!ui->pl_have_match) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, size, "%zu of %zu %s%s%s", ui->pl_nmatch, total,
		 str_plural(total, "entry", "entries"), ui->pl_note ? " \xe2\x80\x94 " : "",
		 ui->pl_note ? ui->pl_note : "");
}

static void playlist_heading(struct ui *ui, int w, char *buf, size_t size)
{
	(void)w;
	const char *name = ui_playlist_shown(ui);
	snprintf(buf, size, "%s ", name ? name : "");
}

const struct ui_pane ui_pane_playlist = {
	.title = "Playlist",
	.find_label = "find: ",
	.find_list = true,
	.draw = playlist_draw,
	.key = playlist_key,
	.click = playlist_click,
	.find = playlist_find,
	.find_rows = playlist_find_rows,
	.find_info = playlist_find_info,
	.heading = playlist_heading,
	.play = playlist_play,
	.remove = playlist_remove,
	.selection = playlist_selection,
	.marked = playlist_marked,
	.free = playlist_free,
};
