/* The playback engine: a thread that owns the decoder(s) and the ALSA
 * device. The main thread sends commands (never blocking on audio) and
 * reads events from a non-blocking descriptor it can poll().
 *
 * Events for one track come in this order: STARTED(id), NEED_NEXT, then
 * POSITION (at least every 250 ms while playing), then FINISHED(id) when it
 * played to its end, or ERROR(id) when it could not be played. Tracks that
 * are replaced (play, stop) get no FINISHED. A gapless hand-over is
 * FINISHED(old) followed directly by STARTED(new).
 *
 * A stop is answered with STATE (stopped) even when nothing played.
 *
 * Every track carries the caller's sequence number (seq) and every event
 * names the seq of the track it is about, so the caller can tell events of
 * a track it has already replaced from those of the one it asked for. */
#ifndef CRATE_PLAY_ENGINE_H
#define CRATE_PLAY_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "play/dsp.h"
#include "play/gain.h"
#include "play/pcm.h"

struct engine;

enum engine_state { ENGINE_STOPPED, ENGINE_PLAYING, ENGINE_PAUSED };

struct engine_opts {
	const char *device;      /* output.device; NULL = "default" */
	int buffer_ms;           /* output.buffer_ms; 0 = 100 */
	bool pace;               /* output.pace: keep to the wall clock (null/file devices) */
	enum play_sfmt sfmt;     /* output.format; AUTO = the source's own */
	enum play_rg_mode rg_mode;
	double rg_preamp_db;
	int volume;              /* percent; values outside 0..100 are clamped */
};

/* One track to play. Strings are copied; dsp (may be NULL) passes to the
 * engine, which destroys it when the track is done or dropped. */
struct engine_track {
	const char *path;
	uint32_t id;
	struct play_rg rg;
	int64_t start_ms;        /* start here instead of at 0 (in the range, when ranged) */
	bool ranged;             /* play samples [range_start, range_end) of path (range_end 0:
				  * to its end) as the track: a cue sheet's track */
	int64_t range_start, range_end;
	struct play_dsp *dsp;
	uint64_t seq;            /* the caller's token, echoed in this track's events */
	bool paused;             /* open it and stay paused at start_ms (resume after a restart) */
};

enum engine_event_type {
	ENGINE_EV_STATE,      /* state changed */
	ENGINE_EV_STARTED,    /* id started (its first samples went to the device) at pos_ms
			       * (a resume's offset); msg: a stream's station name
			       * (icy-name, untrusted text), "" none */
	ENGINE_EV_NEED_NEXT,  /* id is playing and no next track is set: call engine_set_next */
	ENGINE_EV_POSITION,   /* pos_ms/dur_ms of id */
	ENGINE_EV_FINISHED,   /* id played to its end */
	ENGINE_EV_ERROR,      /* msg; id != 0: that track failed (skip it); device: the output
			       * failed; seek: only the seek did (the track plays on) */
	ENGINE_EV_TITLE,      /* a stream's title changed (ICY): msg (untrusted text) */
	ENGINE_EV_STATION,    /* a stream's station name (icy-name): msg (untrusted text) */
};

struct engine_event {
	enum engine_event_type type;
	uint32_t id;
	uint64_t seq;            /* the track's token; STATE: the last track the engine took */
	enum engine_state state;
	int64_t pos_ms, dur_ms;  /* dur_ms -1 when unknown; FINISHED: pos_ms where it ended */
	int64_t end_ms;          /* FINISHED: the audio's true end (its real length), -1
				  * when not known (decoder_end_ms: a seek past the end) */
	int64_t played_ms;       /* POSITION/FINISHED: audio of this track heard so far
				  * (seeks skip, so this can be less than pos_ms) */
	bool device;             /* ERROR: the device, not the track, failed */
	bool seek;               /* ERROR: a seek failed; the track plays on where it was;
				  * POSITION: a seek was made, pos_ms is where it went */
	char msg[512];
};

struct engine_status {
	enum engine_state state;
	uint32_t id;
	uint64_t seq;     /* the caller's token of the track reported (0: none) */
	int64_t pos_ms, dur_ms;
	int volume;
	bool cannot_seek; /* the track is a stream that cannot seek (decoder_can_seek) */
	struct play_format format; /* the device's format, zero when closed */
};

/* Start the engine thread. The device is opened only when playing starts,
 * so a missing device is an ERROR event, not a failure here. */
int engine_new(const struct engine_opts *opts, struct engine **out, struct crate_err *err);
/* Stop playback, join the thread, free everything. NULL is fine. */
void engine_free(struct engine *e);

/* Commands: queued and returned at once. */
/* Play t now; the track set with engine_set_next is dropped with the old
 * one. Plays queued behind a later play are skipped unopened. */
void engine_play(struct engine *e, const struct engine_track *t);
/* The track to follow the current one without a gap (NULL clears). */
void engine_set_next(struct engine *e, const struct engine_track *t);
void engine_pause(struct engine *e);
void engine_resume(struct engine *e);
void engine_toggle(struct engine *e);
void engine_stop(struct engine *e);
void engine_seek(struct engine *e, int64_t ms, bool relative);
void engine_set_volume(struct engine *e, int percent);
void engine_set_replaygain(struct engine *e, enum play_rg_mode mode, double preamp_db);

/* Readable when events are waiting. */
int engine_event_fd(const struct engine *e);
/* Pop one event; false when none is left (the descriptor is drained then). */
bool engine_next_event(struct engine *e, struct engine_event *ev);
void engine_get_status(struct engine *e, struct engine_status *st);

const char *engine_state_name(enum engine_state s);

#endif
