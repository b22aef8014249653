/* A crew: work items 0..n-1 shared between the calling thread and at most
 * one helper thread, each item done by exactly one of them (they take the
 * next untaken item until none is left). For the few places where a
 * keystroke's work splits into independent pieces (ranking's dictionary
 * fills, a union's dictionary scans). */
#ifndef CRATE_BASE_CREW_H
#define CRATE_BASE_CREW_H

#include <stdbool.h>
#include <stddef.h>

/* Run work(ctx, i) for every i < n and return when all are done. A helper
 * thread is started only when worth_help (the caller's judgement that the
 * work outweighs starting a thread), n > 1 and a second processor is
 * online; otherwise, or when the thread cannot start, the caller does
 * everything. work must only touch what item i owns. */
void crew_run(size_t n, bool worth_help, void (*work)(void *ctx, size_t i), void *ctx);

#endif
