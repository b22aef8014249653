/* View 4: the collection rules (app/rules.h), in order, first match wins.
 * Each row shows the rule's collection or query, its equalizer preset,
 * volume offset, ReplayGain mode, Party Shuffle flag and whether it can
 * match (with the reason when not); '>' marks the rule that applies to the
 * playing track. a adds (collection or query, then preset), e edits (preset,
 * then volume), d removes, K/J move. Parsing and checks are the CLI's own
 * (rule_from_target, rule_eq_set, rule_volume_parse, rules_state), so
 * `crate rule` and this pane accept and report the same things. */
#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/rules.h"
#include "base/utf8.h"
#include "coll/parse.h"
#include "coll/store.h"
#include "play/presets.h"
#include "ui/draw.h"
#include "ui/find.h"
#include "ui/pane.h"
#include "ui/pane_rules.h"
#include "ui/text.h"
#include "ui/ui_state.h"

/* Rows of the main area: an optional header, the list, an optional detail
 * line (the selected rule in full, or what a prompt expects). */
struct rules_geom {
	int header_y, list_y, list_h, detail_y; /* -1: not shown */
};

static struct rules_geom geom(const struct ui *ui)
{
	const struct ui_rect *r = &ui->L.main;
	struct rules_geom g = {-1, r->y, r->h, -1};
	if (r->h >= 4) {
		g.header_y = r->y;
		g.list_y++;
		g.list_h--;
	}
	if (r->h >= 5) {
		g.detail_y = r->y + r->h - 1;
		g.list_h--;
	}
	return g;
}

/* The app's rules; NULL with a message when the table cannot be read. */
static struct rules *pane_rules(struct ui *ui, bool report)
{
	struct crate_err err = {0};
	struct rules *rs = app_rules(ui->app, &err);
	if (!rs && report)
		ui_message(ui, true, "rules: %s", err.msg);
	return rs;
}

static void rule_free(struct rule **r)
{
	if (*r) {
		rule_clear(*r);
		free(*r);
		*r = NULL;
	}
}

static void draft_free(struct ui *ui)
{
	rule_free(&ui->rule_draft);
}

static void rules_pane_free(struct ui *ui)
{
	draft_free(ui);
	rule_free(&ui->rule_was);
	rule_free(&ui->rule_seen);
}

static bool row_matches_find(struct ui *ui, struct rules *rs, size_t i)
{
	const char *q = ui->good_query;
	const char *t = rules_target(rs, i);
	if (!q || !*q || !t)
		return false;
	char *fq = utf8_fold(q, strlen(q), NULL), *ft = utf8_fold(t, strlen(t), NULL);
	bool m = strstr(ft, fq) != NULL;
	free(fq);
	free(ft);
	return m;
}

/* ---- drawing ---- */

/* Column widths for a pane w cells wide: fewer columns when narrow; the
 * collection/query takes what is left. */
struct rules_cols {
	int num, target, preset, vol, rg, ps, state;
};

static struct rules_cols columns(int w)
{
	struct rules_cols c = {4, 0, 0, 0, 0, 0, 0};
	if (w >= 36) {
		c.preset = 12;
		c.vol = 8;
	}
	if (w >= 80) {
		c.rg = 9;
		c.ps = 4;
	}
	if (w >= 56)
		c.state = w >= 100 ? w / 4 : 10;
	c.target = w - c.num - c.preset - c.vol - c.rg - c.ps - c.state;
	return c;
}

/* Draw one cell of a row; x advances past it. */
static void cell(struct ui *ui, int y, int *x, int w, const char *s, int attr)
{
	if (w <= 0)
		return;
	/* One blank cell between columns (the row's fill shows through). */
	draw_text(ui, y, *x, w > 2 ? w - 1 : w, s, attr);
	*x += w;
}

static void draw_header(struct ui *ui, int y, const struct rules_cols *c)
{
	const struct ui_rect *r = &ui->L.main;
	int attr = theme_attr(UR_HEADER), x = r->x;
	cell(ui, y, &x, c->num, "  #", attr);
	cell(ui, y, &x, c->target, "Collection or query", attr);
	cell(ui, y, &x, c->preset, "Preset", attr);
	cell(ui, y, &x, c->vol, "Volume", attr);
	cell(ui, y, &x, c->rg, "RG", attr);
	cell(ui, y, &x, c->ps, "PS", attr);
	cell(ui, y, &x, c->state, "State", attr);
}

static void draw_row(struct ui *ui, struct rules *rs, size_t i, int y, const struct rules_cols *c,
		     int playing)
{
	const struct ui_rect *r = &ui->L.main;
	const struct rule *rule = rules_get(rs, i);
	char why[256], num[32], vol[32], state[300];
	enum rule_state st = app_rule_state(ui->app, rs, i, why, sizeof why);
	bool now = playing >= 0 && (size_t)playing == i;
	snprintf(num, sizeof num, "%c%2zu", now ? '>' : ' ', i + 1);
	snprintf(vol, sizeof vol, "%+gdB", rule->volume_db);
	if (st == RULE_INACTIVE)
		snprintf(state, sizeof state, "inactive: %s", why);
	else if (now)
		snprintf(state, sizeof state, "applies now");
	else if (st == RULE_NO_EQ)
		snprintf(state, sizeof state, "no EQ: %s", why);
	else
		snprintf(state, sizeof state, "active");
	int attr = st == RULE_INACTIVE ? theme_attr(UR_HINT) : 0;
	if (now)
		attr |= A_BOLD;
	if (row_matches_find(ui, rs, i))
		attr |= theme_attr(UR_MATCH);
	if (i == ui->rule_list.cur)
		attr = theme_attr(UR_SELECTED);
	draw_fill(y, r->x, r->w, attr);
	int x = r->x;
	cell(ui, y, &x, c->num, num, attr);
	cell(ui, y, &x, c->target, rules_target(rs, i), attr);
	cell(ui, y, &x, c->preset, rule->eq ? rule->eq : "none", attr);
	cell(ui, y, &x, c->vol, vol, attr);
	cell(ui, y, &x, c->rg, rule_rg_name(rule->replaygain), attr);
	cell(ui, y, &x, c->ps, rule->pshuffle ? "yes" : "no", attr);
	cell(ui, y, &x, c->state, state, attr);
}

/* The detail line: what the open prompt expects, else the selected rule
 * in full (the same facts as `crate rule list`). */
static void draw_detail(struct ui *ui, struct rules *rs, int y, int playing)
{
	const struct ui_rect *r = &ui->L.main;
	struct strbuf b;
	strbuf_init(&b, 128);
	int attr = theme_attr(UR_HINT);
	bool prompting = ui->mode == UI_MODE_PROMPT;
	if (prompting && ui->prompt == UI_PROMPT_RULE_TARGET) {
		strbuf_adds(&b, "a saved collection (Jazz, Playlists/Road Trip) or a query (g:Jazz y<1960)");
	} else if (prompting && ui->prompt == UI_PROMPT_RULE_PRESET) {
		char **names;
		size_t n = eq_preset_list(ui->app->cfg, &names);
		strbuf_adds(&b, "presets: none");
		for (size_t k = 0; k < n; k++) {
			strbuf_addf(&b, " %s", names[k]);
			free(names[k]);
		}
		free(names);
	} else if (prompting && ui->prompt == UI_PROMPT_RULE_VOLUME) {
		strbuf_adds(&b, "volume offset in dB, -24..24 (+3, -2.5dB)");
	} else if (ui->rule_list.cur < rules_count(rs)) {
		size_t i = ui->rule_list.cur;
		const struct rule *rule = rules_get(rs, i);
		char why[256];
		enum rule_state st = app_rule_state(ui->app, rs, i, why, sizeof why);
		/* What is wrong (or playing) first: the end of the line may be cut. */
		strbuf_addf(&b, "%zu. ", i + 1);
		if (st == RULE_INACTIVE)
			strbuf_addf(&b, "[inactive: %s] ", why);
		else if (st == RULE_NO_EQ)
			strbuf_addf(&b, "[no equalizer: %s] ", why);
		if (playing >= 0 && (size_t)playing == i)
			strbuf_adds(&b, "[applies to the playing track] ");
		strbuf_addf(&b, "%s %s -> eq=%s volume=%+gdB replaygain=%s pshuffle=%s",
			    rule->name ? "collection" : "query", rules_target(rs, i),
			    rule->eq ? rule->eq : "none", rule->volume_db,
			    rule_rg_name(rule->replaygain), rule->pshuffle ? "yes" : "no");
	}
	draw_text(ui, y, r->x, r->w, b.buf ? b.buf : "", attr);
	strbuf_free(&b);
}

static struct rule *rule_dup(const struct rule *r);

/* Another program moved, added or removed rules: the cursor stays on the
 * rule it was on, found by its content (rules have no other identity); a
 * rule that went, or was changed, leaves the cursor at its place, and so
 * does a cursor moved since (a key, an edit here). */
static void cursor_follow(struct ui *ui, struct rules *rs)
{
	size_t cur = ui->rule_list.cur, n = rules_count(rs);
	const struct rule *seen = ui->rule_seen;
	if (seen && cur == ui->rule_seen_cur && !(cur < n && rule_same(rules_get(rs, cur), seen)))
		for (size_t i = 0; i < n; i++)
			if (rule_same(rules_get(rs, i), seen)) {
				ui->rule_list.cur = i;
				break;
			}
}

/* Remember the cursor's rule as drawn, for cursor_follow. */
static void cursor_note(struct ui *ui, struct rules *rs)
{
	const struct rule *r = rules_get(rs, ui->rule_list.cur);
	if (!r || !ui->rule_seen || !rule_same(r, ui->rule_seen)) {
		rule_free(&ui->rule_seen);
		ui->rule_seen = r ? rule_dup(r) : NULL;
	}
	ui->rule_seen_cur = ui->rule_list.cur;
}

static void rules_pane_draw(struct ui *ui, const struct ui_rect *r)
{
	struct crate_err err = {0};
	struct rules *rs = app_rules(ui->app, &err);
	if (!rs) {
		char line[400];
		snprintf(line, sizeof line, "rules: %s", err.msg);
		draw_text(ui, r->y, r->x, r->w, line, theme_attr(UR_ERROR));
		return;
	}
	struct rules_geom g = geom(ui);
	struct rules_cols c = columns(r->w);
	size_t n = rules_count(rs);
	int playing = app_rules_active_index(ui->app);
	cursor_follow(ui, rs);
	ui_list_fix(&ui->rule_list, n, g.list_h);
	cursor_note(ui, rs);
	if (g.header_y >= 0)
		draw_header(ui, g.header_y, &c);
	if (n == 0 && g.list_h > 0)
		draw_text(ui, g.list_y, r->x, r->w,
			  " No rules. a adds one: a collection or query, then an equalizer preset.",
			  theme_attr(UR_HINT));
	for (int row = 0; row < g.list_h; row++) {
		size_t i = ui->rule_list.top + (size_t)row;
		if (i >= n)
			break;
		draw_row(ui, rs, i, g.list_y + row, &c, playing);
	}
	if (g.detail_y >= 0)
		draw_detail(ui, rs, g.detail_y, playing);
}

/* ---- editing ---- */

static struct rule *rule_dup(const struct rule *r)
{
	struct rule *d = xcalloc(1, sizeof *d);
	d->ns = r->ns ? xstrdup(r->ns) : NULL;
	d->name = r->name ? xstrdup(r->name) : NULL;
	d->query = r->query ? xstrdup(r->query) : NULL;
	d->eq = r->eq ? xstrdup(r->eq) : NULL;
	d->volume_db = r->volume_db;
	d->replaygain = r->replaygain;
	d->pshuffle = r->pshuffle;
	return d;
}

/* The rule e or d was pressed on, as it was: the answer to the prompt
 * finds it again (find_again). */
static void note_was(struct ui *ui, const struct rule *r)
{
	rule_free(&ui->rule_was);
	ui->rule_was = rule_dup(r);
}

/* Where the rule noted by note_was is now, last seen at position at:
 * another program may have moved, removed or changed rules while the
 * prompt was open, and every edit here saves the whole list, so acting
 * on position at would overwrite or remove another rule. The list is
 * read again first (this pane may not have seen the change yet).
 * SIZE_MAX, said, when the rule is no longer there as it was. */
static size_t find_again(struct ui *ui, struct rules *rs, size_t at)
{
	struct crate_err err = {0};
	bool changed;
	if (rules_reload(rs, &changed, &err) != 0) {
		ui_message(ui, true, "rules: %s", err.msg);
		return SIZE_MAX;
	}
	const struct rule *was = ui->rule_was;
	size_t n = rules_count(rs);
	if (was && at < n && rule_same(rules_get(rs, at), was))
		return at;
	for (size_t i = 0; was && i < n; i++)
		if (rule_same(rules_get(rs, i), was))
			return i;
	ui_message(ui, true, "rule %zu was changed by another program meanwhile: nothing done",
		   at + 1);
	return SIZE_MAX;
}

static void begin_add(struct ui *ui)
{
	if (!app_has_store(ui->app)) {
		ui_message(ui, true, "the collection store is not open");
		return;
	}
	draft_free(ui);
	ui->rule_draft = xcalloc(1, sizeof *ui->rule_draft);
	ui->rule_edit = SIZE_MAX;
	prompt_begin(ui, UI_PROMPT_RULE_TARGET, NULL, NULL);
}

static void begin_edit(struct ui *ui, struct rules *rs)
{
	const struct rule *r = rules_get(rs, ui->rule_list.cur);
	if (!r) {
		ui_message(ui, true, "no rule selected (a adds one)");
		return;
	}
	draft_free(ui);
	ui->rule_draft = rule_dup(r);
	note_was(ui, r);
	ui->rule_edit = ui->rule_list.cur;
	prompt_begin(ui, UI_PROMPT_RULE_PRESET, NULL, r->eq ? r->eq : "none");
}

static void finish_add(struct ui *ui, struct rules *rs)
{
	struct crate_err err = {0};
	size_t at = rules_count(rs);
	if (rules_add(rs, at, ui->rule_draft, &err) != 0) {
		ui_message(ui, true, "%s", err.msg);
	} else {
		ui->rule_list.cur = at;
		ui_message(ui, false, "rule %zu: %s", at + 1, rules_target(rs, at));
	}
	draft_free(ui);
}

static void finish_edit(struct ui *ui, struct rules *rs)
{
	struct crate_err err = {0};
	size_t i = find_again(ui, rs, ui->rule_edit);
	if (i == SIZE_MAX) {
		draft_free(ui);
		return;
	}
	ui->rule_list.cur = i;
	if (rules_set(rs, i, ui->rule_draft, &err) != 0)
		ui_message(ui, true, "%s", err.msg);
	else
		ui_message(ui, false, "rule %zu: eq=%s volume=%+gdB", i + 1,
			   ui->rule_draft->eq ? ui->rule_draft->eq : "none", ui->rule_draft->volume_db);
	draft_free(ui);
}

/* The target prompt's answer: a collection, a query with a field, or
 * "--query WORDS" (as `crate rule add --query`). */
static int rule_target(struct ui *ui, const char *text, struct crate_err *err)
{
	bool query = strncmp(text, "--query ", 8) == 0;
	if (query)
		text += 8 + strspn(text + 8, " ");
	return app_rule_from_target(ui->app, text, query, ui->rule_draft, err);
}

/* A wrong answer asks the same question again with the answer kept for
 * correcting, and the draft (a preset given before a wrong volume) kept:
 * it used to end the whole add or edit (Esc still does). */
static void ask_again(struct ui *ui, const char *text, const char *why)
{
	prompt_begin(ui, ui->prompt, NULL, text);
	ui_message(ui, true, "%s", why);
}

static void rules_pane_prompt_done(struct ui *ui, const char *text)
{
	struct rules *rs = pane_rules(ui, true);
	struct crate_err err = {0};
	if (!rs || !ui->rule_draft) {
		draft_free(ui);
		return;
	}
	switch (ui->prompt) {
	case UI_PROMPT_RULE_TARGET:
		while (*text == ' ')
			text++;
		if (!*text) {
			ui_message(ui, false, "cancelled");
			draft_free(ui);
		} else if (!app_has_store(ui->app)) {
			ui_message(ui, true, "the collection store is not open");
			draft_free(ui);
		} else if (rule_target(ui, text, &err) != 0) {
			ask_again(ui, text, err.msg);
		} else {
			prompt_begin(ui, UI_PROMPT_RULE_PRESET, NULL, NULL);
		}
		break;
	case UI_PROMPT_RULE_PRESET:
		while (*text == ' ')
			text++;
		if (rule_eq_set(ui->rule_draft, ui->app->cfg, text, &err) != 0) {
			ask_again(ui, text, err.msg);
		} else if (ui->rule_edit == SIZE_MAX) {
			finish_add(ui, rs);
		} else {
			char vol[32];
			snprintf(vol, sizeof vol, "%+g", ui->rule_draft->volume_db);
			prompt_begin(ui, UI_PROMPT_RULE_VOLUME, NULL, vol);
		}
		break;
	case UI_PROMPT_RULE_VOLUME: {
		double v;
		if (!rule_volume_parse(text, &v)) {
			char why[200];
			snprintf(why, sizeof why, "volume: '%.100s' is not an offset in dB within -24..24",
				 text);
			ask_again(ui, text, why);
		} else {
			ui->rule_draft->volume_db = v;
			finish_edit(ui, rs);
		}
		break;
	}
	default:
		draft_free(ui);
		break;
	}
	ui->dirty = true;
}

static const char *rules_pane_prompt_label(struct ui *ui)
{
	switch (ui->prompt) {
	case UI_PROMPT_RULE_TARGET:
		return "New rule for collection or query: ";
	case UI_PROMPT_RULE_PRESET:
		return "Equalizer preset: "; /* Tab completes; the pane lists them */
	case UI_PROMPT_RULE_VOLUME:
		return "Volume offset (dB): ";
	default:
		return "";
	}
}

static void ask_remove(struct ui *ui, struct rules *rs)
{
	size_t i = ui->rule_list.cur;
	if (i >= rules_count(rs)) {
		ui_message(ui, true, "no rule selected");
		return;
	}
	char what[600];
	snprintf(what, sizeof what, "rule %zu (%s)", i + 1, rules_target(rs, i));
	note_was(ui, rules_get(rs, i));
	prompt_begin(ui, UI_PROMPT_REMOVE_RULE, what, NULL);
}

static void rules_pane_remove_confirmed(struct ui *ui)
{
	struct rules *rs = pane_rules(ui, true);
	if (!rs)
		return;
	size_t i = find_again(ui, rs, ui->rule_list.cur);
	if (i == SIZE_MAX)
		return;
	char *target = rules_target(rs, i) ? xstrdup(rules_target(rs, i)) : NULL;
	struct crate_err err = {0};
	if (rules_remove(rs, i, &err) != 0)
		ui_message(ui, true, "%s", err.msg);
	else
		ui_message(ui, false, "removed rule %zu: %s", i + 1, target ? target : "");
	free(target);
	ui->dirty = true;
}

static void move_selected(struct ui *ui, struct rules *rs, bool up)
{
	size_t i = ui->rule_list.cur, n = rules_count(rs);
	if (i >= n || (up && i == 0) || (!up && i + 1 >= n))
		return;
	size_t to = up ? i - 1 : i + 1;
	struct crate_err err = {0};
	if (rules_move(rs, i, to, &err) != 0) {
		ui_message(ui, true, "%s", err.msg);
		return;
	}
	ui->rule_list.cur = to; /* the cursor stays on the rule */
}

/* Enter: show what the rule covers in the browser (or the playlist). */
static void browse_selected(struct ui *ui, struct rules *rs)
{
	size_t i = ui->rule_list.cur;
	const struct rule *r = rules_get(rs, i);
	if (!r)
		return;
	char why[256];
	if (app_rule_state(ui->app, rs, i, why, sizeof why) == RULE_INACTIVE) {
		ui_message(ui, true, "rule %zu is inactive: %s", i + 1, why);
		return;
	}
	if (r->name && strcmp(r->ns, COLL_NS_PLAYLISTS) == 0)
		ui_open_playlist(ui, r->name);
	else
		ui_browse(ui, r->name ? r->ns : NULL, r->name, r->query ? r->query : "");
}

static bool rule_matches(struct ui *ui, size_t i, void *ctx)
{
	return row_matches_find(ui, ctx, i);
}

static bool rules_find_rows(struct ui *ui, struct ui_find_rows *f)
{
	struct rules *rs = pane_rules(ui, false);
	if (!rs)
		return false;
	*f = (struct ui_find_rows){rules_count(rs), geom(ui).list_h, &ui->rule_list, rule_matches, rs};
	return true;
}

static bool rules_pane_key(struct ui *ui, enum ui_action a)
{
	struct rules *rs = pane_rules(ui, a != UA_NONE);
	if (!rs)
		return true;
	ui->dirty = true;
	switch (a) {
	case UA_ADD:
		begin_add(ui);
		return true;
	case UA_ENQUEUE:
		begin_edit(ui, rs);
		return true;
	case UA_REMOVE:
		ask_remove(ui, rs);
		return true;
	case UA_MOVE_UP:
	case UA_MOVE_DOWN:
		move_selected(ui, rs, a == UA_MOVE_UP);
		return true;
	case UA_PLAY:
		browse_selected(ui, rs);
		return true;
	case UA_MATCH_NEXT:
	case UA_MATCH_PREV:
		return ui_find_step(ui, a == UA_MATCH_NEXT ? 1 : -1);
	default:
		return ui_list_move(&ui->rule_list, rules_count(rs), geom(ui).list_h, a);
	}
}

static bool rules_pane_click(struct ui *ui, int y, int x, bool dbl)
{
	(void)x;
	struct rules *rs = pane_rules(ui, false);
	struct rules_geom g = geom(ui);
	if (!rs || y < g.list_y || y >= g.list_y + g.list_h)
		return false;
	size_t i = ui->rule_list.top + (size_t)(y - g.list_y);
	if (i >= rules_count(rs))
		return false;
	ui->rule_list.cur = i;
	if (dbl)
		browse_selected(ui, rs);
	ui->dirty = true;
	return true;
}

/* The rules view gives a, e, d, Enter and K/J its own meaning. */
static bool rules_pane_key_first(struct ui *ui, enum ui_action a)
{
	if (a != UA_ADD && a != UA_ENQUEUE && a != UA_REMOVE && a != UA_PLAY && a != UA_MOVE_UP &&
	    a != UA_MOVE_DOWN)
		return false;
	rules_pane_key(ui, a);
	return true;
}

static void rules_pane_heading(struct ui *ui, int w, char *buf, size_t size)
{
	(void)ui;
	static const char text[] = "first match wins ";
	snprintf(buf, size, "%s", w >= (int)strlen(text) ? text : "");
}

const struct ui_pane ui_pane_rules = {
	.title = "Rules",
	.hint = "{add} add  {enqueue} edit  {remove} remove  {move_up} {move_down} move  {play} browse  "
		"{help} help",
	.find_label = "find: ",
	.draw = rules_pane_draw,
	.key_first = rules_pane_key_first,
	.key = rules_pane_key,
	.click = rules_pane_click,
	.find_rows = rules_find_rows,
	.find_info = ui_find_count,
	.heading = rules_pane_heading,
	.confirm = rules_pane_remove_confirmed,
	.prompt_done = rules_pane_prompt_done,
	.prompt_label = rules_pane_prompt_label,
	.free = rules_pane_free,
};
