/* The components whose tables every mlib_db_open brings up to date: the
 * one place that names them (db.c only walks this table). Each component
 * keeps its own name, schema version and steps; media_analysis refers to
 * media's tables, so it comes after. Components used only by some
 * commands (roots, collections, rules) migrate when they are first
 * opened, not here. */
#include "medialib/db.h"
#include "medialib/media.h"
#include "medialib/media_analysis.h"

const struct mlib_db_component *const mlib_db_components[] = {
	&mlib_media_component,
	&mlib_analysis_component,
};

const size_t mlib_db_ncomponents = sizeof mlib_db_components / sizeof mlib_db_components[0];
