/* Strided axes (inner > 1) of every type, from cpu_lanes.inc: lanes_* keep a running (key, index)
 * pair a lane along the inner dimension, so every read is contiguous; lanes512_* are the same in
 * 512-bit vectors. */
#include "cpu_kernels.h"
#include "keys.h"

/* Integer lanes of a stream prefetch LANE_PF_CHUNK bytes of each of the four rows at a time, before
 * those lanes: spread over the step, not in a run before it (the float lanes, whose vectorised
 * loop lost to the chunks, keep the run; docs/TUNING.md). */
#ifndef LANE_PF_CHUNK
#define LANE_PF_CHUNK 64
#endif
/* The running pair (b, i) of a lane takes key k at relative index jr if it replaces it. */
#define LANE_UPDATE(k, jr)                                                                         \
    do {                                                                                           \
        __typeof__(b) k_ = (k);                                                                    \
        int up_ = last ? k_ >= b : k_ > b;                                                         \
        b = up_ ? k_ : b;                                                                          \
        i = up_ ? (jr) : i;                                                                        \
    } while (0)
/* The lanes keep their running keys as signed integers, key ^ top bit, which order as the keys do
 * unsigned: AVX2 compares signed integers of every width in one operation but has no unsigned
 * compare (an unsigned 64-bit one took two more), and for signed types the key's own flip of the
 * top bit cancels. */
#define TOP_BIT(T) ((T)((T)1 << (8 * sizeof(T) - 1)))

#define CLMAX_TEMPLATE "cpu_lanes.inc"
#include "cpu_types.inc"
