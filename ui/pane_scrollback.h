/* The scrollback pane: a command's whole output (':info 3', ':rule list',
 * ':help coll'), shown over the main area until dismissed. Up/Down, j/k,
 * PgUp/PgDn, Home/End (g/G) scroll; q or Esc closes; any other key closes
 * it and then does what it always does. */
#ifndef CRATE_UI_PANE_SCROLLBACK_H
#define CRATE_UI_PANE_SCROLLBACK_H

#include <stdbool.h>
#include <stddef.h>

struct ui;
struct ui_rect;
struct ui_scrollback;

/* Show text (len bytes; lines split at '\n', untrusted: sanitised when
 * drawn) under title; *sb is created on first use. Replaces what was shown. */
void scrollback_show(struct ui_scrollback **sb, const char *title, const char *text, size_t len);
bool scrollback_is_open(const struct ui_scrollback *sb);
size_t scrollback_lines(const struct ui_scrollback *sb);
/* The first row shown (0-based): a line, until a draw wraps them. */
size_t scrollback_top(const struct ui_scrollback *sb);
/* A key while open (rows: the lines the pane shows): true when the pane
 * used it; false when closed or when the key closed it and is the
 * caller's to act on. */
bool scrollback_key(struct ui_scrollback *sb, int key, int rows);
/* Draw into r when open (a title row, then the lines, each wrapped to
 * r's width: a continuation hangs under a table's last column); false
 * when closed. */
bool scrollback_draw(struct ui *ui, struct ui_scrollback *sb, const struct ui_rect *r);
void scrollback_free(struct ui_scrollback *sb);

#endif
