/* base/crew.c: every item is done exactly once, by the caller alone or
 * shared with a helper thread. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Work for the helper that holds it until released: item 0 waits. */
struct hold {
	atomic_bool entered, release;
};

static void hold_item(void *ctx, size_t i)
{
	struct hold *h = ctx;
	if (i != 0)
		return;
	atomic_store(&h->entered, true);
	while (!atomic_load(&h->release))
		usleep(1000);
}

static void *hold_crew(void *arg)
{
	crew_run(2, true, hold_item, arg);
	return NULL;
}

TEST(a_crew_while_the_helper_is_busy_is_done_by_its_caller)
{
	/* Another thread's crew keeps one thread busy (the helper, or that
	 * thread itself): this crew must still end, every item done once. */
	struct hold h;
	atomic_init(&h.entered, false);
	atomic_init(&h.release, false);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, hold_crew, &h) == 0);
	while (!atomic_load(&h.entered))
		usleep(1000);
	run(50000, true);
	run(3, true);
	atomic_store(&h.release, true);
	pthread_join(t, NULL);
	run(50000, true); /* and the helper serves crews again */
}

TEST(a_child_of_fork_runs_its_crews)
{
	run(50000, true); /* the helper is up in the parent */
	pid_t pid = fork();
	if (pid == 0) {
		struct tally t = {.done = xcalloc(1001, sizeof *t.done), .caller = pthread_self()};
		atomic_init(&t.by_other, 0);
		crew_run(1000, true, count_item, &t);
		for (size_t i = 0; i < 1000; i++)
			if (atomic_load(&t.done[i]) != 1)
				_exit(1);
		_exit(0);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	run(50000, true);
}
