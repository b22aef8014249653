/* Helpers shared by the medialib tests: fixture audio made with the ffmpeg
 * CLI, file bytes, small SQL queries, generated libraries written through
 * the media writer. Static inline so each test binary takes only what it
 * uses. */
#ifndef CRATE_TEST_MEDIALIB_UTIL_H
#define CRATE_TEST_MEDIALIB_UTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/media.h"
#include "medialib/tags.h"

/* Run argv (no shell), stdout/stderr to /dev/null; exit status or -1. */
static inline int tm_run(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A short sine file at path (format from the extension) with the given
 * metadata pairs ("artist=X", ...; NULL-terminated). Skips the test when
 * ffmpeg is not installed. */
static inline void tm_make_audio(const char *path, double seconds, const char *const *meta)
{
	char *argv[64];
	int n = 0;
	char src[64];
	snprintf(src, sizeof src, "sine=frequency=440:duration=%g", seconds);
	argv[n++] = "ffmpeg";
	argv[n++] = "-nostdin";
	argv[n++] = "-y";
	argv[n++] = "-f";
	argv[n++] = "lavfi";
	argv[n++] = "-i";
	argv[n++] = src;
	for (int i = 0; meta && meta[i] && n < 56; i++) {
		argv[n++] = "-metadata";
		argv[n++] = (char *)meta[i];
	}
	argv[n++] = (char *)path;
	argv[n] = NULL;
	int rc = tm_run(argv);
	if (rc == 127)
		harness_skip("ffmpeg CLI not found");
	REQUIRE(rc == 0);
}

static inline char *tm_read_file(const char *path, size_t *len)
{
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = xmalloc((size_t)n + 1);
	size_t got = fread(buf, 1, (size_t)n, f);
	fclose(f);
	*len = got;
	return buf;
}

static inline void tm_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	REQUIRE(f != NULL);
	REQUIRE(fwrite(data, 1, len, f) == len);
	fclose(f);
}

static inline void tm_copy_file(const char *from, const char *to)
{
	size_t len;
	char *buf = tm_read_file(from, &len);
	REQUIRE(buf != NULL);
	tm_write_file(to, buf, len);
	free(buf);
}

/* First column of the first row of sql as an integer (-1 when no row). */
static inline long long tm_query_int(struct mlib_db *db, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(mlib_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return -2;
	long long v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	return v;
}

static inline char *tm_path(const char *name)
{
	return xasprintf("%s/%s", harness_tmpdir(), name);
}

/* The database file at path opened for writing (created when new), and a
 * writer of media rows on it: the caller's (mlib_media_writer_free, then
 * mlib_db_close on *db). */
static inline struct mlib_media_writer *tm_open_writer(const char *path, struct mlib_db **db)
{
	struct crate_err err = {0};
	*db = NULL;
	REQUIRE(mlib_db_open(path, 0, db, &err) == 0);
	struct mlib_media_writer *w = mlib_media_writer_new(*db, &err);
	REQUIRE(w != NULL);
	return w;
}

/* Row i of a generated library, as tm_write_library's fill makes it: tags
 * starts empty, url at "/music/NNNNN.flac" (i, five digits), size, mtime
 * and now at 1000 + i, 2000 + i and 1700000000 + i; fill adds the tags and
 * changes what else it wants. */
struct tm_row {
	struct mlib_tags tags;
	char url[256];
	int64_t size, mtime, now;
};
typedef void tm_fill_fn(int i, struct tm_row *row, void *arg);

/* A library of n rows in the database at path, written through the media
 * library's own writer in one transaction (as a scan writes them), row i
 * as fill(i, row, arg) makes it; ids[i] (ids may be NULL) its media id.
 * Returns the database, still open: the caller's (mlib_db_close). */
static inline struct mlib_db *tm_write_library(const char *path, int n, tm_fill_fn *fill,
					       void *arg, uint32_t *ids)
{
	struct crate_err err = {0};
	struct mlib_db *db;
	struct mlib_media_writer *w = tm_open_writer(path, &db);
	REQUIRE(mlib_db_begin(db, &err) == 0);
	for (int i = 0; i < n; i++) {
		struct tm_row row = {.size = 1000 + i, .mtime = 2000 + i, .now = 1700000000 + i};
		mlib_tags_init(&row.tags);
		snprintf(row.url, sizeof row.url, "/music/%05d.flac", i);
		fill(i, &row, arg);
		uint32_t id;
		REQUIRE(mlib_media_put(w, row.url, strlen(row.url), row.size, row.mtime, row.now,
				       &row.tags, &id, &err) == 0);
		mlib_tags_free(&row.tags);
		if (ids)
			ids[i] = id;
	}
	REQUIRE(mlib_db_commit(db, &err) == 0);
	mlib_media_writer_free(w);
	return db;
}

#endif
