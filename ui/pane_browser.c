/* View 1: the browser. Three columns — artist, album, tracks — built from
 * the current collection (the one chosen in the collections pane, AND the
 * search query), so browsing inside a saved collection or inside search
 * results is the same thing. Groups are made in one pass over the result
 * with per-dictionary lookup arrays, so it stays fast at a million tracks,
 * and only visible rows are formatted. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_view.h"
#include "medialib/index_groups.h"
#include "app/app_play.h"
#include "ui/actions.h"
#include "ui/draw.h"
#include "ui/pane.h"
#include "ui/pane_browser.h"
#include "ui/text.h"
#include "ui/ui_state.h"

#define NO_GROUP UINT32_MAX

/* ---- groups ---- */

static uint32_t groups_add(struct ui_groups *gs, const char *text, uint32_t year)
{
	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? gs->cap * 2 : 64;
		gs->g = xreallocarray(gs->g, gs->cap, sizeof *gs->g);
	}
	gs->g[gs->n] = (struct ui_group){text, 0, year};
	return (uint32_t)gs->n++;
}

static void groups_reset(struct ui_groups *gs)
{
	gs->n = 0;
	groups_add(gs, "", 0); /* "All" */
}

static const char *group_text(const struct ui_groups *gs, size_t i)
{
	return i < gs->n ? gs->g[i].text : NULL;
}

/* Find the group with this text again after a rebuild (NULL text = unknown). */
static size_t groups_find(const struct ui_groups *gs, const char *text, bool had)
{
	if (!had)
		return 0;
	for (size_t i = 1; i < gs->n; i++) {
		const char *t = gs->g[i].text;
		if ((!t && !text) || (t && text && strcmp(t, text) == 0))
			return i;
	}
	return 0;
}

/* The browser's view: the browsed collection AND the search. */
/* The library's groups for this frame, with the scratch map sized for
 * them (ui->lg_local: group -> row + 1, all 0 between uses). */
static const struct mlib_groups *library_groups(struct ui *ui)
{
	const struct mlib_groups *lg = app_library_groups(ui->app);
	if (lg && (!ui->lg_local || ui->lg_gen != app_index_generation(ui->app))) {
		size_t nl = lg->nartists > lg->nalbums ? lg->nartists : lg->nalbums;
		free(ui->lg_local);
		ui->lg_local = xcalloc(nl + 1, sizeof *ui->lg_local);
		ui->lg_gen = app_index_generation(ui->app);
	}
	ui->lg = lg;
	return lg;
}

/* Whether result position i is listed under artist row `row`, and with
 * which album group (library album group; *album untouched when false). */
static bool result_in_artist(const struct ui *ui, size_t i, uint32_t row, uint32_t *album)
{
	if (ui->res_artist[i] == row) {
		if (album && ui->lg && ui->res_rank[i] < ui->lg->n)
			*album = ui->lg->album_of[ui->res_rank[i]];
		return true;
	}
	size_t k = mlib_extra_find(ui->res_extra, ui->nres_extra, (uint32_t)i);
	for (; k < ui->nres_extra && ui->res_extra[k].at == i; k++)
		if (ui->res_extra[k].artist == row) {
			if (album)
				*album = ui->res_extra[k].album;
			return true;
		}
	return false;
}

static void build_artists(struct ui *ui)
{
	unsigned gen = app_index_generation(ui->app);
	if (gen != ui->index_seen) { /* the rows' texts were the old index's */
		ui->artists.n = ui->albums.n = 0;
		ui->artists.list.cur = ui->albums.list.cur = 0;
		ui->index_seen = gen;
	}
	const char *old = group_text(&ui->artists, ui->artists.list.cur);
	bool had = ui->artists.list.cur > 0;
	char *keep = old ? xstrdup(old) : NULL;

	groups_reset(&ui->artists);
	ui->nres_extra = 0;
	free(ui->res_artist);
	ui->res_artist = xmalloc((ui->results.n + 1) * sizeof *ui->res_artist);
	if (!app_library_size(ui->app) || ui->results.n == 0)
		goto done;
	const struct mlib_groups *lg = library_groups(ui);
	uint32_t *local = ui->lg_local;
	free(ui->res_rank);
	ui->res_rank = xmalloc((ui->results.n + 1) * sizeof *ui->res_rank);
	app_library_ranks(ui->app, ui->results.v, ui->results.n, !ui->results_ordered, ui->res_rank);
	/* Rows in order of first appearance in the result; local maps a
	 * library group to its row meanwhile (reset from `seen` after). */
	struct u32vec seen = { 0 };
	uint32_t unknown_row = NO_GROUP;
	size_t n = ui->results.n;
	for (size_t i = 0; i < n; i++) {
		uint32_t r = ui->res_rank[i], row;
		if (r >= lg->n) { /* not in the library: cannot happen for results */
			if (unknown_row == NO_GROUP)
				unknown_row = (uint32_t)groups_add(&ui->artists, NULL, 0) + 1;
			row = unknown_row;
		} else {
			uint32_t ga = lg->artist_of[r];
			row = local[ga];
			if (!row) {
				row = (uint32_t)groups_add(&ui->artists, lg->artist_text[ga], 0) + 1;
				local[ga] = row;
				u32vec_push(&seen, ga);
			}
		}
		ui->res_artist[i] = row - 1;
		ui->artists.g[row - 1].count++;
		size_t k = r < lg->n ? mlib_extra_find(lg->extra, lg->nextra, r) : lg->nextra;
		for (; k < lg->nextra && lg->extra[k].at == r; k++) {
			uint32_t ga = lg->extra[k].artist, xrow = local[ga];
			if (!xrow) {
				xrow = (uint32_t)groups_add(&ui->artists, lg->artist_text[ga], 0) + 1;
				local[ga] = xrow;
				u32vec_push(&seen, ga);
			}
			ui->artists.g[xrow - 1].count++;
			if (ui->nres_extra == ui->res_extra_cap) {
				ui->res_extra_cap = ui->res_extra_cap ? ui->res_extra_cap * 2 : 64;
				ui->res_extra = xreallocarray(ui->res_extra, ui->res_extra_cap,
							      sizeof *ui->res_extra);
			}
			ui->res_extra[ui->nres_extra++] =
				(struct mlib_extra_group){(uint32_t)i, xrow - 1, lg->extra[k].album};
		}
	}
	for (size_t k = 0; k < seen.n; k++)
		local[seen.v[k]] = 0;
	u32vec_free(&seen);
done:
	ui->artists.g[0].count = (uint32_t)ui->results.n;
	ui->artists.list.cur = groups_find(&ui->artists, keep, had);
	free(keep);
}

static void browser_rebuild_tracks(struct ui *ui);
static bool browser_key(struct ui *ui, enum ui_action a);

/* After the artist selection changes. */
static void browser_rebuild_albums(struct ui *ui)
{
	const char *old = group_text(&ui->albums, ui->albums.list.cur);
	bool had = ui->albums.list.cur > 0;
	char *keep = old ? xstrdup(old) : NULL;
	uint32_t sel = (uint32_t)ui->artists.list.cur;

	groups_reset(&ui->albums);
	free(ui->res_album);
	ui->res_album = xcalloc(ui->results.n + 1, sizeof *ui->res_album);
	uint32_t total = 0;
	const struct mlib_groups *lg = ui->lg;
	uint32_t *local = ui->lg_local;
	if (ui->results.n && lg && ui->lg_gen == app_index_generation(ui->app) && ui->res_rank) {
		/* Rows' library album groups, to reset local afterwards. */
		struct u32vec seen = { 0 };
		uint32_t none_row = NO_GROUP;
		for (size_t i = 0; i < ui->results.n; i++) {
			uint32_t r = ui->res_rank[i], row, gl = r < lg->n ? lg->album_of[r] : 0;
			if (sel && !result_in_artist(ui, i, sel, &gl))
				continue;
			if (r >= lg->n) {
				if (none_row == NO_GROUP)
					none_row = (uint32_t)groups_add(&ui->albums, NULL, 0) + 1;
				row = none_row;
			} else {
				row = local[gl];
				if (!row) { /* the year of the album's first track in the result */
					row = (uint32_t)groups_add(&ui->albums, lg->album_text[gl],
								   lg->year_of[r]) + 1;
					local[gl] = row;
					u32vec_push(&seen, gl);
				}
			}
			ui->res_album[i] = row - 1;
			ui->albums.g[row - 1].count++;
			total++;
		}
		for (size_t k = 0; k < seen.n; k++)
			local[seen.v[k]] = 0;
		u32vec_free(&seen);
	}
	ui->albums.g[0].count = total;
	ui->albums.list.cur = groups_find(&ui->albums, keep, had);
	free(keep);
	browser_rebuild_tracks(ui);
}

/* The media id of the selected track; 0 when none. tracks holds positions
 * in results: only valid while results is the set they were made from. */
static uint32_t selected_track_id(const struct ui *ui)
{
	if (ui->track_list.cur >= ui->tracks.n)
		return 0;
	uint32_t pos = ui->tracks.v[ui->track_list.cur];
	return pos < ui->results.n ? ui->results.v[pos] : 0;
}

/* After the album selection changes. */
static void browser_rebuild_tracks(struct ui *ui)
{
	uint32_t as = (uint32_t)ui->artists.list.cur, ls = (uint32_t)ui->albums.list.cur;
	uint32_t keep_id = ui->keep_track_id ? ui->keep_track_id : selected_track_id(ui);
	ui->keep_track_id = 0;
	ui->tracks.n = 0;
	u32vec_reserve(&ui->tracks, ui->results.n + 1);
	uint32_t *t = ui->tracks.v;
	size_t k = 0;
	if (!as && !ls) { /* everything: no tests */
		for (size_t i = 0; i < ui->results.n; i++)
			t[k++] = (uint32_t)i;
	} else {
		for (size_t i = 0; i < ui->results.n; i++)
			if ((!as || result_in_artist(ui, i, as, NULL)) && (!ls || ui->res_album[i] == ls))
				t[k++] = (uint32_t)i;
	}
	ui->tracks.n = k;
	ui->track_list.cur = 0;
	for (size_t i = 0; keep_id && i < ui->tracks.n; i++) {
		if (ui->results.v[ui->tracks.v[i]] == keep_id) {
			ui->track_list.cur = i;
			break;
		}
	}
}

/* The search applied, or the browsed collection changed: evaluate base
 * AND query again. */
static void browser_refresh(struct ui *ui)
{
	double t0 = ui_now_ms();
	free(ui->qnote);
	ui->qnote = NULL;
	/* A search is ranked and forgiving (coll/search.h); what it forgave
	 * is shown in the search bar. */
	struct app_view v = ui_browse_view(ui);
	struct coll_result res = {0};
	struct crate_err err = {0};
	struct strbuf notes;
	strbuf_init(&notes, 0);
	if (app_view_eval(ui->app, &v, &res, &notes, &err) == 0) {
		if (notes.len)
			ui->qnote = xstrdup(notes.buf);
		/* The track column holds positions in the old results: keep the
		 * selection as an id, and drop the positions before the results
		 * they index change. */
		uint32_t keep = selected_track_id(ui);
		ui->keep_track_id = keep ? keep : ui->keep_track_id;
		ui->tracks.n = 0;
		u32vec_free(&ui->results);
		ui->results = res.ids;
		ui->results_ordered = res.ordered;
	} else {
		ui_message(ui, true, "%s", err.msg);
	}
	strbuf_free(&notes);
	double t1 = ui_now_ms();
	build_artists(ui);
	browser_rebuild_albums(ui);
	ui->group_ms += ui_now_ms() - t1;
	ui->eval_ms += ui_now_ms() - t0;
	ui->dirty = true;
}

bool browser_reveal(struct ui *ui, uint32_t id)
{
	size_t i = 0;
	while (i < ui->results.n && ui->results.v[i] != id)
		i++;
	if (i == ui->results.n || !ui->res_artist || !ui->artists.n)
		return false;
	/* Keep a selection that already shows it ("All", or one of its artists). */
	size_t as = ui->artists.list.cur;
	if (as && !result_in_artist(ui, i, (uint32_t)as, NULL)) {
		ui->artists.list.cur = ui->res_artist[i];
		browser_rebuild_albums(ui);
	}
	size_t ls = ui->albums.list.cur;
	if (ls && ui->res_album[i] != ls)
		ui->albums.list.cur = ui->res_album[i];
	ui->keep_track_id = id;
	browser_rebuild_tracks(ui);
	ui->focus = 2;
	ui->dirty = true;
	return ui->track_list.cur < ui->tracks.n && ui->results.v[ui->tracks.v[ui->track_list.cur]] == id;
}

void browser_keep_selection(struct ui *ui)
{
	browser_keep_selection_drop(ui);
	ui->keep_artist_had = ui->artists.list.cur > 0 && ui->artists.list.cur < ui->artists.n;
	ui->keep_album_had = ui->albums.list.cur > 0 && ui->albums.list.cur < ui->albums.n;
	const char *a = group_text(&ui->artists, ui->artists.list.cur);
	const char *l = group_text(&ui->albums, ui->albums.list.cur);
	ui->keep_artist = ui->keep_artist_had && a ? xstrdup(a) : NULL;
	ui->keep_album = ui->keep_album_had && l ? xstrdup(l) : NULL;
	size_t c = ui->track_list.cur;
	ui->keep_track = c < ui->tracks.n && ui->tracks.v[c] < ui->results.n
				 ? ui->results.v[ui->tracks.v[c]] : 0;
	ui->keep_valid = true;
}

void browser_keep_selection_drop(struct ui *ui)
{
	free(ui->keep_artist);
	free(ui->keep_album);
	ui->keep_artist = ui->keep_album = NULL;
	ui->keep_valid = false;
}

void browser_index_changed(struct ui *ui)
{
	/* Group texts point into the old index: only the selected rows' texts
	 * are read again (by the rebuild, to find them anew), so they are
	 * pointed at the copies; without copies the selection falls back to
	 * "All". */
	bool keep = ui->keep_valid;
	if (keep && ui->keep_artist_had)
		ui->artists.g[ui->artists.list.cur].text = ui->keep_artist;
	else
		ui->artists.n = ui->artists.list.cur = 0;
	if (keep && ui->keep_album_had)
		ui->albums.g[ui->albums.list.cur].text = ui->keep_album;
	else
		ui->albums.n = ui->albums.list.cur = 0;
	ui->tracks.n = 0;
	ui->results.n = 0;
	ui->index_seen = app_index_generation(ui->app); /* the kept texts stand */
	browser_refresh(ui);
	if (keep && ui->keep_track) {
		for (size_t i = 0; i < ui->tracks.n; i++)
			if (ui->results.v[ui->tracks.v[i]] == ui->keep_track) {
				ui->track_list.cur = i;
				break;
			}
	}
}

static void browser_free(struct ui *ui)
{
	browser_keep_selection_drop(ui);
	free(ui->lg_local);
	u32vec_free(&ui->results);
	u32vec_free(&ui->tracks);
	free(ui->res_artist);
	free(ui->res_album);
	free(ui->res_extra);
	free(ui->res_rank);
	free(ui->artists.g);
	free(ui->albums.g);
	marks_clear(&ui->br_marks);
}

/* ---- drawing ---- */

static void draw_group_col(struct ui *ui, const struct ui_rect *r, struct ui_groups *gs,
			   bool focused, const char *all_label, bool albums)
{
	ui_list_fix(&gs->list, gs->n, r->h);
	for (int row = 0; row < r->h; row++) {
		size_t i = gs->list.top + (size_t)row;
		int y = r->y + row;
		if (i >= gs->n) {
			draw_fill(y, r->x, r->w, 0);
			continue;
		}
		int attr = i == gs->list.cur ? theme_attr(focused ? UR_SELECTED : UR_SELECTED_DIM) : 0;
		char label[600], count[32];
		const struct ui_group *g = &gs->g[i];
		if (i == 0)
			snprintf(label, sizeof label, " %s", all_label);
		else if (albums && g->year)
			snprintf(label, sizeof label, " %s (%u)", g->text ? g->text : "(no album)", g->year);
		else
			snprintf(label, sizeof label, " %s",
				 g->text ? g->text : albums ? "(no album)" : "(no artist)");
		if (i == 0)
			attr |= A_BOLD;
		/* The counts are of tracks: the first row says so. */
		snprintf(count, sizeof count, i == 0 ? " %u tracks " : " %u ", g->count);
		int cw = r->w >= 24 ? (int)strlen(count) : 0;
		draw_text(ui, y, r->x, r->w - cw, label, attr);
		if (cw)
			draw_text(ui, y, r->x + r->w - cw, cw, count,
				  attr | (i == gs->list.cur ? 0 : theme_attr(UR_HINT)));
	}
}

static void draw_tracks(struct ui *ui, const struct ui_rect *r, bool focused)
{
	uint32_t playing = act_playing_id(ui);
	/* Every artist's tracks together: the rows say whose they are. */
	enum ui_fmt fmt = ui->albums.list.cur == 0 && ui->artists.list.cur == 0 ? UI_FMT_TRACK_ALL
										 : UI_FMT_TRACK;
	struct strbuf left, right;
	strbuf_init(&left, 256);
	strbuf_init(&right, 64);
	ui_list_fix(&ui->track_list, ui->tracks.n, r->h);
	for (int row = 0; row < r->h; row++) {
		size_t i = ui->track_list.top + (size_t)row;
		int y = r->y + row;
		if (i >= ui->tracks.n) {
			draw_fill(y, r->x, r->w, 0);
			continue;
		}
		uint32_t id = ui->results.v[ui->tracks.v[i]];
		bool marked = marks_has(&ui->br_marks, id);
		strbuf_reset(&left);
		strbuf_reset(&right);
		strbuf_adds(&left, marked ? ui_glyph(ui, UI_GLYPH_MARKED)
				   : id == playing ? ui_glyph(ui, UI_GLYPH_PLAYING) : " ");
		ui_rows_render(ui, fmt, id, 0, &left, &right);
		int attr = id == playing ? theme_attr(UR_PLAYING) : marked ? theme_attr(UR_MARK) : 0;
		if (i == ui->track_list.cur)
			attr = theme_attr(focused ? UR_SELECTED : UR_SELECTED_DIM) |
			       (id == playing || marked ? A_BOLD : 0);
		/* Narrow columns keep the left half only (the title before the length). */
		draw_halves(ui, y, r->x, r->w, left.buf, r->w >= 20 ? right.buf : NULL, attr);
	}
	strbuf_free(&left);
	strbuf_free(&right);
}

static void browser_draw(struct ui *ui, const struct ui_rect *main)
{
	(void)main; /* the columns are laid out in ui->L.col */
	char all_a[64], all_l[64];
	snprintf(all_a, sizeof all_a, "All artists");
	snprintf(all_l, sizeof all_l, "All albums");
	if (ui->L.col[0].w)
		draw_group_col(ui, &ui->L.col[0], &ui->artists, ui->focus == 0, all_a, false);
	if (ui->L.col[1].w)
		draw_group_col(ui, &ui->L.col[1], &ui->albums, ui->focus == 1, all_l, true);
	if (ui->L.col[2].w)
		draw_tracks(ui, &ui->L.col[2], ui->focus == 2);
	if (ui->results.n == 0 && ui->L.col[2].w && ui->L.col[2].h) {
		const char *why = app_library_size(ui->app) == 0
					  ? " The library is empty: :scan DIR adds music."
					  : " Nothing matches.";
		draw_text(ui, ui->L.col[2].y, ui->L.col[2].x, ui->L.col[2].w, why, theme_attr(UR_HINT));
	}
}

/* ---- keys and mouse ---- */

static void next_match(struct ui *ui, bool back)
{
	/* Step through every result in order, moving artist/album along. */
	if (ui->results.n == 0)
		return;
	size_t pos = ui->track_list.cur < ui->tracks.n ? ui->tracks.v[ui->track_list.cur] : 0;
	if (ui->focus != 2 && ui->tracks.n) {
		ui->focus = 2;
	} else {
		pos = back ? (pos == 0 ? ui->results.n - 1 : pos - 1) : (pos + 1) % ui->results.n;
	}
	uint32_t id = ui->results.v[pos];
	if (ui->artists.list.cur && !result_in_artist(ui, pos, (uint32_t)ui->artists.list.cur, NULL)) {
		ui->artists.list.cur = ui->res_artist[pos];
		ui->albums.list.cur = 0;
		browser_rebuild_albums(ui);
	}
	if (ui->albums.list.cur && ui->res_album[pos] != ui->albums.list.cur) {
		ui->albums.list.cur = ui->res_album[pos];
		browser_rebuild_tracks(ui);
	}
	for (size_t i = 0; i < ui->tracks.n; i++) {
		if (ui->tracks.v[i] == pos && ui->results.v[pos] == id) {
			ui->track_list.cur = i;
			break;
		}
	}
	ui->focus = 2;
}

static void browser_selection(struct ui *ui, struct u32vec *out, size_t *start, bool one);

/* Space: mark the selected track (or, on an artist or album row, all its
 * tracks; unmark them when all were marked) and go down. m: mark every
 * result of the search; M: no marks. Marks are media ids, so they stay
 * across searches: mark the finds of several, then act on them all. */
static void browser_mark(struct ui *ui, enum ui_action a)
{
	struct ui_marks *m = &ui->br_marks;
	if (a == UA_UNMARK_ALL) {
		ui_message(ui, false, m->n ? "marks cleared" : "nothing is marked");
		marks_clear(m);
		return;
	}
	struct u32vec ids = {0};
	size_t start, added = 0;
	if (a == UA_MARK_MATCHES) {
		for (size_t i = 0; i < ui->results.n; i++)
			if (!marks_has(m, ui->results.v[i])) {
				marks_set(m, ui->results.v[i], true);
				added++;
			}
		ui_message(ui, false, "marked %zu track%s (%zu marked)", added, added == 1 ? "" : "s",
			   m->n);
		return;
	}
	browser_selection(ui, &ids, &start, true);
	bool all = ids.n > 0;
	for (size_t i = 0; i < ids.n && all; i++)
		all = marks_has(m, ids.v[i]);
	for (size_t i = 0; i < ids.n; i++)
		marks_set(m, ids.v[i], !all);
	u32vec_free(&ids);
	browser_key(ui, UA_DOWN);
}

static bool browser_key(struct ui *ui, enum ui_action a)
{
	int h = ui->L.col[ui->focus].h;
	switch (a) {
	case UA_MARK:
	case UA_MARK_MATCHES:
	case UA_UNMARK_ALL:
		browser_mark(ui, a);
		return true;
	case UA_COL_PREV:
		if (ui->focus > 0)
			ui->focus--;
		return true;
	case UA_COL_NEXT:
		if (ui->focus < 2)
			ui->focus++;
		return true;
	case UA_MATCH_NEXT:
	case UA_MATCH_PREV:
		next_match(ui, a == UA_MATCH_PREV);
		return true;
	default:
		break;
	}
	if (ui->focus == 0) {
		if (ui_list_move(&ui->artists.list, ui->artists.n, h, a)) {
			ui->albums.list.cur = 0;
			browser_rebuild_albums(ui);
			return true;
		}
	} else if (ui->focus == 1) {
		if (ui_list_move(&ui->albums.list, ui->albums.n, h, a)) {
			browser_rebuild_tracks(ui);
			return true;
		}
	} else if (ui_list_move(&ui->track_list, ui->tracks.n, h, a)) {
		return true;
	}
	return a == UA_UP || a == UA_DOWN || a == UA_PAGE_UP || a == UA_PAGE_DOWN ||
	       a == UA_TOP || a == UA_BOTTOM;
}

/* The track column, from the selected track; one: just that track when
 * the track column has the focus. */
static void browser_selection(struct ui *ui, struct u32vec *out, size_t *start, bool one)
{
	out->n = 0;
	for (size_t i = 0; i < ui->tracks.n; i++)
		u32vec_push(out, ui->results.v[ui->tracks.v[i]]);
	*start = ui->focus == 2 && ui->track_list.cur < ui->tracks.n ? ui->track_list.cur : 0;
	if (one && ui->focus == 2 && *start < out->n) {
		out->v[0] = out->v[*start];
		out->n = 1;
		*start = 0;
	}
}

/* The marked tracks: the results' order first, then those marked in
 * earlier searches, by id. */
static bool browser_marked(struct ui *ui, struct u32vec *ids)
{
	struct ui_marks *m = &ui->br_marks;
	if (!m->n)
		return false;
	struct ui_marks seen = {0};
	for (size_t i = 0; i < ui->results.n; i++) {
		uint32_t id = ui->results.v[i];
		if (marks_has(m, id) && !marks_has(&seen, id)) {
			u32vec_push(ids, id);
			marks_set(&seen, id, true);
		}
	}
	size_t *all, n = marks_list(m, SIZE_MAX, &all);
	for (size_t k = 0; k < n; k++)
		if (!marks_has(&seen, all[k]))
			u32vec_push(ids, (uint32_t)all[k]);
	free(all);
	marks_clear(&seen);
	return ids->n > 0;
}

/* Enter: the track column as an ad-hoc list, from the selected track on
 * (the active playlist is left alone; 'a' adds to it). */
static void browser_play(struct ui *ui)
{
	struct u32vec ids = {0};
	size_t start;
	struct crate_err err = {0};
	browser_selection(ui, &ids, &start, false);
	if (start < ids.n && app_play_list(ui->app, ids.v + start, NULL, ids.n - start, &err) != 0)
		ui_message(ui, true, "%s", err.msg);
	u32vec_free(&ids);
	ui->dirty = true;
}

static bool browser_click(struct ui *ui, int y, int x, bool dbl)
{
	for (int c = 0; c < 3; c++) {
		const struct ui_rect *r = &ui->L.col[c];
		if (!r->w || x < r->x || x >= r->x + r->w || y < r->y || y >= r->y + r->h)
			continue;
		ui->focus = c;
		size_t row = (size_t)(y - r->y);
		if (c == 0 && ui->artists.list.top + row < ui->artists.n) {
			ui->artists.list.cur = ui->artists.list.top + row;
			ui->albums.list.cur = 0;
			browser_rebuild_albums(ui);
		} else if (c == 1 && ui->albums.list.top + row < ui->albums.n) {
			ui->albums.list.cur = ui->albums.list.top + row;
			browser_rebuild_tracks(ui);
		} else if (c == 2 && ui->track_list.top + row < ui->tracks.n) {
			ui->track_list.cur = ui->track_list.top + row;
		} else {
			return true;
		}
		if (dbl)
			browser_play(ui);
		return true;
	}
	return false;
}

static void browser_find_info(struct ui *ui, char *buf, size_t size)
{
	snprintf(buf, size, "%zu track%s%s%s", ui->results.n, ui->results.n == 1 ? "" : "s",
		 ui->qnote ? " \xe2\x80\x94 " : "", ui->qnote ? ui->qnote : "");
}

const struct ui_pane ui_pane_browser = {
	.title = " 1 Browser ",
	.find_label = "/",
	.sidebar = true,
	.saves = true,
	.draw = browser_draw,
	.key = browser_key,
	.click = browser_click,
	.find = browser_refresh,
	.find_info = browser_find_info,
	.heading = ui_browse_heading,
	.play = browser_play,
	.selection = browser_selection,
	.marked = browser_marked,
	.free = browser_free,
};
