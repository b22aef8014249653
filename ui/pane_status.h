/* The status lines (pane_status.c): drawn under every view. */
#ifndef CRATE_UI_PANE_STATUS_H
#define CRATE_UI_PANE_STATUS_H

struct ui;

void status_draw(struct ui *ui);

#endif
