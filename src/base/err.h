/* Errors travel as values: a code and a message naming what is at fault. */
#ifndef CRATE_BASE_ERR_H
#define CRATE_BASE_ERR_H

#include <stdarg.h>
#include <stddef.h>

enum crate_errcode {
	CRATE_OK = 0,
	CRATE_ERR_IO,        /* a file or device could not be read/written */
	CRATE_ERR_DB,        /* SQLite failed (corrupt, locked, read-only, full) */
	CRATE_ERR_PARSE,     /* a query or JSON document is malformed */
	CRATE_ERR_INCOMPLETE,/* a query is a valid prefix that is not finished yet */
	CRATE_ERR_NOTFOUND,  /* a named thing (collection, media id, file) does not exist */
	CRATE_ERR_EXISTS,    /* refused: would overwrite or conflict */
	CRATE_ERR_INVALID,   /* a value is out of range or of the wrong kind */
	CRATE_ERR_REFUSED,   /* the operation is not allowed (cycle, referrers, built-in) */
	CRATE_ERR_MEDIA,     /* audio that cannot be decoded */
	CRATE_ERR_DEVICE,    /* the audio device failed */
	CRATE_ERR_NOMEM,
};

struct crate_err {
	int code;        /* enum crate_errcode; 0 = no error */
	int pos;         /* 1-based column for parse errors, else 0 */
	char msg[512];   /* human readable, complete sentence fragment, no trailing newline */
};

/* Fill *err (which may be NULL) and return -1, so callers can write
 * `return crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(errno));` */
int crate_err_set(struct crate_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int crate_err_vset(struct crate_err *err, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Prefix an existing message: "scan /x: " + old message. */
int crate_err_prefix(struct crate_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void crate_err_clear(struct crate_err *err);

/* Allocation that reports failure as a value is too noisy for every
 * small string; these abort with a message on out-of-memory, the one
 * failure crate does not try to survive. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
/* For large arrays filled soon after (index columns, dictionaries, hash
 * tables): from 2 MB up, aligned on 2 MB and advised for transparent huge
 * pages, so the first touch costs one page fault per 2 MB instead of one
 * per 4 kB (a tenth of a cold index load went to faults). Smaller: plain
 * malloc. Either way released with free() and growable with realloc. */
void *xmalloc_huge(size_t n);
void *xcalloc_huge(size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
