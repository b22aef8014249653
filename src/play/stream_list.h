/* Radio playlists: what a station publishes as its address is often a
 * small playlist (listen.pls, .m3u, .m3u8 that is not HLS, or a server
 * answering with audio/x-scpls or audio/x-mpegurl) naming the stream(s)
 * to play, which FFmpeg cannot decode. This fetches such a playlist
 * (bounded in size and time) and gives the http(s) streams it lists, to
 * be tried in turn as MPD plays them. */
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

/* The most of a playlist's streams tried in turn: stations list a few
 * mirrors of one stream. */
#define STREAM_LIST_TRIES 8

/* The http(s) streams a radio playlist lists, in its order. */
struct stream_list {
	size_t n;
	char *url[STREAM_LIST_TRIES];   /* owned */
	char *title[STREAM_LIST_TRIES]; /* owned; NULL: none (untrusted, UTF-8) */
};
void stream_list_free(struct stream_list *l);

/* Fetch url and, when it is a radio playlist (by name when named, else by
 * its Content-Type or contents), fill *out with the http(s) streams it
 * lists (the first STREAM_LIST_TRIES) and their names. out->n stays 0
 * when url is no such playlist (an audio stream, an HLS playlist, or not
 * fetched when not named): it plays as it is. Errors: a named playlist
 * cannot be fetched, or a playlist lists nothing playable. cb ends the
 * waits (stop, timeout). */
int stream_list_read(const char *url, const AVIOInterruptCB *cb, bool named,
		     struct stream_list *out, struct crate_err *err);

#endif
