/* Context creation: options, environment, backend choice and the fallback to the CPU path. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void clmax_context_options_init(clmax_context_options *options)
{
    if (options == NULL) return;
    memset(options, 0, sizeof *options);
    options->backend = CLMAX_BACKEND_AUTO;
    options->strategy = CLMAX_STRATEGY_AUTO;
}

int clmax_online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 256 ? 256 : (int)n);
}

static const char *env(const clmax_context_options *o, const char *name)
{
    if (o->ignore_environment) return NULL;
    const char *v = getenv(name);
    return (v != NULL && v[0] != '\0') ? v : NULL;
}

/* The index in names (a NULL-terminated list) of the value v, ignoring case, or -1. */
static int choice(const char *v, const char *const *names)
{
    for (int i = 0; names[i] != NULL; i++)
        if (strcasecmp(v, names[i]) == 0) return i;
    return -1;
}

clmax_status clmax_parse_env(const clmax_context_options *o, clmax_backend *backend,
                             uint64_t *chunk, clmax_strategy *strategy, clmax_plan_as *plan_as,
                             int *avx512_off)
{
    /* In the order of each enum's values. */
    static const char *const backends[] = {"auto", "opencl", "cpu", NULL};
    static const char *const strategies[] = {"auto", "rows", "strided", "split", NULL};
    static const char *const plans[] = {"auto", "cpu", "gpu", NULL};
    static const char *const isa[] = {"auto", "off", NULL};
    const char *v;
    int i;
    if (backend != NULL && *backend == CLMAX_BACKEND_AUTO &&
        (v = env(o, "CLMAX_BACKEND")) != NULL) {
        if ((i = choice(v, backends)) < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_BACKEND=%s: expected auto, opencl or cpu", v);
        *backend = (clmax_backend)i;
    }
    if (*chunk == 0 && (v = env(o, "CLMAX_MAX_CHUNK_BYTES")) != NULL) {
        char *end;
        errno = 0;
        unsigned long long c = strtoull(v, &end, 10);
        if (errno != 0 || *end != '\0' || c == 0 || v[0] == '-')
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_MAX_CHUNK_BYTES=%s: expected a positive byte count", v);
        *chunk = c;
    }
    if (*strategy == CLMAX_STRATEGY_AUTO && (v = env(o, "CLMAX_STRATEGY")) != NULL) {
        if ((i = choice(v, strategies)) < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_STRATEGY=%s: expected auto, rows, strided or split", v);
        *strategy = (clmax_strategy)i;
    }
    *plan_as = CLMAX_PLAN_AS_DEVICE;
    if ((v = env(o, "CLMAX_PLAN")) != NULL) {
        if ((i = choice(v, plans)) < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_PLAN=%s: expected auto, cpu or gpu", v);
        *plan_as = (clmax_plan_as)i;
    }
    *avx512_off = 0;
    if ((v = env(o, "CLMAX_CPU_AVX512")) != NULL) {
        if ((i = choice(v, isa)) < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                              "CLMAX_CPU_AVX512=%s: expected auto or off", v);
        *avx512_off = i == 1;
    }
    return CLMAX_OK;
}

clmax_status clmax_context_create(const clmax_context_options *options, clmax_context **out)
{
    clmax_clear_error();
    if (out == NULL) return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, "ctx is NULL");
    *out = NULL;
    clmax_context_options o;
    if (options != NULL)
        o = *options;
    else
        clmax_context_options_init(&o);

    if (o.backend != CLMAX_BACKEND_AUTO && o.backend != CLMAX_BACKEND_OPENCL &&
        o.backend != CLMAX_BACKEND_CPU)
        return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, "backend %d is not a clmax_backend",
                          (int)o.backend);
    if ((unsigned)o.strategy > CLMAX_STRATEGY_SPLIT)
        return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, "strategy %d is not a clmax_strategy",
                          (int)o.strategy);
    if (o.num_threads < 0)
        return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, "num_threads is negative (%d)",
                          o.num_threads);
    clmax_backend backend = o.backend;
    uint64_t chunk = o.max_chunk_bytes;
    clmax_strategy strategy = o.strategy;
    clmax_plan_as plan_as;
    int avx512_off;
    clmax_status st = clmax_parse_env(&o, &backend, &chunk, &strategy, &plan_as, &avx512_off);
    if (st != CLMAX_OK) return st;
    const char *device = o.device != NULL ? o.device : env(&o, "CLMAX_DEVICE");

    clmax_context *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "context");
    ctx->num_threads = o.num_threads > 0 ? o.num_threads : clmax_online_cores();
    ctx->pool = clmax_pool_create();
    ctx->max_chunk_bytes = chunk;
    ctx->strategy = strategy;
    ctx->plan_as = plan_as;
    ctx->cpu_avx512_off = avx512_off;

    if (backend != CLMAX_BACKEND_CPU) {
        st = clmax_opencl_init(ctx, device);
        if (st == CLMAX_OK) {
            ctx->backend = CLMAX_BACKEND_OPENCL;
            ctx->fallback = backend == CLMAX_BACKEND_AUTO;
            *out = ctx;
            return CLMAX_OK;
        }
        if (backend == CLMAX_BACKEND_OPENCL) {
            clmax_pool_destroy(ctx->pool);
            free(ctx);
            return st;
        }
        clmax_clear_error(); /* auto: the CPU path takes over */
    }
    st = clmax_cpu_init(ctx);
    if (st != CLMAX_OK) {
        clmax_pool_destroy(ctx->pool);
        free(ctx);
        return st;
    }
    ctx->backend = CLMAX_BACKEND_CPU;
    *out = ctx;
    return CLMAX_OK;
}

void clmax_context_destroy(clmax_context *ctx)
{
    if (ctx == NULL) return;
    if (ctx->iface != NULL && ctx->iface->destroy != NULL) ctx->iface->destroy(ctx);
    clmax_pool_destroy(ctx->pool);
    free(ctx);
}

int clmax_fallback_applies(const clmax_context *ctx, clmax_status st)
{
    return ctx->fallback && ctx->iface->reduce != clmax_cpu_reduce &&
           (st == CLMAX_ERROR_OPENCL || st == CLMAX_ERROR_BUILD || st == CLMAX_ERROR_OUT_OF_MEMORY);
}

static clmax_status reduce_direct(clmax_context *ctx, const clmax_problem *p, const void *x,
                                  int64_t *idx)
{
    clmax_status st = ctx->iface->reduce(ctx, p, x, idx);
    if (st == CLMAX_OK || !clmax_fallback_applies(ctx, st)) return st;
    clmax_clear_error();
    return clmax_cpu_reduce(ctx, p, x, idx);
}

clmax_status clmax_reduce(clmax_context *ctx, const clmax_problem *p, const void *x, int64_t *idx)
{
    uint64_t g = clmax_narrow_rows(ctx, p);
    if (g != 0) return clmax_reduce_narrow(ctx, p, x, idx, g, reduce_direct);
    return reduce_direct(ctx, p, x, idx);
}

clmax_backend clmax_context_backend(const clmax_context *ctx)
{
    return ctx != NULL ? ctx->backend : CLMAX_BACKEND_AUTO;
}

const char *clmax_context_device_name(const clmax_context *ctx)
{
    return ctx != NULL ? ctx->device_name : "";
}

clmax_status clmax_context_prebuild(clmax_context *ctx, const clmax_type *types, size_t ntypes)
{
    clmax_clear_error();
    if (ctx == NULL) return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, "context is NULL");
    if (types == NULL && ntypes != 0)
        return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, "types is NULL but ntypes is %zu", ntypes);
    for (size_t i = 0; i < ntypes; i++)
        if (clmax_type_size(types[i]) == 0)
            return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE, "types[%zu] = %d is not a clmax_type",
                              i, (int)types[i]);
    if (ctx->cl == NULL) return CLMAX_OK;
    return clmax_cl_prebuild(ctx, types, ntypes);
}
