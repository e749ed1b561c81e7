/* A program built against an installed clmax (find_package or pkg-config). It runs ArgMax on the
 * CPU path, so it needs no OpenCL device, and checks the answer. */
#define CL_TARGET_OPENCL_VERSION 120
#include <clmax_cl.h>

#include <stdio.h>

int main(void)
{
    if (clmax_version_number() != CLMAX_VERSION_NUMBER) {
        fprintf(stderr, "header version %d, library version %u\n", CLMAX_VERSION_NUMBER,
                clmax_version_number());
        return 1;
    }
    clmax_enqueue_options eo; /* links a symbol declared in clmax_cl.h */
    clmax_enqueue_options_init(&eo);
    if (eo.index_type != CLMAX_INDEX_INT64) return 1;

    clmax_context_options o;
    clmax_context_options_init(&o);
    o.backend = CLMAX_BACKEND_CPU;
    o.ignore_environment = 1;
    clmax_context *ctx = NULL;
    clmax_status st = clmax_context_create(&o, &ctx);
    if (st != CLMAX_OK) {
        fprintf(stderr, "clmax_context_create: %s\n", clmax_last_error());
        return 1;
    }
    const float x[2][5] = {{1, 7, 7, -2, 0}, {-1, 0.5f, -3, 0.5f, 0.25f}};
    const clmax_tensor_desc desc = {CLMAX_TYPE_FLOAT32, 2, {2, 5}};
    clmax_argmax_attrs attrs;
    clmax_argmax_attrs_init(&attrs, 13);
    attrs.axis = 1;
    int64_t first[2] = {-1, -1}, last[2] = {-1, -1};
    st = clmax_argmax(ctx, &desc, x, &attrs, first);
    attrs.select_last_index = 1;
    if (st == CLMAX_OK) st = clmax_argmax(ctx, &desc, x, &attrs, last);
    if (st != CLMAX_OK) {
        fprintf(stderr, "clmax_argmax: %s\n", clmax_last_error());
        clmax_context_destroy(ctx);
        return 1;
    }
    printf("clmax %s on %s: argmax %d %d, last %d %d\n", clmax_version_string(),
           clmax_context_device_name(ctx), (int)first[0], (int)first[1], (int)last[0],
           (int)last[1]);
    clmax_context_destroy(ctx);
    return first[0] == 1 && first[1] == 1 && last[0] == 2 && last[1] == 3 ? 0 : 1;
}
