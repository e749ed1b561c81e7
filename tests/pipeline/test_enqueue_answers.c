/*
 * The enqueue API's answers (include/clmax_cl.h) on the caller's OpenCL objects, bit for bit
 * against the scalar reference and the CPU path's host API: ArgMax over types with NaNs, ties and
 * integer extremes at offsets that are not the device's base-address alignment, long rows split
 * across work-groups, opsets and attributes, the values beside the indices, and strided axes with
 * few lanes (the wide problem and narrow_merge) with the caller's scratch.
 */
#include "enqueue_common.h"

Test(enqueue, argmax_types_and_offsets)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    cr_log_info("device base address alignment %zu bytes; offsets are odd multiples of the "
                "element size",
                e.base_align);
    static const int kx[] = {1, 3, 9}, ky[] = {3, 1, 9};
    static const int inputs[] = {IN_SPECIAL_ROWS, FILL_FEW, FILL_BITS, FILL_MIXED};
    int n = 0;
    for (size_t t = 0; t < NUM_SOME_TYPES; t++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, n++) {
            const shape3 *sh = &shapes[s];
            job j;
            job_argmax(&j, some_types[t], sh->rank, sh->dims, 13, sh->axis, n % 2, (n / 2) % 2);
            if (n % 3 == 2) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, kx[n % 3], ky[(n / 3) % 3]);
            if (sh->dims[sh->rank - 1] > 100000 && planner_free()) {
                size_t need = 0;
                ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "scratch_size");
                cr_assert_gt(need, 0, "a long row should be split, so need scratch");
            }
            job_fill(&j, inputs[n % 4], 100 + (uint64_t)n);
            run_job(&e, ctx, host, &j, NULL);
            job_free(&j);
        }
    }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Long rows whose maxima (ties, NaNs) lie in different segments of a split. */
Test(enqueue, long_rows_ties_across_segments)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const int64_t dims[2] = {2, 250000};
    for (int t = 0; t < 3; t++) {
        clmax_type type = t == 0   ? CLMAX_TYPE_FLOAT32
                          : t == 1 ? CLMAX_TYPE_FLOAT16
                                   : CLMAX_TYPE_INT64;
        for (int last = 0; last < 2; last++) {
            for (int pattern = 0; pattern < 2; pattern++) {
                job j;
                job_argmax(&j, type, 2, dims, 13, 1, 1, last);
                job_offsets(&j, 3, 3);
                job_fill(&j, FILL_CONST, 7);
                if (pattern == 1) { /* -inf (minimum) everywhere, top values far apart */
                    ref_view v = {2, 250000, 1};
                    for (uint64_t k = 0; k < 500000; k++)
                        elem_set(type, j.x, k, value_bottom(type));
                    test_rng rng;
                    rng_seed(&rng, 11);
                    const uint64_t row0[] = {60001, 190003, 249999}, row1[] = {3, 190003};
                    for (int k = 0; k < 3; k++)
                        plant(type, j.x, v, 0, 0, row0[k], value_top(type, &rng));
                    for (int k = 0; k < 2; k++)
                        plant(type, j.x, v, 1, 0, row1[k], value_top(type, &rng));
                    int64_t *want = (int64_t *)j.want;
                    cr_assert_eq(ref_argmax(&j.desc, j.x, &j.aa, want), CLMAX_OK);
                    cr_assert_eq(want[0], last ? 249999 : 60001);
                    cr_assert_eq(want[1], last ? 190003 : 3);
                }
                run_job(&e, ctx, NULL, &j, NULL);
                job_free(&j);
            }
        }
    }
    clmax_context_destroy(ctx);
    env_close(&e);
}

Test(enqueue, argmax_opsets_and_attributes)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    const int64_t dims[3] = {4, 6, 5};
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_INT8, CLMAX_TYPE_BFLOAT16};
    int n = 0;
    for (size_t t = 0; t < 3; t++)
        for (int o = 0; o < 4; o++) {
            int opset = test_argmax_opsets[o];
            if (!ref_argmax_takes_type(types[t], opset)) continue;
            for (int64_t axis = -3; axis < 3; axis++)
                for (int keep = 0; keep < 2; keep++)
                    for (int last = 0; last < (opset >= 12 ? 2 : 1); last++, n++) {
                        job j;
                        job_argmax(&j, types[t], 3, dims, opset, axis, keep, last);
                        if (n % 4 == 1) j.itype = CLMAX_INDEX_INT32;
                        job_offsets(&j, 1 + 2 * (n % 5), 1 + 2 * (n % 3));
                        job_fill(&j, n % 2 ? FILL_SMALL : IN_SPECIAL_ROWS, (uint64_t)n);
                        run_job(&e, ctx, host, &j, NULL);
                        job_free(&j);
                    }
        }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* clmax_enqueue_max_with_indices and min_with_indices: the values are the bits of the reference's
 * winners (NaN payloads, -0, integer extremes), in a buffer of their own at an odd offset with
 * guard bytes, beside the indices; every type, every kind of shape above and two with few lanes
 * (the wide problem and narrow_merge before the gather), both tie rules, int32 indices; and the
 * host API on a CPU-path context gives the same values. */
Test(enqueue, values_beside_indices)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    clmax_context *host = cpu_open();
    const size_t nshapes = sizeof shapes / sizeof shapes[0];
    const shape3 few_lanes[] = {{2, {40001, 3}, 0}, {3, {2, 40001, 2}, 1}};
    static const int inputs[] = {IN_SPECIAL_ROWS, FILL_FEW, FILL_BITS, FILL_MIXED};
    int n = 0;
    for (int t = 0; t < TEST_NUM_TYPES; t++)
        for (size_t s = 0; s < nshapes + 2; s++, n++) {
            const shape3 *sh = s < nshapes ? &shapes[s] : &few_lanes[s - nshapes];
            clmax_type type = test_all_types[t];
            job j;
            if (n % 2)
                job_argmin(&j, type, sh->rank, sh->dims, 13, sh->axis, n % 4 == 1, n % 3 == 0);
            else
                job_argmax(&j, type, sh->rank, sh->dims, 13, sh->axis, n % 4 == 0, n % 3 == 0);
            j.values = 1;
            if (n % 3 == 2) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, 1 + 2 * (n % 3), 1 + 2 * (n % 4));
            job_fill(&j, inputs[n % 4], 3000 + (uint64_t)n);
            run_job(&e, ctx, host, &j, NULL);
            job_free(&j);
        }
    clmax_context_destroy(host);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Strided axes with few lanes, which the enqueue path runs as a wide problem and the
 * narrow_merge kernel (host/narrow.c): one slice with rows past the last wide row, slices as one
 * wide problem, slices where g does not divide the axis (no merge then), a wide axis long enough
 * to be split (its winners then follow the partial pairs in scratch); every output mode,
 * both tie rules, ArgMin, unaligned offsets; and with the caller's scratch of exactly the size
 * asked for (the wide winners live there). */
Test(enqueue, few_lanes)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const shape3 cases[] = {{2, {40001, 3}, 0},
                            {3, {3, 32768, 4}, 1},
                            {3, {2, 40001, 2}, 1},
                            {2, {200001, 3}, 0}}; /* the wide axis split: winners after the pairs */
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_UINT8, CLMAX_TYPE_FLOAT16,
                                CLMAX_TYPE_INT64, CLMAX_TYPE_FLOAT64};
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++, n++) {
            const shape3 *sh = &cases[c];
            job j;
            if (n % 3 == 2)
                job_argmin(&j, types[t], sh->rank, sh->dims, 13, sh->axis, n % 2, n % 4 == 0);
            else
                job_argmax(&j, types[t], sh->rank, sh->dims, 13, sh->axis, n % 2, n % 4 == 1);
            if (n % 2) j.itype = CLMAX_INDEX_INT32;
            job_offsets(&j, 1 + 2 * (n % 3), 1 + 2 * (n % 4));
            job_fill(&j,
                     n % 3 == 0   ? FILL_CONST
                     : n % 3 == 1 ? FILL_FEW
                                  : IN_SPECIAL_ROWS,
                     1000 + (uint64_t)n);
            size_t need = 0;
            ST_OK(clmax_argmax_scratch_size(ctx, &j.desc, &j.aa, &need), "scratch_size");
            cl_mem scratch = NULL;
            clmax_enqueue_options o;
            clmax_enqueue_options_init(&o);
            unsigned char guard[64];
            if (need > 0 && n % 2 == 0) {
                /* the caller's scratch, scratch_size exactly as asked, with guard bytes after it
                 * in the same buffer: nothing may be written past scratch_size */
                unsigned char *image = malloc(need + sizeof guard);
                cr_assert_not_null(image);
                memset(image, 0x5A, need + sizeof guard);
                cl_int err;
                scratch = clCreateBuffer(e.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                         need + sizeof guard, image, &err);
                free(image);
                CL_OK(err, "clCreateBuffer(scratch)");
                o.scratch = scratch;
                o.scratch_size = need;
            }
            run_job(&e, ctx, NULL, &j, &o);
            if (scratch) {
                CL_OK(clEnqueueReadBuffer(e.queue, scratch, CL_TRUE, need, sizeof guard, guard, 0,
                                          NULL, NULL),
                      "clEnqueueReadBuffer(scratch guard)");
                for (size_t g = 0; g < sizeof guard; g++)
                    cr_assert_eq(guard[g], 0x5A, "%s: wrote past scratch_size (%zu bytes)", j.what,
                                 need);
                clReleaseMemObject(scratch);
            }
            job_free(&j);

            if (!ref_hardmax_takes_type(types[t], 13)) continue;
            job_hardmax(&j, types[t], sh->rank, sh->dims, 13, sh->axis);
            job_offsets(&j, 3, 1 + 2 * (n % 5));
            job_fill(&j, n % 2 ? FILL_FEW : FILL_MIXED, 1100 + (uint64_t)n);
            run_job(&e, ctx, NULL, &j, NULL);
            job_free(&j);
        }
    clmax_context_destroy(ctx);
    env_close(&e);
}
