/* Ranking's match classes (coll/rank.h) of one term in every value of a
 * dictionary, in one vector pass over its folded span: the work a new
 * word's keystroke waits on. A term of ASCII letters and digits only (what
 * nearly every typed word folds to); others take rank.c's general pass.
 * The same bytes answer the one-word token filters of that term
 * ("word*": class prefix or better; "word": whole word or better), so a
 * new word's filter and its ranking read a dictionary once
 * (coll/eval_filter.c). Private to coll/. */
#ifndef CRATE_COLL_RANK_FILL_H
#define CRATE_COLL_RANK_FILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Does term[0..tlen) (folded) qualify: 1+ bytes, each an ASCII letter or
 * digit? */
bool coll_rank_fill_fast_term(const char *term, size_t tlen);

/* Set m[v] = 1 + class of term in value v for every v in [lo, hi) of the
 * span (base, offs) whose m[v] is 0 (unknown); m[v] != 0 is left as it is
 * (a class known already). term must qualify (above). Touches m[lo..hi)
 * alone: ranges may be filled at once on other threads. */
void coll_rank_fill_span(const char *base, const uint32_t *offs, uint32_t lo, uint32_t hi,
			 const char *term, size_t tlen, uint8_t *m);

#endif
