/*
 * clmax_enqueue_hardmax on the caller's OpenCL objects: every float type and opset, long rows,
 * short rows, and the zeros that the reduce kernels write themselves on CPU devices, with guard
 * bytes around the output, against the reference and the CPU path's host API.
 */
#include "enqueue_common.h"

Test(enqueue, hardmax_opsets)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    const int64_t small[3] = {3, 4, 50};
    int n = 0;
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
        for (int o = 0; o < 3; o++) {
            int opset = test_hardmax_opsets[o];
            if (!ref_hardmax_takes_type(test_float_types[t], opset)) continue;
            for (int64_t axis = -3; axis < 3; axis++, n++) {
                job j;
                job_hardmax(&j, test_float_types[t], 3, small, opset, axis);
                job_offsets(&j, 1 + 2 * (n % 5), 1 + 2 * (n % 4));
                job_fill(&j, n % 2 ? FILL_FEW : IN_SPECIAL_ROWS, 300 + (uint64_t)n);
                run_job(&e, ctx, host, &j, NULL);
                job_free(&j);
            }
        }
    /* long rows: opset 13 along the last axis; opsets 1 and 11 coerce [2, 500 * 401] */
    const int64_t longrow[2] = {2, 200001}, coerced[3] = {2, 500, 401};
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++) {
        job j;
        job_hardmax(&j, test_float_types[t], 2, longrow, 13, -1);
        job_offsets(&j, 3, 9);
        job_fill(&j, t % 2 ? FILL_FEW : FILL_MIXED, 400 + (uint64_t)t);
        run_job(&e, ctx, host, &j, NULL);
        job_free(&j);
        if (test_float_types[t] == CLMAX_TYPE_BFLOAT16) continue;
        job_hardmax(&j, test_float_types[t], 3, coerced, t % 2 ? 1 : 11, 1);
        job_offsets(&j, 9, 3);
        job_fill(&j, FILL_SPECIAL, 500 + (uint64_t)t);
        run_job(&e, ctx, host, &j, NULL);
        job_free(&j);
    }
    /* short rows (CPU devices: 16 rows a work-item, each one written by the reduce kernel), of
     * exactly two 8-lane vectors and of a length that is not a multiple of a vector, with a
     * partial last work-item */
    const int64_t short_rows[2][2] = {{53, 16}, {40, 33}};
    for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++)
        for (int k = 0; k < 2; k++) {
            job j;
            job_hardmax(&j, test_float_types[t], 2, short_rows[k], 13, -1);
            job_offsets(&j, 5, 1 + 2 * k);
            job_fill(&j, k ? FILL_FEW : FILL_MIXED, 600 + (uint64_t)(2 * t + k));
            run_job(&e, ctx, host, &j, NULL);
            job_free(&j);
        }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Shapes that reach every part of the zeros that the reduce kernels write themselves on CPU
 * devices (FUSED_ZERO in kernels/vec.cl): every output byte must be written, nothing outside
 * it (the guard bytes around y), with y at offsets that are never 16-byte aligned. On other
 * devices these are plain Hardmax cases. */
Test(enqueue, hardmax_zeros_in_the_reduce)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const shape3 cases[] = {
        {2, {3, 70001}, 1},    /* long rows, split into segments */
        {2, {5, 100}, 1},      /* rows of 100: words left after the vector loop */
        {3, {3, 37, 64}, 1},   /* whole lane rows of 64: 16-bit types read two streams */
        {3, {2, 9, 40}, 1},    /* lanes past the last full vector */
        {2, {5000, 3}, 0},     /* lanes shorter than a vector, the axis split */
        {2, {6, 5000}, 0},     /* a lane block and a shorter one */
        {3, {2, 2051, 16}, 1}, /* split whole-row lanes */
        {2, {150, 4100}, 0}    /* rows of 8200 bytes or more: wide tiles, the axis split */
    };
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int t = 0; t < TEST_NUM_FLOAT_TYPES; t++, n++) {
            job j;
            job_hardmax(&j, test_float_types[t], cases[c].rank, cases[c].dims, 13, cases[c].axis);
            job_offsets(&j, 1 + 2 * (n % 3), 1 + 2 * (n % 5));
            job_fill(&j, n % 2 ? FILL_FEW : FILL_MIXED, 800 + (uint64_t)n);
            run_job(&e, ctx, NULL, &j, NULL);
            job_free(&j);
        }
    clmax_context_destroy(ctx);
    env_close(&e);
}
