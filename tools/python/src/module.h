/* The compiled core of the Python package (clmax._clmax): a context type, the host-memory and
 * enqueue calls on buffers and cl_mem handles the Python layer has already checked and shaped,
 * and the error mapping. NumPy semantics live in tools/python/clmax/, not here. */
#ifndef CLMAX_PY_MODULE_H
#define CLMAX_PY_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "clmax_cl.h"

/* A clmax_context owned by a Python object. users counts the calls running on it with the GIL
 * released; close() refuses while any does, so a context is never destroyed under a call. Both
 * fields change only with the GIL held. */
typedef struct {
    PyObject_HEAD clmax_context *ctx;
    int users;
    int from_cl; /* made on the caller's OpenCL objects (PyOpenCL) */
} ClmaxContext;

extern PyTypeObject ClmaxContext_Type;

/* The exception classes the module raises besides ValueError, TypeError and MemoryError. */
extern PyObject *clmax_py_error, *clmax_py_device_error, *clmax_py_build_error,
    *clmax_py_internal_error;

/* Raises the exception that fits status, with the library's message for this thread. Returns
 * NULL so that callers can `return clmax_py_raise(s);`. */
PyObject *clmax_py_raise(clmax_status status);

/* The live context of obj, counted as a user, or NULL with an exception set (not a Context, or
 * closed). Every successful take is followed by clmax_py_context_give. */
clmax_context *clmax_py_context_take(PyObject *obj);
void clmax_py_context_give(PyObject *obj);

/* clmax._clmax.shape(...), host(...), enqueue(...), last_report(), devices(): calls.c and
 * devices.c. */
PyObject *clmax_py_shape(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *clmax_py_host(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *clmax_py_enqueue(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *clmax_py_last_report(PyObject *self, PyObject *unused);
PyObject *clmax_py_devices(PyObject *self, PyObject *unused);

/* clmax._clmax.set_numpy(...), fast(...): the common NumPy call in C (fast.c). */
PyObject *clmax_py_set_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *clmax_py_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
