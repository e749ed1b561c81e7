/* Failures: every layer records the detail of a failure for clmax_last_error() (host/status.c). */
#ifndef CLMAX_STATUS_H
#define CLMAX_STATUS_H

#include "clmax.h"

#define CLMAX_ERROR_MAX 4096

/* Record the detail of a failure for clmax_last_error() and return status. printf-style. */
clmax_status clmax_fail(clmax_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Forget the last error of this thread (called on entry to each public call). */
void clmax_clear_error(void);

/* An argument check: returns CLMAX_ERROR_INVALID_ARGUMENT with the message unless cond holds. */
#define CHECK_ARG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) return clmax_fail(CLMAX_ERROR_INVALID_ARGUMENT, __VA_ARGS__);                 \
    } while (0)

/* The per-thread report of the last operator call (clmax_last_call_report()). */
void clmax_call_begin(void);
/* A part of the answer was computed on backend, by device (named as clmax_context_device_name). */
void clmax_call_ran(clmax_backend backend, const char *device);
/* The device failed with st (its message the thread's last error, which this clears) and the CPU
 * path will compute the answer. */
void clmax_call_fell_back(clmax_status st);
/* Why an auto context sent the call where it did (the first reason given stays): forced by
 * CLMAX_AUTO_PATH, the device for want of a profile, the CPU path while the device is measured
 * off the calling thread, the cost model's two estimates (seconds), or an axis of one (any context
 * with a device: the CPU path writes its answer without reading the input).
 * Kept as numbers: the words are written only when the report is read. */
typedef enum {
    CLMAX_CHOSE_FORCED,
    CLMAX_CHOSE_UNMEASURED,
    CLMAX_CHOSE_MEASURING,
    CLMAX_CHOSE_MODEL,
    CLMAX_CHOSE_AXIS_ONE
} clmax_chose_how;
void clmax_call_chose(clmax_chose_how how, int device, double cpu_s, double dev_s);

#endif
