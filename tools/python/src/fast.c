/* The common NumPy call in C: clmax.argmax / argmin of a C-contiguous NumPy array of a native
 * type along an int axis, with no out=. The Python layer's steps for it (the dtype table, the
 * flags, np.empty, the call's eleven arguments) cost more than the operator on a [1, 1000] row
 * (0.55 us against 0.12 us); here they are a buffer request and np.empty. Any other call gets
 * None, and the Python layer takes it as before (its errors included). */
#include "module.h"

/* numpy.ndarray, numpy.empty and numpy.dtype("int64"), given by clmax._numpy at import. */
static PyObject *ndarray_type, *np_empty, *int64_dtype;

/* set_numpy(ndarray, empty, int64) */
PyObject *clmax_py_set_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3 || !PyType_Check(args[0]) || !PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "set_numpy(ndarray, empty, int64)");
        return NULL;
    }
    PyObject *old[3] = {ndarray_type, np_empty, int64_dtype};
    Py_INCREF(args[0]);
    Py_INCREF(args[1]);
    Py_INCREF(args[2]);
    ndarray_type = args[0], np_empty = args[1], int64_dtype = args[2];
    for (int i = 0; i < 3; i++)
        Py_XDECREF(old[i]);
    Py_RETURN_NONE;
}

/* The clmax type of a buffer's struct format of one native item, or -1. bool is read as uint8
 * (False < True), as clmax._core.TYPES does. */
static int type_of(const char *f, Py_ssize_t size)
{
    if (f == NULL) return -1;
#if PY_LITTLE_ENDIAN
    if (*f == '@' || *f == '=' || *f == '<') f++;
#else
    if (*f == '@' || *f == '=' || *f == '>') f++;
#endif
    if (f[0] == '\0' || f[1] != '\0') return -1;
    static const clmax_type sint[9] = {[1] = CLMAX_TYPE_INT8,
                                       [2] = CLMAX_TYPE_INT16,
                                       [4] = CLMAX_TYPE_INT32,
                                       [8] = CLMAX_TYPE_INT64};
    static const clmax_type uint[9] = {[1] = CLMAX_TYPE_UINT8,
                                       [2] = CLMAX_TYPE_UINT16,
                                       [4] = CLMAX_TYPE_UINT32,
                                       [8] = CLMAX_TYPE_UINT64};
    switch (f[0]) {
    case 'e':
        return size == 2 ? CLMAX_TYPE_FLOAT16 : -1;
    case 'f':
        return size == 4 ? CLMAX_TYPE_FLOAT32 : -1;
    case 'd':
        return size == 8 ? CLMAX_TYPE_FLOAT64 : -1;
    case '?':
        return size == 1 ? CLMAX_TYPE_UINT8 : -1;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
        return size >= 1 && size <= 8 && sint[size] ? (int)sint[size] : -1;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
        return size >= 1 && size <= 8 && uint[size] ? (int)uint[size] : -1;
    default:
        return -1;
    }
}

/* fast(ctx, op, a, axis, keepdims, last): the indices as clmax.argmax returns them (a NumPy
 * int64 scalar for a 1-d input without keepdims), or None where the call is not the common one.
 * op: 0 ArgMax, 1 ArgMin (clmax._core). */
PyObject *clmax_py_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "fast() takes 6 arguments");
        return NULL;
    }
    PyObject *a = args[2];
    if (ndarray_type == NULL || (PyObject *)Py_TYPE(a) != ndarray_type || !PyLong_Check(args[3]))
        Py_RETURN_NONE;
    const long op = PyLong_AsLong(args[1]);
    int overflow;
    long axis = PyLong_AsLongAndOverflow(args[3], &overflow);
    if ((op != 0 && op != 1) || overflow) Py_RETURN_NONE;
    const int keepdims = PyObject_IsTrue(args[4]), last = PyObject_IsTrue(args[5]);
    if (keepdims < 0 || last < 0) return NULL;
    Py_buffer x;
    if (PyObject_GetBuffer(a, &x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear(); /* not C-contiguous: the Python layer copies it */
        Py_RETURN_NONE;
    }
    const int nd = x.ndim, type = type_of(x.format, x.itemsize);
    if (type < 0 || nd < 1 || nd > CLMAX_MAX_RANK || axis < -nd || axis >= nd ||
        x.shape[axis < 0 ? axis + nd : axis] == 0) {
        PyBuffer_Release(&x); /* the Python layer converts, or raises NumPy's error */
        Py_RETURN_NONE;
    }
    if (axis < 0) axis += nd;

    clmax_tensor_desc d;
    memset(&d, 0, sizeof d);
    d.type = (clmax_type)type;
    d.rank = nd;
    PyObject *shape = PyTuple_New(keepdims ? nd : nd - 1), *ri = NULL;
    if (shape == NULL) goto done;
    for (int i = 0, k = 0; i < nd; i++) {
        d.dims[i] = x.shape[i];
        if (i == axis && !keepdims) continue;
        PyObject *v = PyLong_FromSsize_t(i == axis ? 1 : x.shape[i]);
        if (v == NULL) goto done;
        PyTuple_SET_ITEM(shape, k++, v);
    }
    PyObject *empty_args[2] = {shape, int64_dtype};
    ri = PyObject_Vectorcall(np_empty, empty_args, 2, NULL);
    if (ri == NULL) goto done;
    Py_buffer out;
    if (PyObject_GetBuffer(ri, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto fail;
    clmax_argmax_attrs at;
    clmax_argmax_attrs_init(&at, 13);
    at.axis = axis;
    at.keepdims = keepdims;
    at.select_last_index = last;
    clmax_context *ctx = clmax_py_context_take(args[0]);
    clmax_status s = CLMAX_OK;
    if (ctx != NULL) {
        PyThreadState *ts = PyEval_SaveThread();
        s = op == 0 ? clmax_argmax(ctx, &d, x.buf, &at, out.buf)
                    : clmax_argmin(ctx, &d, x.buf, &at, out.buf);
        PyEval_RestoreThread(ts);
        clmax_py_context_give(args[0]);
    }
    PyBuffer_Release(&out);
    if (ctx == NULL) goto fail;
    if (s != CLMAX_OK) {
        clmax_py_raise(s);
        goto fail;
    }
    if (!keepdims && nd == 1) {                    /* NumPy's scalar, as ri[()] */
        PyObject *r = PyObject_GetItem(ri, shape); /* shape is the empty tuple here */
        Py_DECREF(ri);
        ri = r;
    }
    goto done;
fail:
    Py_CLEAR(ri);
done:
    Py_XDECREF(shape);
    PyBuffer_Release(&x);
    return ri;
}
