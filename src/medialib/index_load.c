/* SQLite -> index: the tag strings of `media_string` read once, one
 * sequential scan of `media` (first values in columns, repetitive tags as
 * ids in media_string), one of `media_tag` (the rest), see the schema
 * comments in media.c. */
#include "medialib/index_load.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "medialib/index_internal.h"
#include "medialib/index_snapshot.h"
#include "medialib/media_analysis.h"

/* Column order of the SELECT below; kind says how to feed the index.
 * COL_SID: the column <name>_sid holds an id in media_string. */
enum col_kind { COL_BLOB, COL_TEXT, COL_INT, COL_SID };
static const struct {
	const char *name;
	enum col_kind kind;
} cols[] = {
	{"url", COL_BLOB},	 {"filesize", COL_INT},	   {"mtime", COL_INT},
	{"added", COL_INT},	 {"duration", COL_INT},	   {"bitrate", COL_INT},
	{"samplerate", COL_INT}, {"channels", COL_INT},	   {"format", COL_SID},
	{"lastplayed", COL_INT}, {"timesplayed", COL_INT}, {"rating", COL_INT},
	{"artist", COL_SID},	 {"album", COL_SID},	   {"albumartist", COL_SID},
	{"title", COL_TEXT},	 {"tracknr", COL_INT},	   {"tracktotal", COL_INT},
	{"discnr", COL_INT},	 {"disctotal", COL_INT},   {"date", COL_SID},
	{"year", COL_INT},	 {"genre", COL_SID},	   {"composer", COL_SID},
	{"comment", COL_TEXT},	 {"timesskipped", COL_INT}, {"cue_start", COL_INT},
	{"cue_end", COL_INT},
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* A property's handle, defined when its first value comes (a property no
 * item has must stay unknown to the index: mlib_index_prop gives -1). */
static int col_prop(struct mlib_index *idx, int *handles, size_t c)
{
	if (handles[c] < 0)
		handles[c] = mlib_index_prop_define(
			idx, cols[c].name, cols[c].kind == COL_INT ? MLIB_PROP_INT : MLIB_PROP_STRING);
	return handles[c];
}

/* ---- the tag strings: media_string in memory, read once ----
 * Rows of media carry ids; a builder interns each string into its
 * property's dictionary the first time a row refers to it and keeps the
 * value id in an array (vmap), so the rest of its rows cost no hashing. */

struct strtab {
	size_t n;
	int64_t *id;    /* ascending */
	size_t *off;    /* string k: bytes + off[k], len[k] bytes */
	int32_t *len;   /* 0: an empty text, which counts as absent */
	char *bytes;
	uint32_t *slot; /* slot[id] = k + 1 for ids below nslot (0: none) */
	int64_t nslot;
};

static void strtab_free(struct strtab *t)
{
	free(t->id);
	free(t->off);
	free(t->len);
	free(t->bytes);
	free(t->slot);
	memset(t, 0, sizeof *t);
}

/* The index k of string id sid, -1 when there is none. */
static int64_t strtab_find(const struct strtab *t, int64_t sid)
{
	if (sid >= 0 && sid < t->nslot)
		return (int64_t)t->slot[sid] - 1;
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->id[mid] < sid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->id[lo] == sid ? (int64_t)lo : -1;
}

static int strtab_load(struct mlib_db *db, struct strtab *t, struct crate_err *err)
{
	memset(t, 0, sizeof *t);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT id, value FROM media_string ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the tag strings", err);
	size_t cap = 0, blen = 0, bcap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (t->n == cap) {
			cap = cap ? cap * 2 : 1024;
			t->id = xreallocarray(t->id, cap, sizeof *t->id);
			t->off = xreallocarray(t->off, cap, sizeof *t->off);
			t->len = xreallocarray(t->len, cap, sizeof *t->len);
		}
		/* Read in the value's own storage class, as a text column would be. */
		const char *v = sqlite3_column_type(st, 1) == SQLITE_BLOB
					? sqlite3_column_blob(st, 1)
					: (const char *)sqlite3_column_text(st, 1);
		int n = sqlite3_column_bytes(st, 1);
		if (!v || n < 0)
			n = 0;
		if (blen + (size_t)n > bcap) {
			bcap = (blen + (size_t)n) * 2 + 4096;
			t->bytes = xrealloc(t->bytes, bcap);
		}
		if (n)
			memcpy(t->bytes + blen, v, (size_t)n);
		t->id[t->n] = sqlite3_column_int64(st, 0);
		t->off[t->n] = blen;
		t->len[t->n++] = n;
		blen += (size_t)n;
	}
	if (mlib_db_finish(db, st, rc, "cannot read the tag strings", err) != 0) {
		strtab_free(t);
		return -1;
	}
	/* Ids are dense in practice (SQLite hands out max + 1): a direct
	 * table, unless some are far apart (then the search above). */
	int64_t last = t->n ? t->id[t->n - 1] : 0; /* compared before + 1: INT64_MAX would wrap */
	if (t->n && t->id[0] >= 0 && last < (int64_t)(8 * t->n + 65536)) {
		int64_t top = last + 1;
		t->nslot = top;
		t->slot = xcalloc((size_t)top, sizeof *t->slot);
		for (size_t k = 0; k < t->n; k++)
			t->slot[t->id[k]] = (uint32_t)k + 1;
	}
	return 0;
}

/* ---- the media table: read on reader threads, indexed by builders ----
 * Stepping SQLite and decoding its columns is over half of a cold load.
 * Reader threads do it into batches of rows while builder threads (the
 * calling one and up to two more, each filling its own columns) feed
 * earlier batches to the index, in row order, exactly as one thread would
 * (the same value ids, the same index). With more than one reader,
 * the ids are cut into chunks read in turn: reader j reads chunks j,
 * j + n, j + 2n, ... on a connection of its own (the caller's for reader
 * 0), and the indexing thread takes the chunks in order. A second
 * connection is used only when its read transaction sees the library at
 * the same change counters as the caller's (media_generation): then it
 * reads the same rows. */

#define BATCH_ROWS 4096
#define NBATCH 3       /* batches in flight: one filling, one indexing, one spare */
#define CELL_NULL (-1) /* the row lacks the value (NULL, or empty text) */

struct row_batch {
	uint32_t n, cap; /* rows held, and room */
	uint32_t *id;
	/* Column by column (a builder reads its columns whole, so a column's
	 * cells are best side by side): per row the integer, or the text's
	 * offset in bytes; the text's length, 0 for an integer, or CELL_NULL. */
	int64_t *val[NCOLS];
	int32_t *len[NCOLS];
	char *bytes;
	size_t blen, bcap;
	bool last;     /* the last batch of its chunk of ids */
	uint64_t before; /* rows indexed before this batch (set when indexed) */
	uint32_t seen; /* bit c: some row has a value in column c */
};

/* n empty batches whose arrays share one block (*block: the caller frees
 * it after the batches' bytes and the batches). In huge pages when large:
 * malloc would map (and the readers fault in) 4 kB at a time. Not zeroed:
 * a batch is written before it is read, and a fresh page is zeroed by
 * the kernel as it is first written anyway. Room for max_id rows at most
 * (ids are unique and from 1): a library of a few rows, as every test
 * has, takes a few kB rather than 1.1 MB per batch. */
static struct row_batch *batches_new(size_t n, int64_t max_id, void **block)
{
	uint32_t cap = max_id >= 1 && max_id < BATCH_ROWS ? (uint32_t)max_id : BATCH_ROWS;
	size_t per = (size_t)cap * (sizeof(uint32_t) + NCOLS * (sizeof(int64_t) + sizeof(int32_t)));
	char *at = xmalloc_huge(n * per);
	*block = at;
	struct row_batch *b = xcalloc(n, sizeof *b);
	for (size_t i = 0; i < n; i++) {
		b[i].cap = cap;
		for (size_t c = 0; c < NCOLS; c++, at += cap * sizeof(int64_t))
			b[i].val[c] = (int64_t *)(void *)at;
		for (size_t c = 0; c < NCOLS; c++, at += cap * sizeof(int32_t))
			b[i].len[c] = (int32_t *)(void *)at;
		b[i].id = (uint32_t *)(void *)at;
		at += cap * sizeof(uint32_t);
	}
	return b;
}

/* Row r of b from its cells (cell[c]: column c, in the order of cols; a
 * COL_SID cell becomes its string's index in strs). */
static void batch_put(struct row_batch *b, const struct strtab *strs, uint32_t r,
		      sqlite3_value **cell)
{
	for (size_t c = 0; c < NCOLS; c++) {
		int type = sqlite3_value_type(cell[c]);
		b->len[c][r] = CELL_NULL;
		if (type == SQLITE_NULL)
			continue;
		if (cols[c].kind == COL_INT) {
			b->val[c][r] = sqlite3_value_int64(cell[c]);
			b->len[c][r] = 0;
			b->seen |= 1u << c;
			continue;
		}
		if (cols[c].kind == COL_SID) {
			/* Not an id of a string (a hand-edited row): absent. */
			int64_t k = type == SQLITE_INTEGER
					    ? strtab_find(strs, sqlite3_value_int64(cell[c]))
					    : -1;
			if (k < 0 || strs->len[k] <= 0)
				continue;
			b->val[c][r] = k;
			b->len[c][r] = 0;
			b->seen |= 1u << c;
			continue;
		}
		/* Text read in the column's own storage: no conversion copy. */
		const char *v = cols[c].kind == COL_BLOB || type == SQLITE_BLOB
					? sqlite3_value_blob(cell[c])
					: (const char *)sqlite3_value_text(cell[c]);
		int n = sqlite3_value_bytes(cell[c]);
		if (!v || n <= 0)
			continue;
		if (b->blen + (size_t)n > b->bcap) {
			b->bcap = (b->blen + (size_t)n) * 2;
			b->bytes = xrealloc(b->bytes, b->bcap);
		}
		memcpy(b->bytes + b->blen, v, (size_t)n);
		b->val[c][r] = (int64_t)b->blen;
		b->len[c][r] = n;
		b->blen += (size_t)n;
		b->seen |= 1u << c;
	}
}

/* Where the row function puts the rows of a statement: the batch being
 * filled (bound to the statement as a pointer, see ROW_FN). */
struct row_sink {
	struct row_batch *b;
	const struct strtab *strs;
};

#define ROW_FN "crate_index_load_row"
#define ROW_SINK_TYPE "crate_row_sink"

/* ROW_FN(sink, id, cells...): the row into sink's batch. SQLite passes a
 * function its arguments as one array of values, so the reader pays no
 * sqlite3_column_value call per cell (each takes the connection's mutex
 * and checks for an allocation failure: over a quarter of a reader's time
 * at 28 columns). Evaluated once per row the SELECT returns, in its
 * order (ids ascending: a scan of the table's b-tree). */
static void row_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct row_sink *s = argc == (int)NCOLS + 2 ? sqlite3_value_pointer(argv[0], ROW_SINK_TYPE)
						    : NULL;
	if (!s || !s->b || s->b->n >= s->b->cap) {
		sqlite3_result_error(ctx, ROW_FN ": not called by the index loader", -1);
		return;
	}
	int64_t id64 = sqlite3_value_int64(argv[1]);
	if (id64 < 1 || id64 > UINT32_MAX - 1)
		return;
	struct row_batch *b = s->b;
	uint32_t r = b->n++;
	b->id[r] = (uint32_t)id64;
	batch_put(b, s->strs, r, argv + 2);
}

/* Read up to b->cap rows into b. sink: NULL when st selects the
 * columns themselves, else st's ROW_FN sink (st then selects nothing
 * but the function's NULL). Returns SQLITE_ROW when b is full (more may
 * follow), SQLITE_DONE at the end, or SQLite's error code. */
static int batch_fill(sqlite3_stmt *st, struct row_sink *sink, struct row_batch *b,
		      const struct strtab *strs)
{
	b->n = 0;
	b->blen = 0;
	b->seen = 0;
	int rc = SQLITE_ROW;
	if (sink) { /* each step adds (at most) its row through row_fn */
		sink->b = b;
		while (b->n < b->cap && (rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		sink->b = NULL;
		return rc;
	}
	sqlite3_value *cell[NCOLS];
	while (b->n < b->cap && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id64 = sqlite3_column_int64(st, 0);
		if (id64 < 1 || id64 > UINT32_MAX - 1)
			continue;
		uint32_t r = b->n++;
		b->id[r] = (uint32_t)id64;
		/* One call into the statement per cell: sqlite3_column_type,
		 * _int64, _bytes each look the cell up again. */
		for (size_t c = 0; c < NCOLS; c++)
			cell[c] = sqlite3_column_value(st, (int)c + 1);
		batch_put(b, strs, r, cell);
	}
	return rc;
}

/* A dictionary of a COL_SID column takes its values from strs alone (in
 * this load): room for all of them at once spares it the regrowths
 * (copies, and faults on the copies) on the way to tens of thousands of
 * albums. Only reserved, not touched, and trimmed at finish
 * (index_dict_compact); each array below 2 MB, where it would be put on
 * huge pages and a column of four formats would hold 2 MB. */
#define SID_RESERVE_MAX ((size_t)2 << 20)

static void sid_dict_reserve(struct dict *d, const struct strtab *strs)
{
	if (!strs->n)
		return;
	size_t n = strs->n, bytes = strs->off[n - 1] + (size_t)strs->len[n - 1] + n;
	size_t most = SID_RESERVE_MAX / sizeof *d->fold_off - 2;
	index_dict_reserve(d, (uint32_t)(n < most ? n : most),
			   bytes < SID_RESERVE_MAX ? bytes : SID_RESERVE_MAX - 1,
			   bytes < SID_RESERVE_MAX ? bytes : SID_RESERVE_MAX - 1);
}

/* Define the properties of the columns whose first value is in b, in the
 * order a row-by-row pass meets them (property handles follow it). */
static void batch_define(struct mlib_index *idx, int *handles, uint32_t *defined,
			 const struct row_batch *b, const struct strtab *strs)
{
	if (!(b->seen & ~*defined))
		return;
	for (uint32_t r = 0; r < b->n; r++)
		for (size_t c = 0; c < NCOLS; c++)
			if (handles[c] < 0 && b->len[c][r] != CELL_NULL) {
				struct prop *p = index_prop(idx, col_prop(idx, handles, c));
				*defined |= 1u << c;
				if (cols[c].kind == COL_SID && p->kind == MLIB_PROP_STRING)
					sid_dict_reserve(&p->d, strs);
			}
}

/* Rows indexed before a text column's dictionary is sized for the whole
 * load from what they held. */
#define SAMPLE_ROWS (4 * BATCH_ROWS)

/* After the first SAMPLE_ROWS rows: a dictionary that took a value for
 * at least one row in four (titles, urls) gets room for as many values
 * and bytes per row over the expected rows, so that it is not regrown and
 * rehashed (copied) a dozen times on the way to a million values. The
 * others stay small and grow as they go. Only an estimate either way. */
static void dict_presize(struct dict *d, uint64_t rows, uint64_t expected)
{
	/* expected is max(id): a stray id far above the rest (a hand-edited
	 * database) must not size a dictionary past what a library holds;
	 * beyond 2^24 rows the arrays grow as they go. */
	if (expected > (UINT64_C(1) << 24))
		expected = UINT64_C(1) << 24;
	if (rows == 0 || expected <= rows || (uint64_t)d->n * 4 < rows)
		return;
	double f = (double)expected / (double)rows;
	double n = (double)d->n * f;
	/* Texts get a fifth more: later rows' are often longer (urls of a
	 * million files run 10% longer than the first 12k), and one regrowth
	 * of a 20 MB arena costs more than its unused tail. */
	index_dict_reserve(d, (uint32_t)(n < (double)UINT32_MAX / 2 ? n : (double)UINT32_MAX / 2),
			   (size_t)((double)d->fold_len * f * 1.2), (size_t)((double)d->raw_len * f * 1.2));
}

/* A dictionary whose lookup table outgrows the processor's caches
 * (titles) is probed in passes over a window of a batch's rows: every
 * value's hash first, prefetching its slot, then what its lookup will
 * compare, then the lookups, which find their slots and texts loaded (one
 * wait on memory per value, three per repeated one, was most of the
 * interning). A window of 512 rows keeps what it prefetched (~70 kB) in
 * the core's caches until it is used: a whole batch's (4096) did not, and
 * took a quarter more time. */
#define PREFETCH_SLOTS (1u << 14)
#define PREFETCH_WINDOW 512

/* Rows [r0, r1) of b's text column c into p; hs, ls: room for their
 * hashes and lengths (indexed by row). */
static void text_window_apply(struct prop *p, const struct row_batch *b, size_t c, uint32_t r0,
			      uint32_t r1, uint32_t *hs, uint32_t *ls)
{
	const char *prev = NULL;
	uint32_t prev_len = 0, prev_h = 0;
	for (uint32_t r = r0; r < r1; r++) {
		int32_t len = b->len[c][r];
		if (len == CELL_NULL)
			continue;
		const char *v = b->bytes + b->val[c][r];
		uint32_t l = (uint32_t)strnlen(v, (size_t)len); /* a NUL inside a tag ends it */
		if (!prev || l != prev_len || memcmp(v, prev, l) != 0) { /* albums repeat values */
			prev_h = hash_bytes(v, l);
			index_dict_prefetch(&p->d, prev_h);
		}
		prev = v;
		prev_len = l;
		hs[r] = prev_h;
		ls[r] = l;
	}
	/* Then, for the values already there, their offsets and texts: a
	 * title repeating an earlier one (a third of them at a million
	 * tracks) otherwise waits on memory three times in its comparison. */
	for (int step = 0; step < 2; step++) {
		const uint32_t *last = NULL; /* a run of one value: once */
		for (uint32_t r = r0; r < r1; r++)
			if (b->len[c][r] != CELL_NULL && (!last || hs[r] != *last))
				index_dict_prefetch_match(&p->d, *(last = &hs[r]), step);
	}
	for (uint32_t r = r0; r < r1; r++)
		if (b->len[c][r] != CELL_NULL)
			index_prop_add_str_h(p, b->id[r], b->bytes + b->val[c][r], ls[r], hs[r]);
}

static void batch_apply_text(struct prop *p, const struct row_batch *b, size_t c)
{
	static _Thread_local uint32_t hs[BATCH_ROWS], ls[BATCH_ROWS];
	for (uint32_t r0 = 0; r0 < b->n; r0 += PREFETCH_WINDOW)
		text_window_apply(p, b, c, r0, b->n - r0 < PREFETCH_WINDOW ? b->n : r0 + PREFETCH_WINDOW,
				  hs, ls);
}

/* Column c of b (media_string ids) into the string property p: each
 * string interned the first time (vmap[k]: its value id + 1, the same
 * value ids as interning the text each time), then the batch's values in
 * one call. */
static void batch_apply_shared(struct prop *p, const struct row_batch *b, size_t c,
			       const struct strtab *strs, uint32_t *vmap)
{
	static _Thread_local uint32_t ids[BATCH_ROWS], vids[BATCH_ROWS];
	size_t n = 0;
	for (uint32_t r = 0; r < b->n; r++) {
		if (b->len[c][r] == CELL_NULL)
			continue;
		int64_t k = b->val[c][r];
		if (!vmap[k]) /* a string property: the intern cannot fail */
			vmap[k] = index_prop_intern(p, strs->bytes + strs->off[k],
						    (size_t)strs->len[k]) + 1;
		ids[n] = b->id[r];
		vids[n++] = vmap[k] - 1;
	}
	index_prop_add_vids(p, ids, vids, n);
}

/* Integer column c of b into p, in one call. */
static void batch_apply_ints(struct prop *p, const struct row_batch *b, size_t c)
{
	static _Thread_local uint32_t ids[BATCH_ROWS];
	static _Thread_local int64_t vals[BATCH_ROWS];
	size_t n = 0;
	for (uint32_t r = 0; r < b->n; r++) {
		if (b->len[c][r] == CELL_NULL)
			continue;
		ids[n] = b->id[r];
		vals[n++] = b->val[c][r];
	}
	index_prop_set_ints(p, ids, vals, n);
}

/* The values of b in the columns of mask, column by column (each
 * property's values still in row order: the same value ids). vmap[c]: the
 * value ids of column c's strings (COL_SID). expected: how many rows the
 * load should see in all. */
static void batch_apply_cols(struct mlib_index *idx, const int *handles, uint32_t mask,
			     const struct row_batch *b, const struct strtab *strs,
			     uint32_t *const *vmap, uint64_t expected)
{
	bool sample = b->before < SAMPLE_ROWS && b->before + b->n >= SAMPLE_ROWS;
	for (size_t c = 0; c < NCOLS; c++) {
		if (!(mask & b->seen & (1u << c)))
			continue;
		struct prop *p = index_prop(idx, handles[c]);
		if (sample && cols[c].kind != COL_INT)
			dict_presize(&p->d, b->before, expected);
		if (cols[c].kind == COL_TEXT && p->kind == MLIB_PROP_STRING &&
		    p->d.lookup.nslots >= PREFETCH_SLOTS) {
			batch_apply_text(p, b, c);
			continue;
		}
		if (cols[c].kind == COL_SID && p->kind == MLIB_PROP_STRING) {
			batch_apply_shared(p, b, c, strs, vmap[c]);
			continue;
		}
		if (cols[c].kind == COL_INT) {
			batch_apply_ints(p, b, c);
			continue;
		}
		for (uint32_t r = 0; r < b->n; r++) {
			int32_t len = b->len[c][r];
			if (len == CELL_NULL)
				continue;
			if (cols[c].kind == COL_SID) /* not a string property: the text itself */
				index_prop_add_str(p, b->id[r], strs->bytes + strs->off[b->val[c][r]],
						   (size_t)strs->len[b->val[c][r]]);
			else if (cols[c].kind == COL_BLOB) /* url: UNIQUE in the schema */
				index_prop_add_unique_str(p, b->id[r], b->bytes + b->val[c][r],
							  (size_t)len);
			else
				index_prop_add_str(p, b->id[r], b->bytes + b->val[c][r], (size_t)len);
		}
	}
}

/* ---- indexing: the columns split between builder threads ----
 * Each property is built by one builder, batch after batch; the calling
 * thread (builder 0) also adds the items and defines the properties, and
 * hands each batch to the others only then (props reserved beforehand, so
 * they never move while a builder fills one). */

#define MAX_BUILDERS 3

struct crew {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct mlib_index *idx;
	int handles[NCOLS];
	uint32_t defined;            /* columns with a property */
	uint32_t mask[MAX_BUILDERS]; /* the columns each builder fills */
	int n;                       /* builders, the calling thread included */
	const struct row_batch *b;   /* the batch being indexed */
	const struct strtab *strs;   /* media_string */
	uint32_t *vmap[NCOLS];       /* COL_SID: string index -> value id + 1 */
	uint64_t posted, done[MAX_BUILDERS];
	bool quit;
	uint64_t rows, expected; /* rows indexed so far; expected in all */
};

/* Rough cost of a column per row (from profiles of a 1M-track load), to
 * split them evenly: titles are mostly new values looked up in a large
 * dictionary; urls are all new but never looked up; other texts mostly
 * repeat the row before. */
static unsigned col_weight(size_t c)
{
	if (strcmp(cols[c].name, "title") == 0)
		return 24;
	if (cols[c].kind == COL_BLOB)
		return 8;
	return cols[c].kind == COL_TEXT ? 2 : 1; /* COL_SID: an array look-up, as an int */
}

static void crew_split(struct crew *w)
{
	/* Builder 0 also adds the items and defines the properties: with the
	 * title dictionary presized and prefetched that is worth most of a
	 * title column (4 left the calling thread with 60% more samples than
	 * the other builder in a 1M load; 20 evens them). */
	unsigned load[MAX_BUILDERS] = {20};
	bool taken[NCOLS] = {false};
	for (size_t k = 0; k < NCOLS; k++) {
		size_t best = 0; /* heaviest column left, first on ties */
		for (size_t c = 0; c < NCOLS; c++)
			if (!taken[c] && (taken[best] || col_weight(c) > col_weight(best)))
				best = c;
		int to = 0;
		for (int i = 1; i < w->n; i++)
			if (load[i] < load[to])
				to = i;
		taken[best] = true;
		w->mask[to] |= 1u << best;
		load[to] += col_weight(best);
	}
}

struct crew_member {
	struct crew *w;
	int me;
	pthread_t th;
};

static void *builder_main(void *arg)
{
	struct crew_member *m = arg;
	struct crew *w = m->w;
	for (;;) {
		pthread_mutex_lock(&w->mu);
		while (w->done[m->me] == w->posted && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->quit) {
			pthread_mutex_unlock(&w->mu);
			return NULL;
		}
		const struct row_batch *b = w->b;
		pthread_mutex_unlock(&w->mu);
		batch_apply_cols(w->idx, w->handles, w->mask[m->me], b, w->strs, w->vmap, w->expected);
		pthread_mutex_lock(&w->mu);
		w->done[m->me]++;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
}

/* Start up to n builders for idx (fewer if threads cannot be had). */
static void crew_start(struct crew *w, struct crew_member *m, struct mlib_index *idx,
		       const struct strtab *strs, int n,
		       uint64_t expected)
{
	memset(w, 0, sizeof *w);
	w->idx = idx;
	w->strs = strs;
	w->expected = expected;
	for (size_t c = 0; c < NCOLS; c++) {
		w->handles[c] = -1;
		if (cols[c].kind == COL_SID)
			w->vmap[c] = xcalloc(strs->n ? strs->n : 1, sizeof *w->vmap[c]);
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	/* Properties defined while builders fill others must not move them. */
	index_reserve_props(idx, idx->nprops + (int)NCOLS);
	w->n = 1;
	for (int i = 1; i < n; i++) {
		m[i].w = w;
		m[i].me = i;
		if (pthread_create(&m[i].th, NULL, builder_main, &m[i]) != 0)
			break;
		w->n++;
	}
	crew_split(w);
}

static void crew_stop(struct crew *w, struct crew_member *m)
{
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	for (int i = 1; i < w->n; i++)
		pthread_join(m[i].th, NULL);
	for (size_t c = 0; c < NCOLS; c++)
		free(w->vmap[c]);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
}

/* Index b with every builder; returns when all are done with it. */
static void crew_apply(struct crew *w, struct row_batch *b)
{
	b->before = w->rows;
	w->rows += b->n;
	for (uint32_t r = 0; r < b->n; r++)
		mlib_index_add_media(w->idx, b->id[r]);
	batch_define(w->idx, w->handles, &w->defined, b, w->strs);
	if (w->n > 1) {
		pthread_mutex_lock(&w->mu);
		w->b = b;
		w->posted++;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
	batch_apply_cols(w->idx, w->handles, w->mask[0], b, w->strs, w->vmap, w->expected);
	if (w->n > 1) {
		pthread_mutex_lock(&w->mu);
		for (int i = 1; i < w->n; i++)
			while (w->done[i] != w->posted)
				pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
	}
}

#define MAX_READERS 3

struct load_pipe;

struct reader {
	struct load_pipe *pipe;
	int j;
	sqlite3 *own; /* the reader's own connection; NULL: the caller's */
	sqlite3_stmt *st;
	struct row_sink sink; /* st's rows go through ROW_FN (use_fn) */
	bool use_fn;
	struct row_batch *slot[NBATCH];
	size_t head, tail; /* slots [head, tail) (mod NBATCH) wait to be indexed */
	bool done;         /* the reader has stopped; rc says why */
	int rc;
};

struct load_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct reader r[MAX_READERS];
	int n;
	int64_t max_id, width; /* chunk k holds ids (k * width, (k + 1) * width] */
	const struct strtab *strs;
	bool stop;             /* the indexing thread gave up: readers end */
};

/* Fill the next slot from r's statement; false when the reader must end. */
static bool reader_fill(struct reader *r, int *rc)
{
	struct load_pipe *p = r->pipe;
	pthread_mutex_lock(&p->mu);
	while (r->tail - r->head == NBATCH && !p->stop)
		pthread_cond_wait(&p->cv, &p->mu);
	bool stop = p->stop;
	struct row_batch *b = r->slot[r->tail % NBATCH];
	pthread_mutex_unlock(&p->mu);
	if (stop)
		return false;
	*rc = batch_fill(r->st, r->use_fn ? &r->sink : NULL, b, p->strs);
	b->last = *rc != SQLITE_ROW;
	bool ok = *rc == SQLITE_ROW || *rc == SQLITE_DONE;
	pthread_mutex_lock(&p->mu);
	if (ok)
		r->tail++;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return ok;
}

/* r's statement (reset) for the ids (lo, hi]. */
static void reader_bind(struct reader *r, int64_t lo, int64_t hi)
{
	sqlite3_reset(r->st);
	sqlite3_bind_int64(r->st, 1, lo);
	sqlite3_bind_int64(r->st, 2, hi);
	if (r->use_fn)
		sqlite3_bind_pointer(r->st, 3, &r->sink, ROW_SINK_TYPE, NULL);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct load_pipe *p = r->pipe;
	int rc = SQLITE_DONE;
	for (int64_t lo = r->j * p->width; lo < p->max_id; lo += p->n * p->width) {
		reader_bind(r, lo, lo + p->width);
		do {
			if (!reader_fill(r, &rc))
				goto out;
		} while (rc == SQLITE_ROW);
	}
out:
	pthread_mutex_lock(&p->mu);
	r->done = true;
	r->rc = rc;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Index every chunk in order as its reader fills it. SQLITE_DONE when all
 * were indexed, else the failing reader's code in *rc and its number in
 * *who. */
static int pipe_consume(struct load_pipe *p, struct crew *w, int *who)
{
	int64_t k = 0;
	for (int64_t lo = 0; lo < p->max_id; lo += p->width, k++) {
		struct reader *r = &p->r[k % p->n];
		bool last = false;
		while (!last) {
			pthread_mutex_lock(&p->mu);
			while (r->head == r->tail && !r->done)
				pthread_cond_wait(&p->cv, &p->mu);
			if (r->head == r->tail) { /* stopped before this chunk's end */
				int rc = r->rc == SQLITE_DONE ? SQLITE_ERROR : r->rc;
				pthread_mutex_unlock(&p->mu);
				*who = (int)(k % p->n);
				return rc;
			}
			struct row_batch *b = r->slot[r->head % NBATCH];
			pthread_mutex_unlock(&p->mu);
			crew_apply(w, b);
			last = b->last;
			pthread_mutex_lock(&p->mu);
			r->head++;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->mu);
		}
	}
	return SQLITE_DONE;
}

#define MEDIA_SQL_TAIL " FROM media WHERE missing=0 AND id > ?1 AND id <= ?2 ORDER BY id"

/* A second connection to db's file for reader j, in a read transaction
 * that sees what the caller's does (the same change counters in key);
 * NULL when that cannot be had. */
static sqlite3 *open_reader_conn(struct mlib_db *db, const struct snap_key *key)
{
	sqlite3 *c = NULL;
	if (sqlite3_open_v2(mlib_db_path(db), &c, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		sqlite3_close(c);
		return NULL;
	}
	sqlite3_busy_timeout(c, 100); /* only a help: not worth waiting long for */
	sqlite3_stmt *st = NULL;
	bool same = sqlite3_exec(c, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
		    sqlite3_prepare_v2(c, "SELECT dbid, n, stats FROM media_generation WHERE id=0",
				       -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW &&
		    (uint64_t)sqlite3_column_int64(st, 0) == key->dbid &&
		    (uint64_t)sqlite3_column_int64(st, 1) == key->generation &&
		    (uint64_t)sqlite3_column_int64(st, 2) == key->stats;
	sqlite3_finalize(st);
	if (!same) {
		sqlite3_close(c);
		return NULL;
	}
	return c;
}

/* The largest id a row may have (0 for an empty table), at most the
 * largest the index takes. */
static int64_t media_max_id(sqlite3 *s)
{
	sqlite3_stmt *st;
	int64_t max = 0;
	if (sqlite3_prepare_v2(s, "SELECT max(id) FROM media", -1, &st, NULL) != SQLITE_OK)
		return (int64_t)UINT32_MAX - 1; /* the read below reports the error */
	if (sqlite3_step(st) == SQLITE_ROW)
		max = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return max < 0 ? 0 : max > (int64_t)UINT32_MAX - 1 ? (int64_t)UINT32_MAX - 1 : max;
}

/* Threads worth having on this machine, up to max: reading and indexing
 * each use as many as there are cores, up to their maximum. */
static int threads_wanted(int max)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > max ? max : (int)n;
}

/* r's statement on connection c: through ROW_FN when the function can be
 * had there (defining it again on a connection running statements, as a
 * second load on the caller's may, fails: then the columns one by one). */
static int reader_prepare(struct reader *r, sqlite3 *c)
{
	char sql[768];
	size_t len = 0;
	r->use_fn = sqlite3_create_function_v2(c, ROW_FN, (int)NCOLS + 2,
					       SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL, row_fn, NULL,
					       NULL, NULL) == SQLITE_OK;
	len += (size_t)snprintf(sql, sizeof sql, r->use_fn ? "SELECT " ROW_FN "(?3, id" : "SELECT id");
	for (size_t i = 0; i < NCOLS; i++)
		len += (size_t)snprintf(sql + len, sizeof sql - len, ", %s%s", cols[i].name,
					cols[i].kind == COL_SID ? "_sid" : "");
	snprintf(sql + len, sizeof sql - len, "%s" MEDIA_SQL_TAIL, r->use_fn ? ")" : "");
	return sqlite3_prepare_v2(c, sql, -1, &r->st, NULL);
}

/* The media table into idx with up to nreaders readers (key: the caller's
 * change counters; NULL allows only the caller's connection). -1 with
 * *retry set when a second connection failed: the caller loads again
 * with one reader, whose error (if any) is the one to report. */
static int load_media_n(struct mlib_db *db, struct mlib_index *idx, int nreaders,
			const struct snap_key *key, const struct strtab *strs, bool *retry,
			struct crate_err *err)
{
	struct load_pipe p = {.n = 1, .max_id = media_max_id(mlib_db_sqlite(db)), .strs = strs};
	for (int j = 0; j < MAX_READERS; j++) {
		p.r[j].pipe = &p;
		p.r[j].j = j;
		p.r[j].sink.strs = strs;
	}
	if (reader_prepare(&p.r[0], mlib_db_sqlite(db)) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the library", err);
	while (key && p.n < nreaders) {
		struct reader *r = &p.r[p.n];
		r->own = open_reader_conn(db, key);
		if (r->own && reader_prepare(r, r->own) == SQLITE_OK) {
			p.n++;
			continue;
		}
		sqlite3_close(r->own);
		r->own = NULL;
		break;
	}
	/* One reader: one chunk. More: chunks of at least 4 batches' worth of
	 * ids, at most ~64 per reader (sparse ids must not make millions of
	 * empty ones). */
	p.width = p.max_id > 0 ? p.max_id : 1;
	if (p.n > 1) {
		p.width = p.max_id / (64 * p.n) + 1;
		if (p.width < 4 * BATCH_ROWS)
			p.width = 4 * BATCH_ROWS;
	}
	void *slot_block;
	struct row_batch *slots = batches_new((size_t)p.n * NBATCH, p.max_id, &slot_block);
	for (int j = 0; j < p.n; j++)
		for (size_t i = 0; i < NBATCH; i++)
			p.r[j].slot[i] = &slots[(size_t)j * NBATCH + i];
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	struct crew w;
	struct crew_member m[MAX_BUILDERS];
	/* Ids run up to max(id): columns sized once (rows added since the
	 * max was read are past it and grow them as usual). */
	mlib_index_reserve(idx, (uint32_t)p.max_id + 1);
	crew_start(&w, m, idx, strs, threads_wanted(MAX_BUILDERS), (uint64_t)p.max_id);
	pthread_t th[MAX_READERS];
	int started = 0;
	while (started < p.n && pthread_create(&th[started], NULL, reader_main, &p.r[started]) == 0)
		started++;
	int rc = SQLITE_DONE, who = 0;
	if (started == p.n) {
		rc = pipe_consume(&p, &w, &who);
	} else if (started == 0 && p.n == 1) { /* no thread: the same work, one batch after the other */
		reader_bind(&p.r[0], 0, p.width);
		do {
			rc = batch_fill(p.r[0].st, p.r[0].use_fn ? &p.r[0].sink : NULL,
					p.r[0].slot[0], strs);
			crew_apply(&w, p.r[0].slot[0]);
		} while (rc == SQLITE_ROW);
	} else {
		rc = SQLITE_ERROR;
		who = 1; /* retried with one reader */
	}
	pthread_mutex_lock(&p.mu);
	p.stop = true;
	pthread_cond_broadcast(&p.cv);
	pthread_mutex_unlock(&p.mu);
	for (int j = 0; j < started; j++)
		pthread_join(th[j], NULL);
	crew_stop(&w, m);
	/* The hint was for the media columns: a tag or an analysis value
	 * defined from here on is often held by a few tracks, and would
	 * otherwise get (and fill, and snapshot) a column of max(id) at once. */
	mlib_index_reserve(idx, 0);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	for (int j = 0; j < p.n; j++) {
		for (size_t i = 0; i < NBATCH; i++)
			free(p.r[j].slot[i]->bytes);
		if (j > 0) {
			sqlite3_finalize(p.r[j].st);
			sqlite3_close(p.r[j].own);
		}
	}
	free(slots);
	free(slot_block);
	if (rc != SQLITE_DONE && who > 0) {
		sqlite3_finalize(p.r[0].st);
		*retry = true;
		return -1;
	}
	return mlib_db_finish(db, p.r[0].st, rc, "cannot read the library", err);
}

static int load_tags(struct mlib_db *db, struct mlib_index *idx, struct crate_err *err)
{
	sqlite3_stmt *st;
	/* Primary-key order (media_id, key, seq): values keep their file order. */
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), "SELECT media_id, key, value FROM media_tag",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read tags", err);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 1 || id > UINT32_MAX - 1 || !mlib_index_has_media(idx, (uint32_t)id))
			continue; /* missing file */
		const char *key = (const char *)sqlite3_column_text(st, 1);
		const char *v = (const char *)sqlite3_column_text(st, 2);
		int n = sqlite3_column_bytes(st, 2);
		if (key && v && n > 0)
			mlib_index_add_str(idx, (uint32_t)id, key, v, (size_t)n);
	}
	return mlib_db_finish(db, st, rc, "cannot read tags", err);
}

/* What the loader reads, as a number: a snapshot from a build that read
 * other columns must not be taken for this one's. Bump the suffix when
 * the loading rules change in a way the column list does not show. */
static uint64_t loader_signature(void)
{
	uint64_t h = snap_hash("index_load/2+analysis/1", 23, 0); /* kinds below: COL_SID since media 6 */
	for (size_t c = 0; c < NCOLS; c++)
		h = snap_hash(cols[c].name, strlen(cols[c].name), h + (uint64_t)cols[c].kind);
	return h;
}

/* The snapshot key of the database as it is now (inside the caller's read
 * transaction); false when the database has no change counter. key->stats
 * is the statistics counter now (what a snapshot written from this read
 * reflects); *kept the lowest counter a snapshot may have to be read. */
static bool read_key(struct mlib_db *db, struct snap_key *key, uint64_t *kept)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT dbid, n, stats, stats_kept FROM media_generation WHERE id=0",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	bool ok = sqlite3_step(st) == SQLITE_ROW;
	if (ok) {
		key->dbid = (uint64_t)sqlite3_column_int64(st, 0);
		key->generation = (uint64_t)sqlite3_column_int64(st, 1);
		key->loader = loader_signature();
		key->stats = (uint64_t)sqlite3_column_int64(st, 2);
		*kept = (uint64_t)sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	return ok;
}

/* Play statistics changed since the statistics counter was `since` (they
 * do not change the generation): read their current values from `media`
 * and set them in the index. CROSS JOIN keeps the dirty rows the outer
 * loop: SQLite's planner otherwise scans all of media and probes the
 * (mostly empty) dirty table per row, ~60 ms at 1M tracks on every start.
 * Applying a row the index already reflects is harmless, so a snapshot
 * applies every dirty row (since 0). Inside the read transaction. */
static int apply_stats(struct mlib_db *db, struct mlib_index *idx, uint64_t since,
		       struct crate_err *err)
{
	static const char *const names[] = {"timesplayed", "lastplayed", "rating", "timesskipped"};
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT d.id, m.timesplayed, m.lastplayed, m.rating, m.timesskipped"
			       " FROM media_stats_dirty d CROSS JOIN media m ON m.id = d.id"
			       " WHERE m.missing = 0 AND d.seq > ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read play statistics", err);
	sqlite3_bind_int64(st, 1, since > INT64_MAX ? INT64_MAX : (int64_t)since);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 1 || id > UINT32_MAX - 1 || !mlib_index_has_media(idx, (uint32_t)id))
			continue;
		for (int c = 0; c < 4; c++) {
			if (sqlite3_column_type(st, c + 1) == SQLITE_NULL)
				mlib_index_clear_int(idx, (uint32_t)id, names[c]);
			else
				mlib_index_update_int(idx, (uint32_t)id, names[c],
						      sqlite3_column_int64(st, c + 1));
		}
	}
	return mlib_db_finish(db, st, rc, "cannot read play statistics", err);
}

int mlib_index_refresh_stats(struct mlib_db *db, struct mlib_index *idx, uint64_t generation,
			     uint64_t *stats, bool *applied, struct crate_err *err)
{
	*applied = false;
	sqlite3 *s = mlib_db_sqlite(db);
	sqlite3_exec(s, "BEGIN", NULL, NULL, NULL); /* the counters and rows agree */
	struct snap_key key = {0};
	uint64_t kept = 0;
	int rc = 0;
	/* Rows up to stats_kept were deleted once a snapshot held them: an
	 * index older than that cannot be brought up to date from the rest. */
	if (read_key(db, &key, &kept) && key.generation == generation && kept <= *stats) {
		rc = apply_stats(db, idx, *stats, err);
		if (rc == 0) {
			*stats = key.stats;
			*applied = true;
		}
	}
	sqlite3_exec(s, "COMMIT", NULL, NULL, NULL);
	return rc;
}

/* After writing a snapshot of key: the dirty rows it reflects (counter up
 * to key->stats) are no longer needed. Only while the generation is still
 * the snapshot's; stats_kept then makes any older snapshot file (another
 * writer's, renamed later) unusable, as it may miss the deleted rows.
 * Failing only leaves rows that are re-applied: not an error. */
static void clear_stats(struct mlib_db *db, const struct snap_key *key)
{
	sqlite3 *s = mlib_db_sqlite(db);
	if (sqlite3_exec(s, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return;
	sqlite3_stmt *st;
	bool ok = sqlite3_prepare_v2(s,
				     "UPDATE media_generation SET stats_kept = max(stats_kept, ?1)"
				     " WHERE id = 0 AND n = ?2",
				     -1, &st, NULL) == SQLITE_OK;
	if (ok) {
		sqlite3_bind_int64(st, 1, (int64_t)key->stats);
		sqlite3_bind_int64(st, 2, (int64_t)key->generation);
		ok = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(s) == 1;
		sqlite3_finalize(st);
	}
	if (ok && sqlite3_prepare_v2(s, "DELETE FROM media_stats_dirty WHERE seq <= ?", -1, &st,
				     NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, (int64_t)key->stats);
		ok = sqlite3_step(st) == SQLITE_DONE;
		sqlite3_finalize(st);
	} else {
		ok = false;
	}
	sqlite3_exec(s, ok ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
}

char *mlib_index_snapshot_path(struct mlib_db *db)
{
	const char *p = mlib_db_path(db);
	if (!p || !*p || strcmp(p, ":memory:") == 0 || strncmp(p, "file:", 5) == 0)
		return NULL;
	return xasprintf("%s.index", p);
}

/* Write idx's snapshot from a grandchild process: fork gives it a frozen
 * copy-on-write copy of the finished index, so the caller may use and
 * change its own at once. The child only forks again and exits (reaped
 * here, so nothing is left for the caller to wait for); the grandchild
 * leaves the terminal's session and every descriptor but its own, writes
 * the file (temporary file + rename, as always) and _exits without
 * touching SQLite or stdio. False when fork fails: the caller writes the
 * snapshot itself. */
static bool write_detached(const struct mlib_index *idx, const char *path,
			   const struct snap_key *key)
{
	pid_t child = fork();

	if (child < 0)
		return false;
	if (child == 0) {
		pid_t grandchild = fork();
		if (grandchild == 0) {
			setsid(); /* a Ctrl-C meant for crate must not cut the write */
			int null = open("/dev/null", O_RDWR);
			for (int fd = 0; fd < 3 && null >= 0; fd++)
				dup2(null, fd);
			closefrom(3);
			struct crate_err err = {0};
			_exit(mlib_index_snapshot_write(idx, path, key, &err) == 0 ? 0 : 1);
		}
		_exit(grandchild < 0 ? 1 : 0);
	}
	int st = 0;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* key: the caller's change counters when other connections may read the
 * same file (NULL: only the caller's). */
static int load_sqlite(struct mlib_db *db, const struct snap_key *key, struct mlib_index **out,
		       struct crate_err *err)
{
	struct strtab strs;
	if (strtab_load(db, &strs, err) != 0) {
		*out = NULL;
		return -1;
	}
	struct mlib_index *idx = mlib_index_new();
	bool retry = false;
	int rc = load_media_n(db, idx, key ? threads_wanted(MAX_READERS) : 1, key, &strs, &retry,
			      err);
	if (rc != 0 && retry) { /* a second connection failed: the plain load says why */
		mlib_index_free(idx);
		idx = mlib_index_new();
		rc = load_media_n(db, idx, 1, NULL, &strs, &retry, err);
	}
	strtab_free(&strs);
	if (rc == 0)
		rc = load_tags(db, idx, err);
	if (rc == 0) /* after the tags: a BPM tag wins over the analysed tempo */
		rc = mlib_analysis_load_index(db, idx, err);
	if (rc != 0) {
		mlib_index_free(idx);
		*out = NULL;
		return -1;
	}
	*out = idx;
	return 0;
}

int mlib_index_load_ex(struct mlib_db *db, unsigned flags, struct mlib_index **out,
		       struct mlib_load_info *info, struct crate_err *err)
{
	struct mlib_load_info dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	char *snap = flags & MLIB_LOAD_NO_SNAPSHOT ? NULL : mlib_index_snapshot_path(db);
	/* Temporary files of writers killed mid-write (each as large as the
	 * snapshot) go before we write another. */
	if (snap && !mlib_db_readonly(db))
		snap_clean_stale(snap);
	struct snap_key key = {0};
	/* One read transaction: a scan committing meanwhile cannot make the
	 * key and the two passes disagree. */
	sqlite3_exec(mlib_db_sqlite(db), "BEGIN", NULL, NULL, NULL);
	uint64_t kept = 0;
	info->have_key = read_key(db, &key, &kept);
	info->generation = key.generation;
	info->stats = key.stats;
	bool have_key = snap && info->have_key;
	struct crate_err serr = {0};
	if (have_key && !(flags & MLIB_LOAD_NO_READ)) {
		struct snap_key want = key;
		want.stats = kept;
		int got = flags & MLIB_LOAD_MAP ? mlib_index_snapshot_map(snap, &want, out, &serr)
						: mlib_index_snapshot_read(snap, &want, out, &serr);
		if (got == 0) {
			if (apply_stats(db, *out, 0, &serr) == 0) {
				sqlite3_exec(mlib_db_sqlite(db), "COMMIT", NULL, NULL, NULL);
				info->from_snapshot = true;
				free(snap);
				return 0;
			}
			mlib_index_free(*out);
			*out = NULL;
		}
	}
	snprintf(info->why, sizeof info->why, "%s",
		 !snap ? "no snapshot file for this database"
		 : !have_key ? "the database has no change counter"
		 : (flags & MLIB_LOAD_NO_READ) ? "not read (asked)" : serr.msg);
	int rc = load_sqlite(db, have_key ? &key : NULL, out, err);
	sqlite3_exec(mlib_db_sqlite(db), "COMMIT", NULL, NULL, NULL);
	if (rc != 0) {
		free(snap);
		return -1;
	}
	mlib_index_finish(*out);
	/* A snapshot we cannot write (read-only database or directory) only
	 * costs the next start-up its speed. */
	if (have_key && !mlib_db_readonly(db) && (flags & MLIB_LOAD_WRITE_LATER)) {
		info->snap_path = snap; /* the caller's now */
		info->snap_key = key;
		snap = NULL;
	} else if (have_key && !mlib_db_readonly(db) && (flags & MLIB_LOAD_WRITE_DETACHED) &&
	    write_detached(*out, snap, &key)) {
		/* Its statistics rows stay: the next load re-applies them. */
		info->writing_snapshot = true;
	} else if (have_key && !mlib_db_readonly(db)) {
		struct crate_err werr = {0};
		info->wrote_snapshot = mlib_index_snapshot_write(*out, snap, &key, &werr) == 0;
		if (!info->wrote_snapshot)
			snprintf(info->why, sizeof info->why, "%s", werr.msg);
		else
			clear_stats(db, &key);
	}
	free(snap);
	return 0;
}

int mlib_index_load(struct mlib_db *db, struct mlib_index **out, struct crate_err *err)
{
	return mlib_index_load_ex(db, 0, out, NULL, err);
}
