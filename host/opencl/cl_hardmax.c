/* Hardmax on host memory in one pass, on OpenCL CPU devices that share memory with the host (the
 * backend's iface->hardmax): the operator of cl_operator.c over the caller's own bytes. */
#include "cl_internal.h"
#include "narrow.h"

/* One box of clmax_cl_hardmax_in_place after *last: the caller's bytes wrapped in buffers, the
 * enqueued Hardmax, then a map and unmap of y, which makes the caller's memory hold what the
 * device wrote (as for the ArgMax output in place, host/opencl/cl_reduce.c). *last becomes the
 * unmap's event. */
static clmax_status hardmax_box(clmax_context *ctx, const clmax_problem *b, const void *x, void *y,
                                cl_event *last)
{
    clmax_cl *cl = ctx->cl;
    size_t bytes = (size_t)(b->outer * b->n * b->inner * b->esize);
    cl_int err;
    cl_mem xb = CL(CreateBuffer)(cl->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes,
                                 (void *)x, &err);
    if (xb == NULL) return clmax_cl_fail("clCreateBuffer(x in place)", err);
    cl_mem yb =
        CL(CreateBuffer)(cl->context, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, bytes, y, &err);
    clmax_status st = yb == NULL ? clmax_cl_fail("clCreateBuffer(y in place)", err) : CLMAX_OK;
    cl_event done = NULL, unmapped = NULL;
    if (st == CLMAX_OK)
        st = clmax_cl_enqueue_operator(ctx, b, xb, 0, yb, 0, bytes, NULL, 0, CLMAX_OUT_HARDMAX,
                                       NULL, *last ? 1 : 0, *last ? last : NULL, &done);
    if (st == CLMAX_OK) st = clmax_cl_sync_host(cl, yb, bytes, 1, &done, &unmapped);
    /* Buffers and events released here live on until the commands that use them complete. */
    if (done) CL(ReleaseEvent)(done);
    if (unmapped) {
        if (*last) CL(ReleaseEvent)(*last);
        *last = unmapped;
    }
    if (yb) CL(ReleaseMemObject)(yb);
    CL(ReleaseMemObject)(xb);
    return st;
}

/* clmax_hardmax on a CPU device that shares memory with the host: the enqueued Hardmax over the
 * caller's x and y used in place (CL_MEM_USE_HOST_PTR), whose kernels write the zeros as they read
 * (clmax_cl_fused_zeros): one pass over memory, like the read + write that is its limit, where
 * the host-pointer path is the ArgMax pass, then the one-hot fill on the host threads. Boxes of
 * whole outer slices within the device's largest allocation (and max_chunk_bytes). *done is 0 and
 * nothing runs where this does not apply: another device, a kernel that does not write the zeros
 * (short rows of more than CLMAX_ONEHOT_ROW bytes, forced strategies), or an outer slice too
 * large. */
clmax_status clmax_cl_hardmax_in_place(clmax_context *ctx, const clmax_problem *p, const void *x,
                                       void *y, int *done)
{
    clmax_cl *cl = ctx->cl;
    *done = 0;
    if (cl == NULL || !cl->info.is_cpu || !cl->info.unified_memory) return CLMAX_OK;
    if (clmax_narrow_rows(ctx, p) != 0) return CLMAX_OK; /* the two passes are faster there */
    uint64_t limit = clmax_cl_box_limit(ctx), slice = p->n * p->inner * p->esize;
    if (slice == 0 || slice > limit) return CLMAX_OK;
    uint64_t rows = limit / slice < p->outer ? limit / slice : p->outer;
    clmax_plan pl =
        clmax_plan_choose(clmax_cl_info(cl), rows, p->n, p->inner, p->esize, ctx->strategy);
    if (!clmax_cl_fused_zeros(cl, &pl, p->n, p->inner)) return CLMAX_OK;
    *done = 1;
    cl_event last = NULL;
    clmax_status st = CLMAX_OK;
    pthread_mutex_lock(&cl->lock);
    for (uint64_t o = 0; o < p->outer && st == CLMAX_OK; o += rows) {
        clmax_problem b = *p;
        b.outer = p->outer - o < rows ? p->outer - o : rows;
        st = hardmax_box(ctx, &b, (const char *)x + o * slice, (char *)y + o * slice, &last);
    }
    /* Wait even after a failure: queued commands may still use the caller's memory. */
    cl_int err = last ? CL(WaitForEvents)(1, &last) : CL_SUCCESS;
    if (st == CLMAX_OK && err != CL_SUCCESS) st = clmax_cl_fail("clWaitForEvents", err);
    if (st != CLMAX_OK) CL(Finish)(cl->queue);
    if (last) CL(ReleaseEvent)(last);
    pthread_mutex_unlock(&cl->lock);
    return st;
}
