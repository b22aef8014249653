/* Character classes and names shared by the query parser and printer
 * (spec/query-syntax.md, "Precise rules for values and names"). Internal to
 * src/coll: the parser and the printer must agree on every rule here, or
 * printed queries would not parse back. */
#ifndef CRATE_COLL_LEX_H
#define CRATE_COLL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum coll_kw {
	COLL_KW_NONE,
	COLL_KW_AND,
	COLL_KW_OR,
	COLL_KW_NOT,
	COLL_KW_ORDER,
	COLL_KW_BY,
	COLL_KW_LIMIT,
	COLL_KW_OFFSET,
};

/* Letters of any script. There is no Unicode category table in base/, so
 * outside ASCII this is an approximation: every code point that is not a
 * control, a space, a combining mark, a common punctuation/symbol block or
 * U+FFFD (an invalid byte) counts as a letter. */
bool coll_lex_is_letter(uint32_t cp);
bool coll_lex_is_alnum(uint32_t cp);
/* Space, tab, newline, CR, VT, FF: what separates terms. */
bool coll_lex_is_space(char c);

/* Field name syntax: a letter, then letters, digits, '_', '-', '.'.
 * Returns the byte length of the longest name at s[0..len) (0 = none). */
size_t coll_lex_field_len(const char *s, size_t len);
/* The property an alias stands for ("a" -> "artist"), or NULL. Aliases are
 * case-sensitive: "A" is albumartist. */
const char *coll_lex_alias(const char *name, size_t len);
/* `artist=queen`, `Year==1967`: where the '=' is in s[0..len) when what
 * comes before it is, in any ASCII case, the full name of a property that
 * has an alias (a name every library has), else 0. The parser refuses
 * such a word (cmus's and MPD's equality, meant as field:value), so the
 * printer quotes it. */
size_t coll_lex_field_equals(const char *s, size_t len);
/* Field name as stored: alias expanded, ASCII letters lower-cased (tag names
 * are lower-cased in the library; "Ä" stays "Ä"). Owned by the caller. */
char *coll_lex_field_dup(const char *name, size_t len);
/* How to write a stored field name so that it parses back to itself: the
 * name itself, or for a one-letter name that is an alias ("t") its upper
 * case ("T", which is not an alias and lower-cases to "t"); NULL when there
 * is no way (invalid syntax, upper-case ASCII, "a" since "A" is an alias).
 * The result is field or buf (at least 8 bytes). "in" is returned as is:
 * callers printing `in:` must refuse it themselves. */
const char *coll_lex_field_spelling(const char *field, char *buf, size_t bufsize);

/* The keyword spelled exactly by s[0..len), or COLL_KW_NONE. */
enum coll_kw coll_lex_keyword(const char *s, size_t len);
const char *coll_lex_keyword_name(enum coll_kw kw);

/* A bare word made only of digits, '-' and ',' with at least one digit:
 * positions in a list context, so the printer quotes such words. */
bool coll_lex_is_number_seq(const char *s, size_t len);

#endif
