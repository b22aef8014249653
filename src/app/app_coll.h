/* The application's collection actions, shared by the UI and the CLI:
 * evaluating queries and saved collections against the library, saving
 * queries, editing playlists, Party Shuffle refill. Playlist names are
 * names in the Playlists namespace; NULL means the active playlist.
 * Positions in this API are 0-based (the CLI converts from 1-based). */
#ifndef CRATE_APP_APP_COLL_H
#define CRATE_APP_APP_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "base/str.h"
#include "coll/eval.h"
#include "coll/node.h"

/* Evaluation context over app's index with the store as resolver. */
void app_eval_ctx(struct app *app, struct coll_eval_ctx *ctx);

/* Parse a query (list_context: bare numbers are playlist positions) with
 * references checked against the store. New reference, or NULL with *err
 * (err->pos is the column). */
struct coll_node *app_parse_query(struct app *app, const char *query, bool list_context,
				  struct crate_err *err);
/* Parse and evaluate. out is filled on success (coll_result_free). */
int app_eval_query(struct app *app, const char *query, bool list_context,
		   struct coll_result *out, struct crate_err *err);
int app_eval_node(struct app *app, const struct coll_node *node, struct coll_result *out,
		  struct crate_err *err);
/* A query typed as a search (coll/search.h): ranked by relevance unless it
 * has ORDER BY or flags say COLL_SEARCH_NO_RANK, and forgiving (spelling
 * corrections, `field:value` falling back to words) unless
 * COLL_SEARCH_EXACT. text is what query was parsed from (may be NULL);
 * notes (may be NULL) receives what was forgiven, or "". */
int app_search(struct app *app, const struct coll_node *query, const char *text, unsigned flags,
	       struct coll_result *out, struct strbuf *notes, struct crate_err *err);
/* Parse query text and app_search it: what `crate search` lists for it.
 * The commands that act on a typed query's matches (playlist add, rate,
 * play) use this, so they act on the very tracks search shows. */
int app_search_text(struct app *app, const char *query, unsigned flags, struct coll_result *out,
		    struct strbuf *notes, struct crate_err *err);
/* Evaluate a saved collection ("All Media" included). */
int app_eval_named(struct app *app, const char *ns, const char *name, struct coll_result *out,
		   struct crate_err *err);

/* node sorted by "artist,-year" (comma or space separated, '-' =
 * descending; "random", "random(42)" or "id" alone), the same order node
 * the parser makes for ORDER BY. Returns a new reference (node gets one
 * more), or NULL with *err on an empty or bad field, or (app not NULL) on
 * a field no item of app's library has (a typo; play statistics are
 * always known). */
struct coll_node *app_order_by(struct app *app, struct coll_node *node, const char *fields,
			       struct crate_err *err);

/* Save the query text as fullname ("Rock 90s", "Collections/x"; a query
 * cannot be saved in Playlists). */
int app_coll_save_query(struct app *app, const char *fullname, const char *query,
			struct crate_err *err);

/* A collection n about to be saved as ns/name: under Playlists/Queue (the
 * play queue, found by its name) a list becomes a queue list, as one made
 * under that name does, and anything else is refused (-1 with *err). */
int app_queue_name_take(const char *ns, const char *name, struct coll_node *n,
			struct crate_err *err);
/* Rename / remove a saved collection (coll_store_rename/_remove) and keep
 * the collection rules (app/rules.h) in step: a rule on the old name
 * follows the rename; a rule using a removed collection refuses the
 * removal unless force, which drops the rule. */
int app_coll_rename(struct app *app, const char *ns, const char *old_name, const char *new_name,
		    struct crate_err *err);
/* A saved collection's own browser levels (coll/store.h): get gives the
 * stored text (owned, NULL: none, browser.levels applies); set checks
 * text with mlib_levels_parse and stores it canonical ("genre album"),
 * NULL or "" clears. */
int app_coll_levels_get(struct app *app, const char *ns, const char *name, char **out,
			struct crate_err *err);
int app_coll_levels_set(struct app *app, const char *ns, const char *name, const char *text,
			struct crate_err *err);
int app_coll_remove(struct app *app, const char *ns, const char *name, bool force,
		    struct crate_err *err);

/* The playlist a NULL name means (the active one), borrowed. */
const char *app_playlist_name(struct app *app, const char *name);
/* A new empty playlist; CRATE_ERR_EXISTS when the name is taken. */
int app_playlist_new(struct app *app, const char *name, struct crate_err *err);
/* The same with a list type ("queue"; NULL: a plain list). */
int app_playlist_new_typed(struct app *app, const char *name, const char *type,
			   struct crate_err *err);
/* Whether Playlists/name (NULL: the active one) can take entries: it
 * exists, or it is Playlists/Queue, made as a queue list on first use
 * (as the interface's e makes it); -1 with err otherwise. */
int app_playlist_ready(struct app *app, const char *name, struct crate_err *err);
/* Append (or insert at pos) what the query finds as a search
 * (app_search_text with flags COLL_SEARCH_*: forgiving unless
 * COLL_SEARCH_EXACT, ranked unless COLL_SEARCH_NO_RANK); Playlists/Queue
 * is made when missing. *added (may be NULL) receives the count, notes
 * (may be NULL) what the search forgave. Recorded for app_playlist_undo,
 * as app_playlist_move is. */
int app_playlist_add_query(struct app *app, const char *name, const char *query, unsigned flags,
			   size_t *added, struct strbuf *notes, struct crate_err *err);
int app_playlist_insert_query(struct app *app, const char *name, size_t pos, const char *query,
			      unsigned flags, size_t *added, struct strbuf *notes,
			      struct crate_err *err);
/* Remove entries by 1-based positions text ("3", "3-7", "1,4-6,9", "5-",
 * "-2"; several arguments joined by spaces). Positions past the end are an
 * error naming them. *removed (may be NULL) receives the count. */
int app_playlist_remove_positions(struct app *app, const char *name, const char *positions,
				  size_t *removed, struct crate_err *err);
int app_playlist_move(struct app *app, const char *name, size_t from, size_t to,
		      struct crate_err *err);
/* Clear, shuffle and sort write to *n (may be NULL) how many entries they
 * cleared, shuffled or sorted: 0 when the list was left as it was (empty,
 * shorter than 2, in that order already), and nothing was recorded. */
int app_playlist_clear(struct app *app, const char *name, size_t *n, struct crate_err *err);
/* Shuffle; the current entry (if any) moves to the top and stays current. */
int app_playlist_shuffle(struct app *app, const char *name, size_t *n, struct crate_err *err);
/* Stable sort by fields ("artist,-year", as app_order_by). Entries whose
 * media is gone from the library keep their relative order at the end. */
int app_playlist_sort(struct app *app, const char *name, const char *fields, size_t *n,
		      struct crate_err *err);
int app_playlist_use(struct app *app, const char *name, struct crate_err *err);
/* Set the playlist's `jumplist`: the playlist playback switches to when this
 * one ends (target NULL: none). The target must be an existing playlist;
 * NOTFOUND otherwise. */
int app_playlist_set_jump(struct app *app, const char *name, const char *target,
			  struct crate_err *err);

/* Party Shuffle (spec/collections.md, "Lists"). Create (or re-source)
 * Playlists/name as an idlist type=pshuffle over the query, with
 * `upcoming` (0: default 20), then fill it. A name taken by a list that is
 * not a Party Shuffle is refused. */
int app_pshuffle_create(struct app *app, const char *name, const char *query, long upcoming,
			struct crate_err *err);
/* The same with a mode: "random" (the default) or "smooth" (each pick
 * among the tracks that sound nearest to the previous one, app/
 * pshuffle_smooth.h) and, for smooth, drift (0 stay in the mood .. 1
 * wander; < 0: keep the list's or the default). mode NULL keeps the
 * list's own. Stored as the list's attributes `mode` and `drift`; a drift
 * for a list that would pick at random is refused. */
int app_pshuffle_create_mode(struct app *app, const char *name, const char *query,
			     long upcoming, const char *mode, double drift, struct crate_err *err);
/* Switch Playlists/name (a Party Shuffle) to mode, with drift when >= 0
 * (smooth only); the next refill picks that way. */
int app_pshuffle_set_mode(struct app *app, const char *name, const char *mode, double drift,
			  struct crate_err *err);

/* Whether Party Shuffle n picks by sound (smooth mode), and the drift it
 * would pick with (its own, else the default). */
bool app_pshuffle_smooth(const struct coll_node *n, double *drift);
/* How many of the tracks Party Shuffle name draws from (*total) can be
 * picked by sound (*analysed: analysed, with a timbre): under two, smooth
 * mode can only pick at random. */
int app_pshuffle_analysed(struct app *app, const char *name, size_t *analysed, size_t *total,
			  struct crate_err *err);

/* How many entries Party Shuffle n keeps ahead: its own count, else the
 * configured one ([pshuffle] upcoming). */
long app_pshuffle_upcoming(const struct app *app, const struct coll_node *n);
/* Top up ns/name so that at least `upcoming` entries follow the current
 * position, picking at random from the source: never an item still in the
 * list nor one of the last `norepeat` picks (attribute; default half the
 * source, at most 200) unless the source is too small (then a played one,
 * never one still to play: pshuffle_fill), and no two
 * consecutive entries by the same artist when the source allows. The recent
 * picks are kept in the list's "picks" attribute. Items whose collection
 * rule says "no Party Shuffle" (app/rules.h) are never picked. Computed
 * from the list as it is in the database, persisted in one transaction. *added (may be NULL) receives the count. */
int app_pshuffle_refill(struct app *app, const char *ns, const char *name, size_t *added,
			struct crate_err *err);

#endif
