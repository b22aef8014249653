/* The bottom row as an editor: the ':' command line and the prompts
 * (save as, quit?, remove?). Commands are the CLI's own (cli_dispatch),
 * run in-process on the open app with their output going to the message
 * line (one line) or the scrollback pane (more); the few that would block
 * or that the UI does better (scan in the background, search into the
 * browser, play control) are handled here. */
#include <curses.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_stream.h"
#include "base/utf8.h"
#include "cli/cli.h"
#include "ui/actions.h"
#include "ui/cmdline.h"
#include "ui/draw.h"
#include "ui/pane.h"
#include "ui/pane_scrollback.h"
#include "ui/search_bar.h"
#include "ui/text.h"
#include "ui/ui_state.h"

char **cmdline_split(const char *line, int *argc, struct crate_err *err)
{
	size_t cap = 8, n = 0;
	char **argv = xcalloc(cap, sizeof *argv);
	const char *p = line;
	struct strbuf w;
	strbuf_init(&w, 64);
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		strbuf_reset(&w);
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '\'') {
				const char *end = strchr(p + 1, '\'');
				if (!end)
					goto unterminated;
				strbuf_add(&w, p + 1, (size_t)(end - p - 1));
				p = end + 1;
			} else if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
						p++;
					strbuf_addc(&w, *p++);
				}
				if (*p != '"')
					goto unterminated;
				p++;
			} else if (*p == '\\' && p[1]) {
				strbuf_addc(&w, p[1]);
				p += 2;
			} else {
				strbuf_addc(&w, *p++);
			}
		}
		if (n + 2 > cap) {
			cap *= 2;
			argv = xreallocarray(argv, cap, sizeof *argv);
		}
		argv[n++] = xstrdup(w.buf ? w.buf : "");
	}
	argv[n] = NULL;
	strbuf_free(&w);
	*argc = (int)n;
	return argv;
unterminated:
	strbuf_free(&w);
	argv[n] = NULL;
	cmdline_free_argv(argv);
	crate_err_set(err, CRATE_ERR_PARSE, "col %d: unterminated quote", (int)(p - line) + 1);
	return NULL;
}

void cmdline_free_argv(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

/* The command's output sink: results and messages together, in order. */
static void capture(void *ud, const char *text, size_t len)
{
	strbuf_add(ud, text, len);
}

/* One line of output goes to the message line; more to the scrollback
 * pane, whole, with the last line (errors and summaries come last) as the
 * message. */
static void show_output(struct ui *ui, const char *line, const struct strbuf *text, int rc)
{
	int nlines = 0;
	const char *last = "";
	size_t last_len = 0;
	for (size_t start = 0; start < text->len;) {
		const char *nl = memchr(text->buf + start, '\n', text->len - start);
		size_t end = nl ? (size_t)(nl - text->buf) : text->len;
		if (end > start) {
			last = text->buf + start;
			last_len = end - start;
			nlines++;
		}
		start = end + 1;
	}
	if (nlines > 1)
		scrollback_show(&ui->scrollback, line, text->buf, text->len);
	if (rc != 0)
		ui_message(ui, true, "%.*s", (int)last_len, last_len ? last : "command failed");
	else if (nlines > 1)
		ui_message(ui, false, "%d lines above (q closes)", nlines);
	else
		ui_message(ui, false, "%.*s", (int)(last_len ? last_len : 4), last_len ? last : "done");
}

/* Run a command of the command layer (cli/) in-process on the open app. */
static void run_cli(struct ui *ui, const char *line, int argc, char **argv)
{
	struct strbuf text;
	strbuf_init(&text, 256);
	struct cli_sink sink = {capture, capture, &text};
	struct cli_ctx ctx = {.app = ui->app};
	struct crate_err err = {0};
	if (cli_ctx_open_sink(&ctx, &sink, &err) != 0) {
		ui_message(ui, true, "%s", err.msg);
		strbuf_free(&text);
		return;
	}
	int rc = cli_dispatch(&ctx, argc, argv);
	cli_ctx_close_sink(&ctx);
	show_output(ui, line, &text, rc);
	strbuf_free(&text);
	/* The command may have changed collections or playlists: the lists,
	 * the browser's results and the find of the view shown follow. */
	ui_colls_changed(ui);
	ui_refresh_browser(ui);
	const struct ui_pane *p = ui_pane_current(ui);
	if (p != ui_pane_of(ui, UI_VIEW_BROWSER) && p->find)
		p->find(ui);
}

static bool is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

void cmdline_run(struct ui *ui, const char *line)
{
	struct crate_err err = {0};
	int argc;
	char **argv = cmdline_split(line, &argc, &err);
	if (!argv) {
		ui_message(ui, true, "%s", err.msg);
		return;
	}
	if (argc == 0)
		goto out;
	const char *c = argv[0];
	if (is(c, "q") || is(c, "quit")) {
		ui->running = false;
	} else if (is(c, "add") && argc == 2 && app_is_stream_url(argv[1])) {
		struct crate_err serr = {0}; /* a radio stream into the active playlist */
		if (app_playlist_add_stream(ui->app, NULL, SIZE_MAX, argv[1], &serr) != 0)
			ui_message(ui, true, "%s", serr.msg);
		else
			ui_message(ui, false, "added the stream to the playlist");
		ui->dirty = true;
	} else if ((is(c, "scan") || is(c, "add")) && (argc < 2 || argv[1][0] != '-')) {
		if (argc < 2)
			ui_message(ui, true, "usage: scan DIR...");
		else
			act_scan(ui, argv + 1, argc - 1);
	} else if (is(c, "errors") || is(c, "scan-errors")) {
		ui->help_errors = true;
		ui->help_list.top = ui->help_list.cur = 0;
		ui_switch_view(ui, UI_VIEW_HELP);
	} else if (is(c, "smooth")) {
		act_smooth(ui, argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL);
	} else if (is(c, "analyze") || is(c, "analyse")) {
		act_analysis(ui, argc > 1 ? argv[1] : NULL);
	} else if (is(c, "save") && argc == 2) {
		act_save(ui, argv[1]);
	} else if (is(c, "search") || is(c, "filter")) {
		struct strbuf q;
		strbuf_init(&q, 64);
		for (int i = 1; i < argc; i++) {
			if (i > 1)
				strbuf_addc(&q, ' ');
			strbuf_adds(&q, argv[i]);
		}
		ui_browser_search(ui, q.buf);
		strbuf_free(&q);
	} else if (is(c, "play") && argc == 1) {
		act_player(ui, UA_PLAY);
	} else if (is(c, "pause") || is(c, "toggle")) {
		act_player(ui, UA_PAUSE);
	} else if (is(c, "stop")) {
		act_player(ui, UA_STOP);
	} else if (is(c, "next")) {
		act_player(ui, UA_NEXT);
	} else if (is(c, "prev")) {
		act_player(ui, UA_PREV);
	} else if ((is(c, "shuffle") || is(c, "repeat")) && argc <= 2) {
		act_modes(ui, c, argc == 2 ? argv[1] : NULL);
	} else if (is(c, "help") && argc == 1) { /* ":help coll": the command's help */
		ui->help_errors = false;
		ui_switch_view(ui, UI_VIEW_HELP);
	} else if ((is(c, "vol") || is(c, "volume") || is(c, "seek")) && argc == 2) {
		char full[300];
		snprintf(full, sizeof full, "%s %s", c, argv[1]);
		act_command(ui, full);
	} else if (is(c, "remote") || is(c, "play")) {
		ui_message(ui, true, "'%s' is for the shell, not for a running crate", c);
	} else {
		run_cli(ui, line, argc, argv);
	}
out:
	cmdline_free_argv(argv);
}

static void prompt_answer(struct ui *ui, bool yes)
{
	ui->mode = UI_MODE_NORMAL;
	if (!yes) {
		ui_message(ui, false, "cancelled");
		return;
	}
	if (ui->prompt == UI_PROMPT_QUIT)
		ui->running = false;
	else if (ui->prompt_pane && ui->prompt_pane->confirm)
		ui->prompt_pane->confirm(ui);
}

bool cmdline_key(struct ui *ui, int key)
{
	if (ui->mode == UI_MODE_PROMPT && ui->prompt == UI_PROMPT_RATE) {
		ui->mode = UI_MODE_NORMAL;
		if (key >= '0' && key <= '5')
			act_rate(ui, key - '0');
		else
			ui_message(ui, false, "cancelled");
		return true;
	}
	if (ui->mode == UI_MODE_PROMPT && !UI_PROMPT_IS_TEXT(ui->prompt)) {
		prompt_answer(ui, key == 'y' || key == 'Y');
		return true;
	}
	if (key == KEY_C_ESC || (key == KEY_C_BACKSPACE && ui->cmd.len == 0)) {
		ui->mode = UI_MODE_NORMAL;
		return true;
	}
	if (key == KEY_C_ENTER) {
		char *line = xstrdup(ui->cmd.buf ? ui->cmd.buf : "");
		enum ui_mode was = ui->mode;
		ui->mode = UI_MODE_NORMAL;
		if (was == UI_MODE_PROMPT && ui->prompt == UI_PROMPT_SAVE)
			act_save(ui, line);
		else if (was == UI_MODE_PROMPT && ui->prompt_pane && ui->prompt_pane->prompt_done)
			ui->prompt_pane->prompt_done(ui, line);
		else
			cmdline_run(ui, line);
		free(line);
		return true;
	}
	return edit_key(&ui->cmd, &ui->ccur, key);
}

void cmdline_draw(struct ui *ui)
{
	const struct ui_rect *r = &ui->L.msg;
	if (!r->w)
		return;
	const char *label = ":";
	char q[700];
	if (ui->mode == UI_MODE_PROMPT) {
		if (ui->prompt == UI_PROMPT_SAVE)
			label = "Save search as: ";
		else if (ui->prompt == UI_PROMPT_QUIT)
			label = "A scan is running. Quit anyway? (y/n) ";
		else if (ui->prompt == UI_PROMPT_RATE)
			label = "Rate the selected track: 0-5 (0 clears) ";
		else if (UI_PROMPT_IS_TEXT(ui->prompt))
			label = ui->prompt_pane && ui->prompt_pane->prompt_label
					? ui->prompt_pane->prompt_label(ui) : "";
		else {
			snprintf(q, sizeof q, "Remove %s? (y/n) ", ui->prompt_arg ? ui->prompt_arg : "");
			label = q;
		}
	}
	int lw = (int)ui_text_width(label);
	if (lw > r->w - 1)
		lw = r->w - 1;
	draw_text(ui, r->y, r->x, lw, label, A_BOLD);
	const char *text = ui->cmd.buf ? ui->cmd.buf : "";
	/* Keep the cursor visible: show the tail when the line is long. */
	size_t ccol = ui_text_width(text) - ui_text_width(text + ui->ccur);
	int avail = r->w - lw;
	size_t skip = 0, got = 0;
	if (avail > 1 && (int)ccol >= avail - 1) {
		skip = utf8_prefix_fitting(text, strlen(text), ccol - (size_t)(avail - 2), &got);
	}
	draw_text(ui, r->y, r->x + lw, avail, text + skip, 0);
	if (ui->mode == UI_MODE_COMMAND || UI_PROMPT_IS_TEXT(ui->prompt)) {
		ui->cur_y = r->y;
		ui->cur_x = r->x + lw + (int)(ccol - got);
		if (ui->cur_x >= r->w)
			ui->cur_x = r->w - 1;
	}
}
