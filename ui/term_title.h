/* The terminal's title: what plays ("crate: ▶ Artist – Title"), set with
 * the terminal's own status-line capability (terminfo tsl/fsl) or, where
 * TERM names an xterm-like terminal (xterm, tmux, screen, rxvt ...), the
 * OSC 2 sequence; never on other terminals (a console would print it).
 * display.title = off turns it off. Written only when the text changes;
 * on exit the title saved at start is restored (xterm's title stack) or
 * cleared. */
#ifndef CRATE_UI_TERM_TITLE_H
#define CRATE_UI_TERM_TITLE_H

#include <stdbool.h>
#include <stddef.h>

struct term_title {
	bool on;
	bool stack;         /* xterm-like: push the old title at start, pop at exit */
	char set[64], end[16]; /* the sequences around the text */
	char *last;         /* the title last written (owned); NULL: none yet */
};

/* Decide from TERM, terminfo (after initscr) and `enabled` (display.title). */
void term_title_init(struct term_title *t, bool enabled, const char *term);
/* Set the title to text (sanitised: no control characters, valid UTF-8,
 * at most 200 bytes); nothing is written when it did not change. */
void term_title_set(struct term_title *t, const char *text);
/* Leave: restore (or clear) the title and free. */
void term_title_end(struct term_title *t);
/* text without control characters (C0, DEL, C1: an escape in a tag cannot
 * reach the terminal) nor invalid UTF-8, cut at a character boundary to
 * fit size; returns out. Pure, unit-tested. */
char *term_title_clean(const char *text, char *out, size_t size);

#endif
