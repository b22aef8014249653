/* Fuzz target: cue sheets (src/medialib/cue.h), with an oracle on what a
 * parsed sheet promises.
 *
 * For any bytes: mlib_cue_parse either fails with CRATE_ERR_PARSE and a
 * message naming the line, leaving *out empty, or gives a sheet with a
 * FILE, 1 to 99 tracks numbered 1..99 in increasing order, each starting
 * after the one before it at or after 0, and every text valid UTF-8 (text
 * that is not is read as Latin-1). The scanner trusts all of that when it
 * splits a file into tracks.
 *
 * Built with -DCRATE_FUZZ_MAIN as a libFuzzer binary (tests/fuzz/fuzz.mk);
 * tests/unit/test_fuzz_regress.c includes this file to replay saved inputs. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "base/err.h"
#include "base/utf8.h"
#include "medialib/cue.h"

/* NULL when s is absent or valid UTF-8, else what is wrong. */
static const char *fuzz_cue_text(const char *what, const char *s)
{
	return s && !utf8_valid(s, strlen(s)) ? fuzz_fail("%s is not UTF-8", what) : NULL;
}

static const char *fuzz_cue_sheet(const struct mlib_cue *c)
{
	const char *why = NULL;
	if (!c->file)
		return "a sheet without FILE parsed";
	if (c->ntracks < 1 || c->ntracks > MLIB_CUE_MAX_TRACKS)
		return fuzz_fail("%zu tracks", c->ntracks);
	const char *texts[][2] = {{"FILE", c->file},	     {"TITLE", c->title},
				  {"PERFORMER", c->performer}, {"SONGWRITER", c->songwriter},
				  {"GENRE", c->genre},	     {"DATE", c->date},
				  {"COMMENT", c->comment},     {"DISCNUMBER", c->discnumber},
				  {"TOTALDISCS", c->disctotal}};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0] && !why; i++)
		why = fuzz_cue_text(texts[i][0], texts[i][1]);
	for (size_t i = 0; i < c->ntracks && !why; i++) {
		const struct mlib_cue_track *t = &c->tracks[i];
		if (t->number < 1 || t->number > MLIB_CUE_MAX_TRACKS)
			return fuzz_fail("track %zu is numbered %d", i, t->number);
		if (i && t->number <= c->tracks[i - 1].number)
			return fuzz_fail("track %d follows %d", t->number, c->tracks[i - 1].number);
		if (t->start < 0 || (i && t->start <= c->tracks[i - 1].start))
			return fuzz_fail("track %d starts at %lld", t->number, (long long)t->start);
		if (t->line < 1)
			return fuzz_fail("track %d on line %d", t->number, t->line);
		why = fuzz_cue_text("a track's TITLE", t->title);
		if (!why)
			why = fuzz_cue_text("a track's PERFORMER", t->performer);
		if (!why)
			why = fuzz_cue_text("a track's SONGWRITER", t->songwriter);
		if (!why)
			why = fuzz_cue_text("a track's ISRC", t->isrc);
	}
	return why;
}

/* NULL when the oracle holds for this input, else what went wrong. */
static const char *fuzz_cue_check(const uint8_t *data, size_t size)
{
	struct mlib_cue c;
	memset(&c, 0x5a, sizeof c); /* the parser must set every field */
	struct crate_err err = {0};
	const char *why = NULL;
	if (mlib_cue_parse((const char *)data, size, &c, &err) == 0) {
		why = fuzz_cue_sheet(&c);
		mlib_cue_free(&c);
		return why;
	}
	if (err.code != CRATE_ERR_PARSE || !err.msg[0])
		return fuzz_fail("failed with code %d and message '%s'", err.code, err.msg);
	if (!utf8_valid(err.msg, strlen(err.msg)))
		return "the message is not UTF-8";
	if (c.file || c.tracks || c.ntracks)
		return "a failed parse left the sheet filled";
	return NULL;
}

FUZZ_ENTRY("fuzz_cue", fuzz_cue_check)
