/* Spelling corrections (crate(1), "RANKING").
 *
 * The dictionary holds each distinct word once, grouped by length in
 * characters, with a 64-bit mask of the characters it contains (hashed to
 * 64 bits) and how many distinct values hold it. A lookup scans only the
 * lengths within the distance and rejects most words with two popcounts:
 * each edit adds at most one character absent from the other word and
 * removes at most one, so both set differences of the masks are at most
 * the distance. Survivors get the exact (bounded) distance. */
#include "coll/typo.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/str.h"
#include "base/utf8.h"
#include "coll/words.h"
#include "medialib/index.h"

#define MAX_CHARS 48 /* longer words are never corrected or offered */

struct coll_typo_dict {
	const struct mlib_index *idx;
	uint32_t ndict[3];
	char *text;        /* words, NUL-terminated, by length */
	uint32_t *off;     /* word i at text + off[i] */
	uint64_t *mask;
	uint32_t *freq;
	uint32_t n;
	uint32_t by_len[MAX_CHARS + 2]; /* words of length L: [by_len[L], by_len[L+1]) */
};

static const char *const dict_props[3] = {"artist", "album", "title"};

static uint64_t cp_bit(uint32_t cp)
{
	return 1ull << ((cp * 0x9E3779B1u) >> 26);
}

/* Code points of a word (at most MAX_CHARS; 0 when longer). */
static size_t to_cps(const char *s, size_t len, uint32_t *out, uint64_t *mask)
{
	size_t n = 0, i = 0;
	*mask = 0;
	while (i < len) {
		if (n == MAX_CHARS)
			return 0;
		i += utf8_decode(s + i, len - i, &out[n]);
		*mask |= cp_bit(out[n]);
		n++;
	}
	return n;
}

/* ---- building: a hash set of words ---- */

struct wset {
	struct hashtab words; /* into off/freq/last_value */
	struct strbuf text;
	struct u32vec off, freq, last_value;
};

/* Count word s[0..n) once per distinct value (value: a running number). */
static void wset_add(struct wset *w, const char *s, size_t n, uint32_t value)
{
	uint32_t h = hash_bytes(s, n);
	struct hashtab_probe p = hashtab_probe(&w->words, h);
	for (uint32_t k; (k = hashtab_next(&p)) != HASHTAB_NONE;) {
		const char *t = w->text.buf + w->off.v[k];
		if (strncmp(t, s, n) == 0 && t[n] == '\0') {
			if (w->last_value.v[k] != value) {
				w->last_value.v[k] = value;
				w->freq.v[k]++;
			}
			return;
		}
	}
	hashtab_insert(&w->words, h, (uint32_t)w->off.n);
	u32vec_push(&w->off, (uint32_t)w->text.len);
	u32vec_push(&w->freq, 1);
	u32vec_push(&w->last_value, value);
	strbuf_add(&w->text, s, n);
	strbuf_addc(&w->text, '\0');
}

static void wset_free(struct wset *w)
{
	hashtab_free(&w->words);
	strbuf_free(&w->text);
	u32vec_free(&w->off);
	u32vec_free(&w->freq);
	u32vec_free(&w->last_value);
}

void coll_typo_source_get(const struct mlib_index *idx, struct coll_typo_source *out)
{
	memset(out, 0, sizeof *out);
	out->idx = idx;
	for (int f = 0; f < 3; f++) {
		int p = mlib_index_prop(idx, dict_props[f]);
		if (p >= 0 && mlib_index_prop_kind(idx, p) == MLIB_PROP_STRING)
			mlib_index_dict_fold_span(idx, p, &out->base[f], &out->offs[f], &out->n[f]);
	}
}

struct coll_typo_dict *coll_typo_dict_build(const struct mlib_index *idx)
{
	struct coll_typo_source src;
	coll_typo_source_get(idx, &src);
	return coll_typo_dict_build_from(&src, NULL);
}

struct coll_typo_dict *coll_typo_dict_build_from(const struct coll_typo_source *src,
						 const atomic_int *cancel)
{
	struct wset w = {0};
	hashtab_reserve(&w.words, 1 << 13); /* any library has thousands of words */
	strbuf_init(&w.text, 1 << 16);
	uint32_t value = 0;
	for (int f = 0; f < 3; f++) {
		const char *base = src->base[f];
		const uint32_t *offs = src->offs[f];
		for (uint32_t v = 0; v < src->n[f]; v++, value++) {
			if ((v & 4095) == 0 && cancel && atomic_load(cancel)) {
				wset_free(&w);
				return NULL;
			}
			const char *s = base + offs[v];
			size_t len = offs[v + 1] - offs[v] - 1, pos = 0, st, wl;
			while (coll_word_next(s, len, &pos, &st, &wl))
				wset_add(&w, s + st, wl, value);
		}
	}
	struct coll_typo_dict *d = xcalloc(1, sizeof *d);
	d->idx = src->idx;
	memcpy(d->ndict, src->n, sizeof d->ndict);
	/* Order by length in characters (counting sort), dropping longer words. */
	size_t nw = w.off.n;
	uint8_t *nch = xmalloc(nw + 1);
	uint32_t count[MAX_CHARS + 2] = {0};
	for (size_t k = 0; k < nw; k++) {
		const char *s = w.text.buf + w.off.v[k];
		size_t c = utf8_count(s, strlen(s));
		nch[k] = (uint8_t)(c > MAX_CHARS ? 0 : c);
		if (nch[k])
			count[nch[k]]++;
	}
	uint32_t at = 0;
	for (int l = 0; l <= MAX_CHARS; l++) {
		d->by_len[l] = at;
		at += count[l];
	}
	d->by_len[MAX_CHARS + 1] = at;
	d->n = at;
	d->off = xmalloc((at + 1) * sizeof *d->off);
	d->mask = xmalloc((at + 1) * sizeof *d->mask);
	d->freq = xmalloc((at + 1) * sizeof *d->freq);
	uint32_t fill[MAX_CHARS + 2];
	memcpy(fill, d->by_len, sizeof fill);
	uint32_t cps[MAX_CHARS];
	for (size_t k = 0; k < nw; k++) {
		if (!nch[k])
			continue;
		uint32_t i = fill[nch[k]]++;
		const char *s = w.text.buf + w.off.v[k];
		d->off[i] = w.off.v[k];
		to_cps(s, strlen(s), cps, &d->mask[i]);
		d->freq[i] = w.freq.v[k];
	}
	free(nch);
	d->text = strbuf_steal(&w.text);
	hashtab_free(&w.words);
	u32vec_free(&w.off);
	u32vec_free(&w.freq);
	u32vec_free(&w.last_value);
	return d;
}

void coll_typo_dict_free(struct coll_typo_dict *d)
{
	if (!d)
		return;
	free(d->text);
	free(d->off);
	free(d->mask);
	free(d->freq);
	free(d);
}

int coll_typo_dict_fits(const struct coll_typo_dict *d, const struct mlib_index *idx)
{
	if (!d || d->idx != idx)
		return 0;
	for (int f = 0; f < 3; f++) {
		int p = mlib_index_prop(idx, dict_props[f]);
		uint32_t n = p >= 0 && mlib_index_prop_kind(idx, p) == MLIB_PROP_STRING
				     ? mlib_index_dict_size(idx, p)
				     : 0;
		if (n != d->ndict[f])
			return 0;
	}
	return 1;
}

size_t coll_typo_dict_size(const struct coll_typo_dict *d)
{
	return d ? d->n : 0;
}

int coll_typo_max_distance(size_t nchars)
{
	return nchars < 4 ? 0 : nchars < 8 ? 1 : 2;
}

int coll_typo_distance(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, int limit)
{
	/* three rows of the optimal string alignment table */
	int rows[3][MAX_CHARS + 1];
	if (na > MAX_CHARS || nb > MAX_CHARS)
		return limit + 1;
	int *pp = rows[0], *p = rows[1], *c = rows[2];
	for (size_t j = 0; j <= nb; j++)
		p[j] = (int)j;
	for (size_t i = 1; i <= na; i++) {
		c[0] = (int)i;
		int rowmin = c[0];
		for (size_t j = 1; j <= nb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = p[j - 1] + cost;
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
			if (v < rowmin)
				rowmin = v;
		}
		if (rowmin > limit)
			return limit + 1;
		int *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[nb] > limit ? limit + 1 : p[nb];
}

struct cand {
	uint32_t i;
	int dist;
};

size_t coll_typo_lookup(const struct coll_typo_dict *d, const char *word, const char **out,
			size_t max)
{
	uint32_t q[MAX_CHARS], c[MAX_CHARS];
	uint64_t qm, cm;
	size_t nq = to_cps(word, strlen(word), q, &qm);
	int k = coll_typo_max_distance(nq);
	if (!d || nq == 0 || k == 0 || max == 0)
		return 0;
	struct cand *best = xcalloc(max, sizeof *best);
	size_t nbest = 0;
	size_t lo = nq > (size_t)k ? nq - (size_t)k : 1, hi = nq + (size_t)k;
	if (hi > MAX_CHARS)
		hi = MAX_CHARS;
	for (size_t l = lo; l <= hi; l++) {
		for (uint32_t i = d->by_len[l]; i < d->by_len[l + 1]; i++) {
			uint64_t m = d->mask[i];
			if (__builtin_popcountll(qm & ~m) > k || __builtin_popcountll(m & ~qm) > k)
				continue;
			const char *s = d->text + d->off[i];
			size_t nc = to_cps(s, strlen(s), c, &cm);
			int dist = coll_typo_distance(q, nq, c, nc, k);
			if (dist == 0 || dist > k)
				continue;
			/* keep the best max: nearest, then most common, then first */
			size_t at = nbest;
			while (at > 0 && (best[at - 1].dist > dist ||
					  (best[at - 1].dist == dist &&
					   d->freq[best[at - 1].i] < d->freq[i])))
				at--;
			if (at >= max)
				continue;
			size_t move = nbest < max ? nbest - at : max - 1 - at;
			memmove(best + at + 1, best + at, move * sizeof *best);
			best[at] = (struct cand){i, dist};
			if (nbest < max)
				nbest++;
		}
	}
	for (size_t j = 0; j < nbest; j++)
		out[j] = d->text + d->off[best[j].i];
	free(best);
	return nbest;
}
