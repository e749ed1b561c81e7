/* The CPU path's kernels, a family to a file, each family a template instantiated for every type
 * (cpu_types.inc), and what they share with the planner (cpu_backend.c):
 *   cpu_rows.c   (cpu_rows.inc)    row_*, short_rows_*: contiguous rows (inner == 1)
 *   cpu_slices.c (cpu_slices.inc)  slices_*: whole small slices of one-byte lanes
 *   cpu_packed.c (cpu_packed.inc)  packed_*, packed512_*: whole slices of 2 to 16 lanes of 8- to
 *                                  32-bit keys, as one stream of packed (key, row) words
 *   cpu_lanes.c  (cpu_lanes.inc)   lanes_*, lanes512_*: strided axes, by integer keys
 *   cpu_flanes.c (cpu_flanes.inc)  flanes_*, lanes_fp_*: float32 / float64 strided axes, by float
 *                                  compares, falling back to lanes_*
 *   cpu_kernels.c                  clmax_cpu_kernels: a type's functions
 * Each kernel of a type is clmax_cpu_<family>_<type>, the type u8 ... f64 (ArgMax) or
 * u8_min ... f64_min (ArgMin). */
#ifndef CLMAX_CPU_KERNELS_H
#define CLMAX_CPU_KERNELS_H

#include "clmax.h"
#include "cpu_short.h"

#include <stdint.h>

#define ROW_BLOCK 2048 /* elements per block of the two-pass row scan */
/* Bytes per block of a cache-resident row (CLMAX_BLOCK_NARROW, _WIDE): each block's max costs a
 * reduction and a call, which 2048-element blocks paid every 8 KiB; the block the max is found in
 * is searched again from L1 (48 KiB here). [1, 151936] float32: 112 GB/s in 8 KiB blocks, 143 in
 * 32 KiB, 153 in 64 KiB, which lost on [8, 32000]. */
#ifndef HOT_BLOCK_BYTES
#define HOT_BLOCK_BYTES 32768
#endif
/* Rows prefetch and read in runs as cpu_block.h says; lanes that are whole rows (one sequential
 * stream) prefetch LANE_PREFETCH bytes on. */
#ifndef LANE_PREFETCH
#define LANE_PREFETCH 16384
#endif
/* Lanes of rows of at least LANE_ROW_MIN bytes (cpu_lanes.inc; FLANE_ROW_MIN for the float
 * lanes of cpu_flanes.inc) whose running pairs (key and index) take at most LANE_ROW_STATE bytes,
 * L1-resident, are updated a row at a time: one sequential stream, with clmax_cpu_pf's cursor
 * ahead of it. The others take four rows a step, loading and storing each pair once per step: the
 * four 1 KiB rows of a step, read in turns, were not followed, so float32 [B, 4096, 256] ran at
 * 0.48 of the read, 0.92 a row at a time. Shorter float rows ran as fast or faster four at a time
 * (float32 rows of 256 B: [B, 256..32000, 64] x0.76-0.84 a row at a time), and so did lanes whose
 * pairs are in L2 (4096 float32 lanes); integer rows of 64 B and more gained a row at a time once
 * the cursor went with it (uint8 [B, 256..32000, 64] 0.49-0.54 -> 0.83-0.91, float16 x1.02-1.39).
 */
#ifndef LANE_ROW_STATE
#define LANE_ROW_STATE 16384
#endif
#ifndef LANE_ROW_MIN
#define LANE_ROW_MIN 64
#endif
#ifndef FLANE_ROW_MIN
#define FLANE_ROW_MIN 512
#endif
/* Whether `lanes` lanes of es-byte elements and pair_bytes of running pair each, rows of at least
 * min bytes, go a row at a time. */
#define LANE_BY_ROW(lanes, es, pair_bytes, min)                                                    \
    ((lanes) * (es) >= (min) && (lanes) * (pair_bytes) <= LANE_ROW_STATE)
/* Prefetch of lanes [l0, l1) of the four rows from r (rows inner elements apart, es bytes each). */
#define LANE_PF(r, inner, l0, l1, es)                                                              \
    for (uint64_t q_ = 0; q_ < 4; q_++)                                                            \
        for (uint64_t c_ = (l0) * (es); c_ < (l1) * (es); c_ += 64)                                \
    __builtin_prefetch((const char *)((r) + q_ * (inner)) + c_)
#define TINY_ROW 128    /* rows shorter than this: AVX2 code, or the key-buffer scan */
#define KEY_BUFFER 4096 /* keys of a group of tiny rows */
/* Slices [n, inner] of one-byte elements, at most SLICE_ELEMS of them, with 8 to SLICE_INNER - 1
 * lanes run whole, a group at a time (slices_*): [B, 80, 16] uint8 ran 4 times faster so, 40
 * lanes a fifth slower. Wider elements and fewer lanes ran as fast or faster in the lanes code
 * (docs/TUNING.md). */
#define SLICE_ELEMS 4096
#define SLICE_INNER 32
/* And eight-byte slices of 4 lanes or more (past the dealt rows' 3) of up to SLICE8_ELEMS: a
 * slice of [2..3, 4..7] float64 is a few elements to the lanes code's call and state (0.19-0.29 of
 * the limit there, 0.38-0.41 whole); [5, 4] ran as fast, [16, 4] and longer slower (0.79-0.30). */
#define SLICE8_ELEMS 16

/* The hot loops are compiled twice, for AVX2 and for the baseline, and picked at load time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)
#define CLMAX_CPU_CLONES __attribute__((target_clones("avx2", "default")))
/* GCC gives such a function, if not static, and its resolver default visibility whatever
 * -fvisibility and its declaration say: CLMAX_CPU_HIDE(fn) after it keeps both out of the shared
 * library's exports. */
#define CLMAX_CPU_HIDE(fn)                                                                         \
    __asm__(".hidden " CLMAX_T_STR(fn) "\n\t.hidden " CLMAX_T_STR(fn) ".resolver");
#else
#define CLMAX_CPU_CLONES
#define CLMAX_CPU_HIDE(fn)
#endif

/* The lanes (lanes_*, and the float lanes flanes_*) also in 512-bit vectors, where the CPU has
 * AVX-512BW and VL and the context allows it (CLMAX_CPU_AVX512): the key and the update of the
 * integer lanes are several vector operations an element, which made them compute-bound, and
 * 512-bit vectors take twice the lanes an operation, with masks instead of blends.
 * GCC's target_clones cannot ask for 512-bit vectors (its AVX-512 clones prefer 256), so the
 * variant is a function of its own, picked in clmax_cpu_kernels. The row scans stay in
 * 256-bit vectors, which ran them faster. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)
#define CLMAX_LANES_512 1
#define LANES_512_TARGET                                                                           \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx2,prefer-vector-width=512")))
#else
#define CLMAX_LANES_512 0
#endif
/* The lanes kernels' parameters: lanes adjacent lanes from xv over rows [j0, j1), their winners'
 * keys into bk_out and indices into bi_out (work: 16 bytes a lane). bk_out may be NULL where
 * j1 - j0 <= LANES_INDICES_N (one stretch of the narrowest relative index, cpu_lanes.inc): the
 * indices alone, without the widened keys' stores (uint8 [B, 2, 65536] wrote them at 16 bytes a
 * lane for 2 bytes read). */
#define LANES_INDICES_N 256
#define LANES_PARAMS                                                                               \
    const void *xv, uint64_t inner, uint64_t lanes, uint64_t j0, uint64_t j1, int last,            \
        uint64_t *bk_out, uint64_t *bi_out, void *work
#define LANES_ARGS xv, inner, lanes, j0, j1, last, bk_out, bi_out, work

/* float32 and float64 lanes by the CPU's own float compares (cpu_flanes.c) where SSE does the
 * float math. */
#if defined(__x86_64__) && defined(__SSE2_MATH__)
#define FLOAT_LANES 1
#else
#define FLOAT_LANES 0
#endif

typedef void (*row_fn)(const void *x, uint64_t j0, uint64_t j1, int last, int mode, uint64_t *bk,
                       uint64_t *bi);
typedef void (*lanes_fn)(const void *x, uint64_t inner, uint64_t lanes, uint64_t j0, uint64_t j1,
                         int last, uint64_t *bk, uint64_t *bi, void *work);
typedef void (*slices_fn)(const void *x, uint64_t rows, uint64_t n, uint64_t inner, int last,
                          int64_t *out);

/* Whole slices [n, inner] of 8-, 16- and 32-bit keys, 2 to PACK_INNER lanes, n < 65536
 * (cpu_packed.c); readable: the elements from x that may be read. */
#define PACK_INNER 16
typedef void (*packed_fn)(const void *x, uint64_t slices, uint64_t n, uint64_t inner, int last,
                          int64_t *out, uint64_t readable);
/* The packed slices of type t (ArgMin with min; wide: in 512-bit vectors), or NULL where its keys
 * are wider. */
packed_fn clmax_cpu_packed(clmax_type t, int min, int wide);

/* Whole slices read as each row's vectors from its first lane, stacked (cpu_stacked.c): slices of
 * 3 lanes to two vectors of them on short axes, which ones stacked_fits (cpu_backend.c) says. */
#define STACK_VECTOR 32     /* bytes a vector: AVX2 */
#define STACK_KEYS 8192     /* bytes of keys of a group of slices, kept in L1 */
#define STACK_PAD_VECTORS 1 /* the last slice's last vector reads under one past */
#define STACK_PF_RUN 64     /* elements keyed between two moves of the prefetch (clmax_cpu_pf) */

/* Whole slices of short rows (8 bytes at most) on short axes, copied a row at a time into a tile
 * whose columns are the lanes, which `lanes` reduces (cpu_tile.c); holds: whether it takes them;
 * `left`: the bytes from x to the end of the input; stream: the winners go out non-temporal. */
int clmax_cpu_tile_holds(size_t esize, uint64_t n, uint64_t inner);
void clmax_cpu_tile_slices(const void *x, uint64_t slices, uint64_t n, uint64_t inner, size_t esize,
                           uint64_t left, int last, lanes_fn lanes, int stream, int64_t *out);

typedef struct type_fns {
    row_fn row;
    lanes_fn lanes;
    clmax_short_rows_fn short_rows;
    slices_fn slices;
    slices_fn stacked;
    clmax_short_simd_fn short_simd; /* rows of n <= CLMAX_SHORT_MAX with AVX2, or NULL */
} type_fns;

/* The kernels of type t, ArgMin with min; wide: the 512-bit lanes where they exist. short_simd is
 * NULL (the caller asks clmax_cpu_short_simd); all NULL for a type without code. */
type_fns clmax_cpu_kernels(clmax_type t, int min, int wide);

/* The lanes of p's type for ctx: its choice of vector width (cpu_backend.c). */
struct clmax_context;
struct clmax_problem;
lanes_fn clmax_cpu_lanes_of(const struct clmax_context *ctx, const struct clmax_problem *p);

/* Whether ctx's 512-bit code runs: the CPU has AVX-512BW and VL and CLMAX_CPU_AVX512 allows it. */
int clmax_cpu_wide(const struct clmax_context *ctx);

/* In a template, the name prefix ## type: CLMAX_T_FN(clmax_cpu_lanes_) is clmax_cpu_lanes_u8 where
 * CLMAX_T_NAME is u8. */
#define CLMAX_T_PASTE_(a, b) a##b
#define CLMAX_T_PASTE(a, b) CLMAX_T_PASTE_(a, b)
#define CLMAX_T_FN(prefix) CLMAX_T_PASTE(prefix, CLMAX_T_NAME)
#define CLMAX_T_STR_(x) #x
#define CLMAX_T_STR(x) CLMAX_T_STR_(x) /* x expanded, as a string */

/* The kernels' functions are the library's own (CLMAX_CPU_HIDE: those with clones). */
#define CLMAX_CPU_KERNEL __attribute__((visibility("hidden")))

/* Every type's kernels, declared (cpu_kernels_decl.inc) for each type of cpu_types.inc. */
#define CLMAX_TEMPLATE "cpu_kernels_decl.inc"
#include "cpu_types.inc"
#undef CLMAX_TEMPLATE
#if FLOAT_LANES
CLMAX_CPU_KERNEL void clmax_cpu_lanes_fp_f32(LANES_PARAMS);
CLMAX_CPU_KERNEL void clmax_cpu_lanes_fp_f64(LANES_PARAMS);
CLMAX_CPU_KERNEL void clmax_cpu_lanes_fp_f32_min(LANES_PARAMS);
CLMAX_CPU_KERNEL void clmax_cpu_lanes_fp_f64_min(LANES_PARAMS);
#if CLMAX_LANES_512
CLMAX_CPU_KERNEL void clmax_cpu_lanes_fp512_f32(LANES_PARAMS);
CLMAX_CPU_KERNEL void clmax_cpu_lanes_fp512_f64(LANES_PARAMS);
CLMAX_CPU_KERNEL void clmax_cpu_lanes_fp512_f32_min(LANES_PARAMS);
CLMAX_CPU_KERNEL void clmax_cpu_lanes_fp512_f64_min(LANES_PARAMS);
#endif
#endif

#endif
