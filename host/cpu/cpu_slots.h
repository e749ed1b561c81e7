/* ArgMax and ArgMin on the CPU path of float16, float32 and float64 slices of a few lanes, each
 * slice's row in a slot of a 512-bit vector, compared as floats (cpu_slots.c). */
#ifndef CLMAX_CPU_SLOTS_H
#define CLMAX_CPU_SLOTS_H

#include "cpu_kernels.h"
#include "problem.h"

#include <stdint.h>

/* Whether this code takes p's slices where 512-bit vectors run (wide: clmax_cpu_wide). */
int clmax_cpu_slots_fits(const clmax_problem *p, int wide);

/* The winners of `slices` whole slices of p's shape from x into out (slices * inner of them;
 * streamed out with stream, as clmax_cpu_put does), on the calling thread; slices holding a NaN
 * through `lanes`, the type's lanes code. 0, with nothing written, where the float mode is not
 * the default (cpu_short.h), whose compares do not order values as the keys do. */
int clmax_cpu_slots(const clmax_problem *p, const void *x, uint64_t slices, int stream,
                    lanes_fn lanes, int64_t *out);

#endif
