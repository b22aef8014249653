/* Filters (spec/collections.md, "Comparison"): equals, notequal, match,
 * token, the four orderings and has, on a string column (test each
 * distinct value once), an integer column, the media id or a position. */
#include "coll/eval_filter.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/crew.h"
#include "base/str.h"
#include "base/utf8.h"
#include "coll/eval_cache.h"
#include "coll/rank.h"
#include "coll/rank_fill.h"
#include "coll/rank_letters.h"
#include "coll/span.h"
#include "coll/value.h"
#include "coll/words.h"
#include "medialib/index.h"

enum subject {
	SUBJ_NONE, /* no item has the property: nothing matches */
	SUBJ_ID,
	SUBJ_POS,
	SUBJ_STR,
	SUBJ_INT,
};

enum time_mode {
	TIME_NONE,
	TIME_AGE,    /* t_lo: the moment `now - age` */
	TIME_PERIOD, /* [t_lo, t_hi): a day, month or year in local time */
};

#define GLOB_STAR (-1)
#define GLOB_ONE (-2)

/* A whole word of a token filter's value: [off, off+len) of f->val. */
struct word {
	size_t off, len;
};

struct coll_filter {
	enum coll_type op;
	enum subject subj;
	const struct mlib_index *idx;
	int prop;
	bool binary;          /* collation=BINARY: exact bytes, no folding */
	char *val;            /* the value, folded unless binary; owned */
	size_t vlen;
	bool val_num;
	double num;
	enum time_mode time;
	int64_t t_lo, t_hi;
	bool int_text;        /* integer subjects need their decimal text */
	int16_t *glob;        /* match: compiled pattern; owned */
	size_t nglob;
	struct word *words;   /* token: the value's words; owned */
	size_t nwords;
	bool prefix_last;     /* token: value ended in '*' */
	const char *needle;   /* longest literal every match contains (points into val or a copy) */
	char *needle_buf;     /* owned copy when the needle is not contiguous in val */
	size_t nneedle;
	bool contains_only;   /* match pattern is exactly *needle* */
	bool prefix_only;     /* match pattern is exactly needle* */
	bool exact_only;      /* match pattern has no wildcard at all */
	/* Integer subjects compared numerically: passes iff ilo <= v <= ihi
	 * (for notequal: the equals range, negated per item). */
	bool int_range;
	int64_t ilo, ihi;
	/* The dictionary's folded texts (STR subjects). */
	const char *fbase;
	const uint32_t *foffs;
	uint32_t ndict;
	struct bitset vbits;  /* matching value ids, once built */
	bool vbits_ready;
	struct coll_eval_cache *cache; /* set when the matches may be kept (string subjects) */
	char *raw;            /* the value as given (cache key); owned */
};

/* ---- words ---- */

static size_t split_words(const char *s, size_t len, struct word **out)
{
	size_t n = 0, cap = 0, pos = 0, start, wlen;
	*out = NULL;
	while (coll_word_next(s, len, &pos, &start, &wlen)) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4;
			*out = xreallocarray(*out, cap, sizeof **out);
		}
		(*out)[n].off = start;
		(*out)[n++].len = wlen;
	}
	return n;
}

static bool token_run(const char *val, const struct word *w, size_t nw, bool prefix_last,
		      const char *s, size_t len)
{
	if (nw == 0)
		return false;
	size_t pos = 0, start, wlen;
	while (coll_word_next(s, len, &pos, &start, &wlen)) {
		/* Try the value's words from this subject word on. */
		size_t p2 = pos, k = 0, st = start, wl = wlen;
		for (;;) {
			bool last = k + 1 == nw;
			bool ok = last && prefix_last
					  ? wl >= w[k].len && memcmp(s + st, val + w[k].off, w[k].len) == 0
					  : wl == w[k].len && memcmp(s + st, val + w[k].off, wl) == 0;
			if (!ok)
				break;
			if (last)
				return true;
			k++;
			if (!coll_word_next(s, len, &p2, &st, &wl))
				return false; /* the subject ran out: no later start can do better */
		}
	}
	return false;
}

static bool value_prefix_star(const char *v, size_t len)
{
	/* A trailing unescaped '*' asks for a word prefix. */
	if (len == 0 || v[len - 1] != '*')
		return false;
	size_t bs = 0;
	while (bs + 1 < len && v[len - 2 - bs] == '\\')
		bs++;
	return bs % 2 == 0;
}

bool coll_token_match(const char *value, const char *text, size_t len)
{
	size_t vlen = strlen(value);
	struct word *w;
	size_t nw = split_words(value, vlen, &w);
	bool r = token_run(value, w, nw, value_prefix_star(value, vlen), text, len);
	free(w);
	return r;
}

/* ---- glob ---- */

static size_t glob_compile(const char *p, size_t len, int16_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = p[i];
		if (c == '*') {
			if (n == 0 || out[n - 1] != GLOB_STAR)
				out[n++] = GLOB_STAR;
		} else if (c == '?') {
			out[n++] = GLOB_ONE;
		} else if (c == '\\' && i + 1 < len) {
			out[n++] = (unsigned char)p[++i]; /* continuation bytes follow as literals */
		} else {
			out[n++] = (unsigned char)c;
		}
	}
	return n;
}

static size_t cp_len(const char *s, size_t len, size_t i)
{
	uint32_t cp;
	return utf8_decode(s + i, len - i, &cp);
}

/* Iterative matcher: on a mismatch, the last '*' absorbs one more code point. */
static bool glob_run(const int16_t *t, size_t nt, const char *s, size_t n)
{
	size_t p = 0, i = 0, star_p = SIZE_MAX, star_i = 0;
	while (i < n) {
		if (p < nt && t[p] == GLOB_STAR) {
			star_p = ++p;
			star_i = i;
			continue;
		}
		if (p < nt && t[p] == GLOB_ONE) {
			p++;
			i += cp_len(s, n, i);
			continue;
		}
		if (p < nt && t[p] == (unsigned char)s[i]) {
			p++;
			i++;
			continue;
		}
		if (star_p == SIZE_MAX)
			return false;
		p = star_p;
		star_i += cp_len(s, n, star_i);
		i = star_i;
	}
	while (p < nt && t[p] == GLOB_STAR)
		p++;
	return p == nt;
}

bool coll_glob_match(const char *pattern, const char *text, size_t len)
{
	size_t plen = strlen(pattern);
	int16_t *t = xmalloc((plen + 1) * sizeof *t);
	size_t nt = glob_compile(pattern, plen, t);
	bool r = glob_run(t, nt, text, len);
	free(t);
	return r;
}

/* The longest literal run of the compiled pattern, as bytes. */
static void glob_needle(struct coll_filter *f)
{
	size_t best = 0, best_len = 0;
	for (size_t i = 0; i < f->nglob;) {
		if (f->glob[i] < 0) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < f->nglob && f->glob[j] >= 0)
			j++;
		if (j - i > best_len) {
			best = i;
			best_len = j - i;
		}
		i = j;
	}
	f->needle_buf = xmalloc(best_len + 1);
	for (size_t k = 0; k < best_len; k++)
		f->needle_buf[k] = (char)f->glob[best + k];
	f->needle_buf[best_len] = '\0';
	f->needle = f->needle_buf;
	f->nneedle = best_len;
	f->contains_only = best_len > 0 && f->nglob == best_len + 2 && f->glob[0] == GLOB_STAR &&
			   f->glob[f->nglob - 1] == GLOB_STAR;
	f->prefix_only = best == 0 && f->nglob == best_len + 1 && f->glob[f->nglob - 1] == GLOB_STAR;
	f->exact_only = f->nglob == best_len;
}

/* ---- comparing one value ---- */

static bool cmp_holds(enum coll_type op, int c)
{
	switch (op) {
	case COLL_SMALLER: return c < 0;
	case COLL_SMALLEREQ: return c <= 0;
	case COLL_GREATER: return c > 0;
	case COLL_GREATEREQ: return c >= 0;
	default: return false;
	}
}

/* m is a moment (Unix seconds). */
static bool time_test(const struct coll_filter *f, double m)
{
	double lo = (double)f->t_lo, hi = (double)f->t_hi;
	if (f->time == TIME_AGE) {
		/* added<7d: added less than 7 days ago, i.e. after now-7d. */
		switch (f->op) {
		case COLL_SMALLER: return m > lo;
		case COLL_SMALLEREQ: return m >= lo;
		case COLL_GREATER: return m < lo;
		case COLL_GREATEREQ: return m <= lo;
		default: return false;
		}
	}
	switch (f->op) {
	case COLL_EQUALS:
	case COLL_NOTEQUAL: return m >= lo && m < hi; /* notequal negates later */
	case COLL_SMALLER: return m < lo;
	case COLL_SMALLEREQ: return m < hi;
	case COLL_GREATER: return m >= hi;
	case COLL_GREATEREQ: return m >= lo;
	default: return false;
	}
}

/* The filter's verdict on one value (text: folded unless binary; NUL-
 * terminated). For notequal this is "equals": the caller negates per item. */
static bool test_text(const struct coll_filter *f, const char *t, size_t len, bool has_num,
		      double num)
{
	if (f->time != TIME_NONE && has_num)
		return time_test(f, num);
	switch (f->op) {
	case COLL_HAS:
		return true;
	case COLL_EQUALS:
	case COLL_NOTEQUAL:
		if (!f->binary && has_num && f->val_num)
			return num == f->num;
		return len == f->vlen && memcmp(t, f->val, len) == 0;
	case COLL_MATCH:
		/* The common shapes without the general matcher (set by glob_needle). */
		if (f->contains_only)
			return len >= f->nneedle && str_find_short(t, len, f->needle, f->nneedle) != NULL;
		if (f->prefix_only)
			return len >= f->nneedle && memcmp(t, f->needle, f->nneedle) == 0;
		if (f->exact_only)
			return len == f->nneedle && memcmp(t, f->needle, len) == 0;
		return glob_run(f->glob, f->nglob, t, len);
	case COLL_TOKEN:
		return token_run(f->val, f->words, f->nwords, f->prefix_last, t, len);
	default: {
		int c;
		if (has_num && f->val_num)
			c = num < f->num ? -1 : num > f->num ? 1 : 0;
		else
			c = str_natcmp(t, f->val);
		return cmp_holds(f->op, c);
	}
	}
}

static bool test_int(const struct coll_filter *f, int64_t v)
{
	if (f->int_range)
		return (uint64_t)v - (uint64_t)f->ilo <= (uint64_t)f->ihi - (uint64_t)f->ilo;
	char buf[32];
	size_t len = 0;
	if (f->int_text)
		len = (size_t)snprintf(buf, sizeof buf, "%" PRId64, v);
	else
		buf[0] = '\0';
	return test_text(f, buf, len, true, (double)v);
}

static bool test_vid_direct(const struct coll_filter *f, uint32_t vid)
{
	double num;
	bool has_num = mlib_index_dict_number(f->idx, f->prop, vid, &num);
	if (f->binary) {
		const char *t = mlib_index_dict_text(f->idx, f->prop, vid);
		return test_text(f, t, strlen(t), has_num, num);
	}
	return test_text(f, f->fbase + f->foffs[vid], f->foffs[vid + 1] - f->foffs[vid] - 1, has_num,
			 num);
}

static bool test_vid(const struct coll_filter *f, uint32_t vid)
{
	if (f->vbits_ready)
		return bitset_test(&f->vbits, vid);
	return test_vid_direct(f, vid);
}

/* ---- compiling ---- */

static bool is_compare(enum coll_type t)
{
	return t == COLL_SMALLER || t == COLL_SMALLEREQ || t == COLL_GREATER || t == COLL_GREATEREQ;
}

/* a + b, saturating at the int64 limits (huge numbers in a query must
 * not wrap around and match everything). */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

static void compile_time(struct coll_filter *f, const char *field, const char *value, int64_t now)
{
	if (!coll_value_is_time_field(field))
		return;
	struct coll_value cv;
	coll_value_read(value, &cv);
	bool eq = f->op == COLL_EQUALS || f->op == COLL_NOTEQUAL;
	if (cv.kind == COLL_VALUE_AGE && is_compare(f->op)) {
		f->time = TIME_AGE;
		f->t_lo = sat_add(now, cv.seconds == INT64_MIN ? INT64_MAX : -cv.seconds);
	} else if (cv.kind == COLL_VALUE_DATE && (eq || is_compare(f->op))) {
		f->time = TIME_PERIOD;
		f->t_lo = cv.seconds;
		f->t_hi = cv.seconds_end;
	} else if (cv.kind == COLL_VALUE_NUMBER && (eq || is_compare(f->op)) &&
		   coll_value_year_period(cv.number, &f->t_lo, &f->t_hi)) {
		f->time = TIME_PERIOD;
	}
}

/* 2^63 exactly: the first double past INT64_MAX. */
#define TWO63 9223372036854775808.0

static int64_t clamp_i64(double d)
{
	if (d <= -TWO63)
		return INT64_MIN + 1; /* INT64_MIN marks a missing value */
	if (d >= TWO63)
		return INT64_MAX;
	return (int64_t)d;
}

/* Numeric filters on integers become one range check. */
static void compile_int_range(struct coll_filter *f)
{
	int64_t lo = INT64_MIN + 1, hi = INT64_MAX;
	bool eq = f->op == COLL_EQUALS || f->op == COLL_NOTEQUAL;
	if (f->time == TIME_AGE) {
		switch (f->op) {
		case COLL_SMALLER: lo = sat_add(f->t_lo, 1); break;
		case COLL_SMALLEREQ: lo = f->t_lo; break;
		case COLL_GREATER: hi = sat_add(f->t_lo, -1); break;
		case COLL_GREATEREQ: hi = f->t_lo; break;
		default: return;
		}
	} else if (f->time == TIME_PERIOD) {
		switch (f->op) {
		case COLL_EQUALS:
		case COLL_NOTEQUAL: lo = f->t_lo; hi = sat_add(f->t_hi, -1); break;
		case COLL_SMALLER: hi = sat_add(f->t_lo, -1); break;
		case COLL_SMALLEREQ: hi = sat_add(f->t_hi, -1); break;
		case COLL_GREATER: lo = f->t_hi; break;
		case COLL_GREATEREQ: lo = f->t_lo; break;
		default: return;
		}
	} else if (f->op == COLL_HAS) {
		/* every value */
	} else if (f->val_num && !(eq && f->binary) && (eq || is_compare(f->op))) {
		double c = ceil(f->num), fl = floor(f->num);
		switch (f->op) {
		case COLL_EQUALS:
		case COLL_NOTEQUAL: lo = clamp_i64(c); hi = clamp_i64(fl); break;
		/* clamp_i64 never gives INT64_MIN: minus one cannot wrap */
		case COLL_SMALLER: hi = clamp_i64(c) - 1; break;
		case COLL_SMALLEREQ: hi = clamp_i64(fl); break;
		/* Past the int64 range nothing is greater: the old saturated
		 * bound + 1 wrapped around and matched everything. Below 2^63
		 * the largest double is 2^63 - 1024, so + 1 cannot wrap. */
		case COLL_GREATER:
			if (fl >= TWO63) {
				lo = 1;
				hi = 0;
			} else {
				lo = clamp_i64(fl) + 1;
			}
			break;
		case COLL_GREATEREQ: lo = clamp_i64(c); break;
		default: return;
		}
		if ((f->op == COLL_GREATEREQ && c >= TWO63) || (f->op == COLL_SMALLEREQ && fl <= -TWO63))
			lo = 1, hi = 0;
		if (lo > hi) { /* nothing passes: an empty range */
			lo = 1;
			hi = 0;
		}
	} else {
		return;
	}
	if (lo > hi) {
		lo = 1;
		hi = 0;
	}
	f->int_range = true;
	f->ilo = lo < INT64_MIN + 1 ? INT64_MIN + 1 : lo;
	f->ihi = hi;
}

struct coll_filter *coll_filter_compile(const struct mlib_index *idx, const struct coll_node *n,
					int64_t now, struct crate_err *err)
{
	const char *tname = coll_type_name(n->type);
	const char *type = coll_attr_get(n, "type");
	const char *field = coll_attr_get(n, "field");
	const char *value = coll_attr_get(n, "value");
	const char *coll = coll_attr_get(n, "collation");
	enum subject subj = SUBJ_STR;
	if (type && strcmp(type, "id") == 0)
		subj = SUBJ_ID;
	else if (type && strcmp(type, "position") == 0)
		subj = SUBJ_POS;
	else if (type && strcmp(type, "value") != 0) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s: unknown type '%s' (id, position or value)",
			      tname, type);
		return NULL;
	}
	if (subj == SUBJ_STR && (!field || !*field)) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s: attribute 'field' is missing", tname);
		return NULL;
	}
	if (n->type != COLL_HAS && !value) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s on '%s': attribute 'value' is missing", tname,
			      field ? field : type);
		return NULL;
	}
	if (coll && strcasecmp(coll, "BINARY") != 0 && strcasecmp(coll, "NOCASE") != 0) {
		crate_err_set(err, CRATE_ERR_INVALID, "%s: unknown collation '%s' (BINARY or NOCASE)",
			      tname, coll);
		return NULL;
	}

	struct coll_filter *f = xcalloc(1, sizeof *f);
	f->op = n->type;
	f->idx = idx;
	f->prop = -1;
	f->binary = coll && strcasecmp(coll, "BINARY") == 0;
	if (subj == SUBJ_STR) {
		f->prop = mlib_index_prop(idx, field);
		if (f->prop < 0)
			subj = SUBJ_NONE;
		else if (mlib_index_prop_kind(idx, f->prop) == MLIB_PROP_INT)
			subj = SUBJ_INT;
		else
			mlib_index_dict_fold_span(idx, f->prop, &f->fbase, &f->foffs, &f->ndict);
	}
	f->subj = subj;
	if (!value)
		value = "";
	size_t rawlen = strlen(value);
	f->raw = xstrdup(value);
	f->val = f->binary ? xstrdup(value) : utf8_fold(value, rawlen, NULL);
	f->vlen = strlen(f->val);
	f->val_num = str_parse_number(value, rawlen, &f->num);
	if (!f->val_num && field && coll_value_is_length_field(field))
		f->val_num = coll_value_length_ms(value, &f->num); /* duration<3:30 */
	if (subj == SUBJ_STR || subj == SUBJ_INT)
		compile_time(f, field, value, now);

	if (f->op == COLL_MATCH) {
		f->glob = xmalloc((f->vlen + 1) * sizeof *f->glob);
		f->nglob = glob_compile(f->val, f->vlen, f->glob);
		glob_needle(f);
	} else if (f->op == COLL_TOKEN) {
		f->prefix_last = value_prefix_star(f->val, f->vlen);
		f->nwords = split_words(f->val, f->vlen, &f->words);
		for (size_t i = 0; i < f->nwords; i++)
			if (f->words[i].len > f->nneedle) {
				f->needle = f->val + f->words[i].off;
				f->nneedle = f->words[i].len;
			}
	}
	compile_int_range(f);
	bool eq = f->op == COLL_EQUALS || f->op == COLL_NOTEQUAL;
	f->int_text = f->time == TIME_NONE &&
		      (f->op == COLL_MATCH || f->op == COLL_TOKEN || (eq && (!f->val_num || f->binary)) ||
		       (is_compare(f->op) && !f->val_num));
	return f;
}

void coll_filter_free(struct coll_filter *f)
{
	if (!f)
		return;
	free(f->val);
	free(f->raw);
	free(f->glob);
	free(f->words);
	free(f->needle_buf);
	bitset_free(&f->vbits);
	free(f);
}

/* ---- testing items ---- */

bool coll_filter_on_position(const struct coll_filter *f)
{
	return f->subj == SUBJ_POS;
}

bool coll_filter_test_position(const struct coll_filter *f, uint64_t pos)
{
	bool r = test_int(f, (int64_t)pos);
	return f->op == COLL_NOTEQUAL ? !r : r;
}

bool coll_filter_test_item(const struct coll_filter *f, uint32_t id)
{
	switch (f->subj) {
	case SUBJ_NONE:
	case SUBJ_POS:
		return false;
	case SUBJ_ID: {
		if (!mlib_index_has_media(f->idx, id))
			return false;
		bool r = test_int(f, id);
		return f->op == COLL_NOTEQUAL ? !r : r;
	}
	case SUBJ_INT: {
		int64_t v;
		if (!mlib_index_int_value(f->idx, f->prop, id, &v))
			return false;
		bool r = test_int(f, v);
		return f->op == COLL_NOTEQUAL ? !r : r;
	}
	case SUBJ_STR: {
		const uint32_t *vids;
		size_t n = mlib_index_str_values(f->idx, f->prop, id, &vids);
		if (n == 0)
			return false;
		bool any = false;
		for (size_t k = 0; k < n && !any; k++)
			any = test_vid(f, vids[k]);
		/* notequal: has the property and none of its values equals. */
		return f->op == COLL_NOTEQUAL ? !any : any;
	}
	}
	return false;
}

/* ---- testing the whole library ---- */

/* One memmem pass over every folded text; values containing the needle are
 * candidates (verified unless the needle is the whole condition). */
static void vbits_scan(struct coll_filter *f, bool verify)
{
	const char *p = f->fbase, *end = f->fbase + f->foffs[f->ndict];
	uint32_t v = 0;
	while (p < end) {
		const char *h = coll_span_find(p, (size_t)(end - p), f->needle, f->nneedle);
		if (!h)
			break;
		v = coll_span_vid_at(f->foffs, f->ndict, v, (size_t)(h - f->fbase));
		if (!verify || test_vid_direct(f, v))
			bitset_set(&f->vbits, v);
		p = f->fbase + f->foffs[v + 1];
	}
}

/* Does the single-word token value occur as a whole word (or a word prefix)
 * at h[0..) inside the value [start, end)? h already holds the word's bytes. */
static bool token_at(const struct coll_filter *f, const char *start, const char *end,
		     const char *h, size_t m)
{
	if (!coll_word_boundary(start, end, h))
		return false;
	return f->prefix_last || coll_word_boundary(start, end, h + m);
}

/* Candidate position p of a one-word token scan (first and last bytes in
 * place): on a whole-word match set its value and return true. *v is the
 * value search's starting point (candidates come in increasing order). */
static bool token1_candidate(struct coll_filter *f, const char *nd, size_t m, size_t p,
			     uint32_t *v)
{
	const char *base = f->fbase;
	if (m > 2 && memcmp(base + p + 1, nd + 1, m - 2) != 0)
		return false;
	*v = coll_span_vid_at(f->foffs, f->ndict, *v, p);
	const char *vs = base + f->foffs[*v], *ve = base + f->foffs[*v + 1] - 1;
	if (base + p + m > ve || !token_at(f, vs, ve, base + p, m))
		return false;
	bitset_set(&f->vbits, *v);
	return true;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_SCAN 1
/* The scan below 32 bytes at a time where the processor has AVX2 (the
 * build targets plain x86-64). Returns where it stopped. */
__attribute__((target("avx2"))) static size_t token1_avx2(struct coll_filter *f, const char *nd,
							  size_t m, size_t i, uint32_t *v)
{
	const char *base = f->fbase;
	size_t n = f->foffs[f->ndict];
	const __m256i first = _mm256_set1_epi8(nd[0]), last = _mm256_set1_epi8(nd[m - 1]);
	const __m256i c0 = _mm256_set1_epi8('0' - 1), c9 = _mm256_set1_epi8('9' + 1);
	const __m256i ca = _mm256_set1_epi8('a' - 1), cz = _mm256_set1_epi8('z' + 1);
	const __m256i cA = _mm256_set1_epi8('A' - 1), cZ = _mm256_set1_epi8('Z' + 1);
	const bool whole = !f->prefix_last;
#define ASCII_WORD256(x)                                                                           \
	_mm256_or_si256(                                                                           \
		_mm256_or_si256(_mm256_and_si256(_mm256_cmpgt_epi8(x, c0), _mm256_cmpgt_epi8(c9, x)), \
				_mm256_and_si256(_mm256_cmpgt_epi8(x, ca), _mm256_cmpgt_epi8(cz, x))), \
		_mm256_and_si256(_mm256_cmpgt_epi8(x, cA), _mm256_cmpgt_epi8(cZ, x)))
	while (i + m + 32 <= n) {
		__m256i cur = _mm256_loadu_si256((const __m256i *)(const void *)(base + i));
		__m256i lst = _mm256_loadu_si256((const __m256i *)(const void *)(base + i + m - 1));
		__m256i hit = _mm256_and_si256(_mm256_cmpeq_epi8(cur, first), _mm256_cmpeq_epi8(lst, last));
		if (_mm256_testz_si256(hit, hit)) { /* the common case: nothing here */
			i += 32;
			continue;
		}
		__m256i prv = _mm256_loadu_si256((const __m256i *)(const void *)(base + i - 1));
		hit = _mm256_andnot_si256(ASCII_WORD256(prv), hit);
		if (whole) {
			__m256i nxt = _mm256_loadu_si256((const __m256i *)(const void *)(base + i + m));
			hit = _mm256_andnot_si256(ASCII_WORD256(nxt), hit);
		}
		unsigned mask = (unsigned)_mm256_movemask_epi8(hit);
		size_t next = i + 32;
		while (mask) {
			size_t p = i + (size_t)__builtin_ctz(mask);
			mask &= mask - 1;
			if (token1_candidate(f, nd, m, p, v)) {
				next = f->foffs[*v + 1]; /* on to the next value */
				break;
			}
		}
		i = next;
	}
#undef ASCII_WORD256
	return i;
}
#endif

/* A token filter of one word over every folded text: candidates are
 * positions where the word's first and last bytes sit and the bytes around
 * are not ASCII letters or digits (so mostly whole words); each is checked
 * exactly. One pass, no per-value tokenising: short words such as "a"
 * cost no more than long ones. */
static void vbits_scan_token1(struct coll_filter *f)
{
	const char *nd = f->val + f->words[0].off;
	size_t m = f->words[0].len;
	const char *base = f->fbase, *end = base + f->foffs[f->ndict];
	size_t n = (size_t)(end - base), i = 0;
	uint32_t v = 0;
	/* The vector prefilter rejects candidates next to ASCII letters, which
	 * are word boundaries after and before a CJK character. */
	const bool simd = !coll_word_cjk_edge(nd, m);
	(void)simd;
#ifdef __SSE2__
	const __m128i first = _mm_set1_epi8(nd[0]), last = _mm_set1_epi8(nd[m - 1]);
	const __m128i c0 = _mm_set1_epi8('0' - 1), c9 = _mm_set1_epi8('9' + 1);
	const __m128i ca = _mm_set1_epi8('a' - 1), cz = _mm_set1_epi8('z' + 1);
	const __m128i cA = _mm_set1_epi8('A' - 1), cZ = _mm_set1_epi8('Z' + 1);
	if (simd && n > 0) {
		/* position 0 starts the first value: check it on its own */
		if (memcmp(base, nd, m < n ? m : n) == 0 && m <= n &&
		    token_at(f, base, base + f->foffs[1] - 1, base, m)) {
			bitset_set(&f->vbits, 0);
			i = f->foffs[1];
			v = 1;
		} else {
			i = 1;
		}
	}
#ifdef HAVE_AVX2_SCAN
	if (simd && __builtin_cpu_supports("avx2"))
		i = token1_avx2(f, nd, m, i, &v);
#endif
	const bool whole = !f->prefix_last;
#define ASCII_WORD(x)                                                                              \
	_mm_or_si128(_mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(x, c0), _mm_cmplt_epi8(x, c9)),         \
				  _mm_and_si128(_mm_cmpgt_epi8(x, ca), _mm_cmplt_epi8(x, cz))),        \
		     _mm_and_si128(_mm_cmpgt_epi8(x, cA), _mm_cmplt_epi8(x, cZ)))
	while (simd && i + m + 16 <= n) {
		__m128i cur = _mm_loadu_si128((const __m128i *)(const void *)(base + i));
		__m128i lst = _mm_loadu_si128((const __m128i *)(const void *)(base + i + m - 1));
		__m128i hit = _mm_and_si128(_mm_cmpeq_epi8(cur, first), _mm_cmpeq_epi8(lst, last));
		if (_mm_movemask_epi8(hit) == 0) {
			i += 16;
			continue;
		}
		/* signed compares: bytes >= 0x80 are negative, hence never "word" here
		 * (token_at checks those exactly) */
		__m128i prv = _mm_loadu_si128((const __m128i *)(const void *)(base + i - 1));
		hit = _mm_andnot_si128(ASCII_WORD(prv), hit);
		if (whole) { /* a whole word: the byte after must not continue it either */
			__m128i nxt = _mm_loadu_si128((const __m128i *)(const void *)(base + i + m));
			hit = _mm_andnot_si128(ASCII_WORD(nxt), hit);
		}
		unsigned mask = (unsigned)_mm_movemask_epi8(hit);
		size_t next = i + 16;
		while (mask) {
			size_t p = i + (size_t)__builtin_ctz(mask);
			mask &= mask - 1;
			if (token1_candidate(f, nd, m, p, &v)) {
				next = f->foffs[v + 1]; /* on to the next value */
				break;
			}
		}
		i = next;
	}
#undef ASCII_WORD
#endif
	/* The tail (and builds without SSE2): value by value. */
	if (i < n) {
		v = coll_span_vid_at(f->foffs, f->ndict, v, i);
		for (; v < f->ndict; v++) {
			const char *vs = base + f->foffs[v], *ve = base + f->foffs[v + 1] - 1;
			const char *p = vs > base + i ? vs : base + i;
			while (p + m <= ve) {
				const char *h = memmem(p, (size_t)(ve - p), nd, m);
				if (!h)
					break;
				if (token_at(f, vs, ve, h, m)) {
					bitset_set(&f->vbits, v);
					break;
				}
				p = h + 1;
			}
		}
	}
}

void coll_filter_set_cache(struct coll_filter *f, struct coll_eval_cache *c)
{
	/* Matches of a string subject depend on the dictionary and the value
	 * only; ages and dates depend on the clock as well. */
	if (f->subj == SUBJ_STR && f->time == TIME_NONE)
		f->cache = c;
}

static void cache_key(const struct coll_filter *f, struct coll_cache_key *k)
{
	k->idx = f->idx;
	k->prop = f->prop;
	k->ndict = f->ndict;
	k->bound = mlib_index_id_bound(f->idx);
	k->count = mlib_index_count(f->idx);
	k->op = (int)f->op;
	k->binary = f->binary;
	k->value = f->raw;
}

/* A kept result whose values include every value this filter can match
 * ("*lo*" for "*lov*", "lo*" for the word "love"); NULL when none. */
static const struct coll_cache_entry *cache_wider(const struct coll_filter *f,
						  const struct coll_cache_key *k)
{
	if (f->binary || f->nneedle == 0 || (f->op != COLL_MATCH && f->op != COLL_TOKEN))
		return NULL;
	size_t n;
	struct coll_cache_entry **es = coll_cache_same_dict(f->cache, k, &n);
	const struct coll_cache_entry *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct coll_cache_entry *e = es[i];
		bool wider = false;
		if (e->kind == COLL_CACHE_CONTAINS)
			wider = e->nneedle <= f->nneedle &&
				memmem(f->needle, f->nneedle, e->needle, e->nneedle) != NULL;
		else if (e->kind == COLL_CACHE_WORD_PREFIX)
			wider = f->op == COLL_TOKEN && f->nwords == 1 && e->nneedle <= f->nneedle &&
				memcmp(f->needle, e->needle, e->nneedle) == 0;
		if (wider && (!best || e->nneedle > best->nneedle))
			best = e;
	}
	if (!best)
		return NULL;
	/* Testing a candidate costs about what scanning a value does, so
	 * narrowing pays unless nearly every value is a candidate. */
	size_t cand = 0;
	for (size_t i = 0; i < bitset_words(&best->vbits); i++)
		cand += (size_t)__builtin_popcountll(best->vbits.w[i]);
	return cand <= f->ndict / 2 ? best : NULL;
}

static void vbits_compute(struct coll_filter *f);
static void vbits_keep(const struct coll_filter *f, const struct coll_cache_key *k);
static void vbits_prepare(struct coll_filter **fs, size_t n);
static bool memo_answers(const struct coll_filter *f);
static const uint64_t *letters_of(const struct coll_filter *f);

/* Is f a string match of one letter a-z anywhere ("*l*")? */
static bool letter_anywhere(const struct coll_filter *f)
{
	return f->subj == SUBJ_STR && f->cache && !f->binary && f->time == TIME_NONE &&
	       f->op == COLL_MATCH && f->contains_only && f->nneedle == 1 &&
	       coll_letters_term(f->needle, 1);
}

/* vbits from the cache, narrowed from a wider kept result, or computed;
 * then kept. */
static void vbits_build_cached(struct coll_filter *f)
{
	struct coll_cache_key k;
	cache_key(f, &k);
	const struct coll_cache_entry *e = coll_cache_find(f->cache, &k);
	bitset_init(&f->vbits, f->ndict + 1);
	if (e) {
		memcpy(f->vbits.w, e->vbits.w, bitset_words(&f->vbits) * sizeof *f->vbits.w);
		f->vbits_ready = true;
		return;
	}
	/* A single letter anywhere ("*l*", the search bar's first key): a
	 * read of its dictionary's one-letter table per value, when kept. */
	const uint64_t *letters = letter_anywhere(f) ? letters_of(f) : NULL;
	if (letters) {
		coll_letters_contains(letters, f->ndict, f->needle[0], f->vbits.w);
		f->vbits_ready = true;
		vbits_keep(f, &k);
		return;
	}
	/* ranking's pass costs less than testing the values of a wider result */
	const struct coll_cache_entry *w = memo_answers(f) ? NULL : cache_wider(f, &k);
	if (w) {
		for (size_t i = 0; i < bitset_words(&w->vbits); i++) {
			uint64_t bits = w->vbits.w[i];
			while (bits) {
				uint32_t v = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(bits));
				bits &= bits - 1;
				if (v < f->ndict && test_vid_direct(f, v))
					bitset_set(&f->vbits, v);
			}
		}
		f->vbits_ready = true;
		vbits_keep(f, &k);
	} else {
		bitset_free(&f->vbits);
		vbits_prepare(&f, 1);
	}
}

/* Keep f's matching values in its cache under key k. */
static void vbits_keep(const struct coll_filter *f, const struct coll_cache_key *k)
{
	enum coll_cache_kind kind = COLL_CACHE_OTHER;
	if (!f->binary && f->op == COLL_MATCH && f->contains_only)
		kind = COLL_CACHE_CONTAINS;
	else if (!f->binary && f->op == COLL_TOKEN && f->nwords == 1 && f->prefix_last)
		kind = COLL_CACHE_WORD_PREFIX;
	struct coll_cache_entry *s = coll_cache_store(f->cache, k, kind, f->needle ? f->needle : "",
						      f->needle ? f->nneedle : 0);
	memcpy(s->vbits.w, f->vbits.w, bitset_words(&s->vbits) * sizeof *s->vbits.w);
}

static void vbits_build(struct coll_filter *f)
{
	if (f->vbits_ready)
		return;
	if (f->cache) {
		vbits_build_cached(f);
		return;
	}
	vbits_compute(f);
}

/* ---- several filters on two cores ---- */

/* Below this many values to scan, starting a thread costs more than it
 * saves. */
#define VBITS_CREW_MIN (1u << 14)

/* ---- a new word's matches from ranking's classes ----
 *
 * A one-word token filter of ASCII letters and digits matches exactly the
 * values where ranking classes its word a word prefix or better ("word*")
 * or a whole word or better ("word"): a word starts (and ends) there; a
 * match anywhere ("*word*") where it classes it at all. One
 * vector pass over the dictionary (coll/rank_fill.h) gives both, kept as
 * ranking's memo in the cache, so a new word's keystroke reads each
 * dictionary once for the filter and ranking together. The substring
 * matches ranking needs as well make the pass cost about what the
 * filter's own scan did. */

/* Does f's match follow from ranking's classes of its word, and does
 * that pay? The pass classes every occurrence of the word's letters, the
 * filter's own scan only those at the start of a word, and ranking needs
 * the classes only when the result is large. So: a word prefix ("lo*") of
 * two letters or more. A whole word ("lo", the search bar's word as
 * typed) is left to the filter's own scan. A single letter ("l*", "l") is
 * mostly inside other words (every 'l' is a match to class), so the pass
 * would not pay; but once the dictionary's one-letter table is kept (the
 * search bar builds it while idle), its memo is a read of the table per
 * value.
 * Preferred to narrowing a wider kept result ("lo*" from "l*"), which
 * tests each value that one matched. */
static bool memo_answers(const struct coll_filter *f)
{
	if (!(f->subj == SUBJ_STR && f->cache && !f->binary && f->time == TIME_NONE))
		return false;
	/* A match anywhere ("*lov*", the search bar's t~lov): every value
	 * ranking classes a substring or better. A single letter is the
	 * one-letter table's (letter_anywhere). */
	if (f->op == COLL_MATCH)
		return f->contains_only && f->nneedle >= 2 &&
		       coll_rank_fill_fast_term(f->needle, f->nneedle);
	if (!(f->op == COLL_TOKEN && f->nwords == 1 && f->words[0].off == 0 &&
	      f->words[0].len + f->prefix_last == f->vlen))
		return false;
	/* A single letter, a word prefix or a whole word, once its
	 * dictionary's one-letter table is kept (coll/rank_letters.h): the
	 * memo is a read of it per value. */
	if (f->words[0].len == 1)
		return coll_letters_term(f->val, 1) && letters_of(f);
	return f->prefix_last && f->words[0].len >= 2 &&
	       coll_rank_fill_fast_term(f->val, f->words[0].len);
}

/* The term whose memo answers f (memo_answers): its text and length. */
static const char *memo_term(const struct coll_filter *f, size_t *len)
{
	if (f->op == COLL_MATCH) {
		*len = f->nneedle;
		return f->needle;
	}
	*len = f->words[0].len;
	return f->val;
}

/* What the cache keeps for f's dictionary is filed under this key. */
static struct coll_cache_key dict_key_of(const struct coll_filter *f)
{
	return (struct coll_cache_key){.idx = f->idx, .prop = f->prop, .ndict = f->ndict,
				       .bound = mlib_index_id_bound(f->idx),
				       .count = mlib_index_count(f->idx), .op = -1};
}

/* f's dictionary's one-letter table when the cache keeps it, else NULL. */
static const uint64_t *letters_of(const struct coll_filter *f)
{
	struct coll_cache_key k = dict_key_of(f);
	return coll_cache_derived_find(f->cache, COLL_CACHE_LETTERS, &k);
}

/* Ranking's memo of f's word in f's dictionary (coll_cache_rank_memo). */
static uint8_t *memo_of(const struct coll_filter *f)
{
	struct coll_cache_key k = dict_key_of(f);
	size_t len;
	const char *term = memo_term(f, &len);
	char *word = xmalloc(len + 1);
	memcpy(word, term, len);
	word[len] = '\0';
	uint8_t *m = coll_cache_rank_memo(f->cache, &k, word);
	free(word);
	return m;
}

/* f's matching values from its memo m (complete). */
static void vbits_from_memo(struct coll_filter *f, const uint8_t *m)
{
	bitset_init(&f->vbits, f->ndict + 1);
	uint8_t least = (uint8_t)(1 + (f->op == COLL_MATCH ? COLL_RANK_SUBSTRING
					: f->prefix_last   ? COLL_RANK_PREFIX
							   : COLL_RANK_WORD));
	uint32_t base = 0;
#ifdef __SSE2__
	const __m128i below = _mm_set1_epi8((char)(least - 1)); /* memo bytes are 0 .. 5 */
	for (; base + 64 <= f->ndict; base += 64) {
		uint64_t word = 0;
		for (uint32_t b = 0; b < 64; b += 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(m + base + b));
			word |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(x, below)) << b;
		}
		f->vbits.w[base >> 6] = word;
	}
#endif
	for (; base < f->ndict; base += 64) {
		uint32_t lim = f->ndict - base < 64 ? f->ndict - base : 64;
		uint64_t word = 0;
		for (uint32_t b = 0; b < lim; b++)
			word |= (uint64_t)(m[base + b] >= least) << b;
		f->vbits.w[base >> 6] = word;
	}
	f->vbits_ready = true;
}

/* A memo is filled in pieces of at least this many values, at most
 * MEMO_PIECES of them, so both threads have an even share. */
#define MEMO_PIECE_MIN 4096u
#define MEMO_PIECES 8

/* The work of coll_filters_prepare: pieces of memos to fill, filters to
 * scan. */
struct prep_item {
	struct coll_filter *f; /* scan f (memo NULL), or fill a piece of f's word's memo */
	uint8_t *memo;
	const uint64_t *letters; /* with memo: fill from this one-letter table */
	uint32_t lo, hi;
};

struct prep_crew {
	struct prep_item *v;
	size_t n;
	size_t values; /* in all items */
};

static void prep_one(void *ctx, size_t i)
{
	const struct prep_item *it = &((struct prep_crew *)ctx)->v[i];
	const struct coll_filter *f = it->f;
	if (it->memo && it->letters) /* touches its piece alone; the index is only read */
		coll_letters_fill(it->letters, f->fbase, f->foffs, it->lo, it->hi, f->val[0],
				  it->memo);
	else if (it->memo) {
		size_t len;
		const char *term = memo_term(f, &len);
		coll_rank_fill_span(f->fbase, f->foffs, it->lo, it->hi, term, len, it->memo);
	}
	else
		vbits_compute(it->f); /* touches its filter alone */
}

static void prep_add(struct prep_crew *c, struct coll_filter *f, uint8_t *memo,
		     const uint64_t *letters, uint32_t lo, uint32_t hi)
{
	c->v = xreallocarray(c->v, c->n + 1, sizeof *c->v);
	c->v[c->n++] = (struct prep_item){f, memo, letters, lo, hi};
	c->values += hi - lo;
}

/* Would f scan its whole dictionary: a string filter whose matches the
 * cache neither keeps nor can narrow from a wider kept result? */
static bool vbits_scan_due(const struct coll_filter *f)
{
	if (f->subj != SUBJ_STR || !f->cache || f->vbits_ready ||
	    (letter_anywhere(f) && letters_of(f))) /* no scan: vbits_build_cached */
		return false;
	struct coll_cache_key k;
	cache_key(f, &k);
	return !coll_cache_find(f->cache, &k) && (memo_answers(f) || !cache_wider(f, &k));
}

/* The matching values of fs[0..n) (due: vbits_scan_due), kept in the
 * cache: ranking's memos where they answer (filled when not complete, a
 * memo shared by two filters once), the filters' own scans for the rest,
 * on two cores. */
static void vbits_prepare(struct coll_filter **fs, size_t n)
{
	struct prep_crew crew = {0};
	uint8_t **memo = xcalloc(n + 1, sizeof *memo);
	size_t nmemo = 0;
	for (size_t i = 0; i < n; i++) {
		struct coll_filter *f = fs[i];
		/* every memo taken here stays in the cache until the last is
		 * taken (it keeps the most recently used) */
		if (memo_answers(f) && nmemo < COLL_CACHE_RANK_SLOTS) {
			memo[i] = memo_of(f);
			nmemo++;
			bool queued = memo[i][f->ndict] != 0;
			for (size_t k = 0; k < crew.n && !queued; k++)
				queued = crew.v[k].memo == memo[i];
			uint32_t np = f->ndict / MEMO_PIECE_MIN;
			np = np < 1 ? 1 : np > MEMO_PIECES ? MEMO_PIECES : np;
			size_t len;
			memo_term(f, &len);
			const uint64_t *letters = len == 1 ? letters_of(f) : NULL;
			for (uint32_t p = 0; p < np && !queued; p++)
				prep_add(&crew, f, memo[i], letters,
					 (uint32_t)((uint64_t)f->ndict * p / np),
					 (uint32_t)((uint64_t)f->ndict * (p + 1) / np));
		} else {
			prep_add(&crew, f, NULL, NULL, 0, f->ndict);
		}
	}
	crew_run(crew.n, crew.values >= VBITS_CREW_MIN, prep_one, &crew);
	for (size_t i = 0; i < crew.n; i++) /* every piece of it is filled */
		if (crew.v[i].memo)
			crew.v[i].memo[crew.v[i].f->ndict] = 1;
	for (size_t i = 0; i < n; i++) { /* the cache is this thread's */
		if (memo[i])
			vbits_from_memo(fs[i], memo[i]);
		struct coll_cache_key k;
		cache_key(fs[i], &k);
		vbits_keep(fs[i], &k);
	}
	free(memo);
	free(crew.v);
}

void coll_filters_prepare(struct coll_filter **fs, size_t n)
{
	struct coll_filter **due = xcalloc(n + 1, sizeof *due);
	size_t ndue = 0, nmemo = 0;
	for (size_t i = 0; i < n; i++)
		if (vbits_scan_due(fs[i])) {
			due[ndue++] = fs[i];
			nmemo += memo_answers(fs[i]);
		}
	/* one scan alone is left to the evaluation itself */
	if (ndue > 1 || nmemo > 0)
		vbits_prepare(due, ndue);
	free(due);
}

static void vbits_compute(struct coll_filter *f)
{
	bitset_init(&f->vbits, f->ndict + 1);
	bool eq = f->op == COLL_EQUALS || f->op == COLL_NOTEQUAL;
	if (f->op == COLL_HAS) {
		for (uint32_t v = 0; v < f->ndict; v++)
			bitset_set(&f->vbits, v);
	} else if (f->binary || f->time != TIME_NONE) {
		for (uint32_t v = 0; v < f->ndict; v++)
			if (test_vid_direct(f, v))
				bitset_set(&f->vbits, v);
	} else if (eq && !f->val_num) {
		/* Exact folded text: compare lengths first, then bytes. */
		for (uint32_t v = 0; v < f->ndict; v++)
			if (f->foffs[v + 1] - f->foffs[v] - 1 == f->vlen &&
			    memcmp(f->fbase + f->foffs[v], f->val, f->vlen) == 0)
				bitset_set(&f->vbits, v);
	} else if (f->op == COLL_MATCH && (f->prefix_only || f->exact_only)) {
		for (uint32_t v = 0; v < f->ndict; v++) {
			uint32_t len = f->foffs[v + 1] - f->foffs[v] - 1;
			if ((f->exact_only ? len == f->nneedle : len >= f->nneedle) &&
			    memcmp(f->fbase + f->foffs[v], f->needle, f->nneedle) == 0)
				bitset_set(&f->vbits, v);
		}
	} else if (f->op == COLL_TOKEN && f->nwords == 1 && f->nneedle > 0) {
		vbits_scan_token1(f);
	} else if ((f->op == COLL_MATCH || f->op == COLL_TOKEN) && f->nneedle > 0) {
		vbits_scan(f, !(f->op == COLL_MATCH && f->contains_only));
	} else {
		for (uint32_t v = 0; v < f->ndict; v++)
			if (test_vid_direct(f, v))
				bitset_set(&f->vbits, v);
	}
	f->vbits_ready = true;
}

/* Narrow integer column: set every item with lo <= v <= hi (or, for
 * notequal, every item having a value outside). Four items per compare. */
static void fill_range32(const int32_t *col, size_t len, int64_t lo64, int64_t hi64, bool neq,
			 struct bitset *out)
{
	/* Clamp to the values a narrow column holds; INT32_MIN means missing. */
	int64_t lo = lo64 < INT32_MIN + 1 ? INT32_MIN + 1 : lo64;
	int64_t hi = hi64 > INT32_MAX ? INT32_MAX : hi64;
	bool empty = lo > hi || lo > INT32_MAX || hi < INT32_MIN + 1;
	if (empty) {
		lo = 1;
		hi = 0;
	}
	size_t base = 0;
#ifdef __SSE2__
	const __m128i vlo = _mm_set1_epi32((int32_t)(lo - 1)), vhi = _mm_set1_epi32((int32_t)hi);
	const __m128i vmiss = _mm_set1_epi32(INT32_MIN);
	const unsigned flip = neq ? 0xf : 0;
	for (; base + 64 <= len; base += 64) {
		uint64_t word = 0;
		for (size_t b = 0; b < 64; b += 4) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(col + base + b));
			__m128i in = _mm_andnot_si128(_mm_cmpgt_epi32(v, vhi), _mm_cmpgt_epi32(v, vlo));
			__m128i has = _mm_cmpeq_epi32(v, vmiss); /* all ones when missing */
			unsigned m_in = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(in));
			unsigned m_miss = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(has));
			if (empty)
				m_in = 0;
			word |= (uint64_t)((m_in ^ flip) & ~m_miss & 0xf) << b;
		}
		out->w[base >> 6] |= word;
	}
#endif
	for (size_t id = base; id < len; id++) {
		int32_t v = col[id];
		if (v == INT32_MIN)
			continue;
		bool in = !empty && v >= lo && v <= hi;
		if (in != neq)
			bitset_set(out, id);
	}
}

/* The same over a narrow column (1 or 2 bytes per item, value = base +
 * stored, the largest stored value for missing): the range moved to
 * stored values once, then one unsigned compare per item. */
static void fill_range_narrow(const struct mlib_int_column *c, size_t len, int64_t lo64,
			      int64_t hi64, bool neq, struct bitset *out)
{
	uint64_t miss = c->v8 ? UINT8_MAX : UINT16_MAX;
	/* stored values in range: [lo64 - base, hi64 - base] within [0, miss) */
	uint64_t top = miss - 1; /* differences in uint64: exact, no overflow */
	uint64_t slo = lo64 <= c->base ? 0 : (uint64_t)lo64 - (uint64_t)c->base;
	bool empty = hi64 < c->base || hi64 < lo64 || slo > top;
	uint64_t shi = empty ? 0 : (uint64_t)hi64 - (uint64_t)c->base;
	shi = shi > top ? top : shi;
	empty = empty || slo > shi;
	uint64_t lo = empty ? 0 : slo, width = empty ? 0 : shi - slo;
	uint64_t flip = neq;
	for (size_t base = 0; base < len; base += 64) {
		size_t lim = len - base < 64 ? len - base : 64;
		uint64_t word = 0;
		if (c->v8) {
			const uint8_t *s = c->v8 + base;
			for (size_t b = 0; b < lim; b++) {
				uint64_t in = !empty & ((uint64_t)s[b] - lo <= width);
				word |= ((in ^ flip) & (s[b] != UINT8_MAX)) << b;
			}
		} else {
			const uint16_t *s = c->v16 + base;
			for (size_t b = 0; b < lim; b++) {
				uint64_t in = !empty & ((uint64_t)s[b] - lo <= width);
				word |= ((in ^ flip) & (s[b] != UINT16_MAX)) << b;
			}
		}
		out->w[base >> 6] |= word;
	}
}

void coll_filter_fill(struct coll_filter *f, struct bitset *out)
{
	bool neq = f->op == COLL_NOTEQUAL;
	switch (f->subj) {
	case SUBJ_NONE:
	case SUBJ_POS:
		return;
	case SUBJ_ID: {
		const struct u32vec *all = mlib_index_all_ids(f->idx);
		for (size_t i = 0; i < all->n; i++)
			if (test_int(f, all->v[i]) != neq)
				bitset_set(out, all->v[i]);
		return;
	}
	case SUBJ_INT: {
		struct mlib_int_column col;
		mlib_index_int_column(f->idx, f->prop, &col);
		size_t len = col.len < out->nbits ? col.len : out->nbits;
		if (f->int_range && col.v32) {
			fill_range32(col.v32, len, f->ilo, f->ihi, neq, out);
			return;
		}
		if (f->int_range && (col.v8 || col.v16)) {
			fill_range_narrow(&col, len, f->ilo, f->ihi, neq, out);
			return;
		}
		if (f->int_range) {
			/* One unsigned compare per item; INT64_MIN (missing) is never in range. */
			uint64_t lo = (uint64_t)f->ilo, width = (uint64_t)f->ihi - lo, flip = neq;
			for (size_t base = 0; base < len; base += 64) {
				size_t lim = len - base < 64 ? len - base : 64;
				const int64_t *c = col.v64 + base;
				uint64_t word = 0;
				for (size_t b = 0; b < lim; b++) {
					uint64_t in = (uint64_t)c[b] - lo <= width;
					uint64_t has = c[b] != MLIB_INT_MISSING;
					word |= ((in ^ flip) & has) << b;
				}
				out->w[base >> 6] |= word;
			}
			return;
		}
		for (size_t id = 0; id < len; id++) {
			int64_t v = mlib_int_column_get(&col, id);
			if (v != MLIB_INT_MISSING && test_int(f, v) != neq)
				bitset_set(out, id);
		}
		return;
	}
	case SUBJ_STR: {
		struct coll_cache_key k;
		struct coll_cache_entry *e = NULL;
		if (f->cache) {
			cache_key(f, &k);
			e = coll_cache_find(f->cache, &k);
			if (e && e->have_items && e->items.nbits == out->nbits) {
				for (size_t i = 0; i < bitset_words(out); i++)
					out->w[i] |= e->items.w[i];
				return;
			}
		}
		vbits_build(f);
		bool none = true;
		for (size_t i = 0; i < bitset_words(&f->vbits) && none; i++)
			none = f->vbits.w[i] == 0;
		if (!none || neq) /* no value matches: no item does (notequal: every item does) */
			mlib_index_select_str(f->idx, f->prop, &f->vbits, neq, out);
		if (f->cache && (e = coll_cache_find(f->cache, &k)) != NULL) {
			/* out held nothing before (see eval_filter.h): it is the result */
			bitset_copy(&e->items, out);
			e->have_items = true;
		}
		return;
	}
	}
}

void coll_filter_fill_within(struct coll_filter *f, const struct bitset *within, struct bitset *out)
{
	size_t members = 0, nw = bitset_words(within);
	for (size_t k = 0; k < nw; k++)
		members += (size_t)__builtin_popcountll(within->w[k]);
	/* Rough costs in ns, measured at a million tracks: testing one item
	 * (a random access into its column) ~15 with the matching values known,
	 * ~60 without; a whole-column pass ~2 per library item (0.7 for narrow
	 * integers), or next to nothing when few values match (the index reads
	 * their items only) or the pass result is kept. Small dictionaries are
	 * cheap to test value by value first. */
	double per_item = 8, pass = 2.0 * (double)out->nbits;
	if (f->subj == SUBJ_STR) {
		struct coll_cache_key k;
		const struct coll_cache_entry *e = NULL;
		if (f->cache) {
			cache_key(f, &k);
			e = coll_cache_find(f->cache, &k);
		}
		/* ranking's pass finds the values at ~3 ns each (memo_answers) */
		if (!f->vbits_ready && (e || (size_t)f->ndict <= members * 4 ||
					(memo_answers(f) && (size_t)f->ndict <= members * 20)))
			vbits_build(f);
		if (f->vbits_ready) {
			per_item = 15;
			size_t matched = 0;
			for (size_t i = 0; i < bitset_words(&f->vbits); i++)
				matched += (size_t)__builtin_popcountll(f->vbits.w[i]);
			if (f->op != COLL_NOTEQUAL && f->ndict >= 4096 && matched <= f->ndict / 32)
				pass = 3.0 * (double)matched * ((double)out->nbits / f->ndict) +
				       (double)f->ndict / 64;
		} else {
			per_item = 60;
			pass += 7.0 * f->ndict;
		}
		if (e && e->have_items && e->items.nbits == out->nbits)
			pass = (double)out->nbits / 64; /* a copy of the kept items */
	} else if (f->subj == SUBJ_INT) {
		pass = 0.7 * (double)out->nbits;
	}
	if ((double)members * per_item < pass) {
		for (size_t k = 0; k < nw; k++) {
			uint64_t bits = within->w[k];
			while (bits) {
				uint32_t id = (uint32_t)(k * 64 + (size_t)__builtin_ctzll(bits));
				bits &= bits - 1;
				if (coll_filter_test_item(f, id))
					bitset_set(out, id);
			}
		}
		return;
	}
	coll_filter_fill(f, out);
	for (size_t k = 0; k < bitset_words(out) && k < nw; k++)
		out->w[k] &= within->w[k];
}
