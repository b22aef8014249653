/* Library items printed by the CLI commands (declared in cli/output.h):
 * a line per item from a %prop% format, or JSON. Apart from output.c so
 * that the launcher, which needs only the message helpers, links no index,
 * JSON or SQLite code. */
#include "cli/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll/json.h"
#include "medialib/index.h"

static const char *item_file_name(const struct mlib_index *idx, uint32_t id, char *buf,
				  size_t bufsize)
{
	const char *url = mlib_index_get_text(idx, id, "url", buf, bufsize);
	if (!url)
		return NULL;
	const char *slash = strrchr(url, '/');
	return slash ? slash + 1 : url;
}

/* Values of one property of an item into b (multi-values joined by sep);
 * false when the item lacks it. */
static bool item_prop(struct strbuf *b, const struct mlib_index *idx, uint32_t id,
		      const char *name, const char *sep)
{
	if (strcmp(name, "id") == 0) {
		strbuf_addf(b, "%u", id);
		return true;
	}
	int prop = mlib_index_prop(idx, name);
	if (prop < 0)
		return false;
	if (mlib_index_prop_kind(idx, prop) == MLIB_PROP_INT) {
		int64_t v;
		if (!mlib_index_int_value(idx, prop, id, &v))
			return false;
		strbuf_addf(b, "%" PRId64, v);
		return true;
	}
	const uint32_t *vids;
	size_t n = mlib_index_str_values(idx, prop, id, &vids);
	for (size_t k = 0; k < n; k++) {
		if (k)
			strbuf_adds(b, sep);
		strbuf_adds(b, mlib_index_dict_text(idx, prop, vids[k]));
	}
	return n > 0;
}

/* A property for display: its values, or for a missing title the file name. */
static bool item_shown(struct strbuf *b, const struct mlib_index *idx, uint32_t id,
		       const char *name, const char *sep)
{
	if (item_prop(b, idx, id, name, sep))
		return true;
	char buf[32];
	const char *file = strcmp(name, "title") == 0 ? item_file_name(idx, id, buf, sizeof buf)
						      : NULL;
	if (file)
		strbuf_adds(b, file);
	return file != NULL;
}

void cli_item_line(struct strbuf *b, const struct mlib_index *idx, uint32_t id, const char *fmt,
		   const char *sep)
{
	if (!mlib_index_has_media(idx, id)) {
		strbuf_addf(b, "(#%u is no longer in the library)", id);
		return;
	}
	if (!fmt) {
		static const char *const parts[] = {"artist", "album", "title"};
		size_t start = b->len;
		for (int i = 0; i < 3; i++) {
			size_t before = b->len;
			if (before > start)
				strbuf_adds(b, " - ");
			if (!item_shown(b, idx, id, parts[i], sep)) { /* drop the separator too */
				b->len = before;
				b->buf[before] = '\0';
			}
		}
		return;
	}
	for (const char *p = fmt; *p;) {
		const char *end = p[0] == '%' ? strchr(p + 1, '%') : NULL;
		if (!end) {
			strbuf_addc(b, *p++);
			continue;
		}
		if (end == p + 1) {
			strbuf_addc(b, '%');
		} else {
			char *name = xstrndup(p + 1, (size_t)(end - p - 1));
			item_shown(b, idx, id, name, sep);
			free(name);
		}
		p = end + 1;
	}
}

void cli_item_json(struct strbuf *b, const struct mlib_index *idx, uint32_t id)
{
	strbuf_addf(b, "{\"id\": %u", id);
	for (int p = 0; p < mlib_index_prop_count(idx); p++) {
		const char *name = mlib_index_prop_name(idx, p);
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
			if (k)
				strbuf_adds(b, ", ");
			coll_json_add_string(b, v, strlen(v));
		}
		if (n > 1)
			strbuf_addc(b, ']');
	}
	strbuf_addc(b, '}');
}

void cli_print_items(const struct mlib_index *idx, const uint32_t *ids, size_t n,
		     const struct cli_items_out *o)
{
	FILE *f = o->out;
	struct strbuf b;
	strbuf_init(&b, 256);
	if (o->json)
		fputs("[", f);
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&b);
		if (o->json) {
			/* JSON escapes every control character: terminal-safe as is. */
			strbuf_adds(&b, i ? ",\n  " : "\n  ");
			if (mlib_index_has_media(idx, ids[i]))
				cli_item_json(&b, idx, ids[i]);
			else
				strbuf_addf(&b, "{\"id\": %u, \"missing\": true}", ids[i]);
			fwrite(b.buf, 1, b.len, f);
			continue;
		}
		if (o->numbered)
			fprintf(f, "%c%4zu. ", (long)i == o->current ? '>' : ' ', i + 1);
		cli_item_line(&b, idx, ids[i], o->fmt, o->sep ? o->sep : MLIB_VALUE_SEPARATOR);
		cli_put_safe(f, b.buf, b.len);
		fputc('\n', f);
	}
	if (o->json)
		fputs(n ? "\n]\n" : "]\n", f);
	strbuf_free(&b);
}
