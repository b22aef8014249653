/* The file-system view's questions to the library (app_files.h). */
#include "app/app_files.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "medialib/index.h"
#include "medialib/scan_cue.h"
#include "medialib/roots.h"

/* The index's url column, or false when there is no index or no url. */
static bool url_column(struct app *app, int *prop, struct mlib_str_column *col)
{
	if (!app->index)
		return false;
	*prop = mlib_index_prop(app->index, "url");
	return *prop >= 0 && mlib_index_str_column(app->index, *prop, col);
}

/* The part of url below dir ("a/b.flac" of "/m/a/b.flac" under "/m"), or
 * NULL when url is not under dir. */
static const char *below(const char *url, const char *dir, size_t dlen)
{
	if (dlen == 1 && dir[0] == '/')
		return url[0] == '/' ? url + 1 : NULL;
	if (strncmp(url, dir, dlen) != 0 || url[dlen] != '/')
		return NULL;
	return url + dlen + 1;
}

static uint32_t find_name(const struct hashtab *t, const struct dirlist *dl, const char *s,
			  size_t len)
{
	struct hashtab_probe p = hashtab_probe(t, hash_bytes(s, len));
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (strncmp(dl->v[i].name, s, len) == 0 && dl->v[i].name[len] == '\0')
			return i;
	return HASHTAB_NONE;
}

void app_files_mark(struct app *app, struct dirlist *dl)
{
	for (size_t i = 0; i < dl->n; i++) {
		dl->v[i].id = 0;
		dl->v[i].count = 0;
	}
	int prop;
	struct mlib_str_column col;
	if (!dl->n || !url_column(app, &prop, &col))
		return;
	struct hashtab names = {0};
	hashtab_reserve(&names, dl->n);
	for (size_t i = 0; i < dl->n; i++)
		hashtab_insert(&names, hash_bytes(dl->v[i].name, strlen(dl->v[i].name)), (uint32_t)i);
	size_t dlen = strlen(dl->path);
	const struct u32vec *ids = mlib_index_all_ids(app->index);
	for (size_t k = 0; k < ids->n; k++) {
		const uint32_t *vids;
		if (!mlib_str_column_get(&col, ids->v[k], &vids))
			continue;
		const char *rest = below(mlib_index_dict_text(app->index, prop, vids[0]), dl->path, dlen);
		if (!rest)
			continue;
		const char *slash = strchr(rest, '/');
		size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
		uint32_t e = find_name(&names, dl, rest, len);
		if (e == HASHTAB_NONE && !slash) {
			/* A cue sheet's track: "FILE#N" plays from FILE. */
			const char *hash = strrchr(rest, '#');
			if (hash)
				e = find_name(&names, dl, rest, (size_t)(hash - rest));
		}
		if (e == HASHTAB_NONE)
			continue;
		struct dirlist_entry *en = &dl->v[e];
		if (slash && en->dir)
			en->count++;
		else if (!slash && !en->dir && !en->id)
			en->id = ids->v[k];
	}
	hashtab_free(&names);
}

struct item {
	const char *key; /* the folded url: the view's order */
	uint32_t id;
};

static int item_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	return dirlist_path_cmp(a->key, b->key);
}

void app_files_items(struct app *app, const char *path, struct u32vec *out)
{
	/* A cue sheet is no item: it stands for its audio file's tracks. */
	char *audio = scan_cue_audio_of(path);
	if (audio) {
		app_files_items(app, audio, out);
		free(audio);
		return;
	}
	int prop;
	struct mlib_str_column col;
	if (!url_column(app, &prop, &col))
		return;
	size_t plen = strlen(path);
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	struct item *v = NULL;
	size_t n = 0, cap = 0;
	const struct u32vec *ids = mlib_index_all_ids(app->index);
	for (size_t k = 0; k < ids->n; k++) {
		const uint32_t *vids;
		if (!mlib_str_column_get(&col, ids->v[k], &vids))
			continue;
		const char *u = mlib_index_dict_text(app->index, prop, vids[0]);
		/* The file itself, a cue track of it ("FILE#N"), or under the folder. */
		bool at = strncmp(u, path, plen) == 0 &&
			  (u[plen] == '\0' || u[plen] == '#' || u[plen] == '/' ||
			   (plen == 1 && path[0] == '/'));
		if (!at)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xreallocarray(v, cap, sizeof *v);
		}
		v[n++] = (struct item){mlib_index_dict_folded(app->index, prop, vids[0]), ids->v[k]};
	}
	if (n > 1)
		qsort(v, n, sizeof *v, item_cmp);
	for (size_t i = 0; i < n; i++)
		u32vec_push(out, v[i].id);
	free(v);
}

/* Cut *common to the folder it shares with path (component boundaries). */
static void common_folder(char *common, const char *path)
{
	size_t i = 0, last = 0;
	while (common[i] && common[i] == path[i]) {
		if (common[i] == '/')
			last = i;
		i++;
	}
	if (!common[i] && (path[i] == '/' || !path[i]))
		return; /* common is path or a folder above it */
	if (common[i] == '/' && !path[i]) {
		common[i] = '\0'; /* path is a folder above common */
		return;
	}
	common[last ? last : 1] = '\0'; /* "/" when only the root is shared */
}

char *app_files_start(struct app *app)
{
	char **roots = NULL;
	size_t n = 0;
	struct crate_err err = {0};
	char *start = NULL;
	if (app->db && mlib_roots_list(app->db, &roots, &n, &err) == 0 && n) {
		start = xstrdup(roots[0]);
		for (size_t i = 1; i < n; i++)
			common_folder(start, roots[i]);
	}
	mlib_roots_free(roots, n);
	if (start)
		return start;
	const char *home = getenv("HOME");
	return xstrdup(home && *home ? home : "/");
}
