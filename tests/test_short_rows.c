/* Short contiguous rows (n <= 256, 1024 of one byte), where the CPU path has vector code
 * (host/cpu/cpu_short_simd.c) and PoCL a rows-per-work-item kernel: every length that changes the
 * vector layout (a partial last vector, odd and even vector counts, pairs of vectors), every fill,
 * ties planted at every pair of positions of some lengths, special rows, inputs whose last rows
 * cannot take a full vector load, and tensors large enough to be split across threads. ArgMax and
 * ArgMin, both tie rules, and Hardmax, bit for bit against the reference. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

static const int64_t lengths[] = {1,   2,   3,   4,   5,   7,    8,    9,   12,  15,  16,
                                  17,  24,  31,  32,  33,  40,   48,   63,  64,  65,  80,
                                  96,  100, 127, 128, 129, 200,  255,  256, 257, 300, 383,
                                  384, 511, 512, 513, 700, 1023, 1024, 1025};
#define NLENGTHS (sizeof lengths / sizeof lengths[0])

static void check_both(clmax_context *ctx, const char *what, const clmax_tensor_desc *d,
                       const void *x)
{
    check_tie_rules(ctx, what, d, x, -1);
    /* Hardmax: the same winners as ones (on PoCL, rows of at most 32 bytes write their one-hot in
     * the kernel; longer ones take the indices' pass, whose own kernel tests/pipeline runs). */
    check_hardmax(ctx, what, d, x, &(clmax_hardmax_attrs){13, -1});
}

/* [rows, n] of type: every fill, then special rows, each checked on both tie rules and Hardmax;
 * with one_fill, only the fill of special values (NaN of both signs, infinities, +-0, denormals:
 * ties everywhere), for the large counts, whose point is the path they take (threads, streamed
 * stores), not more values: every fill of them took 50 of the suite's 57 s on the CPU path. */
static void check_fills(clmax_context *ctx, clmax_type type, int64_t rows, int64_t n, test_rng *rng,
                        int one_fill)
{
    int64_t dims[2] = {rows, n};
    clmax_tensor_desc d = test_desc(type, 2, dims);
    uint64_t count = output_count(&d);
    void *x = test_malloc(count * ref_type_size(type));
    char what[80];
    for (int mode = one_fill ? FILL_SPECIAL : 0; mode < (one_fill ? FILL_SPECIAL + 1 : FILL_MODES);
         mode++) {
        fill_tensor(type, x, count, (fill_mode)mode, rng);
        snprintf(what, sizeof what, "[%lld, %lld], fill %s", (long long)rows, (long long)n,
                 fill_mode_str((fill_mode)mode));
        check_both(ctx, what, &d, x);
    }
    if (!one_fill) {
        ref_view v = {(uint64_t)rows, (uint64_t)n, 1};
        fill_special_rows(type, x, v, rng);
        snprintf(what, sizeof what, "[%lld, %lld], special rows", (long long)rows, (long long)n);
        check_both(ctx, what, &d, x);
    }
    free(x);
}

static void run_fills(clmax_backend backend, clmax_type type)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 7100 + (uint64_t)type);
    /* Row counts around the vector width, so the last rows meet the end of the input at every
     * offset. */
    for (size_t li = 0; li < NLENGTHS; li++)
        check_fills(ctx, type, 1 + (int64_t)rng_below(&rng, 37), lengths[li], &rng, 0);
    clmax_context_destroy(ctx);
}

/* Two equal winners at positions k1 < k2 and losers everywhere else, one pair a row, so that one
 * call checks every pair (each call costs a launch on OpenCL devices): for ArgMax the winners are
 * 1 or NaN over values below one, for ArgMin the bottom value over values above it. */
static void run_pairs(clmax_backend backend, clmax_type type)
{
    static const int64_t pair_lengths[] = {9, 16, 33, 64, 100, 256};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 7200 + (uint64_t)type);
    for (size_t li = 0; li < sizeof pair_lengths / sizeof pair_lengths[0]; li++) {
        int64_t n = pair_lengths[li];
        /* every pair of the short rows, a sample of the pairs of the longer */
        int64_t rows = 0, (*pairs)[2] = test_malloc((size_t)(n * n) * sizeof *pairs);
        for (int64_t k1 = 0; k1 < n; k1 += 1 + (n > 128) * 6)
            for (int64_t k2 = k1 + 1; k2 < n; k2 += 1 + (n > 40) * 3 + (n > 128) * 12) {
                pairs[rows][0] = k1;
                pairs[rows++][1] = k2;
            }
        int64_t dims[2] = {rows, n};
        clmax_tensor_desc d = test_desc(type, 2, dims);
        ref_view v = {(uint64_t)rows, (uint64_t)n, 1};
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * ref_type_size(type));
        for (int min = 0; min <= 1; min++) {
            for (uint64_t e = 0; e < count; e++)
                elem_set(type, x, e,
                         min ? value_above_bottom(type, &rng) : value_below_one(type, &rng));
            for (uint64_t o = 0; o < v.outer; o++) {
                int nan = (int)rng_below(&rng, 2);
                uint64_t w =
                    min ? value_bottom(type) : (nan ? value_top(type, &rng) : value_one(type));
                plant(type, x, v, o, 0, (uint64_t)pairs[o][0], w);
                plant(type, x, v, o, 0, (uint64_t)pairs[o][1], w);
            }
            char what[64];
            snprintf(what, sizeof what, "short rows of %lld, a pair a row", (long long)n);
            for (int sli = 0; sli <= 1; sli++) {
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = 1;
                a.select_last_index = sli;
                if (min)
                    check_argmin(ctx, what, &d, x, &a);
                else
                    check_argmax(ctx, what, &d, x, &a);
            }
        }
        free(pairs);
        free(x);
    }
    clmax_context_destroy(ctx);
}

/* More than the CPU path's threshold for threads, so rows are split into units. */
static void run_large(clmax_backend backend, clmax_type type)
{
    if (test_small()) cr_skip_test("CLMAX_TEST_SMALL: large tensors");
    static const int64_t large_lengths[] = {16, 5, 127, 256, 400, 1000};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 7300 + (uint64_t)type);
    for (size_t li = 0; li < sizeof large_lengths / sizeof large_lengths[0]; li++) {
        int64_t n = large_lengths[li];
        int64_t dims[2] = {((int64_t)1 << 19) / n + 3, n};
        clmax_tensor_desc d = test_desc(type, 2, dims);
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * ref_type_size(type));
        fill_tensor(type, x, count, li == 0 ? FILL_FEW : FILL_MIXED, &rng);
        check_both(ctx, "short rows, large", &d, x);
        free(x);
    }
    clmax_context_destroy(ctx);
}

/* [counts[c], n] of type for each count, every fill and special rows; the last count (the
 * large one) with the special values' fill only, and left out under CLMAX_TEST_SMALL. */
static void run_counts(clmax_backend backend, clmax_type type, const int64_t *counts,
                       size_t ncounts, int64_t n, uint64_t seed)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, seed + (uint64_t)type);
    for (size_t ci = 0; ci < ncounts - (test_small() ? 1 : 0); ci++)
        check_fills(ctx, type, counts[ci], n, &rng, ci == ncounts - 1);
    clmax_context_destroy(ctx);
}

/* Rows of two, which the CPU path compares a vector of rows at a time (cpu_short_simd.c's duos)
 * and, past 2^20 rows, streams out: row counts either side of the duos' blocks of 8 to 32 rows
 * (the rest by the pairs and the scalar code), every fill (ties, NaN of either sign in either
 * place, +-0, denormals), special rows; then 2^20 + 5 rows unless CLMAX_TEST_SMALL. */
static void run_twos(clmax_backend backend, clmax_type type)
{
    static const int64_t counts[] = {31, 32, 33, 65, 1000, 4099, ((int64_t)1 << 20) + 5};
    run_counts(backend, type, counts, sizeof counts / sizeof counts[0], 2, 7400);
}

/* An axis of one: every index 0, the input not read; past 2^20 rows (8 MiB of indices) the
 * zeros are streamed out, so the last test runs unless CLMAX_TEST_SMALL. */
static void run_ones(clmax_backend backend, clmax_type type)
{
    static const int64_t counts[] = {1, 4099, ((int64_t)1 << 20) + 5};
    run_counts(backend, type, counts, sizeof counts / sizeof counts[0], 1, 7500);
}

TYPE_GROUP_TESTS(short_rows, fills, run_fills, .timeout = 900)
TYPE_GROUP_TESTS(short_rows, pairs, run_pairs, .timeout = 900)
TYPE_GROUP_TESTS(short_rows, large, run_large, .timeout = 900)
TYPE_GROUP_TESTS(short_rows, twos, run_twos, .timeout = 900)
TYPE_GROUP_TESTS(short_rows, ones, run_ones, .timeout = 900)
