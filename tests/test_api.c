/* Backend-free API: versions, statuses, types, descriptors, attribute defaults, shape inference,
 * clmax_last_error. */
#include "common.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

Test(api, version)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", CLMAX_VERSION_MAJOR, CLMAX_VERSION_MINOR,
             CLMAX_VERSION_PATCH);
    cr_assert_eq(clmax_version_number(), (unsigned)CLMAX_VERSION_NUMBER);
    cr_assert_not_null(clmax_version_string());
    cr_assert_str_eq(clmax_version_string(), want);
}

Test(api, status_strings)
{
    enum { LAST = CLMAX_ERROR_INDEX_OVERFLOW };
    const char *seen[LAST + 1];
    for (int s = 0; s <= LAST; s++) {
        const char *str = clmax_status_string((clmax_status)s);
        cr_assert_not_null(str, "status %d", s);
        cr_assert(str[0] != 0, "status %d has an empty string", s);
        for (int t = 0; t < s; t++)
            cr_assert(strcmp(str, seen[t]) != 0, "statuses %d and %d share \"%s\"", t, s, str);
        seen[s] = str;
    }
    cr_assert_not_null(clmax_status_string((clmax_status)(LAST + 1)));
    cr_assert_not_null(clmax_status_string((clmax_status)-1));
    cr_assert_not_null(clmax_status_string((clmax_status)1000));
}

Test(api, type_size_and_name)
{
    for (int i = 0; i < TEST_NUM_TYPES; i++) {
        clmax_type t = test_all_types[i];
        cr_assert_eq(clmax_type_size(t), ref_type_size(t), "%s", test_type_str(t));
        cr_assert_str_eq(clmax_type_name(t), test_type_str(t));
    }
    int bad[] = {0, 8, 9, 14, 15, 17, -1, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(clmax_type_size((clmax_type)bad[i]), 0, "type %d", bad[i]);
        cr_assert_str_eq(clmax_type_name((clmax_type)bad[i]), "unknown", "type %d", bad[i]);
    }
}

Test(api, tensor_desc_count)
{
    uint64_t c = 12345;
    int64_t d1[3] = {2, 3, 4};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 3, d1);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_OK);
    cr_assert_eq(c, 24);

    int64_t d2[2] = {(1ll << 31) + 1, 3}; /* beyond 2^32 elements: a normal size */
    d = test_desc(CLMAX_TYPE_INT8, 2, d2);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_OK);
    cr_assert_eq(c, ((1ull << 31) + 1) * 3);

    int64_t d3[3] = {1ll << 20, 1ll << 20, 1ll << 20};
    d = test_desc(CLMAX_TYPE_INT8, 3, d3);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_OK);
    cr_assert_eq(c, 1ull << 60);

    int64_t d4[2] = {5, 0};
    d = test_desc(CLMAX_TYPE_INT8, 2, d4);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_OK);
    cr_assert_eq(c, 0);

    int64_t ones[CLMAX_MAX_RANK];
    for (int i = 0; i < CLMAX_MAX_RANK; i++)
        ones[i] = i % 3 ? 1 : 2;
    d = test_desc(CLMAX_TYPE_INT8, CLMAX_MAX_RANK, ones);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_OK);
    cr_assert_eq(c, 64);

    d.rank = 0;
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_ERROR_INVALID_RANK);
    d.rank = -1;
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_ERROR_INVALID_RANK);
    d.rank = CLMAX_MAX_RANK + 1;
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_ERROR_INVALID_RANK);

    int64_t neg[2] = {3, -1};
    d = test_desc(CLMAX_TYPE_INT8, 2, neg);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_ERROR_INVALID_SHAPE);

    int64_t over[3] = {1ll << 33, 1ll << 33, 1};
    d = test_desc(CLMAX_TYPE_INT8, 3, over);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_ERROR_SIZE_OVERFLOW);
    int64_t over2[2] = {INT64_MAX, 3};
    d = test_desc(CLMAX_TYPE_INT8, 2, over2);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_ERROR_SIZE_OVERFLOW);
    int64_t over3[5] = {1 << 16, 1 << 16, 1 << 16, 1 << 16, 1 << 16};
    d = test_desc(CLMAX_TYPE_INT8, 5, over3);
    cr_assert_eq(clmax_tensor_desc_count(&d, &c), CLMAX_ERROR_SIZE_OVERFLOW);

    cr_assert_eq(clmax_tensor_desc_count(NULL, &c), CLMAX_ERROR_INVALID_ARGUMENT);
    d = test_desc(CLMAX_TYPE_INT8, 3, d1);
    cr_assert_eq(clmax_tensor_desc_count(&d, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
}

Test(api, argmax_attrs_init)
{
    for (int i = 0; i < 4; i++) {
        int opset = test_argmax_opsets[i];
        clmax_argmax_attrs a;
        memset(&a, 0x77, sizeof a);
        cr_assert_eq(clmax_argmax_attrs_init(&a, opset), CLMAX_OK, "opset %d", opset);
        cr_assert_eq(a.opset, opset);
        cr_assert_eq(a.axis, 0);
        cr_assert_eq(a.keepdims, 1);
        cr_assert_eq(a.select_last_index, 0);
    }
    int bad[] = {0, 2, 5, 10, 14, 15, 100, -1, -13};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clmax_argmax_attrs a;
        memset(&a, 0x77, sizeof a);
        cr_assert_eq(clmax_argmax_attrs_init(&a, bad[i]), CLMAX_ERROR_UNSUPPORTED_OPSET, "opset %d",
                     bad[i]);
        cr_assert(a.opset == 13 && a.axis == 0 && a.keepdims == 1 && a.select_last_index == 0,
                  "opset %d: not filled with the opset 13 defaults", bad[i]);
    }
    cr_assert_eq(clmax_argmax_attrs_init(NULL, 13), CLMAX_ERROR_INVALID_ARGUMENT);
}

Test(api, hardmax_attrs_init)
{
    for (int i = 0; i < 3; i++) {
        int opset = test_hardmax_opsets[i];
        clmax_hardmax_attrs a;
        memset(&a, 0x77, sizeof a);
        cr_assert_eq(clmax_hardmax_attrs_init(&a, opset), CLMAX_OK, "opset %d", opset);
        cr_assert_eq(a.opset, opset);
        cr_assert_eq(a.axis, opset == 13 ? -1 : 1, "opset %d axis %lld", opset, (long long)a.axis);
    }
    int bad[] = {0, 2, 10, 12, 14, -1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clmax_hardmax_attrs a;
        memset(&a, 0x77, sizeof a);
        cr_assert_eq(clmax_hardmax_attrs_init(&a, bad[i]), CLMAX_ERROR_UNSUPPORTED_OPSET,
                     "opset %d", bad[i]);
        cr_assert(a.opset == 13 && a.axis == -1, "opset %d: not the opset 13 defaults", bad[i]);
    }
    cr_assert_eq(clmax_hardmax_attrs_init(NULL, 13), CLMAX_ERROR_INVALID_ARGUMENT);
}

static void expect_argmax_desc(const clmax_tensor_desc *in, const clmax_argmax_attrs *a, int rank,
                               const int64_t *dims)
{
    clmax_tensor_desc out;
    memset(&out, 0x5A, sizeof out);
    clmax_status st = clmax_argmax_output_desc(in, a, &out);
    cr_assert_eq(st, CLMAX_OK, "%s: %s", clmax_status_string(st), clmax_last_error());
    cr_assert_eq(out.type, CLMAX_TYPE_INT64);
    cr_assert_eq(out.rank, rank);
    for (int i = 0; i < rank; i++)
        cr_assert_eq(out.dims[i], dims[i], "dim %d", i);
}

Test(api, argmax_output_desc)
{
    int64_t dims[4] = {2, 3, 4, 5};
    clmax_tensor_desc in = test_desc(CLMAX_TYPE_FLOAT16, 4, dims);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);

    expect_argmax_desc(&in, NULL, 4, (int64_t[]){1, 3, 4, 5}); /* NULL: axis 0, keepdims 1 */
    expect_argmax_desc(&in, &a, 4, (int64_t[]){1, 3, 4, 5});
    a.axis = 2;
    expect_argmax_desc(&in, &a, 4, (int64_t[]){2, 3, 1, 5});
    a.axis = -1;
    expect_argmax_desc(&in, &a, 4, (int64_t[]){2, 3, 4, 1});
    a.keepdims = 0;
    expect_argmax_desc(&in, &a, 3, (int64_t[]){2, 3, 4});
    a.axis = -4;
    expect_argmax_desc(&in, &a, 3, (int64_t[]){3, 4, 5});
    a.axis = 1;
    a.select_last_index = 1;
    expect_argmax_desc(&in, &a, 3, (int64_t[]){2, 4, 5});

    /* rank 1 without keepdims gives a rank-0 output (one element) */
    int64_t d1[1] = {7};
    in = test_desc(CLMAX_TYPE_UINT64, 1, d1);
    clmax_argmax_attrs_init(&a, 1);
    a.keepdims = 0;
    expect_argmax_desc(&in, &a, 0, NULL);
    a.keepdims = 1;
    expect_argmax_desc(&in, &a, 1, (int64_t[]){1});

    /* zero-sized dimensions that are not reduced: an empty output, no error */
    int64_t dz[3] = {0, 4, 3};
    in = test_desc(CLMAX_TYPE_INT32, 3, dz);
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    expect_argmax_desc(&in, &a, 3, (int64_t[]){0, 1, 3});
    a.keepdims = 0;
    expect_argmax_desc(&in, &a, 2, (int64_t[]){0, 3});
    a.axis = 0; /* reduced axis of length 0, but the output [1,4,3] is not empty */
    cr_assert_eq(clmax_argmax_output_desc(&in, &a, &(clmax_tensor_desc){0}),
                 CLMAX_ERROR_EMPTY_AXIS);

    /* large shapes are inferred without any allocation */
    int64_t dl[3] = {1ll << 20, 1ll << 10, 1ll << 22};
    in = test_desc(CLMAX_TYPE_FLOAT64, 3, dl);
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    expect_argmax_desc(&in, &a, 3, (int64_t[]){1ll << 20, 1, 1ll << 22});

    /* rank 16 */
    int64_t d16[CLMAX_MAX_RANK];
    for (int i = 0; i < CLMAX_MAX_RANK; i++)
        d16[i] = 1 + i % 3;
    in = test_desc(CLMAX_TYPE_INT8, CLMAX_MAX_RANK, d16);
    a.axis = -1;
    a.keepdims = 0;
    expect_argmax_desc(&in, &a, CLMAX_MAX_RANK - 1, d16);

    clmax_tensor_desc out;
    cr_assert_eq(clmax_argmax_output_desc(NULL, &a, &out), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clmax_argmax_output_desc(&in, &a, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
}

static void expect_hardmax_desc(const clmax_tensor_desc *in, const clmax_hardmax_attrs *a)
{
    clmax_tensor_desc out;
    memset(&out, 0x5A, sizeof out);
    clmax_status st = clmax_hardmax_output_desc(in, a, &out);
    cr_assert_eq(st, CLMAX_OK, "%s: %s", clmax_status_string(st), clmax_last_error());
    cr_assert_eq(out.type, in->type);
    cr_assert_eq(out.rank, in->rank);
    for (int i = 0; i < in->rank; i++)
        cr_assert_eq(out.dims[i], in->dims[i], "dim %d", i);
}

Test(api, hardmax_output_desc)
{
    int64_t dims[3] = {2, 3, 4};
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++) {
        clmax_tensor_desc in = test_desc(test_float_types[t], 3, dims);
        clmax_hardmax_attrs a;
        expect_hardmax_desc(&in, NULL);
        for (int o = 0; o < 3; o++) {
            clmax_hardmax_attrs_init(&a, test_hardmax_opsets[o]);
            if (in.type == CLMAX_TYPE_BFLOAT16 && a.opset < 13) {
                clmax_tensor_desc out;
                cr_assert_eq(clmax_hardmax_output_desc(&in, &a, &out),
                             CLMAX_ERROR_UNSUPPORTED_TYPE);
                continue;
            }
            for (a.axis = -3; a.axis <= 2; a.axis++)
                expect_hardmax_desc(&in, &a);
        }
    }
    int64_t dz[2] = {3, 0};
    clmax_tensor_desc in = test_desc(CLMAX_TYPE_FLOAT32, 2, dz);
    expect_hardmax_desc(&in, NULL); /* axis of length 0: empty output, no error */
    clmax_tensor_desc out;
    cr_assert_eq(clmax_hardmax_output_desc(NULL, NULL, &out), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(clmax_hardmax_output_desc(&in, NULL, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
}

/* Every valid or single-fault combination of type, opset, rank, axis and attributes, against the
 * reference's shape inference. */
Test(api, output_desc_against_reference)
{
    int types[TEST_NUM_TYPES + 3];
    for (int i = 0; i < TEST_NUM_TYPES; i++)
        types[i] = test_all_types[i];
    types[TEST_NUM_TYPES] = 0;
    types[TEST_NUM_TYPES + 1] = 8; /* string */
    types[TEST_NUM_TYPES + 2] = 9; /* bool */
    int opsets[] = {1, 11, 12, 13};
    int64_t shapes[][4] = {{5, 0, 0, 0}, {2, 3, 0, 0}, {4, 1, 3, 0}, {2, 3, 1, 2}, {0, 3, 0, 0}};
    int ranks[] = {1, 2, 3, 4, 2};
    for (int ti = 0; ti < TEST_NUM_TYPES + 3; ti++)
        for (int oi = 0; oi < 4; oi++)
            for (int si = 0; si < 5; si++) {
                int r = ranks[si];
                clmax_tensor_desc in = test_desc((clmax_type)types[ti], r, shapes[si]);
                for (int64_t axis = -r - 2; axis <= r + 1; axis++)
                    for (int kd = 0; kd <= 1; kd++)
                        for (int sli = 0; sli <= 1; sli++) {
                            clmax_argmax_attrs a = ref_argmax_defaults(opsets[oi]);
                            a.axis = axis;
                            a.keepdims = kd;
                            a.select_last_index = sli;
                            int bad_axis = axis < -r || axis >= r;
                            int faults = bad_axis + (sli && opsets[oi] < 12) +
                                         !ref_argmax_takes_type(in.type, opsets[oi]);
                            if (!bad_axis) {
                                int ax = (int)(axis < 0 ? axis + r : axis);
                                int64_t rest = 1;
                                for (int i = 0; i < r; i++)
                                    if (i != ax) rest *= in.dims[i];
                                faults += in.dims[ax] == 0 && rest > 0;
                            }
                            clmax_tensor_desc want, got;
                            clmax_status rst = ref_argmax_check(&in, &a, &want, NULL);
                            clmax_status st = clmax_argmax_output_desc(&in, &a, &got);
                            char shape[64];
                            test_shape_str(&in, shape, sizeof shape);
                            if (faults > 1) {
                                cr_assert_neq(st, CLMAX_OK, "type %d shape %s axis %lld", types[ti],
                                              shape, (long long)axis);
                                continue;
                            }
                            cr_assert_eq(st, rst,
                                         "argmax type %d shape %s opset %d axis %lld keepdims %d "
                                         "sli %d: %d (%s), expected %d (%s)",
                                         types[ti], shape, opsets[oi], (long long)axis, kd, sli,
                                         (int)st, clmax_status_string(st), (int)rst,
                                         clmax_status_string(rst));
                            if (st != CLMAX_OK) {
                                cr_assert(clmax_last_error()[0] != 0);
                                continue;
                            }
                            cr_assert_eq(got.rank, want.rank);
                            cr_assert_eq(got.type, want.type);
                            for (int i = 0; i < want.rank; i++)
                                cr_assert_eq(got.dims[i], want.dims[i]);
                        }
                for (int64_t axis = -r - 2; axis <= r + 1; axis++) {
                    if (opsets[oi] == 12) continue;
                    clmax_hardmax_attrs h = ref_hardmax_defaults(opsets[oi]);
                    h.axis = axis;
                    int faults =
                        (axis < -r || axis >= r) + !ref_hardmax_takes_type(in.type, h.opset);
                    clmax_tensor_desc want, got;
                    clmax_status rst = ref_hardmax_check(&in, &h, &want, NULL);
                    clmax_status st = clmax_hardmax_output_desc(&in, &h, &got);
                    if (faults > 1) {
                        cr_assert_neq(st, CLMAX_OK);
                        continue;
                    }
                    cr_assert_eq(st, rst, "hardmax type %d rank %d opset %d axis %lld: %d, want %d",
                                 types[ti], r, h.opset, (long long)axis, (int)st, (int)rst);
                    if (st == CLMAX_OK) {
                        cr_assert_eq(got.rank, want.rank);
                        cr_assert_eq(got.type, want.type);
                        for (int i = 0; i < want.rank; i++)
                            cr_assert_eq(got.dims[i], want.dims[i]);
                    }
                }
            }
}

static void *thread_last_error(void *arg)
{
    (void)arg;
    /* a fresh thread sees no error of another thread */
    return (void *)(uintptr_t)(clmax_last_error()[0] == 0);
}

Test(api, last_error)
{
    cr_assert_not_null(clmax_last_error());
    cr_assert_str_eq(clmax_last_error(), "", "no clmax call failed yet on this thread");

    int64_t dims[2] = {2, 3};
    clmax_tensor_desc in = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 5;
    clmax_tensor_desc out;
    cr_assert_eq(clmax_argmax_output_desc(&in, &a, &out), CLMAX_ERROR_INVALID_AXIS);
    cr_assert_not_null(clmax_last_error());
    cr_assert(strlen(clmax_last_error()) > 0, "no message after a failure");

    pthread_t th;
    void *fresh = NULL;
    cr_assert_eq(pthread_create(&th, NULL, thread_last_error, NULL), 0);
    pthread_join(th, &fresh);
    cr_assert(fresh != NULL, "the error of one thread leaks into another");

    in.rank = 0;
    cr_assert_eq(clmax_argmax_output_desc(&in, NULL, &out), CLMAX_ERROR_INVALID_RANK);
    cr_assert(strlen(clmax_last_error()) > 0);
    cr_assert_eq(clmax_hardmax_output_desc(NULL, NULL, &out), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(strlen(clmax_last_error()) > 0);
}
