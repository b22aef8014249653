/* The playlist edits of store.h (insert, remove, move, set an attribute),
 * each one coll_store_playlist_edit: the store runs the transaction and
 * saves the edited copy; this file only changes the list and keeps its
 * "position" on the current entry. Names and ids are copied first: the
 * store may free what it handed out when it catches up with other
 * processes at the start of the edit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "coll/store.h"

/* The "position" attribute (current entry, 0-based), -1 when unset. */
static long list_position(const struct coll_node *n)
{
	const char *p = coll_attr_get(n, "position");
	int64_t v;
	if (!p || !str_parse_int64(p, strlen(p), &v) || v < 0 || v > UINT32_MAX)
		return -1;
	return (long)v;
}

static void list_set_position(struct coll_node *n, long pos)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", pos);
	coll_attr_set(n, "position", buf);
}

struct edit_args {
	const char *name;
	size_t pos, n, to;
	const uint32_t *ids;
	const char *key, *value;
};

static int edit_insert(void *ud, struct coll_node *c, struct crate_err *err)
{
	const struct edit_args *a = ud;
	size_t len = c->idlist.n, pos = a->pos == SIZE_MAX ? len : a->pos, n = a->n;
	if (pos > len)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "Playlists/%s: position %zu is past the end (%zu entries)",
				     a->name, pos + 1, len);
	u32vec_reserve(&c->idlist, len + n);
	memmove(c->idlist.v + pos + n, c->idlist.v + pos, (len - pos) * sizeof *c->idlist.v);
	if (n)
		memcpy(c->idlist.v + pos, a->ids, n * sizeof *a->ids);
	c->idlist.n = len + n;
	long cur = list_position(c);
	if (cur >= 0 && (size_t)cur >= pos && cur < (long)len)
		list_set_position(c, cur + (long)n);
	return 0;
}

int coll_store_playlist_insert(struct coll_store *st, const char *name, size_t pos,
			       const uint32_t *ids, size_t n, struct crate_err *err)
{
	/* ids may lie in a root of this store (another playlist's entries) */
	uint32_t *copy = xmalloc((n ? n : 1) * sizeof *copy);
	if (n)
		memcpy(copy, ids, n * sizeof *ids);
	char *m = xstrdup(name);
	struct edit_args a = {.name = m, .pos = pos, .ids = copy, .n = n};
	int rc = coll_store_playlist_edit(st, m, edit_insert, &a, err);
	free(m);
	free(copy);
	return rc;
}

static int edit_remove(void *ud, struct coll_node *c, struct crate_err *err)
{
	const struct edit_args *a = ud;
	size_t len = c->idlist.n, pos = a->pos, n = a->n;
	if (pos > len || n > len - pos)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "Playlists/%s: entries %zu-%zu are past the end (%zu entries)",
				     a->name, pos + 1, pos + n, len);
	memmove(c->idlist.v + pos, c->idlist.v + pos + n, (len - pos - n) * sizeof *c->idlist.v);
	c->idlist.n = len - n;
	long cur = list_position(c);
	if (cur >= 0 && (size_t)cur >= pos + n)
		list_set_position(c, cur - (long)n);
	else if (cur >= 0 && (size_t)cur >= pos)
		list_set_position(c, (long)pos); /* the entry after the removed ones */
	return 0;
}

int coll_store_playlist_remove(struct coll_store *st, const char *name, size_t pos, size_t n,
			       struct crate_err *err)
{
	char *m = xstrdup(name);
	struct edit_args a = {.name = m, .pos = pos, .n = n};
	int rc = coll_store_playlist_edit(st, m, edit_remove, &a, err);
	free(m);
	return rc;
}

static int edit_move(void *ud, struct coll_node *c, struct crate_err *err)
{
	const struct edit_args *a = ud;
	size_t len = c->idlist.n, from = a->pos, to = a->to;
	if (from >= len || to >= len)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "Playlists/%s: position %zu is past the end (%zu entries)",
				     a->name, (from >= len ? from : to) + 1, len);
	uint32_t id = c->idlist.v[from];
	if (from < to)
		memmove(c->idlist.v + from, c->idlist.v + from + 1,
			(to - from) * sizeof *c->idlist.v);
	else
		memmove(c->idlist.v + to + 1, c->idlist.v + to, (from - to) * sizeof *c->idlist.v);
	c->idlist.v[to] = id;
	long cur = list_position(c);
	if (cur >= 0 && (size_t)cur < len) {
		size_t p = (size_t)cur;
		if (p == from)
			p = to;
		else if (from < p && p <= to)
			p--;
		else if (to <= p && p < from)
			p++;
		if (p != (size_t)cur)
			list_set_position(c, (long)p);
	}
	return 0;
}

int coll_store_playlist_move(struct coll_store *st, const char *name, size_t from, size_t to,
			     struct crate_err *err)
{
	char *m = xstrdup(name);
	struct edit_args a = {.name = m, .pos = from, .to = to};
	int rc = coll_store_playlist_edit(st, m, edit_move, &a, err);
	free(m);
	return rc;
}

static int edit_attr(void *ud, struct coll_node *c, struct crate_err *err)
{
	const struct edit_args *a = ud;
	(void)err;
	const char *old = coll_attr_get(c, a->key);
	if (a->value ? old && strcmp(old, a->value) == 0 : !old)
		return 1;
	if (a->value)
		coll_attr_set(c, a->key, a->value);
	else
		coll_attr_remove(c, a->key);
	return 0;
}

int coll_store_playlist_set_attr(struct coll_store *st, const char *name, const char *key,
				 const char *value, struct crate_err *err)
{
	if (strcmp(key, "type") == 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "Playlists/%s: the list type is not a setting", name);
	char *m = xstrdup(name), *k = xstrdup(key), *v = value ? xstrdup(value) : NULL;
	struct edit_args a = {.name = m, .key = k, .value = v};
	int rc = coll_store_playlist_edit(st, m, edit_attr, &a, err);
	free(m);
	free(k);
	free(v);
	return rc;
}
