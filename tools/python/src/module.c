/* clmax._clmax: module set-up, the exception classes and the status -> exception mapping. */
#include "module.h"

PyObject *clmax_py_error, *clmax_py_device_error, *clmax_py_build_error, *clmax_py_internal_error;

PyObject *clmax_py_raise(clmax_status status)
{
    PyObject *kind;

    switch (status) {
    case CLMAX_ERROR_UNSUPPORTED_TYPE:
        kind = PyExc_TypeError;
        break;
    case CLMAX_ERROR_OUT_OF_MEMORY:
        kind = PyExc_MemoryError;
        break;
    case CLMAX_ERROR_NO_DEVICE:
    case CLMAX_ERROR_OPENCL:
        kind = clmax_py_device_error;
        break;
    case CLMAX_ERROR_BUILD:
        kind = clmax_py_build_error;
        break;
    case CLMAX_ERROR_INTERNAL:
        kind = clmax_py_internal_error;
        break;
    default: /* argument, opset, rank, shape, axis, attribute, empty axis, overflow */
        kind = PyExc_ValueError;
        break;
    }
    const char *message = clmax_last_error();
    PyErr_SetString(kind, message[0] ? message : clmax_status_string(status));
    return NULL;
}

static PyMethodDef methods[] = {
    {"shape", (PyCFunction)(void (*)(void))clmax_py_shape, METH_FASTCALL,
     "shape(op, type, dims, axis, keepdims, last, opset): the output's dims, checked as the C "
     "library checks them"},
    {"host", (PyCFunction)(void (*)(void))clmax_py_host, METH_FASTCALL,
     "host(ctx, op, x, type, dims, axis, keepdims, last, opset, out, out2): one operator on host "
     "buffers (internal: clmax.argmax and the others shape and check the arguments)"},
    {"enqueue", (PyCFunction)(void (*)(void))clmax_py_enqueue, METH_FASTCALL,
     "enqueue(ctx, op, x, x_off, type, dims, axis, keepdims, last, opset, out, out_off, out2, "
     "out2_off, int32, wait): one operator enqueued on cl_mem handles; returns the event handle "
     "(internal: used by clmax.cl)"},
    {"set_numpy", (PyCFunction)(void (*)(void))clmax_py_set_numpy, METH_FASTCALL,
     "set_numpy(ndarray, empty, int64): the NumPy objects fast() uses (internal)"},
    {"fast", (PyCFunction)(void (*)(void))clmax_py_fast, METH_FASTCALL,
     "fast(ctx, op, a, axis, keepdims, last): argmax (op 0) or argmin (1) of a C-contiguous "
     "NumPy array of a native type, or None where the Python layer must take the call (internal)"},
    {"last_report", clmax_py_last_report, METH_NOARGS,
     "The C library's report of this thread's last call: (backend, device, fallback status, "
     "fallback message, choice)"},
    {"devices", clmax_py_devices, METH_NOARGS,
     "The OpenCL devices in CLMAX_DEVICE index order, one dict each"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "clmax._clmax",
                                    "The compiled core of clmax (use the clmax package).",
                                    -1,
                                    methods,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL};

/* Adds a new exception class to m; NULL on failure. */
static PyObject *new_error(PyObject *m, const char *name, PyObject *base, const char *doc)
{
    char full[64];
    snprintf(full, sizeof full, "clmax.%s", name);
    PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, base, NULL);
    if (cls == NULL) return NULL;
    Py_INCREF(cls);
    if (PyModule_AddObject(m, name, cls) < 0) {
        Py_DECREF(cls);
        Py_DECREF(cls);
        return NULL;
    }
    return cls;
}

PyMODINIT_FUNC PyInit__clmax(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyType_Ready(&ClmaxContext_Type) < 0) goto fail;
    Py_INCREF(&ClmaxContext_Type);
    if (PyModule_AddObject(m, "Context", (PyObject *)&ClmaxContext_Type) < 0) {
        Py_DECREF(&ClmaxContext_Type);
        goto fail;
    }
    clmax_py_error = new_error(m, "Error", PyExc_RuntimeError,
                               "A failure of clmax that is not about the arguments.");
    if (clmax_py_error == NULL) goto fail;
    clmax_py_device_error = new_error(m, "DeviceError", clmax_py_error,
                                      "No usable OpenCL device, or an OpenCL call failed.");
    clmax_py_build_error =
        new_error(m, "BuildError", clmax_py_error, "An OpenCL program failed to build.");
    clmax_py_internal_error =
        new_error(m, "InternalError", clmax_py_error, "A bug in clmax: please report it.");
    if (!clmax_py_device_error || !clmax_py_build_error || !clmax_py_internal_error) goto fail;
    if (PyModule_AddStringConstant(m, "version", clmax_version_string()) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
