/* MPRIS over sd-bus (see app_mpris.h). Method calls become app_play_*
 * calls, exactly as keys in the interface would; notices from app_play
 * become PropertiesChanged and Seeked signals. Position is read when asked
 * (MPRIS does not signal it). */
#include "app/app_mpris.h"

#ifndef CRATE_HAVE_MPRIS

struct app_mpris *app_mpris_open(struct app *app)
{
	(void)app;
	return NULL;
}

void app_mpris_close(struct app_mpris *m)
{
	(void)m;
}

int app_mpris_fd(struct app_mpris *m, short *events, int *timeout_ms)
{
	(void)m;
	*events = 0;
	*timeout_ms = -1;
	return -1;
}

void app_mpris_process(struct app_mpris *m)
{
	(void)m;
}

#else

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "app/app.h"
#include "app/app_play.h"
#include "app/app_stream.h"
#include "base/str.h"
#include "medialib/index.h"

#define OBJ "/org/mpris/MediaPlayer2"
#define IFACE_ROOT "org.mpris.MediaPlayer2"
#define IFACE_PLAYER "org.mpris.MediaPlayer2.Player"
#define NO_TRACK "/org/mpris/MediaPlayer2/TrackList/NoTrack"

struct app_mpris {
	struct app *app;
	sd_bus *bus;
	sd_bus_slot *slot_root, *slot_player;
};

static const char *status_text(struct app *app)
{
	struct app_play_status st;
	app_play_status_shown(app, &st);
	return st.state == ENGINE_PLAYING ? "Playing" : st.state == ENGINE_PAUSED ? "Paused" : "Stopped";
}

/* ---- properties ---- */

static int prop_bool(sd_bus *bus, const char *path, const char *iface, const char *prop,
		     sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)e;
	struct app_mpris *m = ud;
	struct app_play_status st;
	app_play_status(m->app, &st);
	int v = 1;
	if (strcmp(prop, "CanQuit") == 0 || strcmp(prop, "CanRaise") == 0 ||
	    strcmp(prop, "HasTrackList") == 0 || strcmp(prop, "CanSetFullscreen") == 0 ||
	    strcmp(prop, "Fullscreen") == 0)
		v = 0;
	else if (strcmp(prop, "CanSeek") == 0)
		v = st.state != ENGINE_STOPPED && st.dur_ms > 0;
	else if (strcmp(prop, "Shuffle") == 0)
		v = st.shuffle;
	return sd_bus_message_append(reply, "b", v);
}

static int prop_identity(sd_bus *bus, const char *path, const char *iface, const char *prop,
			 sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)ud, (void)e;
	if (strcmp(prop, "DesktopEntry") == 0)
		return sd_bus_message_append(reply, "s", "crate");
	return sd_bus_message_append(reply, "s", "crate");
}

static int prop_schemes(sd_bus *bus, const char *path, const char *iface, const char *prop,
			sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)ud, (void)e;
	/* None: OpenUri is refused (crate plays its library), and the
	 * specification reads empty lists as "OpenUri is not supported";
	 * "file" and audio types made clients offer to open files with it. */
	return sd_bus_message_append(reply, "as", 0);
}

static int prop_status(sd_bus *bus, const char *path, const char *iface, const char *prop,
		       sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)e;
	struct app_mpris *m = ud;
	return sd_bus_message_append(reply, "s", status_text(m->app));
}

static int prop_loop(sd_bus *bus, const char *path, const char *iface, const char *prop,
		     sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)e;
	struct app_mpris *m = ud;
	struct app_play_status st;
	app_play_status(m->app, &st);
	return sd_bus_message_append(reply, "s", st.repeat == APP_REPEAT_ONE   ? "Track"
						 : st.repeat == APP_REPEAT_ALL ? "Playlist"
									       : "None");
}

static int set_loop(sd_bus *bus, const char *path, const char *iface, const char *prop,
		    sd_bus_message *value, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)prop;
	struct app_mpris *m = ud;
	const char *s;
	int r = sd_bus_message_read(value, "s", &s);
	if (r < 0)
		return r;
	enum app_repeat mode;
	if (strcmp(s, "None") == 0)
		mode = APP_REPEAT_OFF;
	else if (strcmp(s, "Track") == 0)
		mode = APP_REPEAT_ONE;
	else if (strcmp(s, "Playlist") == 0)
		mode = APP_REPEAT_ALL;
	else
		return sd_bus_error_setf(e, SD_BUS_ERROR_INVALID_ARGS, "unknown LoopStatus '%s'", s);
	app_play_set_repeat(m->app, mode);
	return sd_bus_emit_properties_changed(bus, OBJ, IFACE_PLAYER, "LoopStatus", NULL);
}

static int set_shuffle(sd_bus *bus, const char *path, const char *iface, const char *prop,
		       sd_bus_message *value, void *ud, sd_bus_error *e)
{
	(void)path, (void)iface, (void)prop, (void)e;
	struct app_mpris *m = ud;
	int b;
	int r = sd_bus_message_read(value, "b", &b);
	if (r < 0)
		return r;
	app_play_set_shuffle(m->app, b != 0);
	return sd_bus_emit_properties_changed(bus, OBJ, IFACE_PLAYER, "Shuffle", NULL);
}

static int prop_double(sd_bus *bus, const char *path, const char *iface, const char *prop,
		       sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)e;
	struct app_mpris *m = ud;
	if (strcmp(prop, "Volume") == 0) {
		struct app_play_status st;
		app_play_status(m->app, &st);
		return sd_bus_message_append(reply, "d", st.volume / 100.0);
	}
	return sd_bus_message_append(reply, "d", 1.0); /* Rate, MinimumRate, MaximumRate */
}

static int set_volume(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *value, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)prop;
	struct app_mpris *m = ud;
	double v;
	int r = sd_bus_message_read(value, "d", &v);
	if (r < 0)
		return r;
	if (!(v == v)) /* NaN */
		return sd_bus_error_setf(e, SD_BUS_ERROR_INVALID_ARGS, "Volume is not a number");
	struct crate_err err = {0};
	int pct = v <= 0 ? 0 : v >= 1 ? 100 : (int)(v * 100 + 0.5);
	if (app_play_volume(m->app, pct, false, &err) != 0)
		return sd_bus_error_setf(e, SD_BUS_ERROR_FAILED, "%s", err.msg);
	return 0; /* the VOLUME notice signals the change */
}

static int prop_rate_set(sd_bus *bus, const char *path, const char *iface, const char *prop,
			 sd_bus_message *value, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)ud, (void)e;
	double v;
	return sd_bus_message_read(value, "d", &v); /* only 1.0 is supported: ignored */
}

static int prop_position(sd_bus *bus, const char *path, const char *iface, const char *prop,
			 sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)e;
	struct app_mpris *m = ud;
	struct app_play_status st;
	app_play_status(m->app, &st);
	return sd_bus_message_append(reply, "x", (int64_t)(st.state ? st.pos_ms : 0) * 1000);
}

static void trackid(uint32_t id, char *buf, size_t size)
{
	if (id)
		snprintf(buf, size, "/org/crate/track/%" PRIu32, id);
	else
		snprintf(buf, size, "%s", NO_TRACK);
}

/* A string-list entry of the metadata from a multi-valued property. */
static int meta_list(sd_bus_message *r, const struct mlib_index *idx, uint32_t id,
		     const char *prop, const char *key)
{
	int p = mlib_index_prop(idx, prop);
	const uint32_t *vids;
	size_t n = p >= 0 ? mlib_index_str_values(idx, p, id, &vids) : 0;
	if (!n)
		return 0;
	int rc = sd_bus_message_open_container(r, 'e', "sv");
	rc = rc < 0 ? rc : sd_bus_message_append(r, "s", key);
	rc = rc < 0 ? rc : sd_bus_message_open_container(r, 'v', "as");
	rc = rc < 0 ? rc : sd_bus_message_open_container(r, 'a', "s");
	for (size_t i = 0; i < n && rc >= 0; i++)
		rc = sd_bus_message_append(r, "s", mlib_index_dict_text(idx, p, vids[i]));
	rc = rc < 0 ? rc : sd_bus_message_close_container(r);
	rc = rc < 0 ? rc : sd_bus_message_close_container(r);
	return rc < 0 ? rc : sd_bus_message_close_container(r);
}

static int meta_string(sd_bus_message *r, const char *key, const char *v)
{
	return v ? sd_bus_message_append(r, "{sv}", key, "s", v) : 0;
}

/* D-Bus strings must be valid UTF-8: tag text that is not is left out. */
static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2
			: (*p & 0xf8) == 0xf0 ? 3 : -1;
		if (n < 0 || (n == 1 && *p < 0xc2))
			return false;
		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xc0) != 0x80)
				return false;
	}
	return true;
}

/* xesam:url: a stream's own URL; a file's path as a file:// URI,
 * percent-encoded byte by byte, so a name that is not UTF-8 has one too. */
static int meta_url(sd_bus_message *r, const char *path)
{
	if (app_is_stream_url(path))
		return meta_string(r, "xesam:url", utf8_ok(path) ? path : NULL);
	struct strbuf u;
	strbuf_init(&u, 256);
	strbuf_adds(&u, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			strbuf_addc(&u, (char)*p);
		else
			strbuf_addf(&u, "%%%02X", *p);
	int rc = meta_string(r, "xesam:url", u.buf);
	strbuf_free(&u);
	return rc;
}

static int prop_metadata(sd_bus *bus, const char *path, const char *iface, const char *prop,
			 sd_bus_message *reply, void *ud, sd_bus_error *e)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)e;
	struct app_mpris *m = ud;
	struct app_play_status st;
	app_play_status_shown(m->app, &st);
	int rc = sd_bus_message_open_container(reply, 'a', "{sv}");
	if (rc < 0 || st.state == ENGINE_STOPPED)
		return rc < 0 ? rc : sd_bus_message_close_container(reply);
	char tid[64];
	trackid(st.id, tid, sizeof tid);
	rc = sd_bus_message_append(reply, "{sv}", "mpris:trackid", "o", tid);
	if (rc >= 0 && st.dur_ms > 0)
		rc = sd_bus_message_append(reply, "{sv}", "mpris:length", "x", (int64_t)st.dur_ms * 1000);
	if (rc >= 0 && st.path[0])
		rc = meta_url(reply, st.path);
	const struct mlib_index *idx = m->app->index;
	if (rc >= 0 && st.title[0] && utf8_ok(st.title)) /* a stream's ICY title */
		rc = meta_string(reply, "xesam:title", st.title);
	else if (rc >= 0 && !st.id && st.station[0] && utf8_ok(st.station))
		rc = meta_string(reply, "xesam:title", st.station); /* a stream played by its URL */
	else if (rc >= 0 && st.id && idx && mlib_index_has_media(idx, st.id)) {
		char buf[64];
		const char *t = mlib_index_get_text(idx, st.id, "title", buf, sizeof buf);
		const char *al = mlib_index_get_text(idx, st.id, "album", buf, sizeof buf);
		if (!t && st.station[0]) /* a stream with no title: its station's name */
			t = st.station;
		rc = meta_string(reply, "xesam:title", t && utf8_ok(t) ? t : NULL);
		rc = rc < 0 ? rc : meta_string(reply, "xesam:album", al && utf8_ok(al) ? al : NULL);
		static const struct {
			const char *prop, *key;
		} lists[] = {{"artist", "xesam:artist"},
			     {"albumartist", "xesam:albumArtist"},
			     {"genre", "xesam:genre"},
			     {"composer", "xesam:composer"}};
		for (size_t i = 0; i < sizeof lists / sizeof *lists && rc >= 0; i++) {
			int p = mlib_index_prop(idx, lists[i].prop);
			const uint32_t *vids;
			size_t n = p >= 0 ? mlib_index_str_values(idx, p, st.id, &vids) : 0;
			bool ok = true;
			for (size_t k = 0; k < n; k++)
				ok = ok && utf8_ok(mlib_index_dict_text(idx, p, vids[k]));
			if (ok)
				rc = meta_list(reply, idx, st.id, lists[i].prop, lists[i].key);
		}
		char num[32];
		const char *nr = mlib_index_get_text(idx, st.id, "tracknr", num, sizeof num);
		if (rc >= 0 && nr)
			rc = sd_bus_message_append(reply, "{sv}", "xesam:trackNumber", "i",
						   (int32_t)strtol(nr, NULL, 10));
	}
	return rc < 0 ? rc : sd_bus_message_close_container(reply);
}

/* ---- methods ---- */

static int reply_err(sd_bus_message *msg, int rc, const struct crate_err *err)
{
	if (rc == 0)
		return sd_bus_reply_method_return(msg, NULL);
	return sd_bus_reply_method_errorf(msg, SD_BUS_ERROR_FAILED, "%s", err->msg);
}

static int m_noop(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	(void)ud, (void)e;
	return sd_bus_reply_method_return(msg, NULL);
}

/* Next and Previous with nowhere to go (the list's end, nothing to play)
 * have no effect, as the specification says, not an error: a media key
 * (playerctl next) would print a failure for what is no fault. The player
 * keeps the reason in its status (the interface shows it). */
static int m_next(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	(void)e;
	struct app_mpris *m = ud;
	struct crate_err err = {0};
	app_play_next(m->app, &err);
	return sd_bus_reply_method_return(msg, NULL);
}

static int m_previous(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	(void)e;
	struct app_mpris *m = ud;
	struct crate_err err = {0};
	app_play_prev(m->app, &err);
	return sd_bus_reply_method_return(msg, NULL);
}

static int m_playpause(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	(void)e;
	struct app_mpris *m = ud;
	struct crate_err err = {0};
	return reply_err(msg, app_play_toggle(m->app, &err), &err);
}

/* Play and Pause act only when they change something (PlayPause toggles). */
static int m_play(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	struct app_mpris *m = ud;
	struct app_play_status st;
	app_play_status(m->app, &st);
	return st.state == ENGINE_PLAYING ? m_noop(msg, ud, e) : m_playpause(msg, ud, e);
}

static int m_pause(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	struct app_mpris *m = ud;
	struct app_play_status st;
	app_play_status(m->app, &st);
	return st.state == ENGINE_PLAYING ? m_playpause(msg, ud, e) : m_noop(msg, ud, e);
}

static int m_stop(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	(void)e;
	struct app_mpris *m = ud;
	struct crate_err err = {0};
	return reply_err(msg, app_play_stop(m->app, &err), &err);
}

static int m_seek(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	(void)e;
	struct app_mpris *m = ud;
	int64_t us;
	int r = sd_bus_message_read(msg, "x", &us);
	if (r < 0)
		return r;
	struct app_play_status st;
	app_play_status(m->app, &st);
	if (st.state == ENGINE_STOPPED)
		return sd_bus_reply_method_return(msg, NULL);
	struct crate_err err = {0};
	return reply_err(msg, app_play_seek(m->app, us / 1000, true, &err), &err);
}

static int m_set_position(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	(void)e;
	struct app_mpris *m = ud;
	const char *tid;
	int64_t us;
	int r = sd_bus_message_read(msg, "ox", &tid, &us);
	if (r < 0)
		return r;
	struct app_play_status st;
	app_play_status(m->app, &st);
	char cur[64];
	trackid(st.id, cur, sizeof cur);
	/* The spec: ignored when the track is not the current one or the
	 * position is outside it. */
	if (st.state == ENGINE_STOPPED || strcmp(tid, cur) != 0 || us < 0 ||
	    (st.dur_ms > 0 && us / 1000 > st.dur_ms))
		return sd_bus_reply_method_return(msg, NULL);
	struct crate_err err = {0};
	return reply_err(msg, app_play_seek(m->app, us / 1000, false, &err), &err);
}

static int m_open_uri(sd_bus_message *msg, void *ud, sd_bus_error *e)
{
	(void)ud, (void)e;
	return sd_bus_reply_method_errorf(msg, SD_BUS_ERROR_NOT_SUPPORTED,
					  "crate plays what its library and playlists hold");
}

static const sd_bus_vtable root_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Raise", "", "", m_noop, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Quit", "", "", m_noop, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_PROPERTY("CanQuit", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("CanRaise", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("HasTrackList", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Identity", "s", prop_identity, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("DesktopEntry", "s", prop_identity, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("SupportedUriSchemes", "as", prop_schemes, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("SupportedMimeTypes", "as", prop_schemes, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_VTABLE_END,
};

static const sd_bus_vtable player_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Next", "", "", m_next, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Previous", "", "", m_previous, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Pause", "", "", m_pause, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("PlayPause", "", "", m_playpause, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Stop", "", "", m_stop, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Play", "", "", m_play, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Seek", "x", "", m_seek, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("SetPosition", "ox", "", m_set_position, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("OpenUri", "s", "", m_open_uri, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL("Seeked", "x", 0),
	SD_BUS_PROPERTY("PlaybackStatus", "s", prop_status, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_WRITABLE_PROPERTY("LoopStatus", "s", prop_loop, set_loop, 0,
				 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_WRITABLE_PROPERTY("Rate", "d", prop_double, prop_rate_set, 0,
				 SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_WRITABLE_PROPERTY("Shuffle", "b", prop_bool, set_shuffle, 0,
				 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_PROPERTY("Metadata", "a{sv}", prop_metadata, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_WRITABLE_PROPERTY("Volume", "d", prop_double, set_volume, 0,
				 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_PROPERTY("Position", "x", prop_position, 0, 0),
	SD_BUS_PROPERTY("MinimumRate", "d", prop_double, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("MaximumRate", "d", prop_double, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("CanGoNext", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("CanGoPrevious", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("CanPlay", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("CanPause", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("CanSeek", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("CanControl", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_VTABLE_END,
};

/* ---- notices -> signals ---- */

static void on_notice(void *ud, const struct app_play_notice *n)
{
	struct app_mpris *m = ud;
	switch (n->type) {
	case APP_PLAY_STARTED:
		sd_bus_emit_properties_changed(m->bus, OBJ, IFACE_PLAYER, "PlaybackStatus", "Metadata",
					       "CanSeek", NULL);
		break;
	case APP_PLAY_TITLE:
		sd_bus_emit_properties_changed(m->bus, OBJ, IFACE_PLAYER, "Metadata", NULL);
		break;
	case APP_PLAY_PAUSED:
	case APP_PLAY_RESUMED:
		sd_bus_emit_properties_changed(m->bus, OBJ, IFACE_PLAYER, "PlaybackStatus", NULL);
		break;
	case APP_PLAY_STOPPED:
		sd_bus_emit_properties_changed(m->bus, OBJ, IFACE_PLAYER, "PlaybackStatus", "Metadata",
					       "CanSeek", NULL);
		break;
	case APP_PLAY_SEEKED:
		sd_bus_emit_signal(m->bus, OBJ, IFACE_PLAYER, "Seeked", "x", (int64_t)n->pos_ms * 1000);
		break;
	case APP_PLAY_VOLUME:
		sd_bus_emit_properties_changed(m->bus, OBJ, IFACE_PLAYER, "Volume", NULL);
		break;
	case APP_PLAY_FAILED:
	case APP_PLAY_DEVICE:
		break;
	}
	sd_bus_flush(m->bus);
}

struct app_mpris *app_mpris_open(struct app *app)
{
	if (!config_get_bool(app->cfg, "mpris.enable", true))
		return NULL;
	sd_bus *bus = NULL;
	/* No session bus (SSH, a bare console): silently no MPRIS. */
	if (sd_bus_open_user(&bus) < 0)
		return NULL;
	struct app_mpris *m = xcalloc(1, sizeof *m);
	m->app = app;
	m->bus = bus;
	if (sd_bus_add_object_vtable(bus, &m->slot_root, OBJ, IFACE_ROOT, root_vtable, m) < 0 ||
	    sd_bus_add_object_vtable(bus, &m->slot_player, OBJ, IFACE_PLAYER, player_vtable, m) < 0)
		goto fail;
	if (sd_bus_request_name(bus, "org.mpris.MediaPlayer2.crate", 0) < 0) {
		char name[96];
		snprintf(name, sizeof name, "org.mpris.MediaPlayer2.crate.instance%ld", (long)getpid());
		if (sd_bus_request_name(bus, name, 0) < 0)
			goto fail;
	}
	app_play_add_observer(app, on_notice, m);
	return m;
fail:
	app_mpris_close(m);
	return NULL;
}

void app_mpris_close(struct app_mpris *m)
{
	if (!m)
		return;
	app_play_remove_observer(m->app, on_notice, m);
	sd_bus_slot_unref(m->slot_root);
	sd_bus_slot_unref(m->slot_player);
	sd_bus_flush_close_unref(m->bus);
	free(m);
}

int app_mpris_fd(struct app_mpris *m, short *events, int *timeout_ms)
{
	*events = 0;
	*timeout_ms = -1;
	if (!m)
		return -1;
	int ev = sd_bus_get_events(m->bus);
	*events = (short)(ev > 0 ? ev : POLLIN);
	uint64_t usec;
	if (sd_bus_get_timeout(m->bus, &usec) >= 0 && usec != UINT64_MAX) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
		*timeout_ms = usec <= now ? 0 : (int)((usec - now + 999) / 1000);
	}
	return sd_bus_get_fd(m->bus);
}

void app_mpris_process(struct app_mpris *m)
{
	if (!m)
		return;
	/* Bounded: a flood of calls cannot hold the main loop. */
	for (int i = 0; i < 64 && sd_bus_process(m->bus, NULL) > 0; i++) {
	}
}

#endif
