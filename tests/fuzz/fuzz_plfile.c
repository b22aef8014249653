/* Fuzz target: playlist files (src/medialib/plfile.h), with a round-trip
 * oracle.
 *
 * For any bytes, read as each format (M3U, PLS, XSPF): plfile_parse either
 * fails with a message or gives entries, each with a location; a usable one
 * (no problem) is an absolute path or an http(s) URL. The usable entries,
 * written in each format by plfile_write and read back, are the same
 * locations in the same order: what `crate playlist export` writes,
 * `crate playlist import` (and other players) read as it was.
 *
 * Built with -DCRATE_FUZZ_MAIN as a libFuzzer binary (tests/fuzz/fuzz.mk);
 * tests/unit/test_fuzz_regress.c includes this file to replay saved inputs. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz_common.h"
#include "base/err.h"
#include "base/str.h"
#include "medialib/plfile.h"

#define FUZZ_PLFILE_DIR "/music/lists"

static const char *const fuzz_plfile_names[] = {"?", "M3U", "PLS", "XSPF"};

static bool fuzz_plfile_url(const char *s)
{
	return strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0;
}

/* Written and read back in format to, the usable entries of pl come back. */
static const char *fuzz_plfile_round_trip(const struct plfile *pl, enum plfile_format to)
{
	struct plfile_out_entry *out = calloc(pl->n + 1, sizeof *out);
	size_t n = 0;
	for (size_t i = 0; i < pl->n; i++) {
		const struct plfile_entry *e = &pl->v[i];
		/* a path a line cannot hold is given as a file:// URI by the
		 * caller (plfile_path_needs_uri), not here */
		if (e->problem || (!fuzz_plfile_url(e->location) && plfile_path_needs_uri(e->location)))
			continue;
		out[n++] = (struct plfile_out_entry){e->location, NULL, e->title, e->duration_ms};
	}
	struct strbuf b;
	strbuf_init(&b, 256);
	plfile_write(to, out, n, &b);
	struct plfile back = {0};
	struct crate_err err = {0};
	const char *why = NULL;
	if (plfile_parse(to, b.buf, b.len, FUZZ_PLFILE_DIR, &back, &err) != 0) {
		why = fuzz_fail("%zu entries written as %s do not parse: %s", n,
				       fuzz_plfile_names[to], err.msg);
	} else if (back.n != n) {
		why = fuzz_fail("%zu entries written as %s read back as %zu", n,
				       fuzz_plfile_names[to], back.n);
	} else {
		for (size_t i = 0; i < n && !why; i++)
			if (back.v[i].problem || strcmp(back.v[i].location, out[i].location) != 0)
				why = fuzz_fail("[%s] written as %s read back as [%s]%s%s",
						       out[i].location, fuzz_plfile_names[to],
						       back.v[i].location,
						       back.v[i].problem ? ": " : "",
						       back.v[i].problem ? back.v[i].problem : "");
	}
	plfile_free(&back);
	strbuf_free(&b);
	free(out);
	return why;
}

static const char *fuzz_plfile_as(const uint8_t *data, size_t size, enum plfile_format fmt)
{
	struct plfile pl = {0};
	struct crate_err err = {0};
	if (plfile_parse(fmt, (const char *)data, size, FUZZ_PLFILE_DIR, &pl, &err) != 0) {
		plfile_free(&pl);
		return err.msg[0] ? NULL : "a failed parse says nothing";
	}
	const char *why = NULL;
	for (size_t i = 0; i < pl.n && !why; i++) {
		const struct plfile_entry *e = &pl.v[i];
		if (!e->location)
			why = fuzz_fail("%s entry %zu has no location", fuzz_plfile_names[fmt], i);
		else if (!e->problem && e->location[0] != '/' && !fuzz_plfile_url(e->location))
			why = fuzz_fail("%s entry [%s] is usable but neither a path nor a URL",
					       fuzz_plfile_names[fmt], e->location);
		else if (e->duration_ms < -1)
			why = fuzz_fail("%s entry %zu lasts %lld ms", fuzz_plfile_names[fmt], i,
					       (long long)e->duration_ms);
	}
	for (enum plfile_format to = PLFILE_M3U; to <= PLFILE_XSPF && !why; to++)
		why = fuzz_plfile_round_trip(&pl, to);
	plfile_free(&pl);
	return why;
}

/* NULL when the oracle holds for this input, else what went wrong. */
static const char *fuzz_plfile_check(const uint8_t *data, size_t size)
{
	const char *why = NULL;
	for (enum plfile_format fmt = PLFILE_M3U; fmt <= PLFILE_XSPF && !why; fmt++)
		why = fuzz_plfile_as(data, size, fmt);
	return why;
}

FUZZ_ENTRY("fuzz_plfile", fuzz_plfile_check)
