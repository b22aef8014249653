/* View 3: the collections list (pane_coll.c), and the same list as the
 * browser's sidebar (drawn and clicked by ui.c beside a pane whose
 * `sidebar` is set). */
#ifndef CRATE_UI_PANE_COLL_H
#define CRATE_UI_PANE_COLL_H

extern const struct ui_pane ui_pane_collections;
extern const struct ui_pane ui_pane_sidebar;

#endif
