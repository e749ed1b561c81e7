/* The CPU path's float code and the caller's floating-point mode (x86 MXCSR). Three codes compare
 * floats with the CPU's own compares instead of integer keys: float32 short rows
 * (host/cpu/cpu_short_simd.c), float32 / float64 lanes along a strided axis
 * (host/cpu/cpu_flanes.c) and their slices of a few lanes (host/cpu/cpu_slots.c). They may only do
 * so in the default mode, and must fall back to the keys in any other: with denormals-are-zero on,
 * a compare reads every denormal as zero, while the contract orders them by value; with the
 * invalid exception unmasked, a compare of a NaN traps (SIGFPE). In the default mode the exception
 * flags a compare raises are cleared again.
 *
 * Each case runs ArgMax and ArgMin, both tie rules, with the calling thread's MXCSR set to the
 * mode under test during the calls only, on one thread (so the calls run on the calling thread),
 * against the reference computed in the default mode. */
#include "common.h"

#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

#define MXCSR_FLAGS 0x3Fu
#define MXCSR_DAZ 0x40u
#define MXCSR_INVALID_MASK 0x80u
#define MXCSR_FTZ 0x8000u

typedef void (*gen_fn)(clmax_type type, void *x, uint64_t count, test_rng *rng);

typedef struct shape {
    int rank;
    int64_t dims[3];
    int axis;
} shape;

/* Short rows for every row length the float32 vector code is compiled for; lanes along axis 0 and
 * a middle axis, with axis lengths that leave 0 to 3 rows after the steps of four. */
static const shape shapes[] = {
    {2, {67, 8}, -1},
    {2, {67, 13}, -1},
    {2, {67, 16}, -1},
    {2, {67, 24}, -1},
    {2, {67, 32}, -1},
    {2, {13, 67}, 0},
    {2, {4, 300}, 0},
    {2, {1, 9}, 0},
    {3, {3, 6, 40}, 1},
    {3, {2, 7, 1030}, 1},
    {3, {5, 2, 33}, 1},
    /* slices of a few lanes in 512-bit slots (cpu_slots.c): 16-, 32- and 64-byte slots */
    {3, {9, 5, 3}, 1},
    {3, {6, 7, 6}, 1},
    {3, {5, 4, 12}, 1},
};

static void float_mode_case(clmax_type type, unsigned csr_set, gen_fn gen, uint64_t seed)
{
    unsigned saved = _mm_getcsr();
    _mm_setcsr(csr_set);
    unsigned kept = _mm_getcsr();
    _mm_setcsr(saved);
    if (kept != csr_set) /* valgrind, for one, keeps only the rounding mode */
        cr_skip_test("MXCSR %#x reads back as %#x here", csr_set, kept);
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.num_threads = 1;
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_CPU, &o);
    test_rng rng;
    rng_seed(&rng, seed);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const shape *sh = &shapes[s];
        clmax_tensor_desc d = test_desc(type, sh->rank, sh->dims);
        uint64_t count = output_count(&d);
        int axis = sh->axis < 0 ? sh->axis + sh->rank : sh->axis;
        uint64_t outputs = count / (uint64_t)sh->dims[axis];
        void *x = test_malloc(count * ref_type_size(type));
        gen(type, x, count, &rng);
        int64_t *want = test_malloc(outputs * sizeof *want);
        int64_t *got = test_malloc(outputs * sizeof *got);
        for (int sli = 0; sli <= 1; sli++) {
            for (int min = 0; min <= 1; min++) {
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = sh->axis;
                a.select_last_index = sli;
                cr_assert_eq(min ? ref_argmin(&d, x, &a, want) : ref_argmax(&d, x, &a, want),
                             CLMAX_OK);
                unsigned csr = _mm_getcsr();
                _mm_setcsr(csr_set);
                clmax_status st =
                    min ? clmax_argmin(ctx, &d, x, &a, got) : clmax_argmax(ctx, &d, x, &a, got);
                unsigned after = _mm_getcsr();
                _mm_setcsr(csr);
                cr_assert_eq(st, CLMAX_OK, "%s", clmax_last_error());
                cr_assert_eq(after, csr_set, "MXCSR %#x after the call, %#x before", after,
                             csr_set);
                for (uint64_t q = 0; q < outputs; q++)
                    cr_assert_eq(got[q], want[q],
                                 "%s shape %zu (axis %d), %s, select_last_index %d, output %llu: "
                                 "%lld, expected %lld",
                                 clmax_type_name(type), s, sh->axis, min ? "ArgMin" : "ArgMax", sli,
                                 (unsigned long long)q, (long long)got[q], (long long)want[q]);
            }
        }
        free(x);
        free(want);
        free(got);
    }
    clmax_context_destroy(ctx);
}

static void put(clmax_type type, void *x, uint64_t e, uint64_t bits16, uint64_t bits32,
                uint64_t bits64)
{
    if (type == CLMAX_TYPE_FLOAT16)
        ((uint16_t *)x)[e] = (uint16_t)bits16;
    else if (type == CLMAX_TYPE_FLOAT32)
        ((uint32_t *)x)[e] = (uint32_t)bits32;
    else
        ((uint64_t *)x)[e] = bits64;
}

/* Denormals of both signs, and zeros of both signs in about one element in eight. */
static void gen_denormals(clmax_type type, void *x, uint64_t count, test_rng *rng)
{
    for (uint64_t e = 0; e < count; e++) {
        int neg = (int)rng_below(rng, 2), zero = rng_below(rng, 8) == 0;
        uint64_t m16 = zero ? 0 : 1 + rng_below(rng, 0x3FF);
        uint64_t m32 = zero ? 0 : 1 + rng_below(rng, 0x7FFFFF);
        uint64_t m64 = zero ? 0 : 1 + rng_below(rng, 0xFFFFFFFFFFFFEull);
        put(type, x, e, (neg ? 0x8000u : 0) | m16, (neg ? 0x80000000u : 0) | m32,
            (neg ? 0x8000000000000000ull : 0) | m64);
    }
}

/* Values from a small set (so ties are common), with quiet and signalling NaNs of both signs in
 * about one element in forty. */
static void gen_nans(clmax_type type, void *x, uint64_t count, test_rng *rng)
{
    static const uint16_t nans16[] = {0x7E00u, 0xFE01u, 0x7C01u, 0xFD23u};
    static const uint32_t nans32[] = {0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0xFF812345u};
    static const uint64_t nans64[] = {0x7FF8000000000000ull, 0xFFF8000000000001ull,
                                      0x7FF0000000000001ull, 0xFFF0000000012345ull};
    for (uint64_t e = 0; e < count; e++) {
        if (rng_below(rng, 40) == 0) {
            size_t k = (size_t)rng_below(rng, 4);
            put(type, x, e, nans16[k], nans32[k], nans64[k]);
        } else {
            uint64_t v = rng_below(rng, 1000);
            put(type, x, e, 0x3C00u + v, 0x3F800000u + v, 0x3FF0000000000000ull + (v << 29));
        }
    }
}

/* Ties everywhere: zeros of both signs, infinities, denormals, and a few other values. */
static void gen_ties(clmax_type type, void *x, uint64_t count, test_rng *rng)
{
    static const uint16_t v16[] = {0x0000u, 0x8000u, 0x7C00u, 0xFC00u,
                                   0x0001u, 0x8001u, 0x3C00u, 0xBC00u};
    static const uint32_t v32[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
                                   0x00000001u, 0x80000001u, 0x3F800000u, 0xBF800000u};
    static const uint64_t v64[] = {
        0x0ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
        0x1ull, 0x8000000000000001ull, 0x3FF0000000000000ull, 0xBFF0000000000000ull};
    /* a narrower choice per tensor, so that the larger values are not always present */
    uint64_t choices = 2 + rng_below(rng, 7);
    for (uint64_t e = 0; e < count; e++) {
        size_t k = (size_t)rng_below(rng, choices);
        put(type, x, e, v16[k], v32[k], v64[k]);
    }
}

#define FLOAT_MODE_TESTS(name, type)                                                               \
    /* With DAZ (and FTZ) on, denormals must still compare by value. */                            \
    Test(float_mode, name##_denormals_in_daz_mode_cpu)                                             \
    {                                                                                              \
        float_mode_case(type, _mm_getcsr() | MXCSR_DAZ | MXCSR_FTZ, gen_denormals, 7300);          \
    }                                                                                              \
    /* With the invalid exception unmasked, no compare may meet a NaN. */                          \
    Test(float_mode, name##_nans_with_invalid_unmasked_cpu)                                        \
    {                                                                                              \
        float_mode_case(type, _mm_getcsr() & ~MXCSR_INVALID_MASK & ~MXCSR_FLAGS, gen_nans, 7301);  \
    }                                                                                              \
    /* In the default mode the float code runs; the flags it raises on NaNs are cleared. */        \
    Test(float_mode, name##_nans_leave_mxcsr_flags_cpu)                                            \
    {                                                                                              \
        float_mode_case(type, _mm_getcsr() & ~MXCSR_FLAGS, gen_nans, 7302);                        \
    }                                                                                              \
    /* In the default mode, without NaN: the float code's own answers, ties at every turn. */      \
    Test(float_mode, name##_ties_in_default_mode_cpu)                                              \
    {                                                                                              \
        float_mode_case(type, _mm_getcsr() & ~MXCSR_FLAGS, gen_ties, 7303);                        \
    }
FLOAT_MODE_TESTS(float16, CLMAX_TYPE_FLOAT16)
FLOAT_MODE_TESTS(float32, CLMAX_TYPE_FLOAT32)
FLOAT_MODE_TESTS(float64, CLMAX_TYPE_FLOAT64)
#endif
