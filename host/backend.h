/* The backend interface: the context every backend runs in, the functions each backend provides
 * (DESIGN.md: a small struct of function pointers), and how the operators above call them. */
#ifndef CLMAX_BACKEND_H
#define CLMAX_BACKEND_H

#include "plan.h"
#include "pool.h"
#include "problem.h"
#include "store.h"

/* What a backend provides; it fills ctx->iface when the context is created. */
typedef struct clmax_backend_iface {
    clmax_status (*reduce)(clmax_context *ctx, const clmax_problem *p, const void *x, int64_t *idx);
    /* Optional (NULL: none): Hardmax on host memory in one pass. *done is 0 (nothing run, nothing
     * recorded) where it does not apply; the operator then reduces and fills on the host. */
    clmax_status (*hardmax)(clmax_context *ctx, const clmax_problem *p, const void *x, void *y,
                            int *done);
    /* Optional (NULL: nothing to build): builds the programs of the given types (NULL: all). */
    clmax_status (*prebuild)(clmax_context *ctx, const clmax_type *types, size_t ntypes);
    void (*destroy)(clmax_context *ctx);
} clmax_backend_iface;

typedef struct clmax_cl clmax_cl; /* OpenCL state, host/opencl/ */

struct clmax_context {
    clmax_backend backend;
    const clmax_backend_iface *iface;
    char device_name[512];
    int num_threads;
    uint64_t max_chunk_bytes; /* 0: no limit besides the device's */
    clmax_strategy strategy;
    clmax_plan_as plan_as;
    int cpu_avx512_off; /* CLMAX_CPU_AVX512=off: the CPU path keeps to 256-bit vectors */
    int fallback; /* created in auto mode: a failing OpenCL call is answered by the CPU path */
    clmax_cl *cl;
    clmax_pool *pool;    /* NULL if it could not be made: every call then starts its own threads */
    clmax_store store;   /* what is kept on disk between processes (OpenCL contexts only) */
    char warnings[2048]; /* what the context could not do as asked, a line each */
};

/* Backends. Each returns CLMAX_OK and sets ctx->iface, or a failure with the error recorded. */
clmax_status clmax_cpu_init(clmax_context *ctx);
clmax_status clmax_opencl_init(clmax_context *ctx, const char *device_selector);
/* The CPU path's reduce, also used as the fallback of an auto context. */
clmax_status clmax_cpu_reduce(clmax_context *ctx, const clmax_problem *p, const void *x,
                              int64_t *idx);

/* host/dispatch.c. Runs ctx's backend; in auto mode a device failure is retried on the CPU path.
 * Strided axes with few inner lanes go through clmax_reduce_narrow. */
clmax_status clmax_reduce(clmax_context *ctx, const clmax_problem *p, const void *x, int64_t *idx);
/* Records in the call report that the CPU path computed (a part of) the answer. */
void clmax_report_cpu(const clmax_context *ctx);
/* Whether failure st of ctx's device is answered by the CPU path (an auto context). */
int clmax_fallback_applies(const clmax_context *ctx, clmax_status st);

#endif
