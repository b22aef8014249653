/* The interface's state, shared by the pane files (ui/pane_*.c), the
 * command line and the event loop. Only the main thread touches it. */
#ifndef CRATE_UI_PRIV_H
#define CRATE_UI_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "app/app_library.h"
#include "app/app_view.h"
#include "base/err.h"
#include "base/str.h"
#include "base/vec.h"
#include "coll/node.h"
#include "ui/keymap.h"
#include "ui/layout.h"
#include "ui/theme.h"

struct app;
struct ui_scrollback;
struct app_mpris;
struct app_remote;
struct rule;
struct mlib_groups;
struct mlib_extra_group;

enum ui_view { UI_VIEW_BROWSER, UI_VIEW_PLAYLIST, UI_VIEW_COLLECTIONS, UI_VIEW_RULES,
	       UI_VIEW_HELP };
#define UI_NVIEWS 4 /* views with their own search text (all but help) */
enum ui_mode { UI_MODE_NORMAL, UI_MODE_SEARCH, UI_MODE_COMMAND, UI_MODE_PROMPT };
enum ui_prompt_kind {
	UI_PROMPT_SAVE, UI_PROMPT_QUIT, UI_PROMPT_REMOVE_COLL,
	/* the rules pane: add (target, then preset), edit (preset, then volume), remove */
	UI_PROMPT_RULE_TARGET, UI_PROMPT_RULE_PRESET, UI_PROMPT_RULE_VOLUME, UI_PROMPT_REMOVE_RULE,
	UI_PROMPT_RATE, /* one key: 0-5 */
};
/* Prompts that take a line of text (the others take y or n). */
#define UI_PROMPT_IS_TEXT(k) ((k) == UI_PROMPT_SAVE || (k) == UI_PROMPT_RULE_TARGET || \
			      (k) == UI_PROMPT_RULE_PRESET || (k) == UI_PROMPT_RULE_VOLUME)

/* Cursor and scroll offset of a list. */
struct ui_list {
	size_t cur, top;
};

/* One row of the artist or album column: a group of result tracks. */
struct ui_group {
	const char *text;   /* borrowed from the index; NULL = "(unknown)" */
	uint32_t count;
	uint32_t year;      /* albums: first track's year, 0 if none */
};

struct ui_groups {
	struct ui_group *g; /* g[0] is "All" */
	size_t n, cap;
	struct ui_list list;
};

/* One row of the collections list. */
struct ui_coll_row {
	char *ns;           /* NULL: All Media; "" : a heading */
	char *name;
	char *label;        /* owned display text */
	bool pshuffle, queue, active;
};

struct ui {
	struct app *app;
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
	bool search_pending;         /* the text changed: apply once the pending keys are read */

	const char *value_sep;       /* between a property's values (display.separator); borrowed */

	/* View 1: results of base AND query, and the columns built from them. */
	struct u32vec results;
	bool results_ordered;
	uint32_t *res_rank;          /* per result position: library rank (UINT32_MAX: none) */
	uint32_t *res_artist;        /* per result position: artist group */
	uint32_t *res_album;         /* per result position: album group (within artist sel.) */
	struct mlib_extra_group *res_extra; /* further artist rows of results, by position */
	size_t nres_extra, res_extra_cap;
	struct ui_groups artists, albums;
	const struct mlib_groups *lg; /* the library's groups (app_library_groups) ... */
	unsigned lg_gen;             /* ... at this index generation */
	uint32_t *lg_local;          /* scratch: library group -> row + 1, all 0 between uses */
	struct u32vec tracks;        /* result positions shown in the track column */
	struct ui_list track_list;
	uint32_t keep_track_id;      /* media id to select again after new results; 0 none */
	int focus;                   /* 0 artist, 1 album, 2 tracks */

	/* View 2: the playlist shown (NULL: the active one) and find marks. */
	char *pl_name;
	struct ui_list pl_list;
	struct bitset pl_match;      /* over entries (positions): rows matching the find */
	bool pl_have_match;
	unsigned pl_match_gen;       /* store generation pl_match was computed at */

	/* View 3 and the sidebar. */
	struct ui_coll_row *colls;
	size_t ncolls;
	struct ui_list coll_list;
	struct bitset coll_match_unused;

	/* View 4: the collection rules (app/rules.h; the list lives in the app). */
	struct ui_list rule_list;
	struct rule *rule_draft;     /* the rule being added or edited (owned), NULL none */
	size_t rule_edit;            /* the rule being edited; SIZE_MAX while adding */

	/* Help view scroll. */
	struct ui_list help_list;

	/* Command line / prompts (bottom row). */
	struct strbuf cmd;
	size_t ccur;
	enum ui_prompt_kind prompt;
	char *prompt_arg;

	/* Message on the bottom row until msg_until. */
	char msg[512];
	bool msg_error;
	struct timespec msg_until;

	char msg_scan[160];          /* scan progress for the status line */
	struct app_scan_progress scan_prog; /* the running scan's latest report */
	bool scan_active;            /* a scan (not an index rebuild) runs: show its progress */
	bool help_errors;            /* the help view lists the last scan's problems */
	char **queued_scan;          /* :scan paths waiting for an automatic scan to end (owned) */
	int nqueued_scan;
	char changes_error[512];     /* the last error looking for others' changes (shown once) */
	/* The browser's selection as owned text while the index is swapped
	 * (browser_keep_selection); NULL text with had = the unknown group. */
	char *keep_artist, *keep_album;
	bool keep_artist_had, keep_album_had, keep_valid;
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
	const char *trace_what;
};

/* ---- ui.c ---- */
/* Switch views; each view has its own search (filter in the browser,
 * find in the playlist and the collections). */
void ui_switch_view(struct ui *ui, enum ui_view v);
/* Show the browser with this search (":search Q", `crate remote search Q`). */
void ui_browser_search(struct ui *ui, const char *text);
void ui_message(struct ui *ui, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
double ui_now_ms(void);

/* ---- draw.c: clipped, sanitised output ---- */
void draw_text(struct ui *ui, int y, int x, int w, const char *s, int attr);
/* Text right-aligned in [x, x+w); returns the columns used. */
int draw_text_right(struct ui *ui, int y, int x, int w, const char *s, int attr);
void draw_fill(int y, int x, int w, int attr);
/* Scroll a list so cur is visible in height rows. */
void ui_list_fix(struct ui_list *l, size_t n, int height);
/* Apply a movement action to a list of n rows shown in height rows;
 * returns true when the cursor moved. */
bool ui_list_move(struct ui_list *l, size_t n, int height, enum ui_action a);

/* ---- pane_browser.c ---- */
void browser_refresh(struct ui *ui);        /* re-evaluate base AND good query */
void browser_rebuild_albums(struct ui *ui); /* after the artist selection changes */
void browser_rebuild_tracks(struct ui *ui); /* after the album selection changes */
void browser_draw(struct ui *ui);
bool browser_key(struct ui *ui, enum ui_action a);
/* Media ids of the selection in the focused column (owned vector). */
void browser_selection(struct ui *ui, struct u32vec *out, size_t *start);
/* Row of the column at screen position (mouse); returns false if none. */
bool browser_click(struct ui *ui, int y, int x, bool dbl);
void browser_free(struct ui *ui);
/* Before anything that may replace the index: copy the selection's texts
 * (they are borrowed from the index). _drop frees the copies. */
void browser_keep_selection(struct ui *ui);
void browser_keep_selection_drop(struct ui *ui);
/* The index was replaced (after a scan, or a change by someone else):
 * rebuild from it, keeping the search, the selected artist and album and
 * the track under the cursor when they still exist (saved by
 * browser_keep_selection; without it the selection falls back to All). */
void browser_index_changed(struct ui *ui);
/* The current view's collection (base AND query), a new reference. */
struct coll_node *browser_view_node(struct ui *ui);

/* ---- pane_search.c ---- */
void search_begin(struct ui *ui);
bool search_key(struct ui *ui, int key);    /* in UI_MODE_SEARCH */
void search_draw(struct ui *ui);            /* the bar (view 1) */
void search_apply(struct ui *ui);           /* parse + evaluate the current text */
void search_flush(struct ui *ui);           /* search_apply if a change is pending */
void search_clear(struct ui *ui);
/* Line editing shared with the command line. Returns true if handled. */
bool edit_key(struct strbuf *b, size_t *cur, int key);

/* ---- pane_coll.c ---- */
void coll_pane_reload(struct ui *ui);
void coll_pane_draw(struct ui *ui, const struct ui_rect *r, bool full);
bool coll_pane_key(struct ui *ui, enum ui_action a);
bool coll_pane_click(struct ui *ui, int y, bool dbl);
void coll_pane_free(struct ui *ui);
void coll_pane_remove_confirmed(struct ui *ui);
void coll_pane_remove_selected(struct ui *ui); /* asks first */

/* ---- pane_rules.c ---- */
void rules_pane_draw(struct ui *ui);
/* a add, e edit, d remove, K/J move, Enter browse the rule's collection,
 * movement and n/N; returns false for actions it leaves to others. */
bool rules_pane_key(struct ui *ui, enum ui_action a);
bool rules_pane_click(struct ui *ui, int y, bool dbl);
/* Enter in one of the rule prompts, with the text typed. */
void rules_pane_prompt_done(struct ui *ui, const char *text);
void rules_pane_remove_confirmed(struct ui *ui);
/* Label of a rule prompt (borrowed, static text). */
const char *rules_pane_prompt_label(struct ui *ui);
void rules_pane_free(struct ui *ui);

/* ---- pane_playlist.c ---- */
void playlist_draw(struct ui *ui);
bool playlist_key(struct ui *ui, enum ui_action a);
bool playlist_click(struct ui *ui, int y, bool dbl);
const char *playlist_shown_name(struct ui *ui);
void playlist_find(struct ui *ui);          /* mark rows matching the query */
void playlist_free(struct ui *ui);

/* ---- pane_status.c ---- */
void status_draw(struct ui *ui);

/* ---- pane_help.c ---- */
void help_draw(struct ui *ui);
bool help_key(struct ui *ui, enum ui_action a);

/* ---- cmdline.c ---- */
void cmdline_begin(struct ui *ui, const char *initial);
bool cmdline_key(struct ui *ui, int key);
void cmdline_draw(struct ui *ui);
void prompt_begin(struct ui *ui, enum ui_prompt_kind kind, const char *arg, const char *initial);
/* Split a command line into words (quotes, backslashes). Owned argv, NULL-terminated. */
char **cmdline_split(const char *line, int *argc, struct crate_err *err);
void cmdline_free_argv(char **argv);
/* Run one command line (":scan DIR", "save NAME", ...). */
void cmdline_run(struct ui *ui, const char *line);

/* ---- actions.c: what keys do, through the app ---- */
void act_play(struct ui *ui);
void act_add(struct ui *ui, bool enqueue);
void act_save(struct ui *ui, const char *name);
void act_remove(struct ui *ui);
void act_player(struct ui *ui, enum ui_action a);
/* Scan paths in the background; `~`, `~user` and `$HOME` are expanded.
 * While crate's own scan runs (the folder watch), it waits for it. */
void act_scan(struct ui *ui, char *const *paths, int n);
/* Start the :scan that waited, once nothing runs (after poll_scan). */
void act_scan_queued(struct ui *ui);
/* The bottom row while a scan runs: a bar, files done / found, files per
 * second and the folder. */
void act_scan_progress_line(struct ui *ui, char *buf, size_t size, size_t *fill, size_t cells);
/* ":smooth [on|off] [DRIFT]": smooth mode of the Party Shuffle shown in
 * view 2 (toggles without an argument). */
void act_smooth(struct ui *ui, const char *onoff, const char *drift);
/* ":analyze [start|pause|resume|stop]": the background analysis. */
void act_analysis(struct ui *ui, const char *what);
/* Take the background analysis' progress (its event fd was readable). */
void ui_poll_analysis(struct ui *ui);
/* "vol N" / "vol +N" / "seek [+-]S": volume and seek from text. */
void act_command(struct ui *ui, const char *line);
/* Rate the selected track (browser, playlist) 0-5; 0 clears. */
void act_rate(struct ui *ui, int stars);
/* The selected track, 0 for none. */
uint32_t act_selected_id(struct ui *ui);
/* :shuffle [off|tracks|albums], :repeat [off|all|one]; no argument cycles. */
void act_modes(struct ui *ui, const char *word, const char *arg);
/* What the player and the scanner are doing, for the status line. */
struct ui_status {
	int state;            /* 0 stopped, 1 playing, 2 paused */
	uint32_t id;          /* 0: none */
	int64_t pos_ms, dur_ms;
	int volume;           /* percent, -1 unknown */
	int repeat;           /* 0 off, 1 all, 2 one */
	bool shuffle;
	char shuffle_mode[16]; /* "off", "tracks", "albums" */
	char context[300];    /* what plays: "Road 3/12", "queue", "browser list 2/40" */
	bool available;       /* playback is built in */
	char rule[128];       /* active collection rule, "" none */
	char stream_title[512]; /* a stream's current ICY title, "" none (untrusted) */
	bool scanning;
	char scan[160];       /* scan progress text */
};
void act_status(struct ui *ui, struct ui_status *st);
/* Player events: the fd to poll (-1 none), handling, and a periodic tick
 * (returns true when the status line should be redrawn). */
void ui_play_init(struct ui *ui);
int ui_play_event_fd(struct ui *ui);
void ui_play_events(struct ui *ui);
bool ui_play_tick(struct ui *ui);
/* The media id that plays (0: none), refreshed once per frame. */
uint32_t act_playing_id(struct ui *ui);
/* Evaluation context over the app's index and store. */
struct coll_eval_ctx;
void ui_eval_ctx(struct ui *ui, struct coll_eval_ctx *ctx);
/* Display text of one property of a track (sanitised later by draw). */
const char *ui_prop(struct ui *ui, uint32_t id, const char *prop, char *buf, size_t size);
/* "  ★★★★" for a track rated 4 ("  ****" in ASCII mode); "" unrated. */
const char *ui_rating_marks(struct ui *ui, uint32_t id, char *buf, size_t size);
/* "Title" or the file name when there is no title tag. */
const char *ui_title(struct ui *ui, uint32_t id, char *buf, size_t size);
bool act_scan_running(struct ui *ui);

#endif
