/*
 * Shared helpers of the enqueue API tests (tests/pipeline/test_enqueue_*.c): the caller's OpenCL
 * objects (enqueue_env.c), and jobs, one operator call at offsets inside guarded buffers checked
 * bit for bit against the scalar reference (enqueue_job.c).
 *
 * Without an OpenCL device the tests skip with a warning (they fail when CLMAX_REQUIRE_OPENCL=1);
 * with CLMAX_BACKEND=cpu they skip too, except those that need no device. Criterion forks a process
 * per test, so every test makes its own OpenCL objects.
 */
#ifndef CLMAX_TESTS_ENQUEUE_COMMON_H
#define CLMAX_TESTS_ENQUEUE_COMMON_H

#define CL_TARGET_OPENCL_VERSION 120
#include "clmax_cl.h"

#include "common.h"
#include "reference.h"

#include <stddef.h>
#include <stdint.h>

/* ---- The caller's OpenCL objects (enqueue_env.c) ------------------------------------------- */

typedef struct clenv {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    size_t base_align; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */
} clenv;

#define CL_OK(err, call) cr_assert_eq((err), CL_SUCCESS, "%s failed with %d", (call), (int)(err))
#define ST_OK(st, call)                                                                            \
    cr_assert_eq((st), CLMAX_OK, "%s: %s: %s", (call), clmax_status_string(st), clmax_last_error())
#define EXPECT_ST(call, want)                                                                      \
    do {                                                                                           \
        clmax_status st_ = (call);                                                                 \
        cr_assert_eq(st_, (want), "%s gave %d (%s), expected %d (%s): %s", #call, (int)st_,        \
                     clmax_status_string(st_), (int)(want), clmax_status_string(want),             \
                     clmax_last_error());                                                          \
        if (st_ != CLMAX_OK)                                                                       \
            cr_assert(clmax_last_error()[0] != 0, "%s failed without a message", #call);           \
    } while (0)

void env_close(clenv *e);
/* The device clmax would pick (CLMAX_DEVICE included), or skips the test when there is none. */
cl_device_id need_device(void);
/* Makes a context and a queue of our own on that device. */
void env_open(clenv *e, int out_of_order);
clmax_context *clmax_open(const clenv *e, clmax_strategy strategy);
/* A CPU-path context, whatever the environment says. */
clmax_context *cpu_open(void);
cl_int event_status(cl_event ev);
cl_uint context_refs(cl_context c);
cl_uint queue_refs(cl_command_queue q);

/* ---- Arenas: a tensor at an offset inside a larger buffer, guard bytes around it ------------- */

#define GUARD 40
#define GUARD_BYTE 0xA5

typedef struct arena {
    cl_mem mem;
    size_t off, bytes, size;
    unsigned char *image; /* what the whole buffer holds once the tensor is in place */
} arena;

/* data NULL: the tensor's range holds guard bytes too. preload 0: the buffer starts with guard
 * bytes only and the tensor must be written by the caller (image still shows it in place). */
const char *arena_make(const clenv *e, arena *a, size_t off, size_t bytes, const void *data,
                       int preload);
void arena_free(arena *a);

/* ---- Jobs: one operator call, its expected output and its buffers (enqueue_job.c) ---------- */

typedef struct job {
    int hardmax;
    int min;    /* ArgMin instead of ArgMax */
    int values; /* clmax_enqueue_{max,min}_with_indices: the values too, at v_off in va */
    clmax_tensor_desc desc;
    clmax_argmax_attrs aa;
    clmax_hardmax_attrs ha;
    clmax_index_type itype;
    size_t x_off, y_off, v_off; /* bytes */
    int preload;                /* the input is in the buffer from the start (no write command) */
    int host_api;               /* threads test: run on the host API instead */

    void *x;               /* host input */
    size_t x_bytes;        /* of the tensor */
    unsigned char *want;   /* expected output bytes */
    size_t y_bytes, y_es;  /* output bytes and element size */
    unsigned char *want_v; /* expected values (v_bytes) */
    size_t v_bytes;

    arena xa, ya, va;
    unsigned char *got_x, *got_y, *got_v; /* whole arenas read back */
    cl_event write, done, read_x, read_y, read_v;
    clmax_status st;
    char what[320];
    char err[512];
} job;

void job_argmax(job *j, clmax_type type, int rank, const int64_t *dims, int opset, int64_t axis,
                int keepdims, int last);
void job_argmin(job *j, clmax_type type, int rank, const int64_t *dims, int opset, int64_t axis,
                int keepdims, int last);
void job_hardmax(job *j, clmax_type type, int rank, const int64_t *dims, int opset, int64_t axis);
/* Offsets of k element sizes: 3 and 9 are odd, so never a multiple of a base alignment. */
void job_offsets(job *j, int kx, int ky);

enum { IN_SPECIAL_ROWS = FILL_MODES };

/* Fills the input (a fill_mode, or IN_SPECIAL_ROWS) and computes the expected output with the
 * reference; the label says everything about the case. */
void job_fill(job *j, int kind, uint64_t seed);
void job_free(job *j);
/* The buffers; unless preload, a non-blocking write of x after the wait list (its event in
 * j->write). */
const char *job_buffers(const clenv *e, job *j, cl_uint nwait, const cl_event *wait);
/* The clmax call, after j->write when there is one, else after the wait list. */
clmax_status job_enqueue(clmax_context *ctx, job *j, const clmax_enqueue_options *opts,
                         cl_uint nwait, const cl_event *wait);
/* Non-blocking reads of the whole arenas that wait only on clmax's event. */
const char *job_read(const clenv *e, job *j);
const char *job_wait(job *j);
/* Output (and values) range equal to want, guard bytes intact, input arena untouched. */
const char *job_check(job *j);
/* The host API on ctx into got_y (and got_v), laid out as arenas so that job_check applies. */
const char *job_host(clmax_context *ctx, job *j);

#define JOB_OK(call)                                                                               \
    do {                                                                                           \
        const char *m_ = (call);                                                                   \
        cr_assert(m_ == NULL, "%s", m_);                                                           \
    } while (0)

/* One job start to end: write x (an event) -> clmax -> read waiting on clmax's event only; then
 * the same case on the host API of host_ctx (when given) must agree too. */
void run_job(const clenv *e, clmax_context *ctx, clmax_context *host_ctx, job *j,
             const clmax_enqueue_options *opts);

/* ---- Types, shapes (enqueue_job.c) --------------------------------------------------------- */

extern const clmax_type some_types[7];
#define NUM_SOME_TYPES (sizeof some_types / sizeof some_types[0])

typedef struct shape3 {
    int rank;
    int64_t dims[3];
    int64_t axis;
} shape3;

/* contiguous rows, a strided axis, an outermost axis, few long rows that the planner splits,
 * short rows (on CPU devices 16 rows per work-item, and a partial last one), and a strided axis
 * with rows of more than 8 KiB for types of two bytes or more (CPU devices: the wide tiles, the
 * axis split in three) */
extern const shape3 shapes[7];

/* Whether the planner splits the axis (and scratch is needed): only when nothing forces a
 * strategy, through options or the environment. */
int planner_free(void);

#endif
