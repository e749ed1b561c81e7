/*
 * What the enqueue API refuses, and that a refused call writes nothing: NULL and misaligned
 * arguments, ranges beyond the buffers, bad wait lists, the operator checks, outputs that overlap
 * the input, and a CPU-path context, which refuses everything OpenCL.
 */
#include "enqueue_common.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- Misuse --------------------------------------------------------------------------------- */

Test(enqueue, misuse)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const int64_t dims[2] = {4, 10};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    job_offsets(&j, 1, 1);
    job_fill(&j, FILL_MIXED, 1000);
    j.preload = 1;
    JOB_OK(job_buffers(&e, &j, 0, NULL));
    const clmax_tensor_desc *d = &j.desc;
    cl_mem x = j.xa.mem, y = j.ya.mem;
    const size_t xo = j.x_off, yo = j.y_off;
    const clmax_argmax_attrs *a = &j.aa;
    clmax_enqueue_options o;
    clmax_enqueue_options_init(&o);
    cl_event ev = NULL;
    const clmax_status BAD = CLMAX_ERROR_INVALID_ARGUMENT;

    EXPECT_ST(clmax_enqueue_argmax(NULL, d, x, xo, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, NULL, x, xo, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, NULL, xo, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, NULL, yo, NULL, 0, NULL, &ev), BAD);
    /* offsets that are not multiples of the element size */
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo + 2, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo + 4, NULL, 0, NULL, &ev), BAD);
    o.index_type = CLMAX_INDEX_INT32;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo + 2, &o, 0, NULL, &ev), BAD);
    o.index_type = (clmax_index_type)7;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, &o, 0, NULL, &ev), BAD);
    /* ranges beyond the buffers (the arenas have GUARD bytes after the tensor) */
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo + GUARD + 4, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo + GUARD + 8, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, j.xa.size + 4, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, SIZE_MAX - 3, a, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, SIZE_MAX - 7, NULL, 0, NULL, &ev), BAD);
    /* wait lists */
    cl_int err;
    cl_event user = clCreateUserEvent(e.context, &err);
    CL_OK(err, "clCreateUserEvent");
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 1, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 0, &user, &ev), BAD);
    /* operator checks, as in the host API */
    clmax_argmax_attrs bad = *a;
    bad.opset = 10;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, &bad, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_UNSUPPORTED_OPSET);
    bad = *a;
    bad.axis = 2;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, &bad, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_AXIS);
    bad = *a;
    bad.opset = 11;
    bad.select_last_index = 1;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, &bad, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_INVALID_ATTRIBUTE);
    clmax_tensor_desc dint = *d;
    dint.type = CLMAX_TYPE_INT32;
    EXPECT_ST(clmax_enqueue_hardmax(ctx, &dint, x, xo, NULL, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_UNSUPPORTED_TYPE);
    clmax_hardmax_attrs hbad = {12, 1};
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, &hbad, y, yo, NULL, 0, NULL, &ev),
              CLMAX_ERROR_UNSUPPORTED_OPSET);
    /* Hardmax writes a tensor of x's size: y's arena is too small for it */
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, NULL, y, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo + 1, NULL, x, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_hardmax(NULL, d, x, xo, NULL, y, yo, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, NULL, y, yo, NULL, 2, NULL, &ev), BAD);

    /* a queue of another context, a NULL object, no ctx pointer */
    cl_context other = clCreateContext(NULL, 1, &e.device, NULL, NULL, &err);
    CL_OK(err, "clCreateContext");
    cl_command_queue oq = clCreateCommandQueue(other, e.device, 0, &err);
    CL_OK(err, "clCreateCommandQueue");
    clmax_context *c2 = (clmax_context *)&j; /* must be reset to NULL */
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, oq, NULL, &c2), BAD);
    cr_assert_null(c2);
    EXPECT_ST(clmax_context_create_from_cl(NULL, e.device, e.queue, NULL, &c2), BAD);
    EXPECT_ST(clmax_context_create_from_cl(e.context, NULL, e.queue, NULL, &c2), BAD);
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, NULL, NULL, &c2), BAD);
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, e.queue, NULL, NULL), BAD);
    clmax_context_options co;
    clmax_context_options_init(&co);
    co.strategy = (clmax_strategy)9;
    EXPECT_ST(clmax_context_create_from_cl(e.context, e.device, e.queue, &co, &c2), BAD);
    cr_assert_null(c2);
    clReleaseCommandQueue(oq);

    /* none of the refused calls wrote anything; a correct call still works afterwards */
    CL_OK(clFinish(e.queue), "clFinish");
    clReleaseEvent(user);
    j.got_y = test_malloc(j.ya.size);
    CL_OK(clEnqueueReadBuffer(e.queue, y, CL_TRUE, 0, j.ya.size, j.got_y, 0, NULL, NULL),
          "clEnqueueReadBuffer");
    for (size_t i = 0; i < j.ya.size; i++)
        cr_assert_eq(j.got_y[i], GUARD_BYTE, "byte %zu of y was written by a refused call", i);
    free(j.got_y);
    j.got_y = NULL;
    if (job_enqueue(ctx, &j, NULL, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j.err);
    JOB_OK(job_read(&e, &j));
    JOB_OK(job_wait(&j));
    JOB_OK(job_check(&j));

    /* An event of another context, or a NULL event, in the wait list: refused before anything
     * is enqueued (OpenCL leaves the first to the implementation; on NVIDIA's driver this test
     * did not finish when it passed one), and the message says which entry. */
    cl_event foreign = clCreateUserEvent(other, &err);
    CL_OK(err, "clCreateUserEvent");
    cl_event done = NULL;
    CL_OK(clEnqueueMarkerWithWaitList(e.queue, 0, NULL, &done), "clEnqueueMarkerWithWaitList");
    cl_event mixed[2] = {done, foreign};
    ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 2, mixed, &ev), BAD);
    cr_assert(strstr(clmax_last_error(), "wait_list[1]") != NULL, "%s", clmax_last_error());
    cr_assert(strstr(clmax_last_error(), "another OpenCL context") != NULL, "%s",
              clmax_last_error());
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, NULL, y, yo, NULL, 1, &foreign, &ev), BAD);
    cl_event with_null[2] = {done, NULL};
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 2, with_null, &ev), BAD);
    cr_assert(strstr(clmax_last_error(), "wait_list[1] is NULL") != NULL, "%s", clmax_last_error());
    cr_assert_null(ev);
    /* the same context's event is taken */
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, y, yo, NULL, 1, &done, &ev), CLMAX_OK);
    CL_OK(clWaitForEvents(1, &ev), "clWaitForEvents");
    clReleaseEvent(ev);
    clReleaseEvent(done);
    CL_OK(clSetUserEventStatus(foreign, CL_COMPLETE), "clSetUserEventStatus");
    clReleaseEvent(foreign);
    clReleaseContext(other);
    job_free(&j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* Expects the last error to mention what. */
#define EXPECT_MSG(what)                                                                           \
    cr_assert(strstr(clmax_last_error(), (what)) != NULL, "the message does not say \"%s\": %s",   \
              (what), clmax_last_error())

/* Reads bytes [off, off + len) of m. */
static void read_back(const clenv *e, cl_mem m, size_t off, size_t len, void *to)
{
    CL_OK(clEnqueueReadBuffer(e->queue, m, CL_TRUE, off, len, to, 0, NULL, NULL),
          "clEnqueueReadBuffer");
}

/* The values forms refuse what clmax_enqueue_argmax refuses, and a values range that is missing,
 * unaligned, outside its buffer, or on x's or the indices' range in the same buffer; every enqueue
 * call refuses an output range on x's range in the same buffer. Nothing refused writes anything.
 * Disjoint ranges of one buffer are taken: the values after the indices, the indices after x. */
Test(enqueue, values_misuse_and_overlaps)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const int64_t dims[2] = {4, 10};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    j.values = 1;
    job_offsets(&j, 1, 1); /* x at 4 (160 bytes), indices at 8 (32), values at 12 (16) */
    job_fill(&j, FILL_MIXED, 1200);
    j.preload = 1;
    JOB_OK(job_buffers(&e, &j, 0, NULL));
    const clmax_tensor_desc *d = &j.desc;
    cl_mem x = j.xa.mem, y = j.ya.mem, v = j.va.mem;
    const size_t xo = j.x_off, yo = j.y_off, vo = j.v_off;
    const clmax_argmax_attrs *a = &j.aa;
    cl_event ev = NULL;
    const clmax_status BAD = CLMAX_ERROR_INVALID_ARGUMENT;

    EXPECT_ST(clmax_enqueue_max_with_indices(NULL, d, x, xo, a, v, vo, y, yo, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_ST(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, NULL, vo, y, yo, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_MSG("values is NULL");
    EXPECT_ST(clmax_enqueue_min_with_indices(ctx, d, x, xo, a, NULL, vo, y, yo, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_ST(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, v, vo, NULL, yo, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_ST(
        clmax_enqueue_max_with_indices(ctx, d, x, xo, a, v, vo + 2, y, yo, NULL, 0, NULL, &ev),
        BAD);
    EXPECT_MSG("values offset");
    EXPECT_ST(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, v, vo + GUARD + 4, y, yo, NULL, 0,
                                             NULL, &ev),
              BAD);
    EXPECT_MSG("values holds");
    /* the values on the indices (y's arena has room for both ranges), the values on x */
    EXPECT_ST(
        clmax_enqueue_max_with_indices(ctx, d, x, xo, a, y, yo + 16, y, yo, NULL, 0, NULL, &ev),
        BAD);
    EXPECT_MSG("overlap");
    EXPECT_ST(
        clmax_enqueue_min_with_indices(ctx, d, x, xo, a, x, xo + 8, y, yo, NULL, 0, NULL, &ev),
        BAD);
    EXPECT_MSG("overlap");
    /* an output on x: the indices, Hardmax's one-hot */
    EXPECT_ST(clmax_enqueue_argmax(ctx, d, x, xo, a, x, 8, NULL, 0, NULL, &ev), BAD);
    EXPECT_MSG("overlap");
    EXPECT_ST(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, v, vo, x, 8, NULL, 0, NULL, &ev),
              BAD);
    EXPECT_ST(clmax_enqueue_hardmax(ctx, d, x, xo, NULL, x, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_MSG("overlap");
    cr_assert_null(ev);

    /* nothing written; then the correct call */
    unsigned char *got = test_malloc(j.xa.size);
    read_back(&e, x, 0, j.xa.size, got);
    cr_assert(memcmp(got, j.xa.image, j.xa.size) == 0, "x was written by a refused call");
    read_back(&e, y, 0, j.ya.size, got);
    for (size_t i = 0; i < j.ya.size; i++)
        cr_assert_eq(got[i], GUARD_BYTE, "byte %zu of y was written by a refused call", i);
    read_back(&e, v, 0, j.va.size, got);
    for (size_t i = 0; i < j.va.size; i++)
        cr_assert_eq(got[i], GUARD_BYTE, "byte %zu of values was written by a refused call", i);
    if (job_enqueue(ctx, &j, NULL, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j.err);
    JOB_OK(job_read(&e, &j));
    JOB_OK(job_wait(&j));
    JOB_OK(job_check(&j));

    /* one buffer: indices at 8, values right after them */
    cl_int err;
    cl_mem both =
        clCreateBuffer(e.context, CL_MEM_READ_WRITE, 8 + j.y_bytes + j.v_bytes, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    ST_OK(clmax_enqueue_max_with_indices(ctx, d, x, xo, a, both, 8 + j.y_bytes, both, 8, NULL, 0,
                                         NULL, NULL),
          "values after the indices in one buffer");
    read_back(&e, both, 8, j.y_bytes, got);
    cr_assert(memcmp(got, j.want, j.y_bytes) == 0, "indices before the values in one buffer");
    read_back(&e, both, 8 + j.y_bytes, j.v_bytes, got);
    cr_assert(memcmp(got, j.want_v, j.v_bytes) == 0, "values after the indices in one buffer");
    clReleaseMemObject(both);
    /* the indices in x's buffer, after x (x's arena: 4 + 160 + GUARD bytes) */
    size_t after = (xo + j.x_bytes + 7) / 8 * 8;
    cr_assert_leq(after + j.y_bytes, j.xa.size, "test bug: no room after x");
    ST_OK(clmax_enqueue_argmax(ctx, d, x, xo, a, x, after, NULL, 0, NULL, NULL),
          "indices after x in one buffer");
    read_back(&e, x, after, j.y_bytes, got);
    cr_assert(memcmp(got, j.want, j.y_bytes) == 0, "indices after x in one buffer");
    free(got);
    job_free(&j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* A CPU-path context refuses everything OpenCL; needs no device, so it runs everywhere. */
Test(enqueue, cpu_context_refuses)
{
    clmax_context *cpu = cpu_open();
    const int64_t dims[2] = {2, 3};
    clmax_tensor_desc d = test_desc(CLMAX_TYPE_FLOAT32, 2, dims);
    cl_event ev = NULL;
    size_t bytes = 1;
    cl_context c = (cl_context)&bytes;
    const clmax_status BAD = CLMAX_ERROR_INVALID_ARGUMENT;
    EXPECT_ST(clmax_enqueue_argmax(cpu, &d, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_hardmax(cpu, &d, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, &ev), BAD);
    EXPECT_ST(clmax_enqueue_max_with_indices(cpu, &d, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, 0,
                                             NULL, &ev),
              BAD);
    EXPECT_ST(clmax_enqueue_min_with_indices(cpu, &d, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, 0,
                                             NULL, &ev),
              BAD);
    cr_assert_null(ev);
    EXPECT_ST(clmax_argmax_scratch_size(cpu, &d, NULL, &bytes), BAD);
    EXPECT_ST(clmax_hardmax_scratch_size(cpu, &d, NULL, &bytes), BAD);
    EXPECT_ST(clmax_context_get_cl(cpu, &c, NULL, NULL), BAD);
    EXPECT_ST(clmax_context_get_cl(NULL, &c, NULL, NULL), BAD);
    clmax_prebuild_report pr;
    memset(&pr, 0x5A, sizeof pr);
    EXPECT_ST(clmax_context_prebuild(cpu, NULL, &pr), CLMAX_OK); /* nothing to build */
    cr_expect(pr.programs == 0 && pr.compiled == 0 && pr.from_cache == 0 && pr.in_context == 0);
    clmax_context *none = NULL;
    EXPECT_ST(clmax_context_create_from_cl(NULL, NULL, NULL, NULL, &none), BAD);
    cr_assert_null(none);
    clmax_enqueue_options o;
    memset(&o, 0x5A, sizeof o);
    clmax_enqueue_options_init(&o);
    cr_assert_eq(o.index_type, CLMAX_INDEX_INT64);
    cr_assert_null(o.scratch);
    cr_assert_eq(o.scratch_size, 0);
    clmax_enqueue_options_init(NULL);
    clmax_context_destroy(cpu);
}

/* ---- Buffers of another context ------------------------------------------------------------- */

/* Whether arena a of env e still holds its image: nothing was written to it. */
static void expect_untouched(const clenv *e, const arena *a, const char *what)
{
    unsigned char *got = test_malloc(a->size);
    read_back(e, a->mem, 0, a->size, got);
    cr_assert(memcmp(got, a->image, a->size) == 0, "%s was written by a refused call", what);
    free(got);
}

/* A buffer of a second cl_context on the same device, passed as each buffer argument in turn (x,
 * y, values, scratch) of ArgMax, MaxWithIndices and Hardmax: refused before anything is enqueued,
 * the message naming the argument, and no buffer written, the caller's outputs included. */
Test(enqueue, buffers_of_another_context)
{
    clenv e, oe;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cl_int err;
    oe = e;
    oe.context = clCreateContext(NULL, 1, &e.device, NULL, NULL, &err);
    CL_OK(err, "clCreateContext");
    oe.queue = clCreateCommandQueue(oe.context, e.device, 0, &err);
    CL_OK(err, "clCreateCommandQueue");

    const int64_t dims[2] = {3, 200003}; /* long rows: split where the planner is free, scratch */
    job jobs[3];
    job_argmax(&jobs[0], CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    job_argmax(&jobs[1], CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    jobs[1].values = 1;
    job_hardmax(&jobs[2], CLMAX_TYPE_FLOAT32, 2, dims, 13, 1);
    static const char *const names[4] = {"x", "y", "values", "scratch"};
    for (int k = 0; k < 3; k++) {
        job *j = &jobs[k];
        job_offsets(j, 1, 1);
        job_fill(j, FILL_MIXED, 1600 + (uint64_t)k);
        j->preload = 1;
        JOB_OK(job_buffers(&e, j, 0, NULL));
        size_t scratch_bytes = 0;
        if (j->hardmax)
            ST_OK(clmax_hardmax_scratch_size(ctx, &j->desc, &j->ha, &scratch_bytes),
                  "clmax_hardmax_scratch_size");
        else
            ST_OK(clmax_argmax_scratch_size(ctx, &j->desc, &j->aa, &scratch_bytes),
                  "clmax_argmax_scratch_size");
        /* foreign copies of every buffer: the same sizes and contents, another context */
        arena fx, fy, fv, fs;
        JOB_OK(arena_make(&oe, &fx, j->x_off, j->x_bytes, j->x, 1));
        JOB_OK(arena_make(&oe, &fy, j->y_off, j->y_bytes, NULL, 1));
        JOB_OK(arena_make(&oe, &fv, j->v_off, j->v_bytes ? j->v_bytes : 8, NULL, 1));
        JOB_OK(arena_make(&oe, &fs, 0, scratch_bytes ? scratch_bytes : 8, NULL, 1));
        for (int arg = 0; arg < 4; arg++) {
            if (arg == 2 && !j->values) continue;
            cl_mem x = arg == 0 ? fx.mem : j->xa.mem, y = arg == 1 ? fy.mem : j->ya.mem;
            cl_mem v = arg == 2 ? fv.mem : j->va.mem;
            clmax_enqueue_options o;
            clmax_enqueue_options_init(&o);
            if (arg == 3) {
                o.scratch = fs.mem;
                o.scratch_size = fs.size;
            }
            cl_event ev = NULL;
            clmax_status st =
                j->hardmax ? clmax_enqueue_hardmax(ctx, &j->desc, x, j->x_off, &j->ha, y, j->y_off,
                                                   &o, 0, NULL, &ev)
                : j->values
                    ? clmax_enqueue_max_with_indices(ctx, &j->desc, x, j->x_off, &j->aa, v,
                                                     j->v_off, y, j->y_off, &o, 0, NULL, &ev)
                    : clmax_enqueue_argmax(ctx, &j->desc, x, j->x_off, &j->aa, y, j->y_off, &o, 0,
                                           NULL, &ev);
            cr_assert_eq(st, CLMAX_ERROR_INVALID_ARGUMENT,
                         "%s, %s of another context: status %d (%s): %s", j->what, names[arg],
                         (int)st, clmax_status_string(st), clmax_last_error());
            char want[64];
            snprintf(want, sizeof want, "%s is a buffer of another OpenCL context", names[arg]);
            EXPECT_MSG(want);
            cr_assert_null(ev, "%s: a refused call gave an event", j->what);
        }
        CL_OK(clFinish(e.queue), "clFinish");
        CL_OK(clFinish(oe.queue), "clFinish");
        expect_untouched(&e, &j->xa, "x");
        expect_untouched(&e, &j->ya, "y");
        if (j->values) expect_untouched(&e, &j->va, "values");
        expect_untouched(&oe, &fx, "the foreign x");
        expect_untouched(&oe, &fy, "the foreign y");
        expect_untouched(&oe, &fv, "the foreign values");
        expect_untouched(&oe, &fs, "the foreign scratch");
        arena_free(&fx);
        arena_free(&fy);
        arena_free(&fv);
        arena_free(&fs);
        /* the same call on the clmax context's buffers is taken */
        if (job_enqueue(ctx, j, NULL, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j->err);
        JOB_OK(job_read(&e, j));
        JOB_OK(job_wait(j));
        JOB_OK(job_check(j));
        job_free(j);
    }
    clReleaseCommandQueue(oe.queue);
    clReleaseContext(oe.context);
    clmax_context_destroy(ctx);
    env_close(&e);
}
