/* Hardmax on the CPU path, fused: each thread takes blocks of whole slices, finds their winners
 * on its own (clmax_cpu_reduce_here) and writes their one-hot at once (clmax_onehot_fill_here),
 * while the winners are still in its cache.
 *
 * Slices larger than FUSE_SLICE_MAX with many lanes are taken a block of FUSE_LANES lanes at a
 * time instead: the lanes code finds the block's winners, then its rows' one-hot is written.
 *
 * Why: the unfused path finds the winners of a million outputs, then writes their one-hot. On
 * short axes the 8-byte winners are more bytes than the input ([B, 3, 1] float16: 8 against 6),
 * and they went to memory and back between the two passes. */
#include "backend.h"
#include "cpu_hardmax_near.h"
#include "cpu_hardmax_runs.h"
#include "cpu_hardmax_scan.h"
#include "cpu_hardmax_tiny.h"
#include "cpu_kernels.h"
#include "onehot.h"
#include "status.h"
#include "stream.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define FUSE_OUTPUTS 4096          /* winners of a block at most: 32 KiB, kept in the L1/L2 cache */
#define FUSE_BYTES (128u << 10)    /* input bytes of a block at most */
#define FUSE_SLICE_MAX (32u << 10) /* larger slices hold few winners for their bytes: unfused */
#define FUSE_BLOCKS_MIN 4          /* blocks a thread at least, else unfused */
/* Larger slices: blocks of FUSE_LANES lanes (their winners 32 KiB, their state 128 KiB), where
 * there are at least FUSE_LANES_MIN lanes (fewer run better as the reduce's slices) and the axis
 * is at most FUSE_LANES_AXIS_BYTES: the winners' 16 bytes an output (written, read back) were
 * then a quarter or more of the input and output bytes. On longer axes the reduce's own units
 * (longer lane blocks, split axes) ran faster: float32 [B, 256, 65536] 0.91 unfused, 0.51 so. */
#define FUSE_LANES 4096
#define FUSE_LANES_MIN 256
#define FUSE_LANES_AXIS_BYTES 32
/* ... or, for four-byte types, axes of up to FUSE_LANES_AXIS_N: in turns (3 rounds, 256 MiB,
 * [B, 12..64, 4096..2^20]) float32 of 12 to 24 rows x0.99-1.62 fused (0.55-0.60 -> 0.62-0.69 at
 * 2^20 lanes); of 32 and 64 x0.96-1.11. float16 of 21 and 24 rows ran x1.12-1.77 at 4096 lanes
 * but x0.91-0.95 at 65536 and stays unfused, as do other widths (not measured). */
#define FUSE_LANES_AXIS_N 24
#define RUNS_THREAD_BYTES (64u << 10) /* input bytes a thread at least (cpu_hardmax_runs.c) */
/* cpu_hardmax_tiny.c's one-hot of lanes and of rows of two is built TINY_CHUNK bytes (or one
 * slice) at a time in the L1 cache and streamed out, where the call has CLMAX_STREAM_MIN bytes or
 * more: its vector loops' plain stores read each output line first. Float32 [B, 2..4, 16..64]
 * 0.59-0.66 -> 0.77-0.86 of the limit, float16 0.61-0.69 -> 0.58-0.81, rows of two float16 and
 * float32 0.67-0.68 -> 0.75-0.76; rows of 3, 4 and 8 ran 2-18% slower so (the copy costs more than
 * the lines' reads saved there). Chunks of 16 KiB ran slower than plain stores (the reads and the
 * writes in turns, not side by side). */
#define TINY_CHUNK 1024u
#define TINY_SLICE_MAX 8160u /* tiny's largest slice: 4 rows of 255 eight-byte lanes */

typedef struct fused_job {
    clmax_context *ctx;
    const clmax_problem *p;
    const char *x;
    char *y;
    uint64_t block; /* slices a block */
    uint64_t call_bytes;
    atomic_int status; /* the first failure, or CLMAX_OK */
    lanes_fn lanes;    /* lane blocks: the type's lanes code */
    uint64_t lane_units;
    int wide; /* the neighbour compares' 512-bit form (clmax_cpu_hardmax_wide_pays) */
    int scan; /* cpu_hardmax_scan.c takes the slices */
} fused_job;

static int lane_blocks_fit(const clmax_problem *p)
{
    return p->n * p->inner * p->esize > FUSE_SLICE_MAX && p->inner >= FUSE_LANES_MIN &&
           (p->n * p->esize <= FUSE_LANES_AXIS_BYTES ||
            (p->esize == 4 && p->n <= FUSE_LANES_AXIS_N));
}

/* Lane blocks a slice. */
static uint64_t lane_units(const clmax_problem *p)
{
    return (p->inner + FUSE_LANES - 1) / FUSE_LANES;
}

static uint64_t block_slices(const clmax_problem *p)
{
    const uint64_t slice_bytes = p->n * p->inner * p->esize;
    uint64_t by_out = FUSE_OUTPUTS / p->inner, by_in = FUSE_BYTES / slice_bytes;
    uint64_t b = by_out < by_in ? by_out : by_in;
    return b == 0 ? 1 : b;
}

/* Whether slices of p run in one pass each (tiny_blocks); scan: clmax_cpu_hardmax_scan_fits. */
static int one_pass(const clmax_problem *p, int scan)
{
    return scan || clmax_cpu_hardmax_tiny_fits(p) || clmax_cpu_hardmax_near_fits(p);
}

int clmax_cpu_hardmax_fits(const clmax_context *ctx, const clmax_problem *p)
{
    if (p->n < 2) return 0;
    if (clmax_cpu_hardmax_runs_fit(p)) return 1; /* one pass whatever the count of blocks */
    if (lane_blocks_fit(p))
        return p->outer * lane_units(p) >= FUSE_BLOCKS_MIN * (uint64_t)ctx->num_threads;
    if (p->n * p->inner * p->esize > FUSE_SLICE_MAX) return 0;
    /* One pass whatever the count of blocks: a single thread takes a few of them as fast. */
    if (one_pass(p, clmax_cpu_hardmax_scan_fits(ctx, p))) return 1;
    const uint64_t block = block_slices(p), blocks = (p->outer + block - 1) / block;
    return blocks >= FUSE_BLOCKS_MIN * (uint64_t)ctx->num_threads;
}

/* Slices [0, slices) of x by cpu_hardmax_tiny.c, their one-hot to y a chunk at a time through a
 * buffer, streamed in whole 64-byte lines of y: a line's bytes left over at a chunk's end are
 * kept at the buffer's front for the next (part-lines streamed cost a line's write each). */
static void tiny_streamed(const clmax_problem *p, const char *x, char *y, uint64_t slices)
{
    _Alignas(64) char buf[TINY_SLICE_MAX + 64];
    const uint64_t slice_bytes = p->n * p->inner * p->esize;
    const uint64_t per = slice_bytes < TINY_CHUNK ? TINY_CHUNK / slice_bytes : 1;
    size_t pend = 0; /* bytes at buf's front not yet written: they end where slice o starts */
    for (uint64_t o = 0; o < slices; o += per) {
        const uint64_t rows = slices - o < per ? slices - o : per;
        clmax_cpu_hardmax_tiny(p, rows, x + o * slice_bytes, buf + pend);
        pend = clmax_stream_lines(y + o * slice_bytes - pend, buf,
                                  pend + (size_t)(rows * slice_bytes));
    }
    memcpy(y + slices * slice_bytes - pend, buf, pend);
    clmax_stream_fence(); /* visible to the thread that joins us */
}

/* Blocks [begin, end) on this thread, in one pass each (cpu_hardmax_scan.c, cpu_hardmax_tiny.c,
 * cpu_hardmax_near.c). */
static void tiny_blocks(void *arg, uint64_t begin, uint64_t end)
{
    fused_job *f = arg;
    const clmax_problem *p = f->p;
    const uint64_t slice_bytes = p->n * p->inner * p->esize;
    const uint64_t o0 = begin * f->block,
                   o1 = end * f->block < p->outer ? end * f->block : p->outer;
    if (f->scan) { /* blocks [begin, end) at once */
        clmax_cpu_hardmax_scan(p, o1 - o0, f->x + o0 * slice_bytes, f->y + o0 * slice_bytes);
        return;
    }
    if (clmax_cpu_hardmax_near_fits(p)) { /* blocks [begin, end) at once: its setup once */
        clmax_cpu_hardmax_near(p, o1 - o0, f->x + o0 * slice_bytes, f->y + o0 * slice_bytes,
                               f->wide);
        return;
    }
    if (f->call_bytes >= CLMAX_STREAM_MIN && slice_bytes <= TINY_SLICE_MAX &&
        (p->inner > 1 || p->n == 2)) {
        tiny_streamed(p, f->x + o0 * slice_bytes, f->y + o0 * slice_bytes, o1 - o0);
        return;
    }
    for (uint64_t b = begin; b < end; b++) {
        const uint64_t o = b * f->block;
        const uint64_t rows = p->outer - o < f->block ? p->outer - o : f->block;
        clmax_cpu_hardmax_tiny(p, rows, f->x + o * slice_bytes, f->y + o * slice_bytes);
    }
}

/* Blocks [begin, end) on this thread: their winners, then their one-hot. */
static void fused_blocks(void *arg, uint64_t begin, uint64_t end)
{
    fused_job *f = arg;
    const clmax_problem *p = f->p;
    const uint64_t slice_bytes = p->n * p->inner * p->esize;
    int64_t *idx = malloc((size_t)(f->block * p->inner) * sizeof *idx);
    if (idx == NULL) {
        atomic_store(&f->status, CLMAX_ERROR_OUT_OF_MEMORY);
        return;
    }
    for (uint64_t b = begin; b < end; b++) {
        clmax_problem q = *p;
        const uint64_t o = b * f->block;
        q.outer = p->outer - o < f->block ? p->outer - o : f->block;
        q.reread = 1;
        clmax_status st = clmax_cpu_reduce_here(f->ctx, &q, f->x + o * slice_bytes, idx);
        if (st != CLMAX_OK) {
            atomic_store(&f->status, st);
            break;
        }
        clmax_onehot_fill_here(&q, idx, f->y + o * slice_bytes, f->call_bytes);
    }
    free(idx);
}

/* Lane blocks [begin, end) on this thread (block b: lanes of slice b / lane_units): their winners
 * by the lanes code, then their rows' one-hot. */
static void lane_blocks(void *arg, uint64_t begin, uint64_t end)
{
    fused_job *f = arg;
    const clmax_problem *p = f->p;
    uint64_t *bk = malloc(4 * FUSE_LANES * sizeof *bk); /* then the winners, the lanes' work */
    if (bk == NULL) {
        atomic_store(&f->status, CLMAX_ERROR_OUT_OF_MEMORY);
        return;
    }
    uint64_t *bi = bk + FUSE_LANES, *work = bi + FUSE_LANES;
    for (uint64_t b = begin; b < end; b++) {
        const uint64_t o = b / f->lane_units, i0 = (b % f->lane_units) * FUSE_LANES;
        const uint64_t lanes = p->inner - i0 < FUSE_LANES ? p->inner - i0 : FUSE_LANES;
        const uint64_t at = (o * p->n * p->inner + i0) * p->esize;
        f->lanes(f->x + at, p->inner, lanes, 0, p->n, p->last, bk, bi, work);
        clmax_onehot_lane_block(p, (const int64_t *)bi, lanes, f->y + at, f->call_bytes);
    }
    free(bk);
}

/* Blocks [begin, end) of cpu_hardmax_runs.c on this thread. */
static void run_blocks(void *arg, uint64_t begin, uint64_t end)
{
    fused_job *f = arg;
    clmax_cpu_hardmax_runs(f->p, begin, end, f->x, f->y, f->call_bytes);
}

clmax_status clmax_cpu_hardmax(clmax_context *ctx, const clmax_problem *p, const void *x, void *y)
{
    const int scan = clmax_cpu_hardmax_scan_fits(ctx, p);
    fused_job f = {.ctx = ctx,
                   .p = p,
                   .x = x,
                   .y = y,
                   .block = 1,
                   .call_bytes = p->outer * p->n * p->inner * p->esize,
                   .status = CLMAX_OK,
                   .wide =
                       !scan && clmax_cpu_hardmax_near_fits(p) && clmax_cpu_hardmax_wide_pays(ctx),
                   .scan = scan};
    if (clmax_cpu_hardmax_runs_fit(p)) {
        const uint64_t blocks = clmax_cpu_hardmax_runs_blocks(p);
        const uint64_t per_thread = blocks ? RUNS_THREAD_BYTES / (f.call_bytes / blocks) : 1;
        clmax_parallel_for(ctx, blocks, per_thread ? per_thread : 1, run_blocks, &f);
    } else if (lane_blocks_fit(p)) {
        f.lanes = clmax_cpu_lanes_of(ctx, p);
        f.lane_units = lane_units(p);
        clmax_parallel_for(ctx, p->outer * f.lane_units, FUSE_BLOCKS_MIN, lane_blocks, &f);
    } else {
        f.block = block_slices(p);
        const uint64_t blocks = (p->outer + f.block - 1) / f.block;
        clmax_parallel_for(ctx, blocks, FUSE_BLOCKS_MIN,
                           one_pass(p, f.scan) ? tiny_blocks : fused_blocks, &f);
    }
    clmax_status st = (clmax_status)atomic_load(&f.status);
    if (st != CLMAX_OK)
        return clmax_fail(st, "CPU path: Hardmax of %llu slices failed on a block's winners",
                          (unsigned long long)p->outer);
    return CLMAX_OK;
}
