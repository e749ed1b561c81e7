/* Hardmax of float slices of a few rows and a few lanes by neighbour compares, in one pass
 * (cpu_hardmax_near.c). */
#ifndef CLMAX_CPU_HARDMAX_NEAR_H
#define CLMAX_CPU_HARDMAX_NEAR_H

#include "problem.h"

#include <stdint.h>

/* Whether this code takes p (a Hardmax problem): a float type, n 2 to 8, inner 2 to 64, but for
 * the slices of cpu_hardmax_tiny.c (n up to 4, inner 16 or more) and four- and eight-byte types
 * with 7 or 8 rows, which take inner 5 to 15 only; and two-byte rows (inner 1) of 5 to 7. */
int clmax_cpu_hardmax_near_fits(const clmax_problem *p);

/* The one-hot of slices [0, rows) of p's shape from x into y, on the calling thread; wide: in
 * 512-bit vectors (clmax_cpu_wide). */
void clmax_cpu_hardmax_near(const clmax_problem *p, uint64_t rows, const void *x, void *y,
                            int wide);

#endif
