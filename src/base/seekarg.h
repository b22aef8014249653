/* A seek position as people type it: "90" (seconds), "1:30", "1:02:03",
 * "+10", "-0:05" (relative), "50%" (of the track). One parser for the
 * interface's :seek and the control socket's seek. */
#ifndef CRATE_BASE_SEEKARG_H
#define CRATE_BASE_SEEKARG_H

#include <stdint.h>

#include "base/err.h"

enum seekarg_kind {
	SEEKARG_ABS,     /* ms from the start */
	SEEKARG_REL,     /* ms from the current position, signed */
	SEEKARG_PERCENT, /* per mille of the duration (0..1000), from the start */
};

struct seekarg {
	enum seekarg_kind kind;
	int64_t ms;        /* ABS, REL */
	int permille;      /* PERCENT: "50%" is 500, "12.5%" is 125 */
};

/* Parse s; -1 with err (CRATE_ERR_INVALID, naming s) when it is none of
 * the forms above: seconds and minutes of "m:ss" must be under 60, at most
 * 3 fields, a percentage within 0..100, at most 100 hours. */
int seekarg_parse(const char *s, struct seekarg *out, struct crate_err *err);

/* The absolute target in ms for a track at pos_ms of dur_ms (dur_ms <= 0:
 * unknown; a percentage then targets 0), never below 0. */
int64_t seekarg_target_ms(const struct seekarg *a, int64_t pos_ms, int64_t dur_ms);

#endif
