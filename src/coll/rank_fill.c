/* One term's classes over a dictionary in one vector pass (rank_fill.h).
 *
 * Candidates are positions holding the term's first and last bytes, 32
 * (AVX2) or 16 (SSE2) positions at a time; the rest of the term is checked
 * per candidate. The term is ASCII letters and digits, so a match starts
 * on a code point and its class depends on the bytes either side alone
 * while those are ASCII: a letter or digit before makes it "inside a
 * word", anything else "the start of a word"; nothing word-like on both
 * sides makes it a whole word or the whole field, which (like a non-ASCII
 * neighbour) coll_rank_classify decides for the value as a whole. The
 * value of a position is counted from the NULs ending the values before
 * it in the same loads (checked against the offsets; they decide when a
 * value held a NUL of its own). */
#include "coll/rank_fill.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "coll/rank.h"

static inline bool word_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* What a neighbour of a match says, by byte: 0 an ASCII separator (or the
 * NUL ending a value), 1 an ASCII letter or digit, 2 part of a non-ASCII
 * character (the value decides as a whole). */
#define R2(x) x, x
#define R4(x) R2(x), R2(x)
#define R8(x) R4(x), R4(x)
#define R16(x) R8(x), R8(x)
#define R64(x) R16(x), R16(x), R16(x), R16(x)
static const uint8_t neighbour[256] = {
	R16(0), R16(0), R16(0),           /* 0x00 - 0x2f */
	R8(1), R2(1), R4(0), R2(0),       /* '0' - '9', then :;<=>? */
	0, R16(1), R8(1), R2(1), R4(0), 0, /* @, 'A' - 'Z', [\]^_ */
	0, R16(1), R8(1), R2(1), R4(0), 0, /* `, 'a' - 'z', {|}~ DEL */
	R64(2), R64(2),                   /* 0x80 - 0xff */
};
#undef R2
#undef R4
#undef R8
#undef R16
#undef R64

bool coll_rank_fill_fast_term(const char *term, size_t tlen)
{
	if (tlen == 0)
		return false;
	for (size_t i = 0; i < tlen; i++)
		if (!word_byte((unsigned char)term[i]))
			return false;
	return true;
}

struct pass {
	const char *base;
	const uint32_t *offs;
	const char *term;
	size_t tlen;
	uint8_t *m;
	uint32_t v;     /* the value of the last match (matches only increase) */
	uint32_t hi;    /* the values are [.., hi) */
	uint32_t guess; /* the value where the vector passes stopped, by their count */
};

/* The term's first and last bytes are at byte h, probably of value v:
 * when the term matches there, note its class in its value. True when
 * the value's class is final (decided as a whole): its other matches need
 * no look. Inline, without a branch on the class: it runs per match. */
static inline __attribute__((always_inline)) bool take(struct pass *p, size_t h, uint32_t v)
{
	const char *base = p->base;
	const uint32_t *offs = p->offs;
	for (size_t k = 1; k + 1 < p->tlen; k++)
		if (base[h + k] != p->term[k])
			return false;
	if (v < p->v || v >= p->hi || offs[v] > h || offs[v + 1] <= h) /* not v: walk on from the last */
		for (v = p->v; offs[v + 1] <= h;)
			v++;
	p->v = v;
	/* the byte before (none at the value's start) and after (the NUL at
	 * its end) */
	unsigned before = h > offs[v] ? neighbour[(unsigned char)base[h - 1]] : 0;
	unsigned after = neighbour[(unsigned char)base[h + p->tlen]];
	if (((before | after) & 2) || (before | after) == 0) {
		p->m[v] = (uint8_t)(1 + coll_rank_classify(base + offs[v], offs[v + 1] - offs[v] - 1,
							   p->term, p->tlen));
		return true;
	}
	/* a letter or digit before: inside a word; else the start of one */
	uint8_t c = (uint8_t)(1 + COLL_RANK_PREFIX - before);
	p->m[v] = c > p->m[v] ? c : p->m[v];
	return false;
}

/* Take the candidates of mask (bit b: position i + b, width bits; nul:
 * the NULs there, *v the value at i); returns where the scan goes on,
 * with *v its value. */
static inline size_t take_mask(struct pass *p, size_t i, uint32_t mask, uint32_t nul,
			       size_t width, uint32_t *v)
{
	while (mask) {
		unsigned b = (unsigned)__builtin_ctz(mask);
		mask &= mask - 1;
		if (!take(p, i + b, *v + (uint32_t)__builtin_popcount(nul & ((1u << b) - 1))))
			continue;
		size_t e = p->offs[p->v + 1]; /* the value is done: skip its other candidates */
		if (e >= i + width) {
			*v = p->v + 1;
			return e;
		}
		mask &= ~0u << (e - i);
	}
	*v += (uint32_t)__builtin_popcount(nul);
	return i + width;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <pthread.h>
#define HAVE_AVX2_FILL 1

/* The vector loop finds the candidates of AVX2_ROUND bytes, writing their
 * offsets down without a branch per block, then takes them: a branch on
 * "this block has one" is taken at random (a common pair of letters is in
 * every third block), and its mispredictions were most of the pass. */
#define AVX2_ROUND 1024

/* bit_at[c]: the positions of the bits of byte c, a byte each. */
static uint64_t bit_at[256];
static pthread_once_t bit_at_once = PTHREAD_ONCE_INIT;

static void bit_at_fill(void)
{
	for (unsigned c = 0; c < 256; c++) {
		uint64_t x = 0;
		for (unsigned b = 0, k = 0; b < 8; b++)
			if (c >> b & 1)
				x |= (uint64_t)b << (8 * k++);
		bit_at[c] = x;
	}
}

/* Rounds of AVX2_ROUND positions while the loads stay inside [.., end). */
__attribute__((target("avx2"))) static size_t pass_avx2(struct pass *p, size_t i, size_t end)
{
	pthread_once(&bit_at_once, bit_at_fill);
	const __m256i first = _mm256_set1_epi8(p->term[0]);
	const __m256i last = _mm256_set1_epi8(p->term[p->tlen - 1]);
	/* a third byte for longer terms: fewer false candidates */
	const size_t mid = p->tlen > 2 ? 1 : 0;
	const __m256i second = _mm256_set1_epi8(p->term[mid]);
	const __m256i zero = _mm256_setzero_si256();
	const size_t tail = p->tlen - 1;
	uint16_t at[AVX2_ROUND + 8];              /* candidates' offsets in the round */
	/* per block: candidates, NULs, NULs before it in the round */
	uint32_t mask[AVX2_ROUND / 32], nul[AVX2_ROUND / 32], before[AVX2_ROUND / 32];
	uint32_t v = p->guess;
	while (i + tail + AVX2_ROUND <= end) {
		const char *r = p->base + i;
		uint32_t count = 0, has = 0; /* has: bit blk set when block blk has candidates */
		for (unsigned blk = 0; blk < AVX2_ROUND / 32; blk++) {
			const char *q = r + 32 * blk;
			__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)q);
			__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(q + tail));
			__m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(q + mid));
			__m256i hit = _mm256_and_si256(_mm256_cmpeq_epi8(a, first),
						       _mm256_cmpeq_epi8(b, last));
			hit = _mm256_and_si256(hit, _mm256_cmpeq_epi8(c, second));
			mask[blk] = (uint32_t)_mm256_movemask_epi8(hit);
			uint32_t z = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero));
			nul[blk] = z;
			before[blk] = count;
			count += (uint32_t)__builtin_popcount(z);
			has |= (uint32_t)(mask[blk] != 0) << blk;
		}
		size_t n = 0;
		while (has) { /* the offsets of the candidates, a byte of a mask at a time */
			unsigned blk = (unsigned)__builtin_ctz(has);
			has &= has - 1;
			for (unsigned k = 0; k < 4; k++) {
				unsigned byte = mask[blk] >> (8 * k) & 0xff;
				__m128i pos = _mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long)bit_at[byte]));
				pos = _mm_add_epi16(pos, _mm_set1_epi16((short)(32 * blk + 8 * k)));
				_mm_storeu_si128((__m128i *)(void *)(at + n), pos);
				n += (size_t)__builtin_popcount(byte);
			}
		}
		for (size_t k = 0; k < n; k++) {
			unsigned o = at[k], blk = o >> 5;
			take(p, i + o,
			     v + before[blk] + (uint32_t)__builtin_popcount(nul[blk] & ((1u << (o & 31)) - 1)));
		}
		v += count;
		i += AVX2_ROUND;
	}
	p->guess = v;
	return i;
}
#endif

void coll_rank_fill_span(const char *base, const uint32_t *offs, uint32_t lo, uint32_t hi,
			 const char *term, size_t tlen, uint8_t *m)
{
	if (lo >= hi)
		return;
	struct pass p = {base, offs, term, tlen, m, lo, hi, lo};
	size_t i = offs[lo], end = offs[hi];
#ifdef HAVE_AVX2_FILL
	if (__builtin_cpu_supports("avx2"))
		i = pass_avx2(&p, i, end);
#endif
#ifdef __SSE2__
	{
		const __m128i first = _mm_set1_epi8(term[0]), last = _mm_set1_epi8(term[tlen - 1]);
		const __m128i zero = _mm_setzero_si128();
		uint32_t v = p.guess;
		while (i + tlen - 1 + 16 <= end) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(base + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(base + i + tlen - 1));
			uint32_t mask = (uint32_t)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
			uint32_t nul = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, zero));
			if (mask) {
				i = take_mask(&p, i, mask, nul, 16, &v);
			} else {
				v += (uint32_t)__builtin_popcount(nul);
				i += 16;
			}
		}
	}
#endif
	/* the last positions (and builds without SSE2) one at a time */
	while (i + tlen <= end) {
		if (base[i] == term[0] && base[i + tlen - 1] == term[tlen - 1] && take(&p, i, p.v)) {
			i = offs[p.v + 1];
			continue;
		}
		i++;
	}
	for (uint32_t v = lo; v < hi; v++) /* no branch: most are NONE */
		m[v] = (uint8_t)(m[v] + (m[v] == 0) * (1 + COLL_RANK_NONE));
}
