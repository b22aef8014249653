/* FFmpeg decode path: demux (libavformat), decode (libavcodec), convert
 * (libswresample) into a small buffer that decoder_read() drains. */
#include "play/decoder.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/time.h>
#include <libswresample/swresample.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/safeopen.h"
#include "base/utf8.h"
#include "play/stream_list.h"

/* Consecutive bad packets/frames after which the rest of the file is
 * treated as missing (a garbage tail must not spin forever). */
#define MAX_CONSECUTIVE_ERRORS 200

struct decoder {
	char *path;
	AVFormatContext *fmt;
	AVCodecContext *ctx;
	int sidx;
	AVPacket *pkt;
	AVFrame *frame;
	bool have_frame;     /* frame holds decoded samples not yet converted */
	bool pkt_pending;    /* pkt was refused with EAGAIN; resend it */
	bool flushing;       /* NULL packet sent: draining the decoder */
	bool eof;
	bool gave_up;        /* eof came from too many errors, not the file's end */

	SwrContext *swr;     /* converts frames of in_* to out */
	int in_sfmt, in_rate;
	AVChannelLayout in_layout;
	struct play_format out, native;

	uint8_t *buf;        /* converted frames [buf_off, buf_frames) */
	size_t buf_cap_frames, buf_frames, buf_off;

	int64_t base_ms;     /* position of pos_frames == 0 (start or seek target) */
	int64_t pos_frames;  /* frames returned since base */
	int64_t seek_num;    /* drop decoded audio before seek_num / seek_den s; -1 none */
	int64_t seek_den;

	/* A range of the file (a cue sheet's track): samples [range_start,
	 * range_end) at the native rate, range_end 0 for the end of the file.
	 * Positions and seeks are relative to range_start; range_pos counts
	 * the output frames from range_start to the next one read. */
	bool ranged;
	int64_t range_start, range_end, range_pos;

	unsigned skipped;
	int consecutive;
	int last_averr;
	bool produced;

	/* Streams (http/https): a deadline for each blocking FFmpeg call and
	 * the last ICY title seen. */
	bool stream;
	const atomic_int *stop; /* set by another thread: give up waiting now */
	int64_t deadline_us;
	bool stalled;           /* deadline_us passed: the stream is dead, not ended */
	char *icy_seen; /* owned: the raw icy_metadata_packet last parsed */
	char title[512];
	bool title_new;
	char station[256]; /* the station's name (icy-name header), UTF-8; "" none */
	bool station_new;
};

bool decoder_is_stream_url(const char *path)
{
	return strncasecmp(path, "http://", 7) == 0 || strncasecmp(path, "https://", 8) == 0;
}

/* How long a stream may send nothing before it counts as dead. */
#define STREAM_STALL_US (15 * 1000000LL)

static int stream_interrupt(void *opaque)
{
	struct decoder *d = opaque;
	if (d->stop && atomic_load(d->stop))
		return 1;
	/* Sticky: FFmpeg's error is, and a later read must not take the
	 * broken-off stream for a clean end. */
	if (d->deadline_us && av_gettime_relative() > d->deadline_us)
		d->stalled = true;
	return d->stalled;
}

/* Whether the stream gave up waiting: crate's deadline passed, or
 * FFmpeg's own read timeout (rw_timeout, as long) came first, which a
 * loaded machine can make it do. Either is a dead stream, never its end. */
static bool stream_gave_up(struct decoder *d, int r)
{
	if (d->stream && (r == AVERROR(ETIMEDOUT) ||
			  (d->fmt && d->fmt->pb && d->fmt->pb->error == AVERROR(ETIMEDOUT))))
		d->stalled = true;
	return d->stalled;
}

static int stream_timed_out(const struct decoder *d, struct crate_err *err)
{
	return crate_err_set(err, CRATE_ERR_MEDIA, "%s: timed out: no data for %lld s", d->path,
			     STREAM_STALL_US / 1000000);
}

/* ICY metadata ("StreamTitle='Artist - Title';StreamUrl='...';") that
 * FFmpeg's http protocol keeps on the I/O context: a new title is noted
 * for decoder_stream_title. */
static void poll_icy(struct decoder *d)
{
	uint8_t *meta = NULL;
	if (!d->fmt->pb ||
	    av_opt_get(d->fmt->pb, "icy_metadata_packet", AV_OPT_SEARCH_CHILDREN, &meta) < 0 || !meta)
		return;
	const char *m = (const char *)meta;
	if (d->icy_seen && strcmp(d->icy_seen, m) == 0) {
		av_free(meta);
		return;
	}
	free(d->icy_seen);
	d->icy_seen = xstrdup(m);
	const char *t = strstr(m, "StreamTitle='");
	if (t) {
		t += 13;
		const char *end = strstr(t, "';");
		size_t n = end ? (size_t)(end - t) : strlen(t);
		if (n && t[n - 1] == '\'' && !end)
			n--;
		/* Not UTF-8: Latin-1, as most such stations send (and as a
		 * playlist's names are read). */
		char *u = utf8_valid(t, n) ? xstrndup(t, n) : utf8_from_latin1(t, n, NULL);
		size_t un = strlen(u);
		if (un >= sizeof d->title) { /* cut at a character's start */
			un = sizeof d->title - 1;
			while (un && ((unsigned char)u[un] & 0xc0) == 0x80)
				un--;
		}
		memcpy(d->title, u, un);
		d->title[un] = '\0';
		free(u);
		d->title_new = true;
	}
	av_free(meta);
}

/* The station's name from the icy-name header FFmpeg's http protocol
 * keeps (icy_metadata_headers: "icy-name: Radio X\n..."), as UTF-8 (a
 * name that is not UTF-8 is read as Latin-1, as a playlist's names are). */
static void read_station_name(struct decoder *d)
{
	uint8_t *hdrs = NULL;
	d->station[0] = '\0';
	if (!d->fmt || !d->fmt->pb ||
	    av_opt_get(d->fmt->pb, "icy_metadata_headers", AV_OPT_SEARCH_CHILDREN, &hdrs) < 0 ||
	    !hdrs)
		return;
	for (const char *line = (const char *)hdrs; *line;) {
		size_t n = strcspn(line, "\r\n");
		if (n > 9 && strncasecmp(line, "icy-name:", 9) == 0) {
			const char *v = line + 9;
			size_t vn = n - 9;
			while (vn && (*v == ' ' || *v == '\t'))
				v++, vn--;
			while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
				vn--;
			char *u = utf8_valid(v, vn) ? xstrndup(v, vn) : utf8_from_latin1(v, vn, NULL);
			snprintf(d->station, sizeof d->station, "%s", u);
			free(u);
			break;
		}
		line += n;
		line += strspn(line, "\r\n");
	}
	av_free(hdrs);
	d->station_new = d->station[0] != '\0';
}

bool decoder_station_name(struct decoder *d, char *buf, size_t size)
{
	if (!d->stream || !d->station_new)
		return false;
	d->station_new = false;
	snprintf(buf, size, "%s", d->station);
	return true;
}

bool decoder_stream_title(struct decoder *d, char *buf, size_t size)
{
	if (!d->stream || !d->title_new)
		return false;
	d->title_new = false;
	snprintf(buf, size, "%s", d->title);
	return true;
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;

/* Library code never prints: FFmpeg's own log would go to stderr. */
static void quiet_ffmpeg_log(void)
{
	av_log_set_level(AV_LOG_QUIET);
}

static const char *averr(int e, char *buf, size_t n)
{
	av_strerror(e, buf, n);
	return buf;
}

/* An empty file is said as such, as the scan says it, rather than as
 * whatever FFmpeg makes of no bytes. */
static bool file_is_empty(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_size == 0;
}

static enum play_sfmt sfmt_from_av(int f)
{
	switch (f) {
	case AV_SAMPLE_FMT_U8: case AV_SAMPLE_FMT_U8P:
	case AV_SAMPLE_FMT_S16: case AV_SAMPLE_FMT_S16P:
		return PLAY_SFMT_S16;
	case AV_SAMPLE_FMT_S32: case AV_SAMPLE_FMT_S32P:
	case AV_SAMPLE_FMT_S64: case AV_SAMPLE_FMT_S64P:
		return PLAY_SFMT_S32;
	default:
		return PLAY_SFMT_FLOAT;
	}
}

static enum AVSampleFormat sfmt_to_av(enum play_sfmt f)
{
	switch (f) {
	case PLAY_SFMT_S32: return AV_SAMPLE_FMT_S32;
	case PLAY_SFMT_FLOAT: return AV_SAMPLE_FMT_FLT;
	default: return AV_SAMPLE_FMT_S16;
	}
}

/* A frame's layout, with unspecified orders replaced by the default for
 * the channel count (as the ffmpeg tool does), so swresample can mix. */
static void frame_layout(const AVFrame *f, AVChannelLayout *out)
{
	if (f->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || f->ch_layout.nb_channels <= 0) {
		av_channel_layout_default(out, f->ch_layout.nb_channels > 0 ? f->ch_layout.nb_channels : 2);
		return;
	}
	av_channel_layout_copy(out, &f->ch_layout);
}

/* Decode the next frame into d->frame: 1 got one, 0 end of stream, -1 fatal. */
static int decode_frame(struct decoder *d, struct crate_err *err)
{
	for (;;) {
		int r = avcodec_receive_frame(d->ctx, d->frame);
		if (r == 0) {
			if (d->frame->nb_samples <= 0) {
				av_frame_unref(d->frame);
				continue;
			}
			d->produced = true;
			d->consecutive = 0;
			return 1;
		}
		if (r == AVERROR_EOF)
			break;
		if (r != AVERROR(EAGAIN)) {
			/* A corrupt frame: skip it and keep decoding. */
			d->skipped++;
			d->last_averr = r;
			if (++d->consecutive > MAX_CONSECUTIVE_ERRORS) {
				d->gave_up = true;
				break;
			}
			continue;
		}
		if (d->flushing)
			break;
		if (!d->pkt_pending) {
			if (d->stream)
				d->deadline_us = av_gettime_relative() + STREAM_STALL_US;
			r = av_read_frame(d->fmt, d->pkt);
			if (d->stream)
				poll_icy(d);
			if (r < 0 && stream_gave_up(d, r)) /* not an end */
				return stream_timed_out(d, err);
			if (r < 0) {
				bool end = r == AVERROR_EOF || (d->fmt->pb && avio_feof(d->fmt->pb));
				if (!end && r != AVERROR(EAGAIN)) {
					d->skipped++;
					d->last_averr = r;
					end = d->gave_up = ++d->consecutive > MAX_CONSECUTIVE_ERRORS;
				}
				if (end) {
					avcodec_send_packet(d->ctx, NULL);
					d->flushing = true;
				}
				continue;
			}
			if (d->pkt->stream_index != d->sidx) {
				av_packet_unref(d->pkt);
				continue;
			}
		}
		r = avcodec_send_packet(d->ctx, d->pkt);
		if (r == AVERROR(EAGAIN)) {
			d->pkt_pending = true;
			continue;
		}
		d->pkt_pending = false;
		av_packet_unref(d->pkt);
		if (r < 0) {
			d->skipped++;
			d->last_averr = r;
			if (++d->consecutive > MAX_CONSECUTIVE_ERRORS) {
				d->gave_up = true;
				avcodec_send_packet(d->ctx, NULL);
				d->flushing = true;
			}
		}
	}
	d->eof = true;
	if (!d->produced && d->skipped) {
		char e[128];
		return crate_err_set(err, CRATE_ERR_MEDIA, "%s: cannot decode: %s", d->path,
				     averr(d->last_averr, e, sizeof e));
	}
	return 0;
}

static void ensure_buf(struct decoder *d, size_t frames)
{
	if (frames > d->buf_cap_frames) {
		d->buf = xrealloc(d->buf, frames * play_frame_bytes(&d->out));
		d->buf_cap_frames = frames;
	}
}

/* Drain what the resampler still holds (rate conversion keeps a tail)
 * into the buffer, after any frames already there. */
static int drain_swr(struct decoder *d)
{
	if (!d->swr)
		return 0;
	int64_t delay = swr_get_delay(d->swr, d->out.rate);
	if (delay <= 0)
		return 0;
	size_t fb = play_frame_bytes(&d->out);
	ensure_buf(d, d->buf_frames + (size_t)delay + 16);
	uint8_t *dst = d->buf + d->buf_frames * fb;
	int n = swr_convert(d->swr, &dst, (int)delay + 16, NULL, 0);
	if (n > 0)
		d->buf_frames += (size_t)n;
	return 0;
}

static int setup_swr(struct decoder *d, const AVFrame *f, struct crate_err *err)
{
	AVChannelLayout in_layout = {0}, out_layout = {0};
	frame_layout(f, &in_layout);
	/* Same channel count: keep the source layout so nothing is remixed. */
	if (in_layout.nb_channels == d->out.channels)
		av_channel_layout_copy(&out_layout, &in_layout);
	else
		av_channel_layout_default(&out_layout, d->out.channels);
	swr_free(&d->swr);
	int r = swr_alloc_set_opts2(&d->swr, &out_layout, sfmt_to_av(d->out.sfmt), d->out.rate,
				    &in_layout, f->format, f->sample_rate, 0, NULL);
	if (r >= 0)
		r = swr_init(d->swr);
	av_channel_layout_uninit(&d->in_layout);
	av_channel_layout_copy(&d->in_layout, &in_layout);
	d->in_sfmt = f->format;
	d->in_rate = f->sample_rate;
	av_channel_layout_uninit(&in_layout);
	av_channel_layout_uninit(&out_layout);
	if (r < 0) {
		char e[128];
		swr_free(&d->swr);
		return crate_err_set(err, CRATE_ERR_MEDIA, "%s: cannot convert audio: %s", d->path,
				     averr(r, e, sizeof e));
	}
	return 0;
}

/* Convert d->frame into the buffer, reconfiguring the resampler when the
 * stream changes format mid-way (rate, channels, sample format). */
static int convert_frame(struct decoder *d, struct crate_err *err)
{
	AVFrame *f = d->frame;
	AVChannelLayout lay = {0};
	frame_layout(f, &lay);
	bool same = d->swr && f->format == d->in_sfmt && f->sample_rate == d->in_rate &&
		    av_channel_layout_compare(&lay, &d->in_layout) == 0;
	av_channel_layout_uninit(&lay);
	d->buf_frames = d->buf_off = 0;
	if (!same) {
		drain_swr(d);
		if (setup_swr(d, f, err) != 0)
			return -1;
	}
	int skip = 0;
	if (d->seek_num >= 0) {
		/* Accurate seek: drop what precedes the target in this frame. */
		int64_t ts = f->best_effort_timestamp;
		AVRational tb = d->fmt->streams[d->sidx]->time_base;
		if (ts != AV_NOPTS_VALUE) {
			int64_t start = av_rescale_q(ts, tb, (AVRational){1, f->sample_rate});
			int64_t target = av_rescale(d->seek_num, f->sample_rate, d->seek_den);
			if (target - start >= f->nb_samples) {
				av_frame_unref(f);
				return 0;
			}
			if (target > start)
				skip = (int)(target - start);
		}
		d->seek_num = -1;
	}
	const uint8_t *in[AV_NUM_DATA_POINTERS * 8];
	int planes = av_sample_fmt_is_planar(f->format) ? f->ch_layout.nb_channels : 1;
	if (planes > (int)(sizeof in / sizeof in[0])) {
		av_frame_unref(f);
		return crate_err_set(err, CRATE_ERR_MEDIA, "%s: too many channels (%d)", d->path,
				     planes);
	}
	int step = av_get_bytes_per_sample(f->format) *
		   (av_sample_fmt_is_planar(f->format) ? 1 : f->ch_layout.nb_channels);
	for (int i = 0; i < planes; i++)
		in[i] = f->extended_data[i] + (size_t)skip * (size_t)step;
	int nin = f->nb_samples - skip;
	int cap = swr_get_out_samples(d->swr, nin);
	if (cap < 0)
		cap = nin * 2 + 64;
	size_t fb = play_frame_bytes(&d->out);
	ensure_buf(d, d->buf_frames + (size_t)cap);
	uint8_t *dst = d->buf + d->buf_frames * fb;
	int n = swr_convert(d->swr, &dst, cap, in, nin);
	av_frame_unref(f);
	if (n < 0) {
		char e[128];
		return crate_err_set(err, CRATE_ERR_MEDIA, "%s: cannot convert audio: %s", d->path,
				     averr(n, e, sizeof e));
	}
	d->buf_frames += (size_t)n;
	return 0;
}

/* Open url as a radio stream: reconnect when the connection breaks (a
 * network error, or a cut before the announced length; not a clean end
 * of a stream of unknown length, which would replay a finite file
 * forever), ask for ICY titles, and give up on a server that sends
 * nothing. An FFmpeg error code. */
static int open_stream(struct decoder *d, const char *url)
{
	AVDictionary *opts = NULL;
	d->fmt = avformat_alloc_context();
	d->fmt->interrupt_callback = (AVIOInterruptCB){stream_interrupt, d};
	d->deadline_us = av_gettime_relative() + STREAM_STALL_US;
	av_dict_set(&opts, "reconnect", "1", 0);
	av_dict_set(&opts, "reconnect_on_network_error", "1", 0);
	av_dict_set(&opts, "reconnect_delay_max", "5", 0);
	av_dict_set(&opts, "icy", "1", 0);
	av_dict_set(&opts, "rw_timeout", "15000000", 0);
	av_dict_set(&opts, "user_agent", "crate/" CRATE_VERSION, 0);
	int r = avformat_open_input(&d->fmt, url, NULL, &opts);
	av_dict_free(&opts);
	if (r < 0 && stream_interrupt(d))
		r = AVERROR(ETIMEDOUT);
	return r;
}

/* The streams a radio playlist at url lists (stream_list.h); l->n 0 when
 * url is no such playlist. */
static int read_station_list(struct decoder *d, const char *url, bool named,
			     struct stream_list *l, struct crate_err *err)
{
	AVIOInterruptCB cb = {stream_interrupt, d};
	d->deadline_us = av_gettime_relative() + STREAM_STALL_US;
	int rc = stream_list_read(url, &cb, named, l, err);
	if (d->stalled) { /* what came may be cut short; and the stall is sticky */
		stream_list_free(l);
		return stream_timed_out(d, err);
	}
	return rc;
}

#define STATION_FAILED INT_MIN /* err is set */

/* How deep playlists naming playlists are followed: a station's .pls may
 * name its .m3u, which names the stream; a playlist naming itself ends
 * here. */
#define STATION_DEPTH 3

static int open_station(struct decoder *d, const char *url, int depth, struct crate_err *err);

/* Open the streams l lists in turn, as MPD does (a station lists mirrors,
 * some gone): the first that opens plays, its entry's name noted as the
 * stream's first title unless a playlist it names gave one. An entry that
 * is itself a playlist is followed (STATION_DEPTH). The last one's
 * FFmpeg error when none opens, or STATION_FAILED with its error in err. */
static int open_listed(struct decoder *d, const struct stream_list *l, int depth,
		       struct crate_err *err)
{
	int r = AVERROR(EINVAL);
	for (size_t i = 0; i < l->n; i++) {
		d->stalled = false; /* each gets its own wait */
		d->title_new = false;
		struct crate_err eerr = {0};
		r = depth < STATION_DEPTH ? open_station(d, l->url[i], depth + 1, &eerr)
					  : open_stream(d, l->url[i]);
		if (r == STATION_FAILED)
			*err = eerr;
		if (r >= 0) {
			if (l->title[i] && !d->title_new) {
				snprintf(d->title, sizeof d->title, "%s", l->title[i]);
				d->title_new = true;
			}
			return r;
		}
		if (r == AVERROR_EXIT || (d->stop && atomic_load(d->stop)))
			return r; /* stopped: not the next one's turn */
	}
	return r;
}

/* Whether the server answered with a playlist's Content-Type, which
 * FFmpeg may open as some text format with no audio (HLS is its own). */
static bool answered_playlist(struct decoder *d)
{
	uint8_t *mime = NULL;
	if (!d->fmt->pb ||
	    av_opt_get(d->fmt->pb, "mime_type", AV_OPT_SEARCH_CHILDREN, &mime) < 0 || !mime)
		return false;
	bool list = stream_list_mime((const char *)mime) && strcmp(d->fmt->iformat->name, "hls") != 0;
	av_free(mime);
	return list;
}

/* Open the stream at url, or those the playlist there lists in turn:
 * by its name (listen.pls) the playlist is read first; else a server's
 * answer FFmpeg cannot play is looked at as one (audio/x-scpls). An
 * FFmpeg error code, or STATION_FAILED. */
static int open_station(struct decoder *d, const char *url, int depth, struct crate_err *err)
{
	struct stream_list l = {0};
	bool named = stream_list_named(url);
	if (named && read_station_list(d, url, true, &l, err) != 0)
		return STATION_FAILED;
	int r = l.n ? open_listed(d, &l, depth, err) : open_stream(d, url);
	if (r >= 0 && !l.n && !named && answered_playlist(d)) {
		avformat_close_input(&d->fmt);
		r = AVERROR_INVALIDDATA;
	}
	if (r < 0 && !l.n && !named && r != AVERROR(ETIMEDOUT) && r != AVERROR_EXIT) {
		struct crate_err lerr = {0};
		if (read_station_list(d, url, false, &l, &lerr) != 0) {
			*err = lerr;
			return STATION_FAILED;
		}
		if (l.n)
			r = open_listed(d, &l, depth, err);
	}
	stream_list_free(&l);
	return r;
}

int decoder_open(const char *path, struct decoder **out, struct crate_err *err)
{
	return decoder_open_stoppable(path, NULL, out, err);
}

int decoder_open_stoppable(const char *path, const atomic_int *stop, struct decoder **out,
			   struct crate_err *err)
{
	char e[128];
	pthread_once(&log_once, quiet_ffmpeg_log);
	struct decoder *d = xcalloc(1, sizeof *d);
	d->stop = stop;
	d->path = xstrdup(path);
	d->seek_num = -1;
	d->sidx = -1;
	int r;
	if (decoder_is_stream_url(path)) {
		d->stream = true;
		r = open_station(d, path, 1, err);
		if (r == STATION_FAILED)
			goto fail;
	} else {
		/* Never open a FIFO or device that took the track's place: check
		 * the file through a descriptor opened without blocking, and let
		 * FFmpeg open that same file (safeopen.h). */
		struct crate_err oerr = {0};
		int fd = safeopen_regular(path, NULL, &oerr);
		if (fd < 0) {
			crate_err_set(err, oerr.code == CRATE_ERR_INVALID ? CRATE_ERR_MEDIA : oerr.code,
				      "%s", oerr.msg);
			goto fail;
		}
		if (file_is_empty(fd)) {
			close(fd);
			crate_err_set(err, CRATE_ERR_MEDIA, "%s: empty file (0 bytes)", path);
			goto fail;
		}
		char via[PATH_MAX];
		const char *open_path = safeopen_fd_path(fd, path, via, sizeof via);
		r = avformat_open_input(&d->fmt, open_path, NULL, NULL);
		safeopen_fd_path_done(open_path);
		close(fd);
	}
	if (r < 0) {
		/* A file is said as the scan says it: FFmpeg's word alone
		 * ("Invalid argument", "End of file") does not tell the
		 * listener the file is no audio. */
		crate_err_set(err, r == AVERROR(ENOENT) ? CRATE_ERR_NOTFOUND : CRATE_ERR_MEDIA,
			      d->stream ? "%s: %s" : "%s: not audio (FFmpeg cannot open it): %s", path,
			      averr(r, e, sizeof e));
		goto fail;
	}
	if (d->stream)
		d->deadline_us = av_gettime_relative() + STREAM_STALL_US;
	r = avformat_find_stream_info(d->fmt, NULL);
	if (r < 0 && d->stream && stream_interrupt(d))
		r = AVERROR(ETIMEDOUT);
	if (r >= 0 && d->stream && !d->fmt->nb_streams)
		r = AVERROR_INVALIDDATA;
	if (d->stream)
		read_station_name(d);
	if (stream_gave_up(d, r)) { /* the probe gave up waiting: what it saw is not the stream */
		stream_timed_out(d, err);
		goto fail;
	}
	if (r < 0) {
		crate_err_set(err, CRATE_ERR_MEDIA,
			      d->stream ? "%s: %s" : "%s: not audio (FFmpeg cannot read it): %s", path,
			      averr(r, e, sizeof e));
		goto fail;
	}
	const AVCodec *codec = NULL;
	d->sidx = av_find_best_stream(d->fmt, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
	if (d->sidx < 0 || !codec) {
		crate_err_set(err, CRATE_ERR_MEDIA, "%s: %s", path,
			      d->sidx == AVERROR_DECODER_NOT_FOUND ? "no decoder for its audio"
								    : "not audio (no audio stream)");
		goto fail;
	}
	for (unsigned i = 0; i < d->fmt->nb_streams; i++)
		if ((int)i != d->sidx)
			d->fmt->streams[i]->discard = AVDISCARD_ALL;
	AVStream *st = d->fmt->streams[d->sidx];
	d->ctx = avcodec_alloc_context3(codec);
	r = avcodec_parameters_to_context(d->ctx, st->codecpar);
	if (r >= 0) {
		d->ctx->pkt_timebase = st->time_base;
		r = avcodec_open2(d->ctx, codec, NULL);
	}
	if (r < 0) {
		crate_err_set(err, CRATE_ERR_MEDIA, "%s: cannot open %s decoder: %s", path,
			      codec->name, averr(r, e, sizeof e));
		goto fail;
	}
	d->pkt = av_packet_alloc();
	d->frame = av_frame_alloc();
	/* Decode one frame now: containers often describe the audio wrongly
	 * or not at all, the first frame does not. */
	r = decode_frame(d, err);
	if (r < 0)
		goto fail;
	d->have_frame = r == 1;
	if (d->have_frame) {
		d->native.rate = d->frame->sample_rate;
		d->native.channels = d->frame->ch_layout.nb_channels;
		d->native.sfmt = sfmt_from_av(d->frame->format);
	} else {
		d->native.rate = d->ctx->sample_rate;
		d->native.channels = d->ctx->ch_layout.nb_channels;
		d->native.sfmt = sfmt_from_av(d->ctx->sample_fmt);
	}
	if (d->native.rate <= 0)
		d->native.rate = 44100;
	if (d->native.channels <= 0)
		d->native.channels = 2;
	d->out = d->native;
	*out = d;
	return 0;
fail:
	decoder_free(d);
	return -1;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	swr_free(&d->swr);
	av_channel_layout_uninit(&d->in_layout);
	av_frame_free(&d->frame);
	av_packet_free(&d->pkt);
	avcodec_free_context(&d->ctx);
	avformat_close_input(&d->fmt);
	free(d->buf);
	free(d->path);
	free(d->icy_seen);
	free(d);
}

/* A tag of the file's container or of its audio stream (Ogg keeps its
 * comments on the stream); FFmpeg compares keys without case. */
static const char *file_tag(const struct decoder *d, const char *key)
{
	const AVDictionaryEntry *t = av_dict_get(d->fmt->metadata, key, NULL, 0);
	if (!t && d->sidx >= 0)
		t = av_dict_get(d->fmt->streams[d->sidx]->metadata, key, NULL, 0);
	return t ? t->value : NULL;
}

struct play_rg decoder_replaygain(const struct decoder *d)
{
	struct play_rg rg = play_rg_none();
	if (d->stream || !d->fmt)
		return rg;
	rg.track_gain_db = play_rg_parse_gain(file_tag(d, "replaygain_track_gain"));
	rg.track_peak = play_rg_parse_peak(file_tag(d, "replaygain_track_peak"));
	rg.album_gain_db = play_rg_parse_gain(file_tag(d, "replaygain_album_gain"));
	rg.album_peak = play_rg_parse_peak(file_tag(d, "replaygain_album_peak"));
	if (isnan(rg.track_gain_db))
		rg.track_gain_db = play_rg_parse_r128(file_tag(d, "r128_track_gain"));
	if (isnan(rg.album_gain_db))
		rg.album_gain_db = play_rg_parse_r128(file_tag(d, "r128_album_gain"));
	return rg;
}

void decoder_native_format(const struct decoder *d, struct play_format *out)
{
	*out = d->native;
}

void decoder_output_format(const struct decoder *d, struct play_format *out)
{
	*out = d->out;
}

static int64_t file_duration_ms(const struct decoder *d);

int64_t decoder_duration_ms(const struct decoder *d)
{
	if (d->stream) /* an announced length (Content-Length) is a guess at best */
		return -1;
	if (!d->ranged)
		return file_duration_ms(d);
	int64_t rate = d->native.rate;
	if (d->range_end)
		return (d->range_end - d->range_start) * 1000 / rate;
	int64_t all = file_duration_ms(d), start = d->range_start * 1000 / rate;
	return all > start ? all - start : -1;
}

static int64_t file_duration_ms(const struct decoder *d)
{
	if (d->fmt->duration != AV_NOPTS_VALUE && d->fmt->duration > 0)
		return d->fmt->duration / 1000;
	AVStream *st = d->fmt->streams[d->sidx];
	if (st->duration != AV_NOPTS_VALUE && st->duration > 0)
		return av_rescale_q(st->duration, st->time_base, (AVRational){1, 1000});
	return -1;
}

const char *decoder_path(const struct decoder *d)
{
	return d->path;
}

unsigned decoder_skipped(const struct decoder *d)
{
	return d->skipped;
}

int decoder_set_output(struct decoder *d, const struct play_format *fmt, struct crate_err *err)
{
	if (fmt->rate <= 0 || fmt->channels <= 0 || play_sfmt_bytes(fmt->sfmt) == 0)
		return crate_err_set(err, CRATE_ERR_INVALID, "%s: invalid output format", d->path);
	if (play_format_equal(fmt, &d->out))
		return 0;
	if (d->ranged && d->out.rate != fmt->rate)
		d->range_pos = av_rescale(d->range_pos, fmt->rate, d->out.rate);
	d->out = *fmt;
	/* Pending converted frames were in the old format: they are dropped
	 * (callers set the format before reading or right after a seek). */
	d->pos_frames = 0;
	d->base_ms = decoder_position_ms(d);
	d->buf_frames = d->buf_off = 0;
	free(d->buf);
	d->buf = NULL;
	d->buf_cap_frames = 0;
	swr_free(&d->swr);
	return 0;
}

/* Output frames from the range's start to its end; -1 for no end. */
static int64_t range_len_out(const struct decoder *d)
{
	if (!d->ranged || !d->range_end)
		return -1;
	return av_rescale(d->range_end - d->range_start, d->out.rate, d->native.rate);
}

long decoder_read(struct decoder *d, void *buf, size_t max_frames, struct crate_err *err)
{
	size_t fb = play_frame_bytes(&d->out);
	size_t done = 0;
	int64_t len = range_len_out(d);
	if (len >= 0) { /* stop at the range's end, to the sample */
		int64_t left = len > d->range_pos ? len - d->range_pos : 0;
		if ((int64_t)max_frames > left)
			max_frames = (size_t)left;
	}
	while (done < max_frames) {
		if (d->buf_off < d->buf_frames) {
			size_t n = d->buf_frames - d->buf_off;
			if (n > max_frames - done)
				n = max_frames - done;
			memcpy((uint8_t *)buf + done * fb, d->buf + d->buf_off * fb, n * fb);
			d->buf_off += n;
			done += n;
			continue;
		}
		d->buf_frames = d->buf_off = 0;
		if (!d->have_frame) {
			if (d->eof)
				break;
			int r = decode_frame(d, err);
			if (r < 0)
				return done ? (long)done : -1;
			if (r == 0) {
				drain_swr(d);
				continue;
			}
			d->have_frame = true;
		}
		d->have_frame = false;
		if (convert_frame(d, err) != 0)
			return done ? (long)done : -1;
	}
	d->pos_frames += (int64_t)done;
	d->range_pos += (int64_t)done;
	return (long)done;
}

/* Seek to num/den seconds of the file (without its start_time). */
static int seek_to(struct decoder *d, int64_t num, int64_t den, struct crate_err *err)
{
	int64_t ms = av_rescale(num, 1000, den);
	int64_t ts = av_rescale(num, AV_TIME_BASE, den);
	if (d->fmt->start_time != AV_NOPTS_VALUE)
		ts += d->fmt->start_time;
	int r = avformat_seek_file(d->fmt, -1, INT64_MIN, ts, ts, AVSEEK_FLAG_BACKWARD);
	if (r < 0)
		r = av_seek_frame(d->fmt, -1, ts, AVSEEK_FLAG_BACKWARD);
	if (r < 0) {
		char e[128];
		return crate_err_set(err, CRATE_ERR_MEDIA, "%s: cannot seek to %lld ms: %s", d->path,
				     (long long)ms, averr(r, e, sizeof e));
	}
	avcodec_flush_buffers(d->ctx);
	if (d->have_frame)
		av_frame_unref(d->frame);
	if (d->pkt_pending)
		av_packet_unref(d->pkt);
	d->have_frame = d->pkt_pending = d->flushing = d->eof = d->gave_up = false;
	d->consecutive = 0;
	d->buf_frames = d->buf_off = 0;
	swr_free(&d->swr); /* drop the resampler's tail from before the seek */
	int64_t start = 0;
	if (d->fmt->start_time != AV_NOPTS_VALUE)
		start = av_rescale(d->fmt->start_time, den, AV_TIME_BASE);
	d->seek_num = num + start;
	d->seek_den = den;
	d->pos_frames = 0;
	return 0;
}

int decoder_seek(struct decoder *d, int64_t ms, struct crate_err *err)
{
	if (ms < 0)
		ms = 0;
	/* A live station (no length, no ranges) has no position to go to:
	 * FFmpeg would read ahead for as long as the jump, the player silent,
	 * or reconnect and call the station's "now" the target. */
	if (!decoder_can_seek(d))
		return crate_err_set(err, CRATE_ERR_MEDIA,
				     "%s: this stream cannot seek (the server offers no ranges)",
				     d->path);
	if (!d->ranged) {
		if (seek_to(d, ms, 1000, err) != 0)
			return -1;
		d->base_ms = ms;
		return 0;
	}
	/* In a range: ms from its start, to the sample, kept inside it. */
	int64_t rate = d->native.rate;
	int64_t at = d->range_start + av_rescale(ms, rate, 1000);
	if (d->range_end && at > d->range_end)
		at = d->range_end;
	if (seek_to(d, at, rate, err) != 0)
		return -1;
	d->base_ms = (at - d->range_start) * 1000 / rate;
	d->range_pos = av_rescale(at - d->range_start, d->out.rate, rate);
	return 0;
}

bool decoder_can_seek(const struct decoder *d)
{
	return !(d->stream && d->fmt && d->fmt->pb && !(d->fmt->pb->seekable & AVIO_SEEKABLE_NORMAL));
}

int decoder_set_range(struct decoder *d, int64_t start, int64_t end, struct crate_err *err)
{
	if (start < 0 || (end && end <= start))
		return crate_err_set(err, CRATE_ERR_INVALID, "%s: invalid range %lld..%lld",
				     d->path, (long long)start, (long long)end);
	d->ranged = true;
	d->range_start = start;
	d->range_end = end;
	return decoder_seek(d, 0, err);
}

int64_t decoder_position_ms(const struct decoder *d)
{
	return d->base_ms + (d->out.rate > 0 ? d->pos_frames * 1000 / d->out.rate : 0);
}

int64_t decoder_end_ms(const struct decoder *d)
{
	/* After a seek (base_ms) with no audio since, the end lies somewhere
	 * before the seek's target, not at it. */
	if (!d->eof || d->gave_up || (d->base_ms > 0 && d->pos_frames == 0))
		return -1;
	return decoder_position_ms(d);
}
