/* Strategy choice (DESIGN.md section 4). Tuning values are per device kind: GPUs want thousands of
 * work-items and a work-group per long row; CPU devices want a few long-running work-items per
 * core with sequential, vectorisable loops (local-memory trees are slow on PoCL). */
#include "plan.h"

#define GPU_WG 256              /* work-group size of the row tree on GPUs */
#define CPU_WG 64               /* ... on CPU devices, used only when forced */
#define GPU_ITEMS_PER_CU 2048   /* resident work-items a GPU compute unit wants */
#define CPU_ITEMS_PER_CU 64     /* work-items per CPU core (PoCL vectorises across them) */
#define GPU_SHORT_ROW 64        /* rows shorter than this get a work-item each on GPUs */
#define MIN_SEG_WG 4096         /* shortest segment of a row worth a work-group */
#define MIN_SEG_ITEM 1024       /* shortest segment worth a work-item of its own */
#define MIN_SEG_GPU_STRIDED 256 /* ... of a strided axis on GPUs (its pairs: 1/16 at most) */
#define WIDE_ITEMS_PER_CU 4     /* STRIDED_WIDE work-items per CPU core (each reads megabytes) */
#define MIN_SEG_WIDE 64         /* shortest segment of STRIDED_WIDE: 64 rows of 8 KiB or more */
#define FORCED_SPLIT_SEGMENTS 5
#define MAX_VEC_SEGMENT 0xFFFFFFFFull
#define MAX_PACKED_SEGMENT 0x10000ull

static size_t pow2_floor(size_t v)
{
    size_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Lanes per tile of STRIDED_WIDE for rows of inner lanes, or 0 where it does not apply: rows that
 * fit one block of STRIDED_BLK, which reads them as one stream already, or a device whose local
 * memory cannot hold the pairs of tiles much wider than a block (half of it at most). Tiles are
 * multiples of 16 lanes (every vector width) and as even as that allows. */
static uint64_t wide_tile(const clmax_device_info *dev, uint64_t inner, size_t elem_size)
{
    uint64_t block = clmax_lane_block(elem_size);
    if (inner <= block) return 0;
    uint64_t most = CLMAX_WIDE_BYTES / elem_size;
    uint64_t lane_bytes = clmax_wide_key_bytes(elem_size) + clmax_wide_index_bytes(elem_size);
    uint64_t fit = dev->local_mem / 2 / lane_bytes / 16 * 16;
    if (fit < most) most = fit;
    if (most < 2 * block) return 0;
    uint64_t tiles = ceil_div(inner, most);
    return ceil_div(ceil_div(inner, tiles), 16) * 16;
}

/* Whole slices per work-item of SLICES_SHORT (kernels/slices_short.cl): as many as its key buffer
 * of CLMAX_SHORT_ROWS * CLMAX_SHORT_N holds, or one that goes through it in parts. */
static uint64_t slices_per_item(uint64_t n, uint64_t inner)
{
    uint64_t buf = CLMAX_SHORT_ROWS * CLMAX_SHORT_N;
    return n * inner <= buf ? buf / (n * inner) : 1;
}

/* Whether [rows, n, inner] goes to SLICES_SHORT on a CPU device: rows of fewer lanes than a
 * vector, which STRIDED_BLK would scan one lane at a time (at 0.05-0.20 of the limit on PoCL, a
 * work-item per slice), in slices short enough for a work-item each. Slices of one-byte keys past
 * 4096 elements ran faster on STRIDED_BLK (0.10-0.11 against 0.08-0.09) than an element at a time,
 * but not than packed vectors (uint8 [B, 4096..8192, 3] 0.07-0.08 -> 0.41-0.65 on PoCL; past 32
 * KiB they were no faster, 0.12-0.50 either way). Slices are never split, so STRIDED_BLK's
 * segments take a forced split, and too few slices to fill the device on an axis long enough to
 * split (the test of the split below). */
static int short_slices(const clmax_device_info *dev, uint64_t rows, uint64_t n, uint64_t inner,
                        size_t elem_size, clmax_strategy forced)
{
    uint64_t most = elem_size == 1 ? CLMAX_SHORT_SLICE / 4 : CLMAX_SHORT_SLICE;
    if (elem_size <= 4 && most * elem_size < CLMAX_PACKED_SLICE)
        most = CLMAX_PACKED_SLICE / elem_size;
    const uint64_t vw = clmax_vector_width(elem_size);
    int vectors = elem_size <= 4 && inner % vw == 0 && inner <= CLMAX_SLICE_VECS * vw &&
                  n * inner <= CLMAX_SHORT_ROWS * CLMAX_SHORT_N;
    if (!vectors && (inner < 2 || inner >= vw || n > most / inner)) return 0;
    if (forced == CLMAX_STRATEGY_SPLIT && n >= 2) return 0;
    uint64_t cu = dev->compute_units ? dev->compute_units : 1;
    return ceil_div(rows, slices_per_item(n, inner)) >= cu * CPU_ITEMS_PER_CU ||
           n < 2 * MIN_SEG_ITEM;
}

clmax_plan clmax_plan_choose(const clmax_device_info *dev, uint64_t rows, uint64_t n,
                             uint64_t inner, size_t elem_size, clmax_strategy forced)
{
    clmax_plan pl;
    pl.lane_block = clmax_lane_block(elem_size);
    pl.elem_size = elem_size;
    uint64_t cu = dev->compute_units ? dev->compute_units : 1;
    size_t wg_limit = dev->max_wg ? dev->max_wg : 1;
    pl.wg = pow2_floor(dev->is_cpu ? (wg_limit < CPU_WG ? wg_limit : CPU_WG)
                                   : (wg_limit < GPU_WG ? wg_limit : GPU_WG));
    pl.nseg = 1;

    /* Forced ROWS on a CPU device takes the per-item kernel for contiguous rows and the tree for
     * strided ones, so that the tests reach every kernel on PoCL. */
    if (forced == CLMAX_STRATEGY_ROWS) {
        pl.kernel = dev->is_cpu && inner == 1 ? CLMAX_KERNEL_ROWS_WI : CLMAX_KERNEL_ROWS_WG;
    } else if (forced == CLMAX_STRATEGY_STRIDED) {
        pl.kernel = CLMAX_KERNEL_STRIDED;
    } else if (dev->is_cpu) {
        /* A block of lanes runs a loop step per lane and row: on a device with a loop limit its
         * segments would be a few rows long, so a lane per work-item there. */
        uint64_t tile = inner > 1 && !dev->loop_limit ? wide_tile(dev, inner, elem_size) : 0;
        int slices = short_slices(dev, rows, n, inner, elem_size, forced);
        pl.kernel = tile                                   ? CLMAX_KERNEL_STRIDED_WIDE
                    : dev->loop_limit && inner > 1         ? CLMAX_KERNEL_STRIDED
                    : slices                               ? CLMAX_KERNEL_SLICES_SHORT
                    : inner > 1                            ? CLMAX_KERNEL_STRIDED_BLK
                    : n <= clmax_short_row_most(elem_size) ? CLMAX_KERNEL_ROWS_SHORT
                                                           : CLMAX_KERNEL_ROWS_VEC;
        if (tile) pl.lane_block = tile;
    } else if (inner > 1) {
        pl.kernel = CLMAX_KERNEL_STRIDED;
    } else {
        pl.kernel = n < GPU_SHORT_ROW ? CLMAX_KERNEL_ROWS_WI : CLMAX_KERNEL_ROWS_WG;
    }

    /* Independent outputs the kernel spreads over work-items (or work-groups), and how many it
     * wants to fill the device. */
    uint64_t units = rows * inner, want, min_seg;
    if (pl.kernel == CLMAX_KERNEL_ROWS_WG) {
        want = dev->is_cpu ? 4 * cu : cu * (GPU_ITEMS_PER_CU / pl.wg);
        min_seg = MIN_SEG_WG;
    } else if (pl.kernel == CLMAX_KERNEL_STRIDED_WIDE) {
        units = rows * ceil_div(inner, pl.lane_block);
        want = cu * WIDE_ITEMS_PER_CU;
        min_seg = MIN_SEG_WIDE;
    } else if (dev->is_cpu) {
        if (pl.kernel == CLMAX_KERNEL_STRIDED_BLK) units = rows * ceil_div(inner, pl.lane_block);
        if (pl.kernel == CLMAX_KERNEL_ROWS_SHORT) units = ceil_div(rows, CLMAX_SHORT_ROWS);
        if (pl.kernel == CLMAX_KERNEL_SLICES_SHORT)
            units = ceil_div(rows, slices_per_item(n, inner));
        want = cu * CPU_ITEMS_PER_CU;
        min_seg = MIN_SEG_ITEM;
    } else {
        want = cu * GPU_ITEMS_PER_CU;
        min_seg = pl.kernel == CLMAX_KERNEL_STRIDED ? MIN_SEG_GPU_STRIDED : MIN_SEG_ITEM;
    }
    if (forced == CLMAX_STRATEGY_AUTO && units < want && n >= 2 * min_seg) {
        /* GPUs' strided items all read as long, so a wave and a fifth takes two waves' time:
         * whole waves only. */
        int waves = !dev->is_cpu && pl.kernel == CLMAX_KERNEL_STRIDED;
        pl.nseg = waves ? want / units : ceil_div(want, units);
        if (pl.nseg > n / min_seg) pl.nseg = n / min_seg;
    }
    if (forced == CLMAX_STRATEGY_SPLIT && n >= 2) {
        pl.nseg = n < FORCED_SPLIT_SEGMENTS ? n : FORCED_SPLIT_SEGMENTS;
        if (pl.kernel == CLMAX_KERNEL_ROWS_SHORT) { /* whole rows only: split with lanes */
            pl.kernel = CLMAX_KERNEL_ROWS_VEC;
            units = rows;
        }
    }
    /* The vector kernels keep 32-bit indices relative to a segment; the strided blocks pack
     * 8- and 16-bit keys with a 16-bit one. */
    int blocks = pl.kernel == CLMAX_KERNEL_STRIDED_BLK || pl.kernel == CLMAX_KERNEL_STRIDED_WIDE;
    uint64_t max_seg = blocks && elem_size <= 2 ? MAX_PACKED_SEGMENT : MAX_VEC_SEGMENT;
    if ((pl.kernel == CLMAX_KERNEL_ROWS_VEC || blocks) && n / (pl.nseg ? pl.nseg : 1) >= max_seg)
        pl.nseg = n / max_seg + 1;
    if (pl.nseg < 1) pl.nseg = 1;
    /* On a device that ends loops early, segments short enough for each work-item's loops (the
     * inverse of clmax_plan_item_loops; ROWS_SHORT's rows are short already, and the lane blocks
     * are not planned there). */
    uint64_t budget = clmax_loop_budget(dev);
    if (budget != UINT64_MAX && pl.kernel != CLMAX_KERNEL_ROWS_SHORT) {
        uint64_t most = budget > CLMAX_LOOP_SLACK ? budget - CLMAX_LOOP_SLACK : 1;
        if (pl.kernel == CLMAX_KERNEL_ROWS_WG) most *= pl.wg;
        if (ceil_div(n, pl.nseg) > most) pl.nseg = ceil_div(n, most);
    }
    pl.seg_len = ceil_div(n, pl.nseg);
    pl.nseg = ceil_div(n, pl.seg_len); /* no empty segment */
    pl.items = units * pl.nseg;
    return pl;
}

uint64_t clmax_plan_item_loops(const clmax_plan *pl)
{
    switch (pl->kernel) {
    case CLMAX_KERNEL_ROWS_WG: /* wg elements a step, or 2 * wg vectors */
        return ceil_div(pl->seg_len, pl->wg) + CLMAX_LOOP_SLACK;
    case CLMAX_KERNEL_ROWS_SHORT: /* rows under a vector (its buffer of SHORT_N a row) read
                                   * twice or thrice; longer ones a vector a step */
        return 3 * CLMAX_SHORT_ROWS * CLMAX_SHORT_N + CLMAX_LOOP_SLACK;
    case CLMAX_KERNEL_SLICES_SHORT: /* its buffer's keys made, then scanned, a step each */
        return 2 * CLMAX_SHORT_SLICE + CLMAX_LOOP_SLACK;
    case CLMAX_KERNEL_STRIDED_BLK:
    case CLMAX_KERNEL_STRIDED_WIDE: /* a step per lane of each row, first and last rows too */
        return (pl->seg_len + 2) * pl->lane_block + CLMAX_LOOP_SLACK;
    default: /* an element a step at most (ROWS_VEC: a vector and at most two words of zeros) */
        return pl->seg_len + CLMAX_LOOP_SLACK;
    }
}
