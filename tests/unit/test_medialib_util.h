/* Helpers shared by the medialib tests: fixture audio made with the ffmpeg
 * CLI, file bytes, small SQL queries. Static inline so each test binary
 * takes only what it uses. */
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

#endif
