/* Playlist files (see plfile.h). Every parser reads the whole file once,
 * line by line (M3U, PLS) or element by element (XSPF), so a 200,000-line
 * file costs one pass; text is kept as the file gives it (no re-encoding:
 * an M3U written by a Latin-1 tool names files in Latin-1 bytes, which is
 * what the disk has). */
#include "medialib/plfile.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/uri.h"
#include "base/utf8.h"

void plfile_free(struct plfile *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->v[i].location);
		free(pl->v[i].problem);
		free(pl->v[i].title);
		free(pl->v[i].windows);
		free(pl->v[i].slashed);
		free(pl->v[i].relative);
	}
	free(pl->v);
	memset(pl, 0, sizeof *pl);
}

enum plfile_format plfile_format_of_name(const char *name)
{
	const char *dot = name ? strrchr(name, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return PLFILE_UNKNOWN;
	if (strcasecmp(dot, ".m3u") == 0 || strcasecmp(dot, ".m3u8") == 0)
		return PLFILE_M3U;
	if (strcasecmp(dot, ".pls") == 0)
		return PLFILE_PLS;
	if (strcasecmp(dot, ".xspf") == 0)
		return PLFILE_XSPF;
	return PLFILE_UNKNOWN;
}

static const char *skip_bom(const char *data, size_t *len)
{
	if (*len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
		*len -= 3;
		return data + 3;
	}
	return data;
}

enum plfile_format plfile_format_detect(const char *name, const char *data, size_t len)
{
	data = skip_bom(data, &len);
	while (len && isspace((unsigned char)*data)) {
		data++;
		len--;
	}
	if (len >= 10 && strncasecmp(data, "[playlist]", 10) == 0)
		return PLFILE_PLS;
	if (len >= 7 && strncmp(data, "#EXTM3U", 7) == 0)
		return PLFILE_M3U;
	if (len >= 5 && (strncmp(data, "<?xml", 5) == 0 || strncmp(data, "<playlist", 9) == 0))
		return PLFILE_XSPF;
	return plfile_format_of_name(name);
}

/* ---- locations ---- */

static bool is_url(const char *s)
{
	return strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0;
}

/* *s (*n bytes) without the white space around it. */
static void trim_space(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/* "/a/./b/../c" -> "/a/c" in place (lexical; ".." at the root stays at the root). */
static void normalise_path(char *p)
{
	char *w = p; /* p[0] is '/' */
	const char *r = p;
	while (*r) {
		while (*r == '/')
			r++;
		const char *end = strchr(r, '/');
		size_t n = end ? (size_t)(end - r) : strlen(r);
		if (n == 0)
			break;
		if (n == 1 && r[0] == '.') {
			/* nothing */
		} else if (n == 2 && r[0] == '.' && r[1] == '.') {
			while (w > p && *--w != '/') {
			}
		} else {
			*w++ = '/';
			memmove(w, r, n);
			w += n;
		}
		r += n;
	}
	if (w == p)
		*w++ = '/';
	*w = '\0';
}

/* Whether the byte at s (n bytes left) goes percent-encoded in a URL: a
 * space or control character, or a byte that is not UTF-8 (*len: the
 * bytes of the character there). */
static bool url_byte_escaped(const char *s, size_t n, size_t *len)
{
	unsigned char c = (unsigned char)*s;
	uint32_t cp;
	*len = utf8_decode(s, n, &cp);
	if (c <= 0x20 || c == 0x7f)
		return true;
	return cp == UTF8_REPLACEMENT && !(*len == 3 && memcmp(s, "\xef\xbf\xbd", 3) == 0);
}

/* A URL with its spaces, control characters and bytes that are not UTF-8
 * percent-encoded (taking url): a request cannot carry them raw, a line
 * of M3U or PLS written from the entry could not give them back, and XSPF
 * (UTF-8) can hold them only so. */
static char *url_escape_controls(char *url)
{
	size_t n = strlen(url), len, extra = 0;
	for (size_t i = 0; i < n; i += len)
		extra += url_byte_escaped(url + i, n - i, &len) ? 2 * len : 0;
	if (!extra)
		return url;
	char *out = xmalloc(n + extra + 1), *w = out;
	for (size_t i = 0; i < n; i += len) {
		if (url_byte_escaped(url + i, n - i, &len)) {
			for (size_t k = 0; k < len; k++)
				w += sprintf(w, "%%%02X", (unsigned char)url[i + k]);
		} else {
			memcpy(w, url + i, len);
			w += len;
		}
	}
	*w = '\0';
	free(url);
	return out;
}

/* The absolute path or URL a location means; owned, NULL to skip it (an
 * empty one) or, with *why (owned), to report it: a location crate cannot
 * play must not vanish without a word. uri: the location is a URI (XSPF),
 * so relative ones are percent-encoded too. *rel (may be NULL; owned)
 * gets a relative location as written (decoded), else NULL. */
static char *resolve(const char *loc, size_t len, const char *dir, bool uri, char **why,
		     char **rel)
{
	*why = NULL;
	if (rel)
		*rel = NULL;
	trim_space(&loc, &len);
	if (!len || memchr(loc, '\0', len))
		return NULL;
	char *s = xstrndup(loc, len);
	if (is_url(s))
		return url_escape_controls(s);
	char *path;
	if (strncasecmp(s, "file://", 7) == 0) {
		const char *p = s + 7;
		if (strncasecmp(p, "localhost/", 10) == 0)
			p += 9;
		if (*p != '/') { /* file://otherhost/...: not ours */
			const char *slash = strchr(p, '/');
			*why = xasprintf("remote host '%.*s' (only local files play)",
					 (int)(slash ? (size_t)(slash - p) : strlen(p)), p);
			free(s);
			return NULL;
		}
		path = xstrdup(p);
		uri_percent_decode(path);
	} else if (strstr(s, "://")) { /* another scheme (rtsp, smb): not playable here */
		*why = xasprintf("unsupported scheme '%.*s' (files, http and https play)",
				 (int)(strstr(s, "://") - s), s);
		free(s);
		return NULL;
	} else {
		if (uri)
			uri_percent_decode(s);
		path = s[0] == '/' ? xstrdup(s) : xasprintf("%s/%s", dir, s);
		if (rel && s[0] != '/')
			*rel = xstrdup(s);
	}
	free(s);
	normalise_path(path);
	return path;
}

/* An absolute path as Windows players write it: C:\x, C:/x, \\host\x or
 * \x (rooted on the current drive), none of which names a file here. */
static bool is_windows_absolute(const char *s, size_t n)
{
	return (n >= 3 && isalpha((unsigned char)s[0]) && s[1] == ':' &&
		(s[2] == '\\' || s[2] == '/')) ||
	       (n >= 1 && s[0] == '\\');
}

/* e's Windows readings of loc (len bytes as written), when it is written
 * so: a Linux name may hold a backslash, so these are only a fallback. */
static void add_windows_reading(struct plfile_entry *e, const char *loc, size_t len,
				const char *dir, bool uri)
{
	trim_space(&loc, &len);
	bool absolute = is_windows_absolute(loc, len);
	if ((!absolute && !memchr(loc, '\\', len)) ||
	    (len >= 7 && strncasecmp(loc, "file://", 7) == 0))
		return;
	e->windows = xstrndup(loc, len);
	if (absolute)
		return;
	char *s = xstrndup(loc, len);
	for (char *p = s; *p; p++)
		if (*p == '\\')
			*p = '/';
	char *why;
	e->slashed = resolve(s, len, dir, uri, &why, NULL);
	free(why);
	free(s);
}

/* The entry at line for loc (len bytes as written): resolved, reported
 * with a problem, or (empty) left out. */
static void add_entry(struct plfile *pl, const char *loc, size_t len, const char *dir, bool uri,
		      const char *title, size_t tlen, int64_t dur, size_t line)
{
	char *problem, *relative;
	char *location = resolve(loc, len, dir, uri, &problem, &relative);
	if (!location && !problem)
		return;
	if (!location)
		location = xstrndup(loc, len);
	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? pl->cap * 2 : 64;
		pl->v = xreallocarray(pl->v, pl->cap, sizeof *pl->v);
	}
	trim_space(&title, &tlen);
	struct plfile_entry *e = &pl->v[pl->n++];
	*e = (struct plfile_entry){location, problem, tlen ? xstrndup(title, tlen) : NULL, dur,
				   line, NULL, NULL, relative};
	if (!problem && location[0] == '/')
		add_windows_reading(e, loc, len, dir, uri);
}

/* ---- line-based formats ---- */

struct lines {
	const char *p, *end;
	size_t no;
};

/* The next line (CR, LF or CRLF ended) into *s and *n; false at the end. */
static bool next_line(struct lines *l, const char **s, size_t *n)
{
	if (l->p >= l->end)
		return false;
	const char *q = l->p;
	while (q < l->end && *q != '\n' && *q != '\r')
		q++;
	*s = l->p;
	*n = (size_t)(q - l->p);
	if (q < l->end && *q == '\r' && q + 1 < l->end && q[1] == '\n')
		q++;
	l->p = q < l->end ? q + 1 : q;
	l->no++;
	return true;
}

static int64_t seconds_ms(const char *s, size_t n)
{
	char buf[32];
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	if (end == buf || !(v > 0) || v > 1e9)
		return -1;
	return (int64_t)(v * 1000 + 0.5);
}

static void parse_m3u(const char *data, size_t len, const char *dir, struct plfile *out)
{
	struct lines l = {data, data + len, 0};
	const char *s, *title = NULL;
	size_t n, tlen = 0;
	int64_t dur = -1;
	while (next_line(&l, &s, &n)) {
		while (n && isspace((unsigned char)*s)) {
			s++;
			n--;
		}
		if (n == 0)
			continue;
		if (*s == '#') {
			if (n > 8 && strncasecmp(s, "#EXTINF:", 8) == 0) {
				/* #EXTINF:seconds [attributes],title: the title follows
				 * the first comma outside quotes */
				const char *p = s + 8, *e = s + n;
				bool q = false;
				while (p < e && (q || *p != ',')) {
					if (*p == '"')
						q = !q;
					p++;
				}
				size_t dl = 0;
				while (s + 8 + dl < e && (isdigit((unsigned char)s[8 + dl]) ||
							  s[8 + dl] == '.' || s[8 + dl] == '-'))
					dl++;
				dur = seconds_ms(s + 8, dl);
				title = p < e ? p + 1 : NULL;
				tlen = p < e ? (size_t)(e - p - 1) : 0;
			}
			continue;
		}
		add_entry(out, s, n, dir, false, title, title ? tlen : 0, dur, l.no);
		title = NULL;
		dur = -1;
	}
}

struct pls_field {
	unsigned long no;
	int kind; /* 0 File, 1 Title, 2 Length */
	const char *v;
	size_t n, line;
};

static int pls_cmp(const void *a, const void *b)
{
	const struct pls_field *x = a, *y = b;
	if (x->no != y->no)
		return x->no < y->no ? -1 : 1;
	return x->kind - y->kind;
}

static void parse_pls(const char *data, size_t len, const char *dir, struct plfile *out)
{
	struct lines l = {data, data + len, 0};
	struct pls_field *f = NULL;
	size_t nf = 0, cap = 0;
	const char *s;
	size_t n;
	static const char *const keys[] = {"file", "title", "length"};
	while (next_line(&l, &s, &n)) {
		const char *eq = memchr(s, '=', n);
		if (!eq)
			continue;
		for (int k = 0; k < 3; k++) {
			size_t kl = strlen(keys[k]);
			if ((size_t)(eq - s) <= kl || strncasecmp(s, keys[k], kl) != 0)
				continue;
			char *end;
			unsigned long no = strtoul(s + kl, &end, 10);
			if (end != eq || !isdigit((unsigned char)s[kl]))
				continue;
			if (nf == cap) {
				cap = cap ? cap * 2 : 64;
				f = xreallocarray(f, cap, sizeof *f);
			}
			f[nf++] = (struct pls_field){no, k, eq + 1, (size_t)(s + n - eq - 1), l.no};
		}
	}
	if (nf) /* no fields: f is NULL, which qsort must not be given */
		qsort(f, nf, sizeof *f, pls_cmp);
	for (size_t i = 0; i < nf;) {
		size_t j = i;
		const struct pls_field *file = NULL, *title = NULL, *length = NULL;
		for (; j < nf && f[j].no == f[i].no; j++) {
			const struct pls_field **slot = f[j].kind == 0 ? &file : f[j].kind == 1 ? &title : &length;
			if (!*slot)
				*slot = &f[j];
		}
		if (file)
			add_entry(out, file->v, file->n, dir, false, title ? title->v : NULL,
				  title ? title->n : 0, length ? seconds_ms(length->v, length->n) : -1,
				  file->line);
		i = j;
	}
	free(f);
}

/* ---- XSPF ---- */

/* XML text with the five named entities and &#N; / &#xN; decoded and
 * CDATA sections taken as they are (valid XML some writers use for
 * locations); owned. */
static char *xml_text(const char *s, size_t n)
{
	static const char cdata[] = "<![CDATA[";
	struct strbuf b;
	strbuf_init(&b, n + 1);
	for (size_t i = 0; i < n; i++) {
		if (n - i >= sizeof cdata - 1 && memcmp(s + i, cdata, sizeof cdata - 1) == 0) {
			const char *from = s + i + sizeof cdata - 1, *to = from;
			while (to + 3 <= s + n && memcmp(to, "]]>", 3) != 0)
				to++;
			if (to + 3 > s + n)
				to = s + n; /* unterminated: the rest */
			strbuf_add(&b, from, (size_t)(to - from));
			i = (size_t)(to - s) + 2;
			continue;
		}
		if (s[i] != '&') {
			strbuf_addc(&b, s[i]);
			continue;
		}
		const char *semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
		if (!semi) {
			strbuf_addc(&b, '&');
			continue;
		}
		size_t el = (size_t)(semi - (s + i)) - 1;
		const char *e = s + i + 1;
		static const struct {
			const char *name, *text;
		} ents[] = {{"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
		bool done = false;
		for (size_t k = 0; k < 5 && !done; k++)
			if (strlen(ents[k].name) == el && strncmp(e, ents[k].name, el) == 0) {
				strbuf_adds(&b, ents[k].text);
				done = true;
			}
		if (!done && el > 1 && e[0] == '#') {
			char *end;
			unsigned long cp = e[1] == 'x' || e[1] == 'X' ? strtoul(e + 2, &end, 16)
								      : strtoul(e + 1, &end, 10);
			if (end == semi && cp > 0 && cp < 0x110000 && !(cp >= 0xd800 && cp < 0xe000)) {
				char u[4];
				int ul = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
				if (ul == 1)
					u[0] = (char)cp;
				else {
					for (int k = ul - 1; k > 0; k--, cp >>= 6)
						u[k] = (char)(0x80 | (cp & 0x3f));
					u[0] = (char)((ul == 2 ? 0xc0 : ul == 3 ? 0xe0 : 0xf0) | cp);
				}
				strbuf_add(&b, u, (size_t)ul);
				done = true;
			}
		}
		if (!done) {
			strbuf_addc(&b, '&');
			continue;
		}
		i += el + 1;
	}
	return strbuf_steal(&b);
}

/* The text of the first <tag>...</tag> in [s, end), or NULL. */
static const char *xml_elem(const char *s, const char *end, const char *tag, size_t *n)
{
	size_t tl = strlen(tag);
	for (const char *p = s; p + tl + 2 <= end; p++) {
		p = memchr(p, '<', (size_t)(end - p));
		if (!p || p + tl + 2 > end)
			return NULL;
		if (strncmp(p + 1, tag, tl) != 0 || (p[tl + 1] != '>' && !isspace((unsigned char)p[tl + 1])))
			continue;
		const char *gt = memchr(p, '>', (size_t)(end - p));
		if (!gt)
			return NULL;
		if (gt[-1] == '/') { /* <tag/> */
			*n = 0;
			return gt;
		}
		for (const char *q = gt + 1; q + tl + 3 <= end; q++) {
			q = memchr(q, '<', (size_t)(end - q));
			if (!q || q + tl + 3 > end)
				return NULL;
			if (q[1] == '/' && strncmp(q + 2, tag, tl) == 0 && q[tl + 2] == '>') {
				*n = (size_t)(q - gt - 1);
				return gt + 1;
			}
		}
		return NULL;
	}
	return NULL;
}

static int parse_xspf(const char *data, size_t len, const char *dir, struct plfile *out,
		      struct crate_err *err)
{
	const char *end = data + len;
	size_t n, playlist_len;
	const char *list = xml_elem(data, end, "trackList", &n);
	if (!xml_elem(data, end, "playlist", &playlist_len) || !list)
		return crate_err_set(err, CRATE_ERR_PARSE, "not an XSPF playlist (no <playlist> with a <trackList>)");
	const char *lend = list + n, *p = list; /* n: the trackList's length, not the playlist's */
	size_t tn;
	const char *t;
	while ((t = xml_elem(p, lend, "track", &tn))) {
		const char *tend = t + tn;
		size_t ln = 0, titn = 0, dn = 0;
		const char *loc = xml_elem(t, tend, "location", &ln);
		const char *title = xml_elem(t, tend, "title", &titn);
		const char *dur = xml_elem(t, tend, "duration", &dn);
		if (loc) {
			char *l = xml_text(loc, ln);
			char *tt = title ? xml_text(title, titn) : NULL;
			int64_t ms = -1;
			if (dur) {
				char *d = xml_text(dur, dn);
				char *e;
				long long v = strtoll(d, &e, 10);
				ms = e != d && v > 0 ? v : -1;
				free(d);
			}
			size_t line = 1;
			for (const char *q = data; q < loc; q++)
				line += *q == '\n';
			add_entry(out, l, strlen(l), dir, true, tt, tt ? strlen(tt) : 0, ms, line);
			free(l);
			free(tt);
		}
		p = tend;
	}
	return 0;
}

int plfile_parse(enum plfile_format fmt, const char *data, size_t len, const char *dir,
		 struct plfile *out, struct crate_err *err)
{
	data = skip_bom(data, &len);
	switch (fmt) {
	case PLFILE_M3U:
		parse_m3u(data, len, dir, out);
		return 0;
	case PLFILE_PLS:
		parse_pls(data, len, dir, out);
		return 0;
	case PLFILE_XSPF:
		return parse_xspf(data, len, dir, out, err);
	case PLFILE_UNKNOWN:
		break;
	}
	return crate_err_set(err, CRATE_ERR_INVALID,
			     "unknown playlist format (use .m3u, .m3u8, .pls or .xspf)");
}

/* ---- writing ---- */

/* Text for a one-line field: control characters (a newline would end the
 * entry) become spaces. */
static void add_line_text(struct strbuf *b, const char *s)
{
	for (; *s; s++)
		strbuf_addc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
}

/* Text for XSPF, which says it is UTF-8: a byte that is not (a Latin-1
 * ID3 tag, a stream URL from a Latin-1 M3U) made the whole document
 * unreadable to an XML parser. In a URL it is percent-encoded, as a URI
 * gives a byte; elsewhere it becomes U+FFFD, as in crate's JSON, and so
 * do U+FFFE and U+FFFF, which XML does not allow either. */
static void add_xml_text_as(struct strbuf *b, const char *s, bool url)
{
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		bool bad = cp == UTF8_REPLACEMENT && !(n == 3 && memcmp(s + i, "\xef\xbf\xbd", 3) == 0);
		if (bad && url)
			strbuf_addf(b, "%%%02X", c);
		else if (bad || cp == 0xfffe || cp == 0xffff)
			strbuf_adds(b, "\xef\xbf\xbd");
		else if (c == '&')
			strbuf_adds(b, "&amp;");
		else if (c == '<')
			strbuf_adds(b, "&lt;");
		else if (c == '>')
			strbuf_adds(b, "&gt;");
		else if (c == '"')
			strbuf_adds(b, "&quot;");
		else if (c < 0x20 && c != '\t')
			strbuf_addc(b, ' ');
		else
			strbuf_add(b, s + i, n);
		i += n;
	}
}

static void add_xml_text(struct strbuf *b, const char *s)
{
	add_xml_text_as(b, s, false);
}

bool plfile_path_needs_uri(const char *path)
{
	size_t len = strlen(path);
	if (len && (isspace((unsigned char)path[0]) || isspace((unsigned char)path[len - 1])))
		return true;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

/* A path as a URI: file:// for absolute paths, percent-encoded. */
static void add_uri(struct strbuf *b, const char *path)
{
	if (is_url(path)) {
		add_xml_text_as(b, path, true);
		return;
	}
	uri_add_path(b, path);
}

static void add_display(struct strbuf *b, const struct plfile_out_entry *e)
{
	if (e->artist && e->title) {
		add_line_text(b, e->artist);
		strbuf_adds(b, " - ");
	}
	add_line_text(b, e->title ? e->title : e->artist ? e->artist : "");
}

/* A location on its own line of M3U or PLS: as it is, or, when the line
 * could not give it back (plfile_path_needs_uri), as a file:// URI, which
 * reading decodes. */
static void add_line_location(struct strbuf *b, const char *loc)
{
	if (loc[0] == '/' && plfile_path_needs_uri(loc))
		add_uri(b, loc);
	else
		add_line_text(b, loc);
}

void plfile_write(enum plfile_format fmt, const struct plfile_out_entry *e, size_t n,
		  struct strbuf *b)
{
	if (fmt == PLFILE_PLS) {
		strbuf_adds(b, "[playlist]\n");
		for (size_t i = 0; i < n; i++) {
			strbuf_addf(b, "File%zu=", i + 1);
			/* a value's leading space is trimmed on reading */
			if (isspace((unsigned char)e[i].location[0]))
				strbuf_adds(b, "./");
			add_line_location(b, e[i].location);
			strbuf_addc(b, '\n');
			if (e[i].title || e[i].artist) {
				strbuf_addf(b, "Title%zu=", i + 1);
				add_display(b, &e[i]);
				strbuf_addc(b, '\n');
			}
			strbuf_addf(b, "Length%zu=%lld\n", i + 1,
				    e[i].duration_ms >= 0 ? (long long)((e[i].duration_ms + 500) / 1000) : -1LL);
		}
		strbuf_addf(b, "NumberOfEntries=%zu\nVersion=2\n", n);
		return;
	}
	if (fmt == PLFILE_XSPF) {
		strbuf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			       "<playlist version=\"1\" xmlns=\"http://xspf.org/ns/0/\">\n"
			       "  <trackList>\n");
		for (size_t i = 0; i < n; i++) {
			strbuf_adds(b, "    <track>\n      <location>");
			add_uri(b, e[i].location);
			strbuf_adds(b, "</location>\n");
			if (e[i].artist) {
				strbuf_adds(b, "      <creator>");
				add_xml_text(b, e[i].artist);
				strbuf_adds(b, "</creator>\n");
			}
			if (e[i].title) {
				strbuf_adds(b, "      <title>");
				add_xml_text(b, e[i].title);
				strbuf_adds(b, "</title>\n");
			}
			if (e[i].duration_ms >= 0)
				strbuf_addf(b, "      <duration>%lld</duration>\n", (long long)e[i].duration_ms);
			strbuf_adds(b, "    </track>\n");
		}
		strbuf_adds(b, "  </trackList>\n</playlist>\n");
		return;
	}
	strbuf_adds(b, "#EXTM3U\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(b, "#EXTINF:%lld,",
			    e[i].duration_ms >= 0 ? (long long)((e[i].duration_ms + 500) / 1000) : -1LL);
		add_display(b, &e[i]);
		strbuf_addc(b, '\n');
		/* A relative location that begins like a comment ("#9 Dream.flac")
		 * or with a space (trimmed on reading) is written from "./". */
		if (e[i].location[0] == '#' || isspace((unsigned char)e[i].location[0]))
			strbuf_adds(b, "./");
		add_line_location(b, e[i].location);
		strbuf_addc(b, '\n');
	}
}

char *plfile_relative(const char *path, const char *dir)
{
	/* common leading components */
	size_t common = 0, i = 0;
	for (;; i++) {
		char a = path[i], d = dir[i];
		if ((a == '/' || a == '\0') && (d == '/' || d == '\0'))
			common = i;
		if (a != d || a == '\0' || d == '\0')
			break;
	}
	if (dir[common] == '\0' && path[common] == '/')
		return xstrdup(path + common + 1); /* below dir */
	struct strbuf b;
	strbuf_init(&b, 64);
	for (const char *p = dir + common; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			strbuf_adds(&b, "../");
	strbuf_adds(&b, path[common] == '/' ? path + common + 1 : path + common);
	return strbuf_steal(&b);
}
