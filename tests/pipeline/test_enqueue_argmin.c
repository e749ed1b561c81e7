/*
 * clmax_enqueue_argmin on the caller's OpenCL objects: offsets, int32 indices, split axes, opsets
 * and attributes, against the reference and clmax_argmin on a CPU-path context; its refusals.
 */
#include "enqueue_common.h"

/* clmax_enqueue_argmin at odd offsets, int64 and int32 indices, on contiguous, strided and split
 * axes; the int64 results also against clmax_argmin on a CPU-path context. */
Test(enqueue, argmin_types_and_offsets)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    static const int kx[] = {3, 1, 9}, ky[] = {1, 9, 3};
    static const int inputs[] = {IN_SPECIAL_ROWS, FILL_SMALL, FILL_BITS, FILL_FEW};
    int n = 0;
    for (size_t t = 0; t < NUM_SOME_TYPES; t++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, n++) {
            const shape3 *sh = &shapes[s];
            job j;
            job_argmin(&j, some_types[t], sh->rank, sh->dims, 13, sh->axis, (n + 1) % 2,
                       (n / 2) % 2);
            if (n % 3 == 1) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, kx[n % 3], ky[(n / 3) % 3]);
            if (sh->dims[sh->rank - 1] > 100000 && planner_free()) {
                size_t need = 0;
                ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "scratch_size");
                cr_assert_gt(need, 0, "a long row should be split, so need scratch");
            }
            job_fill(&j, inputs[n % 4], 1500 + (uint64_t)n);
            run_job(&e, ctx, host, &j, NULL);
            job_free(&j);
        }
    }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Long rows split across work-groups (planned and forced), minima and NaNs in different segments,
 * int32 and int64 indices; opsets and attributes on a small tensor; int32 overflow, an empty
 * tensor, and a CPU-path context refused. */
Test(enqueue, argmin_split_int32_and_rules, .timeout = 900)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *planned = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *split = clmax_open(&e, CLMAX_STRATEGY_SPLIT);
    clmax_context *host = cpu_open();
    const int64_t dims[2] = {2, 250000};
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT64,
                                CLMAX_TYPE_UINT8};
    int n = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int last = 0; last < 2; last++, n++) {
            clmax_type type = types[t];
            job j;
            job_argmin(&j, type, 2, dims, 13, 1, 1, last);
            if (n % 2) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, 3, 1);
            job_fill(&j, FILL_CONST, 1600 + (uint64_t)n);
            /* a background above the bottom, with winners far apart in each row */
            ref_view v = {2, 250000, 1};
            test_rng rng;
            rng_seed(&rng, 1610 + (uint64_t)n);
            for (uint64_t k = 0; k < 500000; k++)
                elem_set(type, j.x, k, value_above_bottom(type, &rng));
            const uint64_t row0[] = {60001, 190003, 249999}, row1[] = {3, 190003};
            for (int k = 0; k < 3; k++)
                plant(type, j.x, v, 0, 0, row0[k], value_bottom(type));
            for (int k = 0; k < 2; k++)
                plant(type, j.x, v, 1, 0, row1[k],
                      ref_type_is_integer(type) ? value_bottom(type) : value_top(type, &rng));
            int64_t want[2];
            cr_assert_eq(ref_argmin(&j.desc, j.x, &j.aa, want), CLMAX_OK);
            cr_assert_eq(want[0], last ? 249999 : 60001);
            cr_assert_eq(want[1], last ? 190003 : 3);
            for (int k = 0; k < 2; k++) {
                if (j.itype == CLMAX_INDEX_INT32) {
                    int32_t w32 = (int32_t)want[k];
                    memcpy(j.want + 4 * k, &w32, 4);
                } else {
                    memcpy(j.want + 8 * k, &want[k], 8);
                }
            }
            run_job(&e, n % 4 < 2 ? planned : split, host, &j, NULL);
            job_free(&j);
        }

    /* opsets and attributes */
    const int64_t small[3] = {4, 6, 5};
    for (int o = 0; o < 4; o++) {
        int opset = test_argmax_opsets[o];
        for (int64_t axis = -3; axis < 3; axis += 2)
            for (int last = 0; last < (opset >= 12 ? 2 : 1); last++, n++) {
                job j;
                job_argmin(&j, n % 2 ? CLMAX_TYPE_INT16 : CLMAX_TYPE_FLOAT64, 3, small, opset, axis,
                           n % 2, last);
                if (n % 3 == 0) j.itype = CLMAX_INDEX_INT32;
                job_offsets(&j, 1 + 2 * (n % 5), 1 + 2 * (n % 3));
                job_fill(&j, n % 2 ? FILL_SMALL : IN_SPECIAL_ROWS, 1700 + (uint64_t)n);
                run_job(&e, split, host, &j, NULL);
                job_free(&j);
            }
    }

    /* int32 indices for an axis that does not fit, and an empty tensor still gives an event */
    cl_int err;
    cl_mem x = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    cl_mem y = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    clmax_enqueue_options i32;
    clmax_enqueue_options_init(&i32);
    i32.index_type = CLMAX_INDEX_INT32;
    const int64_t over[2] = {1, ((int64_t)1 << 31) + 1}, empty[2] = {0, 5};
    clmax_tensor_desc d_over = test_desc(CLMAX_TYPE_FLOAT32, 2, over);
    clmax_tensor_desc d_empty = test_desc(CLMAX_TYPE_FLOAT32, 2, empty);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    cl_event ev = NULL;
    EXPECT_ST(clmax_enqueue_argmin(planned, &d_over, x, 0, &a, y, 0, &i32, 0, NULL, &ev),
              CLMAX_ERROR_INDEX_OVERFLOW);
    cr_assert_null(ev);
    EXPECT_ST(clmax_enqueue_argmin(planned, &d_empty, x, 0, &a, y, 8, &i32, 0, NULL, &ev),
              CLMAX_OK);
    cr_assert_not_null(ev);
    CL_OK(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    ev = NULL;
    a.opset = 11;
    a.select_last_index = 1;
    EXPECT_ST(clmax_enqueue_argmin(planned, &d_over, x, 0, &a, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ATTRIBUTE);
    cr_assert(strstr(clmax_last_error(), "ArgMin") != NULL, "%s", clmax_last_error());
    EXPECT_ST(clmax_enqueue_argmin(host, &d_over, x, 0, NULL, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    EXPECT_ST(clmax_enqueue_argmin(NULL, &d_over, x, 0, NULL, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ARGUMENT);
    cr_assert_null(ev);
    CL_OK(clFinish(e.queue), "clFinish");
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clmax_context_destroy(host);
    clmax_context_destroy(split);
    clmax_context_destroy(planned);
    env_close(&e);
}
