/* The status lines (pane_status.c): drawn under every view. */
#ifndef CRATE_UI_PANE_STATUS_H
#define CRATE_UI_PANE_STATUS_H

#include <stddef.h>

struct ui;

void status_draw(struct ui *ui);
/* The terminal title's text: "crate: \xe2\x96\xb6 Artist \xe2\x80\x93 Title", "crate" when stopped. */
void status_title(struct ui *ui, char *buf, size_t size);

#endif
