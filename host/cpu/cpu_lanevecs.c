/* Slices [n, inner] of one-byte elements whose lanes are whole 16-byte vectors (inner 16 to 64),
 * short ones, and of 48 and 64 lanes long ones too (cpu_lanevecs.h): a row's 16 lanes widened to
 * 16-bit words key << 8 | row (first index: 255 - row), maxed down the slice's rows, so that each
 * word ends as its lane's winner under the tie rule; no fold across positions, as a vector position
 * is one lane. About five operations a 16 bytes and a few a lane for the indices, where the stream
 * of vectors (cpu_streamlanes.c, slices from 256 bytes) folds every slice's 32 positions, and the
 * stacked rows (cpu_stacked.c) took the shorter ones: uint8 [B, 7..21, 16] ran at 0.41-0.58 of the
 * limit there, PoCL's vector of lanes down the rows at 0.68. Axes past 256 rows (the row in a
 * word's byte) go in stretches of 256. */
#include "cpu_lanevecs.h"

#include "cpu_features.h"
#include "cpu_short.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#define CHUNK 64 /* slices whose winners go through the buffer at a time */
#define VECS_MAX 4
#define STRETCH 256 /* rows a stretch: the row number in a word's low byte */

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

/* The words of a stretch of n rows (at most 256) of one slice of NV vectors a row into best; pf:
 * the prefetch cursor a row moves on, or NULL. */
static inline __attribute__((always_inline)) void stretch(const char *x, unsigned n, unsigned NV,
                                                          __m128i flip, int last, uintptr_t *pf,
                                                          __m256i *best)
{
    const unsigned inner = 16 * NV;
    /* row r packs as r (the last index wins ties) or 255 - r (the first): rx ^ r */
    const __m256i rx = _mm256_set1_epi16(last ? 0 : 0xFF), one = _mm256_set1_epi16(last ? 1 : -1);
    __m256i row = rx;
    for (unsigned v = 0; v < NV; v++)
        best[v] = word(x + 16 * v, flip, row);
    for (unsigned r = 1; r < n; r++) {
        row = _mm256_add_epi16(row, one);
        const char *xr = x + (uint64_t)r * inner;
        if (pf != NULL) clmax_cpu_pf(pf, xr);
        for (unsigned v = 0; v < NV; v++)
            best[v] = _mm256_max_epu16(best[v], word(xr + 16 * v, flip, row));
    }
}

/* One slice. Axes past 256 rows go a stretch of 256 at a time, each stretch's winners merged into
 * running keys and 32-bit indices by key (stretches come in index order: a greater key, or with
 * last an equal one, replaces; the keys start at -1, below every key); pf: NULL, or the prefetch
 * cursor to move on a row at a time, for slices so long that a run of prefetches at their start
 * stalled. */
static inline __attribute__((always_inline)) void
slice(const char *x, unsigned n, unsigned NV, __m128i flip, int last, uintptr_t *pf, int64_t *o)
{
    const unsigned inner = 16 * NV;
    const __m256i rx = _mm256_set1_epi16(last ? 0 : 0xFF);
    __m256i best[VECS_MAX];
    if (n <= STRETCH) {
        stretch(x, n, NV, flip, last, pf, best);
        for (unsigned v = 0; v < NV; v++)
            indices(best[v], rx, o + 16 * v);
        return;
    }
    const __m256i low = _mm256_set1_epi16(0xFF);
    __m256i key[VECS_MAX], idx[VECS_MAX][2];
    for (unsigned v = 0; v < NV; v++)
        key[v] = _mm256_set1_epi16(-1), idx[v][0] = idx[v][1] = _mm256_setzero_si256();
    for (unsigned s0 = 0; s0 < n; s0 += STRETCH) {
        stretch(x + (uint64_t)s0 * inner, n - s0 < STRETCH ? n - s0 : STRETCH, NV, flip, last, pf,
                best);
        const __m256i base = _mm256_set1_epi32((int)s0);
        for (unsigned v = 0; v < NV; v++) {
            const __m256i k = _mm256_srli_epi16(best[v], 8); /* 0 to 255: signed compares */
            const __m256i r = _mm256_and_si256(_mm256_xor_si256(best[v], rx), low);
            const __m256i r0 =
                _mm256_add_epi32(base, _mm256_cvtepu16_epi32(_mm256_castsi256_si128(r)));
            const __m256i r1 =
                _mm256_add_epi32(base, _mm256_cvtepu16_epi32(_mm256_extracti128_si256(r, 1)));
            /* replaces: k > key, or with last not key > k */
            const __m256i m =
                last ? _mm256_xor_si256(_mm256_cmpgt_epi16(key[v], k), _mm256_set1_epi16(-1))
                     : _mm256_cmpgt_epi16(k, key[v]);
            key[v] = _mm256_blendv_epi8(key[v], k, m);
            idx[v][0] =
                _mm256_blendv_epi8(idx[v][0], r0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(m)));
            idx[v][1] = _mm256_blendv_epi8(idx[v][1], r1,
                                           _mm256_cvtepi16_epi32(_mm256_extracti128_si256(m, 1)));
        }
    }
    for (unsigned v = 0; v < NV; v++)
        for (unsigned h = 0; h < 2; h++) {
            const __m256i i = idx[v][h];
            int64_t *oh = o + 16 * v + 8 * h;
            _mm256_storeu_si256((__m256i *)(void *)oh,
                                _mm256_cvtepu32_epi64(_mm256_castsi256_si128(i)));
            _mm256_storeu_si256((__m256i *)(void *)(oh + 4),
                                _mm256_cvtepu32_epi64(_mm256_extracti128_si256(i, 1)));
        }
}

/* A function a width (1 to 4 vectors) and tie rule, the width a constant (with it a variable, the
 * stretches' code around a row's vectors cost 32 and 48 lanes x0.5-0.9), and on short axes the
 * prefetch a slice at a time, none a row (a row's test of the cursor cost 16 lanes x0.81-0.92). */
#define SLICES_FN(name, NV, last)                                                                  \
    static void name(const char *x, uint64_t slices, unsigned n, __m128i flip, int stream,         \
                     int64_t *out)                                                                 \
    {                                                                                              \
        const unsigned inner = 16 * NV;                                                            \
        const uint64_t bytes = (uint64_t)n * inner;                                                \
        int64_t buf[CHUNK * 16 * VECS_MAX];                                                        \
        uintptr_t pf = clmax_cpu_pf_start(x);                                                      \
        const uint64_t chunk = stream ? CLMAX_PUT_STREAMED(CHUNK) : CHUNK;                         \
        for (uint64_t s0 = 0; s0 < slices; s0 += chunk) {                                          \
            const uint64_t cnt = slices - s0 < chunk ? slices - s0 : chunk;                        \
            for (uint64_t i = 0; i < cnt; i++) {                                                   \
                const char *xs = x + (s0 + i) * bytes;                                             \
                if (n <= LANEVECS_N_MAX) { /* the slice's prefetch at once, none a row */          \
                    clmax_cpu_pf(&pf, xs + bytes);                                                 \
                    slice(xs, n, NV, flip, last, NULL, buf + i * inner);                           \
                } else                                                                             \
                    slice(xs, n, NV, flip, last, &pf, buf + i * inner);                            \
            }                                                                                      \
            clmax_cpu_put(out + s0 * inner, buf, cnt * inner, stream);                             \
        }                                                                                          \
    }
SLICES_FN(slices16_first, 1, 0)
SLICES_FN(slices16_last, 1, 1)
SLICES_FN(slices32_first, 2, 0)
SLICES_FN(slices32_last, 2, 1)
SLICES_FN(slices48_first, 3, 0)
SLICES_FN(slices48_last, 3, 1)
SLICES_FN(slices64_first, 4, 0)
SLICES_FN(slices64_last, 4, 1)

void clmax_cpu_lanevecs(const clmax_problem *p, const void *x, uint64_t slices, int stream,
                        int64_t *out)
{
    /* keys: unsigned order, int8's sign flipped; ArgMin: every bit flipped too */
    const int f = (p->type == CLMAX_TYPE_INT8 ? 0x80 : 0) ^ (p->min ? 0xFF : 0);
    const __m128i flip = _mm_set1_epi8((char)f);
    const unsigned nv = (unsigned)(p->inner / 16), n = (unsigned)p->n;
    typedef void (*slices_fn)(const char *, uint64_t, unsigned, __m128i, int, int64_t *);
    static const slices_fn fns[VECS_MAX][2] = {{slices16_first, slices16_last},
                                               {slices32_first, slices32_last},
                                               {slices48_first, slices48_last},
                                               {slices64_first, slices64_last}};
    fns[nv - 1][p->last != 0](x, slices, n, flip, stream, out);
}

#pragma GCC pop_options

int clmax_cpu_lanevecs_fits(const clmax_problem *p)
{
    return p->esize == 1 && p->inner % 16 == 0 && p->inner / 16 >= 1 && p->inner / 16 <= VECS_MAX &&
           p->n >= 2 &&
           (p->n <= LANEVECS_N_MAX || (p->inner >= LANEVECS_LONG_INNER && p->n < (1ull << 31))) &&
           clmax_cpu_has(CLMAX_CPU_AVX2);
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
