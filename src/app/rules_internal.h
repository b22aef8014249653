/* What rules.c (the list, its table, matching) and rules_play.c (the
 * playing track's rule and its engine stage) share: the list's layout.
 * Private to src/app/rules*.c; everyone else goes through rules.h. */
#ifndef CRATE_APP_RULES_INTERNAL_H
#define CRATE_APP_RULES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "app/rules.h"

struct coll_node;
struct eq_chain;

struct rules {
	struct mlib_db *db;       /* borrowed */
	struct rule_entry *v;
	size_t n;
	char *active;             /* target of the playing track's rule; owned */
	struct eq_chain *chain;   /* shared by the tracks' stages; NULL until playback */
	unsigned generation;      /* counts changes of the list (rules_generation) */
};

struct rule_entry {
	struct rule r;
	char *target;            /* "ns/name" or the query; owned */
	struct coll_node *node;  /* parsed on first use; NULL until then or on failure */
	bool parsed;
	char why[256];           /* parse failure */
	bool playing;            /* applied to the playing track (follows the rule when
				  * the list is edited) */
};

/* Drop one reference to the stream's equalizer (rules_play.c); NULL is fine. */
void rules_eq_chain_unref(struct eq_chain *c);

#endif
