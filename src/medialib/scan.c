/* The scanner.
 *
 * 1. Load (url, size, mtime, missing) of every known row in one query into
 *    a hash table, so unchanged files are recognised by a stat alone.
 * 2. Walk the roots (sorted names, so ids follow directory order), keeping
 *    only new and changed files as jobs.
 * 3. Worker threads read tags (FFmpeg/TagLib) of the jobs; the scanning
 *    thread consumes results in job order and writes them in transactions
 *    of `batch` files or one second, whichever comes first: a kill -9 loses
 *    at most the open transaction.
 * 4. Known rows under a scanned root that the walk did not see are marked
 *    missing (except under directories that could not be read) — unless a
 *    new file of the same size and modification time was found (a move or
 *    rename, which keeps mtime): that row takes the new path and keeps its
 *    id, statistics and places in playlists. */
#include "medialib/scan.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/hashtab.h"
#include "base/str.h"
#include "medialib/media.h"
#include "medialib/roots.h"
#include "medialib/scan_cue.h"
#include "medialib/tags.h"

/* ---- known rows: a hash table keyed by url bytes ---- */

struct known {
	char *url;
	size_t len;
	uint32_t id;
	int64_t size, mtime;
	long mtime_nsec; /* -1: not stored (written by an older crate) */
	int cue_beside;  /* a cue track: its sheet is beside the file (1) or its tag (0); -1 unknown */
	bool missing, seen;
	bool cue;       /* a cue sheet's track: url is "FILE#N" */
	size_t baselen; /* cue: the length of FILE */
};

struct known_set {
	struct known *v;
	size_t n, cap;
	struct hashtab by_url;  /* into v */
	struct hashtab by_base; /* cue tracks, by the url of their file */
};

#define MAX_CUE_ROWS 256 /* rows of one file's tracks looked at (a sheet has at most 99) */

static void known_add(struct known_set *k, const struct known *e)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 1024;
		k->v = xreallocarray(k->v, k->cap, sizeof *k->v);
	}
	k->v[k->n] = *e;
	hashtab_insert(&k->by_url, hash_bytes(e->url, e->len), (uint32_t)k->n);
	if (e->cue)
		hashtab_insert(&k->by_base, hash_bytes(e->url, e->baselen), (uint32_t)k->n);
	k->n++;
}

static struct known *known_find(struct known_set *k, const char *url, size_t len)
{
	struct hashtab_probe p = hashtab_probe(&k->by_url, hash_bytes(url, len));
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;) {
		struct known *e = &k->v[i];
		if (e->len == len && memcmp(e->url, url, len) == 0)
			return e;
	}
	return NULL;
}

/* The cue track rows of the file at url (at most max of them). */
static size_t known_cue_rows(struct known_set *k, const char *url, size_t len,
			     struct known **out, size_t max)
{
	size_t n = 0;
	struct hashtab_probe p = hashtab_probe(&k->by_base, hash_bytes(url, len));
	for (uint32_t i; n < max && (i = hashtab_next(&p)) != HASHTAB_NONE;) {
		struct known *e = &k->v[i];
		if (e->baselen == len && memcmp(e->url, url, len) == 0)
			out[n++] = e;
	}
	return n;
}

/* k's file moved: its url is url now (owned), found by it from now on
 * (the entries under the old url no longer compare equal). */
static void known_set_url(struct known_set *ks, struct known *k, char *url, size_t len,
			  size_t baselen)
{
	free(k->url);
	k->url = url;
	k->len = len;
	k->baselen = baselen;
	uint32_t i = (uint32_t)(k - ks->v);
	hashtab_insert(&ks->by_url, hash_bytes(url, len), i);
	if (k->cue)
		hashtab_insert(&ks->by_base, hash_bytes(url, baselen), i);
}

static void known_free(struct known_set *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].url);
	free(k->v);
	hashtab_free(&k->by_url);
	hashtab_free(&k->by_base);
	memset(k, 0, sizeof *k);
}

static int known_load(struct mlib_db *db, struct known_set *k, struct crate_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db),
			       "SELECT id, url, filesize, mtime, missing, cue_start IS NOT NULL,"
			       " ifnull(mtime_nsec, -1), ifnull(cue_beside, -1) FROM media", -1, &st,
			       NULL) != SQLITE_OK)
		return mlib_db_error(db, "cannot read the library", err);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct known e = {0};
		e.id = (uint32_t)sqlite3_column_int64(st, 0);
		const void *u = sqlite3_column_blob(st, 1);
		e.len = (size_t)sqlite3_column_bytes(st, 1);
		e.url = xmalloc(e.len + 1);
		if (e.len)
			memcpy(e.url, u, e.len);
		e.url[e.len] = '\0';
		e.size = sqlite3_column_int64(st, 2);
		e.mtime = sqlite3_column_int64(st, 3);
		e.missing = sqlite3_column_int(st, 4) != 0;
		e.cue = sqlite3_column_int(st, 5) != 0;
		e.mtime_nsec = (long)sqlite3_column_int64(st, 6);
		e.cue_beside = sqlite3_column_int(st, 7);
		const char *hash = e.cue ? memrchr(e.url, '#', e.len) : NULL;
		e.cue = hash != NULL;
		e.baselen = hash ? (size_t)(hash - e.url) : 0;
		known_add(k, &e);
	}
	return mlib_db_finish(db, st, rc, "cannot read the library", err);
}

/* ---- visited directories: (dev, ino) set ---- */

struct dir_key {
	dev_t dev;
	ino_t ino;
};

struct dir_set {
	struct dir_key *v;
	size_t n, cap;
	struct hashtab index; /* into v */
};

static uint32_t dir_key_hash(struct dir_key k)
{
	uint64_t words[2] = {(uint64_t)k.dev, (uint64_t)k.ino}; /* no padding bytes hashed */
	return hash_bytes(words, sizeof words);
}

static bool dir_set_has(const struct dir_set *s, struct dir_key k)
{
	struct hashtab_probe p = hashtab_probe(&s->index, dir_key_hash(k));
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (s->v[i].ino == k.ino && s->v[i].dev == k.dev)
			return true;
	return false;
}

static bool dir_set_add(struct dir_set *s, struct dir_key k) /* false if present */
{
	if (dir_set_has(s, k))
		return false;
	uint32_t h = dir_key_hash(k);
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	s->v[s->n] = k;
	hashtab_insert(&s->index, h, (uint32_t)s->n++);
	return true;
}

/* ---- the scan state ---- */

struct job {
	char *path; /* owned */
	size_t len;
	int64_t size, mtime;
	long mtime_nsec;
	struct known *known; /* NULL for a new file; for a file split by its cue sheet,
			      * one of its tracks */
	bool moved;          /* known was found at another path: take this one */
	struct mlib_tags tags;
	struct scan_cue cue; /* its cue sheet, read with the tags */
	bool cue_beside;     /* its folder holds a *.cue (the walk's dir_has_cue) */
	struct crate_err err;
	int rc;
	bool done;
};

/* A link to a file, judged after the walk (see visit_links). */
struct file_link {
	char *path; /* owned: the link's own path */
	struct stat st; /* its target's */
};

struct scan {
	struct mlib_db *db;
	const struct mlib_scan_opts *opts;
	struct mlib_scan_result *res;
	struct known_set known;
	struct dir_set dirs;
	struct dir_key *stack; /* ancestors of the directory being walked */
	size_t nstack, capstack;
	char **bad_dirs; /* directories that could not be read: nothing under them goes missing */
	size_t nbad;
	struct file_link *links; /* links to files the walk found */
	size_t nlinks;
	char **lib_roots; /* owned: the stored roots and this scan's (canonical) */
	size_t nlib_roots;
	char **roots;          /* this scan's paths, absolute (NULL: unknown) */
	size_t nroots;
	struct hashtab root_set; /* into roots: a row's folders are looked up, not compared
				  * with each root (a plain rescan names every file given
				  * by name) */
	bool root_slash;       /* one of them is "/" */
	struct job *jobs;
	size_t njobs, capjobs;
	struct timespec t0, last_report;
	/* worker pool */
	pthread_mutex_t mu;
	pthread_cond_t job_done, window_moved;
	size_t next_job, consumed;
	bool stop;
	const char *db_path; /* crate's own files are never scanned */
	bool dir_has_cue;    /* the folder being walked holds a *.cue: look for sheets */
	char *cue_dir;       /* the folder of the last root that is a file, and */
	bool cue_dir_has;    /* whether it holds a *.cue (files given by name share it) */
	/* Written but not committed yet: counted in totals at the commit. */
	uint64_t pend_added, pend_updated, pend_missing;
};

#define WINDOW 512 /* workers run at most this far ahead of the writer */

static double since(const struct timespec *a)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

static bool cancelled(const struct scan *s)
{
	return s->opts->cancel && atomic_load(s->opts->cancel);
}

static void report(struct scan *s, bool force)
{
	struct mlib_scan_progress *p = &s->res->totals;
	p->elapsed = since(&s->t0);
	/* Files dealt with: those needing no read, plus those read. */
	uint64_t done = p->seen - p->to_read + p->read;
	p->files_per_sec = p->elapsed > 0 ? (double)done / p->elapsed : 0;
	if (!s->opts->progress)
		return;
	int ms = s->opts->progress_ms > 0 ? s->opts->progress_ms : 200;
	if (!force && since(&s->last_report) * 1000 < ms)
		return;
	clock_gettime(CLOCK_MONOTONIC, &s->last_report);
	s->opts->progress(s->opts->ud, p);
}

/* msg is "<path>: <reason>" from the layer that failed; the reason is
 * kept apart so a long path never cuts it off in a list. */
static void add_error(struct scan *s, const char *path, const char *msg, bool folder)
{
	struct mlib_scan_result *r = s->res;
	size_t pl = strlen(path);
	const char *reason = strncmp(msg, path, pl) == 0 && msg[pl] == ':' && msg[pl + 1] == ' '
				     ? msg + pl + 2 : msg;
	r->errors = xreallocarray(r->errors, r->nerrors + 1, sizeof *r->errors);
	struct mlib_scan_error *e = &r->errors[r->nerrors++];
	e->path = xstrdup(path);
	e->reason = xstrdup(reason);
	e->msg = xasprintf("%s: %s", path, e->reason);
	e->folder = folder;
	if (folder)
		r->totals.folders_failed++;
	else
		r->totals.failed++;
}

/* A cue sheet that cannot be used: listed like a failed file, counted
 * apart (its audio file is indexed whole, and counted as such). */
static void add_cue_error(struct scan *s, const struct job *j)
{
	const char *path = j->cue.path ? j->cue.path : j->path;
	char *msg = xasprintf("%s (the audio file is indexed as one item)", j->cue.err.msg);
	add_error(s, path, msg, false);
	free(msg);
	s->res->totals.failed--;
	s->res->totals.cue_failed++;
	s->res->errors[s->res->nerrors - 1].cue = 1;
}

/* The end of path (at most size-1 bytes, cut at a character boundary). */
static void set_current(struct scan *s, const char *path, size_t len)
{
	char *cur = s->res->totals.current;
	size_t size = sizeof s->res->totals.current;
	const char *from = path;
	if (len >= size) {
		from = path + len - (size - 1);
		while (from < path + len && ((unsigned char)*from & 0xC0) == 0x80)
			from++;
	}
	size_t n = (size_t)(path + len - from);
	memcpy(cur, from, n);
	cur[n] = '\0';
}

static bool ext_in(const char *name, const char *const *ext, size_t n)
{
	const char *dot = strrchr(name, '.');
	if (!dot)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(dot + 1, ext[i]) == 0)
			return true;
	return false;
}

/* Files that are never audio: counted as ignored without being opened, so
 * an album folder with cover.jpg, a cue sheet and notes scans clean. */
static bool ignored_name(const char *name)
{
	static const char *const ext[] = {
		"jpg", "jpeg", "png", "gif", "bmp", "webp", "tif", "tiff", "svg", "ico", "heic",
		"cue", "m3u", "m3u8", "pls", "xspf", "wpl", "nfo", "log", "sfv", "md5", "ffp",
		"accurip", "pdf", "txt", "md", "htm", "html", "xml", "json", "csv", "rtf", "doc",
		"docx", "odt", "url", "ini", "lrc", "db", "db-wal", "db-shm", "db-journal",
		"sqlite", "sqlite3", "index", "checked", "tmp", "part", "crdownload",
	};
	/* crate's own files: library.db, -wal, -shm, .index, .index.tmp.*, .checked */
	return ext_in(name, ext, sizeof ext / sizeof ext[0]) || strstr(name, ".db.index") ||
	       strcmp(name, ".DS_Store") == 0 || strcmp(name, "Thumbs.db") == 0;
}

/* Names that say "audio": such a file that cannot be read is a failure; a
 * file with another name that is not audio by content is only ignored. */
static bool audio_name(const char *name)
{
	static const char *const ext[] = {
		"mp3", "mp2", "mp1", "mpa", "flac", "fla", "ogg", "oga", "opus", "spx", "m4a",
		"m4b", "m4p", "mp4", "aac", "adts", "wav", "wave", "w64", "aif", "aiff", "aifc",
		"wma", "asf", "wv", "ape", "mpc", "mp+", "mka", "webm", "ac3", "eac3", "dts",
		"tta", "alac", "caf", "au", "snd", "dsf", "dff", "amr", "3gp", "mid", "midi",
		"mod", "xm", "it", "s3m", "tak", "ofr", "ra", "rm", "weba",
	};
	return ext_in(name, ext, sizeof ext / sizeof ext[0]);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The database itself, whatever its name: path, path-wal, path.index... */
static bool own_file(const struct scan *s, const char *path)
{
	size_t n = s->db_path ? strlen(s->db_path) : 0;
	return n && strncmp(path, s->db_path, n) == 0 &&
	       (path[n] == '\0' || path[n] == '-' || path[n] == '.');
}

/* A file that could not be looked at or read: a failure if it is audio by
 * name (or already in the library), else only ignored. */
static void file_problem(struct scan *s, const char *path, const char *msg, bool known)
{
	if (known || audio_name(base_name(path)))
		add_error(s, path, msg, false);
	else
		s->res->totals.ignored++;
}

static void file_problem_str(struct scan *s, const char *path, const char *reason)
{
	char *msg = xasprintf("%s: %s", path, reason);
	file_problem(s, path, msg, false);
	free(msg);
}

/* A link to a folder that contains it: MPD and cmus skip such a link
 * without a word, and everything below it is walked at its own place;
 * the user hears of it, but it fails nothing. */
static void add_note(struct scan *s, const char *path, const char *reason)
{
	struct mlib_scan_result *r = s->res;
	r->notes = xreallocarray(r->notes, r->nnotes + 1, sizeof *r->notes);
	r->notes[r->nnotes].path = xstrdup(path);
	r->notes[r->nnotes++].reason = xstrdup(reason);
}

static void folder_problem(struct scan *s, const char *path, const char *reason)
{
	char *msg = xasprintf("%s: %s", path, reason);
	add_error(s, path, msg, true);
	free(msg);
}

/* A path given to the scan that is not there: not an unreadable folder
 * but a root that went (deleted, renamed, a disk not mounted), said so. */
static void root_gone(struct scan *s, const char *path)
{
	folder_problem(s, path, "No such file or directory (deleted, renamed, or on a disk "
				"that is not mounted)");
	s->res->totals.folders_failed--;
	s->res->totals.roots_gone++;
}

/* path (absolute) is the url of a row, or the file of cue track rows. */
static bool known_file(struct scan *s, const char *path)
{
	struct known *row;
	size_t len = strlen(path);
	return known_find(&s->known, path, len) || known_cue_rows(&s->known, path, len, &row, 1);
}

/* A file's cue sheet beside it: its mtime counts as the file's (an edited
 * sheet is a changed file). */
static bool sibling_cue(const struct scan *s, const char *path, struct timespec *mtime)
{
	char *cue = NULL;
	struct timespec cm;
	if (!s->dir_has_cue || !scan_cue_sibling(path, &cue, &cm))
		return false;
	free(cue);
	if (cm.tv_sec > mtime->tv_sec || (cm.tv_sec == mtime->tv_sec && cm.tv_nsec > mtime->tv_nsec))
		*mtime = cm;
	return true;
}

/* The row's mtime is the file's: to the nanosecond, so a file written again
 * within the second of its last scan is a changed file; in seconds for a
 * row stored without them. */
static bool same_mtime(const struct known *k, const struct timespec *mtime)
{
	return k->mtime == (int64_t)mtime->tv_sec &&
	       (k->mtime_nsec < 0 || k->mtime_nsec == mtime->tv_nsec);
}

/* The sheet is where it was: beside the file, or in its tag. A whole file
 * is read again when a sheet is beside it (new, or bad before); a split
 * one when its sheet went (deleted, even older than the audio) or came
 * beside its tag's; a split stored before crate kept this, once its sheet
 * is not beside it. */
static bool same_sheet(const struct known *k, bool sibling)
{
	if (!k->cue)
		return !sibling;
	return k->cue_beside < 0 ? sibling : k->cue_beside == sibling;
}

static void visit_file(struct scan *s, const char *path, const struct stat *st)
{
	struct mlib_scan_progress *p = &s->res->totals;
	size_t len = strlen(path);
	struct known *k = known_find(&s->known, path, len);
	struct known *rows[MAX_CUE_ROWS];
	size_t nrows = known_cue_rows(&s->known, path, len, rows, MAX_CUE_ROWS);
	if ((k && k->seen) || (nrows && rows[0]->seen))
		return; /* reached twice (two roots, or a link): one row, counted once */
	p->seen++;
	struct timespec mtime = st->st_mtim;
	bool sibling = sibling_cue(s, path, &mtime);
	/* The row that tells whether the file changed: a present track of
	 * its cue sheet, else the whole file's row. */
	struct known *rep = NULL;
	for (size_t i = 0; i < nrows; i++) {
		rows[i]->seen = true;
		if (!rep && !rows[i]->missing)
			rep = rows[i];
	}
	if (k)
		k->seen = true;
	if (!rep)
		rep = k;
	k = rep;
	if (k) {
		if (!k->missing && k->size == (int64_t)st->st_size && same_mtime(k, &mtime) &&
		    same_sheet(k, sibling)) {
			p->unchanged++;
			return;
		}
	}
	if (s->njobs == s->capjobs) {
		s->capjobs = s->capjobs ? s->capjobs * 2 : 1024;
		s->jobs = xreallocarray(s->jobs, s->capjobs, sizeof *s->jobs);
	}
	struct job *j = &s->jobs[s->njobs++];
	memset(j, 0, sizeof *j);
	j->path = xstrdup(path);
	j->len = len;
	j->size = st->st_size;
	j->mtime = (int64_t)mtime.tv_sec;
	j->mtime_nsec = mtime.tv_nsec;
	j->known = k;
	j->cue_beside = s->dir_has_cue;
	mlib_tags_init(&j->tags);
	p->to_read++;
}

/* Whether the folder of path (a root that may be a file) holds a *.cue,
 * as walk_dir tells for the files it meets. Asked once per folder in a
 * row: a plain rescan names the files given by name, sorted, and looking
 * through the folder for each of its files took time in its square. */
static bool root_folder_has_cue(struct scan *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	if (s->cue_dir && strcmp(s->cue_dir, dir) == 0) {
		free(dir);
		return s->cue_dir_has;
	}
	static const char *const cue_ext[] = {"cue"};
	bool has = false;
	DIR *d = opendir(dir);
	for (struct dirent *de; d && !has && (de = readdir(d));)
		has = de->d_name[0] != '.' && ext_in(de->d_name, cue_ext, 1);
	if (d)
		closedir(d);
	free(s->cue_dir);
	s->cue_dir = dir;
	s->cue_dir_has = has;
	return has;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void mark_bad_dir(struct scan *s, const char *path)
{
	s->bad_dirs = xreallocarray(s->bad_dirs, s->nbad + 1, sizeof *s->bad_dirs);
	s->bad_dirs[s->nbad++] = xstrdup(path);
}

static void walk_dir(struct scan *s, struct strbuf *path, const struct stat *dst);

/* The library's folders: the roots stored (the scan of one root must not
 * take another one's folders in through a link) and this scan's. */
static void library_roots(struct scan *s, char *const *roots, size_t nroots)
{
	char **stored = NULL;
	size_t nstored = 0;
	struct crate_err err = {0};
	if (mlib_roots_list(s->db, &stored, &nstored, &err) != 0)
		nstored = 0; /* only this scan's then */
	s->lib_roots = xcalloc(nstored + nroots + 1, sizeof *s->lib_roots);
	for (size_t i = 0; i < nstored; i++)
		s->lib_roots[s->nlib_roots++] = xstrdup(stored[i]);
	for (size_t i = 0; i < nroots; i++)
		if (roots[i])
			s->lib_roots[s->nlib_roots++] = xstrdup(roots[i]);
	mlib_roots_free(stored, nstored);
}

static bool under_prefix(const char *url, size_t len, const char *root);

/* real (canonical) is a folder the library walks at its own place: under
 * a root, by no hidden name below it. */
static bool in_library(const struct scan *s, const char *real)
{
	size_t len = strlen(real);
	for (size_t i = 0; i < s->nlib_roots; i++) {
		const char *r = s->lib_roots[i];
		if (!under_prefix(real, len, r))
			continue;
		size_t rl = strcmp(r, "/") == 0 ? 0 : strlen(r);
		if (!strstr(real + rl, "/."))
			return true;
	}
	return false;
}

/* A link to a folder that is walked at its own place (inside a root):
 * not followed, so its files are one item each, at their real path,
 * whichever root a scan starts from (they were a second item under the
 * link, and a scan of either root marked the other's missing). A link to
 * a folder containing it is said (a symlink loop); one to a folder
 * outside the roots is followed. */
static bool link_into_library(struct scan *s, const char *path, const struct stat *st)
{
	for (size_t i = 0; i < s->nstack; i++)
		if (s->stack[i].dev == st->st_dev && s->stack[i].ino == st->st_ino)
			return false; /* walk_dir says it is a loop */
	char *real = realpath(path, NULL);
	bool inside = real && in_library(s, real);
	free(real);
	return inside;
}

static void defer_link(struct scan *s, const char *path, const struct stat *st)
{
	s->links = xreallocarray(s->links, s->nlinks + 1, sizeof *s->links);
	s->links[s->nlinks].path = xstrdup(path);
	s->links[s->nlinks++].st = *st;
}

/* lstat, then stat through a link: *link says which it was. */
static int stat_entry(const char *path, struct stat *st, bool *link)
{
	*link = false;
	if (lstat(path, st) != 0)
		return -1;
	if (!S_ISLNK(st->st_mode))
		return 0;
	*link = true;
	return stat(path, st);
}

/* One directory entry (or a root): path->buf is its path. */
static void walk_entry(struct scan *s, struct strbuf *path, bool root)
{
	struct mlib_scan_progress *p = &s->res->totals;
	struct stat st;
	bool via_link;
	if (stat_entry(path->buf, &st, &via_link) != 0) {
		int e = errno;
		struct stat lst;
		bool link = lstat(path->buf, &lst) == 0 && S_ISLNK(lst.st_mode);
		const char *why = !link ? strerror(e) : e == ELOOP ? "symlink loop"
							  : "broken symbolic link";
		if (root) {
			folder_problem(s, path->buf, why);
		} else {
			p->seen++;
			file_problem_str(s, path->buf, why);
		}
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		if (!(via_link && !root && link_into_library(s, path->buf, &st)))
			walk_dir(s, path, &st);
	} else if (S_ISREG(st.st_mode)) {
		if (ignored_name(base_name(path->buf)) || own_file(s, path->buf)) {
			p->seen++;
			p->ignored++;
		} else if (via_link && !root) {
			defer_link(s, path->buf, &st);
		} else {
			visit_file(s, path->buf, &st);
		}
	} else {
		/* FIFOs, sockets, devices are never opened (a FIFO would block):
		 * ignored, unless the name says audio. */
		p->seen++;
		file_problem_str(s, path->buf, S_ISFIFO(st.st_mode) ? "not a regular file (a FIFO)"
								    : "not a regular file");
	}
	report(s, false);
}

static void walk_dir(struct scan *s, struct strbuf *path, const struct stat *dst)
{
	struct dir_key key = {dst->st_dev, dst->st_ino};
	for (size_t i = 0; i < s->nstack; i++)
		if (s->stack[i].dev == key.dev && s->stack[i].ino == key.ino) {
			add_note(s, path->buf, "a link to a folder that contains it (a symlink loop): "
					       "not followed");
			return;
		}
	if (!dir_set_add(&s->dirs, key))
		return; /* already walked through another link: its files are there */
	set_current(s, path->buf, path->len);
	DIR *d = opendir(path->buf);
	if (!d) {
		folder_problem(s, path->buf, strerror(errno));
		mark_bad_dir(s, path->buf);
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		/* Hidden names (and . and ..) are not the library's, as for MPD,
		 * cmus and beets: a drive's .Trash-1000, Syncthing's .stversions,
		 * macOS's ._ files, rsync's temporary copies. A hidden root given
		 * to the scan is walked all the same. */
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = xreallocarray(names, cap, sizeof *names);
		}
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1) /* an empty directory has names == NULL: qsort(NULL, 0) is undefined */
		qsort(names, n, sizeof *names, cmp_names);
	if (s->nstack == s->capstack) {
		s->capstack = s->capstack ? s->capstack * 2 : 32;
		s->stack = xreallocarray(s->stack, s->capstack, sizeof *s->stack);
	}
	s->stack[s->nstack++] = key;
	size_t base = path->len;
	static const char *const cue_ext[] = {"cue"};
	bool has_cue = false;
	for (size_t i = 0; i < n && !has_cue; i++)
		has_cue = ext_in(names[i], cue_ext, 1);
	for (size_t i = 0; i < n; i++) {
		if (!cancelled(s)) {
			if (base == 0 || path->buf[base - 1] != '/')
				strbuf_addc(path, '/');
			strbuf_adds(path, names[i]);
			s->dir_has_cue = has_cue; /* a subfolder walked before set its own */
			walk_entry(s, path, false);
			path->len = base;
			path->buf[base] = '\0';
		}
		free(names[i]);
	}
	free(names);
	s->nstack--;
}

/* The file a link names is in the library at its own place: in a folder
 * this scan walked (under any name), or a present row of its real path.
 * The link is then no second item, as a link to a folder is not walked
 * twice (MPD would list the song twice; `crate info LINK` already names
 * the target's item). */
static bool link_target_kept(struct scan *s, const char *link)
{
	char *real = realpath(link, NULL);
	if (!real)
		return false;
	bool kept = false;
	const char *name = base_name(real);
	size_t len = strlen(real);
	struct known *k = known_find(&s->known, real, len), *rows[1];
	if ((k && !k->missing) || known_cue_rows(&s->known, real, len, rows, 1)) {
		kept = true;
	} else if (name[0] != '.' && name > real) {
		real[name - real > 1 ? name - real - 1 : 1] = '\0';
		struct stat dst;
		if (stat(real, &dst) == 0) {
			struct dir_key key = {dst.st_dev, dst.st_ino};
			kept = dir_set_has(&s->dirs, key);
		}
	}
	free(real);
	return kept;
}

/* Links to files, after the walk, so that the order of names does not
 * decide: one to a file the library has elsewhere is skipped; the others
 * (a file outside every root) are items of their own, at the link's path,
 * once per file however many links name it. */
static void visit_links(struct scan *s)
{
	struct dir_set targets = {0};
	/* A link stored before keeps its item: it is looked at first. */
	for (int stored = 1; stored >= 0; stored--)
		for (size_t i = 0; i < s->nlinks; i++) {
			struct file_link *l = &s->links[i];
			struct dir_key key = {l->st.st_dev, l->st.st_ino};
			if ((known_find(&s->known, l->path, strlen(l->path)) != NULL) != stored)
				continue;
			if (!cancelled(s) && !link_target_kept(s, l->path) &&
			    dir_set_add(&targets, key))
				visit_file(s, l->path, &l->st);
		}
	for (size_t i = 0; i < s->nlinks; i++)
		free(s->links[i].path);
	free(s->links);
	s->links = NULL;
	s->nlinks = 0;
	free(targets.v);
	hashtab_free(&targets.index);
}

/* ---- workers ---- */

static void *worker_main(void *arg)
{
	struct scan *s = arg;
	int timeout = s->opts->timeout_ms > 0 ? s->opts->timeout_ms : 5000;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->stop && s->next_job < s->njobs && s->next_job >= s->consumed + WINDOW)
			pthread_cond_wait(&s->window_moved, &s->mu);
		if (s->stop || s->next_job >= s->njobs)
			break;
		struct job *j = &s->jobs[s->next_job++];
		pthread_mutex_unlock(&s->mu);
		j->rc = mlib_tags_read(j->path, timeout, &j->tags, &j->err);
		if (j->rc == 0)
			scan_cue_read(j->path, &j->tags, j->cue_beside, &j->cue);
		pthread_mutex_lock(&s->mu);
		j->done = true;
		pthread_cond_broadcast(&s->job_done);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static int nthreads(const struct mlib_scan_opts *o)
{
	if (o->threads > 0)
		return o->threads;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 4 ? 4 : (int)n;
}

/* ---- writing ---- */

struct writer {
	struct mlib_media_writer *w;
	bool in_tx;
	size_t in_batch;
	struct timespec tx_start;
};

static int tx_ensure(struct scan *s, struct writer *wr, struct crate_err *err)
{
	if (wr->in_tx)
		return 0;
	if (mlib_db_begin(s->db, err) != 0)
		return -1;
	wr->in_tx = true;
	wr->in_batch = 0;
	clock_gettime(CLOCK_MONOTONIC, &wr->tx_start);
	return 0;
}

/* Counts of the open transaction: stored when it commits, lost when not. */
static void pending_settle(struct scan *s, bool stored)
{
	struct mlib_scan_progress *p = &s->res->totals;
	if (stored) {
		p->added += s->pend_added;
		p->updated += s->pend_updated;
		p->missing += s->pend_missing;
	}
	s->pend_added = s->pend_updated = s->pend_missing = 0;
}

static int tx_maybe_commit(struct scan *s, struct writer *wr, bool force, struct crate_err *err)
{
	if (!wr->in_tx)
		return 0;
	size_t batch = s->opts->batch > 0 ? (size_t)s->opts->batch : 500;
	if (!force && wr->in_batch < batch && since(&wr->tx_start) < 1.0)
		return 0;
	wr->in_tx = false;
	if (mlib_db_commit(s->db, err) != 0) {
		/* SQLite rolled back (or will with the connection): nothing of
		 * this transaction is stored. */
		mlib_db_rollback(s->db, NULL);
		pending_settle(s, false);
		return -1;
	}
	pending_settle(s, true);
	return 0;
}

/* Rows of j's file that are not what it is now: marked missing (kept
 * with their ids and statistics for when they return). The whole file's
 * row unless keep_whole; the cue tracks not among keep (a sheet that
 * lost tracks, or that is gone or bad). */
static int retire_rows(struct scan *s, struct writer *wr, const struct job *j, bool keep_whole,
		       const uint32_t *keep, size_t nkeep, struct crate_err *err)
{
	struct known *rows[MAX_CUE_ROWS + 1];
	size_t n = known_cue_rows(&s->known, j->path, j->len, rows, MAX_CUE_ROWS);
	struct known *whole = known_find(&s->known, j->path, j->len);
	if (!whole && j->moved && !j->known->cue)
		whole = j->known; /* its url is j's path now */
	if (whole && !keep_whole)
		rows[n++] = whole;
	for (size_t i = 0; i < n; i++) {
		bool kept = false;
		for (size_t q = 0; q < nkeep && !kept; q++)
			kept = keep[q] == rows[i]->id;
		if (kept || rows[i]->missing)
			continue;
		if (mlib_media_set_missing(wr->w, rows[i]->id, 1, err) != 0)
			return -1;
		rows[i]->missing = true;
	}
	return 0;
}

/* A file split by its cue sheet: one row per track, url "FILE#N". */
static int write_cue_tracks(struct scan *s, struct writer *wr, struct job *j, int64_t now,
			    struct crate_err *err)
{
	const struct mlib_cue *cue = &j->cue.cue;
	uint32_t ids[MLIB_CUE_MAX_TRACKS];
	for (size_t i = 0; i < cue->ntracks; i++) {
		struct mlib_tags t;
		mlib_tags_init(&t);
		int64_t start, end;
		scan_cue_track(cue, i, &j->tags, &t, &start, &end);
		size_t ulen;
		char *url = scan_cue_url(j->path, j->len, cue->tracks[i].number, &ulen);
		int rc = mlib_media_put_cue(wr->w, url, ulen, j->size, j->mtime, j->mtime_nsec, now,
					    &t, start, end, &ids[i], err);
		free(url);
		mlib_tags_free(&t);
		if (rc != 0 || mlib_media_set_cue_beside(wr->w, ids[i], j->cue.path != NULL, err) != 0)
			return -1;
	}
	return retire_rows(s, wr, j, false, ids, cue->ntracks, err);
}

/* A file split by its cue sheet moved: its tracks' rows take the new path
 * (url "NEW#N"), so the tracks written next update them in place, ids,
 * statistics and playlist places kept. */
static int move_cue_rows(struct scan *s, const struct job *j, struct crate_err *err)
{
	const struct known *rep = j->known;
	struct known *rows[MAX_CUE_ROWS];
	size_t n = known_cue_rows(&s->known, rep->url, rep->baselen, rows, MAX_CUE_ROWS);
	for (size_t i = 0; i < n; i++) {
		struct known *k = rows[i];
		size_t tail = k->len - k->baselen; /* "#N" */
		char *url = xmalloc(j->len + tail + 1);
		memcpy(url, j->path, j->len);
		memcpy(url + j->len, k->url + k->baselen, tail + 1);
		if (mlib_media_set_url(s->db, k->id, url, j->len + tail, err) != 0) {
			free(url);
			return -1;
		}
		known_set_url(&s->known, k, url, j->len + tail, j->len);
	}
	return 0;
}

static int write_job(struct scan *s, struct writer *wr, struct job *j, int64_t now,
		     struct crate_err *err)
{
	struct mlib_scan_progress *p = &s->res->totals;
	if (tx_ensure(s, wr, err) != 0)
		return -1;
	wr->in_batch++;
	p->read++;
	int stored = 0;
	if (!j->known && j->rc == 0 &&
	    mlib_media_stored(wr->w, j->path, j->len, j->size, j->mtime, j->mtime_nsec, &stored,
			      err) != 0)
		return -1;
	if (stored == 2) {
		/* Another scan (a second crate scan, the interface's watch)
		 * stored it as it is since this one began: not added twice. */
		p->unchanged++;
		return 0;
	}
	if (j->moved && j->known->cue && move_cue_rows(s, j, err) != 0)
		return -1;
	if (j->rc != 0) {
		/* Not audio by content and not by name: ignored, unless the file
		 * could not even be read (permissions, I/O). */
		if (j->err.code == CRATE_ERR_MEDIA || j->known || audio_name(base_name(j->path)))
			file_problem(s, j->path, j->err.msg, j->known != NULL);
		else
			add_error(s, j->path, j->err.msg, false);
		/* A known file that became unreadable is not playable: out of
		 * the index, but its row (id, statistics) is kept. */
		if (j->known && !j->known->missing) {
			if (mlib_media_set_missing(wr->w, j->known->id, 1, err) != 0)
				return -1;
			s->pend_missing++;
			j->known->missing = true;
		}
		return j->known ? retire_rows(s, wr, j, false, NULL, 0, err) : 0;
	}
	if (j->cue.state == 1) {
		if (write_cue_tracks(s, wr, j, now, err) != 0)
			return -1;
	} else {
		/* No sheet, or a bad one: the file is one item. */
		if (j->cue.state < 0)
			add_cue_error(s, j);
		uint32_t id;
		if (j->moved && !j->known->cue &&
		    mlib_media_set_url(s->db, j->known->id, j->path, j->len, err) != 0)
			return -1;
		if (mlib_media_put_cue(wr->w, j->path, j->len, j->size, j->mtime, j->mtime_nsec, now,
				       &j->tags, -1, 0, &id, err) != 0 ||
		    retire_rows(s, wr, j, true, NULL, 0, err) != 0)
			return -1;
	}
	if (j->known || stored)
		s->pend_updated++;
	else
		s->pend_added++;
	return 0;
}

static bool under_prefix(const char *url, size_t len, const char *root)
{
	size_t rl = strlen(root);
	if (rl == 1 && root[0] == '/')
		return true;
	return len >= rl && memcmp(url, root, rl) == 0 && (len == rl || url[rl] == '/');
}

/* Up to this many paths a row is compared with each (a memcmp or two for
 * the usual few roots, cheaper than hashing its folders); more (a plain
 * rescan of many files given by name) are looked up in root_set. */
#define ROOTS_COMPARED 16

static void root_set_build(struct scan *s, char **roots, size_t nroots)
{
	s->roots = roots;
	s->nroots = nroots;
	if (nroots <= ROOTS_COMPARED)
		return;
	hashtab_reserve(&s->root_set, nroots);
	for (size_t r = 0; r < nroots; r++) {
		if (!roots[r])
			continue;
		if (strcmp(roots[r], "/") == 0)
			s->root_slash = true;
		hashtab_insert(&s->root_set, hash_bytes(roots[r], strlen(roots[r])), (uint32_t)r);
	}
}

static bool is_root(const struct scan *s, const char *path, size_t len)
{
	struct hashtab_probe p = hashtab_probe(&s->root_set, hash_bytes(path, len));
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (strlen(s->roots[i]) == len && memcmp(s->roots[i], path, len) == 0)
			return true;
	return false;
}

/* url is one of the scan's roots or under one (under_prefix of each),
 * looked up folder by folder; a cue track's file (baselen) counts too. */
static bool in_scan_roots(const struct scan *s, const struct known *k)
{
	if (s->nroots <= ROOTS_COMPARED) {
		for (size_t r = 0; r < s->nroots; r++) {
			const char *root = s->roots[r];
			if (root && (under_prefix(k->url, k->len, root) ||
				     (k->cue && k->baselen == strlen(root) &&
				      memcmp(k->url, root, k->baselen) == 0)))
				return true;
		}
		return false;
	}
	if (s->root_slash || (k->cue && is_root(s, k->url, k->baselen)))
		return true;
	for (size_t n = k->len; n > 0;) {
		if (is_root(s, k->url, n))
			return true;
		const char *slash = memrchr(k->url, '/', n);
		n = slash ? (size_t)(slash - k->url) : 0;
	}
	return false;
}

/* A known row under a scanned root that the walk did not see (and not
 * under a folder that could not be read). */
static bool vanished_under_roots(const struct scan *s, const struct known *k)
{
	if (k->seen || k->missing)
		return false;
	bool in = in_scan_roots(s, k);
	for (size_t b = 0; b < s->nbad && in; b++)
		if (under_prefix(k->url, k->len, s->bad_dirs[b]))
			in = false;
	return in;
}

static int mark_missing(struct scan *s, struct writer *wr, struct crate_err *err)
{
	for (size_t i = 0; i < s->known.n; i++) {
		struct known *k = &s->known.v[i];
		if (!vanished_under_roots(s, k))
			continue;
		if (tx_ensure(s, wr, err) != 0 || mlib_media_set_missing(wr->w, k->id, 1, err) != 0)
			return -1;
		s->pend_missing++;
	}
	return 0;
}

static int cmp_size_mtime(const void *a, const void *b)
{
	const struct known *x = *(const struct known *const *)a, *y = *(const struct known *const *)b;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static const char *url_base(const char *url, size_t len)
{
	const char *slash = memrchr(url, '/', len);
	return slash ? slash + 1 : url;
}

/* The file name of k's file (a cue track's: of the file it is part of)
 * is name. */
static bool same_file_name(const struct known *k, const char *name)
{
	size_t len = k->cue ? k->baselen : k->len;
	const char *b = url_base(k->url, len);
	size_t blen = (size_t)(k->url + len - b);
	return strlen(name) == blen && memcmp(b, name, blen) == 0;
}

/* A file split by its cue sheet is one candidate of a move, not one per
 * track: its present row that comes first in the known set stands for it. */
static bool cue_group_first(struct scan *s, const struct known *k)
{
	struct known *rows[MAX_CUE_ROWS];
	size_t n = known_cue_rows(&s->known, k->url, k->baselen, rows, MAX_CUE_ROWS);
	for (size_t i = 0; i < n; i++)
		if (rows[i] < k && !rows[i]->missing)
			return false;
	return true;
}

/* Every track of the file k is part of moves with it. */
static void cue_group_seen(struct scan *s, const struct known *k)
{
	struct known *rows[MAX_CUE_ROWS];
	size_t n = known_cue_rows(&s->known, k->url, k->baselen, rows, MAX_CUE_ROWS);
	for (size_t i = 0; i < n; i++)
		rows[i]->seen = true;
}

/* A row an earlier scan marked missing whose file is still not there: a
 * file moved between two scans (scan A, mv A/x B/, scan B) is one. */
static bool still_gone(const struct known *k)
{
	struct stat st;
	return k->missing && lstat(k->url, &st) != 0 && errno == ENOENT;
}

/* Moves and renames: a new file and a row that vanished under the scanned
 * roots with the same size and mtime (mv keeps both) are one file when
 * the pair is unambiguous: one candidate, or one with the same file name
 * (a folder moved or renamed). A row missing since an earlier scan is a
 * candidate only under the same file name and while its path stays empty.
 * Runs before the files are read, so a moved file is written as an update
 * of its row. */
static void find_moves(struct scan *s)
{
	struct known **gone = NULL;
	size_t ngone = 0;
	for (size_t i = 0; i < s->known.n; i++) {
		struct known *k = &s->known.v[i];
		if (k->seen)
			continue;
		if (k->cue ? !(vanished_under_roots(s, k) && cue_group_first(s, k))
			   : !(k->missing || vanished_under_roots(s, k)))
			continue;
		gone = xreallocarray(gone, ngone + 1, sizeof *gone);
		gone[ngone++] = k;
	}
	if (ngone > 1)
		qsort(gone, ngone, sizeof *gone, cmp_size_mtime);
	for (size_t j = 0; j < s->njobs && ngone; j++) {
		struct job *job = &s->jobs[j];
		struct known *rows[1];
		if (job->known || known_cue_rows(&s->known, job->path, job->len, rows, 1))
			continue; /* rows at its path (tracks missing): they are its */
		struct known probe = {.size = job->size, .mtime = job->mtime}, *pp = &probe;
		struct known **hit = bsearch(&pp, gone, ngone, sizeof *gone, cmp_size_mtime);
		if (!hit)
			continue;
		size_t lo = (size_t)(hit - gone), hi = lo + 1;
		while (lo > 0 && cmp_size_mtime(&gone[lo - 1], &pp) == 0)
			lo--;
		while (hi < ngone && cmp_size_mtime(&gone[hi], &pp) == 0)
			hi++;
		struct known *only = NULL, *named = NULL;
		size_t cands = 0, same_name = 0;
		const char *jb = url_base(job->path, job->len);
		for (size_t c = lo; c < hi; c++) {
			struct known *k = gone[c];
			if (k->seen)
				continue; /* taken by an earlier move */
			bool same = same_file_name(k, jb);
			if (k->missing && !(same && still_gone(k)))
				continue;
			cands++;
			only = k;
			if (same) {
				same_name++;
				named = k;
			}
		}
		struct known *pick = same_name == 1 ? named : cands == 1 ? only : NULL;
		if (!pick)
			continue;
		pick->seen = true;
		if (pick->cue)
			cue_group_seen(s, pick);
		job->known = pick;
		job->moved = true;
	}
	free(gone);
}

/* k's url names the file at path through a link (a folder of a root
 * stored through a link in another root, before such links were no
 * longer followed). */
static bool same_file_by_link(const struct known *k, const char *path)
{
	char *a = realpath(k->url, NULL), *b = a ? realpath(path, NULL) : NULL;
	bool same = a && b && strcmp(a, b) == 0;
	free(a);
	free(b);
	return same;
}

/* k's file is not there any more (a row outside the scanned roots the
 * scan has not looked at). */
static bool file_gone(const struct known *k)
{
	struct stat st;
	return lstat(k->url, &st) != 0 && errno == ENOENT;
}

/* A new file that a present row outside the scanned folders names through
 * a link, or whose file is gone (a root renamed: mv ~/Music ~/Muzak, then
 * crate scan ~/Muzak), with the same size, mtime and file name: that row
 * takes the file's path and keeps its id, statistics and playlist places,
 * rather than the file becoming a second item. */
static void find_moves_elsewhere(struct scan *s)
{
	/* The sizes and mtimes of the new files, then the rows that share
	 * one: a pass over the rows, no sort of them all. */
	if (!s->known.n) /* a first scan: no row to move */
		return;
	struct known *keys = xmalloc((s->njobs ? s->njobs : 1) * sizeof *keys), **pkeys = NULL;
	size_t nkeys = 0;
	for (size_t j = 0; j < s->njobs; j++)
		if (!s->jobs[j].known)
			keys[nkeys++] = (struct known){.size = s->jobs[j].size, .mtime = s->jobs[j].mtime};
	if (!nkeys) {
		free(keys);
		return;
	}
	pkeys = xcalloc(nkeys, sizeof *pkeys);
	for (size_t i = 0; i < nkeys; i++)
		pkeys[i] = &keys[i];
	qsort(pkeys, nkeys, sizeof *pkeys, cmp_size_mtime);
	struct known **rows = xmalloc(s->known.n * sizeof *rows);
	size_t nrows = 0;
	for (size_t i = 0; i < s->known.n; i++) {
		struct known *k = &s->known.v[i];
		if (k->seen || k->missing || k->cue ||
		    !bsearch(&k, pkeys, nkeys, sizeof *pkeys, cmp_size_mtime))
			continue;
		rows[nrows++] = k;
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, cmp_size_mtime);
	for (size_t j = 0; j < s->njobs && nrows; j++) {
		struct job *job = &s->jobs[j];
		if (job->known)
			continue;
		struct known probe = {.size = job->size, .mtime = job->mtime}, *pp = &probe;
		struct known **hit = bsearch(&pp, rows, nrows, sizeof *rows, cmp_size_mtime);
		if (!hit)
			continue;
		size_t lo = (size_t)(hit - rows);
		while (lo > 0 && cmp_size_mtime(&rows[lo - 1], &pp) == 0)
			lo--;
		const char *jb = url_base(job->path, job->len);
		for (size_t c = lo; c < nrows && cmp_size_mtime(&rows[c], &pp) == 0; c++) {
			struct known *k = rows[c];
			if (k->seen || !same_file_name(k, jb) ||
			    !(file_gone(k) || same_file_by_link(k, job->path)))
				continue;
			k->seen = true;
			job->known = k;
			job->moved = true;
			break;
		}
	}
	free(rows);
	free(pkeys);
	free(keys);
}

static int process_jobs(struct scan *s, struct writer *wr, struct crate_err *err)
{
	int nt = nthreads(s->opts);
	if ((size_t)nt > s->njobs)
		nt = (int)s->njobs;
	pthread_t *th = xcalloc((size_t)(nt ? nt : 1), sizeof *th);
	int started = 0;
	for (int i = 0; i < nt; i++)
		if (pthread_create(&th[i], NULL, worker_main, s) == 0)
			started++;
		else
			break;
	int64_t now = (int64_t)time(NULL);
	int rc = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		pthread_mutex_lock(&s->mu);
		if (started == 0 && !j->done) {
			/* No thread could be started: read on this thread. */
			pthread_mutex_unlock(&s->mu);
			j->rc = mlib_tags_read(j->path, s->opts->timeout_ms > 0 ? s->opts->timeout_ms
									 : 5000,
					       &j->tags, &j->err);
			if (j->rc == 0)
				scan_cue_read(j->path, &j->tags, j->cue_beside, &j->cue);
			j->done = true;
			pthread_mutex_lock(&s->mu);
		}
		while (!j->done)
			pthread_cond_wait(&s->job_done, &s->mu);
		pthread_mutex_unlock(&s->mu);
		const char *slash = strrchr(j->path, '/');
		set_current(s, j->path, slash && slash > j->path ? (size_t)(slash - j->path) : j->len);
		if (rc == 0 && !cancelled(s))
			rc = write_job(s, wr, j, now, err);
		mlib_tags_free(&j->tags);
		scan_cue_free(&j->cue);
		pthread_mutex_lock(&s->mu);
		s->consumed = i + 1;
		if (rc != 0 || cancelled(s))
			s->stop = true;
		pthread_cond_broadcast(&s->window_moved);
		pthread_mutex_unlock(&s->mu);
		if (rc != 0 || cancelled(s))
			break;
		if (tx_maybe_commit(s, wr, false, err) != 0) {
			rc = -1;
			pthread_mutex_lock(&s->mu);
			s->stop = true;
			pthread_cond_broadcast(&s->window_moved);
			pthread_mutex_unlock(&s->mu);
			break;
		}
		report(s, false);
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	return rc;
}

static void scan_free(struct scan *s)
{
	known_free(&s->known);
	free(s->dirs.v);
	hashtab_free(&s->dirs.index);
	free(s->stack);
	for (size_t i = 0; i < s->nbad; i++)
		free(s->bad_dirs[i]);
	free(s->bad_dirs);
	for (size_t i = 0; i < s->nlinks; i++)
		free(s->links[i].path);
	free(s->links);
	for (size_t i = 0; i < s->nlib_roots; i++)
		free(s->lib_roots[i]);
	free(s->lib_roots);
	hashtab_free(&s->root_set);
	free(s->cue_dir);
	for (size_t i = 0; i < s->njobs; i++) {
		free(s->jobs[i].path);
		mlib_tags_free(&s->jobs[i].tags);
		scan_cue_free(&s->jobs[i].cue);
	}
	free(s->jobs);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->job_done);
	pthread_cond_destroy(&s->window_moved);
}

/* The absolute path of a root that is gone (an album folder deleted, a
 * disk unmounted), so that a relative "crate scan Album" finds the rows
 * stored under the real path as an absolute one does. Owned; NULL when
 * neither is known. */
static char *gone_root(const char *path)
{
	char *r = str_abs_path(path);
	return r ? r : path[0] == '/' ? xstrdup(path) : NULL;
}

int mlib_scan(struct mlib_db *db, const char *const *paths, size_t npaths,
	      const struct mlib_scan_opts *opts, struct mlib_scan_result *res,
	      struct crate_err *err)
{
	static const struct mlib_scan_opts defaults = {0};
	memset(res, 0, sizeof *res);
	if (mlib_db_readonly(db))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "%s: the database is open read-only; cannot scan into it",
				     mlib_db_path(db));
	mlib_tags_global_init();
	struct scan s = {0};
	s.db = db;
	s.db_path = mlib_db_path(db);
	s.opts = opts ? opts : &defaults;
	s.res = res;
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.job_done, NULL);
	pthread_cond_init(&s.window_moved, NULL);
	clock_gettime(CLOCK_MONOTONIC, &s.t0);
	s.last_report = s.t0;

	struct writer wr = {0};
	char **roots = xcalloc(npaths ? npaths : 1, sizeof *roots);
	int rc = -1;
	if (known_load(db, &s.known, err) != 0)
		goto out;
	wr.w = mlib_media_writer_new(db, err);
	if (!wr.w)
		goto out;

	res->totals.walking = 1;
	struct strbuf path;
	strbuf_init(&path, PATH_MAX);
	bool *there = xcalloc(npaths ? npaths : 1, sizeof *there);
	for (size_t i = 0; i < npaths; i++) {
		/* Roots are made absolute and canonical; below them names are kept
		 * as found, so a file's url is stable across scans. */
		roots[i] = realpath(paths[i], NULL);
		there[i] = roots[i] != NULL;
		if (!roots[i]) {
			int e = errno;
			/* A root that is gone (an unmounted disk): what was under it
			 * is missing now, and comes back when it does. */
			if (e == ENOENT) {
				roots[i] = gone_root(paths[i]);
				/* A file of the library given by name (a plain
				 * rescan names them all) is marked missing below,
				 * as a file gone from a folder is: no lost root. */
				if (!roots[i] || !known_file(&s, roots[i]))
					root_gone(&s, paths[i]);
			} else {
				folder_problem(&s, paths[i], strerror(e));
			}
		}
	}
	library_roots(&s, roots, npaths);
	root_set_build(&s, roots, npaths);
	for (size_t i = 0; i < npaths && !cancelled(&s); i++) {
		if (!there[i])
			continue;
		strbuf_reset(&path);
		strbuf_adds(&path, roots[i]);
		s.nstack = 0;
		/* a root that is a file: look beside it when a sheet is there */
		s.dir_has_cue = root_folder_has_cue(&s, roots[i]);
		walk_entry(&s, &path, true);
	}
	strbuf_free(&path);
	free(there);
	visit_links(&s);
	res->totals.walking = 0;
	report(&s, true);
	if (!cancelled(&s)) {
		find_moves(&s);
		find_moves_elsewhere(&s);
	}

	if (process_jobs(&s, &wr, err) != 0)
		goto out;
	if (cancelled(&s)) {
		res->cancelled = 1;
	} else if (mark_missing(&s, &wr, err) != 0) {
		goto out;
	}
	if (tx_maybe_commit(&s, &wr, true, err) != 0)
		goto out;
	/* Re-tagged rows may have left tag strings nobody uses. Their
	 * bytes are all an orphan costs, so a failure here fails nothing. */
	if (res->totals.updated > 0 && mlib_db_begin(db, NULL) == 0) {
		if (mlib_media_gc_strings(db, NULL, NULL) != 0 || mlib_db_commit(db, NULL) != 0)
			mlib_db_rollback(db, NULL);
	}
	rc = 0;
out:
	if (rc != 0 && wr.in_tx)
		mlib_db_rollback(db, NULL);
	if (rc != 0) {
		/* Say what the database does not have: every file found that is
		 * neither stored, unchanged, failed nor ignored. */
		pending_settle(&s, false);
		struct mlib_scan_progress *t = &res->totals;
		uint64_t accounted = t->added + t->updated + t->unchanged + t->failed + t->ignored;
		t->not_stored = t->seen > accounted ? t->seen - accounted : 0;
	}
	mlib_media_writer_free(wr.w);
	for (size_t i = 0; i < npaths; i++)
		free(roots[i]);
	free(roots);
	res->totals.finished = 1;
	report(&s, true);
	scan_free(&s);
	return rc;
}

void mlib_scan_result_free(struct mlib_scan_result *res)
{
	for (size_t i = 0; i < res->nerrors; i++) {
		free(res->errors[i].path);
		free(res->errors[i].reason);
		free(res->errors[i].msg);
	}
	free(res->errors);
	for (size_t i = 0; i < res->nnotes; i++) {
		free(res->notes[i].path);
		free(res->notes[i].reason);
	}
	free(res->notes);
	memset(res, 0, sizeof *res);
}
