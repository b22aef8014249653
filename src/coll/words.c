#include "coll/words.h"

#include "base/utf8.h"

bool coll_word_is_cjk(uint32_t cp)
{
	return (cp >= 0x1100 && cp <= 0x11FF) ||   /* Hangul Jamo */
	       (cp >= 0x3040 && cp <= 0x30FF) ||   /* Hiragana, Katakana */
	       (cp >= 0x3130 && cp <= 0x318F) ||   /* Hangul compatibility Jamo */
	       (cp >= 0x31F0 && cp <= 0x31FF) ||   /* Katakana phonetic extensions */
	       (cp >= 0x3400 && cp <= 0x4DBF) ||   /* CJK extension A */
	       (cp >= 0x4E00 && cp <= 0x9FFF) ||   /* CJK unified ideographs */
	       (cp >= 0xAC00 && cp <= 0xD7AF) ||   /* Hangul syllables */
	       (cp >= 0xF900 && cp <= 0xFAFF) ||   /* CJK compatibility ideographs */
	       (cp >= 0xFF66 && cp <= 0xFF9F) ||   /* halfwidth Katakana */
	       (cp >= 0x20000 && cp <= 0x3134F);   /* CJK extensions B..G */
}

/* Letters and digits make words. Beyond ASCII everything counts as a
 * letter except the punctuation and symbol blocks listed here: simple,
 * locale-free, and right for the scripts tags are written in. */
enum coll_word_kind coll_word_kind_of(uint32_t cp)
{
	if (cp < 0x80)
		return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')
			       ? COLL_WORD_PART
			       : COLL_WORD_NONE;
	if (cp <= 0xBF || cp == 0xD7 || cp == 0xF7)
		return COLL_WORD_NONE; /* C1 controls, Latin-1 punctuation and signs, × ÷ */
	if ((cp >= 0x2000 && cp <= 0x2BFF) ||  /* punctuation, symbols, arrows, math, shapes */
	    (cp >= 0x2E00 && cp <= 0x2E7F) ||  /* supplemental punctuation */
	    (cp >= 0x3000 && cp <= 0x303F) ||  /* CJK punctuation */
	    (cp >= 0xFE10 && cp <= 0xFE6F) ||  /* vertical, compatibility and small forms */
	    (cp >= 0xFF00 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
	    (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65) ||
	    cp == UTF8_REPLACEMENT || (cp >= 0x1F000 && cp <= 0x1FAFF)) /* emoji */
		return COLL_WORD_NONE;
	return coll_word_is_cjk(cp) ? COLL_WORD_ALONE : COLL_WORD_PART;
}

size_t coll_word_char(const char *s, size_t len, size_t i, enum coll_word_kind *kind)
{
	unsigned char c = (unsigned char)s[i];
	if (c < 0x80) { /* the common case, without decoding */
		*kind = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
				? COLL_WORD_PART
				: COLL_WORD_NONE;
		return 1;
	}
	uint32_t cp;
	size_t n = utf8_decode(s + i, len - i, &cp);
	*kind = coll_word_kind_of(cp);
	return n;
}

bool coll_word_next(const char *s, size_t len, size_t *pos, size_t *start, size_t *wlen)
{
	size_t i = *pos;
	enum coll_word_kind k = COLL_WORD_NONE;
	while (i < len) {
		size_t n = coll_word_char(s, len, i, &k);
		if (k != COLL_WORD_NONE)
			break;
		i += n;
	}
	if (i >= len)
		return false;
	*start = i;
	if (k == COLL_WORD_ALONE) {
		i += coll_word_char(s, len, i, &k);
	} else {
		while (i < len) {
			size_t n = coll_word_char(s, len, i, &k);
			if (k != COLL_WORD_PART)
				break;
			i += n;
		}
	}
	*wlen = i - *start;
	*pos = i;
	return true;
}

bool coll_word_boundary(const char *start, const char *end, const char *p)
{
	if (p <= start || p >= end)
		return true;
	enum coll_word_kind after, before;
	coll_word_char(p, (size_t)(end - p), 0, &after);
	if (after != COLL_WORD_PART)
		return true;
	const char *q = p - 1;
	while (q > start && ((unsigned char)*q & 0xc0) == 0x80)
		q--;
	coll_word_char(q, (size_t)(p - q), 0, &before);
	return before != COLL_WORD_PART;
}

bool coll_word_cjk_edge(const char *s, size_t len)
{
	if (len == 0)
		return false;
	enum coll_word_kind k;
	coll_word_char(s, len, 0, &k);
	if (k == COLL_WORD_ALONE)
		return true;
	size_t i = len - 1;
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	coll_word_char(s, len, i, &k);
	return k == COLL_WORD_ALONE;
}
