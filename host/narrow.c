/* Strided axes with few inner lanes, [outer, n, inner] with inner of 2 to NARROW_INNER - 1 (say
 * [N, 4] along axis 0, or [B, L, 3] along axis 1): both backends scan the lanes of a row with
 * vectors, and a row of a few elements leaves most of a vector empty (PoCL: scalar code; CPU path:
 * a loop of a few iterations), at a third to a half of the speed of rows of 256 lanes.
 *
 * So g consecutive rows are taken as one wide row of m = g * inner lanes, about NARROW_ROW_BYTES:
 * the wide problem [outer, n / g, m] runs on the backend as any strided axis. Wide lane
 * e = q * inner + l holds lane l of rows q, g + q, 2g + q, ...: its winner (index t along the wide
 * axis) is the winner of lane l among the rows congruent to q modulo g, at row t * g + q, under
 * the same tie rule (those rows come in the same order). The answer for lane l is then the best of
 * its g candidates and of the n % g rows past the last wide row, by key and then by row under the
 * tie rule: the first (or last) winning row belongs to one class, where it is that class's own
 * first (or last) winner, so it is among the candidates. */
#include "narrow.h"
#include "backend.h"
#include "keys.h"
#include "pool.h"
#include "status.h"

#include <stdlib.h>

#define NARROW_INNER 8                /* inner lanes below this are narrow (8 already run well) */
#define NARROW_LANE_BYTES 32          /* and so are rows of lanes shorter than this: 16 bytes of */
                                      /* uint8 lanes ran at a tenth of the read on the CPU path */
#define NARROW_ROW_BYTES 1024         /* bytes of a wide row */
#define NARROW_MIN_WIDE_ROWS 256      /* at least this many wide rows: the candidates load little */
#define NARROW_MIN_ROW_BYTES 128      /* wide rows shorter than this: not worth it */
#define NARROW_OUTPUTS (1u << 20)     /* wide outputs (their indices) held at once: 8 MiB */
#define NARROW_SLICE_BYTES (1u << 20) /* slices reduced one call each are at least this large */
#define NARROW_PER_THREAD 4096u       /* outputs merged apart: fewer go to one thread */

/* The key of element e of x (ArgMin keys for min): the order the backends compare in. */
static uint64_t key_at(const clmax_problem *p, const void *x, uint64_t e)
{
    const unsigned char *b = x;
    int m = p->min;
    switch (p->type) {
    case CLMAX_TYPE_UINT8:
        return m ? clmax_mkey_u8(b[e]) : clmax_key_u8(b[e]);
    case CLMAX_TYPE_INT8:
        return m ? clmax_mkey_i8(b[e]) : clmax_key_i8(b[e]);
    case CLMAX_TYPE_UINT16:
        return m ? clmax_mkey_u16(((const uint16_t *)x)[e])
                 : clmax_key_u16(((const uint16_t *)x)[e]);
    case CLMAX_TYPE_INT16:
        return m ? clmax_mkey_i16(((const uint16_t *)x)[e])
                 : clmax_key_i16(((const uint16_t *)x)[e]);
    case CLMAX_TYPE_FLOAT16:
        return m ? clmax_mkey_f16(((const uint16_t *)x)[e])
                 : clmax_key_f16(((const uint16_t *)x)[e]);
    case CLMAX_TYPE_BFLOAT16:
        return m ? clmax_mkey_bf16(((const uint16_t *)x)[e])
                 : clmax_key_bf16(((const uint16_t *)x)[e]);
    case CLMAX_TYPE_UINT32:
        return m ? clmax_mkey_u32(((const uint32_t *)x)[e])
                 : clmax_key_u32(((const uint32_t *)x)[e]);
    case CLMAX_TYPE_INT32:
        return m ? clmax_mkey_i32(((const uint32_t *)x)[e])
                 : clmax_key_i32(((const uint32_t *)x)[e]);
    case CLMAX_TYPE_FLOAT32:
        return m ? clmax_mkey_f32(((const uint32_t *)x)[e])
                 : clmax_key_f32(((const uint32_t *)x)[e]);
    case CLMAX_TYPE_UINT64:
        return m ? clmax_mkey_u64(((const uint64_t *)x)[e])
                 : clmax_key_u64(((const uint64_t *)x)[e]);
    case CLMAX_TYPE_INT64:
        return m ? clmax_mkey_i64(((const uint64_t *)x)[e])
                 : clmax_key_i64(((const uint64_t *)x)[e]);
    default:
        return m ? clmax_mkey_f64(((const uint64_t *)x)[e])
                 : clmax_key_f64(((const uint64_t *)x)[e]);
    }
}

uint64_t clmax_narrow_rows(const clmax_context *ctx, const clmax_problem *p)
{
    if (ctx->strategy != CLMAX_STRATEGY_AUTO || p->inner < 2 ||
        (p->inner >= NARROW_INNER && p->inner * p->esize >= NARROW_LANE_BYTES))
        return 0;
    /* g a multiple of a, so that a wide row is whole vectors of up to 16 elements (PoCL scans the
     * lanes past the last whole vector one at a time). */
    uint64_t a = 16, r = p->inner;
    while (r % 2 == 0 && a > 1)
        r /= 2, a /= 2;
    uint64_t g = NARROW_ROW_BYTES / (p->inner * p->esize);
    if (g > p->n / NARROW_MIN_WIDE_ROWS) g = p->n / NARROW_MIN_WIDE_ROWS; /* shorter rows */
    g = g / a * a;
    if (g < 2 || g * p->inner * p->esize < NARROW_MIN_ROW_BYTES) return 0;
    /* The wide rows of all outer slices are one problem when g divides n (the slices then follow
     * each other with the wide layout's stride); a divisor down to half of g will do. Otherwise
     * each slice is a call of its own, which pays only for large slices. */
    for (uint64_t d = g; d >= g / 2 && d >= a && d * p->inner * p->esize >= NARROW_MIN_ROW_BYTES;
         d -= a)
        if (p->n % d == 0) return d;
    return p->outer == 1 || p->n * p->inner * p->esize >= NARROW_SLICE_BYTES ? g : 0;
}

typedef struct merge_job {
    const clmax_problem *p;
    const char *x;     /* the first outer slice of the block */
    const int64_t *wi; /* the wide problem's answers for the block, [rows, g * inner] */
    int64_t *idx;      /* the block's answers, [rows, inner] */
    uint64_t g;
} merge_job;

/* Answers [begin, end) of a block (output q = o * inner + l). */
static void merge(void *arg, uint64_t begin, uint64_t end)
{
    const merge_job *j = arg;
    const clmax_problem *p = j->p;
    const uint64_t inner = p->inner, g = j->g, m = g * inner, full = p->n / g * g;
    for (uint64_t q = begin; q < end; q++) {
        uint64_t o = q / inner, l = q % inner, base = o * p->n * inner + l;
        uint64_t bk = 0, br = 0;
        for (uint64_t c = 0; c < g + (p->n - full); c++) {
            /* the candidate of class c, then the rows past the last wide row */
            uint64_t row = c < g ? (uint64_t)j->wi[o * m + c * inner + l] * g + c : full + c - g;
            uint64_t k = key_at(p, j->x, base + row * inner);
            if (c == 0 || k > bk || (k == bk && (p->last ? row > br : row < br))) {
                bk = k;
                br = row;
            }
        }
        j->idx[q] = (int64_t)br;
    }
}

clmax_status clmax_reduce_narrow(clmax_context *ctx, const clmax_problem *p, const void *x,
                                 int64_t *idx, uint64_t g, clmax_reduce_fn reduce)
{
    const uint64_t m = g * p->inner, slice = p->n * p->inner * p->esize;
    /* One call per slice when g does not divide n (the wide layout then skips the last rows of
     * each slice), else blocks of slices whose wide answers fit NARROW_OUTPUTS. */
    uint64_t rows = p->n % g != 0 ? 1 : NARROW_OUTPUTS / m ? NARROW_OUTPUTS / m : 1;
    if (rows > p->outer) rows = p->outer;
    int64_t *wi = malloc((size_t)(rows * m) * sizeof *wi);
    if (wi == NULL)
        return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "narrow lanes: %llu wide answers",
                          (unsigned long long)(rows * m));
    clmax_status st = CLMAX_OK;
    for (uint64_t o = 0; o < p->outer && st == CLMAX_OK; o += rows) {
        clmax_problem w = *p;
        w.outer = p->outer - o < rows ? p->outer - o : rows;
        w.n = p->n / g;
        w.inner = m;
        const char *xb = (const char *)x + o * slice;
        st = reduce(ctx, &w, xb, wi);
        if (st != CLMAX_OK) break;
        merge_job j = {p, xb, wi, idx + o * p->inner, g};
        clmax_parallel_for(ctx, w.outer * p->inner, NARROW_PER_THREAD, merge, &j);
    }
    free(wi);
    return st;
}
