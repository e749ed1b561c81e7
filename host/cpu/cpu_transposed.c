/* ArgMax and ArgMin on the CPU path of slices of short rows: a row of 32 bits (two-byte types
 * [B, n, 2], one-byte [B, n, 4]) or of 64 (four-byte [B, n, 2], two-byte [B, n, 4], one-byte
 * [B, n, 8]) or of 128 (eight-byte [B, n, 2], four-byte [B, n, 4], two-byte [B, n, 8]) is one
 * word; shorter rows are spread into words of 32 bits (one-byte [B, n, 2..3]), 64 (one-byte
 * [B, n, 5..7], two-byte [B, n, 3]) or 128 (four-byte [B, n, 3], two-byte [B, n, 5..7]) with
 * zero bytes after each row (rows of 12 and 14 bytes: the next row's bytes, no shuffle), lanes
 * whose winners are dropped. A group of b slices at a time (b = 8, 4 or 2: a vector's 32 bytes
 * over the word's): a vector of b row words is loaded from each slice (rows kb to kb + b - 1), a
 * b x b transpose of the words makes them b vectors each holding one row of all b slices, and each
 * such row vector goes through the keys and a running best and row index, lane by lane (a lane:
 * one element of one slice). The indices come out in the output's order (slice, lane): widened to
 * int64 and put out through a buffer (clmax_cpu_put).
 *
 * Why: GCC vectorises such slices across slices only for 2, 4 or 8 rows (cpu_interleaved.c); the
 * others were dealt into rows (cpu_deal.c), each element moved on its own, then searched, or
 * packed, stacked or tiled. In turns with those, the first shapes here ran x1.2-2.5 (float16
 * [B, 12, 2] 0.48 -> 0.87 of the limit, uint8 [B, 32, 7] 0.39 -> 0.90); the figures of each kind
 * and of the bounds (TRANSPOSED_SLICE_MAX, TRANSPOSED_4X4_N_MAX, TRANSPOSED_12_N_MAX) are in
 * docs/TUNING.md. A row costs one compare whichever the tie rule (the last index rule keeps the
 * best where it is larger, instead of an equality test beside the compare) and the best is the max
 * where AVX2 has one.
 *
 * Loads read b words from a slice's row kb, so that past its last row they read into the next
 * slice (those words feed transposed rows no one uses); a group whose loads would pass the input's
 * end runs from a padded copy. Past b rows, the last block starts at n - b and its rows already
 * seen are skipped, so that each row is taken once, in order. */
#include "cpu_transposed.h"

#include "cpu_features.h"
#include "cpu_short.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#include "cpu_vec.h"

#define CHUNK 64 /* groups whose winners go through the buffer at a time */
#define PAD_BYTES (8 * TRANSPOSED_SLICE_MAX + 64) /* a group's loads' span, at most */
_Static_assert(2 * 16 * TRANSPOSED_4X4_N_MAX <= PAD_BYTES, "a pair of [n, 4] slices fits the pad");

#pragma GCC push_options
#pragma GCC target("avx2")

/* How a row vector's elements become signed keys whose order is the contract's: floats as the
 * two's complement of their sign and magnitude (+0 and -0 both 0), negated for ArgMin (m all
 * ones), and every NaN the largest key whatever its sign (above inf's magnitude, `inf`);
 * integers by one xor (x) that flips unsigned ones' sign bit (and, for ArgMin, the rest). */
typedef struct keying {
    int floating;
    uint64_t inf, m, x;
} keying;

/* The keys of elements of W bits (T unsigned, ST signed); floats' signed (cpu_vec.h), for AVX2's
 * signed compares. */
#define KEY_FN(W, VU, VS, T, ST)                                                                   \
    static inline __attribute__((always_inline)) __m256i key##W(__m256i r, keying kg)              \
    {                                                                                              \
        const VU u = (VU)r;                                                                        \
        if (!kg.floating) return (__m256i)(u ^ (T)kg.x);                                           \
        return (__m256i)CLMAX_VFLOAT_SKEY(VU, VS, T, ST, u, (ST)kg.inf, (ST)kg.m);                 \
    }
KEY_FN(16, vu16, vs16, uint16_t, int16_t)
KEY_FN(32, vu32, vs32, uint32_t, int32_t)
KEY_FN(64, vu64, vs64, uint64_t, int64_t)

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

/* r[j] = the halves j of r[0..1]: a 2 x 2 transpose of 128-bit words. */
static inline __attribute__((always_inline)) void transpose2(__m256i *r)
{
    const __m256i t = _mm256_permute2x128_si256(r[0], r[1], 0x20);
    r[1] = _mm256_permute2x128_si256(r[0], r[1], 0x31);
    r[0] = t;
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

static inline __attribute__((always_inline)) void out64(__m256i at, int64_t *o)
{
    _mm256_storeu_si256((__m256i *)(void *)o, at);
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

/* The larger of a and b by key, where gt is b > a: the max where AVX2 has one (a shorter chain
 * than the blend, which waits for the compare), else the blend. */
static inline __attribute__((always_inline)) __m256i vmax8(__m256i a, __m256i b, __m256i gt)
{
    (void)gt;
    return _mm256_max_epi8(a, b);
}
static inline __attribute__((always_inline)) __m256i vmax16(__m256i a, __m256i b, __m256i gt)
{
    (void)gt;
    return _mm256_max_epi16(a, b);
}
static inline __attribute__((always_inline)) __m256i vmax32(__m256i a, __m256i b, __m256i gt)
{
    (void)gt;
    return _mm256_max_epi32(a, b);
}
static inline __attribute__((always_inline)) __m256i vmax64(__m256i a, __m256i b, __m256i gt)
{
    return _mm256_blendv_epi8(a, b, gt);
}

static inline __attribute__((always_inline)) __m256i set1_64(uint64_t k)
{
    return _mm256_set1_epi64x((long long)k);
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

/* The row words of one slice from x: rows of RB bytes as B words of 32 / B bytes. load_plain:
 * RB = 32 / B. load_spread for shorter rows (2 or 3 bytes as words of 4, 5 to 7 as words of 8):
 * each 128-bit half from its own 16-byte load, its rows spread by a byte shuffle with zero bytes
 * after each row (lanes whose winners are dropped); the second load ends SPREAD_PAST(RB, B)
 * bytes past the rows. */
#define SPREAD_PAST(rb, b) (16 - (b) / 2 * (rb))
static inline __attribute__((always_inline)) __m256i load_plain(const char *x, int rb, int b)
{
    (void)rb, (void)b;
    return _mm256_loadu_si256((const __m256i *)(const void *)x);
}
static inline __attribute__((always_inline)) __m256i load_spread(const char *x, int rb, int b)
{
    const int wb = 32 / b, half = b / 2; /* bytes a word; rows a half */
    _Alignas(32) char spread[32];
    for (int i = 0; i < 32; i++) {
        const int r = i % 16 / wb, c = i % wb; /* row within the half, its byte */
        spread[i] = (char)(c < rb ? r * rb + c : -1);
    }
    const __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)x);
    const __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(x + half * rb));
    return _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1),
                               _mm256_load_si256((const __m256i *)(const void *)spread));
}

/* Rows of 12 or 14 bytes as 16-byte words without the spread's shuffle: the bytes past a row are
 * the next row's, in lanes whose winners are dropped. Against load_spread (3 rounds, 128 MiB):
 * float16 [B, 3..12, 6..7] x1.02-1.09, float32 [B, 3..12, 3] x1.03-1.05. */
static inline __attribute__((always_inline)) __m256i load_pair(const char *x, int rb, int b)
{
    (void)b;
    const __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)x);
    const __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(x + rb));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

/* One group of B slices of n rows from x (bytes; every load inside the input) into o: rows of RB
 * bytes read by LOAD as words of 32 / B bytes, B of them a block, transposed by transpose##B;
 * lanes of W bits, keyed by key##W; the row index taken where a row's key is larger (or, LAST a
 * constant 1, not smaller: the last index rule), one compare either way, and the running best by
 * vmax##W; KEEP lanes of each slice's 256 / W / B go out. n a constant where the caller can make
 * it one, so that the rows' loop unrolls and the transposed rows stay in registers. */
#define GROUP_FN(NAME, W, B, RB, LOAD, KEEP)                                                       \
    static inline __attribute__((always_inline)) void group_##NAME(                                \
        const char *x, uint64_t n, keying kg, const int last, int64_t *o)                          \
    {                                                                                              \
        __m256i best = _mm256_setzero_si256(), at = best;                                          \
        for (uint64_t k0 = 0; k0 < n; k0 += B) {                                                   \
            const uint64_t kb = n >= B && k0 + B > n ? n - B : k0;                                 \
            __m256i r[B];                                                                          \
            for (int s = 0; s < B; s++)                                                            \
                r[s] = LOAD(x + RB * (s * n + kb), RB, B);                                         \
            transpose##B(r);                                                                       \
            for (uint64_t j = k0 - kb; j < B && kb + j < n; j++) {                                 \
                const __m256i key = key##W(r[j], kg);                                              \
                if (kb + j == 0) {                                                                 \
                    best = key;                                                                    \
                    continue;                                                                      \
                }                                                                                  \
                const __m256i row = set1_##W(kb + j);                                              \
                if (last) {                                                                        \
                    const __m256i keep = _mm256_cmpgt_epi##W(best, key);                           \
                    best = vmax##W(key, best, keep);                                               \
                    at = _mm256_blendv_epi8(row, at, keep);                                        \
                } else {                                                                           \
                    const __m256i up = _mm256_cmpgt_epi##W(key, best);                             \
                    best = vmax##W(best, key, up);                                                 \
                    at = _mm256_blendv_epi8(at, row, up);                                          \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (KEEP == 256 / W / B) {                                                                 \
            out##W(at, o);                                                                         \
            return;                                                                                \
        }                                                                                          \
        int64_t all[256 / W]; /* the dropped lane of each slice left out */                        \
        out##W(at, all);                                                                           \
        for (int s = 0; s < B; s++)                                                                \
            for (int l = 0; l < KEEP; l++)                                                         \
                o[s * KEEP + l] = all[s * (256 / W / B) + l];                                      \
    }

/* cnt groups from x into o (a group: RB * B * n bytes in, B * KEEP winners out), with n a
 * constant for 3, 5, 6, 7, 12 and 16 rows, and the tie rule a constant; the prefetch cursor moved
 * a group ahead (cpu_short.h). 12 and 16 constant, against the loop's n (3 rounds, 128 MiB):
 * float32 [B, 12, 3..4] x1.12-1.20, [B, 16, 2] x1.17, uint8 [B, 12..16, 2..7] x1.03-1.14, float16
 * [B, 12..16, 3..4] x0.99-1.10 (the transposed rows kept in registers, not on the stack); 21 rows
 * x0.93-1.15, left to the loop. */
#define GROUPS_LOOP(NAME, N, LAST)                                                                 \
    for (uint64_t g = 0; g < cnt; g++) {                                                           \
        clmax_cpu_pf(&pf, x + (g + 1) * step);                                                     \
        group_##NAME(x + g * step, N, kg, LAST, o + g * per);                                      \
    }
#define GROUPS_N(NAME, LAST)                                                                       \
    switch (n) {                                                                                   \
    case 3:                                                                                        \
        GROUPS_LOOP(NAME, 3, LAST) break;                                                          \
    case 5:                                                                                        \
        GROUPS_LOOP(NAME, 5, LAST) break;                                                          \
    case 6:                                                                                        \
        GROUPS_LOOP(NAME, 6, LAST) break;                                                          \
    case 7:                                                                                        \
        GROUPS_LOOP(NAME, 7, LAST) break;                                                          \
    case 12:                                                                                       \
        GROUPS_LOOP(NAME, 12, LAST) break;                                                         \
    case 16:                                                                                       \
        GROUPS_LOOP(NAME, 16, LAST) break;                                                         \
    default:                                                                                       \
        GROUPS_LOOP(NAME, n, LAST) break;                                                          \
    }
#define GROUPS_FN(NAME, W, B, RB, LOAD, KEEP)                                                      \
    GROUP_FN(NAME, W, B, RB, LOAD, KEEP)                                                           \
    __attribute__((noinline)) static void groups_##NAME(const char *x, uint64_t cnt, uint64_t n,   \
                                                        keying kg, int last, int64_t *o)           \
    {                                                                                              \
        const uint64_t step = RB * B * n, per = B * KEEP;                                          \
        uintptr_t pf = clmax_cpu_pf_start(x);                                                      \
        if (last) {                                                                                \
            GROUPS_N(NAME, 1)                                                                      \
        } else {                                                                                   \
            GROUPS_N(NAME, 0)                                                                      \
        }                                                                                          \
    }
GROUPS_FN(2x2, 16, 8, 4, load_plain, 2)   /* two-byte [B, n, 2] */
GROUPS_FN(1x4, 8, 8, 4, load_plain, 4)    /* one-byte [B, n, 4] */
GROUPS_FN(4x2, 32, 4, 8, load_plain, 2)   /* four-byte [B, n, 2] */
GROUPS_FN(8x2, 64, 2, 16, load_plain, 2)  /* eight-byte [B, n, 2] */
GROUPS_FN(4x4, 32, 2, 16, load_plain, 4)  /* four-byte [B, n, 4] */
GROUPS_FN(2x8, 16, 2, 16, load_plain, 8)  /* two-byte [B, n, 8] */
GROUPS_FN(2x4, 16, 4, 8, load_plain, 4)   /* two-byte [B, n, 4] */
GROUPS_FN(1x8, 8, 4, 8, load_plain, 8)    /* one-byte [B, n, 8] */
GROUPS_FN(1x2, 8, 8, 2, load_spread, 2)   /* one-byte [B, n, 2] */
GROUPS_FN(1x3, 8, 8, 3, load_spread, 3)   /* one-byte [B, n, 3] */
GROUPS_FN(1x5, 8, 4, 5, load_spread, 5)   /* one-byte [B, n, 5] */
GROUPS_FN(1x6, 8, 4, 6, load_spread, 6)   /* one-byte [B, n, 6] */
GROUPS_FN(1x7, 8, 4, 7, load_spread, 7)   /* one-byte [B, n, 7] */
GROUPS_FN(2x3, 16, 4, 6, load_spread, 3)  /* two-byte [B, n, 3] */
GROUPS_FN(4x3, 32, 2, 12, load_pair, 3)   /* four-byte [B, n, 3] */
GROUPS_FN(2x5, 16, 2, 10, load_spread, 5) /* two-byte [B, n, 5] */
GROUPS_FN(2x6, 16, 2, 12, load_pair, 6)   /* two-byte [B, n, 6] */
GROUPS_FN(2x7, 16, 2, 14, load_pair, 7)   /* two-byte [B, n, 7] */

typedef void (*groups_fn)(const char *x, uint64_t cnt, uint64_t n, keying kg, int last, int64_t *o);

static keying keying_of(const clmax_problem *p)
{
    keying kg = {0, 0, 0, 0};
    switch (p->type) {
    case CLMAX_TYPE_FLOAT16:
    case CLMAX_TYPE_BFLOAT16:
    case CLMAX_TYPE_FLOAT32:
    case CLMAX_TYPE_FLOAT64:
        kg.floating = 1;
        kg.inf = p->type == CLMAX_TYPE_FLOAT16    ? 0x7C00u
                 : p->type == CLMAX_TYPE_BFLOAT16 ? 0x7F80u
                 : p->type == CLMAX_TYPE_FLOAT32  ? 0x7F800000u
                                                  : 0x7FF0000000000000ull;
        kg.m = p->min ? ~0ull : 0;
        break;
    case CLMAX_TYPE_UINT8: /* unsigned: the sign flipped; ArgMin: all but it */
    case CLMAX_TYPE_UINT16:
    case CLMAX_TYPE_UINT32:
    case CLMAX_TYPE_UINT64: {
        const uint64_t sign = 1ull << (8 * p->esize - 1);
        kg.x = p->min ? sign - 1 : sign;
        break;
    }
    default: /* signed: as they are; ArgMin: all bits flipped */
        kg.x = p->min ? ~0ull : 0;
        break;
    }
    return kg;
}

/* The groups code of each element size (1, 2, 4 and 8 bytes) and lane count (2 to 8), NULL where
 * there is none: the shapes this file takes. */
static const groups_fn groups_by_shape[4][9] = {
    {[2] = groups_1x2, groups_1x3, groups_1x4, groups_1x5, groups_1x6, groups_1x7, groups_1x8},
    {[2] = groups_2x2, groups_2x3, groups_2x4, groups_2x5, groups_2x6, groups_2x7, groups_2x8},
    {[2] = groups_4x2, groups_4x3, groups_4x4},
    {[2] = groups_8x2},
};

/* p's groups code, or NULL where this file has none. */
static groups_fn groups_of(const clmax_problem *p)
{
    const int size = p->esize == 1   ? 0
                     : p->esize == 2 ? 1
                     : p->esize == 4 ? 2
                     : p->esize == 8 ? 3
                                     : -1;
    return size >= 0 && p->inner <= 8 ? groups_by_shape[size][p->inner] : NULL;
}

void clmax_cpu_transposed(const clmax_problem *p, const void *xv, uint64_t slices, uint64_t left,
                          int stream, int64_t *out)
{
    const char *x = xv;
    const keying kg = keying_of(p);
    const uint64_t rb = p->esize * p->inner, b = rb <= 4   ? 8
                                                 : rb <= 8 ? 4
                                                           : 2; /* row bytes; slices a group */
    const groups_fn fn = groups_of(p);
    const uint64_t n = p->n, group = rb * n * b, per = b * p->inner;
    /* the bytes a group's loads span: to row b - 1 of the last slice, or its end; the spread
     * loads more */
    const uint64_t reach =
        rb * ((b - 1) * n + (n > b ? n : b)) + (rb == 32 / b ? 0 : (uint64_t)SPREAD_PAST(rb, b));
    /* Groups whose loads stay inside the input; the rest from a padded copy. */
    uint64_t safe = left >= reach ? (left - reach) / group + 1 : 0;
    if (safe > slices / b) safe = slices / b;
    int64_t buf[CHUNK * 32];
    const uint64_t chunk = stream ? CLMAX_PUT_STREAMED(CHUNK) : CHUNK;
    for (uint64_t g0 = 0; g0 < safe; g0 += chunk) {
        const uint64_t cnt = safe - g0 < chunk ? safe - g0 : chunk;
        fn(x + g0 * group, cnt, n, kg, p->last, buf);
        clmax_cpu_put(out + g0 * per, buf, cnt * per, stream);
    }
    for (uint64_t s0 = safe * b; s0 < slices; s0 += b) {
        const uint64_t cnt = slices - s0 < b ? slices - s0 : b;
        _Alignas(32) char pad[PAD_BYTES];
        memset(pad, 0, (size_t)reach);
        memcpy(pad, x + s0 * rb * n, (size_t)(cnt * rb * n));
        fn(pad, 1, n, kg, p->last, buf);
        clmax_cpu_put(out + s0 * p->inner, buf, cnt * p->inner, stream);
    }
}

#pragma GCC pop_options

int clmax_cpu_transposed_fits(const clmax_problem *p)
{
    const uint64_t in = p->inner;
    if (groups_of(p) == NULL) return 0;
    /* the most rows: a slice's TRANSPOSED_SLICE_MAX bytes, but four-byte rows of 3 and 4 lanes */
    const uint64_t n_max = p->esize == 4 && in == 3   ? TRANSPOSED_12_N_MAX
                           : p->esize == 4 && in == 4 ? TRANSPOSED_4X4_N_MAX
                                                      : TRANSPOSED_SLICE_MAX / (p->esize * in);
    return p->n >= 2 && p->n <= n_max && clmax_cpu_has(CLMAX_CPU_AVX2);
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
