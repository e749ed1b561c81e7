"""Refusals: every bad input gets an exception naming what is wrong, never a crash; the
compiled core checks sizes and overlaps itself, whatever the Python layer hands it."""

import numpy as np
import pytest

import clmax
from clmax import _clmax, _core
from helpers import AxisError


@pytest.mark.parametrize("a", [np.array(["a", "b"]), np.array([1, None], dtype=object),
                               np.zeros(3, np.complex64), np.zeros(3, np.longdouble),
                               np.zeros(3, "datetime64[s]"), np.zeros(3, [("a", "f4")])],
                         ids=["str", "object", "complex", "longdouble", "datetime", "record"])
def test_dtypes_refused(a):
    for f in (clmax.argmax, clmax.argmin, clmax.max_with_indices, clmax.onnx.argmax):
        with pytest.raises(TypeError, match="dtype"):
            f(a)


def test_axes_refused():
    x = np.zeros((2, 3))
    with pytest.raises(AxisError):
        clmax.argmax(x, 2)
    with pytest.raises(AxisError):
        clmax.argmin(x, -3)
    with pytest.raises(TypeError):
        clmax.argmax(x, 1.5)
    with pytest.raises(TypeError):
        clmax.argmax(x, (0, 1))


def test_huge_and_odd_inputs():
    # A broadcast view of 2^40 elements: the copy it needs cannot be made.
    huge = np.broadcast_to(np.zeros(1, np.float32), (1 << 40,))
    with pytest.raises(MemoryError):
        clmax.argmax(huge[::2])
    with pytest.raises(TypeError):
        clmax.max_with_indices(np.zeros(3), 0, out=np.zeros(3))
    rank17 = np.zeros((1,) * 17)
    with pytest.raises(ValueError, match="rank"):
        clmax.onnx.argmax(rank17)


def test_core_checks_sizes_and_overlap():
    ctx = clmax.Context("cpu")
    x = np.arange(12, dtype=np.float32)
    out = np.empty(4, np.int64)
    args = (_core.ARGMAX, x, 1, (3, 4), 1, 1, 0, 13)
    _clmax.host(ctx, *args, out, None)
    assert out[:3].tolist() == [3, 3, 3]
    with pytest.raises(ValueError, match="bytes"):
        _clmax.host(ctx, _core.ARGMAX, x, 1, (3, 5), 1, 1, 0, 13, out, None)
    with pytest.raises(ValueError, match="bytes"):
        _clmax.host(ctx, *args, np.empty(2, np.int64), None)
    with pytest.raises(TypeError, match="writable"):
        _clmax.host(ctx, *args, b"\0" * 64, None)
    with pytest.raises(TypeError, match="contiguous"):
        _clmax.host(ctx, _core.ARGMAX, x[::2], 1, (6,), 0, 1, 0, 13, out, None)
    with pytest.raises(ValueError, match="overlap"):
        _clmax.host(ctx, _core.ARGMAX, x, 1, (3, 4), 1, 1, 0, 13, x, None)
    with pytest.raises(TypeError):
        _clmax.host(ctx, _core.ARGMAX, x, 99, (12,), 0, 1, 0, 13, out, None)
    with pytest.raises(ValueError):
        _clmax.host(ctx, 7, x, 1, (12,), 0, 1, 0, 13, out, None)
    with pytest.raises(ValueError, match="negative|shape"):
        _clmax.host(ctx, _core.ARGMAX, x, 1, (-1, 4), 0, 1, 0, 13, out, None)
    with pytest.raises(TypeError):
        _clmax.host(ctx, *args)
    ctx.close()
