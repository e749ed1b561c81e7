/*
 * Several threads on one context, the host API and the enqueue API mixed: on the context clmax
 * made itself, and on the caller's out-of-order queue.
 */
#include "enqueue_common.h"

#include <pthread.h>
#include <string.h>

/* ---- Threads -------------------------------------------------------------------------------- */

#define THREADS 4
#define OPS_PER_THREAD 20

typedef struct worker {
    const clenv *e;
    clmax_context *ctx;
    job jobs[OPS_PER_THREAD];
    const char *err;
} worker;

/* Kinds of operation, in turn: enqueued ArgMax (int64), host ArgMax, enqueued Hardmax, enqueued
 * ArgMax (int32), host Hardmax. */
static int op_kind(int t, int k)
{
    return (t + k) % 5;
}

static void *worker_run(void *arg)
{
    worker *w = arg;
    for (int k = 0; k < OPS_PER_THREAD && w->err == NULL; k++) {
        job *j = &w->jobs[k];
        if (j->host_api) {
            w->err = job_host(w->ctx, j);
            continue;
        }
        w->err = job_buffers(w->e, j, 0, NULL);
        if (w->err == NULL && job_enqueue(w->ctx, j, NULL, 0, NULL) != CLMAX_OK) w->err = j->err;
        if (w->err == NULL) w->err = job_read(w->e, j);
        if (w->err == NULL) w->err = job_wait(j);
        if (w->err == NULL) w->err = job_check(j);
    }
    return NULL;
}

static void threads_body(clmax_context *ctx, const clenv *e)
{
    static const shape3 ts[] = {
        {2, {16, 513}, 1}, {3, {3, 77, 19}, 1}, {2, {2, 40000}, 1}, {3, {5, 9, 200}, 2}};
    static const clmax_type types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_INT8,
                                       CLMAX_TYPE_BFLOAT16, CLMAX_TYPE_FLOAT64};
    static worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t].e = e;
        w[t].ctx = ctx;
        w[t].err = NULL;
        for (int k = 0; k < OPS_PER_THREAD; k++) {
            job *j = &w[t].jobs[k];
            const shape3 *sh = &ts[(t + k) % 4];
            clmax_type type = types[(t * 3 + k) % 5];
            int kind = op_kind(t, k);
            if ((kind == 2 || kind == 4) && type == CLMAX_TYPE_INT8) type = CLMAX_TYPE_FLOAT32;
            if (kind == 2 || kind == 4)
                job_hardmax(j, type, sh->rank, sh->dims, 13, sh->axis);
            else
                job_argmax(j, type, sh->rank, sh->dims, 13, sh->axis, k % 2, (k / 2) % 2);
            if (kind == 3) j->itype = CLMAX_INDEX_INT32;
            job_offsets(j, 1 + 2 * (k % 3), 1 + 2 * (t % 3));
            job_fill(j, (t + k) % 2 ? FILL_FEW : IN_SPECIAL_ROWS, 2000 + (uint64_t)(t * 100 + k));
            j->preload = 1;
            j->host_api = kind == 1 || kind == 4;
        }
    }
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, worker_run, &w[t]), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        cr_assert(w[t].err == NULL, "thread %d: %s", t, w[t].err);
        for (int k = 0; k < OPS_PER_THREAD; k++)
            job_free(&w[t].jobs[k]);
    }
}

/* On the context and in-order queue clmax made itself (host API and enqueue API mixed). */
Test(enqueue, threads_on_owned_context, .timeout = 900)
{
    need_device();
    clmax_context *ctx = test_context_open(CLMAX_BACKEND_OPENCL, NULL);
    clenv e;
    memset(&e, 0, sizeof e);
    ST_OK(clmax_context_get_cl(ctx, &e.context, &e.device, &e.queue), "clmax_context_get_cl");
    threads_body(ctx, &e);
    clmax_context_destroy(ctx);
}

/* On a caller's out-of-order queue: the host API too must order its own commands. */
Test(enqueue, threads_on_out_of_order_queue, .timeout = 900)
{
    clenv e;
    env_open(&e, 1);
    clmax_context *ctx = clmax_open(&e, CLMAX_STRATEGY_AUTO);
    threads_body(ctx, &e);
    clmax_context_destroy(ctx);
    env_close(&e);
}
