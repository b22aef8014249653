/* UTF-8: decoding, folding for matching, display width, terminal sanitising.
 * Nothing here depends on the process locale. */
#ifndef CRATE_BASE_UTF8_H
#define CRATE_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UTF8_REPLACEMENT 0xFFFDu

/* Decode one code point from s[0..len). Returns the bytes consumed (1..4,
 * 0 only when len == 0). Invalid or truncated sequences, overlong forms and
 * surrogates yield U+FFFD and consume one byte. */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp);
/* Encode cp into out (at least 4 bytes); returns bytes written. */
size_t utf8_encode(uint32_t cp, char *out);
bool utf8_valid(const char *s, size_t len);
/* Latin-1 bytes as UTF-8 (owned; every byte is one code point): text
 * that is not UTF-8 is read as Latin-1. *out_len (may be NULL) gets its length. */
char *utf8_from_latin1(const char *s, size_t len, size_t *out_len);
/* Number of code points (invalid bytes count one each). */
size_t utf8_count(const char *s, size_t len);

/* Matching form: Unicode case folding + accent folding ("Björk" -> "bjork",
 * "Straße" -> "strasse"). Invalid bytes become U+FFFD. Returns an owned,
 * NUL-terminated string; *out_len (may be NULL) receives its length. */
char *utf8_fold(const char *s, size_t len, size_t *out_len);
/* True when folding would return the input unchanged (cheap ASCII check
 * first), so indexes can skip storing a twin. */
bool utf8_fold_is_identity(const char *s, size_t len);

/* Columns a code point takes on a terminal: 0 (combining, format), 1 or 2
 * (East Asian wide/fullwidth). Control characters report 0; sanitise first. */
int utf8_cp_width(uint32_t cp);
/* Columns of a (sanitised) string. */
size_t utf8_width(const char *s, size_t len);
/* Longest prefix of s that fits in max_cols columns without splitting a
 * code point; returns its byte length and stores its width in *cols. */
size_t utf8_prefix_fitting(const char *s, size_t len, size_t max_cols, size_t *cols);

/* Text from tags and file names is untrusted: returns an owned copy with
 * every C0/C1 control character, DEL, and invalid byte replaced by U+FFFD,
 * so nothing from a tag can drive the terminal. Tabs and newlines become a
 * space. */
char *utf8_sanitize(const char *s, size_t len);
/* The same, but a tab stays a tab: for the user's own format strings on a
 * command line (a tab moves the cursor, it drives nothing), which scripts
 * use for tab-separated columns. */
char *utf8_sanitize_keep_tabs(const char *s, size_t len);
bool utf8_is_control(uint32_t cp);

#endif
