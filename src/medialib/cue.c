/* Cue sheets: a line-by-line reader of the commands crate uses (FILE,
 * TRACK, INDEX, TITLE, PERFORMER, SONGWRITER, ISRC, REM GENRE/DATE/...);
 * the others (FLAGS, PREGAP, POSTGAP, CATALOG, CDTEXTFILE, unknown REMs)
 * are skipped. Strict where a wrong answer would play the wrong audio
 * (indices, track numbers, FILE), lenient about the rest. */
#include "medialib/cue.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "base/utf8.h"

void mlib_cue_free(struct mlib_cue *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ntracks; i++) {
		struct mlib_cue_track *t = &c->tracks[i];
		free(t->title);
		free(t->performer);
		free(t->songwriter);
		free(t->isrc);
	}
	free(c->tracks);
	free(c->file);
	free(c->title);
	free(c->performer);
	free(c->songwriter);
	free(c->genre);
	free(c->date);
	free(c->comment);
	free(c->discnumber);
	free(c->disctotal);
	memset(c, 0, sizeof *c);
}

const char *mlib_cue_time(int64_t frames, char *buf, size_t size)
{
	snprintf(buf, size, "%02lld:%02lld:%02lld", (long long)(frames / (60 * MLIB_CUE_FPS)),
		 (long long)(frames / MLIB_CUE_FPS % 60), (long long)(frames % MLIB_CUE_FPS));
	return buf;
}

int64_t mlib_cue_samples(int64_t frames, int rate)
{
	return frames * rate / MLIB_CUE_FPS;
}

struct cue_parser {
	struct mlib_cue *c;
	int line;
	struct crate_err *err;
	int64_t last_index; /* the latest INDEX time so far: times never go back */
	int last_index_nr;  /* the current track's last INDEX number, -1 before one */
};

static int fail(struct cue_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cue_parser *p, const char *fmt, ...)
{
	/* Formatted whole: crate_err_set shortens a long message (a line of
	 * junk quoted) at character boundaries, a fixed buffer here would cut
	 * a character in two. */
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *what = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(what, n > 0 ? (size_t)n + 1 : 1, fmt, aq);
	va_end(aq);
	crate_err_set(p->err, CRATE_ERR_PARSE, "line %d: %s", p->line, what);
	free(what);
	return -1;
}

static const char *skip_space(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* The next word of [*s, end) (owned), *s moved past it. */
static char *next_word(const char **s, const char *end)
{
	const char *a = skip_space(*s, end), *b = a;
	while (b < end && *b != ' ' && *b != '\t')
		b++;
	*s = b;
	return b > a ? xstrndup(a, (size_t)(b - a)) : NULL;
}

/* A value: "quoted" (up to the closing quote; an unclosed one runs to the
 * end of the line), or the rest of the line with spaces trimmed. Owned;
 * NULL when empty. */
static char *value_of(const char *s, const char *end)
{
	s = skip_space(s, end);
	if (s < end && *s == '"') {
		const char *q = memchr(s + 1, '"', (size_t)(end - s - 1));
		const char *stop = q ? q : end;
		return stop > s + 1 ? xstrndup(s + 1, (size_t)(stop - s - 1)) : NULL;
	}
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end > s ? xstrndup(s, (size_t)(end - s)) : NULL;
}

/* FILE "name" TYPE, or FILE name with spaces TYPE: the name without the
 * type word. */
static char *file_name_of(const char *s, const char *end)
{
	s = skip_space(s, end);
	if (s < end && *s == '"')
		return value_of(s, end);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	const char *sp = end;
	while (sp > s && sp[-1] != ' ' && sp[-1] != '\t')
		sp--;
	if (sp > s) /* the last word is the type */
		end = sp;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end > s ? xstrndup(s, (size_t)(end - s)) : NULL;
}

static void set_str(char **dst, char *v)
{
	free(*dst);
	*dst = v;
}

/* mm:ss:ff (minutes may exceed 99); -1 when malformed. */
static int64_t parse_time(const char *w)
{
	int64_t part[3] = {0, 0, 0};
	int n = 0;
	const char *p = w;
	for (; n < 3; n++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		int64_t v = 0;
		int digits = 0;
		for (; isdigit((unsigned char)*p); p++, digits++)
			if (digits < 9)
				v = v * 10 + (*p - '0');
		part[n] = v;
		if (n < 2 && *p++ != ':')
			return -1;
	}
	if (*p || part[1] >= 60 || part[2] >= MLIB_CUE_FPS)
		return -1;
	return (part[0] * 60 + part[1]) * MLIB_CUE_FPS + part[2];
}

static struct mlib_cue_track *cur_track(struct cue_parser *p)
{
	return p->c->ntracks ? &p->c->tracks[p->c->ntracks - 1] : NULL;
}

static int cmd_track(struct cue_parser *p, const char *s, const char *end)
{
	struct mlib_cue *c = p->c;
	if (!c->file)
		return fail(p, "TRACK before any FILE line");
	char *num = next_word(&s, end);
	int64_t n;
	bool ok = num && str_parse_int64(num, strlen(num), &n);
	if (!ok) {
		int rc = fail(p, "TRACK '%s': not a track number", num ? num : "");
		free(num);
		return rc;
	}
	free(num);
	char nbuf[32];
	snprintf(nbuf, sizeof nbuf, "%lld", (long long)n);
	if (n < 1 || n > MLIB_CUE_MAX_TRACKS || c->ntracks >= MLIB_CUE_MAX_TRACKS)
		return fail(p, "track %s: a cue sheet holds tracks 1 to 99", nbuf);
	struct mlib_cue_track *prev = cur_track(p);
	char pb[32];
	snprintf(pb, sizeof pb, "%d", prev ? prev->number : 0);
	if (prev && prev->start < 0)
		return fail(p, "track %s has no INDEX 01", pb);
	if (prev && n <= prev->number)
		return fail(p, "track %s comes after track %s: numbers must increase", nbuf, pb);
	c->tracks = xreallocarray(c->tracks, c->ntracks + 1, sizeof *c->tracks);
	c->tracks[c->ntracks++] = (struct mlib_cue_track){
		.number = (int)n, .line = p->line, .start = -1};
	p->last_index_nr = -1;
	return 0;
}

static int cmd_index(struct cue_parser *p, const char *s, const char *end)
{
	struct mlib_cue_track *t = cur_track(p);
	if (!t)
		return fail(p, "INDEX outside a TRACK");
	char *num = next_word(&s, end), *tm = next_word(&s, end);
	int64_t n = -1, at = tm ? parse_time(tm) : -1;
	int rc = 0;
	if (!num || !str_parse_int64(num, strlen(num), &n) || n < 0 || n > 99)
		rc = fail(p, "INDEX '%s': not an index number 0 to 99", num ? num : "");
	else if (at < 0)
		rc = fail(p, "INDEX %s '%s': not a time mm:ss:ff (75 frames a second)", num,
			  tm ? tm : "");
	else if (n <= p->last_index_nr) {
		char prev[16];
		snprintf(prev, sizeof prev, "%02d", p->last_index_nr);
		rc = fail(p, "INDEX %s after INDEX %s: index numbers go backwards", num, prev);
	} else if (at < p->last_index) {
		char a[32], b[32];
		rc = fail(p, "INDEX at %s is before the previous index (%s): indices overlap",
			  mlib_cue_time(at, a, sizeof a), mlib_cue_time(p->last_index, b, sizeof b));
	} else if (n == 1 && p->c->ntracks > 1 && at <= p->c->tracks[p->c->ntracks - 2].start) {
		char a[32];
		rc = fail(p, "track starts at %s, where the track before it starts (an empty track)",
			  mlib_cue_time(at, a, sizeof a));
	}
	free(num);
	free(tm);
	if (rc != 0)
		return rc;
	p->last_index_nr = (int)n;
	p->last_index = at;
	if (n == 1)
		t->start = at;
	return 0;
}

static int cmd_rem(struct cue_parser *p, const char *s, const char *end)
{
	struct mlib_cue *c = p->c;
	char *key = next_word(&s, end);
	if (!key)
		return 0;
	char **dst = NULL;
	if (!cur_track(p)) { /* REMs of the disc; a track's REMs are not kept */
		if (strcasecmp(key, "GENRE") == 0)
			dst = &c->genre;
		else if (strcasecmp(key, "DATE") == 0)
			dst = &c->date;
		else if (strcasecmp(key, "COMMENT") == 0)
			dst = &c->comment;
		else if (strcasecmp(key, "DISCNUMBER") == 0)
			dst = &c->discnumber;
		else if (strcasecmp(key, "TOTALDISCS") == 0)
			dst = &c->disctotal;
	}
	free(key);
	if (dst)
		set_str(dst, value_of(s, end));
	return 0;
}

static int parse_line(struct cue_parser *p, const char *s, const char *end)
{
	struct mlib_cue *c = p->c;
	struct mlib_cue_track *t = cur_track(p);
	char *cmd = next_word(&s, end);
	if (!cmd)
		return 0;
	int rc = 0;
	if (strcasecmp(cmd, "FILE") == 0) {
		if (c->file)
			rc = fail(p, "a second FILE: crate plays cue sheets of one audio file");
		else if (!(c->file = file_name_of(s, end)))
			rc = fail(p, "FILE without a file name");
	} else if (strcasecmp(cmd, "TRACK") == 0) {
		rc = cmd_track(p, s, end);
	} else if (strcasecmp(cmd, "INDEX") == 0) {
		rc = cmd_index(p, s, end);
	} else if (strcasecmp(cmd, "REM") == 0) {
		rc = cmd_rem(p, s, end);
	} else if (strcasecmp(cmd, "TITLE") == 0) {
		set_str(t ? &t->title : &c->title, value_of(s, end));
	} else if (strcasecmp(cmd, "PERFORMER") == 0) {
		set_str(t ? &t->performer : &c->performer, value_of(s, end));
	} else if (strcasecmp(cmd, "SONGWRITER") == 0) {
		set_str(t ? &t->songwriter : &c->songwriter, value_of(s, end));
	} else if (strcasecmp(cmd, "ISRC") == 0 && t) {
		set_str(&t->isrc, value_of(s, end));
	}
	free(cmd);
	return rc;
}

static int parse_text(struct cue_parser *p, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	while (s < end) {
		p->line++;
		const char *eol = s;
		while (eol < end && *eol != '\n' && *eol != '\r')
			eol++;
		if (parse_line(p, s, eol) != 0)
			return -1;
		s = eol;
		if (s < end && *s == '\r' && ++s < end && *s == '\n')
			s++; /* CRLF */
		else if (s < end && *s == '\n')
			s++;
	}
	struct mlib_cue *c = p->c;
	if (!c->file)
		return crate_err_set(p->err, CRATE_ERR_PARSE, "not a usable cue sheet: no FILE line");
	if (!c->ntracks)
		return crate_err_set(p->err, CRATE_ERR_PARSE, "no TRACK in the cue sheet");
	struct mlib_cue_track *last = cur_track(p);
	if (last->start < 0)
		return crate_err_set(p->err, CRATE_ERR_PARSE, "line %d: track %d has no INDEX 01",
				     last->line, last->number);
	return 0;
}

/* UTF-16 text after its BOM (little-endian when le) as UTF-8, owned; a
 * lone surrogate becomes U+FFFD. EAC and foobar2000 write such sheets
 * when asked for "Unicode". */
static char *utf8_from_utf16(const char *text, size_t len, bool le, size_t *out_len)
{
	const unsigned char *u = (const unsigned char *)text;
	char *out = xmalloc(len / 2 * 3 + 4), *o = out;
	for (size_t i = 0; i + 1 < len; i += 2) {
		uint32_t cp = le ? (uint32_t)(u[i] | u[i + 1] << 8) : (uint32_t)(u[i] << 8 | u[i + 1]);
		if (cp >= 0xD800 && cp <= 0xDBFF && i + 3 < len) {
			uint32_t lo = le ? (uint32_t)(u[i + 2] | u[i + 3] << 8)
					 : (uint32_t)(u[i + 2] << 8 | u[i + 3]);
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i += 2;
			}
		}
		if (cp >= 0xD800 && cp <= 0xDFFF)
			cp = 0xFFFD;
		o += utf8_encode(cp, o);
	}
	*o = '\0';
	*out_len = (size_t)(o - out);
	return out;
}

int mlib_cue_parse(const char *text, size_t len, struct mlib_cue *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
		text += 3;
		len -= 3;
	}
	char *wide = NULL;
	if (len >= 2 && (memcmp(text, "\xFF\xFE", 2) == 0 || memcmp(text, "\xFE\xFF", 2) == 0)) {
		wide = utf8_from_utf16(text + 2, len - 2, text[0] == '\xFF', &len);
		text = wide;
	}
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		int line = 1;
		for (const char *s = text; s < nul; s++)
			line += *s == '\n';
		free(wide);
		return crate_err_set(err, CRATE_ERR_PARSE,
				     "line %d: not a cue sheet (binary data: a NUL byte)", line);
	}
	char *conv = NULL;
	if (!utf8_valid(text, len)) {
		conv = utf8_from_latin1(text, len, &len);
		text = conv;
	}
	struct cue_parser p = {.c = out, .err = err, .last_index = 0, .last_index_nr = -1};
	int rc = parse_text(&p, text, len);
	free(conv);
	free(wide);
	if (rc != 0)
		mlib_cue_free(out);
	return rc;
}
