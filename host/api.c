/* The host-pointer operators: the contract checked (host/contract.c), the reduction run on the
 * context's backend, then the values gathered or the one-hot written on the host's threads. */
#include "backend.h"
#include "contract.h"
#include "fpenv.h"
#include "onehot.h"
#include "pool.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

typedef struct gather_job {
    const clmax_problem *p;
    const void *x;
    const int64_t *idx;
    void *values;
} gather_job;

#define GATHER_PER_THREAD 16384 /* outputs: fewer are gathered by the calling thread alone */
#define GATHER_AHEAD 16         /* winners prefetched ahead: each is usually a cache miss */

/* The element of x at the winner of output q. */
static const char *winner_at(const gather_job *g, uint64_t q)
{
    const clmax_problem *p = g->p;
    uint64_t o = q / p->inner, i = q % p->inner;
    return (const char *)g->x + ((o * p->n + (uint64_t)g->idx[q]) * p->inner + i) * p->esize;
}

/* The values of outputs [begin, end), copied bit for bit from the winners (a NaN row gives that
 * NaN). Along a strided axis the winners are scattered over the input, so they are prefetched a
 * few outputs ahead. */
static void gather_values(void *arg, uint64_t begin, uint64_t end)
{
    const gather_job *g = arg;
    size_t es = g->p->esize;
    for (uint64_t q = begin; q < end; q++) {
        if (q + GATHER_AHEAD < end) __builtin_prefetch(winner_at(g, q + GATHER_AHEAD));
        const char *src = winner_at(g, q);
        char *dst = (char *)g->values + q * es;
        switch (es) {
        case 1:
            *dst = *src;
            break;
        case 2:
            memcpy(dst, src, 2);
            break;
        case 4:
            memcpy(dst, src, 4);
            break;
        default:
            memcpy(dst, src, 8);
            break;
        }
    }
}

/* ArgMax / ArgMin, and the values at the winners when values is not NULL. */
static clmax_status arg_reduce(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                               const clmax_argmax_attrs *attrs, int min, int with_values,
                               void *values, int64_t *y)
{
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    int axis = 0;
    clmax_status st = clmax_argmax_prepare(input, attrs, min, &p, &count, &axis);
    if (st != CLMAX_OK) return st;
    if (p.outer == 0 || p.inner == 0) return CLMAX_OK; /* empty output */
    CHECK_ARG(x != NULL && y != NULL, "x or y is NULL for a non-empty tensor");
    CHECK_ARG(!with_values || values != NULL, "values is NULL for a non-empty output");
    uint64_t bytes = count * p.esize + p.outer * p.inner * (8 + (with_values ? p.esize : 0));
    st = clmax_reduce(ctx, &p, x, y, clmax_route_device(ctx, p.n, bytes));
    if (st != CLMAX_OK || values == NULL) return st;
    gather_job g = {&p, x, y, values};
    clmax_parallel_for(ctx, p.outer * p.inner, GATHER_PER_THREAD, gather_values, &g);
    return CLMAX_OK;
}

clmax_status clmax_argmax(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                          const clmax_argmax_attrs *attrs, int64_t *y)
{
    clmax_clear_error();
    clmax_call_begin();
    const unsigned fp = clmax_fp_save();
    clmax_status st = arg_reduce(ctx, input, x, attrs, 0, 0, NULL, y);
    clmax_fp_restore(fp);
    return st;
}

clmax_status clmax_argmin(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                          const clmax_argmax_attrs *attrs, int64_t *y)
{
    clmax_clear_error();
    clmax_call_begin();
    const unsigned fp = clmax_fp_save();
    clmax_status st = arg_reduce(ctx, input, x, attrs, 1, 0, NULL, y);
    clmax_fp_restore(fp);
    return st;
}

clmax_status clmax_max_with_indices(clmax_context *ctx, const clmax_tensor_desc *input,
                                    const void *x, const clmax_argmax_attrs *attrs, void *values,
                                    int64_t *indices)
{
    clmax_clear_error();
    clmax_call_begin();
    const unsigned fp = clmax_fp_save();
    clmax_status st = arg_reduce(ctx, input, x, attrs, 0, 1, values, indices);
    clmax_fp_restore(fp);
    return st;
}

clmax_status clmax_min_with_indices(clmax_context *ctx, const clmax_tensor_desc *input,
                                    const void *x, const clmax_argmax_attrs *attrs, void *values,
                                    int64_t *indices)
{
    clmax_clear_error();
    clmax_call_begin();
    const unsigned fp = clmax_fp_save();
    clmax_status st = arg_reduce(ctx, input, x, attrs, 1, 1, values, indices);
    clmax_fp_restore(fp);
    return st;
}

#define HARDMAX_BLOCK_OUTPUTS (1u << 20)

static clmax_status hardmax(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                            const clmax_hardmax_attrs *attrs, void *y)
{
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    clmax_status st = clmax_hardmax_prepare(input, attrs, &p, &count);
    if (st != CLMAX_OK) return st;
    if (count == 0) return CLMAX_OK;
    CHECK_ARG(x != NULL && y != NULL, "x or y is NULL for a non-empty tensor");

    /* One pass on OpenCL CPU devices where it applies; an OpenCL failure there goes on below, as
     * a failing reduce does (in an auto context: to the CPU path). */
    int done = 0, on_device = clmax_route_device(ctx, p.n, 2 * count * p.esize);
    if (p.n == 1) { /* clmax_route_device sent it to the CPU path */
        /* An axis of one: every element is its row's winner, the output all ones. */
        clmax_onehot_all_ones(ctx, &p, y);
        clmax_report_cpu(ctx);
        return CLMAX_OK;
    }
    if (on_device && ctx->iface->hardmax != NULL) st = ctx->iface->hardmax(ctx, &p, x, y, &done);
    if (done && st == CLMAX_OK) clmax_call_ran(ctx->backend, ctx->device_name);
    if (done && (st == CLMAX_OK || !clmax_fallback_applies(ctx, st))) return st;
    if (done) clmax_call_fell_back(st);
    st = CLMAX_OK;

    if (clmax_on_cpu_path(ctx, on_device) && clmax_cpu_hardmax_fits(ctx, &p)) {
        st = clmax_cpu_hardmax(ctx, &p, x, y);
        if (st == CLMAX_OK) clmax_report_cpu(ctx);
        return st;
    }
    /* Winners are found a block of outer slices at a time, so the index scratch stays small. */
    uint64_t rows = HARDMAX_BLOCK_OUTPUTS / p.inner;
    if (rows == 0) rows = 1;
    if (rows > p.outer) rows = p.outer;
    int64_t *idx = malloc((size_t)(rows * p.inner) * sizeof *idx);
    if (idx == NULL)
        return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "Hardmax index scratch of %llu entries",
                          (unsigned long long)(rows * p.inner));
    uint64_t slice_bytes = p.n * p.inner * p.esize;
    for (uint64_t o = 0; o < p.outer && st == CLMAX_OK; o += rows) {
        clmax_problem b = p;
        b.outer = p.outer - o < rows ? p.outer - o : rows;
        b.reread = 1;
        const char *xb = (const char *)x + o * slice_bytes;
        st = clmax_reduce(ctx, &b, xb, idx, on_device);
        if (st == CLMAX_OK)
            clmax_onehot_fill(ctx, &b, idx, (char *)y + o * slice_bytes, count * p.esize);
    }
    free(idx);
    return st;
}

clmax_status clmax_hardmax(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                           const clmax_hardmax_attrs *attrs, void *y)
{
    clmax_clear_error();
    clmax_call_begin();
    const unsigned fp = clmax_fp_save();
    clmax_status st = hardmax(ctx, input, x, attrs, y);
    clmax_fp_restore(fp);
    return st;
}
