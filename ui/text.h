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
/* Breaking sanitised s (len bytes) into rows of at most cols columns
 * (cols >= 1): the byte length of its first row, cut after the last
 * space that fits, else after as many characters as fit (one at least,
 * with its combining marks); *next gets where the next row starts, the
 * spaces at the break skipped. */
size_t ui_text_wrap_row(const char *s, size_t len, size_t cols, size_t *next);
/* One row of a wrapped line: bytes [off, off+len) of it, drawn indent
 * columns in. */
struct ui_text_row {
	size_t off, len;
	int indent;
};
/* Sanitised s wrapped to width columns (width >= 1): its rows, the first
 * max of them stored in rows (may be NULL when max is 0); returns how many
 * there are. A continuation hangs under a table's last column in the
 * first row (after a run of two spaces, as in ':help coll') when that
 * leaves the text a third of the row, else two columns in from the line's
 * own indent, at most half the row. "" is one empty row. */
size_t ui_text_wrap(const char *s, int width, struct ui_text_row *rows, size_t max);
/* Columns of an already-sanitised string. */
size_t ui_text_width(const char *s);
/* The name of a url/path for a track without a title (str_path_name:
 * "http://host:8000/" is "host:8000") in buf; returns buf. */
const char *ui_text_basename(const char *s, char *buf, size_t size);
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
