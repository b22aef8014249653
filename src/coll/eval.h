/* Evaluating a collection against the media library: collection -> ordered
 * list of media ids (spec/collections.md). */
#ifndef CRATE_COLL_EVAL_H
#define CRATE_COLL_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/vec.h"
#include "coll/node.h"

struct mlib_index;
struct mlib_space;

/* The similarity space for `like:` (medialib/similarity.h), built on first
 * use by its owner; NULL with *err when it cannot be. Borrowed. */
typedef const struct mlib_space *(*coll_space_fn)(void *ud, struct crate_err *err);

/* Resolves a reference node's target: the saved collection's root, borrowed.
 * NULL when it does not exist (evaluation then fails with a message naming it). */
typedef const struct coll_node *(*coll_resolve_fn)(void *ud, const char *ns, const char *name);

struct coll_eval_ctx {
	const struct mlib_index *index;
	coll_resolve_fn resolve; /* may be NULL: references are then errors */
	void *resolve_ud;
	int64_t now;             /* Unix seconds, for ages like added<7d; 0 = time(NULL) */
	/* Optional: work kept between evaluations by one owner (the search bar
	 * evaluates after every key). NULL: nothing kept. */
	struct coll_eval_cache *cache;
	/* Optional: `like:` (similar nodes) is an error without it. */
	coll_space_fn space;
	void *space_ud;
	/* Ask for coll_result.ranks (the browser groups by library rank). */
	bool want_ranks;
	/* Optional: where the time of an evaluation's steps is added (the
	 * interface's frame trace, CRATE_TRACE_FRAMES). NULL: not timed. */
	struct coll_eval_timing *timing;
	/* Optional: receives a copy of a set result's members (by id) beside
	 * its list; emptied (nbits 0) when the result is ordered. A search
	 * compares it with earlier ones to reuse their ranking (app_view.c). */
	struct bitset *set_out;
};

/* Milliseconds spent, added to by each evaluation given it. */
struct coll_eval_timing {
	double list_ms; /* a set's members listed in library order */
	double rank_ms; /* a search's results ranked (coll/rank.h) */
};
/* Monotonic milliseconds, for coll_eval_timing. */
double coll_timing_now_ms(void);

/* A cache for coll_eval_ctx.cache, owned by the caller. Clear it when the
 * index is replaced (entries also check the index's address and sizes). */
struct coll_eval_cache *coll_eval_cache_new(void);
void coll_eval_cache_clear(struct coll_eval_cache *c);
void coll_eval_cache_free(struct coll_eval_cache *c);
/* One step of what the cache can do for the keystrokes to come, before
 * they come: for the artist, album artist, album and title dictionaries,
 * the library-order columns ranking reads (coll/rank.c) and the tables of
 * one-letter matches (coll/rank_letters.h), then every item's popularity
 * boost in library order (again after a play, a rating or the clock
 * changes one), a slice of one array a step (at a million tracks 1-3 ms
 * on two cores, up to 10 ms just after start-up: a key pressed meanwhile
 * waits no longer; an array made whole took up to 30 ms). An array is
 * seen only once whole; a keystroke that needs one first finishes it.
 * True while steps remain; the owner calls it when idle. Libraries under
 * 4096 tracks need none. */
bool coll_eval_cache_prepare_step(struct coll_eval_cache *c, const struct mlib_index *idx);
/* Entries a step makes of an array, for tests that cover the slicing on a
 * small library (0, the default: each kind's own, a few ms of work). */
void coll_eval_cache_set_prepare_slice(struct coll_eval_cache *c, size_t entries);
/* Where the cache's owner keeps a word dictionary for spelling corrections
 * (coll/typo.h), built elsewhere (a background thread): get returns one
 * made from idx (borrowed; it lives until the owner clears this cache), or
 * NULL with *pending set while it is being built (the search then goes
 * without corrections: a keystroke never waits for the build), or NULL
 * alone, and then the cache builds its own when a search needs one. */
struct coll_typo_dict;
typedef const struct coll_typo_dict *(*coll_typo_provider)(void *arg,
							  const struct mlib_index *idx,
							  bool *pending);
void coll_eval_cache_typo_provider(struct coll_eval_cache *c, coll_typo_provider get, void *arg);
/* How many times a search went without corrections because the owner's
 * dictionary was still being built: a search whose count changed found
 * what the same search will not find once the words are ready. */
unsigned coll_eval_cache_typo_waits(const struct coll_eval_cache *c);

struct coll_result {
	struct u32vec ids;  /* owned; free with coll_result_free */
	bool ordered;       /* a list (order and duplicates matter) or a set (library order) */
	/* Owned. With coll_eval_ctx.want_ranks, a set's (and a ranked
	 * search's) library ranks: ranks.v[i] is the position of ids.v[i] in
	 * mlib_index_library_order, known from making the set's list, so the
	 * reader need not look them up at random. Only valid when ranks.n ==
	 * ids.n (empty: not asked for, or a list's). */
	struct u32vec ranks;
};

/* Evaluate. On success out->ids holds the result (sets in library order).
 * Fails (with a message) on a missing reference, a cycle, or an invalid
 * attribute (a "type=random" order without a usable seed is fine). */
int coll_eval(const struct coll_eval_ctx *ctx, const struct coll_node *node,
	      struct coll_result *out, struct crate_err *err);
void coll_result_free(struct coll_result *r);

/* For `crate explain`: where item id stands in the similar node n's
 * order: its squared distance to the seed's centroid, its 1-based rank
 * (0 when it is not in the order: a seed item or not analysed), how many
 * are ranked, and how many seed items were analysed. */
struct coll_similar_info {
	uint32_t distance;
	size_t rank, ranked, seed, seed_analysed;
};
int coll_similar_explain(const struct coll_eval_ctx *ctx, const struct coll_node *n, uint32_t id,
			 struct coll_similar_info *out, struct crate_err *err);

/* Membership of one id without materialising a large result where the
 * collection allows it (filters on the universe test the one item). */
int coll_contains(const struct coll_eval_ctx *ctx, const struct coll_node *node, uint32_t id,
		  bool *out, struct crate_err *err);

#endif
