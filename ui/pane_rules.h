/* View 4: the collection rules (pane_rules.c). */
#ifndef CRATE_UI_PANE_RULES_H
#define CRATE_UI_PANE_RULES_H

extern const struct ui_pane ui_pane_rules;

#endif
