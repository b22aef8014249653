/* Radio playlists: what a station publishes as its address is often a
 * small playlist (listen.pls, .m3u, .m3u8 that is not HLS, or a server
 * answering with audio/x-scpls or audio/x-mpegurl) naming the stream(s)
 * to play, which FFmpeg cannot decode. This fetches such a playlist
 * (bounded in size and time) and gives its first http(s) stream, as MPD
 * and cmus play it. */
#ifndef CRATE_PLAY_STREAM_LIST_H
#define CRATE_PLAY_STREAM_LIST_H

#include <stdbool.h>

#include <libavformat/avio.h>

#include "base/err.h"

/* The most of a playlist read: a station's is a few hundred bytes. */
#define STREAM_LIST_MAX (64 * 1024)

/* Whether url's path names a playlist (.pls, .m3u, .m3u8, .xspf). */
bool stream_list_named(const char *url);

/* Whether a Content-Type is a playlist's (audio/x-scpls, audio/x-mpegurl,
 * application/xspf+xml ...; parameters ignored). */
bool stream_list_mime(const char *mime);

/* Fetch url and, when it is a radio playlist (by name when named, else by
 * its Content-Type or contents), set *listed (owned) to the first http(s)
 * stream it lists and *title (owned, NULL for none; untrusted, UTF-8) to
 * that entry's name. *listed stays NULL when url is no such playlist (an
 * audio stream, an HLS playlist, or not fetched when not named): it plays
 * as it is. Errors: a named playlist cannot be fetched, or a playlist
 * lists nothing playable. cb ends the waits (stop, timeout). */
int stream_list_first(const char *url, const AVIOInterruptCB *cb, bool named, char **listed,
		      char **title, struct crate_err *err);

#endif
