#include "play/pcm.h"

#include <string.h>

size_t play_sfmt_bytes(enum play_sfmt f)
{
	switch (f) {
	case PLAY_SFMT_S16: return 2;
	case PLAY_SFMT_S32: return 4;
	case PLAY_SFMT_FLOAT: return 4;
	default: return 0;
	}
}

size_t play_frame_bytes(const struct play_format *f)
{
	return play_sfmt_bytes(f->sfmt) * (size_t)f->channels;
}

bool play_format_equal(const struct play_format *a, const struct play_format *b)
{
	return a->sfmt == b->sfmt && a->rate == b->rate && a->channels == b->channels;
}

const char *play_sfmt_name(enum play_sfmt f)
{
	switch (f) {
	case PLAY_SFMT_S16: return "s16";
	case PLAY_SFMT_S32: return "s32";
	case PLAY_SFMT_FLOAT: return "float";
	default: return "auto";
	}
}

int play_sfmt_parse(const char *s)
{
	static const char *const names[] = {"auto", "s16", "s32", "float"};
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}
