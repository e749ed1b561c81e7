/* Chunked processing: options.max_chunk_bytes set small so that tensors are streamed in many
 * pieces, with maxima and ties placed across chunk boundaries, rows longer than a chunk, and an
 * inner dimension that alone exceeds a chunk. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct chunk_case {
    clmax_type type;
    int rank;
    int64_t dims[3];
    int64_t axis;
} chunk_case;

static const chunk_case cases[] = {
    {CLMAX_TYPE_FLOAT32, 2, {1000, 37}, 1},   /* many short rows per chunk */
    {CLMAX_TYPE_FLOAT32, 2, {37, 1000}, 0},   /* strided, inner of 4000 bytes */
    {CLMAX_TYPE_FLOAT32, 3, {4, 3, 2000}, 1}, /* inner alone exceeds a chunk */
    {CLMAX_TYPE_FLOAT32, 2, {3, 5000}, 1},    /* one row is five chunks */
    {CLMAX_TYPE_FLOAT32, 2, {1, 20000}, 1},   /* one row of twenty chunks */
    {CLMAX_TYPE_FLOAT64, 3, {2, 3000, 2}, 1}, /* long strided rows */
    {CLMAX_TYPE_FLOAT16, 2, {500, 9}, 1},
    {CLMAX_TYPE_BFLOAT16, 2, {9, 500}, 0},
    {CLMAX_TYPE_INT8, 2, {3, 4099}, 1},
    {CLMAX_TYPE_UINT64, 2, {600, 7}, -1},
    {CLMAX_TYPE_INT32, 3, {5, 700, 3}, 1},
    {CLMAX_TYPE_INT64, 2, {3000, 2}, 0}, /* output of 2, input of 3000 rows */
    {CLMAX_TYPE_UINT16, 3, {2, 2, 3000}, -1},
    {CLMAX_TYPE_FLOAT16, 3, {3, 5, 1500}, 1}, /* inner of 3000 bytes */
};

/* Places equal maxima on both sides of every multiple of elems (the elements of one chunk): along
 * a row (positions k, k + 1 of the same (outer, inner)) so the tie straddles the boundary. */
static void plant_boundary_ties(clmax_type type, void *x, ref_view v, uint64_t elems, test_rng *rng)
{
    uint64_t count = v.outer * v.n * v.inner;
    uint64_t top = value_top(type, rng);
    for (uint64_t b = elems; b < count; b += elems) {
        uint64_t back = 1 + rng_below(rng, v.inner < b ? v.inner : b);
        uint64_t p = b - back; /* same row as p + inner, on the other side of b */
        elem_set(type, x, p, top);
        if (p + v.inner < count) elem_set(type, x, p + v.inner, top);
    }
}

/* Places ties at every multiple of step along each row (a row split into pieces of step). */
static void plant_row_piece_ties(clmax_type type, void *x, ref_view v, uint64_t step, test_rng *rng)
{
    uint64_t top = value_one(type);
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++)
            for (uint64_t k = step; k < v.n; k += step) {
                plant(type, x, v, o, i, k - 1, top);
                plant(type, x, v, o, i, k, top);
                if (rng_below(rng, 4) == 0) break;
            }
}

static void run_chunks(clmax_backend backend, uint64_t chunk_bytes)
{
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.max_chunk_bytes = chunk_bytes;
    clmax_context *ctx = test_context_open(backend, &opt);
    test_rng rng;
    rng_seed(&rng, chunk_bytes);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clmax_type type = cases[c].type;
        size_t es = ref_type_size(type);
        clmax_tensor_desc d = test_desc(type, cases[c].rank, cases[c].dims);
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = cases[c].axis;
        ref_view v;
        cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * es);
        uint64_t elems = chunk_bytes / es;
        for (int pattern = 0; pattern < 6; pattern++) {
            if (pattern < 4)
                for (uint64_t e = 0; e < count; e++)
                    elem_set(type, x, e, value_below_one(type, &rng));
            switch (pattern) {
            case 0:
                plant_boundary_ties(type, x, v, elems, &rng);
                break;
            case 1:
                plant_boundary_ties(type, x, v, elems / 2, &rng);
                break;
            case 2:
                plant_row_piece_ties(type, x, v, elems / (v.inner < elems ? v.inner : 1), &rng);
                break;
            case 3: /* a single maximum in the last element of the tensor */
                elem_set(type, x, count - 1, value_top(type, &rng));
                break;
            case 4:
                fill_tensor(type, x, count, FILL_FEW, &rng);
                break;
            default:
                fill_special_rows(type, x, v, &rng);
                break;
            }
            char what[80];
            snprintf(what, sizeof what, "chunks of %llu bytes, pattern %d",
                     (unsigned long long)chunk_bytes, pattern);
            a.select_last_index = 0;
            check_argmax(ctx, what, &d, x, &a);
            a.select_last_index = 1;
            check_argmax(ctx, what, &d, x, &a);
            if (ref_hardmax_takes_type(type, 13)) {
                clmax_hardmax_attrs h = {13, a.axis};
                check_hardmax(ctx, what, &d, x, &h);
                if (type != CLMAX_TYPE_BFLOAT16) {
                    h.opset = 1; /* coerced: rows of everything from the axis on */
                    check_hardmax(ctx, what, &d, x, &h);
                }
            }
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(chunks, bytes_4096, .timeout = 900)
{
    run_chunks(backend, 4096);
}

BACKEND_TEST(chunks, bytes_1000, .timeout = 900)
{
    run_chunks(backend, 1000);
}

/* Chunks of three elements: tiny tensors, every one of them in many pieces. */
static void run_tiny(clmax_backend backend, int narrow)
{
    static const chunk_case tiny[] = {
        {0, 2, {4, 10}, 1}, {0, 3, {2, 5, 3}, 1}, {0, 1, {10}, 0},
        {0, 2, {3, 4}, 0},  {0, 2, {7, 2}, -1},   {0, 3, {2, 3, 4}, 0},
    };
    for (int t = 0; t < TEST_NUM_TYPES; t++) {
        clmax_type type = test_all_types[t];
        size_t es = ref_type_size(type);
        /* "narrow": 3 elements hold less than one int64 index */
        if ((3 * es < sizeof(int64_t)) != narrow) continue;
        clmax_context_options opt;
        clmax_context_options_init(&opt);
        opt.max_chunk_bytes = 3 * es;
        clmax_context *ctx = test_context_open(backend, &opt);
        test_rng rng;
        rng_seed(&rng, 5000 + (uint64_t)type);
        for (size_t c = 0; c < sizeof tiny / sizeof tiny[0]; c++) {
            clmax_tensor_desc d = test_desc(type, tiny[c].rank, tiny[c].dims);
            uint64_t count = output_count(&d);
            void *x = test_malloc(count * es);
            for (int pattern = 0; pattern < 3; pattern++) {
                fill_tensor(type, x, count, pattern == 0 ? FILL_FEW : FILL_SMALL, &rng);
                if (pattern == 2) elem_set(type, x, count - 1, value_top(type, &rng));
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = tiny[c].axis;
                char what[64];
                snprintf(what, sizeof what, "chunks of 3 elements, pattern %d", pattern);
                check_argmax(ctx, what, &d, x, &a);
                a.select_last_index = 1;
                check_argmax(ctx, what, &d, x, &a);
                if (ref_hardmax_takes_type(type, 13)) {
                    clmax_hardmax_attrs h = {13, a.axis};
                    check_hardmax(ctx, what, &d, x, &h);
                    h.opset = 11;
                    if (type != CLMAX_TYPE_BFLOAT16) check_hardmax(ctx, what, &d, x, &h);
                }
            }
            free(x);
        }
        clmax_context_destroy(ctx);
    }
}

BACKEND_TEST(chunks, three_elements, .timeout = 900)
{
    run_tiny(backend, 0);
}

/* int8/uint8/16-bit types: a chunk of three elements is smaller than one int64 output. */
BACKEND_TEST(chunks, three_narrow_elements, .timeout = 900)
{
    run_tiny(backend, 1);
}
