/* Noticing another process's changes to the library (app_changes.c): play
 * statistics and ratings alone are set in the running index in place, the
 * same index answering at once; a change of tags, or one whose rows of
 * changed statistics are gone (a snapshot writer deleted them), loads the
 * index again, as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_changes.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_view.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/node.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/media.h"
#include "medialib/tags.h"
#include "test_app_util.h"
#include "test_medialib_util.h"

#define NTRACKS 200

static void fill_track(int i, struct tm_row *row, void *arg)
{
	(void)arg;
	char buf[64];
	snprintf(buf, sizeof buf, "Song %d", i);
	mlib_tags_add(&row->tags, "title", buf);
	snprintf(buf, sizeof buf, "Artist %d", i % 5);
	mlib_tags_add(&row->tags, "artist", buf);
}

/* NTRACKS items, every tenth rated 3; the path (static). */
static const char *make_library(void)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/lib.db", harness_tmpdir());
	struct crate_err err = {0};
	struct mlib_db *db = tm_write_library(path, NTRACKS, fill_track, NULL, NULL);
	REQUIRE(mlib_db_exec(db, "UPDATE media SET rating = 3 WHERE id % 10 = 0", &err) == 0);
	mlib_db_close(db);
	return path;
}

/* The interface's app on db, its start-up work (a snapshot's writer, the
 * owned copy of a mapped index) over. */
static struct app *open_settled(const char *db)
{
	struct app *app = test_app_open_db(db, true);
	for (int i = 0; app_scan_event_fd(app) >= 0 && i < 3000; i++) {
		struct app_scan_progress p;
		if (app_scan_poll(app, &p) != 1)
			usleep(5000);
	}
	REQUIRE(app_scan_event_fd(app) < 0);
	app_snapshot_wait(app);
	return app;
}

/* The change seen loads the index again (not in place): wait for the new
 * one (the index generation gen is replaced). */
static void expect_reload(struct app *app, unsigned gen)
{
	struct crate_err err = {0};
	int what = app_changes_check(app, &err);
	CHECK_MSG(what >= 0, "%s", err.msg);
	CHECK(what & APP_CHANGED_LIBRARY);
	CHECK(!(what & APP_CHANGED_STATS));
	for (int i = 0; app_scan_event_fd(app) >= 0 && i < 3000; i++) {
		struct app_scan_progress p;
		int rc = app_scan_poll(app, &p);
		if (rc == 1)
			CHECK_MSG(p.rc == 0, "%s", p.msg);
		else
			usleep(5000);
	}
	REQUIRE(app_scan_event_fd(app) < 0);
	CHECK(app_index_generation(app) != gen);
}

/* The ids a query finds, as the search bar finds them, " 1 2 3". */
static char *found(struct app *app, const char *query)
{
	struct crate_err err = {0};
	struct coll_node *n = app_parse_query(app, query, false, &err);
	REQUIRE(n != NULL);
	struct coll_result r = {0};
	CHECK_MSG(app_search(app, n, query, 0, &r, NULL, &err) == 0, "%s", err.msg);
	struct strbuf b;
	strbuf_init(&b, 64);
	for (size_t i = 0; i < r.ids.n; i++)
		strbuf_addf(&b, " %u", r.ids.v[i]);
	coll_result_free(&r);
	coll_node_unref(n);
	return strbuf_steal(&b);
}

static struct mlib_db *other_process(const char *path)
{
	struct mlib_db *db = NULL;
	struct crate_err err = {0};
	REQUIRE(mlib_db_open(path, 0, &db, &err) == 0);
	return db;
}

TEST(another_process_s_plays_and_ratings_are_set_in_place)
{
	const char *path = make_library();
	struct app *app = open_settled(path);
	const struct mlib_index *before = app->index;
	unsigned gen = app_index_generation(app);
	struct mlib_db *other = other_process(path);
	struct crate_err err = {0};
	CHECK(mlib_media_set_rating(other, NULL, 7, 5, &err) == 0);
	CHECK(mlib_media_record_play(other, NULL, 8, 1700000123, &err) == 0);
	CHECK(mlib_media_record_skip(other, NULL, 9, &err) == 0);
	CHECK(mlib_media_set_rating(other, NULL, 10, 0, &err) == 0); /* was 3 */
	mlib_db_close(other);

	int what = app_changes_check(app, &err);
	CHECK_MSG(what >= 0, "%s", err.msg);
	CHECK(what & APP_CHANGED_STATS);
	CHECK(!(what & APP_CHANGED_LIBRARY));
	CHECK(app_scan_event_fd(app) < 0); /* no reload started */
	CHECK(app->index == before);
	CHECK_INT(app_index_generation(app), gen);
	CHECK_INT(test_app_int_of(app, 7, "rating"), 5);
	CHECK_INT(test_app_int_of(app, 8, "timesplayed"), 1);
	CHECK_INT(test_app_int_of(app, 8, "lastplayed"), 1700000123);
	CHECK_INT(test_app_int_of(app, 9, "timesskipped"), 1);
	CHECK_INT(test_app_int_of(app, 10, "rating"), -1); /* cleared */
	char *got = found(app, "rating:5");
	CHECK_STR(got, " 7");
	free(got);
	CHECK_INT(app_changes_check(app, &err), 0); /* nothing new since */
	app_close(app);
}

TEST(another_process_s_tags_still_load_the_index_again)
{
	const char *path = make_library();
	struct app *app = open_settled(path);
	unsigned gen = app_index_generation(app);
	struct mlib_db *other = other_process(path);
	struct crate_err err = {0};
	CHECK(mlib_media_set_rating(other, NULL, 7, 5, &err) == 0);
	CHECK(mlib_db_exec(other, "UPDATE media SET title = 'Renamed' WHERE id = 11", &err) == 0);
	mlib_db_close(other);

	expect_reload(app, gen);
	CHECK_INT(test_app_int_of(app, 7, "rating"), 5);
	char *got = found(app, "title:renamed");
	CHECK_STR(got, " 11");
	free(got);
	app_close(app);
}

TEST(changes_whose_rows_are_gone_load_the_index_again)
{
	const char *path = make_library();
	struct app *app = open_settled(path);
	unsigned gen = app_index_generation(app);
	struct mlib_db *other = other_process(path);
	struct crate_err err = {0};
	CHECK(mlib_media_set_rating(other, NULL, 12, 4, &err) == 0);
	/* as after another process wrote a snapshot holding that rating */
	CHECK(mlib_db_exec(other, "UPDATE media_generation SET stats_kept = stats;"
				  " DELETE FROM media_stats_dirty", &err) == 0);
	mlib_db_close(other);

	expect_reload(app, gen);
	CHECK_INT(test_app_int_of(app, 12, "rating"), 4);
	app_close(app);
}
