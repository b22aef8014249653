/* Artist and album groups of the library (see index_groups.h). One pass
 * over the library order with per-dictionary lookup arrays, so it stays
 * fast at a million tracks; base/hashtab joins an artist spelled the same
 * in the albumartist and artist dictionaries. */
#include "medialib/index_groups.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hashtab.h"
#include "base/vec.h"
#include "medialib/index.h"

#define NO_GROUP UINT32_MAX

/* ---- building ---- */

/* What one build needs besides the groups. */
struct builder {
	struct mlib_groups *g;
	const struct mlib_index *idx;
	int pa, pr, pl;           /* albumartist, artist, album properties (-1: none) */
	size_t acap, lcap, xcap;  /* capacities of g's growing arrays */
	struct hashtab bytext;    /* an artist's text -> its artist group */
	struct hashtab albums;    /* (artist group, album value) -> album group */
	uint64_t *album_key;      /* per album group: artist group << 32 | album value */
	size_t kcap;
	uint32_t *va, *vr, *vl;   /* by rank: first albumartist, artist, album value */
};

static uint32_t add_text(const char ***texts, uint32_t *n, size_t *cap, const char *text)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*texts = xreallocarray(*texts, *cap, sizeof **texts);
	}
	(*texts)[*n] = text;
	return (*n)++;
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
static uint32_t artist_group(struct builder *b, const char *text)
{
	struct mlib_groups *g = b->g;
	uint32_t h = hash_bytes(text, strlen(text));
	struct hashtab_probe p = hashtab_probe(&b->bytext, h);
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (strcmp(g->artist_text[i], text) == 0)
			return i;
	uint32_t grp = add_text(&g->artist_text, &g->nartists, &b->acap, text);
	hashtab_insert(&b->bytext, h, grp);
	return grp;
}

static uint32_t album_group(struct builder *b, uint32_t artist, uint32_t album_vid)
{
	uint64_t key = (uint64_t)artist << 32 | album_vid;
	uint32_t h = hash_bytes(&key, sizeof key);
	struct hashtab_probe p = hashtab_probe(&b->albums, h);
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (b->album_key[i] == key)
			return i;
	uint32_t grp = add_text(&b->g->album_text, &b->g->nalbums, &b->lcap,
				album_vid == UINT32_MAX ? NULL
							: mlib_index_dict_text(b->idx, b->pl, album_vid));
	if (grp >= b->kcap) {
		b->kcap = b->kcap ? b->kcap * 2 : 1024;
		b->album_key = xreallocarray(b->album_key, b->kcap, sizeof *b->album_key);
	}
	b->album_key[grp] = key;
	hashtab_insert(&b->albums, h, grp);
	return grp;
}

/* Every item's first artist, album and year. */
static void group_firsts(struct builder *b, const struct u32vec *all)
{
	struct mlib_groups *g = b->g;
	const struct mlib_index *idx = b->idx;
	int py = mlib_index_prop(idx, "year");
	bool int_year = py >= 0 && mlib_index_prop_kind(idx, py) == MLIB_PROP_INT;
	uint32_t na = b->pa >= 0 ? mlib_index_dict_size(idx, b->pa) : 0;
	uint32_t nr = b->pr >= 0 ? mlib_index_dict_size(idx, b->pr) : 0;
	/* Per dictionary value: its group + 1 (0 = not seen yet). */
	uint32_t *map_a = xcalloc(na + 1, sizeof *map_a), *map_r = xcalloc(nr + 1, sizeof *map_r);
	uint32_t unknown = NO_GROUP;
	for (size_t i = 0; i < all->n; i++) {
		uint32_t grp, vid = UINT32_MAX, *slot = NULL;
		int prop = -1;
		if (b->va[i] != UINT32_MAX) {
			vid = b->va[i];
			slot = &map_a[vid];
			prop = b->pa;
		} else if (b->vr[i] != UINT32_MAX) {
			vid = b->vr[i];
			slot = &map_r[vid];
			prop = b->pr;
		}
		if (!slot) {
			if (unknown == NO_GROUP)
				unknown = add_text(&g->artist_text, &g->nartists, &b->acap, NULL);
			grp = unknown;
		} else if (*slot) {
			grp = *slot - 1;
		} else {
			grp = artist_group(b, mlib_index_dict_text(idx, prop, vid));
			*slot = grp + 1;
		}
		g->artist_of[i] = grp;
		g->album_of[i] = album_group(b, grp, b->vl[i]);
		g->year_of[i] = item_year(idx, py, int_year, all->v[i]);
	}
	free(map_a);
	free(map_r);
}

static void add_extra(struct builder *b, uint32_t rank, uint32_t artist)
{
	struct mlib_groups *g = b->g;
	if (g->nextra == b->xcap) {
		b->xcap = b->xcap ? b->xcap * 2 : 64;
		g->extra = xreallocarray(g->extra, b->xcap, sizeof *g->extra);
	}
	g->extra[g->nextra++] =
		(struct mlib_extra_group){rank, artist, album_group(b, artist, b->vl[rank])};
}

static int extra_by_at(const void *a, const void *b)
{
	const struct mlib_extra_group *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Further artists: albumartist's values when the item has one, else
 * artist's (walked from the index's multi-valued items, so a library
 * without any costs nothing). */
static void group_extras(struct builder *b)
{
	struct mlib_groups *g = b->g;
	for (int k = 0; k < 2; k++) {
		int prop = k == 0 ? b->pa : b->pr;
		const uint32_t *ids;
		size_t nids = mlib_index_multi_ids(b->idx, prop, &ids);
		for (size_t j = 0; j < nids; j++) {
			uint32_t r = mlib_index_library_rank(b->idx, ids[j]);
			const uint32_t *vids;
			size_t nv = mlib_index_str_values(b->idx, prop, ids[j], &vids);
			if (r >= g->n || nv < 2 || (k == 1 && b->va[r] != UINT32_MAX))
				continue;
			for (size_t v = 1; v < nv; v++) {
				uint32_t a = artist_group(b, mlib_index_dict_text(b->idx, prop, vids[v]));
				if (a != g->artist_of[r])
					add_extra(b, r, a);
			}
		}
	}
	if (g->nextra)
		qsort(g->extra, g->nextra, sizeof *g->extra, extra_by_at);
}

struct mlib_groups *mlib_index_groups(const struct mlib_index *idx)
{
	struct mlib_groups *g = xcalloc(1, sizeof *g);
	const struct u32vec *all = mlib_index_library_order(idx);
	size_t n = all->n;
	g->n = (uint32_t)n;
	g->artist_of = xmalloc((n + 1) * sizeof *g->artist_of);
	g->album_of = xmalloc((n + 1) * sizeof *g->album_of);
	g->year_of = xmalloc((n + 1) * sizeof *g->year_of);
	struct builder b = {.g = g, .idx = idx};
	b.pa = mlib_index_prop(idx, "albumartist");
	b.pr = mlib_index_prop(idx, "artist");
	b.pl = mlib_index_prop(idx, "album");
	b.va = xmalloc((n + 1) * sizeof *b.va);
	b.vr = xmalloc((n + 1) * sizeof *b.vr);
	b.vl = xmalloc((n + 1) * sizeof *b.vl);
	mlib_index_first_vids(idx, b.pa, all->v, n, b.va);
	mlib_index_first_vids(idx, b.pr, all->v, n, b.vr);
	mlib_index_first_vids(idx, b.pl, all->v, n, b.vl);
	group_firsts(&b, all);
	group_extras(&b);
	hashtab_free(&b.bytext);
	hashtab_free(&b.albums);
	free(b.album_key);
	free(b.va);
	free(b.vr);
	free(b.vl);
	return g;
}

void mlib_groups_free(struct mlib_groups *g)
{
	if (!g)
		return;
	free(g->artist_of);
	free(g->album_of);
	free(g->year_of);
	free(g->artist_text);
	free(g->album_text);
	free(g->extra);
	free(g);
}

size_t mlib_extra_find(const struct mlib_extra_group *x, size_t n, uint32_t at)
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

void mlib_index_ranks(const struct mlib_index *idx, const uint32_t *ids, size_t n,
		      bool in_library_order, uint32_t *rank)
{
	const struct u32vec *lib = mlib_index_library_order(idx);
	if (in_library_order && n > lib->n / 64) {
		size_t r = 0;
		for (size_t i = 0; i < n; i++) {
			while (r < lib->n && lib->v[r] != ids[i])
				r++;
			if (r == lib->n) { /* not in library order after all: look each up */
				for (; i < n; i++)
					rank[i] = mlib_index_library_rank(idx, ids[i]);
				return;
			}
			rank[i] = (uint32_t)r++;
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		rank[i] = mlib_index_library_rank(idx, ids[i]);
}
