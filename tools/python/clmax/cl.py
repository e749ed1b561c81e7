"""clmax on PyOpenCL arrays: ArgMax, ArgMin, Hardmax and the maxima or minima with their
indices, enqueued on PyOpenCL's own context and queue, without host synchronisation.

    import clmax.cl, numpy as np, pyopencl as cl, pyopencl.array as cla
    ctx = cl.create_some_context()
    queue = cl.CommandQueue(ctx)
    x = cla.to_device(queue, np.random.rand(1000, 80).astype(np.float32))
    i = clmax.cl.argmax(queue, x, axis=1)      # a pyopencl.array.Array of int64, keepdims
    i.get()                                    # == np.argmax(x.get(), axis=1, keepdims=True)

Each function takes a C-contiguous pyopencl.array.Array (or a pyopencl.Buffer with shape=,
dtype= and offset=), waits for the array's pending events (x.events) and for wait_for, and
returns new arrays that carry the completion event in their `events` list, as PyOpenCL's own
array operations do: later PyOpenCL operations on the results wait for it, and .get() waits for
it. Nothing here waits on the host.

The attributes are ONNX's (opset 13): axis, keepdims (default True) and select_last_index for
ArgMax and ArgMin; axis for Hardmax. Answers are bit for bit those of NumPy and the ONNX
reference: a NaN wins, ties go to the first index (the last with select_last_index).

Contexts: the C library binds a clmax context to one OpenCL queue, so clmax keeps one clmax
context per PyOpenCL CommandQueue (a single-queue PyOpenCL context has one), made on first use.
clmax retains the OpenCL context, device and queue and releases only what it retained; the
clmax context is released when the last Python object of that queue that clmax was given is
gone, or at once by release(queue). With PyOpenCL releases whose queues take no weak reference
(2026.1 on PyPI), "gone" is seen at the next garbage collection (or the next clmax.cl call) after
the user's last reference is dropped. PyOpenCL's objects stay PyOpenCL's.

Like PyOpenCL's own operations, the input's events are not extended with the read: on an
out-of-order queue, make a later write to x wait for the result's event.

What reaches the library: the private core (clmax._clmax) takes raw OpenCL handles (integers)
and cannot tell a live handle from any other number. The functions here hand it only handles
read off PyOpenCL's own objects (CommandQueue, Buffer or a pyopencl.array.Array's buffer,
Event), and refuse anything else, an object that merely looks like one included, with a
TypeError before the core is called. Call the core directly at your own risk.
"""

import functools
import gc
import operator
import sys
import threading
import weakref

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from . import _core

__all__ = [
    "argmax", "argmin", "max_with_indices", "min_with_indices", "hardmax", "context", "release",
]

_INDEX_DTYPES = {np.dtype(np.int64): False, np.dtype(np.int32): True}  # dtype -> int32 flag
_ARG_OPSET = 13  # select_last_index needs opset 12 or later; 13 is ONNX's current one


# ---------------------------------------------------------------------------------------------
# The clmax contexts, one per PyOpenCL queue.
#
# Keyed by the cl_command_queue handle (queue.int_ptr), not by the Python object: PyOpenCL can
# hand out several Python objects for one queue (CommandQueue.from_int_ptr, an event's queue),
# and they must share one clmax context. The handle cannot be reused by another queue while
# the entry lives, because the clmax context holds its own retain on the queue. Each Python
# object seen for the queue is watched; when the last one is gone the entry is dropped, and
# with it the clmax context (its destructor releases what clmax retained).
#
# How an object is watched depends on the PyOpenCL: older ones' queues take weak references,
# whose callback drops the object as it dies. The newest (nanobind) ones' queues take none: the
# entry then holds the object itself and counts its references; when only the entry's is left,
# the user has dropped it, and the entry lets go of it. That check runs after each garbage
# collection (gc.callbacks) and on each call here, so a dropped queue lives at most until the
# next collection: nothing is kept for long, and no context is made per call.
#
# A weak reference's callback and a collection can run in the middle of a locked section of
# the same thread, so both only try the lock; what they skip, the next one does.

class _Entry:
    __slots__ = ("context", "refs", "held")

    def __init__(self, ctx):
        self.context = ctx
        self.refs = []  # weak references to the queue's Python objects
        self.held = []  # the queue's Python objects that take no weak reference


_lock = threading.Lock()
_cache = {}  # queue.int_ptr -> _Entry
_dropped = []  # entries whose objects are gone, dropped outside the lock


def _refcount(objects, i):
    """How many references objects[i] has, counted the same way for every object."""
    return sys.getrefcount(objects[i])


# The count of an object only a list holds (the interpreter's own temporaries vary by version).
_ONLY_HELD = _refcount([object()], 0)


def _prune(entry):
    """Lets go of entry's held objects that nothing but the entry holds, and of weak references
    whose callback could not take the lock; True when no object of the queue is left. Under
    _lock."""
    held = entry.held
    for i in range(len(held) - 1, -1, -1):
        if _refcount(held, i) <= _ONLY_HELD:
            del held[i]
    if any(r() is None for r in entry.refs):
        entry.refs = [r for r in entry.refs if r() is not None]
    return not held and not entry.refs


def _sweep():
    """Drops the entries whose queue objects are all gone. Under _lock."""
    for key in [k for k, e in _cache.items() if _prune(e)]:
        _dropped.append(_cache.pop(key))


def _finish(_dropped=_dropped):
    # Outside the lock: a context's destructor releases OpenCL objects. Not close(): a call on
    # another thread may still hold the context; dropping the cache's reference destroys it as
    # soon as no call does.
    while _dropped:
        try:
            _dropped.pop()
        except IndexError:  # another thread took the last one
            break


def _after_collection(phase, info, _lock=_lock, _sweep=_sweep, _finish=_finish):
    # Default arguments: at interpreter shutdown the module's globals may already be None.
    if phase != "stop" or not _lock.acquire(blocking=False):
        return
    try:
        _sweep()
    finally:
        _lock.release()
    _finish()


gc.callbacks.append(_after_collection)


def _forget(key, ref, _lock=_lock, _cache=_cache, _dropped=_dropped, _finish=_finish):
    # A weak reference's callback: the queue object died. When the lock is busy (this thread's
    # own locked section, or another thread's), the dead reference is pruned later instead.
    if not _lock.acquire(blocking=False):
        return
    try:
        entry = _cache.get(key)
        if entry is None or ref not in entry.refs:
            return
        entry.refs.remove(ref)
        if not entry.refs and not entry.held:
            _dropped.append(_cache.pop(key))
    finally:
        _lock.release()
    _finish()


def _watch(entry, queue, key):
    """Makes entry watch this Python object of its queue (once). Under _lock."""
    if any(r() is queue for r in entry.refs) or any(q is queue for q in entry.held):
        return
    try:
        entry.refs.append(weakref.ref(queue, functools.partial(_forget, key)))
    except TypeError:  # this PyOpenCL's queues take no weak reference
        entry.held.append(queue)


def context(queue):
    """The clmax.Context that clmax.cl's calls on this pyopencl.CommandQueue use: made on first
    use over the queue's context, device and queue (clmax retains the three), and cached until
    every Python object of the queue it was given is gone (garbage collected), or until
    release(queue)."""
    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
    key = queue.int_ptr
    with _lock:
        _sweep()
        entry = _cache.get(key)
        if entry is None or entry.context.closed:  # closed: the user closed what we gave out
            ctx = _core.Context.from_cl(queue.context.int_ptr, queue.device.int_ptr, key)
            if entry is None:
                entry = _cache[key] = _Entry(ctx)
            else:
                _dropped.append(entry.context)
                entry.context = ctx
        _watch(entry, queue, key)
        ctx = entry.context
    _finish()
    return ctx


def release(queue):
    """Releases the clmax context of this pyopencl.CommandQueue now (if there is one): what
    clmax retained of the queue, its context and device, and clmax's kernels and scratch
    buffer. Work already enqueued completes; a call racing with release() on another thread may
    raise ValueError (the context is closed). A later call on the queue makes a new one."""
    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
    with _lock:
        entry = _cache.pop(queue.int_ptr, None)
    if entry is not None:
        try:
            entry.context.close()
        except RuntimeError:  # a call on another thread is using it: it goes when that ends
            pass


# ---------------------------------------------------------------------------------------------
# The arguments.

def _mem(holder):
    """The cl_mem handle of an array's or buffer's memory (0 for an empty array's None)."""
    return 0 if holder is None else holder.int_ptr


def _check_queue(queue, context_ptr, what):
    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
    if queue.context.int_ptr != context_ptr:
        raise ValueError(f"queue belongs to another OpenCL context than {what}")


def _input(queue, x, shape, dtype, offset):
    """(queue, memory object, byte offset, dims, dtype, events to wait for, allocator for the
    results) of the input, checked."""
    if isinstance(x, cla.Array):
        if shape is not None or dtype is not None or offset != 0:
            raise TypeError("shape=, dtype= and offset= describe a pyopencl.Buffer input; a "
                            "pyopencl.array.Array carries its own")
        if queue is None:
            queue = x.queue
            if queue is None:
                raise ValueError("x has no queue: pass one")
        _check_queue(queue, x.context.int_ptr, "x's")
        if not x.flags.c_contiguous:
            raise ValueError(f"x must be C-contiguous (shape {x.shape}, strides {x.strides}): "
                             "clmax reads it in place; make a contiguous copy first")
        data = x.base_data
        if data is not None and not isinstance(data, cl.MemoryObjectHolder):
            raise TypeError("x must live in a pyopencl buffer (SVM arrays are not taken)")
        dims = tuple(int(d) for d in x.shape)
        allocator = x.allocator
        return queue, data, int(x.offset), dims, np.dtype(x.dtype), list(x.events), allocator
    if isinstance(x, cl.MemoryObjectHolder):
        if queue is None:
            raise ValueError("a pyopencl.Buffer input needs a queue")
        if shape is None or dtype is None:
            raise TypeError("a pyopencl.Buffer input needs shape= and dtype=")
        _check_queue(queue, x.get_info(cl.mem_info.CONTEXT).int_ptr, "the buffer's")
        if isinstance(shape, (int, np.integer)):
            shape = (shape,)
        try:
            dims = tuple(operator.index(d) for d in shape)
            offset = operator.index(offset)
        except TypeError:
            raise TypeError("shape must be a tuple of ints and offset an int") from None
        if any(d < 0 for d in dims):
            raise ValueError(f"shape {dims} has a negative dimension")
        if offset < 0:
            raise ValueError(f"offset {offset} is negative")
        return queue, x, offset, dims, np.dtype(dtype), [], None
    raise TypeError("x must be a pyopencl.array.Array or a pyopencl.Buffer (with shape= and "
                    f"dtype=), not {type(x).__name__}")


def _type_code(dtype):
    """The clmax element type of dtype; TypeError when clmax does not take it."""
    if not dtype.isnative:  # the device's bytes would be read in the wrong order
        raise TypeError(f"clmax does not take arrays of non-native byte order ({dtype})")
    return _core.type_of(np.empty(0, dtype), dtype.name == "bfloat16")[0]


def _wait_list(events, wait_for):
    """x.events and wait_for, checked: the core is handed only PyOpenCL's events' handles."""
    for e in events:
        if not isinstance(e, cl.Event):
            raise TypeError(f"x.events holds a {type(e).__name__}, not a pyopencl.Event")
    if wait_for is not None:
        if isinstance(wait_for, cl.Event):
            raise TypeError("wait_for must be a list of pyopencl.Event, not one Event")
        try:
            extra = list(wait_for)
        except TypeError:
            raise TypeError("wait_for must be a list of pyopencl.Event") from None
        for e in extra:
            if not isinstance(e, cl.Event):
                raise TypeError(f"wait_for holds a {type(e).__name__}, not a pyopencl.Event")
        events = events + extra
    return events


def _empty(queue, shape, dtype, allocator):
    """A new array for a result, from the input's allocator (its memory pool) where that gives
    a cl_mem buffer."""
    a = cla.empty(queue, shape, dtype, allocator=allocator)
    if a.base_data is not None and not isinstance(a.base_data, cl.MemoryObjectHolder):
        a = cla.empty(queue, shape, dtype)
    return a


def _run(op, queue, x, axis, keepdims, last, opset, index_dtype, wait_for, shape, dtype,
         offset):
    """Enqueues op; returns the output array (the indices, or Hardmax's y), and the values'
    array for the *_with_indices (else None)."""
    queue, mem, x_offset, dims, dtype, events, allocator = _input(queue, x, shape, dtype, offset)
    code = _type_code(dtype)
    try:
        int32 = _INDEX_DTYPES[np.dtype(index_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"index_dtype must be np.int64 or np.int32, not {index_dtype!r}") \
            from None
    events = _wait_list(events, wait_for)
    axis = operator.index(axis)
    keepdims = int(bool(keepdims))
    last = int(bool(last))
    out_dims = _core._clmax.shape(op, code, dims, axis, keepdims, last, opset)
    ctx = context(queue)
    if op == _core.HARDMAX:
        out, values = _empty(queue, dims, dtype, allocator), None
    else:
        out = _empty(queue, out_dims, np.int32 if int32 else np.int64, allocator)
        values = None
        if op in (_core.MAX_WITH_INDICES, _core.MIN_WITH_INDICES):
            values = _empty(queue, out_dims, dtype, allocator)
    handle = _core._clmax.enqueue(
        ctx, op, _mem(mem), x_offset, code, dims, axis, keepdims, last, opset,
        _mem(out.base_data), int(out.offset),
        None if values is None else _mem(values.base_data),
        None if values is None else int(values.offset),
        int32, tuple(e.int_ptr for e in events))
    if handle is not None:
        # The call returned a reference of its own: PyOpenCL takes it over (retain=False).
        event = cl.Event.from_int_ptr(handle, retain=False)
        out.add_event(event)
        if values is not None:
            values.add_event(event)
    return out, values


# ---------------------------------------------------------------------------------------------
# The operators.

def argmax(queue, x, axis=0, keepdims=True, select_last_index=False, *, index_dtype=np.int64,
           wait_for=None, shape=None, dtype=None, offset=0):
    """ONNX ArgMax (opset 13) enqueued on queue: a new pyopencl.array.Array of the indices of
    the maxima along axis (ties to the first index, or the last with select_last_index; a NaN
    wins), with the axis kept as length 1 when keepdims.

    queue: a pyopencl.CommandQueue of x's context (None: x.queue). x: a C-contiguous
    pyopencl.array.Array, or a pyopencl.Buffer with shape=, dtype= and offset= (bytes).
    index_dtype: np.int64 (ONNX's) or np.int32 (ValueError when an index may not fit).
    wait_for: pyopencl.Events the work waits for, besides x.events. The result's `events`
    holds the completion event; nothing waits on the host.

    Raises TypeError for an argument of the wrong kind or a dtype clmax does not take,
    ValueError for a bad axis, shape or offset (the library's message), clmax.DeviceError when
    OpenCL fails."""
    out, _ = _run(_core.ARGMAX, queue, x, axis, keepdims, select_last_index, _ARG_OPSET,
                  index_dtype, wait_for, shape, dtype, offset)
    return out


def argmin(queue, x, axis=0, keepdims=True, select_last_index=False, *, index_dtype=np.int64,
           wait_for=None, shape=None, dtype=None, offset=0):
    """ONNX ArgMin (opset 13) enqueued on queue: the indices of the minima along axis, as
    argmax (a NaN still wins, as in NumPy and the ONNX reference; -0.0 and +0.0 tie)."""
    out, _ = _run(_core.ARGMIN, queue, x, axis, keepdims, select_last_index, _ARG_OPSET,
                  index_dtype, wait_for, shape, dtype, offset)
    return out


def max_with_indices(queue, x, axis=0, keepdims=True, select_last_index=False, *,
                     index_dtype=np.int64, wait_for=None, shape=None, dtype=None, offset=0):
    """(values, indices): the maxima along axis (x's dtype, the bits of the winning elements, a
    NaN where the row has one) and argmax's indices, in one pass, as two new
    pyopencl.array.Arrays that both carry the completion event. Arguments as argmax."""
    indices, values = _run(_core.MAX_WITH_INDICES, queue, x, axis, keepdims, select_last_index,
                           _ARG_OPSET, index_dtype, wait_for, shape, dtype, offset)
    return values, indices


def min_with_indices(queue, x, axis=0, keepdims=True, select_last_index=False, *,
                     index_dtype=np.int64, wait_for=None, shape=None, dtype=None, offset=0):
    """(values, indices): the minima along axis and argmin's indices, in one pass; see
    max_with_indices."""
    indices, values = _run(_core.MIN_WITH_INDICES, queue, x, axis, keepdims, select_last_index,
                           _ARG_OPSET, index_dtype, wait_for, shape, dtype, offset)
    return values, indices


def hardmax(queue, x, axis=-1, *, opset=13, wait_for=None, shape=None, dtype=None, offset=0):
    """ONNX Hardmax enqueued on queue: a new pyopencl.array.Array of x's shape and dtype, 1 at
    the first maximum along axis (a NaN wins) and 0 elsewhere. opset 1 and 11 coerce x to 2-D
    at axis, as ONNX defines them. Other arguments, results and errors as argmax."""
    out, _ = _run(_core.HARDMAX, queue, x, axis, 0, 0, operator.index(opset), np.int64,
                  wait_for, shape, dtype, offset)
    return out
