/* The search bar over every view but the help (search_bar.c): editing,
 * drawing, and when the text is applied. What a search means in a view
 * is its pane's (struct ui_pane: find, find_list, find_label, find_info). */
#ifndef CRATE_UI_SEARCH_BAR_H
#define CRATE_UI_SEARCH_BAR_H

#include <stdbool.h>
#include <stddef.h>

struct ui;
struct strbuf;

void search_begin(struct ui *ui);
bool search_key(struct ui *ui, int key);    /* in UI_MODE_SEARCH */
void search_draw(struct ui *ui);
void search_flush(struct ui *ui);           /* ui_search_apply if a change is pending */
void search_clear(struct ui *ui);
/* What of a query (sanitised text qs) shows in room columns: the part
 * from byte off (skip columns in), bytes long (shown columns) in width
 * columns, with left/right true where a marker says text is cut. want
 * is the column to keep in view (the cursor); the error's column is kept
 * too when both fit. Pure: unit-tested. */
struct sb_window {
	size_t off, bytes, skip, shown;
	int width;
	bool left, right;
};
void sb_window(const char *qs, int room, size_t want, bool has_err, size_t errcol,
	       struct sb_window *w);
/* Line editing shared with the command line. Returns true if handled. */
bool edit_key(struct strbuf *b, size_t *cur, int key);

#endif
