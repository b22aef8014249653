/* See crew.h. */
#include "base/crew.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

struct crew {
	size_t n;
	atomic_size_t next; /* the first item no thread has taken */
	void (*work)(void *ctx, size_t i);
	void *ctx;
};

static void *crew_loop(void *arg)
{
	struct crew *c = arg;
	for (size_t i; (i = atomic_fetch_add(&c->next, 1)) < c->n;)
		c->work(c->ctx, i);
	return NULL;
}

/* Processors online, asked once: sysconf reads a file under /sys each
 * time, and the crews run on keystrokes. */
static long online;
static pthread_once_t online_once = PTHREAD_ONCE_INIT;

static void count_online(void)
{
	online = sysconf(_SC_NPROCESSORS_ONLN);
}

void crew_run(size_t n, bool worth_help, void (*work)(void *ctx, size_t i), void *ctx)
{
	struct crew c = {.n = n, .work = work, .ctx = ctx};
	atomic_init(&c.next, 0);
	pthread_once(&online_once, count_online);
	pthread_t helper;
	bool helped = worth_help && n > 1 && online > 1 &&
		      pthread_create(&helper, NULL, crew_loop, &c) == 0;
	crew_loop(&c);
	if (helped)
		pthread_join(helper, NULL);
}
