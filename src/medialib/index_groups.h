/* The browser's groups of a whole library, by configurable levels (e.g.
 * artist > album, genre > album, year > album, composer > work): computed
 * once per index and level set, and indexed by library rank (position in
 * mlib_index_library_order), so grouping a result that comes in library
 * order reads these arrays front to back instead of jumping around by id.
 *
 * A group at each level is a value of its property: under a selection
 * to its left a column lists the values of the tracks let through, so
 * with "All" artists "Greatest Hits" is one row however many artists made
 * one (a column browser's rows, as in Rhythmbox or Quod Libet), and with
 * one artist chosen it is that artist's. The level "artist" means the album artist when the item has one,
 * else the artist, the same text in either dictionary being the same
 * artist (so compilations stay together), and a compilation (tag
 * compilation 1, true or yes) without an album artist is by
 * MLIB_VARIOUS_ARTISTS; every other level is its
 * property's first value (integers, like year, as their number). Items
 * without a value share the level's unknown group (text NULL). An item
 * with several values of the first level's property is in each one's
 * group: the first in of[0], the others in extra. */
#ifndef CRATE_MEDIALIB_INDEX_GROUPS_H
#define CRATE_MEDIALIB_INDEX_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct mlib_index;

/* At most three group columns before the tracks: more would leave no room
 * for the tracks on an 80-column terminal. */
#define MLIB_GROUP_LEVELS 3
#define MLIB_LEVEL_NAME 32
#define MLIB_LEVELS_DEFAULT "artist album"
/* The artist level's name for a compilation without an album artist. */
#define MLIB_VARIOUS_ARTISTS "Various Artists"

/* Which properties group the browser's columns, outermost first. */
struct mlib_levels {
	unsigned n; /* 1 .. MLIB_GROUP_LEVELS */
	char prop[MLIB_GROUP_LEVELS][MLIB_LEVEL_NAME];
};

/* Parse "genre album" (names apart by spaces or commas) into out. Fails
 * with err naming the word at fault: not a field name, a property that
 * names single tracks or moments (title, url, duration, added, ...), a
 * name twice, none or more than MLIB_GROUP_LEVELS. Names no track has yet
 * are allowed: tags are open-ended (work, mood, ...). */
int mlib_levels_parse(const char *text, struct mlib_levels *out, struct crate_err *err);
/* "genre album": the canonical text of lv. */
void mlib_levels_format(const struct mlib_levels *lv, char *buf, size_t size);
bool mlib_levels_equal(const struct mlib_levels *a, const struct mlib_levels *b);

/* A further group of an item with several first-level values: that
 * value's group, and at the deeper levels the item's own (values do not
 * depend on the level before). */
struct mlib_extra_group {
	uint32_t at; /* library rank (mlib_groups) or whatever position the user keeps */
	uint32_t grp[MLIB_GROUP_LEVELS];
};

struct mlib_groups {
	uint32_t n;                     /* library size: ranks 0 .. n-1 */
	struct mlib_levels levels;
	uint32_t *of[MLIB_GROUP_LEVELS];      /* by rank: group at each level */
	const char **text[MLIB_GROUP_LEVELS]; /* by group: its text, NULL = no value */
	uint32_t ngroups[MLIB_GROUP_LEVELS];
	uint32_t *year_of;              /* by rank: the item's year, 0 = none (NULL when no
					 * level is "album": the album rows show it) */
	uint32_t *group_year[MLIB_GROUP_LEVELS]; /* by group of an "album" level: the year
					 * all its items share, 0 = none or several (NULL
					 * for other levels): a row under "All" of the
					 * albums of that title */
	struct mlib_extra_group *extra; /* the 2nd.. first-level values, sorted by rank */
	size_t nextra;
	uint64_t *extra_bits;           /* by rank, a bit per item in extra (NULL: none is):
					 * mlib_groups_has_extra */
	char **owned;                   /* texts of integer groups (the numbers) */
	size_t nowned, owned_cap;
};

/* Group every item of idx (finished) by lv (NULL: MLIB_LEVELS_DEFAULT).
 * One pass over the library order: first levels through lookup arrays by
 * dictionary value, deeper ones through one hash each. The texts point
 * into idx: the groups live no longer than it. Free with mlib_groups_free. */
struct mlib_groups *mlib_index_groups(const struct mlib_index *idx, const struct mlib_levels *lv);
void mlib_groups_free(struct mlib_groups *g);

/* Whether the item at rank r has further first-level groups in g->extra
 * (cheaper than looking: most items have none). */
static inline bool mlib_groups_has_extra(const struct mlib_groups *g, uint32_t r)
{
	return g->extra_bits && r < g->n && (g->extra_bits[r >> 6] >> (r & 63) & 1);
}

/* The first of extra[0..n) (sorted by `at`) at `at`; n when none. */
size_t mlib_extra_find(const struct mlib_extra_group *extra, size_t n, uint32_t at);

/* Library rank of each of ids[0..n) into rank[] (UINT32_MAX: not in the
 * library). in_library_order: ids are a set in library order (a walk
 * alongside the library order replaces the lookups when that pays). */
void mlib_index_ranks(const struct mlib_index *idx, const uint32_t *ids, size_t n,
		      bool in_library_order, uint32_t *rank);

#endif
