#include "coll/node.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

static const char *const type_names[COLL_TYPE_COUNT] = {
	[COLL_UNIVERSE] = "universe",
	[COLL_REFERENCE] = "reference",
	[COLL_UNION] = "union",
	[COLL_INTERSECTION] = "intersection",
	[COLL_COMPLEMENT] = "complement",
	[COLL_EQUALS] = "equals",
	[COLL_NOTEQUAL] = "notequal",
	[COLL_MATCH] = "match",
	[COLL_TOKEN] = "token",
	[COLL_SMALLER] = "smaller",
	[COLL_SMALLEREQ] = "smallereq",
	[COLL_GREATER] = "greater",
	[COLL_GREATEREQ] = "greatereq",
	[COLL_HAS] = "has",
	[COLL_ORDER] = "order",
	[COLL_LIMIT] = "limit",
	[COLL_MEDIASET] = "mediaset",
	[COLL_SIMILAR] = "similar",
	[COLL_IDLIST] = "idlist",
};

struct coll_node *coll_node_new(enum coll_type type)
{
	struct coll_node *n = xcalloc(1, sizeof *n);
	n->type = type;
	n->refs = 1;
	n->span_start = n->span_end = -1;
	return n;
}

struct coll_node *coll_node_ref(struct coll_node *n)
{
	if (n)
		n->refs++;
	return n;
}

void coll_node_unref(struct coll_node *n)
{
	if (!n || --n->refs > 0)
		return;
	for (size_t i = 0; i < n->nattrs; i++) {
		free(n->attrs[i].key);
		free(n->attrs[i].value);
	}
	free(n->attrs);
	for (size_t i = 0; i < n->noperands; i++)
		coll_node_unref(n->operands[i]);
	free(n->operands);
	u32vec_free(&n->idlist);
	free(n);
}

static size_t attr_find(const struct coll_node *n, const char *key, bool *found)
{
	size_t lo = 0, hi = n->nattrs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(n->attrs[mid].key, key);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

void coll_attr_set(struct coll_node *n, const char *key, const char *value)
{
	bool found;
	size_t i = attr_find(n, key, &found);
	if (found) {
		char *v = xstrdup(value);
		free(n->attrs[i].value);
		n->attrs[i].value = v;
		return;
	}
	n->attrs = xreallocarray(n->attrs, n->nattrs + 1, sizeof *n->attrs);
	memmove(n->attrs + i + 1, n->attrs + i, (n->nattrs - i) * sizeof *n->attrs);
	n->attrs[i].key = xstrdup(key);
	n->attrs[i].value = xstrdup(value);
	n->nattrs++;
}

const char *coll_attr_get(const struct coll_node *n, const char *key)
{
	bool found;
	size_t i = attr_find(n, key, &found);
	return found ? n->attrs[i].value : NULL;
}

void coll_attr_remove(struct coll_node *n, const char *key)
{
	bool found;
	size_t i = attr_find(n, key, &found);
	if (!found)
		return;
	free(n->attrs[i].key);
	free(n->attrs[i].value);
	memmove(n->attrs + i, n->attrs + i + 1, (n->nattrs - i - 1) * sizeof *n->attrs);
	n->nattrs--;
}

void coll_node_add_operand(struct coll_node *parent, struct coll_node *child)
{
	parent->operands = xreallocarray(parent->operands, parent->noperands + 1,
					 sizeof *parent->operands);
	parent->operands[parent->noperands++] = coll_node_ref(child);
}

void coll_node_set_operand(struct coll_node *parent, size_t i, struct coll_node *child)
{
	struct coll_node *old = parent->operands[i];
	parent->operands[i] = coll_node_ref(child);
	coll_node_unref(old);
}

void coll_node_remove_operand(struct coll_node *parent, size_t i)
{
	coll_node_unref(parent->operands[i]);
	memmove(parent->operands + i, parent->operands + i + 1,
		(parent->noperands - i - 1) * sizeof *parent->operands);
	parent->noperands--;
}

struct coll_node *coll_filter_new(enum coll_type type, const char *field, const char *value,
				  struct coll_node *operand)
{
	struct coll_node *n = coll_node_new(type);
	if (field)
		coll_attr_set(n, "field", field);
	if (value)
		coll_attr_set(n, "value", value);
	if (operand) {
		coll_node_add_operand(n, operand);
	} else {
		struct coll_node *u = coll_node_new(COLL_UNIVERSE);
		coll_node_add_operand(n, u);
		coll_node_unref(u);
	}
	return n;
}

struct coll_node *coll_node_copy(const struct coll_node *n)
{
	struct coll_node *c = coll_node_new(n->type);
	c->span_start = n->span_start;
	c->span_end = n->span_end;
	for (size_t i = 0; i < n->nattrs; i++)
		coll_attr_set(c, n->attrs[i].key, n->attrs[i].value);
	for (size_t i = 0; i < n->noperands; i++) {
		struct coll_node *op = coll_node_copy(n->operands[i]);
		coll_node_add_operand(c, op);
		coll_node_unref(op);
	}
	u32vec_reserve(&c->idlist, n->idlist.n);
	if (n->idlist.n)
		memcpy(c->idlist.v, n->idlist.v, n->idlist.n * sizeof *n->idlist.v);
	c->idlist.n = n->idlist.n;
	return c;
}

bool coll_node_equal(const struct coll_node *a, const struct coll_node *b)
{
	if (a == b)
		return true;
	if (a->type != b->type || a->nattrs != b->nattrs || a->noperands != b->noperands ||
	    a->idlist.n != b->idlist.n)
		return false;
	for (size_t i = 0; i < a->nattrs; i++)
		if (strcmp(a->attrs[i].key, b->attrs[i].key) ||
		    strcmp(a->attrs[i].value, b->attrs[i].value))
			return false;
	if (a->idlist.n && memcmp(a->idlist.v, b->idlist.v, a->idlist.n * sizeof *a->idlist.v))
		return false;
	for (size_t i = 0; i < a->noperands; i++)
		if (!coll_node_equal(a->operands[i], b->operands[i]))
			return false;
	return true;
}

size_t coll_node_depth(const struct coll_node *n, size_t limit)
{
	if (limit == 0)
		return 1;
	/* A filter without operands applies to the universe, which its saved
	 * (JSON) form spells out: one level more. */
	size_t deepest = coll_type_is_filter(n->type) && n->noperands == 0;
	for (size_t i = 0; i < n->noperands && deepest <= limit; i++) {
		size_t d = coll_node_depth(n->operands[i], limit - 1);
		if (d > deepest)
			deepest = d;
	}
	return deepest + 1;
}

const char *coll_type_name(enum coll_type t)
{
	return (unsigned)t < COLL_TYPE_COUNT ? type_names[t] : "unknown";
}

int coll_type_from_name(const char *name)
{
	for (int t = 0; t < COLL_TYPE_COUNT; t++)
		if (strcmp(type_names[t], name) == 0)
			return t;
	/* XMMS2 spellings. */
	if (strcmp(name, "queue") == 0 || strcmp(name, "pshuffle") == 0)
		return COLL_IDLIST;
	if (strcmp(name, "smaller_eq") == 0)
		return COLL_SMALLEREQ;
	if (strcmp(name, "greater_eq") == 0)
		return COLL_GREATEREQ;
	return -1;
}

bool coll_type_is_filter(enum coll_type t)
{
	return t >= COLL_EQUALS && t <= COLL_HAS;
}

bool coll_type_is_list(const struct coll_node *n)
{
	return n->type == COLL_IDLIST;
}
