/* medialib/watch.c on real folders with real inotify, and the scanner's
 * move detection that the watch relies on: a burst is one batch, a file
 * being written holds its batch until it is closed, new folders are
 * watched, a moved folder keeps its ids, and the watch limit (a tiny
 * fs.inotify limit in a user namespace: the real ENOSPC) is reported. */
#include <errno.h>
#include <sched.h>
#include <time.h>

#include "medialib/index.h"
#include "medialib/index_load.h"
#include "medialib/media.h"
#include "medialib/scan.h"
#include "medialib/watch.h"
#include "test_medialib_util.h"

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static struct mlib_watch *watch_dir(const char *dir, int quiet_ms)
{
	struct mlib_watch *w = NULL;
	struct crate_err err = {0};
	REQUIRE(mlib_watch_new(quiet_ms, &w, &err) == 0);
	CHECK_MSG(mlib_watch_add_root(w, dir, &err) == 0, "%s", err.msg);
	return w;
}

/* Read events until a batch is taken or ms pass; returns the batch. */
static char **wait_batch(struct mlib_watch *w, int ms, size_t *n)
{
	for (int t = 0; t < ms; t += 20) {
		mlib_watch_read(w);
		char **v = mlib_watch_take(w, n);
		if (*n)
			return v;
		free(v);
		sleep_ms(20);
	}
	*n = 0;
	return NULL;
}

static void free_batch(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static char *canon(const char *name)
{
	char *p = tm_path(name);
	mkdir(p, 0755);
	char *r = realpath(p, NULL);
	free(p);
	REQUIRE(r != NULL);
	return r;
}

TEST(a_burst_of_500_files_is_one_batch)
{
	char *dir = canon("music");
	char *sub = xasprintf("%s/new", dir);
	mkdir(sub, 0755);
	struct mlib_watch *w = watch_dir(dir, 300);
	char *src = xasprintf("%s/src.flac", harness_tmpdir());
	const char *meta[] = {"title=Burst", NULL};
	tm_make_audio(src, 0.1, meta);
	for (int i = 0; i < 500; i++) {
		char *f = xasprintf("%s/f%03d.flac", sub, i);
		tm_copy_file(src, f);
		free(f);
		if (i % 100 == 0)
			mlib_watch_read(w); /* as the interface would, mid-copy */
	}
	size_t n;
	char **v = wait_batch(w, 3000, &n);
	REQUIRE(n == 1);
	CHECK_STR(v[0], sub);
	free_batch(v, n);
	/* Nothing more: the burst was one batch. */
	v = wait_batch(w, 600, &n);
	CHECK_INT(n, 0);
	free_batch(v, n);
	mlib_watch_free(w);
	free(src); free(sub); free(dir);
}

TEST(a_file_being_written_holds_its_batch_until_closed)
{
	char *dir = canon("music");
	struct mlib_watch *w = watch_dir(dir, 200);
	char *src = xasprintf("%s/src.flac", harness_tmpdir());
	const char *meta[] = {"title=Slow", NULL};
	tm_make_audio(src, 1.0, meta);
	size_t len;
	char *bytes = tm_read_file(src, &len);
	char *dst = xasprintf("%s/slow.flac", dir);
	int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	REQUIRE(fd >= 0);
	/* 10 chunks over 2 s, the file open all along. */
	for (int c = 0; c < 10; c++) {
		size_t from = len * (size_t)c / 10, to = len * (size_t)(c + 1) / 10;
		REQUIRE(write(fd, bytes + from, to - from) == (ssize_t)(to - from));
		sleep_ms(200);
		mlib_watch_read(w);
		size_t n;
		char **v = mlib_watch_take(w, &n);
		CHECK_MSG(n == 0, "a batch was due while the file was being written (chunk %d)", c);
		free_batch(v, n);
	}
	close(fd);
	size_t n;
	char **v = wait_batch(w, 2000, &n);
	CHECK_INT(n, 1);
	free_batch(v, n);
	mlib_watch_free(w);
	free(bytes); free(dst); free(src); free(dir);
}

TEST(new_folders_are_watched_and_moves_keep_ids)
{
	char *dir = canon("music");
	struct mlib_watch *w = watch_dir(dir, 200);
	char *a = xasprintf("%s/a", dir), *a2 = xasprintf("%s/a/deeper", dir);
	mkdir(a, 0755);
	mkdir(a2, 0755);
	size_t n;
	char **v = wait_batch(w, 2000, &n);
	free_batch(v, n);
	/* A file in the new, deeper folder is seen. */
	char *f = xasprintf("%s/x.flac", a2);
	const char *meta[] = {"title=Deep", NULL};
	tm_make_audio(f, 0.1, meta);
	v = wait_batch(w, 3000, &n);
	REQUIRE(n == 1);
	CHECK_STR(v[0], a2);
	free_batch(v, n);

	/* Scan, then move the folder: the batch names both places, and the
	 * scanner gives the file its old id at the new path. */
	char *dbp = tm_path("lib.db");
	struct mlib_db *db = NULL;
	struct crate_err err = {0};
	REQUIRE(mlib_db_open(dbp, 0, &db, &err) == 0);
	struct mlib_scan_result res;
	const char *roots[] = {dir};
	REQUIRE(mlib_scan(db, roots, 1, NULL, &res, &err) == 0);
	CHECK_INT(res.totals.added, 1);
	mlib_scan_result_free(&res);
	uint32_t id = 0;
	REQUIRE(mlib_media_find_url(db, f, strlen(f), &id, &err) == 0);
	char *b = xasprintf("%s/b", dir);
	mkdir(b, 0755);
	char *moved = xasprintf("%s/b/deeper", dir);
	v = wait_batch(w, 2000, &n);
	free_batch(v, n);
	REQUIRE(rename(a2, moved) == 0);
	v = wait_batch(w, 3000, &n);
	REQUIRE(n >= 1);
	REQUIRE(mlib_scan(db, (const char *const *)v, n, NULL, &res, &err) == 0);
	CHECK_INT(res.totals.updated, 1);
	CHECK_INT(res.totals.added, 0);
	CHECK_INT(res.totals.missing, 0);
	mlib_scan_result_free(&res);
	free_batch(v, n);
	char *nf = xasprintf("%s/x.flac", moved);
	uint32_t id2 = 0;
	CHECK(mlib_media_find_url(db, nf, strlen(nf), &id2, &err) == 0);
	CHECK_INT(id2, id);
	/* The moved folder is watched under its new name. */
	char *g = xasprintf("%s/y.flac", moved);
	tm_copy_file(nf, g);
	v = wait_batch(w, 3000, &n);
	REQUIRE(n == 1);
	CHECK_STR(v[0], moved);
	free_batch(v, n);
	/* A folder deleted: its parent is what changed, not the folder (a
	 * scan of a folder that is gone would be an error). */
	REQUIRE(unlink(g) == 0 && unlink(nf) == 0 && rmdir(moved) == 0);
	v = wait_batch(w, 3000, &n);
	REQUIRE(n == 1);
	CHECK_STR(v[0], b);
	free_batch(v, n);
	mlib_db_close(db);
	mlib_watch_free(w);
	free(g); free(nf); free(moved); free(b); free(dbp); free(f); free(a); free(a2); free(dir);
}

/* Hidden names are not the library's (the scanner skips them): a hidden
 * folder is not watched, and files coming and going under hidden names
 * (macOS's ._ files, rsync's temporary copies, a .Trash-1000 made) make
 * no batch; the file they became does. */
TEST(hidden_names_make_no_batch)
{
	char *dir = canon("hidden_music");
	char *stv = xasprintf("%s/.stversions", dir);
	mkdir(stv, 0755);
	struct mlib_watch *w = watch_dir(dir, 100);
	CHECK_INT(mlib_watch_count(w), 1); /* the root alone */
	char *old = xasprintf("%s/song~20240501.flac", stv);
	char *tmp = xasprintf("%s/.song.flac.Xy12Ab", dir);
	char *apple = xasprintf("%s/._song.flac", dir);
	char *trash = xasprintf("%s/.Trash-1000", dir);
	tm_write_file(old, "old", 3);
	tm_write_file(tmp, "partial", 7);
	tm_write_file(apple, "\0\5\26\7", 4);
	REQUIRE(mkdir(trash, 0755) == 0);
	size_t n;
	char **v = wait_batch(w, 600, &n);
	CHECK_MSG(n == 0, "a batch for hidden names: %s", n ? v[0] : "");
	free_batch(v, n);
	CHECK_INT(mlib_watch_count(w), 1);
	char *song = xasprintf("%s/song.flac", dir);
	REQUIRE(rename(tmp, song) == 0);
	v = wait_batch(w, 2000, &n);
	REQUIRE(n == 1);
	CHECK_STR(v[0], dir);
	free_batch(v, n);
	mlib_watch_free(w);
	free(song); free(trash); free(apple); free(tmp); free(old); free(stv); free(dir);
}

/* A root renamed away: its batch names the root (now gone, so its items
 * go missing), the caller is told to rescan for its return, and the
 * watches that followed the folder are dropped (they would report its
 * new files under the root's old name). */
TEST(a_root_moved_away_is_lost_and_unwatched)
{
	char *dir = canon("moving_root");
	char *sub = xasprintf("%s/sub", dir);
	mkdir(sub, 0755);
	struct mlib_watch *w = watch_dir(dir, 100);
	CHECK_INT(mlib_watch_count(w), 2);
	CHECK(!mlib_watch_take_root_lost(w));
	char *away = xasprintf("%s.away", dir);
	REQUIRE(rename(dir, away) == 0);
	size_t n;
	char **v = wait_batch(w, 2000, &n);
	REQUIRE(n == 1);
	CHECK_STR(v[0], dir);
	free_batch(v, n);
	CHECK(mlib_watch_take_root_lost(w));
	CHECK_INT(mlib_watch_count(w), 0);
	char *f = xasprintf("%s/sub/late.flac", away);
	tm_write_file(f, "x", 1);
	v = wait_batch(w, 500, &n);
	CHECK_MSG(n == 0, "a batch from the moved folder: %s", n ? v[0] : "");
	free_batch(v, n);
	mlib_watch_free(w);
	free(f); free(away); free(sub); free(dir);
}

/* A folder linked into a root (a library merged from two disks) is
 * watched, and its events name the real folder holding the link, which
 * the scanner walks under the names it stored; a link made later too; a
 * link back into the tree is not watched twice. Links were not followed:
 * files added there were never seen while the interface ran. */
TEST(linked_folders_are_watched_under_the_folder_holding_the_link)
{
	char *dir = canon("linked_root");
	char *outside = canon("linked_outside");
	char *more = canon("linked_more");
	char *extra = xasprintf("%s/Extra", dir), *self = xasprintf("%s/self", dir);
	char *morelink = xasprintf("%s/More", dir);
	REQUIRE(symlink(outside, extra) == 0 && symlink(".", self) == 0);
	struct mlib_watch *w = watch_dir(dir, 100);
	CHECK_INT(mlib_watch_count(w), 2); /* the root and the linked folder */
	char *f = xasprintf("%s/new.flac", outside);
	tm_write_file(f, "x", 1);
	size_t n;
	char **v = wait_batch(w, 2000, &n);
	REQUIRE(n == 1);
	CHECK_STR(v[0], dir);
	free_batch(v, n);
	REQUIRE(symlink(more, morelink) == 0);
	v = wait_batch(w, 2000, &n);
	free_batch(v, n);
	CHECK_INT(mlib_watch_count(w), 3);
	char *g = xasprintf("%s/late.flac", more);
	tm_write_file(g, "x", 1);
	v = wait_batch(w, 2000, &n);
	REQUIRE(n == 1);
	CHECK_STR(v[0], dir);
	free_batch(v, n);
	/* A link removed: its folder is no longer the library's. */
	REQUIRE(unlink(morelink) == 0);
	v = wait_batch(w, 2000, &n);
	free_batch(v, n);
	CHECK_INT(mlib_watch_count(w), 2);
	mlib_watch_free(w);
	free(g); free(f); free(morelink); free(self); free(extra); free(more); free(outside);
	free(dir);
}

/* A folder unreadable when the watch began could not be watched; made
 * readable (chmod) later, it stayed unwatched, so files added to it were
 * never seen while crate ran. Root reads every folder: the watch runs in a
 * user namespace of its own (where the folder's owner is nobody it knows),
 * and a helper left outside it makes the folder readable. */
TEST(a_folder_made_readable_is_watched_from_then)
{
	char *dir = canon("music"), *sub = xasprintf("%s/locked", dir);
	REQUIRE(mkdir(sub, 0755) == 0 && chmod(sub, 0) == 0);
	int go[2];
	REQUIRE(pipe(go) == 0);
	pid_t helper = fork();
	REQUIRE(helper >= 0);
	if (helper == 0) {
		char c;
		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 && chmod(sub, 0777) == 0 ? 0 : 1);
	}
	close(go[0]);
	if (unshare(CLONE_NEWUSER) != 0 || access(sub, R_OK) == 0) {
		close(go[1]);
		waitpid(helper, NULL, 0);
		harness_skip("cannot run where the folder is unreadable (user namespaces)");
	}
	struct mlib_watch *w = watch_dir(dir, 50);
	CHECK_INT(mlib_watch_count(w), 1);
	int status = 1;
	REQUIRE(write(go[1], "x", 1) == 1);
	close(go[1]);
	REQUIRE(waitpid(helper, &status, 0) == helper && status == 0);
	size_t n;
	char **chmodded = wait_batch(w, 3000, &n); /* the chmod: the parent is looked at */
	free_batch(chmodded, n); /* n is read after wait_batch sets it */
	CHECK_INT(mlib_watch_count(w), 2);
	char *f = xasprintf("%s/new.flac", sub);
	tm_write_file(f, "x", 1);
	char **v = wait_batch(w, 3000, &n);
	CHECK_MSG(n == 1 && strcmp(v[0], sub) == 0, "%zu folders changed, first %s", n,
		  n ? v[0] : "none");
	free_batch(v, n);
	mlib_watch_free(w);
	free(f);
	free(sub);
	free(dir);
}

/* The real ENOSPC: in a user namespace of our own, fs.inotify's limit
 * for it (/proc/sys/user/max_inotify_watches) is set to 3. */
TEST(the_watch_limit_is_reported_with_the_sysctl)
{
	char *dir = canon("music");
	for (int i = 0; i < 8; i++) {
		char *d = xasprintf("%s/d%d", dir, i);
		mkdir(d, 0755);
		free(d);
	}
	if (unshare(CLONE_NEWUSER) != 0)
		harness_skip("no user namespaces here: %s", strerror(errno));
	FILE *f = fopen("/proc/sys/user/max_inotify_watches", "w");
	if (!f || fprintf(f, "3\n") < 0 || fclose(f) != 0)
		harness_skip("cannot set max_inotify_watches in a user namespace");
	struct mlib_watch *w = NULL;
	struct crate_err err = {0};
	REQUIRE(mlib_watch_new(200, &w, &err) == 0);
	CHECK_INT(mlib_watch_add_root(w, dir, &err), 1);
	CHECK(mlib_watch_limited(w));
	CHECK(strstr(err.msg, "fs.inotify.max_user_watches") != NULL);
	CHECK(strstr(err.msg, "sysctl") != NULL);
	CHECK_INT(mlib_watch_count(w), 3);
	mlib_watch_free(w);
	free(dir);
}
