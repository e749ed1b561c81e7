/* Seconds on the monotonic clock, for the host's own timings: the calibration of auto contexts
 * (calibrate.c), the OpenCL program builds (opencl/cl_cache.c) and the Hardmax scan's once-per-
 * process choice (cpu/cpu_hardmax_scan.c). */
#ifndef CLMAX_CLOCK_H
#define CLMAX_CLOCK_H

#include <time.h>

static inline double clmax_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
