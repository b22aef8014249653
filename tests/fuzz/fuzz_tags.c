/* Fuzz target: reading one file's tags and stream properties
 * (mlib_tags_read in src/medialib/tags.h: FFmpeg probe + TagLib), the path
 * every scanned file takes.
 *
 * Input: one byte choosing the file name extension (TagLib picks its parser
 * by extension; FFmpeg sniffs the content), then the file's bytes, written
 * to a temporary file. Oracle: no crash, leak or hang; success gives
 * non-empty keys and values and sane numbers; failure gives CRATE_ERR_MEDIA
 * or CRATE_ERR_IO with a message.
 *
 * tests/fuzz/run-fuzz.sh prefixes each corpus seed with the index of its
 * extension in fuzz_tags_exts (keep the two lists in step).
 * Built with -DCRATE_FUZZ_MAIN as a libFuzzer binary (tests/fuzz/fuzz.mk);
 * tests/unit/test_fuzz_regress.c includes this file to replay saved inputs. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "medialib/tags.h"

static const char *const fuzz_tags_exts[] = {
	"mp3", "flac", "ogg", "m4a", "wav", "aif", "wv", "ape", "mpc", "opus",
	"wma", "spx", "tta", "oga", "mp4", "aiff", "dsf", "webm", "mka", "xx",
};
#define FUZZ_TAGS_NEXTS (sizeof fuzz_tags_exts / sizeof fuzz_tags_exts[0])

static char fuzz_tags_why[1024];

static const char *fuzz_tags_fail(const char *what, const char *detail)
{
	snprintf(fuzz_tags_why, sizeof fuzz_tags_why, "%s%s", what, detail ? detail : "");
	return fuzz_tags_why;
}

/* dir: where to put the temporary file (NULL: $TMPDIR or /tmp). */
static const char *fuzz_tags_check(const uint8_t *data, size_t size, const char *dir)
{
	if (size < 1)
		return NULL;
	if (!dir)
		dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	snprintf(path, sizeof path, "%s/crate-fuzz-tags-%ld.%s", dir, (long)getpid(),
		 fuzz_tags_exts[data[0] % FUZZ_TAGS_NEXTS]);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return fuzz_tags_fail("cannot create the temporary file ", path);
	size_t off = 1;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);

	mlib_tags_global_init();
	struct mlib_tags t;
	struct crate_err err = {0};
	mlib_tags_init(&t);
	int rc = mlib_tags_read(path, 3000, &t, &err);
	unlink(path);
	const char *why = NULL;
	if (rc != 0) {
		if (err.code != CRATE_ERR_MEDIA && err.code != CRATE_ERR_IO)
			why = fuzz_tags_fail("failed with an unexpected error code: ", err.msg);
		else if (err.msg[0] == '\0')
			why = fuzz_tags_fail("failed without a message", NULL);
	} else {
		if (t.duration_ms < 0 || t.bitrate < 0 || t.samplerate < 0 || t.channels < 0)
			why = fuzz_tags_fail("negative stream property", NULL);
		for (size_t i = 0; !why && i < t.n; i++) {
			if (!t.v[i].key || !t.v[i].key[0])
				why = fuzz_tags_fail("empty tag name", NULL);
			else if (!t.v[i].value || !t.v[i].value[0])
				why = fuzz_tags_fail("empty value for tag ", t.v[i].key);
		}
	}
	mlib_tags_free(&t);
	return why;
}

#ifdef CRATE_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = fuzz_tags_check(data, size, NULL);
	if (why) {
		fprintf(stderr, "fuzz_tags oracle: %s\n", why);
		abort();
	}
	return 0;
}
#endif
