/* Internal declarations shared by the API layer, the planner and the backends. */
#ifndef CLMAX_INTERNAL_H
#define CLMAX_INTERNAL_H

#include "clmax.h"

#include <stdint.h>

#define CLMAX_ERROR_MAX 4096

/* Record the detail of a failure for clmax_last_error() and return status. printf-style. */
clmax_status clmax_fail(clmax_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Forget the last error of this thread (called on entry to each public call). */
void clmax_clear_error(void);

/* One reduction, in the canonical view: x is [outer, n, inner] of elements of `type`; the answer
 * for (o, i) is the index along n of the winner, written to idx[o * inner + i]. n >= 1. */
typedef struct clmax_problem {
    clmax_type type;
    uint64_t esize; /* bytes per element */
    uint64_t outer, n, inner;
    int last; /* select_last_index: ties go to the largest index */
    int min;  /* ArgMin: the smallest value wins (NaN still wins, as in the ONNX reference) */
} clmax_problem;

/* Every check of an operator call (opset, type, rank, shape, axis, attributes) and the canonical
 * problem. *count receives the input's element count; *axis the non-negative axis. */
clmax_status clmax_argmax_prepare(const clmax_tensor_desc *in, const clmax_argmax_attrs *attrs,
                                  int min, clmax_problem *p, uint64_t *count, int *axis);
clmax_status clmax_hardmax_prepare(const clmax_tensor_desc *in, const clmax_hardmax_attrs *attrs,
                                   clmax_problem *p, uint64_t *count);

/* clmax_hardmax on an OpenCL CPU device that shares memory with the host, in one pass: see
 * host/opencl/cl_enqueue.c. *done is 0 (nothing run, nothing recorded) where it does not apply. */
clmax_status clmax_cl_hardmax_in_place(clmax_context *ctx, const clmax_problem *p, const void *x,
                                       void *y, int *done);

/* Builds the programs of the given types (NULL: all) on an OpenCL context. */
clmax_status clmax_cl_prebuild(clmax_context *ctx, const clmax_type *types, size_t ntypes);

/* The backend interface: each backend fills one of these when a context is created. */
typedef struct clmax_backend_iface {
    clmax_status (*reduce)(clmax_context *ctx, const clmax_problem *p, const void *x, int64_t *idx);
    void (*destroy)(clmax_context *ctx);
} clmax_backend_iface;

typedef struct clmax_cl clmax_cl;     /* OpenCL state, host/opencl/ */
typedef struct clmax_pool clmax_pool; /* the context's threads, host/pool.c */

/* CLMAX_PLAN (a testing aid): plan for the device's real kind, or as if it were a CPU device or a
 * discrete GPU, so that the tuning of either kind runs on whatever device is at hand. */
typedef enum clmax_plan_as {
    CLMAX_PLAN_AS_DEVICE = 0,
    CLMAX_PLAN_AS_CPU = 1, /* is_cpu; unified memory as the device reports it */
    CLMAX_PLAN_AS_GPU = 2  /* not is_cpu, no unified memory: chunks copied, never used in place */
} clmax_plan_as;

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
    clmax_pool *pool; /* NULL if it could not be made: every call then starts its own threads */
};

/* Backends. Each returns CLMAX_OK and sets ctx->iface, or a failure with the error recorded. */
clmax_status clmax_cpu_init(clmax_context *ctx);
clmax_status clmax_opencl_init(clmax_context *ctx, const char *device_selector);
/* The CPU path's reduce, also used as the fallback of an auto context. */
clmax_status clmax_cpu_reduce(clmax_context *ctx, const clmax_problem *p, const void *x,
                              int64_t *idx);

/* Runs ctx's backend; in auto mode a device failure is retried on the CPU path. Strided axes with
 * few inner lanes go through clmax_reduce_narrow. */
clmax_status clmax_reduce(clmax_context *ctx, const clmax_problem *p, const void *x, int64_t *idx);
typedef clmax_status (*clmax_reduce_fn)(clmax_context *ctx, const clmax_problem *p, const void *x,
                                        int64_t *idx);
/* host/narrow.c: the rows g taken as one wide row for problem p on ctx, or 0 where that does not
 * apply (also under a forced strategy: those run the kernels on the shapes as given); and the
 * reduction of p through the wide problem, run by reduce. */
uint64_t clmax_narrow_rows(const clmax_context *ctx, const clmax_problem *p);
clmax_status clmax_reduce_narrow(clmax_context *ctx, const clmax_problem *p, const void *x,
                                 int64_t *idx, uint64_t g, clmax_reduce_fn reduce);
/* Whether failure st of ctx's device is answered by the CPU path (an auto context). */
int clmax_fallback_applies(const clmax_context *ctx, clmax_status st);

int clmax_online_cores(void);

/* The context's threads (host/pool.c). clmax_pool_run runs fn(arg, t) exactly once for every t in
 * [0, tasks), t = 0 on the calling thread, and returns when all are done; pool may be NULL. */
typedef void (*clmax_task_fn)(void *arg, int t);
clmax_pool *clmax_pool_create(void);
void clmax_pool_destroy(clmax_pool *pool);
void clmax_pool_run(clmax_pool *pool, int tasks, clmax_task_fn fn, void *arg);

/* Runs fn over [0, count) split in contiguous ranges over up to ctx->num_threads threads (the
 * caller's included), each range at least min_per_thread long. */
typedef void (*clmax_range_fn)(void *arg, uint64_t begin, uint64_t end);
void clmax_parallel_for(clmax_context *ctx, uint64_t count, uint64_t min_per_thread,
                        clmax_range_fn fn, void *arg);

/* Applies the CLMAX_* environment (unless o->ignore_environment) to the settings left at their
 * defaults; backend may be NULL where the backend is not chosen from the environment. *plan_as
 * and *avx512_off have no option: CLMAX_PLAN_AS_DEVICE and 0 unless CLMAX_PLAN and
 * CLMAX_CPU_AVX512 say otherwise. */
clmax_status clmax_parse_env(const clmax_context_options *o, clmax_backend *backend,
                             uint64_t *chunk, clmax_strategy *strategy, clmax_plan_as *plan_as,
                             int *avx512_off);

#endif
