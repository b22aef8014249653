/* The cue sheet parser: good sheets in their usual dialects, and every kind
 * of bad input the issue names (overlapping or backwards indices, a
 * missing FILE, too many tracks, garbage), each with its line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "medialib/cue.h"

static int parse(const char *text, struct mlib_cue *c, struct crate_err *err)
{
	return mlib_cue_parse(text, strlen(text), c, err);
}

static const char *const album =
	"REM GENRE \"Post Rock\"\n"
	"REM DATE 1999\n"
	"REM COMMENT \"ExactAudioCopy v1.0\"\n"
	"PERFORMER \"Mira Sol\"\n"
	"TITLE \"Harbour Lights\"\n"
	"FILE \"Harbour Lights.flac\" WAVE\n"
	"  TRACK 01 AUDIO\n"
	"    TITLE \"Morning\"\n"
	"    INDEX 01 00:00:00\n"
	"  TRACK 02 AUDIO\n"
	"    TITLE \"Noon\"\n"
	"    PERFORMER \"Mira Sol & Guest\"\n"
	"    ISRC USRC17607839\n"
	"    INDEX 00 00:01:50\n"
	"    INDEX 01 00:02:00\n"
	"  TRACK 03 AUDIO\n"
	"    TITLE Evening Tide\n"
	"    FLAGS DCP\n"
	"    INDEX 01 01:02:74\n";

TEST(cue_parses_disc_and_track_fields)
{
	struct mlib_cue c;
	struct crate_err err = {0};
	REQUIRE(parse(album, &c, &err) == 0);
	CHECK_STR(c.file, "Harbour Lights.flac");
	CHECK_STR(c.title, "Harbour Lights");
	CHECK_STR(c.performer, "Mira Sol");
	CHECK_STR(c.genre, "Post Rock");
	CHECK_STR(c.date, "1999");
	CHECK_STR(c.comment, "ExactAudioCopy v1.0");
	REQUIRE(c.ntracks == 3);
	CHECK_INT(c.tracks[0].number, 1);
	CHECK_STR(c.tracks[0].title, "Morning");
	CHECK(c.tracks[0].performer == NULL);
	CHECK_INT(c.tracks[0].start, 0);
	CHECK_STR(c.tracks[1].performer, "Mira Sol & Guest");
	CHECK_STR(c.tracks[1].isrc, "USRC17607839");
	CHECK_INT(c.tracks[1].start, 2 * 75); /* INDEX 01, not the pregap's 00 */
	CHECK_STR(c.tracks[2].title, "Evening Tide"); /* unquoted: the rest of the line */
	CHECK_INT(c.tracks[2].start, (62 * 75) + 74);
	CHECK_INT(mlib_cue_samples(c.tracks[2].start, 44100), ((62 * 75) + 74) * 588);
	char buf[32];
	CHECK_STR(mlib_cue_time(c.tracks[2].start, buf, sizeof buf), "01:02:74");
	mlib_cue_free(&c);
}

TEST(cue_crlf_bom_and_unquoted_file)
{
	const char *text = "\xEF\xBB\xBFTITLE \"Disc\"\r\nFILE album.flac WAVE\r\n"
			   "TRACK 1 AUDIO\r\nINDEX 01 00:00:00\r\n\r\n"
			   "TRACK 2 AUDIO\r\nINDEX 01 120:00:00\r\n";
	struct mlib_cue c;
	struct crate_err err = {0};
	REQUIRE(parse(text, &c, &err) == 0);
	CHECK_STR(c.title, "Disc");
	CHECK_STR(c.file, "album.flac");
	REQUIRE(c.ntracks == 2);
	CHECK_INT(c.tracks[1].start, 120 * 60 * 75); /* minutes past 99 */
	mlib_cue_free(&c);

	/* A bare CR ends lines too; a name with spaces keeps them. */
	REQUIRE(parse("FILE my album.wav WAVE\rTRACK 01 AUDIO\rINDEX 01 00:00:00\r", &c,
		      &err) == 0);
	CHECK_STR(c.file, "my album.wav");
	mlib_cue_free(&c);
}

TEST(cue_latin1_is_read_as_latin1)
{
	const char *text = "PERFORMER \"Bj\xF6rk\"\nFILE \"x.flac\" WAVE\nTRACK 01 AUDIO\n"
			   "TITLE \"Caf\xE9\"\nINDEX 01 00:00:00\n";
	struct mlib_cue c;
	struct crate_err err = {0};
	REQUIRE(parse(text, &c, &err) == 0);
	CHECK_STR(c.performer, "Bj\xC3\xB6rk");
	CHECK_STR(c.tracks[0].title, "Caf\xC3\xA9");
	mlib_cue_free(&c);
}

/* A sheet saved as "Unicode" (UTF-16 with its BOM, either byte order):
 * it was refused as binary data, its audio indexed as one item. */
TEST(cue_utf16_with_a_bom_is_read)
{
	const char *utf8 = "PERFORMER \"Bj\xC3\xB6rk\"\r\nFILE \"x.wav\" WAVE\r\nTRACK 01 AUDIO\r\n"
			   "TITLE \"\xF0\x9F\x8E\xB5 Caf\xC3\xA9\"\r\nINDEX 01 00:00:00\r\n";
	/* UTF-16 by hand: every character here is one unit but the emoji. */
	for (int le = 0; le < 2; le++) {
		char buf[512];
		size_t n = 0;
		buf[n++] = le ? '\xFF' : '\xFE';
		buf[n++] = le ? '\xFE' : '\xFF';
		for (const unsigned char *p = (const unsigned char *)utf8; *p;) {
			uint32_t cp;
			if (*p < 0x80) {
				cp = *p++;
			} else if (*p < 0xE0) {
				cp = (uint32_t)(p[0] & 0x1F) << 6 | (p[1] & 0x3F);
				p += 2;
			} else {
				cp = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3F) << 12 |
				     (uint32_t)(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
				p += 4;
			}
			uint32_t units[2] = {cp, 0};
			int nu = 1;
			if (cp >= 0x10000) {
				units[0] = 0xD800 + ((cp - 0x10000) >> 10);
				units[1] = 0xDC00 + ((cp - 0x10000) & 0x3FF);
				nu = 2;
			}
			for (int k = 0; k < nu; k++) {
				buf[n++] = (char)(le ? units[k] & 0xFF : units[k] >> 8);
				buf[n++] = (char)(le ? units[k] >> 8 : units[k] & 0xFF);
			}
		}
		struct mlib_cue c;
		struct crate_err err = {0};
		CHECK_MSG(mlib_cue_parse(buf, n, &c, &err) == 0, "%s", err.msg);
		CHECK_STR(c.performer ? c.performer : "", "Bj\xC3\xB6rk");
		CHECK_STR(c.file ? c.file : "", "x.wav");
		CHECK(c.ntracks == 1 && c.tracks[0].title &&
		      strcmp(c.tracks[0].title, "\xF0\x9F\x8E\xB5 Caf\xC3\xA9") == 0);
		mlib_cue_free(&c);
	}
}

/* Parse text, expect a failure whose message holds want. */
static void bad(const char *text, const char *want)
{
	struct mlib_cue c;
	struct crate_err err = {0};
	int rc = parse(text, &c, &err);
	CHECK_MSG(rc != 0, "accepted: %s", text);
	CHECK_INT(err.code, CRATE_ERR_PARSE);
	CHECK_MSG(strstr(err.msg, want) != NULL, "'%s' lacks '%s'", err.msg, want);
	CHECK(c.ntracks == 0 && c.file == NULL); /* nothing left to free */
}

TEST(cue_bad_indices_are_reported_with_their_line)
{
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 01 00:10:00\n"
	    "TRACK 02 AUDIO\nINDEX 01 00:05:00\n",
	    "line 5: INDEX at 00:05:00 is before the previous index (00:10:00)");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 01 00:10:00\n"
	    "TRACK 02 AUDIO\nINDEX 00 00:09:00\nINDEX 01 00:20:00\n",
	    "line 5: INDEX at 00:09:00 is before the previous index");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 01 00:10:00\nTRACK 02 AUDIO\n"
	    "INDEX 01 00:10:00\n",
	    "line 5: track starts at 00:10:00, where the track before it starts");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nINDEX 01 00:01:00\n",
	    "line 4: INDEX 01 after INDEX 01: index numbers go backwards");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 01 00:61:00\n", "line 3: INDEX 01 '00:61:00'");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:75\n", "not a time mm:ss:ff");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 01\n", "not a time");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nTITLE x\nTRACK 02 AUDIO\nINDEX 01 00:00:00\n",
	    "line 4: track 1 has no INDEX 01");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 00 00:00:00\n", "line 2: track 1 has no INDEX 01");
	bad("INDEX 01 00:00:00\nFILE a.flac WAVE\n", "line 1: INDEX outside a TRACK");
}

TEST(cue_missing_or_second_file_and_track_numbers)
{
	bad("TITLE x\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n", "line 2: TRACK before any FILE line");
	bad("TITLE \"Only a title\"\n", "no FILE line");
	bad("FILE a.flac WAVE\n", "no TRACK");
	bad("FILE a.flac WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nFILE b.flac WAVE\n",
	    "line 4: a second FILE");
	bad("FILE a.flac WAVE\nTRACK 02 AUDIO\nINDEX 01 00:00:00\nTRACK 02 AUDIO\n",
	    "line 4: track 2 comes after track 2");
	bad("FILE a.flac WAVE\nTRACK 00 AUDIO\n", "track 0: a cue sheet holds tracks 1 to 99");
	bad("FILE a.flac WAVE\nTRACK x AUDIO\n", "TRACK 'x': not a track number");
	bad("FILE\n", "line 1: FILE without a file name");

	/* 999 tracks: the hundredth is refused, by number and line. */
	size_t cap = 64 * 1024, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "FILE a.flac WAVE\n");
	for (int i = 1; i <= 999; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"TRACK %03d AUDIO\nINDEX 01 %02d:%02d:00\n", i, i / 60,
					i % 60);
	bad(text, "line 200: track 100: a cue sheet holds tracks 1 to 99");
	free(text);
}

TEST(cue_garbage_is_refused)
{
	struct mlib_cue c;
	struct crate_err err = {0};
	static const char bin[] = "fLaC\0\0\0\x22\x12\x00";
	CHECK(mlib_cue_parse(bin, sizeof bin - 1, &c, &err) != 0);
	CHECK(strstr(err.msg, "line 1: not a cue sheet (binary data") != NULL);
	bad("just some text\nwith no commands\n", "no FILE line");
	bad("", "no FILE line");
	/* Unclosed quotes run to the end of the line instead of reading on. */
	REQUIRE(parse("FILE \"a.flac WAVE\nTRACK 01 AUDIO\nTITLE \"open\nINDEX 01 00:00:00\n", &c,
		      &err) == 0);
	CHECK_STR(c.file, "a.flac WAVE");
	CHECK_STR(c.tracks[0].title, "open");
	mlib_cue_free(&c);
}
