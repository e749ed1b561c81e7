/*
 * The scalar reference: plain loops over [outer, n, inner], values decoded to double (exact for
 * every float type) or compared in their own integer C types. See reference.h.
 */
#include "reference.h"

#include <math.h>
#include <string.h>

size_t ref_type_size(clmax_type type)
{
    switch (type) {
    case CLMAX_TYPE_UINT8:
    case CLMAX_TYPE_INT8:
        return 1;
    case CLMAX_TYPE_UINT16:
    case CLMAX_TYPE_INT16:
    case CLMAX_TYPE_FLOAT16:
    case CLMAX_TYPE_BFLOAT16:
        return 2;
    case CLMAX_TYPE_FLOAT32:
    case CLMAX_TYPE_INT32:
    case CLMAX_TYPE_UINT32:
        return 4;
    case CLMAX_TYPE_INT64:
    case CLMAX_TYPE_UINT64:
    case CLMAX_TYPE_FLOAT64:
        return 8;
    }
    return 0;
}

int ref_type_is_integer(clmax_type type)
{
    switch (type) {
    case CLMAX_TYPE_UINT8:
    case CLMAX_TYPE_INT8:
    case CLMAX_TYPE_UINT16:
    case CLMAX_TYPE_INT16:
    case CLMAX_TYPE_INT32:
    case CLMAX_TYPE_UINT32:
    case CLMAX_TYPE_INT64:
    case CLMAX_TYPE_UINT64:
        return 1;
    default:
        return 0;
    }
}

int ref_type_is_signed(clmax_type type)
{
    return type == CLMAX_TYPE_INT8 || type == CLMAX_TYPE_INT16 || type == CLMAX_TYPE_INT32 ||
           type == CLMAX_TYPE_INT64;
}

int ref_argmax_opset_valid(int opset)
{
    return opset == 1 || opset == 11 || opset == 12 || opset == 13;
}

int ref_hardmax_opset_valid(int opset)
{
    return opset == 1 || opset == 11 || opset == 13;
}

int ref_argmax_takes_type(clmax_type type, int opset)
{
    if (type == CLMAX_TYPE_BFLOAT16) return opset >= 13;
    return ref_type_size(type) != 0;
}

int ref_hardmax_takes_type(clmax_type type, int opset)
{
    switch (type) {
    case CLMAX_TYPE_FLOAT16:
    case CLMAX_TYPE_FLOAT32:
    case CLMAX_TYPE_FLOAT64:
        return 1;
    case CLMAX_TYPE_BFLOAT16:
        return opset >= 13;
    default:
        return 0;
    }
}

clmax_argmax_attrs ref_argmax_defaults(int opset)
{
    clmax_argmax_attrs a;
    memset(&a, 0, sizeof a);
    a.opset = opset;
    a.axis = 0;
    a.keepdims = 1;
    a.select_last_index = 0;
    return a;
}

clmax_hardmax_attrs ref_hardmax_defaults(int opset)
{
    clmax_hardmax_attrs a;
    memset(&a, 0, sizeof a);
    a.opset = opset;
    a.axis = opset >= 13 ? -1 : 1;
    return a;
}

clmax_status ref_count(const clmax_tensor_desc *desc, uint64_t *count)
{
    if (desc->rank < 1 || desc->rank > CLMAX_MAX_RANK) return CLMAX_ERROR_INVALID_RANK;
    int has_zero = 0;
    for (int i = 0; i < desc->rank; i++) {
        if (desc->dims[i] < 0) return CLMAX_ERROR_INVALID_SHAPE;
        if (desc->dims[i] == 0) has_zero = 1;
    }
    if (has_zero) {
        *count = 0;
        return CLMAX_OK;
    }
    uint64_t c = 1;
    for (int i = 0; i < desc->rank; i++) {
        uint64_t d = (uint64_t)desc->dims[i];
        if (c > UINT64_MAX / d) return CLMAX_ERROR_SIZE_OVERFLOW;
        c *= d;
    }
    *count = c;
    return CLMAX_OK;
}

static uint64_t dims_product(const int64_t *dims, int from, int to)
{
    uint64_t p = 1;
    for (int i = from; i < to; i++)
        p *= (uint64_t)dims[i];
    return p;
}

clmax_status ref_argmax_check(const clmax_tensor_desc *input, const clmax_argmax_attrs *attrs,
                              clmax_tensor_desc *output, ref_view *view)
{
    clmax_argmax_attrs a = attrs ? *attrs : ref_argmax_defaults(13);
    uint64_t count;
    if (!input) return CLMAX_ERROR_INVALID_ARGUMENT;
    if (!ref_argmax_opset_valid(a.opset)) return CLMAX_ERROR_UNSUPPORTED_OPSET;
    clmax_status st = ref_count(input, &count);
    if (st != CLMAX_OK) return st;
    if (!ref_argmax_takes_type(input->type, a.opset)) return CLMAX_ERROR_UNSUPPORTED_TYPE;
    if (a.keepdims != 0 && a.keepdims != 1) return CLMAX_ERROR_INVALID_ATTRIBUTE;
    if (a.select_last_index != 0 && a.select_last_index != 1) return CLMAX_ERROR_INVALID_ATTRIBUTE;
    if (a.select_last_index && a.opset < 12) return CLMAX_ERROR_INVALID_ATTRIBUTE;
    int r = input->rank;
    if (a.axis < -r || a.axis > r - 1) return CLMAX_ERROR_INVALID_AXIS;
    int ax = (int)(a.axis < 0 ? a.axis + r : a.axis);

    ref_view v;
    v.outer = dims_product(input->dims, 0, ax);
    v.n = (uint64_t)input->dims[ax];
    v.inner = dims_product(input->dims, ax + 1, r);
    if (v.n == 0 && v.outer * v.inner != 0) return CLMAX_ERROR_EMPTY_AXIS;

    if (output) {
        memset(output, 0, sizeof *output);
        output->type = CLMAX_TYPE_INT64;
        int k = 0;
        for (int i = 0; i < r; i++) {
            if (i == ax) {
                if (a.keepdims) output->dims[k++] = 1;
            } else {
                output->dims[k++] = input->dims[i];
            }
        }
        output->rank = k;
    }
    if (view) *view = v;
    return CLMAX_OK;
}

clmax_status ref_hardmax_check(const clmax_tensor_desc *input, const clmax_hardmax_attrs *attrs,
                               clmax_tensor_desc *output, ref_view *view)
{
    clmax_hardmax_attrs a = attrs ? *attrs : ref_hardmax_defaults(13);
    uint64_t count;
    if (!input) return CLMAX_ERROR_INVALID_ARGUMENT;
    if (!ref_hardmax_opset_valid(a.opset)) return CLMAX_ERROR_UNSUPPORTED_OPSET;
    clmax_status st = ref_count(input, &count);
    if (st != CLMAX_OK) return st;
    if (!ref_hardmax_takes_type(input->type, a.opset)) return CLMAX_ERROR_UNSUPPORTED_TYPE;
    int r = input->rank;
    if (a.axis < -r || a.axis > r - 1) return CLMAX_ERROR_INVALID_AXIS;
    int ax = (int)(a.axis < 0 ? a.axis + r : a.axis);

    ref_view v;
    v.outer = dims_product(input->dims, 0, ax);
    if (a.opset >= 13) {
        v.n = (uint64_t)input->dims[ax];
        v.inner = dims_product(input->dims, ax + 1, r);
    } else {
        v.n = dims_product(input->dims, ax, r);
        v.inner = 1;
    }
    if (output) {
        memset(output, 0, sizeof *output);
        output->type = input->type;
        output->rank = r;
        for (int i = 0; i < r; i++)
            output->dims[i] = input->dims[i];
    }
    if (view) *view = v;
    return CLMAX_OK;
}

double ref_float16_to_double(uint16_t bits)
{
    int sign = bits >> 15;
    int e = (bits >> 10) & 0x1F;
    int m = bits & 0x3FF;
    double v;
    if (e == 0x1F)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -24); /* denormal: m * 2^-24 */
    else
        v = ldexp((double)(m + 1024), e - 25); /* (1 + m/1024) * 2^(e-15) */
    return sign ? -v : v;
}

double ref_bfloat16_to_double(uint16_t bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

static int compare_double(double a, double b)
{
    int na = isnan(a) != 0, nb = isnan(b) != 0;
    if (na || nb) return na - nb; /* NaN beats everything; two NaNs are equal */
    return (a > b) - (a < b);     /* -0 == +0 by value */
}

static double load_float(clmax_type type, const void *x, uint64_t i)
{
    switch (type) {
    case CLMAX_TYPE_FLOAT16: {
        uint16_t b;
        memcpy(&b, (const char *)x + i * 2, 2);
        return ref_float16_to_double(b);
    }
    case CLMAX_TYPE_BFLOAT16: {
        uint16_t b;
        memcpy(&b, (const char *)x + i * 2, 2);
        return ref_bfloat16_to_double(b);
    }
    case CLMAX_TYPE_FLOAT32: {
        float f;
        memcpy(&f, (const char *)x + i * 4, 4);
        return (double)f;
    }
    default: {
        double d;
        memcpy(&d, (const char *)x + i * 8, 8);
        return d;
    }
    }
}

static int64_t load_signed(clmax_type type, const void *x, uint64_t i)
{
    const char *p = x;
    switch (type) {
    case CLMAX_TYPE_INT8: {
        int8_t v;
        memcpy(&v, p + i, 1);
        return v;
    }
    case CLMAX_TYPE_INT16: {
        int16_t v;
        memcpy(&v, p + i * 2, 2);
        return v;
    }
    case CLMAX_TYPE_INT32: {
        int32_t v;
        memcpy(&v, p + i * 4, 4);
        return v;
    }
    default: {
        int64_t v;
        memcpy(&v, p + i * 8, 8);
        return v;
    }
    }
}

static uint64_t load_unsigned(clmax_type type, const void *x, uint64_t i)
{
    const char *p = x;
    switch (type) {
    case CLMAX_TYPE_UINT8: {
        uint8_t v;
        memcpy(&v, p + i, 1);
        return v;
    }
    case CLMAX_TYPE_UINT16: {
        uint16_t v;
        memcpy(&v, p + i * 2, 2);
        return v;
    }
    case CLMAX_TYPE_UINT32: {
        uint32_t v;
        memcpy(&v, p + i * 4, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p + i * 8, 8);
        return v;
    }
    }
}

int ref_compare(clmax_type type, const void *x, uint64_t i, uint64_t j)
{
    if (ref_type_is_signed(type)) {
        int64_t a = load_signed(type, x, i), b = load_signed(type, x, j);
        return (a > b) - (a < b);
    }
    if (ref_type_is_integer(type)) {
        uint64_t a = load_unsigned(type, x, i), b = load_unsigned(type, x, j);
        return (a > b) - (a < b);
    }
    return compare_double(load_float(type, x, i), load_float(type, x, j));
}

static int compare_double_min(double a, double b)
{
    int na = isnan(a) != 0, nb = isnan(b) != 0;
    if (na || nb) return na - nb; /* NaN still beats everything; two NaNs are equal */
    return (a < b) - (a > b);     /* the smaller wins; -0 == +0 by value */
}

int ref_compare_min(clmax_type type, const void *x, uint64_t i, uint64_t j)
{
    if (ref_type_is_signed(type)) {
        int64_t a = load_signed(type, x, i), b = load_signed(type, x, j);
        return (a < b) - (a > b);
    }
    if (ref_type_is_integer(type)) {
        uint64_t a = load_unsigned(type, x, i), b = load_unsigned(type, x, j);
        return (a < b) - (a > b);
    }
    return compare_double_min(load_float(type, x, i), load_float(type, x, j));
}

/* The index along n of the winner of row (o, i) of view v: the maximum, or with min the minimum
 * (NaN winning in both). */
static uint64_t row_winner(clmax_type type, const void *x, ref_view v, uint64_t o, uint64_t i,
                           int last, int min)
{
    uint64_t best = 0;
    for (uint64_t k = 1; k < v.n; k++) {
        uint64_t a = (o * v.n + k) * v.inner + i, b = (o * v.n + best) * v.inner + i;
        int c = min ? ref_compare_min(type, x, a, b) : ref_compare(type, x, a, b);
        if (c > 0 || (c == 0 && last)) best = k;
    }
    return best;
}

static uint64_t row_argmax(clmax_type type, const void *x, ref_view v, uint64_t o, uint64_t i,
                           int last)
{
    return row_winner(type, x, v, o, i, last, 0);
}

clmax_status ref_argmax(const clmax_tensor_desc *input, const void *x,
                        const clmax_argmax_attrs *attrs, int64_t *y)
{
    ref_view v;
    clmax_status st = ref_argmax_check(input, attrs, NULL, &v);
    if (st != CLMAX_OK) return st;
    int last = attrs ? attrs->select_last_index : 0;
    if (v.n == 0) return CLMAX_OK; /* the output is empty */
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++)
            y[o * v.inner + i] = (int64_t)row_argmax(input->type, x, v, o, i, last);
    return CLMAX_OK;
}

clmax_status ref_hardmax(const clmax_tensor_desc *input, const void *x,
                         const clmax_hardmax_attrs *attrs, void *y)
{
    ref_view v;
    clmax_status st = ref_hardmax_check(input, attrs, NULL, &v);
    if (st != CLMAX_OK) return st;
    size_t es = ref_type_size(input->type);
    uint64_t total = v.outer * v.n * v.inner;
    if (total == 0) return CLMAX_OK;
    memset(y, 0, total * es); /* +0 of every float type is all-zero bits */
    unsigned char one[8];
    switch (input->type) {
    case CLMAX_TYPE_FLOAT16: {
        uint16_t b = 0x3C00;
        memcpy(one, &b, 2);
        break;
    }
    case CLMAX_TYPE_BFLOAT16: {
        uint16_t b = 0x3F80;
        memcpy(one, &b, 2);
        break;
    }
    case CLMAX_TYPE_FLOAT32: {
        float f = 1.0f;
        memcpy(one, &f, 4);
        break;
    }
    default: {
        double d = 1.0;
        memcpy(one, &d, 8);
        break;
    }
    }
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++) {
            uint64_t k = row_argmax(input->type, x, v, o, i, 0);
            memcpy((char *)y + ((o * v.n + k) * v.inner + i) * es, one, es);
        }
    return CLMAX_OK;
}

clmax_status ref_argmin(const clmax_tensor_desc *input, const void *x,
                        const clmax_argmax_attrs *attrs, int64_t *y)
{
    ref_view v;
    clmax_status st = ref_argmax_check(input, attrs, NULL, &v);
    if (st != CLMAX_OK) return st;
    int last = attrs ? attrs->select_last_index : 0;
    if (v.n == 0) return CLMAX_OK; /* the output is empty */
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++)
            y[o * v.inner + i] = (int64_t)row_winner(input->type, x, v, o, i, last, 1);
    return CLMAX_OK;
}

clmax_status ref_arg_with_values(const clmax_tensor_desc *input, const void *x,
                                 const clmax_argmax_attrs *attrs, int min, void *values,
                                 int64_t *indices)
{
    ref_view v;
    clmax_status st = ref_argmax_check(input, attrs, NULL, &v);
    if (st != CLMAX_OK) return st;
    int last = attrs ? attrs->select_last_index : 0;
    if (v.n == 0) return CLMAX_OK;
    size_t es = ref_type_size(input->type);
    for (uint64_t o = 0; o < v.outer; o++)
        for (uint64_t i = 0; i < v.inner; i++) {
            uint64_t q = o * v.inner + i;
            uint64_t k = row_winner(input->type, x, v, o, i, last, min);
            indices[q] = (int64_t)k;
            memcpy((char *)values + q * es, (const char *)x + ((o * v.n + k) * v.inner + i) * es,
                   es);
        }
    return CLMAX_OK;
}
