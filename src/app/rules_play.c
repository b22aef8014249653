/* Rules at play time (rules.h): the application's rule list, which rule
 * the playing track follows, and the engine stage (equalizer, volume
 * offset, ReplayGain) that applies its settings. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/rules_internal.h"
#include "play/engine.h"
#include "play/gain.h"

/* ---- application level ---- */

struct rules *app_rules(struct app *app, struct crate_err *err)
{
	if (app->rules)
		return app->rules;
	if (!app->db) {
		crate_err_set(err, CRATE_ERR_DB, "no library database is open");
		return NULL;
	}
	if (rules_open(app->db, &app->rules, err) != 0)
		app->rules = NULL;
	return app->rules;
}

void rules_settings_for(struct app *app, uint32_t id, struct rule_settings *out)
{
	struct crate_err err = {0};
	struct rules *rs = app_rules(app, &err);
	rules_settings_compute(rs, app->index, app->store, app->cfg, id, out);
	if (!rs)
		snprintf(out->msg, sizeof out->msg, "rules: %s", err.msg);
}

bool app_rules_pshuffle_allows(struct app *app, uint32_t id)
{
	struct rules *rs = app_rules(app, NULL);
	if (!rs || rs->n == 0)
		return true;
	int i = rules_match(rs, app->index, app->store, id);
	return i < 0 || rs->v[i].r.pshuffle;
}

int app_rules_coll_renamed(struct app *app, const char *ns, const char *old_name,
			   const char *new_name, struct crate_err *err)
{
	struct rules *rs = app_rules(app, err);
	return rs ? rules_on_rename(rs, ns, old_name, new_name, err) : -1;
}

int app_rules_coll_removing(struct app *app, const char *ns, const char *name, bool force,
			    struct crate_err *err)
{
	struct rules *rs = app_rules(app, err);
	return rs ? rules_on_remove(rs, ns, name, force, err) : -1;
}

void app_rules_track_started(struct app *app, uint32_t id)
{
	struct rules *rs = app_rules(app, NULL);
	if (!rs)
		return;
	free(rs->active);
	rs->active = NULL;
	for (size_t k = 0; k < rs->n; k++)
		rs->v[k].playing = false;
	if (!id)
		return;
	int i = rules_match(rs, app->index, app->store, id);
	if (i >= 0) {
		rs->active = xstrdup(rs->v[i].target);
		rs->v[i].playing = true;
	}
}

int app_rules_active_index(struct app *app)
{
	struct rules *rs = app->rules;
	for (size_t k = 0; rs && k < rs->n; k++)
		if (rs->v[k].playing)
			return (int)k;
	return -1;
}

const char *app_rules_active_name(struct app *app)
{
	return app->rules ? app->rules->active : NULL;
}

/* ---- the playback stage ----
 *
 * One equalizer for the whole stream (eq_chain), shared by the tracks'
 * play_dsp stages: each track's stage retunes it in configure (the engine
 * calls that at the track boundary, after the previous track's last block),
 * so the equalizer's history and filter state carry across tracks and a
 * retune can warm up and crossfade (eq.h). The main thread creates the
 * stages and holds a reference; only the engine thread touches chain->eq. */

struct eq_chain {
	atomic_uint refs;
	struct eq *eq;              /* engine thread only */
	struct play_format fmt;     /* eq's format */
};

struct track_stage {
	struct play_dsp dsp;
	struct eq_chain *chain;     /* one reference */
	struct eq_settings eq;
	double gain;                /* volume offset and ReplayGain, linear */
};

static struct eq_chain *chain_ref(struct eq_chain *c)
{
	atomic_fetch_add(&c->refs, 1);
	return c;
}

void rules_eq_chain_unref(struct eq_chain *c)
{
	if (c && atomic_fetch_sub(&c->refs, 1) == 1) {
		eq_free(c->eq);
		free(c);
	}
}

static int stage_configure(void *ud, const struct play_format *fmt)
{
	struct track_stage *ts = ud;
	struct eq_chain *c = ts->chain;
	enum eq_fmt ef = fmt->sfmt == PLAY_SFMT_S16 ? EQ_FMT_S16
		       : fmt->sfmt == PLAY_SFMT_S32 ? EQ_FMT_S32 : EQ_FMT_FLT;
	if (fmt->sfmt != PLAY_SFMT_S16 && fmt->sfmt != PLAY_SFMT_S32 &&
	    fmt->sfmt != PLAY_SFMT_FLOAT)
		return -1;
	if (c->eq && play_format_equal(&c->fmt, fmt)) {
		eq_set_settings(c->eq, &ts->eq);
		return 0;
	}
	/* A new stream format: the old history means nothing to it. */
	eq_free(c->eq);
	c->eq = eq_new(&ts->eq, fmt->rate, fmt->channels, ef, NULL);
	c->fmt = *fmt;
	return c->eq ? 0 : -1;
}

static void stage_process(void *ud, void *frames, size_t n, const struct play_format *fmt)
{
	struct track_stage *ts = ud;
	eq_process(ts->chain->eq, frames, n);
	play_gain_apply(frames, n, fmt, ts->gain);
}

static void stage_destroy(struct play_dsp *dsp)
{
	struct track_stage *ts = dsp->ud;
	rules_eq_chain_unref(ts->chain);
	free(ts);
}

void rules_track_prepare(struct app *app, struct engine_track *t, double rg_preamp_db)
{
	t->dsp = NULL;
	struct rules *rs = app_rules(app, NULL);
	/* No rules: no stage at all, the sample path stays as it was. */
	if (!rs || rs->n == 0)
		return;
	struct rule_settings s;
	rules_settings_for(app, t->id, &s);
	struct track_stage *ts = xcalloc(1, sizeof *ts);
	ts->eq = s.eq;
	ts->gain = pow(10, s.volume_db / 20);
	if (s.replaygain != RULE_RG_DEFAULT) {
		ts->gain *= play_rg_factor(&t->rg, (enum play_rg_mode)s.replaygain, rg_preamp_db);
		t->rg = play_rg_none();
	}
	if (!rs->chain) {
		rs->chain = xcalloc(1, sizeof *rs->chain);
		atomic_init(&rs->chain->refs, 1);
	}
	ts->chain = chain_ref(rs->chain);
	ts->dsp = (struct play_dsp){
		.ud = ts, .configure = stage_configure, .process = stage_process,
		.destroy = stage_destroy,
	};
	t->dsp = &ts->dsp;
}
