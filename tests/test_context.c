/* Contexts: options, creation and destruction, backend choice, device names and selectors, the
 * environment, and the fallback to the CPU path when there is no OpenCL at all. */
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

/* CLMAX_BACKEND picks the backend of an auto context unless ignore_environment is set. */
Test(context, environment_backend)
{
    if (!backend_enabled(CLMAX_BACKEND_CPU)) cr_skip_test("CPU backend not selected");
    setenv("CLMAX_BACKEND", "cpu", 1);
    clmax_context_options o;
    clmax_context_options_init(&o);
    clmax_context *ctx = NULL;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_CPU);
    clmax_context_destroy(ctx);

    /* with the environment ignored, auto takes OpenCL where there is a device */
    o.backend = CLMAX_BACKEND_OPENCL;
    o.ignore_environment = 1;
    clmax_status st = clmax_context_create(&o, &ctx);
    if (st != CLMAX_OK) cr_skip_test("no OpenCL device to compare with");
    clmax_context_destroy(ctx);
    o.backend = CLMAX_BACKEND_AUTO;
    cr_assert_eq(clmax_context_create(&o, &ctx), CLMAX_OK, "%s", clmax_last_error());
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_OPENCL);
    clmax_context_destroy(ctx);
}

/* In auto mode a device selector that matches nothing is a failure to bring up OpenCL: the CPU
 * path takes over. Forcing OpenCL with it fails. */
Test(context, auto_with_unmatched_selector)
{
    if (!backend_enabled(CLMAX_BACKEND_CPU)) cr_skip_test("CPU backend not selected");
    setenv("CLMAX_DEVICE", "no such device, surely 7c1f", 1);
    unsetenv("CLMAX_BACKEND");
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(NULL, &ctx);
    cr_assert_eq(st, CLMAX_OK, "%s: %s", clmax_status_string(st), clmax_last_error());
    cr_assert_eq(clmax_context_backend(ctx), CLMAX_BACKEND_CPU);
    clmax_context_destroy(ctx);

    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_OPENCL;
    st = clmax_context_create(&o, &ctx);
    cr_assert(st == CLMAX_ERROR_NO_DEVICE || st == CLMAX_ERROR_INVALID_ARGUMENT,
              "CLMAX_DEVICE matching nothing, OpenCL forced: %d (%s)", (int)st,
              clmax_status_string(st));
}

/* The testing aids in the environment keep answers exact. */
BACKEND_TEST(context, environment_testing_aids, .timeout = 900)
{
    setenv("CLMAX_MAX_CHUNK_BYTES", "1000", 1);
    setenv("CLMAX_STRATEGY", "split", 1);
    clmax_context *ctx = test_context_open(backend, NULL);
    test_rng rng;
    rng_seed(&rng, 17);
    int64_t shapes[][3] = {{3, 2000, 1}, {50, 40, 1}, {2, 600, 3}};
    for (int s = 0; s < 3; s++) {
        clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 3, shapes[s]);
        uint64_t count = output_count(&d);
        float *x = test_malloc(count * 4);
        fill_tensor(d.type, x, count, FILL_FEW, &rng);
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = 1;
        check_argmax(ctx, "CLMAX_MAX_CHUNK_BYTES=1000 CLMAX_STRATEGY=split", &d, x, &a);
        a.select_last_index = 1;
        check_argmax(ctx, "CLMAX_MAX_CHUNK_BYTES=1000 CLMAX_STRATEGY=split", &d, x, &a);
        free(x);
    }
    clmax_context_destroy(ctx);
}

/* CLMAX_PLAN runs one kind's plans on the device at hand: gpu gives the work-group trees, many
 * segments and chunks copied in (never used in place), cpu the vector kernels. The shapes reach
 * each: short and long contiguous rows, a strided axis, few long rows and few long strided axes
 * (split), and chunks along the axis and across inner (rectangular copies). Answers stay exact
 * under any strategy the environment may force as well. */
Test(context, environment_plan, .timeout = 900)
{
    static const char *const plans[] = {"gpu", "cpu", "Auto"};
    static const struct {
        int64_t dims[3];
        uint64_t chunk; /* max_chunk_bytes; 0: the device's limit */
    } cases[] = {{{40, 50, 1}, 0},
                 {{9, 3000, 1}, 0},
                 {{4, 300, 33}, 0},
                 {{2, 20011, 1}, 0},
                 {{1, 5000, 3}, 0},
                 {{3, 2000, 3}, 4096},
                 {{2, 10, 2000}, 4096},
                 /* planned as a GPU: 156 segments, merged by a work-group each (combine_wg) */
                 {{1, 40000, 2}, 0}};
    static const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT64,
                                       CLMAX_TYPE_UINT8};
    test_rng rng;
    rng_seed(&rng, 2024);
    for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
        setenv("CLMAX_PLAN", plans[p], 1);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            clmax_context_options o;
            clmax_context_options_init(&o);
            o.max_chunk_bytes = cases[c].chunk;
            clmax_context *ctx = test_context_open(CLMAX_BACKEND_OPENCL, &o);
            char what[64];
            snprintf(what, sizeof what, "CLMAX_PLAN=%s", plans[p]);
            for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
                clmax_tensor_desc d = test_desc(types[t], 3, cases[c].dims);
                uint64_t count = output_count(&d);
                void *x = test_malloc(count * ref_type_size(types[t]));
                fill_tensor(d.type, x, count, (fill_mode)((c + t) % FILL_MODES), &rng);
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = 1;
                a.select_last_index = (int)(t % 2);
                check_argmax(ctx, what, &d, x, &a);
                a.select_last_index = (int)((t + 1) % 2);
                check_argmin(ctx, what, &d, x, &a);
                if (types[t] != CLMAX_TYPE_INT64 && types[t] != CLMAX_TYPE_UINT8)
                    check_hardmax(ctx, what, &d, x, &(clmax_hardmax_attrs){13, 1});
                free(x);
            }
            clmax_context_destroy(ctx);
        }
    }
}

/* A CLMAX_PLAN that names no kind is refused, on any backend and before falling back; with
 * ignore_environment it is not read at all. */
Test(context, environment_plan_bad_value)
{
    static const char *const bad[] = {"discrete", "gpu ", "1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("CLMAX_PLAN", bad[i], 1);
        clmax_backend backends[] = {CLMAX_BACKEND_AUTO, CLMAX_BACKEND_CPU};
        for (int b = 0; b < 2; b++) {
            clmax_context_options o;
            clmax_context_options_init(&o);
            o.backend = backends[b];
            clmax_context *ctx = NULL;
            clmax_status st = clmax_context_create(&o, &ctx);
            cr_assert_eq(st, CLMAX_ERROR_INVALID_ARGUMENT,
                         "CLMAX_PLAN=\"%s\", backend %s: %d (%s), expected a refusal", bad[i],
                         test_backend_str(backends[b]), (int)st, clmax_status_string(st));
            cr_assert_null(ctx);
            cr_assert(strstr(clmax_last_error(), "CLMAX_PLAN") != NULL,
                      "the message does not name the variable: %s", clmax_last_error());

            o.ignore_environment = 1;
            st = clmax_context_create(&o, &ctx);
            cr_assert_eq(st, CLMAX_OK, "ignore_environment, CLMAX_PLAN=\"%s\": %s", bad[i],
                         clmax_last_error());
            float x[6] = {1, 5, 2, 5, 0, -1};
            int64_t dims[2] = {2, 3};
            clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
            check_argmax(ctx, "ignore_environment with a bad CLMAX_PLAN", &d, x, NULL);
            clmax_context_destroy(ctx);
        }
    }
}

/* CLMAX_CPU_AVX512 picks the CPU path's lanes (host/cpu/cpu_backend.c): 512-bit vectors where the
 * CPU has AVX-512BW (auto), 256-bit ones (off). Both must order every 16-bit pattern as the keys
 * do: row 0 (or the last row) of [8, 65536] along axis 0 holds every pattern, a lane each, and
 * the other rows one special value p, so the four answers of ArgMax and ArgMin under both tie
 * rules give each pattern's order against p (NaN payloads, both zeros, infinities, denormals).
 * On a CPU without AVX-512 both settings run the same code. Then lanes of every type. */
Test(context, environment_cpu_avx512, .timeout = 900)
{
    static const char *const values[] = {"off", "auto", "OFF"};
    static const struct {
        clmax_type type;
        uint16_t specials[12];
    } halves[] = {
        {CLMAX_TYPE_FLOAT16,
         {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x3C00, 0xBC00, 0x0001, 0x8001, 0x7BFF,
          0xFBFF}},
        {CLMAX_TYPE_BFLOAT16,
         {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFF81, 0x3F80, 0xBF80, 0x0001, 0x8001, 0x7F7F,
          0xFF7F}},
        {CLMAX_TYPE_INT16,
         {0x0000, 0x8000, 0x7FFF, 0xFFFF, 0x0001, 0x8001, 0x1234, 0xEDCB, 0x7FFE, 0x00FF, 0xFF00,
          0x4000}},
    };
    static const clmax_type types[] = {CLMAX_TYPE_UINT8,   CLMAX_TYPE_INT8,    CLMAX_TYPE_UINT16,
                                       CLMAX_TYPE_INT32,   CLMAX_TYPE_UINT32,  CLMAX_TYPE_FLOAT32,
                                       CLMAX_TYPE_INT64,   CLMAX_TYPE_UINT64,  CLMAX_TYPE_FLOAT64,
                                       CLMAX_TYPE_FLOAT16, CLMAX_TYPE_BFLOAT16};
    const int64_t all_dims[2] = {8, 65536};
    uint16_t *x = test_malloc(8 * 65536 * sizeof *x);
    test_rng rng;
    rng_seed(&rng, 5120);
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
        setenv("CLMAX_CPU_AVX512", values[v], 1);
        clmax_context *ctx = test_context_open(CLMAX_BACKEND_CPU, NULL);
        char what[80];
        for (size_t h = 0; h < sizeof halves / sizeof halves[0]; h++) {
            clmax_tensor_desc d = test_desc(halves[h].type, 2, all_dims);
            for (int s = 0; s < 12; s++)
                for (int at = 0; at < 8; at += 7) { /* the patterns in row 0, then in row 7 */
                    for (int r = 0; r < 8; r++)
                        for (uint32_t l = 0; l < 65536; l++)
                            x[r * 65536 + l] = r == at ? (uint16_t)l : halves[h].specials[s];
                    snprintf(what, sizeof what,
                             "CLMAX_CPU_AVX512=%s, all patterns in row %d, p %04X", values[v], at,
                             halves[h].specials[s]);
                    for (int sli = 0; sli <= 1; sli++) {
                        clmax_argmax_attrs a;
                        clmax_argmax_attrs_init(&a, 13);
                        a.axis = 0;
                        a.select_last_index = sli;
                        check_argmax(ctx, what, &d, x, &a);
                        check_argmin(ctx, what, &d, x, &a);
                    }
                }
        }
        /* every type's lanes, four rows a step and a tail, a middle axis and a strided one */
        static const int64_t shapes[2][3] = {{3, 37, 200}, {1, 1031, 700}};
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (int k = 0; k < 2; k++) {
                clmax_tensor_desc d = test_desc(types[t], 3, shapes[k]);
                uint64_t count = output_count(&d);
                void *y = test_malloc(count * ref_type_size(types[t]));
                fill_tensor(types[t], y, count, (fill_mode)((t + (size_t)k) % FILL_MODES), &rng);
                snprintf(what, sizeof what, "CLMAX_CPU_AVX512=%s", values[v]);
                clmax_argmax_attrs a;
                clmax_argmax_attrs_init(&a, 13);
                a.axis = 1;
                a.select_last_index = k;
                check_argmax(ctx, what, &d, y, &a);
                check_argmin(ctx, what, &d, y, &a);
                free(y);
            }
        clmax_context_destroy(ctx);
    }
    unsetenv("CLMAX_CPU_AVX512");
    free(x);
}

/* A CLMAX_CPU_AVX512 other than auto or off is refused, naming the variable; ignore_environment
 * does not read it. */
Test(context, environment_cpu_avx512_bad_value)
{
    static const char *const bad[] = {"on", "512", "off "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("CLMAX_CPU_AVX512", bad[i], 1);
        clmax_context_options o;
        clmax_context_options_init(&o);
        o.backend = CLMAX_BACKEND_CPU;
        clmax_context *ctx = NULL;
        clmax_status st = clmax_context_create(&o, &ctx);
        cr_assert_eq(st, CLMAX_ERROR_INVALID_ARGUMENT,
                     "CLMAX_CPU_AVX512=\"%s\": %d (%s), expected a refusal", bad[i], (int)st,
                     clmax_status_string(st));
        cr_assert_null(ctx);
        cr_assert(strstr(clmax_last_error(), "CLMAX_CPU_AVX512") != NULL,
                  "the message does not name the variable: %s", clmax_last_error());
        o.ignore_environment = 1;
        st = clmax_context_create(&o, &ctx);
        cr_assert_eq(st, CLMAX_OK, "ignore_environment, CLMAX_CPU_AVX512=\"%s\": %s", bad[i],
                     clmax_last_error());
        clmax_context_destroy(ctx);
    }
    unsetenv("CLMAX_CPU_AVX512");
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
    for (int c = 0; c < 40 && job->status == CLMAX_OK && job->mismatches == 0; c++) {
        clmax_type type = test_all_types[rng_below(&rng, TEST_NUM_TYPES)];
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
