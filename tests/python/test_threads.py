"""Calls from several threads on one context (the library releases the GIL while it works)."""

import threading

import numpy as np
import pytest

import clmax


def test_threads_share_a_context(ctx):
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal((200, 301)).astype(np.float32) for _ in range(4)]
    wants = [(np.argmax(a, 1), np.argmin(a, 0)) for a in arrays]
    errors = []

    def work(k):
        try:
            for _ in range(20):
                a = arrays[k % 4]
                assert np.array_equal(clmax.argmax(a, 1, context=ctx), wants[k % 4][0])
                assert np.array_equal(clmax.argmin(a, 0, context=ctx), wants[k % 4][1])
                assert clmax.last_call().backend in ("cpu", "opencl")
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_close_refused_while_calls_run():
    ctx = clmax.Context("cpu")
    x = np.zeros((1 << 22,), np.float32)  # a call of about a millisecond, the GIL released
    running, stop = threading.Event(), threading.Event()

    def work():
        while not stop.is_set():
            running.set()
            clmax.argmax(x, context=ctx)

    t = threading.Thread(target=work)
    t.start()
    running.wait()
    refused = []
    for _ in range(20):  # the worker is nearly always inside the library
        try:
            ctx.close()
            break
        except RuntimeError as e:
            refused.append(str(e))
    closed_early = ctx.closed
    stop.set()
    t.join(timeout=60)
    assert not t.is_alive()
    assert not closed_early and refused and "still running" in refused[0]
    ctx.close()  # no call runs now
    assert ctx.closed
    with pytest.raises(ValueError, match="closed"):
        clmax.argmax(x, context=ctx)
