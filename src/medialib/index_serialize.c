/* The index as the blobs of a snapshot file (the file itself, header and
 * checksum: index_snapshot.c). See mlib_index_snapshot_write in index.h. */
#include "medialib/index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "medialib/index_internal.h"
#include "medialib/index_snapshot.h"

/* ---- snapshot (see index_snapshot.h for the file around this) ----
 * The finished index, array by array. Each array is read back into its
 * own allocation of exactly its length, so a loaded index is owned,
 * freed and grown exactly like a built one, and loading does no
 * per-string work. The hash tables (dropped at finish) are not stored;
 * ranks and items-by-value lists are stored when finish built them. */

#define SNAP_PROP_FIELDS 11

static void prop_snap_write(struct snap_writer *w, const struct prop *p)
{
	const struct dict *d = &p->d;
	uint64_t head[SNAP_PROP_FIELDS] = {
		(uint64_t)p->kind, p->wide, p->col_cap, p->multi_len, p->multi_ids.n, d->n,
		d->fold_len, d->raw_len, d->nnum, d->rank != NULL, p->post_off != NULL,
	};
	snap_put(w, p->name, strlen(p->name));
	snap_put(w, head, sizeof head);
	if (p->kind == MLIB_PROP_STRING)
		snap_put(w, p->scol, p->col_cap * sizeof *p->scol);
	else if (p->wide)
		snap_put(w, p->icol, p->col_cap * sizeof *p->icol);
	else
		snap_put(w, p->icol32, p->col_cap * sizeof *p->icol32);
	snap_put(w, p->multi, p->multi_len * sizeof *p->multi);
	snap_put(w, p->multi_ids.v, p->multi_ids.n * sizeof *p->multi_ids.v);
	size_t n = d->n;
	snap_put(w, d->fold, n ? d->fold_len : 0);
	snap_put(w, d->raw, n ? d->raw_len : 0);
	snap_put(w, d->fold_off, n ? (n + 1) * sizeof *d->fold_off : 0);
	snap_put(w, d->raw_off, n * sizeof *d->raw_off);
	snap_put(w, d->numbits, (n + 63) / 64 * sizeof *d->numbits);
	snap_put(w, d->num_vid, d->nnum * sizeof *d->num_vid);
	snap_put(w, d->num_val, d->nnum * sizeof *d->num_val);
	snap_put(w, d->rank, d->rank ? n * sizeof *d->rank : 0);
	snap_put(w, p->post_off, p->post_off ? (n + 1) * sizeof *p->post_off : 0);
	snap_put(w, p->post, p->post_off ? (size_t)p->post_off[n] * sizeof *p->post : 0);
}

int mlib_index_snapshot_write(const struct mlib_index *idx, const char *path,
			      const struct snap_key *key, struct crate_err *err)
{
	struct snap_writer *w = snap_writer_open(path, err);
	if (!w)
		return -1;
	uint64_t head[4] = { (uint64_t)idx->nprops, idx->present.nbits, idx->bound, idx->count };
	snap_put(w, head, sizeof head);
	snap_put(w, idx->present.w, bitset_words(&idx->present) * sizeof *idx->present.w);
	snap_put(w, idx->all_ids.v, idx->all_ids.n * sizeof *idx->all_ids.v);
	snap_put(w, idx->lib_order.v, idx->lib_order.n * sizeof *idx->lib_order.v);
	snap_put(w, idx->lib_rank, idx->lib_rank ? ((size_t)idx->bound + 1) * sizeof *idx->lib_rank : 0);
	for (int i = 0; i < idx->nprops; i++)
		prop_snap_write(w, &idx->props[i]);
	return snap_writer_commit(w, key, idx->count, err);
}

/* The next array of exactly want elements (NULL when want is 0); false
 * (reader failed) when the file holds another count. */
static bool snap_array(struct snap_reader *r, void *out, size_t elem, uint64_t want)
{
	size_t got;
	void *p = snap_get(r, elem, 0, &got);
	*(void **)out = p;
	if (got != want) {
		snap_fail(r, "an array has the wrong length");
		return false;
	}
	return true;
}

static bool prop_snap_read(struct snap_reader *r, struct prop *p)
{
	size_t n;
	p->name = snap_get(r, 1, 1, &n);
	if (!p->name || strlen(p->name) != n) {
		snap_fail(r, "bad property name");
		return false;
	}
	uint64_t h[SNAP_PROP_FIELDS];
	if (!snap_get_fixed(r, h, sizeof h))
		return false;
	/* Sizes the code's 32-bit offsets and the STR_MULTI tag can address. */
	if (h[0] > MLIB_PROP_INT || h[1] > 1 || (h[1] && h[0] != MLIB_PROP_INT) ||
	    h[2] > STR_MULTI || h[3] >= STR_MULTI || h[4] > h[2] || h[5] >= STR_MULTI ||
	    h[6] >= UINT32_MAX || h[7] >= UINT32_MAX || h[8] > h[5] || h[9] > 1 || h[10] > 1) {
		snap_fail(r, "bad property header");
		return false;
	}
	p->kind = (enum mlib_prop_kind)h[0];
	p->wide = h[1];
	p->col_cap = h[2];
	bool ok;
	if (p->kind == MLIB_PROP_STRING)
		ok = snap_array(r, &p->scol, sizeof *p->scol, h[2]);
	else if (p->wide)
		ok = snap_array(r, &p->icol, sizeof *p->icol, h[2]);
	else
		ok = snap_array(r, &p->icol32, sizeof *p->icol32, h[2]);
	ok = ok && snap_array(r, &p->multi, sizeof *p->multi, h[3]);
	p->multi_len = p->multi_cap = h[3];
	ok = ok && snap_array(r, &p->multi_ids.v, sizeof *p->multi_ids.v, h[4]);
	p->multi_ids.n = p->multi_ids.cap = h[4];
	struct dict *d = &p->d;
	uint64_t nd = h[5];
	d->n = d->cap = (uint32_t)nd;
	d->fold_len = d->fold_cap = nd ? h[6] : 0;
	d->raw_len = d->raw_cap = nd ? h[7] : 0;
	d->nnum = d->num_cap = h[8];
	ok = ok && snap_array(r, &d->fold, 1, d->fold_len);
	ok = ok && snap_array(r, &d->raw, 1, d->raw_len);
	ok = ok && snap_array(r, &d->fold_off, sizeof *d->fold_off, nd ? nd + 1 : 0);
	ok = ok && snap_array(r, &d->raw_off, sizeof *d->raw_off, nd);
	ok = ok && snap_array(r, &d->numbits, sizeof *d->numbits, (nd + 63) / 64);
	ok = ok && snap_array(r, &d->num_vid, sizeof *d->num_vid, h[8]);
	ok = ok && snap_array(r, &d->num_val, sizeof *d->num_val, h[8]);
	ok = ok && snap_array(r, &d->rank, sizeof *d->rank, h[9] ? nd : 0);
	ok = ok && snap_array(r, &p->post_off, sizeof *p->post_off, h[10] ? nd + 1 : 0);
	if (ok) {
		size_t np;
		p->post = snap_get(r, sizeof *p->post, 0, &np);
		ok = np == (p->post_off ? p->post_off[nd] : 0);
		if (!ok)
			snap_fail(r, "items-by-value list has the wrong length");
	}
	return ok;
}

/* Every offset and id the reading functions (and later additions) follow
 * stays inside its array: a snapshot that passed its checksum but is
 * inconsistent anyway (written by a buggy build, forged) must not crash.
 * Each offset is checked against its array's length before it is used. */
static bool dict_snap_valid(const struct dict *d)
{
	if (d->n == 0)
		return d->nnum == 0;
	/* Texts: value v is fold[fold_off[v] .. fold_off[v+1]-1), NUL-ended. */
	if (d->fold_len == 0 || d->fold_off[0] != 0 || d->fold_off[d->n] != d->fold_len)
		return false;
	for (uint32_t v = 0; v < d->n; v++) {
		uint32_t end = d->fold_off[v + 1];
		if (end <= d->fold_off[v] || end > d->fold_len || d->fold[end - 1] != '\0')
			return false;
		if (d->raw_off[v] != RAW_SAME && d->raw_off[v] >= d->raw_len)
			return false;
		if (d->rank && d->rank[v] >= d->n)
			return false;
	}
	if (d->raw_len && d->raw[d->raw_len - 1] != '\0')
		return false;
	/* Numbers: a bit per value exactly for the values listed, ascending
	 * (index_dict_number's binary search relies on both). */
	size_t bits = 0, nw = ((size_t)d->n + 63) / 64;
	for (size_t w = 0; w < nw; w++)
		bits += (size_t)__builtin_popcountll(d->numbits[w]);
	if (bits != d->nnum || (d->n % 64 && d->numbits[nw - 1] >> (d->n % 64)))
		return false;
	for (size_t i = 0; i < d->nnum; i++) {
		uint32_t v = d->num_vid[i];
		if (v >= d->n || (i && v <= d->num_vid[i - 1]) || !((d->numbits[v >> 6] >> (v & 63)) & 1) ||
		    !isfinite(d->num_val[i]))
			return false;
	}
	return true;
}

static bool prop_snap_valid(const struct prop *p)
{
	if (!dict_snap_valid(&p->d))
		return false;
	for (size_t i = 0; i < p->multi_ids.n; i++)
		if (p->multi_ids.v[i] >= p->col_cap)
			return false;
	if (p->post_off) {
		if (p->post_off[0] != 0)
			return false;
		for (uint32_t v = 0; v < p->d.n; v++)
			if (p->post_off[v + 1] < p->post_off[v])
				return false;
		for (uint32_t k = 0; k < p->post_off[p->d.n]; k++)
			if (p->post[k] >= p->col_cap)
				return false;
	}
	if (p->kind != MLIB_PROP_STRING)
		return true;
	for (size_t id = 0; id < p->col_cap; id++) {
		uint32_t c = p->scol[id];
		if (c == STR_MISSING)
			continue;
		if (!(c & STR_MULTI)) {
			if (c >= p->d.n)
				return false;
			continue;
		}
		size_t off = c & ~STR_MULTI;
		if (off >= p->multi_len || p->multi[off] == 0 || p->multi[off] > p->multi_len - off - 1)
			return false;
		for (uint32_t k = 1; k <= p->multi[off]; k++)
			if (p->multi[off + k] >= p->d.n)
				return false;
	}
	return true;
}

/* The items: the present bits are exactly all_ids (ascending, below
 * bound, never 0); library order is a permutation of them and lib_rank its
 * inverse (the evaluator sets bits at lib_rank values in a bitset of count
 * bits). */
static bool index_snap_valid(const struct mlib_index *idx)
{
	if (idx->bound > idx->present.nbits || idx->all_ids.n != idx->count ||
	    idx->lib_order.n != idx->count || !idx->lib_rank || bitset_test(&idx->present, 0))
		return false;
	size_t bits = 0;
	for (size_t w = 0; w < bitset_words(&idx->present); w++)
		bits += (size_t)__builtin_popcountll(idx->present.w[w]);
	if (bits != idx->count)
		return false;
	for (size_t i = 0; i < idx->count; i++) {
		uint32_t a = idx->all_ids.v[i];
		if (a >= idx->bound || !bitset_test(&idx->present, a) || (i && a <= idx->all_ids.v[i - 1]))
			return false;
	}
	for (uint32_t id = 0; id <= idx->bound; id++) {
		uint32_t r = idx->lib_rank[id];
		if (!bitset_test(&idx->present, id) ? r != UINT32_MAX
						    : r >= idx->count || idx->lib_order.v[r] != id)
			return false;
	}
	for (int i = 0; i < idx->nprops; i++)
		if (!prop_snap_valid(&idx->props[i]))
			return false;
	return true;
}

int mlib_index_snapshot_read(const char *path, const struct snap_key *key,
			     struct mlib_index **out, struct crate_err *err)
{
	*out = NULL;
	struct snap_reader *r = snap_reader_open(path, key, err);
	if (!r)
		return -1;
	struct mlib_index *idx = xcalloc(1, sizeof *idx);
	uint64_t h[4];
	bool ok = snap_get_fixed(r, h, sizeof h);
	if (ok && (h[0] > 4096 || h[1] == 0 || h[1] > (uint64_t)STR_MULTI * 2 || h[2] > h[1] ||
		   h[3] >= h[2] + (h[2] == 0) || h[3] != snap_reader_count(r))) {
		snap_fail(r, "bad index header");
		ok = false;
	}
	if (ok) {
		idx->present.nbits = h[1];
		idx->bound = (uint32_t)h[2];
		idx->count = (uint32_t)h[3];
		ok = snap_array(r, &idx->present.w, sizeof *idx->present.w, (h[1] + 63) / 64) &&
		     snap_array(r, &idx->all_ids.v, sizeof *idx->all_ids.v, h[3]) &&
		     snap_array(r, &idx->lib_order.v, sizeof *idx->lib_order.v, h[3]) &&
		     snap_array(r, &idx->lib_rank, sizeof *idx->lib_rank, h[2] + 1);
		idx->all_ids.n = idx->all_ids.cap = idx->lib_order.n = idx->lib_order.cap = h[3];
	}
	if (ok) {
		idx->props = xcalloc(h[0] ? h[0] : 1, sizeof *idx->props);
		idx->props_cap = (int)(h[0] ? h[0] : 1);
		for (uint64_t i = 0; ok && i < h[0]; i++) {
			idx->nprops++; /* counted first: free sees what was read */
			ok = prop_snap_read(r, &idx->props[i]);
		}
	}
	if (snap_reader_close(r, err) != 0) {
		mlib_index_free(idx);
		return -1;
	}
	if (!ok || !index_snap_valid(idx)) {
		mlib_index_free(idx);
		return crate_err_set(err, CRATE_ERR_INVALID, "%s: inconsistent index snapshot", path);
	}
	*out = idx;
	return 0;
}
