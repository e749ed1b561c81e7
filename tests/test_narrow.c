/* Strided axes with few inner lanes, which both backends run as a wide problem of g rows side by
 * side and a merge of each lane's g candidates on the host (host/narrow.c): every type, inner 2 to
 * 7 and one-byte lanes up to 24, short axes of 8 to 31 one-byte lanes and of 2 to 7 lanes of
 * every type, both tie rules, ArgMin, the values, Hardmax; the slices as one wide problem (g
 * divides the axis) and one call per slice (it does not, with rows left past the last wide row),
 * against the reference, bit for bit. The CPU path widens only axes of 2^18 and more; it reads the
 * shorter ones in rows of its own (cpu_backend.c, few_lanes), tested here as well. */
#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct narrow_case {
    int rank;
    int64_t dims[3];
    int64_t axis;
} narrow_case;

/* n >= 256 * g and wide rows of at least 128 bytes (host/narrow.c) for every element size. */
static const narrow_case cases[] = {
    {2, {40000, 2}, 0},     /* one slice, g dividing the axis */
    {2, {40001, 3}, 0},     /* one slice, rows past the last wide row */
    {3, {3, 32768, 4}, 1},  /* slices as one wide problem */
    {3, {2, 52429, 5}, 1},  /* slices of at least 1 MiB (4- and 8-byte types), a call each */
    {3, {1, 70001, 7}, 1},  /* a call, rows past the last wide row */
    {3, {2, 36864, 6}, 1},  /* slices as one wide problem, inner 6 */
    {3, {2, 16384, 16}, 1}, /* one-byte lanes: rows of lanes under 32 bytes are narrow too */
    {2, {20000, 24}, 0},    /* the same, a divisor of the axis below g */
    {3, {300, 7, 16}, 1},   /* short axes: one-byte slices run whole (host/cpu, slices_*) */
    {3, {50, 21, 24}, 1},   /* the same, 24 lanes */
    {3, {12, 200, 16}, 1},  /* the same, slices of 3200 elements (one a group) */
    {3, {40000, 3, 3}, 1},  /* 2 to 7 lanes, short axes: slices dealt into rows (host/cpu),
                               many groups, on several threads */
    {3, {3001, 2, 2}, 1},   /* the same, the shortest slices, a group left part full */
    {3, {701, 13, 5}, 1},   /* rows of 13 in 5 streams */
    {3, {5, 127, 7}, 1},    /* the longest rows and lanes: groups of 2 slices of 8-byte types */
    {3, {1501, 9, 6}, 1},   /* 5 to 7 lanes go through slots of 8 (cpu_deal.c), 6 here */
    {3, {999, 33, 7}, 1},   /* 7, the last row of the tensor read by its own 7 elements */
    {3, {2, 65535, 3}, 1},  /* the longest axis of the packed words (cpu_packed.c): rows to 65534 */
};

/* Axes long enough to be widened on the CPU path too, which reads the shorter ones as rows of its
 * own (cpu_backend.c, few_lanes); on OpenCL they are widened as the shorter ones are, so they run
 * on the CPU path only. */
static const narrow_case cpu_cases[] = {
    {2, {300001, 2}, 0},    /* one slice */
    {3, {2, 270001, 3}, 1}, /* slices, rows past the last wide row */
};

#define SMALL_COUNT 100000 /* the largest case under CLMAX_TEST_SMALL */

/* The cases cs[0, count) in type, keepdims alternating through *k. */
static void run_cases(clmax_context *ctx, clmax_type type, const narrow_case *cs, size_t count,
                      const char *table, test_rng *rng, int *k)
{
    for (size_t c = 0; c < count; c++) {
        clmax_tensor_desc d = test_desc(type, cs[c].rank, cs[c].dims);
        uint64_t elems = output_count(&d);
        if (test_small() && elems > SMALL_COUNT) continue;
        void *x = test_malloc((size_t)elems * ref_type_size(type));
        const fill_mode fills[] = {FILL_FEW, FILL_CONST, FILL_MIXED, FILL_SPECIAL};
        for (int f = 0; f < 4; f++, (*k)++) {
            fill_tensor(type, x, elems, fills[f], rng);
            char what[96];
            snprintf(what, sizeof what, "narrow%s case %zu fill %s", table, c,
                     fill_mode_str(fills[f]));
            for (int last = 0; last < 2; last++) {
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = cs[c].axis;
                a.keepdims = *k % 2;
                a.select_last_index = last;
                if (!ref_argmax_takes_type(type, 13)) continue;
                check_argmax(ctx, what, &d, x, &a);
                check_argmin(ctx, what, &d, x, &a);
                if (f == 2) {
                    check_with_indices(ctx, what, &d, x, &a, 0);
                    check_with_indices(ctx, what, &d, x, &a, 1);
                }
            }
            if (ref_hardmax_takes_type(type, 13) && f != 1) {
                clmax_hardmax_attrs h = {13, cs[c].axis};
                check_hardmax(ctx, what, &d, x, &h);
            }
        }
        free(x);
    }
}

static void run_type(clmax_backend backend, clmax_type type)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 5100 + (uint64_t)type);
    int k = 0;
    run_cases(ctx, type, cases, sizeof cases / sizeof cases[0], "", &rng, &k);
    if (backend == CLMAX_BACKEND_CPU)
        run_cases(ctx, type, cpu_cases, sizeof cpu_cases / sizeof cpu_cases[0], " cpu", &rng, &k);
    clmax_context_destroy(ctx);
}

TYPE_GROUP_TESTS(narrow, types, run_type, .timeout = 900)

/* Strided outputs of at least 8 MiB and a quarter of the input, which the CPU path streams out
 * (host/cpu/cpu_backend.c, CLMAX_STREAM_MIN): a million winners and more from dealt slices, from
 * the lanes code at output addresses of either 16-byte alignment (41 lanes), and from one-byte
 * slices (17 lanes). */
BACKEND_TEST(narrow, streamed_outputs, .timeout = 900)
{
    if (test_small()) cr_skip_test("CLMAX_TEST_SMALL: a million winners a case");
    static const int64_t dims[][3] = {{350001, 3, 3}, {25601, 2, 41}, {61700, 2, 17}};
    static const clmax_type types[] = {CLMAX_TYPE_UINT8, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_FLOAT32,
                                       CLMAX_TYPE_FLOAT64, CLMAX_TYPE_INT64};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 5200);
    for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            clmax_tensor_desc d = test_desc(types[t], 3, dims[c]);
            uint64_t count = output_count(&d);
            void *x = test_malloc((size_t)count * ref_type_size(types[t]));
            fill_tensor(types[t], x, count, t % 2 ? FILL_FEW : FILL_MIXED, &rng);
            char what[64];
            snprintf(what, sizeof what, "streamed outputs, case %zu", c);
            for (int last = 0; last < 2; last++) {
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = 1;
                a.select_last_index = last;
                check_argmax(ctx, what, &d, x, &a);
                check_argmin(ctx, what, &d, x, &a);
            }
            free(x);
        }
    clmax_context_destroy(ctx);
}
