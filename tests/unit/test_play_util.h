/* Helpers shared by the test_play*.c suites (static: each suite is its own
 * binary): reference decoding with the ffmpeg tool, generated test tones,
 * and an ALSA configuration that sends "default" to a raw file. */
#ifndef CRATE_TEST_PLAY_UTIL_H
#define CRATE_TEST_PLAY_UTIL_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"

/* Whole file (or command output) into memory; *len its size. NULL on failure. */
static inline char *tp_slurp_stream(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	*len = n;
	return buf;
}

static inline char *tp_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		*len = 0;
		return NULL;
	}
	char *b = tp_slurp_stream(f, len);
	fclose(f);
	return b;
}

/* The ffmpeg tool's own decoding of path to raw fmt ("s16le", "f32le",
 * "s32le") with ch channels at rate. Paths here never hold quotes. */
static inline char *tp_ffmpeg_decode(const char *path, const char *fmt, int ch, int rate,
				     size_t *len)
{
	*len = 0;
	char *cmd = xasprintf("ffmpeg -nostdin -v quiet -i '%s' -f %s -ac %d -ar %d -", path, fmt,
			      ch, rate);
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	char *b = tp_slurp_stream(p, len);
	pclose(p);
	return b;
}

/* Run a shell command quietly; true on success. */
static inline bool tp_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline bool tp_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	return system(cmd) == 0;
}

/* A sine tone of secs seconds at rate (stereo), encoded by extension. */
static inline bool tp_make_tone(const char *path, int freq, double secs, int rate,
				const char *extra)
{
	return tp_sh("ffmpeg -nostdin -v quiet -y -f lavfi -i 'sine=f=%d:d=%g:r=%d' -ac 2 %s '%s'",
		     freq, secs, rate, extra ? extra : "", path);
}

/* The tones of tp_make_tones, made by one ffmpeg run. A process a tone
 * was most of the processor time of the suites that make libraries of
 * them (over a hundred tones in test_play_context alone). */
static inline bool tp_run_tones(int n, char *const paths[], const int freqs[], double secs,
				const int rates[], char *const extras[])
{
	char *cmd = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);
	if (!f)
		return false;
	fputs("ffmpeg -nostdin -v quiet -y", f);
	for (int i = 0; i < n; i++)
		fprintf(f, " -f lavfi -i 'sine=f=%d:d=%g:r=%d'", freqs[i], secs, rates[i]);
	for (int i = 0; i < n; i++)
		fprintf(f, " -map %d -ac 2 %s '%s'", i, extras && extras[i] ? extras[i] : "", paths[i]);
	if (fclose(f) != 0) {
		free(cmd);
		return false;
	}
	bool ok = system(cmd) == 0;
	free(cmd);
	return ok;
}

static inline bool tp_copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY);
	int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bool ok = out >= 0;
	char buf[65536];
	ssize_t r;
	while (ok && (r = read(in, buf, sizeof buf)) != 0)
		ok = r > 0 && write(out, buf, (size_t)r) == r;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		ok = false;
	return ok;
}

static inline const char *tp_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The directory naming the tones' recipe (names, frequencies, length,
 * rates, options) under the runner's CRATE_TEST_SHARED; NULL without it
 * or when two tones share a name. */
static inline char *tp_shared_tones_dir(int n, char *const paths[], const int freqs[],
					double secs, const int rates[], char *const extras[])
{
	const char *shared = getenv("CRATE_TEST_SHARED");
	if (!shared || !*shared)
		return NULL;
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			if (strcmp(tp_base_name(paths[i]), tp_base_name(paths[j])) == 0)
				return NULL;
		char *part = xasprintf("%s|%d|%g|%d|%s\n", tp_base_name(paths[i]), freqs[i], secs,
				       rates[i], extras && extras[i] ? extras[i] : "");
		for (const char *c = part; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		free(part);
	}
	mkdir(shared, 0700);
	return xasprintf("%s/tones-%016llx", shared, (unsigned long long)h);
}

/* n sine tones made by one ffmpeg run: tone i is paths[i], freqs[i] Hz
 * for secs seconds at rates[i] Hz, stereo, with the ffmpeg output options
 * extras[i] (NULL: none): the same files as n tp_make_tone calls. Under
 * tests/run-tests.sh, tones once made are copied from the run's shared
 * directory (under a lock) rather than made again: most tests of
 * test_play_context make one of a few libraries, and both build trees
 * make the same. */
static inline bool tp_make_tones(int n, char *const paths[], const int freqs[], double secs,
				 const int rates[], char *const extras[])
{
	char *dir = tp_shared_tones_dir(n, paths, freqs, secs, rates, extras);
	if (!dir)
		return tp_run_tones(n, paths, freqs, secs, rates, extras);
	char *lock = xasprintf("%s.lock", dir);
	int fd = open(lock, O_WRONLY | O_CREAT, 0600);
	if (fd >= 0)
		flock(fd, LOCK_EX);
	struct stat st;
	bool ok = stat(dir, &st) == 0;
	for (int i = 0; ok && i < n; i++) {
		char *from = xasprintf("%s/%s", dir, tp_base_name(paths[i]));
		ok = tp_copy_file(from, paths[i]);
		free(from);
	}
	if (!ok) {
		ok = tp_run_tones(n, paths, freqs, secs, rates, extras);
		char *tmp = xasprintf("%s.%ld", dir, (long)getpid());
		bool kept = ok && mkdir(tmp, 0700) == 0;
		for (int i = 0; kept && i < n; i++) {
			char *to = xasprintf("%s/%s", tmp, tp_base_name(paths[i]));
			kept = tp_copy_file(paths[i], to);
			free(to);
		}
		if (!kept || rename(tmp, dir) != 0)
			tp_sh("rm -rf '%s'", tmp);
		free(tmp);
	}
	if (fd >= 0)
		close(fd);
	free(lock);
	free(dir);
	return ok;
}

/* dir/t00.flac, dir/t01.flac, ...: n tones of 200, 220, ... Hz, tone i at
 * rates[i] Hz with the ffmpeg options extras[i] (tp_make_tones). */
static inline bool tp_make_numbered_tones(const char *dir, int n, double secs, const int rates[],
					  char *const extras[])
{
	char **paths = xcalloc((size_t)n, sizeof *paths);
	int *freqs = xcalloc((size_t)n, sizeof *freqs);
	for (int i = 0; i < n; i++) {
		paths[i] = xasprintf("%s/t%02d.flac", dir, i);
		freqs[i] = 200 + 20 * i;
	}
	bool ok = tp_make_tones(n, paths, freqs, secs, rates, extras);
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(freqs);
	return ok;
}

/* HOME=dir with an .asoundrc whose default PCM writes raw frames to
 * dir/out.raw through the null plugin (which takes any format and rate
 * and consumes instantly). Call before anything touches ALSA. Returns
 * the output path (static storage). */
static inline const char *tp_alsa_to_file(const char *dir)
{
	static char out[4096];
	snprintf(out, sizeof out, "%s/out.raw", dir);
	char *rc = xasprintf("%s/.asoundrc", dir);
	FILE *f = fopen(rc, "w");
	if (f) {
		fprintf(f, "pcm.!default { type file; slave.pcm \"null\"; file \"%s\"; format \"raw\" }\n",
			out);
		fprintf(f, "pcm.broken { type hw; card 42; device 0 }\n");
		fclose(f);
	}
	free(rc);
	setenv("HOME", dir, 1);
	return out;
}

#endif
