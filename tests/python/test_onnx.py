"""clmax.onnx: ONNX's ArgMax, ArgMin and Hardmax as the C API runs them (attributes, defaults,
opset rules, output shapes, refusals), against NumPy references of the ONNX definitions."""

import numpy as np
import pytest

import clmax
from helpers import arg_reference, random_array


def hardmax_reference(x, axis, opset):
    """ONNX Hardmax: opsets 1 and 11 coerce the input to 2-D at axis; 13 takes one axis."""
    axis %= x.ndim
    if opset < 13:
        rows = x.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), -1)
        y = np.zeros_like(rows)
        if rows.shape[1]:
            y[np.arange(rows.shape[0]), np.argmax(rows, 1)] = 1
        return y.reshape(x.shape)
    y = np.zeros_like(x)
    if x.shape[axis]:
        np.put_along_axis(y, np.expand_dims(np.argmax(x, axis), axis), 1, axis)
    return y


@pytest.mark.parametrize("opset", [1, 11, 12, 13])
def test_argmax_argmin(ctx, opset):
    rng = np.random.default_rng(7)
    x = random_array(rng, (3, 4, 5), np.float32)
    for f, minimum in ((clmax.onnx.argmax, False), (clmax.onnx.argmin, True)):
        assert np.array_equal(f(x, opset=opset, context=ctx),
                              arg_reference(x, 0, True, False, minimum))
        for axis in range(-3, 3):
            for keepdims in (0, 1):
                lasts = (0, 1) if opset >= 12 else (0,)
                for last in lasts:
                    got = f(x, axis, keepdims, last, opset, context=ctx)
                    want = arg_reference(x, axis, bool(keepdims), last, minimum)
                    assert got.dtype == np.int64 and np.array_equal(got, want)


@pytest.mark.parametrize("opset", [1, 11, 13])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_hardmax(ctx, opset, dtype):
    rng = np.random.default_rng(8)
    x = random_array(rng, (2, 3, 4), dtype, specials=False)
    for axis in [None, -3, -2, -1, 0, 1, 2]:
        got = clmax.onnx.hardmax(x, axis, opset, context=ctx)
        default = -1 if opset >= 13 else 1
        want = hardmax_reference(x, default if axis is None else axis, opset)
        assert got.dtype == x.dtype and np.array_equal(got, want), axis


def test_refusals():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="select_last_index"):
        clmax.onnx.argmax(x, select_last_index=1, opset=11)
    with pytest.raises(ValueError, match="axis"):
        clmax.onnx.argmax(x, axis=2)
    with pytest.raises(ValueError, match="opset"):
        clmax.onnx.hardmax(x, opset=12)
    with pytest.raises(ValueError, match="keepdims"):
        clmax.onnx.argmin(x, keepdims=2)
    with pytest.raises(ValueError):
        clmax.onnx.argmax(np.zeros((3, 0)), axis=1)  # an empty axis, a non-empty output
    assert clmax.onnx.argmax(np.zeros((0, 3)), axis=1).shape == (0, 1)
    with pytest.raises(ValueError, match="rank"):
        clmax.onnx.argmax(np.float32(1))
    with pytest.raises(TypeError):
        clmax.onnx.hardmax(np.zeros(3, np.complex64))
    with pytest.raises(TypeError, match="int32"):  # Hardmax takes the float types only
        clmax.onnx.hardmax(np.zeros(3, np.int32))


def test_attributes_never_truncated():
    x = np.zeros((2, 3), np.float32)
    for kwargs in ({"keepdims": 2**32}, {"select_last_index": 2**32, "opset": 11},
                   {"opset": 2**32 + 13}, {"axis": 2**70}):
        with pytest.raises(ValueError):
            clmax.onnx.argmax(x, **kwargs)
