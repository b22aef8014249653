/* Marks of one view: a set of row keys (playlist positions, or media ids
 * in the browser) with its count, so "are there marks" is O(1) and every
 * action can ask for the marked set instead of the cursor row. Pure code
 * (no curses), unit-tested in tests/unit/test_ui_marks.c. */
#ifndef CRATE_UI_MARKS_H
#define CRATE_UI_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

struct ui_marks {
	struct bitset b; /* grows to the largest key marked */
	size_t n;        /* how many keys are marked */
};

bool marks_has(const struct ui_marks *m, size_t key);
void marks_set(struct ui_marks *m, size_t key, bool on);
/* Toggle; returns whether key is marked now. */
bool marks_toggle(struct ui_marks *m, size_t key);
void marks_clear(struct ui_marks *m);
/* The marked keys below limit, ascending, in *out (owned by the caller);
 * returns how many. */
size_t marks_list(const struct ui_marks *m, size_t limit, size_t **out);

#endif
