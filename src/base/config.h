/* The configuration file: `[section]` headers and `key = value` lines,
 * `#` comments. Keys are looked up as "section.key". Every option has a
 * default at its point of use, so a missing file is not an error. */
#ifndef CRATE_BASE_CONFIG_H
#define CRATE_BASE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

struct config;

/* Load path (NULL: $XDG_CONFIG_HOME/crate/config, else ~/.config/crate/config).
 * A missing file gives an empty config; a malformed line is an error naming
 * file and line. *out is owned by the caller (config_free). */
int config_load(const char *path, struct config **out, struct crate_err *err);
struct config *config_new_empty(void);
void config_free(struct config *cfg);

/* Set (or replace) a value, e.g. from the command line or a test. */
void config_set(struct config *cfg, const char *key, const char *value);
const char *config_get(const struct config *cfg, const char *key, const char *def);
long config_get_int(const struct config *cfg, const char *key, long def);
bool config_get_bool(const struct config *cfg, const char *key, bool def);
/* Visit every key that starts with prefix ("keys." -> all key bindings), in file order. */
void config_each(const struct config *cfg, const char *prefix,
		 void (*fn)(void *ud, const char *key, const char *value), void *ud);

/* $XDG_DATA_HOME/crate (else ~/.local/share/crate), created if missing.
 * Returns an owned string. */
char *config_data_dir(struct crate_err *err);
/* Create a directory and its parents (mode 0700 for new ones). */
int config_mkdirs(const char *path, struct crate_err *err);

#endif
