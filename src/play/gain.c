#include "play/gain.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct play_rg play_rg_none(void)
{
	return (struct play_rg){NAN, NAN, NAN, NAN};
}

int play_rg_mode_parse(const char *s)
{
	if (strcmp(s, "off") == 0 || strcmp(s, "none") == 0)
		return PLAY_RG_OFF;
	if (strcmp(s, "track") == 0)
		return PLAY_RG_TRACK;
	if (strcmp(s, "album") == 0)
		return PLAY_RG_ALBUM;
	return -1;
}

const char *play_rg_mode_name(enum play_rg_mode m)
{
	return m == PLAY_RG_TRACK ? "track" : m == PLAY_RG_ALBUM ? "album" : "off";
}

double play_rg_parse(const char *s)
{
	if (!s)
		return NAN;
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v))
		return NAN;
	return v;
}

double play_rg_parse_gain(const char *s)
{
	double v = play_rg_parse(s);
	return fabs(v) <= PLAY_RG_GAIN_MAX_DB ? v : NAN; /* NAN fails the test too */
}

double play_rg_parse_peak(const char *s)
{
	double v = play_rg_parse(s);
	return v > 0 && v <= 64.0 ? v : NAN;
}

double play_rg_parse_r128(const char *s)
{
	double v = play_rg_parse(s);
	/* RFC 7845: a whole number of 1/256 dB in a signed 16-bit range */
	if (isnan(v) || v != floor(v) || v < -32768 || v > 32767)
		return NAN;
	double gain = v / 256.0 + PLAY_RG_R128_OFFSET_DB;
	return fabs(gain) <= PLAY_RG_GAIN_MAX_DB ? gain : NAN;
}

static double clamp_db(double v, double max)
{
	return !isfinite(v) ? 0 : v > max ? max : v < -max ? -max : v;
}

double play_rg_factor(const struct play_rg *rg, enum play_rg_mode mode, double preamp_db)
{
	if (mode == PLAY_RG_OFF || !rg)
		return 1.0;
	double gain = rg->track_gain_db, peak = rg->track_peak;
	/* Each mode takes the other's gain where its own is missing (as MPD
	 * does), rather than play such a track at full level. */
	bool album = mode == PLAY_RG_ALBUM || isnan(rg->track_gain_db);
	if (album && !isnan(rg->album_gain_db)) {
		gain = rg->album_gain_db;
		peak = rg->album_peak;
	}
	if (isnan(gain))
		return 1.0;
	gain = clamp_db(gain, PLAY_RG_GAIN_MAX_DB);
	preamp_db = clamp_db(preamp_db, PLAY_RG_PREAMP_MAX_DB);
	double f = pow(10.0, (gain + preamp_db) / 20.0);
	/* Clipping prevention: the loudest sample must stay below full scale. */
	if (!isnan(peak) && peak > 0 && f * peak > 1.0)
		f = 1.0 / peak;
	return f;
}

double play_volume_factor(int percent)
{
	if (percent <= 0)
		return 0.0;
	if (percent >= 100)
		return 1.0;
	return percent / 100.0;
}

void play_gain_apply(void *frames, size_t n, const struct play_format *fmt, double factor)
{
	if (factor == 1.0 || !isfinite(factor))
		return;
	size_t count = n * (size_t)fmt->channels;
	switch (fmt->sfmt) {
	case PLAY_SFMT_S16: {
		int16_t *s = frames;
		for (size_t i = 0; i < count; i++) {
			double v = nearbyint(s[i] * factor);
			s[i] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
		}
		break;
	}
	case PLAY_SFMT_S32: {
		int32_t *s = frames;
		for (size_t i = 0; i < count; i++) {
			double v = nearbyint(s[i] * factor);
			s[i] = (int32_t)(v > 2147483647.0 ? 2147483647.0
						: v < -2147483648.0 ? -2147483648.0 : v);
		}
		break;
	}
	case PLAY_SFMT_FLOAT: {
		float *s = frames;
		float f = (float)factor;
		if (factor <= 1.0) {
			for (size_t i = 0; i < count; i++)
				s[i] *= f;
			break;
		}
		for (size_t i = 0; i < count; i++) {
			float v = s[i] * f;
			s[i] = v > 1.0f ? 1.0f : v < -1.0f ? -1.0f : v;
		}
		break;
	}
	default:
		break;
	}
}
