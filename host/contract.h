/* The operator contract (DESIGN.md section 1), checked in one place for both ways in: the
 * host-pointer operators (host/api.c) and the enqueue API (host/opencl/cl_enqueue.c). */
#ifndef CLMAX_CONTRACT_H
#define CLMAX_CONTRACT_H

#include "problem.h"

/* Every check of an operator call (opset, type, rank, shape, axis, attributes) and the canonical
 * problem. *count receives the input's element count; *axis the non-negative axis. */
clmax_status clmax_argmax_prepare(const clmax_tensor_desc *in, const clmax_argmax_attrs *attrs,
                                  int min, clmax_problem *p, uint64_t *count, int *axis);
clmax_status clmax_hardmax_prepare(const clmax_tensor_desc *in, const clmax_hardmax_attrs *attrs,
                                   clmax_problem *p, uint64_t *count);

#endif
