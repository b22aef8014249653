/* A shuffle cycle carried across an edit of its list: what played of it
 * stays played, what did not (added entries included) is still to come.
 * Pure: no player, so it is tested on its own. */
#ifndef CRATE_APP_SHUFFLE_EDIT_H
#define CRATE_APP_SHUFFLE_EDIT_H

#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

/* order is a cycle over the entries of a list that held old_ids (order->n
 * of them), at order_at its current entry; the list now holds new_ids (n)
 * with that entry at cur. order becomes a cycle over the new entries: those
 * played before the current one (found again by media id, one entry per
 * play), then cur, then the others in random order (rng); returns the new
 * order_at. */
size_t shuffle_follow_edit(struct u32vec *order, size_t order_at, const uint32_t *old_ids,
			   const uint32_t *new_ids, size_t n, size_t cur, uint64_t *rng);

/* Under shuffle albums, after shuffle_follow_edit: the entries after
 * order->v[at] become whole albums again, the rest of the playing entry's
 * album first, then the other albums in random order (rng), each in list
 * order. group[i] (< order->n) is the same for every entry of entry i's
 * album and differs between albums. */
void shuffle_regroup_albums(struct u32vec *order, size_t at, const uint32_t *group, uint64_t *rng);

#endif
