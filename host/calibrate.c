/* The cost profile of an auto context's device (cost.h), measured once: from this process's
 * earlier contexts on the same device, else from the store, else by timing both paths on host
 * memory (about 0.1 s, plus the float32 program's build where it is not cached), then kept in
 * both. A device that fails here keeps no profile: every call then goes to the device, whose
 * failure the fallback answers and reports.
 *
 * Measuring runs on a helper thread, so that no call waits for it: calls take the CPU path until
 * the profile is known (a first call is nearly always small, and the CPU path answers small calls
 * first anyway). The helper stops at its next step when its context is destroyed, which joins
 * it, or when the process exits, which waits for it: a driver must not be inside a build while
 * the process's exit handlers unload it. The two paths are timed in turns, the best run of each
 * kept, so that a caller busy on the same cores slows both alike rather than one of them.
 *
 * The buffer is in huge pages where the kernel gives them, as NumPy's large arrays are (in base
 * pages the CPU path read rows a third slower here), and large enough to leave the caches. The
 * CPU path is timed before the device on each turn: a CPU device's worker threads stay busy a
 * while after its kernels, and slowed the CPU path's calls that came right after them by up to a
 * fifth. */
#include "backend.h"
#include "clock.h"
#include "cost.h"
#include "status.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The large problem: rows of 256 KiB, 32 MiB, where both paths read at the memory's pace. Rows
 * of 1024 float32 were tried first: PoCL reads those at 0.99 of the limit and the CPU path at 0.58
 * (docs/PERFORMANCE.md), so that one shape sent every large call to PoCL, and shapes where PoCL
 * is the slower path with it. */
#define CAL_ROW 65536
#define CAL_ROWS 128
#define CAL_SMALL 1000    /* the tiny problem: [1, 1000], a classifier's logits */
#define CAL_RUNS 5        /* runs of each path and problem, after a warm-up */
#define CAL_KEY_VERSION 3 /* changes when what is measured changes */

typedef clmax_status (*reduce_fn)(clmax_context *, const clmax_problem *, const void *, int64_t *);

/* Helpers running, and whether the process is exiting (they stop at their next step then). */
static pthread_mutex_t helpers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t helpers_done = PTHREAD_COND_INITIALIZER;
static int nhelpers;
static atomic_int exiting;
#define EXIT_WAIT_S 60 /* at exit, the longest wait for a helper inside a build */

static int cancelled(clmax_context *ctx)
{
    return atomic_load(&ctx->cost_cancel) || atomic_load(&exiting);
}

/* The best seconds of each of f[0] and f[1] on p, over CAL_RUNS turns after a warm-up. */
static int time_calls(clmax_context *ctx, reduce_fn f[2], const clmax_problem *p, const float *x,
                      int64_t *idx, double best[2])
{
    best[0] = best[1] = 1e30;
    for (int i = -1; i < CAL_RUNS; i++)
        for (int k = 0; k < 2; k++) {
            if (cancelled(ctx)) return 0;
            double t0 = clmax_seconds();
            if (f[k](ctx, p, x, idx) != CLMAX_OK) return 0;
            double t = clmax_seconds() - t0;
            if (i >= 0 && t < best[k]) best[k] = t;
        }
    return 1;
}

static int measure(clmax_context *ctx, clmax_cost_profile *pf)
{
    size_t count = (size_t)CAL_ROWS * CAL_ROW, bytes = count * sizeof(float);
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return 0;
#ifdef MADV_HUGEPAGE
    madvise(mem, bytes, MADV_HUGEPAGE); /* advice: base pages will do */
#endif
    float *x = mem;
    int64_t *idx = malloc(CAL_ROWS * sizeof *idx);
    int ok = idx != NULL;
    uint32_t h = 2463534242u;
    for (size_t i = 0; ok && i < count; i++) { /* finite values, no pattern the loops could skip */
        if ((i & 0xFFFFF) == 0 && cancelled(ctx)) ok = 0; /* a context destroyed at once */
        h ^= h << 13, h ^= h >> 17, h ^= h << 5;
        x[i] = (float)(h >> 8) - 8388608.0f;
    }
    clmax_problem large = {0}, small;
    large.type = CLMAX_TYPE_FLOAT32;
    large.esize = 4;
    large.outer = CAL_ROWS;
    large.n = CAL_ROW;
    large.inner = 1;
    small = large;
    small.outer = 1;
    small.n = CAL_SMALL;
    reduce_fn paths[2] = {clmax_cpu_reduce, ctx->iface->reduce};
    double s[2], l[2];
    ok = ok && time_calls(ctx, paths, &small, x, idx, s) &&
         time_calls(ctx, paths, &large, x, idx, l);
    munmap(mem, bytes);
    free(idx);
    clmax_clear_error(); /* a failure here is the device's next call's to report */
    if (!ok) return 0;
    /* Each line: the tiny call's seconds, and the bytes per second past them on the large one. */
    double moved = (double)bytes + CAL_ROWS * 8.0;
    pf->cpu_call_s = s[0];
    pf->cpu_bps = moved / (l[0] - s[0] > l[0] / 4 ? l[0] - s[0] : l[0] / 4);
    pf->dev_call_s = s[1];
    pf->dev_bps = moved / (l[1] - s[1] > l[1] / 4 ? l[1] - s[1] : l[1] / 4);
    return clmax_cost_profile_valid(pf);
}

/* This process's profiles, per device and setting (the store may be off). */
#define KNOWN_MAX 16
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char key[768];
    clmax_cost_profile pf;
} known[KNOWN_MAX];
static int nknown;

/* The key of ctx's profile: whatever changes either line (the threads, the vectors, the chunk
 * limit, the plan); full: with the device's name, for this process's list. */
static void profile_key(const clmax_context *ctx, char key[256], char full[768])
{
    snprintf(key, 256, "cost=%d;threads=%d;avx512_off=%d;chunk=%llu;strategy=%d;plan=%d",
             CAL_KEY_VERSION, ctx->num_threads, ctx->cpu_avx512_off,
             (unsigned long long)ctx->max_chunk_bytes, (int)ctx->strategy, (int)ctx->plan_as);
    snprintf(full, 768, "%s;%s", ctx->device_name, key);
}

/* The index of full in this process's list, or -1. Under known_lock. */
static int known_slot(const char *full)
{
    for (int i = 0; i < nknown; i++)
        if (strcmp(known[i].key, full) == 0) return i;
    return -1;
}

static void remember(const char *full, const clmax_cost_profile *pf)
{
    pthread_mutex_lock(&known_lock);
    int slot = known_slot(full);
    if (slot < 0) slot = nknown < KNOWN_MAX ? nknown++ : KNOWN_MAX - 1;
    snprintf(known[slot].key, sizeof known[slot].key, "%s", full);
    known[slot].pf = *pf;
    pthread_mutex_unlock(&known_lock);
}

/* ctx's profile read back into ctx->cost, from this process's list or the store: 1, else 0. */
static int read_back(clmax_context *ctx)
{
    char key[256], full[768];
    profile_key(ctx, key, full);
    pthread_mutex_lock(&known_lock);
    int slot = known_slot(full);
    if (slot >= 0) ctx->cost = known[slot].pf;
    pthread_mutex_unlock(&known_lock);
    if (slot >= 0) return 1;
    int found = 0;
    size_t size = 0;
    unsigned char *bytes = ctx->iface->load_fact(ctx, key, &size);
    if (bytes != NULL && size == CLMAX_COST_PROFILE_BYTES) {
        clmax_cost_profile_unpack(bytes, &ctx->cost);
        found = clmax_cost_profile_valid(&ctx->cost);
    }
    free(bytes);
    if (found) remember(full, &ctx->cost);
    return found;
}

static void exit_wait(void)
{
    atomic_store(&exiting, 1);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += EXIT_WAIT_S;
    pthread_mutex_lock(&helpers_lock);
    while (nhelpers > 0)
        if (pthread_cond_timedwait(&helpers_done, &helpers_lock, &until) != 0) break;
    pthread_mutex_unlock(&helpers_lock);
}

/* fork(): a child has none of its parent's helpers and must not wait for them, at its exit or in
 * clmax_context_destroy. Its contexts whose helper was measuring stay on the CPU path: a driver's
 * threads do not survive a fork, so the child must not be sent to the device by the model. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&helpers_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&helpers_lock);
}

static void fork_child(void)
{
    nhelpers = 0;
    pthread_mutex_unlock(&helpers_lock);
}

static void register_process_hooks(void)
{
    atexit(exit_wait);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* The helper: measures ctx's device, then publishes the profile (state 1) or none (-1). */
static void *measure_in_background(void *arg)
{
    clmax_context *ctx = arg;
    clmax_cost_profile pf;
    int state = -1;
    if (measure(ctx, &pf)) {
        char key[256], full[768];
        profile_key(ctx, key, full);
        unsigned char out[CLMAX_COST_PROFILE_BYTES];
        clmax_cost_profile_pack(&pf, out);
        ctx->iface->save_fact(ctx, key, out, sizeof out);
        remember(full, &pf);
        ctx->cost = pf;
        state = 1;
    }
    atomic_store_explicit(&ctx->cost_state, state, memory_order_release);
    pthread_mutex_lock(&helpers_lock);
    if (--nhelpers == 0) pthread_cond_broadcast(&helpers_done);
    pthread_mutex_unlock(&helpers_lock);
    return NULL;
}

/* Starts ctx's helper: state 2, or -1 when no thread could be made. Under ctx->cost_lock. */
static int start_helper(clmax_context *ctx)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_process_hooks);
    if (atomic_load(&exiting)) return -1;
    pthread_mutex_lock(&helpers_lock);
    nhelpers++;
    pthread_mutex_unlock(&helpers_lock);
    /* Published before the helper runs: the helper may store its answer at once. The pid
     * before the state, which callers read it after. */
    ctx->cost_pid = getpid();
    atomic_store_explicit(&ctx->cost_state, 2, memory_order_release);
    if (pthread_create(&ctx->cost_thread, NULL, measure_in_background, ctx) == 0) {
        ctx->cost_helper = 1;
        return 2;
    }
    pthread_mutex_lock(&helpers_lock);
    if (--nhelpers == 0) pthread_cond_broadcast(&helpers_done);
    pthread_mutex_unlock(&helpers_lock);
    return -1;
}

const clmax_cost_profile *clmax_cost_profile_of(clmax_context *ctx, int *measuring)
{
    /* Every host-pointer call of an auto context asks: once the answer is known, no lock. */
    int state = atomic_load_explicit(&ctx->cost_state, memory_order_acquire);
    if (state == 0) {
        pthread_mutex_lock(&ctx->cost_lock);
        state = atomic_load_explicit(&ctx->cost_state, memory_order_acquire);
        if (state == 0) {
            if (ctx->iface->load_fact == NULL)
                state = -1;
            else if (read_back(ctx))
                state = 1;
            else
                state = start_helper(ctx);
            if (state != 2) atomic_store_explicit(&ctx->cost_state, state, memory_order_release);
        }
        pthread_mutex_unlock(&ctx->cost_lock);
    }
    *measuring = state == 2;
    return state == 1 ? &ctx->cost : NULL;
}

/* Joins ctx's helper, if it has one: stopped at its next step (cancel), or to its end. */
static void join_helper(clmax_context *ctx, int cancel)
{
    pthread_mutex_lock(&ctx->cost_lock);
    int helper = ctx->cost_helper && ctx->cost_pid == getpid(); /* a forked child has none */
    ctx->cost_helper = 0;
    pthread_mutex_unlock(&ctx->cost_lock);
    if (!helper) return;
    if (cancel) atomic_store(&ctx->cost_cancel, 1);
    pthread_join(ctx->cost_thread, NULL);
}

void clmax_cost_helper_stop(clmax_context *ctx)
{
    join_helper(ctx, 1);
}

void clmax_cost_measure_now(clmax_context *ctx)
{
    if (!clmax_auto_with_device(ctx) || ctx->auto_path != CLMAX_AUTO_PATH_MODEL) return;
    int measuring;
    clmax_cost_profile_of(ctx, &measuring);
    if (!measuring) return;
    join_helper(ctx, 0);
    /* Another thread joined it first: wait for its answer (not in a forked child, where the
     * helper is not running). */
    struct timespec pause = {0, 10 * 1000 * 1000};
    while (atomic_load_explicit(&ctx->cost_state, memory_order_acquire) == 2 &&
           ctx->cost_pid == getpid())
        nanosleep(&pause, NULL);
}
