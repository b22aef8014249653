/* The file format of the index snapshot (`<db path>.index`): a header and a
 * stream of length-prefixed blobs, with a checksum over the whole payload.
 * The index itself decides what the blobs are (index.c); this module only
 * writes them atomically and reads them back with every length checked.
 *
 * Header (native byte order; a file from another machine fails the
 * endianness/word-size check and is ignored):
 *   magic "CRATEIDX", format version, 0x01020304, sizeof(size_t),
 *   sizeof(double), the key (database id, generation, loader signature,
 *   statistics counter),
 *   item count, payload byte length, payload checksum, header checksum.
 * Payload: blobs, each a u64 byte length then the bytes (no padding: every
 * blob is read into its own allocation, so file alignment is irrelevant). */
#ifndef CRATE_MEDIALIB_INDEX_SNAPSHOT_H
#define CRATE_MEDIALIB_INDEX_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* What a snapshot must match to be used: the database's random identity
 * (a re-created database at the same path differs), its change counter,
 * and a signature of what the loader reads (a changed loader differs). */
struct snap_key {
	uint64_t dbid, generation, loader;
	/* Play statistics (index_load.c): when writing, the statistics counter
	 * the index was read at; when reading, the lowest such counter still
	 * usable (changes up to it were dropped from media_stats_dirty). */
	uint64_t stats;
};

/* The checksum: four interleaved multiply-rotate lanes over 8-byte words,
 * so it runs at memory speed (~10 GB/s); not cryptographic. */
uint64_t snap_hash(const void *data, size_t n, uint64_t seed);

/* ---- writing ---- */

struct snap_writer;
/* Start writing to a temporary file next to path. NULL with err when the
 * directory cannot be written. Owned: commit or abort it. */
struct snap_writer *snap_writer_open(const char *path, struct crate_err *err);
/* Append one blob of n bytes (data may be NULL when n is 0). */
void snap_put(struct snap_writer *w, const void *data, size_t n);
/* Write the header and rename the temporary file over path; frees w. */
int snap_writer_commit(struct snap_writer *w, const struct snap_key *key, uint64_t count,
		       struct crate_err *err);
/* Remove the temporary file; frees w. */
void snap_writer_abort(struct snap_writer *w);
/* Remove temporary files of path ("<path>.tmp.XXXXXX") that no writer
 * holds any more (left by a writer killed with SIGKILL or a power cut;
 * SIGINT, SIGTERM and SIGHUP remove their own, see base/tmpfiles.h).
 * Only regular files of our own user, never through a symlink. Returns how
 * many were removed. */
int snap_clean_stale(const char *path);

/* ---- reading ---- */

struct snap_reader;
/* Open path and check its header against key. NULL with err when the file
 * is absent, not a regular file (a FIFO there is never opened blocking),
 * foreign, from another build or machine, or stale. */
struct snap_reader *snap_reader_open(const char *path, const struct snap_key *key,
				     struct crate_err *err);
uint64_t snap_reader_count(const struct snap_reader *r);
/* Bytes before the payload (tests and the fuzzer forge files with it). */
size_t snap_header_size(void);
/* The next blob as a new allocation of exactly its bytes plus extra zero
 * bytes (for a NUL), owned by the caller; NULL when it is empty. Its length
 * must be a multiple of elem: *count receives length / elem. A blob that
 * does not fit the file or is not a multiple of elem marks the reader
 * failed (and returns NULL with *count 0). */
void *snap_get(struct snap_reader *r, size_t elem, size_t extra, size_t *count);
/* The next blob into dst, which must be exactly n bytes long. */
bool snap_get_fixed(struct snap_reader *r, void *dst, size_t n);
/* Mark the reader failed (the caller found the content inconsistent). */
void snap_fail(struct snap_reader *r, const char *why);
/* Close: 0 when every read succeeded, the payload was consumed exactly
 * and its checksum matches; -1 with err otherwise. Frees r. */
int snap_reader_close(struct snap_reader *r, struct crate_err *err);

#endif
