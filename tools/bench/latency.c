/* Class 8: the latency of small calls through the host API (warm; for the cl_mem rows through the
 * enqueue API on device buffers, the call and the wait for its event), and the first call in a new
 * process: the bench spawns itself with the hidden --first-call flag, which times context creation
 * plus the first ArgMax (for OpenCL: platform discovery, program build or cache load, buffers). */
#include "bench.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define LAT_TARGET_CPU 20e-6     /* [1, 1000] on the CPU path */
#define LAT_TARGET_OPENCL 150e-6 /* [1, 1000] on OpenCL (PoCL) */
#define FIRST_CALL_TARGET 0.100  /* create + first call with the on-disk cache warm */
#define MAX_CALLS 4096

static const int64_t lat_shapes[2][2] = {{1, 1000}, {8, 32000}};
static void desc_2d(const int64_t dims[2], clmax_tensor_desc *d)
{
    memset(d, 0, sizeof *d);
    d->type = CLMAX_TYPE_FLOAT32;
    d->rank = 2;
    d->dims[0] = dims[0];
    d->dims[1] = dims[1];
}

static clmax_status argmax_2d(clmax_context *ctx, const int64_t dims[2], const float *x, int64_t *y)
{
    clmax_tensor_desc d;
    desc_2d(dims, &d);
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = -1;
    return clmax_argmax(ctx, &d, x, &a, y);
}

/* The same on the cl_mem rows' device buffers, which hold x. */
static clmax_status argmax_2d_clmem(bench_clmem *m, const int64_t dims[2])
{
    clmax_tensor_desc d;
    desc_2d(dims, &d);
    return bench_clmem_run(m, BENCH_ARGMAX, &d, -1, 0);
}

static void lat_row(bench_row *r, int kind, const char *name, const int64_t dims[2], int bk)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->cls = 8;
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->shape, sizeof r->shape, "[%lld,%lld]", (long long)dims[0], (long long)dims[1]);
    snprintf(r->type, sizeof r->type, "float32");
    snprintf(r->op, sizeof r->op, "argmax");
    r->axis = -1;
    r->backend = bench_backend_names[bk];
    r->bytes = (uint64_t)(dims[0] * dims[1]) * 4;
}

/* Spawns `self --first-call=<backend>` and reads the seconds it prints. Also gives the wall time
 * of the whole child process. Returns 0 on success. */
/* The environment of a child: ours, and with cold set, every program cache turned off. */
static char **child_environment(int cold)
{
    static const char *const cold_vars[] = {"CLMAX_CACHE_DIR=off", "POCL_KERNEL_CACHE=0"};
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 3) * sizeof *env);
    if (env == NULL) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (cold && (strncmp(environ[i], "CLMAX_CACHE_DIR=", 16) == 0 ||
                     strncmp(environ[i], "POCL_KERNEL_CACHE=", 18) == 0))
            continue;
        env[k++] = environ[i];
    }
    for (size_t i = 0; cold && i < 2; i++)
        env[k++] = (char *)cold_vars[i];
    env[k] = NULL;
    return env;
}

static int spawn_first_call(const bench_opts *o, const char *self, int bk, int cold, double *secs,
                            double *wall)
{
    char a_backend[64], a_device[1024], a_threads[64];
    char *argv[6];
    int argc = 0;
    snprintf(a_backend, sizeof a_backend, "--first-call=%s", bench_backend_names[bk]);
    argv[argc++] = (char *)self;
    argv[argc++] = a_backend;
    if (o->device) {
        snprintf(a_device, sizeof a_device, "--device=%s", o->device);
        argv[argc++] = a_device;
    }
    if (o->threads) {
        snprintf(a_threads, sizeof a_threads, "--threads=%d", o->threads);
        argv[argc++] = a_threads;
    }
    argv[argc] = NULL;

    int fds[2];
    if (pipe(fds) != 0) return 1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    double t0 = bench_now();
    char **env = child_environment(cold);
    int err = env ? posix_spawn(&pid, self, &fa, NULL, argv, env) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(fds[1]);
    if (err != 0) {
        close(fds[0]);
        fprintf(stderr, "clmax-bench: cannot run %s for the first-call figure\n", self);
        return 1;
    }
    char buf[128];
    size_t used = 0;
    ssize_t got;
    while (used < sizeof buf - 1 && (got = read(fds[0], buf + used, sizeof buf - 1 - used)) > 0)
        used += (size_t)got;
    buf[used] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    *wall = bench_now() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || sscanf(buf, "%lf", secs) != 1) {
        fprintf(stderr, "clmax-bench: the first-call child (%s) failed\n", bench_backend_names[bk]);
        return 1;
    }
    return 0;
}

int bench_first_call_child(const bench_opts *o, const char *backend)
{
    static float x[1000];
    int64_t y = -1;
    const int64_t dims[2] = {1, 1000};
    bench_fill(x, 1000, CLMAX_TYPE_FLOAT32, 1);

    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.backend = strcmp(backend, "cpu") == 0 ? CLMAX_BACKEND_CPU : CLMAX_BACKEND_OPENCL;
    opt.device = o->device;
    opt.num_threads = o->threads;
    opt.max_chunk_bytes = o->chunk_bytes;
    clmax_context *ctx = NULL;
    double t0 = bench_now();
    clmax_status st = clmax_context_create(&opt, &ctx);
    if (st == CLMAX_OK) st = argmax_2d(ctx, dims, x, &y);
    double t1 = bench_now();
    if (st != CLMAX_OK) {
        fprintf(stderr, "clmax-bench: first call on %s: %s\n", backend, clmax_last_error());
        clmax_context_destroy(ctx);
        return 1;
    }
    printf("%.9f\n", t1 - t0);
    clmax_context_destroy(ctx);
    return 0;
}

int bench_run_latency(bench_env *e, const char *self, bench_row *rows, int *nrows)
{
    const bench_opts *o = e->o;
    enum { MAX_ELEMS = 8 * 32000 };
    float *x = bench_alloc(MAX_ELEMS * sizeof(float));
    int64_t *y[BK_COUNT];
    int missing = x == NULL;
    for (int bk = 0; bk < BK_COUNT; bk++)
        missing |= (y[bk] = bench_alloc(8 * 8)) == NULL;
    static double t[MAX_CALLS];
    int calls = o->reps * 40, rc = 0;
    if (calls > MAX_CALLS) calls = MAX_CALLS;
    if (calls < 20) calls = 20;
    if (missing) {
        fprintf(stderr, "clmax-bench: out of memory\n");
        rc = 1;
        goto done;
    }
    bench_fill(x, MAX_ELEMS, CLMAX_TYPE_FLOAT32, 1);
    if (e->clmem != NULL && bench_clmem_prepare(e->clmem, MAX_ELEMS * sizeof(float), x,
                                                MAX_ELEMS * sizeof(float), -1) != 0) {
        rc = 1;
        goto done;
    }

    for (int s = 0; s < 2; s++) {
        int ran[BK_COUNT] = {0};
        for (int bk = 0; bk < BK_COUNT; bk++) {
            if (e->ctx[bk] == NULL || (!o->backends[bk] && !o->verify)) continue;
            int measured = o->backends[bk];
            bench_row *r = &rows[*nrows];
            lat_row(r, 1, "latency (warm)", lat_shapes[s], bk);
            if (s == 0 && bk != BK_CLMEM)
                r->target = bk == BK_CPU ? LAT_TARGET_CPU : LAT_TARGET_OPENCL;
            if (measured)
                bench_progress(o, "class 8 latency %s on %s, %d calls", r->shape, r->backend,
                               calls);
            int n = measured ? calls : 0;
            for (int i = -20; i < n; i++) { /* 20 warm-up calls */
                double t0 = bench_now();
                clmax_status st = bk == BK_CLMEM ? argmax_2d_clmem(e->clmem, lat_shapes[s])
                                                 : argmax_2d(e->ctx[bk], lat_shapes[s], x, y[bk]);
                double t1 = bench_now();
                if (st != CLMAX_OK) {
                    fprintf(stderr, "clmax-bench: latency %s on %s failed: %s\n", r->shape,
                            r->backend, clmax_last_error());
                    r->failed = 1;
                    rc = 1;
                    break;
                }
                if (i >= 0) t[i] = t1 - t0;
            }
            if (r->failed) {
                if (measured) (*nrows)++;
                continue;
            }
            ran[bk] = 1;
            if (bk == BK_CLMEM && bench_clmem_download(e->clmem, y[bk], lat_shapes[s][0] * 8)) {
                rc = 1;
                ran[bk] = 0;
            }
            if (!measured) continue;
            r->op_s = bench_median(t, n);
            r->op_gbs = (double)r->bytes / r->op_s * 1e-9;
            snprintf(r->note, sizeof r->note, "median of %d calls", n);
            (*nrows)++;
        }
        for (int bk = 0; bk < BK_COUNT; bk++) {
            if (bk == BK_CPU || !ran[bk] || !ran[BK_CPU]) continue;
            if (memcmp(y[bk], y[BK_CPU], (size_t)lat_shapes[s][0] * 8) == 0) continue;
            fprintf(stderr,
                    "\nclmax-bench: ******** VERIFICATION FAILED ********\n"
                    "clmax-bench: ArgMax float32 [%lld,%lld] axis -1: %s and CPU outputs "
                    "differ\n\n",
                    (long long)lat_shapes[s][0], (long long)lat_shapes[s][1],
                    bk == BK_CLMEM ? "cl_mem (enqueue API)" : "OpenCL");
            rc = 1;
        }
    }

    /* The first call in a new process. OpenCL: first with no program cache at all (clmax's
     * on-disk cache off, PoCL's kernel cache off): the build cost; then one spawn to warm the
     * caches, and the median of the following spawns: what a user sees on every later start. */
    for (int bk = 0; bk < BK_COUNT; bk++) {
        if (!o->backends[bk] || e->ctx[bk] == NULL || self == NULL || bk == BK_CLMEM) continue;
        int spawns = o->first_call_spawns < 1 ? 1 : o->first_call_spawns;
        double secs[64], walls[64], warm_s = 0, warm_wall = 0;
        if (spawns > 64) spawns = 64;
        bench_progress(o, "class 8 first call on %s, %d fresh processes", bench_backend_names[bk],
                       bk == BK_OPENCL ? 2 * spawns + 1 : spawns + 1);
        int ok = 1;
        if (bk == BK_OPENCL) {
            for (int i = 0; ok && i < spawns; i++)
                ok = spawn_first_call(o, self, bk, 1, &secs[i], &walls[i]) == 0;
            bench_row *r = &rows[(*nrows)++];
            lat_row(r, 2, "first call, no caches", lat_shapes[0], bk);
            r->failed = !ok;
            if (ok) {
                r->op_s = bench_median(secs, spawns);
                snprintf(r->note, sizeof r->note, "median of %d; process wall %.1f ms", spawns,
                         bench_median(walls, spawns) * 1e3);
            }
        }
        ok = ok && spawn_first_call(o, self, bk, 0, &warm_s, &warm_wall) == 0;
        for (int i = 0; ok && i < spawns; i++)
            ok = spawn_first_call(o, self, bk, 0, &secs[i], &walls[i]) == 0;
        bench_row *r = &rows[(*nrows)++];
        lat_row(r, 2, bk == BK_OPENCL ? "first call, caches warm" : "first call", lat_shapes[0],
                bk);
        r->failed = !ok;
        if (ok) {
            r->op_s = bench_median(secs, spawns);
            snprintf(r->note, sizeof r->note, "median of %d; process wall %.1f ms", spawns,
                     bench_median(walls, spawns) * 1e3);
        }
        if (bk == BK_OPENCL) r->target = FIRST_CALL_TARGET;
        if (!ok) rc = 1;
    }
done:
    bench_free(x);
    for (int bk = 0; bk < BK_COUNT; bk++)
        bench_free(y[bk]);
    return rc;
}

/* ---- Cache-hot calls: a language model's logits right after its last layer ---- */

#define HOT_TARGET_RATIO 0.80     /* against a cache-hot read of the same bytes */
#define HOT_TARGET_SMALL 1e-6     /* [1, 1000] float32 on the CPU path, seconds */
#define HOT_CALLS 200             /* timed calls per row, after 20 warm-up calls */
#define HOT_READ_SMALL (1u << 20) /* reads of fewer bytes run on one thread */

typedef struct hot_shape {
    int64_t rows, n;
    clmax_type type;
} hot_shape;

static const hot_shape hot_shapes[] = {{1, 151936, CLMAX_TYPE_FLOAT32},
                                       {32, 128256, CLMAX_TYPE_FLOAT32},
                                       {1, 1000, CLMAX_TYPE_FLOAT32},
                                       {64, 1000, CLMAX_TYPE_FLOAT32},
                                       {1, 151936, CLMAX_TYPE_FLOAT16}};

static volatile uint64_t hot_sink;

/* The median seconds of the cache-hot read of bytes at x: one thread for small reads (waking
 * others would cost more than the read), else all of them. */
static double hot_read(const void *x, uint64_t bytes, int threads)
{
    static double t[HOT_CALLS];
    int th = bytes < HOT_READ_SMALL ? 1 : threads;
    for (int i = -20; i < HOT_CALLS; i++) {
        double t0 = bench_now();
        hot_sink += th == 1 ? bench_cpu_read_hot(x, bytes) : bench_cpu_read(x, bytes, th);
        if (i >= 0) t[i] = bench_now() - t0;
    }
    return bench_median(t, HOT_CALLS);
}

int bench_run_hot(bench_env *e, clmax_context *autox, bench_row *rows, int *nrows)
{
    const bench_opts *o = e->o;
    clmax_context *ctxs[3] = {e->ctx[BK_CPU], o->backends[BK_OPENCL] ? e->ctx[BK_OPENCL] : NULL,
                              autox};
    const char *names[3] = {"cpu", "opencl", "auto"};
    int rc = 0;
    for (size_t s = 0; s < sizeof hot_shapes / sizeof *hot_shapes; s++) {
        const hot_shape *h = &hot_shapes[s];
        uint64_t count = (uint64_t)(h->rows * h->n), bytes = count * clmax_type_size(h->type);
        void *x = bench_alloc(bytes);
        int64_t *y = bench_alloc((size_t)h->rows * 8 * 3);
        if (x == NULL || y == NULL) {
            fprintf(stderr, "clmax-bench: out of memory\n");
            bench_free(x);
            bench_free(y);
            return 1;
        }
        bench_fill(x, count, h->type, 1);
        clmax_tensor_desc d;
        memset(&d, 0, sizeof d);
        d.type = h->type;
        d.rank = 2;
        d.dims[0] = h->rows, d.dims[1] = h->n;
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = -1;
        double limit = hot_read(x, bytes, e->cpu_threads);
        static double t[HOT_CALLS];
        for (int b = 0; b < 3; b++) {
            if (ctxs[b] == NULL) continue;
            bench_row *r = &rows[(*nrows)++];
            int small = h->rows * h->n <= 1000;
            memset(r, 0, sizeof *r);
            r->kind = small ? 1 : 0;
            r->cls = 8;
            snprintf(r->name, sizeof r->name, "cache-hot");
            snprintf(r->shape, sizeof r->shape, "[%lld,%lld]", (long long)h->rows, (long long)h->n);
            snprintf(r->type, sizeof r->type, "%s", clmax_type_name(h->type));
            snprintf(r->op, sizeof r->op, "argmax");
            r->axis = -1;
            r->backend = names[b];
            r->bytes = bytes;
            if (b == 0) r->target = small ? HOT_TARGET_SMALL : HOT_TARGET_RATIO;
            bench_progress(o, "class 8 cache-hot %s %s on %s", r->type, r->shape, names[b]);
            int64_t *yb = y + b * h->rows;
            for (int i = -20; i < HOT_CALLS; i++) {
                double t0 = bench_now();
                clmax_status st = clmax_argmax(ctxs[b], &d, x, &a, yb);
                double t1 = bench_now();
                if (st != CLMAX_OK) {
                    fprintf(stderr, "clmax-bench: cache-hot %s on %s failed: %s\n", r->shape,
                            names[b], clmax_last_error());
                    r->failed = 1;
                    rc = 1;
                    break;
                }
                if (i >= 0) t[i] = t1 - t0;
            }
            if (r->failed) continue;
            r->op_s = bench_median(t, HOT_CALLS);
            r->base_s = limit;
            r->op_gbs = (double)bytes / r->op_s * 1e-9;
            r->base_gbs = (double)bytes / limit * 1e-9;
            r->ratio = limit / r->op_s;
            snprintf(r->note, sizeof r->note, "median of %d; baseline: cache-hot read", HOT_CALLS);
            if (b > 0 && o->verify && memcmp(yb, y, (size_t)h->rows * 8) != 0) {
                fprintf(stderr,
                        "\nclmax-bench: ******** VERIFICATION FAILED ********\n"
                        "clmax-bench: cache-hot %s: %s and cpu differ\n\n",
                        r->shape, names[b]);
                rc = 1;
            }
        }
        bench_free(x);
        bench_free(y);
    }
    return rc;
}
