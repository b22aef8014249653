/* Sorting for order nodes (spec/collections.md, "order"): several keys,
 * per-key direction, stable, missing values first ascending / last
 * descending, reproducible random order. Private to coll/eval*.c. */
#ifndef CRATE_COLL_EVAL_ORDER_H
#define CRATE_COLL_EVAL_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "coll/node.h"

struct mlib_index;

/* Reorder ids[0..n) as order node `order` asks. Only the first `keep`
 * entries need to be right (limit over order: a partial selection);
 * pass SIZE_MAX for a full sort. now seeds random orders without a seed.
 * Fails on an unknown order type or a missing field list. */
int coll_order_sort(const struct mlib_index *idx, const struct coll_node *order, uint32_t *ids,
		    size_t n, size_t keep, int64_t now, struct crate_err *err);

#endif
