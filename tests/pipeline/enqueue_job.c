/* Jobs of the enqueue API tests: one operator call on a tensor at an offset inside a larger buffer
 * with guard bytes around it (an arena), its expected output from the scalar reference, the
 * commands that write, run and read it, and the checks of what came back. */
#include "enqueue_common.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Arenas -------------------------------------------------------------------------------- */

const char *arena_make(const clenv *e, arena *a, size_t off, size_t bytes, const void *data,
                       int preload)
{
    a->off = off;
    a->bytes = bytes;
    a->size = off + bytes + GUARD;
    a->image = malloc(a->size);
    if (a->image == NULL) return "out of host memory";
    memset(a->image, GUARD_BYTE, a->size);
    if (data && preload) memcpy(a->image + off, data, bytes);
    cl_int err;
    a->mem = clCreateBuffer(e->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a->size, a->image,
                            &err);
    if (a->mem == NULL) return "clCreateBuffer failed";
    if (data) memcpy(a->image + off, data, bytes);
    return NULL;
}

void arena_free(arena *a)
{
    if (a->mem) clReleaseMemObject(a->mem);
    free(a->image);
    memset(a, 0, sizeof *a);
}

/* ---- Jobs ---------------------------------------------------------------------------------- */

void job_argmax(job *j, clmax_type type, int rank, const int64_t *dims, int opset, int64_t axis,
                int keepdims, int last)
{
    memset(j, 0, sizeof *j);
    j->desc = test_desc(type, rank, dims);
    clmax_argmax_attrs_init(&j->aa, opset);
    j->aa.axis = axis;
    j->aa.keepdims = keepdims;
    j->aa.select_last_index = last;
    j->itype = CLMAX_INDEX_INT64;
}

void job_argmin(job *j, clmax_type type, int rank, const int64_t *dims, int opset, int64_t axis,
                int keepdims, int last)
{
    job_argmax(j, type, rank, dims, opset, axis, keepdims, last);
    j->min = 1;
}

void job_hardmax(job *j, clmax_type type, int rank, const int64_t *dims, int opset, int64_t axis)
{
    memset(j, 0, sizeof *j);
    j->hardmax = 1;
    j->desc = test_desc(type, rank, dims);
    clmax_hardmax_attrs_init(&j->ha, opset);
    j->ha.axis = axis;
}

static size_t job_index_size(const job *j)
{
    return j->itype == CLMAX_INDEX_INT32 ? 4 : 8;
}

/* Offsets of k element sizes: 3 and 9 are odd, so never a multiple of a base alignment. */
void job_offsets(job *j, int kx, int ky)
{
    size_t es = ref_type_size(j->desc.type);
    j->x_off = es * (size_t)kx;
    j->y_off = (j->hardmax ? es : job_index_size(j)) * (size_t)ky;
    j->v_off = es * (size_t)(ky + 2);
}

static const char *input_str(int kind)
{
    return kind == IN_SPECIAL_ROWS ? "special rows" : fill_mode_str((fill_mode)kind);
}

/* Fills the input (a fill_mode, or IN_SPECIAL_ROWS) and computes the expected output with the
 * reference; the label says everything about the case. */
void job_fill(job *j, int kind, uint64_t seed)
{
    clmax_type type = j->desc.type;
    size_t es = ref_type_size(type);
    ref_view v;
    clmax_tensor_desc out;
    clmax_status st = j->hardmax ? ref_hardmax_check(&j->desc, &j->ha, &out, &v)
                                 : ref_argmax_check(&j->desc, &j->aa, &out, &v);
    cr_assert_eq(st, CLMAX_OK, "test bug: an invalid case");
    uint64_t count = output_count(&j->desc);
    j->x_bytes = (size_t)count * es;
    j->x = test_malloc(j->x_bytes);
    test_rng rng;
    rng_seed(&rng, seed);
    if (kind == IN_SPECIAL_ROWS)
        fill_special_rows(type, j->x, v, &rng);
    else
        fill_tensor(type, j->x, count, (fill_mode)kind, &rng);

    char shape[128];
    test_shape_str(&j->desc, shape, sizeof shape);
    if (j->hardmax) {
        j->y_es = es;
        j->y_bytes = j->x_bytes;
        j->want = test_malloc(j->y_bytes);
        cr_assert_eq(ref_hardmax(&j->desc, j->x, &j->ha, j->want), CLMAX_OK);
        snprintf(j->what, sizeof j->what, "hardmax %s %s opset %d axis %" PRId64,
                 test_type_str(type), shape, j->ha.opset, j->ha.axis);
    } else {
        uint64_t outputs = output_count(&out);
        int64_t *idx = test_malloc((size_t)outputs * 8);
        if (j->min)
            cr_assert_eq(ref_argmin(&j->desc, j->x, &j->aa, idx), CLMAX_OK);
        else
            cr_assert_eq(ref_argmax(&j->desc, j->x, &j->aa, idx), CLMAX_OK);
        if (j->values) { /* the bits of the reference's winners */
            j->v_bytes = (size_t)outputs * es;
            j->want_v = test_malloc(j->v_bytes + 1);
            for (uint64_t q = 0; q < outputs; q++) {
                uint64_t o = q / v.inner, l = q % v.inner;
                uint64_t at = (o * v.n + (uint64_t)idx[q]) * v.inner + l;
                memcpy(j->want_v + q * es, (const unsigned char *)j->x + at * es, es);
            }
        }
        j->y_es = job_index_size(j);
        j->y_bytes = (size_t)outputs * j->y_es;
        if (j->itype == CLMAX_INDEX_INT32) {
            j->want = test_malloc(j->y_bytes);
            for (uint64_t i = 0; i < outputs; i++) {
                int32_t v32 = (int32_t)idx[i];
                memcpy(j->want + i * 4, &v32, 4);
            }
            free(idx);
        } else {
            j->want = (unsigned char *)idx;
        }
        snprintf(j->what, sizeof j->what,
                 "%s %s %s opset %d axis %" PRId64 " keepdims %d select_last_index %d %s",
                 j->values ? (j->min ? "min_with_indices" : "max_with_indices")
                 : j->min  ? "argmin"
                           : "argmax",
                 test_type_str(type), shape, j->aa.opset, j->aa.axis, j->aa.keepdims,
                 j->aa.select_last_index, j->itype == CLMAX_INDEX_INT32 ? "int32" : "int64");
    }
    size_t used = strlen(j->what);
    snprintf(j->what + used, sizeof j->what - used,
             ", input %s seed %" PRIu64 ", x_offset %zu y_offset %zu", input_str(kind), seed,
             j->x_off, j->y_off);
    used = strlen(j->what);
    if (j->values) snprintf(j->what + used, sizeof j->what - used, " values_offset %zu", j->v_off);
}

void job_free(job *j)
{
    cl_event *evs[] = {&j->write, &j->done, &j->read_x, &j->read_y, &j->read_v};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (*evs[i]) clReleaseEvent(*evs[i]);
    arena_free(&j->xa);
    arena_free(&j->ya);
    arena_free(&j->va);
    free(j->x);
    free(j->want);
    free(j->want_v);
    free(j->got_x);
    free(j->got_y);
    free(j->got_v);
    memset(j, 0, sizeof *j);
}

static const char *job_fail(job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(j->err, sizeof j->err, "%s: ", j->what);
    if (n > 0 && (size_t)n < sizeof j->err)
        vsnprintf(j->err + n, sizeof j->err - (size_t)n, fmt, ap);
    va_end(ap);
    return j->err;
}

/* The buffers; unless preload, a non-blocking write of x after the wait list (its event in
 * j->write). */
const char *job_buffers(const clenv *e, job *j, cl_uint nwait, const cl_event *wait)
{
    const char *m = arena_make(e, &j->xa, j->x_off, j->x_bytes, j->x, j->preload);
    if (m == NULL) m = arena_make(e, &j->ya, j->y_off, j->y_bytes, NULL, 1);
    if (m == NULL && j->values) m = arena_make(e, &j->va, j->v_off, j->v_bytes, NULL, 1);
    if (m != NULL) return job_fail(j, "%s", m);
    if (!j->preload) {
        cl_int err = clEnqueueWriteBuffer(e->queue, j->xa.mem, CL_FALSE, j->x_off, j->x_bytes, j->x,
                                          nwait, wait, &j->write);
        if (err != CL_SUCCESS) return job_fail(j, "clEnqueueWriteBuffer: %d", (int)err);
    }
    return NULL;
}

/* The clmax call, after j->write when there is one, else after the wait list. */
clmax_status job_enqueue(clmax_context *ctx, job *j, const clmax_enqueue_options *opts,
                         cl_uint nwait, const cl_event *wait)
{
    clmax_enqueue_options o;
    if (opts)
        o = *opts;
    else
        clmax_enqueue_options_init(&o);
    o.index_type = j->itype;
    if (j->write) {
        nwait = 1;
        wait = &j->write;
    }
    if (j->hardmax)
        j->st = clmax_enqueue_hardmax(ctx, &j->desc, j->xa.mem, j->x_off, &j->ha, j->ya.mem,
                                      j->y_off, &o, nwait, wait, &j->done);
    else if (j->values && j->min)
        j->st = clmax_enqueue_min_with_indices(ctx, &j->desc, j->xa.mem, j->x_off, &j->aa,
                                               j->va.mem, j->v_off, j->ya.mem, j->y_off, &o, nwait,
                                               wait, &j->done);
    else if (j->values)
        j->st = clmax_enqueue_max_with_indices(ctx, &j->desc, j->xa.mem, j->x_off, &j->aa,
                                               j->va.mem, j->v_off, j->ya.mem, j->y_off, &o, nwait,
                                               wait, &j->done);
    else if (j->min)
        j->st = clmax_enqueue_argmin(ctx, &j->desc, j->xa.mem, j->x_off, &j->aa, j->ya.mem,
                                     j->y_off, &o, nwait, wait, &j->done);
    else
        j->st = clmax_enqueue_argmax(ctx, &j->desc, j->xa.mem, j->x_off, &j->aa, j->ya.mem,
                                     j->y_off, &o, nwait, wait, &j->done);
    if (j->st != CLMAX_OK)
        job_fail(j, "enqueue: %s: %s", clmax_status_string(j->st), clmax_last_error());
    return j->st;
}

/* Non-blocking reads of the whole arenas that wait only on clmax's event. */
const char *job_read(const clenv *e, job *j)
{
    j->got_x = malloc(j->xa.size);
    j->got_y = malloc(j->ya.size);
    if (j->got_x == NULL || j->got_y == NULL) return job_fail(j, "out of host memory");
    if (j->values) {
        j->got_v = malloc(j->va.size);
        if (j->got_v == NULL) return job_fail(j, "out of host memory");
        cl_int err = clEnqueueReadBuffer(e->queue, j->va.mem, CL_FALSE, 0, j->va.size, j->got_v, 1,
                                         &j->done, &j->read_v);
        if (err != CL_SUCCESS) return job_fail(j, "clEnqueueReadBuffer(values): %d", (int)err);
    }
    cl_int err = clEnqueueReadBuffer(e->queue, j->ya.mem, CL_FALSE, 0, j->ya.size, j->got_y, 1,
                                     &j->done, &j->read_y);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(e->queue, j->xa.mem, CL_FALSE, 0, j->xa.size, j->got_x, 1,
                                  &j->done, &j->read_x);
    if (err != CL_SUCCESS) return job_fail(j, "clEnqueueReadBuffer: %d", (int)err);
    return NULL;
}

const char *job_wait(job *j)
{
    cl_event evs[3] = {j->read_y, j->read_x, j->read_v};
    cl_int err = clWaitForEvents(j->read_v ? 3 : 2, evs);
    if (err != CL_SUCCESS) return job_fail(j, "clWaitForEvents: %d", (int)err);
    return NULL;
}

static uint64_t bits_at(const unsigned char *p, size_t es)
{
    uint64_t v = 0;
    memcpy(&v, p, es); /* little-endian hosts: the element's bits */
    return v;
}

/* One output arena read back (size bytes, the output at off): equal to want, guard bytes intact. */
static const char *check_output(job *j, const char *name, const unsigned char *y, size_t size,
                                size_t off, const unsigned char *want, size_t bytes, size_t es)
{
    for (size_t i = 0; i < size; i++) {
        if (i >= off && i < off + bytes) continue;
        if (y[i] != GUARD_BYTE)
            return job_fail(j, "guard byte %zu of the %s buffer (output at %zu..%zu) is 0x%02x", i,
                            name, off, off + bytes, y[i]);
    }
    if (memcmp(y + off, want, bytes) != 0) {
        size_t i = 0;
        while (memcmp(y + off + i * es, want + i * es, es) == 0)
            i++;
        return job_fail(j, "%s element %zu is 0x%" PRIx64 ", the reference says 0x%" PRIx64, name,
                        i, bits_at(y + off + i * es, es), bits_at(want + i * es, es));
    }
    return NULL;
}

/* Output (and values) range equal to want, guard bytes intact, input arena untouched. */
const char *job_check(job *j)
{
    const char *m =
        check_output(j, "output", j->got_y, j->ya.size, j->y_off, j->want, j->y_bytes, j->y_es);
    if (m == NULL && j->values)
        m = check_output(j, "values", j->got_v, j->va.size, j->v_off, j->want_v, j->v_bytes,
                         ref_type_size(j->desc.type));
    if (m != NULL) return m;
    if (j->got_x && memcmp(j->got_x, j->xa.image, j->xa.size) != 0)
        return job_fail(j, "the input buffer was modified");
    return NULL;
}

/* The host API on ctx into got_y (and got_v), laid out as arenas so that job_check applies. */
const char *job_host(clmax_context *ctx, job *j)
{
    j->ya.off = j->y_off;
    j->ya.bytes = j->y_bytes;
    j->ya.size = j->y_off + j->y_bytes + GUARD;
    j->got_y = malloc(j->ya.size);
    if (j->got_y == NULL) return job_fail(j, "out of host memory");
    memset(j->got_y, GUARD_BYTE, j->ya.size);
    if (j->values) {
        j->va.size = j->v_off + j->v_bytes + GUARD;
        j->got_v = malloc(j->va.size);
        if (j->got_v == NULL) return job_fail(j, "out of host memory");
        memset(j->got_v, GUARD_BYTE, j->va.size);
    }
    if (j->hardmax) {
        j->st = clmax_hardmax(ctx, &j->desc, j->x, &j->ha, j->got_y + j->y_off);
    } else {
        int64_t *idx = malloc(j->y_bytes / j->y_es * 8 + 8);
        if (idx == NULL) return job_fail(j, "out of host memory");
        void *v = j->values ? j->got_v + j->v_off : NULL;
        j->st = j->values && j->min ? clmax_min_with_indices(ctx, &j->desc, j->x, &j->aa, v, idx)
                : j->values         ? clmax_max_with_indices(ctx, &j->desc, j->x, &j->aa, v, idx)
                : j->min            ? clmax_argmin(ctx, &j->desc, j->x, &j->aa, idx)
                                    : clmax_argmax(ctx, &j->desc, j->x, &j->aa, idx);
        for (size_t i = 0; i < j->y_bytes / j->y_es; i++) {
            int32_t v32 = (int32_t)idx[i];
            memcpy(j->got_y + j->y_off + i * j->y_es, j->y_es == 4 ? (void *)&v32 : (void *)&idx[i],
                   j->y_es);
        }
        free(idx);
    }
    if (j->st != CLMAX_OK)
        return job_fail(j, "host API: %s: %s", clmax_status_string(j->st), clmax_last_error());
    return job_check(j);
}

/* One job start to end: write x (an event) -> clmax -> read waiting on clmax's event only; then
 * the same case on the host API of host_ctx (when given) must agree too. */
void run_job(const clenv *e, clmax_context *ctx, clmax_context *host_ctx, job *j,
             const clmax_enqueue_options *opts)
{
    JOB_OK(job_buffers(e, j, 0, NULL));
    if (job_enqueue(ctx, j, opts, 0, NULL) != CLMAX_OK) cr_assert_fail("%s", j->err);
    cr_assert_not_null(j->done, "%s: no event", j->what);
    JOB_OK(job_read(e, j));
    JOB_OK(job_wait(j));
    cr_assert_eq(event_status(j->done), CL_COMPLETE, "%s", j->what);
    JOB_OK(job_check(j));
    if (host_ctx && j->itype == CLMAX_INDEX_INT64) {
        free(j->got_y);
        free(j->got_x);
        free(j->got_v);
        j->got_x = j->got_y = j->got_v = NULL;
        JOB_OK(job_host(host_ctx, j));
    }
}

/* ---- Types, shapes ------------------------------------------------------------------------- */

const clmax_type some_types[7] = {CLMAX_TYPE_FLOAT32, CLMAX_TYPE_FLOAT16, CLMAX_TYPE_BFLOAT16,
                                  CLMAX_TYPE_FLOAT64, CLMAX_TYPE_INT8,    CLMAX_TYPE_UINT64,
                                  CLMAX_TYPE_INT64};

/* The last: slices of whole vectors of lanes (SLICES_SHORT's on CPU devices, 1 to 4 vectors). */
const shape3 shapes[7] = {{2, {37, 1000}, 1},   {3, {5, 300, 33}, 1}, {2, {1000, 3}, 0},
                          {2, {3, 200003}, -1}, {2, {50, 33}, 1},     {2, {200, 5003}, 0},
                          {3, {40, 5, 32}, 1}};

int planner_free(void)
{
    return getenv("CLMAX_STRATEGY") == NULL;
}
