/* The engine thread through real ALSA (the file plugin writing raw frames)
 * and real FFmpeg: exact output, gapless hand-over, seek, pause, volume,
 * broken tracks, a missing device. */
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "play/engine.h"
#include "test_play_util.h"

/* Events seen so far, for assertions on their order. */
struct evlog {
	struct engine_event ev[256];
	int n;
};

/* Wait (up to timeout_ms) for an event of type (and id, unless 0), logging
 * every event. Calls on_need(ud, ev) for NEED_NEXT events. */
static bool wait_event(struct engine *e, struct evlog *log, enum engine_event_type type,
		       uint32_t id, int timeout_ms,
		       void (*on_need)(void *ud, struct engine *e, uint32_t id), void *ud)
{
	for (int waited = 0; waited < timeout_ms;) {
		struct engine_event ev;
		while (engine_next_event(e, &ev)) {
			if (log->n < 256)
				log->ev[log->n++] = ev;
			if (ev.type == ENGINE_EV_NEED_NEXT) {
				if (on_need)
					on_need(ud, e, ev.id);
				else
					engine_set_next(e, NULL); /* nothing follows */
			}
			if (ev.type == type && (id == 0 || ev.id == id))
				return true;
		}
		struct pollfd p = {.fd = engine_event_fd(e), .events = POLLIN};
		poll(&p, 1, 50);
		waited += 50;
	}
	return false;
}

static int count_events(const struct evlog *log, enum engine_event_type type, uint32_t id)
{
	int n = 0;
	for (int i = 0; i < log->n; i++)
		n += log->ev[i].type == type && (id == 0 || log->ev[i].id == id);
	return n;
}

static struct engine *start_engine(bool pace, enum play_sfmt sfmt, int volume)
{
	struct engine_opts o = {.device = NULL, .pace = pace, .sfmt = sfmt, .volume = volume};
	struct engine *e = NULL;
	struct crate_err err = {0};
	REQUIRE(engine_new(&o, &e, &err) == 0);
	return e;
}

static struct engine_track track(const char *path, uint32_t id)
{
	return (struct engine_track){.path = path, .id = id, .rg = play_rg_none()};
}

static bool same_bytes(const char *a, size_t alen, const char *b, size_t blen, const char *what)
{
	if (alen != blen) {
		fprintf(stderr, "    %s: %zu bytes, expected %zu\n", what, alen, blen);
		return false;
	}
	if (a && b && memcmp(a, b, alen) != 0) {
		size_t i = 0;
		while (a[i] == b[i])
			i++;
		fprintf(stderr, "    %s: first difference at byte %zu\n", what, i);
		return false;
	}
	return true;
}

/* One generated tone played through the ALSA file plugin: the output file,
 * the tone, and after tone_run_collect what was written and what ffmpeg
 * decodes the tone to (s16, stereo, 44.1 kHz). */
struct tone_run {
	const char *out;
	char *path;
	char *got, *ref;
	size_t len, rlen;
};

static void tone_run_init(struct tone_run *r, const char *name, double hz, double secs)
{
	memset(r, 0, sizeof *r);
	const char *dir = harness_tmpdir();
	r->out = tp_alsa_to_file(dir);
	r->path = xasprintf("%s/%s", dir, name);
	REQUIRE(tp_make_tone(r->path, hz, secs, 44100, NULL));
}

static void tone_run_collect(struct tone_run *r)
{
	r->got = tp_read_file(r->out, &r->len);
	r->ref = tp_ffmpeg_decode(r->path, "s16le", 2, 44100, &r->rlen);
}

static void tone_run_free(struct tone_run *r)
{
	free(r->got);
	free(r->ref);
	free(r->path);
}

/* Play t on e to its end (10 s at most), then free e. */
static bool play_to_end(struct engine *e, struct engine_track *t)
{
	struct evlog log = {0};
	engine_play(e, t);
	bool done = wait_event(e, &log, ENGINE_EV_FINISHED, t->id, 10000, NULL, NULL);
	engine_free(e);
	return done;
}

/* Output samples that are not want(input sample); the lengths must agree. */
static int sample_mismatches(const struct tone_run *r, long (*want)(int16_t x))
{
	REQUIRE(r->got && r->ref && r->len == r->rlen && r->len > 0);
	int bad = 0;
	for (size_t i = 0; i < r->len / 2; i++) {
		int16_t x, y;
		memcpy(&x, r->ref + 2 * i, 2);
		memcpy(&y, r->got + 2 * i, 2);
		bad += y != want(x);
	}
	return bad;
}

TEST(plays_wav_bit_exact_through_alsa_file_plugin)
{
	struct tone_run r;
	tone_run_init(&r, "tone.wav", 440, 1.5);
	struct engine *e = start_engine(false, PLAY_SFMT_AUTO, 100);
	struct evlog log = {0};
	struct engine_track t = track(r.path, 7);
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 7, 10000, NULL, NULL));
	CHECK(wait_event(e, &log, ENGINE_EV_STATE, 0, 2000, NULL, NULL));
	CHECK_INT(count_events(&log, ENGINE_EV_STARTED, 7), 1);
	struct engine_status st;
	engine_get_status(e, &st);
	CHECK_INT(st.state, ENGINE_STOPPED);
	engine_free(e);
	tone_run_collect(&r);
	CHECK_INT(r.rlen, 66150 * 4);
	CHECK(same_bytes(r.got, r.len, r.ref, r.rlen, "wav"));
	tone_run_free(&r);
}

/* Lossy sources play as float by default; forcing s16 matches ffmpeg's
 * own s16 conversion exactly (no dither in either). */
TEST(corpus_mp3_and_vorbis_exact_in_float_and_s16)
{
	const char *corpus = harness_corpus_dir();
	if (!corpus)
		harness_skip("../shared/corpus not found");
	const char *files[] = {"taglib-lame_cbr.mp3", "taglib-test.ogg", "mutagen-example.opus",
			       "taglib-has-tags.m4a"};
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
			char *sub = xasprintf("%s/%d-%zu", harness_tmpdir(), k, i);
			mkdir(sub, 0700);
			char *rc = xasprintf("%s/.asoundrc", sub);
			char *outp = xasprintf("%s/out.raw", sub);
			FILE *f = fopen(rc, "w");
			REQUIRE(f);
			fprintf(f, "pcm.t%d%zu { type file; slave.pcm \"null\"; file \"%s\"; format \"raw\" }\n",
				k, i, outp);
			fclose(f);
			/* One process reads ALSA's config once: name each PCM in the main rc. */
			char *line = xasprintf("cat '%s' >> '%s/.asoundrc'", rc, harness_tmpdir());
			CHECK(system(line) == 0);
			free(line);
			free(rc);
			free(outp);
			free(sub);
		}
	}
	setenv("HOME", harness_tmpdir(), 1);
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
			char dev[32];
			snprintf(dev, sizeof dev, "t%d%zu", k, i);
			struct engine_opts o = {.device = dev, .sfmt = k ? PLAY_SFMT_S16 : PLAY_SFMT_AUTO,
						.volume = 100};
			struct engine *e;
			struct crate_err err = {0};
			REQUIRE(engine_new(&o, &e, &err) == 0);
			char *path = xasprintf("%s/%s", corpus, files[i]);
			struct engine_track t = track(path, 1);
			struct evlog log = {0};
			engine_play(e, &t);
			CHECK_MSG(wait_event(e, &log, ENGINE_EV_FINISHED, 1, 20000, NULL, NULL),
				  "%s finished", files[i]);
			struct engine_status st;
			engine_get_status(e, &st);
			engine_free(e);
			char *outp = xasprintf("%s/%d-%zu/out.raw", harness_tmpdir(), k, i);
			size_t len = 0, rlen = 0;
			char *got = tp_read_file(outp, &len);
			/* Status after the end keeps no format; read it from ffprobe-free
			 * knowledge: these files are 44.1/48 kHz; ask the decoder through
			 * ffmpeg with the rate the engine would have used. */
			char *cmd = xasprintf("ffprobe -v quiet -select_streams a:0 -show_entries "
					      "stream=sample_rate,channels -of csv=p=0 '%s'", path);
			FILE *p = popen(cmd, "r");
			int rate = 0, ch = 0;
			if (p) {
				if (fscanf(p, "%d,%d", &rate, &ch) != 2)
					rate = ch = 0;
				pclose(p);
			}
			char *ref = tp_ffmpeg_decode(path, k ? "s16le" : "f32le", ch, rate, &rlen);
			CHECK_MSG(same_bytes(got, len, ref, rlen, files[i]), "%s as %s", files[i],
				  k ? "s16" : "float");
			free(cmd);
			free(got);
			free(ref);
			free(outp);
			free(path);
		}
	}
}

struct chain {
	const char **paths;
	int n, next;
};

static void hand_next(void *ud, struct engine *e, uint32_t id)
{
	struct chain *c = ud;
	(void)id;
	if (c->next < c->n) {
		struct engine_track t = track(c->paths[c->next], (uint32_t)c->next + 1);
		c->next++;
		engine_set_next(e, &t);
	} else {
		engine_set_next(e, NULL);
	}
}

/* Three tracks whose lengths are not multiples of any block size play as
 * exactly the concatenation of their decodings. */
static void check_gapless(const char *ext, const char *enc, const char *reffmt, int tolerance)
{
	const char *dir = harness_tmpdir();
	const char *out = tp_alsa_to_file(dir);
	char *p[3];
	const double secs[3] = {1.2345, 0.777, 2.05};
	for (int i = 0; i < 3; i++) {
		p[i] = xasprintf("%s/part%d.%s", dir, i, ext);
		REQUIRE(tp_make_tone(p[i], 300 + 200 * i, secs[i], 44100, enc));
	}
	struct engine *e = start_engine(false, PLAY_SFMT_S16, 100);
	struct chain c = {.paths = (const char **)p, .n = 3, .next = 1};
	struct evlog log = {0};
	struct engine_track t = track(p[0], 1);
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 3, 20000, hand_next, &c));
	engine_free(e);
	/* finished(1) directly followed by started(2), and so on. */
	int order_ok = 0;
	for (int i = 0; i + 1 < log.n; i++)
		if (log.ev[i].type == ENGINE_EV_FINISHED && log.ev[i + 1].type == ENGINE_EV_STARTED &&
		    log.ev[i + 1].id == log.ev[i].id + 1)
			order_ok++;
	CHECK_INT(order_ok, 2);
	size_t len, total = 0;
	char *got = tp_read_file(out, &len);
	char *ref = xmalloc(1);
	for (int i = 0; i < 3; i++) {
		size_t rl = 0;
		char *r = tp_ffmpeg_decode(p[i], reffmt, 2, 44100, &rl);
		ref = xrealloc(ref, total + rl + 1);
		memcpy(ref + total, r, rl);
		total += rl;
		free(r);
		free(p[i]);
	}
	if (tolerance == 0) {
		CHECK(same_bytes(got, len, ref, total, ext));
	} else {
		CHECK_INT(len, total);
	}
	free(got);
	free(ref);
}

TEST(gapless_flac_is_exact_concatenation)
{
	check_gapless("flac", NULL, "s16le", 0);
}

TEST(gapless_wav_is_exact_concatenation)
{
	check_gapless("wav", NULL, "s16le", 0);
}

/* LAME writes encoder delay/padding in its header; FFmpeg trims them
 * (skip_samples), so MP3 tracks join without the usual gap. */
TEST(gapless_mp3_is_exact_concatenation)
{
	check_gapless("mp3", "-c:a libmp3lame -b:a 192k", "s16le", 0);
}

/* A format change at the boundary reopens the device: the file plugin
 * (truncate false) then starts a second file. */
TEST(format_change_reopens_device_at_boundary)
{
	const char *dir = harness_tmpdir();
	char *rc = xasprintf("%s/.asoundrc", dir);
	char *out = xasprintf("%s/out.raw", dir);
	FILE *f = fopen(rc, "w");
	REQUIRE(f);
	fprintf(f, "pcm.!default { type file; slave.pcm \"null\"; file \"%s\"; format \"raw\"; truncate false }\n", out);
	fclose(f);
	setenv("HOME", dir, 1);
	char *a = xasprintf("%s/a.wav", dir), *b = xasprintf("%s/b.wav", dir);
	REQUIRE(tp_make_tone(a, 440, 0.5, 44100, NULL));
	REQUIRE(tp_make_tone(b, 440, 0.5, 48000, NULL));
	struct engine *e = start_engine(false, PLAY_SFMT_AUTO, 100);
	const char *paths[] = {a, b};
	struct chain c = {.paths = paths, .n = 2, .next = 1};
	struct evlog log = {0};
	struct engine_track t = track(a, 1);
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 2, 10000, hand_next, &c));
	engine_free(e);
	size_t l1, l2;
	char *o2 = xasprintf("%s.0001", out);
	char *g1 = tp_read_file(out, &l1), *g2 = tp_read_file(o2, &l2);
	CHECK_INT(l1, 22050 * 4);
	CHECK_INT(l2, 24000 * 4);
	free(g1);
	free(g2);
	free(o2);
	free(a);
	free(b);
	free(rc);
	free(out);
}

/* A 3 s FLAC tone (its path, owned) played to ALSA's file plugin (*out),
 * and ffmpeg's decoding of it (*ref, owned: 132300 s16 stereo frames). */
static char *three_second_tone(const char **out, char **ref, size_t *rlen)
{
	const char *dir = harness_tmpdir();
	*out = tp_alsa_to_file(dir);
	char *fl = xasprintf("%s/t.flac", dir);
	REQUIRE(tp_make_tone(fl, 500, 3.0, 44100, NULL));
	*ref = tp_ffmpeg_decode(fl, "s16le", 2, 44100, rlen);
	REQUIRE(*rlen == 132300 * 4);
	return fl;
}

TEST(start_offset_and_seek_are_sample_accurate)
{
	const char *out;
	char *ref;
	size_t rlen = 0;
	char *fl = three_second_tone(&out, &ref, &rlen);
	/* Start at 1 s: exactly the tail from frame 44100. */
	struct engine *e = start_engine(false, PLAY_SFMT_AUTO, 100);
	struct evlog log = {0};
	struct engine_track t = track(fl, 1);
	t.start_ms = 1000;
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 1, 10000, NULL, NULL));
	engine_free(e);
	size_t len;
	char *got = tp_read_file(out, &len);
	CHECK(same_bytes(got, len, ref + 44100 * 4, rlen - 44100 * 4, "start at 1s"));
	free(got);

	/* Seek while playing in real time: whatever played first, the output
	 * ends with exactly the audio from 2.5 s on. */
	unlink(out);
	struct engine_opts o = {.pace = true, .volume = 100};
	struct crate_err err = {0};
	REQUIRE(engine_new(&o, &e, &err) == 0);
	log.n = 0;
	t.start_ms = 0;
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_STARTED, 1, 5000, NULL, NULL));
	engine_seek(e, 2500, false);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 1, 10000, NULL, NULL));
	engine_free(e);
	got = tp_read_file(out, &len);
	size_t tail = rlen - 110250 * 4;
	CHECK(len >= tail && len < rlen);
	if (len >= tail)
		CHECK(same_bytes(got + len - tail, tail, ref + 110250 * 4, tail, "after seek"));
	free(got);
	free(ref);
	free(fl);
}

/* Make the STREAMINFO of FLAC file path say it holds frames samples (its
 * total: the low 36 bits of the 8 bytes from offset 18). */
static void flac_claim_samples(const char *path, uint64_t frames)
{
	size_t len;
	char *b = tp_read_file(path, &len);
	REQUIRE(b && len > 26 && memcmp(b, "fLaC", 4) == 0);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | (unsigned char)b[18 + i];
	v = (v & ~((UINT64_C(1) << 36) - 1)) | frames;
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[18 + i] = (char)(v & 0xff);
	FILE *f = fopen(path, "wb");
	REQUIRE(f && fwrite(b, 1, len, f) == len && fclose(f) == 0);
	free(b);
}

/* A header that says the file is shorter than it is (a FLAC STREAMINFO
 * counting 1 s of 3 s): a seek to 2.5 s, inside the audio, was held at
 * the header's length, and the track went on from 1 s. */
TEST(a_seek_past_a_short_header_length_goes_where_asked)
{
	const char *out;
	char *ref;
	size_t rlen = 0;
	char *fl = three_second_tone(&out, &ref, &rlen);
	flac_claim_samples(fl, 44100);
	struct engine_opts o = {.pace = true, .volume = 100};
	struct crate_err err = {0};
	struct engine *e;
	REQUIRE(engine_new(&o, &e, &err) == 0);
	struct evlog log = {0};
	struct engine_track t = track(fl, 1);
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_STARTED, 1, 5000, NULL, NULL));
	engine_seek(e, 2500, false);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 1, 10000, NULL, NULL));
	engine_free(e);
	size_t len;
	char *got = tp_read_file(out, &len);
	size_t tail = rlen - 110250 * 4;
	CHECK_MSG(len >= tail && len < rlen - 44100 * 4, "%zu bytes played, %zu from 2.5 s", len,
		  tail);
	if (len >= tail)
		CHECK(same_bytes(got + len - tail, tail, ref + 110250 * 4, tail, "after seek"));
	free(got);
	free(ref);
	free(fl);
}

TEST(pause_stops_output_and_resume_continues_without_loss)
{
	struct tone_run r;
	tone_run_init(&r, "t.wav", 600, 1.5);
	struct engine *e = start_engine(true, PLAY_SFMT_AUTO, 100);
	struct evlog log = {0};
	struct engine_track t = track(r.path, 3);
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_STARTED, 3, 5000, NULL, NULL));
	usleep(300 * 1000);
	engine_pause(e);
	CHECK(wait_event(e, &log, ENGINE_EV_STATE, 0, 2000, NULL, NULL));
	struct engine_status st;
	engine_get_status(e, &st);
	CHECK_INT(st.state, ENGINE_PAUSED);
	usleep(100 * 1000);
	struct stat s1, s2;
	CHECK(stat(r.out, &s1) == 0);
	usleep(400 * 1000);
	CHECK(stat(r.out, &s2) == 0);
	CHECK_INT(s1.st_size, s2.st_size); /* nothing written while paused */
	CHECK(s1.st_size < 66150 * 4);
	engine_toggle(e);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 3, 10000, NULL, NULL));
	engine_free(e);
	tone_run_collect(&r);
	CHECK(same_bytes(r.got, r.len, r.ref, r.rlen, "paused track"));
	CHECK(count_events(&log, ENGINE_EV_POSITION, 3) >= 3);
	tone_run_free(&r);
}

static long want_half(int16_t x)
{
	return lrint(x * 0.5);
}

TEST(volume_scales_samples)
{
	struct tone_run r;
	tone_run_init(&r, "t.wav", 440, 0.5);
	struct engine *e = start_engine(false, PLAY_SFMT_AUTO, 100);
	engine_set_volume(e, 50);
	struct engine_track t = track(r.path, 1);
	struct evlog log = {0};
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 1, 10000, NULL, NULL));
	struct engine_status st;
	engine_get_status(e, &st);
	CHECK_INT(st.volume, 50);
	engine_free(e);
	tone_run_collect(&r);
	CHECK_INT(sample_mismatches(&r, want_half), 0);
	int nonzero = 0;
	for (size_t i = 0; i + 1 < r.rlen; i += 2)
		nonzero += r.ref[i] != 0 || r.ref[i + 1] != 0;
	CHECK(nonzero > 1000);
	tone_run_free(&r);
}

static long want_double_clipped(int16_t x)
{
	long want = lrint(x * 2.0);
	return want > 32767 ? 32767 : want < -32768 ? -32768 : want;
}

TEST(replaygain_track_gain_with_clipping_prevention)
{
	struct tone_run r;
	tone_run_init(&r, "t.wav", 440, 0.3);
	struct engine_opts o = {.rg_mode = PLAY_RG_TRACK, .volume = 100};
	struct engine *e;
	struct crate_err err = {0};
	REQUIRE(engine_new(&o, &e, &err) == 0);
	struct engine_track t = track(r.path, 1);
	t.rg.track_gain_db = +12.0; /* x3.98, but the peak 0.5 caps it at x2 */
	t.rg.track_peak = 0.5;
	CHECK(play_to_end(e, &t));
	tone_run_collect(&r);
	CHECK_INT(sample_mismatches(&r, want_double_clipped), 0);
	tone_run_free(&r);
}

TEST(replaygain_track_mode_takes_the_album_gain_of_a_track_without_one)
{
	/* As album mode takes the track gain of a track without an album
	 * gain, and as MPD and foobar2000 do: not played at full level. */
	struct tone_run r;
	tone_run_init(&r, "t.wav", 440, 0.3);
	struct engine_opts o = {.rg_mode = PLAY_RG_TRACK, .volume = 100};
	struct engine *e;
	struct crate_err err = {0};
	REQUIRE(engine_new(&o, &e, &err) == 0);
	struct engine_track t = track(r.path, 1);
	t.rg.album_gain_db = 20 * log10(0.5);
	CHECK(play_to_end(e, &t));
	tone_run_collect(&r);
	CHECK_INT(sample_mismatches(&r, want_half), 0);
	tone_run_free(&r);
}

TEST(deleted_next_track_is_reported_by_name)
{
	const char *dir = harness_tmpdir();
	tp_alsa_to_file(dir);
	char *a = xasprintf("%s/a.wav", dir), *b = xasprintf("%s/gone.wav", dir);
	REQUIRE(tp_make_tone(a, 440, 0.4, 44100, NULL));
	REQUIRE(tp_make_tone(b, 440, 0.4, 44100, NULL));
	unlink(b);
	struct engine *e = start_engine(false, PLAY_SFMT_AUTO, 100);
	const char *paths[] = {a, b};
	struct chain c = {.paths = paths, .n = 2, .next = 1};
	struct evlog log = {0};
	struct engine_track t = track(a, 1);
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_ERROR, 2, 10000, hand_next, &c));
	CHECK_INT(count_events(&log, ENGINE_EV_FINISHED, 1), 1);
	struct engine_event *last = &log.ev[log.n - 1];
	CHECK(strstr(last->msg, "gone.wav") != NULL);
	CHECK(!last->device);
	/* Playing a missing file directly: an error, the engine stays usable. */
	struct engine_track g = track(b, 9);
	engine_play(e, &g);
	CHECK(wait_event(e, &log, ENGINE_EV_ERROR, 9, 5000, NULL, NULL));
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 1, 5000, NULL, NULL));
	engine_free(e);
	free(a);
	free(b);
}

/* A FLAC file cut in half plays the part FFmpeg can decode, sample for
 * sample, and then ends (finished, or an error for the cut frame). */
TEST(truncated_file_plays_what_it_has)
{
	struct tone_run r;
	tone_run_init(&r, "t.flac", 440, 2.0);
	/* Cut by its own size: the 2 s tone is ~33 KB, so the fixed 60,000
	 * bytes this test once truncated to lengthened it instead. */
	struct stat st;
	REQUIRE(stat(r.path, &st) == 0 && st.st_size > 8192);
	REQUIRE(truncate(r.path, st.st_size / 2) == 0);
	struct engine *e = start_engine(false, PLAY_SFMT_AUTO, 100);
	struct evlog log = {0};
	struct engine_track t = track(r.path, 4);
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_STATE, 0, 10000, NULL, NULL));
	bool ended = wait_event(e, &log, ENGINE_EV_FINISHED, 4, 10000, NULL, NULL) ||
		     count_events(&log, ENGINE_EV_ERROR, 4) > 0;
	CHECK(ended);
	engine_free(e);
	tone_run_collect(&r);
	/* Half the file holds roughly half the tone (44100 frames of 4 bytes
	 * a second): more than a quarter second, less than all of it. */
	REQUIRE(r.rlen > 44100 * 4 / 4 && r.rlen < 88200 * 4);
	CHECK(same_bytes(r.got, r.len, r.ref, r.rlen, "truncated flac"));
	tone_run_free(&r);
}

TEST(missing_device_is_a_clear_error)
{
	struct tone_run r;
	tone_run_init(&r, "t.wav", 440, 0.3);
	const char *devs[] = {"broken", "nosuchpcm"};
	for (int i = 0; i < 2; i++) {
		struct engine_opts o = {.device = devs[i], .volume = 100};
		struct engine *e;
		struct crate_err err = {0};
		REQUIRE(engine_new(&o, &e, &err) == 0);
		struct evlog log = {0};
		struct engine_track t = track(r.path, 1);
		engine_play(e, &t);
		CHECK(wait_event(e, &log, ENGINE_EV_ERROR, 0, 5000, NULL, NULL));
		struct engine_event *ev = &log.ev[log.n - 1];
		CHECK(ev->device);
		CHECK_MSG(strstr(ev->msg, devs[i]) != NULL, "message names the device: %s", ev->msg);
		struct engine_status st;
		engine_get_status(e, &st);
		CHECK_INT(st.state, ENGINE_STOPPED);
		engine_free(e);
	}
	tone_run_free(&r);
}

/* A process that reads the FIFO into out: at most max bytes (then it
 * leaves, as a pipe's reader that goes away), or to its end. */
static pid_t fifo_reader(const char *fifo, const char *out, size_t max)
{
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid)
		return pid;
	int in = open(fifo, O_RDONLY), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char buf[4096];
	size_t got = 0;
	ssize_t n;
	while (in >= 0 && fd >= 0 && got < max &&
	       (n = read(in, buf, max - got < sizeof buf ? max - got : sizeof buf)) > 0) {
		if (write(fd, buf, (size_t)n) != n)
			break;
		got += (size_t)n;
	}
	_exit(0);
}

/* The device failed mid-track (the FIFO's reader went away, as a USB DAC
 * unplugged): the track stopped, and play started it again from its
 * start. It waits paused where it was heard, and play goes on from there
 * once the device is back. */
TEST(a_device_lost_mid_track_waits_paused_where_it_was)
{
	struct tone_run r;
	tone_run_init(&r, "t.wav", 500, 3);
	const char *dir = harness_tmpdir();
	char *fifo = xasprintf("%s/sink.fifo", dir), *rc = xasprintf("%s/.asoundrc", dir);
	char *first = xasprintf("%s/first.raw", dir), *rest = xasprintf("%s/rest.raw", dir);
	REQUIRE(mkfifo(fifo, 0600) == 0);
	FILE *f = fopen(rc, "w");
	REQUIRE(f);
	fprintf(f, "pcm.!default { type file; slave.pcm \"null\"; file \"%s\"; format \"raw\" }\n",
		fifo);
	fclose(f);
	pid_t reader = fifo_reader(fifo, first, 44100 * 4 / 2); /* half a second */
	struct engine *e = start_engine(false, PLAY_SFMT_AUTO, 100);
	struct evlog log = {0};
	struct engine_track t = track(r.path, 7);
	engine_play(e, &t);
	CHECK(wait_event(e, &log, ENGINE_EV_ERROR, 0, 5000, NULL, NULL));
	CHECK(log.ev[log.n - 1].device);
	waitpid(reader, NULL, 0);
	struct engine_status st;
	for (int i = 0; i < 40; i++) { /* its state follows the error */
		engine_get_status(e, &st);
		if (st.state != ENGINE_PLAYING)
			break;
		usleep(25 * 1000);
	}
	CHECK_MSG(st.state == ENGINE_PAUSED, "%s after the device failed",
		  engine_state_name(st.state));
	CHECK_MSG(st.id == 7 && st.pos_ms > 0, "track %u at %lld ms", st.id, (long long)st.pos_ms);
	reader = fifo_reader(fifo, rest, SIZE_MAX);
	engine_toggle(e);
	CHECK(wait_event(e, &log, ENGINE_EV_FINISHED, 7, 10000, NULL, NULL));
	engine_free(e);
	waitpid(reader, NULL, 0);
	tone_run_collect(&r);
	size_t len;
	char *got = tp_read_file(rest, &len);
	REQUIRE(r.ref && got);
	/* The rest of the track, to its end, from no later than where it was
	 * heard (what the pipe held was lost with its reader). */
	CHECK_MSG(len > r.rlen / 2 && len < r.rlen, "%zu bytes of %zu after the device came back",
		  len, r.rlen);
	CHECK(len <= r.rlen && memcmp(got, r.ref + r.rlen - len, len) == 0);
	free(got);
	free(fifo);
	free(rc);
	free(first);
	free(rest);
	tone_run_free(&r);
}

/* The DSP hook sees every block in the device format, per track. */
struct inv_dsp {
	struct play_dsp base;
	int configured;
	size_t frames;
};

static int inv_configure(void *ud, const struct play_format *fmt)
{
	struct inv_dsp *d = ud;
	d->configured += fmt->sfmt == PLAY_SFMT_S16;
	return 0;
}

static void inv_process(void *ud, void *frames, size_t n, const struct play_format *fmt)
{
	struct inv_dsp *d = ud;
	int16_t *s = frames;
	for (size_t i = 0; i < n * (size_t)fmt->channels; i++)
		s[i] = (int16_t)(s[i] == -32768 ? 32767 : -s[i]);
	d->frames += n;
}

static long want_inverted(int16_t x)
{
	return x == -32768 ? 32767 : -x;
}

static int dsp_destroyed;

static void inv_destroy(struct play_dsp *p)
{
	struct inv_dsp *d = (struct inv_dsp *)p;
	dsp_destroyed += d->configured == 1 && d->frames == 22050;
	free(d);
}

TEST(dsp_stage_applies_per_track)
{
	struct tone_run r;
	tone_run_init(&r, "t.wav", 440, 0.5);
	struct engine *e = start_engine(false, PLAY_SFMT_S16, 100);
	struct inv_dsp *d = xcalloc(1, sizeof *d);
	d->base = (struct play_dsp){.ud = d, .configure = inv_configure, .process = inv_process,
				    .destroy = inv_destroy};
	struct engine_track t = track(r.path, 1);
	t.dsp = &d->base;
	CHECK(play_to_end(e, &t));
	CHECK_INT(dsp_destroyed, 1);
	tone_run_collect(&r);
	CHECK_INT(sample_mismatches(&r, want_inverted), 0);
	tone_run_free(&r);
}
