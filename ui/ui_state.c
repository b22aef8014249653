/* State every pane shares and the actions on it (ui_state.h): the message
 * line, views, the search, the browsed collection, prompts. Panes are
 * reached only through the table in ui->panes. */
#include "ui/ui_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "app/app_coll.h"
#include "app/app_play.h" /* APP_QUEUE_NAME */
#include "app/app_view.h"
#include "coll/store.h" /* COLL_NS_PLAYLISTS */
#include "ui/pane.h"

double ui_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void ui_message(struct ui *ui, bool error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ui->msg, sizeof ui->msg, fmt, ap);
	va_end(ap);
	ui->msg_error = error;
	clock_gettime(CLOCK_MONOTONIC, &ui->msg_until);
	ui->msg_until.tv_sec += error ? UI_MSG_ERROR_SECONDS : UI_MSG_SECONDS;
	ui->msg_at = ui_now_ms();
	ui->dirty = true;
}

void ui_message_next_action(struct ui *ui)
{
	if (ui->msg[0] && (!ui->msg_error || ui_now_ms() - ui->msg_at >= UI_MSG_ERROR_HOLD_MS))
		ui->msg[0] = '\0';
}

/* ---- views ---- */

const struct ui_pane *ui_pane_of(const struct ui *ui, enum ui_view v)
{
	return ui->panes[v];
}

const struct ui_pane *ui_pane_current(const struct ui *ui)
{
	return ui->panes[ui->view];
}

/* The help is shown over a view and goes back to it: it has no search
 * text and no tab of its own. */
enum ui_view ui_base_view(const struct ui *ui)
{
	return ui->view == UI_VIEW_HELP ? ui->view_before_help : ui->view;
}

void ui_leave_help(struct ui *ui)
{
	ui->view = ui_base_view(ui);
}

void ui_switch_view(struct ui *ui, enum ui_view v)
{
	ui_leave_help(ui);
	if (ui->view == v)
		return;
	if (v == UI_VIEW_HELP) {
		ui->view_before_help = ui->view;
		ui->view = v;
		ui->dirty = true;
		return;
	}
	free(ui->view_query[ui->view]);
	ui->view_query[ui->view] = xstrdup(ui->query.buf ? ui->query.buf : "");
	ui->view = v;
	strbuf_reset(&ui->query);
	strbuf_adds(&ui->query, ui->view_query[v] ? ui->view_query[v] : "");
	ui->qcur = ui->query.len;
	if (ui->mode == UI_MODE_SEARCH)
		ui->mode = UI_MODE_NORMAL;
	ui_search_apply(ui);
	const struct ui_pane *p = ui_pane_current(ui);
	if (p->enter)
		p->enter(ui);
	ui->dirty = true;
}

/* ---- the search ---- */

static bool blank(const char *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n')
			return false;
	return true;
}

/* Parse q into ui->qnode; false when it does not parse (ui->qerr) or
 * when it is the collection shown already (the results stand). */
static bool parse_search(struct ui *ui, const char *q, bool list)
{
	if (blank(q)) {
		/* The empty query shows the whole view. */
		coll_node_unref(ui->qnode);
		ui->qnode = NULL;
		free(ui->good_query);
		ui->good_query = xstrdup("");
		return true;
	}
	struct crate_err err = {0};
	struct coll_node *n = app_parse_query(ui->app, q, list, &err);
	if (!n) {
		ui->qerr = err;
		if (!ui->qerr.code)
			ui->qerr.code = CRATE_ERR_PARSE;
		return false;
	}
	/* Same collection as shown (a space typed, a keyword completed back
	 * to what it was): a filter's results stand; a list's find marks
	 * are made again. */
	bool same = !list && ui->qnode && ui->qlist == list && coll_node_equal(ui->qnode, n);
	coll_node_unref(ui->qnode);
	ui->qnode = n;
	ui->qlist = list;
	free(ui->good_query);
	ui->good_query = xstrdup(q);
	return !same;
}

void ui_search_apply(struct ui *ui)
{
	double t0 = ui_now_ms();
	ui->search_pending = false;
	const char *q = ui->query.buf ? ui->query.buf : "";
	const struct ui_pane *p = ui_pane_current(ui);
	crate_err_clear(&ui->qerr);
	ui->dirty = true;
	if (!p->find) {
		/* Found by name as the pane draws: no query language. */
		free(ui->good_query);
		ui->good_query = xstrdup(q);
		return;
	}
	bool changed = parse_search(ui, q, p->find_list);
	ui->eval_ms += ui_now_ms() - t0;
	if (changed)
		p->find(ui);
}

void ui_browser_search(struct ui *ui, const char *text)
{
	ui_leave_help(ui);
	if (ui->view != UI_VIEW_BROWSER) {
		free(ui->view_query[UI_VIEW_BROWSER]);
		ui->view_query[UI_VIEW_BROWSER] = xstrdup(text);
		ui_switch_view(ui, UI_VIEW_BROWSER);
		return;
	}
	strbuf_reset(&ui->query);
	strbuf_adds(&ui->query, text);
	ui->qcur = ui->query.len;
	ui_search_apply(ui);
}

/* ---- what the browser shows ---- */

void ui_follow_forget(struct ui_follow *f)
{
	coll_node_unref(f->def);
	f->def = NULL;
	for (size_t i = 0; i < f->nseen; i++)
		free(f->seen[i]);
	free(f->seen);
	f->seen = NULL;
	f->nseen = 0;
}

/* Remember ns/name's definition and its namespace's names. */
static void follow_note(struct ui *ui, struct ui_follow *f, const char *ns, const char *name)
{
	ui_follow_forget(f);
	const struct coll_node *n = ns && name ? app_coll_get(ui->app, ns, name) : NULL;
	if (!n)
		return;
	f->def = coll_node_copy(n);
	f->nseen = app_coll_list(ui->app, ns, &f->seen);
}

static bool seen_before(char *const *seen, size_t nseen, const char *name)
{
	for (size_t i = 0; i < nseen; i++)
		if (strcmp(seen[i], name) == 0)
			return true;
	return false;
}

/* The store keeps no identity across a rename (another process deletes
 * and inserts the row), so a rename is a new name in the namespace with
 * the very definition the old one had; anything else is a removal. */
char *ui_coll_renamed(struct ui *ui, const char *ns, const struct coll_node *was,
		      char *const *seen, size_t nseen)
{
	char *now = NULL;
	char **names = NULL;
	size_t n = was ? app_coll_list(ui->app, ns, &names) : 0;
	bool several = false;
	for (size_t i = 0; i < n; i++) {
		const struct coll_node *c = app_coll_get(ui->app, ns, names[i]);
		if (c && !seen_before(seen, nseen, names[i]) && coll_node_equal(c, was)) {
			several = now != NULL;
			if (!now)
				now = xstrdup(names[i]);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (several) {
		free(now);
		now = NULL;
	}
	return now;
}

void ui_browse_follow(struct ui *ui)
{
	if (!ui->base_ns || app_coll_get(ui->app, ui->base_ns, ui->base_name)) {
		follow_note(ui, &ui->base_was, ui->base_ns, ui->base_name);
		return;
	}
	const struct ui_follow *was = &ui->base_was;
	char *now = ui_coll_renamed(ui, ui->base_ns, was->def, was->seen, was->nseen);
	if (now) {
		free(ui->base_name);
		ui->base_name = now;
	} else {
		ui_message(ui, false, "%s/%s is gone: browsing All Media", ui->base_ns,
			   ui->base_name);
		free(ui->base_ns);
		free(ui->base_name);
		ui->base_ns = ui->base_name = NULL;
	}
	follow_note(ui, &ui->base_was, ui->base_ns, ui->base_name);
}

void ui_playlist_follow(struct ui *ui)
{
	if (!ui->pl_name || app_coll_get(ui->app, COLL_NS_PLAYLISTS, ui->pl_name)) {
		follow_note(ui, &ui->pl_was, COLL_NS_PLAYLISTS, ui->pl_name);
		return;
	}
	const struct ui_follow *was = &ui->pl_was;
	char *now = ui_coll_renamed(ui, COLL_NS_PLAYLISTS, was->def, was->seen, was->nseen);
	/* The queue goes when it has played out: nothing to say then. */
	if (!now && strcmp(ui->pl_name, APP_QUEUE_NAME) != 0)
		ui_message(ui, false, "%s/%s is gone: showing the active playlist",
			   COLL_NS_PLAYLISTS, ui->pl_name);
	free(ui->pl_name);
	ui->pl_name = now;
	follow_note(ui, &ui->pl_was, COLL_NS_PLAYLISTS, ui->pl_name);
}

void ui_browse(struct ui *ui, const char *ns, const char *name, const char *query)
{
	free(ui->base_ns);
	free(ui->base_name);
	ui->base_ns = ns ? xstrdup(ns) : NULL;
	ui->base_name = ns ? xstrdup(name) : NULL;
	follow_note(ui, &ui->base_was, ui->base_ns, ui->base_name);
	for (unsigned k = 0; k < MLIB_GROUP_LEVELS; k++)
		ui->cols[k].list.cur = 0;
	if (query)
		ui_browser_search(ui, query);
	else if (ui->view == UI_VIEW_BROWSER) /* its search applies to the new collection */
		ui_refresh_browser(ui);
	else
		ui_switch_view(ui, UI_VIEW_BROWSER);
}

void ui_open_playlist(struct ui *ui, const char *name)
{
	free(ui->pl_name);
	ui->pl_name = name ? xstrdup(name) : NULL;
	follow_note(ui, &ui->pl_was, COLL_NS_PLAYLISTS, ui->pl_name);
	ui->pl_list.cur = ui->pl_list.top = 0;
	ui_switch_view(ui, UI_VIEW_PLAYLIST);
	ui->dirty = true;
}

const char *ui_playlist_shown(struct ui *ui)
{
	if (ui->pl_name && app_playlist_get(ui->app, ui->pl_name))
		return ui->pl_name;
	return app_playlist_active(ui->app);
}

void ui_browse_heading(struct ui *ui, int w, char *buf, size_t size)
{
	(void)w;
	if (ui->base_ns)
		snprintf(buf, size, "%s/%s ", ui->base_ns, ui->base_name);
	else
		snprintf(buf, size, "All Media ");
}

struct app_view ui_browse_view(struct ui *ui)
{
	bool searching = ui->qnode && !ui->qlist;
	return (struct app_view){.base_ns = ui->base_ns,
				 .base_name = ui->base_name,
				 .query = searching ? ui->qnode : NULL,
				 .text = ui->good_query,
				 .search = searching,
				 .cache = &ui->ecache};
}

struct coll_node *ui_browse_view_node(struct ui *ui, struct strbuf *notes)
{
	struct app_view v = ui_browse_view(ui);
	return app_view_node_shown(ui->app, &v, notes);
}

/* The browser's results follow the browsed collection in every view. */
void ui_refresh_browser(struct ui *ui)
{
	ui_pane_of(ui, UI_VIEW_BROWSER)->find(ui);
}

void ui_colls_changed(struct ui *ui)
{
	ui->colls_stale = true;
	ui->dirty = true;
}

/* ---- the bottom row ---- */

void cmdline_begin(struct ui *ui, const char *initial)
{
	if (!ui->cmd.buf)
		strbuf_init(&ui->cmd, 64);
	strbuf_reset(&ui->cmd);
	if (initial)
		strbuf_adds(&ui->cmd, initial);
	ui->ccur = ui->cmd.len;
	ui->mode = UI_MODE_COMMAND;
	ui->dirty = true;
	ui->msg[0] = '\0'; /* an old message would read as this line's */
	ui->line_gen++;
}

void prompt_begin(struct ui *ui, enum ui_prompt_kind kind, const char *arg, const char *initial)
{
	cmdline_begin(ui, initial);
	ui->mode = UI_MODE_PROMPT;
	ui->prompt = kind;
	ui->prompt_pane = ui_pane_current(ui);
	free(ui->prompt_arg);
	ui->prompt_arg = arg ? xstrdup(arg) : NULL;
}
