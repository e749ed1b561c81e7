/* Every documented error status from the operators themselves, on each backend: one fault per
 * case, so the expected status is unambiguous. check_argmax/check_hardmax compare both
 * clmax_*_output_desc and the operator with the reference and require a clmax_last_error() text. */
#include "common.h"

#include <string.h>

typedef struct arg_case {
    const char *what;
    clmax_type type;
    int rank;
    int64_t dims[4];
    int opset;
    int64_t axis;
    int keepdims;
    int sli;
    clmax_status want;
} arg_case;

#define F32 CLMAX_TYPE_FLOAT32
#define BF16 CLMAX_TYPE_BFLOAT16

static const arg_case argmax_cases[] = {
    {"rank 0", F32, 0, {0}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_RANK},
    {"rank -1", F32, -1, {0}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_RANK},
    {"rank 17", F32, CLMAX_MAX_RANK + 1, {1, 1, 1, 1}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_RANK},
    {"negative dim", F32, 2, {3, -2}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_SHAPE},
    {"negative dim on the axis", F32, 2, {3, -2}, 13, 1, 1, 0, CLMAX_ERROR_INVALID_SHAPE},
    {"overflow", F32, 3, {1ll << 33, 1ll << 33, 2}, 13, 0, 1, 0, CLMAX_ERROR_SIZE_OVERFLOW},
    {"overflow int64 max", F32, 2, {INT64_MAX, 3}, 13, 1, 1, 0, CLMAX_ERROR_SIZE_OVERFLOW},
    {"opset 0", F32, 2, {2, 3}, 0, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET},
    {"opset 2", F32, 2, {2, 3}, 2, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET},
    {"opset 10", F32, 2, {2, 3}, 10, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET},
    {"opset 14", F32, 2, {2, 3}, 14, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET},
    {"opset -1", F32, 2, {2, 3}, -1, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET},
    {"bfloat16 opset 1", BF16, 2, {2, 3}, 1, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"bfloat16 opset 11", BF16, 2, {2, 3}, 11, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"bfloat16 opset 12", BF16, 2, {2, 3}, 12, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"type 0", (clmax_type)0, 2, {2, 3}, 13, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"type string", (clmax_type)8, 2, {2, 3}, 13, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"type bool", (clmax_type)9, 2, {2, 3}, 13, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"type complex64", (clmax_type)14, 2, {2, 3}, 13, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"type 99", (clmax_type)99, 2, {2, 3}, 13, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"keepdims 2", F32, 2, {2, 3}, 13, 0, 2, 0, CLMAX_ERROR_INVALID_ATTRIBUTE},
    {"keepdims -1", F32, 2, {2, 3}, 13, 0, -1, 0, CLMAX_ERROR_INVALID_ATTRIBUTE},
    {"select_last_index 2", F32, 2, {2, 3}, 13, 0, 1, 2, CLMAX_ERROR_INVALID_ATTRIBUTE},
    {"select_last_index -1", F32, 2, {2, 3}, 12, 0, 1, -1, CLMAX_ERROR_INVALID_ATTRIBUTE},
    {"select_last_index opset 1", F32, 2, {2, 3}, 1, 0, 1, 1, CLMAX_ERROR_INVALID_ATTRIBUTE},
    {"select_last_index opset 11", F32, 2, {2, 3}, 11, 0, 1, 1, CLMAX_ERROR_INVALID_ATTRIBUTE},
    {"axis r", F32, 2, {2, 3}, 13, 2, 1, 0, CLMAX_ERROR_INVALID_AXIS},
    {"axis -r-1", F32, 2, {2, 3}, 13, -3, 1, 0, CLMAX_ERROR_INVALID_AXIS},
    {"axis 1 on rank 1", F32, 1, {4}, 1, 1, 1, 0, CLMAX_ERROR_INVALID_AXIS},
    {"axis int64 max", F32, 2, {2, 3}, 11, INT64_MAX, 1, 0, CLMAX_ERROR_INVALID_AXIS},
    {"axis int64 min", F32, 2, {2, 3}, 12, INT64_MIN, 1, 0, CLMAX_ERROR_INVALID_AXIS},
    {"axis 2^32", F32, 2, {2, 3}, 13, 1ll << 32, 1, 0, CLMAX_ERROR_INVALID_AXIS},
    {"empty rank 1", F32, 1, {0}, 13, 0, 1, 0, CLMAX_ERROR_EMPTY_AXIS},
    {"empty rank 1 keepdims 0", F32, 1, {0}, 13, 0, 0, 0, CLMAX_ERROR_EMPTY_AXIS},
    {"empty axis 1", CLMAX_TYPE_INT8, 2, {3, 0}, 13, 1, 1, 0, CLMAX_ERROR_EMPTY_AXIS},
    {"empty axis -2", CLMAX_TYPE_UINT64, 3, {2, 0, 2}, 11, -2, 0, 0, CLMAX_ERROR_EMPTY_AXIS},
    {"empty axis sli", CLMAX_TYPE_FLOAT16, 2, {0, 5}, 12, 0, 1, 1, CLMAX_ERROR_EMPTY_AXIS},
    /* the same shapes where the output is empty too: no error */
    {"empty output", F32, 2, {0, 0}, 13, 0, 1, 0, CLMAX_OK},
    {"empty output keepdims 0", CLMAX_TYPE_INT8, 2, {0, 3}, 13, 1, 0, 0, CLMAX_OK},
    {"empty non-reduced", CLMAX_TYPE_UINT64, 3, {2, 3, 0}, 11, 1, 1, 0, CLMAX_OK},
    {"empty axis, empty output", F32, 3, {2, 0, 0}, 13, 1, 1, 0, CLMAX_OK},
};

typedef struct hard_case {
    const char *what;
    clmax_type type;
    int rank;
    int64_t dims[4];
    int opset;
    int64_t axis;
    clmax_status want;
} hard_case;

static const hard_case hardmax_cases[] = {
    {"rank 0", F32, 0, {0}, 13, -1, CLMAX_ERROR_INVALID_RANK},
    {"rank 17", F32, CLMAX_MAX_RANK + 1, {1, 1, 1, 1}, 13, -1, CLMAX_ERROR_INVALID_RANK},
    {"negative dim", F32, 2, {-1, 3}, 13, -1, CLMAX_ERROR_INVALID_SHAPE},
    {"overflow", F32, 3, {1ll << 40, 1ll << 40, 1}, 13, -1, CLMAX_ERROR_SIZE_OVERFLOW},
    {"opset 12", F32, 2, {2, 3}, 12, 1, CLMAX_ERROR_UNSUPPORTED_OPSET},
    {"opset 10", F32, 2, {2, 3}, 10, 1, CLMAX_ERROR_UNSUPPORTED_OPSET},
    {"opset 14", F32, 2, {2, 3}, 14, 1, CLMAX_ERROR_UNSUPPORTED_OPSET},
    {"bfloat16 opset 1", BF16, 2, {2, 3}, 1, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"bfloat16 opset 11", BF16, 2, {2, 3}, 11, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"int8", CLMAX_TYPE_INT8, 2, {2, 3}, 13, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"uint8", CLMAX_TYPE_UINT8, 2, {2, 3}, 11, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"int16", CLMAX_TYPE_INT16, 2, {2, 3}, 1, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"uint16", CLMAX_TYPE_UINT16, 2, {2, 3}, 13, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"int32", CLMAX_TYPE_INT32, 2, {2, 3}, 13, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"uint32", CLMAX_TYPE_UINT32, 2, {2, 3}, 11, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"int64", CLMAX_TYPE_INT64, 2, {2, 3}, 13, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"uint64", CLMAX_TYPE_UINT64, 2, {2, 3}, 1, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"type 0", (clmax_type)0, 2, {2, 3}, 13, 1, CLMAX_ERROR_UNSUPPORTED_TYPE},
    {"axis r", F32, 2, {2, 3}, 13, 2, CLMAX_ERROR_INVALID_AXIS},
    {"axis -r-1", F32, 2, {2, 3}, 11, -3, CLMAX_ERROR_INVALID_AXIS},
    {"default axis 1 on rank 1, opset 11", F32, 1, {5}, 11, 1, CLMAX_ERROR_INVALID_AXIS},
    {"default axis 1 on rank 1, opset 1",
     CLMAX_TYPE_FLOAT64,
     1,
     {5},
     1,
     1,
     CLMAX_ERROR_INVALID_AXIS},
    {"axis int64 min", F32, 2, {2, 3}, 13, INT64_MIN, CLMAX_ERROR_INVALID_AXIS},
    /* zero-sized dimensions: always an empty output, never an error */
    {"empty axis", F32, 2, {3, 0}, 13, -1, CLMAX_OK},
    {"empty outer", CLMAX_TYPE_FLOAT16, 2, {0, 3}, 13, -1, CLMAX_OK},
    {"empty coerced", CLMAX_TYPE_FLOAT64, 3, {2, 0, 3}, 11, 1, CLMAX_OK},
    {"empty coerced tail", F32, 3, {2, 3, 0}, 1, 1, CLMAX_OK},
};

static clmax_tensor_desc case_desc(clmax_type type, int rank, const int64_t *dims)
{
    clmax_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.rank = rank;
    for (int i = 0; i < rank && i < CLMAX_MAX_RANK; i++)
        d.dims[i] = i < 4 ? dims[i] : 1;
    return d;
}

BACKEND_TEST(errors, argmax_statuses, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    float x[64] = {0};
    for (size_t i = 0; i < sizeof argmax_cases / sizeof argmax_cases[0]; i++) {
        const arg_case *c = &argmax_cases[i];
        clmax_tensor_desc d = case_desc(c->type, c->rank, c->dims);
        clmax_argmax_attrs a;
        memset(&a, 0, sizeof a);
        a.opset = c->opset;
        a.axis = c->axis;
        a.keepdims = c->keepdims;
        a.select_last_index = c->sli;
        clmax_status rst = ref_argmax_check(&d, &a, NULL, NULL);
        cr_assert_eq(rst, c->want, "the reference disagrees with the table on %s", c->what);
        check_argmax(ctx, c->what, &d, x, &a); /* statuses of output_desc and argmax */
    }
    /* the context still works after all these failures */
    int64_t dims[2] = {2, 3};
    float ok[6] = {1, 2, 3, 6, 5, 4};
    clmax_tensor_desc d = test_desc(F32, 2, dims);
    check_argmax(ctx, "after errors", &d, ok, NULL);
    clmax_context_destroy(ctx);
}

BACKEND_TEST(errors, hardmax_statuses, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    double x[64] = {0};
    for (size_t i = 0; i < sizeof hardmax_cases / sizeof hardmax_cases[0]; i++) {
        const hard_case *c = &hardmax_cases[i];
        clmax_tensor_desc d = case_desc(c->type, c->rank, c->dims);
        clmax_hardmax_attrs a;
        memset(&a, 0, sizeof a);
        a.opset = c->opset;
        a.axis = c->axis;
        clmax_status rst = ref_hardmax_check(&d, &a, NULL, NULL);
        cr_assert_eq(rst, c->want, "the reference disagrees with the table on %s", c->what);
        check_hardmax(ctx, c->what, &d, x, &a);
    }
    int64_t dims[2] = {2, 3};
    float ok[6] = {1, 2, 3, 6, 5, 4};
    clmax_tensor_desc d = test_desc(F32, 2, dims);
    check_hardmax(ctx, "after errors", &d, ok, NULL);
    clmax_context_destroy(ctx);
}

BACKEND_TEST(errors, null_pointers, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    int64_t dims[2] = {2, 3};
    clmax_tensor_desc d = test_desc(F32, 2, dims);
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t y[3];
    float yh[6];
    clmax_argmax_attrs a;
    clmax_hardmax_attrs h;
    clmax_argmax_attrs_init(&a, 13);
    clmax_hardmax_attrs_init(&h, 13);

    cr_assert_eq(clmax_argmax(ctx, NULL, x, &a, y), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    cr_assert_eq(clmax_argmax(ctx, &d, NULL, &a, y), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    cr_assert_eq(clmax_argmax(ctx, &d, x, &a, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    cr_assert_eq(clmax_hardmax(ctx, NULL, x, &h, yh), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    cr_assert_eq(clmax_hardmax(ctx, &d, NULL, &h, yh), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    cr_assert_eq(clmax_hardmax(ctx, &d, x, &h, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);

    /* NULL attrs are the opset 13 defaults, not an error */
    check_argmax(ctx, "NULL attrs", &d, x, NULL);
    check_hardmax(ctx, "NULL attrs", &d, x, NULL);
    clmax_context_destroy(ctx);
}

Test(errors, null_context)
{
    int64_t dims[2] = {2, 3};
    clmax_tensor_desc d = test_desc(F32, 2, dims);
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t y[3];
    float yh[6];
    cr_assert_eq(clmax_argmax(NULL, &d, x, NULL, y), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    cr_assert_eq(clmax_hardmax(NULL, &d, x, NULL, yh), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
}
