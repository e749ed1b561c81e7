/* The reference itself, checked against hand-computed answers (it must be right before anything is
 * compared with it). No library call here. */
#include "common.h"

#include <math.h>
#include <string.h>

Test(reference, float16_decoding)
{
    cr_assert_eq(ref_float16_to_double(0x3C00), 1.0);
    cr_assert_eq(ref_float16_to_double(0xC000), -2.0);
    cr_assert_eq(ref_float16_to_double(0x7BFF), 65504.0);
    cr_assert_eq(ref_float16_to_double(0x0400), ldexp(1.0, -14));
    cr_assert_eq(ref_float16_to_double(0x0001), ldexp(1.0, -24));
    cr_assert_eq(ref_float16_to_double(0x03FF), ldexp(1023.0, -24));
    cr_assert_eq(ref_float16_to_double(0x8001), -ldexp(1.0, -24));
    cr_assert_eq(ref_float16_to_double(0x3555), ldexp(1365.0, -12)); /* 0.333251953125 */
    cr_assert(ref_float16_to_double(0x0000) == 0.0 && !signbit(ref_float16_to_double(0x0000)));
    cr_assert(ref_float16_to_double(0x8000) == 0.0 && signbit(ref_float16_to_double(0x8000)));
    cr_assert(isinf(ref_float16_to_double(0x7C00)) && ref_float16_to_double(0x7C00) > 0);
    cr_assert(isinf(ref_float16_to_double(0xFC00)) && ref_float16_to_double(0xFC00) < 0);
    cr_assert(isnan(ref_float16_to_double(0x7E00)));
    cr_assert(isnan(ref_float16_to_double(0x7C01)));
    cr_assert(isnan(ref_float16_to_double(0xFFFF)));
}

#if defined(__FLT16_MAX__)
/* Where the compiler has _Float16, every float16 bit pattern decodes as the compiler does it. */
Test(reference, float16_decoding_matches_compiler)
{
    for (uint32_t b = 0; b < 0x10000; b++) {
        uint16_t bits = (uint16_t)b;
        _Float16 h;
        memcpy(&h, &bits, 2);
        double want = (double)h, got = ref_float16_to_double(bits);
        if (isnan(want))
            cr_assert(isnan(got), "0x%04x", b);
        else
            cr_assert(got == want && signbit(got) == signbit(want), "0x%04x: %g vs %g", b, got,
                      want);
    }
}
#endif

Test(reference, bfloat16_decoding)
{
    cr_assert_eq(ref_bfloat16_to_double(0x3F80), 1.0);
    cr_assert_eq(ref_bfloat16_to_double(0xC000), -2.0);
    cr_assert_eq(ref_bfloat16_to_double(0x0001), ldexp(1.0, -133));
    cr_assert_eq(ref_bfloat16_to_double(0x0080), ldexp(1.0, -126));
    cr_assert(isinf(ref_bfloat16_to_double(0x7F80)));
    cr_assert(isnan(ref_bfloat16_to_double(0x7FC0)));
    cr_assert(isnan(ref_bfloat16_to_double(0xFF81)));
    cr_assert(signbit(ref_bfloat16_to_double(0x8000)));
}

static int cmp16(clmax_type t, uint16_t a, uint16_t b)
{
    uint16_t x[2] = {a, b};
    return ref_compare(t, x, 0, 1);
}

Test(reference, compare_order)
{
    /* NaN beats +inf, NaNs are equal whatever their sign and payload, -0 == +0 */
    cr_assert_eq(cmp16(CLMAX_TYPE_FLOAT16, 0x7E00, 0x7C00), 1);
    cr_assert_eq(cmp16(CLMAX_TYPE_FLOAT16, 0xFE00, 0x7C00), 1);
    cr_assert_eq(cmp16(CLMAX_TYPE_FLOAT16, 0x7C00, 0xFC01), -1);
    cr_assert_eq(cmp16(CLMAX_TYPE_FLOAT16, 0x7E00, 0xFC01), 0);
    cr_assert_eq(cmp16(CLMAX_TYPE_FLOAT16, 0x0000, 0x8000), 0);
    cr_assert_eq(cmp16(CLMAX_TYPE_FLOAT16, 0x0001, 0x0000), 1);
    cr_assert_eq(cmp16(CLMAX_TYPE_FLOAT16, 0x8001, 0x8000), -1);
    cr_assert_eq(cmp16(CLMAX_TYPE_BFLOAT16, 0x0001, 0x8000), 1);
    cr_assert_eq(cmp16(CLMAX_TYPE_BFLOAT16, 0xFF80, 0xFF7F), -1);

    float f[4] = {-0.0f, 0.0f, NAN, -NAN};
    cr_assert_eq(ref_compare(CLMAX_TYPE_FLOAT32, f, 0, 1), 0);
    cr_assert_eq(ref_compare(CLMAX_TYPE_FLOAT32, f, 2, 3), 0);
    cr_assert_eq(ref_compare(CLMAX_TYPE_FLOAT32, f, 1, 3), -1);
    double d[3] = {4.9e-324, 0.0, -INFINITY};
    cr_assert_eq(ref_compare(CLMAX_TYPE_FLOAT64, d, 0, 1), 1);
    cr_assert_eq(ref_compare(CLMAX_TYPE_FLOAT64, d, 2, 1), -1);

    int64_t s[3] = {INT64_MIN, -1, INT64_MAX};
    cr_assert_eq(ref_compare(CLMAX_TYPE_INT64, s, 0, 1), -1);
    cr_assert_eq(ref_compare(CLMAX_TYPE_INT64, s, 2, 1), 1);
    uint64_t u[3] = {0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, UINT64_MAX};
    cr_assert_eq(ref_compare(CLMAX_TYPE_UINT64, u, 0, 1), -1);
    cr_assert_eq(ref_compare(CLMAX_TYPE_UINT64, u, 2, 1), 1);
    int8_t s8[2] = {-128, 127};
    cr_assert_eq(ref_compare(CLMAX_TYPE_INT8, s8, 0, 1), -1);
    uint8_t u8[2] = {0x80, 0x7F};
    cr_assert_eq(ref_compare(CLMAX_TYPE_UINT8, u8, 0, 1), 1);
}

/* The examples of the ONNX operator documentation. */
Test(reference, onnx_argmax_examples)
{
    int32_t data[4] = {2, 1, 3, 10};
    int64_t dims[2] = {2, 2};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_INT32, 2, dims);
    clmax_argmax_attrs a = ref_argmax_defaults(13);
    int64_t y[2];
    clmax_tensor_desc out;

    cr_assert_eq(ref_argmax_check(&d, &a, &out, NULL), CLMAX_OK);
    cr_assert(out.rank == 2 && out.dims[0] == 1 && out.dims[1] == 2);
    cr_assert_eq(ref_argmax(&d, data, &a, y), CLMAX_OK);
    cr_assert(y[0] == 1 && y[1] == 1);

    a.axis = 1;
    cr_assert_eq(ref_argmax(&d, data, &a, y), CLMAX_OK);
    cr_assert(y[0] == 0 && y[1] == 1);

    a.keepdims = 0;
    a.axis = -1;
    cr_assert_eq(ref_argmax_check(&d, &a, &out, NULL), CLMAX_OK);
    cr_assert(out.rank == 1 && out.dims[0] == 2 && out.type == CLMAX_TYPE_INT64);

    int32_t tie[4] = {2, 2, 3, 10};
    a.keepdims = 1;
    a.select_last_index = 1;
    cr_assert_eq(ref_argmax(&d, tie, &a, y), CLMAX_OK);
    cr_assert(y[0] == 1 && y[1] == 1);
    a.select_last_index = 0;
    cr_assert_eq(ref_argmax(&d, tie, &a, y), CLMAX_OK);
    cr_assert(y[0] == 0 && y[1] == 1);
}

Test(reference, hardmax_examples)
{
    /* ONNX Hardmax-13 example: [[3,0,1,2],[2,5,1,0],[0,1,3,2],[0,1,2,3]] -> one-hot rows */
    float x[16] = {3, 0, 1, 2, 2, 5, 1, 0, 0, 1, 3, 2, 0, 1, 2, 3};
    float want[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float y[16];
    int64_t dims[2] = {4, 4};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
    cr_assert_eq(ref_hardmax(&d, x, NULL, y), CLMAX_OK);
    cr_assert_arr_eq(y, want, sizeof y);

    /* opset 11, [2,2,2] at axis 1: two rows of four; opset 13 at axis 1: per (outer, inner) */
    float z[8] = {1, 5, 5, 2, 9, 0, 0, 9};
    int64_t d3[3] = {2, 2, 2};
    clmax_tensor_desc e = test_desc(CLMAX_TYPE_FLOAT32, 3, d3);
    clmax_hardmax_attrs h = ref_hardmax_defaults(11);
    float w11[8] = {0, 1, 0, 0, 1, 0, 0, 0};
    cr_assert_eq(ref_hardmax(&e, z, &h, y), CLMAX_OK);
    cr_assert_arr_eq(y, w11, sizeof w11);
    h.opset = 13;
    float w13[8] = {0, 1, 1, 0, 1, 0, 0, 1};
    cr_assert_eq(ref_hardmax(&e, z, &h, y), CLMAX_OK);
    cr_assert_arr_eq(y, w13, sizeof w13);
    ref_view v;
    h = ref_hardmax_defaults(1);
    cr_assert_eq(ref_hardmax_check(&e, &h, NULL, &v), CLMAX_OK);
    cr_assert(v.outer == 2 && v.n == 4 && v.inner == 1);
    h.axis = 0;
    cr_assert_eq(ref_hardmax_check(&e, &h, NULL, &v), CLMAX_OK);
    cr_assert(v.outer == 1 && v.n == 8 && v.inner == 1);
}

Test(reference, error_rules)
{
    int64_t dims[3] = {2, 0, 3};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 3, dims);
    clmax_argmax_attrs a = ref_argmax_defaults(13);
    a.axis = 1;
    cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), CLMAX_ERROR_EMPTY_AXIS);
    a.axis = 0;
    cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), CLMAX_OK);
    a.axis = 3;
    cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), CLMAX_ERROR_INVALID_AXIS);
    a.axis = -4;
    cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), CLMAX_ERROR_INVALID_AXIS);
    a.axis = -3;
    cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), CLMAX_OK);
    a.opset = 11;
    a.select_last_index = 1;
    cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), CLMAX_ERROR_INVALID_ATTRIBUTE);
    a = ref_argmax_defaults(12);
    d.type = CLMAX_TYPE_BFLOAT16;
    cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), CLMAX_ERROR_UNSUPPORTED_TYPE);
    d.rank = 0;
    cr_assert_eq(ref_argmax_check(&d, NULL, NULL, NULL), CLMAX_ERROR_INVALID_RANK);
    int64_t big[3] = {1ll << 32, 1ll << 32, 2};
    d = test_desc(CLMAX_TYPE_FLOAT32, 3, big);
    cr_assert_eq(ref_argmax_check(&d, NULL, NULL, NULL), CLMAX_ERROR_SIZE_OVERFLOW);
    clmax_hardmax_attrs h = ref_hardmax_defaults(13);
    d = test_desc(CLMAX_TYPE_INT32, 3, dims);
    cr_assert_eq(ref_hardmax_check(&d, &h, NULL, NULL), CLMAX_ERROR_UNSUPPORTED_TYPE);
    d.type = CLMAX_TYPE_FLOAT16;
    h.axis = 1;
    cr_assert_eq(ref_hardmax_check(&d, &h, NULL, NULL), CLMAX_OK); /* empty output */
}

/* ArgMin's order: NaN still wins, then the smallest; -0 == +0; integers over their full range. */
Test(reference, compare_min_order)
{
    uint16_t nan_inf[2] = {0x7E00, 0xFC00}, nans[2] = {0xFE01, 0x7C01};
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_FLOAT16, nan_inf, 0, 1), 1); /* NaN beats -inf */
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_FLOAT16, nan_inf, 1, 0), -1);
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_FLOAT16, nans, 0, 1), 0); /* two NaNs tie */
    uint16_t h[6] = {0xFC00, 0xBC00, 0x8001, 0x8000, 0x0000, 0x0001};
    for (uint64_t i = 0; i + 1 < 6; i++)
        cr_assert_eq(ref_compare_min(CLMAX_TYPE_FLOAT16, h, i, i + 1), i == 3 ? 0 : 1, "f16 %llu",
                     (unsigned long long)i);
    uint16_t b[2] = {0x0080, 0x007F}; /* min normal vs max denormal (bfloat16) */
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_BFLOAT16, b, 0, 1), -1);
    float f[4] = {-0.0f, 0.0f, NAN, -INFINITY};
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_FLOAT32, f, 0, 1), 0);
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_FLOAT32, f, 2, 3), 1);
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_FLOAT32, f, 3, 0), 1);
    double d[2] = {-4.9e-324, 0.0};
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_FLOAT64, d, 0, 1), 1);
    int64_t s[2] = {INT64_MIN, INT64_MAX};
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_INT64, s, 0, 1), 1);
    uint64_t u[2] = {0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull};
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_UINT64, u, 0, 1), 1);
    int8_t s8[2] = {-128, 127};
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_INT8, s8, 0, 1), 1);
    uint8_t u8[2] = {0x80, 0x7F};
    cr_assert_eq(ref_compare_min(CLMAX_TYPE_UINT8, u8, 0, 1), -1);
}

/* The ONNX ArgMin documentation examples, and values taken bit for bit. */
Test(reference, onnx_argmin_examples)
{
    int32_t data[4] = {2, 1, 3, 10};
    int64_t dims[2] = {2, 2};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_INT32, 2, dims);
    clmax_argmax_attrs a = ref_argmax_defaults(13);
    int64_t y[2];
    cr_assert_eq(ref_argmin(&d, data, &a, y), CLMAX_OK);
    cr_assert(y[0] == 0 && y[1] == 0);
    a.axis = 1;
    cr_assert_eq(ref_argmin(&d, data, &a, y), CLMAX_OK);
    cr_assert(y[0] == 1 && y[1] == 0);
    int32_t tie[4] = {2, 2, 3, 10};
    a.select_last_index = 1;
    cr_assert_eq(ref_argmin(&d, tie, &a, y), CLMAX_OK);
    cr_assert(y[0] == 1 && y[1] == 0);
    a.select_last_index = 0;
    cr_assert_eq(ref_argmin(&d, tie, &a, y), CLMAX_OK);
    cr_assert(y[0] == 0 && y[1] == 0);

    /* values: the winners' own bits (the sign of a zero, a NaN's payload) */
    uint32_t f[6] = {0x80000000u, 0x00000000u, 0x3F800000u, 0xFFC00005u, 0x7F800000u, 0x7FC00007u};
    int64_t d3[2] = {2, 3};
    clmax_tensor_desc e = test_desc(CLMAX_TYPE_FLOAT32, 2, d3);
    uint32_t v[2];
    a = ref_argmax_defaults(13);
    a.axis = 1;
    cr_assert_eq(ref_arg_with_values(&e, f, &a, 1, v, y), CLMAX_OK);
    cr_assert(y[0] == 0 && v[0] == 0x80000000u && y[1] == 0 && v[1] == 0xFFC00005u);
    cr_assert_eq(ref_arg_with_values(&e, f, &a, 0, v, y), CLMAX_OK);
    cr_assert(y[0] == 2 && v[0] == 0x3F800000u && y[1] == 0 && v[1] == 0xFFC00005u);
    a.select_last_index = 1;
    cr_assert_eq(ref_arg_with_values(&e, f, &a, 1, v, y), CLMAX_OK);
    cr_assert(y[0] == 1 && v[0] == 0 && y[1] == 2 && v[1] == 0x7FC00007u);
    cr_assert_eq(ref_arg_with_values(&e, f, &a, 0, v, y), CLMAX_OK);
    cr_assert(y[0] == 2 && y[1] == 2 && v[1] == 0x7FC00007u);
}

/* The one walk for the four tie-rule answers (what check_tie_rules compares with) gives what
 * ref_argmax and ref_argmin give one at a time, on every type, fill and axis. */
Test(reference, tie_rules_walk)
{
    test_rng rng;
    rng_seed(&rng, 61);
    int64_t dims[3] = {3, 41, 5};
    uint64_t x[3 * 41 * 5];
    int64_t one[41 * 5], four[4][41 * 5];
    int64_t *const y[4] = {four[0], four[1], four[2], four[3]};
    for (int t = 0; t < TEST_NUM_TYPES; t++) {
        clmax_tensor_desc d = test_desc(test_all_types[t], 3, dims);
        for (int f = 0; f < FILL_MODES; f++) {
            fill_tensor(d.type, x, 3 * 41 * 5, (fill_mode)f, &rng);
            for (int axis = 0; axis < 3; axis++) {
                clmax_argmax_attrs a = ref_argmax_defaults(13);
                a.axis = axis;
                cr_assert_eq(ref_arg_tie_rules(&d, x, &a, y), CLMAX_OK);
                size_t outputs = (size_t)(3 * 41 * 5 / dims[axis]);
                for (int r = 0; r < 4; r++) {
                    a.select_last_index = r & 1;
                    clmax_status st =
                        r < 2 ? ref_argmax(&d, x, &a, one) : ref_argmin(&d, x, &a, one);
                    cr_assert_eq(st, CLMAX_OK);
                    cr_assert_arr_eq(one, four[r], outputs * sizeof one[0],
                                     "%s axis %d fill %d answer %d", test_type_str(d.type), axis, f,
                                     r);
                }
            }
        }
    }
}
