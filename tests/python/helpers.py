"""NumPy references the tests compare clmax with, bit for bit."""

import numpy as np

try:
    import ml_dtypes
except ImportError:  # bfloat16 is tested where ml_dtypes is installed
    ml_dtypes = None

# NumPy 2 moved it to np.exceptions; 1.24 has only np.AxisError.
AxisError = getattr(getattr(np, "exceptions", np), "AxisError")

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
DTYPES = FLOATS + INTS + [np.bool_] + ([ml_dtypes.bfloat16] if ml_dtypes else [])


def arg_reference(x, axis, keepdims, last, minimum):
    """np.argmax / np.argmin, with ties (and NaNs) to the last index when last is set."""
    f = np.argmin if minimum else np.argmax
    if x.dtype.name == "bfloat16":  # NumPy compares ml_dtypes' bfloat16 through float32
        x = x.astype(np.float32)
    if not last or x.ndim == 0:  # a 0-d array has one element: first and last are one
        return f(x, axis=axis, keepdims=keepdims)
    if axis is None:
        flat = x.reshape(-1)
        r = flat.size - 1 - f(flat[::-1])
        return np.full((1,) * x.ndim, r) if keepdims else np.int64(r)
    n = x.shape[axis]
    return n - 1 - f(np.flip(x, axis), axis=axis, keepdims=keepdims)


def values_at(x, indices, axis, keepdims):
    """The elements of x that indices point at (the values *_with_indices must return)."""
    if axis is None or x.ndim == 0:
        return x.reshape(-1)[np.asarray(indices)].reshape(np.shape(indices))
    idx = np.asarray(indices) if keepdims else np.expand_dims(indices, axis)
    v = np.take_along_axis(x, idx, axis)
    return v if keepdims else np.squeeze(v, axis)


def bits(a):
    """a's bytes as unsigned integers of its item size: bit-for-bit comparison, NaNs included."""
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def random_array(rng, shape, dtype, specials=True):
    """Values with ties (few distinct ones) and, for floats, NaN, infinities and both zeros."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dtype)
        pick = rng.integers(0, len(pool), shape)
        small = rng.integers(max(info.min, -3), 4, shape).astype(dtype)
        return np.where(rng.random(shape) < 0.2, pool[pick], small)
    x = rng.integers(-3, 4, shape).astype(np.float32)
    if specials:
        special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=np.float32)
        mask = rng.random(shape) < 0.05
        x = np.where(mask, special[rng.integers(0, 5, shape)], x)
    return x.astype(dtype)
