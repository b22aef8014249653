/* A pane: what one view of the interface is (compare tmux's window modes).
 * Each pane file exports one `const struct ui_pane`; ui.c keeps them in
 * one table by view (ui->panes) and every "what does this view do"
 * question is asked of the current pane. NULL members mean "nothing
 * here". Panes include this, ui_state.h, draw.h and actions.h, never each
 * other or ui.c. */
#ifndef CRATE_UI_PANE_H
#define CRATE_UI_PANE_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/keymap.h"

struct ui;
struct ui_rect;
struct ui_list;
struct u32vec;

/* The rows a find marks (find.h): n rows shown height at a time, the
 * cursor over them, and whether row i matches (ctx: the pane's). */
struct ui_find_rows {
	size_t n;
	int height;
	struct ui_list *list;
	bool (*match)(struct ui *ui, size_t i, void *ctx);
	void *ctx;
};

struct ui_pane {
	const char *title;      /* its tab's name ("Browser"), after its key; NULL: no tab */
	const char *hint;       /* the idle bottom row on wide screens ({action}: its key,
				 * keymap_expand); NULL: the general one */
	const char *find_label; /* the search bar's label ("/"); NULL: no search bar */
	bool find_list;         /* the search is parsed in list context (positions) */
	bool sidebar;           /* the collections sidebar shows beside it */
	bool saves;             /* s saves its search as a collection */

	void (*draw)(struct ui *ui, const struct ui_rect *r);
	/* Actions the pane gives its own meaning, before the common ones
	 * (help: scroll and leave; rules: a e d Enter K J); true when taken. */
	bool (*key_first)(struct ui *ui, enum ui_action a);
	/* Movement, n/N, marks (Space m M) and K/J moves, after the common
	 * actions. */
	bool (*key)(struct ui *ui, enum ui_action a);
	bool (*click)(struct ui *ui, int y, int x, bool dbl);
	/* The search was applied: show what it finds (ui->qnode). NULL: the
	 * pane matches ui->good_query by name as it draws. */
	void (*find)(struct ui *ui);
	/* A find that marks rows (views 2, 3, 4): its rows, for n, N and the
	 * jump to the first match (find.h); false: none now. */
	bool (*find_rows)(struct ui *ui, struct ui_find_rows *f);
	/* Right end of the search bar (the number of results). */
	void (*find_info)(struct ui *ui, char *buf, size_t size);
	/* Right end of the title row, beside the tabs; w is the room the tabs
	 * leave for it (a longer text is cut). */
	void (*heading)(struct ui *ui, int w, char *buf, size_t size);
	void (*enter)(struct ui *ui);     /* it became the view shown */
	void (*play)(struct ui *ui);      /* Enter */
	void (*remove)(struct ui *ui);    /* d */
	/* Media ids of the selection (owned by the caller's vector), playing
	 * from *start; one: just the selected track where there is one. */
	void (*selection)(struct ui *ui, struct u32vec *ids, size_t *start, bool one);
	/* Media ids of the marked rows, in the view's order (owned by the
	 * caller's vector); false when nothing is marked: actions then take
	 * the selection. */
	bool (*marked)(struct ui *ui, struct u32vec *ids);
	/* Its prompts (prompt_begin from this pane): y answered, a line
	 * entered, and the label of a text prompt. */
	void (*confirm)(struct ui *ui);
	void (*prompt_done)(struct ui *ui, const char *text);
	const char *(*prompt_label)(struct ui *ui);
	void (*free)(struct ui *ui);
};

#endif
