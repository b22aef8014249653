/* Heap pages faulted in while idle (heap_warm.h). */
#include "base/heap_warm.h"

#include <stdlib.h>

bool heap_warm_step(struct heap_warm *w, size_t want)
{
	if (!w->block) {
		if (want <= w->done)
			return false;
		w->block = malloc(want);
		if (!w->block) /* no memory to spare: the frames will fault instead */
			return false;
		w->size = want;
		w->touched = 0;
	}
	size_t n = w->size - w->touched < HEAP_WARM_SLICE ? w->size - w->touched : HEAP_WARM_SLICE;
	/* A byte a page faults the page in; volatile, or the compiler may
	 * drop stores to memory that is freed unread. */
	volatile unsigned char *p = w->block + w->touched;
	for (size_t off = 0; off < n; off += 4096)
		p[off] = 0;
	w->touched += n;
	if (w->touched < w->size)
		return true;
	free(w->block);
	w->block = NULL;
	w->done = w->size;
	return false;
}

void heap_warm_free(struct heap_warm *w)
{
	free(w->block);
	w->block = NULL;
}
