/* The row search of the CPU path's rows (cpu_rows.c) over a stretch x[b..e) (e > b) of one
 * contiguous row: block_* gives the stretch's largest key, find_* the first (or last) place of a
 * key there.
 *
 * Integer types map each element to its key (keys.h) and take the max. Float types skip the key,
 * nine vector operations an element that made the float rows compute-bound, and keep three
 * extremes of the raw bits instead, one operation each. As signed integers the bits order the
 * non-negative floats by value (+NaN above +inf) and the negative ones by magnitude from -0 up;
 * as unsigned, every negative float above every non-negative one, -NaN above -inf. So for ArgMax
 * the signed max is the float max when it is not negative, else the signed min is; for ArgMin
 * the unsigned max is the float min when it is negative, else the unsigned min is; and a NaN
 * shows as a signed max above +inf or an unsigned max above -inf (its key is then the largest).
 * The value found is mapped to its key once. -0 and +0 have the same key and the search compares
 * keys, so ties of zeros keep the contract's rule. No float compare is used there: the caller's
 * MXCSR (denormals as zero) cannot change the answer.
 *
 * Cache-resident float32 and float64 stretches with 512-bit vectors (and float16 ones with
 * AVX512-FP16) take the float max (min) instead, with a sum that turns NaN where a NaN is
 * (cpu_block_simd.c): two operations a vector where the extremes take three, which is what
 * those rows are bound by in cache. It runs only where the caller's MXCSR keeps denormals and
 * masks the invalid and denormal exceptions (the flags it raises: host/fpenv.h). */
#ifndef CLMAX_CPU_BLOCK_H
#define CLMAX_CPU_BLOCK_H

#include "keys.h"

#include <stdint.h>

/* Rows are read in runs of ROW_RUN bytes, each after prefetching its lines ROW_PREFETCH bytes on
 * (a prefetch per line inside the loop stops its vectorisation): without it these loops wait on
 * memory where the hardware prefetcher lags. The values: docs/TUNING.md. */
#ifndef ROW_PREFETCH
#define ROW_PREFETCH 4096
#endif
#ifndef ROW_RUN
#define ROW_RUN 2048
#endif

/* The extremes of a stretch of 16- or 32-bit float bits, as signed and as unsigned integers. */
typedef struct clmax_extremes16 {
    int16_t smax, smin;
    uint16_t umax, umin;
} clmax_extremes16;
typedef struct clmax_extremes32 {
    int32_t smax, smin;
    uint32_t umax, umin;
} clmax_extremes32;
typedef struct clmax_extremes64 { /* no vector form: AVX2 has no 64-bit max */
    int64_t smax, smin;
    uint64_t umax, umin;
} clmax_extremes64;

/* The same in AVX-512 or AVX2 vectors (cpu_block_simd.c) where the compiler and the CPU have
 * them: 1 with *out written (the three extremes the operator uses), 0 where the scalar loop must
 * run; wide: 512-bit vectors allowed (CLMAX_CPU_AVX512), else 256-bit ones. Stretches shorter than
 * CLMAX_BLOCK_SIMD_MIN bytes stay scalar, not worth the call. */
#define CLMAX_BLOCK_SIMD_MIN 1024
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)
int clmax_block_extremes16(const uint16_t *x, uint64_t b, uint64_t e, int pf, uint64_t run_bytes,
                           int min, int wide, clmax_extremes16 *out);
int clmax_block_extremes32(const uint32_t *x, uint64_t b, uint64_t e, int pf, uint64_t run_bytes,
                           int min, int wide, clmax_extremes32 *out);
int clmax_block_find16(const uint16_t *x, uint64_t b, uint64_t e, uint16_t am, uint16_t r, int gt,
                       int last, int wide, uint64_t *at);
int clmax_block_find32(const uint32_t *x, uint64_t b, uint64_t e, uint32_t am, uint32_t r, int gt,
                       int last, int wide, uint64_t *at);
int clmax_block_find64(const uint64_t *x, uint64_t b, uint64_t e, uint64_t am, uint64_t r, int gt,
                       int last, int wide, uint64_t *at);
int clmax_block_fmax16(const void *x, uint64_t b, uint64_t e, int min, int wide, uint16_t *bits);
int clmax_block_fmax32(const void *x, uint64_t b, uint64_t e, int min, int wide, uint32_t *bits);
int clmax_block_fmax64(const void *x, uint64_t b, uint64_t e, int min, int wide, uint64_t *bits);
#define CLMAX_BLOCK_SIMD16 clmax_block_extremes16
#define CLMAX_BLOCK_SIMD32 clmax_block_extremes32
#define CLMAX_BLOCK_FMAX16 clmax_block_fmax16
#define CLMAX_BLOCK_FMAX32 clmax_block_fmax32
#define CLMAX_BLOCK_FMAX64 clmax_block_fmax64
#define CLMAX_FIND_SIMD16 clmax_block_find16
#define CLMAX_FIND_SIMD32 clmax_block_find32
#define CLMAX_FIND_SIMD64 clmax_block_find64
#else
#define CLMAX_BLOCK_SIMD16(x, b, e, pf, run_bytes, min, wide, out) 0
#define CLMAX_BLOCK_SIMD32(x, b, e, pf, run_bytes, min, wide, out) 0
#define CLMAX_BLOCK_FMAX16(x, b, e, min, wide, bits) 0
#define CLMAX_BLOCK_FMAX32(x, b, e, min, wide, bits) 0
#define CLMAX_BLOCK_FMAX64(x, b, e, min, wide, bits) 0
#define CLMAX_FIND_SIMD16(x, b, e, am, r, gt, last, wide, at) ((void)(am), (void)(wide), 0)
#define CLMAX_FIND_SIMD32(x, b, e, am, r, gt, last, wide, at) ((void)(am), (void)(wide), 0)
#define CLMAX_FIND_SIMD64(x, b, e, am, r, gt, last, wide, at) ((void)(am), (void)(wide), 0)
#endif
/* The float max by type: bfloat16 has no vector max (AVX512_BF16 has conversions and dot
 * products only). */
#define CLMAX_BLOCK_FMAX_f16 CLMAX_BLOCK_FMAX16
#define CLMAX_BLOCK_FMAX_f16_min CLMAX_BLOCK_FMAX16
#define CLMAX_BLOCK_FMAX_bf16(x, b, e, min, wide, bits) 0
#define CLMAX_BLOCK_FMAX_bf16_min(x, b, e, min, wide, bits) 0
#define CLMAX_BLOCK_FMAX_f32 CLMAX_BLOCK_FMAX32
#define CLMAX_BLOCK_FMAX_f32_min CLMAX_BLOCK_FMAX32
#define CLMAX_BLOCK_FMAX_f64 CLMAX_BLOCK_FMAX64
#define CLMAX_BLOCK_FMAX_f64_min CLMAX_BLOCK_FMAX64
/* Float searches of fewer bytes stay scalar (a call and two vectors at least; the short rows'
 * chunks of 256-512 bytes ran slower through it: float64 [B, 256] 0.43-0.47 of the limit against
 * 0.59-0.60 scalar). */
#define CLMAX_FIND_SIMD_MIN 1024
#define CLMAX_BLOCK_SIMD64(x, b, e, pf, run_bytes, min, wide, out) 0

/* How a float stretch is read: by its keys (the input streams from memory: there the key loop ran
 * faster, 0.87-0.94 of the limit against 0.79-0.82 for the extremes in vectors and 0.57-0.72 in
 * the compiler's loop on [B, 65536] float32 and float16 of 256 MiB, though it does more work), or
 * by the extremes in 256-bit or, where allowed, 512-bit vectors (a cache-resident input). */
enum { CLMAX_BLOCK_KEYS, CLMAX_BLOCK_NARROW, CLMAX_BLOCK_WIDE };

/* Runs of run_bytes, each after a prefetch when pf is set (pf == 0 for stretches already in
 * cache); both are compile-time constants where these are inlined. */
#define CLMAX_BLOCK_RUNS(raw_t, pf, run_bytes, BODY)                                               \
    for (uint64_t r = b; r < e; r += (run_bytes) / sizeof(raw_t)) {                                \
        uint64_t re = e - r < (run_bytes) / sizeof(raw_t) ? e : r + (run_bytes) / sizeof(raw_t);   \
        if (pf)                                                                                    \
            for (uint64_t c = 0; c < (run_bytes); c += 64)                                         \
                __builtin_prefetch((const char *)(x + r) + ROW_PREFETCH + c);                      \
        for (uint64_t j = r; j < re; j++) {                                                        \
            BODY;                                                                                  \
        }                                                                                          \
    }

/* Returns the largest key of the stretch, each element mapped to its key. */
#define CLMAX_BLOCK_KEYS_MAX(raw_t, KEY)                                                           \
    do {                                                                                           \
        raw_t m = 0;                                                                               \
        CLMAX_BLOCK_RUNS(raw_t, pf, run_bytes, raw_t k = KEY(x[j]); m = k > m ? k : m)             \
        return m;                                                                                  \
    } while (0)

#define CLMAX_BLOCK_INT(name, raw_t, KEY)                                                          \
    static inline __attribute__((always_inline)) raw_t block_##name(                               \
        const raw_t *x, uint64_t b, uint64_t e, int pf, uint64_t run_bytes, int mode)              \
    {                                                                                              \
        (void)mode;                                                                                \
        CLMAX_BLOCK_KEYS_MAX(raw_t, KEY);                                                          \
    }

/* raw_t/st_t: the float's bits unsigned and signed; SIGN, INF: the sign bit, +inf's bits; KEY:
 * the key map of the operator (clmax_key_* or clmax_mkey_*); MIN: 1 for ArgMin. */
#define CLMAX_BLOCK_FLOAT(name, W, raw_t, st_t, SIGN, INF, KEY, MIN)                               \
    static inline __attribute__((always_inline)) raw_t block_##name(                               \
        const raw_t *x, uint64_t b, uint64_t e, int pf, uint64_t run_bytes, int mode)              \
    {                                                                                              \
        if (mode == CLMAX_BLOCK_KEYS) {                                                            \
            CLMAX_BLOCK_KEYS_MAX(raw_t, KEY);                                                      \
        }                                                                                          \
        st_t smax = (st_t)(SIGN), smin = (st_t) ~(raw_t)(SIGN);                                    \
        raw_t umax = 0, umin = (raw_t) ~(raw_t)0, rv_;                                             \
        clmax_extremes##W v_;                                                                      \
        if ((e - b) * sizeof(raw_t) >= CLMAX_BLOCK_SIMD_MIN &&                                     \
            CLMAX_BLOCK_FMAX_##name((const void *)x, b, e, MIN, mode == CLMAX_BLOCK_WIDE, &rv_))   \
            return (rv_ & (raw_t) ~(raw_t)(SIGN)) > (raw_t)(INF) ? (raw_t) ~(raw_t)0 : KEY(rv_);   \
        if ((e - b) * sizeof(raw_t) >= CLMAX_BLOCK_SIMD_MIN &&                                     \
            CLMAX_BLOCK_SIMD##W((const void *)x, b, e, pf, run_bytes, MIN,                         \
                                mode == CLMAX_BLOCK_WIDE, &v_))                                    \
            smax = (st_t)v_.smax, smin = (st_t)v_.smin, umax = (raw_t)v_.umax,                     \
            umin = (raw_t)v_.umin;                                                                 \
        else if (MIN)                                                                              \
            CLMAX_BLOCK_RUNS(raw_t, pf, run_bytes, raw_t u = x[j]; st_t s = (st_t)u;               \
                             smax = s > smax ? s : smax; umax = u > umax ? u : umax;               \
                             umin = u < umin ? u : umin)                                           \
        else                                                                                       \
            CLMAX_BLOCK_RUNS(raw_t, pf, run_bytes, raw_t u = x[j]; st_t s = (st_t)u;               \
                             smax = s > smax ? s : smax; smin = s < smin ? s : smin;               \
                             umax = u > umax ? u : umax)                                           \
        /* +NaN: above +inf as signed; -NaN: above -inf as unsigned */                             \
        if (smax > (st_t)(INF) || umax > (raw_t)((SIGN) | (INF)))                                  \
            return (raw_t) ~(raw_t)0; /* the largest key of either operator */                     \
        raw_t v = (MIN) ? (umax >= (raw_t)(SIGN) ? umax : umin)                                    \
                        : (smax >= 0 ? (raw_t)smax : (raw_t)smin);                                 \
        return KEY(v);                                                                             \
    }

/* find_*: the first (or last) position j in x[b..e) where F(x[j]) OP R holds, as it does
 * somewhere: chunks of CLMAX_SEARCH_CHUNK elements are tested whole (a loop the compiler
 * vectorises), then the chunk with a match is searched element by element. An element-by-element
 * search of the whole block took as long as the block's max on float16 rows, whose max rises
 * often. */
#define CLMAX_SEARCH_CHUNK 64
#define CLMAX_FIND(F, OP, R)                                                                       \
    do {                                                                                           \
        uint64_t c0 = b, c1 = e;                                                                   \
        for (;;) {                                                                                 \
            uint64_t s0 =                                                                          \
                last ? (c1 - c0 > CLMAX_SEARCH_CHUNK ? c1 - CLMAX_SEARCH_CHUNK : c0) : c0;         \
            uint64_t s1 =                                                                          \
                last ? c1 : (c1 - c0 > CLMAX_SEARCH_CHUNK ? c0 + CLMAX_SEARCH_CHUNK : c1);         \
            int hit = 0;                                                                           \
            for (uint64_t j = s0; j < s1; j++)                                                     \
                hit |= F(x[j]) OP(R);                                                              \
            if (hit) {                                                                             \
                uint64_t j;                                                                        \
                if (last)                                                                          \
                    for (j = s1 - 1; j > s0 && !(F(x[j]) OP(R)); j--) {                            \
                    }                                                                              \
                else                                                                               \
                    for (j = s0; j < s1 - 1 && !(F(x[j]) OP(R)); j++) {                            \
                    }                                                                              \
                return j;                                                                          \
            }                                                                                      \
            if (last)                                                                              \
                c1 = s0;                                                                           \
            else                                                                                   \
                c0 = s1;                                                                           \
        }                                                                                          \
    } while (0)

/* Integers: the key compared, as cheap as the bits (an identity or a flip of the top bit). */
#define CLMAX_FIND_INT(name, raw_t, KEY)                                                           \
    static inline __attribute__((always_inline))                                                   \
    uint64_t find_##name(const raw_t *x, uint64_t b, uint64_t e, raw_t m, int last, int wide)      \
    {                                                                                              \
        (void)wide;                                                                                \
        CLMAX_FIND(KEY, ==, m);                                                                    \
    }

/* Floats: the key's one value found again and compared as bits (one operation an element, not
 * the key's nine), or the class the key stands for: any NaN (the all-ones key), either zero; in
 * vectors (CLMAX_FIND_SIMD*; wide: 512-bit ones allowed) where the stretch is long enough. */
#define CLMAX_FIND_FLOAT(name, W, raw_t, SIGN, INF, MIN)                                           \
    static inline raw_t abs_bits_##name(raw_t u)                                                   \
    {                                                                                              \
        return (raw_t)(u & (raw_t) ~(raw_t)(SIGN));                                                \
    }                                                                                              \
    static inline __attribute__((always_inline))                                                   \
    uint64_t find_##name(const raw_t *x, uint64_t b, uint64_t e, raw_t m, int last, int wide)      \
    {                                                                                              \
        const raw_t v = clmax_key_value##W(m, (MIN) ? (raw_t) ~(raw_t)0 : 0);                      \
        const int nan = m == (raw_t) ~(raw_t)0, cls = nan || v == 0;                               \
        uint64_t at_;                                                                              \
        if ((e - b) * sizeof(raw_t) >= CLMAX_FIND_SIMD_MIN &&                                      \
            CLMAX_FIND_SIMD##W(x, b, e, cls ? (raw_t) ~(raw_t)(SIGN) : (raw_t) ~(raw_t)0,          \
                               nan ? (raw_t)(INF) : v, nan, last, wide, &at_))                     \
            return at_;                                                                            \
        if (nan) CLMAX_FIND(abs_bits_##name, >, (raw_t)(INF));                                     \
        if (v == 0) CLMAX_FIND(abs_bits_##name, ==, 0);                                            \
        CLMAX_FIND(, ==, v);                                                                       \
    }

#endif
