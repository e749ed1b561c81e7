/* clmax._clmax.devices(): the OpenCL devices in the order CLMAX_DEVICE indexes them (the order
 * `clmax devices` prints). clmax.h has no listing call, so this asks OpenCL directly, as the CLI
 * does; an absent platform is an empty list, not an error. */
#include "module.h"

#include <stdlib.h>

/* A platform or device string as a Python str ("" when OpenCL will not say), stripped. */
static PyObject *info(int platform, void *object, cl_uint param)
{
    char buf[1024] = "";
    size_t size = 0;
    cl_int err = platform ? clGetPlatformInfo(object, param, sizeof buf - 1, buf, &size)
                          : clGetDeviceInfo(object, param, sizeof buf - 1, buf, &size);
    if (err != CL_SUCCESS) buf[0] = '\0';
    PyObject *s = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)strlen(buf), "replace");
    if (s == NULL) return NULL;
    PyObject *stripped = PyObject_CallMethod(s, "strip", NULL);
    Py_DECREF(s);
    return stripped;
}

static const char *kind_name(cl_device_type type)
{
    int gpu = (type & CL_DEVICE_TYPE_GPU) != 0, cpu = (type & CL_DEVICE_TYPE_CPU) != 0,
        acc = (type & CL_DEVICE_TYPE_ACCELERATOR) != 0;
    if (gpu + cpu + acc > 1) return "several"; /* a simulator such as Oclgrind */
    return gpu ? "GPU" : cpu ? "CPU" : acc ? "accelerator" : "other";
}

/* One device's dict; NULL with an exception. */
static PyObject *device_dict(long index, PyObject *platform, cl_device_id d)
{
    cl_device_type type = 0;
    cl_uint units = 0;
    cl_ulong mem = 0, alloc = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
    PyObject *name = info(0, d, CL_DEVICE_NAME), *version = info(0, d, CL_DEVICE_VERSION);
    PyObject *r = NULL;
    if (name && version)
        r = Py_BuildValue("{s:l,s:O,s:O,s:s,s:O,s:I,s:K,s:K}", "index", index, "platform", platform,
                          "name", name, "kind", kind_name(type), "version", version,
                          "compute_units", units, "global_memory", (unsigned long long)mem,
                          "max_allocation", (unsigned long long)alloc);
    Py_XDECREF(name);
    Py_XDECREF(version);
    return r;
}

PyObject *clmax_py_devices(PyObject *self, PyObject *unused)
{
    cl_uint nplatforms = 0;
    cl_platform_id *platforms = NULL;
    long index = 0;
    (void)self;
    (void)unused;

    PyObject *list = PyList_New(0);
    if (list == NULL) return NULL;
    if (clGetPlatformIDs(0, NULL, &nplatforms) != CL_SUCCESS || nplatforms == 0) return list;
    platforms = calloc(nplatforms, sizeof *platforms);
    if (platforms == NULL) goto nomem;
    if (clGetPlatformIDs(nplatforms, platforms, NULL) != CL_SUCCESS) nplatforms = 0;
    for (cl_uint p = 0; p < nplatforms; p++) {
        cl_uint n = 0;
        cl_device_id *devices = NULL;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS) n = 0;
        if (n > 0 && (devices = calloc(n, sizeof *devices)) == NULL) goto nomem;
        if (n > 0 && clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n, devices, NULL)) n = 0;
        PyObject *pname = n > 0 ? info(1, platforms[p], CL_PLATFORM_NAME) : NULL;
        for (cl_uint i = 0; i < n; i++, index++) {
            PyObject *d = pname ? device_dict(index, pname, devices[i]) : NULL;
            if (d == NULL || PyList_Append(list, d) < 0) {
                Py_XDECREF(d);
                Py_XDECREF(pname);
                free(devices);
                goto fail;
            }
            Py_DECREF(d);
        }
        Py_XDECREF(pname);
        free(devices);
    }
    free(platforms);
    return list;
nomem:
    PyErr_NoMemory();
fail:
    free(platforms);
    Py_DECREF(list);
    return NULL;
}
