/* Hardmax of contiguous rows of 2, 3, 4 or 8 float elements in one pass (cpu_hardmax_tiny.c). */
#ifndef CLMAX_CPU_HARDMAX_TINY_H
#define CLMAX_CPU_HARDMAX_TINY_H

#include "problem.h"

#include <stdint.h>

/* Whether p (a Hardmax problem) is rows this code takes: a float type, inner 1, n 2, 3, 4 or 8. */
int clmax_cpu_hardmax_tiny_fits(const clmax_problem *p);

/* The one-hot of rows [0, rows) of p's shape from x into y, on the calling thread. */
void clmax_cpu_hardmax_tiny(const clmax_problem *p, uint64_t rows, const void *x, void *y);

#endif
