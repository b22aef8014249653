/* Building the in-memory index from the database (start-up, after scans). */
#ifndef CRATE_MEDIALIB_INDEX_LOAD_H
#define CRATE_MEDIALIB_INDEX_LOAD_H

#include <stdbool.h>

#include "base/err.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_snapshot.h"

/* Every present (not missing) media row with its properties: url, the
 * common tags, stream properties, statistics, and every free-form or
 * further tag value. *out is owned by the caller (mlib_index_free) and is
 * finished (mlib_index_finish). */
int mlib_index_load(struct mlib_db *db, struct mlib_index **out, struct crate_err *err);

/* mlib_index_load first tries the snapshot `<db path>.index`
 * (index_snapshot.h): used when it was written for this database at its
 * current change count (media_generation), else the index is loaded from
 * SQLite and the snapshot rewritten (skipped for a read-only database or
 * directory). This is the same with a choice and a report. */
enum {
	MLIB_LOAD_NO_SNAPSHOT = 1u << 0, /* neither read nor write the snapshot */
	MLIB_LOAD_NO_READ = 1u << 1,     /* load from SQLite, still rewrite the snapshot */
	/* Write the snapshot from a detached process (a copy-on-write fork of
	 * the finished index) instead of before returning: the index is ready
	 * ~20 % sooner at 1M tracks, the file appears a moment later. For the
	 * front ends' start-up; falls back to writing in place if fork fails. */
	MLIB_LOAD_WRITE_DETACHED = 1u << 2,
	/* Use the snapshot in place, mapped (mlib_index_snapshot_map), instead
	 * of copying it into memory: for one-shot commands that read a few
	 * properties (a search at 1M tracks touches tens of MB of 180). The
	 * caller checks mlib_index_map_damaged after using it. */
	MLIB_LOAD_MAP = 1u << 3,
	/* Leave the snapshot to the caller: when one is due, info says where
	 * and under which key (snap_path, snap_key), and the caller writes it
	 * (mlib_index_snapshot_write) while it only reads the index, as on a
	 * thread of its own. For the interface: a fork write-protects every
	 * page of a process that lives on, and on these virtual machines the
	 * keystrokes after it paid for that (issue 21). */
	MLIB_LOAD_WRITE_LATER = 1u << 4,
};
struct mlib_load_info {
	bool from_snapshot;  /* the index came from the snapshot */
	bool wrote_snapshot; /* the snapshot was (re)written */
	bool writing_snapshot; /* a detached process is writing it (WRITE_DETACHED) */
	/* WRITE_LATER: the snapshot the caller is to write (snap_path owned by
	 * the caller; NULL when none is due). */
	char *snap_path;
	struct snap_key snap_key;
	char why[256];       /* why the snapshot was not used/written ("" = it was) */
	/* The library's change counters (media_generation) the index reflects,
	 * read in the load's own transaction; have_key false when the
	 * database has none. */
	bool have_key;
	uint64_t generation, stats;
};
int mlib_index_load_ex(struct mlib_db *db, unsigned flags, struct mlib_index **out,
		       struct mlib_load_info *info, struct crate_err *err);
/* Bring idx, read at library generation `generation` and statistics
 * counter *stats (mlib_load_info), up to date in place when only play
 * statistics and ratings changed since (another process played, skipped
 * or rated): *applied then true and *stats the counter idx now reflects.
 * *applied false, with nothing done, when the items or tags changed too
 * (generation moved) or the changes since *stats are no longer all kept
 * (a snapshot was written meanwhile): the index must be loaded again.
 * The writes are mlib_index_update_int's, under its conditions. */
int mlib_index_refresh_stats(struct mlib_db *db, struct mlib_index *idx, uint64_t generation,
			     uint64_t *stats, bool *applied, struct crate_err *err);
/* The snapshot file name for db, owned by the caller; NULL for a database
 * without a file (in-memory). */
char *mlib_index_snapshot_path(struct mlib_db *db);

#endif
