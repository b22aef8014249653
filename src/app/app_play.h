/* What plays next, decided in one place: the queue (Playlists/Queue) first,
 * then the play context (the playlist, Party Shuffle or temporary list that
 * playback was started from), then the context's jumplist. Repeat and
 * shuffle, statistics, and the hand-over of tracks to the playback engine
 * (created on first use from the [output]/[playback] configuration). Main
 * thread only, like the rest of app.
 *
 * Commands (next, prev, play ...) move the position at once: N presses are
 * N steps whatever the device does meanwhile, and events of a track that
 * was replaced never move it back. */
#ifndef CRATE_APP_APP_PLAY_H
#define CRATE_APP_APP_PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/vec.h"
#include "play/engine.h"

struct app;

enum app_repeat { APP_REPEAT_OFF, APP_REPEAT_ALL, APP_REPEAT_ONE };
/* tracks: every entry once per cycle in random order; albums: albums in
 * random order, each album's entries in list order (cmus's shuffle=albums). */
enum app_shuffle { APP_SHUFFLE_OFF, APP_SHUFFLE_TRACKS, APP_SHUFFLE_ALBUMS };

/* The playlist that `e` appends to and that plays before the context. */
#define APP_QUEUE_NAME "Queue"

struct app_play_status {
	enum engine_state state;
	uint32_t id;             /* playing/paused media id; 0 for none (or a bare file) */
	char path[1024];         /* the playing file, "" when none (untrusted text) */
	char title[512];         /* a stream's current (ICY) title, "" none (untrusted text) */
	char station[256];       /* a stream's station name (icy-name), "" none (untrusted text) */
	int64_t pos_ms, dur_ms;  /* dur_ms -1 when unknown */
	int volume;              /* percent */
	enum app_repeat repeat;
	bool shuffle;            /* shuffle_mode != OFF */
	enum app_shuffle shuffle_mode;
	char playlist[256];      /* Playlists/<name> being played; "" for temporary lists */
	bool has_context;        /* a context is set (playlist or temporary list) */
	size_t position;         /* current entry of the context */
	size_t context_len;      /* its number of entries */
	bool from_queue;         /* the playing track came from the queue */
	uint32_t next_id;        /* what follows the playing track (0: not known / nothing) */
	char next_path[1024];    /* its file or URL, "" when none is known (untrusted text) */
	char error[512];         /* last error ("" none); untrusted text */
	bool opening;            /* app_play_status_shown: the track is still opening */
};

/* Things the front end may want to show, in the order they happen. */
enum app_play_notice_type {
	APP_PLAY_STARTED,  /* id/path started */
	APP_PLAY_FAILED,   /* id/path was skipped: msg says why */
	APP_PLAY_STOPPED,  /* nothing more to play (end of list, stop, device error) */
	APP_PLAY_DEVICE,   /* the audio device failed: msg */
	APP_PLAY_PAUSED,   /* id paused */
	APP_PLAY_RESUMED,  /* id playing again after a pause */
	APP_PLAY_SEEKED,   /* a seek was asked: pos_ms is where to */
	APP_PLAY_VOLUME,   /* the volume changed (app_play_status has it) */
	APP_PLAY_TITLE,    /* the playing stream's title changed: msg (untrusted) */
};

struct app_play_notice {
	enum app_play_notice_type type;
	uint32_t id;
	const char *path;  /* borrowed for the call */
	const char *msg;   /* borrowed for the call */
	int64_t pos_ms;    /* SEEKED: the new position */
};

typedef void (*app_play_listener)(void *ud, const struct app_play_notice *n);
/* One listener (NULL removes it); called from app_play_handle_events. */
void app_play_set_listener(struct app *app, app_play_listener fn, void *ud);
/* Listeners inside app (hooks, MPRIS), called after the front end's one;
 * at most APP_PLAY_OBSERVERS. Removed by the same fn and ud. */
#define APP_PLAY_OBSERVERS 4
void app_play_add_observer(struct app *app, app_play_listener fn, void *ud);
void app_play_remove_observer(struct app *app, app_play_listener fn, void *ud);

/* Make Playlists/name the active playlist and play it from entry start_pos.
 * ns must be "Playlists" (a list collection). */
int app_play_collection(struct app *app, const char *ns, const char *name, size_t start_pos,
			struct crate_err *err);
/* Play an ad-hoc list (not saved): media ids, or file paths with id 0
 * (paths may be NULL when ids are given). Copies both. The whole list is
 * the context (prev, repeat and shuffle see all of it); start is the entry
 * played first (under shuffle its cycle starts there), or APP_PLAY_ANY:
 * the first, or a random one under shuffle. */
#define APP_PLAY_ANY SIZE_MAX
int app_play_list(struct app *app, const uint32_t *ids, const char *const *paths, size_t n,
		  size_t start, struct crate_err *err);
/* Append ids to the queue (Playlists/Queue, created as a queue list when
 * missing): they play, first in first out, before the context resumes. */
int app_play_enqueue(struct app *app, const uint32_t *ids, size_t n, struct crate_err *err);
/* Pause/resume; when stopped, play the active playlist from its position. */
int app_play_toggle(struct app *app, struct crate_err *err);
int app_play_stop(struct app *app, struct crate_err *err);
int app_play_next(struct app *app, struct crate_err *err);
int app_play_prev(struct app *app, struct crate_err *err);
int app_play_seek(struct app *app, int64_t ms, bool relative, struct crate_err *err);
/* Seek to a position as typed (base/seekarg.h: 90, 1:30, +10, -0:05, 50%);
 * -1 with err naming arg when it is none, or a percentage of a track of
 * unknown length. */
int app_play_seek_arg(struct app *app, const char *arg, struct crate_err *err);
/* relative: add value (may be negative); else set it. Clamped to 0..100. */
int app_play_volume(struct app *app, int value, bool relative, struct crate_err *err);
/* Set the volume as typed (40, +5, -10): -1 with err naming arg when it is
 * not a number or lies past 0..100; :vol and crate remote vol say the
 * same. */
int app_play_volume_arg(struct app *app, const char *arg, struct crate_err *err);
/* A list was edited in this process in a way that can move entries
 * without the store knowing what plays (undo): the playing entry is found
 * again by its media id and stored as the list's position. */
void app_play_lists_changed(struct app *app);
void app_play_set_repeat(struct app *app, enum app_repeat mode);
void app_play_set_shuffle(struct app *app, bool on);
void app_play_set_shuffle_mode(struct app *app, enum app_shuffle mode);
/* playback.replaygain or playback.replaygain_preamp changed in the
 * configuration (`:set`): what plays follows. */
void app_play_replaygain_changed(struct app *app);
/* "off", "tracks" (also "on"), "albums"; -1 when unknown. */
int app_shuffle_parse(const char *s);
const char *app_shuffle_name(enum app_shuffle m);
/* "off", "all", "one"; -1 when unknown. */
int app_repeat_parse(const char *s);
const char *app_repeat_name(enum app_repeat r);

/* The engine's event descriptor (starts the engine); -1 with *err when it
 * cannot start. Poll it for reading, then call app_play_handle_events. */
int app_play_event_fd(struct app *app, struct crate_err *err);
/* Handle every waiting engine event: advance lists, pop queues, refill
 * Party Shuffle, record statistics. Returns the number handled. */
int app_play_handle_events(struct app *app);
void app_play_status(struct app *app, struct app_play_status *st);
/* The same as shown to the user (crate remote status, MPRIS, the status
 * line): a track asked for that is still opening (a station connecting,
 * the resumed track at start-up) is shown playing (or paused, when it is
 * to wait paused), with opening set; app_play_status says stopped until
 * it starts, which is what decides what a command does. */
void app_play_status_shown(struct app *app, struct app_play_status *st);

/* What a restart needs to resume: the context, its entry and offset, the
 * modes. ids (temporary lists) is owned: free with u32vec_free. */
#define APP_PLAY_NO_ENTRY ((size_t)-1)
struct app_play_resume {
	bool has_context;
	char playlist[256];      /* Playlists/<name>; "" with ids: a temporary list */
	struct u32vec ids;
	char **paths;            /* npaths of them, owned, NULL where the entry is the
				  * library's: the file a temporary list's entry names
				  * (one played by its path from view 5 has no id) */
	size_t npaths;
	size_t entry;            /* APP_PLAY_NO_ENTRY: none of the context played yet */
	uint32_t entry_id;       /* its track, 0 unknown: found again when the list was
				  * edited meanwhile (crate closed, another process) */
	uint32_t queued;         /* the queue's track that plays, 0 none (it left the queue
				  * when it started; resume puts it back at its head); also
				  * without a context (next before anything had played) */
	int64_t pos_ms;
	enum engine_state state;
	int volume;
	enum app_repeat repeat;
	enum app_shuffle shuffle;
};
void app_play_get_resume(struct app *app, struct app_play_resume *r);
/* Free what r owns (ids, paths). */
void app_play_resume_free(struct app_play_resume *r);
/* Restore r: modes and volume, then the context at its entry and offset,
 * paused there when it was playing or paused (play: playing when it was
 * playing, paused when it was paused); a queued
 * track that played plays again at its offset, the context's entry next
 * (with no context: the rest of the queue). */
int app_play_resume(struct app *app, const struct app_play_resume *r, bool play,
		    struct crate_err *err);

/* Free the player (engine included); app_close calls it. */
void app_play_close(struct app *app);

#endif
