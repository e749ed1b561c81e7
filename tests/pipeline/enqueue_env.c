/* The caller's OpenCL objects for the enqueue API tests: a context and a queue of our own on the
 * device clmax would pick, clmax contexts made from them, and their reference counts. */
#include "enqueue_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cpu_backend_forced(void)
{
    const char *e = getenv("CLMAX_BACKEND");
    return e != NULL && strcasecmp(e, "cpu") == 0;
}

void env_close(clenv *e)
{
    if (e->queue) clReleaseCommandQueue(e->queue);
    if (e->context) clReleaseContext(e->context);
    memset(e, 0, sizeof *e);
}

/* The device clmax would pick (CLMAX_DEVICE included), or skips the test when there is none. */
cl_device_id need_device(void)
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
void env_open(clenv *e, int out_of_order)
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

clmax_context *clmax_open(const clenv *e, clmax_strategy strategy)
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
clmax_context *cpu_open(void)
{
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_CPU;
    o.ignore_environment = 1;
    clmax_context *ctx = NULL;
    ST_OK(clmax_context_create(&o, &ctx), "clmax_context_create(cpu)");
    return ctx;
}

cl_int event_status(cl_event ev)
{
    cl_int s = -1;
    CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL),
          "clGetEventInfo");
    return s;
}

cl_uint context_refs(cl_context c)
{
    cl_uint n = 0;
    CL_OK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL), "clGetContextInfo");
    return n;
}

cl_uint queue_refs(cl_command_queue q)
{
    cl_uint n = 0;
    CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL),
          "clGetCommandQueueInfo");
    return n;
}
