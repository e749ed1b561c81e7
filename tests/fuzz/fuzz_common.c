/* Shared by the fuzz harnesses; see fuzz_common.h. */
#include "fuzz_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

fuzz_stats fuzz_counters;

static clmax_context *contexts[2];
static int initialised;

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fprintf(stderr, "\nfuzz: INVARIANT BROKEN (%s harness): ",
            fuzz_counters.harness ? fuzz_counters.harness : "?");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nfuzz: clmax_last_error(): \"%s\"\n", clmax_last_error());
    fflush(stderr);
    abort();
}

static void at_exit(void)
{
    const fuzz_stats *s = &fuzz_counters;

    /* Before LeakSanitizer's own exit check (registered earlier, so it runs later). */
    for (int i = 0; i < 2; i++) {
        clmax_context_destroy(contexts[i]);
        contexts[i] = NULL;
    }
    fprintf(stderr,
            "fuzz-stats: harness=%s inputs=%llu refused=%llu accepted=%llu calls=%llu "
            "call_errors=%llu ops_run=%llu too_large=%llu\n",
            s->harness, (unsigned long long)s->inputs, (unsigned long long)s->refused,
            (unsigned long long)s->accepted, (unsigned long long)s->calls,
            (unsigned long long)s->call_errors, (unsigned long long)s->ops_run,
            (unsigned long long)s->too_large);
}

void fuzz_init(const char *harness)
{
    if (initialised) return;
    initialised = 1;
    fuzz_counters.harness = harness;
    atexit(at_exit);
}

clmax_context *fuzz_cpu_context(int split)
{
    int i = split ? 1 : 0;

    if (contexts[i] == NULL) {
        clmax_context_options o;
        clmax_context_options_init(&o);
        o.backend = CLMAX_BACKEND_CPU;
        o.ignore_environment = 1;
        o.num_threads = 2;
        o.strategy = split ? CLMAX_STRATEGY_SPLIT : CLMAX_STRATEGY_AUTO;
        clmax_status st = clmax_context_create(&o, &contexts[i]);
        if (st != CLMAX_OK) fuzz_fail("CPU context creation failed: status %d", (int)st);
        if (clmax_context_backend(contexts[i]) != CLMAX_BACKEND_CPU)
            fuzz_fail("a CPU context reports backend %d", (int)clmax_context_backend(contexts[i]));
    }
    return contexts[i];
}

void fuzz_check_status(clmax_status st, const char *what)
{
    const char *msg = clmax_last_error();

    fuzz_counters.calls++;
    if ((int)st < (int)CLMAX_OK || (int)st > (int)CLMAX_ERROR_INDEX_OVERFLOW)
        fuzz_fail("%s returned %d, not a clmax_status", what, (int)st);
    if (msg == NULL) fuzz_fail("%s: clmax_last_error() is NULL", what);
    if (clmax_status_string(st) == NULL) fuzz_fail("clmax_status_string(%d) is NULL", (int)st);
    if (st == CLMAX_OK) return;
    fuzz_counters.call_errors++;
    if (msg[0] == '\0') fuzz_fail("%s failed with status %d but left no message", what, (int)st);
    /* Host-memory calls on a CPU-path context have no OpenCL to fail, and no bug to report. */
    if (st == CLMAX_ERROR_NO_DEVICE || st == CLMAX_ERROR_OPENCL || st == CLMAX_ERROR_BUILD ||
        st == CLMAX_ERROR_INTERNAL || st == CLMAX_ERROR_INDEX_OVERFLOW)
        fuzz_fail("%s returned %s (%d)", what, clmax_status_string(st), (int)st);
}

uint64_t fuzz_desc_elements(const clmax_tensor_desc *d)
{
    uint64_t n = 1;

    if (d->rank < 0 || d->rank > CLMAX_MAX_RANK) return UINT64_MAX;
    for (int k = 0; k < d->rank; k++) {
        if (d->dims[k] < 0) return UINT64_MAX;
        if (d->dims[k] == 0) return 0;
    }
    for (int k = 0; k < d->rank; k++) {
        if ((uint64_t)d->dims[k] > UINT64_MAX / n) return UINT64_MAX;
        n *= (uint64_t)d->dims[k];
    }
    return n;
}

const char *fuzz_desc_str(const clmax_tensor_desc *d, char *buf, size_t size)
{
    size_t at;

    if (d == NULL) {
        snprintf(buf, size, "(null)");
        return buf;
    }
    snprintf(buf, size, "%s(%d)[", clmax_type_name(d->type), (int)d->type);
    at = strlen(buf);
    for (int k = 0; k < d->rank && k < CLMAX_MAX_RANK && at < size; k++) {
        snprintf(buf + at, size - at, "%s%lld", k ? "," : "", (long long)d->dims[k]);
        at = strlen(buf);
    }
    if (at < size) snprintf(buf + at, size - at, "] rank %d", d->rank);
    return buf;
}

/* Whether the library may call the shape too large although the reference (which counts only
 * elements, up to 2^64) takes it: the product of the non-zero dims beyond INT64_MAX, or a size in
 * bytes beyond SIZE_MAX / 2 (the library's documented "size in bytes" overflow). */
static int library_may_call_overflow(const clmax_tensor_desc *d)
{
    uint64_t p = 1;
    size_t es = clmax_type_size(d->type);

    for (int k = 0; k < d->rank && k < CLMAX_MAX_RANK; k++) {
        uint64_t v = d->dims[k] > 0 ? (uint64_t)d->dims[k] : 1;
        if (p > (uint64_t)INT64_MAX / v) return 1;
        p *= v;
    }
    return es != 0 && p > (uint64_t)(SIZE_MAX / 2) / es;
}

void fuzz_agree(clmax_status lib, clmax_status ref, const clmax_tensor_desc *d, const char *what)
{
    char buf[512];

    if ((lib == CLMAX_OK) == (ref == CLMAX_OK)) return;
    if (lib == CLMAX_ERROR_SIZE_OVERFLOW && ref == CLMAX_OK && d != NULL &&
        library_may_call_overflow(d))
        return;
    fuzz_fail("%s: the library says %s (%d), the reference %s (%d), for %s", what,
              clmax_status_string(lib), (int)lib, clmax_status_string(ref), (int)ref,
              fuzz_desc_str(d, buf, sizeof buf));
}

static void same_desc(const clmax_tensor_desc *got, const clmax_tensor_desc *want, const char *what)
{
    char a[512], b[512];
    int same = got->type == want->type && got->rank == want->rank && got->rank >= 0 &&
               got->rank <= CLMAX_MAX_RANK;

    for (int k = 0; same && k < got->rank; k++)
        same = got->dims[k] == want->dims[k];
    if (!same)
        fuzz_fail("%s: output descriptor %s, expected %s", what, fuzz_desc_str(got, a, sizeof a),
                  fuzz_desc_str(want, b, sizeof b));
}

/* Bytes of a valid input descriptor, or 0 when it is not to be run: too large for the bounds,
 * or more than the caller's buffer holds. */
static uint64_t runnable_bytes(const clmax_tensor_desc *desc, size_t x_bytes)
{
    uint64_t count = fuzz_desc_elements(desc);
    size_t es = clmax_type_size(desc->type);

    if (count == UINT64_MAX || es == 0) return 0;
    if (count > FUZZ_MAX_ELEMENTS || count * es > FUZZ_MAX_TENSOR_BYTES || count * es > x_bytes)
        return 0;
    return count * es + 1; /* +1: an empty tensor is runnable too */
}

clmax_status fuzz_run_argmax(clmax_context *ctx, const clmax_tensor_desc *desc, const void *x,
                             size_t x_bytes, const clmax_argmax_attrs *attrs)
{
    clmax_tensor_desc out, want;
    ref_view v;
    char buf[512];

    memset(&out, 0xA5, sizeof out);
    clmax_status st = clmax_argmax_output_desc(desc, attrs, &out);
    fuzz_check_status(st, "clmax_argmax_output_desc");
    clmax_status rst = ref_argmax_check(desc, attrs, &want, &v);
    fuzz_agree(st, rst, desc, "clmax_argmax_output_desc");
    if (st != CLMAX_OK) {
        /* The operator refuses the same way, and reads nothing: x may be a tiny dummy. */
        int64_t y[2] = {-7, -7};
        clmax_status st2 = clmax_argmax(ctx, desc, x, attrs, y);
        fuzz_check_status(st2, "clmax_argmax");
        if (st2 != st || y[0] != -7 || y[1] != -7)
            fuzz_fail("clmax_argmax returned %d (output_desc: %d) or wrote its output, for %s",
                      (int)st2, (int)st, fuzz_desc_str(desc, buf, sizeof buf));
        return st;
    }
    same_desc(&out, &want, "clmax_argmax_output_desc");
    int keep = attrs ? attrs->keepdims : 1;
    if (out.type != CLMAX_TYPE_INT64 || out.rank != desc->rank - (keep ? 0 : 1))
        fuzz_fail("ArgMax output %s for input %s", fuzz_desc_str(&out, buf, sizeof buf),
                  fuzz_desc_str(desc, buf + 256, 256));
    if (runnable_bytes(desc, x_bytes) == 0) {
        fuzz_counters.too_large++;
        return st;
    }
    uint64_t n_out = fuzz_desc_elements(&out);
    if (n_out != v.outer * v.inner)
        fuzz_fail("ArgMax output holds %llu elements, the view %llu x %llu",
                  (unsigned long long)n_out, (unsigned long long)v.outer,
                  (unsigned long long)v.inner);
    /* Exactly the size the descriptor says, so AddressSanitizer sees any write beyond it. */
    int64_t *y = malloc(n_out ? n_out * sizeof *y : 1);
    int64_t *yref = malloc(n_out ? n_out * sizeof *yref : 1);
    if (y == NULL || yref == NULL)
        fuzz_fail("out of memory for %llu outputs", (unsigned long long)n_out);
    for (uint64_t i = 0; i < n_out; i++)
        y[i] = yref[i] = -1;
    st = clmax_argmax(ctx, desc, x, attrs, y);
    fuzz_check_status(st, "clmax_argmax");
    if (st != CLMAX_OK)
        fuzz_fail("clmax_argmax failed (%d) where its output_desc succeeded, for %s", (int)st,
                  fuzz_desc_str(desc, buf, sizeof buf));
    /* An empty output has nothing to compare; the reference would still walk outer x inner,
     * which can be astronomically long when one of them is 0 and the other huge. */
    rst = n_out == 0 ? CLMAX_OK : ref_argmax(desc, x, attrs, yref);
    if (rst != CLMAX_OK) fuzz_fail("the reference refused a valid ArgMax (%d)", (int)rst);
    for (uint64_t i = 0; i < n_out; i++) {
        if (y[i] < 0 || (uint64_t)y[i] >= v.n || y[i] != yref[i])
            fuzz_fail("ArgMax of %s (opset %d axis %lld keepdims %d last %d): output %llu is "
                      "%lld, the reference says %lld (n = %llu)",
                      fuzz_desc_str(desc, buf, sizeof buf), attrs ? attrs->opset : 13,
                      attrs ? (long long)attrs->axis : 0LL, keep,
                      attrs ? attrs->select_last_index : 0, (unsigned long long)i, (long long)y[i],
                      (long long)yref[i], (unsigned long long)v.n);
    }
    free(y);
    free(yref);
    fuzz_counters.ops_run++;
    return st;
}

/* Whether element i is a NaN (float types), from its bits. */
static int is_nan(clmax_type t, const void *x, uint64_t i)
{
    uint16_t h;
    uint32_t f;
    uint64_t d;

    switch (t) {
    case CLMAX_TYPE_FLOAT16:
        memcpy(&h, (const char *)x + i * 2, 2);
        return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0;
    case CLMAX_TYPE_BFLOAT16:
        memcpy(&h, (const char *)x + i * 2, 2);
        return (h & 0x7F80) == 0x7F80 && (h & 0x007F) != 0;
    case CLMAX_TYPE_FLOAT32:
        memcpy(&f, (const char *)x + i * 4, 4);
        return (f & 0x7F800000u) == 0x7F800000u && (f & 0x007FFFFFu) != 0;
    case CLMAX_TYPE_FLOAT64:
        memcpy(&d, (const char *)x + i * 8, 8);
        return (d & 0x7FF0000000000000ull) == 0x7FF0000000000000ull &&
               (d & 0x000FFFFFFFFFFFFFull) != 0;
    default:
        return 0;
    }
}

/* ArgMin's order (include/clmax.h), built here from the reference's value comparison so that it
 * does not share the library's: a NaN beats everything but another NaN; otherwise the smaller
 * value wins. Returns 1 when element i beats j, 0 on a tie, -1 when j beats i. */
static int min_order(clmax_type t, const void *x, uint64_t i, uint64_t j)
{
    int ni = is_nan(t, x, i), nj = is_nan(t, x, j);
    if (ni || nj) return ni - nj;
    return -ref_compare(t, x, i, j);
}

/* The expected ArgMin of every row of view v into y. */
static void expected_argmin(clmax_type t, const void *x, ref_view v, int last, int64_t *y)
{
    for (uint64_t o = 0; o < v.outer; o++) {
        for (uint64_t i = 0; i < v.inner; i++) {
            uint64_t best = 0;
            for (uint64_t k = 1; k < v.n; k++) {
                int c =
                    min_order(t, x, (o * v.n + k) * v.inner + i, (o * v.n + best) * v.inner + i);
                if (c > 0 || (c == 0 && last)) best = k;
            }
            y[o * v.inner + i] = (int64_t)best;
        }
    }
}

/* values[k] must hold the bits of the element indices[k] points at. */
static void check_values(const clmax_tensor_desc *desc, const void *x, ref_view v,
                         const int64_t *indices, const unsigned char *values, const char *what)
{
    size_t es = clmax_type_size(desc->type);
    char buf[512];

    for (uint64_t o = 0; o < v.outer; o++) {
        for (uint64_t i = 0; i < v.inner; i++) {
            uint64_t q = o * v.inner + i;
            const unsigned char *at =
                (const unsigned char *)x + ((o * v.n + (uint64_t)indices[q]) * v.inner + i) * es;
            if (memcmp(values + q * es, at, es) != 0)
                fuzz_fail("%s of %s: value %llu is not the element at its index %lld", what,
                          fuzz_desc_str(desc, buf, sizeof buf), (unsigned long long)q,
                          (long long)indices[q]);
        }
    }
}

static void same_indices(const int64_t *got, const int64_t *want, uint64_t n_out, uint64_t n,
                         const clmax_tensor_desc *desc, const clmax_argmax_attrs *attrs,
                         const char *what)
{
    char buf[512];

    for (uint64_t i = 0; i < n_out; i++) {
        if (got[i] < 0 || (uint64_t)got[i] >= n || got[i] != want[i])
            fuzz_fail("%s of %s (opset %d axis %lld keepdims %d last %d): output %llu is %lld, "
                      "expected %lld (n = %llu)",
                      what, fuzz_desc_str(desc, buf, sizeof buf), attrs ? attrs->opset : 13,
                      attrs ? (long long)attrs->axis : 0LL, attrs ? attrs->keepdims : 1,
                      attrs ? attrs->select_last_index : 0, (unsigned long long)i,
                      (long long)got[i], (long long)want[i], (unsigned long long)n);
    }
}

clmax_status fuzz_run_argmin(clmax_context *ctx, const clmax_tensor_desc *desc, const void *x,
                             size_t x_bytes, const clmax_argmax_attrs *attrs)
{
    clmax_tensor_desc out;
    ref_view v;
    char buf[512];

    clmax_status st = clmax_argmax_output_desc(desc, attrs, &out);
    fuzz_check_status(st, "clmax_argmax_output_desc");
    if (st != CLMAX_OK) {
        /* Every arg-reduction refuses what ArgMax refuses, the same way, writing nothing. */
        int64_t y[2] = {-7, -7};
        uint64_t vals[2] = {7, 7};
        clmax_status s1 = clmax_argmin(ctx, desc, x, attrs, y);
        fuzz_check_status(s1, "clmax_argmin");
        clmax_status s2 = clmax_max_with_indices(ctx, desc, x, attrs, vals, y);
        fuzz_check_status(s2, "clmax_max_with_indices");
        clmax_status s3 = clmax_min_with_indices(ctx, desc, x, attrs, vals, y);
        fuzz_check_status(s3, "clmax_min_with_indices");
        if (s1 != st || s2 != st || s3 != st || y[0] != -7 || y[1] != -7 || vals[0] != 7 ||
            vals[1] != 7)
            fuzz_fail("argmin / max_with_indices / min_with_indices returned %d, %d, %d "
                      "(ArgMax's output_desc: %d) or wrote their output, for %s",
                      (int)s1, (int)s2, (int)s3, (int)st, fuzz_desc_str(desc, buf, sizeof buf));
        return st;
    }
    if (runnable_bytes(desc, x_bytes) == 0) return st;
    if (ref_argmax_check(desc, attrs, NULL, &v) != CLMAX_OK)
        fuzz_fail("the reference refused a valid ArgMin");
    uint64_t n_out = fuzz_desc_elements(&out);
    size_t es = clmax_type_size(desc->type);
    int last = attrs ? attrs->select_last_index : 0;
    size_t ib = n_out ? n_out * sizeof(int64_t) : 1, vb = n_out ? n_out * es : 1;
    int64_t *want_min = malloc(ib), *want_max = malloc(ib), *got = malloc(ib);
    unsigned char *values = malloc(vb);
    if (want_min == NULL || want_max == NULL || got == NULL || values == NULL)
        fuzz_fail("out of memory for %llu outputs", (unsigned long long)n_out);
    if (n_out != 0) {
        expected_argmin(desc->type, x, v, last, want_min);
        if (ref_argmax(desc, x, attrs, want_max) != CLMAX_OK)
            fuzz_fail("the reference refused a valid ArgMax");
    }

    st = clmax_argmin(ctx, desc, x, attrs, got);
    fuzz_check_status(st, "clmax_argmin");
    if (st != CLMAX_OK) fuzz_fail("clmax_argmin failed (%d) on a valid input", (int)st);
    same_indices(got, want_min, n_out, v.n, desc, attrs, "clmax_argmin");

    for (int min = 0; min < 2; min++) {
        const char *what = min ? "clmax_min_with_indices" : "clmax_max_with_indices";
        memset(got, 0xA5, ib);
        memset(values, 0x5A, vb);
        st = min ? clmax_min_with_indices(ctx, desc, x, attrs, values, got)
                 : clmax_max_with_indices(ctx, desc, x, attrs, values, got);
        fuzz_check_status(st, what);
        if (st != CLMAX_OK) fuzz_fail("%s failed (%d) on a valid input", what, (int)st);
        same_indices(got, min ? want_min : want_max, n_out, v.n, desc, attrs, what);
        if (n_out != 0) check_values(desc, x, v, got, values, what);
    }
    free(want_min);
    free(want_max);
    free(got);
    free(values);
    fuzz_counters.ops_run++;
    return CLMAX_OK;
}

static int is_hardmax_type(clmax_type t)
{
    return t == CLMAX_TYPE_FLOAT16 || t == CLMAX_TYPE_BFLOAT16 || t == CLMAX_TYPE_FLOAT32 ||
           t == CLMAX_TYPE_FLOAT64;
}

static uint64_t one_bits(clmax_type t)
{
    switch (t) {
    case CLMAX_TYPE_FLOAT16:
        return 0x3C00;
    case CLMAX_TYPE_BFLOAT16:
        return 0x3F80;
    case CLMAX_TYPE_FLOAT32:
        return 0x3F800000u;
    default:
        return 0x3FF0000000000000ull;
    }
}

static uint64_t load_bits(const void *y, uint64_t i, size_t es)
{
    uint64_t b = 0;
    uint16_t b16;
    uint32_t b32;

    switch (es) {
    case 2:
        memcpy(&b16, (const char *)y + i * 2, 2);
        return b16;
    case 4:
        memcpy(&b32, (const char *)y + i * 4, 4);
        return b32;
    default:
        memcpy(&b, (const char *)y + i * 8, 8);
        return b;
    }
}

clmax_status fuzz_run_hardmax(clmax_context *ctx, const clmax_tensor_desc *desc, const void *x,
                              size_t x_bytes, const clmax_hardmax_attrs *attrs)
{
    clmax_tensor_desc out, want;
    ref_view v;
    char buf[512];

    memset(&out, 0xA5, sizeof out);
    clmax_status st = clmax_hardmax_output_desc(desc, attrs, &out);
    fuzz_check_status(st, "clmax_hardmax_output_desc");
    clmax_status rst = ref_hardmax_check(desc, attrs, &want, &v);
    fuzz_agree(st, rst, desc, "clmax_hardmax_output_desc");
    if (st != CLMAX_OK) {
        uint64_t y[2] = {7, 7};
        clmax_status st2 = clmax_hardmax(ctx, desc, x, attrs, y);
        fuzz_check_status(st2, "clmax_hardmax");
        if (st2 != st || y[0] != 7 || y[1] != 7)
            fuzz_fail("clmax_hardmax returned %d (output_desc: %d) or wrote its output, for %s",
                      (int)st2, (int)st, fuzz_desc_str(desc, buf, sizeof buf));
        return st;
    }
    same_desc(&out, &want, "clmax_hardmax_output_desc");
    if (!is_hardmax_type(desc->type)) fuzz_fail("Hardmax accepted type %d", (int)desc->type);
    if (runnable_bytes(desc, x_bytes) == 0) {
        fuzz_counters.too_large++;
        return st;
    }
    size_t es = clmax_type_size(desc->type);
    uint64_t count = fuzz_desc_elements(desc);
    unsigned char *y = malloc(count ? count * es : 1);
    unsigned char *yref = malloc(count ? count * es : 1);
    if (y == NULL || yref == NULL)
        fuzz_fail("out of memory for %llu outputs", (unsigned long long)count);
    memset(y, 0x5A, count * es);
    memset(yref, 0x5A, count * es);
    st = clmax_hardmax(ctx, desc, x, attrs, y);
    fuzz_check_status(st, "clmax_hardmax");
    if (st != CLMAX_OK)
        fuzz_fail("clmax_hardmax failed (%d) where its output_desc succeeded, for %s", (int)st,
                  fuzz_desc_str(desc, buf, sizeof buf));
    rst = ref_hardmax(desc, x, attrs, yref);
    if (rst != CLMAX_OK) fuzz_fail("the reference refused a valid Hardmax (%d)", (int)rst);
    if (count != 0 && v.outer * v.n * v.inner != count)
        fuzz_fail("Hardmax view %llu x %llu x %llu of %llu elements", (unsigned long long)v.outer,
                  (unsigned long long)v.n, (unsigned long long)v.inner, (unsigned long long)count);
    /* One-hot rows: exactly one element holds the bits of 1, every other one +0. */
    uint64_t one = one_bits(desc->type);
    for (uint64_t o = 0; count != 0 && o < v.outer; o++) {
        for (uint64_t i = 0; i < v.inner; i++) {
            uint64_t ones = 0;
            for (uint64_t k = 0; k < v.n; k++) {
                uint64_t b = load_bits(y, (o * v.n + k) * v.inner + i, es);
                if (b == one)
                    ones++;
                else if (b != 0)
                    fuzz_fail("Hardmax of %s (opset %d): row (%llu, %llu) holds bits %#llx",
                              fuzz_desc_str(desc, buf, sizeof buf), attrs ? attrs->opset : 13,
                              (unsigned long long)o, (unsigned long long)i, (unsigned long long)b);
            }
            if (ones != 1)
                fuzz_fail("Hardmax of %s (opset %d): row (%llu, %llu) has %llu ones",
                          fuzz_desc_str(desc, buf, sizeof buf), attrs ? attrs->opset : 13,
                          (unsigned long long)o, (unsigned long long)i, (unsigned long long)ones);
        }
    }
    if (count != 0 && memcmp(y, yref, count * es) != 0)
        fuzz_fail("Hardmax of %s (opset %d axis %lld) differs from the reference",
                  fuzz_desc_str(desc, buf, sizeof buf), attrs ? attrs->opset : 13,
                  attrs ? (long long)attrs->axis : -1LL);
    free(y);
    free(yref);
    fuzz_counters.ops_run++;
    return st;
}
