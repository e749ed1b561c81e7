/* The planner: which kernel, how many axis segments and what work-group size, from the shape of a
 * box of the canonical view and the kind of device. Shared by the backends and the benchmark. */
#ifndef CLMAX_PLAN_H
#define CLMAX_PLAN_H

#include "clmax.h"

#include <stddef.h>
#include <stdint.h>

/* CLMAX_PLAN (a testing aid): plan for the device's real kind, or as if it were a CPU device or a
 * discrete GPU, so that the tuning of either kind runs on whatever device is at hand. */
typedef enum clmax_plan_as {
    CLMAX_PLAN_AS_DEVICE = 0,
    CLMAX_PLAN_AS_CPU = 1, /* is_cpu; unified memory as the device reports it */
    CLMAX_PLAN_AS_GPU = 2  /* not is_cpu, no unified memory: chunks copied, never used in place */
} clmax_plan_as;

typedef struct clmax_device_info {
    int is_cpu;             /* CL_DEVICE_TYPE_CPU: PoCL and other host devices (as planned) */
    int native_cpu;         /* CL_DEVICE_TYPE_CPU whatever CLMAX_PLAN says: x86 builtins build */
    int unified_memory;     /* CL_DEVICE_HOST_UNIFIED_MEMORY */
    unsigned compute_units; /* CL_DEVICE_MAX_COMPUTE_UNITS */
    size_t max_wg;          /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    uint64_t max_alloc;     /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    uint64_t local_mem;     /* CL_DEVICE_LOCAL_MEM_SIZE */
    /* Loop iterations a work-item may run, all its loops together, before the device ends them
     * (measured: host/opencl/cl_features.c); 0 where none was found. */
    uint64_t loop_limit;
} clmax_device_info;

typedef enum clmax_kernel_kind {
    CLMAX_KERNEL_ROWS_WI,      /* a (row, segment) per work-item */
    CLMAX_KERNEL_ROWS_WG,      /* a (row, segment) per work-group, tree in local memory */
    CLMAX_KERNEL_STRIDED,      /* work-items along inner */
    CLMAX_KERNEL_ROWS_VEC,     /* CPU devices: a (row, segment) per work-item in vector lanes */
    CLMAX_KERNEL_STRIDED_BLK,  /* CPU devices: a block of clmax_lane_block() inner lanes per item */
    CLMAX_KERNEL_ROWS_SHORT,   /* CPU devices: CLMAX_SHORT_ROWS short rows per item */
    CLMAX_KERNEL_STRIDED_WIDE, /* CPU devices: a tile of lane_block lanes per item, local pairs */
    CLMAX_KERNEL_SLICES_SHORT  /* CPU devices: whole slices of few lanes (or vectors) per item */
} clmax_kernel_kind;

#define CLMAX_SHORT_ROWS 16     /* kernels/rows_short.cl SR */
#define CLMAX_SHORT_N 64        /* kernels/rows_short.cl SHORT_N */
#define CLMAX_CPU_PREFETCH 4096 /* kernels/vec.cl PF_BYTES on CPU devices (GPUs: 0) */
/* SLICES_SHORT takes slices of at most this many elements (n * inner): longer axes of few lanes
 * are host/narrow.c's wide rows, or STRIDED_BLK's segments. */
#define CLMAX_SHORT_SLICE 16384
/* ... and slices of keys up to 32 bits of at most this many bytes by vectors of packed pairs
 * (kernels/rows_short.cl PACKED_SLICE), the longer ones an element at a time. */
#define CLMAX_PACKED_SLICE 32768
/* ... and whole slices of rows of 1 to this many vectors of keys up to 32 bits
 * (kernels/slices_short.cl SLICE_VECS), a vector of lanes at a time. */
#define CLMAX_SLICE_VECS 4
/* ... and Hardmax's one-hot of whole slices of fewer lanes than a vector along axes of at most
 * this many bytes a lane (kernels/slices_short.cl ONEHOT_AXIS), written by the kernel; the others
 * go as their indices, then the fill and the ones. */
#define CLMAX_ONEHOT_AXIS 32
/* Hardmax's one-hot of ROWS_SHORT's rows of at most this many bytes is written by the kernel
 * (kernels/rows_short.cl ONEHOT_ROW); longer ones go as their indices, then the fill and the
 * ones. */
#define CLMAX_ONEHOT_ROW 64

/* Elements in a vector of the CPU devices' kernels (kernels/vec.cl VW): 16 of one- and two-byte
 * types, 8 of four-byte ones, 4 of eight-byte ones. */
static inline unsigned clmax_vector_width(size_t elem_size)
{
    return elem_size <= 2 ? 16 : elem_size == 4 ? 8 : 4;
}

/* Longest contiguous row of ROWS_SHORT: rows of up to 12 vectors of keys packed with their index
 * (64-bit keys: 20 vectors, a max pass and an index pass), SR a work-item reduced together, ran
 * faster there than a row a work-item of ROWS_VEC (PoCL, rows of 80 to 200: uint8 x1.6-4.5,
 * float16 x1.05-1.7, float32 x1.5 at 80, float64 x1.2 at 80), longer ones slower (uint8 256,
 * float32 128, float64 100: x0.59-0.84). Rows of two go by reduce_rows_pairs where their answers
 * go out; rows shorter than a vector through the kernel's key buffer of SHORT_N a row, or as one
 * vector each, its lanes past the row cleared (one-byte rows of 2 or more, two-byte of 3 or more
 * (Hardmax 5), four-byte of 5 to 7: rows_short.cl MASKED_MIN), where the box holds what the last
 * row's vector reads. */
static inline uint64_t clmax_short_row_most(size_t elem_size)
{
    return (elem_size == 8 ? 20 : 12) * (uint64_t)clmax_vector_width(elem_size);
}

/* Bytes of each row one work-item of STRIDED_BLK reads (kernels/strided.cl LB is this over the
 * element size). Runs shorter than a page or two leave the hardware prefetcher idle at the start
 * of every run. */
#define CLMAX_LANE_BYTES 8192

static inline uint64_t clmax_lane_block(size_t elem_size)
{
    return CLMAX_LANE_BYTES / elem_size;
}

/* STRIDED_WIDE: rows longer than CLMAX_LANE_BYTES are read in tiles of up to CLMAX_WIDE_BYTES of
 * each row per work-item, whose running pairs live in local memory: keys packed with their index
 * (4 bytes a lane for 8- and 16-bit keys, 8 for 32-bit ones), or for 64-bit keys 8 bytes of key
 * and 4 of index apart; 8-bit keys also keep a block's best key and its row, a byte each.
 * Wider tiles keep each row's run long for the prefetcher; 64 KiB beat 32 and 128 in the library
 * (docs/TUNING.md). */
#define CLMAX_WIDE_BYTES 65536

static inline uint64_t clmax_wide_key_bytes(size_t elem_size)
{
    return elem_size <= 2 ? 4 : 8;
}

static inline uint64_t clmax_wide_index_bytes(size_t elem_size)
{
    return elem_size == 8 ? 4 : elem_size == 1 ? 2 : 0;
}

typedef struct clmax_plan {
    clmax_kernel_kind kernel;
    uint64_t nseg;       /* axis segments; > 1 needs the combine pass */
    uint64_t seg_len;    /* elements of the axis per segment */
    size_t wg;           /* work-group size of ROWS_WG (power of two); local size hint otherwise */
    uint64_t items;      /* work-items of the reduce kernel (independent outputs x segments) */
    uint64_t lane_block; /* inner lanes per work-item of STRIDED_BLK and STRIDED_WIDE */
    size_t elem_size;    /* bytes per element */
} clmax_plan;

/* Loop iterations the planner lets one work-item run on a device with a loop limit (half of it:
 * the bounds below are read off the kernels by hand), or UINT64_MAX where it has none. */
static inline uint64_t clmax_loop_budget(const clmax_device_info *dev)
{
    return dev->loop_limit ? dev->loop_limit / 2 : UINT64_MAX;
}

/* Steps of the fixed loops a work-item may run besides those over its elements: the edges and
 * tails of vectors, lane merges, the work-group tree. */
#define CLMAX_LOOP_SLACK 256

/* Plan a box of [rows, n, inner] (all >= 1) of elements of elem_size bytes. forced != AUTO
 * overrides the choice of strategy. */
clmax_plan clmax_plan_choose(const clmax_device_info *dev, uint64_t rows, uint64_t n,
                             uint64_t inner, size_t elem_size, clmax_strategy forced);

/* Loop iterations one work-item of plan pl's reduce kernel runs at most (all its loops). */
uint64_t clmax_plan_item_loops(const clmax_plan *pl);

#endif
