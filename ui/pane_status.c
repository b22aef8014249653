/* The status lines: what plays (state, artist – title), where (elapsed /
 * total with a progress bar), and the player's modes (volume, repeat,
 * shuffle), scan progress while a scan runs, and the active collection
 * rule. Two rows on tall screens, one on small ones. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "ui/actions.h"
#include "ui/draw.h"
#include "ui/pane_status.h"
#include "ui/text.h"
#include "ui/ui_state.h"

static const char *state_text(int s, bool ascii)
{
	if (ascii)
		return s == 1 ? ">" : s == 2 ? "||" : "[]";
	return s == 1 ? "\xe2\x96\xb6" : s == 2 ? "\xe2\x80\x96" : "\xe2\x96\xa0";
}

/* Whether the playing item has no title and its stream named its
 * station (icy-name): then the station's name names it. */
static bool named_by_station(struct ui *ui, const struct ui_status *st)
{
	char tmp[16];
	return st->id && st->station[0] && !ui_prop(ui, st->id, "title", tmp, sizeof tmp);
}

/* The playing item's name: its title, or its station's, or its file's. */
static void playing_name(struct ui *ui, const struct ui_status *st, char *buf, size_t size)
{
	if (named_by_station(ui, st))
		snprintf(buf, size, "%s", st->station);
	else
		ui_title(ui, st->id, buf, size);
}

void status_title(struct ui *ui, char *buf, size_t size)
{
	struct ui_status st;
	act_status(ui, &st);
	if (!st.state) {
		snprintf(buf, size, "crate");
		return;
	}
	if (!st.id) { /* a file played by its path: its name is all there is */
		char nb[512];
		snprintf(buf, size, "crate: %s %s", state_text(st.state, ui->ascii),
			 ui_text_basename(st.path, nb, sizeof nb));
		return;
	}
	char ab[256], tb[512];
	const char *artist = ui_prop(ui, st.id, "artist", ab, sizeof ab);
	playing_name(ui, &st, tb, sizeof tb);
	const char *dash = ui->ascii ? " - " : " \xe2\x80\x93 ";
	if (st.stream_title[0])
		snprintf(buf, size, "crate: %s %s (%s)", state_text(st.state, ui->ascii), st.stream_title, tb);
	else
		snprintf(buf, size, "crate: %s %s%s%s", state_text(st.state, ui->ascii),
			 artist ? artist : "", artist ? dash : "", tb);
}

void status_draw(struct ui *ui)
{
	struct ui_status st;
	act_status(ui, &st);
	int attr = theme_attr(UR_STATUS);

	char what[1200] = "";
	struct strbuf right; /* format.status after its %= */
	strbuf_init(&right, 64);
	if (st.id && st.stream_title[0]) { /* a radio stream: its current title */
		char tb[512];
		playing_name(ui, &st, tb, sizeof tb);
		snprintf(what, sizeof what, " %s %s (%s)", state_text(st.state, ui->ascii),
			 st.stream_title, tb);
	} else if (named_by_station(ui, &st)) {
		snprintf(what, sizeof what, " %s %s", state_text(st.state, ui->ascii), st.station);
	} else if (st.id) {
		struct strbuf left;
		strbuf_init(&left, 256);
		strbuf_addf(&left, " %s ", state_text(st.state, ui->ascii));
		ui_rows_render(ui, UI_FMT_STATUS, st.id, 0, &left, &right);
		snprintf(what, sizeof what, "%s", left.buf);
		strbuf_free(&left);
	} else if (st.state) { /* a file that is no library item (view 5) */
		char nb[512];
		snprintf(what, sizeof what, " %s %s", state_text(st.state, ui->ascii),
			 ui_text_basename(st.path, nb, sizeof nb));
	} else {
		snprintf(what, sizeof what, " %s %s", state_text(st.state, ui->ascii),
			 st.available ? "stopped" : "playback not available yet");
	}

	char modes[800], t1[32], t2[32];
	ui_fmt_time(st.state ? st.pos_ms : -1, t1, sizeof t1);
	ui_fmt_time(st.state ? st.dur_ms : -1, t2, sizeof t2);
	char vol[16] = "vol --";
	if (st.volume >= 0)
		snprintf(vol, sizeof vol, "vol %d%%", st.volume);
	char shuf[32];
	snprintf(shuf, sizeof shuf, "shuffle %s", st.shuffle_mode);
	snprintf(modes, sizeof modes, " %s%s%s%s%s  repeat %s  %s%s%s ", st.scanning ? st.scan : "",
		 st.scanning ? "  " : "", st.context, st.context[0] ? "  " : "", vol,
		 st.repeat == 1 ? "all" : st.repeat == 2 ? "one" : "off",
		 st.shuffle ? shuf : "in order", st.rule[0] ? "  rule: " : "", st.rule);

	const struct ui_rect *r1 = &ui->L.status1, *r2 = &ui->L.status2;
	if (r1->w)
		draw_halves(ui, r1->y, 0, r1->w, what, right.buf, attr | A_BOLD);
	else if (right.len) /* one row: the halves side by side */
		snprintf(what + strlen(what), sizeof what - strlen(what), "  %s", right.buf);
	strbuf_free(&right);
	if (!r2->w)
		return;
	/* Row 2 (or the only row): time, bar, modes. */
	char times[80];
	snprintf(times, sizeof times, " %s / %s ", t1, t2);
	int w = r2->w, x = 0;
	draw_fill(r2->y, 0, w, attr);
	if (!r1->w) {
		/* One row: state + title first, then the times. */
		int tw = (int)strlen(times);
		int ww = w - tw > 0 ? w - tw : w;
		draw_text(ui, r2->y, 0, ww, what, attr | A_BOLD);
		if (ww < w)
			draw_text(ui, r2->y, ww, tw, times, attr);
		return;
	}
	int tw = (int)strlen(times);
	draw_text(ui, r2->y, x, tw, times, attr);
	x += tw;
	int mw = (int)ui_text_width(modes);
	int bar = w - x - mw - 2;
	if (bar >= 8) {
		size_t fill = ui_progress_cells(st.pos_ms, st.dur_ms, (size_t)bar);
		draw_text(ui, r2->y, x, 1, "[", attr);
		for (int i = 0; i < bar; i++)
			draw_text(ui, r2->y, x + 1 + i, 1, (size_t)i < fill ? "=" : (size_t)i == fill && st.state ? ">" : "-",
				  (size_t)i < fill ? theme_attr(UR_PROGRESS) | (int)A_BOLD : attr);
		draw_text(ui, r2->y, x + 1 + bar, 1, "]", attr);
		x += bar + 2;
	}
	draw_text_right(ui, r2->y, x, w - x, modes, attr);
}
