/* The OpenCL device: discovery among the platforms, the selector, and the facts the planner uses.
 */
#include "cl_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* How auto ranks a device by its type: a GPU first, then a CPU or an accelerator, last a device
 * that claims several kinds at once (Oclgrind's simulator says it is all of them) or none. */
static int type_rank(cl_device_type type)
{
    cl_device_type kinds =
        type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR);
    if (kinds == CL_DEVICE_TYPE_GPU) return 3;
    if (kinds == CL_DEVICE_TYPE_CPU || kinds == CL_DEVICE_TYPE_ACCELERATOR) return 2;
    return 1;
}

/* Finds the device: the selector's match, else the first available device of the best rank
 * (type_rank). */
clmax_status clmax_cl_select_device(const char *selector, cl_platform_id *plat, cl_device_id *dev)
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
    int best = 0;
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
            if (!avail || !compiler || type_rank(type) <= best) continue;
            best = type_rank(type);
            *plat = plats[p];
            *dev = devs[d];
        }
    }
    if (selector != NULL)
        return clmax_fail(CLMAX_ERROR_NO_DEVICE,
                          "no OpenCL device matches \"%s\" (an index among the %ld devices, or "
                          "part of \"<platform> <device>\"; `clmax devices` lists them)",
                          selector, index);
    if (!best)
        return clmax_fail(CLMAX_ERROR_NO_DEVICE, "no available OpenCL device with a compiler");
    return CLMAX_OK;
}

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
}
