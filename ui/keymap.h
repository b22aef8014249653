/* The key map: actions, key names and bindings. Every binding can be
 * changed in the config file's [keys] section (`play = Enter`, several keys
 * separated by spaces: `pause = Space c`). Pure code: no curses calls, so
 * it is unit-tested (tests/unit/test_ui_keymap.c). */
#ifndef CRATE_UI_KEYMAP_H
#define CRATE_UI_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/config.h"
#include "base/err.h"

/* Key codes: printable characters are their Unicode code point; special
 * keys live above the Unicode range; Ctrl-letters are 1..26. */
enum {
	KEY_C_ENTER = 0x110000,
	KEY_C_TAB,
	KEY_C_BTAB,
	KEY_C_ESC,
	KEY_C_BACKSPACE,
	KEY_C_DELETE,
	KEY_C_INSERT,
	KEY_C_UP,
	KEY_C_DOWN,
	KEY_C_LEFT,
	KEY_C_RIGHT,
	KEY_C_PGUP,
	KEY_C_PGDN,
	KEY_C_HOME,
	KEY_C_END,
	KEY_C_F1,          /* F1..F12 follow */
	KEY_C_F12 = KEY_C_F1 + 11,
	KEY_C_MAX,
};

enum ui_action {
	UA_NONE,
	UA_UP, UA_DOWN, UA_PAGE_UP, UA_PAGE_DOWN, UA_TOP, UA_BOTTOM,
	UA_COL_PREV, UA_COL_NEXT,
	UA_PLAY, UA_PAUSE, UA_STOP, UA_NEXT, UA_PREV,
	UA_SEEK_BACK, UA_SEEK_FWD, UA_VOL_UP, UA_VOL_DOWN,
	UA_REPEAT, UA_SHUFFLE,
	UA_SEARCH, UA_MATCH_NEXT, UA_MATCH_PREV, UA_CLEAR_SEARCH,
	UA_ADD, UA_ENQUEUE, UA_SAVE, UA_REMOVE, UA_RATE,
	UA_VIEW_BROWSER, UA_VIEW_PLAYLIST, UA_VIEW_QUEUE, UA_VIEW_COLLECTIONS, UA_VIEW_RULES,
	UA_VIEW_FILES,
	UA_MOVE_UP, UA_MOVE_DOWN,
	UA_PARENT, UA_HIDDEN, UA_LIBRARY_ADD, /* view 5 */
	UA_MARK, UA_MARK_MATCHES, UA_UNMARK_ALL, UA_UNDO,
	UA_JUMP_PLAYING,
	UA_HELP, UA_COMMAND, UA_REDRAW, UA_QUIT,
	UA_COUNT
};

/* "play", "vol_up": the names used in [keys]. */
const char *keymap_action_name(enum ui_action a);
/* One-line description for the help view. */
const char *keymap_action_help(enum ui_action a);
/* UA_NONE when unknown. */
enum ui_action keymap_action_from_name(const char *name);

/* Parse one key name ("Enter", "C-l", "^L", "PgDn", "F5", "x", "Space",
 * "é"): returns the key code, or -1 when the name is not a key. */
int keymap_key_parse(const char *name);
/* Canonical name of a key into buf (always NUL-terminated). */
const char *keymap_key_name(int key, char *buf, size_t size);

#define KEYMAP_MAX_BINDINGS 256

struct keymap {
	struct { int key; enum ui_action action; } b[KEYMAP_MAX_BINDINGS];
	size_t n;
};

/* The default bindings (documented in README and crate(1)). */
void keymap_init_default(struct keymap *km);
/* Apply the config's [keys] section: each `action = KEY...` replaces that
 * action's default keys (and takes the keys away from other actions).
 * Unknown actions or key names are reported in *err (first problem only)
 * and skipped; the rest still applies. Returns 0 or -1. */
int keymap_apply_config(struct keymap *km, const struct config *cfg, struct crate_err *err);
/* Bind (replacing whatever key was bound to) / unbind. */
void keymap_bind(struct keymap *km, int key, enum ui_action a);
void keymap_unbind_action(struct keymap *km, enum ui_action a);
enum ui_action keymap_lookup(const struct keymap *km, int key);
/* The keys of one action as text ("Space c"), for the help view. */
void keymap_describe(const struct keymap *km, enum ui_action a, char *buf, size_t size);
/* Text that names keys, as bound: "{help} help  {quit} quit" -> "? help  q
 * quit" (an action's first key); "{views}" is the keys of views 1-5 ("1-5"
 * while they run in a row). hint: the text is items apart by two spaces
 * and an item naming an unbound action is left out; else such a key
 * reads "(unbound)". Always NUL-terminated. */
void keymap_expand(const struct keymap *km, const char *text, bool hint, char *buf, size_t size);

#endif
