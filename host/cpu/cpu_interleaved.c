/* ArgMax and ArgMin on the CPU path of two-byte float slices of a power-of-two shape: 2, 4 or 8
 * rows of 2 or 4 lanes. Each lane's best over its rows, with n and inner constants, in a loop over
 * slices that GCC vectorises with interleaved loads (a slice of 4 to 32 elements is one load
 * group); the winners go to a buffer, then out (clmax_cpu_put).
 *
 * Why: the dealt rows (cpu_deal.c) shuffle such slices into rows, find each row's winner and write
 * 8 bytes of index a lane: float16 [B, 2, 2] ran at 0.27 of the limit. In one process (128 MiB,
 * median of 15, 3 rounds alternated) against them: float16 [B, 2, 2] 29-33 -> 10-11 ms, [B, 4, 2]
 * 18.4 -> 9.0, [B, 8, 2] 11.2 -> 8.3, [B, 8, 4] 12.7 -> 10.8; against the stacked rows [B, 2, 4]
 * 19.4 -> 11.2, [B, 4, 4] 13.8 -> 11.8. Other shapes kept no vector form (3, 5, 6 and 7 rows:
 * 80-90 ms, scalar). */
#include "cpu_interleaved.h"

#include "cpu_kernels.h"
#include "cpu_short.h"
#include "keys.h"

#define CHUNK 512 /* slices a chunk: their winners in a buffer, then put out */

#define ALL(c) ((int16_t)((int16_t)0 - (int16_t)(c)))

/* The signed key of a two-byte float u: keys.h's map (CLMAX_FLOAT_KEY, then CLMAX_MIN_FLOAT_KEY
 * where m is all ones) with the infinity's bits inf a value, so that one loop serves float16 and
 * bfloat16, ArgMax and ArgMin, and every step stays arithmetic for the vectoriser. */
static inline __attribute__((always_inline)) int16_t key16(uint16_t u, uint16_t inf, uint16_t m)
{
    const uint16_t a = (uint16_t)(u & 0x7FFFu);
    const uint16_t v = (uint16_t)(u & (uint16_t)(0u - (uint16_t)(a != 0)));
    uint16_t k = (uint16_t)(v ^ (uint16_t)((uint16_t)((int16_t)v >> 15) | 0x8000u));
    k = (uint16_t)(k | (uint16_t)(0u - (uint16_t)((int16_t)a > (int16_t)inf)));
    k = (uint16_t)((k ^ m) | (m & (uint16_t)(0u - (uint16_t)(k == 0xFFFFu))));
    return (int16_t)(k ^ 0x8000u);
}

/* The winners of cnt slices [n, inner] from x into o: for each lane a running best over its rows,
 * a later row taking it with a larger key (or an equal one where tie is all ones, the last index
 * rule). With n and inner constants the loops over them unroll and the loop over slices is the
 * vectorised one. */
static inline __attribute__((always_inline)) void kernel(const uint16_t *restrict x,
                                                         int64_t *restrict o, uint64_t cnt,
                                                         const unsigned n, const unsigned inner,
                                                         int16_t tie, uint16_t flip, uint16_t inf)
{
    for (uint64_t s = 0; s < cnt; s++) {
        _Pragma("GCC unroll 4") for (unsigned l = 0; l < inner; l++)
        {
            const uint16_t *xs = x + s * n * inner + l;
            int16_t best = key16(xs[0], inf, flip), at = 0;
            _Pragma("GCC unroll 8") for (unsigned k = 1; k < n; k++)
            {
                const int16_t key = key16(xs[k * inner], inf, flip);
                const int16_t up = (int16_t)(ALL(key > best) | (tie & ALL(key == best)));
                best = (int16_t)((key & up) | (best & ~up));
                at = (int16_t)(((int16_t)k & up) | (at & ~up));
            }
            o[s * inner + l] = at;
        }
    }
}

#define CASE(N, I)                                                                                 \
    case (N)*8 + (I):                                                                              \
        kernel(x, o, cnt, N, I, tie, flip, inf);                                                   \
        break;

CLMAX_CPU_CLONES static void chunk(const uint16_t *x, int64_t *o, uint64_t cnt, unsigned n,
                                   unsigned inner, int16_t tie, uint16_t flip, uint16_t inf)
{
    switch (n * 8 + inner) {
        CASE(2, 2)
        CASE(2, 4)
        CASE(4, 2)
        CASE(4, 4)
        CASE(8, 2)
        CASE(8, 4)
    default:
        break;
    }
}

int clmax_cpu_interleaved_fits(clmax_type type, uint64_t n, uint64_t inner)
{
    if (type != CLMAX_TYPE_FLOAT16 && type != CLMAX_TYPE_BFLOAT16) return 0;
    return (inner == 2 || inner == 4) && (n == 2 || n == 4 || n == 8);
}

void clmax_cpu_interleaved(clmax_type type, const void *x, uint64_t slices, uint64_t n,
                           uint64_t inner, int min, int last, int stream, int64_t *out)
{
    int64_t buf[CHUNK * 4];
    const uint16_t *xs = x;
    for (uint64_t s0 = 0; s0 < slices; s0 += CHUNK) {
        const uint64_t cnt = slices - s0 < CHUNK ? slices - s0 : CHUNK;
        chunk(xs + s0 * n * inner, buf, cnt, (unsigned)n, (unsigned)inner, (int16_t)(last ? -1 : 0),
              (uint16_t)(min ? 0xFFFFu : 0),
              (uint16_t)(type == CLMAX_TYPE_BFLOAT16 ? 0x7F80u : 0x7C00u));
        clmax_cpu_put(out + s0 * inner, buf, cnt * inner, stream);
    }
}
