/* ArgMin on each backend, bit for bit against the reference: every type x opset x attribute
 * combination over ranks 1..6, ties at work-group boundaries, special values with known answers
 * (NaN wins as in numpy's argmin; -0 == +0; denormals by value; integer extremes), special rows,
 * empty dimensions, long axes that need the split strategy, each strategy forced, small chunks,
 * and the ONNX documentation's examples. Its error rules: test_argmin_errors.c. */
#include "common.h"
#include "known_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    int rank;
    int64_t dims[6];
} shape;

/* Where the minimum lies in a row whose background is value_above_bottom(): the type's bottom
 * (-inf, the integer minimum) or, for floats half of the time, a NaN (which wins too). */
static uint64_t min_winner(clmax_type type, test_rng *rng)
{
    if (!ref_type_is_integer(type) && rng_below(rng, 2)) return value_top(type, rng);
    return value_bottom(type);
}

/* ---- Every combination --------------------------------------------------------------------- */

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
    rng_seed(&rng, 7000 + (uint64_t)type);
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
                    cr_assert_eq(clmax_argmax_attrs_init(&a, opset), CLMAX_OK);
                    a.axis = axis;
                    a.keepdims = (int)((cases >> 1) & 1) ^ (int)(axis & 1);
                    a.select_last_index = sli;
                    fill_mode mode = (fill_mode)(cases % FILL_MODES);
                    fill_tensor(type, x, count, mode, &rng);
                    char what[64];
                    snprintf(what, sizeof what, "combos case %u fill %s", cases,
                             fill_mode_str(mode));
                    check_argmin(ctx, what, &d, x, &a);
                    cases++;
                }
        }
        fill_tensor(type, x, count, FILL_FEW, &rng);
        check_argmin(ctx, "combos, NULL attrs", &d, x, NULL);
        free(x);
    }
    clmax_context_destroy(ctx);
}

#define COMBO_TEST(name, type)                                                                     \
    BACKEND_TEST(argmin, combos_##name, .timeout = 900)                                            \
    {                                                                                              \
        run_combos(backend, type);                                                                 \
    }
FOR_ALL_TYPES(COMBO_TEST)

/* ---- Ties at work-group boundaries ---------------------------------------------------------- */

static void run_ties(clmax_backend backend, clmax_type type)
{
    static const int64_t lens[] = {2, 3, 64, 65, 256, 257, 1024, 1025, 4097};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 7100 + (uint64_t)type);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int64_t L = lens[li];
        int64_t pairs[][2] = {{0, L - 1},   {63, 64},           {255, 256},    {1023, 1024},
                              {2047, 2048}, {L / 2 - 1, L / 2}, {L - 2, L - 1}};
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            int64_t k1 = pairs[p][0], k2 = pairs[p][1];
            if (k1 < 0 || k2 >= L || k1 >= k2) continue;
            for (int layout = 0; layout < 3; layout++) {
                int64_t dims[3];
                int rank;
                int64_t axis;
                if (layout == 0) { /* contiguous rows */
                    rank = 2, dims[0] = 3, dims[1] = L, axis = 1;
                } else if (layout == 1) { /* strided */
                    rank = 3, dims[0] = 2, dims[1] = L, dims[2] = 3, axis = 1;
                } else { /* strided, outer 1 */
                    rank = 2, dims[0] = L, dims[1] = 5, axis = -2;
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
                    elem_set(type, x, e, value_above_bottom(type, &rng));
                for (uint64_t o = 0; o < v.outer; o++)
                    for (uint64_t i = 0; i < v.inner; i++) {
                        int nan = !ref_type_is_integer(type) && rng_below(&rng, 2);
                        plant(type, x, v, o, i, (uint64_t)k1,
                              nan ? value_top(type, &rng) : value_bottom(type));
                        plant(type, x, v, o, i, (uint64_t)k2,
                              nan ? value_top(type, &rng) : value_bottom(type));
                    }
                char what[96];
                snprintf(what, sizeof what, "tie at %lld/%lld layout %d", (long long)k1,
                         (long long)k2, layout);
                check_argmin(ctx, what, &d, x, &a);
                a.select_last_index = 1;
                check_argmin(ctx, what, &d, x, &a);
                free(x);
            }
        }
    }
    clmax_context_destroy(ctx);
}

#define TIES_TEST(name, type)                                                                      \
    BACKEND_TEST(argmin, ties_##name, .timeout = 900)                                              \
    {                                                                                              \
        run_ties(backend, type);                                                                   \
    }
FOR_ALL_TYPES(TIES_TEST)

/* ---- Special values with known answers ------------------------------------------------------ */

/* Worked out by hand from the contract: NaN (any sign or payload) wins, else the smallest. */
static const known_row float_rows[] = {
    {4, {S_ONE, S_NAN, S_NINF, S_NNAN}, 1, 3},
    {2, {S_NINF, S_NAN}, 1, 1},
    {3, {S_INF, S_NAN, S_NINF}, 1, 1},
    {3, {S_NINF, S_ONE, S_NINF}, 0, 2},
    {3, {S_INF, S_INF, S_INF}, 0, 2},
    {2, {S_ZERO, S_NZERO}, 0, 1},
    {2, {S_NZERO, S_ZERO}, 0, 1},
    {3, {S_NZERO, S_ZERO, S_DEN}, 0, 1},
    {2, {S_NDEN, S_NZERO}, 0, 0},
    {2, {S_ZERO, S_NDEN}, 1, 1},
    {2, {S_MAX, S_INF}, 0, 0},
    {2, {S_NMAX, S_NINF}, 1, 1},
    {4, {S_MINNORM, S_MAXDEN, S_DEN, S_MAXDEN}, 2, 2},
    {3, {S_MAXDEN, S_MINNORM, S_MAXDEN}, 0, 2},
    {3, {S_NDEN, S_NDEN, S_INF}, 0, 1},
    {1, {S_NAN}, 0, 0},
    {3, {S_NMAX, S_NINF, S_NMAX}, 1, 1},
    {4, {S_ONE, S_ZERO, S_DEN, S_NZERO}, 1, 3},
    {5, {S_SNAN, S_NNAN, S_NAN, S_SNAN, S_NNAN}, 0, 4},
    {5, {S_MAX, S_ONE, S_DEN, S_ZERO, S_INF}, 3, 3},
    {4, {S_ZERO, S_ZERO, S_NZERO, S_DEN}, 0, 2},
    {3, {S_NONE, S_NMAX, S_NONE}, 1, 1},
    {6, {S_NINF, S_NINF, S_SNAN, S_NINF, S_NNAN, S_NINF}, 2, 4},
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
    {I8, 4, {0x80, 0x7F, 0x80, 0x00}, 0, 2},
    {I8, 2, {0x7F, 0x7F}, 0, 1},
    {I8, 2, {0x00, 0xFF}, 1, 1},
    {U8, 4, {0x80, 0x7F, 0xFF, 0x00}, 3, 3},
    {U8, 2, {0x7F, 0x80}, 0, 0},
    {I16, 4, {0x7FFF, 0x8001, 0x8000, 0xFFFF}, 2, 2},
    {U16, 4, {0xFFFF, 0x0000, 0x8000, 0x0000}, 1, 3},
    {I32, 3, {0x7FFFFFFF, 0x80000000, 0x7FFFFFFF}, 1, 1},
    {I32, 2, {16777216, 16777217}, 0, 0}, /* equal once rounded to float */
    {I32, 2, {16777217, 16777216}, 1, 1},
    {U32, 2, {0x7FFFFFFF, 0x80000000}, 0, 0},
    {U32, 3, {0, 1, 0}, 0, 2},
    {I64, 3, {0xFFFFFFFFFFFFFFFFull, 0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull}, 1, 1},
    {I64, 2, {0x8000000000000000ull, 0x8000000000000000ull}, 0, 1},
    {I64, 2, {0x8000000000000001ull, 0x8000000000000000ull}, 1, 1}, /* equal as double */
    {I64, 2, {1ull << 53, (1ull << 53) + 1}, 0, 0},
    {I64, 3, {0x7FFFFFFFFFFFFFFFull, 0x7FFFFFFFFFFFFFFEull, 0x7FFFFFFFFFFFFFFFull}, 1, 1},
    {U64, 2, {0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull}, 1, 1},
    {U64, 2, {0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFEull}, 1, 1},
    {U64, 2, {0, 0}, 0, 1},
    {U64, 3, {0x8000000000000001ull, 0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull}, 1, 1},
};

BACKEND_TEST(argmin, known_float_rows, .timeout = 900)
{
    run_known_float_rows(backend, 1, float_rows, sizeof float_rows / sizeof float_rows[0], 73);
}

BACKEND_TEST(argmin, known_integer_rows, .timeout = 900)
{
    run_known_int_rows(backend, 1, int_rows, sizeof int_rows / sizeof int_rows[0], 74);
}

/* ---- Rows made entirely of special values --------------------------------------------------- */

/* The ArgMin counterparts of fill_special_rows: all +inf (all maximum), +inf but one NaN, +inf
 * but one smaller value, zeros of both signs with a negative denormal, one NaN among -inf, and
 * all NaN. */
static void fill_min_rows(clmax_type type, void *x, ref_view v, test_rng *rng)
{
    int is_float = !ref_type_is_integer(type);
    size_t sign_shift = ref_type_size(type) * 8 - 1;
    uint64_t top = is_float ? sym_bits(type, S_INF) : value_one(type); /* +inf, integer max */
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++) {
            int kind = (int)rng_below(rng, 6);
            uint64_t pick = rng_below(rng, v.n);
            for (uint64_t k = 0; k < v.n; k++) {
                uint64_t b;
                switch (kind) {
                case 0: /* all +inf (all maximum): a tie everywhere */
                    b = top;
                    break;
                case 1: /* +inf, one NaN (floats) or one minimum */
                    b = k == pick ? min_winner(type, rng) : top;
                    break;
                case 2: /* +inf, one value below */
                    b = top;
                    if (k == pick) {
                        b = value_above_bottom(type, rng);
                        if (b == top) b = value_bottom(type);
                    }
                    break;
                case 3: /* +-0, one negative denormal (floats); 0 and 1 (integers) */
                    if (is_float)
                        b = k == pick ? (1ull << sign_shift) | 1 : rng_below(rng, 2) << sign_shift;
                    else
                        b = k == pick ? 0 : 1;
                    break;
                case 4: /* -inf (minimum), one NaN or one more minimum */
                    b = k == pick ? min_winner(type, rng) : value_bottom(type);
                    break;
                default: /* all NaN (floats) or pool values */
                    b = is_float ? value_top(type, rng) : value_special(type, rng);
                    break;
                }
                plant(type, x, v, o, i, k, b);
            }
        }
}

BACKEND_TEST(argmin, special_rows, .timeout = 900)
{
    static const shape shapes[] = {{3, {4, 37, 3}}, {2, {64, 300}},    {3, {2, 1025, 2}},
                                   {2, {5, 1}},     {3, {1, 4097, 1}}, {2, {200, 7}}};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 75);
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
                for (int kind = 0; kind < 2; kind++) {
                    if (kind == 0)
                        fill_special_rows(type, x, v, &rng);
                    else
                        fill_min_rows(type, x, v, &rng);
                    a.select_last_index = 0;
                    a.keepdims = 1;
                    check_argmin(ctx, "special rows", &d, x, &a);
                    a.select_last_index = 1;
                    a.keepdims = 0;
                    check_argmin(ctx, "special rows", &d, x, &a);
                }
            }
            free(x);
        }
    }
    clmax_context_destroy(ctx);
}

/* ---- Empty dimensions, rank 16 -------------------------------------------------------------- */

BACKEND_TEST(argmin, empty_dims, .timeout = 600)
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
                    a.select_last_index = (int)(axis & 1);
                    check_argmin(ctx, "empty dims", &d, x, &a); /* OK or EMPTY_AXIS */
                }
        }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(argmin, max_rank, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    int64_t dims[CLMAX_MAX_RANK];
    for (int i = 0; i < CLMAX_MAX_RANK; i++)
        dims[i] = (i % 4 == 1) ? 3 : (i % 5 == 0 ? 2 : 1);
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_INT16, CLMAX_MAX_RANK, dims);
    uint64_t count = output_count(&d);
    void *x = test_malloc(count * 2);
    test_rng rng;
    rng_seed(&rng, 76);
    for (int64_t axis = -CLMAX_MAX_RANK; axis < CLMAX_MAX_RANK; axis++) {
        fill_tensor(d.type, x, count, FILL_SMALL, &rng);
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = axis;
        a.keepdims = (int)(axis & 1);
        check_argmin(ctx, "rank 16", &d, x, &a);
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

static void long_axes(clmax_backend backend, const long_case *cases, size_t ncases)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 77);
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
        for (int pattern = 0; pattern < 8; pattern++) {
            if (pattern == 5)
                fill_tensor(type, x, count, FILL_FEW, &rng);
            else
                for (uint64_t e = 0; e < count; e++)
                    elem_set(type, x, e, value_above_bottom(type, &rng));
            for (uint64_t o = 0; o < v.outer; o++)
                for (uint64_t i = 0; i < v.inner; i++) {
                    uint64_t w = min_winner(type, &rng), n = v.n;
                    switch (pattern) {
                    case 0: /* the minimum at the very end */
                        plant(type, x, v, o, i, n - 1, w);
                        break;
                    case 1: /* tie at both ends */
                        plant(type, x, v, o, i, 0, w);
                        plant(type, x, v, o, i, n - 1, w);
                        break;
                    case 2: /* ties at powers of two and their neighbours */
                        for (uint64_t p = 256; p < n; p *= 4) {
                            plant(type, x, v, o, i, p - 1, w);
                            plant(type, x, v, o, i, p, w);
                        }
                        break;
                    case 3: /* one minimum somewhere in the middle */
                        plant(type, x, v, o, i, rng_below(&rng, n), w);
                        break;
                    case 4: /* a -inf early, a NaN late: the NaN wins (floats) */
                        plant(type, x, v, o, i, 1 + rng_below(&rng, n / 4), value_bottom(type));
                        plant(type, x, v, o, i, n - 1 - rng_below(&rng, n / 4), w);
                        break;
                    case 6:
                    case 7: { /* at a boundary of some split of the axis in s equal segments */
                        uint64_t segs = 2 + rng_below(&rng, 255);
                        uint64_t len = (n + segs - 1) / segs;
                        uint64_t p = len * (1 + rng_below(&rng, segs - 1));
                        if (p >= n) p = n - 1;
                        plant(type, x, v, o, i, p, w);
                        if (pattern == 7) plant(type, x, v, o, i, p - 1, w); /* a tie across */
                        break;
                    }
                    default:
                        break;
                    }
                }
            char what[64];
            snprintf(what, sizeof what, "long axis, pattern %d", pattern);
            a.select_last_index = 0;
            check_argmin(ctx, what, &d, x, &a);
            a.select_last_index = 1;
            check_argmin(ctx, what, &d, x, &a);
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(argmin, long_axes_float, .timeout = 900)
{
    static const long_case cases[] = {
        {CLMAX_TYPE_FLOAT32, 2, {2, 100003}, 1},
        {CLMAX_TYPE_FLOAT16, 2, {1, 300001}, -1},
        {CLMAX_TYPE_BFLOAT16, 1, {200003}, 0},
        {CLMAX_TYPE_FLOAT64, 3, {1, 100000, 2}, 1},
    };
    long_axes(backend, cases, sizeof cases / sizeof cases[0]);
}

BACKEND_TEST(argmin, long_axes_integer, .timeout = 900)
{
    static const long_case cases[] = {
        {CLMAX_TYPE_INT64, 2, {1, 131073}, 1},   {CLMAX_TYPE_UINT8, 2, {3, 100000}, 1},
        {CLMAX_TYPE_INT32, 2, {100001, 3}, 0},   {CLMAX_TYPE_UINT64, 1, {131072}, 0},
        {CLMAX_TYPE_INT8, 3, {2, 70001, 2}, -2}, {CLMAX_TYPE_UINT16, 1, {65537}, 0},
    };
    long_axes(backend, cases, sizeof cases / sizeof cases[0]);
}

/* ---- Each strategy forced, whatever the shape ---------------------------------------------- */

typedef struct view_shape {
    int64_t outer, n, inner;
} view_shape;

static void run_strategy(clmax_backend backend, clmax_strategy strategy)
{
    static const view_shape shapes[] = {
        {1, 1, 1},    {5, 1, 1},    {1, 7, 1},      {64, 33, 1},  {3, 1000, 1},
        {1000, 3, 1}, {7, 13, 5},   {3, 1, 9},      {1, 4097, 2}, {16, 2049, 1},
        {1, 3, 1000}, {2, 300, 64}, {1, 100001, 1}, {4, 1, 4096}, {43, 129, 3},
    };
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.strategy = strategy;
    clmax_context *ctx = test_context_open(backend, &opt);
    test_rng rng;
    rng_seed(&rng, 7800 + (uint64_t)strategy);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t dims[3] = {shapes[s].outer, shapes[s].n, shapes[s].inner};
        uint64_t count = (uint64_t)(dims[0] * dims[1] * dims[2]);
        for (int t = 0; t < TEST_NUM_TYPES; t++) {
            clmax_type type = test_all_types[t];
            if (count > 20000 && type != CLMAX_TYPE_FLOAT32 && type != CLMAX_TYPE_BFLOAT16 &&
                type != CLMAX_TYPE_INT64 && type != CLMAX_TYPE_UINT8)
                continue;
            clmax_tensor_desc d = test_desc(type, 3, dims);
            void *x = test_malloc(count * ref_type_size(type));
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 13);
            a.axis = 1;
            ref_view v;
            cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
            for (int pattern = 0; pattern < 3; pattern++) {
                if (pattern == 0) {
                    /* the minimum (or a NaN) at the diagonal position and its neighbour */
                    for (uint64_t e = 0; e < count; e++)
                        elem_set(type, x, e, value_above_bottom(type, &rng));
                    for (uint64_t o = 0; o < v.outer; o++)
                        for (uint64_t i = 0; i < v.inner; i++) {
                            uint64_t p = (o * v.inner + i) % v.n, w = min_winner(type, &rng);
                            plant(type, x, v, o, i, p, w);
                            if (p + 1 < v.n && rng_below(&rng, 2))
                                plant(type, x, v, o, i, p + 1, w);
                            if (v.n > 256) plant(type, x, v, o, i, 255 + rng_below(&rng, 2), w);
                        }
                } else if (pattern == 1) {
                    fill_tensor(type, x, count, t % 2 ? FILL_FEW : FILL_SPECIAL, &rng);
                } else {
                    fill_min_rows(type, x, v, &rng);
                }
                char what[64];
                snprintf(what, sizeof what, "forced strategy, pattern %d", pattern);
                a.select_last_index = 0;
                check_argmin(ctx, what, &d, x, &a);
                a.select_last_index = 1;
                check_argmin(ctx, what, &d, x, &a);
            }
            free(x);
        }
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(argmin, strategy_rows, .timeout = 900)
{
    run_strategy(backend, CLMAX_STRATEGY_ROWS);
}

BACKEND_TEST(argmin, strategy_strided, .timeout = 900)
{
    run_strategy(backend, CLMAX_STRATEGY_STRIDED);
}

BACKEND_TEST(argmin, strategy_split, .timeout = 900)
{
    run_strategy(backend, CLMAX_STRATEGY_SPLIT);
}

BACKEND_TEST(argmin, strategy_auto, .timeout = 900)
{
    run_strategy(backend, CLMAX_STRATEGY_AUTO);
}

/* ---- Small chunks ---------------------------------------------------------------------------- */

typedef struct chunk_case {
    clmax_type type;
    int rank;
    int64_t dims[3];
    int64_t axis;
} chunk_case;

static void run_chunks(clmax_backend backend, uint64_t chunk_bytes, const chunk_case *cases,
                       size_t ncases)
{
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.max_chunk_bytes = chunk_bytes;
    clmax_context *ctx = test_context_open(backend, &opt);
    test_rng rng;
    rng_seed(&rng, 7900 + chunk_bytes);
    for (size_t c = 0; c < ncases; c++) {
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
        uint64_t elems = chunk_bytes / es ? chunk_bytes / es : 1;
        for (int pattern = 0; pattern < 4; pattern++) {
            if (pattern < 2)
                for (uint64_t e = 0; e < count; e++)
                    elem_set(type, x, e, value_above_bottom(type, &rng));
            if (pattern == 0) {
                /* equal minima on both sides of every chunk boundary, in the same row */
                uint64_t w = min_winner(type, &rng);
                for (uint64_t b = elems; b < count; b += elems) {
                    uint64_t back = 1 + rng_below(&rng, v.inner < b ? v.inner : b);
                    uint64_t p = b - back;
                    elem_set(type, x, p, w);
                    if (p + v.inner < count) elem_set(type, x, p + v.inner, w);
                }
            } else if (pattern == 1) {
                elem_set(type, x, count - 1, min_winner(type, &rng)); /* the last element */
            } else if (pattern == 2) {
                fill_tensor(type, x, count, FILL_SMALL, &rng);
            } else {
                fill_min_rows(type, x, v, &rng);
            }
            char what[80];
            snprintf(what, sizeof what, "chunks of %llu bytes, pattern %d",
                     (unsigned long long)chunk_bytes, pattern);
            a.select_last_index = 0;
            check_argmin(ctx, what, &d, x, &a);
            a.select_last_index = 1;
            check_argmin(ctx, what, &d, x, &a);
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(argmin, chunks_1000_bytes, .timeout = 900)
{
    static const chunk_case cases[] = {
        {CLMAX_TYPE_FLOAT32, 2, {1000, 37}, 1},   {CLMAX_TYPE_FLOAT32, 2, {37, 1000}, 0},
        {CLMAX_TYPE_FLOAT32, 3, {4, 3, 2000}, 1}, {CLMAX_TYPE_FLOAT32, 2, {1, 20000}, 1},
        {CLMAX_TYPE_FLOAT64, 3, {2, 3000, 2}, 1}, {CLMAX_TYPE_FLOAT16, 2, {500, 9}, 1},
        {CLMAX_TYPE_BFLOAT16, 2, {9, 500}, 0},    {CLMAX_TYPE_INT8, 2, {3, 4099}, 1},
        {CLMAX_TYPE_UINT64, 2, {600, 7}, -1},     {CLMAX_TYPE_INT32, 3, {5, 700, 3}, 1},
        {CLMAX_TYPE_INT64, 2, {3000, 2}, 0},      {CLMAX_TYPE_UINT16, 3, {2, 2, 3000}, -1},
    };
    run_chunks(backend, 1000, cases, sizeof cases / sizeof cases[0]);
}

/* Chunks of three elements of each type: every tensor in many pieces. */
BACKEND_TEST(argmin, chunks_three_elements, .timeout = 900)
{
    for (int t = 0; t < TEST_NUM_TYPES; t++) {
        clmax_type type = test_all_types[t];
        const chunk_case cases[] = {
            {type, 2, {4, 10}, 1}, {type, 3, {2, 5, 3}, 1}, {type, 1, {10}, 0},
            {type, 2, {7, 2}, -1}, {type, 3, {2, 3, 4}, 0},
        };
        run_chunks(backend, 3 * ref_type_size(type), cases, sizeof cases / sizeof cases[0]);
    }
}

/* ---- Buffers aligned only to their element size -------------------------------------------- */

BACKEND_TEST(argmin, unaligned_buffers, .timeout = 900)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 78);
    static const shape shapes[] = {{2, {3, 1001}}, {3, {2, 700, 3}}, {1, {5}}};
    for (int t = 0; t < TEST_NUM_TYPES; t++) {
        clmax_type type = test_all_types[t];
        size_t es = ref_type_size(type);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            clmax_tensor_desc d = test_desc(type, shapes[s].rank, shapes[s].dims);
            uint64_t count = output_count(&d);
            unsigned char *block = test_malloc((count + 4) * es);
            void *x = block + 3 * es;
            fill_tensor(type, x, count, FILL_FEW, &rng);
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 13);
            a.axis = d.rank - 1;
            check_argmin(ctx, "x aligned to its element size only", &d, x, &a);
            a.axis = 0;
            a.select_last_index = 1;
            check_argmin(ctx, "x aligned to its element size only", &d, x, &a);
            clmax_tensor_desc out;
            cr_assert_eq(clmax_argmax_output_desc(&d, &a, &out), CLMAX_OK);
            uint64_t outs = output_count(&out);
            int64_t *yblock = test_malloc((outs + 2) * sizeof(int64_t));
            int64_t *expect = test_malloc(outs * sizeof(int64_t));
            cr_assert_eq(ref_argmin(&d, x, &a, expect), CLMAX_OK);
            clmax_status st = clmax_argmin(ctx, &d, x, &a, yblock + 1);
            cr_assert_eq(st, CLMAX_OK, "%s", clmax_last_error());
            for (uint64_t e = 0; e < outs; e++)
                cr_assert_eq(yblock[1 + e], expect[e], "%s unaligned y[%llu]", test_type_str(type),
                             (unsigned long long)e);
            free(yblock);
            free(expect);
            free(block);
        }
    }
    clmax_context_destroy(ctx);
}

#define F32 CLMAX_TYPE_FLOAT32

/* The ONNX operator documentation's ArgMin examples, straight through the library. */
BACKEND_TEST(argmin, onnx_examples, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    float data[4] = {2, 1, 3, 10};
    int64_t dims[2] = {2, 2};
    clmax_tensor_desc d = test_desc(F32, 2, dims);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    int64_t y[2];
    cr_assert_eq(clmax_argmin(ctx, &d, data, &a, y), CLMAX_OK); /* axis 0 */
    cr_assert(y[0] == 0 && y[1] == 0, "got %lld %lld", (long long)y[0], (long long)y[1]);
    a.axis = 1;
    cr_assert_eq(clmax_argmin(ctx, &d, data, &a, y), CLMAX_OK);
    cr_assert(y[0] == 1 && y[1] == 0, "got %lld %lld", (long long)y[0], (long long)y[1]);
    float tie[4] = {2, 2, 3, 10};
    a.select_last_index = 1;
    cr_assert_eq(clmax_argmin(ctx, &d, tie, &a, y), CLMAX_OK);
    cr_assert(y[0] == 1 && y[1] == 0, "got %lld %lld", (long long)y[0], (long long)y[1]);
    a.select_last_index = 0;
    cr_assert_eq(clmax_argmin(ctx, &d, tie, &a, y), CLMAX_OK);
    cr_assert(y[0] == 0 && y[1] == 0, "got %lld %lld", (long long)y[0], (long long)y[1]);
    clmax_context_destroy(ctx);
}
