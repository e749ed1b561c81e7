/* Short contiguous rows (n <= CLMAX_SHORT_MAX: 256, 1024 of one byte) with AVX2, picked at run
 * time on CPUs that have it.
 *
 * Rows of at most 16 bytes go two to a vector, one per 128-bit half (pairs_*, and pairs8_* for
 * one-byte types); longer rows as below (rows_*, lrows_* past 4 vectors of one- and two-byte
 * keys, and the float compares frows_* and drows_*, called by short_*).
 *
 * A row of n elements spans nv = ceil(n * size / 32) vectors. Each vector's keys (of keys.h's
 * order, in vector form) go through an unsigned max, down to one vector per row; two rows then
 * share the butterfly of shuffles that leaves each row's max key in every lane of its 128-bit half.
 * A compare per vector and its bit mask give every position that holds the max, gathered into
 * 64-bit words, and a count of trailing (first index) or leading (last index) zero bits gives the
 * winner. The lanes past n in the last vector are cleared to key 0 (which cannot beat the max)
 * and their bits dropped. No branch depends on the data, and for nv <= 4 the code is compiled
 * for each nv, fully unrolled: a branch on the data would be a mispredict per row. float32 rows of
 * up to 4 vectors skip the keys in the default floating-point mode (frows_*). The scalar loop in
 * cpu_backend.c keeps the rows whose last vector would read past the readable end of the input. */
#include "cpu_features.h"
#include "cpu_short.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#include "cpu_vec.h"

/* Rows of 1 KiB at most: 8-byte rows of more ran faster in the lanes code (dealt slices,
 * cpu_deal.c) or as long rows. */
#define MAX_VECTORS 32
/* Software prefetch distance: the hardware prefetcher alone does not keep up with a loop that does
 * this much per line. */
#define PREFETCH_BYTES 4096

#pragma GCC push_options
#pragma GCC target("avx2,bmi,lzcnt")

/* ---- Keys of keys.h's order, lane by lane ---------------------------------------------------- */

/* Floats: cpu_vec.h's keys. */
static inline __m256i vkey_f16(__m256i x)
{
    return (__m256i)CLMAX_VFLOAT_UKEY(vu16, vs16, uint16_t, int16_t, x, 0x7C00, 0);
}
static inline __m256i vkey_bf16(__m256i x)
{
    return (__m256i)CLMAX_VFLOAT_UKEY(vu16, vs16, uint16_t, int16_t, x, 0x7F80, 0);
}
static inline __m256i vkey_f32(__m256i x)
{
    return (__m256i)CLMAX_VFLOAT_UKEY(vu32, vs32, uint32_t, int32_t, x, 0x7F800000, 0);
}
static inline __m256i vkey_f64(__m256i x)
{
    return (__m256i)CLMAX_VFLOAT_UKEY(vu64, vs64, uint64_t, int64_t, x, 0x7FF0000000000000ll, 0);
}
static inline __m256i vkey_u(__m256i x)
{
    return x;
}
static inline __m256i vkey_i8(__m256i x)
{
    return (__m256i)((vu8)x ^ 0x80);
}
static inline __m256i vkey_i16(__m256i x)
{
    return (__m256i)((vu16)x ^ 0x8000);
}
static inline __m256i vkey_i32(__m256i x)
{
    return (__m256i)((vu32)x ^ 0x80000000u);
}
static inline __m256i vkey_i64(__m256i x)
{
    return (__m256i)((vu64)x ^ 0x8000000000000000ull);
}
static inline __m256i vmkey_u(__m256i x)
{
    return (__m256i) ~(vu64)x;
}
static inline __m256i vmkey_i8(__m256i x)
{
    return vmkey_u(vkey_i8(x));
}
static inline __m256i vmkey_i16(__m256i x)
{
    return vmkey_u(vkey_i16(x));
}
static inline __m256i vmkey_i32(__m256i x)
{
    return vmkey_u(vkey_i32(x));
}
static inline __m256i vmkey_i64(__m256i x)
{
    return vmkey_u(vkey_i64(x));
}
static inline __m256i vmkey_f16(__m256i x)
{
    return (__m256i)CLMAX_VFLOAT_UKEY(vu16, vs16, uint16_t, int16_t, x, 0x7C00, (int16_t)-1);
}
static inline __m256i vmkey_bf16(__m256i x)
{
    return (__m256i)CLMAX_VFLOAT_UKEY(vu16, vs16, uint16_t, int16_t, x, 0x7F80, (int16_t)-1);
}
static inline __m256i vmkey_f32(__m256i x)
{
    return (__m256i)CLMAX_VFLOAT_UKEY(vu32, vs32, uint32_t, int32_t, x, 0x7F800000, (int32_t)-1);
}
static inline __m256i vmkey_f64(__m256i x)
{
    return (__m256i)CLMAX_VFLOAT_UKEY(vu64, vs64, uint64_t, int64_t, x, 0x7FF0000000000000ll,
                                      (int64_t)-1);
}

/* ---- Unsigned max, its broadcast over a vector, equality, per key width --------------------- */

static inline __m256i vmax_1(__m256i a, __m256i b)
{
    return _mm256_max_epu8(a, b);
}
static inline __m256i vmax_2(__m256i a, __m256i b)
{
    return _mm256_max_epu16(a, b);
}
static inline __m256i vmax_4(__m256i a, __m256i b)
{
    return _mm256_max_epu32(a, b);
}
static inline __m256i vmax_8(__m256i a, __m256i b)
{
    const __m256i s = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    __m256i gt = _mm256_cmpgt_epi64(_mm256_xor_si256(a, s), _mm256_xor_si256(b, s));
    return _mm256_blendv_epi8(b, a, gt);
}

/* Every lane gets the max of its 128-bit half: 64-bit and 32-bit neighbours, then (for the
 * narrow widths) 16-bit and 8-bit neighbours by rotating within the wider lane. */
static inline __m256i hmax128_8(__m256i m)
{
    return vmax_8(m, _mm256_shuffle_epi32(m, 0x4E));
}
static inline __m256i hmax128_4(__m256i m)
{
    m = vmax_4(m, _mm256_shuffle_epi32(m, 0x4E));
    return vmax_4(m, _mm256_shuffle_epi32(m, 0xB1));
}
static inline __m256i hmax128_2(__m256i m)
{
    m = vmax_2(m, _mm256_shuffle_epi32(m, 0x4E));
    m = vmax_2(m, _mm256_shuffle_epi32(m, 0xB1));
    return vmax_2(m, _mm256_or_si256(_mm256_srli_epi32(m, 16), _mm256_slli_epi32(m, 16)));
}
static inline __m256i hmax128_1(__m256i m)
{
    m = vmax_1(m, _mm256_shuffle_epi32(m, 0x4E));
    m = vmax_1(m, _mm256_shuffle_epi32(m, 0xB1));
    m = vmax_1(m, _mm256_or_si256(_mm256_srli_epi32(m, 16), _mm256_slli_epi32(m, 16)));
    return vmax_1(m, _mm256_or_si256(_mm256_srli_epi16(m, 8), _mm256_slli_epi16(m, 8)));
}

static inline __m256i veq_1(__m256i a, __m256i b)
{
    return _mm256_cmpeq_epi8(a, b);
}
static inline __m256i veq_2(__m256i a, __m256i b)
{
    return _mm256_cmpeq_epi16(a, b);
}
static inline __m256i veq_4(__m256i a, __m256i b)
{
    return _mm256_cmpeq_epi32(a, b);
}
static inline __m256i veq_8(__m256i a, __m256i b)
{
    return _mm256_cmpeq_epi64(a, b);
}

/* The rows that pairs_ and pairs8_ take: an even count, each pair's loads (span elements from its
 * first row) within `readable` elements. */
static inline uint64_t pair_rows(uint64_t rows, uint64_t n, uint64_t span, uint64_t readable)
{
    if (readable < span) return 0;
    uint64_t done = ((readable - span) / n + 1) & ~(uint64_t)1;
    return done < (rows & ~(uint64_t)1) ? done : rows & ~(uint64_t)1;
}

/* Rows of at most 16 bytes, two at a time: row r in the low 128-bit half of a vector, row r + 1
 * in the high half; the max is broadcast within each half, and the two 16-bit halves of the byte
 * mask give the two winners. Rows [0, done) with done even; the loads of 16 bytes from each row's
 * start stay within `readable` elements. */
#define DEFINE_PAIRS(name, W, KEY)                                                                 \
    __attribute__((unused)) static uint64_t pairs_##name(                                          \
        const void *xv, uint64_t rows, uint64_t n, int last, int64_t *out, uint64_t readable)      \
    {                                                                                              \
        const unsigned char *x = xv;                                                               \
        const uint64_t done = pair_rows(rows, n, n + 16 / (W), readable);                          \
        const __m256i iota =                                                                       \
            _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4,  \
                             5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);                               \
        const __m256i mask = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)(n * (W))), iota);           \
        const uint64_t row_bytes = n * (W);                                                        \
        for (uint64_t r = 0; r < done; r += 2) {                                                   \
            const unsigned char *p = x + r * row_bytes;                                            \
            _mm_prefetch((const char *)p + PREFETCH_BYTES, _MM_HINT_T0);                           \
            __m256i v = _mm256_inserti128_si256(                                                   \
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),                       \
                _mm_loadu_si128((const __m128i *)(p + row_bytes)), 1);                             \
            __m256i k = _mm256_and_si256(KEY(v), mask);                                            \
            __m256i m = hmax128_##W(k);                                                            \
            uint32_t bits = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(veq_##W(k, m), mask)); \
            uint32_t a = bits & 0xFFFFu, b = bits >> 16;                                           \
            if (last) {                                                                            \
                out[r] = (int64_t)((31 - _lzcnt_u32(a)) / (W));                                    \
                out[r + 1] = (int64_t)((31 - _lzcnt_u32(b)) / (W));                                \
            } else {                                                                               \
                out[r] = (int64_t)(_tzcnt_u32(a) / (W));                                           \
                out[r + 1] = (int64_t)(_tzcnt_u32(b) / (W));                                       \
            }                                                                                      \
        }                                                                                          \
        return done;                                                                               \
    }

/* One-byte rows of at most 16 elements, two at a time, as the minimum of 16-bit keys: the high
 * byte is the element with FLIP applied (an xor that makes the winner the smallest: 0xFF for the
 * uint8 max, 0x7F for the int8 max, 0x80 for the int8 min, 0 for the uint8 min), the low byte its
 * position (n - 1 - i for the last index), so that the key's minimum is the winner and one
 * phminposuw per row finds it. Lanes past n get key 0xFFFF, above every element's. About 7
 * instructions a row where pairs_ (a butterfly of byte maxima, then the equal positions) takes
 * about 12. */
#define DEFINE_PAIRS8(name, FLIP)                                                                  \
    static uint64_t pairs8_##name(const void *xv, uint64_t rows, uint64_t n, int last,             \
                                  int64_t *out, uint64_t readable)                                 \
    {                                                                                              \
        const unsigned char *x = xv;                                                               \
        const uint64_t done = pair_rows(rows, n, n + 16, readable);                                \
        unsigned char pos[32], pad[32];                                                            \
        for (int i = 0; i < 32; i++) {                                                             \
            uint64_t l = (uint64_t)(i % 16);                                                       \
            pos[i] = l < n ? (unsigned char)(last ? n - 1 - l : l) : 0xFF;                         \
            pad[i] = l < n ? 0 : 0xFF;                                                             \
        }                                                                                          \
        const __m256i vpos = _mm256_loadu_si256((const __m256i *)pos);                             \
        const __m256i vpad = _mm256_loadu_si256((const __m256i *)pad);                             \
        const __m256i flip = _mm256_set1_epi8((char)(FLIP));                                       \
        const int64_t top = last ? (int64_t)n - 1 : 0, sign = last ? -1 : 1;                       \
        for (uint64_t r = 0; r < done; r += 2) {                                                   \
            const unsigned char *p = x + r * n;                                                    \
            _mm_prefetch((const char *)p + PREFETCH_BYTES, _MM_HINT_T0);                           \
            __m256i v = _mm256_inserti128_si256(                                                   \
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),                       \
                _mm_loadu_si128((const __m128i *)(p + n)), 1);                                     \
            __m256i k = _mm256_or_si256(_mm256_xor_si256(v, flip), vpad);                          \
            __m256i m =                                                                            \
                _mm256_min_epu16(_mm256_unpacklo_epi8(vpos, k), _mm256_unpackhi_epi8(vpos, k));    \
            uint32_t a = (uint32_t)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm256_castsi256_si128(m))); \
            uint32_t b =                                                                           \
                (uint32_t)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm256_extracti128_si256(m, 1)));     \
            out[r] = top + sign * (int64_t)(a & 0xFF);                                             \
            out[r + 1] = top + sign * (int64_t)(b & 0xFF);                                         \
        }                                                                                          \
        return done;                                                                               \
    }
DEFINE_PAIRS8(u8, 0xFF)
DEFINE_PAIRS8(i8, 0x7F)
DEFINE_PAIRS8(u8_min, 0x00)
DEFINE_PAIRS8(i8_min, 0x80)

/* ---- One function per (type, order) --------------------------------------------------------- */

/* The equality bits of a vector of keys against the max: one per byte for widths 1 and 2 (both
 * bytes of a 16-bit match are set), one per element for 4 and 8. */
static inline uint32_t eqbits_1(__m256i k, __m256i m)
{
    return (uint32_t)_mm256_movemask_epi8(veq_1(k, m));
}
static inline uint32_t eqbits_2(__m256i k, __m256i m)
{
    return (uint32_t)_mm256_movemask_epi8(veq_2(k, m));
}
static inline uint32_t eqbits_4(__m256i k, __m256i m)
{
    return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(veq_4(k, m)));
}
static inline uint32_t eqbits_8(__m256i k, __m256i m)
{
    return (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(veq_8(k, m)));
}
#define BITS_PER_ELEMENT(W) ((W) <= 2 ? (W) : 1)
#define BITS_PER_VECTOR(W) (32 / (W)*BITS_PER_ELEMENT(W))
#define MAX_WORDS 8   /* 64-bit words of equality bits of a row: 256 16-bit elements */
#define LONG_WORDS 16 /* the same for lrows_*: 1024 one-byte elements */
/* lrows_*' words: sixteen zeroed for two-byte rows cost float16 [B, 100..256] a fifth */
#define LWORDS(W) ((W) == 1 ? LONG_WORDS : MAX_WORDS)

/* The position of the lowest (first) or highest (last) set bit of words w[0..nw), without a
 * branch: every word before the first one with a bit adds its 64 (tzcnt of 0 is 64). */
static inline uint64_t bit_position(const uint64_t *w, uint64_t nw, int last)
{
    uint64_t pos = 0, found = 0;
    for (uint64_t q = 0; q < nw; q++) {
        uint64_t word = last ? w[nw - 1 - q] : w[q];
        uint64_t t = last ? _lzcnt_u64(word) : _tzcnt_u64(word);
        pos += t & ~found;
        found |= (uint64_t)0 - (word != 0);
    }
    return last ? 64 * nw - 1 - pos : pos;
}

/* The max keys of two rows from their vectors of maxima a (row a) and b: row a's in every lane of
 * *ma, row b's in every lane of *mb. */
#define DEFINE_PAIR_MAX(W)                                                                         \
    static inline __attribute__((always_inline)) void pair_max_##W(__m256i a, __m256i b,           \
                                                                   __m256i *ma, __m256i *mb)       \
    {                                                                                              \
        __m256i m = vmax_##W(_mm256_permute2x128_si256(a, b, 0x20),                                \
                             _mm256_permute2x128_si256(a, b, 0x31));                               \
        m = hmax128_##W(m);                                                                        \
        *ma = _mm256_permute2x128_si256(m, m, 0x00);                                               \
        *mb = _mm256_permute2x128_si256(m, m, 0x11);                                               \
    }
DEFINE_PAIR_MAX(1)
DEFINE_PAIR_MAX(2)
DEFINE_PAIR_MAX(4)
DEFINE_PAIR_MAX(8)

/* The winners of rows r and r + 1 (if r + 1 < done) from their equality bits wa and wb (nw words,
 * bpe bits an element), the last word's bits past the row dropped. */
static inline __attribute__((always_inline)) void put_pair(int64_t *out, uint64_t r, uint64_t done,
                                                           uint64_t *wa, uint64_t *wb, uint64_t nw,
                                                           uint64_t last_word, int last,
                                                           unsigned bpe)
{
    wa[nw - 1] &= last_word;
    wb[nw - 1] &= last_word;
    out[r] = (int64_t)(bit_position(wa, nw, last) / bpe);
    if (r + 1 < done) out[r + 1] = (int64_t)(bit_position(wb, nw, last) / bpe);
}

/* Rows [0, done) of rb bytes each, nv vectors a row, two rows at a time: each row's vectors reduce
 * to one vector of maxima, then the two rows share the horizontal max (row a in the low 128-bit
 * half, row b in the high half). With nv and last constant the compiler unrolls everything: no
 * branch depends on the data. An odd last row is paired with itself. */
#define DEFINE_ROWS(name, W, KEY)                                                                  \
    static inline __attribute__((always_inline)) void rows_##name(                                 \
        const unsigned char *x, uint64_t done, uint64_t rb, int64_t *out, const uint64_t nv,       \
        const int last, __m256i tail_mask, uint64_t last_word)                                     \
    {                                                                                              \
        const uint64_t nw = (nv * BITS_PER_VECTOR(W) + 63) / 64;                                   \
        for (uint64_t r = 0; r < done; r += 2) {                                                   \
            const unsigned char *pa = x + r * rb, *pb = r + 1 < done ? pa + rb : pa;               \
            for (uint64_t c = 0; c < 2 * rb; c += 64)                                              \
                _mm_prefetch((const char *)pa + PREFETCH_BYTES + c, _MM_HINT_T0);                  \
            __m256i ka[MAX_VECTORS], kb[MAX_VECTORS];                                              \
            ka[0] = KEY(_mm256_loadu_si256((const __m256i *)pa));                                  \
            kb[0] = KEY(_mm256_loadu_si256((const __m256i *)pb));                                  \
            for (uint64_t v = 1; v < nv; v++) {                                                    \
                ka[v] = KEY(_mm256_loadu_si256((const __m256i *)(pa + 32 * v)));                   \
                kb[v] = KEY(_mm256_loadu_si256((const __m256i *)(pb + 32 * v)));                   \
            }                                                                                      \
            ka[nv - 1] = _mm256_and_si256(ka[nv - 1], tail_mask);                                  \
            kb[nv - 1] = _mm256_and_si256(kb[nv - 1], tail_mask);                                  \
            /* two chains of maxima per row, so that they do not wait on each other */             \
            __m256i a0 = ka[0], b0 = kb[0], a1 = a0, b1 = b0;                                      \
            if (nv > 1) a1 = ka[1], b1 = kb[1];                                                    \
            for (uint64_t v = 2; v < nv; v++) {                                                    \
                if (v & 1)                                                                         \
                    a1 = vmax_##W(a1, ka[v]), b1 = vmax_##W(b1, kb[v]);                            \
                else                                                                               \
                    a0 = vmax_##W(a0, ka[v]), b0 = vmax_##W(b0, kb[v]);                            \
            }                                                                                      \
            if (nv > 1) a0 = vmax_##W(a0, a1), b0 = vmax_##W(b0, b1);                              \
            __m256i ma, mb;                                                                        \
            pair_max_##W(a0, b0, &ma, &mb);                                                        \
            uint64_t wa[MAX_WORDS] = {0}, wb[MAX_WORDS] = {0};                                     \
            for (uint64_t v = 0; v < nv; v++) {                                                    \
                uint64_t at = v * BITS_PER_VECTOR(W);                                              \
                wa[at / 64] |= (uint64_t)eqbits_##W(ka[v], ma) << at % 64;                         \
                wb[at / 64] |= (uint64_t)eqbits_##W(kb[v], mb) << at % 64;                         \
            }                                                                                      \
            /* A zero max equals the cleared lanes: their bits go. */                              \
            put_pair(out, r, done, wa, wb, nw, last_word, last, BITS_PER_ELEMENT(W));              \
        }                                                                                          \
    }

/* Rows of one- and two-byte keys of more than 4 vectors (nv not a constant), and of four-byte ones
 * of LROWS4_FROM or more: the same, but each vector's keys made twice (for the max, then for the
 * compare) from loads that hit L1, instead of kept in an array the compiler puts in memory. In
 * turns with the array ([B, n], 128 MiB): uint8 n = 100-256 x1.11-2.72 (0.28 -> 0.76 of the limit
 * at 256), float16 100-160 x1.12-1.26, the rest even; wider keys, dearer to make twice, lost
 * (float64 n = 21-40 x0.78-0.90) and keep the array, but for float32 past 15 vectors since its
 * keys cost seven operations (keys.h): [B, 128..256] x1.16-1.19, [B, 40..100] x0.90-0.93 (5
 * rounds, 256 MiB; float64 even either way). */
#define LROWS4_FROM 16
#define DEFINE_LONG_ROWS(name, W, KEY)                                                             \
    static inline __attribute__((always_inline)) void lrows_##name(                                \
        const unsigned char *x, uint64_t done, uint64_t rb, int64_t *out, const uint64_t nv,       \
        const int last, __m256i tail_mask, uint64_t last_word)                                     \
    {                                                                                              \
        const uint64_t nw = (nv * BITS_PER_VECTOR(W) + 63) / 64, lv = nv - 1;                      \
        for (uint64_t r = 0; r < done; r += 2) {                                                   \
            const unsigned char *pa = x + r * rb, *pb = r + 1 < done ? pa + rb : pa;               \
            for (uint64_t c = 0; c < 2 * rb; c += 64)                                              \
                _mm_prefetch((const char *)pa + PREFETCH_BYTES + c, _MM_HINT_T0);                  \
            __m256i a0 = KEY(_mm256_loadu_si256((const __m256i *)pa));                             \
            __m256i b0 = KEY(_mm256_loadu_si256((const __m256i *)pb));                             \
            __m256i a1 = KEY(_mm256_loadu_si256((const __m256i *)(pa + 32)));                      \
            __m256i b1 = KEY(_mm256_loadu_si256((const __m256i *)(pb + 32)));                      \
            for (uint64_t v = 2; v < lv; v += 2) {                                                 \
                a0 = vmax_##W(a0, KEY(_mm256_loadu_si256((const __m256i *)(pa + 32 * v))));        \
                b0 = vmax_##W(b0, KEY(_mm256_loadu_si256((const __m256i *)(pb + 32 * v))));        \
                if (v + 1 == lv) break;                                                            \
                a1 = vmax_##W(a1, KEY(_mm256_loadu_si256((const __m256i *)(pa + 32 * v + 32))));   \
                b1 = vmax_##W(b1, KEY(_mm256_loadu_si256((const __m256i *)(pb + 32 * v + 32))));   \
            }                                                                                      \
            const __m256i ta = _mm256_and_si256(                                                   \
                KEY(_mm256_loadu_si256((const __m256i *)(pa + 32 * lv))), tail_mask);              \
            const __m256i tb = _mm256_and_si256(                                                   \
                KEY(_mm256_loadu_si256((const __m256i *)(pb + 32 * lv))), tail_mask);              \
            a0 = vmax_##W(vmax_##W(a0, a1), ta);                                                   \
            b0 = vmax_##W(vmax_##W(b0, b1), tb);                                                   \
            __m256i ma, mb;                                                                        \
            pair_max_##W(a0, b0, &ma, &mb);                                                        \
            uint64_t wa[LWORDS(W)], wb[LWORDS(W)];                                                 \
            for (uint64_t q = 0; q < nw; q++) /* the row's words only */                           \
                wa[q] = wb[q] = 0;                                                                 \
            for (uint64_t v = 0; v < lv; v++) {                                                    \
                uint64_t at = v * BITS_PER_VECTOR(W);                                              \
                __m256i ka = KEY(_mm256_loadu_si256((const __m256i *)(pa + 32 * v)));              \
                __m256i kb = KEY(_mm256_loadu_si256((const __m256i *)(pb + 32 * v)));              \
                wa[at / 64] |= (uint64_t)eqbits_##W(ka, ma) << at % 64;                            \
                wb[at / 64] |= (uint64_t)eqbits_##W(kb, mb) << at % 64;                            \
            }                                                                                      \
            uint64_t at = lv * BITS_PER_VECTOR(W);                                                 \
            wa[at / 64] |= (uint64_t)eqbits_##W(ta, ma) << at % 64;                                \
            wb[at / 64] |= (uint64_t)eqbits_##W(tb, mb) << at % 64;                                \
            put_pair(out, r, done, wa, wb, nw, last_word, last, BITS_PER_ELEMENT(W));              \
        }                                                                                          \
    }

/* float32 and float64 rows without keys, while the denormals-are-zero mode is off (then a float
 * compare orders every value as the contract does, -0 equal to +0) and FP exceptions are masked:
 * each row's max (or min) by the float max, and every position that compares equal to it. A row
 * with a NaN (rare) takes its NaN positions instead, as a NaN beats every number for ArgMax and
 * ArgMin alike. Lanes past n hold -inf (+inf for the min) and their bits are dropped. S is the
 * intrinsics' suffix (ps, pd), V the vector type, E the element, LANES a vector's elements, HMAX
 * the max across one 128-bit half. float32 takes rows of up to 4 vectors (past that its keys ran
 * as fast); float64, whose keys take an emulated unsigned max in AVX2, rows of up to 4 vectors and
 * of DROWS_FROM or more. In turns with the keys ([B, n] float64, 128 MiB): n = 3 and 5
 * x1.18-1.34, 80-128 x1.35-2.19 (0.42 -> 0.92 of the limit at 128); 21-48 (6 to 12 vectors, not
 * unrolled) x0.77-0.90, 56-64 even. */
#define DROWS_FROM 16
#define HMAX_PS(VMAX, m)                                                                           \
    (m = VMAX(m, _mm256_permute_ps(m, 0x4E)), VMAX(m, _mm256_permute_ps(m, 0xB1)))
#define HMAX_PD(VMAX, m) VMAX(m, _mm256_permute_pd(m, 0x5))
#define DEFINE_FP_ROWS(name, S, V, E, LANES, HMAX, VMAX, FILL)                                     \
    static inline __attribute__((always_inline)) void name(                                        \
        const unsigned char *x, uint64_t done, uint64_t rb, int64_t *out, const uint64_t nv,       \
        const int last, __m256i tail_i, uint64_t last_word)                                        \
    {                                                                                              \
        const V fill = _mm256_set1_##S(FILL), tail = _mm256_castsi256_##S(tail_i);                 \
        const uint64_t nw = (nv * (LANES) + 63) / 64;                                              \
        if (nv == 0) return; /* never (rows of 3 or more), but said for the compiler */            \
        for (uint64_t r = 0; r < done; r += 2) {                                                   \
            const unsigned char *pa = x + r * rb, *pb = r + 1 < done ? pa + rb : pa;               \
            for (uint64_t c = 0; c < 2 * rb; c += 64)                                              \
                _mm_prefetch((const char *)pa + PREFETCH_BYTES + c, _MM_HINT_T0);                  \
            V va[MAX_VECTORS], vb[MAX_VECTORS];                                                    \
            for (uint64_t v = 0; v < nv; v++) {                                                    \
                va[v] = _mm256_loadu_##S((const E *)(pa + 32 * v));                                \
                vb[v] = _mm256_loadu_##S((const E *)(pb + 32 * v));                                \
            }                                                                                      \
            va[nv - 1] = _mm256_blendv_##S(fill, va[nv - 1], tail);                                \
            vb[nv - 1] = _mm256_blendv_##S(fill, vb[nv - 1], tail);                                \
            V a0 = va[0], b0 = vb[0], a1 = a0, b1 = b0;                                            \
            V na = _mm256_cmp_##S(va[0], va[0], _CMP_UNORD_Q),                                     \
              nb = _mm256_cmp_##S(vb[0], vb[0], _CMP_UNORD_Q);                                     \
            if (nv > 1) a1 = va[1], b1 = vb[1];                                                    \
            for (uint64_t v = 1; v < nv; v++) {                                                    \
                na = _mm256_or_##S(na, _mm256_cmp_##S(va[v], va[v], _CMP_UNORD_Q));                \
                nb = _mm256_or_##S(nb, _mm256_cmp_##S(vb[v], vb[v], _CMP_UNORD_Q));                \
                if (v < 2) continue;                                                               \
                if (v & 1)                                                                         \
                    a1 = VMAX(a1, va[v]), b1 = VMAX(b1, vb[v]);                                    \
                else                                                                               \
                    a0 = VMAX(a0, va[v]), b0 = VMAX(b0, vb[v]);                                    \
            }                                                                                      \
            if (nv > 1) a0 = VMAX(a0, a1), b0 = VMAX(b0, b1);                                      \
            V m = VMAX(_mm256_permute2f128_##S(a0, b0, 0x20),                                      \
                       _mm256_permute2f128_##S(a0, b0, 0x31));                                     \
            m = HMAX(VMAX, m);                                                                     \
            V ma = _mm256_permute2f128_##S(m, m, 0x00), mb = _mm256_permute2f128_##S(m, m, 0x11);  \
            int nan_a = _mm256_movemask_##S(na) != 0, nan_b = _mm256_movemask_##S(nb) != 0;        \
            uint64_t wa[2] = {0, 0}, wb[2] = {0, 0};                                               \
            for (uint64_t v = 0; v < nv; v++) {                                                    \
                uint64_t at = v * (LANES);                                                         \
                V ea = nan_a ? _mm256_cmp_##S(va[v], va[v], _CMP_UNORD_Q)                          \
                             : _mm256_cmp_##S(va[v], ma, _CMP_EQ_OQ);                              \
                V eb = nan_b ? _mm256_cmp_##S(vb[v], vb[v], _CMP_UNORD_Q)                          \
                             : _mm256_cmp_##S(vb[v], mb, _CMP_EQ_OQ);                              \
                wa[at / 64] |= (uint64_t)(uint32_t)_mm256_movemask_##S(ea) << at % 64;             \
                wb[at / 64] |= (uint64_t)(uint32_t)_mm256_movemask_##S(eb) << at % 64;             \
            }                                                                                      \
            put_pair(out, r, done, wa, wb, nw, last_word, last, 1);                                \
        }                                                                                          \
    }
DEFINE_FP_ROWS(frows_max, ps, __m256, float, 8, HMAX_PS, _mm256_max_ps, -__builtin_inff())
DEFINE_FP_ROWS(frows_min, ps, __m256, float, 8, HMAX_PS, _mm256_min_ps, __builtin_inff())
DEFINE_FP_ROWS(drows_max, pd, __m256d, double, 4, HMAX_PD, _mm256_max_pd, -__builtin_inf())
DEFINE_FP_ROWS(drows_min, pd, __m256d, double, 4, HMAX_PD, _mm256_min_pd, __builtin_inf())

/* Rows of two elements of one, two or four bytes, 32 / (2 W) rows a vector: each row is one
 * element of twice the width, its second key in the high half, so one compare of the halves a
 * row (strict for the first index, not smaller for the last) gives its winner, 0 or 1, widened
 * to int64 and stored a vector at a time. Rows [0, done), done a multiple of the rows a vector,
 * every load within `readable` elements. Why: the pairs above take two rows a vector, a
 * horizontal max and a bit scan each, about 10 instructions a row ([B, 2] uint8 and float16 ran
 * at 0.41-0.48 of the limit there). */
#define DUOS_UNROLL 2 /* vectors an iteration */
#define DEFINE_DUOS(name, W, KEY)                                                                  \
    static uint64_t duos_##name(const void *xv, uint64_t rows, int last, int64_t *out,             \
                                uint64_t readable)                                                 \
    {                                                                                              \
        enum { PER = 16 / (W) }; /* rows a vector */                                               \
        const unsigned char *x = xv;                                                               \
        uint64_t done = (rows < readable / 2 ? rows : readable / 2);                               \
        done -= done % (PER * DUOS_UNROLL);                                                        \
        for (uint64_t r = 0; r < done; r += PER * DUOS_UNROLL) {                                   \
            _mm_prefetch((const char *)(x + 2 * (W)*r) + PREFETCH_BYTES, _MM_HINT_T0);             \
            for (int u = 0; u < DUOS_UNROLL; u++) {                                                \
                const uint64_t r0 = r + (uint64_t)u * PER;                                         \
                const __m256i k = KEY(_mm256_loadu_si256((const __m256i *)(x + 2 * (W)*r0)));      \
                duo_put_##W(k, last, out + r0);                                                    \
            }                                                                                      \
        }                                                                                          \
        return done;                                                                               \
    }

/* The winners of the rows whose keys k holds (duos_*) into o: 16, 8 or 4 of them. */
static inline __attribute__((always_inline)) void duo_put_1(__m256i k, int last, int64_t *o)
{
    const vs16 lo = (vs16)((vu16)k & 0xFF), hi = (vs16)((vu16)k >> 8);
    const __m256i w = (__m256i)((vu16)(last ? hi >= lo : hi > lo) & 1);
    const __m128i a = _mm256_castsi256_si128(w), b = _mm256_extracti128_si256(w, 1);
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_cvtepu16_epi64(a));
    _mm256_storeu_si256((__m256i *)(void *)(o + 4), _mm256_cvtepu16_epi64(_mm_srli_si128(a, 8)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 8), _mm256_cvtepu16_epi64(b));
    _mm256_storeu_si256((__m256i *)(void *)(o + 12), _mm256_cvtepu16_epi64(_mm_srli_si128(b, 8)));
}
static inline __attribute__((always_inline)) void duo_put_2(__m256i k, int last, int64_t *o)
{
    const vs32 lo = (vs32)((vu32)k & 0xFFFF), hi = (vs32)((vu32)k >> 16);
    const __m256i w = (__m256i)((vu32)(last ? hi >= lo : hi > lo) & 1);
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(w)));
    _mm256_storeu_si256((__m256i *)(void *)(o + 4),
                        _mm256_cvtepu32_epi64(_mm256_extracti128_si256(w, 1)));
}
static inline __attribute__((always_inline)) void duo_put_4(__m256i k, int last, int64_t *o)
{
    const vs64 lo = (vs64)((vu64)k & 0xFFFFFFFFu), hi = (vs64)((vu64)k >> 32);
    _mm256_storeu_si256((__m256i *)(void *)o, (__m256i)((vu64)(last ? hi >= lo : hi > lo) & 1));
}

/* DEFINE_SHORT's rows of two by width: the duos for one to four bytes; eight-byte rows of two
 * are a vector's half each already, and take the pairs. */
#define DUOS_FOR(W, name, KEY) DUOS_##W(name, KEY)
#define DUOS_1(name, KEY) DEFINE_DUOS(name, 1, KEY)
#define DUOS_2(name, KEY) DEFINE_DUOS(name, 2, KEY)
#define DUOS_4(name, KEY) DEFINE_DUOS(name, 4, KEY)
#define DUOS_8(name, KEY)
#define TAKE_DUOS_FOR(W, name, PAIRS) TAKE_DUOS_##W(name, W, PAIRS)
#define TAKE_DUOS_1 TAKE_DUOS
#define TAKE_DUOS_2 TAKE_DUOS
#define TAKE_DUOS_4 TAKE_DUOS
#define TAKE_DUOS_8(name, W, PAIRS) (void)0
#define TAKE_DUOS(name, W, PAIRS)                                                                  \
    do {                                                                                           \
        if (n != 2) break;                                                                         \
        const uint64_t done = duos_##name(xv, rows, last, out, readable);                          \
        if (done == rows) return done;                                                             \
        return done +                                                                              \
               PAIRS(x + 2 * (W)*done, rows - done, n, last, out + done, readable - 2 * done);     \
    } while (0)

/* Rows [0, done) of x (rows of n elements, W bytes each), where done <= rows is the number of
 * rows whose vectors end within `readable` elements of x. */
#define DEFINE_SHORT(name, W, KEY, FLOAT, FROWS, PAIRS)                                            \
    DEFINE_PAIRS(name, W, KEY)                                                                     \
    DUOS_FOR(W, name, KEY)                                                                         \
    DEFINE_ROWS(name, W, KEY)                                                                      \
    DEFINE_LONG_ROWS(name, W, KEY)                                                                 \
    static uint64_t short_##name(const void *xv, uint64_t rows, uint64_t n, int last,              \
                                 int64_t *out, uint64_t readable)                                  \
    {                                                                                              \
        const unsigned char *x = xv;                                                               \
        TAKE_DUOS_FOR(W, name, PAIRS);                                                             \
        if (n * (W) <= 16) return PAIRS(xv, rows, n, last, out, readable);                         \
        const uint64_t lanes = 32 / (W);                                                           \
        const uint64_t nv = (n + lanes - 1) / lanes;                                               \
        /* CLMAX_SHORT_MAX keeps the bits in MAX_WORDS words (LONG_WORDS for one byte) */          \
        if (n > CLMAX_SHORT_MAX(W) || nv > MAX_VECTORS || readable < nv * lanes) return 0;         \
        uint64_t done = (readable - nv * lanes) / n + 1;                                           \
        if (done > rows) done = rows;                                                              \
        const int tail_bytes = (int)((n - (nv - 1) * lanes) * (W)); /* 1..32 */                    \
        const __m256i iota =                                                                       \
            _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, \
                             20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);                      \
        const __m256i tail_mask = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)tail_bytes), iota);     \
        /* the valid bits of the last word: n elements' bits, less those of the words before */    \
        uint64_t valid = n * BITS_PER_ELEMENT(W) - 64 * ((nv * BITS_PER_VECTOR(W) + 63) / 64 - 1); \
        uint64_t last_word = valid >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << valid) - 1;              \
        const uint64_t rb = n * (W);                                                               \
        const unsigned csr = (FLOAT) ? _mm_getcsr() : 0;                                           \
        /* float32 (FLOAT 1) up to 4 vectors, float64 (2) up to 4 and from DROWS_FROM */           \
        if ((FLOAT) && (nv <= 4 || ((FLOAT) == 2 && nv >= DROWS_FROM)) &&                          \
            (csr & CLMAX_FLOAT_MODE_BITS) == CLMAX_FLOAT_MODE_OK) {                                \
            switch (nv) {                                                                          \
                NV_CASE(FROWS, 1);                                                                 \
                NV_CASE(FROWS, 2);                                                                 \
                NV_CASE(FROWS, 3);                                                                 \
                NV_CASE(FROWS, 4);                                                                 \
            default:                                                                               \
                CALL_ROWS(FROWS, nv);                                                              \
            }                                                                                      \
            return done; /* the flags raised stay until the call returns (host/fpenv.h) */         \
        }                                                                                          \
        switch (nv) {                                                                              \
            NV_CASE(rows_##name, 1);                                                               \
            NV_CASE(rows_##name, 2);                                                               \
            NV_CASE(rows_##name, 3);                                                               \
            NV_CASE(rows_##name, 4);                                                               \
        default:                                                                                   \
            if ((W) <= 2 || ((W) == 4 && nv >= LROWS4_FROM))                                       \
                CALL_ROWS(lrows_##name, nv);                                                       \
            else                                                                                   \
                CALL_ROWS(rows_##name, nv);                                                        \
        }                                                                                          \
        return done;                                                                               \
    }
/* A row form FN on the rows, last a constant in each call; with NV constant (NV_CASE) the loops
 * over a row's vectors unroll. */
#define CALL_ROWS(FN, NV)                                                                          \
    do {                                                                                           \
        if (last)                                                                                  \
            FN(x, done, rb, out, NV, 1, tail_mask, last_word);                                     \
        else                                                                                       \
            FN(x, done, rb, out, NV, 0, tail_mask, last_word);                                     \
    } while (0)
#define NV_CASE(FN, NV)                                                                            \
    case NV:                                                                                       \
        CALL_ROWS(FN, NV);                                                                         \
        break

DEFINE_SHORT(u8, 1, vkey_u, 0, frows_max, pairs8_u8)
DEFINE_SHORT(i8, 1, vkey_i8, 0, frows_max, pairs8_i8)
DEFINE_SHORT(u16, 2, vkey_u, 0, frows_max, pairs_u16)
DEFINE_SHORT(i16, 2, vkey_i16, 0, frows_max, pairs_i16)
DEFINE_SHORT(f16, 2, vkey_f16, 0, frows_max, pairs_f16)
DEFINE_SHORT(bf16, 2, vkey_bf16, 0, frows_max, pairs_bf16)
DEFINE_SHORT(u32, 4, vkey_u, 0, frows_max, pairs_u32)
DEFINE_SHORT(i32, 4, vkey_i32, 0, frows_max, pairs_i32)
DEFINE_SHORT(f32, 4, vkey_f32, 1, frows_max, pairs_f32)
DEFINE_SHORT(u64, 8, vkey_u, 0, frows_max, pairs_u64)
DEFINE_SHORT(i64, 8, vkey_i64, 0, frows_max, pairs_i64)
DEFINE_SHORT(f64, 8, vkey_f64, 2, drows_max, pairs_f64)
DEFINE_SHORT(u8_min, 1, vmkey_u, 0, frows_max, pairs8_u8_min)
DEFINE_SHORT(i8_min, 1, vmkey_i8, 0, frows_max, pairs8_i8_min)
DEFINE_SHORT(u16_min, 2, vmkey_u, 0, frows_max, pairs_u16_min)
DEFINE_SHORT(i16_min, 2, vmkey_i16, 0, frows_max, pairs_i16_min)
DEFINE_SHORT(f16_min, 2, vmkey_f16, 0, frows_max, pairs_f16_min)
DEFINE_SHORT(bf16_min, 2, vmkey_bf16, 0, frows_max, pairs_bf16_min)
DEFINE_SHORT(u32_min, 4, vmkey_u, 0, frows_max, pairs_u32_min)
DEFINE_SHORT(i32_min, 4, vmkey_i32, 0, frows_max, pairs_i32_min)
DEFINE_SHORT(f32_min, 4, vmkey_f32, 1, frows_min, pairs_f32_min)
DEFINE_SHORT(u64_min, 8, vmkey_u, 0, frows_max, pairs_u64_min)
DEFINE_SHORT(i64_min, 8, vmkey_i64, 0, frows_max, pairs_i64_min)
DEFINE_SHORT(f64_min, 8, vmkey_f64, 2, drows_min, pairs_f64_min)

#pragma GCC pop_options

clmax_short_simd_fn clmax_cpu_short_simd(clmax_type type, int min)
{
    if (!clmax_cpu_has(CLMAX_CPU_AVX2 | CLMAX_CPU_BMI_ABM)) return NULL;
#define PICK(name) return min ? short_##name##_min : short_##name
    switch (type) {
    case CLMAX_TYPE_UINT8:
        PICK(u8);
    case CLMAX_TYPE_INT8:
        PICK(i8);
    case CLMAX_TYPE_UINT16:
        PICK(u16);
    case CLMAX_TYPE_INT16:
        PICK(i16);
    case CLMAX_TYPE_FLOAT16:
        PICK(f16);
    case CLMAX_TYPE_BFLOAT16:
        PICK(bf16);
    case CLMAX_TYPE_UINT32:
        PICK(u32);
    case CLMAX_TYPE_INT32:
        PICK(i32);
    case CLMAX_TYPE_FLOAT32:
        PICK(f32);
    case CLMAX_TYPE_UINT64:
        PICK(u64);
    case CLMAX_TYPE_INT64:
        PICK(i64);
    case CLMAX_TYPE_FLOAT64:
        PICK(f64);
    }
#undef PICK
    return NULL;
}

#else

clmax_short_simd_fn clmax_cpu_short_simd(clmax_type type, int min)
{
    (void)type;
    (void)min;
    return NULL;
}

#endif
