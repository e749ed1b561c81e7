/*
 * clmax on the caller's OpenCL objects: contexts made from a cl_context, device and queue, and
 * ArgMax / Hardmax enqueued on cl_mem buffers with event wait lists and a completion event.
 *
 * Include this header instead of clmax.h where OpenCL types are wanted; it includes <CL/cl.h>
 * (define CL_TARGET_OPENCL_VERSION first, as for cl.h itself). clmax needs OpenCL 1.2.
 */
#ifndef CLMAX_CL_H
#define CLMAX_CL_H

#include "clmax.h"

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Create a context on the caller's OpenCL context, device and queue. clmax retains all three and
 * releases what it retained on clmax_context_destroy(); it never releases more. The queue may be
 * in-order or out-of-order. options may be NULL; its backend and device fields are ignored.
 * Fails with CLMAX_ERROR_INVALID_ARGUMENT when an object is NULL or the device is not the
 * queue's. The environment applies as for clmax_context_create(), except CLMAX_BACKEND and
 * CLMAX_DEVICE. */
CLMAX_API clmax_status clmax_context_create_from_cl(cl_context context, cl_device_id device,
                                                    cl_command_queue queue,
                                                    const clmax_context_options *options,
                                                    clmax_context **ctx);

/* The OpenCL objects an OpenCL-backed context uses (not retained for the caller). Fails with
 * CLMAX_ERROR_INVALID_ARGUMENT on a CPU-path context. Any output pointer may be NULL. */
CLMAX_API clmax_status clmax_context_get_cl(const clmax_context *ctx, cl_context *context,
                                            cl_device_id *device, cl_command_queue *queue);

typedef enum clmax_index_type {
    CLMAX_INDEX_INT64 = 0, /* the ONNX output type */
    CLMAX_INDEX_INT32 = 1  /* refused with CLMAX_ERROR_INDEX_OVERFLOW if an index may not fit */
} clmax_index_type;

/* Options of the enqueue calls. Fill with clmax_enqueue_options_init(). */
typedef struct clmax_enqueue_options {
    clmax_index_type index_type; /* ArgMax's output; default CLMAX_INDEX_INT64 */
    cl_mem scratch;      /* NULL (default): a buffer cached in the context, grown on demand (the
                            only allocation, once per larger shape), whose users clmax orders by
                            events. Else the caller's buffer of scratch_size bytes, at least what
                            clmax_*_scratch_size() says; the caller must not let two operations
                            that use it run at the same time. */
    size_t scratch_size; /* bytes of scratch when scratch is not NULL */
} clmax_enqueue_options;

CLMAX_API void clmax_enqueue_options_init(clmax_enqueue_options *options);

/* Bytes of scratch an enqueued ArgMax / Hardmax of this input needs on ctx's device (0 when it
 * needs none). attrs NULL means the opset 13 defaults. */
CLMAX_API clmax_status clmax_argmax_scratch_size(clmax_context *ctx, const clmax_tensor_desc *input,
                                                 const clmax_argmax_attrs *attrs, size_t *bytes);
CLMAX_API clmax_status clmax_hardmax_scratch_size(clmax_context *ctx,
                                                  const clmax_tensor_desc *input,
                                                  const clmax_hardmax_attrs *attrs, size_t *bytes);

/* Enqueue ArgMax on ctx's queue: the input tensor starts x_offset bytes into x, the indices are
 * written y_offset bytes into y (int64, or int32 by options). Offsets must be multiples of the
 * element size (of x's type, and of the index type) but need no other alignment; the ranges
 * must lie inside the buffers and must not overlap (CLMAX_ERROR_INVALID_ARGUMENT where both are
 * ranges of one cl_mem). The work starts after the num_events events of wait_list, which must be
 * events of ctx's OpenCL context (an event of another context, or a NULL one, is
 * CLMAX_ERROR_INVALID_ARGUMENT, whatever the OpenCL implementation would do with it); *event (if
 * not NULL) receives an event that completes when y is written (release it with clReleaseEvent).
 * No host synchronisation happens inside the call. options may be NULL.
 * On a CPU-path context: CLMAX_ERROR_INVALID_ARGUMENT. For an empty tensor nothing is read or
 * written (x and y are not checked) and *event follows the wait list. */
CLMAX_API clmax_status clmax_enqueue_argmax(clmax_context *ctx, const clmax_tensor_desc *input,
                                            cl_mem x, size_t x_offset,
                                            const clmax_argmax_attrs *attrs, cl_mem y,
                                            size_t y_offset, const clmax_enqueue_options *options,
                                            cl_uint num_events, const cl_event *wait_list,
                                            cl_event *event);

/* Enqueue ONNX ArgMin: as clmax_enqueue_argmax, the minimum winning (see clmax_argmin). Its
 * scratch size is clmax_argmax_scratch_size(). */
CLMAX_API clmax_status clmax_enqueue_argmin(clmax_context *ctx, const clmax_tensor_desc *input,
                                            cl_mem x, size_t x_offset,
                                            const clmax_argmax_attrs *attrs, cl_mem y,
                                            size_t y_offset, const clmax_enqueue_options *options,
                                            cl_uint num_events, const cl_event *wait_list,
                                            cl_event *event);

/* Enqueue clmax_max_with_indices (clmax_min_with_indices): as clmax_enqueue_argmax (argmin), the
 * indices written indices_offset bytes into indices (int64, or int32 by options), and the values
 * values_offset bytes into values: the input's element type, one per index, each the bits of the
 * winning element (a row with a NaN gives that NaN). values_offset must be a multiple of the
 * element size; the values' range must lie inside values and overlap neither x's nor the indices'
 * range. *event completes when both are written. For an empty tensor values is not checked
 * either. The scratch size is clmax_argmax_scratch_size()'s. */
CLMAX_API clmax_status clmax_enqueue_max_with_indices(
    clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x, size_t x_offset,
    const clmax_argmax_attrs *attrs, cl_mem values, size_t values_offset, cl_mem indices,
    size_t indices_offset, const clmax_enqueue_options *options, cl_uint num_events,
    const cl_event *wait_list, cl_event *event);
CLMAX_API clmax_status clmax_enqueue_min_with_indices(
    clmax_context *ctx, const clmax_tensor_desc *input, cl_mem x, size_t x_offset,
    const clmax_argmax_attrs *attrs, cl_mem values, size_t values_offset, cl_mem indices,
    size_t indices_offset, const clmax_enqueue_options *options, cl_uint num_events,
    const cl_event *wait_list, cl_event *event);

/* Enqueue Hardmax: as above; y receives a tensor of x's shape and type at y_offset. */
CLMAX_API clmax_status clmax_enqueue_hardmax(clmax_context *ctx, const clmax_tensor_desc *input,
                                             cl_mem x, size_t x_offset,
                                             const clmax_hardmax_attrs *attrs, cl_mem y,
                                             size_t y_offset, const clmax_enqueue_options *options,
                                             cl_uint num_events, const cl_event *wait_list,
                                             cl_event *event);

#ifdef __cplusplus
}
#endif

#endif /* CLMAX_CL_H */
