/* ArgMax and ArgMin on the CPU path of slices whose row is one 32-bit word: float16, bfloat16,
 * int16 and uint16 [B, n, 2], uint8 and int8 [B, n, 4]. Eight slices at a time: a vector of eight
 * row words is loaded from each slice (rows kb to kb + 7), an 8 x 8 transpose of the words makes
 * them eight vectors each holding one row of all eight slices, and each such row vector goes
 * through the keys and a running best and row index, lane by lane (a lane: one element of one
 * slice). The indices come out in the output's order (slice, lane): widened to int64 and put out
 * through a buffer (clmax_cpu_put).
 *
 * Why: GCC vectorises such slices across slices only for 2, 4 or 8 rows (cpu_interleaved.c);
 * the others were dealt into rows (cpu_deal.c), each element moved on its own, then searched:
 * float16 [B, 3..32, 2] ran at 0.26-0.50 of the limit, uint8 [B, 21..1024, 4] at 0.29-0.43.
 * In turns with those (3 rounds, clmax-bench --sweep --size=128 --backend=cpu, ratio of the
 * limit): float16 [B, 4, 2] 0.87 -> 1.13, [B, 12, 2] 0.48 -> 0.87, [B, 32, 2] 0.49 -> 0.74,
 * [B, 64, 2] 0.44 -> 0.55; uint8 [B, 2, 4] 0.35 -> 0.89, [B, 8, 4] 0.54 -> 1.05, [B, 32, 4]
 * 0.33 -> 0.75, [B, 64, 4] 0.38 -> 0.52. Past 64 rows it lost (float16 [B, 80..1024, 2]
 * x0.40-0.82, uint8 [B, 100..255, 4] x0.55-0.95): eight slices' rows far apart at once.
 *
 * Loads read up to 8 words from a slice's row kb, so that past its last row they read into the
 * next slice (those words feed transposed rows no one uses); a group whose loads would pass the
 * input's end runs from a padded copy. Past 8 rows, the last block of 8 starts at n - 8 and its
 * rows already seen are skipped, so each row is taken once and in order, as the tie rules need. */
#include "cpu_transposed.h"

#include "cpu_short.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#define GROUP 8  /* slices a group: a row word of each in a vector */
#define CHUNK 64 /* groups whose winners go through the buffer at a time */
#define PAD_BYTES (4 * GROUP * TRANSPOSED_N_MAX) /* a group's loads' span, at most */

#pragma GCC push_options
#pragma GCC target("avx2")

typedef uint8_t vu8 __attribute__((vector_size(32)));
typedef int8_t vs8 __attribute__((vector_size(32)));
typedef uint16_t vu16 __attribute__((vector_size(32)));
typedef int16_t vs16 __attribute__((vector_size(32)));

/* How a row vector's elements become signed keys whose order is the contract's (keys.h's keys
 * with the sign bit flipped, for AVX2's signed compares): floats through the float map, with
 * inf the infinity's bits, and for ArgMin (m all ones) the order reversed but NaN kept largest;
 * integers by one xor (x) that does all of that. */
typedef struct keying {
    int floating;
    uint16_t inf, m, x;
} keying;

static inline __attribute__((always_inline)) __m256i key16(__m256i r, keying kg)
{
    const vu16 u = (vu16)r;
    if (!kg.floating) return (__m256i)(u ^ kg.x);
    const vu16 a = u & 0x7FFF;
    const vu16 v = u & (vu16)(a != 0);
    vu16 k = v ^ ((vu16)((vs16)v >> 15) | 0x8000);
    k |= (vu16)((vs16)a > (int16_t)kg.inf);
    k = (k ^ kg.m) | (kg.m & (vu16)(k == 0xFFFF));
    return (__m256i)(k ^ 0x8000);
}

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

/* The row indices of one group's winners (`at`, one element a lane) as int64 into o. */
static inline __attribute__((always_inline)) void out16(__m256i at, int64_t *o)
{
    const __m128i lo = _mm256_castsi256_si128(at), hi = _mm256_extracti128_si256(at, 1);
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_cvtepu16_epi64(lo));
    _mm256_storeu_si256((__m256i *)(void *)(o + 4), _mm256_cvtepu16_epi64(_mm_srli_si128(lo, 8)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 8), _mm256_cvtepu16_epi64(hi));
    _mm256_storeu_si256((__m256i *)(void *)(o + 12), _mm256_cvtepu16_epi64(_mm_srli_si128(hi, 8)));
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

static inline __attribute__((always_inline)) __m256i set1_16(uint64_t k)
{
    return _mm256_set1_epi16((short)k);
}
static inline __attribute__((always_inline)) __m256i set1_8(uint64_t k)
{
    return _mm256_set1_epi8((char)k);
}

/* One group of 8 slices of n rows from x (bytes; every load inside the input) into o, for one lane
 * width (W bits): keys by key##W, the running best by the signed max, the row index where a row's
 * key is larger (or equal, with tie all ones: the last index rule). n a constant where the caller
 * can make it one, so that the rows' loop unrolls and the transposed rows stay in registers. */
#define GROUP_FN(W)                                                                                \
    static inline __attribute__((always_inline)) void group##W(const char *x, uint64_t n,          \
                                                               keying kg, __m256i tie, int64_t *o) \
    {                                                                                              \
        __m256i best = _mm256_setzero_si256(), at = best;                                          \
        for (uint64_t k0 = 0; k0 < n; k0 += 8) {                                                   \
            const uint64_t kb = n >= 8 && k0 + 8 > n ? n - 8 : k0;                                 \
            __m256i r[8];                                                                          \
            for (int s = 0; s < 8; s++)                                                            \
                r[s] = _mm256_loadu_si256((const __m256i *)(const void *)(x + 4 * (s * n + kb)));  \
            transpose8(r);                                                                         \
            for (uint64_t j = k0 - kb; j < 8 && kb + j < n; j++) {                                 \
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
GROUP_FN(16)
GROUP_FN(8)

/* cnt groups from x into o: for n of 3 to 8 with n a constant. */
#define GROUPS_FN(W)                                                                               \
    __attribute__((noinline)) static void groups##W(const char *x, uint64_t cnt, uint64_t n,       \
                                                    keying kg, __m256i tie, int64_t *o)            \
    {                                                                                              \
        const uint64_t step = 32 * n, per = 256 / W;                                               \
        switch (n) {                                                                               \
        case 3:                                                                                    \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W(x + g * step, 3, kg, tie, o + g * per);                                   \
            break;                                                                                 \
        case 5:                                                                                    \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W(x + g * step, 5, kg, tie, o + g * per);                                   \
            break;                                                                                 \
        case 6:                                                                                    \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W(x + g * step, 6, kg, tie, o + g * per);                                   \
            break;                                                                                 \
        case 7:                                                                                    \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W(x + g * step, 7, kg, tie, o + g * per);                                   \
            break;                                                                                 \
        default:                                                                                   \
            for (uint64_t g = 0; g < cnt; g++)                                                     \
                group##W(x + g * step, n, kg, tie, o + g * per);                                   \
            break;                                                                                 \
        }                                                                                          \
    }
GROUPS_FN(16)
GROUPS_FN(8)

static keying keying_of(const clmax_problem *p)
{
    keying kg = {0, 0, 0, 0};
    switch (p->type) {
    case CLMAX_TYPE_FLOAT16:
    case CLMAX_TYPE_BFLOAT16:
        kg.floating = 1;
        kg.inf = p->type == CLMAX_TYPE_FLOAT16 ? 0x7C00u : 0x7F80u;
        kg.m = p->min ? 0xFFFFu : 0;
        break;
    case CLMAX_TYPE_UINT16: /* unsigned: the sign flipped; ArgMin: all but it */
        kg.x = p->min ? 0x7FFFu : 0x8000u;
        break;
    case CLMAX_TYPE_INT16:
        kg.x = p->min ? 0xFFFFu : 0;
        break;
    case CLMAX_TYPE_UINT8:
        kg.x = p->min ? 0x7Fu : 0x80u;
        break;
    default: /* int8 */
        kg.x = p->min ? 0xFFu : 0;
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
    const uint64_t n = p->n, slice = 4 * n, per = GROUP * p->inner;
    const uint64_t reach = 4 * (7 * n + (n > 8 ? n : 8)); /* the bytes a group's loads span */
    /* Groups whose loads stay inside the input; the rest from a padded copy. */
    uint64_t safe = left >= reach ? (left - reach) / (GROUP * slice) + 1 : 0;
    if (safe > slices / GROUP) safe = slices / GROUP;
    int64_t buf[CHUNK * 32];
    for (uint64_t g0 = 0; g0 < safe; g0 += CHUNK) {
        const uint64_t cnt = safe - g0 < CHUNK ? safe - g0 : CHUNK;
        if (p->esize == 2)
            groups16(x + g0 * GROUP * slice, cnt, n, kg, tie, buf);
        else
            groups8(x + g0 * GROUP * slice, cnt, n, kg, tie, buf);
        clmax_cpu_put(out + g0 * per, buf, cnt * per, stream);
    }
    for (uint64_t s0 = safe * GROUP; s0 < slices; s0 += GROUP) {
        const uint64_t cnt = slices - s0 < GROUP ? slices - s0 : GROUP;
        _Alignas(32) char pad[PAD_BYTES];
        memset(pad, 0, (size_t)reach);
        memcpy(pad, x + s0 * slice, (size_t)(cnt * slice));
        if (p->esize == 2)
            groups16(pad, 1, n, kg, tie, buf);
        else
            groups8(pad, 1, n, kg, tie, buf);
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
    return p->esize * p->inner == 4 && p->n >= 2 && p->n <= TRANSPOSED_N_MAX &&
           cpu_has_avx2();
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
