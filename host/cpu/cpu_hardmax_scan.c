/* Hardmax on the CPU path in 512-bit vectors over slices [n, inner] of a few rows and lanes, such
 * as [B, 3, 7] or rows of 5, by running maxima along the axis: a group of whole slices' keys go to
 * a buffer; ceil(log2(n - 1)) passes then give each position the maximum of the rows before it
 * (each pass doubling the rows a position has seen: a masked max with the position 2^t rows back)
 * and of the rows after it; a position is 1 where its key is larger than every row's before it and
 * no smaller than every row's after it: the first maximum.
 *
 * Why: cpu_hardmax_near.c compares each position with every other row of its slice, two compares
 * and their masks a row, and is bound by them more than by the memory: float16 [B, 7, 7] ran at 8.1
 * GB/s on one thread from the cache, 10 GB/s on two from memory (0.52 of the read + write limit).
 * The passes cost a masked max a doubling each way whatever the lanes. Keys are integers
 * (keys.h), so the caller's MXCSR plays no part. */
#include "cpu_hardmax_scan.h"

#include "backend.h"
#include "clock.h"
#include "cpu_hardmax_near.h"
#include "cpu_kernels.h"
#include "cpu_short.h"
#include "keys.h"
#include "stream.h"

#include <stdatomic.h>
#include <string.h>

#define SCAN_BYTES 8192   /* keys of a group of whole slices: its buffers in the L1 */
#define SCAN_INNER_MAX 64 /* lanes a slice at most, */
/* ... but two-byte slices of SCAN_WIDE_N_MIN rows or more, which take up to SCAN_WIDE_INNER_MAX:
 * in turns with the winners' way (2 rounds, 256 MiB, 2 threads), float16 [B, 5..8, 128..256]
 * x1.08-1.59; of 3 rows x0.89-1.28 against the tiny code, float32 of 7 rows x0.88-0.94. */
#define SCAN_WIDE_N_MIN 5
#define SCAN_WIDE_INNER_MAX 256
#define SCAN_REACH_BYTES 512 /* a row's lanes at most: SCAN_WIDE_INNER_MAX two-byte ones */
_Static_assert(SCAN_INNER_MAX * 8 <= SCAN_REACH_BYTES &&
                   SCAN_WIDE_INNER_MAX * 2 <= SCAN_REACH_BYTES,
               "the buffers' margins hold the passes' reach");
/* Rows a slice at most: three passes, the last in the final compare's (final_). In turns with the
 * codes before (2 rounds, 256 MiB, 2 threads, [B, n, 1..64]), float16 and float32 of 2 to 5 rows
 * x0.98-1.80 (most x1.1-1.3), of 6 to 8 x0.97-1.37, of 9 x1.08-1.57; of 12 and 16 (four passes)
 * x0.80-1.09, which keep the winners' way. */
#define SCAN_N_MAX 9
/* Past SCAN_SAFE_N_MAX rows or SCAN_SAFE_INNER_MAX lanes, the scan runs only where it beat the
 * neighbour compares on this CPU (scan_pays): on an AMD EPYC (Zen 4, 512-bit operations as two
 * halves), against the codes without it (3 and 2 sweeps, 256 MiB, 2 threads), float16 and float32
 * [B, 4..9, 1..64] ran x0.5-0.9 of their speed (most x0.6-0.85) and [B, 2..3, 16..64] x0.8-0.9,
 * where [B, 3, 1..7] ran x0.9-1.3 and [B, 2, 1..7] x0.9-1.05. */
#define SCAN_SAFE_N_MAX 3
#define SCAN_SAFE_INNER_MAX 15
#define SCAN_PASSES_MAX 3 /* ceil(log2(SCAN_N_MAX - 1)) */
_Static_assert(SCAN_BYTES >= (uint64_t)SCAN_N_MAX * SCAN_REACH_BYTES, "a group holds a slice");

#if CLMAX_LANES_512

#include <immintrin.h>

/* Passes for an axis of n: the rows a position sees double each pass, from 1 to n - 1 or more. */
static unsigned clmax_cpu_hardmax_scan_passes(uint64_t n)
{
    unsigned t = 0;
    while (((uint64_t)1 << t) < n - 1)
        t++;
    return t;
}

#define SCAN_SFX f16
#define SCAN_T uint16_t
#define SCAN_ST int16_t
#define SCAN_M __mmask32
#define SCAN_KEY clmax_key_f16
#define SCAN_ONE 0x3C00u
#define SCAN_W epi16
#include "cpu_hardmax_scan.inc"

#define SCAN_SFX bf16
#define SCAN_T uint16_t
#define SCAN_ST int16_t
#define SCAN_M __mmask32
#define SCAN_KEY clmax_key_bf16
#define SCAN_ONE 0x3F80u
#define SCAN_W epi16
#include "cpu_hardmax_scan.inc"

#define SCAN_SFX f32
#define SCAN_T uint32_t
#define SCAN_ST int32_t
#define SCAN_M __mmask16
#define SCAN_KEY clmax_key_f32
#define SCAN_ONE 0x3F800000u
#define SCAN_W epi32
#include "cpu_hardmax_scan.inc"

#define SCAN_SFX f64
#define SCAN_T uint64_t
#define SCAN_ST int64_t
#define SCAN_M __mmask8
#define SCAN_KEY clmax_key_f64
#define SCAN_ONE 0x3FF0000000000000ull
#define SCAN_W epi64
#include "cpu_hardmax_scan.inc"

#endif

#if CLMAX_LANES_512
/* Whether the scan beats the neighbour compares in 256-bit vectors on this CPU, timed once per
 * process on PROBE_SLICES float32 slices [7, 8] in the L1 cache (about 8 KiB, each code's best of
 * PROBE_ROUNDS calls in turns after one each, about 30 µs in all). The cpuid bits do not tell: on
 * an AMD EPYC (Zen 4) the scan took 2.0 µs there to the compares' 1.24; on the Intel Xeon its
 * tuning figures come from, it beat them. */
#define PROBE_N 7
#define PROBE_INNER 8
#define PROBE_SLICES 36
#define PROBE_ROUNDS 7
static int scan_pays(void)
{
    static atomic_int known; /* 0: not timed, 1: no, 2: yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k != 0) return k == 2;
    enum { COUNT = PROBE_SLICES * PROBE_N * PROBE_INNER };
    float x[COUNT], y[COUNT];
    for (int i = 0; i < COUNT; i++) /* a winner anywhere, some ties */
        x[i] = (float)((i * 37 + 11) % 97 / 8);
    const clmax_problem p = {.type = CLMAX_TYPE_FLOAT32,
                             .esize = 4,
                             .outer = PROBE_SLICES,
                             .n = PROBE_N,
                             .inner = PROBE_INNER};
    double best_scan = 1e9, best_near = 1e9;
    for (int r = 0; r <= PROBE_ROUNDS; r++) { /* round 0 warms both up */
        double t0 = clmax_seconds();
        scan_f32(&p, PROBE_SLICES, x, y);
        double t1 = clmax_seconds();
        clmax_cpu_hardmax_near(&p, PROBE_SLICES, x, y, 0);
        double t2 = clmax_seconds();
        if (r > 0 && t1 - t0 < best_scan) best_scan = t1 - t0;
        if (r > 0 && t2 - t1 < best_near) best_near = t2 - t1;
    }
    k = best_scan < best_near ? 2 : 1;
    atomic_store_explicit(&known, k, memory_order_relaxed);
    return k == 2;
}
#endif

int clmax_cpu_hardmax_scan_fits(const struct clmax_context *ctx, const clmax_problem *p)
{
#if CLMAX_LANES_512
    if (!clmax_type_is_float(p->type) || p->n < 2 || p->n > SCAN_N_MAX || p->inner < 1 ||
        !clmax_cpu_wide(ctx))
        return 0;
    if (p->inner > SCAN_INNER_MAX &&
        !(p->esize == 2 && p->n >= SCAN_WIDE_N_MIN && p->inner <= SCAN_WIDE_INNER_MAX))
        return 0;
    return (p->n <= SCAN_SAFE_N_MAX && p->inner <= SCAN_SAFE_INNER_MAX) ||
           clmax_cpu_hardmax_wide_pays(ctx);
#else
    (void)ctx;
    (void)p;
    return 0;
#endif
}

int clmax_cpu_hardmax_wide_pays(const struct clmax_context *ctx)
{
#if CLMAX_LANES_512
    return clmax_cpu_wide(ctx) && (ctx->cpu_avx512_full || scan_pays());
#else
    (void)ctx;
    return 0;
#endif
}

void clmax_cpu_hardmax_scan(const clmax_problem *p, uint64_t rows, const void *x, void *y)
{
#if CLMAX_LANES_512
    switch (p->type) {
    case CLMAX_TYPE_FLOAT16:
        scan_f16(p, rows, x, y);
        break;
    case CLMAX_TYPE_BFLOAT16:
        scan_bf16(p, rows, x, y);
        break;
    case CLMAX_TYPE_FLOAT32:
        scan_f32(p, rows, x, y);
        break;
    default:
        scan_f64(p, rows, x, y);
        break;
    }
#else
    (void)p;
    (void)rows;
    (void)x;
    (void)y;
#endif
}
