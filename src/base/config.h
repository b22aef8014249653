/* The configuration file: `[section]` headers and `key = value` lines,
 * `#` comments. Keys are looked up as "section.key". Every option has a
 * default at its point of use, so a missing file is not an error. */
#ifndef CRATE_BASE_CONFIG_H
#define CRATE_BASE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/str.h"

struct config;

/* Load path (NULL: $XDG_CONFIG_HOME/crate/config, else ~/.config/crate/config).
 * A missing file gives an empty config; a malformed line is an error naming
 * file and line. *out is owned by the caller (config_free). */
int config_load(const char *path, struct config **out, struct crate_err *err);
struct config *config_new_empty(void);
void config_free(struct config *cfg);

/* The line a key was read from (0: set by the program or absent), and the
 * file ("config" when none was read), for messages. */
int config_line(const struct config *cfg, const char *key);
const char *config_path(const struct config *cfg);

/* Set (or replace) a value, e.g. from the command line or a test. */
void config_set(struct config *cfg, const char *key, const char *value);
const char *config_get(const struct config *cfg, const char *key, const char *def);
long config_get_int(const struct config *cfg, const char *key, long def);
bool config_get_bool(const struct config *cfg, const char *key, bool def);
/* What a known option may hold: config_check reports every value out of
 * its range, each with its line. Keys not listed are left to the modules
 * that read them (key bindings, colours, equalizer presets). */
enum config_kind { CONFIG_INT, CONFIG_NUMBER, CONFIG_BOOL, CONFIG_CHOICE, CONFIG_STRING };
struct config_option {
	const char *key;       /* "playback.volume" */
	enum config_kind kind;
	double min, max;       /* INT, NUMBER */
	const char *choices;   /* CHOICE: "off|track|album" */
	const char *def;       /* the default, as text (for `:set`); NULL: none */
	unsigned flags;        /* CONFIG_AT_START */
};
enum {
	CONFIG_AT_START = 1 << 0, /* read once at start (or when the device opens):
				   * `:set` cannot change it while crate runs */
};
/* Whether value suits o (what config_check asks of each line); false with
 * why ("must be a whole number in 0..100") otherwise. */
bool config_value_ok(const struct config_option *o, const char *value, char *why, size_t whysize);
/* 0, or -1 with err listing every problem ("PATH: 2 problems: line 3:
 * ...; line 9: ...", or "PATH:3: ..." for one). */
int config_check(const struct config *cfg, const struct config_option *opts, size_t nopts,
		 struct crate_err *err);

/* Collecting problems with their lines, for config_load, config_check and
 * modules checking their own keys. finish frees pr and, when there were
 * problems, sets err (and returns -1). */
struct config_problems {
	size_t count;
	const char *path; /* borrowed, for messages */
	struct strbuf text; /* "line 3: ...; line 9: ..." */
	int first_line;
	char first[480]; /* a message of 160 bytes, each maybe U+FFFD (3) */
};
void config_problems_init(struct config_problems *pr, const char *path);
void config_problem(struct config_problems *pr, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int config_problems_finish(struct config_problems *pr, struct crate_err *err);

/* Visit every key that starts with prefix ("keys." -> all key bindings), in file order. */
void config_each(const struct config *cfg, const char *prefix,
		 void (*fn)(void *ud, const char *key, const char *value), void *ud);

/* $XDG_DATA_HOME/crate (else ~/.local/share/crate), created if missing.
 * Returns an owned string. */
char *config_data_dir(struct crate_err *err);
/* Create a directory and its parents (mode 0700 for new ones). */
int config_mkdirs(const char *path, struct crate_err *err);

#endif
