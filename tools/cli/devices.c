/* `clmax devices`: the OpenCL platforms and devices in CLMAX_DEVICE index order, and the device a
 * context picks. clmax.h has no listing call, so this one command asks OpenCL directly. */
#include "cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "clmax.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

/* A platform or device string, trimmed, or NULL; the caller frees it. */
static char *info_string(int is_platform, void *object, cl_uint param)
{
    size_t size = 0;
    char *s, *start, *end;
    cl_int err;

    err = is_platform ? clGetPlatformInfo(object, param, 0, NULL, &size)
                      : clGetDeviceInfo(object, param, 0, NULL, &size);
    if (err != CL_SUCCESS || size == 0) return NULL;
    s = malloc(size + 1);
    if (s == NULL) return NULL;
    err = is_platform ? clGetPlatformInfo(object, param, size, s, NULL)
                      : clGetDeviceInfo(object, param, size, s, NULL);
    if (err != CL_SUCCESS) {
        free(s);
        return NULL;
    }
    s[size] = '\0';
    for (start = s; isspace((unsigned char)*start); start++)
        continue;
    end = start + strlen(start);
    while (end > start && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    memmove(s, start, (size_t)(end - start) + 1);
    return s;
}

/* The kinds a device claims, "GPU", "CPU", "accelerator", joined by '+' where it claims several
 * (Oclgrind's simulator claims all three), else "other". */
static const char *type_name(cl_device_type type, char *buf, size_t size)
{
    static const struct {
        cl_device_type bit;
        const char *name;
    } kinds[] = {{CL_DEVICE_TYPE_GPU, "GPU"},
                 {CL_DEVICE_TYPE_CPU, "CPU"},
                 {CL_DEVICE_TYPE_ACCELERATOR, "accelerator"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (type & kinds[i].bit)
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? "+" : "",
                     kinds[i].name);
    return buf[0] ? buf : "other";
}

/* Lists every device; returns the index whose "<platform> / <device>" is picked (if exactly one
 * is), else -1. */
static long list_devices(const char *picked)
{
    cl_uint nplatforms = 0;
    cl_platform_id *platforms = NULL;
    long index = 0, match = -1, matches = 0;
    cl_int err;

    err = clGetPlatformIDs(0, NULL, &nplatforms);
    if (err != CL_SUCCESS || nplatforms == 0) {
        printf("No OpenCL platform found");
        if (err != CL_SUCCESS && err != -1001 /* CL_PLATFORM_NOT_FOUND_KHR */)
            printf(" (clGetPlatformIDs: error %d)", (int)err);
        printf(".\n");
        return -1;
    }
    platforms = calloc(nplatforms, sizeof *platforms);
    if (platforms == NULL || clGetPlatformIDs(nplatforms, platforms, NULL) != CL_SUCCESS) {
        printf("No OpenCL platform could be read.\n");
        free(platforms);
        return -1;
    }
    printf("OpenCL devices (the index is what --device and CLMAX_DEVICE take):\n");
    for (cl_uint p = 0; p < nplatforms; p++) {
        char *pname = info_string(1, platforms[p], CL_PLATFORM_NAME);
        char *pversion = info_string(1, platforms[p], CL_PLATFORM_VERSION);
        cl_uint ndevices = 0;
        cl_device_id *devices = NULL;

        printf("platform %u: %s%s%s%s\n", p, pname ? pname : "(unnamed)", pversion ? " (" : "",
               pversion ? pversion : "", pversion ? ")" : "");
        err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndevices);
        if (err == CL_SUCCESS && ndevices > 0) {
            devices = calloc(ndevices, sizeof *devices);
            if (devices == NULL || clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, ndevices,
                                                  devices, NULL) != CL_SUCCESS)
                ndevices = 0;
        } else {
            ndevices = 0;
        }
        if (ndevices == 0) printf("  (no devices)\n");
        for (cl_uint d = 0; d < ndevices; d++, index++) {
            char *dname = info_string(0, devices[d], CL_DEVICE_NAME);
            char *dversion = info_string(0, devices[d], CL_DEVICE_VERSION);
            cl_device_type type = 0;
            cl_uint units = 0;
            cl_ulong mem = 0, alloc = 0;
            char full[1024], kinds[32];

            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
            printf("  [%ld] %s\n", index, dname ? dname : "(unnamed)");
            printf("      %s, %u compute units, %.1f GiB memory, %.1f GiB max allocation%s%s\n",
                   type_name(type, kinds, sizeof kinds), units, (double)mem / (1 << 30),
                   (double)alloc / (1 << 30), dversion ? ", " : "", dversion ? dversion : "");
            snprintf(full, sizeof full, "%s / %s", pname ? pname : "", dname ? dname : "");
            if (picked != NULL && strcmp(full, picked) == 0) {
                match = index;
                matches++;
            }
            free(dname);
            free(dversion);
        }
        free(devices);
        free(pname);
        free(pversion);
    }
    free(platforms);
    return matches == 1 ? match : -1;
}

int cli_devices(int argc, char **argv)
{
    clmax_context_options options;
    clmax_context *ctx = NULL;
    clmax_status s;
    const char *backend_name = "auto";
    long picked_index;
    int code = CLI_EXIT_OK, has_backend = 0;

    clmax_context_options_init(&options);
    for (int i = 0; i < argc; i++) {
        const char *value = NULL;
        int r;

        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_usage(stdout, "devices");
            return CLI_EXIT_OK;
        } else if ((r = cli_option(argc, argv, &i, "--backend", &value)) != 0) {
            if (r < 0) return cli_usage_error("devices", "--backend needs a value");
            if (strcmp(value, "auto") == 0)
                options.backend = CLMAX_BACKEND_AUTO;
            else if (strcmp(value, "opencl") == 0)
                options.backend = CLMAX_BACKEND_OPENCL;
            else if (strcmp(value, "cpu") == 0)
                options.backend = CLMAX_BACKEND_CPU;
            else
                return cli_usage_error("devices", "--backend=%s: must be auto, opencl or cpu",
                                       value);
            backend_name = value;
            has_backend = 1;
        } else if ((r = cli_option(argc, argv, &i, "--device", &value)) != 0) {
            if (r < 0 || value[0] == '\0')
                return cli_usage_error("devices", "--device needs a value");
            options.device = value;
        } else if (argv[i][0] == '-') {
            return cli_usage_error("devices", "unknown option '%s'", argv[i]);
        } else {
            return cli_usage_error("devices", "unexpected argument '%s'", argv[i]);
        }
    }

    /* As in argmax and hardmax: a device without a backend means OpenCL. */
    if (options.device != NULL && !has_backend) {
        options.backend = CLMAX_BACKEND_OPENCL;
        backend_name = "opencl";
    }
    s = clmax_context_create(&options, &ctx);
    picked_index = list_devices(s == CLMAX_OK ? clmax_context_device_name(ctx) : NULL);
    printf("\n%s%s%s%s picks: ", backend_name, options.device ? " with device '" : "",
           options.device ? options.device : "", options.device ? "'" : "");
    if (s == CLMAX_OK) {
        int opencl = clmax_context_backend(ctx) == CLMAX_BACKEND_OPENCL;
        printf("%s, %s", opencl ? "opencl" : "cpu", clmax_context_device_name(ctx));
        if (opencl && picked_index >= 0) printf(" [%ld]", picked_index);
        printf("\n");
    } else {
        const char *detail = clmax_last_error(), *status = clmax_status_string(s);
        if (strncmp(detail, status, strlen(status)) == 0) status = "";
        printf("nothing\n");
        fflush(stdout);
        fprintf(stderr, "clmax: cannot start the %s backend: %s%s%s\n", backend_name, status,
                status[0] && detail[0] ? ": " : "", detail);
        code = CLI_EXIT_REFUSED;
    }
    clmax_context_destroy(ctx);
    return code;
}
