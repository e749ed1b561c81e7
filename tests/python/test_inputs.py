"""What clmax takes as input: permuted views read in place, other strided views copied once,
any byte order, buffers, DLPack objects and ml_dtypes' bfloat16 (PyTorch tensors: test_torch.py)."""

import array

import numpy as np
import pytest

import clmax
from clmax import _core
from helpers import arg_reference, bits, random_array, values_at


def test_permuted_views_are_read_in_place(ctx):
    rng = np.random.default_rng(4)
    base = random_array(rng, (4, 5, 6), np.float32)
    views = [(base.T, 0), (base.T, 2), (np.moveaxis(base, 2, 0), 0), (np.swapaxes(base, 1, 2), 2),
             (np.moveaxis(base, 0, 2), 2), (base[:1].transpose(2, 1, 0), 2),
             (base.transpose(1, 0, 2), 2), (base.transpose(1, 0, 2), 1)]
    for view, axis in views:
        x, _, _ = _core.canonical(view, axis)
        assert x.flags.c_contiguous and np.shares_memory(x, base), (view.strides, axis)
        for keepdims in (False, True):
            got = clmax.argmax(view, axis, keepdims=keepdims, context=ctx)
            assert np.array_equal(got, np.argmax(view, axis, keepdims=keepdims))
            assert got.flags.c_contiguous
            v, i = clmax.min_with_indices(view, axis, keepdims=keepdims, context=ctx)
            assert np.array_equal(i, np.argmin(view, axis, keepdims=keepdims))
            assert np.array_equal(bits(v), bits(values_at(view, i, axis, keepdims)))


def test_other_strided_views_are_copied(ctx):
    rng = np.random.default_rng(5)
    base = random_array(rng, (6, 8, 10), np.int16)
    views = [(base[:, ::2], 1), (base[::-1], 0), (base[..., 3], 0),
             (np.broadcast_to(base[:1], (4, 8, 10)), 0)]
    for view, axis in views:
        x, _, _ = _core.canonical(view, axis)
        assert x.flags.c_contiguous and not np.shares_memory(x, base)
        for minimum in (False, True):
            f = clmax.argmin if minimum else clmax.argmax
            want = arg_reference(view, axis, False, False, minimum)
            assert np.array_equal(f(view, axis, context=ctx), want)


@pytest.mark.parametrize("dtype", [">f4", ">i8", ">u2", "<f8"])
def test_byte_orders(ctx, dtype):
    x = np.array([[3, 9, 1], [7, 7, 2]], dtype=dtype)
    assert np.array_equal(clmax.argmax(x, 1, context=ctx), [1, 0])
    v, i = clmax.min_with_indices(x, 1, context=ctx)
    assert v.dtype == x.dtype.newbyteorder("=") and v.tolist() == [1, 2] and i.tolist() == [2, 2]


def test_buffers_and_lists(ctx):
    assert clmax.argmax(array.array("f", [1, 5, 2]), context=ctx) == 1
    assert clmax.argmin(memoryview(np.array([4, -1, 3], np.int32)), context=ctx) == 1
    assert clmax.argmax([[1, 5], [7, 2]], 0, context=ctx).tolist() == [1, 0]
    assert clmax.argmax(np.array([False, True, True]), context=ctx) == 1


class DLPackOnly:
    """An object that offers its data only through DLPack, as JAX arrays do."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack(ctx):
    a = np.arange(24, dtype=np.float32).reshape(4, 6) % 7
    got = clmax.argmax(DLPackOnly(a), 1, context=ctx)
    assert np.array_equal(got, np.argmax(a, 1))


def test_ml_dtypes_bfloat16(ctx):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(6)
    x = random_array(rng, (9, 13), ml_dtypes.bfloat16)
    for axis in (0, 1, None):
        for minimum in (False, True):
            f = clmax.min_with_indices if minimum else clmax.max_with_indices
            v, i = f(x, axis, context=ctx)
            want = arg_reference(x, axis, False, False, minimum)
            assert np.array_equal(i, want) and v.dtype == x.dtype
            assert np.array_equal(bits(v), bits(values_at(x, want, axis, False)))
    hard = clmax.onnx.hardmax(x, context=ctx)
    assert hard.dtype == x.dtype
    assert np.array_equal(np.argmax(hard.astype(np.float32), -1), np.argmax(x, -1))
