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
/* Line editing shared with the command line. Returns true if handled. */
bool edit_key(struct strbuf *b, size_t *cur, int key);

#endif
