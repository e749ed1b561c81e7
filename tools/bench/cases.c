/* The throughput cases (classes 1 to 7) and how one is measured: for each backend, a warm-up,
 * then reps rounds of (baseline, operator), each timed alone; medians of the times and of the
 * per-round ratios; then the two backends' outputs compared bit for bit. Interleaving the baseline
 * with the operator keeps both under the same conditions on a shared machine. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#define TARGET_RATIO 0.75       /* classes 1-5: operator / streaming read */
#define TARGET_RATIO_RW 0.60    /* class 6: Hardmax / read+write */
#define TARGET_RATIO_TYPES 0.60 /* class 7 */
#define SLOW_CASE_S 4.0         /* a warm-up slower than this (operator + baseline)... */
#define SLOW_REPS 3             /* ...gets this many timed runs, unless --reps was given */

static const char *const shape_names[6] = {"",        "long rows",   "short rows",
                                           "strided", "middle axis", "one vector"};

/* The shape of classes 1-5 for count elements (a multiple of 65536). */
static void shape_of(int shape, uint64_t count, bench_case *c)
{
    int64_t n = (int64_t)count;
    switch (shape) {
    case 1:
        c->rank = 2, c->dims[0] = n / 65536, c->dims[1] = 65536, c->axis = -1;
        break;
    case 2:
        c->rank = 2, c->dims[0] = n / 16, c->dims[1] = 16, c->axis = -1;
        break;
    case 3:
        c->rank = 2, c->dims[0] = n / 65536, c->dims[1] = 65536, c->axis = 0;
        break;
    case 4:
        c->rank = 3, c->dims[0] = 256, c->dims[1] = n / 65536, c->dims[2] = 256, c->axis = 1;
        break;
    default:
        c->rank = 1, c->dims[0] = n, c->axis = 0;
        break;
    }
}

static uint64_t count_for(const bench_opts *o, clmax_type t)
{
    uint64_t n = o->size_bytes / clmax_type_size(t) / 65536 * 65536;
    return n ? n : 65536;
}

static int add(bench_case *cases, int *n, int max, bench_case c)
{
    if (*n >= max) return 0;
    cases[(*n)++] = c;
    return 1;
}

int bench_cases(const bench_opts *o, bench_case *cases, int max)
{
    int n = 0;
    uint64_t nf = count_for(o, CLMAX_TYPE_FLOAT32);
    for (int s = 1; s <= 5; s++) {
        if (!o->classes[s]) continue;
        bench_case c = {s, shape_names[s], BENCH_ARGMAX, CLMAX_TYPE_FLOAT32, 0, {0}, 0, 0};
        shape_of(s, nf, &c);
        add(cases, &n, max, c);
        if (s == 1 || s == 3) {
            /* The fused values + indices call reads the same bytes as ArgMax alone. */
            bench_case v = c;
            v.name = s == 1 ? "long rows +values" : "strided +values";
            v.op = BENCH_MAXIDX;
            add(cases, &n, max, v);
        }
        if (s == 4) {
            /* A middle axis with few lanes (channels-last data with 4 channels, say): each row
             * is 16 bytes, which the backends take as wide rows (host/narrow.c). */
            bench_case f = c;
            f.name = "middle, 4 lanes";
            f.dims[0] = 64, f.dims[1] = (int64_t)(nf / 256), f.dims[2] = 4;
            add(cases, &n, max, f);
        }
        if (s == 1 && o->chunked && o->backends[BK_OPENCL]) {
            c.name = "chunked";
            c.chunk = o->chunked_bytes ? o->chunked_bytes : nf * 4 / 8;
            add(cases, &n, max, c);
        }
    }
    if (o->classes[6]) {
        for (int s = 1; s <= 3; s += 2) {
            bench_case c = {6,
                            s == 1 ? "hardmax last axis" : "hardmax axis 0",
                            BENCH_HARDMAX,
                            CLMAX_TYPE_FLOAT32,
                            0,
                            {0},
                            0,
                            0};
            shape_of(s, nf, &c);
            add(cases, &n, max, c);
        }
    }
    if (o->classes[7]) {
        static const clmax_type types[] = {CLMAX_TYPE_UINT8, CLMAX_TYPE_FLOAT16,
                                           CLMAX_TYPE_BFLOAT16, CLMAX_TYPE_INT64};
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            for (int s = 1; s <= 5; s++) {
                bench_case c = {7, shape_names[s], BENCH_ARGMAX, types[t], 0, {0}, 0, 0};
                shape_of(s, count_for(o, types[t]), &c);
                add(cases, &n, max, c);
            }
        }
    }
    return n;
}

static uint64_t case_count(const bench_case *c)
{
    uint64_t n = 1;
    for (int d = 0; d < c->rank; d++)
        n *= (uint64_t)c->dims[d];
    return n;
}

static uint64_t output_bytes(const bench_case *c)
{
    uint64_t count = case_count(c);
    if (c->op == BENCH_HARDMAX) return count * clmax_type_size(c->type);
    int a = (int)(c->axis < 0 ? c->axis + c->rank : c->axis);
    uint64_t outputs = count / (uint64_t)c->dims[a];
    return outputs * (c->op == BENCH_MAXIDX ? 8 + clmax_type_size(c->type) : 8);
}

static void case_desc(const bench_case *c, clmax_tensor_desc *d)
{
    memset(d, 0, sizeof *d);
    d->type = c->type;
    d->rank = c->rank;
    for (int i = 0; i < c->rank; i++)
        d->dims[i] = c->dims[i];
}

/* One call of the operator on backend bk: through the host API on ctx (x and y host memory), or
 * for the cl_mem rows enqueued on the device buffers that already hold the input. */
static clmax_status run_op(bench_env *e, int bk, clmax_context *ctx, const bench_case *c,
                           const void *x, void *y)
{
    clmax_tensor_desc d;
    case_desc(c, &d);
    /* max_with_indices: the indices first, then the values (output_bytes) */
    int axis = (int)(c->axis < 0 ? c->axis + c->rank : c->axis);
    uint64_t outputs = case_count(c) / (uint64_t)c->dims[axis];
    if (bk == BK_CLMEM) return bench_clmem_run(e->clmem, c->op, &d, c->axis, outputs * 8);
    if (c->op == BENCH_HARDMAX) {
        clmax_hardmax_attrs a;
        clmax_hardmax_attrs_init(&a, 13);
        a.axis = c->axis;
        return clmax_hardmax(ctx, &d, x, &a, y);
    }
    clmax_argmax_attrs a;
    clmax_argmax_attrs_init(&a, 13);
    a.axis = c->axis;
    if (c->op == BENCH_MAXIDX)
        return clmax_max_with_indices(ctx, &d, x, &a, (int64_t *)y + outputs, (int64_t *)y);
    return clmax_argmax(ctx, &d, x, &a, (int64_t *)y);
}

/* One run of the baseline of backend bk: the streaming read, or for Hardmax the read+write. */
static int run_baseline(bench_env *e, int bk, const bench_case *c, uint64_t bytes, void *y)
{
    uint64_t sum = 0;
    int rw = c->op == BENCH_HARDMAX;
    if (bk == BK_CLMEM) {
        if (bench_clmem_baseline(e->clmem, rw, bytes, &sum) != 0) return 1;
        if (rw) return 0;
    } else if (rw) {
        if (bk == BK_CPU) {
            bench_cpu_copy(e->x, y, bytes, e->cpu_threads);
            return 0;
        }
        return bench_cl_copy(e->cl, e->x, y, bytes);
    } else if (bk == BK_CPU) {
        sum = bench_cpu_read(e->x, bytes, e->cpu_threads);
    } else if (bench_cl_read(e->cl, e->x, bytes, &sum) != 0) {
        return 1;
    }
    if (sum != e->word_sum) {
        fprintf(stderr,
                "clmax-bench: ERROR: the %s streaming read summed %016llx, expected %016llx\n",
                bk == BK_CPU ? "CPU" : "OpenCL", (unsigned long long)sum,
                (unsigned long long)e->word_sum);
        return 1;
    }
    return 0;
}

static void row_init(bench_row *r, const bench_case *c, int bk, uint64_t bytes)
{
    memset(r, 0, sizeof *r);
    r->cls = c->cls;
    snprintf(r->name, sizeof r->name, "%s", c->name);
    bench_shape_string(c, r->shape, sizeof r->shape);
    snprintf(r->type, sizeof r->type, "%s", clmax_type_name(c->type));
    snprintf(r->op, sizeof r->op, "%s",
             c->op == BENCH_HARDMAX  ? "hardmax"
             : c->op == BENCH_MAXIDX ? "max+idx"
                                     : "argmax");
    r->axis = c->axis;
    r->backend = bench_backend_names[bk];
    r->bytes = bytes;
    r->target = c->cls == 6 ? TARGET_RATIO_RW : c->cls == 7 ? TARGET_RATIO_TYPES : TARGET_RATIO;
    if (c->op == BENCH_HARDMAX) snprintf(r->note, sizeof r->note, "baseline: read+write");
}

/* The context a case runs on: the shared one, or for the chunked row a fresh OpenCL context with
 * the chunk limit. */
static clmax_context *case_context(bench_env *e, const bench_case *c, int bk)
{
    if (c->chunk == 0 || bk != BK_OPENCL) return e->ctx[bk];
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.backend = CLMAX_BACKEND_OPENCL;
    opt.device = e->o->device;
    opt.max_chunk_bytes = c->chunk;
    clmax_context *ctx = NULL;
    if (clmax_context_create(&opt, &ctx) != CLMAX_OK) {
        fprintf(stderr, "clmax-bench: OpenCL context for the chunked row: %s\n",
                clmax_last_error());
        return NULL;
    }
    return ctx;
}

static int measure(bench_env *e, const bench_case *c, int bk, uint64_t bytes, bench_row *r)
{
    const bench_opts *o = e->o;
    clmax_context *ctx = case_context(e, c, bk);
    double op_t[1024], base_t[1024];
    int reps = o->reps > 1024 ? 1024 : o->reps, rc = 0;
    if (ctx == NULL) return 1;
    if (bk == BK_CLMEM &&
        bench_clmem_prepare(e->clmem, o->size_bytes, e->x, bytes, e->fill_gen) != 0) {
        r->failed = 1;
        return 1;
    }
    for (int i = -1; i < reps && rc == 0; i++) { /* i == -1: the warm-up */
        if (i == 0 && !o->reps_explicit && reps > SLOW_REPS && op_t[0] + base_t[0] > SLOW_CASE_S) {
            reps = SLOW_REPS; /* keeps the default run to minutes while a path is slow */
            size_t len = strlen(r->note);
            snprintf(r->note + len, sizeof r->note - len, "%s%d runs (slow)", len ? "; " : "",
                     reps);
        }
        double t0 = bench_now();
        if (run_baseline(e, bk, c, bytes, e->y[bk]) != 0) {
            rc = 1;
            break;
        }
        double t1 = bench_now();
        clmax_status st = run_op(e, bk, ctx, c, e->x, e->y[bk]);
        double t2 = bench_now();
        if (st != CLMAX_OK) {
            fprintf(stderr, "clmax-bench: %s %s %s on %s failed: %s: %s\n", r->op, r->type,
                    r->shape, r->backend, clmax_status_string(st), clmax_last_error());
            rc = 1;
            break;
        }
        base_t[i < 0 ? 0 : i] = t1 - t0;
        op_t[i < 0 ? 0 : i] = t2 - t1;
    }
    if (ctx != e->ctx[bk]) clmax_context_destroy(ctx);
    if (rc != 0) {
        r->failed = 1;
        return 1;
    }
    /* The ratio is the median of each pair's ratio, not the ratio of the medians: on a shared
     * machine the load drifts during a case, and a pair sees the same load. */
    double ratio[1024];
    for (int i = 0; i < reps; i++)
        ratio[i] = base_t[i] / op_t[i];
    r->ratio = bench_median(ratio, reps);
    r->op_s = bench_median(op_t, reps);
    r->base_s = bench_median(base_t, reps);
    r->op_gbs = (double)bytes / r->op_s * 1e-9;
    r->base_gbs = (double)bytes / r->base_s * 1e-9;
    return 0;
}

int bench_run_case(bench_env *e, const bench_case *c, bench_row *rows, int *nrows)
{
    const bench_opts *o = e->o;
    uint64_t count = case_count(c), bytes = count * clmax_type_size(c->type);
    uint64_t out_bytes = output_bytes(c);
    char shape[48];
    bench_shape_string(c, shape, sizeof shape);

    if (e->filled != c->type || e->filled_count != count) {
        bench_progress(o, "filling %llu MiB of random %s", (unsigned long long)(bytes >> 20),
                       clmax_type_name(c->type));
        bench_fill(e->x, count, c->type, e->cpu_threads);
        e->word_sum = bench_cpu_read(e->x, bytes, e->cpu_threads);
        e->filled = c->type;
        e->filled_count = count;
        e->fill_gen++;
    }

    int have[BK_COUNT] = {0}, failed = 0;
    for (int bk = 0; bk < BK_COUNT; bk++) {
        if (!o->backends[bk] || e->ctx[bk] == NULL) continue;
        if (c->chunk && bk != BK_OPENCL) continue; /* the CPU path has no chunks */
        if (bk == BK_OPENCL && e->cl == NULL) continue;
        if (bk == BK_CLMEM && !bench_clmem_fits(e->clmem, o->size_bytes)) continue; /* noted */
        bench_row *r = &rows[*nrows];
        row_init(r, c, bk, bytes);
        if (c->chunk)
            snprintf(r->note, sizeof r->note, "max_chunk_bytes=%llu", (unsigned long long)c->chunk);
        bench_progress(o, "class %d %s %s %s axis %lld on %s", c->cls, c->name, r->type, shape,
                       (long long)c->axis, r->backend);
        if (measure(e, c, bk, bytes, r) == 0)
            have[bk] = 1;
        else
            failed = 1;
        (*nrows)++;
    }
    if (!o->verify) return failed;

    /* The host-pointer backends run once if they were not measured, so that every case is
     * checked; the cl_mem output is copied back. */
    for (int bk = 0; bk < BK_COUNT; bk++) {
        if (bk == BK_CLMEM && have[bk] && bench_clmem_download(e->clmem, e->y[bk], out_bytes) != 0)
            return 1;
        if (bk == BK_CLMEM || have[bk] || e->ctx[bk] == NULL) continue;
        if (run_op(e, bk, e->ctx[bk], c, e->x, e->y[bk]) != CLMAX_OK) {
            fprintf(stderr, "clmax-bench: verification run on %s failed: %s\n",
                    bench_backend_names[bk], clmax_last_error());
            return 1;
        }
        have[bk] = 1;
    }
    for (int bk = 0; bk < BK_COUNT; bk++) {
        if (bk == BK_CPU || !have[bk] || !have[BK_CPU]) continue;
        if (memcmp(e->y[bk], e->y[BK_CPU], (size_t)out_bytes) == 0) continue;
        uint64_t i = 0;
        const unsigned char *a = e->y[bk], *b = e->y[BK_CPU];
        while (a[i] == b[i])
            i++;
        fprintf(stderr,
                "\nclmax-bench: ******** VERIFICATION FAILED ********\n"
                "clmax-bench: %s %s %s axis %lld: %s and CPU outputs differ (first at output "
                "byte %llu of %llu)\n\n",
                c->op == BENCH_HARDMAX  ? "Hardmax"
                : c->op == BENCH_MAXIDX ? "max_with_indices"
                                        : "ArgMax",
                clmax_type_name(c->type), shape, (long long)c->axis,
                bk == BK_CLMEM ? "cl_mem (enqueue API)" : "OpenCL", (unsigned long long)i,
                (unsigned long long)out_bytes);
        return 1;
    }
    return failed;
}
