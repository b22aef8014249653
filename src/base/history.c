#include "base/history.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/str.h"
#include "base/tmpfiles.h"

struct history {
	char **line; /* oldest first, owned */
	size_t n, cap, max;
	char *path;  /* NULL: memory only */
	size_t pos;  /* the walk's place: line[pos]; n when not walking */
	char *typed; /* the line being edited when the walk began (owned) */
};

static void push(struct history *h, char *line)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->line = xreallocarray(h->line, h->cap, sizeof *h->line);
	}
	h->line[h->n++] = line;
}

/* Keep the newest max lines. */
static void trim(struct history *h)
{
	if (h->n <= h->max)
		return;
	size_t drop = h->n - h->max;
	for (size_t i = 0; i < drop; i++)
		free(h->line[i]);
	memmove(h->line, h->line + drop, (h->n - drop) * sizeof *h->line);
	h->n -= drop;
}

static bool blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

struct history *history_open(const char *path, size_t max)
{
	struct history *h = xcalloc(1, sizeof *h);
	h->max = max ? max : 1;
	h->path = path ? xstrdup(path) : NULL;
	FILE *f = path ? fopen(path, "r") : NULL;
	if (f) {
		char *buf = NULL;
		size_t cap = 0;
		ssize_t got;
		while ((got = getline(&buf, &cap, f)) >= 0) {
			while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
				buf[--got] = '\0';
			if (!blank(buf) && !memchr(buf, '\0', (size_t)got))
				push(h, xstrdup(buf));
		}
		free(buf);
		fclose(f);
		trim(h);
	}
	h->pos = h->n;
	return h;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		free(h->line[i]);
	free(h->line);
	free(h->path);
	free(h->typed);
	free(h);
}

/* Write every line to path.tmp, then rename it over path. */
static int save(const struct history *h, struct crate_err *err)
{
	if (!h->path)
		return 0;
	char *tmp = xasprintf("%s.tmp%ld", h->path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		crate_err_set(err, CRATE_ERR_IO, "history %s: %s", h->path, strerror(errno));
		free(tmp);
		return -1;
	}
	int handle = tmpfiles_remember(tmp);
	FILE *f = fdopen(fd, "w");
	bool ok = f != NULL;
	for (size_t i = 0; ok && i < h->n; i++)
		ok = fputs(h->line[i], f) >= 0 && fputc('\n', f) != EOF;
	if (f)
		ok = fclose(f) == 0 && ok;
	else
		close(fd);
	int rc = 0;
	if (!ok || rename(tmp, h->path) != 0) {
		rc = crate_err_set(err, CRATE_ERR_IO, "history %s: %s", h->path, strerror(errno));
		unlink(tmp);
	}
	tmpfiles_forget(handle);
	free(tmp);
	return rc;
}

int history_add(struct history *h, const char *line, struct crate_err *err)
{
	history_walk_end(h);
	if (blank(line))
		return 0;
	char *copy = xstrdup(line);
	for (char *c = copy; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	for (size_t i = 0; i < h->n; i++) {
		if (strcmp(h->line[i], copy) == 0) {
			free(h->line[i]);
			memmove(h->line + i, h->line + i + 1, (h->n - i - 1) * sizeof *h->line);
			h->n--;
			break;
		}
	}
	push(h, copy);
	trim(h);
	h->pos = h->n;
	return save(h, err);
}

size_t history_count(const struct history *h)
{
	return h->n;
}

const char *history_at(const struct history *h, size_t i)
{
	return i < h->n ? h->line[i] : NULL;
}

bool history_walking(const struct history *h)
{
	return h->pos < h->n;
}

static void begin(struct history *h, const char *typed)
{
	if (history_walking(h))
		return;
	free(h->typed);
	h->typed = xstrdup(typed ? typed : "");
}

const char *history_prev(struct history *h, const char *typed)
{
	if (h->pos == 0)
		return NULL;
	begin(h, typed);
	return h->line[--h->pos];
}

const char *history_next(struct history *h)
{
	if (!history_walking(h))
		return NULL;
	if (++h->pos < h->n)
		return h->line[h->pos];
	return h->typed ? h->typed : "";
}

const char *history_search(struct history *h, const char *pat, const char *typed)
{
	for (size_t i = h->pos; i-- > 0;) {
		if (strstr(h->line[i], pat)) {
			begin(h, typed);
			h->pos = i;
			return h->line[i];
		}
	}
	return NULL;
}

void history_walk_end(struct history *h)
{
	h->pos = h->n;
	free(h->typed);
	h->typed = NULL;
}
