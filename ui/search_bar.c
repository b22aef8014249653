/* The search bar (search_bar.h). Every keystroke re-parses the query with
 * the collection parser (ui_search_apply): a good query re-evaluates the view at once; an incomplete one
 * (`a:`, `x AND`) shows a quiet hint; a malformed one shows the error with
 * its column marked, and the last good results stay on screen. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "ui/cmdline.h"
#include "ui/draw.h"
#include "ui/find.h"
#include "ui/pane.h"
#include "ui/search_bar.h"
#include "ui/text.h"
#include "ui/ui_state.h"

/* Byte offset of the code point before/after off. */
static size_t cp_prev(const char *s, size_t off)
{
	while (off > 0 && ((unsigned char)s[--off] & 0xc0) == 0x80)
		;
	return off;
}

static size_t cp_next(const char *s, size_t len, size_t off)
{
	if (off >= len)
		return len;
	uint32_t cp;
	return off + utf8_decode(s + off, len - off, &cp);
}

static void sb_erase(struct strbuf *b, size_t from, size_t to)
{
	memmove(b->buf + from, b->buf + to, b->len - to + 1);
	b->len -= to - from;
}

bool edit_key(struct strbuf *b, size_t *cur, int key)
{
	if (!b->buf)
		strbuf_init(b, 64);
	switch (key) {
	case KEY_C_BACKSPACE:
	case 8:
		if (*cur > 0) {
			size_t p = cp_prev(b->buf, *cur);
			sb_erase(b, p, *cur);
			*cur = p;
		}
		return true;
	case KEY_C_DELETE:
	case 4: /* C-d */
		if (*cur < b->len)
			sb_erase(b, *cur, cp_next(b->buf, b->len, *cur));
		return true;
	case KEY_C_LEFT:
	case 2: /* C-b */
		*cur = cp_prev(b->buf, *cur);
		return true;
	case KEY_C_RIGHT:
	case 6: /* C-f */
		*cur = cp_next(b->buf, b->len, *cur);
		return true;
	case KEY_C_HOME:
	case 1: /* C-a */
		*cur = 0;
		return true;
	case KEY_C_END:
	case 5: /* C-e */
		*cur = b->len;
		return true;
	case 21: /* C-u */
		sb_erase(b, 0, *cur);
		*cur = 0;
		return true;
	case 11: /* C-k */
		b->len = *cur;
		b->buf[b->len] = '\0';
		return true;
	case 23: { /* C-w: the word before the cursor */
		size_t p = *cur;
		while (p > 0 && b->buf[p - 1] == ' ')
			p--;
		while (p > 0 && b->buf[p - 1] != ' ')
			p--;
		sb_erase(b, p, *cur);
		*cur = p;
		return true;
	}
	default:
		break;
	}
	if (key >= ' ' && key < 0x110000 && key != 0x7f && !utf8_is_control((uint32_t)key)) {
		char enc[4];
		size_t n = utf8_encode((uint32_t)key, enc);
		if (b->len + n > 4000) /* the control socket's limit; plenty for a query */
			return true;
		strbuf_add(b, enc, n); /* grow, then move the tail right */
		memmove(b->buf + *cur + n, b->buf + *cur, b->len - n - *cur);
		memcpy(b->buf + *cur, enc, n);
		b->buf[b->len] = '\0';
		*cur += n;
		return true;
	}
	return false;
}

void search_flush(struct ui *ui)
{
	if (!ui->search_pending)
		return;
	ui_search_apply(ui);
	if (ui->mode == UI_MODE_SEARCH)
		ui_find_typed(ui); /* cmus's incremental search: the cursor follows the typing */
}

void search_begin(struct ui *ui)
{
	if (!ui->query.buf)
		strbuf_init(&ui->query, 64);
	ui->qcur = ui->query.len;
	ui->mode = UI_MODE_SEARCH;
	ui->dirty = true;
	ui_find_begin(ui);
}

void search_clear(struct ui *ui)
{
	if (!ui->query.buf)
		strbuf_init(&ui->query, 64);
	strbuf_reset(&ui->query);
	ui->qcur = 0;
	ui_search_apply(ui);
}

bool search_key(struct ui *ui, int key)
{
	if (cmdline_search_history_key(ui, key))
		return true;
	bool moves = key == KEY_C_UP || key == KEY_C_DOWN || key == KEY_C_PGUP ||
		     key == KEY_C_PGDN || key == KEY_C_TAB || key == KEY_C_BTAB;
	if (key == KEY_C_ENTER || key == KEY_C_ESC || moves)
		search_flush(ui); /* these act on the results: bring them up to date */
	if (key == KEY_C_ENTER) {
		ui->mode = UI_MODE_NORMAL;
		cmdline_search_entered(ui);
		ui_find_entered(ui);
		return true;
	}
	if (key == KEY_C_ESC) {
		/* Leave the bar; a query that does not parse is dropped back to the good one. */
		ui->mode = UI_MODE_NORMAL;
		if (ui->qerr.code) {
			strbuf_reset(&ui->query);
			strbuf_adds(&ui->query, ui->good_query ? ui->good_query : "");
			ui->qcur = ui->query.len;
			crate_err_clear(&ui->qerr);
		}
		return true;
	}
	if (moves) {
		/* Move in the results without leaving the bar: Tab and S-Tab
		 * change column as they do outside it. */
		enum ui_action a = key == KEY_C_UP ? UA_UP : key == KEY_C_DOWN ? UA_DOWN
				 : key == KEY_C_PGUP ? UA_PAGE_UP : key == KEY_C_PGDN ? UA_PAGE_DOWN
				 : key == KEY_C_TAB ? UA_COL_NEXT : UA_COL_PREV;
		const struct ui_pane *p = ui_pane_current(ui);
		if (p->key)
			p->key(ui, a);
		ui_find_begin(ui); /* the find goes on from where the cursor was moved to */
		return true;
	}
	size_t before = ui->query.len;
	char *old = xstrdup(ui->query.buf ? ui->query.buf : "");
	bool handled = edit_key(&ui->query, &ui->qcur, key);
	/* Typing evaluates once per batch of keys read together (a paste, fast
	 * typing), not once per key: ui.c calls search_flush after reading. */
	if (handled && (ui->query.len != before || strcmp(old, ui->query.buf) != 0)) {
		ui->search_pending = true;
		ui->dirty = true;
	}
	free(old);
	return handled;
}

void sb_window(const char *qs, int room, size_t want, bool has_err, size_t errcol,
	       struct sb_window *w)
{
	size_t len = strlen(qs), qw = ui_text_width(qs);
	memset(w, 0, sizeof *w);
	if (room <= 0)
		return;
	if (qw < (size_t)room || room < 4) { /* fits (with the cursor after it), or no room to scroll */
		w->width = room;
		w->bytes = utf8_prefix_fitting(qs, len, (size_t)room, &w->shown);
		w->right = false;
		return;
	}
	/* Scrolling: one column for each marker. The character under the
	 * cursor shows whole: a wide one needs its second column in view. */
	size_t inner = (size_t)room - 2, start = 0, at_want, cw = 1;
	size_t at = utf8_prefix_fitting(qs, len, want, &at_want);
	if (at_want == want && at < len) {
		uint32_t cp;
		utf8_decode(qs + at, len - at, &cp);
		cw = utf8_cp_width(cp) > 1 ? (size_t)utf8_cp_width(cp) : 1;
	}
	if (want + cw > inner)
		start = want + cw - inner;
	/* The error's column too, when it fits beside the cursor. */
	if (has_err && errcol < start && want - errcol < inner)
		start = errcol;
	if (start == 1)
		start = 0; /* the left marker would hide as much as it shows */
	size_t got = 0;
	w->off = start ? utf8_prefix_fitting(qs, len, start, &got) : 0;
	if (start && got < start) { /* a wide character across the edge: skip it whole */
		uint32_t cp;
		w->off += utf8_decode(qs + w->off, len - w->off, &cp);
		got = utf8_width(qs, w->off);
	}
	w->skip = got;
	w->left = w->off > 0;
	w->width = room - (w->left ? 1 : 0) - 1; /* the right marker's column is always kept */
	w->bytes = utf8_prefix_fitting(qs + w->off, len - w->off, (size_t)w->width, &w->shown);
	w->right = w->off + w->bytes < len;
}

void search_draw(struct ui *ui)
{
	const struct ui_rect *r = &ui->L.search;
	if (!r->w)
		return;
	const char *q = ui->query.buf ? ui->query.buf : "";
	bool editing = ui->mode == UI_MODE_SEARCH;
	draw_fill(r->y, r->x, r->w, 0);
	const struct ui_pane *pane = ui_pane_current(ui);
	const char *label = pane->find_label ? pane->find_label : "";
	int lw = (int)strlen(label);
	draw_text(ui, r->y, r->x, lw, label, A_BOLD);

	/* Right side: the error, the hint or the number of results. */
	char info[700];
	int iattr = theme_attr(UR_HINT);
	if (ui->qerr.code == CRATE_ERR_INCOMPLETE) {
		/* Not "…" (it reads as cut text): say the query goes on. */
		snprintf(info, sizeof info, "keep typing: %s", ui->qerr.msg);
	} else if (ui->qerr.code) {
		snprintf(info, sizeof info, "error: %s", ui->qerr.msg);
		iattr = theme_attr(UR_ERROR);
	} else if (pane->find_info) {
		pane->find_info(ui, info, sizeof info);
	} else {
		info[0] = '\0';
	}
	char *qs = utf8_sanitize(q, strlen(q));
	int qw = (int)ui_text_width(qs);
	int avail = r->w - lw;
	int iw = (int)ui_text_width(info) + 2;
	if (iw > avail - qw - 1)
		iw = avail - qw - 1 > avail / 2 ? avail - qw - 1 : avail / 2;
	if (iw < 0 || r->w < 30)
		iw = ui->qerr.code && ui->qerr.code != CRATE_ERR_INCOMPLETE && r->w >= 16 ? avail / 2 : 0;
	int qavail = avail - iw;

	/* A query wider than its room scrolls: the cursor (and the error's
	 * column) stay in view, and a marker at each end says text is cut
	 * there. */
	size_t curcol = ui_text_col_of_char(qs, (int)utf8_count(q, ui->qcur) + 1);
	bool has_err = ui->qerr.code == CRATE_ERR_PARSE && ui->qerr.pos > 0;
	size_t errcol = has_err ? ui_text_col_of_char(qs, ui->qerr.pos) : 0;
	struct sb_window win;
	sb_window(qs, qavail, editing ? curcol : has_err ? errcol : curcol, has_err, errcol, &win);
	int tx = r->x + lw + (win.left ? 1 : 0);
	char *vis = xstrndup(qs + win.off, win.bytes);
	draw_text(ui, r->y, tx, win.width, vis, editing ? A_BOLD : 0);
	free(vis);
	const char *lm = ui->ascii ? "<" : "\xe2\x80\xb9", *rm = ui->ascii ? ">" : "\xe2\x80\xba";
	if (win.left)
		draw_text(ui, r->y, r->x + lw, 1, lm, theme_attr(UR_HINT) | A_BOLD);
	if (win.right)
		draw_text(ui, r->y, tx + win.width, 1, rm, theme_attr(UR_HINT) | A_BOLD);
	size_t got = win.skip;

	/* Mark the error position. */
	if (has_err) {
		size_t col = errcol;
		if (col >= got && (int)(col - got) < win.width) {
			const char *p = qs;
			size_t len = strlen(qs), pos = 0;
			for (int i = 1; i < ui->qerr.pos && pos < len; i++) {
				uint32_t cp;
				pos += utf8_decode(p + pos, len - pos, &cp);
			}
			char ch[8] = " ";
			if (pos < len) {
				uint32_t cp;
				size_t n = utf8_decode(p + pos, len - pos, &cp);
				memcpy(ch, p + pos, n);
				ch[n] = '\0';
			}
			int cw = (int)ui_text_width(ch);
			draw_text(ui, r->y, tx + (int)(col - got), cw ? cw : 1, ch,
				  theme_attr(UR_ERROR) | A_REVERSE);
		}
	}
	if (iw > 0)
		draw_text_right(ui, r->y, r->x + r->w - iw, iw, info, iattr);
	free(qs);
	if (editing) {
		int cx = tx + (int)(curcol - got);
		if (cx >= r->x + r->w)
			cx = r->x + r->w - 1;
		ui->cur_y = r->y;
		ui->cur_x = cx;
	}
}
