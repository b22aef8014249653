/* Equalizer presets: the built-in ones and the user's from the config file.
 *
 *   [eq.preset.mine]
 *   bands = -2, 0, 1, 3, 3, 1, 0, -1, -2, -3   # dB at 31 Hz .. 16 kHz
 *   preamp = -3                                # dB, optional (default 0)
 *
 * Names match ignoring case, with ' ', '_' and '-' alike ("Bass Boost" =
 * "bass-boost"). A user preset with a built-in's name replaces it. */
#ifndef CRATE_PLAY_PRESETS_H
#define CRATE_PLAY_PRESETS_H

#include <stddef.h>

#include "base/config.h"
#include "base/err.h"
#include "play/eq.h"

/* Built-in names, in display order: flat, rock, jazz, classical, vocal,
 * bass-boost, treble-boost, vinyl. */
extern const char *const eq_builtin_names[];
extern const size_t eq_builtin_count;

/* The settings of preset name (cfg may be NULL: built-ins only).
 * CRATE_ERR_NOTFOUND: "equalizer preset 'x' is not defined (known: ...)";
 * CRATE_ERR_PARSE: a malformed user preset, naming its config key. */
int eq_preset_get(const struct config *cfg, const char *name, struct eq_settings *out,
		  struct crate_err *err);

/* Every preset name: built-ins, then user presets not shadowing one. The
 * array and strings are owned by the caller (free each, then the array). */
size_t eq_preset_list(const struct config *cfg, char ***names);

/* Parse "g1, g2, ..., g10" (dB, each within +-12) into out->band_db. */
int eq_preset_parse_bands(const char *text, struct eq_settings *out, struct crate_err *err);

/* Same name under the matching rule above. */
bool eq_preset_name_eq(const char *a, const char *b);

#endif
