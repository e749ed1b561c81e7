/* Runs a problem on the context's backend: strided axes with few lanes as wide rows
 * (host/narrow.c; on the CPU path only the longest, as it reads the others in rows of its own);
 * in an auto context, on the path the cost model expects faster (host/cost.h),
 * and a device failure answered by the CPU path. */
#include "backend.h"
#include "cost.h"
#include "narrow.h"
#include "status.h"

#include <stdio.h>

int clmax_auto_with_device(const clmax_context *ctx)
{
    return ctx->fallback && ctx->iface->reduce != clmax_cpu_reduce;
}

int clmax_on_cpu_path(const clmax_context *ctx, int on_device)
{
    return !on_device || ctx->iface->reduce == clmax_cpu_reduce;
}

int clmax_fallback_applies(const clmax_context *ctx, clmax_status st)
{
    return clmax_auto_with_device(ctx) &&
           (st == CLMAX_ERROR_OPENCL || st == CLMAX_ERROR_BUILD || st == CLMAX_ERROR_OUT_OF_MEMORY);
}

void clmax_report_cpu(const clmax_context *ctx)
{
    clmax_call_ran(CLMAX_BACKEND_CPU, ctx->cpu_name);
}

int clmax_route_device(clmax_context *ctx, uint64_t n, uint64_t bytes)
{
    if (n == 1) {
        /* Every index 0, Hardmax all ones: nothing for a device to do (PoCL read and reduced such
         * inputs at 0.006-0.18 of the limit that the CPU path's write alone reaches). */
        if (ctx->iface->reduce != clmax_cpu_reduce) clmax_call_chose(CLMAX_CHOSE_AXIS_ONE, 0, 0, 0);
        return 0;
    }
    if (!clmax_auto_with_device(ctx)) return 1;
    if (ctx->auto_path != CLMAX_AUTO_PATH_MODEL) {
        int device = ctx->auto_path == CLMAX_AUTO_PATH_DEVICE;
        clmax_call_chose(CLMAX_CHOSE_FORCED, device, 0, 0);
        return device;
    }
    int measuring = 0;
    const clmax_cost_profile *pf = clmax_cost_profile_of(ctx, &measuring);
    if (pf == NULL) {
        /* While the helper measures, the CPU path answers at once: no build, no waiting. */
        clmax_call_chose(measuring ? CLMAX_CHOSE_MEASURING : CLMAX_CHOSE_UNMEASURED, !measuring, 0,
                         0);
        return !measuring;
    }
    int device = clmax_cost_prefers_device(pf, bytes);
    clmax_call_chose(CLMAX_CHOSE_MODEL, device, clmax_cost_cpu_seconds(pf, bytes),
                     clmax_cost_device_seconds(pf, bytes));
    return device;
}

static clmax_status reduce_cpu(clmax_context *ctx, const clmax_problem *p, const void *x,
                               int64_t *idx)
{
    clmax_status st = clmax_cpu_reduce(ctx, p, x, idx);
    if (st == CLMAX_OK) clmax_report_cpu(ctx);
    return st;
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

clmax_status clmax_reduce(clmax_context *ctx, const clmax_problem *p, const void *x, int64_t *idx,
                          int on_device)
{
    clmax_status (*run)(clmax_context *, const clmax_problem *, const void *, int64_t *) =
        on_device ? reduce_direct : reduce_cpu;
    uint64_t g =
        clmax_on_cpu_path(ctx, on_device) && clmax_cpu_few_lanes(p) ? 0 : clmax_narrow_rows(ctx, p);
    if (g != 0) return clmax_reduce_narrow(ctx, p, x, idx, g, run);
    return run(ctx, p, x, idx);
}
