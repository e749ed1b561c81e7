/* The CPU path's kernels, a family to a file, each family a template instantiated for every type
 * (cpu_types.inc), and what they share with the planner (cpu_backend.c):
 *   cpu_rows.c   (cpu_rows.inc)    row_*, short_rows_*: contiguous rows (inner == 1)
 *   cpu_slices.c (cpu_slices.inc)  slices_*: whole small slices of one-byte lanes
 * Each kernel of a type is clmax_cpu_<family>_<type>, the type u8 ... f64 (ArgMax) or
 * u8_min ... f64_min (ArgMin). */
#ifndef CLMAX_CPU_KERNELS_H
#define CLMAX_CPU_KERNELS_H

#include "clmax.h"
#include "cpu_short.h"

#include <stdint.h>

#define ROW_BLOCK 2048  /* elements per block of the two-pass row scan */
#define TINY_ROW 128    /* rows shorter than this: AVX2 code, or the key-buffer scan */
#define KEY_BUFFER 4096 /* keys of a group of tiny rows */
/* Slices [n, inner] of one-byte elements, at most SLICE_ELEMS of them, with 8 to SLICE_INNER - 1
 * lanes run whole, a group at a time (slices_*): [B, 80, 16] uint8 ran 4 times faster so, 40
 * lanes a fifth slower. Wider elements and fewer lanes ran as fast or faster in the lanes code
 * (docs/PERFORMANCE.md). */
#define SLICE_ELEMS 4096
#define SLICE_INNER 32

/* The hot loops are compiled twice, for AVX2 and for the baseline, and picked at load time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CLMAX_NO_CLONES)
#define CLMAX_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLMAX_CPU_CLONES
#endif

/* In a template, the name prefix ## type: CLMAX_T_FN(clmax_cpu_lanes_) is clmax_cpu_lanes_u8 where
 * CLMAX_T_NAME is u8. */
#define CLMAX_T_PASTE_(a, b) a##b
#define CLMAX_T_PASTE(a, b) CLMAX_T_PASTE_(a, b)
#define CLMAX_T_FN(prefix) CLMAX_T_PASTE(prefix, CLMAX_T_NAME)

/* Every type's kernels, declared (cpu_kernels_decl.inc) for each type of cpu_types.inc. */
#define CLMAX_TEMPLATE "cpu_kernels_decl.inc"
#include "cpu_types.inc"
#undef CLMAX_TEMPLATE

#endif
