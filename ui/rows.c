#include "ui/rows.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app_config.h"
#include "app/app_view.h"
#include "medialib/item_format.h"
#include "ui/ui_state.h"

static const char *const fmt_keys[UI_NFMTS] = {"format.track", "format.track_all",
					       "format.playlist", "format.status"};
static const char *const glyph_keys[UI_NGLYPHS] = {"display.glyph_playing",
						   "display.glyph_current",
						   "display.glyph_marked"};
/* In a non-UTF-8 locale; still three different marks. */
static const char *const glyph_ascii[UI_NGLYPHS] = {">", "*", "+"};

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* The option's value, or its default when the value does not parse (the
 * file and `:set` check it first, so only a bug gets here). */
static struct item_format *load_format(struct ui *ui, const char *key)
{
	struct item_format *f = NULL;
	if (item_format_parse(app_config_value(ui->app, key), &f, NULL) == 0)
		return f;
	const struct config_option *o = app_config_option(key);
	if (item_format_parse(o && o->def ? o->def : "%title%", &f, NULL) == 0)
		return f;
	return NULL;
}

void ui_rows_load(struct ui *ui)
{
	struct ui_rows *r = &ui->rows;
	ui_rows_free(r);
	for (int i = 0; i < UI_NFMTS; i++)
		r->fmt[i] = load_format(ui, fmt_keys[i]);
	for (int g = 0; g < UI_NGLYPHS; g++) {
		const char *v = app_config_value(ui->app, glyph_keys[g]);
		if (!*v || strlen(v) >= sizeof r->glyph[g] || (ui->ascii && !is_ascii(v)))
			v = glyph_ascii[g];
		snprintf(r->glyph[g], sizeof r->glyph[g], "%s", v);
	}
}

void ui_rows_free(struct ui_rows *r)
{
	for (int i = 0; i < UI_NFMTS; i++) {
		item_format_free(r->fmt[i]);
		r->fmt[i] = NULL;
	}
}

const char *ui_glyph(const struct ui *ui, enum ui_glyph g)
{
	return ui->rows.glyph[g][0] ? ui->rows.glyph[g] : glyph_ascii[g];
}

struct row_src {
	struct ui *ui;
	uint32_t id;
	size_t pos;
};

/* The index's values, and the interface's own: %pos%, stars drawn in
 * ASCII when the locale wants it, and for a title nothing gives: what the
 * CLI says of an entry whose row is gone (forgotten), else "?". */
static enum item_value row_value(void *ud, const char *name, struct strbuf *out)
{
	const struct row_src *s = ud;
	if (s->pos && strcmp(name, "pos") == 0) {
		strbuf_addf(out, "%zu", s->pos);
		return ITEM_NUMBER;
	}
	size_t start = out->len;
	enum item_value k = app_item_value(s->ui->app, s->id, name, s->ui->value_sep, out);
	if (k == ITEM_TEXT && s->ui->ascii && strcmp(name, "stars") == 0) {
		size_t n = (out->len - start) / 3; /* ★ is three bytes */
		out->len = start;
		out->buf[start] = '\0';
		while (n--)
			strbuf_addc(out, '*');
	}
	if (k == ITEM_ABSENT && strcmp(name, "title") == 0) {
		if (app_item_known(s->ui->app, s->id))
			strbuf_adds(out, "?");
		else
			strbuf_addf(out, "#%" PRIu32 " (no longer in the library)", s->id);
		return ITEM_TEXT;
	}
	return k;
}

void ui_rows_render(struct ui *ui, enum ui_fmt which, uint32_t id, size_t pos,
		    struct strbuf *left, struct strbuf *right)
{
	if (!ui->rows.fmt[which])
		return;
	struct row_src s = {.ui = ui, .id = id, .pos = pos};
	item_format_render(ui->rows.fmt[which], row_value, &s, left, right);
}
