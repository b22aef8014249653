/* View 2: a playlist (pane_playlist.c). */
#ifndef CRATE_UI_PANE_PLAYLIST_H
#define CRATE_UI_PANE_PLAYLIST_H

struct ui;

extern const struct ui_pane ui_pane_playlist;
/* Mark the rows matching the search (its find; ui.c calls it again when
 * the library changed). */
void playlist_find(struct ui *ui);

#endif
