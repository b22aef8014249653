/* The file-system view's listing (base/dirlist.h) and its questions to
 * the library (app/app_files.h): order, hidden names, names that are not
 * UTF-8, unreadable folders, in-library marks and folder counts, the
 * items of a folder in the view's order, where the view starts. Real
 * folders in the test's private directory, a real index. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app_files.h"
#include "app/app_library.h"
#include "base/dirlist.h"
#include "base/str.h"
#include "base/utf8.h"
#include "harness.h"
#include "medialib/roots.h"
#include "test_app_util.h"

static char *mk(const char *dir, const char *name, bool folder)
{
	char *p = dirlist_join(dir, name);
	if (folder) {
		REQUIRE(mkdir(p, 0755) == 0);
	} else {
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		REQUIRE(fd >= 0);
		close(fd);
	}
	return p;
}

static char *fresh_dir(const char *name)
{
	char *d = dirlist_join(harness_tmpdir(), name);
	REQUIRE(mkdir(d, 0755) == 0);
	return d;
}

static void touch(const char *dir, const char *name, bool folder)
{
	free(mk(dir, name, folder));
}

/* The names shown, joined with '|', folders ending in '/'. */
static char *shown(const struct dirlist *dl, bool hidden, const char *find)
{
	size_t *vis = xcalloc(dl->n + 1, sizeof *vis);
	size_t n = dirlist_visible(dl, hidden, find, vis);
	struct strbuf b;
	strbuf_init(&b, 64);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&b, "%s%s%s", i ? "|" : "", dl->v[vis[i]].name, dl->v[vis[i]].dir ? "/" : "");
	free(vis);
	return strbuf_steal(&b);
}

TEST(folders_first_then_natural_case_insensitive_order)
{
	char *d = fresh_dir("order");
	const char *files[] = {"track10.flac", "Track9.flac", "b.mp3", "A.ogg", "track1.flac"};
	for (size_t i = 0; i < 5; i++)
		touch(d, files[i], false);
	touch(d, "zeta", true);
	touch(d, "Disc 10", true);
	touch(d, "disc 2", true);
	struct dirlist dl;
	struct crate_err err = {0};
	REQUIRE(dirlist_read(d, &dl, &err) == 0);
	char *s = shown(&dl, false, NULL);
	CHECK_STR(s, "disc 2/|Disc 10/|zeta/|A.ogg|b.mp3|track1.flac|Track9.flac|track10.flac");
	free(s);
	dirlist_free(&dl);
	free(d);
}

TEST(hidden_names_show_only_when_asked_and_the_find_filters)
{
	char *d = fresh_dir("hidden");
	touch(d, ".cache", true);
	touch(d, ".secret.mp3", false);
	touch(d, "Song.mp3", false);
	touch(d, "other.ogg", false);
	struct dirlist dl;
	struct crate_err err = {0};
	REQUIRE(dirlist_read(d, &dl, &err) == 0);
	CHECK_INT(dl.n, 4); /* read once: all of them; the toggle only filters */
	char *s = shown(&dl, false, NULL);
	CHECK_STR(s, "other.ogg|Song.mp3");
	free(s);
	s = shown(&dl, true, NULL);
	CHECK_STR(s, ".cache/|.secret.mp3|other.ogg|Song.mp3");
	free(s);
	s = shown(&dl, true, "SONG"); /* case-insensitive */
	CHECK_STR(s, "Song.mp3");
	free(s);
	s = shown(&dl, false, ".mp3"); /* the hidden one stays hidden */
	CHECK_STR(s, "Song.mp3");
	free(s);
	dirlist_free(&dl);
	free(d);
}

TEST(names_that_are_not_utf8_are_listed_as_their_bytes)
{
	char *d = fresh_dir("bytes");
	touch(d, "caf\xe9.mp3", false); /* Latin-1 */
	touch(d, "esc\x1b[2J.mp3", false); /* a control character */
	touch(d, "plain.mp3", false);
	struct dirlist dl;
	struct crate_err err = {0};
	REQUIRE(dirlist_read(d, &dl, &err) == 0);
	CHECK_INT(dl.n, 3);
	bool latin = false, esc = false;
	for (size_t i = 0; i < dl.n; i++) {
		latin |= strcmp(dl.v[i].name, "caf\xe9.mp3") == 0;
		esc |= strcmp(dl.v[i].name, "esc\x1b[2J.mp3") == 0;
		/* The key is valid UTF-8 (for the order and the find). */
		CHECK(utf8_valid(dl.v[i].key, strlen(dl.v[i].key)));
	}
	CHECK(latin);
	CHECK(esc);
	/* The path joins the raw bytes: the file opens. */
	char *p = dirlist_join(d, "caf\xe9.mp3");
	CHECK(access(p, F_OK) == 0);
	free(p);
	dirlist_free(&dl);
	free(d);
}

TEST(an_unreadable_folder_is_an_error_that_says_why)
{
	struct dirlist dl = {0};
	struct crate_err err = {0};
	char *gone = dirlist_join(harness_tmpdir(), "no-such-folder");
	CHECK(dirlist_read(gone, &dl, &err) != 0);
	CHECK_INT(err.code, CRATE_ERR_IO);
	CHECK(strstr(err.msg, "No such file") != NULL);
	CHECK(strstr(err.msg, "no-such-folder") != NULL);
	CHECK(dl.v == NULL && dl.n == 0);
	free(gone);
	char *locked = fresh_dir("locked");
	touch(locked, "x.mp3", false);
	if (geteuid() == 0) {
		/* Root reads anything: become nobody for the rest of this
		 * (forked) test. */
		chmod(harness_tmpdir(), 0755);
		REQUIRE(chown(locked, 65534, 65534) == 0);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			harness_skip("cannot drop root privileges to test EACCES");
	}
	REQUIRE(chmod(locked, 0) == 0);
	crate_err_clear(&err);
	CHECK(dirlist_read(locked, &dl, &err) != 0);
	CHECK(strstr(err.msg, "Permission denied") != NULL);
	free(locked);
}

TEST(paths_parents_and_the_order_of_paths)
{
	char *p = dirlist_join("/", "a");
	CHECK_STR(p, "/a");
	free(p);
	p = dirlist_join("/m", "a");
	CHECK_STR(p, "/m/a");
	free(p);
	const char *cases[][2] = {{"/m/a/b", "/m/a"}, {"/m/a/", "/m"}, {"/m", "/"}, {"/", "/"}};
	for (size_t i = 0; i < 4; i++) {
		p = dirlist_parent(cases[i][0]);
		CHECK_STR(p, cases[i][1]);
		free(p);
	}
	/* A folder's files come after its subfolders, at every level. */
	CHECK(dirlist_path_cmp("/m/z/1.mp3", "/m/a.mp3") < 0);
	CHECK(dirlist_path_cmp("/m/track2.mp3", "/m/track10.mp3") < 0);
	CHECK(dirlist_path_cmp("/m/x.flac#2", "/m/x.flac#10") < 0);
	CHECK(dirlist_path_cmp("/m/a", "/m/a") == 0);
}

/* An index of the given urls (ids 1..n). */
static struct mlib_index *urls_index(const char *const *urls, size_t n)
{
	struct mlib_index *idx = mlib_index_new();
	for (size_t i = 0; i < n; i++) {
		uint32_t id = (uint32_t)i + 1;
		mlib_index_add_media(idx, id);
		mlib_index_add_str(idx, id, "url", urls[i], strlen(urls[i]));
	}
	mlib_index_finish(idx);
	return idx;
}

TEST(library_items_are_marked_and_folders_count_them)
{
	char *d = fresh_dir("lib");
	char *sub = mk(d, "Album", true);
	char *deep = mk(sub, "CD1", true);
	touch(d, "Empty", true);
	touch(d, "in.flac", false);
	touch(d, "out.flac", false);
	touch(d, "split.flac", false);
	touch(d, "split.cue", false);
	touch(sub, "1.flac", false);
	touch(deep, "2.flac", false);
	char *u_in = dirlist_join(d, "in.flac"), *u1 = dirlist_join(sub, "1.flac");
	char *u2 = dirlist_join(deep, "2.flac");
	char *cue1 = xasprintf("%s/split.flac#1", d), *cue2 = xasprintf("%s/split.flac#2", d);
	char *other = xasprintf("%sx/in.flac", d); /* a sibling folder sharing the prefix */
	const char *urls[] = {u_in, u1, u2, cue2, cue1, other};
	struct app *app = test_app_open();
	app_index_replace(app, urls_index(urls, 6));
	struct dirlist dl;
	struct crate_err err = {0};
	REQUIRE(dirlist_read(d, &dl, &err) == 0);
	app_files_mark(app, &dl);
	for (size_t i = 0; i < dl.n; i++) {
		const struct dirlist_entry *e = &dl.v[i];
		if (strcmp(e->name, "in.flac") == 0)
			CHECK_INT(e->id, 1);
		else if (strcmp(e->name, "out.flac") == 0)
			CHECK_INT(e->id, 0);
		else if (strcmp(e->name, "split.flac") == 0)
			CHECK(e->id == 4 || e->id == 5); /* a cue sheet's track */
		else if (strcmp(e->name, "Album") == 0)
			CHECK_INT(e->count, 2);
		else if (strcmp(e->name, "Empty") == 0)
			CHECK_INT(e->count, 0);
	}
	/* The items of a folder in the view's order: subfolders first. */
	struct u32vec ids = {0};
	app_files_items(app, d, &ids);
	REQUIRE(ids.n == 5);
	CHECK_INT(ids.v[0], 3); /* Album/CD1/2.flac */
	CHECK_INT(ids.v[1], 2); /* Album/1.flac */
	CHECK_INT(ids.v[2], 1); /* in.flac */
	CHECK_INT(ids.v[3], 5); /* split.flac#1 */
	CHECK_INT(ids.v[4], 4); /* split.flac#2 */
	ids.n = 0;
	char *split = dirlist_join(d, "split.flac");
	app_files_items(app, split, &ids); /* a file: its cue tracks */
	CHECK_INT(ids.n, 2);
	ids.n = 0;
	char *sheet = dirlist_join(d, "split.cue");
	app_files_items(app, sheet, &ids); /* its sheet: the same (Enter played the text) */
	CHECK(ids.n == 2 && ids.v[0] == 5 && ids.v[1] == 4);
	free(sheet);
	ids.n = 0;
	app_files_items(app, u_in, &ids);
	CHECK(ids.n == 1 && ids.v[0] == 1);
	u32vec_free(&ids);
	dirlist_free(&dl);
	test_app_close(app);
	free(split);
	free(u_in); free(u1); free(u2); free(cue1); free(cue2); free(other);
	free(deep); free(sub); free(d);
}

TEST(the_view_starts_at_the_folder_holding_every_root_or_home)
{
	struct app *app = test_app_open();
	setenv("HOME", "/home/someone", 1);
	char *s = app_files_start(app);
	CHECK_STR(s, "/home/someone");
	free(s);
	char *d = fresh_dir("roots");
	char *a = mk(d, "Music", true), *b = mk(d, "Musicals", true);
	char *c = mk(a, "Jazz", true);
	struct crate_err err = {0};
	REQUIRE(mlib_roots_add(app->db, c, &err) == 0);
	s = app_files_start(app);
	CHECK_STR(s, c);
	free(s);
	REQUIRE(mlib_roots_add(app->db, b, &err) == 0);
	s = app_files_start(app);
	CHECK_STR(s, d); /* not ".../Music": Musicals only shares the prefix */
	free(s);
	test_app_close(app);
	free(a); free(b); free(c); free(d);
}

/* A folder of 20,000 files opens at interactive speed: read, sorted and
 * marked against a library of 100,000 items (FILES_NURLS=N for another
 * size: 1,000,000 measures a large library). */
TEST(a_folder_of_20000_entries_reads_sorts_and_marks_quickly)
{
	char *d = fresh_dir("big");
	size_t nurls = getenv("FILES_NURLS") ? strtoul(getenv("FILES_NURLS"), NULL, 10) : 100000;
	char **urls = xcalloc(nurls, sizeof *urls);
	for (size_t i = 0; i < 20000; i++) {
		char name[64];
		snprintf(name, sizeof name, "Track %zu.flac", (i * 7919) % 20000);
		touch(d, name, false);
	}
	for (size_t i = 0; i < nurls; i++)
		urls[i] = i % 2 ? xasprintf("%s/Track %zu.flac", d, i / 2)
				: xasprintf("/elsewhere/%zu/x.flac", i);
	struct app *app = test_app_open();
	app_index_replace(app, urls_index((const char *const *)urls, nurls));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct dirlist dl;
	struct crate_err err = {0};
	REQUIRE(dirlist_read(d, &dl, &err) == 0);
	struct timespec tr;
	clock_gettime(CLOCK_MONOTONIC, &tr);
	app_files_mark(app, &dl);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	double rms = (double)(tr.tv_sec - t0.tv_sec) * 1e3 + (double)(tr.tv_nsec - t0.tv_nsec) / 1e6;
	fprintf(stderr, "    20000 entries: read and sorted %.1f ms, marked against %zu items %.1f ms\n",
		rms, nurls, ms - rms);
	CHECK_INT(dl.n, 20000);
	CHECK_STR(dl.v[0].name, "Track 0.flac");
	CHECK_STR(dl.v[19999].name, "Track 19999.flac");
	size_t marked = 0;
	for (size_t i = 0; i < dl.n; i++)
		marked += dl.v[i].id != 0;
	CHECK_INT(marked, 20000);
	CHECK_MSG(ms < 1000, "took %.0f ms", ms); /* generous: a loaded CI machine */
	dirlist_free(&dl);
	test_app_close(app);
	for (size_t i = 0; i < nurls; i++)
		free(urls[i]);
	free(urls);
	free(d);
}
