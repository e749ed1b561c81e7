/* Hardmax's one-hot output on the host, from the winners of a block of slices (host/onehot.c). */
#ifndef CLMAX_ONEHOT_H
#define CLMAX_ONEHOT_H

#include "backend.h"

/* The one-hot of p's outer slices into y: ones at the winners idx[o * inner + i], zeros elsewhere,
 * written by the context's threads. call_bytes: the whole output's size, of which this is a block
 * (a large output is streamed out). */
void clmax_onehot_fill(clmax_context *ctx, const clmax_problem *p, const int64_t *idx, void *y,
                       uint64_t call_bytes);

/* The same on the calling thread alone. */
void clmax_onehot_fill_here(const clmax_problem *p, const int64_t *idx, void *y,
                            uint64_t call_bytes);

/* The one-hot of lanes [0, lanes) of a slice, on the calling thread: y is the slice's output at
 * the first of them, w their winners. call_bytes: as above. The axis: at most 256 positions. */
void clmax_onehot_lane_block(const clmax_problem *p, const int64_t *w, uint64_t lanes, void *y,
                             uint64_t call_bytes);

/* Copies bytes of one-hot built in the cache by the calling thread to the output at dst: streamed
 * out (non-temporal stores, where the CPU has them) when call_bytes, the whole output's size, is
 * large. A thread that put bytes calls clmax_stream_fence() before its work is joined. */
void clmax_onehot_put(void *dst, const void *src, size_t bytes, uint64_t call_bytes);

/* The output of an axis of length one: all ones. */
void clmax_onehot_all_ones(clmax_context *ctx, const clmax_problem *p, void *y);

#endif
