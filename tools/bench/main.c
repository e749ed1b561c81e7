/* clmax-bench: options, contexts, and the run of the selected classes. See docs/PERFORMANCE.md. */
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clmax-bench [options]\n"
            "\n"
            "Throughput of clmax ArgMax and Hardmax per shape class and backend, against a\n"
            "streaming read of the same bytes on the same device in the same run.\n"
            "\n"
            "  --class=LIST       classes to run, e.g. 1,2,8 (default: all)\n"
            "                       1 long rows [N/65536,65536] axis -1\n"
            "                       2 short rows [N/16,16] axis -1\n"
            "                       3 strided [N/65536,65536] axis 0\n"
            "                       4 middle axis [256,N/65536,256] axis 1\n"
            "                       5 one vector [N] axis 0\n"
            "                       6 Hardmax along the last axis and axis 0 (vs read+write)\n"
            "                       7 classes 1-5 for uint8, float16, bfloat16, int64\n"
            "                       8 latency of [1,1000] and [8,32000], the first call, and\n"
            "                         cache-hot logits ([1,151936], [32,128256], [1,1000],\n"
            "                         [64,1000] float32, [1,151936] float16) on cpu, opencl\n"
            "                         and auto against a cache-hot read\n"
            "  --backend=LIST     opencl, cpu, cl_mem, or all of them (default: all)\n"
            "                       opencl  the host-pointer API on the OpenCL device\n"
            "                       cpu     the CPU path\n"
            "                       cl_mem  the enqueue API on buffers already on the OpenCL\n"
            "                               device (what a GPU pipeline sees: no host copies)\n"
            "  --device=SEL       OpenCL device: index or name substring (as CLMAX_DEVICE)\n"
            "  --threads=N        CPU path threads (default: one per online core)\n"
            "  --size=MiB         input size per throughput case (default 256)\n"
            "  --reps=N           timed runs per figure after one warm-up (default 5; without\n"
            "                     --reps, a case slower than 4 s per run gets 3)\n"
            "  --chunk-bytes=N    max_chunk_bytes of every OpenCL context\n"
            "  --chunked[=N]      add a class 1 row with max_chunk_bytes N (default: input/8)\n"
            "  --spawns=N         fresh processes timed for the first-call figure (default 3)\n"
            "  --json, --csv      machine-readable output instead of the table\n"
            "  --sweep[=quick]    the shape sweep instead of the classes: ArgMax (and Hardmax\n"
            "                     on float16/32) over [outer, n, inner] along n for uint8,\n"
            "                     float16, float32, float64, on cpu, opencl, an auto\n"
            "                     context and cl_mem, as CSV against the host's read\n"
            "                     (+write) limit (cl_mem: the device's);\n"
            "                     quick: a smaller grid at --size=64 unless given\n"
            "                     (tools/bench/heatmap.py draws it)\n"
            "  --sweep-n=LIST, --sweep-inner=LIST\n"
            "                     the sweep's reduced lengths and inner sizes instead of the\n"
            "                     default grid, e.g. --sweep-n=1000 --sweep-inner=1,3\n"
            "  --no-verify        skip the bit-for-bit OpenCL vs CPU comparison\n"
            "  --quiet            no progress lines on stderr\n"
            "  --small-pages      host buffers in base pages: without it they are in huge\n"
            "                     pages where the kernel gives them (madvise), as NumPy's\n"
            "                     large arrays are, and the baselines read faster\n"
            "  --help, --version\n"
            "\n"
            "Exit status: 0, or 1 when a run failed or the backends disagreed, 2 for bad usage.\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (s == NULL || *s == '\0' || *s == '-') return 0;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') return 0;
    *v = x;
    return 1;
}

static int parse_int(const char *s, int lo, int hi, int *v)
{
    uint64_t x;
    if (!parse_u64(s, &x) || x < (uint64_t)lo || x > (uint64_t)hi) return 0;
    *v = (int)x;
    return 1;
}

static int parse_classes(const char *s, bench_opts *o)
{
    memset(o->classes, 0, sizeof o->classes);
    if (*s == '\0') return 0; /* an empty list would run nothing */
    while (*s) {
        char *end;
        long c = strtol(s, &end, 10);
        if (end == s || c < 1 || c > BENCH_CLASSES) return 0;
        o->classes[c] = 1;
        s = end;
        if (*s == ',')
            s++;
        else if (*s != '\0')
            return 0;
    }
    return 1;
}

/* "opencl,cpu", "cl_mem", "all", ... */
static int parse_backends(const char *s, bench_opts *o)
{
    memset(o->backends, 0, sizeof o->backends);
    while (*s) {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int bk = 0; bk < BK_COUNT; bk++) {
            int all = len == 3 && strncmp(s, "all", 3) == 0;
            if (all || (strlen(bench_backend_names[bk]) == len &&
                        strncmp(s, bench_backend_names[bk], len) == 0))
                o->backends[bk] = found = 1;
        }
        if (!found) return 0;
        s += len;
        if (*s == ',' && *++s == '\0') return 0;
    }
    for (int bk = 0; bk < BK_COUNT; bk++)
        if (o->backends[bk]) return 1;
    return 0;
}

/* "1,3,1000" into up to 32 positive values. */
static int parse_list(const char *s, uint64_t *out, int *n)
{
    *n = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        char buf[32];
        if (len == 0 || len >= sizeof buf || *n >= 32) return 0;
        memcpy(buf, s, len);
        buf[len] = '\0';
        if (!parse_u64(buf, &out[*n]) || out[*n] == 0) return 0;
        (*n)++;
        s += len;
        if (*s == ',' && *++s == '\0') return 0;
    }
    return *n > 0;
}

static int bad(const char *arg)
{
    fprintf(stderr, "clmax-bench: bad option '%s' (see --help)\n", arg);
    return 2;
}

/* Returns 0 to go on, or an exit status + 1 (so that 0 stays "go on"). */
static int parse_args(int argc, char **argv, bench_opts *o, const char **first_call)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = strchr(a, '=');
        v = v ? v + 1 : NULL;
        uint64_t u;
#define IS(name) (strncmp(a, name "=", sizeof name) == 0)
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--version") == 0) {
            printf("clmax-bench %s\n", clmax_version_string());
            return 1;
        } else if (IS("--class")) {
            if (!parse_classes(v, o)) return bad(a) + 1;
        } else if (IS("--backend")) {
            if (!parse_backends(v, o)) return bad(a) + 1;
        } else if (IS("--device")) {
            o->device = v;
        } else if (IS("--threads")) {
            if (!parse_int(v, 0, 256, &o->threads)) return bad(a) + 1;
        } else if (IS("--size")) {
            if (!parse_u64(v, &u) || u < 1 || u > (1ull << 24)) return bad(a) + 1;
            o->size_bytes = u << 20;
            o->size_explicit = 1;
        } else if (IS("--reps")) {
            if (!parse_int(v, 1, 1000, &o->reps)) return bad(a) + 1;
            o->reps_explicit = 1;
        } else if (IS("--chunk-bytes")) {
            if (!parse_u64(v, &o->chunk_bytes) || o->chunk_bytes == 0) return bad(a) + 1;
        } else if (strcmp(a, "--chunked") == 0) {
            o->chunked = 1;
        } else if (IS("--chunked")) {
            if (!parse_u64(v, &o->chunked_bytes) || o->chunked_bytes == 0) return bad(a) + 1;
            o->chunked = 1;
        } else if (IS("--spawns")) {
            if (!parse_int(v, 1, 64, &o->first_call_spawns)) return bad(a) + 1;
        } else if (strcmp(a, "--sweep") == 0) {
            o->sweep = 1;
        } else if (IS("--sweep")) {
            if (strcmp(v, "quick") != 0) return bad(a) + 1;
            o->sweep = 2;
        } else if (IS("--sweep-n")) {
            if (!parse_list(v, o->sweep_n, &o->sweep_nn)) return bad(a) + 1;
        } else if (IS("--sweep-inner")) {
            if (!parse_list(v, o->sweep_inner, &o->sweep_ni)) return bad(a) + 1;
        } else if (strcmp(a, "--json") == 0) {
            o->format = BENCH_JSON;
        } else if (strcmp(a, "--csv") == 0) {
            o->format = BENCH_CSV;
        } else if (strcmp(a, "--no-verify") == 0) {
            o->verify = 0;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
        } else if (strcmp(a, "--small-pages") == 0) {
            o->small_pages = 1;
        } else if (IS("--first-call")) { /* hidden: the child of the first-call figure */
            if (strcmp(v, "opencl") != 0 && strcmp(v, "cpu") != 0) return bad(a) + 1;
            *first_call = v;
        } else {
            return bad(a) + 1;
        }
#undef IS
    }
    return 0;
}

static clmax_context *make_context(const bench_opts *o, clmax_backend backend, int loud)
{
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.backend = backend;
    opt.device = o->device;
    opt.num_threads = o->threads;
    opt.max_chunk_bytes = o->chunk_bytes;
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(&opt, &ctx);
    if (st != CLMAX_OK) {
        if (loud)
            fprintf(stderr, "clmax-bench: no %s context: %s\n",
                    backend == CLMAX_BACKEND_CPU ? "CPU" : "OpenCL", clmax_last_error());
        return NULL;
    }
    if (backend == CLMAX_BACKEND_AUTO) {
        /* Auto's rows time its choices, not the calls made while its cost is still being
         * measured in the background: the prebuild measures it first and waits. */
        const clmax_type f32 = CLMAX_TYPE_FLOAT32;
        clmax_prebuild_options po;
        clmax_prebuild_options_init(&po);
        po.types = &f32;
        po.ntypes = 1;
        po.operators = CLMAX_PREBUILD_ARGMAX;
        if (clmax_context_prebuild(ctx, &po, NULL) != CLMAX_OK && loud)
            fprintf(stderr, "clmax-bench: auto's warm-up failed: %s\n", clmax_last_error());
    }
    return ctx;
}

/* --sweep: the CPU path, the OpenCL device where there is one, an auto context, and the device's
 * own buffers where they hold --size (--backend=cl_mem, or all). */
static int run_sweep(bench_opts *o)
{
    if (o->sweep == 2 && !o->size_explicit) o->size_bytes = 64ull << 20;
    clmax_context *cpu = make_context(o, CLMAX_BACKEND_CPU, 1);
    if (cpu == NULL) return 1;
    int want_cl = o->backends[BK_OPENCL] || o->backends[BK_CLMEM];
    clmax_context *cl = want_cl ? make_context(o, CLMAX_BACKEND_OPENCL, 1) : NULL;
    clmax_context *autox = make_context(o, CLMAX_BACKEND_AUTO, 1);
    if (cl == NULL && want_cl)
        fprintf(stderr, "clmax-bench: note: no OpenCL device, the sweep has no opencl rows\n");
    int rc = 0;
    bench_cl *probe = NULL;
    bench_clmem *clmem = NULL;
    if (cl != NULL && o->backends[BK_CLMEM]) {
        probe = bench_cl_create(cl, o->device);
        clmem = probe != NULL ? bench_clmem_create(probe, o) : NULL;
        rc = clmem == NULL;
        if (clmem != NULL && !bench_clmem_fits(clmem, o->size_bytes)) {
            fprintf(stderr, "clmax-bench: note: no cl_mem rows: --size is more than the device's "
                            "largest buffer\n");
            bench_clmem_destroy(clmem);
            clmem = NULL;
        }
    }
    if (autox == NULL) rc = 1;
    if (autox != NULL) rc |= bench_sweep(o, cpu, o->backends[BK_OPENCL] ? cl : NULL, autox, clmem);
    bench_clmem_destroy(clmem);
    bench_cl_destroy(probe);
    clmax_context_destroy(autox);
    clmax_context_destroy(cl);
    clmax_context_destroy(cpu);
    if (rc != 0) fprintf(stderr, "clmax-bench: some sweep runs failed or disagreed (see above)\n");
    return rc;
}

/* The path of this executable, to spawn it for the first-call figure. */
static const char *self_path(const char *argv0, char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n > 0) {
        buf[n] = '\0';
        return buf;
    }
    return strchr(argv0, '/') ? argv0 : NULL;
}

int main(int argc, char **argv)
{
    bench_opts o;
    memset(&o, 0, sizeof o);
    o.size_bytes = 256ull << 20;
    o.reps = 5;
    for (int c = 1; c <= BENCH_CLASSES; c++)
        o.classes[c] = 1;
    o.backends[BK_OPENCL] = o.backends[BK_CPU] = o.backends[BK_CLMEM] = 1;
    o.verify = 1;
    o.first_call_spawns = 3;
    const char *first_call = NULL;
    int rc = parse_args(argc, argv, &o, &first_call);
    if (rc != 0) return rc - 1;
    bench_set_huge_pages(!o.small_pages);
    if (first_call != NULL) return bench_first_call_child(&o, first_call);
    if (o.sweep) return run_sweep(&o);

    static bench_env e;
    static bench_case cases[BENCH_MAX_ROWS];
    static bench_row rows[BENCH_MAX_ROWS];
    int nrows = 0, status = 0;
    e.o = &o;
    e.cpu_threads = o.threads ? o.threads : bench_online_cores();

    /* The CPU context always exists: it is the reference the OpenCL outputs are checked against. */
    e.ctx[BK_CPU] = make_context(&o, CLMAX_BACKEND_CPU, 1);
    if (e.ctx[BK_CPU] == NULL) return 1;
    int want_cl = o.backends[BK_OPENCL] || o.backends[BK_CLMEM];
    if (want_cl || o.verify) {
        /* Unless the OpenCL rows alone or --device ask for a device, a missing one is not an
         * error: the CPU rows alone are reported. */
        int required = want_cl && (!o.backends[BK_CPU] || o.device != NULL);
        e.ctx[BK_OPENCL] = make_context(&o, CLMAX_BACKEND_OPENCL, want_cl);
        if (e.ctx[BK_OPENCL] == NULL && required) return 1;
        if (e.ctx[BK_OPENCL] == NULL && want_cl)
            fprintf(stderr, "clmax-bench: measuring the CPU path only\n");
        if (e.ctx[BK_OPENCL] == NULL && o.verify)
            fprintf(stderr, "clmax-bench: note: no OpenCL device, outputs are not cross-checked\n");
    }
    if (e.ctx[BK_OPENCL] && want_cl) {
        e.cl = bench_cl_create(e.ctx[BK_OPENCL], o.device);
        if (e.cl == NULL) {
            fprintf(stderr, "clmax-bench: the OpenCL baseline is unavailable\n");
            status = 1;
        }
    }
    if (e.cl && o.backends[BK_CLMEM]) {
        e.clmem = bench_clmem_create(e.cl, &o);
        if (e.clmem == NULL)
            status = 1;
        else {
            e.ctx[BK_CLMEM] = bench_clmem_context(e.clmem);
            /* Not a failure: the enqueue API takes one buffer per tensor and the device has none
             * this large. Class 8's cl_mem rows still run. */
            if (!bench_clmem_fits(e.clmem, o.size_bytes))
                fprintf(stderr,
                        "clmax-bench: note: no cl_mem throughput rows: --size=%llu is more than "
                        "the device's largest buffer (%llu MiB)\n",
                        (unsigned long long)(o.size_bytes >> 20),
                        (unsigned long long)(bench_cl_max_alloc(e.cl) >> 20));
        }
    }
    for (const char *const *v =
             (const char *const[]){"CLMAX_DEVICE", "CLMAX_MAX_CHUNK_BYTES", "CLMAX_PLAN",
                                   "CLMAX_STRATEGY", "CLMAX_CACHE_DIR", NULL};
         *v; v++)
        if (getenv(*v)) bench_progress(&o, "note: %s=%s is set", *v, getenv(*v));

    int ncases = bench_cases(&o, cases, BENCH_MAX_ROWS / 2);
    if (ncases > 0) {
        int missing = (e.x = bench_alloc((size_t)o.size_bytes)) == NULL, outputs = 0;
        for (int bk = 0; bk < BK_COUNT; bk++) {
            if (e.ctx[bk] == NULL) continue;
            /* cl_mem rows that do not fit the device are left out: no output for them */
            if (bk == BK_CLMEM && !bench_clmem_fits(e.clmem, o.size_bytes)) continue;
            missing |= (e.y[bk] = bench_alloc((size_t)o.size_bytes)) == NULL;
            outputs++;
        }
        if (missing) {
            fprintf(stderr, "clmax-bench: cannot allocate the input and %d outputs of %llu MiB\n",
                    outputs, (unsigned long long)(o.size_bytes >> 20));
            return 1;
        }
        e.host_bytes = o.size_bytes * (uint64_t)(1 + outputs);
        e.host_huge = bench_huge_page_bytes();
        if (e.host_huge > e.host_bytes) e.host_huge = e.host_bytes; /* the process's others */
    }
    for (int i = 0; i < ncases; i++)
        if (bench_run_case(&e, &cases[i], rows, &nrows) != 0) status = 1;
    if (o.classes[8]) {
        char buf[4096];
        if (bench_run_latency(&e, self_path(argv[0], buf, sizeof buf), rows, &nrows) != 0)
            status = 1;
        clmax_context *autox = make_context(&o, CLMAX_BACKEND_AUTO, 1);
        if (autox == NULL || bench_run_hot(&e, autox, rows, &nrows) != 0) status = 1;
        clmax_context_destroy(autox);
    }

    bench_report(&o, &e, rows, nrows);
    if (status != 0) fprintf(stderr, "clmax-bench: some runs failed or disagreed (see above)\n");

    bench_clmem_destroy(e.clmem); /* and its context, e.ctx[BK_CLMEM] */
    bench_cl_destroy(e.cl);
    clmax_context_destroy(e.ctx[BK_OPENCL]);
    clmax_context_destroy(e.ctx[BK_CPU]);
    bench_free(e.x);
    for (int bk = 0; bk < BK_COUNT; bk++)
        bench_free(e.y[bk]);
    return status;
}
