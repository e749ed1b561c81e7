/* ArgMax and ArgMin on the CPU path of float slices of a power-of-two shape: 2, 4 or 8 rows of 2
 * or 4 lanes (float64 [8, 4] aside). Each lane's best over its rows, with n and inner constants,
 * in a loop over slices that GCC vectorises with interleaved loads (a slice of 4 to 32 elements is
 * one load group); the winners go to a buffer, then out (clmax_cpu_put).
 *
 * Why: the dealt rows (cpu_deal.c) shuffle such slices into rows, find each row's winner and write
 * 8 bytes of index a lane: float16 [B, 2, 2] ran at 0.27 of the limit. In turns with the code
 * before (3 rounds, the order swapped, clmax-bench --sweep --size=128 --backend=cpu), the ratio of
 * the limit: float16 [B, 2, 2] 0.46 -> 1.32, [B, 4, 2] 0.48 -> 0.90, [B, 2, 4] 0.71 -> 1.15 (the
 * stacked rows before), [B, 8, 4] 0.48 -> 0.55; float32 [B, 2, 2] 0.54 -> 1.31, [B, 8, 4] 0.66 ->
 * 0.92; float64 [B, 4, 2] 0.38 -> 0.77, [B, 8, 2] 0.41 -> 0.54, but [B, 8, 4] x0.95 (stacked).
 * Other shapes kept no vector form (3, 5, 6 and 7 rows: 80-90 ms where the deal took 13-21).
 * One compare a row for either tie rule, against a compare and an equality test (in turns, 3
 * rounds, 5 where said): float64 [B, 4..8, 2] x1.15-1.21 (5), float32 [B, 4, 4] x1.12, [B, 2, 2]
 * x1.16 (5), float16 [B, 2, 2..4] x1.01. */
#include "cpu_interleaved.h"

#include "cpu_kernels.h"
#include "cpu_short.h"
#include "keys.h"
#include "problem.h"

#define CHUNK 512    /* slices a chunk: their winners in a buffer, then put out */
#define PF_SLICES 32 /* slices a run of the vectorised loop, between two moves of the prefetch */

/* kernel_W on the shape of n and inner, the tie rule LAST a constant. */
#define SHAPES(W, LAST)                                                                            \
    switch (n * 8 + inner) {                                                                       \
    case 2 * 8 + 2:                                                                                \
        kernel_##W(x, o, cnt, 2, 2, LAST, flip, inf);                                              \
        break;                                                                                     \
    case 2 * 8 + 4:                                                                                \
        kernel_##W(x, o, cnt, 2, 4, LAST, flip, inf);                                              \
        break;                                                                                     \
    case 4 * 8 + 2:                                                                                \
        kernel_##W(x, o, cnt, 4, 2, LAST, flip, inf);                                              \
        break;                                                                                     \
    case 4 * 8 + 4:                                                                                \
        kernel_##W(x, o, cnt, 4, 4, LAST, flip, inf);                                              \
        break;                                                                                     \
    case 8 * 8 + 2:                                                                                \
        kernel_##W(x, o, cnt, 8, 2, LAST, flip, inf);                                              \
        break;                                                                                     \
    default:                                                                                       \
        kernel_##W(x, o, cnt, 8, 4, LAST, flip, inf);                                              \
        break;                                                                                     \
    }

/* The functions of one float width W (T unsigned, ST signed):
 * the keys are keys.h's signed ones (clmax_skey_bits), with the infinity's bits inf and ArgMin's
 * mask flip as values, so that one loop serves both two-byte types, ArgMax and ArgMin, and every
 * step stays arithmetic for the vectoriser.
 * kernel_W: the winners of cnt slices [n, inner] from x into o: for each lane a running best over
 * its rows, a later row taking it with a larger key (or, LAST a constant 1, where the best is not
 * larger: the last index rule), one compare either way. With n and inner constants the loops
 * over them unroll and the loop over slices is the vectorised one.
 * chunk_W: kernel_W for the shape of n and inner and the tie rule, cloned for AVX2. */
#define WIDTH(W, T, ST)                                                                            \
    static inline __attribute__((always_inline)) void kernel_##W(                                  \
        const T *restrict x, int64_t *restrict o, uint64_t cnt, const unsigned n,                  \
        const unsigned inner, const int last, T flip, T inf)                                       \
    {                                                                                              \
        for (uint64_t s = 0; s < cnt; s++) {                                                       \
            _Pragma("GCC unroll 4") for (unsigned l = 0; l < inner; l++)                           \
            {                                                                                      \
                const T *xs = x + s * n * inner + l;                                               \
                ST best = clmax_skey_bits##W(xs[0], inf, flip), at = 0;                            \
                _Pragma("GCC unroll 8") for (unsigned k = 1; k < n; k++)                           \
                {                                                                                  \
                    const ST key = clmax_skey_bits##W(xs[k * inner], inf, flip);                   \
                    const ST up =                                                                  \
                        last ? (ST)((ST)(best > key) - (ST)1) : (ST)((ST)0 - (ST)(key > best));    \
                    best = (ST)((key & up) | (best & ~up));                                        \
                    at = (ST)(((ST)k & up) | (at & ~up));                                          \
                }                                                                                  \
                o[s * inner + l] = (int64_t)at;                                                    \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    CLMAX_CPU_CLONES static void chunk_##W(const T *x, int64_t *o, uint64_t cnt, unsigned n,       \
                                           unsigned inner, int last, T flip, T inf)                \
    {                                                                                              \
        if (last)                                                                                  \
            SHAPES(W, 1)                                                                           \
        else                                                                                       \
            SHAPES(W, 0)                                                                           \
    }

WIDTH(16, uint16_t, int16_t)
WIDTH(32, uint32_t, int32_t)
WIDTH(64, uint64_t, int64_t)

int clmax_cpu_interleaved_fits(clmax_type type, uint64_t n, uint64_t inner)
{
    if (!clmax_type_is_float(type)) return 0;
    if (type == CLMAX_TYPE_FLOAT64 && n * inner == 32) return 0;
    return (inner == 2 || inner == 4) && (n == 2 || n == 4 || n == 8);
}

void clmax_cpu_interleaved(clmax_type type, const void *x, uint64_t slices, uint64_t n,
                           uint64_t inner, int min, int last, int stream, int64_t *out)
{
    int64_t buf[CHUNK * 4];
    const unsigned nn = (unsigned)n, in = (unsigned)inner;
    const size_t esize = clmax_type_size(type);
    uintptr_t pf = clmax_cpu_pf_start(x); /* a move of the prefetch a run: cpu_short.h */
    const uint64_t chunk = stream ? CLMAX_PUT_STREAMED(CHUNK) : CHUNK;
    for (uint64_t s0 = 0; s0 < slices; s0 += chunk) {
        const uint64_t cnt = slices - s0 < chunk ? slices - s0 : chunk;
        for (uint64_t r0 = 0; r0 < cnt; r0 += PF_SLICES) {
            const uint64_t c = cnt - r0 < PF_SLICES ? cnt - r0 : PF_SLICES;
            const uint64_t at = (s0 + r0) * n * inner;
            clmax_cpu_pf(&pf, (const char *)x + (at + c * n * inner) * esize);
            int64_t *o = buf + r0 * inner;
            switch (type) {
            case CLMAX_TYPE_FLOAT32:
                chunk_32((const uint32_t *)x + at, o, c, nn, in, last, min ? 0xFFFFFFFFu : 0,
                         0x7F800000u);
                break;
            case CLMAX_TYPE_FLOAT64:
                chunk_64((const uint64_t *)x + at, o, c, nn, in, last, min ? ~0ull : 0,
                         0x7FF0000000000000ull);
                break;
            default:
                chunk_16((const uint16_t *)x + at, o, c, nn, in, last,
                         (uint16_t)(min ? 0xFFFFu : 0),
                         (uint16_t)(type == CLMAX_TYPE_BFLOAT16 ? 0x7F80u : 0x7C00u));
                break;
            }
        }
        clmax_cpu_put(out + s0 * inner, buf, cnt * inner, stream);
    }
}
