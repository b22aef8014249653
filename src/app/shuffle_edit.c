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

/* The first entry of id in slots (sorted) not taken yet, or SIZE_MAX. */
static size_t take(const struct slot *slots, size_t n, unsigned char *taken, uint32_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (slots[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && slots[lo].id == id; lo++)
		if (!taken[slots[lo].pos]) {
			taken[slots[lo].pos] = 1;
			return slots[lo].pos;
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
