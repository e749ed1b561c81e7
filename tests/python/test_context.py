"""clmax.Context, clmax.devices() and clmax.last_call(), with and without OpenCL (CI's
no-platform mode sets CLMAX_EXPECT_NO_OPENCL=1 and hides every OpenCL driver)."""

import os

import numpy as np
import pytest

import clmax

NO_OPENCL = bool(os.environ.get("CLMAX_EXPECT_NO_OPENCL"))


def test_import_and_version():
    assert clmax.__version__.count(".") == 2
    assert {"argmax", "argmin", "max_with_indices", "Context"} <= set(clmax.__all__)


def test_cpu_context():
    with clmax.Context("cpu", num_threads=2) as ctx:
        assert ctx.backend == "cpu" and ctx.device == "CPU (2 threads)" and not ctx.closed
        assert "cpu" in repr(ctx)
        assert clmax.argmax(np.array([3, 1, 4, 1, 5]), context=ctx) == 4
        report = clmax.last_call()
        assert report.backend == "cpu" and report.device == "CPU (2 threads)"
        assert report.fallback_status == "" and report.choice == ""
    assert ctx.closed and "closed" in repr(ctx)
    with pytest.raises(ValueError, match="closed"):
        clmax.argmax(np.array([1, 2]), context=ctx)
    with pytest.raises(ValueError, match="closed"):
        ctx.backend
    ctx.close()  # closing twice is harmless


def test_bad_arguments():
    with pytest.raises(ValueError, match="backend"):
        clmax.Context("gpu")
    with pytest.raises(ValueError, match="num_threads"):
        clmax.Context("cpu", num_threads=-1)
    with pytest.raises(TypeError, match="clmax.Context"):
        clmax.argmax(np.array([1, 2]), context="cpu")


def test_devices():
    devices = clmax.devices()
    assert isinstance(devices, list)
    if NO_OPENCL:
        assert devices == []
    for i, d in enumerate(devices):
        assert d["index"] == i and d["name"] and d["platform"]
        assert d["kind"] in ("GPU", "CPU", "accelerator", "several", "other")
        assert d["max_allocation"] > 0 and d["global_memory"] >= d["max_allocation"]


def test_auto_and_opencl():
    with clmax.Context() as auto:
        if NO_OPENCL:
            assert auto.backend == "cpu" and auto.warnings  # and it says why
        x = np.arange(10.0)
        assert clmax.argmax(x, context=auto) == 9
        assert clmax.last_call().backend in ("cpu", "opencl")
    if NO_OPENCL or not clmax.devices():
        with pytest.raises(clmax.DeviceError, match="OpenCL"):
            clmax.Context("opencl")
        return
    with clmax.Context("opencl", device=0) as ctx:
        assert ctx.backend == "opencl"
        assert ctx.device.endswith(clmax.devices()[0]["name"])
        assert clmax.argmin(np.array([2, 0, 1], np.int16), context=ctx) == 1
        assert clmax.last_call().backend == "opencl"
    with pytest.raises(clmax.DeviceError, match="no OpenCL device"):
        clmax.Context("opencl", device="no such device anywhere")


def test_default_context_is_shared():
    from clmax import _core

    clmax.argmax(np.array([1, 2]))
    assert _core.context(None) is _core.context(None)
    assert isinstance(_core.context(None), clmax.Context)


def test_exception_classes():
    assert issubclass(clmax.DeviceError, clmax.Error)
    assert issubclass(clmax.BuildError, clmax.Error)
    assert issubclass(clmax.InternalError, clmax.Error)
    assert issubclass(clmax.Error, RuntimeError)


def test_prebuild():
    # On the CPU path there is nothing to build.
    with clmax.Context("cpu") as ctx:
        assert clmax.prebuild(context=ctx) == (0, 0, 0, 0)
    for bad, kind in [(dict(types=[np.complex64]), TypeError), (dict(types=["no-type"]), TypeError),
                      (dict(types=[]), ValueError), (dict(operators=["topk"]), ValueError),
                      (dict(operators=[]), ValueError)]:
        with pytest.raises(kind):
            clmax.prebuild(**bad, context=clmax.Context("cpu"))
    if NO_OPENCL or not clmax.devices():
        return
    with clmax.Context("opencl", device=0) as ctx:
        # ArgMax on float32 and bfloat16: 2 tie rules each (either index type), 6 kernel families.
        r = clmax.prebuild([np.float32, "bfloat16"], ["argmax"], context=ctx)
        assert r.programs == 24 and r.compiled + r.from_cache + r.in_context == 24, r
        again = clmax.prebuild([np.dtype("f4"), "bfloat16"], ("argmax",), context=ctx)
        assert again == (24, 0, 0, 24), again
        assert clmax.prebuild(["float64"], ["hardmax"], context=ctx).programs == 6
        assert clmax.argmax(np.array([1.0, 3.0, 3.0], np.float32), context=ctx) == 1
