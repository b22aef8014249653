/* What the fuzz targets share: the oracle's complaint and the libFuzzer
 * entry point. Each tests/fuzz/fuzz_<target>.c is its own libFuzzer binary
 * (built with -DCRATE_FUZZ_MAIN) and is also included, all of them
 * together, by tests/unit/test_fuzz_regress.c, so what is here is defined
 * once for every includer. */
#ifndef CRATE_FUZZ_COMMON_H
#define CRATE_FUZZ_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* An oracle's complaint, formatted: valid until the next call (one input is
 * checked at a time). Never give it its own earlier result. */
static const char *fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));

static const char *fuzz_fail(const char *fmt, ...)
{
	static char why[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return why;
}

/* The libFuzzer entry of a target: check(data, size) is NULL when its
 * oracle holds, else what went wrong, and the input is reported as a
 * crash. Nothing outside the libFuzzer binary. */
#ifdef CRATE_FUZZ_MAIN
#define FUZZ_ENTRY(name, check)                                                                    \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                              \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                               \
	{                                                                                          \
		const char *why = check(data, size);                                               \
		if (why) {                                                                         \
			fprintf(stderr, name " oracle: %s\n", why);                                \
			abort();                                                                   \
		}                                                                                  \
		return 0;                                                                          \
	}
#else
#define FUZZ_ENTRY(name, check)
#endif

#endif
