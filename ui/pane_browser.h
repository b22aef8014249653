/* View 1: the library browser (pane_browser.c): group columns by the
 * levels in effect (artist and album by default), then the tracks, of the
 * browsed collection AND the search. */
#ifndef CRATE_UI_PANE_BROWSER_H
#define CRATE_UI_PANE_BROWSER_H

#include <stdbool.h>
#include <stdint.h>

struct ui;

extern const struct ui_pane ui_pane_browser;
/* Before anything that may replace the index: copy the selection's texts
 * (they are borrowed from the index). _drop frees the copies. */
void browser_keep_selection(struct ui *ui);
void browser_keep_selection_drop(struct ui *ui);
/* The index was replaced (after a scan, or a change by someone else):
 * rebuild from it, keeping the search, the selected groups and
 * the track under the cursor when they still exist (saved by
 * browser_keep_selection; without it the selection falls back to All). */
void browser_index_changed(struct ui *ui);
/* Select media id in the columns (its groups where the current
 * selections do not show it) and focus the track column; false when the
 * results (the browsed collection AND the search) do not hold it. */
bool browser_reveal(struct ui *ui, uint32_t id);

#endif
