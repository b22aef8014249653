/* What the front ends show, read through the application: the view of a
 * collection AND a search (app_view_eval), the library's artist/album
 * groups, items' properties, saved collections and playlists. The
 * interface reads the library and the store only through these calls
 * (DESIGN.md: every user action is one app_* call); README "Where the code
 * departs from DESIGN.md" lists what still reads around them. */
#ifndef CRATE_APP_APP_VIEW_H
#define CRATE_APP_APP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "app/app_play.h"
#include "app/rules.h"
#include "base/str.h"
#include "base/vec.h"
#include "coll/eval.h"
#include "coll/node.h"
#include "medialib/item_format.h"

struct mlib_groups;
struct mlib_levels;

/* ---- the library ---- */

/* Counts replacements of the library's index (scan, reload, analysis).
 * What was computed from the index (groups, evaluation caches, borrowed
 * texts) is stale when this changed: a new index may sit at the old one's
 * address, so comparing pointers is not enough. */
unsigned app_index_generation(const struct app *app);
/* Items in the library (0 when no index is loaded). */
uint32_t app_library_size(const struct app *app);
bool app_has_media(const struct app *app, uint32_t id);
/* The index or the database holds item id's row: present, or missing (its
 * file is gone but its tags remain). False once forgotten (crate forget,
 * scan --prune): such an entry is "no longer in the library". */
bool app_item_known(const struct app *app, uint32_t id);
/* Item id is a stream (an http(s) URL, app_is_stream_url): it is
 * neither analysed nor picked by Party Shuffle, since a station never ends. */
bool app_item_is_stream(const struct app *app, uint32_t id);
/* Property prop of item id, values joined by sep; NULL when absent. The
 * text is in buf or borrowed from the index (valid until the generation
 * changes). Untrusted tag text: sanitise before drawing. */
const char *app_item_text(const struct app *app, uint32_t id, const char *prop, const char *sep,
			  char *buf, size_t size);
/* The playing track in one line, as crate remote status's "track:" and
 * crate play --no-ui name it: "Artist - Title" (every artist, joined;
 * no artist: the title alone); a track without a title by its station's
 * name (icy-name) or its file's (str_path_name); a stream's current ICY
 * title first, "Song (Station)". Owned; untrusted text: sanitise it. */
char *app_track_line(const struct app *app, const struct app_play_status *st);
/* The value of property name of item id for a format (medialib/
 * item_format.h: kinds, %id%, %stars%, the file name for a missing
 * title), values joined by sep; ITEM_ABSENT without an index. An item
 * the index lacks is read from its stored row: texts and %id%, no other
 * number. */
enum item_value app_item_value(const struct app *app, uint32_t id, const char *name,
			       const char *sep, struct strbuf *out);
/* The whole library's groups by levels lv (NULL: the default, artist
 * album; medialib/index_groups.h), built on first use per index generation
 * and level set. Borrowed: valid until the generation changes or the next
 * call with other levels. NULL when no index is loaded. */
const struct mlib_groups *app_library_groups(struct app *app, const struct mlib_levels *lv);
/* Parse browser levels (mlib_levels_parse) and refuse a property no item
 * of a non-empty library has ("titel" is a typo, not a tag to group by);
 * out may be NULL. */
int app_levels_parse(struct app *app, const char *text, struct mlib_levels *out,
		     struct crate_err *err);
/* Library rank of each id (see mlib_index_ranks); all UINT32_MAX without an index. */
void app_library_ranks(const struct app *app, const uint32_t *ids, size_t n,
		       bool in_library_order, uint32_t *rank);

/* ---- evaluating views ---- */

/* Work a front end keeps between evaluations (the search bar evaluates
 * after every key), dropped by itself when the index generation changes.
 * Zero-initialise; free with app_eval_cache_free. */
struct app_view_memo;
struct app_eval_cache {
	struct coll_eval_cache *cache; /* NULL until first used */
	unsigned generation;           /* the index generation it holds work for */
	/* The last few views' results (app_view_eval): typing back to an
	 * earlier query (backspace) shows its results again without
	 * evaluating. NULL until first used. */
	struct app_view_memo *memo;
	unsigned memo_hits;            /* views answered from it so far */
	unsigned rank_reuses;          /* searches that took an earlier keystroke's
					* ranking (the same set, the same terms) */
};
void app_eval_cache_free(struct app_eval_cache *c);
/* app_eval_ctx with the cache (c may be NULL). */
void app_eval_ctx_cached(struct app *app, struct app_eval_cache *c, struct coll_eval_ctx *ctx);

/* One step of the work c can do before the next keystroke needs it
 * (coll_eval_cache_prepare_step: a few ms at most); true while more
 * remains. For an idle front end. */
bool app_eval_cache_prepare(struct app *app, struct app_eval_cache *c);

/* A view: a saved collection (or All Media) AND a query. */
struct app_view {
	const char *base_ns, *base_name; /* NULL ns: All Media */
	const struct coll_node *query;   /* NULL: the base alone */
	const char *text;                /* what query was parsed from (may be NULL) */
	bool search;                     /* query is a search: ranked and forgiving */
	struct app_eval_cache *cache;    /* may be NULL */
	bool ranks;                      /* fill coll_result.ranks where they come free */
	struct coll_eval_timing *timing; /* NULL, or where the steps' times are added */
};
/* The view's collection, base AND query: a new reference. */
struct coll_node *app_view_node(const struct app_view *v);
/* The same as the view shows it: a search with what it forgives written
 * in (a word a typo away, a field's words), so that saving it keeps what
 * was shown; what was forgiven goes to notes (may be NULL). A new
 * reference. */
struct coll_node *app_view_node_shown(struct app *app, const struct app_view *v,
				      struct strbuf *notes);
/* Evaluate the view. A search (v->search) is ranked and forgiving
 * (coll/search.h): what it forgave goes to notes (may be NULL). */
int app_view_eval(struct app *app, const struct app_view *v, struct coll_result *out,
		  struct strbuf *notes, struct crate_err *err);
/* The entries (positions) of list that query selects: out is initialised
 * here (owned by the caller). See coll/eval_positions.h. A find in a list
 * forgives as the browser's search does (coll/search.h: corrections, a
 * field's words), so what finds a track there finds its entry here; the
 * list keeps its order. text: what query was parsed from (may be NULL);
 * what was forgiven goes to notes (may be NULL). */
int app_eval_positions(struct app *app, struct app_eval_cache *c, const struct u32vec *list,
		       const struct coll_node *query, const char *text, struct bitset *out,
		       struct strbuf *notes, struct crate_err *err);

/* ---- saved collections and playlists ---- */

/* The collection store is open (collections and playlists can be read). */
bool app_has_store(const struct app *app);
/* Bumped by every change of the collections or playlists (0 without a
 * store): views re-read when it moved. */
unsigned app_store_generation(const struct app *app);
/* A saved collection's root: borrowed, valid until the store generation
 * changes. NULL when absent (or no store). */
const struct coll_node *app_coll_get(struct app *app, const char *ns, const char *name);
/* A playlist (NULL name: the active one); borrowed like app_coll_get. */
const struct coll_node *app_playlist_get(struct app *app, const char *name);
/* The active playlist's name, borrowed; NULL when none (or no store). */
const char *app_playlist_active(struct app *app);
/* Names in ns (coll_store_list: owned array and strings); 0 without a store. */
size_t app_coll_list(struct app *app, const char *ns, char ***names);
/* The first collection that could not be read back (coll_store_unreadable):
 * how many there are, and *why the first one's message (borrowed). */
size_t app_coll_unreadable(struct app *app, const char **why);
/* Save node (the caller's; a copy is stored) as fullname ("Rock 90s",
 * "Collections/x"). saved_as (may be NULL) receives "Collections/Rock 90s"
 * (owned) on success. */
int app_coll_save_node(struct app *app, const char *fullname, const struct coll_node *node,
		       char **saved_as, struct crate_err *err);
/* Insert ids at pos (SIZE_MAX: the end) of a playlist (NULL: the active
 * one; recorded for app_playlist_undo) / remove n entries at pos. */
int app_playlist_insert_ids(struct app *app, const char *name, size_t pos, const uint32_t *ids,
			    size_t n, struct crate_err *err);
int app_playlist_remove_at(struct app *app, const char *name, size_t pos, size_t n,
			   struct crate_err *err);
/* The interface's edits of a set of entries (its marks, or the cursor
 * row), each one transaction recorded for app_playlist_undo
 * (coll_store_playlist_move_set / _remove_set). positions are 0-based,
 * distinct, any order; move_entries writes back where each went (delta
 * -1 up, +1 down) and *moved (may be NULL) how many moved. */
int app_playlist_move_entries(struct app *app, const char *name, size_t *positions, size_t n,
			      int delta, size_t *moved, struct crate_err *err);
int app_playlist_remove_entries(struct app *app, const char *name, const size_t *positions,
				size_t n, size_t *removed, struct crate_err *err);
/* Undo the latest recorded playlist edit (this process's or an earlier
 * run's: the records live in the database). Refused, saying why, when the
 * list was changed since by anything else. *what (owned, may be NULL on
 * failure) describes it: "move of 3 entries in Default". */
int app_playlist_undo(struct app *app, char **what, struct crate_err *err);

/* ---- collection rules (app/rules.h) over the app's store and settings ---- */

/* rules_state of rule i of rs (app_rules(app)). */
enum rule_state app_rule_state(struct app *app, struct rules *rs, size_t i, char *why,
			       size_t whysize);
/* rule_from_target (query: rule_from_query) with the app's store. */
int app_rule_from_target(struct app *app, const char *target, bool query, struct rule *out,
			 struct crate_err *err);

#endif
