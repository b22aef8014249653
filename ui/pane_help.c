/* The help view: every binding, generated from the key map as configured,
 * then the command line's commands and a query cheat sheet. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/str.h"
#include "base/utf8.h"
#include "medialib/scan.h"
#include "ui/draw.h"
#include "ui/pane.h"
#include "ui/pane_help.h"
#include "ui/text.h"
#include "ui/ui_state.h"

/* View 4 gives some keys its own meaning: listed from the key map too. */
static const struct {
	enum ui_action a;
	const char *what;
} rules_keys[] = {
	{UA_ADD, "add a rule: a collection or query, then a preset"},
	{UA_ENQUEUE, "edit the selected rule's preset and volume offset"},
	{UA_REMOVE, "remove the selected rule (asks first)"},
	{UA_MOVE_UP, "move the selected rule up (the first match wins)"},
	{UA_MOVE_DOWN, "move the selected rule down"},
	{UA_PLAY, "browse what the rule covers"},
};

#define NRULES (sizeof rules_keys / sizeof rules_keys[0])

/* {action}: its key as bound (keymap_expand), so that a rebound key is
 * named right. */
static const char *const extra[] = {
	"",
	"Views: {view_browser} browser (artist / album / tracks of the current collection),",
	"       {view_playlist} playlist or Party Shuffle, {view_collections} collections, "
	"{view_rules} collection rules,",
	"       {view_files} files: {play}/{column_next} opens or plays, {parent}/{column_prev} goes up, "
	"{add} {enqueue} add,",
	"       {library_add} scans into the library, {hidden} shows hidden files, {search} filters "
	"names.",
	"       {seek_back}/{seek_forward} seek; {column_prev}/{column_next} move between browser columns.",
	"Marks: {mark} marks a row (+), {mark_matches} everything the search matches, "
	"{unmark_all} none;",
	"       {add} {enqueue} {rate} {remove} and {move_up} {move_down} then act on the marked "
	"rows, else on the cursor's.",
	"       {undo} undoes the last playlist edit, even after a restart.",
	"",
	"Command line ({command})  the CLI's commands, e.g.",
	"  :scan DIR                 add a folder (in the background)",
	"  :save NAME                save the current search as a collection",
	"  :coll save NAME QUERY     :coll rename OLD NEW   :coll remove NAME",
	"  :playlist new NAME        :playlist use NAME     :playlist add NAME QUERY",
	"  :pshuffle NAME QUERY [--upcoming N]              a Party Shuffle playlist",
	"  :search QUERY             :vol N    :seek [+-]SECONDS    :quit",
	"",
	"Queries:  word  beat*  a:Bjork  t~love  y:1990..1999  +genre  NOT g:Pop",
	"          x OR y   x AND y   ( ... )   in:\"Rock 90s\"   ORDER BY -year LIMIT 20",
};

#define NEXTRA (sizeof extra / sizeof extra[0])

static size_t help_rows(const struct ui *ui)
{
	if (ui->help_errors) /* a heading, then each problem's path and reason */
		return ui->app->nscan_errors * 2 + 1;
	return (UA_COUNT - 1) + 2 + NRULES + NEXTRA;
}

/* Line i of ":errors" (every file and folder the last scan could not
 * read): a heading, then each problem's path and, under it, why. */
static void errors_line(const struct ui *ui, size_t i, char *line, size_t size, int *attr)
{
	const struct app *app = ui->app;
	if (i == 0) {
		snprintf(line, size, " %zu problem%s in the last scan (path, then why)",
			 app->nscan_errors, app->nscan_errors == 1 ? "" : "s");
		*attr = theme_attr(UR_HEADER);
		return;
	}
	const struct mlib_scan_error *e = &app->scan_errors[(i - 1) / 2];
	if (i % 2) {
		snprintf(line, size, " %s", e->path);
	} else {
		snprintf(line, size, "    %s", e->reason);
		*attr = theme_attr(UR_ERROR);
	}
}

/* An action's line in the help; seeking and the volume say the steps
 * configured (playback.seek_step, playback.volume_step). */
static const char *action_help(const struct ui *ui, enum ui_action a, char *buf, size_t size)
{
	const struct config *cfg = ui->app->cfg;
	long seek = config_get_int(cfg, "playback.seek_step", 5);
	long vol = config_get_int(cfg, "playback.volume_step", 5);
	switch (a) {
	case UA_SEEK_BACK: snprintf(buf, size, "seek back %ld s", seek); break;
	case UA_SEEK_FWD: snprintf(buf, size, "seek forward %ld s", seek); break;
	case UA_VOL_UP: snprintf(buf, size, "volume up %ld %%", vol); break;
	case UA_VOL_DOWN: snprintf(buf, size, "volume down %ld %%", vol); break;
	default: return keymap_action_help(a);
	}
	return buf;
}

/* Line i of the help (or of ":errors"), sanitised (owned); *attr: how it
 * is drawn. */
static char *help_line(struct ui *ui, size_t i, int *attr)
{
	char line[4200]; /* a path of PATH_MAX and its reason */
	*attr = 0;
	if (ui->help_errors) {
		errors_line(ui, i, line, sizeof line, attr);
	} else if (i < UA_COUNT - 1) {
		enum ui_action a = (enum ui_action)(i + 1);
		char keys[96];
		keymap_describe(&ui->km, a, keys, sizeof keys);
		char what[96];
		snprintf(line, sizeof line, " %-16s %-18s %s", keys[0] ? keys : "(unbound)",
			 keymap_action_name(a), action_help(ui, a, what, sizeof what));
	} else if (i < (UA_COUNT - 1) + 2) {
		snprintf(line, sizeof line, "%s", i == UA_COUNT - 1 ? "" : " In view 4 (rules):");
		*attr = theme_attr(UR_HEADER);
	} else if (i < (UA_COUNT - 1) + 2 + NRULES) {
		size_t k = i - (UA_COUNT - 1) - 2;
		char keys[96];
		keymap_describe(&ui->km, rules_keys[k].a, keys, sizeof keys);
		snprintf(line, sizeof line, " %-16s %-18s %s", keys[0] ? keys : "(unbound)",
			 keymap_action_name(rules_keys[k].a), rules_keys[k].what);
	} else {
		line[0] = ' ';
		keymap_expand(&ui->km, extra[i - (UA_COUNT - 1) - 2 - NRULES], false, line + 1,
			      sizeof line - 1);
		*attr = theme_attr(UR_HINT);
	}
	return utf8_sanitize(line, strlen(line));
}

/* The screen rows the help takes at width columns: a line wider than
 * that goes on in the rows under it (ui_text_wrap), so that nothing is
 * cut at 80 columns. */
static size_t help_screen_rows(struct ui *ui, int width)
{
	size_t n = 0;
	for (size_t i = 0; i < help_rows(ui); i++) {
		int attr;
		char *line = help_line(ui, i, &attr);
		n += width > 0 ? ui_text_wrap(line, width, NULL, 0) : 1;
		free(line);
	}
	return n;
}

static void help_draw(struct ui *ui, const struct ui_rect *r)
{
	ui_list_fix(&ui->help_list, help_screen_rows(ui, r->w), r->h);
	/* The list is scrolled by its top row; the cursor is not shown. */
	size_t top = ui->help_list.top, row = 0;
	for (size_t i = 0; i < help_rows(ui) && row < top + (size_t)r->h && r->w > 0; i++) {
		int attr;
		char *line = help_line(ui, i, &attr);
		size_t k = ui_text_wrap(line, r->w, NULL, 0);
		struct ui_text_row *pieces = xcalloc(k, sizeof *pieces);
		ui_text_wrap(line, r->w, pieces, k);
		for (size_t j = 0; j < k; j++, row++) {
			if (row < top || row >= top + (size_t)r->h)
				continue;
			int y = r->y + (int)(row - top);
			char *piece = xstrndup(line + pieces[j].off, pieces[j].len);
			draw_fill(y, r->x, r->w, 0);
			draw_text(ui, y, r->x + pieces[j].indent, r->w - pieces[j].indent, piece, attr);
			free(piece);
		}
		free(pieces);
		free(line);
	}
}

static bool help_key(struct ui *ui, enum ui_action a)
{
	size_t n = help_screen_rows(ui, ui->L.main.w);
	int h = ui->L.main.h;
	size_t maxtop = n > (size_t)h ? n - (size_t)h : 0;
	switch (a) {
	case UA_UP:
		if (ui->help_list.top)
			ui->help_list.top--;
		break;
	case UA_DOWN:
		if (ui->help_list.top < maxtop)
			ui->help_list.top++;
		break;
	case UA_PAGE_UP:
	case UA_TOP:
		ui->help_list.top = a == UA_TOP || ui->help_list.top < (size_t)h ? 0 : ui->help_list.top - (size_t)h;
		break;
	case UA_PAGE_DOWN:
	case UA_BOTTOM:
		ui->help_list.top = a == UA_BOTTOM ? maxtop
				  : ui->help_list.top + (size_t)h > maxtop ? maxtop : ui->help_list.top + (size_t)h;
		break;
	default:
		return false;
	}
	/* Keep cur == top so ui_list_fix does not scroll back. */
	ui->help_list.cur = ui->help_list.top;
	return true;
}

/* The help takes its scrolling keys first; q, ? and Esc go back to the
 * view it shows over; other keys act as there. */
static bool help_key_first(struct ui *ui, enum ui_action a)
{
	if (help_key(ui, a))
		return true;
	if (a == UA_QUIT || a == UA_HELP || a == UA_CLEAR_SEARCH) {
		ui_leave_help(ui);
		return true;
	}
	return false;
}

/* "Help – q or Esc to go back", shorter where the tabs leave less room
 * (80 columns): "Help – q: back", then "Help". */
static void help_heading(struct ui *ui, int w, char *buf, size_t size)
{
	char q[32], e[32], back[80];
	const char *what = ui->help_errors ? "Scan problems" : "Help";
	keymap_expand(&ui->km, "{quit}", true, q, sizeof q);
	keymap_expand(&ui->km, "{clear_search}", true, e, sizeof e);
	snprintf(back, sizeof back, "%s%s%s", q, q[0] && e[0] ? " or " : "", e);
	snprintf(buf, size, "%s%s%s%s", what, back[0] ? " \xe2\x80\x93 " : "", back,
		 back[0] ? " to go back " : " ");
	if ((int)ui_text_width(buf) <= w)
		return;
	const char *key = q[0] ? q : e;
	snprintf(buf, size, "%s%s%s%s", what, key[0] ? " \xe2\x80\x93 " : "", key,
		 key[0] ? ": back " : " ");
	if ((int)ui_text_width(buf) > w)
		snprintf(buf, size, "%s ", what);
}

const struct ui_pane ui_pane_help = {
	.draw = help_draw,
	.key_first = help_key_first,
	.heading = help_heading,
};
