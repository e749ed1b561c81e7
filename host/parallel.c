/* A small parallel-for on the context's threads, for host-side work outside the backends
 * (Hardmax's fill, the values gather). */
#include "backend.h"
#include "pool.h"

typedef struct range_job {
    clmax_range_fn fn;
    void *arg;
    uint64_t count;
    int threads;
} range_job;

static void run_range(void *v, int t)
{
    const range_job *j = v;
    uint64_t n = (uint64_t)j->threads;
    j->fn(j->arg, j->count * (uint64_t)t / n, j->count * (uint64_t)(t + 1) / n);
}

void clmax_parallel_for(clmax_context *ctx, uint64_t count, uint64_t min_per_thread,
                        clmax_range_fn fn, void *arg)
{
    if (min_per_thread == 0) min_per_thread = 1;
    uint64_t most = count / min_per_thread;
    int threads = ctx->num_threads;
    if ((uint64_t)threads > most) threads = most > 0 ? (int)most : 1;
    if (threads <= 1) {
        fn(arg, 0, count);
        return;
    }
    range_job j = {fn, arg, count, threads};
    clmax_pool_run(ctx->pool, threads, run_range, &j);
}
