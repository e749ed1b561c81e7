/* The CPU path's vector code for short contiguous rows (host/cpu/cpu_short_simd.c), and what it
 * shares with the rest of the CPU path. */
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

/* The x86 MXCSR mode in which the CPU's float compares order values as the integer keys do:
 * denormals-are-zero off, and the invalid-operation and denormal-operand exceptions masked (a NaN
 * or a denormal met by a compare or a max must not trap). Code that compares floats checks
 * (mxcsr & CLMAX_FLOAT_MODE_BITS) == CLMAX_FLOAT_MODE_OK, and restores the caller's MXCSR after
 * (the exception flags a compare raises included). */
#define CLMAX_FLOAT_MODE_BITS 0x1C0u /* DAZ (0x40), IM (0x80), DM (0x100) */
#define CLMAX_FLOAT_MODE_OK 0x180u

#endif
