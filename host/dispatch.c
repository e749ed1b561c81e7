/* Runs a problem on the context's backend: strided axes with few lanes as wide rows
 * (host/narrow.c), and in an auto context a device failure answered by the CPU path. */
#include "backend.h"
#include "narrow.h"
#include "status.h"

#include <stdio.h>

int clmax_fallback_applies(const clmax_context *ctx, clmax_status st)
{
    return ctx->fallback && ctx->iface->reduce != clmax_cpu_reduce &&
           (st == CLMAX_ERROR_OPENCL || st == CLMAX_ERROR_BUILD || st == CLMAX_ERROR_OUT_OF_MEMORY);
}

void clmax_report_cpu(const clmax_context *ctx)
{
    char name[64];
    snprintf(name, sizeof name, "CPU (%d threads)", ctx->num_threads);
    clmax_call_ran(CLMAX_BACKEND_CPU, name);
}

static clmax_status reduce_direct(clmax_context *ctx, const clmax_problem *p, const void *x,
                                  int64_t *idx)
{
    clmax_status st = ctx->iface->reduce(ctx, p, x, idx);
    if (st == CLMAX_OK) clmax_call_ran(ctx->backend, ctx->device_name);
    if (st == CLMAX_OK || !clmax_fallback_applies(ctx, st)) return st;
    clmax_call_fell_back(st);
    st = clmax_cpu_reduce(ctx, p, x, idx);
    if (st == CLMAX_OK) clmax_report_cpu(ctx);
    return st;
}

clmax_status clmax_reduce(clmax_context *ctx, const clmax_problem *p, const void *x, int64_t *idx)
{
    uint64_t g = clmax_narrow_rows(ctx, p);
    if (g != 0) return clmax_reduce_narrow(ctx, p, x, idx, g, reduce_direct);
    return reduce_direct(ctx, p, x, idx);
}
