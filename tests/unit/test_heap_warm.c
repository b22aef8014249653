/* base/heap_warm: the block is touched a slice per step, then freed, and
 * later allocations of that much take its pages instead of growing the
 * heap; a size already warmed is not warmed again. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/heap_warm.h"
#include "harness.h"

TEST(warming_takes_a_slice_a_step_and_remembers_the_size)
{
	struct heap_warm w = {0};
	size_t want = 2 * HEAP_WARM_SLICE + 4096, steps = 1;
	while (heap_warm_step(&w, want))
		steps++;
	CHECK_MSG(steps == 3, "%zu steps for two slices and a page", steps);
	CHECK(w.block == NULL && w.done == want);
	CHECK(!heap_warm_step(&w, want));     /* warmed already */
	CHECK(!heap_warm_step(&w, want / 2)); /* and less */
	/* more wanted (a larger library): a new block */
	CHECK(heap_warm_step(&w, want + HEAP_WARM_SLICE));
	CHECK(w.block != NULL);
	heap_warm_free(&w); /* mid-way: freed */
	CHECK(w.block == NULL);
}

TEST(a_warmed_heap_serves_later_blocks_without_growing)
{
#ifdef __SANITIZE_ADDRESS__
	/* ASan's allocator has no heap top to watch (nor mallopt) */
	harness_skip("the sanitizer build replaces malloc");
#endif
	/* as the interface sets them: freed blocks stay in the heap */
	REQUIRE(mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1);
	REQUIRE(mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1);
	struct heap_warm w = {0};
	size_t want = 3 * HEAP_WARM_SLICE;
	while (heap_warm_step(&w, want))
		;
	void *top = sbrk(0);
	enum { N = 4 };
	void *blk[N];
	for (int i = 0; i < N; i++) { /* a keystroke's arrays */
		blk[i] = malloc(want / N - 4096);
		REQUIRE(blk[i] != NULL);
		memset(blk[i], i, want / N - 4096);
	}
	CHECK_MSG(sbrk(0) == top, "the heap grew by %td bytes", (char *)sbrk(0) - (char *)top);
	for (int i = 0; i < N; i++)
		free(blk[i]);
}
