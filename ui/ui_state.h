/* The interface's state, shared by the panes (ui/pane_*.c, one struct
 * ui_pane each, pane.h), the search bar, the command line and the event
 * loop, and the actions on it that every pane may take: the message line,
 * switching views, applying the search, browsing a collection, opening a
 * playlist, prompts. This is the layer below the panes: it reaches a pane
 * only through its struct ui_pane (the table ui.c hands it in ui->panes),
 * so no pane calls another. Only the main thread touches it. */
#ifndef CRATE_UI_STATE_H
#define CRATE_UI_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "app/app_library.h"
#include "app/app_view.h"
#include "base/err.h"
#include "base/heap_warm.h"
#include "base/str.h"
#include "base/vec.h"
#include "coll/node.h"
#include "medialib/index_groups.h"
#include "ui/keymap.h"
#include "ui/layout.h"
#include "ui/marks.h"
#include "ui/rows.h"
#include "ui/term_title.h"
#include "ui/theme.h"

struct app;
struct ui_scrollback;
struct app_mpris;
struct app_remote;
struct rule;
struct ui_pane;

enum ui_view { UI_VIEW_BROWSER, UI_VIEW_PLAYLIST, UI_VIEW_COLLECTIONS, UI_VIEW_RULES,
	       UI_VIEW_FILES, UI_VIEW_HELP };
#define UI_NVIEWS 5 /* views with their own search text (all but help) */
enum ui_mode { UI_MODE_NORMAL, UI_MODE_SEARCH, UI_MODE_COMMAND, UI_MODE_PROMPT };
enum ui_prompt_kind {
	UI_PROMPT_SAVE, UI_PROMPT_QUIT, UI_PROMPT_REMOVE_COLL,
	/* the rules pane: add (target, then preset), edit (preset, then volume), remove */
	UI_PROMPT_RULE_TARGET, UI_PROMPT_RULE_PRESET, UI_PROMPT_RULE_VOLUME, UI_PROMPT_REMOVE_RULE,
	UI_PROMPT_RATE, /* one key: 0-5 */
	UI_PROMPT_OVERWRITE, /* y/n: replace the saved collection prompt_arg */
};
/* Prompts that take a line of text (the others take y or n). */
#define UI_PROMPT_IS_TEXT(k) ((k) == UI_PROMPT_SAVE || (k) == UI_PROMPT_RULE_TARGET || \
			      (k) == UI_PROMPT_RULE_PRESET || (k) == UI_PROMPT_RULE_VOLUME)

/* Cursor and scroll offset of a list. */
struct ui_list {
	size_t cur, top;
};

/* A library group while a column is built (pane_browser.c): its row + 1
 * (0: none yet) and the results counted under it so far, added to the
 * row at the end: one place touched a result, not a map and a row. */
struct ui_lg_slot {
	uint32_t row1;
	uint32_t count;
};

/* One row of a group column: a group of result tracks. A row is made
 * with its library group alone; its text and year are read from the
 * library's groups when first wanted (pane_browser.c row_read): only the
 * rows on screen and the selected one are, of tens of thousands. */
struct ui_group {
	const char *text;   /* borrowed from the library's groups; NULL = "(no ...)" */
	uint32_t count;
	uint32_t year;      /* albums: first track's year, 0 if none */
	uint32_t lgroup;    /* library group whose text and year are still to read;
			     * UINT32_MAX: text and year are set */
	uint32_t first;     /* library rank of its first result (the album's year);
			     * UINT32_MAX: no year */
};

struct ui_groups {
	struct ui_group *g; /* g[0] is "All" */
	size_t n, cap;
	struct ui_list list;
};

/* One row of the collections list. */
/* A saved collection or playlist as it was at the last look: its
 * definition (a copy) and its namespace's names, to tell a rename by
 * another process (which keeps no identity) from a removal. */
struct ui_follow {
	struct coll_node *def;
	char **seen;
	size_t nseen;
};

struct ui_coll_row {
	char *ns;           /* NULL: All Media; "" : a heading */
	char *name;
	char *label;        /* owned display text */
	struct coll_node *def; /* a copy as loaded, to follow a rename; NULL: none */
	bool pshuffle, queue, active;
};

struct ui {
	struct app *app;
	const struct ui_pane *const *panes; /* by view (ui.c's table) */
	struct app_remote *remote;
	struct app_mpris *mpris;     /* NULL: no session bus or built without MPRIS */
	struct keymap km;
	bool ascii;          /* the locale is not UTF-8: draw ASCII only */
	bool running;
	bool dirty;          /* redraw needed */
	double resume_saved_ms;      /* when the resume state was last written */
	bool resume_failed;          /* writing it failed (said once) */
	char *resume_last;           /* the state text last written (owned) */
	int w, h;
	struct ui_layout_opts lopts;
	struct ui_layout L;
	int cur_y, cur_x;            /* where the terminal cursor goes (-1: hidden) */
	enum ui_view view, view_before_help;
	enum ui_mode mode;
	struct ui_scrollback *scrollback; /* ':' output (pane_scrollback.h); NULL until used */

	/* The collection being browsed: NULL ns = All Media. */
	char *base_ns, *base_name;
	struct ui_follow base_was; /* to follow a rename (ui_browse_follow) */

	/* Search bar (view 1) / find (views 2, 3). */
	struct strbuf query;
	size_t qcur;                 /* byte offset of the cursor in query */
	struct crate_err qerr;       /* result of the last parse (code 0: fine) */
	char *good_query;            /* the query the results show ("" = none) */
	char *view_query[UI_NVIEWS]; /* each view keeps its own search text */
	struct coll_node *qnode;     /* good_query parsed; NULL when empty */
	char *qnote;                 /* what the search forgave ("also showing ..."), or NULL */
	bool qlist;                  /* qnode was parsed in list context */
	struct app_eval_cache ecache; /* filter work kept between keystrokes */
	struct heap_warm heap_warm;   /* heap faulted in while idle (ui.c) */
	bool search_pending;         /* the text changed: apply once the pending keys are read */
	size_t find_origin;          /* the cursor's row when the find began (find.h) */

	const char *value_sep;       /* between a property's values (display.separator); borrowed */
	struct ui_rows rows;         /* format.* compiled, display.glyph_* (rows.h) */

	/* View 1: results of base AND query, and the columns built from them. */
	struct u32vec results;
	bool results_ordered;
	uint32_t *res_rank;          /* per result position: library rank (UINT32_MAX: none) */
	struct u32vec res_given;     /* the evaluation's ranks of results (coll_result.ranks),
				      * taken over as res_rank when they fit */
	size_t res_row_cap;          /* entries res_row[k] have room for */
	/* The group columns by levels (pane_browser.c): the levels in effect,
	 * each column's rows, and per result position its row in column k,
	 * 0 when the selections left of k do not let it through. */
	struct mlib_levels levels;   /* n == 0 until the first refresh */
	struct ui_groups cols[MLIB_GROUP_LEVELS];
	uint32_t *res_row[MLIB_GROUP_LEVELS];
	struct mlib_extra_group *res_extra; /* further first-column rows of results, by
					     * position (grp[0]: the row; others library groups) */
	size_t nres_extra, res_extra_cap;
	const struct mlib_groups *lg; /* the library's groups (app_library_groups) ... */
	unsigned lg_gen;             /* ... at this index generation */
	struct ui_lg_slot *lg_local; /* scratch by library group, all 0 between uses */
	size_t lg_local_cap;
	struct u32vec tracks;        /* result positions shown in the track column */
	size_t tracks_identity;      /* tracks.v[i] == i for every i below this */
	struct ui_list track_list;
	uint32_t keep_track_id;      /* media id to select again after new results; 0 none */
	struct ui_marks br_marks;    /* marked tracks by media id: they outlive searches */
	int focus;                   /* group column 0.., levels.n: the tracks */

	/* View 2: the playlist shown (NULL: the active one) and find marks. */
	char *pl_name;
	struct ui_follow pl_was;     /* to follow a rename (ui_playlist_follow) */
	struct ui_list pl_list;
	struct bitset pl_match;      /* over entries (positions): rows matching the find */
	bool pl_have_match;
	size_t pl_nmatch;            /* rows set in pl_match */
	char *pl_note;               /* what the find forgave ("also showing ..."), or NULL */
	unsigned pl_match_gen;       /* store generation pl_match was computed at */
	char *pl_match_name;         /* ... on this list (owned) */
	/* Marks by position; they index pl_marks_list (a copy of the list
	 * they were made on) of pl_marks_name, and go when the list shown is
	 * another one or changed under them. */
	struct ui_marks pl_marks;
	struct u32vec pl_marks_list;
	char *pl_marks_name;
	/* The list as last drawn (pane_playlist.c cursor_follow), so the
	 * cursor stays on its entry when the list changes under it. */
	struct u32vec pl_seen;
	char *pl_seen_name;
	size_t pl_seen_cur;          /* the cursor then: moved since, it was put */
	unsigned pl_seen_gen;        /* app_store_generation then */

	/* View 3 and the sidebar. */
	struct ui_coll_row *colls;
	size_t ncolls;
	bool colls_stale;            /* reload the list before it is next shown */
	struct ui_list coll_list;
	struct bitset coll_match_unused;

	/* View 4: the collection rules (app/rules.h; the list lives in the app). */
	struct ui_list rule_list;
	struct rule *rule_draft;     /* the rule being added or edited (owned), NULL none */
	size_t rule_edit;            /* the rule being edited; SIZE_MAX while adding */
	struct rule *rule_was;       /* the rule e or d was pressed on (owned), NULL none */
	struct rule *rule_seen;      /* the cursor's rule at the last draw (owned), NULL none */
	size_t rule_seen_cur;        /* and the cursor then */

	/* Help view scroll. */
	struct ui_list help_list;

	/* Command line / prompts (bottom row). */
	struct strbuf cmd;
	size_t ccur;
	enum ui_prompt_kind prompt;
	char *prompt_arg;
	const struct ui_pane *prompt_pane; /* the pane that asked (its answers go there) */
	struct ui_cmdline *cmdl;     /* histories, Tab's candidates (cmdline.c); NULL until used */
	unsigned line_gen;           /* counts cmdline_begin: cmdline.c drops an earlier line's Tab */

	struct term_title title;     /* the terminal's title: what plays */

	/* Message on the bottom row until msg_until, or until a key read
	 * after msg_at (errors: after msg_at + UI_MSG_ERROR_HOLD_MS). */
	char msg[512];
	bool msg_error;
	struct timespec msg_until;
	double msg_at;

	char msg_scan[160];          /* scan progress for the status line */
	char scan_note[512];         /* added to the next scan's summary (a root forgotten) */
	struct app_scan_progress scan_prog; /* the running scan's latest report */
	bool scan_active;            /* a scan (not an index rebuild) runs: show its progress */
	bool help_errors;            /* the help view lists the last scan's problems */
	char **queued_scan;          /* :scan paths waiting for an automatic scan to end (owned) */
	int nqueued_scan;
	char changes_error[512];     /* the last error looking for others' changes (shown once) */
	char play_error[512];        /* the player's last reason said (app_play_status.error) */
	/* The browser's selection as owned text while the index is swapped
	 * (browser_keep_selection); NULL text with had = the unknown group. */
	char *keep_text[MLIB_GROUP_LEVELS];
	bool keep_had[MLIB_GROUP_LEVELS], keep_valid;
	uint32_t keep_track;         /* media id under the track cursor, 0 none */
	char msg_analysis[160];      /* background analysis progress, "" when idle */
	bool analysis_manual;        /* started by :analyze: its end is worth a message */
	unsigned index_seen;         /* the index generation the columns were built from */

	/* CRATE_TRACE_FRAMES: per-frame timings as JSON lines. */
	FILE *trace;
	unsigned long frame_no;
	double t_key;                /* when the key of this frame arrived (ms, monotonic) */
	double t_key_cpu;            /* this thread's CPU time then (ms): robust on a busy machine */
	double eval_ms;              /* evaluation work of this frame (grouping included) */
	double group_ms;             /* of which building the browser's columns */
	unsigned regrouped;          /* times the columns were built anew (not kept: same results) */
	struct coll_eval_timing timing; /* of which listing and ranking (coll/eval.h) */
	const char *trace_what;
};

/* ---- ui_state.c ---- */
double ui_now_ms(void);
/* A message shows for UI_MSG_SECONDS (an error UI_MSG_ERROR_SECONDS) or
 * until the next action, whichever comes first: an error outlives the
 * actions of its first UI_MSG_ERROR_HOLD_MS, so it can be read. */
#define UI_MSG_SECONDS 5
#define UI_MSG_ERROR_SECONDS 8
#define UI_MSG_ERROR_HOLD_MS 3000
void ui_message(struct ui *ui, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A key was pressed: the message it follows is done with. */
void ui_message_next_action(struct ui *ui);
/* The pane of a view, and of the view shown. */
const struct ui_pane *ui_pane_of(const struct ui *ui, enum ui_view v);
const struct ui_pane *ui_pane_current(const struct ui *ui);
/* The view under the help (the help itself has no search or tab). */
enum ui_view ui_base_view(const struct ui *ui);
void ui_leave_help(struct ui *ui);
/* Switch views; each view has its own search (filter in the browser,
 * find in the playlist and the collections). */
void ui_switch_view(struct ui *ui, enum ui_view v);
/* Parse the search text and let the view's pane apply it (its find). */
void ui_search_apply(struct ui *ui);
/* Show the browser with this search (":search Q", `crate remote search Q`). */
void ui_browser_search(struct ui *ui, const char *text);
/* Browse a collection (NULL ns: All Media) in the browser, with this
 * search (NULL: the browser's own). */
void ui_browse(struct ui *ui, const char *ns, const char *name, const char *query);
/* Show a playlist in view 2 (NULL: the active one). */
void ui_open_playlist(struct ui *ui, const char *name);
/* The name of the playlist view 2 shows: the one opened, else the active
 * one (NULL: none). Borrowed. */
const char *ui_playlist_shown(struct ui *ui);
/* "ns/name " or "All Media ": what the browser shows (the heading of
 * views 1 and 3; w unused). */
void ui_browse_heading(struct ui *ui, int w, char *buf, size_t size);
/* The browser's view (base AND query), and as a node as it is shown
 * (what the search forgave written in; notes, may be NULL, say what that
 * was): a new reference. */
struct app_view ui_browse_view(struct ui *ui);
struct coll_node *ui_browse_view_node(struct ui *ui, struct strbuf *notes);
/* The collections changed: a browsed collection that was renamed (by
 * this process or another) is followed under its new name, one that was
 * removed leaves the browser on All Media, saying so. */
void ui_browse_follow(struct ui *ui);
/* The same for the playlist view 2 was opened on: followed under its new
 * name; one removed leaves the view on the active playlist, saying so. */
void ui_playlist_follow(struct ui *ui);
/* The name in ns that now holds the definition `was` and is none of the
 * `seen` names (those ns held before): where a collection renamed since
 * went. NULL when there is none, or more than one (no telling which).
 * The caller frees it. */
char *ui_coll_renamed(struct ui *ui, const char *ns, const struct coll_node *was,
		      char *const *seen, size_t nseen);
void ui_follow_forget(struct ui_follow *f);
/* Re-evaluate the browser's results (the browsed collection changed). */
void ui_refresh_browser(struct ui *ui);
/* Saved collections or playlists changed: the collections list reloads
 * before it is next shown. */
void ui_colls_changed(struct ui *ui);
/* The bottom row as a command line / a prompt answered by the current pane. */
void cmdline_begin(struct ui *ui, const char *initial);
void prompt_begin(struct ui *ui, enum ui_prompt_kind kind, const char *arg, const char *initial);

#endif
