/* Searching a dictionary's folded span: every folded value of a string
 * property, NUL-terminated and back to back, value v at offs[v] (see
 * mlib_index_dict_fold_span). One pass over the span replaces a search per
 * value; filters (coll/eval_filter.c) and ranking (coll/rank.c) use it. */
#ifndef CRATE_COLL_SPAN_H
#define CRATE_COLL_SPAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Both are called per hit of a scan: inline, as they were when private
 * to the filters. */

/* memmem, faster for the short needles searches use: test the needle's
 * first and last byte at 16 positions at once, verify the rest. */
static inline const char *coll_span_find(const char *h, size_t n, const char *nd, size_t m)
{
#ifdef __SSE2__
	if (m >= 2 && n >= m + 15) {
		const __m128i first = _mm_set1_epi8(nd[0]), last = _mm_set1_epi8(nd[m - 1]);
		size_t i = 0;
		for (; i + m - 1 + 16 <= n; i += 16) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(h + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(h + i + m - 1));
			unsigned mask = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
			while (mask) {
				unsigned bit = (unsigned)__builtin_ctz(mask);
				if (memcmp(h + i + bit + 1, nd + 1, m - 2) == 0)
					return h + i + bit;
				mask &= mask - 1;
			}
		}
		return i < n ? memmem(h + i, n - i, nd, m) : NULL;
	}
#endif
	return memmem(h, n, nd, m);
}

/* The value whose text contains byte offset off of the span (n values),
 * searching from value `from` on: hits come in increasing order and are
 * often close, so gallop forward before bisecting. */
static inline uint32_t coll_span_vid_at(const uint32_t *offs, uint32_t n, uint32_t from,
					size_t off)
{
	uint32_t lo = from, step = 1;
	while (lo + step < n && offs[lo + step] <= off) {
		lo += step;
		step *= 2;
	}
	uint32_t hi = lo + step < n ? lo + step : n; /* largest v in [lo, hi) with offs[v] <= off */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (offs[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

#endif
