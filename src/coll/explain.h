/* Why a media item is or is not in a collection: `crate explain QUERY ID`. */
#ifndef CRATE_COLL_EXPLAIN_H
#define CRATE_COLL_EXPLAIN_H

#include <stdint.h>

#include "base/err.h"
#include "coll/eval.h"
#include "coll/node.h"

/* Walk node and say, for item id, whether each sub-collection contains it
 * and, for filters, why ("artist 'Björk' equals 'bjork' (folded)", "year
 * 1997 is not < 1990", "has no 'genre'"), one line per node, indented by
 * depth:
 *     yes  intersection
 *       yes  artist:bjork  -- artist 'Björk' equals 'bjork' (folded)
 * Text from tags is sanitised (no control characters). Returns owned text,
 * or NULL with *err when evaluation fails (a missing reference). */
char *coll_explain(const struct coll_eval_ctx *ctx, const struct coll_node *node, uint32_t id,
		   struct crate_err *err);

#endif
