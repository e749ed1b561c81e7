/* ArgMax and ArgMin on the CPU path of float32 slices of 3 to 32 lanes, float16 ones of 3 to 16
 * and float64 ones of 2 to 16, in 512-bit vectors (float16 widened to float32, which is exact): a
 * slot of 16, 32 or 64 bytes holds one row of one slice (rows of 65 to 128 bytes: two vectors; the
 * lanes past the row's zero), so that a vector holds row j of 4, 2 or 1 slices side by side,
 * loaded by masked loads (nothing past a row is read) and compared as floats, with a running best
 * and row index a position. The floats' own compares order values as the keys do but for NaN (+0
 * and -0 equal, denormals by value in the default float mode), so a group of slices that meets a
 * NaN is searched again by the type's lanes code. The winners are the index vector's positions
 * that hold a lane, compressed and widened to int64.
 *
 * Why: the transposed slices (cpu_transposed.c, AVX2) turn every element into its key, a few
 * vector operations, and the longer slices went to codes that read a slice at a time, where PoCL's
 * kernels on the same two cores read float32 [B, 8..32, 3] 1.3 to 1.7 times as fast. In turns with
 * those codes (3 rounds, 128 MiB, clmax-bench --sweep --backend=cpu, ratio of the limit): float32
 * [B, 2..32, 3] 0.48-0.72 -> 0.88-1.07, [B, 2..32, 7] x1.20-1.66, [B, 2..100, 12..16] x1.07-1.56;
 * float64 [B, 2..100, 2] x1.15-2.04, [B, 2..100, 3..4] x1.3-2.2 (0.43-0.65 -> 0.77-1.2), [B,
 * 2..100, 5..8] x1.76-2.60 (0.41-0.63 -> 0.92-1.20), [B, 2..256, 9..16] x1.12-2.62 (0.36-0.80 ->
 * 0.76-1.03); float32 [B, 2..100, 17..32] x1.50-2.70 (0.38-0.62 -> 0.85-1.12). Without the
 * prefetch cursor (clmax_cpu_pf) the loads waited on memory: float32 [B, 21..64, 3] ran at
 * 0.43-0.47. */
#include "cpu_slots.h"

#include "cpu_short.h"

#if CLMAX_LANES_512

#include <immintrin.h>

#define CHUNK 64 /* groups whose winners go through the buffer at a time */
/* The longest axes taken, from the codes before (in turns, 3 rounds, 128 MiB, clmax-bench --sweep
 * --backend=cpu): float32 of 3 to 8 lanes up to 64 rows (x1.06-2.10 at 40 to 64, x0.65-0.95 at
 * 128 to 1000) but of 4 lanes up to 40 (x0.88-0.98 at 48 to 64), of 9 to 32 up to 100 (x0.86-1.01
 * at 256); float64 up to 256 (x0.86 at [B, 1000, 3], x0.84-0.96 at [B, 1000..4096, 9..16]). */
#define SLOTS_F32_N 64
#define SLOTS_F32_N4 40
#define SLOTS_F32_N16 100
#define SLOTS_F64_N 256
/* float16, widened to float32 in the slots (a conversion a row a slice): of 3 lanes up to 5 rows
 * (x1.02-1.25 at 2 to 5, x0.98-1.06 at 8 to 32), of 5 to 8 up to 21 (x1.03-1.43, x0.73-0.90 at 64
 * and more), of 9 to 16 up to 16 (x1.03-1.49, x0.84-0.97 at 21 and more); not of 2 (x0.38-0.72
 * everywhere: four slices of two lanes a vector) nor of 4 (x0.91-0.95 on 2 to 5 rows, against
 * the transposed rows of 8 bytes). */
#define SLOTS_F16_N3 5
#define SLOTS_F16_N 21
#define SLOTS_F16_N16 16

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx2,f16c")

enum { OP_GT, OP_GE, OP_LT, OP_LE }; /* a row replaces the best: ArgMax first, last; ArgMin */
enum { KIND_F32, KIND_F64, KIND_F16 };

/* Row j of 4 slices (stride bytes apart) from r, each in a 16-byte slot; k: a row's 32-bit words */
static inline __attribute__((always_inline)) __m512i rows16(const char *r, uint64_t stride,
                                                            __mmask8 k)
{
    __m512i v = _mm512_castsi128_si512(_mm_maskz_loadu_epi32(k, r));
    v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi32(k, r + stride), 1);
    v = _mm512_inserti32x4(v, _mm_maskz_loadu_epi32(k, r + 2 * stride), 2);
    return _mm512_inserti32x4(v, _mm_maskz_loadu_epi32(k, r + 3 * stride), 3);
}

/* The same for 2 slices in 32-byte slots. */
static inline __attribute__((always_inline)) __m512i rows32(const char *r, uint64_t stride,
                                                            __mmask8 k)
{
    const __m512i v = _mm512_castsi256_si512(_mm256_maskz_loadu_epi32(k, r));
    return _mm512_inserti64x4(v, _mm256_maskz_loadu_epi32(k, r + stride), 1);
}

static inline __attribute__((always_inline)) __m512i rows(const char *r, uint64_t stride,
                                                          __mmask16 k, const int sb)
{
    if (sb == 64) return _mm512_maskz_loadu_epi32(k, r); /* one slice a vector */
    return sb == 16 ? rows16(r, stride, (__mmask8)k) : rows32(r, stride, (__mmask8)k);
}

static inline __attribute__((always_inline)) __mmask16 cmp_ps(__m512 v, __m512 b, const int op)
{
    switch (op) {
    case OP_GT:
        return _mm512_cmp_ps_mask(v, b, _CMP_GT_OQ);
    case OP_GE:
        return _mm512_cmp_ps_mask(v, b, _CMP_GE_OQ);
    case OP_LT:
        return _mm512_cmp_ps_mask(v, b, _CMP_LT_OQ);
    default:
        return _mm512_cmp_ps_mask(v, b, _CMP_LE_OQ);
    }
}

static inline __attribute__((always_inline)) __mmask8 cmp_pd(__m512d v, __m512d b, const int op)
{
    switch (op) {
    case OP_GT:
        return _mm512_cmp_pd_mask(v, b, _CMP_GT_OQ);
    case OP_GE:
        return _mm512_cmp_pd_mask(v, b, _CMP_GE_OQ);
    case OP_LT:
        return _mm512_cmp_pd_mask(v, b, _CMP_LT_OQ);
    default:
        return _mm512_cmp_pd_mask(v, b, _CMP_LE_OQ);
    }
}

/* Row j of float16 slices, each row widened to float32 in its slot (sb: the float32 slot's bytes);
 * k: a row's halves. The widening is exact, so float32 compares order them as float16 ones. */
static inline __attribute__((always_inline)) __m512 rows_f16(const char *r, uint64_t stride,
                                                             __mmask16 k, const int sb)
{
    if (sb == 64) return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, r));
    if (sb == 32) {
        const __m512d lo = _mm512_castpd256_pd512(
            _mm256_castps_pd(_mm256_cvtph_ps(_mm_maskz_loadu_epi16((__mmask8)k, r))));
        return _mm512_castpd_ps(_mm512_insertf64x4(
            lo, _mm256_castps_pd(_mm256_cvtph_ps(_mm_maskz_loadu_epi16((__mmask8)k, r + stride))),
            1));
    }
    __m512 v = _mm512_castps128_ps512(_mm_cvtph_ps(_mm_maskz_loadu_epi16((__mmask8)k, r)));
    v = _mm512_insertf32x4(v, _mm_cvtph_ps(_mm_maskz_loadu_epi16((__mmask8)k, r + stride)), 1);
    v = _mm512_insertf32x4(v, _mm_cvtph_ps(_mm_maskz_loadu_epi16((__mmask8)k, r + 2 * stride)), 2);
    return _mm512_insertf32x4(v, _mm_cvtph_ps(_mm_maskz_loadu_epi16((__mmask8)k, r + 3 * stride)),
                              3);
}

static inline __attribute__((always_inline)) __m512
rows_ps(const char *r, uint64_t stride, __mmask16 k, const int sb, const int half)
{
    return half ? rows_f16(r, stride, k, sb) : _mm512_castsi512_ps(rows(r, stride, k, sb));
}

/* One group of float32 (or, half, float16) slices from x (n rows of rb bytes, slices stride bytes
 * apart): 16 int64 into o, the kept positions (keep) first; 0 if a NaN was met. */
static inline __attribute__((always_inline)) int group_f32(const char *x, uint64_t stride,
                                                           uint64_t n, uint64_t rb, __mmask16 k,
                                                           __mmask16 keep, int64_t *o, const int sb,
                                                           const int op, const int half)
{
    __m512 b = rows_ps(x, stride, k, sb, half);
    __mmask16 nan = _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q);
    __m512i bi = _mm512_setzero_si512(), jv = bi;
    const __m512i one = _mm512_set1_epi32(1);
    for (uint64_t j = 1; j < n; j++) {
        x += rb;
        const __m512 v = rows_ps(x, stride, k, sb, half);
        jv = _mm512_add_epi32(jv, one);
        const __mmask16 m = cmp_ps(v, b, op);
        nan = (__mmask16)(nan | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
        b = _mm512_mask_mov_ps(b, m, v);
        bi = _mm512_mask_mov_epi32(bi, m, jv);
    }
    if (nan) return 0;
    const __m512i c = _mm512_maskz_compress_epi32(keep, bi);
    _mm512_storeu_si512(o, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(c)));
    _mm512_storeu_si512(o + 8, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(c, 1)));
    return 1;
}

/* The same for float64: 8 int64 into o. */
static inline __attribute__((always_inline)) int group_f64(const char *x, uint64_t stride,
                                                           uint64_t n, uint64_t rb, __mmask16 k,
                                                           __mmask8 keep, int64_t *o, const int sb,
                                                           const int op)
{
    __m512d b = _mm512_castsi512_pd(rows(x, stride, k, sb));
    __mmask8 nan = _mm512_cmp_pd_mask(b, b, _CMP_UNORD_Q);
    __m512i bi = _mm512_setzero_si512(), jv = bi;
    const __m512i one = _mm512_set1_epi64(1);
    for (uint64_t j = 1; j < n; j++) {
        x += rb;
        const __m512d v = _mm512_castsi512_pd(rows(x, stride, k, sb));
        jv = _mm512_add_epi64(jv, one);
        const __mmask8 m = cmp_pd(v, b, op);
        nan = (__mmask8)(nan | _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q));
        b = _mm512_mask_mov_pd(b, m, v);
        bi = _mm512_mask_mov_epi64(bi, m, jv);
    }
    if (nan) return 0;
    _mm512_storeu_si512(o, _mm512_maskz_compress_epi64(keep, bi));
    return 1;
}

/* One float64 slice of 9 to 16 lanes, a row two vectors (k2: the second's lanes): 16 int64 into o,
 * its lanes' winners first; 0 if a NaN was met. */
static inline __attribute__((always_inline)) int group_f64x2(const char *x, uint64_t n, uint64_t rb,
                                                             __mmask8 k2, int64_t *o, const int op)
{
    __m512d b0 = _mm512_loadu_pd(x), b1 = _mm512_maskz_loadu_pd(k2, x + 64);
    __mmask8 nan = (__mmask8)(_mm512_cmp_pd_mask(b0, b0, _CMP_UNORD_Q) |
                              _mm512_cmp_pd_mask(b1, b1, _CMP_UNORD_Q));
    __m512i i0 = _mm512_setzero_si512(), i1 = i0, jv = i0;
    const __m512i one = _mm512_set1_epi64(1);
    for (uint64_t j = 1; j < n; j++) {
        x += rb;
        const __m512d v0 = _mm512_loadu_pd(x), v1 = _mm512_maskz_loadu_pd(k2, x + 64);
        jv = _mm512_add_epi64(jv, one);
        const __mmask8 m0 = cmp_pd(v0, b0, op), m1 = cmp_pd(v1, b1, op);
        nan = (__mmask8)(nan | _mm512_cmp_pd_mask(v0, v0, _CMP_UNORD_Q) |
                         _mm512_cmp_pd_mask(v1, v1, _CMP_UNORD_Q));
        b0 = _mm512_mask_mov_pd(b0, m0, v0);
        b1 = _mm512_mask_mov_pd(b1, m1, v1);
        i0 = _mm512_mask_mov_epi64(i0, m0, jv);
        i1 = _mm512_mask_mov_epi64(i1, m1, jv);
    }
    if (nan) return 0;
    _mm512_storeu_si512(o, i0);
    _mm512_storeu_si512(o + 8, i1);
    return 1;
}

/* One float32 slice of 17 to 32 lanes, a row two vectors: 32 int64 into o, its lanes' winners
 * first; 0 if a NaN was met. */
static inline __attribute__((always_inline)) int group_f32x2(const char *x, uint64_t n, uint64_t rb,
                                                             __mmask16 k2, int64_t *o, const int op)
{
    __m512 b0 = _mm512_loadu_ps(x), b1 = _mm512_maskz_loadu_ps(k2, x + 64);
    __mmask16 nan = (__mmask16)(_mm512_cmp_ps_mask(b0, b0, _CMP_UNORD_Q) |
                                _mm512_cmp_ps_mask(b1, b1, _CMP_UNORD_Q));
    __m512i i0 = _mm512_setzero_si512(), i1 = i0, jv = i0;
    const __m512i one = _mm512_set1_epi32(1);
    for (uint64_t j = 1; j < n; j++) {
        x += rb;
        const __m512 v0 = _mm512_loadu_ps(x), v1 = _mm512_maskz_loadu_ps(k2, x + 64);
        jv = _mm512_add_epi32(jv, one);
        const __mmask16 m0 = cmp_ps(v0, b0, op), m1 = cmp_ps(v1, b1, op);
        nan = (__mmask16)(nan | _mm512_cmp_ps_mask(v0, v0, _CMP_UNORD_Q) |
                          _mm512_cmp_ps_mask(v1, v1, _CMP_UNORD_Q));
        b0 = _mm512_mask_mov_ps(b0, m0, v0);
        b1 = _mm512_mask_mov_ps(b1, m1, v1);
        i0 = _mm512_mask_mov_epi32(i0, m0, jv);
        i1 = _mm512_mask_mov_epi32(i1, m1, jv);
    }
    if (nan) return 0;
    _mm512_storeu_si512(o, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(i0)));
    _mm512_storeu_si512(o + 8, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(i0, 1)));
    _mm512_storeu_si512(o + 16, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(i1)));
    _mm512_storeu_si512(o + 24, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(i1, 1)));
    return 1;
}

/* The slices, a group of 64 / sb at a time (one where a row is two vectors, sb 128); the last ones
 * and those of a group that met a NaN through the lanes code, one slice at a time. */
static inline __attribute__((always_inline)) void run(const clmax_problem *p, const char *x,
                                                      uint64_t slices, int stream, lanes_fn lanes,
                                                      int64_t *out, const int kind, const int sb,
                                                      const int op)
{
    const uint64_t in = p->inner, rb = in * p->esize, sl = p->n * rb;
    const uint64_t g = sb >= 64 ? 1 : 64 / (uint64_t)sb;
    const uint64_t per = g * in; /* winners a group */
    /* a row's 32-bit words, or its halves; the float32 or float64 positions of a slot */
    const __mmask16 k = (__mmask16)(((uint64_t)1 << (kind == KIND_F16 ? in : rb / 4)) - 1);
    const uint64_t slot = (uint64_t)sb / (kind == KIND_F64 ? 8 : 4);
    uint64_t keep = 0; /* rows of 32 lanes shift by 32: in 64 bits (unused there) */
    for (uint64_t s = 0; s < g; s++)
        keep |= (((uint64_t)1 << in) - 1) << (s * slot);
    int64_t buf[(CHUNK + 2) * 32]; /* CHUNK groups' winners, and a group's 32 stores past them */
    uint64_t done = 0, pos = 0;
    uintptr_t pf = clmax_cpu_pf_start(x);
    for (uint64_t s = 0; s < slices;) {
        const char *xs = x + s * sl;
        clmax_cpu_pf(&pf, xs + g * sl);
        int ok = s + g <= slices;
        if (ok && sb == 128 && kind == KIND_F32)
            ok = group_f32x2(xs, p->n, rb, (__mmask16)((1u << (in - 16)) - 1), buf + pos, op);
        else if (ok && sb == 128)
            ok = group_f64x2(xs, p->n, rb, (__mmask8)((1u << (in - 8)) - 1), buf + pos, op);
        else if (ok && kind == KIND_F64)
            ok = group_f64(xs, sl, p->n, rb, k, (__mmask8)keep, buf + pos, sb, op);
        else if (ok)
            ok = group_f32(xs, sl, p->n, rb, k, (__mmask16)keep, buf + pos, sb, op,
                           kind == KIND_F16);
        if (ok) {
            pos += per;
            s += g;
        } else {
            const uint64_t e = s + g <= slices ? s + g : slices;
            for (; s < e; s++) {
                uint64_t bk[32], bi[32], work[64]; /* work: 16 bytes a lane */
                lanes(x + s * sl, in, in, 0, p->n, p->last, bk, bi, work);
                for (uint64_t l = 0; l < in; l++)
                    buf[pos++] = (int64_t)bi[l];
            }
        }
        if (pos >= (stream ? CLMAX_PUT_STREAMED(CHUNK) : CHUNK) * per) {
            clmax_cpu_put(out + done, buf, pos, stream);
            done += pos;
            pos = 0;
        }
    }
    clmax_cpu_put(out + done, buf, pos, stream);
}

/* One function a (type, slot, rule), the rule and the slot constants in its loop. */
#define SLOTS_FN(name, kind, sb, op)                                                               \
    static __attribute__((noinline)) void name(const clmax_problem *p, const char *x,              \
                                               uint64_t slices, int stream, lanes_fn lanes,        \
                                               int64_t *out)                                       \
    {                                                                                              \
        run(p, x, slices, stream, lanes, out, kind, sb, op);                                       \
    }
SLOTS_FN(f32_16_gt, KIND_F32, 16, OP_GT)
SLOTS_FN(f32_16_ge, KIND_F32, 16, OP_GE)
SLOTS_FN(f32_16_lt, KIND_F32, 16, OP_LT)
SLOTS_FN(f32_16_le, KIND_F32, 16, OP_LE)
SLOTS_FN(f32_32_gt, KIND_F32, 32, OP_GT)
SLOTS_FN(f32_32_ge, KIND_F32, 32, OP_GE)
SLOTS_FN(f32_32_lt, KIND_F32, 32, OP_LT)
SLOTS_FN(f32_32_le, KIND_F32, 32, OP_LE)
SLOTS_FN(f32_64_gt, KIND_F32, 64, OP_GT)
SLOTS_FN(f32_64_ge, KIND_F32, 64, OP_GE)
SLOTS_FN(f32_64_lt, KIND_F32, 64, OP_LT)
SLOTS_FN(f32_64_le, KIND_F32, 64, OP_LE)
SLOTS_FN(f32_128_gt, KIND_F32, 128, OP_GT)
SLOTS_FN(f32_128_ge, KIND_F32, 128, OP_GE)
SLOTS_FN(f32_128_lt, KIND_F32, 128, OP_LT)
SLOTS_FN(f32_128_le, KIND_F32, 128, OP_LE)
SLOTS_FN(f64_16_gt, KIND_F64, 16, OP_GT)
SLOTS_FN(f64_16_ge, KIND_F64, 16, OP_GE)
SLOTS_FN(f64_16_lt, KIND_F64, 16, OP_LT)
SLOTS_FN(f64_16_le, KIND_F64, 16, OP_LE)
SLOTS_FN(f64_32_gt, KIND_F64, 32, OP_GT)
SLOTS_FN(f64_32_ge, KIND_F64, 32, OP_GE)
SLOTS_FN(f64_32_lt, KIND_F64, 32, OP_LT)
SLOTS_FN(f64_32_le, KIND_F64, 32, OP_LE)
SLOTS_FN(f64_64_gt, KIND_F64, 64, OP_GT)
SLOTS_FN(f64_64_ge, KIND_F64, 64, OP_GE)
SLOTS_FN(f64_64_lt, KIND_F64, 64, OP_LT)
SLOTS_FN(f64_64_le, KIND_F64, 64, OP_LE)
SLOTS_FN(f64_128_gt, KIND_F64, 128, OP_GT)
SLOTS_FN(f64_128_ge, KIND_F64, 128, OP_GE)
SLOTS_FN(f64_128_lt, KIND_F64, 128, OP_LT)
SLOTS_FN(f64_128_le, KIND_F64, 128, OP_LE)
SLOTS_FN(f16_16_gt, KIND_F16, 16, OP_GT)
SLOTS_FN(f16_16_ge, KIND_F16, 16, OP_GE)
SLOTS_FN(f16_16_lt, KIND_F16, 16, OP_LT)
SLOTS_FN(f16_16_le, KIND_F16, 16, OP_LE)
SLOTS_FN(f16_32_gt, KIND_F16, 32, OP_GT)
SLOTS_FN(f16_32_ge, KIND_F16, 32, OP_GE)
SLOTS_FN(f16_32_lt, KIND_F16, 32, OP_LT)
SLOTS_FN(f16_32_le, KIND_F16, 32, OP_LE)
SLOTS_FN(f16_64_gt, KIND_F16, 64, OP_GT)
SLOTS_FN(f16_64_ge, KIND_F16, 64, OP_GE)
SLOTS_FN(f16_64_lt, KIND_F16, 64, OP_LT)
SLOTS_FN(f16_64_le, KIND_F16, 64, OP_LE)

#pragma GCC pop_options

typedef void (*slots_fn)(const clmax_problem *, const char *, uint64_t, int, lanes_fn, int64_t *);

int clmax_cpu_slots_fits(const clmax_problem *p, int wide)
{
    if (!wide || p->n < 2) return 0;
    if (p->type == CLMAX_TYPE_FLOAT32)
        return p->inner >= 3 && p->inner <= 32 &&
               p->n <= (p->inner == 4   ? SLOTS_F32_N4
                        : p->inner <= 8 ? SLOTS_F32_N
                                        : SLOTS_F32_N16);
    if (p->type == CLMAX_TYPE_FLOAT64)
        return p->inner >= 2 && p->inner <= 16 && p->n <= SLOTS_F64_N;
    if (p->type == CLMAX_TYPE_FLOAT16)
        return p->inner >= 3 && p->inner <= 16 && p->inner != 4 &&
               p->n <= (p->inner == 3   ? SLOTS_F16_N3
                        : p->inner <= 8 ? SLOTS_F16_N
                                        : SLOTS_F16_N16);
    return 0;
}

int clmax_cpu_slots(const clmax_problem *p, const void *x, uint64_t slices, int stream,
                    lanes_fn lanes, int64_t *out)
{
    if ((_mm_getcsr() & CLMAX_FLOAT_MODE_BITS) != CLMAX_FLOAT_MODE_OK) return 0;
    static const slots_fn fns[3][4][4] = {
        {{f32_16_gt, f32_16_ge, f32_16_lt, f32_16_le},
         {f32_32_gt, f32_32_ge, f32_32_lt, f32_32_le},
         {f32_64_gt, f32_64_ge, f32_64_lt, f32_64_le},
         {f32_128_gt, f32_128_ge, f32_128_lt, f32_128_le}},
        {{f64_16_gt, f64_16_ge, f64_16_lt, f64_16_le},
         {f64_32_gt, f64_32_ge, f64_32_lt, f64_32_le},
         {f64_64_gt, f64_64_ge, f64_64_lt, f64_64_le},
         {f64_128_gt, f64_128_ge, f64_128_lt, f64_128_le}},
        {{f16_16_gt, f16_16_ge, f16_16_lt, f16_16_le},
         {f16_32_gt, f16_32_ge, f16_32_lt, f16_32_le},
         {f16_64_gt, f16_64_ge, f16_64_lt, f16_64_le}},
    };
    const int kind = p->esize == 8 ? KIND_F64 : p->esize == 2 ? KIND_F16 : KIND_F32;
    /* the slot's bytes in the vector: float16 rows widened to float32 */
    const uint64_t rb = p->inner * (kind == KIND_F16 ? 4 : p->esize);
    fns[kind][rb <= 16   ? 0
              : rb <= 32 ? 1
              : rb <= 64 ? 2
                         : 3][2 * p->min + p->last](p, x, slices, stream, lanes, out);
    return 1;
}

#else

int clmax_cpu_slots_fits(const clmax_problem *p, int wide)
{
    (void)p;
    (void)wide;
    return 0;
}

int clmax_cpu_slots(const clmax_problem *p, const void *x, uint64_t slices, int stream,
                    lanes_fn lanes, int64_t *out)
{
    (void)p, (void)x, (void)slices, (void)stream, (void)lanes, (void)out;
    return 0;
}

#endif
