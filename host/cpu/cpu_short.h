/* The CPU path's vector code for short contiguous rows (host/cpu/cpu_short_simd.c). */
#ifndef CLMAX_CPU_SHORT_H
#define CLMAX_CPU_SHORT_H

#include "clmax.h"

#include <stdint.h>

/* ArgMax (or ArgMin with min) of rows [0, done) of x, rows of n < 128 elements, into out; returns
 * done <= rows. Only rows whose vector loads stay within `readable` elements from x are done; the
 * caller finishes the rest. */
typedef uint64_t (*clmax_short_simd_fn)(const void *x, uint64_t rows, uint64_t n, int last,
                                        int64_t *out, uint64_t readable);

/* The function for a type on this CPU, or NULL when the CPU (or the compiler) has no vector code
 * for it. */
clmax_short_simd_fn clmax_cpu_short_simd(clmax_type type, int min);

#endif
