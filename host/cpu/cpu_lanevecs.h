/* ArgMax and ArgMin on the CPU path of short slices of one-byte lanes in whole 16-lane vectors
 * (cpu_lanevecs.c). */
#ifndef CLMAX_CPU_LANEVECS_H
#define CLMAX_CPU_LANEVECS_H

#include "problem.h"

#include <stdint.h>

/* Whether this code takes p's slices on this CPU (AVX2): one-byte elements, inner 16, 32, 48 or
 * 64, axes of 2 to LANEVECS_N_MAX; of LANEVECS_LONG_INNER lanes, every axis (n < 2^31). Longer
 * axes of up to 32 lanes stay with the stream of vectors, whose byte compares do half the work of
 * these words once the fold is a small part of a slice: uint8 [B, 64, 16..64] x0.95-1.23 here
 * against it, [B, 100, 16..64] x0.87-1.07, [B, 256, 16..32] x0.49-0.67. 48 and 64 lanes, past its
 * reach, went to the lanes code (cpu_lanes.inc), their state in memory: on the AMD EPYC, in turns
 * (5 rounds, medians, 256 MiB, clmax-bench --sweep --sweep-inner=48,64) uint8 [B, 80..32000, 64]
 * ran x1.3-1.8 faster here, [B, 80..2^20, 48] x1.1-2.0 (7-8 ms against 8-15); 16 and 32 lanes
 * x0.75-1.05 against the stream of vectors. */
#define LANEVECS_N_MAX 64
#ifndef LANEVECS_LONG_INNER
#define LANEVECS_LONG_INNER 48
#endif
int clmax_cpu_lanevecs_fits(const clmax_problem *p);

/* The winners of `slices` whole slices of p's shape from x into out (slices * inner of them;
 * streamed out with stream, as clmax_cpu_put does), on the calling thread. */
void clmax_cpu_lanevecs(const clmax_problem *p, const void *x, uint64_t slices, int stream,
                        int64_t *out);

#endif
