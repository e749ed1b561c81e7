#!/usr/bin/env python3
"""The clmax CLI's options (axis, keepdims, select_last_index, opsets, backend, device,
-v, the terminal, --) and empty tensors.

Run by ctest, one test per case; see cli_common.py."""
import os
import re
import subprocess
import sys

from cli_common import (Skip, case, np, ref_argmax, ref_hardmax, sample, main)


# ---- Options ------------------------------------------------------------------------------------


@case("options.axis_spellings")
def _(ctx):
    x = sample("<f4", (3, 4, 5), seed=15)
    ctx.save("in.npy", x)
    for args, axis in [(["--axis=1"], 1), (["--axis", "1"], 1), (["--axis=-1"], -1),
                       (["--axis", "-2"], -2), (["--axis=-3"], -3), ([], 0), (["--axis=+2"], 2)]:
        ctx.run("argmax", "in.npy", "out.npy", *args)
        ctx.check("out.npy", ref_argmax(x, axis))
        ctx.run("argmax", *args, "in.npy", "out.npy")  # options before the files
        ctx.check("out.npy", ref_argmax(x, axis))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=3", rc=1,
            err=r"in\.npy: argmax: invalid axis")
    ctx.run("argmax", "in.npy", "out.npy", "--axis", "-4", rc=1,
            err=r"in\.npy: argmax: invalid axis")
    ctx.run("hardmax", "in.npy", "out.npy", "--axis=3", rc=1, err=r"hardmax: invalid axis")
    assert not os.path.exists(ctx.path("out.npy.tmp"))


@case("options.keepdims")
def _(ctx):
    x = sample("<i4", (3, 4, 5), seed=16)
    ctx.save("in.npy", x)
    for args, keep in [(["--keepdims=0"], 0), (["--keepdims", "0"], 0), (["--keepdims=1"], 1),
                       (["--keepdims", "1"], 1)]:
        ctx.run("argmax", "in.npy", "out.npy", "--axis=2", *args)
        ctx.check("out.npy", ref_argmax(x, 2, keepdims=keep))
    # Rank 1 without keepdims: a rank-0 output.
    y = sample("<f8", (9,), seed=17)
    ctx.save("vec.npy", y)
    ctx.run("argmax", "vec.npy", "out.npy", "--keepdims=0")
    ctx.check("out.npy", ref_argmax(y, 0, keepdims=0))
    with open(ctx.path("out.npy"), "rb") as f:
        assert b"'shape': ()" in f.read(128)


@case("options.select_last_index")
def _(ctx):
    n = np()
    x = n.array([[1, 3, 3, 0, 3], [2, 2, 2, 2, 2], [0, 0, 0, 0, 9]], dtype="<f4")
    x[1, 1] = x[1, 3] = n.nan
    ctx.save("in.npy", x)
    for args, last in [(["--select-last-index=1"], 1), (["--select-last-index", "1"], 1),
                       (["--select-last-index=0"], 0), ([], 0)]:
        for opset in [12, 13]:
            ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--opset=%d" % opset, *args)
            ctx.check("out.npy", ref_argmax(x, 1, select_last_index=last))
    ctx.check("out.npy", n.array([[1], [1], [4]], dtype="<i8"))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--select-last-index=1")
    ctx.check("out.npy", n.array([[4], [3], [4]], dtype="<i8"))


@case("options.argmax_opsets")
def _(ctx):
    x = sample("<u2", (4, 3, 2), seed=18)
    ctx.save("in.npy", x)
    for opset in [1, 11, 12, 13]:
        ctx.run("argmax", "in.npy", "out.npy", "--opset=%d" % opset)  # defaults: axis 0, keep
        ctx.check("out.npy", ref_argmax(x, 0))
        ctx.run("argmax", "in.npy", "out.npy", "--opset", str(opset), "--axis=-1",
                "--keepdims=0")
        ctx.check("out.npy", ref_argmax(x, -1, keepdims=0))


@case("options.hardmax_opsets")
def _(ctx):
    x = sample("<f4", (3, 4, 5, 2), seed=19)
    ctx.save("in.npy", x)
    # Defaults: axis 1 coerced to 2-D at opsets 1 and 11, axis -1 at 13.
    for opset, axis in [(1, 1), (11, 1), (13, -1)]:
        ctx.run("hardmax", "in.npy", "out.npy", "--opset=%d" % opset)
        ctx.check("out.npy", ref_hardmax(x, axis, opset, x.dtype, 1))
    for opset in [1, 11, 13]:
        for axis in [0, 2, 3, -1, -3]:
            ctx.run("hardmax", "in.npy", "out.npy", "--opset", str(opset), "--axis", str(axis))
            ctx.check("out.npy", ref_hardmax(x, axis, opset, x.dtype, 1))


@case("options.backend_cpu")
def _(ctx):
    x = sample("<f4", (6, 7), seed=20)
    ctx.save("in.npy", x)
    for b in [["--backend=cpu"], ["--backend", "cpu"]]:
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "-v", *b,
                err=r"backend: cpu\n.*device: CPU")
        ctx.check("out.npy", ref_argmax(x, 1))


@case("options.backend_opencl")
def _(ctx):
    ctx.opencl()
    x = sample("<f4", (6, 7), seed=21)
    ctx.save("in.npy", x)
    for b in [["--backend=opencl"], ["--backend", "opencl"]]:
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "-v", *b,
                err=r"backend: opencl\n.*device: .+ / .+")
        ctx.check("out.npy", ref_argmax(x, 1))


@case("options.backend_auto")
def _(ctx):
    x = sample("<f4", (6, 7), seed=22)
    ctx.save("in.npy", x)
    for b in [["--backend=auto"], []]:
        ctx.run("hardmax", "in.npy", "out.npy", "-v", *b, err=r"backend: (opencl|cpu)\n")
        ctx.check("out.npy", ref_hardmax(x, -1, 13, x.dtype, 1))


@case("options.device")
def _(ctx):
    ctx.opencl()
    x = sample("<i8", (6, 7), seed=23)
    ctx.save("in.npy", x)
    listing = ctx.run("devices", out=r"\[0\] ").stdout.decode()
    name = re.search(r"^  \[0\] (.+)$", listing, re.M).group(1).strip()
    for d in [["--device=0"], ["--device", "0"], ["--device=" + name[:6].lower()],
              ["--device=0", "--backend=opencl"]]:
        ctx.run("argmax", "in.npy", "out.npy", "-v", *d, err=r"backend: opencl\n")
        ctx.check("out.npy", ref_argmax(x, 0))
    # A selector that matches nothing fails rather than quietly running elsewhere.
    ctx.run("argmax", "in.npy", "out.npy", "--device=no-such-device-xyz", rc=1,
            err=r"no OpenCL device")
    ctx.run("argmax", "in.npy", "out.npy", "--device=999", rc=1, err=r"no OpenCL device")
    assert not os.path.exists(ctx.path("out.npy.tmp"))


@case("options.device_cpu_backend")
def _(ctx):
    """--backend=cpu wins over --device."""
    x = sample("<f4", (6, 7), seed=24)
    ctx.save("in.npy", x)
    ctx.run("argmax", "in.npy", "out.npy", "--backend=cpu", "--device=0", "-v",
            err=r"backend: cpu")
    ctx.check("out.npy", ref_argmax(x, 0))


@case("options.verbose")
def _(ctx):
    x = sample("<f2", (6, 7), seed=25)
    ctx.save("in.npy", x)
    ctx.run("argmax", "in.npy", "out.npy", "-v", "--axis=1",
            err=r"backend: (opencl|cpu)\nclmax: device: .+\n.*input: in\.npy float16 \[6, 7\]"
                r".*output: out\.npy int64 \[6, 1\].*argmax: [0-9.]+ ms")
    ctx.run("hardmax", "in.npy", "out.npy", "-v", err=r"hardmax: [0-9.]+ ms")
    # Without -v a success prints nothing (and no progress when stderr is not a terminal).
    ctx.run("argmax", "in.npy", "out.npy", quiet=True)
    ctx.run("hardmax", "in.npy", "out.npy", quiet=True)


@case("options.terminal")
def _(ctx):
    """With stderr on a terminal the progress thread runs; a quick run shows no progress line."""
    try:
        import pty
    except ImportError:
        raise Skip("no pty module")
    x = sample("<f4", (6, 7), seed=27)
    ctx.save("in.npy", x)
    master, slave = pty.openpty()
    try:
        p = subprocess.run([ctx.exe, "argmax", "in.npy", "out.npy", "--axis=1", "-v"],
                           cwd=ctx.dir, stdout=subprocess.PIPE, stderr=slave, timeout=300)
        os.close(slave)
        slave = None
        text = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            text += chunk
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
    text = text.decode("utf-8", "replace")
    assert p.returncode == 0, (p.returncode, text)
    assert re.match(r"^clmax: backend: ", text) and "reading the input" not in text, repr(text)
    ctx.check("out.npy", ref_argmax(x, 1))


@case("options.double_dash")
def _(ctx):
    x = sample("<f4", (3, 4), seed=26)
    ctx.save("-in.npy", x)
    ctx.run("argmax", "--axis=1", "--", "-in.npy", "-out.npy")
    ctx.check("-out.npy", ref_argmax(x, 1))

# ---- Empty tensors ------------------------------------------------------------------------------


@case("empty")
def _(ctx):
    n = np()
    x = n.zeros((3, 0, 2), dtype="<f4")
    ctx.save("in.npy", x)
    ctx.run("argmax", "in.npy", "out.npy", "--axis=0")
    ctx.check("out.npy", n.zeros((1, 0, 2), dtype="<i8"))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=2", "--keepdims=0")
    ctx.check("out.npy", n.zeros((3, 0), dtype="<i8"))
    ctx.run("hardmax", "in.npy", "out.npy")
    ctx.check("out.npy", x)
    ctx.run("argmax", "in.npy", "out.npy", "--axis=1", rc=1,
            err=r"in\.npy: argmax: reduction over an empty axis")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
