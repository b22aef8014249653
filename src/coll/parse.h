/* The query language (spec/query-syntax.md): text -> collection, and back. */
#ifndef CRATE_COLL_PARSE_H
#define CRATE_COLL_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "coll/node.h"

/* Parentheses and NOTs nested deeper than this are an error, never a
 * stack overflow; the tree a query gives obeys COLL_MAX_DEPTH (node.h). */
#define COLL_PARSE_MAX_DEPTH COLL_MAX_DEPTH

/* Tells the parser whether in:NS/NAME exists (for "unknown collection" errors). */
typedef bool (*coll_exists_fn)(void *ud, const char *ns, const char *name);

struct coll_parse_opts {
	/* Bare numbers are positions (1-based) when the query applies to a list
	 * (the playlist view, `crate playlist remove 3-7`); otherwise words. */
	bool list_context;
	coll_exists_fn exists; /* NULL: references are not checked */
	/* Is there a saved collection in ns whose name starts with name (same
	 * ud)? Then a missing name that ends the query is being typed:
	 * incomplete, not wrong. NULL: never. */
	coll_exists_fn exists_prefix;
	void *exists_ud;
};

/* Parse a query. Returns a new reference, or NULL with *err set:
 * err->code CRATE_ERR_PARSE ("wrong at col N") or CRATE_ERR_INCOMPLETE
 * ("incomplete at col N": a valid prefix of a query, e.g. `a:` or `x AND`),
 * err->pos the 1-based column (in characters), err->msg "col N: ...".
 * Nodes carry span_start/span_end into q. Never crashes on any bytes. */
struct coll_node *coll_parse(const char *q, size_t len, const struct coll_parse_opts *opts,
			     struct crate_err *err);

/* Canonical query text for a collection, such that parsing it gives a
 * collection with the same results. NULL with *err when the collection is
 * not expressible as text (an unsaved list). Owned by the caller. */
char *coll_print(const struct coll_node *node, struct crate_err *err);

/* The value V of union(T artist V, T album V, T title V) over the universe
 * (what a word, `:V` or `~V` parses to, for T token, equals, match), or NULL. */
const char *coll_three_fields_value(const struct coll_node *n, enum coll_type t);

#endif
