/* Colours and text attributes. Meaning never rests on colour alone:
 * selection is reverse video, the playing track bold with a '>' mark,
 * errors carry the word "error". Colours come from [colors] in the config
 * (`selected = black,cyan`: foreground,background; names black red green
 * yellow blue magenta cyan white default, or 0-255); NO_COLOR or a
 * terminal without colours gives attributes only. */
#ifndef CRATE_UI_THEME_H
#define CRATE_UI_THEME_H

#include <stdbool.h>

#include "base/config.h"

enum ui_role {
	UR_NORMAL,
	UR_TITLE,         /* title bar */
	UR_TITLE_ACTIVE,  /* the current view's tab */
	UR_HEADER,        /* column headers */
	UR_SELECTED,      /* cursor row in the focused pane */
	UR_SELECTED_DIM,  /* cursor row in an unfocused pane */
	UR_PLAYING,       /* the track that plays */
	UR_MATCH,         /* rows matching a find (n/N) */
	UR_STATUS,        /* status lines */
	UR_PROGRESS,      /* the filled part of the progress bar */
	UR_ERROR,         /* error messages, parse error position */
	UR_HINT,          /* subtle hints (incomplete query) */
	UR_MARK,          /* markers: Party Shuffle, active playlist */
	UR_COUNT
};

/* Call after initscr(). Reads [colors]; returns the number of unknown
 * colour names, and adds every problem (those, and keys naming no role)
 * with its line to pr (may be NULL). */
int theme_init(const struct config *cfg, bool use_color, struct config_problems *pr);
/* The curses attribute (colour pair | attributes) for a role. */
int theme_attr(enum ui_role r);
const char *theme_role_name(enum ui_role r);

/* Pure helper (unit-tested): "black,cyan" -> fg/bg colour numbers (-1 =
 * terminal default). Returns false on an unknown name. */
bool theme_parse_colors(const char *spec, int *fg, int *bg);

#endif
