/* The host-pointer operators: the contract checked (host/contract.c), the reduction run on the
 * context's backend, then the values gathered or the one-hot written on the host's threads. */
#include "backend.h"
#include "contract.h"
#include "pool.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define CLMAX_HAVE_STREAM 1
#endif

typedef struct gather_job {
    const clmax_problem *p;
    const void *x;
    const int64_t *idx;
    void *values;
} gather_job;

#define GATHER_PER_THREAD 16384 /* outputs: fewer are gathered by the calling thread alone */
#define GATHER_AHEAD 16         /* winners prefetched ahead: each is usually a cache miss */

/* The element of x at the winner of output q. */
static const char *winner_at(const gather_job *g, uint64_t q)
{
    const clmax_problem *p = g->p;
    uint64_t o = q / p->inner, i = q % p->inner;
    return (const char *)g->x + ((o * p->n + (uint64_t)g->idx[q]) * p->inner + i) * p->esize;
}

/* The values of outputs [begin, end), copied bit for bit from the winners (a NaN row gives that
 * NaN). Along a strided axis the winners are scattered over the input, so they are prefetched a
 * few outputs ahead. */
static void gather_values(void *arg, uint64_t begin, uint64_t end)
{
    const gather_job *g = arg;
    size_t es = g->p->esize;
    for (uint64_t q = begin; q < end; q++) {
        if (q + GATHER_AHEAD < end) __builtin_prefetch(winner_at(g, q + GATHER_AHEAD));
        const char *src = winner_at(g, q);
        char *dst = (char *)g->values + q * es;
        switch (es) {
        case 1:
            *dst = *src;
            break;
        case 2:
            memcpy(dst, src, 2);
            break;
        case 4:
            memcpy(dst, src, 4);
            break;
        default:
            memcpy(dst, src, 8);
            break;
        }
    }
}

/* ArgMax / ArgMin, and the values at the winners when values is not NULL. */
static clmax_status arg_reduce(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                               const clmax_argmax_attrs *attrs, int min, int with_values,
                               void *values, int64_t *y)
{
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    int axis = 0;
    clmax_status st = clmax_argmax_prepare(input, attrs, min, &p, &count, &axis);
    if (st != CLMAX_OK) return st;
    if (p.outer == 0 || p.inner == 0) return CLMAX_OK; /* empty output */
    CHECK_ARG(x != NULL && y != NULL, "x or y is NULL for a non-empty tensor");
    CHECK_ARG(!with_values || values != NULL, "values is NULL for a non-empty output");
    uint64_t bytes = count * p.esize + p.outer * p.inner * (8 + (with_values ? p.esize : 0));
    st = clmax_reduce(ctx, &p, x, y, clmax_route_device(ctx, bytes));
    if (st != CLMAX_OK || values == NULL) return st;
    gather_job g = {&p, x, y, values};
    clmax_parallel_for(ctx, p.outer * p.inner, GATHER_PER_THREAD, gather_values, &g);
    return CLMAX_OK;
}

clmax_status clmax_argmax(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                          const clmax_argmax_attrs *attrs, int64_t *y)
{
    clmax_clear_error();
    clmax_call_begin();
    return arg_reduce(ctx, input, x, attrs, 0, 0, NULL, y);
}

clmax_status clmax_argmin(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                          const clmax_argmax_attrs *attrs, int64_t *y)
{
    clmax_clear_error();
    clmax_call_begin();
    return arg_reduce(ctx, input, x, attrs, 1, 0, NULL, y);
}

clmax_status clmax_max_with_indices(clmax_context *ctx, const clmax_tensor_desc *input,
                                    const void *x, const clmax_argmax_attrs *attrs, void *values,
                                    int64_t *indices)
{
    clmax_clear_error();
    clmax_call_begin();
    return arg_reduce(ctx, input, x, attrs, 0, 1, values, indices);
}

clmax_status clmax_min_with_indices(clmax_context *ctx, const clmax_tensor_desc *input,
                                    const void *x, const clmax_argmax_attrs *attrs, void *values,
                                    int64_t *indices)
{
    clmax_clear_error();
    clmax_call_begin();
    return arg_reduce(ctx, input, x, attrs, 1, 1, values, indices);
}

typedef struct fill_job {
    const clmax_problem *p;
    const int64_t *idx;
    void *y;
    uint64_t rows; /* rows of the block */
    int stream;    /* zero the rows with non-temporal stores */
} fill_job;

/* Zeroes [p, p + bytes). With stream set (and SSE2), the 16-byte aligned body goes out with
 * non-temporal stores: a large one-hot output is not read again soon, and plain stores would
 * first read every line they write (a third of the traffic of a read + write). */
static void zero_bytes(char *p, size_t bytes, int stream)
{
#ifdef CLMAX_HAVE_STREAM
    if (stream && bytes >= 256) {
        size_t head = (size_t)(-(uintptr_t)p & 15u);
        memset(p, 0, head);
        size_t body = (bytes - head) & ~(size_t)63;
        __m128i z = _mm_setzero_si128();
        for (size_t b = head; b < head + body; b += 64) {
            _mm_stream_si128((__m128i *)(p + b), z);
            _mm_stream_si128((__m128i *)(p + b + 16), z);
            _mm_stream_si128((__m128i *)(p + b + 32), z);
            _mm_stream_si128((__m128i *)(p + b + 48), z);
        }
        _mm_sfence(); /* ordered before the ones and visible to the thread that joins us */
        memset(p + head + body, 0, bytes - head - body);
        return;
    }
#endif
    (void)stream;
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

/* Writes ones at elements [begin, end) of an output whose axis is one long (loops the compiler
 * turns into vector stores). */
static void hardmax_all_ones(void *arg, uint64_t begin, uint64_t end)
{
    const fill_job *f = arg;
    if (f->p->esize == 8) {
        uint64_t *y = f->y;
        for (uint64_t e = begin; e < end; e++)
            y[e] = 0x3FF0000000000000ull;
    } else if (f->p->esize == 4) {
        uint32_t *y = f->y;
        for (uint64_t e = begin; e < end; e++)
            y[e] = 0x3F800000u;
    } else {
        uint16_t *y = f->y, one = f->p->type == CLMAX_TYPE_BFLOAT16 ? 0x3F80 : 0x3C00;
        for (uint64_t e = begin; e < end; e++)
            y[e] = one;
    }
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
#define STREAM_MIN_BYTES (8u << 20) /* one-hot blocks at least this large are streamed out */
#define STREAM_MIN_ROW 1024u        /* ... when a one lands at most every this many bytes */
#define ONES_PER_THREAD 4096u       /* ones written apart: fewer go to the calling thread alone */

/* Zeroes units [begin, end) of FILL_BYTES_PER_THREAD bytes of a block (the last one shorter). */
static void hardmax_zero_units(void *arg, uint64_t begin, uint64_t end)
{
    const fill_job *f = arg;
    uint64_t bytes = f->rows * f->p->n * f->p->inner * f->p->esize;
    uint64_t b = begin * FILL_BYTES_PER_THREAD, e = end * FILL_BYTES_PER_THREAD;
    zero_bytes((char *)f->y + b, (size_t)((e < bytes ? e : bytes) - b), f->stream);
}

/* The one-hot of a block of rows, written by the context's threads: it is as many bytes as the
 * input, so one thread alone would not reach the memory's write bandwidth. */
static void hardmax_fill(clmax_context *ctx, const clmax_problem *p, uint64_t rows,
                         const int64_t *idx, void *y)
{
    uint64_t row_bytes = p->n * p->inner * p->esize;
    /* Streaming stores when the output is large and the ones are sparse: a one in a short row
     * would read back the line just streamed out. */
    fill_job f = {p, idx, y, rows,
                  rows * row_bytes >= STREAM_MIN_BYTES && row_bytes >= STREAM_MIN_ROW};
    if (rows >= 2 * (uint64_t)ctx->num_threads || row_bytes < 2 * FILL_BYTES_PER_THREAD) {
        uint64_t per = row_bytes >= FILL_BYTES_PER_THREAD ? 1 : FILL_BYTES_PER_THREAD / row_bytes;
        clmax_parallel_for(ctx, rows, per, hardmax_fill_rows, &f);
        return;
    }
    /* Few long rows (Hardmax along axis 0, say): rows would leave threads idle, so all threads
     * zero the block, then write the ones (sparse here: at least 2 MiB a row). */
    uint64_t units = (rows * row_bytes + FILL_BYTES_PER_THREAD - 1) / FILL_BYTES_PER_THREAD;
    clmax_parallel_for(ctx, units, 1, hardmax_zero_units, &f);
    clmax_parallel_for(ctx, rows * p->inner, ONES_PER_THREAD, hardmax_ones, &f);
}

#define HARDMAX_BLOCK_OUTPUTS (1u << 20)

clmax_status clmax_hardmax(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                           const clmax_hardmax_attrs *attrs, void *y)
{
    clmax_clear_error();
    clmax_call_begin();
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    clmax_status st = clmax_hardmax_prepare(input, attrs, &p, &count);
    if (st != CLMAX_OK) return st;
    if (count == 0) return CLMAX_OK;
    CHECK_ARG(x != NULL && y != NULL, "x or y is NULL for a non-empty tensor");

    /* One pass on OpenCL CPU devices where it applies; an OpenCL failure there goes on below, as
     * a failing reduce does (in an auto context: to the CPU path). */
    int done = 0, on_device = clmax_route_device(ctx, 2 * count * p.esize);
    if (p.n == 1 && (!on_device || ctx->iface->reduce == clmax_cpu_reduce)) {
        /* An axis of one: every element is its row's winner, the output all ones. */
        fill_job f = {&p, NULL, y, p.outer, 0};
        clmax_parallel_for(ctx, p.outer * p.inner, ONES_PER_THREAD * 16, hardmax_all_ones, &f);
        clmax_report_cpu(ctx);
        return CLMAX_OK;
    }
    if (on_device && ctx->iface->hardmax != NULL) st = ctx->iface->hardmax(ctx, &p, x, y, &done);
    if (done && st == CLMAX_OK) clmax_call_ran(ctx->backend, ctx->device_name);
    if (done && (st == CLMAX_OK || !clmax_fallback_applies(ctx, st))) return st;
    if (done) clmax_call_fell_back(st);
    st = CLMAX_OK;

    /* Winners are found a block of outer slices at a time, so the index scratch stays small. */
    uint64_t rows = HARDMAX_BLOCK_OUTPUTS / p.inner;
    if (rows == 0) rows = 1;
    if (rows > p.outer) rows = p.outer;
    int64_t *idx = malloc((size_t)(rows * p.inner) * sizeof *idx);
    if (idx == NULL)
        return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "Hardmax index scratch of %llu entries",
                          (unsigned long long)(rows * p.inner));
    uint64_t slice_bytes = p.n * p.inner * p.esize;
    for (uint64_t o = 0; o < p.outer && st == CLMAX_OK; o += rows) {
        clmax_problem b = p;
        b.outer = p.outer - o < rows ? p.outer - o : rows;
        b.reread = 1;
        const char *xb = (const char *)x + o * slice_bytes;
        st = clmax_reduce(ctx, &b, xb, idx, on_device);
        if (st == CLMAX_OK) hardmax_fill(ctx, &b, b.outer, idx, (char *)y + o * slice_bytes);
    }
    free(idx);
    return st;
}
