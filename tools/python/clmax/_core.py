"""What the public functions share: element types, turning the user's array into a buffer the C
library reads without a copy where it can, contexts, and the call itself."""

import functools
import operator
import threading

import numpy as np

from . import _clmax

ARGMAX, ARGMIN, MAX_WITH_INDICES, MIN_WITH_INDICES, HARDMAX = range(5)
BACKENDS = {"auto": 0, "opencl": 1, "cpu": 2}

# (dtype kind, item size) -> (clmax_type, the dtype whose bits the library reads). bool is read
# as uint8 (False < True, as 0 < 1): the same answers as NumPy's.
TYPES = {
    ("f", 4): (1, None), ("u", 1): (2, None), ("i", 1): (3, None), ("u", 2): (4, None),
    ("i", 2): (5, None), ("i", 4): (6, None), ("i", 8): (7, None), ("f", 2): (10, None),
    ("f", 8): (11, None), ("u", 4): (12, None), ("u", 8): (13, None),
    ("b", 1): (2, np.dtype(np.uint8)),
}
BFLOAT16 = 16
_UINT16 = np.dtype(np.uint16)

AxisError = getattr(getattr(np, "exceptions", np), "AxisError")


class Context(_clmax.Context):
    """A clmax context: the backend and device calls run on, and the CPU path's threads.

    backend: "auto" (the OpenCL device when one is usable, else the CPU path; with a device,
    each call goes where the cost model expects it faster), "opencl" (the device only; raises
    clmax.DeviceError when there is none) or "cpu". device: an index in clmax.devices() or a
    case-insensitive part of "<platform> <device>"; None reads CLMAX_DEVICE, else the first GPU,
    else the first CPU device. num_threads: CPU path threads, 0 for one per core.

    Use it as a context manager, or call close(); calls on a closed context raise ValueError.
    """

    def __new__(cls, backend="auto", device=None, num_threads=0):
        if backend not in BACKENDS:
            raise ValueError(f"backend={backend!r}: must be 'auto', 'opencl' or 'cpu'")
        if device is not None:
            device = str(device)
        return super().__new__(cls, BACKENDS[backend], device, int(num_threads))

    def __init__(self, backend="auto", device=None, num_threads=0):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        if self.closed:
            return "<clmax.Context closed>"
        return f"<clmax.Context {self.backend}: {self.device}>"


_default = None
_default_lock = threading.Lock()


def context(ctx):
    """ctx, or the default context (auto, made on first use)."""
    global _default
    if ctx is not None:
        return ctx
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Context()
    return _default


_context_or_default = context  # for functions whose argument is named context


def as_array(a):
    """(a NumPy array of a's data, True when it holds bfloat16 bits, the wrapper for results).

    NumPy arrays as they are; CPU PyTorch tensors and other DLPack objects (JAX) and buffers
    (memoryview, array.array) without a copy; anything else through np.asarray. The wrapper
    turns NumPy results back into torch tensors for torch input (None: return NumPy)."""
    if type(a) is np.ndarray:
        return a, a.dtype.name == "bfloat16", None
    if type(a).__module__.startswith("torch"):
        return _from_torch(a)
    if isinstance(a, np.ndarray):
        return a, a.dtype.name == "bfloat16", None
    if hasattr(a, "__dlpack__") and not hasattr(a, "__array_interface__"):
        return np.from_dlpack(a), False, None
    x = np.asarray(a)
    return x, x.dtype.name == "bfloat16", None


# The torch dtypes clmax takes, by name: the NumPy dtype whose bits the library reads and, for
# those some torch's DLPack refuses (torch 1.13: bool and bfloat16; unsigned types in torch
# releases older than their DLPack support), the torch dtype of the same size whose view it
# passes without a copy. bfloat16 always goes through the view: NumPy has no bfloat16.
_TORCH = {
    "float16": ("f2", None), "float32": ("f4", None), "float64": ("f8", None),
    "int8": ("i1", None), "int16": ("i2", None), "int32": ("i4", None), "int64": ("i8", None),
    "uint8": ("u1", None), "uint16": ("u2", "int16"), "uint32": ("u4", "int32"),
    "uint64": ("u8", "int64"), "bool": ("?", "uint8"), "bfloat16": ("u2", "int16"),
}


def _from_torch(t):
    import torch

    name = str(t.dtype).rpartition(".")[2]
    if name not in _TORCH:
        raise TypeError(f"clmax does not take torch tensors of dtype {t.dtype}")
    if t.device.type != "cpu":
        raise TypeError(f"clmax takes CPU tensors, not one on {t.device}: pass t.cpu()")
    t = t.detach()
    numpy_dtype, same_size = _TORCH[name]
    numpy_dtype = np.dtype(numpy_dtype)
    bf16 = name == "bfloat16"
    x = None
    if not bf16:
        try:
            x = np.from_dlpack(t)
        except (RuntimeError, BufferError, TypeError):  # this torch's DLPack refuses the dtype
            if same_size is None:
                raise
    if x is None:  # the same bits as a dtype DLPack passes: a view, no copy
        x = np.from_dlpack(t.view(getattr(torch, same_size))).view(numpy_dtype)
    return x, bf16, functools.partial(_to_torch, t.dtype, same_size)


def _to_torch(dtype, same_size, r):
    """A NumPy result as a torch tensor: indices (int64) as they are, values and Hardmax's
    output in the input's torch dtype (through the same-size view where DLPack needs one)."""
    import torch

    r = r if r.flags.c_contiguous else r.copy()  # (ascontiguousarray makes 0-d 1-d)
    if r.dtype == np.int64 or same_size is None:
        return torch.from_numpy(r)
    return torch.from_numpy(r.view(same_size)).view(dtype)  # same_size: a name both know


def type_of(x, bf16):
    """(clmax_type, x as the dtype the library reads); TypeError when clmax does not take it.
    bf16: x holds bfloat16 (ml_dtypes.bfloat16, or the bits of a torch.bfloat16 tensor)."""
    if bf16:
        return BFLOAT16, x.view(_UINT16)
    dt = x.dtype
    found = TYPES.get((dt.kind, dt.itemsize))
    if found is None or dt.fields is not None or dt.subdtype is not None:
        raise TypeError(f"clmax does not take arrays of dtype {dt}")
    code, view = found
    if not dt.isnative:
        x = x.astype(dt.newbyteorder("="))
    return code, (x if view is None else x.view(view))


def canonical(x, axis):
    """(a C-contiguous array holding x's elements, its axis, order). Reducing that array along
    that axis gives x's answers with x's axes permuted by order (None: in x's own order).

    A permuted view of a contiguous array (x.T, moveaxis, swapaxes) is read in place: its axes
    in memory order are the canonical [outer, n, inner] view. Other strided views (steps,
    reversals, broadcasts) are copied once."""
    if x.flags.c_contiguous:
        return x, axis, None
    order = sorted(range(x.ndim), key=lambda i: -abs(x.strides[i]))
    y = x.transpose(order)
    if not y.flags.c_contiguous:
        return np.ascontiguousarray(x), axis, None
    others = [i for i in order if i != axis and x.shape[i] != 1]
    return y, order.index(axis), (None if others == sorted(others) else order)


_OPERATORS = {"argmax": 1, "argmin": 2, "hardmax": 4}  # CLMAX_PREBUILD_*


class _Record(tuple):
    """A tuple whose items are also attributes, named by the subclass's _fields (the reports)."""

    __slots__ = ()
    _fields = ()

    def __new__(cls, values):
        return tuple.__new__(cls, values)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for i, name in enumerate(cls._fields):
            setattr(cls, name, property(operator.itemgetter(i)))

    def __repr__(self):
        items = ", ".join(f"{k}={v!r}" for k, v in zip(self._fields, self))
        return f"{type(self).__name__}({items})"


class PrebuildReport(_Record):
    """What prebuild() made ready: programs = compiled + from_cache + in_context."""

    __slots__ = ()
    _fields = ("programs", "compiled", "from_cache", "in_context")


def prebuild(types=None, operators=None, *, context=None):
    """Builds the OpenCL programs that the operators use on these dtypes now, for the context's
    device (default: the default context's), and keeps them in the program cache, so that no call
    pays a build and later processes find them built: a warm-up for images and CI. In an auto
    context it also measures the cost model's profile and waits for it. On the CPU path there is
    nothing to build (a report of zeros).

    types: NumPy dtypes (or names: "float32", "bfloat16", ...); None: every type. operators:
    names among "argmax", "argmin", "hardmax"; None: all (Hardmax takes the float types only).
    Returns a PrebuildReport(programs, compiled, from_cache, in_context)."""
    codes = []
    for t in () if types is None else types:
        if isinstance(t, str) and t == "bfloat16":
            codes.append(BFLOAT16)
            continue
        try:
            dt = np.dtype(t)
        except TypeError:
            raise TypeError(f"types: {t!r} is not a dtype") from None
        if dt.name == "bfloat16":
            codes.append(BFLOAT16)
            continue
        found = TYPES.get((dt.kind, dt.itemsize))
        if found is None or found[1] is not None or dt.fields is not None:
            raise TypeError(f"types: clmax does not take {dt}")
        codes.append(found[0])
    mask = 0
    for name in () if operators is None else operators:
        if name not in _OPERATORS:
            raise ValueError(f"operators: {name!r} is not 'argmax', 'argmin' or 'hardmax'")
        mask |= _OPERATORS[name]
    if operators is not None and not mask:
        raise ValueError("operators: name at least one, or None for all")
    if types is not None and not codes:
        raise ValueError("types: name at least one, or None for all")
    return PrebuildReport(_context_or_default(context)._prebuild(tuple(codes), mask))


def host(ctx, op, x, code, axis, keepdims, last, opset, out, out2):
    """Runs one operator on C-contiguous x (any rank >= 1) into out (and out2)."""
    _clmax.host(ctx or _default or context(None), op, x, code, x.shape, axis, keepdims, last,
                opset, out, out2)


class CallReport(_Record):
    """Where the last call on this thread ran: backend ('opencl', 'cpu', or '' when nothing
    ran), device, fallback_status and fallback_message (the OpenCL failure after which the CPU
    path answered, else ''), and choice (why an auto context sent the call where it did, or
    why a call along an axis of one took the CPU path in any context with a device)."""

    __slots__ = ()
    _fields = ("backend", "device", "fallback_status", "fallback_message", "choice")


def last_call():
    """The C library's report of the last operator call made on this thread."""
    return CallReport(_clmax.last_report())


def devices():
    """The OpenCL devices, in the order CLMAX_DEVICE and Context(device=N) index them, as
    `clmax devices` lists them: dicts of index, platform, name, kind, version, compute_units,
    global_memory and max_allocation (bytes). Empty when no OpenCL platform is installed."""
    return _clmax.devices()
