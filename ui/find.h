/* Where the find puts the cursor in the list views that mark what it
 * matches (playlist, collections, rules): n and N, and the jump when a
 * find is typed or entered, as in cmus, vim and less. What a row matching
 * means is the pane's (struct ui_pane find_rows). */
#ifndef CRATE_UI_FIND_H
#define CRATE_UI_FIND_H

#include <stdbool.h>
#include <stddef.h>

struct ui;

/* / pressed (or the cursor moved in the bar): the find starts here. */
void ui_find_begin(struct ui *ui);
/* The find's text changed while typed: the cursor goes to the first match
 * at or after where the find started, back there when none matches. */
void ui_find_typed(struct ui *ui);
/* Enter: as typed, and the message line says when it wrapped to the top
 * or matched nothing. */
void ui_find_entered(struct ui *ui);
/* n (dir 1) and N (-1): the next or previous match, wrapping, saying so.
 * False when the view has no such find. */
bool ui_find_step(struct ui *ui, int dir);
/* The search bar's right end in those views: how many rows match. */
void ui_find_count(struct ui *ui, char *buf, size_t size);

#endif
