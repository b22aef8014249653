/* See crew.h.
 *
 * One helper thread, started at the first crew that wants help and kept
 * for the life of the process, waits for a crew to be offered. The caller
 * offers its crew, then takes items itself; it waits for the helper only
 * while the helper is inside that crew (doing an item it took). A helper
 * the scheduler wakes late (the other processor busy) finds the crew
 * already withdrawn and costs the caller nothing: a thread started per
 * crew had to be joined, and the join waited for the thread to run at
 * all, which on a loaded machine took longer than the work. */
#include "base/crew.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

struct crew {
	size_t n;
	atomic_size_t next; /* the first item no thread has taken */
	void (*work)(void *ctx, size_t i);
	void *ctx;
};

static void take_items(struct crew *c)
{
	for (size_t i; (i = atomic_fetch_add(&c->next, 1)) < c->n;)
		c->work(c->ctx, i);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t offered_cv = PTHREAD_COND_INITIALIZER; /* a crew was offered */
static pthread_cond_t left_cv = PTHREAD_COND_INITIALIZER;    /* the helper left a crew */
static struct crew *offered; /* on offer to the helper, NULL: none (under lock) */
static struct crew *inside;  /* the crew the helper works in, NULL: none (under lock) */
static bool helper_up;       /* the helper runs (set once) */

static void *helper_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!offered)
			pthread_cond_wait(&offered_cv, &lock);
		inside = offered;
		offered = NULL;
		pthread_mutex_unlock(&lock);
		take_items(inside);
		pthread_mutex_lock(&lock);
		inside = NULL;
		pthread_cond_broadcast(&left_cv);
	}
	return NULL;
}

/* A child of fork has no helper (only the forking thread goes on), and
 * the lock must not be held there: it is taken around the fork. */
static void before_fork(void)
{
	pthread_mutex_lock(&lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void after_fork_child(void)
{
	helper_up = false;
	offered = inside = NULL;
	pthread_mutex_unlock(&lock);
}

/* Processors online, asked once (sysconf reads a file under /sys), and
 * the helper started once, with every signal blocked: signals are the
 * main thread's to handle. */
static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static void start_helper(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    pthread_atfork(before_fork, after_fork_parent, after_fork_child) != 0)
		return;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	helper_up = pthread_create(&t, &attr, helper_main, NULL) == 0;
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void crew_run(size_t n, bool worth_help, void (*work)(void *ctx, size_t i), void *ctx)
{
	struct crew c = {.n = n, .work = work, .ctx = ctx};
	atomic_init(&c.next, 0);
	bool offer = false;
	if (worth_help && n > 1) {
		pthread_once(&start_once, start_helper);
		if (helper_up) {
			pthread_mutex_lock(&lock);
			/* a crew of another thread holds the helper: no help */
			offer = !offered && !inside;
			if (offer) {
				offered = &c;
				pthread_cond_signal(&offered_cv);
			}
			pthread_mutex_unlock(&lock);
		}
	}
	take_items(&c);
	if (!offer)
		return;
	/* Every item is taken; those the helper took end before it leaves. */
	pthread_mutex_lock(&lock);
	if (offered == &c)
		offered = NULL; /* the helper never came */
	while (inside == &c)
		pthread_cond_wait(&left_cv, &lock);
	pthread_mutex_unlock(&lock);
}
