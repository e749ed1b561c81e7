/* Short slices [n, inner] of one-byte elements whose lanes are whole 16-byte vectors (inner 16 to
 * 64): a row's 16 lanes widened to 16-bit words key << 8 | row (first index: 255 - row), maxed
 * down the slice's rows, so that each word ends as its lane's winner under the tie rule; no fold
 * across positions, as a vector position is one lane. About five operations a 16 bytes and a few
 * a lane for the indices, where the stream of vectors (cpu_streamlanes.c, slices from 256 bytes)
 * folds every slice's 32 positions, and the stacked rows (cpu_stacked.c) took the shorter ones:
 * uint8 [B, 7..21, 16] ran at 0.41-0.58 of the limit there, PoCL's vector of lanes down the rows
 * at 0.68. */
#include "cpu_lanevecs.h"

#include "cpu_features.h"
#include "cpu_short.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#define CHUNK 64 /* slices whose winners go through the buffer at a time */
#define VECS_MAX 4

#pragma GCC push_options
#pragma GCC target("avx2")

/* The words of the 16 bytes at x: (key << 8) | row, row the packed row number. */
static inline __attribute__((always_inline)) __m256i word(const char *x, __m128i flip, __m256i row)
{
    const __m128i k = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)x), flip);
    return _mm256_or_si256(_mm256_slli_epi16(_mm256_cvtepu8_epi16(k), 8), row);
}

/* The 16 winners of best (rows packed as ^ rx) as int64 indices at o. */
static inline __attribute__((always_inline)) void indices(__m256i best, __m256i rx, int64_t *o)
{
    const __m256i r = _mm256_and_si256(_mm256_xor_si256(best, rx), _mm256_set1_epi16(0xFF));
    const __m128i lo = _mm256_castsi256_si128(r), hi = _mm256_extracti128_si256(r, 1);
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_cvtepu16_epi64(lo));
    _mm256_storeu_si256((__m256i *)(void *)(o + 4), _mm256_cvtepu16_epi64(_mm_srli_si128(lo, 8)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 8), _mm256_cvtepu16_epi64(hi));
    _mm256_storeu_si256((__m256i *)(void *)(o + 12), _mm256_cvtepu16_epi64(_mm_srli_si128(hi, 8)));
}

/* One slice of nv vectors a row (NV: nv as a constant, or 0 where it is not). */
static inline __attribute__((always_inline)) void
slice(const char *x, unsigned n, unsigned nv, unsigned NV, __m128i flip, int last, int64_t *o)
{
    const unsigned vecs = NV ? NV : nv, inner = 16 * vecs;
    /* row r packs as r (the last index wins ties) or 255 - r (the first): rx ^ r */
    const __m256i rx = _mm256_set1_epi16(last ? 0 : 0xFF), one = _mm256_set1_epi16(last ? 1 : -1);
    __m256i best[VECS_MAX], row = rx;
    for (unsigned v = 0; v < vecs; v++)
        best[v] = word(x + 16 * v, flip, row);
    for (unsigned r = 1; r < n; r++) {
        row = _mm256_add_epi16(row, one);
        const char *xr = x + (uint64_t)r * inner;
        for (unsigned v = 0; v < vecs; v++)
            best[v] = _mm256_max_epu16(best[v], word(xr + 16 * v, flip, row));
    }
    for (unsigned v = 0; v < vecs; v++)
        indices(best[v], rx, o + 16 * v);
}

#define SLICES_FN(name, NV, last)                                                                  \
    static void name(const char *x, uint64_t slices, unsigned n, unsigned nv, __m128i flip,        \
                     int stream, int64_t *out)                                                     \
    {                                                                                              \
        const unsigned inner = 16 * (NV ? NV : nv);                                                \
        const uint64_t bytes = (uint64_t)n * inner;                                                \
        int64_t buf[CHUNK * 16 * VECS_MAX];                                                        \
        uintptr_t pf = clmax_cpu_pf_start(x);                                                      \
        const uint64_t chunk = stream ? CLMAX_PUT_STREAMED(CHUNK) : CHUNK;                         \
        for (uint64_t s0 = 0; s0 < slices; s0 += chunk) {                                          \
            const uint64_t cnt = slices - s0 < chunk ? slices - s0 : chunk;                        \
            for (uint64_t i = 0; i < cnt; i++) {                                                   \
                const char *xs = x + (s0 + i) * bytes;                                             \
                clmax_cpu_pf(&pf, xs + bytes);                                                     \
                slice(xs, n, nv, NV, flip, last, buf + i * inner);                                 \
            }                                                                                      \
            clmax_cpu_put(out + s0 * inner, buf, cnt * inner, stream);                             \
        }                                                                                          \
    }
SLICES_FN(slices16_first, 1, 0)
SLICES_FN(slices16_last, 1, 1)
SLICES_FN(slices_first, 0, 0)
SLICES_FN(slices_last, 0, 1)

void clmax_cpu_lanevecs(const clmax_problem *p, const void *x, uint64_t slices, int stream,
                        int64_t *out)
{
    /* keys: unsigned order, int8's sign flipped; ArgMin: every bit flipped too */
    const int f = (p->type == CLMAX_TYPE_INT8 ? 0x80 : 0) ^ (p->min ? 0xFF : 0);
    const __m128i flip = _mm_set1_epi8((char)f);
    const unsigned nv = (unsigned)(p->inner / 16), n = (unsigned)p->n;
    if (nv == 1)
        (p->last ? slices16_last : slices16_first)(x, slices, n, 1, flip, stream, out);
    else
        (p->last ? slices_last : slices_first)(x, slices, n, nv, flip, stream, out);
}

#pragma GCC pop_options

int clmax_cpu_lanevecs_fits(const clmax_problem *p)
{
    return p->esize == 1 && p->inner % 16 == 0 && p->inner / 16 >= 1 && p->inner / 16 <= VECS_MAX &&
           p->n >= 2 && p->n <= LANEVECS_N_MAX && clmax_cpu_has(CLMAX_CPU_AVX2);
}

#else

int clmax_cpu_lanevecs_fits(const clmax_problem *p)
{
    (void)p;
    return 0;
}

void clmax_cpu_lanevecs(const clmax_problem *p, const void *x, uint64_t slices, int stream,
                        int64_t *out)
{
    (void)p, (void)x, (void)slices, (void)stream, (void)out;
}

#endif
