/*
 * The enqueue API (include/clmax_cl.h) on the caller's OpenCL objects, checked bit for bit against
 * the scalar reference (tests/reference.h) and the CPU path's host API: types with NaNs, ties and
 * integer extremes, every strategy (planned and forced), opsets and attributes, tensors at offsets
 * that are not the device's base-address alignment inside larger buffers with guard bytes, event
 * chains on in-order and out-of-order queues, int32 indices, caller scratch, misuse, empty tensors,
 * ownership of the caller's objects, and several threads on one context. ArgMin
 * (clmax_enqueue_argmin) too: offsets, int32 indices, split axes, against the reference and
 * clmax_argmin on a CPU-path context.
 *
 * Without an OpenCL device the tests skip with a warning (they fail when CLMAX_REQUIRE_OPENCL=1);
 * with CLMAX_BACKEND=cpu they skip too, except those that need no device. Criterion forks a process
 * per test, so every test makes its own OpenCL objects.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include "clmax_cl.h"

#include "common.h"
#include "reference.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- The caller's OpenCL objects ----------------------------------------------------------- */

typedef struct clenv {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    size_t base_align; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */
} clenv;

#define CL_OK(err, call) cr_assert_eq((err), CL_SUCCESS, "%s failed with %d", (call), (int)(err))
#define ST_OK(st, call)                                                                            \
    cr_assert_eq((st), CLMAX_OK, "%s: %s: %s", (call), clmax_status_string(st), clmax_last_error())
#define EXPECT_ST(call, want)                                                                      \
    do {                                                                                           \
        clmax_status st_ = (call);                                                                 \
        cr_assert_eq(st_, (want), "%s gave %d (%s), expected %d (%s): %s", #call, (int)st_,        \
                     clmax_status_string(st_), (int)(want), clmax_status_string(want),             \
                     clmax_last_error());                                                          \
        if (st_ != CLMAX_OK)                                                                       \
            cr_assert(clmax_last_error()[0] != 0, "%s failed without a message", #call);           \
    } while (0)

static int cpu_backend_forced(void)
{
    const char *e = getenv("CLMAX_BACKEND");
    return e != NULL && strcasecmp(e, "cpu") == 0;
}

static void env_close(clenv *e)
{
    if (e->queue) clReleaseCommandQueue(e->queue);
    if (e->context) clReleaseContext(e->context);
    memset(e, 0, sizeof *e);
}

/* The device clmax would pick (CLMAX_DEVICE included), or skips the test when there is none. */
static cl_device_id need_device(void)
{
    if (cpu_backend_forced()) cr_skip_test("CLMAX_BACKEND=cpu: the enqueue API needs OpenCL");
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_OPENCL;
    clmax_context *probe = NULL;
    clmax_status st = clmax_context_create(&o, &probe);
    if (st == CLMAX_ERROR_NO_DEVICE) {
        if (opencl_required())
            cr_assert_fail("no OpenCL device, and CLMAX_REQUIRE_OPENCL=1: %s", clmax_last_error());
        /* Not cr_log_warn: Criterion turns a logged warning into a failing exit status. */
        fprintf(stderr, "warning: no OpenCL device, skipping the enqueue test: %s\n",
                clmax_last_error());
        cr_skip_test("no OpenCL device");
    }
    ST_OK(st, "clmax_context_create(opencl)");
    cl_device_id device = NULL;
    ST_OK(clmax_context_get_cl(probe, NULL, &device, NULL), "clmax_context_get_cl");
    clmax_context_destroy(probe);
    return device;
}

/* Makes a context and a queue of our own on that device. */
static void env_open(clenv *e, int out_of_order)
{
    memset(e, 0, sizeof *e);
    e->device = need_device();
    cl_int err;
    e->context = clCreateContext(NULL, 1, &e->device, NULL, NULL, &err);
    CL_OK(err, "clCreateContext");
    cl_command_queue_properties props = 0;
    if (out_of_order) {
        cl_command_queue_properties caps = 0;
        CL_OK(clGetDeviceInfo(e->device, CL_DEVICE_QUEUE_PROPERTIES, sizeof caps, &caps, NULL),
              "clGetDeviceInfo(CL_DEVICE_QUEUE_PROPERTIES)");
        if (!(caps & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
            env_close(e);
            cr_skip_test("the device has no out-of-order queues");
        }
        props = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    }
    e->queue = clCreateCommandQueue(e->context, e->device, props, &err);
    CL_OK(err, "clCreateCommandQueue");
    cl_uint bits = 0;
    CL_OK(clGetDeviceInfo(e->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL),
          "clGetDeviceInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN)");
    e->base_align = bits / 8;
}

static clmax_context *clmax_open(const clenv *e, clmax_strategy strategy)
{
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.strategy = strategy;
    clmax_context *ctx = NULL;
    ST_OK(clmax_context_create_from_cl(e->context, e->device, e->queue, &o, &ctx),
          "clmax_context_create_from_cl");
    cr_assert_not_null(ctx);
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_OPENCL);
    return ctx;
}

/* A CPU-path context, whatever the environment says. */
static clmax_context *cpu_open(void)
{
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_CPU;
    o.ignore_environment = 1;
    clmax_context *ctx = NULL;
    ST_OK(clmax_context_create(&o, &ctx), "clmax_context_create(cpu)");
    return ctx;
}

static cl_int event_status(cl_event ev)
{
    cl_int s = -1;
    CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL),
          "clGetEventInfo");
    return s;
}

static cl_uint context_refs(cl_context c)
{
    cl_uint n = 0;
    CL_OK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL), "clGetContextInfo");
    return n;
}

static cl_uint queue_refs(cl_command_queue q)
{
    cl_uint n = 0;
    CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL),
          "clGetCommandQueueInfo");
    return n;
}

/* ---- Arenas: a tensor at an offset inside a larger buffer, guard bytes around it ------------- */

#define GUARD 40
#define GUARD_BYTE 0xA5

typedef struct arena {
    cl_mem mem;
    size_t off, bytes, size;
    unsigned char *image; /* what the whole buffer holds once the tensor is in place */
} arena;

/* data NULL: the tensor's range holds guard bytes too. preload 0: the buffer starts with guard
 * bytes only and the tensor must be written by the caller (image still shows it in place). */
static const char *arena_make(const clenv *e, arena *a, size_t off, size_t bytes, const void *data,
                              int preload)
{
    a->off = off;
    a->bytes = bytes;
    a->size = off + bytes + GUARD;
    a->image = malloc(a->size);
    if (a->image == NULL) return "out of host memory";
    memset(a->image, GUARD_BYTE, a->size);
    if (data && preload) memcpy(a->image + off, data, bytes);
    cl_int err;
    a->mem = clCreateBuffer(e->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a->size, a->image,
                            &err);
    if (a->mem == NULL) return "clCreateBuffer failed";
    if (data) memcpy(a->image + off, data, bytes);
    return NULL;
}

static void arena_free(arena *a)
{
    if (a->mem) clReleaseMemObject(a->mem);
    free(a->image);
    memset(a, 0, sizeof *a);
}

/* ---- Jobs: one operator call, its expected output and its buffers -------------------------- */

typedef struct job {
    int hardmax;
    int min;    /* ArgMin instead of ArgMax */
    int values; /* clmax_enqueue_{max,min}_with_indices: the values too, at v_off in va */
    clmax_tensor_desc desc;
    clmax_argmax_attrs aa;
    clmax_hardmax_attrs ha;
    clmax_index_type itype;
    size_t x_off, y_off, v_off; /* bytes */
    int preload;                /* the input is in the buffer from the start (no write command) */
    int host_api;               /* threads test: run on the host API instead */

    void *x;               /* host input */
    size_t x_bytes;        /* of the tensor */
    unsigned char *want;   /* expected output bytes */
    size_t y_bytes, y_es;  /* output bytes and element size */
    unsigned char *want_v; /* expected values (v_bytes) */
    size_t v_bytes;

    arena xa, ya, va;
    unsigned char *got_x, *got_y, *got_v; /* whole arenas read back */
    cl_event write, done, read_x, read_y, read_v;
    clmax_status st;
    char what[320];
    char err[512];
} job;

static void job_argmax(job *j, clmax_type type, int rank, const int64_t *dims, int opset,
                       int64_t axis, int keepdims, int last)
{
    memset(j, 0, sizeof *j);
    j->desc = test_desc(type, rank, dims);
    clmax_argmax_attrs_init(&j->aa, opset);
    j->aa.axis = axis;
    j->aa.keepdims = keepdims;
    j->aa.select_last_index = last;
    j->itype = CLMAX_INDEX_INT64;
}

static void job_argmin(job *j, clmax_type type, int rank, const int64_t *dims, int opset,
                       int64_t axis, int keepdims, int last)
{
    job_argmax(j, type, rank, dims, opset, axis, keepdims, last);
    j->min = 1;
}

static void job_hardmax(job *j, clmax_type type, int rank, const int64_t *dims, int opset,
                        int64_t axis)
{
    memset(j, 0, sizeof *j);
    j->hardmax = 1;
    j->desc = test_desc(type, rank, dims);
    clmax_hardmax_attrs_init(&j->ha, opset);
    j->ha.axis = axis;
}

static size_t job_index_size(const job *j)
{
    return j->itype == CLMAX_INDEX_INT32 ? 4 : 8;
}

/* Offsets of k element sizes: 3 and 9 are odd, so never a multiple of a base alignment. */
static void job_offsets(job *j, int kx, int ky)
{
    size_t es = ref_type_size(j->desc.type);
    j->x_off = es * (size_t)kx;
    j->y_off = (j->hardmax ? es : job_index_size(j)) * (size_t)ky;
    j->v_off = es * (size_t)(ky + 2);
}

enum { IN_SPECIAL_ROWS = FILL_MODES };

static const char *input_str(int kind)
{
    return kind == IN_SPECIAL_ROWS ? "special rows" : fill_mode_str((fill_mode)kind);
}

/* Fills the input (a fill_mode, or IN_SPECIAL_ROWS) and computes the expected output with the
 * reference; the label says everything about the case. */
static void job_fill(job *j, int kind, uint64_t seed)
{
    clmax_type type = j->desc.type;
    size_t es = ref_type_size(type);
    ref_view v;
    clmax_tensor_desc out;
    clmax_status st = j->hardmax ? ref_hardmax_check(&j->desc, &j->ha, &out, &v)
                                 : ref_argmax_check(&j->desc, &j->aa, &out, &v);
    cr_assert_eq(st, CLMAX_OK, "test bug: an invalid case");
    uint64_t count = output_count(&j->desc);
    j->x_bytes = (size_t)count * es;
    j->x = test_malloc(j->x_bytes);
    test_rng rng;
    rng_seed(&rng, seed);
    if (kind == IN_SPECIAL_ROWS)
        fill_special_rows(type, j->x, v, &rng);
    else
        fill_tensor(type, j->x, count, (fill_mode)kind, &rng);

    char shape[128];
    test_shape_str(&j->desc, shape, sizeof shape);
    if (j->hardmax) {
        j->y_es = es;
        j->y_bytes = j->x_bytes;
        j->want = test_malloc(j->y_bytes);
        cr_assert_eq(ref_hardmax(&j->desc, j->x, &j->ha, j->want), CLMAX_OK);
        snprintf(j->what, sizeof j->what, "hardmax %s %s opset %d axis %" PRId64,
                 test_type_str(type), shape, j->ha.opset, j->ha.axis);
    } else {
        uint64_t outputs = output_count(&out);
        int64_t *idx = test_malloc((size_t)outputs * 8);
        if (j->min)
            cr_assert_eq(ref_argmin(&j->desc, j->x, &j->aa, idx), CLMAX_OK);
        else
            cr_assert_eq(ref_argmax(&j->desc, j->x, &j->aa, idx), CLMAX_OK);
        if (j->values) { /* the bits of the reference's winners */
            j->v_bytes = (size_t)outputs * es;
            j->want_v = test_malloc(j->v_bytes + 1);
            for (uint64_t q = 0; q < outputs; q++) {
                uint64_t o = q / v.inner, l = q % v.inner;
                uint64_t at = (o * v.n + (uint64_t)idx[q]) * v.inner + l;
                memcpy(j->want_v + q * es, (const unsigned char *)j->x + at * es, es);
            }
        }
        j->y_es = job_index_size(j);
        j->y_bytes = (size_t)outputs * j->y_es;
        if (j->itype == CLMAX_INDEX_INT32) {
            j->want = test_malloc(j->y_bytes);
            for (uint64_t i = 0; i < outputs; i++) {
                int32_t v32 = (int32_t)idx[i];
                memcpy(j->want + i * 4, &v32, 4);
            }
            free(idx);
        } else {
            j->want = (unsigned char *)idx;
        }
        snprintf(j->what, sizeof j->what,
                 "%s %s %s opset %d axis %" PRId64 " keepdims %d select_last_index %d %s",
                 j->values ? (j->min ? "min_with_indices" : "max_with_indices")
                 : j->min  ? "argmin"
                           : "argmax",
                 test_type_str(type), shape, j->aa.opset, j->aa.axis, j->aa.keepdims,
                 j->aa.select_last_index, j->itype == CLMAX_INDEX_INT32 ? "int32" : "int64");
    }
    size_t used = strlen(j->what);
    snprintf(j->what + used, sizeof j->what - used,
             ", input %s seed %" PRIu64 ", x_offset %zu y_offset %zu", input_str(kind), seed,
             j->x_off, j->y_off);
    used = strlen(j->what);
    if (j->values) snprintf(j->what + used, sizeof j->what - used, " values_offset %zu", j->v_off);
}

static void job_free(job *j)
{
    cl_event *evs[] = {&j->write, &j->done, &j->read_x, &j->read_y, &j->read_v};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (*evs[i]) clReleaseEvent(*evs[i]);
    arena_free(&j->xa);
    arena_free(&j->ya);
    arena_free(&j->va);
    free(j->x);
    free(j->want);
    free(j->want_v);
    free(j->got_x);
    free(j->got_y);
    free(j->got_v);
    memset(j, 0, sizeof *j);
}

static const char *job_fail(job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(j->err, sizeof j->err, "%s: ", j->what);
    if (n > 0 && (size_t)n < sizeof j->err)
        vsnprintf(j->err + n, sizeof j->err - (size_t)n, fmt, ap);
    va_end(ap);
    return j->err;
}

/* The buffers; unless preload, a non-blocking write of x after the wait list (its event in
 * j->write). */
static const char *job_buffers(const clenv *e, job *j, cl_uint nwait, const cl_event *wait)
{
    const char *m = arena_make(e, &j->xa, j->x_off, j->x_bytes, j->x, j->preload);
    if (m == NULL) m = arena_make(e, &j->ya, j->y_off, j->y_bytes, NULL, 1);
    if (m == NULL && j->values) m = arena_make(e, &j->va, j->v_off, j->v_bytes, NULL, 1);
    if (m != NULL) return job_fail(j, "%s", m);
    if (!j->preload) {
        cl_int err = clEnqueueWriteBuffer(e->queue, j->xa.mem, CL_FALSE, j->x_off, j->x_bytes, j->x,
                                          nwait, wait, &j->write);
        if (err != CL_SUCCESS) return job_fail(j, "clEnqueueWriteBuffer: %d", (int)err);
    }
    return NULL;
}

/* The clmax call, after j->write when there is one, else after the wait list. */
static clmax_status job_enqueue(clmax_context *ctx, job *j, const clmax_enqueue_options *opts,
                                cl_uint nwait, const cl_event *wait)
{
    clmax_enqueue_options o;
    if (opts)
        o = *opts;
    else
        clmax_enqueue_options_init(&o);
    o.index_type = j->itype;
    if (j->write) {
        nwait = 1;
        wait = &j->write;
    }
    if (j->hardmax)
        j->st = clmax_enqueue_hardmax(ctx, &j->desc, j->xa.mem, j->x_off, &j->ha, j->ya.mem,
                                      j->y_off, &o, nwait, wait, &j->done);
    else if (j->values && j->min)
        j->st = clmax_enqueue_min_with_indices(ctx, &j->desc, j->xa.mem, j->x_off, &j->aa,
                                               j->va.mem, j->v_off, j->ya.mem, j->y_off, &o, nwait,
                                               wait, &j->done);
    else if (j->values)
        j->st = clmax_enqueue_max_with_indices(ctx, &j->desc, j->xa.mem, j->x_off, &j->aa,
                                               j->va.mem, j->v_off, j->ya.mem, j->y_off, &o, nwait,
                                               wait, &j->done);
    else if (j->min)
        j->st = clmax_enqueue_argmin(ctx, &j->desc, j->xa.mem, j->x_off, &j->aa, j->ya.mem,
                                     j->y_off, &o, nwait, wait, &j->done);
    else
        j->st = clmax_enqueue_argmax(ctx, &j->desc, j->xa.mem, j->x_off, &j->aa, j->ya.mem,
                                     j->y_off, &o, nwait, wait, &j->done);
    if (j->st != CLMAX_OK)
        job_fail(j, "enqueue: %s: %s", clmax_status_string(j->st), clmax_last_error());
    return j->st;
}

/* Non-blocking reads of the whole arenas that wait only on clmax's event. */
static const char *job_read(const clenv *e, job *j)
{
    j->got_x = malloc(j->xa.size);
    j->got_y = malloc(j->ya.size);
    if (j->got_x == NULL || j->got_y == NULL) return job_fail(j, "out of host memory");
    if (j->values) {
        j->got_v = malloc(j->va.size);
        if (j->got_v == NULL) return job_fail(j, "out of host memory");
        cl_int err = clEnqueueReadBuffer(e->queue, j->va.mem, CL_FALSE, 0, j->va.size, j->got_v, 1,
                                         &j->done, &j->read_v);
        if (err != CL_SUCCESS) return job_fail(j, "clEnqueueReadBuffer(values): %d", (int)err);
    }
    cl_int err = clEnqueueReadBuffer(e->queue, j->ya.mem, CL_FALSE, 0, j->ya.size, j->got_y, 1,
                                     &j->done, &j->read_y);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(e->queue, j->xa.mem, CL_FALSE, 0, j->xa.size, j->got_x, 1,
                                  &j->done, &j->read_x);
    if (err != CL_SUCCESS) return job_fail(j, "clEnqueueReadBuffer: %d", (int)err);
    return NULL;
}

static const char *job_wait(job *j)
{
    cl_event evs[3] = {j->read_y, j->read_x, j->read_v};
    cl_int err = clWaitForEvents(j->read_v ? 3 : 2, evs);
    if (err != CL_SUCCESS) return job_fail(j, "clWaitForEvents: %d", (int)err);
    return NULL;
}

static uint64_t bits_at(const unsigned char *p, size_t es)
{
    uint64_t v = 0;
    memcpy(&v, p, es); /* little-endian hosts: the element's bits */
    return v;
}

/* One output arena read back (size bytes, the output at off): equal to want, guard bytes intact. */
static const char *check_output(job *j, const char *name, const unsigned char *y, size_t size,
                                size_t off, const unsigned char *want, size_t bytes, size_t es)
{
    for (size_t i = 0; i < size; i++) {
        if (i >= off && i < off + bytes) continue;
        if (y[i] != GUARD_BYTE)
            return job_fail(j, "guard byte %zu of the %s buffer (output at %zu..%zu) is 0x%02x", i,
                            name, off, off + bytes, y[i]);
    }
    if (memcmp(y + off, want, bytes) != 0) {
        size_t i = 0;
        while (memcmp(y + off + i * es, want + i * es, es) == 0)
            i++;
        return job_fail(j, "%s element %zu is 0x%" PRIx64 ", the reference says 0x%" PRIx64, name,
                        i, bits_at(y + off + i * es, es), bits_at(want + i * es, es));
    }
    return NULL;
}

/* Output (and values) range equal to want, guard bytes intact, input arena untouched. */
static const char *job_check(job *j)
{
    const char *m =
        check_output(j, "output", j->got_y, j->ya.size, j->y_off, j->want, j->y_bytes, j->y_es);
    if (m == NULL && j->values)
        m = check_output(j, "values", j->got_v, j->va.size, j->v_off, j->want_v, j->v_bytes,
                         ref_type_size(j->desc.type));
    if (m != NULL) return m;
    if (j->got_x && memcmp(j->got_x, j->xa.image, j->xa.size) != 0)
        return job_fail(j, "the input buffer was modified");
    return NULL;
}

/* The host API on ctx into got_y (and got_v), laid out as arenas so that job_check applies. */
static const char *job_host(clmax_context *ctx, job *j)
{
    j->ya.off = j->y_off;
    j->ya.bytes = j->y_bytes;
    j->ya.size = j->y_off + j->y_bytes + GUARD;
    j->got_y = malloc(j->ya.size);
    if (j->got_y == NULL) return job_fail(j, "out of host memory");
    memset(j->got_y, GUARD_BYTE, j->ya.size);
    if (j->values) {
        j->va.size = j->v_off + j->v_bytes + GUARD;
        j->got_v = malloc(j->va.size);
        if (j->got_v == NULL) return job_fail(j, "out of host memory");
        memset(j->got_v, GUARD_BYTE, j->va.size);
    }
    if (j->hardmax) {
        j->st = clmax_hardmax(ctx, &j->desc, j->x, &j->ha, j->got_y + j->y_off);
    } else {
        int64_t *idx = malloc(j->y_bytes / j->y_es * 8 + 8);
        if (idx == NULL) return job_fail(j, "out of host memory");
        void *v = j->values ? j->got_v + j->v_off : NULL;
        j->st = j->values && j->min ? clmax_min_with_indices(ctx, &j->desc, j->x, &j->aa, v, idx)
                : j->values         ? clmax_max_with_indices(ctx, &j->desc, j->x, &j->aa, v, idx)
                : j->min            ? clmax_argmin(ctx, &j->desc, j->x, &j->aa, idx)
                                    : clmax_argmax(ctx, &j->desc, j->x, &j->aa, idx);
        for (size_t i = 0; i < j->y_bytes / j->y_es; i++) {
            int32_t v32 = (int32_t)idx[i];
            memcpy(j->got_y + j->y_off + i * j->y_es, j->y_es == 4 ? (void *)&v32 : (void *)&idx[i],
                   j->y_es);
        }
        free(idx);
    }
    if (j->st != CLMAX_OK)
        return job_fail(j, "host API: %s: %s", clmax_status_string(j->st), clmax_last_error());
    return job_check(j);
}

#define JOB_OK(call)                                                                               \
    do {                                                                                           \
        const char *m_ = (call);                                                                   \
        cr_assert(m_ == NULL, "%s", m_);                                                           \
    } while (0)

/* One job start to end: write x (an event) -> clmax -> read waiting on clmax's event only; then
 * the same case on the host API of host_ctx (when given) must agree too. */
static void run_job(const clenv *e, clmax_context *ctx, clmax_context *host_ctx, job *j,
                    const clmax_enqueue_options *opts)
{
    JOB_OK(job_buffers(e, j, 0, NULL));
    if (job_enqueue(ctx, j, opts, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j->err);
    cr_assert_not_null(j->done, "%s: no event", j->what);
    JOB_OK(job_read(e, j));
    JOB_OK(job_wait(j));
    cr_assert_eq(event_status(j->done), CL_COMPLETE, "%s", j->what);
    JOB_OK(job_check(j));
    if (host_ctx && j->itype == CLMAX_INDEX_INT64) {
        free(j->got_y);
        free(j->got_x);
        free(j->got_v);
        j->got_x = j->got_y = j->got_v = NULL;
        JOB_OK(job_host(host_ctx, j));
    }
}

/* ---- Types, strategies, offsets ------------------------------------------------------------ */

static const clmax_type some_types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_BFLOAT16,
                                        CLMAX_TYPE_FLOAT64, CLMAX_TYPE_INT8,    CLMAX_TYPE_UINT64,
                                        CLMAX_TYPE_INT64};
#define NUM_SOME_TYPES (sizeof some_types / sizeof some_types[0])

typedef struct shape3 {
    int rank;
    int64_t dims[3];
    int64_t axis;
} shape3;

/* contiguous rows, a strided axis, an outermost axis, few long rows that the planner splits,
 * short rows (on CPU devices 16 rows per work-item, and a partial last one), and a strided axis
 * with rows of more than 8 KiB for types of two bytes or more (CPU devices: the wide tiles, the
 * axis split in three) */
static const shape3 shapes[] = {{2, {37, 1000}, 1},   {3, {5, 300, 33}, 1}, {2, {1000, 3}, 0},
                                {2, {3, 200003}, -1}, {2, {50, 33}, 1},     {2, {200, 5003}, 0}};

/* Whether the planner splits the axis (and scratch is needed): only when nothing forces a
 * strategy, through options or the environment. */
static int planner_free(void)
{
    return getenv("CLMAX_STRATEGY") == NULL;
}

Test(enqueue, argmax_types_and_offsets)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    cr_log_info("device base address alignment %zu bytes; offsets are odd multiples of the "
                "element size",
                e.base_align);
    static const int kx[] = {1, 3, 9}, ky[] = {3, 1, 9};
    static const int inputs[] = {IN_SPECIAL_ROWS, FILL_FEW, FILL_BITS, FILL_MIXED};
    int n = 0;
    for (size_t t = 0; t < NUM_SOME_TYPES; t++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, n++) {
            const shape3 *sh = &shapes[s];
            job j;
            job_argmax(&j, some_types[t], sh->rank, sh->dims, 13, sh->axis, n % 2, (n / 2) % 2);
            if (n % 3 == 2) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, kx[n % 3], ky[(n / 3) % 3]);
            if (sh->dims[sh->rank - 1] > 100000 && planner_free()) {
                size_t need = 0;
                ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "scratch_size");
                cr_assert_gt(need, 0, "a long row should be split, so need scratch");
            }
            job_fill(&j, inputs[n % 4], 100 + (uint64_t)n);
            run_job(&e, ctx, host, &j, NULL);
            job_free(&j);
        }
    }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Long rows whose maxima (ties, NaNs) lie in different segments of a split. */
Test(enqueue, long_rows_ties_across_segments)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const int64_t dims[2] = {2, 250000};
    for (int t = 0; t < 3; t++) {
        clmax_type type = t == 0   ? CLMAX_TYPE_FLOAT32
                          : t == 1 ? CLMAX_TYPE_FLOAT16
                                   : CLMAX_TYPE_INT64;
        for (int last = 0; last < 2; last++) {
            for (int pattern = 0; pattern < 2; pattern++) {
                job j;
                job_argmax(&j, type, 2, dims, 13, 1, 1, last);
                job_offsets(&j, 3, 3);
                job_fill(&j, FILL_CONST, 7);
                if (pattern == 1) { /* -inf (minimum) everywhere, top values far apart */
                    ref_view v = {2, 250000, 1};
                    for (uint64_t k = 0; k < 500000; k++)
                        elem_set(type, j.x, k, value_bottom(type));
                    test_rng rng;
                    rng_seed(&rng, 11);
                    const uint64_t row0[] = {60001, 190003, 249999}, row1[] = {3, 190003};
                    for (int k = 0; k < 3; k++)
                        plant(type, j.x, v, 0, 0, row0[k], value_top(type, &rng));
                    for (int k = 0; k < 2; k++)
                        plant(type, j.x, v, 1, 0, row1[k], value_top(type, &rng));
                    int64_t *want = (int64_t *)j.want;
                    cr_assert_eq(ref_argmax(&j.desc, j.x, &j.aa, want), CLMAX_OK);
                    cr_assert_eq(want[0], last ? 249999 : 60001);
                    cr_assert_eq(want[1], last ? 190003 : 3);
                }
                run_job(&e, ctx, NULL, &j, NULL);
                job_free(&j);
            }
        }
    }
    clmax_context_destroy(ctx);
    env_close(&e);
}

Test(enqueue, argmax_opsets_and_attributes)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    const int64_t dims[3] = {4, 6, 5};
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_INT8, CLMAX_TYPE_BFLOAT16};
    int n = 0;
    for (size_t t = 0; t < 3; t++)
        for (int o = 0; o < 4; o++) {
            int opset = test_argmax_opsets[o];
            if (!ref_argmax_takes_type(types[t], opset)) continue;
            for (int64_t axis = -3; axis < 3; axis++)
                for (int keep = 0; keep < 2; keep++)
                    for (int last = 0; last < (opset >= 12 ? 2 : 1); last++, n++) {
                        job j;
                        job_argmax(&j, types[t], 3, dims, opset, axis, keep, last);
                        if (n % 4 == 1) j.itype = CLMAX_INDEX_INT32;
                        job_offsets(&j, 1 + 2 * (n % 5), 1 + 2 * (n % 3));
                        job_fill(&j, n % 2 ? FILL_SMALL : IN_SPECIAL_ROWS, (uint64_t)n);
                        run_job(&e, ctx, host, &j, NULL);
                        job_free(&j);
                    }
        }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

Test(enqueue, hardmax_opsets)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    const int64_t small[3] = {3, 4, 50};
    int n = 0;
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
        for (int o = 0; o < 3; o++) {
            int opset = test_hardmax_opsets[o];
            if (!ref_hardmax_takes_type(test_float_types[t], opset)) continue;
            for (int64_t axis = -3; axis < 3; axis++, n++) {
                job j;
                job_hardmax(&j, test_float_types[t], 3, small, opset, axis);
                job_offsets(&j, 1 + 2 * (n % 5), 1 + 2 * (n % 4));
                job_fill(&j, n % 2 ? FILL_FEW : IN_SPECIAL_ROWS, 300 + (uint64_t)n);
                run_job(&e, ctx, host, &j, NULL);
                job_free(&j);
            }
        }
    /* long rows: opset 13 along the last axis; opsets 1 and 11 coerce [2, 500 * 401] */
    const int64_t longrow[2] = {2, 200001}, coerced[3] = {2, 500, 401};
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++) {
        job j;
        job_hardmax(&j, test_float_types[t], 2, longrow, 13, -1);
        job_offsets(&j, 3, 9);
        job_fill(&j, t % 2 ? FILL_FEW : FILL_MIXED, 400 + (uint64_t)t);
        run_job(&e, ctx, host, &j, NULL);
        job_free(&j);
        if (test_float_types[t] == CLMAX_TYPE_BFLOAT16) continue;
        job_hardmax(&j, test_float_types[t], 3, coerced, t % 2 ? 1 : 11, 1);
        job_offsets(&j, 9, 3);
        job_fill(&j, FILL_SPECIAL, 500 + (uint64_t)t);
        run_job(&e, ctx, host, &j, NULL);
        job_free(&j);
    }
    /* short rows (CPU devices: 16 rows a work-item, each one written by the reduce kernel), of
     * exactly two 8-lane vectors and of a length that is not a multiple of a vector, with a
     * partial last work-item */
    const int64_t short_rows[2][2] = {{53, 16}, {40, 33}};
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
        for (int k = 0; k < 2; k++) {
            job j;
            job_hardmax(&j, test_float_types[t], 2, short_rows[k], 13, -1);
            job_offsets(&j, 5, 1 + 2 * k);
            job_fill(&j, k ? FILL_FEW : FILL_MIXED, 600 + (uint64_t)(2 * t + k));
            run_job(&e, ctx, host, &j, NULL);
            job_free(&j);
        }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Shapes that reach every part of the zeros that the reduce kernels write themselves on CPU
 * devices (FUSED_ZERO in kernels/vec.cl): every output byte must be written, nothing outside
 * it (the guard bytes around y), with y at offsets that are never 16-byte aligned. On other
 * devices these are plain Hardmax cases. */
Test(enqueue, hardmax_zeros_in_the_reduce)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const shape3 cases[] = {
        {2, {3, 70001}, 1},    /* long rows, split into segments */
        {2, {5, 100}, 1},      /* rows of 100: words left after the vector loop */
        {3, {3, 37, 64}, 1},   /* whole lane rows of 64: 16-bit types read two streams */
        {3, {2, 9, 40}, 1},    /* lanes past the last full vector */
        {2, {5000, 3}, 0},     /* lanes shorter than a vector, the axis split */
        {2, {6, 5000}, 0},     /* a lane block and a shorter one */
        {3, {2, 2051, 16}, 1}, /* split whole-row lanes */
        {2, {150, 4100}, 0}    /* rows of 8200 bytes or more: wide tiles, the axis split */
    };
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++, n++) {
            job j;
            job_hardmax(&j, test_float_types[t], cases[c].rank, cases[c].dims, 13, cases[c].axis);
            job_offsets(&j, 1 + 2 * (n % 3), 1 + 2 * (n % 5));
            job_fill(&j, n % 2 ? FILL_FEW : FILL_MIXED, 800 + (uint64_t)n);
            run_job(&e, ctx, NULL, &j, NULL);
            job_free(&j);
        }
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* clmax_enqueue_max_with_indices and min_with_indices: the values are the bits of the reference's
 * winners (NaN payloads, -0, integer extremes), in a buffer of their own at an odd offset with
 * guard bytes, beside the indices; every type, every kind of shape above and two with few lanes
 * (the wide problem and narrow_merge before the gather), both tie rules, int32 indices; and the
 * host API on a CPU-path context gives the same values. */
Test(enqueue, values_beside_indices)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    const size_t nshapes = sizeof shapes / sizeof shapes[0];
    const shape3 few_lanes[] = {{2, {40001, 3}, 0}, {3, {2, 40001, 2}, 1}};
    static const int inputs[] = {IN_SPECIAL_ROWS, FILL_FEW, FILL_BITS, FILL_MIXED};
    int n = 0;
    for (int t = 0; t < TEST_NUM_TYPES; t++)
        for (size_t s = 0; s < nshapes + 2; s++, n++) {
            const shape3 *sh = s < nshapes ? &shapes[s] : &few_lanes[s - nshapes];
            clmax_type type = test_all_types[t];
            job j;
            if (n % 2)
                job_argmin(&j, type, sh->rank, sh->dims, 13, sh->axis, n % 4 == 1, n % 3 == 0);
            else
                job_argmax(&j, type, sh->rank, sh->dims, 13, sh->axis, n % 4 == 0, n % 3 == 0);
            j.values = 1;
            if (n % 3 == 2) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, 1 + 2 * (n % 3), 1 + 2 * (n % 4));
            job_fill(&j, inputs[n % 4], 3000 + (uint64_t)n);
            run_job(&e, ctx, host, &j, NULL);
            job_free(&j);
        }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Strided axes with few lanes, which the enqueue path runs as a wide problem and the
 * narrow_merge kernel (host/narrow.c): one slice with rows past the last wide row, slices as one
 * wide problem, slices where g does not divide the axis (no merge then), a wide axis long enough
 * to be split (its winners then follow the partial pairs in scratch); every output mode,
 * both tie rules, ArgMin, unaligned offsets; and with the caller's scratch of exactly the size
 * asked for (the wide winners live there). */
Test(enqueue, few_lanes)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const shape3 cases[] = {{2, {40001, 3}, 0},
                            {3, {3, 32768, 4}, 1},
                            {3, {2, 40001, 2}, 1},
                            {2, {200001, 3}, 0}}; /* the wide axis split: winners after the pairs */
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_UINT8, CLMAX_TYPE_FLOAT16,
                                CLMAX_TYPE_INT64, CLMAX_TYPE_FLOAT64};
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++, n++) {
            const shape3 *sh = &cases[c];
            job j;
            if (n % 3 == 2)
                job_argmin(&j, types[t], sh->rank, sh->dims, 13, sh->axis, n % 2, n % 4 == 0);
            else
                job_argmax(&j, types[t], sh->rank, sh->dims, 13, sh->axis, n % 2, n % 4 == 1);
            if (n % 2) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, 1 + 2 * (n % 3), 1 + 2 * (n % 4));
            job_fill(&j,
                     n % 3 == 0   ? FILL_CONST
                     : n % 3 == 1 ? FILL_FEW
                                  : IN_SPECIAL_ROWS,
                     1000 + (uint64_t)n);
            size_t need = 0;
            ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "scratch_size");
            cl_mem scratch = NULL;
            clmax_enqueue_options o;
            clmax_enqueue_options_init(&o);
            unsigned char guard[64];
            if (need > 0 && n % 2 == 0) {
                /* the caller's scratch, scratch_size exactly as asked, with guard bytes after it
                 * in the same buffer: nothing may be written past scratch_size */
                unsigned char *image = malloc(need + sizeof guard);
                cr_assert_not_null(image);
                memset(image, 0x5A, need + sizeof guard);
                cl_int err;
                scratch = clCreateBuffer(e.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                         need + sizeof guard, image, &err);
                free(image);
                CL_OK(err, "clCreateBuffer(scratch)");
                o.scratch = scratch;
                o.scratch_size = need;
            }
            run_job(&e, ctx, NULL, &j, &o);
            if (scratch) {
                CL_OK(clEnqueueReadBuffer(e.queue, scratch, CL_TRUE, need, sizeof guard, guard, 0,
                                          NULL, NULL),
                      "clEnqueueReadBuffer(scratch guard)");
                for (size_t g = 0; g < sizeof guard; g++)
                    cr_assert_eq(guard[g], 0x5A, "%s: wrote past scratch_size (%zu bytes)", j.what,
                                 need);
                clReleaseMemObject(scratch);
            }
            job_free(&j);

            if (!ref_hardmax_takes_type(types[t], 13)) continue;
            job_hardmax(&j, types[t], sh->rank, sh->dims, 13, sh->axis);
            job_offsets(&j, 3, 1 + 2 * (n % 5));
            job_fill(&j, n % 2 ? FILL_FEW : FILL_MIXED, 1100 + (uint64_t)n);
            run_job(&e, ctx, NULL, &j, NULL);
            job_free(&j);
        }
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* options.strategy forced on contexts made from the caller's objects. */
Test(enqueue, forced_strategies)
{
    clenv e;
    env_open(&e, 0);
    const clmax_strategy strategies[] = {CLMAX_STRATEGY_ROWS, CLMAX_STRATEGY_STRIDED,
                                         CLMAX_STRATEGY_SPLIT};
    const shape3 cases[] = {{2, {9, 700}, 1}, {3, {4, 150, 21}, 1}, {2, {2, 5000}, 1},
                            {2, {3, 1}, 1},   {3, {1, 7, 3}, 0},    {3, {6, 2, 300}, 2},
                            {1, {70001}, 0},  {2, {4097, 2}, 0}};
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT64,
                                CLMAX_TYPE_UINT8, CLMAX_TYPE_FLOAT64};
    int n = 0;
    for (int s = 0; s < 3; s++) {
        clmax_context *ctx = clmax_open(&e, strategies[s]);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const shape3 *sh = &cases[c];
            for (size_t t = 0; t < sizeof types / sizeof types[0]; t++, n++) {
                job j;
                job_argmax(&j, types[t], sh->rank, sh->dims, 13, sh->axis, 1, n % 2);
                if (n % 3 == 0) j.itype = CLMAX_INDEX_INT32;
                job_offsets(&j, 3, 1 + 2 * (n % 3));
                job_fill(&j, n % 2 ? IN_SPECIAL_ROWS : FILL_FEW, 600 + (uint64_t)n);
                size_t need = 0;
                ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "scratch_size");
                int64_t axis_len = sh->dims[sh->axis];
                if (strategies[s] == CLMAX_STRATEGY_SPLIT && axis_len >= 2)
                    cr_assert_gt(need, 0, "%s: a forced split needs scratch", j.what);
                if (strategies[s] != CLMAX_STRATEGY_SPLIT || axis_len < 2)
                    cr_assert_eq(need, 0, "%s: %zu bytes of scratch without a split", j.what, need);
                run_job(&e, ctx, NULL, &j, NULL);
                job_free(&j);

                if (!ref_hardmax_takes_type(types[t], 13)) continue;
                job_hardmax(&j, types[t], sh->rank, sh->dims, 13, sh->axis);
                job_offsets(&j, 1, 3);
                job_fill(&j, FILL_FEW, 700 + (uint64_t)n);
                run_job(&e, ctx, NULL, &j, NULL);
                job_free(&j);
            }
        }
        clmax_context_destroy(ctx);
    }
    env_close(&e);
}

/* Contexts made from the caller's objects read CLMAX_PLAN too: a bad value is refused (unless
 * the environment is ignored), and a GPU's plans (work-group trees, split axes) give exact answers
 * on whatever device this is. */
Test(enqueue, environment_plan)
{
    clenv e;
    env_open(&e, 0); /* before CLMAX_PLAN is set: it probes with a context of its own */
    clmax_context_options o;
    clmax_context_options_init(&o);
    clmax_context *ctx = NULL;
    setenv("CLMAX_PLAN", "integrated", 1);
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, e.queue, &o, &ctx),
              CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert_null(ctx);
    cr_assert(strstr(clmax_last_error(), "CLMAX_PLAN") != NULL, "%s", clmax_last_error());
    o.ignore_environment = 1;
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, e.queue, &o, &ctx), CLMAX_OK);
    clmax_context_destroy(ctx);

    setenv("CLMAX_PLAN", "gpu", 1);
    ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const shape3 cases[] = {{2, {40, 50}, 1},
                            {2, {9, 3000}, 1},
                            {3, {4, 300, 33}, 1},
                            {2, {2, 20011}, 1},
                            {3, {1, 5000, 3}, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const shape3 *sh = &cases[c];
        job j;
        job_argmax(&j, CLMAX_TYPE_FLOAT32, sh->rank, sh->dims, 13, sh->axis, 1, (int)(c % 2));
        job_offsets(&j, 3, 1);
        job_fill(&j, c % 2 ? IN_SPECIAL_ROWS : FILL_FEW, 900 + (uint64_t)c);
        run_job(&e, ctx, NULL, &j, NULL);
        job_free(&j);
    }
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- ArgMin ---------------------------------------------------------------------------------- */

/* clmax_enqueue_argmin at odd offsets, int64 and int32 indices, on contiguous, strided and split
 * axes; the int64 results also against clmax_argmin on a CPU-path context. */
Test(enqueue, argmin_types_and_offsets)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    static const int kx[] = {3, 1, 9}, ky[] = {1, 9, 3};
    static const int inputs[] = {IN_SPECIAL_ROWS, FILL_SMALL, FILL_BITS, FILL_FEW};
    int n = 0;
    for (size_t t = 0; t < NUM_SOME_TYPES; t++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, n++) {
            const shape3 *sh = &shapes[s];
            job j;
            job_argmin(&j, some_types[t], sh->rank, sh->dims, 13, sh->axis, (n + 1) % 2,
                       (n / 2) % 2);
            if (n % 3 == 1) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, kx[n % 3], ky[(n / 3) % 3]);
            if (sh->dims[sh->rank - 1] > 100000 && planner_free()) {
                size_t need = 0;
                ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "scratch_size");
                cr_assert_gt(need, 0, "a long row should be split, so need scratch");
            }
            job_fill(&j, inputs[n % 4], 1500 + (uint64_t)n);
            run_job(&e, ctx, host, &j, NULL);
            job_free(&j);
        }
    }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Long rows split across work-groups (planned and forced), minima and NaNs in different segments,
 * int32 and int64 indices; opsets and attributes on a small tensor; int32 overflow, an empty
 * tensor, and a CPU-path context refused. */
Test(enqueue, argmin_split_int32_and_rules, .timeout = 900)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *planned = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *split = clmax_open(&e, CLMAX_STRATEGY_SPLIT);
    clmax_context *host = cpu_open();
    const int64_t dims[2] = {2, 250000};
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT64,
                                CLMAX_TYPE_UINT8};
    int n = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int last = 0; last < 2; last++, n++) {
            clmax_type type = types[t];
            job j;
            job_argmin(&j, type, 2, dims, 13, 1, 1, last);
            if (n % 2) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, 3, 1);
            job_fill(&j, FILL_CONST, 1600 + (uint64_t)n);
            /* a background above the bottom, with winners far apart in each row */
            ref_view v = {2, 250000, 1};
            test_rng rng;
            rng_seed(&rng, 1610 + (uint64_t)n);
            for (uint64_t k = 0; k < 500000; k++)
                elem_set(type, j.x, k, value_above_bottom(type, &rng));
            const uint64_t row0[] = {60001, 190003, 249999}, row1[] = {3, 190003};
            for (int k = 0; k < 3; k++)
                plant(type, j.x, v, 0, 0, row0[k], value_bottom(type));
            for (int k = 0; k < 2; k++)
                plant(type, j.x, v, 1, 0, row1[k],
                      ref_type_is_integer(type) ? value_bottom(type) : value_top(type, &rng));
            int64_t want[2];
            cr_assert_eq(ref_argmin(&j.desc, j.x, &j.aa, want), CLMAX_OK);
            cr_assert_eq(want[0], last ? 249999 : 60001);
            cr_assert_eq(want[1], last ? 190003 : 3);
            for (int k = 0; k < 2; k++) {
                if (j.itype == CLMAX_INDEX_INT32) {
                    int32_t w32 = (int32_t)want[k];
                    memcpy(j.want + 4 * k, &w32, 4);
                } else {
                    memcpy(j.want + 8 * k, &want[k], 8);
                }
            }
            run_job(&e, n % 4 < 2 ? planned : split, host, &j, NULL);
            job_free(&j);
        }

    /* opsets and attributes */
    const int64_t small[3] = {4, 6, 5};
    for (int o = 0; o < 4; o++) {
        int opset = test_argmax_opsets[o];
        for (int64_t axis = -3; axis < 3; axis += 2)
            for (int last = 0; last < (opset >= 12 ? 2 : 1); last++, n++) {
                job j;
                job_argmin(&j, n % 2 ? CLMAX_TYPE_INT16 : CLMAX_TYPE_FLOAT64, 3, small, opset, axis,
                           n % 2, last);
                if (n % 3 == 0) j.itype = CLMAX_INDEX_INT32;
                job_offsets(&j, 1 + 2 * (n % 5), 1 + 2 * (n % 3));
                job_fill(&j, n % 2 ? FILL_SMALL : IN_SPECIAL_ROWS, 1700 + (uint64_t)n);
                run_job(&e, split, host, &j, NULL);
                job_free(&j);
            }
    }

    /* int32 indices for an axis that does not fit, and an empty tensor still gives an event */
    cl_int err;
    cl_mem x = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    cl_mem y = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    clmax_enqueue_options i32;
    clmax_enqueue_options_init(&i32);
    i32.index_type = CLMAX_INDEX_INT32;
    const int64_t over[2] = {1, ((int64_t)1 << 31) + 1}, empty[2] = {0, 5};
    clmax_tensor_desc d_over = test_desc(CLMAX_TYPE_FLOAT32, 2, over);
    clmax_tensor_desc d_empty = test_desc(CLMAX_TYPE_FLOAT32, 2, empty);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    cl_event ev = NULL;
    EXPECT_ST(clmax_enqueue_argmin(planned, &d_over, x, 0, &a, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    cr_assert_null(ev);
    EXPECT_ST(clmax_enqueue_argmin(planned, &d_empty, x, 0, &a, y, 8, &i32, 0, NULL, &ev),
              CLMAX_OK);
    cr_assert_not_null(ev);
    CL_OK(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    ev = NULL;
    a.opset = 11;
    a.select_last_index = 1;
    EXPECT_ST(clmax_enqueue_argmin(planned, &d_over, x, 0, &a, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ATTRIBUTE);
    cr_assert(strstr(clmax_last_error(), "ArgMin") != NULL, "%s", clmax_last_error());
    EXPECT_ST(clmax_enqueue_argmin(host, &d_over, x, 0, NULL, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_enqueue_argmin(NULL, &d_over, x, 0, NULL, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert_null(ev);
    CL_OK(clFinish(e.queue), "clFinish");
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clmax_context_destroy(host);
    clmax_context_destroy(split);
    clmax_context_destroy(planned);
    env_close(&e);
}

/* ---- Events: chains, several operations in flight ------------------------------------------ */

#define CHAIN_JOBS 10

/* Every write waits on a user event (the gate), every clmax call on its write, every read on its
 * clmax event only: nothing can run until the gate opens, so all operations are in flight at once
 * and share the context's cached scratch (which grows on the way). The last pair is a chain of
 * two clmax calls: Hardmax, then ArgMax of its one-hot output, which must equal ArgMax of x. */
static void chain_body(int out_of_order)
{
    clenv e;
    env_open(&e, out_of_order);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cl_int err;
    cl_event gate = clCreateUserEvent(e.context, &err);
    CL_OK(err, "clCreateUserEvent");

    static const shape3 cs[CHAIN_JOBS] = {
        {2, {2, 100000}, 1}, {2, {3, 300000}, 1}, {2, {50, 70}, 1},   {3, {3, 40, 20}, 1},
        {2, {1, 210000}, 1}, {2, {2, 260000}, 1}, {2, {4, 30000}, 1}, {2, {1, 250001}, 0},
        {2, {2, 220000}, 1}, {2, {2, 220000}, 1}};
    static const clmax_type ts[CHAIN_JOBS] = {
        CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT8,     CLMAX_TYPE_FLOAT64,
        CLMAX_TYPE_UINT64,  CLMAX_TYPE_FLOAT32, CLMAX_TYPE_BFLOAT16, CLMAX_TYPE_INT64,
        CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT32};
    job jobs[CHAIN_JOBS];
    for (int k = 0; k < CHAIN_JOBS; k++) {
        job *j = &jobs[k];
        if (k == 5 || k == CHAIN_JOBS - 2)
            job_hardmax(j, ts[k], cs[k].rank, cs[k].dims, 13, cs[k].axis);
        else
            job_argmax(j, ts[k], cs[k].rank, cs[k].dims, 13, cs[k].axis, 1, k % 2);
        if (k % 4 == 3) j->itype = CLMAX_INDEX_INT32;
        job_offsets(j, 1 + 2 * (k % 3), 1 + 2 * (k % 5));
        job_fill(j, k % 2 ? FILL_FEW : FILL_MIXED, 800 + (uint64_t)k);
    }
    /* the last job reads the one-hot output of the one before it (same shape, float32) */
    job *first = &jobs[CHAIN_JOBS - 2], *second = &jobs[CHAIN_JOBS - 1];
    memcpy(second->x, first->want, first->y_bytes);
    cr_assert_eq(ref_argmax(&second->desc, second->x, &second->aa, (int64_t *)second->want),
                 CLMAX_OK);
    second->x_off = first->y_off;
    snprintf(second->what, sizeof second->what, "argmax of the hardmax output (%.200s)",
             first->what);

    for (int k = 0; k < CHAIN_JOBS - 1; k++) {
        JOB_OK(job_buffers(&e, &jobs[k], 1, &gate));
        if (job_enqueue(ctx, &jobs[k], NULL, 0, NULL) != CLMAX_OK)
            cr_assert_fail("%s", jobs[k].err);
        JOB_OK(job_read(&e, &jobs[k]));
    }
    /* the second call of the chain reads first's output buffer in place */
    JOB_OK(arena_make(&e, &second->ya, second->y_off, second->y_bytes, NULL, 1));
    cl_event after_first = first->done;
    second->st =
        clmax_enqueue_argmax(ctx, &second->desc, first->ya.mem, second->x_off, &second->aa,
                             second->ya.mem, second->y_off, NULL, 1, &after_first, &second->done);
    ST_OK(second->st, "clmax_enqueue_argmax on the output of clmax_enqueue_hardmax");
    second->got_y = test_malloc(second->ya.size);
    CL_OK(clEnqueueReadBuffer(e.queue, second->ya.mem, CL_FALSE, 0, second->ya.size, second->got_y,
                              1, &second->done, &second->read_y),
          "clEnqueueReadBuffer");

    /* Nothing may have run: every command depends on the gate. */
    for (int k = 0; k < CHAIN_JOBS; k++) {
        cl_int s = event_status(jobs[k].done);
        cr_assert(s > CL_COMPLETE, "%s: clmax's event is %d before its input was written",
                  jobs[k].what, (int)s);
    }
    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
    for (int k = 0; k < CHAIN_JOBS - 1; k++)
        JOB_OK(job_wait(&jobs[k]));
    CL_OK(clWaitForEvents(1, &second->read_y), "clWaitForEvents");
    for (int k = 0; k < CHAIN_JOBS; k++) {
        cr_assert_eq(event_status(jobs[k].done), CL_COMPLETE);
        JOB_OK(job_check(&jobs[k]));
    }
    CL_OK(clFinish(e.queue), "clFinish");
    for (int k = 0; k < CHAIN_JOBS; k++)
        job_free(&jobs[k]);
    clReleaseEvent(gate);
    clmax_context_destroy(ctx);
    env_close(&e);
}

Test(enqueue, chain_in_order_queue, .timeout = 900)
{
    chain_body(0);
}

Test(enqueue, chain_out_of_order_queue, .timeout = 900)
{
    chain_body(1);
}

/* Wait lists around the length clmax builds on the stack (16, with its scratch event added) and
 * beyond it: the call waits on every event of the list, the last one included. */
Test(enqueue, long_wait_lists)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    static const cl_uint lens[] = {14, 15, 16, 17, 40};
    const int64_t dims[2] = {3, 70000};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        cl_event gates[40];
        cl_int err;
        for (cl_uint g = 0; g < lens[t]; g++) {
            gates[g] = clCreateUserEvent(e.context, &err);
            CL_OK(err, "clCreateUserEvent");
        }
        job j;
        if (t % 2)
            job_hardmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1);
        else
            job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
        job_offsets(&j, 1, 1);
        job_fill(&j, FILL_MIXED, 1300 + (uint64_t)t);
        j.preload = 1;
        JOB_OK(job_buffers(&e, &j, 0, NULL));
        if (job_enqueue(ctx, &j, NULL, lens[t], gates) != CLMAX_OK) cr_assert_fail("%s", j.err);
        JOB_OK(job_read(&e, &j));
        for (cl_uint g = 0; g + 1 < lens[t]; g++)
            CL_OK(clSetUserEventStatus(gates[g], CL_COMPLETE), "clSetUserEventStatus");
        cr_assert(event_status(j.done) > CL_COMPLETE,
                  "%u events: clmax's event completed before the last one", (unsigned)lens[t]);
        CL_OK(clSetUserEventStatus(gates[lens[t] - 1], CL_COMPLETE), "clSetUserEventStatus");
        JOB_OK(job_wait(&j));
        JOB_OK(job_check(&j));
        job_free(&j);
        for (cl_uint g = 0; g < lens[t]; g++)
            clReleaseEvent(gates[g]);
    }
    CL_OK(clFinish(e.queue), "clFinish");
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- int32 indices -------------------------------------------------------------------------- */

/* The overflow refusal comes before any buffer range check, so descriptors of more than 2^31
 * elements along the axis can be tried on buffers of a few bytes. */
Test(enqueue, int32_index_overflow)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cl_int err;
    cl_mem x = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    cl_mem y = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    clmax_enqueue_options i32, i64;
    clmax_enqueue_options_init(&i32);
    clmax_enqueue_options_init(&i64);
    i32.index_type = CLMAX_INDEX_INT32;
    cr_assert_eq(i64.index_type, CLMAX_INDEX_INT64);
    cr_assert_null(i64.scratch);
    const int64_t two31 = (int64_t)1 << 31;

    const int64_t over[2] = {1, two31 + 1}, exact[2] = {1, two31}, wide[2] = {3, two31 * 2};
    const int64_t over0[2] = {two31 + 5, 1};
    clmax_tensor_desc d_over = test_desc(CLMAX_TYPE_FLOAT32, 2, over);
    clmax_tensor_desc d_exact = test_desc(CLMAX_TYPE_FLOAT32, 2, exact);
    clmax_tensor_desc d_wide = test_desc(CLMAX_TYPE_UINT8, 2, wide);
    clmax_tensor_desc d_over0 = test_desc(CLMAX_TYPE_INT8, 2, over0);
    clmax_argmax_attrs a1, a0;
    clmax_argmax_attrs_init(&a1, 13);
    a1.axis = 1;
    clmax_argmax_attrs_init(&a0, 11);
    cl_event ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over, x, 0, &a1, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_wide, x, 0, &a1, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over0, x, 0, &a0, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    a1.keepdims = 0;
    a1.select_last_index = 1;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over, x, 0, &a1, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    /* 2^31 elements: the last index 2^31 - 1 fits, so this reaches (and fails) the range check */
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_exact, x, 0, &a1, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    /* int64 indices never overflow: the same descriptor fails the range check instead */
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over, x, 0, &a1, y, 0, &i64, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over, x, 0, &a1, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    /* Hardmax has no indices */
    EXPECT_ST(clmax_enqueue_hardmax(ctx, &d_over, x, 0, NULL, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    /* nothing to write, nothing to overflow */
    const int64_t empty[2] = {0, two31 * 4};
    clmax_tensor_desc d_empty = test_desc(CLMAX_TYPE_FLOAT32, 2, empty);
    ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_empty, x, 0, &a1, y, 0, &i32, 0, NULL, &ev), CLMAX_OK);
    cr_assert_not_null(ev);
    CL_OK(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- Caller scratch ------------------------------------------------------------------------- */

Test(enqueue, caller_scratch)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_SPLIT);
    const int64_t dims[2] = {3, 120001};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    job_offsets(&j, 3, 3);
    job_fill(&j, FILL_FEW, 900);
    size_t need = 0;
    ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "clmax_argmax_scratch_size");
    cr_assert_gt(need, 0);
    size_t need_h = 0;
    clmax_hardmax_attrs ha = {13, 1};
    ST_OK(clmax_hardmax_scratch_size(ctx, &j.desc, &ha, &need_h), "clmax_hardmax_scratch_size");
    cr_assert_gt(need_h, 0);

    cl_int err;
    size_t big = need > need_h ? need : need_h;
    cl_mem scratch = clCreateBuffer(e.context, CL_MEM_READ_WRITE, big, NULL, &err);
    CL_OK(err, "clCreateBuffer(scratch)");
    clmax_enqueue_options o;
    clmax_enqueue_options_init(&o);
    o.scratch = scratch;
    o.scratch_size = need;

    /* exactly the size asked for */
    run_job(&e, ctx, NULL, &j, &o);
    job_free(&j);

    /* two operations on one scratch, back to back on the in-order queue; then one byte short */
    job j2[2];
    for (int k = 0; k < 2; k++) {
        job_argmax(&j2[k], CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, k);
        job_offsets(&j2[k], 1 + 2 * k, 9);
        job_fill(&j2[k], k ? FILL_MIXED : IN_SPECIAL_ROWS, 910 + (uint64_t)k);
        JOB_OK(job_buffers(&e, &j2[k], 0, NULL));
        if (job_enqueue(ctx, &j2[k], &o, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j2[k].err);
        JOB_OK(job_read(&e, &j2[k]));
    }
    for (int k = 0; k < 2; k++) {
        JOB_OK(job_wait(&j2[k]));
        JOB_OK(job_check(&j2[k]));
    }
    o.scratch_size = need - 1;
    cl_event ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &j2[0].desc, j2[0].xa.mem, j2[0].x_off, &j2[0].aa,
                                   j2[0].ya.mem, j2[0].y_off, &o, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    o.scratch_size = need_h - 1;
    EXPECT_ST(clmax_enqueue_hardmax(ctx, &j2[0].desc, j2[0].xa.mem, j2[0].x_off, &ha, j2[1].xa.mem,
                                    0, &o, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    CL_OK(clFinish(e.queue), "clFinish");
    /* the refused call wrote nothing: the earlier answer and the guards are still there */
    CL_OK(clEnqueueReadBuffer(e.queue, j2[0].ya.mem, CL_TRUE, 0, j2[0].ya.size, j2[0].got_y, 0,
                              NULL, NULL),
          "clEnqueueReadBuffer");
    JOB_OK(job_check(&j2[0]));
    job_free(&j2[0]);
    job_free(&j2[1]);

    /* Hardmax and int32 ArgMax with caller scratch */
    o.scratch_size = big;
    job_hardmax(&j, CLMAX_TYPE_FLOAT16, 2, dims, 13, 1);
    job_offsets(&j, 9, 1);
    job_fill(&j, FILL_SPECIAL, 920);
    run_job(&e, ctx, NULL, &j, &o);
    job_free(&j);
    job_argmax(&j, CLMAX_TYPE_FLOAT64, 2, dims, 13, 1, 0, 1);
    j.itype = CLMAX_INDEX_INT32;
    job_offsets(&j, 1, 9);
    job_fill(&j, FILL_FEW, 930);
    run_job(&e, ctx, NULL, &j, &o);
    job_free(&j);

    /* a shape that needs none ignores the scratch fields */
    const int64_t one[2] = {3, 1};
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, one, 13, 1, 1, 0);
    size_t none = 1;
    ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &none), "scratch_size");
    cr_assert_eq(none, 0);
    o.scratch_size = 0;
    job_offsets(&j, 1, 1);
    job_fill(&j, FILL_BITS, 940);
    run_job(&e, ctx, NULL, &j, &o);
    job_free(&j);

    /* the query's own argument checks */
    const int64_t d2[2] = {2, 2};
    clmax_tensor_desc dd = test_desc(CLMAX_TYPE_FLOAT32, 2, d2);
    EXPECT_ST(clmax_argmax_scratch_size(ctx, &dd, NULL, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_argmax_scratch_size(NULL, &dd, NULL, &none), CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_hardmax_scratch_size(ctx, &dd, NULL, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
    clmax_argmax_attrs bad;
    clmax_argmax_attrs_init(&bad, 13);
    bad.axis = 5;
    EXPECT_ST(clmax_argmax_scratch_size(ctx, &dd, &bad, &none), CLMAX_ERROR_INVALID_AXIS);
    const int64_t z[2] = {0, 100000};
    dd = test_desc(CLMAX_TYPE_FLOAT32, 2, z);
    none = 1;
    ST_OK(clmax_hardmax_scratch_size(ctx, &dd, NULL, &none), "scratch_size of an empty tensor");
    cr_assert_eq(none, 0);

    clReleaseMemObject(scratch);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- Misuse --------------------------------------------------------------------------------- */

Test(enqueue, misuse)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const int64_t dims[2] = {4, 10};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    job_offsets(&j, 1, 1);
    job_fill(&j, FILL_MIXED, 1000);
    j.preload = 1;
    JOB_OK(job_buffers(&e, &j, 0, NULL));
    const clmax_tensor_desc *d = &j.desc;
    cl_mem x = j.xa.mem, y = j.ya.mem;
    const size_t xo = j.x_off, yo = j.y_off;
    const clmax_argmax_attrs *a = &j.aa;
    clmax_enqueue_options o;
    clmax_enqueue_options_init(&o);
    cl_event ev = NULL;
    const clmax_status BAD = CLMAX_ERROR_INVALID_ARGUMENT;

    EXPECT_ST(clmax_enqueue_argmax(NULL, d, x, xo, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, NULL, x, xo, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, NULL, xo, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, NULL, yo, NULL, 0, NULL, &ev), BAD);
    /* offsets that are not multiples of the element size */
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo + 2, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo + 4, NULL, 0, NULL, &ev), BAD);
    o.index_type = CLMAX_INDEX_INT32;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo + 2, &o, 0, NULL, &ev), BAD);
    o.index_type = (clmax_index_type)7;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, &o, 0, NULL, &ev), BAD);
    /* ranges beyond the buffers (the arenas have GUARD bytes after the tensor) */
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo + GUARD + 4, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo + GUARD + 8, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, j.xa.size + 4, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, SIZE_MAX - 3, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, SIZE_MAX - 7, NULL, 0, NULL, &ev), BAD);
    /* wait lists */
    cl_int err;
    cl_event user = clCreateUserEvent(e.context, &err);
    CL_OK(err, "clCreateUserEvent");
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 1, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 0, &user, &ev), BAD);
    /* operator checks, as in the host API */
    clmax_argmax_attrs bad = *a;
    bad.opset = 10;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, &bad, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_UNSUPPORTED_OPSET);
    bad = *a;
    bad.axis = 2;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, &bad, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_AXIS);
    bad = *a;
    bad.opset = 11;
    bad.select_last_index = 1;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, &bad, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ATTRIBUTE);
    clmax_tensor_desc dint = *d;
    dint.type = CLMAX_TYPE_INT32;
    EXPECT_ST(clmax_enqueue_hardmax(ctx, &dint, x, xo, NULL, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_UNSUPPORTED_TYPE);
    clmax_hardmax_attrs hbad = {12, 1};
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, &hbad, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_UNSUPPORTED_OPSET);
    /* Hardmax writes a tensor of x's size: y's arena is too small for it */
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, NULL, y, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo + 1, NULL, x, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_hardmax(NULL, d, x, xo, NULL, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, NULL, y, yo, NULL, 2, NULL, &ev), BAD);

    /* a queue of another context, a NULL object, no ctx pointer */
    cl_context other = clCreateContext(NULL, 1, &e.device, NULL, NULL, &err);
    CL_OK(err, "clCreateContext");
    cl_command_queue oq = clCreateCommandQueue(other, e.device, 0, &err);
    CL_OK(err, "clCreateCommandQueue");
    clmax_context *c2 = (clmax_context *)&j; /* must be reset to NULL */
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, oq, NULL, &c2), BAD);
    cr_assert_null(c2);
    EXPECT_ST(clmax_context_create_from_cl(NULL, e.device, e.queue, NULL, &c2), BAD);
    EXPECT_ST(clmax_context_create_from_cl(e.context, NULL, e.queue, NULL, &c2), BAD);
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, NULL, NULL, &c2), BAD);
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, e.queue, NULL, NULL), BAD);
    clmax_context_options co;
    clmax_context_options_init(&co);
    co.strategy = (clmax_strategy)9;
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, e.queue, &co, &c2), BAD);
    cr_assert_null(c2);
    clReleaseCommandQueue(oq);

    /* none of the refused calls wrote anything; a correct call still works afterwards */
    CL_OK(clFinish(e.queue), "clFinish");
    clReleaseEvent(user);
    j.got_y = test_malloc(j.ya.size);
    CL_OK(clEnqueueReadBuffer(e.queue, y, CL_TRUE, 0, j.ya.size, j.got_y, 0, NULL, NULL),
          "clEnqueueReadBuffer");
    for (size_t i = 0; i < j.ya.size; i++)
        cr_assert_eq(j.got_y[i], GUARD_BYTE, "byte %zu of y was written by a refused call", i);
    free(j.got_y);
    j.got_y = NULL;
    if (job_enqueue(ctx, &j, NULL, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j.err);
    JOB_OK(job_read(&e, &j));
    JOB_OK(job_wait(&j));
    JOB_OK(job_check(&j));

    /* An event of another context, or a NULL event, in the wait list: refused before anything
     * is enqueued (OpenCL leaves the first to the implementation; on NVIDIA's driver this test
     * did not finish when it passed one), and the message says which entry. */
    cl_event foreign = clCreateUserEvent(other, &err);
    CL_OK(err, "clCreateUserEvent");
    cl_event done = NULL;
    CL_OK(clEnqueueMarkerWithWaitList(e.queue, 0, NULL, &done), "clEnqueueMarkerWithWaitList");
    cl_event mixed[2] = {done, foreign};
    ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 2, mixed, &ev), BAD);
    cr_assert(strstr(clmax_last_error(), "wait_list[1]") != NULL, "%s", clmax_last_error());
    cr_assert(strstr(clmax_last_error(), "another OpenCL context") != NULL, "%s",
              clmax_last_error());
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, NULL, y, yo, NULL, 1, &foreign, &ev), BAD);
    cl_event with_null[2] = {done, NULL};
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 2, with_null, &ev), BAD);
    cr_assert(strstr(clmax_last_error(), "wait_list[1] is NULL") != NULL, "%s", clmax_last_error());
    cr_assert_null(ev);
    /* the same context's event is taken */
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 1, &done, &ev), CLMAX_OK);
    CL_OK(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    clReleaseEvent(done);
    CL_OK(clSetUserEventStatus(foreign, CL_COMPLETE), "clSetUserEventStatus");
    clReleaseEvent(foreign);
    clReleaseContext(other);
    job_free(&j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Expects the last error to mention what. */
#define EXPECT_MSG(what)                                                                           \
    cr_assert(strstr(clmax_last_error(), (what)) != NULL, "the message does not say \"%s\": %s",   \
              (what), clmax_last_error())

/* Reads bytes [off, off + len) of m. */
static void read_back(const clenv *e, cl_mem m, size_t off, size_t len, void *to)
{
    CL_OK(clEnqueueReadBuffer(e->queue, m, CL_TRUE, off, len, to, 0, NULL, NULL),
          "clEnqueueReadBuffer");
}

/* The values forms refuse what clmax_enqueue_argmax refuses, and a values range that is missing,
 * unaligned, outside its buffer, or on x's or the indices' range in the same buffer; every enqueue
 * call refuses an output range on x's range in the same buffer. Nothing refused writes anything.
 * Disjoint ranges of one buffer are taken: the values after the indices, the indices after x. */
Test(enqueue, values_misuse_and_overlaps)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const int64_t dims[2] = {4, 10};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    j.values = 1;
    job_offsets(&j, 1, 1); /* x at 4 (160 bytes), indices at 8 (32), values at 12 (16) */
    job_fill(&j, FILL_MIXED, 1200);
    j.preload = 1;
    JOB_OK(job_buffers(&e, &j, 0, NULL));
    const clmax_tensor_desc *d = &j.desc;
    cl_mem x = j.xa.mem, y = j.ya.mem, v = j.va.mem;
    const size_t xo = j.x_off, yo = j.y_off, vo = j.v_off;
    const clmax_argmax_attrs *a = &j.aa;
    cl_event ev = NULL;
    const clmax_status BAD = CLMAX_ERROR_INVALID_ARGUMENT;

    EXPECT_ST(clmax_enqueue_max_with_indices(NULL, d, x, xo, a, v, vo, y, yo, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_ST(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, NULL, vo, y, yo, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_MSG("values is NULL");
    EXPECT_ST(clmax_enqueue_min_with_indices(ctx, d, x, xo, a, NULL, vo, y, yo, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_ST(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, v, vo, NULL, yo, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_ST(
        clmax_enqueue_max_with_indices(ctx, d, x, xo, a, v, vo + 2, y, yo, NULL, 0, NULL, &ev),
        BAD);
    EXPECT_MSG("values offset");
    EXPECT_ST(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, v, vo + GUARD + 4, y, yo, NULL, 0,
                                             NULL, &ev),
              BAD);
    EXPECT_MSG("values holds");
    /* the values on the indices (y's arena has room for both ranges), the values on x */
    EXPECT_ST(
        clmax_enqueue_max_with_indices(ctx, d, x, xo, a, y, yo + 16, y, yo, NULL, 0, NULL, &ev),
        BAD);
    EXPECT_MSG("overlap");
    EXPECT_ST(
        clmax_enqueue_min_with_indices(ctx, d, x, xo, a, x, xo + 8, y, yo, NULL, 0, NULL, &ev),
        BAD);
    EXPECT_MSG("overlap");
    /* an output on x: the indices, Hardmax's one-hot */
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, x, 8, NULL, 0, NULL, &ev), BAD);
    EXPECT_MSG("overlap");
    EXPECT_ST(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, v, vo, x, 8, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, NULL, x, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_MSG("overlap");
    cr_assert_null(ev);

    /* nothing written; then the correct call */
    unsigned char *got = test_malloc(j.xa.size);
    read_back(&e, x, 0, j.xa.size, got);
    cr_assert(memcmp(got, j.xa.image, j.xa.size) == 0, "x was written by a refused call");
    read_back(&e, y, 0, j.ya.size, got);
    for (size_t i = 0; i < j.ya.size; i++)
        cr_assert_eq(got[i], GUARD_BYTE, "byte %zu of y was written by a refused call", i);
    read_back(&e, v, 0, j.va.size, got);
    for (size_t i = 0; i < j.va.size; i++)
        cr_assert_eq(got[i], GUARD_BYTE, "byte %zu of values was written by a refused call", i);
    if (job_enqueue(ctx, &j, NULL, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j.err);
    JOB_OK(job_read(&e, &j));
    JOB_OK(job_wait(&j));
    JOB_OK(job_check(&j));

    /* one buffer: indices at 8, values right after them */
    cl_int err;
    cl_mem both =
        clCreateBuffer(e.context, CL_MEM_READ_WRITE, 8 + j.y_bytes + j.v_bytes, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    ST_OK(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, both, 8 + j.y_bytes, both, 8, NULL, 0,
                                         NULL, NULL),
          "values after the indices in one buffer");
    read_back(&e, both, 8, j.y_bytes, got);
    cr_assert(memcmp(got, j.want, j.y_bytes) == 0, "indices before the values in one buffer");
    read_back(&e, both, 8 + j.y_bytes, j.v_bytes, got);
    cr_assert(memcmp(got, j.want_v, j.v_bytes) == 0, "values after the indices in one buffer");
    clReleaseMemObject(both);
    /* the indices in x's buffer, after x (x's arena: 4 + 160 + GUARD bytes) */
    size_t after = (xo + j.x_bytes + 7) / 8 * 8;
    cr_assert_leq(after + j.y_bytes, j.xa.size, "test bug: no room after x");
    ST_OK(clmax_enqueue_argmax(ctx, d, x, xo, a, x, after, NULL, 0, NULL, NULL),
          "indices after x in one buffer");
    read_back(&e, x, after, j.y_bytes, got);
    cr_assert(memcmp(got, j.want, j.y_bytes) == 0, "indices after x in one buffer");
    free(got);
    job_free(&j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* A CPU-path context refuses everything OpenCL; needs no device, so it runs everywhere. */
Test(enqueue, cpu_context_refuses)
{
    clmax_context *cpu = cpu_open();
    const int64_t dims[2] = {2, 3};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
    cl_event ev = NULL;
    size_t bytes = 1;
    cl_context c = (cl_context)&bytes;
    const clmax_status BAD = CLMAX_ERROR_INVALID_ARGUMENT;
    EXPECT_ST(clmax_enqueue_argmax(cpu, &d, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_hardmax(cpu, &d, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_max_with_indices(cpu, &d, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, 0,
                                             NULL, &ev),
              BAD);
    EXPECT_ST(clmax_enqueue_min_with_indices(cpu, &d, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, 0,
                                             NULL, &ev),
              BAD);
    cr_assert_null(ev);
    EXPECT_ST(clmax_argmax_scratch_size(cpu, &d, NULL, &bytes), BAD);
    EXPECT_ST(clmax_hardmax_scratch_size(cpu, &d, NULL, &bytes), BAD);
    EXPECT_ST(clmax_context_get_cl(cpu, &c, NULL, NULL), BAD);
    EXPECT_ST(clmax_context_get_cl(NULL, &c, NULL, NULL), BAD);
    EXPECT_ST(clmax_context_prebuild(cpu, NULL, 0), CLMAX_OK);
    clmax_context *none = NULL;
    EXPECT_ST(clmax_context_create_from_cl(NULL, NULL, NULL, NULL, &none), BAD);
    cr_assert_null(none);
    clmax_enqueue_options o;
    memset(&o, 0x5A, sizeof o);
    clmax_enqueue_options_init(&o);
    cr_assert_eq(o.index_type, CLMAX_INDEX_INT64);
    cr_assert_null(o.scratch);
    cr_assert_eq(o.scratch_size, 0);
    clmax_enqueue_options_init(NULL);
    clmax_context_destroy(cpu);
}

/* ---- Empty tensors -------------------------------------------------------------------------- */

Test(enqueue, empty_tensors_still_give_events)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cl_int err;
    cl_mem x = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    cl_mem y = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    const int64_t d05[2] = {0, 5}, d40[2] = {4, 0}, d403[3] = {4, 0, 3};
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    struct {
        int hardmax;
        clmax_tensor_desc d;
        int64_t axis;
    } cases[] = {{0, test_desc(CLMAX_TYPE_FLOAT32, 2, d05), 1},
                 {0, test_desc(CLMAX_TYPE_INT64, 2, d40), 0}, /* n = 4, no outputs */
                 {0, test_desc(CLMAX_TYPE_UINT8, 3, d403), -1},
                 {1, test_desc(CLMAX_TYPE_FLOAT16, 2, d05), 1},
                 {1, test_desc(CLMAX_TYPE_FLOAT64, 3, d403), 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cl_event gate = clCreateUserEvent(e.context, &err);
        CL_OK(err, "clCreateUserEvent");
        cl_event ev = NULL;
        clmax_status st;
        if (cases[c].hardmax) {
            clmax_hardmax_attrs h = {13, cases[c].axis};
            st = clmax_enqueue_hardmax(ctx, &cases[c].d, x, 0, &h, y, 8, NULL, 1, &gate, &ev);
        } else {
            a.axis = cases[c].axis;
            /* the values form too, with no values buffer: nothing is checked or written */
            st = c == 2
                     ? clmax_enqueue_max_with_indices(ctx, &cases[c].d, x, 0, &a, NULL, 0, y, 8,
                                                      NULL, 1, &gate, &ev)
                     : clmax_enqueue_argmax(ctx, &cases[c].d, x, 0, &a, y, 8, NULL, 1, &gate, &ev);
        }
        ST_OK(st, "enqueue of an empty tensor");
        cr_assert_not_null(ev, "case %zu: no event", c);
        cr_assert(event_status(ev) > CL_COMPLETE, "case %zu: complete before its wait list", c);
        CL_OK(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
        CL_OK(clWaitForEvents(1, &ev), "clWaitForEvents");
        cr_assert_eq(event_status(ev), CL_COMPLETE);
        clReleaseEvent(ev);
        clReleaseEvent(gate);
        /* no event asked for */
        if (!cases[c].hardmax)
            ST_OK(clmax_enqueue_argmax(ctx, &cases[c].d, x, 0, &a, y, 0, NULL, 0, NULL, NULL),
                  "enqueue of an empty tensor without an event");
    }
    /* an empty axis with outputs is still an error */
    a.axis = 1;
    cl_event ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &cases[1].d, x, 0, &a, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_EMPTY_AXIS);
    CL_OK(clFinish(e.queue), "clFinish");
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- Ownership of the caller's objects ------------------------------------------------------ */

/* Whether the reference counts come back to ctx_refs and q_refs within two seconds (OpenCL
 * implementations may free finished commands, which hold references, a little later). */
static int refs_settle(const clenv *e, cl_uint ctx_refs, cl_uint q_refs)
{
    for (int i = 0; i < 200; i++) {
        if (context_refs(e->context) == ctx_refs && queue_refs(e->queue) == q_refs) return 1;
        usleep(10000);
    }
    return 0;
}

Test(enqueue, user_objects_survive_destroy)
{
    clenv e;
    env_open(&e, 1);
    /* our references alone; buffers and events (ours and clmax's) hold more for a while */
    const cl_uint ctx_refs0 = context_refs(e.context), q_refs0 = queue_refs(e.queue);
    const int64_t dims[2] = {2, 150000};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    job_offsets(&j, 3, 3);
    job_fill(&j, FILL_MIXED, 1100);
    j.preload = 1;
    JOB_OK(job_buffers(&e, &j, 0, NULL));
    const cl_uint ctx_refs1 = context_refs(e.context), q_refs1 = queue_refs(e.queue);

    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cr_assert_gt(context_refs(e.context), ctx_refs1, "clmax did not retain the context");
    cr_assert_gt(queue_refs(e.queue), q_refs1, "clmax did not retain the queue");
    const cl_uint ctx_refs2 = context_refs(e.context), q_refs2 = queue_refs(e.queue);
    cl_context gc = NULL;
    cl_device_id gd = NULL;
    cl_command_queue gq = NULL;
    ST_OK(clmax_context_get_cl(ctx, &gc, &gd, &gq), "clmax_context_get_cl");
    cr_assert_eq(gc, e.context);
    cr_assert_eq(gd, e.device);
    cr_assert_eq(gq, e.queue);
    cr_assert_eq(context_refs(e.context), ctx_refs2, "get_cl retained the context");
    cr_assert_eq(queue_refs(e.queue), q_refs2, "get_cl retained the queue");

    /* enqueue behind a gate, then destroy the clmax context while the work is still pending */
    cl_int err;
    cl_event gate = clCreateUserEvent(e.context, &err);
    CL_OK(err, "clCreateUserEvent");
    if (job_enqueue(ctx, &j, NULL, 1, &gate) != CLMAX_OK) cr_assert_fail("%s", j.err);
    cl_command_queue eq = NULL;
    cl_context ec = NULL;
    CL_OK(clGetEventInfo(j.done, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL), "clGetEventInfo");
    CL_OK(clGetEventInfo(j.done, CL_EVENT_CONTEXT, sizeof ec, &ec, NULL), "clGetEventInfo");
    cr_assert_eq(eq, e.queue, "clmax's event is not on the caller's queue");
    cr_assert_eq(ec, e.context);
    cr_assert(event_status(j.done) > CL_COMPLETE);
    clmax_context_destroy(ctx);

    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
    JOB_OK(job_read(&e, &j));
    JOB_OK(job_wait(&j));
    JOB_OK(job_check(&j));
    CL_OK(clFinish(e.queue), "clFinish");
    clReleaseEvent(gate);
    job_free(&j); /* our buffers and events */
    cr_assert(refs_settle(&e, ctx_refs0, q_refs0),
              "references: context %u before, %u after; queue %u before, %u after", ctx_refs0,
              context_refs(e.context), q_refs0, queue_refs(e.queue));

    /* the objects still work, for OpenCL and for a new clmax context on them */
    ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    job_argmax(&j, CLMAX_TYPE_FLOAT16, 2, dims, 13, 1, 0, 1);
    job_offsets(&j, 9, 1);
    job_fill(&j, FILL_FEW, 1101);
    run_job(&e, ctx, NULL, &j, NULL);
    job_free(&j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- Prebuild, get_cl on an owned context --------------------------------------------------- */

Test(enqueue, prebuild_then_first_op)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_BFLOAT16};
    ST_OK(clmax_context_prebuild(ctx, types, 2), "clmax_context_prebuild");
    ST_OK(clmax_context_prebuild(ctx, types, 2), "clmax_context_prebuild (again)");
    EXPECT_ST(clmax_context_prebuild(NULL, types, 2), CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_context_prebuild(ctx, NULL, 2), CLMAX_ERROR_INVALID_ARGUMENT);
    const clmax_type bad = (clmax_type)99;
    EXPECT_ST(clmax_context_prebuild(ctx, &bad, 1), CLMAX_ERROR_UNSUPPORTED_TYPE);
    const int64_t dims[3] = {2, 3, 4001};
    job j;
    job_argmax(&j, CLMAX_TYPE_BFLOAT16, 3, dims, 13, -1, 0, 1);
    j.itype = CLMAX_INDEX_INT32;
    job_offsets(&j, 3, 9);
    job_fill(&j, FILL_SPECIAL, 1200);
    run_job(&e, ctx, NULL, &j, NULL);
    job_free(&j);
    job_hardmax(&j, CLMAX_TYPE_FLOAT32, 3, dims, 13, 1);
    job_offsets(&j, 9, 3);
    job_fill(&j, IN_SPECIAL_ROWS, 1201);
    run_job(&e, ctx, NULL, &j, NULL);
    job_free(&j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* The objects of a context clmax made itself serve the enqueue API too. */
Test(enqueue, get_cl_of_owned_context)
{
    need_device();
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_OPENCL, NULL);
    clenv e;
    memset(&e, 0, sizeof e);
    ST_OK(clmax_context_get_cl(ctx, &e.context, &e.device, &e.queue), "clmax_context_get_cl");
    cr_assert_not_null(e.context);
    cr_assert_not_null(e.device);
    cr_assert_not_null(e.queue);
    cl_device_id qd = NULL;
    CL_OK(clGetCommandQueueInfo(e.queue, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL), "queue device");
    cr_assert_eq(qd, e.device);
    cl_device_id only = NULL;
    ST_OK(clmax_context_get_cl(ctx, NULL, &only, NULL), "clmax_context_get_cl (device only)");
    cr_assert_eq(only, e.device);
    const int64_t dims[2] = {5, 90001};
    job j;
    job_argmax(&j, CLMAX_TYPE_UINT64, 2, dims, 12, 1, 1, 1);
    job_offsets(&j, 9, 1);
    job_fill(&j, FILL_BITS, 1300);
    run_job(&e, ctx, NULL, &j, NULL);
    job_free(&j);
    clmax_context_destroy(ctx); /* e's objects were never retained for us */
}

/* ---- Threads -------------------------------------------------------------------------------- */

#define THREADS 4
#define OPS_PER_THREAD 20

typedef struct worker {
    const clenv *e;
    clmax_context *ctx;
    job jobs[OPS_PER_THREAD];
    const char *err;
} worker;

/* Kinds of operation, in turn: enqueued ArgMax (int64), host ArgMax, enqueued Hardmax, enqueued
 * ArgMax (int32), host Hardmax. */
static int op_kind(int t, int k)
{
    return (t + k) % 5;
}

static void *worker_run(void *arg)
{
    worker *w = arg;
    for (int k = 0; k < OPS_PER_THREAD && w->err == NULL; k++) {
        job *j = &w->jobs[k];
        if (j->host_api) {
            w->err = job_host(w->ctx, j);
            continue;
        }
        w->err = job_buffers(w->e, j, 0, NULL);
        if (w->err == NULL && job_enqueue(w->ctx, j, NULL, 0, NULL) != CLMAX_OK) w->err = j->err;
        if (w->err == NULL) w->err = job_read(w->e, j);
        if (w->err == NULL) w->err = job_wait(j);
        if (w->err == NULL) w->err = job_check(j);
    }
    return NULL;
}

static void threads_body(clmax_context *ctx, const clenv *e)
{
    static const shape3 ts[] = {
        {2, {16, 513}, 1}, {3, {3, 77, 19}, 1}, {2, {2, 40000}, 1}, {3, {5, 9, 200}, 2}};
    static const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT8,
                                       CLMAX_TYPE_BFLOAT16, CLMAX_TYPE_FLOAT64};
    static worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t].e = e;
        w[t].ctx = ctx;
        w[t].err = NULL;
        for (int k = 0; k < OPS_PER_THREAD; k++) {
            job *j = &w[t].jobs[k];
            const shape3 *sh = &ts[(t + k) % 4];
            clmax_type type = types[(t * 3 + k) % 5];
            int kind = op_kind(t, k);
            if ((kind == 2 || kind == 4) && type == CLMAX_TYPE_INT8) type = CLMAX_TYPE_FLOAT32;
            if (kind == 2 || kind == 4)
                job_hardmax(j, type, sh->rank, sh->dims, 13, sh->axis);
            else
                job_argmax(j, type, sh->rank, sh->dims, 13, sh->axis, k % 2, (k / 2) % 2);
            if (kind == 3) j->itype = CLMAX_INDEX_INT32;
            job_offsets(j, 1 + 2 * (k % 3), 1 + 2 * (t % 3));
            job_fill(j, (t + k) % 2 ? FILL_FEW : IN_SPECIAL_ROWS, 2000 + (uint64_t)(t * 100 + k));
            j->preload = 1;
            j->host_api = kind == 1 || kind == 4;
        }
    }
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, worker_run, &w[t]), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        cr_assert(w[t].err == NULL, "thread %d: %s", t, w[t].err);
        for (int k = 0; k < OPS_PER_THREAD; k++)
            job_free(&w[t].jobs[k]);
    }
}

/* On the context and in-order queue clmax made itself (host API and enqueue API mixed). */
Test(enqueue, threads_on_owned_context, .timeout = 900)
{
    need_device();
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_OPENCL, NULL);
    clenv e;
    memset(&e, 0, sizeof e);
    ST_OK(clmax_context_get_cl(ctx, &e.context, &e.device, &e.queue), "clmax_context_get_cl");
    threads_body(ctx, &e);
    clmax_context_destroy(ctx);
}

/* On a caller's out-of-order queue: the host API too must order its own commands. */
Test(enqueue, threads_on_out_of_order_queue, .timeout = 900)
{
    clenv e;
    env_open(&e, 1);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    threads_body(ctx, &e);
    clmax_context_destroy(ctx);
    env_close(&e);
}
