/* The bottom row as an editor: the ':' command line and the prompts
 * (cmdline.c; cmdline_begin and prompt_begin are in ui_state.h). */
#ifndef CRATE_UI_CMDLINE_H
#define CRATE_UI_CMDLINE_H

#include <stdbool.h>

#include "base/err.h"

struct ui;

bool cmdline_key(struct ui *ui, int key);
void cmdline_draw(struct ui *ui);
/* Split a command line into words (quotes, backslashes; a quote after
 * "field:" stays, for the query parser). Owned argv, NULL-terminated. */
char **cmdline_split(const char *line, int *argc, struct crate_err *err);
void cmdline_free_argv(char **argv);
/* Run one command line (":scan DIR", "save NAME", ...). */
void cmdline_run(struct ui *ui, const char *line);
/* The search bar's history (C-p, C-n, C-r): true when key was one of them. */
bool cmdline_search_history_key(struct ui *ui, int key);
/* The search bar was left with Enter: keep its text in the history. */
void cmdline_search_entered(struct ui *ui);
void cmdline_free(struct ui *ui);

#endif
