"""clmax.cl on PyOpenCL arrays and buffers against NumPy, bit for bit: dtypes, axes, keepdims,
select_last_index (ties), NaN, int32 indices, buffers at an offset, in-order and out-of-order
queues, event ordering (x.events, wait_for, the result's events), refusals and the per-queue
context cache.

The PyOpenCL context is made on the device CLMAX_DEVICE names (a case-insensitive part of
"<platform> <device>", or an index in clmax.devices()), else on the first device."""

import gc
import os
import threading
import time
import types
import weakref

import numpy as np
import pytest

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")

import clmax  # noqa: E402
import clmax.cl as ccl  # noqa: E402
from helpers import arg_reference, bits, random_array, values_at  # noqa: E402

if not clmax.devices():
    pytest.skip("no OpenCL device", allow_module_level=True)

COMPLETE = cl.command_execution_status.COMPLETE
SHAPES = [(7,), (5, 33), (4, 1, 6), (2, 3, 4, 5), (1, 300), (300, 3)]


def _devices():
    found = []
    try:
        platforms = cl.get_platforms()
    except cl.Error:  # no platform PyOpenCL can load
        return found
    for p in platforms:
        try:
            found += [(p, d) for d in p.get_devices()]
        except cl.Error:  # a platform without devices
            pass
    return found


def _pick_device():
    found = _devices()
    want = os.environ.get("CLMAX_DEVICE", "").strip()
    if want.isdigit() and int(want) < len(clmax.devices()):
        d = clmax.devices()[int(want)]
        want = f"{d['platform']} {d['name']}"
    for p, d in found:
        if want and want.lower() in f"{p.name} {d.name}".lower():
            return d
    return found[0][1] if found else None


@pytest.fixture(scope="module")
def device():
    if _DEVICE is None:
        pytest.skip("PyOpenCL sees no device")
    return _DEVICE


@pytest.fixture(scope="module")
def context(device):
    return cl.Context([device])


@pytest.fixture(scope="module")
def queue(context):
    return cl.CommandQueue(context)


@pytest.fixture(scope="module")
def ooo_queue(context, device):
    try:
        return cl.CommandQueue(
            context, device, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    except cl.Error as e:
        pytest.skip(f"the device refuses out-of-order queues: {e}")


@pytest.fixture(params=["in-order", "out-of-order"])
def any_queue(request):
    return request.getfixturevalue("queue" if request.param == "in-order" else "ooo_queue")


def _dtypes(device):
    """The dtypes tested on device: float16 and float64 where it has the extension."""
    ext = device.extensions.split()
    out = [np.float32]
    out += [np.float16] if "cl_khr_fp16" in ext else []
    out += [np.float64] if "cl_khr_fp64" in ext else []
    return out + [np.uint8, np.int16, np.int32, np.int64, np.uint64]


_DEVICE = _pick_device()
DTYPES = _dtypes(_DEVICE) if _DEVICE is not None else [np.float32]
_by_dtype = pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)


def _axes(ndim):
    return list(range(-ndim, ndim))


# ---------------------------------------------------------------------------------------------
# Answers.

# Every (operator, tie rule, index type, element type) is an OpenCL program clmax builds on first
# use (about a second each on PoCL, cached on disk afterwards): the element types are swept with
# two of them, float32 with all eight. The C library's answers are tested exhaustively by
# test_numpy.py; here, that this layer hands it the right buffers, offsets, shapes and types.
OPS = {
    "argmax": (ccl.argmax, False, False), "argmin": (ccl.argmin, True, False),
    "max_with_indices": (ccl.max_with_indices, False, True),
    "min_with_indices": (ccl.min_with_indices, True, True),
}


def _check_op(queue, name, x, xd, last, index_dtype=np.int64):
    """name on xd (x on the device) for every axis and keepdims, against NumPy, bit for bit."""
    f, minimum, with_values = OPS[name]
    npval = np.min if minimum else np.max
    for axis in _axes(x.ndim):
        for keepdims in (False, True):
            where = (name, x.dtype.name, x.shape, axis, keepdims, last)
            want = arg_reference(x, axis, keepdims, last, minimum)
            got = f(queue, xd, axis, keepdims, last, index_dtype=index_dtype)
            v, i = got if with_values else (None, got)
            assert isinstance(i, cla.Array) and i.dtype == index_dtype, where
            assert i.shape == np.shape(want), where
            np.testing.assert_array_equal(i.get(), want, err_msg=str(where))
            if with_values:
                assert isinstance(v, cla.Array) and v.dtype == x.dtype, where
                assert v.shape == np.shape(want), where
                vh = v.get()
                # The winning element's bits (NaN payloads, -0.0 and +0.0 told apart) ...
                ref = values_at(x, want, axis, keepdims)
                np.testing.assert_array_equal(bits(vh), bits(ref), err_msg=str(where))
                # ... which are NumPy's max / min (NaN equal to NaN, -0.0 to +0.0).
                np.testing.assert_array_equal(vh, npval(x, axis=axis, keepdims=keepdims),
                                              err_msg=str(where))


@_by_dtype
def test_every_dtype(queue, dtype):
    rng = np.random.default_rng(7)
    for shape in [(7,), (2, 3, 4, 5)]:
        x = random_array(rng, shape, dtype)  # ties, and NaN, infinities and both zeros
        xd = cla.to_device(queue, x)
        _check_op(queue, "argmax", x, xd, False)
        _check_op(queue, "min_with_indices", x, xd, True)


@pytest.mark.parametrize("name", list(OPS))
def test_every_operator_and_tie_rule(queue, name):
    rng = np.random.default_rng(9)
    for shape in SHAPES:
        x = random_array(rng, shape, np.float32)
        xd = cla.to_device(queue, x)
        for last in (False, True):
            _check_op(queue, name, x, xd, last)


@_by_dtype
def test_hardmax_one_hot_at_argmax(queue, dtype):
    rng = np.random.default_rng(3)
    if np.dtype(dtype).kind != "f":  # ONNX's Hardmax takes floating-point types only
        with pytest.raises(TypeError, match="Hardmax"):
            ccl.hardmax(queue, cla.to_device(queue, random_array(rng, (3, 4), dtype)))
        return
    for shape in [(7,), (5, 33), (2, 3, 4, 5), (300, 3)]:
        x = random_array(rng, shape, dtype)
        xd = cla.to_device(queue, x)
        for axis in _axes(len(shape)):
            got = ccl.hardmax(queue, xd, axis)
            assert got.dtype == x.dtype and got.shape == x.shape
            want = np.zeros_like(x)
            np.put_along_axis(want, np.argmax(x, axis=axis, keepdims=True), 1, axis)
            np.testing.assert_array_equal(bits(got.get()), bits(want), err_msg=str((shape, axis)))
    x = random_array(rng, (4, 6), dtype)
    want = np.zeros_like(x)
    np.put_along_axis(want, np.argmax(x, axis=-1, keepdims=True), 1, -1)
    np.testing.assert_array_equal(ccl.hardmax(queue, cla.to_device(queue, x)).get(), want)


def test_hardmax_opset_11_coerces_to_2d(queue):
    x = np.random.default_rng(5).random((3, 4, 5)).astype(np.float32)
    got = ccl.hardmax(queue, cla.to_device(queue, x), 1, opset=11).get()
    flat = x.reshape(3, 20)
    want = np.zeros_like(flat)
    want[np.arange(3), np.argmax(flat, axis=1)] = 1
    np.testing.assert_array_equal(got, want.reshape(x.shape))


def test_nan_wins_and_ties(queue):
    x = np.array([[1, np.nan, 3, np.nan], [2, 5, 5, -1], [-0.0, 0.0, -1, -1]], np.float32)
    xd = cla.to_device(queue, x)
    np.testing.assert_array_equal(ccl.argmax(queue, xd, 1, False).get(), [1, 1, 0])
    np.testing.assert_array_equal(ccl.argmax(queue, xd, 1, False, True).get(), [3, 2, 1])
    np.testing.assert_array_equal(ccl.argmin(queue, xd, 1, False).get(), [1, 3, 2])
    np.testing.assert_array_equal(ccl.argmin(queue, xd, 1, False, True).get(), [3, 3, 3])


def test_int32_indices(queue, dtype=np.float32):
    rng = np.random.default_rng(11)
    for shape in [(6, 70), (3, 4, 5)]:
        x = random_array(rng, shape, dtype)
        xd = cla.to_device(queue, x)
        _check_op(queue, "argmax", x, xd, True, np.int32)
        _check_op(queue, "min_with_indices", x, xd, False, np.int32)
    x = random_array(rng, (6, 7), dtype)  # index_dtype may be given as any spelling of int32
    i = ccl.argmax(queue, cla.to_device(queue, x), 1, select_last_index=True, index_dtype="i4")
    assert i.dtype == np.int32
    np.testing.assert_array_equal(i.get(), arg_reference(x, 1, True, True, False))


def test_buffer_input_with_offset(context, queue):
    rng = np.random.default_rng(13)
    x = random_array(rng, (9, 10), np.float32)
    pad = 24  # bytes before the tensor: a multiple of the element size, not of a vector's
    host = np.zeros(pad + x.nbytes + 16, np.uint8)
    host[pad:pad + x.nbytes] = x.view(np.uint8).reshape(-1)
    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    buf = cl.Buffer(context, flags, hostbuf=host)
    for axis in (0, 1):
        got = ccl.argmax(queue, buf, axis, False, shape=x.shape, dtype=x.dtype, offset=pad)
        np.testing.assert_array_equal(got.get(), arg_reference(x, axis, False, False, False))
        v, i = ccl.max_with_indices(queue, buf, axis, shape=x.shape, dtype=np.float32, offset=pad)
        np.testing.assert_array_equal(v.get(), np.max(x, axis=axis, keepdims=True))
        np.testing.assert_array_equal(i.get(), np.argmax(x, axis=axis, keepdims=True))
    got = ccl.hardmax(queue, buf, shape=x.shape, dtype=x.dtype, offset=pad)
    want = np.zeros_like(x)
    np.put_along_axis(want, np.argmax(x, axis=-1, keepdims=True), 1, -1)
    np.testing.assert_array_equal(got.get(), want)
    # A 1-D shape may be an int; the range must lie inside the buffer.
    got = ccl.argmin(queue, buf, shape=10, dtype=x.dtype, offset=pad, keepdims=False)
    assert got.get() == arg_reference(x[0], 0, False, False, True)
    with pytest.raises(ValueError):
        ccl.argmax(queue, buf, shape=x.shape, dtype=x.dtype, offset=pad + 64)
    with pytest.raises(ValueError):  # not a multiple of the element size
        ccl.argmax(queue, buf, shape=(4,), dtype=x.dtype, offset=2)


def test_array_at_an_offset(queue):
    x = np.arange(60, dtype=np.float32).reshape(6, 10) % 7
    xd = cla.to_device(queue, x)[2:]  # a contiguous view 80 bytes into its buffer
    assert xd.offset == 80 and xd.flags.c_contiguous
    np.testing.assert_array_equal(ccl.argmax(queue, xd, 1).get(),
                                  np.argmax(x[2:], axis=1, keepdims=True))


def test_empty(queue):
    xd = cla.empty(queue, (0, 3), np.float32)
    got = ccl.argmax(queue, xd, 1)
    assert got.shape == (0, 1) and got.dtype == np.int64 and got.get().size == 0
    v, i = ccl.max_with_indices(queue, xd, 1, False)
    assert v.shape == i.shape == (0,)
    assert ccl.hardmax(queue, xd).shape == (0, 3)
    with pytest.raises(ValueError):  # an empty axis with a non-empty output: ONNX refuses
        ccl.argmax(queue, xd, 0)


# ---------------------------------------------------------------------------------------------
# Queues and events.

def test_in_order_and_out_of_order_queues(any_queue):
    rng = np.random.default_rng(17)
    x = random_array(rng, (40, 30), np.float32)
    xd = cla.to_device(any_queue, x)
    results = []
    for axis in (0, 1):
        results.append((ccl.argmax(any_queue, xd, axis, False), np.argmax(x, axis=axis)))
        v, i = ccl.min_with_indices(any_queue, xd, axis, False, True)
        results.append((i, arg_reference(x, axis, False, True, True)))
        results.append((ccl.hardmax(any_queue, xd, axis), None))
    # Chained on the device: PyOpenCL's own operation waits for the result's event.
    doubled = results[0][0] * 2
    for got, want in results:
        assert any(isinstance(e, cl.Event) for e in got.events)
        if want is not None:
            np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(doubled.get(), 2 * np.argmax(x, axis=0))


def test_result_carries_its_event(queue):
    xd = cla.to_device(queue, np.arange(12, dtype=np.float32).reshape(3, 4))
    i = ccl.argmax(queue, xd, 1)
    assert len(i.events) == 1 and isinstance(i.events[0], cl.Event)
    i.events[0].wait()
    assert i.events[0].command_execution_status == COMPLETE
    v, i = ccl.max_with_indices(queue, xd, 1)
    assert v.events and v.events[-1].int_ptr == i.events[-1].int_ptr


def _pending(event, seconds=0.3):
    """Whether event is still not complete after the queue had time to run it."""
    time.sleep(seconds)
    return event.command_execution_status != COMPLETE


def test_wait_for_a_user_event(context, any_queue):
    x = np.random.default_rng(19).random((64, 50)).astype(np.float32)
    xd = cla.to_device(any_queue, x)
    xd.finish()
    gate = cl.UserEvent(context)
    try:
        v, i = ccl.max_with_indices(any_queue, xd, 1, False, wait_for=[gate])
        any_queue.flush()
        assert _pending(i.events[-1])
    finally:
        gate.set_status(COMPLETE)
    np.testing.assert_array_equal(i.get(), np.argmax(x, axis=1))
    np.testing.assert_array_equal(v.get(), np.max(x, axis=1))


def test_waits_for_the_input_events(context, any_queue):
    x = np.random.default_rng(23).integers(0, 9, (32, 20)).astype(np.float32)
    xd = cla.to_device(any_queue, x)
    xd.finish()
    gate = cl.UserEvent(context)
    xd.add_event(gate)  # as if a write of x were pending
    try:
        h = ccl.hardmax(any_queue, xd, 0)
        any_queue.flush()
        assert _pending(h.events[-1])
    finally:
        gate.set_status(COMPLETE)
    want = np.zeros_like(x)
    np.put_along_axis(want, np.argmax(x, axis=0, keepdims=True), 1, 0)
    np.testing.assert_array_equal(h.get(), want)


def test_queue_none_takes_the_arrays(queue):
    xd = cla.to_device(queue, np.array([3, 9, 2], np.uint8))
    assert ccl.argmax(None, xd, keepdims=False).get() == 1


# ---------------------------------------------------------------------------------------------
# Refusals.

def test_refusals(context, queue, device):
    xd = cla.to_device(queue, np.arange(12, dtype=np.float32).reshape(3, 4))
    with pytest.raises(ValueError, match="C-contiguous"):
        ccl.argmax(queue, xd.T, 0)
    with pytest.raises(ValueError, match="C-contiguous"):
        ccl.argmax(queue, xd[:, 1:], 0)
    with pytest.raises(TypeError):
        ccl.argmax(queue, cla.zeros(queue, (4,), np.complex64))
    with pytest.raises(ValueError):
        ccl.argmax(queue, xd, 2)
    with pytest.raises(ValueError):
        ccl.hardmax(queue, xd, -3)
    with pytest.raises(ValueError):  # ONNX takes rank 1 or more
        ccl.argmax(queue, cla.to_device(queue, np.float32(1).reshape(())))
    with pytest.raises(TypeError, match="pyopencl"):
        ccl.argmax(queue, np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="CommandQueue"):
        ccl.argmax("queue", xd)
    with pytest.raises(TypeError, match="index_dtype"):
        ccl.argmax(queue, xd, index_dtype=np.int16)
    with pytest.raises(TypeError, match="wait_for"):
        ccl.argmax(queue, xd, wait_for=[1])
    with pytest.raises(TypeError, match="shape="):
        ccl.argmax(queue, xd, shape=(3, 4))
    with pytest.raises(ValueError):  # an unknown opset
        ccl.hardmax(queue, xd, opset=2)
    buf = cl.Buffer(context, cl.mem_flags.READ_WRITE, 64)
    with pytest.raises(TypeError, match="shape= and dtype="):
        ccl.argmax(queue, buf)
    with pytest.raises(TypeError, match="shape= and dtype="):
        ccl.argmax(queue, buf, shape=(4,))
    with pytest.raises(ValueError, match="queue"):
        ccl.argmax(None, buf, shape=(4,), dtype=np.float32)
    with pytest.raises(ValueError, match="negative"):
        ccl.argmax(queue, buf, shape=(4,), dtype=np.float32, offset=-4)
    with pytest.raises(TypeError, match="byte order"):
        ccl.argmax(queue, buf, shape=(4,), dtype=">f4")
    # Objects of another OpenCL context: the queue, and an event to wait for.
    other = cl.Context([device])
    other_queue = cl.CommandQueue(other)
    with pytest.raises(ValueError, match="another OpenCL context"):
        ccl.argmax(other_queue, xd)
    with pytest.raises(ValueError, match="another OpenCL context"):
        ccl.argmax(other_queue, buf, shape=(4,), dtype=np.float32)
    foreign = cl.UserEvent(other)
    try:
        with pytest.raises(ValueError, match="another OpenCL context"):
            ccl.argmax(queue, xd, wait_for=[foreign])
    finally:
        foreign.set_status(COMPLETE)
    # Look-alikes of PyOpenCL's objects (an int_ptr and the rest) are refused before the core,
    # which would take their numbers for handles.
    class Fake:
        int_ptr = queue.int_ptr
        context = queue.context
        device = queue.device
        shape, dtype, offset, events, flags = (4,), np.dtype(np.float32), 0, [], xd.flags

    with pytest.raises(TypeError, match="CommandQueue"):
        ccl.argmax(Fake(), xd)
    with pytest.raises(TypeError, match="pyopencl"):
        ccl.argmax(queue, Fake())
    with pytest.raises(TypeError, match="pyopencl"):
        ccl.argmax(queue, Fake(), shape=(4,), dtype=np.float32)
    with pytest.raises(TypeError, match="wait_for"):
        ccl.argmax(queue, xd, wait_for=[Fake()])
    with pytest.raises(TypeError, match="CommandQueue"):
        ccl.context(Fake())
    junk = cla.to_device(queue, np.zeros(4, np.float32))
    junk.events.append(Fake())
    with pytest.raises(TypeError, match="x.events"):
        ccl.argmax(queue, junk)
    # After the refusals the queue still works.
    np.testing.assert_array_equal(ccl.argmax(queue, xd, 1, False).get(), [3, 3, 3])


# ---------------------------------------------------------------------------------------------
# The context cache.

def test_one_clmax_context_per_queue(context, queue):
    c = ccl.context(queue)
    assert c is ccl.context(queue) and c.from_opencl_objects and c.backend == "opencl"
    # Another Python object of the same cl_command_queue shares it.
    again = cl.CommandQueue.from_int_ptr(queue.int_ptr)
    assert again is not queue and ccl.context(again) is c
    del again
    gc.collect()
    assert ccl.context(queue) is c  # the first object still lives
    other = cl.CommandQueue(context)
    assert ccl.context(other) is not c


def test_context_creation_is_thread_safe(context):
    q = cl.CommandQueue(context)
    got = []
    barrier = threading.Barrier(4)

    def use():
        barrier.wait()
        got.append(ccl.context(q))

    threads = [threading.Thread(target=use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4 and all(c is got[0] for c in got)


@pytest.fixture(params=["weakref", "held"])
def watch(request, monkeypatch, queue):
    """How the cache watches a queue object: by weak reference (Debian's PyOpenCL), or held and
    counted, as for the newest PyOpenCL, whose queues take no weak reference (forced here by a
    weakref.ref that refuses, as theirs does)."""
    if request.param == "weakref":
        try:
            weakref.ref(queue)
        except TypeError:
            pytest.skip(f"PyOpenCL {cl.VERSION_TEXT}'s queues take no weak reference")
    else:
        def refuse(obj, callback=None):
            raise TypeError(f"cannot create weak reference to '{type(obj).__name__}' object")

        monkeypatch.setattr(ccl, "weakref", types.SimpleNamespace(ref=refuse))
    return request.param


def _queue_references(q):
    return q.get_info(cl.command_queue_info.REFERENCE_COUNT)


def test_collected_queue_releases_its_context(context, watch):
    q = cl.CommandQueue(context)
    key = q.int_ptr
    x = np.array([[1, 5, 2], [7, 0, 7]], np.float32)
    xd = cla.to_device(q, x)
    r = ccl.argmax(q, xd, 1, False, True)
    np.testing.assert_array_equal(r.get(), [1, 2])
    entry = ccl._cache[key]
    assert bool(entry.held) == (watch == "held") and bool(entry.refs) == (watch == "weakref")
    ref = weakref.ref(ccl.context(q))
    del q, xd, r, entry  # the arrays hold the queue too
    gc.collect()
    assert ref() is None  # destroyed: clmax released what it retained
    assert key not in ccl._cache


def test_dropped_queue_is_back_to_its_references(context, watch):
    # Seen through another handle (a Python object clmax is never given): while q lives, clmax
    # holds a reference of its own; once q is dropped, the queue has only the other handle's,
    # as if clmax had never seen it.
    q = cl.CommandQueue(context)
    other = cl.CommandQueue.from_int_ptr(q.int_ptr)
    before = _queue_references(other)  # q's and other's
    xd = cla.to_device(q, np.array([3, 9, 9, 1], np.int32))
    assert ccl.argmax(q, xd, keepdims=False).get() == 1
    q.finish()
    assert _queue_references(other) > before
    del q, xd
    gc.collect()
    assert _queue_references(other) == before - 1
    assert other.int_ptr not in ccl._cache


def test_no_context_left_per_queue(context, watch):
    # Queues made and dropped, each used a few times: one clmax context per queue while it
    # lives, none once they are gone.
    gc.collect()
    start = len(ccl._cache)
    x = np.array([[2, 8, 8], [6, 1, 0]], np.uint8)
    for _ in range(8):
        q = cl.CommandQueue(context)
        xd = cla.to_device(q, x)
        for _ in range(3):
            np.testing.assert_array_equal(ccl.argmax(q, xd, 1, False).get(), [1, 0])
        assert len(ccl._cache) <= start + 8
        del q, xd
    gc.collect()
    assert len(ccl._cache) == start


def test_release(context):
    q = cl.CommandQueue(context)
    c = ccl.context(q)
    ccl.release(q)
    assert c.closed
    ccl.release(q)  # nothing left: no error
    xd = cla.to_device(q, np.array([0, 4, 4], np.float32))
    assert ccl.argmax(q, xd, keepdims=False).get() == 1  # a new context, made on use
    assert ccl.context(q) is not c
    # A context the user closed is replaced too.
    ccl.context(q).close()
    assert ccl.argmin(q, xd, keepdims=False).get() == 0
