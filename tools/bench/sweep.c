/* The shape sweep (--sweep, --sweep=quick): ArgMax, and Hardmax on the float16 and float32 cells,
 * over a grid of canonical views [outer, n, inner] reduced along n, on the CPU path, the OpenCL
 * device (host pointers), an auto context and the enqueue API on the device's own buffers
 * (cl_mem), each cell against the same run's host-memory limit (cl_mem: the device's).
 *
 * A cell is --size bytes of input (outer fills it), or --size bytes of indices where those are the
 * larger (rows of one or two elements). Its limit is the CPU probe's streaming read of the input,
 * or the read of the input plus the write of the output where the output is at least a tenth of
 * the input's bytes: every backend here reads and writes host memory, so the host's limit is
 * theirs (a discrete GPU's bus is slower still). The cl_mem rows' limit is the probe's read of
 * the input on the device, plus half a device-to-device copy of the output's bytes (its write, at
 * the copy's pace) under the same rule. Output: one CSV line per cell and backend, which
 * tools/bench/heatmap.py draws. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

enum { SW_CPU, SW_OPENCL, SW_AUTO, SW_CLMEM, SW_COUNT };
static const char *const sw_names[SW_COUNT] = {"cpu", "opencl", "auto", "cl_mem"};

static const uint64_t full_n[] = {1,    2,    3,    4,     5,     7,        8,       12,
                                  16,   21,   32,   64,    80,    100,      128,     256,
                                  1000, 1024, 4096, 32000, 65536, 1u << 20, 1u << 24};
static const uint64_t full_inner[] = {1, 2, 3, 4, 7, 16, 64, 256, 4096, 65536, 1u << 20};
static const uint64_t quick_n[] = {1, 3, 7, 21, 80, 1000, 4096, 65536, 1u << 20};
static const uint64_t quick_inner[] = {1, 3, 16, 256, 65536};
/* Strided axes with large inner also run with a few outer slices, as "8 rows of 8M lanes" do. */
static const uint64_t few_outer[] = {1, 8};
#define FEW_OUTER_MIN_INNER 4096
#define SWEEP_REPS 3
#define WRITE_SHARE 10 /* output bytes >= input / WRITE_SHARE: the limit is read + write */

typedef struct sweep_cell {
    int hardmax;
    clmax_type type;
    uint64_t outer, n, inner;
} sweep_cell;

typedef struct sweep_env {
    const bench_opts *o;
    clmax_context *ctx[SW_COUNT];
    bench_clmem *clmem; /* the cl_mem rows' buffers and baseline, NULL: none */
    void *x, *y[SW_COUNT];
    int threads;
    FILE *out;
    int cells, failed;
} sweep_env;

static uint64_t in_bytes(const sweep_cell *c)
{
    return c->outer * c->n * c->inner * clmax_type_size(c->type);
}

static uint64_t out_bytes(const sweep_cell *c)
{
    return c->hardmax ? in_bytes(c) : c->outer * c->inner * 8;
}

/* Whether c's limit counts the output's write beside the input's read. */
static int limit_writes(const sweep_cell *c)
{
    return out_bytes(c) * WRITE_SHARE >= in_bytes(c);
}

static volatile uint64_t sink; /* keeps the probe's reads */

/* The limit's time for backend b's run of c in seconds, or a negative value on failure. */
static double run_limit(sweep_env *s, const sweep_cell *c, int b)
{
    uint64_t in = in_bytes(c), out = out_bytes(c), sum = 0;
    double t0 = bench_now();
    if (b != SW_CLMEM) {
        if (limit_writes(c))
            sink += bench_cpu_read_write(s->x, in, s->y[b], out, s->threads);
        else
            sink += bench_cpu_read(s->x, in, s->threads);
        return bench_now() - t0;
    }
    if (bench_clmem_baseline(s->clmem, 0, in, &sum) != 0) return -1;
    sink += sum;
    double t1 = bench_now();
    if (!limit_writes(c)) return t1 - t0;
    if (bench_clmem_baseline(s->clmem, 1, out, NULL) != 0) return -1;
    return t1 - t0 + (bench_now() - t1) / 2; /* half the copy: the output's write */
}

/* Backend b's run of c, along axis 1 of [outer, n, inner]; the cl_mem rows run on the device's
 * buffers and wait for the result. */
static clmax_status run_op(sweep_env *s, const sweep_cell *c, int b)
{
    clmax_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.type = c->type;
    d.rank = 3;
    d.dims[0] = (int64_t)c->outer, d.dims[1] = (int64_t)c->n, d.dims[2] = (int64_t)c->inner;
    if (b == SW_CLMEM)
        return bench_clmem_run(s->clmem, c->hardmax ? BENCH_HARDMAX : BENCH_ARGMAX, &d, 1, 0);
    if (c->hardmax) {
        clmax_hardmax_attrs a;
        clmax_hardmax_attrs_init(&a, 13);
        a.axis = 1;
        return clmax_hardmax(s->ctx[b], &d, s->x, &a, s->y[b]);
    }
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = 1;
    return clmax_argmax(s->ctx[b], &d, s->x, &a, (int64_t *)s->y[b]);
}

static void print_cell(sweep_env *s, const sweep_cell *c, int b)
{
    uint64_t in = in_bytes(c), out = out_bytes(c);
    fprintf(s->out, "%s,%s,%s,%zu,%llu,%llu,%llu,%llu,%llu,%s%s,", sw_names[b],
            c->hardmax ? "hardmax" : "argmax", clmax_type_name(c->type), clmax_type_size(c->type),
            (unsigned long long)c->outer, (unsigned long long)c->n, (unsigned long long)c->inner,
            (unsigned long long)in, (unsigned long long)out, b == SW_CLMEM ? "device " : "",
            limit_writes(c) ? "read+write" : "read");
}

/* One backend on one cell: a warm-up, then rounds of (limit, operator); the median of the
 * rounds' ratios, as the classes do. Prints the CSV line; returns nonzero on failure. */
static int measure(sweep_env *s, const sweep_cell *c, int b)
{
    int reps = s->o->reps_explicit ? s->o->reps : SWEEP_REPS;
    double op_t[64], lim_t[64], ratio[64];
    if (reps > 64) reps = 64;
    const char *path = sw_names[b];
    for (int i = -1; i < reps; i++) {
        double lim = run_limit(s, c, b);
        double t1 = bench_now();
        clmax_status st = lim < 0 ? CLMAX_ERROR_OPENCL : run_op(s, c, b);
        double t2 = bench_now();
        if (st != CLMAX_OK) {
            fprintf(stderr, "clmax-bench: sweep %s %s [%llu,%llu,%llu] on %s failed: %s\n",
                    c->hardmax ? "hardmax" : "argmax", clmax_type_name(c->type),
                    (unsigned long long)c->outer, (unsigned long long)c->n,
                    (unsigned long long)c->inner, sw_names[b],
                    lim < 0 ? "its baseline failed" : clmax_last_error());
            print_cell(s, c, b);
            fprintf(s->out, ",,nan,\n");
            return 1;
        }
        if (b == SW_AUTO)
            path = clmax_last_call_report()->backend == CLMAX_BACKEND_CPU ? "cpu" : "opencl";
        if (i < 0) continue;
        lim_t[i] = lim;
        op_t[i] = t2 - t1;
        ratio[i] = lim_t[i] / op_t[i];
    }
    if (b == SW_CLMEM && s->o->verify && bench_clmem_download(s->clmem, s->y[b], out_bytes(c)) != 0)
        return 1;
    print_cell(s, c, b);
    fprintf(s->out, "%.9f,%.9f,%.4f,%s\n", bench_median(op_t, reps), bench_median(lim_t, reps),
            bench_median(ratio, reps), path);
    fflush(s->out);
    return 0;
}

/* Every backend on a cell, then their outputs compared bit for bit with the CPU path's. */
static void sweep_cell_run(sweep_env *s, const sweep_cell *c)
{
    int ran[SW_COUNT] = {0};
    bench_progress(s->o, "sweep %s %s [%llu,%llu,%llu]", c->hardmax ? "hardmax" : "argmax",
                   clmax_type_name(c->type), (unsigned long long)c->outer, (unsigned long long)c->n,
                   (unsigned long long)c->inner);
    for (int b = 0; b < SW_COUNT; b++) {
        if (s->ctx[b] == NULL) continue;
        if (measure(s, c, b) != 0)
            s->failed = 1;
        else
            ran[b] = 1;
    }
    s->cells++;
    if (!s->o->verify || !ran[SW_CPU]) return;
    for (int b = SW_OPENCL; b < SW_COUNT; b++)
        if (ran[b] && memcmp(s->y[b], s->y[SW_CPU], (size_t)out_bytes(c)) != 0) {
            fprintf(stderr,
                    "\nclmax-bench: ******** VERIFICATION FAILED ********\n"
                    "clmax-bench: sweep %s %s [%llu,%llu,%llu] axis 1: %s and cpu differ\n\n",
                    c->hardmax ? "hardmax" : "argmax", clmax_type_name(c->type),
                    (unsigned long long)c->outer, (unsigned long long)c->n,
                    (unsigned long long)c->inner, sw_names[b]);
            s->failed = 1;
        }
}

/* The cells of one operator and type: each (n, inner) with outer filling the size, then the few
 * outer slices of large inner. */
static void sweep_type(sweep_env *s, int hardmax, clmax_type t, int quick)
{
    const uint64_t *ns = quick ? quick_n : full_n, *inners = quick ? quick_inner : full_inner;
    size_t nn = quick ? sizeof quick_n / sizeof *quick_n : sizeof full_n / sizeof *full_n;
    size_t ni =
        quick ? sizeof quick_inner / sizeof *quick_inner : sizeof full_inner / sizeof *full_inner;
    if (s->o->sweep_nn) ns = s->o->sweep_n, nn = (size_t)s->o->sweep_nn;
    if (s->o->sweep_ni) inners = s->o->sweep_inner, ni = (size_t)s->o->sweep_ni;
    uint64_t es = clmax_type_size(t), count = s->o->size_bytes / es;
    for (size_t a = 0; a < nn; a++)
        for (size_t b = 0; b < ni; b++) {
            sweep_cell c = {hardmax, t, 0, ns[a], inners[b]};
            if (c.n * c.inner > count) continue;
            c.outer = count / (c.n * c.inner);
            uint64_t max_outputs = s->o->size_bytes / 8 / c.inner; /* index bytes <= size */
            if (!hardmax && c.outer > max_outputs) c.outer = max_outputs;
            if (c.outer == 0) continue;
            sweep_cell_run(s, &c);
            if (c.inner < FEW_OUTER_MIN_INNER) continue;
            for (size_t f = 0; f < sizeof few_outer / sizeof *few_outer; f++) {
                sweep_cell d = c;
                d.outer = few_outer[f];
                if (d.outer < c.outer) sweep_cell_run(s, &d);
            }
        }
}

int bench_sweep(const bench_opts *o, clmax_context *cpu, clmax_context *opencl,
                clmax_context *autox, bench_clmem *clmem)
{
    static const clmax_type types[] = {CLMAX_TYPE_UINT8, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_FLOAT32,
                                       CLMAX_TYPE_FLOAT64};
    sweep_env s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.out = stdout;
    s.threads = o->threads ? o->threads : bench_online_cores();
    s.ctx[SW_CPU] = o->backends[BK_CPU] || o->verify ? cpu : NULL;
    s.ctx[SW_OPENCL] = o->backends[BK_OPENCL] ? opencl : NULL;
    s.ctx[SW_AUTO] = autox;
    s.clmem = clmem;
    s.ctx[SW_CLMEM] = clmem != NULL ? bench_clmem_context(clmem) : NULL;
    s.x = bench_alloc((size_t)o->size_bytes);
    int missing = s.x == NULL;
    for (int b = 0; b < SW_COUNT; b++)
        if (s.ctx[b] != NULL) missing |= (s.y[b] = bench_alloc((size_t)o->size_bytes)) == NULL;
    if (missing) {
        fprintf(stderr, "clmax-bench: cannot allocate the sweep's buffers of %llu MiB\n",
                (unsigned long long)(o->size_bytes >> 20));
        s.failed = 1;
    } else {
        fprintf(s.out, "backend,op,type,elem_bytes,outer,n,inner,in_bytes,out_bytes,limit,op_s,"
                       "limit_s,ratio,path\n");
        for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
            bench_fill(s.x, o->size_bytes / clmax_type_size(types[t]), types[t], s.threads);
            if (clmem != NULL &&
                bench_clmem_prepare(clmem, o->size_bytes, s.x, o->size_bytes, (int)t) != 0) {
                s.ctx[SW_CLMEM] = NULL, s.failed = 1;
                fprintf(stderr, "clmax-bench: the sweep's cl_mem rows stop here\n");
            }
            sweep_type(&s, 0, types[t], o->sweep == 2);
            if (types[t] == CLMAX_TYPE_FLOAT16 || types[t] == CLMAX_TYPE_FLOAT32)
                sweep_type(&s, 1, types[t], o->sweep == 2);
        }
        bench_progress(o, "sweep: %d cells", s.cells);
    }
    bench_free(s.x);
    for (int b = 0; b < SW_COUNT; b++)
        bench_free(s.y[b]);
    return s.failed;
}
