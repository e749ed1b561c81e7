/* ArgMax and ArgMin of one-byte slices of few lanes on longer axes: each slice read as one stream
 * of vectors, a running best and load index per vector position, folded into the lanes' winners
 * (cpu_bytelanes.c). */
#ifndef CLMAX_CPU_BYTELANES_H
#define CLMAX_CPU_BYTELANES_H

#include "problem.h"

#include <stdint.h>

/* Whether this code takes p's slices on this CPU (AVX2): uint8 and int8, inner 2 to
 * BYTELANES_INNER_MAX, at least BYTELANES_SLICE_MIN bytes a slice (the transposed slices, tried
 * first, take those of 2 to 8 lanes up to 256 bytes). */
#define BYTELANES_INNER_MAX 32
#define BYTELANES_SLICE_MIN 256
int clmax_cpu_bytelanes_fits(const clmax_problem *p);

/* The winners of `slices` whole slices of p's shape from x into out (slices * inner of them;
 * streamed out with stream, as clmax_cpu_put does), on the calling thread; left: the bytes from x
 * to the end of the input, which no load passes. */
void clmax_cpu_bytelanes(const clmax_problem *p, const void *x, uint64_t slices, uint64_t left,
                         int stream, int64_t *out);

#endif
