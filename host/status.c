/* Status strings, the per-thread last-error message, version and type tables. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[CLMAX_ERROR_MAX];

clmax_status clmax_fail(clmax_status status, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(last_error, sizeof last_error, "%s: ", clmax_status_string(status));
    if (n < 0 || (size_t)n >= sizeof last_error) n = 0;
    va_start(ap, fmt);
    vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    va_end(ap);
    return status;
}

void clmax_clear_error(void)
{
    last_error[0] = '\0';
}

const char *clmax_last_error(void)
{
    return last_error;
}

static _Thread_local struct {
    clmax_call_report report;
    char device[512];
    char message[CLMAX_ERROR_MAX];
    char choice[160];
    int chose; /* 0: no choice made; else 1 + its clmax_chose_how */
    int chose_device;
    double chose_cpu_s, chose_dev_s;
} last_call;

void clmax_call_begin(void)
{
    last_call.report.backend = CLMAX_BACKEND_AUTO;
    last_call.report.fallback_status = CLMAX_OK;
    last_call.device[0] = last_call.message[0] = '\0';
    last_call.chose = 0;
}

void clmax_call_chose(clmax_chose_how how, int device, double cpu_s, double dev_s)
{
    if (last_call.chose) return;
    last_call.chose = 1 + (int)how;
    last_call.chose_device = device;
    last_call.chose_cpu_s = cpu_s;
    last_call.chose_dev_s = dev_s;
}

static void write_choice(void)
{
    const char *side = last_call.chose_device ? "opencl" : "cpu";
    double mine = last_call.chose_device ? last_call.chose_dev_s : last_call.chose_cpu_s;
    double other = last_call.chose_device ? last_call.chose_cpu_s : last_call.chose_dev_s;
    switch (last_call.chose) {
    case 0:
        last_call.choice[0] = '\0';
        break;
    case 1 + CLMAX_CHOSE_FORCED:
        snprintf(last_call.choice, sizeof last_call.choice, "auto: CLMAX_AUTO_PATH=%s", side);
        break;
    case 1 + CLMAX_CHOSE_UNMEASURED:
        snprintf(last_call.choice, sizeof last_call.choice,
                 "auto: the device, whose cost could not be measured");
        break;
    case 1 + CLMAX_CHOSE_AXIS_ONE:
        snprintf(last_call.choice, sizeof last_call.choice,
                 "an axis of one: the CPU path writes the answer without reading the input");
        break;
    case 1 + CLMAX_CHOSE_MEASURING:
        snprintf(last_call.choice, sizeof last_call.choice,
                 "auto: the CPU path, while the device's cost is measured in the background");
        break;
    default:
        snprintf(last_call.choice, sizeof last_call.choice,
                 "auto: the %s, expected %.1f us against %.1f us on the %s",
                 last_call.chose_device ? "device" : "CPU path", 1e6 * mine, 1e6 * other,
                 last_call.chose_device ? "CPU path" : "device");
        break;
    }
}

void clmax_call_ran(clmax_backend backend, const char *device)
{
    /* A call of several parts is reported as the CPU path's once any part ran there. */
    if (last_call.report.backend == CLMAX_BACKEND_CPU && backend != CLMAX_BACKEND_CPU) return;
    last_call.report.backend = backend;
    /* a copy, not snprintf: this runs on every call, and snprintf was a tenth of a 1000-element
     * call's time */
    size_t n = strlen(device);
    if (n >= sizeof last_call.device) n = sizeof last_call.device - 1;
    memcpy(last_call.device, device, n);
    last_call.device[n] = '\0';
}

void clmax_call_fell_back(clmax_status st)
{
    if (last_call.report.fallback_status == CLMAX_OK) {
        last_call.report.fallback_status = st;
        snprintf(last_call.message, sizeof last_call.message, "%s", last_error);
    }
    clmax_clear_error();
}

const clmax_call_report *clmax_last_call_report(void)
{
    last_call.report.device = last_call.device;
    last_call.report.fallback_message = last_call.message;
    write_choice();
    last_call.report.choice = last_call.choice;
    return &last_call.report;
}

const char *clmax_status_string(clmax_status status)
{
    switch (status) {
    case CLMAX_OK:
        return "success";
    case CLMAX_ERROR_INVALID_ARGUMENT:
        return "invalid argument";
    case CLMAX_ERROR_UNSUPPORTED_OPSET:
        return "unsupported opset";
    case CLMAX_ERROR_UNSUPPORTED_TYPE:
        return "unsupported type";
    case CLMAX_ERROR_INVALID_RANK:
        return "invalid rank";
    case CLMAX_ERROR_INVALID_SHAPE:
        return "invalid shape";
    case CLMAX_ERROR_INVALID_AXIS:
        return "invalid axis";
    case CLMAX_ERROR_INVALID_ATTRIBUTE:
        return "invalid attribute";
    case CLMAX_ERROR_EMPTY_AXIS:
        return "reduction over an empty axis";
    case CLMAX_ERROR_SIZE_OVERFLOW:
        return "size overflow";
    case CLMAX_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case CLMAX_ERROR_NO_DEVICE:
        return "no OpenCL device";
    case CLMAX_ERROR_OPENCL:
        return "OpenCL error";
    case CLMAX_ERROR_BUILD:
        return "OpenCL program build failed";
    case CLMAX_ERROR_INTERNAL:
        return "internal error";
    case CLMAX_ERROR_INDEX_OVERFLOW:
        return "index does not fit the index type";
    }
    return "unknown status";
}

unsigned clmax_version_number(void)
{
    return CLMAX_VERSION_NUMBER;
}

#define CLMAX_STR2(x) #x
#define CLMAX_STR(x) CLMAX_STR2(x)

const char *clmax_version_string(void)
{
    return CLMAX_STR(CLMAX_VERSION_MAJOR) "." CLMAX_STR(CLMAX_VERSION_MINOR) "." CLMAX_STR(
        CLMAX_VERSION_PATCH);
}

size_t clmax_type_size(clmax_type type)
{
    switch (type) {
    case CLMAX_TYPE_UINT8:
    case CLMAX_TYPE_INT8:
        return 1;
    case CLMAX_TYPE_UINT16:
    case CLMAX_TYPE_INT16:
    case CLMAX_TYPE_FLOAT16:
    case CLMAX_TYPE_BFLOAT16:
        return 2;
    case CLMAX_TYPE_UINT32:
    case CLMAX_TYPE_INT32:
    case CLMAX_TYPE_FLOAT32:
        return 4;
    case CLMAX_TYPE_UINT64:
    case CLMAX_TYPE_INT64:
    case CLMAX_TYPE_FLOAT64:
        return 8;
    }
    return 0;
}

const char *clmax_type_name(clmax_type type)
{
    switch (type) {
    case CLMAX_TYPE_FLOAT32:
        return "float32";
    case CLMAX_TYPE_UINT8:
        return "uint8";
    case CLMAX_TYPE_INT8:
        return "int8";
    case CLMAX_TYPE_UINT16:
        return "uint16";
    case CLMAX_TYPE_INT16:
        return "int16";
    case CLMAX_TYPE_INT32:
        return "int32";
    case CLMAX_TYPE_INT64:
        return "int64";
    case CLMAX_TYPE_FLOAT16:
        return "float16";
    case CLMAX_TYPE_FLOAT64:
        return "float64";
    case CLMAX_TYPE_UINT32:
        return "uint32";
    case CLMAX_TYPE_UINT64:
        return "uint64";
    case CLMAX_TYPE_BFLOAT16:
        return "bfloat16";
    }
    return "unknown";
}
