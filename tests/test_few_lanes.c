/* Strided axes with few lanes ([S, n, inner], inner 2 to 24), which the CPU path reads as rows of
 * several axis positions of every lane (host/cpu/cpu_backend.c, few_lanes) and whose winners it
 * combines by key and position, with the positions left over run by the lanes code; or, for one-
 * and two-byte types (four-byte ones where the lanes run 512-bit vectors), as one stream of packed
 * (key, row) words (cpu_packed.c), whose last step in the tensor is read from a copy; on axes of 2
 * to 12, also whole slices by their rows stacked (cpu_stacked.c), dealt, as a tile's columns
 * (cpu_tile.c: one-byte slices of 5 to 8 lanes), across slices (cpu_interleaved.c), transposed
 * a group of slices at a time (cpu_transposed.c: rows of 2 to 16 bytes), or, one- and two-byte
 * slices of 256 bytes or more, as one stream of vectors (cpu_streamlanes.c). A winner (floats: a
 * NaN of either sign; integers: the maximum) is planted for each lane of each slice at every one of
 * the first 64 positions in turn (every place in a row of positions), at the last positions (the
 * leftovers) and at random ones, alone or tied further on; then tensors full of ties (small values,
 * +-0), of special values and of one byte everywhere. Axis lengths with and without leftovers.
 * ArgMax and ArgMin, both tie rules, bit for bit against the reference. CLMAX_TEST_SMALL: three
 * lengths, and no streamed winners. Last, slices of whole vectors of lanes on short axes (16 to 64
 * lanes), and of one-byte ones on axes of several stretches of 256 rows. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t inners[] = {2, 3, 4, 5, 6, 7, 8, 12, 24};
/* 2 to 12: whole slices by their rows stacked (cpu_stacked.c) where their lanes fill enough
 * of a vector, else dealt or packed; float slices of 2, 4 or 8 rows of 2 or 4 lanes across
 * slices (cpu_interleaved.c); 63: eight-byte slices of 3 and 4 lanes stacked on a long
 * axis (they are taken up to 64 rows). Slices of short rows transposed (cpu_transposed.c):
 * 3, 5, 6, 7, 12 and 16 rows each their own code, 12, 21 and 63 a last block of rows that starts
 * inside the one before, 24 the longest four-byte slices of 4 lanes transposed; 6 lanes: one-byte
 * rows spread into 8-byte words. */
static const int64_t lengths[] = {131, 21, 3, 1029, 1000, 2, 4, 8, 12, 63, 5, 6, 7, 24, 16};
/* CLMAX_TEST_SMALL: the first SMALL_LENGTHS (the few-lane rows, and slices transposed with a last
 * block inside the one before and, for eight-byte rows, whole) */
#define SMALL_LENGTHS 3

/* The planted position of lane-slice number c (of slices * inner). */
static uint64_t position(uint64_t c, uint64_t n, test_rng *rng)
{
    if (c < 64) return c % n;
    c -= 64;
    if (c < 3) return n - 1 - c;
    c -= 3;
    /* either side of the 256-row stretches of the one-byte vectors of lanes (cpu_lanevecs.c) */
    if (c < 4 && n > 256) return (255 + (c & 1) + 256 * (c >> 1)) % n;
    return rng_below(rng, n);
}

/* One shape [slices, n, inner] of type: planted winners, then ties and specials, both rules. */
static void run_shape(clmax_context *ctx, clmax_type type, uint64_t n, uint64_t inner,
                      uint64_t slices, test_rng *rng)
{
    const size_t esize = ref_type_size(type);
    int64_t dims[3] = {(int64_t)slices, (int64_t)n, (int64_t)inner};
    clmax_tensor_desc d = test_desc(type, 3, dims);
    const uint64_t count = slices * n * inner;
    void *x = test_malloc(count * esize);
    char what[96];
    for (int tie = 0; tie < 2; tie++) {
        for (uint64_t e = 0; e < count; e++)
            elem_set(type, x, e, value_below_one(type, rng));
        for (uint64_t c = 0; c < slices * inner; c++) {
            const uint64_t s = c / inner, l = c % inner, p = position(c, n, rng);
            elem_set(type, x, (s * n + p) * inner + l, value_top(type, rng));
            if (tie && p + 1 < n) {
                const uint64_t q = p + 1 + rng_below(rng, n - p - 1);
                elem_set(type, x, (s * n + q) * inner + l, value_top(type, rng));
            }
        }
        snprintf(what, sizeof what, "few lanes, planted, tie %d", tie);
        check_tie_rules(ctx, what, &d, x, 1);
    }
    static const fill_mode modes[] = {FILL_SMALL, FILL_FEW, FILL_SPECIAL};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        fill_tensor(type, x, count, modes[m], rng);
        snprintf(what, sizeof what, "few lanes, %s", fill_mode_str(modes[m]));
        check_tie_rules(ctx, what, &d, x, 1);
    }
    /* constant bytes: every element one value, among them each one-byte type's smallest and
     * largest (the keys 0 of ArgMax and ArgMin, which a padded load's zeros must not beat) */
    static const int bytes[] = {0x00, 0xFF, 0x80, 0x7F};
    for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++) {
        memset(x, bytes[b], count * esize);
        snprintf(what, sizeof what, "few lanes, every byte 0x%02X", bytes[b]);
        check_tie_rules(ctx, what, &d, x, 1);
    }
    free(x);
}

static void run_few_lanes(clmax_backend backend, clmax_type type)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 7300 + (uint64_t)type);
    for (size_t ni = 0; ni < sizeof lengths / sizeof lengths[0]; ni++) {
        if (test_small() && ni >= SMALL_LENGTHS) break;
        for (size_t ii = 0; ii < sizeof inners / sizeof inners[0]; ii++) {
            const uint64_t n = (uint64_t)lengths[ni], inner = (uint64_t)inners[ii];
            /* short axes: slices enough for several of the kernels' groups, a multiple of 8 (the
             * last group of 4 or 8 slices ends with the input: cpu_transposed.c's loads must not
             * pass it) and 5 more (a group left over) */
            for (uint64_t extra = 0; extra <= (n < 100 ? 5u : 0u); extra += 5)
                run_shape(ctx, type, n, inner,
                          (n < 100 ? (3000 / (n * inner) + 47) / 8 * 8 : 40) + extra, &rng);
        }
    }
    /* slices of 1 to 4 whole vectors of lanes (kernels/slices_short.cl, SLICES_SHORT on CPU
     * devices: 16 to 64 one- and two-byte lanes, 8 to 32 four-byte ones), whole ones in a work-
     * item's buffer (n * inner up to 1024) and the longer ones past it */
    static const int64_t vec_inners[] = {16, 32, 48, 64}, vec_lengths[] = {2, 3, 21, 64};
    for (size_t ni = 0; ni < sizeof vec_lengths / sizeof vec_lengths[0]; ni++)
        for (size_t ii = 0; ii < sizeof vec_inners / sizeof vec_inners[0]; ii++)
            run_shape(ctx, type, (uint64_t)vec_lengths[ni], (uint64_t)vec_inners[ii], 45, &rng);
    const uint64_t es = ref_type_size(type);
    /* ... and one-byte ones whose 8 MiB of winners are streamed out (cpu_lanevecs.c); not
     * under CLMAX_TEST_SMALL: the same loop with streaming stores, 3.4 M elements checked 36
     * times, which under valgrind was most of this test's 176 s */
    if (es == 1 && !test_small()) run_shape(ctx, type, 3, 16, 70001, &rng);
    /* ... and, of 48 and 64 lanes, on axes past a stretch of 256 rows (cpu_lanevecs.c): one row
     * past it, and three stretches, the last a part */
    if (es == 1)
        for (int64_t vi = 48; vi <= 64; vi += 16) {
            run_shape(ctx, type, 257, (uint64_t)vi, 9, &rng);
            run_shape(ctx, type, 700, (uint64_t)vi, 5, &rng);
        }
    /* one- and two-byte slices of 257 vectors (cpu_streamlanes.c: a run of 256, then the last
     * alone; 32 / esize / inner whole rows a vector) */
    if (es <= 2) { /* under CLMAX_TEST_SMALL too: valgrind reaches the two-byte streams */
        run_shape(ctx, type, 32 / es / 2 * 256 + 1, 2, 9, &rng);
        run_shape(ctx, type, 32 / es / 3 * 256 + 1, 3, 9, &rng);
    }
    clmax_context_destroy(ctx);
}

TYPE_GROUP_TESTS(few_lanes, types, run_few_lanes, .timeout = 900)
