/* Format strings for library items: one engine for `crate search --format`,
 * `crate list --format` and the interface's rows (format.* options).
 *
 *   %title%            a property (multi-values joined by the separator)
 *   %%                 a percent sign; %: and %} are ':' and '}' in a
 *                      conditional's then-part
 *   %{a|b|c}           the first of a, b, c the item has
 *   %{title:20}        padded or cut to 20 cells (left-aligned);
 *   %{duration:>7}     right-aligned (numbers are padded, never cut)
 *   %{?p?THEN}         THEN when the item has p; %{?p?THEN:ELSE}
 *   %{?p>=4?THEN}      comparisons = != < <= > >= (numbers, or text for =, !=)
 *   %=                 what follows is the right-aligned half of a row
 *
 * duration is shown as m:ss (h:mm:ss from an hour). Unknown properties are
 * simply absent. Parsing is separate from rendering so that a row of the
 * interface costs one render, and values come through a callback so that
 * this engine knows neither the index nor curses beyond one adapter. */
#ifndef CRATE_MEDIALIB_ITEM_FORMAT_H
#define CRATE_MEDIALIB_ITEM_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/str.h"

struct mlib_index;
struct item_format;

/* What a value callback found: absent, text, an integer (decimal text, padded
 * but never cut) or a duration (milliseconds as decimal text, shown m:ss). */
enum item_value { ITEM_ABSENT, ITEM_TEXT, ITEM_NUMBER, ITEM_DURATION };

/* Append the value of property name to out; its kind, or ITEM_ABSENT (then
 * out is left as it was). */
typedef enum item_value (*item_format_get)(void *ud, const char *name, struct strbuf *out);

/* Compile text. 0, or -1 with err (CRATE_ERR_PARSE, err->pos the 1-based
 * column in characters). *out is owned by the caller (item_format_free). */
int item_format_parse(const char *text, struct item_format **out, struct crate_err *err);
void item_format_free(struct item_format *f);
/* Whether text parses, with the error as "column N: ..." in why (for the
 * option table: config load and `:set`). */
bool item_format_check(const char *text, char *why, size_t whysize);
/* Whether f has a %= (a right-aligned half). */
bool item_format_has_right(const struct item_format *f);

/* Render f for one item: the left half into left, the right half (after %=)
 * into right, or into left too when right is NULL. Values are sanitised
 * (control characters replaced) before they are measured, so the output
 * is terminal-safe and its widths are right. */
void item_format_render(const struct item_format *f, item_format_get get, void *ud,
			struct strbuf *left, struct strbuf *right);

/* "3:07", "1:02:03", "46h57m" from 10 hours (at most 7 cells up to 999
 * hours, then ">999h"); negative gives "-:--". Returns buf. */
const char *item_format_duration(int64_t ms, char *buf, size_t size);

/* The values of an index item: every property, plus %id%, %stars% (a star
 * per point of rating), %duration_ms% (duration as a number) and, for a
 * missing title, the file name. */
struct item_format_item {
	const struct mlib_index *idx;
	uint32_t id;
	const char *sep; /* between multi-values; NULL: MLIB_VALUE_SEPARATOR */
};
enum item_value item_format_index_get(void *ud, const char *name, struct strbuf *out);

#endif
