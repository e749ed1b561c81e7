/* Hardmax of float slices of 2 to 4 rows, or contiguous rows of 8, in one pass
 * (cpu_hardmax_tiny.c). */
#ifndef CLMAX_CPU_HARDMAX_TINY_H
#define CLMAX_CPU_HARDMAX_TINY_H

#include "problem.h"

#include <stdint.h>

/* Whether this code takes p (a Hardmax problem): a float type, n 2 to 4 with inner 1 or at least
 * 16, or n 8 with inner 1. cpu_hardmax.c asks the runs (cpu_hardmax_runs.h) first, which take
 * every such slice of 256 lanes or more: here the lanes run 16 to 255. */
int clmax_cpu_hardmax_tiny_fits(const clmax_problem *p);

/* The one-hot of slices [0, rows) of p's shape from x into y, on the calling thread. */
void clmax_cpu_hardmax_tiny(const clmax_problem *p, uint64_t rows, const void *x, void *y);

#endif
