/* The OpenCL device's practical limit: a streaming read (and a read+write) of the same host bytes,
 * on the device the library picked, reaching host memory the way the library does: in place on CPU
 * devices that share memory with the host, else copied in with clEnqueueWriteBuffer (timed). */
#include "bench.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Blocks of per_item consecutive vectors, visited grid-stride: per_item 1 is the coalesced pattern
 * GPUs want; a large per_item gives each CPU work-item one long sequential run. One sum per
 * work-group is written, so no read can be dropped. */
static const char probe_source[] =
    "#ifndef PF\n"
    "#define PF 0\n"
    "#endif\n"
    "#ifndef WG\n"
    "#define WG 64\n"
    "#endif\n"
    "#ifndef NT\n"
    "#define NT 0\n"
    "#endif\n"
    "#if NT && defined(CLMAX_NT_STORE) && defined(CLMAX_NT_FENCE)\n"
    "#define HAVE_NT 1\n"
    "#endif\n"
    "#if PF && defined(CLMAX_PREFETCH)\n"
    "#define PREFETCH(p) CLMAX_PREFETCH(p)\n"
    "#else\n"
    "#define PREFETCH(p)\n"
    "#endif\n"
    "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
    "void stream_read(__global const ulong2 *x, ulong n, ulong per_item, int accum,\n"
    "                 __global ulong *sums)\n"
    "{\n"
    "    __local ulong part[WG];\n"
    "    const ulong gid = get_global_id(0), step = get_global_size(0) * per_item;\n"
    "    const uint lid = get_local_id(0);\n"
    "    ulong2 acc = (ulong2)(0, 0);\n"
    "    for (ulong b = gid * per_item; b < n; b += step) {\n"
    "        const ulong e = b + per_item < n ? b + per_item : n;\n"
    "        for (ulong i = b; i < e; i++) {\n"
    "            if (i % 4 == 0) PREFETCH((const __global char *)(x + i) + PF);\n"
    "            acc += x[i];\n"
    "        }\n"
    "    }\n"
    "    part[lid] = acc.x + acc.y;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (uint s = WG / 2; s > 0; s >>= 1) {\n"
    "        if (lid < s) part[lid] += part[lid + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (lid == 0) {\n"
    "        const size_t g = get_group_id(0);\n"
    "        sums[g] = accum ? sums[g] + part[0] : part[0];\n"
    "    }\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
    "void stream_copy(__global const ulong2 *x, __global ulong2 *y, ulong n, ulong per_item)\n"
    "{\n"
    "    const ulong gid = get_global_id(0), step = get_global_size(0) * per_item;\n"
    "    const ulong2 c = (ulong2)(0x5A5A5A5A5A5A5A5Aul, 0x5A5A5A5A5A5A5A5Aul);\n"
    "    for (ulong b = gid * per_item; b < n; b += step) {\n"
    "        const ulong e = b + per_item < n ? b + per_item : n;\n"
    "        for (ulong i = b; i < e; i++) {\n"
    "            if (i % 4 == 0) PREFETCH((const __global char *)(x + i) + PF);\n"
    "#ifdef HAVE_NT\n"
    "            CLMAX_NT_STORE(x[i] ^ c, y + i);\n"
    "#else\n"
    "            y[i] = x[i] ^ c;\n"
    "#endif\n"
    "        }\n"
    "    }\n"
    "#ifdef HAVE_NT\n"
    "    CLMAX_NT_FENCE();\n"
    "#endif\n"
    "}\n";

struct bench_cl {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel read, copy;
    cl_mem sums;                   /* one ulong per work-group */
    cl_mem dev_x, dev_y;           /* device copies (non-unified devices), allocated on first use */
    size_t dev_x_size, dev_y_size; /* their sizes */
    int in_place;                  /* CPU device with host-unified memory: CL_MEM_USE_HOST_PTR */
    int is_cpu;
    int builtins; /* built with the prefetch and streaming-store builtins */
    size_t wg, groups;
    uint64_t max_alloc; /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    uint64_t chunk;     /* bytes per pass: the device's max allocation, a multiple of 4096 */
    uint64_t *host_sums;
    char describe[160];
};

int bench_cl_check(cl_int err, const char *call)
{
    if (err == CL_SUCCESS) return 0;
    fprintf(stderr, "clmax-bench: OpenCL: %s failed (%d)\n", call, (int)err);
    return 1;
}

static int all_digits(const char *s)
{
    if (s == NULL || *s == '\0') return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* The device of the clmax context: the one whose "<platform> / <device>" is the context's device
 * name. An index selector picks by position (the library's order), for identical twin devices. */
static cl_device_id find_device(const char *want, const char *selector)
{
    cl_uint np = 0;
    cl_platform_id plats[16];
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return NULL;
    if (np > 16) np = 16;
    long index = 0, want_index = all_digits(selector) ? atol(selector) : -1;
    cl_device_id first = NULL;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        char pname[256] = "";
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        if (nd > 64) nd = 64;
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        for (cl_uint d = 0; d < nd; d++, index++) {
            char dname[256] = "", full[520];
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
            snprintf(full, sizeof full, "%s / %s", pname, dname);
            if (strcmp(full, want) != 0) continue;
            if (index == want_index) return devs[d];
            if (first == NULL) first = devs[d];
        }
    }
    return first;
}

/* The compiler builtins the library's kernels use on devices whose compiler takes them
 * (host/opencl/cl_features.c), as the kernel source spells them. */
static const char builtin_options[] =
    "-DCLMAX_PREFETCH=__builtin_prefetch -DCLMAX_NT_STORE=__builtin_nontemporal_store "
    "-DCLMAX_NT_FENCE=__builtin_ia32_sfence";

/* Whether the probe builds with opts and the builtins, and its kernels can be made: tried in a
 * child process, as a compiler may end the process that builds them (rusticl's SPIR-V translator
 * does). */
static int builds_in_child(cl_device_id dev, const char *opts)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        char all[320];
        snprintf(all, sizeof all, "%s %s", opts, builtin_options);
        cl_int err;
        cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        const char *src = probe_source;
        cl_program p = c ? clCreateProgramWithSource(c, 1, &src, NULL, &err) : NULL;
        int ok = p != NULL && clBuildProgram(p, 1, &dev, all, NULL, NULL) == CL_SUCCESS;
        cl_kernel k1 = ok ? clCreateKernel(p, "stream_read", &err) : NULL;
        cl_kernel k2 = ok ? clCreateKernel(p, "stream_copy", &err) : NULL;
        _exit(k1 != NULL && k2 != NULL ? 0 : 1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* CLMAX_BENCH_PROBE="<work-group size>,<work-groups>" overrides the probe's launch shape (to check
 * that the default really is the device's best). */
static void launch_shape(bench_cl *b, cl_uint cu, size_t max_wg)
{
    if (b->is_cpu) {
        /* Each work-item one long sequential run; enough work-groups per core that PoCL's
         * dynamic scheduling evens out a core that is busy with something else for a while. */
        b->wg = 8;
        b->groups = 16 * (size_t)cu;
    } else {
        b->wg = 256;
        b->groups = 8 * (size_t)cu; /* 2048 resident work-items per compute unit */
    }
    const char *env = getenv("CLMAX_BENCH_PROBE");
    unsigned long wg, groups;
    if (env != NULL && sscanf(env, "%lu,%lu", &wg, &groups) == 2 && wg > 0 && groups > 0) {
        b->wg = wg;
        b->groups = groups;
    }
    while (b->wg > max_wg && b->wg > 1)
        b->wg /= 2;
}

bench_cl *bench_cl_create(clmax_context *ctx, const char *selector)
{
    if (selector == NULL) selector = getenv("CLMAX_DEVICE");
    const char *name = clmax_context_device_name(ctx);
    cl_device_id dev = find_device(name, selector);
    if (dev == NULL) {
        fprintf(stderr, "clmax-bench: no OpenCL device is named \"%s\"\n", name);
        return NULL;
    }
    bench_cl *b = calloc(1, sizeof *b);
    if (b == NULL) return NULL;
    b->device = dev;
    cl_int err;
    cl_device_type type = 0;
    cl_bool unified = CL_FALSE;
    cl_uint cu = 1;
    cl_ulong max_alloc = 0;
    size_t max_wg = 1;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
    b->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    b->in_place = b->is_cpu && unified == CL_TRUE;
    b->max_alloc = max_alloc ? max_alloc : (128u << 20);
    b->chunk = b->max_alloc / 4096 * 4096;
    if (b->chunk == 0) b->chunk = 4096;
    launch_shape(b, cu ? cu : 1, max_wg ? max_wg : 1);

    b->context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (bench_cl_check(err, "clCreateContext")) goto fail;
    b->queue = clCreateCommandQueue(b->context, dev, 0, &err);
    if (bench_cl_check(err, "clCreateCommandQueue")) goto fail;
    const char *src = probe_source;
    b->program = clCreateProgramWithSource(b->context, 1, &src, NULL, &err);
    if (bench_cl_check(err, "clCreateProgramWithSource")) goto fail;
    char opts[320];
    /* CPU devices prefetch as the library's kernels do there (PF_BYTES); GPUs do not. On CPU
     * devices the read+write stores non-temporally (NT, as the library's fill_zero and the CPU
     * baseline do): plain stores read each line in first, a slower baseline than the memory
     * allows. Both only where the device's compiler takes their builtins, as in the library. */
    snprintf(opts, sizeof opts, "-DWG=%zu -DPF=%u -DNT=%d", b->wg,
             b->is_cpu ? bench_probe_prefetch() : 0, b->is_cpu);
    if (b->is_cpu && builds_in_child(dev, opts)) {
        snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " %s", builtin_options);
        b->builtins = 1;
    }
    snprintf(b->describe, sizeof b->describe, "%s, %zu work-groups of %zu%s",
             b->in_place ? "host memory in place (CL_MEM_USE_HOST_PTR)"
                         : "clEnqueueWriteBuffer from host memory, then the kernel",
             b->groups, b->wg, b->builtins ? " (read+write: streaming stores)" : "");
    err = clBuildProgram(b->program, 1, &dev, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(b->program, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "clmax-bench: probe kernel build failed (%d):\n%s\n", (int)err, log);
        goto fail;
    }
    b->read = clCreateKernel(b->program, "stream_read", &err);
    if (bench_cl_check(err, "clCreateKernel(stream_read)")) goto fail;
    b->copy = clCreateKernel(b->program, "stream_copy", &err);
    if (bench_cl_check(err, "clCreateKernel(stream_copy)")) goto fail;
    b->sums = clCreateBuffer(b->context, CL_MEM_READ_WRITE, b->groups * 8, NULL, &err);
    if (bench_cl_check(err, "clCreateBuffer(sums)")) goto fail;
    b->host_sums = calloc(b->groups, 8);
    if (b->host_sums == NULL) goto fail;
    return b;
fail:
    bench_cl_destroy(b);
    return NULL;
}

void bench_cl_destroy(bench_cl *b)
{
    if (b == NULL) return;
    if (b->dev_x) clReleaseMemObject(b->dev_x);
    if (b->dev_y) clReleaseMemObject(b->dev_y);
    if (b->sums) clReleaseMemObject(b->sums);
    if (b->read) clReleaseKernel(b->read);
    if (b->copy) clReleaseKernel(b->copy);
    if (b->program) clReleaseProgram(b->program);
    if (b->queue) clReleaseCommandQueue(b->queue);
    if (b->context) clReleaseContext(b->context);
    free(b->host_sums);
    free(b);
}

const char *bench_cl_describe(const bench_cl *b)
{
    return b->describe;
}

/* Device buffers are allocated once, outside the timed region: a cost the library can avoid. */
static int ensure(bench_cl *b, cl_mem *m, size_t *have, size_t want, cl_mem_flags flags)
{
    if (*m != NULL && *have >= want) return 0;
    if (*m != NULL) clReleaseMemObject(*m);
    cl_int err;
    *m = clCreateBuffer(b->context, flags, want, NULL, &err);
    *have = *m ? want : 0;
    return bench_cl_check(err, "clCreateBuffer");
}

static size_t launch_global(const bench_cl *b)
{
    return b->groups * b->wg;
}

/* Vectors per work-item visit: 1 on GPUs (coalesced), the whole share on CPU devices. */
static cl_ulong per_item(const bench_cl *b, cl_ulong n)
{
    if (!b->is_cpu) return 1;
    cl_ulong items = launch_global(b), p = (n + items - 1) / items;
    return p ? p : 1;
}

static uint64_t tail_sum(const unsigned char *p, uint64_t from, uint64_t bytes)
{
    uint64_t s = 0, i = from;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        s += w;
    }
    for (; i < bytes; i++)
        s += p[i];
    return s;
}

/* One launch of stream_read over the len bytes (a multiple of 16) of in; accum adds to the sums
 * of the previous launch instead of replacing them. */
static int launch_read(bench_cl *b, cl_mem in, uint64_t len, int accum)
{
    size_t global = launch_global(b), local = b->wg;
    cl_ulong n = len / 16, pi = per_item(b, n);
    cl_int acc = accum;
    cl_int err = clSetKernelArg(b->read, 0, sizeof in, &in);
    err |= clSetKernelArg(b->read, 1, sizeof n, &n);
    err |= clSetKernelArg(b->read, 2, sizeof pi, &pi);
    err |= clSetKernelArg(b->read, 3, sizeof acc, &acc);
    err |= clSetKernelArg(b->read, 4, sizeof b->sums, &b->sums);
    if (bench_cl_check(err, "clSetKernelArg")) return 1;
    err = clEnqueueNDRangeKernel(b->queue, b->read, 1, NULL, &global, &local, 0, NULL, NULL);
    return bench_cl_check(err, "clEnqueueNDRangeKernel(stream_read)");
}

/* One launch of stream_copy: out = in ^ constant over len bytes (a multiple of 16). */
static int launch_copy(bench_cl *b, cl_mem in, cl_mem out, uint64_t len)
{
    size_t global = launch_global(b), local = b->wg;
    cl_ulong n = len / 16, pi = per_item(b, n);
    cl_int err = clSetKernelArg(b->copy, 0, sizeof in, &in);
    err |= clSetKernelArg(b->copy, 1, sizeof out, &out);
    err |= clSetKernelArg(b->copy, 2, sizeof n, &n);
    err |= clSetKernelArg(b->copy, 3, sizeof pi, &pi);
    if (bench_cl_check(err, "clSetKernelArg")) return 1;
    err = clEnqueueNDRangeKernel(b->queue, b->copy, 1, NULL, &global, &local, 0, NULL, NULL);
    return bench_cl_check(err, "clEnqueueNDRangeKernel(stream_copy)");
}

/* Reads the work-groups' sums back (blocking) and adds the host's sum of bytes [from, bytes). */
static int total_sum(bench_cl *b, const unsigned char *src, uint64_t from, uint64_t bytes,
                     uint64_t *sum)
{
    if (from > 0 && bench_cl_check(clEnqueueReadBuffer(b->queue, b->sums, CL_TRUE, 0, b->groups * 8,
                                                       b->host_sums, 0, NULL, NULL),
                                   "clEnqueueReadBuffer(sums)"))
        return 1;
    uint64_t s = tail_sum(src, from, bytes);
    for (size_t g = 0; from > 0 && g < b->groups; g++)
        s += b->host_sums[g];
    *sum = s;
    return 0;
}

int bench_cl_read(bench_cl *b, const void *x, uint64_t bytes, uint64_t *sum)
{
    const unsigned char *src = x;
    uint64_t vec_bytes = bytes / 16 * 16;
    cl_int err = CL_SUCCESS;
    cl_mem in = NULL;
    int accum = 0, rc = 0;
    if (!b->in_place &&
        ensure(b, &b->dev_x, &b->dev_x_size, (size_t)(vec_bytes < b->chunk ? vec_bytes : b->chunk),
               CL_MEM_READ_ONLY))
        return 1;
    for (uint64_t off = 0; off < vec_bytes; off += b->chunk, accum = 1) {
        uint64_t len = vec_bytes - off < b->chunk ? vec_bytes - off : b->chunk;
        if (b->in_place) {
            if (in) clReleaseMemObject(in);
            in = clCreateBuffer(b->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, (size_t)len,
                                (void *)(src + off), &err);
            if ((rc = bench_cl_check(err, "clCreateBuffer(USE_HOST_PTR)"))) break;
        } else {
            in = b->dev_x;
            err = clEnqueueWriteBuffer(b->queue, in, CL_FALSE, 0, (size_t)len, src + off, 0, NULL,
                                       NULL);
            if ((rc = bench_cl_check(err, "clEnqueueWriteBuffer"))) break;
        }
        if ((rc = launch_read(b, in, len, accum))) break;
        if (b->in_place) {
            /* The library waits before it lets go of a chunk over caller memory; so do we. */
            if ((rc = bench_cl_check(clFinish(b->queue), "clFinish"))) break;
        }
    }
    if (rc == 0) rc = total_sum(b, src, vec_bytes, bytes, sum);
    clFinish(b->queue);
    if (b->in_place && in) clReleaseMemObject(in);
    return rc;
}

int bench_cl_copy(bench_cl *b, const void *x, void *y, uint64_t bytes)
{
    const unsigned char *src = x;
    unsigned char *dst = y;
    uint64_t vec_bytes = bytes / 16 * 16;
    cl_int err = CL_SUCCESS;
    cl_mem in = NULL, out = NULL;
    int rc = 0;
    size_t want = (size_t)(vec_bytes < b->chunk ? vec_bytes : b->chunk);
    if (!b->in_place && (ensure(b, &b->dev_x, &b->dev_x_size, want, CL_MEM_READ_ONLY) ||
                         ensure(b, &b->dev_y, &b->dev_y_size, want, CL_MEM_WRITE_ONLY)))
        return 1;
    for (uint64_t off = 0; off < vec_bytes; off += b->chunk) {
        uint64_t len = vec_bytes - off < b->chunk ? vec_bytes - off : b->chunk;
        if (b->in_place) {
            in = clCreateBuffer(b->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, (size_t)len,
                                (void *)(src + off), &err);
            if ((rc = bench_cl_check(err, "clCreateBuffer(USE_HOST_PTR)"))) break;
            out = clCreateBuffer(b->context, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, (size_t)len,
                                 dst + off, &err);
            if ((rc = bench_cl_check(err, "clCreateBuffer(USE_HOST_PTR)"))) break;
        } else {
            in = b->dev_x;
            out = b->dev_y;
            err = clEnqueueWriteBuffer(b->queue, in, CL_FALSE, 0, (size_t)len, src + off, 0, NULL,
                                       NULL);
            if ((rc = bench_cl_check(err, "clEnqueueWriteBuffer"))) break;
        }
        if ((rc = launch_copy(b, in, out, len))) break;
        if (b->in_place) {
            /* Map and unmap: what makes the device's writes visible in host memory by the spec
             * (free on CPU devices, where the buffer is that memory). */
            void *m = clEnqueueMapBuffer(b->queue, out, CL_TRUE, CL_MAP_READ, 0, (size_t)len, 0,
                                         NULL, NULL, &err);
            if ((rc = bench_cl_check(err, "clEnqueueMapBuffer"))) break;
            clEnqueueUnmapMemObject(b->queue, out, m, 0, NULL, NULL);
            if ((rc = bench_cl_check(clFinish(b->queue), "clFinish"))) break;
            clReleaseMemObject(in);
            clReleaseMemObject(out);
            in = out = NULL;
        } else {
            err = clEnqueueReadBuffer(b->queue, out, CL_FALSE, 0, (size_t)len, dst + off, 0, NULL,
                                      NULL);
            if ((rc = bench_cl_check(err, "clEnqueueReadBuffer"))) break;
        }
    }
    clFinish(b->queue);
    if (b->in_place) {
        if (in) clReleaseMemObject(in);
        if (out) clReleaseMemObject(out);
    }
    for (uint64_t i = vec_bytes; i < bytes; i++)
        dst[i] = (unsigned char)(src[i] ^ 0x5A);
    return rc;
}

/* ---- Device buffers: the baselines of the cl_mem rows ---------------------------------------- */

void bench_cl_objects(const bench_cl *b, cl_context *context, cl_device_id *device,
                      cl_command_queue *queue)
{
    *context = b->context;
    *device = b->device;
    *queue = b->queue;
}

uint64_t bench_cl_max_alloc(const bench_cl *b)
{
    return b->max_alloc;
}

int bench_cl_read_mem(bench_cl *b, cl_mem x, const void *host_x, uint64_t bytes, uint64_t *sum)
{
    uint64_t vec_bytes = bytes / 16 * 16;
    int rc = vec_bytes > 0 ? launch_read(b, x, vec_bytes, 0) : 0;
    if (rc == 0) rc = total_sum(b, host_x, vec_bytes, bytes, sum);
    clFinish(b->queue);
    return rc;
}

int bench_cl_copy_mem(bench_cl *b, cl_mem x, cl_mem y, uint64_t bytes)
{
    uint64_t vec_bytes = bytes / 16 * 16;
    int rc = vec_bytes > 0 ? launch_copy(b, x, y, vec_bytes) : 0;
    if (rc == 0) rc = bench_cl_check(clFinish(b->queue), "clFinish");
    return rc;
}
