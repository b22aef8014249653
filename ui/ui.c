/* The curses front end: start-up, the poll() loop and key dispatch.
 *
 * One poll() waits on the terminal, a SIGWINCH self-pipe, the player's
 * event fd, the scanner's event fd and the control socket; nothing here
 * waits on disk or audio. Input is drained, then one frame is drawn —
 * only visible rows are formatted. CRATE_TRACE_FRAMES=FILE logs each
 * frame's key-to-screen time and its steps' as JSON lines
 * (bench/bench_ui.sh). */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/ui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_analysis.h"
#include "app/app_changes.h"
#include "app/app_hooks.h"
#include "app/app_library.h"
#include "app/app_mpris.h"
#include "app/app_play.h"
#include "app/app_remote.h"
#include "app/app_resume.h"
#include "app/app_typo.h"
#include "app/app_watch.h"
#include "base/heap_warm.h"
#include "base/tmpfiles.h"
#include "cli/cli.h"
#include "coll/eval.h"
#include "coll/store.h"
#include "medialib/index.h"
#include "ui/actions.h"
#include "ui/cmdline.h"
#include "ui/draw.h"
#include "ui/pane.h"
#include "ui/pane_browser.h"
#include "ui/pane_coll.h"
#include "ui/pane_files.h"
#include "ui/pane_help.h"
#include "ui/pane_playlist.h"
#include "ui/pane_rules.h"
#include "ui/pane_scrollback.h"
#include "ui/pane_status.h"
#include "ui/search_bar.h"
#include "ui/text.h"
#include "ui/ui_state.h"

static int winch_pipe[2] = {-1, -1};

/* The panes, by view: every "what does this view do" goes through here
 * (ui->panes). The first UI_NVIEWS have tabs, in this order. */
static const struct ui_pane *const panes[] = {
	[UI_VIEW_BROWSER] = &ui_pane_browser,
	[UI_VIEW_PLAYLIST] = &ui_pane_playlist,
	[UI_VIEW_COLLECTIONS] = &ui_pane_collections,
	[UI_VIEW_RULES] = &ui_pane_rules,
	[UI_VIEW_FILES] = &ui_pane_files,
	[UI_VIEW_HELP] = &ui_pane_help,
};
#define NPANES (sizeof panes / sizeof panes[0])
_Static_assert(NPANES == UI_VIEW_HELP + 1 && UI_NVIEWS <= NPANES, "a pane for every view");

static void on_winch(int sig)
{
	(void)sig;
	int saved = errno;
	if (winch_pipe[1] >= 0 && write(winch_pipe[1], "w", 1) < 0) {
		/* full pipe: a resize is already pending */
	}
	errno = saved;
}

/* A hang-up (the SSH link or the terminal window closed), SIGTERM or
 * Ctrl-C quits as 'q' does: resume state saved, control socket removed,
 * database closed. The handler only records the signal and wakes the loop
 * (through the resize pipe); a second one while that quit runs goes on to
 * the handler found before (temporary files, then ncurses or the default:
 * die). An ignored signal (nohup) stays ignored. */
static volatile sig_atomic_t quit_signal;
static const int quit_signals[] = {SIGHUP, SIGTERM, SIGINT};
static struct sigaction quit_previous[sizeof quit_signals / sizeof quit_signals[0]];
static bool quit_installed[sizeof quit_signals / sizeof quit_signals[0]];

static void on_quit_signal(int sig)
{
	int saved = errno;
	if (!quit_signal) {
		quit_signal = sig;
		if (winch_pipe[1] >= 0 && write(winch_pipe[1], "q", 1) < 0) {
			/* full pipe: the loop wakes up anyway */
		}
	} else {
		for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
			if (quit_signals[i] == sig && quit_installed[i]) {
				/* Delivered once this handler returns (it is blocked
				 * until then), to the handler found before. */
				sigaction(sig, &quit_previous[i], NULL);
				raise(sig);
			}
	}
	errno = saved;
}

static void quit_signals_install(void)
{
	quit_signal = 0;
	for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++) {
		struct sigaction sa = {0}, old;
		sa.sa_handler = on_quit_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		bool ignored = sigaction(quit_signals[i], NULL, &old) != 0 ||
			       (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN);
		quit_installed[i] = !ignored && sigaction(quit_signals[i], &sa, &quit_previous[i]) == 0;
	}
}

static void quit_signals_uninstall(void)
{
	for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
		if (quit_installed[i]) {
			sigaction(quit_signals[i], &quit_previous[i], NULL);
			quit_installed[i] = false;
		}
}

static double cpu_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool msg_expired(struct ui *ui)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > ui->msg_until.tv_sec ||
	       (now.tv_sec == ui->msg_until.tv_sec && now.tv_nsec >= ui->msg_until.tv_nsec);
}

/* ---- drawing a frame ---- */

static void compute_layout(struct ui *ui)
{
	const struct ui_pane *p = ui_pane_current(ui);
	ui->lopts.focus = ui->focus;
	ui->lopts.levels = (int)ui->levels.n;
	ui->lopts.search_bar = p->find_label &&
			       (ui->mode == UI_MODE_SEARCH || (ui->query.buf && ui->query.len));
	struct ui_layout_opts o = ui->lopts;
	if (!p->sidebar)
		o.sidebar_pct = 0;
	ui_layout_compute(ui->w, ui->h, &o, &ui->L);
}

/* The tabs' text: each view's key as bound, then its name (" 1 Browser
 * "); the name alone for a view left without a key. */
static void tab_labels(struct ui *ui, char labels[UI_NVIEWS][80])
{
	static const char *const keys[UI_NVIEWS] = {
		[UI_VIEW_BROWSER] = "{view_browser}", [UI_VIEW_PLAYLIST] = "{view_playlist}",
		[UI_VIEW_COLLECTIONS] = "{view_collections}", [UI_VIEW_RULES] = "{view_rules}",
		[UI_VIEW_FILES] = "{view_files}"};
	for (int i = 0; i < UI_NVIEWS; i++) {
		char key[64];
		keymap_expand(&ui->km, keys[i], true, key, sizeof key);
		snprintf(labels[i], 80, " %s%s%s ", key, key[0] ? " " : "", panes[i]->title);
	}
}

/* The tabs, laid out from their text: drawn and clicked alike. */
static void tabs_layout(char labels[UI_NVIEWS][80], struct ui_tab *out)
{
	const char *titles[UI_NVIEWS];
	for (int i = 0; i < UI_NVIEWS; i++)
		titles[i] = labels[i];
	ui_layout_tabs(titles, UI_NVIEWS, out);
}

static void title_draw(struct ui *ui)
{
	const struct ui_rect *r = &ui->L.title;
	if (!r->w)
		return;
	int attr = theme_attr(UR_TITLE);
	draw_fill(r->y, 0, r->w, attr);
	struct ui_tab tabs[UI_NVIEWS];
	char labels[UI_NVIEWS][80];
	tab_labels(ui, labels);
	tabs_layout(labels, tabs);
	enum ui_view shown = ui_base_view(ui);
	int x = 0;
	for (int i = 0; i < UI_NVIEWS && tabs[i].x < r->w; i++) {
		int tw = tabs[i].w < r->w - tabs[i].x ? tabs[i].w : r->w - tabs[i].x;
		draw_text(ui, r->y, tabs[i].x, tw, labels[i],
			  (int)shown == i ? theme_attr(UR_TITLE_ACTIVE) | (int)A_BOLD : attr);
		x = tabs[i].x + tabs[i].w + 1;
	}
	char what[600] = "";
	const struct ui_pane *p = ui_pane_current(ui);
	if (p->heading && x < r->w)
		p->heading(ui, r->w - x, what, sizeof what);
	if (x < r->w)
		draw_text_right(ui, r->y, x, r->w - x, what, attr);
}

/* The idle bottom row: the keys as bound ([keys] in the config), an
 * action without a key left out. */
static const char general_hint[] = "{help} help  {search} search  {command} command  "
				   "{views} views  {quit} quit";

static void hint_draw(struct ui *ui, const struct ui_rect *r, const char *hint)
{
	char text[256];
	keymap_expand(&ui->km, hint, true, text, sizeof text);
	draw_text(ui, r->y, 0, r->w, text, theme_attr(UR_HINT));
}

/* The message, on the bottom row; one wider than the row goes on in the
 * rows above it (half the screen at most), over the status, so that what
 * it says is read whole at 20 columns too. */
static void msg_text_draw(struct ui *ui, const struct ui_rect *r)
{
	int max = ui->h / 2 > 1 ? ui->h / 2 : 1;
	draw_text_up(ui, r->y, r->w, max, ui->msg, ui->msg_error ? theme_attr(UR_ERROR) : 0);
}

static void msg_draw(struct ui *ui)
{
	const struct ui_rect *r = &ui->L.msg;
	const struct ui_pane *p = ui_pane_current(ui);
	if (!r->w)
		return;
	draw_fill(r->y, 0, r->w, 0);
	if (ui->mode == UI_MODE_COMMAND || ui->mode == UI_MODE_PROMPT) {
		cmdline_draw(ui);
		return;
	}
	if (ui->msg[0] && !msg_expired(ui)) {
		msg_text_draw(ui, r);
		return;
	}
	ui->msg[0] = '\0';
	if (ui->scan_active) {
		/* [#####-----] then the counts: the bar shows files done of found. */
		int cells = r->w >= 60 ? 16 : 0;
		size_t fill;
		char line[512];
		act_scan_progress_line(ui, line, sizeof line, &fill, (size_t)cells);
		int x = 0;
		if (cells) {
			char bar[40];
			bar[0] = '[';
			for (int i = 0; i < cells; i++)
				bar[1 + i] = (size_t)i < fill ? '#' : '-';
			bar[cells + 1] = ']';
			bar[cells + 2] = '\0';
			draw_text(ui, r->y, 0, cells + 2, bar, theme_attr(UR_PROGRESS));
			x = cells + 3;
		}
		draw_text(ui, r->y, x, r->w - x, line, 0);
		return;
	}
	if (ui->mode == UI_MODE_SEARCH)
		draw_text(ui, r->y, 0, r->w, "Enter: keep the search   Esc: leave   Up/Down: move",
			  theme_attr(UR_HINT));
	else if (r->w >= 40)
		hint_draw(ui, r, p->hint && r->w >= 56 ? p->hint : general_hint);
}

static void frame_draw(struct ui *ui)
{
	double t0 = ui_now_ms();
	compute_layout(ui);
	ui->cur_y = ui->cur_x = -1;
	erase();
	title_draw(ui);
	if (ui->L.main.h > 0 && !scrollback_draw(ui, ui->scrollback, &ui->L.main)) {
		if (ui->L.sidebar.w)
			ui_pane_sidebar.draw(ui, &ui->L.sidebar);
		ui_pane_current(ui)->draw(ui, &ui->L.main);
	}
	if (ui->L.search.w)
		search_draw(ui);
	status_draw(ui);
	msg_draw(ui);
	if (ui->cur_y >= 0 && ui->cur_x >= 0 && ui->cur_y < ui->h && ui->cur_x < ui->w) {
		move(ui->cur_y, ui->cur_x);
		curs_set(1);
	} else {
		curs_set(0);
	}
	wnoutrefresh(stdscr);
	doupdate();
	if (ui->title.on) { /* after the screen: the title is written past curses */
		char title[1200];
		status_title(ui, title, sizeof title);
		term_title_set(&ui->title, title);
	}
	ui->dirty = false;
	if (ui->trace && ui->t_key > 0) {
		double t1 = ui_now_ms();
		fprintf(ui->trace,
			"{\"frame\":%lu,\"what\":\"%s\",\"key_to_screen_ms\":%.3f,\"eval_ms\":%.3f,"
			"\"draw_ms\":%.3f,\"results\":%zu,\"query_bytes\":%zu,\"cpu_ms\":%.3f,\"group_ms\":%.3f,"
			"\"list_ms\":%.3f,\"rank_ms\":%.3f,\"regrouped\":%u}\n",
			ui->frame_no, ui->trace_what ? ui->trace_what : "key", t1 - ui->t_key,
			ui->eval_ms, t1 - t0, ui->results.n, ui->query.len, cpu_now_ms() - ui->t_key_cpu, ui->group_ms,
			ui->timing.list_ms, ui->timing.rank_ms, ui->regrouped);
		fflush(ui->trace);
	}
	ui->frame_no++;
	ui->t_key = 0;
	ui->eval_ms = 0;
	ui->group_ms = 0;
	ui->regrouped = 0;
	ui->timing = (struct coll_eval_timing){0, 0};
}

/* ---- input ---- */

static int translate_key(int rc, wint_t wc)
{
	if (rc == OK) {
		switch (wc) {
		case '\r':
		case '\n':
			return KEY_C_ENTER;
		case '\t':
			return KEY_C_TAB;
		case 27:
			return KEY_C_ESC;
		case 127:
		case 8:
			return KEY_C_BACKSPACE;
		default:
			return (int)wc;
		}
	}
	switch (wc) {
	case KEY_ENTER: return KEY_C_ENTER;
	case KEY_BTAB: return KEY_C_BTAB;
	case KEY_BACKSPACE: return KEY_C_BACKSPACE;
	case KEY_DC: return KEY_C_DELETE;
	case KEY_IC: return KEY_C_INSERT;
	case KEY_UP: return KEY_C_UP;
	case KEY_DOWN: return KEY_C_DOWN;
	case KEY_LEFT: return KEY_C_LEFT;
	case KEY_RIGHT: return KEY_C_RIGHT;
	case KEY_PPAGE: return KEY_C_PGUP;
	case KEY_NPAGE: return KEY_C_PGDN;
	case KEY_HOME: return KEY_C_HOME;
	case KEY_END: return KEY_C_END;
	default:
		break;
	}
	if (wc >= KEY_F(1) && wc <= KEY_F(12))
		return KEY_C_F1 + (int)(wc - KEY_F(1));
	return -1;
}

static void do_resize(struct ui *ui)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	ui->w = COLS;
	ui->h = LINES;
	clearok(curscr, TRUE);
	ui->dirty = true;
}

/* Q: view 2 with the queue, the way view 3 opens a playlist; Q again goes
 * back to the active playlist. */
static void show_queue(struct ui *ui)
{
	bool showing = ui->view == UI_VIEW_PLAYLIST && ui->pl_name &&
		       strcmp(ui->pl_name, APP_QUEUE_NAME) == 0;
	if (!showing && !app_playlist_get(ui->app, APP_QUEUE_NAME)) {
		free(ui->pl_name);
		ui->pl_name = NULL;
		char say[200];
		keymap_expand(&ui->km, "the queue is empty: {enqueue} appends the selection to it",
			      false, say, sizeof say);
		ui_message(ui, false, "%s", say);
		return;
	}
	ui_open_playlist(ui, showing ? NULL : APP_QUEUE_NAME);
}

static void quit_or_ask(struct ui *ui)
{
	if (act_scan_running(ui))
		prompt_begin(ui, UI_PROMPT_QUIT, NULL, NULL);
	else
		ui->running = false;
}

/* The row of id in playlist name (its current entry when that is id). */
static bool playlist_row_of(struct ui *ui, const char *name, uint32_t id, size_t *row)
{
	const struct coll_node *pl = app_playlist_get(ui->app, name);
	if (!pl)
		return false;
	const char *cp = coll_attr_get(pl, "position");
	long cur = cp ? strtol(cp, NULL, 10) : -1;
	if (cur >= 0 && (size_t)cur < pl->idlist.n && pl->idlist.v[cur] == id) {
		*row = (size_t)cur;
		return true;
	}
	for (size_t i = 0; i < pl->idlist.n; i++)
		if (pl->idlist.v[i] == id) {
			*row = i;
			return true;
		}
	return false;
}

/* Find your place: the playing track in the view that shows it: the
 * playlist or browser shown when it holds it, else the playlist it plays
 * from, else the browser (choosing its artist and album). */
static void jump_playing(struct ui *ui)
{
	struct app_play_status ps;
	app_play_status(ui->app, &ps);
	if (ps.state == ENGINE_STOPPED || !ps.id) {
		ui_message(ui, false, "nothing is playing");
		return;
	}
	size_t row;
	const char *shown = ui_playlist_shown(ui);
	const char *from = ps.playlist;
	if (strncmp(from, COLL_NS_PLAYLISTS "/", strlen(COLL_NS_PLAYLISTS "/")) == 0)
		from += strlen(COLL_NS_PLAYLISTS "/");
	enum ui_view v = ui_base_view(ui);
	if (v == UI_VIEW_PLAYLIST && shown && playlist_row_of(ui, shown, ps.id, &row)) {
		ui_leave_help(ui);
	} else if (v == UI_VIEW_BROWSER && browser_reveal(ui, ps.id)) {
		ui_leave_help(ui);
		return;
	} else if (*from && !ps.from_queue && playlist_row_of(ui, from, ps.id, &row)) {
		ui_open_playlist(ui, from);
	} else {
		ui_switch_view(ui, UI_VIEW_BROWSER);
		if (!browser_reveal(ui, ps.id))
			ui_message(ui, false, "the playing track is not in the browser's results (its search or collection)");
		return;
	}
	ui->pl_list.cur = row;
	ui->dirty = true;
}

/* The view a key shows (UI_VIEW_HELP: none of them). */
static enum ui_view view_of_action(enum ui_action a)
{
	switch (a) {
	case UA_VIEW_BROWSER:
		return UI_VIEW_BROWSER;
	case UA_VIEW_PLAYLIST:
		return UI_VIEW_PLAYLIST;
	case UA_VIEW_COLLECTIONS:
		return UI_VIEW_COLLECTIONS;
	case UA_VIEW_RULES:
		return UI_VIEW_RULES;
	case UA_VIEW_FILES:
		return UI_VIEW_FILES;
	default:
		return UI_VIEW_HELP;
	}
}

/* The interface itself: views, help, the command line, the search, a
 * redraw, quitting. False when a is none of these. */
static bool interface_action(struct ui *ui, enum ui_action a)
{
	enum ui_view v = view_of_action(a);
	if (v != UI_VIEW_HELP) {
		ui_switch_view(ui, v);
		return true;
	}
	switch (a) {
	case UA_QUIT:
		quit_or_ask(ui);
		return true;
	case UA_VIEW_QUEUE:
		show_queue(ui);
		return true;
	case UA_HELP:
		ui->help_errors = false;
		ui_switch_view(ui, UI_VIEW_HELP);
		return true;
	case UA_COMMAND:
		cmdline_begin(ui, NULL);
		return true;
	case UA_JUMP_PLAYING:
		jump_playing(ui);
		return true;
	case UA_SEARCH:
		ui_leave_help(ui);
		search_begin(ui);
		return true;
	case UA_CLEAR_SEARCH:
		if (ui->query.len)
			search_clear(ui);
		return true;
	case UA_REDRAW:
		clearok(curscr, TRUE);
		ui_colls_changed(ui);
		ui_refresh_browser(ui);
		return true;
	default:
		return false;
	}
}

/* What plays (the player's keys) and what is done to the tracks of the
 * current view (play, add, enqueue, remove, rate, save, undo). False
 * when a is none of these. */
static bool track_action(struct ui *ui, const struct ui_pane *p, enum ui_action a)
{
	switch (a) {
	case UA_PAUSE:
	case UA_STOP:
	case UA_NEXT:
	case UA_PREV:
	case UA_SEEK_BACK:
	case UA_SEEK_FWD:
	case UA_VOL_UP:
	case UA_VOL_DOWN:
	case UA_REPEAT:
	case UA_SHUFFLE:
		act_player(ui, a);
		return true;
	case UA_PLAY:
		act_play(ui);
		return true;
	case UA_ADD:
	case UA_ENQUEUE:
		act_add(ui, a == UA_ENQUEUE);
		return true;
	case UA_SAVE:
		if (!p->saves)
			ui_message(ui, false, "s saves the browser's search (view 1)");
		else
			prompt_begin(ui, UI_PROMPT_SAVE, NULL, NULL);
		return true;
	case UA_REMOVE:
		act_remove(ui);
		return true;
	case UA_UNDO:
		act_undo(ui);
		return true;
	case UA_RATE: {
		char label[120];
		if (!act_rate_prompt(ui, label, sizeof label))
			ui_message(ui, false, "* rates the selected track (views 1 and 2)");
		else
			prompt_begin(ui, UI_PROMPT_RATE, label, NULL);
		return true;
	}
	default:
		return false;
	}
}

/* Movement, matches and marks belong to the view; Space pauses where the
 * view has no marks (collections, rules), and keys a view does not take
 * say where they work. */
static void view_action(struct ui *ui, const struct ui_pane *p, enum ui_action a)
{
	if (p->key && p->key(ui, a))
		return;
	if (a == UA_MARK)
		act_player(ui, UA_PAUSE);
	else if (a == UA_MARK_MATCHES || a == UA_UNMARK_ALL)
		ui_message(ui, false, "marks are in the browser (1) and the playlist (2)");
	else if (a == UA_MOVE_UP || a == UA_MOVE_DOWN)
		ui_message(ui, false, "K J move entries in the playlist and queue (2) and rules (4)");
}

static void handle_action(struct ui *ui, enum ui_action a)
{
	ui->dirty = true;
	/* Some views give keys their own meaning first (help, rules). */
	const struct ui_pane *p = ui_pane_current(ui);
	if ((p->key_first && p->key_first(ui, a)) || a == UA_NONE)
		return;
	if (!interface_action(ui, a) && !track_action(ui, p, a))
		view_action(ui, p, a);
}

static void handle_mouse(struct ui *ui)
{
	MEVENT ev;
	search_flush(ui); /* clicks act on the results */
	if (getmouse(&ev) != OK)
		return;
	ui->dirty = true;
	if (ev.bstate & BUTTON4_PRESSED) {
		handle_action(ui, UA_UP);
		handle_action(ui, UA_UP);
		handle_action(ui, UA_UP);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		handle_action(ui, UA_DOWN);
		handle_action(ui, UA_DOWN);
		handle_action(ui, UA_DOWN);
		return;
	}
#endif
	bool dbl = (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0;
	if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) && !dbl)
		return;
	if (ui->L.title.w && ev.y == ui->L.title.y) {
		struct ui_tab tabs[UI_NVIEWS];
		char labels[UI_NVIEWS][80];
		tab_labels(ui, labels);
		tabs_layout(labels, tabs);
		int v = ui_layout_tab_at(tabs, UI_NVIEWS, ev.x);
		if (v >= 0)
			ui_switch_view(ui, (enum ui_view)v);
		return;
	}
	const struct ui_rect *m = &ui->L.main;
	if (ev.y < m->y || ev.y >= m->y + m->h)
		return;
	const struct ui_rect *s = &ui->L.sidebar;
	const struct ui_pane *p = ui_pane_current(ui);
	if (s->w && ev.x >= s->x && ev.x < s->x + s->w && ev.y >= s->y && ev.y < s->y + s->h)
		ui_pane_sidebar.click(ui, ev.y, ev.x, dbl);
	else if (p->click)
		p->click(ui, ev.y, ev.x, dbl);
}

static void handle_key(struct ui *ui, int key)
{
	if (!ui->t_key) {
		ui->t_key = ui_now_ms();
		ui->t_key_cpu = cpu_now_ms();
	}
	ui->trace_what = ui->mode == UI_MODE_SEARCH ? "search_key" : "key";
	ui->dirty = true;
	ui_message_next_action(ui);
	if (ui->mode != UI_MODE_SEARCH)
		search_flush(ui);
	if (ui->mode == UI_MODE_SEARCH) {
		search_key(ui, key);
		return;
	}
	if (ui->mode == UI_MODE_COMMAND || ui->mode == UI_MODE_PROMPT) {
		cmdline_key(ui, key);
		return;
	}
	if (scrollback_key(ui->scrollback, key, ui->L.main.h - 1))
		return;
	handle_action(ui, keymap_lookup(&ui->km, key));
}

static void read_input(struct ui *ui)
{
	for (;;) {
		wint_t wc;
		int rc = get_wch(&wc);
		if (rc == ERR) {
			search_flush(ui); /* every pending key is read: evaluate once */
			return;
		}
		if (rc == KEY_CODE_YES && wc == KEY_RESIZE) {
			/* curses has resized already (resizeterm queues this key). */
			ui->w = COLS;
			ui->h = LINES;
			ui->dirty = true;
			continue;
		}
		if (rc == KEY_CODE_YES && wc == KEY_MOUSE) {
			handle_mouse(ui);
			continue;
		}
		int key = translate_key(rc, wc);
		if (key >= 0)
			handle_key(ui, key);
	}
}

/* ---- the control socket's hooks ---- */

/* `crate search` forwarded by the launcher: answered from our index. */
static int remote_command(void *ud, int argc, char **argv, struct strbuf *out,
			  struct crate_err *err)
{
	struct ui *ui = ud;
	return cli_search_to_buffer(ui->app, argc, argv, APP_REMOTE_STDERR, out, err);
}

static void remote_search(void *ud, const char *query)
{
	ui_browser_search(ud, query);
}

static void remote_changed(void *ud)
{
	struct ui *ui = ud;
	ui->dirty = true;
}

/* ---- set-up and the loop ---- */

static void ui_free(struct ui *ui)
{
	for (int i = 0; i < ui->nqueued_scan; i++)
		free(ui->queued_scan[i]);
	free(ui->queued_scan);
	for (size_t v = 0; v < NPANES; v++)
		if (panes[v]->free)
			panes[v]->free(ui);
	scrollback_free(ui->scrollback);
	ui_rows_free(&ui->rows);
	coll_node_unref(ui->qnode);
	free(ui->resume_last);
	free(ui->qnote);
	app_eval_cache_free(&ui->ecache);
	heap_warm_free(&ui->heap_warm);
	strbuf_free(&ui->query);
	strbuf_free(&ui->cmd);
	free(ui->good_query);
	free(ui->base_ns);
	free(ui->base_name);
	ui_follow_forget(&ui->base_was);
	ui_follow_forget(&ui->pl_was);
	free(ui->prompt_arg);
	cmdline_free(ui);
	for (int i = 0; i < UI_NVIEWS; i++)
		free(ui->view_query[i]);
	if (ui->trace)
		fclose(ui->trace);
}

static void poll_scan(struct ui *ui)
{
	struct app_scan_progress p;
	/* The poll may swap the index: keep what the browser selects as text
	 * of its own first. */
	browser_keep_selection(ui);
	int rc = app_scan_poll(ui->app, &p);
	if (rc <= 0) {
		browser_keep_selection_drop(ui);
		if (rc < 0)
			return;
	}
	if (rc == 0 && p.quiet)
		return; /* the owned copy of the start-up index: nothing to show */
	ui->dirty = true;
	if (rc == 0 && p.reload_only) {
		snprintf(ui->msg_scan, sizeof ui->msg_scan, "loading the changed library");
		return;
	}
	if (rc == 0) {
		ui->scan_prog = p;
		snprintf(ui->msg_scan, sizeof ui->msg_scan, "%s",
			 p.indexing ? "indexing" : "scanning");
		return;
	}
	ui->scan_active = false;
	/* Finished: the index may have been replaced. */
	if (ui->index_seen != app_index_generation(ui->app))
		browser_index_changed(ui);
	browser_keep_selection_drop(ui);
	playlist_find(ui);
	ui->msg_scan[0] = '\0';
	if (ui->queued_scan) {
		/* A :scan waited for this one (crate's own): its summary will do. */
		act_scan_queued(ui);
		return;
	}
	if (p.rc == 0 && !p.quiet)
		app_analysis_auto(ui->app); /* [analysis] auto: listen to what came in */
	if (p.reload_only) {
		if (p.rc != 0)
			ui_message(ui, true, "reloading the library: %s", p.msg);
		return;
	}
	if (p.automatic) {
		/* The folder watch or a periodic rescan: say only what changed,
		 * and problems only the first time they are seen. */
		const struct mlib_scan_progress *a = &p.p;
		if (p.rc != 0)
			ui_message(ui, true, "updating the library: %s", p.msg);
		else if (p.new_errors)
			ui_message(ui, true, "library updated: %llu added, %llu updated, %llu gone, "
				   "%zu new problem%s (:errors lists them)",
				   (unsigned long long)a->added, (unsigned long long)a->updated,
				   (unsigned long long)a->missing, p.new_errors,
				   p.new_errors == 1 ? "" : "s");
		else if (a->added + a->updated + a->missing)
			ui_message(ui, false, "library updated: %llu added, %llu updated, %llu gone",
				   (unsigned long long)a->added, (unsigned long long)a->updated,
				   (unsigned long long)a->missing);
		return;
	}
	const struct mlib_scan_progress *t = &p.p;
	char counts[300];
	int len = snprintf(counts, sizeof counts,
			   "%llu added, %llu updated, %llu unchanged, %llu ignored, %llu failed",
			   (unsigned long long)t->added, (unsigned long long)t->updated,
			   (unsigned long long)t->unchanged, (unsigned long long)t->ignored,
			   (unsigned long long)(t->failed + t->folders_failed + t->roots_gone));
	/* What the CLI's summary says too: files that went, sheets not used. */
	if (t->missing && len > 0 && (size_t)len < sizeof counts)
		len += snprintf(counts + len, sizeof counts - (size_t)len, ", %llu gone",
				(unsigned long long)t->missing);
	if (t->cue_failed && len > 0 && (size_t)len < sizeof counts)
		snprintf(counts + len, sizeof counts - (size_t)len, ", %llu cue sheet%s not used",
			 (unsigned long long)t->cue_failed, t->cue_failed == 1 ? "" : "s");
	if (p.rc != 0)
		ui_message(ui, true, "scan stopped: %s; stored: %s; %llu not stored", p.msg, counts,
			   (unsigned long long)t->not_stored);
	else
		ui_message(ui, p.nerrors > 0, "scan done: %s%s%s%s", counts,
			   p.nerrors ? " (:errors lists them)" : "", ui->scan_note[0] ? "; " : "",
			   ui->scan_note);
	ui->scan_note[0] = '\0';
}

void ui_poll_analysis(struct ui *ui)
{
	struct app_analysis_progress p;
	browser_keep_selection(ui); /* the poll may swap the index */
	int rc = app_analysis_poll(ui->app, &p);
	if (rc <= 0) {
		browser_keep_selection_drop(ui);
		if (rc < 0)
			return;
	}
	ui->dirty = true;
	if (rc == 0) {
		snprintf(ui->msg_analysis, sizeof ui->msg_analysis, "analysis %zu/%zu%s", p.done,
			 p.total, p.paused ? " (paused)" : "");
		return;
	}
	ui->msg_analysis[0] = '\0';
	if (ui->index_seen != app_index_generation(ui->app)) /* the index was replaced */
		browser_index_changed(ui);
	browser_keep_selection_drop(ui);
	playlist_find(ui);
	/* An automatic run ends quietly: the scan summary it follows stays. */
	bool manual = ui->analysis_manual;
	ui->analysis_manual = false;
	if (manual && p.rc != 0)
		ui_message(ui, true, "analysis failed: %s", p.msg);
	else if (manual && p.total == 0 && p.failed_before) /* not "done: 0 files" */
		ui_message(ui, false,
			   "nothing to analyse: %zu %s could not be analysed before (analysis_error:* "
			   "finds them; 'crate analyze --again' tries them again)",
			   p.failed_before, str_plural(p.failed_before, "file", "files"));
	else if (manual && p.total == 0)
		ui_message(ui, false, "nothing to analyse: every file is analysed already");
	else if (manual)
		ui_message(ui, p.failed > 0, "analysis done: %zu files, %zu not analysed%s%s", p.done,
			   p.failed, p.failed ? ": " : "", p.failed ? p.msg : "");
}

/* Collections or playlists changed under us (Party Shuffle refill, the
 * command line, the control socket): reload what shows them. */
static void check_store(struct ui *ui, unsigned *gen)
{
	if (!app_has_store(ui->app))
		return;
	unsigned g = app_store_generation(ui->app);
	if (g == *gen)
		return;
	*gen = g;
	ui_colls_changed(ui);
	ui_playlist_follow(ui); /* view 2's, renamed or removed */
	if (ui->base_ns) {
		ui_browse_follow(ui); /* renamed or removed */
		ui_refresh_browser(ui); /* the browsed collection may have changed */
	}
	ui->dirty = true;
}

/* Someone else changed the library, collections or rules (app_changes.h):
 * reload what shows them. A library change ends in poll_scan. */
static void check_changes(struct ui *ui)
{
	struct crate_err err = {0};
	int what = app_changes_check(ui->app, &err);
	if (what < 0) {
		if (strcmp(err.msg, ui->changes_error) != 0) {
			snprintf(ui->changes_error, sizeof ui->changes_error, "%s", err.msg);
			ui_message(ui, true, "%s", err.msg);
		}
		return;
	}
	ui->changes_error[0] = '\0';
	if (what & APP_CHANGED_RULES)
		ui->dirty = true;
	if (what & APP_CHANGED_STATS) { /* a search on rating or plays may list others */
		ui_refresh_browser(ui);
		ui->dirty = true;
	}
}

/* How often other programs' changes are looked for (ms) when no event
 * says so (app_changes_fd): within a second of a commit the interface
 * shows it. With the event, a safety check a second suffices. */
#define CHANGES_EVERY_MS 250
#define CHANGES_SAFETY_MS 1000
/* While the search has preparation left, the loop starts on it after
 * this much quiet from the keyboard (ms), then does its steps back to
 * back, looking at the input between them (each is a few ms at most). */
#define PREPARE_IDLE_MS 20

/* Heap faulted in while idle (base/heap_warm.h), per track of the
 * library: beyond what the first view (every track) left in the heap,
 * typing a search at a million tracks grew it by 16 MB for the first
 * large result and 33 MB over a whole query; 40 bytes a track covers that
 * (resident memory then stays flat while typing). At most HEAP_WARM_MAX:
 * the block must stay in the heap (M_MMAP_THRESHOLD below). */
#define HEAP_WARM_PER_TRACK 40
#define HEAP_WARM_MAX ((size_t)60 << 20)
/* Below this (200,000 tracks) a large search grows the heap little. */
#define HEAP_WARM_MIN ((size_t)8 << 20)

/* One step of the work done before the next keystroke needs it: the
 * search bar's tables (app_eval_cache_prepare), then heap pages for a
 * large result. True while steps remain. */
static bool idle_prepare(struct ui *ui)
{
	if (app_eval_cache_prepare(ui->app, &ui->ecache))
		return true;
	size_t want = app_library_size(ui->app) * HEAP_WARM_PER_TRACK;
	if (want > HEAP_WARM_MAX)
		want = HEAP_WARM_MAX;
	return want >= HEAP_WARM_MIN && heap_warm_step(&ui->heap_warm, want);
}

/* ---- exact resume ---- */

#define RESUME_SAVE_EVERY_MS 3000

static void resume_save(struct ui *ui)
{
	enum ui_view v = ui_base_view(ui);
	const char *search = v == UI_VIEW_BROWSER ? ui->query.buf : ui->view_query[UI_VIEW_BROWSER];
	struct app_resume_ui r = {.view = (int)v,
				  .browse_ns = ui->base_ns,
				  .browse_name = ui->base_name,
				  .search = (char *)(search ? search : "")};
	struct crate_err err = {0};
	if (app_resume_save(ui->app, &r, &ui->resume_last, &err) != 0 && !ui->resume_failed) {
		ui->resume_failed = true; /* say it once */
		ui_message(ui, true, "resume state: %s", err.msg);
	}
	ui->resume_saved_ms = ui_now_ms();
}

static void resume_load(struct ui *ui)
{
	struct app_resume_ui r;
	struct crate_err err = {0};
	if (app_resume_load(ui->app, &r, &err) != 0)
		ui_message(ui, true, "resume: %s", err.msg);
	if (r.browse_ns && r.browse_name && app_coll_get(ui->app, r.browse_ns, r.browse_name)) {
		free(ui->base_ns);
		free(ui->base_name);
		ui->base_ns = r.browse_ns;
		ui->base_name = r.browse_name;
		r.browse_ns = r.browse_name = NULL;
		ui_browse_follow(ui); /* note what it is */
		ui_refresh_browser(ui);
	}
	if (r.search && *r.search)
		ui_browser_search(ui, r.search);
	if (r.view >= 0 && r.view < UI_NVIEWS)
		ui_switch_view(ui, (enum ui_view)r.view);
	app_resume_ui_free(&r);
	ui->resume_saved_ms = ui_now_ms();
}

/* Hang-up, an error, or "readable" with nothing to read (end of file):
 * the terminal is gone. */
static bool terminal_gone(short revents)
{
	if (revents & (POLLHUP | POLLERR | POLLNVAL))
		return true;
	int avail = 0;
	if (ioctl(STDIN_FILENO, FIONREAD, &avail) != 0)
		return errno != EINTR;
	return avail == 0;
}

static int loop(struct ui *ui)
{
	unsigned gen = app_store_generation(ui->app);
	double next_changes = 0;
	int changes_fd = app_changes_fd(ui->app);
	int every = changes_fd >= 0 ? CHANGES_SAFETY_MS : CHANGES_EVERY_MS;
	bool db_event = false;
	/* Whether the search bar has work to do before keystrokes need it
	 * (idle_prepare), and whether its steps are under way (the keyboard
	 * quiet since the last one). */
	bool prepare = true, preparing = false;
	ui->running = true;
	while (ui->running && !quit_signal) {
		double now = ui_now_ms();
		if (now >= next_changes || db_event) {
			check_changes(ui);
			next_changes = now + every;
			db_event = false;
		}
		/* Every few seconds: a crash loses at most that much. */
		if (ui_now_ms() - ui->resume_saved_ms >= RESUME_SAVE_EVERY_MS)
			resume_save(ui);
		check_store(ui, &gen);
		if (ui->dirty)
			frame_draw(ui);
		struct pollfd fds[8 + APP_REMOTE_MAX_CLIENTS + 1];
		size_t n = 0;
		fds[n++] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
		fds[n++] = (struct pollfd){.fd = winch_pipe[0], .events = POLLIN};
		size_t changes_i = n;
		if (changes_fd >= 0)
			fds[n++] = (struct pollfd){.fd = changes_fd, .events = POLLIN};
		int watch_fd = app_watch_fd(ui->app);
		if (watch_fd >= 0)
			fds[n++] = (struct pollfd){.fd = watch_fd, .events = POLLIN};
		int scan_fd = app_scan_event_fd(ui->app);
		size_t scan_i = n;
		if (scan_fd >= 0)
			fds[n++] = (struct pollfd){.fd = scan_fd, .events = POLLIN};
		int an_fd = app_analysis_event_fd(ui->app);
		size_t an_i = n;
		if (an_fd >= 0)
			fds[n++] = (struct pollfd){.fd = an_fd, .events = POLLIN};
		int typo_fd = app_typo_event_fd(ui->app);
		size_t typo_i = n;
		if (typo_fd >= 0)
			fds[n++] = (struct pollfd){.fd = typo_fd, .events = POLLIN};
		int play_fd = ui_play_event_fd(ui);
		size_t play_i = n;
		if (play_fd >= 0)
			fds[n++] = (struct pollfd){.fd = play_fd, .events = POLLIN};
		short mpris_ev;
		int mpris_timeout;
		int mpris_fd = app_mpris_fd(ui->mpris, &mpris_ev, &mpris_timeout);
		size_t mpris_i = n;
		if (mpris_fd >= 0)
			fds[n++] = (struct pollfd){.fd = mpris_fd, .events = mpris_ev};
		size_t remote_i = n;
		if (ui->remote)
			n += app_remote_pollfds(ui->remote, fds + n, sizeof fds / sizeof fds[0] - n);
		/* Wake up for an expiring message and the clock of a playing track. */
		int timeout = every, wt = app_watch_timeout(ui->app);
		if (ui->msg[0] && timeout > 500)
			timeout = 500; /* the message's expiry */
		if (wt >= 0 && wt < timeout)
			timeout = wt;
		if (mpris_fd >= 0 && mpris_timeout >= 0 && mpris_timeout < timeout)
			timeout = mpris_timeout;
		if (prepare && timeout > PREPARE_IDLE_MS)
			timeout = preparing ? 0 : PREPARE_IDLE_MS;
		int rc = poll(fds, n, timeout);
		if (rc < 0 && errno != EINTR)
			return -1;
		if (changes_fd >= 0 && rc > 0 && fds[changes_i].revents)
			db_event = app_changes_drain(ui->app);
		if (ui->app->watch) {
			char wmsg[512];
			app_watch_tick(ui->app, wmsg, sizeof wmsg);
			if (wmsg[0])
				ui_message(ui, true, "%s", wmsg);
		}
		char hook_msg[600];
		if (app_hooks_report(ui->app, hook_msg, sizeof hook_msg))
			ui_message(ui, true, "hook: %s", hook_msg);
		if (rc <= 0) {
			/* Idle: a step of the search's preparation. A new index
			 * (a library change) brings new work: look again at the
			 * next quiet wake-up. */
			double t0 = ui_now_ms();
			bool stepped = prepare;
			prepare = preparing = idle_prepare(ui);
			if (ui->trace && (stepped || prepare)) { /* how long a key could wait */
				fprintf(ui->trace, "{\"what\":\"idle_step\",\"ms\":%.3f}\n",
					ui_now_ms() - t0);
				fflush(ui->trace);
			}
			if (ui->msg[0] && msg_expired(ui))
				ui->dirty = true;
			if (ui_play_tick(ui))
				ui->dirty = true;
			continue;
		}
		if (quit_signal)
			break;
		if (fds[1].revents & POLLIN) {
			char buf[64];
			while (read(winch_pipe[0], buf, sizeof buf) > 0)
				;
			do_resize(ui);
		}
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
			/* The terminal went away (SSH dropped, tmux killed) and
			 * SIGHUP did not come (nohup, trap '' HUP): quit as 'q'
			 * does, so state is saved, instead of polling a dead
			 * terminal forever at full speed. */
			if (terminal_gone(fds[0].revents))
				return 0;
			preparing = false; /* typing: the steps wait for quiet again */
			read_input(ui);
		}
		if (scan_fd >= 0 && fds[scan_i].revents)
			poll_scan(ui);
		if (an_fd >= 0 && fds[an_i].revents)
			ui_poll_analysis(ui);
		/* The spelling corrections' words are ready and a search went
		 * without them: search again, so its corrections show. */
		if (typo_fd >= 0 && fds[typo_i].revents && app_typo_poll(ui->app)) {
			ui_refresh_browser(ui);
			playlist_find(ui);
		}
		if (play_fd >= 0 && fds[play_i].revents) {
			ui_play_events(ui);
			ui->dirty = true;
		}
		if (mpris_fd >= 0 && fds[mpris_i].revents) {
			app_mpris_process(ui->mpris); /* media keys act like the player keys */
			ui->dirty = true;
		}
		if (ui->remote && n > remote_i)
			app_remote_handle(ui->remote, fds + remote_i, n - remote_i);
	}
	return 0;
}

static void load_layout(struct ui *ui)
{
	const struct config *cfg = ui->app->cfg;
	ui->lopts.sidebar_pct = (int)config_get_int(cfg, "layout.sidebar", 18);
	ui->lopts.artist_pct = (int)config_get_int(cfg, "layout.artist", 25);
	ui->lopts.album_pct = (int)config_get_int(cfg, "layout.album", 25);
	ui->value_sep = config_get(cfg, "display.separator", MLIB_VALUE_SEPARATOR);
	ui_rows_load(ui);
	const char *v = config_get(cfg, "layout.start_view", "browser");
	ui->view = strcmp(v, "playlist") == 0 ? UI_VIEW_PLAYLIST
		 : strcmp(v, "collections") == 0 ? UI_VIEW_COLLECTIONS
		 : strcmp(v, "rules") == 0 ? UI_VIEW_RULES
		 : strcmp(v, "files") == 0 ? UI_VIEW_FILES : UI_VIEW_BROWSER;
}

/* Home and End as terminals send them whatever TERM claims: tmux and
 * screen send ESC [1~ / ESC [4~ even under TERM=xterm, where terminfo
 * knows only ESC O H / ESC O F. Without these, End arrived as Escape and
 * "[4~", which closed the pane and switched to view 4. */
static void define_alternate_keys(void)
{
	static const struct {
		const char *seq;
		int key;
	} alt[] = {
		{"\033[1~", KEY_HOME}, {"\033[7~", KEY_HOME}, {"\033[H", KEY_HOME},
		{"\033OH", KEY_HOME},  {"\033[4~", KEY_END},  {"\033[8~", KEY_END},
		{"\033[F", KEY_END},   {"\033OF", KEY_END},
	};
	for (size_t i = 0; i < sizeof alt / sizeof *alt; i++)
		if (key_defined(alt[i].seq) == 0) /* not bound, and no prefix clash */
			define_key(alt[i].seq, alt[i].key);
}

int ui_run(struct app *app, struct crate_err *err)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return crate_err_set(err, CRATE_ERR_INVALID,
				     "the interface needs a terminal (see crate --help for commands)");
	setlocale(LC_ALL, "");
	/* Every keystroke of a search at a million tracks allocates and frees
	 * results of a few MB (ids, bitsets, groups). By default glibc hands
	 * such blocks back to the kernel at once and takes fresh zeroed pages
	 * for the next key: a quarter of the frame went to page faults. Keep
	 * them in the heap for reuse instead (resident memory stays at the
	 * high-water mark of one search, which it reaches anyway); idle_prepare
	 * faults that much in before the first search needs it. */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	struct ui *ui = xcalloc(1, sizeof *ui);
	ui->app = app;
	ui->panes = panes;
	const char *cs = nl_langinfo(CODESET);
	ui->ascii = !(cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0));
	keymap_init_default(&ui->km);
	struct crate_err kerr = {0};
	bool bad_keys = app->cfg && keymap_apply_config(&ui->km, app->cfg, &kerr) != 0;
	load_layout(ui);
	strbuf_init(&ui->query, 64);
	strbuf_init(&ui->cmd, 64);
	ui->good_query = xstrdup("");
	const char *trace = getenv("CRATE_TRACE_FRAMES");
	if (trace && *trace)
		ui->trace = fopen(trace, "a");

	if (pipe(winch_pipe) != 0) {
		free(ui);
		return crate_err_set(err, CRATE_ERR_IO, "pipe: %s", strerror(errno));
	}
	for (int i = 0; i < 2; i++) {
		fcntl(winch_pipe[i], F_SETFL, O_NONBLOCK);
		fcntl(winch_pipe[i], F_SETFD, FD_CLOEXEC);
	}
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	/* ncurses installs its terminal-restoring SIGINT/SIGTERM handlers only
	 * where none is set: step aside for initscr, then chain to them. */
	tmpfiles_signals_uninstall();
	if (!initscr()) {
		tmpfiles_signals_install();
		free(ui);
		return crate_err_set(err, CRATE_ERR_INVALID, "cannot initialise the terminal");
	}
	tmpfiles_signals_install();
	/* Until the screen has been through endwin once, ncurses flushes its
	 * output at every cursor move (for programs using terminfo alone): a
	 * frame went out as ~50-100 small writes, a packet each over SSH.
	 * Once through endwin it writes a frame at once. */
	endwin();
	refresh();
	struct sigaction sa = {0};
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGWINCH, &sa, NULL);
	quit_signals_install();
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	define_alternate_keys();
	nodelay(stdscr, TRUE);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		  | BUTTON5_PRESSED
#endif
		  , NULL);
	mouseinterval(200);
	const char *nc = getenv("NO_COLOR");
	struct config_problems colour_problems;
	config_problems_init(&colour_problems, config_path(app->cfg));
	theme_init(app->cfg, !(nc && *nc), &colour_problems);
	struct crate_err cerr = {0};
	bool bad_colors = config_problems_finish(&colour_problems, &cerr) != 0;
	ui->w = COLS;
	ui->h = LINES;
	term_title_init(&ui->title, config_get_bool(app->cfg, "display.title", true), getenv("TERM"));

	struct app_remote_hooks hooks = {.search = remote_search, .changed = remote_changed,
					 .ud = ui, .command = remote_command};
	struct crate_err rerr = {0};
	if (app_remote_open(app, &hooks, &ui->remote, &rerr) != 0)
		ui_message(ui, true, "remote control off: %s", rerr.msg);
	const char *unreadable;
	size_t nbad = app_coll_unreadable(app, &unreadable);
	if (nbad)
		ui_message(ui, true, "%s%s", unreadable,
			   nbad > 1 ? " (and more: see crate coll list)" : "");
	else if (bad_keys || bad_colors) /* both kinds, each problem with its line */
		ui_message(ui, true, "%s%s%s", bad_keys ? kerr.msg : "",
			   bad_keys && bad_colors ? "; " : "", bad_colors ? cerr.msg : "");
	char wmsg[512];
	app_watch_start(app, wmsg, sizeof wmsg);
	if (wmsg[0])
		ui_message(ui, true, "%s", wmsg);
	ui_play_init(ui);
	ui->mpris = app_mpris_open(app);
	ui_colls_changed(ui);
	ui_refresh_browser(ui);
	resume_load(ui);
	ui->dirty = true;
	app_analysis_auto(app); /* resume what an earlier session left */

	int rc = loop(ui);
	resume_save(ui);
	endwin();
	term_title_end(&ui->title);
	app_mpris_close(ui->mpris);
	app_remote_close(ui->remote);
	signal(SIGWINCH, SIG_DFL);
	quit_signals_uninstall();
	close(winch_pipe[0]);
	close(winch_pipe[1]);
	winch_pipe[0] = winch_pipe[1] = -1;
	ui_free(ui);
	free(ui);
	if (rc != 0)
		return crate_err_set(err, CRATE_ERR_IO, "poll: %s", strerror(errno));
	return 0;
}
