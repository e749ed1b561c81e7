/* The float extremes of cpu_block.h in AVX-512BW or AVX2 vectors, for float16, bfloat16 and
 * float32 stretches. GCC vectorised the scalar form with one vector a chain and reduced it across
 * the vector after every run of ROW_RUN bytes; these keep each extreme in four vectors
 * (independent chains of one-cycle operations), reduced once per stretch (the figures:
 * docs/PERFORMANCE.md, "Cache-hot latency"). */
#include "cpu_block.h"
#include "cpu_features.h"
#include "cpu_short.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)

#include <immintrin.h>
#include <string.h>

/* KEEP(v): v is in a register from here on (an empty asm that may change it): the compiler then
 * loads a vector once for its three operations, where it folded the load into each of them (three
 * loads a vector, each an unlaminated uop with an indexed address). */
#define KEEP(v) __asm__("" : "+v"(v))

/* One stretch in vectors of VB bytes (P: the intrinsics' prefix, VT: their vector type), four a
 * step: W-bit elements, the three extremes that the operator needs (cpu_block.h) in four
 * independent chains each. TGT: the target of the function. */
#define EXTREMES(NAME, TGT, W, T, ST, VB, VT, P, LOAD, MIN)                                        \
    TGT static void NAME(const T *x, uint64_t b, uint64_t e, int pf, uint64_t run_bytes,           \
                         clmax_extremes##W *out)                                                   \
    {                                                                                              \
        const uint64_t V = VB / 8 / sizeof(T), R = run_bytes / sizeof(T);                          \
        VT smax[4], sm[4], umax[4];                                                                \
        for (int q = 0; q < 4; q++) {                                                              \
            smax[q] = P##_set1_epi##W((ST)((T)1 << (W - 1)));                                      \
            umax[q] = P##_setzero_si##VB();                                                        \
            sm[q] = (MIN) ? P##_set1_epi##W(-1) : P##_set1_epi##W((ST) ~((T)1 << (W - 1)));        \
        }                                                                                          \
        /* The first vector at b, then from the first vector-aligned element on (a load across     \
         * two cache lines is two loads: NumPy's arrays are 16-byte aligned). The first vector     \
         * covers the elements skipped, and reading one twice cannot change an extreme. */         \
        VT a0 = LOAD((const void *)(x + b));                                                       \
        smax[0] = P##_max_epi##W(smax[0], a0);                                                     \
        umax[0] = P##_max_epu##W(umax[0], a0);                                                     \
        sm[0] = (MIN) ? P##_min_epu##W(sm[0], a0) : P##_min_epi##W(sm[0], a0);                     \
        uint64_t j = b + ((VB / 8 - (uintptr_t)(x + b) % (VB / 8)) % (VB / 8)) / sizeof(T);        \
        while (j + 4 * V <= e) {                                                                   \
            uint64_t re = e - j < R ? e : j + R;                                                   \
            if (pf)                                                                                \
                for (uint64_t c = 0; c < run_bytes; c += 64)                                       \
                    _mm_prefetch((const char *)(x + j) + ROW_PREFETCH + c, _MM_HINT_T0);           \
            for (; j + 4 * V <= re; j += 4 * V)                                                    \
                for (int q = 0; q < 4; q++) {                                                      \
                    VT a = LOAD((const void *)(x + j + q * V));                                    \
                    KEEP(a);                                                                       \
                    smax[q] = P##_max_epi##W(smax[q], a);                                          \
                    umax[q] = P##_max_epu##W(umax[q], a);                                          \
                    sm[q] = (MIN) ? P##_min_epu##W(sm[q], a) : P##_min_epi##W(sm[q], a);           \
                }                                                                                  \
            if (re == e) break;                                                                    \
        }                                                                                          \
        /* the chains into one; then single vectors, the last one ending at e (e - b >=            \
         * CLMAX_BLOCK_SIMD_MIN bytes, so every load stays inside the stretch) */                  \
        for (int q = 1; q < 4; q++) {                                                              \
            smax[0] = P##_max_epi##W(smax[0], smax[q]);                                            \
            umax[0] = P##_max_epu##W(umax[0], umax[q]);                                            \
            sm[0] = (MIN) ? P##_min_epu##W(sm[0], sm[q]) : P##_min_epi##W(sm[0], sm[q]);           \
        }                                                                                          \
        for (;; j += V) {                                                                          \
            int end = j + V >= e;                                                                  \
            VT a = LOAD((const void *)(x + (end ? e - V : j)));                                    \
            smax[0] = P##_max_epi##W(smax[0], a);                                                  \
            umax[0] = P##_max_epu##W(umax[0], a);                                                  \
            sm[0] = (MIN) ? P##_min_epu##W(sm[0], a) : P##_min_epi##W(sm[0], a);                   \
            if (end) break;                                                                        \
        }                                                                                          \
        ST s_max[V], s_m[V];                                                                       \
        T u_max[V];                                                                                \
        P##_storeu_si##VB((void *)s_max, smax[0]);                                                 \
        P##_storeu_si##VB((void *)s_m, sm[0]);                                                     \
        P##_storeu_si##VB((void *)u_max, umax[0]);                                                 \
        clmax_extremes##W r = {s_max[0], (ST) ~((T)1 << (W - 1)), u_max[0], (T)-1};                \
        for (uint64_t l = 0; l < V; l++) {                                                         \
            r.smax = s_max[l] > r.smax ? s_max[l] : r.smax;                                        \
            r.umax = u_max[l] > r.umax ? u_max[l] : r.umax;                                        \
            if (MIN)                                                                               \
                r.umin = (T)s_m[l] < r.umin ? (T)s_m[l] : r.umin;                                  \
            else                                                                                   \
                r.smin = s_m[l] < r.smin ? s_m[l] : r.smin;                                        \
        }                                                                                          \
        *out = r;                                                                                  \
    }

#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f,avx512bw,avx2")))
#define LOAD256(p) _mm256_loadu_si256((const __m256i *)(p))
#define LOAD512(p) _mm512_loadu_si512(p)
EXTREMES(max16_avx2, AVX2, 16, uint16_t, int16_t, 256, __m256i, _mm256, LOAD256, 0)
EXTREMES(min16_avx2, AVX2, 16, uint16_t, int16_t, 256, __m256i, _mm256, LOAD256, 1)
EXTREMES(max32_avx2, AVX2, 32, uint32_t, int32_t, 256, __m256i, _mm256, LOAD256, 0)
EXTREMES(min32_avx2, AVX2, 32, uint32_t, int32_t, 256, __m256i, _mm256, LOAD256, 1)
EXTREMES(max16_avx512, AVX512, 16, uint16_t, int16_t, 512, __m512i, _mm512, LOAD512, 0)
EXTREMES(min16_avx512, AVX512, 16, uint16_t, int16_t, 512, __m512i, _mm512, LOAD512, 1)
EXTREMES(max32_avx512, AVX512, 32, uint32_t, int32_t, 512, __m512i, _mm512, LOAD512, 0)
EXTREMES(min32_avx512, AVX512, 32, uint32_t, int32_t, 512, __m512i, _mm512, LOAD512, 1)

/* The float max (ArgMax) or min (ArgMin) of a stretch of floats in 512-bit vectors,
 * two operations a vector where the extremes take three: the float max (min), exact for numbers
 * (of two zeros either, which has the same key), and a sum whose lanes turn NaN where a NaN was
 * met (or +inf met -inf: then an exact search for a NaN decides). DAZ would make denormals equal
 * zero and an unmasked invalid exception would trap on a NaN: the caller runs it in
 * CLMAX_FLOAT_MODE_OK only. Returns the value's bits, a NaN's bits where the stretch holds one.
 * e - b >= 16 vectors. */
#define FMAX(NAME, W, FT, VT, PS, OP)                                                              \
    AVX512 static uint##W##_t NAME(const FT *x, uint64_t b, uint64_t e)                            \
    {                                                                                              \
        const uint64_t V = 64 / sizeof(FT);                                                        \
        VT m[4], s[4];                                                                             \
        m[0] = m[1] = m[2] = m[3] = _mm512_loadu_p##PS(x + b);                                     \
        s[0] = s[1] = s[2] = s[3] = _mm512_setzero_p##PS();                                        \
        s[0] = m[0];                                                                               \
        uint64_t j = b + ((64 - (uintptr_t)(x + b) % 64) % 64) / sizeof(FT);                       \
        for (; j + 4 * V <= e; j += 4 * V)                                                         \
            for (int q = 0; q < 4; q++) {                                                          \
                VT a = _mm512_loadu_p##PS(x + j + q * V);                                          \
                KEEP(a);                                                                           \
                m[q] = _mm512_##OP##_p##PS(a, m[q]);                                               \
                s[q] = _mm512_add_p##PS(s[q], a);                                                  \
            }                                                                                      \
        for (int q = 1; q < 4; q++) {                                                              \
            m[0] = _mm512_##OP##_p##PS(m[q], m[0]);                                                \
            s[0] = _mm512_add_p##PS(s[0], s[q]);                                                   \
        }                                                                                          \
        for (;; j += V) {                                                                          \
            int end = j + V >= e;                                                                  \
            VT a = _mm512_loadu_p##PS(x + (end ? e - V : j));                                      \
            m[0] = _mm512_##OP##_p##PS(a, m[0]);                                                   \
            s[0] = _mm512_add_p##PS(s[0], a);                                                      \
            if (end) break;                                                                        \
        }                                                                                          \
        if (_mm512_cmp_p##PS##_mask(s[0], s[0], _CMP_UNORD_Q))                                     \
            for (uint64_t k = b; k < e; k++)                                                       \
                if (x[k] != x[k]) return fbits##W(x[k]);                                           \
        /* no NaN here, and DAZ clear: the lanes' max (min) in a tree of shuffles is exact */      \
        return fbits##W(_mm512_reduce_##OP##_p##PS(m[0]));                                         \
    }

/* fbitsW: a float's bits. */
#define FBITS(W, FT)                                                                               \
    static inline uint##W##_t fbits##W(FT f)                                                       \
    {                                                                                              \
        uint##W##_t u;                                                                             \
        memcpy(&u, &f, sizeof u);                                                                  \
        return u;                                                                                  \
    }
FBITS(32, float)
FBITS(64, double)
FMAX(fmax32, 32, float, __m512, s, max)
FMAX(fmin32, 32, float, __m512, s, min)
FMAX(fmax64, 64, double, __m512d, d, max)
FMAX(fmin64, 64, double, __m512d, d, min)

/* float16 in AVX512-FP16 (GCC 12 and later; Sapphire Rapids and later cores): the same two
 * operations on 32 elements a vector. An all-float16 sum reaches inf soon, but a lane turns NaN
 * only where it meets a NaN or an infinity of the other sign, as above. */
#if __GNUC__ >= 12
#define HAVE_FMAX16 1
#undef AVX512
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512fp16,avx2")))
FBITS(16, _Float16)
FMAX(fmax16, 16, _Float16, __m512h, h, max)
FMAX(fmin16, 16, _Float16, __m512h, h, min)
#undef AVX512
#define AVX512 __attribute__((target("avx512f,avx512bw,avx2")))
#endif

/* The first (last) j in x[b..e) where (x[j] & am) == r, or > r as signed integers when gt (am
 * then clears the sign bit): a vector compare a step, two vectors a step, the vector that holds a
 * match searched by its bits (EB bits an element). A match is known to be there; e - b >= 2
 * vectors. The tails load vectors that end at e (start at b): their elements already tested had
 * no match, so the first (last) match found in them is the one. */
#define FIND(NAME, TGT, W, T, ST, VB, VT, P, SET1, LOAD, HITS, EB)                                 \
    TGT static uint64_t NAME(const T *x, uint64_t b, uint64_t e, T am, T r, int gt, int last)      \
    {                                                                                              \
        const uint64_t V = VB / 8 / sizeof(T);                                                     \
        const VT vm = SET1((ST)am), vr = SET1((ST)r);                                              \
        if (!last) {                                                                               \
            uint64_t j = b;                                                                        \
            for (; j + 2 * V <= e; j += 2 * V) {                                                   \
                uint64_t h0 = HITS(P, W, LOAD(x + j)), h1 = HITS(P, W, LOAD(x + j + V));           \
                if (h0 | h1)                                                                       \
                    return h0 ? j + (uint64_t)__builtin_ctzll(h0) / EB                             \
                              : j + V + (uint64_t)__builtin_ctzll(h1) / EB;                        \
            }                                                                                      \
            for (; j < e; j += V) {                                                                \
                uint64_t s = j + V > e ? e - V : j, h = HITS(P, W, LOAD(x + s));                   \
                if (h) return s + (uint64_t)__builtin_ctzll(h) / EB;                               \
            }                                                                                      \
            return e - 1; /* not reached: a match is there */                                      \
        }                                                                                          \
        uint64_t j = e;                                                                            \
        for (; j - b >= 2 * V; j -= 2 * V) {                                                       \
            uint64_t h1 = HITS(P, W, LOAD(x + j - V)), h0 = HITS(P, W, LOAD(x + j - 2 * V));       \
            if (h1 | h0)                                                                           \
                return h1 ? j - V + (uint64_t)(63 - __builtin_clzll(h1)) / EB                      \
                          : j - 2 * V + (uint64_t)(63 - __builtin_clzll(h0)) / EB;                 \
        }                                                                                          \
        for (; j > b; j -= V) {                                                                    \
            uint64_t s = j - b < V ? b : j - V, h = HITS(P, W, LOAD(x + s));                       \
            if (h) return s + (uint64_t)(63 - __builtin_clzll(h)) / EB;                            \
        }                                                                                          \
        return b; /* not reached */                                                                \
    }

/* The match bits of a vector a: one a byte of each element in AVX2 (movemask), one an element in
 * AVX-512 (a mask register). */
#define HITS256(P, W, a)                                                                           \
    ((uint64_t)(uint32_t)_mm256_movemask_epi8(                                                     \
        gt ? _mm256_cmpgt_epi##W(_mm256_and_si256((a), vm), vr)                                    \
           : _mm256_cmpeq_epi##W(_mm256_and_si256((a), vm), vr)))
#define HITS512(P, W, a)                                                                           \
    ((uint64_t)(gt ? _mm512_cmpgt_epi##W##_mask(_mm512_and_si512((a), vm), vr)                     \
                   : _mm512_cmpeq_epi##W##_mask(_mm512_and_si512((a), vm), vr)))
FIND(find16_avx2, AVX2, 16, uint16_t, int16_t, 256, __m256i, _mm256, _mm256_set1_epi16, LOAD256,
     HITS256, 2)
FIND(find32_avx2, AVX2, 32, uint32_t, int32_t, 256, __m256i, _mm256, _mm256_set1_epi32, LOAD256,
     HITS256, 4)
FIND(find64_avx2, AVX2, 64, uint64_t, int64_t, 256, __m256i, _mm256, _mm256_set1_epi64x, LOAD256,
     HITS256, 8)
FIND(find16_avx512, AVX512, 16, uint16_t, int16_t, 512, __m512i, _mm512, _mm512_set1_epi16, LOAD512,
     HITS512, 1)
FIND(find32_avx512, AVX512, 32, uint32_t, int32_t, 512, __m512i, _mm512, _mm512_set1_epi32, LOAD512,
     HITS512, 1)
FIND(find64_avx512, AVX512, 64, uint64_t, int64_t, 512, __m512i, _mm512, _mm512_set1_epi64, LOAD512,
     HITS512, 1)

/* 1: neither, 2: AVX2, 3: AVX-512BW */
static int simd_level(void)
{
    return clmax_cpu_has(CLMAX_CPU_AVX512BW) ? 3 : clmax_cpu_has(CLMAX_CPU_AVX2) ? 2 : 1;
}

int clmax_block_extremes16(const uint16_t *x, uint64_t b, uint64_t e, int pf, uint64_t run_bytes,
                           int min, int wide, clmax_extremes16 *out)
{
    int k = simd_level();
    if (k == 3 && !wide) k = 2;
    if (k == 3)
        (min ? min16_avx512 : max16_avx512)(x, b, e, pf, run_bytes, out);
    else if (k == 2)
        (min ? min16_avx2 : max16_avx2)(x, b, e, pf, run_bytes, out);
    return k >= 2;
}

int clmax_block_extremes32(const uint32_t *x, uint64_t b, uint64_t e, int pf, uint64_t run_bytes,
                           int min, int wide, clmax_extremes32 *out)
{
    int k = simd_level();
    if (k == 3 && !wide) k = 2;
    if (k == 3)
        (min ? min32_avx512 : max32_avx512)(x, b, e, pf, run_bytes, out);
    else if (k == 2)
        (min ? min32_avx2 : max32_avx2)(x, b, e, pf, run_bytes, out);
    return k >= 2;
}

/* One function a width: its AVX-512 or AVX2 form, or 0 (the caller's scalar search runs). */
#define FIND_ENTRY(W, T)                                                                           \
    int clmax_block_find##W(const T *x, uint64_t b, uint64_t e, T am, T r, int gt, int last,       \
                            int wide, uint64_t *at)                                                \
    {                                                                                              \
        int k = simd_level();                                                                      \
        if (k == 3 && wide)                                                                        \
            *at = find##W##_avx512(x, b, e, am, r, gt, last);                                      \
        else if (k >= 2)                                                                           \
            *at = find##W##_avx2(x, b, e, am, r, gt, last);                                        \
        return k >= 2;                                                                             \
    }
FIND_ENTRY(16, uint16_t)
FIND_ENTRY(32, uint32_t)
FIND_ENTRY(64, uint64_t)

/* The float max (min) in 512-bit vectors where the CPU has them and they are allowed, and the
 * caller's MXCSR is in the mode where float compares order as the keys do and no NaN traps
 * (CLMAX_FLOAT_MODE_OK, cpu_short.h). */
#define FMAX_ENTRY(W, FT)                                                                          \
    int clmax_block_fmax##W(const void *x, uint64_t b, uint64_t e, int min, int wide,              \
                            uint##W##_t *bits)                                                     \
    {                                                                                              \
        const unsigned csr = _mm_getcsr();                                                         \
        if (!wide || simd_level() < 3 || (csr & CLMAX_FLOAT_MODE_BITS) != CLMAX_FLOAT_MODE_OK)     \
            return 0;                                                                              \
        *bits = (min ? fmin##W : fmax##W)((const FT *)x, b, e);                                    \
        return 1; /* the flags raised stay until the call returns (host/fpenv.h) */                \
    }
FMAX_ENTRY(32, float)
FMAX_ENTRY(64, double)

int clmax_block_fmax16(const void *x, uint64_t b, uint64_t e, int min, int wide, uint16_t *bits)
{
#ifdef HAVE_FMAX16
    const unsigned csr = _mm_getcsr();
    if (!wide || !clmax_cpu_has(CLMAX_CPU_AVX512FP16) || simd_level() < 3 ||
        (csr & CLMAX_FLOAT_MODE_BITS) != CLMAX_FLOAT_MODE_OK)
        return 0;
    *bits = (min ? fmin16 : fmax16)((const _Float16 *)x, b, e);
    return 1;
#else
    (void)x, (void)b, (void)e, (void)min, (void)wide, (void)bits;
    return 0;
#endif
}

#endif
