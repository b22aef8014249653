/* Collections <-> JSON. Reading leans on SQLite's JSON1 functions (json_valid
 * and json_tree flatten the document into rows), so there is no hand-written
 * JSON parser here: we only interpret the rows. Writing is a small escaper. */
#include "coll/json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/str.h"
#include "base/utf8.h"
#include "medialib/db.h"

#define NONE SIZE_MAX

enum jkind { J_NULL, J_TRUE, J_FALSE, J_INTEGER, J_REAL, J_TEXT, J_ARRAY, J_OBJECT };

/* One row of json_tree: a value of the document, linked to its children. */
struct jrow {
	sqlite3_int64 id;
	enum jkind kind;
	char *key;        /* owned: the member name when the parent is an object */
	char *text;       /* owned: the atom as text (strings and numbers) */
	bool has_nul;     /* the string holds a U+0000, which C strings cannot */
	sqlite3_int64 ival;
	size_t first, last, next; /* children in document order */
};

struct jdoc {
	struct jrow *rows;
	size_t n, cap;
};

static void jdoc_free(struct jdoc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->rows[i].key);
		free(d->rows[i].text);
	}
	free(d->rows);
}

static enum jkind kind_from_name(const char *t)
{
	if (!t)
		return J_NULL;
	if (strcmp(t, "object") == 0)
		return J_OBJECT;
	if (strcmp(t, "array") == 0)
		return J_ARRAY;
	if (strcmp(t, "text") == 0)
		return J_TEXT;
	if (strcmp(t, "integer") == 0)
		return J_INTEGER;
	if (strcmp(t, "real") == 0)
		return J_REAL;
	if (strcmp(t, "true") == 0)
		return J_TRUE;
	if (strcmp(t, "false") == 0)
		return J_FALSE;
	return J_NULL;
}

/* Row index of id (rows are in document order, ids ascending). */
static size_t jdoc_find(const struct jdoc *d, sqlite3_int64 id)
{
	size_t lo = 0, hi = d->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->rows[mid].id == id)
			return mid;
		if (d->rows[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NONE;
}

/* How deep brackets nest, skipping strings, and whether a string holds the
 * escape \u0000. Not a parser: only to give clear errors where SQLite would
 * call a deep document "invalid" or silently cut a string at the NUL. */
static int bracket_depth(const char *s, size_t len, bool *nul_escape)
{
	int depth = 0, max = 0;
	bool in_str = false;
	*nul_escape = false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\') {
				if (len - i >= 6 && memcmp(s + i + 1, "u0000", 5) == 0)
					*nul_escape = true;
				i++;
			} else if (c == '"') {
				in_str = false;
			}
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			if (++depth > max)
				max = depth;
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return max;
}

/* SQLite's text, folded to one line as the library's own are. */
static int sql_fail(sqlite3 *db, struct crate_err *err)
{
	char *why = mlib_db_sqlite_text(sqlite3_errmsg(db));
	crate_err_set(err, CRATE_ERR_PARSE, "JSON: %s", why);
	free(why);
	return -1;
}

/* Flatten the document into d (rows linked parent -> children). */
static int jdoc_load(sqlite3 *db, const char *text, size_t len, struct jdoc *d,
		     struct crate_err *err)
{
	/* Collections nest as object -> "operands" array -> object, so the
	 * bracket depth is about twice the collection depth. */
	bool nul_escape;
	if (bracket_depth(text, len, &nul_escape) > 2 * COLL_JSON_MAX_DEPTH + 2)
		return crate_err_set(err, CRATE_ERR_PARSE,
				     "JSON: nesting deeper than %d levels", COLL_JSON_MAX_DEPTH);
	if (nul_escape)
		return crate_err_set(err, CRATE_ERR_PARSE,
				     "JSON: a string contains a NUL character (\\u0000)");
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT json_valid(?1)", -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, err);
	sqlite3_bind_text(st, 1, text, (int)len, SQLITE_STATIC);
	int valid = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	if (!valid)
		return crate_err_set(err, CRATE_ERR_PARSE, "not valid JSON");

	if (sqlite3_prepare_v2(db, "SELECT id, parent, key, type, atom FROM json_tree(?1)", -1,
			       &st, NULL) != SQLITE_OK)
		return sql_fail(db, err);
	sqlite3_bind_text(st, 1, text, (int)len, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (d->n == d->cap) {
			d->cap = d->cap ? d->cap * 2 : 64;
			d->rows = xreallocarray(d->rows, d->cap, sizeof *d->rows);
		}
		struct jrow *r = &d->rows[d->n];
		memset(r, 0, sizeof *r);
		r->first = r->last = r->next = NONE;
		r->id = sqlite3_column_int64(st, 0);
		r->kind = kind_from_name((const char *)sqlite3_column_text(st, 3));
		if (sqlite3_column_type(st, 2) == SQLITE_TEXT)
			r->key = xstrdup((const char *)sqlite3_column_text(st, 2));
		if (r->kind == J_TEXT || r->kind == J_INTEGER || r->kind == J_REAL) {
			const char *a = (const char *)sqlite3_column_text(st, 4);
			size_t alen = (size_t)sqlite3_column_bytes(st, 4);
			r->text = xstrndup(a ? a : "", alen);
			r->has_nul = a && memchr(a, 0, alen) != NULL;
			r->ival = sqlite3_column_int64(st, 4);
		}
		d->n++;
		if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			size_t p = jdoc_find(d, sqlite3_column_int64(st, 1));
			if (p == NONE || p == d->n - 1) {
				rc = SQLITE_CORRUPT;
				break;
			}
			if (d->rows[p].last == NONE)
				d->rows[p].first = d->n - 1;
			else
				d->rows[d->rows[p].last].next = d->n - 1;
			d->rows[p].last = d->n - 1;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_CORRUPT
			       ? crate_err_set(err, CRATE_ERR_PARSE, "JSON: unexpected row order")
			       : sql_fail(db, err);
	if (d->n == 0)
		return crate_err_set(err, CRATE_ERR_PARSE, "not valid JSON");
	return 0;
}

/* "operands[1]" + ".type" -> "operands[1].type"; the root is "document"
 * when nothing else names the place. */
static int jerr(struct crate_err *err, const char *path, const char *member, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));
static int jerr(struct crate_err *err, const char *path, const char *member, const char *fmt,
		...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char *where;
	if (*path && member)
		where = xasprintf("%s.%s", path, member);
	else
		where = xstrdup(*path ? path : member ? member : "document");
	size_t wlen = strlen(where);
	if (wlen > 160) /* a deep path: keep its ends */
		crate_err_set(err, CRATE_ERR_PARSE, "%.40s...%s: %s", where, where + wlen - 100,
			      msg);
	else
		crate_err_set(err, CRATE_ERR_PARSE, "%s: %s", where, msg);
	free(where);
	return -1;
}

static char *path_join(const char *path, const char *member, size_t index)
{
	if (*path)
		return xasprintf("%s.%s[%zu]", path, member, index);
	return xasprintf("%s[%zu]", member, index);
}

/* A printable, bounded copy of untrusted text for an error message. */
static char *shown(const char *s)
{
	size_t n = strlen(s);
	char *clean = utf8_sanitize(s, n > 60 ? 60 : n);
	if (n > 60) {
		char *t = xasprintf("%s...", clean);
		free(clean);
		return t;
	}
	return clean;
}

static int read_attributes(const struct jdoc *d, size_t obj, struct coll_node *n,
			   const char *path, struct crate_err *err)
{
	if (d->rows[obj].kind != J_OBJECT)
		return jerr(err, path, "attributes", "expected an object");
	for (size_t c = d->rows[obj].first; c != NONE; c = d->rows[c].next) {
		const struct jrow *r = &d->rows[c];
		char *member = xasprintf("attributes.%s", r->key ? r->key : "");
		int rc = 0;
		if (!r->key || !*r->key)
			rc = jerr(err, path, "attributes", "empty attribute name");
		else if (r->kind != J_TEXT && r->kind != J_INTEGER && r->kind != J_REAL)
			rc = jerr(err, path, member, "expected a string or a number");
		else if (r->has_nul)
			rc = jerr(err, path, member, "contains a NUL character");
		else /* numbers arrive as their decimal text */
			coll_attr_set(n, r->key, r->text);
		free(member);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_idlist(const struct jdoc *d, size_t arr, struct coll_node *n, const char *path,
		       struct crate_err *err)
{
	if (d->rows[arr].kind != J_ARRAY)
		return jerr(err, path, "idlist", "expected an array");
	size_t i = 0;
	for (size_t c = d->rows[arr].first; c != NONE; c = d->rows[c].next, i++) {
		const struct jrow *r = &d->rows[c];
		if (r->kind != J_INTEGER || r->ival < 1 || r->ival > UINT32_MAX) {
			char member[48];
			snprintf(member, sizeof member, "idlist[%zu]", i);
			return jerr(err, path, member, "expected a media id (a positive integer)");
		}
		u32vec_push(&n->idlist, (uint32_t)r->ival);
	}
	return 0;
}

/* Operand count rules of spec/collections.md, "Operators". NULL when fine. */
static const char *arity_problem(const struct coll_node *n)
{
	size_t k = n->noperands;
	switch (n->type) {
	case COLL_UNIVERSE:
	case COLL_REFERENCE:
		return k == 0 ? NULL : "takes no operands";
	case COLL_UNION:
	case COLL_INTERSECTION:
		return k >= 1 ? NULL : "needs at least one operand";
	case COLL_IDLIST: {
		const char *t = coll_attr_get(n, "type");
		if (t && strcmp(t, "pshuffle") == 0)
			return k <= 1 ? NULL : "takes at most one operand (its source)";
		return k == 0 ? NULL : "takes no operands (only a pshuffle has a source)";
	}
	default:
		return k == 1 ? NULL : "takes exactly one operand";
	}
}

static struct coll_node *node_from_row(const struct jdoc *d, size_t obj, const char *path,
				       int depth, struct crate_err *err)
{
	if (depth > COLL_JSON_MAX_DEPTH) {
		jerr(err, path, NULL, "nesting deeper than %d levels", COLL_JSON_MAX_DEPTH);
		return NULL;
	}
	if (d->rows[obj].kind != J_OBJECT) {
		jerr(err, path, NULL, "expected an object");
		return NULL;
	}
	size_t type_row = NONE, attrs_row = NONE, ops_row = NONE, ids_row = NONE;
	for (size_t c = d->rows[obj].first; c != NONE; c = d->rows[c].next) {
		const char *k = d->rows[c].key ? d->rows[c].key : "";
		if (strcmp(k, "type") == 0) {
			type_row = c;
		} else if (strcmp(k, "attributes") == 0) {
			attrs_row = c;
		} else if (strcmp(k, "operands") == 0) {
			ops_row = c;
		} else if (strcmp(k, "idlist") == 0) {
			ids_row = c;
		} else {
			char *s = shown(k);
			jerr(err, path, NULL, "unknown member '%s'", s);
			free(s);
			return NULL;
		}
	}
	if (type_row == NONE) {
		jerr(err, path, NULL, "missing 'type'");
		return NULL;
	}
	const struct jrow *tr = &d->rows[type_row];
	if (tr->kind != J_TEXT) {
		jerr(err, path, "type", "expected a string");
		return NULL;
	}
	int type = coll_type_from_name(tr->text);
	if (type < 0 || tr->has_nul) {
		char *s = shown(tr->text);
		jerr(err, path, "type", "unknown type '%s'", s);
		free(s);
		return NULL;
	}
	struct coll_node *n = coll_node_new((enum coll_type)type);
	if (attrs_row != NONE && read_attributes(d, attrs_row, n, path, err) != 0)
		goto fail;
	/* XMMS2 names its list kinds as types; crate keeps them as an idlist
	 * attribute, unless the document already says which. */
	if (type == COLL_IDLIST && strcmp(tr->text, "idlist") != 0 && !coll_attr_get(n, "type"))
		coll_attr_set(n, "type", tr->text);
	if (ops_row != NONE) {
		if (d->rows[ops_row].kind != J_ARRAY) {
			jerr(err, path, "operands", "expected an array");
			goto fail;
		}
		size_t i = 0;
		for (size_t c = d->rows[ops_row].first; c != NONE; c = d->rows[c].next, i++) {
			char *sub = path_join(path, "operands", i);
			struct coll_node *op = node_from_row(d, c, sub, depth + 1, err);
			free(sub);
			if (!op)
				goto fail;
			coll_node_add_operand(n, op);
			coll_node_unref(op);
		}
	}
	if (ids_row != NONE && read_idlist(d, ids_row, n, path, err) != 0)
		goto fail;
	if (coll_type_is_filter(n->type) && n->noperands == 0) {
		/* As in query text: a filter without an operand filters everything. */
		struct coll_node *u = coll_node_new(COLL_UNIVERSE);
		coll_node_add_operand(n, u);
		coll_node_unref(u);
	}
	const char *problem = arity_problem(n);
	if (problem) {
		jerr(err, path, NULL, "'%s' %s", coll_type_name(n->type), problem);
		goto fail;
	}
	if (n->type == COLL_REFERENCE) {
		const char *ref = coll_attr_get(n, "reference");
		const char *ns = coll_attr_get(n, "namespace");
		if (!ref || !*ref) {
			jerr(err, path, "attributes", "a reference needs a 'reference' name");
			goto fail;
		}
		if (ns && strcmp(ns, "Collections") != 0 && strcmp(ns, "Playlists") != 0) {
			char *s = shown(ns);
			jerr(err, path, "attributes.namespace", "unknown namespace '%s'", s);
			free(s);
			goto fail;
		}
	}
	return n;
fail:
	coll_node_unref(n);
	return NULL;
}

struct coll_node *coll_from_json_db(struct sqlite3 *db, const char *text, size_t len,
				    struct crate_err *err)
{
	if (len > INT32_MAX) {
		crate_err_set(err, CRATE_ERR_PARSE, "JSON document too large");
		return NULL;
	}
	struct jdoc d = {0};
	struct coll_node *n = NULL;
	if (jdoc_load(db, text, len, &d, err) == 0)
		n = node_from_row(&d, 0, "", 1, err);
	jdoc_free(&d);
	return n;
}

struct coll_node *coll_from_json(const char *text, size_t len, struct crate_err *err)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		char *why = db ? mlib_db_sqlite_text(sqlite3_errmsg(db)) : NULL;
		crate_err_set(err, CRATE_ERR_DB, "JSON: cannot open SQLite: %s",
			      why ? why : "out of memory");
		free(why);
		sqlite3_close(db);
		return NULL;
	}
	struct coll_node *n = coll_from_json_db(db, text, len, err);
	sqlite3_close(db);
	return n;
}

/* ---- writing ---- */

void coll_json_add_string(struct strbuf *b, const char *s, size_t len)
{
	strbuf_addc(b, '"');
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = utf8_decode(s + i, len - i, &cp);
		i += k;
		if (cp == '"' || cp == '\\') {
			strbuf_addc(b, '\\');
			strbuf_addc(b, (char)cp);
		} else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			/* DEL and C1 too: the JSON is printed to terminals as is. */
			strbuf_addf(b, "\\u%04x", (unsigned)cp);
		} else {
			/* Re-encoding turns an invalid byte (decoded as U+FFFD) into
			 * a valid replacement character. */
			char enc[4];
			strbuf_add(b, enc, utf8_encode(cp, enc));
		}
	}
	strbuf_addc(b, '"');
}

static void json_newline(struct strbuf *b, bool pretty, int indent)
{
	if (!pretty)
		return;
	strbuf_addc(b, '\n');
	for (int i = 0; i < indent; i++)
		strbuf_adds(b, "  ");
}

static void json_key(struct strbuf *b, const char *key, bool pretty)
{
	coll_json_add_string(b, key, strlen(key));
	strbuf_adds(b, pretty ? ": " : ":");
}

static void json_add_node(struct strbuf *b, const struct coll_node *n, bool pretty, int indent)
{
	strbuf_addc(b, '{');
	json_newline(b, pretty, indent + 1);
	json_key(b, "type", pretty);
	coll_json_add_string(b, coll_type_name(n->type), strlen(coll_type_name(n->type)));
	if (n->nattrs) {
		strbuf_addc(b, ',');
		json_newline(b, pretty, indent + 1);
		json_key(b, "attributes", pretty);
		strbuf_addc(b, '{');
		for (size_t i = 0; i < n->nattrs; i++) {
			if (i)
				strbuf_addc(b, ',');
			json_newline(b, pretty, indent + 2);
			json_key(b, n->attrs[i].key, pretty);
			coll_json_add_string(b, n->attrs[i].value, strlen(n->attrs[i].value));
		}
		json_newline(b, pretty, indent + 1);
		strbuf_addc(b, '}');
	}
	if (n->noperands) {
		strbuf_addc(b, ',');
		json_newline(b, pretty, indent + 1);
		json_key(b, "operands", pretty);
		strbuf_addc(b, '[');
		for (size_t i = 0; i < n->noperands; i++) {
			if (i)
				strbuf_addc(b, ',');
			json_newline(b, pretty, indent + 2);
			json_add_node(b, n->operands[i], pretty, indent + 2);
		}
		json_newline(b, pretty, indent + 1);
		strbuf_addc(b, ']');
	}
	if (n->idlist.n) {
		strbuf_addc(b, ',');
		json_newline(b, pretty, indent + 1);
		json_key(b, "idlist", pretty);
		strbuf_addc(b, '[');
		for (size_t i = 0; i < n->idlist.n; i++) {
			if (i)
				strbuf_adds(b, pretty ? ", " : ",");
			strbuf_addf(b, "%" PRIu32, n->idlist.v[i]);
		}
		strbuf_addc(b, ']');
	}
	json_newline(b, pretty, indent);
	strbuf_addc(b, '}');
}

char *coll_to_json(const struct coll_node *node, bool pretty)
{
	struct strbuf b;
	strbuf_init(&b, 256);
	json_add_node(&b, node, pretty, 0);
	if (pretty)
		strbuf_addc(&b, '\n');
	return strbuf_steal(&b);
}
