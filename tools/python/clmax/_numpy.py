"""The NumPy-style functions: np.argmax's and np.argmin's signature and answers, and the maxima
or minima with their indices in one pass."""

import operator

import numpy as np

from . import _clmax, _core

_INT64 = np.dtype(np.int64)
_clmax.set_numpy(np.ndarray, np.empty, _INT64)
_EMPTY = {
    _core.ARGMAX: "attempt to get argmax of an empty sequence",
    _core.ARGMIN: "attempt to get argmin of an empty sequence",
    _core.MAX_WITH_INDICES: "zero-size array to reduction operation maximum which has no identity",
    _core.MIN_WITH_INDICES: "zero-size array to reduction operation minimum which has no identity",
}
_NAMES = {_core.ARGMAX: "argmax", _core.ARGMIN: "argmin", _core.MAX_WITH_INDICES: "max",
          _core.MIN_WITH_INDICES: "min"}


def _axis(axis, ndim):
    """axis as NumPy reads it: an integer in [-ndim, ndim-1] (0-d arrays take 0 and -1)."""
    axis = operator.index(axis)
    bound = max(ndim, 1)
    if not -bound <= axis < bound:
        raise _core.AxisError(axis, ndim)
    return axis % bound


def _check_out(out, shape, op, dtype):
    """Whether out can take the result directly (True), only through a cast copy (False)."""
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be a NumPy array")
    if out.shape != shape:
        raise ValueError(f"output array does not match result of np.{_NAMES[op]}.")
    if not out.flags.writeable:
        raise ValueError("output array is read-only")
    if dtype is None:  # indices: any integer type NumPy would cast to
        if out.dtype.kind not in "iu":
            raise TypeError(f"out must have an integer dtype, not {out.dtype}")
        return out.dtype == _INT64 and out.flags.c_contiguous
    if out.dtype != dtype:
        raise TypeError(f"out must have the input's dtype {dtype}, not {out.dtype}")
    return out.flags.c_contiguous


def _reduce(op, a, axis, out, keepdims, last, context):
    """Runs op the NumPy way; returns indices, or (values, indices) for the *_with_indices."""
    x, bf16, wrap = _core.as_array(a)
    with_values = op in (_core.MAX_WITH_INDICES, _core.MIN_WITH_INDICES)
    shape = x.shape
    if axis is None:
        reduced = tuple(1 for _ in shape) if keepdims else ()
        x = x.reshape(-1)
        axis = 0
    else:
        axis = _axis(axis, x.ndim)
        if x.ndim == 0:
            x = x.reshape(1)
            reduced = ()
        else:
            reduced = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]
    if x.shape[axis] == 0:
        raise ValueError(_EMPTY[op])
    dtype = x.dtype if x.dtype.isnative else x.dtype.newbyteorder("=")  # the values' dtype
    code, x = _core.type_of(x, bf16)
    outs = (out,) if not with_values else (out if out is not None else (None, None))
    if with_values and (not isinstance(outs, tuple) or len(outs) != 2):
        raise TypeError("out must be a (values, indices) pair of arrays")
    indices = outs[-1]
    values = outs[0] if with_values else None
    direct_i = indices is None or _check_out(indices, reduced, op, None)
    direct_v = not with_values or values is None or _check_out(values, reduced, op, dtype)
    if x.size == 0:  # another axis is 0: nothing to compute
        ri = indices if indices is not None else np.empty(reduced, _INT64)
        rv = values if values is not None else np.empty(reduced, dtype)
        return _result(with_values, rv, ri, wrap, reduced)
    x, caxis, order = _core.canonical(x, axis)
    if order is None:  # the library writes [outer, 1, inner] in x's order: NumPy's shape
        ri = indices if direct_i and indices is not None else np.empty(reduced, _INT64)
        rv = None
        if with_values:
            rv = values if direct_v and values is not None else np.empty(reduced, dtype)
        _run(context, op, x, code, caxis, last, ri, rv)
    else:  # written in memory order, then put in x's order (the output: 1/n of the input)
        memory = x.shape[:caxis] + (1,) + x.shape[caxis + 1:]
        back = np.argsort(order)
        ri = np.empty(memory, _INT64)
        rv = np.empty(memory, dtype) if with_values else None
        _run(context, op, x, code, caxis, last, ri, rv)
        ri = np.ascontiguousarray(ri.transpose(back)).reshape(reduced)
        rv = np.ascontiguousarray(rv.transpose(back)).reshape(reduced) if with_values else None
    if indices is not None and ri is not indices:
        np.copyto(indices, ri, casting="unsafe")  # NumPy's argmax casts to any integer out
        ri = indices
    if values is not None and rv is not values:
        np.copyto(values, rv)
        rv = values
    return _result(with_values, rv, ri, wrap, reduced if out is None else None)


def _run(context, op, x, code, axis, last, ri, rv):
    rv_bits = None if rv is None else (rv.view(x.dtype) if rv.dtype != x.dtype else rv)
    _core.host(context, op, x, code, axis, 1, int(bool(last)), 13, ri, rv_bits)


def _result(with_values, values, indices, wrap, shape):
    """The results as NumPy returns them: scalars for 0-d results (not out=), torch tensors for
    torch input."""
    if shape == () and wrap is None:
        indices = indices[()]
        values = values[()] if with_values else None
    if wrap is not None:
        indices = wrap(indices)
        values = wrap(values) if with_values else None
    return (values, indices) if with_values else indices


def _index_function(op, name, doc):
    """np.argmax or np.argmin (op) as a function of its own, whose common call (a C-contiguous
    NumPy array of a native type, an int axis, no out) goes straight to the library
    (_clmax.fast): on small arrays the layer's own steps are most of the cost."""
    fast = _clmax.fast

    def f(a, axis=None, out=None, *, keepdims=False, select_last_index=False, context=None):
        if out is None and type(axis) is int:
            r = fast(context or _core._default or _core.context(None), op, a, axis, keepdims,
                     select_last_index)
            if r is not None:
                return r
        return _reduce(op, a, axis, out, keepdims, select_last_index, context)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


argmax = _index_function(_core.ARGMAX, "argmax", """\
Indices of the maxima along an axis, as np.argmax returns them (bit for bit).

    a: a NumPy array of any real or integer dtype, bool, float16 or bfloat16 (ml_dtypes); a CPU
    PyTorch tensor or other DLPack object; any buffer. axis=None: the flattened array. A NaN
    wins (the first one). out: an integer array of the result's shape. select_last_index: ties
    go to the last index instead of the first (an ONNX attribute NumPy does not have). context:
    a clmax.Context (default: an auto one, made on first use). Torch input gives torch output.
    """)

argmin = _index_function(_core.ARGMIN, "argmin", """\
Indices of the minima along an axis, as np.argmin returns them; see clmax.argmax. A NaN wins
    here too (the first one), as in NumPy; -0.0 and +0.0 tie.""")


def max_with_indices(a, axis=None, out=None, *, keepdims=False, select_last_index=False,
                     context=None):
    """(values, indices): np.max and np.argmax along axis in one pass, as torch.max(a, dim)
    returns them. The values are the bits of the winning elements (a NaN where the row has
    one). out: a (values, indices) pair of arrays, either may be None. See clmax.argmax."""
    return _reduce(_core.MAX_WITH_INDICES, a, axis, out, keepdims, select_last_index, context)


def min_with_indices(a, axis=None, out=None, *, keepdims=False, select_last_index=False,
                     context=None):
    """(values, indices): np.min and np.argmin along axis in one pass; see max_with_indices."""
    return _reduce(_core.MIN_WITH_INDICES, a, axis, out, keepdims, select_last_index, context)
