/* OpenCL backend set-up: platform and device discovery, the selector, context and queue. */
#include "cl_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *clmax_cl_error_name(cl_int err)
{
    switch (err) {
#define E(c)                                                                                       \
    case c:                                                                                        \
        return #c
        E(CL_SUCCESS);
        E(CL_DEVICE_NOT_FOUND);
        E(CL_DEVICE_NOT_AVAILABLE);
        E(CL_COMPILER_NOT_AVAILABLE);
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE);
        E(CL_OUT_OF_RESOURCES);
        E(CL_OUT_OF_HOST_MEMORY);
        E(CL_PROFILING_INFO_NOT_AVAILABLE);
        E(CL_MEM_COPY_OVERLAP);
        E(CL_IMAGE_FORMAT_MISMATCH);
        E(CL_IMAGE_FORMAT_NOT_SUPPORTED);
        E(CL_BUILD_PROGRAM_FAILURE);
        E(CL_MAP_FAILURE);
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        E(CL_COMPILE_PROGRAM_FAILURE);
        E(CL_LINKER_NOT_AVAILABLE);
        E(CL_LINK_PROGRAM_FAILURE);
        E(CL_DEVICE_PARTITION_FAILED);
        E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        E(CL_INVALID_VALUE);
        E(CL_INVALID_DEVICE_TYPE);
        E(CL_INVALID_PLATFORM);
        E(CL_INVALID_DEVICE);
        E(CL_INVALID_CONTEXT);
        E(CL_INVALID_QUEUE_PROPERTIES);
        E(CL_INVALID_COMMAND_QUEUE);
        E(CL_INVALID_HOST_PTR);
        E(CL_INVALID_MEM_OBJECT);
        E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        E(CL_INVALID_IMAGE_SIZE);
        E(CL_INVALID_SAMPLER);
        E(CL_INVALID_BINARY);
        E(CL_INVALID_BUILD_OPTIONS);
        E(CL_INVALID_PROGRAM);
        E(CL_INVALID_PROGRAM_EXECUTABLE);
        E(CL_INVALID_KERNEL_NAME);
        E(CL_INVALID_KERNEL_DEFINITION);
        E(CL_INVALID_KERNEL);
        E(CL_INVALID_ARG_INDEX);
        E(CL_INVALID_ARG_VALUE);
        E(CL_INVALID_ARG_SIZE);
        E(CL_INVALID_KERNEL_ARGS);
        E(CL_INVALID_WORK_DIMENSION);
        E(CL_INVALID_WORK_GROUP_SIZE);
        E(CL_INVALID_WORK_ITEM_SIZE);
        E(CL_INVALID_GLOBAL_OFFSET);
        E(CL_INVALID_EVENT_WAIT_LIST);
        E(CL_INVALID_EVENT);
        E(CL_INVALID_OPERATION);
        E(CL_INVALID_GL_OBJECT);
        E(CL_INVALID_BUFFER_SIZE);
        E(CL_INVALID_MIP_LEVEL);
        E(CL_INVALID_GLOBAL_WORK_SIZE);
        E(CL_INVALID_PROPERTY);
        E(CL_INVALID_IMAGE_DESCRIPTOR);
        E(CL_INVALID_COMPILER_OPTIONS);
        E(CL_INVALID_LINKER_OPTIONS);
        E(CL_INVALID_DEVICE_PARTITION_COUNT);
#undef E
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "unknown OpenCL error";
}

clmax_status clmax_cl_fail(const char *call, cl_int err)
{
    clmax_status st = (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY)
                          ? CLMAX_ERROR_OUT_OF_MEMORY
                          : CLMAX_ERROR_OPENCL;
    return clmax_fail(st, "%s failed with %s (%d)", call, clmax_cl_error_name(err), (int)err);
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] &&
               tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n) return 1;
    }
    return n == 0;
}

static int is_index(const char *s, long *value)
{
    char *end;
    if (!isdigit((unsigned char)s[0])) return 0;
    *value = strtol(s, &end, 10);
    return *end == '\0';
}

/* Finds the device: the selector's match, else the first GPU, else the first device. */
static clmax_status select_device(const char *selector, cl_platform_id *plat, cl_device_id *dev)
{
    cl_uint np = 0;
    cl_int err = CL(GetPlatformIDs)(0, NULL, &np);
    if (err == -1001 || np == 0) /* the ICD loader's "no platform" */
        return clmax_fail(CLMAX_ERROR_NO_DEVICE, "no OpenCL platform is installed");
    if (err != CL_SUCCESS) return clmax_cl_fail("clGetPlatformIDs", err);
    cl_platform_id plats[16];
    if (np > 16) np = 16;
    err = CL(GetPlatformIDs)(np, plats, NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("clGetPlatformIDs", err);

    long want = -1;
    int by_index = selector != NULL && is_index(selector, &want);
    long index = 0;
    int found_gpu = 0, found_any = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        cl_device_id devs[64];
        if (CL(GetDeviceIDs)(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        if (nd > 64) nd = 64;
        char pname[256] = "";
        CL(GetPlatformInfo)(plats[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        for (cl_uint d = 0; d < nd; d++, index++) {
            char dname[256] = "", full[520];
            cl_device_type type = 0;
            cl_bool avail = CL_FALSE, compiler = CL_FALSE;
            CL(GetDeviceInfo)(devs[d], CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
            CL(GetDeviceInfo)(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            CL(GetDeviceInfo)(devs[d], CL_DEVICE_AVAILABLE, sizeof avail, &avail, NULL);
            CL(GetDeviceInfo)
            (devs[d], CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, NULL);
            snprintf(full, sizeof full, "%s %s", pname, dname);
            if (selector != NULL) {
                if (by_index ? index == want : contains_nocase(full, selector)) {
                    if (!avail || !compiler)
                        return clmax_fail(CLMAX_ERROR_NO_DEVICE,
                                          "device %ld (%s) is not available or has no compiler",
                                          index, full);
                    *plat = plats[p];
                    *dev = devs[d];
                    return CLMAX_OK;
                }
                continue;
            }
            if (!avail || !compiler) continue;
            if ((type & CL_DEVICE_TYPE_GPU) && !found_gpu) {
                found_gpu = found_any = 1;
                *plat = plats[p];
                *dev = devs[d];
            } else if (!found_any) {
                found_any = 1;
                *plat = plats[p];
                *dev = devs[d];
            }
        }
    }
    if (selector != NULL)
        return clmax_fail(CLMAX_ERROR_NO_DEVICE,
                          "no OpenCL device matches \"%s\" (an index among the %ld devices, or "
                          "part of \"<platform> <device>\"; `clmax devices` lists them)",
                          selector, index);
    if (!found_any)
        return clmax_fail(CLMAX_ERROR_NO_DEVICE, "no available OpenCL device with a compiler");
    return CLMAX_OK;
}

void clmax_cl_destroy(clmax_context *ctx)
{
    clmax_cl *cl = ctx->cl;
    if (cl == NULL) return;
    if (cl->scratch_event) CL(ReleaseEvent)(cl->scratch_event);
    if (cl->scratch) CL(ReleaseMemObject)(cl->scratch);
    clmax_cl_release_programs(cl);
    if (cl->copy_queue) CL(ReleaseCommandQueue)(cl->copy_queue);
    if (cl->queue) CL(ReleaseCommandQueue)(cl->queue);
    if (cl->context) CL(ReleaseContext)(cl->context);
    if (cl->retained_device) CL(ReleaseDevice)(cl->device);
    pthread_mutex_destroy(&cl->lock);
    free(cl);
    ctx->cl = NULL;
}

static const clmax_backend_iface cl_iface = {clmax_cl_reduce, clmax_cl_destroy};

void clmax_cl_query_device(clmax_context *ctx)
{
    clmax_cl *cl = ctx->cl;
    cl_device_type type = 0;
    cl_uint cu = 1;
    cl_bool unified = CL_FALSE;
    cl_ulong max_alloc = 0;
    size_t max_wg = 1;
    cl_ulong local_mem = 0;
    char pname[256] = "", dname[256] = "";
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
    CL(GetPlatformInfo)(cl->platform, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    CL(GetDeviceInfo)(cl->device, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    cl->info.is_cpu = cl->info.native_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    cl->info.unified_memory = unified == CL_TRUE;
    /* CLMAX_PLAN: the planner and the chunking see the kind asked for. The kernels depend on the
     * kind through the build options (the planned work-group size, NT), so the program caches (in
     * memory and on disk) keep telling the two apart; the CPU builtins (prefetch, non-temporal
     * stores) follow the real kind, as other compilers refuse them. */
    if (ctx->plan_as == CLMAX_PLAN_AS_GPU) {
        cl->info.is_cpu = 0;
        cl->info.unified_memory = 0;
    } else if (ctx->plan_as == CLMAX_PLAN_AS_CPU) {
        cl->info.is_cpu = 1;
    }
    cl->info.compute_units = cu ? cu : 1;
    cl->info.max_wg = max_wg ? max_wg : 1;
    cl->info.max_alloc = max_alloc ? max_alloc : (128u << 20);
    cl->info.local_mem = local_mem;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.250s / %.250s", pname, dname);
    ctx->iface = &cl_iface;
}

clmax_status clmax_cl_state_new(clmax_context *ctx)
{
    clmax_cl *cl = calloc(1, sizeof *cl);
    if (cl == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "OpenCL backend state");
    if (pthread_mutex_init(&cl->lock, NULL) != 0) {
        free(cl);
        return clmax_fail(CLMAX_ERROR_INTERNAL, "pthread_mutex_init failed");
    }
    ctx->cl = cl;
    return CLMAX_OK;
}

clmax_status clmax_opencl_init(clmax_context *ctx, const char *selector)
{
    clmax_status st = clmax_cl_state_new(ctx);
    if (st != CLMAX_OK) return st;
    clmax_cl *cl = ctx->cl;
    st = select_device(selector, &cl->platform, &cl->device);
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
    clmax_cl_query_device(ctx);
    return CLMAX_OK;
fail:
    clmax_cl_destroy(ctx);
    return st;
}
