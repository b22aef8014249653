/* Background word dictionary for spelling corrections (app_typo.h). The
 * thread reads only the index's string dictionaries, which never change
 * while the index lives; app_typo_stop runs before the index is freed or
 * replaced, and app_typo_get hands out a result only for the index (and
 * index_serial) its build was started for: a stale build is cancelled and
 * its words dropped, never shown. */
#include "app/app_typo.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/str.h"
#include "coll/typo.h"

struct app_typo {
	pthread_t thread;
	struct coll_typo_source src; /* found on the main thread */
	unsigned serial;             /* the app->index_serial it is for */
	atomic_int cancel;
	atomic_int done;             /* set by the thread once dict is written */
	struct coll_typo_dict *dict; /* the thread's result: read once done */
	bool joined;
	bool asked;                  /* a search went without it while it was building */
	int pipe_rd, pipe_wr;        /* a byte when done (non-blocking) */
};

/* app_typo_hold's gate. */
static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;
static bool held;

void app_typo_hold(bool hold)
{
	pthread_mutex_lock(&hold_mu);
	held = hold;
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&hold_mu);
}

static void *typo_thread(void *arg)
{
	struct app_typo *t = arg;
	pthread_mutex_lock(&hold_mu);
	while (held && !atomic_load(&t->cancel))
		pthread_cond_wait(&hold_cv, &hold_mu);
	pthread_mutex_unlock(&hold_mu);
	t->dict = coll_typo_dict_build_from(&t->src, &t->cancel);
	atomic_store_explicit(&t->done, 1, memory_order_release);
	char c = 1;
	ssize_t w = write(t->pipe_wr, &c, 1); /* full means "look" already */
	(void)w;
	return NULL;
}

static void typo_free(struct app_typo *t)
{
	coll_typo_dict_free(t->dict);
	close(t->pipe_rd);
	close(t->pipe_wr);
	free(t);
}

void app_typo_start(struct app *app)
{
	app->typo_wanted = true;
	if (!app->index || (app->typo && app->typo->serial == app->index_serial))
		return;
	app_typo_stop(app);
	struct app_typo *t = xcalloc(1, sizeof *t);
	int fds[2];
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
		free(t); /* searches build their own, as without a thread */
		return;
	}
	t->pipe_rd = fds[0];
	t->pipe_wr = fds[1];
	coll_typo_source_get(app->index, &t->src);
	t->serial = app->index_serial;
	atomic_init(&t->cancel, 0);
	atomic_init(&t->done, 0);
	if (pthread_create(&t->thread, NULL, typo_thread, t) != 0) {
		t->joined = true; /* nothing to join */
		typo_free(t);
		return;
	}
	app->typo = t;
}

void app_typo_stop(struct app *app)
{
	struct app_typo *t = app->typo;
	if (!t)
		return;
	if (!t->joined) {
		atomic_store(&t->cancel, 1);
		pthread_mutex_lock(&hold_mu); /* wake a held thread: it sees the cancel */
		pthread_cond_broadcast(&hold_cv);
		pthread_mutex_unlock(&hold_mu);
		pthread_join(t->thread, NULL);
	}
	typo_free(t);
	app->typo = NULL;
}

/* The build of app->index, when there is one. */
static struct app_typo *current(const struct app *app, const struct mlib_index *idx)
{
	struct app_typo *t = app->typo;
	if (!t || t->serial != app->index_serial || t->src.idx != idx || idx != app->index)
		return NULL;
	return t;
}

const struct coll_typo_dict *app_typo_get(void *arg, const struct mlib_index *idx, bool *pending)
{
	struct app *app = arg;
	struct app_typo *t = current(app, idx);
	*pending = false;
	if (!t)
		return NULL;
	if (!t->joined && !atomic_load_explicit(&t->done, memory_order_acquire)) {
		t->asked = true;
		*pending = true;
		return NULL;
	}
	if (!t->joined) {
		pthread_join(t->thread, NULL); /* done: it is returning */
		t->joined = true;
	}
	return t->dict;
}

bool app_typo_running(const struct app *app)
{
	return app->typo && !app->typo->joined &&
	       !atomic_load_explicit(&app->typo->done, memory_order_acquire);
}

int app_typo_event_fd(const struct app *app)
{
	return app->typo && !app->typo->joined ? app->typo->pipe_rd : -1;
}

bool app_typo_poll(struct app *app)
{
	struct app_typo *t = app->typo;
	if (!t)
		return false;
	char buf[16];
	while (read(t->pipe_rd, buf, sizeof buf) > 0)
		;
	if (t->joined || !atomic_load_explicit(&t->done, memory_order_acquire))
		return false;
	pthread_join(t->thread, NULL);
	t->joined = true;
	bool again = t->asked && t->dict;
	t->asked = false;
	return again;
}

const struct coll_typo_dict *app_typo_wait(struct app *app)
{
	struct app_typo *t = current(app, app->index);
	if (!t)
		return NULL;
	if (!t->joined) {
		pthread_join(t->thread, NULL);
		t->joined = true;
	}
	return t->dict;
}
