/* The rows' text and marks: the format.* options (medialib/item_format.h)
 * compiled once from the configuration, at start and after `:set`, and
 * rendered per visible row only; and the glyphs of display.glyph_* that
 * mark the playing row, the current one and marked ones. */
#ifndef CRATE_UI_ROWS_H
#define CRATE_UI_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "base/str.h"

struct ui;
struct item_format;

enum ui_fmt { UI_FMT_TRACK, UI_FMT_TRACK_ALL, UI_FMT_PLAYLIST, UI_FMT_STATUS, UI_NFMTS };
enum ui_glyph { UI_GLYPH_PLAYING, UI_GLYPH_CURRENT, UI_GLYPH_MARKED, UI_NGLYPHS };

struct ui_rows {
	struct item_format *fmt[UI_NFMTS]; /* owned */
	char glyph[UI_NGLYPHS][8];         /* one character, one cell */
};

/* (Re)read the options into ui->rows (ui->ascii set first: a glyph beyond
 * ASCII becomes its ASCII stand-in). */
void ui_rows_load(struct ui *ui);
void ui_rows_free(struct ui_rows *r);
const char *ui_glyph(const struct ui *ui, enum ui_glyph g);

/* Format which for item id into left and right (the half after %=;
 * NULL: joined to left). pos is the 1-based entry number that %pos%
 * gives (0: none). The text is sanitised: ready for draw_text. */
void ui_rows_render(struct ui *ui, enum ui_fmt which, uint32_t id, size_t pos,
		    struct strbuf *left, struct strbuf *right);

#endif
