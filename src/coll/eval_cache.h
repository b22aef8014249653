/* Work kept between evaluations (search-as-you-type): for string filters,
 * the dictionary values that matched and the library items that passed,
 * keyed by what decides them. The next keystroke reuses a term it has
 * seen (every earlier term of the query), and narrows a term being typed
 * ("*lo*" -> "*lov*") from the values the shorter one matched instead of
 * scanning the dictionary again; ranking keeps how each term matched each
 * value it has seen (coll/rank.c). Private to coll/eval*.c and coll/rank.c;
 * the owner holds a struct coll_eval_cache (eval.h). */
#ifndef CRATE_COLL_EVAL_CACHE_H
#define CRATE_COLL_EVAL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"
#include "coll/eval.h"

struct mlib_index;

/* What a string filter's matches depend on. */
struct coll_cache_key {
	const struct mlib_index *idx;
	int prop;
	uint32_t ndict;     /* dictionary size: values are only ever appended */
	uint32_t bound;     /* id bound and item count: the library did not change */
	uint32_t count;
	int op;             /* enum coll_type */
	bool binary;
	const char *value;  /* the filter's value as given */
};

enum coll_cache_kind {
	COLL_CACHE_OTHER,
	COLL_CACHE_CONTAINS,    /* match *needle*: every matching text contains needle */
	COLL_CACHE_WORD_PREFIX, /* token needle*: every matching text has a word starting so */
};

struct coll_cache_entry {
	struct coll_cache_key key; /* key.value is owned (a copy) */
	enum coll_cache_kind kind;
	char *needle;              /* folded; owned */
	size_t nneedle;
	struct bitset vbits;       /* matching value ids */
	struct bitset items;       /* items passing on the whole library, when have_items */
	bool have_items;
	uint64_t used;             /* for eviction: least recently used goes */
};

/* The entry for exactly this key, or NULL. Borrowed until the next store. */
struct coll_cache_entry *coll_cache_find(struct coll_eval_cache *c, const struct coll_cache_key *k);
/* Entries of the same dictionary (idx, prop, sizes) as k, any op/value:
 * *n receives how many; borrowed until the next store. */
struct coll_cache_entry **coll_cache_same_dict(struct coll_eval_cache *c,
					       const struct coll_cache_key *k, size_t *n);
/* A new entry for k (evicting the least recently used one), with vbits
 * sized for the dictionary and no items yet; the caller fills it. */
struct coll_cache_entry *coll_cache_store(struct coll_eval_cache *c, const struct coll_cache_key *k,
					  enum coll_cache_kind kind, const char *needle,
					  size_t nneedle);

/* Ranking's memo of term (folded) in k's dictionary (k->op and k->value
 * unused): class + 1 per value id, 0 = not yet known; ndict + 1 bytes,
 * zeroed when new, byte ndict set once every value is known. The least
 * recently used of a few goes. Borrowed from the cache until the next
 * call. */
#define COLL_CACHE_RANK_SLOTS 8
uint8_t *coll_cache_rank_memo(struct coll_eval_cache *c, const struct coll_cache_key *k,
			      const char *term);

/* Arrays derived from k's dictionary or from its library order (k->op
 * and k->value unused), kept until the index changes: the least recently
 * used of a few per kind and field goes. coll_cache_derived returns the
 * kind's array for k, or, with *fresh set, a new one of bytes (contents
 * undefined) that the caller fills before anything reads it. Borrowed
 * from the cache until the next call that may store. */
enum coll_cache_derived {
	COLL_CACHE_LIBRARY_CODES, /* coll_cache_library_codes */
	COLL_CACHE_LETTERS,       /* one-letter classes (coll/rank_letters.h) */
};
#define COLL_CACHE_LIBRARY_SLOTS 4 /* fields of each kind kept */
void *coll_cache_derived(struct coll_eval_cache *c, enum coll_cache_derived kind,
			 const struct coll_cache_key *k, size_t bytes, bool *fresh);
/* The kind's array for k when kept (filled), else NULL; stores nothing. */
const void *coll_cache_derived_find(const struct coll_eval_cache *c, enum coll_cache_derived kind,
				    const struct coll_cache_key *k);

/* Column k->prop's codes (mlib_str_column_code) in library order: entry
 * r is the code of the item at position r of mlib_index_library_order, so
 * that ranking reads a result in library order (ranks ascending) in order
 * instead of at random by id. Built on first use (k->count + 1 values,
 * on both cores; what a preparation job made of it already is kept). */
const uint32_t *coll_cache_library_codes(struct coll_eval_cache *c, const struct coll_cache_key *k);
/* Entries [lo, hi) of that array into code (on both cores when the range
 * is large enough to pay for the thread). */
void coll_cache_library_codes_fill(const struct coll_cache_key *k, uint32_t *code, size_t lo,
				   size_t hi);

/* An array of the kinds above, or the boosts below, being made a slice a
 * step between keystrokes (coll_eval_cache_prepare_step): a large one
 * made whole in one step held a key pressed meanwhile for up to 30 ms at
 * a million tracks. The cache owns the array so far; lookups do not see
 * it until it is whole and adopted. One job at a time. */
enum coll_cache_job_kind {
	COLL_JOB_NONE,
	COLL_JOB_CODES,   /* coll_cache_library_codes */
	COLL_JOB_LETTERS, /* COLL_CACHE_LETTERS */
	COLL_JOB_BOOSTS,  /* coll_cache_library_boost */
};
struct coll_cache_job {
	enum coll_cache_job_kind kind;
	struct coll_cache_key key; /* its dictionary's (boosts: idx, bound and count) */
	uint64_t edits;            /* boosts: mlib_index_edits when started */
	int64_t from, until;       /* boosts: the moments they hold for */
	void *data;                /* the array so far (owned) */
	size_t done, total;        /* entries made, entries in all */
};
/* Entries a step makes: 0, each kind's own (coll/rank.c), unless a test
 * set it (coll_eval_cache_set_prepare_slice). */
size_t coll_cache_prepare_slice(const struct coll_eval_cache *c);
/* The cache's job (kind COLL_JOB_NONE when there is none). */
struct coll_cache_job *coll_cache_job(struct coll_eval_cache *c);
/* Ends the job, its array freed. */
void coll_cache_job_drop(struct coll_cache_job *j);
/* A keystroke needs the array the job is making (same kind, same
 * dictionary as k): the array so far (*done entries made), handed to the
 * caller, who finishes and adopts it; NULL when the job makes another. */
void *coll_cache_job_take(struct coll_eval_cache *c, enum coll_cache_job_kind kind,
			  const struct coll_cache_key *k, size_t *done);
/* Keep a whole array of kind for k (the cache takes data, evicting the
 * least recently used of the kind's slots); when one is kept already,
 * data is freed instead. Returns the array kept. */
void *coll_cache_derived_adopt(struct coll_eval_cache *c, enum coll_cache_derived kind,
			       const struct coll_cache_key *k, void *data);

/* Every item's popularity boost (coll_rank_boost) by library rank: entry
 * r is the boost of the item at position r of mlib_index_library_order,
 * so that ranking a set in library order reads it in order instead of
 * four columns at random by id. Kept for one index and its edits
 * (mlib_index_edits: a play or a rating changes a boost), from the moment
 * it was made until the passing of time alone changes a boost
 * (coll_rank_boost_steady_until). coll_cache_library_boost returns it
 * when it holds for idx at now, else NULL: it is made between keystrokes
 * (coll_eval_cache_prepare_step), never by one. Borrowed from the cache
 * until the next store. */
const uint8_t *coll_cache_library_boost(const struct coll_eval_cache *c,
					const struct mlib_index *idx, int64_t now);
/* Keep v (mlib_index_count(idx) + 1 bytes, taken) as idx's boosts, valid
 * from `from` until `until`. */
void coll_cache_library_boost_adopt(struct coll_eval_cache *c, const struct mlib_index *idx,
				    int64_t from, int64_t until, uint8_t *v);

struct coll_typo_dict;
/* The word dictionary for spelling corrections (coll/typo.h) of idx: the
 * owner's (coll_eval_cache_typo_provider; NULL while it is being built),
 * else built on first use and kept until the cache is cleared or idx
 * changes. Borrowed from the cache. */
const struct coll_typo_dict *coll_cache_typo_dict(struct coll_eval_cache *c,
						  const struct mlib_index *idx);

#endif
