/* A line editor's history (the interface's ':' line and search bar): the
 * lines entered, oldest first, bounded, kept in a file that is rewritten
 * whole and atomically (a temporary file renamed over it) after each
 * line, so that a crash leaves the old or the new file, never half of one.
 * Walking it (Up/Down) and searching it backwards (C-r) keep their place
 * here, so the interface only maps keys. */
#ifndef CRATE_BASE_HISTORY_H
#define CRATE_BASE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

struct history;

/* Load path (NULL: kept in memory only); a missing file is an empty
 * history, an unreadable one too (the interface must start anyway; the
 * next write says what is wrong). At most max lines are kept (the newest).
 * Owned by the caller: history_free. */
struct history *history_open(const char *path, size_t max);
void history_free(struct history *h);

/* Append line (blank lines are not kept; an earlier copy of the same line
 * is dropped so that it moves to the end; newlines become spaces), forget
 * the oldest beyond max, write the file. Ends any walk. -1 with err when
 * the file cannot be written (the line stays in memory). */
int history_add(struct history *h, const char *line, struct crate_err *err);

size_t history_count(const struct history *h);
/* Line i, 0 the oldest (borrowed until the next add). */
const char *history_at(const struct history *h, size_t i);

/* Walking: the first step back remembers typed (the line being edited)
 * and returns the newest line; each further step an older one; NULL at
 * the oldest (the line stays). next goes forward and ends with typed
 * again; NULL when not walking. Returned text is borrowed. */
const char *history_prev(struct history *h, const char *typed);
const char *history_next(struct history *h);
/* Searching backwards: the newest line older than the walk's place (or
 * than the end when not walking) containing pat; NULL when none (the place
 * stays). The first search remembers typed as prev does. */
const char *history_search(struct history *h, const char *pat, const char *typed);
/* Stop walking (the line was edited or entered). */
void history_walk_end(struct history *h);
bool history_walking(const struct history *h);

#endif
