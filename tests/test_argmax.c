/* ArgMax on each backend, bit for bit against the reference: every type x opset x attribute
 * combination over ranks 1..6, ties at work-group boundaries, special values with known answers,
 * special rows, empty dimensions, long axes that need the split strategy. */
#include "common.h"
#include "known_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Every combination --------------------------------------------------------------------- */

typedef struct shape {
    int rank;
    int64_t dims[6];
} shape;

static const shape combo_shapes[] = {
    {1, {7}},
    {1, {1}},
    {1, {300}},
    {2, {5, 3}},
    {2, {1, 9}},
    {2, {4, 1}},
    {2, {3, 257}},
    {2, {33, 65}},
    {3, {3, 5, 7}},
    {3, {2, 1, 3}},
    {4, {2, 3, 4, 5}},
    {5, {1, 2, 1, 3, 1}},
    {6, {2, 2, 3, 1, 2, 3}},
    {6, {1, 1, 1, 1, 1, 1}},
    {6, {6, 1, 1, 2, 1, 5}},
};

static void run_combos(clmax_backend backend, clmax_type type)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 1000 + (uint64_t)type);
    unsigned cases = 0;
    for (size_t s = 0; s < sizeof combo_shapes / sizeof combo_shapes[0]; s++) {
        const shape *sh = &combo_shapes[s];
        clmax_tensor_desc d = test_desc(type, sh->rank, sh->dims);
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * ref_type_size(type));
        int r = sh->rank;
        for (int oi = 0; oi < 4; oi++) {
            int opset = test_argmax_opsets[oi];
            for (int64_t axis = -r; axis < r; axis++)
                for (int sli = 0; sli <= (opset >= 12); sli++) {
                    clmax_argmax_attrs a;
                    clmax_argmax_attrs_init(&a, opset);
                    a.axis = axis;
                    a.keepdims = (int)((cases >> 1) & 1) ^ (int)(axis & 1);
                    a.select_last_index = sli;
                    fill_mode mode = (fill_mode)(cases % FILL_MODES);
                    fill_tensor(type, x, count, mode, &rng);
                    char what[64];
                    snprintf(what, sizeof what, "combos case %u fill %s", cases,
                             fill_mode_str(mode));
                    check_argmax(ctx, what, &d, x, &a);
                    cases++;
                }
        }
        fill_tensor(type, x, count, FILL_FEW, &rng);
        check_argmax(ctx, "combos, NULL attrs", &d, x, NULL);
        free(x);
    }
    clmax_context_destroy(ctx);
}

#define COMBO_TEST(name, type)                                                                     \
    BACKEND_TEST(argmax, combos_##name, .timeout = 900)                                            \
    {                                                                                              \
        run_combos(backend, type);                                                                 \
    }
FOR_ALL_TYPES(COMBO_TEST)

/* ---- Ties at work-group boundaries ---------------------------------------------------------- */

static void run_ties(clmax_backend backend, clmax_type type)
{
    static const int64_t lens[] = {2, 3, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 2047, 4097};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 2000 + (uint64_t)type);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int64_t L = lens[li];
        int64_t pairs[][2] = {{0, L - 1},   {63, 64},           {127, 128},
                              {255, 256},   {511, 512},         {1023, 1024},
                              {2047, 2048}, {L / 2 - 1, L / 2}, {L - 2, L - 1}};
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            int64_t k1 = pairs[p][0], k2 = pairs[p][1];
            if (k1 < 0 || k2 >= L || k1 >= k2) continue;
            for (int layout = 0; layout < 4; layout++) {
                int64_t dims[3];
                int rank;
                int64_t axis;
                if (layout == 0) { /* contiguous rows */
                    rank = 2, dims[0] = 3, dims[1] = L, axis = 1;
                } else if (layout == 1) { /* strided */
                    rank = 3, dims[0] = 2, dims[1] = L, dims[2] = 3, axis = 1;
                } else if (layout == 2) { /* strided, outer 1 */
                    rank = 2, dims[0] = L, dims[1] = 5, axis = -2;
                } else { /* strided, wide enough for vector lanes and a few single lanes */
                    rank = 3, dims[0] = 2, dims[1] = L, dims[2] = 37, axis = 1;
                }
                clmax_tensor_desc d = test_desc(type, rank, dims);
                ref_view v;
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = axis;
                cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
                uint64_t count = output_count(&d);
                void *x = test_malloc(count * ref_type_size(type));
                for (uint64_t e = 0; e < count; e++)
                    elem_set(type, x, e, value_below_one(type, &rng));
                for (uint64_t o = 0; o < v.outer; o++)
                    for (uint64_t i = 0; i < v.inner; i++) {
                        int nan = (int)rng_below(&rng, 2);
                        plant(type, x, v, o, i, (uint64_t)k1,
                              nan ? value_top(type, &rng) : value_one(type));
                        plant(type, x, v, o, i, (uint64_t)k2,
                              nan ? value_top(type, &rng) : value_one(type));
                    }
                char what[96];
                snprintf(what, sizeof what, "tie at %lld/%lld layout %d", (long long)k1,
                         (long long)k2, layout);
                check_argmax(ctx, what, &d, x, &a);
                a.select_last_index = 1;
                check_argmax(ctx, what, &d, x, &a);
                free(x);
            }
        }
    }
    clmax_context_destroy(ctx);
}

#define TIES_TEST(name, type)                                                                      \
    BACKEND_TEST(argmax, ties_##name, .timeout = 900)                                              \
    {                                                                                              \
        run_ties(backend, type);                                                                   \
    }
FOR_ALL_TYPES(TIES_TEST)

/* ---- Special values with known answers ------------------------------------------------------ */

static const known_row float_rows[] = {
    {4, {S_ONE, S_NAN, S_INF, S_NNAN}, 1, 3},
    {3, {S_NNAN, S_INF, S_SNAN}, 0, 2},
    {3, {S_INF, S_ONE, S_INF}, 0, 2},
    {3, {S_NINF, S_NINF, S_NINF}, 0, 2},
    {2, {S_NZERO, S_ZERO}, 0, 1},
    {3, {S_ZERO, S_NZERO, S_NDEN}, 0, 1},
    {2, {S_NZERO, S_DEN}, 1, 1},
    {2, {S_NDEN, S_NZERO}, 1, 1},
    {2, {S_NMAX, S_NINF}, 0, 0},
    {4, {S_DEN, S_MAXDEN, S_MINNORM, S_MAXDEN}, 2, 2},
    {3, {S_MAXDEN, S_DEN, S_MAXDEN}, 0, 2},
    {3, {S_NDEN, S_NDEN, S_NINF}, 0, 1},
    {1, {S_NAN}, 0, 0},
    {3, {S_MAX, S_INF, S_MAX}, 1, 1},
    {4, {S_NONE, S_NZERO, S_NDEN, S_ZERO}, 1, 3},
    {3, {S_NINF, S_NAN, S_NINF}, 1, 1},
    {5, {S_SNAN, S_NNAN, S_NAN, S_SNAN, S_NNAN}, 0, 4},
    {5, {S_NMAX, S_NONE, S_NDEN, S_NZERO, S_NINF}, 3, 3},
    {4, {S_NZERO, S_NZERO, S_ZERO, S_NDEN}, 0, 2},
};

#define I8 CLMAX_TYPE_INT8
#define U8 CLMAX_TYPE_UINT8
#define I16 CLMAX_TYPE_INT16
#define U16 CLMAX_TYPE_UINT16
#define I32 CLMAX_TYPE_INT32
#define U32 CLMAX_TYPE_UINT32
#define I64 CLMAX_TYPE_INT64
#define U64 CLMAX_TYPE_UINT64

static const known_int_row int_rows[] = {
    /* raw bits of the type's width */
    {I8, 4, {0x80, 0x7F, 0xFF, 0x7F}, 1, 3},
    {I8, 2, {0x80, 0x80}, 0, 1},
    {I8, 2, {0x00, 0xFF}, 0, 0},
    {U8, 4, {0x80, 0x7F, 0xFF, 0x00}, 2, 2},
    {U8, 2, {0x80, 0x7F}, 0, 0},
    {I16, 4, {0x8000, 0xFFFF, 0x7FFE, 0x7FFF}, 3, 3},
    {U16, 4, {0x8000, 0x7FFF, 0xFFFF, 0xFFFF}, 2, 3},
    {I32, 3, {0x80000000, 0x7FFFFFFF, 0x80000000}, 1, 1},
    {I32, 2, {16777217, 16777216}, 0, 0}, /* equal once rounded to float */
    {I32, 2, {16777216, 16777217}, 1, 1},
    {U32, 2, {0x80000000, 0x7FFFFFFF}, 0, 0},
    {U32, 3, {0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFF}, 0, 2},
    {I64, 3, {0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull, 0x8000000000000000ull}, 1, 1},
    {I64, 2, {0x8000000000000000ull, 0x8000000000000000ull}, 0, 1},
    {I64, 3, {0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull}, 0, 2},
    {I64, 2, {0x7FFFFFFFFFFFFFFEull, 0x7FFFFFFFFFFFFFFFull}, 1, 1}, /* equal as double */
    {I64, 2, {(1ull << 53) + 1, 1ull << 53}, 0, 0},
    {I64, 2, {0xFFFFFFFFFFFFFFFEull, 0x8000000000000001ull}, 0, 0},
    {U64, 2, {0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull}, 1, 1},
    {U64, 3, {0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull, 0x8000000000000001ull}, 1, 1},
    {U64, 2, {0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull}, 0, 1},
    {U64, 2, {0, 0x8000000000000000ull}, 1, 1},
    {U64, 2, {0xFFFFFFFFFFFFFFFEull, 0xFFFFFFFFFFFFFFFFull}, 1, 1},
    {U64, 3, {0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull, 0x0000000000000001ull}, 0, 0},
};

BACKEND_TEST(argmax, known_float_rows, .timeout = 900)
{
    run_known_float_rows(backend, 0, float_rows, sizeof float_rows / sizeof float_rows[0], 3);
}

BACKEND_TEST(argmax, known_integer_rows, .timeout = 900)
{
    run_known_int_rows(backend, 0, int_rows, sizeof int_rows / sizeof int_rows[0], 4);
}

/* ---- Rows made entirely of special values --------------------------------------------------- */

BACKEND_TEST(argmax, special_rows, .timeout = 900)
{
    static const shape shapes[] = {{3, {4, 37, 3}}, {2, {64, 300}},    {3, {2, 1025, 2}},
                                   {2, {5, 1}},     {3, {1, 4097, 1}}, {2, {200, 7}}};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 5);
    for (int t = 0; t < TEST_NUM_TYPES; t++) {
        clmax_type type = test_all_types[t];
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            clmax_tensor_desc d = test_desc(type, shapes[s].rank, shapes[s].dims);
            uint64_t count = output_count(&d);
            void *x = test_malloc(count * ref_type_size(type));
            for (int64_t axis = 0; axis < d.rank; axis++) {
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = axis;
                ref_view v;
                cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
                fill_special_rows(type, x, v, &rng);
                check_argmax(ctx, "special rows", &d, x, &a);
                a.select_last_index = 1;
                a.keepdims = 0;
                check_argmax(ctx, "special rows", &d, x, &a);
            }
            free(x);
        }
    }
    clmax_context_destroy(ctx);
}

/* ---- Empty dimensions ----------------------------------------------------------------------- */

BACKEND_TEST(argmax, empty_dims, .timeout = 600)
{
    static const shape shapes[] = {{1, {0}},          {2, {0, 3}},    {2, {3, 0}},
                                   {2, {0, 0}},       {3, {2, 0, 4}}, {3, {1, 1, 0}},
                                   {4, {0, 1, 1, 2}}, {3, {5, 4, 0}}};
    clmax_context *ctx = test_context_open(backend, NULL);
    unsigned char x[64] = {0};
    for (int t = 0; t < TEST_NUM_TYPES; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            clmax_tensor_desc d = test_desc(test_all_types[t], shapes[s].rank, shapes[s].dims);
            for (int64_t axis = -d.rank; axis < d.rank; axis++)
                for (int kd = 0; kd <= 1; kd++) {
                    clmax_argmax_attrs a;
                    clmax_argmax_attrs_init(&a, 13);
                    a.axis = axis;
                    a.keepdims = kd;
                    check_argmax(ctx, "empty dims", &d, x, &a); /* OK or EMPTY_AXIS */
                }
        }
    clmax_context_destroy(ctx);
}

/* ---- Rank 16 -------------------------------------------------------------------------------- */

BACKEND_TEST(argmax, max_rank, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    int64_t dims[CLMAX_MAX_RANK];
    for (int i = 0; i < CLMAX_MAX_RANK; i++)
        dims[i] = (i % 4 == 1) ? 3 : (i % 5 == 0 ? 2 : 1);
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, CLMAX_MAX_RANK, dims);
    uint64_t count = output_count(&d);
    float *x = test_malloc(count * 4);
    test_rng rng;
    rng_seed(&rng, 16);
    for (int64_t axis = -CLMAX_MAX_RANK; axis < CLMAX_MAX_RANK; axis++) {
        fill_tensor(d.type, x, count, FILL_SMALL, &rng);
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = axis;
        a.keepdims = (int)(axis & 1);
        check_argmax(ctx, "rank 16", &d, x, &a);
    }
    free(x);
    clmax_context_destroy(ctx);
}

/* ---- Long axes: few rows, so the axis is split across work-groups ---------------------------- */

typedef struct long_case {
    clmax_type type;
    int rank;
    int64_t dims[3];
    int64_t axis;
} long_case;

static void long_axes(clmax_backend backend, const clmax_context_options *options,
                      const long_case *cases, size_t ncases)
{
    clmax_context *ctx = test_context_open(backend, options);
    test_rng rng;
    rng_seed(&rng, 6);
    for (size_t c = 0; c < ncases; c++) {
        clmax_type type = cases[c].type;
        clmax_tensor_desc d = test_desc(type, cases[c].rank, cases[c].dims);
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = cases[c].axis;
        ref_view v;
        cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * ref_type_size(type));
        for (int pattern = 0; pattern < 11; pattern++) {
            if (pattern == 5)
                fill_tensor(type, x, count, FILL_FEW, &rng);
            else if (pattern == 6)
                fill_tensor(type, x, count, FILL_CONST, &rng);
            else
                for (uint64_t e = 0; e < count; e++)
                    elem_set(type, x, e, value_below_one(type, &rng));
            for (uint64_t o = 0; o < v.outer; o++)
                for (uint64_t i = 0; i < v.inner; i++) {
                    uint64_t top = value_top(type, &rng), n = v.n;
                    switch (pattern) {
                    case 0: /* the maximum at the very end */
                        plant(type, x, v, o, i, n - 1, top);
                        break;
                    case 1: /* tie at both ends */
                        plant(type, x, v, o, i, 0, top);
                        plant(type, x, v, o, i, n - 1, value_top(type, &rng));
                        break;
                    case 2: /* ties at powers of two and their neighbours */
                        for (uint64_t p = 256; p < n; p *= 4) {
                            plant(type, x, v, o, i, p - 1, top);
                            plant(type, x, v, o, i, p, top);
                        }
                        break;
                    case 3: /* one maximum somewhere in the middle */
                        plant(type, x, v, o, i, rng_below(&rng, n), top);
                        break;
                    case 4: /* ties in the last quarter, the first of them at a random place */
                        for (int j = 0; j < 3; j++)
                            plant(type, x, v, o, i, n - 1 - rng_below(&rng, n / 4), top);
                        break;
                    case 7:
                    case 8:
                    case 9:
                    case 10: { /* at a boundary of some split of the axis in s equal segments */
                        uint64_t segs = 2 + rng_below(&rng, 255);
                        uint64_t len = (n + segs - 1) / segs;
                        uint64_t p = len * (1 + rng_below(&rng, segs - 1));
                        if (p >= n) p = n - 1;
                        plant(type, x, v, o, i, p, top);
                        if (pattern >= 9)
                            plant(type, x, v, o, i, p - 1, top); /* a tie across */
                        else if (pattern == 8)
                            plant(type, x, v, o, i, p - 1, value_one(type));
                        break;
                    }
                    default:
                        break;
                    }
                }
            char what[64];
            snprintf(what, sizeof what, "long axis, pattern %d", pattern);
            a.select_last_index = 0;
            check_argmax(ctx, what, &d, x, &a);
            a.select_last_index = 1;
            check_argmax(ctx, what, &d, x, &a);
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(argmax, long_axes_float, .timeout = 900)
{
    static const long_case cases[] = {
        {CLMAX_TYPE_FLOAT32, 2, {2, 100003}, 1}, {CLMAX_TYPE_FLOAT16, 2, {1, 300001}, -1},
        {CLMAX_TYPE_BFLOAT16, 1, {200003}, 0},   {CLMAX_TYPE_FLOAT64, 3, {1, 100000, 2}, 1},
        {CLMAX_TYPE_FLOAT32, 2, {100001, 3}, 0},
    };
    long_axes(backend, NULL, cases, sizeof cases / sizeof cases[0]);
}

BACKEND_TEST(argmax, long_axes_integer, .timeout = 900)
{
    static const long_case cases[] = {
        {CLMAX_TYPE_INT64, 2, {1, 131073}, 1},   {CLMAX_TYPE_UINT8, 2, {3, 100000}, 1},
        {CLMAX_TYPE_INT32, 2, {100001, 3}, 0},   {CLMAX_TYPE_UINT64, 1, {131072}, 0},
        {CLMAX_TYPE_INT8, 3, {2, 70001, 2}, -2}, {CLMAX_TYPE_UINT16, 1, {65537}, 0},
    };
    long_axes(backend, NULL, cases, sizeof cases / sizeof cases[0]);
}

/* Strided segments longer than 65536 on OpenCL: PoCL's strided blocks pack 8- and 16-bit keys of
 * full vectors of lanes (inner >= 16) with a 16-bit index, so the planner must cut such an axis
 * further than the 5 segments forced here. */
Test(argmax, long_axes_forced_split_narrow_opencl, .timeout = 900)
{
    static const long_case cases[] = {
        {CLMAX_TYPE_INT8, 3, {1, 327685, 16}, 1},
        {CLMAX_TYPE_BFLOAT16, 3, {1, 330000, 17}, -2},
    };
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.strategy = CLMAX_STRATEGY_SPLIT;
    long_axes(CLMAX_BACKEND_OPENCL, &opt, cases, sizeof cases / sizeof cases[0]);
}

/* Strided axes on one CPU thread, so one unit holds the whole axis: the CPU path keeps the index
 * of 8- and 16-bit keys in 8 and 16 bits, relative to stretches of 256 and 65536 rows that it
 * merges (pattern 2 ties the max across the rows 65535 and 65536). */
Test(argmax, long_axes_one_thread_narrow_cpu, .timeout = 900)
{
    static const long_case cases[] = {
        {CLMAX_TYPE_BFLOAT16, 3, {1, 140001, 3}, 1},
        {CLMAX_TYPE_UINT16, 3, {2, 65537, 2}, 1},
        {CLMAX_TYPE_INT8, 3, {1, 70001, 5}, -2},
    };
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.num_threads = 1;
    long_axes(CLMAX_BACKEND_CPU, &opt, cases, sizeof cases / sizeof cases[0]);
}

/* ---- Buffers aligned only to their element size -------------------------------------------- */

BACKEND_TEST(argmax, unaligned_buffers, .timeout = 900)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 10);
    static const shape shapes[] = {{2, {3, 1001}}, {3, {2, 700, 3}}, {1, {5}}, {2, {129, 2}}};
    for (int t = 0; t < TEST_NUM_TYPES; t++) {
        clmax_type type = test_all_types[t];
        size_t es = ref_type_size(type);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            clmax_tensor_desc d = test_desc(type, shapes[s].rank, shapes[s].dims);
            uint64_t count = output_count(&d);
            for (size_t shift = 1; shift <= 3; shift += 2) {
                /* x starts shift elements into a malloc'd block: aligned to es, no more */
                unsigned char *block = test_malloc((count + 4) * es);
                void *x = block + shift * es;
                fill_tensor(type, x, count, FILL_FEW, &rng);
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = d.rank - 1;
                check_argmax(ctx, "x aligned to its element size only", &d, x, &a);
                a.axis = 0;
                a.select_last_index = 1;
                check_argmax(ctx, "x aligned to its element size only", &d, x, &a);

                /* y at an odd multiple of 8 bytes too */
                clmax_tensor_desc out;
                cr_assert_eq(clmax_argmax_output_desc(&d, &a, &out), CLMAX_OK);
                uint64_t outs = output_count(&out);
                int64_t *yblock = test_malloc((outs + 2) * sizeof(int64_t));
                int64_t *expect = test_malloc(outs * sizeof(int64_t));
                cr_assert_eq(ref_argmax(&d, x, &a, expect), CLMAX_OK);
                clmax_status st = clmax_argmax(ctx, &d, x, &a, yblock + 1);
                cr_assert_eq(st, CLMAX_OK, "%s", clmax_last_error());
                for (uint64_t e = 0; e < outs; e++)
                    cr_assert_eq(yblock[1 + e], expect[e], "%s unaligned y[%llu]",
                                 test_type_str(type), (unsigned long long)e);
                if (ref_hardmax_takes_type(type, 13)) {
                    unsigned char *hblock = test_malloc((count + 4) * es);
                    unsigned char *hexp = test_malloc(count * es);
                    clmax_hardmax_attrs h = {13, -1};
                    cr_assert_eq(ref_hardmax(&d, x, &h, hexp), CLMAX_OK);
                    st = clmax_hardmax(ctx, &d, x, &h, hblock + es);
                    cr_assert_eq(st, CLMAX_OK, "%s", clmax_last_error());
                    cr_assert(memcmp(hblock + es, hexp, count * es) == 0, "%s unaligned hardmax",
                              test_type_str(type));
                    free(hblock);
                    free(hexp);
                }
                free(yblock);
                free(expect);
                free(block);
            }
        }
    }
    clmax_context_destroy(ctx);
}
