/* ArgMax and ArgMin on the CPU path of slices [B, n, inner] of few lanes (2 to 32 one-byte, 2 to
 * 16 two-byte, 2 four-byte, 2 and 4 eight-byte): a slice's elements are read as one stream of
 * 32-byte vectors of V = 32 / esize elements, at offsets k * P elements, P the most whole rows that
 * fit a vector (V / inner of them), so that vector position j always holds lane j % inner of row k
 * * P / inner + j / inner. Each position keeps a running best key and the load number k where it
 * was first (or, select_last_index, last) reached: the keys, then six vector operations a load.
 * After at most 256 loads (a run: the load number fits a byte) the positions j < P are folded into
 * the lanes' winners as 32-bit words key << 16 | load << 8 | position, by key, then load, then
 * position, which is the rows' order.
 *
 * Why: past TRANSPOSED_SLICE_MAX bytes a slice the transposed groups (cpu_transposed.c) lost (eight
 * slices' rows far apart at once), and the dealt rows (cpu_deal.c) copy every element: uint8
 * [B, 64..1024, 2..7] ran at 0.27-0.47 of the limit in the sweep at fe80761. Here a vector costs
 * the same few operations whatever the lanes. In turns with the codes before (3 rounds, the order
 * swapped, clmax-bench --sweep --size=128 --backend=cpu, ratio of the limit): uint8 [B, 100, 2..7]
 * 0.35-0.57 -> 0.50-0.75, [B, 256, 2..4] 0.52-0.60 -> 0.86-0.96, [B, 1024, 2..7] 0.41-0.70 ->
 * 0.92-1.01, [B, 65536, 2..7] 0.44-0.63 -> 0.98-1.04, [B, 21..4096, 16] 0.37-0.84 -> 0.54-1.12.
 * Up to 256 bytes a slice the transposed groups stay ahead (uint8 [B, 32, 4] 0.55 there, 0.25
 * here; [B, 8, 16] 0.52 stacked, 0.22 here): each slice's fold costs about as much as 8 loads.
 * float16, whose keys cost more: [B, 256..4096, 2..16] x0.97-1.17, [B, 65536, 2..7] 0.52-0.74
 * -> 0.77-0.98, but shorter axes lost (STREAMLANES_N_MIN). Four- and eight-byte positions (8 or 4
 * a vector) keep their load number in an element as wide (one run) and are folded one by one:
 * float64 [B, 32..64, 2] 0.41-0.43 -> 0.64-0.69, [B, 64..1000, 4] 0.62-0.78 -> 0.88-0.94,
 * float32 [B, 100..65536, 2] x1.03-1.21; not float32 [B, 64, 2] (x0.81), 3 lanes (float32
 * [B, 21..100, 3] x0.57-0.90, float64 [B, 256..65536, 3] x0.53-0.78: a lane of each vector
 * wasted) nor float32 of 4 lanes (x0.89-1.06).
 *
 * Loads past a slice's last element read into the next slice (positions no fold takes); the last
 * slice's loads that would pass the input's end read from a copy. */
#include "cpu_streamlanes.h"

#include "cpu_features.h"
#include "cpu_short.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

#include "cpu_vec.h"

#define RUN_LOADS 256 /* loads a run: the load number in one byte */
#define CHUNK 64      /* slices whose winners go through the buffer at a time */
#define LANES_MAX 32

#pragma GCC push_options
#pragma GCC target("avx2")

/* 32 bytes of ones then 32 of zeros: bytes below r are (VALID + 32 - r)'s ones. */
static const uint8_t VALID[64] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                  0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                  0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

/* What every slice of a call shares. */
typedef struct shape {
    unsigned inner, P, rows; /* lanes; elements a load: rows whole rows */
    uint64_t loads, tail;    /* a slice's loads, the last one's elements (1..P, whole rows) */
    __m256i flip;     /* integer keys: the elements xor flip (signed: the sign; ArgMin: all bits) */
    __m256i inf, m;   /* float keys: the infinity's bits; ArgMin: all ones */
    __m256i tail_ok;  /* the last load's positions that count */
    uint8_t jrow[32]; /* position j's row in its load */
} shape;

/* The keys of a vector of E-byte elements (fl: floats, cpu_vec.h's keys, ArgMin's reversed by
 * sh->m; else integers, one xor): unsigned, but eight-byte ones signed, for AVX2's signed 64-bit
 * compare. */
static inline __attribute__((always_inline)) __m256i keys(const shape *sh, __m256i v, int E, int fl)
{
    if (!fl) return _mm256_xor_si256(v, sh->flip);
    if (E == 2)
        return (__m256i)CLMAX_VFLOAT_UKEY(vu16, vs16, uint16_t, int16_t, v, (vs16)sh->inf,
                                          (vs16)sh->m);
    if (E == 4)
        return (__m256i)CLMAX_VFLOAT_UKEY(vu32, vs32, uint32_t, int32_t, v, (vs32)sh->inf,
                                          (vs32)sh->m);
    return (__m256i)CLMAX_VFLOAT_SKEY(vu64, vs64, uint64_t, int64_t, v, (vs64)sh->inf, (vs64)sh->m);
}

/* The keys of the 32 bytes at x + o: read in place, or (left: the bytes readable from x, 0 where
 * all are) from a copy, 0 past the input's end, where they would pass it. */
static inline __attribute__((always_inline)) __m256i
keys_at(const shape *sh, const char *x, uint64_t o, uint64_t left, int E, int fl)
{
    if (left && o + 32 > left) {
        _Alignas(32) char pad[32] = {0};
        memcpy(pad, x + o, (size_t)(left - o < 32 ? left - o : 32));
        return keys(sh, _mm256_load_si256((const __m256i *)(const void *)pad), E, fl);
    }
    return keys(sh, _mm256_loadu_si256((const __m256i *)(const void *)(x + o)), E, fl);
}

/* One load's keys v, load number kv, into the positions' best and load number; `ok`: the
 * positions that count (the rest keep theirs). */
static inline __attribute__((always_inline)) void take(__m256i v, __m256i kv, __m256i ok, int E,
                                                       int last, __m256i *best, __m256i *at)
{
    if (E == 8) { /* no 64-bit max: a signed compare of the flipped keys */
        __m256i up = last ? _mm256_xor_si256(_mm256_cmpgt_epi64(*best, v), _mm256_set1_epi8(-1))
                          : _mm256_cmpgt_epi64(v, *best);
        up = _mm256_and_si256(up, ok);
        *best = _mm256_blendv_epi8(*best, v, up);
        *at = _mm256_blendv_epi8(*at, kv, up);
        return;
    }
    const __m256i nb = E == 1   ? _mm256_max_epu8(*best, v)
                       : E == 2 ? _mm256_max_epu16(*best, v)
                                : _mm256_max_epu32(*best, v);
    if (last) { /* ties move on: where v reached the best */
        const __m256i eq = E == 1   ? _mm256_cmpeq_epi8(nb, v)
                           : E == 2 ? _mm256_cmpeq_epi16(nb, v)
                                    : _mm256_cmpeq_epi32(nb, v);
        *at = _mm256_blendv_epi8(*at, kv, _mm256_and_si256(eq, ok));
    } else /* only a greater key moves it */
        *at = _mm256_blendv_epi8(kv, *at,
                                 E == 1   ? _mm256_cmpeq_epi8(nb, *best)
                                 : E == 2 ? _mm256_cmpeq_epi16(nb, *best)
                                          : _mm256_cmpeq_epi32(nb, *best));
    *best = nb;
}

/* The run's positions as 32-bit words key << 16 | load << 8 | position (load and position
 * complemented for the first index, so that the largest word wins) into w[0..V). */
static inline __attribute__((always_inline)) void words(__m256i best, __m256i at, int E, int last,
                                                        uint32_t *w)
{
    if (E == 1) {
        const __m256i pos = _mm256_xor_si256(
            _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                             20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31),
            _mm256_set1_epi8(last ? 0 : 31));
        const __m256i kx = _mm256_xor_si256(at, _mm256_set1_epi8(last ? 0 : -1));
        const __m256i lo16 = _mm256_unpacklo_epi8(pos, kx), hi16 = _mm256_unpackhi_epi8(pos, kx);
        const __m256i z = _mm256_setzero_si256();
        const __m256i blo = _mm256_unpacklo_epi8(best, z), bhi = _mm256_unpackhi_epi8(best, z);
        /* in each 128-bit half: positions 0-3, 4-7, 8-11, 12-15 of that half */
        const __m256i w0 = _mm256_unpacklo_epi16(lo16, blo), w1 = _mm256_unpackhi_epi16(lo16, blo);
        const __m256i w2 = _mm256_unpacklo_epi16(hi16, bhi), w3 = _mm256_unpackhi_epi16(hi16, bhi);
        _mm256_store_si256((__m256i *)(void *)w, _mm256_permute2x128_si256(w0, w1, 0x20));
        _mm256_store_si256((__m256i *)(void *)(w + 8), _mm256_permute2x128_si256(w2, w3, 0x20));
        _mm256_store_si256((__m256i *)(void *)(w + 16), _mm256_permute2x128_si256(w0, w1, 0x31));
        _mm256_store_si256((__m256i *)(void *)(w + 24), _mm256_permute2x128_si256(w2, w3, 0x31));
    } else {
        const __m256i pos = _mm256_xor_si256(
            _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            _mm256_set1_epi16(last ? 0 : 15));
        const __m256i lk = _mm256_or_si256(
            _mm256_slli_epi16(_mm256_xor_si256(at, _mm256_set1_epi16(last ? 0 : 255)), 8), pos);
        /* in each 128-bit half: positions 0-3, 4-7 of that half */
        const __m256i w0 = _mm256_unpacklo_epi16(lk, best), w1 = _mm256_unpackhi_epi16(lk, best);
        _mm256_store_si256((__m256i *)(void *)w, _mm256_permute2x128_si256(w0, w1, 0x20));
        _mm256_store_si256((__m256i *)(void *)(w + 8), _mm256_permute2x128_si256(w0, w1, 0x31));
    }
}

/* kv + 1, lane by lane in E-byte elements. */
static inline __attribute__((always_inline)) __m256i next_load(__m256i kv, int E)
{
    return E == 1   ? _mm256_sub_epi8(kv, _mm256_set1_epi8(-1))
           : E == 2 ? _mm256_sub_epi16(kv, _mm256_set1_epi16(-1))
           : E == 4 ? _mm256_sub_epi32(kv, _mm256_set1_epi32(-1))
                    : _mm256_sub_epi64(kv, _mm256_set1_epi64x(-1));
}

/* Four- and eight-byte positions (8 or 4 a vector, one run) folded one by one: by key, then load
 * (the first or the last), then position, as the loop meets them. */
static inline __attribute__((always_inline)) void
fold_wide(const shape *sh, __m256i best, __m256i at, int E, int last, unsigned fold, int64_t *o)
{
    _Alignas(32) uint32_t b32[8], a32[8];
    _Alignas(32) int64_t b64[4], a64[4];
    if (E == 4) {
        _mm256_store_si256((__m256i *)(void *)b32, best);
        _mm256_store_si256((__m256i *)(void *)a32, at);
    } else {
        _mm256_store_si256((__m256i *)(void *)b64, best);
        _mm256_store_si256((__m256i *)(void *)a64, at);
    }
    int64_t ck[8], cl[8];
    unsigned cj[8];
    for (unsigned j = 0, l = 0; j < fold; j++) {
        const int64_t key = E == 4 ? (int64_t)b32[j] : b64[j], ld = E == 4 ? a32[j] : a64[j];
        if (j < sh->inner || key > ck[l] || (key == ck[l] && (last ? ld >= cl[l] : ld < cl[l])))
            ck[l] = key, cl[l] = ld, cj[l] = j;
        if (++l == sh->inner) l = 0;
    }
    for (unsigned l = 0; l < sh->inner; l++)
        o[l] = (int64_t)((uint64_t)cl[l] * sh->rows + sh->jrow[cj[l]]);
}

/* The winners of the slice at x into o; left: the bytes readable from x where the slice's loads
 * would pass the input's end, else 0. E: bytes an element; fl: float keys. */
static inline __attribute__((always_inline)) void
slice(const shape *sh, const char *x, uint64_t left, int E, int fl, int last, int64_t *o)
{
    const unsigned inner = sh->inner, V = 32 / E;
    const uint64_t loads = sh->loads, PB = (uint64_t)sh->P * E;
    unsigned lane_key[LANES_MAX];
    const __m256i all = _mm256_set1_epi8(-1);
    const uint64_t run = E <= 2 ? RUN_LOADS : loads; /* wider load numbers: one run */
    for (uint64_t k0 = 0; k0 < loads; k0 += run) {
        const uint64_t k1 = loads - k0 < run ? loads : k0 + run;
        const uint64_t kp = k1 == loads ? k1 - 1 : k1; /* the loads before the tail's */
        __m256i best = _mm256_setzero_si256(), at = _mm256_setzero_si256();
        __m256i kv = _mm256_setzero_si256();
        uint64_t k = k0;
        if (k < kp) { /* the run's first load sets the best */
            best = keys_at(sh, x, k * PB, left, E, fl);
            for (k++; k < kp; k++) {
                /* a prefetch a load (32 bytes): float64 [B, 1000..32000, 2] x2.0-2.6 on a VM's
                 * Xeon, whose hardware prefetcher lags (cpu_short.h) */
                _mm_prefetch(x + k * PB + CLMAX_PF_AHEAD, _MM_HINT_T0);
                kv = next_load(kv, E);
                take(keys_at(sh, x, k * PB, left, E, fl), kv, all, E, last, &best, &at);
            }
            kv = next_load(kv, E);
        }
        unsigned fold = sh->P; /* positions j < fold hold keys of this run */
        if (k1 == loads) { /* the tail: its elements' keys, the rest not counted (0, the smallest
                            * key, where take's max would see them; eight-byte take masks) */
            __m256i v = keys_at(sh, x, k * PB, left, E, fl);
            if (E < 8) v = _mm256_and_si256(v, sh->tail_ok);
            if (k == k0) { /* the run is the tail alone */
                best = v;
                fold = (unsigned)sh->tail;
            } else
                take(v, kv, sh->tail_ok, E, last, &best, &at);
        }
        if (E >= 4) {
            fold_wide(sh, best, at, E, last, fold, o);
            return;
        }
        /* fold: a lane's winner is its largest word; the words of a row of `inner` positions are
         * maxed elementwise over the run's rows, 8 a vector */
        _Alignas(32) uint32_t w[32 + LANES_MAX];
        words(best, at, E, last, w);
        __m256i lane[LANES_MAX / 8];
        const unsigned nv = (inner + 7) / 8;
        for (unsigned v = 0; v < nv; v++) { /* the last row's vectors read past position V - 1 */
            _mm256_store_si256((__m256i *)(void *)(w + V + 8 * v), _mm256_setzero_si256());
            lane[v] = _mm256_loadu_si256((const __m256i *)(const void *)(w + 8 * v));
        }
        for (unsigned r = inner; r < fold; r += inner)
            for (unsigned v = 0; v < nv; v++)
                lane[v] = _mm256_max_epu32(
                    lane[v], _mm256_loadu_si256((const __m256i *)(const void *)(w + r + 8 * v)));
        _Alignas(32) uint32_t cand[LANES_MAX];
        for (unsigned v = 0; v < nv; v++)
            _mm256_store_si256((__m256i *)(void *)(cand + 8 * v), lane[v]);
        for (unsigned l = 0; l < inner; l++) {
            const unsigned key = cand[l] >> 16, k = ((cand[l] >> 8) & 255) ^ (last ? 0 : 255);
            const unsigned j = (cand[l] & 255) ^ (last ? 0 : V - 1);
            if (k0 == 0 || (last ? key >= lane_key[l] : key > lane_key[l]))
                lane_key[l] = key, o[l] = (int64_t)((k0 + k) * sh->rows + sh->jrow[j]);
        }
    }
}

typedef void (*slice_fn)(const shape *, const char *, uint64_t, int64_t *);
#define SLICE_FN(name, E, fl, last)                                                                \
    static void name(const shape *sh, const char *x, uint64_t left, int64_t *o)                    \
    {                                                                                              \
        slice(sh, x, left, E, fl, last, o);                                                        \
    }
SLICE_FN(slice1_first, 1, 0, 0)
SLICE_FN(slice1_last, 1, 0, 1)
SLICE_FN(slice2_first, 2, 0, 0)
SLICE_FN(slice2_last, 2, 0, 1)
SLICE_FN(slice2f_first, 2, 1, 0)
SLICE_FN(slice2f_last, 2, 1, 1)
SLICE_FN(slice4_first, 4, 0, 0)
SLICE_FN(slice4_last, 4, 0, 1)
SLICE_FN(slice4f_first, 4, 1, 0)
SLICE_FN(slice4f_last, 4, 1, 1)
SLICE_FN(slice8_first, 8, 0, 0)
SLICE_FN(slice8_last, 8, 0, 1)
SLICE_FN(slice8f_first, 8, 1, 0)
SLICE_FN(slice8f_last, 8, 1, 1)

void clmax_cpu_streamlanes(const clmax_problem *p, const void *xv, uint64_t slices, uint64_t left,
                           int stream, int64_t *out)
{
    const char *x = xv;
    const unsigned E = (unsigned)p->esize;
    const int fl = clmax_type_is_float(p->type);
    shape sh;
    sh.inner = (unsigned)p->inner;
    sh.rows = 32 / E / sh.inner;
    sh.P = sh.rows * sh.inner;
    const uint64_t bytes = p->n * sh.inner * E;
    sh.loads = (p->n * sh.inner + sh.P - 1) / sh.P;
    sh.tail = p->n * sh.inner - (sh.loads - 1) * sh.P;
    /* integer keys: unsigned ones' order, the sign bit flipped for signed types (eight-byte
     * keys, compared signed: for unsigned ones); ArgMin: every bit flipped too */
    const int sign = p->type == CLMAX_TYPE_INT8 || p->type == CLMAX_TYPE_INT16 ||
                     p->type == CLMAX_TYPE_INT32 || p->type == CLMAX_TYPE_UINT64;
    const uint64_t top = 1ull << (8 * E - 1), ones = top | (top - 1);
    const uint64_t f = (sign ? top : 0) ^ (p->min ? ones : 0);
    sh.flip = E == 1   ? _mm256_set1_epi8((char)f)
              : E == 2 ? _mm256_set1_epi16((short)f)
              : E == 4 ? _mm256_set1_epi32((int)(uint32_t)f)
                       : _mm256_set1_epi64x((long long)f);
    sh.inf = E == 2   ? _mm256_set1_epi16(p->type == CLMAX_TYPE_BFLOAT16 ? 0x7F80 : 0x7C00)
             : E == 4 ? _mm256_set1_epi32(0x7F800000)
                      : _mm256_set1_epi64x(0x7FF0000000000000ll);
    sh.m = _mm256_set1_epi8(p->min ? -1 : 0);
    sh.tail_ok = _mm256_loadu_si256((const __m256i *)(const void *)(VALID + 32 - sh.tail * E));
    for (unsigned j = 0; j < 32; j++)
        sh.jrow[j] = (uint8_t)(j / sh.inner);
    static const slice_fn fns[4][2][2] = {
        {{slice1_first, slice1_last}, {slice1_first, slice1_last}},
        {{slice2_first, slice2_last}, {slice2f_first, slice2f_last}},
        {{slice4_first, slice4_last}, {slice4f_first, slice4f_last}},
        {{slice8_first, slice8_last}, {slice8f_first, slice8f_last}}};
    const slice_fn fn = fns[E == 1 ? 0 : E == 2 ? 1 : E == 4 ? 2 : 3][fl][p->last != 0];
    /* slices whose loads (to (loads - 1) * P elements + 32 bytes) stay inside the input read in
     * place */
    const uint64_t reach = (sh.loads - 1) * sh.P * E + 32;
    const uint64_t safe = left >= reach ? (left - reach) / bytes + 1 : 0;
    int64_t buf[CHUNK * LANES_MAX];
    const uint64_t chunk = stream ? CLMAX_PUT_STREAMED(CHUNK) : CHUNK;
    for (uint64_t s0 = 0; s0 < slices; s0 += chunk) {
        const uint64_t cnt = slices - s0 < chunk ? slices - s0 : chunk;
        for (uint64_t i = s0; i < s0 + cnt; i++)
            fn(&sh, x + i * bytes, i < safe ? 0 : left - i * bytes, buf + (i - s0) * sh.inner);
        clmax_cpu_put(out + s0 * sh.inner, buf, cnt * sh.inner, stream);
    }
}

#pragma GCC pop_options

int clmax_cpu_streamlanes_fits(const clmax_problem *p)
{
    if (p->inner < 2 || p->n >= (1ull << 31) || !clmax_cpu_has(CLMAX_CPU_AVX2)) return 0;
    switch (p->esize) {
    case 1:
        return p->inner <= 32 && p->n * p->inner >= STREAMLANES_SLICE_MIN;
    case 2:
        return p->inner <= 16 && p->n >= STREAMLANES_N_MIN;
    case 4:
        return p->inner == 2 && p->n >= STREAMLANES_N_MIN;
    default:
        return (p->inner == 2 || p->inner == 4) && p->n * p->inner * 8 >= STREAMLANES_SLICE_MIN;
    }
}

#else

int clmax_cpu_streamlanes_fits(const clmax_problem *p)
{
    (void)p;
    return 0;
}

void clmax_cpu_streamlanes(const clmax_problem *p, const void *x, uint64_t slices, uint64_t left,
                           int stream, int64_t *out)
{
    (void)p, (void)x, (void)slices, (void)left, (void)stream, (void)out;
}

#endif
