/*
 * Several threads on one context: 8 threads call clmax_argmax / clmax_hardmax at the same time
 * on different inputs (types, shapes, axes, attributes; some large enough for the CPU path to
 * start its own workers and split the axis), and every output must equal, bit for bit, the answer
 * computed beforehand by a single-threaded CPU context (itself checked against the scalar
 * reference). Between operator calls each thread makes a failing call of its own kind and checks
 * that clmax_last_error() describes its failure, not another thread's.
 *
 * usage: test_threads cpu | opencl
 *   cpu     a CPU-path context, then one that forces the axis-splitting strategy
 *   opencl  an OpenCL context, then one whose buffers are capped so that inputs stream in chunks;
 *           exits 77 (skipped) when CLMAX_BACKEND=cpu, or when there is no OpenCL device unless
 *           CLMAX_REQUIRE_OPENCL=1, where that is a failure.
 * Plain C (no Criterion fork), so that ThreadSanitizer sees the whole run (.ci/tsan.sh).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clmax.h"
#include "reference.h"

#define THREADS 8
#define SKIP 77

typedef struct tcase {
    const char *name;
    int hardmax;
    clmax_tensor_desc desc;
    clmax_argmax_attrs a;
    clmax_hardmax_attrs h;
    unsigned char *x;
    size_t x_bytes;
    unsigned char *want; /* the single-threaded answer */
    size_t y_bytes;
} tcase;

#define MAX_CASES 16
static tcase cases[MAX_CASES];
static int ncases;
static size_t max_y_bytes;

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Bits of a "top" value (a NaN for floats, the maximum for integers) and of ordinary values from
 * a pool of 64 (ties everywhere; for floats the signed zeros, a denormal and -inf among them). */
static uint64_t top_bits(clmax_type t)
{
    switch (t) {
    case CLMAX_TYPE_FLOAT16:
        return 0xFE01;
    case CLMAX_TYPE_BFLOAT16:
        return 0x7FC1;
    case CLMAX_TYPE_FLOAT32:
        return 0xFFC00001u;
    case CLMAX_TYPE_FLOAT64:
        return 0x7FF8000000000001ull;
    case CLMAX_TYPE_INT8:
        return 0x7F;
    case CLMAX_TYPE_INT16:
        return 0x7FFF;
    case CLMAX_TYPE_INT32:
        return 0x7FFFFFFF;
    case CLMAX_TYPE_INT64:
        return 0x7FFFFFFFFFFFFFFFull;
    default:
        return UINT64_MAX; /* truncated to the width: the unsigned maximum */
    }
}

static uint64_t pool_bits(clmax_type t, unsigned k)
{
    int v = (int)(k % 64) - 32;
    switch (t) {
    case CLMAX_TYPE_FLOAT16: {
        static const uint16_t special[4] = {0x8000, 0x0000, 0x0001, 0xFC00};
        if (k % 64 >= 60) return special[k % 4];
        /* v / 4 as float16: exact for these small values */
        uint16_t s = v < 0 ? 0x8000 : 0;
        unsigned m = (unsigned)(v < 0 ? -v : v);
        if (m == 0) return s;
        int e = 0;
        while ((m >> e) > 1)
            e++;
        unsigned frac = (m << (10 - e)) & 0x3FF;
        return s | (uint16_t)((e - 2 + 15) << 10) | frac;
    }
    case CLMAX_TYPE_BFLOAT16:
    case CLMAX_TYPE_FLOAT32: {
        float f = (float)v / 4.0f;
        if (k % 64 >= 60) f = k % 4 == 0 ? -0.0f : (k % 4 == 1 ? 1e-40f : -1.0f / 0.0f);
        uint32_t u;
        memcpy(&u, &f, 4);
        return t == CLMAX_TYPE_BFLOAT16 ? u >> 16 : u;
    }
    case CLMAX_TYPE_FLOAT64: {
        double d = (double)v / 4.0;
        if (k % 64 >= 60) d = k % 4 == 0 ? -0.0 : (k % 4 == 1 ? 4.9e-324 : -1.0 / 0.0);
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    case CLMAX_TYPE_UINT8:
    case CLMAX_TYPE_UINT16:
    case CLMAX_TYPE_UINT32:
    case CLMAX_TYPE_UINT64:
        return (uint64_t)(v + 32);
    default:
        return (uint64_t)(int64_t)v; /* truncated: two's complement of the width */
    }
}

static void put(unsigned char *x, uint64_t i, size_t es, uint64_t bits)
{
    for (size_t b = 0; b < es; b++)
        x[i * es + b] = (unsigned char)(bits >> (8 * b)); /* the host is little-endian */
}

static void add_case(const char *name, int hardmax, clmax_type type, int rank, const int64_t *dims,
                     int opset, int64_t axis, int keepdims, int last)
{
    tcase *c = &cases[ncases++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->hardmax = hardmax;
    c->desc.type = type;
    c->desc.rank = rank;
    for (int k = 0; k < rank; k++)
        c->desc.dims[k] = dims[k];
    if (hardmax) {
        clmax_hardmax_attrs_init(&c->h, opset);
        c->h.axis = axis;
    } else {
        clmax_argmax_attrs_init(&c->a, opset);
        c->a.axis = axis;
        c->a.keepdims = keepdims;
        c->a.select_last_index = last;
    }
    uint64_t count;
    if (clmax_tensor_desc_count(&c->desc, &count) != CLMAX_OK) {
        fprintf(stderr, "threads: case %s: bad descriptor\n", name);
        exit(1);
    }
    size_t es = clmax_type_size(type);
    c->x_bytes = (size_t)count * es;
    c->x = malloc(c->x_bytes);
    if (c->x == NULL) exit(1);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t r = rng();
        /* The top value is rare, so that winners (and ties of winners) land anywhere. */
        put(c->x, i, es, r % 30011 == 0 ? top_bits(type) : pool_bits(type, (unsigned)(r >> 20)));
    }
    clmax_tensor_desc out;
    clmax_status st = hardmax ? clmax_hardmax_output_desc(&c->desc, &c->h, &out)
                              : clmax_argmax_output_desc(&c->desc, &c->a, &out);
    uint64_t n_out = 1;
    for (int k = 0; k < out.rank; k++)
        n_out *= (uint64_t)out.dims[k];
    if (st != CLMAX_OK) {
        fprintf(stderr, "threads: case %s: output_desc failed: %s\n", name, clmax_last_error());
        exit(1);
    }
    c->y_bytes = (size_t)n_out * clmax_type_size(out.type);
    if (c->y_bytes > max_y_bytes) max_y_bytes = c->y_bytes;
}

static void make_cases(void)
{
    /* Large ones (>= 2^18 elements) make the CPU path start its own worker threads. */
    add_case("argmax f32 [300000] (one long row, split)", 0, CLMAX_TYPE_FLOAT32, 1,
             (int64_t[]){300000}, 13, 0, 1, 0);
    add_case("argmax f32 [256,1500] axis 1 keepdims 0", 0, CLMAX_TYPE_FLOAT32, 2,
             (int64_t[]){256, 1500}, 13, 1, 0, 0);
    add_case("argmax f16 [600,520] axis 0 last", 0, CLMAX_TYPE_FLOAT16, 2, (int64_t[]){600, 520},
             13, 0, 1, 1);
    add_case("argmax i64 [3,90000,2] axis 1", 0, CLMAX_TYPE_INT64, 3, (int64_t[]){3, 90000, 2}, 13,
             1, 1, 0);
    add_case("argmax u8 [524288] axis -1 last", 0, CLMAX_TYPE_UINT8, 1, (int64_t[]){524288}, 12, -1,
             1, 1);
    add_case("argmax i8 [40,50,30] axis 2 opset 11", 0, CLMAX_TYPE_INT8, 3, (int64_t[]){40, 50, 30},
             11, 2, 0, 0);
    add_case("hardmax bf16 [512,600] axis -1", 1, CLMAX_TYPE_BFLOAT16, 2, (int64_t[]){512, 600}, 13,
             -1, 0, 0);
    add_case("hardmax f64 [16,8,3000] axis 1 opset 1", 1, CLMAX_TYPE_FLOAT64, 3,
             (int64_t[]){16, 8, 3000}, 1, 1, 0, 0);
    add_case("hardmax f32 [70,4000] axis 0", 1, CLMAX_TYPE_FLOAT32, 2, (int64_t[]){70, 4000}, 13, 0,
             0, 0);
    add_case("argmax u64 [1000,300] axis 0 last", 0, CLMAX_TYPE_UINT64, 2, (int64_t[]){1000, 300},
             12, 0, 1, 1);
    add_case("argmax i32 [7]", 0, CLMAX_TYPE_INT32, 1, (int64_t[]){7}, 13, 0, 1, 0);
    add_case("argmax f64 [2,150000] axis 1", 0, CLMAX_TYPE_FLOAT64, 2, (int64_t[]){2, 150000}, 13,
             1, 1, 0);
    add_case("hardmax f16 [3,5,7,9] axis 2 opset 11", 1, CLMAX_TYPE_FLOAT16, 4,
             (int64_t[]){3, 5, 7, 9}, 11, 2, 0, 0);
    add_case("argmax u16 [33,2,1,4097] axis 3", 0, CLMAX_TYPE_UINT16, 4,
             (int64_t[]){33, 2, 1, 4097}, 13, 3, 1, 0);
}

static clmax_status run_case(clmax_context *ctx, const tcase *c, void *y)
{
    return c->hardmax ? clmax_hardmax(ctx, &c->desc, c->x, &c->h, y)
                      : clmax_argmax(ctx, &c->desc, c->x, &c->a, y);
}

/* The single-threaded answers, each also checked against the scalar reference. */
static int compute_answers(void)
{
    clmax_context_options o;
    clmax_context *ctx;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_CPU;
    o.num_threads = 1;
    o.ignore_environment = 1;
    if (clmax_context_create(&o, &ctx) != CLMAX_OK) {
        fprintf(stderr, "threads: CPU context: %s\n", clmax_last_error());
        return -1;
    }
    for (int i = 0; i < ncases; i++) {
        tcase *c = &cases[i];
        c->want = malloc(c->y_bytes);
        unsigned char *ref = malloc(c->y_bytes);
        if (c->want == NULL || ref == NULL) return -1;
        clmax_status st = run_case(ctx, c, c->want);
        clmax_status rst = c->hardmax ? ref_hardmax(&c->desc, c->x, &c->h, ref)
                                      : ref_argmax(&c->desc, c->x, &c->a, (int64_t *)ref);
        if (st != CLMAX_OK || rst != CLMAX_OK || memcmp(c->want, ref, c->y_bytes) != 0) {
            fprintf(stderr, "threads: %s: single-threaded status %d, reference %d, %s\n", c->name,
                    (int)st, (int)rst, st == CLMAX_OK ? "outputs differ" : clmax_last_error());
            clmax_context_destroy(ctx);
            return -1;
        }
        free(ref);
    }
    clmax_context_destroy(ctx);
    return 0;
}

typedef struct worker_arg {
    clmax_context *ctx;
    int id, rounds;
    pthread_barrier_t *start;
    int failures;
    char first_failure[512];
} worker_arg;

static void record(worker_arg *w, const char *fmt, const char *name, const char *detail)
{
    if (w->failures++ == 0) snprintf(w->first_failure, sizeof w->first_failure, fmt, name, detail);
}

static void *worker(void *arg)
{
    worker_arg *w = arg;
    unsigned char *y = malloc(max_y_bytes);
    if (y == NULL) {
        record(w, "%s%s", "out of memory", "");
        return NULL;
    }
    pthread_barrier_wait(w->start);
    for (int r = 0; r < w->rounds; r++) {
        const tcase *c = &cases[(w->id * 5 + r * 3) % ncases];
        memset(y, 0xEE, c->y_bytes);
        clmax_status st = run_case(w->ctx, c, y);
        if (st != CLMAX_OK)
            record(w, "%s: %s", c->name, clmax_last_error());
        else if (memcmp(y, c->want, c->y_bytes) != 0)
            record(w, "%s: %s", c->name, "output differs from the single-threaded answer");

        /* A failure of this thread's own kind: the message is per thread. */
        clmax_argmax_attrs bad;
        clmax_argmax_attrs_init(&bad, 13);
        const char *want_word;
        clmax_status want;
        if (w->id % 2) {
            bad.opset = 5;
            want = CLMAX_ERROR_UNSUPPORTED_OPSET;
            want_word = "opset";
        } else {
            bad.axis = 99;
            want = CLMAX_ERROR_INVALID_AXIS;
            want_word = "axis";
        }
        st = clmax_argmax(w->ctx, &c->desc, c->x, &bad, (int64_t *)y);
        if (st != want)
            record(w, "%s: a bad call returned %s", c->name, clmax_status_string(st));
        else if (strstr(clmax_last_error(), want_word) == NULL)
            record(w, "another thread's message? \"%s\" (%s)", clmax_last_error(), want_word);
    }
    free(y);
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* THREADS threads, `rounds` operator calls each, on ctx. Returns the number of failures. */
static int hammer(clmax_context *ctx, const char *label, int rounds)
{
    pthread_t tids[THREADS];
    worker_arg args[THREADS];
    pthread_barrier_t start;
    int failures = 0;
    double t0 = now();

    pthread_barrier_init(&start, NULL, THREADS);
    for (int t = 0; t < THREADS; t++) {
        memset(&args[t], 0, sizeof args[t]);
        args[t].ctx = ctx;
        args[t].id = t;
        args[t].rounds = rounds;
        args[t].start = &start;
        if (pthread_create(&tids[t], NULL, worker, &args[t]) != 0) {
            fprintf(stderr, "threads: pthread_create failed\n");
            exit(1);
        }
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(tids[t], NULL);
        if (args[t].failures) {
            fprintf(stderr, "threads: %s: thread %d: %d failure(s), first: %s\n", label, t,
                    args[t].failures, args[t].first_failure);
            failures += args[t].failures;
        }
    }
    pthread_barrier_destroy(&start);
    printf("threads: %s (%s): %d threads x %d calls over %d inputs: %s (%.2f s)\n", label,
           clmax_context_device_name(ctx), THREADS, rounds, ncases,
           failures ? "FAILED" : "all exact", now() - t0);
    fflush(stdout);
    return failures;
}

static clmax_context *open_context(clmax_backend backend, uint64_t max_chunk, clmax_strategy s,
                                   clmax_status *status)
{
    clmax_context_options o;
    clmax_context *ctx = NULL;
    clmax_context_options_init(&o);
    o.backend = backend;
    o.max_chunk_bytes = max_chunk;
    o.strategy = s;
    if (backend == CLMAX_BACKEND_CPU) o.num_threads = 4; /* workers inside each call too */
    *status = clmax_context_create(&o, &ctx);
    return ctx;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *env_backend = getenv("CLMAX_BACKEND");
    const char *require = getenv("CLMAX_REQUIRE_OPENCL");
    int failures = 0;
    clmax_status st;

    if (strcmp(mode, "cpu") != 0 && strcmp(mode, "opencl") != 0) {
        fprintf(stderr, "usage: %s cpu|opencl\n", argv[0]);
        return 2;
    }
    if (strcmp(mode, "opencl") == 0 && env_backend != NULL && strcmp(env_backend, "cpu") == 0) {
        printf("threads: SKIPPED: CLMAX_BACKEND=cpu\n");
        return SKIP;
    }
    make_cases();
    if (compute_answers() != 0) return 1;

    if (strcmp(mode, "cpu") == 0) {
        clmax_context *ctx = open_context(CLMAX_BACKEND_CPU, 0, CLMAX_STRATEGY_AUTO, &st);
        if (st != CLMAX_OK) {
            fprintf(stderr, "threads: CPU context: %s\n", clmax_last_error());
            return 1;
        }
        failures += hammer(ctx, "cpu", 16);
        clmax_context_destroy(ctx);
        ctx = open_context(CLMAX_BACKEND_CPU, 0, CLMAX_STRATEGY_SPLIT, &st);
        if (st != CLMAX_OK) return 1;
        failures += hammer(ctx, "cpu, split strategy", 8);
        clmax_context_destroy(ctx);
    } else {
        clmax_context *ctx = open_context(CLMAX_BACKEND_OPENCL, 0, CLMAX_STRATEGY_AUTO, &st);
        if (st == CLMAX_ERROR_NO_DEVICE) {
            if (require != NULL && strcmp(require, "1") == 0) {
                fprintf(stderr, "threads: no OpenCL device, and CLMAX_REQUIRE_OPENCL=1: %s\n",
                        clmax_last_error());
                return 1;
            }
            printf("threads: SKIPPED: no OpenCL device (%s)\n", clmax_last_error());
            return SKIP;
        }
        if (st != CLMAX_OK) {
            fprintf(stderr, "threads: OpenCL context: %s\n", clmax_last_error());
            return 1;
        }
        /* A fresh context: the threads also race to build its programs. */
        failures += hammer(ctx, "opencl", 6);
        clmax_context_destroy(ctx);
        ctx = open_context(CLMAX_BACKEND_OPENCL, 256 * 1024, CLMAX_STRATEGY_AUTO, &st);
        if (st != CLMAX_OK) {
            fprintf(stderr, "threads: OpenCL context: %s\n", clmax_last_error());
            return 1;
        }
        failures += hammer(ctx, "opencl, 256 KiB chunks", 4);
        clmax_context_destroy(ctx);
    }
    for (int i = 0; i < ncases; i++) {
        free(cases[i].x);
        free(cases[i].want);
    }
    printf("threads: %s: %s\n", mode, failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
