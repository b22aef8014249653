/* medialib/item_format.c: the format strings of --format and the
 * interface's rows (properties, fallbacks, conditionals, widths in cells,
 * the %= split, errors with their column, untrusted tag text). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "medialib/index.h"
#include "medialib/item_format.h"

static struct mlib_index *library(void)
{
	struct mlib_index *idx = mlib_index_new();
	mlib_index_add_media(idx, 1);
	mlib_index_add_str(idx, 1, "url", "file:///m/01%20song.flac", 24);
	mlib_index_add_str(idx, 1, "artist", "Mira Sol", 8);
	mlib_index_add_str(idx, 1, "artist", "The Lanterns", 12);
	mlib_index_add_str(idx, 1, "album", "Harbour", 7);
	mlib_index_add_str(idx, 1, "title", "Lights", 6);
	mlib_index_add_str(idx, 1, "genre", "Jazz", 4);
	mlib_index_set_int(idx, 1, "tracknr", 3);
	mlib_index_set_int(idx, 1, "duration", 187000);
	mlib_index_set_int(idx, 1, "rating", 4);
	/* 2: no title, artist or rating; a CJK and a combining title on 3 and 4 */
	mlib_index_add_media(idx, 2);
	mlib_index_add_str(idx, 2, "url", "file:///m/untitled.ogg", 22);
	mlib_index_add_str(idx, 2, "albumartist", "Various", 7);
	mlib_index_set_int(idx, 2, "duration", 3723000);
	mlib_index_add_media(idx, 3);
	mlib_index_add_str(idx, 3, "title", "\xe6\x9d\xb1\xe4\xba\xac\xe3\x81\xae\xe5\xa4\x9c", 12);
	mlib_index_add_media(idx, 4);
	mlib_index_add_str(idx, 4, "title", "Cafe\xcc\x81 Noir", 11); /* e + U+0301 */
	/* 5: a hostile tag: escape sequences, a newline, a bell */
	mlib_index_add_media(idx, 5);
	mlib_index_add_str(idx, 5, "title", "A\x1b[2Jb\nc\x07", 9);
	return idx;
}

/* fmt rendered for item id; left and right halves joined by '|' when fmt
 * has a %=. Owned. */
static char *render(const struct mlib_index *idx, uint32_t id, const char *fmt)
{
	struct item_format *f;
	struct crate_err err = {0};
	if (item_format_parse(fmt, &f, &err) != 0) {
		CHECK_MSG(false, "'%s': %s", fmt, err.msg);
		return strdup("");
	}
	struct strbuf l, r;
	strbuf_init(&l, 64);
	strbuf_init(&r, 64);
	struct item_format_item it = {.idx = idx, .id = id, .sep = ", "};
	item_format_render(f, item_format_index_get, &it, &l, &r);
	if (item_format_has_right(f)) {
		strbuf_addc(&l, '|');
		strbuf_add(&l, r.buf, r.len);
	}
	item_format_free(f);
	strbuf_free(&r);
	return strbuf_steal(&l);
}

#define RENDERS(id, fmt, want)                                                   \
	do {                                                                     \
		char *got_ = render(idx, (id), (fmt));                            \
		CHECK_MSG(strcmp(got_, (want)) == 0, "%s on #%d: '%s', want '%s'", \
			  (fmt), (id), got_, (want));                             \
		free(got_);                                                      \
	} while (0)

TEST(format_properties_and_percent)
{
	struct mlib_index *idx = library();
	RENDERS(1, "%artist% - %title%", "Mira Sol, The Lanterns - Lights");
	RENDERS(1, "#%id% 100%% %tracknr%", "#1 100% 3");
	RENDERS(1, "%nosuch%|%{nosuch}", "|");
	RENDERS(2, "%title%", "untitled.ogg"); /* no title: the file name */
	RENDERS(1, "%stars%", "\xe2\x98\x85\xe2\x98\x85\xe2\x98\x85\xe2\x98\x85");
	RENDERS(2, "[%stars%]", "[]");
	RENDERS(9, "[%title%]", "[]"); /* not in the library: nothing is present */
	mlib_index_free(idx);
}

TEST(format_durations)
{
	struct mlib_index *idx = library();
	RENDERS(1, "%duration%", "3:07");
	RENDERS(2, "%duration%", "1:02:03");
	RENDERS(1, "%{duration:>7}|", "   3:07|");
	RENDERS(1, "%duration_ms% %{duration_ms:>8}", "187000   187000");
	RENDERS(1, "%{?duration_ms>180000?long}", "long");
	RENDERS(1, "%{?duration>180?long}%{?duration<=180?short}", "long");
	char buf[16];
	CHECK_STR(item_format_duration(-1, buf, sizeof buf), "-:--");
	CHECK_STR(item_format_duration(36 * 3600 * 1000LL + 60000, buf, sizeof buf), "36h01m");
	mlib_index_free(idx);
}

TEST(format_fallbacks_and_conditionals)
{
	struct mlib_index *idx = library();
	RENDERS(1, "%{albumartist|artist}", "Mira Sol, The Lanterns");
	RENDERS(2, "%{albumartist|artist}", "Various");
	RENDERS(2, "%{composer|nosuch}.", ".");
	RENDERS(1, "%{?rating>=4?\xe2\x98\x85}", "\xe2\x98\x85");
	RENDERS(1, "%{?rating>4?hi:lo}", "lo");
	RENDERS(2, "%{?rating>=0?rated:unrated}", "unrated"); /* absent fails every test */
	RENDERS(1, "%{?rating=4?four}%{?rating!=4?other}", "four");
	RENDERS(1, "%{?genre?[%genre%]}", "[Jazz]");
	RENDERS(2, "%{?genre?[%genre%]}", "");
	RENDERS(1, "%{?genre=Jazz?J:%genre%}%{?genre!=Jazz?X:Y}", "JY");
	RENDERS(1, "%{?tracknr?%{tracknr:>2}.:  }", " 3.");
	RENDERS(2, "%{?tracknr?%{tracknr:>2}.:  }|", "  |");
	/* : ends THEN; %: is a colon in it; ELSE runs to its } */
	RENDERS(1, "%{?title?a%:b:c:d}", "a:b");
	RENDERS(2, "%{?artist?x:-:--}", "-:--");
	RENDERS(1, "%{?artist?%{?album?both}}", "both");
	mlib_index_free(idx);
}

TEST(format_widths_count_cells)
{
	struct mlib_index *idx = library();
	RENDERS(1, "%{title:8}|", "Lights  |");
	RENDERS(1, "%{title:>8}|", "  Lights|");
	RENDERS(1, "%{title:<3}|", "Lig|");
	RENDERS(1, "%{tracknr:>2}|%{id:<3}|", " 3|1  |");
	/* numbers are padded, never cut */
	RENDERS(1, "%{duration:2}|", "3:07|");
	/* CJK: two cells a character; a cut never halves one (padded instead) */
	RENDERS(3, "%{title:5}|", "\xe6\x9d\xb1\xe4\xba\xac |");
	RENDERS(3, "%{title:>10}|", "  \xe6\x9d\xb1\xe4\xba\xac\xe3\x81\xae\xe5\xa4\x9c|");
	/* a combining accent takes no cell and stays with its letter */
	RENDERS(4, "%{title:12}|", "Cafe\xcc\x81 Noir   |");
	RENDERS(4, "%{title:4}|", "Cafe\xcc\x81|");
	mlib_index_free(idx);
}

TEST(format_right_half)
{
	struct mlib_index *idx = library();
	RENDERS(1, "%title%%=%duration%", "Lights|3:07");
	RENDERS(1, "%=%duration%", "|3:07");
	RENDERS(1, "%title%%=", "Lights|");
	/* without a right buffer (the command line) the halves are joined */
	struct item_format *f;
	REQUIRE(item_format_parse("%title% %=%duration%", &f, NULL) == 0);
	CHECK(item_format_has_right(f));
	struct strbuf b;
	strbuf_init(&b, 16);
	struct item_format_item it = {.idx = idx, .id = 1};
	item_format_render(f, item_format_index_get, &it, &b, NULL);
	CHECK_STR(b.buf, "Lights 3:07");
	strbuf_free(&b);
	item_format_free(f);
	mlib_index_free(idx);
}

TEST(format_tag_text_is_sanitised)
{
	struct mlib_index *idx = library();
	char *got = render(idx, 5, "%title%");
	for (const char *c = got; *c; c++)
		CHECK_MSG((unsigned char)*c >= 0x20 && *c != 0x7f, "control 0x%02x in '%s'",
			  (unsigned char)*c, got);
	CHECK(strstr(got, "A") == got && strstr(got, "[2Jb") != NULL);
	free(got);
	/* measured after sanitising: 9 characters, one cell each, then the pad */
	got = render(idx, 5, "%{title:12}|");
	CHECK_STR(got, "A\xef\xbf\xbd[2Jb c\xef\xbf\xbd   |");
	free(got);
	mlib_index_free(idx);
}

/* fmt is refused at column col with a message containing what. */
static void malformed(const char *fmt, int col, const char *what)
{
	struct item_format *f = (struct item_format *)1;
	struct crate_err err = {0};
	CHECK_MSG(item_format_parse(fmt, &f, &err) != 0, "'%s' accepted", fmt);
	CHECK_MSG(f == NULL, "'%s': output not cleared", fmt);
	CHECK_MSG(err.code == CRATE_ERR_PARSE, "'%s': code %d", fmt, err.code);
	CHECK_MSG(err.pos == col, "'%s': column %d, want %d (%s)", fmt, err.pos, col, err.msg);
	CHECK_MSG(strstr(err.msg, what) != NULL, "'%s': '%s' lacks '%s'", fmt, err.msg, what);
	char why[200];
	CHECK(!item_format_check(fmt, why, sizeof why));
	CHECK_MSG(strncmp(why, "column ", 7) == 0, "why: %s", why);
}

TEST(format_errors_name_the_column)
{
	malformed("100% sure", 4, "'%' begins");
	malformed("%title", 1, "not closed");
	malformed("%ti tle%", 4, "' ' in a property name");
	malformed("ab %{title:3", 4, "not closed");
	malformed("%{title:0}", 8, "width");
	malformed("%{title:x}", 8, "width");
	malformed("%{}", 3, "name is missing");
	malformed("%{a|}", 5, "name is missing");
	malformed("%{title!}", 8, "where } should close");
	malformed("%{?rating>=4", 1, "not closed");
	malformed("%{?rating>=4?x", 1, "not closed");
	malformed("%{??x}", 4, "name is missing");
	malformed("%{?a!b?x}", 5, "? should end");
	malformed("a%=b%=c", 5, "a second %=");
	malformed("%{?a?%=}", 6, "not inside");
	/* columns count characters, not bytes */
	malformed("\xe2\x98\x85\xe2\x98\x85 %", 4, "'%' begins");
	char why[100];
	CHECK(item_format_check("", why, sizeof why)); /* an empty row is allowed */
}

/* A config line may be any length: conditionals nested 200,000 deep
 * overflowed the parser's stack (recursion per level). 16 levels are
 * allowed, the 17th is refused at its own column. */
static char *nested(int levels)
{
	struct strbuf b;
	strbuf_init(&b, 8 * (size_t)levels + 8);
	for (int i = 0; i < levels; i++)
		strbuf_adds(&b, "%{?a?");
	strbuf_adds(&b, "x");
	for (int i = 0; i < levels; i++)
		strbuf_addc(&b, '}');
	return b.buf;
}

TEST(format_nesting_is_bounded)
{
	char why[100];
	char *ok = nested(16), *deep = nested(17), *huge = nested(200000);
	CHECK(item_format_check(ok, why, sizeof why));
	malformed(deep, 81, "nest at most 16");
	CHECK(!item_format_check(huge, why, sizeof why));
	free(ok);
	free(deep);
	free(huge);
}

TEST(format_empty_and_plain_rows_parse)
{
	char why[100];
	CHECK(item_format_check("%title%%=%{duration:>7}", why, sizeof why));
}

TEST(format_render_cost_is_per_row)
{
	/* One parse, many renders: a million-row library draws only the rows
	 * it shows, so a render must not grow with the library. */
	struct mlib_index *idx = library();
	struct item_format *f;
	REQUIRE(item_format_parse("%{tracknr:>2}. %{albumartist|artist} \xe2\x80\x93 %title%%="
				  "%{?stars?  %stars%}%{duration:>7} ",
				  &f, NULL) == 0);
	struct strbuf l, r;
	strbuf_init(&l, 64);
	strbuf_init(&r, 64);
	struct item_format_item it = {.idx = idx, .id = 1};
	for (int i = 0; i < 10000; i++) {
		strbuf_reset(&l);
		strbuf_reset(&r);
		item_format_render(f, item_format_index_get, &it, &l, &r);
	}
	CHECK_STR(l.buf, " 3. Mira Sol; The Lanterns \xe2\x80\x93 Lights");
	CHECK_STR(r.buf, "  \xe2\x98\x85\xe2\x98\x85\xe2\x98\x85\xe2\x98\x85   3:07 ");
	strbuf_free(&l);
	strbuf_free(&r);
	item_format_free(f);
	mlib_index_free(idx);
}
