/* Auto's choice per call: in an auto context that has an OpenCL device, each host-pointer call
 * runs on the device or on the CPU path, whichever the cost model expects to finish first.
 *
 * The model is two lines, time = fixed cost per call + bytes / throughput, one for each path,
 * measured once per device (host/calibrate.c) on host memory as the calls use it. What the issue
 * lists as the device's kind, its sharing of host memory and the bus's bandwidth are all in the
 * device's measured line: a CPU device reads the same memory as the CPU path at no better rate
 * and pays a launch; a discrete GPU's host-pointer line is the bus's copy; an integrated GPU's is
 * its own read of shared memory. */
#ifndef CLMAX_COST_H
#define CLMAX_COST_H

#include <stddef.h>
#include <stdint.h>

typedef struct clmax_cost_profile {
    double cpu_call_s; /* the CPU path: seconds of a call on a tiny problem */
    double cpu_bps;    /* its bytes (input and output) per second on a large one */
    double dev_call_s; /* the device on host memory: launch, map or copy, wait */
    double dev_bps;    /* its bytes per second there, copies included */
} clmax_cost_profile;

/* The expected seconds of a call moving bytes (input and output) on each path. */
double clmax_cost_cpu_seconds(const clmax_cost_profile *pf, uint64_t bytes);
double clmax_cost_device_seconds(const clmax_cost_profile *pf, uint64_t bytes);
/* Whether the device is expected faster for a call moving bytes by CLMAX_COST_DEVICE_MARGIN. The
 * lines are measured on one shape (rows of 1024 float32), and from shape to shape each path's
 * rate varies by more than a CPU device's line differs from the CPU path's (the sweep in
 * docs/PERFORMANCE.md): only a clear lead, as an integrated GPU's, sends calls to the device. */
#define CLMAX_COST_DEVICE_MARGIN 1.25
int clmax_cost_prefers_device(const clmax_cost_profile *pf, uint64_t bytes);
/* Whether every figure is positive and finite (a profile read back from disk is checked). */
int clmax_cost_profile_valid(const clmax_cost_profile *pf);

#define CLMAX_COST_PROFILE_BYTES 32 /* its form in the store: four little-endian doubles */
void clmax_cost_profile_pack(const clmax_cost_profile *pf, unsigned char out[32]);
void clmax_cost_profile_unpack(const unsigned char in[32], clmax_cost_profile *pf);

#endif
