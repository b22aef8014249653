#include "coll/lex.h"

#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/utf8.h"

bool coll_lex_is_letter(uint32_t cp)
{
	if (cp < 0x80)
		return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
	if (cp == UTF8_REPLACEMENT || utf8_is_control(cp))
		return false;
	if (cp <= 0xBF || cp == 0xD7 || cp == 0xF7)
		return false; /* Latin-1 spaces, punctuation, symbols */
	if (cp >= 0x300 && cp <= 0x36F)
		return false; /* combining marks */
	if ((cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) ||
	    (cp >= 0xFE10 && cp <= 0xFE6F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
	    (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
	    (cp >= 0xFF5B && cp <= 0xFF65) || (cp >= 0xFFF0 && cp <= 0xFFFF) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0xE000 && cp <= 0xF8FF))
		return false; /* punctuation, symbols, specials, private use */
	if (cp >= 0x1F000 && cp <= 0x1FAFF)
		return false; /* emoji and pictographs */
	return utf8_cp_width(cp) != 0;
}

bool coll_lex_is_alnum(uint32_t cp)
{
	if (cp >= '0' && cp <= '9')
		return true;
	if (cp >= 0xFF10 && cp <= 0xFF19)
		return true; /* fullwidth digits */
	return coll_lex_is_letter(cp);
}

bool coll_lex_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

size_t coll_lex_field_len(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				  (i > 0 && ((c >= '0' && c <= '9') || c == '_' || c == '-' ||
					     c == '.'));
			if (!ok)
				break;
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		if (!(coll_lex_is_letter(cp) || (i > 0 && coll_lex_is_alnum(cp))))
			break;
		i += n;
	}
	return i;
}

static const struct {
	char alias;
	const char *field;
} aliases[] = {
	{'a', "artist"}, {'l', "album"},       {'t', "title"},    {'n', "tracknr"},
	{'y', "year"},   {'g', "genre"},       {'u', "url"},      {'A', "albumartist"},
	{'c', "composer"}, {'d', "date"},      {'r', "rating"},
};

const char *coll_lex_alias(const char *name, size_t len)
{
	if (len != 1)
		return NULL;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (aliases[i].alias == name[0])
			return aliases[i].field;
	return NULL;
}

static bool is_aliased_field(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strlen(aliases[i].field) == len && strncasecmp(aliases[i].field, name, len) == 0)
			return true;
	return false;
}

size_t coll_lex_field_equals(const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len);
	size_t nlen = eq ? (size_t)(eq - s) : 0;
	if (!nlen || coll_lex_field_len(s, nlen) != nlen || !is_aliased_field(s, nlen))
		return 0;
	return nlen;
}

char *coll_lex_field_dup(const char *name, size_t len)
{
	const char *alias = coll_lex_alias(name, len);
	if (alias)
		return xstrdup(alias);
	char *f = xstrndup(name, len);
	for (char *c = f; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c + 32);
	return f;
}

const char *coll_lex_field_spelling(const char *field, char *buf, size_t bufsize)
{
	size_t len = strlen(field);
	if (len == 0 || coll_lex_field_len(field, len) != len)
		return NULL;
	for (const char *c = field; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			return NULL;
	if (!coll_lex_alias(field, len))
		return field;
	char up = (char)(field[0] - 32);
	if (coll_lex_alias(&up, 1) || bufsize < 2)
		return NULL;
	buf[0] = up;
	buf[1] = '\0';
	return buf;
}

static const char *const keywords[] = {
	[COLL_KW_AND] = "AND",     [COLL_KW_OR] = "OR",       [COLL_KW_NOT] = "NOT",
	[COLL_KW_ORDER] = "ORDER", [COLL_KW_BY] = "BY",       [COLL_KW_LIMIT] = "LIMIT",
	[COLL_KW_OFFSET] = "OFFSET",
};

enum coll_kw coll_lex_keyword(const char *s, size_t len)
{
	/* Cheap rejection first: this runs at every term. */
	if (len < 2 || len > 6 || !strchr("AOBLN", s[0]) || s[0] == '\0')
		return COLL_KW_NONE;
	for (int k = COLL_KW_AND; k <= COLL_KW_OFFSET; k++)
		if (strlen(keywords[k]) == len && memcmp(keywords[k], s, len) == 0)
			return (enum coll_kw)k;
	return COLL_KW_NONE;
}

const char *coll_lex_keyword_name(enum coll_kw kw)
{
	return kw > COLL_KW_NONE && kw <= COLL_KW_OFFSET ? keywords[kw] : "";
}

bool coll_lex_is_number_seq(const char *s, size_t len)
{
	bool digit = false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digit = true;
		else if (s[i] != '-' && s[i] != ',')
			return false;
	}
	return digit;
}
