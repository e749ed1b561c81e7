/* OpenCL backend internals: the device, its context and queue, the program cache, and what each
 * file of host/opencl/ offers the others. */
#ifndef CLMAX_CL_INTERNAL_H
#define CLMAX_CL_INTERNAL_H

#include "backend.h"
#include "plan.h"
#include "status.h"

#include "cl_api.h"
#include "cl_error.h"
#include "clmax_cl.h"
#include <pthread.h>
#include <stdatomic.h>

/* What the reduce kernels write (kernels/common.cl OUT_MODE; int32 indices are int64's programs
 * with the flag CLMAX_BOX_OUT32). */
typedef enum clmax_out_mode {
    CLMAX_OUT_INDEX64 = 0,
    CLMAX_OUT_INDEX32 = 1,
    CLMAX_OUT_HARDMAX = 2 /* the 1 of the element type at the winner */
} clmax_out_mode;

/* Optional kernel features, tried once per device (cl_features.c). */
enum { CLMAX_CL_PREFETCH = 0, CLMAX_CL_NT_STORE = 1, CLMAX_CL_NFEATURES = 2 };

/* The kernels, each in one family: a family is one kernel file (kernels/), built with the common
 * definitions as a program of its own, so that a call builds only the families it launches. The
 * table that maps them is in cl_program.c. */
typedef enum clmax_cl_kernel_id {
    CLMAX_CL_ROWS_VEC,
    CLMAX_CL_ROWS_WI,
    CLMAX_CL_ROWS_WG,
    CLMAX_CL_ROWS_SHORT,
    CLMAX_CL_ROWS_PAIRS,
    CLMAX_CL_SLICES_SHORT,
    CLMAX_CL_STRIDED,
    CLMAX_CL_STRIDED_BLK,
    CLMAX_CL_STRIDED_WIDE,
    CLMAX_CL_COMBINE,
    CLMAX_CL_COMBINE_WG,
    CLMAX_CL_FILL_ZERO,
    CLMAX_CL_NARROW_MERGE,
    CLMAX_CL_GATHER_VALUES,
    CLMAX_CL_NKERNELS
} clmax_cl_kernel_id;
/* The families, each named by its kernel file. */
enum {
    CLMAX_CL_FAMILY_ROWS_CPU,
    CLMAX_CL_FAMILY_ROWS_GPU,
    CLMAX_CL_FAMILY_ROWS_SHORT,
    CLMAX_CL_FAMILY_STRIDED,
    CLMAX_CL_FAMILY_COMBINE,
    CLMAX_CL_FAMILY_UTIL,
    CLMAX_CL_NFAMILIES
};
#define CLMAX_CL_FAMILY_FILES 4 /* the most kernel files in one family's program */

/* The programs of one set of build options (type, tie rule, work-group size, output): each
 * family's built on first use of one of its kernels. */
typedef struct clmax_cl_program {
    char options[640];
    cl_program family[CLMAX_CL_NFAMILIES];
    cl_kernel kernel[CLMAX_CL_NKERNELS];
} clmax_cl_program;

struct clmax_cl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_command_queue copy_queue; /* host-memory calls: writes of copied boxes (cl_reduce.c) */
    int retained_device; /* the caller's device was retained (contexts made from cl objects) */
    clmax_device_info info;
    pthread_mutex_t lock; /* serialises the kernels' arguments, the caches and the scratch */
    int nprograms, cap_programs;
    clmax_cl_program **programs; /* stable addresses: the cache only grows */
    cl_mem scratch;              /* partial pairs of split reductions, for the enqueue API */
    size_t scratch_size;
    /* The chains that use scratch and may still run, oldest first, each after the one before
     * (cl_operator.c scratch_after). */
    cl_event *scratch_users;
    int nusers, cap_users;
    /* Inner events of chains, each released once its chain's last event is over
     * (clmax_cl_release_after): pairs (last, inner), both referenced. */
    cl_event (*held)[2];
    int nheld, cap_held;
    const clmax_store *store;                   /* the context's: where built programs are kept */
    unsigned char features[CLMAX_CL_NFEATURES]; /* 1: the feature builds and runs right here */
    int loops_wrong; /* the loop probe's answer was wrong, or its limit too low: not used */
    int features_known;
    size_t ncompiled; /* family programs compiled from source here (the rest read from the store) */
    int builds_kept;  /* the driver keeps its own builds (cl_cache.c): 1, 0, -1 not known yet */
    pthread_mutex_t probe_lock; /* the probes run once, on the first use of the device */
    atomic_int probed;          /* 1 once they have (read without the lock after that) */
};

/* The programs for a type, tie rule, work-group size and output (nothing built yet; call with
 * cl->lock held, as for the two below). ArgMax and ArgMin share them (CLMAX_BOX_MIN), as do
 * int64 and int32 indices (CLMAX_BOX_OUT32). */
clmax_status clmax_cl_get_program(clmax_cl *cl, clmax_type type, int last, size_t wg,
                                  clmax_out_mode mode, clmax_cl_program **out);
/* Kernel id of p, its family built (or read from the store) first if it is not yet. */
clmax_status clmax_cl_kernel(clmax_cl *cl, clmax_cl_program *p, clmax_cl_kernel_id id,
                             cl_kernel *out);
/* The kernel files of family f's program, in order: texts and lens get *nfiles of them. */
clmax_status clmax_cl_family_sources(int f, const char **texts, size_t *lens, cl_uint *nfiles);
/* The work-group size the planner gives cl's plans: the WG define of the programs a prebuild
 * makes (cl_operator.c). */
size_t clmax_cl_plan_wg(clmax_cl *cl);
/* Family f of p ready, for the prebuild: *how is 0 (it was), 1 (compiled now) or 2 (read from
 * the store). */
clmax_status clmax_cl_family(clmax_cl *cl, clmax_cl_program *p, int f, int *how);
void clmax_cl_release_programs(clmax_cl *cl);

/* cl_features.c. Fills cl->features, cl->info.loop_limit and cl->loops_wrong, from the store when
 * it has the answers, else by trying each feature and measuring the loop limit. */
void clmax_cl_probe_features(clmax_cl *cl);
/* The device's facts for planning, the probes' included: they run on the first call that uses
 * the device (a plan, a build), not when the context is made, so that an auto context whose calls
 * take the CPU path never waits for them. Thread-safe; not with cl->lock held the first time. */
const clmax_device_info *clmax_cl_info(clmax_cl *cl);
/* clBuildProgram for one device, under the guard that keeps the probes' fork apart from builds
 * on other threads (cl_features.c). Every build of the library goes through it. */
cl_int clmax_cl_build(cl_program prog, cl_device_id device, const char *options);
/* The build options that turn feature on ("" where it does not work here). */
const char *clmax_cl_feature_options(const clmax_cl *cl, int feature);

/* One box of the canonical view on the device, [rows, n, inner] at element x_off of x, axis
 * indices from j0; see kernels/common.cl for flags, part, state and out. */
typedef struct clmax_cl_box {
    cl_mem x;
    uint64_t x_off, rows, n, inner, j0;
    int flags; /* CLMAX_BOX_ACCUM, CLMAX_BOX_FINAL, CLMAX_BOX_MIN, CLMAX_BOX_OUT32 */
    cl_mem part, state, out;
    uint64_t out_off;
} clmax_cl_box;
enum { CLMAX_BOX_ACCUM = 1, CLMAX_BOX_FINAL = 2, CLMAX_BOX_MIN = 4, CLMAX_BOX_OUT32 = 8 };

/* Bytes of `part` a box needs under plan pl (0 when the axis is not split). */
uint64_t clmax_cl_part_bytes(const clmax_plan *pl, uint64_t rows, uint64_t inner);

/* The largest box of one host-pointer call: the device's largest allocation, or max_chunk_bytes
 * when that is smaller. */
uint64_t clmax_cl_box_limit(const clmax_context *ctx);

/* After the wait list, maps and unmaps the first bytes of m, a buffer over the caller's memory
 * (CL_MEM_USE_HOST_PTR), which makes that memory hold what the device wrote (a no-op on devices
 * that write it directly, and the portable way to get it on any other); *done receives the
 * unmap's event. */
clmax_status clmax_cl_sync_host(clmax_cl *cl, cl_mem m, size_t bytes, cl_uint nwait,
                                const cl_event *wait, cl_event *done);

/* Whether the reduce kernel of plan pl, on an axis of n elements and inner lanes, writes the zeros
 * of a Hardmax output itself (FUSED_ZERO in kernels/vec.cl, which must agree: CPU devices, the
 * kernels that read every element once, ROWS_SHORT's rows of a few words and SLICES_SHORT's few
 * lanes on short axes), so that no fill goes before it. Only for a box that is the whole tensor
 * (j0 0, FINAL). */
int clmax_cl_fused_zeros(const clmax_cl *cl, const clmax_plan *pl, uint64_t n, uint64_t inner);

/* Releases ev, the event of a command before last in one chain, once last has completed or failed:
 * at a later call that finds it so (with cl->lock held), or when the context goes (at once where
 * last is NULL). PoCL 3.1 aborts when such an event is released while its chain waits on an event
 * that then fails. No callback: the release stays on the caller's thread. */
void clmax_cl_release_after(clmax_cl *cl, cl_event last, cl_event ev);
/* Releases every event that clmax_cl_release_after holds. */
void clmax_cl_release_held(clmax_cl *cl);

/* Enqueues the reduce kernel of plan pl over box b (and combine when the axis is split), after the
 * events of wait; *done (if not NULL) receives the event of the last command. Call with cl->lock
 * held. */
clmax_status clmax_cl_enqueue_box(clmax_cl *cl, clmax_cl_program *prog, const clmax_plan *pl,
                                  const clmax_cl_box *b, cl_uint nwait, const cl_event *wait,
                                  cl_event *done);

clmax_status clmax_cl_reduce(clmax_context *ctx, const clmax_problem *p, const void *x,
                             int64_t *idx);

/* cl_device.c. Finds the device: the selector's match, else the first GPU, else the first
 * device. */
clmax_status clmax_cl_select_device(const char *selector, cl_platform_id *plat, cl_device_id *dev);
/* Fills the device facts of cl->device into cl->info and the name into ctx. */
void clmax_cl_query_device(clmax_context *ctx);

/* cl_state.c. The backend over the caller's context, device and queue (retained, not made);
 * clmax_opencl_init (backend.h) makes its own on the selected device. */
clmax_status clmax_opencl_init_from(clmax_context *ctx, cl_context context, cl_device_id device,
                                    cl_command_queue queue);

/* cl_operator.c. Whether buffer m is not NULL and belongs to cl's context (an argument error
 * names the buffer `name`). */
clmax_status clmax_cl_check_context(const clmax_cl *cl, cl_mem m, const char *name);
/* That, and whether m holds bytes from offset, offset a multiple of align. */
clmax_status clmax_cl_check_range(const clmax_cl *cl, cl_mem m, const char *name, size_t offset,
                                  uint64_t bytes, size_t align);
/* The bytes of scratch one operator call on problem p needs (0: none). */
uint64_t clmax_cl_operator_scratch(const clmax_context *ctx, const clmax_problem *p);
/* One operator call on device buffers, with cl->lock held: problem p over x at x_offset bytes,
 * into y as mode says (y_bytes from y_offset) and, when values is not NULL, the winners' values at
 * v_offset bytes after the indices are in y; eo's scratch if it has one (eo may be NULL), else the
 * context's. After the wait list; *event (if not NULL) receives the last command's event. */
clmax_status clmax_cl_enqueue_operator(clmax_context *ctx, const clmax_problem *p, cl_mem x,
                                       size_t x_offset, cl_mem y, size_t y_offset, size_t y_bytes,
                                       cl_mem values, size_t v_offset, clmax_out_mode mode,
                                       const clmax_enqueue_options *eo, cl_uint nwait,
                                       const cl_event *wait, cl_event *event);
/* iface->prebuild: the programs of the given types (NULL: all) that the given operators ask for. */
clmax_status clmax_cl_prebuild(clmax_context *ctx, const clmax_prebuild_options *options,
                               clmax_prebuild_report *report);

/* cl_hardmax.c. iface->hardmax: Hardmax on host memory in one pass where the device shares memory
 * with the host; *done is 0 (nothing run, nothing recorded) where it does not apply. */
clmax_status clmax_cl_hardmax_in_place(clmax_context *ctx, const clmax_problem *p, const void *x,
                                       void *y, int *done);

#endif
