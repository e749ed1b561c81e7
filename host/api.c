/* Public operator entry points: argument checks, opset rules, shape inference, dispatch. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define CLMAX_HAVE_STREAM 1
#endif

#define CHECK_ARG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, __VA_ARGS__);                 \
    } while (0)

clmax_status clmax_argmax_attrs_init(clmax_argmax_attrs *attrs, int opset)
{
    clmax_clear_error();
    CHECK_ARG(attrs != NULL, "attrs is NULL");
    attrs->opset = 13;
    attrs->axis = 0;
    attrs->keepdims = 1;
    attrs->select_last_index = 0;
    if (opset != 1 && opset != 11 && opset != 12 && opset != 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_OPSET,
                          "ArgMax is defined for opsets 1, 11, 12 and 13, not %d", opset);
    attrs->opset = opset;
    return CLMAX_OK;
}

clmax_status clmax_hardmax_attrs_init(clmax_hardmax_attrs *attrs, int opset)
{
    clmax_clear_error();
    CHECK_ARG(attrs != NULL, "attrs is NULL");
    attrs->opset = 13;
    attrs->axis = -1;
    if (opset != 1 && opset != 11 && opset != 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_OPSET,
                          "Hardmax is defined for opsets 1, 11 and 13, not %d", opset);
    attrs->opset = opset;
    attrs->axis = opset < 13 ? 1 : -1;
    return CLMAX_OK;
}

/* Checks rank, dims and overflow. The product ignores zero dims so that an overflowing shape is an
 * error even when another dim is 0; *count is the true element count. */
static clmax_status check_desc(const clmax_tensor_desc *d, const char *what, uint64_t *count)
{
    if (d->rank < 1 || d->rank > CLMAX_MAX_RANK)
        return clmax_fail(CLMAX_ERROR_INVALID_RANK, "%s has rank %d; clmax takes ranks 1 to %d",
                          what, d->rank, CLMAX_MAX_RANK);
    uint64_t nonzero = 1;
    int empty = 0;
    for (int k = 0; k < d->rank; k++) {
        int64_t v = d->dims[k];
        if (v < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_SHAPE, "%s dims[%d] is negative (%lld)", what, k,
                              (long long)v);
        if (v == 0) {
            empty = 1;
            continue;
        }
        if (nonzero > (uint64_t)INT64_MAX / (uint64_t)v)
            return clmax_fail(CLMAX_ERROR_SIZE_OVERFLOW,
                              "%s: the product of the dimensions overflows 64 bits", what);
        nonzero *= (uint64_t)v;
    }
    size_t es = clmax_type_size(d->type);
    if (es != 0 && nonzero > (uint64_t)(SIZE_MAX / 2) / es)
        return clmax_fail(CLMAX_ERROR_SIZE_OVERFLOW, "%s: the size in bytes overflows", what);
    *count = empty ? 0 : nonzero;
    return CLMAX_OK;
}

clmax_status clmax_tensor_desc_count(const clmax_tensor_desc *desc, uint64_t *count)
{
    clmax_clear_error();
    CHECK_ARG(desc != NULL && count != NULL, "desc or count is NULL");
    return check_desc(desc, "tensor", count);
}

static uint64_t dims_product(const int64_t *dims, int from, int to)
{
    uint64_t p = 1;
    for (int k = from; k < to; k++)
        p *= (uint64_t)dims[k];
    return p;
}

static clmax_status check_axis(int64_t axis, int rank, int *out)
{
    if (axis < -(int64_t)rank || axis >= rank)
        return clmax_fail(CLMAX_ERROR_INVALID_AXIS, "axis %lld is outside [%d, %d] for rank %d",
                          (long long)axis, -rank, rank - 1, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return CLMAX_OK;
}

/* Everything ArgMax (and ArgMin, min != 0) checks, and the canonical problem. */
clmax_status clmax_argmax_prepare(const clmax_tensor_desc *in, const clmax_argmax_attrs *attrs,
                                  int min, clmax_problem *p, uint64_t *count, int *axis)
{
    const char *name = min ? "ArgMin" : "ArgMax";
    CHECK_ARG(in != NULL, "input descriptor is NULL");
    clmax_argmax_attrs def;
    if (attrs == NULL) {
        clmax_argmax_attrs_init(&def, 13);
        attrs = &def;
    }
    int op = attrs->opset;
    if (op != 1 && op != 11 && op != 12 && op != 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_OPSET,
                          "%s is defined for opsets 1, 11, 12 and 13, not %d", name, op);
    size_t es = clmax_type_size(in->type);
    if (es == 0)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE, "element type %d is not a clmax_type",
                          (int)in->type);
    if (in->type == CLMAX_TYPE_BFLOAT16 && op < 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE,
                          "%s takes bfloat16 from opset 13; opset is %d", name, op);
    if (attrs->keepdims != 0 && attrs->keepdims != 1)
        return clmax_fail(CLMAX_ERROR_INVALID_ATTRIBUTE, "keepdims must be 0 or 1, not %d",
                          attrs->keepdims);
    if (attrs->select_last_index != 0 && attrs->select_last_index != 1)
        return clmax_fail(CLMAX_ERROR_INVALID_ATTRIBUTE, "select_last_index must be 0 or 1, not %d",
                          attrs->select_last_index);
    if (attrs->select_last_index && op < 12)
        return clmax_fail(CLMAX_ERROR_INVALID_ATTRIBUTE,
                          "select_last_index is an attribute of %s from opset 12; opset is %d",
                          name, op);
    clmax_status st = check_desc(in, "input", count);
    if (st != CLMAX_OK) return st;
    st = check_axis(attrs->axis, in->rank, axis);
    if (st != CLMAX_OK) return st;
    p->type = in->type;
    p->esize = es;
    p->outer = dims_product(in->dims, 0, *axis);
    p->n = (uint64_t)in->dims[*axis];
    p->inner = dims_product(in->dims, *axis + 1, in->rank);
    p->last = attrs->select_last_index;
    p->min = min;
    if (p->n == 0 && p->outer != 0 && p->inner != 0)
        return clmax_fail(CLMAX_ERROR_EMPTY_AXIS,
                          "%s over axis %d of length 0 would have to produce %llu indices", name,
                          *axis, (unsigned long long)(p->outer * p->inner));
    return CLMAX_OK;
}

static int hardmax_type_ok(clmax_type t)
{
    return t == CLMAX_TYPE_FLOAT16 || t == CLMAX_TYPE_FLOAT32 || t == CLMAX_TYPE_FLOAT64 ||
           t == CLMAX_TYPE_BFLOAT16;
}

clmax_status clmax_hardmax_prepare(const clmax_tensor_desc *in, const clmax_hardmax_attrs *attrs,
                                   clmax_problem *p, uint64_t *count)
{
    CHECK_ARG(in != NULL, "input descriptor is NULL");
    clmax_hardmax_attrs def;
    if (attrs == NULL) {
        clmax_hardmax_attrs_init(&def, 13);
        attrs = &def;
    }
    int op = attrs->opset;
    if (op != 1 && op != 11 && op != 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_OPSET,
                          "Hardmax is defined for opsets 1, 11 and 13, not %d", op);
    if (!hardmax_type_ok(in->type))
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE,
                          "Hardmax takes float16, float32, float64 and bfloat16, not %s",
                          clmax_type_name(in->type));
    if (in->type == CLMAX_TYPE_BFLOAT16 && op < 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE,
                          "Hardmax takes bfloat16 from opset 13; opset is %d", op);
    clmax_status st = check_desc(in, "input", count);
    if (st != CLMAX_OK) return st;
    int axis = 0;
    st = check_axis(attrs->axis, in->rank, &axis);
    if (st != CLMAX_OK) return st;
    p->type = in->type;
    p->esize = clmax_type_size(in->type);
    p->outer = dims_product(in->dims, 0, axis);
    if (op < 13) {
        p->n = dims_product(in->dims, axis, in->rank);
        p->inner = 1;
    } else {
        p->n = (uint64_t)in->dims[axis];
        p->inner = dims_product(in->dims, axis + 1, in->rank);
    }
    p->last = 0;
    p->min = 0;
    return CLMAX_OK;
}

clmax_status clmax_argmax_output_desc(const clmax_tensor_desc *input,
                                      const clmax_argmax_attrs *attrs, clmax_tensor_desc *output)
{
    clmax_clear_error();
    CHECK_ARG(output != NULL, "output descriptor is NULL");
    clmax_problem p;
    uint64_t count;
    int axis = 0;
    clmax_status st = clmax_argmax_prepare(input, attrs, 0, &p, &count, &axis);
    if (st != CLMAX_OK) return st;
    int keep = attrs ? attrs->keepdims : 1;
    clmax_tensor_desc out;
    memset(&out, 0, sizeof out);
    out.type = CLMAX_TYPE_INT64;
    for (int k = 0; k < input->rank; k++) {
        if (k == axis) {
            if (keep) out.dims[out.rank++] = 1;
        } else {
            out.dims[out.rank++] = input->dims[k];
        }
    }
    *output = out;
    return CLMAX_OK;
}

clmax_status clmax_hardmax_output_desc(const clmax_tensor_desc *input,
                                       const clmax_hardmax_attrs *attrs, clmax_tensor_desc *output)
{
    clmax_clear_error();
    CHECK_ARG(output != NULL, "output descriptor is NULL");
    clmax_problem p;
    uint64_t count;
    clmax_status st = clmax_hardmax_prepare(input, attrs, &p, &count);
    if (st != CLMAX_OK) return st;
    clmax_tensor_desc out;
    memset(&out, 0, sizeof out);
    out.type = input->type;
    out.rank = input->rank;
    memcpy(out.dims, input->dims, sizeof(int64_t) * (size_t)input->rank);
    *output = out;
    return CLMAX_OK;
}

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
    st = clmax_reduce(ctx, &p, x, y);
    if (st != CLMAX_OK || values == NULL) return st;
    gather_job g = {&p, x, y, values};
    clmax_parallel_for(ctx, p.outer * p.inner, GATHER_PER_THREAD, gather_values, &g);
    return CLMAX_OK;
}

clmax_status clmax_argmax(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                          const clmax_argmax_attrs *attrs, int64_t *y)
{
    clmax_clear_error();
    return arg_reduce(ctx, input, x, attrs, 0, 0, NULL, y);
}

clmax_status clmax_argmin(clmax_context *ctx, const clmax_tensor_desc *input, const void *x,
                          const clmax_argmax_attrs *attrs, int64_t *y)
{
    clmax_clear_error();
    return arg_reduce(ctx, input, x, attrs, 1, 0, NULL, y);
}

clmax_status clmax_max_with_indices(clmax_context *ctx, const clmax_tensor_desc *input,
                                    const void *x, const clmax_argmax_attrs *attrs, void *values,
                                    int64_t *indices)
{
    clmax_clear_error();
    return arg_reduce(ctx, input, x, attrs, 0, 1, values, indices);
}

clmax_status clmax_min_with_indices(clmax_context *ctx, const clmax_tensor_desc *input,
                                    const void *x, const clmax_argmax_attrs *attrs, void *values,
                                    int64_t *indices)
{
    clmax_clear_error();
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
    for (uint64_t q = begin; q < end; q++) {
        uint64_t o = q / p->inner, i = q % p->inner;
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
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    clmax_status st = clmax_hardmax_prepare(input, attrs, &p, &count);
    if (st != CLMAX_OK) return st;
    if (count == 0) return CLMAX_OK;
    CHECK_ARG(x != NULL && y != NULL, "x or y is NULL for a non-empty tensor");

    /* One pass on OpenCL CPU devices where it applies; an OpenCL failure there goes on below, as
     * a failing reduce does (in an auto context: to the CPU path). */
    int done = 0;
    st = clmax_cl_hardmax_in_place(ctx, &p, x, y, &done);
    if (done && (st == CLMAX_OK || !clmax_fallback_applies(ctx, st))) return st;
    if (done) clmax_clear_error();
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
        const char *xb = (const char *)x + o * slice_bytes;
        st = clmax_reduce(ctx, &b, xb, idx);
        if (st == CLMAX_OK) hardmax_fill(ctx, &b, b.outer, idx, (char *)y + o * slice_bytes);
    }
    free(idx);
    return st;
}
