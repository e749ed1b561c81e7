/* The float extremes of cpu_block.h in AVX-512BW or AVX2 vectors, for float16, bfloat16 and
 * float32 stretches. GCC vectorised the scalar form with one vector a chain and reduced it across
 * the vector after every run of ROW_RUN bytes; these keep each extreme in four vectors
 * (independent chains of one-cycle operations), reduced once per stretch (the figures:
 * docs/PERFORMANCE.md, "Cache-hot latency"). */
#include "cpu_block.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)

#include <immintrin.h>
#include <stdatomic.h>

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

/* 0: not asked yet, 1: neither, 2: AVX2, 3: AVX-512BW */
static int simd_level(void)
{
    static atomic_int known;
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k == 0) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("avx512bw") ? 3 : __builtin_cpu_supports("avx2") ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k;
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

#endif
