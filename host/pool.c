/* The threads of a context, kept between calls.
 *
 * Starting and joining a thread per call costs several times as much as waking a parked one,
 * about as much as a call that splits 1 MiB of input over two threads saves.
 * Threads start on the first call that needs them and wait on a condition variable between calls;
 * clmax_pool_destroy() (from clmax_context_destroy) stops and joins them.
 *
 * A context may be used by several threads at once: the pool serves one call at a time, and a
 * call that finds it busy starts threads of its own for the call, as does a call in a child
 * process after fork() (the pool's threads are not there) or where a thread cannot be started.
 * Work is never lost: a task with no thread to run it runs on the calling thread. */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define POOL_MAX 256 /* threads of a call, the caller's included; more tasks run on the caller */

typedef struct pool_worker {
    clmax_pool *pool;
    int id;       /* the task index it runs: 1 .. POOL_MAX - 1 */
    uint64_t gen; /* calls made before the one it was started for */
} pool_worker;

struct clmax_pool {
    pthread_mutex_t busy; /* held by the call that uses the pool */
    pthread_mutex_t m;    /* guards the fields below */
    pthread_cond_t wake;  /* a new call (gen moved) or quit */
    pthread_cond_t done;  /* pending reached 0 */
    pid_t pid;            /* the process whose threads these are */
    int started;          /* workers 1..started are running */
    uint64_t gen;         /* calls made so far */
    int tasks;            /* tasks of the current call; workers with id < tasks take part */
    clmax_task_fn fn;
    void *arg;
    int pending; /* workers of the current call not finished yet */
    int quit;
    pthread_t tids[POOL_MAX];
    pool_worker workers[POOL_MAX];
};

static void *worker_main(void *v)
{
    pool_worker *w = v;
    clmax_pool *p = w->pool;
    uint64_t seen = w->gen;
    pthread_mutex_lock(&p->m);
    for (;;) {
        while (p->gen == seen && !p->quit)
            pthread_cond_wait(&p->wake, &p->m);
        if (p->quit) break;
        seen = p->gen;
        if (w->id < p->tasks) {
            clmax_task_fn fn = p->fn;
            void *arg = p->arg;
            pthread_mutex_unlock(&p->m);
            fn(arg, w->id);
            pthread_mutex_lock(&p->m);
            if (--p->pending == 0) pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->m);
    return NULL;
}

clmax_pool *clmax_pool_create(void)
{
    clmax_pool *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    if (pthread_mutex_init(&p->busy, NULL) != 0) goto fail_busy;
    if (pthread_mutex_init(&p->m, NULL) != 0) goto fail_m;
    if (pthread_cond_init(&p->wake, NULL) != 0) goto fail_wake;
    if (pthread_cond_init(&p->done, NULL) != 0) goto fail_done;
    p->pid = getpid();
    return p;
fail_done:
    pthread_cond_destroy(&p->wake);
fail_wake:
    pthread_mutex_destroy(&p->m);
fail_m:
    pthread_mutex_destroy(&p->busy);
fail_busy:
    free(p);
    return NULL;
}

void clmax_pool_destroy(clmax_pool *p)
{
    if (p == NULL) return;
    if (p->pid != getpid()) { /* a forked child: the threads and their state are the parent's */
        free(p);
        return;
    }
    pthread_mutex_lock(&p->m);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->m);
    for (int t = 1; t <= p->started; t++)
        pthread_join(p->tids[t], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->m);
    pthread_mutex_destroy(&p->busy);
    free(p);
}

typedef struct spawn_task {
    clmax_task_fn fn;
    void *arg;
    int id;
} spawn_task;

static void *spawn_main(void *v)
{
    spawn_task *s = v;
    s->fn(s->arg, s->id);
    return NULL;
}

/* Without the pool: a thread per task for this call only (tasks 1 .. POOL_MAX - 1; the calling
 * thread runs task 0, any task past those, and any task whose thread did not start). */
static void run_spawned(int tasks, clmax_task_fn fn, void *arg)
{
    spawn_task st[POOL_MAX];
    pthread_t tids[POOL_MAX];
    int started[POOL_MAX] = {0};
    int threads = tasks < POOL_MAX ? tasks : POOL_MAX;
    for (int t = 1; t < threads; t++) {
        st[t] = (spawn_task){fn, arg, t};
        started[t] = pthread_create(&tids[t], NULL, spawn_main, &st[t]) == 0;
    }
    fn(arg, 0);
    for (int t = threads; t < tasks; t++)
        fn(arg, t);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            fn(arg, t); /* no thread: this one does it */
    }
}

void clmax_pool_run(clmax_pool *p, int tasks, clmax_task_fn fn, void *arg)
{
    if (tasks <= 1) {
        fn(arg, 0);
        return;
    }
    if (p == NULL || p->pid != getpid() || pthread_mutex_trylock(&p->busy) != 0) {
        run_spawned(tasks, fn, arg);
        return;
    }
    pthread_mutex_lock(&p->m);
    /* start the workers this call is the first to need */
    while (p->started < tasks - 1 && p->started < POOL_MAX - 1) {
        int id = p->started + 1;
        p->workers[id] = (pool_worker){p, id, p->gen};
        if (pthread_create(&p->tids[id], NULL, worker_main, &p->workers[id]) != 0) break;
        p->started = id;
    }
    int helpers = p->started < tasks - 1 ? p->started : tasks - 1;
    p->tasks = tasks;
    p->fn = fn;
    p->arg = arg;
    p->pending = helpers;
    p->gen++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->m);

    fn(arg, 0);
    for (int t = helpers + 1; t < tasks; t++)
        fn(arg, t); /* tasks past POOL_MAX - 1 workers, or no worker could be started for */

    pthread_mutex_lock(&p->m);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->m);
    pthread_mutex_unlock(&p->m);
    pthread_mutex_unlock(&p->busy);
}
