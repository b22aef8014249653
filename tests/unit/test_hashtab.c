/* base/hashtab: insert, find, delete, growth and colliding hashes, checked
 * against a plain array of keys (the table is only an index into it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "harness.h"

/* Where key i is filed, found through the table: HASHTAB_NONE when absent. */
static uint32_t find_u32(const struct hashtab *t, const uint32_t *keys, uint32_t hash, uint32_t key)
{
	struct hashtab_probe p = hashtab_probe(t, hash);
	for (uint32_t i; (i = hashtab_next(&p)) != HASHTAB_NONE;)
		if (keys[i] == key)
			return i;
	return HASHTAB_NONE;
}

static uint32_t key_hash(uint32_t k)
{
	return hash_bytes(&k, sizeof k);
}

TEST(hashtab_empty_finds_nothing)
{
	struct hashtab t = {0};
	uint32_t keys[1] = {7};
	CHECK_INT(find_u32(&t, keys, key_hash(7), 7), HASHTAB_NONE);
	CHECK(!hashtab_remove(&t, key_hash(7), 0));
	hashtab_free(&t);
	CHECK_INT(t.n, 0);
}

TEST(hashtab_insert_find_and_grow)
{
	enum { N = 100000 };
	uint32_t *keys = malloc(N * sizeof *keys);
	struct hashtab t = {0};
	for (uint32_t i = 0; i < N; i++) {
		keys[i] = i * 7919u + 3;
		hashtab_insert(&t, key_hash(keys[i]), i);
		CHECK(t.n * 2 <= t.nslots); /* grows before half full */
	}
	CHECK_INT(t.n, N);
	CHECK(t.nslots >= 2 * N && (t.nslots & (t.nslots - 1)) == 0);
	int wrong = 0;
	for (uint32_t i = 0; i < N; i++)
		wrong += find_u32(&t, keys, key_hash(keys[i]), keys[i]) != i;
	CHECK_INT(wrong, 0);
	CHECK_INT(find_u32(&t, keys, key_hash(5), 5), HASHTAB_NONE);
	CHECK_INT(hashtab_memory(&t), (size_t)t.nslots * 8);
	hashtab_free(&t);
	free(keys);
}

TEST(hashtab_delete_keeps_the_rest_findable)
{
	enum { N = 5000 };
	uint32_t keys[N];
	struct hashtab t = {0};
	for (uint32_t i = 0; i < N; i++) {
		keys[i] = i;
		hashtab_insert(&t, key_hash(i), i);
	}
	for (uint32_t i = 0; i < N; i += 3)
		CHECK(hashtab_remove(&t, key_hash(i), i));
	CHECK(!hashtab_remove(&t, key_hash(0), 0)); /* already gone */
	int wrong = 0;
	for (uint32_t i = 0; i < N; i++)
		wrong += find_u32(&t, keys, key_hash(i), i) != (i % 3 ? i : HASHTAB_NONE);
	CHECK_INT(wrong, 0);
	CHECK_INT(t.n, N - (N + 2) / 3);
	hashtab_clear(&t);
	CHECK_INT(t.n, 0);
	CHECK_INT(find_u32(&t, keys, key_hash(1), 1), HASHTAB_NONE);
	hashtab_free(&t);
}

/* Every key under a handful of hashes: long runs that wrap around the end
 * of the table, deletions from their middle, and lookups that must compare
 * keys, not trust the hash. */
TEST(hashtab_many_collisions)
{
	enum { N = 3000 };
	uint32_t keys[N];
	struct hashtab t = {0};
	for (uint32_t i = 0; i < N; i++) {
		keys[i] = i;
		hashtab_insert(&t, 0xfffffff0u + i % 4, i); /* homes at the table's end */
	}
	int wrong = 0;
	for (uint32_t i = 0; i < N; i++)
		wrong += find_u32(&t, keys, 0xfffffff0u + i % 4, i) != i;
	CHECK_INT(wrong, 0);
	CHECK_INT(find_u32(&t, keys, 0xfffffff0u + 1, 2), HASHTAB_NONE); /* same run, other hash */
	for (uint32_t i = 0; i < N; i += 2)
		CHECK(hashtab_remove(&t, 0xfffffff0u + i % 4, i));
	wrong = 0;
	for (uint32_t i = 0; i < N; i++)
		wrong += find_u32(&t, keys, 0xfffffff0u + i % 4, i) != (i % 2 ? i : HASHTAB_NONE);
	CHECK_INT(wrong, 0);
	for (uint32_t i = 1; i < N; i += 2)
		CHECK(hashtab_remove(&t, 0xfffffff0u + i % 4, i));
	CHECK_INT(t.n, 0);
	for (uint32_t i = 0; i < t.nslots; i++)
		wrong += t.slots[i] != 0;
	CHECK_INT(wrong, 0);
	hashtab_free(&t);
}

TEST(hash_bytes_depends_on_every_byte_and_the_length)
{
	char a[40], b[40];
	memset(a, 'x', sizeof a);
	memcpy(b, a, sizeof b);
	uint32_t h = hash_bytes(a, sizeof a);
	CHECK(h == hash_bytes(b, sizeof b));
	for (size_t i = 0; i < sizeof a; i++) {
		b[i] = 'y';
		CHECK_MSG(hash_bytes(b, sizeof b) != h, "byte %zu ignored", i);
		b[i] = 'x';
	}
	CHECK(hash_bytes(a, 8) != hash_bytes(a, 9));
	CHECK(hash_bytes("", 0) != hash_bytes("\0", 1));
}
