/* The bottom row as an editor: the ':' command line and the prompts
 * (save as, quit?, remove?). Commands are the CLI's own (cli_dispatch),
 * run in-process on the open app with their output going to the message
 * line (one line) or the scrollback pane (more); the few that would block
 * or that the UI does better (scan in the background, search into the
 * browser, play control) are handled here.
 *
 * The line edits like a shell's: Tab completes (cli/complete.c) the word
 * before the cursor from the command table and the interface's own
 * commands (ui_commands below), inserting what all candidates share and
 * listing them to the right of the line; Tab again cycles through them
 * (S-Tab backwards), as zsh does. Up/Down (and C-p/C-n) walk the history,
 * C-r searches it backwards for the text typed; the search bar has its own
 * history on C-p/C-n/C-r (Up/Down move in its results there). Both are
 * kept beside the database (library.db.history, .search-history). */
#include <curses.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/app_config.h"
#include "app/app_stream.h"
#include "base/history.h"
#include "base/utf8.h"
#include "cli/cli.h"
#include "cli/complete.h"
#include "ui/actions.h"
#include "ui/cmdline.h"
#include "ui/draw.h"
#include "ui/pane.h"
#include "ui/pane_scrollback.h"
#include "ui/search_bar.h"
#include "ui/text.h"
#include "ui/ui_state.h"

/* How many lines each history keeps. */
#define HISTORY_MAX 500

enum { HIST_CMD, HIST_SEARCH };

struct ui_cmdline {
	struct history *hist[2];
	bool hist_failed;            /* writing a history failed: said once */
	/* the last Tab: its candidates, the line before it and after it */
	struct cli_completion comp;
	bool comp_valid;
	char *comp_base;             /* the line before the first Tab (owned) */
	size_t comp_base_cur;
	char *comp_after;            /* the line the last Tab left (owned) */
	size_t comp_after_cur;
	long comp_idx;               /* the candidate shown when cycling, -1 none */
	char *rpat[2];               /* C-r: the text searched for, NULL none */
	unsigned line_gen;           /* ui->line_gen of the line the above are for */
};

/* The interface's own commands, declared like the command table's so that
 * Tab completes them and their arguments the same way (run is NULL: the
 * interface runs them in cmdline_run). */
static const struct cli_command ui_commands[] = {
	{"quit", "q", "quit", "leave crate", NULL, 0, 0, 0, NULL, NULL},
	{"seek", NULL, "seek POSITION", "90, 1:30, +10, -0:05 or 50%", NULL, 1, 1, 0, NULL, NULL},
	{"vol", "volume", "vol [+-]N", "volume in percent", NULL, 1, 1, 0, NULL, NULL},
	{"set", NULL, "set [OPTION [VALUE]]", "show or change an option", NULL, 0, CLI_ANY, 0, NULL,
	 NULL}, /* a value may be several words */
	{"repeat", NULL, "repeat [off|all|one]", "repeat mode", NULL, 0, 1, 0, NULL, NULL},
	{"shuffle", NULL, "shuffle [off|tracks|albums]", "shuffle mode", NULL, 0, 1, 0, NULL, NULL},
	{"pause", "toggle", "pause", "pause or play", NULL, 0, 0, 0, NULL, NULL},
	{"stop", NULL, "stop", "stop", NULL, 0, 0, 0, NULL, NULL},
	{"next", NULL, "next", "next track", NULL, 0, 0, 0, NULL, NULL},
	{"prev", NULL, "prev", "previous track", NULL, 0, 0, 0, NULL, NULL},
	{"save", NULL, "save NAME", "save the search", NULL, 1, 1, 0, NULL, NULL},
	{"filter", NULL, "filter QUERY", "search in the browser", NULL, 0, CLI_ANY, 0, NULL, NULL},
	{"add", NULL, "add PATH|URL", "scan a folder, or add a stream", NULL, 1, CLI_ANY, 0, NULL,
	 NULL},
	{"errors", "scan-errors", "errors", "the last scan's problems", NULL, 0, 0, 0, NULL, NULL},
	{"smooth", NULL, "smooth [on|off] [DRIFT]", "smooth Party Shuffle", NULL, 0, 2, 0, NULL,
	 NULL},
	{0},
};
static const struct cli_group ui_group = {"interface", "the interface's commands", ui_commands};

/* The interface's own commands alone, for cli_lookup. */
static const struct cli_group *const own_groups[] = {&ui_group, NULL};

/* Whether the interface refuses group's commands ("is for the shell"):
 * Tab must not offer them. */
static bool shell_only(const struct cli_group *group)
{
	return group == &cli_remote_group || group == &cli_play_group;
}

static const struct cli_group *const *completion_groups(void)
{
	static const struct cli_group *g[32];
	if (!g[0]) {
		size_t n = 0;
		for (size_t i = 0; cli_groups[i] && n < 30; i++)
			if (!shell_only(cli_groups[i]))
				g[n++] = cli_groups[i];
		g[n] = &ui_group;
	}
	return g;
}

static void comp_reset(struct ui_cmdline *c)
{
	if (c->comp_valid)
		cli_completion_free(&c->comp);
	c->comp_valid = false;
	free(c->comp_base);
	free(c->comp_after);
	c->comp_base = c->comp_after = NULL;
	c->comp_idx = -1;
}

static struct ui_cmdline *state(struct ui *ui)
{
	if (!ui->cmdl) {
		struct ui_cmdline *c = xcalloc(1, sizeof *c);
		const char *db = ui->app ? ui->app->db_path : NULL;
		char *p = db ? xasprintf("%s.history", db) : NULL;
		char *q = db ? xasprintf("%s.search-history", db) : NULL;
		c->hist[HIST_CMD] = history_open(p, HISTORY_MAX);
		c->hist[HIST_SEARCH] = history_open(q, HISTORY_MAX);
		free(p);
		free(q);
		c->comp_idx = -1;
		c->line_gen = ui->line_gen;
		ui->cmdl = c;
	}
	struct ui_cmdline *c = ui->cmdl;
	if (c->line_gen != ui->line_gen) { /* a new line: drop the last one's Tab and walk */
		c->line_gen = ui->line_gen;
		comp_reset(c);
		history_walk_end(c->hist[HIST_CMD]);
		free(c->rpat[HIST_CMD]);
		c->rpat[HIST_CMD] = NULL;
	}
	return c;
}

void cmdline_free(struct ui *ui)
{
	struct ui_cmdline *c = ui->cmdl;
	if (!c)
		return;
	comp_reset(c);
	history_free(c->hist[HIST_CMD]);
	history_free(c->hist[HIST_SEARCH]);
	free(c->rpat[0]);
	free(c->rpat[1]);
	free(c);
	ui->cmdl = NULL;
}

static void set_line(struct strbuf *b, size_t *cur, const char *text)
{
	strbuf_reset(b);
	strbuf_adds(b, text);
	*cur = b->len;
}

static void hist_add(struct ui *ui, int which, const char *line)
{
	struct ui_cmdline *c = state(ui);
	struct crate_err err = {0};
	free(c->rpat[which]);
	c->rpat[which] = NULL;
	if (history_add(c->hist[which], line, &err) != 0 && !c->hist_failed) {
		c->hist_failed = true; /* once: the line still ran */
		ui_message(ui, true, "%s", err.msg);
	}
}

/* Up/Down, C-p/C-n, C-r on a line with its history; false for other keys
 * (which end a walk and a search). */
static bool hist_key(struct ui *ui, int which, struct strbuf *b, size_t *cur, int key)
{
	struct ui_cmdline *c = state(ui);
	struct history *h = c->hist[which];
	const char *line = b->buf ? b->buf : "";
	const char *got;
	bool up = (which == HIST_CMD && key == KEY_C_UP) || key == 16;
	bool down = (which == HIST_CMD && key == KEY_C_DOWN) || key == 14;
	if (key == 18) { /* C-r: older lines containing what was typed */
		if (!c->rpat[which])
			c->rpat[which] = xstrdup(line);
		got = history_search(h, c->rpat[which], line);
		if (got)
			set_line(b, cur, got);
		else
			ui_message(ui, true, "no older line with '%s'", c->rpat[which]);
		ui->dirty = true;
		return true;
	}
	if (!up && !down) {
		if (key != KEY_C_TAB && key != KEY_C_BTAB) {
			history_walk_end(h);
			free(c->rpat[which]);
			c->rpat[which] = NULL;
		}
		return false;
	}
	free(c->rpat[which]);
	c->rpat[which] = NULL;
	got = up ? history_prev(h, line) : history_next(h);
	if (got)
		set_line(b, cur, got);
	ui->dirty = true;
	return true;
}

bool cmdline_search_history_key(struct ui *ui, int key)
{
	if (!hist_key(ui, HIST_SEARCH, &ui->query, &ui->qcur, key))
		return false;
	ui->search_pending = true;
	return true;
}

void cmdline_search_entered(struct ui *ui)
{
	if (ui->query.buf && ui->query.len)
		hist_add(ui, HIST_SEARCH, ui->query.buf);
}

/* Tab (dir 1) and S-Tab (-1): complete, or cycle through the candidates
 * when the line is as the last Tab left it. */
static void complete_key(struct ui *ui, int dir)
{
	struct ui_cmdline *c = state(ui);
	bool prompt = ui->mode == UI_MODE_PROMPT;
	if (prompt && ui->prompt != UI_PROMPT_RULE_TARGET && ui->prompt != UI_PROMPT_RULE_PRESET)
		return;
	const char *text = ui->cmd.buf ? ui->cmd.buf : "";
	bool again = c->comp_valid && c->comp_after && strcmp(c->comp_after, text) == 0 &&
		     c->comp_after_cur == ui->ccur && c->comp.n > 1;
	if (!again) {
		comp_reset(c);
		struct cli_names_src src = {cli_complete_app_names, ui->app};
		if (!prompt) {
			cli_complete(completion_groups(), &src, text, ui->ccur, &c->comp);
		} else { /* the whole answer is one name, up to the cursor */
			char *typed = xstrndup(text, ui->ccur);
			cli_complete_names(&src, ui->prompt == UI_PROMPT_RULE_PRESET
						 ? CLI_NAMES_PRESET : CLI_NAMES_COLLECTION,
					   typed, &c->comp);
			free(typed);
		}
		c->comp_valid = true;
		c->comp_base = xstrdup(text);
		c->comp_base_cur = ui->ccur;
	}
	if (c->comp.n == 0) {
		ui_message(ui, true, "nothing to complete");
		return;
	}
	const char *word;
	bool complete;
	if (again) {
		long n = (long)c->comp.n;
		c->comp_idx = c->comp_idx < 0 ? (dir > 0 ? 0 : n - 1) : (c->comp_idx + dir + n) % n;
		word = c->comp.cand[c->comp_idx];
		complete = true;
	} else {
		word = c->comp.n == 1 ? c->comp.cand[0] : c->comp.common;
		complete = c->comp.n == 1;
	}
	size_t cur = c->comp_base_cur;
	char *out = cli_completion_apply(&c->comp, c->comp_base, &cur, word, complete);
	set_line(&ui->cmd, &ui->ccur, out);
	ui->ccur = cur;
	free(c->comp_after);
	c->comp_after = out;
	c->comp_after_cur = cur;
	if (c->comp.n == 1)
		comp_reset(c); /* nothing to cycle through */
	ui->dirty = true;
}

/* A quote right after "field:" or "field~" in a word quotes a query's
 * value (in:"Rock 90s", a:"Mira Sol"): the query parser reads it, so the
 * word keeps it, as the search bar would. */
static bool quotes_a_field_value(const struct strbuf *w)
{
	if (w->len < 2 || (w->buf[w->len - 1] != ':' && w->buf[w->len - 1] != '~'))
		return false;
	char c = w->buf[w->len - 2];
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* The end of the quoted text opened at p (its closing quote), NULL when
 * it is not closed. */
static const char *quote_end(const char *p)
{
	for (const char *q = p + 1; *q; q++) {
		if (*p == '"' && *q == '\\' && (q[1] == '"' || q[1] == '\\'))
			q++;
		else if (*q == *p)
			return q;
	}
	return NULL;
}

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
			if ((*p == '"' || *p == '\'') && quotes_a_field_value(&w)) {
				const char *end = quote_end(p);
				if (!end)
					goto unterminated;
				strbuf_add(&w, p, (size_t)(end - p) + 1);
				p = end + 1;
			} else if (*p == '\'') {
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
	struct cli_ctx ctx = {.app = ui->app, .on_line = true};
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

/* The interface's own options follow the configuration. */
static void set_applied(struct ui *ui, const char *key)
{
	struct config *cfg = ui->app->cfg;
	if (strncmp(key, "layout.", 7) == 0) {
		ui->lopts.sidebar_pct = (int)config_get_int(cfg, "layout.sidebar", 18);
		ui->lopts.artist_pct = (int)config_get_int(cfg, "layout.artist", 25);
		ui->lopts.album_pct = (int)config_get_int(cfg, "layout.album", 25);
	}
	if (strncmp(key, "format.", 7) == 0 || strncmp(key, "display.glyph_", 14) == 0)
		ui_rows_load(ui);
	if (strncmp(key, "browser.", 8) == 0) /* new levels: the columns are rebuilt */
		ui_refresh_browser(ui);
	ui->dirty = true;
}

/* ":set" lists the options, ":set OPTION" shows one, ":set OPTION VALUE"
 * (or OPTION=VALUE; a value of several words is the rest of the line)
 * changes it while crate runs. */
static void cmd_set(struct ui *ui, const char *line, int argc, char **argv)
{
	struct app *app = ui->app;
	if (argc == 1) {
		struct strbuf text;
		strbuf_init(&text, 2048);
		size_t n;
		const struct config_option *o = app_config_options(&n);
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&text, "%-28s %s%s\n", o[i].key, app_config_value(app, o[i].key),
				    o[i].flags & CONFIG_AT_START ? "   (read at start)" : "");
		strbuf_addf(&text, "%zu options; :set OPTION VALUE changes one\n", n);
		show_output(ui, line, &text, 0);
		strbuf_free(&text);
		return;
	}
	/* The value is the words after the key (browser.levels = genre album). */
	char *key = xstrdup(argv[1]);
	struct strbuf vb;
	strbuf_init(&vb, 64);
	char *eq = strchr(key, '=');
	if (eq) {
		*eq = '\0';
		strbuf_adds(&vb, eq + 1);
	}
	for (int i = 2; i < argc; i++)
		strbuf_addf(&vb, "%s%s", vb.len ? " " : "", argv[i]);
	const char *value = eq || argc > 2 ? vb.buf : NULL;
	if (eq && eq == key) {
		ui_message(ui, true, "usage: set [OPTION [VALUE]]");
	} else if (!app_config_option(key)) {
		ui_message(ui, true, "set: no option '%s' (:set lists them)", key);
	} else if (!value) {
		const struct config_option *o = app_config_option(key);
		ui_message(ui, false, "%s = %s%s", key, app_config_value(app, key),
			   o->flags & CONFIG_AT_START ? " (read at start)" : "");
	} else {
		char *was = xstrdup(app_config_value(app, key));
		struct crate_err err = {0};
		if (app_config_set(app, key, value, &err) != 0) {
			ui_message(ui, true, "%s", err.msg);
		} else {
			set_applied(ui, key);
			ui_message(ui, false, "%s = %s (was %s)", key, value, was);
		}
		free(was);
	}
	strbuf_free(&vb);
	free(key);
}

/* Whether w is a command's name, alias or first word ("coll") in groups. */
static bool names_a_command(const struct cli_group *const *groups, const char *w)
{
	size_t n = strlen(w);
	for (size_t g = 0; groups[g]; g++)
		for (const struct cli_command *c = groups[g]->commands; c->name; c++)
			if ((strncmp(c->name, w, n) == 0 && (c->name[n] == '\0' || c->name[n] == ' ')) ||
			    (c->alias && strcmp(c->alias, w) == 0))
				return true;
	return false;
}

/* One of the interface's own commands given more or fewer words than it
 * takes: it would run on without them (":q now" quit, ":next 5" went one
 * track on, ":smooth on 0.5 x" dropped the x), so it is refused. NULL
 * when argv is not one of them or its count is right. */
static const struct cli_command *own_misused(int argc, char **argv)
{
	int used, n = argc - 1;
	const struct cli_command *own = cli_lookup(own_groups, 1, argv, &used);
	if (!own || (n >= own->min_args && (own->max_args == CLI_ANY || n <= own->max_args)))
		return NULL;
	return own;
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
	const struct cli_command *own;
	int used;
	if ((own = own_misused(argc, argv))) {
		ui_message(ui, true, "usage: %s", own->usage);
	} else if (is(c, "q") || is(c, "quit")) {
		ui->running = false;
	} else if (is(c, "add") && argc == 2 && app_is_stream_url(argv[1])) {
		struct crate_err serr = {0}; /* a radio stream into the active playlist */
		if (app_playlist_add_stream(ui->app, NULL, SIZE_MAX, argv[1], &serr) != 0)
			ui_message(ui, true, "%s", serr.msg);
		else /* recorded, as every playlist edit is */
			ui_message(ui, false, "added the stream to the playlist (u undoes)");
		ui->dirty = true;
	} else if ((is(c, "scan") || is(c, "add")) && (argc < 2 || argv[1][0] != '-')) {
		if (argc < 2)
			act_scan_roots(ui);
		else
			act_scan(ui, argv + 1, argc - 1);
	} else if (is(c, "errors") || is(c, "scan-errors")) {
		ui->help_errors = true;
		ui->help_list.top = ui->help_list.cur = 0;
		ui_switch_view(ui, UI_VIEW_HELP);
	} else if (is(c, "smooth")) {
		act_smooth(ui, argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL);
	} else if (is(c, "analyze") || is(c, "analyse")) {
		act_analysis(ui, argc > 1 ? argv[1] : NULL, argc > 2);
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
	} else if (is(c, "set")) {
		cmd_set(ui, line, argc, argv);
	} else if (is(c, "remote") || is(c, "play")) { /* shell_only's groups */
		ui_message(ui, true, "'%s' is for the shell, not for a running crate", c);
	} else if ((own = cli_lookup(own_groups, 1, argv, &used))) {
		ui_message(ui, true, "usage: %s", own->usage); /* ours, wrong words: not "unknown" */
	} else if (is(c, "help") && argc >= 2 && (own = cli_lookup(own_groups, 1, argv + 1, &used))) {
		ui_message(ui, false, "usage: %s (%s)", own->usage, own->summary); /* ":help seek" */
	} else if (!names_a_command(cli_groups, c) ||
		   (is(c, "help") && !names_a_command(cli_groups, argv[1]))) {
		/* The CLI's "(see crate --help)" is no advice here. */
		ui_message(ui, true, "%s '%s' (Tab on an empty : line lists them)",
			   is(c, "help") ? "help: no command" : "unknown command",
			   is(c, "help") ? argv[1] : c);
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
	else if (ui->prompt == UI_PROMPT_OVERWRITE)
		act_save_now(ui, ui->prompt_arg);
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
	if (key != KEY_C_ENTER)
		ui->msg[0] = '\0'; /* a complaint about the line lasts until it changes */
	if (key == KEY_C_TAB || key == KEY_C_BTAB) {
		complete_key(ui, key == KEY_C_TAB ? 1 : -1);
		return true;
	}
	if (ui->mode == UI_MODE_COMMAND && hist_key(ui, HIST_CMD, &ui->cmd, &ui->ccur, key))
		return true;
	if (key == KEY_C_ENTER) {
		char *line = xstrdup(ui->cmd.buf ? ui->cmd.buf : "");
		enum ui_mode was = ui->mode;
		ui->mode = UI_MODE_NORMAL;
		if (was == UI_MODE_COMMAND)
			hist_add(ui, HIST_CMD, line);
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

/* Right of the line: Tab's candidates (the one cycled to in reverse), or
 * what C-r searches for. */
/* An error about the line (a refused answer) that does not fit beside
 * it: whole, in the rows above the line (a long line left it no room,
 * and Enter then seemed to do nothing). */
static void error_above(struct ui *ui, int y)
{
	if (ui->h >= 4)
		draw_text_up(ui, y - 1, ui->w, ui->h / 2 - 1, ui->msg, theme_attr(UR_ERROR));
}

static void draw_aside(struct ui *ui, int x, int y, int w, const char *text)
{
	struct ui_cmdline *c = ui->cmdl;
	if (ui->msg[0] && ui->msg_error) { /* the bottom row is taken: say it here */
		if ((int)ui_text_width(ui->msg) <= w)
			draw_text(ui, y, x, w, ui->msg, theme_attr(UR_ERROR));
		else
			error_above(ui, y);
		return;
	}
	if (!c) /* no key of a line has been read yet: nothing of its own */
		return;
	int hint = theme_attr(UR_HINT);
	if (c->line_gen != ui->line_gen)
		return; /* what it holds is an earlier line's */
	if (ui->mode == UI_MODE_COMMAND && c->rpat[HIST_CMD]) {
		char buf[300];
		snprintf(buf, sizeof buf, "[C-r: %s]", c->rpat[HIST_CMD]);
		draw_text(ui, y, x, w, buf, hint);
		return;
	}
	if (!c->comp_valid || c->comp.n < 2 || !c->comp_after || strcmp(c->comp_after, text) != 0)
		return;
	int used = 0;
	for (size_t i = 0; i < c->comp.n && used < w; i++) {
		const char *cand = c->comp.cand[i];
		int cw = (int)ui_text_width(cand);
		char more[32];
		int mw = snprintf(more, sizeof more, "+%zu", c->comp.n - i);
		if (used + cw + (i + 1 < c->comp.n ? mw + 2 : 0) > w) {
			draw_text(ui, y, x + used, w - used, more, hint);
			break;
		}
		draw_text(ui, y, x + used, cw, cand, (long)i == c->comp_idx ? (int)A_REVERSE : hint);
		used += cw + 2;
	}
}

/* Where a line too long for its avail columns starts on screen (bytes;
 * *got: the columns skipped): far enough on that the character under the
 * cursor at byte cur, column ccol (one column at the end), shows whole,
 * left of the "…" of a cut end. A wide character across the left edge is
 * skipped whole, else the cursor's own character could sit under the "…". */
static size_t line_skip(const char *text, size_t cur, size_t ccol, int avail, size_t *got)
{
	size_t len = strlen(text), cw = 1;
	uint32_t cp;
	*got = 0;
	if (cur < len && (utf8_decode(text + cur, len - cur, &cp), utf8_cp_width(cp) > 1))
		cw = (size_t)utf8_cp_width(cp);
	if (avail <= 1 || ccol + cw <= (size_t)avail - 1)
		return 0;
	size_t need = ccol + cw - (size_t)(avail - 1);
	size_t skip = utf8_prefix_fitting(text, len, need, got);
	if (*got < need && skip < len) {
		skip += utf8_decode(text + skip, len - skip, &cp);
		*got = utf8_width(text, skip);
	}
	return skip;
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
			label = ui->prompt_arg ? ui->prompt_arg : "";
		else if (ui->prompt == UI_PROMPT_OVERWRITE) {
			snprintf(q, sizeof q, "%s exists. Replace it? (y/n) ",
				 ui->prompt_arg ? ui->prompt_arg : "");
			label = q;
		} else if (UI_PROMPT_IS_TEXT(ui->prompt))
			label = ui->prompt_pane && ui->prompt_pane->prompt_label
					? ui->prompt_pane->prompt_label(ui) : "";
		else {
			snprintf(q, sizeof q, "Remove %s? (y/n) ", ui->prompt_arg ? ui->prompt_arg : "");
			label = q;
		}
	}
	/* A question wider than the row (20 columns) goes on in the rows above
	 * it, and the line to type has the bottom row: "Remove
	 * Collections/Rock90? (y/n)" is read whole before it is answered. */
	bool typing = ui->mode == UI_MODE_COMMAND || UI_PROMPT_IS_TEXT(ui->prompt);
	int room = typing ? (r->w / 2 < 16 ? r->w / 2 : 16) : 0;
	int lw = (int)ui_text_width(label);
	if (lw + room > r->w && ui->h >= 4) {
		draw_text_up(ui, typing ? r->y - 1 : r->y, r->w, ui->h / 2 - typing, label, A_BOLD);
		if (!typing)
			return;
		lw = 0;
	}
	if (lw > r->w - 1)
		lw = r->w - 1;
	draw_text(ui, r->y, r->x, lw, label, A_BOLD);
	const char *text = ui->cmd.buf ? ui->cmd.buf : "";
	size_t ccol = ui_text_width(text) - ui_text_width(text + ui->ccur);
	int avail = r->w - lw;
	size_t got;
	size_t skip = line_skip(text, ui->ccur, ccol, avail, &got);
	draw_text(ui, r->y, r->x + lw, avail, text + skip, 0);
	int tw = (int)(ui_text_width(text + skip));
	if (lw + tw + 4 < r->w)
		draw_aside(ui, r->x + lw + tw + 2, r->y, r->w - (lw + tw + 2), text);
	else if (ui->msg[0] && ui->msg_error)
		error_above(ui, r->y);
	if (ui->mode == UI_MODE_COMMAND || UI_PROMPT_IS_TEXT(ui->prompt)) {
		ui->cur_y = r->y;
		ui->cur_x = r->x + lw + (int)(ccol - got);
		if (ui->cur_x >= r->w)
			ui->cur_x = r->w - 1;
	}
}
