/* ui/pane_scrollback.c without a terminal: lines split from a command's
 * output, scrolling clamped to the last page, q/Esc and other keys closing. */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "ui/keymap.h"
#include "ui/pane_scrollback.h"

TEST(scrollback_splits_lines_and_keeps_empty_ones)
{
	struct ui_scrollback *sb = NULL;
	CHECK(!scrollback_is_open(sb));
	CHECK(!scrollback_key(sb, 'j', 10)); /* closed: the key is the caller's */
	const char *text = "id = 1\ntitle = x\n\nid = 2\n";
	scrollback_show(&sb, "info 1 2", text, strlen(text));
	CHECK(scrollback_is_open(sb));
	CHECK_INT(scrollback_lines(sb), 4); /* the trailing newline starts no line */
	scrollback_show(&sb, "x", "no newline", 10);
	CHECK_INT(scrollback_lines(sb), 1);
	scrollback_free(sb);
}

TEST(scrollback_keys_scroll_close_or_pass_through)
{
	struct ui_scrollback *sb = NULL;
	char text[400] = "";
	for (int i = 1; i <= 30; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "line %d\n", i);
	scrollback_show(&sb, "t", text, strlen(text));
	CHECK_INT(scrollback_lines(sb), 30);
	int rows = 10;
	CHECK(scrollback_key(sb, 'k', rows)); /* at the top: stays */
	CHECK_INT(scrollback_top(sb), 0);
	CHECK(scrollback_key(sb, 'j', rows));
	CHECK_INT(scrollback_top(sb), 1);
	CHECK(scrollback_key(sb, KEY_C_PGDN, rows)); /* a page keeps one line */
	CHECK_INT(scrollback_top(sb), 10);
	CHECK(scrollback_key(sb, KEY_C_PGDN, rows));
	CHECK(scrollback_key(sb, KEY_C_PGDN, rows));
	CHECK_INT(scrollback_top(sb), 20); /* the last page fills the pane */
	CHECK(scrollback_key(sb, KEY_C_DOWN, rows)); /* at the end: stays */
	CHECK_INT(scrollback_top(sb), 20);
	CHECK(scrollback_key(sb, KEY_C_PGUP, rows));
	CHECK_INT(scrollback_top(sb), 11);
	CHECK(scrollback_key(sb, 'g', rows));
	CHECK_INT(scrollback_top(sb), 0);
	CHECK(scrollback_key(sb, 'G', rows));
	CHECK_INT(scrollback_top(sb), 20);
	CHECK(scrollback_is_open(sb));
	CHECK(scrollback_key(sb, 'q', rows));
	CHECK(!scrollback_is_open(sb));
	scrollback_show(&sb, "t", text, strlen(text));
	CHECK(scrollback_key(sb, KEY_C_ESC, rows));
	CHECK(!scrollback_is_open(sb));
	scrollback_show(&sb, "t", text, strlen(text));
	CHECK(!scrollback_key(sb, ':', rows)); /* closes, and ':' opens the command line */
	CHECK(!scrollback_is_open(sb));
	scrollback_free(sb);
}
