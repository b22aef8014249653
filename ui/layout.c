#include "ui/layout.h"

#include <string.h>

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static struct ui_rect rect(int y, int x, int h, int w)
{
	struct ui_rect r = {y, x, h > 0 ? h : 0, w > 0 ? w : 0};
	if (!r.h || !r.w)
		r.h = r.w = 0;
	return r;
}

/* Every browser column side by side: the first group column artist_pct
 * of the width, each further one album_pct, together at most two thirds
 * (three levels at 25% would leave the tracks a quarter), the rest tracks. */
static void group_columns(struct ui_layout *L, const struct ui_layout_opts *o, int nl, int top,
			  int x, int avail)
{
	int ap = clampi(o->artist_pct, 5, 80), lp = clampi(o->album_pct, 5, 80);
	if (ap + lp > 90)
		ap = lp = 45;
	int pct[3] = {ap, lp, lp}, sum = 0;
	for (int k = 0; k < nl; k++)
		sum += pct[k];
	int cap = nl > 2 ? 66 : 90, left = avail;
	for (int k = 0; k < nl; k++) {
		int w = avail * pct[k] / 100;
		if (sum > cap)
			w = avail * pct[k] * cap / (100 * sum);
		L->col[k] = rect(top, x, L->main.h, w);
		x += w;
		left -= w;
	}
	L->col[nl] = rect(top, x, L->main.h, left);
}

void ui_layout_compute(int w, int h, const struct ui_layout_opts *o, struct ui_layout *L)
{
	memset(L, 0, sizeof *L);
	if (w <= 0 || h <= 0)
		return;
	int top = 0, bottom = h;
	if (h >= 2) {
		L->msg = rect(h - 1, 0, 1, w);
		bottom--;
	}
	if (h >= 3) {
		L->status2 = rect(bottom - 1, 0, 1, w);
		bottom--;
	}
	if (h >= 12) {
		L->status1 = rect(bottom - 1, 0, 1, w);
		bottom--;
	}
	if (h >= 10) {
		L->title = rect(0, 0, 1, w);
		top++;
	}
	if (o->search_bar && bottom - top >= 3) {
		L->search = rect(top, 0, 1, w);
		top++;
	}
	L->main = rect(top, 0, bottom - top, w);
	if (!L->main.h)
		return;

	int x = 0, avail = w;
	int sb = clampi(o->sidebar_pct, 0, 50);
	if (sb > 0 && w >= 100) {
		int sw = clampi(w * sb / 100, 12, w / 3);
		L->sidebar = rect(top, 0, L->main.h, sw);
		x = sw;
		avail = w - sw;
	}
	int nl = o->levels ? clampi(o->levels, 1, 3) : 2;
	int focus = clampi(o->focus, 0, nl);
	if (avail >= 20 * (nl + 1)) {
		group_columns(L, o, nl, top, x, avail);
		L->ncols = nl + 1;
	} else if (avail >= 36) {
		/* Two columns: the focused one and its neighbour (tracks keep the wider half). */
		int first = focus == 0 ? 0 : focus - 1;
		int fw = avail * 2 / 5;
		L->col[first] = rect(top, x, L->main.h, fw);
		L->col[first + 1] = rect(top, x + fw, L->main.h, avail - fw);
		L->ncols = 2;
	} else {
		L->col[focus] = rect(top, x, L->main.h, avail);
		L->ncols = 1;
	}
}

void ui_layout_tabs(const char *const *titles, int n, struct ui_tab *out)
{
	int x = 0;
	for (int i = 0; i < n; i++) {
		out[i] = (struct ui_tab){x, (int)strlen(titles[i])};
		x += out[i].w + 1;
	}
}

int ui_layout_tab_at(const struct ui_tab *tabs, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (x >= tabs[i].x && x <= tabs[i].x + tabs[i].w)
			return i;
	return -1;
}
