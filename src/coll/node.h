/* Collection nodes: the operators of the collection DAG (spec/collections.md).
 *
 * A node has a type, string attributes, operands and (for idlist) an ordered
 * list of media ids. Nodes are reference counted: a parent holds one
 * reference on each operand, so operands can be shared between parents,
 * which is what makes the structure a DAG. */
#ifndef CRATE_COLL_NODE_H
#define CRATE_COLL_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

enum coll_type {
	COLL_UNIVERSE,
	COLL_REFERENCE,     /* attrs: namespace, reference */
	COLL_UNION,
	COLL_INTERSECTION,
	COLL_COMPLEMENT,
	COLL_EQUALS,        /* filters: attrs field, value; optional type=id|position, collation=BINARY */
	COLL_NOTEQUAL,
	COLL_MATCH,
	COLL_TOKEN,
	COLL_SMALLER,
	COLL_SMALLEREQ,
	COLL_GREATER,
	COLL_GREATEREQ,
	COLL_HAS,           /* attrs: field */
	COLL_ORDER,         /* attrs: type (value|id|random), field ("a,b"), direction (ASC|DESC), seed */
	COLL_LIMIT,         /* attrs: start, length */
	COLL_MEDIASET,
	COLL_IDLIST,        /* attrs: type (list|queue|pshuffle), position, upcoming, history, jumplist */
	COLL_SIMILAR,       /* like: operand = the seed; result: analysed items by distance to it */
	COLL_TYPE_COUNT
};

struct coll_attr {
	char *key;   /* owned */
	char *value; /* owned */
};

struct coll_node {
	enum coll_type type;
	unsigned refs;
	struct coll_attr *attrs;      /* owned array, kept sorted by key */
	size_t nattrs;
	struct coll_node **operands;  /* owned array; one reference held on each */
	size_t noperands;
	struct u32vec idlist;         /* media ids, list order, duplicates allowed */
	/* Byte span in the query text this node was parsed from, [start, end);
	 * -1 when the node did not come from text. */
	int span_start, span_end;
};

/* A new node with one reference, owned by the caller. */
struct coll_node *coll_node_new(enum coll_type type);
struct coll_node *coll_node_ref(struct coll_node *n);
/* Drop one reference; frees the node (and unrefs its operands) at zero. NULL is fine. */
void coll_node_unref(struct coll_node *n);

/* Attributes. Keys and values are copied. */
void coll_attr_set(struct coll_node *n, const char *key, const char *value);
const char *coll_attr_get(const struct coll_node *n, const char *key); /* NULL if absent */
void coll_attr_remove(struct coll_node *n, const char *key);

/* Operands: the parent takes its own reference; the caller keeps theirs. */
void coll_node_add_operand(struct coll_node *parent, struct coll_node *child);
/* Replace operand i (unrefs the old one, refs the new one). */
void coll_node_set_operand(struct coll_node *parent, size_t i, struct coll_node *child);
void coll_node_remove_operand(struct coll_node *parent, size_t i);

/* Convenience: a filter node (equals, match, ...) on `field` with `value`
 * over `operand` (NULL = universe). Returns a new reference. */
struct coll_node *coll_filter_new(enum coll_type type, const char *field, const char *value,
				  struct coll_node *operand);

/* Deep copy (operands copied too; sharing is not preserved). New reference. */
struct coll_node *coll_node_copy(const struct coll_node *n);
/* Structural equality: type, attributes, operands (recursively) and idlist. */
bool coll_node_equal(const struct coll_node *a, const struct coll_node *b);

/* The one depth rule: no collection tree is deeper than this many levels
 * of nodes (the root is level 1). The parser refuses deeper queries, the
 * JSON loader deeper documents and the store deeper saves, so whatever is
 * accepted anywhere can be saved and read back. */
#define COLL_MAX_DEPTH 256
/* Levels of nodes in the tree under n as saved (1 for a leaf; a filter
 * without operands counts its implicit universe operand), counting no
 * further than limit + 1 (so a huge tree costs no more than the limit). */
size_t coll_node_depth(const struct coll_node *n, size_t limit);

/* "union", "equals", ...: the lower-case names used in JSON and the CLI. */
const char *coll_type_name(enum coll_type t);
/* -1 if unknown. Accepts the XMMS2 names. */
int coll_type_from_name(const char *name);
bool coll_type_is_filter(enum coll_type t);   /* equals .. has */
bool coll_type_is_list(const struct coll_node *n); /* idlist of any kind */

#endif
