#include "app/app_watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>

#include "app/app_library.h"
#include "medialib/roots.h"
#include "medialib/watch.h"

struct app_watch {
	struct mlib_watch *w;  /* NULL: not watching (off, or no inotify) */
	bool periodic;         /* some root is not (fully) watched: rescan them all */
	bool limit_said;       /* the watch limit message was given */
	double interval_ms;    /* periodic rescan interval; 0 = never */
	double next_rescan;    /* ms, monotonic */
	double retry_ms;       /* the wait after a failed scan, 0 when the last one was fine */
	double retry_at;       /* ms, monotonic: no batch before (a failed scan's wait) */
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* File systems where inotify does not see changes made elsewhere. */
static bool network_fs(const char *path)
{
	struct statfs sf;
	if (statfs(path, &sf) != 0)
		return false;
	switch ((unsigned long)sf.f_type) {
	case 0x6969UL:     /* NFS */
	case 0x517BUL:     /* SMB */
	case 0xFF534D42UL: /* CIFS */
	case 0xFE534D42UL: /* SMB2 */
	case 0x65735546UL: /* FUSE (sshfs, ...) */
	case 0x00C36400UL: /* Ceph */
	case 0x5346414FUL: /* AFS */
	case 0x01021997UL: /* 9p */
		return true;
	default:
		return false;
	}
}

static void watch_root(struct app *app, const char *root, char *msg, size_t msgsize)
{
	struct app_watch *aw = app->watch;
	if (network_fs(root))
		aw->periodic = true;
	if (!aw->w) {
		aw->periodic = true;
		return;
	}
	struct crate_err err = {0};
	int rc = mlib_watch_add_root(aw->w, root, &err);
	if (rc != 0)
		aw->periodic = true; /* gone (unmounted?), or past the limit */
	if (rc == 1 && !aw->limit_said && msg) {
		aw->limit_said = true;
		snprintf(msg, msgsize, "%s", err.msg);
	}
}

void app_watch_start(struct app *app, char *msg, size_t msgsize)
{
	if (msg && msgsize)
		msg[0] = '\0';
	if (app->watch || !app->db || mlib_db_readonly(app->db))
		return;
	struct app_watch *aw = xcalloc(1, sizeof *aw);
	app->watch = aw;
	long secs = config_get_int(app->cfg, "library.rescan_interval", 300);
	aw->interval_ms = secs > 0 ? (double)secs * 1e3 : 0;
	aw->next_rescan = now_ms() + aw->interval_ms;
	long quiet = config_get_int(app->cfg, "library.watch_quiet_ms", 400);
	struct crate_err err = {0};
	if (config_get_bool(app->cfg, "library.watch", true) &&
	    mlib_watch_new((int)quiet, &aw->w, &err) != 0) {
		aw->w = NULL;
		if (msg)
			snprintf(msg, msgsize, "%s; rescanning periodically instead", err.msg);
	}
	char **roots;
	size_t n;
	if (mlib_roots_list(app->db, &roots, &n, &err) != 0) {
		if (msg)
			snprintf(msg, msgsize, "%s", err.msg);
		return;
	}
	for (size_t i = 0; i < n; i++)
		watch_root(app, roots[i], msg, msgsize);
	mlib_roots_free(roots, n);
}

void app_watch_stop(struct app *app)
{
	if (!app->watch)
		return;
	mlib_watch_free(app->watch->w);
	free(app->watch);
	app->watch = NULL;
}

void app_watch_scanned(struct app *app, const char *const *paths, size_t n, bool ok)
{
	struct app_watch *aw = app->watch;
	if (!aw)
		return;
	if (ok) {
		aw->retry_ms = 0;
		return;
	}
	if (!aw->w)
		return; /* the periodic rescan tries again */
	aw->retry_ms = aw->retry_ms ? aw->retry_ms * 2 : 2000;
	if (aw->retry_ms > 60000)
		aw->retry_ms = 60000;
	aw->retry_at = now_ms() + aw->retry_ms;
	for (size_t i = 0; i < n; i++)
		mlib_watch_mark_changed(aw->w, paths[i]);
}

void app_watch_add(struct app *app, const char *path)
{
	if (!app->watch)
		return;
	char *abs = realpath(path, NULL);
	struct stat st;
	/* a file given to a scan is no root: nothing to watch (it turned on
	 * the periodic rescans kept for roots that cannot be watched) */
	if (abs && stat(abs, &st) == 0 && S_ISDIR(st.st_mode))
		watch_root(app, abs, NULL, 0);
	free(abs);
}

void app_watch_remove(struct app *app, const char *root)
{
	if (app->watch && app->watch->w)
		mlib_watch_remove_root(app->watch->w, root);
}

void app_watch_sync_roots(struct app *app)
{
	if (!app->watch)
		return;
	char **roots;
	size_t n;
	if (mlib_roots_list(app->db, &roots, &n, NULL) != 0)
		return;
	struct mlib_watch *w = app->watch->w;
	for (size_t i = 0; i < n; i++)
		if (!w || !mlib_watch_has_root(w, roots[i]))
			watch_root(app, roots[i], NULL, 0);
	/* Roots removed by another program (`crate roots remove`). */
	for (size_t r = 0; w && r < mlib_watch_root_count(w);) {
		const char *have = mlib_watch_root(w, r);
		bool kept = false;
		for (size_t i = 0; i < n && !kept; i++)
			kept = strcmp(roots[i], have) == 0;
		if (kept)
			r++;
		else
			mlib_watch_remove_root(w, have); /* moves the last root to r */
	}
	mlib_roots_free(roots, n);
}

int app_watch_fd(const struct app *app)
{
	return app->watch && app->watch->w ? mlib_watch_fd(app->watch->w) : -1;
}

int app_watch_timeout(const struct app *app)
{
	const struct app_watch *aw = app->watch;
	if (!aw)
		return -1;
	int t = aw->w ? mlib_watch_due_in(aw->w) : -1;
	double wait = aw->retry_at - now_ms();
	if (t == 0 && wait > 0)
		t = (int)wait + 1; /* a failed scan's paths wait their turn */
	/* Due while a scan runs: look again shortly, not in a busy loop. */
	if (t == 0 && app->scan)
		t = 200;
	if (aw->periodic && aw->interval_ms > 0) {
		double left = aw->next_rescan - now_ms();
		int p = left <= 0 ? (app->scan ? 1000 : 0) : (int)left + 1;
		if (t < 0 || p < t)
			t = p;
	}
	return t;
}

static void rescan_roots(struct app *app)
{
	struct app_watch *aw = app->watch;
	aw->next_rescan = now_ms() + aw->interval_ms;
	char **roots;
	size_t n;
	if (mlib_roots_list(app->db, &roots, &n, NULL) != 0 || n == 0)
		return;
	if (app_scan_start_auto(app, (const char *const *)roots, n, NULL) == 0 && aw->w) {
		/* A root that is back (a disk mounted again) is watched again,
		 * and once every root is, the rescans stop (they went on every
		 * rescan_interval for good after a disk came back). */
		aw->periodic = false;
		for (size_t i = 0; i < n; i++)
			watch_root(app, roots[i], NULL, 0);
		if (mlib_watch_limited(aw->w))
			aw->periodic = true;
	}
	mlib_roots_free(roots, n);
}

void app_watch_tick(struct app *app, char *msg, size_t msgsize)
{
	if (msg && msgsize)
		msg[0] = '\0';
	struct app_watch *aw = app->watch;
	if (!aw)
		return;
	if (aw->w) {
		mlib_watch_read(aw->w);
		if (mlib_watch_take_root_lost(aw->w))
			aw->periodic = true; /* as for a root gone at start-up */
		if (mlib_watch_limited(aw->w)) {
			aw->periodic = true;
			if (!aw->limit_said && msg) {
				aw->limit_said = true;
				snprintf(msg, msgsize,
					 "watch limit reached (fs.inotify.max_user_watches): raise it with "
					 "'sysctl fs.inotify.max_user_watches=524288'; meanwhile crate "
					 "rescans periodically");
			}
		}
	}
	if (app->scan)
		return; /* one scan at a time: the batch waits */
	if (aw->periodic && aw->interval_ms > 0 && now_ms() >= aw->next_rescan) {
		rescan_roots(app);
		if (aw->w) {
			size_t n;
			char **dirs = mlib_watch_take(aw->w, &n);
			for (size_t i = 0; i < n; i++)
				free(dirs[i]);
			free(dirs); /* covered by the rescan */
		}
		return;
	}
	if (!aw->w || now_ms() < aw->retry_at)
		return;
	size_t n;
	char **dirs = mlib_watch_take(aw->w, &n);
	if (n)
		app_scan_start_auto(app, (const char *const *)dirs, n, NULL);
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}
