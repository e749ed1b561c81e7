/* Every kernel and plan of the OpenCL backend on small shapes, made to run under the Oclgrind
 * simulator (tests/oclgrind/run.sh), whose reports of invalid accesses, data races, uninitialised
 * values and API misuse fail the test. Each configuration (forced strategy, CLMAX_PLAN, chunk
 * size) runs every operator, host-memory and enqueued (int32 indices too), and must give the CPU
 * path's bytes. Plain C: the Criterion runner's worker processes would multiply the simulator's
 * start-up cost.
 *
 * Usage: oclgrind_plans CACHE_DIR [--quick]   (--quick: the first configuration only) */
#define CL_TARGET_OPENCL_VERSION 120
#include "clmax.h"
#include "clmax_cl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct config {
    clmax_strategy strategy;
    const char *plan;   /* CLMAX_PLAN */
    uint64_t max_chunk; /* max_chunk_bytes (0: the device's) */
    int all_types;      /* every type, else a few of each width */
    const char *what;
} config;

/* Oclgrind claims the CPU kind among others, so "auto" plans as a CPU device; "gpu" as a
 * discrete one. The chunked ones cut each input into pieces of a few rows. */
static const config g_configs[] = {
    {CLMAX_STRATEGY_AUTO, "auto", 0, 1, "auto, planned as a CPU device"},
    {CLMAX_STRATEGY_ROWS, "auto", 0, 0, "rows forced"},
    {CLMAX_STRATEGY_STRIDED, "auto", 0, 0, "strided forced"},
    {CLMAX_STRATEGY_SPLIT, "auto", 0, 0, "split forced"},
    {CLMAX_STRATEGY_AUTO, "auto", 2048, 0, "auto, 2 KiB chunks"},
    {CLMAX_STRATEGY_AUTO, "gpu", 0, 1, "auto, planned as a discrete GPU"},
    {CLMAX_STRATEGY_ROWS, "gpu", 0, 0, "GPU plan, rows forced"},
    {CLMAX_STRATEGY_SPLIT, "gpu", 0, 0, "GPU plan, split forced"},
    {CLMAX_STRATEGY_AUTO, "gpu", 2048, 0, "GPU plan, 2 KiB chunks"},
};

static const clmax_type g_all_types[] = {
    CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_FLOAT64, CLMAX_TYPE_BFLOAT16,
    CLMAX_TYPE_INT8,    CLMAX_TYPE_UINT8,   CLMAX_TYPE_INT16,   CLMAX_TYPE_UINT16,
    CLMAX_TYPE_INT32,   CLMAX_TYPE_UINT32,  CLMAX_TYPE_INT64,   CLMAX_TYPE_UINT64};
static const clmax_type g_some_types[] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16,
                                          CLMAX_TYPE_FLOAT64, CLMAX_TYPE_INT8};

/* Shapes and the axis, each for elements of lo to hi bytes, in the configurations where says:
 * contiguous rows short and long (split by the planner on its own; rows of 80 still 16 to a
 * work-item on CPU devices, the last item's short), strided axes, a strided axis with three
 * lanes (the narrow merge: 4-byte types), short slices of fewer lanes than a vector
 * (SLICES_SHORT: many to a work-item, the last item's short, by packed vectors with the lanes
 * dividing one or not (3 and 7 lanes in slices of at least VW * VW / 2 elements: a last vector
 * folded on its own), or one a work-item: by packed vectors, or for 64-bit keys through its
 * buffer in parts; or rows of whole vectors of lanes, 32 lanes of one to four bytes), tiles wider
 * than a lane block (STRIDED_WIDE, with run.sh's local memory; a block is 8 KiB of each row), and a
 * strided axis a GPU plan cuts into 32 segments or more (the work-group combine, with run.sh's 8
 * compute units).
 */
enum { EVERY = 0, GPU_PLANS = 1, CPU_AUTO = 2 };

typedef struct shape {
    int rank;
    int64_t dims[3];
    int axis;
    size_t lo, hi;
    int where;
} shape;

static const shape g_shapes[] = {
    {2, {5, 40}, 1, 1, 8, EVERY},
    {2, {3, 700}, 1, 1, 8, EVERY},
    {2, {17, 80}, 1, 1, 8, CPU_AUTO}, /* CPU devices: 16 rows past a vector a work-item */
    /* rows shorter than a vector, a vector a row: the last full item's reads end in the box
     * (40 rows), or would not (32 rows: that item takes the key buffer) */
    {2, {40, 5}, 1, 1, 4, CPU_AUTO},
    {2, {32, 7}, 1, 1, 4, CPU_AUTO},
    {2, {35, 2}, 1, 1, 4, CPU_AUTO}, /* rows of two: odd lanes against even ones */
    {2, {33, 4}, 1, 1, 2, CPU_AUTO}, /* rows of four and eight: vectors reduced by neighbours */
    {2, {40, 8}, 1, 1, 2, CPU_AUTO},
    {3, {13, 2, 4}, 1, 1, 4, CPU_AUTO}, /* and slices of two rows of 4 lanes */
    {3, {2, 50, 33}, 1, 1, 8, EVERY},
    {2, {60, 7}, 0, 1, 8, EVERY},
    {1, {1}, 0, 1, 8, EVERY},
    {3, {3, 2, 1}, 2, 1, 8, EVERY},
    {2, {1, 9000}, 1, 4, 4, EVERY},
    {3, {1, 4096, 3}, 1, 4, 4, EVERY},
    {3, {2, 3, 2100}, 1, 4, 8, CPU_AUTO},
    {3, {1, 2, 4200}, 1, 2, 2, CPU_AUTO},
    {3, {1, 2, 8300}, 1, 1, 1, CPU_AUTO},
    {3, {1, 8192, 9}, 1, 4, 4, GPU_PLANS},
    {3, {150, 4, 2}, 1, 1, 8, EVERY},
    {3, {20, 10, 4}, 1, 1, 4, EVERY},
    {3, {5, 700, 3}, 1, 2, 8, CPU_AUTO},
    {3, {40, 12, 3}, 1, 4, 4, CPU_AUTO},
    {3, {30, 6, 7}, 1, 4, 4, CPU_AUTO},
    {3, {12, 50, 3}, 1, 1, 2, CPU_AUTO},
    {3, {12, 20, 7}, 1, 1, 2, CPU_AUTO},
    {3, {37, 5, 32}, 1, 1, 4, CPU_AUTO},
    /* slices of 2 to VW / 2 lanes a group at a time, rows read a slot wide but at the box's end */
    {3, {19, 3, 3}, 1, 1, 4, CPU_AUTO},
    {3, {11, 4, 5}, 1, 1, 2, CPU_AUTO},
    {3, {10, 2, 6}, 1, 1, 2, CPU_AUTO},
};
static int g_failures;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "oclgrind_plans: " __VA_ARGS__);                                           \
        fputc('\n', stderr);                                                                       \
        g_failures++;                                                                              \
    } while (0)

/* Values with ties, the type's extremes and, for floats, NaN, infinities and signed zeros. */
static void fill(clmax_type type, unsigned char *x, uint64_t count, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    size_t size = clmax_type_size(type);
    for (uint64_t i = 0; i < count; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(s >> 33);
        unsigned char *e = x + i * size;
        uint64_t bits = r % 7;                                   /* small values: many ties */
        if (r % 97 == 0) bits = ~(uint64_t)0 >> (64 - 8 * size); /* all ones: NaN, -1, max */
        if (r % 89 == 0) bits = (uint64_t)1 << (8 * size - 1);   /* -0, min */
        if (type == CLMAX_TYPE_FLOAT32 && r % 83 == 0) bits = 0x7F800000;      /* +inf */
        if (type == CLMAX_TYPE_FLOAT16 && r % 83 == 0) bits = 0x7C00;          /* +inf */
        if (type == CLMAX_TYPE_FLOAT64 && r % 83 == 0) bits = 0xFFF0ull << 48; /* -inf */
        if (r % 5 == 0) bits = (uint64_t)(r >> 8) & (~(uint64_t)0 >> (64 - 8 * size));
        memcpy(e, &bits, size); /* little-endian host: the low bytes */
    }
}

static int is_float(clmax_type t)
{
    return t == CLMAX_TYPE_FLOAT32 || t == CLMAX_TYPE_FLOAT16 || t == CLMAX_TYPE_FLOAT64 ||
           t == CLMAX_TYPE_BFLOAT16;
}

static void compare(const char *what, const void *got, const void *want, size_t bytes)
{
    if (memcmp(got, want, bytes) != 0) FAIL("%s: differs from the CPU path", what);
}

static int check_status(clmax_status st, const char *what)
{
    if (st == CLMAX_OK) return 1;
    FAIL("%s: %s: %s", what, clmax_status_string(st), clmax_last_error());
    return 0;
}

/* A call on the device's context succeeded, and its report says the device computed it; or
 * along an axis of one (axis_one), the CPU path, which writes those answers without reading the
 * input (the enqueued forms below still run the device there). */
static int on_device(clmax_status st, const char *what, int axis_one)
{
    if (!check_status(st, what)) return 0;
    const clmax_call_report *r = clmax_last_call_report();
    if (axis_one) {
        if (r->backend != CLMAX_BACKEND_CPU || strstr(r->choice, "axis of one") == NULL)
            FAIL("%s: an axis of one not answered by the CPU path (%s)", what, r->choice);
    } else if (r->backend != CLMAX_BACKEND_OPENCL || r->fallback_status != CLMAX_OK)
        FAIL("%s: not computed by the OpenCL device (%s)", what, r->fallback_message);
    return 1;
}

/* The enqueued forms on ctx's own OpenCL objects: ArgMax with int32 indices, MaxWithIndices
 * with int64 ones, and Hardmax, against the host-memory answers. */
static void enqueued(clmax_context *ctx, const clmax_tensor_desc *d, const unsigned char *x,
                     uint64_t count, const clmax_argmax_attrs *aa, const int64_t *want_idx,
                     const unsigned char *want_vals, uint64_t nout, const unsigned char *want_hard,
                     const char *what)
{
    cl_context cc;
    cl_command_queue q;
    cl_device_id dev;
    if (!check_status(clmax_context_get_cl(ctx, &cc, &dev, &q), "clmax_context_get_cl")) return;
    size_t size = clmax_type_size(d->type);
    cl_int err;
    cl_mem bx =
        clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, count * size, (void *)x, &err);
    cl_mem bi = clCreateBuffer(cc, CL_MEM_READ_WRITE, nout * 8 + 8, NULL, &err);
    cl_mem bv = clCreateBuffer(cc, CL_MEM_READ_WRITE, count * size + 8, NULL, &err);
    if (bx == NULL || bi == NULL || bv == NULL) {
        FAIL("%s: clCreateBuffer failed", what);
        goto out;
    }
    char label[300];
    clmax_enqueue_options o;
    clmax_enqueue_options_init(&o);
    o.index_type = CLMAX_INDEX_INT32;
    snprintf(label, sizeof label, "%s, enqueued argmax, int32 indices", what);
    if (check_status(clmax_enqueue_argmax(ctx, d, bx, 0, aa, bi, 0, &o, 0, NULL, NULL), label)) {
        int32_t *got = malloc(nout * 4 + 1);
        int64_t *wide = malloc(nout * 8 + 1);
        if (clEnqueueReadBuffer(q, bi, CL_TRUE, 0, nout * 4, got, 0, NULL, NULL) != CL_SUCCESS)
            FAIL("%s: read failed", label);
        for (uint64_t i = 0; i < nout; i++)
            wide[i] = got[i];
        compare(label, wide, want_idx, nout * 8);
        free(got);
        free(wide);
    }
    snprintf(label, sizeof label, "%s, enqueued max with indices", what);
    if (check_status(
            clmax_enqueue_max_with_indices(ctx, d, bx, 0, aa, bv, 0, bi, 0, NULL, 0, NULL, NULL),
            label)) {
        int64_t *gi = malloc(nout * 8 + 1);
        unsigned char *gv = malloc(nout * size + 1);
        if (clEnqueueReadBuffer(q, bi, CL_TRUE, 0, nout * 8, gi, 0, NULL, NULL) != CL_SUCCESS ||
            clEnqueueReadBuffer(q, bv, CL_TRUE, 0, nout * size, gv, 0, NULL, NULL) != CL_SUCCESS)
            FAIL("%s: read failed", label);
        compare(label, gi, want_idx, nout * 8);
        compare(label, gv, want_vals, nout * size);
        free(gi);
        free(gv);
    }
    if (want_hard != NULL) {
        clmax_hardmax_attrs ha;
        clmax_hardmax_attrs_init(&ha, 13);
        ha.axis = aa->axis;
        snprintf(label, sizeof label, "%s, enqueued hardmax", what);
        if (check_status(clmax_enqueue_hardmax(ctx, d, bx, 0, &ha, bv, 0, NULL, 0, NULL, NULL),
                         label)) {
            unsigned char *gh = malloc(count * size + 1);
            if (clEnqueueReadBuffer(q, bv, CL_TRUE, 0, count * size, gh, 0, NULL, NULL) !=
                CL_SUCCESS)
                FAIL("%s: read failed", label);
            compare(label, gh, want_hard, count * size);
            free(gh);
        }
    }
out:
    if (bx) clReleaseMemObject(bx);
    if (bi) clReleaseMemObject(bi);
    if (bv) clReleaseMemObject(bv);
}

/* One type and shape on ctx against cpu: ArgMax (both tie rules), ArgMin, MaxWithIndices,
 * Hardmax for floats, then the enqueued forms. */
static void run_case(clmax_context *ctx, clmax_context *cpu, clmax_type type, const shape *sh,
                     const char *cfg)
{
    clmax_tensor_desc d = {type, sh->rank, {0}};
    uint64_t count = 1;
    for (int i = 0; i < sh->rank; i++)
        count *= (uint64_t)(d.dims[i] = sh->dims[i]);
    uint64_t nout = count / (uint64_t)sh->dims[sh->axis];
    const int one = sh->dims[sh->axis] == 1;
    size_t size = clmax_type_size(type);
    unsigned char *x = malloc(count * size), *hard = malloc(count * size),
                  *hard_cpu = malloc(count * size), *vals = malloc(nout * size),
                  *vals_cpu = malloc(nout * size);
    int64_t *idx = malloc(nout * 8), *idx_cpu = malloc(nout * 8);
    fill(type, x, count, count + (uint64_t)type);
    char what[256];
    snprintf(what, sizeof what, "%s: %s [%lld, %lld, %lld][:%d] axis %d", cfg,
             clmax_type_name(type), (long long)sh->dims[0], (long long)sh->dims[1],
             (long long)sh->dims[2], sh->rank, sh->axis);
    clmax_argmax_attrs aa;
    clmax_argmax_attrs_init(&aa, 13);
    aa.axis = sh->axis;
    char label[300];
    for (int last = 0; last <= 1; last++) {
        aa.select_last_index = last;
        snprintf(label, sizeof label, "%s, argmax select_last_index=%d", what, last);
        if (on_device(clmax_argmax(ctx, &d, x, &aa, idx), label, one) &&
            check_status(clmax_argmax(cpu, &d, x, &aa, idx_cpu), "cpu argmax")) {
            compare(label, idx, idx_cpu, nout * 8);
        }
    }
    aa.select_last_index = 0;
    snprintf(label, sizeof label, "%s, argmin", what);
    if (on_device(clmax_argmin(ctx, &d, x, &aa, idx), label, one) &&
        check_status(clmax_argmin(cpu, &d, x, &aa, idx_cpu), "cpu argmin")) {
        compare(label, idx, idx_cpu, nout * 8);
    }
    snprintf(label, sizeof label, "%s, max with indices", what);
    if (on_device(clmax_max_with_indices(ctx, &d, x, &aa, vals, idx), label, one) &&
        check_status(clmax_max_with_indices(cpu, &d, x, &aa, vals_cpu, idx_cpu), "cpu max")) {
        compare(label, idx, idx_cpu, nout * 8);
        compare(label, vals, vals_cpu, nout * size);
    }
    int hardmax = is_float(type);
    if (hardmax) {
        clmax_hardmax_attrs ha;
        clmax_hardmax_attrs_init(&ha, 13);
        ha.axis = sh->axis;
        snprintf(label, sizeof label, "%s, hardmax", what);
        if (on_device(clmax_hardmax(ctx, &d, x, &ha, hard), label, one) &&
            check_status(clmax_hardmax(cpu, &d, x, &ha, hard_cpu), "cpu hardmax")) {
            compare(label, hard, hard_cpu, count * size);
        }
    }
    enqueued(ctx, &d, x, count, &aa, idx_cpu, vals_cpu, nout, hardmax ? hard_cpu : NULL, what);
    free(x);
    free(hard);
    free(hard_cpu);
    free(vals);
    free(vals_cpu);
    free(idx);
    free(idx_cpu);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--quick") != 0)) {
        fprintf(stderr, "usage: oclgrind_plans CACHE_DIR [--quick]\n");
        return 2;
    }
    /* The configurations below choose; the device is whatever Oclgrind offers. */
    unsetenv("CLMAX_STRATEGY");
    unsetenv("CLMAX_MAX_CHUNK_BYTES");
    unsetenv("CLMAX_DEVICE");
    unsetenv("CLMAX_BACKEND");
    clmax_context_options co;
    clmax_context_options_init(&co);
    co.backend = CLMAX_BACKEND_CPU;
    clmax_context *cpu = NULL;
    if (!check_status(clmax_context_create(&co, &cpu), "the CPU path's context")) return 1;
    size_t nconfigs = argc == 3 ? 1 : COUNT(g_configs);
    for (size_t c = 0; c < nconfigs; c++) {
        const config *cf = &g_configs[c];
        double start = seconds();
        setenv("CLMAX_PLAN", cf->plan, 1);
        clmax_context_options_init(&co);
        co.backend = CLMAX_BACKEND_OPENCL;
        co.strategy = cf->strategy;
        co.max_chunk_bytes = cf->max_chunk;
        co.cache_dir = argv[1];
        clmax_context *ctx = NULL;
        if (!check_status(clmax_context_create(&co, &ctx), cf->what)) continue;
        if (strstr(clmax_context_device_name(ctx), "Oclgrind") == NULL)
            FAIL("%s: runs on %s, not Oclgrind's simulator (run it with oclgrind)", cf->what,
                 clmax_context_device_name(ctx));
        const clmax_type *types = cf->all_types ? g_all_types : g_some_types;
        size_t ntypes = cf->all_types ? COUNT(g_all_types) : COUNT(g_some_types);
        int gpu = strcmp(cf->plan, "gpu") == 0;
        int cpu_auto = !gpu && cf->strategy == CLMAX_STRATEGY_AUTO && cf->max_chunk == 0;
        for (size_t t = 0; t < ntypes; t++)
            for (size_t s = 0; s < COUNT(g_shapes); s++) {
                const shape *sh = &g_shapes[s];
                size_t size = clmax_type_size(types[t]);
                int here = sh->where == EVERY || (sh->where == GPU_PLANS && gpu) ||
                           (sh->where == CPU_AUTO && cpu_auto);
                if (size >= sh->lo && size <= sh->hi && here)
                    run_case(ctx, cpu, types[t], sh, cf->what);
            }
        clmax_context_destroy(ctx);
        fprintf(stderr, "oclgrind_plans: %s: done (%.0f s)\n", cf->what, seconds() - start);
    }
    clmax_context_destroy(cpu);
    if (g_failures) {
        fprintf(stderr, "oclgrind_plans: %d failures\n", g_failures);
        return 1;
    }
    return 0;
}
