#include "medialib/rating.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mlib_rating_from_popm(unsigned b)
{
	if (b == 0)
		return 0;
	return b < 32 ? 1 : b < 96 ? 2 : b < 160 ? 3 : b < 224 ? 4 : 5;
}

int mlib_rating_from_text(const char *s)
{
	if (!s)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	char *end;
	double v = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (end == s || *end || !(v > 0))
		return 0;
	if (strchr(s, '.') && v <= 1.0) /* a share: 0.8 */
		return v * 5 < 0.5 ? 0 : (int)(v * 5 + 0.5);
	if (v <= 5)
		return (int)(v + 0.5);
	if (v <= 100)
		return (int)((v + 10) / 20);
	if (v <= 255)
		return mlib_rating_from_popm((unsigned)v);
	return 0;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t syncsafe(const unsigned char *p)
{
	return (uint32_t)(p[0] & 0x7f) << 21 | (uint32_t)(p[1] & 0x7f) << 14 |
	       (uint32_t)(p[2] & 0x7f) << 7 | (p[3] & 0x7f);
}

int mlib_rating_from_id3v2(const unsigned char *buf, size_t n)
{
	if (n < 10 || memcmp(buf, "ID3", 3) != 0 || buf[3] < 3 || buf[3] > 4)
		return 0;
	int ver = buf[3];
	size_t end = 10 + (size_t)syncsafe(buf + 6);
	if (end > n)
		end = n;
	size_t p = 10;
	if (buf[5] & 0x40) { /* extended header */
		if (p + 4 > end)
			return 0;
		p += ver == 4 ? syncsafe(buf + p) : 4 + be32(buf + p);
	}
	int txxx = 0;
	while (p + 10 <= end && buf[p] != 0) {
		uint32_t len = ver == 4 ? syncsafe(buf + p + 4) : be32(buf + p + 4);
		const unsigned char *f = buf + p + 10;
		if (len > end - p - 10)
			break;
		if (memcmp(buf + p, "POPM", 4) == 0) {
			/* email, NUL, rating byte, counter */
			const unsigned char *nul = memchr(f, 0, len);
			if (nul && (size_t)(nul - f) + 1 < len)
				return mlib_rating_from_popm(nul[1]);
		} else if (memcmp(buf + p, "TXXX", 4) == 0 && len > 1 && !txxx &&
			   (f[0] == 0 || f[0] == 3)) {
			/* Latin-1 or UTF-8: description NUL value */
			const unsigned char *nul = memchr(f + 1, 0, len - 1);
			if (nul && nul - (f + 1) == 6 && strncasecmp((const char *)f + 1, "RATING", 6) == 0) {
				char v[32];
				size_t vl = len - (size_t)(nul + 1 - f);
				if (vl < sizeof v) {
					memcpy(v, nul + 1, vl);
					v[vl] = 0;
					txxx = mlib_rating_from_text(v);
				}
			}
		}
		p += 10 + len;
	}
	return txxx;
}

/* Find child box `type` inside [pos, end) of f; its payload in [*ppos, *pend). */
static int mp4_find(FILE *f, long pos, long end, const char *type, long *ppos, long *pend)
{
	unsigned char h[8];
	while (pos + 8 <= end) {
		if (fseek(f, pos, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8)
			return 0;
		uint64_t size = be32(h);
		long hdr = 8;
		if (size == 1) {
			unsigned char l[8];
			if (fread(l, 1, 8, f) != 8)
				return 0;
			size = (uint64_t)be32(l) << 32 | be32(l + 4);
			hdr = 16;
		} else if (size == 0) {
			size = (uint64_t)(end - pos);
		}
		if (size < (uint64_t)hdr || size > (uint64_t)(end - pos))
			return 0;
		if (memcmp(h + 4, type, 4) == 0) {
			*ppos = pos + hdr;
			*pend = pos + (long)size;
			return 1;
		}
		pos += (long)size;
	}
	return 0;
}

int mlib_rating_from_mp4(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	int stars = 0;
	long a, b, end;
	if (fseek(f, 0, SEEK_END) == 0 && (end = ftell(f)) > 0 &&
	    mp4_find(f, 0, end, "moov", &a, &b) && mp4_find(f, a, b, "udta", &a, &b) &&
	    mp4_find(f, a, b, "meta", &a, &b) && (a += 4) && /* meta is a full box */
	    mp4_find(f, a, b, "ilst", &a, &b) && mp4_find(f, a, b, "rate", &a, &b) &&
	    mp4_find(f, a, b, "data", &a, &b) && b - a > 8 && b - a < 40) {
		/* data: type(4) locale(4) value: text digits, or a 1-byte integer */
		unsigned char v[40];
		size_t n = (size_t)(b - a);
		if (fseek(f, a, SEEK_SET) == 0 && fread(v, 1, n, f) == n) {
			uint32_t type = be32(v) & 0xffffff;
			bool digits = n > 8;
			for (size_t i = 8; i < n; i++)
				digits = digits && isdigit(v[i]);
			if (type == 1 || digits) { /* text, or "80" written as implicit data */
				char txt[40];
				memcpy(txt, v + 8, n - 8);
				txt[n - 8] = 0;
				stars = mlib_rating_from_text(txt);
			} else if (n - 8 <= 4) {
				unsigned x = 0;
				for (size_t i = 8; i < n; i++)
					x = x << 8 | v[i];
				stars = x > 0 && x <= 100 ? (int)((x + 10) / 20) : 0;
			}
		}
	}
	fclose(f);
	return stars;
}
