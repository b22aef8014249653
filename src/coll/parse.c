/* The query parser: text -> collection (spec/query-syntax.md).
 *
 * A hand-written recursive-descent parser over the bytes of the query.
 * Terms are lexed together with their structure (field, operator, value)
 * because a value may hold quotes, colons and keywords that only mean
 * something at a given place. Recursion is bounded by counting nesting
 * (parentheses and NOT) against COLL_PARSE_MAX_DEPTH, so no input can
 * overflow the stack. Every error names its 1-based column in characters;
 * errors caused by running out of text are CRATE_ERR_INCOMPLETE. */
#include "coll/parse.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "base/utf8.h"
#include "coll/lex.h"
#include "coll/value.h"

#define NONE SIZE_MAX

struct parser {
	const char *q;
	size_t len, pos;
	const struct coll_parse_opts *opts;
	struct crate_err *err;
	int depth;
	bool failed;
	/* Scratch for scan_value, reused from term to term (one value is
	 * scanned at a time), which saves two allocations per term. */
	struct strbuf lit, pat;
};

/* ---- errors ---- */

static void *fail_at(struct parser *p, int code, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void *fail_at(struct parser *p, int code, size_t off, const char *fmt, ...)
{
	if (p->failed)
		return NULL;
	p->failed = true;
	va_list ap;
	va_start(ap, fmt);
	crate_err_vset(p->err, code, fmt, ap);
	va_end(ap);
	int col = (int)utf8_count(p->q, off < p->len ? off : p->len) + 1;
	crate_err_prefix(p->err, "col %d: ", col);
	if (p->err)
		p->err->pos = col;
	return NULL;
}

/* INCOMPLETE when the text simply ended, else PARSE. */
static int end_code(const struct parser *p)
{
	return p->pos >= p->len ? CRATE_ERR_INCOMPLETE : CRATE_ERR_PARSE;
}

/* A piece of the query for a message: at most ~40 bytes, cut on a code
 * point boundary, NUL bytes shown as '?'. */
static const char *snippet(const char *s, size_t len, char *buf, size_t bufsize)
{
	size_t n = 0, i = 0;
	while (i < len && n + 4 < bufsize && n < 40) {
		uint32_t cp;
		size_t k = utf8_decode(s + i, len - i, &cp);
		if (s[i] == '\0') {
			buf[n++] = '?';
		} else {
			memcpy(buf + n, s + i, k);
			n += k;
		}
		i += k;
	}
	if (i < len && n + 4 <= bufsize) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/* ---- small helpers ---- */

static bool at_end(const struct parser *p)
{
	return p->pos >= p->len;
}

static bool is_sep(const struct parser *p, size_t i)
{
	return i >= p->len || coll_lex_is_space(p->q[i]) || p->q[i] == '(' || p->q[i] == ')';
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && coll_lex_is_space(p->q[p->pos]))
		p->pos++;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The keyword at pos (a whole unquoted chunk), with its end in *end. */
static enum coll_kw peek_kw(const struct parser *p, size_t *end)
{
	size_t i = p->pos;
	while (!is_sep(p, i))
		i++;
	*end = i;
	return coll_lex_keyword(p->q + p->pos, i - p->pos);
}

/* Can a term start here? (Not the end, not ')', not a binary keyword.) */
static bool term_start(const struct parser *p)
{
	if (at_end(p) || p->q[p->pos] == ')')
		return false;
	size_t end;
	enum coll_kw kw = peek_kw(p, &end);
	return kw == COLL_KW_NONE || kw == COLL_KW_NOT;
}

/* Set the span on n and on operands that have none yet (the universe
 * operands filters get). */
static struct coll_node *set_span(struct coll_node *n, size_t start, size_t end)
{
	n->span_start = (int)start;
	n->span_end = (int)end;
	for (size_t i = 0; i < n->noperands; i++)
		if (n->operands[i]->span_start < 0)
			set_span(n->operands[i], start, end);
	return n;
}

static struct coll_node *filter_new(enum coll_type t, const char *field, const char *value)
{
	return coll_filter_new(t, field, value, NULL);
}

/* A union or intersection of the nodes, each of which it takes over. */
static struct coll_node *combine(enum coll_type t, struct coll_node **items, size_t n)
{
	struct coll_node *c = coll_node_new(t);
	for (size_t i = 0; i < n; i++) {
		coll_node_add_operand(c, items[i]);
		coll_node_unref(items[i]);
	}
	return c;
}

static const char *const word_fields[] = {"artist", "album", "title"};

/* The same filter on artist, album and title, united. */
static struct coll_node *three_fields(enum coll_type t, const char *value)
{
	struct coll_node *items[3];
	for (size_t i = 0; i < 3; i++)
		items[i] = filter_new(t, word_fields[i], value);
	return combine(COLL_UNION, items, 3);
}

/* ---- values ---- */

struct value {
	struct strbuf lit; /* the text with quotes and escapes removed */
	struct strbuf pat; /* match/token form: wildcards bare, literal * ? \ escaped */
	size_t start, end; /* bytes of q */
	bool quoted, closed, escaped;
	int nwild;         /* unescaped '*' and '?' */
	bool star_last;    /* the last character is an unescaped '*' */
	long slash;        /* offset in lit of the first unescaped '/', or -1 */
	long dotdot;       /* offset in lit of the first unescaped "..", unquoted only */
	size_t op_at;      /* first unescaped operator character (bare words), or NONE */
};

/* The value borrows the parser's scratch buffers until value_done. */
static void value_init(struct parser *p, struct value *v)
{
	memset(v, 0, sizeof *v);
	v->lit = p->lit;
	v->pat = p->pat;
	strbuf_reset(&v->lit);
	strbuf_reset(&v->pat);
	v->slash = v->dotdot = -1;
	v->op_at = NONE;
}

static void value_done(struct parser *p, struct value *v)
{
	p->lit = v->lit;
	p->pat = v->pat;
}

/* Scan a value at pos: a quoted string (when allow_quote and it starts with
 * a quote) or a run up to the next unescaped space or parenthesis. */
static int scan_value(struct parser *p, struct value *v, bool allow_quote)
{
	const char *q = p->q;
	char quote = 0;
	bool prev_dot = false;
	v->start = p->pos;
	if (allow_quote && !at_end(p) && (q[p->pos] == '"' || q[p->pos] == '\'')) {
		quote = q[p->pos++];
		v->quoted = true;
	}
	while (p->pos < p->len) {
		char c = q[p->pos];
		if (quote && c == quote) {
			p->pos++;
			v->closed = true;
			break;
		}
		if (!quote && (coll_lex_is_space(c) || c == '(' || c == ')'))
			break;
		if (c == '\0') {
			fail_at(p, CRATE_ERR_PARSE, p->pos, "unexpected NUL byte");
			return -1;
		}
		if (c == '\\') {
			if (p->pos + 1 >= p->len) {
				fail_at(p, CRATE_ERR_INCOMPLETE, p->pos,
					"expected a character after '\\'");
				return -1;
			}
			if (q[p->pos + 1] == '\0') {
				fail_at(p, CRATE_ERR_PARSE, p->pos + 1, "unexpected NUL byte");
				return -1;
			}
			uint32_t cp;
			size_t n = utf8_decode(q + p->pos + 1, p->len - p->pos - 1, &cp);
			char e = q[p->pos + 1];
			strbuf_add(&v->lit, q + p->pos + 1, n);
			if (e == '*' || e == '?' || e == '\\')
				strbuf_addc(&v->pat, '\\');
			strbuf_add(&v->pat, q + p->pos + 1, n);
			v->escaped = true;
			v->star_last = prev_dot = false;
			p->pos += 1 + n;
			continue;
		}
		if (c == '*' || c == '?')
			v->nwild++;
		v->star_last = c == '*';
		if (c == '/' && v->slash < 0)
			v->slash = (long)v->lit.len;
		if (!quote) {
			if (c == '.' && prev_dot && v->dotdot < 0)
				v->dotdot = (long)v->lit.len - 1;
			bool op = c == ':' || c == '~' || c == '<' || c == '>' ||
				  (c == '!' && p->pos + 1 < p->len && q[p->pos + 1] == '=');
			if (op && v->op_at == NONE)
				v->op_at = p->pos;
		}
		prev_dot = c == '.';
		strbuf_addc(&v->lit, c);
		strbuf_addc(&v->pat, c);
		p->pos++;
	}
	v->end = p->pos;
	if (v->closed && !is_sep(p, p->pos)) {
		fail_at(p, CRATE_ERR_PARSE, p->pos, "expected a space after the closing quote");
		return -1;
	}
	return 0;
}

/* ---- ids and positions ---- */

static int read_uint(struct parser *p, uint32_t *out)
{
	uint64_t v = 0;
	size_t start = p->pos;
	while (p->pos < p->len && is_digit(p->q[p->pos])) {
		v = v * 10 + (uint64_t)(p->q[p->pos] - '0');
		if (v > UINT32_MAX) {
			fail_at(p, CRATE_ERR_PARSE, start, "number too large");
			return -1;
		}
		p->pos++;
	}
	*out = (uint32_t)v;
	return 0;
}

static struct coll_node *id_filter(enum coll_type t, const char *kind, uint32_t v)
{
	char num[16];
	snprintf(num, sizeof num, "%u", v);
	struct coll_node *n = filter_new(t, NULL, num);
	coll_attr_set(n, "type", kind);
	return n;
}

/* One element of an id list: N, N-M, N-, -M. */
static struct coll_node *parse_id_elem(struct parser *p, const char *kind, const char *after)
{
	size_t start = p->pos;
	uint32_t a = 0, b = 0;
	bool has_a = false, has_b = false, range = false;
	const char *what = strcmp(kind, "id") == 0 ? "media id" : "position";
	if (at_end(p))
		return fail_at(p, CRATE_ERR_INCOMPLETE, p->pos, "expected a %s after '%s'", what,
			       after);
	if (is_digit(p->q[p->pos])) {
		if (read_uint(p, &a) != 0)
			return NULL;
		has_a = true;
	}
	if (!at_end(p) && p->q[p->pos] == '-') {
		range = true;
		p->pos++;
		if (!at_end(p) && is_digit(p->q[p->pos])) {
			if (read_uint(p, &b) != 0)
				return NULL;
			has_b = true;
		}
	}
	if (!has_a && !has_b) {
		if (range)
			return fail_at(p, end_code(p), p->pos, "expected a %s after '-'", what);
		if (p->q[p->pos] == ',')
			return fail_at(p, CRATE_ERR_PARSE, start, "empty element in the %s list",
				       what);
		return fail_at(p, CRATE_ERR_PARSE, start, "expected a %s after '%s'", what, after);
	}
	if ((has_a && a == 0) || (has_b && b == 0))
		return fail_at(p, CRATE_ERR_PARSE, start, "%ss start at 1", what);
	if (has_a && has_b && a > b)
		return fail_at(p, CRATE_ERR_PARSE, start, "reversed range %u-%u", a, b);
	struct coll_node *n;
	if (has_a && has_b) {
		struct coll_node *items[2] = {id_filter(COLL_GREATEREQ, kind, a),
					      id_filter(COLL_SMALLEREQ, kind, b)};
		n = combine(COLL_INTERSECTION, items, 2);
	} else if (has_a) {
		n = id_filter(range ? COLL_GREATEREQ : COLL_EQUALS, kind, a);
	} else {
		n = id_filter(COLL_SMALLEREQ, kind, b);
	}
	return set_span(n, start, p->pos);
}

/* `#1,4-6,9` or, in a list, `1,4-6,9`: kind is "id" or "position". */
static struct coll_node *parse_ids(struct parser *p, const char *kind, const char *first_after)
{
	size_t start = p->pos;
	struct coll_node **items = NULL;
	size_t n = 0;
	const char *after = first_after;
	for (;;) {
		struct coll_node *e = parse_id_elem(p, kind, after);
		if (!e)
			goto fail;
		items = xreallocarray(items, n + 1, sizeof *items);
		items[n++] = e;
		if (is_sep(p, p->pos))
			break;
		if (p->q[p->pos] != ',') {
			char sn[64];
			fail_at(p, CRATE_ERR_PARSE, p->pos, "unexpected '%s' in the %s list",
				snippet(p->q + p->pos, 1, sn, sizeof sn),
				strcmp(kind, "id") == 0 ? "id" : "position");
			goto fail;
		}
		p->pos++;
		after = ",";
	}
	struct coll_node *r = n == 1 ? items[0] : set_span(combine(COLL_UNION, items, n), start,
							     p->pos);
	free(items);
	return r;
fail:
	for (size_t i = 0; i < n; i++)
		coll_node_unref(items[i]);
	free(items);
	return NULL;
}

/* ---- terms ---- */

/* What people bring from cmus, C or SQL for AND, OR, NOT and equality: a
 * word made only of '&' or only of '|', "!", "=" or "==". What to suggest,
 * or NULL. (Kept errors rather than aliases: the spec makes them words
 * with nothing to search for, and a hint teaches the one spelling.) */
static const char *other_language_operator(const char *lit, size_t len)
{
	static const struct {
		char c;
		size_t max;
		const char *meant;
	} ops[] = {{'&', SIZE_MAX, "AND"}, {'|', SIZE_MAX, "OR"}, {'!', 1, "NOT"},
		   {'=', 2, "':' (field:value)"}};
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		if (len == 0 || len > ops[k].max || lit[0] != ops[k].c)
			continue;
		size_t i = 1;
		while (i < len && lit[i] == ops[k].c)
			i++;
		if (i == len)
			return ops[k].meant;
	}
	return NULL;
}

static size_t term_end(const struct parser *p, size_t i);

/* `artist=queen`, `year==1967` (cmus's and MPD's equality) typed as one
 * word: the offset of its '=' when the name before it is a property every
 * library has, else 0. Other words with '=' (E=MC2) stay words. */
static size_t equals_sign_after_field(const struct value *v)
{
	return v->quoted || v->escaped ? 0 : coll_lex_field_equals(v->lit.buf, v->lit.len);
}

/* A bare word (quoted or not): a word search, a pattern, the universe or,
 * in a list, positions. */
static struct coll_node *finish_word(struct parser *p, struct value *v)
{
	const char *lit = v->lit.buf;
	char sn[64];
	if (!v->escaped && strcmp(lit, "*") == 0) {
		/* Bare, the universe; quoted, the pattern "*": every item with
		 * an artist, album or title (wildcards work inside quotes). */
		struct coll_node *n = v->quoted ? three_fields(COLL_MATCH, "*")
						: coll_node_new(COLL_UNIVERSE);
		return set_span(n, v->start, v->end);
	}
	if (v->op_at != NONE) {
		if (v->op_at == v->start)
			return fail_at(p, CRATE_ERR_PARSE, v->start,
				       "expected a field name before '%c'", p->q[v->op_at]);
		/* `!a:x`, `-a:x`: cmus's and Google's negations */
		char c0 = p->q[v->start];
		size_t name = v->start + 1;
		if ((c0 == '!' || c0 == '-') && name < v->op_at &&
		    coll_lex_field_len(p->q + name, v->op_at - name) == v->op_at - name)
			return fail_at(p, CRATE_ERR_PARSE, v->start,
				       "'%c' is not an operator: did you mean 'NOT %s'?", c0,
				       snippet(p->q + name, v->end - name, sn, sizeof sn));
		return fail_at(p, CRATE_ERR_PARSE, v->start,
			       "'%s' is not a field name (names start with a letter)",
			       snippet(p->q + v->start, v->op_at - v->start, sn, sizeof sn));
	}
	if (p->opts->list_context && !v->quoted && !v->escaped &&
	    coll_lex_is_number_seq(lit, v->lit.len)) {
		size_t end = p->pos;
		p->pos = v->start;
		struct coll_node *n = parse_ids(p, "position", "");
		if (n && p->pos != end) { /* cannot happen: the word was only digits, '-', ',' */
			coll_node_unref(n);
			return fail_at(p, CRATE_ERR_PARSE, p->pos, "malformed position list");
		}
		return n;
	}
	size_t eq = equals_sign_after_field(v);
	if (eq) { /* the value as typed: album="Kid A" is one term */
		size_t val = v->start + eq + 1 + (lit[eq + 1] == '=');
		return fail_at(p, CRATE_ERR_PARSE, v->start + eq,
			       "'=' is not an operator: did you mean '%.*s:%s'?", (int)eq, lit,
			       snippet(p->q + val, term_end(p, val) - val, sn, sizeof sn));
	}
	bool searchable = v->nwild > 0;
	for (size_t i = 0; i < v->lit.len && !searchable;) {
		uint32_t cp;
		i += utf8_decode(lit + i, v->lit.len - i, &cp);
		searchable = coll_lex_is_alnum(cp);
	}
	if (!searchable) {
		if (v->lit.len == 0) {
			if (v->quoted && !v->closed)
				return fail_at(p, CRATE_ERR_INCOMPLETE, v->start,
					       "expected a word after the quote");
			return fail_at(p, CRATE_ERR_PARSE, v->start, "empty quoted word");
		}
		const char *meant = v->quoted || v->escaped ? NULL
				    : other_language_operator(lit, v->lit.len);
		if (meant)
			return fail_at(p, CRATE_ERR_PARSE, v->start,
				       "'%s' is not an operator: did you mean %s?",
				       snippet(lit, v->lit.len, sn, sizeof sn), meant);
		return fail_at(p, CRATE_ERR_PARSE, v->start, "'%s' has nothing to search for",
			       snippet(lit, v->lit.len, sn, sizeof sn));
	}
	struct coll_node *n;
	if (v->nwild == 0 || (v->nwild == 1 && v->star_last))
		n = three_fields(COLL_TOKEN, v->pat.buf);
	else
		n = three_fields(COLL_MATCH, v->pat.buf);
	return set_span(n, v->start, v->end);
}

/* `*value*` with the stars added unless already there at that end. */
static char *contains_pattern(const struct value *v)
{
	const char *s = v->pat.buf;
	size_t len = v->pat.len;
	bool lead = len > 0 && s[0] == '*';
	bool trail = false;
	if (len > 0 && s[len - 1] == '*') {
		size_t bs = 0; /* an even number of backslashes before it: unescaped */
		while (bs + 1 < len && s[len - 2 - bs] == '\\')
			bs++;
		trail = bs % 2 == 0;
	}
	return xasprintf("%s%s%s", lead ? "" : "*", s, trail ? "" : "*");
}

/* A value that compares as a number, date or age, or on a length field
 * (duration) as a length: 3:30, 5m. */
static bool comparable_value(const char *field, const char *text)
{
	struct coll_value cv;
	coll_value_read(text, &cv);
	double ms;
	return cv.kind != COLL_VALUE_STRING ||
	       (coll_value_is_length_field(field) && coll_value_length_ms(text, &ms));
}

static bool range_side_ok(const char *field, const char *s, size_t len)
{
	if (len == 0)
		return true;
	char *t = xstrndup(s, len);
	bool ok = comparable_value(field, t);
	free(t);
	return ok;
}

/* `field:A..B` when both ends (one may be empty) are numbers, dates or ages. */
static struct coll_node *try_range(const char *field, const struct value *v)
{
	if (v->quoted || v->dotdot < 0)
		return NULL;
	const char *s = v->lit.buf;
	size_t a = (size_t)v->dotdot, b = v->lit.len - a - 2;
	if ((a == 0 && b == 0) || !range_side_ok(field, s, a) ||
	    !range_side_ok(field, s + a + 2, b))
		return NULL;
	struct coll_node *lo = NULL, *hi = NULL;
	if (a) {
		char *t = xstrndup(s, a);
		lo = filter_new(COLL_GREATEREQ, field, t);
		free(t);
	}
	if (b)
		hi = filter_new(COLL_SMALLEREQ, field, s + a + 2);
	if (lo && hi) {
		struct coll_node *items[2] = {lo, hi};
		return combine(COLL_INTERSECTION, items, 2);
	}
	return lo ? lo : hi;
}

/* `field:B..A` with B above A (`year:1999..1990`): every item fails one of
 * the two tests, so it is an error rather than a silent empty result. */
static bool range_reversed(const char *field, const struct value *v)
{
	if (v->quoted || v->dotdot <= 0 || (size_t)v->dotdot + 2 >= v->lit.len)
		return false;
	char *left = xstrndup(v->lit.buf, (size_t)v->dotdot);
	bool r = coll_value_range_reversed(field, left, v->lit.buf + v->dotdot + 2);
	free(left);
	return r;
}

/* in:Ro while "Rock 90s" is saved (or in:Play, on its way to
 * in:Playlists/), at the end of the query and not closed by a quote: the
 * name is still being typed. */
static bool name_being_typed(const struct parser *p, const struct value *v, const char *ns,
			     const char *name)
{
	if (p->pos < p->len || (v->quoted && v->closed) || !p->opts->exists_prefix)
		return false;
	size_t nl = strlen(name);
	if (v->slash < 0 && (strncmp("Playlists", name, nl) == 0 ||
			     strncmp("Collections", name, nl) == 0))
		return true;
	return p->opts->exists_prefix(p->opts->exists_ud, ns, name);
}

static struct coll_node *parse_reference(struct parser *p, const struct value *v)
{
	char sn[64], sn2[64];
	const char *lit = v->lit.buf;
	char *ns, *name;
	if (v->slash >= 0) {
		ns = xstrndup(lit, (size_t)v->slash);
		name = xstrdup(lit + v->slash + 1);
	} else {
		ns = xstrdup("Collections");
		name = xstrdup(lit);
	}
	struct coll_node *n = NULL;
	if (strcmp(ns, "Collections") != 0 && strcmp(ns, "Playlists") != 0) {
		fail_at(p, CRATE_ERR_PARSE, v->start,
			"unknown namespace '%s' (Collections or Playlists)",
			snippet(ns, strlen(ns), sn, sizeof sn));
	} else if (!*name) {
		fail_at(p, end_code(p), v->end, "expected a collection name after '%s/'", ns);
	} else if (strcmp(ns, "Collections") == 0 && strcmp(name, "All Media") == 0) {
		n = coll_node_new(COLL_UNIVERSE);
	} else if (p->opts->exists && !p->opts->exists(p->opts->exists_ud, ns, name)) {
		fail_at(p, name_being_typed(p, v, ns, name) ? CRATE_ERR_INCOMPLETE : CRATE_ERR_PARSE,
			v->start, "no collection '%s' in %s",
			snippet(name, strlen(name), sn2, sizeof sn2), ns);
	} else {
		n = coll_node_new(COLL_REFERENCE);
		coll_attr_set(n, "namespace", ns);
		coll_attr_set(n, "reference", name);
	}
	free(ns);
	free(name);
	return n;
}

enum op { OP_NONE, OP_EQ, OP_TILDE, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

static enum op read_op(const char *s, size_t len, size_t *oplen)
{
	*oplen = 1;
	if (len == 0)
		return OP_NONE;
	switch (s[0]) {
	case ':':
		return OP_EQ;
	case '~':
		return OP_TILDE;
	case '!':
		*oplen = 2;
		return len > 1 && s[1] == '=' ? OP_NE : OP_NONE;
	case '<':
	case '>':
		if (len > 1 && s[1] == '=') {
			*oplen = 2;
			return s[0] == '<' ? OP_LE : OP_GE;
		}
		return s[0] == '<' ? OP_LT : OP_GT;
	default:
		return OP_NONE;
	}
}

/* <, <=, >, >=, != may have spaces around them (`year > 2000`): none of
 * them can start a term, so the spaced form has no other meaning. ':' and
 * '~' cannot: `a :x` is the word "a" and the term ":x". */
static bool op_allows_spaces(enum op op)
{
	return op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE;
}

static size_t skip_spaces_from(const struct parser *p, size_t i)
{
	while (i < p->len && coll_lex_is_space(p->q[i]))
		i++;
	return i;
}

/* `field OP value` with the operator at opat, or `:value` / `~value` when
 * nlen is 0. */
static struct coll_node *parse_field_term(struct parser *p, size_t start, size_t nlen,
					  size_t opat, enum op op, size_t oplen)
{
	char sn[64];
	const char *q = p->q;
	/* The operator as typed, for messages: 'artist:' or '<='. */
#define SHOWN snippet(q + start, nlen, sn, sizeof sn), (int)oplen, q + opat
	p->pos = opat + oplen;
	if (op_allows_spaces(op))
		p->pos = skip_spaces_from(p, p->pos);
	if (is_sep(p, p->pos)) {
		size_t next = skip_spaces_from(p, p->pos);
		if (next > p->pos && next < p->len && q[next] != ')')
			return fail_at(p, CRATE_ERR_PARSE, p->pos,
				       "expected a value after '%s%.*s' (no space after '%.*s')",
				       SHOWN, (int)oplen, q + opat);
		return fail_at(p, end_code(p), p->pos, "expected a value after '%s%.*s'", SHOWN);
	}
	struct value v;
	value_init(p, &v);
	struct coll_node *n = NULL;
	char *field = nlen ? coll_lex_field_dup(q + start, nlen) : NULL;
	if (scan_value(p, &v, true) != 0)
		goto out;
	if (v.lit.len == 0) {
		fail_at(p, v.quoted && !v.closed ? CRATE_ERR_INCOMPLETE : CRATE_ERR_PARSE,
			v.start, "expected a value after '%s%.*s'", SHOWN);
		goto out;
	}
	if (!field) { /* :value, ~value on artist, album, title */
		if (op == OP_EQ) {
			n = three_fields(v.nwild ? COLL_MATCH : COLL_EQUALS,
					 v.nwild ? v.pat.buf : v.lit.buf);
		} else {
			char *pat = contains_pattern(&v);
			n = three_fields(COLL_MATCH, pat);
			free(pat);
		}
		goto out;
	}
	switch (op) {
	case OP_EQ:
		if (strcmp(field, "in") == 0)
			n = parse_reference(p, &v);
		else if (range_reversed(field, &v))
			fail_at(p, end_code(p), v.start, "reversed range %s",
				snippet(v.lit.buf, v.lit.len, sn, sizeof sn));
		else if ((n = try_range(field, &v)) != NULL)
			;
		else if (v.nwild)
			n = filter_new(COLL_MATCH, field, v.pat.buf);
		else
			n = filter_new(COLL_EQUALS, field, v.lit.buf);
		break;
	case OP_TILDE: {
		char *pat = contains_pattern(&v);
		n = filter_new(COLL_MATCH, field, pat);
		free(pat);
		break;
	}
	case OP_NE:
		n = filter_new(COLL_NOTEQUAL, field, v.lit.buf);
		break;
	default: {
		if (!v.quoted && !comparable_value(field, v.lit.buf)) {
			char opname[3] = {q[opat], oplen > 1 ? q[opat + 1] : 0, 0};
			fail_at(p, CRATE_ERR_PARSE, v.start,
				"'%s' needs a number, date, age or quoted string", opname);
			goto out;
		}
		static const enum coll_type types[] = {
			[OP_LT] = COLL_SMALLER, [OP_LE] = COLL_SMALLEREQ,
			[OP_GT] = COLL_GREATER, [OP_GE] = COLL_GREATEREQ,
		};
		n = filter_new(types[op], field, v.lit.buf);
		break;
	}
	}
out:
	if (n)
		set_span(n, start, v.end);
	free(field);
	value_done(p, &v);
	return n;
#undef SHOWN
}

static struct coll_node *parse_has(struct parser *p)
{
	size_t start = p->pos++;
	size_t nlen = coll_lex_field_len(p->q + p->pos, p->len - p->pos);
	if (nlen == 0) {
		/* `+ genre`, `+"genre"`: say what was probably meant */
		size_t i = skip_spaces_from(p, p->pos);
		bool quoted = i == p->pos && i < p->len && (p->q[i] == '"' || p->q[i] == '\'');
		size_t name = quoted ? i + 1 : i;
		size_t fl = coll_lex_field_len(p->q + name, p->len - name);
		size_t after = name + fl;
		if (quoted && after < p->len && p->q[after] == p->q[i])
			after++;
		else if (quoted)
			fl = 0;
		char sn[64];
		if (fl > 0 && (quoted || i > p->pos) && is_sep(p, after))
			return fail_at(p, CRATE_ERR_PARSE, p->pos,
				       "expected a field name after '+': did you mean '+%s'?",
				       snippet(p->q + name, fl, sn, sizeof sn));
		return fail_at(p, end_code(p), p->pos, "expected a field name after '+'");
	}
	p->pos += nlen;
	if (!is_sep(p, p->pos)) {
		char sn[64];
		return fail_at(p, CRATE_ERR_PARSE, p->pos, "unexpected '%s' after the field name",
			       snippet(p->q + p->pos, 1, sn, sizeof sn));
	}
	char *field = coll_lex_field_dup(p->q + start + 1, nlen);
	struct coll_node *n = filter_new(COLL_HAS, field, NULL);
	free(field);
	return set_span(n, start, p->pos);
}

/* The end of the term that starts at i, for suggestions: the next
 * separator outside quotes. */
static size_t term_end(const struct parser *p, size_t i)
{
	char quote = 0;
	while (i < p->len && (quote || !is_sep(p, i))) {
		char c = p->q[i];
		if (c == '\\')
			i++;
		else if (quote && c == quote)
			quote = 0;
		else if (!quote && (c == '"' || c == '\''))
			quote = c;
		i++;
	}
	return i < p->len ? i : p->len;
}

/* `"a":b`, `'artist'~x`: a quoted word directly followed by an operator.
 * Fails with what was probably meant and returns true; false when the
 * quote at start is something else. */
static bool quoted_field_name(struct parser *p, size_t start)
{
	const char *q = p->q;
	size_t i = start + 1;
	while (i < p->len && q[i] != q[start])
		i += q[i] == '\\' ? 2 : 1;
	size_t oplen;
	if (i >= p->len || read_op(q + i + 1, p->len - i - 1, &oplen) == OP_NONE)
		return false;
	size_t name = start + 1, nlen = i - name;
	char sn[64], sn2[64];
	if (nlen > 0 && coll_lex_field_len(q + name, nlen) == nlen)
		fail_at(p, CRATE_ERR_PARSE, start,
			"field names are written without quotes: did you mean '%s%s'?",
			snippet(q + name, nlen, sn, sizeof sn),
			snippet(q + i + 1, term_end(p, i + 1) - i - 1, sn2, sizeof sn2));
	else
		fail_at(p, CRATE_ERR_PARSE, start,
			"'%s' is not a field name (field names are written without quotes)",
			snippet(q + name, nlen, sn, sizeof sn));
	return true;
}

static struct coll_node *parse_not(struct parser *p);

/* like:SEED, the items nearest to SEED by sound (a similar node): SEED is
 * one term as NOT takes it (#42, a:"Miles Davis", in:Playlists/Road,
 * (group), NOT x), a bare media id (like:42), or a quoted query
 * (like:"in:Playlists/Road"). start is at "like", op_end after ':'. */
static struct coll_node *parse_like(struct parser *p, size_t start, size_t op_end)
{
	const char *q = p->q;
	p->pos = op_end;
	if (is_sep(p, p->pos) && (at_end(p) || q[p->pos] != '('))
		return fail_at(p, end_code(p), p->pos, "expected a track or collection after 'like:'");
	struct coll_node *seed = NULL;
	size_t digits = 0;
	while (op_end + digits < p->len && is_digit(q[op_end + digits]))
		digits++;
	if (digits && is_sep(p, op_end + digits)) {
		uint32_t id;
		if (read_uint(p, &id) != 0)
			return NULL;
		if (id == 0)
			return fail_at(p, CRATE_ERR_PARSE, op_end, "media ids start at 1");
		seed = set_span(id_filter(COLL_EQUALS, "id", id), op_end, p->pos);
	} else if (q[p->pos] == '"' || q[p->pos] == '\'') {
		struct value v;
		value_init(p, &v);
		if (scan_value(p, &v, true) == 0) {
			struct crate_err inner = {0};
			seed = coll_parse(v.lit.buf, v.lit.len, p->opts, &inner);
			if (!seed)
				fail_at(p, inner.code, v.start, "in the query after 'like:': %s",
					inner.msg);
		}
		value_done(p, &v);
	} else {
		if (++p->depth > COLL_PARSE_MAX_DEPTH)
			return fail_at(p, CRATE_ERR_PARSE, start, "nesting deeper than %d levels",
				       COLL_PARSE_MAX_DEPTH);
		seed = parse_not(p);
		p->depth--;
	}
	if (!seed)
		return NULL;
	struct coll_node *n = coll_node_new(COLL_SIMILAR);
	coll_node_add_operand(n, seed);
	coll_node_unref(seed);
	return set_span(n, start, p->pos);
}

static struct coll_node *parse_term(struct parser *p)
{
	const char *q = p->q;
	size_t start = p->pos;
	char c = q[start];
	if (c == '#') {
		p->pos++;
		skip_ws(p);
		struct coll_node *n = parse_ids(p, "id", "#");
		return n ? set_span(n, start, p->pos) : NULL;
	}
	if (c == '+')
		return parse_has(p);
	if (c == ':' || c == '~')
		return parse_field_term(p, start, 0, start, c == ':' ? OP_EQ : OP_TILDE, 1);
	if ((c == '"' || c == '\'') && quoted_field_name(p, start))
		return NULL;
	if (c != '"' && c != '\'') {
		size_t nlen = coll_lex_field_len(q + start, p->len - start);
		size_t oplen, opat = start + nlen;
		enum op op = nlen ? read_op(q + opat, p->len - opat, &oplen) : OP_NONE;
		if (op == OP_NONE && nlen && opat < p->len && coll_lex_is_space(q[opat])) {
			size_t i = skip_spaces_from(p, opat);
			enum op spaced = read_op(q + i, p->len - i, &oplen);
			if (op_allows_spaces(spaced)) {
				op = spaced;
				opat = i;
			}
		}
		/* in any case, as field names are (LIKE: is like:, as IN: is in:) */
		if (op == OP_EQ && nlen == 4 && strncasecmp(q + start, "like", 4) == 0)
			return parse_like(p, start, opat + oplen);
		if (op != OP_NONE)
			return parse_field_term(p, start, nlen, opat, op, oplen);
	}
	struct value v;
	value_init(p, &v);
	struct coll_node *n = NULL;
	if (scan_value(p, &v, true) == 0)
		n = finish_word(p, &v);
	value_done(p, &v);
	return n;
}

/* ---- clauses: ORDER BY, LIMIT ---- */

static int read_count(struct parser *p, const char *after, char *out, size_t outsize)
{
	skip_ws(p);
	if (at_end(p) || !is_digit(p->q[p->pos])) {
		fail_at(p, end_code(p), p->pos, "expected a number after '%s'", after);
		return -1;
	}
	size_t start = p->pos;
	uint64_t v = 0;
	while (!at_end(p) && is_digit(p->q[p->pos])) {
		v = v * 10 + (uint64_t)(p->q[p->pos++] - '0');
		if (v > UINT32_MAX) {
			fail_at(p, CRATE_ERR_PARSE, start, "number too large");
			return -1;
		}
	}
	if (!is_sep(p, p->pos)) {
		fail_at(p, CRATE_ERR_PARSE, start, "expected a number after '%s'", after);
		return -1;
	}
	snprintf(out, outsize, "%llu", (unsigned long long)v);
	return 0;
}

enum key_kind { KEY_FIELD, KEY_RANDOM, KEY_ID };

/* One sort key at pos; appends fields to *fields. */
static int parse_sort_key(struct parser *p, struct strbuf *fields, enum key_kind *kind,
			  bool *desc, char *seed, size_t seedsize, const char *after)
{
	const char *q = p->q;
	size_t ks = p->pos;
	*desc = !at_end(p) && q[p->pos] == '-';
	if (*desc)
		p->pos++;
	size_t nlen = coll_lex_field_len(q + p->pos, p->len - p->pos);
	if (nlen == 0 || coll_lex_keyword(q + p->pos, nlen) != COLL_KW_NONE) {
		fail_at(p, end_code(p), p->pos, "expected a sort key after '%s'", after);
		return -1;
	}
	const char *name = q + p->pos;
	p->pos += nlen;
	*kind = KEY_FIELD;
	seed[0] = '\0';
	/* keywords in any case: field names are lower-cased, so a field
	 * "Random" could not be told from the keyword when printed back */
	if (nlen == 6 && strncasecmp(name, "random", 6) == 0) {
		*kind = KEY_RANDOM;
		if (*desc) {
			fail_at(p, CRATE_ERR_PARSE, ks, "'random' cannot be descending");
			return -1;
		}
		if (!at_end(p) && q[p->pos] == '(') {
			p->pos++;
			size_t ds = p->pos;
			while (!at_end(p) && is_digit(q[p->pos]) && p->pos - ds < 19)
				p->pos++;
			if (p->pos == ds || at_end(p) || q[p->pos] != ')') {
				fail_at(p, end_code(p), p->pos,
					"expected a seed number and ')' after 'random('");
				return -1;
			}
			snprintf(seed, seedsize, "%.*s", (int)(p->pos - ds), q + ds);
			p->pos++;
		}
	} else if (nlen == 2 && strncasecmp(name, "id", 2) == 0) {
		*kind = KEY_ID;
	} else {
		char *f = coll_lex_field_dup(name, nlen);
		if (fields->len)
			strbuf_addc(fields, ',');
		if (*desc)
			strbuf_addc(fields, '-');
		strbuf_adds(fields, f);
		free(f);
	}
	if (!is_sep(p, p->pos) && q[p->pos] != ',') {
		char sn[64];
		fail_at(p, CRATE_ERR_PARSE, p->pos, "unexpected '%s' in ORDER BY",
			snippet(q + p->pos, 1, sn, sizeof sn));
		return -1;
	}
	return 0;
}

static struct coll_node *parse_order(struct parser *p, struct coll_node *body)
{
	size_t kend;
	skip_ws(p);
	if (at_end(p) || peek_kw(p, &kend) != COLL_KW_BY)
		return fail_at(p, end_code(p), p->pos, "expected 'BY' after 'ORDER'");
	p->pos = kend;
	struct strbuf fields;
	strbuf_init(&fields, 32);
	enum key_kind kind = KEY_FIELD, k;
	bool desc_id = false, desc;
	char seed[24] = "", s[24];
	size_t nkeys = 0;
	const char *after = "ORDER BY";
	for (;;) {
		skip_ws(p);
		size_t ks = p->pos;
		if (parse_sort_key(p, &fields, &k, &desc, s, sizeof s, after) != 0)
			goto fail;
		if (nkeys > 0 && (k != KEY_FIELD || kind != KEY_FIELD)) {
			fail_at(p, CRATE_ERR_PARSE, k != KEY_FIELD ? ks : ks,
				"'%s' must be the only sort key",
				(k == KEY_RANDOM || kind == KEY_RANDOM) ? "random" : "id");
			goto fail;
		}
		if (k != KEY_FIELD) {
			kind = k;
			desc_id = desc;
			memcpy(seed, s, sizeof seed);
		}
		nkeys++;
		skip_ws(p);
		if (at_end(p) || p->q[p->pos] != ',')
			break;
		p->pos++;
		after = ",";
	}
	struct coll_node *o = coll_node_new(COLL_ORDER);
	if (kind == KEY_RANDOM) {
		coll_attr_set(o, "type", "random");
		if (seed[0])
			coll_attr_set(o, "seed", seed);
	} else if (kind == KEY_ID) {
		coll_attr_set(o, "type", "id");
		if (desc_id)
			coll_attr_set(o, "direction", "DESC");
	} else {
		coll_attr_set(o, "field", fields.buf);
	}
	strbuf_free(&fields);
	coll_node_add_operand(o, body);
	o->span_start = body->span_start;
	o->span_end = (int)p->pos;
	return o;
fail:
	strbuf_free(&fields);
	return NULL;
}

/* ORDER BY and LIMIT after a query or group body; takes over body. */
static struct coll_node *parse_clauses(struct parser *p, struct coll_node *body)
{
	size_t kend;
	skip_ws(p);
	enum coll_kw kw = at_end(p) ? COLL_KW_NONE : peek_kw(p, &kend);
	if (kw == COLL_KW_ORDER) {
		p->pos = kend;
		struct coll_node *o = parse_order(p, body);
		coll_node_unref(body);
		if (!o)
			return NULL;
		body = o;
		skip_ws(p);
		kw = at_end(p) ? COLL_KW_NONE : peek_kw(p, &kend);
	}
	if (kw == COLL_KW_LIMIT) {
		char length[24], start[24] = "";
		p->pos = kend;
		if (read_count(p, "LIMIT", length, sizeof length) != 0)
			goto fail;
		skip_ws(p);
		if (!at_end(p) && peek_kw(p, &kend) == COLL_KW_OFFSET) {
			p->pos = kend;
			if (read_count(p, "OFFSET", start, sizeof start) != 0)
				goto fail;
		}
		struct coll_node *l = coll_node_new(COLL_LIMIT);
		coll_attr_set(l, "length", length);
		if (start[0])
			coll_attr_set(l, "start", start);
		coll_node_add_operand(l, body);
		l->span_start = body->span_start;
		l->span_end = (int)p->pos;
		coll_node_unref(body);
		body = l;
		skip_ws(p);
		kw = at_end(p) ? COLL_KW_NONE : peek_kw(p, &kend);
		if (kw == COLL_KW_ORDER) {
			fail_at(p, CRATE_ERR_PARSE, p->pos, "'ORDER BY' must come before 'LIMIT'");
			goto fail;
		}
	}
	return body;
fail:
	coll_node_unref(body);
	return NULL;
}

/* ---- expressions ---- */

static struct coll_node *parse_body(struct parser *p, size_t open);

static struct coll_node *parse_primary(struct parser *p)
{
	if (p->q[p->pos] != '(')
		return parse_term(p);
	size_t open = p->pos;
	if (++p->depth > COLL_PARSE_MAX_DEPTH)
		return fail_at(p, CRATE_ERR_PARSE, open, "nesting deeper than %d levels",
			       COLL_PARSE_MAX_DEPTH);
	p->pos++;
	struct coll_node *n = parse_body(p, open);
	p->depth--;
	return n;
}

static struct coll_node *parse_not(struct parser *p)
{
	size_t kend, start = p->pos;
	if (peek_kw(p, &kend) != COLL_KW_NOT)
		return parse_primary(p);
	if (++p->depth > COLL_PARSE_MAX_DEPTH)
		return fail_at(p, CRATE_ERR_PARSE, start, "nesting deeper than %d levels",
			       COLL_PARSE_MAX_DEPTH);
	p->pos = kend;
	skip_ws(p);
	if (!term_start(p))
		return fail_at(p, end_code(p), start, "'NOT' needs a term after it");
	struct coll_node *child = parse_not(p);
	p->depth--;
	if (!child)
		return NULL;
	struct coll_node *n = coll_node_new(COLL_COMPLEMENT);
	coll_node_add_operand(n, child);
	n->span_start = (int)start;
	n->span_end = child->span_end;
	coll_node_unref(child);
	return n;
}

/* Grow an operand array by one. */
static void push(struct coll_node ***items, size_t *n, struct coll_node *x)
{
	*items = xreallocarray(*items, *n + 1, sizeof **items);
	(*items)[(*n)++] = x;
}

static void drop_all(struct coll_node **items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		coll_node_unref(items[i]);
	free(items);
}

static struct coll_node *chain(struct coll_node **items, size_t n, enum coll_type t)
{
	if (n == 1) {
		struct coll_node *one = items[0];
		free(items);
		return one;
	}
	int s = items[0]->span_start, e = items[n - 1]->span_end;
	struct coll_node *c = combine(t, items, n);
	free(items);
	c->span_start = s;
	c->span_end = e;
	return c;
}

static struct coll_node *parse_or(struct parser *p)
{
	struct coll_node **items = NULL;
	size_t n = 0, kend;
	for (;;) {
		struct coll_node *x = parse_not(p);
		if (!x)
			goto fail;
		push(&items, &n, x);
		size_t save = p->pos;
		skip_ws(p);
		if (at_end(p) || peek_kw(p, &kend) != COLL_KW_OR) {
			p->pos = save;
			break;
		}
		size_t orpos = p->pos;
		p->pos = kend;
		skip_ws(p);
		if (!term_start(p)) {
			fail_at(p, end_code(p), orpos, "'OR' needs a term on both sides");
			goto fail;
		}
	}
	return chain(items, n, COLL_UNION);
fail:
	drop_all(items, n);
	return NULL;
}

/* Terms joined by AND or juxtaposition, up to ')', the end or a clause. */
static struct coll_node *parse_seq(struct parser *p)
{
	struct coll_node **items = NULL;
	size_t n = 0, pending_and = NONE, kend;
	for (;;) {
		skip_ws(p);
		if (at_end(p) || p->q[p->pos] == ')')
			break;
		enum coll_kw kw = peek_kw(p, &kend);
		if (kw == COLL_KW_ORDER || kw == COLL_KW_LIMIT)
			break;
		if (kw == COLL_KW_AND) {
			size_t at = pending_and != NONE ? pending_and : p->pos;
			if (n == 0 || pending_and != NONE) {
				fail_at(p, CRATE_ERR_PARSE, at, "'AND' needs a term on both sides");
				goto fail;
			}
			pending_and = p->pos;
			p->pos = kend;
			continue;
		}
		if (kw == COLL_KW_OR) {
			fail_at(p, CRATE_ERR_PARSE, p->pos, "'OR' needs a term on both sides");
			goto fail;
		}
		if (kw == COLL_KW_BY) {
			fail_at(p, CRATE_ERR_PARSE, p->pos, "'BY' must follow 'ORDER'");
			goto fail;
		}
		if (kw == COLL_KW_OFFSET) {
			fail_at(p, CRATE_ERR_PARSE, p->pos, "'OFFSET' must follow 'LIMIT n'");
			goto fail;
		}
		struct coll_node *x = parse_or(p);
		if (!x)
			goto fail;
		push(&items, &n, x);
		pending_and = NONE;
	}
	if (pending_and != NONE) {
		fail_at(p, end_code(p), pending_and, "'AND' needs a term on both sides");
		goto fail;
	}
	if (n == 0) {
		free(items);
		return NULL;
	}
	return chain(items, n, COLL_INTERSECTION);
fail:
	drop_all(items, n);
	return NULL;
}

/* A whole query (open == NONE) or the inside of a group opened at open. */
static struct coll_node *parse_body(struct parser *p, size_t open)
{
	struct coll_node *n = parse_seq(p);
	if (p->failed)
		return NULL;
	if (!n) {
		if (at_end(p) && open != NONE)
			return fail_at(p, CRATE_ERR_INCOMPLETE, open, "unbalanced '('");
		if (at_end(p))
			return fail_at(p, CRATE_ERR_INCOMPLETE, p->pos, "empty query");
		if (p->q[p->pos] == ')')
			return fail_at(p, CRATE_ERR_PARSE, p->pos,
				       open != NONE ? "empty parentheses" : "unbalanced ')'");
		return fail_at(p, CRATE_ERR_PARSE, p->pos, "'%s' needs a query before it",
			       p->q[p->pos] == 'O' ? "ORDER BY" : "LIMIT");
	}
	n = parse_clauses(p, n);
	if (!n)
		return NULL;
	skip_ws(p);
	if (open != NONE && at_end(p)) {
		coll_node_unref(n);
		return fail_at(p, CRATE_ERR_INCOMPLETE, open, "unbalanced '('");
	}
	if (at_end(p))
		return n;
	if (p->q[p->pos] == ')') {
		if (open != NONE) {
			p->pos++;
			return n;
		}
		coll_node_unref(n);
		return fail_at(p, CRATE_ERR_PARSE, p->pos, "unbalanced ')'");
	}
	char sn[64];
	size_t end;
	peek_kw(p, &end);
	coll_node_unref(n);
	return fail_at(p, CRATE_ERR_PARSE, p->pos,
		       "unexpected '%s': ORDER BY and LIMIT end a query or group",
		       snippet(p->q + p->pos, end - p->pos, sn, sizeof sn));
}

struct coll_node *coll_parse(const char *q, size_t len, const struct coll_parse_opts *opts,
			     struct crate_err *err)
{
	static const struct coll_parse_opts defaults;
	struct parser p = {.q = q ? q : "", .len = q ? len : 0, .opts = opts ? opts : &defaults,
			   .err = err};
	crate_err_clear(err);
	if (p.len > INT_MAX)
		return fail_at(&p, CRATE_ERR_PARSE, 0, "query too long");
	skip_ws(&p);
	if (at_end(&p))
		return fail_at(&p, CRATE_ERR_INCOMPLETE, 0, "empty query");
	strbuf_init(&p.lit, 64);
	strbuf_init(&p.pat, 64);
	struct coll_node *n = parse_body(&p, NONE);
	strbuf_free(&p.lit);
	strbuf_free(&p.pat);
	/* The tree may be deeper than the parentheses (NOT, AND chains, ORDER
	 * BY add levels): the one rule (node.h) keeps it saveable. */
	if (n && coll_node_depth(n, COLL_MAX_DEPTH) > COLL_MAX_DEPTH) {
		coll_node_unref(n);
		return fail_at(&p, CRATE_ERR_PARSE, 0,
			       "nesting deeper than %d levels (a saved collection could not be "
			       "read back)", COLL_MAX_DEPTH);
	}
	return n;
}
