/* The reference order the fast ranking is held to, shared by the ranking
 * tests: coll_rank_sort must equal sorting by coll_rank_score (item by
 * item), ties in their given order. Static inline so each test binary
 * takes only what it uses. */
#ifndef CRATE_TEST_RANK_UTIL_H
#define CRATE_TEST_RANK_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "coll/eval.h"
#include "coll/rank.h"
#include "harness.h"
#include "medialib/index.h"

struct rank_scored {
	uint64_t score;
	size_t pos;
	uint32_t id;
};

static inline int rank_by_score_then_pos(const void *a, const void *b)
{
	const struct rank_scored *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* coll_rank_sort on ids[0..n) at time now against the reference, once
 * alone and once with the ids' library ranks (which must stay beside
 * their ids, and which a large result with a cache is scored through).
 * Returns the number of tied neighbours seen. cache: as the search bar
 * keeps it (NULL: none). */
static inline size_t rank_check_sort(const struct mlib_index *idx, const struct coll_rank_terms *t,
				     int64_t now, struct coll_eval_cache *cache, const uint32_t *ids,
				     size_t n, const char *what)
{
	struct rank_scored *ref = xmalloc((n + 1) * sizeof *ref);
	for (size_t i = 0; i < n; i++)
		ref[i] = (struct rank_scored){coll_rank_score(idx, t, now, ids[i], NULL), i, ids[i]};
	qsort(ref, n, sizeof *ref, rank_by_score_then_pos);
	uint32_t *got = xmalloc((n + 1) * sizeof *got);
	memcpy(got, ids, n * sizeof *got);
	coll_rank_sort(idx, t, now, cache, got, NULL, n);
	size_t bad = n, ties = 0;
	for (size_t i = 0; i < n && bad == n; i++)
		if (got[i] != ref[i].id)
			bad = i;
	for (size_t i = 1; i < n; i++)
		ties += ref[i].score == ref[i - 1].score;
	CHECK_MSG(bad == n, "%s (%zu items): position %zu is #%u, want #%u", what, n, bad,
		  bad < n ? got[bad] : 0, bad < n ? ref[bad].id : 0);
	uint32_t *lp = xmalloc((n + 1) * sizeof *lp);
	memcpy(got, ids, n * sizeof *got);
	for (size_t i = 0; i < n; i++)
		lp[i] = mlib_index_library_rank(idx, ids[i]);
	coll_rank_sort(idx, t, now, cache, got, lp, n);
	bad = n;
	for (size_t i = 0; i < n && bad == n; i++)
		if (got[i] != ref[i].id || lp[i] != mlib_index_library_rank(idx, ref[i].id))
			bad = i;
	CHECK_MSG(bad == n, "%s (%zu items, with library ranks): position %zu is #%u at %u, want #%u",
		  what, n, bad, bad < n ? got[bad] : 0, bad < n ? lp[bad] : 0,
		  bad < n ? ref[bad].id : 0);
	free(lp);
	free(got);
	free(ref);
	return ties;
}

#endif
