/* The database's "checked" note (see db_checked.h). */
#include "medialib/db_checked.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/err.h"

#define NOTE_SUFFIX ".checked"
/* A file written this recently is not noted: a later write could get the
 * same modification time (timestamps are as coarse as a clock tick, 2 s
 * on FAT). The change time only tells a copy restored with its old
 * modification time. */
#define RACY_SECONDS 2

/* One file's identity and change times, "-" when it does not exist or is
 * empty (opening the database makes an empty -wal, closing removes it);
 * *latest (when not NULL) receives its modification time if later. */
static void describe(const char *path, char *buf, size_t size, time_t *latest)
{
	struct stat st;
	if (stat(path, &st) != 0 || st.st_size == 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (latest && st.st_mtim.tv_sec > *latest)
		*latest = st.st_mtim.tv_sec;
	snprintf(buf, size, "%ju %ju %jd %jd.%09ld %jd.%09ld", (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino, (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

/* The note's text for the database and its -wal as they are now. */
static void fingerprint(const char *path, char *buf, size_t size, time_t *latest)
{
	char db[128], wal[128];
	char *walpath = xasprintf("%s-wal", path);
	describe(path, db, sizeof db, latest);
	describe(walpath, wal, sizeof wal, latest);
	free(walpath);
	snprintf(buf, size, "crate-db-checked 1\n%s\n%s\n", db, wal);
}

bool mlib_db_checked_holds(const char *path)
{
	char want[320], got[320];
	fingerprint(path, want, sizeof want, NULL);
	char *note = xasprintf("%s" NOTE_SUFFIX, path);
	FILE *f = fopen(note, "r");
	free(note);
	if (!f)
		return false;
	size_t n = fread(got, 1, sizeof got - 1, f);
	fclose(f);
	got[n] = '\0';
	return strcmp(got, want) == 0;
}

void mlib_db_checked_record(const char *path)
{
	char text[320];
	time_t latest = 0;
	fingerprint(path, text, sizeof text, &latest);
	if (latest > time(NULL) - RACY_SECONDS)
		return;
	char *note = xasprintf("%s" NOTE_SUFFIX, path);
	char *tmp = xasprintf("%s.tmp", note);
	FILE *f = fopen(tmp, "w");
	bool ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok || rename(tmp, note) != 0)
		remove(tmp);
	free(tmp);
	free(note);
}
