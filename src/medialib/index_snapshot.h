/* The file format of the index snapshot (`<db path>.index`): a header,
 * sections, and a table of contents. The index itself decides what the
 * sections are (index_serialize.c); this module writes them atomically and
 * maps them back with every offset and length checked.
 *
 * Laid out to be mapped and used in place (a one-shot `crate search` at a
 * million tracks cannot afford to read 180 MB): every section starts on a
 * 64-byte boundary, so an array of any element type can be pointed at
 * where it lies in the mapping.
 *
 * Header (native byte order; a file from another machine fails the
 * endianness/word-size check and is ignored):
 *   magic "CRATEIDX", format version, 0x01020304, sizeof(size_t),
 *   sizeof(double), the key (database id, generation, loader signature,
 *   statistics counter), item count, where the table of contents is, how
 *   many sections it lists and how many block checksums follow it, their
 *   checksum, the header's checksum.
 * Sections: bytes, zero-padded to the next 64-byte boundary.
 * Table of contents: per section its offset, length and first block.
 * Block table (last in the file): a checksum per 64 KiB block of each
 * section in turn.
 *
 * Integrity: opening checks the header, the table of contents and the
 * block table (~25 KB at a million tracks) only; a block's checksum is
 * checked when something first reads it (snap_map_check for whole
 * sections, snap_map_check_range for a part), so a reader of a mapping
 * pays for the blocks it touches, not for the whole file. Checksums guard against accidents
 * (a torn write, a flipped bit); the index also validates the structure
 * of what it maps before following any offset in it (index_serialize.c). */
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

/* A snapshot file mapped read-only (MAP_PRIVATE, PROT_READ): the whole
 * file, valid until snap_map_free. Pointers into it (snap_view) live
 * exactly as long as the map. */
struct snap_map;
/* Map path and check its header and table of contents against key. NULL
 * with err when the file is absent, not a regular file (a FIFO there is
 * never opened blocking), foreign, from another build or machine, stale,
 * or its header or table of contents is damaged. Owned: snap_map_free. */
struct snap_map *snap_map_open(const char *path, const struct snap_key *key,
			       struct crate_err *err);
void snap_map_free(struct snap_map *m);
uint64_t snap_map_count(const struct snap_map *m);
size_t snap_map_sections(const struct snap_map *m);
const char *snap_map_path(const struct snap_map *m);
/* Whether p points into the mapping (an array the index does not own). */
bool snap_map_contains(const struct snap_map *m, const void *p);
/* True when sections [first, first + n) match their checksums. */
bool snap_map_check(const struct snap_map *m, size_t first, size_t n);
/* True when bytes [off, off + len) of section i lie inside it and the
 * blocks holding them match their checksums (the padding after the
 * section is checked with its last block). Thread-safe, like
 * snap_map_check. */
bool snap_map_check_range(const struct snap_map *m, size_t i, size_t off, size_t len);

/* Reading sections in order from a map, with the first failure kept. */
struct snap_cursor {
	const struct snap_map *m;
	size_t next;        /* the section read next */
	const char *failed; /* why, NULL = fine */
};
static inline struct snap_cursor snap_cursor_start(const struct snap_map *m)
{
	return (struct snap_cursor){m, 0, NULL};
}
/* The next section in place (NULL when it is empty): its length must be
 * a multiple of elem, *count receives length / elem. Not checksummed
 * (snap_map_check). A missing section or one of a wrong length marks the
 * cursor failed (NULL, *count 0). */
const void *snap_view(struct snap_cursor *c, size_t elem, size_t *count);
/* The next section copied into dst, which must be exactly n bytes long;
 * its checksum is checked at once (small heads the reader decides on). */
bool snap_get_fixed(struct snap_cursor *c, void *dst, size_t n);
/* Mark the cursor failed (the caller found the content inconsistent). */
void snap_fail(struct snap_cursor *c, const char *why);

/* ---- tests and the fuzzer ---- */

/* Bytes before the first section. */
size_t snap_header_size(void);

/* The sections of the snapshot at path as a stream of u64 length + bytes
 * (what the fuzzer forges files from; snap_put each blob to write it back),
 * owned by the caller; NULL when the file cannot be mapped (key unchecked). */
unsigned char *snap_blob_stream(const char *path, size_t *len);

#endif
