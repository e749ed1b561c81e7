/* Whole slices [n, inner] whose rows are at most TILE_ROW_BYTES, such as uint8 [B, 21, 7]: a group
 * of slices is copied into a tile of n rows, row j holding the group's rows j side by side (slice
 * after slice, each its `inner` lanes), so that every lane of the group is a column; the lanes
 * code then takes the tile's columns as its lanes, a row at a time, in whole vectors, and their
 * winners come out in the output's order.
 *
 * Why: the dealt rows (cpu_deal.c) move every element on its own into a stream per lane, and
 * groups of 5 to 7 lanes only through a padded copy, then search short rows, each ending in a
 * horizontal step; here a slice's row moves as one word and the tile is reduced by whole vectors
 * down its columns. Which slices come here: tile_fits in cpu_backend.c. */
#include "cpu_kernels.h"

#include <string.h>

#define TILE_ROW_BYTES 8 /* a slice's row at most: copied as one word */
#define TILE_N_MAX 256   /* rows a tile at most: its row copies' overrun, on the stack */
#define TILE_BYTES 16384 /* input bytes a tile at most: it stays in the L1 cache */
#define TILE_LANES 512   /* lanes a tile at most: their pairs and work, 16 KiB, on the stack */
#define TILE_VECTOR 64   /* bytes of the lanes code's widest vector */

/* Slices a tile holds a whole number of times: so many that its lanes fill whole vectors (the
 * lanes code runs a tail of lanes scalar, a row at a time, which cost more than the tile saved). */
static uint64_t tile_unit(size_t esize, uint64_t inner)
{
    uint64_t a = TILE_VECTOR / esize, b = inner;
    while (b != 0) { /* a = gcd(lanes a vector, inner) */
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return TILE_VECTOR / esize / a;
}

int clmax_cpu_tile_holds(size_t esize, uint64_t n, uint64_t inner)
{
    if (inner < 2 || inner * esize > TILE_ROW_BYTES || n < 2 || n > TILE_N_MAX) return 0;
    const uint64_t unit = tile_unit(esize, inner);
    return inner * unit <= TILE_LANES && unit * n * inner * esize <= TILE_BYTES;
}

void clmax_cpu_tile_slices(const void *xv, uint64_t slices, uint64_t n, uint64_t inner,
                           size_t esize, uint64_t left, int last, lanes_fn lanes, int stream,
                           int64_t *out)
{
    const char *x = xv;
    const uint64_t row = inner * esize, slice = n * row, unit = tile_unit(esize, inner);
    const uint64_t by_bytes = TILE_BYTES / slice / unit * unit;
    const uint64_t by_lanes = TILE_LANES / inner / unit * unit;
    const uint64_t group = by_bytes < by_lanes ? by_bytes : by_lanes;
    /* A row is copied as one TILE_ROW_BYTES word, over the start of the next slot: each tile row
     * has a word of slack after its lanes. */
    const uint64_t stride = group * row + TILE_ROW_BYTES;
    _Alignas(64) char tile[TILE_BYTES + TILE_N_MAX * TILE_ROW_BYTES];
    uint64_t bk[TILE_LANES], bi[TILE_LANES], work[2 * TILE_LANES];
    uintptr_t pf = clmax_cpu_pf_start(x); /* cpu_short.h */
    for (uint64_t s0 = 0; s0 < slices; s0 += group) {
        const uint64_t g = slices - s0 < group ? slices - s0 : group;
        /* Rows of the group whose whole word is inside the input; the others are copied by
         * their own bytes. */
        const uint64_t at = s0 * slice, safe = left - at >= TILE_ROW_BYTES
                                                   ? (left - at - TILE_ROW_BYTES) / row + 1
                                                   : 0;
        for (uint64_t m = 0, r = 0; m < g; m++, r += n) {
            const char *s = x + at + m * slice;
            clmax_cpu_pf(&pf, s + slice);
            char *d = tile + m * row;
            if (r + n <= safe)
                for (uint64_t j = 0; j < n; j++, s += row, d += stride)
                    memcpy(d, s, TILE_ROW_BYTES);
            else
                for (uint64_t j = 0; j < n; j++, s += row, d += stride)
                    memcpy(d, s, r + j < safe ? TILE_ROW_BYTES : row);
        }
        const uint64_t w = g * inner;
        lanes(tile, stride / esize, w, 0, n, last, bk, bi, work);
        clmax_cpu_put(out + s0 * inner, (const int64_t *)bi, w, stream);
    }
}
