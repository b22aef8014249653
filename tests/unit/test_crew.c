/* base/crew.c: every item is done exactly once, by the caller alone or
 * shared with a helper thread. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/crew.h"
#include "base/err.h"
#include "harness.h"

struct tally {
	atomic_uint *done; /* per item: how many times it was done */
	pthread_t caller;
	atomic_uint by_other; /* items done on a thread that is not the caller */
};

static void count_item(void *ctx, size_t i)
{
	struct tally *t = ctx;
	atomic_fetch_add(&t->done[i], 1);
	if (!pthread_equal(pthread_self(), t->caller))
		atomic_fetch_add(&t->by_other, 1);
}

/* Runs n items; returns how many a thread other than the caller did. */
static unsigned run(size_t n, bool worth_help)
{
	struct tally t = {.done = xcalloc(n + 1, sizeof *t.done), .caller = pthread_self()};
	atomic_init(&t.by_other, 0);
	crew_run(n, worth_help, count_item, &t);
	size_t wrong = n;
	for (size_t i = 0; i < n && wrong == n; i++)
		if (atomic_load(&t.done[i]) != 1)
			wrong = i;
	CHECK_MSG(wrong == n, "%zu items: item %zu done %u times", n, wrong,
		  wrong < n ? atomic_load(&t.done[wrong]) : 0);
	free(t.done);
	return atomic_load(&t.by_other);
}

TEST(every_item_is_done_once)
{
	run(0, true);
	run(1, true);
	run(2, true);
	run(100000, true);
	run(100000, false);
}

TEST(without_help_the_caller_does_everything)
{
	CHECK_INT(run(5000, false), 0);
	CHECK_INT(run(1, true), 0); /* one item is never shared */
}
