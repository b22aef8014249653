/* Collections <-> JSON: round trips, XMMS2 shapes, errors with paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/str.h"
#include "base/utf8.h"
#include "coll/json.h"
#include "coll/node.h"
#include "harness.h"

static struct coll_node *parse(const char *text, struct crate_err *err)
{
	return coll_from_json(text, strlen(text), err);
}

/* Export, import, compare: the document must describe the same collection. */
static void check_round_trip(const struct coll_node *n)
{
	for (int pretty = 0; pretty <= 1; pretty++) {
		char *text = coll_to_json(n, pretty);
		struct crate_err err = {0};
		struct coll_node *back = parse(text, &err);
		CHECK_MSG(back != NULL, "round trip failed: %s (%s)", err.msg, text);
		if (back)
			CHECK_MSG(coll_node_equal(n, back), "round trip differs: %s", text);
		coll_node_unref(back);
		free(text);
	}
}

TEST(json_round_trip_of_every_shape)
{
	struct coll_node *a = coll_filter_new(COLL_EQUALS, "artist", "Kraftwerk", NULL);
	struct coll_node *b = coll_filter_new(COLL_SMALLER, "year", "1980", NULL);
	struct coll_node *i = coll_node_new(COLL_INTERSECTION);
	coll_node_add_operand(i, a);
	coll_node_add_operand(i, b);
	struct coll_node *o = coll_node_new(COLL_ORDER);
	coll_attr_set(o, "field", "album,tracknr");
	coll_attr_set(o, "direction", "DESC");
	coll_node_add_operand(o, i);
	struct coll_node *l = coll_node_new(COLL_IDLIST);
	coll_attr_set(l, "type", "list");
	coll_attr_set(l, "position", "2");
	for (uint32_t k = 1; k <= 1000; k++)
		u32vec_push(&l->idlist, k * 7919u % 100003u + 1);
	u32vec_push(&l->idlist, 5);
	u32vec_push(&l->idlist, 5); /* duplicates are kept */
	struct coll_node *u = coll_node_new(COLL_UNION);
	coll_node_add_operand(u, o);
	coll_node_add_operand(u, l);
	struct coll_node *r = coll_node_new(COLL_REFERENCE);
	coll_attr_set(r, "namespace", "Collections");
	coll_attr_set(r, "reference", "Rock 90s");
	coll_node_add_operand(u, r);
	check_round_trip(u);
	check_round_trip(a);
	struct coll_node *empty_list = coll_node_new(COLL_IDLIST);
	check_round_trip(empty_list);
	struct coll_node *uni = coll_node_new(COLL_UNIVERSE);
	check_round_trip(uni);
	char *t = coll_to_json(uni, false);
	CHECK_STR(t, "{\"type\":\"universe\"}");
	free(t);
	t = coll_to_json(a, false);
	CHECK_STR(t, "{\"type\":\"equals\",\"attributes\":{\"field\":\"artist\",\"value\":"
		     "\"Kraftwerk\"},\"operands\":[{\"type\":\"universe\"}]}");
	free(t);
	coll_node_unref(uni);
	coll_node_unref(empty_list);
	coll_node_unref(a);
	coll_node_unref(b);
	coll_node_unref(i);
	coll_node_unref(o);
	coll_node_unref(l);
	coll_node_unref(r);
	coll_node_unref(u);
}

TEST(json_reads_the_xmms2_test_shapes)
{
	/* As in XMMS2's tests/server/medialib JSON files: numbers as attribute
	 * values (a random seed), nested orders, explicit universes. */
	const char *doc =
		"{\"type\": \"union\", \"operands\": [{\"type\": \"order\", \"attributes\": "
		"{\"type\": \"random\", \"seed\": 31337}, \"operands\": [{\"type\": \"universe\"}]},"
		" {\"type\": \"order\", \"attributes\": {\"type\": \"value\", \"field\": "
		"\"tracknr\"}, \"operands\": [{\"type\": \"equals\", \"attributes\": {\"type\": "
		"\"value\", \"field\": \"artist\", \"value\": \"Red Fang\"}, \"operands\": "
		"[{\"type\": \"universe\"}]}]}]}";
	struct crate_err err = {0};
	struct coll_node *n = parse(doc, &err);
	REQUIRE(n != NULL);
	CHECK_INT(n->type, COLL_UNION);
	REQUIRE(n->noperands == 2);
	CHECK_STR(coll_attr_get(n->operands[0], "seed"), "31337");
	CHECK_STR(coll_attr_get(n->operands[0], "type"), "random");
	const struct coll_node *eq = n->operands[1]->operands[0];
	CHECK_INT(eq->type, COLL_EQUALS);
	CHECK_STR(coll_attr_get(eq, "value"), "Red Fang");
	CHECK_INT(eq->operands[0]->type, COLL_UNIVERSE);
	check_round_trip(n);
	coll_node_unref(n);

	/* XMMS2 list kinds are types there, idlist attributes here. */
	n = parse("{\"type\":\"queue\",\"idlist\":[3,1,2],\"attributes\":{\"history\":2}}", &err);
	REQUIRE(n != NULL);
	CHECK_INT(n->type, COLL_IDLIST);
	CHECK_STR(coll_attr_get(n, "type"), "queue");
	CHECK_STR(coll_attr_get(n, "history"), "2");
	REQUIRE(n->idlist.n == 3);
	CHECK_INT(n->idlist.v[0], 3);
	CHECK_INT(n->idlist.v[2], 2);
	coll_node_unref(n);
	n = parse("{\"type\":\"pshuffle\",\"operands\":[{\"type\":\"has\",\"attributes\":"
		  "{\"field\":\"artist\"}}]}", &err);
	REQUIRE(n != NULL);
	CHECK_STR(coll_attr_get(n, "type"), "pshuffle");
	REQUIRE(n->noperands == 1);
	CHECK_INT(n->operands[0]->type, COLL_HAS);
	/* A filter with its operand left out applies to the universe. */
	REQUIRE(n->operands[0]->noperands == 1);
	CHECK_INT(n->operands[0]->operands[0]->type, COLL_UNIVERSE);
	coll_node_unref(n);
	n = parse("{\"type\":\"greater_eq\",\"attributes\":{\"field\":\"year\",\"value\":1.5}}",
		  &err);
	REQUIRE(n != NULL);
	CHECK_INT(n->type, COLL_GREATEREQ);
	CHECK_STR(coll_attr_get(n, "value"), "1.5");
	coll_node_unref(n);
	n = parse("{\"type\":\"equals\",\"attributes\":{\"field\":\"year\",\"value\":-12}}",
		  &err);
	REQUIRE(n != NULL);
	CHECK_STR(coll_attr_get(n, "value"), "-12");
	coll_node_unref(n);
}

static void check_error(const char *doc, const char *expect)
{
	struct crate_err err = {0};
	struct coll_node *n = parse(doc, &err);
	CHECK_MSG(n == NULL, "accepted: %s", doc);
	coll_node_unref(n);
	CHECK_INT(err.code, CRATE_ERR_PARSE);
	CHECK_MSG(strstr(err.msg, expect) != NULL, "error for %s: got \"%s\", want \"%s\"", doc,
		  err.msg, expect);
}

TEST(json_errors_name_the_place)
{
	check_error("{\"type\":\"union\",\"operands\":[{\"type\":\"universe\"},{\"type\":\"foo\"}]}",
		    "operands[1].type: unknown type 'foo'");
	check_error("{\"type\":\"union\",\"operands\":[{\"type\":\"complement\",\"operands\":"
		    "[{\"type\":\"equals\",\"attributes\":{\"field\":true}}]}]}",
		    "operands[0].operands[0].attributes.field: expected a string or a number");
	check_error("{\"type\":\"idlist\",\"idlist\":[1,2,\"x\"]}",
		    "idlist[2]: expected a media id");
	check_error("{\"type\":\"idlist\",\"idlist\":[0]}", "idlist[0]: expected a media id");
	check_error("{\"type\":\"idlist\",\"idlist\":[4294967296]}", "idlist[0]");
	check_error("{\"attributes\":{}}", "document: missing 'type'");
	check_error("[1,2]", "document: expected an object");
	check_error("{\"type\":\"union\",\"operands\":[3]}", "operands[0]: expected an object");
	check_error("{\"type\":\"union\",\"operands\":{}}", "operands: expected an array");
	check_error("{\"type\":\"union\"}", "'union' needs at least one operand");
	check_error("{\"type\":\"universe\",\"operands\":[{\"type\":\"universe\"}]}",
		    "'universe' takes no operands");
	check_error("{\"type\":\"universe\",\"operand\":[]}", "unknown member 'operand'");
	check_error("{\"type\":\"reference\"}", "needs a 'reference' name");
	check_error("{\"type\":\"reference\",\"attributes\":{\"namespace\":\"Nope\","
		    "\"reference\":\"x\"}}", "unknown namespace 'Nope'");
	check_error("{\"type\":\"equals\",\"attributes\":{\"value\":\"a\\u0000b\"}}",
		    "contains a NUL character");
	check_error("{\"type\": \"universe\"", "not valid JSON");
	check_error("", "not valid JSON");
	check_error("{\"type\":7}", "type: expected a string");
}

static char *nested(int levels)
{
	struct strbuf b;
	strbuf_init(&b, 64);
	for (int i = 0; i < levels - 1; i++)
		strbuf_adds(&b, "{\"type\":\"complement\",\"operands\":[");
	strbuf_adds(&b, "{\"type\":\"universe\"}");
	for (int i = 0; i < levels - 1; i++)
		strbuf_adds(&b, "]}");
	return strbuf_steal(&b);
}

TEST(json_nesting_is_bounded)
{
	char *ok = nested(COLL_JSON_MAX_DEPTH);
	struct crate_err err = {0};
	struct coll_node *n = parse(ok, &err);
	CHECK_MSG(n != NULL, "%d levels refused: %s", COLL_JSON_MAX_DEPTH, err.msg);
	coll_node_unref(n);
	free(ok);
	char *deep = nested(COLL_JSON_MAX_DEPTH + 1);
	check_error(deep, "nesting deeper than 256 levels");
	free(deep);
	/* Far beyond SQLite's own limit: still a clean error, no crash. */
	char *very = nested(100000);
	check_error(very, "nesting deeper than 256 levels");
	free(very);
	struct strbuf b;
	strbuf_init(&b, 1 << 16);
	for (int i = 0; i < 50000; i++)
		strbuf_addc(&b, '[');
	check_error(b.buf, "nesting deeper");
	strbuf_free(&b);
}

TEST(json_hostile_strings)
{
	/* Control characters, quotes, backslashes, invalid UTF-8, non-ASCII. */
	const char *nasty = "a\"b\\c\x01\x1b[31m\n\t\x7f \xff\xfe end \xc3\xa9\xe5\xa4\x9c";
	struct coll_node *n = coll_filter_new(COLL_EQUALS, "ti\x02tle", nasty, NULL);
	char *text = coll_to_json(n, false);
	/* Valid UTF-8 with no raw control characters. */
	CHECK(utf8_valid(text, strlen(text)));
	for (const char *p = text; *p; p++)
		CHECK_MSG((unsigned char)*p >= 0x20, "raw control 0x%02x in %s", *p, text);
	CHECK(strstr(text, "\\u001b") != NULL);
	CHECK(strstr(text, "\\u000a") != NULL);
	CHECK(strstr(text, "\\u007f") != NULL); /* DEL is escaped too (terminal-safe) */
	CHECK(strstr(text, "a\\\"b\\\\c") != NULL);
	struct crate_err err = {0};
	struct coll_node *back = parse(text, &err);
	REQUIRE(back != NULL);
	/* Everything survives except the invalid bytes, now U+FFFD. */
	CHECK_STR(coll_attr_get(back, "value"),
		  "a\"b\\c\x01\x1b[31m\n\t\x7f \xef\xbf\xbd\xef\xbf\xbd end \xc3\xa9\xe5\xa4\x9c");
	CHECK_STR(coll_attr_get(back, "field"), "ti\x02tle");
	coll_node_unref(back);
	free(text);
	coll_node_unref(n);

	/* Escapes on input: \u sequences including a surrogate pair. */
	n = parse("{\"type\":\"equals\",\"attributes\":{\"field\":\"title\",\"value\":"
		  "\"\\u00e9\\ud83c\\udfb5\\\"\\/\"}}", &err);
	REQUIRE(n != NULL);
	CHECK_STR(coll_attr_get(n, "value"), "\xc3\xa9\xf0\x9f\x8e\xb5\"/");
	coll_node_unref(n);
	/* Random bytes never crash the reader. */
	srand(7);
	for (int i = 0; i < 2000; i++) {
		char buf[64];
		size_t len = (size_t)(rand() % 64);
		const char *alphabet = "{}[]\":,tyepaoridlsnun0123456789\\ \x01\xff";
		for (size_t k = 0; k < len; k++)
			buf[k] = alphabet[rand() % 36];
		n = coll_from_json(buf, len, &err);
		coll_node_unref(n);
	}
}
