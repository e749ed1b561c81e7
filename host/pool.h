/* The context's threads (host/pool.c) and a parallel-for over them (host/parallel.c). */
#ifndef CLMAX_POOL_H
#define CLMAX_POOL_H

#include "clmax.h"

#include <stdint.h>

typedef struct clmax_pool clmax_pool;

/* clmax_pool_run runs fn(arg, t) exactly once for every t in [0, tasks), t = 0 on the calling
 * thread, and returns when all are done; pool may be NULL. */
typedef void (*clmax_task_fn)(void *arg, int t);
clmax_pool *clmax_pool_create(void);
void clmax_pool_destroy(clmax_pool *pool);
void clmax_pool_run(clmax_pool *pool, int tasks, clmax_task_fn fn, void *arg);

/* Runs fn over [0, count) split in contiguous ranges over up to ctx->num_threads threads (the
 * caller's included), each range at least min_per_thread long. */
typedef void (*clmax_range_fn)(void *arg, uint64_t begin, uint64_t end);
void clmax_parallel_for(clmax_context *ctx, uint64_t count, uint64_t min_per_thread,
                        clmax_range_fn fn, void *arg);

#endif
