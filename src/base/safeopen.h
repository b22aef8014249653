/* Opening a file that a name may no longer denote by the time a library
 * (FFmpeg, TagLib) opens it again: a regular file checked once, then
 * reached through its descriptor, so a FIFO or device swapped in under the
 * same name can never block the caller. */
#ifndef CRATE_BASE_SAFEOPEN_H
#define CRATE_BASE_SAFEOPEN_H

#include <stddef.h>
#include <sys/stat.h>

#include "base/err.h"

/* Open path read-only without blocking (O_NONBLOCK: a FIFO without a
 * writer, a tape, a terminal), check with fstat that it is a regular file,
 * then switch the descriptor to blocking reads. Returns the descriptor
 * (close-on-exec; the caller closes it) and fills *st (may be NULL), or -1
 * with err: CRATE_ERR_NOTFOUND / CRATE_ERR_IO for open errors,
 * CRATE_ERR_INVALID "not a regular file" otherwise. */
int safeopen_regular(const char *path, struct stat *st, struct crate_err *err);

/* A name that opens the same file as fd even when path was swapped for
 * something else since, for libraries that only take names (FFmpeg, TagLib)
 * and pick a parser by the extension: a symlink "<private dir>/<fd><.ext>"
 * to /proc/self/fd/<fd>, with path's extension. Falls back to
 * /proc/self/fd/<fd> (no extension) when no private directory can be made,
 * and to path itself when /proc is not mounted. Written to buf (size n) and
 * returned; call safeopen_fd_path_done(buf) before closing fd. Thread-safe.
 * The private directory "crate-open-<pid>-XXXXXX" (mode 0700, in
 * $XDG_RUNTIME_DIR, $TMPDIR or /tmp) is made once per process and removed
 * at exit; making it first sweeps the directories of dead processes. */
const char *safeopen_fd_path(int fd, const char *path, char *buf, size_t n);
void safeopen_fd_path_done(const char *name);

/* Removes base's crate-open-<pid>-* directories whose process is gone and
 * that are ours, deleting only the symlinks inside (a directory holding
 * anything else stays). Called by the first safeopen_fd_path. */
void safeopen_sweep_stale(const char *base);

#endif
