/* The checks of the library's outputs against the scalar reference; see common.h. */
#include "common.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Checks -------------------------------------------------------------------------------- */

#define GUARD_BYTES 64
#define MSG_SIZE 4096

typedef struct msg {
    char text[MSG_SIZE];
    size_t used;
} msg;

static void msg_add(msg *m, const char *fmt, ...)
{
    if (m->used >= MSG_SIZE - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->text + m->used, MSG_SIZE - m->used, fmt, ap);
    va_end(ap);
    if (n > 0) m->used += (size_t)n;
    if (m->used > MSG_SIZE - 1) m->used = MSG_SIZE - 1;
}

static void msg_case(msg *m, const char *op, const char *what, const clmax_tensor_desc *desc)
{
    char shape[256];
    m->used = 0;
    m->text[0] = 0;
    msg_add(m, "%s [%s] on %s: type %s (%d) shape %s", op, what ? what : "", test_context_label(),
            test_type_str(desc->type), (int)desc->type, test_shape_str(desc, shape, sizeof shape));
}

static void msg_argmax_attrs(msg *m, const clmax_argmax_attrs *a)
{
    if (!a)
        msg_add(m, " attrs NULL");
    else
        msg_add(m, " opset %d axis %" PRId64 " keepdims %d select_last_index %d", a->opset, a->axis,
                a->keepdims, a->select_last_index);
}

static void msg_hardmax_attrs(msg *m, const clmax_hardmax_attrs *a)
{
    if (!a)
        msg_add(m, " attrs NULL");
    else
        msg_add(m, " opset %d axis %" PRId64, a->opset, a->axis);
}

/* Bits of x along one row of the view: all of them when short, else around the given indices. */
static void msg_row(msg *m, clmax_type type, const void *x, ref_view v, uint64_t o, uint64_t i,
                    uint64_t k1, uint64_t k2)
{
    msg_add(m, "; row (outer %" PRIu64 ", inner %" PRIu64 ") of n %" PRIu64 ":", o, i, v.n);
    for (uint64_t k = 0; k < v.n; k++) {
        int near = (k + 2 >= k1 && k <= k1 + 2) || (k + 2 >= k2 && k <= k2 + 2);
        if (v.n <= 24 || near)
            msg_add(m, " [%" PRIu64 "]=0x%" PRIx64, k,
                    elem_get(type, x, (o * v.n + k) * v.inner + i));
    }
}

static void check_desc(msg *m, const clmax_tensor_desc *got, const clmax_tensor_desc *want)
{
    int same = got->type == want->type && got->rank == want->rank;
    for (int i = 0; same && i < want->rank; i++)
        same = got->dims[i] == want->dims[i];
    if (!same) {
        char a[256], b[256];
        msg_add(m, ": output_desc type %d rank %d %s, expected type %d rank %d %s", (int)got->type,
                got->rank, got->rank >= 0 ? test_shape_str(got, a, sizeof a) : "?", (int)want->type,
                want->rank, test_shape_str(want, b, sizeof b));
        cr_assert_fail("%s", m->text);
    }
}

static void check_guard(msg *m, const unsigned char *y, size_t bytes)
{
    for (size_t i = 0; i < GUARD_BYTES; i++)
        if (y[bytes + i] != 0xA5) {
            msg_add(m, ": wrote past the end of the output (byte %zu of %zu)", bytes + i, bytes);
            cr_assert_fail("%s", m->text);
        }
}

static void check_intact(msg *m, const void *x, const void *copy, size_t bytes)
{
    if (bytes && memcmp(x, copy, bytes) != 0) {
        msg_add(m, ": the input was modified");
        cr_assert_fail("%s", m->text);
    }
}

/* The four arg-reductions check_arg runs. */
typedef enum arg_op { OP_ARGMAX, OP_ARGMIN, OP_MAX_VALUES, OP_MIN_VALUES } arg_op;

static const char *arg_op_name(arg_op op)
{
    static const char *names[] = {"argmax", "argmin", "max_with_indices", "min_with_indices"};
    return names[op];
}

static clmax_status arg_op_call(arg_op op, clmax_context *ctx, const clmax_tensor_desc *desc,
                                const void *x, const clmax_argmax_attrs *attrs, void *values,
                                int64_t *y)
{
    switch (op) {
    case OP_ARGMAX:
        return clmax_argmax(ctx, desc, x, attrs, y);
    case OP_ARGMIN:
        return clmax_argmin(ctx, desc, x, attrs, y);
    case OP_MAX_VALUES:
        return clmax_max_with_indices(ctx, desc, x, attrs, values, y);
    default:
        return clmax_min_with_indices(ctx, desc, x, attrs, values, y);
    }
}

/* One call of op against the reference: given, when not NULL, is the reference's answer (the
 * indices) already computed. */
static void check_arg(arg_op op, clmax_context *ctx, const char *what,
                      const clmax_tensor_desc *desc, const void *x, const clmax_argmax_attrs *attrs,
                      const int64_t *given)
{
    const char *name = arg_op_name(op);
    int min = op == OP_ARGMIN || op == OP_MIN_VALUES;
    int with_values = op == OP_MAX_VALUES || op == OP_MIN_VALUES;
    msg m;
    msg_case(&m, name, what, desc);
    msg_argmax_attrs(&m, attrs);

    clmax_tensor_desc want, got;
    ref_view v;
    clmax_status rst = ref_argmax_check(desc, attrs, &want, &v);
    memset(&got, 0x5A, sizeof got);
    clmax_status lst = clmax_argmax_output_desc(desc, attrs, &got);
    if (lst != rst) {
        msg_add(&m, ": clmax_argmax_output_desc gave %d (%s), expected %d (%s): %s", (int)lst,
                clmax_status_string(lst), (int)rst, clmax_status_string(rst), clmax_last_error());
        cr_assert_fail("%s", m.text);
    }
    if (rst != CLMAX_OK) {
        int64_t ydummy[8];
        int64_t vdummy[8];
        char xdummy[64] = {0};
        clmax_status st = arg_op_call(op, ctx, desc, x ? x : xdummy, attrs, vdummy, ydummy);
        if (st != rst) {
            msg_add(&m, ": clmax_%s gave %d (%s), expected %d (%s): %s", name, (int)st,
                    clmax_status_string(st), (int)rst, clmax_status_string(rst),
                    clmax_last_error());
            cr_assert_fail("%s", m.text);
        }
        if (clmax_last_error()[0] == 0) {
            msg_add(&m, ": failed with %s but clmax_last_error() is empty",
                    clmax_status_string(st));
            cr_assert_fail("%s", m.text);
        }
        return;
    }
    check_desc(&m, &got, &want);

    size_t es = ref_type_size(desc->type);
    uint64_t in_count = output_count(desc);
    size_t in_bytes = (size_t)in_count * es;
    uint64_t count = output_count(&want);
    size_t bytes = (size_t)count * sizeof(int64_t);
    size_t vbytes = (size_t)count * es;
    unsigned char *y = test_malloc(bytes + GUARD_BYTES);
    unsigned char *vals = test_malloc(vbytes + GUARD_BYTES);
    int64_t *expect = test_malloc(bytes);
    unsigned char *vexpect = test_malloc(vbytes);
    void *copy = test_malloc(in_bytes);
    memset(y, 0xA5, bytes + GUARD_BYTES);
    memset(vals, 0xA5, vbytes + GUARD_BYTES);
    if (in_bytes) memcpy(copy, x, in_bytes);
    if (given != NULL)
        memcpy(expect, given, bytes);
    else if (with_values)
        cr_assert_eq(ref_arg_with_values(desc, x, attrs, min, vexpect, expect), CLMAX_OK);
    else if (min)
        cr_assert_eq(ref_argmin(desc, x, attrs, expect), CLMAX_OK);
    else
        cr_assert_eq(ref_argmax(desc, x, attrs, expect), CLMAX_OK);

    clmax_status st = arg_op_call(op, ctx, desc, x, attrs, vals, (int64_t *)y);
    if (st != CLMAX_OK) {
        msg_add(&m, ": clmax_%s gave %d (%s): %s", name, (int)st, clmax_status_string(st),
                clmax_last_error());
        cr_assert_fail("%s", m.text);
    }
    for (uint64_t e = 0; e < count; e++) {
        int64_t g;
        memcpy(&g, y + e * sizeof g, sizeof g);
        if (g != expect[e]) {
            uint64_t o = e / v.inner, i = e % v.inner;
            msg_add(&m,
                    ": y[%" PRIu64 "] = %" PRId64 ", expected %" PRId64 " (%" PRIu64
                    " output elements)",
                    e, g, expect[e], count);
            msg_row(&m, desc->type, x, v, o, i, (uint64_t)expect[e], (uint64_t)g);
            cr_assert_fail("%s", m.text);
        }
    }
    check_guard(&m, y, bytes);
    if (with_values) {
        for (uint64_t e = 0; e < count; e++) {
            uint64_t g = elem_get(desc->type, vals, e), w = elem_get(desc->type, vexpect, e);
            if (g != w) {
                uint64_t o = e / v.inner, i = e % v.inner;
                msg_add(&m,
                        ": values[%" PRIu64 "] = 0x%" PRIx64 ", expected 0x%" PRIx64
                        " (the bits of element %" PRId64 " along the axis)",
                        e, g, w, expect[e]);
                msg_row(&m, desc->type, x, v, o, i, (uint64_t)expect[e], (uint64_t)expect[e]);
                cr_assert_fail("%s", m.text);
            }
        }
        msg_add(&m, " (values)");
        check_guard(&m, vals, vbytes);
    }
    check_intact(&m, x, copy, in_bytes);
    free(y);
    free(vals);
    free(expect);
    free(vexpect);
    free(copy);
}

void check_argmax(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                  const void *x, const clmax_argmax_attrs *attrs)
{
    check_arg(OP_ARGMAX, ctx, what, desc, x, attrs, NULL);
}

void check_argmin(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                  const void *x, const clmax_argmax_attrs *attrs)
{
    check_arg(OP_ARGMIN, ctx, what, desc, x, attrs, NULL);
}

void check_tie_rules(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                     const void *x, int64_t axis)
{
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = axis;
    /* The reference walks once for the four answers (the CPU path's tests spend most of their
     * time in it). */
    clmax_tensor_desc out;
    int64_t *want[4] = {NULL, NULL, NULL, NULL};
    if (ref_argmax_check(desc, &a, &out, NULL) == CLMAX_OK) {
        size_t bytes = (size_t)output_count(&out) * sizeof(int64_t);
        for (int r = 0; r < 4; r++)
            want[r] = test_malloc(bytes ? bytes : 1);
        cr_assert_eq(ref_arg_tie_rules(desc, x, &a, want), CLMAX_OK);
    }
    for (int sli = 0; sli <= 1; sli++) {
        a.select_last_index = sli;
        check_arg(OP_ARGMAX, ctx, what, desc, x, &a, want[sli]);
        check_arg(OP_ARGMIN, ctx, what, desc, x, &a, want[2 + sli]);
    }
    for (int r = 0; r < 4; r++)
        free(want[r]);
}

void check_with_indices(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                        const void *x, const clmax_argmax_attrs *attrs, int min)
{
    check_arg(min ? OP_MIN_VALUES : OP_MAX_VALUES, ctx, what, desc, x, attrs, NULL);
}

void check_hardmax(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                   const void *x, const clmax_hardmax_attrs *attrs)
{
    check_hardmax_shifted(ctx, what, desc, x, attrs, 0);
}

void check_hardmax_shifted(clmax_context *ctx, const char *what, const clmax_tensor_desc *desc,
                           const void *x, const clmax_hardmax_attrs *attrs, size_t shift)
{
    msg m;
    msg_case(&m, "hardmax", what, desc);
    msg_hardmax_attrs(&m, attrs);
    if (shift) msg_add(&m, ", output %zu bytes into its allocation", shift);

    clmax_tensor_desc want, got;
    ref_view v;
    clmax_status rst = ref_hardmax_check(desc, attrs, &want, &v);
    memset(&got, 0x5A, sizeof got);
    clmax_status lst = clmax_hardmax_output_desc(desc, attrs, &got);
    if (lst != rst) {
        msg_add(&m, ": clmax_hardmax_output_desc gave %d (%s), expected %d (%s): %s", (int)lst,
                clmax_status_string(lst), (int)rst, clmax_status_string(rst), clmax_last_error());
        cr_assert_fail("%s", m.text);
    }
    if (rst != CLMAX_OK) {
        char ydummy[64];
        char xdummy[64] = {0};
        clmax_status st = clmax_hardmax(ctx, desc, x ? x : xdummy, attrs, ydummy);
        if (st != rst) {
            msg_add(&m, ": clmax_hardmax gave %d (%s), expected %d (%s): %s", (int)st,
                    clmax_status_string(st), (int)rst, clmax_status_string(rst),
                    clmax_last_error());
            cr_assert_fail("%s", m.text);
        }
        if (clmax_last_error()[0] == 0) {
            msg_add(&m, ": failed with %s but clmax_last_error() is empty",
                    clmax_status_string(st));
            cr_assert_fail("%s", m.text);
        }
        return;
    }
    check_desc(&m, &got, &want);

    size_t es = ref_type_size(desc->type);
    uint64_t count = output_count(desc);
    size_t bytes = (size_t)count * es;
    unsigned char *base = test_malloc(shift + bytes + GUARD_BYTES), *y = base + shift;
    unsigned char *expect = test_malloc(bytes);
    void *copy = test_malloc(bytes);
    memset(base, 0xA5, shift + bytes + GUARD_BYTES);
    if (bytes) memcpy(copy, x, bytes);
    cr_assert_eq(ref_hardmax(desc, x, attrs, expect), CLMAX_OK);

    clmax_status st = clmax_hardmax(ctx, desc, x, attrs, y);
    if (st != CLMAX_OK) {
        msg_add(&m, ": clmax_hardmax gave %d (%s): %s", (int)st, clmax_status_string(st),
                clmax_last_error());
        cr_assert_fail("%s", m.text);
    }
    if (bytes && memcmp(y, expect, bytes) != 0) {
        uint64_t e = 0;
        while (elem_get(desc->type, y, e) == elem_get(desc->type, expect, e))
            e++;
        uint64_t o = e / (v.n * v.inner), k = (e / v.inner) % v.n, i = e % v.inner;
        uint64_t want_k = 0, got_k = UINT64_MAX;
        for (uint64_t kk = 0; kk < v.n; kk++) {
            uint64_t at = (o * v.n + kk) * v.inner + i;
            if (elem_get(desc->type, expect, at) != 0) want_k = kk;
            if (elem_get(desc->type, y, at) != 0 && got_k == UINT64_MAX) got_k = kk;
        }
        msg_add(&m,
                ": y[%" PRIu64 "] = 0x%" PRIx64 ", expected 0x%" PRIx64 " (view [%" PRIu64
                ",%" PRIu64 ",%" PRIu64 "], position along the axis %" PRIu64
                "; expected the 1 at %" PRIu64 ", first nonzero output at %" PRId64 ")",
                e, elem_get(desc->type, y, e), elem_get(desc->type, expect, e), v.outer, v.n,
                v.inner, k, want_k, got_k == UINT64_MAX ? (int64_t)-1 : (int64_t)got_k);
        msg_row(&m, desc->type, x, v, o, i, want_k, got_k == UINT64_MAX ? want_k : got_k);
        cr_assert_fail("%s", m.text);
    }
    check_guard(&m, y, bytes);
    for (size_t i = 0; i < shift; i++)
        if (base[i] != 0xA5) {
            msg_add(&m, ": wrote before the output (%zu bytes before it)", shift - i);
            cr_assert_fail("%s", m.text);
        }
    check_intact(&m, x, copy, bytes);
    free(base);
    free(expect);
    free(copy);
}
