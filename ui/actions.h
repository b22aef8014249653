/* What keys do, through the app (actions.c): the player, the selection of
 * the view shown (asked of its pane), scanning, ratings, track text. It
 * sits below the panes: panes call it, it reaches them only through their
 * struct ui_pane. */
#ifndef CRATE_UI_ACTIONS_H
#define CRATE_UI_ACTIONS_H

#include "ui/ui_state.h"

/* Enter: what the view shown plays (its pane's play). */
void act_play(struct ui *ui);
void act_add(struct ui *ui, bool enqueue);
/* Save the browser's view as collection name; asks (y/n) before
 * replacing one that exists (act_save_now on yes). */
void act_save(struct ui *ui, const char *name);
void act_save_now(struct ui *ui, const char *name);
void act_remove(struct ui *ui);
void act_player(struct ui *ui, enum ui_action a);
/* Scan paths in the background; `~`, `~user` and `$HOME` are expanded.
 * While crate's own scan runs (the folder watch), it waits for it. */
void act_scan(struct ui *ui, char *const *paths, int n);
/* :scan alone: every root of the library again, as act_scan. */
void act_scan_roots(struct ui *ui);
/* Start the :scan that waited, once nothing runs (after poll_scan). */
void act_scan_queued(struct ui *ui);
/* The bottom row while a scan runs: a bar, files done / found, files per
 * second and the folder. */
void act_scan_progress_line(struct ui *ui, char *buf, size_t size, size_t *fill, size_t cells);
/* ":smooth [on|off] [DRIFT]": smooth mode of the Party Shuffle shown in
 * view 2 (toggles without an argument). */
void act_smooth(struct ui *ui, const char *onoff, const char *drift);
/* ":analyze [start|pause|resume|stop]": the background analysis. */
void act_analysis(struct ui *ui, const char *what, bool more_words);
/* Take the background analysis' progress (its event fd was readable). */
void ui_poll_analysis(struct ui *ui);
/* "vol N" / "vol +N" / "seek [+-]S": volume and seek from text. */
void act_command(struct ui *ui, const char *line);
/* Rate the marked tracks, else the selection 0-5 (0 clears): the selected
 * track, or every track of a group row (an artist or album in the
 * browser), as a and e take them. */
void act_rate(struct ui *ui, int stars);
/* The rating prompt's text for what act_rate would rate, saying how many
 * when several; false when nothing is selected. */
bool act_rate_prompt(struct ui *ui, char *label, size_t size);
/* u: undo the last playlist edit (app_playlist_undo), saying what. */
void act_undo(struct ui *ui);
/* :shuffle [off|tracks|albums], :repeat [off|all|one]; no argument cycles. */
void act_modes(struct ui *ui, const char *word, const char *arg);
/* What the player and the scanner are doing, for the status line. */
struct ui_status {
	int state;            /* 0 stopped, 1 playing, 2 paused */
	uint32_t id;          /* 0: none, or a file that is no library item */
	char path[1024];      /* the file that plays or is paused, "" none (untrusted) */
	int64_t pos_ms, dur_ms;
	int volume;           /* percent, -1 unknown */
	int repeat;           /* 0 off, 1 all, 2 one */
	bool shuffle;
	char shuffle_mode[16]; /* "off", "tracks", "albums" */
	char context[300];    /* what plays: "Road 3/12", "queue", "browser list 2/40" */
	bool available;       /* playback is built in */
	char rule[128];       /* active collection rule, "" none */
	char stream_title[512]; /* a stream's current ICY title, "" none (untrusted) */
	char station[256];      /* a stream's station name (icy-name), "" none (untrusted) */
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
/* "Title" or the file name when there is no title tag. */
const char *ui_title(struct ui *ui, uint32_t id, char *buf, size_t size);
bool act_scan_running(struct ui *ui);

#endif
