/* See hashtab.h. */
#include "base/hashtab.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

#define MIN_SLOTS 64u

uint32_t hash_bytes(const void *data, size_t n)
{
	const char *s = data;
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

static void slot_put(uint64_t *slots, uint32_t nslots, uint64_t entry)
{
	uint32_t i = (uint32_t)(entry >> 32) & (nslots - 1);
	while (slots[i])
		i = (i + 1) & (nslots - 1);
	slots[i] = entry;
}

/* Re-file every entry into ns slots: the stored hashes are enough. */
static void rehash(struct hashtab *t, uint32_t ns)
{
	uint64_t *slots = xcalloc_huge(ns, sizeof *slots); /* probed all over */
	for (uint32_t i = 0; i < t->nslots; i++)
		if (t->slots[i])
			slot_put(slots, ns, t->slots[i]);
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
}

void hashtab_reserve(struct hashtab *t, size_t n)
{
	uint64_t ns = t->nslots ? t->nslots : MIN_SLOTS;
	while (ns < (uint64_t)n * 2 + 2)
		ns *= 2;
	if (ns > (uint64_t)1 << 31) /* indices are 32-bit: cannot happen */
		abort();
	if (ns != t->nslots)
		rehash(t, (uint32_t)ns);
}

void hashtab_insert(struct hashtab *t, uint32_t hash, uint32_t index)
{
	if (((uint64_t)t->n + 1) * 2 > t->nslots)
		hashtab_reserve(t, (size_t)t->n + 1);
	slot_put(t->slots, t->nslots, (uint64_t)hash << 32 | ((uint64_t)index + 1));
	t->n++;
}

/* Backward-shift deletion: later members of the run move up into the hole
 * when their home slot allows, so probes never need tombstones. */
bool hashtab_remove(struct hashtab *t, uint32_t hash, uint32_t index)
{
	if (!t->nslots)
		return false;
	uint32_t mask = t->nslots - 1;
	uint64_t want = (uint64_t)hash << 32 | ((uint64_t)index + 1);
	uint32_t hole = hash & mask;
	while (t->slots[hole] != want) {
		if (!t->slots[hole])
			return false;
		hole = (hole + 1) & mask;
	}
	for (uint32_t j = (hole + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
		uint32_t home = (uint32_t)(t->slots[j] >> 32) & mask;
		/* j may fill the hole unless its home lies cyclically in (hole, j] */
		bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!stays) {
			t->slots[hole] = t->slots[j];
			hole = j;
		}
	}
	t->slots[hole] = 0;
	t->n--;
	return true;
}

void hashtab_clear(struct hashtab *t)
{
	if (t->slots)
		memset(t->slots, 0, (size_t)t->nslots * sizeof *t->slots);
	t->n = 0;
}

void hashtab_free(struct hashtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->nslots = 0;
	t->n = 0;
}

size_t hashtab_memory(const struct hashtab *t)
{
	return (size_t)t->nslots * sizeof *t->slots;
}
