/*
 * Contexts made from the caller's OpenCL objects and the objects of clmax's own: references taken
 * and given back, work pending when the clmax context is destroyed, prebuild, and get_cl.
 */
#include "enqueue_common.h"

#include <string.h>
#include <unistd.h>

/* ---- Ownership of the caller's objects ------------------------------------------------------ */

/* Whether the reference counts come back to ctx_refs and q_refs within two seconds (OpenCL
 * implementations may free finished commands, which hold references, a little later). */
static int refs_settle(const clenv *e, cl_uint ctx_refs, cl_uint q_refs)
{
    for (int i = 0; i < 200; i++) {
        if (context_refs(e->context) == ctx_refs && queue_refs(e->queue) == q_refs) return 1;
        usleep(10000);
    }
    return 0;
}

Test(enqueue, user_objects_survive_destroy)
{
    clenv e;
    env_open(&e, 1);
    /* our references alone; buffers and events (ours and clmax's) hold more for a while */
    const cl_uint ctx_refs0 = context_refs(e.context), q_refs0 = queue_refs(e.queue);
    const int64_t dims[2] = {2, 150000};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    job_offsets(&j, 3, 3);
    job_fill(&j, FILL_MIXED, 1100);
    j.preload = 1;
    JOB_OK(job_buffers(&e, &j, 0, NULL));
    const cl_uint ctx_refs1 = context_refs(e.context), q_refs1 = queue_refs(e.queue);

    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cr_assert_gt(context_refs(e.context), ctx_refs1, "clmax did not retain the context");
    cr_assert_gt(queue_refs(e.queue), q_refs1, "clmax did not retain the queue");
    const cl_uint ctx_refs2 = context_refs(e.context), q_refs2 = queue_refs(e.queue);
    cl_context gc = NULL;
    cl_device_id gd = NULL;
    cl_command_queue gq = NULL;
    ST_OK(clmax_context_get_cl(ctx, &gc, &gd, &gq), "clmax_context_get_cl");
    cr_assert_eq(gc, e.context);
    cr_assert_eq(gd, e.device);
    cr_assert_eq(gq, e.queue);
    cr_assert_eq(context_refs(e.context), ctx_refs2, "get_cl retained the context");
    cr_assert_eq(queue_refs(e.queue), q_refs2, "get_cl retained the queue");

    /* enqueue behind a gate, then destroy the clmax context while the work is still pending */
    cl_int err;
    cl_event gate = clCreateUserEvent(e.context, &err);
    CL_OK(err, "clCreateUserEvent");
    if (job_enqueue(ctx, &j, NULL, 1, &gate) != CLMAX_OK) cr_assert_fail("%s", j.err);
    cl_command_queue eq = NULL;
    cl_context ec = NULL;
    CL_OK(clGetEventInfo(j.done, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL), "clGetEventInfo");
    CL_OK(clGetEventInfo(j.done, CL_EVENT_CONTEXT, sizeof ec, &ec, NULL), "clGetEventInfo");
    cr_assert_eq(eq, e.queue, "clmax's event is not on the caller's queue");
    cr_assert_eq(ec, e.context);
    cr_assert(event_status(j.done) > CL_COMPLETE);
    clmax_context_destroy(ctx);

    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
    JOB_OK(job_read(&e, &j));
    JOB_OK(job_wait(&j));
    JOB_OK(job_check(&j));
    CL_OK(clFinish(e.queue), "clFinish");
    clReleaseEvent(gate);
    job_free(&j); /* our buffers and events */
    cr_assert(refs_settle(&e, ctx_refs0, q_refs0),
              "references: context %u before, %u after; queue %u before, %u after", ctx_refs0,
              context_refs(e.context), q_refs0, queue_refs(e.queue));

    /* the objects still work, for OpenCL and for a new clmax context on them */
    ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    job_argmax(&j, CLMAX_TYPE_FLOAT16, 2, dims, 13, 1, 0, 1);
    job_offsets(&j, 9, 1);
    job_fill(&j, FILL_FEW, 1101);
    run_job(&e, ctx, NULL, &j, NULL);
    job_free(&j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- Prebuild, get_cl on an owned context --------------------------------------------------- */

/* A prebuild's progress: how often it was called, the last done and total, and the compiled. */
typedef struct progress_seen {
    size_t calls, done, total, compiled;
} progress_seen;

static void count_progress(void *user, size_t done, size_t total, int compiled)
{
    progress_seen *p = user;
    cr_expect_eq(done, p->done + 1, "progress went from %zu to %zu", p->done, done);
    p->calls++, p->done = done, p->total = total, p->compiled += compiled != 0;
}

Test(enqueue, prebuild_then_first_op)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_BFLOAT16};
    clmax_prebuild_options po;
    clmax_prebuild_options_init(&po);
    po.types = types;
    po.ntypes = 2;
    progress_seen seen = {0};
    po.progress = count_progress;
    po.user = &seen;
    clmax_prebuild_report r;
    ST_OK(clmax_context_prebuild(ctx, &po, &r), "clmax_context_prebuild");
    /* Two float types: ArgMax and ArgMin with either index type (which share them), 2 tie rules,
     * and Hardmax; 6 kernel families (programs) each. */
    cr_expect_eq(r.programs, 36, "%zu programs", r.programs);
    cr_expect_eq(r.compiled + r.from_cache + r.in_context, r.programs);
    cr_expect(seen.calls == 36 && seen.done == 36 && seen.total == 36 &&
                  seen.compiled == r.compiled,
              "progress: %zu calls, %zu of %zu, %zu compiled", seen.calls, seen.done, seen.total,
              seen.compiled);
    po.progress = NULL;
    ST_OK(clmax_context_prebuild(ctx, &po, &r), "clmax_context_prebuild (again)");
    cr_expect(r.programs == 36 && r.in_context == 36, "again: %zu of %zu in the context",
              r.in_context, r.programs);
    po.operators = CLMAX_PREBUILD_HARDMAX;
    ST_OK(clmax_context_prebuild(ctx, &po, &r), "clmax_context_prebuild (Hardmax)");
    cr_expect_eq(r.programs, 12);
    EXPECT_ST(clmax_context_prebuild(NULL, &po, &r), CLMAX_ERROR_INVALID_ARGUMENT);
    po.operators = 8;
    EXPECT_ST(clmax_context_prebuild(ctx, &po, &r), CLMAX_ERROR_INVALID_ARGUMENT);
    po.operators = 0;
    po.types = NULL;
    EXPECT_ST(clmax_context_prebuild(ctx, &po, &r), CLMAX_ERROR_INVALID_ARGUMENT);
    const clmax_type bad = (clmax_type)99;
    po.types = &bad;
    po.ntypes = 1;
    EXPECT_ST(clmax_context_prebuild(ctx, &po, &r), CLMAX_ERROR_UNSUPPORTED_TYPE);
    const int64_t dims[3] = {2, 3, 4001};
    job j;
    job_argmax(&j, CLMAX_TYPE_BFLOAT16, 3, dims, 13, -1, 0, 1);
    j.itype = CLMAX_INDEX_INT32;
    job_offsets(&j, 3, 9);
    job_fill(&j, FILL_SPECIAL, 1200);
    run_job(&e, ctx, NULL, &j, NULL);
    job_free(&j);
    job_hardmax(&j, CLMAX_TYPE_FLOAT32, 3, dims, 13, 1);
    job_offsets(&j, 9, 3);
    job_fill(&j, IN_SPECIAL_ROWS, 1201);
    run_job(&e, ctx, NULL, &j, NULL);
    job_free(&j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* The objects of a context clmax made itself serve the enqueue API too. */
Test(enqueue, get_cl_of_owned_context)
{
    need_device();
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_OPENCL, NULL);
    clenv e;
    memset(&e, 0, sizeof e);
    ST_OK(clmax_context_get_cl(ctx, &e.context, &e.device, &e.queue), "clmax_context_get_cl");
    cr_assert_not_null(e.context);
    cr_assert_not_null(e.device);
    cr_assert_not_null(e.queue);
    cl_device_id qd = NULL;
    CL_OK(clGetCommandQueueInfo(e.queue, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL), "queue device");
    cr_assert_eq(qd, e.device);
    cl_device_id only = NULL;
    ST_OK(clmax_context_get_cl(ctx, NULL, &only, NULL), "clmax_context_get_cl (device only)");
    cr_assert_eq(only, e.device);
    const int64_t dims[2] = {5, 90001};
    job j;
    job_argmax(&j, CLMAX_TYPE_UINT64, 2, dims, 12, 1, 1, 1);
    job_offsets(&j, 9, 1);
    job_fill(&j, FILL_BITS, 1300);
    run_job(&e, ctx, NULL, &j, NULL);
    job_free(&j);
    clmax_context_destroy(ctx); /* e's objects were never retained for us */
}
