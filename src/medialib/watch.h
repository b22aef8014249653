/* Watching the scanned folders with inotify. The watcher only says which
 * folders changed, in batches: events are collected until the folders have
 * been quiet for a moment (a 2,000-file copy is one batch), and a file
 * still being written (opened for writing, not closed yet) holds its batch
 * back until it is closed. Scanning those folders is the caller's job
 * (app/app_watch.c runs the scanner on them, which also recognises moves).
 *
 * Every folder under a root needs one inotify watch. When the kernel's
 * limit (fs.inotify.max_user_watches) is reached the watcher says so
 * (mlib_watch_limited) and keeps what it has; the caller then rescans
 * the roots periodically. Library code: nothing is printed. */
#ifndef CRATE_MEDIALIB_WATCH_H
#define CRATE_MEDIALIB_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

struct mlib_watch;

/* quiet_ms: how long folders must be quiet before their batch is due
 * (0: 400 ms). *out is owned by the caller (mlib_watch_free). */
int mlib_watch_new(int quiet_ms, struct mlib_watch **out, struct crate_err *err);
void mlib_watch_free(struct mlib_watch *w);
/* Readable when events are waiting (poll it with the terminal). */
int mlib_watch_fd(const struct mlib_watch *w);

/* Watch root (absolute, canonical) and every folder under it. 0 when all
 * is watched; 1 when the watch limit was reached (*err says so, with the
 * sysctl to raise it; what could be watched is); -1 on another error (a
 * root that is gone: *err, nothing watched). */
int mlib_watch_add_root(struct mlib_watch *w, const char *root, struct crate_err *err);
/* The roots added (i < mlib_watch_root_count), borrowed until the next
 * add or remove. */
size_t mlib_watch_root_count(const struct mlib_watch *w);
const char *mlib_watch_root(const struct mlib_watch *w, size_t i);
/* root was added (whether or not it could be watched). */
bool mlib_watch_has_root(const struct mlib_watch *w, const char *root);
/* Stop watching root and everything under it. */
void mlib_watch_remove_root(struct mlib_watch *w, const char *root);

/* Read the waiting events (never blocks). Returns the number read. */
int mlib_watch_read(struct mlib_watch *w);
/* Milliseconds until the collected batch is due: -1 when nothing is
 * collected, 0 when it is due now. */
int mlib_watch_due_in(const struct mlib_watch *w);
/* When the batch is due: the folders that changed (no folder under another
 * one), owned by the caller (free each, then the array); *n 0 when none.
 * The batch is then empty. */
char **mlib_watch_take(struct mlib_watch *w, size_t *n);

/* Count dir as changed again (its scan failed: a locked database), as an
 * event in it would. */
void mlib_watch_mark_changed(struct mlib_watch *w, const char *dir);

/* The watch limit was reached: some folders are not watched. */
bool mlib_watch_limited(const struct mlib_watch *w);
/* A root's folder went away (deleted, moved, unmounted) while watched
 * since the last call: its coming back is seen only by rescans of the
 * roots. */
bool mlib_watch_take_root_lost(struct mlib_watch *w);
/* Folders watched now. */
size_t mlib_watch_count(const struct mlib_watch *w);

#endif
