#include "app/app_changes.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "app/app_analysis.h"
#include "app/app_library.h"
#include "app/app_watch.h"
#include "app/rules.h"
#include "coll/store.h"
#include "medialib/db.h"
#include "medialib/media.h"

int app_changes_check(struct app *app, struct crate_err *err)
{
	if (!app->db)
		return 0;
	int64_t v;
	if (mlib_db_data_version(app->db, &v, err) != 0)
		return -1;
	if (v == app->data_version && !app->changes_pending)
		return 0;
	app->data_version = v;
	app->changes_pending = false;
	int what = 0;
	bool changed = false;
	if (app->store) {
		if (coll_store_refresh(app->store, &changed, err) != 0)
			return -1;
		if (changed)
			what |= APP_CHANGED_COLLECTIONS;
	}
	if (app->rules) {
		if (rules_reload(app->rules, &changed, err) != 0)
			return -1;
		if (changed)
			what |= APP_CHANGED_RULES;
	}
	app_watch_sync_roots(app);
	uint64_t gen, stats;
	if (mlib_media_counters(app->db, &gen, &stats, err) != 0)
		return -1;
	if (gen == app->index_gen && stats == app->index_stats)
		return what;
	if (app->scan || app_analysis_defers_reload(app)) {
		/* A scan or rebuild runs, or the background analysis commits
		 * file after file: look again when it is over (or later). */
		app->changes_pending = true;
		return what;
	}
	if (gen == app->index_gen) {
		/* Plays, skips or ratings alone: set in place. A reload at a
		 * million tracks took the interface 0.65 s of CPU (the index and
		 * the search bar's tables made again) for each one. */
		bool applied;
		if (app_index_refresh_stats(app, &applied, err) != 0)
			return -1;
		if (applied)
			return what | APP_CHANGED_STATS;
	}
	if (app_index_reload_start(app, err) != 0) {
		app->changes_pending = true;
		return -1;
	}
	return what | APP_CHANGED_LIBRARY;
}

int app_changes_fd(struct app *app)
{
	if (app->changes_fd)
		return app->changes_fd;
	app->changes_fd = -1;
	const char *path = app->db ? mlib_db_path(app->db) : NULL;
	if (!path || !*path || strcmp(path, ":memory:") == 0)
		return -1;
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd >= 0 && inotify_add_watch(fd, slash ? dir : ".",
					 IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
		close(fd);
		fd = -1;
	}
	free(dir);
	app->changes_fd = fd;
	return fd;
}

bool app_changes_drain(struct app *app)
{
	if (app->changes_fd <= 0)
		return false;
	const char *path = mlib_db_path(app->db);
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t blen = strlen(base);
	bool ours = false;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;
	while ((len = read(app->changes_fd, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			/* library.db, library.db-wal, library.db-journal */
			if (ev->len && strncmp(ev->name, base, blen) == 0 &&
			    (ev->name[blen] == '\0' || ev->name[blen] == '-'))
				ours = true;
			if (ev->mask & IN_Q_OVERFLOW)
				ours = true;
			p += sizeof *ev + ev->len;
		}
	}
	return ours;
}

void app_changes_close(struct app *app)
{
	if (app->changes_fd > 0)
		close(app->changes_fd);
	app->changes_fd = 0;
}
