/* Analysing one audio file: decode it (play/decoder: FFmpeg) as float in
 * its own rate and channels and feed analysis/features. Bounded in time;
 * a stop flag ends it early. */
#ifndef CRATE_ANALYSIS_ANALYZE_H
#define CRATE_ANALYSIS_ANALYZE_H

#include <stdatomic.h>

#include "analysis/features.h"

/* Wall-clock limit for one file (a 10-hour file decodes well inside it on
 * this class of machine; a pathological one ends with a reason). */
#define AN_FILE_TIMEOUT_S 300

/* Analyse path into *out (an_result_clear it). stop (may be NULL) ends
 * the work early when it becomes non-zero: CRATE_ERR_REFUSED "stopped".
 * Errors say why the file was not analysed ("cannot decode ...",
 * "took longer than 300 s"). */
/* Samples [start, end) of path only (a cue sheet's track; end 0: to the
 * end; start -1: the whole file). */
int an_analyze_range(const char *path, int64_t start, int64_t end, const atomic_int *stop,
		     struct an_result *out, struct crate_err *err);
int an_analyze_file(const char *path, const atomic_int *stop, struct an_result *out,
		    struct crate_err *err);

#endif
