/* Collections as JSON (spec/collections.md, "JSON form"): the shape XMMS2's
 * medialib tests use, so collections can be exported, edited and imported.
 *
 *   {"type": "equals", "attributes": {"field": "artist", "value": "x"},
 *    "operands": [{"type": "universe"}], "idlist": [1, 2]}
 */
#ifndef CRATE_COLL_JSON_H
#define CRATE_COLL_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "coll/node.h"

/* Deepest collection nesting accepted on import (operands inside
 * operands): the one rule of node.h. */
#define COLL_JSON_MAX_DEPTH COLL_MAX_DEPTH

/* Parse text[0..len) into a collection. Returns a new reference, or NULL
 * with *err (CRATE_ERR_PARSE) naming the place in the document, e.g.
 * "operands[1].type: unknown type 'foo'". Attribute values may be strings
 * or numbers (read as their decimal text); "operands", "attributes" and
 * "idlist" may be left out. The XMMS2 type names "queue" and "pshuffle"
 * become an idlist with that type attribute; a filter without operands
 * applies to the universe. */
struct coll_node *coll_from_json(const char *text, size_t len, struct crate_err *err);
/* The same on an open SQLite connection (its JSON functions only; no table
 * is touched), which saves opening an in-memory one per document. */
struct sqlite3;
struct coll_node *coll_from_json_db(struct sqlite3 *db, const char *text, size_t len,
				    struct crate_err *err);

/* The JSON text of a collection (shared operands are written out at each
 * use). Empty attributes, operands and idlist are left out. pretty: one key
 * per line, indented by two spaces (an idlist stays on one line). Invalid
 * UTF-8 in attributes is written as U+FFFD. Owned by the caller. */
char *coll_to_json(const struct coll_node *node, bool pretty);

/* Append s[0..len) as a JSON string: quotes and backslashes escaped,
 * control characters as \u00XX, invalid UTF-8 as U+FFFD. For other JSON
 * writers (the CLI's --json output). */
struct strbuf;
void coll_json_add_string(struct strbuf *b, const char *s, size_t len);

#endif
