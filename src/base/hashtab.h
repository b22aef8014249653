/* The one hash table: open addressing with linear probing over entries the
 * caller keeps in its own array. A slot holds the key's 32-bit hash and the
 * entry's index (hash << 32 | index + 1, 0 = empty), so a probe reads one
 * word and compares keys only when the hashes agree, and growing never
 * needs the keys. The caller owns the entries and compares keys itself:
 *
 *	uint32_t h = hash_bytes(key, len);
 *	struct hashtab_probe p = hashtab_probe(&t, h);
 *	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
 *		if (same_key(entries[i], key, len))
 *			return i;
 *	hashtab_insert(&t, h, new_index);
 *
 * The table holds at most half its slots, so every probe ends. Used by the
 * index's dictionaries, the scan's known files and directories, the
 * spelling dictionary's words and the configuration. */
#ifndef CRATE_BASE_HASHTAB_H
#define CRATE_BASE_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HASHTAB_NONE UINT32_MAX

/* Zero-initialised is an empty table; owns slots until hashtab_free. */
struct hashtab {
	uint64_t *slots;
	uint32_t nslots; /* 0 or a power of two */
	uint32_t n;      /* occupied slots */
};

/* The hash of n bytes (word at a time; not cryptographic). */
uint32_t hash_bytes(const void *data, size_t n);

/* Room for n entries without growing. */
void hashtab_reserve(struct hashtab *t, size_t n);
/* Add entry index under hash (the caller has checked it is not there). */
void hashtab_insert(struct hashtab *t, uint32_t hash, uint32_t index);
/* Remove entry index filed under hash; false when it is not there. */
bool hashtab_remove(struct hashtab *t, uint32_t hash, uint32_t index);
/* Empty the table, keeping its slots. */
void hashtab_clear(struct hashtab *t);
/* Release the slots; the table is empty and usable again. */
void hashtab_free(struct hashtab *t);
size_t hashtab_memory(const struct hashtab *t);

/* The entries filed under one hash, in probe order. */
struct hashtab_probe {
	const struct hashtab *t;
	uint32_t hash;
	uint32_t at;
};

static inline struct hashtab_probe hashtab_probe(const struct hashtab *t, uint32_t hash)
{
	struct hashtab_probe p = {t, hash, t->nslots ? hash & (t->nslots - 1) : 0};
	return p;
}

/* The next entry index whose hash equals the probe's; HASHTAB_NONE at the end. */
static inline uint32_t hashtab_next(struct hashtab_probe *p)
{
	const struct hashtab *t = p->t;
	if (!t->nslots)
		return HASHTAB_NONE;
	uint32_t mask = t->nslots - 1;
	for (uint64_t s; (s = t->slots[p->at]) != 0;) {
		p->at = (p->at + 1) & mask;
		if ((uint32_t)(s >> 32) == p->hash)
			return (uint32_t)s - 1;
	}
	return HASHTAB_NONE;
}

#endif
