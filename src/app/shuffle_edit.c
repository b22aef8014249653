#include "app/shuffle_edit.h"

#include <stdlib.h>

#include "base/rng.h"

struct slot {
	uint32_t id, pos;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int slot_id_cmp(const void *key, const void *elem)
{
	uint32_t id = *(const uint32_t *)key, other = ((const struct slot *)elem)->id;
	return id < other ? -1 : id > other;
}

/* The first entry of id in slots (sorted) not taken yet, which is then
 * taken; SIZE_MAX when there is none. */
static size_t take(const struct slot *slots, size_t n, unsigned char *taken, uint32_t id)
{
	const struct slot *hit = n ? bsearch(&id, slots, n, sizeof *slots, slot_id_cmp) : NULL;
	if (!hit)
		return SIZE_MAX;
	while (hit > slots && hit[-1].id == id)
		hit--; /* the run of id's entries, from its first */
	for (; hit < slots + n && hit->id == id; hit++)
		if (!taken[hit->pos]) {
			taken[hit->pos] = 1;
			return hit->pos;
		}
	return SIZE_MAX;
}

size_t shuffle_follow_edit(struct u32vec *order, size_t order_at, const uint32_t *old_ids,
			   const uint32_t *new_ids, size_t n, size_t cur, uint64_t *rng)
{
	struct slot *slots = xcalloc(n ? n : 1, sizeof *slots);
	unsigned char *taken = xcalloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++)
		slots[i] = (struct slot){.id = new_ids[i], .pos = (uint32_t)i};
	qsort(slots, n, sizeof *slots, slot_cmp);
	taken[cur] = 1;
	struct u32vec out = {0};
	u32vec_reserve(&out, n ? n : 1);
	for (size_t k = 0; k < order_at && k < order->n; k++) {
		size_t pos = take(slots, n, taken, old_ids[order->v[k]]);
		if (pos != SIZE_MAX)
			u32vec_push(&out, (uint32_t)pos);
	}
	size_t at = out.n;
	u32vec_push(&out, (uint32_t)cur);
	size_t rest = out.n;
	for (size_t i = 0; i < n; i++)
		if (!taken[i])
			u32vec_push(&out, (uint32_t)i);
	for (size_t i = out.n; i > rest + 1; i--) {
		size_t j = rest + rng_below(rng, i - rest);
		uint32_t t = out.v[i - 1];
		out.v[i - 1] = out.v[j];
		out.v[j] = t;
	}
	free(slots);
	free(taken);
	u32vec_free(order);
	*order = out;
	return at;
}

void shuffle_regroup_albums(struct u32vec *order, size_t at, const uint32_t *group, uint64_t *rng)
{
	size_t n = order->n;
	if (at + 1 >= n)
		return;
	uint32_t *tail = order->v + at + 1;
	size_t m = n - at - 1;
	/* The albums still to come, each once; the playing one leads. */
	uint32_t *rank = xmalloc(n * sizeof *rank);
	for (size_t i = 0; i < n; i++)
		rank[i] = UINT32_MAX;
	struct u32vec albums = {0};
	uint32_t playing = group[order->v[at]];
	for (size_t i = 0; i < m; i++) {
		uint32_t g = group[tail[i]];
		if (rank[g] == UINT32_MAX && g != playing) {
			rank[g] = 0;
			u32vec_push(&albums, g);
		}
	}
	for (size_t i = albums.n; i > 1; i--) {
		size_t j = rng_below(rng, i);
		uint32_t t = albums.v[i - 1];
		albums.v[i - 1] = albums.v[j];
		albums.v[j] = t;
	}
	rank[playing] = 0;
	for (size_t a = 0; a < albums.n; a++)
		rank[albums.v[a]] = (uint32_t)a + 1;
	/* Sorted by album rank, then list order (a slot's id is its rank). */
	struct slot *r = xmalloc(m * sizeof *r);
	for (size_t i = 0; i < m; i++)
		r[i] = (struct slot){.id = rank[group[tail[i]]], .pos = tail[i]};
	qsort(r, m, sizeof *r, slot_cmp);
	for (size_t i = 0; i < m; i++)
		tail[i] = r[i].pos;
	free(r);
	free(rank);
	u32vec_free(&albums);
}
