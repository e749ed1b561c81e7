/* Hardmax of float slices of short axes and few lanes by running maxima along the axis, in 512-bit
 * vectors (cpu_hardmax_scan.c). */
#ifndef CLMAX_CPU_HARDMAX_SCAN_H
#define CLMAX_CPU_HARDMAX_SCAN_H

#include "problem.h"

#include <stdint.h>

struct clmax_context;

/* Whether this code takes p (a Hardmax problem) in ctx: 512-bit vectors (clmax_cpu_wide), a float
 * type, 2 to 9 rows of 1 to 64 lanes (two-byte types of 5 rows or more, up to 256 lanes); past 3
 * rows or 15 lanes, only where it beat the neighbour compares on this CPU (timed once per process,
 * about 30 µs) or CLMAX_CPU_AVX512 is full. */
int clmax_cpu_hardmax_scan_fits(const struct clmax_context *ctx, const clmax_problem *p);

/* Whether the Hardmax codes' 512-bit forms that pay only where the scan does (it, and the wide
 * neighbour compares) run in ctx: 512-bit vectors, and the scan beat the 256-bit compares on
 * this CPU (timed once per process) or CLMAX_CPU_AVX512 is full. */
int clmax_cpu_hardmax_wide_pays(const struct clmax_context *ctx);

/* The one-hot of slices [0, rows) of p's shape from x into y, on the calling thread. */
void clmax_cpu_hardmax_scan(const clmax_problem *p, uint64_t rows, const void *x, void *y);

#endif
