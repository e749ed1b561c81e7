/* clmax_max_with_indices and clmax_min_with_indices on each backend: the indices bit for bit as
 * the reference's ArgMax / ArgMin, and the values the exact bits of the elements those indices
 * point at (a NaN row gives that NaN, payload and sign included; -0 and +0 keep their sign;
 * denormals are not flushed), for every type x opset x attribute combination, special rows, long
 * split axes, forced strategies, small chunks, unaligned buffers, and the argument rules. */
#include "common.h"
#include "known_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    int rank;
    int64_t dims[6];
} shape;

/* ---- Every combination, both operators ------------------------------------------------------ */

static const shape combo_shapes[] = {
    {1, {7}},
    {1, {1}},
    {2, {5, 3}},
    {2, {4, 1}},
    {2, {3, 257}},
    {3, {3, 5, 7}},
    {3, {2, 1, 3}},
    {4, {2, 3, 4, 5}},
    {5, {1, 2, 1, 3, 1}},
    {6, {2, 2, 3, 1, 2, 3}},
    {6, {6, 1, 1, 2, 1, 5}},
};

/* CLMAX_TEST_SMALL: each axis and tie rule under one opset, in turn (the opsets' rules are the
 * contract's, on the host: test_argmax and test_api run them all there), a third of the calls;
 * on rusticl, where a launch costs milliseconds, this test was 145 s of CI's run. */
static void run_combos(clmax_backend backend, clmax_type type)
{
    const int small = test_small();
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 8000 + (uint64_t)type);
    unsigned cases = 0;
    for (size_t s = 0; s < sizeof combo_shapes / sizeof combo_shapes[0]; s++) {
        const shape *sh = &combo_shapes[s];
        clmax_tensor_desc d = test_desc(type, sh->rank, sh->dims);
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * ref_type_size(type));
        int r = sh->rank;
        for (int oi = 0; oi < (small ? 1 : 4); oi++) {
            for (int64_t axis = -r; axis < r; axis++)
                for (int sli = 0; sli <= 1; sli++) {
                    int opset = small
                                    ? (sli ? 12 + (int)(cases % 2) : test_argmax_opsets[cases % 4])
                                    : test_argmax_opsets[oi];
                    if (sli > (opset >= 12)) continue;
                    clmax_argmax_attrs a;
                    cr_assert_eq(clmax_argmax_attrs_init(&a, opset), CLMAX_OK);
                    a.axis = axis;
                    a.keepdims = (int)((cases >> 1) & 1) ^ (int)(axis & 1);
                    a.select_last_index = sli;
                    fill_mode mode = (fill_mode)(cases % FILL_MODES);
                    fill_tensor(type, x, count, mode, &rng);
                    char what[64];
                    snprintf(what, sizeof what, "combos case %u fill %s", cases,
                             fill_mode_str(mode));
                    check_with_indices(ctx, what, &d, x, &a, 0);
                    check_with_indices(ctx, what, &d, x, &a, 1);
                    cases++;
                }
        }
        fill_tensor(type, x, count, FILL_SPECIAL, &rng);
        check_with_indices(ctx, "combos, NULL attrs", &d, x, NULL, 0);
        check_with_indices(ctx, "combos, NULL attrs", &d, x, NULL, 1);
        free(x);
    }
    clmax_context_destroy(ctx);
}

#define COMBO_TEST(name, type)                                                                     \
    BACKEND_TEST(values, combos_##name, .timeout = 900)                                            \
    {                                                                                              \
        run_combos(backend, type);                                                                 \
    }
FOR_ALL_TYPES(COMBO_TEST)

/* ---- Known rows: which element, and its exact bits ------------------------------------------ */

/* A row and, worked out by hand, the index max and min pick (first, and last with
 * select_last_index); the values must be the bits at those indices. */
typedef struct values_row {
    int n;
    int v[5];
    int max_first, max_last, min_first, min_last;
} values_row;

static const values_row float_rows[] = {
    {2, {S_NZERO, S_ZERO}, 0, 1, 0, 1}, /* -0 == +0: the first (last) one's sign */
    {2, {S_ZERO, S_NZERO}, 0, 1, 0, 1},
    {3, {S_NZERO, S_NDEN, S_ZERO}, 0, 2, 1, 1},
    {4, {S_ONE, S_NAN_P, S_NINF, S_NNAN_P}, 1, 3, 1, 3}, /* NaN payloads and signs kept */
    {3, {S_SNAN, S_INF, S_NINF}, 0, 0, 0, 0},            /* a signalling NaN is not quietened */
    {3, {S_INF, S_NINF, S_SNAN}, 2, 2, 2, 2},
    {3, {S_DEN, S_MAXDEN, S_NDEN}, 1, 1, 2, 2}, /* denormals not flushed */
    {3, {S_DEN, S_ZERO, S_DEN}, 0, 2, 1, 1},
    {2, {S_NAN, S_NAN_P}, 0, 1, 0, 1},
    {3, {S_NINF, S_INF, S_NINF}, 1, 1, 0, 2},
};

static void known_float(clmax_context *ctx, clmax_type type)
{
    for (size_t r = 0; r < sizeof float_rows / sizeof float_rows[0]; r++) {
        const values_row *k = &float_rows[r];
        unsigned char x[5 * 2 * 8];
        /* [2, n]: the row twice, reduced along axis 1 */
        for (int row = 0; row < 2; row++)
            for (int j = 0; j < k->n; j++)
                elem_set(type, x, (uint64_t)(row * k->n + j), sym_bits(type, (enum sym)k->v[j]));
        int64_t dims[2] = {2, k->n};
        clmax_tensor_desc d = test_desc(type, 2, dims);
        for (int min = 0; min <= 1; min++)
            for (int sli = 0; sli <= 1; sli++) {
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = 1;
                a.select_last_index = sli;
                check_with_indices(ctx, "known row", &d, x, &a, min);
                int want =
                    min ? (sli ? k->min_last : k->min_first) : (sli ? k->max_last : k->max_first);
                uint64_t want_bits = sym_bits(type, (enum sym)k->v[want]);
                unsigned char values[2 * 8];
                int64_t idx[2];
                clmax_status st = min ? clmax_min_with_indices(ctx, &d, x, &a, values, idx)
                                      : clmax_max_with_indices(ctx, &d, x, &a, values, idx);
                cr_assert_eq(st, CLMAX_OK, "%s", clmax_last_error());
                for (int row = 0; row < 2; row++) {
                    cr_assert_eq(idx[row], want, "%s row %zu %s sli %d: index %lld, want %d",
                                 test_type_str(type), r, min ? "min" : "max", sli,
                                 (long long)idx[row], want);
                    uint64_t got = elem_get(type, values, (uint64_t)row);
                    cr_assert_eq(got, want_bits, "%s row %zu %s sli %d: value 0x%llx, want 0x%llx",
                                 test_type_str(type), r, min ? "min" : "max", sli,
                                 (unsigned long long)got, (unsigned long long)want_bits);
                }
            }
    }
}

BACKEND_TEST(values, known_float_rows, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
        known_float(ctx, test_float_types[t]);
    clmax_context_destroy(ctx);
}

BACKEND_TEST(values, integer_extremes, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 81);
    for (int t = 0; t < TEST_NUM_TYPES; t++) {
        clmax_type type = test_all_types[t];
        if (!ref_type_is_integer(type)) continue;
        uint64_t lo = value_bottom(type), hi = value_one(type); /* the minimum and maximum */
        uint64_t row[6] = {hi - 1, lo, hi, lo + 1, hi, lo};
        unsigned char x[6 * 8];
        for (int j = 0; j < 6; j++)
            elem_set(type, x, (uint64_t)j, row[j]);
        int64_t dims[1] = {6};
        clmax_tensor_desc d = test_desc(type, 1, dims);
        for (int sli = 0; sli <= 1; sli++) {
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 12);
            a.keepdims = sli;
            a.select_last_index = sli;
            unsigned char v[8];
            int64_t i;
            cr_assert_eq(clmax_max_with_indices(ctx, &d, x, &a, v, &i), CLMAX_OK);
            cr_assert(i == (sli ? 4 : 2) && elem_get(type, v, 0) == hi, "%s max: %lld 0x%llx",
                      test_type_str(type), (long long)i, (unsigned long long)elem_get(type, v, 0));
            cr_assert_eq(clmax_min_with_indices(ctx, &d, x, &a, v, &i), CLMAX_OK);
            cr_assert(i == (sli ? 5 : 1) && elem_get(type, v, 0) == lo, "%s min: %lld 0x%llx",
                      test_type_str(type), (long long)i, (unsigned long long)elem_get(type, v, 0));
            check_with_indices(ctx, "integer extremes", &d, x, &a, 0);
            check_with_indices(ctx, "integer extremes", &d, x, &a, 1);
        }
        /* and in a strided layout with random neighbours */
        int64_t dims2[2] = {6, 5};
        clmax_tensor_desc d2 = test_desc(type, 2, dims2);
        unsigned char x2[30 * 8];
        for (int e = 0; e < 30; e++)
            elem_set(type, x2, (uint64_t)e, e % 5 == 2 ? row[e / 5] : value_special(type, &rng));
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        check_with_indices(ctx, "integer extremes, strided", &d2, x2, &a, 0);
        check_with_indices(ctx, "integer extremes, strided", &d2, x2, &a, 1);
    }
    clmax_context_destroy(ctx);
}

/* ---- Special rows, long axes ---------------------------------------------------------------- */

BACKEND_TEST(values, special_rows, .timeout = 900)
{
    static const shape shapes[] = {{3, {4, 37, 3}}, {2, {64, 300}}, {3, {2, 1025, 2}}, {2, {5, 1}}};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 82);
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
                for (int min = 0; min <= 1; min++) {
                    a.select_last_index = 0;
                    a.keepdims = 1;
                    check_with_indices(ctx, "special rows", &d, x, &a, min);
                    a.select_last_index = 1;
                    a.keepdims = 0;
                    check_with_indices(ctx, "special rows", &d, x, &a, min);
                }
            }
            free(x);
        }
    }
    clmax_context_destroy(ctx);
}

typedef struct long_case {
    clmax_type type;
    int rank;
    int64_t dims[3];
    int64_t axis;
} long_case;

BACKEND_TEST(values, long_axes, .timeout = 900)
{
    static const long_case cases[] = {
        {CLMAX_TYPE_FLOAT32, 2, {2, 100003}, 1},    {CLMAX_TYPE_FLOAT16, 2, {1, 300001}, -1},
        {CLMAX_TYPE_FLOAT64, 3, {1, 100000, 2}, 1}, {CLMAX_TYPE_INT64, 2, {1, 131073}, 1},
        {CLMAX_TYPE_UINT8, 2, {3, 100000}, 1},      {CLMAX_TYPE_BFLOAT16, 2, {100001, 3}, 0},
    };
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 83);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clmax_type type = cases[c].type;
        clmax_tensor_desc d = test_desc(type, cases[c].rank, cases[c].dims);
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = cases[c].axis;
        ref_view v;
        cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * ref_type_size(type));
        for (int pattern = 0; pattern < 4; pattern++) {
            for (uint64_t e = 0; e < count; e++)
                elem_set(type, x, e, value_below_one(type, &rng));
            for (uint64_t o = 0; o < v.outer; o++)
                for (uint64_t i = 0; i < v.inner; i++) {
                    uint64_t n = v.n, p = rng_below(&rng, n);
                    switch (pattern) {
                    case 0: /* distinct NaNs (floats) far apart: which one is in the values */
                        plant(type, x, v, o, i, p, value_top(type, &rng));
                        plant(type, x, v, o, i, n - 1 - p, value_top(type, &rng));
                        break;
                    case 1: /* the extremes at both ends */
                        plant(type, x, v, o, i, 0, value_bottom(type));
                        plant(type, x, v, o, i, n - 1, value_one(type));
                        plant(type, x, v, o, i, n / 2, value_bottom(type));
                        break;
                    case 2: /* +0 and -0 as the minimum and maximum of a row of ones */
                        for (uint64_t k = 0; k < n; k++)
                            plant(type, x, v, o, i, k, value_small(type, (int)(k % 2) + 1, &rng));
                        plant(type, x, v, o, i, p, value_small(type, 0, &rng));
                        plant(type, x, v, o, i, n - 1 - p, value_small(type, 0, &rng));
                        break;
                    default:
                        break;
                    }
                }
            char what[64];
            snprintf(what, sizeof what, "long axis, pattern %d", pattern);
            for (int min = 0; min <= 1; min++) {
                a.select_last_index = 0;
                check_with_indices(ctx, what, &d, x, &a, min);
                a.select_last_index = 1;
                check_with_indices(ctx, what, &d, x, &a, min);
            }
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

/* ---- Forced strategies and small chunks ----------------------------------------------------- */

typedef struct view_shape {
    int64_t outer, n, inner;
} view_shape;

static void run_forced(clmax_backend backend, clmax_strategy strategy, uint64_t chunk_bytes)
{
    static const view_shape shapes[] = {{1, 1, 1},    {5, 1, 1},     {64, 33, 1},  {3, 1000, 1},
                                        {7, 13, 5},   {3, 1, 9},     {1, 4097, 2}, {1, 3, 1000},
                                        {2, 300, 64}, {1, 70001, 1}, {43, 129, 3}};
    static const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_BFLOAT16,
                                       CLMAX_TYPE_FLOAT64, CLMAX_TYPE_INT8,    CLMAX_TYPE_UINT16,
                                       CLMAX_TYPE_INT64,   CLMAX_TYPE_UINT64};
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.strategy = strategy;
    opt.max_chunk_bytes = chunk_bytes;
    clmax_context *ctx = test_context_open(backend, &opt);
    test_rng rng;
    rng_seed(&rng, 8400 + (uint64_t)strategy + chunk_bytes);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t dims[3] = {shapes[s].outer, shapes[s].n, shapes[s].inner};
        uint64_t count = (uint64_t)(dims[0] * dims[1] * dims[2]);
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            clmax_type type = types[t];
            if (count > 20000 && t % 3 != 0) continue;
            /* Chunks of a few elements: each is a launch (6.7 ms on rusticl), so only the small
             * shapes; {7, 13, 5} still cuts rows, the axis and the lanes (the 1000-byte chunks
             * take the larger ones). */
            if (chunk_bytes != 0 && chunk_bytes < 1000 && count > 1000) continue;
            /* CLMAX_TEST_SMALL: small chunks for one type of each size (the chunks are cut by
             * bytes), half the launches; rusticl's chunks_24_bytes was 109 s. */
            if (chunk_bytes != 0 && test_small() && t % 2 != 0) continue;
            clmax_tensor_desc d = test_desc(type, 3, dims);
            void *x = test_malloc(count * ref_type_size(type));
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 13);
            a.axis = 1;
            a.keepdims = (int)(s % 2);
            ref_view v;
            cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
            for (int pattern = 0; pattern < 2; pattern++) {
                if (pattern == 0)
                    fill_special_rows(type, x, v, &rng);
                else
                    fill_tensor(type, x, count, t % 2 ? FILL_FEW : FILL_SMALL, &rng);
                char what[64];
                snprintf(what, sizeof what, "forced, pattern %d", pattern);
                for (int min = 0; min <= 1; min++) {
                    a.select_last_index = 0;
                    check_with_indices(ctx, what, &d, x, &a, min);
                    a.select_last_index = 1;
                    check_with_indices(ctx, what, &d, x, &a, min);
                }
            }
            free(x);
        }
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(values, strategy_rows, .timeout = 900)
{
    run_forced(backend, CLMAX_STRATEGY_ROWS, 0);
}

BACKEND_TEST(values, strategy_strided, .timeout = 900)
{
    run_forced(backend, CLMAX_STRATEGY_STRIDED, 0);
}

BACKEND_TEST(values, strategy_split, .timeout = 900)
{
    run_forced(backend, CLMAX_STRATEGY_SPLIT, 0);
}

BACKEND_TEST(values, chunks_1000_bytes, .timeout = 900)
{
    run_forced(backend, CLMAX_STRATEGY_AUTO, 1000);
}

BACKEND_TEST(values, chunks_24_bytes, .timeout = 900)
{
    run_forced(backend, CLMAX_STRATEGY_AUTO, 24);
}

/* ---- Buffers, empty tensors and the argument rules ------------------------------------------ */

BACKEND_TEST(values, unaligned_buffers, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 85);
    int64_t dims[2] = {37, 301};
    for (int t = 0; t < TEST_NUM_TYPES; t++) {
        clmax_type type = test_all_types[t];
        size_t es = ref_type_size(type);
        clmax_tensor_desc d = test_desc(type, 2, dims);
        uint64_t count = output_count(&d);
        unsigned char *block = test_malloc((count + 4) * es);
        void *x = block + es;
        fill_tensor(type, x, count, FILL_MIXED, &rng);
        for (int64_t axis = 0; axis < 2; axis++) {
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 13);
            a.axis = axis;
            uint64_t outs = (uint64_t)dims[1 - axis];
            unsigned char *vblock = test_malloc((outs + 4) * es);
            int64_t *iblock = test_malloc((outs + 2) * sizeof(int64_t));
            unsigned char *vwant = test_malloc(outs * es);
            int64_t *iwant = test_malloc(outs * sizeof(int64_t));
            for (int min = 0; min <= 1; min++) {
                cr_assert_eq(ref_arg_with_values(&d, x, &a, min, vwant, iwant), CLMAX_OK);
                void *values = vblock + 3 * es;
                clmax_status st = min ? clmax_min_with_indices(ctx, &d, x, &a, values, iblock + 1)
                                      : clmax_max_with_indices(ctx, &d, x, &a, values, iblock + 1);
                cr_assert_eq(st, CLMAX_OK, "%s", clmax_last_error());
                cr_assert(memcmp(iblock + 1, iwant, outs * sizeof(int64_t)) == 0,
                          "%s unaligned indices, min %d", test_type_str(type), min);
                cr_assert(memcmp(values, vwant, outs * es) == 0, "%s unaligned values, min %d",
                          test_type_str(type), min);
            }
            free(vblock);
            free(iblock);
            free(vwant);
            free(iwant);
        }
        free(block);
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(values, empty_dims, .timeout = 600)
{
    static const shape shapes[] = {{1, {0}},       {2, {0, 3}},    {2, {3, 0}},
                                   {3, {2, 0, 4}}, {3, {1, 1, 0}}, {3, {5, 4, 0}}};
    clmax_context *ctx = test_context_open(backend, NULL);
    unsigned char x[64] = {0};
    for (int t = 0; t < TEST_NUM_TYPES; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            clmax_tensor_desc d = test_desc(test_all_types[t], shapes[s].rank, shapes[s].dims);
            for (int64_t axis = -d.rank; axis < d.rank; axis++) {
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = axis;
                a.keepdims = (int)(axis & 1);
                check_with_indices(ctx, "empty dims", &d, x, &a, 0); /* OK or EMPTY_AXIS */
                check_with_indices(ctx, "empty dims", &d, x, &a, 1);
                ref_view v;
                if (ref_argmax_check(&d, &a, NULL, &v) == CLMAX_OK) {
                    /* an empty output needs no buffers at all */
                    cr_assert_eq(clmax_max_with_indices(ctx, &d, NULL, &a, NULL, NULL), CLMAX_OK,
                                 "%s", clmax_last_error());
                    cr_assert_eq(clmax_min_with_indices(ctx, &d, NULL, &a, NULL, NULL), CLMAX_OK,
                                 "%s", clmax_last_error());
                }
            }
        }
    clmax_context_destroy(ctx);
}

typedef clmax_status (*with_fn)(clmax_context *, const clmax_tensor_desc *, const void *,
                                const clmax_argmax_attrs *, void *, int64_t *);

BACKEND_TEST(values, null_pointers, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    int64_t dims[2] = {2, 3};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
    float x[6] = {1, 2, 3, 4, 5, 6};
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    const with_fn fns[2] = {clmax_max_with_indices, clmax_min_with_indices};
    for (int f = 0; f < 2; f++) {
        float values[3] = {-7, -7, -7};
        int64_t idx[3] = {-7, -7, -7};
        cr_assert_eq(fns[f](ctx, &d, x, &a, NULL, idx), CLMAX_ERROR_INVALID_ARGUMENT,
                     "NULL values for a non-empty output");
        cr_assert(strstr(clmax_last_error(), "values") != NULL, "the message: %s",
                  clmax_last_error());
        cr_assert_eq(fns[f](ctx, &d, x, &a, values, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
        cr_assert(clmax_last_error()[0] != 0);
        cr_assert_eq(fns[f](ctx, &d, NULL, &a, values, idx), CLMAX_ERROR_INVALID_ARGUMENT);
        cr_assert(clmax_last_error()[0] != 0);
        cr_assert_eq(fns[f](ctx, NULL, x, &a, values, idx), CLMAX_ERROR_INVALID_ARGUMENT);
        cr_assert(clmax_last_error()[0] != 0);
        cr_assert_eq(fns[f](NULL, &d, x, &a, values, idx), CLMAX_ERROR_INVALID_ARGUMENT);
        cr_assert(clmax_last_error()[0] != 0);
        /* NULL attrs: the opset 13 defaults (axis 0, keepdims) */
        cr_assert_eq(fns[f](ctx, &d, x, NULL, values, idx), CLMAX_OK, "%s", clmax_last_error());
        int64_t want = f ? 0 : 1;
        cr_assert(idx[0] == want && idx[1] == want && idx[2] == want);
        cr_assert(values[0] == x[want * 3] && values[2] == x[want * 3 + 2]);
        check_with_indices(ctx, "NULL attrs", &d, x, NULL, f);
    }
    clmax_context_destroy(ctx);
}

/* Every error of the operator, from both functions; the message names ArgMax or ArgMin where it
 * names the operator. */
BACKEND_TEST(values, error_statuses, .timeout = 600)
{
    typedef struct err_case {
        const char *what;
        clmax_type type;
        int rank;
        int64_t dims[3];
        int opset;
        int64_t axis;
        int keepdims, sli;
        clmax_status want;
        int names_op;
    } err_case;
    static const err_case cases[] = {
        {"rank 0", CLMAX_TYPE_FLOAT32, 0, {0}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_RANK, 0},
        {"negative dim", CLMAX_TYPE_INT8, 2, {2, -1}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_SHAPE, 0},
        {"overflow",
         CLMAX_TYPE_FLOAT32,
         3,
         {1ll << 33, 1ll << 33, 2},
         13,
         0,
         1,
         0,
         CLMAX_ERROR_SIZE_OVERFLOW,
         0},
        {"opset 10", CLMAX_TYPE_FLOAT32, 2, {2, 3}, 10, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET, 1},
        {"bfloat16 opset 12",
         CLMAX_TYPE_BFLOAT16,
         2,
         {2, 3},
         12,
         0,
         1,
         0,
         CLMAX_ERROR_UNSUPPORTED_TYPE,
         1},
        {"type bool", (clmax_type)9, 2, {2, 3}, 13, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE, 0},
        {"keepdims 3",
         CLMAX_TYPE_FLOAT64,
         2,
         {2, 3},
         13,
         0,
         3,
         0,
         CLMAX_ERROR_INVALID_ATTRIBUTE,
         0},
        {"select_last_index opset 11",
         CLMAX_TYPE_UINT32,
         2,
         {2, 3},
         11,
         0,
         1,
         1,
         CLMAX_ERROR_INVALID_ATTRIBUTE,
         1},
        {"axis 2", CLMAX_TYPE_FLOAT32, 2, {2, 3}, 13, 2, 1, 0, CLMAX_ERROR_INVALID_AXIS, 0},
        {"empty axis", CLMAX_TYPE_FLOAT16, 2, {3, 0}, 13, 1, 1, 0, CLMAX_ERROR_EMPTY_AXIS, 1},
    };
    clmax_context *ctx = test_context_open(backend, NULL);
    double x[16] = {0};
    const with_fn fns[2] = {clmax_max_with_indices, clmax_min_with_indices};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const err_case *c = &cases[i];
        clmax_tensor_desc d;
        memset(&d, 0, sizeof d);
        d.type = c->type;
        d.rank = c->rank;
        for (int k = 0; k < c->rank && k < 3; k++)
            d.dims[k] = c->dims[k];
        clmax_argmax_attrs a;
        memset(&a, 0, sizeof a);
        a.opset = c->opset;
        a.axis = c->axis;
        a.keepdims = c->keepdims;
        a.select_last_index = c->sli;
        cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), c->want, "table: %s", c->what);
        for (int f = 0; f < 2; f++) {
            check_with_indices(ctx, c->what, &d, x, &a, f);
            double values[4];
            int64_t idx[4];
            cr_assert_eq(fns[f](ctx, &d, x, &a, values, idx), c->want, "%s", c->what);
            const char *msg = clmax_last_error(), *name = f ? "ArgMin" : "ArgMax";
            if (c->names_op)
                cr_assert(strstr(msg, name) != NULL, "%s: the message does not say %s: %s", c->what,
                          name, msg);
            cr_assert(strstr(msg, f ? "ArgMax" : "ArgMin") == NULL, "%s: %s", c->what, msg);
        }
    }
    clmax_context_destroy(ctx);
}
