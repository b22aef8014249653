/* The library's groups by levels (see index_groups.h). One pass over the
 * library order: each level's group by a lookup array by dictionary value
 * (the artist's two dictionaries joined by text through base/hashtab),
 * numbers through one hash, so it stays fast at a million tracks. */
#include "medialib/index_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/hashtab.h"
#include "base/vec.h"
#include "medialib/index.h"

#define NO_GROUP UINT32_MAX
#define NO_VALUE INT64_MIN
/* The per-item helpers of the one pass: inlined whatever the compiler's
 * size heuristics think, as the fixed artist/album code was. */
#define HOT static inline __attribute__((always_inline))

/* ---- level sets ---- */

/* Properties that name one track or one moment: as a level, every row
 * would hold a track or two. */
static const char *const not_levels[] = {
	"url", "title", "filesize", "mtime", "added", "lastplayed", "duration",
	"cue_start", "cue_end", "id",
};

static bool field_name_ok(const char *w, size_t n)
{
	if (n == 0 || n >= MLIB_LEVEL_NAME || !(w[0] >= 'a' && w[0] <= 'z'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9') || w[i] == '_'))
			return false;
	return true;
}

static int level_add(struct mlib_levels *out, const char *w, size_t n, struct crate_err *err)
{
	if (!field_name_ok(w, n))
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "'%.*s' is not a field name (lower-case letters, digits, _)",
				     (int)(n > 40 ? 40 : n), w);
	for (size_t i = 0; i < sizeof not_levels / sizeof not_levels[0]; i++)
		if (strlen(not_levels[i]) == n && memcmp(not_levels[i], w, n) == 0)
			return crate_err_set(err, CRATE_ERR_INVALID,
					     "'%.*s' cannot be a level: each track has its own",
					     (int)n, w);
	for (unsigned i = 0; i < out->n; i++)
		if (strlen(out->prop[i]) == n && memcmp(out->prop[i], w, n) == 0)
			return crate_err_set(err, CRATE_ERR_INVALID, "'%.*s' is a level twice",
					     (int)n, w);
	if (out->n == MLIB_GROUP_LEVELS)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "at most %d levels (the tracks are the last column)",
				     MLIB_GROUP_LEVELS);
	memcpy(out->prop[out->n], w, n);
	out->prop[out->n++][n] = '\0';
	return 0;
}

int mlib_levels_parse(const char *text, struct mlib_levels *out, struct crate_err *err)
{
	struct mlib_levels lv = {0};
	const char *p = text ? text : "";
	for (;;) {
		p += strspn(p, " \t,");
		if (!*p)
			break;
		size_t n = strcspn(p, " \t,");
		if (level_add(&lv, p, n, err) != 0)
			return -1;
		p += n;
	}
	if (lv.n == 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "no levels: name 1 to %d properties, e.g. 'genre album'",
				     MLIB_GROUP_LEVELS);
	*out = lv;
	return 0;
}

void mlib_levels_format(const struct mlib_levels *lv, char *buf, size_t size)
{
	size_t len = 0;
	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < lv->n && len < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s", i ? " " : "", lv->prop[i]);
		len += w > 0 ? (size_t)w : 0;
	}
}

bool mlib_levels_equal(const struct mlib_levels *a, const struct mlib_levels *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++)
		if (strcmp(a->prop[i], b->prop[i]) != 0)
			return false;
	return true;
}

/* ---- building ---- */

enum level_kind { LK_NONE, LK_ARTIST, LK_STRING, LK_INT };

struct level {
	enum level_kind kind;
	int prop;             /* the index's property (-1: no item has it) */
	uint32_t *vid;        /* LK_STRING: by rank, first value id (UINT32_MAX: none) */
	uint32_t *dense;      /* not LK_INT: value -> group + 1, 0 = not seen */
	size_t ndense;
	uint32_t unknown;     /* the group of items without a value */
	struct hashtab keys;  /* LK_INT: number -> group */
	int64_t *number;      /* LK_INT, by group: its number */
	size_t cap;           /* of the groups' text (and number) arrays */
};

/* What one build needs besides the groups. */
struct builder {
	struct mlib_groups *g;
	const struct mlib_index *idx;
	const struct u32vec *all;
	struct level lv[MLIB_GROUP_LEVELS];
	/* "artist": the first albumartist, else the first artist, by text. */
	int pa, pr;
	uint32_t *va, *vr;        /* by rank: first albumartist, artist value */
	uint32_t *map_a, *map_r;  /* dictionary value -> artist + 1, 0 = not seen */
	const char **atext;       /* by artist: its text (unless artist_first) */
	uint8_t *comp;            /* by rank: a compilation without an album artist
				   * (NULL: none in the library) */
	uint32_t various;         /* their artist + 1, 0 = not seen */
	uint32_t nat;
	size_t atcap, xcap;
	struct hashtab bytext;    /* an artist's text -> artist */
	/* The artist is the first level (the default): an artist is its
	 * group there, numbered with the unknown group in g->text[0], so the
	 * hot path needs no second lookup. */
	bool artist_first;
};

static const char *artist_text(const struct builder *b, uint32_t artist)
{
	return b->artist_first ? b->g->text[0][artist] : b->atext[artist];
}

static uint32_t new_group(struct builder *b, unsigned k, int64_t value);

/* The artist spelled text (made when new). */
static uint32_t artist_named(struct builder *b, const char *text)
{
	uint32_t h = hash_bytes(text, strlen(text));
	struct hashtab_probe p = hashtab_probe(&b->bytext, h);
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (strcmp(artist_text(b, i), text) == 0)
			return i;
	if (b->artist_first) {
		uint32_t grp = new_group(b, 0, NO_VALUE);
		b->g->text[0][grp] = text;
		hashtab_insert(&b->bytext, h, grp);
		return grp;
	}
	if (b->nat == b->atcap) {
		b->atcap = b->atcap ? b->atcap * 2 : 256;
		b->atext = xreallocarray(b->atext, b->atcap, sizeof *b->atext);
	}
	b->atext[b->nat] = text;
	hashtab_insert(&b->bytext, h, b->nat);
	return b->nat++;
}

HOT int64_t artist_value(struct builder *b, uint32_t r)
{
	uint32_t vid, *slot;
	int prop;
	if (b->va[r] != UINT32_MAX) {
		vid = b->va[r];
		slot = &b->map_a[vid];
		prop = b->pa;
	} else if (b->comp && b->comp[r]) {
		if (!b->various)
			b->various = artist_named(b, MLIB_VARIOUS_ARTISTS) + 1;
		return b->various - 1;
	} else if (b->vr[r] != UINT32_MAX) {
		vid = b->vr[r];
		slot = &b->map_r[vid];
		prop = b->pr;
	} else {
		return NO_VALUE;
	}
	if (!*slot)
		*slot = artist_named(b, mlib_index_dict_text(b->idx, prop, vid)) + 1;
	return *slot - 1;
}

/* Level k's value of the item at rank r. */
HOT int64_t value_of(struct builder *b, unsigned k, uint32_t r)
{
	const struct level *lv = &b->lv[k];
	int64_t v;
	switch (lv->kind) {
	case LK_ARTIST:
		return artist_value(b, r);
	case LK_STRING:
		return lv->vid[r] == UINT32_MAX ? NO_VALUE : lv->vid[r];
	case LK_INT:
		return mlib_index_int_value(b->idx, lv->prop, b->all->v[r], &v) ? v : NO_VALUE;
	default:
		return NO_VALUE;
	}
}

/* The text of a group of level k with this value: borrowed from the
 * index, or the number written into g->owned. */
static const char *value_text(struct builder *b, unsigned k, int64_t value)
{
	const struct level *lv = &b->lv[k];
	struct mlib_groups *g = b->g;
	if (value == NO_VALUE)
		return NULL;
	if (lv->kind == LK_ARTIST)
		return b->atext[value];
	if (lv->kind == LK_STRING)
		return mlib_index_dict_text(b->idx, lv->prop, (uint32_t)value);
	if (g->nowned == g->owned_cap) {
		g->owned_cap = g->owned_cap ? g->owned_cap * 2 : 64;
		g->owned = xreallocarray(g->owned, g->owned_cap, sizeof *g->owned);
	}
	char num[32];
	snprintf(num, sizeof num, "%lld", (long long)value);
	return g->owned[g->nowned++] = xstrdup(num);
}

static uint32_t new_group(struct builder *b, unsigned k, int64_t value)
{
	struct level *lv = &b->lv[k];
	struct mlib_groups *g = b->g;
	if (g->ngroups[k] == lv->cap) {
		lv->cap = lv->cap ? lv->cap * 2 : 256;
		g->text[k] = xreallocarray(g->text[k], lv->cap, sizeof *g->text[k]);
		if (lv->kind == LK_INT)
			lv->number = xreallocarray(lv->number, lv->cap, sizeof *lv->number);
	}
	g->text[k][g->ngroups[k]] = value_text(b, k, value);
	return g->ngroups[k]++;
}

/* Level k's group of a value that is a small number (a dictionary value
 * or an artist): a lookup, no hash. */
HOT uint32_t dense_group(struct builder *b, unsigned k, int64_t value)
{
	struct level *lv = &b->lv[k];
	if (value == NO_VALUE) {
		if (lv->unknown == NO_GROUP)
			lv->unknown = new_group(b, k, NO_VALUE);
		return lv->unknown;
	}
	if (k == 0 && b->artist_first)
		return (uint32_t)value;
	size_t v = (size_t)value;
	if (v >= lv->ndense) { /* artists are numbered as they come */
		size_t n = lv->ndense ? lv->ndense : 256;
		while (n <= v)
			n *= 2;
		lv->dense = xreallocarray(lv->dense, n, sizeof *lv->dense);
		memset(lv->dense + lv->ndense, 0, (n - lv->ndense) * sizeof *lv->dense);
		lv->ndense = n;
	}
	if (!lv->dense[v])
		lv->dense[v] = new_group(b, k, value) + 1;
	return lv->dense[v] - 1;
}

/* Level k's group of this value (made when new). A group is a value at
 * every level: under a selection to its left a column lists the values
 * of the tracks it lets through, and under "All" one row stands for each
 * value however many artists have it (index_groups.h). */
HOT uint32_t group_of(struct builder *b, unsigned k, int64_t value)
{
	struct level *lv = &b->lv[k];
	if (lv->kind != LK_INT)
		return dense_group(b, k, value);
	uint32_t h = hash_bytes(&value, sizeof value);
	struct hashtab_probe p = hashtab_probe(&lv->keys, h);
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (lv->number[i] == value)
			return i;
	uint32_t grp = new_group(b, k, value);
	lv->number[grp] = value;
	hashtab_insert(&lv->keys, h, grp);
	return grp;
}

/* The item's year as the album rows show it (0: none or not a year). */
static uint32_t item_year(const struct mlib_index *idx, int py, bool int_year, uint32_t id)
{
	int64_t y = 0;
	if (int_year) {
		mlib_index_int_value(idx, py, id, &y);
	} else if (py >= 0) {
		uint32_t yv;
		double d;
		mlib_index_first_vids(idx, py, &id, 1, &yv);
		if (yv != UINT32_MAX && mlib_index_dict_number(idx, py, yv, &d))
			y = (int64_t)d;
	}
	return y > 0 && y < 100000 ? (uint32_t)y : 0;
}

static bool shows_years(const struct mlib_levels *lv)
{
	for (unsigned k = 0; k < lv->n; k++)
		if (strcmp(lv->prop[k], "album") == 0)
			return true;
	return false;
}

/* The one pass: every item's group at each level, and its year. */
static void group_firsts(struct builder *b)
{
	struct mlib_groups *g = b->g;
	unsigned nl = g->levels.n;
	int py = mlib_index_prop(b->idx, "year");
	bool int_year = py >= 0 && mlib_index_prop_kind(b->idx, py) == MLIB_PROP_INT;
	for (uint32_t r = 0; r < g->n; r++) {
		for (unsigned k = 0; k < nl; k++)
			g->of[k][r] = group_of(b, k, value_of(b, k, r));
		if (g->year_of)
			g->year_of[r] = item_year(b->idx, py, int_year, b->all->v[r]);
	}
}

/* A group's year so far (UINT32_MAX: no item yet) with one more item's. */
static uint32_t year_joined(uint32_t so_far, uint32_t y)
{
	return so_far == UINT32_MAX || so_far == y ? y : 0;
}

/* The years the album levels' groups share (after the extras). */
static void group_years(struct mlib_groups *g)
{
	for (unsigned k = 0; g->year_of && k < g->levels.n; k++) {
		if (strcmp(g->levels.prop[k], "album") != 0)
			continue;
		uint32_t *gy = xmalloc(((size_t)g->ngroups[k] + 1) * sizeof *gy);
		memset(gy, 0xff, ((size_t)g->ngroups[k] + 1) * sizeof *gy);
		for (uint32_t r = 0; r < g->n; r++)
			gy[g->of[k][r]] = year_joined(gy[g->of[k][r]], g->year_of[r]);
		for (size_t x = 0; x < g->nextra; x++) {
			uint32_t grp = g->extra[x].grp[k];
			gy[grp] = year_joined(gy[grp], g->year_of[g->extra[x].at]);
		}
		g->group_year[k] = gy;
	}
}

/* The item at rank r is also under first-level group g0 (its groups at
 * the deeper levels are its own: a value, whatever the first). */
static void add_extra(struct builder *b, uint32_t r, uint32_t g0)
{
	struct mlib_groups *g = b->g;
	if (g0 == g->of[0][r])
		return;
	if (g->nextra == b->xcap) {
		b->xcap = b->xcap ? b->xcap * 2 : 64;
		g->extra = xreallocarray(g->extra, b->xcap, sizeof *g->extra);
	}
	struct mlib_extra_group *x = &g->extra[g->nextra++];
	x->at = r;
	x->grp[0] = g0;
	for (unsigned k = 1; k < MLIB_GROUP_LEVELS; k++)
		x->grp[k] = k < g->levels.n ? g->of[k][r] : NO_GROUP;
}

static int extra_by_at(const void *a, const void *b)
{
	const struct mlib_extra_group *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The further values of the first level's property (walked from the
 * index's multi-valued items, so a library without any costs nothing).
 * For the artist: albumartist's values when the item has one, else
 * artist's. */
static void group_extras(struct builder *b)
{
	struct mlib_groups *g = b->g;
	const struct level *lv = &b->lv[0];
	int props[2] = {-1, -1};
	if (lv->kind == LK_ARTIST) {
		props[0] = b->pa;
		props[1] = b->pr;
	} else if (lv->kind == LK_STRING) {
		props[0] = lv->prop;
	}
	for (int k = 0; k < 2; k++) {
		if (props[k] < 0)
			continue;
		const uint32_t *ids;
		size_t nids = mlib_index_multi_ids(b->idx, props[k], &ids);
		for (size_t j = 0; j < nids; j++) {
			uint32_t r = mlib_index_library_rank(b->idx, ids[j]);
			const uint32_t *vids;
			size_t nv = mlib_index_str_values(b->idx, props[k], ids[j], &vids);
			if (r >= g->n || nv < 2 ||
			    (k == 1 && (b->va[r] != UINT32_MAX || (b->comp && b->comp[r]))))
				continue;
			for (size_t v = 1; v < nv; v++) {
				int64_t val = vids[v];
				if (lv->kind == LK_ARTIST)
					val = artist_named(
						b, mlib_index_dict_text(b->idx, props[k], vids[v]));
				add_extra(b, r, dense_group(b, 0, val));
			}
		}
	}
	if (g->nextra)
		qsort(g->extra, g->nextra, sizeof *g->extra, extra_by_at);
	if (g->nextra) {
		g->extra_bits = xcalloc((size_t)g->n / 64 + 1, sizeof *g->extra_bits);
		for (size_t i = 0; i < g->nextra; i++)
			g->extra_bits[g->extra[i].at >> 6] |= (uint64_t)1 << (g->extra[i].at & 63);
	}
}

static void level_init(struct builder *b, unsigned k, const char *name)
{
	struct level *lv = &b->lv[k];
	size_t n = b->g->n;
	lv->unknown = NO_GROUP;
	lv->prop = mlib_index_prop(b->idx, name);
	if (strcmp(name, "artist") == 0) {
		lv->kind = LK_ARTIST;
	} else if (lv->prop < 0) {
		lv->kind = LK_NONE;
	} else if (mlib_index_prop_kind(b->idx, lv->prop) == MLIB_PROP_INT) {
		lv->kind = LK_INT;
	} else {
		lv->kind = LK_STRING;
		lv->vid = xmalloc((n + 1) * sizeof *lv->vid);
		mlib_index_first_vids(b->idx, lv->prop, b->all->v, n, lv->vid);
	}
	b->g->of[k] = xmalloc((n + 1) * sizeof *b->g->of[k]);
}

/* Whether a compilation tag's text says yes (TCMP, iTunes' cpil and
 * Vorbis COMPILATION write 1; some taggers write true or yes). */
static bool says_yes(const char *text)
{
	return text && (strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0 ||
			strcasecmp(text, "yes") == 0);
}

/* By rank, the compilations without an album artist: their artist is
 * Various Artists, so the album stays one (as cmus, MPD and beets keep
 * it) instead of showing once under each track artist. */
static void compilations_init(struct builder *b)
{
	int pc = mlib_index_prop(b->idx, "compilation");
	if (pc < 0)
		return;
	size_t n = b->g->n;
	bool any = false;
	b->comp = xcalloc(n + 1, 1);
	if (mlib_index_prop_kind(b->idx, pc) == MLIB_PROP_INT) {
		int64_t v;
		for (size_t r = 0; r < n; r++)
			any |= b->comp[r] = b->va[r] == UINT32_MAX &&
					    mlib_index_int_value(b->idx, pc, b->all->v[r], &v) && v != 0;
	} else {
		uint32_t nd = mlib_index_dict_size(b->idx, pc);
		uint8_t *yes = xcalloc(nd + 1, 1);
		for (uint32_t d = 0; d < nd; d++)
			yes[d] = says_yes(mlib_index_dict_text(b->idx, pc, d));
		uint32_t *vc = xmalloc((n + 1) * sizeof *vc);
		mlib_index_first_vids(b->idx, pc, b->all->v, n, vc);
		for (size_t r = 0; r < n; r++)
			any |= b->comp[r] = b->va[r] == UINT32_MAX && vc[r] < nd && yes[vc[r]];
		free(vc);
		free(yes);
	}
	if (!any) {
		free(b->comp);
		b->comp = NULL;
	}
}

/* The artist's dictionaries, when a level is the artist. */
static void artist_init(struct builder *b)
{
	size_t n = b->g->n;
	b->pa = mlib_index_prop(b->idx, "albumartist");
	b->pr = mlib_index_prop(b->idx, "artist");
	uint32_t na = b->pa >= 0 ? mlib_index_dict_size(b->idx, b->pa) : 0;
	uint32_t nr = b->pr >= 0 ? mlib_index_dict_size(b->idx, b->pr) : 0;
	b->map_a = xcalloc(na + 1, sizeof *b->map_a);
	b->map_r = xcalloc(nr + 1, sizeof *b->map_r);
	b->va = xmalloc((n + 1) * sizeof *b->va);
	b->vr = xmalloc((n + 1) * sizeof *b->vr);
	mlib_index_first_vids(b->idx, b->pa, b->all->v, n, b->va);
	mlib_index_first_vids(b->idx, b->pr, b->all->v, n, b->vr);
	compilations_init(b);
}

static void builder_free(struct builder *b)
{
	for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++) {
		free(b->lv[k].vid);
		free(b->lv[k].dense);
		free(b->lv[k].number);
		hashtab_free(&b->lv[k].keys);
	}
	free(b->va);
	free(b->vr);
	free(b->map_a);
	free(b->map_r);
	free(b->atext);
	free(b->comp);
	hashtab_free(&b->bytext);
}

struct mlib_groups *mlib_index_groups(const struct mlib_index *idx, const struct mlib_levels *lv)
{
	struct mlib_groups *g = xcalloc(1, sizeof *g);
	struct crate_err err;
	if (lv)
		g->levels = *lv;
	else
		mlib_levels_parse(MLIB_LEVELS_DEFAULT, &g->levels, &err);
	struct builder b = {.g = g, .idx = idx, .all = mlib_index_library_order(idx)};
	g->n = (uint32_t)b.all->n;
	bool artist = false;
	for (unsigned k = 0; k < g->levels.n; k++) {
		level_init(&b, k, g->levels.prop[k]);
		artist |= b.lv[k].kind == LK_ARTIST;
	}
	b.artist_first = b.lv[0].kind == LK_ARTIST;
	if (artist)
		artist_init(&b);
	if (shows_years(&g->levels))
		g->year_of = xmalloc((g->n + 1) * sizeof *g->year_of);
	/* The lookup arrays, sized once when the dictionary is known (the
	 * artist's grow as artists come). */
	for (unsigned k = 0; k < g->levels.n; k++) {
		if (b.lv[k].kind != LK_STRING)
			continue;
		b.lv[k].ndense = mlib_index_dict_size(idx, b.lv[k].prop) + 1;
		b.lv[k].dense = xcalloc(b.lv[k].ndense, sizeof *b.lv[k].dense);
	}
	group_firsts(&b);
	group_extras(&b);
	group_years(g);
	builder_free(&b);
	return g;
}

void mlib_groups_free(struct mlib_groups *g)
{
	if (!g)
		return;
	for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++) {
		free(g->of[k]);
		free(g->text[k]);
		free(g->group_year[k]);
	}
	for (size_t i = 0; i < g->nowned; i++)
		free(g->owned[i]);
	free(g->owned);
	free(g->year_of);
	free(g->extra);
	free(g->extra_bits);
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
				mlib_index_library_rank_many(idx, ids + i, n - i, rank + i);
				return;
			}
			rank[i] = (uint32_t)r++;
		}
		return;
	}
	mlib_index_library_rank_many(idx, ids, n, rank);
}
