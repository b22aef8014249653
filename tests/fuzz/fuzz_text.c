/* Fuzz target: text on its way to the terminal (ui/text.h, base/utf8.h),
 * with oracles for the promises the interface relies on.
 *
 * Tags and file names are untrusted. For any bytes s and any width:
 * ui_text_fit gives valid UTF-8 with no control character, at most cols
 * columns wide and as wide as it says; ui_text_fit_pad exactly cols;
 * ui_text_wrap cuts the sanitised text into rows, in order, each inside the
 * text and no wider than its row; utf8_prefix_fitting ends on a character
 * boundary within its columns; and folding (the search's case and accent
 * folding) agrees with utf8_fold_is_identity, which indexes use to skip it.
 *
 * Input: byte 0 the columns, byte 1 flags (bit 0: ASCII-only marks), the
 * rest the text (cut at a NUL, as C strings are).
 *
 * Built with -DCRATE_FUZZ_MAIN as a libFuzzer binary (tests/fuzz/fuzz.mk);
 * tests/unit/test_fuzz_regress.c includes this file to replay saved inputs. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "base/utf8.h"
#include "ui/text.h"

/* NULL when s is valid UTF-8 without a control character. */
static const char *fuzz_text_clean(const char *what, const char *s)
{
	size_t len = strlen(s);
	if (!utf8_valid(s, len))
		return fuzz_fail("%s is not UTF-8", what);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		if (!n)
			return fuzz_fail("%s: no character at byte %zu", what, i);
		if (utf8_is_control(cp))
			return fuzz_fail("%s holds control character U+%04X", what, (unsigned)cp);
		i += n;
	}
	return NULL;
}

static const char *fuzz_text_fitting(const char *s, size_t cols, int ascii)
{
	size_t w = 0;
	char *fit = ui_text_fit(s, cols, ascii, &w);
	const char *why = fuzz_text_clean("ui_text_fit's text", fit);
	if (!why && w > cols)
		why = fuzz_fail("ui_text_fit: %zu columns in %zu", w, cols);
	if (!why && utf8_width(fit, strlen(fit)) != w)
		why = fuzz_fail("ui_text_fit says %zu columns, the text has %zu", w,
				     utf8_width(fit, strlen(fit)));
	free(fit);
	if (why)
		return why;
	char *pad = ui_text_fit_pad(s, cols, ascii);
	if (utf8_width(pad, strlen(pad)) != cols)
		why = fuzz_fail("ui_text_fit_pad: %zu columns, not %zu",
				     utf8_width(pad, strlen(pad)), cols);
	free(pad);
	return why;
}

/* Whether s[0..len) is one character and its combining marks: a row
 * holds one such at least, however wide. */
static bool fuzz_text_one_wide(const char *s, size_t len)
{
	uint32_t cp;
	size_t n = utf8_decode(s, len, &cp);
	return n && utf8_width(s + n, len - n) == 0;
}

static const char *fuzz_text_wrapping(const char *clean, int width)
{
	size_t len = strlen(clean), n = ui_text_wrap(clean, width, NULL, 0);
	if (n < 1 || n > len + 1)
		return fuzz_fail("ui_text_wrap: %zu rows of %zu bytes", n, len);
	struct ui_text_row *rows = calloc(n, sizeof *rows);
	const char *why = NULL;
	if (ui_text_wrap(clean, width, rows, n) != n)
		why = "ui_text_wrap counts differently with rows to fill";
	size_t end = 0;
	for (size_t i = 0; i < n && !why; i++) {
		const struct ui_text_row *r = &rows[i];
		if (r->off < end || r->off + r->len > len || (i && !r->len))
			why = fuzz_fail("row %zu [%zu, +%zu) after byte %zu of %zu", i, r->off,
					     r->len, end, len);
		else if (r->indent < 0 || r->indent >= width)
			why = fuzz_fail("row %zu indented %d in %d columns", i, r->indent, width);
		else if (!utf8_valid(clean + r->off, r->len))
			why = fuzz_fail("row %zu cuts a character", i);
		else if (utf8_width(clean + r->off, r->len) > (size_t)(width - r->indent) &&
			 !fuzz_text_one_wide(clean + r->off, r->len))
			why = fuzz_fail("row %zu is %zu columns in %d", i,
					     utf8_width(clean + r->off, r->len), width - r->indent);
		end = r->off + r->len;
	}
	free(rows);
	return why;
}

static const char *fuzz_text_folding(const char *clean)
{
	size_t len = strlen(clean), flen = 0;
	char *f = utf8_fold(clean, len, &flen);
	const char *why = NULL;
	if (!utf8_valid(f, flen))
		why = "the folded text is not UTF-8";
	else if (utf8_fold_is_identity(clean, len) && (flen != len || memcmp(f, clean, len) != 0))
		why = "utf8_fold_is_identity, but folding changes the text";
	free(f);
	return why;
}

/* NULL when the oracles hold for this input, else what went wrong. */
static const char *fuzz_text_check(const uint8_t *data, size_t size)
{
	if (size < 2)
		return NULL;
	size_t cols = data[0];
	int ascii = data[1] & 1;
	char *s = malloc(size - 1);
	memcpy(s, data + 2, size - 2);
	s[size - 2] = '\0';
	const char *why = fuzz_text_fitting(s, cols, ascii);
	char *clean = utf8_sanitize(s, strlen(s));
	if (!why)
		why = fuzz_text_clean("utf8_sanitize's text", clean);
	if (!why) {
		size_t got = 0, keep = utf8_prefix_fitting(clean, strlen(clean), cols, &got);
		if (got > cols || !utf8_valid(clean, keep) ||
		    utf8_width(clean, keep) != got)
			why = fuzz_fail("utf8_prefix_fitting: %zu bytes, %zu columns of %zu", keep,
					     got, cols);
	}
	if (!why && cols >= 1)
		why = fuzz_text_wrapping(clean, (int)cols);
	if (!why)
		why = fuzz_text_folding(clean);
	free(clean);
	free(s);
	return why;
}

FUZZ_ENTRY("fuzz_text", fuzz_text_check)
