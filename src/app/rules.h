/* Collection rules: playback settings that follow the playing track's
 * collection ("Jazz Vinyl rips" -> the vinyl equalizer).
 *
 * An ordered list of rules, each a collection (a saved collection by name,
 * or a query text) and the settings for its tracks: equalizer preset,
 * volume offset in dB, ReplayGain mode, and whether Party Shuffle may pick
 * from it. When a track starts, the first active rule whose collection
 * contains it applies; no match = defaults (no equalizer, no offset, the
 * engine's ReplayGain mode).
 *
 * Rules live in the library database (table `rules`, component "rules").
 * A rule on a saved collection stores its name; renaming the collection
 * renames it in the rule (rules_on_rename), removing it is refused while a
 * rule uses it unless forced, which drops the rule (rules_on_remove). A rule
 * whose collection is gone anyway (removed by another program) is inactive:
 * listed with the reason, skipped when matching.
 *
 * The main thread owns all of this; the engine thread sees only the
 * play_dsp stages built by rules_track_prepare. */
#ifndef CRATE_APP_RULES_H
#define CRATE_APP_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/err.h"
#include "play/eq.h"

struct app;
struct mlib_db;
struct mlib_index;
struct coll_store;
struct engine_track;

/* RULE_RG_DEFAULT: leave the engine's mode; else enum play_rg_mode. */
enum { RULE_RG_DEFAULT = -1 };

struct rule {
	char *ns, *name;  /* a saved collection (owned), or both NULL */
	char *query;      /* a query text (owned), or NULL */
	char *eq;         /* equalizer preset (owned), NULL = none */
	double volume_db; /* -24..24 */
	int replaygain;   /* RULE_RG_DEFAULT or a play_rg_mode */
	bool pshuffle;    /* Party Shuffle may pick from this collection */
};

struct rules;

/* Load the rules from db (creating the table on first use). The list
 * borrows db. *out is owned by the caller (rules_free). */
int rules_open(struct mlib_db *db, struct rules **out, struct crate_err *err);
void rules_free(struct rules *rs);
/* Read the list again (another program changed it): *changed says
 * whether it differs from the one in memory, which is then replaced
 * (pointers from rules_get/rules_target die). */
int rules_reload(struct rules *rs, bool *changed, struct crate_err *err);

size_t rules_count(const struct rules *rs);
/* A number that changes whenever the list does (an edit, or a reload that
 * found another program's change): a track prepared under another number
 * may have been given settings that no longer hold. */
unsigned rules_generation(const struct rules *rs);
/* Rule i (0-based), borrowed until the next change; NULL when out of range. */
const struct rule *rules_get(const struct rules *rs, size_t i);
/* What rule i applies to, for lists: "Collections/Jazz" or the query
 * text. Borrowed. Untrusted text: sanitise before a terminal. */
const char *rules_target(const struct rules *rs, size_t i);

/* Edits, each persisted in one transaction. Positions are 0-based; at ==
 * rules_count() (or SIZE_MAX) appends. r is copied. */
int rules_add(struct rules *rs, size_t at, const struct rule *r, struct crate_err *err);
int rules_remove(struct rules *rs, size_t i, struct crate_err *err);
int rules_move(struct rules *rs, size_t from, size_t to, struct crate_err *err);
/* Replace rule i's collection and settings with r (copied; r may be
 * rules_get(rs, i)). The rule keeps its place. */
int rules_set(struct rules *rs, size_t i, const struct rule *r, struct crate_err *err);

/* A rule from command-line words: target is a saved collection's name
 * ("Jazz", "Playlists/Road Trip") when one exists, else a query with a
 * field or an operator ("genre:Jazz", "year<1960"), parsed and checked now
 * (errors give the column). Bare words that name no collection ("Nope",
 * a mistyped name) are refused, never taken as a word search:
 * rule_from_query says "a query" outright. Fills *out (free with
 * rule_clear); settings at their defaults (no EQ, 0 dB, default RG,
 * pshuffle on). */
int rule_from_target(struct coll_store *store, const char *target, struct rule *out,
		     struct crate_err *err);
int rule_from_query(struct coll_store *store, const char *query, struct rule *out,
		    struct crate_err *err);
void rule_clear(struct rule *r);
/* Whether a and b are the same rule: target and every setting. */
bool rule_same(const struct rule *a, const struct rule *b);
/* "off"/"track"/"album" -> play_rg_mode, "default" -> RULE_RG_DEFAULT; -2 if unknown. */
int rule_rg_parse(const char *s);
/* The reverse; "default" for RULE_RG_DEFAULT. */
const char *rule_rg_name(int mode);
/* A volume offset as typed: "3", "+3", "-2.5dB", "+1.5 dB"; false unless
 * a number within -24..24 (the command line's --volume and the rules pane). */
bool rule_volume_parse(const char *s, double *out);
/* Set r->eq to preset name after checking it exists (eq_preset_get, so the
 * error lists the known presets); NULL, "" or "none" clear it. */
int rule_eq_set(struct rule *r, const struct config *cfg, const char *name,
		struct crate_err *err);

/* A rule's state for lists (`rule list`, the rules pane): why says why it
 * is inactive (rules_is_active; or "no collection store" when store is
 * NULL), or, for RULE_NO_EQ, why its preset cannot be loaded (the rest of
 * the rule still applies). */
enum rule_state { RULE_ACTIVE, RULE_INACTIVE, RULE_NO_EQ };
enum rule_state rules_state(struct rules *rs, size_t i, struct coll_store *store,
			    const struct config *cfg, char *why, size_t whysize);

/* Whether rule i can match: false with the reason in why (e.g. "collection
 * 'Collections/Jazz' was removed") when its collection is missing or its
 * query no longer parses. */
bool rules_is_active(struct rules *rs, size_t i, struct coll_store *store, char *why,
		     size_t whysize);

/* The first active rule containing media id: its index, or -1 (none).
 * Inactive rules are skipped; a rule whose evaluation fails is skipped too
 * (its reason is in rules_is_active's why). */
int rules_match(struct rules *rs, const struct mlib_index *index, struct coll_store *store,
		uint32_t id);

/* The store renamed ns/old to new: rules naming it follow, and queries
 * referring to it (in:old) are rewritten. Persisted. */
int rules_on_rename(struct rules *rs, const char *ns, const char *old_name,
		    const char *new_name, struct crate_err *err);
/* Call before the store removes ns/name: with rules using it (by name or
 * in a query) refuses (CRATE_ERR_REFUSED, the message names the rule: "rule
 * 2 uses 'Collections/Jazz' (remove it, or use --force to drop the rule)"),
 * unless force, which drops those rules. */
int rules_on_remove(struct rules *rs, const char *ns, const char *name, bool force,
		    struct crate_err *err);

/* ---- what applies to a track ---- */

struct rule_settings {
	int rule;                /* index of the rule that applied, -1 = defaults */
	char eq_name[64];        /* preset in effect; "" = none */
	struct eq_settings eq;   /* flat when none */
	double volume_db;
	int replaygain;          /* RULE_RG_DEFAULT or a play_rg_mode */
	bool pshuffle;
	char msg[256];           /* "" or why a part fell back to defaults
				  * (e.g. a preset missing from the config) */
};

/* Compute the settings for a track from explicit parts (tests, tools). */
void rules_settings_compute(struct rules *rs, const struct mlib_index *index,
			    struct coll_store *store, const struct config *cfg, uint32_t id,
			    struct rule_settings *out);

/* ---- application level (app->rules, loaded on first use) ---- */

/* The app's rules, loaded from app->db on first use; NULL with *err. */
struct rules *app_rules(struct app *app, struct crate_err *err);
/* The settings for media id under the app's rules (defaults when rules
 * cannot be loaded: the reason is in out->msg). */
void rules_settings_for(struct app *app, uint32_t id, struct rule_settings *out);

/* The playback hook: call for every track handed to the engine (play and
 * set_next), after filling t->path/id/rg. Sets t->dsp to the track's stage
 * (equalizer, volume offset, and ReplayGain when the rule sets a mode: then
 * t->rg is cleared so the engine does not apply it twice). A track under no
 * rule gets a bypassing stage (bit-exact) that only keeps the history the
 * next track's equalizer warms up from. rg_preamp_db: playback's
 * ReplayGain pre-amp. */
void rules_track_prepare(struct app *app, struct engine_track *t, double rg_preamp_db);

/* Party Shuffle: may it pick media id? False when the first rule
 * containing id was added with --no-pshuffle. */
bool app_rules_pshuffle_allows(struct app *app, uint32_t id);

/* For the collection commands (app_coll): call after coll_store_rename
 * succeeded, and before coll_store_remove (a refusal names the rule; force
 * drops the rules using the collection). No-ops when there are no rules. */
int app_rules_coll_renamed(struct app *app, const char *ns, const char *old_name,
			   const char *new_name, struct crate_err *err);
int app_rules_coll_removing(struct app *app, const char *ns, const char *name, bool force,
			    struct crate_err *err);

/* Call when the engine reports STARTED(id) (or 0 when playback stops): the
 * active rule follows the playing track. */
void app_rules_track_started(struct app *app, uint32_t id);
/* "Jazz Vinyl rips" (the rule's collection, or its query text) while the
 * playing track is under a rule; NULL otherwise. Borrowed until the next
 * call into rules. Untrusted text: sanitise before the terminal. */
const char *app_rules_active_name(struct app *app);
/* The index of that rule (it follows the rule through moves and
 * insertions; -1 when none, or once the rule is removed). */
int app_rules_active_index(struct app *app);

#endif
