/* A note beside the database that its file passed PRAGMA quick_check
 * (medialib/db.c): the check reads every page, so an unchanged file is not
 * read again by every one-shot command. The note holds the file's (and its
 * -wal's) identity and change times; any write (crate's own, another
 * program's, a restored copy) changes them, and the next open checks again.
 * Damage that changes neither (a disk's bit rot) is found when SQLite reads
 * the page, as in a file too large to check on open. */
#ifndef CRATE_MEDIALIB_DB_CHECKED_H
#define CRATE_MEDIALIB_DB_CHECKED_H

#include <stdbool.h>

/* Whether path's note (path + ".checked") describes the files as they are. */
bool mlib_db_checked_holds(const char *path);
/* Write the note for the files as they are now (best effort: a folder that
 * cannot take it means a check on every open, as before). */
void mlib_db_checked_record(const char *path);

#endif
