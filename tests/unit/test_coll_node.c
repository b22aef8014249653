/* coll/node: reference counting, attributes, DAG sharing, copy and equality. */
#include "coll/node.h"
#include "harness.h"

TEST(attributes_sorted_replaced_removed)
{
	struct coll_node *n = coll_node_new(COLL_EQUALS);
	coll_attr_set(n, "value", "x");
	coll_attr_set(n, "field", "artist");
	coll_attr_set(n, "value", "Kraftwerk");
	CHECK_INT(n->nattrs, 2);
	CHECK_STR(n->attrs[0].key, "field");
	CHECK_STR(coll_attr_get(n, "value"), "Kraftwerk");
	coll_attr_remove(n, "value");
	CHECK(coll_attr_get(n, "value") == NULL);
	coll_node_unref(n);
}

TEST(shared_operand_lives_while_referenced)
{
	struct coll_node *shared = coll_filter_new(COLL_EQUALS, "genre", "Rock", NULL);
	struct coll_node *a = coll_node_new(COLL_UNION);
	struct coll_node *b = coll_node_new(COLL_COMPLEMENT);
	coll_node_add_operand(a, shared);
	coll_node_add_operand(b, shared);
	coll_node_unref(shared);
	CHECK_INT(shared->refs, 2);
	coll_node_unref(a);
	CHECK_INT(shared->refs, 1);
	CHECK_STR(coll_attr_get(b->operands[0], "value"), "Rock");
	coll_node_unref(b);
}

TEST(copy_is_equal_and_independent)
{
	struct coll_node *l = coll_node_new(COLL_IDLIST);
	u32vec_push(&l->idlist, 3);
	u32vec_push(&l->idlist, 3);
	struct coll_node *f = coll_filter_new(COLL_MATCH, "title", "*love*", l);
	coll_node_unref(l);
	struct coll_node *c = coll_node_copy(f);
	CHECK(coll_node_equal(f, c));
	coll_attr_set(c, "value", "*hate*");
	CHECK(!coll_node_equal(f, c));
	coll_node_unref(c);
	coll_node_unref(f);
}

TEST(type_names_round_trip)
{
	for (int t = 0; t < COLL_TYPE_COUNT; t++)
		CHECK_INT(coll_type_from_name(coll_type_name((enum coll_type)t)), t);
	CHECK_INT(coll_type_from_name("nonsense"), -1);
}
