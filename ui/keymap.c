#include "ui/keymap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "base/utf8.h"

static const struct {
	const char *name;
	const char *help;
} actions[UA_COUNT] = {
	[UA_NONE] = {"none", "nothing"},
	[UA_UP] = {"up", "move up"},
	[UA_DOWN] = {"down", "move down"},
	[UA_PAGE_UP] = {"page_up", "one page up"},
	[UA_PAGE_DOWN] = {"page_down", "one page down"},
	[UA_TOP] = {"top", "first row"},
	[UA_BOTTOM] = {"bottom", "last row"},
	[UA_COL_PREV] = {"column_prev", "previous column (browser)"},
	[UA_COL_NEXT] = {"column_next", "next column (browser)"},
	[UA_PLAY] = {"play", "play the selection"},
	[UA_PAUSE] = {"pause", "pause / resume"},
	[UA_STOP] = {"stop", "stop"},
	[UA_NEXT] = {"next", "next track"},
	[UA_PREV] = {"prev", "previous track"},
	[UA_SEEK_BACK] = {"seek_back", "seek back 5 s"},
	[UA_SEEK_FWD] = {"seek_forward", "seek forward 5 s"},
	[UA_VOL_UP] = {"vol_up", "volume up 5 %"},
	[UA_VOL_DOWN] = {"vol_down", "volume down 5 %"},
	[UA_REPEAT] = {"repeat", "repeat: off / all / one"},
	[UA_SHUFFLE] = {"shuffle", "shuffle: off / tracks / albums"},
	[UA_SEARCH] = {"search", "search (a query: filters the browser, finds in a list)"},
	[UA_MATCH_NEXT] = {"match_next", "next match"},
	[UA_MATCH_PREV] = {"match_prev", "previous match"},
	[UA_CLEAR_SEARCH] = {"clear_search", "clear the search"},
	[UA_ADD] = {"add", "add the selection to the active playlist; view 4: add a rule"},
	[UA_ENQUEUE] = {"enqueue", "append the selection to the queue; view 4: edit the rule"},
	[UA_RATE] = {"rate", "rate the selected track: then 0-5 (0 clears)"},
	[UA_SAVE] = {"save", "save the current search as a collection"},
	[UA_REMOVE] = {"remove", "remove the selected entry / collection / rule"},
	[UA_VIEW_BROWSER] = {"view_browser", "view 1: library browser"},
	[UA_VIEW_PLAYLIST] = {"view_playlist", "view 2: playlist / Party Shuffle"},
	[UA_VIEW_QUEUE] = {"view_queue", "view 2 with the queue (Playlists/Queue): d removes, K J move"},
	[UA_VIEW_COLLECTIONS] = {"view_collections", "view 3: collections"},
	[UA_VIEW_RULES] = {"view_rules", "view 4: collection rules"},
	[UA_VIEW_FILES] = {"view_files", "view 5: files (the folders of the library)"},
	[UA_PARENT] = {"parent", "the folder above (view 5; h and Left too)"},
	[UA_HIDDEN] = {"hidden", "show / hide hidden files (view 5)"},
	[UA_LIBRARY_ADD] = {"library_add", "scan the selected folder or file into the library (view 5)"},
	[UA_MOVE_UP] = {"move_up", "move the marked entries (or the selected one) up: playlist, queue, rules"},
	[UA_MOVE_DOWN] = {"move_down", "move the marked entries (or the selected one) down"},
	[UA_MARK] = {"mark", "mark / unmark the row and go down (views 1, 2; elsewhere: pause)"},
	[UA_MARK_MATCHES] = {"mark_matches", "mark every row the search (/) matches"},
	[UA_UNMARK_ALL] = {"unmark_all", "clear the marks"},
	[UA_UNDO] = {"undo", "undo the last playlist edit (move, remove, add, insert, enqueue, "
			     "clear, shuffle, sort, import)"},
	[UA_JUMP_PLAYING] = {"jump_playing", "jump to the playing track (its playlist row, else the browser)"},
	[UA_HELP] = {"help", "this help"},
	[UA_COMMAND] = {"command", "command line (:scan DIR, :save NAME, ...)"},
	[UA_REDRAW] = {"redraw", "redraw the screen"},
	[UA_QUIT] = {"quit", "quit"},
};

const char *keymap_action_name(enum ui_action a)
{
	return (unsigned)a < UA_COUNT ? actions[a].name : "none";
}

const char *keymap_action_help(enum ui_action a)
{
	return (unsigned)a < UA_COUNT ? actions[a].help : "";
}

enum ui_action keymap_action_from_name(const char *name)
{
	for (int a = 1; a < UA_COUNT; a++)
		if (strcmp(actions[a].name, name) == 0)
			return (enum ui_action)a;
	return UA_NONE;
}

static const struct {
	const char *name;
	int key;
} named_keys[] = {
	/* The first name of a key is its canonical one. */
	{"Enter", KEY_C_ENTER}, {"Return", KEY_C_ENTER}, {"Tab", KEY_C_TAB},
	{"S-Tab", KEY_C_BTAB}, {"BTab", KEY_C_BTAB}, {"Esc", KEY_C_ESC}, {"Escape", KEY_C_ESC},
	{"Backspace", KEY_C_BACKSPACE}, {"BS", KEY_C_BACKSPACE}, {"Del", KEY_C_DELETE},
	{"Delete", KEY_C_DELETE}, {"Ins", KEY_C_INSERT}, {"Insert", KEY_C_INSERT},
	{"Up", KEY_C_UP}, {"Down", KEY_C_DOWN}, {"Left", KEY_C_LEFT}, {"Right", KEY_C_RIGHT},
	{"PgUp", KEY_C_PGUP}, {"PageUp", KEY_C_PGUP}, {"PgDn", KEY_C_PGDN},
	{"PageDown", KEY_C_PGDN}, {"Home", KEY_C_HOME}, {"End", KEY_C_END},
	{"Space", ' '}, {"Hash", '#'}, {"Plus", '+'}, {"Minus", '-'},
};

int keymap_key_parse(const char *name)
{
	if (!name || !*name)
		return -1;
	for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
		if (strcasecmp(name, named_keys[i].name) == 0)
			return named_keys[i].key;
	size_t len = strlen(name);
	/* Function keys F1..F12 */
	if ((name[0] == 'F' || name[0] == 'f') && len >= 2 && len <= 3) {
		char *end;
		long n = strtol(name + 1, &end, 10);
		if (*end == '\0' && n >= 1 && n <= 12)
			return KEY_C_F1 + (int)n - 1;
	}
	/* Ctrl-letter: C-x or ^X */
	if (len == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-') {
		char c = name[2];
		if (c >= 'a' && c <= 'z')
			return c - 'a' + 1;
		if (c >= 'A' && c <= 'Z')
			return c - 'A' + 1;
		return -1;
	}
	if (len == 2 && name[0] == '^') {
		char c = name[1];
		if (c >= 'a' && c <= 'z')
			return c - 'a' + 1;
		if (c >= 'A' && c <= 'Z')
			return c - 'A' + 1;
		return -1;
	}
	/* One printable character (any script). */
	uint32_t cp;
	size_t used = utf8_decode(name, len, &cp);
	if (used == len && cp != UTF8_REPLACEMENT && !utf8_is_control(cp) && cp != ' ')
		return (int)cp;
	return -1;
}

const char *keymap_key_name(int key, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++) {
		if (named_keys[i].key == key) {
			/* Printable characters keep their own face (Hash/Plus are for the config file). */
			if (key < 0x80 && key != ' ')
				break;
			snprintf(buf, size, "%s", named_keys[i].name);
			return buf;
		}
	}
	if (key >= KEY_C_F1 && key <= KEY_C_F12) {
		snprintf(buf, size, "F%d", key - KEY_C_F1 + 1);
	} else if (key >= 1 && key <= 26) {
		snprintf(buf, size, "C-%c", 'a' + key - 1);
	} else if (key > ' ' && key < 0x110000) {
		char enc[5];
		size_t n = utf8_encode((uint32_t)key, enc);
		enc[n] = '\0';
		snprintf(buf, size, "%s", enc);
	} else {
		snprintf(buf, size, "?");
	}
	return buf;
}

void keymap_unbind_action(struct keymap *km, enum ui_action a)
{
	size_t j = 0;
	for (size_t i = 0; i < km->n; i++)
		if (km->b[i].action != a)
			km->b[j++] = km->b[i];
	km->n = j;
}

void keymap_bind(struct keymap *km, int key, enum ui_action a)
{
	for (size_t i = 0; i < km->n; i++) {
		if (km->b[i].key == key) {
			km->b[i].action = a;
			return;
		}
	}
	if (km->n < KEYMAP_MAX_BINDINGS) {
		km->b[km->n].key = key;
		km->b[km->n].action = a;
		km->n++;
	}
}

enum ui_action keymap_lookup(const struct keymap *km, int key)
{
	for (size_t i = 0; i < km->n; i++)
		if (km->b[i].key == key)
			return km->b[i].action;
	return UA_NONE;
}

void keymap_describe(const struct keymap *km, enum ui_action a, char *buf, size_t size)
{
	size_t used = 0;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < km->n; i++) {
		if (km->b[i].action != a)
			continue;
		char name[32];
		keymap_key_name(km->b[i].key, name, sizeof name);
		int w = snprintf(buf + used, size - used, "%s%s", used ? " " : "", name);
		if (w < 0 || (size_t)w >= size - used)
			break;
		used += (size_t)w;
	}
}

static int first_key(const struct keymap *km, enum ui_action a)
{
	for (size_t i = 0; i < km->n; i++)
		if (km->b[i].action == a)
			return km->b[i].key;
	return -1;
}

/* The keys of views 1-5: "1-5" while they are five characters in a row,
 * else the bound ones apart ("F1 F2 3"); "" when none is bound. */
static void views_keys(const struct keymap *km, char *buf, size_t size)
{
	static const enum ui_action views[] = {UA_VIEW_BROWSER, UA_VIEW_PLAYLIST,
					       UA_VIEW_COLLECTIONS, UA_VIEW_RULES, UA_VIEW_FILES};
	int k[5];
	bool run = true;
	for (int i = 0; i < 5; i++) {
		k[i] = first_key(km, views[i]);
		run = run && k[i] > ' ' && k[i] < 0x7f && (i == 0 || k[i] == k[i - 1] + 1);
	}
	if (run) {
		snprintf(buf, size, "%c-%c", k[0], k[4]);
		return;
	}
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < 5 && used < size; i++) {
		char name[32];
		if (k[i] >= 0)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " " : "",
						 keymap_key_name(k[i], name, sizeof name));
	}
}

/* The keys named by {action} at *p (past the brace) into out: false when
 * the action has none. *p moves past the closing brace. */
static bool expand_one(const struct keymap *km, const char **p, char *out, size_t size)
{
	const char *end = strchr(*p, '}');
	size_t n = end ? (size_t)(end - *p) : strlen(*p);
	char name[40];
	snprintf(name, sizeof name, "%.*s", (int)n, *p);
	*p += n + (end != NULL);
	if (strcmp(name, "views") == 0) {
		views_keys(km, out, size);
		return out[0] != '\0';
	}
	enum ui_action a = keymap_action_from_name(name);
	if (a == UA_NONE) { /* a typo in a text: seen, not taken for unbound */
		snprintf(out, size, "{%s}", name);
		return true;
	}
	int key = first_key(km, a);
	if (key < 0)
		return false;
	keymap_key_name(key, out, size);
	return true;
}

void keymap_expand(const struct keymap *km, const char *text, bool hint, char *buf, size_t size)
{
	struct strbuf out, item;
	strbuf_init(&out, 128);
	strbuf_init(&item, 64);
	bool item_ok = true;
	for (const char *p = text;;) {
		bool gap = hint && p[0] == ' ' && p[1] == ' ';
		if (!*p || gap) { /* an item ends: kept when all its keys are bound */
			if (item_ok && item.len)
				strbuf_addf(&out, "%s%s", out.len ? "  " : "", item.buf);
			strbuf_reset(&item);
			item_ok = true;
			if (!*p)
				break;
			p += strspn(p, " ");
		} else if (*p == '{') {
			char keys[64];
			p++;
			if (expand_one(km, &p, keys, sizeof keys))
				strbuf_adds(&item, keys);
			else if (hint)
				item_ok = false;
			else
				strbuf_adds(&item, "(unbound)");
		} else {
			strbuf_addc(&item, *p++);
		}
	}
	snprintf(buf, size, "%s", out.buf ? out.buf : "");
	strbuf_free(&out);
	strbuf_free(&item);
}

void keymap_init_default(struct keymap *km)
{
	static const struct {
		const char *keys;
		enum ui_action a;
	} defs[] = {
		{"Up k", UA_UP}, {"Down j", UA_DOWN}, {"PgUp C-b", UA_PAGE_UP},
		{"PgDn C-f", UA_PAGE_DOWN}, {"g Home", UA_TOP}, {"G End", UA_BOTTOM},
		{"h S-Tab", UA_COL_PREV}, {"l Tab", UA_COL_NEXT},
		{"Enter", UA_PLAY}, {"c", UA_PAUSE}, {"v", UA_STOP},
		{"b", UA_NEXT}, {"z", UA_PREV},
		{"Left", UA_SEEK_BACK}, {"Right", UA_SEEK_FWD},
		{"+ =", UA_VOL_UP}, {"-", UA_VOL_DOWN},
		{"r", UA_REPEAT}, {"S", UA_SHUFFLE},
		{"/", UA_SEARCH}, {"n", UA_MATCH_NEXT}, {"N", UA_MATCH_PREV}, {"Esc", UA_CLEAR_SEARCH},
		{"a", UA_ADD}, {"e", UA_ENQUEUE}, {"s", UA_SAVE}, {"d Del", UA_REMOVE},
		{"*", UA_RATE},
		{"1", UA_VIEW_BROWSER}, {"2", UA_VIEW_PLAYLIST}, {"Q", UA_VIEW_QUEUE}, {"3", UA_VIEW_COLLECTIONS},
		{"4", UA_VIEW_RULES}, {"K P", UA_MOVE_UP}, {"J p", UA_MOVE_DOWN},
		{"5", UA_VIEW_FILES}, {"Backspace", UA_PARENT}, {".", UA_HIDDEN}, {"A", UA_LIBRARY_ADD},
		{"Space", UA_MARK}, {"m", UA_MARK_MATCHES}, {"M", UA_UNMARK_ALL}, {"u", UA_UNDO},
		{"i", UA_JUMP_PLAYING},
		{"? F1", UA_HELP}, {":", UA_COMMAND}, {"C-l", UA_REDRAW}, {"q", UA_QUIT},
	};
	km->n = 0;
	for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
		char tmp[64];
		snprintf(tmp, sizeof tmp, "%s", defs[i].keys);
		for (char *save = NULL, *t = strtok_r(tmp, " ", &save); t; t = strtok_r(NULL, " ", &save))
			keymap_bind(km, keymap_key_parse(t), defs[i].a);
	}
}

struct apply_ctx {
	struct keymap *km;
	const struct config *cfg;
	struct config_problems pr; /* every bad line, not only the first */
};

static void apply_one(void *ud, const char *key, const char *value)
{
	struct apply_ctx *c = ud;
	const char *name = key + strlen("keys.");
	enum ui_action a = keymap_action_from_name(name);
	if (a == UA_NONE && strcmp(name, "none") != 0) {
		config_problem(&c->pr, config_line(c->cfg, key), "[keys]: unknown action '%s'", name);
		return;
	}
	/* Parse every key first, so a typo leaves the default binding in place. */
	int keys[16];
	size_t n = 0;
	char *tmp = xstrdup(value);
	for (char *save = NULL, *t = strtok_r(tmp, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		int k = keymap_key_parse(t);
		if (k < 0) {
			config_problem(&c->pr, config_line(c->cfg, key), "[keys] %s: unknown key name '%s'",
				       name, t);
			free(tmp);
			return;
		}
		if (n < sizeof keys / sizeof keys[0])
			keys[n++] = k;
	}
	free(tmp);
	if (a != UA_NONE)
		keymap_unbind_action(c->km, a);
	for (size_t i = 0; i < n; i++)
		keymap_bind(c->km, keys[i], a);
}

int keymap_apply_config(struct keymap *km, const struct config *cfg, struct crate_err *err)
{
	struct apply_ctx c = {.km = km, .cfg = cfg};
	config_problems_init(&c.pr, config_path(cfg));
	if (cfg)
		config_each(cfg, "keys.", apply_one, &c);
	/* `none = x` bindings are left in the table as UA_NONE: drop them. */
	keymap_unbind_action(km, UA_NONE);
	return config_problems_finish(&c.pr, err);
}
