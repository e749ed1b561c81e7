/* The OpenCL reduction on host memory: boxes of the canonical view that fit the device's largest
 * allocation (or the max_chunk_bytes option), each copied in (or used in place on CPU devices that
 * share memory with the host), reduced by the planned kernel, and read back. A box that holds only
 * part of the axis keeps running (key, index) pairs on the device between chunks, so the answer is
 * exact whatever the chunking. Commands are chained by events, so a caller's out-of-order queue
 * gives the same answers.
 *
 * Copied boxes are pipelined: boxes are at most PIPE_BOX_BYTES, alternate between two device
 * buffers, and are written on a second in-order queue (cl->copy_queue), so the copy of box k + 1
 * runs while the kernel of box k does. The write into a buffer waits for the kernel that last read
 * it; a kernel waits for its box's write and for the kernel before it (the running pairs and the
 * output are shared). Without a second queue the same events run on one queue, in order. */
#include "cl_internal.h"

#include <string.h>

#define PIPE_BOX_BYTES (64ull << 20) /* largest copied box when there are several */

typedef struct work {
    clmax_cl *cl;
    cl_command_queue copy_q;           /* writes of copied boxes: cl->copy_queue, or cl->queue */
    cl_mem x, xb[2], out, state, part; /* x: the box being reduced; xb: copy buffers */
    size_t part_bytes;
    cl_event last;     /* kernels and reads: each waits for the one before */
    cl_event wrote;    /* the write of the box about to be reduced */
    cl_event freed[2]; /* the last kernel that read xb[s] */
} work;

static void drop_event(cl_event *e)
{
    if (*e) CL(ReleaseEvent)(*e);
    *e = NULL;
}

static void release_work(work *w)
{
    cl_mem *all[] = {&w->xb[0], &w->xb[1], &w->out, &w->state, &w->part};
    if (w->xb[0] == NULL && w->x) CL(ReleaseMemObject)(w->x); /* in place: x is its own */
    w->x = NULL;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (*all[i]) CL(ReleaseMemObject)(*all[i]);
        *all[i] = NULL;
    }
    drop_event(&w->last);
    drop_event(&w->wrote);
    drop_event(&w->freed[0]);
    drop_event(&w->freed[1]);
}

static clmax_status make_buffer(clmax_cl *cl, cl_mem_flags flags, uint64_t size, void *host,
                                cl_mem *out)
{
    cl_int err;
    *out = CL(CreateBuffer)(cl->context, flags, size ? (size_t)size : 1, host, &err);
    if (*out == NULL) return clmax_cl_fail("clCreateBuffer", err);
    return CLMAX_OK;
}

/* Takes the event of the command just enqueued as the one the next command waits for. */
static void chain(work *w, cl_event e)
{
    if (w->last) CL(ReleaseEvent)(w->last);
    w->last = e;
}

static cl_uint waits(const work *w)
{
    return w->last != NULL ? 1 : 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Copies a box into w->x (one of the copy buffers, slot s) on the copy queue, after the kernel
 * that last read that buffer; w->wrote receives the write's event. */
static clmax_status write_box(work *w, int s, const clmax_problem *p, const char *src, uint64_t ro,
                              uint64_t rn, uint64_t ri)
{
    const uint64_t es = p->esize;
    cl_event e = NULL;
    cl_int err;
    cl_uint nw = w->freed[s] != NULL ? 1 : 0;
    const cl_event *wl = nw ? &w->freed[s] : NULL;
    if (ri == p->inner) { /* whole rows of the axis: one contiguous range */
        err = CL(EnqueueWriteBuffer)(w->copy_q, w->x, CL_FALSE, 0, (size_t)(ro * rn * ri * es), src,
                                     nw, wl, &e);
        if (err != CL_SUCCESS) return clmax_cl_fail("clEnqueueWriteBuffer", err);
    } else {
        size_t zero[3] = {0, 0, 0};
        size_t region[3] = {(size_t)(ri * es), (size_t)rn, (size_t)ro};
        err = CL(EnqueueWriteBufferRect)(w->copy_q, w->x, CL_FALSE, zero, zero, region,
                                         (size_t)(ri * es), (size_t)(rn * ri * es),
                                         (size_t)(p->inner * es), (size_t)(p->n * p->inner * es),
                                         src, nw, wl, &e);
        if (err != CL_SUCCESS) return clmax_cl_fail("clEnqueueWriteBufferRect", err);
    }
    drop_event(&w->wrote);
    w->wrote = e;
    /* A command waits on another queue's event only once that queue is flushed (OpenCL 1.2,
     * 5.13): rusticl submits nothing before, and the box's kernel would wait for ever. */
    if (w->copy_q != w->cl->queue && (err = CL(Flush)(w->copy_q)) != CL_SUCCESS)
        return clmax_cl_fail("clFlush", err);
    return CLMAX_OK;
}

static clmax_status read_box(work *w, const clmax_problem *p, int64_t *dst, uint64_t ro,
                             uint64_t ri)
{
    cl_event e = NULL;
    cl_int err;
    if (ri == p->inner) {
        err = CL(EnqueueReadBuffer)(w->cl->queue, w->out, CL_FALSE, 0, (size_t)(ro * ri) * 8, dst,
                                    waits(w), waits(w) ? &w->last : NULL, &e);
    } else {
        size_t zero[3] = {0, 0, 0};
        size_t region[3] = {(size_t)ri * 8, (size_t)ro, 1};
        err = CL(EnqueueReadBufferRect)(w->cl->queue, w->out, CL_FALSE, zero, zero, region,
                                        (size_t)ri * 8, 0, (size_t)p->inner * 8, 0, dst, waits(w),
                                        waits(w) ? &w->last : NULL, &e);
    }
    if (err != CL_SUCCESS) return clmax_cl_fail("clEnqueueReadBuffer", err);
    chain(w, e);
    return CLMAX_OK;
}

/* The output used in place: once the box's kernels are done, the caller's memory is made to
 * hold it (clmax_cl_sync_host). */
static clmax_status sync_out(work *w, uint64_t bytes)
{
    cl_event e = NULL;
    clmax_status st = clmax_cl_sync_host(w->cl, w->out, (size_t)bytes, waits(w), &w->last, &e);
    if (st == CLMAX_OK) chain(w, e);
    return st;
}

static clmax_status run_box(clmax_context *ctx, work *w, const clmax_problem *p, clmax_cl_box *b)
{
    clmax_cl *cl = ctx->cl;
    clmax_plan pl = clmax_plan_choose(clmax_cl_info(cl), b->rows, b->n, b->inner,
                                      clmax_type_size(p->type), ctx->strategy);
    clmax_cl_program *prog;
    clmax_status st = clmax_cl_get_program(cl, p->type, p->last, pl.wg, CLMAX_OUT_INDEX64, &prog);
    if (st != CLMAX_OK) return st;
    uint64_t need = clmax_cl_part_bytes(&pl, b->rows, b->inner);
    if (need > w->part_bytes) {
        if (w->part) CL(ReleaseMemObject)(w->part);
        w->part = NULL;
        w->part_bytes = 0;
        st = make_buffer(cl, CL_MEM_READ_WRITE, need, NULL, &w->part);
        if (st != CLMAX_OK) return st;
        w->part_bytes = (size_t)need;
    }
    b->part = w->part;
    cl_event e = NULL, wl[2];
    cl_uint nw = 0;
    if (w->last) wl[nw++] = w->last;
    if (w->wrote) wl[nw++] = w->wrote;
    st = clmax_cl_enqueue_box(cl, prog, &pl, b, nw, nw ? wl : NULL, &e);
    if (st == CLMAX_OK) chain(w, e);
    return st;
}

/* The copy queue: cl->copy_queue, made on first use; cl->queue when it cannot be made (the
 * pipeline then runs in order on one queue, with the same answers). */
static cl_command_queue copy_queue(clmax_cl *cl)
{
    if (cl->copy_queue == NULL) {
        cl_int err;
        cl->copy_queue = CL(CreateCommandQueue)(cl->context, cl->device, 0, &err);
    }
    return cl->copy_queue != NULL ? cl->copy_queue : cl->queue;
}

static clmax_status reduce_locked(clmax_context *ctx, const clmax_problem *p, const char *x,
                                  int64_t *idx)
{
    clmax_cl *cl = ctx->cl;
    const uint64_t es = p->esize, n = p->n, inner = p->inner, outer = p->outer;
    uint64_t limit = clmax_cl_box_limit(ctx);

    /* Copies are pipelined in boxes of at most PIPE_BOX_BYTES (see the top of this file). */
    int copied = !(cl->info.is_cpu && cl->info.unified_memory);
    if (copied && outer * n * inner * es > PIPE_BOX_BYTES && limit > PIPE_BOX_BYTES)
        limit = PIPE_BOX_BYTES;

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
    /* Keep the per-output buffers (an index, a running pair) within the limit as well. */
    if (oc * ic * 16 > limit && oc > 1) oc = limit / (ic * 16) ? limit / (ic * 16) : 1;
    if (oc * ic * 16 > limit && ic > 1) ic = limit / 16 ? limit / 16 : 1;

    /* In place when every box is contiguous in the caller's memory: whole rows of the inner
     * dimension, and whole slices or (when the axis is cut) one slice at a time. The outputs of
     * a box are then contiguous too, and are written in place as well. */
    int in_place = !copied && ic == inner && (nc == n || oc == 1);
    uint64_t boxes = ((outer + oc - 1) / oc) * ((n + nc - 1) / nc) * ((inner + ic - 1) / ic);
    work w;
    memset(&w, 0, sizeof w);
    w.cl = cl;
    clmax_status st = CLMAX_OK;
    if (!in_place) {
        w.copy_q = boxes > 1 ? copy_queue(cl) : cl->queue;
        st = make_buffer(cl, CL_MEM_READ_ONLY, oc * nc * ic * es, NULL, &w.xb[0]);
        if (st == CLMAX_OK && boxes > 1)
            st = make_buffer(cl, CL_MEM_READ_ONLY, oc * nc * ic * es, NULL, &w.xb[1]);
    }
    int slot = 0;
    if (st == CLMAX_OK && !in_place)
        st = make_buffer(cl, CL_MEM_WRITE_ONLY, oc * ic * 8, NULL, &w.out);
    if (st == CLMAX_OK && nc < n)
        st = make_buffer(cl, CL_MEM_READ_WRITE, oc * ic * 16, NULL, &w.state);

    for (uint64_t o0 = 0; o0 < outer && st == CLMAX_OK; o0 += oc) {
        uint64_t ro = min_u64(oc, outer - o0);
        if (in_place) { /* the indices go straight into the caller's memory too */
            if (w.out) CL(ReleaseMemObject)(w.out);
            w.out = NULL;
            st = make_buffer(cl, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, ro * inner * 8,
                             idx + o0 * inner, &w.out);
            if (st != CLMAX_OK) break;
        }
        for (uint64_t i0 = 0; i0 < inner && st == CLMAX_OK; i0 += ic) {
            uint64_t ri = min_u64(ic, inner - i0);
            for (uint64_t j0 = 0; j0 < n && st == CLMAX_OK; j0 += nc) {
                uint64_t rn = min_u64(nc, n - j0);
                const char *src = x + (o0 * n * inner + j0 * inner + i0) * es;
                if (in_place) {
                    /* The box is contiguous: the device reads the caller's memory directly. A
                     * released buffer lives on until the commands using it complete. */
                    if (w.x) CL(ReleaseMemObject)(w.x);
                    w.x = NULL;
                    st = make_buffer(cl, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                     ro * rn * inner * es, (void *)src, &w.x);
                } else {
                    w.x = w.xb[slot];
                    st = write_box(&w, slot, p, src, ro, rn, ri);
                }
                if (st != CLMAX_OK) break;
                clmax_cl_box b = {w.x,
                                  0,
                                  ro,
                                  rn,
                                  ri,
                                  j0,
                                  (j0 > 0 ? CLMAX_BOX_ACCUM : 0) |
                                      (j0 + rn >= n ? CLMAX_BOX_FINAL : 0) |
                                      (p->min ? CLMAX_BOX_MIN : 0),
                                  NULL,
                                  w.state,
                                  w.out,
                                  0};
                st = run_box(ctx, &w, p, &b);
                if (st == CLMAX_OK && !in_place) { /* the next write into xb[slot] waits for it */
                    drop_event(&w.freed[slot]);
                    /* ... on the copy queue: flushed, as for the writes */
                    cl_int rerr = w.copy_q != cl->queue ? CL(Flush)(cl->queue) : CL_SUCCESS;
                    if (rerr != CL_SUCCESS) {
                        st = clmax_cl_fail("clFlush", rerr);
                        break;
                    }
                    rerr = CL(RetainEvent)(w.last);
                    if (rerr != CL_SUCCESS) {
                        st = clmax_cl_fail("clRetainEvent", rerr);
                        break;
                    }
                    w.freed[slot] = w.last;
                    slot = w.xb[1] != NULL ? 1 - slot : 0;
                }
            }
            if (st == CLMAX_OK)
                st = in_place ? sync_out(&w, ro * inner * 8)
                              : read_box(&w, p, idx + o0 * inner + i0, ro, ri);
        }
    }
    /* Wait even after a failure: queued commands may still use caller memory. */
    cl_int err = w.last ? CL(WaitForEvents)(1, &w.last) : CL_SUCCESS;
    if (st == CLMAX_OK && err != CL_SUCCESS) st = clmax_cl_fail("clWaitForEvents", err);
    if (st != CLMAX_OK) {
        if (w.copy_q != NULL && w.copy_q != cl->queue) CL(Finish)(w.copy_q);
        CL(Finish)(cl->queue);
    }
    release_work(&w);
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
