/* One-letter classes from a table (rank_letters.h).
 *
 * A letter's class in a value follows from each occurrence's neighbours,
 * as in coll/rank_fill.c: a letter or digit before it makes the match
 * "inside a word", a separator (or the value's start) "the start of a
 * word"; a separator on both sides (a word of one letter), or a non-ASCII
 * neighbour, leaves it to coll_rank_classify on the whole value. Per value
 * and letter that is one of four codes, the best occurrence's:
 *   0 absent, 1 inside a word, 2 the start of a word, 3 classify the value.
 * Code bit 1 of letter b is bit b of the word's low half, code bit 0 bit b
 * of its high half. */
#include "coll/rank_letters.h"

#include <pthread.h>

#include "base/crew.h"
#include "coll/rank.h"

/* A neighbour by byte: 0 separator (or the NUL ending the value), 1 ASCII
 * letter or digit, 2 part of a non-ASCII character. */
static uint8_t neighbour[256];
/* The letter's bit in a half, 0 for other bytes. */
static uint32_t letter_bit[256];
/* code_of[before][after]: the code of an occurrence between neighbours. */
static const uint8_t code_of[3][3] = {
	{3, 2, 3}, /* separator before: a one-letter word, a word's start, non-ASCII after */
	{1, 1, 3}, /* letter or digit before: inside a word */
	{3, 3, 3}, /* non-ASCII before */
};

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void tables_fill(void)
{
	for (unsigned c = 0; c < 256; c++) {
		bool word = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		neighbour[c] = c >= 0x80 ? 2 : word ? 1 : 0;
		letter_bit[c] = c >= 'a' && c <= 'z' ? 1u << (c - 'a') : 0;
	}
}

bool coll_letters_term(const char *term, size_t tlen)
{
	return tlen == 1 && term[0] >= 'a' && term[0] <= 'z';
}

void coll_letters_build(const char *base, const uint32_t *offs, uint32_t lo, uint32_t hi,
			uint64_t *t)
{
	pthread_once(&tables_once, tables_fill);
	for (uint32_t v = lo; v < hi; v++) {
		const unsigned char *p = (const unsigned char *)base + offs[v];
		const unsigned char *end = (const unsigned char *)base + offs[v + 1] - 1; /* its NUL */
		uint32_t by_code[4] = {0}; /* the letters with an occurrence of each code */
		unsigned before = 0;
		for (; p < end; p++) {
			unsigned now = neighbour[*p];
			by_code[code_of[before][neighbour[p[1]]]] |= letter_bit[*p];
			before = now;
		}
		uint32_t low = by_code[3] | by_code[2];                /* code 2 or 3 */
		uint32_t high = by_code[3] | (by_code[1] & ~by_code[2]); /* code 1 or 3 */
		t[v] = (uint64_t)low | (uint64_t)high << 32;
	}
}

void coll_letters_fill(const uint64_t *t, const char *base, const uint32_t *offs, uint32_t lo,
		       uint32_t hi, char letter, uint8_t *m)
{
	unsigned b = (unsigned)(letter - 'a');
	for (uint32_t v = lo; v < hi; v++) {
		if (m[v])
			continue;
		unsigned code = (unsigned)(t[v] >> b & 1) << 1 | (unsigned)(t[v] >> (32 + b) & 1);
		if (code == 3)
			m[v] = (uint8_t)(1 + coll_rank_classify(base + offs[v], offs[v + 1] - offs[v] - 1,
								&letter, 1));
		else /* absent, inside a word, a word's start: NONE, SUBSTRING, PREFIX */
			m[v] = (uint8_t)(1 + code);
	}
}

/* The table of a large dictionary is built in this many pieces shared by
 * two threads; below LETTERS_SHARE_MIN values one thread does it all. */
#define LETTERS_PARTS 8
#define LETTERS_SHARE_MIN (1u << 14)

struct letters_build {
	const char *base;
	const uint32_t *offs;
	uint32_t lo, n; /* the values [lo, lo + n) */
	uint64_t *t;
};

static void build_part(void *ctx, size_t part)
{
	const struct letters_build *b = ctx;
	uint32_t lo = b->lo + (uint32_t)((uint64_t)b->n * part / LETTERS_PARTS);
	uint32_t hi = b->lo + (uint32_t)((uint64_t)b->n * (part + 1) / LETTERS_PARTS);
	coll_letters_build(b->base, b->offs, lo, hi, b->t);
}

void coll_letters_build_span(const char *base, const uint32_t *offs, uint32_t lo, uint32_t hi,
			     uint64_t *t)
{
	if (lo >= hi)
		return;
	pthread_once(&tables_once, tables_fill); /* before two threads need it */
	struct letters_build b = {base, offs, lo, hi - lo, t};
	crew_run(LETTERS_PARTS, b.n >= LETTERS_SHARE_MIN, build_part, &b);
}

void coll_letters_build_all(const char *base, const uint32_t *offs, uint32_t ndict, uint64_t *t)
{
	coll_letters_build_span(base, offs, 0, ndict, t);
}

void coll_letters_contains(const uint64_t *t, uint32_t ndict, char letter, uint64_t *bits)
{
	unsigned b = (unsigned)(letter - 'a');
	/* any code but 0 (absent) has a bit in one half or the other */
	uint64_t mask = (uint64_t)1 << b | (uint64_t)1 << (32 + b);
	for (uint32_t base = 0; base < ndict; base += 64) {
		uint32_t lim = ndict - base < 64 ? ndict - base : 64;
		uint64_t word = 0;
		for (uint32_t i = 0; i < lim; i++)
			word |= (uint64_t)((t[base + i] & mask) != 0) << i;
		bits[base >> 6] = word;
	}
}
