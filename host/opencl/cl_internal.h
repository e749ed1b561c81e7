/* OpenCL backend internals: the device, its context and queue, and the program cache. */
#ifndef CLMAX_CL_INTERNAL_H
#define CLMAX_CL_INTERNAL_H

#include "internal.h"
#include "plan.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>

#define CLMAX_MAX_PROGRAMS 64

/* One built program: a (type, tie rule, work-group size) specialisation of kernels/argmax.cl. */
typedef struct clmax_cl_program {
    char options[256];
    cl_program program;
    cl_kernel rows_wi, rows_wg, strided, combine;
} clmax_cl_program;

struct clmax_cl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    clmax_device_info info;
    pthread_mutex_t lock; /* serialises use of the queue, the kernels' arguments and the cache */
    int nprograms;
    clmax_cl_program programs[CLMAX_MAX_PROGRAMS];
};

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "unknown OpenCL error". */
const char *clmax_cl_error_name(cl_int err);
/* Records a failed OpenCL call: CLMAX_ERROR_OUT_OF_MEMORY for allocation failures, else
 * CLMAX_ERROR_OPENCL; the message names the call and the code. */
clmax_status clmax_cl_fail(const char *call, cl_int err);

/* The program for a type and tie rule, built on first use (under cl->lock). */
clmax_status clmax_cl_get_program(clmax_cl *cl, clmax_type type, int last, size_t wg,
                                  const clmax_cl_program **out);
void clmax_cl_release_programs(clmax_cl *cl);

clmax_status clmax_cl_reduce(clmax_context *ctx, const clmax_problem *p, const void *x,
                             int64_t *idx);

#endif
