/* Streams as library items (see app_stream.h). */
#include "app/app_stream.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "app/app_coll.h"
#include "app/app_library.h"
#include "base/utf8.h"
#include "coll/store.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "medialib/media.h"
#include "medialib/tags.h"
#include "play/decoder.h"

bool app_is_stream_url(const char *s)
{
	return decoder_is_stream_url(s);
}

/* The title a playlist file gives a stream (its station's name), as
 * UTF-8 (a Latin-1 M3U's bytes read as Latin-1); owned, NULL for none. */
static char *stream_title(const char *title)
{
	if (!title || !*title)
		return NULL;
	size_t len = strlen(title);
	return utf8_valid(title, len) ? xstrdup(title) : utf8_from_latin1(title, len, NULL);
}

/* The title row id has stored, missing or not; owned, NULL for none. */
static char *stored_title(struct app *app, uint32_t id)
{
	struct strbuf b;
	strbuf_init(&b, 64);
	struct crate_err ignore = {0};
	if (mlib_media_stored_text(app->db, id, "title", "", &b, &ignore) != 1) {
		strbuf_free(&b);
		return NULL;
	}
	return strbuf_steal(&b);
}

/* Write the row of url with title t (NULL: none) in one transaction;
 * the index is the caller's to bring up to date. */
static int put_stream(struct app *app, const char *url, size_t len, const char *t, uint32_t *id,
		      struct crate_err *err)
{
	if (mlib_db_begin(app->db, err) != 0)
		return -1;
	struct mlib_media_writer *w = mlib_media_writer_new(app->db, err);
	struct mlib_tags tags;
	mlib_tags_init(&tags);
	if (t)
		mlib_tags_add(&tags, "title", t);
	int rc = w ? mlib_media_put(w, url, len, 0, 0, (int64_t)time(NULL), &tags, id, err) : -1;
	mlib_tags_free(&tags);
	mlib_media_writer_free(w);
	if (rc != 0) {
		struct crate_err ignore = {0};
		mlib_db_rollback(app->db, &ignore);
		return -1;
	}
	return mlib_db_commit(app->db, err);
}

int app_stream_item(struct app *app, const char *url, const char *title, uint32_t *id,
		    struct crate_err *err)
{
	size_t len = strlen(url);
	if (!app_is_stream_url(url) || len > 4096)
		return crate_err_set(err, CRATE_ERR_INVALID, "not an http(s) URL: %.200s", url);
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return crate_err_set(err, CRATE_ERR_INVALID,
					     "a URL cannot hold spaces or control characters");
	struct crate_err nf = {0};
	/* A name the library has (given before, the row since marked missing
	 * or not) is kept: it is written back, not replaced or erased. */
	char *t = NULL;
	if (mlib_media_find_url(app->db, url, len, id, &nf) == 0) {
		t = stored_title(app, *id);
		bool present = app->index && mlib_index_has_media(app->index, *id);
		if (present && (t || !title)) {
			free(t);
			return 0;
		}
	}
	if (!t)
		t = stream_title(title);
	int rc = put_stream(app, url, len, t, id, err);
	free(t);
	if (rc != 0)
		return -1;
	return app_reload_index(app, err);
}

void app_stream_name_station(struct app *app, uint32_t id, const char *station)
{
	if (!id || !station[0] || !app->db || !app->index || mlib_db_readonly(app->db) ||
	    !mlib_index_has_media(app->index, id))
		return;
	char ub[4096 + 1], tb[16];
	const char *url = mlib_index_get_text(app->index, id, "url", ub, sizeof ub);
	if (!url || !app_is_stream_url(url) || mlib_index_get_text(app->index, id, "title", tb, sizeof tb))
		return;
	char *stored = stored_title(app, id);
	if (stored) { /* given meanwhile: the index has yet to show it */
		free(stored);
		return;
	}
	uint32_t got;
	struct crate_err ignore = {0};
	/* A write of one row now; the index (a full reload at a million
	 * tracks) is rebuilt in the background, as after another process's
	 * commit (app_changes_check). */
	if (put_stream(app, url, strlen(url), station, &got, &ignore) == 0)
		app->changes_pending = true;
}

int app_playlist_add_stream(struct app *app, const char *name, size_t pos, const char *url,
			    struct crate_err *err)
{
	name = app_playlist_name(app, name);
	if (app_playlist_ready(app, name, err) != 0)
		return -1;
	uint32_t id;
	if (app_stream_item(app, url, NULL, &id, err) != 0)
		return -1;
	return coll_store_playlist_insert_undoable(app->store, name, pos, &id, 1, err);
}
