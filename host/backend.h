/* The backend interface: the context every backend runs in, the functions each backend provides
 * (DESIGN.md: a small struct of function pointers), and how the operators above call them. */
#ifndef CLMAX_BACKEND_H
#define CLMAX_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "cost.h"
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
    /* Optional (NULL: nothing kept): the device's entry named key in the context's store
     * (malloc'd, *size bytes; NULL when there is none), and keeping one. */
    unsigned char *(*load_fact)(clmax_context *ctx, const char *key, size_t *size);
    void (*save_fact)(clmax_context *ctx, const char *key, const void *bytes, size_t size);
    /* Optional (NULL: nothing to build): builds the programs of the given types (NULL: all). */
    /* options: checked, operators not 0; report: zeroed, to fill. */
    clmax_status (*prebuild)(clmax_context *ctx, const clmax_prebuild_options *options,
                             clmax_prebuild_report *report);
    void (*destroy)(clmax_context *ctx);
} clmax_backend_iface;

typedef struct clmax_cl clmax_cl; /* OpenCL state, host/opencl/ */

/* CLMAX_AUTO_PATH: an auto context's per-call choice, by the cost model or forced (testing aid). */
typedef enum { CLMAX_AUTO_PATH_MODEL, CLMAX_AUTO_PATH_CPU, CLMAX_AUTO_PATH_DEVICE } clmax_auto_path;

struct clmax_context {
    clmax_backend backend;
    const clmax_backend_iface *iface;
    char device_name[512];
    int num_threads;
    char cpu_name[64];        /* "CPU (N threads)": how reports name the CPU path */
    uint64_t max_chunk_bytes; /* 0: no limit besides the device's */
    clmax_strategy strategy;
    clmax_plan_as plan_as;
    int cpu_avx512_off;  /* CLMAX_CPU_AVX512=off: the CPU path keeps to 256-bit vectors */
    int cpu_avx512_full; /* =full: every 512-bit code, none measured first */
    int fallback; /* created in auto mode: a failing OpenCL call is answered by the CPU path */
    clmax_auto_path auto_path; /* how an auto context picks the path of a host-pointer call */
    pthread_mutex_t cost_lock; /* guards the cost profile's measurement */
    atomic_int cost_state;   /* 0: not sought yet, 2: being measured, 1: cost holds it, -1: none */
    clmax_cost_profile cost; /* the device's and the CPU path's lines (host/calibrate.c) */
    pthread_t cost_thread;   /* the helper measuring it (host/calibrate.c), when cost_helper */
    int cost_helper;         /* 1 while cost_thread is to be joined (under cost_lock) */
    pid_t cost_pid;          /* the process that started it (a forked child has no helper) */
    atomic_int cost_cancel;  /* set when the context goes: the helper stops at its next step */
    clmax_cl *cl;
    clmax_pool *pool;    /* NULL if it could not be made: every call then starts its own threads */
    clmax_store store;   /* what is kept on disk between processes (OpenCL contexts only) */
    char warnings[2048]; /* what the context could not do as asked, a line each */
};

/* host/context.c. A zeroed context with its lock (NULL when out of memory), and its release. */
clmax_context *clmax_context_new(void);
void clmax_context_free(clmax_context *ctx);

/* Backends. Each returns CLMAX_OK and sets ctx->iface, or a failure with the error recorded. */
clmax_status clmax_cpu_init(clmax_context *ctx);
clmax_status clmax_opencl_init(clmax_context *ctx, const char *device_selector);
/* The CPU path's reduce, also used as the fallback of an auto context. */
clmax_status clmax_cpu_reduce(clmax_context *ctx, const clmax_problem *p, const void *x,
                              int64_t *idx);
/* Whether the CPU path reads p's strided axis as rows of several positions of its few lanes
 * (cpu_backend.c, few_lanes), which then is not widened (host/narrow.c). */
int clmax_cpu_few_lanes(const clmax_problem *p);
/* The same on the calling thread alone (for work already spread over the threads). */
clmax_status clmax_cpu_reduce_here(clmax_context *ctx, const clmax_problem *p, const void *x,
                                   int64_t *idx);
/* host/cpu/cpu_hardmax.c. Whether Hardmax of p runs fused on the CPU path (each thread finds the
 * winners of a block of slices and writes their one-hot at once), and that run. */
int clmax_cpu_hardmax_fits(const clmax_context *ctx, const clmax_problem *p);
clmax_status clmax_cpu_hardmax(clmax_context *ctx, const clmax_problem *p, const void *x, void *y);

/* host/dispatch.c. Whether a host-pointer call along an axis of n moving bytes (input and output)
 * runs on ctx's backend (1) or on the CPU path (0): 1 but in an auto context with a device, where
 * the cost model or CLMAX_AUTO_PATH decides, and on an axis of one (n == 1), whose answer the CPU
 * path writes without reading the input, in any context; the choice goes into the call report. */
int clmax_route_device(clmax_context *ctx, uint64_t n, uint64_t bytes);
/* Whether a call routed so (on_device from clmax_route_device) is answered by the CPU path: it is
 * routed there, or ctx's backend is the CPU path itself. */
int clmax_on_cpu_path(const clmax_context *ctx, int on_device);
/* Runs ctx's backend (on_device, from clmax_route_device) or the CPU path; in auto mode a device
 * failure is retried on the CPU path. Strided axes with few inner lanes go through
 * clmax_reduce_narrow. */
clmax_status clmax_reduce(clmax_context *ctx, const clmax_problem *p, const void *x, int64_t *idx,
                          int on_device);
/* host/calibrate.c. The cost profile of an auto context's device, read back (this process's
 * earlier contexts, the store) or measured once; NULL when there is none yet. Measuring runs on a
 * helper thread, never on the caller's: until it ends *measuring is 1 (the call takes the CPU
 * path), and 0 once it has failed (no profile: the device answers). */
const clmax_cost_profile *clmax_cost_profile_of(clmax_context *ctx, int *measuring);
/* Stops and joins ctx's helper, if it has one (before the context's backend goes). */
void clmax_cost_helper_stop(clmax_context *ctx);
/* In an auto context with a device, measures the profile now if it is not known, and waits for
 * it (clmax_context_prebuild: a warm-up leaves nothing for the calls to wait for). */
void clmax_cost_measure_now(clmax_context *ctx);
/* Records in the call report that the CPU path computed (a part of) the answer. */
void clmax_report_cpu(const clmax_context *ctx);
/* Whether ctx is an auto context with a device: the one kind whose calls choose a path. */
int clmax_auto_with_device(const clmax_context *ctx);
/* Whether failure st of ctx's device is answered by the CPU path (an auto context). */
int clmax_fallback_applies(const clmax_context *ctx, clmax_status st);

#endif
