/* ArgMax and ArgMin on the CPU path of short slices of one-byte lanes in whole 16-lane vectors
 * (cpu_lanevecs.c). */
#ifndef CLMAX_CPU_LANEVECS_H
#define CLMAX_CPU_LANEVECS_H

#include "problem.h"

#include <stdint.h>

/* Whether this code takes p's slices on this CPU (AVX2): one-byte elements, inner 16, 32, 48 or
 * 64, axes of 2 to LANEVECS_N_MAX. Longer axes stay with the stream of vectors, whose byte
 * compares do half the work of these words once the fold is a small part of a slice: uint8
 * [B, 64, 16..64] x0.95-1.23 here against it, [B, 100, 16..64] x0.87-1.07, [B, 256, 16..32]
 * x0.49-0.67. */
#define LANEVECS_N_MAX 64
int clmax_cpu_lanevecs_fits(const clmax_problem *p);

/* The winners of `slices` whole slices of p's shape from x into out (slices * inner of them;
 * streamed out with stream, as clmax_cpu_put does), on the calling thread. */
void clmax_cpu_lanevecs(const clmax_problem *p, const void *x, uint64_t slices, int stream,
                        int64_t *out);

#endif
