/* The OpenCL backend's state (clmax_cl) made and released: a context of its own on the selected
 * device, or one over the caller's OpenCL objects; and the backend interface it fills. */
#include "cl_cache.h"
#include "cl_internal.h"

#include <stdlib.h>

static void cl_destroy(clmax_context *ctx)
{
    clmax_cl *cl = ctx->cl;
    if (cl == NULL) return;
    for (int i = 0; i < cl->nusers; i++)
        CL(ReleaseEvent)(cl->scratch_users[i]);
    free(cl->scratch_users);
    clmax_cl_release_held(cl);
    if (cl->scratch) CL(ReleaseMemObject)(cl->scratch);
    clmax_cl_release_programs(cl);
    if (cl->copy_queue) CL(ReleaseCommandQueue)(cl->copy_queue);
    if (cl->queue) CL(ReleaseCommandQueue)(cl->queue);
    if (cl->context) CL(ReleaseContext)(cl->context);
    if (cl->retained_device) CL(ReleaseDevice)(cl->device);
    pthread_mutex_destroy(&cl->lock);
    pthread_mutex_destroy(&cl->probe_lock);
    free(cl);
    ctx->cl = NULL;
}

static const clmax_backend_iface cl_iface = {.reduce = clmax_cl_reduce,
                                             .hardmax = clmax_cl_hardmax_in_place,
                                             .load_fact = clmax_cl_load_fact,
                                             .save_fact = clmax_cl_save_fact,
                                             .prebuild = clmax_cl_prebuild,
                                             .destroy = cl_destroy};

/* Allocates ctx->cl with its lock. */
static clmax_status state_new(clmax_context *ctx)
{
    clmax_cl *cl = calloc(1, sizeof *cl);
    if (cl == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "OpenCL backend state");
    if (pthread_mutex_init(&cl->lock, NULL) != 0) {
        free(cl);
        return clmax_fail(CLMAX_ERROR_INTERNAL, "pthread_mutex_init failed");
    }
    if (pthread_mutex_init(&cl->probe_lock, NULL) != 0) {
        pthread_mutex_destroy(&cl->lock);
        free(cl);
        return clmax_fail(CLMAX_ERROR_INTERNAL, "pthread_mutex_init failed");
    }
    atomic_init(&cl->probed, 0);
    cl->builds_kept = -1;
    ctx->cl = cl;
    return CLMAX_OK;
}

/* The device's facts and the interface, once cl's device, context and queue are set. */
static void state_ready(clmax_context *ctx)
{
    clmax_cl_query_device(ctx);
    ctx->cl->store = &ctx->store;
    ctx->iface = &cl_iface; /* the probes wait for the device's first use (clmax_cl_info) */
}

clmax_status clmax_opencl_init(clmax_context *ctx, const char *selector)
{
    clmax_status st = state_new(ctx);
    if (st != CLMAX_OK) return st;
    clmax_cl *cl = ctx->cl;
    st = clmax_cl_select_device(selector, &cl->platform, &cl->device);
    if (st != CLMAX_OK) goto fail;

    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)cl->platform, 0};
    cl->context = CL(CreateContext)(props, 1, &cl->device, NULL, NULL, &err);
    if (cl->context == NULL) {
        st = clmax_cl_fail("clCreateContext", err);
        goto fail;
    }
    cl->queue = CL(CreateCommandQueue)(cl->context, cl->device, 0, &err);
    if (cl->queue == NULL) {
        st = clmax_cl_fail("clCreateCommandQueue", err);
        goto fail;
    }
    state_ready(ctx);
    return CLMAX_OK;
fail:
    cl_destroy(ctx);
    return st;
}

clmax_status clmax_opencl_init_from(clmax_context *ctx, cl_context context, cl_device_id device,
                                    cl_command_queue queue)
{
    clmax_status st = state_new(ctx);
    if (st != CLMAX_OK) return st;
    clmax_cl *cl = ctx->cl;
    cl_int err =
        CL(GetDeviceInfo)(device, CL_DEVICE_PLATFORM, sizeof cl->platform, &cl->platform, NULL);
    if (err != CL_SUCCESS) {
        st = clmax_cl_fail("CL(GetDeviceInfo)(CL_DEVICE_PLATFORM)", err);
        cl_destroy(ctx);
        return st;
    }
    CL(RetainContext)(context);
    CL(RetainDevice)(device);
    CL(RetainCommandQueue)(queue);
    cl->context = context;
    cl->device = device;
    cl->retained_device = 1;
    cl->queue = queue;
    state_ready(ctx);
    return CLMAX_OK;
}
