#include "medialib/watch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/str.h"

/* What marks a folder changed. IN_MODIFY only says "still being written". */
#define DIR_EVENTS (IN_CREATE | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		    IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* A file opened for writing and not closed yet holds its batch back at
 * most this long after the last event (a writer that died, a download
 * left open). */
#define WRITING_MAX_MS 30000

struct strset {
	char **v;
	size_t n, cap;
};

struct mlib_watch {
	int fd;
	int quiet_ms;
	char **wd_path;   /* by watch descriptor: the folder (owned), NULL = none */
	char **wd_scan;   /* by watch descriptor: for a folder reached through a symbolic
			   * link, the real folder holding the link, which is what to scan
			   * (owned); NULL: the folder itself */
	size_t nwd;       /* size of wd_path and wd_scan */
	size_t watched;
	char **roots;
	size_t nroots;
	bool limited;
	bool linked; /* some folder is watched through a link */
	bool root_lost; /* a root's folder went away: only rescans see it come back */
	struct strset changed; /* folders with events since the last batch */
	struct strset writing; /* files created or modified, not closed yet */
	double last_event;     /* ms, monotonic */
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- small string sets (a batch holds few distinct folders) ---- */

static ssize_t strset_find(const struct strset *s, const char *x)
{
	/* The newest first: events come in runs for one folder. */
	for (size_t i = s->n; i-- > 0;)
		if (strcmp(s->v[i], x) == 0)
			return (ssize_t)i;
	return -1;
}

static void strset_add(struct strset *s, const char *x)
{
	if (strset_find(s, x) >= 0)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	s->v[s->n++] = xstrdup(x);
}

static void strset_del(struct strset *s, const char *x)
{
	ssize_t i = strset_find(s, x);
	if (i < 0)
		return;
	free(s->v[i]);
	s->v[i] = s->v[--s->n];
}

static void strset_clear(struct strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* inner is outer or under it */
static bool under(const char *outer, const char *inner)
{
	size_t n = strlen(outer);
	if (n == 1 && outer[0] == '/')
		return true;
	return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* ---- watches ---- */

int mlib_watch_new(int quiet_ms, struct mlib_watch **out, struct crate_err *err)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		return crate_err_set(err, CRATE_ERR_IO, "cannot watch folders (inotify): %s",
				     strerror(errno));
	struct mlib_watch *w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->quiet_ms = quiet_ms > 0 ? quiet_ms : 400;
	*out = w;
	return 0;
}

void mlib_watch_free(struct mlib_watch *w)
{
	if (!w)
		return;
	close(w->fd);
	for (size_t i = 0; i < w->nwd; i++) {
		free(w->wd_path[i]);
		free(w->wd_scan[i]);
	}
	free(w->wd_path);
	free(w->wd_scan);
	for (size_t i = 0; i < w->nroots; i++)
		free(w->roots[i]);
	free(w->roots);
	strset_clear(&w->changed);
	strset_clear(&w->writing);
	free(w);
}

int mlib_watch_fd(const struct mlib_watch *w)
{
	return w->fd;
}

static void limit_message(struct crate_err *err)
{
	/* The system-wide setting, or a user namespace's own lower one. */
	long max = -1;
	const char *files[] = {"/proc/sys/fs/inotify/max_user_watches",
			       "/proc/sys/user/max_inotify_watches"};
	for (size_t i = 0; i < 2; i++) {
		long v;
		FILE *f = fopen(files[i], "r");
		if (f && fscanf(f, "%ld", &v) == 1 && (max < 0 || v < max))
			max = v;
		if (f)
			fclose(f);
	}
	crate_err_set(err, CRATE_ERR_REFUSED,
		      "watch limit reached (fs.inotify.max_user_watches = %ld): raise it with "
		      "'sysctl fs.inotify.max_user_watches=524288'; meanwhile crate rescans "
		      "periodically",
		      max);
}

/* Watch one folder; scan: what to scan for its events (NULL: itself). 0,
 * 1 when the limit is reached, -1 when it cannot be watched (gone,
 * unreadable: nothing to do), 2 for a folder reached through a link that
 * is watched already (a link back into the tree: not again). */
static int watch_one(struct mlib_watch *w, const char *path, const char *scan)
{
	int wd = inotify_add_watch(w->fd, path, DIR_EVENTS);
	if (wd < 0)
		return errno == ENOSPC ? 1 : -1;
	if ((size_t)wd >= w->nwd) {
		size_t n = w->nwd ? w->nwd : 64;
		while (n <= (size_t)wd)
			n *= 2;
		w->wd_path = xreallocarray(w->wd_path, n, sizeof *w->wd_path);
		w->wd_scan = xreallocarray(w->wd_scan, n, sizeof *w->wd_scan);
		memset(w->wd_path + w->nwd, 0, (n - w->nwd) * sizeof *w->wd_path);
		memset(w->wd_scan + w->nwd, 0, (n - w->nwd) * sizeof *w->wd_scan);
		w->nwd = n;
	}
	if (w->wd_path[wd] && scan)
		return 2;
	if (!w->wd_path[wd])
		w->watched++;
	if (scan)
		w->linked = true;
	free(w->wd_path[wd]); /* the same folder reached again (a root re-added) */
	free(w->wd_scan[wd]);
	w->wd_path[wd] = xstrdup(path);
	w->wd_scan[wd] = scan ? xstrdup(scan) : NULL;
	return 0;
}

/* The entry of path->buf named name is a folder (real), or a symbolic
 * link to one (link). */
static void entry_kind(struct strbuf *path, const struct dirent *de, bool *dir, bool *link)
{
	*dir = de->d_type == DT_DIR;
	*link = false;
	if (de->d_type != DT_UNKNOWN && de->d_type != DT_LNK)
		return;
	struct stat st;
	size_t base = path->len;
	strbuf_addc(path, '/');
	strbuf_adds(path, de->d_name);
	bool is_link = de->d_type == DT_LNK || (lstat(path->buf, &st) == 0 && S_ISLNK(st.st_mode));
	if (is_link)
		*link = stat(path->buf, &st) == 0 && S_ISDIR(st.st_mode);
	else
		*dir = lstat(path->buf, &st) == 0 && S_ISDIR(st.st_mode);
	path->len = base;
	path->buf[base] = '\0';
}

/* Watch path and the folders under it, depth first, one open directory
 * at a time (a deep tree must not run out of file descriptors). A linked
 * folder is watched too (the scanner follows links, and a library merged
 * from two disks by links changes there), each folder once: its events
 * name the real folder holding the first link (scan), which the scanner
 * walks under the names it stored. */
static int watch_tree(struct mlib_watch *w, struct strbuf *path, const char *scan)
{
	int rc = watch_one(w, path->buf, scan);
	if (rc == 2)
		return 0;
	if (rc != 0)
		return rc;
	DIR *d = opendir(path->buf);
	if (!d)
		return 0;
	char **subs = NULL;
	bool *linked = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue; /* ., .. and hidden folders, which the scanner skips */
		bool dir, link;
		entry_kind(path, de, &dir, &link);
		if (dir || link) {
			subs = xreallocarray(subs, n + 1, sizeof *subs);
			linked = xreallocarray(linked, n + 1, sizeof *linked);
			linked[n] = link;
			subs[n++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	char *here = xstrdup(path->buf);
	for (size_t i = 0; i < n; i++) {
		if (rc != 1) {
			size_t base = path->len;
			if (base == 0 || path->buf[base - 1] != '/')
				strbuf_addc(path, '/');
			strbuf_adds(path, subs[i]);
			if (watch_tree(w, path, scan ? scan : linked[i] ? here : NULL) == 1)
				rc = 1;
			path->len = base;
			path->buf[base] = '\0';
		}
		free(subs[i]);
	}
	free(here);
	free(subs);
	free(linked);
	return rc;
}

static int add_tree(struct mlib_watch *w, const char *dir, const char *scan)
{
	struct strbuf p;
	strbuf_init(&p, PATH_MAX);
	strbuf_adds(&p, dir);
	int rc = watch_tree(w, &p, scan);
	strbuf_free(&p);
	if (rc == 1)
		w->limited = true;
	return rc;
}

/* Forget the watches of dir and everything under it. */
static void drop_tree(struct mlib_watch *w, const char *dir, bool rm)
{
	for (size_t i = 0; i < w->nwd; i++)
		if (w->wd_path[i] && under(dir, w->wd_path[i])) {
			if (rm)
				inotify_rm_watch(w->fd, (int)i);
			free(w->wd_path[i]);
			free(w->wd_scan[i]);
			w->wd_path[i] = w->wd_scan[i] = NULL;
			w->watched--;
		}
}

int mlib_watch_add_root(struct mlib_watch *w, const char *root, struct crate_err *err)
{
	struct stat st;
	if (stat(root, &st) != 0)
		return crate_err_set(err, CRATE_ERR_IO, "%s: %s", root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return crate_err_set(err, CRATE_ERR_INVALID, "%s: not a folder", root);
	bool known = false;
	for (size_t i = 0; i < w->nroots && !known; i++)
		known = strcmp(w->roots[i], root) == 0;
	if (!known) {
		w->roots = xreallocarray(w->roots, w->nroots + 1, sizeof *w->roots);
		w->roots[w->nroots++] = xstrdup(root);
	}
	int rc = add_tree(w, root, NULL);
	if (rc == 1) {
		limit_message(err);
		return 1;
	}
	if (rc < 0)
		return crate_err_set(err, CRATE_ERR_IO, "%s: cannot watch it: %s", root,
				     strerror(errno));
	return 0;
}

size_t mlib_watch_root_count(const struct mlib_watch *w)
{
	return w->nroots;
}

const char *mlib_watch_root(const struct mlib_watch *w, size_t i)
{
	return i < w->nroots ? w->roots[i] : NULL;
}

bool mlib_watch_has_root(const struct mlib_watch *w, const char *root)
{
	for (size_t i = 0; i < w->nroots; i++)
		if (strcmp(w->roots[i], root) == 0)
			return true;
	return false;
}

void mlib_watch_remove_root(struct mlib_watch *w, const char *root)
{
	drop_tree(w, root, true);
	for (size_t i = 0; i < w->nroots; i++)
		if (strcmp(w->roots[i], root) == 0) {
			free(w->roots[i]);
			w->roots[i] = w->roots[--w->nroots];
			break;
		}
}

/* ---- events ---- */

static bool is_watched(const struct mlib_watch *w, const char *dir)
{
	for (size_t i = 0; i < w->nwd; i++)
		if (w->wd_path[i] && strcmp(w->wd_path[i], dir) == 0)
			return true;
	return false;
}

static void changed(struct mlib_watch *w, const char *dir)
{
	strset_add(&w->changed, dir);
	w->last_event = now_ms();
}

static void handle(struct mlib_watch *w, const struct inotify_event *ev)
{
	if (ev->mask & IN_Q_OVERFLOW) {
		/* Events were lost: every root is looked at again. */
		for (size_t i = 0; i < w->nroots; i++)
			changed(w, w->roots[i]);
		return;
	}
	if (ev->wd < 0 || (size_t)ev->wd >= w->nwd || !w->wd_path[ev->wd])
		return;
	const char *dir = w->wd_path[ev->wd];
	if (ev->mask & IN_IGNORED) {
		/* The kernel dropped the watch (folder deleted, unmounted). */
		free(w->wd_path[ev->wd]);
		free(w->wd_scan[ev->wd]);
		w->wd_path[ev->wd] = w->wd_scan[ev->wd] = NULL;
		w->watched--;
		return;
	}
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
		/* The folder itself went away. Its parent's event says so (and
		 * the parent is what to scan); a root has no watched parent, and
		 * nothing watches for it to come back (a disk mounted again, the
		 * folder made again): the caller rescans. */
		if (mlib_watch_has_root(w, dir)) {
			changed(w, dir);
			w->root_lost = true;
			if (ev->mask & IN_MOVE_SELF) {
				/* Its watches follow it elsewhere, under the old names. */
				char *root = xstrdup(dir);
				drop_tree(w, root, true);
				free(root);
			}
		}
		return;
	}
	if (!ev->len || ev->name[0] == '.')
		return; /* a hidden name is not scanned: nothing changed (rsync's
			 * temporary copy counts when it is renamed) */
	char *full = xasprintf("%s/%s", dir, ev->name);
	const char *scan = w->wd_scan[ev->wd]; /* reached through a link */
	struct stat st;
	if (!(ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO)) &&
	    lstat(full, &st) == 0 && S_ISLNK(st.st_mode) && stat(full, &st) == 0 &&
	    S_ISDIR(st.st_mode)) {
		/* A new link to a folder: watched as the ones found at the start. */
		if (add_tree(w, full, scan ? scan : dir) == 1)
			w->limited = true;
	}
	if (ev->mask & IN_ISDIR) {
		if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
			if (add_tree(w, full, scan) == 1)
				w->limited = true;
		} else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
			/* Moved away: its watches would report under the old name. */
			drop_tree(w, full, (ev->mask & IN_MOVED_FROM) != 0);
		} else if ((ev->mask & IN_ATTRIB) && !is_watched(w, full)) {
			/* Its permissions changed: a folder that could not be
			 * read, so not watched, may be readable now. */
			if (add_tree(w, full, scan) == 1)
				w->limited = true;
		}
	} else if (ev->mask & IN_MODIFY) {
		/* Data written: wait for the writer to close it. (IN_CREATE
		 * alone is not writing: links and sockets are never closed.) */
		strset_add(&w->writing, full);
	} else if (ev->mask & (IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)) {
		strset_del(&w->writing, full);
		/* A link removed: the folder it led to stays, unwatched now. */
		if (w->linked && (ev->mask & (IN_DELETE | IN_MOVED_FROM)))
			drop_tree(w, full, true);
	}
	changed(w, scan ? scan : dir);
	free(full);
}

int mlib_watch_read(struct mlib_watch *w)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	int n = 0;
	for (;;) {
		ssize_t len = read(w->fd, buf, sizeof buf);
		if (len <= 0)
			break;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			handle(w, ev);
			n++;
			p += sizeof *ev + ev->len;
		}
	}
	return n;
}

int mlib_watch_due_in(const struct mlib_watch *w)
{
	if (!w->changed.n)
		return -1;
	double quiet = (double)w->quiet_ms;
	/* A file being written: wait for it to be closed (bounded). */
	if (w->writing.n)
		quiet = WRITING_MAX_MS;
	double left = w->last_event + quiet - now_ms();
	if (left <= 0)
		return 0;
	return (int)left + 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **mlib_watch_take(struct mlib_watch *w, size_t *n)
{
	*n = 0;
	if (mlib_watch_due_in(w) != 0)
		return NULL;
	char **v = w->changed.v;
	size_t k = w->changed.n;
	memset(&w->changed, 0, sizeof w->changed);
	strset_clear(&w->writing);
	qsort(v, k, sizeof *v, cmp_str);
	/* Sorted, a folder under another follows it (or one of its own). */
	size_t out = 0;
	for (size_t i = 0; i < k; i++) {
		if (out && under(v[out - 1], v[i])) {
			free(v[i]);
			continue;
		}
		v[out++] = v[i];
	}
	*n = out;
	return v;
}

void mlib_watch_mark_changed(struct mlib_watch *w, const char *dir)
{
	changed(w, dir);
}

bool mlib_watch_limited(const struct mlib_watch *w)
{
	return w->limited;
}

bool mlib_watch_take_root_lost(struct mlib_watch *w)
{
	bool lost = w->root_lost;
	w->root_lost = false;
	return lost;
}

size_t mlib_watch_count(const struct mlib_watch *w)
{
	return w->watched;
}
