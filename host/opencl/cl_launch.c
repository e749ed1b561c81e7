/* Launching the planned kernels over one box, shared by the host-pointer and enqueue paths. */
#include "cl_internal.h"

#include <stdlib.h>

/* Segments per output from which GPUs merge them with a work-group each (combine_wg) rather than
 * a work-item each (combine). */
#define GPU_COMBINE_WG_MIN 32

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

/* A CPU device's group of work-items: 1, CPU_GROUP_MID or wg, from the items per group that keep
 * four groups a core. PoCL generates a kernel's work-group loop again for each local size it is
 * launched with (a compile of its own, cached per size), so three sizes rather than every power of
 * two up to wg keep a cold start's compiles to three per kernel; the groups stay under
 * 4 * cu * wg / CPU_GROUP_MID, few enough that their launch costs nothing beside the work. */
#define CPU_GROUP_MID 8

static size_t cpu_group(size_t per, size_t wg)
{
    return per >= wg ? wg : per >= CPU_GROUP_MID ? CPU_GROUP_MID : 1;
}

uint64_t clmax_cl_part_bytes(const clmax_plan *pl, uint64_t rows, uint64_t inner)
{
    return pl->nseg > 1 ? rows * inner * pl->nseg * 16 : 0;
}

uint64_t clmax_cl_box_limit(const clmax_context *ctx)
{
    uint64_t limit = ctx->cl->info.max_alloc;
    return ctx->max_chunk_bytes != 0 && ctx->max_chunk_bytes < limit ? ctx->max_chunk_bytes : limit;
}

clmax_status clmax_cl_sync_host(clmax_cl *cl, cl_mem m, size_t bytes, cl_uint nwait,
                                const cl_event *wait, cl_event *done)
{
    cl_event mapped = NULL;
    cl_int err;
    void *p = CL(EnqueueMapBuffer)(cl->queue, m, CL_FALSE, CL_MAP_READ, 0, bytes, nwait,
                                   nwait ? wait : NULL, &mapped, &err);
    if (p == NULL) return clmax_cl_fail("clEnqueueMapBuffer", err);
    err = CL(EnqueueUnmapMemObject)(cl->queue, m, p, 1, &mapped, done);
    if (err == CL_INVALID_VALUE) {
        /* rusticl (Mesa 22.3) refuses to unmap a pointer whose map has not run yet. Only the
         * host-pointer calls, which block anyway, come here: waiting for the map costs only the
         * overlap of this chunk's copy with the next chunk's work, on rusticl alone. */
        err = CL(WaitForEvents)(1, &mapped);
        if (err == CL_SUCCESS) err = CL(EnqueueUnmapMemObject)(cl->queue, m, p, 0, NULL, done);
    }
    CL(ReleaseEvent)(mapped);
    if (err != CL_SUCCESS) return clmax_cl_fail("clEnqueueUnmapMemObject", err);
    return CLMAX_OK;
}

/* Releases the held pairs whose last event is over. */
static void sweep_held(clmax_cl *cl)
{
    int k = 0;
    for (int i = 0; i < cl->nheld; i++) {
        cl_int s = CL_QUEUED;
        cl_int err =
            CL(GetEventInfo)(cl->held[i][0], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL);
        if (err != CL_SUCCESS || s <= CL_COMPLETE) {
            CL(ReleaseEvent)(cl->held[i][1]);
            CL(ReleaseEvent)(cl->held[i][0]);
        } else {
            cl->held[k][0] = cl->held[i][0];
            cl->held[k++][1] = cl->held[i][1];
        }
    }
    cl->nheld = k;
}

void clmax_cl_release_after(clmax_cl *cl, cl_event last, cl_event ev)
{
    sweep_held(cl);
    if (last != NULL && cl->nheld == cl->cap_held) {
        int cap = cl->cap_held ? 2 * cl->cap_held : 8;
        cl_event(*grown)[2] = realloc(cl->held, sizeof *grown * (size_t)cap);
        if (grown != NULL) {
            cl->held = grown;
            cl->cap_held = cap;
        }
    }
    if (last == NULL || cl->nheld == cl->cap_held) {
        CL(ReleaseEvent)(ev);
        return;
    }
    CL(RetainEvent)(last);
    cl->held[cl->nheld][0] = last;
    cl->held[cl->nheld++][1] = ev;
}

void clmax_cl_release_held(clmax_cl *cl)
{
    for (int i = 0; i < cl->nheld; i++) {
        CL(ReleaseEvent)(cl->held[i][1]);
        CL(ReleaseEvent)(cl->held[i][0]);
    }
    free(cl->held);
    cl->held = NULL;
    cl->nheld = cl->cap_held = 0;
}

int clmax_cl_fused_zeros(const clmax_cl *cl, const clmax_plan *pl, uint64_t n, uint64_t inner)
{
    return cl->info.is_cpu &&
           (pl->kernel == CLMAX_KERNEL_ROWS_VEC || pl->kernel == CLMAX_KERNEL_STRIDED_BLK ||
            pl->kernel == CLMAX_KERNEL_STRIDED_WIDE ||
            (pl->kernel == CLMAX_KERNEL_ROWS_SHORT && n * pl->elem_size <= CLMAX_ONEHOT_ROW) ||
            (pl->kernel == CLMAX_KERNEL_SLICES_SHORT && n * pl->elem_size <= CLMAX_ONEHOT_AXIS &&
             inner < clmax_vector_width(pl->elem_size)));
}

/* Whether box b of ROWS_SHORT or SLICES_SHORT goes by reduce_rows_pairs (kernels/rows_short.cl):
 * an axis of two of 1 to VW / 2 lanes (a power of two) whose answers go out, in one segment. */
static int pairs_kernel(const clmax_plan *pl, const clmax_cl_box *b)
{
    return b->n == 2 && 2 * b->inner <= clmax_vector_width(pl->elem_size) &&
           (b->inner & (b->inner - 1)) == 0 && pl->nseg == 1 &&
           (b->flags & (CLMAX_BOX_ACCUM | CLMAX_BOX_FINAL)) == CLMAX_BOX_FINAL;
}

#define SET_ARG(k, i, v)                                                                           \
    do {                                                                                           \
        cl_int err_ = CL(SetKernelArg)(k, i, sizeof(v), &(v));                                     \
        if (err_ != CL_SUCCESS) return clmax_cl_fail("clSetKernelArg", err_);                      \
    } while (0)

static clmax_status set_reduce_args(cl_kernel k, const clmax_cl_box *b, cl_ulong count,
                                    const clmax_plan *pl)
{
    cl_ulong x_off = b->x_off, n = b->n, inner = b->inner, nseg = pl->nseg;
    cl_ulong seg_len = pl->seg_len, j0 = b->j0, out_off = b->out_off;
    cl_int flags = b->flags;
    SET_ARG(k, 0, b->x);
    SET_ARG(k, 1, x_off);
    SET_ARG(k, 2, n);
    SET_ARG(k, 3, inner);
    SET_ARG(k, 4, count);
    SET_ARG(k, 5, nseg);
    SET_ARG(k, 6, seg_len);
    SET_ARG(k, 7, j0);
    SET_ARG(k, 8, flags);
    SET_ARG(k, 9, b->part);
    SET_ARG(k, 10, b->state);
    SET_ARG(k, 11, b->out);
    SET_ARG(k, 12, out_off);
    return CLMAX_OK;
}

/* STRIDED_WIDE's tile and its local pairs (host/plan.h): the keys, and the indices apart where
 * they are not packed with them (else a token 64 bytes, as a local argument cannot be empty). */
static clmax_status set_wide_args(cl_kernel k, const clmax_plan *pl)
{
    cl_ulong tile = pl->lane_block;
    size_t pairs = (size_t)(tile * clmax_wide_key_bytes(pl->elem_size));
    size_t idx = (size_t)(tile * clmax_wide_index_bytes(pl->elem_size));
    if (idx == 0) idx = 64;
    cl_int err;
    SET_ARG(k, 13, tile);
    if ((err = CL(SetKernelArg)(k, 14, pairs, NULL)) != CL_SUCCESS ||
        (err = CL(SetKernelArg)(k, 15, idx, NULL)) != CL_SUCCESS)
        return clmax_cl_fail("clSetKernelArg", err);
    return CLMAX_OK;
}

clmax_status clmax_cl_enqueue_box(clmax_cl *cl, clmax_cl_program *prog, const clmax_plan *pl,
                                  const clmax_cl_box *b, cl_uint nwait, const cl_event *wait,
                                  cl_event *done)
{
    size_t wg = pl->wg;
    uint64_t nq = b->rows * b->inner;
    cl_kernel k;
    size_t global[2], local[2];
    cl_uint dims = 1;
    clmax_status st;
    /* The combine pass merges with a work-group per output on GPUs, and also where a device's loop
     * limit (clmax_loop_budget) is below one work-item's merge of every segment. */
    uint64_t budget = clmax_loop_budget(clmax_cl_info(cl));
    int group = (!cl->info.is_cpu && pl->nseg >= GPU_COMBINE_WG_MIN) ||
                pl->nseg + CLMAX_LOOP_SLACK > budget;
    if (pl->nseg > 1 && group && (pl->nseg + wg - 1) / wg + CLMAX_LOOP_SLACK > budget)
        return clmax_fail(CLMAX_ERROR_OPENCL,
                          "an axis of %llu elements needs longer loops than the device runs "
                          "(it ends a work-item's loops after %llu iterations)",
                          (unsigned long long)b->n, (unsigned long long)cl->info.loop_limit);
    if (pl->kernel == CLMAX_KERNEL_STRIDED) {
        /* Groups of wg items even where inner is narrow: (row, segment) pairs fill the rest of a
         * group (dimension 1), as a GPU holds only so many groups per compute unit. A CPU
         * device's groups hold lanes only, in one of cpu_group's three sizes. */
        st = clmax_cl_kernel(cl, prog, CLMAX_CL_STRIDED, &k);
        if (st == CLMAX_OK) st = set_reduce_args(k, b, b->rows, pl);
        local[0] = b->inner >= wg                                    ? wg
                   : !cl->info.is_cpu                                ? pow2_ceil((size_t)b->inner)
                   : b->inner == 1                                   ? 1
                   : b->inner <= CPU_GROUP_MID && CPU_GROUP_MID < wg ? CPU_GROUP_MID
                                                                     : wg;
        local[1] = cl->info.is_cpu ? 1 : wg / local[0];
        global[0] = round_up((size_t)b->inner, local[0]);
        global[1] = round_up((size_t)(b->rows * pl->nseg), local[1]);
        dims = 2;
    } else if (pl->kernel == CLMAX_KERNEL_ROWS_SHORT) {
        /* rows of two: the same work-items, SR answers each (pairs_kernel) */
        st = clmax_cl_kernel(cl, prog,
                             pairs_kernel(pl, b) ? CLMAX_CL_ROWS_PAIRS : CLMAX_CL_ROWS_SHORT, &k);
        if (st == CLMAX_OK) st = set_reduce_args(k, b, nq, pl);
        local[0] = cpu_group((size_t)pl->items / (4 * cl->info.compute_units), wg);
        global[0] = round_up((size_t)pl->items, local[0]);
    } else if (pl->kernel == CLMAX_KERNEL_SLICES_SHORT) {
        /* slices of two rows: SR answers a work-item (pairs_kernel) */
        const int pairs = pairs_kernel(pl, b);
        const uint64_t items =
            pairs ? (b->rows * b->inner + CLMAX_SHORT_ROWS - 1) / CLMAX_SHORT_ROWS : pl->items;
        st = clmax_cl_kernel(cl, prog, pairs ? CLMAX_CL_ROWS_PAIRS : CLMAX_CL_SLICES_SHORT, &k);
        if (st == CLMAX_OK) st = set_reduce_args(k, b, b->rows, pl);
        local[0] = cpu_group((size_t)items / (4 * cl->info.compute_units), wg);
        global[0] = round_up((size_t)items, local[0]);
    } else if (pl->kernel == CLMAX_KERNEL_STRIDED_BLK || pl->kernel == CLMAX_KERNEL_ROWS_VEC) {
        /* One long vector loop per work-item: groups small enough to spread over the cores. */
        int blk = pl->kernel == CLMAX_KERNEL_STRIDED_BLK;
        st = clmax_cl_kernel(cl, prog, blk ? CLMAX_CL_STRIDED_BLK : CLMAX_CL_ROWS_VEC, &k);
        if (st == CLMAX_OK) st = set_reduce_args(k, b, blk ? b->rows : nq, pl);
        local[0] = cpu_group((size_t)pl->items / (4 * cl->info.compute_units), wg);
        local[1] = 1;
        if (blk) {
            size_t blocks = (size_t)((b->inner + pl->lane_block - 1) / pl->lane_block);
            local[1] = local[0];
            local[0] = 1;
            global[0] = blocks;
            global[1] = round_up((size_t)(b->rows * pl->nseg), local[1]);
            dims = 2;
        } else {
            global[0] = round_up((size_t)(nq * pl->nseg), local[0]);
        }
    } else if (pl->kernel == CLMAX_KERNEL_STRIDED_WIDE) {
        /* One work-item per group: the group's local memory is that item's running pairs. */
        st = clmax_cl_kernel(cl, prog, CLMAX_CL_STRIDED_WIDE, &k);
        if (st == CLMAX_OK) st = set_reduce_args(k, b, b->rows, pl);
        if (st == CLMAX_OK) st = set_wide_args(k, pl);
        local[0] = local[1] = 1;
        global[0] = (size_t)((b->inner + pl->lane_block - 1) / pl->lane_block);
        global[1] = (size_t)(b->rows * pl->nseg);
        dims = 2;
    } else if (pl->kernel == CLMAX_KERNEL_ROWS_WG) {
        st = clmax_cl_kernel(cl, prog, CLMAX_CL_ROWS_WG, &k);
        if (st == CLMAX_OK) st = set_reduce_args(k, b, nq, pl);
        local[0] = wg;
        global[0] = (size_t)(nq * pl->nseg) * wg;
    } else {
        st = clmax_cl_kernel(cl, prog, CLMAX_CL_ROWS_WI, &k);
        if (st == CLMAX_OK) st = set_reduce_args(k, b, nq, pl);
        local[0] = wg;
        global[0] = round_up((size_t)(nq * pl->nseg), wg);
    }
    if (st != CLMAX_OK) return st;
    cl_event reduced = NULL;
    cl_int err =
        CL(EnqueueNDRangeKernel)(cl->queue, k, dims, NULL, global, local, nwait,
                                 nwait ? wait : NULL, pl->nseg > 1 || done ? &reduced : NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("clEnqueueNDRangeKernel", err);
    if (pl->nseg == 1) {
        if (done) *done = reduced;
        return CLMAX_OK;
    }

    cl_ulong count = nq, nseg = pl->nseg, out_off = b->out_off, n = b->n, inner = b->inner;
    cl_int flags = b->flags;
    st = clmax_cl_kernel(cl, prog, group ? CLMAX_CL_COMBINE_WG : CLMAX_CL_COMBINE, &k);
#define SET(i, v)                                                                                  \
    if (st == CLMAX_OK && (err = CL(SetKernelArg)(k, i, sizeof(v), &(v))) != CL_SUCCESS)           \
    st = clmax_cl_fail("clSetKernelArg", err)
    SET(0, count);
    SET(1, nseg);
    SET(2, flags);
    SET(3, b->part);
    SET(4, b->state);
    SET(5, b->out);
    SET(6, out_off);
    SET(7, n);
    SET(8, inner);
#undef SET
    cl_event combined = NULL;
    if (st == CLMAX_OK) {
        local[0] = wg;
        global[0] = group ? (size_t)nq * wg : round_up((size_t)nq, wg);
        err =
            CL(EnqueueNDRangeKernel)(cl->queue, k, 1, NULL, global, local, 1, &reduced, &combined);
        if (err != CL_SUCCESS) st = clmax_cl_fail("clEnqueueNDRangeKernel", err);
    }
    clmax_cl_release_after(cl, combined, reduced);
    if (done)
        *done = combined;
    else if (combined)
        CL(ReleaseEvent)(combined);
    return st;
}
