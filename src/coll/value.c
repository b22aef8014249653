#include "coll/value.h"

#include <string.h>
#include <time.h>

#include "base/seekarg.h"
#include "base/str.h"

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int64_t local_midnight(int year, int month, int day)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = year - 1900;
	tm.tm_mon = month - 1;
	tm.tm_mday = day;
	tm.tm_isdst = -1; /* let mktime decide: the moment is local wall time */
	return (int64_t)mktime(&tm);
}

static int days_in_month(int year, int month)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	return month == 2 && leap ? 29 : days[month - 1];
}

static int parse_2(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

/* YYYY-MM or YYYY-MM-DD. */
static bool read_date(const char *s, size_t n, struct coll_value *out)
{
	if ((n != 7 && n != 10) || !all_digits(s, 4) || s[4] != '-' || !all_digits(s + 5, 2))
		return false;
	int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + parse_2(s + 2);
	int month = parse_2(s + 5);
	if (month < 1 || month > 12)
		return false;
	if (n == 7) {
		out->seconds = local_midnight(year, month, 1);
		out->seconds_end = month == 12 ? local_midnight(year + 1, 1, 1)
					       : local_midnight(year, month + 1, 1);
		return true;
	}
	if (s[7] != '-' || !all_digits(s + 8, 2))
		return false;
	int day = parse_2(s + 8);
	if (day < 1 || day > days_in_month(year, month))
		return false;
	out->seconds = local_midnight(year, month, day);
	/* mktime normalises day+1 past the month's end. */
	out->seconds_end = local_midnight(year, month, day + 1);
	return true;
}

static bool read_age(const char *s, size_t n, struct coll_value *out)
{
	size_t d = 0;
	while (d < n && s[d] >= '0' && s[d] <= '9')
		d++;
	if (d == 0 || d > 12)
		return false;
	const char *unit = s + d;
	static const struct {
		const char *name;
		int64_t secs;
	} units[] = {
		{ "s", 1 }, { "m", 60 }, { "h", 3600 }, { "d", 86400 }, { "w", 7 * 86400 },
		{ "mo", 30 * 86400 }, { "y", 365 * 86400 },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(unit, units[i].name) == 0) {
			int64_t v = 0;
			for (size_t k = 0; k < d; k++)
				v = v * 10 + (s[k] - '0');
			/* 12 digits of years overflow: older than anything, the
			 * comparisons saturate from there */
			out->seconds = v > INT64_MAX / units[i].secs ? INT64_MAX : v * units[i].secs;
			return true;
		}
	}
	return false;
}

void coll_value_read(const char *text, struct coll_value *out)
{
	memset(out, 0, sizeof *out);
	size_t n = strlen(text);
	if (str_parse_number(text, n, &out->number)) {
		out->kind = COLL_VALUE_NUMBER;
	} else if (read_age(text, n, out)) {
		out->kind = COLL_VALUE_AGE;
	} else if (read_date(text, n, out)) {
		out->kind = COLL_VALUE_DATE;
	} else {
		out->kind = COLL_VALUE_STRING;
	}
}

bool coll_value_is_time_field(const char *field)
{
	return strcmp(field, "added") == 0 || strcmp(field, "lastplayed") == 0 ||
	       strcmp(field, "mtime") == 0;
}

bool coll_value_is_length_field(const char *field)
{
	return strcmp(field, "duration") == 0;
}

bool coll_value_length_ms(const char *text, double *ms)
{
	size_t n = strlen(text);
	/* A clock (3:30, 1:02:03) is read as :seek reads one; a bare number
	 * is not a length here (milliseconds, as crate info shows them). */
	struct seekarg clock;
	struct crate_err err = {0};
	if (strchr(text, ':') && seekarg_parse(text, &clock, &err) == 0 &&
	    clock.kind == SEEKARG_ABS) {
		*ms = (double)clock.ms;
		return true;
	}
	static const struct {
		char unit;
		double secs;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}};
	double v;
	for (size_t i = 0; n > 1 && i < sizeof units / sizeof units[0]; i++) {
		if (text[n - 1] == units[i].unit && str_parse_number(text, n - 1, &v) && v >= 0) {
			*ms = v * units[i].secs * 1000;
			return true;
		}
	}
	return false;
}

bool coll_value_year_period(double number, int64_t *start, int64_t *end)
{
	if (number < 1000 || number > 9999 || number != (double)(int)number)
		return false;
	*start = local_midnight((int)number, 1, 1);
	*end = local_midnight((int)number + 1, 1, 1);
	return true;
}

/* What an end of a range stands for, when it is of the kind given. */
static bool range_end(const struct coll_value *cv, enum coll_value_kind kind, double *out)
{
	if (cv->kind != kind || kind == COLL_VALUE_STRING)
		return false;
	*out = kind == COLL_VALUE_NUMBER ? cv->number : (double)cv->seconds;
	return true;
}

bool coll_value_range_reversed(const char *field, const char *lo, const char *hi)
{
	double x, y;
	if (coll_value_is_length_field(field) && coll_value_length_ms(lo, &x) &&
	    coll_value_length_ms(hi, &y))
		return x > y;
	struct coll_value a, b;
	coll_value_read(lo, &a);
	coll_value_read(hi, &b);
	return range_end(&a, a.kind, &x) && range_end(&b, a.kind, &y) && x > y;
}
