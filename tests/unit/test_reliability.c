/* Regression tests of issue 14 ("Reliability round 2") that belong to no
 * single module's suite: files swapped for FIFOs, hostile gains, huge
 * numbers in queries, configuration limits. Each names its item. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#include "base/config.h"
#include "base/err.h"
#include "base/safeopen.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/node.h"
#include "coll/parse.h"
#include "medialib/index.h"
#include "medialib/tags.h"
#include "play/decoder.h"
#include "play/gain.h"

/* A small real audio file (FFmpeg's encoder, as the other suites do);
 * false when ffmpeg is missing. */
static bool make_flac(const char *path)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd,
		 "ffmpeg -v error -y -f lavfi -i 'sine=frequency=440:duration=1' -ac 1 "
		 "-metadata artist=Swap -metadata title=Target '%s' </dev/null", path);
	return system(cmd) == 0;
}

/* Issue 14 item 5a: the scanner checked the file, then FFmpeg and TagLib
 * opened it again by name; a FIFO swapped in between blocked that open
 * forever (crate scan never returned). A second process swaps a file and
 * a FIFO under one name as fast as it can while the tag reader runs. */
TEST(tags_read_never_opens_a_fifo_swapped_in)
{
	char file[4096], fifo[4096], path[4096];
	snprintf(file, sizeof file, "%s/real.flac", harness_tmpdir());
	snprintf(fifo, sizeof fifo, "%s/fifo.flac", harness_tmpdir());
	snprintf(path, sizeof path, "%s/track.flac", harness_tmpdir());
	if (!make_flac(file))
		harness_skip("ffmpeg cannot make a test file");
	REQUIRE(mkfifo(fifo, 0644) == 0);
	REQUIRE(link(file, path) == 0);
	pid_t swapper = fork();
	REQUIRE(swapper >= 0);
	if (swapper == 0) {
		alarm(120); /* never outlive the test */
		/* path: the file, then the FIFO, then the file, ... each for a
		 * moment, swapped atomically (never missing). */
		for (unsigned k = 0;; k++) {
			if (renameat2(AT_FDCWD, path, AT_FDCWD, fifo, RENAME_EXCHANGE) != 0)
				_exit(1);
			usleep(50 + k % 7 * 40);
		}
	}
	alarm(90); /* the old code blocked in open() for good */
	int ok = 0, refused = 0;
	/* Until both states were met often (a loaded machine may leave the
	 * swapper asleep in one of them for a while). */
	time_t give_up = time(NULL) + 30;
	for (int i = 0; (i < 400 || ok < 50 || refused < 50) && time(NULL) < give_up; i++) {
		struct mlib_tags t;
		mlib_tags_init(&t);
		struct crate_err err = {0};
		if (mlib_tags_read(path, 2000, &t, &err) == 0)
			ok++;
		else
			refused++;
		mlib_tags_free(&t);
	}
	alarm(0);
	kill(swapper, SIGKILL);
	waitpid(swapper, NULL, 0);
	CHECK_MSG(ok > 0 && refused > 0, "the swap was not exercised (%d read, %d refused)", ok,
		  refused);
}

/* Issue 14 item 5b: decoder_open opened any path; a track replaced by a
 * FIFO hung playback (and 'q', which waits for the engine). */
TEST(decoder_refuses_a_fifo_without_blocking)
{
	char fifo[4096];
	snprintf(fifo, sizeof fifo, "%s/track.mp3", harness_tmpdir());
	REQUIRE(mkfifo(fifo, 0644) == 0);
	alarm(20);
	struct decoder *d = NULL;
	struct crate_err err = {0};
	int rc = decoder_open(fifo, &d, &err);
	alarm(0);
	CHECK(rc != 0 && d == NULL);
	CHECK_MSG(strstr(err.msg, "not a regular file") != NULL, "%s", err.msg);
	CHECK_INT(err.code, CRATE_ERR_MEDIA);
	/* A real file still opens, through its descriptor. */
	char file[4096];
	snprintf(file, sizeof file, "%s/real.flac", harness_tmpdir());
	if (make_flac(file)) {
		crate_err_clear(&err);
		CHECK_MSG(decoder_open(file, &d, &err) == 0, "%s", err.msg);
		decoder_free(d);
	}
}

/* Issue 14 item 6: REPLAYGAIN_TRACK_GAIN=+200 dB made a quiet file a
 * full-scale square wave (x 1e10), and replaygain_preamp = nan made every
 * sample INT32_MIN. */
TEST(replaygain_is_bounded_and_never_nan)
{
	CHECK(isnan(play_rg_parse_gain("+200 dB")));
	CHECK(isnan(play_rg_parse_gain("-99 dB")));
	CHECK(isnan(play_rg_parse_gain("nan")));
	CHECK(isnan(play_rg_parse_gain("inf dB")));
	CHECK(fabs(play_rg_parse_gain("-6.48 dB") + 6.48) < 1e-9);
	CHECK(fabs(play_rg_parse_gain("+51 dB") - 51) < 1e-9);
	CHECK(isnan(play_rg_parse_peak("0")));
	CHECK(isnan(play_rg_parse_peak("-1")));
	CHECK(isnan(play_rg_parse_peak("1e300")));
	/* Opus R128 gains: 1/256 dB, +5 dB to ReplayGain's reference */
	CHECK(fabs(play_rg_parse_r128("-2816") + 6.0) < 1e-9);
	CHECK(isnan(play_rg_parse_r128("-2816.5")));
	CHECK(isnan(play_rg_parse_r128("40000")));
	CHECK(fabs(play_rg_parse_peak("0.988525") - 0.988525) < 1e-9);

	/* Whatever reaches the factor (a tag read elsewhere, a rule), it is
	 * clamped: +200 dB plays as +51 dB at most, NaN pre-amp as 0 dB. */
	struct play_rg rg = play_rg_none();
	rg.track_gain_db = 200;
	double f = play_rg_factor(&rg, PLAY_RG_TRACK, 0);
	CHECK_MSG(isfinite(f) && f <= pow(10, 51.0 / 20) * 1.0001, "factor %g", f);
	rg.track_gain_db = -3;
	f = play_rg_factor(&rg, PLAY_RG_TRACK, NAN);
	CHECK_MSG(fabs(f - pow(10, -3.0 / 20)) < 1e-9, "NaN pre-amp: factor %g", f);
	f = play_rg_factor(&rg, PLAY_RG_TRACK, INFINITY);
	CHECK_MSG(isfinite(f) && f <= pow(10, (15.0 - 3) / 20) * 1.0001, "inf pre-amp: %g", f);

	/* Samples: a NaN factor leaves them alone; big gains saturate at full
	 * scale, in every format. */
	int32_t s32[4] = { 1000, -1000, 2000000000, -5 };
	struct play_format fmt = { .sfmt = PLAY_SFMT_S32, .channels = 1, .rate = 44100 };
	play_gain_apply(s32, 4, &fmt, NAN);
	CHECK(s32[0] == 1000 && s32[1] == -1000 && s32[2] == 2000000000 && s32[3] == -5);
	play_gain_apply(s32, 4, &fmt, 1e10);
	CHECK(s32[0] == INT32_MAX && s32[1] == INT32_MIN && s32[2] == INT32_MAX && s32[3] == INT32_MIN);
	float fl[3] = { 0.5f, -0.25f, 0.001f };
	fmt.sfmt = PLAY_SFMT_FLOAT;
	play_gain_apply(fl, 3, &fmt, 1000);
	CHECK_MSG(fl[0] == 1.0f && fl[1] == -1.0f && fl[2] == 1.0f, "float: %g %g %g", fl[0], fl[1],
		  fl[2]);
}

/* Issue 14 item 9: y>9223372036854775806 and duration>99999999999999999999
 * matched every item (signed overflow in compile_int_range; UBSan reports
 * it in the sanitizer build). */
TEST(huge_numbers_in_queries_match_nothing_extra)
{
	struct mlib_index *idx = mlib_index_new();
	for (uint32_t id = 1; id <= 5; id++) {
		mlib_index_add_media(idx, id);
		mlib_index_set_int(idx, id, "year", 1990 + id);
		mlib_index_set_int(idx, id, "duration", 1000 * id);
		mlib_index_set_int(idx, id, "added", 1700000000 + id);
	}
	mlib_index_finish(idx);
	static const struct {
		const char *q;
		size_t want;
	} cases[] = {
		{ "y>9223372036854775806", 0 },
		{ "y>9223372036854775807", 0 },
		{ "duration>99999999999999999999", 0 },
		{ "duration>=99999999999999999999", 0 },
		{ "y<-99999999999999999999", 0 },
		{ "y<=-99999999999999999999", 0 },
		{ "y<99999999999999999999", 5 },
		{ "y>-99999999999999999999", 5 },
		{ "y:99999999999999999999", 0 },
		{ "y!=99999999999999999999", 5 },
		{ "y>1993", 2 },
	};
	struct coll_eval_ctx ctx = { .index = idx, .now = 1800000000 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct crate_err err = { 0 };
		struct coll_node *n = coll_parse(cases[i].q, strlen(cases[i].q), NULL, &err);
		if (!CHECK_MSG(n != NULL, "[%s]: %s", cases[i].q, err.msg))
			continue;
		struct coll_result r = { 0 };
		if (CHECK_MSG(coll_eval(&ctx, n, &r, &err) == 0, "[%s]: %s", cases[i].q, err.msg))
			CHECK_MSG(r.ids.n == cases[i].want, "[%s] matched %zu items, not %zu",
				  cases[i].q, r.ids.n, cases[i].want);
		coll_result_free(&r);
		coll_node_unref(n);
	}
	mlib_index_free(idx);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	REQUIRE(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* Issue 14 item 12: lines over 4095 bytes were split (and the error named
 * the wrong line); only the first of several errors was shown. */
TEST(config_long_lines_and_every_error_with_its_line)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/config", harness_tmpdir());
	struct strbuf b;
	strbuf_init(&b, 1 << 16);
	strbuf_adds(&b, "[output]\ndevice = ");
	for (int i = 0; i < 10000; i++)
		strbuf_addc(&b, (char)('a' + i % 26));
	strbuf_adds(&b, "\n[playback]\nthis line is wrong\nvolume = 50\n[\nalso wrong\n");
	write_file(path, b.buf);
	struct config *cfg = NULL;
	struct crate_err err = { 0 };
	CHECK(config_load(path, &cfg, &err) != 0);
	CHECK_MSG(strstr(err.msg, "line 4: expected 'key = value'") != NULL, "line 4 not named: %s",
		  err.msg);
	CHECK_MSG(strstr(err.msg, "line 6: malformed section") != NULL, "line 6 not named: %s",
		  err.msg);
	CHECK_MSG(strstr(err.msg, "line 7: expected") != NULL, "line 7 not named: %s", err.msg);
	CHECK_MSG(strstr(err.msg, "3 problems") != NULL, "%s", err.msg);
	/* without the bad lines the long value is whole */
	strbuf_reset(&b);
	strbuf_adds(&b, "[output]\ndevice = ");
	for (int i = 0; i < 10000; i++)
		strbuf_addc(&b, 'x');
	strbuf_adds(&b, "\n[playback]\nvolume = 50\n");
	write_file(path, b.buf);
	crate_err_clear(&err);
	REQUIRE(config_load(path, &cfg, &err) == 0);
	CHECK_INT(strlen(config_get(cfg, "output.device", "")), 10000);
	CHECK_INT(config_get_int(cfg, "playback.volume", 0), 50);
	CHECK_INT(config_line(cfg, "playback.volume"), 4);
	config_free(cfg);
	strbuf_free(&b);
}

/* Issue 14 item 12: volume = 2147483647 was taken as it was ("vol
 * 1569325055%", and '+' overflowed); every option is range-checked, each
 * bad value reported with its line. */
TEST(config_values_are_range_checked)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/config", harness_tmpdir());
	write_file(path, "[playback]\nvolume = 2147483647\nreplaygain = loud\n"
			 "replaygain_preamp = nan\nshuffle = perhaps\n[output]\nbuffer_ms = -5\n"
			 "format = s24\n[layout]\nstart_view = nowhere\n");
	struct config *cfg = NULL;
	struct crate_err err = { 0 };
	REQUIRE(config_load(path, &cfg, &err) == 0); /* the syntax is fine */
	static const struct config_option opts[] = {
		{ "playback.volume", CONFIG_INT, 0, 100, NULL, NULL, 0 },
		{ "playback.replaygain", CONFIG_CHOICE, 0, 0, "off|track|album", NULL, 0 },
		{ "playback.replaygain_preamp", CONFIG_NUMBER, -15, 15, NULL, NULL, 0 },
		{ "playback.shuffle", CONFIG_BOOL, 0, 0, NULL, NULL, 0 },
		{ "output.buffer_ms", CONFIG_INT, 10, 10000, NULL, NULL, 0 },
		{ "output.format", CONFIG_CHOICE, 0, 0, "auto|s16|s32|float", NULL, 0 },
		{ "layout.start_view", CONFIG_CHOICE, 0, 0, "browser|playlist", NULL, 0 },
	};
	CHECK(config_check(cfg, opts, sizeof opts / sizeof opts[0], &err) != 0);
	static const char *const want[] = { "line 2: playback.volume", "line 3: playback.replaygain",
					    "line 4: playback.replaygain_preamp",
					    "line 5: playback.shuffle", "line 7: output.buffer_ms",
					    "line 8: output.format", "line 10: layout.start_view" };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		CHECK_MSG(strstr(err.msg, want[i]) != NULL, "[%s] missing from: %s", want[i], err.msg);
	config_free(cfg);
}

/* Issue 14 item 12: config_set searched every key (17.7 s for 100,000
 * keys). 200,000 keys now load at once; the alarm only keeps the old
 * quadratic loader (over a minute here) from running forever. */
TEST(config_loads_many_keys_linearly)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/config", harness_tmpdir());
	FILE *f = fopen(path, "w");
	REQUIRE(f != NULL);
	fputs("[many]\n", f);
	for (int i = 0; i < 200000; i++)
		fprintf(f, "key%d = %d\n", i, i);
	fclose(f);
	alarm(30);
	struct config *cfg = NULL;
	struct crate_err err = { 0 };
	REQUIRE(config_load(path, &cfg, &err) == 0);
	alarm(0);
	CHECK_INT(config_get_int(cfg, "many.key199999", -1), 199999);
	CHECK_INT(config_line(cfg, "many.key0"), 2);
	config_free(cfg);
}

/* The private link directories of processes killed without their atexit
 * piled up (1,966 empty crate-open-* in /tmp after one afternoon of test
 * runs). A dead process's directory is swept; a live one's, one holding a
 * file that is not our symlink, and other names stay. */
TEST(stale_link_directories_of_dead_processes_are_swept)
{
	const char *base = harness_tmpdir();
	pid_t dead = fork();
	REQUIRE(dead >= 0);
	if (dead == 0)
		_exit(0);
	REQUIRE(waitpid(dead, NULL, 0) == dead);
	char gone[512], kept_live[512], kept_file[512], other[512], link[600], file[600];
	snprintf(gone, sizeof gone, "%s/crate-open-%ld-aaaaaa", base, (long)dead);
	snprintf(kept_live, sizeof kept_live, "%s/crate-open-%ld-bbbbbb", base, (long)getppid());
	snprintf(kept_file, sizeof kept_file, "%s/crate-open-%ld-cccccc", base, (long)dead);
	snprintf(other, sizeof other, "%s/crate-open-XYZabc", base);
	REQUIRE(mkdir(gone, 0700) == 0 && mkdir(kept_live, 0700) == 0 &&
		mkdir(kept_file, 0700) == 0 && mkdir(other, 0700) == 0);
	snprintf(link, sizeof link, "%s/7.flac", gone);
	REQUIRE(symlink("/proc/self/fd/7", link) == 0);
	snprintf(file, sizeof file, "%s/notes.txt", kept_file);
	FILE *f = fopen(file, "w");
	REQUIRE(f != NULL);
	fputs("not ours\n", f);
	fclose(f);
	safeopen_sweep_stale(base);
	struct stat st;
	CHECK_MSG(stat(gone, &st) != 0, "%s is still there", gone);
	CHECK(stat(kept_live, &st) == 0);
	CHECK(stat(kept_file, &st) == 0 && stat(file, &st) == 0);
	CHECK(stat(other, &st) == 0);
	/* The directory this process makes carries its pid. */
	setenv("XDG_RUNTIME_DIR", base, 1);
	char src[512], buf[600];
	snprintf(src, sizeof src, "%s/x.flac", base);
	f = fopen(src, "w");
	REQUIRE(f != NULL);
	fclose(f);
	int fd = open(src, O_RDONLY);
	REQUIRE(fd >= 0);
	const char *name = safeopen_fd_path(fd, src, buf, sizeof buf);
	char want[64];
	snprintf(want, sizeof want, "/crate-open-%ld-", (long)getpid());
	CHECK_MSG(strstr(name, want) != NULL, "link %s", name);
	safeopen_fd_path_done(name);
	close(fd);
}
