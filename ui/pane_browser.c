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
#include "coll/eval.h"
#include "coll/search.h"
#include "medialib/index.h"
#include "ui/text.h"
#include "ui/ui_priv.h"

#define NO_GROUP UINT32_MAX

/* ---- a tiny open-addressing map: 64-bit key -> group index ---- */
struct gmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

static void gmap_init(struct gmap *m, size_t expect)
{
	m->cap = 64;
	while (m->cap < expect * 2)
		m->cap *= 2;
	m->keys = xmalloc(m->cap * sizeof *m->keys);
	m->vals = xmalloc(m->cap * sizeof *m->vals);
	memset(m->vals, 0xff, m->cap * sizeof *m->vals);
	m->n = 0;
}

static void gmap_free(struct gmap *m)
{
	free(m->keys);
	free(m->vals);
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static uint32_t *gmap_slot(struct gmap *m, uint64_t key, bool *found);

static void gmap_grow(struct gmap *m)
{
	struct gmap old = *m;
	m->cap *= 2;
	m->keys = xmalloc(m->cap * sizeof *m->keys);
	m->vals = xmalloc(m->cap * sizeof *m->vals);
	memset(m->vals, 0xff, m->cap * sizeof *m->vals);
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++) {
		if (old.vals[i] == NO_GROUP)
			continue;
		bool f;
		*gmap_slot(m, old.keys[i], &f) = old.vals[i];
	}
	gmap_free(&old);
}

/* The value slot for key (NO_GROUP in it when new). */
static uint32_t *gmap_slot(struct gmap *m, uint64_t key, bool *found)
{
	if ((m->n + 1) * 2 > m->cap)
		gmap_grow(m);
	size_t i = mix64(key) & (m->cap - 1);
	while (m->vals[i] != NO_GROUP) {
		if (m->keys[i] == key) {
			*found = true;
			return &m->vals[i];
		}
		i = (i + 1) & (m->cap - 1);
	}
	*found = false;
	m->keys[i] = key;
	m->n++;
	return &m->vals[i];
}

static uint64_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

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

struct coll_node *ui_base_node(struct ui *ui)
{
	if (!ui->base_ns)
		return coll_node_new(COLL_UNIVERSE);
	struct coll_node *r = coll_node_new(COLL_REFERENCE);
	coll_attr_set(r, "namespace", ui->base_ns);
	coll_attr_set(r, "reference", ui->base_name);
	return r;
}

/* The base collection AND query (NULL: the base alone). */
static struct coll_node *view_node(struct ui *ui, struct coll_node *query)
{
	struct coll_node *base = ui_base_node(ui);
	if (!query)
		return base;
	if (base->type == COLL_UNIVERSE) {
		coll_node_unref(base);
		return coll_node_ref(query);
	}
	struct coll_node *both = coll_node_new(COLL_INTERSECTION);
	coll_node_add_operand(both, base);
	coll_node_add_operand(both, query);
	coll_node_unref(base);
	return both;
}

struct coll_node *browser_view_node(struct ui *ui)
{
	return view_node(ui, ui->qnode && !ui->qlist ? ui->qnode : NULL);
}

static bool first_str(const struct mlib_index *idx, int prop, uint32_t id, uint32_t *vid)
{
	if (prop < 0)
		return false;
	const uint32_t *v;
	if (mlib_index_str_values(idx, prop, id, &v) == 0)
		return false;
	*vid = v[0];
	return true;
}

static void libgroups_free(struct ui_libgroups *lg)
{
	free(lg->artist_of);
	free(lg->album_of);
	free(lg->year_of);
	free(lg->artist_text);
	free(lg->album_text);
	free(lg->extra);
	free(lg->local);
	memset(lg, 0, sizeof *lg);
}

static uint32_t lg_add_text(const char ***texts, uint32_t *n, size_t *cap, const char *text)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*texts = xreallocarray(*texts, *cap, sizeof **texts);
	}
	(*texts)[*n] = text;
	return (*n)++;
}

/* The item's year as the album column shows it (0: none or not a year). */
static uint32_t item_year(const struct mlib_index *idx, int py, bool int_year, uint32_t id)
{
	int64_t y = 0;
	if (int_year) {
		mlib_index_int_value(idx, py, id, &y);
	} else if (py >= 0) {
		uint32_t yv;
		double d;
		if (first_str(idx, py, id, &yv) && mlib_index_dict_number(idx, py, yv, &d))
			y = (int64_t)d;
	}
	return y > 0 && y < 100000 ? (uint32_t)y : 0;
}

/* The artist group with this text (made when new). */
static uint32_t artist_group(struct ui_libgroups *lg, struct gmap *bytext, size_t *acap,
			     const char *text)
{
	uint64_t h = hash_text(text);
	for (;;) {
		bool found;
		uint32_t *gs = gmap_slot(bytext, h, &found);
		if (!found)
			return *gs = lg_add_text(&lg->artist_text, &lg->nartists, acap, text);
		if (strcmp(lg->artist_text[*gs], text) == 0)
			return *gs;
		h++; /* hash collision between different texts */
	}
}

static uint32_t album_group(struct ui_libgroups *lg, struct gmap *albums, size_t *lcap,
			    const struct mlib_index *idx, int pl, uint32_t artist, uint32_t album_vid)
{
	bool found;
	uint32_t *as = gmap_slot(albums, (uint64_t)artist << 32 | album_vid, &found);
	if (!found)
		*as = lg_add_text(&lg->album_text, &lg->nalbums, lcap,
				  album_vid == UINT32_MAX ? NULL : mlib_index_dict_text(idx, pl, album_vid));
	return *as;
}

static int extra_by_at(const void *a, const void *b)
{
	const struct ui_extra_group *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Group every item of the library once: artist = albumartist, else artist,
 * the same text in either dictionary being the same artist; album = (artist,
 * album title), so "Greatest Hits" of two artists stay apart. An item with
 * several artists (values) is in each one's group: the first in artist_of,
 * the others in lg->extra (walked from the index's multi-valued items, so a
 * library without any costs nothing). */
static void libgroups_build(struct ui_libgroups *lg, const struct mlib_index *idx)
{
	libgroups_free(lg);
	lg->index = idx;
	const struct u32vec *all = mlib_index_library_order(idx);
	size_t n = all->n, acap = 0, lcap = 0;
	lg->n = (uint32_t)n;
	lg->artist_of = xmalloc((n + 1) * sizeof *lg->artist_of);
	lg->album_of = xmalloc((n + 1) * sizeof *lg->album_of);
	lg->year_of = xmalloc((n + 1) * sizeof *lg->year_of);
	int pa = mlib_index_prop(idx, "albumartist"), pr = mlib_index_prop(idx, "artist");
	int pl = mlib_index_prop(idx, "album"), py = mlib_index_prop(idx, "year");
	bool int_year = py >= 0 && mlib_index_prop_kind(idx, py) == MLIB_PROP_INT;
	uint32_t na = pa >= 0 ? mlib_index_dict_size(idx, pa) : 0;
	uint32_t nr = pr >= 0 ? mlib_index_dict_size(idx, pr) : 0;
	/* Per dictionary value: its group + 1 (0 = not seen yet). */
	uint32_t *map_a = xcalloc(na + 1, sizeof *map_a), *map_r = xcalloc(nr + 1, sizeof *map_r);
	uint32_t *va = xmalloc((n + 1) * sizeof *va), *vr = xmalloc((n + 1) * sizeof *vr);
	uint32_t *vl = xmalloc((n + 1) * sizeof *vl);
	mlib_index_first_vids(idx, pa, all->v, n, va);
	mlib_index_first_vids(idx, pr, all->v, n, vr);
	mlib_index_first_vids(idx, pl, all->v, n, vl);
	struct gmap bytext, albums;
	gmap_init(&bytext, 256);
	gmap_init(&albums, 1024);
	uint32_t unknown = NO_GROUP;
	for (size_t i = 0; i < n; i++) {
		uint32_t g, vid = UINT32_MAX, *slot = NULL;
		int prop = -1;
		if (va[i] != UINT32_MAX) {
			vid = va[i];
			slot = &map_a[vid];
			prop = pa;
		} else if (vr[i] != UINT32_MAX) {
			vid = vr[i];
			slot = &map_r[vid];
			prop = pr;
		}
		if (!slot) {
			if (unknown == NO_GROUP)
				unknown = lg_add_text(&lg->artist_text, &lg->nartists, &acap, NULL);
			g = unknown;
		} else if (*slot) {
			g = *slot - 1;
		} else {
			g = artist_group(lg, &bytext, &acap, mlib_index_dict_text(idx, prop, vid));
			*slot = g + 1;
		}
		lg->artist_of[i] = g;
		lg->album_of[i] = album_group(lg, &albums, &lcap, idx, pl, g, vl[i]);
		lg->year_of[i] = item_year(idx, py, int_year, all->v[i]);
	}
	/* Further artists: albumartist's values when the item has one, else artist's. */
	size_t xcap = 0;
	for (int k = 0; k < 2; k++) {
		int prop = k == 0 ? pa : pr;
		const uint32_t *ids;
		size_t nids = mlib_index_multi_ids(idx, prop, &ids);
		for (size_t j = 0; j < nids; j++) {
			uint32_t r = mlib_index_library_rank(idx, ids[j]);
			const uint32_t *vids;
			size_t nv = mlib_index_str_values(idx, prop, ids[j], &vids);
			if (r >= n || nv < 2 || (k == 1 && va[r] != UINT32_MAX))
				continue;
			for (size_t v = 1; v < nv; v++) {
				uint32_t g = artist_group(lg, &bytext, &acap,
							  mlib_index_dict_text(idx, prop, vids[v]));
				if (g == lg->artist_of[r])
					continue;
				if (lg->nextra == xcap) {
					xcap = xcap ? xcap * 2 : 64;
					lg->extra = xreallocarray(lg->extra, xcap, sizeof *lg->extra);
				}
				lg->extra[lg->nextra++] = (struct ui_extra_group){
					r, g, album_group(lg, &albums, &lcap, idx, pl, g, vl[r])};
			}
		}
	}
	if (lg->nextra)
		qsort(lg->extra, lg->nextra, sizeof *lg->extra, extra_by_at);
	size_t nl = lg->nartists > lg->nalbums ? lg->nartists : lg->nalbums;
	lg->local = xcalloc(nl + 1, sizeof *lg->local);
	gmap_free(&bytext);
	gmap_free(&albums);
	free(map_a);
	free(map_r);
	free(va);
	free(vr);
	free(vl);
}

/* The first of the sorted extras at `at` (n when none). */
static size_t extra_find(const struct ui_extra_group *x, size_t n, uint32_t at)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && x[lo].at == at ? lo : n;
}

/* Whether result position i is listed under artist row `row`, and with
 * which album group (library album group; *album untouched when false). */
static bool result_in_artist(const struct ui *ui, size_t i, uint32_t row, uint32_t *album)
{
	if (ui->res_artist[i] == row) {
		if (album && ui->res_rank[i] < ui->lg.n)
			*album = ui->lg.album_of[ui->res_rank[i]];
		return true;
	}
	size_t k = extra_find(ui->res_extra, ui->nres_extra, (uint32_t)i);
	for (; k < ui->nres_extra && ui->res_extra[k].at == i; k++)
		if (ui->res_extra[k].artist == row) {
			if (album)
				*album = ui->res_extra[k].album;
			return true;
		}
	return false;
}

/* ui->res_rank: each result's library rank. A set arrives in library order:
 * walk the library order alongside it (sequential reads) unless it is small. */
static void result_ranks(struct ui *ui, const struct mlib_index *idx)
{
	size_t n = ui->results.n;
	free(ui->res_rank);
	ui->res_rank = xmalloc((n + 1) * sizeof *ui->res_rank);
	const struct u32vec *lib = mlib_index_library_order(idx);
	if (!ui->results_ordered && n > lib->n / 64) {
		size_t r = 0;
		for (size_t i = 0; i < n; i++) {
			while (r < lib->n && lib->v[r] != ui->results.v[i])
				r++;
			if (r == lib->n) { /* not in library order after all: look each up */
				for (; i < n; i++)
					ui->res_rank[i] = mlib_index_library_rank(idx, ui->results.v[i]);
				return;
			}
			ui->res_rank[i] = (uint32_t)r++;
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		ui->res_rank[i] = mlib_index_library_rank(idx, ui->results.v[i]);
}

static void build_artists(struct ui *ui)
{
	const struct mlib_index *idx = ui->app->index;
	if (idx != ui->index_seen) {
		ui->artists.n = ui->albums.n = 0;
		ui->artists.list.cur = ui->albums.list.cur = 0;
		ui->index_seen = idx;
	}
	const char *old = group_text(&ui->artists, ui->artists.list.cur);
	bool had = ui->artists.list.cur > 0;
	char *keep = old ? xstrdup(old) : NULL;

	groups_reset(&ui->artists);
	ui->nres_extra = 0;
	free(ui->res_artist);
	ui->res_artist = xmalloc((ui->results.n + 1) * sizeof *ui->res_artist);
	if (!idx || ui->results.n == 0)
		goto done;
	struct ui_libgroups *lg = &ui->lg;
	if (lg->index != idx)
		libgroups_build(lg, idx);
	result_ranks(ui, idx);
	/* Rows in order of first appearance in the result; lg->local maps a
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
			row = lg->local[ga];
			if (!row) {
				row = (uint32_t)groups_add(&ui->artists, lg->artist_text[ga], 0) + 1;
				lg->local[ga] = row;
				u32vec_push(&seen, ga);
			}
		}
		ui->res_artist[i] = row - 1;
		ui->artists.g[row - 1].count++;
		size_t k = r < lg->n ? extra_find(lg->extra, lg->nextra, r) : lg->nextra;
		for (; k < lg->nextra && lg->extra[k].at == r; k++) {
			uint32_t ga = lg->extra[k].artist, xrow = lg->local[ga];
			if (!xrow) {
				xrow = (uint32_t)groups_add(&ui->artists, lg->artist_text[ga], 0) + 1;
				lg->local[ga] = xrow;
				u32vec_push(&seen, ga);
			}
			ui->artists.g[xrow - 1].count++;
			if (ui->nres_extra == ui->res_extra_cap) {
				ui->res_extra_cap = ui->res_extra_cap ? ui->res_extra_cap * 2 : 64;
				ui->res_extra = xreallocarray(ui->res_extra, ui->res_extra_cap,
							      sizeof *ui->res_extra);
			}
			ui->res_extra[ui->nres_extra++] =
				(struct ui_extra_group){(uint32_t)i, xrow - 1, lg->extra[k].album};
		}
	}
	for (size_t k = 0; k < seen.n; k++)
		lg->local[seen.v[k]] = 0;
	u32vec_free(&seen);
done:
	ui->artists.g[0].count = (uint32_t)ui->results.n;
	ui->artists.list.cur = groups_find(&ui->artists, keep, had);
	free(keep);
}

void browser_rebuild_albums(struct ui *ui)
{
	const struct mlib_index *idx = ui->app->index;
	const char *old = group_text(&ui->albums, ui->albums.list.cur);
	bool had = ui->albums.list.cur > 0;
	char *keep = old ? xstrdup(old) : NULL;
	uint32_t sel = (uint32_t)ui->artists.list.cur;

	groups_reset(&ui->albums);
	free(ui->res_album);
	ui->res_album = xcalloc(ui->results.n + 1, sizeof *ui->res_album);
	uint32_t total = 0;
	struct ui_libgroups *lg = &ui->lg;
	if (idx && ui->results.n && lg->index == idx && ui->res_rank) {
		/* Rows' library album groups, to reset lg->local afterwards. */
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
				row = lg->local[gl];
				if (!row) { /* the year of the album's first track in the result */
					row = (uint32_t)groups_add(&ui->albums, lg->album_text[gl],
								   lg->year_of[r]) + 1;
					lg->local[gl] = row;
					u32vec_push(&seen, gl);
				}
			}
			ui->res_album[i] = row - 1;
			ui->albums.g[row - 1].count++;
			total++;
		}
		for (size_t k = 0; k < seen.n; k++)
			lg->local[seen.v[k]] = 0;
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

void browser_rebuild_tracks(struct ui *ui)
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

void browser_refresh(struct ui *ui)
{
	double t0 = ui_now_ms();
	if (ui->index_serial != ui->app->index_serial) {
		/* Replaced behind our back (a command on the `:` line): the
		 * caches go; build_artists drops the selection's texts. */
		ui->index_serial = ui->app->index_serial;
		ui->index_seen = NULL;
		libgroups_free(&ui->lg);
		coll_eval_cache_clear(ui->ecache);
	}
	if (!ui->app->index)
		ui->results.n = ui->tracks.n = 0;
	free(ui->qnote);
	ui->qnote = NULL;
	if (ui->app->index) {
		struct coll_eval_ctx ctx;
		ui_eval_ctx(ui, &ctx);
		/* A search is ranked and forgiving (coll/search.h); what it
		 * forgave is shown in the search bar. */
		struct coll_search s = {0};
		bool searching = ui->qnode && !ui->qlist;
		if (searching)
			coll_search_prepare(&ctx, ui->qnode, ui->good_query, 0, &s);
		struct coll_node *node = view_node(ui, searching ? s.node : NULL);
		struct coll_result res = {0};
		struct crate_err err = {0};
		/* The search alone: its LIMIT keeps the best, not the first */
		int rc = searching && node == s.node ? coll_search_eval(&ctx, &s, &res, &err)
						     : coll_eval(&ctx, node, &res, &err);
		if (rc == 0) {
			if (searching) {
				coll_search_rank(&ctx, &s, &res);
				if (s.notes.len)
					ui->qnote = xstrdup(s.notes.buf);
			}
			/* The track column holds positions in the old results: keep
			 * the selection as an id, and drop the positions before the
			 * results they index change. */
			uint32_t keep = selected_track_id(ui);
			ui->keep_track_id = keep ? keep : ui->keep_track_id;
			ui->tracks.n = 0;
			u32vec_free(&ui->results);
			ui->results = res.ids;
			ui->results_ordered = res.ordered;
		} else {
			ui_message(ui, true, "%s", err.msg);
		}
		coll_node_unref(node);
		if (searching)
			coll_search_free(&s);
	}
	double t1 = ui_now_ms();
	build_artists(ui);
	browser_rebuild_albums(ui);
	ui->group_ms += ui_now_ms() - t1;
	ui->eval_ms += ui_now_ms() - t0;
	ui->dirty = true;
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
	ui->index_seen = ui->app->index;
	ui->index_serial = ui->app->index_serial;
	libgroups_free(&ui->lg); /* a new index may sit at the old one's address */
	coll_eval_cache_clear(ui->ecache);
	browser_refresh(ui);
	if (keep && ui->keep_track) {
		for (size_t i = 0; i < ui->tracks.n; i++)
			if (ui->results.v[ui->tracks.v[i]] == ui->keep_track) {
				ui->track_list.cur = i;
				break;
			}
	}
}

void browser_free(struct ui *ui)
{
	browser_keep_selection_drop(ui);
	libgroups_free(&ui->lg);
	u32vec_free(&ui->results);
	u32vec_free(&ui->tracks);
	free(ui->res_artist);
	free(ui->res_album);
	free(ui->res_extra);
	free(ui->res_rank);
	free(ui->artists.g);
	free(ui->albums.g);
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
		snprintf(count, sizeof count, " %u ", g->count);
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
	bool all_albums = ui->albums.list.cur == 0;
	ui_list_fix(&ui->track_list, ui->tracks.n, r->h);
	for (int row = 0; row < r->h; row++) {
		size_t i = ui->track_list.top + (size_t)row;
		int y = r->y + row;
		if (i >= ui->tracks.n) {
			draw_fill(y, r->x, r->w, 0);
			continue;
		}
		uint32_t id = ui->results.v[ui->tracks.v[i]];
		char nr[32], title[512], dur[32], line[1200], b2[256];
		const char *n = ui_prop(ui, id, "tracknr", nr, sizeof nr);
		ui_title(ui, id, title, sizeof title);
		const char *artist = ui_prop(ui, id, "artist", b2, sizeof b2);
		int64_t ms = -1;
		const char *d = ui_prop(ui, id, "duration", dur, sizeof dur);
		if (d)
			ms = strtoll(d, NULL, 10);
		char tbuf[32];
		ui_fmt_time(ms, tbuf, sizeof tbuf);
		char stars[64];
		ui_rating_marks(ui, id, stars, sizeof stars);
		if (all_albums && artist && ui->artists.list.cur == 0)
			snprintf(line, sizeof line, "%c%2s%s %s \xe2\x80\x93 %s", id == playing ? '>' : ' ',
				 n ? n : "", n ? "." : " ", artist, title);
		else
			snprintf(line, sizeof line, "%c%2s%s %s", id == playing ? '>' : ' ', n ? n : "",
				 n ? "." : " ", title);
		int attr = id == playing ? theme_attr(UR_PLAYING) : 0;
		if (i == ui->track_list.cur)
			attr = theme_attr(focused ? UR_SELECTED : UR_SELECTED_DIM) | (id == playing ? A_BOLD : 0);
		int tw = r->w >= 20 ? 8 : 0; /* ui_fmt_time: at most 7 cells */
		/* The rating sits before the time, so a long title never hides it. */
		int sw = tw && stars[0] ? (int)ui_text_width(stars) : 0;
		draw_text(ui, y, r->x, r->w - tw - sw, line, attr);
		if (sw)
			draw_text(ui, y, r->x + r->w - tw - sw, sw, stars, attr);
		if (tw) {
			char t7[16];
			snprintf(t7, sizeof t7, "%7s ", tbuf);
			draw_text(ui, y, r->x + r->w - tw, tw, t7, attr);
		}
	}
}

void browser_draw(struct ui *ui)
{
	char all_a[64], all_l[64];
	snprintf(all_a, sizeof all_a, "All artists");
	snprintf(all_l, sizeof all_l, "All albums");
	if (ui->L.sidebar.w)
		coll_pane_draw(ui, &ui->L.sidebar, false);
	if (ui->L.col[0].w)
		draw_group_col(ui, &ui->L.col[0], &ui->artists, ui->focus == 0, all_a, false);
	if (ui->L.col[1].w)
		draw_group_col(ui, &ui->L.col[1], &ui->albums, ui->focus == 1, all_l, true);
	if (ui->L.col[2].w)
		draw_tracks(ui, &ui->L.col[2], ui->focus == 2);
	if (ui->results.n == 0 && ui->L.col[2].w && ui->L.col[2].h) {
		const char *why = !ui->app->index || mlib_index_count(ui->app->index) == 0
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

bool browser_key(struct ui *ui, enum ui_action a)
{
	int h = ui->L.col[ui->focus].h;
	switch (a) {
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

void browser_selection(struct ui *ui, struct u32vec *out, size_t *start)
{
	out->n = 0;
	for (size_t i = 0; i < ui->tracks.n; i++)
		u32vec_push(out, ui->results.v[ui->tracks.v[i]]);
	*start = ui->focus == 2 && ui->track_list.cur < ui->tracks.n ? ui->track_list.cur : 0;
}

bool browser_click(struct ui *ui, int y, int x, bool dbl)
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
			act_play(ui);
		return true;
	}
	const struct ui_rect *s = &ui->L.sidebar;
	if (s->w && x >= s->x && x < s->x + s->w && y >= s->y && y < s->y + s->h)
		return coll_pane_click(ui, y, dbl);
	return false;
}
