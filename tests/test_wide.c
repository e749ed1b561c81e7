/* Strided axes whose rows are longer than a block of PoCL's strided kernel (8 KiB), which CPU
 * devices read in tiles of up to 64 KiB of each row with the running pairs in local memory
 * (reduce_strided_wide, host/plan.c): every type, one tile or several with a short last one and
 * lanes past its last vector, the axis whole or split in segments, rows left past the last step of
 * four; ties at the segment boundaries; both tie rules, ArgMin, the values, Hardmax; and chunked
 * calls whose boxes carry the running pairs from one chunk to the next. Bit for bit against the
 * reference (the CPU backend runs the same shapes, with the segment ties only). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct wide_case {
    int rank;
    int64_t dims[3];
    int64_t axis;
} wide_case;

/* Rows of 9000 to 70001 elements: 9 KiB (uint8) to 560 KiB (8-byte types). */
static const wide_case cases[] = {
    {2, {300, 20011}, 0},    /* 1 to 3 tiles, the axis in 3 or 4 segments */
    {3, {3, 200, 9000}, 1},  /* three slices, 1 or 2 tiles, 3 segments; CPU: lane blocks split */
    {2, {23, 70001}, 0},     /* 2 to 9 tiles, one segment, 2 rows after the steps of four */
    {3, {2, 130, 16400}, 1}, /* just over a 64 KiB tile for uint8, int16 / float16 tiles of 8208 */
};

#define SMALL_CASE 2 /* the smallest, the one case under CLMAX_TEST_SMALL */

/* Ties of the maximum across the boundaries of the segments that splits of the axis in 2 to 5
 * would make, and at the first and the last row, in every lane. */
static void plant_segment_ties(clmax_type type, void *x, ref_view v, test_rng *rng)
{
    uint64_t top = value_one(type);
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++) {
            uint64_t segs = 2 + rng_below(rng, 4), len = (v.n + segs - 1) / segs;
            uint64_t p = len * (1 + rng_below(rng, segs - 1));
            if (p >= v.n) p = v.n - 1;
            plant(type, x, v, o, i, p - 1, top);
            plant(type, x, v, o, i, p, top);
            if (rng_below(rng, 8) == 0) {
                plant(type, x, v, o, i, 0, top);
                plant(type, x, v, o, i, v.n - 1, top);
            }
        }
}

/* A background below one with the ties of plant_segment_ties. */
static void fill_segment_ties(clmax_type type, void *x, uint64_t count, ref_view v, test_rng *rng)
{
    for (uint64_t e = 0; e < count; e++)
        elem_set(type, x, e, value_below_one(type, rng));
    plant_segment_ties(type, x, v, rng);
}

/* Case c for elements of type: its descriptor, view and element count, and a buffer for it. */
static void *case_input(clmax_type type, size_t c, clmax_tensor_desc *d, ref_view *v,
                        uint64_t *count)
{
    *d = test_desc(type, cases[c].rank, cases[c].dims);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = cases[c].axis;
    cr_assert_eq(ref_argmax_check(d, &a, NULL, v), CLMAX_OK);
    *count = output_count(d);
    return test_malloc((size_t)*count * ref_type_size(type));
}

static void check_all(clmax_context *ctx, const char *what, clmax_type type,
                      const clmax_tensor_desc *d, const void *x, int64_t axis, int values)
{
    for (int last = 0; last < 2; last++) {
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = axis;
        a.keepdims = last;
        a.select_last_index = last;
        if (!ref_argmax_takes_type(type, 13)) continue;
        check_argmax(ctx, what, d, x, &a);
        check_argmin(ctx, what, d, x, &a);
        if (values) check_with_indices(ctx, what, d, x, &a, last);
    }
    if (ref_hardmax_takes_type(type, 13)) {
        clmax_hardmax_attrs h = {13, axis};
        check_hardmax(ctx, what, d, x, &h);
    }
}

static void run_type(clmax_backend backend, clmax_type type)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 5300 + (uint64_t)type);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (test_small() && c != SMALL_CASE) continue;
        clmax_tensor_desc d;
        ref_view v;
        uint64_t count;
        void *x = case_input(type, c, &d, &v, &count);
        const fill_mode fills[] = {FILL_FEW, FILL_CONST, FILL_MIXED, FILL_SPECIAL};
        for (int f = 0; f < 5; f++) {
            /* The CPU backend has no tiles (its strided lanes are covered by the argmax,
             * strategies and chunks suites): it checks these shapes with the segment ties only,
             * which keeps the suite short under valgrind (15 minutes with every pattern). */
            if (backend == CLMAX_BACKEND_CPU && f < 4) continue;
            char what[96];
            if (f < 4) {
                fill_tensor(type, x, count, fills[f], &rng);
                snprintf(what, sizeof what, "wide case %zu fill %s", c, fill_mode_str(fills[f]));
            } else {
                fill_segment_ties(type, x, count, v, &rng);
                snprintf(what, sizeof what, "wide case %zu, ties at segment boundaries", c);
            }
            check_all(ctx, what, type, &d, x, cases[c].axis, f >= 2);
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

TYPE_GROUP_TESTS(wide, types, run_type, .timeout = 900)

/* Short axes of many lanes whose winners are 8 MiB or more: the CPU path finds and streams them
 * out a piece of a lane block at a time (cpu_backend.c, PIECE_LANES), lanes past the last whole
 * piece and the last block's; ties, specials and a few values, both tie rules, ArgMin. */
static const wide_case streamed[] = {
    {3, {2, 2, 600001}, 1},
    {3, {3, 3, 400009}, 1},
    {2, {4, 1100003}, 0},
    {2, {5, 1048579}, 0}, /* eight-byte types: winners not streamed whole, but in pieces */
};

static void run_streamed(clmax_backend backend, clmax_type type)
{
    if (test_small())
        cr_skip_test("CLMAX_TEST_SMALL: 20 M elements a type, too long under valgrind");
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 5400 + (uint64_t)type);
    for (size_t c = 0; c < sizeof streamed / sizeof streamed[0]; c++) {
        clmax_tensor_desc d = test_desc(type, streamed[c].rank, streamed[c].dims);
        const uint64_t count = output_count(&d);
        void *x = test_malloc((size_t)count * ref_type_size(type));
        const fill_mode fills[] = {FILL_FEW, FILL_SPECIAL};
        for (int f = 0; f < 2; f++) {
            char what[96];
            fill_tensor(type, x, count, fills[f], &rng);
            snprintf(what, sizeof what, "streamed short axis %zu fill %s", c,
                     fill_mode_str(fills[f]));
            check_all(ctx, what, type, &d, x, streamed[c].axis, 0);
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

TYPE_GROUP_TESTS(wide, streamed, run_streamed, .timeout = 900)

/* Chunks of 1 MiB: each box holds a few whole rows of the first case, so the tiles run once per
 * chunk and the running pairs go from one chunk to the next. */
BACKEND_TEST(wide, chunked, .timeout = 900)
{
    if (test_small()) cr_skip_test("CLMAX_TEST_SMALL: 6 million elements a type");
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.max_chunk_bytes = 1u << 20;
    clmax_context *ctx = test_context_open(backend, &opt);
    test_rng rng;
    rng_seed(&rng, 5399);
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_UINT8, CLMAX_TYPE_FLOAT16,
                                CLMAX_TYPE_INT64};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        clmax_tensor_desc d;
        ref_view v;
        uint64_t count;
        void *x = case_input(types[t], 0, &d, &v, &count);
        fill_segment_ties(types[t], x, count, v, &rng);
        check_all(ctx, "wide, chunks of 1 MiB", types[t], &d, x, cases[0].axis, 1);
        free(x);
    }
    clmax_context_destroy(ctx);
}
