/* The player side of the application: the play context (which list plays
 * and which entry of it), the queue before it, what follows, and what
 * happens to lists as tracks go by.
 *
 * Every track handed to the engine gets a fresh sequence number; events
 * name the track's number, so an event of a track that a later command
 * replaced is recognised and ignored. The position moves when a command
 * decides (play_at) or when the engine confirms a gapless hand-over
 * (STARTED of the follower), never on a stale event. */
#include "app/app_play.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "app/app_analysis.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_stream.h"
#include "app/rules.h"
#include "app/shuffle_edit.h"
#include "base/rng.h"
#include "base/seekarg.h"
#include "base/str.h"
#include "coll/store.h"
#include "medialib/index.h"
#include "play/engine.h"
#include "play/output_alsa.h"

#define NONE ((size_t)-1)
/* A play counts once past half the track or this long (as Last.fm does). */
#define COUNT_AFTER_MS (4 * 60 * 1000)

/* Where a track comes from. */
/* PICK_AGAIN: the playing queued track once more (repeat one; a queued
 * track is in no list any more once it started). */
enum pick_kind { PICK_NONE, PICK_CONTEXT, PICK_QUEUE, PICK_JUMP, PICK_AGAIN };

struct pick {
	enum pick_kind kind;
	size_t pos;         /* CONTEXT: entry of the context; JUMP: entry of jump;
			     * QUEUE: entry of the queue (those ahead have no file) */
	char jump[256];     /* JUMP: the playlist that becomes the context */
};

/* A track handed to the engine. */
struct request {
	uint64_t seq;       /* 0: none */
	struct pick pick;
	uint32_t id;
	char path[1024];
	bool queue_passed;  /* queue entries without a file were passed over */
	bool paused;        /* to wait paused at its start (next while paused, a
			     * resume): an entry that fails hands it on */
	int64_t start_ms;   /* where it opens (a resume's offset; 0 otherwise) */
	/* The follower's: entries of the context without a file it passed
	 * over, said when its turn comes (those past the room: at once). */
	uint32_t passed[8];
	size_t npassed;
};

struct app_play {
	struct engine *engine;
	/* engine_free, set where the engine is made: closing a player that
	 * never played must not reach the decoders, so that crate-query
	 * (app_close without playback) links without FFmpeg (Makefile). */
	void (*engine_free)(struct engine *e);
	enum engine_state state;
	enum app_repeat repeat;
	enum app_shuffle shuffle;
	int volume;
	double rg_preamp;

	/* The context: Playlists/<playlist>, or (NULL) the temporary list. */
	char *playlist;
	bool has_context;
	struct u32vec adhoc_ids;
	char **adhoc_paths;         /* owned; entries NULL for library ids */
	size_t cur;                 /* the context's current entry, NONE before the first */
	uint32_t cur_entry_id;      /* its media id: finds it again after edits */
	bool from_queue;            /* the playing track is the queue's */
	bool keep_paused;           /* next/prev while paused: the new track waits
				     * paused at its start (cmus, MPRIS) */
	bool queued_waits;          /* resumed: a queued track stopped mid-way is
				     * back at the queue's head, and play plays it */

	uint64_t seq;               /* last number handed out */
	struct request now;         /* playing, or asked to play (engine_play / hand-over) */
	struct request next;        /* given to engine_set_next for a gapless hand-over */
	struct request replaced;    /* the follower next replaced: the engine may have
				     * taken it before it heard of the new one */
	bool next_asked;            /* NEED_NEXT of now seen: the follower is decided */
	unsigned next_gen;          /* store generation when next was chosen */
	unsigned next_index;        /* app->index_serial then */
	unsigned next_rules;        /* rules_generation then: its settings were prepared */
	uint64_t next_edits;        /* mlib_index_edits then (ratings, play counts) */
	bool queue_at_end;          /* none follows, queue entries without a file
				     * were passed over: judged at the track's end */
	struct request passed_at_end; /* none follows: the context's entries without
				       * a file passed over (npassed), said at the end */
	bool now_started;           /* STARTED seen for now.seq */
	bool now_finished;          /* now played to its end (FINISHED) */
	struct u32vec told;         /* entries without a file said while now plays:
				     * the follower, chosen again on every edit,
				     * says each once */
	bool awaiting;              /* now was handed to the engine and has neither
				     * started nor failed yet */
	uint64_t stopped_seq;       /* now.seq when a stop was asked: a track still
				     * opening then fails, and that is the stop */

	/* The playing track. */
	uint32_t cur_id;
	int64_t pos_ms, dur_ms;
	int64_t played_ms;          /* audio of it heard (seeks skip) */
	int64_t stored_ms;          /* its length in the library when it started */
	bool counted;               /* counted as played */
	size_t failures;            /* consecutive tracks that failed */

	/* Shuffle: a permutation of the context's entries, walked in order. */
	struct u32vec order;
	size_t order_at;
	struct u32vec order_ids;    /* the list's media ids when order was made */
	unsigned char *bad;         /* entries that failed this cycle (order.n bytes) */
	/* The cycle the playing track ends, kept while the order above is a
	 * new cycle only chosen for its follower: next or prev during that
	 * last track start from the cycle it belongs to. None is kept while
	 * its order is empty. */
	struct shuffle_cycle {
		struct u32vec order;
		size_t at;
		unsigned char *bad;
	} ended;
	uint64_t rng;

	char error[512];
	bool error_entry_gone;   /* error says the playing entry was removed */
	int64_t seek_to; /* the position of the last seek, for its notice */
	char stream_title[512]; /* the playing stream's latest ICY title */
	char station[256];      /* the playing stream's station name (icy-name) */
	app_play_listener listener;
	void *listener_ud;
	struct {
		app_play_listener fn;
		void *ud;
	} observers[APP_PLAY_OBSERVERS];
};

/* ---- small helpers ---- */

static struct app_play *player(struct app *app)
{
	if (!app->play) {
		struct app_play *p = xcalloc(1, sizeof *p);
		p->cur = NONE;
		long vol = config_get_int(app->cfg, "playback.volume", 100);
		p->volume = vol < 0 ? 0 : vol > 100 ? 100 : (int)vol; /* checked at open; never trusted */
		p->rg_preamp = strtod(config_get(app->cfg, "playback.replaygain_preamp", "0"), NULL);
		int r = app_repeat_parse(config_get(app->cfg, "playback.repeat", "off"));
		p->repeat = r < 0 ? APP_REPEAT_OFF : (enum app_repeat)r;
		const char *sh = config_get(app->cfg, "playback.shuffle", "off");
		int m = app_shuffle_parse(sh);
		p->shuffle = m >= 0 ? (enum app_shuffle)m
			     : config_get_bool(app->cfg, "playback.shuffle", false) ? APP_SHUFFLE_TRACKS
										  : APP_SHUFFLE_OFF;
		p->rng = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull | 1;
		app->play = p;
	}
	return app->play;
}

static void set_error(struct app_play *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_error(struct app_play *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->error, sizeof p->error, fmt, ap);
	va_end(ap);
	p->error_entry_gone = false;
}

/* The playing entry is in its list again (an undo put it back): the
 * error that said it was removed no longer holds. */
static void entry_back(struct app_play *p)
{
	if (p->error_entry_gone)
		p->error[0] = '\0';
	p->error_entry_gone = false;
}

static void notify(struct app_play *p, enum app_play_notice_type type, uint32_t id,
		   const char *path, const char *msg)
{
	struct app_play_notice n = {type, id, path ? path : "", msg ? msg : "", 0};
	if (type == APP_PLAY_SEEKED)
		n.pos_ms = p->seek_to;
	if (p->listener)
		p->listener(p->listener_ud, &n);
	for (int i = 0; i < APP_PLAY_OBSERVERS; i++)
		if (p->observers[i].fn)
			p->observers[i].fn(p->observers[i].ud, &n);
}

static struct engine *get_engine(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	if (p->engine)
		return p->engine;
	struct engine_opts o = {0};
	o.device = config_get(app->cfg, "output.device", "default");
	if (alsa_device_file_check(o.device, config_get_bool(app->cfg, "output.file_overwrite", false),
				   err) != 0)
		return NULL;
	o.buffer_ms = (int)config_get_int(app->cfg, "output.buffer_ms", 100);
	o.pace = config_get_bool(app->cfg, "output.pace", false);
	int f = play_sfmt_parse(config_get(app->cfg, "output.format", "auto"));
	if (f < 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "output.format must be auto, s16, s32 or float"),
		       NULL;
	o.sfmt = (enum play_sfmt)f;
	int rg = play_rg_mode_parse(config_get(app->cfg, "playback.replaygain", "off"));
	if (rg < 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "playback.replaygain must be off, track or album"),
		       NULL;
	o.rg_mode = (enum play_rg_mode)rg;
	o.rg_preamp_db = p->rg_preamp;
	o.volume = p->volume;
	if (engine_new(&o, &p->engine, err) != 0)
		p->engine = NULL;
	p->engine_free = engine_free;
	app->engine = p->engine;
	return p->engine;
}

void app_play_replaygain_changed(struct app *app)
{
	struct app_play *p = player(app);
	p->rg_preamp = strtod(config_get(app->cfg, "playback.replaygain_preamp", "0"), NULL);
	int rg = play_rg_mode_parse(config_get(app->cfg, "playback.replaygain", "off"));
	if (p->engine && rg >= 0) /* else the engine reads both when it starts */
		engine_set_replaygain(p->engine, (enum play_rg_mode)rg, p->rg_preamp);
}

/* ---- lists: a saved playlist by name, or (name NULL) the temporary list ---- */

static const struct coll_node *named_list(struct app *app, const char *name)
{
	if (!name || !app->store)
		return NULL;
	const struct coll_node *n = coll_store_get(app->store, COLL_NS_PLAYLISTS, name);
	return n && coll_type_is_list(n) ? n : NULL;
}

static size_t len_of(struct app *app, const char *name)
{
	if (!name)
		return player(app)->adhoc_ids.n;
	const struct coll_node *n = named_list(app, name);
	return n ? n->idlist.n : 0;
}

static uint32_t id_of(struct app *app, const char *name, size_t i)
{
	struct app_play *p = player(app);
	if (!name)
		return i < p->adhoc_ids.n ? p->adhoc_ids.v[i] : 0;
	const struct coll_node *n = named_list(app, name);
	return n && i < n->idlist.n ? n->idlist.v[i] : 0;
}

/* Integer property name of library item id; false when it has none. */
static bool index_int(struct app *app, uint32_t id, const char *name, int64_t *out)
{
	const struct mlib_index *idx = app->index;
	int prop = idx && id && mlib_index_has_media(idx, id) ? mlib_index_prop(idx, name) : -1;
	return prop >= 0 && mlib_index_int_value(idx, prop, id, out);
}

/* The file of entry i of list name (into buf); NULL when it has none. */
static const char *path_of(struct app *app, const char *name, size_t i, char *buf, size_t size)
{
	struct app_play *p = player(app);
	if (!name && p->adhoc_paths && i < p->adhoc_ids.n && p->adhoc_paths[i]) {
		snprintf(buf, size, "%s", p->adhoc_paths[i]);
		return buf;
	}
	uint32_t id = id_of(app, name, i);
	if (!id || !app->index || !mlib_index_has_media(app->index, id))
		return NULL;
	const char *u = mlib_index_get_text(app->index, id, "url", buf, size);
	if (u && u != buf) {
		snprintf(buf, size, "%s", u);
		u = buf;
	}
	/* A cue sheet's track plays from its file: url "FILE#N" without "#N". */
	int64_t start;
	char *hash = u ? strrchr(buf, '#') : NULL;
	if (hash && index_int(app, id, "cue_start", &start))
		*hash = '\0';
	return u;
}

/* The sample range of a cue sheet's track into t (nothing for a file). */
static void cue_range(struct app *app, uint32_t id, struct engine_track *t)
{
	int64_t start, end = 0;
	if (!index_int(app, id, "cue_start", &start))
		return;
	if (!index_int(app, id, "cue_end", &end))
		end = 0;
	t->ranged = true;
	t->range_start = start;
	t->range_end = end;
}

static const char *type_of(struct app *app, const char *name)
{
	const struct coll_node *n = named_list(app, name);
	const char *t = n ? coll_attr_get(n, "type") : NULL;
	return t ? t : "list";
}

/* A Party Shuffle refills from its source and repeat never wraps it: one
 * with nothing (more) to play has a source with nothing to pick (it
 * matches nothing, or only streams, or rules keep it out). */
#define PARTY_DRY " (its source has nothing to pick)"

static bool is_party(struct app *app, const char *name)
{
	return strcmp(type_of(app, name), "pshuffle") == 0;
}

/* Why nothing follows the context's last entry. */
static const char *why_nothing_follows(struct app *app)
{
	struct app_play *p = player(app);
	if (is_party(app, p->playlist))
		return PARTY_DRY;
	return strcmp(type_of(app, p->playlist), "queue") != 0 && p->repeat == APP_REPEAT_OFF
		       ? " (repeat is off)" : "";
}

/* Queue and Party Shuffle drop what was played. */
static bool pops(struct app *app, const char *name)
{
	const char *t = type_of(app, name);
	return strcmp(t, "queue") == 0 || strcmp(t, "pshuffle") == 0;
}

static size_t list_len(struct app *app)
{
	return len_of(app, player(app)->playlist);
}

static long attr_long(const struct coll_node *n, const char *key, long def)
{
	const char *v = n ? coll_attr_get(n, key) : NULL;
	int64_t x;
	if (!v || !str_parse_int64(v, strlen(v), &x) || x < 0)
		return def;
	return (long)x;
}

/* The queue plays before the context, unless the context is the queue. */
static bool queue_applies(struct app *app)
{
	struct app_play *p = player(app);
	return !(p->playlist && strcmp(p->playlist, APP_QUEUE_NAME) == 0) &&
	       len_of(app, APP_QUEUE_NAME) > 0;
}

/* The list and entry a pick names. */
static const char *pick_list(struct app *app, const struct pick *pk, size_t *pos)
{
	*pos = pk->pos;
	return pk->kind == PICK_QUEUE ? APP_QUEUE_NAME
	       : pk->kind == PICK_JUMP ? pk->jump
				       : player(app)->playlist;
}

/* Why entry id cannot be played: its track left the library. */
static int gone_err(uint32_t id, struct crate_err *err)
{
	return crate_err_set(err, CRATE_ERR_NOTFOUND, "media %u is no longer in the library", id);
}

/* Fill r (track of pick pk); false (with *err) when the entry has no file. */
static bool make_request(struct app *app, const struct pick *pk, struct request *r,
			 struct crate_err *err)
{
	if (pk->kind == PICK_AGAIN) {
		const struct request *now = &player(app)->now;
		*r = (struct request){.pick = *pk, .id = now->id};
		memcpy(r->path, now->path, sizeof r->path);
		return r->path[0] ? true : (crate_err_set(err, CRATE_ERR_NOTFOUND,
							   "nothing to play again"), false);
	}
	size_t pos;
	const char *list = pick_list(app, pk, &pos);
	r->pick = *pk;
	r->id = id_of(app, list, pos);
	if (!path_of(app, list, pos, r->path, sizeof r->path))
		return gone_err(r->id, err), false;
	return true;
}

static void fill_track(struct app *app, const struct request *r, struct engine_track *t)
{
	uint32_t id = r->id;
	/* Tags, else what the analysis measured (app_analysis.c). */
	*t = (struct engine_track){
		.path = r->path, .id = id, .rg = app_analysis_rg(app, id), .seq = r->seq};
	cue_range(app, id, t);
	if (id && app->index && app->store && app->db)
		rules_track_prepare(app, t, player(app)->rg_preamp);
}

/* ---- the context's position ---- */

/* Persist pos as the position of Playlists/name. */
static void list_save_position(struct app *app, const char *name, size_t pos)
{
	struct app_play *p = player(app);
	const struct coll_node *n = named_list(app, name);
	if (!n)
		return;
	char buf[32];
	snprintf(buf, sizeof buf, "%zu", pos);
	const char *old = coll_attr_get(n, "position");
	if (old && strcmp(old, buf) == 0)
		return;
	/* Only the attribute: saving a copy would undo edits that another
	 * process (crate playlist add ...) committed meanwhile. */
	struct crate_err err = {0};
	if (coll_store_playlist_set_attr(app->store, name, "position", buf, &err) != 0)
		set_error(p, "%s", err.msg);
}

/* Persist the position of the playing list. */
static void save_position(struct app *app, size_t pos)
{
	list_save_position(app, player(app)->playlist, pos);
}

/* Queue and Party Shuffle: drop entries before pos beyond `history`, then
 * (Party Shuffle) top the list up. Returns the new index of pos. */
static size_t pop_played(struct app *app, size_t pos)
{
	struct app_play *p = player(app);
	const struct coll_node *n = named_list(app, p->playlist);
	if (!n || !pops(app, p->playlist))
		return pos;
	size_t history = (size_t)attr_long(n, "history", 0);
	struct crate_err err = {0};
	if (pos > history) {
		size_t drop = pos - history;
		if (coll_store_playlist_remove(app->store, p->playlist, 0, drop, &err) == 0)
			pos -= drop;
		else
			set_error(p, "%s", err.msg);
	}
	save_position(app, pos);
	if (strcmp(type_of(app, p->playlist), "pshuffle") == 0 &&
	    app_pshuffle_refill(app, COLL_NS_PLAYLISTS, p->playlist, NULL, &err) != 0)
		set_error(p, "%s", err.msg);
	return pos;
}

/* A track of the new cycle started, or the order was dropped: the ended
 * cycle is history. */
static void shuffle_forget_ended(struct app_play *p)
{
	free(p->ended.bad);
	p->ended.bad = NULL;
	p->ended.order.n = 0;
}

/* The context's n media ids, in list order, into *out (replaced). */
static void list_ids(struct app *app, size_t n, struct u32vec *out)
{
	struct app_play *p = player(app);
	const struct coll_node *l = named_list(app, p->playlist);
	const struct u32vec *src = p->playlist ? (l ? &l->idlist : NULL) : &p->adhoc_ids;
	out->n = 0;
	if (!src || src->n != n)
		return;
	u32vec_reserve(out, n ? n : 1);
	if (n)
		memcpy(out->v, src->v, n * sizeof *src->v);
	out->n = n;
}

static uint32_t *album_groups(struct app *app, size_t n, struct u32vec *heads);

/* The context was edited under a shuffle cycle, its current entry kept:
 * the cycle goes on over the new entries (shuffle_edit.h), so tracks it
 * played do not come again and added ones are still to come; under
 * albums, what is to come is whole albums again, the playing one's rest
 * first. false when there is no cycle to carry (none started yet). */
static bool shuffle_carry(struct app *app)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	/* With a cycle held (the order is the next one, chosen for the
	 * follower of the cycle's last track) there is none to go on with. */
	if (p->shuffle == APP_SHUFFLE_OFF || p->order.n == 0 || p->ended.order.n ||
	    p->order_ids.n != p->order.n || p->order_at >= p->order.n || p->cur >= n)
		return false;
	struct u32vec now = {0};
	list_ids(app, n, &now);
	if (now.n == p->order_ids.n && memcmp(now.v, p->order_ids.v, n * sizeof *now.v) == 0) {
		u32vec_free(&now);
		return true;
	}
	p->order_at = shuffle_follow_edit(&p->order, p->order_at, p->order_ids.v, now.v, n,
					  p->cur, &p->rng);
	if (p->shuffle == APP_SHUFFLE_ALBUMS) {
		struct u32vec heads = {0};
		uint32_t *group = album_groups(app, n, &heads);
		shuffle_regroup_albums(&p->order, p->order_at, group, &p->rng);
		free(group);
		u32vec_free(&heads);
	}
	free(p->bad);
	p->bad = xcalloc(n ? n : 1, 1);
	u32vec_free(&p->order_ids);
	p->order_ids = now;
	return true;
}

/* The entry the list's "position" marks, when it holds the playing
 * track: every edit (here or in another process) keeps that marker on its
 * entry, so it tells which copy of a track listed twice plays. NONE when
 * it marks none (a temporary list has no marker). */
static size_t marked_entry(struct app *app, size_t n)
{
	struct app_play *p = player(app);
	const struct coll_node *l = named_list(app, p->playlist);
	long pos = l ? attr_long(l, "position", -1) : -1;
	if (pos < 0 || (size_t)pos >= n || id_of(app, p->playlist, (size_t)pos) != p->cur_entry_id)
		return NONE;
	return (size_t)pos;
}

/* The entry nearest the current one that holds the playing track, NONE
 * when none does. */
static size_t nearest_copy(struct app *app, size_t n)
{
	struct app_play *p = player(app);
	size_t best = NONE;
	for (size_t i = 0; i < n; i++)
		if (id_of(app, p->playlist, i) == p->cur_entry_id &&
		    (best == NONE || (i > p->cur ? i - p->cur : p->cur - i) <
				     (best > p->cur ? best - p->cur : p->cur - best)))
			best = i;
	return best;
}

/* Another process (or view) edited the context: find the current entry
 * again by the list's marker, else by its media id, and store where it is
 * now (the marker). When it was removed, the entry that took its place
 * comes next (*gone). */
static void resync(struct app *app, bool *gone)
{
	struct app_play *p = player(app);
	*gone = false;
	const char *active = app->store ? coll_store_active_playlist(app->store) : NULL;
	if (p->playlist && !named_list(app, p->playlist) && active &&
	    strcmp(active, p->playlist) != 0 && p->cur != NONE &&
	    id_of(app, active, p->cur) == p->cur_entry_id) {
		/* The context is the active playlist: a rename took it along. */
		set_error(p, "playlist %s was renamed to %s", p->playlist, active);
		free(p->playlist);
		p->playlist = xstrdup(active);
	}
	if (p->cur == NONE)
		return;
	size_t n = list_len(app);
	size_t best = marked_entry(app, n);
	if ((best == NONE && p->cur < n && id_of(app, p->playlist, p->cur) == p->cur_entry_id) ||
	    best == p->cur) {
		entry_back(p);
		shuffle_carry(app); /* entries around it may have changed */
		return;
	}
	if (best == NONE)
		best = nearest_copy(app, n);
	if (best != NONE) {
		entry_back(p);
		p->cur = best;
		save_position(app, best);
		if (!shuffle_carry(app))
			p->order.n = 0; /* a new shuffle cycle */
	} else {
		*gone = true;
		if (p->playlist && !named_list(app, p->playlist)) {
			set_error(p, "playlist %s was removed: playback stops after this track",
				  p->playlist);
		} else {
			set_error(p, "the playing entry was removed from %s",
				  p->playlist ? p->playlist : "the list");
			p->error_entry_gone = true;
		}
		if (p->cur > n)
			p->cur = n;
		p->order.n = 0; /* a new shuffle cycle */
	}
	shuffle_forget_ended(p);
}

/* ---- shuffle ---- */

static void swap_u32(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;
	*a = *b;
	*b = t;
}

/* The album an entry belongs to (albumartist or artist, and album). */
static void album_key(struct app *app, size_t i, char *buf, size_t size)
{
	uint32_t id = id_of(app, player(app)->playlist, i);
	char a[256], b[256];
	const char *aa = id && app->index ? mlib_index_get_text(app->index, id, "albumartist", a,
								 sizeof a)
					  : NULL;
	if (!aa && id && app->index)
		aa = mlib_index_get_text(app->index, id, "artist", a, sizeof a);
	const char *al = id && app->index ? mlib_index_get_text(app->index, id, "album", b, sizeof b)
					  : NULL;
	if (!al) /* no album: a single of its own */
		snprintf(buf, size, "#%zu", i);
	else
		snprintf(buf, size, "%s\x1f%s", aa ? aa : "", al);
}

/* group[i] (allocated, n of them): the first entry of entry i's album;
 * heads: those first entries, in list order. */
static uint32_t *album_groups(struct app *app, size_t n, struct u32vec *heads)
{
	uint32_t *group = xcalloc(n ? n : 1, sizeof *group);
	char **keys = xcalloc(n ? n : 1, sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		char k[600];
		album_key(app, i, k, sizeof k);
		keys[i] = xstrdup(k);
		group[i] = (uint32_t)i;
		for (size_t h = 0; h < heads->n; h++)
			if (strcmp(keys[heads->v[h]], k) == 0) {
				group[i] = heads->v[h];
				break;
			}
		if (group[i] == i)
			u32vec_push(heads, (uint32_t)i);
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return group;
}

/* Albums in random order, each album's entries in list order; first's
 * album (unless NONE) leads. */
static void shuffle_albums(struct app *app, size_t n, size_t first)
{
	struct app_play *p = player(app);
	struct u32vec heads = {0};
	uint32_t *group = album_groups(app, n, &heads);
	for (size_t i = heads.n; i > 1; i--)
		swap_u32(&heads.v[i - 1], &heads.v[rng_next(&p->rng) % i]);
	for (size_t h = 0; first < n && h < heads.n; h++)
		if (heads.v[h] == group[first])
			swap_u32(&heads.v[h], &heads.v[0]);
	p->order.n = 0;
	for (size_t h = 0; h < heads.n; h++)
		for (size_t i = 0; i < n; i++)
			if (group[i] == heads.v[h])
				u32vec_push(&p->order, (uint32_t)i);
	free(group);
	u32vec_free(&heads);
}

/* A new cycle: every entry once. first (unless NONE) leads; avoid (unless
 * NONE) does not lead, so a reshuffle never repeats the last track. */
static void shuffle_rebuild(struct app *app, size_t first, size_t avoid)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	if (p->shuffle == APP_SHUFFLE_ALBUMS) {
		shuffle_albums(app, n, first);
	} else {
		p->order.n = 0;
		for (size_t i = 0; i < n; i++)
			u32vec_push(&p->order, (uint32_t)i);
		for (size_t i = n; i > 1; i--)
			swap_u32(&p->order.v[i - 1], &p->order.v[rng_next(&p->rng) % i]);
	}
	free(p->bad);
	p->bad = xcalloc(n ? n : 1, 1);
	p->order_at = 0;
	list_ids(app, n, &p->order_ids);
	if (first != NONE && first < n) {
		if (p->shuffle == APP_SHUFFLE_ALBUMS) {
			/* Start the cycle at first's place in its album's run. */
			for (size_t i = 0; i < n; i++)
				if (p->order.v[i] == first)
					p->order_at = i;
		} else {
			for (size_t i = 0; i < n; i++)
				if (p->order.v[i] == first)
					swap_u32(&p->order.v[i], &p->order.v[0]);
		}
	} else if (avoid != NONE && n > 1 && p->order.v[0] == avoid) {
		if (p->shuffle == APP_SHUFFLE_ALBUMS) {
			/* Rotate the album run that starts with avoid to the end. */
			size_t k = 1;
			char a[600], b[600];
			album_key(app, p->order.v[0], a, sizeof a);
			while (k < n && (album_key(app, p->order.v[k], b, sizeof b), strcmp(a, b) == 0))
				k++;
			if (k < n) {
				uint32_t *tmp = xmalloc(n * sizeof *tmp);
				memcpy(tmp, p->order.v + k, (n - k) * sizeof *tmp);
				memcpy(tmp + (n - k), p->order.v, k * sizeof *tmp);
				memcpy(p->order.v, tmp, n * sizeof *tmp);
				free(tmp);
			}
		} else {
			swap_u32(&p->order.v[0], &p->order.v[1 + rng_next(&p->rng) % (n - 1)]);
		}
	}
}

/* The cycle ends with the playing track: keep it while a new one is
 * built for the follower (shuffle_rebuild replaces order and bad). */
static void shuffle_hold_ended(struct app_play *p)
{
	struct shuffle_cycle *e = &p->ended;
	struct u32vec held = e->order;
	free(e->bad);
	e->order = p->order;
	e->at = p->order_at;
	e->bad = p->bad;
	p->order = held;
	p->order.n = 0;
	p->bad = NULL;
}

/* Back to the ended cycle (the new one was only chosen, never started). */
static void shuffle_restore_ended(struct app_play *p)
{
	struct shuffle_cycle *e = &p->ended;
	struct u32vec chosen = p->order;
	free(p->bad);
	p->order = e->order;
	p->order_at = e->at;
	p->bad = e->bad;
	e->order = chosen;
	e->order.n = 0;
	e->bad = NULL;
}

static bool ends_held_cycle(const struct app_play *p, size_t pos)
{
	const struct shuffle_cycle *e = &p->ended;
	return e->at < e->order.n && e->order.v[e->at] == pos; /* empty: none kept */
}

/* Make order_at point at entry pos (a new cycle when pos is not in it). */
static void shuffle_sync(struct app *app, size_t pos)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	if (ends_held_cycle(p, pos)) {
		/* Deciding again from the track that ends a cycle (next, prev,
		 * a mode change): not from its place in the next one. */
		shuffle_restore_ended(p);
		if (p->order.n == n)
			return;
	}
	if (p->order.n != n) {
		shuffle_rebuild(app, pos, NONE);
		return;
	}
	if (p->order_at < n && p->order.v[p->order_at] == pos)
		return;
	for (size_t i = 0; i < n; i++)
		if (p->order.v[i] == pos) {
			p->order_at = i;
			return;
		}
	shuffle_rebuild(app, pos, NONE);
}

static bool is_bad(struct app_play *p, size_t pos)
{
	return p->bad && pos < p->order.n && p->bad[pos];
}

/* ---- what plays next ---- */

/* The context's entry after from (NONE: at its end). manual: the user
 * asked (repeat-one then moves on too). gone: from was removed, so the
 * entry now at from comes next. */
static size_t next_pos(struct app *app, size_t from, bool manual, bool gone)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	if (n == 0)
		return NONE;
	bool plain = !p->playlist || !pops(app, p->playlist);
	if (from != NONE && p->repeat == APP_REPEAT_ONE && !manual && !gone && from < n)
		return from;
	if (p->shuffle != APP_SHUFFLE_OFF && plain) {
		size_t i = 0;
		if (from == NONE || gone) {
			/* A new context, or its entries moved: a new cycle. */
			if (p->order.n != n || gone)
				shuffle_rebuild(app, NONE, NONE);
		} else {
			shuffle_sync(app, from);
			i = p->order_at + 1;
		}
		while (i < n && is_bad(p, p->order.v[i]))
			i++;
		if (i < n)
			return p->order.v[i];
		if (p->repeat != APP_REPEAT_ALL)
			return NONE;
		shuffle_hold_ended(p);
		shuffle_rebuild(app, NONE, from);
		for (i = 0; i < n && is_bad(p, p->order.v[i]); i++)
			;
		return i < n ? p->order.v[i] : NONE;
	}
	size_t i = from == NONE ? 0 : gone ? from : from + 1;
	if (i < n)
		return i;
	return plain && p->repeat == APP_REPEAT_ALL ? 0 : NONE;
}

static size_t prev_pos(struct app *app, size_t from)
{
	struct app_play *p = player(app);
	size_t n = list_len(app);
	if (n == 0 || from == NONE)
		return NONE;
	bool plain = !p->playlist || !pops(app, p->playlist);
	if (p->shuffle != APP_SHUFFLE_OFF && plain && p->order.n == n) {
		shuffle_sync(app, from);
		return p->order_at > 0 ? p->order.v[p->order_at - 1] : NONE;
	}
	if (from > 0)
		return from - 1;
	return plain && p->repeat == APP_REPEAT_ALL ? n - 1 : NONE;
}

/* The one place that decides what follows context entry from: the queue,
 * then the context, then its jumplist. use_queue false: the context only. */
static struct pick decide(struct app *app, size_t from, bool manual, bool gone, bool use_queue)
{
	struct app_play *p = player(app);
	struct pick pk = {.kind = PICK_NONE};
	/* Repeat one repeats what plays, a queued track too (cmus's
	 * repeat_current), not the context's entry; the queue's last one
	 * too, before stop_after_queue could stop after it. */
	if (use_queue && !manual && p->repeat == APP_REPEAT_ONE && p->from_queue && p->now.id) {
		pk.kind = PICK_AGAIN;
		return pk;
	}
	/* The last queued track ended: stop there when asked (cmus's
	 * stop_after_queue), rather than go back to the context. */
	if (use_queue && !manual && p->from_queue && !queue_applies(app) &&
	    config_get_bool(app->cfg, "playback.stop_after_queue", false))
		return pk;
	if (use_queue && queue_applies(app) &&
	    !(p->repeat == APP_REPEAT_ONE && !manual && from != NONE && !gone)) {
		pk.kind = PICK_QUEUE;
		return pk;
	}
	size_t pos = next_pos(app, from, manual, gone);
	if (pos != NONE) {
		pk.kind = PICK_CONTEXT;
		pk.pos = pos;
		return pk;
	}
	const struct coll_node *n = named_list(app, p->playlist);
	const char *target = n ? coll_attr_get(n, "jumplist") : NULL;
	if (target && len_of(app, target) > 0 && strlen(target) < sizeof pk.jump) {
		pk.kind = PICK_JUMP;
		pk.pos = 0;
		snprintf(pk.jump, sizeof pk.jump, "%s", target);
	}
	return pk;
}

/* The pick after pk when pk cannot be played. */
static struct pick after_failed(struct app *app, const struct pick *pk)
{
	struct app_play *p = player(app);
	if (pk->kind == PICK_CONTEXT) {
		if (p->bad && pk->pos < p->order.n)
			p->bad[pk->pos] = 1;
		return decide(app, pk->pos, true, false, false);
	}
	if (pk->kind == PICK_JUMP) {
		struct pick j = *pk;
		j.pos++;
		if (j.pos >= len_of(app, j.jump))
			j.kind = PICK_NONE;
		return j;
	}
	if (pk->kind == PICK_QUEUE) {
		/* Passed over, not dropped: it is judged at its turn. */
		struct pick q = *pk;
		if (++q.pos < len_of(app, APP_QUEUE_NAME))
			return q;
		return decide(app, p->cur, true, false, false);
	}
	return decide(app, p->cur, true, false, true);
}

/* Drop the queue's entry of id (its head, normally): it is being played,
 * or it cannot be. */
static void queue_pop(struct app *app, uint32_t id)
{
	const struct coll_node *q = named_list(app, APP_QUEUE_NAME);
	if (!q)
		return;
	for (size_t i = 0; i < q->idlist.n; i++)
		if (q->idlist.v[i] == id) {
			struct crate_err err = {0};
			if (coll_store_playlist_remove(app->store, APP_QUEUE_NAME, i, 1, &err) != 0)
				set_error(player(app), "%s", err.msg);
			return;
		}
}

/* The queue's turn came (to the entry of id, or with id 0 to none): the
 * entries ahead that have no file, passed over when the follower was
 * chosen, are skipped now, each with its message; then id's entry goes
 * (it plays, or it cannot). */
static void queue_take(struct app *app, uint32_t id)
{
	struct app_play *p = player(app);
	for (;;) {
		const struct coll_node *q = named_list(app, APP_QUEUE_NAME);
		if (!q || q->idlist.n == 0 || (id && q->idlist.v[0] == id))
			break;
		struct pick head = {.kind = PICK_QUEUE, .pos = 0};
		struct request r = {0};
		struct crate_err err = {0};
		if (make_request(app, &head, &r, &err))
			break; /* back by now: it keeps its place */
		set_error(p, "%s", err.msg);
		notify(p, APP_PLAY_FAILED, r.id, NULL, err.msg);
		if (coll_store_playlist_remove(app->store, APP_QUEUE_NAME, 0, 1, &err) != 0) {
			set_error(p, "%s", err.msg);
			return;
		}
	}
	if (id)
		queue_pop(app, id);
}

/* Whether entry id's missing file is to be said: not yet while this
 * track plays (id 0, a file by its path: always). */
static bool tell_once(struct app_play *p, uint32_t id)
{
	for (size_t i = 0; id && i < p->told.n; i++)
		if (p->told.v[i] == id)
			return false;
	if (id)
		u32vec_push(&p->told, id);
	return true;
}

/* Say that the entries r passed over are skipped: their turn came. */
static void tell_passed(struct app *app, const struct request *r)
{
	struct app_play *p = player(app);
	for (size_t i = 0; i < r->npassed; i++) {
		struct crate_err err = {0};
		gone_err(r->passed[i], &err);
		if (tell_once(p, r->passed[i])) {
			set_error(p, "%s", err.msg);
			notify(p, APP_PLAY_FAILED, r->passed[i], NULL, err.msg);
		}
	}
}

/* From pick pk on, the first track that has a file (in *r); the context's
 * entries skipped on the way are reported (follower: kept in r->passed,
 * reported at their turn), the queue's are passed over (r->queue_passed)
 * and reported at their turn (queue_take). false when none has one. */
static bool first_playable(struct app *app, struct pick pk, bool follower, struct request *r)
{
	struct app_play *p = player(app);
	size_t bound = list_len(app) + len_of(app, APP_QUEUE_NAME) + 2;
	bool passed = false;
	for (size_t tries = 0; pk.kind != PICK_NONE && tries <= bound; tries++) {
		struct crate_err err = {0};
		if (make_request(app, &pk, r, &err)) {
			r->queue_passed = passed;
			return true;
		}
		if (pk.kind == PICK_QUEUE) {
			passed = true;
		} else if (follower && r->id && r->npassed < sizeof r->passed / sizeof r->passed[0]) {
			r->passed[r->npassed++] = r->id;
		} else if (tell_once(p, r->id)) {
			set_error(p, "%s", err.msg);
			notify(p, APP_PLAY_FAILED, r->id, NULL, err.msg);
		}
		pk = after_failed(app, &pk);
	}
	r->queue_passed = passed;
	return false;
}

static void adhoc_clear(struct app_play *p)
{
	for (size_t i = 0; p->adhoc_paths && i < p->adhoc_ids.n; i++)
		free(p->adhoc_paths[i]);
	free(p->adhoc_paths);
	p->adhoc_paths = NULL;
	u32vec_free(&p->adhoc_ids);
}

/* A new context starts: nothing of it played yet, a new shuffle cycle. */
static void context_reset(struct app_play *p)
{
	p->cur = NONE;
	p->cur_entry_id = 0;
	p->order.n = 0;
	shuffle_forget_ended(p);
	p->failures = 0;
}

/* Playlists/name is about to play from start_pos: a Party Shuffle is
 * marked there and topped up (its length is known only then). */
static int list_prepare(struct app *app, const char *name, size_t start_pos,
			struct crate_err *err)
{
	if (strcmp(type_of(app, name), "pshuffle") != 0)
		return 0;
	list_save_position(app, name, start_pos);
	return app_pshuffle_refill(app, COLL_NS_PLAYLISTS, name, NULL, err);
}

/* Make Playlists/name the context (and the active playlist), with nothing
 * of it playing yet (list_prepare first). */
static int list_activate(struct app *app, const char *name, struct crate_err *err)
{
	struct app_play *p = player(app);
	char *copy = xstrdup(name); /* name may live in a node the store replaces */
	if (coll_store_set_active_playlist(app->store, copy, err) != 0) {
		free(copy);
		return -1;
	}
	adhoc_clear(p);
	free(p->playlist);
	p->playlist = copy;
	p->has_context = true;
	context_reset(p);
	return 0;
}

/* r's track becomes the playing one: move the context's position (or pop
 * the queue, or switch to the jumplist's playlist). */
static void commit(struct app *app, struct request *r)
{
	struct app_play *p = player(app);
	p->queued_waits = false; /* something plays: its turn is over or taken */
	if (r->pick.kind == PICK_QUEUE) {
		queue_take(app, r->id);
		p->from_queue = true;
		return;
	}
	if (r->queue_passed) /* the queue's entries without a file, at their turn */
		queue_take(app, 0);
	if (r->pick.kind == PICK_AGAIN) /* still from the queue, the context where it was */
		return;
	if (r->pick.kind == PICK_JUMP) {
		struct crate_err err = {0};
		if (list_activate(app, r->pick.jump, &err) != 0 ||
		    list_prepare(app, r->pick.jump, 0, &err) != 0)
			set_error(p, "%s", err.msg);
		r->pick.kind = PICK_CONTEXT;
	}
	p->from_queue = false;
	size_t pos = r->pick.pos;
	if (p->shuffle != APP_SHUFFLE_OFF && (!p->playlist || !pops(app, p->playlist))) {
		shuffle_sync(app, pos);
		shuffle_forget_ended(p);
	}
	if (p->playlist) {
		if (pops(app, p->playlist))
			pos = pop_played(app, pos);
		else
			save_position(app, pos);
	}
	p->cur = pos;
	p->cur_entry_id = r->id;
	r->pick.pos = pos;
}

/* The playing track is replaced: by the user (next, prev, play ...), it
 * was skipped when some of it was heard but not enough to count. */
static void leave_current(struct app *app, bool user)
{
	struct app_play *p = player(app);
	if (user && p->now_started && !p->counted && p->played_ms > 0 && p->cur_id && app->db) {
		struct crate_err err = {0};
		if (app_record_skip(app, p->cur_id, &err) != 0)
			set_error(p, "%s", err.msg);
	}
	p->now_started = false;
	p->counted = false;
	p->played_ms = 0;
	p->next.seq = 0;
	p->replaced.seq = 0;
	p->next_asked = false;
	p->queue_at_end = false;
	p->passed_at_end.npassed = 0;
}

static void playback_ended(struct app *app);

/* Play pick pk now (skipping entries without a file); stop when nothing
 * is left. */
static int play_pick(struct app *app, struct pick pk, bool user, struct crate_err *err)
{
	struct app_play *p = player(app);
	struct engine *e = get_engine(app, err);
	if (!e)
		return -1;
	struct request r = {0};
	leave_current(app, user);
	if (!first_playable(app, pk, false, &r)) {
		if (r.queue_passed) /* their turn came: skipped now */
			queue_take(app, 0);
		engine_stop(e);
		p->now.seq = ++p->seq; /* whatever the engine still reports is stale */
		/* A command (next onto entries without a file) ends playback
		 * here: say so, as the engine's stop, now stale, will not. The
		 * callers that go on after a failure say it themselves. */
		if (user && p->state != ENGINE_STOPPED)
			playback_ended(app);
		p->state = ENGINE_STOPPED;
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "nothing to play");
	}
	r.seq = ++p->seq;
	r.paused = p->keep_paused;
	commit(app, &r);
	p->now = r;
	p->awaiting = true;
	p->now_finished = false;
	struct engine_track t;
	fill_track(app, &r, &t);
	t.paused = r.paused;
	engine_play(e, &t);
	return 0;
}

static int play_entry(struct app *app, size_t pos, struct crate_err *err)
{
	struct pick pk = {.kind = PICK_CONTEXT, .pos = pos};
	return play_pick(app, pk, true, err);
}

/* The first entry a start at start of a list walks when entries fail:
 * plain lists wrap under repeat all and shuffle walks every entry; a
 * queue or Party Shuffle goes on from start. */
static size_t start_walk_from(struct app *app, bool plain, size_t start)
{
	struct app_play *p = player(app);
	return plain && (p->shuffle != APP_SHUFFLE_OFF || p->repeat == APP_REPEAT_ALL) ? 0 : start;
}

/* Whether a start of Playlists/name at start finds a track with a file:
 * an entry it walks, else one of its jumplist. Asked before the switch:
 * a start with nothing to play is refused, what plays left as it was
 * (first_playable would find out only after the context had changed). */
static bool list_can_start(struct app *app, const char *name, size_t start)
{
	char buf[1024];
	size_t n = len_of(app, name);
	for (size_t i = start_walk_from(app, !pops(app, name), start); i < n; i++)
		if (path_of(app, name, i, buf, sizeof buf))
			return true;
	const struct coll_node *l = named_list(app, name);
	const char *jump = l ? coll_attr_get(l, "jumplist") : NULL;
	for (size_t i = 0; jump && i < len_of(app, jump); i++)
		if (path_of(app, jump, i, buf, sizeof buf))
			return true;
	return false;
}

/* ---- events ---- */

static bool is_now(const struct app_play *p, const struct engine_event *ev)
{
	return ev->seq && ev->seq == p->now.seq;
}

static bool is_next(const struct app_play *p, const struct engine_event *ev)
{
	return ev->seq && ev->seq == p->next.seq;
}

static bool is_replaced_next(const struct app_play *p, const struct engine_event *ev)
{
	return ev->seq && ev->seq == p->replaced.seq;
}

static int64_t stored_duration(struct app *app, uint32_t id);

/* The playing stream's station name (icy-name; "" none). A stream item
 * with no title takes it, as a playlist file's name gives one (the index
 * catches up in the background). */
static void take_station(struct app *app, const char *station)
{
	struct app_play *p = player(app);
	snprintf(p->station, sizeof p->station, "%s", station);
	app_stream_name_station(app, p->cur_id, p->station);
}

static void on_started(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	bool handover = is_next(p, ev) || is_replaced_next(p, ev);
	if (handover) {
		/* Gapless hand-over: the follower is now the playing track. A
		 * follower chosen again too late was taken all the same; the
		 * engine asks for the follower of it (NEED_NEXT). */
		struct request *r = is_next(p, ev) ? &p->next : &p->replaced;
		commit(app, r);
		p->now = *r;
		p->next.seq = 0;
		p->replaced.seq = 0;
	} else if (!is_now(p, ev)) {
		return; /* a track replaced before it started */
	}
	p->next_asked = false;
	p->awaiting = false;
	p->now_finished = false;
	p->told.n = 0; /* what its follower passes over is new */
	if (handover)
		tell_passed(app, &p->now); /* their turn came with this track */
	p->now_started = true;
	p->cur_id = ev->id;
	p->stream_title[0] = '\0';
	p->counted = false;
	p->pos_ms = ev->pos_ms > 0 ? ev->pos_ms : 0; /* a resume starts at its offset */
	p->dur_ms = ev->dur_ms;
	p->stored_ms = stored_duration(app, ev->id);
	p->state = ev->state; /* paused when resumed paused */
	if (app->store && app->index)
		app_rules_track_started(app, ev->id);
	/* A station's name is known as it starts: the track's notice names it */
	take_station(app, ev->msg);
	notify(p, APP_PLAY_STARTED, ev->id, p->now.path, NULL);
}

/* The rule list's generation; 0 before it is opened. */
static unsigned rules_gen(struct app *app)
{
	return app->rules ? rules_generation(app->rules) : 0;
}

/* Whether a track's statistics changed (a rating, a play counted) since
 * the follower's settings were prepared, with rules that may read them
 * (`rating>=4`): without rules nothing prepared depends on them. */
static bool stats_changed_under_rules(struct app *app)
{
	struct app_play *p = player(app);
	return app->rules && rules_count(app->rules) > 0 && app->index &&
	       mlib_index_edits(app->index) != p->next_edits;
}

/* Tell the engine what follows the playing track. */
static void answer_next(struct app *app)
{
	struct app_play *p = player(app);
	bool gone;
	resync(app, &gone);
	struct request r = {0};
	struct pick pk = decide(app, p->cur, false, gone, true);
	if (p->next.seq)
		p->replaced = p->next;
	/* the lists as decided on: a change since is looked at again (none
	 * chosen included: an entry added after the last one plays next) */
	p->next_gen = app->store ? coll_store_generation(app->store) : 0;
	/* and the library: a file found missing or back is looked at again */
	p->next_index = app->index_serial;
	p->next_rules = rules_gen(app);
	p->next_edits = app->index ? mlib_index_edits(app->index) : 0;
	p->queue_at_end = false;
	p->passed_at_end.npassed = 0;
	if (!first_playable(app, pk, true, &r)) {
		p->queue_at_end = r.queue_passed;
		p->passed_at_end = r; /* said when the track ends */
		p->next.seq = 0;
		engine_set_next(p->engine, NULL);
		return;
	}
	r.seq = ++p->seq;
	p->next = r;
	struct engine_track t;
	fill_track(app, &r, &t);
	engine_set_next(p->engine, &t);
}

static void on_need_next(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	if (!is_now(p, ev))
		return; /* a replaced track's follower is moot */
	p->next_asked = true;
	answer_next(app);
}

/* Repeat or shuffle changed: the follower, when already chosen under the
 * old mode, is chosen again, so the change holds from this track's end
 * (as in cmus and MPD); the engine drops the one it had opened. */
static void redecide_next(struct app *app)
{
	struct app_play *p = player(app);
	if (p->engine && p->next_asked && p->state != ENGINE_STOPPED)
		answer_next(app);
}

/* id's length in the library, 0 when it has none. */
static int64_t stored_duration(struct app *app, uint32_t id)
{
	int prop = id && app->index ? mlib_index_prop(app->index, "duration") : -1;
	int64_t v = 0;
	return prop >= 0 && mlib_index_int_value(app->index, prop, id, &v) && v > 0 ? v : 0;
}

/* The length of the playing track to show, seek in and count by: the
 * library's (measured at scan when the header was doubtful, corrected when
 * playback found the true end) before the decoder's, which is what the
 * header claims (a truncated MP3's Xing header names the whole song). A
 * stream has none. */
static int64_t track_length(struct app *app, uint32_t id, int64_t decoder_ms)
{
	struct app_play *p = player(app);
	int64_t stored = app_is_stream_url(p->now.path) ? 0 : stored_duration(app, id);
	return stored > 0 ? stored : decoder_ms;
}

static void record_play(struct app *app, uint32_t id)
{
	struct app_play *p = player(app);
	struct crate_err err = {0};
	p->counted = true;
	if (app->db && app_record_play(app, id, (int64_t)time(NULL), &err) != 0)
		set_error(p, "%s", err.msg);
}

/* Lists changed since the follower was chosen, or found missing (an
 * entry removed or added, the queue edited, the list removed), or the
 * rules its settings were prepared under (a rule added, edited, removed,
 * here or by another program; a rating that brings a track under one):
 * it is chosen again before the hand-over, so that a rule's change holds
 * from the next track. */
static bool follower_stale(struct app *app)
{
	struct app_play *p = player(app);
	return p->next_asked &&
	       ((app->store && coll_store_generation(app->store) != p->next_gen) ||
		app->index_serial != p->next_index || rules_gen(app) != p->next_rules ||
		stats_changed_under_rules(app));
}

static void on_position(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	if (!is_now(p, ev))
		return;
	p->pos_ms = ev->pos_ms;
	p->dur_ms = ev->dur_ms;
	p->played_ms = ev->played_ms;
	if (ev->seek) { /* made: a refused one comes as an error instead */
		p->seek_to = ev->pos_ms;
		notify(p, APP_PLAY_SEEKED, ev->id, p->now.path, NULL);
	}
	if (follower_stale(app))
		answer_next(app);
	if (ev->played_ms > 0)
		p->failures = 0;
	if (p->counted || !ev->id)
		return;
	/* Heard, not reached: seeking past the middle does not count. */
	int64_t len = track_length(app, ev->id, ev->dur_ms);
	if ((len > 0 && ev->played_ms * 2 >= len) || ev->played_ms >= COUNT_AFTER_MS)
		record_play(app, ev->id);
}

/* Playback reached the true end of id at end_ms: a stored length that is
 * off (a header's estimate) is corrected. */
static void correct_duration(struct app *app, uint32_t id, int64_t end_ms)
{
	if (!id || end_ms <= 0 || !app->db || !app->index)
		return;
	int64_t stored = stored_duration(app, id);
	/* A scan changed it since the track started: the file was replaced
	 * (the player still reads the one it opened), and the scan measured
	 * the new one. */
	if (stored != player(app)->stored_ms)
		return;
	if (stored > 0) {
		int64_t diff = stored > end_ms ? stored - end_ms : end_ms - stored;
		if (diff <= 100 || diff * 100 <= end_ms)
			return; /* within 0.1 s or 1 %: encoder padding, rounding */
	}
	struct crate_err err = {0};
	if (app_correct_duration(app, id, end_ms, &err) != 0)
		set_error(player(app), "%s", err.msg);
}

/* The playing track (ev) ended: count it as played when enough was heard. */
static void count_finished(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	p->played_ms = ev->played_ms;
	/* A stream's end (a cut, a finite file served as one) says nothing
	 * of a length: it counts after four minutes heard, like a track of
	 * unknown length, and no duration is stored. */
	bool stream = app_is_stream_url(p->now.path);
	if (!stream) /* not after a seek past the end: its target is no length */
		correct_duration(app, ev->id, ev->end_ms);
	if (p->counted || !ev->id || ev->played_ms <= 0)
		return; /* no audio came out of it: not a play */
	if (stream) {
		if (ev->played_ms >= COUNT_AFTER_MS)
			record_play(app, ev->id);
		return;
	}
	/* At the end the true length is known (pos_ms), whatever the header said. */
	int64_t len = ev->pos_ms > 0 ? ev->pos_ms : ev->dur_ms;
	if (ev->played_ms * 2 >= len || ev->played_ms >= COUNT_AFTER_MS)
		record_play(app, ev->id);
}

/* Stop after too many failures in a row: every entry failed. */
static bool give_up(struct app *app)
{
	struct app_play *p = player(app);
	size_t n = list_len(app) + len_of(app, APP_QUEUE_NAME);
	if (++p->failures <= (n ? n : 1))
		return false;
	set_error(p, "stopped: no entry of %s could be played",
		  p->playlist ? p->playlist : "the list");
	return true;
}

/* Nothing more to try: playback ends, p->error saying why. */
static void stopped_on_failure(struct app_play *p)
{
	p->awaiting = false;
	p->now.seq = ++p->seq;
	p->next.seq = 0;
	p->state = ENGINE_STOPPED;
	notify(p, APP_PLAY_STOPPED, 0, NULL, p->error);
}

static void on_finished(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	if (!is_now(p, ev))
		return;
	p->now_finished = true;
	count_finished(app, ev);
	tell_passed(app, &p->passed_at_end); /* nothing followed: their turn is now */
	p->passed_at_end.npassed = 0;
	if (!p->queue_at_end || p->next.seq)
		return;
	/* No follower, queue entries without a file passed over: their turn
	 * is now. Those still without one are skipped (reported), one that
	 * is back plays. */
	bool gone;
	resync(app, &gone);
	struct crate_err err = {0};
	if (play_pick(app, decide(app, p->cur, false, gone, true), false, &err) != 0)
		stopped_on_failure(p);
}

/* Go on after the track of request r failed (committed: it had become
 * the playing one, so a queue entry of it is already popped). */
static void skip_failed(struct app *app, const struct request *r, bool committed)
{
	struct app_play *p = player(app);
	struct pick pk;
	if (!committed && (r->pick.kind == PICK_QUEUE || r->queue_passed))
		queue_take(app, r->pick.kind == PICK_QUEUE ? r->id : 0); /* their turn came */
	if (r->pick.kind == PICK_QUEUE) {
		pk = decide(app, p->cur, true, false, true);
	} else {
		pk = after_failed(app, &r->pick);
	}
	struct crate_err err = {0};
	p->counted = true; /* a failed track is neither played nor skipped */
	/* One asked to wait paused (next while paused, a resume) hands that
	 * on: the entry after it waits paused, as cmus keeps it paused. */
	p->keep_paused = r->paused;
	int rc = give_up(app) || pk.kind == PICK_NONE ? -1 : play_pick(app, pk, false, &err);
	p->keep_paused = false;
	if (rc != 0)
		stopped_on_failure(p);
}

/* Playback stopped (a stop, or the end): no track plays. */
static void playback_ended(struct app *app)
{
	struct app_play *p = player(app);
	p->state = ENGINE_STOPPED;
	p->cur_id = 0;
	p->now_started = false;
	p->awaiting = false;
	if (app->store && app->index)
		app_rules_track_started(app, 0);
	notify(p, APP_PLAY_STOPPED, 0, NULL, NULL);
}

/* A track could not be played: report it, skip to the entry after it. */
static void on_track_error(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	if (is_next(p, ev)) {
		/* The follower could not be opened: the engine stops after the
		 * playing track; go on after the follower. */
		set_error(p, "%s", ev->msg);
		notify(p, APP_PLAY_FAILED, ev->id, p->next.path, ev->msg);
		struct request r = p->next;
		p->next.seq = 0;
		tell_passed(app, &r);
		skip_failed(app, &r, false);
		return;
	}
	if (!is_now(p, ev))
		return;
	p->awaiting = false;
	if (ev->seq == p->stopped_seq) {
		/* The stop broke a wait (a station connecting): no failure,
		 * nothing to skip to. The engine may say "stopped" after. */
		p->now.seq = ++p->seq;
		p->next.seq = 0;
		playback_ended(app);
		return;
	}
	set_error(p, "%s", ev->msg);
	notify(p, APP_PLAY_FAILED, ev->id, p->now.path, ev->msg);
	/* Broke off mid-way with a follower set: the engine goes on to it.
	 * One that broke off before a sound was heard counts toward giving
	 * up, or a list of such tracks under repeat loops for ever (a partial
	 * MP4 whose header promises minutes: thousands of starts a second). */
	if (p->now_started && p->next.seq) {
		if (p->played_ms > 0 || !give_up(app))
			return;
		p->counted = true;
		engine_stop(p->engine);
		stopped_on_failure(p);
		return;
	}
	struct request r = p->now;
	skip_failed(app, &r, true);
}

static void on_state(struct app *app, const struct engine_event *ev)
{
	struct app_play *p = player(app);
	if (ev->seq && ev->seq < p->now.seq)
		return; /* about a track that was replaced */
	bool was = p->state != ENGINE_STOPPED;
	enum engine_state before = p->state;
	p->state = ev->state;
	if (before == ENGINE_PLAYING && ev->state == ENGINE_PAUSED)
		notify(p, APP_PLAY_PAUSED, p->cur_id, p->now.path, NULL);
	else if (before == ENGINE_PAUSED && ev->state == ENGINE_PLAYING)
		notify(p, APP_PLAY_RESUMED, p->cur_id, p->now.path, NULL);
	/* A stop asked while the track was still on its way (a station
	 * connecting, the play not taken yet): it never started, and this
	 * "stopped" is all the engine says of it. */
	if (ev->state == ENGINE_STOPPED &&
	    (was || (p->awaiting && ev->seq == p->now.seq && ev->seq == p->stopped_seq)))
		playback_ended(app);
}

int app_play_handle_events(struct app *app)
{
	struct app_play *p = player(app);
	if (!p->engine)
		return 0;
	int handled = 0;
	struct engine_event ev;
	while (engine_next_event(p->engine, &ev)) {
		handled++;
		switch (ev.type) {
		case ENGINE_EV_STARTED: on_started(app, &ev); break;
		case ENGINE_EV_NEED_NEXT: on_need_next(app, &ev); break;
		case ENGINE_EV_POSITION: on_position(app, &ev); break;
		case ENGINE_EV_FINISHED: on_finished(app, &ev); break;
		case ENGINE_EV_STATE: on_state(app, &ev); break;
		case ENGINE_EV_TITLE:
			if (!is_now(p, &ev))
				break; /* a title of a stream that was replaced */
			snprintf(p->stream_title, sizeof p->stream_title, "%s", ev.msg);
			notify(p, APP_PLAY_TITLE, p->cur_id, p->now.path, ev.msg);
			break;
		case ENGINE_EV_STATION:
			if (!is_now(p, &ev))
				break;
			take_station(app, ev.msg);
			break;
		case ENGINE_EV_ERROR:
			if (ev.seek) {
				/* The track plays on: said, not skipped. */
				if (is_now(p, &ev))
					set_error(p, "%s", ev.msg);
			} else if (ev.device) {
				if (ev.seq && ev.seq < p->now.seq)
					break;
				/* what was handed to the engine will not start
				 * without a device: no longer shown as asked */
				p->awaiting = false;
				set_error(p, "%s", ev.msg);
				notify(p, APP_PLAY_DEVICE, 0, NULL, ev.msg);
				if (p->state == ENGINE_STOPPED) /* it never started */
					notify(p, APP_PLAY_STOPPED, 0, NULL, NULL);
			} else {
				on_track_error(app, &ev);
			}
			break;
		}
	}
	return handled;
}

/* ---- commands ---- */

void app_play_set_listener(struct app *app, app_play_listener fn, void *ud)
{
	struct app_play *p = player(app);
	p->listener = fn;
	p->listener_ud = ud;
}

void app_play_add_observer(struct app *app, app_play_listener fn, void *ud)
{
	struct app_play *p = player(app);
	for (int i = 0; i < APP_PLAY_OBSERVERS; i++)
		if (!p->observers[i].fn) {
			p->observers[i].fn = fn;
			p->observers[i].ud = ud;
			return;
		}
}

void app_play_remove_observer(struct app *app, app_play_listener fn, void *ud)
{
	if (!app->play)
		return;
	for (int i = 0; i < APP_PLAY_OBSERVERS; i++)
		if (app->play->observers[i].fn == fn && app->play->observers[i].ud == ud)
			app->play->observers[i].fn = NULL;
}

int app_play_collection(struct app *app, const char *ns, const char *name, size_t start_pos,
			struct crate_err *err)
{
	if (!app->store)
		return crate_err_set(err, CRATE_ERR_INVALID, "no collection store");
	if (strcmp(ns, COLL_NS_PLAYLISTS) != 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "%s/%s: only playlists (Playlists/...) can be played", ns, name);
	const struct coll_node *n = coll_store_get(app->store, ns, name);
	if (!n)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "%s/%s does not exist", ns, name);
	if (!coll_type_is_list(n))
		return crate_err_set(err, CRATE_ERR_INVALID, "%s/%s is not a list", ns, name);
	struct app_play *p = player(app);
	if (!get_engine(app, err))
		return -1;
	char *list = xstrdup(name); /* name may live in a node the store replaces */
	/* Refused before the list becomes the context and the active
	 * playlist: what plays, and what follows it, stay as they were. */
	int rc = list_prepare(app, list, start_pos, err);
	size_t len = len_of(app, list);
	if (rc == 0 && len == 0)
		rc = crate_err_set(err, CRATE_ERR_INVALID, "%s/%s is empty%s", ns, list,
				   is_party(app, list) ? PARTY_DRY : "");
	else if (rc == 0 && start_pos >= len) /* entries are numbered from 1 where people see them */
		rc = crate_err_set(err, CRATE_ERR_INVALID, "%s/%s has no entry %zu (%zu %s)", ns,
				   list, start_pos + 1, len, str_plural(len, "entry", "entries"));
	else if (rc == 0 && !list_can_start(app, list, start_pos))
		rc = crate_err_set(err, CRATE_ERR_NOTFOUND,
				   "%s/%s has nothing to play: none of its entries has a file",
				   ns, list);
	if (rc == 0)
		rc = list_activate(app, list, err);
	if (rc == 0) {
		p->error[0] = 0;
		rc = play_entry(app, start_pos, err);
	}
	free(list);
	return rc;
}

int app_play_list(struct app *app, const uint32_t *ids, const char *const *paths, size_t n,
		  size_t start, struct crate_err *err)
{
	if (n == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to play");
	if (start != APP_PLAY_ANY && start >= n)
		return crate_err_set(err, CRATE_ERR_INVALID, "the list has no entry %zu (%zu %s)",
				     start + 1, n, str_plural(n, "entry", "entries"));
	/* Refused before the switch too (list_can_start): an entry has a
	 * file when it names one or the library has its id. */
	bool playable = false;
	for (size_t i = start_walk_from(app, true, start == APP_PLAY_ANY ? 0 : start);
	     i < n && !playable; i++)
		playable = (paths && paths[i]) ||
			   (ids && ids[i] && app->index && mlib_index_has_media(app->index, ids[i]));
	if (!playable)
		return crate_err_set(err, CRATE_ERR_NOTFOUND,
				     "nothing to play: none of the list's entries has a file");
	struct app_play *p = player(app);
	if (!get_engine(app, err))
		return -1;
	adhoc_clear(p);
	free(p->playlist);
	p->playlist = NULL;
	p->has_context = true;
	p->adhoc_paths = xcalloc(n, sizeof *p->adhoc_paths);
	for (size_t i = 0; i < n; i++) {
		u32vec_push(&p->adhoc_ids, ids ? ids[i] : 0);
		if (paths && paths[i])
			p->adhoc_paths[i] = xstrdup(paths[i]);
	}
	context_reset(p);
	p->error[0] = 0;
	if (start == APP_PLAY_ANY && p->shuffle != APP_SHUFFLE_OFF) {
		struct pick pk = decide(app, NONE, true, false, false);
		return play_pick(app, pk, true, err);
	}
	return play_entry(app, start == APP_PLAY_ANY ? 0 : start, err);
}

/* Playlists/Queue, created as a queue list when missing; NULL with *err. */
static const struct coll_node *queue_get(struct app *app, struct crate_err *err)
{
	if (!app->store)
		return crate_err_set(err, CRATE_ERR_INVALID, "no collection store"), NULL;
	const struct coll_node *q = coll_store_get(app->store, COLL_NS_PLAYLISTS, APP_QUEUE_NAME);
	if (q && !coll_type_is_list(q))
		return crate_err_set(err, CRATE_ERR_INVALID, "Playlists/%s is not a list",
				     APP_QUEUE_NAME),
		       NULL;
	if (!q) {
		if (app_playlist_new_typed(app, APP_QUEUE_NAME, "queue", err) != 0)
			return NULL;
		q = coll_store_get(app->store, COLL_NS_PLAYLISTS, APP_QUEUE_NAME);
	}
	return q;
}

int app_play_enqueue(struct app *app, const uint32_t *ids, size_t n, struct crate_err *err)
{
	struct app_play *p = player(app);
	const struct coll_node *q = queue_get(app, err);
	if (!q)
		return -1;
	bool was_empty = q->idlist.n == 0;
	/* Recorded: u takes back what e added. */
	if (coll_store_playlist_insert_undoable(app->store, APP_QUEUE_NAME, q->idlist.n, ids, n,
						err) != 0)
		return -1;
	/* The follower was chosen from the context, or none was (the list's
	 * last track playing, repeat off): the queue comes first now. */
	if (was_empty && (!p->next.seq || p->next.pick.kind != PICK_QUEUE))
		redecide_next(app);
	return 0;
}

/* Play the queue with no list to go on with (none, or an empty one), as
 * next already did; "nothing to play" when it is empty too. */
static int play_queue_alone(struct app *app, struct crate_err *err)
{
	if (!queue_applies(app))
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to play");
	struct pick pk = {.kind = PICK_QUEUE, .pos = 0};
	return play_pick(app, pk, true, err);
}

/* The list (not a queue or Party Shuffle) played to its end (repeat
 * off): its last track, or a queued one played after it, ended with none
 * to follow (the caller has seen that none follows a queued one). */
static bool plain_list_ended(struct app *app)
{
	struct app_play *p = player(app);
	bool plain = !p->playlist || !pops(app, p->playlist);
	return plain && p->now_finished && p->cur != NONE && p->cur < list_len(app);
}

/* Play after a plain list played to its end: an entry added after the
 * last one heard (one the library has), as cmus goes on to it; else the
 * list from its top, as MPD plays from its first song (it played the
 * last track again, alone). */
static size_t after_the_end(struct app *app)
{
	struct app_play *p = player(app);
	for (size_t pos = p->cur + 1; pos < list_len(app); pos++) {
		struct pick pk = {.kind = PICK_CONTEXT, .pos = pos};
		struct request r;
		struct crate_err err = {0};
		if (make_request(app, &pk, &r, &err))
			return pos;
	}
	return 0;
}

/* Play after a shuffled list ended starts a new cycle, as repeat all would
 * go on (not its last track again, alone): the entry it leads with. */
static size_t new_shuffle_cycle(struct app *app)
{
	struct app_play *p = player(app);
	shuffle_forget_ended(p);
	shuffle_rebuild(app, NONE, p->cur);
	return p->order.n ? p->order.v[0] : 0;
}

int app_play_toggle(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	if (p->engine && p->state != ENGINE_STOPPED) {
		engine_toggle(p->engine);
		return 0;
	}
	p->error[0] = 0; /* why it stopped is said; it starts again */
	if (p->queued_waits && queue_applies(app)) {
		struct pick q = {.kind = PICK_QUEUE, .pos = 0};
		return play_pick(app, q, true, err);
	}
	if (p->has_context && (!p->playlist || named_list(app, p->playlist))) {
		bool gone;
		resync(app, &gone);
		size_t n = list_len(app);
		if (n == 0)
			return play_queue_alone(app, err);
		if (p->from_queue && p->now.path[0]) {
			/* The queue played last. Stopped during its track: that
			 * track again, as a stopped entry plays again. Played to
			 * its end (stop_after_queue): on as the queue's end would
			 * have gone, the context's entry after the one heard
			 * before the queue, not that one again. */
			struct pick pk = {.kind = PICK_AGAIN};
			if (p->now_finished)
				pk = decide(app, p->cur, true, gone, true);
			if (pk.kind != PICK_NONE)
				return play_pick(app, pk, true, err);
		}
		if (plain_list_ended(app)) {
			/* What was queued since comes first, as it would have
			 * while the list played (cmus plays its queue so). */
			if (queue_applies(app))
				return play_queue_alone(app, err);
			return play_entry(app, p->shuffle != APP_SHUFFLE_OFF ? new_shuffle_cycle(app)
									   : after_the_end(app),
					  err);
		}
		return play_entry(app, p->cur == NONE || p->cur >= n ? 0 : p->cur, err);
	}
	if (!app->store)
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to play");
	const char *active = coll_store_active_playlist(app->store);
	const struct coll_node *n = active ? coll_store_get(app->store, COLL_NS_PLAYLISTS, active)
					   : NULL;
	if ((!n || n->idlist.n == 0) && len_of(app, APP_QUEUE_NAME) > 0)
		return play_queue_alone(app, err); /* e on a fresh start, then play */
	if (!n)
		return crate_err_set(err, CRATE_ERR_NOTFOUND, "no active playlist");
	size_t pos = (size_t)attr_long(n, "position", 0);
	return app_play_collection(app, COLL_NS_PLAYLISTS, active,
				   pos < n->idlist.n ? pos : 0, err);
}

int app_play_stop(struct app *app, struct crate_err *err)
{
	(void)err;
	struct app_play *p = player(app);
	if (p->engine)
		engine_stop(p->engine);
	p->stopped_seq = p->now.seq;
	leave_current(app, false);
	return 0;
}

/* Nothing played yet in this process (a fresh start without a saved
 * context): next and prev start where play would, the active list at its
 * entry, or say alike why nothing can (next did nothing, exit 0). */
static bool nothing_to_step_from(struct app *app)
{
	struct app_play *p = player(app);
	return !p->has_context && !p->from_queue && p->state == ENGINE_STOPPED;
}

static int step_next(struct app *app, struct crate_err *err);
static int step_prev(struct app *app, struct crate_err *err);

/* next or prev (step) as the user pressed it: while paused the track it
 * goes to waits paused at its start, as cmus and the MPRIS specification
 * have it (it started playing). */
static int step_keeping_pause(struct app *app, int (*step)(struct app *, struct crate_err *),
			      struct crate_err *err)
{
	struct app_play *p = player(app);
	p->keep_paused = p->engine && p->state == ENGINE_PAUSED;
	int rc = step(app, err);
	p->keep_paused = false;
	return rc;
}

int app_play_next(struct app *app, struct crate_err *err)
{
	return step_keeping_pause(app, step_next, err);
}

int app_play_prev(struct app *app, struct crate_err *err)
{
	return step_keeping_pause(app, step_prev, err);
}

static int step_next(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	if (nothing_to_step_from(app) && !queue_applies(app)) /* the queue comes first */
		return app_play_toggle(app, err);
	bool gone;
	resync(app, &gone);
	struct pick pk = decide(app, p->cur, true, gone, true);
	if (pk.kind == PICK_NONE) {
		/* Stopping says why, as a list's end says nothing at all. */
		if (p->has_context) /* repeat all wraps but in a queue or Party Shuffle */
			set_error(p, "end of %s: nothing follows%s",
				  p->playlist ? p->playlist : "the list", why_nothing_follows(app));
		else
			set_error(p, "nothing to play next");
		/* Already stopped: nothing is stopped, so the command fails,
		 * said (crate remote next exited 0 without a word). A track
		 * still opening (a station connecting) is stopped, as one
		 * playing is: it connected on, and was shown playing. */
		if (p->state == ENGINE_STOPPED && !p->awaiting)
			return crate_err_set(err, CRATE_ERR_INVALID, "%s", p->error);
		leave_current(app, true);
		app_play_stop(app, err);
		return 0;
	}
	return play_pick(app, pk, true, err);
}

static int step_prev(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	if (nothing_to_step_from(app))
		return app_play_toggle(app, err);
	bool gone;
	resync(app, &gone);
	if (list_len(app) == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "nothing to play");
	size_t pv = p->from_queue ? p->cur : prev_pos(app, p->cur);
	/* Entries without a file are passed going back, or the walk forward
	 * from one (first_playable) came back to the track that plays. */
	char buf[1024];
	size_t tries = list_len(app);
	while (pv != NONE && pv != p->cur && tries-- > 0 &&
	       !path_of(app, p->playlist, pv, buf, sizeof buf))
		pv = prev_pos(app, pv);
	if (pv == p->cur && !p->from_queue)
		pv = NONE;
	/* At the start: the track starts again. Not replaced, so not a skip. */
	bool restart = pv == NONE && p->cur != NONE;
	if (pv == NONE)
		pv = p->cur == NONE ? 0 : p->cur;
	struct pick pk = {.kind = PICK_CONTEXT, .pos = pv};
	return play_pick(app, pk, !restart, err);
}

int app_play_seek(struct app *app, int64_t ms, bool relative, struct crate_err *err)
{
	struct engine *e = get_engine(app, err);
	if (!e)
		return -1;
	/* Said (APP_PLAY_SEEKED) when the engine has made it (on_position):
	 * a station refuses it, and MPRIS clients were told of a jump that
	 * never happened. */
	engine_seek(e, ms, relative);
	return 0;
}

/* The playing track is a station that cannot seek (the engine found it
 * so when it opened): said now, to crate remote seek and :seek, not only
 * later in the status (crate remote seek exited 0, without a word). */
static bool cannot_seek(struct app *app, struct crate_err *err)
{
	struct app_play *p = player(app);
	if (!p->engine || p->awaiting || !p->now_started)
		return false;
	struct engine_status es;
	engine_get_status(p->engine, &es);
	if (!es.cannot_seek || es.id != p->cur_id)
		return false;
	set_error(p, "%s: this stream cannot seek (the server offers no ranges)", p->now.path);
	crate_err_set(err, CRATE_ERR_INVALID, "%s", p->error);
	return true;
}

int app_play_seek_arg(struct app *app, const char *arg, struct crate_err *err)
{
	struct seekarg sa;
	if (seekarg_parse(arg, &sa, err) != 0)
		return -1;
	struct app_play_status st;
	app_play_status(app, &st);
	if (cannot_seek(app, err))
		return -1;
	if (sa.kind == SEEKARG_PERCENT && st.dur_ms <= 0)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "seek: %s needs the track's length, which is unknown", arg);
	if (sa.kind == SEEKARG_REL)
		return app_play_seek(app, sa.ms, true, err);
	return app_play_seek(app, seekarg_target_ms(&sa, 0, st.dur_ms), false, err);
}

int app_play_volume(struct app *app, int value, bool relative, struct crate_err *err)
{
	struct app_play *p = player(app);
	long long v = relative ? (long long)p->volume + value : value; /* no int overflow */
	p->volume = v < 0 ? 0 : v > 100 ? 100 : (int)v;
	struct engine *e = get_engine(app, err);
	if (!e)
		return -1;
	engine_set_volume(e, p->volume);
	notify(p, APP_PLAY_VOLUME, 0, NULL, NULL);
	return 0;
}

int app_play_volume_arg(struct app *app, const char *arg, struct crate_err *err)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (!*arg || *end || end == arg)
		return crate_err_set(err, CRATE_ERR_INVALID, "vol: '%s' is not a number", arg);
	/* A number past the range is refused, never cut to an int. */
	if (errno || v < -100 || v > 100)
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "vol: %s is not a volume (0-100, +N or -N)", arg);
	bool rel = arg[0] == '+' || arg[0] == '-';
	return app_play_volume(app, (int)v, rel, err);
}

void app_play_lists_changed(struct app *app)
{
	if (!app->play || !app->play->has_context)
		return;
	bool gone;
	resync(app, &gone);
}

void app_play_set_repeat(struct app *app, enum app_repeat mode)
{
	struct app_play *p = player(app);
	if (p->repeat == mode)
		return;
	p->repeat = mode;
	redecide_next(app);
}

void app_play_set_shuffle_mode(struct app *app, enum app_shuffle mode)
{
	struct app_play *p = player(app);
	if (p->shuffle == mode)
		return;
	p->shuffle = mode;
	p->order.n = 0;
	shuffle_forget_ended(p);
	if (mode != APP_SHUFFLE_OFF && p->cur != NONE)
		shuffle_rebuild(app, p->cur, NONE);
	redecide_next(app);
}

void app_play_set_shuffle(struct app *app, bool on)
{
	app_play_set_shuffle_mode(app, on ? APP_SHUFFLE_TRACKS : APP_SHUFFLE_OFF);
}

int app_repeat_parse(const char *s)
{
	if (strcmp(s, "off") == 0)
		return APP_REPEAT_OFF;
	if (strcmp(s, "all") == 0)
		return APP_REPEAT_ALL;
	if (strcmp(s, "one") == 0)
		return APP_REPEAT_ONE;
	return -1;
}

const char *app_repeat_name(enum app_repeat r)
{
	return r == APP_REPEAT_ALL ? "all" : r == APP_REPEAT_ONE ? "one" : "off";
}

int app_shuffle_parse(const char *s)
{
	if (strcmp(s, "off") == 0 || strcmp(s, "false") == 0 || strcmp(s, "no") == 0)
		return APP_SHUFFLE_OFF;
	if (strcmp(s, "tracks") == 0 || strcmp(s, "on") == 0 || strcmp(s, "true") == 0 ||
	    strcmp(s, "yes") == 0)
		return APP_SHUFFLE_TRACKS;
	if (strcmp(s, "albums") == 0)
		return APP_SHUFFLE_ALBUMS;
	return -1;
}

const char *app_shuffle_name(enum app_shuffle m)
{
	return m == APP_SHUFFLE_TRACKS ? "tracks" : m == APP_SHUFFLE_ALBUMS ? "albums" : "off";
}

int app_play_event_fd(struct app *app, struct crate_err *err)
{
	struct engine *e = get_engine(app, err);
	return e ? engine_event_fd(e) : -1;
}

/* The context's entry status shows: where the list's marker holds it now
 * (an edit while paused or stopped moved it, and p->cur follows only at
 * the player's next event), else p->cur. */
static size_t entry_shown(struct app *app)
{
	struct app_play *p = player(app);
	if (p->cur == NONE)
		return 0;
	size_t at = marked_entry(app, list_len(app));
	return at != NONE ? at : p->cur;
}

/* The status into st, from the engine's status *es (read here; zeroed
 * without an engine), so that a caller judges it on the same reading. */
static void status_read(struct app *app, struct app_play_status *st, struct engine_status *es)
{
	struct app_play *p = player(app);
	memset(st, 0, sizeof *st);
	memset(es, 0, sizeof *es);
	st->volume = p->volume;
	st->repeat = p->repeat;
	st->shuffle = p->shuffle != APP_SHUFFLE_OFF;
	st->shuffle_mode = p->shuffle;
	st->dur_ms = -1;
	if (p->engine) {
		engine_get_status(p->engine, es);
		st->state = es->state;
		st->id = es->id;
		st->pos_ms = es->pos_ms;
		st->dur_ms = track_length(app, es->id, es->dur_ms);
		if (es->state != ENGINE_STOPPED) {
			snprintf(st->path, sizeof st->path, "%s", p->now.path);
			snprintf(st->title, sizeof st->title, "%s", p->stream_title);
			snprintf(st->station, sizeof st->station, "%s", p->station);
		}
	}
	if (p->playlist)
		snprintf(st->playlist, sizeof st->playlist, "%s", p->playlist);
	st->has_context = p->has_context;
	st->position = entry_shown(app);
	st->context_len = list_len(app);
	/* Of the track that plays: stopped, none does (after the queue ran
	 * out under stop_after_queue, status said "from: queue" over nothing). */
	st->from_queue = p->from_queue && p->state != ENGINE_STOPPED;
	st->next_id = p->next.seq ? p->next.id : 0;
	if (p->next.seq)
		snprintf(st->next_path, sizeof st->next_path, "%s", p->next.path);
	snprintf(st->error, sizeof st->error, "%s", p->error);
}

void app_play_status(struct app *app, struct app_play_status *st)
{
	struct engine_status es;
	status_read(app, st, &es);
}

void app_play_status_shown(struct app *app, struct app_play_status *st)
{
	struct engine_status es;
	status_read(app, st, &es);
	struct app_play *p = player(app);
	if (!p->engine || !p->awaiting || p->now.seq == p->stopped_seq)
		return;
	/* The engine reports the track before until the one asked for opens:
	 * its state, and its station's name and title, are not this one's. */
	if (st->state != ENGINE_STOPPED && es.seq == p->now.seq)
		return;
	/* Handed to the engine, neither started nor failed yet (a station
	 * connecting, a resume at start-up): shown as it is asked to play,
	 * as MPD says "play" while it buffers; it said "stopped", or named
	 * the track before, frozen, for as long as the station took. */
	st->title[0] = st->station[0] = '\0';
	st->state = p->now.paused ? ENGINE_PAUSED : ENGINE_PLAYING;
	st->id = p->now.id;
	st->pos_ms = p->now.start_ms;
	st->dur_ms = track_length(app, p->now.id, -1);
	snprintf(st->path, sizeof st->path, "%s", p->now.path);
	st->opening = true;
}

/* The temporary list into r: its ids, and the files its entries name by
 * their path (with no id, a path is all there is to play again). */
static void resume_get_adhoc(const struct app_play *p, struct app_play_resume *r)
{
	size_t n = p->adhoc_ids.n;
	r->paths = xcalloc(n ? n : 1, sizeof *r->paths);
	r->npaths = n;
	for (size_t i = 0; i < n; i++) {
		u32vec_push(&r->ids, p->adhoc_ids.v[i]);
		if (p->adhoc_paths && p->adhoc_paths[i])
			r->paths[i] = xstrdup(p->adhoc_paths[i]);
	}
}

void app_play_resume_free(struct app_play_resume *r)
{
	u32vec_free(&r->ids);
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i]);
	free(r->paths);
	r->paths = NULL;
	r->npaths = 0;
}

void app_play_get_resume(struct app *app, struct app_play_resume *r)
{
	struct app_play *p = player(app);
	memset(r, 0, sizeof *r);
	r->volume = p->volume;
	r->repeat = p->repeat;
	r->shuffle = p->shuffle;
	r->has_context = p->has_context;
	if (p->playlist)
		snprintf(r->playlist, sizeof r->playlist, "%s", p->playlist);
	else if (p->has_context)
		resume_get_adhoc(p, r);
	/* Not 0 before the context's first entry: the context would go on
	 * after entry 0 and skip it (a queued track played first). */
	r->entry = p->cur == NONE ? APP_PLAY_NO_ENTRY : p->cur;
	r->entry_id = p->cur == NONE ? 0 : p->cur_entry_id;
	if (p->engine) {
		struct engine_status es;
		engine_get_status(p->engine, &es);
		r->state = es.state;
		r->pos_ms = es.state != ENGINE_STOPPED ? es.pos_ms : 0;
	}
	/* The offset is the queued track's, not the context entry's; with
	 * no context (next before anything played) it is all there is. */
	if (p->from_queue && r->state != ENGINE_STOPPED)
		r->queued = p->now.id;
	/* Stopped during a queued track: play plays it again (toggle), after
	 * a restart too; played to its end, the context goes on instead. */
	if (p->from_queue && r->state == ENGINE_STOPPED && !p->now_finished && p->now.id)
		r->queued = p->now.id;
}

/* Put the queued track that played back at the queue's head, where it
 * was before it started. */
static int queue_put_back(struct app *app, uint32_t id, struct crate_err *err)
{
	if (!queue_get(app, err))
		return -1;
	return coll_store_playlist_insert(app->store, APP_QUEUE_NAME, 0, &id, 1, err);
}

/* The entry of the resumed context (just activated) to play: r's, or,
 * when the list was edited since it was saved (`crate playlist add` while
 * crate was closed), where r's track is now. *lost: it left the list; the
 * entry that took its place is returned and the offset is not its. */
static size_t resume_entry(struct app *app, const struct app_play_resume *r, bool *lost)
{
	struct app_play *p = player(app);
	*lost = false;
	if (r->entry == APP_PLAY_NO_ENTRY || !r->entry_id || !p->playlist)
		return r->entry;
	p->cur = r->entry;
	p->cur_entry_id = r->entry_id;
	resync(app, lost);
	size_t entry = p->cur;
	p->cur = NONE; /* as the activation left it: nothing of it played */
	p->cur_entry_id = 0;
	return entry;
}

/* Stopped during a queued track when crate quit: the track goes back to
 * the queue's head, and play plays it, as before the restart. */
static int resume_queued_stopped(struct app *app, uint32_t id, struct crate_err *err)
{
	if (queue_put_back(app, id, err) != 0)
		return -1;
	player(app)->queued_waits = true;
	return 0;
}

int app_play_resume(struct app *app, const struct app_play_resume *r, bool play,
		    struct crate_err *err)
{
	struct app_play *p = player(app);
	p->volume = r->volume < 0 ? 0 : r->volume > 100 ? 100 : r->volume;
	p->repeat = r->repeat;
	p->shuffle = r->shuffle;
	if (p->engine)
		engine_set_volume(p->engine, p->volume);
	bool queued = r->queued && r->state != ENGINE_STOPPED;
	bool queued_stopped = r->queued && r->state == ENGINE_STOPPED;
	if (!r->has_context) {
		if (queued_stopped)
			return resume_queued_stopped(app, r->queued, err);
		/* A queued track started before any context: it alone plays again. */
		if (!queued)
			return 0;
		if (!get_engine(app, err))
			return -1;
	} else if (r->playlist[0]) {
		if (!named_list(app, r->playlist))
			return crate_err_set(err, CRATE_ERR_NOTFOUND,
					     "cannot resume Playlists/%s: it no longer exists",
					     r->playlist);
		size_t start = r->entry == APP_PLAY_NO_ENTRY ? 0 : r->entry;
		if (!get_engine(app, err) || list_activate(app, r->playlist, err) != 0 ||
		    list_prepare(app, r->playlist, start, err) != 0)
			return -1;
	} else {
		if (!r->ids.n || !get_engine(app, err))
			return r->ids.n ? -1 : 0;
		adhoc_clear(p);
		free(p->playlist);
		p->playlist = NULL;
		p->has_context = true;
		for (size_t i = 0; i < r->ids.n; i++)
			u32vec_push(&p->adhoc_ids, r->ids.v[i]);
		p->adhoc_paths = xcalloc(r->ids.n, sizeof *p->adhoc_paths);
		for (size_t i = 0; i < r->ids.n && i < r->npaths; i++)
			if (r->paths[i])
				p->adhoc_paths[i] = xstrdup(r->paths[i]);
		context_reset(p);
	}
	size_t n = list_len(app);
	bool lost = false;
	size_t entry = r->has_context ? resume_entry(app, r, &lost) : r->entry;
	if (r->state == ENGINE_STOPPED || n == 0 || queued) {
		p->cur = entry < n ? entry : NONE;
		p->cur_entry_id = p->cur != NONE ? id_of(app, p->playlist, p->cur) : 0;
	}
	if (queued_stopped)
		return resume_queued_stopped(app, r->queued, err);
	if (r->state == ENGINE_STOPPED || (n == 0 && !queued))
		return 0;
	/* The track that played, at its offset: paused unless asked to play.
	 * A queued one plays from the queue again (commit pops it), and the
	 * context goes on after its entry (at its first when none played). */
	struct pick pk = {.kind = PICK_CONTEXT, .pos = entry < n ? entry : 0};
	if (queued) {
		if (queue_put_back(app, r->queued, err) != 0)
			return -1;
		pk = (struct pick){.kind = PICK_QUEUE, .pos = 0}; /* put back at its head */
	}
	struct request req = {0};
	if (!make_request(app, &pk, &req, err)) {
		if (queued)
			queue_pop(app, r->queued);
		return -1;
	}
	req.seq = ++p->seq;
	/* play: what was playing plays on; what the user paused stays so. */
	req.paused = !play || r->state == ENGINE_PAUSED;
	leave_current(app, false);
	commit(app, &req);
	p->now = req;
	p->awaiting = true;
	struct engine_track t;
	fill_track(app, &req, &t);
	t.start_ms = r->pos_ms > 0 && !(lost && !queued) ? r->pos_ms : 0;
	/* A stream has no offsets: a station goes on live, where an offset
	 * would be read through first (as long as it was listened to) or
	 * fail, a seek in a stream that cannot seek. */
	if (app_is_stream_url(req.path))
		t.start_ms = 0;
	t.paused = req.paused;
	p->now.start_ms = t.start_ms;
	engine_play(p->engine, &t);
	return 0;
}

void app_play_close(struct app *app)
{
	struct app_play *p = app->play;
	if (!p)
		return;
	if (p->engine)
		p->engine_free(p->engine);
	app->engine = NULL;
	adhoc_clear(p);
	u32vec_free(&p->order);
	u32vec_free(&p->told);
	u32vec_free(&p->order_ids);
	free(p->bad);
	u32vec_free(&p->ended.order);
	free(p->ended.bad);
	free(p->playlist);
	free(p);
	app->play = NULL;
}
