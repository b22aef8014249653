/* The find's cursor (find.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ui/draw.h"
#include "ui/find.h"
#include "ui/keymap.h"
#include "ui/pane.h"
#include "ui/ui_state.h"

/* The current view's rows, when it has a find that marks them. */
static bool rows_of(struct ui *ui, struct ui_find_rows *f)
{
	const struct ui_pane *p = ui_pane_current(ui);
	memset(f, 0, sizeof *f);
	return p->find_rows && p->find_rows(ui, f) && f->n > 0;
}

/* The first matching row from row from in direction dir, passing over
 * skip rows first (0: from itself may be it), wrapping once round;
 * SIZE_MAX when none matches. *wrapped: it went past the end (or the
 * start, going up). */
static size_t scan(struct ui *ui, const struct ui_find_rows *f, size_t from, int dir, size_t skip,
		   bool *wrapped)
{
	for (size_t k = skip; k < f->n + skip; k++) {
		size_t i = dir > 0 ? (from + k) % f->n : (from + f->n - k % f->n) % f->n;
		if (f->match(ui, i, f->ctx)) {
			*wrapped = dir > 0 ? from + k >= f->n : k > from;
			return i;
		}
	}
	return SIZE_MAX;
}

static void put_cursor(const struct ui_find_rows *f, size_t i)
{
	f->list->cur = i;
	ui_list_fix(f->list, f->n, f->height);
}

static bool finding(const struct ui *ui)
{
	return ui->good_query && ui->good_query[0] && !ui->qerr.code;
}

void ui_find_begin(struct ui *ui)
{
	struct ui_find_rows f;
	ui->find_origin = rows_of(ui, &f) ? f.list->cur : 0;
}

/* The first match at or after the origin; the cursor back at the origin
 * when there is none. Returns the row, SIZE_MAX for none. */
static size_t jump(struct ui *ui, const struct ui_find_rows *f, bool *wrapped)
{
	size_t from = ui->find_origin < f->n ? ui->find_origin : 0;
	size_t i = finding(ui) ? scan(ui, f, from, 1, 0, wrapped) : SIZE_MAX;
	put_cursor(f, i != SIZE_MAX ? i : from);
	ui->dirty = true;
	return i;
}

void ui_find_typed(struct ui *ui)
{
	struct ui_find_rows f;
	bool wrapped = false;
	if (rows_of(ui, &f) && !ui->qerr.code) /* a query being typed keeps the cursor */
		jump(ui, &f, &wrapped);
}

static void say_none(struct ui *ui)
{
	ui_message(ui, true, "no match for %s: the cursor stays", ui->good_query);
}

void ui_find_entered(struct ui *ui)
{
	struct ui_find_rows f;
	bool wrapped = false;
	if (!rows_of(ui, &f) || !finding(ui))
		return;
	if (jump(ui, &f, &wrapped) == SIZE_MAX)
		say_none(ui);
	else if (wrapped)
		ui_message(ui, false, "find wrapped to the top");
}

/* n or N with no find to step through: it did nothing, without a word. */
static void say_no_find(struct ui *ui)
{
	char say[200];
	if (ui->qerr.code) /* the bar shows the query, unfinished or wrong */
		keymap_expand(&ui->km, "the find is not a query yet: {search} to finish it", false,
			      say, sizeof say);
	else
		keymap_expand(&ui->km, "no find to step through: {search} finds", false, say,
			      sizeof say);
	ui_message(ui, false, "%s", say);
}

bool ui_find_step(struct ui *ui, int dir)
{
	struct ui_find_rows f;
	const struct ui_pane *p = ui_pane_current(ui);
	if (!p->find_rows)
		return false;
	if (!finding(ui)) {
		say_no_find(ui);
		return true;
	}
	if (!rows_of(ui, &f))
		return true;
	bool wrapped = false;
	size_t i = scan(ui, &f, f.list->cur < f.n ? f.list->cur : 0, dir, 1, &wrapped);
	if (i == SIZE_MAX) {
		say_none(ui);
		return true;
	}
	put_cursor(&f, i);
	if (wrapped)
		ui_message(ui, false, "find wrapped to the %s", dir > 0 ? "top" : "bottom");
	ui->dirty = true;
	return true;
}

void ui_find_count(struct ui *ui, char *buf, size_t size)
{
	struct ui_find_rows f;
	buf[0] = '\0';
	if (!rows_of(ui, &f) || !finding(ui))
		return;
	size_t n = 0;
	for (size_t i = 0; i < f.n; i++)
		n += f.match(ui, i, f.ctx);
	if (n)
		snprintf(buf, size, "%zu %s", n, str_plural(n, "match", "matches"));
	else
		snprintf(buf, size, "no match");
}
