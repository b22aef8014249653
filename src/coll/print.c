/* The query printer: collection -> canonical query text (spec/query-syntax.md,
 * "Printing").
 *
 * Shapes the parser produces print back in their short form, so that
 * parse(print(c)) is structurally equal to c for every parsed c:
 *   word (token on artist/album/title), pattern words, :value, ~value,
 *   field:value, field~value, field!=value, field<N ..., field:A..B, +field,
 *   *, #ids, bare positions, in:Name, NOT, OR, juxtaposition (AND),
 *   ORDER BY, LIMIT/OFFSET, parentheses where precedence needs them.
 * Other trees print to text with the same results where one exists:
 *   a filter over an operand other than the universe -> `operand filter`,
 *   mediaset(x) -> `* x`, one-operand union/intersection -> the operand,
 *   an empty union -> `NOT *`, match without wildcards -> equals,
 *   notequal/smaller/greater on ids -> NOT #n, #-n, #n-,
 *   order with direction=DESC -> each key's direction flipped,
 *   in:Collections/"All Media" -> `*`.
 * Not expressible (an error): idlists (the store prints saved playlists as
 * in:Playlists/Name itself), token on a single field, collation=BINARY,
 * field names the parser would change (upper-case ASCII, alias letters,
 * "in", invalid syntax), empty values, empty intersections, malformed
 * numeric attributes. Positions print as bare numbers: they parse back only
 * with list_context set. */
#include "coll/parse.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "base/utf8.h"
#include "coll/lex.h"
#include "coll/value.h"

#define MAX_PRINT_DEPTH 1000

struct printer {
	struct strbuf b;
	struct crate_err *err;
	bool failed;
	int depth;
};

static int fail(struct printer *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct printer *pr, const char *fmt, ...)
{
	if (pr->failed)
		return -1;
	pr->failed = true;
	va_list ap;
	va_start(ap, fmt);
	crate_err_vset(pr->err, CRATE_ERR_INVALID, fmt, ap);
	va_end(ap);
	return crate_err_prefix(pr->err, "not expressible as text: ");
}

/* ---- shapes ---- */

static bool is_universe(const struct coll_node *n)
{
	return n->type == COLL_UNIVERSE;
}

static bool on_universe(const struct coll_node *n)
{
	return n->noperands == 1 && is_universe(n->operands[0]);
}

static const char *attr(const struct coll_node *n, const char *key)
{
	return coll_attr_get(n, key);
}

/* "id" or "position" when the filter compares those instead of a property. */
static const char *id_kind(const struct coll_node *n)
{
	const char *t = attr(n, "type");
	if (t && (strcmp(t, "id") == 0 || strcmp(t, "position") == 0))
		return t;
	return NULL;
}

/* A plain filter on the universe: no id type, no binary collation. */
static bool plain_filter(const struct coll_node *n, enum coll_type t)
{
	return n->type == t && on_universe(n) && !id_kind(n) && !attr(n, "collation") &&
	       attr(n, "field");
}

static const char *const word_fields[] = {"artist", "album", "title"};

/* A field that, followed by ':', is an operator instead: in: (a
 * reference) and like: (the nearest by sound). */
static bool colon_operator(const char *field)
{
	return strcmp(field, "in") == 0 || strcmp(field, "like") == 0;
}

const char *coll_three_fields_value(const struct coll_node *n, enum coll_type t)
{
	if (n->type != COLL_UNION || n->noperands != 3)
		return NULL;
	const char *v = NULL;
	for (size_t i = 0; i < 3; i++) {
		const struct coll_node *op = n->operands[i];
		if (!plain_filter(op, t) || strcmp(attr(op, "field"), word_fields[i]) != 0)
			return NULL;
		const char *ov = attr(op, "value");
		if (!ov || (v && strcmp(v, ov) != 0))
			return NULL;
		v = ov;
	}
	return v;
}

/* Canonical decimal 1..UINT32_MAX. */
static bool read_id(const char *s, uint32_t *out)
{
	if (!s || s[0] < '1' || s[0] > '9' || strlen(s) > 10)
		return false;
	uint64_t v = 0;
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return false;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

struct id_elem {
	const char *kind;
	bool has_lo, has_hi, range;
	uint32_t lo, hi;
};

/* One element of an id list as the parser builds it. */
static bool id_elem_shape(const struct coll_node *n, struct id_elem *e)
{
	memset(e, 0, sizeof *e);
	if (n->type == COLL_INTERSECTION && n->noperands == 2) {
		struct id_elem a, b;
		if (!id_elem_shape(n->operands[0], &a) || !id_elem_shape(n->operands[1], &b) ||
		    n->operands[0]->type != COLL_GREATEREQ ||
		    n->operands[1]->type != COLL_SMALLEREQ || strcmp(a.kind, b.kind) != 0 ||
		    a.lo > b.hi)
			return false;
		*e = a;
		e->has_hi = e->range = true;
		e->hi = b.hi;
		return true;
	}
	if (!coll_type_is_filter(n->type) || !on_universe(n) || attr(n, "collation"))
		return false;
	e->kind = id_kind(n);
	uint32_t v;
	if (!e->kind || !read_id(attr(n, "value"), &v))
		return false;
	switch (n->type) {
	case COLL_EQUALS:
		e->has_lo = e->has_hi = true;
		e->lo = e->hi = v;
		return true;
	case COLL_GREATEREQ:
		e->has_lo = true;
		e->lo = v;
		return true;
	case COLL_SMALLEREQ:
		e->has_hi = true;
		e->hi = v;
		return true;
	default:
		return false;
	}
}

/* An id list: one element, or a union of two or more of one kind. */
static bool id_list_shape(const struct coll_node *n)
{
	struct id_elem e;
	if (id_elem_shape(n, &e))
		return true;
	if (n->type != COLL_UNION || n->noperands < 2)
		return false;
	const char *kind = NULL;
	for (size_t i = 0; i < n->noperands; i++) {
		if (!id_elem_shape(n->operands[i], &e) || (kind && strcmp(kind, e.kind) != 0))
			return false;
		kind = e.kind;
	}
	return true;
}

/* A value the parser reads unquoted after '<' (a number, date or age;
 * on a length field a length too: duration<3:30). */
static bool value_is_plain_number(const char *field, const char *v)
{
	struct coll_value cv;
	coll_value_read(v, &cv);
	double ms;
	bool length = field && coll_value_is_length_field(field) && coll_value_length_ms(v, &ms);
	if ((cv.kind == COLL_VALUE_STRING && !length) || !*v)
		return false;
	for (const char *c = v; *c; c++)
		if (coll_lex_is_space(*c) || strchr("()\"'\\*?", *c))
			return false;
	return true;
}

/* intersection(greatereq f A, smallereq f B), printable as f:A..B. */
static bool range_shape(const struct coll_node *n)
{
	if (n->type != COLL_INTERSECTION || n->noperands != 2)
		return false;
	const struct coll_node *a = n->operands[0], *b = n->operands[1];
	if (!plain_filter(a, COLL_GREATEREQ) || !plain_filter(b, COLL_SMALLEREQ))
		return false;
	const char *fa = attr(a, "field"), *fb = attr(b, "field");
	const char *va = attr(a, "value"), *vb = attr(b, "value");
	char buf[8];
	return strcmp(fa, fb) == 0 && coll_lex_field_spelling(fa, buf, sizeof buf) &&
	       !colon_operator(fa) && va && vb &&
	       value_is_plain_number(fa, va) && value_is_plain_number(fa, vb) && !strstr(va, "..") &&
	       !coll_value_range_reversed(fa, va, vb); /* the parser refuses B..A */
}

/* ---- values ---- */

enum vmode { VM_FIELD, VM_BARE, VM_NAME };

/* One character of a stored value: bytes [s, s+n), a wildcard or literal. */
struct vchar {
	const char *s;
	size_t n;
	bool wild;
};

/* Next character of v at *i; pattern values use \ escapes for * ? \. */
static bool next_vchar(const char *v, size_t *i, bool pattern, struct vchar *c)
{
	if (!v[*i])
		return false;
	size_t len = strlen(v + *i);
	c->wild = false;
	if (pattern && v[*i] == '\\' && v[*i + 1]) {
		(*i)++;
		len--;
	} else if (pattern && (v[*i] == '*' || v[*i] == '?')) {
		c->wild = true;
	}
	uint32_t cp;
	c->s = v + *i;
	c->n = utf8_decode(v + *i, len, &cp);
	*i += c->n;
	return true;
}

/* The literal text of a stored value (escapes removed). Owned. */
static char *literal_of(const char *v, bool pattern)
{
	struct strbuf b;
	strbuf_init(&b, strlen(v) + 1);
	size_t i = 0;
	struct vchar c;
	while (next_vchar(v, &i, pattern, &c))
		strbuf_add(&b, c.s, c.n);
	return strbuf_steal(&b);
}

static bool has_wildcard(const char *v)
{
	size_t i = 0;
	struct vchar c;
	while (next_vchar(v, &i, true, &c))
		if (c.wild)
			return true;
	return false;
}

/* Would the parser read this unquoted `field:` value as a range A..B? */
static bool looks_like_range(const char *lit)
{
	const char *dd = strstr(lit, "..");
	if (!dd)
		return false;
	size_t a = (size_t)(dd - lit);
	char *left = xstrndup(lit, a);
	struct coll_value cl, cr;
	coll_value_read(left, &cl);
	coll_value_read(dd + 2, &cr);
	free(left);
	return (a || dd[2]) && (!a || cl.kind != COLL_VALUE_STRING) &&
	       (!dd[2] || cr.kind != COLL_VALUE_STRING);
}

static bool is_op_char(const char *s)
{
	return *s == ':' || *s == '~' || *s == '<' || *s == '>' || (*s == '!' && s[1] == '=');
}

static bool needs_quotes(const char *v, bool pattern, enum vmode mode)
{
	char *lit = literal_of(v, pattern);
	bool q = false;
	for (const char *c = lit; *c && !q; c++)
		q = coll_lex_is_space(*c) || *c == '(' || *c == ')';
	if (!q && mode == VM_BARE) {
		size_t len = strlen(lit);
		for (const char *c = lit; *c && !q; c++)
			q = is_op_char(c);
		q = q || lit[0] == '#' || lit[0] == '+' || coll_lex_field_equals(lit, len) ||
		    coll_lex_keyword(lit, len) != COLL_KW_NONE || coll_lex_is_number_seq(lit, len) ||
		    (pattern && strcmp(v, "*") == 0);
	}
	if (!q && mode == VM_FIELD)
		q = looks_like_range(lit);
	free(lit);
	return q;
}

/* Append a stored value so that the parser reads it back unchanged. prefix
 * (may be "") goes right after an opening quote, unescaped. */
static void put_value(struct strbuf *b, const char *v, bool pattern, enum vmode mode,
		      const char *prefix)
{
	bool quoted = needs_quotes(v, pattern, mode);
	if (quoted)
		strbuf_addc(b, '"');
	strbuf_adds(b, prefix);
	size_t i = 0;
	bool first = !*prefix;
	struct vchar c;
	while (next_vchar(v, &i, pattern, &c)) {
		char ch = c.s[0];
		bool esc = false;
		if (!c.wild && c.n == 1) {
			esc = ch == '\\' || ch == '*' || ch == '?' || (mode == VM_NAME && ch == '/');
			if (quoted)
				esc = esc || ch == '"';
			else
				esc = esc || coll_lex_is_space(ch) || ch == '(' || ch == ')' ||
				      (first && (ch == '"' || ch == '\'' ||
						 (mode == VM_BARE && (ch == '#' || ch == '+'))));
		}
		if (esc)
			strbuf_addc(b, '\\');
		strbuf_add(b, c.s, c.n);
		first = false;
	}
	if (quoted)
		strbuf_addc(b, '"');
}

/* A bare word must give the parser something to search for. */
static bool searchable(const char *v)
{
	size_t i = 0;
	struct vchar c;
	while (next_vchar(v, &i, true, &c)) {
		uint32_t cp;
		utf8_decode(c.s, c.n, &cp);
		if (c.wild || coll_lex_is_alnum(cp))
			return true;
	}
	return false;
}

/* ---- terms ---- */

/* The field name; colon: it is followed by ':'. */
static int put_field_op(struct printer *pr, const char *field, bool colon)
{
	char buf[8];
	const char *sp = field ? coll_lex_field_spelling(field, buf, sizeof buf) : NULL;
	if (!sp || (colon && colon_operator(field)))
		return fail(pr, "field name '%s'", field ? field : "(none)");
	strbuf_adds(&pr->b, sp);
	return 0;
}

static int put_field(struct printer *pr, const char *field)
{
	return put_field_op(pr, field, false);
}

static int put_id_elem(struct printer *pr, const struct id_elem *e)
{
	if (e->has_lo && e->has_hi && !e->range)
		strbuf_addf(&pr->b, "%u", e->lo);
	else if (e->has_lo && e->has_hi)
		strbuf_addf(&pr->b, "%u-%u", e->lo, e->hi);
	else if (e->has_lo)
		strbuf_addf(&pr->b, "%u-", e->lo);
	else
		strbuf_addf(&pr->b, "-%u", e->hi);
	return 0;
}

static void put_id_prefix(struct printer *pr, const char *kind)
{
	if (strcmp(kind, "id") == 0)
		strbuf_addc(&pr->b, '#');
}

static int put_id_list(struct printer *pr, const struct coll_node *n)
{
	struct id_elem e;
	if (id_elem_shape(n, &e)) {
		put_id_prefix(pr, e.kind);
		return put_id_elem(pr, &e);
	}
	for (size_t i = 0; i < n->noperands; i++) {
		id_elem_shape(n->operands[i], &e);
		if (i == 0)
			put_id_prefix(pr, e.kind);
		else
			strbuf_addc(&pr->b, ',');
		put_id_elem(pr, &e);
	}
	return 0;
}

/* notequal/smaller/greater on ids: the id set they stand for. */
static int put_id_compare(struct printer *pr, const struct coll_node *n, const char *kind)
{
	uint32_t v;
	if (!read_id(attr(n, "value"), &v))
		return fail(pr, "%s value '%s'", kind, attr(n, "value") ? attr(n, "value") : "");
	const char *hash = strcmp(kind, "id") == 0 ? "#" : "";
	switch (n->type) {
	case COLL_NOTEQUAL:
		strbuf_addf(&pr->b, "NOT %s%u", hash, v);
		return 0;
	case COLL_SMALLER:
		if (v <= 1)
			strbuf_adds(&pr->b, "NOT *");
		else
			strbuf_addf(&pr->b, "%s-%u", hash, v - 1);
		return 0;
	case COLL_GREATER:
		if (v == UINT32_MAX)
			strbuf_adds(&pr->b, "NOT *");
		else
			strbuf_addf(&pr->b, "%s%u-", hash, v + 1);
		return 0;
	case COLL_HAS:
		strbuf_addc(&pr->b, '*');
		return 0;
	default:
		return fail(pr, "a %s filter on %ss", coll_type_name(n->type), kind);
	}
}

static int put_compare(struct printer *pr, const struct coll_node *n, const char *op)
{
	const char *v = attr(n, "value");
	if (put_field(pr, attr(n, "field")) != 0)
		return -1;
	strbuf_adds(&pr->b, op);
	if (!v || !*v)
		return fail(pr, "an empty value");
	if (value_is_plain_number(attr(n, "field"), v)) {
		strbuf_adds(&pr->b, v);
		return 0;
	}
	/* Quoted, so the parser takes it as a string (natural order). */
	strbuf_addc(&pr->b, '"');
	for (const char *c = v; *c; c++) {
		if (*c == '"' || *c == '\\')
			strbuf_addc(&pr->b, '\\');
		strbuf_addc(&pr->b, *c);
	}
	strbuf_addc(&pr->b, '"');
	return 0;
}

/* For a pattern *X* where X neither starts nor ends with a wildcard star
 * (so `~X` adds both stars back): X, owned. Else NULL. */
static char *contains_inner(const char *pat)
{
	size_t i = 0, nch = 0, last_start = 0;
	bool first_star = false, second_star = false, last_star = false, prev_star = false;
	bool before_last = false;
	struct vchar c;
	while (next_vchar(pat, &i, true, &c)) {
		bool star = c.wild && c.s[0] == '*';
		if (nch == 0)
			first_star = star;
		if (nch == 1)
			second_star = star;
		before_last = prev_star;
		prev_star = last_star = star;
		last_start = (size_t)(c.s - pat);
		nch++;
	}
	if (nch >= 3 && first_star && last_star && !second_star && !before_last)
		return xstrndup(pat + 1, last_start - 1);
	return NULL;
}

/* Does the pattern start and end with a wildcard star? */
static bool star_bounded(const char *pat)
{
	size_t i = 0;
	bool first = true, first_star = false, last_star = false;
	struct vchar c;
	while (next_vchar(pat, &i, true, &c)) {
		last_star = c.wild && c.s[0] == '*';
		if (first)
			first_star = last_star;
		first = false;
	}
	return first_star && last_star;
}

/* A match pattern: field~X when it is *X*, else field:PATTERN; without a
 * field, the artist/album/title forms ~X and :PATTERN. */
static int put_match(struct printer *pr, const char *field, const char *pat)
{
	char *inner = contains_inner(pat);
	/* `in:` is a reference (`like:` a similarity), but `in~P` gives back
	 * any P that starts and ends with a wildcard star. */
	if (!inner && field && colon_operator(field) && star_bounded(pat))
		inner = xstrdup(pat);
	if (field && put_field_op(pr, field, !inner) != 0) {
		free(inner);
		return -1;
	}
	if (inner) {
		strbuf_addc(&pr->b, '~');
		put_value(&pr->b, inner, true, VM_FIELD, "");
		free(inner);
		return 0;
	}
	if (has_wildcard(pat)) {
		strbuf_addc(&pr->b, ':');
		put_value(&pr->b, pat, true, VM_FIELD, "");
		return 0;
	}
	/* No wildcard: the same as equals. */
	char *lit = literal_of(pat, true);
	int rc = 0;
	if (!*lit) {
		rc = fail(pr, "an empty value");
	} else {
		strbuf_addc(&pr->b, ':');
		put_value(&pr->b, lit, false, VM_FIELD, "");
	}
	free(lit);
	return rc;
}

/* A filter on the universe, as one term. */
static int put_filter(struct printer *pr, const struct coll_node *n)
{
	if (attr(n, "collation"))
		return fail(pr, "collation=%s", attr(n, "collation"));
	const char *kind = id_kind(n);
	struct id_elem e;
	if (kind) {
		if (id_elem_shape(n, &e)) {
			put_id_prefix(pr, e.kind);
			return put_id_elem(pr, &e);
		}
		return put_id_compare(pr, n, kind);
	}
	const char *field = attr(n, "field"), *v = attr(n, "value");
	if (n->type == COLL_HAS) {
		strbuf_addc(&pr->b, '+');
		return put_field(pr, field);
	}
	if (!v || !*v)
		return fail(pr, "an empty value");
	switch (n->type) {
	case COLL_EQUALS:
		if (put_field_op(pr, field, true) != 0)
			return -1;
		strbuf_addc(&pr->b, ':');
		put_value(&pr->b, v, false, VM_FIELD, "");
		return 0;
	case COLL_NOTEQUAL:
		if (put_field(pr, field) != 0)
			return -1;
		strbuf_adds(&pr->b, "!=");
		put_value(&pr->b, v, false, VM_FIELD, "");
		return 0;
	case COLL_MATCH:
		if (!field)
			return fail(pr, "a match without a field");
		return put_match(pr, field, v);
	case COLL_TOKEN:
		return fail(pr, "a token filter on one field ('%s')", field ? field : "");
	case COLL_SMALLER:
		return put_compare(pr, n, "<");
	case COLL_SMALLEREQ:
		return put_compare(pr, n, "<=");
	case COLL_GREATER:
		return put_compare(pr, n, ">");
	case COLL_GREATEREQ:
		return put_compare(pr, n, ">=");
	default:
		return fail(pr, "a %s node", coll_type_name(n->type));
	}
}

static int put_reference(struct printer *pr, const struct coll_node *n)
{
	const char *ns = attr(n, "namespace"), *name = attr(n, "reference");
	if (!ns)
		ns = "Collections";
	if (!name || !*name)
		return fail(pr, "a reference without a name");
	bool playlists = strcmp(ns, "Playlists") == 0;
	if (!playlists && strcmp(ns, "Collections") != 0)
		return fail(pr, "namespace '%s'", ns);
	if (!playlists && strcmp(name, "All Media") == 0) {
		strbuf_addc(&pr->b, '*');
		return 0;
	}
	strbuf_adds(&pr->b, "in:");
	put_value(&pr->b, name, false, VM_NAME, playlists ? "Playlists/" : "");
	return 0;
}

/* ---- expressions ---- */

enum ctx { CTX_TOP, CTX_SEQ, CTX_AND, CTX_OR, CTX_NOT };
enum level { LVL_TERM, LVL_NOT, LVL_OR, LVL_AND, LVL_CLAUSE };

static enum level node_level(const struct coll_node *n)
{
	switch (n->type) {
	case COLL_COMPLEMENT:
		return LVL_NOT;
	case COLL_UNION:
		if (n->noperands == 1)
			return node_level(n->operands[0]);
		if (n->noperands == 0)
			return LVL_NOT;
		if (coll_three_fields_value(n, COLL_TOKEN) || coll_three_fields_value(n, COLL_EQUALS) ||
		    coll_three_fields_value(n, COLL_MATCH) || id_list_shape(n))
			return LVL_TERM;
		return LVL_OR;
	case COLL_INTERSECTION:
		if (n->noperands == 1)
			return node_level(n->operands[0]);
		if (range_shape(n) || id_list_shape(n))
			return LVL_TERM;
		return LVL_AND;
	case COLL_MEDIASET:
		return LVL_AND;
	case COLL_ORDER:
	case COLL_LIMIT:
		return LVL_CLAUSE;
	default:
		if (coll_type_is_filter(n->type) && !on_universe(n))
			return LVL_AND;
		return LVL_TERM;
	}
}

static bool needs_parens(enum level l, enum ctx c)
{
	switch (c) {
	case CTX_TOP:
		return false;
	case CTX_SEQ:
		return l == LVL_CLAUSE;
	case CTX_AND:
		return l == LVL_CLAUSE || l == LVL_AND;
	default:
		return l == LVL_CLAUSE || l == LVL_AND || l == LVL_OR;
	}
}

static int print_node(struct printer *pr, const struct coll_node *n, enum ctx ctx);

static int put_keys(struct printer *pr, const struct coll_node *n)
{
	const char *type = attr(n, "type");
	const char *dir = attr(n, "direction");
	bool desc = dir && strcmp(dir, "DESC") == 0;
	if (type && strcmp(type, "random") == 0) {
		const char *seed = attr(n, "seed");
		strbuf_adds(&pr->b, "random");
		if (seed) {
			size_t k = strspn(seed, "0123456789");
			if (k == 0 || seed[k] || k > 19)
				return fail(pr, "random seed '%s'", seed);
			strbuf_addf(&pr->b, "(%s)", seed);
		}
		return 0;
	}
	if (type && strcmp(type, "id") == 0) {
		strbuf_adds(&pr->b, desc ? "-id" : "id");
		return 0;
	}
	if (type && strcmp(type, "value") != 0)
		return fail(pr, "order type '%s'", type);
	const char *fields = attr(n, "field");
	if (!fields || !*fields)
		return fail(pr, "an order without fields");
	const char *s = fields;
	for (bool first = true;; first = false) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		bool minus = len > 0 && s[0] == '-';
		char *name = xstrndup(s + minus, len - minus);
		char buf[8];
		const char *sp = coll_lex_field_spelling(name, buf, sizeof buf);
		bool ok = sp && strcmp(name, "random") != 0 && strcmp(name, "id") != 0;
		if (ok) {
			if (!first)
				strbuf_adds(&pr->b, ", ");
			if (minus != desc)
				strbuf_addc(&pr->b, '-');
			strbuf_adds(&pr->b, sp);
		}
		free(name);
		if (!ok)
			return fail(pr, "sort field list '%s'", fields);
		if (!e)
			return 0;
		s = e + 1;
	}
}

static int put_count(struct printer *pr, const char *what, const char *v)
{
	size_t k = v ? strspn(v, "0123456789") : 0;
	if (k == 0 || v[k] || k > 10 || (k > 1 && v[0] == '0') || strtoull(v, NULL, 10) > UINT32_MAX)
		return fail(pr, "%s '%s'", what, v ? v : "(none)");
	strbuf_adds(&pr->b, v);
	return 0;
}

/* like:"..." reads the quoted text as a query of its own, and like:3 a
 * media id, so a seed that prints as a quoted word ("ORDER", "a b") or
 * from a digit (a list position) goes in parentheses to stay what it is. */
static int put_like_seed(struct printer *pr, const struct coll_node *seed)
{
	size_t at = pr->b.len;
	int rc = print_node(pr, seed, CTX_NOT);
	if (rc != 0 || pr->b.len == at)
		return rc;
	char c0 = pr->b.buf[at];
	if (c0 != '"' && c0 != '\'' && (c0 < '0' || c0 > '9'))
		return rc;
	strbuf_addc(&pr->b, ' '); /* room for the '(' */
	memmove(pr->b.buf + at + 1, pr->b.buf + at, pr->b.len - 1 - at);
	pr->b.buf[at] = '(';
	strbuf_addc(&pr->b, ')');
	return 0;
}

static int print_inner(struct printer *pr, const struct coll_node *n, enum ctx ctx)
{
	const char *v;
	switch (n->type) {
	case COLL_UNIVERSE:
		strbuf_addc(&pr->b, '*');
		return 0;
	case COLL_REFERENCE:
		return put_reference(pr, n);
	case COLL_IDLIST:
		return fail(pr, "an unsaved list");
	case COLL_SIMILAR:
		if (n->noperands != 1)
			return fail(pr, "a like: with %zu operands", n->noperands);
		/* Its operand binds like NOT's: one term, else parentheses. */
		strbuf_adds(&pr->b, "like:");
		return put_like_seed(pr, n->operands[0]);
	case COLL_COMPLEMENT:
		if (n->noperands != 1)
			return fail(pr, "a complement with %zu operands", n->noperands);
		strbuf_adds(&pr->b, "NOT ");
		return print_node(pr, n->operands[0], CTX_NOT);
	case COLL_MEDIASET:
		if (n->noperands != 1)
			return fail(pr, "a mediaset with %zu operands", n->noperands);
		/* The universe first: the intersection is then a set. */
		strbuf_adds(&pr->b, "* ");
		return print_node(pr, n->operands[0], CTX_AND);
	case COLL_UNION:
	case COLL_INTERSECTION:
		if (n->noperands == 0) {
			if (n->type == COLL_INTERSECTION)
				return fail(pr, "an intersection without operands");
			strbuf_adds(&pr->b, "NOT *");
			return 0;
		}
		if (n->noperands == 1)
			return print_node(pr, n->operands[0], ctx);
		if (id_list_shape(n))
			return put_id_list(pr, n);
		if (n->type == COLL_UNION) {
			if ((v = coll_three_fields_value(n, COLL_TOKEN)) != NULL) {
				if (!searchable(v))
					return fail(pr, "a word search for '%s'", v);
				put_value(&pr->b, v, true, VM_BARE, "");
				return 0;
			}
			if ((v = coll_three_fields_value(n, COLL_EQUALS)) != NULL && *v) {
				strbuf_addc(&pr->b, ':');
				put_value(&pr->b, v, false, VM_FIELD, "");
				return 0;
			}
			if ((v = coll_three_fields_value(n, COLL_MATCH)) != NULL && *v) {
				size_t nw = 0, i = 0;
				struct vchar c;
				bool star_last = false;
				while (next_vchar(v, &i, true, &c)) {
					nw += c.wild;
					star_last = c.wild && c.s[0] == '*';
				}
				char *inner = contains_inner(v);
				bool contains = inner != NULL;
				free(inner);
				/* A pattern word, unless ~X says it better or it would
				 * read as a prefix word. */
				if (!contains && nw > 0 && !(nw == 1 && star_last)) {
					put_value(&pr->b, v, true, VM_BARE, "");
					return 0;
				}
				return put_match(pr, NULL, v);
			}
		} else if (range_shape(n)) {
			const struct coll_node *lo = n->operands[0];
			put_field(pr, attr(lo, "field"));
			strbuf_addf(&pr->b, ":%s..%s", attr(lo, "value"),
				    attr(n->operands[1], "value"));
			return 0;
		}
		for (size_t i = 0; i < n->noperands; i++) {
			if (i)
				strbuf_adds(&pr->b, n->type == COLL_UNION ? " OR " : " ");
			if (print_node(pr, n->operands[i],
				       n->type == COLL_UNION ? CTX_OR : CTX_AND) != 0)
				return -1;
		}
		return 0;
	case COLL_ORDER:
		if (n->noperands != 1)
			return fail(pr, "an order with %zu operands", n->noperands);
		if (print_node(pr, n->operands[0], CTX_SEQ) != 0)
			return -1;
		strbuf_adds(&pr->b, " ORDER BY ");
		return put_keys(pr, n);
	case COLL_LIMIT: {
		if (n->noperands != 1)
			return fail(pr, "a limit with %zu operands", n->noperands);
		const struct coll_node *op = n->operands[0];
		int rc = op->type == COLL_ORDER ? print_inner(pr, op, CTX_SEQ)
						: print_node(pr, op, CTX_SEQ);
		if (rc != 0)
			return -1;
		strbuf_adds(&pr->b, " LIMIT ");
		if (put_count(pr, "limit length", attr(n, "length")) != 0)
			return -1;
		if (attr(n, "start")) {
			strbuf_adds(&pr->b, " OFFSET ");
			return put_count(pr, "limit start", attr(n, "start"));
		}
		return 0;
	}
	default:
		if (!coll_type_is_filter(n->type))
			return fail(pr, "a %s node", coll_type_name(n->type));
		if (n->noperands != 1)
			return fail(pr, "a %s filter with %zu operands", coll_type_name(n->type),
				    n->noperands);
		if (!on_universe(n)) {
			/* A filter over another collection: that collection, intersected. */
			if (print_node(pr, n->operands[0], CTX_AND) != 0)
				return -1;
			strbuf_addc(&pr->b, ' ');
		}
		return put_filter(pr, n);
	}
}

static int print_node(struct printer *pr, const struct coll_node *n, enum ctx ctx)
{
	if (++pr->depth > MAX_PRINT_DEPTH)
		return fail(pr, "nested deeper than %d levels", MAX_PRINT_DEPTH);
	int rc;
	if (needs_parens(node_level(n), ctx)) {
		strbuf_addc(&pr->b, '(');
		rc = print_inner(pr, n, CTX_TOP);
		strbuf_addc(&pr->b, ')');
	} else {
		rc = print_inner(pr, n, ctx);
	}
	pr->depth--;
	return pr->failed ? -1 : rc;
}

char *coll_print(const struct coll_node *node, struct crate_err *err)
{
	struct printer pr = {.err = err};
	crate_err_clear(err);
	strbuf_init(&pr.b, 64);
	if (!node) {
		fail(&pr, "no collection");
	} else if (print_node(&pr, node, CTX_TOP) != 0 || pr.failed) {
		fail(&pr, "unknown reason");
	}
	if (pr.failed) {
		strbuf_free(&pr.b);
		return NULL;
	}
	return strbuf_steal(&pr.b);
}
