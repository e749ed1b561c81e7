/*
 * Fault injection: every OpenCL call the library makes is made to fail in turn, with the code a
 * real driver returns there, through the library's table of OpenCL entry points. For each failure
 * point: the call returns a documented status (or, in auto mode, the CPU path answers exactly),
 * every OpenCL object the library created is released, and the context stays usable.
 */
#include "cache_util.h"
#include "cl_api.h"
#include "common.h"
#include "clmax_cl.h"

#include <stdlib.h>
#include <string.h>

/* ---- The instrumented table ---------------------------------------------------------------- */

/* Atomic: an auto context measures its device on a helper thread (calibrate.c), whose OpenCL
 * calls run beside the caller's; a lost update of `live` once read as a leak. */
static clmax_cl_api_table real;
static _Atomic long calls;         /* OpenCL calls that could fail, so far */
static long fail_at;               /* the call number to fail (1-based); 0: none */
static _Atomic int injected;       /* whether the failure was injected in this run */
static const char *_Atomic failed; /* the name of the call made to fail */
static _Atomic long live;          /* objects created or retained minus released */

/* Decides whether this call fails; counts every call that may fail. */
static int inject(const char *name)
{
    if (++calls == fail_at && fail_at != 0) {
        injected = 1;
        failed = name;
        return 1;
    }
    return 0;
}

#define RET_ERR(name, code)                                                                        \
    do {                                                                                           \
        if (inject(#name)) return code;                                                            \
    } while (0)
#define RET_NULL(name, code)                                                                       \
    do {                                                                                           \
        if (inject(#name)) {                                                                       \
            if (errcode_ret) *errcode_ret = code;                                                  \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)
#define COUNT_EVENT(err, ev)                                                                       \
    do {                                                                                           \
        if ((err) == CL_SUCCESS && (ev) != NULL) live++;                                           \
    } while (0)

static cl_int w_GetPlatformIDs(cl_uint n, cl_platform_id *p, cl_uint *np)
{
    RET_ERR(clGetPlatformIDs, CL_OUT_OF_HOST_MEMORY);
    return real.GetPlatformIDs(n, p, np);
}
static cl_int w_GetDeviceIDs(cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d,
                             cl_uint *nd)
{
    RET_ERR(clGetDeviceIDs, CL_DEVICE_NOT_FOUND);
    return real.GetDeviceIDs(p, t, n, d, nd);
}
static cl_int w_GetDeviceInfo(cl_device_id d, cl_device_info i, size_t s, void *v, size_t *r)
{
    RET_ERR(clGetDeviceInfo, CL_INVALID_DEVICE);
    return real.GetDeviceInfo(d, i, s, v, r);
}
static cl_context w_CreateContext(const cl_context_properties *p, cl_uint n, const cl_device_id *d,
                                  void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *),
                                  void *u, cl_int *errcode_ret)
{
    RET_NULL(clCreateContext, CL_DEVICE_NOT_AVAILABLE);
    cl_context c = real.CreateContext(p, n, d, cb, u, errcode_ret);
    if (c) live++;
    return c;
}
static cl_command_queue w_CreateCommandQueue(cl_context c, cl_device_id d,
                                             cl_command_queue_properties p, cl_int *errcode_ret)
{
    RET_NULL(clCreateCommandQueue, CL_OUT_OF_RESOURCES);
    cl_command_queue q = real.CreateCommandQueue(c, d, p, errcode_ret);
    if (q) live++;
    return q;
}
static cl_mem w_CreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *errcode_ret)
{
    RET_NULL(clCreateBuffer, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    cl_mem m = real.CreateBuffer(c, f, s, h, errcode_ret);
    if (m) live++;
    return m;
}
static cl_program w_CreateProgramWithSource(cl_context c, cl_uint n, const char **s,
                                            const size_t *l, cl_int *errcode_ret)
{
    RET_NULL(clCreateProgramWithSource, CL_OUT_OF_HOST_MEMORY);
    cl_program p = real.CreateProgramWithSource(c, n, s, l, errcode_ret);
    if (p) live++;
    return p;
}
static cl_program w_CreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                            const size_t *l, const unsigned char **b, cl_int *st,
                                            cl_int *errcode_ret)
{
    RET_NULL(clCreateProgramWithBinary, CL_INVALID_BINARY);
    cl_program p = real.CreateProgramWithBinary(c, n, d, l, b, st, errcode_ret);
    if (p) live++;
    return p;
}
static cl_int w_BuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *o,
                             void(CL_CALLBACK *cb)(cl_program, void *), void *u)
{
    RET_ERR(clBuildProgram, CL_BUILD_PROGRAM_FAILURE);
    return real.BuildProgram(p, n, d, o, cb, u);
}
static cl_kernel w_CreateKernel(cl_program p, const char *name, cl_int *errcode_ret)
{
    RET_NULL(clCreateKernel, CL_OUT_OF_HOST_MEMORY);
    cl_kernel k = real.CreateKernel(p, name, errcode_ret);
    if (k) live++;
    return k;
}
static cl_int w_SetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v)
{
    RET_ERR(clSetKernelArg, CL_OUT_OF_RESOURCES);
    return real.SetKernelArg(k, i, s, v);
}
static cl_int w_EnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o,
                                     const size_t *g, const size_t *l, cl_uint n, const cl_event *w,
                                     cl_event *e)
{
    RET_ERR(clEnqueueNDRangeKernel, CL_OUT_OF_RESOURCES);
    cl_int err = real.EnqueueNDRangeKernel(q, k, d, o, g, l, n, w, e);
    COUNT_EVENT(err, e);
    return err;
}
static cl_int w_EnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
                                   const void *p, cl_uint n, const cl_event *w, cl_event *e)
{
    RET_ERR(clEnqueueWriteBuffer, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    cl_int err = real.EnqueueWriteBuffer(q, m, b, o, s, p, n, w, e);
    COUNT_EVENT(err, e);
    return err;
}
static cl_int w_EnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo,
                                       const size_t *ho, const size_t *r, size_t brp, size_t bsp,
                                       size_t hrp, size_t hsp, const void *p, cl_uint n,
                                       const cl_event *w, cl_event *e)
{
    RET_ERR(clEnqueueWriteBufferRect, CL_OUT_OF_RESOURCES);
    cl_int err = real.EnqueueWriteBufferRect(q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, n, w, e);
    COUNT_EVENT(err, e);
    return err;
}
static cl_int w_EnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
                                  void *p, cl_uint n, const cl_event *w, cl_event *e)
{
    RET_ERR(clEnqueueReadBuffer, CL_OUT_OF_RESOURCES);
    cl_int err = real.EnqueueReadBuffer(q, m, b, o, s, p, n, w, e);
    COUNT_EVENT(err, e);
    return err;
}
static cl_int w_EnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo,
                                      const size_t *ho, const size_t *r, size_t brp, size_t bsp,
                                      size_t hrp, size_t hsp, void *p, cl_uint n, const cl_event *w,
                                      cl_event *e)
{
    RET_ERR(clEnqueueReadBufferRect, CL_OUT_OF_RESOURCES);
    cl_int err = real.EnqueueReadBufferRect(q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, n, w, e);
    COUNT_EVENT(err, e);
    return err;
}
static void *w_EnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f, size_t o,
                                size_t s, cl_uint n, const cl_event *w, cl_event *e,
                                cl_int *errcode_ret)
{
    RET_NULL(clEnqueueMapBuffer, CL_MAP_FAILURE);
    cl_int err = CL_SUCCESS;
    void *ptr = real.EnqueueMapBuffer(q, m, b, f, o, s, n, w, e, &err);
    if (errcode_ret) *errcode_ret = err;
    COUNT_EVENT(err, e);
    return ptr;
}
static cl_int w_EnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *p, cl_uint n,
                                      const cl_event *w, cl_event *e)
{
    RET_ERR(clEnqueueUnmapMemObject, CL_OUT_OF_RESOURCES);
    cl_int err = real.EnqueueUnmapMemObject(q, m, p, n, w, e);
    COUNT_EVENT(err, e);
    return err;
}
static cl_int w_EnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *p, size_t ps, size_t o,
                                  size_t s, cl_uint n, const cl_event *w, cl_event *e)
{
    RET_ERR(clEnqueueFillBuffer, CL_OUT_OF_RESOURCES);
    cl_int err = real.EnqueueFillBuffer(q, m, p, ps, o, s, n, w, e);
    COUNT_EVENT(err, e);
    return err;
}
static cl_int w_EnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w,
                                          cl_event *e)
{
    RET_ERR(clEnqueueMarkerWithWaitList, CL_OUT_OF_HOST_MEMORY);
    cl_int err = real.EnqueueMarkerWithWaitList(q, n, w, e);
    COUNT_EVENT(err, e);
    return err;
}
static cl_int w_WaitForEvents(cl_uint n, const cl_event *e)
{
    RET_ERR(clWaitForEvents, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    return real.WaitForEvents(n, e);
}
static cl_int w_Finish(cl_command_queue q)
{
    RET_ERR(clFinish, CL_OUT_OF_RESOURCES);
    return real.Finish(q);
}
static cl_int w_GetMemObjectInfo(cl_mem m, cl_mem_info i, size_t s, void *v, size_t *r)
{
    RET_ERR(clGetMemObjectInfo, CL_OUT_OF_HOST_MEMORY);
    return real.GetMemObjectInfo(m, i, s, v, r);
}
static cl_int w_GetProgramInfo(cl_program p, cl_program_info i, size_t s, void *v, size_t *r)
{
    RET_ERR(clGetProgramInfo, CL_OUT_OF_HOST_MEMORY);
    return real.GetProgramInfo(p, i, s, v, r);
}
/* Releases and retains never fail: they are counted. */
#define RELEASE(T, name)                                                                           \
    static cl_int w_##name(T o)                                                                    \
    {                                                                                              \
        cl_int err = real.name(o);                                                                 \
        if (err == CL_SUCCESS) live--;                                                             \
        return err;                                                                                \
    }
#define RETAIN(T, name)                                                                            \
    static cl_int w_##name(T o)                                                                    \
    {                                                                                              \
        cl_int err = real.name(o);                                                                 \
        if (err == CL_SUCCESS) live++;                                                             \
        return err;                                                                                \
    }
RELEASE(cl_mem, ReleaseMemObject)
RELEASE(cl_kernel, ReleaseKernel)
RELEASE(cl_program, ReleaseProgram)
RELEASE(cl_event, ReleaseEvent)
RELEASE(cl_command_queue, ReleaseCommandQueue)
RELEASE(cl_context, ReleaseContext)
RELEASE(cl_device_id, ReleaseDevice)
RETAIN(cl_event, RetainEvent)
RETAIN(cl_command_queue, RetainCommandQueue)
RETAIN(cl_context, RetainContext)
RETAIN(cl_device_id, RetainDevice)

static void instrument(void)
{
    real = clmax_cl_api;
#define W(name) clmax_cl_api.name = w_##name
    W(GetPlatformIDs);
    W(GetDeviceIDs);
    W(GetDeviceInfo);
    W(CreateContext);
    W(CreateCommandQueue);
    W(CreateBuffer);
    W(CreateProgramWithSource);
    W(CreateProgramWithBinary);
    W(BuildProgram);
    W(CreateKernel);
    W(SetKernelArg);
    W(EnqueueNDRangeKernel);
    W(EnqueueWriteBuffer);
    W(EnqueueWriteBufferRect);
    W(EnqueueReadBuffer);
    W(EnqueueReadBufferRect);
    W(EnqueueFillBuffer);
    W(EnqueueMapBuffer);
    W(EnqueueUnmapMemObject);
    W(EnqueueMarkerWithWaitList);
    W(WaitForEvents);
    W(Finish);
    W(GetMemObjectInfo);
    W(GetProgramInfo);
    W(ReleaseMemObject);
    W(ReleaseKernel);
    W(ReleaseProgram);
    W(ReleaseEvent);
    W(ReleaseCommandQueue);
    W(ReleaseContext);
    W(ReleaseDevice);
    W(RetainEvent);
    W(RetainCommandQueue);
    W(RetainContext);
    W(RetainDevice);
#undef W
}

/* ---- The workload --------------------------------------------------------------------------- */

/* Inputs chosen to reach every path: contiguous rows, a strided axis, a split axis, chunking
 * (max_chunk_bytes is lowered), Hardmax, a strided axis whose rows are longer than 8 KiB (CPU
 * devices: reduce_strided_wide, its pairs in local memory, split in two segments). */
#define N_LONG 50000
#define N_NARROW 40001 /* [N_NARROW, 3] along axis 0: few lanes, taken as wide rows */
#define WIDE_N 130
#define WIDE_INNER 2100 /* 8400 bytes of each row */
static float x_rows[4 * 37], x_strided[3 * 29 * 5], x_long[2 * N_LONG], x_narrow[N_NARROW * 3];
static float x_wide[WIDE_N * WIDE_INNER];
static int64_t want_rows[4], want_strided[15], want_long[2], want_narrow[3], want_wide[WIDE_INNER];

static void fill_inputs(void)
{
    test_rng rng;
    rng_seed(&rng, 77);
    float *all[] = {x_rows, x_strided, x_long, x_narrow, x_wide};
    size_t counts[] = {sizeof x_rows / 4, sizeof x_strided / 4, sizeof x_long / 4,
                       sizeof x_narrow / 4, sizeof x_wide / 4};
    for (int a = 0; a < 5; a++)
        for (size_t k = 0; k < counts[a]; k++)
            all[a][k] = (float)rng_below(&rng, 1000);
    ref_view v;
    (void)v;
    for (int o = 0; o < 4; o++) {
        int b = 0;
        for (int j = 1; j < 37; j++)
            if (x_rows[o * 37 + j] > x_rows[o * 37 + b]) b = j;
        want_rows[o] = b;
    }
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < 5; i++) {
            int b = 0;
            for (int j = 1; j < 29; j++)
                if (x_strided[(o * 29 + j) * 5 + i] > x_strided[(o * 29 + b) * 5 + i]) b = j;
            want_strided[o * 5 + i] = b;
        }
    for (int o = 0; o < 2; o++) {
        int b = 0;
        for (int j = 1; j < N_LONG; j++)
            if (x_long[o * N_LONG + j] > x_long[o * N_LONG + b]) b = j;
        want_long[o] = b;
    }
    for (int i = 0; i < 3; i++) {
        int b = 0;
        for (int j = 1; j < N_NARROW; j++)
            if (x_narrow[j * 3 + i] > x_narrow[b * 3 + i]) b = j;
        want_narrow[i] = b;
    }
    for (int i = 0; i < WIDE_INNER; i++) {
        int b = 0;
        for (int j = 1; j < WIDE_N; j++)
            if (x_wide[j * WIDE_INNER + i] > x_wide[b * WIDE_INNER + i]) b = j;
        want_wide[i] = b;
    }
}

static int documented(clmax_status st)
{
    return st == CLMAX_ERROR_NO_DEVICE || st == CLMAX_ERROR_OPENCL || st == CLMAX_ERROR_BUILD ||
           st == CLMAX_ERROR_OUT_OF_MEMORY;
}

/* Runs one operation; on success checks the answer exactly. Returns the status. */
static clmax_status run_argmax(clmax_context *ctx, const float *x, int64_t o, int64_t n, int64_t i,
                               const int64_t *want)
{
    clmax_tensor_desc d = {CLMAX_TYPE_FLOAT32, 3, {o, n, i}};
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    int64_t y[16];
    clmax_status st = clmax_argmax(ctx, &d, x, &a, y);
    if (st == CLMAX_OK)
        for (int64_t k = 0; k < o * i; k++)
            cr_assert_eq(y[k], want[k], "fail_at %ld: output %lld is %lld, want %lld", fail_at,
                         (long long)k, (long long)y[k], (long long)want[k]);
    return st;
}

/* ArgMax of x_wide along axis 0. */
static clmax_status run_wide(clmax_context *ctx)
{
    clmax_tensor_desc d = {CLMAX_TYPE_FLOAT32, 2, {WIDE_N, WIDE_INNER}};
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 0;
    static int64_t y[WIDE_INNER];
    clmax_status st = clmax_argmax(ctx, &d, x_wide, &a, y);
    if (st == CLMAX_OK)
        for (int k = 0; k < WIDE_INNER; k++)
            cr_assert_eq(y[k], want_wide[k], "fail_at %ld: wide output %d is %lld, want %lld",
                         fail_at, k, (long long)y[k], (long long)want_wide[k]);
    return st;
}

/* Hardmax of rows [o, n] of x: short rows (the ArgMax, then the fill on the host), or long rows,
 * which a CPU device with host-unified memory runs in one pass over the caller's memory
 * (clmax_cl_hardmax_in_place). */
static clmax_status run_hardmax(clmax_context *ctx, const float *x, int64_t o, int64_t n,
                                const int64_t *want)
{
    clmax_tensor_desc d = {CLMAX_TYPE_FLOAT32, 2, {o, n}};
    static float y[2 * N_LONG];
    clmax_status st = clmax_hardmax(ctx, &d, x, NULL, y);
    if (st == CLMAX_OK)
        for (int64_t r = 0; r < o; r++)
            for (int64_t j = 0; j < n; j++)
                cr_assert_eq(y[r * n + j], j == want[r] ? 1.0f : 0.0f,
                             "fail_at %ld: Hardmax[%lld][%lld]", fail_at, (long long)r,
                             (long long)j);
    return st;
}

/* The enqueue path on the context's own queue: ArgMax of [d0, d1] float32 x along axis (x_long
 * along 1: split, needs scratch; x_narrow along 0: wide rows, then the merge kernel); with values,
 * clmax_enqueue_max_with_indices, whose values (in yb after the indices) are checked too. */
static clmax_status run_enqueue(clmax_context *ctx, const float *x, int64_t d0, int64_t d1,
                                int axis, const int64_t *want, int values)
{
    cl_context c;
    cl_command_queue q;
    if (clmax_context_get_cl(ctx, &c, NULL, &q) != CLMAX_OK) return CLMAX_OK; /* CPU path */
    size_t bytes = (size_t)(d0 * d1) * sizeof *x;
    int64_t outputs = axis ? d0 : d1;
    cl_int err;
    cl_mem xb =
        real.CreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)x, &err);
    cl_mem yb = real.CreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &err);
    cr_assert(xb != NULL && yb != NULL);
    clmax_tensor_desc d = {CLMAX_TYPE_FLOAT32, 2, {d0, d1}};
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = axis;
    cl_event done = NULL;
    clmax_status st = values
                          ? clmax_enqueue_max_with_indices(ctx, &d, xb, 0, &a, yb, 40, yb, 8, NULL,
                                                           0, NULL, &done)
                          : clmax_enqueue_argmax(ctx, &d, xb, 0, &a, yb, 8, NULL, 0, NULL, &done);
    if (st == CLMAX_OK) {
        int64_t y[3];
        float v[3];
        cr_assert_eq(
            real.EnqueueReadBuffer(q, yb, CL_TRUE, 8, (size_t)outputs * 8, y, 1, &done, NULL),
            CL_SUCCESS);
        if (values)
            cr_assert_eq(
                real.EnqueueReadBuffer(q, yb, CL_TRUE, 40, (size_t)outputs * 4, v, 1, &done, NULL),
                CL_SUCCESS);
        clmax_cl_api.ReleaseEvent(done); /* counted: the library made it */
        for (int64_t k = 0; k < outputs; k++) {
            cr_assert(y[k] == want[k], "fail_at %ld: enqueue output %lld", fail_at, (long long)k);
            int64_t at = axis ? k * d1 + want[k] : want[k] * d1 + k;
            if (values)
                cr_assert(memcmp(&v[k], &x[at], 4) == 0, "fail_at %ld: enqueued value %lld",
                          fail_at, (long long)k);
        }
    }
    real.ReleaseMemObject(xb);
    real.ReleaseMemObject(yb);
    return st;
}

#define OP_ENQUEUE 6 /* from here the enqueue API, on device buffers: it has no CPU fallback */

/* Runs the operations in turn; stops at the first failure (whose message is then current). */
static clmax_status workload(clmax_context *ctx, int *first_failure_op)
{
    for (int k = 0; k < 9; k++) {
        clmax_status st = k == 0   ? run_argmax(ctx, x_rows, 4, 37, 1, want_rows)
                          : k == 1 ? run_argmax(ctx, x_strided, 3, 29, 5, want_strided)
                          : k == 2 ? run_argmax(ctx, x_long, 2, N_LONG, 1, want_long)
                          : k == 3 ? run_wide(ctx)
                          : k == 4 ? run_hardmax(ctx, x_rows, 4, 37, want_rows)
                          : k == 5 ? run_hardmax(ctx, x_long, 2, N_LONG, want_long)
                          : k == 6 ? run_enqueue(ctx, x_long, 2, N_LONG, 1, want_long, 0)
                          : k == 7 ? run_enqueue(ctx, x_narrow, N_NARROW, 3, 0, want_narrow, 0)
                                   : run_enqueue(ctx, x_long, 2, N_LONG, 1, want_long, 1);
        if (st != CLMAX_OK) {
            *first_failure_op = k;
            return st;
        }
    }
    return CLMAX_OK;
}

/* Walks every failure point of create + workload + destroy for one backend mode. */
static void walk(clmax_backend backend, uint64_t chunk, int *points)
{
    fill_inputs();
    instrument();
    /* A cache folder of its own, empty at first (the environment is ignored below): the first
     * contexts build every program from source, later ones load what the folder keeps (at once
     * where the driver keeps no builds, after a few builds where it does: cl_cache.c), so both
     * paths through the compiler calls are walked, whatever earlier tests left. */
    const char *dir = cache_tmpdir();
    for (fail_at = 1;; fail_at++) {
        calls = 0;
        injected = 0;
        failed = NULL;
        live = 0;
        clmax_context_options o;
        clmax_context_options_init(&o);
        o.backend = backend;
        o.max_chunk_bytes = chunk;
        o.ignore_environment = 1;
        o.cache_dir = dir;
        clmax_context *ctx = NULL;
        clmax_status st = clmax_context_create(&o, &ctx);
        if (st != CLMAX_OK) {
            cr_assert(injected, "create failed without an injected fault: %s", clmax_last_error());
            cr_assert(documented(st), "fail_at %ld (%s): create returned %s", fail_at, failed,
                      clmax_status_string(st));
            cr_assert(clmax_last_error()[0] != '\0', "fail_at %ld: no message", fail_at);
        } else {
            int op = -1;
            st = workload(ctx, &op);
            if (st != CLMAX_OK) {
                cr_assert(injected, "op %d failed with no injected fault: %s", op,
                          clmax_last_error());
                cr_assert(backend != CLMAX_BACKEND_AUTO || op >= OP_ENQUEUE,
                          "fail_at %ld (%s): auto mode returned %s instead of falling back",
                          fail_at, failed, clmax_status_string(st));
                cr_assert(documented(st), "fail_at %ld (%s): op %d returned %s", fail_at, failed,
                          op, clmax_status_string(st));
                cr_assert(clmax_last_error()[0] != '\0');
                /* The context stays usable: the same work without faults is exact. */
                long saved = fail_at;
                fail_at = 0;
                cr_assert_eq(workload(ctx, &op), CLMAX_OK, "after fail_at %ld (%s): %s", saved,
                             failed, clmax_last_error());
                fail_at = saved;
            }
            clmax_context_destroy(ctx);
        }
        cr_assert_eq(live, 0, "fail_at %ld (%s): %ld OpenCL objects leaked", fail_at,
                     failed ? failed : "none", live);
        if (!injected) break; /* past the last call: every point has been walked */
        (*points)++;
    }
    clmax_cl_api = real;
    cache_cleanup();
    cr_log_info("%s, chunk %llu: %d failure points injected", test_backend_str(backend),
                (unsigned long long)chunk, *points);
}

static int opencl_present(void)
{
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_OPENCL;
    o.ignore_environment = 1;
    clmax_context *ctx;
    if (clmax_context_create(&o, &ctx) != CLMAX_OK) return 0;
    clmax_context_destroy(ctx);
    return 1;
}

static void need_opencl(void)
{
    if (!backend_enabled(CLMAX_BACKEND_OPENCL)) cr_skip_test("OpenCL tests are disabled");
    if (!opencl_present()) {
        cr_assert(!opencl_required(), "CLMAX_REQUIRE_OPENCL=1 but no OpenCL device");
        cr_skip_test("no OpenCL device");
    }
}

Test(faults, opencl_every_point_returns_a_status, .timeout = 900)
{
    need_opencl();
    int points = 0;
    walk(CLMAX_BACKEND_OPENCL, 0, &points);
    cr_assert_gt(points, 20, "too few failure points (%d): is the table in use?", points);
}

Test(faults, opencl_chunked_every_point, .timeout = 900)
{
    need_opencl();
    int points = 0;
    walk(CLMAX_BACKEND_OPENCL, 131072, &points); /* boxes of part of an axis */
    cr_assert_gt(points, 20);
}

Test(faults, auto_falls_back_exactly, .timeout = 900)
{
    need_opencl();
    int points = 0;
    walk(CLMAX_BACKEND_AUTO, 0, &points);
    cr_assert_gt(points, 20);
}
