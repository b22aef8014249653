/* A compact s-expression form of collections for the parser tests:
 *   (word "v")       token on artist, album, title (united, over the universe)
 *   (wmatch "p")     match on artist, album, title
 *   (any "v")        equals on artist, album, title
 *   (TYPE field "v") a filter on the universe; field is #id / #pos for type=id/position
 *   (has field)      has on the universe
 *   *                the universe
 *   (TYPE k="v" ... operands) anything else
 * Bytes that are not valid UTF-8 and control characters print as \xNN. */
#ifndef CRATE_TEST_PARSE_SEXPR_H
#define CRATE_TEST_PARSE_SEXPR_H

#include <string.h>

#include "base/str.h"
#include "base/utf8.h"
#include "coll/node.h"

static void sx_str(struct strbuf *b, const char *s)
{
	strbuf_addc(b, '"');
	size_t len = strlen(s), i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			strbuf_addc(b, '\\');
			strbuf_addc(b, (char)c);
		} else if (c < 0x20 || (cp == UTF8_REPLACEMENT && n == 1 && c != 0xEF)) {
			strbuf_addf(b, "\\x%02X", c);
		} else {
			strbuf_add(b, s + i, n);
		}
		i += n;
	}
	strbuf_addc(b, '"');
}

static bool sx_on_universe(const struct coll_node *n)
{
	return n->noperands == 1 && n->operands[0]->type == COLL_UNIVERSE;
}

static const char *sx_three(const struct coll_node *n, enum coll_type t)
{
	static const char *const f[] = {"artist", "album", "title"};
	if (n->type != COLL_UNION || n->noperands != 3)
		return NULL;
	const char *v = NULL;
	for (int i = 0; i < 3; i++) {
		const struct coll_node *o = n->operands[i];
		const char *fi = coll_attr_get(o, "field"), *vi = coll_attr_get(o, "value");
		if (o->type != t || o->nattrs != 2 || !sx_on_universe(o) || !fi || !vi ||
		    strcmp(fi, f[i]) || (v && strcmp(v, vi)))
			return NULL;
		v = vi;
	}
	return v;
}

static void sx_node(struct strbuf *b, const struct coll_node *n)
{
	const char *v;
	if (n->type == COLL_UNIVERSE && n->nattrs == 0 && n->noperands == 0) {
		strbuf_addc(b, '*');
		return;
	}
	static const struct {
		enum coll_type t;
		const char *name;
	} words[] = {{COLL_TOKEN, "word"}, {COLL_MATCH, "wmatch"}, {COLL_EQUALS, "any"}};
	for (int i = 0; i < 3; i++) {
		if ((v = sx_three(n, words[i].t)) != NULL) {
			strbuf_addf(b, "(%s ", words[i].name);
			sx_str(b, v);
			strbuf_addc(b, ')');
			return;
		}
	}
	const char *field = coll_attr_get(n, "field"), *value = coll_attr_get(n, "value");
	const char *type = coll_attr_get(n, "type");
	if (coll_type_is_filter(n->type) && sx_on_universe(n)) {
		if (n->type == COLL_HAS && field && n->nattrs == 1) {
			strbuf_addf(b, "(has %s)", field);
			return;
		}
		if (field && value && n->nattrs == 2) {
			strbuf_addf(b, "(%s %s ", coll_type_name(n->type), field);
			sx_str(b, value);
			strbuf_addc(b, ')');
			return;
		}
		if (type && value && n->nattrs == 2) {
			strbuf_addf(b, "(%s #%s ", coll_type_name(n->type),
				    strcmp(type, "position") == 0 ? "pos" : type);
			sx_str(b, value);
			strbuf_addc(b, ')');
			return;
		}
	}
	strbuf_addf(b, "(%s", coll_type_name(n->type));
	for (size_t i = 0; i < n->nattrs; i++) {
		strbuf_addf(b, " %s=", n->attrs[i].key);
		sx_str(b, n->attrs[i].value);
	}
	bool skip = coll_type_is_filter(n->type) && sx_on_universe(n);
	for (size_t i = 0; i < n->noperands && !skip; i++) {
		strbuf_addc(b, ' ');
		sx_node(b, n->operands[i]);
	}
	for (size_t i = 0; i < n->idlist.n; i++)
		strbuf_addf(b, " %u", n->idlist.v[i]);
	strbuf_addc(b, ')');
}

/* Owned. */
static char *test_sexpr(const struct coll_node *n)
{
	struct strbuf b;
	strbuf_init(&b, 64);
	sx_node(&b, n);
	return strbuf_steal(&b);
}

#endif
