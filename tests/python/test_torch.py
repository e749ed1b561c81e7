"""CPU PyTorch tensors in, tensors out: every torch dtype clmax takes (bool and bfloat16, which
Debian's torch 1.13 cannot pass through DLPack, read through a same-size view), read without a
copy where the layout allows, answers bit for bit NumPy's on the same values; the dtypes clmax
does not take refused with TypeError.

torch is optional for the package; CI sets CLMAX_REQUIRE_TORCH=1 so that a missing torch fails
there instead of skipping."""

import os

import numpy as np
import pytest

import clmax
from clmax import _core
from helpers import arg_reference, bits, random_array, values_at

if os.environ.get("CLMAX_REQUIRE_TORCH"):
    import torch
else:
    torch = pytest.importorskip("torch")

# torch dtype name -> the NumPy dtype of the same values (bfloat16: ml_dtypes' where installed,
# else compared through float32, which holds every bfloat16 exactly).
_NUMPY = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
          "int32": np.int32, "int64": np.int64, "float16": np.float16, "float32": np.float32,
          "float64": np.float64, "bfloat16": np.float32, "uint16": np.uint16,
          "uint32": np.uint32, "uint64": np.uint64}
DTYPES = [name for name in _NUMPY if isinstance(getattr(torch, name, None), torch.dtype)]


def _tensor(x, name):
    """x (NumPy) as a torch tensor of dtype name, through the same bits."""
    if name == "bfloat16":
        return torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16)
    if name in ("uint16", "uint32", "uint64"):  # torch.from_numpy may not know them
        signed = {"uint16": np.int16, "uint32": np.int32, "uint64": np.int64}[name]
        return torch.from_numpy(x.view(signed)).view(getattr(torch, name))
    return torch.from_numpy(x)


def _numpy(t):
    """A result tensor's values as NumPy (bfloat16 as float32), for comparison."""
    name = str(t.dtype).rpartition(".")[2]
    if name == "bfloat16":
        return t.float().numpy()
    if name in ("uint16", "uint32", "uint64"):
        signed = {"uint16": torch.int16, "uint32": torch.int32, "uint64": torch.int64}[name]
        return t.view(signed).numpy().view(_NUMPY[name])
    return t.numpy()


def _make(rng, shape, name):
    """(values as NumPy, the same values as a torch tensor of dtype name). bfloat16's come back
    from the tensor: torch rounds NaN to another NaN's bits (0xffff)."""
    x = random_array(rng, shape, _NUMPY[name])
    t = _tensor(x, name)
    return (_numpy(t) if name == "bfloat16" else x), t


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_axis_and_rule(ctx, name):
    rng = np.random.default_rng(11)
    x, t = _make(rng, (6, 17, 5), name)
    for axis in (0, 1, 2, -1, None):
        for keepdims in (False, True):
            for last in (False, True):
                for minimum in (False, True):
                    f = clmax.min_with_indices if minimum else clmax.max_with_indices
                    v, i = f(t, axis, keepdims=keepdims, select_last_index=last, context=ctx)
                    want = arg_reference(x, axis, keepdims, last, minimum)
                    what = (name, axis, keepdims, last, minimum)
                    assert isinstance(i, torch.Tensor) and i.dtype == torch.int64, what
                    assert v.dtype == t.dtype and tuple(v.shape) == np.shape(want), what
                    assert np.array_equal(i.numpy(), want), what
                    assert np.array_equal(bits(_numpy(v)),
                                          bits(values_at(x, want, axis, keepdims))), what
                    g = clmax.argmin if minimum else clmax.argmax
                    j = g(t, axis, keepdims=keepdims, select_last_index=last, context=ctx)
                    assert np.array_equal(j.numpy(), want), what


@pytest.mark.parametrize("name", [n for n in ("float16", "float32", "float64", "bfloat16")
                                  if n in DTYPES])
def test_hardmax(ctx, name):
    rng = np.random.default_rng(12)
    x, t = _make(rng, (7, 9), name)
    y = clmax.onnx.hardmax(t, context=ctx)
    assert isinstance(y, torch.Tensor) and y.dtype == getattr(torch, name)
    want = np.zeros(x.shape, np.float32)
    np.put_along_axis(want, np.argmax(x, -1)[:, None], 1, -1)
    assert np.array_equal(_numpy(y).astype(np.float32), want)


@pytest.mark.parametrize("name", DTYPES)
def test_read_without_a_copy(name):
    # Contiguous tensors and permuted views of them are read in place, bool and bfloat16 (the
    # dtypes DLPack may refuse) included: the array clmax reads is the tensor's memory.
    rng = np.random.default_rng(13)
    _, t = _make(rng, (4, 6), name)
    for view in (t, t.T, t.permute(1, 0)):
        x, _, _ = _core.as_array(view)
        c, _, _ = _core.canonical(x, 0)
        assert c.__array_interface__["data"][0] == t.data_ptr(), (name, view.stride())


def test_views_and_strides(ctx):
    rng = np.random.default_rng(14)
    for name in ("bool", "float32", "bfloat16"):
        x, t = _make(rng, (8, 10, 3), name)
        views = [(t.transpose(0, 2), np.swapaxes(x, 0, 2)), (t[:, ::3], x[:, ::3]),
                 (t.permute(1, 2, 0), x.transpose(1, 2, 0)), (t[2], x[2]), (t[1, 4, 2], x[1, 4, 2])]
        for view, ref in views:
            for axis in range(max(ref.ndim, 1)):
                got = clmax.argmax(view, axis, context=ctx)
                assert isinstance(got, torch.Tensor), (name, view.shape)
                assert np.array_equal(got.numpy(), np.argmax(ref, axis)), (name, view.shape, axis)


def test_grad_and_zero_d(ctx):
    t = torch.tensor([[1.0, 4.0, 4.0], [float("nan"), 0.0, 2.0]], requires_grad=True)
    assert clmax.argmax(t, 1, context=ctx).tolist() == [1, 0]
    v, i = clmax.max_with_indices(t, None, context=ctx)  # 0-d: tensors, not NumPy scalars
    assert isinstance(i, torch.Tensor) and i.shape == () and int(i) == 3
    assert v.shape == () and bool(torch.isnan(v))
    b = torch.tensor([[True, False, True]])
    assert clmax.argmin(b, 1, select_last_index=True, context=ctx).tolist() == [1]


def test_refused_dtypes_and_devices():
    refused = [torch.zeros(3, dtype=torch.complex64),
               torch.quantize_per_tensor(torch.zeros(3), 1.0, 0, torch.quint8)]
    for name in ("float8_e4m3fn", "float8_e5m2"):
        if isinstance(getattr(torch, name, None), torch.dtype):
            try:
                refused.append(torch.zeros(3, dtype=getattr(torch, name)))
            except (RuntimeError, TypeError):  # a dtype this torch cannot make on the CPU
                pass
    for t in refused:
        with pytest.raises(TypeError, match="dtype"):
            clmax.argmax(t, 0)
    with pytest.raises(TypeError, match="CPU tensors"):
        clmax.argmax(torch.zeros(3, device="meta"), 0)
    with pytest.raises(TypeError, match="Hardmax"):  # ONNX Hardmax takes floats only
        clmax.onnx.hardmax(torch.tensor([[True, False]]))
