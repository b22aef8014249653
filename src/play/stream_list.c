/* Radio playlists (see stream_list.h). */
#include "play/stream_list.h"

#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "base/utf8.h"
#include "medialib/plfile.h"
#include "play/decoder.h"

/* url's path with no query or fragment, for the name it ends with; owned. */
static char *url_path(const char *url)
{
	return xstrndup(url, strcspn(url, "?#"));
}

bool stream_list_named(const char *url)
{
	char *path = url_path(url);
	bool named = plfile_format_of_name(path) != PLFILE_UNKNOWN;
	free(path);
	return named;
}

/* The playlist format a Content-Type announces (parameters ignored). */
static enum plfile_format format_of_mime(const char *mime)
{
	static const struct {
		const char *type;
		enum plfile_format fmt;
	} types[] = {
		{"audio/x-scpls", PLFILE_PLS},          {"audio/scpls", PLFILE_PLS},
		{"application/pls+xml", PLFILE_PLS},    {"audio/x-mpegurl", PLFILE_M3U},
		{"audio/mpegurl", PLFILE_M3U},          {"application/x-mpegurl", PLFILE_M3U},
		{"application/vnd.apple.mpegurl", PLFILE_M3U}, {"application/xspf+xml", PLFILE_XSPF},
	};
	size_t n = mime ? strcspn(mime, "; ") : 0;
	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		if (n == strlen(types[i].type) && strncasecmp(mime, types[i].type, n) == 0)
			return types[i].fmt;
	return PLFILE_UNKNOWN;
}

bool stream_list_mime(const char *mime)
{
	return format_of_mime(mime) != PLFILE_UNKNOWN;
}

/* Up to STREAM_LIST_MAX bytes of url's body into *data (owned, NUL
 * ended) and its Content-Type into *mime (owned, NULL for none). */
static int fetch(const char *url, const AVIOInterruptCB *cb, char **data, size_t *len,
		 char **mime, struct crate_err *err)
{
	AVIOContext *pb = NULL;
	AVDictionary *opts = NULL;
	av_dict_set(&opts, "rw_timeout", "15000000", 0);
	av_dict_set(&opts, "user_agent", "crate/" CRATE_VERSION, 0);
	int r = avio_open2(&pb, url, AVIO_FLAG_READ, cb, &opts);
	av_dict_free(&opts);
	if (r < 0) {
		char e[128];
		av_strerror(r, e, sizeof e);
		return crate_err_set(err, CRATE_ERR_MEDIA, "%s: cannot fetch the playlist: %s", url, e);
	}
	uint8_t *m = NULL;
	*mime = av_opt_get(pb, "mime_type", AV_OPT_SEARCH_CHILDREN, &m) >= 0 && m
			? xstrdup((const char *)m)
			: NULL;
	av_free(m);
	*data = xmalloc(STREAM_LIST_MAX + 1);
	*len = 0;
	while (*len < STREAM_LIST_MAX) {
		int n = avio_read(pb, (unsigned char *)*data + *len, (int)(STREAM_LIST_MAX - *len));
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	(*data)[*len] = '\0';
	avio_closep(&pb);
	return 0;
}

/* The format data has as a radio playlist, PLFILE_UNKNOWN when it is not
 * one: an HLS playlist (#EXT-X- tags) is FFmpeg's to play. */
static enum plfile_format list_format(const char *url, bool named, const char *mime,
				      const char *data, size_t len)
{
	char *path = url_path(url);
	enum plfile_format fmt = plfile_format_detect(named ? path : "", data, len);
	free(path);
	if (fmt == PLFILE_UNKNOWN)
		fmt = format_of_mime(mime);
	if (fmt == PLFILE_M3U && strstr(data, "#EXT-X-"))
		return PLFILE_UNKNOWN;
	return fmt;
}

void stream_list_free(struct stream_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->url[i]);
		free(l->title[i]);
	}
	l->n = 0;
}

/* url's scheme and authority, "http://host:8000" (owned), and into *dir
 * (owned) the folder of its path, "/radio" for /radio/listen.m3u: what a
 * relative entry of the playlist at url is resolved against. */
static char *url_origin(const char *url, char **dir)
{
	char *path = url_path(url);
	const char *auth = strstr(path, "://");
	const char *slash = auth ? strchr(auth + 3, '/') : NULL;
	char *origin = xstrndup(path, slash ? (size_t)(slash - path) : strlen(path));
	const char *last = slash ? strrchr(slash, '/') : NULL;
	*dir = last && last > slash ? xstrndup(slash, (size_t)(last - slash)) : xstrdup("/");
	free(path);
	return origin;
}

/* origin followed by path (an entry of the playlist resolved on the
 * server: "/live", or "stream.mp3" beside the playlist), its spaces and
 * control characters percent-encoded as a request sends them; owned. */
static char *url_on_server(const char *origin, const char *path)
{
	struct strbuf b;
	strbuf_init(&b, strlen(origin) + strlen(path) + 1);
	strbuf_adds(&b, origin);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p <= 0x20 || *p == 0x7f)
			strbuf_addf(&b, "%%%02X", *p);
		else
			strbuf_addc(&b, (char)*p);
	}
	return strbuf_steal(&b);
}

/* pl's http(s) entries into out; a location without a scheme is on the
 * playlist's server (origin), as RFC 3986 resolves a relative reference
 * against the playlist's URL: a remote playlist never names a local file
 * to open, and its "/live" or "stream.mp3" was dropped as one. */
static void list_streams(const struct plfile *pl, const char *origin, struct stream_list *out)
{
	for (size_t i = 0; i < pl->n && out->n < STREAM_LIST_TRIES; i++) {
		const struct plfile_entry *e = &pl->v[i];
		bool on_server = !e->problem && e->location[0] == '/';
		if (e->problem || (!on_server && !decoder_is_stream_url(e->location)))
			continue;
		out->url[out->n] = on_server ? url_on_server(origin, e->location) : xstrdup(e->location);
		out->title[out->n] = !e->title ? NULL
				     : utf8_valid(e->title, strlen(e->title))
					 ? xstrdup(e->title)
					 : utf8_from_latin1(e->title, strlen(e->title), NULL);
		out->n++;
	}
}

int stream_list_read(const char *url, const AVIOInterruptCB *cb, bool named,
		     struct stream_list *out, struct crate_err *err)
{
	memset(out, 0, sizeof *out);
	char *data = NULL, *mime = NULL;
	size_t len = 0;
	struct crate_err ferr = {0};
	if (fetch(url, cb, &data, &len, &mime, &ferr) != 0) {
		if (!named) /* not known to be a playlist: the stream's own error says more */
			return 0;
		*err = ferr;
		return -1;
	}
	enum plfile_format fmt = list_format(url, named, mime, data, len);
	free(mime);
	if (fmt == PLFILE_UNKNOWN || memchr(data, '\0', len)) { /* audio, not a list */
		free(data);
		return 0;
	}
	struct plfile pl = {0};
	struct crate_err perr = {0};
	char *dir, *origin = url_origin(url, &dir);
	int rc = plfile_parse(fmt, data, len, dir, &pl, &perr);
	free(data);
	if (rc == 0)
		list_streams(&pl, origin, out);
	free(origin);
	free(dir);
	if (!out->n)
		rc = crate_err_set(err, CRATE_ERR_MEDIA,
				   "%s: the playlist lists no http(s) stream to play", url);
	plfile_free(&pl);
	return rc;
}
