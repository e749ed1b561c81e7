/* Hardmax's one-hot output on the host: as many bytes as the input, so it is written by all the
 * context's threads and, when large, with non-temporal stores (a plain store first reads the line
 * it writes: a third more traffic than the read + write the output needs).
 *
 * Slices of up to ONEHOT_BUF bytes are built in a buffer in the cache (zeros, then the ones) and
 * streamed out whole. Rows of many lanes on axes of up to ONEHOT_DENSE_N, where ones are dense,
 * are built a run of lanes at a time by comparing each lane's winner with the row. The rest (ones
 * sparse) are zeroed by streaming, then get their ones. Zeroing by streaming and then writing
 * dense ones would read every line back: Hardmax float16 [B, 2, 2] ran at a sixth of its limit. */
#include "onehot.h"

#include "stream.h"

#include <string.h>

/* The compare loops in AVX2 where the CPU has it: x86-64's baseline has no 64-bit compare, and
 * its scalar loop took three times the old path's time on Hardmax float16 [B, 3, 4096]. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)
#define ONEHOT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ONEHOT_CLONES
#endif

#define ONEHOT_BUF 16384      /* bytes built in the cache before they are streamed out */
#define ONEHOT_LANE_BYTES 256 /* rows of lanes of at least this many bytes: built by compares */
#define ONEHOT_DENSE_N 256    /* ... on axes of at most this length: longer ones have few ones */
_Static_assert(ONEHOT_DENSE_N <= 256, "lane_rows narrows the winners to a byte");

/* M(T, ONE) with T the element type of Hardmax's type and ONE the bits of 1.0 in it. */
#define BY_TYPE(type, M)                                                                           \
    switch (type) {                                                                                \
    case CLMAX_TYPE_FLOAT16:                                                                       \
        M(uint16_t, 0x3C00);                                                                       \
        break;                                                                                     \
    case CLMAX_TYPE_BFLOAT16:                                                                      \
        M(uint16_t, 0x3F80);                                                                       \
        break;                                                                                     \
    case CLMAX_TYPE_FLOAT32:                                                                       \
        M(uint32_t, 0x3F800000u);                                                                  \
        break;                                                                                     \
    default:                                                                                       \
        M(uint64_t, 0x3FF0000000000000ull);                                                        \
        break;                                                                                     \
    }

typedef struct fill_job {
    const clmax_problem *p;
    const int64_t *idx;
    void *y;
    uint64_t rows; /* rows of the block */
    int stream;    /* zero the rows with non-temporal stores */
} fill_job;

/* Zeroes [p, p + bytes), streamed (stream.h) when stream is set and the span is worth it. */
static void zero_bytes(char *p, size_t bytes, int stream)
{
    if (stream && bytes >= 256) {
        clmax_stream_zero(p, bytes);
        clmax_stream_fence(); /* ordered before the ones and visible to the thread that joins us */
    } else
        memset(p, 0, bytes);
}

/* Writes the ones of outputs [begin, end) of a block (its zeros already written). */
static void hardmax_ones(void *arg, uint64_t begin, uint64_t end)
{
    const fill_job *f = arg;
    const clmax_problem *p = f->p;
    uint64_t slice = p->n * p->inner;
    /* Output q is lane i of slice o: both are stepped, not divided out per output (a division
     * each took several times the fill's own time on [8, 3, 65536]). */
    uint64_t o = begin / p->inner, i = begin % p->inner;
    for (uint64_t q = begin; q < end; q++, i++) {
        if (i == p->inner) i = 0, o++;
        char *e = (char *)f->y + (o * slice + (uint64_t)f->idx[q] * p->inner + i) * p->esize;
        switch (p->type) {
        case CLMAX_TYPE_FLOAT16:
            *(uint16_t *)e = 0x3C00;
            break;
        case CLMAX_TYPE_BFLOAT16:
            *(uint16_t *)e = 0x3F80;
            break;
        case CLMAX_TYPE_FLOAT32:
            *(uint32_t *)e = 0x3F800000u;
            break;
        default:
            *(uint64_t *)e = 0x3FF0000000000000ull;
            break;
        }
    }
}

/* Writes ones at elements [begin, end) of an output whose axis is one long: streamed where the
 * output is large (plain stores read every line first: 0.8 of a read + write's time for a write
 * alone, float32 [2^26, 1]). */
static void hardmax_all_ones(void *arg, uint64_t begin, uint64_t end)
{
    const fill_job *f = arg;
    /* The stream's word: ONE repeated across 8 bytes (UINT64_MAX / T's all-ones is 1 at the
     * start of each element). The plain loops the compiler turns into vector stores. */
#define ALL_ONES(T, ONE)                                                                           \
    do {                                                                                           \
        T *y = f->y;                                                                               \
        if (f->stream) {                                                                           \
            const uint64_t word = (uint64_t)(ONE) * (UINT64_MAX / (T) ~(T)0);                      \
            clmax_stream_fill(y + begin, (size_t)(end - begin) * sizeof(T), word);                 \
            clmax_stream_fence(); /* visible to the thread that joins us */                        \
        } else                                                                                     \
            for (uint64_t e = begin; e < end; e++)                                                 \
                y[e] = (ONE);                                                                      \
    } while (0)
    BY_TYPE(f->p->type, ALL_ONES)
#undef ALL_ONES
}

/* The ones of slices [o0, o1) into buf, which holds them from slice o0 on and is zeroed. */
static void ones_of_slices(const clmax_problem *p, const int64_t *idx, char *buf, uint64_t o0,
                           uint64_t o1)
{
    const uint64_t inner = p->inner, slice = p->n * inner;
#define ONES(T, ONE)                                                                               \
    do {                                                                                           \
        T *b = (T *)(void *)buf;                                                                   \
        for (uint64_t o = o0; o < o1; o++, b += slice)                                             \
            for (uint64_t i = 0; i < inner; i++)                                                   \
                b[(uint64_t)idx[o * inner + i] * inner + i] = (ONE);                               \
    } while (0)
    BY_TYPE(p->type, ONES)
#undef ONES
}

/* Slices [begin, end) of at most ONEHOT_BUF bytes each: groups of them built in a buffer and
 * streamed out. */
static void onehot_slices(void *arg, uint64_t begin, uint64_t end)
{
    const fill_job *f = arg;
    const clmax_problem *p = f->p;
    _Alignas(64) char buf[ONEHOT_BUF];
    const uint64_t slice_bytes = p->n * p->inner * p->esize, group = ONEHOT_BUF / slice_bytes;
    for (uint64_t o = begin; o < end; o += group) {
        uint64_t o1 = end - o < group ? end : o + group;
        size_t bytes = (size_t)((o1 - o) * slice_bytes);
        memset(buf, 0, bytes);
        ones_of_slices(p, f->idx, buf, o, o1);
        clmax_stream_copy((char *)f->y + o * slice_bytes, buf, bytes);
    }
    clmax_stream_fence();
}

/* Into buf, len elements of a one-hot row at axis position k: 1 where the lane's winner is k,
 * else 0. The first row reads the winners w as they are and narrows them to a byte into w8 (axes
 * of at most ONEHOT_DENSE_N); the other rows read w8 (w NULL): their compares then read half the
 * bytes a float16 row writes, not four times as many (Hardmax float16 [B, 8, 65536] 0.37 -> 0.66
 * of the limit, [B, 32, 4096] 0.46 -> 0.69). */
ONEHOT_CLONES static void lane_run(const clmax_problem *p, const int64_t *w, uint8_t *w8, uint8_t k,
                                   uint64_t len, char *buf)
{
#define ROW(T, ONE)                                                                                \
    do {                                                                                           \
        T *b = (T *)(void *)buf;                                                                   \
        if (w != NULL)                                                                             \
            for (uint64_t i = 0; i < len; i++) {                                                   \
                w8[i] = (uint8_t)w[i];                                                             \
                b[i] = w[i] == k ? (T)(ONE) : (T)0;                                                \
            }                                                                                      \
        else                                                                                       \
            for (uint64_t i = 0; i < len; i++)                                                     \
                b[i] = w8[i] == k ? (T)(ONE) : (T)0;                                               \
    } while (0)
    BY_TYPE(p->type, ROW)
#undef ROW
}

/* Lanes [0, lanes) of rows [k0, k1) of a slice whose winners are w (row k at y + k * inner
 * elements, k < ONEHOT_DENSE_N), a run of lanes at a time, streamed out (or copied, stream 0). */
static void lane_rows(const clmax_problem *p, const int64_t *w, uint64_t lanes, char *y,
                      uint64_t k0, uint64_t k1, int stream)
{
    _Alignas(64) char buf[ONEHOT_BUF];
    _Alignas(64) uint8_t w8[ONEHOT_BUF]; /* a run's winners: ONEHOT_BUF / esize of them */
    const uint64_t run = ONEHOT_BUF / p->esize;
    for (uint64_t i0 = 0; i0 < lanes; i0 += run) {
        const uint64_t len = lanes - i0 < run ? lanes - i0 : run;
        for (uint64_t k = k0; k < k1; k++) {
            char *at = y + (k * p->inner + i0) * p->esize;
            lane_run(p, k == k0 ? w + i0 : NULL, w8, (uint8_t)k, len, buf);
            if (stream)
                clmax_stream_copy(at, buf, (size_t)(len * p->esize));
            else
                memcpy(at, buf, (size_t)(len * p->esize));
        }
    }
}

/* Rows [begin, end) of the block's slices (row r: slice r / n, position r % n along the axis), of
 * many lanes each: a run of lanes at a time, each element 1 where its lane's winner is the row. */
static void onehot_lane_rows(void *arg, uint64_t begin, uint64_t end)
{
    const fill_job *f = arg;
    const clmax_problem *p = f->p;
    const uint64_t inner = p->inner, slice = p->n * inner * p->esize;
    for (uint64_t r = begin; r < end;) {
        const uint64_t o = r / p->n, k = r % p->n, k1 = end - r < p->n - k ? k + (end - r) : p->n;
        lane_rows(p, f->idx + o * inner, inner, (char *)f->y + o * slice, k, k1, 1);
        r += k1 - k;
    }
    clmax_stream_fence();
}

/* Writes the one-hot rows [begin, end) of a block from their winning indices: each row's zeros,
 * then its ones, while the row is still in the cache. */
static void hardmax_fill_rows(void *arg, uint64_t begin, uint64_t end)
{
    const fill_job *f = arg;
    const clmax_problem *p = f->p;
    uint64_t slice = p->n * p->inner;
    zero_bytes((char *)f->y + begin * slice * p->esize, (size_t)((end - begin) * slice * p->esize),
               f->stream);
    hardmax_ones(arg, begin * p->inner, end * p->inner);
}

#define FILL_BYTES_PER_THREAD (1u << 20)
/* Outputs of CLMAX_STREAM_MIN bytes or more are streamed out where a one lands at most every
 * STREAM_MIN_ROW bytes: a one in a shorter row would read back the line just streamed. */
#define STREAM_MIN_ROW 1024u
#define ONES_PER_THREAD 4096u /* ones written apart: fewer go to the calling thread alone */

void clmax_onehot_put(void *dst, const void *src, size_t bytes, uint64_t call_bytes)
{
    if (call_bytes >= CLMAX_STREAM_MIN)
        clmax_stream_copy(dst, src, bytes);
    else
        memcpy(dst, src, bytes);
}

/* Zeroes units [begin, end) of FILL_BYTES_PER_THREAD bytes of a block (the last one shorter). */
static void hardmax_zero_units(void *arg, uint64_t begin, uint64_t end)
{
    const fill_job *f = arg;
    uint64_t bytes = f->rows * f->p->n * f->p->inner * f->p->esize;
    uint64_t b = begin * FILL_BYTES_PER_THREAD, e = end * FILL_BYTES_PER_THREAD;
    zero_bytes((char *)f->y + b, (size_t)((e < bytes ? e : bytes) - b), f->stream);
}

/* fn over [0, count) on the context's threads, or on the calling thread alone (ctx NULL). */
static void run_range(clmax_context *ctx, uint64_t count, uint64_t per, clmax_range_fn fn,
                      void *arg)
{
    if (ctx == NULL)
        fn(arg, 0, count);
    else
        clmax_parallel_for(ctx, count, per, fn, arg);
}

/* The one-hot of a block of rows, written by the context's threads (ctx NULL: by the calling
 * thread): it is as many bytes as the input, so one thread alone would not reach the memory's
 * write bandwidth. */
static void fill(clmax_context *ctx, const clmax_problem *p, const int64_t *idx, void *y,
                 uint64_t call_bytes)
{
    const uint64_t rows = p->outer;
    const int threads = ctx != NULL ? ctx->num_threads : 1;
    uint64_t row_bytes = p->n * p->inner * p->esize;
    if (call_bytes >= CLMAX_STREAM_MIN) {
        fill_job g = {p, idx, y, rows, 1};
        if (row_bytes <= ONEHOT_BUF) {
            uint64_t per = FILL_BYTES_PER_THREAD / row_bytes;
            run_range(ctx, rows, per, onehot_slices, &g);
            return;
        }
        if (p->inner * p->esize >= ONEHOT_LANE_BYTES && p->n <= ONEHOT_DENSE_N) {
            uint64_t lane_row = p->inner * p->esize;
            uint64_t per = lane_row >= FILL_BYTES_PER_THREAD ? 1 : FILL_BYTES_PER_THREAD / lane_row;
            run_range(ctx, rows * p->n, per, onehot_lane_rows, &g);
            return;
        }
    }
    /* Streaming stores when the output is large and the ones are sparse: a one in a short row
     * would read back the line just streamed out. */
    fill_job f = {p, idx, y, rows,
                  rows * row_bytes >= CLMAX_STREAM_MIN && row_bytes >= STREAM_MIN_ROW};
    if (rows >= 2 * (uint64_t)threads || row_bytes < 2 * FILL_BYTES_PER_THREAD) {
        uint64_t per = row_bytes >= FILL_BYTES_PER_THREAD ? 1 : FILL_BYTES_PER_THREAD / row_bytes;
        run_range(ctx, rows, per, hardmax_fill_rows, &f);
        return;
    }
    /* Few long rows (Hardmax along axis 0, say): rows would leave threads idle, so all threads
     * zero the block, then write the ones (sparse here: at least 2 MiB a row). */
    uint64_t units = (rows * row_bytes + FILL_BYTES_PER_THREAD - 1) / FILL_BYTES_PER_THREAD;
    run_range(ctx, units, 1, hardmax_zero_units, &f);
    run_range(ctx, rows * p->inner, ONES_PER_THREAD, hardmax_ones, &f);
}

void clmax_onehot_fill(clmax_context *ctx, const clmax_problem *p, const int64_t *idx, void *y,
                       uint64_t call_bytes)
{
    fill(ctx, p, idx, y, call_bytes);
}

void clmax_onehot_fill_here(const clmax_problem *p, const int64_t *idx, void *y,
                            uint64_t call_bytes)
{
    fill(NULL, p, idx, y, call_bytes);
}

void clmax_onehot_all_ones(clmax_context *ctx, const clmax_problem *p, void *y)
{
    fill_job f = {p, NULL, y, p->outer, p->outer * p->inner * p->esize >= CLMAX_STREAM_MIN};
    clmax_parallel_for(ctx, p->outer * p->inner, ONES_PER_THREAD * 16, hardmax_all_ones, &f);
}

void clmax_onehot_lane_block(const clmax_problem *p, const int64_t *w, uint64_t lanes, void *y,
                             uint64_t call_bytes)
{
    const int stream = call_bytes >= CLMAX_STREAM_MIN;
    lane_rows(p, w, lanes, y, 0, p->n, stream);
    if (stream) clmax_stream_fence();
}
