/* OpenCL errors as clmax statuses (host/opencl/cl_error.c): the lowest file of the OpenCL
 * backend, used by all the others. */
#ifndef CLMAX_CL_ERROR_H
#define CLMAX_CL_ERROR_H

#include "clmax.h"

#include "cl_api.h"

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "unknown OpenCL error". */
const char *clmax_cl_error_name(cl_int err);
/* Records a failed OpenCL call: CLMAX_ERROR_OUT_OF_MEMORY for allocation failures, else
 * CLMAX_ERROR_OPENCL; the message names the call and the code. */
clmax_status clmax_cl_fail(const char *call, cl_int err);

#endif
