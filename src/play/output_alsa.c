#include "play/output_alsa.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

struct alsa_out {
	snd_pcm_t *pcm;
	char *device;
	struct play_format fmt;
	snd_pcm_uframes_t buffer_size, period_size;
	bool can_pause, paused;
	bool pace;
	double pace_t0;         /* wall clock when pace_frames was 0 */
	int64_t pace_frames;
	int buffer_ms;
};

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

/* alsa-lib prints its errors to stderr; crate reports them as values. */
static void alsa_silent(const char *file, int line, const char *fn, int err, const char *fmt, ...)
{
	(void)file, (void)line, (void)fn, (void)err, (void)fmt;
}

static void quiet_alsa(void)
{
	snd_lib_error_set_handler(alsa_silent);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static snd_pcm_format_t alsa_fmt(enum play_sfmt f)
{
	switch (f) {
	case PLAY_SFMT_S32: return SND_PCM_FORMAT_S32;
	case PLAY_SFMT_FLOAT: return SND_PCM_FORMAT_FLOAT;
	default: return SND_PCM_FORMAT_S16;
	}
}

/* The wanted sample format first, then the others from most to least common. */
static int pick_format(snd_pcm_t *pcm, snd_pcm_hw_params_t *hw, enum play_sfmt want,
		       enum play_sfmt *got)
{
	const enum play_sfmt order[] = {want, PLAY_SFMT_S16, PLAY_SFMT_S32, PLAY_SFMT_FLOAT};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (snd_pcm_hw_params_test_format(pcm, hw, alsa_fmt(order[i])) == 0 &&
		    snd_pcm_hw_params_set_format(pcm, hw, alsa_fmt(order[i])) == 0) {
			*got = order[i];
			return 0;
		}
	}
	return -EINVAL;
}

static int configure(struct alsa_out *o, const struct play_format *want, struct crate_err *err)
{
	snd_pcm_hw_params_t *hw;
	snd_pcm_sw_params_t *sw;
	snd_pcm_hw_params_alloca(&hw);
	snd_pcm_sw_params_alloca(&sw);
	const char *step = "hardware parameters";
	int r = snd_pcm_hw_params_any(o->pcm, hw);
	if (r >= 0) {
		step = "interleaved access";
		r = snd_pcm_hw_params_set_access(o->pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED);
	}
	if (r >= 0) {
		step = "sample format";
		r = pick_format(o->pcm, hw, want->sfmt, &o->fmt.sfmt);
	}
	unsigned ch = (unsigned)want->channels, rate = (unsigned)want->rate;
	if (r >= 0) {
		step = "channel count";
		r = snd_pcm_hw_params_set_channels_near(o->pcm, hw, &ch);
	}
	if (r >= 0) {
		/* We resample ourselves (libswresample) when the device cannot
		 * take the rate, rather than through ALSA's plug converter. */
		snd_pcm_hw_params_set_rate_resample(o->pcm, hw, 0);
		step = "sample rate";
		r = snd_pcm_hw_params_set_rate_near(o->pcm, hw, &rate, NULL);
	}
	unsigned buf_us = (unsigned)o->buffer_ms * 1000u, per_us = buf_us / 4;
	if (r >= 0) {
		step = "buffer time";
		r = snd_pcm_hw_params_set_buffer_time_near(o->pcm, hw, &buf_us, NULL);
	}
	if (r >= 0) {
		step = "period time";
		r = snd_pcm_hw_params_set_period_time_near(o->pcm, hw, &per_us, NULL);
	}
	if (r >= 0) {
		step = "hardware parameters";
		r = snd_pcm_hw_params(o->pcm, hw);
	}
	if (r < 0)
		return crate_err_set(err, CRATE_ERR_DEVICE, "audio device '%s': cannot set %s: %s",
				     o->device, step, snd_strerror(r));
	snd_pcm_hw_params_get_buffer_size(hw, &o->buffer_size);
	snd_pcm_hw_params_get_period_size(hw, &o->period_size, NULL);
	o->can_pause = snd_pcm_hw_params_can_pause(hw);
	o->fmt.channels = (int)ch;
	o->fmt.rate = (int)rate;

	r = snd_pcm_sw_params_current(o->pcm, sw);
	if (r >= 0)
		r = snd_pcm_sw_params_set_start_threshold(o->pcm, sw,
							  o->buffer_size - o->period_size);
	if (r >= 0)
		r = snd_pcm_sw_params_set_avail_min(o->pcm, sw, o->period_size);
	if (r >= 0)
		r = snd_pcm_sw_params(o->pcm, sw);
	if (r < 0)
		return crate_err_set(err, CRATE_ERR_DEVICE,
				     "audio device '%s': cannot set software parameters: %s",
				     o->device, snd_strerror(r));
	return 0;
}

/* The FILE argument of one "file:" definition starting at a (past the
 * "file:"): 'quoted', "quoted", FILE=..., or up to a comma. Owned. */
static char *file_arg(const char *a)
{
	if (strncmp(a, "FILE=", 5) == 0)
		a += 5;
	if (*a == '\'' || *a == '"') {
		const char *end = strchr(a + 1, *a);
		return end ? xstrndup(a + 1, (size_t)(end - a - 1)) : xstrdup(a + 1);
	}
	return xstrndup(a, strcspn(a, ",}' \""));
}

static bool looks_like_audio_output(const char *path)
{
	static const char *const ext[] = {".raw", ".pcm", ".wav", ".au", ".s16", ".s32", ".f32"};
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		size_t k = strlen(ext[i]);
		if (n > k && strcasecmp(path + n - k, ext[i]) == 0)
			return true;
	}
	return false;
}

int alsa_device_file_check(const char *device, bool overwrite, struct crate_err *err)
{
	if (!device || overwrite)
		return 0;
	/* every "file:" that starts a definition ("file:...", "plug:file:...") */
	for (const char *p = strstr(device, "file:"); p; p = strstr(p + 5, "file:")) {
		if (p != device && p[-1] != ':' && p[-1] != '\'' && p[-1] != '"')
			continue;
		char *path = file_arg(p + 5);
		struct stat st;
		bool bad = path[0] && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
			   !looks_like_audio_output(path);
		if (bad) {
			crate_err_set(err, CRATE_ERR_REFUSED,
				      "audio device '%s' would overwrite %s, an existing file that "
				      "is not audio output (set output.file_overwrite = yes to allow)",
				      device, path);
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

int alsa_out_open(const struct alsa_opts *opts, const struct play_format *want,
		  struct play_format *got, struct alsa_out **out, struct crate_err *err)
{
	pthread_once(&quiet_once, quiet_alsa);
	struct alsa_out *o = xcalloc(1, sizeof *o);
	o->device = xstrdup(opts->device && *opts->device ? opts->device : "default");
	o->buffer_ms = opts->buffer_ms > 0 ? opts->buffer_ms : 100;
	o->pace = opts->pace;
	int r = snd_pcm_open(&o->pcm, o->device, SND_PCM_STREAM_PLAYBACK, 0);
	if (r < 0) {
		crate_err_set(err, CRATE_ERR_DEVICE, "cannot open audio device '%s': %s", o->device,
			      snd_strerror(r));
		o->pcm = NULL;
		alsa_out_close(o, true);
		return -1;
	}
	if (configure(o, want, err) != 0) {
		alsa_out_close(o, true);
		return -1;
	}
	o->pace_t0 = now_s();
	*got = o->fmt;
	*out = o;
	return 0;
}

void alsa_out_close(struct alsa_out *o, bool drop)
{
	if (!o)
		return;
	if (o->pcm) {
		if (drop)
			snd_pcm_drop(o->pcm);
		else
			alsa_out_drain(o, NULL);
		snd_pcm_close(o->pcm);
	}
	free(o->device);
	free(o);
}

/* Sleep while more than a buffer's worth is ahead of the wall clock. */
static void pace_wait(struct alsa_out *o, bool all)
{
	if (!o->pace)
		return;
	double ahead = (double)o->pace_frames / o->fmt.rate - (now_s() - o->pace_t0);
	double allow = all ? 0 : o->buffer_ms / 1000.0;
	if (ahead > allow) {
		double s = ahead - allow;
		struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
		nanosleep(&ts, NULL);
	}
}

static void pace_reset(struct alsa_out *o)
{
	o->pace_t0 = now_s();
	o->pace_frames = 0;
}

int alsa_out_write(struct alsa_out *o, const void *buf, size_t frames, struct crate_err *err)
{
	size_t fb = play_frame_bytes(&o->fmt);
	const uint8_t *p = buf;
	if (o->paused) {
		alsa_out_pause(o, false);
	}
	while (frames > 0) {
		snd_pcm_sframes_t n = snd_pcm_writei(o->pcm, p, frames);
		if (n == -EAGAIN) {
			snd_pcm_wait(o->pcm, 100);
			continue;
		}
		if (n < 0) {
			/* Underrun (-EPIPE) or suspend (-ESTRPIPE): recover and retry. */
			int r = snd_pcm_recover(o->pcm, (int)n, 1);
			if (r < 0)
				return crate_err_set(err, CRATE_ERR_DEVICE,
						     "audio device '%s': write failed: %s", o->device,
						     snd_strerror(r));
			continue;
		}
		p += (size_t)n * fb;
		frames -= (size_t)n;
		o->pace_frames += n;
	}
	return 0;
}

int alsa_out_pace_wait_ms(const struct alsa_out *o)
{
	if (!o->pace)
		return 0;
	double ahead = (double)o->pace_frames / o->fmt.rate - (now_s() - o->pace_t0);
	double over = ahead - o->buffer_ms / 1000.0;
	return over > 0 ? (int)(over * 1000) + 1 : 0;
}

int alsa_out_drain(struct alsa_out *o, struct crate_err *err)
{
	pace_wait(o, true);
	pace_reset(o);
	snd_pcm_state_t st = snd_pcm_state(o->pcm);
	if (st != SND_PCM_STATE_RUNNING && st != SND_PCM_STATE_PREPARED)
		return 0;
	int r = snd_pcm_drain(o->pcm);
	if (r < 0 && r != -EPIPE)
		return crate_err_set(err, CRATE_ERR_DEVICE, "audio device '%s': drain failed: %s",
				     o->device, snd_strerror(r));
	snd_pcm_prepare(o->pcm);
	return 0;
}

void alsa_out_drop(struct alsa_out *o)
{
	snd_pcm_drop(o->pcm);
	snd_pcm_prepare(o->pcm);
	o->paused = false;
	pace_reset(o);
}

void alsa_out_pause(struct alsa_out *o, bool pause)
{
	if (pause == o->paused)
		return;
	o->paused = pause;
	if (o->can_pause && snd_pcm_state(o->pcm) == (pause ? SND_PCM_STATE_RUNNING
							       : SND_PCM_STATE_PAUSED)) {
		snd_pcm_pause(o->pcm, pause ? 1 : 0);
	} else if (!pause) {
		/* It ran dry while we stopped feeding it: start over cleanly. */
		snd_pcm_state_t st = snd_pcm_state(o->pcm);
		if (st == SND_PCM_STATE_XRUN || st == SND_PCM_STATE_SETUP)
			snd_pcm_prepare(o->pcm);
	}
	if (!pause)
		pace_reset(o);
}

int64_t alsa_out_delay(struct alsa_out *o)
{
	snd_pcm_sframes_t d = 0;
	if (snd_pcm_delay(o->pcm, &d) < 0 || d < 0)
		return 0;
	int64_t ahead = 0;
	if (o->pace) {
		/* null/file consume instantly: what is "ahead" is what the clock has not reached. */
		ahead = o->pace_frames - (int64_t)((now_s() - o->pace_t0) * o->fmt.rate);
		if (ahead < 0)
			ahead = 0;
	}
	return (int64_t)d > ahead ? (int64_t)d : ahead;
}

void alsa_out_format(const struct alsa_out *o, struct play_format *out)
{
	*out = o->fmt;
}
