/*
 * Fuzz harness: the public API's argument checking.
 *
 * The input bytes are decoded into a descriptor (type values valid and not, ranks from -1 to 17
 * and extremes, dims zero, negative, huge, with garbage beyond the rank), ArgMax and Hardmax
 * attributes (opsets, axes, keepdims and select_last_index in and out of range), which pointers
 * are NULL, and how to fill the tensor. Then clmax_tensor_desc_count, the attribute initialisers,
 * clmax_argmax_output_desc / clmax_hardmax_output_desc and clmax_argmax / clmax_hardmax run on a
 * CPU-path context, and the invariants hold: every status is a documented one, with a message
 * when it is a failure; the library agrees with the scalar reference on validity and on the
 * output descriptor; an invalid call writes nothing; a valid one (when the tensor is under
 * FUZZ_MAX_TENSOR_BYTES, sized by the library's own checks, never by an unchecked product) gives
 * the reference's output, indices in [0, n), one-hot Hardmax rows. Inputs are never modified.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct bytes {
    const uint8_t *p;
    size_t n;
} bytes;

static uint8_t u8(bytes *b)
{
    if (b->n == 0) return 0;
    b->n--;
    return *b->p++;
}

static uint64_t u64(bytes *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | u8(b);
    return v;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int pick_type(bytes *b)
{
    static const int values[] = {1,  2,  3, 4,  5,  6,  7,  10,   11,      12,
                                 13, 16, /* the types */
                                 0,  8,  9, 14, 15, 17, -1, 1000, INT_MIN, INT_MAX};
    uint8_t s = u8(b);
    if (s < 0xF0) return values[s % COUNT(values)];
    return (int)(uint32_t)u64(b);
}

static int pick_rank(bytes *b)
{
    static const int values[] = {1, 2,  3,  4, 1,  2,  3,   5,       6,
                                 8, 16, 15, 0, -1, 17, -16, INT_MIN, INT_MAX};
    return values[u8(b) % COUNT(values)];
}

static int64_t pick_dim(bytes *b)
{
    static const int64_t values[] = {16,
                                     31,
                                     100,
                                     257,
                                     4096,
                                     65536,
                                     -1,
                                     -2,
                                     INT64_MIN,
                                     -((int64_t)1 << 40),
                                     INT64_MAX,
                                     (int64_t)1 << 31,
                                     ((int64_t)1 << 32) + 1,
                                     (int64_t)1 << 62,
                                     INT64_MAX / 3,
                                     (int64_t)1 << 21};
    uint8_t s = u8(b);
    if (s < 160) return s % 6;      /* mostly small: shapes that run */
    if (s < 200) return 1 + s % 12; /* a bit longer axes */
    if (s < 250) return values[s % COUNT(values)];
    return (int64_t)u64(b);
}

static int pick_opset(bytes *b)
{
    static const int values[] = {13, 12, 11, 1,  13, 12, 11,      1,
                                 0,  -1, 2,  10, 14, 7,  INT_MAX, INT_MIN};
    return values[u8(b) % COUNT(values)];
}

static int64_t pick_axis(bytes *b, int rank)
{
    static const int64_t values[] = {INT64_MIN, INT64_MAX,        INT32_MIN,
                                     INT32_MAX, (int64_t)1 << 32, -((int64_t)1 << 32)};
    uint8_t s = u8(b);
    int r = rank < 0 ? 0 : (rank > 20 ? 20 : rank);
    if (s < 220) return (int64_t)(s % (2 * r + 3)) - r - 1; /* [-r-1, r+1] */
    if (s < 250) return values[s % COUNT(values)];
    return (int64_t)u64(b);
}

static int pick_flag(bytes *b)
{
    static const int values[] = {0, 1, 0, 1, 0, 1, 0, 1, 2, -1, INT_MAX, INT_MIN};
    return values[u8(b) % COUNT(values)];
}

static void put_element(unsigned char *x, uint64_t i, size_t es, uint64_t bits)
{
    for (size_t k = 0; k < es; k++)
        x[i * es + k] = (unsigned char)(bits >> (8 * k)); /* little-endian bits, as the host */
}

/* Special values of each width: NaNs, infinities, zeros, denormals, extremes, one. */
static uint64_t special(clmax_type t, uint8_t s)
{
    static const uint64_t f16[] = {0x7E00, 0xFE01, 0x7C00, 0xFC00, 0x0000, 0x8000,
                                   0x0001, 0x8001, 0x7BFF, 0xFBFF, 0x3C00, 0x7C01};
    static const uint64_t bf16[] = {0x7FC0, 0xFFC1, 0x7F80, 0xFF80, 0x0000, 0x8000,
                                    0x0001, 0x8001, 0x7F7F, 0xFF7F, 0x3F80, 0x7F81};
    static const uint64_t f32[] = {0x7FC00000, 0xFFC00001, 0x7F800000, 0xFF800000,
                                   0x00000000, 0x80000000, 0x00000001, 0x80000001,
                                   0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0x7F800001};
    static const uint64_t f64[] = {
        0x7FF8000000000000ull, 0xFFF8000000000001ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
        0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x8000000000000001ull,
        0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0x7FF0000000000001ull};
    static const uint64_t ints[] = {0,
                                    1,
                                    0x7F,
                                    0x80,
                                    0xFF,
                                    0x7FFF,
                                    0x8000,
                                    0xFFFF,
                                    0x7FFFFFFF,
                                    0x80000000,
                                    0xFFFFFFFF,
                                    0x7FFFFFFFFFFFFFFFull,
                                    0x8000000000000000ull,
                                    UINT64_MAX};
    switch (t) {
    case CLMAX_TYPE_FLOAT16:
        return f16[s % COUNT(f16)];
    case CLMAX_TYPE_BFLOAT16:
        return bf16[s % COUNT(bf16)];
    case CLMAX_TYPE_FLOAT32:
        return f32[s % COUNT(f32)];
    case CLMAX_TYPE_FLOAT64:
        return f64[s % COUNT(f64)];
    default:
        return ints[s % COUNT(ints)];
    }
}

/* Fills count elements: the rest of the input cycled, one value (every row a tie), a pool of
 * four values (ties everywhere) or special values. */
static void fill(unsigned char *x, uint64_t count, clmax_type t, size_t es, int mode, bytes *b)
{
    uint64_t pool[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4 && (mode == 1 || mode == 2); i++)
        pool[i] = u64(b);
    const uint8_t *rest = b->p;
    size_t n = b->n;
    for (uint64_t i = 0; i < count; i++) {
        switch (mode) {
        case 0:
            for (size_t k = 0; k < es; k++)
                x[i * es + k] = n ? rest[(i * es + k) % n] : 0;
            break;
        case 1:
            put_element(x, i, es, pool[0]);
            break;
        case 2:
            put_element(x, i, es, pool[(n ? rest[i % n] : i) & 3]);
            break;
        default:
            put_element(x, i, es, special(t, (uint8_t)(n ? rest[i % n] + i / n : i)));
            break;
        }
    }
}

/* Field by field: the structs have padding that memcmp would see. */
static int same_argmax_attrs(const clmax_argmax_attrs *a, const clmax_argmax_attrs *b)
{
    return a->opset == b->opset && a->axis == b->axis && a->keepdims == b->keepdims &&
           a->select_last_index == b->select_last_index;
}

static int same_hardmax_attrs(const clmax_hardmax_attrs *a, const clmax_hardmax_attrs *b)
{
    return a->opset == b->opset && a->axis == b->axis;
}

/* Status expected of an operator call with NULL ctx, x or y: the descriptor's own failure comes
 * first only once ctx is there; an empty output needs neither x nor y. */
static void check_null_call(clmax_status st, clmax_status desc_st, int ctx_null, int empty,
                            int xy_null, const char *what)
{
    clmax_status want;
    if (ctx_null)
        want = CLMAX_ERROR_INVALID_ARGUMENT;
    else if (desc_st != CLMAX_OK)
        want = desc_st;
    else if (empty)
        want = CLMAX_OK;
    else
        want = xy_null ? CLMAX_ERROR_INVALID_ARGUMENT : CLMAX_OK;
    if (st != want)
        fuzz_fail("%s with ctx%s, x or y%s NULL: status %d, expected %d", what,
                  ctx_null ? "" : " not", xy_null ? "" : " not", (int)st, (int)want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bytes b = {data, size};
    char buf[512];

    fuzz_init("api");
    fuzz_counters.inputs++;

    /* ---- Decode ---- */
    uint8_t nulls = u8(&b);  /* which pointers are NULL, 2 bits each: NULL when both set */
    uint8_t nulls2 = u8(&b); /* attrs of both ops, output descriptor, count */
    uint8_t misc = u8(&b);   /* context, fill mode, whether attributes keep their defaults */
    clmax_tensor_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.type = (clmax_type)pick_type(&b);
    desc.rank = pick_rank(&b);
    int given = desc.rank < 0 ? 0 : (desc.rank > CLMAX_MAX_RANK ? CLMAX_MAX_RANK : desc.rank);
    for (int k = 0; k < given; k++)
        desc.dims[k] = pick_dim(&b);
    /* Entries beyond the rank are ignored: make them garbage, and check that they are. */
    for (int k = given; k < CLMAX_MAX_RANK; k++)
        desc.dims[k] = (misc & 0x80) ? -1 - k : INT64_MAX - k;

    clmax_argmax_attrs aa;
    int aopset = pick_opset(&b);
    clmax_status st = clmax_argmax_attrs_init(&aa, aopset);
    fuzz_check_status(st, "clmax_argmax_attrs_init");
    clmax_argmax_attrs adef = ref_argmax_defaults(ref_argmax_opset_valid(aopset) ? aopset : 13);
    if ((st == CLMAX_OK) != ref_argmax_opset_valid(aopset) || !same_argmax_attrs(&aa, &adef))
        fuzz_fail("clmax_argmax_attrs_init(opset %d): status %d or defaults differ", aopset,
                  (int)st);
    if (!(misc & 0x01)) aa.opset = pick_opset(&b);
    if (!(misc & 0x02)) aa.axis = pick_axis(&b, desc.rank);
    if (!(misc & 0x04)) aa.keepdims = pick_flag(&b);
    if (!(misc & 0x08)) aa.select_last_index = pick_flag(&b);

    clmax_hardmax_attrs ha;
    int hopset = pick_opset(&b);
    st = clmax_hardmax_attrs_init(&ha, hopset);
    fuzz_check_status(st, "clmax_hardmax_attrs_init");
    clmax_hardmax_attrs hdef = ref_hardmax_defaults(ref_hardmax_opset_valid(hopset) ? hopset : 13);
    if ((st == CLMAX_OK) != ref_hardmax_opset_valid(hopset) || !same_hardmax_attrs(&ha, &hdef))
        fuzz_fail("clmax_hardmax_attrs_init(opset %d): status %d or defaults differ", hopset,
                  (int)st);
    if (!(misc & 0x10)) ha.opset = pick_opset(&b);
    if (!(misc & 0x20)) ha.axis = pick_axis(&b, desc.rank);

    int ctx_null = (nulls & 3) == 3;
    int desc_null = (nulls >> 2 & 3) == 3;
    int x_null = (nulls >> 4 & 3) == 3;
    int y_null = (nulls >> 6 & 3) == 3;
    int aattrs_null = (nulls2 & 3) == 3;
    int hattrs_null = (nulls2 >> 2 & 3) == 3;
    int out_null = (nulls2 >> 4 & 3) == 3;
    int count_null = (nulls2 >> 6 & 3) == 3;
    int fill_mode = misc >> 6 & 3;
    clmax_context *ctx = fuzz_cpu_context(misc & 0x40);

    const clmax_tensor_desc *dp = desc_null ? NULL : &desc;
    const clmax_argmax_attrs *ap = aattrs_null ? NULL : &aa;
    const clmax_hardmax_attrs *hp = hattrs_null ? NULL : &ha;
    const clmax_tensor_desc desc_copy = desc;
    const clmax_argmax_attrs aa_copy = aa;
    const clmax_hardmax_attrs ha_copy = ha;

    /* ---- Types ---- */
    size_t es = clmax_type_size(desc.type);
    if (es != ref_type_size(desc.type) || clmax_type_name(desc.type) == NULL)
        fuzz_fail("type %d: size %zu (reference %zu) or name NULL", (int)desc.type, es,
                  ref_type_size(desc.type));

    /* ---- Count ---- */
    uint64_t count = 0, ref_count_value = 0;
    st = clmax_tensor_desc_count(dp, count_null ? NULL : &count);
    fuzz_check_status(st, "clmax_tensor_desc_count");
    if (desc_null || count_null) {
        if (st != CLMAX_ERROR_INVALID_ARGUMENT)
            fuzz_fail("clmax_tensor_desc_count with a NULL pointer: status %d", (int)st);
    } else {
        clmax_status rst = ref_count(&desc, &ref_count_value);
        fuzz_agree(st, rst, &desc, "clmax_tensor_desc_count");
        if (st == CLMAX_OK && count != ref_count_value)
            fuzz_fail("clmax_tensor_desc_count of %s: %llu, the reference %llu",
                      fuzz_desc_str(&desc, buf, sizeof buf), (unsigned long long)count,
                      (unsigned long long)ref_count_value);
    }
    if (st == CLMAX_OK)
        fuzz_counters.accepted++;
    else
        fuzz_counters.refused++;

    /* ---- The tensor, only when the library says it is small ---- */
    uint64_t valid_count = 0;
    int have_count = !desc_null && clmax_tensor_desc_count(&desc, &valid_count) == CLMAX_OK;
    size_t x_bytes = 16; /* a dummy, for calls that must not read it */
    int real = have_count && es != 0 && valid_count <= FUZZ_MAX_TENSOR_BYTES / es;
    if (real) x_bytes = (size_t)valid_count * es;
    unsigned char *x = malloc(x_bytes ? x_bytes : 1);
    if (x == NULL) fuzz_fail("out of memory");
    if (real)
        fill(x, valid_count, desc.type, es, fill_mode, &b);
    else
        memset(x, 0x3C, x_bytes);
    unsigned char *x_copy = malloc(x_bytes ? x_bytes : 1);
    if (x_copy == NULL) fuzz_fail("out of memory");
    memcpy(x_copy, x, x_bytes);

    /* ---- ArgMax ---- */
    clmax_tensor_desc out;
    st = clmax_argmax_output_desc(dp, ap, out_null ? NULL : &out);
    fuzz_check_status(st, "clmax_argmax_output_desc");
    if ((out_null || desc_null) && st != CLMAX_ERROR_INVALID_ARGUMENT)
        fuzz_fail("clmax_argmax_output_desc with a NULL pointer: status %d", (int)st);
    if (!desc_null) {
        /* The full check: reference, refusal, run (when small), invariants. */
        clmax_status full = fuzz_run_argmax(ctx, &desc, x, x_bytes, ap);
        if (fuzz_run_argmin(ctx, &desc, x, x_bytes, ap) != full)
            fuzz_fail("ArgMin and ArgMax disagree on validity");
        /* Entries beyond the rank do not matter. */
        clmax_tensor_desc clean = desc, o1, o2;
        for (int k = given; k < CLMAX_MAX_RANK; k++)
            clean.dims[k] = 0;
        clmax_status s1 = clmax_argmax_output_desc(&desc, ap, &o1);
        clmax_status s2 = clmax_argmax_output_desc(&clean, ap, &o2);
        if (s1 != s2 || s1 != full ||
            (s1 == CLMAX_OK && (o1.rank != o2.rank || o1.type != o2.type ||
                                memcmp(o1.dims, o2.dims, sizeof(int64_t) * (size_t)o1.rank))))
            fuzz_fail("ArgMax output_desc depends on dims beyond the rank (%d vs %d) for %s",
                      (int)s1, (int)s2, fuzz_desc_str(&desc, buf, sizeof buf));
        /* NULL context, x or y. */
        if (ctx_null || x_null || y_null) {
            int64_t y[2] = {-7, -7};
            uint64_t outer_inner = 0;
            if (full == CLMAX_OK) outer_inner = fuzz_desc_elements(&o1);
            st = clmax_argmax(ctx_null ? NULL : ctx, &desc, x_null ? NULL : x, ap,
                              y_null ? NULL : (full == CLMAX_OK && outer_inner > 2 ? NULL : y));
            fuzz_check_status(st, "clmax_argmax");
            /* A non-NULL y stands in only for an output of at most 2 indices. */
            int y_absent = y_null || (full == CLMAX_OK && outer_inner > 2);
            check_null_call(st, full, ctx_null, outer_inner == 0, x_null || y_absent,
                            "clmax_argmax");
        }
    } else {
        int64_t y[2];
        st = clmax_argmax(ctx_null ? NULL : ctx, NULL, x, ap, y);
        fuzz_check_status(st, "clmax_argmax");
        if (st != CLMAX_ERROR_INVALID_ARGUMENT)
            fuzz_fail("clmax_argmax with a NULL descriptor: status %d", (int)st);
    }

    /* ---- Hardmax ---- */
    st = clmax_hardmax_output_desc(dp, hp, out_null ? NULL : &out);
    fuzz_check_status(st, "clmax_hardmax_output_desc");
    if ((out_null || desc_null) && st != CLMAX_ERROR_INVALID_ARGUMENT)
        fuzz_fail("clmax_hardmax_output_desc with a NULL pointer: status %d", (int)st);
    if (!desc_null) {
        clmax_status full = fuzz_run_hardmax(ctx, &desc, x, x_bytes, hp);
        if (ctx_null || x_null || y_null) {
            /* Only x's buffer is big enough to stand in for y, and x must stay intact: use a
             * copy of it. */
            unsigned char *y = malloc(x_bytes ? x_bytes : 1);
            if (y == NULL) fuzz_fail("out of memory");
            uint64_t n = full == CLMAX_OK ? fuzz_desc_elements(&desc) : 1;
            int fits = full != CLMAX_OK || n * es <= x_bytes;
            st = clmax_hardmax(ctx_null ? NULL : ctx, &desc, x_null ? NULL : x, hp,
                               y_null || !fits ? NULL : y);
            fuzz_check_status(st, "clmax_hardmax");
            check_null_call(st, full, ctx_null, full == CLMAX_OK && n == 0,
                            x_null || y_null || !fits, "clmax_hardmax");
            free(y);
        }
    } else {
        uint64_t y[2];
        st = clmax_hardmax(ctx_null ? NULL : ctx, NULL, x, hp, y);
        fuzz_check_status(st, "clmax_hardmax");
        if (st != CLMAX_ERROR_INVALID_ARGUMENT)
            fuzz_fail("clmax_hardmax with a NULL descriptor: status %d", (int)st);
    }

    /* ---- Nothing the library was given changed ---- */
    if (memcmp(&desc, &desc_copy, sizeof desc) != 0 || !same_argmax_attrs(&aa, &aa_copy) ||
        !same_hardmax_attrs(&ha, &ha_copy) || memcmp(x, x_copy, x_bytes) != 0)
        fuzz_fail("the library modified its input (descriptor, attributes or tensor)");
    free(x);
    free(x_copy);
    return 0;
}
