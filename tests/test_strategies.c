/* Each kernel strategy forced through options.strategy, on every kind of shape (whether or not the
 * planner would pick it), must still give the reference's exact answers. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct view_shape {
    int64_t outer, n, inner;
} view_shape;

static const view_shape shapes[] = {
    {1, 1, 1},      {5, 1, 1},    {1, 7, 1},     {64, 33, 1},   {3, 1000, 1}, {1000, 3, 1},
    {7, 13, 5},     {3, 1, 9},    {1, 4097, 2},  {16, 2049, 1}, {1, 3, 1000}, {2, 300, 64},
    {1, 100001, 1}, {2, 5000, 3}, {1, 65536, 1}, {4, 1, 4096},
};

/* Background below one with ties of the maximum at random places and around 256 and 1024. */
static void fill_with_ties(clmax_type type, void *x, ref_view v, test_rng *rng)
{
    uint64_t count = v.outer * v.n * v.inner;
    for (uint64_t e = 0; e < count; e++)
        elem_set(type, x, e, value_below_one(type, rng));
    uint64_t top = value_one(type);
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++) {
            uint64_t k = rng_below(rng, v.n);
            plant(type, x, v, o, i, k, top);
            plant(type, x, v, o, i, v.n - 1 - rng_below(rng, v.n - k), top);
            if (v.n > 256) plant(type, x, v, o, i, 255 + rng_below(rng, 2), top);
            if (v.n > 1024 && rng_below(rng, 2)) {
                plant(type, x, v, o, i, 1023, top);
                plant(type, x, v, o, i, 1024, top);
            }
        }
}

static void run_strategy(clmax_backend backend, clmax_strategy strategy)
{
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.strategy = strategy;
    clmax_context *ctx = test_context_open(backend, &opt);
    test_rng rng;
    rng_seed(&rng, 4000 + (uint64_t)strategy);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t dims[3] = {shapes[s].outer, shapes[s].n, shapes[s].inner};
        uint64_t count = (uint64_t)(dims[0] * dims[1] * dims[2]);
        for (int t = 0; t < TEST_NUM_TYPES; t++) {
            clmax_type type = test_all_types[t];
            /* big tensors: a few types only */
            if (count > 20000 && type != CLMAX_TYPE_FLOAT32 && type != CLMAX_TYPE_FLOAT16 &&
                type != CLMAX_TYPE_INT64 && type != CLMAX_TYPE_UINT8)
                continue;
            clmax_tensor_desc d = test_desc(type, 3, dims);
            void *x = test_malloc(count * ref_type_size(type));
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 13);
            a.axis = 1;
            ref_view v;
            cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
            for (int pattern = 0; pattern < 2; pattern++) {
                if (pattern == 0)
                    fill_with_ties(type, x, v, &rng);
                else
                    fill_tensor(type, x, count, t % 2 ? FILL_FEW : FILL_SPECIAL, &rng);
                char what[64];
                snprintf(what, sizeof what, "forced strategy, pattern %d", pattern);
                a.select_last_index = 0;
                check_argmax(ctx, what, &d, x, &a);
                a.select_last_index = 1;
                check_argmax(ctx, what, &d, x, &a);
                if (ref_hardmax_takes_type(type, 13)) {
                    clmax_hardmax_attrs h = {13, 1};
                    check_hardmax(ctx, what, &d, x, &h);
                    if (type != CLMAX_TYPE_BFLOAT16) {
                        h.opset = 11; /* coerced rows of n * inner */
                        check_hardmax(ctx, what, &d, x, &h);
                    }
                }
            }
            free(x);
        }
    }
    clmax_context_destroy(ctx);
}

/* Row r of the view has its maximum at position r % n: one tensor puts a maximum (or a tie) at
 * every position of the axis, so every work-group, work-item and segment boundary of whatever
 * split the strategy makes is covered. */
static void run_diagonal(clmax_backend backend, clmax_strategy strategy)
{
    static const view_shape diag[] = {{5, 5, 1},       {64, 64, 1}, {65, 65, 1},  {300, 300, 1},
                                      {1030, 1030, 1}, {7, 7, 3},   {43, 129, 3}, {2, 2100, 64}};
    static const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT64,
                                       CLMAX_TYPE_UINT8, CLMAX_TYPE_BFLOAT16};
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.strategy = strategy;
    clmax_context *ctx = test_context_open(backend, &opt);
    test_rng rng;
    rng_seed(&rng, 4100 + (uint64_t)strategy);
    for (size_t s = 0; s < sizeof diag / sizeof diag[0]; s++) {
        int64_t dims[3] = {diag[s].outer, diag[s].n, diag[s].inner};
        uint64_t count = (uint64_t)(dims[0] * dims[1] * dims[2]);
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            clmax_type type = types[t];
            if (count > 100000 && t >= 2) continue;
            clmax_tensor_desc d = test_desc(type, 3, dims);
            void *x = test_malloc(count * ref_type_size(type));
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 13);
            a.axis = 1;
            ref_view v;
            cr_assert_eq(ref_argmax_check(&d, &a, NULL, &v), CLMAX_OK);
            for (int pattern = 0; pattern < 3; pattern++) {
                for (uint64_t e = 0; e < count; e++)
                    elem_set(type, x, e, value_below_one(type, &rng));
                for (uint64_t o = 0; o < v.outer; o++)
                    for (uint64_t i = 0; i < v.inner; i++) {
                        uint64_t p = (o * v.inner + i) % v.n;
                        uint64_t top = pattern == 2 ? value_one(type) : value_top(type, &rng);
                        plant(type, x, v, o, i, p, top);
                        if (pattern == 1 && p + 1 < v.n) plant(type, x, v, o, i, p + 1, top);
                        if (pattern == 2) plant(type, x, v, o, i, v.n - 1 - p, top);
                    }
                char what[64];
                snprintf(what, sizeof what, "diagonal, pattern %d", pattern);
                a.select_last_index = 0;
                check_argmax(ctx, what, &d, x, &a);
                a.select_last_index = 1;
                check_argmax(ctx, what, &d, x, &a);
                if (ref_hardmax_takes_type(type, 13)) {
                    clmax_hardmax_attrs h = {13, 1};
                    check_hardmax(ctx, what, &d, x, &h);
                }
            }
            free(x);
        }
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(strategies, diagonal_rows, .timeout = 900)
{
    run_diagonal(backend, CLMAX_STRATEGY_ROWS);
}

BACKEND_TEST(strategies, diagonal_strided, .timeout = 900)
{
    run_diagonal(backend, CLMAX_STRATEGY_STRIDED);
}

BACKEND_TEST(strategies, diagonal_split, .timeout = 900)
{
    run_diagonal(backend, CLMAX_STRATEGY_SPLIT);
}

BACKEND_TEST(strategies, diagonal_auto, .timeout = 900)
{
    run_diagonal(backend, CLMAX_STRATEGY_AUTO);
}

BACKEND_TEST(strategies, rows, .timeout = 900)
{
    run_strategy(backend, CLMAX_STRATEGY_ROWS);
}

BACKEND_TEST(strategies, strided, .timeout = 900)
{
    run_strategy(backend, CLMAX_STRATEGY_STRIDED);
}

BACKEND_TEST(strategies, split, .timeout = 900)
{
    run_strategy(backend, CLMAX_STRATEGY_SPLIT);
}

BACKEND_TEST(strategies, auto, .timeout = 900)
{
    run_strategy(backend, CLMAX_STRATEGY_AUTO);
}
