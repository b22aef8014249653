/* Media rows: the schema of the media library, writing scanned files,
 * play statistics. */
#ifndef CRATE_MEDIALIB_MEDIA_H
#define CRATE_MEDIALIB_MEDIA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "medialib/db.h"

struct mlib_tags;
struct mlib_index;
struct strbuf;

/* The media library's tables (component "medialib"), registered in
 * mlib_db_components: mlib_db_open creates or upgrades them. */
extern const struct mlib_db_component mlib_media_component;

/* Prepared statements for writing many files (the scanner); owned by the
 * caller, used by one thread, freed before the database is closed. */
struct mlib_media_writer;
struct mlib_media_writer *mlib_media_writer_new(struct mlib_db *db, struct crate_err *err);
void mlib_media_writer_free(struct mlib_media_writer *w);

/* Insert the file at url (raw path bytes) or update it in place (same id)
 * from its tags and stat; clears the missing flag. `added` is only set for
 * new rows; play statistics and rating are kept. *id receives the row id. */
int mlib_media_put(struct mlib_media_writer *w, const char *url, size_t urllen, int64_t size,
		   int64_t mtime, int64_t now, const struct mlib_tags *t, uint32_t *id,
		   struct crate_err *err);
/* The same for track N of a cue sheet (url "FILE#N"): it plays the samples
 * [cue_start, cue_end) of FILE (cue_end 0: to its end); cue_start < 0
 * makes it a whole file, as mlib_media_put. mtime_nsec: the nanoseconds
 * of the mtime (the scanner's; < 0 unknown, as mlib_media_put stores). */
int mlib_media_put_cue(struct mlib_media_writer *w, const char *url, size_t urllen, int64_t size,
		       int64_t mtime, long mtime_nsec, int64_t now, const struct mlib_tags *t, int64_t cue_start,
		       int64_t cue_end, uint32_t *id, struct crate_err *err);
/* Mark a row missing (1: gone from disk; not in the index) or present (0). */
int mlib_media_set_missing(struct mlib_media_writer *w, uint32_t id, int missing,
			   struct crate_err *err);

/* Where the sheet of cue track id is: beside its file, or its CUESHEET tag. */
int mlib_media_set_cue_beside(struct mlib_media_writer *w, uint32_t id, bool beside,
			      struct crate_err *err);

/* What the database holds of the file at url now (another scan may have
 * stored it since this one began): *state 0 nothing, 1 a row that differs
 * or is missing, 2 a present row of this size and mtime (a cue track's
 * row, "url#N", counts as the file's). */
int mlib_media_stored(struct mlib_media_writer *w, const char *url, size_t urllen, int64_t size,
		      int64_t mtime, long mtime_nsec, int *state, struct crate_err *err);

/* A file moved (same content, new path): the row keeps its id, play
 * statistics, rating and places in playlists; only its url changes. */
int mlib_media_set_url(struct mlib_db *db, uint32_t id, const char *url, size_t urllen,
		       struct crate_err *err);
/* Forget rows: the items leave the library (the files are not touched).
 * Playlists keep their ids and show them as missing; a later scan of the
 * file adds it again with a new id. One transaction; *n receives how many
 * rows were deleted. */
int mlib_media_forget(struct mlib_db *db, const uint32_t *ids, size_t nids, size_t *n,
		      struct crate_err *err);
/* Forget every row marked missing (`crate scan --prune`) except those
 * whose file is under one of the nkeep folders keep (roots that are not
 * there: a disk not mounted); *n as above, *kept how many were kept (may
 * be NULL); one transaction. */
int mlib_media_prune_missing(struct mlib_db *db, const char *const *keep, size_t nkeep, size_t *n,
			     size_t *kept, struct crate_err *err);
/* Delete the tag strings (table media_string) no row refers to any more:
 * after rows were deleted or re-tagged (forget and prune call it; a scan
 * that updated rows too). One scan of media, ~0.2 s at 1M tracks. In the
 * caller's transaction when one is open. *n (may be NULL) receives how
 * many went. */
int mlib_media_gc_strings(struct mlib_db *db, size_t *n, struct crate_err *err);

/* The library's change counters (table media_generation): generation
 * moves with every change of items or tags, stats with play statistics
 * and ratings. 0 and 0 for a database without the table. */
int mlib_media_counters(struct mlib_db *db, uint64_t *generation, uint64_t *stats,
			struct crate_err *err);

/* Find the id of url (raw path bytes); CRATE_ERR_NOTFOUND when absent. */
int mlib_media_find_url(struct mlib_db *db, const char *url, size_t urllen, uint32_t *id,
			struct crate_err *err);
/* The ids of many urls (NUL-terminated raw path bytes; NULL: skipped):
 * ids[i] for urls[i], 0 when absent. One statement and, unless the caller
 * has a transaction open, one read transaction for all of them: a 150,000-
 * entry playlist costs one prepare, not one each. On an error, the ids not
 * looked up yet are 0. */
int mlib_media_find_urls(struct mlib_db *db, const char *const *urls, size_t n, uint32_t *ids,
			 struct crate_err *err);
/* The present tracks of the cue sheet that splits the file at url (raw
 * path bytes), in the order they play: *ids owned by the caller (NULL and
 * *n 0 when the file is not split). */
int mlib_media_cue_tracks(struct mlib_db *db, const char *url, size_t len, uint32_t **ids,
			  size_t *n, struct crate_err *err);
/* 1 when a present (not missing) row has this id, 0 when not, -1 on error. */
int mlib_media_exists(struct mlib_db *db, uint32_t id, struct crate_err *err);
/* The stored text of property prop of row id, missing or not (the index
 * holds present rows only, so this is how a missing file's entry is still
 * named): its values appended to out, joined by sep. 1 found, 0 absent
 * (no such row or value; numbers are never given), -1 on error. */
int mlib_media_stored_text(struct mlib_db *db, uint32_t id, const char *prop, const char *sep,
			   struct strbuf *out, struct crate_err *err);

/* Play statistics, written to SQLite and (when idx is not NULL) to the
 * index: timesplayed+1 and lastplayed=when (Unix seconds). */
int mlib_media_record_play(struct mlib_db *db, struct mlib_index *idx, uint32_t id, int64_t when,
			   struct crate_err *err);
/* The true length, found when playback reached the end (ms > 0). */
int mlib_media_set_duration(struct mlib_db *db, struct mlib_index *idx, uint32_t id,
			    int64_t ms, struct crate_err *err);
/* A play the user cut short (next, another track) before it counted:
 * timesskipped+1. */
int mlib_media_record_skip(struct mlib_db *db, struct mlib_index *idx, uint32_t id,
			   struct crate_err *err);
/* rating 0..5 (0 clears it: the property becomes absent). */
int mlib_media_set_rating(struct mlib_db *db, struct mlib_index *idx, uint32_t id, int rating,
			  struct crate_err *err);
/* The same rating for ids[0..n) in one transaction: all of them or, when
 * one fails (an id no longer in the library, the disk), none. */
int mlib_media_set_ratings(struct mlib_db *db, struct mlib_index *idx, const uint32_t *ids,
			   size_t n, int rating, struct crate_err *err);

/* Parse a track/disc number "3", "03/12", " 3 / 12": number and total
 * (0 when absent). Returns 0 when no leading number was found. */
int mlib_media_parse_number_pair(const char *s, int64_t *num, int64_t *total);
/* The first 4-digit run of a date ("2004-05-01" -> 2004, "May 1999" -> 1999);
 * 0 when none. */
int64_t mlib_media_year_of(const char *date);

#endif
