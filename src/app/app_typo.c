/* Background word dictionary for spelling corrections (app_typo.h). The
 * thread reads only the index's string dictionaries, which never change
 * while the index lives; app_typo_stop runs before the index is freed or
 * replaced. */
#include "app/app_typo.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/str.h"
#include "coll/typo.h"

struct app_typo {
	pthread_t thread;
	struct coll_typo_source src; /* found on the main thread */
	unsigned serial;             /* the app->index_serial it is for */
	atomic_int cancel;
	struct coll_typo_dict *dict; /* the thread's result: read after the join */
	bool joined;
};

static void *typo_thread(void *arg)
{
	struct app_typo *t = arg;
	t->dict = coll_typo_dict_build_from(&t->src, &t->cancel);
	return NULL;
}

void app_typo_start(struct app *app)
{
	if (!app->index || (app->typo && app->typo->serial == app->index_serial))
		return;
	app_typo_stop(app);
	struct app_typo *t = xcalloc(1, sizeof *t);
	coll_typo_source_get(app->index, &t->src);
	t->serial = app->index_serial;
	atomic_init(&t->cancel, 0);
	if (pthread_create(&t->thread, NULL, typo_thread, t) != 0) {
		free(t); /* searches build their own, as without a thread */
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
		pthread_join(t->thread, NULL);
	}
	coll_typo_dict_free(t->dict);
	free(t);
	app->typo = NULL;
}

const struct coll_typo_dict *app_typo_get(void *arg, const struct mlib_index *idx)
{
	struct app *app = arg;
	struct app_typo *t = app->typo;
	if (!t || t->serial != app->index_serial || t->src.idx != idx || idx != app->index)
		return NULL;
	if (!t->joined) {
		pthread_join(t->thread, NULL);
		t->joined = true;
	}
	return t->dict;
}
