/* crate's unit-test harness: a test is a function registered with TEST(),
 * run in its own forked process (a crash fails that test, not the run),
 * reported by name, and counted in the "N passed, N failed" summary that
 * tests/run-tests.sh aggregates. */
#ifndef CRATE_TESTS_HARNESS_H
#define CRATE_TESTS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef void (*harness_fn)(void);
void harness_register(const char *name, harness_fn fn, const char *file);

#define TEST(name)                                                              \
	static void test_##name(void);                                          \
	__attribute__((constructor)) static void register_##name(void)          \
	{                                                                       \
		harness_register(#name, test_##name, __FILE__);                 \
	}                                                                       \
	static void test_##name(void)

/* Record a failure and keep going (the test fails at its end). */
bool harness_check(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Skip the current test with a reason (returns from the test via longjmp-free exit). */
void harness_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define CHECK(cond) harness_check((cond), __FILE__, __LINE__, "%s", #cond)
#define CHECK_MSG(cond, ...) harness_check((cond), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_INT(a, b)                                                               \
	do {                                                                          \
		long long a_ = (long long)(a), b_ = (long long)(b);                   \
		harness_check(a_ == b_, __FILE__, __LINE__, "%s == %s (%lld != %lld)", \
			      #a, #b, a_, b_);                                        \
	} while (0)
#define CHECK_STR(a, b)                                                              \
	do {                                                                         \
		const char *a_ = (a), *b_ = (b);                                     \
		harness_check(a_ && b_ && strcmp(a_, b_) == 0, __FILE__, __LINE__,   \
			      "%s == %s (\"%s\" != \"%s\")", #a, #b, a_ ? a_ : "(null)", \
			      b_ ? b_ : "(null)");                                   \
	} while (0)
/* Stop the test now if cond fails (for preconditions later checks rely on). */
#define REQUIRE(cond)                                                       \
	do {                                                                \
		if (!harness_check((cond), __FILE__, __LINE__, "%s", #cond)) \
			harness_abort_test();                               \
	} while (0)
void harness_abort_test(void) __attribute__((noreturn));

/* ../shared/corpus (or $CRATE_SHARED/corpus); NULL when absent, so tests
 * can skip with a message. */
const char *harness_corpus_dir(void);
/* A fresh empty directory for this test, removed after it (unless
 * HARNESS_KEEP=1). Path owned by the harness. */
const char *harness_tmpdir(void);
/* Repository root (where data/ and tests/ are). */
const char *harness_srcdir(void);

#endif
