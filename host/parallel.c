/* A small parallel-for on pthreads, for host-side work outside the backends (Hardmax's fill). */
#include "internal.h"

#include <pthread.h>

#define MAX_FOR_THREADS 64

typedef struct range_task {
    clmax_range_fn fn;
    void *arg;
    uint64_t begin, end;
} range_task;

static void *run_range(void *p)
{
    range_task *t = p;
    t->fn(t->arg, t->begin, t->end);
    return NULL;
}

void clmax_parallel_for(int threads, uint64_t count, uint64_t min_per_thread, clmax_range_fn fn,
                        void *arg)
{
    if (min_per_thread == 0) min_per_thread = 1;
    uint64_t most = count / min_per_thread;
    if (threads > MAX_FOR_THREADS) threads = MAX_FOR_THREADS;
    if ((uint64_t)threads > most) threads = most > 0 ? (int)most : 1;
    if (threads <= 1) {
        fn(arg, 0, count);
        return;
    }
    range_task tasks[MAX_FOR_THREADS];
    pthread_t tids[MAX_FOR_THREADS];
    int started[MAX_FOR_THREADS] = {0};
    for (int t = 0; t < threads; t++) {
        tasks[t] = (range_task){fn, arg, count * (uint64_t)t / (uint64_t)threads,
                                count * (uint64_t)(t + 1) / (uint64_t)threads};
        if (t > 0) started[t] = pthread_create(&tids[t], NULL, run_range, &tasks[t]) == 0;
    }
    run_range(&tasks[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            run_range(&tasks[t]); /* no thread: this one does it */
    }
}
