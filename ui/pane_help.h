/* The help view (pane_help.c): shown over a view, without a tab. */
#ifndef CRATE_UI_PANE_HELP_H
#define CRATE_UI_PANE_HELP_H

extern const struct ui_pane ui_pane_help;

#endif
