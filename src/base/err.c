#include "base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A message longer than msg keeps its start and its end, joined by "...":
 * messages start with the path at fault and end with the reason, and a
 * long path must not cut the reason off. Cuts fall on UTF-8 boundaries. */
static void fit_message(char *dst, size_t size, const char *src, size_t len)
{
	if (len < size) {
		memcpy(dst, src, len + 1);
		return;
	}
	size_t head = size / 4, tail = size - head - 4;
	while (head > 0 && ((unsigned char)src[head] & 0xC0) == 0x80)
		head--;
	const char *t = src + len - tail;
	while (*t && ((unsigned char)*t & 0xC0) == 0x80)
		t++;
	memcpy(dst, src, head);
	memcpy(dst + head, "...", 3);
	size_t tl = strlen(t);
	memcpy(dst + head + 3, t, tl + 1);
}

int crate_err_vset(struct crate_err *err, int code, const char *fmt, va_list ap)
{
	if (err) {
		err->code = code;
		err->pos = 0;
		va_list aq;
		va_copy(aq, ap);
		int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		if (n >= (int)sizeof err->msg) {
			char *full = malloc((size_t)n + 1);
			if (full) {
				vsnprintf(full, (size_t)n + 1, fmt, aq);
				fit_message(err->msg, sizeof err->msg, full, (size_t)n);
				free(full);
			}
		}
		va_end(aq);
	}
	return -1;
}

int crate_err_set(struct crate_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	crate_err_vset(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int crate_err_prefix(struct crate_err *err, const char *fmt, ...)
{
	if (!err)
		return -1;
	char prefix[256], old[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	snprintf(err->msg, sizeof err->msg, "%s%s", prefix, old);
	return -1;
}

void crate_err_clear(struct crate_err *err)
{
	if (err) {
		err->code = 0;
		err->pos = 0;
		err->msg[0] = '\0';
	}
}

static void out_of_memory(size_t n)
{
	fprintf(stderr, "crate: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		out_of_memory((size_t)-1);
	return xrealloc(p, n * size);
}

#define HUGE_PAGE ((size_t)2 << 20)

void *xmalloc_huge(size_t n)
{
	if (n < HUGE_PAGE)
		return xmalloc(n);
	void *p = NULL;
	if (posix_memalign(&p, HUGE_PAGE, n) != 0)
		out_of_memory(n);
#ifdef MADV_HUGEPAGE
	/* Only a hint: where the kernel has no huge pages to give (THP off,
	 * memory fragmented) it fails or falls back to small pages. */
	madvise(p, (n + 4095) & ~(size_t)4095, MADV_HUGEPAGE);
#endif
	return p;
}

void *xcalloc_huge(size_t n, size_t size)
{
	if (size && n > (size_t)-1 / size)
		out_of_memory((size_t)-1);
	if (n * size < HUGE_PAGE)
		return xcalloc(n, size);
	void *p = xmalloc_huge(n * size);
	memset(p, 0, n * size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		out_of_memory(0);
	return s;
}
