/* Library actions of the application. The background scan runs on its own
 * thread with its own SQLite connection (WAL lets the main thread keep
 * reading meanwhile). That thread also builds the new index when the scan
 * has changed something, so a million-track reload never freezes the
 * interface; the main thread alone touches app->index and only swaps the
 * finished index in (the search bar's correction words are built from it
 * on another thread, app_typo.c, stopped before it goes).
 *
 * A resident front end (the interface, app_opts.resident) starts on the
 * index snapshot mapped in place: ready in milliseconds at a million
 * tracks, where copying it into owned arrays takes a few hundred. The
 * same worker then builds the owned index (the snapshot read and copied,
 * or SQLite when the snapshot turns out damaged) and app_scan_poll swaps
 * it in quietly, unless the library changed after the worker read it (its
 * counters are no longer the database's): then it is dropped and built
 * again, so a rating or play count written into the mapped index meanwhile
 * is never lost. Ownership: until the swap app->index borrows the file's
 * pages (the mapping is the index's, unmapped by mlib_index_free when
 * the owned copy replaces it); the worker's index is its own until
 * app_scan_poll hands it over. */
#include "app/app_library.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app_analysis.h"
#include "app/app_hooks.h"
#include "app/app_typo.h"
#include "base/str.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_groups.h"
#include "medialib/index_load.h"
#include "medialib/media.h"
#include "medialib/roots.h"
#include "medialib/scan_cue.h"
#include "medialib/watch.h"
#include "app/app_watch.h"

struct app_scan {
	pthread_t thread;
	int pipe_rd, pipe_wr;
	char *db_path;
	char **paths;
	size_t npaths;              /* 0: only rebuild the index (the library changed) */
	uint64_t had_gen, had_stats; /* the counters of the index the app has */
	bool own;                   /* build the owned copy of the mapped app->index (quiet) */
	bool must_load;             /* build an index even when the counters match (the
				     * app's is mapped: a scan's index replaces it) */
	bool readonly;              /* open the database read-only (only with own) */
	atomic_int cancel;
	pthread_mutex_t mu; /* guards the fields below */
	struct app_scan_progress prog;
	bool done;
	struct mlib_index *new_index; /* built by the thread; NULL = keep the current one */
	struct mlib_load_info info;   /* the counters new_index reflects */
	char index_error[256];        /* why new_index could not be built */
	struct mlib_scan_result res;  /* the finished scan's errors (moved to the app) */
};

static int reload_index(struct app *app, unsigned flags, struct crate_err *err);
static int own_start(struct app *app);
static void index_adopted(struct app *app, const struct mlib_load_info *info);

/* ---- the snapshot, written on a thread ---- */

/* The interface writes the snapshot of the index it loaded from SQLite on
 * a thread (MLIB_LOAD_WRITE_LATER) rather than from a forked process: the
 * fork write-protected every page of the interface, and its keystrokes
 * paid for that long after the child was gone (issue 21). The thread only
 * reads app->index; everything that writes or frees the index waits for
 * it first (app_snapshot_wait). */
struct app_snapwrite {
	pthread_t thread;
	const struct mlib_index *idx;
	char *path; /* owned */
	struct snap_key key;
};

static void *snapwrite_main(void *arg)
{
	struct app_snapwrite *w = arg;
	struct crate_err err = {0};
	/* One not written only costs the next start-up its speed. */
	(void)mlib_index_snapshot_write(w->idx, w->path, &w->key, &err);
	return NULL;
}

void app_snapshot_wait(struct app *app)
{
	struct app_snapwrite *w = app->snapwrite;
	if (!w)
		return;
	pthread_join(w->thread, NULL);
	free(w->path);
	free(w);
	app->snapwrite = NULL;
}

/* Write the snapshot info says is due (its snap_path taken), on a thread;
 * in place when no thread starts. Called after app_index_replace, which
 * waited for any earlier writer. */
static void snapshot_start(struct app *app, struct mlib_load_info *info)
{
	if (!info->snap_path)
		return;
	struct app_snapwrite *w = xcalloc(1, sizeof *w);
	w->idx = app->index;
	w->path = info->snap_path;
	w->key = info->snap_key;
	info->snap_path = NULL;
	if (pthread_create(&w->thread, NULL, snapwrite_main, w) == 0) {
		app->snapwrite = w;
		return;
	}
	snapwrite_main(w);
	free(w->path);
	free(w);
}

int app_library_open(struct app *app, const struct app_opts *opts, struct crate_err *err)
{
	bool readonly = opts->readonly;
	int rc = mlib_db_open(app->db_path, readonly ? MLIB_DB_READONLY : 0, &app->db, err);
	if (rc != 0 && !readonly && err && err->code == CRATE_ERR_REFUSED) {
		/* A read-only file or directory: inspection commands still work;
		 * writes report the read-only database. */
		struct crate_err first = *err;
		rc = mlib_db_open(app->db_path, MLIB_DB_READONLY, &app->db, err);
		if (rc != 0 && err) { /* both reasons: why not writable, why not readable */
			struct crate_err ro = *err;
			*err = first;
			crate_err_set(err, ro.code, "%s; opening it read-only failed too: %s", first.msg,
				      ro.msg);
		}
	}
	if (rc != 0)
		return -1;
	if (opts->no_index) {
		app->index = mlib_index_new();
		mlib_index_finish(app->index);
		return 0;
	}
	/* Start-up: the index is ready before its snapshot is written. A
	 * resident front end starts on the snapshot in place (a stale or
	 * unreadable one falls back to SQLite as always) and owns a copy
	 * once the worker has built it. */
	bool map = opts->map_index || opts->resident;
	unsigned write = opts->resident ? MLIB_LOAD_WRITE_LATER : MLIB_LOAD_WRITE_DETACHED;
	if (reload_index(app, write | (map ? MLIB_LOAD_MAP : 0), err) != 0)
		return -1;
	if (opts->resident && !opts->map_index && mlib_index_is_mapped(app->index) &&
	    own_start(app) != 0)
		return reload_index(app, 0, err); /* no thread: owned here, as before */
	return 0;
}

void app_scan_errors_clear(struct app *app)
{
	struct mlib_scan_result r = {.errors = app->scan_errors, .nerrors = app->nscan_errors};
	mlib_scan_result_free(&r);
	app->scan_errors = NULL;
	app->nscan_errors = 0;
}

void app_library_close(struct app *app)
{
	app_scan_errors_clear(app);
	if (app->scan) {
		app_scan_cancel(app);
		struct app_scan_progress p;
		while (app_scan_poll(app, &p) == 0)
			usleep(10000);
	}
	app_typo_stop(app); /* its thread reads the index */
	app->typo_wanted = false;
	app_snapshot_wait(app); /* so does the snapshot's */
	mlib_index_free(app->index);
	app->index = NULL;
	mlib_db_close(app->db);
	app->db = NULL;
}

/* The index now reflects these counters; data_version is read first so a
 * commit after it is noticed by the next app_changes_check. */
static void index_adopted(struct app *app, const struct mlib_load_info *info)
{
	app->index_gen = info->generation;
	app->index_stats = info->stats;
}

void app_index_replace(struct app *app, struct mlib_index *idx)
{
	mlib_groups_free(app->groups); /* they borrow the old index's texts */
	app->groups = NULL;
	app_typo_stop(app); /* its thread reads the old index */
	app_snapshot_wait(app); /* so does the snapshot's */
	mlib_index_free(app->index);
	app->index = idx;
	app->index_serial++;
	if (app->typo_wanted) /* the search bar's words for the new index, in the background */
		app_typo_start(app);
}

/* Load the index (flags: mlib_index_load_ex's) and adopt it. */
static int reload_index(struct app *app, unsigned flags, struct crate_err *err)
{
	struct mlib_index *idx;
	struct mlib_load_info info;
	int64_t dv = 0;
	if (mlib_db_data_version(app->db, &dv, err) != 0 ||
	    mlib_index_load_ex(app->db, flags, &idx, &info, err) != 0)
		return -1;
	app_index_replace(app, idx);
	app->data_version = dv;
	index_adopted(app, &info);
	snapshot_start(app, &info);
	return 0;
}

int app_reload_index(struct app *app, struct crate_err *err)
{
	return reload_index(app, 0, err);
}

int app_scan(struct app *app, const char *const *paths, size_t n, mlib_scan_progress_fn cb,
	     void *ud, struct mlib_scan_result *res, struct crate_err *err)
{
	struct mlib_scan_opts opts = {.progress = cb, .ud = ud};
	if (mlib_scan(app->db, paths, n, &opts, res, err) != 0)
		return -1;
	const struct mlib_scan_progress *t = &res->totals;
	if (t->updated + t->missing)
		app_analysis_albums_due(app->db);
	app_hooks_scan_done(app, t, res->nerrors);
	if (t->added + t->updated + t->missing == 0 && app->index)
		return 0; /* nothing changed: the index is current */
	return app_reload_index(app, err);
}

/* ---- background scan ---- */

static void scan_notify(struct app_scan *s)
{
	char c = 1;
	/* Non-blocking: a full pipe already says "look at me". */
	ssize_t w = write(s->pipe_wr, &c, 1);
	(void)w;
}

static void scan_progress_cb(void *ud, const struct mlib_scan_progress *p)
{
	struct app_scan *s = ud;
	pthread_mutex_lock(&s->mu);
	s->prog.p = *p;
	pthread_mutex_unlock(&s->mu);
	scan_notify(s);
}

/* Tests: while held, a worker that has built its index waits before it
 * reports (app_library_hold). */
static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;
static bool held;
static int holding; /* workers waiting at the hold */

void app_library_hold(bool hold)
{
	pthread_mutex_lock(&hold_mu);
	held = hold;
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&hold_mu);
}

bool app_library_holding(void)
{
	pthread_mutex_lock(&hold_mu);
	bool h = holding > 0;
	pthread_mutex_unlock(&hold_mu);
	return h;
}

static void hold_wait(struct app_scan *s)
{
	pthread_mutex_lock(&hold_mu);
	holding++;
	while (held && !atomic_load(&s->cancel))
		pthread_cond_wait(&hold_cv, &hold_mu);
	holding--;
	pthread_mutex_unlock(&hold_mu);
}

/* The worker's second half, after its scan (if any) ended with rc: the
 * new index when one is due, then the report. Closes db. */
static void *worker_finish(struct app_scan *s, struct mlib_db *db, int rc,
			   struct mlib_scan_result *res, const struct crate_err *err)
{
	const struct mlib_scan_progress *t = &res->totals;
	struct mlib_index *idx = NULL;
	struct crate_err ierr = {0};
	/* A cancelled scan (crate is quitting) needs no new index; neither
	 * does a library whose counters still match the app's index (a scan
	 * that found nothing new, and nobody else changed anything) unless
	 * the app's is mapped. */
	uint64_t gen = 0, stats = 0;
	bool changed = s->must_load || t->added + t->updated + t->missing > 0 ||
		       mlib_media_counters(db, &gen, &stats, NULL) != 0 || gen != s->had_gen ||
		       stats != s->had_stats;
	if (rc == 0 && !atomic_load(&s->cancel) && changed) {
		if (!s->own) {
			pthread_mutex_lock(&s->mu);
			s->prog.indexing = true;
			pthread_mutex_unlock(&s->mu);
			scan_notify(s);
		}
		/* Owned: the snapshot copied out (mlib_index_snapshot_read), or
		 * SQLite when it is stale or fails a check. */
		if (mlib_index_load_ex(db, 0, &idx, &s->info, &ierr) != 0)
			idx = NULL;
		hold_wait(s);
		if (atomic_load(&s->cancel)) { /* crate is quitting */
			mlib_index_free(idx);
			idx = NULL;
		}
	}
	mlib_db_close(db);
	pthread_mutex_lock(&s->mu);
	s->prog.p = res->totals;
	s->prog.rc = rc;
	s->prog.nerrors = res->nerrors;
	if (rc != 0)
		snprintf(s->prog.msg, sizeof s->prog.msg, "%s", err->msg);
	else if (res->nerrors)
		snprintf(s->prog.msg, sizeof s->prog.msg, "%s", res->errors[res->nerrors - 1].msg);
	s->res = *res; /* the errors go to the app when it polls */
	memset(res, 0, sizeof *res);
	s->new_index = idx;
	if (ierr.code)
		snprintf(s->index_error, sizeof s->index_error, "%s", ierr.msg);
	s->done = true;
	pthread_mutex_unlock(&s->mu);
	scan_notify(s);
	return NULL;
}

static void *scan_thread(void *arg)
{
	struct app_scan *s = arg;
	struct crate_err err = {0};
	struct mlib_db *db = NULL;
	struct mlib_scan_result res = {0};
	int rc = mlib_db_open(s->db_path, 0, &db, &err);
	if (rc == 0 && s->npaths) {
		struct mlib_scan_opts opts = {
			.progress = scan_progress_cb, .ud = s, .progress_ms = 100, .cancel = &s->cancel};
		rc = mlib_scan(db, (const char *const *)s->paths, s->npaths, &opts, &res, &err);
		if (rc == 0 && res.totals.updated + res.totals.missing)
			app_analysis_albums_due(db);
	}
	return worker_finish(s, db, rc, &res, &err);
}

/* The owned copy of the mapped index, or a rebuild: no scan (a thread
 * function of its own so that programs without the scanner, crate-query,
 * link without it). */
static void *index_thread(void *arg)
{
	struct app_scan *s = arg;
	struct crate_err err = {0};
	struct mlib_db *db = NULL;
	struct mlib_scan_result res = {0};
	int rc = mlib_db_open(s->db_path, s->readonly ? MLIB_DB_READONLY : 0, &db, &err);
	return worker_finish(s, db, rc, &res, &err);
}

static void scan_free(struct app_scan *s)
{
	if (s->pipe_rd >= 0)
		close(s->pipe_rd);
	if (s->pipe_wr >= 0)
		close(s->pipe_wr);
	for (size_t i = 0; i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->db_path);
	mlib_index_free(s->new_index);
	mlib_scan_result_free(&s->res);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* A running index rebuild gives way to a scan, which rebuilds the index
 * itself when it ends. Waits for the rebuild (it cannot be interrupted). */
static void drop_reload(struct app *app)
{
	struct app_scan *s = app->scan;
	if (!s || s->npaths)
		return;
	pthread_join(s->thread, NULL);
	app->scan = NULL;
	app->changes_pending = true;
	scan_free(s);
}

enum job { JOB_SCAN, JOB_SCAN_AUTO, JOB_RELOAD, JOB_OWN };
static int worker_start(struct app *app, const char *const *paths, size_t n, enum job job,
			void *(*fn)(void *), struct crate_err *err);

int app_scan_start(struct app *app, const char *const *paths, size_t n, struct crate_err *err)
{
	if (n == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to scan");
	drop_reload(app);
	return worker_start(app, paths, n, JOB_SCAN, scan_thread, err);
}

int app_scan_start_auto(struct app *app, const char *const *paths, size_t n,
			struct crate_err *err)
{
	if (n == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to scan");
	drop_reload(app);
	return worker_start(app, paths, n, JOB_SCAN_AUTO, scan_thread, err);
}

int app_roots_record(struct app *app, const char *const *paths, size_t n, struct crate_err *err)
{
	for (size_t i = 0; i < n; i++) {
		char *abs = realpath(paths[i], NULL);
		struct stat st;
		int rc = abs && stat(abs, &st) == 0 && S_ISDIR(st.st_mode)
				 ? mlib_roots_add(app->db, abs, err) : 0;
		free(abs);
		if (rc != 0)
			return -1;
	}
	return 0;
}

int app_roots_list(struct app *app, char ***out, size_t *n, struct crate_err *err)
{
	*out = NULL;
	*n = 0;
	if (!app->db)
		return crate_err_set(err, CRATE_ERR_REFUSED, "no library is open");
	return mlib_roots_list(app->db, out, n, err);
}

int app_index_reload_start(struct app *app, struct crate_err *err)
{
	if (app->scan)
		return crate_err_set(err, CRATE_ERR_REFUSED, "a scan is already running");
	return worker_start(app, NULL, 0, JOB_RELOAD, index_thread, err);
}

/* The worker that builds the owned copy of the mapped app->index (see the
 * top of this file); -1 when it cannot start. */
static int own_start(struct app *app)
{
	return worker_start(app, NULL, 0, JOB_OWN, index_thread, NULL);
}

/* fn: scan_thread, or index_thread for a job without paths (passed in, so
 * that a program that never scans does not link the scanner). */
static int worker_start(struct app *app, const char *const *paths, size_t n, enum job job,
			void *(*fn)(void *), struct crate_err *err)
{
	if (app->scan)
		return crate_err_set(err, CRATE_ERR_REFUSED, "a scan is already running");
	if (job != JOB_OWN && mlib_db_readonly(app->db))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "%s: the database is read-only; cannot scan into it",
				     mlib_db_path(app->db));
	struct app_scan *s = xcalloc(1, sizeof *s);
	int fds[2];
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
		free(s);
		return crate_err_set(err, CRATE_ERR_IO, "cannot create a pipe: %s", strerror(errno));
	}
	s->pipe_rd = fds[0];
	s->pipe_wr = fds[1];
	pthread_mutex_init(&s->mu, NULL);
	s->db_path = xstrdup(app->db_path);
	s->paths = xcalloc(n ? n : 1, sizeof *s->paths);
	for (size_t i = 0; i < n; i++)
		s->paths[i] = xstrdup(paths[i]);
	s->npaths = n;
	s->had_gen = app->index_gen;
	s->had_stats = app->index_stats;
	s->own = job == JOB_OWN;
	s->must_load = app->index && mlib_index_is_mapped(app->index);
	s->readonly = mlib_db_readonly(app->db);
	s->prog.p.walking = n > 0;
	s->prog.reload_only = n == 0;
	s->prog.automatic = job == JOB_SCAN_AUTO;
	s->prog.quiet = s->own;
	if (pthread_create(&s->thread, NULL, fn, s) != 0) {
		scan_free(s);
		return crate_err_set(err, CRATE_ERR_IO, "cannot start the scan thread");
	}
	app->scan = s;
	return 0;
}

static bool under_path(const char *outer, const char *inner)
{
	size_t n = strlen(outer);
	return (n == 1 && outer[0] == '/') ||
	       (strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/'));
}

static bool error_known(const struct app *app, const char *path)
{
	for (size_t i = 0; i < app->nscan_errors; i++)
		if (strcmp(app->scan_errors[i].path, path) == 0)
			return true;
	return false;
}

/* The finished scan's problems become app->scan_errors: all of them for a
 * scan the user asked for; for an automatic one, they replace those under
 * its paths. Returns how many were not known before. */
static size_t take_errors(struct app *app, struct app_scan *s)
{
	size_t fresh = 0;
	for (size_t i = 0; i < s->res.nerrors; i++)
		fresh += !error_known(app, s->res.errors[i].path);
	if (!s->prog.automatic) {
		app_scan_errors_clear(app);
	} else {
		/* Keep the old ones outside the scanned folders. */
		size_t k = 0;
		for (size_t i = 0; i < app->nscan_errors; i++) {
			struct mlib_scan_error *e = &app->scan_errors[i];
			bool inside = false;
			for (size_t p = 0; p < s->npaths && !inside; p++)
				inside = under_path(s->paths[p], e->path);
			if (inside) {
				free(e->path);
				free(e->reason);
				free(e->msg);
			} else {
				app->scan_errors[k++] = *e;
			}
		}
		app->nscan_errors = k;
	}
	size_t n = app->nscan_errors + s->res.nerrors;
	app->scan_errors = xreallocarray(app->scan_errors, n ? n : 1, sizeof *app->scan_errors);
	for (size_t i = 0; i < s->res.nerrors; i++)
		app->scan_errors[app->nscan_errors++] = s->res.errors[i];
	free(s->res.errors);
	s->res.errors = NULL;
	s->res.nerrors = 0;
	return fresh;
}

bool app_scan_is_automatic(const struct app *app)
{
	return app->scan && (app->scan->prog.automatic || app->scan->prog.reload_only);
}

bool app_scan_is_quiet(const struct app *app)
{
	return app->scan && app->scan->own;
}

int app_scan_event_fd(const struct app *app)
{
	return app->scan ? app->scan->pipe_rd : -1;
}

int app_scan_poll(struct app *app, struct app_scan_progress *out)
{
	struct app_scan *s = app->scan;
	if (!s)
		return -1;
	char buf[64];
	while (read(s->pipe_rd, buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&s->mu);
	*out = s->prog;
	bool done = s->done;
	pthread_mutex_unlock(&s->mu);
	if (!done)
		return 0;
	pthread_join(s->thread, NULL);
	app->scan = NULL;
	if (s->npaths)
		out->new_errors = take_errors(app, s);
	bool again = false;
	if (s->new_index) {
		/* What the database holds now against what the worker read: a
		 * commit since (this process's rating or play count written
		 * into app->index in place, or another process's change) is
		 * missing from the new index. */
		uint64_t gen, stats;
		bool current = mlib_media_counters(app->db, &gen, &stats, NULL) == 0 &&
			       gen == s->info.generation && stats == s->info.stats;
		if (s->own && (!current || !mlib_index_is_mapped(app->index))) {
			/* The mapped index keeps serving; the copy is built
			 * again from what the database holds now (none when
			 * app->index was replaced meanwhile: it is owned). */
			again = mlib_index_is_mapped(app->index) && !atomic_load(&s->cancel);
			mlib_index_free(s->new_index);
		} else {
			app_index_replace(app, s->new_index);
			index_adopted(app, &s->info);
			if (!current) /* newer than the old one; the next check reloads */
				app->changes_pending = true;
		}
		s->new_index = NULL;
	} else if (s->index_error[0] && out->rc == 0) {
		out->rc = -1;
		snprintf(out->msg, sizeof out->msg, "%s", s->index_error);
	}
	if (s->prog.automatic && s->npaths && !atomic_load(&s->cancel))
		app_watch_scanned(app, (const char *const *)s->paths, s->npaths, out->rc == 0);
	bool own = s->own;
	scan_free(s);
	out->finished = true;
	if (again && own_start(app) != 0)
		app->changes_pending = true; /* no thread: a reload when the next check runs */
	if (out->rc == 0 && !own)
		app_hooks_scan_done(app, &out->p, out->nerrors);
	return 1;
}

void app_scan_cancel(struct app *app)
{
	if (!app->scan)
		return;
	atomic_store(&app->scan->cancel, 1);
	pthread_mutex_lock(&hold_mu); /* a worker at the hold sees it */
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&hold_mu);
}

/* The writes below go into app->index in place. On a mapped index that
 * copies the property out of the mapping, or every array and unmaps the
 * file when the property is new (index_map_release), while the search
 * bar's word build (app_typo.c) may be reading the mapped texts on its
 * thread: a running build stops first and starts again after (a finished
 * one holds copies of the words). True when one was stopped. */
static bool write_begin(struct app *app)
{
	app_snapshot_wait(app); /* its thread reads the values written here */
	if (!app->index || !mlib_index_is_mapped(app->index) || !app_typo_running(app))
		return false;
	app_typo_stop(app);
	return true;
}

static int write_end(struct app *app, bool stopped, int rc)
{
	if (stopped && app->typo_wanted)
		app_typo_start(app);
	return rc;
}

int app_record_play(struct app *app, uint32_t id, int64_t when, struct crate_err *err)
{
	bool stopped = write_begin(app);
	return write_end(app, stopped, mlib_media_record_play(app->db, app->index, id, when, err));
}

int app_correct_duration(struct app *app, uint32_t id, int64_t ms, struct crate_err *err)
{
	bool stopped = write_begin(app);
	return write_end(app, stopped, mlib_media_set_duration(app->db, app->index, id, ms, err));
}

int app_record_skip(struct app *app, uint32_t id, struct crate_err *err)
{
	bool stopped = write_begin(app);
	return write_end(app, stopped, mlib_media_record_skip(app->db, app->index, id, err));
}

int app_set_rating(struct app *app, uint32_t id, int rating, struct crate_err *err)
{
	bool stopped = write_begin(app);
	return write_end(app, stopped,
			 mlib_media_set_rating(app->db, app->index, id, rating, err));
}

int app_set_ratings(struct app *app, const uint32_t *ids, size_t n, int rating,
		    struct crate_err *err)
{
	bool stopped = write_begin(app);
	return write_end(app, stopped,
			 mlib_media_set_ratings(app->db, app->index, ids, n, rating, err));
}

int app_index_refresh_stats(struct app *app, bool *applied, struct crate_err *err)
{
	*applied = false;
	if (!app->db || !app->index)
		return 0;
	bool stopped = write_begin(app);
	uint64_t stats = app->index_stats;
	int rc = mlib_index_refresh_stats(app->db, app->index, app->index_gen, &stats, applied,
					  err);
	if (rc == 0 && *applied)
		app->index_stats = stats;
	return write_end(app, stopped, rc);
}

/* ---- forgetting ---- */

int app_forget(struct app *app, const uint32_t *ids, size_t nids, size_t *n,
	       struct crate_err *err)
{
	*n = 0;
	if (mlib_media_forget(app->db, ids, nids, n, err) != 0)
		return -1;
	if (*n)
		app_analysis_albums_due(app->db);
	return *n ? app_reload_index(app, err) : 0;
}

/* A root that is not there now: gone, unreadable, or an empty folder (a
 * mount point without its disk). */
static bool root_absent(const char *root)
{
	struct stat st;
	if (stat(root, &st) != 0)
		return true;
	if (!S_ISDIR(st.st_mode))
		return false;
	DIR *d = opendir(root);
	if (!d)
		return true;
	bool empty = true;
	for (struct dirent *de; empty && (de = readdir(d));)
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty;
}

int app_prune_missing(struct app *app, size_t *n, size_t *kept, struct crate_err *err)
{
	char **roots;
	size_t nroots;
	if (mlib_roots_list(app->db, &roots, &nroots, err) != 0)
		return -1;
	/* What is missing under such a root is a disk away, not files deleted:
	 * it comes back with its ids, statistics and playlist places. */
	const char **absent = xcalloc(nroots ? nroots : 1, sizeof *absent);
	size_t nabsent = 0;
	for (size_t i = 0; i < nroots; i++)
		if (root_absent(roots[i]))
			absent[nabsent++] = roots[i];
	int rc = mlib_media_prune_missing(app->db, absent, nabsent, n, kept, err);
	free(absent);
	mlib_roots_free(roots, nroots);
	if (rc != 0)
		return -1;
	return *n ? app_reload_index(app, err) : 0;
}

int app_items_under(struct app *app, const char *dir, struct u32vec *out, struct crate_err *err)
{
	sqlite3_stmt *st;
	/* url = dir, or url starts with dir + "/" (byte comparison: urls are blobs). */
	if (sqlite3_prepare_v2(mlib_db_sqlite(app->db),
			       "SELECT id FROM media WHERE url = ?1 OR substr(url, 1, length(?2)) = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return mlib_db_error(app->db, "cannot list items", err);
	size_t len = strlen(dir);
	char *slash = xasprintf("%s/", len == 1 && dir[0] == '/' ? "" : dir);
	sqlite3_bind_blob(st, 1, dir, (int)len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, slash, (int)strlen(slash), SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		u32vec_push(out, (uint32_t)sqlite3_column_int64(st, 0));
	rc = mlib_db_finish(app->db, st, rc, "cannot list items", err);
	free(slash);
	return rc;
}

int app_root_remove(struct app *app, const char *root, struct crate_err *err)
{
	if (mlib_roots_remove(app->db, root, err) != 0)
		return -1;
	app_watch_remove(app, root);
	return 0;
}

/* A root gone from the disk with nothing of the library under it any more
 * (its folder renamed and scanned under the new name, which took its
 * items) is no root: forgotten, instead of counted "not found" by every
 * rescan. One whose items are still there (marked missing: a disk not
 * mounted) is kept. */
static bool root_emptied(struct app *app, const char *root)
{
	struct u32vec ids = {0};
	struct crate_err err = {0};
	bool emptied = access(root, F_OK) != 0 && errno == ENOENT &&
		       app_items_under(app, root, &ids, &err) == 0 && ids.n == 0 &&
		       app_root_remove(app, root, &err) == 0;
	u32vec_free(&ids);
	return emptied;
}

int app_rescan_paths(struct app *app, struct app_rescan *r, struct crate_err *err)
{
	memset(r, 0, sizeof *r);
	char **roots;
	size_t n;
	if (mlib_roots_list(app->db, &roots, &n, err) != 0)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!mlib_db_readonly(app->db) && root_emptied(app, roots[i])) {
			r->dropped = xreallocarray(r->dropped, r->ndropped + 1, sizeof *r->dropped);
			r->dropped[r->ndropped++] = roots[i];
			continue;
		}
		roots[k++] = roots[i];
	}
	char **files;
	if (mlib_roots_loose_files(app->db, roots, k, &files, &r->nfiles, err) != 0) {
		mlib_roots_free(roots, k);
		app_rescan_free(r);
		return -1;
	}
	r->nroots = k;
	r->n = k + r->nfiles;
	r->paths = xreallocarray(roots, r->n ? r->n : 1, sizeof *r->paths);
	if (r->nfiles)
		memcpy(r->paths + k, files, r->nfiles * sizeof *files);
	free(files);
	return 0;
}

void app_rescan_free(struct app_rescan *r)
{
	mlib_roots_free(r->paths, r->n);
	mlib_roots_free(r->dropped, r->ndropped);
	memset(r, 0, sizeof *r);
}

/* Whether abs (canonical, str_abs_path) is a recorded root. */
static bool abs_is_root(struct app *app, const char *abs)
{
	char **roots;
	size_t n;
	bool is_root = false;
	if (mlib_roots_list(app->db, &roots, &n, NULL) == 0) {
		for (size_t i = 0; i < n && !is_root; i++)
			is_root = strcmp(roots[i], abs) == 0;
		mlib_roots_free(roots, n);
	}
	return is_root;
}

bool app_path_is_root(struct app *app, const char *path)
{
	char *abs = str_abs_path(path); /* a root is recorded canonical */
	bool is_root = abs && abs_is_root(app, abs);
	free(abs);
	return is_root;
}

bool app_scan_path_unknown(struct app *app, const char *path)
{
	if (access(path, F_OK) == 0 || errno != ENOENT)
		return false;
	char *abs = str_abs_path(path);
	if (!abs)
		return false; /* the scan names it, as a root it cannot place */
	bool known = abs_is_root(app, abs);
	struct u32vec ids = {0};
	struct crate_err err = {0};
	if (!known)
		known = app_items_under(app, abs, &ids, &err) != 0 || ids.n > 0;
	u32vec_free(&ids);
	free(abs);
	return !known;
}

size_t app_cue_tracks(struct app *app, const char *path, uint32_t **ids)
{
	char *audio = scan_cue_audio_of(path);
	const char *file = audio ? audio : path;
	size_t n = 0, kept = 0;
	struct crate_err ignore = {0};
	if (mlib_media_cue_tracks(app->db, file, strlen(file), ids, &n, &ignore) != 0)
		n = 0;
	for (size_t i = 0; i < n; i++)
		if (app->index && mlib_index_has_media(app->index, (*ids)[i]))
			(*ids)[kept++] = (*ids)[i];
	if (!kept) {
		free(*ids);
		*ids = NULL;
	}
	free(audio);
	return kept;
}
