/* The "cl_mem" rows: the enqueue API (include/clmax_cl.h) on device buffers that already hold the
 * input, as a pipeline that keeps its tensors on the device calls it. No transfer between host and
 * device is timed, so on a discrete GPU these rows measure the kernels against the device's own
 * memory, where the host-pointer rows ("opencl") measure the bus. The clmax context is made from
 * the probe's OpenCL context, device and queue (clmax_context_create_from_cl), so the operator and
 * its baseline (the probe's kernels on the same buffers) share one queue. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clmax_cl.h"

struct bench_clmem {
    bench_cl *cl;
    clmax_context *ctx;
    cl_context context;
    cl_command_queue queue;
    cl_mem x, y;      /* input and output, size bytes each, allocated on first use */
    uint64_t size;    /* bytes of each buffer, 0 before the first use */
    const void *held; /* the host input x holds a copy of (NULL: none) */
    uint64_t held_bytes;
    int held_gen;
};

bench_clmem *bench_clmem_create(bench_cl *cl, const bench_opts *o)
{
    bench_clmem *m = calloc(1, sizeof *m);
    if (m == NULL) return NULL;
    cl_device_id device;
    bench_cl_objects(cl, &m->context, &device, &m->queue);
    m->cl = cl;
    clmax_context_options opt;
    clmax_context_options_init(&opt);
    opt.num_threads = o->threads;
    opt.max_chunk_bytes = o->chunk_bytes;
    if (clmax_context_create_from_cl(m->context, device, m->queue, &opt, &m->ctx) != CLMAX_OK) {
        fprintf(stderr, "clmax-bench: cl_mem rows: no context on the probe's queue: %s\n",
                clmax_last_error());
        free(m);
        return NULL;
    }
    return m;
}

void bench_clmem_destroy(bench_clmem *m)
{
    if (m == NULL) return;
    if (m->x) clReleaseMemObject(m->x);
    if (m->y) clReleaseMemObject(m->y);
    clmax_context_destroy(m->ctx);
    free(m);
}

clmax_context *bench_clmem_context(bench_clmem *m)
{
    return m->ctx;
}

int bench_clmem_fits(const bench_clmem *m, uint64_t size)
{
    return size <= bench_cl_max_alloc(m->cl);
}

int bench_clmem_prepare(bench_clmem *m, uint64_t size, const void *x, uint64_t bytes, int gen)
{
    if (!bench_clmem_fits(m, size)) {
        fprintf(stderr,
                "clmax-bench: cl_mem rows: %llu MiB is more than the device's largest buffer "
                "(%llu MiB); use a smaller --size\n",
                (unsigned long long)(size >> 20),
                (unsigned long long)(bench_cl_max_alloc(m->cl) >> 20));
        return 1;
    }
    if (m->size < size) {
        if (m->x) clReleaseMemObject(m->x);
        if (m->y) clReleaseMemObject(m->y);
        m->x = m->y = NULL;
        m->size = 0;
        m->held = NULL;
        cl_int err;
        m->x = clCreateBuffer(m->context, CL_MEM_READ_WRITE, (size_t)size, NULL, &err);
        if (bench_cl_check(err, "clCreateBuffer(input)")) return 1;
        m->y = clCreateBuffer(m->context, CL_MEM_READ_WRITE, (size_t)size, NULL, &err);
        if (bench_cl_check(err, "clCreateBuffer(output)")) return 1;
        m->size = size;
    }
    if (m->held == x && m->held_bytes == bytes && m->held_gen == gen) return 0;
    m->held = NULL;
    if (bench_cl_check(
            clEnqueueWriteBuffer(m->queue, m->x, CL_TRUE, 0, (size_t)bytes, x, 0, NULL, NULL),
            "clEnqueueWriteBuffer(input)"))
        return 1;
    m->held = x;
    m->held_bytes = bytes;
    m->held_gen = gen;
    return 0;
}

int bench_clmem_baseline(bench_clmem *m, int read_write, uint64_t bytes, uint64_t *sum)
{
    if (read_write) return bench_cl_copy_mem(m->cl, m->x, m->y, bytes);
    return bench_cl_read_mem(m->cl, m->x, m->held, bytes, sum);
}

clmax_status bench_clmem_run(bench_clmem *m, int op, const clmax_tensor_desc *d, int64_t axis,
                             uint64_t values_off)
{
    cl_event done = NULL;
    clmax_status st;
    if (op == BENCH_HARDMAX) {
        clmax_hardmax_attrs a;
        clmax_hardmax_attrs_init(&a, 13);
        a.axis = axis;
        st = clmax_enqueue_hardmax(m->ctx, d, m->x, 0, &a, m->y, 0, NULL, 0, NULL, &done);
    } else {
        clmax_argmax_attrs a;
        clmax_argmax_attrs_init(&a, 13);
        a.axis = axis;
        if (op == BENCH_ARGMAX) {
            st = clmax_enqueue_argmax(m->ctx, d, m->x, 0, &a, m->y, 0, NULL, 0, NULL, &done);
        } else {
            st = clmax_enqueue_max_with_indices(m->ctx, d, m->x, 0, &a, m->y, (size_t)values_off,
                                                m->y, 0, NULL, 0, NULL, &done);
        }
    }
    if (st != CLMAX_OK) return st;
    cl_int err = clWaitForEvents(1, &done);
    clReleaseEvent(done);
    return bench_cl_check(err, "clWaitForEvents") ? CLMAX_ERROR_OPENCL : CLMAX_OK;
}

int bench_clmem_download(bench_clmem *m, void *y, uint64_t bytes)
{
    return bench_cl_check(
        clEnqueueReadBuffer(m->queue, m->y, CL_TRUE, 0, (size_t)bytes, y, 0, NULL, NULL),
        "clEnqueueReadBuffer(output)");
}
