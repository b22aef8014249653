/* A query applied to one list, answered as the list's entries (positions)
 * rather than media ids: in the playlist view `3-7` selects entries 3 to 7
 * of the list (spec/query-syntax.md), and an entry that appears twice is
 * selected only where the query says. */
#ifndef CRATE_COLL_EVAL_POSITIONS_H
#define CRATE_COLL_EVAL_POSITIONS_H

#include "base/err.h"
#include "base/vec.h"
#include "coll/eval.h"
#include "coll/node.h"

/* out (initialised here to entries->n bits, owned by the caller) gets
 * entry i when the query selects it. Position filters (bare numbers and
 * ranges parsed with list_context) count the list's entries, 1-based;
 * everything else tests the entry's track. */
int coll_eval_positions(const struct coll_eval_ctx *ctx, const struct u32vec *entries,
			const struct coll_node *query, struct bitset *out, struct crate_err *err);

#endif
