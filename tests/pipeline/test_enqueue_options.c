/*
 * The enqueue options: int32 indices (and their overflow refusal) and the caller's scratch buffer
 * (exactly the size asked for, shared by operations, one byte short, ignored when not needed).
 */
#include "enqueue_common.h"

/* ---- int32 indices -------------------------------------------------------------------------- */

/* The overflow refusal comes before any buffer range check, so descriptors of more than 2^31
 * elements along the axis can be tried on buffers of a few bytes. */
Test(enqueue, int32_index_overflow)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cl_int err;
    cl_mem x = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    cl_mem y = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    clmax_enqueue_options i32, i64;
    clmax_enqueue_options_init(&i32);
    clmax_enqueue_options_init(&i64);
    i32.index_type = CLMAX_INDEX_INT32;
    cr_assert_eq(i64.index_type, CLMAX_INDEX_INT64);
    cr_assert_null(i64.scratch);
    const int64_t two31 = (int64_t)1 << 31;

    const int64_t over[2] = {1, two31 + 1}, exact[2] = {1, two31}, wide[2] = {3, two31 * 2};
    const int64_t over0[2] = {two31 + 5, 1};
    clmax_tensor_desc d_over = test_desc(CLMAX_TYPE_FLOAT32, 2, over);
    clmax_tensor_desc d_exact = test_desc(CLMAX_TYPE_FLOAT32, 2, exact);
    clmax_tensor_desc d_wide = test_desc(CLMAX_TYPE_UINT8, 2, wide);
    clmax_tensor_desc d_over0 = test_desc(CLMAX_TYPE_INT8, 2, over0);
    clmax_argmax_attrs a1, a0;
    clmax_argmax_attrs_init(&a1, 13);
    a1.axis = 1;
    clmax_argmax_attrs_init(&a0, 11);
    cl_event ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over, x, 0, &a1, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_wide, x, 0, &a1, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over0, x, 0, &a0, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    a1.keepdims = 0;
    a1.select_last_index = 1;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over, x, 0, &a1, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    /* 2^31 elements: the last index 2^31 - 1 fits, so this reaches (and fails) the range check */
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_exact, x, 0, &a1, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    /* int64 indices never overflow: the same descriptor fails the range check instead */
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over, x, 0, &a1, y, 0, &i64, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_over, x, 0, &a1, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    /* Hardmax has no indices */
    EXPECT_ST(clmax_enqueue_hardmax(ctx, &d_over, x, 0, NULL, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    /* nothing to write, nothing to overflow */
    const int64_t empty[2] = {0, two31 * 4};
    clmax_tensor_desc d_empty = test_desc(CLMAX_TYPE_FLOAT32, 2, empty);
    ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &d_empty, x, 0, &a1, y, 0, &i32, 0, NULL, &ev), CLMAX_OK);
    cr_assert_not_null(ev);
    CL_OK(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- Caller scratch ------------------------------------------------------------------------- */

Test(enqueue, caller_scratch)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_SPLIT);
    const int64_t dims[2] = {3, 120001};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    job_offsets(&j, 3, 3);
    job_fill(&j, FILL_FEW, 900);
    size_t need = 0;
    ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "clmax_argmax_scratch_size");
    cr_assert_gt(need, 0);
    size_t need_h = 0;
    clmax_hardmax_attrs ha = {13, 1};
    ST_OK(clmax_hardmax_scratch_size(ctx, &j.desc, &ha, &need_h), "clmax_hardmax_scratch_size");
    cr_assert_gt(need_h, 0);

    cl_int err;
    size_t big = need > need_h ? need : need_h;
    cl_mem scratch = clCreateBuffer(e.context, CL_MEM_READ_WRITE, big, NULL, &err);
    CL_OK(err, "clCreateBuffer(scratch)");
    clmax_enqueue_options o;
    clmax_enqueue_options_init(&o);
    o.scratch = scratch;
    o.scratch_size = need;

    /* exactly the size asked for */
    run_job(&e, ctx, NULL, &j, &o);
    job_free(&j);

    /* two operations on one scratch, back to back on the in-order queue; then one byte short */
    job j2[2];
    for (int k = 0; k < 2; k++) {
        job_argmax(&j2[k], CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, k);
        job_offsets(&j2[k], 1 + 2 * k, 9);
        job_fill(&j2[k], k ? FILL_MIXED : IN_SPECIAL_ROWS, 910 + (uint64_t)k);
        JOB_OK(job_buffers(&e, &j2[k], 0, NULL));
        if (job_enqueue(ctx, &j2[k], &o, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j2[k].err);
        JOB_OK(job_read(&e, &j2[k]));
    }
    for (int k = 0; k < 2; k++) {
        JOB_OK(job_wait(&j2[k]));
        JOB_OK(job_check(&j2[k]));
    }
    o.scratch_size = need - 1;
    cl_event ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &j2[0].desc, j2[0].xa.mem, j2[0].x_off, &j2[0].aa,
                                   j2[0].ya.mem, j2[0].y_off, &o, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    o.scratch_size = need_h - 1;
    EXPECT_ST(clmax_enqueue_hardmax(ctx, &j2[0].desc, j2[0].xa.mem, j2[0].x_off, &ha, j2[1].xa.mem,
                                    0, &o, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    CL_OK(clFinish(e.queue), "clFinish");
    /* the refused call wrote nothing: the earlier answer and the guards are still there */
    CL_OK(clEnqueueReadBuffer(e.queue, j2[0].ya.mem, CL_TRUE, 0, j2[0].ya.size, j2[0].got_y, 0,
                              NULL, NULL),
          "clEnqueueReadBuffer");
    JOB_OK(job_check(&j2[0]));
    job_free(&j2[0]);
    job_free(&j2[1]);

    /* Hardmax and int32 ArgMax with caller scratch */
    o.scratch_size = big;
    job_hardmax(&j, CLMAX_TYPE_FLOAT16, 2, dims, 13, 1);
    job_offsets(&j, 9, 1);
    job_fill(&j, FILL_SPECIAL, 920);
    run_job(&e, ctx, NULL, &j, &o);
    job_free(&j);
    job_argmax(&j, CLMAX_TYPE_FLOAT64, 2, dims, 13, 1, 0, 1);
    j.itype = CLMAX_INDEX_INT32;
    job_offsets(&j, 1, 9);
    job_fill(&j, FILL_FEW, 930);
    run_job(&e, ctx, NULL, &j, &o);
    job_free(&j);

    /* a shape that needs none ignores the scratch fields */
    const int64_t one[2] = {3, 1};
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, one, 13, 1, 1, 0);
    size_t none = 1;
    ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &none), "scratch_size");
    cr_assert_eq(none, 0);
    o.scratch_size = 0;
    job_offsets(&j, 1, 1);
    job_fill(&j, FILL_BITS, 940);
    run_job(&e, ctx, NULL, &j, &o);
    job_free(&j);

    /* the query's own argument checks */
    const int64_t d2[2] = {2, 2};
    clmax_tensor_desc dd = test_desc(CLMAX_TYPE_FLOAT32, 2, d2);
    EXPECT_ST(clmax_argmax_scratch_size(ctx, &dd, NULL, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_argmax_scratch_size(NULL, &dd, NULL, &none), CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_hardmax_scratch_size(ctx, &dd, NULL, NULL), CLMAX_ERROR_INVALID_ARGUMENT);
    clmax_argmax_attrs bad;
    clmax_argmax_attrs_init(&bad, 13);
    bad.axis = 5;
    EXPECT_ST(clmax_argmax_scratch_size(ctx, &dd, &bad, &none), CLMAX_ERROR_INVALID_AXIS);
    const int64_t z[2] = {0, 100000};
    dd = test_desc(CLMAX_TYPE_FLOAT32, 2, z);
    none = 1;
    ST_OK(clmax_hardmax_scratch_size(ctx, &dd, NULL, &none), "scratch_size of an empty tensor");
    cr_assert_eq(none, 0);

    clReleaseMemObject(scratch);
    clmax_context_destroy(ctx);
    env_close(&e);
}
