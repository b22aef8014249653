/* True peak (ITU-R BS.1770 Annex 2): the largest absolute value of the
 * signal oversampled 4x (below 96 kHz; 2x below 192 kHz, none above) by a
 * polyphase low-pass, never below the largest sample. Written for
 * analysis throughput: a block whose samples cannot reach the peak found
 * so far is not interpolated, and the filter runs over a block at a time
 * so the compiler vectorises it. */
#ifndef CRATE_ANALYSIS_TRUEPEAK_H
#define CRATE_ANALYSIS_TRUEPEAK_H

#include <stdbool.h>
#include <stddef.h>

struct an_truepeak;

/* NULL for channels outside 1..64 or a rate below 1 Hz. Free with
 * an_truepeak_free. */
struct an_truepeak *an_truepeak_new(int channels, int rate);
void an_truepeak_free(struct an_truepeak *tp);

/* n interleaved frames; NaN and infinities count as 0. */
void an_truepeak_add(struct an_truepeak *tp, const float *frames, size_t n);
/* Interpolate every block, skipping none (tests check the shortcut
 * changes nothing). */
void an_truepeak_set_exhaustive(struct an_truepeak *tp, bool exhaustive);

/* Linear peak over all channels so far (0 for silence); more frames may
 * be added after. */
double an_truepeak_value(struct an_truepeak *tp);

#endif
