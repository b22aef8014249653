/* Growable strings, natural ordering, number parsing. */
#ifndef CRATE_BASE_STR_H
#define CRATE_BASE_STR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable NUL-terminated buffer; owns buf until strbuf_steal/free. */
struct strbuf {
	char *buf;
	size_t len, cap;
};

void strbuf_init(struct strbuf *b, size_t hint);
void strbuf_free(struct strbuf *b);
void strbuf_reset(struct strbuf *b);
void strbuf_add(struct strbuf *b, const char *s, size_t n);
void strbuf_adds(struct strbuf *b, const char *s);
void strbuf_addc(struct strbuf *b, char c);
void strbuf_addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* strbuf_addf for a caller's own variadic arguments (ap is consumed). */
void strbuf_vaddf(struct strbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Hand the buffer to the caller (who frees it); b is left empty. */
char *strbuf_steal(struct strbuf *b);

/* Natural order: digit runs compare by value ("Track 9" < "Track 10"), the
 * rest byte-wise. Callers fold both sides first for case-insensitivity. */
int str_natcmp(const char *a, const char *b);

/* Parse a whole string as a number: optional '-', digits, optional '.'
 * and digits. No spaces, no exponent. */
bool str_parse_number(const char *s, size_t len, double *out);
bool str_parse_int64(const char *s, size_t len, int64_t *out);

bool str_has_prefix(const char *s, const char *prefix);
/* The noun for a count: one when n is 1, else many ("%zu %s", n,
 * str_plural(n, "entry", "entries")), so no message says "1 entries". */
const char *str_plural(size_t n, const char *one, const char *many);
/* memmem for short haystacks (a tag's text): the first n[0..nlen) in
 * h[0..hlen), or NULL; nlen > 0. glibc's memmem sets up a table per call,
 * which costs more than searching a few dozen bytes. */
const char *str_find_short(const char *h, size_t hlen, const char *n, size_t nlen);
/* A path as a shell would expand its start: "~", "~/x", "~user/x",
 * "$HOME/x" and "${HOME}/x" (from $HOME, else the password database).
 * Anything else, or an unknown user, comes back unchanged. Owned. */
char *str_expand_home(const char *path);
/* The name a file or stream is shown by where it has no title: the last
 * part of its path or URL, '/'s at the end passed over ("/m/a.flac" is
 * "a.flac", "http://host:8000/" is "host:8000", "http://host/live/" is
 * "live"), all of path when it has no other ("/"). Points into path;
 * *len is the name's length (the name may not end path). */
const char *str_path_name(const char *path, size_t *len);
/* str_path_name as a string of its own; owned. */
char *str_path_name_dup(const char *path);
/* The absolute, canonical path of path (realpath), also for one that is
 * gone (a folder deleted, a disk unmounted): its parent's real path and
 * its name, so that "Album" after rm -rf Album names what was recorded.
 * Owned; NULL when neither resolves. */
char *str_abs_path(const char *path);

#endif
