/* The kernel sources compile without a warning on the OpenCL implementation in use (issue 37):
 * every kernel family, built with the options the library gives it, for every type, each define
 * the host sets taking each of its values across the types (tie rule, ArgMin, the three outputs),
 * with -Werror added, and no "warning" in the build log either (for a compiler that keeps
 * warnings in the log without failing). The library's own builds never pass -Werror: a newer
 * compiler's new warning must not stop a user's call. */
#include "backend.h"
#include "common.h"
#include "opencl/cl_internal.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const clmax_type all_types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_UINT8,   CLMAX_TYPE_INT8,
                                       CLMAX_TYPE_UINT16,  CLMAX_TYPE_INT16,   CLMAX_TYPE_INT32,
                                       CLMAX_TYPE_INT64,   CLMAX_TYPE_FLOAT16, CLMAX_TYPE_FLOAT64,
                                       CLMAX_TYPE_UINT32,  CLMAX_TYPE_UINT64,  CLMAX_TYPE_BFLOAT16};
#define NTYPES (sizeof all_types / sizeof all_types[0])

/* The build log of prog on device, or "" (freed by the caller). */
static char *build_log(cl_program prog, cl_device_id device)
{
    size_t len = 0;
    clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = calloc(len + 1, 1);
    cr_assert_not_null(log);
    if (len > 0) clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    return log;
}

/* NVIDIA's compiler (driver 550 and later) logs this for kernels whatever their source says: no
 * noinline is written in kernels/, and the same line comes for other projects' kernels. */
static const char nvidia_kernel_inline[] = "is a kernel, so overriding noinline attribute";

/* Whether a line of the log, other than the line above, says "warning". */
static int has_warning(const char *log)
{
    while (*log) {
        size_t len = strcspn(log, "\n");
        int warns = 0, known = 0;
        for (size_t i = 0; i < len; i++) {
            warns |= strncmp(log + i, "warning", 7) == 0 || strncmp(log + i, "Warning", 7) == 0;
            known |= strncmp(log + i, nvidia_kernel_inline, sizeof nvidia_kernel_inline - 1) == 0;
        }
        if (warns && !known) return 1;
        log += len + (log[len] == '\n');
    }
    return 0;
}

/* The filter: NVIDIA's line alone is clean; any other warning, before or after it, is not. */
Test(warnings, log_filter)
{
    const char *nv = "(): Warning: Function reduce_rows_wi is a kernel, so overriding noinline "
                     "attribute. The function may be inlined when called.";
    char both[512];
    cr_assert_not(has_warning(""));
    cr_assert_not(has_warning(nv));
    snprintf(both, sizeof both, "%s\n%s\n", nv, nv);
    cr_assert_not(has_warning(both));
    snprintf(both, sizeof both, "%s\n<kernel>:3:1: warning: unused variable 'x'", nv);
    cr_assert(has_warning(both));
    snprintf(both, sizeof both, "<kernel>:3:1: Warning: unused\n%s", nv);
    cr_assert(has_warning(both));
}

/* Every family of the programs for these options, built with -Werror and a clean log. */
static void build_clean(clmax_context *ctx, clmax_type type, int last, clmax_out_mode mode)
{
    clmax_cl *cl = ctx->cl;
    size_t wg = clmax_cl_plan_wg(cl);
    clmax_cl_program *p;
    pthread_mutex_lock(&cl->lock);
    clmax_status st = clmax_cl_get_program(cl, type, last, wg, mode, &p);
    pthread_mutex_unlock(&cl->lock);
    cr_assert_eq(st, CLMAX_OK, "%s", clmax_last_error());
    char options[sizeof p->options + 16];
    snprintf(options, sizeof options, "%s -Werror", p->options);
    for (int f = 0; f < CLMAX_CL_NFAMILIES; f++) {
        const char *texts[CLMAX_CL_FAMILY_FILES];
        size_t lens[CLMAX_CL_FAMILY_FILES];
        cl_uint n;
        cr_assert_eq(clmax_cl_family_sources(f, texts, lens, &n), CLMAX_OK);
        cl_int err;
        cl_program prog = clCreateProgramWithSource(cl->context, n, texts, lens, &err);
        cr_assert_not_null(prog, "clCreateProgramWithSource: %d", err);
        err = clBuildProgram(prog, 1, &cl->device, options, NULL, NULL);
        char *log = build_log(prog, cl->device);
        cr_expect(err == CL_SUCCESS && !has_warning(log),
                  "kernel family %d (host/opencl/cl_program.c) %s with options \"%s\":\n%s", f,
                  err == CL_SUCCESS ? "warns" : "fails", options, log);
        free(log);
        clReleaseProgram(prog);
    }
}

ParameterizedTestParameters(warnings, every_family)
{
    static int index[NTYPES];
    for (size_t i = 0; i < NTYPES; i++)
        index[i] = (int)i;
    return cr_make_param_array(int, index, NTYPES);
}

/* Type i with tie rule i & 1 (ArgMax and ArgMin, int64 and int32 indices share the programs);
 * then Hardmax for the floats. */
ParameterizedTest(int *i, warnings, every_family, .timeout = 600)
{
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_OPENCL, NULL);
    clmax_type type = all_types[*i];
    cr_log_info("%s on %s", test_type_str(type), clmax_context_device_name(ctx));
    build_clean(ctx, type, *i & 1, CLMAX_OUT_INDEX64);
    if (type == CLMAX_TYPE_FLOAT16 || type == CLMAX_TYPE_BFLOAT16 || type == CLMAX_TYPE_FLOAT32 ||
        type == CLMAX_TYPE_FLOAT64)
        build_clean(ctx, type, 0, CLMAX_OUT_HARDMAX);
    clmax_context_destroy(ctx);
}
