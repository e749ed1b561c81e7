/*
 * The ONNX backend node tests for ArgMax, ArgMin and Hardmax (Debian's libonnx-testdata), run on
 * both clmax backends and compared bit for bit with the expected outputs.
 *
 * One Criterion test per case directory and backend: onnx_cpu/<case> and onnx_opencl/<case>. The
 * list of cases is generated at configure time (onnx_cases.h); onnx_node/discovery checks at run
 * time that the data directory holds exactly those cases, and at least one of each operator, so a
 * missing or emptied data set (or one without ArgMin cases) fails instead of passing vacuously.
 *
 * Environment:
 *   CLMAX_ONNX_TESTDATA_DIR  overrides the data directory compiled in
 *   CLMAX_BACKEND            "cpu" or "opencl" runs only that backend (others are skipped)
 *   CLMAX_REQUIRE_OPENCL=1   turns "no OpenCL device" from a skip into a failure
 * The library's own variables (CLMAX_DEVICE, CLMAX_STRATEGY, CLMAX_MAX_CHUNK_BYTES) apply as usual.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clmax.h"
#include "onnx_cases.h"
#include "onnx_reader.h"

#ifndef CLMAX_ONNX_TESTDATA_DIR
#error "CLMAX_ONNX_TESTDATA_DIR must be defined by the build"
#endif

#define GUARD_BYTES 64
#define GUARD_BYTE 0x5A
#define FILL_BYTE 0xA5
#define SHOW_MAX 64 /* elements printed per tensor on a mismatch */
#define SHOW_ROW 6  /* elements per line */
/* Printed on stderr by a skipped test; ctest's SKIP_REGULAR_EXPRESSION looks for it. */
#define SKIP_MARK "clmax-onnx: SKIPPED: "

static const char *data_dir(void)
{
    const char *env = getenv("CLMAX_ONNX_TESTDATA_DIR");
    return env && *env ? env : CLMAX_ONNX_TESTDATA_DIR;
}

/* snprintf for file names: a name that does not fit fails the test instead of being cut. */
__attribute__((format(printf, 3, 4))) static void make_path(char *buf, size_t size, const char *fmt,
                                                            ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size) cr_assert_fail("path too long: %s...", buf);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- Text for failure messages --------------------------------------------------------------- */

typedef struct text {
    char buf[16384];
    size_t len;
} text;

static void text_add(text *t, const char *fmt, ...)
{
    if (t->len >= sizeof t->buf - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n < sizeof t->buf - t->len ? (size_t)n : sizeof t->buf - 1 - t->len;
}

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1F, m = h & 0x3FF;
    float v = e == 0    ? ldexpf((float)m, -24)
              : e == 31 ? (m ? NAN : INFINITY)
                        : ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* One element of a tensor (clmax_type values equal TensorProto.DataType values). */
static void format_elem(text *t, int32_t type, const void *data, uint64_t k)
{
    const unsigned char *p = (const unsigned char *)data + k * onnx_dtype_size(type);
    switch (type) {
    case ONNX_DT_FLOAT: {
        float v;
        uint32_t u;
        memcpy(&v, p, 4);
        memcpy(&u, p, 4);
        text_add(t, "%.9g(0x%08x)", (double)v, u);
        break;
    }
    case ONNX_DT_DOUBLE: {
        double v;
        memcpy(&v, p, 8);
        text_add(t, "%.17g", v);
        break;
    }
    case ONNX_DT_FLOAT16:
    case ONNX_DT_BFLOAT16: {
        uint16_t u;
        memcpy(&u, p, 2);
        float v;
        if (type == ONNX_DT_FLOAT16) {
            v = half_to_float(u);
        } else {
            uint32_t w = (uint32_t)u << 16;
            memcpy(&v, &w, 4);
        }
        text_add(t, "%.5g(0x%04x)", (double)v, u);
        break;
    }
    case ONNX_DT_INT8: {
        int8_t v;
        memcpy(&v, p, 1);
        text_add(t, "%d", v);
        break;
    }
    case ONNX_DT_UINT8:
    case ONNX_DT_BOOL:
        text_add(t, "%u", p[0]);
        break;
    case ONNX_DT_INT16: {
        int16_t v;
        memcpy(&v, p, 2);
        text_add(t, "%d", v);
        break;
    }
    case ONNX_DT_UINT16: {
        uint16_t v;
        memcpy(&v, p, 2);
        text_add(t, "%u", v);
        break;
    }
    case ONNX_DT_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        text_add(t, "%ld", (long)v);
        break;
    }
    case ONNX_DT_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        text_add(t, "%lu", (unsigned long)v);
        break;
    }
    case ONNX_DT_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        text_add(t, "%lld", (long long)v);
        break;
    }
    case ONNX_DT_UINT64: {
        uint64_t v;
        memcpy(&v, p, 8);
        text_add(t, "%llu", (unsigned long long)v);
        break;
    }
    default:
        text_add(t, "?");
        break;
    }
}

static void format_shape(text *t, int rank, const int64_t *dims)
{
    text_add(t, "[");
    for (int d = 0; d < rank; d++)
        text_add(t, d ? ",%lld" : "%lld", (long long)dims[d]);
    text_add(t, "]");
}

/* Values of a tensor; with other non-NULL, elements that differ from it are marked with '*'. */
static void format_values(text *t, const char *label, int32_t type, const void *data,
                          const void *other, uint64_t count)
{
    size_t es = onnx_dtype_size(type);
    text_add(t, "\n  %s:", label);
    for (uint64_t k = 0; k < count && k < SHOW_MAX; k++) {
        if (k % SHOW_ROW == 0) text_add(t, "\n    [%3llu]", (unsigned long long)k);
        text_add(t, " ");
        format_elem(t, type, data, k);
        if (other && memcmp((const char *)data + k * es, (const char *)other + k * es, es) != 0)
            text_add(t, "*");
    }
    if (count > SHOW_MAX)
        text_add(t, "\n    ... (%llu more)", (unsigned long long)(count - SHOW_MAX));
}

/* ---- Running one case ------------------------------------------------------------------------ */

/* The library's message for a failed call (it starts with the status string). */
static const char *why(clmax_status st)
{
    const char *msg = clmax_last_error();
    return *msg ? msg : clmax_status_string(st);
}

/* The operator version a model opset selects: the newest version not above it. ArgMin has the
 * versions of ArgMax. */
static int op_version(const char *op_type, int64_t opset)
{
    static const int argmax[] = {13, 12, 11, 1};
    static const int hardmax[] = {13, 11, 1};
    int arg = strcmp(op_type, "ArgMax") == 0 || strcmp(op_type, "ArgMin") == 0;
    const int *v = arg ? argmax : hardmax;
    size_t n = arg ? 4 : 3;
    for (size_t k = 0; k < n; k++)
        if (opset >= v[k]) return v[k];
    return 0;
}

/* Create a context on the requested backend, or skip the test (see the header comment). */
static clmax_context *open_backend(clmax_backend backend)
{
    const char *want = getenv("CLMAX_BACKEND");
    const char *name = backend == CLMAX_BACKEND_CPU ? "cpu" : "opencl";

    if (want && *want && strcmp(want, "auto") != 0) {
        if (strcmp(want, "cpu") != 0 && strcmp(want, "opencl") != 0)
            cr_assert_fail("CLMAX_BACKEND=%s: expected cpu, opencl or auto", want);
        if (strcmp(want, name) != 0) {
            fprintf(stderr, SKIP_MARK "backend %s not selected (CLMAX_BACKEND=%s)\n", name, want);
            cr_skip_test("backend %s not selected (CLMAX_BACKEND=%s)", name, want);
        }
    }

    clmax_context_options options;
    clmax_context_options_init(&options);
    options.backend = backend;
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(&options, &ctx);
    if (st == CLMAX_ERROR_NO_DEVICE && backend == CLMAX_BACKEND_OPENCL) {
        const char *req = getenv("CLMAX_REQUIRE_OPENCL");
        if (req && strcmp(req, "1") == 0)
            cr_assert_fail("no OpenCL device but CLMAX_REQUIRE_OPENCL=1: %s", why(st));
        /* Not cr_log_warn: Criterion turns a logged warning into a failing exit status. */
        fprintf(stderr,
                SKIP_MARK "warning: no OpenCL device (%s); set CLMAX_REQUIRE_OPENCL=1 to fail\n",
                why(st));
        cr_skip_test("no OpenCL device");
    }
    if (st != CLMAX_OK) cr_assert_fail("clmax_context_create(%s): %s", name, why(st));
    clmax_backend got = clmax_context_backend(ctx);
    if (got != backend) {
        clmax_context_destroy(ctx);
        cr_assert_fail("asked for the %s backend, got backend %d", name, (int)got);
    }
    fprintf(stderr, "clmax-onnx: %s backend: %s\n", name, clmax_context_device_name(ctx));
    return ctx;
}

typedef struct case_attrs {
    int is_argmax; /* ArgMax or ArgMin: the same attributes */
    int is_min;    /* ArgMin */
    clmax_argmax_attrs argmax;
    clmax_hardmax_attrs hardmax;
} case_attrs;

/* Map the node to clmax attributes; every attribute of the node must be understood. */
static void read_attrs(const char *name, const onnx_node_model *m, case_attrs *a)
{
    memset(a, 0, sizeof *a);
    a->is_min = strcmp(m->op_type, "ArgMin") == 0;
    a->is_argmax = strcmp(m->op_type, "ArgMax") == 0 || a->is_min;
    if (!a->is_argmax && strcmp(m->op_type, "Hardmax") != 0)
        cr_assert_fail("%s: unexpected op_type %s", name, m->op_type);
    if (strcmp(m->domain, "") != 0 && strcmp(m->domain, "ai.onnx") != 0)
        cr_assert_fail("%s: unexpected node domain %s", name, m->domain);
    if (m->num_inputs != 1 || m->num_outputs != 1)
        cr_assert_fail("%s: expected 1 input and 1 output, got %d and %d", name, m->num_inputs,
                       m->num_outputs);
    int version = op_version(m->op_type, m->opset);
    if (version == 0)
        cr_assert_fail("%s: model opset %lld defines no %s", name, (long long)m->opset, m->op_type);

    clmax_status st = a->is_argmax ? clmax_argmax_attrs_init(&a->argmax, version)
                                   : clmax_hardmax_attrs_init(&a->hardmax, version);
    if (st != CLMAX_OK) cr_assert_fail("%s: attrs_init(opset %d): %s", name, version, why(st));

    for (int k = 0; k < m->num_attrs; k++) {
        const onnx_attr *at = &m->attrs[k];
        if (!at->is_int) cr_assert_fail("%s: attribute %s is not an INT", name, at->name);
        if (strcmp(at->name, "axis") == 0) {
            if (a->is_argmax)
                a->argmax.axis = at->i;
            else
                a->hardmax.axis = at->i;
        } else if (at->i != (int)at->i) {
            cr_assert_fail("%s: attribute %s=%lld out of range", name, at->name, (long long)at->i);
        } else if (a->is_argmax && strcmp(at->name, "keepdims") == 0) {
            a->argmax.keepdims = (int)at->i;
        } else if (a->is_argmax && strcmp(at->name, "select_last_index") == 0) {
            a->argmax.select_last_index = (int)at->i;
        } else {
            cr_assert_fail("%s: unknown %s attribute %s", name, m->op_type, at->name);
        }
    }
}

static void describe(text *t, const char *name, const char *backend, const onnx_node_model *m,
                     const case_attrs *a, int set)
{
    text_add(t, "%s [%s, test_data_set_%d]: %s model opset %lld", name, backend, set, m->op_type,
             (long long)m->opset);
    if (a->is_argmax)
        text_add(t, " (op %d, axis=%lld keepdims=%d select_last_index=%d)", a->argmax.opset,
                 (long long)a->argmax.axis, a->argmax.keepdims, a->argmax.select_last_index);
    else
        text_add(t, " (op %d, axis=%lld)", a->hardmax.opset, (long long)a->hardmax.axis);
}

/* Run one test_data_set on ctx and compare with its expected output. */
static void run_set(clmax_context *ctx, const char *name, const char *backend,
                    const onnx_node_model *m, const case_attrs *a, const char *set_dir, int set)
{
    char path[4096], err[1024];
    onnx_tensor in, expected;
    text t = {.len = 0};

    make_path(path, sizeof path, "%s/input_1.pb", set_dir);
    if (is_file(path)) cr_assert_fail("%s: %s has more than one input", name, set_dir);
    make_path(path, sizeof path, "%s/input_0.pb", set_dir);
    if (onnx_read_tensor(path, &in, err, sizeof err)) cr_assert_fail("%s: %s", name, err);
    make_path(path, sizeof path, "%s/output_0.pb", set_dir);
    if (onnx_read_tensor(path, &expected, err, sizeof err)) cr_assert_fail("%s: %s", name, err);

    if (in.rank > CLMAX_MAX_RANK)
        cr_assert_fail("%s: input rank %d above CLMAX_MAX_RANK", name, in.rank);
    clmax_tensor_desc in_desc;
    memset(&in_desc, 0, sizeof in_desc);
    in_desc.type = (clmax_type)in.data_type;
    in_desc.rank = in.rank;
    for (int d = 0; d < in.rank; d++)
        in_desc.dims[d] = in.dims[d];

    clmax_tensor_desc out_desc;
    clmax_status st = a->is_argmax ? clmax_argmax_output_desc(&in_desc, &a->argmax, &out_desc)
                                   : clmax_hardmax_output_desc(&in_desc, &a->hardmax, &out_desc);
    describe(&t, name, backend, m, a, set);
    text_add(&t, "\n  input    %s ", onnx_dtype_name(in.data_type));
    format_shape(&t, in.rank, in.dims);
    if (st != CLMAX_OK) cr_assert_fail("%s\n  output_desc failed: %s", t.buf, why(st));

    int shape_ok = (int32_t)out_desc.type == expected.data_type && out_desc.rank == expected.rank;
    for (int d = 0; shape_ok && d < expected.rank; d++)
        shape_ok = out_desc.dims[d] == expected.dims[d];
    if (!shape_ok) {
        text_add(&t, "\n  expected %s ", onnx_dtype_name(expected.data_type));
        format_shape(&t, expected.rank, expected.dims);
        text_add(&t, "\n  got      %s ", onnx_dtype_name((int32_t)out_desc.type));
        format_shape(&t, out_desc.rank, out_desc.dims);
        cr_assert_fail("%s\n  output descriptor mismatch", t.buf);
    }

    /* Fill the output with a pattern so unwritten elements show, and guard its end. */
    unsigned char *y = malloc(expected.nbytes + GUARD_BYTES);
    void *x_copy = malloc(in.nbytes ? in.nbytes : 1);
    cr_assert(y && x_copy, "out of memory");
    memset(y, FILL_BYTE, expected.nbytes);
    memset(y + expected.nbytes, GUARD_BYTE, GUARD_BYTES);
    memcpy(x_copy, in.data, in.nbytes);

    if (a->is_min)
        st = clmax_argmin(ctx, &in_desc, in.data, &a->argmax, (int64_t *)(void *)y);
    else if (a->is_argmax)
        st = clmax_argmax(ctx, &in_desc, in.data, &a->argmax, (int64_t *)(void *)y);
    else
        st = clmax_hardmax(ctx, &in_desc, in.data, &a->hardmax, y);
    if (st != CLMAX_OK) cr_assert_fail("%s\n  %s failed: %s", t.buf, m->op_type, why(st));

    int guard_ok = 1;
    for (size_t k = 0; k < GUARD_BYTES; k++)
        guard_ok &= y[expected.nbytes + k] == GUARD_BYTE;
    int input_ok = memcmp(x_copy, in.data, in.nbytes) == 0;
    int data_ok = memcmp(y, expected.data, expected.nbytes) == 0;

    if (!data_ok || !guard_ok || !input_ok) {
        text_add(&t, "\n  output   %s ", onnx_dtype_name(expected.data_type));
        format_shape(&t, expected.rank, expected.dims);
        format_values(&t, "input", in.data_type, in.data, NULL, in.count);
        format_values(&t, "expected", expected.data_type, expected.data, NULL, expected.count);
        format_values(&t, "got", expected.data_type, y, expected.data, expected.count);
        if (!guard_ok) text_add(&t, "\n  wrote past the end of the output");
        if (!input_ok) text_add(&t, "\n  modified the input");
        cr_expect_fail("%s\n  mismatch (elements marked * differ)", t.buf);
    }

    free(x_copy);
    free(y);
    onnx_tensor_free(&in);
    onnx_tensor_free(&expected);
}

static void run_case(const char *name, clmax_backend backend)
{
    const char *backend_name = backend == CLMAX_BACKEND_CPU ? "cpu" : "opencl";
    char case_dir[4096], path[4096], err[1024];
    onnx_node_model m;
    case_attrs a;

    make_path(case_dir, sizeof case_dir, "%s/%s", data_dir(), name);
    if (!is_dir(case_dir)) cr_assert_fail("%s: case directory %s is missing", name, case_dir);
    make_path(path, sizeof path, "%s/model.onnx", case_dir);
    if (onnx_read_model(path, &m, err, sizeof err)) cr_assert_fail("%s: %s", name, err);
    read_attrs(name, &m, &a);

    clmax_context *ctx = open_backend(backend);
    int sets = 0;
    for (;; sets++) {
        make_path(path, sizeof path, "%s/test_data_set_%d", case_dir, sets);
        if (!is_dir(path)) break;
        run_set(ctx, name, backend_name, &m, &a, path, sets);
    }
    clmax_context_destroy(ctx);
    cr_expect(sets > 0, "%s: no test_data_set_0 in %s", name, case_dir);
}

#define CLMAX_ONNX_TEST(name)                                                                      \
    Test(onnx_cpu, name)                                                                           \
    {                                                                                              \
        run_case(#name, CLMAX_BACKEND_CPU);                                                        \
    }                                                                                              \
    Test(onnx_opencl, name)                                                                        \
    {                                                                                              \
        run_case(#name, CLMAX_BACKEND_OPENCL);                                                     \
    }

CLMAX_ONNX_CASES(CLMAX_ONNX_TEST)

/* ---- Discovery: the data directory holds exactly the compiled-in cases ----------------------- */

#define CLMAX_ONNX_NAME(name) #name,
static const char *const compiled_cases[] = {CLMAX_ONNX_CASES(CLMAX_ONNX_NAME) NULL};

static int is_case_name(const char *n)
{
    return strncmp(n, "test_argmax_", 12) == 0 || strncmp(n, "test_argmin_", 12) == 0 ||
           strncmp(n, "test_hardmax_", 13) == 0;
}

Test(onnx_node, discovery)
{
    const char *dir = data_dir();
    DIR *d = opendir(dir);
    if (!d) cr_assert_fail("cannot open the ONNX test data directory %s", dir);

    int argmax = 0, argmin = 0, hardmax = 0, unknown = 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (!is_case_name(e->d_name)) continue;
        make_path(path, sizeof path, "%s/%s/model.onnx", dir, e->d_name);
        if (!is_file(path)) continue;
        if (strncmp(e->d_name, "test_argmax_", 12) == 0)
            argmax++;
        else if (strncmp(e->d_name, "test_argmin_", 12) == 0)
            argmin++;
        else
            hardmax++;
        int known = 0;
        for (size_t k = 0; compiled_cases[k]; k++)
            known |= strcmp(compiled_cases[k], e->d_name) == 0;
        if (!known) {
            cr_log_error("case %s is not compiled in: reconfigure the build", e->d_name);
            unknown++;
        }
    }
    closedir(d);

    int missing = 0;
    for (size_t k = 0; compiled_cases[k]; k++) {
        make_path(path, sizeof path, "%s/%s/model.onnx", dir, compiled_cases[k]);
        if (!is_file(path)) {
            cr_log_error("compiled-in case %s is missing from %s", compiled_cases[k], dir);
            missing++;
        }
    }
    cr_log_info("%s: %d ArgMax, %d ArgMin and %d Hardmax cases", dir, argmax, argmin, hardmax);
    cr_expect(argmax > 0, "no test_argmax_* cases in %s", dir);
    cr_expect(argmin > 0, "no test_argmin_* cases in %s", dir);
    cr_expect(hardmax > 0, "no test_hardmax_* cases in %s", dir);
    cr_expect(unknown == 0 && missing == 0,
              "%d cases not compiled in, %d compiled-in cases missing (see above)", unknown,
              missing);
}
