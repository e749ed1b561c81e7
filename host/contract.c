/* The operator contract (DESIGN.md section 1): the attributes' defaults, the opset, type, rank,
 * shape, axis and attribute checks, the output shapes, and the canonical problem that both ways in
 * (host/api.c, host/opencl/cl_enqueue.c) hand to the backends. */
#include "contract.h"
#include "status.h"

#include <string.h>

clmax_status clmax_argmax_attrs_init(clmax_argmax_attrs *attrs, int opset)
{
    clmax_clear_error();
    CHECK_ARG(attrs != NULL, "attrs is NULL");
    attrs->opset = 13;
    attrs->axis = 0;
    attrs->keepdims = 1;
    attrs->select_last_index = 0;
    if (opset != 1 && opset != 11 && opset != 12 && opset != 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_OPSET,
                          "ArgMax is defined for opsets 1, 11, 12 and 13, not %d", opset);
    attrs->opset = opset;
    return CLMAX_OK;
}

clmax_status clmax_hardmax_attrs_init(clmax_hardmax_attrs *attrs, int opset)
{
    clmax_clear_error();
    CHECK_ARG(attrs != NULL, "attrs is NULL");
    attrs->opset = 13;
    attrs->axis = -1;
    if (opset != 1 && opset != 11 && opset != 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_OPSET,
                          "Hardmax is defined for opsets 1, 11 and 13, not %d", opset);
    attrs->opset = opset;
    attrs->axis = opset < 13 ? 1 : -1;
    return CLMAX_OK;
}

/* Checks rank, dims and overflow. The product ignores zero dims so that an overflowing shape is an
 * error even when another dim is 0; *count is the true element count. */
static clmax_status check_desc(const clmax_tensor_desc *d, const char *what, uint64_t *count)
{
    if (d->rank < 1 || d->rank > CLMAX_MAX_RANK)
        return clmax_fail(CLMAX_ERROR_INVALID_RANK, "%s has rank %d; clmax takes ranks 1 to %d",
                          what, d->rank, CLMAX_MAX_RANK);
    uint64_t nonzero = 1;
    int empty = 0;
    for (int k = 0; k < d->rank; k++) {
        int64_t v = d->dims[k];
        if (v < 0)
            return clmax_fail(CLMAX_ERROR_INVALID_SHAPE, "%s dims[%d] is negative (%lld)", what, k,
                              (long long)v);
        if (v == 0) {
            empty = 1;
            continue;
        }
        if (nonzero > (uint64_t)INT64_MAX / (uint64_t)v)
            return clmax_fail(CLMAX_ERROR_SIZE_OVERFLOW,
                              "%s: the product of the dimensions overflows 64 bits", what);
        nonzero *= (uint64_t)v;
    }
    size_t es = clmax_type_size(d->type);
    if (es != 0 && nonzero > (uint64_t)(SIZE_MAX / 2) / es)
        return clmax_fail(CLMAX_ERROR_SIZE_OVERFLOW, "%s: the size in bytes overflows", what);
    *count = empty ? 0 : nonzero;
    return CLMAX_OK;
}

clmax_status clmax_tensor_desc_count(const clmax_tensor_desc *desc, uint64_t *count)
{
    clmax_clear_error();
    CHECK_ARG(desc != NULL && count != NULL, "desc or count is NULL");
    return check_desc(desc, "tensor", count);
}

static uint64_t dims_product(const int64_t *dims, int from, int to)
{
    uint64_t p = 1;
    for (int k = from; k < to; k++)
        p *= (uint64_t)dims[k];
    return p;
}

static clmax_status check_axis(int64_t axis, int rank, int *out)
{
    if (axis < -(int64_t)rank || axis >= rank)
        return clmax_fail(CLMAX_ERROR_INVALID_AXIS, "axis %lld is outside [%d, %d] for rank %d",
                          (long long)axis, -rank, rank - 1, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return CLMAX_OK;
}

/* Everything ArgMax (and ArgMin, min != 0) checks, and the canonical problem. */
clmax_status clmax_argmax_prepare(const clmax_tensor_desc *in, const clmax_argmax_attrs *attrs,
                                  int min, clmax_problem *p, uint64_t *count, int *axis)
{
    const char *name = min ? "ArgMin" : "ArgMax";
    CHECK_ARG(in != NULL, "input descriptor is NULL");
    clmax_argmax_attrs def;
    if (attrs == NULL) {
        clmax_argmax_attrs_init(&def, 13);
        attrs = &def;
    }
    int op = attrs->opset;
    if (op != 1 && op != 11 && op != 12 && op != 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_OPSET,
                          "%s is defined for opsets 1, 11, 12 and 13, not %d", name, op);
    size_t es = clmax_type_size(in->type);
    if (es == 0)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE, "element type %d is not a clmax_type",
                          (int)in->type);
    if (in->type == CLMAX_TYPE_BFLOAT16 && op < 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE,
                          "%s takes bfloat16 from opset 13; opset is %d", name, op);
    if (attrs->keepdims != 0 && attrs->keepdims != 1)
        return clmax_fail(CLMAX_ERROR_INVALID_ATTRIBUTE, "keepdims must be 0 or 1, not %d",
                          attrs->keepdims);
    if (attrs->select_last_index != 0 && attrs->select_last_index != 1)
        return clmax_fail(CLMAX_ERROR_INVALID_ATTRIBUTE, "select_last_index must be 0 or 1, not %d",
                          attrs->select_last_index);
    if (attrs->select_last_index && op < 12)
        return clmax_fail(CLMAX_ERROR_INVALID_ATTRIBUTE,
                          "select_last_index is an attribute of %s from opset 12; opset is %d",
                          name, op);
    clmax_status st = check_desc(in, "input", count);
    if (st != CLMAX_OK) return st;
    st = check_axis(attrs->axis, in->rank, axis);
    if (st != CLMAX_OK) return st;
    p->type = in->type;
    p->esize = es;
    p->outer = dims_product(in->dims, 0, *axis);
    p->n = (uint64_t)in->dims[*axis];
    p->inner = dims_product(in->dims, *axis + 1, in->rank);
    p->last = attrs->select_last_index;
    p->min = min;
    p->reread = 0;
    if (p->n == 0 && p->outer != 0 && p->inner != 0)
        return clmax_fail(CLMAX_ERROR_EMPTY_AXIS,
                          "%s over axis %d of length 0 would have to produce %llu indices", name,
                          *axis, (unsigned long long)(p->outer * p->inner));
    return CLMAX_OK;
}

static int hardmax_type_ok(clmax_type t)
{
    return t == CLMAX_TYPE_FLOAT16 || t == CLMAX_TYPE_FLOAT32 || t == CLMAX_TYPE_FLOAT64 ||
           t == CLMAX_TYPE_BFLOAT16;
}

clmax_status clmax_hardmax_prepare(const clmax_tensor_desc *in, const clmax_hardmax_attrs *attrs,
                                   clmax_problem *p, uint64_t *count)
{
    CHECK_ARG(in != NULL, "input descriptor is NULL");
    clmax_hardmax_attrs def;
    if (attrs == NULL) {
        clmax_hardmax_attrs_init(&def, 13);
        attrs = &def;
    }
    int op = attrs->opset;
    if (op != 1 && op != 11 && op != 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_OPSET,
                          "Hardmax is defined for opsets 1, 11 and 13, not %d", op);
    if (!hardmax_type_ok(in->type))
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE,
                          "Hardmax takes float16, float32, float64 and bfloat16, not %s",
                          clmax_type_name(in->type));
    if (in->type == CLMAX_TYPE_BFLOAT16 && op < 13)
        return clmax_fail(CLMAX_ERROR_UNSUPPORTED_TYPE,
                          "Hardmax takes bfloat16 from opset 13; opset is %d", op);
    clmax_status st = check_desc(in, "input", count);
    if (st != CLMAX_OK) return st;
    int axis = 0;
    st = check_axis(attrs->axis, in->rank, &axis);
    if (st != CLMAX_OK) return st;
    p->type = in->type;
    p->esize = clmax_type_size(in->type);
    p->outer = dims_product(in->dims, 0, axis);
    if (op < 13) {
        p->n = dims_product(in->dims, axis, in->rank);
        p->inner = 1;
    } else {
        p->n = (uint64_t)in->dims[axis];
        p->inner = dims_product(in->dims, axis + 1, in->rank);
    }
    p->last = 0;
    p->min = 0;
    p->reread = 0;
    return CLMAX_OK;
}

clmax_status clmax_argmax_output_desc(const clmax_tensor_desc *input,
                                      const clmax_argmax_attrs *attrs, clmax_tensor_desc *output)
{
    clmax_clear_error();
    CHECK_ARG(output != NULL, "output descriptor is NULL");
    clmax_problem p;
    uint64_t count;
    int axis = 0;
    clmax_status st = clmax_argmax_prepare(input, attrs, 0, &p, &count, &axis);
    if (st != CLMAX_OK) return st;
    int keep = attrs ? attrs->keepdims : 1;
    clmax_tensor_desc out;
    memset(&out, 0, sizeof out);
    out.type = CLMAX_TYPE_INT64;
    for (int k = 0; k < input->rank; k++) {
        if (k == axis) {
            if (keep) out.dims[out.rank++] = 1;
        } else {
            out.dims[out.rank++] = input->dims[k];
        }
    }
    *output = out;
    return CLMAX_OK;
}

clmax_status clmax_hardmax_output_desc(const clmax_tensor_desc *input,
                                       const clmax_hardmax_attrs *attrs, clmax_tensor_desc *output)
{
    clmax_clear_error();
    CHECK_ARG(output != NULL, "output descriptor is NULL");
    clmax_problem p;
    uint64_t count;
    clmax_status st = clmax_hardmax_prepare(input, attrs, &p, &count);
    if (st != CLMAX_OK) return st;
    clmax_tensor_desc out;
    memset(&out, 0, sizeof out);
    out.type = input->type;
    out.rank = input->rank;
    memcpy(out.dims, input->dims, sizeof(int64_t) * (size_t)input->rank);
    *output = out;
    return CLMAX_OK;
}
