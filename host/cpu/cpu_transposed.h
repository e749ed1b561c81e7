/* ArgMax and ArgMin of slices of short rows, each row one 32- or 64-bit word, eight or four slices
 * at a time transposed into vectors of rows (cpu_transposed.c). */
#ifndef CLMAX_CPU_TRANSPOSED_H
#define CLMAX_CPU_TRANSPOSED_H

#include "problem.h"

#include <stdint.h>

/* Whether this code takes p's slices on this CPU (AVX2): inner 2 to 8 of a one-byte or a two-byte
 * type, 2 to 4 of a four-byte type, 2 of an eight-byte type; at least 2 rows and at most
 * TRANSPOSED_SLICE_MAX bytes a slice; four-byte rows of 12 bytes (spread to 16) up to
 * TRANSPOSED_12_N_MAX, four-byte [B, n, 4] up to TRANSPOSED_4X4_N_MAX. */
#define TRANSPOSED_SLICE_MAX 256
#define TRANSPOSED_12_N_MAX 12
#define TRANSPOSED_4X4_N_MAX 24 /* four-byte [B, n, 4]: a pair of slices of 384 bytes */
int clmax_cpu_transposed_fits(const clmax_problem *p);

/* The winners of `slices` whole slices of p's shape from x into out (slices * inner of them;
 * streamed out with stream, as clmax_cpu_put does), on the calling thread; left: the bytes from x
 * to the end of the input, which no load passes. */
void clmax_cpu_transposed(const clmax_problem *p, const void *x, uint64_t slices, uint64_t left,
                          int stream, int64_t *out);

#endif
