/* Rules in the sample path: the real engine playing FFmpeg-decoded tracks
 * to ALSA's file plugin, each track handed over with rules_track_prepare
 * (as app_play does), the database, store and evaluator real too. */
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/rules.h"
#include "coll/store.h"
#include "harness.h"
#include "medialib/db.h"
#include "medialib/index.h"
#include "play/engine.h"
#include "play/presets.h"
#include "test_play_util.h"

#define RATE 44100

/* A test preset with known gains: +6 dB around 100 Hz, -6 dB around 10 kHz. */
#define PRESET_BANDS "6, 6, 6, 6, 0, 0, -6, -6, -6, -6"
#define PRESET_PREAMP "-2"

struct rig {
	struct app app;
	const char *paths[3];
	int next;
};

/* Tracks 1 and 3 are Rock, track 2 (the two tones) is Jazz. */
static void rig_open(struct rig *r, const char *rule_query)
{
	memset(r, 0, sizeof *r);
	struct crate_err err = {0};
	const char *dir = harness_tmpdir();
	char *db = xasprintf("%s/library.db", dir);
	REQUIRE(mlib_db_open(db, 0, &r->app.db, &err) == 0);
	free(db);
	REQUIRE(coll_store_open(r->app.db, &r->app.store, &err) == 0);
	r->app.index = mlib_index_new();
	const char *genre[3] = {"Rock", "Jazz", "Rock"};
	for (uint32_t id = 1; id <= 3; id++) {
		mlib_index_add_media(r->app.index, id);
		mlib_index_add_str(r->app.index, id, "genre", genre[id - 1], 4);
	}
	mlib_index_finish(r->app.index);
	r->app.cfg = config_new_empty();
	config_set(r->app.cfg, "eq.preset.test.bands", PRESET_BANDS);
	config_set(r->app.cfg, "eq.preset.test.preamp", PRESET_PREAMP);
	struct rules *rs = app_rules(&r->app, &err);
	REQUIRE(rs);
	struct rule rule;
	REQUIRE(rule_from_target(r->app.store, rule_query, &rule, &err) == 0);
	rule.eq = xstrdup("test");
	REQUIRE(rules_add(rs, SIZE_MAX, &rule, &err) == 0);
	rule_clear(&rule);
}

static void rig_close(struct rig *r)
{
	rules_free(r->app.rules);
	coll_store_free(r->app.store);
	mlib_db_close(r->app.db);
	mlib_index_free(r->app.index);
	config_free(r->app.cfg);
}

static void hand(struct rig *r, struct engine *e, int i, bool first)
{
	struct engine_track t = {.path = r->paths[i], .id = (uint32_t)i + 1, .rg = play_rg_none()};
	rules_track_prepare(&r->app, &t, 0);
	if (first)
		engine_play(e, &t);
	else
		engine_set_next(e, &t);
}

/* Play the three tracks gaplessly; true when track 3 finished and the
 * active rule was want2 (NULL: none) during track 2 and none otherwise. */
static bool play_all(struct rig *r, const char *want2)
{
	struct engine_opts o = {.sfmt = PLAY_SFMT_S16, .volume = 100};
	struct engine *e = NULL;
	struct crate_err err = {0};
	REQUIRE(engine_new(&o, &e, &err) == 0);
	hand(r, e, 0, true);
	r->next = 1;
	bool done = false;
	int started2 = 0;
	for (int waited = 0; waited < 20000 && !done;) {
		struct engine_event ev;
		while (engine_next_event(e, &ev)) {
			if (ev.type == ENGINE_EV_NEED_NEXT && r->next < 3)
				hand(r, e, r->next++, false);
			if (ev.type == ENGINE_EV_STARTED) {
				app_rules_track_started(&r->app, ev.id);
				if (ev.id == 2) {
					const char *a = app_rules_active_name(&r->app);
					started2 = (a && want2 && strcmp(a, want2) == 0) || (!a && !want2)
						   ? 1 : -1;
				} else if (app_rules_active_name(&r->app)) {
					started2 = -2;
				}
			}
			if (ev.type == ENGINE_EV_FINISHED && ev.id == 3)
				done = true;
			if (ev.type == ENGINE_EV_ERROR)
				fprintf(stderr, "    engine: %s\n", ev.msg);
		}
		struct pollfd p = {.fd = engine_event_fd(e), .events = POLLIN};
		poll(&p, 1, 50);
		waited += 50;
	}
	engine_free(e);
	return done && started2 >= 0;
}

static void make_tracks(struct rig *r, char **p)
{
	const char *dir = harness_tmpdir();
	for (int i = 0; i < 3; i++)
		p[i] = xasprintf("%s/t%d.flac", dir, i + 1);
	REQUIRE(tp_make_tone(p[0], 440, 1.2345, RATE, NULL));
	REQUIRE(tp_sh("ffmpeg -nostdin -v quiet -y -f lavfi -i "
		      "'aevalsrc=0.2*sin(2*PI*100*t)+0.2*sin(2*PI*10000*t):s=%d:d=2.0' -ac 2 '%s'",
		      RATE, p[1]));
	REQUIRE(tp_make_tone(p[2], 700, 0.777, RATE, NULL));
	for (int i = 0; i < 3; i++)
		r->paths[i] = p[i];
}

static double level_db(const int16_t *s, size_t n, int ch, double hz)
{
	double w = 2 * M_PI * hz / RATE, c = 2 * cos(w), s1 = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		double s0 = s[i * 2 + ch] / 32768.0 + c * s1 - s2;
		s2 = s1;
		s1 = s0;
	}
	return 20 * log10(2 * sqrt(s1 * s1 + s2 * s2 - c * s1 * s2) / n);
}

TEST(rule_equalizes_its_track_and_leaves_the_others_bit_exact)
{
	const char *out = tp_alsa_to_file(harness_tmpdir());
	struct rig r;
	char *p[3];
	rig_open(&r, "genre:Jazz");
	make_tracks(&r, p);
	CHECK(play_all(&r, "genre:Jazz"));
	size_t len = 0, l[3];
	char *got = tp_read_file(out, &len);
	char *ref[3];
	for (int i = 0; i < 3; i++)
		ref[i] = tp_ffmpeg_decode(p[i], "s16le", 2, RATE, &l[i]);
	/* gapless: nothing inserted or lost at either boundary */
	CHECK_INT(len, l[0] + l[1] + l[2]);
	REQUIRE(got && len == l[0] + l[1] + l[2]);
	CHECK_MSG(memcmp(got, ref[0], l[0]) == 0, "track 1 (no rule) is not bit-exact");
	/* Track 3 follows the equalized track 2: the equalizer fades out over its
	 * first 5 ms (no click), then it is bit-exact. */
	size_t fade = (size_t)(RATE / 200) * 4; /* bytes: s16 stereo */
	REQUIRE(l[2] > fade);
	CHECK_MSG(memcmp(got + l[0] + l[1] + fade, ref[2] + fade, l[2] - fade) == 0,
		  "track 3 (no rule) is not bit-exact after the 5 ms fade");
	CHECK(memcmp(got + l[0], ref[1], l[1]) != 0);

	/* Track 2: the tones' levels change by the preset's response. */
	struct eq_settings s;
	REQUIRE(eq_preset_get(r.app.cfg, "test", &s, NULL) == 0);
	const int16_t *eqd = (const int16_t *)(got + l[0]), *raw = (const int16_t *)ref[1];
	size_t from = RATE / 2, n = RATE; /* a settled second, whole periods of both tones */
	const double hz[2] = {100, 10000}, plateau[2] = {6 - 2, -6 - 2};
	for (int k = 0; k < 2; k++) {
		for (int ch = 0; ch < 2; ch++) {
			double gain = level_db(eqd + from * 2, n, ch, hz[k]) -
				      level_db(raw + from * 2, n, ch, hz[k]);
			double want = eq_response_db(&s, RATE, hz[k]);
			CHECK_MSG(fabs(gain - want) < 0.5, "%g Hz ch%d: %.3f dB, response %.3f dB",
				  hz[k], ch, gain, want);
			if (ch == 0)
				fprintf(stderr, "    %g Hz: measured %+.2f dB, response %+.2f dB, preset "
					"bands around it %+.0f dB\n", hz[k], gain, want, plateau[k]);
		}
	}
	CHECK(fabs(level_db(eqd + from * 2, n, 0, 100) - level_db(raw + from * 2, n, 0, 100) -
		   plateau[0]) < 0.5);
	/* The largest sample step at the two boundaries against the signal's own. */
	const int16_t *all = (const int16_t *)got;
	size_t b1 = l[0] / 4, b2 = (l[0] + l[1]) / 4, total = len / 4;
	int jb1 = 0, jb2 = 0, steady = 0;
	for (size_t i = 1; i < total; i++) {
		int d = abs(all[i * 2] - all[(i - 1) * 2]);
		if (i == b1)
			jb1 = d;
		else if (i == b2)
			jb2 = d;
		else if (d > steady)
			steady = d;
	}
	fprintf(stderr, "    boundary steps: into the rule %d, out of it %d; elsewhere max %d\n",
		jb1, jb2, steady);
	CHECK_MSG(jb2 <= steady, "out of the rule: step %d > the signal's own max %d", jb2, steady);
	for (int i = 0; i < 3; i++) {
		free(ref[i]);
		free(p[i]);
	}
	free(got);
	rig_close(&r);
}

TEST(no_matching_rule_is_bit_exact)
{
	const char *out = tp_alsa_to_file(harness_tmpdir());
	struct rig r;
	char *p[3];
	rig_open(&r, "genre:Classical"); /* rules exist, none matches: flat stages */
	make_tracks(&r, p);
	CHECK(play_all(&r, NULL));
	size_t len = 0, total = 0;
	char *got = tp_read_file(out, &len);
	for (int i = 0; i < 3; i++) {
		size_t rl;
		char *ref = tp_ffmpeg_decode(p[i], "s16le", 2, RATE, &rl);
		CHECK_MSG(total + rl <= len && memcmp(got + total, ref, rl) == 0,
			  "track %d not bit-exact", i + 1);
		total += rl;
		free(ref);
		free(p[i]);
	}
	CHECK_INT(len, total);
	free(got);
	rig_close(&r);
}
