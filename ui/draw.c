/* Drawing helpers: every string goes through ui_text_fit (sanitise + fit),
 * so nothing from a tag reaches the terminal raw and nothing is written
 * outside the rectangle it was given. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "ui/draw.h"
#include "ui/text.h"
#include "ui/ui_state.h"

/* In a non-UTF-8 locale every non-ASCII character becomes '?' per column. */
static char *to_ascii(const char *s)
{
	size_t len = strlen(s);
	char *out = xmalloc(len * 2 + 1), *o = out;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		i += utf8_decode(s + i, len - i, &cp);
		if (cp < 0x80) {
			*o++ = (char)cp;
			continue;
		}
		int w = utf8_cp_width(cp);
		for (int k = 0; k < w; k++)
			*o++ = '?';
	}
	*o = '\0';
	return out;
}

static void put(struct ui *ui, int y, int x, const char *s, int attr)
{
	attrset(attr);
	if (ui->ascii) {
		char *a = to_ascii(s);
		mvaddstr(y, x, a);
		free(a);
	} else {
		mvaddstr(y, x, s);
	}
	attrset(0);
}

void draw_text(struct ui *ui, int y, int x, int w, const char *s, int attr)
{
	if (w <= 0 || y < 0 || y >= ui->h || x < 0 || x >= ui->w)
		return;
	if (x + w > ui->w)
		w = ui->w - x;
	char *t = ui_text_fit_pad(s, (size_t)w, ui->ascii);
	put(ui, y, x, t, attr);
	free(t);
}

int draw_text_right(struct ui *ui, int y, int x, int w, const char *s, int attr)
{
	if (w <= 0 || y < 0 || y >= ui->h || x < 0 || x >= ui->w)
		return 0;
	if (x + w > ui->w)
		w = ui->w - x;
	size_t tw;
	char *t = ui_text_fit(s, (size_t)w, ui->ascii, &tw);
	put(ui, y, x + w - (int)tw, t, attr);
	free(t);
	return (int)tw;
}

void draw_halves(struct ui *ui, int y, int x, int w, const char *left, const char *right,
		 int attr)
{
	int rw = right && *right ? (int)ui_text_width(right) : 0;
	if (rw >= w)
		rw = 0;
	draw_text(ui, y, x, w - rw, left, attr);
	if (rw)
		draw_text(ui, y, x + w - rw, rw, right, attr);
}

int draw_text_up(struct ui *ui, int y, int w, int max_rows, const char *s, int attr)
{
	enum { MAX_ROWS = 12 };
	struct ui_text_row rows[MAX_ROWS];
	if (w <= 0 || max_rows <= 0)
		return 0;
	char *clean = utf8_sanitize(s, strlen(s));
	size_t max = max_rows < MAX_ROWS ? (size_t)max_rows : MAX_ROWS;
	size_t n = ui_text_wrap(clean, w, rows, max);
	size_t k = n < max ? n : max;
	for (size_t j = 0; j < k; j++) {
		int row = y - (int)(k - 1 - j);
		size_t len = j + 1 < k ? rows[j].len : strlen(clean) - rows[j].off;
		char *piece = xstrndup(clean + rows[j].off, len);
		draw_fill(row, 0, w, 0);
		draw_text(ui, row, rows[j].indent, w - rows[j].indent, piece, attr);
		free(piece);
	}
	free(clean);
	return (int)k;
}

void draw_fill(int y, int x, int w, int attr)
{
	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attrset(attr);
	mvhline(y, x, ' ', w);
	attrset(0);
}

void ui_list_fix(struct ui_list *l, size_t n, int height)
{
	if (n == 0) {
		l->cur = l->top = 0;
		return;
	}
	if (l->cur >= n)
		l->cur = n - 1;
	size_t hh = height > 0 ? (size_t)height : 1;
	if (l->cur < l->top)
		l->top = l->cur;
	if (l->cur >= l->top + hh)
		l->top = l->cur - hh + 1;
	if (l->top + hh > n)
		l->top = n > hh ? n - hh : 0;
}

bool ui_list_move(struct ui_list *l, size_t n, int height, enum ui_action a)
{
	size_t old = l->cur, page = height > 1 ? (size_t)height - 1 : 1;
	if (n == 0)
		return false;
	switch (a) {
	case UA_UP:
		if (l->cur > 0)
			l->cur--;
		break;
	case UA_DOWN:
		if (l->cur + 1 < n)
			l->cur++;
		break;
	case UA_PAGE_UP:
		l->cur = l->cur > page ? l->cur - page : 0;
		break;
	case UA_PAGE_DOWN:
		l->cur = l->cur + page < n ? l->cur + page : n - 1;
		break;
	case UA_TOP:
		l->cur = 0;
		break;
	case UA_BOTTOM:
		l->cur = n - 1;
		break;
	default:
		return false;
	}
	ui_list_fix(l, n, height);
	return l->cur != old || a == UA_TOP || a == UA_BOTTOM;
}
