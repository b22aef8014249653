/* The engine thread: command queue in, event queue + pipe out, and the
 * sample path decoder -> DSP stage -> gain -> ALSA in between. */
#include "play/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "play/decoder.h"
#include "play/output_alsa.h"

#define CHUNK_FRAMES 2048
#define POSITION_EVERY_S 0.2
#define MAX_EVENTS 4096
/* At a track's end with NEED_NEXT unanswered, wait this long for the app
 * (it normally replies within a main-loop turn; the wait only matters for
 * devices that consume faster than real time). */
#define NEXT_REPLY_WAIT_MS 1000

enum cmd_type {
	CMD_PLAY, CMD_NEXT, CMD_PAUSE, CMD_RESUME, CMD_TOGGLE, CMD_STOP, CMD_SEEK,
	CMD_VOLUME, CMD_RG, CMD_QUIT,
};

/* A track inside the engine (owned by the engine thread once queued). */
struct etrack {
	char *path;
	uint32_t id;
	struct play_rg rg;
	int64_t start_ms;
	bool ranged;            /* a cue sheet's track: range_start..range_end of path */
	int64_t range_start, range_end;
	struct play_dsp *dsp;
	uint64_t seq;
	bool start_paused;
	bool open_late;         /* a stream following: opened when it takes over */
	int64_t played_frames;  /* frames of this track written to the device */
	bool dsp_on;
	struct decoder *dec;
	struct crate_err err;   /* why dec is NULL */
	struct play_format want; /* the device format this track asks for */
};

struct cmd {
	enum cmd_type type;
	struct etrack *track;
	int64_t ms;
	bool relative;
	int value;
	double preamp;
	struct cmd *next;
};

struct engine {
	pthread_t thread;
	pthread_mutex_t lock;   /* guards cmds, events, status */
	pthread_cond_t cond;
	struct cmd *cmds, **cmds_tail;
	struct engine_event *events;
	size_t nevents, cap_events, head_events;
	int pipe_rd, pipe_wr;
	struct engine_status status;
	atomic_int stop_waiting; /* stop/quit asked: network waits end at once */

	/* Engine thread only. */
	struct engine_opts opts;
	char *device;
	enum engine_state state;
	struct etrack *cur, *next;
	uint64_t last_seq;      /* seq of the last track taken (STATE events carry it) */
	bool need_next_sent;
	bool next_answered;     /* the app replied to NEED_NEXT (set_next, maybe NULL) */
	bool eof_waited;        /* already waited at this track's end for that reply */
	struct alsa_out *out;
	struct play_format dev_want, dev_got;
	int volume;
	double gain;            /* volume x ReplayGain of cur */
	double last_pos_t;
	void *buf;
	size_t buf_bytes;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *engine_state_name(enum engine_state s)
{
	return s == ENGINE_PLAYING ? "playing" : s == ENGINE_PAUSED ? "paused" : "stopped";
}

/* ---- events (engine thread -> main thread) ---- */

static void push_event(struct engine *e, const struct engine_event *ev)
{
	pthread_mutex_lock(&e->lock);
	size_t last = e->head_events + e->nevents - 1;
	if (ev->type == ENGINE_EV_POSITION && e->nevents &&
	    e->events[last % e->cap_events].type == ENGINE_EV_POSITION &&
	    !e->events[last % e->cap_events].seek) {
		/* Nobody read the last position yet: replace it, keep the queue
		 * short (but not a seek's: it says the seek was made). */
		e->events[last % e->cap_events] = *ev;
	} else if (e->nevents < MAX_EVENTS) {
		if (e->nevents == e->cap_events) {
			size_t cap = e->cap_events ? e->cap_events * 2 : 64;
			struct engine_event *n = xcalloc(cap, sizeof *n);
			for (size_t i = 0; i < e->nevents; i++)
				n[i] = e->events[(e->head_events + i) % e->cap_events];
			free(e->events);
			e->events = n;
			e->cap_events = cap;
			e->head_events = 0;
		}
		e->events[(e->head_events + e->nevents) % e->cap_events] = *ev;
		e->nevents++;
	}
	char c = 1;
	ssize_t w = write(e->pipe_wr, &c, 1); /* EAGAIN: already readable, fine */
	(void)w;
	pthread_mutex_unlock(&e->lock);
}

static void emit(struct engine *e, enum engine_event_type type, uint32_t id, uint64_t seq)
{
	struct engine_event ev = {.type = type, .id = id, .seq = seq, .state = e->state,
				  .dur_ms = -1};
	if (e->cur && e->cur->dec) {
		ev.dur_ms = decoder_duration_ms(e->cur->dec);
	}
	push_event(e, &ev);
}

static void emit_title(struct engine *e, enum engine_event_type type, uint32_t id, uint64_t seq,
		       const char *title)
{
	struct engine_event ev = {.type = type, .id = id, .seq = seq, .state = e->state,
				  .dur_ms = -1};
	snprintf(ev.msg, sizeof ev.msg, "%s", title);
	push_event(e, &ev);
}

/* A stream's station name came with its headers, before its first sound:
 * STARTED carries it, so that whoever is told of the track (a hook, crate
 * play's line) can name it by its station from the start. */
static int64_t cur_position(struct engine *e);

static void emit_started(struct engine *e, struct etrack *t)
{
	struct engine_event ev = {.type = ENGINE_EV_STARTED, .id = t->id, .seq = t->seq,
				  .state = e->state, .pos_ms = cur_position(e),
				  .dur_ms = decoder_duration_ms(t->dec)};
	decoder_station_name(t->dec, ev.msg, sizeof ev.msg);
	push_event(e, &ev);
}

static void emit_error(struct engine *e, uint32_t id, uint64_t seq, bool device,
		       const char *msg)
{
	struct engine_event ev = {.type = ENGINE_EV_ERROR, .id = id, .seq = seq, .state = e->state,
				  .dur_ms = -1, .device = device};
	snprintf(ev.msg, sizeof ev.msg, "%s", msg);
	push_event(e, &ev);
}

/* Where the listener is in cur: decoded so far minus what the device still holds. */
static int64_t cur_position(struct engine *e)
{
	if (!e->cur || !e->cur->dec)
		return 0;
	int64_t pos = decoder_position_ms(e->cur->dec);
	if (e->out && e->dev_got.rate > 0)
		pos -= alsa_out_delay(e->out) * 1000 / e->dev_got.rate;
	return pos < 0 ? 0 : pos;
}

static void update_status(struct engine *e)
{
	pthread_mutex_lock(&e->lock);
	e->status.state = e->state;
	e->status.id = e->cur ? e->cur->id : 0;
	e->status.seq = e->cur ? e->cur->seq : 0;
	e->status.pos_ms = cur_position(e);
	e->status.dur_ms = e->cur && e->cur->dec ? decoder_duration_ms(e->cur->dec) : -1;
	e->status.cannot_seek = e->cur && e->cur->dec && !decoder_can_seek(e->cur->dec);
	e->status.volume = e->volume;
	e->status.format = e->out ? e->dev_got : (struct play_format){0};
	pthread_mutex_unlock(&e->lock);
}

/* Audio of t heard so far: frames written minus what the device holds. */
static int64_t played_ms(struct engine *e, const struct etrack *t)
{
	if (e->dev_got.rate <= 0)
		return 0;
	int64_t f = t->played_frames;
	if (t == e->cur && e->out)
		f -= alsa_out_delay(e->out);
	return f > 0 ? f * 1000 / e->dev_got.rate : 0;
}

/* seeked: the position a seek just went to (ENGINE_EV_POSITION's seek). */
static void emit_position_ex(struct engine *e, bool seeked)
{
	if (!e->cur)
		return;
	struct engine_event ev = {.type = ENGINE_EV_POSITION, .id = e->cur->id,
				  .seq = e->cur->seq, .state = e->state,
				  .pos_ms = cur_position(e),
				  .dur_ms = decoder_duration_ms(e->cur->dec),
				  .played_ms = played_ms(e, e->cur), .seek = seeked};
	push_event(e, &ev);
	e->last_pos_t = now_s();
	update_status(e);
}

static void emit_position(struct engine *e)
{
	emit_position_ex(e, false);
}

static void set_state(struct engine *e, enum engine_state s)
{
	if (e->state == s)
		return;
	e->state = s;
	update_status(e);
	emit(e, ENGINE_EV_STATE, e->cur ? e->cur->id : 0, e->last_seq);
}

/* ---- tracks and device ---- */

static void etrack_free(struct etrack *t)
{
	if (!t)
		return;
	decoder_free(t->dec);
	if (t->dsp && t->dsp->destroy)
		t->dsp->destroy(t->dsp);
	free(t->path);
	free(t);
}

static struct etrack *etrack_new(const struct engine_track *src)
{
	struct etrack *t = xcalloc(1, sizeof *t);
	t->path = xstrdup(src->path ? src->path : "");
	t->id = src->id;
	t->rg = src->rg;
	t->start_ms = src->start_ms;
	t->ranged = src->ranged;
	t->range_start = src->range_start;
	t->range_end = src->range_end;
	t->dsp = src->dsp;
	t->seq = src->seq;
	t->start_paused = src->paused;
	return t;
}

/* A file played by its path, which the library does not know, has no
 * ReplayGain from it: its own tags are read, as the scan would have read
 * them. A cue sheet's track is left alone (the file's track gain is the
 * whole file's). */
static void take_file_replaygain(struct etrack *t)
{
	const struct play_rg *rg = &t->rg;
	bool known = !isnan(rg->track_gain_db) || !isnan(rg->album_gain_db) ||
		     !isnan(rg->track_peak) || !isnan(rg->album_peak);
	if (!t->id && !t->ranged && !known)
		t->rg = decoder_replaygain(t->dec);
}

/* Open the decoder (engine thread: opening can take a while). */
static void etrack_open(struct engine *e, struct etrack *t)
{
	if (decoder_open_stoppable(t->path, &e->stop_waiting, &t->dec, &t->err) != 0) {
		t->dec = NULL;
		return;
	}
	take_file_replaygain(t);
	decoder_native_format(t->dec, &t->want);
	if (e->opts.sfmt != PLAY_SFMT_AUTO)
		t->want.sfmt = e->opts.sfmt;
	if ((t->ranged &&
	     decoder_set_range(t->dec, t->range_start, t->range_end, &t->err) != 0) ||
	    (t->start_ms > 0 && decoder_seek(t->dec, t->start_ms, &t->err) != 0)) {
		decoder_free(t->dec);
		t->dec = NULL;
	}
}

static void close_device(struct engine *e, bool drop)
{
	alsa_out_close(e->out, drop);
	e->out = NULL;
	memset(&e->dev_got, 0, sizeof e->dev_got);
	memset(&e->dev_want, 0, sizeof e->dev_want);
}

/* Make the device play t's format: keep it when t asks for what it was
 * opened with, else reopen (after letting the old audio play out). */
static int prepare_device(struct engine *e, struct etrack *t, struct crate_err *err)
{
	if (!e->out || !play_format_equal(&e->dev_want, &t->want)) {
		close_device(e, false);
		struct alsa_opts ao = {.device = e->device, .buffer_ms = e->opts.buffer_ms,
				       .pace = e->opts.pace};
		if (alsa_out_open(&ao, &t->want, &e->dev_got, &e->out, err) != 0) {
			e->out = NULL;
			return -1;
		}
		e->dev_want = t->want;
		size_t need = CHUNK_FRAMES * play_frame_bytes(&e->dev_got);
		if (need > e->buf_bytes) {
			e->buf = xrealloc(e->buf, need);
			e->buf_bytes = need;
		}
	}
	if (decoder_set_output(t->dec, &e->dev_got, err) != 0)
		return -1;
	t->dsp_on = t->dsp && t->dsp->process &&
		    (!t->dsp->configure || t->dsp->configure(t->dsp->ud, &e->dev_got) == 0);
	return 0;
}

static void recompute_gain(struct engine *e)
{
	double rg = e->cur ? play_rg_factor(&e->cur->rg, e->opts.rg_mode, e->opts.rg_preamp_db) : 1;
	e->gain = rg * play_volume_factor(e->volume);
}

/* Make t the current track (it has an open decoder). Returns 0, or -1
 * after reporting a device error (playback is then stopped). */
static int start_track(struct engine *e, struct etrack *t)
{
	struct crate_err err = {0};
	etrack_free(e->cur);
	e->cur = t;
	e->last_seq = t->seq;
	if (prepare_device(e, t, &err) != 0) {
		e->cur = NULL;
		etrack_free(t);
		close_device(e, true);
		emit_error(e, 0, e->last_seq, true, err.msg);
		set_state(e, ENGINE_STOPPED);
		return -1;
	}
	recompute_gain(e);
	e->need_next_sent = false;
	e->next_answered = false;
	e->eof_waited = false;
	/* A track that waits paused pauses the device too, so that play
	 * starts it afresh there (a paced device's clock from then: it ran
	 * from the load, and the track was written at once to catch up). */
	if (t->start_paused && e->out)
		alsa_out_pause(e->out, true);
	set_state(e, t->start_paused ? ENGINE_PAUSED : ENGINE_PLAYING);
	update_status(e);
	emit_started(e, t);
	if (!e->next) {
		emit(e, ENGINE_EV_NEED_NEXT, t->id, t->seq);
		e->need_next_sent = true;
	}
	emit_position(e);
	return 0;
}

static void stop_all(struct engine *e, bool drop)
{
	etrack_free(e->cur);
	etrack_free(e->next);
	e->cur = e->next = NULL;
	close_device(e, drop);
	set_state(e, ENGINE_STOPPED);
	update_status(e);
}

/* Open n (the follower taking over) when its opening was left for now. */
static void open_if_late(struct engine *e, struct etrack *n)
{
	if (n && n->open_late) {
		n->open_late = false;
		etrack_open(e, n);
	}
}

/* cur ended: hand over to next without a gap, or stop. */
static void track_boundary(struct engine *e)
{
	struct engine_event fin = {.type = ENGINE_EV_FINISHED, .id = e->cur->id,
				   .seq = e->cur->seq, .state = e->state,
				   .pos_ms = decoder_position_ms(e->cur->dec),
				   .dur_ms = decoder_duration_ms(e->cur->dec),
				   .end_ms = decoder_end_ms(e->cur->dec)};
	if (e->cur->played_frames == 0) {
		/* It ended before a sample came out: say so (it is not a play). */
		char msg[600];
		snprintf(msg, sizeof msg, "%s: no audio could be decoded", e->cur->path);
		emit_error(e, e->cur->id, e->cur->seq, false, msg);
	}
	/* Everything written is heard: the device plays it out. */
	fin.played_ms = e->dev_got.rate > 0 ? e->cur->played_frames * 1000 / e->dev_got.rate : 0;
	struct etrack *n = e->next;
	e->next = NULL;
	open_if_late(e, n);
	if (n && n->dec) {
		push_event(e, &fin);
		start_track(e, n);
		return;
	}
	if (e->out)
		alsa_out_drain(e->out, NULL);
	push_event(e, &fin);
	/* The error before the state change, so the app can go on to the
	 * entry after the failed one before it sees "stopped". */
	if (n) {
		e->last_seq = n->seq;
		emit_error(e, n->id, n->seq, false, n->err.msg);
		etrack_free(n);
	}
	stop_all(e, false);
}

/* Block until a command is queued or ms pass. */
static void wait_for_command(struct engine *e, int ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&e->lock);
	while (!e->cmds)
		if (pthread_cond_timedwait(&e->cond, &e->lock, &ts) != 0)
			break;
	pthread_mutex_unlock(&e->lock);
}

/* The device failed under cur (unplugged, its pipe's reader gone): cur
 * waits paused where the listener was, the device closed, so that play
 * goes on from there once the device is back; a track that cannot seek
 * (a live station) stops as before. */
static void device_lost(struct engine *e, const char *msg)
{
	struct etrack *t = e->cur;
	int64_t heard = cur_position(e);
	struct crate_err err = {0};
	if (!decoder_can_seek(t->dec)) {
		emit_error(e, 0, t->seq, true, msg);
		stop_all(e, true);
		return;
	}
	/* What the device still held is lost, never heard. */
	t->played_frames -= alsa_out_delay(e->out);
	if (t->played_frames < 0)
		t->played_frames = 0;
	close_device(e, true);
	if (decoder_seek(t->dec, heard, &err) != 0) {
		emit_error(e, 0, t->seq, true, msg);
		stop_all(e, true);
		return;
	}
	emit_error(e, 0, t->seq, true, msg);
	set_state(e, ENGINE_PAUSED);
	emit_position(e);
}

/* Open the device again for cur (closed when it failed); false after
 * saying why it cannot be. */
static bool reopen_device(struct engine *e)
{
	struct crate_err err = {0};
	if (prepare_device(e, e->cur, &err) == 0)
		return true;
	close_device(e, true);
	emit_error(e, 0, e->cur->seq, true, err.msg);
	return false;
}

/* One block through the sample path. */
static void play_chunk(struct engine *e)
{
	struct etrack *t = e->cur;
	struct crate_err err = {0};
	long n = decoder_read(t->dec, e->buf, CHUNK_FRAMES, &err);
	if (n < 0) {
		/* The rest of this file cannot be decoded: report it, go on. */
		emit_error(e, t->id, t->seq, false, err.msg);
		struct etrack *nx = e->next;
		e->next = NULL;
		open_if_late(e, nx);
		if (nx && nx->dec) {
			start_track(e, nx);
		} else {
			if (nx) {
				e->last_seq = nx->seq;
				emit_error(e, nx->id, nx->seq, false, nx->err.msg);
				etrack_free(nx);
			}
			stop_all(e, false);
		}
		return;
	}
	if (n == 0) {
		if (!e->next && e->need_next_sent && !e->next_answered && !e->eof_waited) {
			wait_for_command(e, NEXT_REPLY_WAIT_MS);
			e->eof_waited = true;
			return;
		}
		track_boundary(e);
		return;
	}
	char title[sizeof ((struct engine_event *)0)->msg];
	if (decoder_station_name(t->dec, title, sizeof title))
		emit_title(e, ENGINE_EV_STATION, t->id, t->seq, title);
	if (decoder_stream_title(t->dec, title, sizeof title))
		emit_title(e, ENGINE_EV_TITLE, t->id, t->seq, title);
	if (t->dsp_on)
		t->dsp->process(t->dsp->ud, e->buf, (size_t)n, &e->dev_got);
	play_gain_apply(e->buf, (size_t)n, &e->dev_got, e->gain);
	if (alsa_out_write(e->out, e->buf, (size_t)n, &err) != 0) {
		device_lost(e, err.msg);
		return;
	}
	t->played_frames += n;
	if (now_s() - e->last_pos_t >= POSITION_EVERY_S)
		emit_position(e);
	/* A paced device (null/file) is a buffer ahead: wait, but wake for a command. */
	int ms = alsa_out_pace_wait_ms(e->out);
	if (ms > 0)
		wait_for_command(e, ms);
}

/* ---- commands ---- */

static void do_play(struct engine *e, struct etrack *t)
{
	etrack_free(e->cur);
	e->cur = NULL;
	/* The next track followed the old one; the caller sets the new one's. */
	etrack_free(e->next);
	e->next = NULL;
	e->last_seq = t->seq;
	if (e->out)
		alsa_out_drop(e->out);
	etrack_open(e, t);
	if (!t->dec) {
		emit_error(e, t->id, t->seq, false, t->err.msg);
		etrack_free(t);
		stop_all(e, true);
		return;
	}
	start_track(e, t);
}

static void do_seek(struct engine *e, int64_t ms, bool relative)
{
	if (!e->cur)
		return;
	int64_t target = relative ? cur_position(e) + ms : ms;
	int64_t dur = decoder_duration_ms(e->cur->dec);
	if (target < 0)
		target = 0;
	struct crate_err err = {0};
	/* The header's length is not believed (a FLAC header saying 1.6 s of
	 * a 4.5 s file held a seek to 3 s at 1.6 s): past it the seek is
	 * tried, and only a demuxer that refuses goes to that length, which
	 * ends the track as a seek past the end does. */
	int r = decoder_seek(e->cur->dec, target, &err);
	if (r != 0 && dur > 0 && target > dur) {
		struct crate_err at_end = {0};
		r = decoder_seek(e->cur->dec, dur, &at_end);
	}
	if (r != 0) {
		/* Not the track's failure: a station or a server that refuses
		 * ranges cannot seek, and it plays on from where it was. */
		struct engine_event ev = {.type = ENGINE_EV_ERROR, .id = e->cur->id,
					  .seq = e->cur->seq, .state = e->state, .dur_ms = -1,
					  .seek = true};
		snprintf(ev.msg, sizeof ev.msg, "%s", err.msg);
		push_event(e, &ev);
		return;
	}
	if (e->out) {
		/* What the device still held is thrown away, never heard. */
		e->cur->played_frames -= alsa_out_delay(e->out);
		if (e->cur->played_frames < 0)
			e->cur->played_frames = 0;
		alsa_out_drop(e->out);
		if (e->state == ENGINE_PAUSED)
			alsa_out_pause(e->out, true);
	}
	emit_position_ex(e, true);
}

static void do_pause(struct engine *e, bool pause)
{
	if (!e->cur)
		return;
	if (pause && e->state == ENGINE_PLAYING) {
		if (e->out)
			alsa_out_pause(e->out, true);
		set_state(e, ENGINE_PAUSED);
		emit_position(e);
	} else if (!pause && e->state == ENGINE_PAUSED) {
		if (!e->out && !reopen_device(e))
			return; /* still paused, the device still gone */
		alsa_out_pause(e->out, false);
		set_state(e, ENGINE_PLAYING);
	}
}

/* A later play in the same batch replaces c's track before a sample of it
 * would be heard: skip opening it (a slow device would make each press wait). */
static bool superseded(const struct cmd *c)
{
	for (const struct cmd *l = c->next; l; l = l->next)
		if (l->type == CMD_PLAY || l->type == CMD_STOP)
			return true;
	return false;
}

/* Returns false on CMD_QUIT. */
static bool run_cmd(struct engine *e, struct cmd *c)
{
	switch (c->type) {
	case CMD_PLAY:
		if (superseded(c)) {
			/* Taken and dropped: a stop after it names this track. */
			e->last_seq = c->track->seq;
			break;
		}
		atomic_store(&e->stop_waiting, 0); /* what it broke off is done */
		do_play(e, c->track);
		c->track = NULL;
		break;
	case CMD_NEXT:
		if (superseded(c))
			break;
		etrack_free(e->next);
		e->next = c->track;
		e->next_answered = true;
		c->track = NULL;
		/* A stream is connected to when it takes over (it has no
		 * gapless hand-over): connecting now would hold the playing
		 * track, this thread busy, for as long as the server takes. */
		if (e->next && decoder_is_stream_url(e->next->path))
			e->next->open_late = true;
		else if (e->next)
			etrack_open(e, e->next);
		break;
	case CMD_PAUSE: do_pause(e, true); break;
	case CMD_RESUME: do_pause(e, false); break;
	case CMD_TOGGLE: do_pause(e, e->state == ENGINE_PLAYING); break;
	case CMD_STOP:
		/* Answered even when nothing played (a station still connecting,
		 * a play dropped unopened): whoever asked waits for "stopped". */
		if (e->state == ENGINE_STOPPED)
			emit(e, ENGINE_EV_STATE, 0, e->last_seq);
		stop_all(e, true);
		atomic_store(&e->stop_waiting, 0);
		break;
	case CMD_SEEK: do_seek(e, c->ms, c->relative); break;
	case CMD_VOLUME:
		e->volume = c->value < 0 ? 0 : c->value > 100 ? 100 : c->value;
		recompute_gain(e);
		update_status(e);
		break;
	case CMD_RG:
		e->opts.rg_mode = (enum play_rg_mode)c->value;
		e->opts.rg_preamp_db = c->preamp;
		recompute_gain(e);
		break;
	case CMD_QUIT:
		return false;
	}
	return true;
}

static void *engine_main(void *arg)
{
	struct engine *e = arg;
	/* A device that is a pipe (ALSA's file or pipe plugin into a FIFO, as
	 * a snapcast server reads it) whose reader went away must fail the
	 * write (EPIPE), not kill the player: SIGPIPE goes to the thread that
	 * wrote, and blocked here it only stays pending. */
	sigset_t pipe_sig;
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
	bool running = true;
	while (running) {
		pthread_mutex_lock(&e->lock);
		while (!e->cmds && !(e->state == ENGINE_PLAYING && e->cur))
			pthread_cond_wait(&e->cond, &e->lock);
		struct cmd *list = e->cmds;
		e->cmds = NULL;
		e->cmds_tail = &e->cmds;
		pthread_mutex_unlock(&e->lock);
		while (list) {
			struct cmd *c = list;
			list = c->next;
			if (running)
				running = run_cmd(e, c);
			etrack_free(c->track);
			free(c);
		}
		if (running && e->state == ENGINE_PLAYING && e->cur)
			play_chunk(e);
	}
	stop_all(e, true);
	return NULL;
}

static void send_cmd(struct engine *e, struct cmd *c)
{
	/* A stream read may be waiting on the network: stop and quit end it,
	 * and so does another track to play (next pressed while a station
	 * connects waited for it to give up). */
	if (c->type == CMD_STOP || c->type == CMD_QUIT || c->type == CMD_PLAY)
		atomic_store(&e->stop_waiting, 1);
	pthread_mutex_lock(&e->lock);
	*e->cmds_tail = c;
	e->cmds_tail = &c->next;
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

static struct cmd *cmd_new(enum cmd_type type)
{
	struct cmd *c = xcalloc(1, sizeof *c);
	c->type = type;
	return c;
}

/* ---- public API ---- */

int engine_new(const struct engine_opts *opts, struct engine **out, struct crate_err *err)
{
	struct engine *e = xcalloc(1, sizeof *e);
	e->opts = *opts;
	e->device = xstrdup(opts->device && *opts->device ? opts->device : "default");
	e->opts.device = e->device;
	e->volume = opts->volume < 0 ? 0 : opts->volume > 100 ? 100 : opts->volume;
	e->status.volume = e->volume;
	e->gain = 1.0;
	e->cmds_tail = &e->cmds;
	int fds[2];
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
		free(e->device);
		free(e);
		return crate_err_set(err, CRATE_ERR_IO, "engine: cannot create pipe: %s",
				     strerror(errno));
	}
	e->pipe_rd = fds[0];
	e->pipe_wr = fds[1];
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	int r = pthread_create(&e->thread, NULL, engine_main, e);
	if (r != 0) {
		close(fds[0]);
		close(fds[1]);
		pthread_mutex_destroy(&e->lock);
		pthread_cond_destroy(&e->cond);
		free(e->device);
		free(e);
		return crate_err_set(err, CRATE_ERR_IO, "engine: cannot start thread: %s",
				     strerror(r));
	}
	*out = e;
	return 0;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	send_cmd(e, cmd_new(CMD_QUIT));
	pthread_join(e->thread, NULL);
	for (struct cmd *c = e->cmds, *n; c; c = n) {
		n = c->next;
		etrack_free(c->track);
		free(c);
	}
	close(e->pipe_rd);
	close(e->pipe_wr);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->cond);
	free(e->events);
	free(e->buf);
	free(e->device);
	free(e);
}

void engine_play(struct engine *e, const struct engine_track *t)
{
	struct cmd *c = cmd_new(CMD_PLAY);
	c->track = etrack_new(t);
	send_cmd(e, c);
}

void engine_set_next(struct engine *e, const struct engine_track *t)
{
	struct cmd *c = cmd_new(CMD_NEXT);
	c->track = t ? etrack_new(t) : NULL;
	send_cmd(e, c);
}

void engine_pause(struct engine *e) { send_cmd(e, cmd_new(CMD_PAUSE)); }
void engine_resume(struct engine *e) { send_cmd(e, cmd_new(CMD_RESUME)); }
void engine_toggle(struct engine *e) { send_cmd(e, cmd_new(CMD_TOGGLE)); }
void engine_stop(struct engine *e) { send_cmd(e, cmd_new(CMD_STOP)); }

void engine_seek(struct engine *e, int64_t ms, bool relative)
{
	struct cmd *c = cmd_new(CMD_SEEK);
	c->ms = ms;
	c->relative = relative;
	send_cmd(e, c);
}

void engine_set_volume(struct engine *e, int percent)
{
	struct cmd *c = cmd_new(CMD_VOLUME);
	c->value = percent;
	/* Reflect it at once so a status read right after sees it. */
	pthread_mutex_lock(&e->lock);
	e->status.volume = percent < 0 ? 0 : percent > 100 ? 100 : percent;
	pthread_mutex_unlock(&e->lock);
	send_cmd(e, c);
}

void engine_set_replaygain(struct engine *e, enum play_rg_mode mode, double preamp_db)
{
	struct cmd *c = cmd_new(CMD_RG);
	c->value = (int)mode;
	c->preamp = preamp_db;
	send_cmd(e, c);
}

int engine_event_fd(const struct engine *e)
{
	return e->pipe_rd;
}

bool engine_next_event(struct engine *e, struct engine_event *ev)
{
	pthread_mutex_lock(&e->lock);
	bool got = e->nevents > 0;
	if (got) {
		*ev = e->events[e->head_events];
		e->head_events = (e->head_events + 1) % e->cap_events;
		e->nevents--;
	} else {
		/* Drained under the lock: a writer cannot slip in between. */
		char b[256];
		while (read(e->pipe_rd, b, sizeof b) > 0)
			;
	}
	pthread_mutex_unlock(&e->lock);
	return got;
}

void engine_get_status(struct engine *e, struct engine_status *st)
{
	pthread_mutex_lock(&e->lock);
	*st = e->status;
	pthread_mutex_unlock(&e->lock);
}
