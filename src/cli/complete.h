/* Completion of a command line (the interface's ':' line) from the
 * command table's declarations: command names, subcommands ("coll s" ->
 * "coll save"), options ("--json"), option values and arguments by what
 * the usage calls them (NAME in the coll commands: a collection; PLAYLIST,
 * PRESET, FIELDS, OPTION, PATH/DIR/FILE; "on|off" choices). Names come from
 * a provider (complete_names.c answers from an open app), never values
 * from the library: a million titles are not a completion list. */
#ifndef CRATE_CLI_COMPLETE_H
#define CRATE_CLI_COMPLETE_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"

enum cli_names {
	CLI_NAMES_COLLECTION, /* saved collections */
	CLI_NAMES_PLAYLIST,   /* saved playlists */
	CLI_NAMES_FIELD,      /* properties of the library */
	CLI_NAMES_PRESET,     /* equalizer presets */
	CLI_NAMES_OPTION,     /* configuration options */
	CLI_NAMES_OPTION_VALUE, /* the choices of the option named arg */
	CLI_NAMES_ROOT,       /* the library's roots (scanned folders) */
};

/* Hands every name of a kind to add (the engine filters them). */
struct cli_names_src {
	void (*names)(void *ud, enum cli_names kind, const char *arg,
		      void (*add)(void *acc, const char *name), void *acc);
	void *ud;
};

struct cli_completion {
	size_t start;  /* where the word being completed starts in the line */
	char **cand;   /* matching words, unquoted, sorted, unique (owned) */
	size_t n, cap;
	char *common;  /* their longest common prefix (owned, "" when none) */
	bool no_space; /* a directory or "field:": typing goes on in the word */
	bool in_quote; /* the word was opened with a quote at start */
	bool raw;      /* the whole line is one name: never quoted (a prompt) */
	bool paths;    /* files and folders: a space is escaped (My\ Music/),
			* so that a folder typed on into is a word that runs */
	size_t value_at; /* quote from here: "in:" + a name is in:"Rock 90s", as
			  * the query parser reads it (0: the whole word) */
};

/* Complete the word before cursor in line against the commands of groups
 * (NULL-terminated, as cli_groups) and the names of src (may be NULL).
 * Paths expand "~" and "$HOME" as :scan does; candidates keep the prefix
 * as typed. Fill *out (cli_completion_free it). */
void cli_complete(const struct cli_group *const *groups, const struct cli_names_src *src,
		  const char *line, size_t cursor, struct cli_completion *out);
void cli_completion_free(struct cli_completion *c);
/* The names of one kind starting with typed, for a prompt whose whole
 * line is one name (the rules pane's collection and preset): raw. */
void cli_complete_names(const struct cli_names_src *src, enum cli_names kind, const char *typed,
			struct cli_completion *out);

/* line with the word at c->start..cursor replaced by word, quoted when it
 * needs quoting (spaces, quotes, backslashes) or c->in_quote (only its
 * part from c->value_at: a field's value; a path's are escaped unless the
 * user opened a quote); complete:
 * close the quote and add a space (a directory or "field:" stays open).
 * *cursor moves to the end of the insertion. Owned result. */
char *cli_completion_apply(const struct cli_completion *c, const char *line, size_t *cursor,
			   const char *word, bool complete);



/* The names of an open application (a struct app * as ud): saved
 * collections and playlists, the library's properties, equalizer presets,
 * configuration options and their choices. */
struct app;
void cli_complete_app_names(void *app, enum cli_names kind, const char *arg,
			    void (*add)(void *acc, const char *name), void *acc);
#endif
