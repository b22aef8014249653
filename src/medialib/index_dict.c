/* The index's dictionaries: the distinct values of one string property,
 * interned through a hash table while building, with folded twins,
 * numeric readings and natural-order ranks. See index_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "base/utf8.h"
#include "medialib/index_internal.h"

/* ---- text arenas ---- */

static size_t arena_add(char **arena, size_t *len, size_t *cap, const char *s, size_t n)
{
	*arena = index_grow_array(*arena, cap, *len + n + 1, 1);
	size_t off = *len;
	memcpy(*arena + off, s, n);
	(*arena)[off + n] = '\0';
	*len += n + 1;
	return off;
}

/* ---- dictionaries ---- */

double index_dict_number(const struct dict *d, uint32_t v)
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
		const char *t = index_dict_text(d, v);
		hashtab_insert(&d->lookup, hash_bytes(t, strlen(t)), v);
	}
}

/* Once built: drop what only interning needs and trim the growth room. */
void index_dict_compact(struct dict *d)
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

/* Move n elements of elem bytes at *p into a new block of cap elements. */
static void *dict_regrow(void *p, size_t n, size_t cap, size_t elem)
{
	void *q = xmalloc_huge(cap * elem);
	if (n)
		memcpy(q, p, n * elem);
	free(p);
	return q;
}

void index_dict_reserve(struct dict *d, uint32_t n, size_t fold_bytes, size_t raw_bytes)
{
	if (n > d->cap) {
		d->fold_off = dict_regrow(d->fold_off, d->cap ? (size_t)d->n + 1 : 0, (size_t)n + 1,
					  sizeof *d->fold_off);
		d->raw_off = dict_regrow(d->raw_off, d->n, n, sizeof *d->raw_off);
		size_t old_w = ((size_t)d->cap + 63) / 64, new_w = ((size_t)n + 63) / 64;
		d->numbits = xreallocarray(d->numbits, new_w, sizeof *d->numbits);
		memset(d->numbits + old_w, 0, (new_w - old_w) * sizeof *d->numbits);
		d->cap = n;
	}
	if (fold_bytes > d->fold_cap) {
		d->fold = dict_regrow(d->fold, d->fold_len, fold_bytes, 1);
		d->fold_cap = fold_bytes;
	}
	if (raw_bytes > d->raw_cap) {
		d->raw = dict_regrow(d->raw, d->raw_len, raw_bytes, 1);
		d->raw_cap = raw_bytes;
	}
	if (d->lookup.nslots)
		hashtab_reserve(&d->lookup, n);
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

uint32_t index_dict_intern(struct dict *d, const char *s, size_t len)
{
	len = strnlen(s, len); /* a NUL inside a tag ends it */
	if (d->last && len == d->last_len && memcmp(index_dict_text(d, d->last - 1), s, len) == 0)
		return d->last - 1;
	return index_dict_intern_h(d, s, len, hash_bytes(s, len)); /* checks last again: rare */
}

void index_dict_prefetch(const struct dict *d, uint32_t h)
{
	if (d->lookup.nslots)
		__builtin_prefetch(&d->lookup.slots[h & (d->lookup.nslots - 1)]);
}

void index_dict_prefetch_match(const struct dict *d, uint32_t h, int step)
{
	struct hashtab_probe p = hashtab_probe(&d->lookup, h);
	for (uint32_t v; (v = hashtab_next(&p)) != HASHTAB_NONE;) {
		if (step == 0) {
			__builtin_prefetch(&d->fold_off[v]);
			if (d->raw_off)
				__builtin_prefetch(&d->raw_off[v]);
		} else {
			__builtin_prefetch(index_dict_text(d, v));
		}
	}
}

uint32_t index_dict_intern_h(struct dict *d, const char *s, size_t len, uint32_t h)
{
	if (d->last && len == d->last_len && memcmp(index_dict_text(d, d->last - 1), s, len) == 0)
		return d->last - 1;
	if (!d->lookup.nslots)
		dict_restore_lookup(d);
	struct hashtab_probe p = hashtab_probe(&d->lookup, h);
	uint32_t v;
	while ((v = hashtab_next(&p)) != HASHTAB_NONE) {
		const char *t = index_dict_text(d, v);
		if (memcmp(t, s, len) == 0 && t[len] == '\0')
			break;
	}
	if (v == HASHTAB_NONE)
		v = dict_push(d, s, len, h);
	d->last = v + 1;
	d->last_len = len;
	return v;
}

/* A value the caller guarantees differs from every other (urls: UNIQUE in
 * the database). While no lookup table exists none is built: a million
 * urls cost no hashing and no probing; a later index_dict_intern builds it. */
uint32_t index_dict_add_unique(struct dict *d, const char *s, size_t len)
{
	if (d->lookup.nslots || memchr(s, '\0', len)) /* a NUL cuts the text: no longer unique */
		return index_dict_intern(d, s, len);
	return dict_push(d, s, len, 0);
}

void index_dict_free(struct dict *d)
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
	e->num = index_dict_number(d, vid);
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

void index_dict_compute_ranks(struct dict *d)
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

void index_dict_joint_ranks(const struct dict *a, const struct dict *b, uint32_t **a_rank,
			    uint32_t **b_rank)
{
	size_t na = a ? a->n : 0, nb = b ? b->n : 0;
	struct rank_entry *e = xmalloc((na + nb + 1) * sizeof *e);
	uint32_t *ranks = xmalloc((na + nb + 1) * sizeof *ranks);
	for (size_t v = 0; v < na; v++)
		rank_entry_fill(&e[v], a, (uint32_t)v, (uint32_t)v);
	for (size_t v = 0; v < nb; v++)
		rank_entry_fill(&e[na + v], b, (uint32_t)v, (uint32_t)(na + v));
	rank_entries(e, na + nb, ranks);
	free(e);
	*a_rank = ranks;
	*b_rank = ranks + na;
}
