/* The in-memory index: columns per property, dictionaries of distinct
 * string values with folded twins, the library order. See index.h. */
#include "medialib/index.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/str.h"
#include "base/utf8.h"
#include "medialib/index_snapshot.h"

#define STR_MISSING UINT32_MAX      /* string column: the item lacks the property */
#define STR_MULTI 0x80000000u       /* string column: offset into prop->multi */
#define INT_MISSING INT64_MIN       /* integer column: the item lacks the property */
#define INT32_MISSING INT32_MIN     /* the same in a narrow (32-bit) integer column */
#define RAW_SAME UINT32_MAX         /* dict raw_off: the text equals its folded form */

/* Distinct values of one string property. Texts live in two arenas (one
 * allocation each, growing by doubling, addressed by offsets so growth is
 * free): every folded form in `fold`, and the original text in `raw` only
 * when it differs from the folded form. */
struct dict {
	char *fold;
	size_t fold_len, fold_cap;
	char *raw;
	size_t raw_len, raw_cap;
	uint32_t *fold_off;  /* n+1 entries */
	uint32_t *raw_off;   /* RAW_SAME or offset into raw */
	/* Numeric readings, kept sparse (most titles and urls are not
	 * numbers): a bit per value, then (vid, number) pairs by vid. */
	uint64_t *numbits;
	uint32_t *num_vid;
	double *num_val;
	size_t nnum, num_cap;
	uint32_t *rank;      /* natural-order rank; NULL until computed */
	uint32_t n, cap;
	/* Lookup by original text while building (dropped at finish, rebuilt
	 * if more values come); no slots (nslots 0) = no lookup table. */
	struct hashtab lookup;
};

struct prop {
	char *name;
	enum mlib_prop_kind kind;
	uint32_t *scol;      /* STRING: vid, STR_MISSING or STR_MULTI|offset */
	/* INT: 32 bits per item while every value fits (years, durations,
	 * counts, Unix times before 2038), widened to 64 on the first that does
	 * not: half the memory, and filters scan half the bytes. */
	int32_t *icol32;     /* narrow: value or INT32_MISSING */
	int64_t *icol;       /* wide: value or INT_MISSING */
	bool wide;
	size_t col_cap;
	struct dict d;
	/* Multi-valued items: groups [count, vid, vid, ...]. */
	uint32_t *multi;
	size_t multi_len, multi_cap;
	struct u32vec multi_ids; /* the items holding a group, ascending or not */
	/* Items by value, built on first need (a selective string filter):
	 * the items holding value v are post[post_off[v] .. post_off[v+1]). */
	uint32_t *post_off, *post;
};

struct mlib_index {
	struct prop *props;
	int nprops, props_cap;
	int last_prop;             /* lookup cache: loaders add props in a cycle */
	struct bitset present;     /* ids declared with add_media */
	uint32_t bound, count;
	struct u32vec all_ids;     /* ascending */
	struct u32vec lib_order;
	uint32_t *lib_rank;        /* per id; UINT32_MAX when absent */
};

/* ---- small helpers ---- */

static void *grow_array(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	p = xreallocarray(p, c, elem);
	*cap = c;
	return p;
}

static size_t arena_add(char **arena, size_t *len, size_t *cap, const char *s, size_t n)
{
	*arena = grow_array(*arena, cap, *len + n + 1, 1);
	size_t off = *len;
	memcpy(*arena + off, s, n);
	(*arena)[off + n] = '\0';
	*len += n + 1;
	return off;
}

/* ---- dictionaries ---- */

static const char *dict_text(const struct dict *d, uint32_t vid)
{
	return d->raw_off[vid] == RAW_SAME ? d->fold + d->fold_off[vid] : d->raw + d->raw_off[vid];
}

static double dict_num(const struct dict *d, uint32_t v)
{
	if (!d->numbits || !((d->numbits[v >> 6] >> (v & 63)) & 1))
		return NAN;
	size_t lo = 0, hi = d->nnum; /* num_vid ascends: values are appended */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->num_vid[mid] <= v)
			lo = mid;
		else
			hi = mid;
	}
	return d->num_val[lo];
}

/* After finish dropped it (or unique values came without it): the lookup
 * table again, from the texts. */
static void dict_restore_lookup(struct dict *d)
{
	hashtab_reserve(&d->lookup, d->n);
	for (uint32_t v = 0; v < d->n; v++) {
		const char *t = dict_text(d, v);
		hashtab_insert(&d->lookup, hash_bytes(t, strlen(t)), v);
	}
}

/* Once built: drop what only interning needs and trim the growth room. */
static void dict_compact(struct dict *d)
{
	hashtab_free(&d->lookup);
	if (d->n == 0)
		return;
	d->fold = xrealloc(d->fold, d->fold_len ? d->fold_len : 1);
	d->fold_cap = d->fold_len ? d->fold_len : 1;
	if (d->raw) {
		d->raw = xrealloc(d->raw, d->raw_len ? d->raw_len : 1);
		d->raw_cap = d->raw_len ? d->raw_len : 1;
	}
	d->fold_off = xreallocarray(d->fold_off, (size_t)d->n + 1, sizeof *d->fold_off);
	d->raw_off = xreallocarray(d->raw_off, d->n, sizeof *d->raw_off);
	d->numbits = xreallocarray(d->numbits, ((size_t)d->n + 63) / 64, sizeof *d->numbits);
	d->cap = d->n;
}

/* Append the folded form of s to the fold arena; true when it differs. */
static bool dict_add_folded(struct dict *d, const char *s, size_t len)
{
	bool ascii = true, upper = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) {
			ascii = false;
			break;
		}
		if (c >= 'A' && c <= 'Z')
			upper = true;
	}
	if (ascii) {
		size_t off = arena_add(&d->fold, &d->fold_len, &d->fold_cap, s, len);
		if (upper) /* lower-case in place: no temporary allocation */
			for (size_t i = 0; i < len; i++)
				if (d->fold[off + i] >= 'A' && d->fold[off + i] <= 'Z')
					d->fold[off + i] = (char)(d->fold[off + i] + 32);
		return upper;
	}
	if (utf8_fold_is_identity(s, len)) {
		arena_add(&d->fold, &d->fold_len, &d->fold_cap, s, len);
		return false;
	}
	size_t flen;
	char *f = utf8_fold(s, len, &flen);
	arena_add(&d->fold, &d->fold_len, &d->fold_cap, f, flen);
	free(f);
	return true;
}

/* Store s as a new value (the caller knows it is not there yet). With a
 * lookup table the value enters it under hash h. */
static uint32_t dict_push(struct dict *d, const char *s, size_t len, uint32_t h)
{
	if (d->n == d->cap) {
		uint32_t c = d->cap ? d->cap * 2 : 64;
		d->fold_off = xreallocarray(d->fold_off, (size_t)c + 1, sizeof *d->fold_off);
		d->raw_off = xreallocarray(d->raw_off, c, sizeof *d->raw_off);
		size_t old_w = ((size_t)d->cap + 63) / 64, new_w = ((size_t)c + 63) / 64;
		d->numbits = xreallocarray(d->numbits, new_w, sizeof *d->numbits);
		memset(d->numbits + old_w, 0, (new_w - old_w) * sizeof *d->numbits);
		d->cap = c;
	}
	uint32_t v = d->n++;
	d->fold_off[v] = (uint32_t)d->fold_len;
	if (dict_add_folded(d, s, len))
		d->raw_off[v] = (uint32_t)arena_add(&d->raw, &d->raw_len, &d->raw_cap, s, len);
	else
		d->raw_off[v] = RAW_SAME;
	d->fold_off[v + 1] = (uint32_t)d->fold_len;
	double num;
	/* Only text starting like a number can be one: most values (titles,
	 * urls) are rejected on the first byte without a call. */
	if (len && ((s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '.') &&
	    str_parse_number(s, len, &num)) {
		if (d->nnum == d->num_cap) {
			d->num_cap = d->num_cap ? d->num_cap * 2 : 16;
			d->num_vid = xreallocarray(d->num_vid, d->num_cap, sizeof *d->num_vid);
			d->num_val = xreallocarray(d->num_val, d->num_cap, sizeof *d->num_val);
		}
		d->num_vid[d->nnum] = v;
		d->num_val[d->nnum++] = num;
		d->numbits[v >> 6] |= (uint64_t)1 << (v & 63);
	}
	free(d->rank); /* a new value invalidates the ranks */
	d->rank = NULL;
	if (d->lookup.nslots)
		hashtab_insert(&d->lookup, h, v);
	return v;
}

static uint32_t dict_intern(struct dict *d, const char *s, size_t len)
{
	len = strnlen(s, len); /* a NUL inside a tag ends it */
	uint32_t h = hash_bytes(s, len);
	if (!d->lookup.nslots)
		dict_restore_lookup(d);
	struct hashtab_probe p = hashtab_probe(&d->lookup, h);
	for (uint32_t v; (v = hashtab_next(&p)) != HASHTAB_NONE;) {
		const char *t = dict_text(d, v);
		if (memcmp(t, s, len) == 0 && t[len] == '\0')
			return v;
	}
	return dict_push(d, s, len, h);
}

/* A value the caller guarantees differs from every other (urls: UNIQUE in
 * the database). While no lookup table exists none is built: a million
 * urls cost no hashing and no probing; a later dict_intern builds it. */
static uint32_t dict_add_unique(struct dict *d, const char *s, size_t len)
{
	if (d->lookup.nslots || memchr(s, '\0', len)) /* a NUL cuts the text: no longer unique */
		return dict_intern(d, s, len);
	return dict_push(d, s, len, 0);
}

static void dict_free(struct dict *d)
{
	free(d->fold);
	free(d->raw);
	free(d->fold_off);
	free(d->raw_off);
	free(d->numbits);
	free(d->num_vid);
	free(d->num_val);
	free(d->rank);
	hashtab_free(&d->lookup);
}

/* ---- natural-order ranks ---- */

struct rank_entry {
	uint64_t key;      /* natural-order prefix of the folded text */
	double num;
	const char *fold;
	uint32_t slot;     /* where the rank goes */
};

/* First 8 bytes of an encoding of s whose byte order agrees with
 * str_natcmp: a digit run becomes '0', its length without leading zeros,
 * then its digits (a non-digit byte never lies in '0'..'9', so the marker
 * compares against it as any digit would). Ties are settled by str_natcmp. */
static uint64_t natural_key(const char *s)
{
	unsigned char out[8];
	size_t o = 0;
	while (*s && o < 8) {
		if (*s >= '0' && *s <= '9') {
			while (*s == '0')
				s++;
			size_t l = 0;
			while (s[l] >= '0' && s[l] <= '9')
				l++;
			out[o++] = '0';
			if (o < 8)
				out[o++] = (unsigned char)(l > 255 ? 255 : l);
			for (size_t i = 0; i < l && o < 8; i++)
				out[o++] = (unsigned char)s[i];
			s += l;
		} else {
			out[o++] = (unsigned char)*s++;
		}
	}
	uint64_t k = 0;
	for (size_t i = 0; i < 8; i++)
		k = (k << 8) | (i < o ? out[i] : 0);
	return k;
}

static int rank_cmp(const void *pa, const void *pb)
{
	const struct rank_entry *a = pa, *b = pb;
	bool an = !isnan(a->num), bn = !isnan(b->num);
	if (an != bn)
		return an ? -1 : 1;
	if (an && a->num != b->num)
		return a->num < b->num ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return str_natcmp(a->fold, b->fold);
}

static void rank_entry_fill(struct rank_entry *e, const struct dict *d, uint32_t vid, uint32_t slot)
{
	e->fold = d->fold + d->fold_off[vid];
	e->key = natural_key(e->fold);
	e->num = dict_num(d, vid);
	e->slot = slot;
}

/* Sort entries and write ranks[slot]; equal values share a rank. */
static void rank_entries(struct rank_entry *e, size_t n, uint32_t *ranks)
{
	qsort(e, n, sizeof *e, rank_cmp);
	uint32_t r = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && rank_cmp(&e[i - 1], &e[i]) != 0)
			r++;
		ranks[e[i].slot] = r;
	}
}

static void dict_compute_ranks(struct dict *d)
{
	if (d->rank || d->n == 0)
		return;
	struct rank_entry *e = xmalloc((size_t)d->n * sizeof *e);
	for (uint32_t v = 0; v < d->n; v++)
		rank_entry_fill(&e[v], d, v, v);
	d->rank = xmalloc((size_t)d->n * sizeof *d->rank);
	rank_entries(e, d->n, d->rank);
	free(e);
}

/* ---- properties and columns ---- */

static int prop_find(const struct mlib_index *idx, const char *name)
{
	if (idx->last_prop < idx->nprops && strcmp(idx->props[idx->last_prop].name, name) == 0)
		return idx->last_prop;
	for (int i = 0; i < idx->nprops; i++)
		if (strcmp(idx->props[i].name, name) == 0) {
			((struct mlib_index *)idx)->last_prop = i; /* cache only */
			return i;
		}
	return -1;
}

static struct prop *prop_get(struct mlib_index *idx, const char *name, enum mlib_prop_kind kind)
{
	int i = prop_find(idx, name);
	if (i >= 0)
		return &idx->props[i];
	if (idx->nprops == idx->props_cap) {
		idx->props_cap = idx->props_cap ? idx->props_cap * 2 : 16;
		idx->props = xreallocarray(idx->props, (size_t)idx->props_cap, sizeof *idx->props);
	}
	struct prop *p = &idx->props[idx->nprops];
	memset(p, 0, sizeof *p);
	p->name = xstrdup(name);
	p->kind = kind;
	idx->last_prop = idx->nprops++;
	return p;
}

static int64_t icol_get(const struct prop *p, size_t id)
{
	if (id >= p->col_cap)
		return INT_MISSING;
	if (p->wide)
		return p->icol[id];
	return p->icol32[id] == INT32_MISSING ? INT_MISSING : p->icol32[id];
}

/* Turn a narrow integer column into a wide one. */
static void icol_widen(struct prop *p)
{
	int64_t *w = xmalloc((p->col_cap ? p->col_cap : 1) * sizeof *w);
	for (size_t i = 0; i < p->col_cap; i++)
		w[i] = p->icol32[i] == INT32_MISSING ? INT_MISSING : p->icol32[i];
	free(p->icol32);
	p->icol32 = NULL;
	p->icol = w;
	p->wide = true;
}

static void prop_ensure(struct prop *p, uint32_t id)
{
	if (id < p->col_cap)
		return;
	size_t c = p->col_cap ? p->col_cap : 1024;
	while (c <= id)
		c *= 2;
	if (p->kind == MLIB_PROP_STRING) {
		p->scol = xreallocarray(p->scol, c, sizeof *p->scol);
		for (size_t i = p->col_cap; i < c; i++)
			p->scol[i] = STR_MISSING;
	} else if (p->wide) {
		p->icol = xreallocarray(p->icol, c, sizeof *p->icol);
		for (size_t i = p->col_cap; i < c; i++)
			p->icol[i] = INT_MISSING;
	} else {
		p->icol32 = xreallocarray(p->icol32, c, sizeof *p->icol32);
		for (size_t i = p->col_cap; i < c; i++)
			p->icol32[i] = INT32_MISSING;
	}
	p->col_cap = c;
}

static size_t prop_str_values(const struct prop *p, uint32_t id, const uint32_t **vids)
{
	if (p->kind != MLIB_PROP_STRING || id >= p->col_cap || p->scol[id] == STR_MISSING)
		return 0;
	if (p->scol[id] & STR_MULTI) {
		const uint32_t *g = p->multi + (p->scol[id] & ~STR_MULTI);
		*vids = g + 1;
		return g[0];
	}
	*vids = &p->scol[id];
	return 1;
}

static void prop_drop_postings(struct prop *p)
{
	free(p->post_off);
	free(p->post);
	p->post_off = p->post = NULL;
}

static void prop_add_vid(struct prop *p, uint32_t id, uint32_t vid)
{
	prop_drop_postings(p);
	prop_ensure(p, id);
	uint32_t cur = p->scol[id];
	if (cur == STR_MISSING) {
		p->scol[id] = vid;
		return;
	}
	const uint32_t *have = NULL;
	size_t n = prop_str_values(p, id, &have);
	for (size_t i = 0; i < n; i++)
		if (have[i] == vid)
			return; /* the same value twice adds nothing */
	if (cur & STR_MULTI) {
		size_t off = cur & ~STR_MULTI;
		if (off + 1 + p->multi[off] == p->multi_len) { /* last group: extend in place */
			p->multi = grow_array(p->multi, &p->multi_cap, p->multi_len + 1, sizeof *p->multi);
			p->multi[p->multi_len++] = vid;
			p->multi[off]++;
			return;
		}
	}
	/* Copy the group to the end with room for one more (the old copy is
	 * abandoned: multi-values are rare and added item by item). */
	size_t off = p->multi_len;
	p->multi = grow_array(p->multi, &p->multi_cap, p->multi_len + n + 2, sizeof *p->multi);
	n = prop_str_values(p, id, &have); /* re-read: multi may have moved */
	p->multi[off] = (uint32_t)(n + 1);
	memcpy(p->multi + off + 1, have, n * sizeof *have);
	p->multi[off + 1 + n] = vid;
	p->multi_len = off + n + 2;
	if (!(cur & STR_MULTI))
		u32vec_push(&p->multi_ids, id);
	p->scol[id] = STR_MULTI | (uint32_t)off;
}

/* An integer column that received a non-integer text becomes a string column. */
static void prop_convert_to_string(struct prop *p)
{
	prop_drop_postings(p);
	if (!p->wide)
		icol_widen(p);
	int64_t *icol = p->icol;
	size_t cap = p->col_cap;
	p->icol = NULL;
	p->wide = false;
	p->col_cap = 0;
	p->kind = MLIB_PROP_STRING;
	if (cap)
		prop_ensure(p, (uint32_t)(cap - 1));
	for (size_t i = 0; i < cap; i++) {
		if (icol[i] == INT_MISSING)
			continue;
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%" PRId64, icol[i]);
		p->scol[i] = dict_intern(&p->d, buf, (size_t)n);
	}
	free(icol);
}

static void prop_free(struct prop *p)
{
	prop_drop_postings(p);
	free(p->name);
	free(p->scol);
	free(p->icol);
	free(p->icol32);
	free(p->multi);
	u32vec_free(&p->multi_ids);
	dict_free(&p->d);
}

/* ---- building ---- */

struct mlib_index *mlib_index_new(void)
{
	struct mlib_index *idx = xcalloc(1, sizeof *idx);
	bitset_init(&idx->present, 1024);
	return idx;
}

void mlib_index_free(struct mlib_index *idx)
{
	if (!idx)
		return;
	for (int i = 0; i < idx->nprops; i++)
		prop_free(&idx->props[i]);
	free(idx->props);
	bitset_free(&idx->present);
	u32vec_free(&idx->all_ids);
	u32vec_free(&idx->lib_order);
	free(idx->lib_rank);
	free(idx);
}

void mlib_index_add_media(struct mlib_index *idx, uint32_t id)
{
	if (id == 0 || id >= STR_MULTI)
		return;
	if (id >= idx->present.nbits) {
		size_t nb = idx->present.nbits;
		while (nb <= id)
			nb *= 2;
		size_t old = bitset_words(&idx->present);
		idx->present.w = xreallocarray(idx->present.w, (nb + 63) / 64, sizeof(uint64_t));
		memset(idx->present.w + old, 0, ((nb + 63) / 64 - old) * sizeof(uint64_t));
		idx->present.nbits = nb;
	}
	if (!bitset_test(&idx->present, id)) {
		bitset_set(&idx->present, id);
		idx->count++;
	}
	if (id + 1 > idx->bound)
		idx->bound = id + 1;
}

static void set_int_in(struct prop *p, uint32_t id, int64_t value)
{
	prop_ensure(p, id);
	if (value == INT_MISSING)
		value = INT_MISSING + 1;
	if (!p->wide && (value <= INT32_MISSING || value > INT32_MAX))
		icol_widen(p);
	if (p->wide)
		p->icol[id] = value;
	else
		p->icol32[id] = (int32_t)value;
}

static void set_str_single(struct prop *p, uint32_t id, const char *value, size_t len)
{
	prop_drop_postings(p);
	prop_ensure(p, id);
	p->scol[id] = dict_intern(&p->d, value, len);
}

/* One string value into p (see mlib_index_add_str for integer columns). */
static void prop_add_str(struct prop *p, uint32_t id, const char *value, size_t len)
{
	if (p->kind == MLIB_PROP_INT) {
		int64_t v;
		if (str_parse_int64(value, strnlen(value, len), &v)) {
			set_int_in(p, id, v);
			return;
		}
		prop_convert_to_string(p);
	}
	prop_add_vid(p, id, dict_intern(&p->d, value, len));
}

static void prop_set_int(struct prop *p, uint32_t id, int64_t value)
{
	if (p->kind == MLIB_PROP_STRING) {
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%" PRId64, value);
		set_str_single(p, id, buf, (size_t)n);
		return;
	}
	set_int_in(p, id, value);
}

void mlib_index_add_str(struct mlib_index *idx, uint32_t id, const char *prop, const char *value,
			size_t len)
{
	if (id == 0 || id >= STR_MULTI)
		return;
	prop_add_str(prop_get(idx, prop, MLIB_PROP_STRING), id, value, len);
}

void mlib_index_set_int(struct mlib_index *idx, uint32_t id, const char *prop, int64_t value)
{
	if (id == 0 || id >= STR_MULTI)
		return;
	prop_set_int(prop_get(idx, prop, MLIB_PROP_INT), id, value);
}

int mlib_index_prop_define(struct mlib_index *idx, const char *name, enum mlib_prop_kind kind)
{
	return (int)(prop_get(idx, name, kind) - idx->props);
}

void mlib_index_add_str_p(struct mlib_index *idx, uint32_t id, int prop, const char *value,
			  size_t len)
{
	if (id == 0 || id >= STR_MULTI || prop < 0 || prop >= idx->nprops)
		return;
	prop_add_str(&idx->props[prop], id, value, len);
}

void mlib_index_add_unique_str_p(struct mlib_index *idx, uint32_t id, int prop, const char *value,
				 size_t len)
{
	if (id == 0 || id >= STR_MULTI || prop < 0 || prop >= idx->nprops)
		return;
	struct prop *p = &idx->props[prop];
	if (p->kind != MLIB_PROP_STRING) {
		prop_add_str(p, id, value, len);
		return;
	}
	prop_add_vid(p, id, dict_add_unique(&p->d, value, len));
}

void mlib_index_set_int_p(struct mlib_index *idx, uint32_t id, int prop, int64_t value)
{
	if (id == 0 || id >= STR_MULTI || prop < 0 || prop >= idx->nprops)
		return;
	prop_set_int(&idx->props[prop], id, value);
}

void mlib_index_update_int(struct mlib_index *idx, uint32_t id, const char *prop, int64_t value)
{
	mlib_index_set_int(idx, id, prop, value);
}

void mlib_index_clear_int(struct mlib_index *idx, uint32_t id, const char *prop)
{
	int h = mlib_index_prop(idx, prop);
	if (h < 0) /* no item has it: nothing to clear, and do not create it */
		return;
	struct prop *p = &idx->props[h];
	if (id >= p->col_cap)
		return;
	if (p->kind == MLIB_PROP_STRING) {
		/* A multi-value group left behind is only unused memory. */
		prop_drop_postings(p);
		p->scol[id] = STR_MISSING;
	} else if (p->wide) {
		p->icol[id] = INT_MISSING;
	} else {
		p->icol32[id] = INT32_MISSING;
	}
}

/* ---- finishing: ranks and the library order ---- */

struct lib_key {
	uint64_t k0; /* artist rank << 32 | year */
	uint64_t k1; /* album rank << 32 | disc << 16 | track */
	uint32_t id;
};

/* Ties on (k0, k1) are settled by the url, then the id. */
struct lib_tie {
	const char *url;
	uint32_t id;
};

static int lib_tie_cmp(const void *pa, const void *pb)
{
	const struct lib_tie *a = pa, *b = pb;
	if (a->url != b->url) {
		if (!a->url || !b->url)
			return a->url ? 1 : -1;
		int c = str_natcmp(a->url, b->url);
		if (c)
			return c;
	}
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Byte b (0 = lowest) of the 128-bit key k0:k1. */
static unsigned lib_key_byte(const struct lib_key *k, int b)
{
	return (unsigned)((b < 8 ? k->k1 >> (8 * b) : k->k0 >> (8 * (b - 8))) & 0xff);
}

/* Sort keys by (k0, k1), stable: a least-significant-digit radix sort,
 * byte by byte, skipping the bytes every key shares (most of them: ranks
 * and years use few bits). Several times faster than qsort with a
 * comparison callback at a million items. */
static void lib_keys_radix_sort(struct lib_key *keys, size_t n)
{
	uint32_t (*hist)[256] = xcalloc(16, sizeof *hist);
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 16; b++)
			hist[b][lib_key_byte(&keys[i], b)]++;
	struct lib_key *tmp = NULL, *src = keys, *dst = NULL;
	for (int b = 0; b < 16; b++) {
		if (n == 0 || hist[b][lib_key_byte(&keys[0], b)] == n)
			continue; /* every key has the same byte here */
		if (!tmp)
			tmp = xmalloc(n * sizeof *tmp);
		dst = src == keys ? tmp : keys;
		uint32_t pos[256], sum = 0;
		for (int d = 0; d < 256; d++) {
			pos[d] = sum;
			sum += hist[b][d];
		}
		for (size_t i = 0; i < n; i++)
			dst[pos[lib_key_byte(&src[i], b)]++] = src[i];
		src = dst;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof *keys);
	free(tmp);
	free(hist);
}

static const struct prop *prop_by_name(const struct mlib_index *idx, const char *name)
{
	int i = prop_find(idx, name);
	return i < 0 ? NULL : &idx->props[i];
}

/* Sort key of an item's value for a library-order component, in [0, max];
 * 0 when missing. String values use their rank. */
static uint64_t component_key(const struct prop *p, uint32_t id, uint64_t max)
{
	if (!p)
		return 0;
	if (p->kind == MLIB_PROP_INT) {
		int64_t v = icol_get(p, id);
		if (v == INT_MISSING)
			return 0;
		/* Bias so negatives order below positives, then clamp. */
		int64_t lo = -(int64_t)(max / 2) + 1, hi = (int64_t)(max / 2) - 1;
		if (v < lo)
			v = lo;
		if (v > hi)
			v = hi;
		return (uint64_t)(v - lo) + 1;
	}
	const uint32_t *vids;
	if (!prop_str_values(p, id, &vids))
		return 0;
	uint64_t r = (uint64_t)p->d.rank[vids[0]] + 1;
	return r > max ? max : r;
}

/* albumartist and artist are one sort key ("albumartist, else artist"), so
 * their values are ranked together in one sort. */
static void artist_ranks(const struct prop *aa, const struct prop *ar, uint32_t **aa_rank,
			 uint32_t **ar_rank)
{
	size_t naa = aa && aa->kind == MLIB_PROP_STRING ? aa->d.n : 0;
	size_t nar = ar && ar->kind == MLIB_PROP_STRING ? ar->d.n : 0;
	struct rank_entry *e = xmalloc((naa + nar + 1) * sizeof *e);
	uint32_t *ranks = xmalloc((naa + nar + 1) * sizeof *ranks);
	for (size_t v = 0; v < naa; v++)
		rank_entry_fill(&e[v], &aa->d, (uint32_t)v, (uint32_t)v);
	for (size_t v = 0; v < nar; v++)
		rank_entry_fill(&e[naa + v], &ar->d, (uint32_t)v, (uint32_t)(naa + v));
	rank_entries(e, naa + nar, ranks);
	free(e);
	*aa_rank = ranks;
	*ar_rank = ranks + naa;
}

static uint64_t artist_key(const struct prop *p, const uint32_t *ranks, uint32_t id)
{
	const uint32_t *vids;
	if (!p || p->kind != MLIB_PROP_STRING || !prop_str_values(p, id, &vids))
		return 0;
	return (uint64_t)ranks[vids[0]] + 1;
}

static void build_library_order(struct mlib_index *idx)
{
	const struct prop *aa = prop_by_name(idx, "albumartist");
	const struct prop *ar = prop_by_name(idx, "artist");
	const struct prop *year = prop_by_name(idx, "year");
	const struct prop *album = prop_by_name(idx, "album");
	const struct prop *disc = prop_by_name(idx, "discnr");
	const struct prop *track = prop_by_name(idx, "tracknr");
	const struct prop *url = prop_by_name(idx, "url");
	const struct prop *parts[] = { year, album, disc, track };
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if (parts[i] && parts[i]->kind == MLIB_PROP_STRING)
			dict_compute_ranks((struct dict *)&parts[i]->d);
	uint32_t *aa_rank, *ar_rank;
	artist_ranks(aa, ar, &aa_rank, &ar_rank);

	size_t n = idx->all_ids.n;
	struct lib_key *keys = xmalloc((n + 1) * sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = idx->all_ids.v[i];
		uint64_t a = artist_key(aa, aa_rank, id);
		if (!a)
			a = artist_key(ar, ar_rank, id);
		keys[i].k0 = a << 32 | component_key(year, id, UINT32_MAX);
		keys[i].k1 = component_key(album, id, UINT32_MAX) << 32 |
			     component_key(disc, id, UINT16_MAX) << 16 | component_key(track, id, UINT16_MAX);
		keys[i].id = id;
	}
	free(aa_rank); /* ar_rank points into the same block */
	lib_keys_radix_sort(keys, n);
	/* Runs of equal (k0, k1): by url, then id (few and short). */
	bool url_ok = url && url->kind == MLIB_PROP_STRING;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].k0 == keys[i].k0 && keys[j].k1 == keys[i].k1; j++)
			;
		if (j - i < 2)
			continue;
		struct lib_tie *t = xmalloc((j - i) * sizeof *t);
		for (size_t k = i; k < j; k++) {
			const uint32_t *vids;
			t[k - i].url = url_ok && prop_str_values(url, keys[k].id, &vids)
					       ? url->d.fold + url->d.fold_off[vids[0]]
					       : NULL;
			t[k - i].id = keys[k].id;
		}
		qsort(t, j - i, sizeof *t, lib_tie_cmp);
		for (size_t k = i; k < j; k++)
			keys[k].id = t[k - i].id;
		free(t);
	}

	idx->lib_order.n = 0;
	u32vec_reserve(&idx->lib_order, n);
	free(idx->lib_rank);
	idx->lib_rank = xmalloc((size_t)(idx->bound + 1) * sizeof *idx->lib_rank);
	memset(idx->lib_rank, 0xff, (size_t)(idx->bound + 1) * sizeof *idx->lib_rank);
	for (size_t i = 0; i < n; i++) {
		idx->lib_order.v[i] = keys[i].id;
		idx->lib_rank[keys[i].id] = (uint32_t)i;
	}
	idx->lib_order.n = n;
	free(keys);
}

/* Items-by-value lists pay off for dictionaries at least this large. */
#define POSTINGS_MIN_DICT 4096
static void prop_build_postings(struct prop *p);

/* Dictionaries at most this large get their ranks at finish; larger ones
 * (titles, urls: one value per track) when something first sorts by them. */
#define EAGER_RANK_LIMIT 65536

void mlib_index_finish(struct mlib_index *idx)
{
	idx->all_ids.n = 0;
	u32vec_reserve(&idx->all_ids, idx->count + 1);
	for (size_t w = 0; w < bitset_words(&idx->present); w++) {
		uint64_t bits = idx->present.w[w];
		while (bits) {
			int b = __builtin_ctzll(bits);
			idx->all_ids.v[idx->all_ids.n++] = (uint32_t)(w * 64 + (size_t)b);
			bits &= bits - 1;
		}
	}
	/* Lookup tables go first: the sorts below need memory, and peak
	 * resident memory at start-up is what the user sees. */
	for (int i = 0; i < idx->nprops; i++)
		if (idx->props[i].kind == MLIB_PROP_STRING)
			dict_compact(&idx->props[i].d);
	for (int i = 0; i < idx->nprops; i++)
		if (idx->props[i].kind == MLIB_PROP_STRING && idx->props[i].d.n <= EAGER_RANK_LIMIT)
			dict_compute_ranks(&idx->props[i].d);
	build_library_order(idx);
	/* The fields a plain search word looks in get their items-by-value now
	 * rather than during the first keystrokes (others on first need). */
	static const char *const searched[] = { "artist", "albumartist", "album", "title" };
	for (size_t i = 0; i < sizeof searched / sizeof searched[0]; i++) {
		int pi = prop_find(idx, searched[i]);
		struct prop *p = pi >= 0 ? &idx->props[pi] : NULL;
		if (p && p->kind == MLIB_PROP_STRING && p->d.n >= POSTINGS_MIN_DICT && !p->post_off)
			prop_build_postings(p);
	}
}

/* ---- reading ---- */

const uint32_t *mlib_index_dict_ranks(const struct mlib_index *idx, int prop);

uint32_t mlib_index_id_bound(const struct mlib_index *idx)
{
	return idx->bound;
}

uint32_t mlib_index_count(const struct mlib_index *idx)
{
	return idx->count;
}

bool mlib_index_has_media(const struct mlib_index *idx, uint32_t id)
{
	return bitset_test(&idx->present, id);
}

const struct u32vec *mlib_index_all_ids(const struct mlib_index *idx)
{
	return &idx->all_ids;
}

const struct u32vec *mlib_index_library_order(const struct mlib_index *idx)
{
	return &idx->lib_order;
}

uint32_t mlib_index_library_rank(const struct mlib_index *idx, uint32_t id)
{
	if (!idx->lib_rank || id >= idx->bound)
		return UINT32_MAX;
	return idx->lib_rank[id];
}

int mlib_index_prop(const struct mlib_index *idx, const char *name)
{
	return prop_find(idx, name);
}

enum mlib_prop_kind mlib_index_prop_kind(const struct mlib_index *idx, int prop)
{
	return idx->props[prop].kind;
}

const char *mlib_index_prop_name(const struct mlib_index *idx, int prop)
{
	return idx->props[prop].name;
}

int mlib_index_prop_count(const struct mlib_index *idx)
{
	return idx->nprops;
}

uint32_t mlib_index_dict_size(const struct mlib_index *idx, int prop)
{
	return idx->props[prop].kind == MLIB_PROP_STRING ? idx->props[prop].d.n : 0;
}

const char *mlib_index_dict_text(const struct mlib_index *idx, int prop, uint32_t vid)
{
	return dict_text(&idx->props[prop].d, vid);
}

const char *mlib_index_dict_folded(const struct mlib_index *idx, int prop, uint32_t vid)
{
	const struct dict *d = &idx->props[prop].d;
	return d->fold + d->fold_off[vid];
}

bool mlib_index_dict_number(const struct mlib_index *idx, int prop, uint32_t vid, double *out)
{
	double v = dict_num(&idx->props[prop].d, vid);
	if (isnan(v))
		return false;
	*out = v;
	return true;
}

uint32_t mlib_index_dict_rank(const struct mlib_index *idx, int prop, uint32_t vid)
{
	struct dict *d = (struct dict *)&idx->props[prop].d; /* lazily filled cache */
	dict_compute_ranks(d);
	return d->rank[vid];
}

void mlib_index_dict_fold_span(const struct mlib_index *idx, int prop, const char **base,
			       const uint32_t **offs, uint32_t *n)
{
	const struct dict *d = &idx->props[prop].d;
	*base = d->fold;
	*offs = d->fold_off;
	*n = idx->props[prop].kind == MLIB_PROP_STRING ? d->n : 0;
}

size_t mlib_index_str_values(const struct mlib_index *idx, int prop, uint32_t id,
			     const uint32_t **vids)
{
	return prop_str_values(&idx->props[prop], id, vids);
}

bool mlib_index_int_value(const struct mlib_index *idx, int prop, uint32_t id, int64_t *out)
{
	const struct prop *p = &idx->props[prop];
	if (p->kind != MLIB_PROP_INT)
		return false;
	int64_t v = icol_get(p, id);
	if (v == INT_MISSING)
		return false;
	*out = v;
	return true;
}

const char *mlib_index_get_text(const struct mlib_index *idx, uint32_t id, const char *prop,
				char *buf, size_t bufsize)
{
	int pi = prop_find(idx, prop);
	if (pi < 0 || !mlib_index_has_media(idx, id))
		return NULL;
	const struct prop *p = &idx->props[pi];
	if (p->kind == MLIB_PROP_INT) {
		int64_t v;
		if (!mlib_index_int_value(idx, pi, id, &v) || !buf || bufsize == 0)
			return NULL;
		snprintf(buf, bufsize, "%" PRId64, v);
		return buf;
	}
	const uint32_t *vids;
	if (!prop_str_values(p, id, &vids))
		return NULL;
	return dict_text(&p->d, vids[0]);
}

const char *mlib_index_get_joined(const struct mlib_index *idx, uint32_t id, const char *prop,
				  const char *sep, char *buf, size_t bufsize)
{
	int pi = prop_find(idx, prop);
	if (pi < 0 || !mlib_index_has_media(idx, id) || !buf || bufsize == 0)
		return NULL;
	const struct prop *p = &idx->props[pi];
	const uint32_t *vids;
	size_t n = p->kind == MLIB_PROP_STRING ? prop_str_values(p, id, &vids) : 0;
	if (n <= 1) {
		const char *t = mlib_index_get_text(idx, id, prop, buf, bufsize);
		if (t && t != buf)
			snprintf(buf, bufsize, "%s", t);
		return t ? buf : NULL;
	}
	size_t len = 0;
	for (size_t k = 0; k < n && len + 1 < bufsize; k++)
		len += (size_t)snprintf(buf + len, bufsize - len, "%s%s", k ? sep : "",
					dict_text(&p->d, vids[k]));
	return buf;
}

size_t mlib_index_memory(const struct mlib_index *idx)
{
	size_t total = sizeof *idx + (size_t)idx->props_cap * sizeof *idx->props;
	total += bitset_words(&idx->present) * 8 + idx->all_ids.cap * 4 + idx->lib_order.cap * 4;
	total += idx->lib_rank ? (size_t)(idx->bound + 1) * 4 : 0;
	for (int i = 0; i < idx->nprops; i++) {
		const struct prop *p = &idx->props[i];
		const struct dict *d = &p->d;
		total += p->col_cap * (p->kind == MLIB_PROP_INT && p->wide ? 8 : 4) + p->multi_cap * 4;
		total += p->multi_ids.cap * 4;
		if (p->post_off)
			total += ((size_t)p->d.n + 1) * 4 + (size_t)p->post_off[p->d.n] * 4;
		total += d->fold_cap + d->raw_cap + hashtab_memory(&d->lookup);
		total += (size_t)d->cap * (4 + 4) + ((size_t)d->cap + 63) / 64 * 8;
		total += d->num_cap * (4 + 8) + (d->rank ? (size_t)d->n * 4 : 0);
	}
	return total;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_SELECT 1
/* The single-value part of mlib_index_select_str, eight items per step
 * where the processor has AVX2 (the build targets plain x86-64): gather
 * each item's word of vals, shift its bit down, collect the bits. Whole
 * 64-item words only; returns how many items it did. */
__attribute__((target("avx2"))) static size_t select_single_avx2(const uint32_t *col, size_t n,
								 const uint64_t *vw, uint32_t nd,
								 bool none, uint64_t *out)
{
	if (nd == 0)
		return 0;
	const __m256i last = _mm256_set1_epi32((int)(nd - 1)), one = _mm256_set1_epi32(1);
	const __m256i b31 = _mm256_set1_epi32(31), flip = _mm256_set1_epi32(none ? 1 : 0);
	const __m256i multi = _mm256_set1_epi32((int)STR_MULTI);
	const int *words = (const int *)(const void *)vw; /* little-endian: bit v of word v >> 5 */
	size_t done = n / 64 * 64;
	for (size_t base = 0; base < done; base += 64) {
		uint64_t word = 0;
		for (size_t b = 0; b < 64; b += 8) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(col + base + b));
			/* v <= nd - 1 (unsigned): a single value inside the dictionary */
			__m256i valid = _mm256_cmpeq_epi32(_mm256_max_epu32(v, last), last);
			__m256i idx = _mm256_and_si256(_mm256_srli_epi32(v, 5), valid);
			__m256i w = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), words, idx, valid, 4);
			__m256i bit = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_and_si256(v, b31)), one);
			/* any ^ none, for items having one value (not several, not missing) */
			__m256i single = _mm256_cmpeq_epi32(_mm256_and_si256(v, multi), _mm256_setzero_si256());
			__m256i pass = _mm256_and_si256(_mm256_xor_si256(bit, flip), single);
			unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(pass, one)));
			word |= (uint64_t)m << b;
		}
		out[base >> 6] |= word;
	}
	return done;
}
#endif

/* Items by value for p (see struct prop): one counting pass, one filling
 * pass in id order. */
static void prop_build_postings(struct prop *p)
{
	uint32_t nd = p->d.n;
	uint32_t *off = xcalloc((size_t)nd + 2, sizeof *off);
	for (size_t id = 0; id < p->col_cap; id++) {
		const uint32_t *vids;
		size_t k = prop_str_values(p, (uint32_t)id, &vids);
		for (size_t j = 0; j < k; j++)
			off[vids[j] + 2]++;
	}
	for (uint32_t v = 0; v < nd; v++)
		off[v + 2] += off[v + 1];
	uint32_t *post = xmalloc(((size_t)off[nd + 1] + 1) * sizeof *post);
	for (size_t id = 0; id < p->col_cap; id++) {
		const uint32_t *vids;
		size_t k = prop_str_values(p, (uint32_t)id, &vids);
		for (size_t j = 0; j < k; j++)
			post[off[vids[j] + 1]++] = (uint32_t)id;
	}
	p->post_off = off; /* now off[v] .. off[v+1] */
	p->post = post;
}

/* When few values match, set their items from the postings instead of
 * reading the whole column. False when the column read is the better way. */
static bool select_by_postings(struct prop *p, const struct bitset *vals, uint32_t nd, size_t n,
			       struct bitset *out)
{
	size_t matched = 0, nw = ((size_t)nd + 63) / 64;
	for (size_t w = 0; w < nw; w++)
		matched += (size_t)__builtin_popcountll(vals->w[w] & (w + 1 < nw || nd % 64 == 0
									? ~(uint64_t)0
									: (((uint64_t)1 << (nd % 64)) - 1)));
	/* Worth it for a handful of values of a large dictionary only. */
	if (nd < POSTINGS_MIN_DICT || matched > nd / 32)
		return false;
	if (!p->post_off)
		prop_build_postings(p);
	size_t items = 0;
	for (size_t w = 0; w < nw; w++) {
		uint64_t bits = vals->w[w];
		while (bits) {
			uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			bits &= bits - 1;
			if (v < nd)
				items += p->post_off[v + 1] - p->post_off[v];
		}
	}
	if (items > n / 16)
		return false;
	for (size_t w = 0; w < nw; w++) {
		uint64_t bits = vals->w[w];
		while (bits) {
			uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			bits &= bits - 1;
			if (v >= nd)
				continue;
			for (uint32_t k = p->post_off[v]; k < p->post_off[v + 1]; k++)
				if (p->post[k] < n)
					bitset_set(out, p->post[k]);
		}
	}
	return true;
}

void mlib_index_select_str(const struct mlib_index *idx, int prop, const struct bitset *vals,
			   bool none, struct bitset *out)
{
	const struct prop *p = &idx->props[prop];
	if (p->kind != MLIB_PROP_STRING)
		return;
	size_t n = p->col_cap < idx->bound ? p->col_cap : idx->bound;
	if (n > out->nbits)
		n = out->nbits;
	const uint32_t *col = p->scol;
	const uint64_t *vw = vals->w;
	uint32_t nd = p->d.n < vals->nbits ? p->d.n : (uint32_t)vals->nbits;
	if (!none && select_by_postings((struct prop *)p, vals, nd, n, out)) /* lazily built cache */
		return;
	const uint64_t zero = 0;
	uint64_t flip = none;
	size_t start = 0;
#ifdef HAVE_AVX2_SELECT
	if (__builtin_cpu_supports("avx2"))
		start = select_single_avx2(col, n, vw, nd, none, out->w);
#endif
	/* Single values without a branch per item (a mispredicted branch costs
	 * more than the work); items with several values are done after. */
	for (size_t base = start; base < n; base += 64) {
		size_t lim = n - base < 64 ? n - base : 64;
		const uint32_t *c = col + base;
		uint64_t word = 0;
		for (size_t b = 0; b < lim; b++) {
			uint32_t v = c[b];
			const uint64_t *wp = v < nd ? vw + (v >> 6) : &zero;
			uint64_t any = (*wp >> (v & 63)) & 1;
			uint64_t single = (v & STR_MULTI) == 0;
			word |= ((any ^ flip) & single) << b;
		}
		out->w[base >> 6] |= word;
	}
	for (size_t i = 0; i < p->multi_ids.n; i++) {
		uint32_t id = p->multi_ids.v[i];
		if (id >= n || !(col[id] & STR_MULTI) || col[id] == STR_MISSING)
			continue;
		const uint32_t *g = p->multi + (col[id] & ~STR_MULTI);
		bool any = false;
		for (uint32_t k = 1; k <= g[0] && !any; k++)
			any = g[k] < nd && ((vw[g[k] >> 6] >> (g[k] & 63)) & 1);
		if (any != none)
			bitset_set(out, id);
	}
}

void mlib_index_first_ranks(const struct mlib_index *idx, int prop, const uint32_t *ids, size_t n,
			    uint64_t *out)
{
	const struct prop *p = &idx->props[prop];
	if (p->kind != MLIB_PROP_STRING) {
		memset(out, 0, n * sizeof *out);
		return;
	}
	const uint32_t *ranks = mlib_index_dict_ranks(idx, prop);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		uint32_t c = id < p->col_cap ? p->scol[id] : STR_MISSING;
		if (c == STR_MISSING)
			out[i] = 0;
		else if (c & STR_MULTI)
			out[i] = (uint64_t)ranks[p->multi[(c & ~STR_MULTI) + 1]] + 1;
		else
			out[i] = (uint64_t)ranks[c] + 1;
	}
}

const uint32_t *mlib_index_dict_ranks(const struct mlib_index *idx, int prop)
{
	struct dict *d = (struct dict *)&idx->props[prop].d; /* lazily filled cache */
	dict_compute_ranks(d);
	return d->rank;
}

bool mlib_index_int_column(const struct mlib_index *idx, int prop, struct mlib_int_column *out)
{
	const struct prop *p = &idx->props[prop];
	memset(out, 0, sizeof *out);
	if (p->kind != MLIB_PROP_INT)
		return false;
	out->len = p->col_cap < idx->bound ? p->col_cap : idx->bound;
	if (p->wide)
		out->v64 = p->icol;
	else
		out->v32 = p->icol32;
	return true;
}

const struct bitset *mlib_index_present_set(const struct mlib_index *idx)
{
	return &idx->present;
}

size_t mlib_index_multi_ids(const struct mlib_index *idx, int prop, const uint32_t **ids)
{
	if (prop < 0 || prop >= idx->nprops || idx->props[prop].kind != MLIB_PROP_STRING) {
		*ids = NULL;
		return 0;
	}
	*ids = idx->props[prop].multi_ids.v;
	return idx->props[prop].multi_ids.n;
}

void mlib_index_first_vids(const struct mlib_index *idx, int prop, const uint32_t *ids, size_t n,
			   uint32_t *out)
{
	const struct prop *p = prop >= 0 ? &idx->props[prop] : NULL;
	if (!p || p->kind != MLIB_PROP_STRING) {
		memset(out, 0xff, n * sizeof *out);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		uint32_t c = id < p->col_cap ? p->scol[id] : STR_MISSING;
		if (c != STR_MISSING && (c & STR_MULTI))
			c = p->multi[(c & ~STR_MULTI) + 1];
		out[i] = c;
	}
}

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
	 * (dict_num's binary search relies on both). */
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
