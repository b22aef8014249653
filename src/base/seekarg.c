#include "base/seekarg.h"

#include <stdbool.h>
#include <string.h>

#define MAX_MS (100LL * 3600 * 1000)

/* Digits s[0..n) with at most one '.', as ms of unit_ms each; false when
 * empty, malformed or too large. */
static bool number_ms(const char *s, size_t n, int64_t unit_ms, int64_t *out)
{
	int64_t whole = 0, frac = 0, scale = 1;
	bool dot = false, digits = false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.' && !dot) {
			dot = true;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			return false;
		digits = true;
		if (!dot) {
			whole = whole * 10 + (s[i] - '0');
			if (whole * unit_ms > MAX_MS)
				return false;
		} else if (scale < 1000) { /* finer than a millisecond is dropped */
			frac = frac * 10 + (s[i] - '0');
			scale *= 10;
		}
	}
	if (!digits)
		return false;
	*out = whole * unit_ms + frac * unit_ms / scale;
	return true;
}

static int bad(struct crate_err *err, const char *s)
{
	return crate_err_set(err, CRATE_ERR_INVALID,
			     "seek: '%s' is not a position (90, 1:30, +10, -0:05, 50%%)", s);
}

static int parse_percent(const char *s, size_t n, struct seekarg *out, struct crate_err *err,
			 const char *whole)
{
	int64_t v; /* thousandths of a percent unit: parse as "ms" of 1 */
	if (!number_ms(s, n, 1000, &v) || v > 100 * 1000)
		return bad(err, whole);
	out->kind = SEEKARG_PERCENT;
	out->permille = (int)(v / 100); /* 1000 per 100 %, i.e. v/1000*10 */
	out->ms = 0;
	return 0;
}

int seekarg_parse(const char *s, struct seekarg *out, struct crate_err *err)
{
	const char *whole = s;
	size_t n = strlen(s);
	int sign = 0;
	if (n && (s[0] == '+' || s[0] == '-')) {
		sign = s[0] == '-' ? -1 : 1;
		s++;
		n--;
	}
	if (n && s[n - 1] == '%') {
		if (sign)
			return bad(err, whole); /* "+10%": say so rather than guess */
		return parse_percent(s, n - 1, out, err, whole);
	}
	/* [[h:]m:]s, the last field may have a fraction */
	const char *field[3];
	size_t len[3], nf = 0;
	for (const char *p = s;;) {
		const char *colon = memchr(p, ':', n - (size_t)(p - s));
		if (nf == 3)
			return bad(err, whole);
		field[nf] = p;
		len[nf++] = colon ? (size_t)(colon - p) : n - (size_t)(p - s);
		if (!colon)
			break;
		p = colon + 1;
	}
	int64_t total = 0;
	static const int64_t units[3] = {1000, 60 * 1000, 3600 * 1000};
	for (size_t i = 0; i < nf; i++) {
		size_t k = nf - 1 - i; /* from the last field: seconds, minutes, hours */
		int64_t v;
		if ((k != 0 && memchr(field[i], '.', len[i])) ||
		    !number_ms(field[i], len[i], units[k], &v))
			return bad(err, whole);
		/* below the first field, a field counts less than 60 of its unit */
		if (i > 0 && v >= 60 * units[k])
			return bad(err, whole);
		total += v;
	}
	if (total > MAX_MS)
		return bad(err, whole);
	out->kind = sign ? SEEKARG_REL : SEEKARG_ABS;
	out->ms = sign < 0 ? -total : total;
	out->permille = 0;
	return 0;
}

int64_t seekarg_target_ms(const struct seekarg *a, int64_t pos_ms, int64_t dur_ms)
{
	int64_t t;
	switch (a->kind) {
	case SEEKARG_REL:
		t = pos_ms + a->ms;
		break;
	case SEEKARG_PERCENT:
		t = dur_ms > 0 ? dur_ms * a->permille / 1000 : 0;
		break;
	default:
		t = a->ms;
		break;
	}
	return t < 0 ? 0 : t;
}
