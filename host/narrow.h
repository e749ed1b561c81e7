/* Strided axes with few inner lanes, taken as one wide row (host/narrow.c). */
#ifndef CLMAX_NARROW_H
#define CLMAX_NARROW_H

#include "problem.h"

typedef clmax_status (*clmax_reduce_fn)(clmax_context *ctx, const clmax_problem *p, const void *x,
                                        int64_t *idx);
/* The rows g taken as one wide row for problem p on ctx, or 0 where that does not apply (also
 * under a forced strategy: those run the kernels on the shapes as given); and the reduction of p
 * through the wide problem, run by reduce. */
uint64_t clmax_narrow_rows(const clmax_context *ctx, const clmax_problem *p);
clmax_status clmax_reduce_narrow(clmax_context *ctx, const clmax_problem *p, const void *x,
                                 int64_t *idx, uint64_t g, clmax_reduce_fn reduce);

#endif
