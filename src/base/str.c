#include "base/str.h"

#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"

void strbuf_init(struct strbuf *b, size_t hint)
{
	b->cap = hint < 16 ? 16 : hint;
	b->buf = xmalloc(b->cap);
	b->buf[0] = '\0';
	b->len = 0;
}

void strbuf_free(struct strbuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

void strbuf_reset(struct strbuf *b)
{
	b->len = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

static void strbuf_grow(struct strbuf *b, size_t extra)
{
	if (!b->buf)
		strbuf_init(b, extra + 1);
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap * 2;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->buf = xrealloc(b->buf, cap);
	b->cap = cap;
}

void strbuf_add(struct strbuf *b, const char *s, size_t n)
{
	strbuf_grow(b, n);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void strbuf_adds(struct strbuf *b, const char *s)
{
	strbuf_add(b, s, strlen(s));
}

void strbuf_addc(struct strbuf *b, char c)
{
	strbuf_grow(b, 1);
	b->buf[b->len++] = c;
	b->buf[b->len] = '\0';
}

void strbuf_vaddf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list again; /* a second pass when the text outgrows tmp */
	va_copy(again, ap);
	char tmp[256];
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	if (n >= 0 && (size_t)n < sizeof tmp) {
		strbuf_add(b, tmp, (size_t)n);
	} else if (n >= 0) {
		strbuf_grow(b, (size_t)n);
		vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
}

void strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

char *strbuf_steal(struct strbuf *b)
{
	if (!b->buf)
		strbuf_init(b, 1);
	char *s = b->buf;
	b->buf = NULL;
	b->len = b->cap = 0;
	return s;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int str_natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (is_digit(*a) && is_digit(*b)) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = 0, lb = 0;
			while (is_digit(a[la]))
				la++;
			while (is_digit(b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = memcmp(a, b, la);
			if (c)
				return c < 0 ? -1 : 1;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a == *b)
		return 0;
	return *a ? 1 : -1;
}

bool str_parse_number(const char *s, size_t len, double *out)
{
	size_t i = 0;
	if (i < len && s[i] == '-')
		i++;
	size_t digits = 0;
	while (i < len && is_digit(s[i])) {
		i++;
		digits++;
	}
	if (i < len && s[i] == '.') {
		i++;
		size_t frac = 0;
		while (i < len && is_digit(s[i])) {
			i++;
			frac++;
		}
		if (frac == 0)
			return false;
		digits += frac;
	}
	if (digits == 0 || i != len || len > 64)
		return false;
	char tmp[72];
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	*out = strtod(tmp, NULL);
	return true;
}

bool str_parse_int64(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < len && s[i] == '-') {
		neg = true;
		i++;
	}
	if (i == len)
		return false;
	uint64_t v = 0;
	for (; i < len; i++) {
		if (!is_digit(s[i]))
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (!neg && v > (uint64_t)INT64_MAX)
		return false;
	if (neg && v > (uint64_t)INT64_MAX + 1)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

bool str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

const char *str_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

const char *str_path_name(const char *path, size_t *len)
{
	size_t end = strlen(path);
	while (end > 0 && path[end - 1] == '/')
		end--;
	if (end == 0) { /* "", "/", "//": nothing but itself to show */
		*len = strlen(path);
		return path;
	}
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	*len = end - start;
	return path + start;
}

char *str_path_name_dup(const char *path)
{
	size_t len;
	const char *name = str_path_name(path, &len);
	return xstrndup(name, len);
}

static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	if (h && *h)
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir ? pw->pw_dir : NULL;
}

char *str_expand_home(const char *path)
{
	const char *home = NULL, *rest = NULL;
	if (path[0] == '~') {
		const char *end = strchr(path, '/');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		rest = path + n;
		if (n == 1) {
			home = home_dir();
		} else {
			char *user = xstrndup(path + 1, n - 1);
			struct passwd *pw = getpwnam(user);
			free(user);
			home = pw ? pw->pw_dir : NULL;
		}
	} else if (strncmp(path, "$HOME", 5) == 0 && (path[5] == '/' || !path[5])) {
		home = home_dir();
		rest = path + 5;
	} else if (strncmp(path, "${HOME}", 7) == 0 && (path[7] == '/' || !path[7])) {
		home = home_dir();
		rest = path + 7;
	}
	if (!home)
		return xstrdup(path);
	return xasprintf("%s%s", home, rest);
}

const char *str_find_short(const char *h, size_t hlen, const char *n, size_t nlen)
{
	if (nlen > hlen)
		return NULL;
	const char *last = h + (hlen - nlen);
	for (const char *p = h; p <= last; p++) {
		/* memchr: most texts hold the first byte rarely */
		p = memchr(p, n[0], (size_t)(last - p) + 1);
		if (!p)
			return NULL;
		if (memcmp(p + 1, n + 1, nlen - 1) == 0)
			return p;
	}
	return NULL;
}

char *str_abs_path(const char *path)
{
	char *real = realpath(path, NULL);
	if (real)
		return real;
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	const char *slash = memrchr(path, '/', len);
	const char *name = slash ? slash + 1 : path;
	size_t nlen = (size_t)(path + len - name);
	if (nlen == 0 || (name[0] == '.' && (nlen == 1 || (nlen == 2 && name[1] == '.'))))
		return NULL;
	char *parent = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
			     : xstrdup(".");
	char *dir = realpath(parent, NULL);
	free(parent);
	char *r = dir ? xasprintf("%s%s%.*s", dir, strcmp(dir, "/") == 0 ? "" : "/", (int)nlen, name)
		      : NULL;
	free(dir);
	return r;
}
