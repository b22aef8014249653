#include "ui/marks.h"

#include <stdlib.h>
#include <string.h>

bool marks_has(const struct ui_marks *m, size_t key)
{
	return m->n && bitset_test(&m->b, key);
}

static void grow(struct ui_marks *m, size_t key)
{
	if (key < m->b.nbits)
		return;
	size_t nbits = m->b.nbits ? m->b.nbits : 1024;
	while (nbits <= key)
		nbits *= 2;
	size_t old = bitset_words(&m->b), words = (nbits + 63) / 64;
	m->b.w = xreallocarray(m->b.w, words, sizeof *m->b.w);
	memset(m->b.w + old, 0, (words - old) * sizeof *m->b.w);
	m->b.nbits = nbits;
}

void marks_set(struct ui_marks *m, size_t key, bool on)
{
	if (marks_has(m, key) == on)
		return;
	if (on) {
		grow(m, key);
		bitset_set(&m->b, key);
		m->n++;
	} else {
		bitset_clear(&m->b, key);
		m->n--;
	}
}

bool marks_toggle(struct ui_marks *m, size_t key)
{
	bool on = !marks_has(m, key);
	marks_set(m, key, on);
	return on;
}

void marks_clear(struct ui_marks *m)
{
	bitset_free(&m->b);
	m->n = 0;
}

size_t marks_list(const struct ui_marks *m, size_t limit, size_t **out)
{
	*out = xmalloc((m->n ? m->n : 1) * sizeof **out);
	size_t k = 0, words = bitset_words(&m->b);
	for (size_t w = 0; m->n && w < words; w++) {
		uint64_t bits = m->b.w[w];
		while (bits) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			if (i < limit)
				(*out)[k++] = i;
		}
	}
	return k;
}
