/* View 1: the browser. Group columns by the levels in effect — the
 * browsed collection's own (coll levels), else browser.levels, by default
 * artist then album — and then the tracks, built from the current
 * collection (the one chosen in the collections pane, AND the search
 * query), so browsing inside a saved collection or inside search results
 * is the same thing. Each column lists the groups of the results that
 * the selections to its left let through. Groups are made in one pass
 * over the result with the library's groups (medialib/index_groups.h),
 * by the library ranks the evaluation brings (coll_result.ranks), and
 * per-group lookup arrays, so it stays fast at a million tracks; a row's
 * text and year are read, and rows formatted, only when shown. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_config.h"
#include "app/app_read.h"
#include "app/app_view.h"
#include "medialib/index.h"
#include "medialib/index_groups.h"
#include "app/app_play.h"
#include "ui/actions.h"
#include "ui/draw.h"
#include "ui/pane.h"
#include "ui/pane_browser.h"
#include "ui/text.h"
#include "ui/ui_state.h"

#define NO_GROUP UINT32_MAX
#define ROW_READ UINT32_MAX /* ui_group.lgroup: text and year are set */

/* ---- groups ---- */

static uint32_t groups_push(struct ui_groups *gs, struct ui_group g)
{
	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? gs->cap * 2 : 64;
		gs->g = xreallocarray(gs->g, gs->cap, sizeof *gs->g);
	}
	gs->g[gs->n] = g;
	return (uint32_t)gs->n++;
}

/* A row of its own text ("All", "(no artist)"). */
static uint32_t groups_add(struct ui_groups *gs, const char *text)
{
	return groups_push(gs, (struct ui_group){text, 0, 0, ROW_READ, NO_GROUP});
}

/* A row of library group gl, its first result at library rank first
 * (NO_GROUP: no year shown); text and year are read by row_read. */
static uint32_t groups_add_lazy(struct ui_groups *gs, uint32_t gl, uint32_t first)
{
	return groups_push(gs, (struct ui_group){NULL, 0, 0, gl, first});
}

static void groups_reset(struct ui_groups *gs)
{
	gs->n = 0;
	groups_add(gs, ""); /* "All" */
}

static bool level_is_album(const struct ui *ui, unsigned k);
static bool all_left_of(const struct ui *ui, unsigned k);

/* The year an album row shows (0: none): its first result's, or under
 * "All" to its left, where one row stands for every album of that
 * title, the year they share (none when they differ). */
static uint32_t row_year(const struct ui *ui, unsigned k, const struct ui_group *g)
{
	const struct mlib_groups *lg = ui->lg;
	if (!lg->year_of || !level_is_album(ui, k) || g->first >= lg->n)
		return 0;
	if (all_left_of(ui, k) && lg->group_year[k] && g->lgroup < lg->ngroups[k])
		return lg->group_year[k][g->lgroup];
	return lg->year_of[g->first];
}

/* Row i of column k, its text and year read once wanted. The rows were
 * made from ui->lg, which stays until the next rebuild (a new index or
 * new levels rebuild before anything reads a row). */
static const struct ui_group *row_read(struct ui *ui, unsigned k, size_t i)
{
	struct ui_group *g = &ui->cols[k].g[i];
	if (g->lgroup == ROW_READ)
		return g;
	const struct mlib_groups *lg = ui->lg;
	bool valid = lg && ui->lg_gen == app_index_generation(ui->app) && g->lgroup < lg->ngroups[k];
	g->text = valid ? lg->text[k][g->lgroup] : NULL;
	g->year = valid ? row_year(ui, k, g) : 0;
	g->lgroup = ROW_READ;
	return g;
}

static const char *group_text(struct ui *ui, unsigned k, size_t i)
{
	return i < ui->cols[k].n ? row_read(ui, k, i)->text : NULL;
}

/* Find the group with this text again after a rebuild (NULL text = unknown). */
static size_t groups_find(struct ui *ui, unsigned k, const char *text, bool had)
{
	if (!had)
		return 0;
	for (size_t i = 1; i < ui->cols[k].n; i++) {
		const char *t = row_read(ui, k, i)->text;
		if ((!t && !text) || (t && text && strcmp(t, text) == 0))
			return i;
	}
	return 0;
}

/* ---- levels ---- */

/* The levels in effect: the browsed collection's own, else the option
 * (checked when set; the default should it not parse). */
static void levels_wanted(struct ui *ui, struct mlib_levels *lv)
{
	struct crate_err err = {0};
	char *own = NULL;
	if (ui->base_ns && app_coll_levels_get(ui->app, ui->base_ns, ui->base_name, &own, &err) == 0 &&
	    own && mlib_levels_parse(own, lv, &err) == 0) {
		free(own);
		return;
	}
	free(own);
	if (mlib_levels_parse(app_config_value(ui->app, "browser.levels"), lv, &err) != 0)
		mlib_levels_parse(MLIB_LEVELS_DEFAULT, lv, &err);
}

/* New levels: the columns start over at "All". */
static void levels_follow(struct ui *ui)
{
	struct mlib_levels lv;
	levels_wanted(ui, &lv);
	if (ui->levels.n && mlib_levels_equal(&lv, &ui->levels))
		return;
	ui->levels = lv;
	for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++) {
		ui->cols[k].n = 0;
		ui->cols[k].list.cur = ui->cols[k].list.top = 0;
	}
	if (ui->focus > (int)lv.n)
		ui->focus = (int)lv.n;
}

/* The library's groups for this frame, with the scratch map sized for
 * them (ui->lg_local, by library group, all 0 between uses). */
static const struct mlib_groups *library_groups(struct ui *ui)
{
	const struct mlib_groups *lg = app_library_groups(ui->app, &ui->levels);
	if (lg) {
		size_t nl = 0;
		for (unsigned k = 0; k < lg->levels.n; k++)
			nl = lg->ngroups[k] > nl ? lg->ngroups[k] : nl;
		if (!ui->lg_local || nl + 1 > ui->lg_local_cap) {
			free(ui->lg_local);
			ui->lg_local = xcalloc(nl + 1, sizeof *ui->lg_local);
			ui->lg_local_cap = nl + 1;
		}
		ui->lg_gen = app_index_generation(ui->app);
	}
	ui->lg = lg;
	return lg;
}

/* Whether the groups made from ui->lg are still the library's. */
static bool groups_valid(const struct ui *ui)
{
	return ui->lg && ui->lg_gen == app_index_generation(ui->app) && ui->res_rank &&
	       mlib_levels_equal(&ui->lg->levels, &ui->levels);
}

/* ---- which results each column lists ---- */

/* Whether result position i is listed under row `row` of the first
 * column, and (gl, when not NULL) its library groups at the deeper
 * levels that way (untouched when false). */
static bool result_in_first(const struct ui *ui, size_t i, uint32_t row, uint32_t *gl)
{
	if (ui->res_row[0][i] == row) {
		uint32_t r = ui->res_rank[i];
		for (unsigned k = 1; gl && k < ui->levels.n; k++)
			gl[k] = ui->lg && r < ui->lg->n ? ui->lg->of[k][r] : NO_GROUP;
		return true;
	}
	size_t x = mlib_extra_find(ui->res_extra, ui->nres_extra, (uint32_t)i);
	for (; x < ui->nres_extra && ui->res_extra[x].at == i; x++)
		if (ui->res_extra[x].grp[0] == row) {
			for (unsigned k = 1; gl && k < ui->levels.n; k++)
				gl[k] = ui->res_extra[x].grp[k];
			return true;
		}
	return false;
}

/* Whether column k (ui->levels.n: the tracks) lists result i: the
 * selections of the columns left of it let it through. */
static bool result_passes(const struct ui *ui, size_t i, unsigned k)
{
	if (k == 0)
		return true;
	size_t sel = ui->cols[k - 1].list.cur;
	if (k == 1)
		return !sel || result_in_first(ui, i, (uint32_t)sel, NULL);
	uint32_t row = ui->res_row[k - 1][i];
	return row && (!sel || row == sel);
}

/* Result i's library group at level k >= 1, under the first column's
 * selection (an item with several first values is under each). */
static uint32_t result_group(const struct ui *ui, size_t i, unsigned k)
{
	uint32_t gl[MLIB_GROUP_LEVELS], r = ui->res_rank[i];
	size_t sel = ui->cols[0].list.cur;
	if (sel && result_in_first(ui, i, (uint32_t)sel, gl))
		return gl[k];
	return r < ui->lg->n ? ui->lg->of[k][r] : NO_GROUP;
}

static void extra_push(struct ui *ui, const struct mlib_extra_group *x)
{
	if (ui->nres_extra == ui->res_extra_cap) {
		ui->res_extra_cap = ui->res_extra_cap ? ui->res_extra_cap * 2 : 64;
		ui->res_extra = xreallocarray(ui->res_extra, ui->res_extra_cap, sizeof *ui->res_extra);
	}
	ui->res_extra[ui->nres_extra++] = *x;
}

/* Count a result under library group gl in gs and return its row: the
 * group's row, added when new with its first result's library rank
 * (local: the groups' slots; seen: the groups to settle afterwards); for
 * NO_GROUP the "(no ...)" row, made once in *none_row. */
static inline uint32_t count_in(struct ui_groups *gs, struct ui_lg_slot *local,
				struct u32vec *seen, uint32_t *none_row, uint32_t gl, uint32_t first)
{
	if (gl == NO_GROUP) {
		if (*none_row == NO_GROUP)
			*none_row = groups_add(gs, NULL);
		gs->g[*none_row].count++;
		return *none_row;
	}
	struct ui_lg_slot *sl = &local[gl];
	if (!sl->row1) {
		sl->row1 = groups_add_lazy(gs, gl, first) + 1;
		u32vec_push(seen, gl);
	}
	sl->count++;
	return sl->row1 - 1;
}

/* The counts of the groups seen onto their rows, and their slots back to 0. */
static void local_settle(struct ui_groups *gs, struct ui_lg_slot *local, struct u32vec *seen)
{
	for (size_t k = 0; k < seen->n; k++) {
		struct ui_lg_slot *sl = &local[seen->v[k]];
		gs->g[sl->row1 - 1].count += sl->count;
		*sl = (struct ui_lg_slot){0, 0};
	}
	u32vec_free(seen);
}

/* Results in ranked order read the library's groups (of[k], by library
 * rank) at random: ask for the entry of a result a few ahead, so that the
 * reads overlap instead of waiting for memory one after the other. */
#define PREFETCH_AHEAD 16
static inline void of_prefetch(const struct ui *ui, const uint32_t *of, size_t i)
{
	if (i + PREFETCH_AHEAD < ui->results.n && ui->res_rank[i + PREFETCH_AHEAD] < ui->lg->n)
		__builtin_prefetch(&of[ui->res_rank[i + PREFETCH_AHEAD]]);
}

/* res[i] = the library group at a level (of: by library rank) of result
 * i; NO_GROUP when not in the library. A loop of reads alone: results in
 * ranked order read of at random, and with nothing waiting on each read
 * the processor keeps many in flight (the grouping loops after it would
 * wait for each one in turn). */
static void gather_groups(const struct ui *ui, const uint32_t *of, uint32_t *res)
{
	const uint32_t *rank = ui->res_rank;
	uint32_t nlib = ui->lg->n;
	size_t n = ui->results.n;
	for (size_t i = 0; i < n; i++) {
		uint32_t r = rank[i];
		res[i] = r < nlib ? of[r] : NO_GROUP;
	}
}

/* The first column: rows in order of first appearance in the result,
 * and the further rows of items with several first values. */
static void group_first(struct ui *ui, const struct mlib_groups *lg)
{
	struct ui_groups *gs = &ui->cols[0];
	struct ui_lg_slot *local = ui->lg_local;
	uint32_t unknown_row = NO_GROUP, *res = ui->res_row[0];
	struct u32vec seen = {0};
	gather_groups(ui, lg->of[0], res);
	for (size_t i = 0; i < ui->results.n; i++) {
		uint32_t r = ui->res_rank[i];
		/* NO_GROUP: not in the library (cannot happen for results) */
		res[i] = count_in(gs, local, &seen, &unknown_row, res[i], NO_GROUP);
		size_t k = mlib_groups_has_extra(lg, r) ? mlib_extra_find(lg->extra, lg->nextra, r)
							 : lg->nextra;
		for (; k < lg->nextra && lg->extra[k].at == r; k++) {
			struct mlib_extra_group x = lg->extra[k];
			x.at = (uint32_t)i;
			x.grp[0] = count_in(gs, local, &seen, &unknown_row, x.grp[0], NO_GROUP);
			extra_push(ui, &x);
		}
	}
	local_settle(gs, local, &seen);
}

/* Room in res_row[k] for a row of every result (kept between searches:
 * fresh pages for each keystroke's arrays would cost their zeroing). */
static void res_rows_fit(struct ui *ui)
{
	size_t want = ui->results.n + 1;
	if (want <= ui->res_row_cap && ui->res_row[0])
		return;
	for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++) {
		free(ui->res_row[k]);
		ui->res_row[k] = xmalloc(want * sizeof *ui->res_row[k]);
	}
	ui->res_row_cap = want;
}

static void build_first(struct ui *ui)
{
	unsigned gen = app_index_generation(ui->app);
	if (gen != ui->index_seen) { /* the rows' texts were the old index's */
		for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++)
			ui->cols[k].n = ui->cols[k].list.cur = 0;
		ui->index_seen = gen;
	}
	struct ui_groups *gs = &ui->cols[0];
	const char *old = group_text(ui, 0, gs->list.cur);
	bool had = gs->list.cur > 0;
	char *keep = old ? xstrdup(old) : NULL;

	groups_reset(gs);
	ui->nres_extra = 0;
	res_rows_fit(ui);
	free(ui->res_rank);
	ui->res_rank = NULL;
	const struct mlib_groups *lg = app_library_size(ui->app) ? library_groups(ui) : NULL;
	if (lg && ui->results.n) {
		if (ui->res_given.n == ui->results.n) { /* the evaluation's: no lookups */
			ui->res_rank = ui->res_given.v;
			ui->res_given = (struct u32vec){0};
		} else {
			ui->res_rank = xmalloc((ui->results.n + 1) * sizeof *ui->res_rank);
			app_library_ranks(ui->app, ui->results.v, ui->results.n,
					  !ui->results_ordered, ui->res_rank);
		}
		group_first(ui, lg);
	} else {
		memset(ui->res_row[0], 0, (ui->results.n + 1) * sizeof *ui->res_row[0]);
	}
	u32vec_free(&ui->res_given);
	gs->g[0].count = (uint32_t)ui->results.n;
	gs->list.cur = groups_find(ui, 0, keep, had);
	free(keep);
}

static void browser_rebuild_tracks(struct ui *ui);
static bool browser_key(struct ui *ui, enum ui_action a);

/* Whether level k's rows show their album's year. */
static bool level_is_album(const struct ui *ui, unsigned k)
{
	return k < ui->levels.n && strcmp(ui->levels.prop[k], "album") == 0;
}

/* Whether every column left of k is at "All": each result is then listed
 * in column k, under its library group at level k. */
static bool all_left_of(const struct ui *ui, unsigned k)
{
	for (unsigned j = 0; j < k; j++)
		if (ui->cols[j].list.cur)
			return false;
	return true;
}

/* Column k >= 1 with "All" selected to its left (the column while a query
 * is typed): build_column's loop without its per-result questions. */
static uint32_t group_all(struct ui *ui, unsigned k, uint32_t *res)
{
	struct ui_groups *gs = &ui->cols[k];
	const uint32_t *rank = ui->res_rank;
	struct ui_lg_slot *local = ui->lg_local;
	uint32_t none_row = NO_GROUP;
	struct u32vec seen = {0};
	size_t n = ui->results.n;
	gather_groups(ui, ui->lg->of[k], res);
	for (size_t i = 0; i < n; i++)
		res[i] = count_in(gs, local, &seen, &none_row, res[i], rank[i]);
	local_settle(gs, local, &seen);
	return (uint32_t)n;
}

/* Column k >= 1 from the results its left neighbours let through. */
static void build_column(struct ui *ui, unsigned k)
{
	struct ui_groups *gs = &ui->cols[k];
	const char *old = group_text(ui, k, gs->list.cur);
	bool had = gs->list.cur > 0;
	char *keep = old ? xstrdup(old) : NULL;
	groups_reset(gs);
	uint32_t total = 0, *res = ui->res_row[k];
	if (!ui->results.n || !groups_valid(ui)) {
		memset(res, 0, (ui->results.n + 1) * sizeof *res);
	} else if (all_left_of(ui, k)) {
		total = group_all(ui, k, res);
	} else {
		const struct mlib_groups *lg = ui->lg;
		struct u32vec seen = {0};
		uint32_t none_row = NO_GROUP;
		for (size_t i = 0; i < ui->results.n; i++) {
			of_prefetch(ui, lg->of[k], i);
			if (!result_passes(ui, i, k)) {
				res[i] = 0;
				continue;
			}
			uint32_t r = ui->res_rank[i], gl = result_group(ui, i, k);
			res[i] = count_in(gs, ui->lg_local, &seen, &none_row, gl, r);
			total++;
		}
		local_settle(gs, ui->lg_local, &seen);
	}
	gs->g[0].count = total;
	gs->list.cur = groups_find(ui, k, keep, had);
	free(keep);
}

/* After the selection of column k - 1 changes: columns k.. and the tracks. */
static void browser_rebuild_from(struct ui *ui, unsigned k)
{
	for (; k < ui->levels.n; k++)
		build_column(ui, k);
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

/* Whether every column is at "All" (the tracks are all results). */
static bool all_selected(const struct ui *ui)
{
	return all_left_of(ui, ui->levels.n);
}

/* After the last column's selection changes. */
static void browser_rebuild_tracks(struct ui *ui)
{
	uint32_t keep_id = ui->keep_track_id ? ui->keep_track_id : selected_track_id(ui);
	ui->keep_track_id = 0;
	ui->tracks.n = 0;
	u32vec_reserve(&ui->tracks, ui->results.n + 1);
	uint32_t *t = ui->tracks.v;
	size_t k = 0;
	bool all = all_selected(ui) || !ui->res_rank;
	if (all) {
		/* every result, in order: the positions written once are kept
		 * (at a million tracks each keystroke would write them again) */
		for (k = ui->tracks_identity; k < ui->results.n; k++)
			t[k] = (uint32_t)k;
		if (k > ui->tracks_identity)
			ui->tracks_identity = k;
		k = ui->results.n;
	} else {
		for (size_t i = 0; i < ui->results.n; i++)
			if (result_passes(ui, i, ui->levels.n))
				t[k++] = (uint32_t)i;
		ui->tracks_identity = 0;
	}
	ui->tracks.n = k;
	ui->track_list.cur = 0;
	for (size_t i = 0; keep_id && i < ui->tracks.n; i++) {
		if (ui->results.v[all ? i : ui->tracks.v[i]] == keep_id) {
			ui->track_list.cur = i;
			break;
		}
	}
}

/* Whether res lists the results the columns were built from, in the same
 * order, and those columns still hold (same index, same levels): typing
 * "y>19" after "y>1", a space, or a backspace back to a recalled result
 * often changes nothing, and the columns then stay as they are. */
static bool same_results(const struct ui *ui, const struct coll_result *res)
{
	return groups_valid(ui) && res->ids.n == ui->results.n &&
	       res->ordered == ui->results_ordered && res->ids.n > 0 &&
	       memcmp(res->ids.v, ui->results.v, res->ids.n * sizeof *res->ids.v) == 0;
}

/* The search applied, or the browsed collection changed: evaluate base
 * AND query again. */
static void browser_refresh(struct ui *ui)
{
	double t0 = ui_now_ms();
	free(ui->qnote);
	ui->qnote = NULL;
	levels_follow(ui);
	/* A search is ranked and forgiving (coll/search.h); what it forgave
	 * is shown in the search bar. */
	struct app_view v = ui_browse_view(ui);
	v.ranks = true; /* the grouping reads them */
	v.timing = ui->trace ? &ui->timing : NULL;
	struct coll_result res = {0};
	struct crate_err err = {0};
	struct strbuf notes;
	strbuf_init(&notes, 0);
	int rc = app_view_eval(ui->app, &v, &res, &notes, &err);
	bool regroup = !(rc == 0 && same_results(ui, &res));
	if (rc == 0 && notes.len)
		ui->qnote = xstrdup(notes.buf);
	if (!regroup) {
		coll_result_free(&res);
	} else if (rc == 0) {
		/* The track column holds positions in the old results: keep the
		 * selection as an id, and drop the positions before the results
		 * they index change. */
		uint32_t keep = selected_track_id(ui);
		ui->keep_track_id = keep ? keep : ui->keep_track_id;
		ui->tracks.n = 0;
		u32vec_free(&ui->results);
		ui->results = res.ids;
		ui->results_ordered = res.ordered;
		u32vec_free(&ui->res_given);
		ui->res_given = res.ranks;
	} else {
		ui_message(ui, true, "%s", err.msg);
	}
	strbuf_free(&notes);
	double t1 = ui_now_ms();
	if (regroup) {
		build_first(ui);
		browser_rebuild_from(ui, 1);
		ui->regrouped++;
	}
	ui->group_ms += ui_now_ms() - t1;
	ui->eval_ms += ui_now_ms() - t0;
	ui->dirty = true;
}

/* Move the selections so that result position pos is listed (columns
 * that already list it keep theirs: "All", or one of its groups). */
static void select_result(struct ui *ui, size_t pos)
{
	for (unsigned k = 0; k < ui->levels.n; k++) {
		size_t sel = ui->cols[k].list.cur;
		bool listed = k == 0 ? !sel || result_in_first(ui, pos, (uint32_t)sel, NULL)
				     : !sel || ui->res_row[k][pos] == sel;
		if (listed)
			continue;
		ui->cols[k].list.cur = ui->res_row[k][pos];
		browser_rebuild_from(ui, k + 1);
	}
}

bool browser_reveal(struct ui *ui, uint32_t id)
{
	size_t i = 0;
	while (i < ui->results.n && ui->results.v[i] != id)
		i++;
	if (i == ui->results.n || !ui->res_rank || !ui->cols[0].n)
		return false;
	select_result(ui, i);
	ui->keep_track_id = id;
	browser_rebuild_tracks(ui);
	ui->focus = (int)ui->levels.n;
	ui->dirty = true;
	return ui->track_list.cur < ui->tracks.n && ui->results.v[ui->tracks.v[ui->track_list.cur]] == id;
}

void browser_keep_selection(struct ui *ui)
{
	browser_keep_selection_drop(ui);
	for (unsigned k = 0; k < ui->levels.n; k++) {
		struct ui_groups *gs = &ui->cols[k];
		ui->keep_had[k] = gs->list.cur > 0 && gs->list.cur < gs->n;
		const char *t = group_text(ui, k, gs->list.cur);
		ui->keep_text[k] = ui->keep_had[k] && t ? xstrdup(t) : NULL;
	}
	size_t c = ui->track_list.cur;
	ui->keep_track = c < ui->tracks.n && ui->tracks.v[c] < ui->results.n
				 ? ui->results.v[ui->tracks.v[c]] : 0;
	ui->keep_valid = true;
}

void browser_keep_selection_drop(struct ui *ui)
{
	for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++) {
		free(ui->keep_text[k]);
		ui->keep_text[k] = NULL;
		ui->keep_had[k] = false;
	}
	ui->keep_valid = false;
}

void browser_index_changed(struct ui *ui)
{
	/* Group texts point into the old index: only the selected rows' texts
	 * are read again (by the rebuild, to find them anew), so they are
	 * pointed at the copies; without copies the selection falls back to
	 * "All". */
	bool keep = ui->keep_valid;
	for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++) {
		struct ui_groups *gs = &ui->cols[k];
		if (keep && ui->keep_had[k] && gs->list.cur < gs->n) {
			gs->g[gs->list.cur].text = ui->keep_text[k];
			gs->g[gs->list.cur].lgroup = ROW_READ;
		}
		else
			gs->n = gs->list.cur = 0;
	}
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
	ui->tracks_identity = 0;
	for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++) {
		free(ui->res_row[k]);
		free(ui->cols[k].g);
	}
	free(ui->res_extra);
	free(ui->res_rank);
	u32vec_free(&ui->res_given);
	marks_clear(&ui->br_marks);
}

/* ---- drawing ---- */

/* How a level's property reads in "All 3 genres" and "(no genre)". */
static const char *level_noun(const char *prop)
{
	static const struct {
		const char *prop, *noun;
	} nouns[] = {
		{"albumartist", "album artist"}, {"tracknr", "track number"}, {"discnr", "disc"},
		{"timesplayed", "play count"},   {"samplerate", "sample rate"},
	};
	for (size_t i = 0; i < sizeof nouns / sizeof nouns[0]; i++)
		if (strcmp(nouns[i].prop, prop) == 0)
			return nouns[i].noun;
	return prop;
}

/* "All 12 artists": the first row names what the column lists and how
 * many; the counts on the right are tracks (the first row says so). */
static void all_label(const char *prop, size_t n, char *buf, size_t size)
{
	const char *noun = level_noun(prop);
	size_t len = strlen(noun);
	const char *s = n == 1 ? "" : len && noun[len - 1] == 's' ? "es" : "s";
	snprintf(buf, size, " All %zu %s%s", n, noun, s);
}

static void draw_group_col(struct ui *ui, const struct ui_rect *r, unsigned k, bool focused)
{
	struct ui_groups *gs = &ui->cols[k];
	const char *prop = ui->levels.prop[k];
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
		const struct ui_group *g = row_read(ui, k, i);
		if (i == 0)
			all_label(prop, gs->n - 1, label, sizeof label);
		else if (!g->text)
			snprintf(label, sizeof label, " (no %s)", level_noun(prop));
		else if (g->year)
			snprintf(label, sizeof label, " %s (%u)", g->text, g->year);
		else
			snprintf(label, sizeof label, " %s", g->text);
		if (i == 0)
			attr |= A_BOLD;
		if (i == 0)
			snprintf(count, sizeof count, " %u %s ", g->count,
				 str_plural(g->count, "track", "tracks"));
		else
			snprintf(count, sizeof count, " %u ", g->count);
		int cw = r->w >= 24 ? (int)strlen(count) : 0;
		draw_text(ui, y, r->x, r->w - cw, label, attr);
		if (cw)
			draw_text(ui, y, r->x + r->w - cw, cw, count,
				  attr | (i == gs->list.cur ? 0 : theme_attr(UR_HINT)));
	}
}

/* Whether the tracks listed are not all by one (first) artist: a
 * compilation under Various Artists, or an album artist's guests. */
static bool tracks_of_several_artists(const struct ui *ui)
{
	const struct mlib_index *idx = app_index(ui->app);
	int prop = idx ? mlib_index_prop(idx, "artist") : -1;
	if (prop < 0)
		return false;
	uint32_t first = 0;
	for (size_t i = 0; i < ui->tracks.n; i++) {
		const uint32_t *vids;
		uint32_t id = ui->results.v[ui->tracks.v[i]];
		uint32_t v = mlib_index_str_values(idx, prop, id, &vids) ? vids[0] : UINT32_MAX;
		if (i == 0)
			first = v;
		else if (v != first)
			return true;
	}
	return false;
}

/* Whether track rows say who plays: the columns do not (no artist level
 * has a row selected, or the tracks are by several artists), or
 * everything is shown. */
static bool tracks_show_artist(const struct ui *ui)
{
	bool artist_level = false;
	for (unsigned k = 0; k < ui->levels.n; k++)
		artist_level |= strcmp(ui->levels.prop[k], "artist") == 0 ||
				strcmp(ui->levels.prop[k], "albumartist") == 0;
	return !artist_level || all_selected(ui) || tracks_of_several_artists(ui);
}

static void draw_tracks(struct ui *ui, const struct ui_rect *r, bool focused)
{
	uint32_t playing = act_playing_id(ui);
	/* Tracks of more than one artist together: the rows say whose they are. */
	enum ui_fmt fmt = tracks_show_artist(ui) ? UI_FMT_TRACK_ALL : UI_FMT_TRACK;
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
	unsigned nl = ui->levels.n;
	for (unsigned k = 0; k < nl; k++)
		if (ui->L.col[k].w)
			draw_group_col(ui, &ui->L.col[k], k, ui->focus == (int)k);
	const struct ui_rect *tr = &ui->L.col[nl];
	if (tr->w)
		draw_tracks(ui, tr, ui->focus == (int)nl);
	if (ui->results.n == 0 && tr->w && tr->h) {
		const char *why = app_library_size(ui->app) == 0
					  ? " The library is empty: :scan DIR adds music."
					  : " Nothing matches.";
		draw_text(ui, tr->y, tr->x, tr->w, why, theme_attr(UR_HINT));
	}
}

/* ---- keys and mouse ---- */

static void next_match(struct ui *ui, bool back)
{
	/* Step through every result in order, moving the columns along. */
	if (ui->results.n == 0)
		return;
	int tcol = (int)ui->levels.n;
	size_t pos = ui->track_list.cur < ui->tracks.n ? ui->tracks.v[ui->track_list.cur] : 0;
	if (ui->focus != tcol && ui->tracks.n) {
		ui->focus = tcol;
	} else {
		pos = back ? (pos == 0 ? ui->results.n - 1 : pos - 1) : (pos + 1) % ui->results.n;
	}
	uint32_t id = ui->results.v[pos];
	if (ui->res_rank)
		select_result(ui, pos);
	for (size_t i = 0; i < ui->tracks.n; i++) {
		if (ui->tracks.v[i] == pos && ui->results.v[pos] == id) {
			ui->track_list.cur = i;
			break;
		}
	}
	ui->focus = tcol;
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
	int h = ui->L.col[ui->focus].h, tcol = (int)ui->levels.n;
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
		if (ui->focus < tcol)
			ui->focus++;
		return true;
	case UA_MATCH_NEXT:
	case UA_MATCH_PREV:
		next_match(ui, a == UA_MATCH_PREV);
		return true;
	default:
		break;
	}
	if (ui->focus < tcol) {
		struct ui_groups *gs = &ui->cols[ui->focus];
		if (ui_list_move(&gs->list, gs->n, h, a)) {
			for (int k = ui->focus + 1; k < tcol; k++)
				ui->cols[k].list.cur = 0;
			browser_rebuild_from(ui, (unsigned)ui->focus + 1);
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
	bool on_tracks = ui->focus == (int)ui->levels.n;
	*start = on_tracks && ui->track_list.cur < ui->tracks.n ? ui->track_list.cur : 0;
	if (one && on_tracks && *start < out->n) {
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

/* Enter: the track column as an ad-hoc list, playing the selected track
 * (on an artist or album row: from the first, or at random under
 * shuffle), as cmus plays its library view: prev, repeat and shuffle see
 * the whole column. The active playlist is left alone; 'a' adds to it. */
static void browser_play(struct ui *ui)
{
	struct u32vec ids = {0};
	size_t start;
	struct crate_err err = {0};
	browser_selection(ui, &ids, &start, false);
	if (ui->focus != (int)ui->levels.n)
		start = APP_PLAY_ANY;
	if (ids.n && app_play_list(ui->app, ids.v, NULL, ids.n, start, &err) != 0)
		ui_message(ui, true, "%s", err.msg);
	u32vec_free(&ids);
	ui->dirty = true;
}

static bool browser_click(struct ui *ui, int y, int x, bool dbl)
{
	int tcol = (int)ui->levels.n;
	for (int c = 0; c <= tcol; c++) {
		const struct ui_rect *r = &ui->L.col[c];
		if (!r->w || x < r->x || x >= r->x + r->w || y < r->y || y >= r->y + r->h)
			continue;
		ui->focus = c;
		size_t row = (size_t)(y - r->y);
		if (c < tcol && ui->cols[c].list.top + row < ui->cols[c].n) {
			ui->cols[c].list.cur = ui->cols[c].list.top + row;
			for (int k = c + 1; k < tcol; k++)
				ui->cols[k].list.cur = 0;
			browser_rebuild_from(ui, (unsigned)c + 1);
		} else if (c == tcol && ui->track_list.top + row < ui->tracks.n) {
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
	.title = "Browser",
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
