/* Contexts: creation from the options and the environment (host/options.c), the backend choice
 * and, in auto mode, the CPU path when no OpenCL device can be used; the queries and prebuilding.
 */
#include "backend.h"
#include "options.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

clmax_context *clmax_context_new(void)
{
    clmax_context *ctx = calloc(1, sizeof *ctx);
    if (ctx != NULL && pthread_mutex_init(&ctx->cost_lock, NULL) != 0) {
        free(ctx);
        return NULL;
    }
    if (ctx != NULL) atomic_init(&ctx->cost_state, 0), atomic_init(&ctx->cost_cancel, 0);
    return ctx;
}

void clmax_context_free(clmax_context *ctx)
{
    pthread_mutex_destroy(&ctx->cost_lock);
    free(ctx);
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
    int avx512;
    clmax_auto_path auto_path;
    clmax_status st =
        clmax_parse_env(&o, &backend, &chunk, &strategy, &plan_as, &avx512, &auto_path);
    clmax_cache_settings cache;
    if (st == CLMAX_OK) st = clmax_cache_settings_of(&o, &cache);
    if (st != CLMAX_OK) return st;
    const char *device = clmax_device_selector(&o);

    clmax_context *ctx = clmax_context_new();
    if (ctx == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "context");
    ctx->auto_path = auto_path;
    ctx->num_threads = o.num_threads > 0 ? o.num_threads : clmax_online_cores();
    snprintf(ctx->cpu_name, sizeof ctx->cpu_name, "CPU (%d threads)", ctx->num_threads);
    ctx->pool = clmax_pool_create();
    ctx->max_chunk_bytes = chunk;
    ctx->strategy = strategy;
    ctx->plan_as = plan_as;
    ctx->cpu_avx512_off = avx512 == 1;
    ctx->cpu_avx512_full = avx512 == 2;

    if (backend != CLMAX_BACKEND_CPU) {
        clmax_open_store(ctx, &o, &cache); /* before the device's probes, which it keeps */
        st = clmax_opencl_init(ctx, device);
        if (st == CLMAX_OK) {
            ctx->backend = CLMAX_BACKEND_OPENCL;
            ctx->fallback = backend == CLMAX_BACKEND_AUTO;
            *out = ctx;
            return CLMAX_OK;
        }
        if (backend == CLMAX_BACKEND_OPENCL) {
            clmax_pool_destroy(ctx->pool);
            clmax_context_free(ctx);
            return st;
        }
        /* auto: the CPU path takes over, and the context says why. */
        snprintf(ctx->warnings, sizeof ctx->warnings,
                 "OpenCL not used, the CPU path computes every call: %.1900s\n",
                 clmax_last_error());
        clmax_clear_error();
    }
    st = clmax_cpu_init(ctx);
    if (st != CLMAX_OK) {
        clmax_pool_destroy(ctx->pool);
        clmax_context_free(ctx);
        return st;
    }
    ctx->backend = CLMAX_BACKEND_CPU;
    *out = ctx;
    return CLMAX_OK;
}

void clmax_context_destroy(clmax_context *ctx)
{
    if (ctx == NULL) return;
    clmax_cost_helper_stop(ctx);
    if (ctx->iface != NULL && ctx->iface->destroy != NULL) ctx->iface->destroy(ctx);
    clmax_pool_destroy(ctx->pool);
    clmax_context_free(ctx);
}

clmax_backend clmax_context_backend(const clmax_context *ctx)
{
    return ctx != NULL ? ctx->backend : CLMAX_BACKEND_AUTO;
}

const char *clmax_context_device_name(const clmax_context *ctx)
{
    return ctx != NULL ? ctx->device_name : "";
}

const char *clmax_context_warnings(const clmax_context *ctx)
{
    return ctx != NULL ? ctx->warnings : "";
}

void clmax_prebuild_options_init(clmax_prebuild_options *options)
{
    if (options != NULL) memset(options, 0, sizeof *options);
}

clmax_status clmax_context_prebuild(clmax_context *ctx, const clmax_prebuild_options *options,
                                    clmax_prebuild_report *report)
{
    clmax_clear_error();
    clmax_prebuild_report none = {0};
    if (report != NULL) *report = none;
    if (ctx == NULL) return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, "context is NULL");
    clmax_prebuild_options o;
    clmax_prebuild_options_init(&o);
    if (options != NULL) o = *options;
    if (o.types == NULL && o.ntypes != 0)
        return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, "types is NULL but ntypes is %zu",
                          o.ntypes);
    for (size_t i = 0; i < o.ntypes; i++)
        if (clmax_type_size(o.types[i]) == 0)
            return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE, "types[%zu] = %d is not a clmax_type",
                              i, (int)o.types[i]);
    const unsigned all = CLMAX_PREBUILD_ARGMAX | CLMAX_PREBUILD_ARGMIN | CLMAX_PREBUILD_HARDMAX;
    if (o.operators & ~all)
        return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT,
                          "operators = %#x: only CLMAX_PREBUILD_ARGMAX, _ARGMIN and _HARDMAX "
                          "(%#x, %#x, %#x) are operators",
                          o.operators, CLMAX_PREBUILD_ARGMAX, CLMAX_PREBUILD_ARGMIN,
                          CLMAX_PREBUILD_HARDMAX);
    if (o.operators == 0) o.operators = all;
    if (ctx->iface->prebuild == NULL) return CLMAX_OK;
    clmax_status st = ctx->iface->prebuild(ctx, &o, report != NULL ? report : &none);
    if (st == CLMAX_OK) clmax_cost_measure_now(ctx);
    return st;
}
