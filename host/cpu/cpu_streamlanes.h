/* ArgMax and ArgMin of slices of few lanes: each slice read as one stream of
 * vectors, a running best and load number per vector position, folded into the lanes' winners
 * (cpu_streamlanes.c). */
#ifndef CLMAX_CPU_STREAMLANES_H
#define CLMAX_CPU_STREAMLANES_H

#include "problem.h"

#include <stdint.h>

/* Whether this code takes p's slices on this CPU (AVX2): one-byte slices of 2 to 32 lanes of at
 * least STREAMLANES_SLICE_MIN bytes (the transposed slices, tried first, take theirs up to 256
 * bytes); two-byte slices of 2 to 16 lanes and four-byte ones of 2 on axes of at least
 * STREAMLANES_N_MIN (float16 [B, 32..100, 3..16] ran x0.68-0.96 here, against the packed words
 * and the few-lane rows; [B, 256..4096, 2..16] x0.97-1.17, [B, 65536, 2..7] x1.14-1.48);
 * eight-byte ones of 2 and 4 lanes from STREAMLANES_SLICE_MIN bytes. */
#define STREAMLANES_SLICE_MIN 256
#define STREAMLANES_N_MIN 256
int clmax_cpu_streamlanes_fits(const clmax_problem *p);

/* The winners of `slices` whole slices of p's shape from x into out (slices * inner of them;
 * streamed out with stream, as clmax_cpu_put does), on the calling thread; left: the bytes from x
 * to the end of the input, which no load passes. */
void clmax_cpu_streamlanes(const clmax_problem *p, const void *x, uint64_t slices, uint64_t left,
                           int stream, int64_t *out);

#endif
