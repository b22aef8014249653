/* Fuzz target: the query parser (src/coll/parse.h), with a round-trip oracle.
 *
 * For any bytes, in both library and list context:
 *  - coll_parse either succeeds or fails with CRATE_ERR_PARSE/INCOMPLETE, a
 *    message, and a column inside the query (1 .. characters + 1);
 *  - every node span lies inside the input;
 *  - a parsed collection prints (coll_print), the printed text parses again,
 *    and printing that gives the same text (the canonical form is a fixed
 *    point, so "parse(print(x))" is equivalent to x as the spec requires).
 *
 * Built as a libFuzzer binary with -DCRATE_FUZZ_MAIN (tests/fuzz/fuzz.mk);
 * tests/unit/test_fuzz_regress.c includes this file to replay saved inputs. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "base/err.h"
#include "base/utf8.h"
#include "coll/node.h"
#include "coll/parse.h"

/* The oracle's complaint, for the crash report. */
/* Spans are byte offsets into the query, or -1 for synthesised nodes. */
static int fuzz_parse_spans_ok(const struct coll_node *n, size_t len, unsigned depth)
{
	if (depth > 10000)
		return 0;
	if (n->span_start >= 0 || n->span_end >= 0) {
		if (n->span_start < 0 || n->span_end < n->span_start || (size_t)n->span_end > len)
			return 0;
	}
	for (size_t i = 0; i < n->noperands; i++)
		if (!fuzz_parse_spans_ok(n->operands[i], len, depth + 1))
			return 0;
	return 1;
}

static const char *fuzz_parse_one(const char *q, size_t len, int list_context)
{
	struct coll_parse_opts opts = {.list_context = list_context != 0};
	struct crate_err err = {0};
	struct coll_node *n = coll_parse(q, len, &opts, &err);
	if (!n) {
		long chars = (long)utf8_count(q, len);
		if (err.code != CRATE_ERR_PARSE && err.code != CRATE_ERR_INCOMPLETE)
			return fuzz_fail("parse failed with an unexpected error code: %s",
					       err.msg);
		if (err.msg[0] == '\0')
			return fuzz_fail("parse failed without a message");
		if (err.pos < 1 || err.pos > chars + 1)
			return fuzz_fail("error column outside the query: %s", err.msg);
		return NULL;
	}
	const char *why = NULL;
	char *p1 = NULL, *p2 = NULL;
	struct coll_node *n2 = NULL;
	if (!fuzz_parse_spans_ok(n, len, 0)) {
		why = fuzz_fail("a node span lies outside the query");
		goto out;
	}
	crate_err_clear(&err);
	p1 = coll_print(n, &err);
	if (!p1) {
		why = fuzz_fail("a parsed query does not print: %s", err.msg);
		goto out;
	}
	crate_err_clear(&err);
	n2 = coll_parse(p1, strlen(p1), &opts, &err);
	if (!n2) {
		why = fuzz_fail("printed text [%s] does not parse: %s", p1, err.msg);
		goto out;
	}
	crate_err_clear(&err);
	p2 = coll_print(n2, &err);
	if (!p2) {
		why = fuzz_fail("reparsed [%s] does not print: %s", p1, err.msg);
		goto out;
	}
	if (strcmp(p1, p2) != 0)
		why = fuzz_fail("canonical text is not stable: [%s] -> [%s]", p1, p2);
out:
	free(p1);
	free(p2);
	coll_node_unref(n);
	coll_node_unref(n2);
	return why;
}

/* NULL when the oracle holds for this input, else what went wrong. */
static const char *fuzz_parse_check(const uint8_t *data, size_t size)
{
	const char *why = fuzz_parse_one((const char *)data, size, 0);
	if (!why)
		why = fuzz_parse_one((const char *)data, size, 1);
	return why;
}

FUZZ_ENTRY("fuzz_parse", fuzz_parse_check)
