/* Heap pages faulted in ahead of need, while a program is idle.
 *
 * At a million tracks, a search's keystroke allocates some tens of MB
 * (results, ranks, keys, rows), and the first large one after start-up
 * grew the heap: the kernel zeroed each new page inside that keystroke's
 * frame (on a virtual machine, the host backs each one first). A program
 * that keeps its freed memory in the heap (ui.c raises M_TRIM_THRESHOLD)
 * can take that cost while idle instead: one block of the size wanted,
 * touched a slice per step, then freed, so that later allocations reuse
 * pages already there. */
#ifndef CRATE_BASE_HEAP_WARM_H
#define CRATE_BASE_HEAP_WARM_H

#include <stdbool.h>
#include <stddef.h>

/* Zero-initialise. */
struct heap_warm {
	unsigned char *block; /* owned while warming, NULL otherwise */
	size_t size;          /* of block */
	size_t touched;       /* bytes of block faulted in so far */
	size_t done;          /* the size last warmed in full (0: none yet) */
};

/* Bytes touched per step: a few ms of page faults (8 MB took 16 ms on a
 * virtual machine, whose host backs each page first). */
#define HEAP_WARM_SLICE ((size_t)2 << 20)

/* One step towards having `want` bytes warmed: starts a block when none
 * is under way and want exceeds what was warmed last, touches the next
 * slice, frees the block once it is all touched. True while steps
 * remain. The block must stay under the mmap threshold (M_MMAP_THRESHOLD),
 * or free would hand it back to the kernel. */
bool heap_warm_step(struct heap_warm *w, size_t want);
/* Frees a block still under way. */
void heap_warm_free(struct heap_warm *w);

#endif
