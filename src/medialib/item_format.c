/* The format-string engine of item_format.h: a small parser to a tree of
 * literal text, properties, conditionals and the %= split, and a renderer
 * that asks a callback for values. */
#include "medialib/item_format.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "base/utf8.h"
#include "medialib/index.h"

#define MAX_WIDTH 999
/* Conditionals inside conditionals: parsing, rendering and freeing recurse
 * once per level, so a format from a config line of any length must not
 * nest without bound (a few levels is all a row needs). */
#define MAX_DEPTH 16

enum node_kind { N_TEXT, N_PROP, N_COND, N_SPLIT };
enum cmp_op { OP_PRESENT, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

struct node;
struct seq {
	struct node *v;
	size_t n, cap;
};

struct node {
	enum node_kind kind;
	char *text;      /* TEXT: the literal; COND: the operand (NULL: a present-test) */
	char **names;    /* PROP: the alternatives; COND: names[0] is tested */
	size_t nnames;
	unsigned width;  /* PROP: cells, 0 = as wide as the value */
	bool right;      /* PROP: right-aligned in its width */
	enum cmp_op op;  /* COND */
	struct seq then, els;
};

struct item_format {
	struct seq top;
	bool has_right;
};

/* ---- freeing ---- */

static void seq_free(struct seq *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct node *nd = &s->v[i];
		free(nd->text);
		for (size_t k = 0; k < nd->nnames; k++)
			free(nd->names[k]);
		free(nd->names);
		seq_free(&nd->then);
		seq_free(&nd->els);
	}
	free(s->v);
}

void item_format_free(struct item_format *f)
{
	if (!f)
		return;
	seq_free(&f->top);
	free(f);
}

static struct node *seq_push(struct seq *s, enum node_kind kind)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	struct node *nd = &s->v[s->n++];
	memset(nd, 0, sizeof *nd);
	nd->kind = kind;
	return nd;
}

/* ---- parsing ---- */

struct parser {
	const char *s;
	size_t i;
	bool split; /* a %= was seen */
	int depth;  /* conditionals open around p->i */
	struct crate_err *err;
};

/* 1-based column in characters of byte offset at. */
static int column(const char *s, size_t at)
{
	int col = 1;
	for (size_t k = 0; k < at && s[k]; k++)
		if (((unsigned char)s[k] & 0xC0) != 0x80)
			col++;
	return col;
}

__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, size_t at,
						      const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	int col = column(p->s, at);
	crate_err_set(p->err, CRATE_ERR_PARSE, "format, column %d: %s", col, msg);
	if (p->err)
		p->err->pos = col;
	return -1;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A property name at p->i (may be empty), owned. */
static char *take_name(struct parser *p)
{
	size_t start = p->i;
	while (is_name_char(p->s[p->i]))
		p->i++;
	return xstrndup(p->s + start, p->i - start);
}

static void flush_text(struct seq *s, struct strbuf *lit)
{
	if (!lit->len)
		return;
	/* Literals come from the user's config: sanitised like values, but a
	 * tab stays one (`--format $'%id%\t%title%'` makes a table for
	 * scripts; the interface sanitises every string again as it draws). */
	seq_push(s, N_TEXT)->text = utf8_sanitize_keep_tabs(lit->buf, lit->len);
	strbuf_reset(lit);
}

static int parse_seq(struct parser *p, struct seq *s, const char *stops, size_t open_at);

/* %name% */
static int parse_plain(struct parser *p, struct seq *s)
{
	size_t at = p->i++;
	char *name = take_name(p);
	if (p->s[p->i] != '%') {
		free(name);
		if (!p->s[p->i])
			return fail(p, at, "%%name%% is not closed with %%");
		return fail(p, p->i, "'%c' in a property name (letters, digits and _ only)",
			    p->s[p->i]);
	}
	p->i++;
	struct node *nd = seq_push(s, N_PROP);
	nd->names = xmalloc(sizeof *nd->names);
	nd->names[0] = name;
	nd->nnames = 1;
	return 0;
}

/* :20, :<20, :>5 after the names of %{...} */
static int parse_width(struct parser *p, struct node *nd)
{
	size_t at = p->i++;
	if (p->s[p->i] == '<' || p->s[p->i] == '>')
		nd->right = p->s[p->i++] == '>';
	unsigned w = 0;
	size_t digits = 0;
	while (isdigit((unsigned char)p->s[p->i]) && w <= MAX_WIDTH) {
		w = w * 10 + (unsigned)(p->s[p->i++] - '0');
		digits++;
	}
	if (!digits || w == 0 || w > MAX_WIDTH)
		return fail(p, at, "a width is 1 to %d cells: :20, :<20 or :>5", MAX_WIDTH);
	nd->width = w;
	return 0;
}

/* %{a|b|c} or %{a|b:>7}, p->i after the '{' */
static int parse_prop(struct parser *p, struct seq *s, size_t at)
{
	struct node *nd = seq_push(s, N_PROP);
	for (;;) {
		size_t name_at = p->i;
		char *name = take_name(p);
		if (!*name) {
			free(name);
			return fail(p, name_at, "a property name is missing");
		}
		nd->names = xreallocarray(nd->names, nd->nnames + 1, sizeof *nd->names);
		nd->names[nd->nnames++] = name;
		if (p->s[p->i] != '|')
			break;
		p->i++;
	}
	if (p->s[p->i] == ':' && parse_width(p, nd) != 0)
		return -1;
	if (!p->s[p->i])
		return fail(p, at, "%%{ is not closed with }");
	if (p->s[p->i] != '}')
		return fail(p, p->i, "'%c' where } should close %%{", p->s[p->i]);
	p->i++;
	return 0;
}

static enum cmp_op take_op(struct parser *p)
{
	static const struct {
		const char *text;
		enum cmp_op op;
	} ops[] = {{"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE}, {"=", OP_EQ}, {"<", OP_LT}, {">", OP_GT}};
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		size_t l = strlen(ops[k].text);
		if (strncmp(p->s + p->i, ops[k].text, l) == 0) {
			p->i += l;
			return ops[k].op;
		}
	}
	return OP_PRESENT;
}

/* %{?name?THEN} or %{?name OP value?THEN:ELSE}, p->i at the first '?' */
static int parse_cond(struct parser *p, struct seq *s, size_t at)
{
	struct node *nd = seq_push(s, N_COND);
	p->i++;
	size_t name_at = p->i;
	char *name = take_name(p);
	nd->names = xmalloc(sizeof *nd->names);
	nd->names[0] = name;
	nd->nnames = 1;
	if (!*name)
		return fail(p, name_at, "a property name is missing after %%{?");
	nd->op = take_op(p);
	if (nd->op != OP_PRESENT) {
		size_t start = p->i;
		while (p->s[p->i] && p->s[p->i] != '?' && p->s[p->i] != '}')
			p->i++;
		nd->text = xstrndup(p->s + start, p->i - start);
	}
	if (!p->s[p->i])
		return fail(p, at, "%%{ is not closed with }");
	if (p->s[p->i] != '?')
		return fail(p, p->i, "'%c' where ? should end the condition", p->s[p->i]);
	p->i++;
	if (++p->depth > MAX_DEPTH)
		return fail(p, at, "conditionals nest at most %d deep", MAX_DEPTH);
	/* The branches fill nd's own seqs: nd stays where it is in s. */
	if (parse_seq(p, &nd->then, ":}", at) != 0)
		return -1;
	if (p->s[p->i] == ':') {
		p->i++;
		if (parse_seq(p, &nd->els, "}", at) != 0)
			return -1;
	}
	p->i++; /* the '}' parse_seq stopped at */
	p->depth--;
	return 0;
}

/* Literals and placeholders up to one of stops (NULL: the end). open_at is
 * where the enclosing %{ began, for "not closed". */
static int parse_seq(struct parser *p, struct seq *s, const char *stops, size_t open_at)
{
	struct strbuf lit;
	strbuf_init(&lit, 32);
	int rc = 0;
	for (;;) {
		char c = p->s[p->i];
		if (!c) {
			if (stops)
				rc = fail(p, open_at, "%%{ is not closed with }");
			break;
		}
		if (stops && strchr(stops, c))
			break;
		if (c != '%') {
			strbuf_addc(&lit, c);
			p->i++;
			continue;
		}
		char d = p->s[p->i + 1];
		if (d == '%' || d == ':' || d == '}') { /* escapes */
			strbuf_addc(&lit, d);
			p->i += 2;
			continue;
		}
		flush_text(s, &lit);
		if (d == '=') {
			if (stops)
				rc = fail(p, p->i, "%%= splits the whole row: not inside %%{...}");
			else if (p->split)
				rc = fail(p, p->i, "a second %%= (a row has one right half)");
			else
				seq_push(s, N_SPLIT);
			p->split = true;
			p->i += 2;
		} else if (d == '{') {
			size_t at = p->i;
			p->i += 2;
			rc = p->s[p->i] == '?' ? parse_cond(p, s, at) : parse_prop(p, s, at);
		} else if (is_name_char(d)) {
			rc = parse_plain(p, s);
		} else {
			rc = fail(p, p->i, "'%%' begins %%name%%, %%{...}, %%= or %%%% (a percent sign)");
		}
		if (rc != 0)
			break;
	}
	if (rc == 0)
		flush_text(s, &lit);
	strbuf_free(&lit);
	return rc;
}

int item_format_parse(const char *text, struct item_format **out, struct crate_err *err)
{
	struct item_format *f = xcalloc(1, sizeof *f);
	struct parser p = {.s = text ? text : "", .err = err};
	if (parse_seq(&p, &f->top, NULL, 0) != 0) {
		item_format_free(f);
		*out = NULL;
		return -1;
	}
	f->has_right = p.split;
	*out = f;
	return 0;
}

bool item_format_check(const char *text, char *why, size_t whysize)
{
	struct item_format *f;
	struct crate_err err = {0};
	if (item_format_parse(text, &f, &err) != 0) {
		const char *msg = strncmp(err.msg, "format, ", 8) == 0 ? err.msg + 8 : err.msg;
		snprintf(why, whysize, "%s", msg);
		return false;
	}
	item_format_free(f);
	return true;
}

bool item_format_has_right(const struct item_format *f)
{
	return f && f->has_right;
}

/* ---- rendering ---- */

const char *item_format_duration(int64_t ms, char *buf, size_t size)
{
	if (ms < 0) {
		snprintf(buf, size, "-:--");
		return buf;
	}
	long long s = (long long)(ms / 1000);
	/* At most 7 cells, so a length never spills into the next column. */
	if (s >= 1000LL * 3600)
		snprintf(buf, size, ">999h");
	else if (s >= 10 * 3600)
		snprintf(buf, size, "%lldh%02lldm", s / 3600, s / 60 % 60);
	else if (s >= 3600)
		snprintf(buf, size, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, size, "%lld:%02lld", s / 60, s % 60);
	return buf;
}

struct render {
	item_format_get get;
	void *ud;
	struct strbuf *out;   /* the half being written */
	struct strbuf *right; /* where %= switches to */
};

static void pad(struct strbuf *b, size_t n)
{
	while (n--)
		strbuf_addc(b, ' ');
}

/* A value as shown: durations as time, sanitised, fitted to the width. */
static void put_value(struct render *r, const struct node *nd, enum item_value kind,
		      const char *value)
{
	char tbuf[32];
	if (kind == ITEM_DURATION)
		value = item_format_duration(strtoll(value, NULL, 10), tbuf, sizeof tbuf);
	char *clean = utf8_sanitize(value, strlen(value));
	size_t len = strlen(clean), w = utf8_width(clean, len);
	if (nd->width && w > nd->width && kind == ITEM_TEXT) /* numbers are never cut */
		len = utf8_prefix_fitting(clean, len, nd->width, &w);
	size_t fill = nd->width > w ? nd->width - w : 0;
	if (nd->right)
		pad(r->out, fill);
	strbuf_add(r->out, clean, len);
	if (!nd->right)
		pad(r->out, fill);
	free(clean);
}

static enum item_value lookup(struct render *r, const char *name, struct strbuf *v)
{
	strbuf_reset(v);
	enum item_value k = r->get(r->ud, name, v);
	if (k == ITEM_ABSENT)
		strbuf_reset(v);
	return k;
}

static bool number_of(const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return end != s && *end == '\0';
}

static bool compare(enum cmp_op op, double a, double b)
{
	switch (op) {
	case OP_EQ: return a == b;
	case OP_NE: return a != b;
	case OP_LT: return a < b;
	case OP_LE: return a <= b;
	case OP_GT: return a > b;
	case OP_GE: return a >= b;
	case OP_PRESENT: break;
	}
	return true;
}

/* An absent property fails every test; durations compare in seconds. */
static bool test(struct render *r, const struct node *nd)
{
	struct strbuf v;
	strbuf_init(&v, 64);
	enum item_value k = lookup(r, nd->names[0], &v);
	bool ok = false;
	double a, b;
	if (k == ITEM_ABSENT || !v.len)
		ok = false;
	else if (nd->op == OP_PRESENT)
		ok = true;
	else if (number_of(v.buf, &a) && number_of(nd->text, &b))
		ok = compare(nd->op, k == ITEM_DURATION ? a / 1000 : a, b);
	else if (nd->op == OP_EQ || nd->op == OP_NE)
		ok = (strcmp(v.buf, nd->text) == 0) == (nd->op == OP_EQ);
	strbuf_free(&v);
	return ok;
}

static void render_seq(struct render *r, const struct seq *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct node *nd = &s->v[i];
		switch (nd->kind) {
		case N_TEXT:
			strbuf_adds(r->out, nd->text);
			break;
		case N_SPLIT:
			r->out = r->right;
			break;
		case N_COND:
			render_seq(r, test(r, nd) ? &nd->then : &nd->els);
			break;
		case N_PROP: {
			struct strbuf v;
			strbuf_init(&v, 64);
			for (size_t k = 0; k < nd->nnames; k++) {
				enum item_value kind = lookup(r, nd->names[k], &v);
				if (kind != ITEM_ABSENT) {
					put_value(r, nd, kind, v.buf);
					break;
				}
			}
			strbuf_free(&v);
			break;
		}
		}
	}
}

void item_format_render(const struct item_format *f, item_format_get get, void *ud,
			struct strbuf *left, struct strbuf *right)
{
	struct render r = {.get = get, .ud = ud, .out = left, .right = right ? right : left};
	render_seq(&r, &f->top);
}

/* ---- values of an index item ---- */

static bool is_duration(const char *name)
{
	return strcmp(name, "duration") == 0;
}

/* Every value of a string property joined by sep; false when none. */
static bool str_values(const struct mlib_index *idx, int prop, uint32_t id, const char *sep,
		       struct strbuf *out)
{
	const uint32_t *vids;
	size_t n = mlib_index_str_values(idx, prop, id, &vids);
	for (size_t k = 0; k < n; k++) {
		if (k)
			strbuf_adds(out, sep);
		strbuf_adds(out, mlib_index_dict_text(idx, prop, vids[k]));
	}
	return n > 0;
}

/* A track without a title tag is shown by its file name. */
static enum item_value file_name(const struct item_format_item *it, struct strbuf *out)
{
	int prop = mlib_index_prop(it->idx, "url");
	struct strbuf url;
	strbuf_init(&url, 128);
	bool have = prop >= 0 && mlib_index_prop_kind(it->idx, prop) == MLIB_PROP_STRING &&
		    str_values(it->idx, prop, it->id, "", &url);
	if (have) {
		size_t len;
		const char *name = str_path_name(url.buf, &len);
		strbuf_add(out, name, len);
	}
	strbuf_free(&url);
	return have ? ITEM_TEXT : ITEM_ABSENT;
}

static enum item_value stars(const struct item_format_item *it, struct strbuf *out)
{
	int prop = mlib_index_prop(it->idx, "rating");
	int64_t v;
	if (prop < 0 || mlib_index_prop_kind(it->idx, prop) != MLIB_PROP_INT ||
	    !mlib_index_int_value(it->idx, prop, it->id, &v) || v < 1 || v > 5)
		return ITEM_ABSENT;
	for (int64_t k = 0; k < v; k++)
		strbuf_adds(out, "\xe2\x98\x85"); /* ★ */
	return ITEM_TEXT;
}

enum item_value item_format_index_get(void *ud, const char *name, struct strbuf *out)
{
	const struct item_format_item *it = ud;
	if (!mlib_index_has_media(it->idx, it->id))
		return ITEM_ABSENT;
	if (strcmp(name, "id") == 0) {
		strbuf_addf(out, "%" PRIu32, it->id);
		return ITEM_NUMBER;
	}
	if (strcmp(name, "stars") == 0)
		return stars(it, out);
	if (strcmp(name, "duration_ms") == 0) /* the number behind %duration% */
		return item_format_index_get(ud, "duration", out) == ITEM_ABSENT ? ITEM_ABSENT
										: ITEM_NUMBER;
	int prop = mlib_index_prop(it->idx, name);
	bool title = strcmp(name, "title") == 0;
	if (prop < 0)
		return title ? file_name(it, out) : ITEM_ABSENT;
	if (mlib_index_prop_kind(it->idx, prop) == MLIB_PROP_INT) {
		int64_t v;
		if (!mlib_index_int_value(it->idx, prop, it->id, &v))
			return ITEM_ABSENT;
		strbuf_addf(out, "%" PRId64, v);
		return is_duration(name) ? ITEM_DURATION : ITEM_NUMBER;
	}
	if (str_values(it->idx, prop, it->id, it->sep ? it->sep : MLIB_VALUE_SEPARATOR, out))
		return ITEM_TEXT;
	return title ? file_name(it, out) : ITEM_ABSENT;
}
