/* Tags and stream properties of one file.
 *
 * FFmpeg is the primary reader: its probe gives duration, codec, sample
 * rate, channels and bitrate, and its metadata dictionaries give every tag
 * the container holds (free-form ones and ReplayGain included). But FFmpeg
 * loses multi-valued tags: ID3v2.4 NUL-separated lists reach us as their
 * first value, and repeated Vorbis comments are joined with ';' (so "a;b"
 * written once and "a" + "b" written twice look the same). TagLib's C++
 * PropertyMap (tags_taglib.cpp) keeps them as lists, so for a key where
 * TagLib has more values than FFmpeg, TagLib's values replace FFmpeg's.
 * A ';' inside a value is never a separator. When FFmpeg found none of
 * artist, title and album, TagLib fills every key FFmpeg lacks (and the
 * duration when FFmpeg has none); otherwise only the basic ones (artist,
 * album, title, date, track and disc numbers... : a frame FFmpeg could
 * not read, an ID3v1 album beside an ID3v2 tag without one).
 *
 * Hostile files: the probe has a per-file deadline enforced through
 * FFmpeg's interrupt callback, and bounded probesize / analyzeduration. */
#include "medialib/tags.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/time.h>

#include "base/safeopen.h"

#include "base/str.h"
#include "medialib/rating.h"
#include "medialib/tags_taglib.h"

/* The last error FFmpeg logged on this thread, for the error text. */
static _Thread_local char ff_last_msg[200];

/* fmt is FFmpeg's own printf format (clang's -Wformat-nonliteral wants it said). */
static void ff_log_cb(void *avcl, int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void ff_log_cb(void *avcl, int level, const char *fmt, va_list ap)
{
	(void)avcl;
	if (level > AV_LOG_ERROR)
		return;
	vsnprintf(ff_last_msg, sizeof ff_last_msg, fmt, ap);
	size_t n = strlen(ff_last_msg);
	while (n && (ff_last_msg[n - 1] == '\n' || ff_last_msg[n - 1] == ' '))
		ff_last_msg[--n] = '\0';
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void global_init_once(void)
{
	av_log_set_level(AV_LOG_ERROR);
	av_log_set_callback(ff_log_cb);
}

void mlib_tags_global_init(void)
{
	pthread_once(&global_once, global_init_once);
}

void mlib_tags_init(struct mlib_tags *t)
{
	memset(t, 0, sizeof *t);
}

void mlib_tags_free(struct mlib_tags *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].key);
		free(t->v[i].value);
	}
	free(t->v);
	free(t->format);
	memset(t, 0, sizeof *t);
}

/* Tag names FFmpeg or containers use for the same thing. */
static const struct {
	const char *from, *to;
} key_alias[] = {
	{"album_artist", "albumartist"}, {"album artist", "albumartist"},
	{"track", "tracknr"},            {"tracknumber", "tracknr"},
	{"disc", "discnr"},              {"discnumber", "discnr"},
	{"totaltracks", "tracktotal"},   {"totaldiscs", "disctotal"},
	{"year", "date"},                {"icy-genre", "genre"},
};

/* Names that are library properties computed by crate, or container
 * bookkeeping that is not a tag. */
static const char *const key_dropped[] = {
	"url",		  "id",		    "duration",	   "bitrate",	       "samplerate",
	"channels",	  "format",	    "filesize",	   "mtime",	       "added",
	"lastplayed",	  "timesplayed",    "timesskipped", "rating",	   "missing",	       "major_brand",
	"minor_version",  "compatible_brands", "handler_name", "vendor_id", "tlen",
	"iTunSMPB",	  "itunsmpb",	    "itunnorm",	   "itunes_cddb_1",
	"length", /* ID3 TLEN as TagLib names it */
	"cue_start",	  "cue_end", /* a cue track's range (media.c) */
};

const char *mlib_tags_norm_key(const char *key, char *out, size_t outsize)
{
	size_t n = 0;
	for (const char *p = key; *p && n + 1 < outsize; p++) {
		unsigned char c = (unsigned char)*p;
		/* a name with control characters (ESC, newline) could reach a
		 * terminal through `crate info` and cannot be typed in a query */
		if (c < 0x20 || c == 0x7f)
			return NULL;
		out[n++] = c == ' ' ? '_' : (char)tolower(c);
	}
	out[n] = '\0';
	if (n == 0 || strncmp(out, "id3v2_priv.", 11) == 0)
		return NULL;
	for (size_t i = 0; i < sizeof key_alias / sizeof key_alias[0]; i++)
		if (strcmp(out, key_alias[i].from) == 0) {
			snprintf(out, outsize, "%s", key_alias[i].to);
			break;
		}
	for (size_t i = 0; i < sizeof key_dropped / sizeof key_dropped[0]; i++)
		if (strcmp(out, key_dropped[i]) == 0)
			return NULL;
	return out;
}

/* A file with more tag values than this is abuse (the corpus has 1000
 * repeated comments); the rest are dropped. */
#define MAX_TAG_VALUES 256

static void tags_push(struct mlib_tags *t, const char *key, const char *value, size_t len)
{
	if (t->n >= MAX_TAG_VALUES)
		return;
	/* A value repeated under one key says nothing new. */
	for (size_t i = 0; i < t->n; i++)
		if (strncmp(t->v[i].value, value, len) == 0 && t->v[i].value[len] == '\0' &&
		    strcmp(t->v[i].key, key) == 0)
			return;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof *t->v);
	}
	t->v[t->n].key = xstrdup(key);
	t->v[t->n].value = xstrndup(value, len);
	t->n++;
}

/* Values are trimmed of surrounding spaces; an empty value is no value
 * (missing tags are absent, never ""). */
static void tags_add_norm(struct mlib_tags *t, const char *nkey, const char *value, size_t len)
{
	while (len && isspace((unsigned char)*value)) {
		value++;
		len--;
	}
	while (len && isspace((unsigned char)value[len - 1]))
		len--;
	if (len)
		tags_push(t, nkey, value, len);
}

void mlib_tags_add(struct mlib_tags *t, const char *key, const char *value)
{
	char k[128];
	if (!value || !mlib_tags_norm_key(key, k, sizeof k))
		return;
	tags_add_norm(t, k, value, strlen(value));
}

const char *mlib_tags_get(const struct mlib_tags *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].key, key) == 0)
			return t->v[i].value;
	return NULL;
}

static int tags_has(const struct mlib_tags *t, const char *key)
{
	return mlib_tags_get(t, key) != NULL;
}

/* ---- FFmpeg ---- */

struct deadline {
	int64_t until_us;
};

static int interrupt_cb(void *opaque)
{
	const struct deadline *d = opaque;
	return av_gettime_relative() > d->until_us;
}

static void add_dict(struct mlib_tags *t, const AVDictionary *dict, size_t skip_from)
{
	const AVDictionaryEntry *e = NULL;
	char k[128];
	while ((e = av_dict_get(dict, "", e, AV_DICT_IGNORE_SUFFIX))) {
		if (!mlib_tags_norm_key(e->key, k, sizeof k))
			continue;
		/* The container's tags win over the stream's (as ffprobe shows). */
		int dup = 0;
		for (size_t i = 0; i < skip_from && !dup; i++)
			dup = strcmp(t->v[i].key, k) == 0;
		if (!dup)
			tags_add_norm(t, k, e->value, strlen(e->value));
	}
}

static int ff_error(struct crate_err *err, int code, const char *path, const char *what, int averr)
{
	char buf[AV_ERROR_MAX_STRING_SIZE] = "";
	if (averr)
		av_strerror(averr, buf, sizeof buf);
	if (ff_last_msg[0])
		return crate_err_set(err, code, "%s: %s%s%s (%s)", path, what, buf[0] ? ": " : "",
				     buf, ff_last_msg);
	return crate_err_set(err, code, "%s: %s%s%s", path, what, buf[0] ? ": " : "", buf);
}

/* Containers without a length in their header (FLAC without a sample
 * count, raw streams, trackers): read the packets and take the end of the
 * last one; packets without timing (Shorten) are decoded to count samples.
 * Bounded by the file's deadline. */
#define DECODE_TO_MEASURE_BYTES (4 << 20)

static int64_t ff_demux_duration(AVFormatContext *fmt, int si, const struct deadline *dl)
{
	const AVCodecDescriptor *desc = avcodec_descriptor_get(fmt->streams[si]->codecpar->codec_id);
	/* Count decoded samples where that is cheap: lossless decodes fast
	 * (and its headers are the ones that lie about rates), and a small
	 * file is quick to decode whatever it holds. Else packet times. */
	int64_t size = fmt->pb ? avio_size(fmt->pb) : -1;
	bool count = (desc && (desc->props & AV_CODEC_PROP_LOSSLESS) &&
		      !(desc->props & AV_CODEC_PROP_LOSSY)) ||
		     (size >= 0 && size < DECODE_TO_MEASURE_BYTES);
	const AVStream *st = fmt->streams[si];
	AVPacket *pkt = av_packet_alloc();
	AVFrame *frame = NULL;
	AVCodecContext *dec = NULL;
	bool dec_failed = false;
	int64_t start = AV_NOPTS_VALUE, end = 0, summed = 0, samples = 0;
	double counted_s = 0; /* decoded samples / their rate, frame by frame */
	while (av_gettime_relative() <= dl->until_us && av_read_frame(fmt, pkt) >= 0) {
		if (pkt->stream_index != si) {
			av_packet_unref(pkt);
			continue;
		}
		/* From the first packet's time: a stream cut from the middle of
		 * another starts at a late timestamp. */
		if (pkt->pts != AV_NOPTS_VALUE && (start == AV_NOPTS_VALUE || pkt->pts < start))
			start = pkt->pts;
		if (pkt->pts != AV_NOPTS_VALUE && pkt->pts + pkt->duration > end)
			end = pkt->pts + pkt->duration;
		summed += pkt->duration;
		if ((count || pkt->duration <= 0) && !dec && !dec_failed) {
			const AVCodec *codec = avcodec_find_decoder(st->codecpar->codec_id);
			dec = codec ? avcodec_alloc_context3(codec) : NULL;
			if (!dec || avcodec_parameters_to_context(dec, st->codecpar) < 0 ||
			    avcodec_open2(dec, codec, NULL) < 0) {
				avcodec_free_context(&dec);
				dec_failed = true;
			}
			frame = av_frame_alloc();
		}
		if (dec && (count || pkt->duration <= 0) && avcodec_send_packet(dec, pkt) >= 0)
			while (avcodec_receive_frame(dec, frame) >= 0) {
				samples += frame->nb_samples;
				if (frame->sample_rate > 0)
					counted_s += (double)frame->nb_samples / frame->sample_rate;
			}
		av_packet_unref(pkt);
	}
	int sr = dec ? dec->sample_rate : 0;
	if (dec && count) { /* decoded: that is the length, even 0 (no audio in it) */
		avcodec_free_context(&dec);
		av_frame_free(&frame);
		av_packet_free(&pkt);
		return (int64_t)(counted_s * 1000 + 0.5);
	}
	avcodec_free_context(&dec);
	av_frame_free(&frame);
	av_packet_free(&pkt);
	int64_t ticks = end > 0 ? end - (start != AV_NOPTS_VALUE && start > 0 ? start : 0) : summed;
	if (ticks > 0 && st->time_base.den)
		return av_rescale_q(ticks, st->time_base, (AVRational){1, 1000});
	if (samples > 0 && sr > 0)
		return samples * 1000 / sr;
	return 0;
}

/* The length the container gives may be a guess (from the bitrate) or a
 * header that lies (a truncated file whose header names the whole song, a
 * FLAC STREAMINFO with a wrong sample count). Doubt it when FFmpeg says it
 * estimated, or when the file's size does not fit: fewer bits per second
 * than any codec uses, more than lossless audio can take, or a lossy
 * stream at a rate far from the one it declares. */
static bool duration_doubtful(const AVFormatContext *fmt, const AVCodecParameters *par,
			      int64_t dur_ms, int rate, int ch)
{
	if (dur_ms <= 0 || fmt->duration_estimation_method == AVFMT_DURATION_FROM_BITRATE)
		return true;
	int64_t size = fmt->pb ? avio_size(fmt->pb) : -1;
	if (size <= 0)
		return false;
	double implied = (double)size * 8.0 * 1000.0 / (double)dur_ms;
	if (implied < 4000)
		return true;
	const AVCodecDescriptor *d = avcodec_descriptor_get(par->codec_id);
	bool lossless = d && (d->props & AV_CODEC_PROP_LOSSLESS) && !(d->props & AV_CODEC_PROP_LOSSY);
	int bits = par->bits_per_raw_sample > 0 ? par->bits_per_raw_sample
						: par->bits_per_coded_sample;
	if (bits <= 0 && par->codec_id == AV_CODEC_ID_FLAC && par->extradata_size >= 34)
		bits = (((par->extradata[12] & 1) << 4) | (par->extradata[13] >> 4)) + 1;
	if (lossless && rate > 0 && ch > 0 && bits > 0) {
		double raw = (double)rate * ch * bits;
		return implied > raw * 1.2 || implied < raw * 0.02;
	}
	if (!lossless && par->bit_rate > 0)
		return implied < (double)par->bit_rate / 2 || implied > (double)par->bit_rate * 2;
	return false;
}

struct header_info {
	int samplerate, channels;
	int64_t duration_ms;
};

/* FLAC keeps rate, channels and length in STREAMINFO (FFmpeg's extradata),
 * which FFmpeg only reads during avformat_find_stream_info. */
static void flac_streaminfo(const AVCodecParameters *par, struct header_info *hi)
{
	if (par->codec_id != AV_CODEC_ID_FLAC || par->extradata_size < 34)
		return;
	const uint8_t *b = par->extradata;
	int sr = (b[10] << 12) | (b[11] << 4) | (b[12] >> 4);
	int ch = ((b[12] >> 1) & 7) + 1;
	uint64_t total = ((uint64_t)(b[13] & 0x0f) << 32) | ((uint64_t)b[14] << 24) |
			 ((uint64_t)b[15] << 16) | ((uint64_t)b[16] << 8) | b[17];
	if (sr > 0) {
		hi->samplerate = sr;
		hi->channels = ch;
		if (total)
			hi->duration_ms = (int64_t)(total * 1000 / (uint64_t)sr);
	}
}

/* True when the container header already gives an audio stream with codec,
 * rate, channels and length: then avformat_find_stream_info, which opens a
 * decoder and decodes frames (most of a cold scan's CPU), is skipped. */
static bool header_complete(const AVFormatContext *fmt, int *si, struct header_info *hi)
{
	for (unsigned i = 0; i < fmt->nb_streams; i++) {
		const AVStream *st = fmt->streams[i];
		const AVCodecParameters *par = st->codecpar;
		if (par->codec_type != AVMEDIA_TYPE_AUDIO || par->codec_id == AV_CODEC_ID_NONE)
			continue;
		memset(hi, 0, sizeof *hi);
		flac_streaminfo(par, hi);
		if (!hi->samplerate && par->sample_rate > 0 && par->ch_layout.nb_channels > 0) {
			hi->samplerate = par->sample_rate;
			hi->channels = par->ch_layout.nb_channels;
			if (st->duration > 0 && st->time_base.den)
				hi->duration_ms = av_rescale_q(st->duration, st->time_base,
							       (AVRational){1, 1000});
		}
		if (hi->samplerate && hi->duration_ms > 0) {
			*si = (int)i;
			return true;
		}
		break; /* the first audio stream decides */
	}
	memset(hi, 0, sizeof *hi);
	return false;
}

/* MP3: ID3v2 or an MPEG audio frame header (sync, and a layer that is not
 * ADTS's reserved 00, so AAC named .mp3 goes through the full probe). */
static bool looks_like_mp3(const unsigned char *head, size_t n)
{
	if (n >= 3 && memcmp(head, "ID3", 3) == 0)
		return true;
	return n >= 2 && head[0] == 0xff && (head[1] & 0xe0) == 0xe0 && (head[1] & 0x06) != 0;
}

static const AVInputFormat *demuxer_for(const char *path, const unsigned char *head, size_t n)
{
	/* Extension, demuxer, and the magic bytes the file must start with
	 * (at offset `at`) for the hint to be trusted. */
	static const struct {
		const char *ext, *demuxer;
		size_t at;
		const char *magic;
	} map[] = {
		{"flac", "flac", 0, "fLaC"}, {"ogg", "ogg", 0, "OggS"}, {"oga", "ogg", 0, "OggS"},
		{"opus", "ogg", 0, "OggS"},  {"m4a", "mov", 4, "ftyp"}, {"wav", "wav", 0, "RIFF"},
		{"wv", "wv", 0, "wvpk"},
	};
	const char *dot = strrchr(path, '.');
	if (!dot || strchr(dot, '/'))
		return NULL;
	if (strcasecmp(dot + 1, "mp3") == 0)
		return looks_like_mp3(head, n) ? av_find_input_format("mp3") : NULL;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcasecmp(dot + 1, map[i].ext) == 0) {
			size_t ml = strlen(map[i].magic);
			if (n < map[i].at + ml || memcmp(head + map[i].at, map[i].magic, ml) != 0)
				return NULL;
			return av_find_input_format(map[i].demuxer);
		}
	return NULL;
}

/* path names the file in messages and by its extension; FFmpeg opens
 * open_path (the same file through its descriptor). */
static int ff_probe(const char *path, const char *open_path, const unsigned char *head,
		    size_t nhead, int timeout_ms, struct mlib_tags *t, struct crate_err *err)
{
	struct deadline dl = {av_gettime_relative() + (int64_t)timeout_ms * 1000};
	AVFormatContext *fmt = avformat_alloc_context();
	fmt->interrupt_callback.callback = interrupt_cb;
	fmt->interrupt_callback.opaque = &dl;
	/* Bounded probing: enough for any sane header, small enough that a
	 * hostile file cannot make us read or decode much. */
	fmt->probesize = 2 * 1024 * 1024;
	fmt->max_analyze_duration = 5 * AV_TIME_BASE;
	ff_last_msg[0] = '\0';
	/* A common extension whose magic bytes match names its demuxer:
	 * skipping the probe of every demuxer saves a good part of a cold
	 * scan. Anything else (a file whose extension lies) is probed. */
	const AVInputFormat *hint = demuxer_for(path, head, nhead);
	int rc = avformat_open_input(&fmt, open_path, hint, NULL);
	if (rc < 0 && hint && rc != AVERROR(EACCES) && rc != AVERROR_EXIT) {
		fmt = avformat_alloc_context();
		fmt->interrupt_callback.callback = interrupt_cb;
		fmt->interrupt_callback.opaque = &dl;
		fmt->probesize = 2 * 1024 * 1024;
		fmt->max_analyze_duration = 5 * AV_TIME_BASE;
		ff_last_msg[0] = '\0';
		rc = avformat_open_input(&fmt, open_path, NULL, NULL);
	}
	if (rc < 0) {
		if (rc == AVERROR(EACCES))
			return crate_err_set(err, CRATE_ERR_IO, "%s: %s", path, strerror(EACCES));
		if (rc == AVERROR_EXIT)
			return crate_err_set(err, CRATE_ERR_MEDIA, "%s: gave up after %d ms", path,
					     timeout_ms);
		return ff_error(err, CRATE_ERR_MEDIA, path, "not audio (FFmpeg cannot open it)", rc);
	}
	int si = -1, ret = 0;
	struct header_info hi = {0};
	if (!header_complete(fmt, &si, &hi)) {
		/* The header alone does not say enough (MP3, raw streams):
		 * FFmpeg decodes the first frames to find out. */
		rc = avformat_find_stream_info(fmt, NULL);
		if (av_gettime_relative() > dl.until_us) {
			ret = crate_err_set(err, CRATE_ERR_MEDIA, "%s: gave up after %d ms", path,
					    timeout_ms);
			goto out;
		}
		si = av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
		if (si < 0) {
			ret = ff_error(err, CRATE_ERR_MEDIA, path, "not audio (no audio stream)",
				       rc < 0 ? rc : 0);
			goto out;
		}
	}
	const AVStream *st = fmt->streams[si];
	const AVCodecParameters *par = st->codecpar;
	if (par->codec_id == AV_CODEC_ID_NONE || !avcodec_find_decoder(par->codec_id)) {
		ret = crate_err_set(err, CRATE_ERR_MEDIA, "%s: not playable (no decoder for codec '%s')",
				    path, avcodec_get_name(par->codec_id));
		goto out;
	}
	if (hi.duration_ms > 0)
		t->duration_ms = hi.duration_ms;
	else if (fmt->duration > 0)
		t->duration_ms = fmt->duration / 1000;
	else if (st->duration > 0 && st->time_base.den)
		t->duration_ms = av_rescale_q(st->duration, st->time_base, (AVRational){1, 1000});
	t->bitrate = par->bit_rate > 0 ? par->bit_rate : (fmt->bit_rate > 0 ? fmt->bit_rate : 0);
	t->samplerate = hi.samplerate ? hi.samplerate : par->sample_rate > 0 ? par->sample_rate : 0;
	t->channels = hi.channels ? hi.channels
				  : par->ch_layout.nb_channels > 0 ? par->ch_layout.nb_channels : 0;
	if (duration_doubtful(fmt, par, t->duration_ms, t->samplerate, t->channels)) {
		/* Measure it: read the packets (bounded by the file's deadline). A
		 * measurement cut short by the deadline only replaces nothing. */
		int64_t measured = ff_demux_duration(fmt, si, &dl);
		bool complete = av_gettime_relative() <= dl.until_us;
		if (measured > 0 && (complete || t->duration_ms <= 0))
			t->duration_ms = measured;
		else if (complete && measured == 0)
			t->duration_ms = -1; /* measured: no audio in it (not TagLib's guess) */
	}
	if (!t->bitrate && t->duration_ms > 0 && fmt->pb) {
		int64_t size = avio_size(fmt->pb);
		if (size > 0)
			t->bitrate = size * 8 * 1000 / t->duration_ms; /* the file's average */
	}
	t->format = xstrdup(avcodec_get_name(par->codec_id));
	add_dict(t, fmt->metadata, 0);
	add_dict(t, st->metadata, t->n);
	/* RATING (Vorbis comments, APE, ID3 TXXX) is a library property, not a tag. */
	const AVDictionaryEntry *r = av_dict_get(fmt->metadata, "rating", NULL, 0);
	if (!r)
		r = av_dict_get(st->metadata, "rating", NULL, 0);
	t->rating = r ? mlib_rating_from_text(r->value) : 0;
	if (!t->rating && fmt->iformat && strcmp(fmt->iformat->name, "mov,mp4,m4a,3gp,3g2,mj2") == 0)
		t->rating = mlib_rating_from_mp4(path);
out:
	avformat_close_input(&fmt);
	return ret;
}

/* POPM / TXXX:RATING of the ID3v2 tag at the start of path (FFmpeg does not
 * give POPM). Reads the tag, at most 4 MiB of it. */
static int id3_rating(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	unsigned char h[10];
	int stars = 0;
	if (fread(h, 1, 10, f) == 10) {
		size_t size = 10 + ((size_t)(h[6] & 0x7f) << 21 | (size_t)(h[7] & 0x7f) << 14 |
				    (size_t)(h[8] & 0x7f) << 7 | (h[9] & 0x7f));
		if (size > 4u << 20)
			size = 4u << 20;
		unsigned char *buf = xmalloc(size);
		memcpy(buf, h, 10);
		size_t n = 10 + fread(buf + 10, 1, size - 10, f);
		stars = mlib_rating_from_id3v2(buf, n);
		free(buf);
	}
	fclose(f);
	return stars;
}

/* ---- TagLib's PropertyMap ---- */

static void tl_collect(void *ud, const char *key, const char *value)
{
	mlib_tags_add(ud, key, value);
}

static size_t tags_count(const struct mlib_tags *t, const char *key)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += strcmp(t->v[i].key, key) == 0;
	return n;
}

static void tags_remove_key(struct mlib_tags *t, const char *key)
{
	size_t w = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->v[i].key, key) == 0) {
			free(t->v[i].key);
			free(t->v[i].value);
		} else {
			t->v[w++] = t->v[i];
		}
	}
	t->n = w;
}

/* Whether TagLib can add anything, so that the common files cost one read:
 * FFmpeg found no basic tag or no length; ID3v2.3/2.4 (lists FFmpeg cuts
 * to their first value); FLAC/Ogg only when a value holds the ';' FFmpeg
 * joins repeated comments with; other tag formats (APE, MP4, ASF) always. */
static bool taglib_may_add(const struct mlib_tags *t, const unsigned char *head, size_t n)
{
	if ((!tags_has(t, "artist") && !tags_has(t, "title") && !tags_has(t, "album")) ||
	    t->duration_ms == 0)
		return true;
	if (n >= 4 && memcmp(head, "ID3", 3) == 0)
		return head[3] >= 3;
	if (n >= 4 && (memcmp(head, "fLaC", 4) == 0 || memcmp(head, "OggS", 4) == 0)) {
		for (size_t i = 0; i < t->n; i++)
			if (strchr(t->v[i].value, ';'))
				return true;
		return false;
	}
	return true;
}

/* FFmpeg's one value of key is its join (with ';') of a comment repeated
 * in one block, each part one of TagLib's values for key: "X;X" for an
 * ARTIST=X written twice, which TagLib reads as X (and a value repeated
 * is one). A ';' inside a value that TagLib reads whole is not such a
 * join; nor is the join of comments in two blocks, which TagLib reads
 * only the first of (their parts are not all TagLib's). */
static bool ff_joined_repeats(const struct mlib_tags *t, const struct mlib_tags *tl,
			      const char *key)
{
	const char *ff = mlib_tags_get(t, key);
	if (!ff || !strchr(ff, ';'))
		return false;
	for (const char *part = ff;;) {
		const char *end = strchr(part, ';');
		size_t len = end ? (size_t)(end - part) : strlen(part);
		while (len && isspace((unsigned char)*part)) {
			part++;
			len--;
		}
		while (len && isspace((unsigned char)part[len - 1]))
			len--;
		bool known = false;
		for (size_t i = 0; i < tl->n && !known; i++)
			known = strcmp(tl->v[i].key, key) == 0 && strlen(tl->v[i].value) == len &&
				memcmp(tl->v[i].value, part, len) == 0;
		if (!known)
			return false;
		if (!end)
			return true;
		part = end + 1;
	}
}

/* The tags the library lists by (the media table's columns, numbers
 * included): TagLib's fill one FFmpeg lacks, as they are named alike in
 * both (free-form names differ: TagLib's ENCODING is FFmpeg's encoder). */
static bool basic_key(const char *key)
{
	static const char *const keys[] = {"artist",   "album",	 "albumartist", "title",
					   "date",     "genre",	 "composer",	"tracknr",
					   "discnr",   "tracktotal", "disctotal"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

/* Merge TagLib's values into what FFmpeg found (see the top of the file). */
static void tl_read(const char *path, struct mlib_tags *t)
{
	bool fill = !tags_has(t, "artist") && !tags_has(t, "title") && !tags_has(t, "album");
	struct mlib_tags tl;
	mlib_tags_init(&tl);
	int64_t length_ms = 0;
	if (mlib_taglib_read(path, tl_collect, &tl, t->duration_ms != 0 ? NULL : &length_ms) != 0) {
		mlib_tags_free(&tl);
		return;
	}
	if (t->duration_ms == 0 && length_ms > 0)
		t->duration_ms = length_ms;
	for (size_t i = 0; i < tl.n; i++) {
		const char *key = tl.v[i].key;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(tl.v[j].key, key) == 0;
		if (seen)
			continue; /* handled at its first value */
		size_t ntl = tags_count(&tl, key), nff = tags_count(t, key);
		if (nff ? ntl <= nff && !(nff == 1 && ff_joined_repeats(t, &tl, key))
			: !fill && !basic_key(key))
			continue;
		tags_remove_key(t, key);
		for (size_t j = i; j < tl.n; j++)
			if (strcmp(tl.v[j].key, key) == 0)
				tags_push(t, key, tl.v[j].value, strlen(tl.v[j].value));
	}
	mlib_tags_free(&tl);
}

/* Dates that are none: a date without a digit (a broken TYER frame that
 * TagLib reads as the text "\xc3\xbe\xc3\xbf", its byte-order mark), and a
 * YEAR tag, read as a date (see key_alias), beside a DATE of the same year
 * ("2004-05-03" and "2004"), which says nothing more and was shown as a
 * second date ("2004-05-03; 2004"). */
static void drop_dates_that_are_none(struct mlib_tags *t)
{
	size_t w = 0;
	for (size_t i = 0; i < t->n; i++) {
		const char *v = t->v[i].value;
		bool date = strcmp(t->v[i].key, "date") == 0;
		bool redundant = date && !strpbrk(v, "0123456789");
		if (date && strlen(v) == 4 && strspn(v, "0123456789") == 4)
			for (size_t j = 0; j < t->n && !redundant; j++)
				redundant = j != i && strcmp(t->v[j].key, "date") == 0 &&
					    strlen(t->v[j].value) > 4 &&
					    strncmp(t->v[j].value, v, 4) == 0;
		if (redundant) {
			free(t->v[i].key);
			free(t->v[i].value);
		} else {
			t->v[w++] = t->v[i];
		}
	}
	t->n = w;
}

int mlib_tags_read(const char *path, int timeout_ms, struct mlib_tags *out, struct crate_err *err)
{
	mlib_tags_global_init();
	/* Open once ourselves, never blocking, and check the descriptor: a
	 * FIFO swapped in for the file after the scanner looked would block
	 * FFmpeg's or TagLib's own open forever. They then open the same file
	 * through the descriptor. (Also: FFmpeg reports EACCES as a generic
	 * failure on some paths, and TagLib not at all.) */
	struct stat stb;
	struct crate_err oerr = {0};
	int fd = safeopen_regular(path, &stb, &oerr);
	if (fd < 0) {
		crate_err_set(err, oerr.code == CRATE_ERR_INVALID ? CRATE_ERR_MEDIA : CRATE_ERR_IO,
			      "%s", oerr.msg);
		return -1;
	}
	if (stb.st_size == 0) {
		close(fd);
		return crate_err_set(err, CRATE_ERR_MEDIA, "%s: empty file (0 bytes)", path);
	}
	unsigned char head[12];
	ssize_t got = pread(fd, head, sizeof head, 0);
	size_t nhead = got > 0 ? (size_t)got : 0;
	char via[PATH_MAX];
	const char *open_path = safeopen_fd_path(fd, path, via, sizeof via);
	int rc = ff_probe(path, open_path, head, nhead, timeout_ms, out, err);
	if (rc == 0) {
		if (!out->rating && nhead >= 3 && memcmp(head, "ID3", 3) == 0)
			out->rating = id3_rating(open_path);
		if (taglib_may_add(out, head, nhead))
			tl_read(open_path, out);
		drop_dates_that_are_none(out);
		if (out->duration_ms < 0)
			out->duration_ms = 0;
	}
	safeopen_fd_path_done(open_path);
	close(fd);
	return rc;
}
