/* Running the analysis: a list of jobs from the database, one file at a
 * time (decode + analyse, then one small transaction), album loudness at
 * the end, then a fresh index. The interface runs the same loop on a
 * worker thread with its own connection, at the lowest CPU priority,
 * pausable between files and ended by a stop flag inside a file. */
#include "app/app_analysis.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analyze.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_view.h" /* app_item_is_stream */
#include "coll/eval.h"
#include "medialib/index.h"
#include "medialib/index_load.h"
#include "medialib/media_analysis.h"
#include "medialib/similarity.h"

struct app_analysis {
	pthread_t thread;
	int pipe_rd, pipe_wr;
	char *db_path;
	atomic_int stop, paused;
	pthread_mutex_t mu; /* guards the fields below */
	pthread_cond_t resume;
	struct app_analysis_progress prog;
	bool done;
	double last_reload; /* monotonic seconds: the index last caught up with us */
};

/* While the background analysis stores a result per file, the index is
 * rebuilt at most this often (a rebuild per file would be one per second
 * on a large library). */
#define ANALYSIS_RELOAD_EVERY_S 60.0

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool album_loudness(const void *const *blobs, const size_t *lens, size_t n, double *lufs)
{
	uint32_t **h = xcalloc(n, sizeof *h);
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		if (!lens[i])
			continue; /* a silent track adds no block */
		h[i] = xcalloc(AN_HIST_BINS, sizeof **h);
		ok = an_hist_decode(blobs[i], lens[i], h[i]);
	}
	if (ok)
		ok = an_hist_loudness((const uint32_t *const *)h, n, lufs);
	for (size_t i = 0; i < n; i++)
		free(h[i]);
	free(h);
	return ok;
}

void app_analysis_albums_due(struct mlib_db *db)
{
	struct crate_err err = {0};
	(void)mlib_analysis_update_due_albums(db, album_loudness, &err);
}

/* Analyse one job and store what came of it. -1 only when storing failed
 * (the database is the problem, not the file) or when stopped. */
static int run_job(struct mlib_db *db, const struct mlib_analysis_job *job,
		   const atomic_int *stop, struct app_analysis_progress *p, struct crate_err *err)
{
	struct an_result r;
	struct crate_err ferr = {0};
	int rc = an_analyze_range(job->path, job->cue_start, job->cue_end, stop, &r, &ferr);
	if (rc != 0 && stop && atomic_load(stop)) {
		an_result_clear(&r);
		return crate_err_set(err, CRATE_ERR_REFUSED, "stopped");
	}
	struct mlib_analysis_row row = {.error = rc != 0 ? ferr.msg : NULL,
					.loudness = NAN, .lra = NAN, .truepeak = NAN,
					.bpm = NAN, .bpm_confidence = NAN, .onset = NAN};
	unsigned char *hist = NULL;
	if (rc == 0) {
		if (r.has_loudness) {
			row.loudness = r.loudness;
			row.lra = r.lra;
			row.truepeak = r.truepeak;
			hist = an_hist_encode(r.hist, &row.histlen);
			row.hist = hist;
		}
		if (r.has_tempo) {
			row.bpm = r.bpm;
			row.bpm_confidence = r.bpm_confidence;
		}
		if (r.has_timbre) {
			row.onset = r.onset;
			row.timbre = r.timbre;
			row.ntimbre = AN_TIMBRE_DIMS;
		}
		p->audio_s += r.seconds;
	} else {
		p->failed++;
		snprintf(p->msg, sizeof p->msg, "%s", ferr.msg);
	}
	/* A file not there or not readable now (a drive not mounted, a
	 * folder moved away for a while, permissions) may come back as it
	 * was: no result is stored, so the next run tries it again. Only a
	 * file that opens and fails to decode keeps its failure. */
	bool unreachable = rc != 0 && (ferr.code == CRATE_ERR_NOTFOUND || ferr.code == CRATE_ERR_IO);
	int src = unreachable ? 0 : mlib_analysis_put(db, job, &row, err);
	free(hist);
	an_result_clear(&r);
	p->done++;
	return src;
}

typedef void (*wait_fn)(void *ud);

/* The loop shared by both front ends. */
static int run_jobs(struct mlib_db *db, const struct mlib_analysis_jobs *jobs,
		    const atomic_int *stop, wait_fn wait, void *wait_ud, app_analysis_fn cb,
		    void *ud, struct app_analysis_progress *p, struct crate_err *err)
{
	double t0 = now_s();
	p->total = jobs->n;
	struct u32vec done = {0};
	int rc = 0;
	for (size_t i = 0; i < jobs->n && rc == 0; i++) {
		if (wait)
			wait(wait_ud);
		if (stop && atomic_load(stop))
			break;
		snprintf(p->current, sizeof p->current, "%s", jobs->v[i].url);
		rc = run_job(db, &jobs->v[i], stop, p, err);
		if (rc == 0)
			u32vec_push(&done, jobs->v[i].id);
		p->elapsed_s = now_s() - t0;
		if (cb)
			cb(ud, p);
	}
	if (stop && atomic_load(stop))
		rc = 0; /* stopping is not a failure: the rest waits for the next run */
	if (rc == 0 && done.n)
		rc = mlib_analysis_update_albums(db, done.v, done.n, album_loudness, err);
	if (rc == 0)
		app_analysis_albums_due(db);
	u32vec_free(&done);
	p->current[0] = '\0';
	p->elapsed_s = now_s() - t0;
	return rc;
}

/* The files (among only; NULL: all) whose stored analysis is a failure:
 * a run with nothing to do names them rather than call every file
 * analysed. A stream's failure is an older crate's (streams are not
 * analysed), which no run would try again. */
static size_t count_failed(const struct app *app, const struct bitset *only)
{
	const struct mlib_index *idx = app->index;
	int prop = idx ? mlib_index_prop(idx, "analysis_error") : -1;
	if (prop < 0)
		return 0;
	size_t n = 0;
	uint32_t bound = mlib_index_id_bound(idx);
	for (uint32_t id = 1; id < bound; id++) {
		const uint32_t *v;
		if ((!only || bitset_test(only, id)) && mlib_index_has_media(idx, id) &&
		    mlib_index_str_values(idx, prop, id, &v) > 0 && !app_item_is_stream(app, id))
			n++;
	}
	return n;
}

int app_analyze(struct app *app, const char *query, bool all, app_analysis_fn cb, void *ud,
		struct app_analysis_progress *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	if (mlib_db_readonly(app->db))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "%s: the database is read-only; cannot store analyses",
				     mlib_db_path(app->db));
	struct bitset only = {0};
	bool restrict_ids = query != NULL;
	if (restrict_ids) {
		struct coll_result res;
		if (app_eval_query(app, query, false, &res, err) != 0)
			return -1;
		if (res.ids.n == 0) { /* not "analysed 0 of 0 files": it did nothing */
			coll_result_free(&res);
			return crate_err_set(err, CRATE_ERR_NOTFOUND,
					     "nothing matches '%s': nothing analysed", query);
		}
		bitset_init(&only, mlib_index_id_bound(app->index));
		for (size_t i = 0; i < res.ids.n; i++)
			bitset_set(&only, res.ids.v[i]);
		coll_result_free(&res);
	}
	struct mlib_analysis_jobs jobs;
	int rc = mlib_analysis_pending(app->db, all, restrict_ids ? &only : NULL, &jobs, err);
	if (rc == 0 && jobs.n == 0)
		out->failed_before = count_failed(app, restrict_ids ? &only : NULL);
	bitset_free(&only);
	if (rc != 0)
		return -1;
	rc = run_jobs(app->db, &jobs, NULL, NULL, NULL, cb, ud, out, err);
	mlib_analysis_jobs_free(&jobs);
	if (out->done > 0)
		app_space_drop(app); /* new vectors */
	if (rc == 0 && out->done > 0)
		rc = app_reload_index(app, err);
	out->finished = true;
	out->rc = rc;
	if (cb)
		cb(ud, out);
	return rc;
}

int app_analysis_import(struct app *app, const char *json, size_t len, size_t *imported,
			size_t *skipped, struct crate_err *err)
{
	*imported = *skipped = 0;
	if (mlib_db_readonly(app->db))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "%s: the database is read-only; cannot store analyses",
				     mlib_db_path(app->db));
	struct u32vec ids = {0};
	int rc = mlib_analysis_import(app->db, json, len, &ids, skipped, err);
	*imported = ids.n;
	if (rc == 0 && ids.n)
		rc = mlib_analysis_update_albums(app->db, ids.v, ids.n, album_loudness, err);
	u32vec_free(&ids);
	if (rc == 0 && *imported) {
		app_space_drop(app);
		rc = app_reload_index(app, err);
	}
	return rc;
}

/* ---- background ---- */

static void notify(struct app_analysis *a)
{
	char c = 1;
	ssize_t w = write(a->pipe_wr, &c, 1); /* non-blocking: full means "look" */
	(void)w;
}

static void bg_progress(void *ud, const struct app_analysis_progress *p)
{
	struct app_analysis *a = ud;
	pthread_mutex_lock(&a->mu);
	a->prog = *p;
	a->prog.paused = atomic_load(&a->paused);
	pthread_mutex_unlock(&a->mu);
	notify(a);
}

static void bg_wait(void *ud)
{
	struct app_analysis *a = ud;
	pthread_mutex_lock(&a->mu);
	while (atomic_load(&a->paused) && !atomic_load(&a->stop))
		pthread_cond_wait(&a->resume, &a->mu);
	pthread_mutex_unlock(&a->mu);
}

static void *bg_thread(void *arg)
{
	struct app_analysis *a = arg;
	/* Lowest priority for this thread only (Linux: nice is per thread):
	 * playback and the interface come first. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	struct crate_err err = {0};
	struct mlib_db *db = NULL;
	struct app_analysis_progress p = {0};
	struct mlib_analysis_jobs jobs = {0};
	int rc = mlib_db_open(a->db_path, 0, &db, &err);
	if (rc == 0)
		rc = mlib_analysis_pending(db, false, NULL, &jobs, &err);
	if (rc == 0)
		rc = run_jobs(db, &jobs, &a->stop, bg_wait, a, bg_progress, a, &p, &err);
	mlib_analysis_jobs_free(&jobs);
	mlib_db_close(db);
	pthread_mutex_lock(&a->mu);
	a->prog = p;
	a->prog.rc = rc;
	if (rc != 0)
		snprintf(a->prog.msg, sizeof a->prog.msg, "%s", err.msg);
	a->done = true;
	pthread_mutex_unlock(&a->mu);
	notify(a);
	return NULL;
}

static void bg_free(struct app_analysis *a)
{
	if (a->pipe_rd >= 0)
		close(a->pipe_rd);
	if (a->pipe_wr >= 0)
		close(a->pipe_wr);
	free(a->db_path);
	pthread_cond_destroy(&a->resume);
	pthread_mutex_destroy(&a->mu);
	free(a);
}

int app_analysis_start(struct app *app, struct crate_err *err)
{
	if (app->analysis)
		return crate_err_set(err, CRATE_ERR_REFUSED, "an analysis is already running");
	if (mlib_db_readonly(app->db))
		return crate_err_set(err, CRATE_ERR_REFUSED,
				     "%s: the database is read-only; cannot store analyses",
				     mlib_db_path(app->db));
	struct app_analysis *a = xcalloc(1, sizeof *a);
	int fds[2];
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
		free(a);
		return crate_err_set(err, CRATE_ERR_IO, "cannot create a pipe: %s", strerror(errno));
	}
	a->pipe_rd = fds[0];
	a->pipe_wr = fds[1];
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->resume, NULL);
	a->db_path = xstrdup(app->db_path);
	a->last_reload = now_s();
	if (pthread_create(&a->thread, NULL, bg_thread, a) != 0) {
		bg_free(a);
		return crate_err_set(err, CRATE_ERR_IO, "cannot start the analysis thread");
	}
	app->analysis = a;
	return 0;
}

bool app_analysis_auto(struct app *app)
{
	if (app->analysis)
		return true;
	if (!config_get_bool(app->cfg, "analysis.auto", false) || !app->db ||
	    mlib_db_readonly(app->db))
		return false;
	int64_t done, failed, total;
	if (mlib_analysis_count(app->db, &done, &failed, &total, NULL) != 0 || done >= total)
		return false;
	return app_analysis_start(app, NULL) == 0;
}

void app_analysis_pause(struct app *app, bool paused)
{
	struct app_analysis *a = app->analysis;
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	atomic_store(&a->paused, paused);
	a->prog.paused = paused;
	pthread_cond_broadcast(&a->resume);
	pthread_mutex_unlock(&a->mu);
	notify(a);
}

bool app_analysis_running(const struct app *app)
{
	return app->analysis != NULL;
}

int app_analysis_event_fd(const struct app *app)
{
	return app->analysis ? app->analysis->pipe_rd : -1;
}

int app_analysis_poll(struct app *app, struct app_analysis_progress *out)
{
	struct app_analysis *a = app->analysis;
	if (!a)
		return -1;
	char buf[64];
	while (read(a->pipe_rd, buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&a->mu);
	*out = a->prog;
	bool done = a->done;
	pthread_mutex_unlock(&a->mu);
	if (!done)
		return 0;
	pthread_join(a->thread, NULL);
	app->analysis = NULL;
	bg_free(a);
	/* The results reach the index the way every other commit does
	 * (app_changes_check rebuilds it in the background); look now. */
	app_space_drop(app);
	app->changes_pending = true;
	out->finished = true;
	if (out->rc == 0 && out->total == 0)
		out->failed_before = count_failed(app, NULL);
	return 1;
}

bool app_analysis_defers_reload(struct app *app)
{
	struct app_analysis *a = app->analysis;
	if (!a)
		return false;
	double t = now_s();
	if (t - a->last_reload < ANALYSIS_RELOAD_EVERY_S)
		return true;
	a->last_reload = t;
	return false;
}

void app_analysis_stop(struct app *app)
{
	struct app_analysis *a = app->analysis;
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	atomic_store(&a->stop, 1);
	pthread_cond_broadcast(&a->resume);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	app->analysis = NULL;
	bg_free(a);
}

/* ---- similarity ---- */

void app_space_drop(struct app *app)
{
	mlib_space_free(app->space);
	app->space = NULL;
}

const struct mlib_space *app_space(void *ud, struct crate_err *err)
{
	struct app *app = ud;
	if (!app->index || !app->db) {
		crate_err_set(err, CRATE_ERR_INVALID, "like: no library is open");
		return NULL;
	}
	if (app->space && app->space_generation == app->index_serial &&
	    app->space_count == mlib_index_count(app->index))
		return app->space;
	app_space_drop(app);
	if (mlib_space_load(app->db, app->index, &app->space, err) != 0)
		return NULL;
	app->space_generation = app->index_serial;
	app->space_count = mlib_index_count(app->index);
	return app->space;
}

/* ---- ReplayGain ---- */

/* prop of id read by parse (play_rg_parse and its stricter kin); NAN
 * when absent. */
static double prop_parsed(struct app *app, uint32_t id, const char *prop,
			  double (*parse)(const char *))
{
	char buf[64];
	return parse(app->index ? mlib_index_get_text(app->index, id, prop, buf, sizeof buf)
				: NULL);
}

static double prop_number(struct app *app, uint32_t id, const char *prop)
{
	return prop_parsed(app, id, prop, play_rg_parse);
}

/* ReplayGain 2.0: the reference loudness is -18 LUFS. */
#define RG2_REFERENCE_LUFS (-18.0)

/* The analysed true peak prop (dBTP) as a linear peak; NAN without one. */
static double peak_of(struct app *app, uint32_t id, const char *prop)
{
	double t = prop_number(app, id, prop);
	return isnan(t) ? NAN : pow(10.0, t / 20.0);
}

static void computed(struct app *app, uint32_t id, const char *loud, const char *tp,
		     double *gain, double *peak)
{
	double l = prop_number(app, id, loud);
	if (isnan(l))
		return;
	*gain = RG2_REFERENCE_LUFS - l;
	*peak = peak_of(app, id, tp);
}

struct play_rg app_analysis_rg(struct app *app, uint32_t id)
{
	struct play_rg rg = play_rg_none();
	if (!id || !app->index)
		return rg;
	bool prefer = strcmp(config_get(app->cfg, "playback.replaygain_source", "tags"),
			     "analysis") == 0;
	if (!prefer) {
		/* A tag not to believe (a gain of +200 dB, a peak of 0) is
		 * ignored, as the README says, not clamped to the limit (a
		 * quiet file played as a full-scale square wave); Opus's R128
		 * gains stand for missing ReplayGain ones. */
		rg.track_gain_db = prop_parsed(app, id, "replaygain_track_gain", play_rg_parse_gain);
		rg.track_peak = prop_parsed(app, id, "replaygain_track_peak", play_rg_parse_peak);
		rg.album_gain_db = prop_parsed(app, id, "replaygain_album_gain", play_rg_parse_gain);
		rg.album_peak = prop_parsed(app, id, "replaygain_album_peak", play_rg_parse_peak);
		if (isnan(rg.track_gain_db))
			rg.track_gain_db = prop_parsed(app, id, "r128_track_gain", play_rg_parse_r128);
		if (isnan(rg.album_gain_db))
			rg.album_gain_db = prop_parsed(app, id, "r128_album_gain", play_rg_parse_r128);
	}
	if (isnan(rg.track_gain_db))
		computed(app, id, "loudness", "truepeak", &rg.track_gain_db, &rg.track_peak);
	if (isnan(rg.album_gain_db))
		computed(app, id, "album_loudness", "album_truepeak", &rg.album_gain_db,
			 &rg.album_peak);
	/* A gain tag without its peak tag: the measured peak is the same
	 * audio's, and keeps a raising gain from clipping it. */
	if (isnan(rg.track_peak))
		rg.track_peak = peak_of(app, id, "truepeak");
	if (isnan(rg.album_peak))
		rg.album_peak = peak_of(app, id, "album_truepeak");
	return rg;
}
