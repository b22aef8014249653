/* The scrollback pane (pane_scrollback.h). */
#include "ui/pane_scrollback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "base/utf8.h"
#include "ui/draw.h"
#include "ui/keymap.h"
#include "ui/text.h"
#include "ui/ui_state.h"

/* A line's piece on one screen row. */
struct sb_row {
	size_t line; /* in lines */
	struct ui_text_row piece;
};

struct ui_scrollback {
	char *title;  /* owned */
	char **lines; /* owned, n of them, sanitised */
	size_t n;
	/* The lines wrapped to width columns, as last drawn (width 0: not
	 * yet; a row per line). Owned, nrows of them. */
	struct sb_row *rows;
	size_t nrows;
	int width;
	size_t top;   /* first row shown */
	bool open;
};

static void clear_lines(struct ui_scrollback *sb)
{
	for (size_t i = 0; i < sb->n; i++)
		free(sb->lines[i]);
	free(sb->lines);
	free(sb->title);
	free(sb->rows);
	sb->lines = NULL;
	sb->title = NULL;
	sb->rows = NULL;
	sb->n = sb->top = sb->nrows = 0;
	sb->width = 0;
}

void scrollback_show(struct ui_scrollback **psb, const char *title, const char *text, size_t len)
{
	if (!*psb)
		*psb = xcalloc(1, sizeof **psb);
	struct ui_scrollback *sb = *psb;
	clear_lines(sb);
	sb->title = xstrdup(title);
	/* a trailing newline ends the last line; it starts no new one */
	if (len && text[len - 1] == '\n')
		len--;
	size_t cap = 16;
	sb->lines = xcalloc(cap, sizeof *sb->lines);
	for (size_t start = 0; start <= len;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		if (sb->n == cap) {
			cap *= 2;
			sb->lines = xreallocarray(sb->lines, cap, sizeof *sb->lines);
		}
		sb->lines[sb->n++] = utf8_sanitize(text + start, end - start);
		start = end + 1;
	}
	sb->open = true;
}

bool scrollback_is_open(const struct ui_scrollback *sb)
{
	return sb && sb->open;
}

size_t scrollback_lines(const struct ui_scrollback *sb)
{
	return sb ? sb->n : 0;
}

size_t scrollback_top(const struct ui_scrollback *sb)
{
	return sb ? sb->top : 0;
}

/* The rows the lines take: one each until they are wrapped. */
static size_t row_count(const struct ui_scrollback *sb)
{
	return sb->width ? sb->nrows : sb->n;
}

/* The first row shown at most: the last page fills the pane. */
static size_t max_top(const struct ui_scrollback *sb, int rows)
{
	size_t n = row_count(sb);
	return rows > 0 && n > (size_t)rows ? n - (size_t)rows : 0;
}

/* Wrap the lines to width columns (ui_text_wrap), keeping the line at
 * the top of the pane there. */
static void wrap(struct ui_scrollback *sb, int width)
{
	size_t top_line = sb->top < row_count(sb) ? (sb->width ? sb->rows[sb->top].line : sb->top) : 0;
	size_t cap = 0;
	struct ui_text_row *pieces = NULL;
	sb->nrows = 0;
	sb->width = width;
	sb->top = 0;
	for (size_t i = 0; i < sb->n; i++) {
		size_t k = ui_text_wrap(sb->lines[i], width, NULL, 0);
		pieces = xreallocarray(pieces, k, sizeof *pieces);
		ui_text_wrap(sb->lines[i], width, pieces, k);
		if (sb->nrows + k > cap) {
			cap = (sb->nrows + k) * 2;
			sb->rows = xreallocarray(sb->rows, cap, sizeof *sb->rows);
		}
		if (i == top_line)
			sb->top = sb->nrows;
		for (size_t j = 0; j < k; j++)
			sb->rows[sb->nrows++] = (struct sb_row){i, pieces[j]};
	}
	free(pieces);
}

bool scrollback_key(struct ui_scrollback *sb, int key, int rows)
{
	if (!scrollback_is_open(sb))
		return false;
	size_t page = rows > 1 ? (size_t)rows - 1 : 1, last = max_top(sb, rows);
	switch (key) {
	case KEY_C_UP:
	case 'k':
		sb->top -= sb->top > 0;
		break;
	case KEY_C_DOWN:
	case 'j':
		sb->top += sb->top < last;
		break;
	case KEY_C_PGUP:
		sb->top = sb->top > page ? sb->top - page : 0;
		break;
	case KEY_C_PGDN:
	case ' ':
		sb->top = sb->top + page < last ? sb->top + page : last;
		break;
	case KEY_C_HOME:
	case 'g':
		sb->top = 0;
		break;
	case KEY_C_END:
	case 'G':
		sb->top = last;
		break;
	case 'q':
	case KEY_C_ESC:
		sb->open = false;
		break;
	default:
		sb->open = false;
		return false;
	}
	return true;
}

bool scrollback_draw(struct ui *ui, struct ui_scrollback *sb, const struct ui_rect *r)
{
	if (!scrollback_is_open(sb))
		return false;
	int rows = r->h - 1;
	if (r->w > 0 && r->w != sb->width)
		wrap(sb, r->w);
	if (sb->top > max_top(sb, rows))
		sb->top = max_top(sb, rows);
	char head[600];
	size_t n = row_count(sb), shown_end = sb->top + (size_t)(rows > 0 ? rows : 0);
	snprintf(head, sizeof head, ":%s  lines %zu-%zu of %zu  (arrows/PgUp/PgDn scroll, q closes)",
		 sb->title, n ? sb->top + 1 : 0, shown_end < n ? shown_end : n, n);
	draw_text(ui, r->y, r->x, r->w, head, theme_attr(UR_HEADER));
	for (int row = 0; row < rows; row++) {
		size_t i = sb->top + (size_t)row;
		draw_fill(r->y + 1 + row, r->x, r->w, 0);
		if (i >= n)
			continue;
		const struct ui_text_row *p = &sb->rows[i].piece;
		char *piece = xstrndup(sb->lines[sb->rows[i].line] + p->off, p->len);
		draw_text(ui, r->y + 1 + row, r->x + p->indent, r->w - p->indent, piece, 0);
		free(piece);
	}
	return true;
}

void scrollback_free(struct ui_scrollback *sb)
{
	if (!sb)
		return;
	clear_lines(sb);
	free(sb);
}
