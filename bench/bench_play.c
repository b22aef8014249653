/* Playback benchmarks: decode speed (x real time) of a 320 kbit/s MP3 and
 * a FLAC, and the CPU share of one core while the engine plays in real
 * time to ALSA's null plugin (paced by the wall clock). Files are made
 * with the ffmpeg tool in a temporary directory. Prints JSON lines. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "play/decoder.h"
#include "play/engine.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static void report(const char *name, double value, const char *unit)
{
	printf("{\"name\":\"%s\",\"value\":%.2f,\"unit\":\"%s\"}\n", name, value, unit);
	fflush(stdout);
}

/* Decode the whole file to s16 stereo; x real time, or -1. */
static double decode_speed(const char *path)
{
	struct crate_err err = {0};
	struct decoder *d;
	double t0 = now_s();
	if (decoder_open(path, &d, &err) != 0) {
		fprintf(stderr, "bench_play: %s\n", err.msg);
		return -1;
	}
	struct play_format f;
	decoder_native_format(d, &f);
	f.sfmt = PLAY_SFMT_S16;
	decoder_set_output(d, &f, &err);
	static char buf[4096 * 8 * 4];
	long n, frames = 0;
	while ((n = decoder_read(d, buf, 4096, &err)) > 0)
		frames += n;
	decoder_free(d);
	double secs = now_s() - t0;
	return secs > 0 ? (double)frames / f.rate / secs : -1;
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
	int len = quick ? 60 : 300; /* seconds of audio to decode */
	char dir[] = "/tmp/crate-bench-play-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("bench_play: mkdtemp");
		return 1;
	}
	char cmd[1024];
	snprintf(cmd, sizeof cmd,
		 "ffmpeg -nostdin -v quiet -y -f lavfi -i 'sine=f=440:d=%d,volume=0.5' "
		 "-f lavfi -i 'anoisesrc=d=%d:a=0.1' -filter_complex amix=inputs=2 -ac 2 -ar 44100 "
		 "-c:a libmp3lame -b:a 320k %s/b.mp3 && "
		 "ffmpeg -nostdin -v quiet -y -i %s/b.mp3 -c:a flac %s/b.flac",
		 len, len, dir, dir, dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench_play: ffmpeg could not make the test files\n");
		return 1;
	}
	char mp3[600], flac[600];
	snprintf(mp3, sizeof mp3, "%s/b.mp3", dir);
	snprintf(flac, sizeof flac, "%s/b.flac", dir);
	report("play_decode_mp3_320k_speed", decode_speed(mp3), "x realtime");
	report("play_decode_flac_speed", decode_speed(flac), "x realtime");

	/* Real-time playback to the null device for ~5 s. */
	char rc[700];
	snprintf(rc, sizeof rc, "%s/.asoundrc", dir);
	FILE *f = fopen(rc, "w");
	if (f) {
		fprintf(f, "pcm.!default { type null }\n");
		fclose(f);
	}
	setenv("HOME", dir, 1);
	const char *files[] = {mp3, flac};
	const char *names[] = {"play_cpu_mp3_realtime", "play_cpu_flac_realtime"};
	for (int i = 0; i < 2; i++) {
		struct engine_opts o = {.pace = true, .volume = 80};
		struct engine *e;
		struct crate_err err = {0};
		if (engine_new(&o, &e, &err) != 0) {
			fprintf(stderr, "bench_play: %s\n", err.msg);
			return 1;
		}
		struct engine_track t = {.path = files[i], .id = 1, .rg = play_rg_none()};
		double c0 = cpu_s(), t0 = now_s();
		engine_play(e, &t);
		while (now_s() - t0 < (quick ? 2.0 : 5.0)) {
			struct pollfd p = {.fd = engine_event_fd(e), .events = POLLIN};
			poll(&p, 1, 100);
			struct engine_event ev;
			while (engine_next_event(e, &ev))
				if (ev.type == ENGINE_EV_ERROR)
					fprintf(stderr, "bench_play: %s\n", ev.msg);
		}
		double cpu = cpu_s() - c0, wall = now_s() - t0;
		engine_free(e);
		report(names[i], 100.0 * cpu / wall, "% of one core");
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_play: could not remove %s\n", dir);
	return 0;
}
