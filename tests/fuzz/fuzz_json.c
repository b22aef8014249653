/* Fuzz target: JSON collection import (src/coll/json.h), with a round-trip
 * oracle.
 *
 * For any bytes: coll_from_json either gives a collection or fails with
 * CRATE_ERR_PARSE and a message. A collection it gives exports (compact and
 * pretty) and imports again to an equal collection; when attributes hold
 * invalid UTF-8 (the export writes U+FFFD) the first round trip may change
 * them, but a second one must not.
 *
 * Built with -DCRATE_FUZZ_MAIN as a libFuzzer binary (tests/fuzz/fuzz.mk);
 * tests/unit/test_fuzz_regress.c includes this file to replay saved inputs. */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "base/err.h"
#include "base/utf8.h"
#include "coll/json.h"
#include "coll/node.h"

/* One in-memory connection for every input: opening one per document would
 * make the fuzzer measure sqlite3_open. It stays reachable, so no leak. */
static sqlite3 *fuzz_json_conn(void)
{
	static sqlite3 *conn;
	if (!conn && sqlite3_open(":memory:", &conn) != SQLITE_OK) {
		fprintf(stderr, "fuzz_json: cannot open an in-memory database\n");
		abort();
	}
	return conn;
}

/* True when every attribute key and value in the tree is valid UTF-8 (the
 * export replaces invalid bytes, so only then must it be lossless). */
static bool fuzz_json_all_utf8(const struct coll_node *n, unsigned depth)
{
	if (depth > COLL_JSON_MAX_DEPTH + 8)
		return false;
	for (size_t i = 0; i < n->nattrs; i++)
		if (!utf8_valid(n->attrs[i].key, strlen(n->attrs[i].key)) ||
		    !utf8_valid(n->attrs[i].value, strlen(n->attrs[i].value)))
			return false;
	for (size_t i = 0; i < n->noperands; i++)
		if (!fuzz_json_all_utf8(n->operands[i], depth + 1))
			return false;
	return true;
}

/* Export (compact or pretty) and import again; NULL when that fails. */
static struct coll_node *fuzz_json_round(const struct coll_node *n, bool pretty,
					 struct crate_err *err)
{
	char *text = coll_to_json(n, pretty);
	if (!text)
		return NULL;
	struct coll_node *back = coll_from_json_db(fuzz_json_conn(), text, strlen(text), err);
	free(text);
	return back;
}

static const char *fuzz_json_check(const uint8_t *data, size_t size)
{
	struct crate_err err = {0};
	struct coll_node *n = coll_from_json_db(fuzz_json_conn(), (const char *)data, size, &err);
	if (!n) {
		if (err.code != CRATE_ERR_PARSE && err.code != CRATE_ERR_INVALID)
			return fuzz_fail("import failed with an unexpected error code: %s", err.msg);
		if (err.msg[0] == '\0')
			return fuzz_fail("import failed without a message");
		return NULL;
	}
	const char *why = NULL;
	struct coll_node *n2 = NULL, *n3 = NULL, *n4 = NULL;
	crate_err_clear(&err);
	if (!(n2 = fuzz_json_round(n, false, &err))) {
		why = fuzz_fail("exported JSON does not import: %s", err.msg);
		goto out;
	}
	if (fuzz_json_all_utf8(n, 0) && !coll_node_equal(n, n2)) {
		why = fuzz_fail("export + import changed the collection");
		goto out;
	}
	crate_err_clear(&err);
	if (!(n3 = fuzz_json_round(n2, false, &err)) || !coll_node_equal(n2, n3)) {
		why = fuzz_fail("second round trip differs from the first: %s", err.msg);
		goto out;
	}
	crate_err_clear(&err);
	if (!(n4 = fuzz_json_round(n2, true, &err)) || !coll_node_equal(n2, n4))
		why = fuzz_fail("pretty export does not import to the same collection: %s",
				     err.msg);
out:
	coll_node_unref(n);
	coll_node_unref(n2);
	coll_node_unref(n3);
	coll_node_unref(n4);
	return why;
}

FUZZ_ENTRY("fuzz_json", fuzz_json_check)
