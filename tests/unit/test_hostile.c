/* Hostile input at the library level: bytes that must never reach a terminal
 * raw, and tag blocks crafted to hurt the reader (NUL bytes, escape
 * sequences in names and values, invalid UTF-8, 1 MB values, lying lengths).
 * The CLI-level twins are tests/integration/hostile_*.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

#include "base/err.h"
#include "base/str.h"
#include "base/utf8.h"
#include "medialib/tags.h"

/* True when s holds a C0/C1 control, DEL or an invalid sequence. */
static bool has_control(const char *s, size_t len)
{
	if (!utf8_valid(s, len))
		return true;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_decode(s + i, len - i, &cp);
		if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			return true;
		i += n;
	}
	return false;
}

static uint64_t rng = 0x853c49e6748fea9bull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

TEST(hostile_sanitize_random_bytes)
{
	/* bytes biased towards the dangerous ones: ESC, C1 lead bytes, NUL */
	static const unsigned char nasty[] = {0x1b, 0x07, 0x00, 0x9b, 0xc2, 0x80, 0x9d, 0x7f,
					      0xff, 0xed, 0xa0, 0xe2, '\n', '\r', '[', ']'};
	char buf[64];
	for (int round = 0; round < 20000; round++) {
		size_t len = rnd() % sizeof buf;
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)(rnd() % 3 ? nasty[rnd() % sizeof nasty] : rnd() % 256);
		char *clean = utf8_sanitize(buf, len);
		REQUIRE(clean != NULL);
		if (has_control(clean, strlen(clean))) {
			CHECK_MSG(false, "round %d: sanitised text still holds a control or invalid byte",
				  round);
			free(clean);
			break;
		}
		free(clean);
		size_t flen;
		char *folded = utf8_fold(buf, len, &flen);
		CHECK(folded && utf8_valid(folded, flen));
		free(folded);
	}
}

TEST(hostile_sanitize_known_attacks)
{
	static const char *const attacks[] = {
		"\x1b[31mred\x1b[0m",          /* SGR colour */
		"\x1b]0;title\x07",            /* set window title (OSC) */
		"\x1b]52;c;cGF5bG9hZA==\x07",  /* write the clipboard */
		"\x1b[6n",                     /* ask the terminal to answer */
		"\xc2\x9b" "2J",               /* C1 CSI, UTF-8 encoded: clear screen */
		"\x9b" "2J",                   /* C1 CSI as a raw byte */
		"\x1bP+q544e\x1b\\",           /* DCS request */
		"a\rb\bc\x7f",                 /* overwrite tricks */
		"\xe2\x80\xae" "evil",         /* right-to-left override (format char, kept but harmless) */
	};
	for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
		char *clean = utf8_sanitize(attacks[i], strlen(attacks[i]));
		CHECK_MSG(!has_control(clean, strlen(clean)), "attack %zu survives sanitising", i);
		CHECK_MSG(strchr(clean, 0x1b) == NULL, "attack %zu keeps an ESC", i);
		free(clean);
	}
}

/* ---- crafted FLAC files ---- */

static void put_le32(struct strbuf *b, uint32_t v)
{
	char c[4] = {(char)(v & 255), (char)(v >> 8 & 255), (char)(v >> 16 & 255), (char)(v >> 24)};
	strbuf_add(b, c, 4);
}

static void put_comment(struct strbuf *b, const char *s, size_t len)
{
	put_le32(b, (uint32_t)len);
	strbuf_add(b, s, len);
}

/* A small real FLAC made by ffmpeg; returns its bytes or skips the test. */
static char *template_flac(size_t *len)
{
	char cmd[8192], path[4096];
	snprintf(path, sizeof path, "%s/template.flac", harness_tmpdir());
	snprintf(cmd, sizeof cmd,
		 "ffmpeg -v error -y -f lavfi -i sine=frequency=440:duration=0.3:sample_rate=22050 "
		 "-ac 1 -map_metadata -1 '%s' </dev/null", path);
	if (system(cmd) != 0)
		harness_skip("ffmpeg cannot make a FLAC template");
	FILE *f = fopen(path, "rb");
	REQUIRE(f != NULL);
	struct strbuf b;
	strbuf_init(&b, 65536);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&b, buf, n);
	fclose(f);
	*len = b.len;
	return strbuf_steal(&b);
}

/* The template with its metadata replaced by STREAMINFO + the given
 * VORBIS_COMMENT block body; written to name in the test's tmpdir. */
static const char *write_flac(const char *name, const char *tpl, size_t tlen, const char *vc,
			      size_t vclen)
{
	static char path[4096];
	REQUIRE(tlen > 8 && memcmp(tpl, "fLaC", 4) == 0);
	size_t off = 4, streaminfo = 0, audio = 0;
	for (;;) {
		REQUIRE(off + 4 <= tlen);
		unsigned char h = (unsigned char)tpl[off];
		size_t blen = ((size_t)(unsigned char)tpl[off + 1] << 16) |
			      ((size_t)(unsigned char)tpl[off + 2] << 8) | (unsigned char)tpl[off + 3];
		if ((h & 0x7f) == 0)
			streaminfo = off;
		off += 4 + blen;
		if (h & 0x80) {
			audio = off;
			break;
		}
	}
	REQUIRE(audio > 0 && audio <= tlen);
	struct strbuf b;
	strbuf_init(&b, tlen + vclen + 64);
	strbuf_add(&b, "fLaC", 4);
	strbuf_addc(&b, 0x00); /* STREAMINFO, not last */
	strbuf_add(&b, tpl + streaminfo + 1, 3 + 34);
	strbuf_addc(&b, (char)0x84); /* VORBIS_COMMENT, last */
	strbuf_addc(&b, (char)(vclen >> 16 & 255));
	strbuf_addc(&b, (char)(vclen >> 8 & 255));
	strbuf_addc(&b, (char)(vclen & 255));
	strbuf_add(&b, vc, vclen);
	strbuf_add(&b, tpl + audio, tlen - audio);
	snprintf(path, sizeof path, "%s/%s", harness_tmpdir(), name);
	FILE *f = fopen(path, "wb");
	REQUIRE(f != NULL);
	fwrite(b.buf, 1, b.len, f);
	fclose(f);
	strbuf_free(&b);
	return path;
}

TEST(hostile_flac_comments)
{
	size_t tlen;
	char *tpl = template_flac(&tlen);
	struct strbuf vc;
	strbuf_init(&vc, 1 << 21);
	put_comment(&vc, "crate-test", 10); /* vendor */
	put_le32(&vc, 9);
	put_comment(&vc, "TITLE=before\0after", 18);
	put_comment(&vc, "ARTIST=\x1b[31mred\x1b[0m", 19);
	put_comment(&vc, "\x1b]0;KEY=escape in the name", 26);
	put_comment(&vc, "ALBUM=bad \xff\xfe\xc3 utf8", 19);
	put_comment(&vc, "GENRE=", 6);
	put_comment(&vc, "=no name", 8);
	put_comment(&vc, "NO EQUALS SIGN", 14);
	put_comment(&vc, "NEW\nLINE=newline in the name", 28);
	size_t big = 1 << 20;
	char *comment = malloc(big + 8);
	REQUIRE(comment != NULL);
	memcpy(comment, "COMMENT=", 8);
	memset(comment + 8, 'x', big);
	put_comment(&vc, comment, big + 8);
	free(comment);
	const char *path = write_flac("hostile.flac", tpl, tlen, vc.buf, vc.len);

	mlib_tags_global_init();
	struct mlib_tags t;
	struct crate_err err = {0};
	mlib_tags_init(&t);
	int rc = mlib_tags_read(path, 5000, &t, &err);
	CHECK_MSG(rc == 0, "the audio is fine, only the tags are hostile: %s", err.msg);
	if (rc == 0) {
		CHECK(t.duration_ms > 200 && t.duration_ms < 400);
		const char *title = mlib_tags_get(&t, "title");
		CHECK_MSG(title && strncmp(title, "before", 6) == 0, "title: %s", title ? title : "(none)");
		const char *artist = mlib_tags_get(&t, "artist");
		CHECK(artist && strstr(artist, "red"));
		CHECK(mlib_tags_get(&t, "genre") == NULL); /* empty values are dropped */
		const char *c = mlib_tags_get(&t, "comment");
		CHECK(c && strlen(c) >= 1000);
		for (size_t i = 0; i < t.n; i++) {
			CHECK(t.v[i].key[0] != '\0' && t.v[i].value[0] != '\0');
			/* names become property names: typed in queries, shown in
			 * `crate info`; a control character has no place in one */
			CHECK_MSG(!has_control(t.v[i].key, strlen(t.v[i].key)),
				  "tag name with a control character kept: %zu bytes", strlen(t.v[i].key));
			char *clean = utf8_sanitize(t.v[i].value, strlen(t.v[i].value));
			CHECK(!has_control(clean, strlen(clean)));
			free(clean);
		}
	}
	mlib_tags_free(&t);
	strbuf_free(&vc);
	free(tpl);
}

static long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	long kb = -1;
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

TEST(hostile_flac_lying_lengths)
{
	size_t tlen;
	char *tpl = template_flac(&tlen);
	/* a comment count of 4 billion and a comment claiming 2 GB, in a tiny block */
	static const struct {
		const char *name;
		uint32_t count, first_len;
	} cases[] = {{"count.flac", 0xffffffffu, 5}, {"length.flac", 1, 0x7fffffffu},
		     {"both.flac", 0x40000000u, 0xfffffff0u}};
	mlib_tags_global_init();
	long before = peak_rss_kb();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct strbuf vc;
		strbuf_init(&vc, 64);
		put_comment(&vc, "v", 1);
		put_le32(&vc, cases[i].count);
		put_le32(&vc, cases[i].first_len);
		strbuf_add(&vc, "A=b", 3);
		const char *path = write_flac(cases[i].name, tpl, tlen, vc.buf, vc.len);
		struct mlib_tags t;
		struct crate_err err = {0};
		mlib_tags_init(&t);
		int rc = mlib_tags_read(path, 5000, &t, &err);
		CHECK_MSG(rc == 0 || err.msg[0], "%s: failed without a message", cases[i].name);
		mlib_tags_free(&t);
		strbuf_free(&vc);
	}
	long after = peak_rss_kb();
	if (before > 0 && after > 0)
		CHECK_MSG(after - before < 256 * 1024, "lying lengths cost %ld kB of memory",
			  after - before);
	free(tpl);
}
