/* Filter nodes (equals .. has) compiled for the evaluator: the filter value
 * is read and folded once; items are then tested one by one (coll_contains,
 * filters over lists) or all at once (a bitset over the library, testing
 * each distinct dictionary value once). Private to coll/eval*.c. */
#ifndef CRATE_COLL_EVAL_FILTER_H
#define CRATE_COLL_EVAL_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/vec.h"
#include "coll/node.h"

struct mlib_index;
struct coll_filter;
struct coll_eval_cache;

/* Compile filter node n (its type, field, value, type=, collation=) against
 * idx; now is the moment ages count back from. Returns an owned filter, or
 * NULL with *err naming the attribute at fault. */
struct coll_filter *coll_filter_compile(const struct mlib_index *idx, const struct coll_node *n,
					int64_t now, struct crate_err *err);
void coll_filter_free(struct coll_filter *f);
/* Keep (and reuse) this filter's matches in c (may be NULL) when they do
 * not depend on anything but the library and the value. */
void coll_filter_set_cache(struct coll_filter *f, struct coll_eval_cache *c);
/* Find and keep in their caches the matching values of those of fs[0..n)
 * that would scan their whole dictionaries, two at a time on two cores
 * (the operands of a union, such as a new word looked for in every field).
 * Their later evaluations read the kept values. */
void coll_filters_prepare(struct coll_filter **fs, size_t n);

/* type=position: the filter tests 1-based positions in its operand. */
bool coll_filter_on_position(const struct coll_filter *f);
bool coll_filter_test_position(const struct coll_filter *f, uint64_t pos);
/* Does item id pass? (Not for position filters.) */
bool coll_filter_test_item(const struct coll_filter *f, uint32_t id);
/* Set in out (zeroed, >= id bound bits) every library item that passes. */
void coll_filter_fill(struct coll_filter *f, struct bitset *out);
/* Set in out (zeroed, same size as within) the members of within that pass:
 * item by item or by a whole-library pass, whichever costs less. */
void coll_filter_fill_within(struct coll_filter *f, const struct bitset *within, struct bitset *out);

/* Exposed for unit tests: glob (`*`, `?`, backslash escapes; both ends
 * anchored) and whole-word matching as the evaluator applies them to
 * already-folded text. */
bool coll_glob_match(const char *pattern, const char *text, size_t len);
bool coll_token_match(const char *value, const char *text, size_t len);

#endif
