/* ArgMin's error rules on each backend, with messages that name ArgMin (never ArgMax): a table of
 * faults, one per case, checked against the reference's verdict; NULL pointers and a NULL
 * context. */
#include "common.h"

#include <string.h>

typedef struct err_case {
    const char *what;
    clmax_type type;
    int rank;
    int64_t dims[4];
    int opset;
    int64_t axis;
    int keepdims;
    int sli;
    clmax_status want;
    int names_op; /* the message names the operator */
} err_case;

#define F32 CLMAX_TYPE_FLOAT32
#define BF16 CLMAX_TYPE_BFLOAT16

static const err_case err_cases[] = {
    {"rank 0", F32, 0, {0}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_RANK, 0},
    {"rank 17", F32, CLMAX_MAX_RANK + 1, {1, 1, 1, 1}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_RANK, 0},
    {"negative dim", F32, 2, {3, -2}, 13, 0, 1, 0, CLMAX_ERROR_INVALID_SHAPE, 0},
    {"overflow", F32, 3, {1ll << 33, 1ll << 33, 2}, 13, 0, 1, 0, CLMAX_ERROR_SIZE_OVERFLOW, 0},
    {"opset 0", F32, 2, {2, 3}, 0, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET, 1},
    {"opset 10", F32, 2, {2, 3}, 10, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET, 1},
    {"opset 14", F32, 2, {2, 3}, 14, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_OPSET, 1},
    {"bfloat16 opset 1", BF16, 2, {2, 3}, 1, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE, 1},
    {"bfloat16 opset 11", BF16, 2, {2, 3}, 11, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE, 1},
    {"bfloat16 opset 12", BF16, 2, {2, 3}, 12, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE, 1},
    {"type bool", (clmax_type)9, 2, {2, 3}, 13, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE, 0},
    {"type 99", (clmax_type)99, 2, {2, 3}, 13, 0, 1, 0, CLMAX_ERROR_UNSUPPORTED_TYPE, 0},
    {"keepdims 2", F32, 2, {2, 3}, 13, 0, 2, 0, CLMAX_ERROR_INVALID_ATTRIBUTE, 0},
    {"select_last_index -1", F32, 2, {2, 3}, 12, 0, 1, -1, CLMAX_ERROR_INVALID_ATTRIBUTE, 0},
    {"select_last_index opset 1", F32, 2, {2, 3}, 1, 0, 1, 1, CLMAX_ERROR_INVALID_ATTRIBUTE, 1},
    {"select_last_index opset 11", F32, 2, {2, 3}, 11, 0, 1, 1, CLMAX_ERROR_INVALID_ATTRIBUTE, 1},
    {"axis r", F32, 2, {2, 3}, 13, 2, 1, 0, CLMAX_ERROR_INVALID_AXIS, 0},
    {"axis -r-1", F32, 2, {2, 3}, 13, -3, 1, 0, CLMAX_ERROR_INVALID_AXIS, 0},
    {"axis int64 min", F32, 2, {2, 3}, 12, INT64_MIN, 1, 0, CLMAX_ERROR_INVALID_AXIS, 0},
    {"empty rank 1", F32, 1, {0}, 13, 0, 1, 0, CLMAX_ERROR_EMPTY_AXIS, 1},
    {"empty axis 1", CLMAX_TYPE_INT8, 2, {3, 0}, 13, 1, 0, 0, CLMAX_ERROR_EMPTY_AXIS, 1},
    {"empty axis sli", CLMAX_TYPE_FLOAT16, 2, {0, 5}, 12, 0, 1, 1, CLMAX_ERROR_EMPTY_AXIS, 1},
    {"empty output", F32, 2, {0, 0}, 13, 0, 1, 0, CLMAX_OK, 0},
    {"empty non-reduced", CLMAX_TYPE_UINT64, 3, {2, 3, 0}, 11, 1, 1, 0, CLMAX_OK, 0},
};

BACKEND_TEST(argmin, error_statuses, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    float x[64] = {0};
    for (size_t i = 0; i < sizeof err_cases / sizeof err_cases[0]; i++) {
        const err_case *c = &err_cases[i];
        clmax_tensor_desc d;
        memset(&d, 0, sizeof d);
        d.type = c->type;
        d.rank = c->rank;
        for (int k = 0; k < c->rank && k < CLMAX_MAX_RANK; k++)
            d.dims[k] = k < 4 ? c->dims[k] : 1;
        clmax_argmax_attrs a;
        memset(&a, 0, sizeof a);
        a.opset = c->opset;
        a.axis = c->axis;
        a.keepdims = c->keepdims;
        a.select_last_index = c->sli;
        cr_assert_eq(ref_argmax_check(&d, &a, NULL, NULL), c->want,
                     "the reference disagrees with the table on %s", c->what);
        check_argmin(ctx, c->what, &d, x, &a);
        if (c->want == CLMAX_OK) continue;
        int64_t y[8];
        cr_assert_eq(clmax_argmin(ctx, &d, x, &a, y), c->want);
        const char *msg = clmax_last_error();
        if (c->names_op)
            cr_assert(strstr(msg, "ArgMin") != NULL, "%s: the message does not say ArgMin: %s",
                      c->what, msg);
        cr_assert(strstr(msg, "ArgMax") == NULL, "%s: ArgMin's message says ArgMax: %s", c->what,
                  msg);
    }
    int64_t dims[2] = {2, 3};
    float ok[6] = {1, 2, 3, 6, 5, 0};
    clmax_tensor_desc d = test_desc(F32, 2, dims);
    check_argmin(ctx, "after errors", &d, ok, NULL);
    clmax_context_destroy(ctx);
}

BACKEND_TEST(argmin, null_pointers, .timeout = 600)
{
    clmax_context *ctx = test_context_open(backend, NULL);
    int64_t dims[2] = {2, 3};
    clmax_tensor_desc d = test_desc(F32, 2, dims);
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t y[3];
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    cr_assert_eq(clmax_argmin(ctx, NULL, x, &a, y), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    cr_assert_eq(clmax_argmin(ctx, &d, NULL, &a, y), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    cr_assert_eq(clmax_argmin(ctx, &d, x, &a, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
    /* An empty output needs no buffers. */
    int64_t edims[2] = {0, 3};
    clmax_tensor_desc e = test_desc(F32, 2, edims);
    a.axis = 1;
    cr_assert_eq(clmax_argmin(ctx, &e, NULL, &a, NULL), CLMAX_OK, "%s", clmax_last_error());
    /* NULL attrs are the opset 13 defaults */
    check_argmin(ctx, "NULL attrs", &d, x, NULL);
    clmax_context_destroy(ctx);
}

Test(argmin, null_context)
{
    int64_t dims[2] = {2, 3};
    clmax_tensor_desc d = test_desc(F32, 2, dims);
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t y[3];
    cr_assert_eq(clmax_argmin(NULL, &d, x, NULL, y), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
}
