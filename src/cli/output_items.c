/* Library items printed by the CLI commands (declared in cli/output.h):
 * a line per item from a format (medialib/item_format.h), or JSON. Apart from output.c so
 * that the launcher, which needs only the message helpers, links no index,
 * JSON or SQLite code. */
#include "cli/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app/app_read.h"
#include "app/app_view.h"
#include "base/uri.h"
#include "base/utf8.h"
#include "cli/cli.h"
#include "coll/json.h"
#include "medialib/index.h"
#include "medialib/item_format.h"

struct line_src {
	const struct app *app;
	uint32_t id;
	const char *sep;
	size_t pos; /* a playlist entry's 1-based number (%pos%), 0 for none */
};

/* The application's values: a missing file's come from its stored row. */
static enum item_value line_value(void *ud, const char *name, struct strbuf *out)
{
	const struct line_src *s = ud;
	if (s->pos && strcmp(name, "pos") == 0) {
		strbuf_addf(out, "%zu", s->pos);
		return ITEM_NUMBER;
	}
	return app_item_value(s->app, s->id, name, s->sep, out);
}

/* The line without a format: artist - album - title, an absent part left
 * out together with its separator. */
static void item_default_line(struct strbuf *b, const struct line_src *s)
{
	static const char *const parts[] = {"artist", "album", "title"};
	struct strbuf v;
	strbuf_init(&v, 64);
	for (int i = 0; i < 3; i++) {
		strbuf_reset(&v);
		if (app_item_value(s->app, s->id, parts[i], s->sep, &v) == ITEM_ABSENT)
			continue;
		if (b->len)
			strbuf_adds(b, " - ");
		strbuf_add(b, v.buf, v.len);
	}
	strbuf_free(&v);
}

static void item_line_at(struct strbuf *b, const struct app *app, uint32_t id,
			 const struct item_format *fmt, const char *sep, size_t pos);

void cli_item_line(struct strbuf *b, const struct app *app, uint32_t id,
		   const struct item_format *fmt, const char *sep)
{
	item_line_at(b, app, id, fmt, sep, 0);
}

/* cli_item_line for the entry at 1-based pos of a playlist (0: none). */
static void item_line_at(struct strbuf *b, const struct app *app, uint32_t id,
			 const struct item_format *fmt, const char *sep, size_t pos)
{
	bool missing = !app_has_media(app, id);
	if (missing && !app_item_known(app, id)) {
		strbuf_addf(b, "(#%u is no longer in the library)", id);
		return;
	}
	struct line_src s = {.app = app, .id = id, .sep = sep, .pos = pos};
	if (!fmt) {
		struct strbuf line;
		strbuf_init(&line, 128);
		item_default_line(&line, &s);
		strbuf_add(b, line.buf, line.len);
		strbuf_free(&line);
	} else {
		/* No row width on a command line: the halves of %= are joined. */
		item_format_render(fmt, line_value, &s, b, NULL);
	}
	if (missing)
		strbuf_adds(b, "  (missing)"); /* as the interface marks it */
}

int cli_check_format(struct cli_ctx *ctx, const char *fmt, bool json)
{
	struct item_format *f;
	struct crate_err err = {0};
	if (!fmt)
		return CLI_OK;
	if (json) {
		cli_warning(ctx, "%s", CLI_FORMAT_WITH_JSON);
		return CLI_OK;
	}
	if (item_format_parse(fmt, &f, &err) != 0)
		return cli_fail_query(ctx, fmt, &err);
	item_format_free(f);
	return CLI_OK;
}

/* ", \"uri\": ..." for an item at path url: its file:// URI, whose ASCII
 * gives back every byte of a name that is not UTF-8 (the "url" string
 * shows such a byte as U+FFFD, as JSON text must be UTF-8). A stream's
 * URL is its own URI. A cue sheet's track (url FILE#N) is FILE's URI with
 * the fragment #N: "%23N" decoded back to a file that does not exist. */
static void add_uri_json(struct strbuf *b, const char *url, bool cue_track)
{
	struct strbuf uri;
	strbuf_init(&uri, 64);
	const char *hash = cue_track ? strrchr(url, '#') : NULL;
	if (url[0] == '/' && hash) {
		char *file = xstrndup(url, (size_t)(hash - url));
		uri_add_path(&uri, file);
		strbuf_adds(&uri, hash);
		free(file);
	} else if (url[0] == '/') {
		uri_add_path(&uri, url);
	} else {
		strbuf_adds(&uri, url);
	}
	strbuf_adds(b, ", \"uri\": ");
	coll_json_add_string(b, uri.buf, uri.len);
	strbuf_free(&uri);
}

/* A tag whose name is a key crate adds to the object (the file's "uri",
 * a playlist entry's "pos" and "current"): left out, so that the object
 * has each key once (it had two "pos", and a reader took either). */
static bool key_taken(const char *name, bool entry)
{
	return strcmp(name, "uri") == 0 ||
	       (entry && (strcmp(name, "pos") == 0 || strcmp(name, "current") == 0));
}

static void item_json(struct strbuf *b, const struct mlib_index *idx, uint32_t id, bool entry)
{
	const char *url = NULL;
	int64_t cue_start;
	int pcue = mlib_index_prop(idx, "cue_start");
	bool cue_track = pcue >= 0 && mlib_index_int_value(idx, pcue, id, &cue_start);
	strbuf_addf(b, "{\"id\": %u", id);
	for (int p = 0; p < mlib_index_prop_count(idx); p++) {
		const char *name = mlib_index_prop_name(idx, p);
		if (key_taken(name, entry))
			continue;
		if (mlib_index_prop_kind(idx, p) == MLIB_PROP_INT) {
			int64_t v;
			if (mlib_index_int_value(idx, p, id, &v)) {
				strbuf_adds(b, ", ");
				coll_json_add_string(b, name, strlen(name));
				strbuf_addf(b, ": %" PRId64, v);
			}
			continue;
		}
		const uint32_t *vids;
		size_t n = mlib_index_str_values(idx, p, id, &vids);
		if (!n)
			continue;
		strbuf_adds(b, ", ");
		coll_json_add_string(b, name, strlen(name));
		strbuf_adds(b, n > 1 ? ": [" : ": ");
		for (size_t k = 0; k < n; k++) {
			const char *v = mlib_index_dict_text(idx, p, vids[k]);
			if (strcmp(name, "url") == 0)
				url = v;
			if (k)
				strbuf_adds(b, ", ");
			coll_json_add_string(b, v, strlen(v));
		}
		if (n > 1)
			strbuf_addc(b, ']');
	}
	if (url)
		add_uri_json(b, url, cue_track);
	strbuf_addc(b, '}');
}

void cli_item_json(struct strbuf *b, const struct mlib_index *idx, uint32_t id)
{
	item_json(b, idx, id, false);
}

/* An entry the index lacks: {"id": N, "missing": true}, with the names its
 * stored row still gives (none once it is forgotten). */
static void missing_json(struct strbuf *b, const struct app *app, uint32_t id)
{
	static const char *const names[] = {"url", "artist", "album", "title"};
	char *url = NULL;
	strbuf_addf(b, "{\"id\": %u, \"missing\": true", id);
	struct strbuf v;
	strbuf_init(&v, 64);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		strbuf_reset(&v);
		if (app_item_value(app, id, names[i], MLIB_VALUE_SEPARATOR, &v) == ITEM_ABSENT)
			continue;
		strbuf_addf(b, ", \"%s\": ", names[i]);
		coll_json_add_string(b, v.buf, v.len);
		if (i == 0)
			url = xstrdup(v.buf);
	}
	if (url) /* last, as for an item the index has */
		add_uri_json(b, url, false);
	free(url);
	strbuf_free(&v);
	strbuf_addc(b, '}');
}

/* A playlist entry's place, added to its item object (b ends with '}'):
 * "pos" (1-based) and, on the current entry, "current": true. */
static void entry_json(struct strbuf *b, size_t pos, bool current)
{
	b->len--;
	strbuf_addf(b, ", \"pos\": %zu%s}", pos, current ? ", \"current\": true" : "");
}

int cli_print_items(const struct app *app, const uint32_t *ids, size_t n,
		    const struct cli_items_out *o, struct crate_err *err)
{
	FILE *f = o->out;
	struct item_format *fmt = NULL;
	if (o->fmt && !o->json && item_format_parse(o->fmt, &fmt, err) != 0)
		return -1;
	struct strbuf b;
	strbuf_init(&b, 256);
	if (o->json)
		fputs("[", f);
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&b);
		if (o->json) {
			/* JSON escapes every control character: terminal-safe as is. */
			strbuf_adds(&b, i ? ",\n  " : "\n  ");
			if (app_has_media(app, ids[i]))
				item_json(&b, app_index(app), ids[i], o->numbered);
			else
				missing_json(&b, app, ids[i]);
			if (o->numbered) /* what the listing's "> 3." says, inside the object */
				entry_json(&b, i + 1, (long)i == o->current);
			fwrite(b.buf, 1, b.len, f);
			continue;
		}
		/* A format given is the whole line, as search's (a script's
		 * %url% alone); %pos% is the entry's number there. */
		if (o->numbered && !fmt)
			fprintf(f, "%c%4zu. ", (long)i == o->current ? '>' : ' ', i + 1);
		item_line_at(&b, app, ids[i], fmt, o->sep ? o->sep : MLIB_VALUE_SEPARATOR,
			     o->numbered ? i + 1 : 0);
		/* values are sanitised as they are rendered; a tab left is the
		 * format's own */
		char *clean = utf8_sanitize_keep_tabs(b.buf, b.len);
		fputs(clean, f);
		free(clean);
		fputc('\n', f);
	}
	if (o->json)
		fputs(n ? "\n]\n" : "]\n", f);
	strbuf_free(&b);
	item_format_free(fmt);
	return 0;
}
