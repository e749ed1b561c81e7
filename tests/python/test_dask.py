"""clmax.dask against NumPy on the whole array, bit for bit, for any chunking: random and
irregular chunks, chunks of 1, empty chunks, every axis, keepdims, select_last_index, NaNs in
several blocks, ties across block boundaries (-0.0 and +0.0 included), shallow and deep combine
trees; where blocks run (backend=, device=, num_threads=); and the same graphs on a
dask.distributed cluster of two worker processes.

Without backend= and the rest, the block functions run on clmax's default (auto) context, as
they do on a worker."""

import itertools
import logging
import os
import pickle
import socket

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

import clmax  # noqa: E402
import clmax.dask as cd  # noqa: E402
from helpers import AxisError, arg_reference, bits, random_array, values_at  # noqa: E402

DTYPES = [np.float32, np.float16, np.float64, np.int8, np.uint8, np.int64, np.uint64, np.bool_]
SYNC = "sync"  # most graphs: one thread, no scheduler cost (test_deep_... runs threads)


def random_chunks(rng, n):
    """Chunks of a dimension of n: one chunk, chunks of 1, or random irregular cuts."""
    kind = rng.integers(4)
    if n <= 1 or kind == 0:
        return (n,)
    if kind == 1:
        return (1,) * n
    cuts = np.sort(rng.choice(np.arange(1, n), rng.integers(1, n), replace=False))
    return tuple(int(c) for c in np.diff(np.concatenate([[0], cuts, [n]])))


def compositions(n):
    """Every chunking of a dimension of n (2**(n-1) of them)."""
    for cuts in itertools.product((False, True), repeat=n - 1):
        sizes, size = [], 1
        for cut in cuts:
            if cut:
                sizes.append(size)
                size = 0
            size += 1
        yield tuple(sizes + [size])


def graphs(d, axis, keepdims, last, minimum, split_every=None, **where):
    """The three lazy results the tests compare: arg*, and *_with_indices' pair."""
    arg = cd.argmin if minimum else cd.argmax
    both = cd.min_with_indices if minimum else cd.max_with_indices
    kw = dict(keepdims=keepdims, select_last_index=last, split_every=split_every, **where)
    return (arg(d, axis, **kw),) + tuple(both(d, axis, **kw))


def pair_graph(d, axis, last, minimum, split_every):
    """Only *_with_indices' lazy pair (the exhaustive tests): arg* is the same reduction
    (clmax/dask.py's _reduce), which the other tests check through its own wrapper."""
    both = cd.min_with_indices if minimum else cd.max_with_indices
    return both(d, axis, select_last_index=last, split_every=split_every)


def check(x, got, axis, keepdims, last, minimum, what=""):
    """got: the computed (indices, values, indices) against NumPy's on the whole of x."""
    want = arg_reference(x, axis, keepdims, last, minimum)
    indices, values, indices2 = got
    for i in (indices, indices2):
        assert type(i) is type(want), what  # a NumPy scalar for 0-d results, as NumPy's
        assert np.shape(i) == np.shape(want), what
        assert np.asarray(i).dtype == np.int64, what
        assert np.array_equal(i, want), (what, i, want)
    expected = values_at(x, want, axis, keepdims)
    assert np.asarray(values).dtype == x.dtype, what
    assert np.array_equal(bits(values), bits(expected)), (what, values, expected)


def run(x, chunks, axis, keepdims, last, minimum, split_every=None, scheduler=SYNC):
    d = da.from_array(x, chunks=chunks)
    got = dask.compute(*graphs(d, axis, keepdims, last, minimum, split_every),
                       scheduler=scheduler)
    check(x, got, axis, keepdims, last, minimum,
          f"{x.dtype} {x.shape} chunks={d.chunks} axis={axis} keepdims={keepdims} "
          f"last={last} split_every={split_every}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("minimum", [False, True], ids=["max", "min"])
@pytest.mark.parametrize("last", [False, True], ids=["first", "last"])
def test_random_shapes_chunks_axes(dtype, minimum, last):
    rng = np.random.default_rng([7, np.dtype(dtype).num, minimum, last])
    for _ in range(12):
        shape = tuple(int(n) for n in rng.integers(1, 9, rng.integers(1, 4)))
        x = random_array(rng, shape, dtype)  # few distinct values: ties across blocks
        chunks = tuple(random_chunks(rng, n) for n in shape)
        axis = [None, *range(-x.ndim, x.ndim)][rng.integers(x.ndim * 2 + 1)]
        split_every = [None, 2, 3][rng.integers(3)]
        run(x, chunks, axis, bool(rng.integers(2)), last, minimum, split_every)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_nans_in_several_blocks(dtype):
    # NaNs of different bits (sign, payload) in several blocks: the values' bits show which NaN
    # won, and it must be the first (or last) one of the whole row.
    size = np.dtype(dtype).itemsize
    uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    quiet = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}[size]
    sign = 1 << (8 * size - 1)
    nans = np.array([quiet + 1, (quiet + 2) | sign, quiet + 3, quiet | sign], uint).view(dtype)
    rng = np.random.default_rng(3)
    x = rng.integers(-5, 6, (6, 40)).astype(dtype)
    for row in range(6):
        where = rng.choice(40, 4, replace=False)
        x[row, where] = nans[rng.permutation(4)]
    x[5] = np.nan  # a row of NaNs only
    for chunks in [(3, 10), (2, 7), (6, 1), ((1, 5), (13, 1, 1, 20, 5))]:
        for axis in (1, -1, None, 0):
            for minimum, last in itertools.product((False, True), repeat=2):
                run(x, chunks, axis, False, last, minimum, split_every=2)


@pytest.mark.parametrize("minimum", [False, True], ids=["max", "min"])
def test_signed_zeros_tie_across_blocks(minimum):
    # Only zeros of both signs (and worse values): every zero ties; the first (last) zero of
    # the row wins and the values are its bits, whichever sign the other blocks hold.
    # Every chunking of a row of 10, the row and its reverse side by side (the reduced axis is
    # 1; axis 0 in one block), one dask.compute for them all.
    worse = 1.0 if minimum else -1.0
    row = np.array([worse, -0.0, 0.0, worse, 0.0, -0.0, -0.0, worse, 0.0, worse], np.float32)
    x = np.stack([row, row[::-1]])
    cases, lazy = [], []
    for chunks in compositions(x.shape[1]):
        d = da.from_array(x, chunks=(2, chunks))
        for last in (False, True):
            cases.append((chunks, last))
            lazy.append(pair_graph(d, 1, last, minimum, 2))
    for (chunks, last), (values, indices) in zip(cases, dask.compute(*lazy, scheduler=SYNC)):
        check(x, (indices, values, indices), 1, False, last, minimum, f"chunks={chunks}")
    y = np.where(np.arange(24).reshape(4, 6) % 5 == 1, -0.0, worse).astype(np.float32)
    y[2, 3] = 0.0
    for chunks in [(2, 3), (1, 1), (3, 4), (4, 2)]:
        for axis in (None, 0, 1):
            for last in (False, True):
                run(y, chunks, axis, False, last, minimum, split_every=2)


def test_every_chunking_of_small_arrays():
    # The combine's claim, exhaustively on small cases: partials concatenated in block order,
    # the first (last) partial holding the winning value holds the first (last) winner, for
    # NaNs of two kinds, both zeros and infinities, at every chunking and combine fan-in: 12
    # random rows of 6, reduced along axis 1 chunked every way (axis 0 in one block), so that
    # one graph checks all 12.
    pool = np.array([np.nan, -np.nan, -0.0, 0.0, 1.0, -np.inf, np.inf], np.float32)
    pool.view(np.uint32)[1] += 1  # a second NaN payload
    rng = np.random.default_rng(11)
    x = pool[rng.integers(0, len(pool), (12, 6))]
    cases, lazy = [], []
    for chunks in compositions(x.shape[1]):
        d = da.from_array(x, chunks=(12, chunks))
        for minimum, last, split_every in itertools.product((0, 1), (0, 1), (2, 3)):
            cases.append((chunks, minimum, last, split_every))
            lazy.append(pair_graph(d, 1, last, minimum, split_every))
    for case, (values, indices) in zip(cases, dask.compute(*lazy, scheduler=SYNC)):
        check(x, (indices, values, indices), 1, False, case[2], case[1], f"{x} {case}")


def test_flat_order_is_not_block_order():
    # axis=None over a grid of blocks: block (0, 1) holds flat index 4, before block (1, 0)'s
    # flat 12 but after (0, 0)'s flat 6 in block order; the answer is the flat order's.
    x = np.zeros((4, 6), np.int16)
    for flat in (6, 4, 15, 20):
        x.flat[flat] = 9
    for chunks in [(2, 3), (1, 2), (3, 5), ((1, 3), (4, 2))]:
        for keepdims, last, split_every in itertools.product((False, True), repeat=3):
            run(x, chunks, None, keepdims, last, False, split_every=2 if split_every else None)
            run(-x, chunks, None, keepdims, last, True)


def test_deep_combine_tree_threads():
    # Many blocks, a fan-in of 2 (a deep tree), the threaded scheduler (clmax called from
    # several threads at once on the default context).
    rng = np.random.default_rng(5)
    x = random_array(rng, (300, 257), np.float32)
    for axis, chunks in [(0, (7, 64)), (1, (50, 5)), (None, (37, 41)), (-1, (300, 1))]:
        run(x, chunks, axis, True, False, False, split_every=2, scheduler="threads")
        run(x, chunks, axis, False, True, True, split_every=4, scheduler="threads")


def test_empty_chunks_and_zero_size_axes():
    x = np.array([3, 1, 7, 7, 2, 7], np.int8)
    d = da.from_array(x, chunks=((0, 1, 1, 0, 2, 2, 0),))  # as slicing and filtering leave
    for last in (False, True):
        got = dask.compute(*graphs(d, 0, False, last, False), scheduler=SYNC)
        check(x, got, 0, False, last, False)
    # Another axis of size 0: an empty answer, as NumPy's.
    z = da.zeros((0, 4), np.float32, chunks=2)
    assert cd.argmax(z, 1).compute(scheduler=SYNC).shape == (0,)
    v, i = cd.min_with_indices(z, 1, keepdims=True)
    assert v.compute(scheduler=SYNC).shape == i.compute(scheduler=SYNC).shape == (0, 1)


def test_empty_reduced_axis_raises_like_numpy():
    z = da.zeros((3, 0), np.float32, chunks=2)
    for f, name in [(cd.argmax, "argmax"), (cd.argmin, "argmin")]:
        with pytest.raises(ValueError, match=f"attempt to get {name} of an empty sequence"):
            f(z, 1)
        with pytest.raises(ValueError, match=f"attempt to get {name} of an empty sequence"):
            f(z)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        cd.max_with_indices(z, -1)
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        cd.min_with_indices(z, None)


def test_refusals():
    d = da.zeros((3, 4), np.float32, chunks=2)
    with pytest.raises(AxisError):
        cd.argmax(d, 2)
    with pytest.raises(AxisError):
        cd.argmin(d, -3)
    with pytest.raises(TypeError, match="dtype complex64"):
        cd.argmax(da.zeros(3, dtype=np.complex64))
    with pytest.raises(TypeError):
        cd.argmax(d, 0, 1)  # keepdims and the rest are keyword-only
    u = d[d[:, 0] > 0]  # unknown chunk sizes along axis 0
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        cd.argmax(u, 0)
    # Unknown sizes along the other axes are fine.
    x = np.arange(12.0).reshape(3, 4) % 5
    u = da.from_array(x, chunks=2)
    u = u[u[:, 0] >= 0]
    assert np.isnan(u.shape[0])
    assert np.array_equal(cd.argmax(u, 1).compute(scheduler=SYNC), np.argmax(x, 1))


def test_lazy_until_compute():
    def boom():
        raise RuntimeError("computed")

    x = da.from_delayed(dask.delayed(boom)(), (5, 4), np.float32)
    for f in (cd.argmax, cd.argmin):
        r = f(x, 0)
        assert isinstance(r, da.Array) and r.shape == (4,) and r.dtype == np.int64
    v, i = cd.max_with_indices(x, None, keepdims=True)
    assert v.shape == i.shape == (1, 1) and v.dtype == np.float32
    with pytest.raises(RuntimeError, match="computed"):
        i.compute(scheduler=SYNC)


def test_numpy_input_zero_d_and_byte_order():
    x = np.array([[2, 9, 9], [9, 1, 0]], np.uint64)
    r = cd.argmax(x, 1)  # NumPy input: one chunk, a lazy answer all the same
    assert isinstance(r, da.Array)
    assert np.array_equal(r.compute(scheduler=SYNC), [1, 0])
    s = da.from_array(np.array(2.5, np.float32))
    for keepdims in (False, True):
        for axis in (None, 0, -1):
            got = dask.compute(*graphs(s, axis, keepdims, False, False), scheduler=SYNC)
            check(np.array(2.5, np.float32), got, axis, keepdims, False, False)
    big = np.array([[1.5, -2.0, 7.25], [7.25, 0.0, -1.0]], ">f8")
    v, i = cd.max_with_indices(da.from_array(big, chunks=1), 1)
    assert v.dtype == np.float64 and v.dtype.isnative
    assert np.array_equal(v.compute(scheduler=SYNC), [7.25, 7.25])
    assert np.array_equal(i.compute(scheduler=SYNC), [2, 0])


def test_default_scheduler_and_module_attribute():
    assert clmax.dask is cd  # imported on first use of the attribute
    rng = np.random.default_rng(2)
    x = random_array(rng, (40, 50), np.float64)
    d = da.from_array(x, chunks=(9, 11))
    assert np.array_equal(cd.argmax(d, 0).compute(), np.argmax(x, 0))
    assert cd.argmin(d).compute() == np.argmin(x)


# ---------------------------------------------------------------------------------------------
# Where blocks run.

def test_where_malformed_is_refused_when_the_graph_is_built():
    d = da.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), chunks=2)
    bad = [dict(backend="gpu"), dict(backend=None), dict(device=-1), dict(device=""),
           dict(device="  "), dict(device=1.5), dict(device=True), dict(device=["cpu"]),
           dict(num_threads=-1), dict(num_threads="2"), dict(num_threads=1.0)]
    for kw in bad:
        for f in (cd.argmax, cd.argmin, cd.max_with_indices, cd.min_with_indices):
            with pytest.raises(ValueError, match=next(iter(kw))):
                f(d, 1, **kw)


def test_where_in_this_process():
    # Each description makes one context in this process, kept for its later blocks; the
    # default one is clmax's default context.
    rng = np.random.default_rng(21)
    x = random_array(rng, (30, 40), np.float32)
    d = da.from_array(x, chunks=(7, 9))
    wheres = [dict(backend="cpu"), dict(backend="cpu", num_threads=1),
              dict(backend="auto", device="no such device")]
    if clmax.devices() and not os.environ.get("CLMAX_EXPECT_NO_OPENCL"):
        wheres += [dict(backend="opencl"), dict(backend="opencl", device=0)]
    for where in wheres:
        for case in [(1, False, False, False), (0, True, True, True), (None, False, True, False)]:
            got = dask.compute(*graphs(d, *case, **where), scheduler=SYNC)
            check(x, got, *case, what=f"{where} {case}")
        key = (where["backend"], str(where.get("device")) if "device" in where else None,
               where.get("num_threads", 0))
        ctx = cd._contexts[key]
        assert ctx.backend == ("opencl" if where["backend"] == "opencl" else "cpu"), where
        cd.argmax(d, 1, **where).compute(scheduler=SYNC)
        assert cd._contexts[key] is ctx  # kept, not made per block
    # The graph pickles with its description (as dask.distributed sends it).
    g = cd.argmax(d, 1, backend="cpu", num_threads=1)
    assert np.array_equal(pickle.loads(pickle.dumps(g)).compute(scheduler=SYNC), np.argmax(x, 1))


def test_where_missing_device_fails_the_block():
    d = da.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), chunks=2)
    lazy = cd.argmax(d, 1, backend="opencl", device="no such device")  # built: it is well formed
    with pytest.raises(clmax.DeviceError) as e:
        lazy.compute(scheduler=SYNC)
    assert socket.gethostname() in str(e.value) and "'no such device'" in str(e.value)


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
        silence_logs=logging.ERROR)
    c = distributed.Client(cluster, set_as_default=False)  # the other tests keep their own
    yield c
    c.close()
    cluster.close()


@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
def test_distributed_workers(client):
    # The graph pickles (module-level block functions) and runs in two worker processes, each
    # importing clmax from the inherited PYTHONPATH and using its own default context.
    rng = np.random.default_rng(8)
    x = random_array(rng, (120, 90), np.float32)
    x[::7, 3::11] = np.nan
    d = da.from_array(x, chunks=(25, 16))
    cases = [(axis, keepdims, last, minimum)
             for axis in (0, 1, None) for keepdims in (False, True)
             for last, minimum in [(False, False), (True, True)]]
    lazy = [graphs(d, *case, split_every=3) for case in cases]
    for case, got in zip(cases, dask.compute(*lazy, scheduler=client)):
        check(x, got, *case, what=f"distributed {case}")
    # Both workers are other processes, importing this clmax (PYTHONPATH inherited).
    found = client.run(lambda: (os.getpid(), __import__("clmax.dask").dask.__file__))
    assert len(found) == 2, found
    for pid, path in found.values():
        assert pid != os.getpid() and path == cd.__file__, found


@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
def test_distributed_where(client):
    # Each worker makes its own context from the description (contexts do not pickle) and
    # keeps it; a device no worker has fails the task with the worker's host and the selector
    # in the message, or, with auto, is answered on the CPU path.
    rng = np.random.default_rng(9)
    x = random_array(rng, (60, 50), np.float64)
    d = da.from_array(x, chunks=(13, 11))
    for where in (dict(backend="cpu", num_threads=1), dict(backend="auto", device="no such")):
        case = (1, False, True, True)
        got = dask.compute(*graphs(d, *case, **where), scheduler=client)
        check(x, got, *case, what=f"distributed {where}")
    made = client.run(lambda: sorted((k, c.backend) for k, c in
                                     __import__("clmax.dask").dask._contexts.items()))
    assert len(made) == 2, made
    seen = {k: backend for contexts in made.values() for k, backend in contexts}
    # (The scheduler decides which worker runs which block: each description was made on at
    # least one of them, and only there, as the CPU path.)
    assert seen == {("cpu", None, 1): "cpu", ("auto", "no such", 0): "cpu"}, made
    hosts = client.run(socket.gethostname)
    with pytest.raises(clmax.DeviceError) as e:
        cd.argmin(d, 0, backend="opencl", device="no such").compute(scheduler=client)
    message = str(e.value)
    assert "'no such'" in message and any(h in message for h in hosts.values()), message
