/* Time from a `next` command to the new track's first sample at the sink,
 * through the whole application: a scanned library, a playlist, the engine
 * and ALSA's file plugin writing into a FIFO that a reader thread watches.
 * The playing track is silence and the next one a tone, so the first
 * non-zero byte the reader sees is the new track's first sample.
 * Same format (44.1 kHz -> 44.1 kHz: the device stays open) and format
 * change (44.1 -> 48 kHz: the device is reopened). Median of 20 (quick: 8).
 * Prints JSON lines. Runs against any build with the app_play API, so the
 * same file measures the code before and after a change. */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_library.h"
#include "app/app_play.h"
#include "coll/search.h"
#include "coll/store.h"
#include "medialib/scan.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The sink: reads the FIFO; once armed, notes when a non-zero byte comes. */
struct sink {
	char fifo[512];
	pthread_t thread;
	atomic_bool quit, armed;
	_Atomic double heard_ms; /* 0 until heard */
};

static void *sink_main(void *arg)
{
	struct sink *s = arg;
	static unsigned char buf[1 << 14];
	while (!atomic_load(&s->quit)) {
		int fd = open(s->fifo, O_RDONLY);
		if (fd < 0)
			break;
		ssize_t n;
		while ((n = read(fd, buf, sizeof buf)) > 0) {
			if (!atomic_load(&s->armed) || atomic_load(&s->heard_ms) > 0)
				continue;
			for (ssize_t i = 0; i < n; i++)
				if (buf[i]) {
					atomic_store(&s->heard_ms, now_ms());
					break;
				}
		}
		close(fd);
	}
	return NULL;
}

static int started;
static void on_notice(void *ud, const struct app_play_notice *n)
{
	(void)ud;
	if (n->type == APP_PLAY_STARTED)
		started++;
}

static void pump(struct app *app, int ms)
{
	struct crate_err err = {0};
	int fd = app_play_event_fd(app, &err);
	double end = now_ms() + ms;
	while (now_ms() < end) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, 5);
		app_play_handle_events(app);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median ms from next to the first sample of entry 1 of list name. */
static double measure(struct app *app, struct sink *s, const char *name, int runs, double *lo,
		      double *hi)
{
	double *t = calloc((size_t)runs, sizeof *t);
	int got = 0;
	for (int r = 0; r < runs; r++) {
		struct crate_err err = {0};
		started = 0;
		if (app_play_collection(app, "Playlists", name, 0, &err) != 0) {
			fprintf(stderr, "bench_next: %s\n", err.msg);
			break;
		}
		for (int w = 0; w < 400 && !started; w++)
			pump(app, 10);
		pump(app, 400); /* the device is open and playing the silence */
		atomic_store(&s->heard_ms, 0);
		atomic_store(&s->armed, true);
		double t0 = now_ms();
		app_play_next(app, &err);
		while (atomic_load(&s->heard_ms) == 0 && now_ms() - t0 < 5000)
			pump(app, 1);
		atomic_store(&s->armed, false);
		double h = atomic_load(&s->heard_ms);
		if (h > 0)
			t[got++] = h - t0;
		app_play_stop(app, &err);
		pump(app, 100);
	}
	qsort(t, (size_t)got, sizeof *t, cmp_double);
	double med = got ? t[got / 2] : -1;
	*lo = got ? t[0] : -1;
	*hi = got ? t[got - 1] : -1;
	free(t);
	return med;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 && strcmp(argv[1], "quick") == 0 ? 8 : 20;
	char dir[] = "/tmp/crate-bench-next-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("bench_next: mkdtemp");
		return 1;
	}
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
		 "mkdir -p %s/music && cd %s/music && "
		 "ffmpeg -nostdin -v quiet -y -f lavfi -i anullsrc=r=44100:cl=stereo -t 30 "
		 "-metadata title=Silence a.flac && "
		 "ffmpeg -nostdin -v quiet -y -f lavfi -i 'sine=f=440:r=44100:d=5' -ac 2 "
		 "-metadata title=Same b.flac && "
		 "ffmpeg -nostdin -v quiet -y -f lavfi -i 'sine=f=440:r=48000:d=5' -ac 2 "
		 "-metadata title=Other c.flac",
		 dir, dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "bench_next: ffmpeg could not make the test files\n");
		return 1;
	}
	struct sink s = {0};
	snprintf(s.fifo, sizeof s.fifo, "%s/sink.fifo", dir);
	if (mkfifo(s.fifo, 0600) != 0) {
		perror("bench_next: mkfifo");
		return 1;
	}
	char path[700];
	snprintf(path, sizeof path, "%s/.asoundrc", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "pcm.!default { type file; slave.pcm \"null\"; file \"%s\"; format \"raw\" }\n",
		s.fifo);
	fclose(f);
	setenv("HOME", dir, 1);
	snprintf(path, sizeof path, "%s/config", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "[output]\npace = true\n");
	fclose(f);
	pthread_create(&s.thread, NULL, sink_main, &s);

	char db[600], music[600];
	snprintf(db, sizeof db, "%s/lib.db", dir);
	snprintf(music, sizeof music, "%s/music", dir);
	struct app_opts o = {.db_path = db, .config_path = path};
	struct app *app;
	struct crate_err err = {0};
	if (app_open(&app, &o, &err) != 0) {
		fprintf(stderr, "bench_next: %s\n", err.msg);
		return 1;
	}
	struct mlib_scan_result res = {0};
	const char *paths[] = {music};
	app_scan(app, paths, 1, NULL, NULL, &res, &err);
	mlib_scan_result_free(&res);
	app_playlist_new(app, "Same", &err);
	app_playlist_add_query(app, "Same", "title:Silence OR title:Same", COLL_SEARCH_EXACT, NULL, NULL, &err);
	app_playlist_new(app, "Change", &err);
	app_playlist_add_query(app, "Change", "title:Silence OR title:Other", COLL_SEARCH_EXACT, NULL, NULL, &err);
	/* Library order is by url: a.flac first. */
	app_play_set_listener(app, on_notice, NULL);
	double lo, hi;
	double same = measure(app, &s, "Same", runs, &lo, &hi);
	printf("{\"name\":\"next_to_first_sample_same_format\",\"median_ms\":%.1f,\"min_ms\":%.1f,"
	       "\"max_ms\":%.1f}\n", same, lo, hi);
	double change = measure(app, &s, "Change", runs, &lo, &hi);
	printf("{\"name\":\"next_to_first_sample_format_change\",\"median_ms\":%.1f,\"min_ms\":%.1f,"
	       "\"max_ms\":%.1f}\n", change, lo, hi);
	fflush(stdout);
	app_close(app);
	atomic_store(&s.quit, true);
	int fd = open(s.fifo, O_WRONLY | O_NONBLOCK);
	if (fd >= 0)
		close(fd);
	pthread_join(s.thread, NULL);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return 0;
}
