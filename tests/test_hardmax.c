/* Hardmax on each backend, bit for bit against the reference: every float type x opset x axis,
 * the 2-D coercion of opsets 1 and 11 against the single axis of opset 13, ties, special rows,
 * empty dimensions, long rows. */
#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    int rank;
    int64_t dims[6];
} shape;

static const shape combo_shapes[] = {
    {1, {7}},
    {1, {1}},
    {1, {300}},
    {2, {5, 3}},
    {2, {1, 9}},
    {2, {4, 1}},
    {2, {3, 257}},
    {2, {33, 65}},
    {3, {3, 5, 7}},
    {3, {2, 1, 3}},
    {4, {2, 3, 4, 5}},
    {5, {1, 2, 1, 3, 1}},
    {6, {2, 2, 3, 1, 2, 3}},
    {6, {1, 1, 1, 1, 1, 1}},
    {6, {6, 1, 1, 2, 1, 5}},
};

static void run_combos(clmax_backend backend, clmax_type type)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 3000 + (uint64_t)type);
    unsigned cases = 0;
    for (size_t s = 0; s < sizeof combo_shapes / sizeof combo_shapes[0]; s++) {
        const shape *sh = &combo_shapes[s];
        clmax_tensor_desc d = test_desc(type, sh->rank, sh->dims);
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * ref_type_size(type));
        int r = sh->rank;
        for (int oi = 0; oi < 3; oi++) {
            int opset = test_hardmax_opsets[oi];
            for (int64_t axis = -r; axis < r; axis++) {
                clmax_hardmax_attrs a;
                clmax_hardmax_attrs_init(&a, opset);
                a.axis = axis;
                fill_mode mode = (fill_mode)(cases % FILL_MODES);
                fill_tensor(type, x, count, mode, &rng);
                char what[64];
                snprintf(what, sizeof what, "combos case %u fill %s", cases, fill_mode_str(mode));
                check_hardmax(ctx, what, &d, x, &a);
                cases++;
            }
            /* the opset's default axis (invalid for rank 1 in opsets 1 and 11) */
            clmax_hardmax_attrs a;
            clmax_hardmax_attrs_init(&a, opset);
            fill_tensor(type, x, count, FILL_SMALL, &rng);
            check_hardmax(ctx, "combos, default axis", &d, x, &a);
        }
        fill_tensor(type, x, count, FILL_FEW, &rng);
        check_hardmax(ctx, "combos, NULL attrs", &d, x, NULL);
        free(x);
    }
    clmax_context_destroy(ctx);
}

TYPE_GROUP_TEST_FLOATS(hardmax, combos, run_combos, .timeout = 900)

/* Integer types are ArgMax-only, at every opset. */
BACKEND_TEST(hardmax, integer_types_rejected, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    int64_t dims[2] = {3, 4};
    unsigned char x[96] = {0};
    for (int t = 0; t < TEST_NUM_TYPES; t++)
        for (int o = 0; o < 3; o++) {
            clmax_tensor_desc d = test_desc(test_all_types[t], 2, dims);
            clmax_hardmax_attrs a;
            clmax_hardmax_attrs_init(&a, test_hardmax_opsets[o]);
            check_hardmax(ctx, "type check", &d, x, &a);
        }
    clmax_context_destroy(ctx);
}

/* Opsets 1/11 and 13 on the same input: the coerced 2-D row against the single axis. */
BACKEND_TEST(hardmax, coercion_vs_single_axis, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    /* [2, 3, 2]: the maximum of each coerced row (axis 1: 6 elements) is in a different
     * column than the maxima along axis 1 alone */
    float x[12] = {1, 9, 5, 2, 3, 4, /* outer 0 */ 7, 0, 8, 8, 8, 1 /* outer 1 */};
    float y[12];
    int64_t dims[3] = {2, 3, 2};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 3, dims);
    static const float want11[12] = {0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    static const float want13[12] = {0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0};
    static const float want13_last[12] = {0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0};
    static const float want_axis0[12] = {0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0};
    for (int o = 0; o < 2; o++) {
        clmax_hardmax_attrs a;
        clmax_hardmax_attrs_init(&a, o ? 11 : 1); /* default axis 1 */
        cr_assert_eq(clmax_hardmax(ctx, &d, x, &a, y), CLMAX_OK, "%s", clmax_last_error());
        cr_assert_arr_eq(y, want11, sizeof y, "opset %d axis 1", a.opset);
        check_hardmax(ctx, "coercion", &d, x, &a);
        a.axis = 0; /* one row of everything: the 9 at index 1 */
        static const float all[12] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        cr_assert_eq(clmax_hardmax(ctx, &d, x, &a, y), CLMAX_OK);
        cr_assert_arr_eq(y, all, sizeof y, "opset %d axis 0", a.opset);
        a.axis = -1; /* rows of 2 */
        check_hardmax(ctx, "coercion", &d, x, &a);
    }
    clmax_hardmax_attrs a;
    clmax_hardmax_attrs_init(&a, 13);
    a.axis = 1;
    cr_assert_eq(clmax_hardmax(ctx, &d, x, &a, y), CLMAX_OK);
    cr_assert_arr_eq(y, want13, sizeof y, "opset 13 axis 1");
    a.axis = -1;
    cr_assert_eq(clmax_hardmax(ctx, &d, x, &a, y), CLMAX_OK);
    cr_assert_arr_eq(y, want13_last, sizeof y, "opset 13 axis -1");
    a.axis = 0;
    cr_assert_eq(clmax_hardmax(ctx, &d, x, &a, y), CLMAX_OK);
    cr_assert_arr_eq(y, want_axis0, sizeof y, "opset 13 axis 0");
    /* NULL attrs: opset 13, axis -1 */
    cr_assert_eq(clmax_hardmax(ctx, &d, x, NULL, y), CLMAX_OK);
    cr_assert_arr_eq(y, want13_last, sizeof y, "NULL attrs");
    clmax_context_destroy(ctx);
}

/* The exact bits of 1 and +0 per type, and the first of several NaNs winning. */
BACKEND_TEST(hardmax, one_hot_bits, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    int64_t dims[2] = {2, 4};
    /* row 0: -0, NaN, -inf, NaN -> 1 at 1; row 1: -0, +0, -denormal, -0 -> 1 at 0 */
    uint16_t h[8] = {0x8000, 0xFE00, 0xFC00, 0x7E00, 0x8000, 0x0000, 0x8001, 0x8000};
    uint16_t hy[8], hw[8] = {0, 0x3C00, 0, 0, 0x3C00, 0, 0, 0};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT16, 2, dims);
    cr_assert_eq(clmax_hardmax(ctx, &d, h, NULL, hy), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_arr_eq(hy, hw, sizeof hy, "float16");

    uint16_t b[8] = {0x8000, 0xFFC0, 0xFF80, 0x7F81, 0x8000, 0x0000, 0x8001, 0x8000};
    uint16_t bw[8] = {0, 0x3F80, 0, 0, 0x3F80, 0, 0, 0};
    d.type = CLMAX_TYPE_BFLOAT16;
    cr_assert_eq(clmax_hardmax(ctx, &d, b, NULL, hy), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_arr_eq(hy, bw, sizeof hy, "bfloat16");

    uint32_t f[8] = {0x80000000, 0xFFC00000, 0xFF800000, 0x7FC00000,
                     0x80000000, 0x00000000, 0x80000001, 0x80000000};
    uint32_t fy[8], fw[8] = {0, 0x3F800000, 0, 0, 0x3F800000, 0, 0, 0};
    d.type = CLMAX_TYPE_FLOAT32;
    cr_assert_eq(clmax_hardmax(ctx, &d, f, NULL, fy), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_arr_eq(fy, fw, sizeof fy, "float32");

    uint64_t g[8] = {0x8000000000000000ull, 0xFFF8000000000000ull, 0xFFF0000000000000ull,
                     0x7FF8000000000000ull, 0x8000000000000000ull, 0,
                     0x8000000000000001ull, 0x8000000000000000ull};
    uint64_t gy[8], gw[8] = {0, 0x3FF0000000000000ull, 0, 0, 0x3FF0000000000000ull, 0, 0, 0};
    d.type = CLMAX_TYPE_FLOAT64;
    cr_assert_eq(clmax_hardmax(ctx, &d, g, NULL, gy), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_arr_eq(gy, gw, sizeof gy, "float64");
    clmax_context_destroy(ctx);
}

/* Ties at work-group boundaries along a contiguous and a strided axis. */
BACKEND_TEST(hardmax, ties, .timeout = 900)
{
    static const int64_t lens[] = {2, 64, 65, 256, 257, 1024, 1025, 4097};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 7);
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++) {
        clmax_type type = test_float_types[t];
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            int64_t L = lens[li];
            int64_t pairs[][2] = {{0, L - 1}, {255, 256}, {1023, 1024}, {L / 2 - 1, L / 2}};
            for (size_t p = 0; p < 4; p++) {
                int64_t k1 = pairs[p][0], k2 = pairs[p][1];
                if (k2 >= L || k1 >= k2) continue;
                for (int layout = 0; layout < 3; layout++) {
                    if (layout == 2 && type == CLMAX_TYPE_BFLOAT16) continue; /* opset 11 */
                    int64_t dims[3] = {3, L, 2};
                    clmax_hardmax_attrs a;
                    clmax_hardmax_attrs_init(&a, layout == 2 ? 11 : 13);
                    int rank = layout == 0 ? 2 : 3;
                    a.axis = 1; /* layout 2: opset 11, rows of L * 2 */
                    clmax_tensor_desc d = test_desc(type, rank, dims);
                    ref_view v;
                    cr_assert_eq(ref_hardmax_check(&d, &a, NULL, &v), CLMAX_OK);
                    uint64_t count = output_count(&d);
                    void *x = test_malloc(count * ref_type_size(type));
                    for (uint64_t e = 0; e < count; e++)
                        elem_set(type, x, e, value_below_one(type, &rng));
                    for (uint64_t o = 0; o < v.outer; o++)
                        for (uint64_t i = 0; i < v.inner; i++) {
                            uint64_t top =
                                rng_below(&rng, 2) ? value_top(type, &rng) : value_one(type);
                            plant(type, x, v, o, i, (uint64_t)k1, top);
                            plant(type, x, v, o, i, (uint64_t)k2, top);
                        }
                    char what[64];
                    snprintf(what, sizeof what, "tie at %lld/%lld layout %d", (long long)k1,
                             (long long)k2, layout);
                    check_hardmax(ctx, what, &d, x, &a);
                    free(x);
                }
            }
        }
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(hardmax, special_rows, .timeout = 900)
{
    static const shape shapes[] = {
        {3, {4, 37, 3}}, {2, {64, 300}}, {3, {2, 1025, 2}}, {2, {5, 1}}, {3, {1, 4097, 1}}};
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 8);
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++) {
        clmax_type type = test_float_types[t];
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            clmax_tensor_desc d = test_desc(type, shapes[s].rank, shapes[s].dims);
            uint64_t count = output_count(&d);
            void *x = test_malloc(count * ref_type_size(type));
            for (int o = 0; o < 3; o++)
                for (int64_t axis = 0; axis < d.rank; axis++) {
                    clmax_hardmax_attrs a;
                    clmax_hardmax_attrs_init(&a, test_hardmax_opsets[o]);
                    a.axis = axis;
                    ref_view v;
                    if (ref_hardmax_check(&d, &a, NULL, &v) != CLMAX_OK) continue;
                    fill_special_rows(type, x, v, &rng);
                    check_hardmax(ctx, "special rows", &d, x, &a);
                }
            free(x);
        }
    }
    clmax_context_destroy(ctx);
}

BACKEND_TEST(hardmax, empty_dims, .timeout = 600)
{
    static const shape shapes[] = {{1, {0}},    {2, {0, 3}},    {2, {3, 0}},
                                   {2, {0, 0}}, {3, {2, 0, 4}}, {3, {5, 4, 0}}};
    clmax_context *ctx = test_context_open(backend, NULL);
    unsigned char x[64] = {0};
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int o = 0; o < 3; o++) {
                clmax_tensor_desc d =
                    test_desc(test_float_types[t], shapes[s].rank, shapes[s].dims);
                for (int64_t axis = -d.rank; axis < d.rank; axis++) {
                    clmax_hardmax_attrs a;
                    clmax_hardmax_attrs_init(&a, test_hardmax_opsets[o]);
                    a.axis = axis;
                    check_hardmax(ctx, "empty dims", &d, x, &a);
                }
            }
    clmax_context_destroy(ctx);
}

/* Long rows: one huge row per coerced tensor, a long single axis. */
BACKEND_TEST(hardmax, long_rows, .timeout = 900)
{
    typedef struct {
        clmax_type type;
        int rank;
        int64_t dims[3];
        int opset;
        int64_t axis;
    } long_case;
    static const long_case cases[] = {
        {CLMAX_TYPE_FLOAT32, 2, {2, 100001}, 13, -1},
        {CLMAX_TYPE_FLOAT16, 3, {1, 300, 400}, 11, 1},   /* one coerced row of 120000 */
        {CLMAX_TYPE_FLOAT64, 3, {2, 300, 200}, 1, 1},    /* two coerced rows of 60000 */
        {CLMAX_TYPE_BFLOAT16, 3, {1, 100000, 2}, 13, 1}, /* long strided axis */
    };
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 9);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clmax_type type = cases[c].type;
        clmax_tensor_desc d = test_desc(type, cases[c].rank, cases[c].dims);
        clmax_hardmax_attrs a = {cases[c].opset, cases[c].axis};
        ref_view v;
        cr_assert_eq(ref_hardmax_check(&d, &a, NULL, &v), CLMAX_OK);
        uint64_t count = output_count(&d);
        void *x = test_malloc(count * ref_type_size(type));
        for (int pattern = 0; pattern < 4; pattern++) {
            for (uint64_t e = 0; e < count; e++)
                elem_set(type, x, e, value_below_one(type, &rng));
            for (uint64_t o = 0; o < v.outer; o++)
                for (uint64_t i = 0; i < v.inner; i++) {
                    if (pattern == 0) plant(type, x, v, o, i, v.n - 1, value_top(type, &rng));
                    if (pattern == 1) {
                        plant(type, x, v, o, i, v.n - 1, value_one(type));
                        plant(type, x, v, o, i, v.n / 2, value_one(type));
                    }
                    if (pattern == 2)
                        for (uint64_t p = 256; p < v.n; p *= 4) {
                            plant(type, x, v, o, i, p, value_top(type, &rng));
                            plant(type, x, v, o, i, p - 1, value_top(type, &rng));
                        }
                }
            if (pattern == 3) fill_tensor(type, x, count, FILL_FEW, &rng);
            char what[64];
            snprintf(what, sizeof what, "long row, pattern %d", pattern);
            check_hardmax(ctx, what, &d, x, &a);
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

/* One-hot outputs large enough for the CPU path's streaming stores (8 MiB and more: host/onehot.c),
 * written at an output address one element past an aligned one, so that the stores meet an
 * unaligned head and a partial tail; the bytes around the output must stay untouched. */
BACKEND_TEST(hardmax, large_outputs, .timeout = 900)
{
    if (test_small()) cr_skip_test("CLMAX_TEST_SMALL: outputs of 8 MiB and more");
    typedef struct {
        clmax_type type;
        int64_t dims[3]; /* a rank of 2 where the third is 0 */
        int64_t axis;
    } large_case;
    static const large_case cases[] = {
        {CLMAX_TYPE_FLOAT32, {2100, 1024}, -1},
        {CLMAX_TYPE_FLOAT16, {4200, 1030}, 1},
        {CLMAX_TYPE_BFLOAT16, {2101, 2053}, 0},
        {CLMAX_TYPE_FLOAT64, {1027, 1100}, -1},
        {CLMAX_TYPE_FLOAT16, {2097153, 2}, -1}, /* slices of 4 bytes, built in groups */
        {CLMAX_TYPE_FLOAT32, {3, 800001}, 0},   /* rows of many lanes, in runs */
        {CLMAX_TYPE_FLOAT32, {2, 1100000}, -1}, /* long rows: zeros streamed, then the ones */
        /* axes of one: all ones, streamed, for each width of element */
        {CLMAX_TYPE_FLOAT16, {2, 2200001}, 0},
        {CLMAX_TYPE_BFLOAT16, {4400003, 1}, -1},
        {CLMAX_TYPE_FLOAT32, {1, 2200001}, 0},
        {CLMAX_TYPE_FLOAT64, {1100001, 1}, 1},
        /* few rows of 16 to 255 lanes, built a chunk at a time and streamed in whole lines */
        {CLMAX_TYPE_FLOAT32, {33333, 3, 21}, 1},
        {CLMAX_TYPE_FLOAT16, {11111, 4, 97}, 1},
        {CLMAX_TYPE_FLOAT64, {4099, 4, 255}, 1},
        {CLMAX_TYPE_BFLOAT16, {32769, 2, 64}, 1},
    };
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 11);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clmax_type type = cases[c].type;
        size_t es = ref_type_size(type);
        clmax_tensor_desc d = test_desc(type, cases[c].dims[2] ? 3 : 2, cases[c].dims);
        clmax_hardmax_attrs a = {13, cases[c].axis};
        uint64_t count = output_count(&d);
        size_t bytes = (size_t)count * es;
        void *x = test_malloc(bytes);
        fill_tensor(type, x, count, c % 2 ? FILL_FEW : FILL_MIXED, &rng);
        unsigned char *want = test_malloc(bytes);
        cr_assert_eq(ref_hardmax(&d, x, &a, want), CLMAX_OK);
        unsigned char *buf = test_malloc(bytes + 4 * es);
        memset(buf, 0xA5, bytes + 4 * es);
        clmax_status st = clmax_hardmax(ctx, &d, x, &a, buf + es);
        cr_assert_eq(st, CLMAX_OK, "large output %zu: %s", c, clmax_last_error());
        cr_assert(memcmp(buf + es, want, bytes) == 0, "large output %zu (%s): differs", c,
                  test_type_str(type));
        for (size_t g = 0; g < es; g++)
            cr_assert_eq(buf[g], 0xA5, "large output %zu: byte before the output written", c);
        for (size_t g = bytes + es; g < bytes + 4 * es; g++)
            cr_assert_eq(buf[g], 0xA5, "large output %zu: byte after the output written", c);
        free(buf);
        free(want);
        free(x);
    }
    clmax_context_destroy(ctx);
}

/* On OpenCL CPU devices that share memory with the host, clmax_hardmax runs the enqueued Hardmax
 * over the caller's memory, in boxes of whole outer slices within max_chunk_bytes, its kernels
 * writing the zeros (clmax_cl_hardmax_in_place): several boxes, a last one shorter, a slice above
 * the limit (the two-pass path), and outputs at every element offset from 16-byte alignment. On
 * other devices and the CPU path these are plain Hardmax cases. */
BACKEND_TEST(hardmax, boxes_and_unaligned_outputs, .timeout = 600)
{
    typedef struct box_case {
        clmax_type type;
        int rank;
        int64_t dims[3];
        int64_t axis;
        uint64_t chunk; /* max_chunk_bytes */
    } box_case;
    static const box_case cases[] = {
        {CLMAX_TYPE_FLOAT32, 2, {10, 3000}, 1, 3 * 3000 * 4},     /* 3 + 3 + 3 + 1 rows */
        {CLMAX_TYPE_FLOAT16, 3, {7, 300, 9}, 1, 2 * 300 * 9 * 2}, /* strided, 2 slices a box */
        {CLMAX_TYPE_FLOAT64, 3, {5, 2000, 3}, 1, 2000 * 3 * 8},   /* one slice a box, split */
        {CLMAX_TYPE_BFLOAT16, 2, {4, 5000}, 1, 4096},             /* a slice above the limit */
        {CLMAX_TYPE_FLOAT32, 3, {3, 70, 40}, 0, 0},               /* the device's own limit */
        {CLMAX_TYPE_FLOAT16, 2, {1001, 7}, 1, 100 * 7 * 2},       /* short rows, 100 a box */
        {CLMAX_TYPE_FLOAT32, 2, {333, 8}, 1, 0},                  /* rows of one vector */
        {CLMAX_TYPE_FLOAT32, 2, {300, 16}, 1, 0},                 /* 64 bytes: the one-hot's most */
        {CLMAX_TYPE_FLOAT64, 2, {77, 3}, 1, 0},                   /* the key buffer's rows */
        {CLMAX_TYPE_FLOAT16, 2, {1000, 2}, 1, 0}, /* rows of two: a word a row where aligned */
        {CLMAX_TYPE_FLOAT32, 2, {99, 2}, 1, 0},
        {CLMAX_TYPE_FLOAT16, 3, {99, 2, 4}, 1, 0}, /* axes of two of 4 lanes: words where aligned */
        {CLMAX_TYPE_FLOAT32, 3, {45, 2, 2}, 1, 0},
    };
    test_rng rng;
    rng_seed(&rng, 17);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clmax_context_options o;
        clmax_context_options_init(&o);
        o.max_chunk_bytes = cases[c].chunk;
        clmax_context *ctx = test_context_open(backend, &o);
        clmax_type type = cases[c].type;
        size_t es = ref_type_size(type);
        clmax_tensor_desc d = test_desc(type, cases[c].rank, cases[c].dims);
        uint64_t count = output_count(&d);
        void *x = test_malloc((size_t)count * es);
        clmax_hardmax_attrs a = {13, cases[c].axis};
        for (size_t shift = 0; shift < 16; shift += es) {
            fill_tensor(type, x, count, shift % 4 ? FILL_FEW : FILL_MIXED, &rng);
            char what[64];
            snprintf(what, sizeof what, "boxes case %zu, max_chunk_bytes %" PRIu64, c,
                     cases[c].chunk);
            check_hardmax_shifted(ctx, what, &d, x, &a, shift);
        }
        free(x);
        clmax_context_destroy(ctx);
    }
}

/* Hardmax on the CPU path fused by blocks of slices (host/cpu/cpu_hardmax.c): each thread finds
 * the winners of a block and writes its one-hot at once. Shapes of 10 to 20 blocks on two
 * threads, the last block shorter, rows and strided axes, over specials, ties and mixed values;
 * then slices over 32 KiB, fused by blocks of 4096 lanes, the last one shorter (down to 4 lanes).
 * On OpenCL these are plain Hardmax cases. */
BACKEND_TEST(hardmax, fused_blocks, .timeout = 600)
{
    typedef struct fused_case {
        clmax_type type;
        int rank;
        int64_t dims[3];
    } fused_case;
    static const fused_case cases[] = {
        {CLMAX_TYPE_FLOAT16, 2, {40001, 3}},     /* blocks of 4096 slices */
        {CLMAX_TYPE_FLOAT32, 3, {9001, 7, 5}},   /* 819 slices a block */
        {CLMAX_TYPE_FLOAT64, 3, {20001, 2, 3}},  /* 1365 */
        {CLMAX_TYPE_BFLOAT16, 3, {600, 50, 40}}, /* 32: the input's bound */
        {CLMAX_TYPE_FLOAT16, 3, {3, 5, 9000}},   /* lane blocks: 3 a slice, the last 808 */
        {CLMAX_TYPE_FLOAT32, 3, {2, 3, 20001}},  /* 5 a slice, the last 3617 */
        {CLMAX_TYPE_FLOAT64, 3, {4, 2, 4100}},   /* 2 a slice, the last 4 */
        {CLMAX_TYPE_BFLOAT16, 3, {3, 16, 8200}}, /* 3 a slice, the last 8 */
        {CLMAX_TYPE_FLOAT32, 3, {5, 21, 4500}},  /* four-byte axes of up to 24: 2, the last 404 */
    };
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.num_threads = 2;
    clmax_context *ctx = test_context_open(backend, &o);
    test_rng rng;
    rng_seed(&rng, 23);
    static const fill_mode modes[] = {FILL_SPECIAL, FILL_FEW, FILL_MIXED};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clmax_tensor_desc d = test_desc(cases[c].type, cases[c].rank, cases[c].dims);
        uint64_t count = output_count(&d);
        void *x = test_malloc((size_t)count * ref_type_size(cases[c].type));
        clmax_hardmax_attrs a = {13, 1};
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            fill_tensor(cases[c].type, x, count, modes[m], &rng);
            char what[64];
            snprintf(what, sizeof what, "fused case %zu, %s", c, fill_mode_str(modes[m]));
            check_hardmax(ctx, what, &d, x, &a);
        }
        free(x);
    }
    clmax_context_destroy(ctx);
}

/* Values below one in x, slices [slices, n, inner], with a winner (a NaN of either sign, or 1.0
 * above the rest) planted in every lane, at each row in turn across lanes and slices; with tie,
 * the same value (or another winner) also at a later row. */
static void plant_winners(clmax_type type, void *x, uint64_t slices, uint64_t n, uint64_t inner,
                          int tie, test_rng *rng)
{
    for (uint64_t e = 0; e < slices * n * inner; e++)
        elem_set(type, x, e, value_below_one(type, rng));
    for (uint64_t c = 0; c < slices * inner; c++) {
        const uint64_t s = c / inner, l = c % inner, p = (c + s) % n;
        const uint64_t top = rng_below(rng, 2) ? value_top(type, rng) : value_one(type);
        elem_set(type, x, (s * n + p) * inner + l, top);
        if (tie && p + 1 < n) {
            const uint64_t q = p + 1 + rng_below(rng, n - p - 1);
            elem_set(type, x, (s * n + q) * inner + l,
                     rng_below(rng, 2) ? top : value_top(type, rng));
        }
    }
}

/* Hardmax of slices [slices, n, inner] of type, bit for bit against the reference: winners
 * planted (plant_winners), alone and tied, then each of modes' fills. */
static void check_planted(clmax_context *ctx, clmax_type type, int64_t slices, int64_t n,
                          int64_t inner, const fill_mode *modes, size_t nmodes, test_rng *rng)
{
    int64_t dims[3] = {slices, n, inner};
    clmax_tensor_desc d = test_desc(type, 3, dims);
    const uint64_t count = (uint64_t)(slices * n * inner);
    void *x = test_malloc((size_t)count * ref_type_size(type));
    clmax_hardmax_attrs a = {13, 1};
    char what[80];
    for (int tie = 0; tie < 2; tie++) {
        plant_winners(type, x, (uint64_t)slices, (uint64_t)n, (uint64_t)inner, tie, rng);
        snprintf(what, sizeof what, "[%lld, %lld, %lld] planted, tie %d", (long long)slices,
                 (long long)n, (long long)inner, tie);
        check_hardmax(ctx, what, &d, x, &a);
    }
    for (size_t m = 0; m < nmodes; m++) {
        fill_tensor(type, x, count, modes[m], rng);
        snprintf(what, sizeof what, "[%lld, %lld, %lld] %s", (long long)slices, (long long)n,
                 (long long)inner, fill_mode_str(modes[m]));
        check_hardmax(ctx, what, &d, x, &a);
    }
    free(x);
}

/* Slices of 2 to 9 rows and 1 to 64 lanes (two-byte ones of 5 rows or more, 1 to 256), which the
 * CPU path takes by running maxima in 512-bit vectors (host/cpu/cpu_hardmax_scan.c: past 3 rows
 * or 15 lanes where they beat the neighbour compares on the CPU, or with CLMAX_CPU_AVX512=full),
 * else (2 to 8 rows, and rows of 5 to 7) by compares with their neighbours a vector at a time
 * (host/cpu/cpu_hardmax_near.c), and the shapes just past them. For every lane of every slice a
 * winner (a NaN of either sign, or 1.0 above the rest) is planted at each row in turn, alone or
 * tied at a later row; then ties everywhere and special values. Enough slices that a call spans
 * several of the kernel's key groups, the last one shorter. */
BACKEND_TEST(hardmax, few_rows_and_lanes, .timeout = 900)
{
    static const int64_t inners[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 24, 64, 65, 200, 256};
    static const fill_mode modes[] = {FILL_FEW, FILL_SPECIAL};
    test_rng rng;
    rng_seed(&rng, 29);
    /* On the CPU path, once more with CLMAX_CPU_AVX512=full: the running maxima wherever they fit,
     * not only where they beat the neighbour compares on this CPU (cpu_hardmax_scan.c) */
    const int again = backend == CLMAX_BACKEND_CPU && getenv("CLMAX_CPU_AVX512") == NULL;
    for (int full = 0; full <= again; full++) {
        if (full) setenv("CLMAX_CPU_AVX512", "full", 1);
        clmax_context *ctx = test_context_open(backend, NULL);
        for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
            for (int64_t n = 2; n <= 10; n++)
                for (size_t ii = 0; ii < sizeof inners / sizeof inners[0]; ii++)
                    check_planted(ctx, test_float_types[t], 5000 / (n * inners[ii]) + 3, n,
                                  inners[ii], modes, 2, &rng);
        /* Outputs of 8 MiB and more, which the codes stream out from each aligned vector of a
         * group (the slices of an odd count of lanes move that alignment slice by slice) */
        static const struct {
            clmax_type type;
            int64_t n, inner;
        } big[] = {{CLMAX_TYPE_FLOAT32, 2, 3},  {CLMAX_TYPE_FLOAT16, 3, 7},
                   {CLMAX_TYPE_FLOAT32, 6, 5},  {CLMAX_TYPE_FLOAT64, 4, 3},
                   {CLMAX_TYPE_BFLOAT16, 8, 2}, {CLMAX_TYPE_FLOAT16, 7, 200}};
        for (size_t b = 0; b < sizeof big / sizeof big[0] && !test_small(); b++) {
            const int64_t es = (int64_t)ref_type_size(big[b].type);
            check_planted(ctx, big[b].type, (8 << 20) / (es * big[b].n * big[b].inner) + 7,
                          big[b].n, big[b].inner, modes, 1, &rng);
        }
        clmax_context_destroy(ctx);
        if (full) unsetenv("CLMAX_CPU_AVX512");
    }
}

/* Slices of many lanes on short axes, which the CPU path takes a run of 512 lanes of every row at
 * a time (host/cpu/cpu_hardmax_runs.c: axes of 2 to 8 and at most 32 bytes a lane), and the axes
 * just past it: lanes of 256 (the least up to 4 rows), 300 (not a whole vector), 511 and 512 (the
 * least past 4 rows), 513 (a run and a lane) and 4097 (a block of work and a lane), with winners
 * planted at every row, ties, and special values. Then an output of 16 MiB, which is streamed out.
 */
BACKEND_TEST(hardmax, many_lanes_short_axes, .timeout = 900)
{
    static const int64_t inners[] = {256, 300, 511, 512, 513, 4097};
    static const fill_mode special[] = {FILL_SPECIAL};
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.num_threads = 2;
    clmax_context *ctx = test_context_open(backend, &o);
    test_rng rng;
    rng_seed(&rng, 31);
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++) {
        const clmax_type type = test_float_types[t];
        const int64_t es = (int64_t)ref_type_size(type), n_max = es < 4 ? 9 : 32 / es + 1;
        for (int64_t n = 2; n <= n_max; n++)
            for (size_t ii = 0; ii < sizeof inners / sizeof inners[0]; ii++)
                check_planted(ctx, type, inners[ii] > 1000 ? 2 : 3, n, inners[ii], special, 1,
                              &rng);
    }
    int64_t dims[3] = {3, 3, (16 << 20) / 18 + 5};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT16, 3, dims);
    const uint64_t count = output_count(&d);
    void *x = test_malloc((size_t)count * 2);
    plant_winners(CLMAX_TYPE_FLOAT16, x, 3, 3, (uint64_t)dims[2], 1, &rng);
    clmax_hardmax_attrs a = {13, 1};
    check_hardmax(ctx, "float16 [3, 3, 932072] planted, tie 1: streamed", &d, x, &a);
    free(x);
    clmax_context_destroy(ctx);
}
