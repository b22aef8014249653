/* ui/: the pure helpers: key names and the key map, text fitting, layout math. */
#include <stdio.h>
#include <stdlib.h>

#include "base/config.h"
#include "base/utf8.h"
#include "harness.h"
#include "ui/keymap.h"
#include "ui/layout.h"
#include "ui/search_bar.h"
#include "ui/term_title.h"
#include "ui/text.h"
#include "ui/theme.h"

TEST(key_names_parse_and_print)
{
	CHECK_INT(keymap_key_parse("Enter"), KEY_C_ENTER);
	CHECK_INT(keymap_key_parse("return"), KEY_C_ENTER);
	CHECK_INT(keymap_key_parse("PgDn"), KEY_C_PGDN);
	CHECK_INT(keymap_key_parse("Space"), ' ');
	CHECK_INT(keymap_key_parse("x"), 'x');
	CHECK_INT(keymap_key_parse("G"), 'G');
	CHECK_INT(keymap_key_parse("C-l"), 12);
	CHECK_INT(keymap_key_parse("^L"), 12);
	CHECK_INT(keymap_key_parse("F5"), KEY_C_F1 + 4);
	CHECK_INT(keymap_key_parse("F13"), -1);
	CHECK_INT(keymap_key_parse("\xc3\xa9"), 0xe9); /* é */
	CHECK_INT(keymap_key_parse("Hash"), '#');
	CHECK_INT(keymap_key_parse("xy"), -1);
	CHECK_INT(keymap_key_parse(""), -1);
	CHECK_INT(keymap_key_parse("\x1b"), -1);
	CHECK_INT(keymap_key_parse("C-1"), -1);
	char buf[32];
	CHECK_STR(keymap_key_name(KEY_C_ENTER, buf, sizeof buf), "Enter");
	CHECK_STR(keymap_key_name(' ', buf, sizeof buf), "Space");
	CHECK_STR(keymap_key_name('#', buf, sizeof buf), "#");
	CHECK_STR(keymap_key_name(12, buf, sizeof buf), "C-l");
	CHECK_STR(keymap_key_name(KEY_C_F1 + 11, buf, sizeof buf), "F12");
	CHECK_STR(keymap_key_name(0xe9, buf, sizeof buf), "\xc3\xa9");
	/* Every canonical name parses back to its key. */
	for (int k = 1; k < KEY_C_MAX; k++) {
		if (k > 0x7e && k < KEY_C_ENTER)
			k = KEY_C_ENTER;
		if (k == 9 || k == 13 || k == 27 || (k > 26 && k <= ' '))
			continue;
		keymap_key_name(k, buf, sizeof buf);
		CHECK_MSG(keymap_key_parse(buf) == k, "key %d named '%s'", k, buf);
	}
}

TEST(default_keymap_matches_readme)
{
	struct keymap km;
	keymap_init_default(&km);
	CHECK_INT(keymap_lookup(&km, KEY_C_ENTER), UA_PLAY);
	CHECK_INT(keymap_lookup(&km, ' '), UA_MARK); /* cmus's: Space marks, c pauses */
	CHECK_INT(keymap_lookup(&km, 'c'), UA_PAUSE);
	CHECK_INT(keymap_lookup(&km, 'm'), UA_MARK_MATCHES);
	CHECK_INT(keymap_lookup(&km, 'M'), UA_UNMARK_ALL);
	CHECK_INT(keymap_lookup(&km, 'u'), UA_UNDO);
	CHECK_INT(keymap_lookup(&km, 'K'), UA_MOVE_UP);
	CHECK_INT(keymap_lookup(&km, 'P'), UA_MOVE_UP);
	CHECK_INT(keymap_lookup(&km, 'J'), UA_MOVE_DOWN);
	CHECK_INT(keymap_lookup(&km, 'p'), UA_MOVE_DOWN);
	CHECK_INT(keymap_lookup(&km, 'j'), UA_DOWN);
	CHECK_INT(keymap_lookup(&km, 'h'), UA_COL_PREV);
	CHECK_INT(keymap_lookup(&km, KEY_C_LEFT), UA_SEEK_BACK);
	CHECK_INT(keymap_lookup(&km, 'b'), UA_NEXT);
	CHECK_INT(keymap_lookup(&km, 'z'), UA_PREV);
	CHECK_INT(keymap_lookup(&km, 's'), UA_SAVE);
	CHECK_INT(keymap_lookup(&km, KEY_C_DELETE), UA_REMOVE);
	CHECK_INT(keymap_lookup(&km, '3'), UA_VIEW_COLLECTIONS);
	CHECK_INT(keymap_lookup(&km, 'q'), UA_QUIT);
	CHECK_INT(keymap_lookup(&km, 'Q'), UA_VIEW_QUEUE);
	CHECK_INT(keymap_lookup(&km, 'Y'), UA_NONE);
	/* Every action except "none" has a key and a name that maps back. */
	for (int a = 1; a < UA_COUNT; a++) {
		char desc[64];
		keymap_describe(&km, (enum ui_action)a, desc, sizeof desc);
		CHECK_MSG(desc[0] != '\0', "action %s has no key", keymap_action_name(a));
		CHECK_INT(keymap_action_from_name(keymap_action_name(a)), a);
	}
	char desc[64];
	keymap_describe(&km, UA_PAUSE, desc, sizeof desc);
	CHECK_STR(desc, "c");
	keymap_describe(&km, UA_MOVE_UP, desc, sizeof desc);
	CHECK_STR(desc, "K P");
}

TEST(config_rebinds_keys)
{
	const char *dir = harness_tmpdir();
	char path[512];
	snprintf(path, sizeof path, "%s/config", dir);
	FILE *f = fopen(path, "w");
	REQUIRE(f);
	fputs("[keys]\nplay = p Enter\npause = Space\nquit = Q\nnone = z\n", f);
	fclose(f);
	struct config *cfg = NULL;
	struct crate_err err = {0};
	REQUIRE(config_load(path, &cfg, &err) == 0);
	struct keymap km;
	keymap_init_default(&km);
	CHECK_INT(keymap_apply_config(&km, cfg, &err), 0);
	CHECK_INT(keymap_lookup(&km, 'p'), UA_PLAY);
	CHECK_INT(keymap_lookup(&km, KEY_C_ENTER), UA_PLAY);
	CHECK_INT(keymap_lookup(&km, 'c'), UA_NONE); /* pause lost its default 'c' */
	CHECK_INT(keymap_lookup(&km, 'Q'), UA_QUIT);
	CHECK_INT(keymap_lookup(&km, 'q'), UA_NONE);
	CHECK_INT(keymap_lookup(&km, 'z'), UA_NONE); /* unbound */
	config_free(cfg);

	cfg = config_new_empty();
	config_set(cfg, "keys.jump", "x");
	config_set(cfg, "keys.stop", "NoSuchKey");
	keymap_init_default(&km);
	CHECK_INT(keymap_apply_config(&km, cfg, &err), -1);
	CHECK(strstr(err.msg, "jump") != NULL);
	CHECK_INT(keymap_lookup(&km, 'v'), UA_STOP); /* a bad key name keeps the default */
	config_free(cfg);
}

/* The bottom row and the help name the keys as bound: a rebound key by
 * its new name, an unbound one left out of a hint. */
TEST(texts_name_the_keys_as_bound)
{
	static const char hint[] = "{help} help  {search} search  {command} command  "
				   "{views} views  {quit} quit";
	struct keymap km;
	char buf[200];
	keymap_init_default(&km);
	keymap_expand(&km, hint, true, buf, sizeof buf);
	CHECK_STR(buf, "? help  / search  : command  1-5 views  q quit");
	keymap_unbind_action(&km, UA_HELP);
	keymap_bind(&km, KEY_C_F1 + 1, UA_HELP);
	keymap_unbind_action(&km, UA_COMMAND);
	keymap_bind(&km, 'x', UA_QUIT);
	keymap_unbind_action(&km, UA_VIEW_FILES);
	keymap_bind(&km, '9', UA_VIEW_FILES);
	keymap_expand(&km, hint, true, buf, sizeof buf);
	CHECK_STR(buf, "F2 help  / search  1 2 3 4 9 views  q quit");
	keymap_expand(&km, "{command} runs, {mark} marks", false, buf, sizeof buf);
	CHECK_STR(buf, "(unbound) runs, Space marks");
}

TEST(text_fit_measures_wide_and_combining)
{
	size_t w;
	char *s = ui_text_fit("abc", 10, 0, &w);
	CHECK_STR(s, "abc");
	CHECK_INT(w, 3);
	free(s);
	s = ui_text_fit("abcdef", 4, 0, &w);
	CHECK_STR(s, "abc\xe2\x80\xa6");
	CHECK_INT(w, 4);
	free(s);
	s = ui_text_fit("abcdef", 4, 1, &w);
	CHECK_STR(s, "abc~");
	free(s);
	/* 夜の街: three wide characters, 6 columns; 5 columns keep two of them + mark. */
	s = ui_text_fit("\xe5\xa4\x9c\xe3\x81\xae\xe8\xa1\x97", 5, 0, &w);
	CHECK_STR(s, "\xe5\xa4\x9c\xe3\x81\xae\xe2\x80\xa6");
	CHECK_INT(w, 5);
	free(s);
	s = ui_text_fit("\xe5\xa4\x9c\xe3\x81\xae\xe8\xa1\x97", 4, 0, &w);
	CHECK_INT(w, 3); /* one wide char + mark: a second would overflow */
	free(s);
	/* e + combining acute is one column. */
	s = ui_text_fit("e\xcc\x81tude", 5, 0, &w);
	CHECK_INT(w, 5);
	CHECK_STR(s, "e\xcc\x81tude");
	free(s);
	s = ui_text_fit("abc", 0, 0, &w);
	CHECK_STR(s, "");
	CHECK_INT(w, 0);
	free(s);
	s = ui_text_fit_pad("\xe5\xa4\x9c", 5, 0);
	CHECK_STR(s, "\xe5\xa4\x9c   ");
	free(s);
}

/* ":help playlist" at 80 columns: the rows a wrapped line takes. */
TEST(text_wrap_breaks_at_spaces_and_splits_only_long_words)
{
	size_t next;
	const char *s = "create an empty playlist";
	CHECK_INT(ui_text_wrap_row(s, strlen(s), 16, &next), 15); /* "create an empty" */
	CHECK_INT(next, 16);
	CHECK_INT(ui_text_wrap_row(s, strlen(s), 40, &next), strlen(s));
	CHECK_INT(next, strlen(s));
	s = "  abcdefghij";  /* the indent is not a place to break */
	CHECK_INT(ui_text_wrap_row(s, strlen(s), 6, &next), 6);
	CHECK_INT(next, 6);
	s = "\xe5\xa4\x9c\xe3\x81\xae\xe8\xa1\x97"; /* wide: two columns each */
	CHECK_INT(ui_text_wrap_row(s, strlen(s), 5, &next), 6);
	CHECK_INT(ui_text_wrap_row(s, strlen(s), 1, &next), 3); /* one at least */
	s = "e\xcc\x81tude"; /* the combining accent stays with its letter */
	CHECK_INT(ui_text_wrap_row(s, strlen(s), 1, &next), 3);
	s = "ab   cd";
	CHECK_INT(ui_text_wrap_row(s, strlen(s), 3, &next), 2); /* the spaces go */
	CHECK_INT(next, 5);
	s = "url = /a/very/long/path"; /* a word wider than a row starts at once */
	CHECK_INT(ui_text_wrap_row(s, strlen(s), 10, &next), 10);
}

TEST(text_fit_sanitises_escapes)
{
	size_t w;
	char *s = ui_text_fit("\x1b[31mRED\a", 40, 0, &w);
	CHECK(strchr(s, '\x1b') == NULL);
	CHECK(strchr(s, '\a') == NULL);
	CHECK(strstr(s, "[31mRED") != NULL);
	CHECK_INT(w, ui_text_width(s));
	free(s);
	/* C1 CSI (U+009B) too */
	s = ui_text_fit("a\xc2\x9b" "31mb", 40, 0, &w);
	CHECK(strstr(s, "\xc2\x9b") == NULL);
	free(s);
}

TEST(time_and_progress)
{
	char b[32];
	CHECK_STR(ui_fmt_time(0, b, sizeof b), "0:00");
	CHECK_STR(ui_fmt_time(65500, b, sizeof b), "1:05");
	CHECK_STR(ui_fmt_time(3723000, b, sizeof b), "1:02:03");
	CHECK_STR(ui_fmt_time(-1, b, sizeof b), "-:--");
	/* Never wider than 7 cells: a header that claims days cannot spill over. */
	CHECK_STR(ui_fmt_time(35287386, b, sizeof b), "9:48:07");
	CHECK_STR(ui_fmt_time(169022694, b, sizeof b), "46h57m");
	CHECK_STR(ui_fmt_time(999LL * 3600000 + 59 * 60000, b, sizeof b), "999h59m");
	CHECK_STR(ui_fmt_time(4000LL * 3600000, b, sizeof b), ">999h");
	CHECK_INT(ui_progress_cells(50, 100, 10), 5);
	CHECK_INT(ui_progress_cells(0, 100, 10), 0);
	CHECK_INT(ui_progress_cells(200, 100, 10), 10);
	CHECK_INT(ui_progress_cells(10, 0, 10), 0);
	CHECK_INT(ui_text_col_of_char("a:\xe5\xa4\x9c x", 4), 4);
	CHECK_INT(ui_text_col_of_char("abc", 1), 0);
	CHECK_STR(ui_text_basename("/music/a/01 x.flac", b, sizeof b), "01 x.flac");
	CHECK_STR(ui_text_basename("http://radio.example:8000/", b, sizeof b), "radio.example:8000");
}

static bool inside(const struct ui_rect *r, int w, int h)
{
	if (!r->w || !r->h)
		return true;
	return r->x >= 0 && r->y >= 0 && r->x + r->w <= w && r->y + r->h <= h;
}

TEST(layout_fits_every_size)
{
	struct ui_layout_opts o = {.sidebar_pct = 18, .artist_pct = 25, .album_pct = 25};
	for (int w = 1; w <= 220; w += 3) {
		for (int h = 1; h <= 70; h++) {
			for (int sb = 0; sb < 2; sb++) {
				o.search_bar = sb;
				o.levels = (w + h) % 4; /* 0: the default two */
				o.focus = (w + h) % (o.levels ? o.levels + 1 : 3);
				struct ui_layout L;
				ui_layout_compute(w, h, &o, &L);
				const struct ui_rect *all[] = {&L.title, &L.search, &L.main, &L.sidebar,
							       &L.col[0], &L.col[1], &L.col[2], &L.col[3],
							       &L.status1, &L.status2, &L.msg};
				for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
					CHECK_MSG(inside(all[i], w, h), "rect %zu outside %dx%d", i, w, h);
				/* The focused column is always shown when there is room for a view. */
				if (L.main.h)
					CHECK(L.col[o.focus].w > 0);
			}
		}
	}
}

TEST(layout_degrades_at_small_sizes)
{
	struct ui_layout_opts o = {.sidebar_pct = 18, .artist_pct = 25, .album_pct = 25};
	struct ui_layout L;
	ui_layout_compute(120, 40, &o, &L);
	CHECK_INT(L.ncols, 3);
	CHECK(L.sidebar.w > 0);
	CHECK(L.title.h == 1 && L.status1.h == 1 && L.status2.h == 1);
	CHECK_INT(L.col[2].x + L.col[2].w, 120);
	ui_layout_compute(80, 24, &o, &L);
	CHECK_INT(L.ncols, 3);
	CHECK_INT(L.sidebar.w, 0);
	ui_layout_compute(40, 24, &o, &L);
	CHECK_INT(L.ncols, 2);
	o.search_bar = true;
	o.focus = 2;
	ui_layout_compute(20, 6, &o, &L);
	CHECK_INT(L.ncols, 1);
	CHECK(L.col[2].w == 20);
	CHECK_INT(L.title.h, 0);
	CHECK_INT(L.status1.h, 0);
	CHECK_INT(L.status2.y, 4);
	CHECK_INT(L.msg.y, 5);
	CHECK_INT(L.search.y, 0);
	CHECK_INT(L.main.h, 3);
}

/* The columns by levels: two take 25% each as they always did (the
 * sidebar's share first), three together at most two thirds, all of them
 * from 20 cells a column, then the focused one and its neighbour. */
TEST(layout_shares_the_width_among_levels)
{
	struct ui_layout_opts o = {.sidebar_pct = 18, .artist_pct = 25, .album_pct = 25};
	struct ui_layout L;
	ui_layout_compute(100, 30, &o, &L); /* sidebar 18: 82 left */
	CHECK_INT(L.ncols, 3);
	CHECK_INT(L.col[0].w, 20);
	CHECK_INT(L.col[1].w, 20);
	CHECK_INT(L.col[1].x, L.col[0].x + 20);
	CHECK_INT(L.col[2].w, 42);
	o.levels = 3;
	ui_layout_compute(80, 24, &o, &L);
	CHECK_INT(L.ncols, 4);
	CHECK_INT(L.col[0].w, 17);
	CHECK_INT(L.col[1].w, 17);
	CHECK_INT(L.col[2].w, 17);
	CHECK_INT(L.col[3].x + L.col[3].w, 80);
	CHECK_INT(L.col[3].w, 29);
	ui_layout_compute(79, 24, &o, &L);
	CHECK_INT(L.ncols, 2);
	o.levels = 1;
	ui_layout_compute(40, 24, &o, &L);
	CHECK_INT(L.ncols, 2);
	CHECK_INT(L.col[0].w, 10);
	CHECK_INT(L.col[1].w, 30);
	o.levels = 3;
	o.focus = 3;
	ui_layout_compute(20, 6, &o, &L);
	CHECK_INT(L.ncols, 1);
	CHECK_INT(L.col[3].w, 20);
}

/* Drawing and clicking use one layout: a click on a tab or the gap after
 * it chooses that tab (the columns the hand-written thresholds had). */
TEST(tabs_are_laid_out_once_for_drawing_and_clicks)
{
	static const char *const titles[] = {" 1 Browser ", " 2 Playlist ", " 3 Collections ",
					     " 4 Rules "};
	struct ui_tab t[4];
	ui_layout_tabs(titles, 4, t);
	CHECK_INT(t[0].x, 0);
	CHECK_INT(t[1].x, 12);
	CHECK_INT(t[2].x, 25);
	CHECK_INT(t[3].x, 41);
	CHECK_INT(t[3].w, 9);
	static const int last_col[] = {11, 24, 40, 50};
	int x = 0;
	for (int i = 0; i < 4; i++)
		for (; x <= last_col[i]; x++)
			CHECK_INT(ui_layout_tab_at(t, 4, x), i);
	CHECK_INT(ui_layout_tab_at(t, 4, 51), -1);
	CHECK_INT(ui_layout_tab_at(t, 4, -1), -1);
}

TEST(theme_colour_specs)
{
	int fg, bg;
	CHECK(theme_parse_colors("black,cyan", &fg, &bg));
	CHECK_INT(fg, 0);
	CHECK_INT(bg, 6);
	CHECK(theme_parse_colors("default, 208", &fg, &bg));
	CHECK_INT(fg, -1);
	CHECK_INT(bg, 208);
	CHECK(theme_parse_colors("Yellow", &fg, &bg));
	CHECK_INT(fg, 3);
	CHECK_INT(bg, -1);
	CHECK(!theme_parse_colors("mauve,black", &fg, &bg));
	CHECK(!theme_parse_colors("300", &fg, &bg));
	CHECK(!theme_parse_colors("1,2x", &fg, &bg));
}

TEST(search_bar_window_scrolls_with_markers)
{
	struct sb_window w;
	/* Fits: no markers. */
	sb_window("a:abba", 20, 6, false, 0, &w);
	CHECK(!w.left && !w.right);
	CHECK_INT(w.off, 0);
	CHECK_INT(w.bytes, 6);
	/* 40 columns in 12, cursor at the end: the head is cut, marked on the left. */
	const char *q = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
	sb_window(q, 12, 40, false, 0, &w);
	CHECK(w.left && !w.right);
	CHECK_INT(w.off + w.bytes, 40);
	CHECK(40 - w.skip < (size_t)w.width + 1); /* the cursor's column is inside */
	/* Cursor at the start: the tail is cut, marked on the right. */
	sb_window(q, 12, 0, false, 0, &w);
	CHECK(!w.left && w.right);
	CHECK_INT(w.off, 0);
	CHECK_INT(w.bytes, (size_t)w.width);
	/* Cursor in the middle: both ends marked. */
	sb_window(q, 12, 20, false, 0, &w);
	CHECK(w.left && w.right);
	CHECK(20 >= w.skip && 20 - w.skip < (size_t)w.width);
	/* The error's column stays in view beside the cursor when both fit. */
	sb_window(q, 12, 30, true, 24, &w);
	CHECK(24 >= w.skip && 24 - w.skip < (size_t)w.width);
	CHECK(30 - w.skip < (size_t)w.width);
	/* Wide characters are never split at the left edge. */
	const char *wide = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"
			   "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"; /* 9 x 2 columns */
	sb_window(wide, 9, 18, false, 0, &w);
	CHECK(w.left);
	CHECK_INT(w.off % 3, 0);
	CHECK(utf8_width(wide + w.off, w.bytes) <= (size_t)w.width);
	/* The wide character under the cursor shows whole (the cursor sat on
	 * a blank before the right marker, its character cut off). */
	for (size_t want = 0; want < 18; want += 2) {
		sb_window(wide, 9, want, false, 0, &w);
		CHECK_MSG(want >= w.skip && want + 2 <= w.skip + w.shown,
			  "cursor at %zu: columns %zu..%zu shown", want, w.skip, w.skip + w.shown);
	}
}

TEST(terminal_title_is_sanitised)
{
	char out[64];
	CHECK_STR(term_title_clean("Abba \xe2\x80\x93 SOS", out, sizeof out), "Abba \xe2\x80\x93 SOS");
	/* An escape in a tag cannot end the title sequence or reach the terminal. */
	CHECK_STR(term_title_clean("a\x1b]2;evil\x07" "b", out, sizeof out), "a ]2;evil b");
	CHECK_STR(term_title_clean("x\xc2\x9b" "1m\x7fy", out, sizeof out), "x 1m y");
	CHECK_STR(term_title_clean("bad\xff\xfe" "byte", out, sizeof out), "badbyte");
	CHECK_STR(term_title_clean("\n\tlead", out, sizeof out), "lead");
	/* Cut at a character boundary. */
	CHECK_STR(term_title_clean("\xc3\xa9\xc3\xa9\xc3\xa9", out, 6), "\xc3\xa9\xc3\xa9");
	CHECK_STR(term_title_clean(NULL, out, sizeof out), "");
}
