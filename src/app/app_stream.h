/* Internet radio and other http(s) streams as library items: a media row
 * whose url is the stream's URL, never scanned as a file (no tags, no
 * duration), so playlists, the queue and statistics treat it like any
 * other item. Playback (reconnects, ICY titles) is the decoder's. */
#ifndef CRATE_APP_APP_STREAM_H
#define CRATE_APP_APP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"

/* True for an http:// or https:// URL. */
bool app_is_stream_url(const char *s);
/* The item for url, made when new (the index is reloaded then). title
 * (NULL: none) is the name a playlist file gives the stream: it becomes
 * the item's title when the item has none yet. */
int app_stream_item(struct app *app, const char *url, const char *title, uint32_t *id,
		    struct crate_err *err);
/* The playing stream item id's server named its station (icy-name):
 * when the item has no title, the name becomes its title (written now,
 * the index rebuilt in the background: app_changes_check). */
void app_stream_name_station(struct app *app, uint32_t id, const char *station);
/* Insert the stream into Playlists/name (NULL: the active playlist) before
 * pos (SIZE_MAX: at the end). */
int app_playlist_add_stream(struct app *app, const char *name, size_t pos, const char *url,
			    struct crate_err *err);

#endif
