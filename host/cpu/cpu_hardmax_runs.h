/* Hardmax of float slices of many lanes on short axes, a run of lanes at a time through the cache
 * (cpu_hardmax_runs.c). */
#ifndef CLMAX_CPU_HARDMAX_RUNS_H
#define CLMAX_CPU_HARDMAX_RUNS_H

#include "problem.h"

#include <stdint.h>

/* Whether this code takes p (a Hardmax problem): a float type, n 2 to 8 and at most 32 bytes a
 * lane (float64: 2 to 4), and at least 256 lanes (512 where n > 4). */
int clmax_cpu_hardmax_runs_fit(const clmax_problem *p);

/* The blocks of work p makes: up to 4096 lanes of one slice each. */
uint64_t clmax_cpu_hardmax_runs_blocks(const clmax_problem *p);

/* The one-hot of blocks [begin, end) of p's input x into the output y (both whole), on the
 * calling thread; call_bytes: the whole call's output, which picks the stores (onehot.h). */
void clmax_cpu_hardmax_runs(const clmax_problem *p, uint64_t begin, uint64_t end, const void *x,
                            void *y, uint64_t call_bytes);

#endif
