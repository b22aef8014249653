/* The file-system view's questions to the library (ui/pane_files.c):
 * which entries of a folder are library items, how many items a folder
 * holds, the items at a path in the view's order, and where the view
 * starts. Answered from the in-memory index (its present items), one pass
 * over its urls per question: no database work on the main thread. */
#ifndef CRATE_APP_APP_FILES_H
#define CRATE_APP_APP_FILES_H

#include "app/app.h"
#include "base/dirlist.h"
#include "base/vec.h"

/* Set each file entry's id (the library item at its path; a file a cue
 * sheet splits gets its first track) and each folder's count (items
 * under it, at any depth). */
void app_files_mark(struct app *app, struct dirlist *dl);
/* The library items at path: a file's item (or its cue tracks; a cue
 * sheet's are its audio file's), or every
 * item under a folder, in the order the view lists them (folders first,
 * natural order). Appended to out (the caller's). */
void app_files_items(struct app *app, const char *path, struct u32vec *out);
/* Where the view starts: the deepest folder holding every library root,
 * or $HOME when there are none. Owned. */
char *app_files_start(struct app *app);

#endif
