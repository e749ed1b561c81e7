/*
 * clmax inside an OpenCL pipeline. A kernel of our own writes "logits" into a device buffer,
 * clmax's ArgMax runs on that buffer as soon as the kernel's event completes, and the host reads
 * the indices once, at the end. Commands are ordered by events only: the host does not wait in
 * between, and the logits never leave the device.
 *
 *   cc pipeline.c -o pipeline-example $(pkg-config --cflags --libs clmax OpenCL)
 *
 * Exit status: 0 when the indices match a computation on the host, 1 on a mismatch or an error,
 * 77 when there is no OpenCL device.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <clmax_cl.h>

#include <stdio.h>
#include <stdlib.h>

#define BATCH 4
#define VOCAB 50000

/* logit(b, v): a hash of (b, v) mapped to [-8, 8) in steps of 2^-20, exact in float, so the host
 * and the device agree to the bit. The one definition is compiled by the C compiler for the check
 * and, as text, by OpenCL for the device. */
#define LOGIT_FUNCTION                                                                             \
    float logit(unsigned b, unsigned v)                                                            \
    {                                                                                              \
        unsigned h = (b * 0x9E3779B1u) ^ (v * 0x85EBCA77u);                                        \
        h = (h ^ (h >> 15)) * 0x2C1B3C6Du;                                                         \
        h = (h ^ (h >> 12)) * 0x297A2D39u;                                                         \
        return (float)(int)((h ^ (h >> 15)) >> 8) / 1048576.0f - 8.0f;                             \
    }
#define TEXT(...) #__VA_ARGS__
#define EXPAND_TEXT(...) TEXT(__VA_ARGS__)

/* clang-format off */
static LOGIT_FUNCTION

static const char *source = EXPAND_TEXT(LOGIT_FUNCTION) TEXT(
    __kernel void logits(__global float *out, uint vocab)
    {
        uint b = get_global_id(1), v = get_global_id(0);
        out[b * vocab + v] = logit(b, v);
    });
/* clang-format on */

/* OpenCL errors end the program: the operating system releases what is left. */
#define CHECK(err)                                                                                 \
    do {                                                                                           \
        cl_int e_ = (err);                                                                         \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "line %d: OpenCL error %d\n", __LINE__, (int)e_);                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(void)
{
    /* Our own OpenCL objects: the first device of the first platform that has one. */
    cl_platform_id platforms[8];
    cl_uint nplatforms = 0;
    cl_device_id device = NULL;
    if (clGetPlatformIDs(8, platforms, &nplatforms) != CL_SUCCESS) nplatforms = 0;
    for (cl_uint i = 0; i < nplatforms && device == NULL; i++)
        if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
            device = NULL;
    if (device == NULL) {
        printf("no OpenCL device; skipping\n");
        return 77;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    cl_mem logits =
        clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(float) * BATCH * VOCAB, NULL, &err);
    CHECK(err);
    cl_mem indices =
        clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof(int64_t) * BATCH, NULL, &err);
    CHECK(err);

    /* Stage 1, our kernel: logits[b][v] = logit(b, v). */
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "build failed:\n%s\n", log);
        return 1;
    }
    cl_kernel kernel = clCreateKernel(program, "logits", &err);
    CHECK(err);
    cl_uint vocab = VOCAB;
    CHECK(clSetKernelArg(kernel, 0, sizeof logits, &logits));
    CHECK(clSetKernelArg(kernel, 1, sizeof vocab, &vocab));
    size_t global[2] = {VOCAB, BATCH};
    cl_event produced;
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, &produced));

    /* Stage 2, clmax on our objects: ArgMax over the vocabulary once the logits are written. */
    clmax_context *cm = NULL;
    clmax_status st = clmax_context_create_from_cl(context, device, queue, NULL, &cm);
    const clmax_tensor_desc desc = {CLMAX_TYPE_FLOAT32, 2, {BATCH, VOCAB}};
    clmax_argmax_attrs attrs;
    clmax_argmax_attrs_init(&attrs, 13);
    attrs.axis = 1;
    attrs.keepdims = 0; /* indices of shape [BATCH] */
    cl_event reduced = NULL;
    if (st == CLMAX_OK)
        st = clmax_enqueue_argmax(cm, &desc, logits, 0, &attrs, indices, 0, NULL, 1, &produced,
                                  &reduced);
    if (st != CLMAX_OK) {
        fprintf(stderr, "clmax: %s: %s\n", clmax_status_string(st), clmax_last_error());
        return 1;
    }

    /* Stage 3: the only wait of the host, a read that follows clmax's event. */
    int64_t got[BATCH];
    CHECK(clEnqueueReadBuffer(queue, indices, CL_TRUE, 0, sizeof got, got, 1, &reduced, NULL));

    printf("device: %s\n", clmax_context_device_name(cm));
    int bad = 0;
    for (unsigned b = 0; b < BATCH; b++) {
        unsigned best = 0; /* the first maximum, as ONNX ArgMax */
        for (unsigned v = 1; v < VOCAB; v++)
            if (logit(b, v) > logit(b, best)) best = v;
        printf("row %u: argmax %lld (logit %.6f), host %u\n", b, (long long)got[b], logit(b, best),
               best);
        bad |= got[b] != (int64_t)best;
    }
    printf(bad ? "MISMATCH\n" : "ok\n");

    clReleaseEvent(reduced);
    clReleaseEvent(produced);
    clmax_context_destroy(cm); /* releases only what clmax retained: ours live on */
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseMemObject(indices);
    clReleaseMemObject(logits);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return bad;
}
