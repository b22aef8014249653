/* What crate heard in each file (analysis/): the `media_analysis` table,
 * one row per analysed file, valid while the file's mtime and size are
 * those it was analysed at. The index shows valid rows as properties
 * (loudness, lra, truepeak, bpm, bpm_confidence, onset, album_loudness,
 * album_truepeak, analysis_error); the timbre vectors are read apart
 * (analysis/space.c), only when a similarity is asked for. */
#ifndef CRATE_MEDIALIB_MEDIA_ANALYSIS_H
#define CRATE_MEDIALIB_MEDIA_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/vec.h"
#include "medialib/db.h"

struct mlib_index;

/* Version of the analysis (bumped when analysis/ computes something
 * else): rows of another version are not shown and are analysed again. */
#define MLIB_ANALYSIS_VERSION 1

/* The table (component "analysis"), registered in mlib_db_components:
 * mlib_db_open creates or upgrades it on a writable database. */
extern const struct mlib_db_component mlib_analysis_component;

/* One file's results. error != NULL: not analysed, and why (the other
 * fields are ignored). NAN marks an absent value. */
struct mlib_analysis_row {
	const char *error;
	double loudness, lra, truepeak, bpm, bpm_confidence, onset;
	const float *timbre; /* ntimbre floats, or NULL */
	size_t ntimbre;
	const void *hist;    /* block-loudness histogram blob (analysis/features.h) */
	size_t histlen;
};

/* A file waiting for analysis. url is owned (free with the list). */
struct mlib_analysis_job {
	uint32_t id;
	int64_t mtime, filesize, duration_ms;
	char *url;
	char *path;                 /* owned: the file to decode (a cue track's url without "#N") */
	int64_t cue_start, cue_end; /* a cue track's samples (cue_start -1: the whole file) */
};
struct mlib_analysis_jobs {
	struct mlib_analysis_job *v;
	size_t n, cap;
};
void mlib_analysis_jobs_free(struct mlib_analysis_jobs *j);

/* Present files with no valid result (or every present file
 * when all), restricted to only (a bitset over ids, NULL = all), in id
 * order. A recorded failure counts as a result: it is retried only with
 * all or when the file changes. */
int mlib_analysis_pending(struct mlib_db *db, bool all, const struct bitset *only,
			  struct mlib_analysis_jobs *out, struct crate_err *err);
/* How many present files have a valid result (analysed or failed). */
int mlib_analysis_count(struct mlib_db *db, int64_t *done, int64_t *failed,
			int64_t *total, struct crate_err *err);

/* Store the result for job (its mtime and size, read before decoding,
 * make the row valid). Own transaction: a crash keeps what was put. */
int mlib_analysis_put(struct mlib_db *db, const struct mlib_analysis_job *job,
		      const struct mlib_analysis_row *row, struct crate_err *err);

/* Album loudness: for each album of the files in ids (album tag + the
 * directory, so two albums of one name stay apart), hists receives the
 * valid members' histograms; fn decides the album's loudness (false: none)
 * and it is stored on every member. */
typedef bool (*mlib_album_loudness_fn)(const void *const *blobs, const size_t *lens, size_t n,
				       double *lufs);
int mlib_analysis_update_albums(struct mlib_db *db, const uint32_t *ids, size_t n,
				mlib_album_loudness_fn fn, struct crate_err *err);
/* The same for the albums a track left or joined since the last call
 * (retagged, moved, gone, back, forgotten: recorded by triggers), so the
 * rest of an album does not keep a loudness computed with a track it no
 * longer has. One transaction; nothing to do on a read-only database. */
int mlib_analysis_update_due_albums(struct mlib_db *db, mlib_album_loudness_fn fn,
				    struct crate_err *err);

/* Valid results as index properties (called by the index loader). */
int mlib_analysis_load_index(struct mlib_db *db, struct mlib_index *idx, struct crate_err *err);

/* Timbre vectors of valid results: calls fn for each (dims floats), with
 * the analysed tempo (num[0]), its confidence (num[1]), loudness (num[2])
 * and onset strength (num[3]), NAN when absent. */
typedef void (*mlib_timbre_fn)(void *ud, uint32_t id, const float *v, size_t dims,
			       const double *num);
int mlib_analysis_each_timbre(struct mlib_db *db, mlib_timbre_fn fn, void *ud,
			      struct crate_err *err);

/* Export and import (crate info --json, crate analyze --import): the
 * current result of id as a JSON object appended to out ("analysis":
 * {"version": 1, "loudness": -9.3, ..., "timbre": "<hex of float32 LE>",
 * "hist": "<hex>"}); false (nothing appended) when it has none. */
struct strbuf;
bool mlib_analysis_json(struct mlib_db *db, uint32_t id, struct strbuf *out,
			struct crate_err *err);
/* Store the "analysis" objects of a JSON array of items (as info --json
 * prints them) for the library's files with the same "url", as results
 * for the files as they are now (their ids appended to ids). Items without a url in the library, or
 * of another analysis version, are counted in *skipped. One transaction. */
int mlib_analysis_import(struct mlib_db *db, const char *json, size_t len, struct u32vec *ids,
			 size_t *skipped, struct crate_err *err);

/* A number as the index stores it: "%.*f" in the C locale's notation. */
void mlib_analysis_format(double v, int decimals, char *buf, size_t size);

#endif
