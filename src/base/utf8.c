#include "base/utf8.h"

#include <string.h>

#include "base/err.h"
#include "base/str.h"
#include "base/unicode_tables.h"

size_t utf8_decode(const char *str, size_t len, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	if (len == 0) {
		*cp = 0;
		return 0;
	}
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t need;
	uint32_t v, min;
	if (c >= 0xC2 && c <= 0xDF) {
		need = 2; v = c & 0x1F; min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 3; v = c & 0x0F; min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 4; v = c & 0x07; min = 0x10000;
	} else {
		*cp = UTF8_REPLACEMENT;
		return 1;
	}
	if (len < need) {
		*cp = UTF8_REPLACEMENT;
		return 1;
	}
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*cp = UTF8_REPLACEMENT;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
		*cp = UTF8_REPLACEMENT;
		return 1;
	}
	*cp = v;
	return need;
}

size_t utf8_encode(uint32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;
	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = UTF8_REPLACEMENT;
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

bool utf8_valid(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		size_t n = utf8_decode(s + i, len - i, &cp);
		if (cp == UTF8_REPLACEMENT && n == 1)
			return false;
		i += n;
	}
	return true;
}

char *utf8_from_latin1(const char *s, size_t len, size_t *out_len)
{
	char *out = xmalloc(len * 2 + 1), *o = out;
	for (size_t i = 0; i < len; i++)
		o += utf8_encode((unsigned char)s[i], o);
	*o = '\0';
	if (out_len)
		*out_len = (size_t)(o - out);
	return out;
}

size_t utf8_count(const char *s, size_t len)
{
	size_t i = 0, n = 0;
	while (i < len) {
		uint32_t cp;
		i += utf8_decode(s + i, len - i, &cp);
		n++;
	}
	return n;
}

static const struct unicode_fold_entry *fold_lookup(uint32_t cp)
{
	size_t lo = 0, hi = unicode_fold_count;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (unicode_fold_table[mid].cp < cp)
			lo = mid + 1;
		else if (unicode_fold_table[mid].cp > cp)
			hi = mid;
		else
			return &unicode_fold_table[mid];
	}
	return NULL;
}

bool utf8_fold_is_identity(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			if (c >= 'A' && c <= 'Z')
				return false;
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		if ((cp == UTF8_REPLACEMENT && n == 1) || fold_lookup(cp))
			return false;
		i += n;
	}
	return true;
}

char *utf8_fold(const char *s, size_t len, size_t *out_len)
{
	struct strbuf b;
	strbuf_init(&b, len + 1);
	size_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			strbuf_addc(&b, (char)(c >= 'A' && c <= 'Z' ? c + 32 : c));
			i++;
			continue;
		}
		uint32_t cp;
		i += utf8_decode(s + i, len - i, &cp);
		const struct unicode_fold_entry *e = fold_lookup(cp);
		if (e) {
			strbuf_add(&b, unicode_fold_blob + e->off, e->len);
		} else {
			char enc[4];
			strbuf_add(&b, enc, utf8_encode(cp, enc));
		}
	}
	if (out_len)
		*out_len = b.len;
	return strbuf_steal(&b);
}

static bool in_ranges(const struct unicode_range *r, unsigned n, uint32_t cp)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r[mid].last < cp)
			lo = mid + 1;
		else if (r[mid].first > cp)
			hi = mid;
		else
			return true;
	}
	return false;
}

bool utf8_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0x2028 || cp == 0x2029;
}

int utf8_cp_width(uint32_t cp)
{
	if (cp < 0x7F)
		return cp >= 0x20;
	if (utf8_is_control(cp))
		return 0;
	if (in_ranges(unicode_zero_ranges, unicode_zero_count, cp))
		return 0;
	if (in_ranges(unicode_wide_ranges, unicode_wide_count, cp))
		return 2;
	return 1;
}

size_t utf8_width(const char *s, size_t len)
{
	size_t i = 0, w = 0;
	while (i < len) {
		uint32_t cp;
		i += utf8_decode(s + i, len - i, &cp);
		w += (size_t)utf8_cp_width(cp);
	}
	return w;
}

size_t utf8_prefix_fitting(const char *s, size_t len, size_t max_cols, size_t *cols)
{
	size_t i = 0, w = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		size_t cw = (size_t)utf8_cp_width(cp);
		if (w + cw > max_cols)
			break;
		w += cw;
		i += n;
	}
	if (cols)
		*cols = w;
	return i;
}

/* Bidi overrides and isolates can reorder what follows on some terminals. */
static bool is_bidi_control(uint32_t cp)
{
	return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

static char *sanitize(const char *s, size_t len, bool keep_tabs)
{
	struct strbuf b;
	strbuf_init(&b, len + 1);
	size_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7F) {
			strbuf_addc(&b, (char)c);
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		if (cp == '\t' && keep_tabs) {
			strbuf_addc(&b, '\t');
		} else if (cp == '\t' || cp == '\n' || cp == '\r') {
			strbuf_addc(&b, ' ');
		} else if (utf8_is_control(cp) || is_bidi_control(cp)) {
			strbuf_add(&b, "\xEF\xBF\xBD", 3);
		} else if (cp == UTF8_REPLACEMENT && n == 1) {
			strbuf_add(&b, "\xEF\xBF\xBD", 3);
		} else {
			strbuf_add(&b, s + i, n);
		}
		i += n;
	}
	return strbuf_steal(&b);
}

char *utf8_sanitize(const char *s, size_t len)
{
	return sanitize(s, len, false);
}

char *utf8_sanitize_keep_tabs(const char *s, size_t len)
{
	return sanitize(s, len, true);
}
