/* clmax-bench: throughput of ArgMax and Hardmax against a streaming-read baseline measured on the
 * same device, over the same bytes, in the same run (docs/PERFORMANCE.md). Shared declarations. */
#ifndef CLMAX_BENCH_H
#define CLMAX_BENCH_H

/* Every bench source includes this header first: POSIX clock, spawn, memalign and readlink. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "clmax.h"

enum { BENCH_TABLE, BENCH_JSON, BENCH_CSV };
enum { BENCH_ARGMAX, BENCH_HARDMAX, BENCH_MAXIDX }; /* MAXIDX: clmax_max_with_indices */
/* OPENCL: the host-pointer API on an OpenCL context; CPU: the CPU path; CLMEM: the enqueue API on
 * device buffers of the OpenCL device (clmem.c). */
enum { BK_OPENCL, BK_CLMEM, BK_CPU, BK_COUNT };         /* the order of the rows */
extern const char *const bench_backend_names[BK_COUNT]; /* "opencl", "cl_mem", "cpu" */

#define BENCH_CLASSES 8
#define BENCH_MAX_ROWS 256

typedef struct bench_opts {
    uint64_t size_bytes;            /* input bytes per throughput case (--size, MiB) */
    int reps;                       /* timed runs per measurement, after one warm-up */
    int reps_explicit;              /* --reps given: never fewer runs for slow cases */
    int classes[BENCH_CLASSES + 1]; /* classes[c] != 0: class c selected (1..8) */
    int backends[BK_COUNT];         /* which backends to measure */
    const char *device;             /* --device: clmax_context_options.device */
    int threads;                    /* --threads: CPU path threads, 0: one per online core */
    uint64_t chunk_bytes;           /* --chunk-bytes: max_chunk_bytes of every OpenCL context */
    int chunked;                    /* --chunked: add the "chunked" row to class 1 */
    uint64_t chunked_bytes;         /* its limit; 0: an eighth of the input */
    int format;                     /* BENCH_TABLE / JSON / CSV */
    int verify;                     /* compare OpenCL and CPU outputs bit for bit */
    int first_call_spawns;          /* child processes timed for the first-call figure */
    int quiet;                      /* no progress lines on stderr */
    int small_pages;                /* --small-pages: host buffers without MADV_HUGEPAGE */
    int sweep;                      /* --sweep: 1 the full grid, 2 the quick one; 0: classes */
    int size_explicit;              /* --size given */
    uint64_t sweep_n[32], sweep_inner[32]; /* --sweep-n, --sweep-inner: the grid's axes */
    int sweep_nn, sweep_ni;                /* their lengths; 0: the default axes */
} bench_opts;

/* One throughput case: an operator on a shape, along an axis. */
typedef struct bench_case {
    int cls;          /* 1..7 */
    const char *name; /* "long rows", "short rows", ... */
    int op;           /* BENCH_ARGMAX / BENCH_HARDMAX / BENCH_MAXIDX */
    clmax_type type;
    int rank;
    int64_t dims[3];
    int64_t axis;
    uint64_t chunk; /* max_chunk_bytes for this case on OpenCL (the "chunked" row), else 0 */
} bench_case;

/* One line of the report. Throughput rows have kind 0; latency rows kind 1; first-call rows 2. */
typedef struct bench_row {
    int kind;
    int cls;
    char name[48];
    char shape[48];
    char type[12];
    char op[8];
    int64_t axis;
    const char *backend; /* "opencl" or "cpu" */
    uint64_t bytes;
    double op_s;     /* median seconds per call (kind 0 and 1), or the first call (kind 2) */
    double base_s;   /* median seconds of the baseline (kind 0) */
    double op_gbs;   /* bytes / op_s / 1e9 */
    double base_gbs; /* bytes / base_s / 1e9: input bytes, for read+write too */
    double ratio;    /* op_gbs / base_gbs */
    double target;   /* ratio target (kind 0) or latency ceiling in seconds (kind 1, 2); 0: none */
    char note[64];   /* extra detail, or "" */
    int failed;      /* the measurement failed (message printed) */
} bench_row;

/* ---- util.c ---- */
double bench_now(void);
double bench_median(double *v, int n);
/* Page-aligned, zero-touched, in huge pages where the kernel allows (bench_set_huge_pages(0):
 * never); NULL on failure. */
void *bench_alloc(size_t bytes);
void bench_free(void *p);
void bench_set_huge_pages(int on);
/* Bytes of the process's anonymous memory in huge pages (Linux's smaps_rollup; else 0). */
uint64_t bench_huge_page_bytes(void);
/* Fills bytes with deterministic pseudo-random values suited to type (finite floats in [-8, 8),
 * full-range integers), using threads workers. */
void bench_fill(void *x, uint64_t count, clmax_type type, int threads);
int bench_online_cores(void);
/* Software prefetch distance of the baselines in bytes: CLMAX_BENCH_PROBE_PREFETCH (0: none),
 * default 4096, the distance the library's CPU loops use. */
unsigned bench_probe_prefetch(void);
void bench_progress(const bench_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void bench_shape_string(const bench_case *c, char *out, size_t size);

/* ---- probe_cpu.c: the CPU path's practical limit ---- */
/* Sums the 64-bit words of x (bytes rounded down to 8; the tail is added byte-wise) on threads
 * threads, created for the call as the CPU path does. Returns the sum so the reads stay. */
uint64_t bench_cpu_read(const void *x, uint64_t bytes, int threads);
/* The same on the calling thread of bytes already in cache: no prefetch, the widest vectors. */
uint64_t bench_cpu_read_hot(const void *x, uint64_t bytes);
/* Writes y[i] = x[i] ^ constant over bytes on threads threads: the read+write probe. */
void bench_cpu_copy(const void *x, void *y, uint64_t bytes, int threads);
/* Reads in_bytes of x and writes out_bytes of y (sizes may differ) on threads threads: the limit of
 * a call whose output is not small beside its input. Returns the sum of the reads. */
uint64_t bench_cpu_read_write(const void *x, uint64_t in_bytes, void *y, uint64_t out_bytes,
                              int threads);

/* ---- probe_cl.c: the OpenCL device's practical limit ---- */
/* 0 on CL_SUCCESS; else prints "<call> failed (<err>)" and returns 1. */
int bench_cl_check(cl_int err, const char *call);
typedef struct bench_cl bench_cl;
/* Finds the OpenCL device of ctx (an OpenCL clmax context) and builds the probe kernels on it.
 * selector: the selector the context was made with (NULL: the environment's or none). On failure
 * prints why and returns NULL. */
bench_cl *bench_cl_create(clmax_context *ctx, const char *selector);
void bench_cl_destroy(bench_cl *b);
/* A short description of how the probe reaches host memory and its launch shape. */
const char *bench_cl_describe(const bench_cl *b);
/* Streaming read of bytes at x, the way the library reaches host memory. 0 on success, the sum of
 * all 64-bit words in *sum. */
int bench_cl_read(bench_cl *b, const void *x, uint64_t bytes, uint64_t *sum);
/* Read+write probe: y = x ^ constant over bytes, device side, host memory in and out. */
int bench_cl_copy(bench_cl *b, const void *x, void *y, uint64_t bytes);
/* The probe's OpenCL objects (not retained), and the device's largest buffer in bytes. */
void bench_cl_objects(const bench_cl *b, cl_context *context, cl_device_id *device,
                      cl_command_queue *queue);
uint64_t bench_cl_max_alloc(const bench_cl *b);
/* The same probes on device buffers, nothing copied: the streaming read of bytes of x (the sum
 * as above; host_x, the host copy of x, gives the bytes past the last multiple of 16), and the
 * read+write from x to y. */
int bench_cl_read_mem(bench_cl *b, cl_mem x, const void *host_x, uint64_t bytes, uint64_t *sum);
int bench_cl_copy_mem(bench_cl *b, cl_mem x, cl_mem y, uint64_t bytes);

/* ---- clmem.c: the cl_mem rows, the enqueue API on device buffers ---- */
typedef struct bench_clmem bench_clmem;
/* A clmax context on the probe's OpenCL context, device and queue. NULL (message printed) on
 * failure. */
bench_clmem *bench_clmem_create(bench_cl *cl, const bench_opts *o);
void bench_clmem_destroy(bench_clmem *m);
clmax_context *bench_clmem_context(bench_clmem *m);
/* Whether buffers of size bytes fit the device (its largest allocation): the enqueue API takes
 * one buffer per tensor, so larger inputs have no cl_mem rows (the opencl rows stream them in
 * chunks). */
int bench_clmem_fits(const bench_clmem *m, uint64_t size);
/* Makes the device input and output buffers size bytes each, and the input hold the bytes of
 * host x, copied unless they are already there (the same x, bytes and fill generation gen).
 * Returns 0, or 1 with a message (size above the device's largest buffer, an OpenCL error). */
int bench_clmem_prepare(bench_clmem *m, uint64_t size, const void *x, uint64_t bytes, int gen);
/* The baseline on the device buffers: the streaming read of the input (its sum in *sum), or with
 * read_write the read+write into the output buffer. Returns 0 on success. */
int bench_clmem_baseline(bench_clmem *m, int read_write, uint64_t bytes, uint64_t *sum);
/* Enqueues op (opset 13, the given axis) on the device buffers and waits for its event;
 * BENCH_MAXIDX writes the indices at 0 and the values at values_off bytes of the output buffer. */
clmax_status bench_clmem_run(bench_clmem *m, int op, const clmax_tensor_desc *d, int64_t axis,
                             uint64_t values_off);
/* Copies the first bytes of the output buffer to y. Returns 0 on success. */
int bench_clmem_download(bench_clmem *m, void *y, uint64_t bytes);

/* ---- cases.c ---- */
/* Builds the throughput cases of the selected classes. Returns the count. */
int bench_cases(const bench_opts *o, bench_case *cases, int max);
/* What the runs share: contexts, the probe, the input and output buffers. */
typedef struct bench_env {
    const bench_opts *o;
    clmax_context *ctx[BK_COUNT]; /* NULL where unavailable */
    bench_cl *cl;                 /* the OpenCL probe, NULL without an OpenCL context */
    bench_clmem *clmem;           /* the cl_mem rows' buffers, NULL without them */
    int cpu_threads;
    void *x;           /* input, o->size_bytes (page-aligned) */
    void *y[BK_COUNT]; /* outputs, o->size_bytes each */
    clmax_type filled; /* the type x currently holds, 0: none */
    uint64_t filled_count;
    int fill_gen;      /* counts the fills of x */
    uint64_t word_sum; /* sum of x's 64-bit words, to check the probes read everything */
    uint64_t host_bytes, host_huge; /* x and the y: bytes, and bytes in huge pages */
} bench_env;
/* Runs one case on the selected backends, appending a row per backend, then compares the OpenCL
 * and CPU outputs. Returns 0, or nonzero when a run failed or the backends disagreed (a loud
 * message has been printed). */
int bench_run_case(bench_env *e, const bench_case *c, bench_row *rows, int *nrows);
/* Class 8: warm latency through the host API on each backend, and the first call in a fresh
 * process (spawned with --first-call). */
int bench_run_latency(bench_env *e, const char *self, bench_row *rows, int *nrows);
/* Class 8's cache-hot rows: ArgMax along the last axis of logits-sized inputs, called again and
 * again on the same bytes, on the CPU path, the OpenCL device and autox (an auto context, or
 * NULL), against a cache-hot read of those bytes. */
int bench_run_hot(bench_env *e, clmax_context *autox, bench_row *rows, int *nrows);
/* The hidden child mode: create a context of the given backend, time create + first ArgMax on
 * [1, 1000] float32, print "<seconds>" on stdout. Returns the exit status. */
int bench_first_call_child(const bench_opts *o, const char *backend);

/* ---- sweep.c ---- */
/* The shape sweep on the CPU path, the OpenCL device, an auto context and the device's buffers
 * through the enqueue API (NULL: left out), as CSV on stdout. Returns nonzero when a run failed or
 * the outputs disagreed. */
int bench_sweep(const bench_opts *o, clmax_context *cpu, clmax_context *opencl,
                clmax_context *autox, bench_clmem *clmem);

/* ---- report.c ---- */
void bench_report(const bench_opts *o, const bench_env *e, const bench_row *rows, int nrows);
/* Whether a row meets its target (1), misses it (0), or has none (-1). */
int bench_row_meets(const bench_row *r);

#endif
