#!/usr/bin/env python3
"""clmax.argmax against np.argmax (and torch.argmax where PyTorch is installed) on the same
arrays in one process, and the Python layer's cost per call over the compiled call.

    PYTHONPATH=build/python /usr/bin/python3 tools/bench/python_bench.py [--reps=N] [--quick]

Each figure is the median of N timed calls after one warm-up, the contenders taking turns
on each shape so that a noisy machine slows them alike. Answers are checked equal first."""

import argparse
import statistics
import time

import numpy as np

import clmax
from clmax import _clmax, _core

try:
    import torch
except ImportError:
    torch = None

# (label, shape, dtype, axis): what users run (docs/PERFORMANCE.md, "Python").
SHAPES = [
    ("logits [1,1000] f32, cache-hot", (1, 1000), np.float32, -1),
    ("logits [64,1000] f32", (64, 1000), np.float32, -1),
    ("LLM logits [1,151936] f32", (1, 151936), np.float32, -1),
    ("LLM logits [1,151936] f16", (1, 151936), np.float16, -1),
    ("LLM logits [32,128256] f32", (32, 128256), np.float32, -1),
    ("RGB pixels [2^24,3] u8", (1 << 24, 3), np.uint8, -1),
    ("detector [2^20,80] f32", (1 << 20, 80), np.float32, -1),
    ("segmentation [2^22,21] f16", (1 << 22, 21), np.float16, -1),
    ("strided [8,2^23] f32, axis 0", (8, 1 << 23), np.float32, 0),
    ("int16 [365,1024,359], axis 0", (365, 1024, 359), np.int16, 0),
    ("x.T of [4096,16384] f32, axis 0", (4096, 16384), np.float32, "T0"),
]


def timed(f, reps):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def make(shape, dtype, rng):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape, dtype=np.float32).astype(dtype)
    return rng.integers(0, 256, shape).astype(dtype)


def throughput(args):
    rng = np.random.default_rng(0)
    cpu = clmax.Context("cpu")
    auto = clmax.Context()
    heads = ["clmax auto", "clmax cpu", "numpy"] + (["torch"] if torch else [])
    print(f"{'shape':34s} " + " ".join(f"{h:>12s}" for h in heads) + "   numpy/clmax best")
    shapes = SHAPES[:3] if args.quick else SHAPES
    for label, shape, dtype, axis in shapes:
        x = make(shape, dtype, rng)
        if axis == "T0":
            x, axis = x.T, 0
        want = np.argmax(x, axis)
        runs = {"clmax auto": lambda: clmax.argmax(x, axis, context=auto),
                "clmax cpu": lambda: clmax.argmax(x, axis, context=cpu),
                "numpy": lambda: np.argmax(x, axis)}
        if torch:
            t = torch.from_numpy(x) if x.dtype != np.uint16 else None
            runs["torch"] = lambda: torch.argmax(t, axis)
        for name, f in runs.items():
            got = f()
            got = got.numpy() if torch and isinstance(got, torch.Tensor) else got
            assert np.array_equal(got, want), (label, name)
        best = {k: float("inf") for k in runs}
        for _ in range(args.rounds):  # the contenders take turns
            for name, f in runs.items():
                best[name] = min(best[name], timed(f, args.reps))
        cells = " ".join(f"{best[h] * 1e6:10.1f}us" for h in heads)
        ratio = best["numpy"] / min(best["clmax auto"], best["clmax cpu"])
        print(f"{label:34s} {cells}   {ratio:8.2f}")
    cpu.close()
    auto.close()


def overhead(args):
    """clmax.argmax against the compiled call it makes, on a cache-hot [1,1000] float32 row."""
    cpu = clmax.Context("cpu")
    x = np.random.default_rng(1).standard_normal((1, 1000)).astype(np.float32)
    out = np.empty((1, 1), np.int64)
    host = _clmax.host
    n = 20000

    def python_layer():
        for _ in range(n):
            clmax.argmax(x, 1, context=cpu)

    def compiled():
        for _ in range(n):
            host(cpu, _core.ARGMAX, x, 1, (1, 1000), 1, 1, 0, 13, out, None)

    a = b = float("inf")
    for _ in range(args.rounds):
        a = min(a, timed(python_layer, 3) / n)
        b = min(b, timed(compiled, 3) / n)
    print(f"\n[1,1000] float32 on the CPU path, per call: clmax.argmax {a * 1e6:.2f} us, "
          f"the compiled call alone {b * 1e6:.2f} us: the Python layer adds {(a - b) * 1e6:.2f} us")
    cpu.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5, help="timed calls per figure (default 5)")
    p.add_argument("--rounds", type=int, default=3, help="turns per shape (default 3)")
    p.add_argument("--quick", action="store_true", help="the first three shapes only")
    args = p.parse_args()
    print(f"clmax {clmax.__version__}, NumPy {np.__version__}"
          + (f", torch {torch.__version__}" if torch else ", no torch"))
    throughput(args)
    overhead(args)


if __name__ == "__main__":
    main()
