/* The enqueue API's entry points: operators on the caller's cl_mem buffers and queue, ordered by
 * events, with no host synchronisation (the contract checked in host/contract.c, the buffers and
 * events here, the work enqueued by cl_operator.c); contexts made from the caller's OpenCL
 * objects. */
#include "cl_internal.h"
#include "clmax_cl.h"
#include "contract.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void clmax_enqueue_options_init(clmax_enqueue_options *options)
{
    if (options == NULL) return;
    memset(options, 0, sizeof *options);
    options->index_type = CLMAX_INDEX_INT64;
}

clmax_status clmax_context_create_from_cl(cl_context context, cl_device_id device,
                                          cl_command_queue queue,
                                          const clmax_context_options *options, clmax_context **out)
{
    clmax_clear_error();
    CHECK_ARG(out != NULL, "ctx is NULL");
    *out = NULL;
    CHECK_ARG(context != NULL && device != NULL && queue != NULL,
              "context, device and queue must all be given");
    cl_device_id qdev = NULL;
    cl_context qctx = NULL;
    cl_int err = CL(GetCommandQueueInfo)(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("CL(GetCommandQueueInfo)(CL_QUEUE_DEVICE)", err);
    err = CL(GetCommandQueueInfo)(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err != CL_SUCCESS) return clmax_cl_fail("CL(GetCommandQueueInfo)(CL_QUEUE_CONTEXT)", err);
    CHECK_ARG(qdev == device, "the queue belongs to another device");
    CHECK_ARG(qctx == context, "the queue belongs to another context");

    clmax_context_options o;
    if (options != NULL)
        o = *options;
    else
        clmax_context_options_init(&o);
    CHECK_ARG(o.num_threads >= 0, "num_threads is negative (%d)", o.num_threads);
    CHECK_ARG((unsigned)o.strategy <= CLMAX_STRATEGY_SPLIT, "strategy %d is not a clmax_strategy",
              (int)o.strategy);

    uint64_t chunk = o.max_chunk_bytes;
    clmax_strategy strategy = o.strategy;
    clmax_plan_as plan_as;
    int avx512;
    clmax_status st = clmax_parse_env(&o, NULL, &chunk, &strategy, &plan_as, &avx512, NULL);
    clmax_cache_settings cache;
    if (st == CLMAX_OK) st = clmax_cache_settings_of(&o, &cache);
    if (st != CLMAX_OK) return st;

    clmax_context *ctx = clmax_context_new();
    if (ctx == NULL) return clmax_fail(CLMAX_ERROR_OUT_OF_MEMORY, "context");
    ctx->num_threads = o.num_threads > 0 ? o.num_threads : clmax_online_cores();
    snprintf(ctx->cpu_name, sizeof ctx->cpu_name, "CPU (%d threads)", ctx->num_threads);
    ctx->max_chunk_bytes = chunk;
    ctx->strategy = strategy;
    ctx->plan_as = plan_as;
    ctx->cpu_avx512_off = avx512 == 1;
    ctx->cpu_avx512_full = avx512 == 2;
    clmax_open_store(ctx, &o, &cache); /* before the device's probes, which it keeps */
    st = clmax_opencl_init_from(ctx, context, device, queue);
    if (st != CLMAX_OK) {
        clmax_context_free(ctx);
        return st;
    }
    ctx->backend = CLMAX_BACKEND_OPENCL;
    *out = ctx;
    return CLMAX_OK;
}

clmax_status clmax_context_get_cl(const clmax_context *ctx, cl_context *context,
                                  cl_device_id *device, cl_command_queue *queue)
{
    clmax_clear_error();
    CHECK_ARG(ctx != NULL, "context is NULL");
    CHECK_ARG(ctx->cl != NULL, "the context runs on the CPU path, not OpenCL");
    if (context) *context = ctx->cl->context;
    if (device) *device = ctx->cl->device;
    if (queue) *queue = ctx->cl->queue;
    return CLMAX_OK;
}

static clmax_status scratch_size(clmax_context *ctx, const clmax_problem *p, uint64_t count,
                                 size_t *bytes)
{
    CHECK_ARG(bytes != NULL, "bytes is NULL");
    *bytes = 0;
    CHECK_ARG(ctx->cl != NULL, "the context runs on the CPU path, not OpenCL");
    if (count == 0 || p->outer == 0 || p->inner == 0) return CLMAX_OK;
    *bytes = (size_t)clmax_cl_operator_scratch(ctx, p);
    return CLMAX_OK;
}

clmax_status clmax_argmax_scratch_size(clmax_context *ctx, const clmax_tensor_desc *input,
                                       const clmax_argmax_attrs *attrs, size_t *bytes)
{
    clmax_clear_error();
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    int axis;
    clmax_status st = clmax_argmax_prepare(input, attrs, 0, &p, &count, &axis);
    return st != CLMAX_OK ? st : scratch_size(ctx, &p, count, bytes);
}

clmax_status clmax_hardmax_scratch_size(clmax_context *ctx, const clmax_tensor_desc *input,
                                        const clmax_hardmax_attrs *attrs, size_t *bytes)
{
    clmax_clear_error();
    CHECK_ARG(ctx != NULL, "context is NULL");
    clmax_problem p;
    uint64_t count;
    clmax_status st = clmax_hardmax_prepare(input, attrs, &p, &count);
    return st != CLMAX_OK ? st : scratch_size(ctx, &p, count, bytes);
}

/* An empty tensor: nothing to compute, but the event must still follow the wait list. */
static clmax_status enqueue_marker(clmax_cl *cl, cl_uint nwait, const cl_event *wait,
                                   cl_event *event)
{
    cl_event e = NULL;
    cl_int err = CL(EnqueueMarkerWithWaitList)(cl->queue, nwait, nwait ? wait : NULL, &e);
    if (err != CL_SUCCESS) return clmax_cl_fail("clEnqueueMarkerWithWaitList", err);
    if (event)
        *event = e;
    else
        CL(ReleaseEvent)(e);
    return CLMAX_OK;
}

static clmax_status check_common(clmax_context *ctx, cl_uint nwait, const cl_event *wait,
                                 const clmax_enqueue_options *eo)
{
    CHECK_ARG(ctx != NULL, "context is NULL");
    CHECK_ARG(ctx->cl != NULL, "the context runs on the CPU path, not OpenCL");
    CHECK_ARG((nwait == 0) == (wait == NULL), "num_events and wait_list disagree");
    /* OpenCL leaves an event of another context to the implementation: PoCL waits for it, and
     * enqueue.misuse, which passed one, did not finish on NVIDIA's driver. Refused here, so
     * that every implementation gives the same clear error. */
    for (cl_uint i = 0; i < nwait; i++) {
        cl_context c = NULL;
        CHECK_ARG(wait[i] != NULL, "wait_list[%u] is NULL", i);
        cl_int err = CL(GetEventInfo)(wait[i], CL_EVENT_CONTEXT, sizeof c, &c, NULL);
        CHECK_ARG(err == CL_SUCCESS, "wait_list[%u] is not an event: clGetEventInfo gave %s", i,
                  clmax_cl_error_name(err));
        CHECK_ARG(c == ctx->cl->context,
                  "wait_list[%u] is an event of another OpenCL context than the clmax context's",
                  i);
    }
    CHECK_ARG(eo->index_type == CLMAX_INDEX_INT64 || eo->index_type == CLMAX_INDEX_INT32,
              "index_type %d is not a clmax_index_type", (int)eo->index_type);
    return CLMAX_OK;
}

/* Ranges of one buffer must not overlap (sub-buffers of a buffer are not told apart here). */
static clmax_status check_apart(cl_mem a, const char *an, size_t aoff, uint64_t abytes, cl_mem b,
                                const char *bn, size_t boff, uint64_t bbytes)
{
    CHECK_ARG(a != b || aoff >= boff + bbytes || boff >= aoff + abytes,
              "%s (bytes %zu to %llu) and %s (bytes %zu to %llu) overlap in the same buffer", an,
              aoff, (unsigned long long)(aoff + abytes), bn, boff,
              (unsigned long long)(boff + bbytes));
    return CLMAX_OK;
}

/* ArgMax / ArgMin into y, and the values at the winners into values when it is not NULL
 * (with_values: the values were asked for). */
static clmax_status enqueue_arg(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                                size_t x_offset, const clmax_argmax_attrs *attrs, int min,
                                int with_values, cl_mem values, size_t v_offset, cl_mem y,
                                size_t y_offset, const clmax_enqueue_options *options,
                                cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clmax_enqueue_options def;
    clmax_enqueue_options_init(&def);
    const clmax_enqueue_options *eo = options ? options : &def;
    clmax_status st = check_common(ctx, num_events, wait_list, eo);
    if (st != CLMAX_OK) return st;
    clmax_problem p;
    uint64_t count;
    int axis;
    st = clmax_argmax_prepare(input, attrs, min, &p, &count, &axis);
    if (st != CLMAX_OK) return st;
    clmax_cl *cl = ctx->cl;
    uint64_t outputs = p.outer * p.inner;
    if (outputs == 0) return enqueue_marker(cl, num_events, wait_list, event);
    int i32 = eo->index_type == CLMAX_INDEX_INT32;
    if (i32 && p.n - 1 > (uint64_t)INT32_MAX)
        return clmax_fail(CLMAX_ERROR_INDEX_OVERFLOW,
                          "the axis has %llu elements; int32 indices reach 2^31 - 1",
                          (unsigned long long)p.n);
    uint64_t x_bytes = count * p.esize, y_bytes = outputs * (i32 ? 4 : 8);
    uint64_t v_bytes = outputs * p.esize;
    st = clmax_cl_check_range(cl, x, "x", x_offset, x_bytes, p.esize);
    if (st == CLMAX_OK) st = clmax_cl_check_range(cl, y, "y", y_offset, y_bytes, i32 ? 4 : 8);
    if (st == CLMAX_OK) st = check_apart(x, "x", x_offset, x_bytes, y, "y", y_offset, y_bytes);
    if (st == CLMAX_OK && with_values) {
        st = clmax_cl_check_range(cl, values, "values", v_offset, v_bytes, p.esize);
        if (st == CLMAX_OK)
            st = check_apart(values, "values", v_offset, v_bytes, x, "x", x_offset, x_bytes);
        if (st == CLMAX_OK)
            st = check_apart(values, "values", v_offset, v_bytes, y, "y", y_offset, y_bytes);
    }
    if (st != CLMAX_OK) return st;
    pthread_mutex_lock(&cl->lock);
    st = clmax_cl_enqueue_operator(
        ctx, &p, x, x_offset, y, y_offset, (size_t)y_bytes, with_values ? values : NULL, v_offset,
        i32 ? CLMAX_OUT_INDEX32 : CLMAX_OUT_INDEX64, eo, num_events, wait_list, event);
    pthread_mutex_unlock(&cl->lock);
    if (st == CLMAX_OK) clmax_call_ran(CLMAX_BACKEND_OPENCL, ctx->device_name);
    return st;
}

clmax_status clmax_enqueue_argmax(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                                  size_t x_offset, const clmax_argmax_attrs *attrs, cl_mem y,
                                  size_t y_offset, const clmax_enqueue_options *options,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    clmax_call_begin();
    return enqueue_arg(ctx, input, x, x_offset, attrs, 0, 0, NULL, 0, y, y_offset, options,
                       num_events, wait_list, event);
}

clmax_status clmax_enqueue_argmin(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                                  size_t x_offset, const clmax_argmax_attrs *attrs, cl_mem y,
                                  size_t y_offset, const clmax_enqueue_options *options,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    clmax_call_begin();
    return enqueue_arg(ctx, input, x, x_offset, attrs, 1, 0, NULL, 0, y, y_offset, options,
                       num_events, wait_list, event);
}

clmax_status
clmax_enqueue_max_with_indices(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                               size_t x_offset, const clmax_argmax_attrs *attrs, cl_mem values,
                               size_t values_offset, cl_mem indices, size_t indices_offset,
                               const clmax_enqueue_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    clmax_call_begin();
    return enqueue_arg(ctx, input, x, x_offset, attrs, 0, 1, values, values_offset, indices,
                       indices_offset, options, num_events, wait_list, event);
}

clmax_status
clmax_enqueue_min_with_indices(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                               size_t x_offset, const clmax_argmax_attrs *attrs, cl_mem values,
                               size_t values_offset, cl_mem indices, size_t indices_offset,
                               const clmax_enqueue_options *options, cl_uint num_events,
                               const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    clmax_call_begin();
    return enqueue_arg(ctx, input, x, x_offset, attrs, 1, 1, values, values_offset, indices,
                       indices_offset, options, num_events, wait_list, event);
}

clmax_status clmax_enqueue_hardmax(clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x,
                                   size_t x_offset, const clmax_hardmax_attrs *attrs, cl_mem y,
                                   size_t y_offset, const clmax_enqueue_options *options,
                                   cl_uint num_events, const cl_event *wait_list, cl_event *event)
{
    clmax_clear_error();
    clmax_call_begin();
    clmax_enqueue_options def;
    clmax_enqueue_options_init(&def);
    const clmax_enqueue_options *eo = options ? options : &def;
    clmax_status st = check_common(ctx, num_events, wait_list, eo);
    if (st != CLMAX_OK) return st;
    clmax_problem p;
    uint64_t count;
    st = clmax_hardmax_prepare(input, attrs, &p, &count);
    if (st != CLMAX_OK) return st;
    clmax_cl *cl = ctx->cl;
    if (count == 0) return enqueue_marker(cl, num_events, wait_list, event);
    uint64_t bytes = count * p.esize;
    st = clmax_cl_check_range(cl, x, "x", x_offset, bytes, p.esize);
    if (st == CLMAX_OK) st = clmax_cl_check_range(cl, y, "y", y_offset, bytes, p.esize);
    if (st == CLMAX_OK) st = check_apart(x, "x", x_offset, bytes, y, "y", y_offset, bytes);
    if (st != CLMAX_OK) return st;
    pthread_mutex_lock(&cl->lock);
    st = clmax_cl_enqueue_operator(ctx, &p, x, x_offset, y, y_offset, (size_t)bytes, NULL, 0,
                                   CLMAX_OUT_HARDMAX, eo, num_events, wait_list, event);
    pthread_mutex_unlock(&cl->lock);
    if (st == CLMAX_OK) clmax_call_ran(CLMAX_BACKEND_OPENCL, ctx->device_name);
    return st;
}
