#include "ui/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/str.h"
#include "base/utf8.h"
#include "medialib/item_format.h"

size_t ui_text_width(const char *s)
{
	return s ? utf8_width(s, strlen(s)) : 0;
}

char *ui_text_fit(const char *s, size_t cols, int ascii_only, size_t *width)
{
	if (!s)
		s = "";
	char *clean = utf8_sanitize(s, strlen(s));
	size_t len = strlen(clean);
	size_t w = utf8_width(clean, len);
	if (w <= cols) {
		if (width)
			*width = w;
		return clean;
	}
	/* Too wide: keep what fits in cols-1 and add a one-column mark. */
	const char *mark = ascii_only ? "~" : "\xe2\x80\xa6";
	size_t got = 0, keep = 0;
	if (cols > 0)
		keep = utf8_prefix_fitting(clean, len, cols - 1, &got);
	char *out = xmalloc(keep + 4);
	memcpy(out, clean, keep);
	out[keep] = '\0';
	if (cols > 0) {
		strcat(out, mark);
		got++;
	}
	free(clean);
	if (width)
		*width = got;
	return out;
}

size_t ui_text_wrap_row(const char *s, size_t len, size_t cols, size_t *next)
{
	size_t fit = utf8_prefix_fitting(s, len, cols, NULL);
	if (fit == 0 && len > 0) { /* one character wider than the row */
		uint32_t cp;
		fit = utf8_decode(s, len, &cp);
		fit += utf8_prefix_fitting(s + fit, len - fit, 0, NULL);
	}
	size_t lead = 0, cut = fit;
	while (lead < len && s[lead] == ' ')
		lead++;
	if (fit < len && s[fit] != ' ') {
		/* A word is not split when a space before it, past the row's
		 * indent, can break the row, unless it is wider than a row
		 * anyway (a long path): then it starts here. */
		size_t sp = fit;
		while (sp > lead && s[sp - 1] != ' ')
			sp--;
		/* (looking one row ahead only: a huge tag stays linear) */
		size_t ahead = sp > lead ? utf8_prefix_fitting(s + sp, len - sp, cols, NULL) : 0;
		bool word_fits = sp + ahead >= len || s[sp + ahead] == ' ' ||
				 memchr(s + sp, ' ', ahead) != NULL;
		if (sp > lead && word_fits)
			cut = sp;
	}
	size_t end = cut;
	while (end > lead && s[end - 1] == ' ')
		end--;
	while (cut < len && s[cut] == ' ')
		cut++;
	*next = cut;
	return end;
}

/* Where the continuation rows of s start (ui_text_wrap). */
static int hang(const char *s, size_t first_len, int width)
{
	size_t lead = 0, column = 0;
	while (lead < first_len && s[lead] == ' ')
		lead++;
	for (size_t i = lead; i + 2 < first_len; i++)
		if (s[i] == ' ' && s[i + 1] == ' ' && s[i + 2] != ' ')
			column = utf8_width(s, i + 2);
	if (column && column * 3 <= (size_t)width * 2)
		return (int)column;
	return lead + 2 <= (size_t)width / 2 ? (int)lead + 2 : width / 2;
}

size_t ui_text_wrap(const char *s, int width, struct ui_text_row *rows, size_t max)
{
	size_t len = strlen(s), next, n = 0;
	size_t first = ui_text_wrap_row(s, len, (size_t)width, &next);
	if (max)
		rows[0] = (struct ui_text_row){0, first, 0};
	n++;
	int indent = hang(s, first, width);
	for (size_t off = next; off < len; off = next, n++) {
		size_t got = ui_text_wrap_row(s + off, len - off, (size_t)(width - indent), &next);
		if (n < max)
			rows[n] = (struct ui_text_row){off, got, indent};
		next += off;
	}
	return n;
}

char *ui_text_fit_pad(const char *s, size_t cols, int ascii_only)
{
	size_t w;
	char *fit = ui_text_fit(s, cols, ascii_only, &w);
	size_t len = strlen(fit);
	char *out = xmalloc(len + (cols - w) + 1);
	memcpy(out, fit, len);
	memset(out + len, ' ', cols - w);
	out[len + cols - w] = '\0';
	free(fit);
	return out;
}

const char *ui_text_basename(const char *s, char *buf, size_t size)
{
	size_t len = 0;
	const char *name = s ? str_path_name(s, &len) : "";
	snprintf(buf, size, "%.*s", (int)len, name);
	return buf;
}

const char *ui_fmt_time(int64_t ms, char *buf, size_t size)
{
	return item_format_duration(ms, buf, size); /* the same as the formats' %duration% */
}

size_t ui_progress_cells(int64_t pos, int64_t total, size_t width)
{
	if (total <= 0 || pos <= 0)
		return 0;
	if (pos >= total)
		return width;
	return (size_t)((double)pos / (double)total * (double)width);
}

size_t ui_text_col_of_char(const char *s, int pos)
{
	size_t len = strlen(s), off = 0, cols = 0;
	for (int i = 1; i < pos && off < len; i++) {
		uint32_t cp;
		size_t n = utf8_decode(s + off, len - off, &cp);
		cols += utf8_is_control(cp) ? 1 : (size_t)utf8_cp_width(cp);
		off += n;
	}
	return cols;
}
