/* A query typed as a search (the search bar, `crate search`), as opposed to
 * a saved collection: ranked by relevance, and forgiving (crate(1),
 * "SEARCH AND RANKING"). A word that finds (almost) nothing also finds the
 * dictionary words a typo away; `field:value` that finds nothing falls
 * back to the words of the value in that field. Both are reported in
 * notes. */
#ifndef CRATE_COLL_SEARCH_H
#define CRATE_COLL_SEARCH_H

#include <stdbool.h>

#include "base/err.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/node.h"
#include "coll/rank.h"

enum {
	COLL_SEARCH_EXACT = 1,   /* no corrections and no fallback: the query as written */
	COLL_SEARCH_NO_RANK = 2, /* library order (`crate search --order library`) */
};

/* A word correction is tried when the word alone finds fewer items. */
#define COLL_SEARCH_FEW 3
/* At most this many corrections per word. */
#define COLL_SEARCH_MAX_CORRECTIONS 3

struct coll_search {
	struct coll_node *node;       /* what to evaluate; owned reference */
	struct coll_rank_terms terms; /* what ranking looks for */
	bool rank;                    /* relevance order applies (no ORDER BY at the top) */
	struct strbuf notes;          /* what was forgiven, "; "-separated ("" = nothing) */
	struct strbuf notes_if_none;  /* what of it to say when the search finds nothing */
};

/* The notes to show beside a result of found items: with none, only what
 * was missing ("no artist 'x'"), never "showing ..." (NUL-terminated;
 * lives as long as s). */
const char *coll_search_notes(const struct coll_search *s, size_t found);

/* Prepare query (not modified; text, when not NULL, is what it was parsed
 * from: quoted words are never corrected). ctx is used to count matches
 * and (with ctx->cache) keeps the correction dictionary. Never fails. */
void coll_search_prepare(const struct coll_eval_ctx *ctx, const struct coll_node *query,
			 const char *text, unsigned flags, struct coll_search *out);
void coll_search_free(struct coll_search *s);

/* Rank a result of s->node (or of a collection that intersects it) in
 * place, when s->rank and the result is a set. */
void coll_search_rank(const struct coll_eval_ctx *ctx, const struct coll_search *s,
		      struct coll_result *r);

/* Whether s->node is a LIMIT that coll_search_eval applies to the ranked
 * result (evaluating s->node and ranking that would rank only the first). */
bool coll_search_ranked_limit(const struct coll_search *s);

/* Evaluate s->node and rank; LIMIT at the top (without ORDER BY) applies to
 * the ranked result. */
int coll_search_eval(const struct coll_eval_ctx *ctx, const struct coll_search *s,
		     struct coll_result *out, struct crate_err *err);

/* For `crate explain --score`: where id ranks in the search and why, as
 * lines of text (tag values sanitised). Owned; NULL with *err when the
 * search cannot be evaluated. */
char *coll_search_explain_score(const struct coll_eval_ctx *ctx, const struct coll_search *s,
				uint32_t id, struct crate_err *err);

#endif
