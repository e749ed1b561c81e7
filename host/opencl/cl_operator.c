/* One operator call on device buffers, enqueued on the context's queue and chained by events: the
 * plan (a strided axis with few lanes as wide rows, host/narrow.c), the scratch, Hardmax's zeros,
 * the reduce box, the merge and the values gather. The enqueue API (cl_enqueue.c) runs its calls
 * here, as does Hardmax in place on host memory (cl_hardmax.c); prebuilding builds the programs
 * they ask for. */
#include "cl_internal.h"
#include "narrow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

clmax_status clmax_cl_check_context(const clmax_cl *cl, cl_mem m, const char *name)
{
    CHECK_ARG(m != NULL, "%s is NULL", name);
    cl_context c = NULL;
    cl_int err = CL(GetMemObjectInfo)(m, CL_MEM_CONTEXT, sizeof c, &c, NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("CL(GetMemObjectInfo)(CL_MEM_CONTEXT)", err);
    /* OpenCL leaves a buffer of another context to the implementation, as it does events. */
    CHECK_ARG(c == cl->context, "%s is a buffer of another OpenCL context than the clmax context's",
              name);
    return CLMAX_OK;
}

clmax_status clmax_cl_check_range(const clmax_cl *cl, cl_mem m, const char *name, size_t offset,
                                  uint64_t bytes, size_t align)
{
    clmax_status st = clmax_cl_check_context(cl, m, name);
    if (st != CLMAX_OK) return st;
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
    e.pl = clmax_plan_choose(clmax_cl_info(ctx->cl), e.w.outer, e.w.n, e.w.inner,
                             clmax_type_size(p->type), ctx->strategy);
    e.part_bytes = clmax_cl_part_bytes(&e.pl, e.w.outer, e.w.inner);
    e.scratch = e.part_bytes + (e.g != 0 ? e.w.outer * e.w.inner * 8 : 0);
    return e;
}

uint64_t clmax_cl_operator_scratch(const clmax_context *ctx, const clmax_problem *p)
{
    return plan_problem(ctx, p).scratch;
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
static clmax_status enqueue_zeros(clmax_cl *cl, clmax_cl_program *prog, cl_mem y, size_t off,
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
    /* Each work-item's words in one run within the device's loop limit (clmax_loop_budget). */
    uint64_t most = clmax_loop_budget(clmax_cl_info(cl)) - CLMAX_LOOP_SLACK;
    if ((words + (uint64_t)global * per - 1) / ((uint64_t)global * per) * per > most) {
        per = most;
        global = (size_t)((words + per - 1) / per);
    }
    cl_kernel k;
    clmax_status st = clmax_cl_kernel(cl, prog, CLMAX_CL_FILL_ZERO, &k);
    if (st != CLMAX_OK) return st;
    err = CL(SetKernelArg)(k, 0, sizeof y, &y);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 1, sizeof o, &o);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 2, sizeof len, &len);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 3, sizeof per, &per);
    if (err != CL_SUCCESS) return clmax_cl_fail("clSetKernelArg(fill_zero)", err);
    err = CL(EnqueueNDRangeKernel)(cl->queue, k, 1, NULL, &global, NULL, nlist, nlist ? list : NULL,
                                   done);
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
 * winners at widx + widx_off (kernels/util.cl narrow_merge). */
static clmax_status enqueue_merge(clmax_cl *cl, clmax_cl_program *prog, const clmax_problem *p,
                                  uint64_t g, cl_mem x, uint64_t x_off, cl_mem widx,
                                  uint64_t widx_off, cl_mem y, uint64_t y_off, int i32, size_t wg,
                                  cl_event after, cl_event *done)
{
    cl_kernel k;
    clmax_status st = clmax_cl_kernel(cl, prog, CLMAX_CL_NARROW_MERGE, &k);
    if (st != CLMAX_OK) return st;
    cl_ulong xo = x_off, n = p->n, inner = p->inner, gg = g, count = p->outer * p->inner;
    cl_ulong wo = widx_off, yo = y_off;
    cl_int flags = (p->min ? CLMAX_BOX_MIN : 0) | (i32 ? CLMAX_BOX_OUT32 : 0);
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
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 10, sizeof flags, &flags);
    if (err != CL_SUCCESS) return clmax_cl_fail("clSetKernelArg(narrow_merge)", err);
    return enqueue_per_output(cl, k, "narrow_merge", count, wg, after, done);
}

/* The values at the winners (kernels/util.cl gather_values), after event after: output q of p
 * from x at its index in y (y_off and v_off in index and element units). */
static clmax_status enqueue_gather(clmax_cl *cl, clmax_cl_program *prog, const clmax_problem *p,
                                   cl_mem x, uint64_t x_off, cl_mem y, uint64_t y_off, int i32,
                                   cl_mem v, uint64_t v_off, size_t wg, cl_event after,
                                   cl_event *done)
{
    cl_kernel k;
    clmax_status st = clmax_cl_kernel(cl, prog, CLMAX_CL_GATHER_VALUES, &k);
    if (st != CLMAX_OK) return st;
    cl_ulong xo = x_off, n = p->n, inner = p->inner, count = p->outer * p->inner;
    cl_ulong yo = y_off, vo = v_off;
    cl_int flags = i32 ? CLMAX_BOX_OUT32 : 0;
    cl_int err = CL(SetKernelArg)(k, 0, sizeof x, &x);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 1, sizeof xo, &xo);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 2, sizeof n, &n);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 3, sizeof inner, &inner);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 4, sizeof count, &count);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 5, sizeof y, &y);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 6, sizeof yo, &yo);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 7, sizeof v, &v);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 8, sizeof vo, &vo);
    if (err == CL_SUCCESS) err = CL(SetKernelArg)(k, 9, sizeof flags, &flags);
    if (err != CL_SUCCESS) return clmax_cl_fail("clSetKernelArg(gather_values)", err);
    return enqueue_per_output(cl, k, "gather_values", count, wg, after, done);
}

/* The event the next user of the cached scratch waits for: the newest chain that uses it and has
 * not failed (each chain waited for the one before, so it covers them). A failed chain ran
 * nothing, and an event that has already failed must not be waited on: PoCL 3.1 never runs a
 * command that does (a caller's failed wait list would hang every later call). Chains that are
 * complete or failed are released. */
static cl_event scratch_after(clmax_cl *cl)
{
    int k = 0;
    for (int i = 0; i < cl->nusers; i++) {
        cl_int s = CL_COMPLETE;
        cl_int err = CL(GetEventInfo)(cl->scratch_users[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                                      sizeof s, &s, NULL);
        if (err != CL_SUCCESS || s < 0) {
            CL(ReleaseEvent)(cl->scratch_users[i]);
        } else if (s == CL_COMPLETE) { /* so are all before it */
            while (k > 0)
                CL(ReleaseEvent)(cl->scratch_users[--k]);
            CL(ReleaseEvent)(cl->scratch_users[i]);
        } else {
            cl->scratch_users[k++] = cl->scratch_users[i];
        }
    }
    cl->nusers = k;
    return k ? cl->scratch_users[k - 1] : NULL;
}

/* Takes a reference to ev, the end of a chain that uses the cached scratch. Where the list cannot
 * grow, ev takes the newest's place (it waited for it; only its failure then loses the order). */
static void scratch_add(clmax_cl *cl, cl_event ev)
{
    if (cl->nusers == cl->cap_users) {
        int cap = cl->cap_users ? 2 * cl->cap_users : 8;
        cl_event *grown = realloc(cl->scratch_users, sizeof(cl_event) * (size_t)cap);
        if (grown == NULL) {
            CL(ReleaseEvent)(cl->scratch_users[--cl->nusers]);
        } else {
            cl->scratch_users = grown;
            cl->cap_users = cap;
        }
    }
    CL(RetainEvent)(ev);
    cl->scratch_users[cl->nusers++] = ev;
}

/* The events of an operator's commands before its last one, released once the last completes
 * (clmax_cl_release_after), never before: PoCL 3.1 aborts when one is released while the chain
 * waits on a caller's event that then fails. */
typedef struct held_events {
    cl_event ev[3];
    int n;
} held_events;

/* Ends the chain at last (NULL: the step after held's last event failed to enqueue; that event
 * is then the chain's end, kept as the scratch's last user where the chain writes the cached
 * scratch (hold)). */
static void end_chain(clmax_cl *cl, held_events *h, cl_event last, int hold)
{
    if (last == NULL && h->n > 0) {
        last = h->ev[--h->n];
        if (hold) scratch_add(cl, last);
        for (int i = 0; i < h->n; i++)
            clmax_cl_release_after(cl, last, h->ev[i]);
        CL(ReleaseEvent)(last);
        return;
    }
    for (int i = 0; i < h->n; i++)
        clmax_cl_release_after(cl, last, h->ev[i]);
}

clmax_status clmax_cl_enqueue_operator(clmax_context *ctx, const clmax_problem *p, cl_mem x,
                                       size_t x_offset, cl_mem y, size_t y_offset, size_t y_bytes,
                                       cl_mem values, size_t v_offset, clmax_out_mode mode,
                                       const clmax_enqueue_options *eo, cl_uint nwait,
                                       const cl_event *wait, cl_event *event)
{
    clmax_cl *cl = ctx->cl;
    if (eo != NULL && eo->scratch != NULL) {
        clmax_status st = clmax_cl_check_context(cl, eo->scratch, "scratch");
        if (st != CLMAX_OK) return st;
    }
    enq_plan ep = plan_problem(ctx, p);
    uint64_t need = ep.scratch;
    /* prog: the reduce kernels (int64 indices into scratch for a wide problem); mprog: the merge,
     * writing y as mode says, and the fill. */
    clmax_cl_program *prog, *mprog;
    clmax_status st = clmax_cl_get_program(cl, p->type, p->last, ep.pl.wg,
                                           ep.g ? CLMAX_OUT_INDEX64 : mode, &prog);
    if (st == CLMAX_OK)
        st = ep.g ? clmax_cl_get_program(cl, p->type, p->last, ep.pl.wg, mode, &mprog)
                  : (mprog = prog, CLMAX_OK);
    if (st != CLMAX_OK) return st;

    cl_mem scratch = NULL;
    int cached = 0;
    if (need > 0) {
        if (eo != NULL && eo->scratch != NULL) {
            CHECK_ARG(eo->scratch_size >= need,
                      "scratch_size is %zu bytes; this operation needs %llu", eo->scratch_size,
                      (unsigned long long)need);
            CHECK_ARG(eo->scratch != x && eo->scratch != y, "scratch is the same buffer as x or y");
            st = clmax_cl_check_range(cl, eo->scratch, "scratch", 0, need, 1);
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
    st = wait_list_with(nwait, wait, cached ? scratch_after(cl) : NULL, stack, &list, &nlist);
    if (st != CLMAX_OK) return st;
    held_events h = {{NULL}, 0};
    cl_event filled = NULL, done = NULL;
    if (mode == CLMAX_OUT_HARDMAX &&
        (ep.g != 0 || !clmax_cl_fused_zeros(cl, &ep.pl, ep.w.n, ep.w.inner))) {
        st = enqueue_zeros(cl, mprog, y, y_offset, y_bytes, nlist, list, &filled);
        wait_list_free(list, stack);
        if (st != CLMAX_OK) return st;
        h.ev[h.n++] = filled;
        list = &filled;
        nlist = 1;
    }
    uint64_t y_off = y_offset / (mode == CLMAX_OUT_INDEX64   ? 8
                                 : mode == CLMAX_OUT_INDEX32 ? 4
                                                             : p->esize);
    const int i32 = mode == CLMAX_OUT_INDEX32;
    clmax_cl_box b = {x,
                      x_offset / p->esize,
                      ep.w.outer,
                      ep.w.n,
                      ep.w.inner,
                      0,
                      CLMAX_BOX_FINAL | (p->min ? CLMAX_BOX_MIN : 0) |
                          (i32 && !ep.g ? CLMAX_BOX_OUT32 : 0),
                      scratch,
                      NULL,
                      ep.g ? scratch : y,
                      ep.g ? ep.part_bytes / 8 : y_off};
    st = clmax_cl_enqueue_box(cl, prog, &ep.pl, &b, nlist, nlist ? list : NULL, &done);
    if (!filled) wait_list_free(list, stack);
    if (st == CLMAX_OK && ep.g != 0) {
        cl_event reduced = done;
        done = NULL;
        h.ev[h.n++] = reduced;
        st = enqueue_merge(cl, mprog, p, ep.g, x, x_offset / p->esize, scratch, ep.part_bytes / 8,
                           y, y_off, i32, ep.pl.wg, reduced, &done);
    }
    if (st == CLMAX_OK && values != NULL) {
        cl_event indexed = done;
        done = NULL;
        h.ev[h.n++] = indexed;
        st = enqueue_gather(cl, mprog, p, x, x_offset / p->esize, y, y_off, i32, values,
                            v_offset / p->esize, ep.pl.wg, indexed, &done);
    }
    end_chain(cl, &h, st == CLMAX_OK ? done : NULL, cached);
    if (st != CLMAX_OK) return st;
    if (cached) scratch_add(cl, done);
    if (event)
        *event = done;
    else
        CL(ReleaseEvent)(done);
    return CLMAX_OK;
}

size_t clmax_cl_plan_wg(clmax_cl *cl)
{
    return clmax_plan_choose(clmax_cl_info(cl), 1, 1, 1, 1, CLMAX_STRATEGY_AUTO).wg;
}

static int is_float(clmax_type t)
{
    return t == CLMAX_TYPE_FLOAT16 || t == CLMAX_TYPE_FLOAT32 || t == CLMAX_TYPE_FLOAT64 ||
           t == CLMAX_TYPE_BFLOAT16;
}

/* Family f of the programs for these options, counted in report. */
static clmax_status prebuild_one(clmax_cl *cl, clmax_type type, int last, size_t wg,
                                 clmax_out_mode mode, int f, clmax_prebuild_report *report)
{
    clmax_cl_program *prog;
    pthread_mutex_lock(&cl->lock);
    int how = 0;
    clmax_status st = clmax_cl_get_program(cl, type, last, wg, mode, &prog);
    if (st == CLMAX_OK) st = clmax_cl_family(cl, prog, f, &how);
    if (st == CLMAX_OK) {
        report->programs++;
        if (how == 0)
            report->in_context++;
        else if (how == 1)
            report->compiled++;
        else
            report->from_cache++;
    }
    pthread_mutex_unlock(&cl->lock);
    return st;
}

/* Whether ops asks for variant v of type's programs: 0-1 ArgMax or ArgMin, either index type
 * (they share them), by tie rule; 2 Hardmax, float types only. */
static int prebuild_wants(unsigned ops, clmax_type type, int v)
{
    if (v == 2) return (ops & CLMAX_PREBUILD_HARDMAX) && is_float(type);
    return (ops & (CLMAX_PREBUILD_ARGMAX | CLMAX_PREBUILD_ARGMIN)) != 0;
}

clmax_status clmax_cl_prebuild(clmax_context *ctx, const clmax_prebuild_options *options,
                               clmax_prebuild_report *report)
{
    static const clmax_type all[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_UINT8,   CLMAX_TYPE_INT8,
                                     CLMAX_TYPE_UINT16,  CLMAX_TYPE_INT16,   CLMAX_TYPE_INT32,
                                     CLMAX_TYPE_INT64,   CLMAX_TYPE_FLOAT16, CLMAX_TYPE_FLOAT64,
                                     CLMAX_TYPE_UINT32,  CLMAX_TYPE_UINT64,  CLMAX_TYPE_BFLOAT16};
    const clmax_type *types = options->types;
    size_t ntypes = options->ntypes;
    if (types == NULL) {
        types = all;
        ntypes = sizeof all / sizeof all[0];
    }
    const unsigned ops = options->operators;
    size_t total = 0;
    for (size_t i = 0; i < ntypes; i++)
        for (int v = 0; v < 3; v++)
            total += CLMAX_CL_NFAMILIES * (size_t)prebuild_wants(ops, types[i], v);
    clmax_cl *cl = ctx->cl;
    const size_t wg = clmax_cl_plan_wg(cl);
    clmax_status st = CLMAX_OK;
    for (size_t i = 0; i < ntypes && st == CLMAX_OK; i++)
        for (int v = 0; v < 3 && st == CLMAX_OK; v++) {
            if (!prebuild_wants(ops, types[i], v)) continue;
            int last = v == 2 ? 0 : v;
            clmax_out_mode mode = v == 2 ? CLMAX_OUT_HARDMAX : CLMAX_OUT_INDEX64;
            for (int f = 0; f < CLMAX_CL_NFAMILIES && st == CLMAX_OK; f++) {
                size_t compiled = report->compiled;
                st = prebuild_one(cl, types[i], last, wg, mode, f, report);
                if (st == CLMAX_OK && options->progress != NULL)
                    options->progress(options->user, report->programs, total,
                                      report->compiled != compiled);
            }
        }
    return st;
}
