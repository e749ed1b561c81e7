/*
 * Strategies and plans on contexts made from the caller's OpenCL objects: options.strategy forced
 * (and the scratch each needs), and CLMAX_PLAN read from the environment.
 */
#include "enqueue_common.h"

/* options.strategy forced on contexts made from the caller's objects. */
Test(enqueue, forced_strategies)
{
    clenv e;
    env_open(&e, 0);
    const clmax_strategy strategies[] = {CLMAX_STRATEGY_ROWS, CLMAX_STRATEGY_STRIDED,
                                         CLMAX_STRATEGY_SPLIT};
    const shape3 cases[] = {{2, {9, 700}, 1}, {3, {4, 150, 21}, 1}, {2, {2, 5000}, 1},
                            {2, {3, 1}, 1},   {3, {1, 7, 3}, 0},    {3, {6, 2, 300}, 2},
                            {1, {70001}, 0},  {2, {4097, 2}, 0}};
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT64,
                                CLMAX_TYPE_UINT8, CLMAX_TYPE_FLOAT64};
    int n = 0;
    for (int s = 0; s < 3; s++) {
        clmax_context *ctx = clmax_open(&e, strategies[s]);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const shape3 *sh = &cases[c];
            for (size_t t = 0; t < sizeof types / sizeof types[0]; t++, n++) {
                job j;
                job_argmax(&j, types[t], sh->rank, sh->dims, 13, sh->axis, 1, n % 2);
                if (n % 3 == 0) j.itype = CLMAX_INDEX_INT32;
                job_offsets(&j, 3, 1 + 2 * (n % 3));
                job_fill(&j, n % 2 ? IN_SPECIAL_ROWS : FILL_FEW, 600 + (uint64_t)n);
                size_t need = 0;
                ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "scratch_size");
                int64_t axis_len = sh->dims[sh->axis];
                if (strategies[s] == CLMAX_STRATEGY_SPLIT && axis_len >= 2)
                    cr_assert_gt(need, 0, "%s: a forced split needs scratch", j.what);
                /* Without a forced split, only a device that ends loops early splits an axis
                 * (rusticl's llvmpipe: 70001 elements); one it keeps runs 16384 steps or more,
                 * and the planner uses half of that less CLMAX_LOOP_SLACK (host/plan.h). */
                if ((strategies[s] != CLMAX_STRATEGY_SPLIT && axis_len < 16384 / 2 - 256) ||
                    axis_len < 2)
                    cr_assert_eq(need, 0, "%s: %zu bytes of scratch without a split", j.what, need);
                run_job(&e, ctx, NULL, &j, NULL);
                job_free(&j);

                if (!ref_hardmax_takes_type(types[t], 13)) continue;
                job_hardmax(&j, types[t], sh->rank, sh->dims, 13, sh->axis);
                job_offsets(&j, 1, 3);
                job_fill(&j, FILL_FEW, 700 + (uint64_t)n);
                run_job(&e, ctx, NULL, &j, NULL);
                job_free(&j);
            }
        }
        clmax_context_destroy(ctx);
    }
    env_close(&e);
}

/* Contexts made from the caller's objects read CLMAX_PLAN too: a bad value is refused (unless
 * the environment is ignored), and a GPU's plans (work-group trees, split axes) give exact answers
 * on whatever device this is. */
Test(enqueue, environment_plan)
{
    clenv e;
    env_open(&e, 0); /* before CLMAX_PLAN is set: it probes with a context of its own */
    clmax_context_options o;
    clmax_context_options_init(&o);
    clmax_context *ctx = NULL;
    setenv("CLMAX_PLAN", "integrated", 1);
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, e.queue, &o, &ctx),
              CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert_null(ctx);
    cr_assert(strstr(clmax_last_error(), "CLMAX_PLAN") != NULL, "%s", clmax_last_error());
    o.ignore_environment = 1;
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, e.queue, &o, &ctx), CLMAX_OK);
    clmax_context_destroy(ctx);

    setenv("CLMAX_PLAN", "gpu", 1);
    ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const shape3 cases[] = {{2, {40, 50}, 1},
                            {2, {9, 3000}, 1},
                            {3, {4, 300, 33}, 1},
                            {2, {2, 20011}, 1},
                            {3, {1, 5000, 3}, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const shape3 *sh = &cases[c];
        job j;
        job_argmax(&j, CLMAX_TYPE_FLOAT32, sh->rank, sh->dims, 13, sh->axis, 1, (int)(c % 2));
        job_offsets(&j, 3, 1);
        job_fill(&j, c % 2 ? IN_SPECIAL_ROWS : FILL_FEW, 900 + (uint64_t)c);
        run_job(&e, ctx, NULL, &j, NULL);
        job_free(&j);
    }
    clmax_context_destroy(ctx);
    env_close(&e);
}
