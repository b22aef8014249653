/* Screen layout math: which panes fit and where (pure, unit-tested).
 *
 *   row 0          title bar: views, current collection    (height >= 10)
 *   rows ...       the view: [search bar] + panes
 *   row h-3        status: state, artist - title          (height >= 12)
 *   row h-2        status: time, progress bar, volume, modes
 *   row h-1        message / command line / search prompt
 *
 * Below 12 rows the status takes one row; below 10 the title bar goes;
 * the browser shows all its columns (group levels + tracks) from 20
 * cells a column (60 for the default two levels), else the focused one
 * and its neighbour from 36, else only the focused one; the collections
 * sidebar appears from 100 cells. */
#ifndef CRATE_UI_LAYOUT_H
#define CRATE_UI_LAYOUT_H

#include <stdbool.h>

struct ui_rect {
	int y, x, h, w; /* h or w == 0: not shown */
};

struct ui_layout_opts {
	int sidebar_pct;    /* [layout] sidebar, % of the width (0 = never) */
	int artist_pct;     /* [layout] first / further group columns %, the rest is tracks */
	int album_pct;
	int levels;         /* group columns before the tracks, 1..3 (0: 2) */
	bool search_bar;    /* a query is shown (or being typed) above the panes */
	int focus;          /* focused browser column 0..levels (which one stays when narrow) */
};

struct ui_layout {
	struct ui_rect title, search, main, sidebar, col[4], status1, status2, msg;
	int ncols;          /* browser columns shown */
};

/* Compute the layout of a w x h screen. Never produces a rect outside it. */
void ui_layout_compute(int w, int h, const struct ui_layout_opts *o, struct ui_layout *out);

/* The tabs of the title row, side by side one cell apart: tab i is drawn
 * in [x, x + w) and a click in [x, x + w] (its gap included) chooses it. */
struct ui_tab {
	int x, w;
};
void ui_layout_tabs(const char *const *titles, int n, struct ui_tab *out);
/* The tab a click at column x chooses, -1 none. */
int ui_layout_tab_at(const struct ui_tab *tabs, int n, int x);

#endif
