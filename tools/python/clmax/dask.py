"""clmax on Dask arrays: argmax, argmin and the maxima or minima with their indices, lazily, bit
for bit as NumPy's answer on the whole array, for any chunking.

    import clmax.dask, dask.array as da
    x = da.random.random((4000, 3000), chunks=(1000, 700)).astype("f4")
    clmax.dask.argmax(x, axis=1).compute()          # == np.argmax(x.compute(), axis=1)

How: each block is reduced by clmax (max_with_indices / min_with_indices, keepdims=True) into
a partial (value, index) record whose index is global (the block's offset added); a tree of
combine steps (dask.array.reduction) then picks the winning partial. See docs/PYTHON_DASK.md
for why the answer is exact (NaN, ties across blocks, select_last_index, -0.0 and +0.0).

Where blocks run: backend=, device= and num_threads= say it as clmax.Context takes them, in a
form that pickles (contexts do not). Each worker process makes its own context from them on its
first block, and keeps it for the later ones; the defaults use the worker's default (auto)
context. The description is checked when the graph is built (ValueError); a device a worker
does not have fails that block's task with clmax.DeviceError naming the worker's host and the
selector, or, with backend="auto", is answered on the CPU path, as auto does.

The block functions are module-level, so that the graph pickles to dask.distributed workers.
"""

import functools
import math
import os
import socket
import threading

import dask.array as da
import numpy as np

from . import _core
from ._clmax import DeviceError
from ._numpy import _EMPTY, _axis
from ._numpy import argmax as _argmax
from ._numpy import argmin as _argmin
from ._numpy import max_with_indices as _max_with_indices
from ._numpy import min_with_indices as _min_with_indices

__all__ = ["argmax", "argmin", "max_with_indices", "min_with_indices"]

_INT64 = np.dtype(np.int64)
_NO_INDEX = np.iinfo(np.int64).max  # above every index: loses the "smallest index" tie-break


# Where blocks run: (backend, device, num_threads), as clmax.Context takes them; None for the
# worker's default context. Each process keeps the contexts it made, by that tuple.
_contexts = {}
_contexts_lock = threading.Lock()


def _where(backend, device, num_threads):
    """The checked, picklable description of where blocks run (ValueError when malformed)."""
    if backend not in _core.BACKENDS:
        raise ValueError(f"backend={backend!r}: must be 'auto', 'opencl' or 'cpu'")
    if isinstance(device, str):
        if not device.strip():
            raise ValueError("device='' selects nothing: give an index in clmax.devices(), a "
                             "part of '<platform> <device>', or None")
        device = device.strip()
    elif device is not None:
        if isinstance(device, bool) or not isinstance(device, (int, np.integer)):
            raise ValueError(f"device={device!r}: must be an index in clmax.devices(), a part "
                             "of '<platform> <device>', or None")
        if device < 0:
            raise ValueError(f"device={device}: a device index is 0 or more")
        device = str(int(device))  # the selector Context takes: an index as its digits
    if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) \
            or num_threads < 0:
        raise ValueError(f"num_threads={num_threads!r}: must be an int, 0 (one per core) or more")
    if (backend, device, int(num_threads)) == ("auto", None, 0):
        return None
    return backend, device, int(num_threads)


def _context(where):
    """This process's context for where, made on first use (None: the default context)."""
    if where is None:
        return _core.context(None)
    ctx = _contexts.get(where)
    if ctx is None or ctx.closed:
        with _contexts_lock:
            ctx = _contexts.get(where)
            if ctx is None or ctx.closed:
                backend, device, num_threads = where
                try:
                    ctx = _core.Context(backend, device, num_threads)
                except DeviceError as e:
                    raise DeviceError(
                        f"clmax.dask on {socket.gethostname()} (pid {os.getpid()}), "
                        f"backend={backend!r} device={device!r}: {e}") from None
                _contexts[where] = ctx
    return ctx


def _record(dtype):
    """The partials' dtype: the winning value (native byte order, as clmax returns it) and its
    index in the whole array. Aligned, so that the int64 field is read at full speed."""
    return np.dtype([("v", dtype), ("i", _INT64)], align=True)


def _block(x, op, axis, last, where, block_info=None):
    """One block's partial: clmax's (value, index) of the block along axis (keepdims), the
    index made global with the block's offset. axis=None: over the whole block; the index is
    then a flat (C-order) index of the whole array."""
    reduce = _min_with_indices if op == _core.MIN_WITH_INDICES else _max_with_indices
    ctx = _context(where)
    info = block_info[0]
    if axis is None:
        # The block's C order is the whole array's C order restricted to the block (a
        # translation keeps lexicographic order), so the block's first (or last) winner is the
        # one with the smallest (largest) global flat index among the block's winners.
        v, i = reduce(x, None, keepdims=True, select_last_index=last, context=ctx)
        local = np.unravel_index(int(i.reshape(())), x.shape)
        where = tuple(j + start for j, (start, _) in zip(local, info["array-location"]))
        i = np.full(v.shape, np.ravel_multi_index(where, info["shape"]), _INT64)
    else:
        v, i = reduce(x, axis, keepdims=True, select_last_index=last, context=ctx)
        i += info["array-location"][axis][0]
    out = np.empty(v.shape, _record(v.dtype))
    out["v"] = v
    out["i"] = i
    return out


def _passthrough(p, axis=None, keepdims=True):
    """dask.array.reduction's chunk step: the partials are already made by _block."""
    return p


def _combine(op, last, ordered, where, p, axis, keepdims):
    """The winning partial of p (partials concatenated along the reduced axes).

    ordered: one reduced axis, whose partials dask concatenates in block order (each step
    combines a contiguous run of blocks, in order), so the first (last) partial holding the
    winning value holds the first (last) winning element: clmax's own pick on the values is
    the answer. Otherwise (axis=None over several axes) blocks do not follow the flat order,
    so among the partials that tie with the winning value (equal, or NaN with NaN) the one with
    the smallest (largest, for select_last_index) global index wins."""
    keep = [d for d in range(p.ndim) if d not in axis]
    m = math.prod(p.shape[d] for d in axis)
    q = p.transpose(keep + list(axis)).reshape([p.shape[d] for d in keep] + [m])
    values, indices = q["v"], q["i"]
    pick = _argmin if op == _core.MIN_WITH_INDICES else _argmax
    k = pick(values, -1, keepdims=True, select_last_index=last, context=_context(where))
    if not ordered:
        best = np.take_along_axis(values, k, -1)
        tie = (values == best) | ((values != values) & (best != best))  # -0.0 == +0.0 too
        if last:
            k = np.argmax(np.where(tie, indices, -1), -1, keepdims=True)
        else:
            k = np.argmin(np.where(tie, indices, _NO_INDEX), -1, keepdims=True)
    out = np.take_along_axis(q, k, -1)  # records: the value's bits and its index together
    shape = [1 if d in axis else n for d, n in enumerate(p.shape)]
    out = out.reshape(shape)  # the kept axes stay in order; reduced ones are 1: same layout
    return out if keepdims else out.reshape([n for d, n in enumerate(shape) if d not in axis])


def _field(p, name, drop):
    """One field of the result records, contiguous, without the axes in drop; a NumPy scalar
    for a 0-d result, as NumPy returns it."""
    a = p[name]
    if drop:
        a = a.reshape([n for d, n in enumerate(a.shape) if d not in drop])
    a = a.copy()
    return a[()] if a.ndim == 0 else a


def _as_dask(x):
    """x as a dask array: dask arrays as they are; anything else (a NumPy array, a list)
    through dask.array.asarray, as one chunk, as dask.array's own functions take it."""
    if isinstance(x, da.Array):
        return x
    return da.asarray(x)


def _check_dtype(dtype):
    """TypeError now, not at compute time, for a dtype clmax does not take."""
    if dtype.name == "bfloat16":
        return
    if (_core.TYPES.get((dtype.kind, dtype.itemsize)) is None or dtype.fields is not None
            or dtype.subdtype is not None):
        raise TypeError(f"clmax does not take arrays of dtype {dtype}")


def _known(n, what):
    """ValueError for an unknown (NaN) size: the blocks' offsets could not be known."""
    if isinstance(n, float) and math.isnan(n):
        raise ValueError(f"{what} has unknown chunk sizes: call x.compute_chunk_sizes() first")


def _empty(op, arg):
    """NumPy's message for an empty reduced axis."""
    if arg:
        op = _core.ARGMIN if op == _core.MIN_WITH_INDICES else _core.ARGMAX
    return _EMPTY[op]


def _reduce(op, x, axis, keepdims, last, split_every, where, arg=False):
    """The lazy (values, indices) pair of op (MAX_ or MIN_WITH_INDICES) on dask array x. where:
    _where()'s. arg: for argmax / argmin (NumPy's error message for an empty axis differs)."""
    x = _as_dask(x)
    _check_dtype(x.dtype)
    scalar = x.ndim == 0
    if scalar:  # NumPy: a 0-d array's answer is 0 (0-d, with or without keepdims)
        if axis is not None:
            _axis(axis, 0)
        x, axis, keepdims = x.reshape(1), 0, True
    if axis is None and x.ndim == 1:
        axis = 0  # the same answer and shape, keepdims or not; its partials are in order
    if axis is None:
        axes = tuple(range(x.ndim))
        for n in x.shape:
            _known(n, "x")
        if x.size == 0:
            raise ValueError(_empty(op, arg))
        block_axis = None
    else:
        block_axis = _axis(axis, x.ndim)
        axes = (block_axis,)
        _known(x.shape[block_axis], f"axis {block_axis}")
        if x.shape[block_axis] == 0:
            raise ValueError(_empty(op, arg))
    # An empty block along a reduced axis has no partial that loses to every other (a NaN
    # wins, the minimum ties): leave such blocks out (a rechunk that moves no data).
    if any(0 in x.chunks[d] for d in axes):
        x = x.rechunk({d: tuple(c for c in x.chunks[d] if c) for d in axes})

    dtype = x.dtype if x.dtype.isnative else x.dtype.newbyteorder("=")
    record = _record(dtype)
    meta = np.empty((0,) * x.ndim, record)
    partials = da.map_blocks(
        _block, x, op, block_axis, bool(last), where, dtype=record, meta=meta,
        chunks=tuple((1,) * len(c) if d in axes else c for d, c in enumerate(x.chunks)))
    combine = functools.partial(_combine, op, bool(last), block_axis is not None, where)
    result = da.reduction(
        partials, _passthrough, combine, combine=combine, axis=axes, keepdims=True,
        dtype=record, split_every=split_every, concatenate=True, meta=meta)
    # dask keeps the reduced axes (keepdims=True above: it cannot make a 0-d meta of records);
    # the fields are taken out, and those axes dropped, block by block.
    drop = (0,) if scalar else () if keepdims else axes
    ndim = x.ndim - len(drop)
    values, indices = (
        result.map_blocks(_field, name, drop, drop_axis=list(drop), dtype=dt,
                          meta=np.empty((0,) * ndim, dt))
        for name, dt in (("v", dtype), ("i", _INT64)))
    return values, indices


def argmax(x, axis=None, *, keepdims=False, select_last_index=False, split_every=None,
           backend="auto", device=None, num_threads=0):
    """Indices of the maxima of dask array x along axis, as np.argmax returns them on the whole
    array (bit for bit, for any chunking), as a lazy int64 dask array.

    x: a dask.array.Array (anything else goes through dask.array.asarray, one chunk) of any
    dtype clmax.argmax takes. axis=None: the flattened array (flat C-order indices), without
    rechunking. A NaN wins (the first one). select_last_index: ties (and NaNs) go to the last
    index. split_every: the combine tree's fan-in (dask.array.reduction's).

    backend, device, num_threads: where the blocks run, as clmax.Context takes them; each
    worker process makes its own context from them on first use and keeps it. The defaults use
    the worker's default (auto) context. ValueError here for a malformed one; clmax.DeviceError
    from a block's task for a device its worker does not have, naming the worker's host and
    the selector (backend="auto": the CPU path answers instead, as auto does).
    """
    return _reduce(_core.MAX_WITH_INDICES, x, axis, keepdims, select_last_index, split_every,
                   _where(backend, device, num_threads), True)[1]


def argmin(x, axis=None, *, keepdims=False, select_last_index=False, split_every=None,
           backend="auto", device=None, num_threads=0):
    """Indices of the minima of dask array x along axis, as np.argmin returns them; see
    clmax.dask.argmax. A NaN wins here too (the first one); -0.0 and +0.0 tie."""
    return _reduce(_core.MIN_WITH_INDICES, x, axis, keepdims, select_last_index, split_every,
                   _where(backend, device, num_threads), True)[1]


def max_with_indices(x, axis=None, *, keepdims=False, select_last_index=False,
                     split_every=None, backend="auto", device=None, num_threads=0):
    """(values, indices) of dask array x along axis, as two lazy dask arrays sharing one graph
    (dask.compute(values, indices) reduces once): the bits of the elements np.argmax points
    at (a NaN where the row has one) and those indices. See clmax.dask.argmax."""
    return _reduce(_core.MAX_WITH_INDICES, x, axis, keepdims, select_last_index, split_every,
                   _where(backend, device, num_threads))


def min_with_indices(x, axis=None, *, keepdims=False, select_last_index=False,
                     split_every=None, backend="auto", device=None, num_threads=0):
    """(values, indices): the minima of dask array x and np.argmin's indices; see
    clmax.dask.max_with_indices."""
    return _reduce(_core.MIN_WITH_INDICES, x, axis, keepdims, select_last_index, split_every,
                   _where(backend, device, num_threads))
