/* The operator calls: host() on buffers, enqueue() on cl_mem handles, and last_report(). The
 * Python layer (tools/python/clmax/) has already turned the user's arrays into a C-contiguous
 * buffer, a clmax type, dims and an axis; this file checks what could crash (sizes, overlap,
 * writability) and runs the C call with the GIL released. */
#include "module.h"

#include <limits.h>
#include <string.h>

enum { OP_ARGMAX, OP_ARGMIN, OP_MAX_WITH_INDICES, OP_MIN_WITH_INDICES, OP_HARDMAX, OP_COUNT };

/* The arguments both calls share, parsed. */
typedef struct {
    int op;
    clmax_tensor_desc desc;
    clmax_argmax_attrs arg;
    clmax_hardmax_attrs hard;
    uint64_t count;        /* input elements */
    uint64_t out_count;    /* elements of the indices (or of Hardmax's y) */
    size_t esize;          /* input element size */
    clmax_tensor_desc out; /* the output's shape */
} call_args;

static int as_int(PyObject *o, const char *what, long long *v)
{
    *v = PyLong_AsLongLong(o);
    if (*v == -1 && PyErr_Occurred()) {
        int overflow = PyErr_ExceptionMatches(PyExc_OverflowError);
        PyErr_Clear();
        PyErr_Format(overflow ? PyExc_ValueError : PyExc_TypeError,
                     overflow ? "%s is out of range" : "%s must be an int", what);
        return 0;
    }
    return 1;
}

/* An attribute the C API takes as int: refused out of int's range, never truncated. */
static int as_small_int(PyObject *o, const char *what, long long *v)
{
    if (!as_int(o, what, v)) return 0;
    if (*v < INT_MIN || *v > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s=%lld is out of range", what, *v);
        return 0;
    }
    return 1;
}

/* op, type, dims, axis, keepdims, last, opset (seven objects) into a; 0 with an exception. */
static int parse_call(PyObject *const *o, call_args *a)
{
    long long op, type, axis, keepdims, last, opset;
    clmax_status s;
    clmax_tensor_desc *out = &a->out;

    memset(a, 0, sizeof *a);
    if (!as_int(o[0], "op", &op) || !as_int(o[1], "type", &type) || !as_int(o[3], "axis", &axis) ||
        !as_small_int(o[4], "keepdims", &keepdims) ||
        !as_small_int(o[5], "select_last_index", &last) || !as_small_int(o[6], "opset", &opset))
        return 0;
    if (op < 0 || op >= OP_COUNT) {
        PyErr_SetString(PyExc_ValueError, "unknown operator code");
        return 0;
    }
    a->op = (int)op;
    a->esize = clmax_type_size((clmax_type)type);
    if (a->esize == 0) {
        PyErr_Format(PyExc_TypeError, "clmax has no element type %lld", type);
        return 0;
    }
    if (!PyTuple_Check(o[2])) {
        PyErr_SetString(PyExc_TypeError, "dims must be a tuple");
        return 0;
    }
    Py_ssize_t rank = PyTuple_GET_SIZE(o[2]);
    if (rank < 1 || rank > CLMAX_MAX_RANK) {
        PyErr_Format(PyExc_ValueError, "rank %zd: clmax takes 1 to %d dimensions", rank,
                     CLMAX_MAX_RANK);
        return 0;
    }
    a->desc.type = (clmax_type)type;
    a->desc.rank = (int)rank;
    for (Py_ssize_t i = 0; i < rank; i++) {
        long long d;
        if (!as_int(PyTuple_GET_ITEM(o[2], i), "a dimension", &d)) return 0;
        a->desc.dims[i] = d;
    }
    if (a->op == OP_HARDMAX) {
        if ((s = clmax_hardmax_attrs_init(&a->hard, (int)opset)) != CLMAX_OK) goto refused;
        a->hard.axis = axis;
        s = clmax_hardmax_output_desc(&a->desc, &a->hard, out);
    } else {
        if ((s = clmax_argmax_attrs_init(&a->arg, (int)opset)) != CLMAX_OK) goto refused;
        a->arg.axis = axis;
        a->arg.keepdims = (int)keepdims;
        a->arg.select_last_index = (int)last;
        s = clmax_argmax_output_desc(&a->desc, &a->arg, out);
    }
    if (s != CLMAX_OK) goto refused;
    if ((s = clmax_tensor_desc_count(&a->desc, &a->count)) != CLMAX_OK) goto refused;
    if (out->rank == 0) {
        a->out_count = 1;
    } else if ((s = clmax_tensor_desc_count(out, &a->out_count)) != CLMAX_OK) {
        goto refused;
    }
    return 1;
refused:
    clmax_py_raise(s);
    return 0;
}

/* shape(op, type, dims, axis, keepdims, last, opset) -> the output's dims, as the C library
 * infers them (its checks and messages included). */
PyObject *clmax_py_shape(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    call_args a;
    (void)self;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "shape() takes 7 arguments");
        return NULL;
    }
    if (!parse_call(args, &a)) return NULL;
    PyObject *t = PyTuple_New(a.out.rank);
    for (int i = 0; t != NULL && i < a.out.rank; i++) {
        PyObject *d = PyLong_FromLongLong(a.out.dims[i]);
        if (d == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, d);
    }
    return t;
}

/* A buffer of at least need bytes; writable when asked. */
static int get_buffer(PyObject *o, Py_buffer *view, int writable, uint64_t need, const char *what)
{
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous%s buffer", what,
                     writable ? " writable" : "");
        return 0;
    }
    if ((uint64_t)view->len < need) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd bytes, %llu needed", what, view->len,
                     (unsigned long long)need);
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
}

static int overlap(const Py_buffer *a, uint64_t alen, const Py_buffer *b, uint64_t blen)
{
    uintptr_t pa = (uintptr_t)a->buf, pb = (uintptr_t)b->buf;
    return alen && blen && pa < pb + blen && pb < pa + alen;
}

/* host(ctx, op, x, type, dims, axis, keepdims, last, opset, out, out2) */
PyObject *clmax_py_host(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    call_args a;
    Py_buffer x, out, out2;
    int have_out2;
    clmax_status s;
    PyObject *o[7];

    (void)self;
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "host() takes 11 arguments");
        return NULL;
    }
    o[0] = args[1];
    o[1] = args[3];
    for (int i = 2; i < 7; i++)
        o[i] = args[i + 2];
    if (!parse_call(o, &a)) return NULL;
    have_out2 = a.op == OP_MAX_WITH_INDICES || a.op == OP_MIN_WITH_INDICES;
    uint64_t in_bytes = a.count * a.esize;
    uint64_t out_bytes = a.out_count * (a.op == OP_HARDMAX ? a.esize : sizeof(int64_t));
    uint64_t out2_bytes = have_out2 ? a.out_count * a.esize : 0;

    if (!get_buffer(args[2], &x, 0, in_bytes, "the input")) return NULL;
    if (!get_buffer(args[9], &out, 1, out_bytes, "the output")) goto release_x;
    if (have_out2 && !get_buffer(args[10], &out2, 1, out2_bytes, "the values' output"))
        goto release_out;
    if (overlap(&x, in_bytes, &out, out_bytes) ||
        (have_out2 && (overlap(&x, in_bytes, &out2, out2_bytes) ||
                       overlap(&out, out_bytes, &out2, out2_bytes)))) {
        PyErr_SetString(PyExc_ValueError, "the outputs must not overlap the input or each other");
        goto release_all;
    }
    clmax_context *ctx = clmax_py_context_take(args[0]);
    if (ctx == NULL) goto release_all;
    PyThreadState *ts = PyEval_SaveThread();
    switch (a.op) {
    case OP_ARGMAX:
        s = clmax_argmax(ctx, &a.desc, x.buf, &a.arg, out.buf);
        break;
    case OP_ARGMIN:
        s = clmax_argmin(ctx, &a.desc, x.buf, &a.arg, out.buf);
        break;
    case OP_MAX_WITH_INDICES:
        s = clmax_max_with_indices(ctx, &a.desc, x.buf, &a.arg, out2.buf, out.buf);
        break;
    case OP_MIN_WITH_INDICES:
        s = clmax_min_with_indices(ctx, &a.desc, x.buf, &a.arg, out2.buf, out.buf);
        break;
    default:
        s = clmax_hardmax(ctx, &a.desc, x.buf, &a.hard, out.buf);
        break;
    }
    PyEval_RestoreThread(ts);
    clmax_py_context_give(args[0]);
    if (s != CLMAX_OK) clmax_py_raise(s);
release_all:
    if (have_out2) PyBuffer_Release(&out2);
release_out:
    PyBuffer_Release(&out);
release_x:
    PyBuffer_Release(&x);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static int as_handle(PyObject *o, const char *what, uintptr_t *h, int may_be_none)
{
    if (may_be_none && o == Py_None) {
        *h = 0;
        return 1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s must be an OpenCL handle (int)", what);
        return 0;
    }
    *h = (uintptr_t)v;
    return 1;
}

static int as_offset(PyObject *o, const char *what, size_t *v)
{
    *v = PyLong_AsSize_t(o);
    if (*v == (size_t)-1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%s must be a non-negative int", what);
        return 0;
    }
    return 1;
}

/* enqueue(ctx, op, x, x_off, type, dims, axis, keepdims, last, opset, out, out_off, out2,
 * out2_off, int32, wait) -> the completion event's handle (the caller owns it) */
PyObject *clmax_py_enqueue(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    call_args a;
    uintptr_t x, out, out2;
    size_t x_off, out_off, out2_off = 0;
    clmax_enqueue_options options;
    cl_event *wait = NULL, event = NULL;
    Py_ssize_t nwait;
    clmax_status s;
    PyObject *o[7];
    int int32;

    (void)self;
    if (nargs != 16) {
        PyErr_SetString(PyExc_TypeError, "enqueue() takes 16 arguments");
        return NULL;
    }
    o[0] = args[1];
    for (int i = 1; i < 7; i++)
        o[i] = args[i + 3];
    if (!parse_call(o, &a)) return NULL;
    if (!as_handle(args[2], "x", &x, 0) || !as_offset(args[3], "x_offset", &x_off) ||
        !as_handle(args[10], "out", &out, 0) || !as_offset(args[11], "out_offset", &out_off) ||
        !as_handle(args[12], "out2", &out2, 1) ||
        (args[13] != Py_None && !as_offset(args[13], "out2_offset", &out2_off)))
        return NULL;
    if ((int32 = PyObject_IsTrue(args[14])) < 0) return NULL;
    if (!PyTuple_Check(args[15])) {
        PyErr_SetString(PyExc_TypeError, "wait must be a tuple of event handles");
        return NULL;
    }
    nwait = PyTuple_GET_SIZE(args[15]);
    if (nwait > 0) {
        wait = PyMem_Calloc((size_t)nwait, sizeof *wait);
        if (wait == NULL) return PyErr_NoMemory();
        for (Py_ssize_t i = 0; i < nwait; i++) {
            uintptr_t e;
            if (!as_handle(PyTuple_GET_ITEM(args[15], i), "an event", &e, 0)) {
                PyMem_Free(wait);
                return NULL;
            }
            wait[i] = (cl_event)e;
        }
    }
    clmax_enqueue_options_init(&options);
    options.index_type = int32 ? CLMAX_INDEX_INT32 : CLMAX_INDEX_INT64;
    clmax_context *ctx = clmax_py_context_take(args[0]);
    if (ctx == NULL) {
        PyMem_Free(wait);
        return NULL;
    }
    PyThreadState *ts = PyEval_SaveThread();
    cl_mem mx = (cl_mem)x, mout = (cl_mem)out, mout2 = (cl_mem)out2;
    switch (a.op) {
    case OP_ARGMAX:
        s = clmax_enqueue_argmax(ctx, &a.desc, mx, x_off, &a.arg, mout, out_off, &options,
                                 (cl_uint)nwait, wait, &event);
        break;
    case OP_ARGMIN:
        s = clmax_enqueue_argmin(ctx, &a.desc, mx, x_off, &a.arg, mout, out_off, &options,
                                 (cl_uint)nwait, wait, &event);
        break;
    case OP_MAX_WITH_INDICES:
        s = clmax_enqueue_max_with_indices(ctx, &a.desc, mx, x_off, &a.arg, mout2, out2_off, mout,
                                           out_off, &options, (cl_uint)nwait, wait, &event);
        break;
    case OP_MIN_WITH_INDICES:
        s = clmax_enqueue_min_with_indices(ctx, &a.desc, mx, x_off, &a.arg, mout2, out2_off, mout,
                                           out_off, &options, (cl_uint)nwait, wait, &event);
        break;
    default:
        s = clmax_enqueue_hardmax(ctx, &a.desc, mx, x_off, &a.hard, mout, out_off, &options,
                                  (cl_uint)nwait, wait, &event);
        break;
    }
    PyEval_RestoreThread(ts);
    clmax_py_context_give(args[0]);
    PyMem_Free(wait);
    if (s != CLMAX_OK) return clmax_py_raise(s);
    if (event == NULL) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)event);
}

PyObject *clmax_py_last_report(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const clmax_call_report *r = clmax_last_call_report();
    const char *backend = r->backend == CLMAX_BACKEND_OPENCL ? "opencl"
                          : r->backend == CLMAX_BACKEND_CPU  ? "cpu"
                                                             : "";
    return Py_BuildValue("(sssss)", backend, r->device,
                         r->fallback_status == CLMAX_OK ? ""
                                                        : clmax_status_string(r->fallback_status),
                         r->fallback_message, r->choice);
}
