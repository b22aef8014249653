/* What a word is, for word search (token filters) and for ranking: runs of
 * letters and digits, except that a CJK character (Han, Hiragana, Katakana,
 * Hangul) is a word by itself, so "東京ソナタ" is five words and `ソナタ`
 * (three words in a row) finds it. Works on folded or unfolded UTF-8. */
#ifndef CRATE_COLL_WORDS_H
#define CRATE_COLL_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum coll_word_kind {
	COLL_WORD_NONE,  /* separates words */
	COLL_WORD_PART,  /* part of a run of letters and digits */
	COLL_WORD_ALONE, /* a word by itself (CJK) */
};

bool coll_word_is_cjk(uint32_t cp);
enum coll_word_kind coll_word_kind_of(uint32_t cp);
/* The code point at s[i] (i < len): its byte length, and its kind in *kind. */
size_t coll_word_char(const char *s, size_t len, size_t i, enum coll_word_kind *kind);
/* The next word in s[*pos..len): true with its bytes [*start, *start+*wlen),
 * *pos moved past it; false when there is none. */
bool coll_word_next(const char *s, size_t len, size_t *pos, size_t *start, size_t *wlen);
/* Is byte p of the text [start, end) between two words or at an edge
 * (p == start or p == end)? p must be on a code point boundary. */
bool coll_word_boundary(const char *start, const char *end, const char *p);
/* Does the text start a word with a CJK character / end with one? */
bool coll_word_cjk_edge(const char *s, size_t len);

#endif
