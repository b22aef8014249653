/* base/: UTF-8 decoding, folding, width, sanitising; natural order; numbers; config. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/str.h"
#include "base/uri.h"
#include "base/utf8.h"
#include "harness.h"

static void check_fold(const char *in, const char *want)
{
	char *f = utf8_fold(in, strlen(in), NULL);
	CHECK_STR(f, want);
	free(f);
}

/* str_find_short against memmem: needles of 1-4 letters from a small
 * alphabet (so they occur, overlap and repeat) in haystacks of 0-40 bytes
 * that also hold spaces and NULs. */
static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

TEST(find_short_agrees_with_memmem)
{
	static const char abc[] = {'a', 'b', 'l', 'o', '\0', ' '};
	unsigned seed = 12345;
	for (int round = 0; round < 20000; round++) {
		char h[40], n[4];
		size_t hlen = next_rand(&seed) % 41, nlen = 1 + next_rand(&seed) % 4;
		for (size_t i = 0; i < hlen; i++)
			h[i] = abc[next_rand(&seed) % 6];
		for (size_t i = 0; i < nlen; i++)
			n[i] = abc[next_rand(&seed) % 4];
		const char *want = memmem(h, hlen, n, nlen), *got = str_find_short(h, hlen, n, nlen);
		CHECK_MSG(got == want, "round %d: at %td, want %td", round, got ? got - h : -1,
			  want ? want - h : -1);
		if (got != want)
			break;
	}
}

TEST(fold_case_and_accents)
{
	check_fold("Björk", "bjork");
	check_fold("Straße", "strasse");
	check_fold("ÉLAN vital", "elan vital");
	check_fold("Øresund Æble Œuvre", "oresund aeble oeuvre");
	check_fold("Łódź đ Þór", "lodz d thor");
	check_fold("ДДТ", "ддт");
	check_fold("e\xcc\x81", "e"); /* decomposed é */
	check_fold("東京", "東京");
	check_fold("한국어", "한국어");
}

TEST(fold_invalid_utf8_is_replaced)
{
	char *f = utf8_fold("a\xff" "b", 3, NULL);
	CHECK_STR(f, "a\xef\xbf\xbd" "b");
	free(f);
	CHECK(!utf8_fold_is_identity("Abc", 3));
	CHECK(utf8_fold_is_identity("abc 12", 6));
	CHECK(!utf8_fold_is_identity("caf\xc3\xa9", 5));
}

TEST(decode_rejects_overlong_and_surrogates)
{
	uint32_t cp;
	CHECK_INT(utf8_decode("\xc0\xaf", 2, &cp), 1);
	CHECK_INT(cp, UTF8_REPLACEMENT);
	CHECK_INT(utf8_decode("\xed\xa0\x80", 3, &cp), 1);
	CHECK_INT(cp, UTF8_REPLACEMENT);
	CHECK_INT(utf8_decode("\xf0\x9f\x8e\xb5", 4, &cp), 4);
	CHECK_INT(cp, 0x1F3B5);
	CHECK(utf8_valid("Bj\xc3\xb6rk", 6));
	CHECK(!utf8_valid("Bj\xc3", 3));
}

TEST(width_of_wide_and_combining)
{
	CHECK_INT(utf8_width("abc", 3), 3);
	CHECK_INT(utf8_width("東京", 6), 4);
	CHECK_INT(utf8_width("e\xcc\x81", 3), 1);
	size_t cols;
	CHECK_INT(utf8_prefix_fitting("東京x", 7, 3, &cols), 3);
	CHECK_INT(cols, 2);
}

TEST(sanitize_removes_terminal_controls)
{
	const char evil[] = "a\x1b[31mred\x07\x9b" "b\ttab";
	char *s = utf8_sanitize(evil, sizeof evil - 1);
	CHECK(strchr(s, 0x1b) == NULL);
	CHECK(strchr(s, 0x07) == NULL);
	CHECK(strchr(s, '\t') == NULL);
	CHECK_STR(s, "a\xef\xbf\xbd[31mred\xef\xbf\xbd\xef\xbf\xbd" "b tab");
	free(s);
	/* C1 CSI encoded as UTF-8 (U+009B) is a control too. */
	s = utf8_sanitize("x\xc2\x9by", 4);
	CHECK_STR(s, "x\xef\xbf\xbdy");
	free(s);
}

/* strbuf_addf's text past its stack buffer takes a second pass over a
 * copy of the arguments (strbuf_vaddf, which cli_error formats with). */
TEST(strbuf_addf_longer_than_its_buffer)
{
	char big[600];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	struct strbuf b;
	strbuf_init(&b, 8);
	strbuf_addf(&b, "<%s|%d>", big, 42);
	CHECK_INT(b.len, sizeof big - 1 + 5);
	CHECK(b.buf[0] == '<' && strcmp(b.buf + b.len - 4, "|42>") == 0);
	strbuf_addf(&b, "%s", "");
	CHECK_INT(b.len, sizeof big - 1 + 5);
	strbuf_free(&b);
}

TEST(natural_order)
{
	CHECK(str_natcmp("track 9", "track 10") < 0);
	CHECK(str_natcmp("a", "b") < 0);
	CHECK(str_natcmp("007", "7") == 0);
	CHECK(str_natcmp("abc", "ab") > 0);
}

TEST(parse_numbers)
{
	double d;
	CHECK(str_parse_number("-12.5", 5, &d) && d == -12.5);
	CHECK(!str_parse_number("1e5", 3, &d));
	CHECK(!str_parse_number("-", 1, &d));
	CHECK(!str_parse_number("1.", 2, &d));
	int64_t v;
	CHECK(str_parse_int64("9223372036854775807", 19, &v) && v == INT64_MAX);
	CHECK(!str_parse_int64("9223372036854775808", 19, &v));
}

TEST(config_file_sections_and_errors)
{
	char path[512];
	snprintf(path, sizeof path, "%s/config", harness_tmpdir());
	FILE *f = fopen(path, "w");
	REQUIRE(f);
	fputs("# comment\n[output]\ndevice = hw:0\n[keys]\nplay = Enter\nquote = \" x \"\n", f);
	fclose(f);
	struct config *cfg;
	struct crate_err err = {0};
	REQUIRE(config_load(path, &cfg, &err) == 0);
	CHECK_STR(config_get(cfg, "output.device", NULL), "hw:0");
	CHECK_STR(config_get(cfg, "keys.quote", NULL), " x ");
	CHECK_INT(config_get_int(cfg, "player.size", 20), 20);
	config_free(cfg);

	f = fopen(path, "w");
	fputs("[ok]\nthis line is wrong\n", f);
	fclose(f);
	CHECK(config_load(path, &cfg, &err) != 0);
	CHECK_MSG(strstr(err.msg, ":2:") != NULL, "message names the line: %s", err.msg);

	snprintf(path, sizeof path, "%s/missing", harness_tmpdir());
	CHECK(config_load(path, &cfg, &err) == 0);
	config_free(cfg);
}

/* Issue 14 item 13: a long path in an error keeps the reason at its end. */
TEST(long_error_message_keeps_its_end)
{
	char path[2000];
	memset(path, 'd', sizeof path - 1);
	path[sizeof path - 1] = '\0';
	struct crate_err err;
	crate_err_set(&err, CRATE_ERR_IO, "/%s/\xc3\xa9t\xc3\xa9.mp3: the reason at the end", path);
	CHECK(strlen(err.msg) < sizeof err.msg);
	CHECK(strncmp(err.msg, "/ddd", 4) == 0);
	size_t n = strlen(err.msg);
	const char *want = "mp3: the reason at the end";
	CHECK(n > strlen(want) && strcmp(err.msg + n - strlen(want), want) == 0);
	CHECK(strstr(err.msg, "...") != NULL);
}

/* What a track without a title is named by. A station's URL ending in '/'
 * (http://host:8000/) was named "" by crate play --no-ui and crate remote
 * status, and by its whole URL in the interface and the playlists. */
TEST(path_name_of_files_and_urls)
{
	static const char *const cases[][2] = {
		{"/music/a/01 x.flac", "01 x.flac"},
		{"a.flac", "a.flac"},
		{"http://radio.example:8000/", "radio.example:8000"},
		{"http://radio.example:8000", "radio.example:8000"},
		{"https://radio.example/live/", "live"},
		{"https://radio.example/live//", "live"},
		{"http://host/listen?sid=1", "listen?sid=1"},
		{"/music/Album/", "Album"},
		{"/", "/"},
		{"", ""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = str_path_name_dup(cases[i][0]);
		CHECK_STR(s, cases[i][1]);
		free(s);
	}
}

/* Issue 16 item 5: ":scan ~/Music" and "$HOME/Music" mean the home folder. */
TEST(expand_home_in_paths)
{
	setenv("HOME", "/home/someone", 1);
	static const char *const cases[][2] = {
		{"~/Music", "/home/someone/Music"},
		{"~", "/home/someone"},
		{"$HOME/Music/new", "/home/someone/Music/new"},
		{"${HOME}/x", "/home/someone/x"},
		{"/music/~/x", "/music/~/x"},
		{"$HOMER/x", "$HOMER/x"},
		{"~no-such-user-here/x", "~no-such-user-here/x"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = str_expand_home(cases[i][0]);
		CHECK_STR(s, cases[i][1]);
		free(s);
	}
	char *s = str_expand_home("~root/x"); /* another user's home */
	CHECK(s[0] == '/' && strcmp(s + strlen(s) - 2, "/x") == 0);
	free(s);
}

/* A path that is gone resolves through its parent; "." and ".." names and
 * a gone parent do not. */
TEST(abs_path_of_a_gone_folder)
{
	char *here = realpath(harness_tmpdir(), NULL);
	REQUIRE(here != NULL);
	REQUIRE(chdir(here) == 0);
	char *want = xasprintf("%s/gone-album", here);
	char *s = str_abs_path("gone-album/");
	CHECK_STR(s ? s : "(null)", want);
	free(s);
	s = str_abs_path("./gone-album");
	CHECK_STR(s ? s : "(null)", want);
	free(s);
	CHECK(str_abs_path("no-such-parent/gone") == NULL);
	CHECK(str_abs_path("gone-album/..") == NULL);
	s = str_abs_path(".");
	CHECK_STR(s ? s : "(null)", here);
	free(s);
	free(want);
	free(here);
}

TEST(file_uris_give_every_byte_back)
{
	/* a name that is not UTF-8, a newline and a percent sign, there and back */
	const char *path = "/m/caf\xe9\n100%.ogg";
	struct strbuf b;
	strbuf_init(&b, 64);
	uri_add_path(&b, path);
	CHECK_STR(b.buf, "file:///m/caf%E9%0A100%25.ogg");
	char *back = uri_file_path(b.buf);
	CHECK_STR(back, path);
	free(back);
	strbuf_free(&b);
	back = uri_file_path("FILE://localhost/a%20b");
	CHECK_STR(back, "/a b");
	free(back);
	CHECK(uri_file_path("file://host/a") == NULL); /* another host's */
	CHECK(uri_file_path("http://x/a") == NULL);
	char s[] = "a%00b%zz%4";
	uri_percent_decode(s); /* no NUL in a path; bad escapes stay as written */
	CHECK_STR(s, "a%00b%zz%4");
}
