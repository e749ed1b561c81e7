/* ArgMax and ArgMin on the CPU path of slices whose row is one 32-bit word (two-byte types
 * [B, n, 2], one-byte [B, n, 4]) or one 64-bit word (four-byte [B, n, 2], two-byte [B, n, 4],
 * one-byte [B, n, 8]). A group of b slices at a time, b = 32 / the row's bytes (8 or 4): a vector
 * of b row words is loaded from each slice (rows kb to kb + b - 1), a b x b transpose of the
 * words makes them b vectors each holding one row of all b slices, and each such row vector goes
 * through the keys and a running best and row index, lane by lane (a lane: one element of one
 * slice). The indices come out in the output's order (slice, lane): widened to int64 and put out
 * through a buffer (clmax_cpu_put).
 *
 * Why: GCC vectorises such slices across slices only for 2, 4 or 8 rows (cpu_interleaved.c);
 * the others were dealt into rows (cpu_deal.c), each element moved on its own, then searched,
 * or packed or stacked. In turns with those (3 rounds, the order swapped, clmax-bench --sweep
 * --size=128 --backend=cpu, ratio of the limit): float16 [B, 4, 2] 0.87 -> 1.13, [B, 12, 2] 0.48
 * -> 0.87, [B, 32, 2] 0.49 -> 0.74; uint8 [B, 2, 4] 0.35 -> 0.89, [B, 32, 4] 0.33 -> 0.75;
 * float16 [B, 3, 4] 0.66 -> 1.31, [B, 7, 4] 0.30 -> 0.60, [B, 21, 4] 0.26 -> 0.48; float32
 * [B, 3, 2] 0.35 -> 0.70, [B, 12, 2] 0.36 -> 0.49; uint8 [B, 21, 8] 0.40 -> 0.88. Past
 * TRANSPOSED_SLICE_MAX bytes a slice it lost (float16 [B, 80..1024, 2] x0.40-0.82, [B, 64, 4]
 * x0.42, float32 [B, 64, 2] x0.69): b slices' rows far apart at once.
 *
 * Loads read b words from a slice's row kb, so that past its last row they read into the next
 * slice (those words feed transposed rows no one uses); a group whose loads would pass the
 * input's end runs from a padded copy. Past b rows, the last block starts at n - b and its rows
 * already seen are skipped, so that each row is taken once, in order. */
#include "cpu_transposed.h"

#include "cpu_short.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#define CHUNK 64 /* groups whose winners go through the buffer at a time */
#define PAD_BYTES (8 * TRANSPOSED_SLICE_MAX + 32) /* a group's loads' span, at most */

#pragma GCC push_options
#pragma GCC target("avx2")

typedef uint8_t vu8 __attribute__((vector_size(32)));
typedef int8_t vs8 __attribute__((vector_size(32)));
typedef uint16_t vu16 __attribute__((vector_size(32)));
typedef int16_t vs16 __attribute__((vector_size(32)));
typedef uint32_t vu32 __attribute__((vector_size(32)));
typedef int32_t vs32 __attribute__((vector_size(32)));

/* How a row vector's elements become signed keys whose order is the contract's (keys.h's keys
 * with the sign bit flipped, for AVX2's signed compares): floats through the float map, with
 * inf the infinity's bits, and for ArgMin (m all ones) the order reversed but NaN kept largest;
 * integers by one xor (x) that does all of that. */
typedef struct keying {
    int floating;
    uint32_t inf, m, x;
} keying;

/* The keys of elements of W bits (T unsigned, ST signed). */
#define KEY_FN(W, VU, VS, T, ST)                                                                   \
    static inline __attribute__((always_inline)) __m256i key##W(__m256i r, keying kg)              \
    {                                                                                              \
        const VU u = (VU)r;                                                                        \
        const T sign = (T)((T)1 << (W - 1));                                                       \
        if (!kg.floating) return (__m256i)(u ^ (T)kg.x);                                           \
        const VU a = u & (T)(sign - 1);                                                            \
        const VU v = u & (VU)(a != 0);                                                             \
        VU k = v ^ ((VU)((VS)v >> (W - 1)) | sign);                                                \
        k |= (VU)((VS)a > (ST)kg.inf);                                                             \
        k = (k ^ (T)kg.m) | ((T)kg.m & (VU)(k == (T) ~(T)0));                                      \
        return (__m256i)(k ^ sign);                                                                \
    }
KEY_FN(16, vu16, vs16, uint16_t, int16_t)
KEY_FN(32, vu32, vs32, uint32_t, int32_t)

static inline __attribute__((always_inline)) __m256i key8(__m256i r, keying kg)
{
    return (__m256i)((vu8)r ^ (uint8_t)kg.x);
}

/* r[j] = the words j of r[0..7]: an 8 x 8 transpose of 32-bit words. */
static inline __attribute__((always_inline)) void transpose8(__m256i *r)
{
    __m256i t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) {
        u[4 * i] = _mm256_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        u[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
        r[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
    }
}

/* r[j] = the words j of r[0..3]: a 4 x 4 transpose of 64-bit words. */
static inline __attribute__((always_inline)) void transpose4(__m256i *r)
{
    const __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
    r[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    r[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    r[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    r[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/* The row indices of one group's winners (`at`, one element a lane) as int64 into o. */
static inline __attribute__((always_inline)) void out16(__m256i at, int64_t *o)
{
    const __m128i lo = _mm256_castsi256_si128(at), hi = _mm256_extracti128_si256(at, 1);
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_cvtepu16_epi64(lo));
    _mm256_storeu_si256((__m256i *)(void *)(o + 4), _mm256_cvtepu16_epi64(_mm_srli_si128(lo, 8)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 8), _mm256_cvtepu16_epi64(hi));
    _mm256_storeu_si256((__m256i *)(void *)(o + 12), _mm256_cvtepu16_epi64(_mm_srli_si128(hi, 8)));
}

static inline __attribute__((always_inline)) void out32(__m256i at, int64_t *o)
{
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(at)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 4),
                        _mm256_cvtepu32_epi64(_mm256_extracti128_si256(at, 1)));
}

static inline __attribute__((always_inline)) void out8(__m256i at, int64_t *o)
{
    const __m128i lo = _mm256_castsi256_si128(at), hi = _mm256_extracti128_si256(at, 1);
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_cvtepu8_epi64(lo));
    _mm256_storeu_si256((__m256i *)(void *)(o + 4), _mm256_cvtepu8_epi64(_mm_srli_si128(lo, 4)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 8), _mm256_cvtepu8_epi64(_mm_srli_si128(lo, 8)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 12), _mm256_cvtepu8_epi64(_mm_srli_si128(lo, 12)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 16), _mm256_cvtepu8_epi64(hi));
    _mm256_storeu_si256((__m256i *)(void *)(o + 20), _mm256_cvtepu8_epi64(_mm_srli_si128(hi, 4)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 24), _mm256_cvtepu8_epi64(_mm_srli_si128(hi, 8)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 28), _mm256_cvtepu8_epi64(_mm_srli_si128(hi, 12)));
}

static inline __attribute__((always_inline)) __m256i set1_32(uint64_t k)
{
    return _mm256_set1_epi32((int)k);
}
static inline __attribute__((always_inline)) __m256i set1_16(uint64_t k)
{
    return _mm256_set1_epi16((short)k);
}
static inline __attribute__((always_inline)) __m256i set1_8(uint64_t k)
{
    return _mm256_set1_epi8((char)k);
}

/* One group of B slices of n rows from x (bytes; every load inside the input) into o: rows of
 * 32 / B bytes, B of them a block, transposed by transpose##B; lanes of W bits, keyed by key##W;
 * the running best by the signed max, the row index where a row's key is larger (or equal, with
 * tie all ones: the last index rule). n a constant where the caller can make it one, so that the
 * rows' loop unrolls and the transposed rows stay in registers. */
#define GROUP_FN(W, B)                                                                             \
    static inline __attribute__((always_inline)) void group##W##_##B(                              \
        const char *x, uint64_t n, keying kg, __m256i tie, int64_t *o)                             \
    {                                                                                              \
        __m256i best = _mm256_setzero_si256(), at = best;                                          \
        for (uint64_t k0 = 0; k0 < n; k0 += B) {                                                   \
            const uint64_t kb = n >= B && k0 + B > n ? n - B : k0;                                 \
            __m256i r[B];                                                                          \
            for (int s = 0; s < B; s++)                                                            \
                r[s] = _mm256_loadu_si256(                                                         \
                    (const __m256i *)(const void *)(x + 32 / B * (s * n + kb)));                   \
            transpose##B(r);                                                                       \
            for (uint64_t j = k0 - kb; j < B && kb + j < n; j++) {                                 \
                const __m256i key = key##W(r[j], kg);                                              \
                if (kb + j == 0) {                                                                 \
                    best = key;                                                                    \
                    continue;                                                                      \
                }                                                                                  \
                const __m256i up =                                                                 \
                    _mm256_or_si256(_mm256_cmpgt_epi##W(key, best),                                \
                                    _mm256_and_si256(tie, _mm256_cmpeq_epi##W(key, best)));        \
                best = _mm256_max_epi##W(best, key);                                               \
                at = _mm256_blendv_epi8(at, set1_##W(kb + j), up);                                 \
            }                                                                                      \
        }                                                                                          \
        out##W(at, o);                                                                             \
    }

/* cnt groups from x into o (a group: 32 * n bytes in, 256 / W winners out), with n a constant
 * for 3, 5, 6 and 7 rows. */
#define GROUPS_FN(W, B)                                                                            \
    GROUP_FN(W, B)                                                                                 \
    __attribute__((noinline)) static void groups##W##_##B(const char *x, uint64_t cnt, uint64_t n, \
                                                          keying kg, __m256i tie, int64_t *o)      \
    {                                                                                              \
        const uint64_t step = 32 * n, per = 256 / W;                                               \
        switch (n) {                                                                               \
        case 3:                                                                                    \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W##_##B(x + g * step, 3, kg, tie, o + g * per);                             \
            break;                                                                                 \
        case 5:                                                                                    \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W##_##B(x + g * step, 5, kg, tie, o + g * per);                             \
            break;                                                                                 \
        case 6:                                                                                    \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W##_##B(x + g * step, 6, kg, tie, o + g * per);                             \
            break;                                                                                 \
        case 7:                                                                                    \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W##_##B(x + g * step, 7, kg, tie, o + g * per);                             \
            break;                                                                                 \
        default:                                                                                   \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W##_##B(x + g * step, n, kg, tie, o + g * per);                             \
            break;                                                                                 \
        }                                                                                          \
    }
GROUPS_FN(16, 8) /* two-byte [B, n, 2] */
GROUPS_FN(8, 8)  /* one-byte [B, n, 4] */
GROUPS_FN(32, 4) /* four-byte [B, n, 2] */
GROUPS_FN(16, 4) /* two-byte [B, n, 4] */
GROUPS_FN(8, 4)  /* one-byte [B, n, 8] */

typedef void (*groups_fn)(const char *x, uint64_t cnt, uint64_t n, keying kg, __m256i tie,
                          int64_t *o);

static keying keying_of(const clmax_problem *p)
{
    keying kg = {0, 0, 0, 0};
    switch (p->type) {
    case CLMAX_TYPE_FLOAT16:
    case CLMAX_TYPE_BFLOAT16:
    case CLMAX_TYPE_FLOAT32:
        kg.floating = 1;
        kg.inf = p->type == CLMAX_TYPE_FLOAT16    ? 0x7C00u
                 : p->type == CLMAX_TYPE_BFLOAT16 ? 0x7F80u
                                                  : 0x7F800000u;
        kg.m = p->min ? 0xFFFFFFFFu : 0;
        break;
    case CLMAX_TYPE_UINT8: /* unsigned: the sign flipped; ArgMin: all but it */
    case CLMAX_TYPE_UINT16:
    case CLMAX_TYPE_UINT32: {
        const uint32_t sign = 1u << (8 * p->esize - 1);
        kg.x = p->min ? sign - 1 : sign;
        break;
    }
    default: /* signed: as they are; ArgMin: all bits flipped */
        kg.x = p->min ? 0xFFFFFFFFu : 0;
        break;
    }
    return kg;
}

void clmax_cpu_transposed(const clmax_problem *p, const void *xv, uint64_t slices, uint64_t left,
                          int stream, int64_t *out)
{
    const char *x = xv;
    const keying kg = keying_of(p);
    const __m256i tie = _mm256_set1_epi32(p->last ? -1 : 0);
    const uint64_t rb = p->esize * p->inner, b = 32 / rb; /* row bytes; slices a group */
    const groups_fn fn = rb == 4         ? (p->esize == 2 ? groups16_8 : groups8_8)
                         : p->esize == 4 ? groups32_4
                         : p->esize == 2 ? groups16_4
                                         : groups8_4;
    const uint64_t n = p->n, group = 32 * n, per = b * p->inner;
    const uint64_t reach =
        rb * ((b - 1) * n + (n > b ? n : b)); /* the bytes a group's loads span */
    /* Groups whose loads stay inside the input; the rest from a padded copy. */
    uint64_t safe = left >= reach ? (left - reach) / group + 1 : 0;
    if (safe > slices / b) safe = slices / b;
    int64_t buf[CHUNK * 32];
    for (uint64_t g0 = 0; g0 < safe; g0 += CHUNK) {
        const uint64_t cnt = safe - g0 < CHUNK ? safe - g0 : CHUNK;
        fn(x + g0 * group, cnt, n, kg, tie, buf);
        clmax_cpu_put(out + g0 * per, buf, cnt * per, stream);
    }
    for (uint64_t s0 = safe * b; s0 < slices; s0 += b) {
        const uint64_t cnt = slices - s0 < b ? slices - s0 : b;
        _Alignas(32) char pad[PAD_BYTES];
        memset(pad, 0, (size_t)reach);
        memcpy(pad, x + s0 * rb * n, (size_t)(cnt * rb * n));
        fn(pad, 1, n, kg, tie, buf);
        clmax_cpu_put(out + s0 * p->inner, buf, cnt * p->inner, stream);
    }
}

#pragma GCC pop_options

/* Compiled for any x86-64: asked before the AVX2 code runs. */
static int cpu_has_avx2(void)
{
    static atomic_int known; /* 0: not asked yet, 1: no, 2: yes */
    int k = atomic_load(&known);
    if (k == 0) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("avx2") ? 2 : 1;
        atomic_store(&known, k);
    }
    return k == 2;
}

int clmax_cpu_transposed_fits(const clmax_problem *p)
{
    const uint64_t rb = p->esize * p->inner;
    return (rb == 4 || (rb == 8 && p->esize <= 4)) && p->n >= 2 &&
           p->n * rb <= TRANSPOSED_SLICE_MAX && cpu_has_avx2();
}

#else

int clmax_cpu_transposed_fits(const clmax_problem *p)
{
    (void)p;
    return 0;
}

void clmax_cpu_transposed(const clmax_problem *p, const void *x, uint64_t slices, uint64_t left,
                          int stream, int64_t *out)
{
    (void)p, (void)x, (void)slices, (void)left, (void)stream, (void)out;
}

#endif
