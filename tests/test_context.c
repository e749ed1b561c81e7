/* Contexts: options, creation and destruction, backend choice, device names and selectors, the
 * fallback to the CPU path when there is no OpenCL at all, and threads each with a context of its
 * own. What the environment does to a context: test_environment.c. */
#include "common.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

Test(context, options_init)
{
    clmax_context_options o;
    memset(&o, 0x77, sizeof o);
    clmax_context_options_init(&o);
    cr_assert_eq(o.backend, CLMAX_BACKEND_AUTO);
    cr_assert_null(o.device);
    cr_assert_eq(o.num_threads, 0);
    cr_assert_eq(o.max_chunk_bytes, 0);
    cr_assert_eq(o.strategy, CLMAX_STRATEGY_AUTO);
    cr_assert_eq(o.ignore_environment, 0);
}

Test(context, destroy_null)
{
    clmax_context_destroy(NULL);
}

Test(context, create_null_out)
{
    cr_assert_eq(clmax_context_create(NULL, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);
}

Test(context, bad_options)
{
    clmax_context_options o;
    clmax_context *ctx = NULL;

    clmax_context_options_init(&o);
    o.ignore_environment = 1;
    o.backend = (clmax_backend)7;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert(clmax_last_error()[0] != 0);

    clmax_context_options_init(&o);
    o.ignore_environment = 1;
    o.backend = CLMAX_BACKEND_CPU;
    o.strategy = (clmax_strategy)9;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_ERROR_INVALID_ARGUMENT);

    clmax_context_options_init(&o);
    o.ignore_environment = 1;
    o.backend = CLMAX_BACKEND_CPU;
    o.num_threads = -1;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_ERROR_INVALID_ARGUMENT);
}

/* NULL options: the defaults, whatever backend that gives (the environment may choose it). */
Test(context, default_options)
{
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(NULL, &ctx);
    cr_assert_eq(st, CLMAX_OK, "%s: %s", clmax_status_string(st), clmax_last_error());
    cr_assert_not_null(ctx);
    clmax_backend b = clmax_context_backend(ctx);
    cr_assert(b == CLMAX_BACKEND_CPU || b == CLMAX_BACKEND_OPENCL, "backend %d", (int)b);
    cr_assert_not_null(clmax_context_device_name(ctx));
    cr_assert(clmax_context_device_name(ctx)[0] != 0);
    cr_log_info("default context: %s on %s", test_backend_str(b), clmax_context_device_name(ctx));
    float x[5] = {1, 5, 2, 5, 0};
    int64_t dims[1] = {5};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 1, dims);
    check_argmax(ctx, "default context", &d, x, NULL);
    clmax_context_destroy(ctx);
}

Test(context, cpu_backend)
{
    if (!backend_enabled(CLMAX_BACKEND_CPU)) cr_skip_test("CPU backend not selected");
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_CPU;
    o.num_threads = 3;
    clmax_context *ctx = NULL;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_CPU);
    cr_assert_str_eq(clmax_context_device_name(ctx), "CPU (3 threads)");
    clmax_context_destroy(ctx);

    o.num_threads = 0; /* one per core */
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_CPU);
    cr_assert(strncmp(clmax_context_device_name(ctx), "CPU (", 5) == 0, "%s",
              clmax_context_device_name(ctx));
    clmax_context_destroy(ctx);
}

/* The CPU path gives the same answers whatever its thread count. */
Test(context, cpu_thread_counts, .timeout = 900)
{
    int counts[] = {1, 2, 3, 7, 16};
    test_rng rng;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        clmax_context_options o;
        clmax_context_options_init(&o);
        o.num_threads = counts[c];
        clmax_context *ctx = test_context_open(CLMAX_BACKEND_CPU, &o);
        rng_seed(&rng, 99);
        int64_t shapes[][3] = {{1, 100003, 1}, {1000, 77, 1}, {3, 5000, 7}, {7, 3, 1}};
        for (int s = 0; s < 4; s++) {
            clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 3, shapes[s]);
            uint64_t count = output_count(&d);
            float *x = test_malloc(count * 4);
            fill_tensor(d.type, x, count, (fill_mode)(s % FILL_MODES), &rng);
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 13);
            a.axis = 1;
            check_argmax(ctx, "thread count", &d, x, &a);
            a.select_last_index = 1;
            check_argmax(ctx, "thread count", &d, x, &a);
            check_hardmax(ctx, "thread count", &d, x, &(clmax_hardmax_attrs){13, 1});
            free(x);
        }
        clmax_context_destroy(ctx);
    }
}

/* The answers of one large ArgMax and one Hardmax on ctx against the reference: 0 if exact. Plain
 * returns, no Criterion asserts, so that a forked child can use it. */
static int fork_case_mismatches(clmax_context *ctx, const clmax_tensor_desc *d, const float *x,
                                const int64_t *want, const float *want_h, int64_t *got,
                                float *got_h)
{
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    if (clmax_argmax(ctx, d, x, &a, got) != CLMAX_OK) return 1;
    if (memcmp(got, want, (size_t)d->dims[0] * sizeof *got) != 0) return 1;
    clmax_hardmax_attrs h = {13, 1};
    if (clmax_hardmax(ctx, d, x, &h, got_h) != CLMAX_OK) return 1;
    return memcmp(got_h, want_h, output_count(d) * sizeof *got_h) != 0;
}

/* The CPU path keeps its threads between calls (host/pool.c). A child forked after they started
 * has none of them: its calls must still finish, exactly, and so must its clmax_context_destroy,
 * and the parent's context must go on working. */
Test(context, cpu_calls_after_fork, .timeout = 300)
{
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.num_threads = 3;
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_CPU, &o);
    int64_t dims[2] = {700, 1000}; /* above the size the CPU path splits over its threads */
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
    uint64_t count = output_count(&d);
    float *x = test_malloc(count * sizeof *x), *want_h = test_malloc(count * sizeof *want_h);
    float *got_h = test_malloc(count * sizeof *got_h);
    int64_t *want = test_malloc((size_t)dims[0] * sizeof *want);
    int64_t *got = test_malloc((size_t)dims[0] * sizeof *got);
    test_rng rng;
    rng_seed(&rng, 4242);
    fill_tensor(d.type, x, count, FILL_MIXED, &rng);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    cr_assert_eq(ref_argmax(&d, x, &a, want), CLMAX_OK);
    clmax_hardmax_attrs h = {13, 1};
    cr_assert_eq(ref_hardmax(&d, x, &h, want_h), CLMAX_OK);
    /* the threads start here */
    cr_assert_eq(fork_case_mismatches(ctx, &d, x, want, want_h, got, got_h), 0, "%s",
                 clmax_last_error());

    fflush(NULL);
    pid_t child = fork();
    cr_assert_neq(child, -1, "fork failed");
    if (child == 0) {
        int bad = fork_case_mismatches(ctx, &d, x, want, want_h, got, got_h);
        clmax_context_destroy(ctx);
        free(x); /* all freed: a leak checker that follows the child exits it with an error */
        free(want_h);
        free(got_h);
        free(want);
        free(got);
        _exit(bad ? 2 : 0);
    }
    int status = 0;
    pid_t w = 0;
    for (int waited = 0; waited < 60000 && (w = waitpid(child, &status, WNOHANG)) == 0;
         waited += 10)
        usleep(10000);
    if (w == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        cr_assert_fail("the forked child's calls did not finish within 60 s");
    }
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the forked child failed (wait status %#x; exit status 2: wrong answers)", status);

    cr_assert_eq(fork_case_mismatches(ctx, &d, x, want, want_h, got, got_h), 0, "%s",
                 clmax_last_error());
    clmax_context_destroy(ctx);
    free(x);
    free(want_h);
    free(got_h);
    free(want);
    free(got);
}

Test(context, opencl_backend)
{
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_OPENCL, NULL);
    const char *name = clmax_context_device_name(ctx);
    cr_assert_not_null(name);
    cr_assert(strstr(name, " / ") != NULL,
              "OpenCL device name \"%s\" is not \"<platform> / "
              "<device>\"",
              name);
    cr_log_info("OpenCL device: %s", name);
    clmax_context_destroy(ctx);
}

/* Selecting the device by index and by a name substring. */
Test(context, opencl_device_selector)
{
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_OPENCL, NULL);
    char name[512];
    snprintf(name, sizeof name, "%s", clmax_context_device_name(ctx));
    clmax_context_destroy(ctx);
    const char *dev = strstr(name, " / ");
    cr_assert_not_null(dev);
    dev += 3;

    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_OPENCL;
    o.ignore_environment = 1;
    o.device = "0";
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_OK, "device \"0\": %s", clmax_last_error());
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_OPENCL);
    clmax_context_destroy(ctx);

    char sel[512];
    snprintf(sel, sizeof sel, "%s", dev);
    for (char *p = sel; *p; p++) /* case-insensitive */
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
    o.device = sel;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_OK, "device \"%s\": %s", sel,
                 clmax_last_error());
    cr_assert(strstr(clmax_context_device_name(ctx), dev) != NULL, "%s does not name %s",
              clmax_context_device_name(ctx), dev);
    clmax_context_destroy(ctx);

    o.device = "no such device, surely 7c1f";
    clmax_status st = clmax_context_create(&o, &ctx);
    cr_assert(st == CLMAX_ERROR_NO_DEVICE || st == CLMAX_ERROR_INVALID_ARGUMENT,
              "a selector matching nothing gave %d (%s)", (int)st, clmax_status_string(st));
    cr_assert(clmax_last_error()[0] != 0);
    o.device = "999";
    st = clmax_context_create(&o, &ctx);
    cr_assert(st == CLMAX_ERROR_NO_DEVICE || st == CLMAX_ERROR_INVALID_ARGUMENT,
              "device index 999 gave %d (%s)", (int)st, clmax_status_string(st));
}

/* Several contexts at once, and many in a row. */
BACKEND_TEST(context, many, .timeout = 900)
{
    clmax_context *c[3];
    for (int i = 0; i < 3; i++)
        c[i] = test_context_open(backend, NULL);
    int64_t dims[2] = {4, 33};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT16, 2, dims);
    uint16_t x[132];
    test_rng rng;
    rng_seed(&rng, 5);
    fill_tensor(d.type, x, 132, FILL_SPECIAL, &rng);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    for (int i = 2; i >= 0; i--)
        check_argmax(c[i], "several contexts", &d, x, &a);
    clmax_context_destroy(c[1]);
    check_argmax(c[0], "several contexts", &d, x, &a);
    check_argmax(c[2], "several contexts", &d, x, &a);
    clmax_context_destroy(c[0]);
    clmax_context_destroy(c[2]);
    for (int i = 0; i < 4; i++) {
        clmax_context *ctx = test_context_open(backend, NULL);
        check_argmax(ctx, "context in a loop", &d, x, &a);
        clmax_context_destroy(ctx);
    }
}

/* ---- Without any OpenCL platform ----------------------------------------------------------- */

/* True when OCL_ICD_VENDORS names a directory without any .icd file (and OCL_ICD_FILENAMES adds
 * none): the ICD loader then finds no platform. ctest runs this suite so (clmax.no_opencl). Also
 * true when CLMAX_EXPECT_NO_OPENCL=1: whoever set it promises there is no OpenCL platform. */
static int opencl_hidden(void)
{
    const char *expect = getenv("CLMAX_EXPECT_NO_OPENCL"); /* set by .ci/run for such a run */
    if (expect && strcmp(expect, "1") == 0) return 1;
    const char *dir = getenv("OCL_ICD_VENDORS");
    const char *files = getenv("OCL_ICD_FILENAMES");
    if (!dir || !*dir || (files && *files)) return 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    int icd = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".icd") == 0) icd = 1;
    }
    closedir(d);
    return !icd;
}

Test(no_opencl, auto_falls_back_to_cpu)
{
    if (!opencl_hidden()) cr_skip_test("OCL_ICD_VENDORS does not hide OpenCL");
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.ignore_environment = 1;
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(&o, &ctx);
    cr_assert_eq(st, CLMAX_OK, "%s: %s", clmax_status_string(st), clmax_last_error());
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_CPU);
    cr_assert(strncmp(clmax_context_device_name(ctx), "CPU", 3) == 0);
    int64_t dims[2] = {3, 4};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT64, 2, dims);
    double x[12] = {1, 2, 3, 3, -0.0, 0.0, -1, -2, NAN, 1, NAN, 2};
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    check_argmax(ctx, "fallback", &d, x, &a);
    a.select_last_index = 1;
    check_argmax(ctx, "fallback", &d, x, &a);
    check_hardmax(ctx, "fallback", &d, x, NULL);
    clmax_context_destroy(ctx);

    const char *env = getenv("CLMAX_BACKEND");
    if (env && *env && strcmp(env, "cpu") != 0 && strcmp(env, "auto") != 0) return;
    ctx = NULL;
    cr_assert_eq(clmax_context_create(NULL, &ctx), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_CPU);
    clmax_context_destroy(ctx);
}

Test(no_opencl, forced_opencl_fails)
{
    if (!opencl_hidden()) cr_skip_test("OCL_ICD_VENDORS does not hide OpenCL");
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.ignore_environment = 1;
    o.backend = CLMAX_BACKEND_OPENCL;
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(&o, &ctx);
    cr_assert_eq(st, CLMAX_ERROR_NO_DEVICE, "%d (%s): %s", (int)st, clmax_status_string(st),
                 clmax_last_error());
    cr_assert(clmax_last_error()[0] != 0);
}

/* ---- Threads, each with its own context ---------------------------------------------------- */

typedef struct thread_job {
    clmax_backend backend;
    uint64_t seed;
    int mismatches;
    clmax_status status;
    char message[256];
} thread_job;

static void *thread_run(void *arg)
{
    thread_job *job = arg;
    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = job->backend;
    clmax_context *ctx = NULL;
    job->status = clmax_context_create(&o, &ctx);
    if (job->status != CLMAX_OK) {
        snprintf(job->message, sizeof job->message, "create: %s", clmax_last_error());
        return NULL;
    }
    test_rng rng;
    rng_seed(&rng, job->seed);
    /* Three types (a float, a narrow and a 64-bit key) that every thread shares, so that the
     * contexts build the same programs at once; every type is the type tests' work, and on a cold
     * OpenCL cache each of the twelve cost this test three builds (378 s of a CI mode). */
    static const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_INT8, CLMAX_TYPE_UINT64};
    for (int c = 0; c < 40 && job->status == CLMAX_OK && job->mismatches == 0; c++) {
        clmax_type type = types[rng_below(&rng, sizeof types / sizeof types[0])];
        int64_t dims[3] = {1 + (int64_t)rng_below(&rng, 20), 1 + (int64_t)rng_below(&rng, 3000),
                           1 + (int64_t)rng_below(&rng, 4)};
        clmax_tensor_desc d = test_desc(type, 3, dims);
        uint64_t count = output_count(&d);
        void *x = malloc(count * ref_type_size(type));
        int64_t *y = malloc((size_t)(dims[0] * dims[2]) * sizeof *y);
        int64_t *want = malloc((size_t)(dims[0] * dims[2]) * sizeof *want);
        if (!x || !y || !want) {
            job->status = CLMAX_ERROR_OUT_OF_MEMORY;
        } else {
            fill_tensor(type, x, count, (fill_mode)(c % FILL_MODES), &rng);
            clmax_argmax_attrs a;
            clmax_argmax_attrs_init(&a, 13);
            a.axis = 1;
            a.select_last_index = c & 1;
            ref_argmax(&d, x, &a, want);
            job->status = clmax_argmax(ctx, &d, x, &a, y);
            if (job->status != CLMAX_OK)
                snprintf(job->message, sizeof job->message, "argmax: %s", clmax_last_error());
            for (int64_t e = 0; job->status == CLMAX_OK && e < dims[0] * dims[2]; e++)
                if (y[e] != want[e]) {
                    job->mismatches++;
                    snprintf(job->message, sizeof job->message,
                             "%s [%lld,%lld,%lld] axis 1 sli %d: y[%lld] = %lld, expected %lld",
                             test_type_str(type), (long long)dims[0], (long long)dims[1],
                             (long long)dims[2], c & 1, (long long)e, (long long)y[e],
                             (long long)want[e]);
                    break;
                }
        }
        free(x);
        free(y);
        free(want);
    }
    clmax_context_destroy(ctx);
    return NULL;
}

BACKEND_TEST(context, threads, .timeout = 900)
{
    clmax_context_destroy(test_context_open(backend, NULL)); /* skips without the backend */
    enum { N = 3 };
    pthread_t th[N];
    thread_job jobs[N];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < N; i++) {
        jobs[i].backend = backend;
        jobs[i].seed = 700 + (uint64_t)i;
        cr_assert_eq(pthread_create(&th[i], NULL, thread_run, &jobs[i]), 0);
    }
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(jobs[i].status, CLMAX_OK, "thread %d: %s", i, jobs[i].message);
        cr_assert_eq(jobs[i].mismatches, 0, "thread %d: %s", i, jobs[i].message);
    }
}
