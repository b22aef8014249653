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

/* Refuse 0-based position pos of the list name, len entries long. */
static int past_the_end(const char *name, size_t pos, size_t len, struct crate_err *err)
{
	return crate_err_set(err, CRATE_ERR_INVALID,
			     "Playlists/%s: position %zu is past the end (%zu %s)", name, pos + 1,
			     len, str_plural(len, "entry", "entries"));
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
		return past_the_end(a->name, pos, len, err);
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
				     "Playlists/%s: entries %zu-%zu are past the end (%zu %s)",
				     a->name, pos + 1, pos + n, len, str_plural(len, "entry", "entries"));
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
		return past_the_end(a->name, from >= len ? from : to, len, err);
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

/* The shell's move (crate playlist move, :playlist move), recorded as the
 * interface's K and J are. A move to where the entry is changes nothing
 * and is not recorded. */
static int edit_move_undoable(void *ud, struct coll_node *c, struct crate_err *err)
{
	const struct edit_args *a = ud;
	if (edit_move(ud, c, err) != 0)
		return -1;
	return a->pos == a->to ? 1 : 0;
}

int coll_store_playlist_move_undoable(struct coll_store *st, const char *name, size_t from,
				      size_t to, struct crate_err *err)
{
	char *m = xstrdup(name);
	struct edit_args a = {.name = m, .pos = from, .to = to};
	int rc = coll_store_playlist_edit_undoable(st, m, "move of 1 entry", edit_move_undoable, &a,
						   err);
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

/* ---- undoable edits of a set of entries (the interface's marks) ---- */

int coll_store_playlist_insert_undoable(struct coll_store *st, const char *name, size_t pos,
					const uint32_t *ids, size_t n, struct crate_err *err)
{
	uint32_t *copy = xmalloc((n ? n : 1) * sizeof *copy);
	if (n)
		memcpy(copy, ids, n * sizeof *ids);
	char *m = xstrdup(name), label[64];
	snprintf(label, sizeof label, "addition of %zu %s", n, str_plural(n, "entry", "entries"));
	struct edit_args a = {.name = m, .pos = pos, .ids = copy, .n = n};
	int rc = coll_store_playlist_edit_undoable(st, m, label, edit_insert, &a, err);
	free(m);
	free(copy);
	return rc;
}

struct set_args {
	const char *name;
	size_t *pos; /* in: the set; out (move): where each went */
	size_t n;
	int delta;
	size_t done;
	char label[64]; /* the undo record's: what was done, not what was asked */
};

/* Name the edit by the entries it changed (a move of 2 marked entries
 * where one is at the top already moves 1). */
static void set_label(struct set_args *a, const char *what)
{
	snprintf(a->label, sizeof a->label, "%s of %zu %s", what, a->done,
		 str_plural(a->done, "entry", "entries"));
}

/* The set as flags over the list; -1 when a position is past the end. */
static int set_flags(const struct set_args *a, size_t len, unsigned char **out,
		     struct crate_err *err)
{
	unsigned char *sel = xcalloc(len ? len : 1, 1);
	for (size_t k = 0; k < a->n; k++) {
		if (a->pos[k] >= len) {
			free(sel);
			return past_the_end(a->name, a->pos[k], len, err);
		}
		sel[a->pos[k]] = 1;
	}
	*out = sel;
	return 0;
}

static int edit_move_set(void *ud, struct coll_node *c, struct crate_err *err)
{
	struct set_args *a = ud;
	size_t len = c->idlist.n;
	unsigned char *sel;
	if (set_flags(a, len, &sel, err) != 0)
		return -1;
	long cur = list_position(c);
	uint32_t *v = c->idlist.v;
	a->done = 0;
	/* Walk from the end the entries move towards, so a selected entry
	 * steps past an unselected one and a packed block stays. */
	for (size_t k = 0; k < len; k++) {
		size_t i = a->delta < 0 ? k : len - 1 - k;
		if (!sel[i] || (a->delta < 0 ? i == 0 : i + 1 == len))
			continue;
		size_t j = a->delta < 0 ? i - 1 : i + 1;
		if (sel[j])
			continue;
		uint32_t t = v[i];
		v[i] = v[j];
		v[j] = t;
		sel[i] = 0;
		sel[j] = 1;
		if (cur == (long)i)
			cur = (long)j;
		else if (cur == (long)j)
			cur = (long)i;
		a->done++;
	}
	size_t k = 0;
	for (size_t i = 0; i < len && k < a->n; i++)
		if (sel[i])
			a->pos[k++] = i;
	free(sel);
	if (!a->done)
		return 1;
	set_label(a, "move");
	if (cur >= 0 && cur != list_position(c))
		list_set_position(c, cur);
	return 0;
}

static size_t *positions_dup(const size_t *pos, size_t n)
{
	size_t *p = xmalloc((n ? n : 1) * sizeof *p);
	if (n)
		memcpy(p, pos, n * sizeof *p);
	return p;
}

int coll_store_playlist_move_set(struct coll_store *st, const char *name, size_t *pos, size_t n,
				 int delta, size_t *moved, struct crate_err *err)
{
	char *m = xstrdup(name);
	struct set_args a = {.name = m, .pos = positions_dup(pos, n), .n = n,
			     .delta = delta < 0 ? -1 : 1};
	int rc = coll_store_playlist_edit_undoable(st, m, a.label, edit_move_set, &a, err);
	if (rc == 0 && a.done)
		memcpy(pos, a.pos, n * sizeof *pos);
	if (moved)
		*moved = rc == 0 ? a.done : 0;
	free(a.pos);
	free(m);
	return rc;
}

static int edit_remove_set(void *ud, struct coll_node *c, struct crate_err *err)
{
	struct set_args *a = ud;
	size_t len = c->idlist.n;
	unsigned char *sel;
	if (set_flags(a, len, &sel, err) != 0)
		return -1;
	long cur = list_position(c), newcur = cur;
	size_t w = 0;
	for (size_t i = 0; i < len; i++) {
		if (sel[i]) {
			if (cur >= 0 && (long)i < cur)
				newcur--;
			continue;
		}
		c->idlist.v[w++] = c->idlist.v[i];
	}
	free(sel);
	a->done = len - w;
	c->idlist.n = w;
	if (!a->done)
		return 1;
	set_label(a, "removal");
	/* A removed current entry hands over to the one after it. */
	if (cur >= 0 && newcur != cur)
		list_set_position(c, newcur);
	return 0;
}

int coll_store_playlist_remove_set(struct coll_store *st, const char *name, const size_t *pos,
				   size_t n, size_t *removed, struct crate_err *err)
{
	char *m = xstrdup(name);
	struct set_args a = {.name = m, .pos = positions_dup(pos, n), .n = n};
	int rc = coll_store_playlist_edit_undoable(st, m, a.label, edit_remove_set, &a, err);
	if (removed)
		*removed = rc == 0 ? a.done : 0;
	free(a.pos);
	free(m);
	return rc;
}
