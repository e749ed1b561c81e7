/* The context's threads (host/pool.c), through the library's internal interface: every task of a
 * call runs exactly once, whatever the number of tasks (more than the pool runs threads for
 * included), with no pool at all, on a pool kept across calls, and on a pool that two threads use
 * at once (one of them then starts threads of its own). */
#include "common.h"
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define MOST_TASKS 1000

typedef struct tally {
    atomic_int runs[MOST_TASKS];
} tally;

static void count_task(void *arg, int t)
{
    tally *c = arg;
    atomic_fetch_add(&c->runs[t], 1);
}

static void expect_each_once(clmax_pool *pool, int tasks)
{
    tally *c = test_malloc(sizeof *c);
    for (int t = 0; t < MOST_TASKS; t++)
        atomic_init(&c->runs[t], 0);
    clmax_pool_run(pool, tasks, count_task, c);
    for (int t = 0; t < MOST_TASKS; t++) {
        int want = t < tasks ? 1 : 0;
        cr_assert_eq(atomic_load(&c->runs[t]), want, "%d tasks%s: task %d ran %d times", tasks,
                     pool ? "" : " (no pool)", t, atomic_load(&c->runs[t]));
    }
    free(c);
}

static const int task_counts[] = {1, 2, 3, 17, 255, 256, 257, MOST_TASKS, 5, 2};

Test(pool, every_task_once)
{
    clmax_pool *pool = clmax_pool_create();
    cr_assert_not_null(pool);
    for (int round = 0; round < 2; round++) /* the second round finds the threads started */
        for (size_t i = 0; i < sizeof task_counts / sizeof task_counts[0]; i++)
            expect_each_once(pool, task_counts[i]);
    clmax_pool_destroy(pool);
}

Test(pool, no_pool)
{
    for (size_t i = 0; i < sizeof task_counts / sizeof task_counts[0]; i++)
        expect_each_once(NULL, task_counts[i]);
    clmax_pool_destroy(NULL);
}

static void *hammer(void *arg)
{
    clmax_pool *pool = arg;
    for (int k = 0; k < 200; k++)
        expect_each_once(pool, 1 + k % 7);
    return NULL;
}

Test(pool, shared_by_two_threads)
{
    clmax_pool *pool = clmax_pool_create();
    cr_assert_not_null(pool);
    pthread_t other;
    cr_assert_eq(pthread_create(&other, NULL, hammer, pool), 0);
    hammer(pool);
    pthread_join(other, NULL);
    clmax_pool_destroy(pool);
}
