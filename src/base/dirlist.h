/* One folder's entries, for the file-system view (ui/pane_files.c): read
 * once, typed, sorted once (folders first, then files, each in natural,
 * case-insensitive order), and a visible subset (hidden names, a find).
 * Names are raw bytes as the file system gives them (any bytes but '/'
 * and NUL): callers sanitise before showing them. No library knowledge:
 * app/app_files.h marks the entries that are library items. */
#ifndef CRATE_BASE_DIRLIST_H
#define CRATE_BASE_DIRLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct dirlist_entry {
	char *name;     /* raw bytes (owned) */
	char *key;      /* the folded name the order and the find use (owned) */
	bool dir;       /* a folder, or a link to one */
	bool hidden;    /* the name starts with '.' */
	uint32_t id;    /* files: the library item at this path (0: none) */
	uint32_t count; /* folders: library items under it */
};

struct dirlist {
	char *path;     /* the folder read (owned, no trailing '/' but "/") */
	struct dirlist_entry *v;
	size_t n;
};

/* Read the folder at path into *out (replacing nothing: out is filled
 * only on success). "." and ".." are left out. An unreadable folder is
 * CRATE_ERR_IO with the reason ("Permission denied"). */
int dirlist_read(const char *path, struct dirlist *out, struct crate_err *err);
void dirlist_free(struct dirlist *dl);
/* The order of the listing: folders first, then natural order of the
 * folded names, then the raw bytes (two names folding alike stay apart). */
int dirlist_entry_cmp(const struct dirlist_entry *a, const struct dirlist_entry *b);
/* Indexes of the entries to show, in order, into out (room for dl->n):
 * hidden ones only when show_hidden; with a find (not NULL or ""), only
 * names whose folded form contains the folded find. Returns how many. */
size_t dirlist_visible(const struct dirlist *dl, bool show_hidden, const char *find, size_t *out);
/* dir + "/" + name (owned); "/" + name at the top. */
char *dirlist_join(const char *dir, const char *name);
/* The folder above path (owned); "/" for "/" and top-level names. */
char *dirlist_parent(const char *path);
/* Paths in the order the view lists them: component by component, a
 * folder before a file at the same level, then as dirlist_entry_cmp.
 * For sorting the library items under a folder the way it shows them. */
int dirlist_path_cmp(const char *a, const char *b);

#endif
