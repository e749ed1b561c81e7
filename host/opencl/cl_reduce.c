/* The OpenCL reduction on host memory: boxes of the canonical view that fit the device's largest
 * allocation (or the max_chunk_bytes option), each copied in (or used in place on CPU devices that
 * share memory with the host), reduced by the planned kernel, and read back. A box that holds only
 * part of the axis keeps running (key, index) pairs on the device between chunks, so the answer is
 * exact whatever the chunking. */
#include "cl_internal.h"

#include <string.h>

enum { FLAG_ACCUM = 1, FLAG_FINAL = 2 };

typedef struct buffers {
    cl_mem x, out, sk, si, pk, pi;
    size_t partial_count; /* capacity of pk / pi in pairs */
} buffers;

static void release_buffers(buffers *b)
{
    cl_mem *all[] = {&b->x, &b->out, &b->sk, &b->si, &b->pk, &b->pi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (*all[i]) clReleaseMemObject(*all[i]);
        *all[i] = NULL;
    }
}

static clmax_status make_buffer(clmax_cl *cl, cl_mem_flags flags, size_t size, void *host,
                                cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(cl->context, flags, size ? size : 1, host, &err);
    if (*out == NULL) return clmax_cl_fail("clCreateBuffer", err);
    return CLMAX_OK;
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

static size_t pow2_ceil(size_t v)
{
    size_t p = 1;
    while (p < v)
        p *= 2;
    return p;
}

#define SET_ARG(k, i, v)                                                                           \
    do {                                                                                           \
        err = clSetKernelArg(k, i, sizeof(v), &(v));                                               \
        if (err != CL_SUCCESS) return clmax_cl_fail("clSetKernelArg", err);                        \
    } while (0)

/* Sets the 13 arguments shared by the three reduce kernels. */
static clmax_status set_reduce_args(cl_kernel k, buffers *b, cl_ulong n, cl_ulong inner,
                                    cl_ulong count, const clmax_plan *pl, cl_ulong j0, cl_int flags)
{
    cl_int err;
    cl_ulong nseg = pl->nseg, seg_len = pl->seg_len;
    SET_ARG(k, 0, b->x);
    SET_ARG(k, 1, n);
    SET_ARG(k, 2, inner);
    SET_ARG(k, 3, count);
    SET_ARG(k, 4, nseg);
    SET_ARG(k, 5, seg_len);
    SET_ARG(k, 6, j0);
    SET_ARG(k, 7, flags);
    SET_ARG(k, 8, b->pk);
    SET_ARG(k, 9, b->pi);
    SET_ARG(k, 10, b->sk);
    SET_ARG(k, 11, b->si);
    SET_ARG(k, 12, b->out);
    return CLMAX_OK;
}

static clmax_status launch(clmax_cl *cl, cl_kernel k, cl_uint dims, const size_t *global,
                           const size_t *local)
{
    cl_int err = clEnqueueNDRangeKernel(cl->queue, k, dims, NULL, global, local, 0, NULL, NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("clEnqueueNDRangeKernel", err);
    return CLMAX_OK;
}

/* Reduces the box now in b->x: rows x n x inner, axis indices starting at j0. */
static clmax_status run_box(clmax_context *ctx, const clmax_problem *p, buffers *b, uint64_t rows,
                            uint64_t n, uint64_t inner, uint64_t j0, int flags)
{
    clmax_cl *cl = ctx->cl;
    clmax_plan pl = clmax_plan_choose(&cl->info, rows, n, inner, ctx->strategy);
    const clmax_cl_program *prog;
    clmax_status st = clmax_cl_get_program(cl, p->type, p->last, pl.wg, &prog);
    if (st != CLMAX_OK) return st;

    uint64_t nq = rows * inner;
    if (pl.nseg > 1 && nq * pl.nseg > b->partial_count) {
        size_t ks = p->esize == 8 ? 8 : 4;
        if (b->pk) clReleaseMemObject(b->pk);
        if (b->pi) clReleaseMemObject(b->pi);
        b->pk = b->pi = NULL;
        b->partial_count = 0;
        st = make_buffer(cl, CL_MEM_READ_WRITE, (size_t)(nq * pl.nseg) * ks, NULL, &b->pk);
        if (st == CLMAX_OK)
            st = make_buffer(cl, CL_MEM_READ_WRITE, (size_t)(nq * pl.nseg) * 8, NULL, &b->pi);
        if (st != CLMAX_OK) return st;
        b->partial_count = (size_t)(nq * pl.nseg);
    }

    size_t wg = pl.wg;
    cl_kernel k;
    size_t global[2], local[2];
    cl_uint dims = 1;
    if (pl.kernel == CLMAX_KERNEL_STRIDED) {
        k = prog->strided;
        st = set_reduce_args(k, b, n, inner, rows, &pl, j0, flags);
        local[0] = inner < wg ? pow2_ceil((size_t)inner) : wg;
        local[1] = 1;
        global[0] = round_up((size_t)inner, local[0]);
        global[1] = (size_t)(rows * pl.nseg);
        dims = 2;
    } else if (pl.kernel == CLMAX_KERNEL_ROWS_WG) {
        k = prog->rows_wg;
        st = set_reduce_args(k, b, n, inner, nq, &pl, j0, flags);
        local[0] = wg;
        global[0] = (size_t)(nq * pl.nseg) * wg;
    } else {
        k = prog->rows_wi;
        st = set_reduce_args(k, b, n, inner, nq, &pl, j0, flags);
        local[0] = wg;
        global[0] = round_up((size_t)(nq * pl.nseg), wg);
    }
    if (st == CLMAX_OK) st = launch(cl, k, dims, global, local);
    if (st != CLMAX_OK || pl.nseg == 1) return st;

    cl_int err;
    cl_ulong nq_arg = nq, nseg_arg = pl.nseg;
    cl_int flags_arg = flags;
    k = prog->combine;
    SET_ARG(k, 0, nq_arg);
    SET_ARG(k, 1, nseg_arg);
    SET_ARG(k, 2, flags_arg);
    SET_ARG(k, 3, b->pk);
    SET_ARG(k, 4, b->pi);
    SET_ARG(k, 5, b->sk);
    SET_ARG(k, 6, b->si);
    SET_ARG(k, 7, b->out);
    local[0] = wg;
    global[0] = round_up((size_t)nq, wg);
    return launch(cl, k, 1, global, local);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static clmax_status reduce_locked(clmax_context *ctx, const clmax_problem *p, const char *x,
                                  int64_t *idx)
{
    clmax_cl *cl = ctx->cl;
    const uint64_t es = p->esize, n = p->n, inner = p->inner, outer = p->outer;
    uint64_t limit = cl->info.max_alloc;
    if (ctx->max_chunk_bytes != 0 && ctx->max_chunk_bytes < limit) limit = ctx->max_chunk_bytes;

    /* The box: whole outer slices when one fits, else part of the axis, else part of a row. */
    uint64_t oc, nc, ic;
    if (n * inner * es <= limit) {
        oc = min_u64(outer, limit / (n * inner * es));
        nc = n;
        ic = inner;
    } else if (inner * es <= limit) {
        oc = 1;
        nc = limit / (inner * es);
        ic = inner;
    } else {
        oc = 1;
        nc = 1;
        ic = limit / es ? limit / es : 1;
    }
    /* Keep the per-output buffers (an index, a key and an index) within the limit as well. */
    if (oc * ic * 16 > limit && oc > 1) oc = limit / (ic * 16) ? limit / (ic * 16) : 1;
    if (oc * ic * 16 > limit && ic > 1) ic = limit / 16 ? limit / 16 : 1;

    int in_place = cl->info.is_cpu && cl->info.unified_memory && ic == inner && nc == n;
    buffers b;
    memset(&b, 0, sizeof b);
    clmax_status st = CLMAX_OK;
    size_t ks = es == 8 ? 8 : 4;
    if (!in_place) st = make_buffer(cl, CL_MEM_READ_ONLY, (size_t)(oc * nc * ic * es), NULL, &b.x);
    if (st == CLMAX_OK)
        st = make_buffer(cl, CL_MEM_WRITE_ONLY, (size_t)(oc * ic) * 8, NULL, &b.out);
    if (st == CLMAX_OK && nc < n)
        st = make_buffer(cl, CL_MEM_READ_WRITE, (size_t)(oc * ic) * ks, NULL, &b.sk);
    if (st == CLMAX_OK && nc < n)
        st = make_buffer(cl, CL_MEM_READ_WRITE, (size_t)(oc * ic) * 8, NULL, &b.si);

    cl_int err = CL_SUCCESS;
    for (uint64_t o0 = 0; o0 < outer && st == CLMAX_OK; o0 += oc) {
        uint64_t ro = min_u64(oc, outer - o0);
        for (uint64_t i0 = 0; i0 < inner && st == CLMAX_OK; i0 += ic) {
            uint64_t ri = min_u64(ic, inner - i0);
            for (uint64_t j0 = 0; j0 < n && st == CLMAX_OK; j0 += nc) {
                uint64_t rn = min_u64(nc, n - j0);
                const char *src = x + (o0 * n * inner + j0 * inner + i0) * es;
                if (in_place) {
                    /* The box is contiguous: the device reads the caller's memory directly. */
                    if (b.x) clReleaseMemObject(b.x);
                    b.x = NULL;
                    st = make_buffer(cl, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                     (size_t)(ro * n * inner * es), (void *)src, &b.x);
                    if (st != CLMAX_OK) break;
                } else if (ri == inner) {
                    err = clEnqueueWriteBuffer(cl->queue, b.x, CL_FALSE, 0,
                                               (size_t)(ro * rn * inner * es), src, 0, NULL, NULL);
                    if (err != CL_SUCCESS) {
                        st = clmax_cl_fail("clEnqueueWriteBuffer", err);
                        break;
                    }
                } else {
                    size_t zero[3] = {0, 0, 0};
                    size_t region[3] = {(size_t)(ri * es), (size_t)rn, (size_t)ro};
                    err = clEnqueueWriteBufferRect(cl->queue, b.x, CL_FALSE, zero, zero, region,
                                                   (size_t)(ri * es), (size_t)(rn * ri * es),
                                                   (size_t)(inner * es), (size_t)(n * inner * es),
                                                   src, 0, NULL, NULL);
                    if (err != CL_SUCCESS) {
                        st = clmax_cl_fail("clEnqueueWriteBufferRect", err);
                        break;
                    }
                }
                int flags = (j0 > 0 ? FLAG_ACCUM : 0) | (j0 + rn >= n ? FLAG_FINAL : 0);
                st = run_box(ctx, p, &b, ro, rn, ri, j0, flags);
            }
            if (st != CLMAX_OK) break;
            int64_t *dst = idx + o0 * inner + i0;
            if (ri == inner) {
                err = clEnqueueReadBuffer(cl->queue, b.out, CL_FALSE, 0, (size_t)(ro * ri) * 8, dst,
                                          0, NULL, NULL);
            } else {
                size_t zero[3] = {0, 0, 0};
                size_t region[3] = {(size_t)ri * 8, (size_t)ro, 1};
                err = clEnqueueReadBufferRect(cl->queue, b.out, CL_FALSE, zero, zero, region,
                                              (size_t)ri * 8, 0, (size_t)inner * 8, 0, dst, 0, NULL,
                                              NULL);
            }
            if (err != CL_SUCCESS) st = clmax_cl_fail("clEnqueueReadBuffer", err);
        }
    }
    /* Wait even after a failure: queued commands may still read caller memory. */
    err = clFinish(cl->queue);
    if (st == CLMAX_OK && err != CL_SUCCESS) st = clmax_cl_fail("clFinish", err);
    release_buffers(&b);
    return st;
}

clmax_status clmax_cl_reduce(clmax_context *ctx, const clmax_problem *p, const void *x,
                             int64_t *idx)
{
    pthread_mutex_lock(&ctx->cl->lock);
    clmax_status st = reduce_locked(ctx, p, x, idx);
    pthread_mutex_unlock(&ctx->cl->lock);
    return st;
}
