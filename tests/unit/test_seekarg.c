/* base/seekarg.c and base/history.c: the ':' line's seek positions and
 * the history of the ':' line and the search bar. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/history.h"
#include "base/seekarg.h"
#include "harness.h"

static void ok(const char *s, enum seekarg_kind kind, long long ms, int permille)
{
	struct seekarg a;
	struct crate_err err = {0};
	CHECK_MSG(seekarg_parse(s, &a, &err) == 0, "'%s': %s", s, err.msg);
	CHECK_MSG(a.kind == kind, "'%s': kind %d", s, (int)a.kind);
	CHECK_MSG(a.ms == ms, "'%s': %lld ms, want %lld", s, (long long)a.ms, ms);
	CHECK_MSG(a.permille == permille, "'%s': %d permille", s, a.permille);
}

static void bad(const char *s)
{
	struct seekarg a;
	struct crate_err err = {0};
	CHECK_MSG(seekarg_parse(s, &a, &err) != 0, "'%s' accepted", s);
	CHECK_MSG(strstr(err.msg, "not a position") != NULL, "'%s': %s", s, err.msg);
}

TEST(seek_positions)
{
	ok("90", SEEKARG_ABS, 90000, 0);
	ok("1:30", SEEKARG_ABS, 90000, 0);
	ok("01:02:03", SEEKARG_ABS, 3723000, 0);
	ok("+10", SEEKARG_REL, 10000, 0);
	ok("-0:05", SEEKARG_REL, -5000, 0);
	ok("-5", SEEKARG_REL, -5000, 0);
	ok("2.5", SEEKARG_ABS, 2500, 0);
	ok("0:07.25", SEEKARG_ABS, 7250, 0);
	ok("50%", SEEKARG_PERCENT, 0, 500);
	ok("12.5%", SEEKARG_PERCENT, 0, 125);
	ok("100%", SEEKARG_PERCENT, 0, 1000);
	ok("0", SEEKARG_ABS, 0, 0);
	ok("90:00", SEEKARG_ABS, 5400000, 0); /* the first field may pass 59 */
}

TEST(seek_positions_refused)
{
	bad("");
	bad("+");
	bad("abc");
	bad("1:");
	bad(":30");
	bad("1:60");
	bad("1:2:3:4");
	bad("1.5:00");
	bad("101%");
	bad("+10%");
	bad("%");
	bad("1 30");
	bad("99999999999999999999");
	bad("0x10");
}

TEST(seek_targets)
{
	struct seekarg a;
	struct crate_err err = {0};
	REQUIRE(seekarg_parse("-0:05", &a, &err) == 0);
	CHECK_INT(seekarg_target_ms(&a, 60000, 200000), 55000);
	CHECK_INT(seekarg_target_ms(&a, 3000, 200000), 0); /* never before the start */
	REQUIRE(seekarg_parse("50%", &a, &err) == 0);
	CHECK_INT(seekarg_target_ms(&a, 0, 200000), 100000);
	CHECK_INT(seekarg_target_ms(&a, 0, -1), 0);
	REQUIRE(seekarg_parse("1:30", &a, &err) == 0);
	CHECK_INT(seekarg_target_ms(&a, 5000, 200000), 90000);
}

static char *path_in_tmp(const char *name)
{
	char *p = malloc(4096);
	snprintf(p, 4096, "%s/%s", harness_tmpdir(), name);
	return p;
}

TEST(history_is_bounded_and_survives_reopen)
{
	char *path = path_in_tmp("library.db.history");
	struct crate_err err = {0};
	struct history *h = history_open(path, 3);
	CHECK_INT(history_count(h), 0); /* no file yet: empty */
	CHECK(history_add(h, "scan ~/a", &err) == 0);
	CHECK(history_add(h, "   ", &err) == 0); /* blank: not kept */
	CHECK(history_add(h, "seek 1:30", &err) == 0);
	CHECK(history_add(h, "scan ~/a", &err) == 0); /* moves to the end */
	CHECK(history_add(h, "set playback.volume 40", &err) == 0);
	CHECK(history_add(h, "vol 50", &err) == 0);
	CHECK_INT(history_count(h), 3);
	history_free(h);
	h = history_open(path, 3);
	CHECK_INT(history_count(h), 3);
	CHECK_STR(history_at(h, 0), "scan ~/a");
	CHECK_STR(history_at(h, 2), "vol 50");
	history_free(h);
	/* no temporary file is left beside it */
	char *tmp = malloc(4200);
	snprintf(tmp, 4200, "%s.tmp%ld", path, (long)getpid());
	struct stat st;
	CHECK(stat(tmp, &st) != 0);
	free(tmp);
	/* a smaller bound keeps the newest */
	h = history_open(path, 2);
	CHECK_STR(history_at(h, 0), "set playback.volume 40");
	history_free(h);
	free(path);
}

TEST(history_files_for_the_command_line_and_the_search_bar_are_separate)
{
	char *cmd = path_in_tmp("library.db.history");
	char *search = path_in_tmp("library.db.search-history");
	struct crate_err err = {0};
	struct history *hc = history_open(cmd, 100), *hs = history_open(search, 100);
	CHECK(history_add(hc, "repeat all", &err) == 0);
	CHECK(history_add(hs, "a:Mira year<1980", &err) == 0);
	history_free(hc);
	history_free(hs);
	hc = history_open(cmd, 100);
	hs = history_open(search, 100);
	CHECK_INT(history_count(hc), 1);
	CHECK_INT(history_count(hs), 1);
	CHECK_STR(history_at(hc, 0), "repeat all");
	CHECK_STR(history_at(hs, 0), "a:Mira year<1980");
	history_free(hc);
	history_free(hs);
	free(cmd);
	free(search);
}

TEST(history_walk_and_search)
{
	struct crate_err err = {0};
	struct history *h = history_open(NULL, 10);
	history_add(h, "scan ~/music", &err);
	history_add(h, "seek 1:30", &err);
	history_add(h, "set layout.sidebar 30", &err);
	CHECK(history_next(h) == NULL); /* not walking */
	CHECK_STR(history_prev(h, "typed"), "set layout.sidebar 30");
	CHECK_STR(history_prev(h, "ignored"), "seek 1:30");
	CHECK_STR(history_prev(h, "ignored"), "scan ~/music");
	CHECK(history_prev(h, "ignored") == NULL); /* the oldest: stays */
	CHECK_STR(history_next(h), "seek 1:30");
	CHECK_STR(history_next(h), "set layout.sidebar 30");
	CHECK_STR(history_next(h), "typed"); /* back to the line being typed */
	CHECK(!history_walking(h));
	CHECK_STR(history_search(h, "s", "x"), "set layout.sidebar 30");
	CHECK_STR(history_search(h, "s", "x"), "seek 1:30");
	CHECK_STR(history_search(h, "music", "x"), "scan ~/music");
	CHECK(history_search(h, "nothing", "x") == NULL);
	history_walk_end(h);
	CHECK_STR(history_search(h, "1:30", "x"), "seek 1:30");
	history_free(h);
}

TEST(history_unwritable_file_is_an_error_not_a_crash)
{
	char *path = path_in_tmp("no/such/dir/history");
	struct crate_err err = {0};
	struct history *h = history_open(path, 10);
	CHECK(history_add(h, "vol 50", &err) != 0);
	CHECK(strstr(err.msg, "history") != NULL);
	CHECK_INT(history_count(h), 1); /* kept in memory */
	history_free(h);
	free(path);
}
