"""The ONNX operators as the C API runs them: ArgMax and ArgMin (opsets 1, 11, 12, 13) and
Hardmax (opsets 1, 11, 13), with ONNX's attributes, defaults, output shapes and refusals (an
empty axis whose output is not empty is refused; an empty output is returned)."""

import numpy as np

from . import _core


def _run(op, x, axis, keepdims, last, opset, context):
    x, bf16, wrap = _core.as_array(x)
    if x.ndim == 0:
        raise ValueError("ONNX ArgMax, ArgMin and Hardmax take tensors of rank 1 or more")
    dtype = x.dtype if x.dtype.isnative else x.dtype.newbyteorder("=")
    code, x = _core.type_of(x, bf16)
    x = np.ascontiguousarray(x)
    args = (op, code, x.shape, int(axis), int(keepdims), int(last), int(opset))
    shape = _core._clmax.shape(*args)
    if op == _core.HARDMAX:
        y = np.empty(shape, dtype)
        out = y.view(x.dtype)
    else:
        y = out = np.empty(shape, np.int64)
    if y.size:
        _core.host(context, op, x, code, int(axis), int(keepdims), int(last), int(opset), out,
                   None)
    return y if wrap is None else wrap(y)


def argmax(x, axis=0, keepdims=1, select_last_index=0, opset=13, *, context=None):
    """ONNX ArgMax: int64 indices of the maxima along axis (ties to the first index, or the last
    with select_last_index=1, opset 12 and later; a NaN wins). keepdims=1 keeps the axis with
    length 1. Raises ValueError for an attribute the opset lacks, TypeError for a dtype."""
    return _run(_core.ARGMAX, x, axis, keepdims, select_last_index, opset, context)


def argmin(x, axis=0, keepdims=1, select_last_index=0, opset=13, *, context=None):
    """ONNX ArgMin: as argmax, the minimum winning (a NaN still wins, as in the reference)."""
    return _run(_core.ARGMIN, x, axis, keepdims, select_last_index, opset, context)


def hardmax(x, axis=None, opset=13, *, context=None):
    """ONNX Hardmax: x's shape and dtype, 1 at the first maximum along axis and 0 elsewhere.
    axis=None takes the opset's default (1 for opsets 1 and 11, where the input is coerced to
    2-D at the axis; -1 for opset 13)."""
    if axis is None:
        axis = -1 if opset >= 13 else 1
    return _run(_core.HARDMAX, x, axis, 0, 0, opset, context)
