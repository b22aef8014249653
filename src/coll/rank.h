/* Relevance order for searches (crate(1), "RANKING"): how well each result
 * matches the words a query searches for in artist, album and title, then a
 * small, bounded popularity boost. Ties keep library order. */
#ifndef CRATE_COLL_RANK_H
#define CRATE_COLL_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/str.h"

struct mlib_index;

enum coll_rank_field {
	COLL_RANK_ARTIST,
	COLL_RANK_ALBUMARTIST,
	COLL_RANK_ALBUM,
	COLL_RANK_TITLE,
	COLL_RANK_NFIELDS
};
#define COLL_RANK_WORD_FIELDS                                                                      \
	(1u << COLL_RANK_ARTIST | 1u << COLL_RANK_ALBUM | 1u << COLL_RANK_TITLE)

/* What a match of a term in one field value is. */
enum coll_rank_class {
	COLL_RANK_NONE,
	COLL_RANK_SUBSTRING, /* inside a word */
	COLL_RANK_PREFIX,    /* the start of a word */
	COLL_RANK_WORD,      /* whole words */
	COLL_RANK_FIELD,     /* the whole value (punctuation aside) */
};

/* One thing the query looks for. */
struct coll_rank_term {
	char *text;      /* folded; owned */
	unsigned fields; /* 1 << enum coll_rank_field */
	int group;       /* the query word it stands for; a correction shares its word's group */
	bool typo;       /* a spelling correction: ranks below every exact match */
};

struct coll_rank_terms {
	struct coll_rank_term *v;
	size_t n;
	int ngroups;
};

/* Add a term (text is folded here). group < 0: a new group. Returns its group. */
int coll_rank_terms_add(struct coll_rank_terms *t, const char *text, unsigned fields, int group,
			bool typo);
void coll_rank_terms_free(struct coll_rank_terms *t);

/* Points of a match (see crate(1)); exact matches of every class score more
 * than any correction, and neighbouring classes differ by at least
 * COLL_RANK_STEP. */
#define COLL_RANK_STEP 10
int coll_rank_points(enum coll_rank_field f, enum coll_rank_class c, bool typo);
/* The popularity boost in tenths of a point: 0 .. COLL_RANK_BOOST_MAX, less
 * than one step, so it only orders results that match equally well. */
#define COLL_RANK_BOOST_MAX 99
int coll_rank_boost(const struct mlib_index *idx, uint32_t id, int64_t now);
/* The first moment after now at which some item's boost changes with the
 * passing of time alone (a last play crossing 30 days or a year ago, or a
 * last play dated ahead coming to pass); INT64_MAX when none will. A
 * ranking made at now is the one made until then, the index unchanged. */
int64_t coll_rank_boost_steady_until(const struct mlib_index *idx, int64_t now);

/* How text (folded) matches the term text (folded). */
enum coll_rank_class coll_rank_classify(const char *value, size_t vlen, const char *term,
					size_t tlen);

/* Reorder ids[0..n) by descending relevance; equal scores keep their
 * order. lp (NULL: none) holds the ids' library ranks (lp[i] the position
 * of ids[i] in mlib_index_library_order, as coll_result.ranks) and is
 * reordered with them; given with a cache, a large result in library
 * order is scored reading its fields in order. now: the clock for
 * "recently played" (0 = time(NULL)); cache (NULL: none) keeps how each
 * term matched the values seen, for the next keystroke. */
struct coll_eval_cache;
void coll_rank_sort(const struct mlib_index *idx, const struct coll_rank_terms *t, int64_t now,
		    struct coll_eval_cache *cache, uint32_t *ids, uint32_t *lp, size_t n);

/* One item's score as a sortable number; with why != NULL, a line per
 * query word and one for popularity are appended (for `crate explain
 * --score`). */
uint64_t coll_rank_score(const struct mlib_index *idx, const struct coll_rank_terms *t,
			 int64_t now, uint32_t id, struct strbuf *why);

#endif
