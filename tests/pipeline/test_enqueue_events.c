/*
 * Events and wait lists of the enqueue API: chains of operations in flight at once on in-order
 * and out-of-order queues, wait lists longer than clmax's stack array, and empty tensors, which
 * still give an event that follows the wait list.
 */
#include "enqueue_common.h"

#include <stdio.h>
#include <string.h>

/* ---- Events: chains, several operations in flight ------------------------------------------ */

#define CHAIN_JOBS 10

/* Every write waits on a user event (the gate), every clmax call on its write, every read on its
 * clmax event only: nothing can run until the gate opens, so all operations are in flight at once
 * and share the context's cached scratch (which grows on the way). The last pair is a chain of
 * two clmax calls: Hardmax, then ArgMax of its one-hot output, which must equal ArgMax of x. */
static void chain_body(int out_of_order)
{
    clenv e;
    env_open(&e, out_of_order);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cl_int err;
    cl_event gate = clCreateUserEvent(e.context, &err);
    CL_OK(err, "clCreateUserEvent");

    static const shape3 cs[CHAIN_JOBS] = {
        {2, {2, 100000}, 1}, {2, {3, 300000}, 1}, {2, {50, 70}, 1},   {3, {3, 40, 20}, 1},
        {2, {1, 210000}, 1}, {2, {2, 260000}, 1}, {2, {4, 30000}, 1}, {2, {1, 250001}, 0},
        {2, {2, 220000}, 1}, {2, {2, 220000}, 1}};
    static const clmax_type ts[CHAIN_JOBS] = {
        CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT8,     CLMAX_TYPE_FLOAT64,
        CLMAX_TYPE_UINT64,  CLMAX_TYPE_FLOAT32, CLMAX_TYPE_BFLOAT16, CLMAX_TYPE_INT64,
        CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT32};
    job jobs[CHAIN_JOBS];
    for (int k = 0; k < CHAIN_JOBS; k++) {
        job *j = &jobs[k];
        if (k == 5 || k == CHAIN_JOBS - 2)
            job_hardmax(j, ts[k], cs[k].rank, cs[k].dims, 13, cs[k].axis);
        else
            job_argmax(j, ts[k], cs[k].rank, cs[k].dims, 13, cs[k].axis, 1, k % 2);
        if (k % 4 == 3) j->itype = CLMAX_INDEX_INT32;
        job_offsets(j, 1 + 2 * (k % 3), 1 + 2 * (k % 5));
        job_fill(j, k % 2 ? FILL_FEW : FILL_MIXED, 800 + (uint64_t)k);
    }
    /* the last job reads the one-hot output of the one before it (same shape, float32) */
    job *first = &jobs[CHAIN_JOBS - 2], *second = &jobs[CHAIN_JOBS - 1];
    memcpy(second->x, first->want, first->y_bytes);
    cr_assert_eq(ref_argmax(&second->desc, second->x, &second->aa, (int64_t *)second->want),
                 CLMAX_OK);
    second->x_off = first->y_off;
    snprintf(second->what, sizeof second->what, "argmax of the hardmax output (%.200s)",
             first->what);

    for (int k = 0; k < CHAIN_JOBS - 1; k++) {
        JOB_OK(job_buffers(&e, &jobs[k], 1, &gate));
        if (job_enqueue(ctx, &jobs[k], NULL, 0, NULL) != CLMAX_OK)
            cr_assert_fail("%s", jobs[k].err);
        JOB_OK(job_read(&e, &jobs[k]));
    }
    /* the second call of the chain reads first's output buffer in place */
    JOB_OK(arena_make(&e, &second->ya, second->y_off, second->y_bytes, NULL, 1));
    cl_event after_first = first->done;
    second->st =
        clmax_enqueue_argmax(ctx, &second->desc, first->ya.mem, second->x_off, &second->aa,
                             second->ya.mem, second->y_off, NULL, 1, &after_first, &second->done);
    ST_OK(second->st, "clmax_enqueue_argmax on the output of clmax_enqueue_hardmax");
    second->got_y = test_malloc(second->ya.size);
    CL_OK(clEnqueueReadBuffer(e.queue, second->ya.mem, CL_FALSE, 0, second->ya.size, second->got_y,
                              1, &second->done, &second->read_y),
          "clEnqueueReadBuffer");

    /* Nothing may have run: every command depends on the gate. */
    for (int k = 0; k < CHAIN_JOBS; k++) {
        cl_int s = event_status(jobs[k].done);
        cr_assert(s > CL_COMPLETE, "%s: clmax's event is %d before its input was written",
                  jobs[k].what, (int)s);
    }
    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
    for (int k = 0; k < CHAIN_JOBS - 1; k++)
        JOB_OK(job_wait(&jobs[k]));
    CL_OK(clWaitForEvents(1, &second->read_y), "clWaitForEvents");
    for (int k = 0; k < CHAIN_JOBS; k++) {
        cr_assert_eq(event_status(jobs[k].done), CL_COMPLETE);
        JOB_OK(job_check(&jobs[k]));
    }
    CL_OK(clFinish(e.queue), "clFinish");
    for (int k = 0; k < CHAIN_JOBS; k++)
        job_free(&jobs[k]);
    clReleaseEvent(gate);
    clmax_context_destroy(ctx);
    env_close(&e);
}

Test(enqueue, chain_in_order_queue, .timeout = 900)
{
    chain_body(0);
}

Test(enqueue, chain_out_of_order_queue, .timeout = 900)
{
    chain_body(1);
}

/* Wait lists around the length clmax builds on the stack (16, with its scratch event added) and
 * beyond it: the call waits on every event of the list, the last one included. */
Test(enqueue, long_wait_lists)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    static const cl_uint lens[] = {14, 15, 16, 17, 40};
    const int64_t dims[2] = {3, 70000};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        cl_event gates[40];
        cl_int err;
        for (cl_uint g = 0; g < lens[t]; g++) {
            gates[g] = clCreateUserEvent(e.context, &err);
            CL_OK(err, "clCreateUserEvent");
        }
        job j;
        if (t % 2)
            job_hardmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1);
        else
            job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
        job_offsets(&j, 1, 1);
        job_fill(&j, FILL_MIXED, 1300 + (uint64_t)t);
        j.preload = 1;
        JOB_OK(job_buffers(&e, &j, 0, NULL));
        if (job_enqueue(ctx, &j, NULL, lens[t], gates) != CLMAX_OK) cr_assert_fail("%s", j.err);
        JOB_OK(job_read(&e, &j));
        for (cl_uint g = 0; g + 1 < lens[t]; g++)
            CL_OK(clSetUserEventStatus(gates[g], CL_COMPLETE), "clSetUserEventStatus");
        cr_assert(event_status(j.done) > CL_COMPLETE,
                  "%u events: clmax's event completed before the last one", (unsigned)lens[t]);
        CL_OK(clSetUserEventStatus(gates[lens[t] - 1], CL_COMPLETE), "clSetUserEventStatus");
        JOB_OK(job_wait(&j));
        JOB_OK(job_check(&j));
        job_free(&j);
        for (cl_uint g = 0; g < lens[t]; g++)
            clReleaseEvent(gates[g]);
    }
    CL_OK(clFinish(e.queue), "clFinish");
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- Empty tensors -------------------------------------------------------------------------- */

Test(enqueue, empty_tensors_still_give_events)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    cl_int err;
    cl_mem x = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    cl_mem y = clCreateBuffer(e.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    CL_OK(err, "clCreateBuffer");
    const int64_t d05[2] = {0, 5}, d40[2] = {4, 0}, d403[3] = {4, 0, 3};
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    struct {
        int hardmax;
        clmax_tensor_desc d;
        int64_t axis;
    } cases[] = {{0, test_desc(CLMAX_TYPE_FLOAT32, 2, d05), 1},
                 {0, test_desc(CLMAX_TYPE_INT64, 2, d40), 0}, /* n = 4, no outputs */
                 {0, test_desc(CLMAX_TYPE_UINT8, 3, d403), -1},
                 {1, test_desc(CLMAX_TYPE_FLOAT16, 2, d05), 1},
                 {1, test_desc(CLMAX_TYPE_FLOAT64, 3, d403), 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cl_event gate = clCreateUserEvent(e.context, &err);
        CL_OK(err, "clCreateUserEvent");
        cl_event ev = NULL;
        clmax_status st;
        if (cases[c].hardmax) {
            clmax_hardmax_attrs h = {13, cases[c].axis};
            st = clmax_enqueue_hardmax(ctx, &cases[c].d, x, 0, &h, y, 8, NULL, 1, &gate, &ev);
        } else {
            a.axis = cases[c].axis;
            /* the values form too, with no values buffer: nothing is checked or written */
            st = c == 2
                     ? clmax_enqueue_max_with_indices(ctx, &cases[c].d, x, 0, &a, NULL, 0, y, 8,
                                                      NULL, 1, &gate, &ev)
                     : clmax_enqueue_argmax(ctx, &cases[c].d, x, 0, &a, y, 8, NULL, 1, &gate, &ev);
        }
        ST_OK(st, "enqueue of an empty tensor");
        cr_assert_not_null(ev, "case %zu: no event", c);
        cr_assert(event_status(ev) > CL_COMPLETE, "case %zu: complete before its wait list", c);
        CL_OK(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
        CL_OK(clWaitForEvents(1, &ev), "clWaitForEvents");
        cr_assert_eq(event_status(ev), CL_COMPLETE);
        clReleaseEvent(ev);
        clReleaseEvent(gate);
        /* no event asked for */
        if (!cases[c].hardmax)
            ST_OK(clmax_enqueue_argmax(ctx, &cases[c].d, x, 0, &a, y, 0, NULL, 0, NULL, NULL),
                  "enqueue of an empty tensor without an event");
    }
    /* an empty axis with outputs is still an error */
    a.axis = 1;
    cl_event ev = NULL;
    EXPECT_ST(clmax_enqueue_argmax(ctx, &cases[1].d, x, 0, &a, y, 0, NULL, 0, NULL, &ev),
              CLMAX_ERROR_EMPTY_AXIS);
    CL_OK(clFinish(e.queue), "clFinish");
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* ---- A wait list that fails ------------------------------------------------------------------ */

/* The call waits on a user event that then fails (a negative status): clmax's event must end with
 * a negative status too, nothing may be written, and the process must live on. On PoCL 3.1 an
 * operator of two kernels aborted here when clmax released the event between them before the
 * chain was over. A call without an event (clmax releases every event of its own at once) follows
 * the same way, then a call that is not gated must still give the right answer. */
static void failed_wait_body(job *j)
{
    clenv e;
    env_open(&e, 0);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    job_offsets(j, 1, 1);
    job_fill(j, FILL_MIXED, 1500);
    j->preload = 1;
    JOB_OK(job_buffers(&e, j, 0, NULL));
    cl_int err;
    for (int with_event = 1; with_event >= 0; with_event--) {
        cl_event gate = clCreateUserEvent(e.context, &err);
        CL_OK(err, "clCreateUserEvent");
        if (with_event) {
            if (job_enqueue(ctx, j, NULL, 1, &gate) != CLMAX_OK) cr_assert_fail("%s", j->err);
        } else {
            cl_event keep = j->done;
            j->done = NULL;
            if (job_enqueue(ctx, j, NULL, 1, &gate) != CLMAX_OK) cr_assert_fail("%s", j->err);
            j->done = keep;
        }
        CL_OK(clSetUserEventStatus(gate, -5), "clSetUserEventStatus(-5)");
        clReleaseEvent(gate);
        if (with_event) {
            err = clWaitForEvents(1, &j->done);
            cr_assert_eq(err, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                         "%s: clWaitForEvents on clmax's event gave %d", j->what, (int)err);
            cl_int s = event_status(j->done);
            cr_assert(s < 0, "%s: clmax's event ended with status %d after its wait list failed",
                      j->what, (int)s);
        }
        clFinish(e.queue); /* may report the failed commands; the queue itself goes on */
    }
    unsigned char *got = test_malloc(j->ya.size);
    CL_OK(clEnqueueReadBuffer(e.queue, j->ya.mem, CL_TRUE, 0, j->ya.size, got, 0, NULL, NULL),
          "clEnqueueReadBuffer");
    for (size_t i = 0; i < j->ya.size; i++)
        cr_assert_eq(got[i], GUARD_BYTE, "%s: byte %zu of y was written after a failed wait list",
                     j->what, i);
    free(got);
    clReleaseEvent(j->done);
    j->done = NULL;
    if (job_enqueue(ctx, j, NULL, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j->err);
    JOB_OK(job_read(&e, j));
    JOB_OK(job_wait(j));
    JOB_OK(job_check(j));
    job_free(j);
    clmax_context_destroy(ctx);
    env_close(&e);
}

/* the indices, then the values gathered at them */
Test(enqueue, failed_wait_list_max_with_indices, .timeout = 300)
{
    const int64_t dims[2] = {37, 1000};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    j.values = 1;
    failed_wait_body(&j);
}

/* long rows: the split's partial pairs, their combine, then the gather */
Test(enqueue, failed_wait_list_split_with_indices, .timeout = 300)
{
    const int64_t dims[2] = {3, 200003};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    j.values = 1;
    failed_wait_body(&j);
}

/* a strided axis with few lanes: zeros, the wide reduce, the merge */
Test(enqueue, failed_wait_list_strided_hardmax, .timeout = 300)
{
    const int64_t dims[2] = {1000, 3};
    job j;
    job_hardmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 0);
    failed_wait_body(&j);
}

/* a strided axis with many lanes */
Test(enqueue, failed_wait_list_wide_hardmax, .timeout = 300)
{
    const int64_t dims[2] = {200, 5003};
    job j;
    job_hardmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 0);
    failed_wait_body(&j);
}

/* ArgMax of long rows: the split and its combine */
Test(enqueue, failed_wait_list_split_argmax, .timeout = 300)
{
    const int64_t dims[2] = {3, 200003};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    failed_wait_body(&j);
}

/* one kernel */
Test(enqueue, failed_wait_list_argmax, .timeout = 300)
{
    const int64_t dims[2] = {37, 1000};
    job j;
    job_argmax(&j, CLMAX_TYPE_FLOAT32, 2, dims, 13, 1, 1, 0);
    failed_wait_body(&j);
}
