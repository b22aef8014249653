/* The decoder against the ffmpeg tool's own decoding of the corpus. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "play/decoder.h"
#include "play/stream_list.h"
#include "test_play_util.h"

/* Decode all of path to fmt; owned buffer, *len bytes; NULL on open failure. */
static char *decode_all(const char *path, struct play_format *fmt, size_t *len,
			struct crate_err *err)
{
	struct decoder *d;
	if (decoder_open(path, &d, err) != 0)
		return NULL;
	struct play_format native;
	decoder_native_format(d, &native);
	if (fmt->rate == 0)
		fmt->rate = native.rate;
	if (fmt->channels == 0)
		fmt->channels = native.channels;
	if (fmt->sfmt == PLAY_SFMT_AUTO)
		fmt->sfmt = native.sfmt;
	decoder_set_output(d, fmt, err);
	size_t fb = play_frame_bytes(fmt), cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap * fb);
	long r;
	while ((r = decoder_read(d, buf + n * fb, 4096 < cap - n ? 4096 : cap - n, err)) > 0) {
		n += (size_t)r;
		if (cap - n < 4096)
			buf = xrealloc(buf, (cap *= 2) * fb);
	}
	decoder_free(d);
	*len = n * fb;
	return buf;
}

struct entry {
	char file[256], codec[128], decodable[16];
};

/* decodable=yes rows of the manifest. */
static size_t manifest_yes(const char *corpus, struct entry **out)
{
	char *p = xasprintf("%s/MANIFEST.tsv", corpus);
	FILE *f = fopen(p, "r");
	free(p);
	size_t n = 0, cap = 0;
	*out = NULL;
	if (!f)
		return 0;
	char line[65536];
	int colcodec = -1, coldec = -1;
	while (fgets(line, sizeof line, f)) {
		char *cols[40] = {0};
		int nc = 0;
		for (char *s = line, *tok; nc < 40 && (tok = strsep(&s, "\t\n"));)
			cols[nc++] = tok;
		if (colcodec < 0) {
			for (int i = 0; i < nc; i++) {
				if (strcmp(cols[i], "container_codec") == 0)
					colcodec = i;
				if (strcmp(cols[i], "decodable") == 0)
					coldec = i;
			}
			continue;
		}
		if (coldec >= nc || strcmp(cols[coldec], "yes") != 0)
			continue;
		if (n == cap)
			*out = xreallocarray(*out, cap = cap ? cap * 2 : 64, sizeof **out);
		snprintf((*out)[n].file, sizeof (*out)[n].file, "%s", cols[0]);
		snprintf((*out)[n].codec, sizeof (*out)[n].codec, "%s", cols[colcodec]);
		snprintf((*out)[n].decodable, sizeof (*out)[n].decodable, "%s", cols[coldec]);
		n++;
	}
	fclose(f);
	return n;
}

/* Largest absolute sample difference over the common length. */
static int max_diff_s16(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = (alen < blen ? alen : blen) / 2;
	int m = 0;
	for (size_t i = 0; i < n; i++) {
		int16_t x, y;
		memcpy(&x, a + 2 * i, 2);
		memcpy(&y, b + 2 * i, 2);
		int d = abs(x - y);
		if (d > m)
			m = d;
	}
	return m;
}

/* Every decodable=yes file, to s16 at its own rate and channel count:
 * byte-identical to `ffmpeg -f s16le -ac C -ar R`. */
TEST(corpus_matches_ffmpeg_s16)
{
	const char *corpus = harness_corpus_dir();
	if (!corpus)
		harness_skip("../shared/corpus not found");
	struct entry *ents;
	size_t n = manifest_yes(corpus, &ents);
	REQUIRE(n >= 40);
	size_t exact = 0, tested = 0;
	/* All files with CRATE_TEST_FULL=1; by default every codec at least
	 * once plus every third file (about 80), to keep the suite quick. */
	bool full = getenv("CRATE_TEST_FULL") != NULL;
	char seen[4096] = "";
	for (size_t i = 0; i < n; i++) {
		char key[140];
		snprintf(key, sizeof key, "|%s|", ents[i].codec);
		bool new_codec = !strstr(seen, key);
		if (new_codec && strlen(seen) + strlen(key) < sizeof seen)
			strcat(seen, key);
		bool changing = strstr(ents[i].file, "uncommon_0") != NULL;
		if (!full && !new_codec && !changing && i % 3 != 0)
			continue;
		char *path = xasprintf("%s/%s", corpus, ents[i].file);
		struct crate_err err = {0};
		struct play_format fmt = {.sfmt = PLAY_SFMT_S16};
		size_t len = 0, rlen = 0;
		char *ours = decode_all(path, &fmt, &len, &err);
		if (!ours) {
			/* A build without the codec: same "typical FFmpeg" leeway as the manifest. */
			CHECK_MSG(err.code != 0 && strstr(err.msg, ents[i].file),
				  "%s: failed without a message naming it", ents[i].file);
			free(path);
			continue;
		}
		char *ref = tp_ffmpeg_decode(path, "s16le", fmt.channels, fmt.rate, &rlen);
		tested++;
		if (len == rlen && memcmp(ours, ref, len) == 0) {
			exact++;
		} else if (changing) {
			/* Sample rate / channel count changes mid-stream: we keep the
			 * first format and convert later frames to it; ffmpeg
			 * rebuilds its filter graph, so remix/resampler edges differ.
			 * Require no crash and the same length within 1 %. */
			double ratio = rlen ? (double)len / (double)rlen : 0;
			CHECK_MSG(ratio > 0.99 && ratio < 1.01, "%s: %zu bytes vs ffmpeg %zu",
				  ents[i].file, len, rlen);
		} else {
			int md = max_diff_s16(ours, len, ref, rlen);
			CHECK_MSG(0, "%s (%s, %d Hz, %d ch): %zu bytes vs ffmpeg %zu, max diff %d",
				  ents[i].file, ents[i].codec, fmt.rate, fmt.channels, len, rlen, md);
		}
		free(ours);
		free(ref);
		free(path);
	}
	fprintf(stderr, "    %zu of %zu decodable files byte-identical to ffmpeg\n", exact, tested);
	CHECK(tested >= 40);
	free(ents);
}

/* Read everything the decoder d still gives (s16 stereo); owned, *n frames. */
static int16_t *read_rest(struct decoder *d, size_t *n)
{
	size_t cap = 1 << 16;
	int16_t *buf = xmalloc(cap * 4);
	struct crate_err err = {0};
	long r;
	*n = 0;
	while ((r = decoder_read(d, buf + *n * 2, 1000, &err)) > 0) {
		*n += (size_t)r;
		if (cap - *n < 1000)
			buf = xrealloc(buf, (cap *= 2) * 4);
	}
	CHECK_MSG(r == 0, "read: %s", err.msg);
	return buf;
}

/* A cue sheet's track: samples [start, end) of the file exactly, seeks
 * and positions inside it, and the last track to the end of the file. */
TEST(range_plays_exact_samples_and_seeks_inside)
{
	char *path = xasprintf("%s/noise.flac", harness_tmpdir());
	if (!tp_sh("ffmpeg -nostdin -v quiet -y -f lavfi -i 'anoisesrc=d=4:r=44100:seed=7' "
		   "-ac 2 -sample_fmt s16 '%s'", path))
		harness_skip("ffmpeg cannot make a test file");
	struct play_format fmt = {.sfmt = PLAY_SFMT_S16, .channels = 2, .rate = 44100};
	struct crate_err err = {0};
	size_t len;
	int16_t *whole = (int16_t *)decode_all(path, &fmt, &len, &err);
	REQUIRE(whole != NULL);
	size_t total = len / 4;
	REQUIRE(total == 4 * 44100);

	const int64_t start = 66150 + 17, end = 132300 + 5; /* 1.5 s and 3 s, off the frame grid */
	struct decoder *d;
	REQUIRE(decoder_open(path, &d, &err) == 0);
	REQUIRE(decoder_set_output(d, &fmt, &err) == 0);
	REQUIRE(decoder_set_range(d, start, end, &err) == 0);
	CHECK_INT(decoder_duration_ms(d), (end - start) * 1000 / 44100);
	CHECK_INT(decoder_position_ms(d), 0);
	size_t n;
	int16_t *got = read_rest(d, &n);
	CHECK_INT(n, end - start);
	CHECK(n == (size_t)(end - start) && memcmp(got, whole + start * 2, n * 4) == 0);
	free(got);

	/* Seek 500 ms into the track: the file's start + 22050 samples. */
	REQUIRE(decoder_seek(d, 500, &err) == 0);
	CHECK_INT(decoder_position_ms(d), 500);
	got = read_rest(d, &n);
	CHECK_INT(n, end - start - 22050);
	CHECK(n == (size_t)(end - start - 22050) &&
	      memcmp(got, whole + (start + 22050) * 2, n * 4) == 0);
	free(got);
	/* Past the end: nothing more, never audio of the next track. */
	REQUIRE(decoder_seek(d, 60000, &err) == 0);
	got = read_rest(d, &n);
	CHECK_INT(n, 0);
	free(got);
	decoder_free(d);

	/* The last track: to the end of the file. */
	REQUIRE(decoder_open(path, &d, &err) == 0);
	REQUIRE(decoder_set_output(d, &fmt, &err) == 0);
	REQUIRE(decoder_set_range(d, end, 0, &err) == 0);
	got = read_rest(d, &n);
	CHECK_INT(n, total - (size_t)end);
	CHECK(n == total - (size_t)end && memcmp(got, whole + end * 2, n * 4) == 0);
	free(got);
	CHECK(decoder_set_range(d, 10, 5, &err) != 0 && err.code == CRATE_ERR_INVALID);
	decoder_free(d);
	free(whole);
	free(path);
}

TEST(radio_playlists_are_known_by_name_and_content_type)
{
	CHECK(stream_list_named("http://radio.example/listen.pls"));
	CHECK(stream_list_named("https://radio.example/a/b.M3U?sid=1"));
	CHECK(stream_list_named("http://radio.example/live.m3u8#x"));
	CHECK(!stream_list_named("http://radio.example/listen"));
	CHECK(!stream_list_named("http://radio.example/stream.mp3?f=.pls"));
	CHECK(!stream_list_named("http://radio.pls/"));
	CHECK(stream_list_mime("audio/x-scpls"));
	CHECK(stream_list_mime("Audio/X-MpegURL; charset=utf-8"));
	CHECK(stream_list_mime("application/xspf+xml"));
	CHECK(!stream_list_mime("audio/mpeg"));
	CHECK(!stream_list_mime("audio/x-scpls-not"));
	CHECK(!stream_list_mime(NULL));
}
