/* Relevance order (crate(1), "RANKING").
 *
 * A result's score, most significant first: how many of the query's words
 * it matches; the sum over those words of the points of its best match
 * (field and kind of match, table below); the popularity boost; then
 * library order. Matches are classified once per distinct field value
 * (memo arrays indexed by dictionary value id); for a large result, a
 * whole dictionary at once in passes over pieces of its folded texts,
 * shared with a second thread (memo_fill_range, fill_memos).
 * Items are then scored from those classes alone (known_keys) and the
 * keys, which take few values, are count-sorted (count_sort_desc), so
 * ranking a large result costs a few passes over it. */
#include "coll/rank.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/crew.h"
#include "base/str.h"
#include "base/utf8.h"
#include "coll/eval_cache.h"
#include "coll/eval_filter.h"
#include "coll/rank_fill.h"
#include "coll/rank_letters.h"
#include "coll/span.h"
#include "coll/words.h"
#include "medialib/index.h"

static const char *const field_props[COLL_RANK_NFIELDS] = {
	[COLL_RANK_ARTIST] = "artist",
	[COLL_RANK_ALBUMARTIST] = "albumartist",
	[COLL_RANK_ALBUM] = "album",
	[COLL_RANK_TITLE] = "title",
};

/* Artist and title beat album; every exact match beats every correction. */
static const int points_exact[2][5] = {
	/* none, substring, prefix, word, field */
	{0, 60, 200, 400, 600}, /* artist, albumartist, title */
	{0, 50, 150, 300, 500}, /* album */
};
static const int points_typo[5] = {0, 0, 20, 30, 40};

int coll_rank_points(enum coll_rank_field f, enum coll_rank_class c, bool typo)
{
	if (typo)
		return points_typo[c];
	return points_exact[f == COLL_RANK_ALBUM][c];
}

int coll_rank_terms_add(struct coll_rank_terms *t, const char *text, unsigned fields, int group,
			bool typo)
{
	if (group < 0)
		group = t->ngroups++;
	t->v = xreallocarray(t->v, t->n + 1, sizeof *t->v);
	t->v[t->n++] = (struct coll_rank_term){utf8_fold(text, strlen(text), NULL), fields, group,
					       typo};
	return group;
}

void coll_rank_terms_free(struct coll_rank_terms *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].text);
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* ---- classifying one value ---- */

/* The word tests below answer ASCII bytes inline and hand anything else
 * to coll/words.c: a whole-dictionary fill classifies a value per hit, and
 * the calls cost more than the tests there. */

static bool ascii_word_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* coll_word_boundary */
static bool boundary(const char *start, const char *end, const char *p)
{
	if (p <= start || p >= end)
		return true;
	unsigned char a = (unsigned char)p[0], b = (unsigned char)p[-1];
	if (a < 0x80 && !ascii_word_byte(a))
		return true;
	if (a < 0x80 && b < 0x80)
		return !ascii_word_byte(b);
	return coll_word_boundary(start, end, p);
}

/* Does s[0..len) hold a word character? */
static bool has_word_char(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) { /* decode from here on */
			size_t pos = i, st, wl;
			return coll_word_next(s, len, &pos, &st, &wl);
		}
		if (ascii_word_byte(c))
			return true;
	}
	return false;
}

/* The next occurrence of n in [h, h + hlen), for the short rests of a
 * value after a hit: a byte loop, no library call. */
static const char *find_near(const char *h, size_t hlen, const char *n, size_t nlen)
{
	if (nlen > hlen)
		return NULL;
	for (const char *p = h, *last = h + (hlen - nlen); p <= last; p++)
		if (*p == n[0] && memcmp(p + 1, n + 1, nlen - 1) == 0)
			return p;
	return NULL;
}

/* Whether the words of [value, h) are one leading English article ("the",
 * "a", "an"): "doors" is the whole of "The Doors" as a user means it, as
 * players that file "The Beatles" under B do. */
static bool only_article_before(const char *value, const char *h)
{
	static const char *const articles[] = {"the", "a", "an"};
	size_t len = (size_t)(h - value), pos = 0, st, wl;
	if (!coll_word_next(value, len, &pos, &st, &wl))
		return false;
	size_t ast = st, awl = wl;
	if (coll_word_next(value, len, &pos, &st, &wl))
		return false;
	for (size_t i = 0; i < sizeof articles / sizeof articles[0]; i++)
		if (strlen(articles[i]) == awl && memcmp(articles[i], value + ast, awl) == 0)
			return true;
	return false;
}

/* The best class of the occurrences of term in [value, end), the first
 * at h (NULL: none). */
static enum coll_rank_class classify_from(const char *value, const char *end, const char *term,
					  size_t tlen, const char *h)
{
	enum coll_rank_class best = COLL_RANK_NONE;
	while (h) {
		bool b0 = boundary(value, end, h), b1 = boundary(value, end, h + tlen);
		enum coll_rank_class c = COLL_RANK_SUBSTRING;
		if (b0 && b1)
			c = (has_word_char(value, (size_t)(h - value)) &&
			     !only_article_before(value, h)) ||
					    has_word_char(h + tlen, (size_t)(end - h - tlen))
				    ? COLL_RANK_WORD
				    : COLL_RANK_FIELD;
		else if (b0)
			c = COLL_RANK_PREFIX;
		if (c > best)
			best = c;
		if (best == COLL_RANK_FIELD)
			break;
		/* on to the next code point */
		uint32_t cp;
		const char *p = h + utf8_decode(h, (size_t)(end - h), &cp);
		h = find_near(p, (size_t)(end - p), term, tlen);
	}
	return best;
}

enum coll_rank_class coll_rank_classify(const char *value, size_t vlen, const char *term,
					size_t tlen)
{
	if (tlen == 0 || tlen > vlen)
		return COLL_RANK_NONE;
	return classify_from(value, value + vlen, term, tlen, str_find_short(value, vlen, term, tlen));
}

/* Several words typed with other separators than the value's ("harbour
 * lights" in "Harbour-Lights"): whole words in a row. */
static enum coll_rank_class classify_words(const char *value, size_t vlen, const char *term,
					   size_t tlen, bool several)
{
	enum coll_rank_class c = coll_rank_classify(value, vlen, term, tlen);
	if (several && c < COLL_RANK_WORD && coll_token_match(term, value, vlen))
		c = COLL_RANK_WORD;
	return c;
}

/* ---- popularity ---- */

struct boost_cols {
	struct mlib_int_column rating, played, last, skipped;
};

/* An integer column, or an empty one when no item has the property. */
static void int_column(const struct mlib_index *idx, const char *name,
		       struct mlib_int_column *out)
{
	int p = mlib_index_prop(idx, name);
	if (p < 0 || !mlib_index_int_column(idx, p, out))
		memset(out, 0, sizeof *out);
}

static void boost_cols_get(const struct mlib_index *idx, struct boost_cols *c)
{
	int_column(idx, "rating", &c->rating);
	int_column(idx, "timesplayed", &c->played);
	int_column(idx, "lastplayed", &c->last);
	int_column(idx, "timesskipped", &c->skipped);
}

/* Rating up to 6.0 points (1.2 a star), play count up to 2.0 (0.5 per
 * doubling), played in the last 30 days 1.0 (last year 0.5), minus 0.5 per
 * skip (at most 3.0); clamped to 0 .. 9.9. */
static int boost_of(const struct boost_cols *c, uint32_t id, int64_t now)
{
	int b = 0;
	int64_t v = mlib_int_column_get(&c->rating, id);
	if (v != MLIB_INT_MISSING && v > 0)
		b += (int)(v > 5 ? 5 : v) * 12;
	v = mlib_int_column_get(&c->played, id);
	if (v != MLIB_INT_MISSING && v > 0) {
		int doublings = 63 - __builtin_clzll((unsigned long long)v + 1); /* log2(1 + v) */
		b += doublings >= 4 ? 20 : doublings * 5;
	}
	v = mlib_int_column_get(&c->last, id);
	if (v != MLIB_INT_MISSING && v > 0 && v <= now) {
		if (now - v <= 30 * 86400)
			b += 10;
		else if (now - v <= 365 * 86400)
			b += 5;
	}
	v = mlib_int_column_get(&c->skipped, id);
	if (v != MLIB_INT_MISSING && v > 0)
		b -= v >= 6 ? 30 : (int)v * 5;
	return b < 0 ? 0 : b > COLL_RANK_BOOST_MAX ? COLL_RANK_BOOST_MAX : b;
}

int coll_rank_boost(const struct mlib_index *idx, uint32_t id, int64_t now)
{
	struct boost_cols c;
	boost_cols_get(idx, &c);
	return boost_of(&c, id, now ? now : (int64_t)time(NULL));
}

/* The moments boost_of's time terms change at for a last play at v > 0:
 * when v comes to pass (v <= now), and past 30 days and a year. */
int64_t coll_rank_boost_steady_until(const struct mlib_index *idx, int64_t now)
{
	struct mlib_int_column last;
	int_column(idx, "lastplayed", &last);
	int64_t until = INT64_MAX;
	for (size_t id = 0; id < last.len; id++) {
		int64_t v = mlib_int_column_get(&last, id);
		if (v == MLIB_INT_MISSING || v <= 0)
			continue;
		int64_t far = v > INT64_MAX - 366 * 86400 ? INT64_MAX : v; /* no overflow */
		int64_t at[3] = {v, far == INT64_MAX ? far : v + 30 * 86400 + 1,
				 far == INT64_MAX ? far : v + 365 * 86400 + 1};
		for (int k = 0; k < 3; k++)
			if (at[k] > now && at[k] < until)
				until = at[k];
	}
	return until;
}

/* ---- scoring ---- */

/* Below this many items the ids are scored where they are, and the memos
 * are filled as items need them. */
#define RANK_ID_ORDER_MIN 4096

/* A memo holds ndict + 1 bytes (eval_cache.h): class + 1 per value id,
 * 0 = not yet known, and byte ndict nonzero once every value is known. */
static bool memo_complete(const uint8_t *m, uint32_t ndict)
{
	return m && m[ndict];
}

/* Classifying every value in one pass over the dictionary's folded span
 * (memo_fill_range) costs about what classifying a value per RANK_FILL_RATIO
 * items does: the pass reads the texts in order and looks only at values
 * holding the term, where scoring items reads a text at random per item. */
#define RANK_FILL_RATIO 16
/* The vector pass (coll/rank_fill.h) of a word of two letters or more
 * costs a third of that. */
#define RANK_FILL_RATIO_FAST 48

static bool fill_pays(uint32_t ndict, size_t n, size_t ratio)
{
	return n >= RANK_ID_ORDER_MIN && n * ratio >= ndict;
}

/* The ratio for term text[0..len). */
static size_t fill_ratio(const char *text, size_t len)
{
	return len >= 2 && coll_rank_fill_fast_term(text, len) ? RANK_FILL_RATIO_FAST
							       : RANK_FILL_RATIO;
}

struct scorer {
	const struct mlib_index *idx;
	const struct coll_rank_terms *t;
	int prop[COLL_RANK_NFIELDS];
	uint32_t ndict[COLL_RANK_NFIELDS];
	const char *fbase[COLL_RANK_NFIELDS]; /* folded texts, contiguous */
	const uint32_t *foffs[COLL_RANK_NFIELDS];
	unsigned fields; /* fields some term looks in (and the index has) */
	unsigned memo_fields; /* fields whose classes are remembered (see scorer_init) */
	size_t n;       /* items to score */
	size_t *tlen;   /* per term: bytes of its text */
	bool *several;  /* per term: more than one word */
	uint8_t **memo; /* [term * NFIELDS + field]: class + 1 per value id, 0 = not yet */
	bool memo_kept; /* the memos are the cache's (kept for the next keystroke) */
	struct coll_eval_cache *cache; /* with memo_kept: where one-letter tables are kept */
	int *best;      /* per group */
	struct boost_cols boost;
	int64_t now;
};

/* The cache key of what is kept per dictionary of prop (memos, derived
 * arrays): op and value unused. */
static struct coll_cache_key dict_key(const struct mlib_index *idx, int prop, uint32_t ndict)
{
	return (struct coll_cache_key){.idx = idx, .prop = prop, .ndict = ndict,
				       .bound = mlib_index_id_bound(idx),
				       .count = mlib_index_count(idx), .op = -1};
}

/* The cache's memos for every (term, field) scored, when it holds that
 * many: a term typed earlier keeps its classes from keystroke to
 * keystroke, titles included. */
static void scorer_kept_memos(struct scorer *s, struct coll_eval_cache *cache)
{
	const struct coll_rank_terms *t = s->t;
	size_t need = 0;
	for (size_t i = 0; i < t->n; i++)
		for (int f = 0; f < COLL_RANK_NFIELDS; f++)
			need += s->prop[f] >= 0 && (t->v[i].fields & 1u << f);
	if (!cache || need > COLL_CACHE_RANK_SLOTS)
		return;
	s->memo_kept = true;
	s->cache = cache;
	for (size_t i = 0; i < t->n; i++)
		for (int f = 0; f < COLL_RANK_NFIELDS; f++) {
			if (s->prop[f] < 0 || !(t->v[i].fields & 1u << f))
				continue;
			struct coll_cache_key k = dict_key(s->idx, s->prop[f], s->ndict[f]);
			s->memo[i * COLL_RANK_NFIELDS + (size_t)f] =
				coll_cache_rank_memo(cache, &k, t->v[i].text);
		}
}

/* n: how many items will be scored; cache: where memos are kept, or NULL. */
static void scorer_init(struct scorer *s, const struct mlib_index *idx,
			const struct coll_rank_terms *t, int64_t now, size_t n,
			struct coll_eval_cache *cache)
{
	memset(s, 0, sizeof *s);
	s->idx = idx;
	s->t = t;
	s->n = n;
	s->now = now ? now : (int64_t)time(NULL);
	for (int f = 0; f < COLL_RANK_NFIELDS; f++) {
		int p = mlib_index_prop(idx, field_props[f]);
		if (p >= 0 && mlib_index_prop_kind(idx, p) != MLIB_PROP_STRING)
			p = -1;
		s->prop[f] = p;
		if (p >= 0)
			mlib_index_dict_fold_span(idx, p, &s->fbase[f], &s->foffs[f], &s->ndict[f]);
		/* Values that repeat are classified once; a dictionary of
		 * nearly all different values (titles) only when the result is
		 * large enough to classify all of it in one pass (memo_fill_range). */
		size_t ratio = RANK_FILL_RATIO;
		for (size_t i = 0; i < t->n; i++) /* the best of the terms */
			if (fill_ratio(t->v[i].text, strlen(t->v[i].text)) > ratio)
				ratio = RANK_FILL_RATIO_FAST;
		if (p >= 0 && ((size_t)s->ndict[f] * 2 < n || fill_pays(s->ndict[f], n, ratio)))
			s->memo_fields |= 1u << f;
	}
	s->tlen = xcalloc(t->n + 1, sizeof *s->tlen);
	s->several = xcalloc(t->n + 1, sizeof *s->several);
	for (size_t i = 0; i < t->n; i++) {
		const char *x = t->v[i].text;
		size_t len = strlen(x), pos = 0, st, wl, nw = 0;
		while (nw < 2 && coll_word_next(x, len, &pos, &st, &wl))
			nw++;
		s->tlen[i] = len;
		s->several[i] = nw > 1;
		for (int f = 0; f < COLL_RANK_NFIELDS; f++)
			if (s->prop[f] >= 0 && (t->v[i].fields & 1u << f))
				s->fields |= 1u << f;
	}
	s->memo = xcalloc(t->n * COLL_RANK_NFIELDS + 1, sizeof *s->memo);
	s->best = xcalloc((size_t)t->ngroups + 1, sizeof *s->best);
	boost_cols_get(idx, &s->boost);
	scorer_kept_memos(s, cache);
}

static void scorer_free(struct scorer *s)
{
	for (size_t i = 0; i < s->t->n * COLL_RANK_NFIELDS && !s->memo_kept; i++)
		free(s->memo[i]);
	free(s->memo);
	free(s->best);
	free(s->tlen);
	free(s->several);
}

static enum coll_rank_class class_of(struct scorer *s, size_t ti, int f, uint32_t vid)
{
	if (vid >= s->ndict[f])
		return COLL_RANK_NONE;
	uint8_t **mp = &s->memo[ti * COLL_RANK_NFIELDS + (size_t)f];
	if (!*mp && (s->memo_fields & 1u << f))
		*mp = xcalloc(s->ndict[f] + 1, 1);
	uint8_t *m = *mp;
	if (m && m[vid]) /* known: the value's text is not touched */
		return (enum coll_rank_class)(m[vid] - 1);
	const char *v = s->fbase[f] + s->foffs[f][vid];
	size_t vlen = s->foffs[f][vid + 1] - s->foffs[f][vid] - 1;
	enum coll_rank_class c = classify_words(v, vlen, s->t->v[ti].text, s->tlen[ti],
						s->several[ti]);
	if (m)
		m[vid] = (uint8_t)(1 + c);
	return c;
}

/* Classify the values [lo, hi) of field f for term ti in one pass over
 * their folded span: a value can match only where the term's text occurs
 * in it, so the others are NONE without being looked at. Single-word terms
 * only (several words also match across other separators, classify_words).
 * Touches m[lo..hi) alone: ranges may be filled at once on other threads. */
static void memo_fill_range(const struct scorer *s, size_t ti, int f, uint8_t *m, uint32_t lo,
			    uint32_t hi)
{
	const char *term = s->t->v[ti].text, *base = s->fbase[f];
	const uint32_t *offs = s->foffs[f];
	size_t tlen = s->tlen[ti];
	if (coll_rank_fill_fast_term(term, tlen)) { /* the common case, in a vector pass */
		coll_rank_fill_span(base, offs, lo, hi, term, tlen, m);
		return;
	}
	const char *p = base + offs[lo], *end = base + offs[hi];
	uint32_t v = lo;
	while (tlen && p < end) {
		const char *h = coll_span_find(p, (size_t)(end - p), term, tlen);
		if (!h)
			break;
		v = coll_span_vid_at(offs, hi, v, (size_t)(h - base));
		if (!m[v])
			m[v] = (uint8_t)(1 + classify_from(base + offs[v], base + offs[v + 1] - 1, term,
							    tlen, h));
		p = base + offs[v + 1]; /* the value is classified: on to the next */
	}
	for (uint32_t i = lo; i < hi; i++) /* no branch: most are NONE */
		m[i] = (uint8_t)(m[i] + (m[i] == 0) * (1 + COLL_RANK_NONE));
}

/* ---- filling on two cores ---- */

/* A new word's keystroke waits on its fills (titles: 745k values at 1M
 * tracks), so they are cut in pieces, up to RANK_PIECES a fill of at
 * least RANK_PIECE_MIN values (the last pieces even out the threads), and
 * a second thread shares the pieces when there are RANK_CREW_MIN values
 * or more to fill (below, starting it costs more than it saves). */
#define RANK_PIECES 8
#define RANK_PIECE_MIN 4096u
#define RANK_CREW_MIN (1u << 14)

struct fill_piece {
	size_t ti;
	int f;
	uint8_t *m;
	const uint64_t *letters; /* the field's one-letter table, or NULL: the vector pass */
	uint32_t lo, hi;
};

struct fill_crew {
	const struct scorer *s;
	struct fill_piece *v;
	size_t n, cap;
	size_t values; /* in all pieces */
};

static void crew_add(struct fill_crew *c, size_t ti, int f, uint8_t *m, const uint64_t *letters)
{
	uint32_t nd = c->s->ndict[f], np = nd / RANK_PIECE_MIN;
	np = np < 1 ? 1 : np > RANK_PIECES ? RANK_PIECES : np;
	if (c->n + np > c->cap) {
		c->cap = 2 * (c->n + np);
		c->v = xreallocarray(c->v, c->cap, sizeof *c->v);
	}
	for (uint32_t i = 0; i < np; i++)
		c->v[c->n++] = (struct fill_piece){ti, f, m, letters,
						   (uint32_t)((uint64_t)nd * i / np),
						   (uint32_t)((uint64_t)nd * (i + 1) / np)};
	c->values += nd;
}

/* Whether memo m is queued already: two terms with the same text share one
 * memo from the cache, and filling it twice would be the same bytes
 * written by both threads at once (and the work twice). */
static bool crew_has(const struct fill_crew *c, const uint8_t *m)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].m == m)
			return true;
	return false;
}

static void fill_one_piece(void *ctx, size_t i)
{
	const struct fill_crew *c = ctx;
	const struct fill_piece *p = &c->v[i];
	const struct scorer *s = c->s;
	if (p->letters)
		coll_letters_fill(p->letters, s->fbase[p->f], s->foffs[p->f], p->lo, p->hi,
				  s->t->v[p->ti].text[0], p->m);
	else
		memo_fill_range(s, p->ti, p->f, p->m, p->lo, p->hi);
}

/* Should the memo of (ti, f) be filled whole before scoring? */
static bool fill_wanted(const struct scorer *s, size_t ti, int f, const uint8_t *m)
{
	return m && !memo_complete(m, s->ndict[f]) && !s->several[ti] &&
	       fill_pays(s->ndict[f], s->n, fill_ratio(s->t->v[ti].text, s->tlen[ti]));
}

static const char *const class_names[] = {"no match", "inside a word", "word prefix",
					  "whole word", "whole field"};

static uint64_t score_item(struct scorer *s, uint32_t id, struct strbuf *why)
{
	const struct coll_rank_terms *t = s->t;
	memset(s->best, 0, (size_t)t->ngroups * sizeof *s->best);
	for (int f = 0; f < COLL_RANK_NFIELDS; f++) {
		if (!(s->fields & 1u << f))
			continue;
		const uint32_t *vids;
		size_t nv = mlib_index_str_values(s->idx, s->prop[f], id, &vids);
		for (size_t ti = 0; ti < t->n && nv; ti++) {
			const struct coll_rank_term *term = &t->v[ti];
			if (!(term->fields & 1u << f))
				continue;
			for (size_t k = 0; k < nv; k++) {
				enum coll_rank_class c = class_of(s, ti, f, vids[k]);
				int pts = coll_rank_points((enum coll_rank_field)f, c, term->typo);
				if (why && c != COLL_RANK_NONE) {
					const char *v = mlib_index_dict_text(s->idx, s->prop[f], vids[k]);
					char *cv = utf8_sanitize(v, strlen(v));
					char *ct = utf8_sanitize(term->text, strlen(term->text));
					strbuf_addf(why, "  '%s'%s in %s '%s': %s, %d points\n", ct,
						    term->typo ? " (a correction)" : "", field_props[f], cv,
						    class_names[c], pts);
					free(cv);
					free(ct);
				}
				if (pts > s->best[term->group])
					s->best[term->group] = pts;
			}
		}
	}
	uint64_t matched = 0, points = 0;
	for (int g = 0; g < t->ngroups; g++) {
		matched += s->best[g] > 0;
		points += (uint64_t)s->best[g];
	}
	int boost = boost_of(&s->boost, id, s->now);
	if (why) {
		strbuf_addf(why, "  words matched: %llu of %d; match points: %llu; popularity: %d.%d",
			    (unsigned long long)matched, t->ngroups, (unsigned long long)points,
			    boost / 10, boost % 10);
		static const char *const names[] = {"rating", "timesplayed", "lastplayed",
						    "timesskipped"};
		const struct mlib_int_column *cols[] = {&s->boost.rating, &s->boost.played,
							&s->boost.last, &s->boost.skipped};
		const char *sep = " (";
		for (int i = 0; i < 4; i++) {
			int64_t v = mlib_int_column_get(cols[i], id);
			if (v == MLIB_INT_MISSING)
				continue;
			if (i == 2)
				strbuf_addf(why, "%slastplayed %lld days ago", sep,
					    (long long)((s->now - v) / 86400));
			else
				strbuf_addf(why, "%s%s %lld", sep, names[i], (long long)v);
			sep = ", ";
		}
		strbuf_adds(why, *sep == ',' ? ")\n" : "\n");
	}
	/* matched (16 bits), points (32), boost (7 bits, < 128) */
	return matched << 40 | (points > 0xFFFFFFFFu ? 0xFFFFFFFFu : points) << 8 | (uint64_t)boost;
}

uint64_t coll_rank_score(const struct mlib_index *idx, const struct coll_rank_terms *t,
			 int64_t now, uint32_t id, struct strbuf *why)
{
	struct scorer s;
	scorer_init(&s, idx, t, now, 1, NULL);
	uint64_t r = score_item(&s, id, why);
	scorer_free(&s);
	return r;
}

/* ---- sorting ---- */

/* The sort below needs the same order as score_item's keys, with less work
 * per item: the columns are read directly, each (term, field) has its
 * points per class in a table, and items are scored in id order so the
 * columns are read front to back instead of at random (library order is
 * not id order). The key is packed densely: (matched * (P + 1) + points)
 * * 100 + boost, P the most points a result can have, which orders like
 * matched << 40 | points << 8 | boost. */

/* Stable LSD radix sort of ids (and aux, when not NULL) by descending
 * key, 16 bits a pass, passes whose digit is the same for every key
 * skipped. */
static void radix_sort_desc(uint64_t *key, uint32_t *ids, uint32_t *aux, size_t n)
{
	uint64_t *k2 = xmalloc(n * sizeof *k2);
	uint32_t *i2 = xmalloc(n * sizeof *i2);
	uint32_t *a2 = aux ? xmalloc(n * sizeof *a2) : NULL;
	size_t *count = xmalloc(65537 * sizeof *count);
	for (size_t i = 0; i < n; i++)
		key[i] = ~key[i]; /* descending */
	for (int shift = 0; shift < 64; shift += 16) {
		memset(count, 0, 65537 * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[((key[i] >> shift) & 0xFFFF) + 1]++;
		bool one_bucket = false;
		for (size_t d = 1; d <= 65536; d++)
			if (count[d] == n)
				one_bucket = true;
		if (one_bucket)
			continue;
		for (size_t d = 1; d <= 65536; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++) {
			size_t at = count[(key[i] >> shift) & 0xFFFF]++;
			k2[at] = key[i];
			i2[at] = ids[i];
			if (a2)
				a2[at] = aux[i];
		}
		memcpy(key, k2, n * sizeof *key);
		memcpy(ids, i2, n * sizeof *ids);
		if (a2)
			memcpy(aux, a2, n * sizeof *aux);
	}
	free(k2);
	free(i2);
	free(a2);
	free(count);
}

struct fast_term {
	uint32_t ti;    /* index in t->v */
	uint32_t group;
	int pts[5];     /* per class */
	const uint8_t *memo; /* the scorer's, or NULL: classes known, read inline */
};

struct fast_field {
	int f;
	struct mlib_str_column col;
	struct fast_term *terms;
	size_t nterms;
};

struct fast {
	struct scorer *s;
	struct fast_field fields[COLL_RANK_NFIELDS];
	int nfields;
	int *best; /* per group */
	uint64_t span; /* P + 1 */
	unsigned known_fields; /* fields whose every term has a complete memo */
};

/* Field f's one-letter table (coll/rank_letters.h), built now (on both
 * cores) unless the cache keeps it; NULL without a cache. */
static const uint64_t *letters_for(const struct scorer *s, int f)
{
	if (!s->cache)
		return NULL;
	struct coll_cache_key k = dict_key(s->idx, s->prop[f], s->ndict[f]);
	const uint64_t *kept = coll_cache_derived_find(s->cache, COLL_CACHE_LETTERS, &k);
	if (kept)
		return kept;
	size_t done = 0; /* what the idle preparation made of it already */
	uint64_t *t = coll_cache_job_take(s->cache, COLL_JOB_LETTERS, &k, &done);
	if (!t)
		t = xmalloc(((size_t)s->ndict[f] + 1) * sizeof *t);
	coll_letters_build_span(s->fbase[f], s->foffs[f], (uint32_t)done, s->ndict[f], t);
	return coll_cache_derived_adopt(s->cache, COLL_CACHE_LETTERS, &k, t);
}

/* Fill, on both cores, every memo that fill_wanted (allocating the
 * memos of the fields whose classes are remembered). */
static void fill_memos(struct scorer *s)
{
	struct fill_crew crew = {.s = s};
	for (size_t ti = 0; ti < s->t->n; ti++)
		for (int f = 0; f < COLL_RANK_NFIELDS; f++) {
			if (!(s->fields & 1u << f) || !(s->t->v[ti].fields & 1u << f))
				continue;
			uint8_t **mp = &s->memo[ti * COLL_RANK_NFIELDS + (size_t)f];
			if (!*mp && (s->memo_fields & 1u << f))
				*mp = xcalloc(s->ndict[f] + 1, 1);
			if (!fill_wanted(s, ti, f, *mp) || crew_has(&crew, *mp))
				continue;
			/* A one-letter term: the field's table, built once for
			 * every letter in about the time of one letter's pass. */
			const char *text = s->t->v[ti].text;
			const uint64_t *letters =
				coll_letters_term(text, s->tlen[ti]) ? letters_for(s, f) : NULL;
			crew_add(&crew, ti, f, *mp, letters);
		}
	/* both cores when there is enough to share (base/crew.h) */
	crew_run(crew.n, crew.values >= RANK_CREW_MIN, fill_one_piece, &crew);
	for (size_t i = 0; i < crew.n; i++) /* every piece of it is filled */
		crew.v[i].m[s->ndict[crew.v[i].f]] = 1;
	free(crew.v);
}

static void fast_init(struct fast *fs, struct scorer *s)
{
	fill_memos(s);
	memset(fs, 0, sizeof *fs);
	fs->s = s;
	const struct coll_rank_terms *t = s->t;
	for (int f = 0; f < COLL_RANK_NFIELDS; f++) {
		if (!(s->fields & 1u << f))
			continue;
		struct fast_field *ff = &fs->fields[fs->nfields++];
		ff->f = f;
		mlib_index_str_column(s->idx, s->prop[f], &ff->col);
		ff->terms = xcalloc(t->n + 1, sizeof *ff->terms);
		bool known = true;
		for (size_t ti = 0; ti < t->n; ti++) {
			if (!(t->v[ti].fields & 1u << f))
				continue;
			struct fast_term *ft = &ff->terms[ff->nterms++];
			ft->ti = (uint32_t)ti;
			ft->group = (uint32_t)t->v[ti].group;
			ft->memo = s->memo[ti * COLL_RANK_NFIELDS + (size_t)f];
			if (!memo_complete(ft->memo, s->ndict[f]))
				known = false;
			for (int c = 0; c < 5; c++)
				ft->pts[c] = coll_rank_points((enum coll_rank_field)f,
							      (enum coll_rank_class)c, t->v[ti].typo);
		}
		if (known)
			fs->known_fields |= 1u << f;
	}
	fs->best = xcalloc((size_t)t->ngroups + 1, sizeof *fs->best);
	fs->span = (uint64_t)t->ngroups * (uint64_t)coll_rank_points(COLL_RANK_ARTIST,
								     COLL_RANK_FIELD, false) + 1;
}

static void fast_free(struct fast *fs)
{
	for (int i = 0; i < fs->nfields; i++)
		free(fs->fields[i].terms);
	free(fs->best);
}

static uint64_t fast_score(struct fast *fs, uint32_t id)
{
	struct scorer *s = fs->s;
	int ngroups = s->t->ngroups;
	int *best = fs->best;
	memset(best, 0, (size_t)ngroups * sizeof *best);
	for (int i = 0; i < fs->nfields; i++) {
		const struct fast_field *ff = &fs->fields[i];
		const uint32_t *vids;
		size_t nv = mlib_str_column_get(&ff->col, id, &vids);
		for (size_t k = 0; k < nv; k++) {
			uint32_t vid = vids[k];
			bool known = vid < s->ndict[ff->f];
			for (size_t j = 0; j < ff->nterms; j++) {
				const struct fast_term *ft = &ff->terms[j];
				uint8_t m = known && ft->memo ? ft->memo[vid] : 0;
				int pts = ft->pts[m ? (int)m - 1 : (int)class_of(s, ft->ti, ff->f, vid)];
				if (pts > best[ft->group])
					best[ft->group] = pts;
			}
		}
	}
	uint64_t matched = 0, points = 0;
	for (int g = 0; g < ngroups; g++) {
		matched += best[g] > 0;
		points += (uint64_t)best[g];
	}
	return (matched * fs->span + points) * 100 + (uint64_t)boost_of(&s->boost, id, s->now);
}

/* Stable LSD radix sort of v[0..n) by bits [lo, hi) of each value, 11 bits
 * a pass (the counts stay in the first-level cache); tmp holds n values.
 * Passes whose digit is the same everywhere are skipped. */
static void radix_u64(uint64_t *v, uint64_t *tmp, size_t n, int lo, int hi)
{
	size_t count[2049];
	for (int shift = lo; shift < hi; shift += 11) {
		int bits = hi - shift < 11 ? hi - shift : 11;
		uint64_t mask = ((uint64_t)1 << bits) - 1;
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[((v[i] >> shift) & mask) + 1]++;
		bool one_bucket = false;
		for (size_t d = 1; d <= mask + 1 && !one_bucket; d++)
			one_bucket = count[d] == n;
		if (one_bucket)
			continue;
		for (size_t d = 1; d <= mask + 1; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			tmp[count[(v[i] >> shift) & mask]++] = v[i];
		memcpy(v, tmp, n * sizeof *v);
	}
}

static int bits_for(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* Values whose classes are not remembered (titles: nearly all distinct)
 * are read per item, and their texts are scattered even in id order: ask
 * for the offset, then the text, this many items ahead. */
#define RANK_AHEAD 8

static void fast_prefetch(const struct fast *fs, uint32_t id, bool text)
{
	const struct scorer *s = fs->s;
	for (int i = 0; i < fs->nfields; i++) {
		const struct fast_field *ff = &fs->fields[i];
		const uint32_t *vids;
		if ((fs->known_fields & 1u << ff->f) || !mlib_str_column_get(&ff->col, id, &vids) ||
		    vids[0] >= s->ndict[ff->f])
			continue;
		if (text)
			__builtin_prefetch(s->fbase[ff->f] + s->foffs[ff->f][vids[0]]);
		else
			__builtin_prefetch(&s->foffs[ff->f][vids[0]]);
	}
}

/* ---- scoring when every class is known ---- */

/* With every memo complete (fill_memos, or kept from earlier keystrokes),
 * an item's points are table reads. They are read a field at a time over
 * all items, taking maxima without branches: a branch on a class
 * mispredicts at random and stalls the memo reads of the items after it,
 * while independent reads of many items overlap. */

/* The points of term ft for value id sc of a column (or a MULTI group). */
static unsigned known_points(const struct fast_field *ff, const struct fast_term *ft,
			     const uint16_t *pts, uint32_t sc, uint32_t ndict)
{
	if (sc == MLIB_STR_MISSING)
		return 0;
	if (!(sc & MLIB_STR_MULTI))
		return sc < ndict ? pts[ft->memo[sc]] : 0;
	const uint32_t *g = ff->col.multi + (sc & ~MLIB_STR_MULTI);
	unsigned best = 0;
	for (uint32_t k = 0; k < g[0]; k++) {
		unsigned p = g[1 + k] < ndict ? pts[ft->memo[g[1 + k]]] : 0;
		best = p > best ? p : best;
	}
	return best;
}

/* The items to key when every class is known: n items, item i is id[i]
 * (any order). A field's codes are read from its column by id or, with
 * lib (ranking a set in library order), from lib->code[field][lp[i]]:
 * the same code, in order instead of at random. key[pos ? pos[i] : i]
 * receives item i's key. */
struct key_items {
	const uint32_t *id;
	const uint32_t *lp;
	const uint32_t *pos;
	size_t n;
};

struct library_codes {
	const uint32_t *code[COLL_RANK_NFIELDS];
	const uint8_t *boost; /* by library rank, or NULL: boost_of by id */
};

/* best[i * ngroups + group] = the most points of any term of the group in
 * field ff, for the items it. */
static void known_field(const struct fast *fs, const struct fast_field *ff,
			const struct key_items *it, const struct library_codes *lib,
			uint16_t *best)
{
	size_t ng = (size_t)fs->s->t->ngroups, n = it->n;
	uint32_t ndict = fs->s->ndict[ff->f];
	const uint32_t *lcode = lib ? lib->code[ff->f] : NULL;
	for (size_t j = 0; j < ff->nterms; j++) {
		const struct fast_term *ft = &ff->terms[j];
		uint16_t pts[6] = {0}; /* by memo byte: class + 1 */
		for (int c = 0; c < 5; c++)
			pts[c + 1] = (uint16_t)ft->pts[c];
		uint16_t *b = best + ft->group;
		for (size_t i = 0; i < n; i++, b += ng) {
			uint32_t sc = lcode ? lcode[it->lp[i]]
					    : mlib_str_column_code(&ff->col, it->id[i]);
			unsigned p = sc < ndict ? pts[ft->memo[sc]] : known_points(ff, ft, pts, sc, ndict);
			*b = (uint16_t)(p > *b ? p : *b);
		}
	}
}

static bool all_known(const struct fast *fs)
{
	for (int i = 0; i < fs->nfields; i++)
		if (!(fs->known_fields & 1u << fs->fields[i].f))
			return false;
	return true;
}

/* Items keyed a block at a time: every field's points for a block, then
 * its keys. The block's best (KEY_BLOCK * ngroups points) stays in the
 * first-level cache instead of a pass over all items for each term. */
#define KEY_BLOCK 1024

/* What keying saw, for the sort after it: the largest key and, when
 * present is not NULL, present[c] = 1 for each class c (key / 100) that
 * occurs (ncls entries: every class fits). */
struct key_marks {
	uint64_t top;
	uint8_t *present;
};

/* The keys of the items it, every class known, with best (KEY_BLOCK *
 * ngroups entries) to work in, marked in mk. Reads only what fast_init
 * prepared (and lib), so disjoint parts can be keyed on two threads at
 * once (keys_shared). */
static void known_keys(const struct fast *fs, const struct key_items *it,
		       const struct library_codes *lib, uint16_t *best, uint64_t *key,
		       struct key_marks *mk)
{
	const struct scorer *s = fs->s;
	size_t ng = (size_t)s->t->ngroups;
	const uint8_t *boost = lib ? lib->boost : NULL;
	uint64_t top = mk->top; /* kept here: parts' marks share cache lines */
	uint8_t *present = mk->present;
	for (size_t lo = 0; lo < it->n; lo += KEY_BLOCK) {
		size_t n = it->n - lo < KEY_BLOCK ? it->n - lo : KEY_BLOCK;
		struct key_items b = {it->id + lo, it->lp ? it->lp + lo : NULL,
				      it->pos ? it->pos + lo : NULL, n};
		memset(best, 0, n * ng * sizeof *best);
		for (int i = 0; i < fs->nfields; i++)
			known_field(fs, &fs->fields[i], &b, lib, best);
		for (size_t i = 0; i < n; i++) {
			uint64_t matched = 0, points = 0;
			for (size_t g = 0; g < ng; g++) {
				matched += best[i * ng + g] > 0;
				points += best[i * ng + g];
			}
			int bst = boost ? boost[b.lp[i]] : boost_of(&s->boost, b.id[i], s->now);
			uint64_t cls = matched * fs->span + points;
			uint64_t k = cls * 100 + (uint64_t)bst;
			key[b.pos ? b.pos[i] : lo + i] = k;
			top = k > top ? k : top;
			if (present)
				present[cls] = 1;
		}
	}
	mk->top = top;
}

/* Classes a key of fs can have: matched (at most ngroups) * span + points
 * (at most span - 1). */
static uint64_t key_classes(const struct fast *fs)
{
	return ((uint64_t)fs->s->t->ngroups + 1) * fs->span;
}

/* Keying a large result (a fresh one-letter term: 600k items at 1M
 * tracks) is split in this many parts shared by two threads; below
 * RANK_SHARE_MIN items starting a thread costs more than it saves. */
#define RANK_SHARE_PARTS 8
#define RANK_SHARE_MIN (1u << 16)

struct key_share {
	const struct fast *fs;
	const uint64_t *w;          /* (id << 32 | position) by id, or NULL: */
	const uint32_t *ids, *lp;   /* the items in library order, lib given */
	const struct library_codes *lib;
	size_t n;
	uint64_t *key;
	/* Work space, allocated here for every part: the helper thread
	 * would take fresh pages from an arena of its own each time. */
	uint16_t *best;             /* KEY_BLOCK * ngroups a part */
	uint32_t *id, *pos;         /* n each, with w */
	struct key_marks part[RANK_SHARE_PARTS]; /* each part's, merged after */
};

static void key_one_part(void *ctx, size_t part)
{
	struct key_share *k = ctx;
	size_t lo = k->n * part / RANK_SHARE_PARTS, hi = k->n * (part + 1) / RANK_SHARE_PARTS;
	uint16_t *best = k->best + part * KEY_BLOCK * (size_t)k->fs->s->t->ngroups;
	struct key_marks *mk = &k->part[part];
	if (!k->w) {
		struct key_items it = {k->ids + lo, k->lp + lo, NULL, hi - lo};
		known_keys(k->fs, &it, k->lib, best, k->key + lo, mk);
		return;
	}
	for (size_t i = lo; i < hi; i++) {
		k->id[i] = (uint32_t)(k->w[i] >> 32);
		k->pos[i] = (uint32_t)k->w[i];
	}
	struct key_items it = {k->id + lo, NULL, k->pos + lo, hi - lo};
	known_keys(k->fs, &it, NULL, best, k->key, mk);
}

/* Classes few enough to be marked while keying (each part a table of
 * its own, merged after): the sort then needs no pass over the keys to
 * find them. */
#define RANK_MARKED_CLASSES_MAX (1u << 16)

/* Key on both cores; *mk receives the marks of all parts (mk->present: a
 * new table of key_classes entries, or NULL when there are too many). */
static void keys_shared(struct key_share *k, struct key_marks *mk)
{
	k->best = xmalloc((RANK_SHARE_PARTS * KEY_BLOCK * (size_t)k->fs->s->t->ngroups + 1) *
			  sizeof *k->best);
	if (k->w) {
		k->id = xmalloc((k->n + 1) * sizeof *k->id);
		k->pos = xmalloc((k->n + 1) * sizeof *k->pos);
	}
	/* each part's table of classes, or none when there are too many */
	uint64_t classes = key_classes(k->fs);
	size_t ncls = classes <= RANK_MARKED_CLASSES_MAX ? (size_t)classes : 0;
	uint8_t *tables = ncls ? xcalloc(RANK_SHARE_PARTS, ncls) : NULL;
	for (size_t p = 0; p < RANK_SHARE_PARTS; p++)
		k->part[p] = (struct key_marks){0, tables ? tables + p * ncls : NULL};
	crew_run(RANK_SHARE_PARTS, k->n >= RANK_SHARE_MIN, key_one_part, k);
	*mk = (struct key_marks){0, tables}; /* part 0's table holds the merge */
	for (size_t p = 0; p < RANK_SHARE_PARTS; p++) {
		mk->top = k->part[p].top > mk->top ? k->part[p].top : mk->top;
		for (size_t c = 0; p && c < ncls; c++)
			tables[c] |= k->part[p].present[c];
	}
	free(k->best);
	free(k->id);
	free(k->pos);
}

/* The library-order codes of every field scored, from the cache, and the
 * boosts when it keeps them for this moment. */
static void library_codes_get(const struct fast *fs, struct coll_eval_cache *cache,
			      struct library_codes *lib)
{
	const struct scorer *s = fs->s;
	lib->boost = coll_cache_library_boost(cache, s->idx, s->now);
	for (int i = 0; i < fs->nfields; i++) {
		int f = fs->fields[i].f;
		struct coll_cache_key k = dict_key(s->idx, s->prop[f], s->ndict[f]);
		lib->code[f] = coll_cache_library_codes(cache, &k);
	}
}

/* Entries a preparation step makes, by kind: at a million tracks on two
 * cores a library-order column takes 5-16 ms whole, the title letters
 * (650,000 values) 23-30 ms, the boosts 8 ms; these slices take 1-3 ms
 * each (a column's first, 5-10 ms after start-up: it faults the column
 * in), so a key pressed meanwhile waits no longer than that. */
#define PREPARE_SLICE_CODES (1u << 17)
#define PREPARE_SLICE_LETTERS (1u << 16)
#define PREPARE_SLICE_BOOSTS (1u << 17)

/* The next array to make for idx, as a job not yet started (no array):
 * each string field's library-order codes, then its letters, then the
 * boosts at now. False when every one is kept. */
static bool prepare_next(struct coll_eval_cache *c, const struct mlib_index *idx, int64_t now,
			 struct coll_cache_job *j)
{
	for (int f = 0; f < COLL_RANK_NFIELDS; f++) {
		int p = mlib_index_prop(idx, field_props[f]);
		if (p < 0 || mlib_index_prop_kind(idx, p) != MLIB_PROP_STRING)
			continue;
		const char *base;
		const uint32_t *offs;
		uint32_t ndict;
		mlib_index_dict_fold_span(idx, p, &base, &offs, &ndict);
		struct coll_cache_key k = dict_key(idx, p, ndict);
		if (!coll_cache_derived_find(c, COLL_CACHE_LIBRARY_CODES, &k)) {
			*j = (struct coll_cache_job){.kind = COLL_JOB_CODES, .key = k,
						     .total = mlib_index_library_order(idx)->n};
			return true;
		}
		if (!coll_cache_derived_find(c, COLL_CACHE_LETTERS, &k)) {
			*j = (struct coll_cache_job){.kind = COLL_JOB_LETTERS, .key = k,
						     .total = ndict};
			return true;
		}
	}
	if (coll_cache_library_boost(c, idx, now))
		return false;
	*j = (struct coll_cache_job){.kind = COLL_JOB_BOOSTS, .key = dict_key(idx, -1, 0),
				     .edits = mlib_index_edits(idx), .from = now,
				     .until = coll_rank_boost_steady_until(idx, now),
				     .total = mlib_index_library_order(idx)->n};
	return true;
}

/* Whether job j still makes what idx needs at now: the same index (and
 * dictionary), no edit since it began (boosts), the moment still theirs. */
static bool job_holds(const struct coll_cache_job *j, const struct mlib_index *idx, int64_t now)
{
	if (j->key.idx != idx || j->key.count != mlib_index_count(idx) ||
	    j->key.bound != mlib_index_id_bound(idx))
		return false;
	if (j->kind == COLL_JOB_BOOSTS)
		return j->edits == mlib_index_edits(idx) && now >= j->from && now < j->until;
	/* its field found by name: another index at the same address may
	 * number its properties otherwise */
	for (int f = 0; f < COLL_RANK_NFIELDS; f++) {
		int p = mlib_index_prop(idx, field_props[f]);
		if (p != j->key.prop || mlib_index_prop_kind(idx, p) != MLIB_PROP_STRING)
			continue;
		const char *base;
		const uint32_t *offs;
		uint32_t ndict;
		mlib_index_dict_fold_span(idx, p, &base, &offs, &ndict);
		return ndict == j->key.ndict;
	}
	return false;
}

/* Make the job's next slice of at most `slice` entries. */
static void job_slice(struct coll_cache_job *j, const struct mlib_index *idx, size_t slice)
{
	size_t lo = j->done, hi = j->total - lo < slice ? j->total : lo + slice;
	switch (j->kind) {
	case COLL_JOB_CODES:
		coll_cache_library_codes_fill(&j->key, j->data, lo, hi);
		break;
	case COLL_JOB_LETTERS: {
		const char *base;
		const uint32_t *offs;
		uint32_t ndict;
		mlib_index_dict_fold_span(idx, j->key.prop, &base, &offs, &ndict);
		coll_letters_build_span(base, offs, (uint32_t)lo, (uint32_t)hi, j->data);
		break;
	}
	case COLL_JOB_BOOSTS: {
		const struct u32vec *order = mlib_index_library_order(idx);
		struct boost_cols cols;
		boost_cols_get(idx, &cols);
		uint8_t *v = j->data;
		for (size_t r = lo; r < hi; r++)
			v[r] = (uint8_t)boost_of(&cols, order->v[r], j->from);
		break;
	}
	case COLL_JOB_NONE:
		break;
	}
	j->done = hi;
}

/* Bytes an entry of the job's array takes (codes, letter words, boosts). */
static size_t job_entry_size(enum coll_cache_job_kind kind)
{
	if (kind == COLL_JOB_CODES)
		return sizeof(uint32_t);
	return kind == COLL_JOB_LETTERS ? sizeof(uint64_t) : 1;
}

bool coll_eval_cache_prepare_step(struct coll_eval_cache *c, const struct mlib_index *idx)
{
	/* Below this the ranking never reads them (fast_keys). */
	if (!c || !idx || mlib_index_count(idx) < RANK_ID_ORDER_MIN)
		return false;
	int64_t now = (int64_t)time(NULL);
	struct coll_cache_job *j = coll_cache_job(c);
	if (j->kind != COLL_JOB_NONE && !job_holds(j, idx, now))
		coll_cache_job_drop(j); /* a new index, an edit or the clock: start again */
	if (j->kind == COLL_JOB_NONE) {
		if (!prepare_next(c, idx, now, j))
			return false;
		j->data = xmalloc((j->total + 1) * job_entry_size(j->kind));
	}
	size_t slice = coll_cache_prepare_slice(c);
	if (!slice)
		slice = j->kind == COLL_JOB_CODES	? PREPARE_SLICE_CODES
			: j->kind == COLL_JOB_LETTERS ? PREPARE_SLICE_LETTERS
						      : PREPARE_SLICE_BOOSTS;
	job_slice(j, idx, slice);
	if (j->done < j->total)
		return true;
	/* whole: kept where lookups find it */
	void *data = j->data;
	j->data = NULL;
	if (j->kind == COLL_JOB_BOOSTS)
		coll_cache_library_boost_adopt(c, idx, j->from, j->until, data);
	else
		coll_cache_derived_adopt(c, j->kind == COLL_JOB_CODES ? COLL_CACHE_LIBRARY_CODES
								 : COLL_CACHE_LETTERS,
					 &j->key, data);
	coll_cache_job_drop(j);
	struct coll_cache_job next;
	return prepare_next(c, idx, now, &next);
}

/* key[i] = the packed key of ids[i]. lp (NULL: unknown) holds each one's
 * library rank, ascending when the items are a set in library order.
 * True when *mk holds the keys' marks (keyed on both cores), false when
 * the sort must find them. */
static bool fast_keys(struct fast *fs, const uint32_t *ids, const uint32_t *lp, size_t n,
		      struct coll_eval_cache *cache, uint64_t *key, struct key_marks *mk)
{
	if (n < RANK_ID_ORDER_MIN) {
		for (size_t i = 0; i < n; i++)
			key[i] = fast_score(fs, ids[i]);
		return false;
	}
	if (lp && cache && all_known(fs)) { /* codes in library order: read in order */
		struct library_codes lib = {{0}, NULL};
		library_codes_get(fs, cache, &lib);
		struct key_share k = {.fs = fs, .ids = ids, .lp = lp, .lib = &lib, .n = n, .key = key};
		keys_shared(&k, mk);
		return true;
	}
	/* (id << 32 | position), sorted by id */
	uint64_t *w = xmalloc(n * sizeof *w), *tmp = xmalloc(n * sizeof *tmp);
	uint32_t maxid = 0;
	for (size_t i = 0; i < n; i++) {
		w[i] = (uint64_t)ids[i] << 32 | i;
		if (ids[i] > maxid)
			maxid = ids[i];
	}
	radix_u64(w, tmp, n, 32, 32 + bits_for(maxid));
	bool marked = all_known(fs);
	if (marked) {
		struct key_share k = {.fs = fs, .w = w, .n = n, .key = key};
		keys_shared(&k, mk);
	} else {
		for (size_t i = 0; i < n; i++) {
			if (i + 2 * RANK_AHEAD < n)
				fast_prefetch(fs, (uint32_t)(w[i + 2 * RANK_AHEAD] >> 32), false);
			if (i + RANK_AHEAD < n)
				fast_prefetch(fs, (uint32_t)(w[i + RANK_AHEAD] >> 32), true);
			key[(uint32_t)w[i]] = fast_score(fs, (uint32_t)(w[i] >> 32));
		}
	}
	free(w);
	free(tmp);
	return marked;
}

/* Keys are (classes) * 100 + boost, and the classes of a few words take
 * few values: number the classes that occur densely and the keys fit a
 * counting sort of at most this many buckets, one stable pass. */
#define RANK_BUCKETS_MAX (1u << 16)
#define RANK_CLASSES_MAX (1u << 20)

/* A counting sort of many items is shared by both cores: each part
 * counts its own items' buckets, then places them after every earlier
 * part's items of the same bucket (so equal keys keep their order), then
 * copies its share back. Several parts a core, so that a helper the
 * scheduler holds up keeps little of the work. Below COUNT_SHARE_MIN
 * items a thread costs more than it saves, and one part does it all. */
#define COUNT_SHARE_PARTS 8
#define COUNT_SHARE_MIN (1u << 16)

struct count_share {
	const uint64_t *key;
	const uint32_t *dense; /* class -> bucket group (dense numbering, best 0) */
	uint32_t *ids, *aux;   /* reordered; aux may be NULL */
	uint32_t *out, *aout;  /* n each: the new order, copied back */
	uint32_t *bucket;      /* n: each item's bucket */
	uint32_t *at[COUNT_SHARE_PARTS]; /* nbuckets each: counts, then next slots */
	size_t nparts;         /* COUNT_SHARE_PARTS, or 1 */
	size_t n, nbuckets;
	int phase;             /* 0: count, 1: place, 2: copy back */
};

static void count_part_range(const struct count_share *c, size_t part, size_t *lo, size_t *hi)
{
	*lo = c->n * part / c->nparts;
	*hi = c->n * (part + 1) / c->nparts;
}

static void count_one_part(void *ctx, size_t part)
{
	struct count_share *c = ctx;
	size_t lo, hi;
	count_part_range(c, part, &lo, &hi);
	uint32_t *at = c->at[part];
	if (c->phase == 0) {
		for (size_t i = lo; i < hi; i++) {
			uint64_t k = c->key[i];
			uint32_t b = c->dense[k / 100] * 100 + (uint32_t)(99 - k % 100);
			c->bucket[i] = b;
			at[b]++;
		}
	} else if (c->phase == 1) {
		for (size_t i = lo; i < hi; i++) {
			uint32_t to = at[c->bucket[i]]++;
			c->out[to] = c->ids[i];
			if (c->aux)
				c->aout[to] = c->aux[i];
		}
	} else {
		memcpy(c->ids + lo, c->out + lo, (hi - lo) * sizeof *c->ids);
		if (c->aux)
			memcpy(c->aux + lo, c->aout + lo, (hi - lo) * sizeof *c->aux);
	}
}

/* Reorder ids[0..n) (and aux, when not NULL) by descending key[i], equal
 * keys in their order (top: the largest key; present, when not NULL: the
 * classes that occur, from keying, at least top / 100 + 1 entries). False,
 * with nothing done, when the keys take too many values. */
static bool count_sort_desc(const uint64_t *key, uint32_t *ids, uint32_t *aux, size_t n,
			    uint64_t top, const uint8_t *present)
{
	uint64_t ncls = top / 100 + 1;
	if (ncls > RANK_CLASSES_MAX || n > UINT32_MAX)
		return false;
	uint32_t *dense = xcalloc(ncls, sizeof *dense);
	if (present)
		for (uint64_t c = 0; c < ncls; c++)
			dense[c] = present[c];
	else
		for (size_t i = 0; i < n; i++)
			dense[key[i] / 100] = 1;
	uint32_t nb = 0; /* classes in use, the best numbered 0 */
	for (uint64_t c = ncls; c-- > 0;)
		if (dense[c])
			dense[c] = nb++;
	if ((uint64_t)nb * 100 > RANK_BUCKETS_MAX) {
		free(dense);
		return false;
	}
	struct count_share c = {.key = key, .dense = dense, .ids = ids, .aux = aux, .n = n,
				.nbuckets = (size_t)nb * 100};
	c.bucket = xmalloc((n + 1) * sizeof *c.bucket);
	c.out = xmalloc((n + 1) * sizeof *c.out);
	c.aout = aux ? xmalloc((n + 1) * sizeof *c.aout) : NULL;
	bool share = n >= COUNT_SHARE_MIN;
	c.nparts = share ? COUNT_SHARE_PARTS : 1;
	for (size_t p = 0; p < c.nparts; p++)
		c.at[p] = xcalloc(c.nbuckets + 1, sizeof *c.at[p]);
	crew_run(c.nparts, share, count_one_part, &c);
	/* each part's first slot in each bucket: after the buckets before it
	 * and after the earlier parts' items of the same bucket */
	uint32_t next = 0;
	for (size_t b = 0; b < c.nbuckets; b++)
		for (size_t p = 0; p < c.nparts; p++) {
			uint32_t count = c.at[p][b];
			c.at[p][b] = next;
			next += count;
		}
	c.phase = 1;
	crew_run(c.nparts, share, count_one_part, &c);
	c.phase = 2;
	crew_run(c.nparts, share, count_one_part, &c);
	for (size_t p = 0; p < c.nparts; p++)
		free(c.at[p]);
	free(c.aout);
	free(c.out);
	free(c.bucket);
	free(dense);
	return true;
}

void coll_rank_sort(const struct mlib_index *idx, const struct coll_rank_terms *t, int64_t now,
		    struct coll_eval_cache *cache, uint32_t *ids, uint32_t *lp, size_t n)
{
	if (n < 2 || t->n == 0)
		return;
	struct scorer s;
	scorer_init(&s, idx, t, now, n, cache);
	struct fast fs;
	fast_init(&fs, &s);
	uint64_t *key = xmalloc(n * sizeof *key);
	struct key_marks mk = {0, NULL};
	if (!fast_keys(&fs, ids, lp, n, cache, key, &mk))
		for (size_t i = 0; i < n; i++)
			mk.top = key[i] > mk.top ? key[i] : mk.top;
	uint64_t top = mk.top;
	fast_free(&fs);
	scorer_free(&s);
	bool sorted = count_sort_desc(key, ids, lp, n, top, mk.present);
	free(mk.present);
	if (sorted) {
		/* sorted */
	} else if (n <= UINT32_MAX && bits_for(top) <= 32) {
		/* (top - key) << 32 | position: ascending is best first, ties in
		 * their order */
		uint64_t *tmp = xmalloc(n * sizeof *tmp);
		for (size_t i = 0; i < n; i++)
			key[i] = (top - key[i]) << 32 | i;
		radix_u64(key, tmp, n, 32, 32 + bits_for(top));
		uint32_t *out = (uint32_t *)tmp; /* n ids fit in n u64 */
		for (size_t i = 0; i < n; i++)
			out[i] = ids[(uint32_t)key[i]];
		memcpy(ids, out, n * sizeof *ids);
		if (lp) {
			for (size_t i = 0; i < n; i++)
				out[i] = lp[(uint32_t)key[i]];
			memcpy(lp, out, n * sizeof *lp);
		}
		free(tmp);
	} else {
		radix_sort_desc(key, ids, lp, n);
	}
	free(key);
}
