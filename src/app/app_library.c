/* Library actions of the application. The background scan runs on its own
 * thread with its own SQLite connection (WAL lets the main thread keep
 * reading meanwhile). That thread also builds the new index when the scan
 * has changed something, so a million-track reload never freezes the
 * interface; the main thread alone touches app->index and only swaps the
 * finished index in (the search bar's correction words are built from it
 * on another thread, app_typo.c, stopped before it goes). */
#include "app/app_library.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app_hooks.h"
#include "app/app_typo.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/index_groups.h"
#include "medialib/index_load.h"
#include "medialib/media.h"
#include "medialib/roots.h"
#include "medialib/watch.h"
#include "app/app_watch.h"

struct app_scan {
	pthread_t thread;
	int pipe_rd, pipe_wr;
	char *db_path;
	char **paths;
	size_t npaths;              /* 0: only rebuild the index (the library changed) */
	uint64_t had_gen, had_stats; /* the counters of the index the app has */
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
	/* Start-up: the index is ready before its snapshot is written. */
	return reload_index(app, MLIB_LOAD_WRITE_DETACHED | (opts->map_index ? MLIB_LOAD_MAP : 0),
			    err);
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
	}
	const struct mlib_scan_progress *t = &res.totals;
	struct mlib_index *idx = NULL;
	struct crate_err ierr = {0};
	/* A cancelled scan (crate is quitting) needs no new index; neither
	 * does a library whose counters still match the app's index (a scan
	 * that found nothing new, and nobody else changed anything). */
	uint64_t gen = 0, stats = 0;
	bool changed = t->added + t->updated + t->missing > 0 ||
		       mlib_media_counters(db, &gen, &stats, NULL) != 0 || gen != s->had_gen ||
		       stats != s->had_stats;
	if (rc == 0 && !atomic_load(&s->cancel) && changed) {
		pthread_mutex_lock(&s->mu);
		s->prog.indexing = true;
		pthread_mutex_unlock(&s->mu);
		scan_notify(s);
		if (mlib_index_load_ex(db, 0, &idx, &s->info, &ierr) != 0)
			idx = NULL;
	}
	mlib_db_close(db);
	pthread_mutex_lock(&s->mu);
	s->prog.p = res.totals;
	s->prog.rc = rc;
	s->prog.nerrors = res.nerrors;
	if (rc != 0)
		snprintf(s->prog.msg, sizeof s->prog.msg, "%s", err.msg);
	else if (res.nerrors)
		snprintf(s->prog.msg, sizeof s->prog.msg, "%s", res.errors[res.nerrors - 1].msg);
	s->res = res; /* the errors go to the app when it polls */
	memset(&res, 0, sizeof res);
	s->new_index = idx;
	if (ierr.code)
		snprintf(s->index_error, sizeof s->index_error, "%s", ierr.msg);
	s->done = true;
	pthread_mutex_unlock(&s->mu);
	mlib_scan_result_free(&res);
	scan_notify(s);
	return NULL;
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

static int worker_start(struct app *app, const char *const *paths, size_t n, bool automatic,
			struct crate_err *err);

int app_scan_start(struct app *app, const char *const *paths, size_t n, struct crate_err *err)
{
	if (n == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to scan");
	drop_reload(app);
	return worker_start(app, paths, n, false, err);
}

int app_scan_start_auto(struct app *app, const char *const *paths, size_t n,
			struct crate_err *err)
{
	if (n == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to scan");
	drop_reload(app);
	return worker_start(app, paths, n, true, err);
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

int app_index_reload_start(struct app *app, struct crate_err *err)
{
	if (app->scan)
		return crate_err_set(err, CRATE_ERR_REFUSED, "a scan is already running");
	return worker_start(app, NULL, 0, false, err);
}

static int worker_start(struct app *app, const char *const *paths, size_t n, bool automatic,
			struct crate_err *err)
{
	if (app->scan)
		return crate_err_set(err, CRATE_ERR_REFUSED, "a scan is already running");
	if (mlib_db_readonly(app->db))
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
	s->prog.p.walking = n > 0;
	s->prog.reload_only = n == 0;
	s->prog.automatic = automatic;
	if (pthread_create(&s->thread, NULL, scan_thread, s) != 0) {
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
	if (s->new_index) {
		app_index_replace(app, s->new_index);
		s->new_index = NULL;
		index_adopted(app, &s->info);
	} else if (s->index_error[0] && out->rc == 0) {
		out->rc = -1;
		snprintf(out->msg, sizeof out->msg, "%s", s->index_error);
	}
	scan_free(s);
	out->finished = true;
	if (out->rc == 0)
		app_hooks_scan_done(app, &out->p, out->nerrors);
	return 1;
}

void app_scan_cancel(struct app *app)
{
	if (app->scan)
		atomic_store(&app->scan->cancel, 1);
}

int app_record_play(struct app *app, uint32_t id, int64_t when, struct crate_err *err)
{
	return mlib_media_record_play(app->db, app->index, id, when, err);
}

int app_correct_duration(struct app *app, uint32_t id, int64_t ms, struct crate_err *err)
{
	return mlib_media_set_duration(app->db, app->index, id, ms, err);
}

int app_record_skip(struct app *app, uint32_t id, struct crate_err *err)
{
	return mlib_media_record_skip(app->db, app->index, id, err);
}

int app_set_rating(struct app *app, uint32_t id, int rating, struct crate_err *err)
{
	return mlib_media_set_rating(app->db, app->index, id, rating, err);
}

int app_set_ratings(struct app *app, const uint32_t *ids, size_t n, int rating,
		    struct crate_err *err)
{
	return mlib_media_set_ratings(app->db, app->index, ids, n, rating, err);
}

/* ---- forgetting ---- */

int app_forget(struct app *app, const uint32_t *ids, size_t nids, size_t *n,
	       struct crate_err *err)
{
	*n = 0;
	if (mlib_media_forget(app->db, ids, nids, n, err) != 0)
		return -1;
	return *n ? app_reload_index(app, err) : 0;
}

int app_prune_missing(struct app *app, size_t *n, struct crate_err *err)
{
	if (mlib_media_prune_missing(app->db, n, err) != 0)
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
