/*
 * The scalar reference: plain loops over [outer, n, inner], values decoded to double (exact for
 * every float type) or compared in their own integer C types. See reference.h.
 */
#include "reference.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
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
        v = (double)m * 0x1p-24; /* denormal: m * 2^-24 */
    else                         /* (1 + m/1024) * 2^(e-15); every product exact in a double */
        v = (double)(m + 1024) * (double)(1u << e) * 0x1p-25;
    return sign ? -v : v;
}

double ref_bfloat16_to_double(uint16_t bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

/* Every float16's value, from ref_float16_to_double: the walks below decode billions. */
static double g_f16[65536];
static pthread_once_t g_f16_once = PTHREAD_ONCE_INIT;

static void f16_table_fill(void)
{
    for (uint32_t b = 0; b < 65536; b++)
        g_f16[b] = ref_float16_to_double((uint16_t)b);
}

static double load_float(clmax_type type, const void *x, uint64_t i)
{
    switch (type) {
    case CLMAX_TYPE_FLOAT16: {
        uint16_t b;
        memcpy(&b, (const char *)x + i * 2, 2);
        return g_f16[b]; /* filled by slice_winners and ref_compare* before any load */
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

/* One element as the reference compares it: an integer exactly, a float as a double. */
typedef union ref_scalar {
    int64_t s;
    uint64_t u;
    double d;
} ref_scalar;
/* lanes_alloc counts 8-byte words, and ref_arg_tie_rules keeps its held scalars in them. */
_Static_assert(sizeof(ref_scalar) == sizeof(uint64_t), "ref_scalar is one 8-byte word");

static ref_scalar load_scalar(clmax_type type, const void *x, uint64_t i)
{
    ref_scalar r;
    if (ref_type_is_signed(type))
        r.s = load_signed(type, x, i);
    else if (ref_type_is_integer(type))
        r.u = load_unsigned(type, x, i);
    else
        r.d = load_float(type, x, i);
    return r;
}

/* 1 when a beats b, -1 when b beats a, 0 on a tie: the larger wins, or with min the smaller; a
 * NaN beats everything but another NaN in both orders; -0 == +0 by value. */
static int compare_scalar(clmax_type type, ref_scalar a, ref_scalar b, int min)
{
    int c;
    if (ref_type_is_signed(type)) {
        c = (a.s > b.s) - (a.s < b.s);
    } else if (ref_type_is_integer(type)) {
        c = (a.u > b.u) - (a.u < b.u);
    } else {
        int na = isnan(a.d) != 0, nb = isnan(b.d) != 0;
        if (na || nb) return na - nb;
        c = (a.d > b.d) - (a.d < b.d);
    }
    return min ? -c : c;
}

int ref_compare(clmax_type type, const void *x, uint64_t i, uint64_t j)
{
    pthread_once(&g_f16_once, f16_table_fill);
    return compare_scalar(type, load_scalar(type, x, i), load_scalar(type, x, j), 0);
}

int ref_compare_min(clmax_type type, const void *x, uint64_t i, uint64_t j)
{
    pthread_once(&g_f16_once, f16_table_fill);
    return compare_scalar(type, load_scalar(type, x, i), load_scalar(type, x, j), 1);
}

/* The index along n of the winner of every lane of slice o of view v into best[0, v.inner): the
 * maximum, or with min the minimum (NaN winning in both); best from lanes_alloc. Walks the slice in
 * memory order, each lane keeping its winner so far; the result is the one of a walk down each lane
 * alone. */
static inline void walk_slice(clmax_type type, const void *x, ref_view v, uint64_t o, int last,
                              int min, uint64_t *best)
{
    ref_scalar *held = (ref_scalar *)(best + v.inner);
    for (uint64_t i = 0; i < v.inner; i++) {
        best[i] = 0;
        held[i] = load_scalar(type, x, o * v.n * v.inner + i);
    }
    for (uint64_t k = 1; k < v.n; k++)
        for (uint64_t i = 0; i < v.inner; i++) {
            ref_scalar e = load_scalar(type, x, (o * v.n + k) * v.inner + i);
            int c = compare_scalar(type, e, held[i], min);
            if (c > 0 || (c == 0 && last)) best[i] = k, held[i] = e;
        }
}

/* The four winners of every lane of slice o at once, as walk_slice gives them for max and min, each
 * with both tie rules: w[0..3][i] = first max, last max, first min, last min. A tie leaves the
 * held value's comparisons unchanged (-0 == +0, NaN == NaN), so one held value serves both
 * rules. */
static inline void walk_slice4(clmax_type type, const void *x, ref_view v, uint64_t o,
                               uint64_t *const w[4], ref_scalar *held)
{
    ref_scalar *hmax = held, *hmin = held + v.inner;
    for (uint64_t i = 0; i < v.inner; i++) {
        w[0][i] = w[1][i] = w[2][i] = w[3][i] = 0;
        hmax[i] = hmin[i] = load_scalar(type, x, o * v.n * v.inner + i);
    }
    for (uint64_t k = 1; k < v.n; k++)
        for (uint64_t i = 0; i < v.inner; i++) {
            ref_scalar e = load_scalar(type, x, (o * v.n + k) * v.inner + i);
            int c = compare_scalar(type, e, hmax[i], 0);
            if (c > 0) w[0][i] = w[1][i] = k, hmax[i] = e;
            if (c == 0) w[1][i] = k;
            c = compare_scalar(type, e, hmin[i], 1);
            if (c > 0) w[2][i] = w[3][i] = k, hmin[i] = e;
            if (c == 0) w[3][i] = k;
        }
}

/* WALK(t) for every element type: the walks' switches, so that each walk is compiled with its type
 * a constant. */
#define EACH_TYPE(WALK)                                                                            \
    WALK(CLMAX_TYPE_FLOAT16)                                                                       \
    WALK(CLMAX_TYPE_BFLOAT16)                                                                      \
    WALK(CLMAX_TYPE_FLOAT32)                                                                       \
    WALK(CLMAX_TYPE_FLOAT64)                                                                       \
    WALK(CLMAX_TYPE_INT8)                                                                          \
    WALK(CLMAX_TYPE_INT16)                                                                         \
    WALK(CLMAX_TYPE_INT32)                                                                         \
    WALK(CLMAX_TYPE_INT64)                                                                         \
    WALK(CLMAX_TYPE_UINT8)                                                                         \
    WALK(CLMAX_TYPE_UINT16)                                                                        \
    WALK(CLMAX_TYPE_UINT32)                                                                        \
    WALK(CLMAX_TYPE_UINT64)

/* walk_slice with the type a constant in each call, so that the compiler drops the per-element
 * switches on it (the suites' references walk billions of elements). */
static void slice_winners(clmax_type type, const void *x, ref_view v, uint64_t o, int last, int min,
                          uint64_t *best)
{
    pthread_once(&g_f16_once, f16_table_fill);
    switch (type) {
#define WALK(t)                                                                                    \
    case t:                                                                                        \
        walk_slice(t, x, v, o, last, min, best);                                                   \
        return;
        EACH_TYPE(WALK)
#undef WALK
    default:
        walk_slice(type, x, v, o, last, min, best);
    }
}

/* slice_winners for walk_slice4. */
static void slice_winners4(clmax_type type, const void *x, ref_view v, uint64_t o,
                           uint64_t *const w[4], ref_scalar *held)
{
    pthread_once(&g_f16_once, f16_table_fill);
    switch (type) {
#define WALK(t)                                                                                    \
    case t:                                                                                        \
        walk_slice4(t, x, v, o, w, held);                                                          \
        return;
        EACH_TYPE(WALK)
#undef WALK
    default:
        walk_slice4(type, x, v, o, w, held);
    }
}

/* Scratch of words 8-byte words a lane: slice_winners takes 2 (v.inner indices, then v.inner
 * values), slice_winners4 6 (four rows of indices, then the maxima and minima held). */
static uint64_t *lanes_alloc(ref_view v, size_t words)
{
    uint64_t *best = malloc((v.inner ? v.inner : 1) * words * sizeof *best);
    if (best == NULL) abort();
    return best;
}

clmax_status ref_argmax(const clmax_tensor_desc *input, const void *x,
                        const clmax_argmax_attrs *attrs, int64_t *y)
{
    ref_view v;
    clmax_status st = ref_argmax_check(input, attrs, NULL, &v);
    if (st != CLMAX_OK) return st;
    int last = attrs ? attrs->select_last_index : 0;
    if (v.n == 0) return CLMAX_OK; /* the output is empty */
    uint64_t *best = lanes_alloc(v, 2);
    for (uint64_t o = 0; o < v.outer; o++) {
        slice_winners(input->type, x, v, o, last, 0, best);
        for (uint64_t i = 0; i < v.inner; i++)
            y[o * v.inner + i] = (int64_t)best[i];
    }
    free(best);
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
    uint64_t *best = lanes_alloc(v, 2);
    for (uint64_t o = 0; o < v.outer; o++) {
        slice_winners(input->type, x, v, o, 0, 0, best);
        for (uint64_t i = 0; i < v.inner; i++)
            memcpy((char *)y + ((o * v.n + best[i]) * v.inner + i) * es, one, es);
    }
    free(best);
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
    uint64_t *best = lanes_alloc(v, 2);
    for (uint64_t o = 0; o < v.outer; o++) {
        slice_winners(input->type, x, v, o, last, 1, best);
        for (uint64_t i = 0; i < v.inner; i++)
            y[o * v.inner + i] = (int64_t)best[i];
    }
    free(best);
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
    uint64_t *best = lanes_alloc(v, 2);
    for (uint64_t o = 0; o < v.outer; o++) {
        slice_winners(input->type, x, v, o, last, min, best);
        for (uint64_t i = 0; i < v.inner; i++) {
            uint64_t q = o * v.inner + i, k = best[i];
            indices[q] = (int64_t)k;
            memcpy((char *)values + q * es, (const char *)x + ((o * v.n + k) * v.inner + i) * es,
                   es);
        }
    }
    free(best);
    return CLMAX_OK;
}

clmax_status ref_arg_tie_rules(const clmax_tensor_desc *input, const void *x,
                               const clmax_argmax_attrs *attrs, int64_t *const y[4])
{
    ref_view v;
    clmax_status st = ref_argmax_check(input, attrs, NULL, &v);
    if (st != CLMAX_OK) return st;
    if (v.n == 0) return CLMAX_OK; /* the outputs are empty */
    uint64_t *best = lanes_alloc(v, 6), lanes = v.inner;
    uint64_t *const w[4] = {best, best + lanes, best + 2 * lanes, best + 3 * lanes};
    for (uint64_t o = 0; o < v.outer; o++) {
        slice_winners4(input->type, x, v, o, w, (ref_scalar *)(best + 4 * lanes));
        for (int r = 0; r < 4; r++)
            for (uint64_t i = 0; i < v.inner; i++)
                y[r][o * v.inner + i] = (int64_t)w[r][i];
    }
    free(best);
    return CLMAX_OK;
}
