/* ArgMax and ArgMin of float slices of 2, 4 or 8 rows and 2 or 4 lanes, vectorised over slices
 * (cpu_interleaved.c). */
#ifndef CLMAX_CPU_INTERLEAVED_H
#define CLMAX_CPU_INTERLEAVED_H

#include "clmax.h"

#include <stdint.h>

/* Whether this code takes slices [n, inner] of type: a float type, n 2, 4 or 8, inner 2 or 4, but
 * float64 [8, 4]. */
int clmax_cpu_interleaved_fits(clmax_type type, uint64_t n, uint64_t inner);

/* The winners of `slices` whole slices from x into out (slices * inner of them; streamed out with
 * stream, as clmax_cpu_put does), on the calling thread. */
void clmax_cpu_interleaved(clmax_type type, const void *x, uint64_t slices, uint64_t n,
                           uint64_t inner, int min, int last, int stream, int64_t *out);

#endif
