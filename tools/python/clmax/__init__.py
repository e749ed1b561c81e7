"""clmax: ArgMax, ArgMin and Hardmax on NumPy arrays, PyTorch tensors, PyOpenCL arrays and Dask
arrays, computed by the clmax C library (OpenCL, or its multi-threaded CPU path), bit for bit as
NumPy and the ONNX reference answer.

    import clmax, numpy as np
    x = np.random.rand(1000, 80).astype(np.float32)
    clmax.argmax(x, axis=1)                 # == np.argmax(x, axis=1)

NumPy-style: argmax, argmin, max_with_indices, min_with_indices. ONNX-style: clmax.onnx.
PyOpenCL arrays: clmax.cl. Dask arrays: clmax.dask. Contexts: clmax.Context, clmax.devices(),
clmax.last_call(); warming the program cache: clmax.prebuild().
"""

from ._clmax import BuildError, DeviceError, Error, InternalError, version as __version__
from ._core import CallReport, Context, PrebuildReport, devices, last_call, prebuild
from ._numpy import argmax, argmin, max_with_indices, min_with_indices

__all__ = [
    "argmax", "argmin", "max_with_indices", "min_with_indices", "Context", "devices",
    "last_call", "CallReport", "prebuild", "PrebuildReport", "Error", "DeviceError",
    "BuildError", "InternalError",
]

from . import onnx  # noqa: E402  (no dependency beyond NumPy)


def __getattr__(name):
    # clmax.cl needs PyOpenCL and clmax.dask needs Dask: imported when first used.
    if name in ("cl", "dask"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'clmax' has no attribute {name!r}")
