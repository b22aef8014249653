/* Text for the screen: sanitising, fitting into columns, time formats.
 * Pure code (no curses), measured with base/utf8.h so that wide (CJK) and
 * combining characters are counted right in any locale. */
#ifndef CRATE_UI_TEXT_H
#define CRATE_UI_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Sanitise s (untrusted: tags, file names) and fit it into cols columns.
 * When it is too wide it is cut at a character boundary and ends in "…"
 * (or "~" when ascii_only). Returns an owned string; *width gets its
 * columns (may be NULL). cols == 0 gives "". */
char *ui_text_fit(const char *s, size_t cols, int ascii_only, size_t *width);
/* Same, right-padded with spaces to exactly cols columns. Owned. */
char *ui_text_fit_pad(const char *s, size_t cols, int ascii_only);
/* Columns of an already-sanitised string. */
size_t ui_text_width(const char *s);
/* The last path component of a url/path (for tracks without a title).
 * Borrowed pointer into s. */
const char *ui_text_basename(const char *s);
/* "3:05", "1:02:03", "46h57m" from 10 h (never wider than 7 cells);
 * negative -> "-:--". Returns buf. */
const char *ui_fmt_time(int64_t ms, char *buf, size_t size);
/* Filled cells of a width-cell progress bar at pos of total. */
size_t ui_progress_cells(int64_t pos, int64_t total, size_t width);
/* Column in cells where a 1-based character position falls in s (for
 * placing a caret under a parse error): the width of the first pos-1
 * characters. */
size_t ui_text_col_of_char(const char *s, int pos);

#endif
