/* Every OpenCL entry point the library calls goes through this table, so that tests can make any
 * call fail (fault injection) or count the objects created and released. The table starts out
 * holding the real functions; nothing else ever changes it. */
#ifndef CLMAX_CL_API_H
#define CLMAX_CL_API_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#define CLMAX_CL_FUNCTIONS(X)                                                                      \
    X(BuildProgram)                                                                                \
    X(CreateBuffer)                                                                                \
    X(CreateCommandQueue)                                                                          \
    X(CreateContext)                                                                               \
    X(CreateKernel)                                                                                \
    X(CreateProgramWithBinary)                                                                     \
    X(CreateProgramWithSource)                                                                     \
    X(EnqueueFillBuffer)                                                                           \
    X(EnqueueMapBuffer)                                                                            \
    X(EnqueueMarkerWithWaitList)                                                                   \
    X(EnqueueNDRangeKernel)                                                                        \
    X(EnqueueReadBuffer)                                                                           \
    X(EnqueueReadBufferRect)                                                                       \
    X(EnqueueUnmapMemObject)                                                                       \
    X(EnqueueWriteBuffer)                                                                          \
    X(EnqueueWriteBufferRect)                                                                      \
    X(Finish)                                                                                      \
    X(Flush)                                                                                       \
    X(GetCommandQueueInfo)                                                                         \
    X(GetDeviceIDs)                                                                                \
    X(GetDeviceInfo)                                                                               \
    X(GetEventInfo)                                                                                \
    X(GetMemObjectInfo)                                                                            \
    X(GetPlatformIDs)                                                                              \
    X(GetPlatformInfo)                                                                             \
    X(GetProgramBuildInfo)                                                                         \
    X(GetProgramInfo)                                                                              \
    X(ReleaseCommandQueue)                                                                         \
    X(ReleaseContext)                                                                              \
    X(ReleaseDevice)                                                                               \
    X(ReleaseEvent)                                                                                \
    X(ReleaseKernel)                                                                               \
    X(ReleaseMemObject)                                                                            \
    X(ReleaseProgram)                                                                              \
    X(RetainCommandQueue)                                                                          \
    X(RetainContext)                                                                               \
    X(RetainDevice)                                                                                \
    X(RetainEvent)                                                                                 \
    X(SetKernelArg)                                                                                \
    X(WaitForEvents)

typedef struct clmax_cl_api_table {
#define CLMAX_CL_API_FIELD(name) __typeof__(cl##name) *name;
    CLMAX_CL_FUNCTIONS(CLMAX_CL_API_FIELD)
#undef CLMAX_CL_API_FIELD
} clmax_cl_api_table;

/* The table in use. Tests (linked statically) may replace entries and must restore them. */
extern clmax_cl_api_table clmax_cl_api;

#define CL(name) (clmax_cl_api.name)

#endif
