/* Temporary files that a signal must not leave behind.
 *
 * A writer that creates a temporary file and renames it into place later
 * (the index snapshot) registers its path for as long as the file exists.
 * When SIGINT, SIGTERM or SIGHUP arrives, the handler installed by
 * tmpfiles_signals_install() unlinks every registered path and then does
 * what the signal did before (the previous handler, e.g. ncurses restoring
 * the terminal, or the default action: the process still dies).
 *
 * This is process-wide state by nature (a signal handler has no context);
 * it is the one such table outside app (README, "Where the code departs
 * from DESIGN.md"). Files left by SIGKILL are cleaned by their owner's
 * next start (snap_clean_stale in medialib/index_snapshot.h). */
#ifndef CRATE_BASE_TMPFILES_H
#define CRATE_BASE_TMPFILES_H

/* Remember path (copied; at most PATH_MAX bytes). Returns a handle for
 * tmpfiles_forget, or -1 when the table is full (then a signal leaves the
 * file behind for the next start to clean). Thread-safe. */
int tmpfiles_remember(const char *path);
/* The file was renamed or removed: forget handle (-1 is ignored). */
void tmpfiles_forget(int handle);
/* Install the handlers for SIGINT, SIGTERM and SIGHUP, chaining to the
 * handlers installed before this call. Call it after any library that
 * installs its own (initscr). Calling it again re-chains. */
void tmpfiles_signals_install(void);
/* Put back the handlers found by tmpfiles_signals_install (so that a
 * library installing its own only when none is there, like ncurses, does). */
void tmpfiles_signals_uninstall(void);
/* Unlink every remembered path now (async-signal-safe). */
void tmpfiles_unlink_all(void);

#endif
