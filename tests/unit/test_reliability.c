/* Regression tests of issue 14 ("Reliability round 2") that belong to no
 * single module's suite: files swapped for FIFOs, hostile gains, huge
 * numbers in queries, configuration limits. Each names its item. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#include "base/err.h"
#include "medialib/tags.h"
#include "play/decoder.h"

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
		/* path: the file, then the FIFO, then the file, ... each for a
		 * moment, swapped atomically (never missing). */
		for (unsigned k = 0;; k++) {
			if (renameat2(AT_FDCWD, path, AT_FDCWD, fifo, RENAME_EXCHANGE) != 0)
				_exit(1);
			usleep(50 + k % 7 * 40);
		}
	}
	alarm(60); /* the old code blocked in open() for good */
	int ok = 0, refused = 0;
	for (int i = 0; i < 400; i++) {
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
	CHECK_MSG(ok + refused == 400, "%d reads", ok + refused);
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
