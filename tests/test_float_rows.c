/* Float rows through the row search's first pass (host/cpu/cpu_block.h and its vector forms in
 * cpu_block_simd.c), which finds a stretch's max or min from the extremes of the raw bits and
 * tells NaN from them: a special value (each NaN sign and payload, +-inf, +-0, denormals, the
 * largest finite values) planted at every position of the first vector steps of a row, at the
 * ends of the row and around its 2048-element blocks, alone or tied with a second one further on,
 * over backgrounds of positive, negative and mixed values. Lengths from one 256-byte chunk of the
 * short-row code to several blocks, none a multiple of the vector width. ArgMax and ArgMin, both
 * tie rules, bit for bit against the reference. CLMAX_TEST_SMALL (valgrind, the sanitizers): two
 * lengths, one under a block and one across two, and the mixed background only. */
#include "known_rows.h"

#include <stdio.h>
#include <stdlib.h>

static const enum sym specials[] = {S_NAN,  S_NNAN,  S_SNAN, S_NAN_P, S_NNAN_P, S_INF, S_NINF,
                                    S_ZERO, S_NZERO, S_DEN,  S_NDEN,  S_MAX,    S_NMAX};
static const int64_t lengths[] = {131, 300, 1100, 2047, 2048, 2049, 4133};

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
    static const uint64_t fixed[] = {2046, 2047, 2048, 2049, 4095, 4096};
    if (r < 64) return r % n;
    r -= 64;
    if (r < 2) return n - 1 - r;
    r -= 2;
    if (r < sizeof fixed / sizeof fixed[0]) return fixed[r] % n;
    return rng_below(rng, n);
}
#define ROWS 80

static void run_float_rows(clmax_backend backend, clmax_type type)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 9100 + (uint64_t)type);
    const uint64_t sign = sign_bit(type);
    const int small = test_small();
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        if (small && lengths[li] != 300 && lengths[li] != 2049) continue;
        int64_t dims[2] = {ROWS, lengths[li]};
        const uint64_t n = (uint64_t)dims[1];
        clmax_tensor_desc d = test_desc(type, 2, dims);
        void *x = test_malloc(ROWS * n * ref_type_size(type));
        for (int bg = small ? 2 : 0; bg < 3; bg++) /* positive, negative, mixed */
            for (size_t s = 0; s < sizeof specials / sizeof specials[0]; s++)
                for (int tie = 0; tie < 2; tie++) {
                    for (uint64_t e = 0; e < ROWS * n; e++) {
                        uint64_t v = value_below_one(type, &rng);
                        elem_set(type, x, e, bg == 0 ? v & ~sign : bg == 1 ? v | sign : v);
                    }
                    const uint64_t bits = sym_bits(type, specials[s]);
                    for (uint64_t r = 0; r < ROWS; r++) {
                        uint64_t p = position(r, n, &rng);
                        elem_set(type, x, r * n + p, bits);
                        /* the tie: the same value (or the other zero) further on */
                        if (tie && p + 1 < n) {
                            uint64_t q = p + 1 + rng_below(&rng, n - p - 1);
                            uint64_t other = specials[s] == S_ZERO    ? sym_bits(type, S_NZERO)
                                             : specials[s] == S_NZERO ? sym_bits(type, S_ZERO)
                                                                      : bits;
                            elem_set(type, x, r * n + q, other);
                        }
                    }
                    char what[96];
                    snprintf(what, sizeof what, "float rows, background %d, special %d, tie %d", bg,
                             (int)specials[s], tie);
                    check_tie_rules(ctx, what, &d, x, -1);
                }
        free(x);
    }
    clmax_context_destroy(ctx);
}

#define FLOAT_ROWS_TEST(name, type)                                                                \
    BACKEND_TEST(float_rows, name, .timeout = 900)                                                 \
    {                                                                                              \
        run_float_rows(backend, type);                                                             \
    }
FOR_FLOAT_TYPES(FLOAT_ROWS_TEST)
