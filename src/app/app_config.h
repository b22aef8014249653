/* The configuration options the file may set, with their ranges and
 * defaults (one table: the file is checked against it at open, `:set`
 * changes an option while crate runs with the same names and checks). */
#ifndef CRATE_APP_APP_CONFIG_H
#define CRATE_APP_APP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/config.h"

struct app;

/* The table, in the order config.example lists the options. */
const struct config_option *app_config_options(size_t *n);
/* The option called key, or NULL. */
const struct config_option *app_config_option(const char *key);
/* Whether value suits o: config_value_ok and, for format.* and
 * display.glyph_*, their syntax (false with why: "column 4: ..."). */
bool app_config_value_ok(const struct config_option *o, const char *value, char *why,
			 size_t whysize);
/* Check the loaded file against the table (app_open). */
int app_config_check(struct app *app, struct crate_err *err);
/* The value in effect: the file's or `:set`'s, else the default ("" none). */
const char *app_config_value(struct app *app, const char *key);
/* Set key to value while crate runs, as if the file said so, and apply it
 * to what plays (volume, repeat, shuffle, ReplayGain; other options are
 * read where they are used). Unknown keys, values out of range and options
 * read only at start (CONFIG_AT_START) are -1 with err saying so; the file
 * is not rewritten. Front ends apply their own options (layout.*) after. */
int app_config_set(struct app *app, const char *key, const char *value, struct crate_err *err);

#endif
