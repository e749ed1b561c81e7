/* Float rows through the row search's first pass (host/cpu/cpu_block.h and its vector forms in
 * cpu_block_simd.c), which finds a stretch's max or min from the extremes of the raw bits and
 * tells NaN from them, or (cache-resident float32 and float64 in 512-bit vectors) from the float
 * max and a sum that turns NaN, and its vector search: a special value (each NaN sign and payload,
 * +-inf, +-0, denormals, the largest finite values) planted at every position of the first vector
 * steps of a row, at the ends of the row and around its 2048-element blocks and 32 KiB blocks
 * (cache-resident rows), alone or tied with a second one further on, over backgrounds of positive,
 * negative and mixed values. Lengths from one 256-byte chunk of the short-row code to several
 * blocks, none a multiple of the vector width. ArgMax and ArgMin, both tie rules, bit for bit
 * against the reference. CLMAX_TEST_SMALL (valgrind, the sanitizers): two lengths, one under a
 * block and one across two, and the mixed background only. */
#include "known_rows.h"

#include <stdio.h>
#include <stdlib.h>

static const enum sym specials[] = {S_NAN,  S_NNAN,  S_SNAN, S_NAN_P, S_NNAN_P, S_INF, S_NINF,
                                    S_ZERO, S_NZERO, S_DEN,  S_NDEN,  S_MAX,    S_NMAX};
static const int64_t lengths[] = {131, 300, 1100, 2047, 2048, 2049, 4133, 9000, 17000};

static uint64_t sign_bit(clmax_type type)
{
    return type == CLMAX_TYPE_FLOAT32   ? 0x80000000ull
           : type == CLMAX_TYPE_FLOAT64 ? 0x8000000000000000ull
                                        : 0x8000ull;
}

/* Row r's planted position: every position of the first 64 (four 256-bit vectors of float32,
 * two of float16, eight of float64), then the last ones and the neighbours of block
 * boundaries, then random ones. */
static uint64_t position(uint64_t r, uint64_t n, test_rng *rng)
{
    static const uint64_t fixed[] = {2046, 2047, 2048, 2049, 4095, 4096, 8191, 8192, 16383, 16384};
    if (r < 64) return r % n;
    r -= 64;
    if (r < 2) return n - 1 - r;
    r -= 2;
    if (r < sizeof fixed / sizeof fixed[0]) return fixed[r] % n;
    return rng_below(rng, n);
}
#define ROWS 80

/* ROWS rows of n: a background (0 positive, 1 negative, 2 mixed) with special s planted in each
 * row, alone or, further on, with the same value or the other zero (tie 1), or the value of the
 * other sign (tie 2: +inf and -inf in one row turn the float max's NaN sum NaN). */
static void fill_case(clmax_type type, void *x, uint64_t n, int bg, enum sym s, int tie,
                      test_rng *rng)
{
    const uint64_t sign = sign_bit(type);
    for (uint64_t e = 0; e < ROWS * n; e++) {
        uint64_t v = value_below_one(type, rng);
        elem_set(type, x, e, bg == 0 ? v & ~sign : bg == 1 ? v | sign : v);
    }
    const uint64_t bits = sym_bits(type, s);
    for (uint64_t r = 0; r < ROWS; r++) {
        uint64_t p = position(r, n, rng);
        elem_set(type, x, r * n + p, bits);
        if (tie && p + 1 < n) {
            uint64_t q = p + 1 + rng_below(rng, n - p - 1);
            uint64_t other = tie == 2       ? bits ^ sign_bit(type)
                             : s == S_ZERO  ? sym_bits(type, S_NZERO)
                             : s == S_NZERO ? sym_bits(type, S_ZERO)
                                            : bits;
            elem_set(type, x, r * n + q, other);
        }
    }
}

static void run_float_rows(clmax_backend backend, clmax_type type)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 9100 + (uint64_t)type);
    const int small = test_small();
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        if (small && lengths[li] != 300 && lengths[li] != 2049) continue;
        int64_t dims[2] = {ROWS, lengths[li]};
        const uint64_t n = (uint64_t)dims[1];
        clmax_tensor_desc d = test_desc(type, 2, dims);
        void *x = test_malloc(ROWS * n * ref_type_size(type));
        /* positive, negative, mixed; the longest rows (several blocks of a cache-resident row
         * in every type) mixed only */
        for (int bg = small || n > 4133 ? 2 : 0; bg < 3; bg++)
            for (size_t s = 0; s < sizeof specials / sizeof specials[0]; s++)
                for (int tie = 0; tie < 3; tie++) {
                    fill_case(type, x, n, bg, specials[s], tie, &rng);
                    char what[96];
                    snprintf(what, sizeof what, "float rows, background %d, special %d, tie %d", bg,
                             (int)specials[s], tie);
                    check_tie_rules(ctx, what, &d, x, -1);
                }
        free(x);
    }
    clmax_context_destroy(ctx);
}

TYPE_GROUP_TEST_FLOATS(float_rows, types, run_float_rows, .timeout = 900)

/* Rows of 300 and 1100, as above, in an input of at least STREAMED_BYTES (the 80-row case
 * repeated): over the threads' L2 caches, where the CPU path reads rows as a stream (its row
 * search in CLMAX_BLOCK_KEYS mode) rather than from cache. The CPU path only (PoCL reads
 * them as any rows); small shapes (valgrind): rows of 300, NaN only, half the bytes. */
#define STREAMED_BYTES (12u << 20)
static void run_streamed(clmax_type type)
{
    static const enum sym few[] = {S_NAN, S_INF, S_NZERO, S_DEN};
    static const int64_t streamed_lengths[] = {300, 1100};
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_CPU, NULL);
    test_rng rng;
    rng_seed(&rng, 9300 + (uint64_t)type);
    const size_t es = ref_type_size(type);
    for (size_t li = 0; li < (test_small() ? 1 : 2); li++) {
        const uint64_t n = (uint64_t)streamed_lengths[li], block = ROWS * n * es;
        const uint64_t bytes = test_small() ? STREAMED_BYTES / 2 : STREAMED_BYTES;
        const uint64_t reps = (bytes + block - 1) / block;
        int64_t dims[2] = {(int64_t)(ROWS * reps), (int64_t)n};
        clmax_tensor_desc d = test_desc(type, 2, dims);
        char *x = test_malloc(reps * block);
        for (size_t s = 0; s < (test_small() ? 1 : sizeof few / sizeof few[0]); s++)
            for (int tie = 0; tie < 2; tie++) {
                for (uint64_t r = 0; r < reps; r++)
                    fill_case(type, x + r * block, n, (int)(r % 3), few[s], tie, &rng);
                char what[96];
                snprintf(what, sizeof what, "streamed float rows, special %d, tie %d", (int)few[s],
                         tie);
                check_tie_rules(ctx, what, &d, x, -1);
            }
        free(x);
    }
    clmax_context_destroy(ctx);
}

Test(float_rows, streamed, .timeout = 900)
{
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
        run_streamed(test_float_types[t]);
}

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

/* A caller whose MXCSR reads denormals as zero (DAZ) and flushes them (FTZ), as some numerical
 * code sets it, or unmasks the invalid-operation exception (a NaN met by a float max would trap):
 * the answers are those of the default MXCSR (checked against the reference first), since the
 * CPU path's float max runs in the default mode only, and no call leaves MXCSR changed (a NaN
 * in a max raises "invalid"). Cache-resident rows, on the calling thread (under 2^18 elements);
 * denormals, zeros and NaNs over negative and mixed backgrounds. */
static void run_daz(clmax_type type)
{
    static const enum sym daz_specials[] = {S_DEN, S_NDEN, S_ZERO, S_NZERO, S_NAN, S_SNAN};
    static const int64_t daz_lengths[] = {300, 1100, 2049};
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_CPU, NULL);
    test_rng rng;
    rng_seed(&rng, 9200 + (uint64_t)type);
    int64_t *want = test_malloc(ROWS * sizeof *want), *got = test_malloc(ROWS * sizeof *got);
    for (size_t li = 0; li < sizeof daz_lengths / sizeof daz_lengths[0]; li++) {
        int64_t dims[2] = {ROWS, daz_lengths[li]};
        const uint64_t n = (uint64_t)dims[1];
        clmax_tensor_desc d = test_desc(type, 2, dims);
        void *x = test_malloc(ROWS * n * ref_type_size(type));
        for (int bg = 1; bg < 3; bg++)
            for (size_t s = 0; s < sizeof daz_specials / sizeof daz_specials[0]; s++)
                for (int tie = 0; tie < 2; tie++) {
                    fill_case(type, x, n, bg, daz_specials[s], tie, &rng);
                    check_tie_rules(ctx, "float rows for DAZ", &d, x, -1);
                    for (int k = 0; k < 4; k++) {
                        clmax_argmax_attrs a;
                        clmax_argmax_attrs_init(&a, 13);
                        a.axis = -1;
                        a.select_last_index = k & 1;
                        clmax_status (*op)(clmax_context *, const clmax_tensor_desc *, const void *,
                                           const clmax_argmax_attrs *, int64_t *) =
                            k < 2 ? clmax_argmax : clmax_argmin;
                        const unsigned csr = _mm_getcsr();
                        _mm_setcsr(csr & ~0x3Fu); /* no flags raised yet */
                        cr_assert_eq(op(ctx, &d, x, &a, want), CLMAX_OK, "%s", clmax_last_error());
                        cr_assert_eq(_mm_getcsr(), csr & ~0x3Fu, "MXCSR changed: flags raised");
                        for (int mode = 0; mode < 2; mode++) {
                            /* FTZ | DAZ, or the invalid-operation exception unmasked */
                            const unsigned set =
                                mode == 0 ? (csr | 0x8040) & ~0x3Fu : csr & ~0x3Fu & ~0x80u;
                            _mm_setcsr(set);
                            if (_mm_getcsr() != set) { /* valgrind keeps its own MXCSR */
                                _mm_setcsr(csr);
                                continue;
                            }
                            clmax_status st = op(ctx, &d, x, &a, got);
                            const unsigned after = _mm_getcsr();
                            _mm_setcsr(csr);
                            cr_assert_eq(st, CLMAX_OK, "%s", clmax_last_error());
                            cr_assert_eq(after, set, "MXCSR %#x changed to %#x", set, after);
                            for (uint64_t r = 0; r < ROWS; r++)
                                cr_assert_eq(got[r], want[r],
                                             "%s (%s) [%d,%lld] background %d, special %d, tie "
                                             "%d, select_last_index %d, row %llu under MXCSR "
                                             "%#x: %lld, expected %lld",
                                             k < 2 ? "argmax" : "argmin", clmax_type_name(type),
                                             ROWS, (long long)n, bg, (int)daz_specials[s], tie,
                                             k & 1, (unsigned long long)r, set, (long long)got[r],
                                             (long long)want[r]);
                        }
                    }
                }
        free(x);
    }
    free(want);
    free(got);
    clmax_context_destroy(ctx);
}

Test(float_rows, daz)
{
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
        run_daz(test_float_types[t]);
}
#endif
