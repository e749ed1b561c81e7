/* The cost profile of an auto context's device (cost.h), measured once: from this process's
 * earlier contexts on the same device, else from the store, else by timing both paths on host
 * memory (about 0.1 s, plus the float32 program's build where it is not cached), then kept in
 * both. A device that fails here keeps no profile: every call then goes to the device, whose
 * failure the fallback answers and reports.
 *
 * The buffer is in huge pages where the kernel gives them, as NumPy's large arrays are (in base
 * pages the CPU path read rows a third slower here), and large enough to leave the caches. The
 * CPU path is timed first, then the device, the best run of each kept: a CPU device's worker
 * threads stay busy a while after its kernels, and slowed the CPU path's calls that came right
 * after them by up to a fifth. */
#include "backend.h"
#include "cost.h"
#include "status.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* The large problem: rows of 256 KiB, 32 MiB, where both paths read at the memory's pace. Rows
 * of 1024 float32 were tried first: PoCL reads those at 0.99 of the limit and the CPU path at 0.58
 * (docs/PERFORMANCE.md), so that one shape sent every large call to PoCL, and shapes where PoCL
 * is the slower path with it. */
#define CAL_ROW 65536
#define CAL_ROWS 128
#define CAL_SMALL 1000    /* the tiny problem: [1, 1000], a classifier's logits */
#define CAL_RUNS 5        /* runs of each path and problem, after a warm-up */
#define CAL_KEY_VERSION 3 /* changes when what is measured changes */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef clmax_status (*reduce_fn)(clmax_context *, const clmax_problem *, const void *, int64_t *);

/* The best seconds of f's call on p, over CAL_RUNS runs after a warm-up. */
static int time_calls(clmax_context *ctx, reduce_fn f, const clmax_problem *p, const float *x,
                      int64_t *idx, double *best)
{
    *best = 1e30;
    for (int i = -1; i < CAL_RUNS; i++) {
        double t0 = now_s();
        if (f(ctx, p, x, idx) != CLMAX_OK) return 0;
        double t = now_s() - t0;
        if (i >= 0 && t < *best) *best = t;
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
    double cs, ds, cl, dl;
    ok = ok && time_calls(ctx, clmax_cpu_reduce, &small, x, idx, &cs) &&
         time_calls(ctx, clmax_cpu_reduce, &large, x, idx, &cl) &&
         time_calls(ctx, ctx->iface->reduce, &small, x, idx, &ds) &&
         time_calls(ctx, ctx->iface->reduce, &large, x, idx, &dl);
    munmap(mem, bytes);
    free(idx);
    clmax_clear_error(); /* a failure here is the device's next call's to report */
    if (!ok) return 0;
    /* Each line: the tiny call's seconds, and the bytes per second past them on the large one. */
    double moved = (double)bytes + CAL_ROWS * 8.0;
    pf->cpu_call_s = cs;
    pf->cpu_bps = moved / (cl - cs > cl / 4 ? cl - cs : cl / 4);
    pf->dev_call_s = ds;
    pf->dev_bps = moved / (dl - ds > dl / 4 ? dl - ds : dl / 4);
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

/* Finds ctx's profile into ctx->cost: 1, or -1 when there is none. Called once, under the lock. */
static int find_profile(clmax_context *ctx)
{
    if (ctx->iface->load_fact == NULL) return -1;
    /* Whatever changes either line: the threads, the vectors, the chunk limit, the plan. */
    char key[256], full[768];
    snprintf(key, sizeof key, "cost=%d;threads=%d;avx512_off=%d;chunk=%llu;strategy=%d;plan=%d",
             CAL_KEY_VERSION, ctx->num_threads, ctx->cpu_avx512_off,
             (unsigned long long)ctx->max_chunk_bytes, (int)ctx->strategy, (int)ctx->plan_as);
    snprintf(full, sizeof full, "%s;%s", ctx->device_name, key);
    int found = -1;
    pthread_mutex_lock(&known_lock);
    for (int i = 0; i < nknown && found < 0; i++)
        if (strcmp(known[i].key, full) == 0) ctx->cost = known[i].pf, found = 1;
    pthread_mutex_unlock(&known_lock);
    if (found > 0) return 1;
    size_t size = 0;
    unsigned char *bytes = ctx->iface->load_fact(ctx, key, &size);
    if (bytes != NULL && size == CLMAX_COST_PROFILE_BYTES) {
        clmax_cost_profile_unpack(bytes, &ctx->cost);
        if (clmax_cost_profile_valid(&ctx->cost)) found = 1;
    }
    free(bytes);
    if (found < 0 && measure(ctx, &ctx->cost)) {
        unsigned char out[CLMAX_COST_PROFILE_BYTES];
        clmax_cost_profile_pack(&ctx->cost, out);
        ctx->iface->save_fact(ctx, key, out, sizeof out);
        found = 1;
    }
    if (found > 0) {
        pthread_mutex_lock(&known_lock);
        int slot = nknown < KNOWN_MAX ? nknown++ : KNOWN_MAX - 1;
        snprintf(known[slot].key, sizeof known[slot].key, "%s", full);
        known[slot].pf = ctx->cost;
        pthread_mutex_unlock(&known_lock);
    }
    return found;
}

const clmax_cost_profile *clmax_cost_profile_of(clmax_context *ctx)
{
    /* Every host-pointer call of an auto context asks: once the answer is known, no lock. */
    int state = atomic_load_explicit(&ctx->cost_state, memory_order_acquire);
    if (state == 0) {
        pthread_mutex_lock(&ctx->cost_lock);
        state = atomic_load_explicit(&ctx->cost_state, memory_order_relaxed);
        if (state == 0) {
            state = find_profile(ctx);
            atomic_store_explicit(&ctx->cost_state, state, memory_order_release);
        }
        pthread_mutex_unlock(&ctx->cost_lock);
    }
    return state > 0 ? &ctx->cost : NULL;
}
