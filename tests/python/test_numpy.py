"""clmax.argmax, argmin, max_with_indices and min_with_indices against NumPy, bit for bit: every
dtype, axis, keepdims and select_last_index, with ties, NaN, infinities and both zeros."""

import numpy as np
import pytest

import clmax
from helpers import DTYPES, AxisError, arg_reference, bits, random_array, values_at

SHAPES = [(7,), (3, 5), (4, 1, 6), (2, 3, 4, 5), (1, 300), (37, 2)]


def cases(seed, dtype):
    """(x, axis, keepdims, last): every shape, axis (None too), keepdims and tie rule."""
    rng = np.random.default_rng(seed)
    for shape in SHAPES:
        x = random_array(rng, shape, dtype)
        for axis in [None] + list(range(-len(shape), len(shape))):
            for keepdims in (False, True):
                for last in (False, True):
                    yield x, axis, keepdims, last


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("minimum", [False, True], ids=["max", "min"])
def test_arg_every_dtype_axis_keepdims_last(ctx, dtype, minimum):
    f = clmax.argmin if minimum else clmax.argmax
    for x, axis, keepdims, last in cases(1, dtype):
        got = f(x, axis, keepdims=keepdims, select_last_index=last, context=ctx)
        want = arg_reference(x, axis, keepdims, last, minimum)
        assert type(got) is type(want)  # a NumPy scalar for 0-d results
        assert np.shape(got) == np.shape(want), (x.shape, axis, keepdims)
        assert np.array_equal(got, want), (x.shape, axis, keepdims, last)
        assert np.asarray(got).dtype == np.int64


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("minimum", [False, True], ids=["max", "min"])
def test_with_indices(ctx, dtype, minimum):
    f = clmax.min_with_indices if minimum else clmax.max_with_indices
    for x, axis, keepdims, last in cases(2, dtype):
        values, indices = f(x, axis, keepdims=keepdims, select_last_index=last, context=ctx)
        want = arg_reference(x, axis, keepdims, last, minimum)
        assert np.array_equal(indices, want)
        assert values.dtype == x.dtype and values.shape == np.shape(want)
        assert np.array_equal(bits(values), bits(values_at(x, want, axis, keepdims)))


def test_nan_wins_first_or_last(ctx):
    x = np.array([[1, np.nan, 5, np.nan], [np.inf, 2, np.inf, -np.inf]], np.float32)
    assert clmax.argmax(x, 1, context=ctx).tolist() == [1, 0]
    assert clmax.argmin(x, 1, context=ctx).tolist() == [1, 3]
    assert clmax.argmax(x, 1, select_last_index=True, context=ctx).tolist() == [3, 2]
    v, i = clmax.max_with_indices(x, 1, context=ctx)
    assert np.isnan(v[0]) and v[1] == np.inf and i.tolist() == [1, 0]


def test_signed_zeros_tie(ctx):
    x = np.array([-0.0, 0.0, -0.0], np.float64)
    assert clmax.argmax(x, context=ctx) == 0
    assert clmax.argmin(x, select_last_index=True, context=ctx) == 2
    v, i = clmax.max_with_indices(x, 0, select_last_index=True, context=ctx)
    assert i == 2 and np.signbit(v)  # the winner's own bits: -0.0


@pytest.mark.parametrize("f", [clmax.argmax, clmax.argmin])
def test_empty_like_numpy(ctx, f):
    name = f.__name__
    for shape, axis in [((0, 3), 0), ((3, 0), 1), ((0, 0), 1), ((0,), 0), ((0,), None)]:
        with pytest.raises(ValueError, match=f"attempt to get {name} of an empty sequence"):
            f(np.empty(shape, np.float32), axis, context=ctx)
    r = f(np.empty((0, 3), np.float32), 1, context=ctx)
    assert r.shape == (0,) and r.dtype == np.int64
    r = f(np.empty((0, 3), np.float32), 1, keepdims=True, context=ctx)
    assert r.shape == (0, 1)
    with pytest.raises(ValueError, match="zero-size array"):
        clmax.max_with_indices(np.empty((2, 0)), 1, context=ctx)


def test_zero_dim_and_scalars(ctx):
    assert clmax.argmax(np.array(5.0), context=ctx) == 0
    assert clmax.argmax(np.array(5.0), 0, context=ctx) == 0
    assert clmax.argmax(np.array(5.0), -1, keepdims=True, context=ctx).shape == ()
    assert clmax.argmax(np.float32(3), context=ctx) == 0
    with pytest.raises(AxisError):
        clmax.argmax(np.array(5.0), 1, context=ctx)


def test_out(ctx):
    x = np.arange(12.0).reshape(3, 4)[::-1]
    for dtype in (np.int64, np.int32, np.uint16):
        out = np.full(4, 99, dtype)
        assert clmax.argmax(x, 0, out=out, context=ctx) is out
        assert out.tolist() == np.argmax(x, 0).tolist()
    out = np.empty(8, np.int64)[::2]  # not contiguous: written through a copy
    assert clmax.argmin(x.T, 1, out=out, context=ctx) is out
    assert np.array_equal(out, np.argmin(x.T, 1))
    out = np.empty((1, 4), np.int64)
    assert clmax.argmax(x, 0, out=out, keepdims=True, context=ctx) is out
    for bad in (np.empty(3, np.int64), np.empty((1, 4), np.int64)):
        with pytest.raises(ValueError, match="output array does not match"):
            clmax.argmax(x, 0, out=bad, context=ctx)
    with pytest.raises(TypeError):
        clmax.argmax(x, 0, out=np.empty(4), context=ctx)
    readonly = np.empty(4, np.int64)
    readonly.flags.writeable = False
    with pytest.raises(ValueError):
        clmax.argmax(x, 0, out=readonly, context=ctx)
    values, indices = np.empty(4), np.empty(4, np.int64)
    v, i = clmax.max_with_indices(x, 0, out=(values, indices), context=ctx)
    assert v is values and i is indices and np.array_equal(values, x.max(0))
    v, i = clmax.max_with_indices(x, 0, out=(None, indices), context=ctx)
    assert i is indices and np.array_equal(v, x.max(0))
    with pytest.raises(TypeError):
        clmax.max_with_indices(x, 0, out=(np.empty(4, np.float32), indices), context=ctx)


def test_large_rows_and_strided_axes(ctx):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 4099)).astype(np.float32)
    for axis in (0, 1):
        assert np.array_equal(clmax.argmax(x, axis, context=ctx), np.argmax(x, axis))
    y = rng.integers(0, 255, (5, 100001, 3), dtype=np.uint8)
    assert np.array_equal(clmax.argmin(y, 1, context=ctx), np.argmin(y, 1))


class _Sub(np.ndarray):
    pass


@pytest.mark.parametrize("minimum", [False, True], ids=["max", "min"])
def test_common_call_and_its_edges(ctx, minimum):
    """The common call (a C-contiguous array of a native dtype, an int axis, no out) runs in C
    (_clmax.fast); every call beside it takes the Python layer: the same answers either way."""
    f = clmax.argmin if minimum else clmax.argmax
    np_f = np.argmin if minimum else np.argmax
    rng = np.random.default_rng(7)
    x = rng.integers(0, 5, (6, 40)).astype(np.float32)
    variants = [
        x, x.astype(bool), x.astype(">f4"), x.astype("<f4"), np.asfortranarray(x), x[:, ::3],
        x.view(_Sub), np.frombuffer(x.tobytes(), np.float32).reshape(x.shape),  # read-only
        x.astype(np.int8), x.astype(np.uint64), x.astype(np.float16), x[0], x[0].astype(bool),
    ]
    for v in variants:
        for axis in list(range(-v.ndim, v.ndim)) + [np.int64(v.ndim - 1)]:
            for keepdims in (False, True):
                got = f(v, axis, keepdims=keepdims, context=ctx)
                want = np_f(v, axis, keepdims=keepdims)
                # a subclass comes back a plain ndarray (NumPy keeps the subclass)
                assert type(got) is (np.ndarray if type(want) is _Sub else type(want))
                assert np.array_equal(got, want), (v.dtype, v.shape, axis, keepdims)
        for axis in (v.ndim, -v.ndim - 1):
            with pytest.raises(AxisError):
                f(v, axis, context=ctx)
    with pytest.raises(TypeError, match="clmax.Context"):
        f(x, 1, context="cpu")
    closed = clmax.Context("cpu")
    closed.close()
    with pytest.raises(ValueError):
        f(x, 1, context=closed)
