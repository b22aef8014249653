/* Ranking's match classes (coll/rank.h) of every single letter a-z in
 * every value of a dictionary, from one pass over its folded span: the
 * first key of a search is a one-letter term, and at a million tracks
 * each new letter cost a pass over 650,000 titles (coll/rank_fill.h) on
 * the keystroke. With the table, a letter's classes are a read of one
 * word per value. The table is the cache's (coll_cache_derived,
 * COLL_CACHE_LETTERS): the search bar builds it while idle
 * (coll_eval_cache_prepare_step), or the first one-letter term does.
 * Ranking fills a letter's memo from it, and a one-letter word filter
 * ("l", "l*") takes its matches from that memo. Private to coll/. */
#ifndef CRATE_COLL_RANK_LETTERS_H
#define CRATE_COLL_RANK_LETTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Does term[0..tlen) (folded) qualify: one byte, a-z? */
bool coll_letters_term(const char *term, size_t tlen);

/* Set t[v] for v in [lo, hi) of the span (base, offs): bit b of the low
 * half and bit b of the high half say how letter 'a' + b occurs in value v
 * (see rank_letters.c). Touches t[lo..hi) alone: ranges may be built at
 * once on other threads. */
void coll_letters_build(const char *base, const uint32_t *offs, uint32_t lo, uint32_t hi,
			uint64_t *t);

/* The whole table t of a span of ndict values, on both cores when it is
 * large enough to pay for the thread. */
void coll_letters_build_all(const char *base, const uint32_t *offs, uint32_t ndict, uint64_t *t);
/* The same for the values [lo, hi) alone (a slice a step while idle). */
void coll_letters_build_span(const char *base, const uint32_t *offs, uint32_t lo, uint32_t hi,
			     uint64_t *t);

/* What coll_rank_fill_span does for the one-letter term, from table t:
 * m[v] = 1 + class of letter in value v for every v in [lo, hi) whose m[v]
 * is 0; m[v] != 0 is left as it is. Touches m[lo..hi) alone. */
void coll_letters_fill(const uint64_t *t, const char *base, const uint32_t *offs, uint32_t lo,
		       uint32_t hi, char letter, uint8_t *m);

/* The values of table t (ndict of them) holding letter anywhere, as the
 * words of a bitset: bits[0 .. (ndict + 63) / 64) are written, bits past
 * ndict in the last one cleared. The matches of the filter "*letter*". */
void coll_letters_contains(const uint64_t *t, uint32_t ndict, char letter, uint64_t *bits);

#endif
