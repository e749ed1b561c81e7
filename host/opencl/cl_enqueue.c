/* The enqueue API: operators on the caller's cl_mem buffers and queue, ordered by events, with no
 * host synchronisation; contexts made from the caller's OpenCL objects; prebuilding. */
#include "cl_internal.h"
#include "clmax_cl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_ARG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, __VA_ARGS__);                 \
    } while (0)

void clmax_enqueue_options_init(clmax_enqueue_options *options)
{
    if (options == NULL) return;
    memset(options, 0, sizeof *options);
    options->index_type = CLMAX_INDEX_INT64;
}

clmax_status clmax_context_create_from_cl(cl_context context, cl_device_id device,
                                          cl_command_queue queue,
                                          const clmax_context_options *options, clmax_context **out)
{
    clmax_clear_error();
    CHECK_ARG(out != NULL, "ctx is NULL");
    *out = NULL;
    CHECK_ARG(context != NULL && device != NULL && queue != NULL,
              "context, device and queue must all be given");
    cl_device_id qdev = NULL;
    cl_context qctx = NULL;
    cl_int err = CL(GetCommandQueueInfo)(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("CL(GetCommandQueueInfo)(CL_QUEUE_DEVICE)", err);
    err = CL(GetCommandQueueInfo)(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("CL(GetCommandQueueInfo)(CL_QUEUE_CONTEXT)", err);
    CHECK_ARG(qdev == device, "the queue belongs to another device");
    CHECK_ARG(qctx == context, "the queue belongs to another context");

    clmax_context_options o;
    if (options != NULL)
        o = *options;
    else
        clmax_context_options_init(&o);
    CHECK_ARG(o.num_threads >= 0, "num_threads is negative (%d)", o.num_threads);
    CHECK_ARG((unsigned)o.strategy <= CLMAX_STRATEGY_SPLIT, "strategy %d is not a clmax_strategy",
              (int)o.strategy);

    uint64_t chunk = o.max_chunk_bytes;
    clmax_strategy strategy = o.strategy;
    clmax_plan_as plan_as;
    int avx512_off;
    clmax_status st = clmax_parse_env(&o, NULL, &chunk, &strategy, &plan_as, &avx512_off);
    if (st != CLMAX_OK) return st;

    clmax_context *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "context");
    ctx->num_threads = o.num_threads > 0 ? o.num_threads : clmax_online_cores();
    ctx->max_chunk_bytes = chunk;
    ctx->strategy = strategy;
    ctx->plan_as = plan_as;
    ctx->cpu_avx512_off = avx512_off;
    st = clmax_cl_state_new(ctx);
    if (st != CLMAX_OK) {
        free(ctx);
        return st;
    }
    clmax_cl *cl = ctx->cl;
    err = CL(GetDeviceInfo)(device, CL_DEVICE_PLATFORM, sizeof cl->platform, &cl->platform, NULL);
    if (err != CL_SUCCESS) {
        clmax_cl_destroy(ctx);
        free(ctx);
        return clmax_cl_fail("CL(GetDeviceInfo)(CL_DEVICE_PLATFORM)", err);
    }
    CL(RetainContext)(context);
    CL(RetainDevice)(device);
    CL(RetainCommandQueue)(queue);
    cl->context = context;
    cl->device = device;
    cl->retained_device = 1;
    cl->queue = queue;
    clmax_cl_query_device(ctx);
    ctx->backend = CLMAX_BACKEND_OPENCL;
    *out = ctx;
    return CLMAX_OK;
}

clmax_status clmax_context_get_cl(const clmax_context *ctx, cl_context *context,
                                  cl_device_id *device, cl_command_queue *queue)
{
    clmax_clear_error();
    CHECK_ARG(ctx != NULL, "context is NULL");
    CHECK_ARG(ctx->cl != NULL, "the context runs on the CPU path, not OpenCL");
    if (context) *context = ctx->cl->context;
    if (device) *device = ctx->cl->device;
    if (queue) *queue = ctx->cl->queue;
    return CLMAX_OK;
}

static size_t plan_wg(const clmax_cl *cl)
{
    return clmax_plan_choose(&cl->info, 1, 1, 1, 1, CLMAX_STRATEGY_AUTO).wg;
}

static int is_float(clmax_type t)
{
    return t == CLMAX_TYPE_FLOAT16 || t == CLMAX_TYPE_FLOAT32 || t == CLMAX_TYPE_FLOAT64 ||
           t == CLMAX_TYPE_BFLOAT16;
}

clmax_status clmax_cl_prebuild(clmax_context *ctx, const clmax_type *types, size_t ntypes)
{
    static const clmax_type all[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_UINT8,   CLMAX_TYPE_INT8,
                                     CLMAX_TYPE_UINT16,  CLMAX_TYPE_INT16,   CLMAX_TYPE_INT32,
                                     CLMAX_TYPE_INT64,   CLMAX_TYPE_FLOAT16, CLMAX_TYPE_FLOAT64,
                                     CLMAX_TYPE_UINT32,  CLMAX_TYPE_UINT64,  CLMAX_TYPE_BFLOAT16};
    if (types == NULL) {
        types = all;
        ntypes = sizeof all / sizeof all[0];
    }
    clmax_cl *cl = ctx->cl;
    const size_t wg = plan_wg(cl);
    clmax_status st = CLMAX_OK;
    const clmax_cl_program *prog;
    pthread_mutex_lock(&cl->lock);
    for (size_t i = 0; i < ntypes && st == CLMAX_OK; i++) {
        /* ArgMax and ArgMin, both tie rules, both index types; Hardmax for float types. */
        for (int v = 0; v < 8 && st == CLMAX_OK; v++)
            st = clmax_cl_get_program(cl, types[i], v & 1, (v >> 1) & 1, wg,
                                      (v & 4) ? CLMAX_OUT_INDEX32 : CLMAX_OUT_INDEX64, &prog);
        if (st == CLMAX_OK && is_float(types[i]))
            st = clmax_cl_get_program(cl, types[i], 0, 0, wg, CLMAX_OUT_HARDMAX, &prog);
    }
    pthread_mutex_unlock(&cl->lock);
    return st;
}

static clmax_status check_range(cl_mem m, const char *name, size_t offset, uint64_t bytes,
                                size_t align)
{
    CHECK_ARG(m != NULL, "%s is NULL", name);
    CHECK_ARG(offset % align == 0, "%s offset %zu is not a multiple of the element size %zu", name,
              offset, align);
    size_t size = 0;
    cl_int err = CL(GetMemObjectInfo)(m, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("CL(GetMemObjectInfo)(CL_MEM_SIZE)", err);
    CHECK_ARG(offset <= size && bytes <= size - offset,
              "%s holds %zu bytes; the tensor needs %llu from offset %zu", name, size,
              (unsigned long long)bytes, offset);
    return CLMAX_OK;
}

/* How a whole problem runs on the device: one box under plan pl; or, for a strided axis with few
 * lanes (host/narrow.c), g rows side by side as the wide problem w, whose winners go to scratch
 * after the split's partial pairs (part_bytes), then the narrow_merge kernel. The host-pointer
 * path also takes a slice at a time where g does not divide the axis; here that is one slice only,
 * so that the wide problem stays one box. scratch: the bytes of scratch the whole needs. */
typedef struct enq_plan {
    clmax_plan pl;
    clmax_problem w; /* the problem of the box: p, or the wide one */
    uint64_t g;      /* 0: no merge */
    uint64_t part_bytes, scratch;
} enq_plan;

static enq_plan plan_problem(const clmax_context *ctx, const clmax_problem *p)
{
    enq_plan e;
    e.w = *p;
    e.g = clmax_narrow_rows(ctx, p);
    if (e.g != 0 && p->n % e.g != 0 && p->outer != 1) e.g = 0;
    if (e.g != 0) {
        e.w.n = p->n / e.g;
        e.w.inner = p->inner * e.g;
    }
    e.pl = clmax_plan_choose(&ctx->cl->info, e.w.outer, e.w.n, e.w.inner, clmax_type_size(p->type),
                             ctx->strategy);
    e.part_bytes = clmax_cl_part_bytes(&e.pl, e.w.outer, e.w.inner);
    e.scratch = e.part_bytes + (e.g != 0 ? e.w.outer * e.w.inner * 8 : 0);
    return e;
}

static clmax_status scratch_size(clmax_context *ctx, const clmax_problem *p, uint64_t count,
                                 size_t *bytes)
{
    CHECK_ARG(bytes != NULL, "bytes is NULL");
    *bytes = 0;
    CHECK_ARG(ctx->cl != NULL, "the context runs on the CPU path, not OpenCL");
    if (count == 0 || p->outer == 0 || p->inner == 0) return CLMAX_OK;
    *bytes = (size_t)plan_problem(ctx, p).scratch;
    return CLMAX_OK;
}

clmax_status clmax_argmax_scratch_size(clmax_context *ctx, const clmax_tensor_desc *input,
                                       const clmax_argmax_attrs *attrs, size_t *bytes)
{
    clmax_clear_error();
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    int axis;
    clmax_status st = clmax_argmax_prepare(input, attrs, 0, &p, &count, &axis);
    return st != CLMAX_OK ? st : scratch_size(ctx, &p, count, bytes);
}

clmax_status clmax_hardmax_scratch_size(clmax_context *ctx, const clmax_tensor_desc *input,
                                        const clmax_hardmax_attrs *attrs, size_t *bytes)
{
    clmax_clear_error();
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    clmax_status st = clmax_hardmax_prepare(input, attrs, &p, &count);
    return st != CLMAX_OK ? st : scratch_size(ctx, &p, count, bytes);
}

#define WAIT_LIST_STACK 16 /* wait lists up to this long are built on the stack, not malloc'ed */

/* The caller's wait list with extra appended (when not NULL), in *list: stack (WAIT_LIST_STACK
 * entries) when it fits, else a malloc'ed array; release it with wait_list_free(). */
static clmax_status wait_list_with(cl_uint n, const cl_event *wait, cl_event extra, cl_event *stack,
                                   cl_event **list, cl_uint *count)
{
    *list = n + 1 <= WAIT_LIST_STACK ? stack : malloc(sizeof(cl_event) * (n + 1));
    if (*list == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "event wait list");
    if (n) memcpy(*list, wait, sizeof(cl_event) * n);
    *count = n;
    if (extra) (*list)[(*count)++] = extra;
    return CLMAX_OK;
}

static void wait_list_free(cl_event *list, const cl_event *stack)
{
    if (list != stack) free(list);
}

/* Zeroes bytes [off, off + n) of y after the wait list: Hardmax's output before the kernel writes
 * the ones, where that kernel does not write the zeros itself (clmax_cl_fused_zeros), with the
 * program's fill_zero kernel. CPU devices (as planned: CLMAX_PLAN applies) run it over all cores,
 * 128 work-items per compute unit in long runs; GPUs with a work-item per 16-byte word in turn
 * (GPU_FILL_ITEMS_PER_CU per compute unit), so that a warp writes 512 contiguous bytes at once.
 * On an H100, clEnqueueFillBuffer's one-byte pattern took most of Hardmax's time. */
#define GPU_FILL_ITEMS_PER_CU 2048
static clmax_status enqueue_zeros(clmax_cl *cl, const clmax_cl_program *prog, cl_mem y, size_t off,
                                  size_t n, cl_uint nlist, const cl_event *list, cl_event *done)
{
    cl_int err;
    cl_ulong o = off, len = n, words = n / 16 + 1, per = 1;
    size_t global;
    if (cl->info.is_cpu) {
        global = 128 * (size_t)cl->info.compute_units;
        per = (words + global - 1) / global;
    } else {
        global = GPU_FILL_ITEMS_PER_CU * (size_t)cl->info.compute_units;
        if (global > words) global = (size_t)words; /* small outputs */
    }
    err = CL(SetKernelArg)(prog->fill_zero, 0, sizeof y, &y);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(prog->fill_zero, 1, sizeof o, &o);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(prog->fill_zero, 2, sizeof len, &len);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(prog->fill_zero, 3, sizeof per, &per);
    if (err != CL_SUCCESS) return clmax_cl_fail("clSetKernelArg(fill_zero)", err);
    err = CL(EnqueueNDRangeKernel)(cl->queue, prog->fill_zero, 1, NULL, &global, NULL, nlist,
                                   nlist ? list : NULL, done);
    return err == CL_SUCCESS ? CLMAX_OK : clmax_cl_fail("clEnqueueNDRangeKernel(fill_zero)", err);
}

/* Kernel k (named name), one work-item per output, in groups of wg, after event after. */
static clmax_status enqueue_per_output(clmax_cl *cl, cl_kernel k, const char *name, uint64_t count,
                                       size_t wg, cl_event after, cl_event *done)
{
    size_t global = (size_t)((count + wg - 1) / wg * wg), local = wg;
    cl_int err = CL(EnqueueNDRangeKernel)(cl->queue, k, 1, NULL, &global, &local, 1, &after, done);
    if (err == CL_SUCCESS) return CLMAX_OK;
    char call[64];
    snprintf(call, sizeof call, "clEnqueueNDRangeKernel(%s)", name);
    return clmax_cl_fail(call, err);
}

/* host/narrow.c's merge on the device, after event after: output q of p from the wide problem's
 * winners at widx + widx_off (kernels/argmax.cl narrow_merge). */
static clmax_status enqueue_merge(clmax_cl *cl, const clmax_cl_program *prog,
                                  const clmax_problem *p, uint64_t g, cl_mem x, uint64_t x_off,
                                  cl_mem widx, uint64_t widx_off, cl_mem y, uint64_t y_off,
                                  size_t wg, cl_event after, cl_event *done)
{
    cl_kernel k = prog->narrow_merge;
    cl_ulong xo = x_off, n = p->n, inner = p->inner, gg = g, count = p->outer * p->inner;
    cl_ulong wo = widx_off, yo = y_off;
    cl_int err = CL(SetKernelArg)(k, 0, sizeof x, &x);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 1, sizeof xo, &xo);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 2, sizeof n, &n);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 3, sizeof inner, &inner);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 4, sizeof gg, &gg);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 5, sizeof count, &count);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 6, sizeof widx, &widx);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 7, sizeof wo, &wo);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 8, sizeof y, &y);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 9, sizeof yo, &yo);
    if (err != CL_SUCCESS) return clmax_cl_fail("clSetKernelArg(narrow_merge)", err);
    return enqueue_per_output(cl, k, "narrow_merge", count, wg, after, done);
}

/* The values at the winners (kernels/argmax.cl gather_values), after event after: output q of p
 * from x at its index in y (y_off and v_off in index and element units). */
static clmax_status enqueue_gather(clmax_cl *cl, const clmax_cl_program *prog,
                                   const clmax_problem *p, cl_mem x, uint64_t x_off, cl_mem y,
                                   uint64_t y_off, cl_mem v, uint64_t v_off, size_t wg,
                                   cl_event after, cl_event *done)
{
    cl_kernel k = prog->gather_values;
    cl_ulong xo = x_off, n = p->n, inner = p->inner, count = p->outer * p->inner;
    cl_ulong yo = y_off, vo = v_off;
    cl_int err = CL(SetKernelArg)(k, 0, sizeof x, &x);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 1, sizeof xo, &xo);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 2, sizeof n, &n);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 3, sizeof inner, &inner);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 4, sizeof count, &count);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 5, sizeof y, &y);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 6, sizeof yo, &yo);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 7, sizeof v, &v);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 8, sizeof vo, &vo);
    if (err != CL_SUCCESS) return clmax_cl_fail("clSetKernelArg(gather_values)", err);
    return enqueue_per_output(cl, k, "gather_values", count, wg, after, done);
}

/* After a step that followed event prev failed to enqueue: where prev's commands write the cached
 * scratch (hold), the next user of the scratch waits for prev; else prev is released. */
static void drop_step(clmax_cl *cl, int hold, cl_event prev)
{
    if (hold) {
        if (cl->scratch_event) CL(ReleaseEvent)(cl->scratch_event);
        cl->scratch_event = prev;
    } else {
        CL(ReleaseEvent)(prev);
    }
}

/* The common path of the operators, with the lock held. mode says what y receives; values, when
 * not NULL, receives the winners' values at v_offset bytes after the indices are in y. */
static clmax_status enqueue_locked(clmax_context *ctx, const clmax_problem *p, cl_mem x,
                                   size_t x_offset, cl_mem y, size_t y_offset, size_t y_bytes,
                                   cl_mem values, size_t v_offset, clmax_out_mode mode,
                                   const clmax_enqueue_options *eo, cl_uint nwait,
                                   const cl_event *wait, cl_event *event)
{
    clmax_cl *cl = ctx->cl;
    enq_plan ep = plan_problem(ctx, p);
    uint64_t need = ep.scratch;
    /* prog: the reduce kernels (int64 indices into scratch for a wide problem); mprog: the merge,
     * writing y as mode says, and the fill. */
    const clmax_cl_program *prog, *mprog;
    clmax_status st = clmax_cl_get_program(cl, p->type, p->last, p->min, ep.pl.wg,
                                           ep.g ? CLMAX_OUT_INDEX64 : mode, &prog);
    if (st == CLMAX_OK)
        st = ep.g ? clmax_cl_get_program(cl, p->type, p->last, p->min, ep.pl.wg, mode, &mprog)
                  : (mprog = prog, CLMAX_OK);
    if (st != CLMAX_OK) return st;

    cl_mem scratch = NULL;
    int cached = 0;
    if (need > 0) {
        if (eo->scratch != NULL) {
            CHECK_ARG(eo->scratch_size >= need,
                      "scratch_size is %zu bytes; this operation needs %llu", eo->scratch_size,
                      (unsigned long long)need);
            CHECK_ARG(eo->scratch != x && eo->scratch != y, "scratch is the same buffer as x or y");
            st = check_range(eo->scratch, "scratch", 0, need, 1);
            if (st != CLMAX_OK) return st;
            scratch = eo->scratch;
        } else {
            if (cl->scratch_size < need) {
                cl_int err;
                cl_mem grown =
                    CL(CreateBuffer)(cl->context, CL_MEM_READ_WRITE, (size_t)need, NULL, &err);
                if (grown == NULL) return clmax_cl_fail("CL(CreateBuffer)(scratch)", err);
                /* Work already enqueued keeps the old buffer alive until it completes. */
                if (cl->scratch) CL(ReleaseMemObject)(cl->scratch);
                cl->scratch = grown;
                cl->scratch_size = (size_t)need;
            }
            scratch = cl->scratch;
            cached = 1;
        }
    }

    cl_event stack[WAIT_LIST_STACK], *list = NULL;
    cl_uint nlist = 0;
    st = wait_list_with(nwait, wait, cached ? cl->scratch_event : NULL, stack, &list, &nlist);
    if (st != CLMAX_OK) return st;
    cl_event filled = NULL, done = NULL;
    if (mode == CLMAX_OUT_HARDMAX && (ep.g != 0 || !clmax_cl_fused_zeros(cl, &ep.pl))) {
        st = enqueue_zeros(cl, mprog, y, y_offset, y_bytes, nlist, list, &filled);
        wait_list_free(list, stack);
        if (st != CLMAX_OK) return st;
        list = &filled;
        nlist = 1;
    }
    uint64_t y_off = y_offset / (mode == CLMAX_OUT_INDEX64   ? 8
                                 : mode == CLMAX_OUT_INDEX32 ? 4
                                                             : p->esize);
    clmax_cl_box b = {x,
                      x_offset / p->esize,
                      ep.w.outer,
                      ep.w.n,
                      ep.w.inner,
                      0,
                      CLMAX_BOX_FINAL,
                      scratch,
                      NULL,
                      ep.g ? scratch : y,
                      ep.g ? ep.part_bytes / 8 : y_off};
    st = clmax_cl_enqueue_box(cl, prog, &ep.pl, &b, nlist, nlist ? list : NULL, &done);
    if (st == CLMAX_OK && ep.g != 0) {
        cl_event reduced = done;
        done = NULL;
        st = enqueue_merge(cl, mprog, p, ep.g, x, x_offset / p->esize, scratch, ep.part_bytes / 8,
                           y, y_off, ep.pl.wg, reduced, &done);
        drop_step(cl, st != CLMAX_OK && cached, reduced);
    }
    if (st == CLMAX_OK && values != NULL) {
        cl_event indexed = done;
        done = NULL;
        st = enqueue_gather(cl, mprog, p, x, x_offset / p->esize, y, y_off, values,
                            v_offset / p->esize, ep.pl.wg, indexed, &done);
        drop_step(cl, st != CLMAX_OK && cached, indexed);
    }
    if (filled)
        CL(ReleaseEvent)(filled);
    else
        wait_list_free(list, stack);
    if (st != CLMAX_OK) return st;
    if (cached) {
        if (cl->scratch_event) CL(ReleaseEvent)(cl->scratch_event);
        CL(RetainEvent)(done);
        cl->scratch_event = done;
    }
    if (event)
        *event = done;
    else
        CL(ReleaseEvent)(done);
    return CLMAX_OK;
}

/* One box of clmax_cl_hardmax_in_place after *last: the caller's bytes wrapped in buffers, the
 * enqueued Hardmax, then a map and unmap of y, which makes the caller's memory hold what the
 * device wrote (as for the ArgMax output in place, host/opencl/cl_reduce.c). *last becomes the
 * unmap's event. */
static clmax_status hardmax_box(clmax_context *ctx, const clmax_problem *b, const void *x, void *y,
                                const clmax_enqueue_options *eo, cl_event *last)
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
        st = enqueue_locked(ctx, b, xb, 0, yb, 0, bytes, NULL, 0, CLMAX_OUT_HARDMAX, eo,
                            *last ? 1 : 0, *last ? last : NULL, &done);
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
 * (short rows, forced strategies), or an outer slice above the limit. */
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
    clmax_plan pl = clmax_plan_choose(&cl->info, rows, p->n, p->inner, p->esize, ctx->strategy);
    if (!clmax_cl_fused_zeros(cl, &pl)) return CLMAX_OK;
    *done = 1;
    clmax_enqueue_options eo;
    clmax_enqueue_options_init(&eo);
    cl_event last = NULL;
    clmax_status st = CLMAX_OK;
    pthread_mutex_lock(&cl->lock);
    for (uint64_t o = 0; o < p->outer && st == CLMAX_OK; o += rows) {
        clmax_problem b = *p;
        b.outer = p->outer - o < rows ? p->outer - o : rows;
        st = hardmax_box(ctx, &b, (const char *)x + o * slice, (char *)y + o * slice, &eo, &last);
    }
    /* Wait even after a failure: queued commands may still use the caller's memory. */
    cl_int err = last ? CL(WaitForEvents)(1, &last) : CL_SUCCESS;
    if (st == CLMAX_OK && err != CL_SUCCESS) st = clmax_cl_fail("clWaitForEvents", err);
    if (st != CLMAX_OK) CL(Finish)(cl->queue);
    if (last) CL(ReleaseEvent)(last);
    pthread_mutex_unlock(&cl->lock);
    return st;
}

/* An empty tensor: nothing to compute, but the event must still follow the wait list. */
static clmax_status enqueue_marker(clmax_cl *cl, cl_uint nwait, const cl_event *wait,
                                   cl_event *event)
{
    cl_event e = NULL;
    cl_int err = CL(EnqueueMarkerWithWaitList)(cl->queue, nwait, nwait ? wait : NULL, &e);
    if (err != CL_SUCCESS) return clmax_cl_fail("clEnqueueMarkerWithWaitList", err);
    if (event)
        *event = e;
    else
        CL(ReleaseEvent)(e);
    return CLMAX_OK;
}

static clmax_status check_common(clmax_context *ctx, cl_uint nwait, const cl_event *wait,
                                 const clmax_enqueue_options *eo)
{
    CHECK_ARG(ctx != NULL, "context is NULL");
    CHECK_ARG(ctx->cl != NULL, "the context runs on the CPU path, not OpenCL");
    CHECK_ARG((nwait == 0) == (wait == NULL), "num_events and wait_list disagree");
    /* OpenCL leaves an event of another context to the implementation: PoCL waits for it, and
     * enqueue.misuse, which passed one, did not finish on NVIDIA's driver. Refused here, so
     * that every implementation gives the same clear error. */
    for (cl_uint i = 0; i < nwait; i++) {
        cl_context c = NULL;
        CHECK_ARG(wait[i] != NULL, "wait_list[%u] is NULL", i);
        cl_int err = CL(GetEventInfo)(wait[i], CL_EVENT_CONTEXT, sizeof c, &c, NULL);
        CHECK_ARG(err == CL_SUCCESS, "wait_list[%u] is not an event: clGetEventInfo gave %s", i,
                  clmax_cl_error_name(err));
        CHECK_ARG(c == ctx->cl->context,
                  "wait_list[%u] is an event of another OpenCL context than the clmax context's",
                  i);
    }
    CHECK_ARG(eo->index_type == CLMAX_INDEX_INT64 || eo->index_type == CLMAX_INDEX_INT32,
              "index_type %d is not a clmax_index_type", (int)eo->index_type);
    return CLMAX_OK;
}

/* Ranges of one buffer must not overlap (sub-buffers of a buffer are not told apart here). */
static clmax_status check_apart(cl_mem a, const char *an, size_t aoff, uint64_t abytes, cl_mem b,
                                const char *bn, size_t boff, uint64_t bbytes)
{
    CHECK_ARG(a != b || aoff >= boff + bbytes || boff >= aoff + abytes,
              "%s (bytes %zu to %llu) and %s (bytes %zu to %llu) overlap in the same buffer", an,
              aoff, (unsigned long long)(aoff + abytes), bn, boff,
              (unsigned long long)(boff + bbytes));
    return CLMAX_OK;
}

/* ArgMax / ArgMin into y, and the values at the winners into values when it is not NULL
 * (with_values: the values were asked for). */
static clmax_status enqueue_arg(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                                size_t x_offset, const clmax_argmax_attrs *attrs, int min,
                                int with_values, cl_mem values, size_t v_offset, cl_mem y,
                                size_t y_offset, const clmax_enqueue_options *options,
                                cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clmax_enqueue_options def;
    clmax_enqueue_options_init(&def);
    const clmax_enqueue_options *eo = options ? options : &def;
    clmax_status st = check_common(ctx, num_events, wait_list, eo);
    if (st != CLMAX_OK) return st;
    clmax_problem p;
    uint64_t count;
    int axis;
    st = clmax_argmax_prepare(input, attrs, min, &p, &count, &axis);
    if (st != CLMAX_OK) return st;
    clmax_cl *cl = ctx->cl;
    uint64_t outputs = p.outer * p.inner;
    if (outputs == 0) return enqueue_marker(cl, num_events, wait_list, event);
    int i32 = eo->index_type == CLMAX_INDEX_INT32;
    if (i32 && p.n - 1 > (uint64_t)INT32_MAX)
        return clmax_fail(CLMAX_ERROR_INDEX_OVERFLOW,
                          "the axis has %llu elements; int32 indices reach 2^31 - 1",
                          (unsigned long long)p.n);
    uint64_t x_bytes = count * p.esize, y_bytes = outputs * (i32 ? 4 : 8);
    uint64_t v_bytes = outputs * p.esize;
    st = check_range(x, "x", x_offset, x_bytes, p.esize);
    if (st == CLMAX_OK) st = check_range(y, "y", y_offset, y_bytes, i32 ? 4 : 8);
    if (st == CLMAX_OK) st = check_apart(x, "x", x_offset, x_bytes, y, "y", y_offset, y_bytes);
    if (st == CLMAX_OK && with_values) {
        st = check_range(values, "values", v_offset, v_bytes, p.esize);
        if (st == CLMAX_OK)
            st = check_apart(values, "values", v_offset, v_bytes, x, "x", x_offset, x_bytes);
        if (st == CLMAX_OK)
            st = check_apart(values, "values", v_offset, v_bytes, y, "y", y_offset, y_bytes);
    }
    if (st != CLMAX_OK) return st;
    pthread_mutex_lock(&cl->lock);
    st = enqueue_locked(
        ctx, &p, x, x_offset, y, y_offset, (size_t)y_bytes, with_values ? values : NULL, v_offset,
        i32 ? CLMAX_OUT_INDEX32 : CLMAX_OUT_INDEX64, eo, num_events, wait_list, event);
    pthread_mutex_unlock(&cl->lock);
    return st;
}

clmax_status clmax_enqueue_argmax(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                                  size_t x_offset, const clmax_argmax_attrs *attrs, cl_mem y,
                                  size_t y_offset, const clmax_enqueue_options *options,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    return enqueue_arg(ctx, input, x, x_offset, attrs, 0, 0, NULL, 0, y, y_offset, options,
                       num_events, wait_list, event);
}

clmax_status clmax_enqueue_argmin(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                                  size_t x_offset, const clmax_argmax_attrs *attrs, cl_mem y,
                                  size_t y_offset, const clmax_enqueue_options *options,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    return enqueue_arg(ctx, input, x, x_offset, attrs, 1, 0, NULL, 0, y, y_offset, options,
                       num_events, wait_list, event);
}

clmax_status
clmax_enqueue_max_with_indices(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                               size_t x_offset, const clmax_argmax_attrs *attrs, cl_mem values,
                               size_t values_offset, cl_mem indices, size_t indices_offset,
                               const clmax_enqueue_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    return enqueue_arg(ctx, input, x, x_offset, attrs, 0, 1, values, values_offset, indices,
                       indices_offset, options, num_events, wait_list, event);
}

clmax_status
clmax_enqueue_min_with_indices(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                               size_t x_offset, const clmax_argmax_attrs *attrs, cl_mem values,
                               size_t values_offset, cl_mem indices, size_t indices_offset,
                               const clmax_enqueue_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    return enqueue_arg(ctx, input, x, x_offset, attrs, 1, 1, values, values_offset, indices,
                       indices_offset, options, num_events, wait_list, event);
}

clmax_status clmax_enqueue_hardmax(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                                   size_t x_offset, const clmax_hardmax_attrs *attrs, cl_mem y,
                                   size_t y_offset, const clmax_enqueue_options *options,
                                   cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    clmax_enqueue_options def;
    clmax_enqueue_options_init(&def);
    const clmax_enqueue_options *eo = options ? options : &def;
    clmax_status st = check_common(ctx, num_events, wait_list, eo);
    if (st != CLMAX_OK) return st;
    clmax_problem p;
    uint64_t count;
    st = clmax_hardmax_prepare(input, attrs, &p, &count);
    if (st != CLMAX_OK) return st;
    clmax_cl *cl = ctx->cl;
    if (count == 0) return enqueue_marker(cl, num_events, wait_list, event);
    uint64_t bytes = count * p.esize;
    st = check_range(x, "x", x_offset, bytes, p.esize);
    if (st == CLMAX_OK) st = check_range(y, "y", y_offset, bytes, p.esize);
    if (st == CLMAX_OK) st = check_apart(x, "x", x_offset, bytes, y, "y", y_offset, bytes);
    if (st != CLMAX_OK) return st;
    pthread_mutex_lock(&cl->lock);
    st = enqueue_locked(ctx, &p, x, x_offset, y, y_offset, (size_t)bytes, NULL, 0,
                        CLMAX_OUT_HARDMAX, eo, num_events, wait_list, event);
    pthread_mutex_unlock(&cl->lock);
    return st;
}
