/* The CPU path: the whole contract on host memory, on the context's threads (host/pool.c).
 *
 * Work is cut into units of (a range of outer slices, a block of inner lanes, a segment of the
 * axis). Contiguous rows use a blocked two-pass scan (max key of a block, then the position of that
 * key), which the compiler vectorises; strided axes keep a vector of running (key, index) pairs
 * along the inner dimension so every read is contiguous. When there are too few (slice, block)
 * pairs to feed the threads, the axis is split into segments whose partial pairs are combined. */
#include "backend.h"
#include "cpu_block.h"
#include "cpu_lanevecs.h"
#include "cpu_streamlanes.h"
#include "cpu_features.h"
#include "cpu_kernels.h"
#include "cpu_interleaved.h"
#include "cpu_slots.h"
#include "cpu_transposed.h"
#include "cpu_short.h"
#include "keys.h"
#include "status.h"
#include "stream.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Strided axes: a unit takes LANE_BYTES of a row of lanes, so that each row is a long run for the
 * hardware prefetcher, but at most LANE_COUNT lanes (their state is 32 bytes a lane): 65536
 * one-byte lanes ran at half the speed. */
#ifndef LANE_BYTES
#define LANE_BYTES 65536
#endif
#ifndef LANE_COUNT
#define LANE_COUNT 16384
#endif
/* Axes of at most SHORT_AXIS_N rows: LANE_COUNT_SHORT lanes a unit, their state in L1 (16 bytes
 * a lane and the winners' 8). Each lane's state is written and read back once or twice per row
 * there, and in turns (5 rounds, 128 MiB, op times) [B, 2, 4096..2^20] ran x0.70-0.89 of the
 * time of 16384 lanes, [B, 3..4, ...] x0.70-1.08 (median x0.85); [B, 5..8, ...] x0.84-1.29,
 * float16 and float32 slower. */
#define SHORT_AXIS_N 4
#define LANE_COUNT_SHORT 2048
#define LINE_LANES(p) (64 / (p)->esize)
#define STACK_LANES 256 /* lane blocks up to this size keep their state on the stack */

/* Strided outputs of at least CLMAX_STREAM_MIN bytes and a quarter of the input are streamed out
 * (clmax_cpu_put), from buffers of OUT_CHUNK winners where the slice code writes them:
 * [B, 3, 16] float32 49 -> 36 ms. Smaller shares lost more to the copy than they saved (uint8
 * [B, 80, 16]), as did contiguous rows (float16 [B, 21, 1] 16 -> 18 ms, [B, 3..4, 1] x0.81-0.83)
 * but rows of two (stream_rows: the winners 2 to 4 times the rows' bytes, uint8 [B, 2] 0.47 ->
 * 0.95 of the limit, float16 0.55 -> 1.04, float32 0.76 -> 1.05). Not Hardmax's index scratch
 * (reread), read back at once: streamed out, that read went to memory and took half again as
 * long. */
#define OUT_CHUNK 512
/* The winners of lane blocks whose rows are PIECE_ROW_MIN bytes or more, on axes of up to PIECE_N
 * (one segment) and with CLMAX_STREAM_MIN bytes of winners or more, are found and streamed out a
 * piece of PIECE_LANES lanes at a time (512 bytes of each row, 1 KiB of winners at least): a
 * block's 16 KiB of winners written after its reads left the memory's reads and writes in turns.
 * In turns on this machine, [B, 2..4, 4096..2^20] at 256 MiB: uint8 0.62-0.72 -> 0.75-0.87 of the
 * limit, float16 0.57-0.65 -> 0.78-0.90, float32 0.59-0.65 -> 0.79-0.94, float64 0.58-0.61 ->
 * 0.78-0.85; [B, 5..8, 4096..65536] x1.09-1.35; float32 [B, 16..32, 1024..65536] x1.11-1.28 and
 * float64 [B, 5..32, ...] x1.14-1.39 (plain stores of winners before). Rows of 1 and 2 KiB (uint8
 * and float16 [B, 2..4, 1024]) ran 0-15% slower in pieces, as did axes of 64 to 256 (x0.39-0.84:
 * many rows of a narrow piece at once). On an AMD EPYC (Zen 4) axes of 21 and 32 lost so too:
 * in turns (2 rounds, 256 MiB, [B, 21..32, 1024..65536]) float32 x1.3-2.3 faster without pieces,
 * float64 x1.4-2.0, float16 x1.25-1.75, uint8 x1.0-1.7; pieces of 1 or 2 KiB lost as well; 12 and
 * 16 rows ran within the noise either way (x0.8-1.2), 5 to 8 rows x1.1-1.25 faster in pieces. */
#define PIECE_ROW_MIN 4096u
#ifndef PIECE_N
#define PIECE_N 8
#endif
#define PIECE_LANES(p) ((p)->esize <= 4 ? 512u / (p)->esize : 128u)
/* Strided axes whose slices' rows are shorter than FEW_LINE bytes (few_lanes): a slice's stretch
 * is read as rows of FEW_BYTES * inner bytes (64 bytes a lane for 8-byte types on axes of 256 or
 * more: float64 [B, 1000, 2] 0.53-0.59 of the limit in 32, 0.66-0.72 in 64, [B, 300, 2] 0.50-0.52
 * and 0.58-0.59, but [B, 128, 4] 0.60-0.64 and 0.42), FEW_BYTES / esize axis positions of every
 * lane a row, so a vector position always holds the same lane. [B, 1000, 2] float32 ran 4 times
 * faster so; rows of a line or more ran as fast in the lanes code (float32 Hardmax [B, 1000, 16]:
 * 0.86 of the limit there, 0.75 here). A stretch of fewer than FEW_ROWS such rows keeps the lanes
 * code, or of fewer than FEW_ROWS_VEC where the lanes fill a vector of their own (32 bytes), which
 * the lanes code then runs whole: combining the candidates cost more than the rows saved there
 * (float16 [B, 80, 16] 0.44-0.53 in the lanes code, 0.22-0.23 in 5 rows; [B, 300, 16] the same
 * in 18 rows). */
#define FEW_LINE 64
/* Such slices of up to SLICE_PF_MAX bytes in the lanes code are prefetched a slice ahead
 * (run_unit), in turns with the build before: float64 [B, 64..256, 7] x1.18-1.39, [B, 100, 16]
 * x1.16, float16 [B, 21, 7] x1.22; longer slices (float64 [B, 1000, 7] x0.85) and rows of a line
 * or more (uint8 [B, 64..256, 64] x0.81-0.87), which the hardware prefetcher follows, lost. */
#define SLICE_PF_MAX 16384
/* The stacked rows (stacked_fits): at most STACK_N rows of 5 lanes or more, STACK_WASTE / w
 * rows of 3 or 4; one-byte slices of 8 to 16 lanes under STACK_PACKED8 elements (the packed words
 * take the larger ones). */
#define STACK_N 16
#define STACK_WASTE 24
/* Four-byte slices of 5 and 6 lanes also up to STACK_N4_SHORT rows where the packed words do not
 * take them: the dealt rows ran float32 [B, 17..24, 5..6] at 0.26-0.33 of the limit, the stacked
 * rows at 0.55-0.70 (x2.0-2.2, Hardmax x1.4-1.6; 3 rounds, in turns, 128 MiB); 7 lanes and more
 * lost there (x0.67-0.92). */
#define STACK_N4_SHORT 24
#define STACK_PACKED8 256
/* Eight-byte slices: 3 and 4 lanes up to STACK_N8 rows, 5 to 7 up to STACK_N8_WIDE, 8 up to 4.
 * Their other codes (the lanes, the dealt rows) ran slower there; in turns with them (3 rounds,
 * 128 MiB, the order swapped; clmax-bench --sweep --size=128 --sweep-n=N --sweep-inner=I
 * --backend=cpu): float64 [B, 16..64, 3..4] 0.27-0.50 -> 0.41-0.71 of the limit, [B, 16, 7] 0.34
 * -> 0.49, [B, 32, 7] x1.07, [B, 4, 3] 0.55 -> 0.75; but [B, 64..100, 5] x0.70-0.87, [B, 100, 3..7]
 * x0.75-0.97. In one process (ms): int64 [B, 21, 4] x2.8, [B, 8, 7] x3.4; with 8 lanes float64
 * [B, 21..100, 8] x0.75-0.91 and int64 [B, 16, 8] x0.86-0.91. */
#define STACK_N8 64
#define STACK_N8_WIDE 32
/* And eight-byte slices of 12 lanes (3 vectors) up to STACK_N8_12 rows, of 16 up to STACK_N8_16,
 * from the lanes code, in turns (3 rounds, 128 MiB): float64 [B, 2..16, 12] x1.29-1.69 (0.38-0.59
 * -> 0.63-0.76 of the limit), [B, 32..64, 12] x1.18-1.35, [B, 2..16, 16] x1.19-1.39 (0.50-0.59 ->
 * 0.63-0.72); 16 lanes on axes of 21 to 64 x0.81-0.95. */
#define STACK_N8_12 64
#define STACK_N8_16 16
_Static_assert(STACK_N8_12 * 12 * 8 <= STACK_KEYS && STACK_N8_16 * 16 * 8 <= STACK_KEYS,
               "a slice of 12 or 16 eight-byte lanes fits the stacked keys");
#ifndef FEW_BYTES
#define FEW_BYTES(esize, n) ((esize) == 8 && (n) >= 256 ? 64u : 32u)
#endif
#define FEW_ROWS 4
#define FEW_ROWS_VEC 32
/* Axes of at least FEW_NARROW_N positions are widened (host/narrow.c) instead: at n = 65536
 * the few-lane rows led (uint8 [B, 65536, 2] 0.63-0.67 of the limit against 0.23-0.24 widened,
 * float16 0.81-0.93 against 0.33-0.38), at n = 2^20 the wide rows (uint8 [B, 2^20, 3] 0.86-0.88
 * against 0.69-0.75, float64 0.93-1.00 against 0.85-0.89). */
#define FEW_NARROW_N (1u << 18)

/* Bytes per unit: UNIT_BYTES, or less where that leaves fewer than UNIT_SHARE units a thread,
 * down to UNIT_BYTES_MIN. Threads take units in turn, so each reads runs of a unit with the other
 * threads' runs between: long units keep each thread's stream long enough for the prefetchers. */
#define UNIT_BYTES (1u << 20)
#define UNIT_BYTES_MIN (1u << 16)
#define UNIT_SHARE 8
/* Shortest axis segment worth a unit of its own: MIN_SEGMENT rows, or fewer rows of a wide lane
 * block as long as they hold SEGMENT_BYTES. One slice of [1, 4096, 4096] float64 was one unit,
 * so one thread, at 0.44 of the limit while PoCL's two threads read it at 1.13. Segments of 1 MiB
 * cost the smaller slices more than they gave: [1, 256..1024, 4096] of 2 to 8 MiB x0.62-0.80
 * against one unit, their partial pairs allocated and merged (in 4 MiB: x0.85-1.41). */
#define MIN_SEGMENT 8192
#define SEGMENT_BYTES (4u << 20)
#define PARALLEL_MIN (1u << 18) /* smaller tensors run on the calling thread alone */
#define MAX_THREADS 256
#define MAX_SEGMENT 0xFFFFFFFFull /* lane indices are kept relative to a segment in 32 bits */

int clmax_cpu_wide(const clmax_context *ctx)
{
    return CLMAX_LANES_512 && !ctx->cpu_avx512_off &&
           clmax_cpu_has(CLMAX_CPU_AVX512BW | CLMAX_CPU_AVX512VL);
}

/* The L2 cache of a core as the C library reports it (1 MiB where it does not): inputs that fit
 * the threads' L2 caches read float rows by their extremes, larger ones by their keys. */
static uint64_t cpu_l2_bytes(void)
{
    static atomic_llong known; /* 0: not asked yet */
    long long k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k == 0) {
        long v = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
        k = v > 0 ? v : 1 << 20;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return (uint64_t)k;
}

typedef struct job {
    const clmax_problem *p;
    const char *x;
    int64_t *idx;
    type_fns fn;
    lanes_fn part_lanes; /* lane blocks not of whole 64-byte vectors (clmax_cpu_reduce) */
    int deal;            /* whole slices run dealt into rows (cpu_deal.c) */
    int interleaved;     /* whole slices vectorised across slices (cpu_interleaved.c) */
    int slots;           /* whole float slices of a few lanes in 512-bit slots (cpu_slots.c) */
    int transposed;      /* whole slices of short rows, transposed (cpu_transposed.c) */
    int streamlanes;     /* one- and two-byte slices as one stream of vectors (cpu_streamlanes.c) */
    int lanevecs;        /* one-byte slices of 16 to 64 lanes, vectors of lanes (cpu_lanevecs.c) */
    int stacked; /* whole slices run by their rows stacked from the first lane (cpu_stacked.c) */
    int tile;    /* whole slices run as a tile's columns (cpu_tile.c) */
    packed_fn packed; /* whole slices run packed (cpu_packed.c), or NULL */
    int stream;       /* winners streamed out (clmax_cpu_put) */
    int stream_rows;  /* whole short rows, their winners streamed out */
    int pieces;       /* lane blocks' winners found and streamed out in pieces (PIECE_LANES) */
    int row_mode;     /* how float rows are read (CLMAX_BLOCK_*, cpu_block.h) */
    uint64_t rows_per_unit, row_units, lane_block, lane_units, nseg, seg_len, units;
    uint64_t *pk, *pi; /* partials [outer * inner][nseg] when nseg > 1 */
    uint64_t few;      /* lanes of the few-lane rows (few_lanes), or 0 */
    uint64_t few_min;  /* the fewest axis positions a stretch takes them for */
    uint64_t *state;   /* state_words per task when they do not fit on the stack */
    uint64_t state_words;
    atomic_uint_fast64_t next;
} job;

static int few_fits(const clmax_problem *p)
{
    return p->inner >= 2 && p->inner * p->esize < FEW_LINE;
}

/* Slices for the packed words (cpu_packed.c), of those the transposed slices leave (see
 * run_unit), where they have at least PACK_STEPS steps of 32 elements: under that the per-slice
 * work (a max over a step's rows, the winners' writes) lost to the dealt rows (cpu_deal.c: uint8
 * [B, 128, 2] 0.46 dealt, 0.29 packed), which one-byte slices of up to 7 lanes keep to 16 steps;
 * one-byte slices of up to 7 lanes on axes up to PACK_N8, past which the few-lane rows ran as fast;
 * four-byte types in 512-bit vectors only, whose 64-bit words' max AVX2 lacks (float32 [B, 1000, 2]
 * 0.96 -> 0.44 in AVX2, 0.88 -> 0.98 in AVX-512). In turns on this machine: uint8 [B, 256, 7] 0.16
 * -> 0.49 of the limit, float16 0.23 -> 0.68, float32 0.21 -> 0.83. Four-byte slices of 2 and 4
 * lanes (no lane wasted in a step) from 4 steps: against the dealt rows, in turns (3 rounds, the
 * order swapped, clmax-bench --sweep --size=128) float32 [B, 64, 2] 0.42 -> 0.55, [B, 32, 4] 0.49
 * -> 0.59; at 3 steps [B, 48, 2] x1.07 but [B, 21, 4] x0.83, at 2 x0.59-0.89 (one process); float16
 * [B, 21..48, 2..4] x0.77-0.99 at 3. */
#define PACK_STEPS(esize, inner)                                                                   \
    ((esize) == 4 && ((inner) == 2 || (inner) == 4) ? 4u                                           \
     : (esize) >= 2                                 ? 5u                                           \
     : (inner) <= 7                                 ? 16u                                          \
                                                    : 8u)
#define PACK_N8 1024
static int packed_fits(const clmax_problem *p, int wide)
{
    if (p->esize == 4 && !wide) return 0;
    if (p->esize > 4 || p->inner < 2 || p->inner > PACK_INNER || p->n >= 65536) return 0;
    const uint64_t rows = 32 / p->inner;
    if ((p->n + rows - 1) / rows < PACK_STEPS(p->esize, p->inner)) return 0;
    return p->esize >= 2 || p->inner >= 8 || p->n <= PACK_N8;
}

/* Slices for the stacked rows (cpu_stacked.c), of those the transposed slices leave: each row of a
 * slice costs nv vectors of VW lanes for its `inner`, a waste w = nv * VW / inner, against the
 * dealt, packed or one-byte slices' code. Measured with each forced, in turns, 3 rounds (128 MiB, n
 * 2-32, inner 2-16): stacked won with 5 to 16 lanes on axes up to 16 (float16 [B, 2..8, 8..12]
 * 0.05-0.08 -> 0.47-1.14, [B, 4..16, 5..7] 0.27-0.38 -> 0.43-0.82; float32 [B, 8, 3..16] 0.16-0.46
 * -> 0.61-1.29), with 3 and 4 lanes on axes up to about 24 / w, never with 2; four-byte slices of
 * 12 lanes or more only up to 8 rows, two-byte ones of 16 up to 12 (Hardmax through their winners
 * lost past that); eight-byte slices as STACK_N8 says. One-byte slices of 24 to 48 lanes and
 * two-byte ones of 24 ran 0.13-0.31 of the limit before, 0.55-1.27 here on axes up to 32; one-byte
 * ones of 8 to 16 lanes at 0.03-0.13 up to the packed words' axes. packs: whether the packed words
 * fit p (they come after the stacked rows in run_unit). */
static int stacked_fits(const clmax_problem *p, int packs)
{
    const uint64_t vw = STACK_VECTOR / p->esize, nv = (p->inner + vw - 1) / vw, n = p->n;
    const uint64_t in = p->inner;
    if (p->esize == 8 && (in == 12 || in == 16)) return n <= (in == 12 ? STACK_N8_12 : STACK_N8_16);
    if (in < 3 || in > 2 * vw || n * in * p->esize > STACK_KEYS) return 0;
    if (p->esize == 8) return n <= (in < 5 ? STACK_N8 : in < 8 ? STACK_N8_WIDE : 4);
    if (in <= 4) return n * nv * vw <= STACK_WASTE * in;
    switch (p->esize) {
    case 1:
        return in < 8 ? n <= STACK_N : in <= 16 ? n * in < STACK_PACKED8 : n <= 32;
    case 2:
        return in < 16 ? n <= STACK_N : in == 16 ? n <= 12 : n <= 32;
    case 4:
        return n <= (in < 12 ? STACK_N : 8) || (in <= 6 && n <= STACK_N4_SHORT && !packs);
    default: /* eight-byte slices: above */
        return 0;
    }
}

/* Slices for the tile (cpu_tile.c), where the transposed slices and the packed words do not
 * take them: one-byte slices of
 * 5 to 7 lanes, which the dealt rows copy padded and the stacked rows read a vector a row for,
 * and of 8 lanes on axes up to TILE_N8. In turns with those (5 rounds, 128 MiB, ms): uint8
 * [B, 5..21, 5..7] x1.23-2.31, [B, 2, 5..6] x1.25-1.28, [B, 48, 5..6] x1.40-1.60, [B, 4..16, 8]
 * x1.21-1.41, [B, 32, 8] x0.92. Two-byte and shorter one-byte rows ran slower so (float16
 * [B, 32, 3] 9.5 -> 13.3 ms, uint8 [B, 32, 3..4] 9.7-10.5 -> 16.0-17.6), and so did two-byte rows
 * of 6 and 7 lanes in 16-byte words (x0.69-0.92); 9 to 16 one-byte lanes and 5 two-byte ones
 * gained x0.96-1.20 there, too little to take a wider word for. */
#define TILE_N8 16
static int tile_fits(const clmax_problem *p)
{
    return p->esize == 1 && p->inner >= 5 && (p->inner < 8 || (p->inner == 8 && p->n <= TILE_N8)) &&
           clmax_cpu_tile_holds(p->esize, p->n, p->inner);
}

int clmax_cpu_few_lanes(const clmax_problem *p)
{
    return few_fits(p) && p->n < FEW_NARROW_N;
}

/* The few-lane rows' candidates of keys of at most 32 bits, ck[m * inner + q] at row ci[...]:
 * each made one 64-bit word, key << 32 over its position (complemented for the first index), so
 * that the lane's winner is the words' max, taken in halving steps of whole vectors. The winner
 * of lane q into (bk[q], bi[q]), positions from j0. */
CLMAX_CPU_CLONES static void few_combine32(uint64_t *ck, const uint64_t *ci, uint64_t inner,
                                           uint64_t k, int last, uint64_t j0, uint64_t *bk,
                                           uint64_t *bi)
{
    const uint64_t low = 0xFFFFFFFFull, flip = last ? 0 : low;
    for (uint64_t m = 0, l = 0; m < k; m++)
        for (uint64_t q = 0; q < inner; q++, l++)
            ck[l] = ck[l] << 32 | ((ci[l] * k + m) ^ flip);
    for (uint64_t w = inner * k / 2; w >= inner; w /= 2) /* k is a power of two */
        for (uint64_t l = 0; l < w; l++)
            ck[l] = ck[l] > ck[l + w] ? ck[l] : ck[l + w];
    for (uint64_t q = 0; q < inner; q++) {
        bk[q] = ck[q] >> 32;
        bi[q] = j0 + ((ck[q] & low) ^ flip);
    }
}

/* The winners (bk, bi) of the p->inner lanes of the slice at x over axis positions [j0, j1),
 * read as rows of jb->few lanes, each lane of the slice on few / inner of them: their winners are
 * combined by key and axis position, then the positions that did not fill a row run as lanes.
 * scratch: 4 * jb->few words. */
static void few_lanes(const job *jb, const char *x, uint64_t j0, uint64_t j1, uint64_t *bk,
                      uint64_t *bi, uint64_t *scratch)
{
    const clmax_problem *p = jb->p;
    const uint64_t inner = p->inner, v = jb->few, k = v / inner, rows = (j1 - j0) / k;
    uint64_t *ck = scratch, *ci = ck + v, *work = ci + v;
    jb->fn.lanes(x + j0 * inner * p->esize, v, v, 0, rows, p->last, ck, ci, work);
    if (p->esize <= 4)
        few_combine32(ck, ci, inner, k, p->last, j0, bk, bi);
    else
        for (uint64_t q = 0; q < inner; q++) {
            uint64_t b = ck[q], bj = ci[q] * k;
            for (uint64_t m = 1; m < k; m++) {
                const uint64_t key = ck[m * inner + q], j = ci[m * inner + q] * k + m;
                if (key > b || (key == b && (p->last ? j > bj : j < bj))) b = key, bj = j;
            }
            bk[q] = b;
            bi[q] = j0 + bj;
        }
    const uint64_t t0 = j0 + rows * k;
    if (t0 == j1) return;
    jb->fn.lanes(x, inner, inner, t0, j1, p->last, ck, ci, work);
    for (uint64_t q = 0; q < inner; q++) /* the tail's positions come after the rows' */
        if (ck[q] > bk[q] || (p->last && ck[q] == bk[q])) bk[q] = ck[q], bi[q] = ci[q];
}

/* The codes that take whole slices, a group at a time (whole_slices). */
typedef enum whole_code {
    WHOLE_SLICES,  /* the one-byte and smallest eight-byte slices (cpu_slices.c) */
    WHOLE_PACKED,  /* the packed words (cpu_packed.c) */
    WHOLE_STACKED, /* the stacked rows (cpu_stacked.c) */
} whole_code;

/* Slices [o0, o1) whole, by `code`, a group of OUT_CHUNK winners at a time (through a buffer
 * when the winners are streamed out). */
static void whole_slices(const job *jb, uint64_t o0, uint64_t o1, whole_code code)
{
    const clmax_problem *p = jb->p;
    int64_t buf[OUT_CHUNK];
    const uint64_t per = (jb->stream ? CLMAX_PUT_STREAMED(OUT_CHUNK) : OUT_CHUNK) / p->inner;
    const uint64_t group = per ? per : 1, sl = p->n * p->inner;
    for (uint64_t c0 = o0; c0 < o1; c0 += group) {
        const uint64_t c1 = o1 - c0 < group ? o1 : c0 + group;
        int64_t *out = jb->stream ? buf : jb->idx + c0 * p->inner;
        const char *x = jb->x + c0 * sl * p->esize;
        if (code == WHOLE_PACKED)
            jb->packed(x, c1 - c0, p->n, p->inner, p->last, out, (p->outer - c0) * sl);
        else if (code == WHOLE_STACKED)
            jb->fn.stacked(x, c1 - c0, p->n, p->inner, p->last, out);
        else
            jb->fn.slices(x, c1 - c0, p->n, p->inner, p->last, out);
        if (jb->stream) clmax_cpu_put(jb->idx + c0 * p->inner, buf, (c1 - c0) * p->inner, 1);
    }
}

/* Whole short rows x (`rows` of them, `readable` elements from x on) into out: the vector code
 * takes the rows whose loads stay inside the input, the scalar code or the row search the rest. */
static void whole_rows(const job *jb, const char *x, uint64_t rows, int64_t *out, uint64_t readable)
{
    const clmax_problem *p = jb->p;
    const uint64_t rb = p->n * p->esize;
    uint64_t done = 0;
    if (jb->fn.short_simd != NULL && p->n <= CLMAX_SHORT_MAX(p->esize))
        done = jb->fn.short_simd(x, rows, p->n, p->last, out, readable);
    if (p->n >= TINY_ROW && clmax_type_is_float(p->type) &&
        (jb->row_mode != CLMAX_BLOCK_KEYS || rb >= CLMAX_BLOCK_SIMD_MIN)) {
        /* Float rows: the row search's extremes over the whole row, then one search of it.
         * Chunks' keys took 0.36 of a cache-hot read on [64, 1000] float32, and 0.58-0.77
         * of the memory's pace on [B, 1000..2048] of 256 MiB (the row search 0.89-1.00);
         * streamed rows shorter than the vector code's stretches keep the chunks. */
        for (uint64_t r = done; r < rows; r++) {
            uint64_t bk1, bi1;
            jb->fn.row(x + r * rb, 0, p->n, p->last, jb->row_mode, &bk1, &bi1);
            out[r] = (int64_t)bi1;
        }
    } else if (done < rows)
        jb->fn.short_rows(x + done * rb, rows - done, p->n, p->last, out + done);
}

/* A unit on task t: its lanes' pairs (bk, bi) and their work area (16 bytes a lane) are 4 words
 * a lane, on the stack for small lane blocks, else task t's part of the job's state. */
static void run_unit(job *jb, uint64_t u, int t)
{
    const clmax_problem *p = jb->p;
    uint64_t seg = u % jb->nseg;
    u /= jb->nseg;
    uint64_t lb = u % jb->lane_units;
    uint64_t ru = u / jb->lane_units;
    uint64_t o0 = ru * jb->rows_per_unit;
    uint64_t o1 = o0 + jb->rows_per_unit < p->outer ? o0 + jb->rows_per_unit : p->outer;
    uint64_t i0 = lb * jb->lane_block;
    uint64_t lanes = p->inner - i0 < jb->lane_block ? p->inner - i0 : jb->lane_block;
    uint64_t j0 = seg * jb->seg_len;
    uint64_t j1 = j0 + jb->seg_len < p->n ? j0 + jb->seg_len : p->n;
    if (p->inner == 1 && jb->nseg == 1 && p->n <= ROW_BLOCK) {
        /* Whole short rows: one call for the unit (or an output chunk), no per-row dispatch. */
        const char *xs = jb->x + o0 * p->n * p->esize;
        if (!jb->stream_rows) {
            whole_rows(jb, xs, o1 - o0, jb->idx + o0, (p->outer - o0) * p->n);
            return;
        }
        /* winners of more bytes than the rows: streamed out */
        int64_t buf[OUT_CHUNK];
        const uint64_t chunk = CLMAX_PUT_STREAMED(OUT_CHUNK);
        for (uint64_t c0 = o0; c0 < o1; c0 += chunk) {
            const uint64_t c = o1 - c0 < chunk ? o1 - c0 : chunk;
            whole_rows(jb, jb->x + c0 * p->n * p->esize, c, buf, (p->outer - c0) * p->n);
            clmax_cpu_put(jb->idx + c0, buf, c, 1);
        }
        return;
    }
    /* Whole slices, the codes in the order tried. The float slots (512-bit vectors), the
     * transposed slices and the one-byte streams came last and take theirs first (x1.1-2.7 on
     * their shapes); the figures of the fits functions below them were measured before, and still
     * choose where those do not fit: slices past TRANSPOSED_SLICE_MAX bytes of types wider than a
     * byte, other `inner`s, and CPUs without AVX-512 or AVX2. */
    if (jb->slots && jb->nseg == 1) {
        const uint64_t sl = p->n * p->inner * p->esize;
        if (clmax_cpu_slots(p, jb->x + o0 * sl, o1 - o0, jb->stream, jb->fn.lanes,
                            jb->idx + o0 * p->inner))
            return;
    }
    if (jb->transposed && jb->nseg == 1) {
        const uint64_t sl = p->n * p->inner * p->esize;
        clmax_cpu_transposed(p, jb->x + o0 * sl, o1 - o0, (p->outer - o0) * sl, jb->stream,
                             jb->idx + o0 * p->inner);
        return;
    }
    if (jb->lanevecs && jb->nseg == 1) {
        const uint64_t sl = p->n * p->inner * p->esize;
        clmax_cpu_lanevecs(p, jb->x + o0 * sl, o1 - o0, jb->stream, jb->idx + o0 * p->inner);
        return;
    }
    if (jb->streamlanes && jb->nseg == 1) {
        const uint64_t sl = p->n * p->inner * p->esize;
        clmax_cpu_streamlanes(p, jb->x + o0 * sl, o1 - o0, (p->outer - o0) * sl, jb->stream,
                              jb->idx + o0 * p->inner);
        return;
    }
    if (jb->tile && jb->nseg == 1) {
        const uint64_t sl = p->n * p->inner * p->esize;
        clmax_cpu_tile_slices(jb->x + o0 * sl, o1 - o0, p->n, p->inner, p->esize,
                              (p->outer - o0) * sl, p->last, jb->fn.lanes, jb->stream,
                              jb->idx + o0 * p->inner);
        return;
    }
    if (jb->nseg == 1 && jb->interleaved) { /* ahead of the stacked rows: [B, 2..4, 4] x1.11-1.62 */
        clmax_cpu_interleaved(p->type, jb->x + o0 * p->n * p->inner * p->esize, o1 - o0, p->n,
                              p->inner, p->min, p->last, jb->stream, jb->idx + o0 * p->inner);
        return;
    }
    if (jb->stacked && jb->nseg == 1) {
        whole_slices(jb, o0, o1, WHOLE_STACKED);
        return;
    }
    if (jb->packed != NULL && jb->nseg == 1) {
        whole_slices(jb, o0, o1, WHOLE_PACKED);
        return;
    }
    if (((p->esize == 1 && p->inner >= 8 && p->inner < SLICE_INNER) ||
         (p->esize == 8 && p->inner >= 4 && p->n * p->inner <= SLICE8_ELEMS)) &&
        jb->nseg == 1 && p->n * p->inner <= SLICE_ELEMS) {
        whole_slices(jb, o0, o1, WHOLE_SLICES);
        return;
    }
    if (jb->nseg == 1 && jb->deal) {
        clmax_cpu_deal_slices(jb->x + o0 * p->n * p->inner * p->esize, o1 - o0, p->n, p->inner,
                              p->esize, p->last, jb->stream, jb->fn.short_simd, jb->fn.short_rows,
                              jb->idx + o0 * p->inner);
        return;
    }
    uint64_t local[4 * STACK_LANES];
    const lanes_fn lanes_of = lanes * p->esize % 64 ? jb->part_lanes : jb->fn.lanes;
    uint64_t *bk = jb->state ? jb->state + (uint64_t)t * jb->state_words : local;
    uint64_t *bi = bk + lanes, *work = bi + lanes;
    /* Whole slices of rows under a line, up to SLICE_PF_MAX bytes, one after another: one stream,
     * prefetched a slice at a time (cpu_short.h) */
    const uint64_t sl = p->n * p->inner * p->esize;
    const int whole = p->inner > 1 && lanes == p->inner && jb->nseg == 1 &&
                      p->inner * p->esize < FEW_LINE && sl <= SLICE_PF_MAX;
    uintptr_t pf = clmax_cpu_pf_start(jb->x + o0 * sl);
    for (uint64_t o = o0; o < o1; o++) {
        const char *base = jb->x + (o * p->n * p->inner + i0) * p->esize;
        if (whole) clmax_cpu_pf(&pf, base + sl);
        if (p->inner == 1)
            jb->fn.row(base, j0, j1, p->last, jb->row_mode, bk, bi);
        else if (jb->few && j1 - j0 >= jb->few_min)
            few_lanes(jb, base, j0, j1, bk, bi, work + 2 * lanes);
        else if (jb->pieces && lanes * p->esize >= PIECE_ROW_MIN) {
            /* the winners in pieces, each streamed out as it is found */
            const uint64_t piece = PIECE_LANES(p);
            for (uint64_t l0 = 0; l0 < lanes; l0 += piece) {
                const uint64_t n = lanes - l0 < piece ? lanes - l0 : piece;
                lanes_of(base + l0 * p->esize, p->inner, n, j0, j1, p->last, NULL, bi, work);
                clmax_cpu_put(jb->idx + o * p->inner + i0 + l0, (const int64_t *)bi, n, 1);
            }
            continue;
        } else /* the indices alone where they are one segment of a short axis */
            lanes_of(base, p->inner, lanes, j0, j1, p->last,
                     jb->nseg == 1 && j1 - j0 <= LANES_INDICES_N ? NULL : bk, bi, work);
        if (jb->nseg == 1) {
            clmax_cpu_put(jb->idx + o * p->inner + i0, (const int64_t *)bi, lanes, jb->stream);
            continue;
        }
        for (uint64_t l = 0; l < lanes; l++) {
            uint64_t q = o * p->inner + i0 + l;
            jb->pk[q * jb->nseg + seg] = bk[l];
            jb->pi[q * jb->nseg + seg] = bi[l];
        }
    }
}

/* Any number of threads take units until none is left. */
static void worker(void *arg, int t)
{
    job *jb = arg;
    uint64_t u;
    while ((u = atomic_fetch_add(&jb->next, 1)) < jb->units)
        run_unit(jb, u, t);
    if (jb->stream || jb->stream_rows || jb->pieces)
        clmax_stream_fence(); /* the winners visible to the joining thread */
}

/* Zeroes indices [begin, end): plain stores, or streamed out (a large output; memset's plain
 * stores read each line first, and zeroed 256 MiB at half the probe's rate: uint8 [2^28, 1]
 * 0.49-0.51 of the limit). */
static void zero_indices(void *arg, uint64_t begin, uint64_t end)
{
    memset((int64_t *)arg + begin, 0, (size_t)(end - begin) * sizeof(int64_t));
}
static void zero_indices_streamed(void *arg, uint64_t begin, uint64_t end)
{
    clmax_stream_zero((int64_t *)arg + begin, (size_t)(end - begin) * sizeof(int64_t));
    clmax_stream_fence();
}

/* The shortest axis segment of a unit for the job's lane block (MIN_SEGMENT, SEGMENT_BYTES). */
static uint64_t segment_min(const job *jb)
{
    const uint64_t block_row = jb->lane_block * jb->p->esize;
    const uint64_t rows = (SEGMENT_BYTES + block_row - 1) / block_row;
    return rows > MIN_SEGMENT ? MIN_SEGMENT : rows < 2 ? 2 : rows;
}

/* The shortest run of a row a lane block split for the threads' sake may leave: 2 KiB where a
 * thread would idle, 4 KiB where the units are uneven (runs of 2 KiB lost to three units on two
 * threads: [3, 1000, 1024] float32 x0.86-0.88, [3, 1000, 4096] uint8 x0.84-0.88), 8 KiB where
 * the axis could be split into segments instead (runs of 4 KiB lost to them: [1, 32000, 4096]
 * float16 x0.67; runs of 8 KiB and more beat them, float32 [1, 1000, 4096] x1.34-1.57). */
static uint64_t lane_split_min(const job *jb, int threads)
{
    if (jb->p->n >= 2 * segment_min(jb)) return 8192;
    return jb->row_units * jb->lane_units < (uint64_t)threads ? 2048 : 4096;
}

/* More than an eighth of the threads' time idle when they take `units` equal units in turns. */
static int uneven(uint64_t units, int threads)
{
    uint64_t rounds = (units + (uint64_t)threads - 1) / (uint64_t)threads;
    return rounds * (uint64_t)threads * 8 > units * 9;
}

/* Slices a unit: those of unit_elements, or one where a slice's lane block holds more. */
static void plan_rows(job *jb, uint64_t unit_elements)
{
    const clmax_problem *p = jb->p;
    uint64_t per_slice = p->n >= unit_elements ? unit_elements : p->n * jb->lane_block;
    jb->rows_per_unit = per_slice >= unit_elements ? 1 : unit_elements / per_slice;
    if (jb->rows_per_unit > p->outer) jb->rows_per_unit = p->outer;
    jb->row_units = (p->outer + jb->rows_per_unit - 1) / jb->rows_per_unit;
}

/* The CPU path on at most max_threads threads (1: the calling thread alone, the pool untouched). */
static clmax_status cpu_reduce(clmax_context *ctx, const clmax_problem *p, const void *x,
                               int64_t *idx, int max_threads)
{
    if (p->n == 1) { /* every index is 0: the input need not be read */
        const uint64_t count = p->outer * p->inner;
        void (*zero)(void *, uint64_t, uint64_t) =
            count * 8 >= CLMAX_STREAM_MIN ? zero_indices_streamed : zero_indices;
        if (max_threads > 1)
            clmax_parallel_for(ctx, count, UNIT_BYTES / 8, zero, idx);
        else
            zero(idx, 0, count);
        return CLMAX_OK;
    }
    job jb;
    memset(&jb, 0, sizeof jb);
    jb.p = p;
    jb.x = x;
    jb.idx = idx;
    const int wide = clmax_cpu_wide(ctx);
    jb.fn = clmax_cpu_kernels(p->type, p->min, wide);
    if (jb.fn.row == NULL) return clmax_fail(CLMAX_ERROR_INTERNAL, "CPU path: no code for a type");
    jb.fn.short_simd = clmax_cpu_short_simd(p->type, p->min);
    /* Lane blocks of one- and two-byte keys not of whole 64-byte vectors take the 256-bit lanes:
     * GCC's 512-bit loops finish a block's part-vector in narrower epilogues. In turns (2 rounds
     * each way, clmax-bench --sweep --sweep-n=1000, 128 MiB, CLMAX_CPU_AVX512=off against auto),
     * uint8 [B, 1000, 48..127] ran x1.5-3.1 faster so at 48, 56, 63, 65, 80, 112 and 127 lanes,
     * float16 x1.4-2.4 at 33, 40, 56, 63 and 127; at whole vectors the two were within x0.87-1.36.
     * float64's float compares (cpu_flanes.c) ran x0.68-0.89 so on [B, 100, 2..7]: they keep
     * theirs, as do the wider types (not measured). */
    jb.part_lanes =
        wide && p->esize <= 2 ? clmax_cpu_kernels(p->type, p->min, 0).lanes : jb.fn.lanes;
    const int packs = packed_fits(p, wide);
    jb.deal = clmax_cpu_deal_fits(p->esize, p->n, p->inner);
    jb.interleaved = clmax_cpu_interleaved_fits(p->type, p->n, p->inner);
    /* Across slices ran faster for float [B, 2, 2] (x0.73 transposed, 5 rounds, in turns) and
     * rows of 16 bytes (float64 [B, 8, 2] x0.83); the packed words for two-byte slices of 5 to 7
     * lanes where they fit (float16 [B, 25, 5] x0.75 and [B, 21, 6] x0.85 transposed) */
    jb.transposed = clmax_cpu_transposed_fits(p) &&
                    !(jb.interleaved && (p->n == 2 || p->inner * p->esize == 16)) &&
                    !(p->esize == 2 && p->inner >= 5 && p->inner <= 7 && packs);
    jb.slots = clmax_cpu_slots_fits(p, wide);
    jb.lanevecs = clmax_cpu_lanevecs_fits(p);
    jb.streamlanes = !jb.transposed && !jb.lanevecs && clmax_cpu_streamlanes_fits(p);
    jb.stacked = stacked_fits(p, packs);
    if (packs) jb.packed = clmax_cpu_packed(p->type, p->min, wide);
    jb.tile = jb.packed == NULL && tile_fits(p);

    int threads = max_threads > MAX_THREADS ? MAX_THREADS : max_threads;
    uint64_t total = p->outer * p->n * p->inner;
    if (total < PARALLEL_MIN) threads = 1;
    /* Inputs past the threads' L2 read float rows by their keys, but for float64 where 512-bit
     * code runs: its keys' 64-bit compares are emulated in AVX2, and the extremes in 512-bit
     * vectors ran [B, 256..65536] of 128 MiB x1.21-1.48 (0.64-0.67 -> 0.80-0.99 of the limit).
     * float32 and float16 were mixed so (x0.76-1.20). */
    const int keyed =
        total * p->esize > (uint64_t)threads * cpu_l2_bytes() && !(wide && p->esize == 8);
    jb.row_mode = keyed ? CLMAX_BLOCK_KEYS : wide ? CLMAX_BLOCK_WIDE : CLMAX_BLOCK_NARROW;

    const uint64_t lane_count = p->n <= SHORT_AXIS_N ? LANE_COUNT_SHORT : LANE_COUNT;
    uint64_t lane_max = LANE_BYTES / p->esize < lane_count ? LANE_BYTES / p->esize : lane_count;
    jb.lane_block = p->inner < lane_max ? p->inner : lane_max;
    jb.lane_units = (p->inner + jb.lane_block - 1) / jb.lane_block;
    uint64_t unit_bytes = total * p->esize / (UNIT_SHARE * (uint64_t)threads);
    unit_bytes = unit_bytes > UNIT_BYTES       ? UNIT_BYTES
                 : unit_bytes < UNIT_BYTES_MIN ? UNIT_BYTES_MIN
                                               : unit_bytes;
    const uint64_t unit_elements = unit_bytes / p->esize;
    plan_rows(&jb, unit_elements);
    /* Units the threads cannot share evenly (one slice of [1, 1000, 4096] was one thread's):
     * narrower lane blocks, each thread a share of every row, ahead of the axis's segments
     * below, down to lane_split_min's runs. Not where the input fits the threads' L2 caches,
     * which one thread read faster than two started. */
    while (threads > 1 && uneven(jb.row_units * jb.lane_units, threads) &&
           total * p->esize >= (uint64_t)threads * cpu_l2_bytes() &&
           jb.lane_block * p->esize >= 2 * lane_split_min(&jb, threads)) {
        jb.lane_block = (jb.lane_block / 2 + LINE_LANES(p) - 1) / LINE_LANES(p) * LINE_LANES(p);
        jb.lane_units = (p->inner + jb.lane_block - 1) / jb.lane_block;
        plan_rows(&jb, unit_elements);
    }

    /* Split the axis when there are too few units to keep every thread busy. */
    jb.nseg = 1;
    uint64_t pairs = jb.row_units * jb.lane_units;
    const uint64_t seg_min = segment_min(&jb);
    if (threads > 1 && pairs < 2 * (uint64_t)threads && p->n >= 2 * seg_min) {
        jb.nseg = (4 * (uint64_t)threads + pairs - 1) / pairs;
        if (jb.nseg > p->n / seg_min) jb.nseg = p->n / seg_min;
    }
    if (ctx->strategy == CLMAX_STRATEGY_SPLIT && jb.nseg < 2 && p->n >= 2)
        jb.nseg = p->n < 7 ? p->n : 7;
    if (p->n / jb.nseg >= MAX_SEGMENT) jb.nseg = p->n / MAX_SEGMENT + 1;
    if (jb.nseg > 1) jb.rows_per_unit = 1, jb.row_units = p->outer;
    jb.seg_len = (p->n + jb.nseg - 1) / jb.nseg;
    jb.nseg = (p->n + jb.seg_len - 1) / jb.seg_len;
    jb.units = jb.row_units * jb.lane_units * jb.nseg;
    /* 8-byte winners of at least a quarter of the input's bytes: n * esize <= 32 */
    jb.stream = jb.nseg == 1 && !p->reread && p->inner > 1 && p->n * p->esize <= 32 &&
                p->outer * p->inner * 8 >= CLMAX_STREAM_MIN;
    jb.pieces = jb.nseg == 1 && !p->reread && p->inner > 1 && p->n <= PIECE_N &&
                p->outer * p->inner * 8 >= CLMAX_STREAM_MIN;
    jb.stream_rows = p->inner == 1 && p->n == 2 && p->esize <= 4 && jb.nseg == 1 && !p->reread &&
                     jb.fn.short_simd != NULL && p->outer * 8 >= CLMAX_STREAM_MIN;

    if (jb.nseg > 1) {
        size_t count = (size_t)(p->outer * p->inner * jb.nseg);
        jb.pk = malloc(count * sizeof *jb.pk);
        jb.pi = malloc(count * sizeof *jb.pi);
        if (jb.pk == NULL || jb.pi == NULL) {
            free(jb.pk);
            free(jb.pi);
            return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "CPU path: %zu partial results", count);
        }
    }
    atomic_init(&jb.next, 0);

    if ((uint64_t)threads > jb.units) threads = (int)jb.units;
    if (few_fits(p)) {
        jb.few = FEW_BYTES(p->esize, p->n) / p->esize * p->inner;
        jb.few_min = (p->inner * p->esize >= 32 ? FEW_ROWS_VEC : FEW_ROWS) * (32 / p->esize);
    }
    jb.state_words = 4 * (jb.lane_block + jb.few);
    if (jb.state_words > 4 * STACK_LANES) {
        jb.state = malloc((size_t)threads * (size_t)jb.state_words * sizeof *jb.state);
        if (jb.state == NULL) {
            free(jb.pk);
            free(jb.pi);
            return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "CPU path: lane state of %d threads",
                              threads);
        }
    }
    clmax_pool_run(ctx->pool, threads, worker, &jb); /* the calling thread works too */
    free(jb.state);

    if (jb.nseg > 1) {
        uint64_t outputs = p->outer * p->inner;
        for (uint64_t q = 0; q < outputs; q++) {
            const uint64_t *k = jb.pk + q * jb.nseg, *i = jb.pi + q * jb.nseg;
            uint64_t bk = k[0], bi = i[0];
            for (uint64_t s = 1; s < jb.nseg; s++) {
                /* segments come in index order, so ">" keeps the first and ">=" the last */
                if (k[s] > bk || (p->last && k[s] == bk)) bk = k[s], bi = i[s];
            }
            idx[q] = (int64_t)bi;
        }
        free(jb.pk);
        free(jb.pi);
    }
    return CLMAX_OK;
}

lanes_fn clmax_cpu_lanes_of(const clmax_context *ctx, const clmax_problem *p)
{
    return clmax_cpu_kernels(p->type, p->min, clmax_cpu_wide(ctx)).lanes;
}

clmax_status clmax_cpu_reduce(clmax_context *ctx, const clmax_problem *p, const void *x,
                              int64_t *idx)
{
    return cpu_reduce(ctx, p, x, idx, ctx->num_threads);
}

clmax_status clmax_cpu_reduce_here(clmax_context *ctx, const clmax_problem *p, const void *x,
                                   int64_t *idx)
{
    return cpu_reduce(ctx, p, x, idx, 1);
}

static void cpu_destroy(clmax_context *ctx)
{
    (void)ctx;
}

static const clmax_backend_iface cpu_iface = {.reduce = clmax_cpu_reduce, .destroy = cpu_destroy};

clmax_status clmax_cpu_init(clmax_context *ctx)
{
    ctx->iface = &cpu_iface;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s", ctx->cpu_name);
    return CLMAX_OK;
}
