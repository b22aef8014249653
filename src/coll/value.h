/* How filter values are read (spec/collections.md, "Comparison";
 * spec/query-syntax.md). Shared by the parser (to validate '<' operands) and
 * the evaluator (to compare). */
#ifndef CRATE_COLL_VALUE_H
#define CRATE_COLL_VALUE_H

#include <stdbool.h>
#include <stdint.h>

enum coll_value_kind {
	COLL_VALUE_NUMBER, /* -12, 3.5 */
	COLL_VALUE_AGE,    /* 7d, 3mo, 2y, 90s, 5m, 12h, 1w: seconds before now */
	COLL_VALUE_DATE,   /* 2024-05-01, 2024-05, 2024 is a NUMBER; as a date for time fields */
	COLL_VALUE_STRING, /* anything else: natural order */
};

struct coll_value {
	enum coll_value_kind kind;
	double number;   /* NUMBER */
	int64_t seconds; /* AGE: length in seconds; DATE: Unix time of local midnight */
	/* DATE: Unix time where the named period ends (exclusive): the next
	 * day for 2024-05-01, the next month for 2024-05. */
	int64_t seconds_end;
};

/* Classify a filter value. Never fails: unknown shapes are strings.
 * Ages: a positive integer and a unit (s, m = minutes, h, d, w, mo = 30
 * days, y = 365 days). Dates: YYYY-MM-DD or YYYY-MM with a valid month/day. */
void coll_value_read(const char *text, struct coll_value *out);
/* True for properties holding Unix seconds (added, lastplayed, mtime), where
 * an AGE or a DATE (and a bare year) compare as moments. */
bool coll_value_is_time_field(const char *field);
/* The local-time period [*start, *end) of a bare year (1000..9999) used on
 * a time field; false when number is not such a year. */
bool coll_value_year_period(double number, int64_t *start, int64_t *end);
/* True for properties holding a length in milliseconds (duration), where
 * a value written as a length (coll_value_length_ms) compares as one. */
bool coll_value_is_length_field(const char *field);
/* A length written with a unit (90s, 5m, 1.5h) or as a clock (3:30,
 * 1:02:03), in milliseconds; false for anything else (a bare number). */
bool coll_value_length_ms(const char *text, double *ms);
/* Whether lo..hi is a range of field whose ends, both numbers, both ages,
 * both dates or (on a length field) both lengths, are the wrong way round
 * (1999..1990, 7d..1d, 5:00..3:00): one nothing can be in. */
bool coll_value_range_reversed(const char *field, const char *lo, const char *hi);

#endif
