/* Hardmax on the CPU path, fused: each thread takes blocks of whole slices, finds their winners
 * on its own (clmax_cpu_reduce_here) and writes their one-hot at once (clmax_onehot_fill_here),
 * while the winners are still in its cache.
 *
 * Why: the unfused path finds the winners of a million outputs, then writes their one-hot. On
 * short axes the 8-byte winners are more bytes than the input ([B, 3, 1] float16: 8 against 6),
 * and they went to memory and back between the two passes. */
#include "backend.h"
#include "cpu_hardmax_tiny.h"
#include "onehot.h"
#include "status.h"

#include <stdatomic.h>
#include <stdlib.h>

#define FUSE_OUTPUTS 4096          /* winners of a block at most: 32 KiB, kept in the L1/L2 cache */
#define FUSE_BYTES (128u << 10)    /* input bytes of a block at most */
#define FUSE_SLICE_MAX (32u << 10) /* larger slices hold few winners for their bytes: unfused */
#define FUSE_BLOCKS_MIN 4          /* blocks a thread at least, else unfused */

typedef struct fused_job {
    clmax_context *ctx;
    const clmax_problem *p;
    const char *x;
    char *y;
    uint64_t block; /* slices a block */
    uint64_t call_bytes;
    atomic_int status; /* the first failure, or CLMAX_OK */
} fused_job;

static uint64_t block_slices(const clmax_problem *p)
{
    const uint64_t slice_bytes = p->n * p->inner * p->esize;
    uint64_t by_out = FUSE_OUTPUTS / p->inner, by_in = FUSE_BYTES / slice_bytes;
    uint64_t b = by_out < by_in ? by_out : by_in;
    return b == 0 ? 1 : b;
}

int clmax_cpu_hardmax_fits(const clmax_context *ctx, const clmax_problem *p)
{
    if (p->n < 2 || p->n * p->inner * p->esize > FUSE_SLICE_MAX) return 0;
    /* One pass whatever the count of blocks: a single thread takes a few of them as fast. */
    if (clmax_cpu_hardmax_tiny_fits(p)) return 1;
    const uint64_t block = block_slices(p), blocks = (p->outer + block - 1) / block;
    return blocks >= FUSE_BLOCKS_MIN * (uint64_t)ctx->num_threads;
}

/* Blocks [begin, end) on this thread, in one pass each (cpu_hardmax_tiny.c). */
static void tiny_blocks(void *arg, uint64_t begin, uint64_t end)
{
    fused_job *f = arg;
    const clmax_problem *p = f->p;
    const uint64_t slice_bytes = p->n * p->inner * p->esize;
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

clmax_status clmax_cpu_hardmax(clmax_context *ctx, const clmax_problem *p, const void *x, void *y)
{
    fused_job f = {ctx, p, x, y, block_slices(p), p->outer * p->n * p->inner * p->esize, CLMAX_OK};
    const uint64_t blocks = (p->outer + f.block - 1) / f.block;
    clmax_parallel_for(ctx, blocks, FUSE_BLOCKS_MIN,
                       clmax_cpu_hardmax_tiny_fits(p) ? tiny_blocks : fused_blocks, &f);
    clmax_status st = (clmax_status)atomic_load(&f.status);
    if (st != CLMAX_OK)
        return clmax_fail(st, "CPU path: Hardmax of %llu slices failed on a block's winners",
                          (unsigned long long)p->outer);
    return CLMAX_OK;
}
