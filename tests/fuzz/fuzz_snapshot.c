/* Fuzz target: the index snapshot loader, both ways: read into memory
 * (mlib_index_snapshot_read) and mapped in place (mlib_index_snapshot_map,
 * whose properties are checked as they are first read); see
 * src/medialib/index.h, file format in src/medialib/index_snapshot.h.
 *
 * Input: a snapshot's sections as a stream of blobs (u64 length, bytes); a
 * length running past the end is cut to what is left. The target writes it
 * as a snapshot file with a correct header and checksums (a forger can
 * always fix those: they guard against accidents, not intent), so every
 * input reaches the validation of the content itself.
 *
 * Oracle: the loader either refuses with a message or gives an index on
 * which every reading function, adding items and mlib_index_finish work
 * without a crash, a sanitizer report or a hang; and ids and value ids the
 * index hands out stay inside the bounds it states. A mapped index whose
 * property fails its check reads it as empty and says it is damaged; the
 * read index must then have refused the same file.
 *
 * Seeds (tests/fuzz/seeds/snapshot/) are payloads of real indexes made by
 * fuzz_snapshot_seed_index(); tests/unit/test_fuzz_regress.c checks they
 * still load and rewrites them when CRATE_WRITE_FUZZ_SEEDS=1 (after a format
 * change).
 *
 * Built with -DCRATE_FUZZ_MAIN as a libFuzzer binary (tests/fuzz/fuzz.mk);
 * tests/unit/test_fuzz_regress.c includes this file to replay saved inputs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/vec.h"
#include "medialib/index.h"
#include "medialib/index_snapshot.h"

static const struct snap_key fuzz_snapshot_key = { 0x5eed, 7, 0x10ad, 0 };

static char fuzz_snapshot_why[1024];

static const char *fuzz_snapshot_fail(const char *what, const char *detail)
{
	snprintf(fuzz_snapshot_why, sizeof fuzz_snapshot_why, "%s%s", what, detail ? detail : "");
	return fuzz_snapshot_why;
}

/* Write payload as a snapshot at path with fixed key and valid checksums.
 * The item count in the header is the one in the first blob (the index
 * head) when it has that shape. 0, or -1 with err. */
static int fuzz_snapshot_forge(const char *path, const uint8_t *data, size_t size,
			       struct crate_err *err)
{
	struct snap_writer *w = snap_writer_open(path, err);
	if (!w)
		return -1;
	uint64_t count = 0;
	size_t off = 0;
	bool first = true;
	while (off < size) {
		uint64_t len = 0;
		size_t have = size - off < 8 ? size - off : 8;
		memcpy(&len, data + off, have);
		off += have;
		if (len > size - off)
			len = size - off;
		if (first && len == 4 * sizeof(uint64_t))
			memcpy(&count, data + off + 3 * sizeof(uint64_t), sizeof count);
		first = false;
		snap_put(w, len ? data + off : NULL, (size_t)len);
		off += (size_t)len;
	}
	return snap_writer_commit(w, &fuzz_snapshot_key, count, err);
}

/* Touch everything a loaded index hands out; false (with why) when an id
 * or value id is outside the bounds the index states. */
static const char *fuzz_snapshot_exercise(const struct mlib_index *idx)
{
	uint32_t bound = mlib_index_id_bound(idx), count = mlib_index_count(idx);
	const struct u32vec *all = mlib_index_all_ids(idx), *order = mlib_index_library_order(idx);
	if (all->n != count || order->n != count)
		return fuzz_snapshot_fail("id lists disagree with the count", NULL);
	for (size_t i = 0; i < count; i++) {
		if (all->v[i] >= bound || order->v[i] >= bound || !mlib_index_has_media(idx, all->v[i]))
			return fuzz_snapshot_fail("an id outside the bound", NULL);
		uint32_t r = mlib_index_library_rank(idx, order->v[i]);
		if (r >= count || order->v[r] != order->v[i])
			return fuzz_snapshot_fail("library rank and order disagree", NULL);
	}
	for (uint32_t id = 0; id <= bound; id++)
		(void)mlib_index_library_rank(idx, id);
	const struct bitset *present = mlib_index_present_set(idx);
	if (present->nbits < bound)
		return fuzz_snapshot_fail("present set shorter than the bound", NULL);
	struct bitset vals, out;
	uint64_t *ranks = xmalloc(((size_t)count + 1) * sizeof *ranks);
	uint32_t *vids = xmalloc(((size_t)count + 1) * sizeof *vids);
	char buf[64];
	const char *why = NULL;
	for (int p = 0; p < mlib_index_prop_count(idx) && !why; p++) {
		const char *name = mlib_index_prop_name(idx, p);
		(void)mlib_index_prop(idx, name);
		uint32_t nd = mlib_index_dict_size(idx, p);
		size_t sum = 0;
		for (uint32_t v = 0; v < nd; v++) {
			double num;
			sum += strlen(mlib_index_dict_text(idx, p, v));
			sum += strlen(mlib_index_dict_folded(idx, p, v));
			sum += mlib_index_dict_number(idx, p, v, &num);
			if (mlib_index_dict_rank(idx, p, v) >= nd)
				why = fuzz_snapshot_fail("a rank outside the dictionary of ", name);
		}
		if (nd) {
			const char *base;
			const uint32_t *offs;
			uint32_t n;
			mlib_index_dict_fold_span(idx, p, &base, &offs, &n);
			if (n != nd || base[offs[n] - 1] != '\0')
				why = fuzz_snapshot_fail("fold span not NUL-terminated in ", name);
			(void)mlib_index_dict_ranks(idx, p);
		}
		for (uint32_t id = 0; id <= bound + 1; id++) {
			const uint32_t *vs;
			size_t k = mlib_index_str_values(idx, p, id, &vs);
			for (size_t j = 0; j < k; j++)
				if (vs[j] >= nd)
					why = fuzz_snapshot_fail("a value id outside the dictionary of ", name);
			int64_t iv;
			sum += mlib_index_int_value(idx, p, id, &iv);
			const char *t = mlib_index_get_text(idx, id, name, buf, sizeof buf);
			sum += t ? strlen(t) : 0;
		}
		mlib_index_first_ranks(idx, p, all->v, all->n, ranks);
		mlib_index_first_vids(idx, p, all->v, all->n, vids);
		struct mlib_int_column col;
		if (mlib_index_int_column(idx, p, &col))
			for (uint32_t id = 0; id <= bound; id++)
				sum += mlib_int_column_get(&col, id) == MLIB_INT_MISSING;
		/* every other value, then the complement */
		bitset_init(&vals, (size_t)nd + 1);
		for (uint32_t v = 0; v < nd; v += 2)
			bitset_set(&vals, v);
		for (int none = 0; none < 2; none++) {
			bitset_init(&out, (size_t)bound + 1);
			mlib_index_select_str(idx, p, &vals, none, &out);
			bitset_free(&out);
		}
		bitset_free(&vals);
		/* a single value: the items-by-value path where it exists */
		if (nd) {
			bitset_init(&vals, nd);
			bitset_set(&vals, nd - 1);
			bitset_init(&out, (size_t)bound + 1);
			mlib_index_select_str(idx, p, &vals, false, &out);
			bitset_free(&out);
			bitset_free(&vals);
		}
		if (sum == (size_t)-1) /* keep the reads */
			why = fuzz_snapshot_fail("", NULL);
	}
	(void)mlib_index_memory(idx);
	free(ranks);
	free(vids);
	return why;
}

/* Grow idx like a built index: new items, new values of existing
 * properties, a string into an integer column; then finish it. */
static void fuzz_snapshot_grow(struct mlib_index *idx)
{
	uint32_t id = mlib_index_id_bound(idx) + 1;
	mlib_index_add_media(idx, id);
	for (int p = 0; p < mlib_index_prop_count(idx); p++) {
		const char *name = mlib_index_prop_name(idx, p);
		mlib_index_add_str_p(idx, id, p, "Zz fuzz", 7);
		mlib_index_add_str_p(idx, 1, p, "12", 2);
		mlib_index_set_int_p(idx, id, p, 1995);
		mlib_index_update_int(idx, id, name, 3);
		mlib_index_clear_int(idx, 1, name);
	}
	mlib_index_add_str(idx, id, "artist", "Ärger", strlen("Ärger"));
	mlib_index_finish(idx);
}

/* The mapped index of the file read_rc was the read's answer to: it
 * refuses too, or it gives an index that reads safely, which is damaged
 * exactly when the read refused (after every property was read). */
static const char *fuzz_snapshot_check_map(const char *path, int read_rc)
{
	struct mlib_index *idx = NULL;
	struct crate_err err = {0};
	if (mlib_index_snapshot_map(path, &fuzz_snapshot_key, &idx, &err) != 0) {
		if (idx)
			return fuzz_snapshot_fail("a refused mapping still gave an index", NULL);
		if (err.msg[0] == '\0')
			return fuzz_snapshot_fail("mapping refused without a message", NULL);
		return read_rc == 0 ? fuzz_snapshot_fail("mapping refused what reading took: ", err.msg)
				    : NULL;
	}
	/* A statistics update copies one property out, the rest stays mapped. */
	if (mlib_index_prop_count(idx) > 0) {
		const uint32_t *all = mlib_index_all_ids(idx)->v;
		if (mlib_index_count(idx) > 0)
			mlib_index_update_int(idx, all[0], mlib_index_prop_name(idx, 0), 7);
	}
	const char *why = fuzz_snapshot_exercise(idx);
	if (!why && mlib_index_map_damaged(idx) != (read_rc != 0))
		why = fuzz_snapshot_fail(read_rc ? "mapping took what reading refused"
						 : "mapping found damage reading did not", NULL);
	if (!why) {
		fuzz_snapshot_grow(idx);
		if (mlib_index_is_mapped(idx))
			why = fuzz_snapshot_fail("a changed index still reads the mapping", NULL);
		else
			why = fuzz_snapshot_exercise(idx);
	}
	mlib_index_free(idx);
	return why;
}

/* dir: where to put the file (NULL: $TMPDIR or /tmp). */
static const char *fuzz_snapshot_check(const uint8_t *data, size_t size, const char *dir)
{
	if (!dir)
		dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	snprintf(path, sizeof path, "%s/crate-fuzz-snapshot-%ld.index", dir, (long)getpid());
	struct crate_err err = {0};
	if (fuzz_snapshot_forge(path, data, size, &err) != 0)
		return fuzz_snapshot_fail("cannot write the snapshot: ", err.msg);
	struct mlib_index *idx = NULL;
	crate_err_clear(&err);
	int rc = mlib_index_snapshot_read(path, &fuzz_snapshot_key, &idx, &err);
	const char *why = NULL;
	if (rc != 0) {
		if (idx)
			why = fuzz_snapshot_fail("a refused snapshot still gave an index", NULL);
		else if (err.msg[0] == '\0')
			why = fuzz_snapshot_fail("refused without a message", NULL);
	} else {
		why = fuzz_snapshot_exercise(idx);
		if (!why) {
			fuzz_snapshot_grow(idx);
			why = fuzz_snapshot_exercise(idx);
		}
	}
	mlib_index_free(idx);
	if (!why)
		why = fuzz_snapshot_check_map(path, rc);
	unlink(path);
	return why;
}

/* ---- seeds: payloads of real indexes ---- */

/* Only tests/unit/test_fuzz_regress.c makes seeds; the fuzzer reads them. */
#ifndef CRATE_FUZZ_MAIN

/* A small index with what the format holds: several properties, multiple
 * values, folded twins that differ, numbers, wide and narrow integers,
 * gaps in the ids; which picks a variant. Owned by the caller. */
static struct mlib_index *fuzz_snapshot_seed_index(int which)
{
	static const char *const artists[] = { "Ärger", "ärger", "The Beatles", "Björk", "10", "2" };
	struct mlib_index *idx = mlib_index_new();
	int n = which == 0 ? 0 : which == 1 ? 5 : 24;
	for (int i = 1; i <= n; i++) {
		uint32_t id = (uint32_t)(i * (which == 2 ? 3 : 1));
		mlib_index_add_media(idx, id);
		const char *a = artists[i % 6];
		mlib_index_add_str(idx, id, "artist", a, strlen(a));
		if (i % 4 == 0)
			mlib_index_add_str(idx, id, "artist", "Feat. X", 7);
		char buf[32];
		int len = snprintf(buf, sizeof buf, "Album %d", i % 3);
		mlib_index_add_str(idx, id, "album", buf, (size_t)len);
		len = snprintf(buf, sizeof buf, "/m/%d.flac", i);
		mlib_index_add_str(idx, id, "url", buf, (size_t)len);
		mlib_index_set_int(idx, id, "tracknr", i);
		mlib_index_set_int(idx, id, "year", 1990 + i % 7);
		if (which == 2)
			mlib_index_set_int(idx, id, "added", (int64_t)1 << 40 | i);
	}
	mlib_index_finish(idx);
	return idx;
}

/* The sections of the snapshot of fuzz_snapshot_seed_index(which) as a
 * blob stream, written through dir; owned by the caller, NULL when it
 * cannot be made. */
static uint8_t *fuzz_snapshot_seed(int which, const char *dir, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/crate-fuzz-seed-%ld.index", dir, (long)getpid());
	struct mlib_index *idx = fuzz_snapshot_seed_index(which);
	struct crate_err err = {0};
	int rc = mlib_index_snapshot_write(idx, path, &fuzz_snapshot_key, &err);
	mlib_index_free(idx);
	if (rc != 0)
		return NULL;
	uint8_t *buf = snap_blob_stream(path, len);
	unlink(path);
	return buf;
}

#else /* CRATE_FUZZ_MAIN */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = fuzz_snapshot_check(data, size, NULL);
	if (why) {
		fprintf(stderr, "fuzz_snapshot oracle: %s\n", why);
		abort();
	}
	return 0;
}
#endif
