/* Auto's per-call choice: the cost model (host/cost.c) on the profiles of three kinds of device,
 * and through the API, the choice forced each way (CLMAX_AUTO_PATH) gives the same bits and says
 * where the call went. Speed itself is never asserted. */
#include "common.h"
#include "cost.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

/* Sizes a call moves: [1, 1000] float32 with its index, 1 MiB, 256 MiB, 64 GiB. */
static const uint64_t sizes[] = {4008, MIB, 256 * MIB, 64 * GIB};

/* PoCL's CPU device on this machine's kind of host: the device reads the same memory at about
 * the CPU path's rate and pays a launch of tens of microseconds. */
static const clmax_cost_profile cpu_device = {0.5e-6, 27e9, 63e-6, 27e9};
/* An integrated GPU sharing host memory: three times the CPU path's rate, a 30 us launch. */
static const clmax_cost_profile integrated = {1e-6, 20e9, 30e-6, 60e9};
/* A discrete GPU: host pointers go over PCIe (7 GB/s end to end, as on the H100 machine), while
 * the CPU path reads host memory at 100 GB/s. */
static const clmax_cost_profile discrete = {2e-6, 100e9, 20e-6, 7e9};

Test(cost, cpu_device_never_takes_the_device)
{
    clmax_cost_profile slower = cpu_device;
    slower.dev_bps = 25e9;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        cr_expect_not(clmax_cost_prefers_device(&cpu_device, sizes[i]), "%llu bytes",
                      (unsigned long long)sizes[i]);
        cr_expect_not(clmax_cost_prefers_device(&slower, sizes[i]));
    }
}

Test(cost, discrete_gpu_keeps_host_pointers_off_the_bus)
{
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        cr_expect_not(clmax_cost_prefers_device(&discrete, sizes[i]), "%llu bytes",
                      (unsigned long long)sizes[i]);
}

Test(cost, integrated_gpu_takes_large_calls_only)
{
    cr_expect_not(clmax_cost_prefers_device(&integrated, 4008));
    cr_expect(clmax_cost_prefers_device(&integrated, 256 * MIB));
    cr_expect(clmax_cost_prefers_device(&integrated, 64 * GIB));
    /* The crossing, with the margin: m * (30 us + b / 60e9) = 1 us + b / 20e9. */
    double m = CLMAX_COST_DEVICE_MARGIN;
    double cross = (m * integrated.dev_call_s - integrated.cpu_call_s) /
                   (1 / integrated.cpu_bps - m / integrated.dev_bps);
    cr_expect_not(clmax_cost_prefers_device(&integrated, (uint64_t)(cross * 0.99)));
    cr_expect(clmax_cost_prefers_device(&integrated, (uint64_t)(cross * 1.01)));
    cr_expect_float_eq(clmax_cost_device_seconds(&integrated, (uint64_t)60e9), 30e-6 + 1.0, 1e-12);
    cr_expect_float_eq(clmax_cost_cpu_seconds(&integrated, (uint64_t)20e9), 1e-6 + 1.0, 1e-12);
}

Test(cost, the_device_needs_a_clear_lead)
{
    clmax_cost_profile same = {10e-6, 10e9, 10e-6, 10e9};
    cr_expect_not(clmax_cost_prefers_device(&same, MIB));
    same.dev_bps = 12e9; /* 20% faster: not enough */
    cr_expect_not(clmax_cost_prefers_device(&same, GIB));
    same.dev_bps = 13e9; /* 30% faster */
    cr_expect(clmax_cost_prefers_device(&same, GIB));
}

Test(cost, profiles_round_trip_and_bad_ones_are_refused)
{
    unsigned char b[CLMAX_COST_PROFILE_BYTES];
    clmax_cost_profile back;
    clmax_cost_profile_pack(&integrated, b);
    clmax_cost_profile_unpack(b, &back);
    cr_expect(memcmp(&back, &integrated, sizeof back) == 0);
    cr_expect(clmax_cost_profile_valid(&back));
    double bad[] = {0.0, -1.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int field = 0; field < 4; field++) {
            clmax_cost_profile p = integrated;
            double *f[4] = {&p.cpu_call_s, &p.cpu_bps, &p.dev_call_s, &p.dev_bps};
            *f[field] = bad[i];
            cr_expect_not(clmax_cost_profile_valid(&p), "field %d = %g", field, bad[i]);
        }
}

/* An auto context on the device, with CLMAX_AUTO_PATH as given (NULL: the model). NULL when
 * there is no device (the test is skipped unless CLMAX_REQUIRE_OPENCL=1). */
static clmax_context *auto_context(const char *path)
{
    if (path)
        setenv("CLMAX_AUTO_PATH", path, 1);
    else
        unsetenv("CLMAX_AUTO_PATH");
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.cache_dir = "off";
    clmax_context *ctx = NULL;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_OK, "%s", clmax_last_error());
    if (clmax_context_backend(ctx) != CLMAX_BACKEND_OPENCL) {
        clmax_context_destroy(ctx);
        cr_assert_not(opencl_required(), "no OpenCL device, and CLMAX_REQUIRE_OPENCL=1");
        cr_skip_test("no OpenCL device");
    }
    return ctx;
}

/* ArgMax of float32 rows [rows, n] along axis 1; its status (no assertion: a forked child uses
 * it too, where Criterion's must not run). */
static clmax_status run_argmax_rows(clmax_context *ctx, const float *x, int64_t rows, int64_t n,
                                    int64_t *y)
{
    clmax_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.type = CLMAX_TYPE_FLOAT32;
    d.rank = 2;
    d.dims[0] = rows, d.dims[1] = n;
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    a.keepdims = 0;
    return clmax_argmax(ctx, &d, x, &a, y);
}

static void argmax_rows(clmax_context *ctx, const float *x, int64_t rows, int64_t n, int64_t *y)
{
    cr_assert_eq(run_argmax_rows(ctx, x, rows, n, y), CLMAX_OK, "%s", clmax_last_error());
}

/* clmax_context_prebuild() of ArgMax on float32: it also measures the cost and waits. */
static void prebuild_float32(clmax_context *ctx)
{
    const clmax_type f32 = CLMAX_TYPE_FLOAT32;
    clmax_prebuild_options o;
    clmax_prebuild_options_init(&o);
    o.types = &f32;
    o.ntypes = 1;
    o.operators = CLMAX_PREBUILD_ARGMAX;
    cr_assert_eq(clmax_context_prebuild(ctx, &o, NULL), CLMAX_OK, "%s", clmax_last_error());
}

Test(cost, forced_paths_give_the_same_bits_and_say_so)
{
    enum { ROWS = 300, N = 1000 };
    float *x = malloc(sizeof(float) * ROWS * N);
    int64_t y[3][ROWS];
    uint32_t h = 1;
    for (int i = 0; i < ROWS * N; i++) {
        h = h * 1664525u + 1013904223u;
        x[i] = (float)(h >> 20); /* 4096 values: ties in every row */
    }
    const char *paths[3] = {"cpu", "opencl", NULL};
    const clmax_backend want[2] = {CLMAX_BACKEND_CPU, CLMAX_BACKEND_OPENCL};
    for (int k = 0; k < 3; k++) {
        clmax_context *ctx = auto_context(paths[k]);
        if (k == 2) /* the model: measured first, so that the call below follows it */
            prebuild_float32(ctx);
        argmax_rows(ctx, x, ROWS, N, y[k]);
        const clmax_call_report *r = clmax_last_call_report();
        cr_expect_neq(r->backend, CLMAX_BACKEND_AUTO);
        if (k < 2) {
            cr_expect_eq(r->backend, want[k], "CLMAX_AUTO_PATH=%s ran on %d", paths[k],
                         (int)r->backend);
            cr_expect(strstr(r->choice, "CLMAX_AUTO_PATH") != NULL, "choice: '%s'", r->choice);
        } else {
            cr_expect(strstr(r->choice, "expected") != NULL, "choice: '%s'", r->choice);
        }
        clmax_context_destroy(ctx);
    }
    unsetenv("CLMAX_AUTO_PATH");
    cr_expect(memcmp(y[0], y[1], sizeof y[0]) == 0, "the CPU path and the device differ");
    cr_expect(memcmp(y[0], y[2], sizeof y[0]) == 0, "the model's path differs");
    free(x);
}

/* The profile is measured off the calling thread: until it is known, calls take the CPU path at
 * once and say why; a context destroyed meanwhile stops its helper; prebuild waits for it. */
Test(cost, calls_never_wait_for_the_measurement)
{
    enum { ROWS = 4, N = 10 };
    float x[ROWS * N];
    for (int i = 0; i < ROWS * N; i++)
        x[i] = (float)((i * 7) % 11);
    int64_t y[ROWS], want[ROWS];
    for (int r = 0; r < ROWS; r++) {
        want[r] = 0;
        for (int j = 1; j < N; j++)
            if (x[r * N + j] > x[r * N + want[r]]) want[r] = j;
    }
    for (int round = 0; round < 2; round++) {
        clmax_context *ctx = auto_context(NULL); /* the store is off: nothing is known */
        argmax_rows(ctx, x, ROWS, N, y);
        const clmax_call_report *r = clmax_last_call_report();
        cr_expect_eq(r->backend, CLMAX_BACKEND_CPU);
        cr_expect(strstr(r->choice, "measured in the background") != NULL, "choice: '%s'",
                  r->choice);
        cr_expect(memcmp(y, want, sizeof y) == 0);
        if (round == 1) { /* the second: measured to the end, then the model decides */
            prebuild_float32(ctx);
            argmax_rows(ctx, x, ROWS, N, y);
            r = clmax_last_call_report();
            cr_expect(strstr(r->choice, "expected") != NULL, "choice: '%s'", r->choice);
            cr_expect(memcmp(y, want, sizeof y) == 0);
        }
        clmax_context_destroy(ctx); /* the first: the helper is stopped and joined here */
    }
    unsetenv("CLMAX_AUTO_PATH");
}

/* fork() while the helper measures: the child has no helper, and answers on the CPU path (the
 * device's threads are the parent's). The child ends with _exit: a driver's state in a forked
 * child is undefined, so it neither destroys the context nor runs the exit handlers. */
Test(cost, a_forked_child_answers_on_the_cpu_path)
{
    float x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = (float)(i % 97);
    int64_t y[1];
    clmax_context *ctx = auto_context(NULL);
    argmax_rows(ctx, x, 1, 1000, y); /* starts the helper */
    cr_expect(strstr(clmax_last_call_report()->choice, "measured in the background") != NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork failed");
    if (pid == 0) {
        alarm(60); /* a call that waited for a helper that is not there would hang */
        y[0] = -1;
        clmax_status st = run_argmax_rows(ctx, x, 1, 1000, y);
        const clmax_call_report *r = clmax_last_call_report();
        _exit(st == CLMAX_OK && y[0] == 96 && r->backend == CLMAX_BACKEND_CPU ? 0 : 3);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child: status %#x", status);
    clmax_context_destroy(ctx); /* the parent's helper: stopped and joined */
    unsetenv("CLMAX_AUTO_PATH");
}

/* An axis of one: every index is 0 and Hardmax all ones, written by the CPU path without reading
 * the input, even where CLMAX_AUTO_PATH sends calls to the device; the report says why. A row of
 * two, beside it, goes to the device. */
Test(cost, an_axis_of_one_needs_no_device)
{
    float x[2 * 6];
    for (int i = 0; i < 12; i++)
        x[i] = (float)(i % 5);
    int64_t y[12];
    clmax_context *ctx = auto_context("opencl");
    memset(y, 0xFF, sizeof y);
    argmax_rows(ctx, x, 12, 1, y);
    const clmax_call_report *r = clmax_last_call_report();
    for (int i = 0; i < 12; i++)
        cr_expect_eq(y[i], 0, "index %d: %lld", i, (long long)y[i]);
    cr_expect_eq(r->backend, CLMAX_BACKEND_CPU);
    cr_expect(strstr(r->choice, "axis of one") != NULL, "choice: '%s'", r->choice);

    clmax_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.type = CLMAX_TYPE_FLOAT32;
    d.rank = 3;
    d.dims[0] = 3, d.dims[1] = 1, d.dims[2] = 4;
    clmax_hardmax_attrs h;
    clmax_hardmax_attrs_init(&h, 13);
    h.axis = 1;
    float ones[12];
    memset(ones, 0, sizeof ones);
    cr_assert_eq(clmax_hardmax(ctx, &d, x, &h, ones), CLMAX_OK, "%s", clmax_last_error());
    for (int i = 0; i < 12; i++)
        cr_expect_eq(ones[i], 1.0f, "Hardmax element %d: %g", i, ones[i]);
    r = clmax_last_call_report();
    cr_expect_eq(r->backend, CLMAX_BACKEND_CPU);
    cr_expect(strstr(r->choice, "axis of one") != NULL, "choice: '%s'", r->choice);

    argmax_rows(ctx, x, 6, 2, y);
    r = clmax_last_call_report();
    cr_expect_eq(r->backend, CLMAX_BACKEND_OPENCL);
    cr_expect(strstr(r->choice, "CLMAX_AUTO_PATH") != NULL, "choice: '%s'", r->choice);
    for (int i = 0; i < 6; i++)
        cr_expect_eq(y[i], x[2 * i + 1] > x[2 * i] ? 1 : 0, "row %d", i);
    clmax_context_destroy(ctx);
    unsetenv("CLMAX_AUTO_PATH");
}

Test(cost, explicit_backends_make_no_choice)
{
    float x[1000] = {0};
    x[17] = 1;
    int64_t y[1];
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_CPU, NULL);
    argmax_rows(ctx, x, 1, 1000, y);
    cr_expect_eq(y[0], 17);
    cr_expect_str_empty(clmax_last_call_report()->choice);
    clmax_context_destroy(ctx);
}

Test(cost, a_bad_auto_path_is_refused)
{
    setenv("CLMAX_AUTO_PATH", "gpu", 1);
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(NULL, &ctx);
    unsetenv("CLMAX_AUTO_PATH");
    cr_expect_eq(st, CLMAX_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(clmax_last_error(), "CLMAX_AUTO_PATH=gpu") != NULL, "%s", clmax_last_error());
    cr_expect_null(ctx);
}
