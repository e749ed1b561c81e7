/* The environment's say over a context: CLMAX_BACKEND and CLMAX_DEVICE in auto mode, the testing
 * aids (CLMAX_MAX_CHUNK_BYTES, CLMAX_STRATEGY) keeping answers exact, CLMAX_PLAN and
 * CLMAX_CPU_AVX512 (their values, and a bad value refused unless ignore_environment is set). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* a float with Hardmax and a 64-bit integer key: every type under CLMAX_PLAN=gpu is a CI mode
     * of its own (the kernel tests), and each type here cost a cold cache two plans' programs */
    static const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_INT64};
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
                if (types[t] != CLMAX_TYPE_INT64)
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

/* CLMAX_CPU_AVX512 picks the CPU path's lanes (host/cpu/cpu_lanes.c): 512-bit vectors where the
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
        /* "OFF" (any case is accepted) runs the code of "off": the shapes below do for it */
        for (size_t h = 0; v < 2 && h < sizeof halves / sizeof halves[0]; h++) {
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

/* A CLMAX_CPU_AVX512 other than auto, off or full is refused, naming the variable;
 * ignore_environment does not read it. */
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
