/* clmax._clmax.Context: a clmax_context, made from a backend and device selector, or on a
 * PyOpenCL context, device and queue (their handles as integers). */
#include "module.h"

static void context_destroy(ClmaxContext *self)
{
    clmax_context *ctx = self->ctx;
    self->ctx = NULL;
    if (ctx == NULL) return;
    /* Destroying joins the CPU path's threads: no Python is needed meanwhile. */
    PyThreadState *ts = PyEval_SaveThread();
    clmax_context_destroy(ctx);
    PyEval_RestoreThread(ts);
}

static void context_dealloc(ClmaxContext *self)
{
    /* A call holds a reference to its context, so no call runs here. */
    context_destroy(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Context(backend, device, num_threads): backend 0 auto, 1 opencl, 2 cpu; device None or a
 * selector string. */
static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"backend", "device", "num_threads", NULL};
    int backend = 0, num_threads = 0;
    const char *device = NULL;
    clmax_context_options options;
    clmax_context *ctx = NULL;
    clmax_status s;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|izi:Context", names, &backend, &device,
                                     &num_threads))
        return NULL;
    if (backend < 0 || backend > 2) {
        PyErr_SetString(PyExc_ValueError, "backend must be 0 (auto), 1 (opencl) or 2 (cpu)");
        return NULL;
    }
    if (num_threads < 0) {
        PyErr_SetString(PyExc_ValueError, "num_threads must be 0 (one per core) or more");
        return NULL;
    }
    clmax_context_options_init(&options);
    options.backend = (clmax_backend)backend;
    options.device = device;
    options.num_threads = num_threads;
    PyThreadState *ts = PyEval_SaveThread();
    s = clmax_context_create(&options, &ctx);
    PyEval_RestoreThread(ts);
    if (s != CLMAX_OK) return clmax_py_raise(s);
    ClmaxContext *self = (ClmaxContext *)type->tp_alloc(type, 0);
    if (self == NULL) {
        clmax_context_destroy(ctx);
        return NULL;
    }
    self->ctx = ctx;
    return (PyObject *)self;
}

/* Context.from_cl(cl_context, cl_device_id, cl_command_queue): handles as integers; clmax
 * retains the three objects and releases only what it retained. */
static PyObject *context_from_cl(PyObject *cls, PyObject *args)
{
    unsigned long long c, d, q;
    clmax_context *ctx = NULL;
    clmax_status s;

    if (!PyArg_ParseTuple(args, "KKK:from_cl", &c, &d, &q)) return NULL;
    if (c == 0 || d == 0 || q == 0) {
        PyErr_SetString(PyExc_ValueError, "from_cl: a NULL OpenCL handle");
        return NULL;
    }
    PyThreadState *ts = PyEval_SaveThread();
    s = clmax_context_create_from_cl((cl_context)(uintptr_t)c, (cl_device_id)(uintptr_t)d,
                                     (cl_command_queue)(uintptr_t)q, NULL, &ctx);
    PyEval_RestoreThread(ts);
    if (s != CLMAX_OK) return clmax_py_raise(s);
    ClmaxContext *self = (ClmaxContext *)((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
    if (self == NULL) {
        clmax_context_destroy(ctx);
        return NULL;
    }
    self->ctx = ctx;
    self->from_cl = 1;
    return (PyObject *)self;
}

static PyObject *context_close(ClmaxContext *self, PyObject *unused)
{
    (void)unused;
    if (self->users > 0) {
        PyErr_SetString(PyExc_RuntimeError,
                        "clmax.Context.close(): calls are still running on this context");
        return NULL;
    }
    context_destroy(self);
    Py_RETURN_NONE;
}

static PyObject *context_closed(ClmaxContext *self, void *unused)
{
    (void)unused;
    return PyBool_FromLong(self->ctx == NULL);
}

/* The getters below raise on a closed context rather than answer for one that is gone. */
static int live(ClmaxContext *self)
{
    if (self->ctx != NULL) return 1;
    PyErr_SetString(PyExc_ValueError, "the clmax context is closed");
    return 0;
}

static PyObject *context_backend(ClmaxContext *self, void *unused)
{
    (void)unused;
    if (!live(self)) return NULL;
    return PyUnicode_FromString(clmax_context_backend(self->ctx) == CLMAX_BACKEND_OPENCL ? "opencl"
                                                                                         : "cpu");
}

static PyObject *context_device(ClmaxContext *self, void *unused)
{
    (void)unused;
    if (!live(self)) return NULL;
    return PyUnicode_FromString(clmax_context_device_name(self->ctx));
}

static PyObject *context_warnings(ClmaxContext *self, void *unused)
{
    (void)unused;
    if (!live(self)) return NULL;
    return PyUnicode_FromString(clmax_context_warnings(self->ctx));
}

static PyObject *context_is_from_cl(ClmaxContext *self, void *unused)
{
    (void)unused;
    return PyBool_FromLong(self->from_cl);
}

clmax_context *clmax_py_context_take(PyObject *obj)
{
    if (!PyObject_TypeCheck(obj, &ClmaxContext_Type)) {
        PyErr_SetString(PyExc_TypeError, "context must be a clmax.Context");
        return NULL;
    }
    ClmaxContext *self = (ClmaxContext *)obj;
    if (!live(self)) return NULL;
    self->users++;
    return self->ctx;
}

void clmax_py_context_give(PyObject *obj)
{
    ((ClmaxContext *)obj)->users--;
}

/* prebuild(types, operators): types a tuple of clmax_type codes (empty: all), operators a
 * CLMAX_PREBUILD_* mask (0: all). Returns (programs, compiled, from_cache, in_context). The build
 * runs with the GIL released. */
static PyObject *context_prebuild(PyObject *self, PyObject *args)
{
    PyObject *codes;
    unsigned operators;
    if (!PyArg_ParseTuple(args, "O!I:prebuild", &PyTuple_Type, &codes, &operators)) return NULL;
    clmax_type types[32];
    Py_ssize_t n = PyTuple_GET_SIZE(codes);
    if (n > (Py_ssize_t)(sizeof types / sizeof types[0])) {
        PyErr_SetString(PyExc_ValueError, "too many types");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long code = PyLong_AsLong(PyTuple_GET_ITEM(codes, i));
        if (code == -1 && PyErr_Occurred()) return NULL;
        types[i] = (clmax_type)code;
    }
    clmax_prebuild_options o;
    clmax_prebuild_options_init(&o);
    o.types = n ? types : NULL;
    o.ntypes = (size_t)n;
    o.operators = operators;
    clmax_context *ctx = clmax_py_context_take(self);
    if (ctx == NULL) return NULL;
    clmax_prebuild_report r;
    clmax_status s;
    PyThreadState *ts = PyEval_SaveThread();
    s = clmax_context_prebuild(ctx, &o, &r);
    PyEval_RestoreThread(ts);
    clmax_py_context_give(self);
    if (s != CLMAX_OK) return clmax_py_raise(s);
    return Py_BuildValue("(nnnn)", (Py_ssize_t)r.programs, (Py_ssize_t)r.compiled,
                         (Py_ssize_t)r.from_cache, (Py_ssize_t)r.in_context);
}

static PyMethodDef context_methods[] = {
    {"from_cl", context_from_cl, METH_VARARGS | METH_CLASS,
     "from_cl(context, device, queue): a context on OpenCL handles given as integers"},
    {"close", (PyCFunction)context_close, METH_NOARGS,
     "Release the context now (its threads and OpenCL objects); later calls on it raise."},
    {"_prebuild", context_prebuild, METH_VARARGS,
     "_prebuild(types, operators): clmax_context_prebuild; see clmax.prebuild"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef context_getset[] = {
    {"closed", (getter)context_closed, NULL, "True once close() has run", NULL},
    {"backend", (getter)context_backend, NULL, "'opencl' or 'cpu'", NULL},
    {"device", (getter)context_device, NULL, "the device's name, as clmax words it", NULL},
    {"warnings", (getter)context_warnings, NULL, "what the context could not do as asked", NULL},
    {"from_opencl_objects", (getter)context_is_from_cl, NULL,
     "True for a context made on the caller's OpenCL objects", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject ClmaxContext_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clmax._clmax.Context",
    .tp_basicsize = sizeof(ClmaxContext),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A clmax context (use clmax.Context).",
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_new = context_new,
};
