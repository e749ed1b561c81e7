/*
 * The per-call report (clmax_last_call_report) and the context's warnings: which backend and
 * device computed a call's answer and, after an auto context's fallback, the OpenCL failure. The
 * device is made to fail through the library's table of OpenCL entry points (cl_api.h).
 */
#include "cl_api.h"
#include "common.h"
#include "clmax_cl.h"

#include <stdlib.h>
#include <string.h>

static const int64_t dims[2] = {3, 50};

/* ArgMax of a small float32 input along the rows on ctx; the answer checked. */
static clmax_status run_argmax(clmax_context *ctx)
{
    float x[150];
    for (int i = 0; i < 150; i++)
        x[i] = (float)((i * 37) % 101);
    x[50 + 7] = 500.0f;
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    int64_t y[3] = {-1, -1, -1};
    clmax_status st = clmax_argmax(ctx, &d, x, &a, y);
    if (st == CLMAX_OK) cr_expect_eq(y[1], 7, "row 1: %lld", (long long)y[1]);
    return st;
}

static clmax_context *open_backend(clmax_backend b)
{
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = b;
    o.ignore_environment = 1;
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(&o, &ctx);
    if (st != CLMAX_OK) {
        cr_assert(b != CLMAX_BACKEND_OPENCL || !opencl_required(), "no OpenCL: %s",
                  clmax_last_error());
        cr_skip_test("no OpenCL device: %s", clmax_last_error());
    }
    return ctx;
}

Test(report, cpu_path)
{
    clmax_context *ctx = open_backend(CLMAX_BACKEND_CPU);
    cr_assert_eq(run_argmax(ctx), CLMAX_OK);
    const clmax_call_report *r = clmax_last_call_report();
    cr_expect_eq(r->backend, CLMAX_BACKEND_CPU);
    cr_expect_str_eq(r->device, clmax_context_device_name(ctx));
    cr_expect_eq(r->fallback_status, CLMAX_OK);
    cr_expect_str_eq(r->fallback_message, "");
    clmax_context_destroy(ctx);
}

Test(report, opencl_device)
{
    if (!backend_enabled(CLMAX_BACKEND_OPENCL)) cr_skip_test("OpenCL tests are disabled");
    clmax_context *ctx = open_backend(CLMAX_BACKEND_OPENCL);
    cr_assert_eq(run_argmax(ctx), CLMAX_OK, "%s", clmax_last_error());
    const clmax_call_report *r = clmax_last_call_report();
    cr_expect_eq(r->backend, CLMAX_BACKEND_OPENCL);
    cr_expect_str_eq(r->device, clmax_context_device_name(ctx));
    cr_expect_eq(r->fallback_status, CLMAX_OK);
    clmax_context_destroy(ctx);
}

Test(report, nothing_computed)
{
    clmax_context *ctx = open_backend(CLMAX_BACKEND_CPU);
    cr_assert_eq(run_argmax(ctx), CLMAX_OK);
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 5;
    int64_t y[3];
    float x[150] = {0};
    cr_assert_eq(clmax_argmax(ctx, &d, x, &a, y), CLMAX_ERROR_INVALID_AXIS);
    const clmax_call_report *r = clmax_last_call_report();
    cr_expect_eq(r->backend, CLMAX_BACKEND_AUTO, "a refused call reports a backend");
    cr_expect_str_eq(r->device, "");
    clmax_context_destroy(ctx);
}

/* Every kernel launch fails as a driver out of resources would. */
static clmax_cl_api_table real;
static cl_int launch_fails(cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o,
                           const size_t *g, const size_t *l, cl_uint n, const cl_event *w,
                           cl_event *e)
{
    (void)q, (void)k, (void)d, (void)o, (void)g, (void)l, (void)n, (void)w, (void)e;
    return CL_OUT_OF_RESOURCES;
}

Test(report, fallback_is_reported)
{
    if (!backend_enabled(CLMAX_BACKEND_OPENCL)) cr_skip_test("OpenCL tests are disabled");
    /* The cost model would send so small a call to the CPU path: the device is forced. */
    setenv("CLMAX_AUTO_PATH", "opencl", 1);
    clmax_context *ctx = NULL;
    clmax_status created = clmax_context_create(NULL, &ctx);
    unsetenv("CLMAX_AUTO_PATH");
    cr_assert_eq(created, CLMAX_OK, "%s", clmax_last_error());
    if (clmax_context_backend(ctx) != CLMAX_BACKEND_OPENCL) {
        cr_assert(!opencl_required(), "auto did not pick OpenCL: %s", clmax_context_warnings(ctx));
        cr_skip_test("no OpenCL device");
    }
    real = clmax_cl_api;
    clmax_cl_api.EnqueueNDRangeKernel = launch_fails;
    clmax_status st = run_argmax(ctx);
    clmax_cl_api = real;
    cr_assert_eq(st, CLMAX_OK, "the CPU path should have answered: %s", clmax_last_error());
    const clmax_call_report *r = clmax_last_call_report();
    cr_expect_eq(r->backend, CLMAX_BACKEND_CPU);
    cr_expect(strncmp(r->device, "CPU (", 5) == 0, "device %s", r->device);
    cr_expect_eq(r->fallback_status, CLMAX_ERROR_OPENCL);
    cr_expect(strstr(r->fallback_message, "clEnqueueNDRangeKernel") != NULL &&
                  strstr(r->fallback_message, "CL_OUT_OF_RESOURCES") != NULL,
              "fallback message: %s", r->fallback_message);
    cr_expect_str_eq(clmax_last_error(), "", "a call that succeeded left an error");
    /* The next call, with the device working again, reports the device and no fallback. */
    cr_assert_eq(run_argmax(ctx), CLMAX_OK);
    cr_expect_eq(clmax_last_call_report()->backend, CLMAX_BACKEND_OPENCL);
    cr_expect_eq(clmax_last_call_report()->fallback_status, CLMAX_OK);
    clmax_context_destroy(ctx);
}

Test(report, auto_without_opencl_warns)
{
    /* No device matches the selector: auto takes the CPU path and says why. */
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.ignore_environment = 1;
    o.device = "no device has this name 7f3a";
    clmax_context *ctx = NULL;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_OK, "%s", clmax_last_error());
    cr_expect_eq(clmax_context_backend(ctx), CLMAX_BACKEND_CPU);
    const char *w = clmax_context_warnings(ctx);
    cr_expect(strstr(w, "OpenCL not used") != NULL && strstr(w, "no OpenCL device") != NULL,
              "warnings: %s", w);
    clmax_context_destroy(ctx);
}
