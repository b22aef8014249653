/* Equalizer cost: CPU time to process audio at 44.1 kHz stereo s16 through
 * a preset with every band active, as a percentage of one core in real
 * time. Prints one JSON line per figure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "play/eq.h"
#include "play/presets.h"

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double bench_fmt(enum eq_fmt fmt, const struct eq_settings *s, double audio_s)
{
	enum { RATE = 44100, BLOCK = 4096 };
	size_t bytes = fmt == EQ_FMT_S16 ? 2 : 4;
	char *buf = xmalloc(BLOCK * 2 * bytes);
	uint32_t rnd = 12345;
	for (size_t i = 0; i < BLOCK * 2; i++) {
		rnd = rnd * 1664525u + 1013904223u;
		double v = ((rnd >> 8) / 16777216.0 - 0.5) * 0.5;
		if (fmt == EQ_FMT_S16)
			((int16_t *)buf)[i] = (int16_t)(v * 32767);
		else if (fmt == EQ_FMT_S32)
			((int32_t *)buf)[i] = (int32_t)(v * 2147483647.0);
		else
			((float *)buf)[i] = (float)v;
	}
	struct eq *eq = eq_new(s, RATE, 2, fmt, NULL);
	size_t blocks = (size_t)(audio_s * RATE / BLOCK);
	double t0 = cpu_seconds();
	for (size_t i = 0; i < blocks; i++)
		eq_process(eq, buf, BLOCK);
	double t = cpu_seconds() - t0;
	eq_free(eq);
	free(buf);
	return 100.0 * t / ((double)blocks * BLOCK / RATE);
}

int main(int argc, char **argv)
{
	double audio_s = 300; /* five minutes of audio */
	if (argc > 1 && strcmp(argv[1], "quick") == 0)
		audio_s = 60;
	struct eq_settings s;
	if (eq_preset_get(NULL, "rock", &s, NULL) != 0)
		return 1;
	printf("{\"name\":\"eq_cpu_44k_stereo\",\"value\":%.3f,\"unit\":\"%% of one core\"}\n",
	       bench_fmt(EQ_FMT_S16, &s, audio_s));
	printf("{\"name\":\"eq_cpu_44k_stereo_float\",\"value\":%.3f,\"unit\":\"%% of one core\"}\n",
	       bench_fmt(EQ_FMT_FLT, &s, audio_s));
	struct eq_settings flat = {0};
	printf("{\"name\":\"eq_cpu_44k_stereo_flat\",\"value\":%.3f,\"unit\":\"%% of one core\"}\n",
	       bench_fmt(EQ_FMT_S16, &flat, audio_s));
	return 0;
}
