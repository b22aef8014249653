/* Drawing helpers every pane uses: clipped, sanitised output and list
 * scrolling (draw.c). */
#ifndef CRATE_UI_DRAW_H
#define CRATE_UI_DRAW_H

#include "ui/ui_state.h"

void draw_text(struct ui *ui, int y, int x, int w, const char *s, int attr);
/* Text right-aligned in [x, x+w); returns the columns used. */
int draw_text_right(struct ui *ui, int y, int x, int w, const char *s, int attr);
void draw_fill(int y, int x, int w, int attr);
/* s wrapped to w columns (ui_text_wrap) from column 0, its last row on row
 * y and the others above it, max_rows at most (the last one shown then
 * holds the rest, cut with its mark). Returns the rows used. */
int draw_text_up(struct ui *ui, int y, int w, int max_rows, const char *s, int attr);
/* A formatted row (ui/rows.h): left in [x, x+w) cut before right, which
 * ends at x+w (right NULL or "" : left has the whole width; a right half
 * that leaves the left no cell is dropped). */
void draw_halves(struct ui *ui, int y, int x, int w, const char *left, const char *right,
		 int attr);
/* Scroll a list so cur is visible in height rows. */
void ui_list_fix(struct ui_list *l, size_t n, int height);
/* Apply a movement action to a list of n rows shown in height rows;
 * returns true when the cursor moved. */
bool ui_list_move(struct ui_list *l, size_t n, int height, enum ui_action a);

#endif
