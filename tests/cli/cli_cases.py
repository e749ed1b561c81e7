#!/usr/bin/env python3
"""Tests of the clmax command-line tool, one ctest test per case.

    cli_cases.py --list                 print the case names
    cli_cases.py CLMAX WORKDIR CASE     run one case against the clmax executable CLMAX

Inputs and expected outputs are made here with NumPy (np.argmax and np.argmin are the ONNX
reference; np.take_along_axis gives the values --values must write). Exit
status: 0 pass, 1 fail, 77 skip (OpenCL cases without a device, unless CLMAX_REQUIRE_OPENCL=1, and
whenever CLMAX_BACKEND=cpu).
"""
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import traceback

SKIP = 77
CASES = {}

FLOAT_TYPES = ["f2", "f4", "f8"]
INT_TYPES = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]


class Skip(Exception):
    pass


def case(name):
    def register(fn):
        assert name not in CASES, name
        CASES[name] = fn
        return fn

    return register


# ---- Making inputs and expected outputs --------------------------------------------------------


def np():
    import numpy

    return numpy


def sample(dtype, shape, seed=1):
    """Random values of dtype with many ties, the extremes of the type, and for floats NaN, the
    infinities, signed zeros and denormals (rarely enough that most rows have none)."""
    n = np()
    rng = n.random.default_rng(seed)
    dt = n.dtype(dtype)
    count = int(n.prod(shape, dtype=n.int64))
    if dt.kind == "f":
        fi = n.finfo(dt)
        common = [-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0]
        rare = [n.nan, n.inf, -n.inf, float(fi.max), float(fi.min), float(fi.smallest_subnormal),
                -float(fi.smallest_subnormal)]
        values = n.array(common + rare, dtype=dt)
        weights = n.array([1.0] * len(common) + [0.02] * len(rare))
    else:
        ii = n.iinfo(dt)
        vals = [v for v in [-2, -1, 0, 1, 2, 3] if ii.min <= v <= ii.max]
        rare = [ii.min, ii.min + 1, ii.max - 1, ii.max]
        values = n.array(vals + rare, dtype=dt)
        weights = n.array([1.0] * len(vals) + [0.1] * len(rare))
    idx = rng.choice(len(values), size=count, p=weights / weights.sum())
    return values[idx].reshape(shape)


def bf16_bits(x):
    """float32 array -> bfloat16 bit patterns (uint16), by truncation."""
    n = np()
    return (n.ascontiguousarray(x, dtype=n.float32).view(n.uint32) >> 16).astype(n.uint16)


def bf16_to_f32(bits):
    n = np()
    return (bits.astype(n.uint32) << 16).view(n.float32)


def ref_argmax(x, axis=0, keepdims=1, select_last_index=0):
    n = np()
    axis = axis % x.ndim
    if select_last_index:
        r = x.shape[axis] - 1 - n.argmax(n.flip(x, axis), axis=axis)
    else:
        r = n.argmax(x, axis=axis)
    if keepdims:
        r = n.expand_dims(r, axis)
    return n.asarray(r).astype("<i8")


def ref_argmin(x, axis=0, keepdims=1, select_last_index=0):
    """np.argmin: NaN wins (the first NaN), else the smallest; the last with the flip trick."""
    n = np()
    axis = axis % x.ndim
    if select_last_index:
        r = x.shape[axis] - 1 - n.argmin(n.flip(x, axis), axis=axis)
    else:
        r = n.argmin(x, axis=axis)
    if keepdims:
        r = n.expand_dims(r, axis)
    return n.asarray(r).astype("<i8")


def ref_values(x, idx, axis, keepdims=1):
    """The elements of x at the indices idx (as ref_argmax/ref_argmin give them), bit for bit."""
    n = np()
    axis = axis % x.ndim
    full = idx if keepdims else n.expand_dims(idx, axis)
    v = n.take_along_axis(x, full.astype(n.intp), axis=axis)
    return v if keepdims else n.squeeze(v, axis=axis)


def ref_arg(op, x, axis=0, keepdims=1, select_last_index=0):
    f = ref_argmax if op == "argmax" else ref_argmin
    return f(x, axis, keepdims, select_last_index)


def ref_hardmax(x, axis, opset, out_dtype, one):
    """One-hot of the first maximum; opsets 1 and 11 see x as [prod(d[:axis]), prod(d[axis:])]."""
    n = np()
    axis = axis % x.ndim
    out = n.zeros(x.shape, dtype=out_dtype)
    if opset < 13:
        rows = int(n.prod(x.shape[:axis], dtype=n.int64))
        cols = int(n.prod(x.shape[axis:], dtype=n.int64))
        x2 = x.reshape(rows, cols)
        o2 = out.reshape(rows, cols)
        if rows and cols:
            o2[n.arange(rows), n.argmax(x2, axis=1)] = one
        return o2.reshape(x.shape)
    if out.size:
        n.put_along_axis(out, n.expand_dims(n.argmax(x, axis=axis), axis), one, axis=axis)
    return out


def npy_bytes(header, data=b"", version=(1, 0), pad=True, header_len=None):
    """A .npy file with a header of our choosing (str or bytes), for malformed inputs."""
    if isinstance(header, str):
        header = header.encode("latin1")
    pre = 10 if version[0] == 1 else 12
    if pad:
        header += b" " * ((64 - (pre + len(header) + 1) % 64) % 64) + b"\n"
    hl = len(header) if header_len is None else header_len
    lenfield = struct.pack("<H", hl) if pre == 10 else struct.pack("<I", hl)
    return b"\x93NUMPY" + bytes(version) + lenfield + header + data


def header(descr="<f4", fortran="False", shape="(2, 3)"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (
        descr if descr.startswith(("'", "[")) else repr(descr), fortran, shape)


# ---- Running the tool ---------------------------------------------------------------------------


class Ctx:
    def __init__(self, exe, workdir):
        self.exe = exe
        self.dir = workdir

    def path(self, name):
        return os.path.join(self.dir, name)

    def save(self, name, array, version=None, fortran=False):
        n = np()
        if fortran:
            array = n.asfortranarray(array)
        with open(self.path(name), "wb") as f:
            n.lib.format.write_array(f, array, version=version)
        return name

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)
        return name

    def run(self, *args, rc=0, err=None, out=None, env=None, quiet=False):
        """Run clmax with args; check its exit status and, as regexes, its stderr and stdout."""
        full_env = dict(os.environ)
        full_env.update(env or {})
        cmd = [self.exe] + [str(a) for a in args]
        p = subprocess.run(cmd, cwd=self.dir, capture_output=True, env=full_env, timeout=300)
        stdout = p.stdout.decode("utf-8", "replace")
        stderr = p.stderr.decode("utf-8", "replace")
        shown = "$ %s\n--- exit %d\n--- stdout:\n%s--- stderr:\n%s" % (
            " ".join(cmd), p.returncode, stdout, stderr)
        if p.returncode < 0:
            raise AssertionError("killed by signal %d\n%s" % (-p.returncode, shown))
        if p.returncode != rc:
            raise AssertionError("expected exit %d\n%s" % (rc, shown))
        if err is not None and not re.search(err, stderr, re.S):
            raise AssertionError("stderr does not match %r\n%s" % (err, shown))
        if out is not None and not re.search(out, stdout, re.S):
            raise AssertionError("stdout does not match %r\n%s" % (out, shown))
        if quiet and stderr:
            raise AssertionError("expected nothing on stderr\n%s" % shown)
        if rc != 0 and err is None and not stderr:
            raise AssertionError("a failure without a message\n%s" % shown)
        self.no_temp_files()
        return p

    def no_temp_files(self):
        for root, _, files in os.walk(self.dir):
            left = [f for f in files if ".tmp." in f]
            if left:
                raise AssertionError("temporary files left behind: %s" % left)

    def check(self, name, expected, descr=None):
        """OUT is a version 1.0 .npy with data at a multiple of 64, holding exactly expected."""
        n = np()
        with open(self.path(name), "rb") as f:
            raw = f.read()
        assert raw[:8] == b"\x93NUMPY\x01\x00", "not a version 1.0 .npy: %r" % raw[:8]
        hlen = raw[8] | raw[9] << 8
        assert (10 + hlen) % 64 == 0, "data offset %d is not a multiple of 64" % (10 + hlen)
        assert raw[10 + hlen - 1:10 + hlen] == b"\n", "header does not end with a newline"
        got = n.load(self.path(name))
        want_descr = descr or expected.dtype.newbyteorder("<").str
        assert got.dtype.str == want_descr, "dtype %s, expected %s" % (got.dtype.str, want_descr)
        assert got.shape == expected.shape, "shape %s, expected %s" % (got.shape, expected.shape)
        if got.tobytes() != n.ascontiguousarray(expected).astype(want_descr).tobytes():
            bad = n.argwhere(got != expected)
            raise AssertionError("%s differs from the reference at %d places, first %s:\n"
                                 "got\n%s\nexpected\n%s" % (name, len(bad), bad[:5], got, expected))

    def opencl(self):
        """Skip an OpenCL case where it cannot run, unless CLMAX_REQUIRE_OPENCL=1."""
        if os.environ.get("CLMAX_BACKEND", "").lower() == "cpu":
            raise Skip("CLMAX_BACKEND=cpu")
        p = subprocess.run([self.exe, "devices", "--backend=opencl"], capture_output=True)
        if p.returncode != 0:
            msg = "no usable OpenCL device: " + p.stderr.decode("utf-8", "replace").strip()
            if os.environ.get("CLMAX_REQUIRE_OPENCL") == "1":
                raise AssertionError(msg + " (CLMAX_REQUIRE_OPENCL=1)")
            raise Skip(msg)


def backend_args(ctx, backend):
    if backend == "opencl":
        ctx.opencl()
    return ["--backend=" + backend]


# ---- Every input type, both operators, both backends --------------------------------------------


def argmax_type_case(t, backend):
    def run(ctx):
        n = np()
        b = backend_args(ctx, backend)
        x = sample("<" + t if t[1] != "1" else "|" + t, (3, 5, 7), seed=len(t) + ord(t[0]))
        ctx.save("in.npy", x)
        for axis in [0, 1, 2, -1, -3]:
            ctx.run("argmax", "in.npy", "out.npy", "--axis=%d" % axis, *b)
            ctx.check("out.npy", ref_argmax(x, axis))
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--keepdims=0", *b)
        ctx.check("out.npy", ref_argmax(x, 1, keepdims=0))
        ctx.run("argmax", "in.npy", "out.npy", "--axis=2", "--select-last-index=1", *b)
        ctx.check("out.npy", ref_argmax(x, 2, select_last_index=1))
        # A long contiguous axis and a long strided one.
        y = sample(x.dtype, (3, 3000), seed=7)
        ctx.save("long.npy", y)
        for axis in [0, 1]:
            ctx.run("argmax", "long.npy", "out.npy", "--axis=%d" % axis, *b)
            ctx.check("out.npy", ref_argmax(y, axis))
        assert n is not None

    return run


def hardmax_type_case(t, backend):
    def run(ctx):
        b = backend_args(ctx, backend)
        x = sample("<" + t, (3, 4, 6), seed=ord(t[1]))
        ctx.save("in.npy", x)
        for axis in [None, 0, 1, -2]:
            args = [] if axis is None else ["--axis=%d" % axis]
            ctx.run("hardmax", "in.npy", "out.npy", *args, *b)
            ctx.check("out.npy", ref_hardmax(x, -1 if axis is None else axis, 13, x.dtype, 1))
        for opset in [1, 11]:
            ctx.run("hardmax", "in.npy", "out.npy", "--opset=%d" % opset, *b)
            ctx.check("out.npy", ref_hardmax(x, 1, opset, x.dtype, 1))

    return run


def bf16_case(op, backend, descr):
    def run(ctx):
        n = np()
        b = backend_args(ctx, backend)
        f = sample("<f4", (4, 9, 5), seed=11)
        bits = bf16_bits(f)
        ref = bf16_to_f32(bits)
        if descr == "|V2":
            data = bits.astype("<u2").view("V2")
        else:
            data = bits.astype(descr)
        ctx.save("in.npy", data)
        if op == "argmax":
            for axis in [0, 1, 2]:
                ctx.run("argmax", "in.npy", "out.npy", "--bf16", "--axis=%d" % axis, *b)
                ctx.check("out.npy", ref_argmax(ref, axis))
            ctx.run("argmax", "in.npy", "out.npy", "--bf16", "--axis=1",
                    "--select-last-index=1", *b)
            ctx.check("out.npy", ref_argmax(ref, 1, select_last_index=1))
        else:
            for axis in [-1, 1]:
                ctx.run("hardmax", "in.npy", "out.npy", "--bf16", "--axis=%d" % axis, *b)
                ctx.check("out.npy", ref_hardmax(ref, axis, 13, n.uint16, 0x3F80), descr="<u2")

    return run


for _t in FLOAT_TYPES + INT_TYPES:
    for _b in ["cpu", "opencl"]:
        case("argmax.%s.%s" % (_t, _b))(argmax_type_case(_t, _b))
for _t in FLOAT_TYPES:
    for _b in ["cpu", "opencl"]:
        case("hardmax.%s.%s" % (_t, _b))(hardmax_type_case(_t, _b))
for _op in ["argmax", "hardmax"]:
    for _b in ["cpu", "opencl"]:
        case("%s.bf16.%s" % (_op, _b))(bf16_case(_op, _b, "<u2"))
    case("%s.bf16.V2" % _op)(bf16_case(_op, "cpu", "|V2"))
    case("%s.bf16.big_endian" % _op)(bf16_case(_op, "cpu", ">u2"))


# ---- ArgMin, and the values of both (--values) ---------------------------------------------------


def argmin_type_case(t, backend):
    def run(ctx):
        b = backend_args(ctx, backend)
        x = sample("<" + t if t[1] != "1" else "|" + t, (3, 5, 7), seed=len(t) + ord(t[1]))
        ctx.save("in.npy", x)
        ctx.run("argmin", "in.npy", "out.npy", *b)  # the defaults: axis 0, keepdims 1
        ctx.check("out.npy", ref_argmin(x, 0))
        for axis in [1, 2, -1, -3]:
            ctx.run("argmin", "in.npy", "out.npy", "--axis=%d" % axis, *b)
            ctx.check("out.npy", ref_argmin(x, axis))
        ctx.run("argmin", "in.npy", "out.npy", "--axis=1", "--keepdims=0", *b)
        ctx.check("out.npy", ref_argmin(x, 1, keepdims=0))
        for axis in [0, 2]:
            ctx.run("argmin", "in.npy", "out.npy", "--axis=%d" % axis, "--select-last-index=1", *b)
            ctx.check("out.npy", ref_argmin(x, axis, select_last_index=1))
        for opset in [1, 11, 12]:
            ctx.run("argmin", "in.npy", "out.npy", "--opset=%d" % opset, "--axis=-1", *b)
            ctx.check("out.npy", ref_argmin(x, -1))
        # A long contiguous axis and a long strided one.
        y = sample(x.dtype, (3, 3000), seed=8)
        ctx.save("long.npy", y)
        for axis in [0, 1]:
            ctx.run("argmin", "long.npy", "out.npy", "--axis=%d" % axis, *b)
            ctx.check("out.npy", ref_argmin(y, axis))

    return run


def values_type_case(op, t, backend):
    """--values for op on type t: the elements at the indices, in the input's dtype, bit for bit."""
    def run(ctx):
        b = backend_args(ctx, backend)
        d = "<" + t if t[1] != "1" else "|" + t
        x = sample(d, (4, 6, 5), seed=3 * len(t) + ord(t[1]) + len(op))
        ctx.save("in.npy", x)
        for axis, keep, last in [(0, 1, 0), (1, 0, 0), (2, 1, 1), (-2, 0, 1), (-1, 0, 0)]:
            args = ["--axis=%d" % axis, "--keepdims=%d" % keep, "--select-last-index=%d" % last]
            ctx.run(op, "in.npy", "out.npy", "--values=val.npy", *args, *b)
            idx = ref_arg(op, x, axis, keep, last)
            ctx.check("out.npy", idx)
            ctx.check("val.npy", ref_values(x, idx, axis, keep), descr=d)
        # "--values VALUES.npy", the opset 13 defaults, and a long row
        ctx.run(op, "in.npy", "out.npy", "--values", "val2.npy", *b)
        idx = ref_arg(op, x, 0)
        ctx.check("out.npy", idx)
        ctx.check("val2.npy", ref_values(x, idx, 0), descr=d)
        y = sample(d, (2, 5001), seed=9)
        ctx.save("long.npy", y)
        ctx.run(op, "long.npy", "out.npy", "--axis=1", "--keepdims=0", "--values=val.npy", *b)
        idx = ref_arg(op, y, 1, 0)
        ctx.check("out.npy", idx)
        ctx.check("val.npy", ref_values(y, idx, 1, 0), descr=d)

    return run


for _t in FLOAT_TYPES + INT_TYPES:
    for _b in ["cpu", "opencl"]:
        case("argmin.%s.%s" % (_t, _b))(argmin_type_case(_t, _b))
        for _op in ["argmax", "argmin"]:
            case("values.%s.%s.%s" % (_op, _t, _b))(values_type_case(_op, _t, _b))


def values_bf16_case(op, backend):
    def run(ctx):
        b = backend_args(ctx, backend)
        f = sample("<f4", (4, 9, 5), seed=41)
        bits = bf16_bits(f)
        ref = bf16_to_f32(bits)
        ctx.save("in.npy", bits.astype("<u2"))
        for axis, last in [(0, 0), (1, 1), (2, 0)]:
            ctx.run(op, "in.npy", "out.npy", "--bf16", "--axis=%d" % axis,
                    "--select-last-index=%d" % last, "--values=val.npy", *b)
            idx = ref_arg(op, ref, axis, 1, last)
            ctx.check("out.npy", idx)
            # bfloat16 values as their bits, '<u2'
            ctx.check("val.npy", ref_values(bits, idx, axis), descr="<u2")
        ctx.run(op, "in.npy", "out.npy", "--bf16", "--opset=12", rc=1,
                err=r"in\.npy: %s: unsupported type" % op)

    return run


for _op in ["argmax", "argmin"]:
    for _b in ["cpu", "opencl"]:
        case("values.%s.bf16.%s" % (_op, _b))(values_bf16_case(_op, _b))


@case("argmin.nan_and_zeros")
def _(ctx):
    """NaN wins as in np.argmin (the first, or the last with --select-last-index); -0 == +0 and
    the value written keeps the winner's sign and NaN payload."""
    n = np()
    x = n.array([[1, 3, -2, 0, -2], [2, n.nan, 2, 2, -n.nan], [-0.0, 0.0, 5, 0.0, -0.0]],
                dtype="<f8")
    x.view("<u8")[1, 1] |= n.uint64(5)  # a payload
    ctx.save("in.npy", x)
    for backend in ["cpu", "auto"]:
        ctx.run("argmin", "in.npy", "out.npy", "--axis=1", "--values=v.npy", "--backend=" + backend)
        ctx.check("out.npy", n.array([[2], [1], [0]], dtype="<i8"))
        ctx.check("v.npy", ref_values(x, n.array([[2], [1], [0]]), 1))
        assert n.load(ctx.path("v.npy")).view("<u8")[1, 0] == x.view("<u8")[1, 1]
        assert n.signbit(n.load(ctx.path("v.npy"))[2, 0])
        ctx.run("argmin", "in.npy", "out.npy", "--axis=1", "--select-last-index=1",
                "--values=v.npy", "--backend=" + backend)
        ctx.check("out.npy", n.array([[4], [4], [4]], dtype="<i8"))
        ctx.check("out.npy", ref_argmin(x, 1, select_last_index=1))
        v = n.load(ctx.path("v.npy"))
        assert v.view("<u8")[1, 0] == x.view("<u8")[1, 4] and n.signbit(v[2, 0]), v
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--values=v.npy", "--keepdims=0",
                "--backend=" + backend)
        ctx.check("out.npy", ref_argmax(x, 1, keepdims=0))
        ctx.check("v.npy", ref_values(x, ref_argmax(x, 1, keepdims=0), 1, 0))


@case("argmin.big_endian_and_fortran")
def _(ctx):
    for t in ["f4", "i8", "u2"]:
        x = sample(">" + t, (5, 4, 3), seed=51)
        ctx.save("in.npy", x, fortran=t == "i8")
        for axis in [0, 1, 2]:
            ctx.run("argmin", "in.npy", "out.npy", "--axis=%d" % axis, "--values=v.npy")
            idx = ref_argmin(x, axis)
            ctx.check("out.npy", idx)
            # values in native (little-endian) order
            ctx.check("v.npy", ref_values(x, idx, axis).astype("<" + t), descr="<" + t)


@case("argmin.empty")
def _(ctx):
    n = np()
    x = n.zeros((3, 0, 2), dtype="<i2")
    ctx.save("in.npy", x)
    ctx.run("argmin", "in.npy", "out.npy", "--axis=0", "--values=v.npy")
    ctx.check("out.npy", n.zeros((1, 0, 2), dtype="<i8"))
    ctx.check("v.npy", n.zeros((1, 0, 2), dtype="<i2"))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=2", "--keepdims=0", "--values=v.npy")
    ctx.check("out.npy", n.zeros((3, 0), dtype="<i8"))
    ctx.check("v.npy", n.zeros((3, 0), dtype="<i2"))
    ctx.run("argmin", "in.npy", "out.npy", "--axis=1", rc=1,
            err=r"in\.npy: argmin: reduction over an empty axis")


@case("argmin.verbose")
def _(ctx):
    x = sample("<f2", (6, 7), seed=52)
    ctx.save("in.npy", x)
    ctx.run("argmin", "in.npy", "out.npy", "-v", "--axis=1", "--values=v.npy",
            err=r"backend: (opencl|cpu)\nclmax: device: .+\n.*input: in\.npy float16 \[6, 7\]"
                r".*output: out\.npy int64 \[6, 1\]\nclmax: values: v\.npy float16 \[6, 1\]"
                r".*argmin: [0-9.]+ ms")
    ctx.run("argmin", "in.npy", "out.npy", "--values=v.npy", quiet=True)
    ctx.check("v.npy", ref_values(x, ref_argmin(x, 0), 0))


@case("values.refused_same_file")
def _(ctx):
    """VALUES may be neither OUT nor IN, however spelled: bad usage, nothing touched."""
    x = sample("<f4", (3, 4), seed=53)
    ctx.save("in.npy", x)
    ctx.write("out.npy", b"precious")
    os.mkdir(ctx.path("sub"))
    os.symlink("in.npy", ctx.path("link.npy"))
    for op in ["argmax", "argmin"]:
        for out, val in [("out.npy", "out.npy"), ("out.npy", "./out.npy"), ("out.npy",
                         "sub/../out.npy"), ("new.npy", "new.npy"), ("new.npy", "./sub/../new.npy"),
                         ("out.npy", ctx.path("out.npy"))]:
            for spelling in [["--values=" + val], ["--values", val]]:
                ctx.run(op, "in.npy", out, *spelling, rc=2,
                        err=r"^clmax %s: --values=.*: VALUES\.npy must be another file than "
                            r"OUT\.npy\nTry 'clmax %s --help'\.\n$" % (op, op))
        for val in ["in.npy", "./in.npy", "link.npy", ctx.path("in.npy")]:
            ctx.run(op, "in.npy", "out.npy", "--values=" + val, rc=2,
                    err=r"VALUES\.npy must be another file than IN\.npy")
    with open(ctx.path("out.npy"), "rb") as f:
        assert f.read() == b"precious"
    assert not os.path.exists(ctx.path("new.npy"))
    n = np()
    assert n.array_equal(n.load(ctx.path("in.npy")), x)


@case("values.usage")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    for args, err in [
            (["argmax", "in.npy", "out.npy", "--values"], r"--values needs a file"),
            (["argmin", "in.npy", "out.npy", "--values="], r"--values needs a file"),
            (["hardmax", "in.npy", "out.npy", "--values=v.npy"], r"unknown option '--values=v"),
            (["hardmax", "in.npy", "out.npy", "--values", "v.npy"], r"unknown option '--values'"),
            (["argmin", "in.npy", "out.npy", "--value=v.npy"], r"unknown option '--value=v"),
            (["argmin", "in.npy", "out.npy", "v.npy"], r"unexpected argument 'v\.npy'")]:
        ctx.run(*args, rc=2, err=r"^clmax %s: %s.*\nTry 'clmax %s --help'\.\n$"
                % (args[0], err, args[0]))
    for f in ["out.npy", "v.npy"]:
        assert not os.path.exists(ctx.path(f))


@case("values.failure_leaves_neither")
def _(ctx):
    """When anything fails, neither OUT nor VALUES is created or changed, and no temporary file
    is left behind."""
    ctx.save("in.npy", sample("<f4", (2, 3), seed=54))
    os.mkdir(ctx.path("dir.npy"))

    def precious():
        ctx.write("out.npy", b"precious out")
        ctx.write("v.npy", b"precious values")

    def untouched():
        with open(ctx.path("out.npy"), "rb") as f:
            assert f.read() == b"precious out", "OUT changed by a failed run"
        with open(ctx.path("v.npy"), "rb") as f:
            assert f.read() == b"precious values", "VALUES changed by a failed run"

    for op in ["argmax", "argmin"]:
        # Both outputs exist: the operation, the input, the device, usage.
        for args, rc in [(["--axis=7"], 1), (["--bf16"], 1), (["--keepdims=3"], 2),
                         (["--opset=11", "--select-last-index=1"], 2),
                         (["--backend=opencl", "--device=no-such-device-xyz"], 1)]:
            precious()
            ctx.run(op, "in.npy", "out.npy", "--values=v.npy", *args, rc=rc)
            untouched()
        precious()
        ctx.write("bad.npy", b"not an npy file")
        ctx.run(op, "bad.npy", "out.npy", "--values=v.npy", rc=1, err=r"bad\.npy: not a \.npy")
        untouched()
        # VALUES cannot be written: OUT stays as it was.
        precious()
        for val, err in [("dir.npy", r"^clmax: dir\.npy: is a directory"),
                         ("nodir/v.npy", r"^clmax: nodir/v\.npy: cannot create a file beside it")]:
            ctx.run(op, "in.npy", "out.npy", "--values=" + val, rc=1, err=err)
            untouched()
        # OUT cannot be written: VALUES stays as it was, and no new VALUES appears.
        for out, err in [("dir.npy", r"^clmax: dir\.npy: is a directory"),
                         ("nodir/out.npy", r"cannot create a file beside it")]:
            ctx.run(op, "in.npy", out, "--values=v.npy", rc=1, err=err)
            untouched()
            ctx.run(op, "in.npy", out, "--values=new.npy", rc=1, err=err)
            assert not os.path.exists(ctx.path("new.npy")), "VALUES written by a failed run"
        if os.geteuid() != 0:
            os.mkdir(ctx.path("ro"))
            os.chmod(ctx.path("ro"), 0o555)
            try:
                ctx.run(op, "in.npy", "out.npy", "--values=ro/v.npy", rc=1,
                        err=r"Permission denied")
                untouched()
            finally:
                os.chmod(ctx.path("ro"), 0o755)
                os.rmdir(ctx.path("ro"))
    # A successful run replaces both.
    x = sample("<f4", (2, 3), seed=54)
    ctx.run("argmin", "in.npy", "out.npy", "--values=v.npy", "--axis=1")
    ctx.check("out.npy", ref_argmin(x, 1))
    ctx.check("v.npy", ref_values(x, ref_argmin(x, 1), 1))


@case("values.symlink")
def _(ctx):
    """Through a symbolic link VALUES' target is replaced and the link kept."""
    x = sample("<i4", (5, 3), seed=55)
    ctx.save("in.npy", x)
    os.mkdir(ctx.path("sub"))
    ctx.write("sub/target.npy", b"old")
    os.symlink("sub/target.npy", ctx.path("link.npy"))
    ctx.run("argmax", "in.npy", "out.npy", "--values=link.npy")
    assert os.path.islink(ctx.path("link.npy"))
    ctx.check("sub/target.npy", ref_values(x, ref_argmax(x, 0), 0))
    # VALUES a link to OUT: the same file
    ctx.run("argmax", "in.npy", "sub/target.npy", "--values=link.npy", rc=2,
            err=r"must be another file than OUT\.npy")


@case("hardmax.int_refused")
def _(ctx):
    ctx.save("in.npy", sample("<i4", (2, 3)))
    ctx.run("hardmax", "in.npy", "out.npy", rc=1, err=r"in\.npy: hardmax: unsupported type")
    assert not os.path.exists(ctx.path("out.npy"))


@case("bf16.argmax_opset12_refused")
def _(ctx):
    ctx.save("in.npy", bf16_bits(sample("<f4", (2, 3))))
    ctx.run("argmax", "in.npy", "out.npy", "--bf16", "--opset=12", rc=1,
            err=r"in\.npy: argmax: unsupported type")


@case("bf16.hardmax_opset11_refused")
def _(ctx):
    ctx.save("in.npy", bf16_bits(sample("<f4", (2, 3))))
    ctx.run("hardmax", "in.npy", "out.npy", "--bf16", "--opset=11", rc=1,
            err=r"in\.npy: hardmax: unsupported type")


@case("bf16.needs_2_byte_input")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    ctx.run("argmax", "in.npy", "out.npy", "--bf16", rc=1,
            err=r"in\.npy: --bf16 needs 2-byte elements .*'<f4'")
    ctx.save("in.npy", sample("<i2", (2, 3)))
    ctx.run("argmax", "in.npy", "out.npy", "--bf16", rc=1, err=r"'<i2'")


@case("bf16.spellings")
def _(ctx):
    """bfloat16 bits as '<u2', '|u2', '=u2', '<V2', '|V2' or 'V2'."""
    bits = bf16_bits(sample("<f4", (5, 6), seed=28))
    ref = bf16_to_f32(bits)
    for d in ["<u2", "|u2", "=u2", "u2", "<V2", "|V2", "V2"]:
        ctx.write("in.npy", npy_bytes(header(d, shape="(5, 6)"), bits.astype("<u2").tobytes()))
        ctx.run("argmax", "in.npy", "out.npy", "--bf16", "--axis=1", "--backend=cpu")
        ctx.check("out.npy", ref_argmax(ref, 1))


@case("bf16.V2_needs_bf16")
def _(ctx):
    ctx.save("in.npy", bf16_bits(sample("<f4", (2, 3))).view("V2"))
    ctx.run("argmax", "in.npy", "out.npy", rc=1, err=r"in\.npy: .*'\|V2'.*--bf16")


# ---- Byte orders, descr spellings, Fortran order, file versions ---------------------------------


@case("descr.spellings")
def _(ctx):
    """Byte order marks '<', '|', '=' or none for the same data."""
    n = np()
    for t, spellings in [("u1", ["|u1", "<u1", "=u1", "u1", ">u1"]),
                         ("i1", ["|i1", "<i1", "i1", ">i1"]),
                         ("f4", ["<f4", "=f4", "f4", "|f4"]),
                         ("u8", ["<u8", "=u8"])]:
        x = sample("<" + t, (4, 6), seed=3)
        for d in spellings:
            ctx.write("in.npy", npy_bytes(header(d, shape="(4, 6)"), x.tobytes()))
            ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--backend=cpu")
            ctx.check("out.npy", ref_argmax(x, 1))
    assert n is not None


@case("descr.big_endian")
def _(ctx):
    for t in FLOAT_TYPES + INT_TYPES:
        x = sample(">" + t, (5, 4, 3), seed=5)
        ctx.save("in.npy", x)
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "-v",
                err="converted from big-endian" if t[1] != "1" else None)
        ctx.check("out.npy", ref_argmax(x, 1))
        if t in FLOAT_TYPES:
            ctx.run("hardmax", "in.npy", "out.npy")
            # Hardmax writes the input's type in native (little-endian) order.
            ctx.check("out.npy", ref_hardmax(x, -1, 13, x.dtype.newbyteorder("<"), 1),
                      descr="<" + t)


@case("fortran_order")
def _(ctx):
    for t in ["f4", "i2", "u8"]:
        x = sample("<" + t, (3, 4, 5), seed=9)
        ctx.save("in.npy", x, fortran=True)
        with open(ctx.path("in.npy"), "rb") as f:
            assert b"'fortran_order': True" in f.read(128)
        for axis in [0, 1, 2]:
            ctx.run("argmax", "in.npy", "out.npy", "--axis=%d" % axis)
            ctx.check("out.npy", ref_argmax(x, axis))
    # Shapes that cross the 32 x 32 tiles of the conversion.
    for shape in [(100, 65), (70, 3, 45), (33, 2, 2, 40)]:
        x = sample("<u2", shape, seed=11)
        ctx.save("in.npy", x, fortran=True)
        for axis in range(len(shape)):
            ctx.run("argmax", "in.npy", "out.npy", "--axis=%d" % axis, "--backend=cpu")
            ctx.check("out.npy", ref_argmax(x, axis))
    x = sample("<f8", (2, 3, 4, 5), seed=10)
    ctx.save("in.npy", x, fortran=True)
    ctx.run("hardmax", "in.npy", "out.npy", "--axis=2", "-v", err="converted from Fortran order")
    ctx.check("out.npy", ref_hardmax(x, 2, 13, x.dtype, 1))
    ctx.run("hardmax", "in.npy", "out.npy", "--axis=2", "--opset=11")
    ctx.check("out.npy", ref_hardmax(x, 2, 11, x.dtype, 1))


@case("fortran_order.big_endian")
def _(ctx):
    x = sample(">i4", (6, 7), seed=12)
    ctx.save("in.npy", x, fortran=True)
    for axis in [0, 1]:
        ctx.run("argmax", "in.npy", "out.npy", "--axis=%d" % axis, "-v",
                err="converted from big-endian Fortran order")
        ctx.check("out.npy", ref_argmax(x, axis))


@case("fortran_order.trivial")
def _(ctx):
    """Shapes where Fortran and C order agree are used in place."""
    for shape in [(7,), (1, 6, 1), (5, 1)]:
        x = sample("<f4", shape, seed=13)
        d = "(%s)" % "".join("%d, " % s for s in shape)
        ctx.write("in.npy", npy_bytes(header("<f4", "True", d), x.tobytes(order="F")))
        ctx.run("argmax", "in.npy", "out.npy", "--axis=-1", "-v")
        ctx.check("out.npy", ref_argmax(x, -1))


@case("versions")
def _(ctx):
    x = sample("<f4", (4, 5), seed=14)
    for v in [(1, 0), (2, 0), (3, 0)]:
        ctx.save("in.npy", x, version=v)
        with open(ctx.path("in.npy"), "rb") as f:
            assert f.read(8)[6] == v[0]
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1")
        ctx.check("out.npy", ref_argmax(x, 1))
    # Unpadded headers, an odd data offset (copied for alignment), and a Python 2 long.
    ctx.write("in.npy", npy_bytes(header(shape="(4L, 5L)"), x.tobytes(), pad=False))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "-v", err="copied for alignment")
    ctx.check("out.npy", ref_argmax(x, 1))
    ctx.write("in.npy", npy_bytes('{"descr":"<f4","fortran_order":False,"shape":(4,5)}',
                                  x.tobytes(), version=(3, 0)))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=0")
    ctx.check("out.npy", ref_argmax(x, 0))


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


# ---- Refused inputs -----------------------------------------------------------------------------

GOOD = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
DATA = bytes(24)

# name -> (file contents, stderr regex after "in.npy: ")
BAD_FILES = {
    "empty_file": (b"", r"not a \.npy file"),
    "short_file": (b"\x93NU", r"not a \.npy file"),
    "bad_magic": (b"\x93NUMPZ" + npy_bytes(GOOD, DATA)[6:], r"not a \.npy file"),
    "text_file": (b"hello, world, this is not npy\n", r"not a \.npy file"),
    "truncated_preamble": (b"\x93NUMPY\x01\x00\x76", r"truncated \.npy header"),
    "truncated_preamble_v2": (b"\x93NUMPY\x02\x00\x76\x00\x00", r"truncated \.npy header"),
    "version_0": (npy_bytes(GOOD, DATA, version=(0, 0)), r"unsupported \.npy version 0\.0"),
    "version_4": (npy_bytes(GOOD, DATA, version=(4, 0)), r"unsupported \.npy version 4\.0"),
    "version_1_1": (npy_bytes(GOOD, DATA, version=(1, 1)), r"unsupported \.npy version 1\.1"),
    "header_len_beyond_file": (npy_bytes(GOOD, b"", header_len=500), r"header length 500 goes"),
    "header_len_beyond_file_v2": (npy_bytes(GOOD, b"", version=(2, 0), header_len=0xFFFFFFF0),
                                  r"header length 4294967280 goes"),
    "header_len_short": (npy_bytes(GOOD, DATA, header_len=20), r"malformed header"),
    "header_not_dict": (npy_bytes("['descr', 'shape']", DATA), r"not a dictionary"),
    "header_empty": (npy_bytes("", DATA, pad=False), r"not a dictionary"),
    "header_empty_dict": (npy_bytes("{}", DATA), r"no 'descr' key"),
    "missing_descr": (npy_bytes("{'fortran_order': False, 'shape': (2, 3), }", DATA),
                      r"no 'descr' key"),
    "missing_fortran_order": (npy_bytes("{'descr': '<f4', 'shape': (2, 3), }", DATA),
                              r"no 'fortran_order' key"),
    "missing_shape": (npy_bytes("{'descr': '<f4', 'fortran_order': False, }", DATA),
                      r"no 'shape' key"),
    "extra_key": (npy_bytes(GOOD[:-1] + "'extra': 1, }", DATA), r"unexpected key 'extra'"),
    "duplicate_key": (npy_bytes(GOOD[:-1] + "'shape': (6,), }", DATA), r"'shape' appears twice"),
    "unterminated_string": (npy_bytes("{'descr': '<f4", DATA), r"unterminated string"),
    "unterminated_string_at_end": (npy_bytes("{'descr': '<f4", DATA, pad=False),
                                   r"unterminated string"),
    "unterminated_key": (npy_bytes("{'descr", DATA, pad=False), r"unterminated string"),
    "unterminated_dict": (npy_bytes(GOOD[:-3], DATA), r"malformed header"),
    "missing_colon": (npy_bytes(GOOD.replace("'descr':", "'descr'"), DATA),
                      r"expected ':' after 'descr'"),
    "missing_comma": (npy_bytes(GOOD.replace("'<f4',", "'<f4'"), DATA),
                      r"expected ',' or '}' after 'descr'"),
    "key_not_string": (npy_bytes("{descr: '<f4'}", DATA), r"expected a string"),
    "text_after_dict": (npy_bytes(GOOD + " junk", DATA), r"unexpected text after the dictionary"),
    "two_dicts": (npy_bytes(GOOD + GOOD, DATA), r"unexpected text after the dictionary"),
    "nul_in_header": (npy_bytes(GOOD + "\0", DATA), r"unexpected text after the dictionary"),
    "escape_in_string": (npy_bytes(header("'<f\\x34'"), DATA), r"escape sequences"),
    "nul_in_key": (npy_bytes(GOOD.replace("'fortran_order'", "'fortran_order\0x'"), DATA),
                   r"NUL byte inside a string"),
    "nul_in_descr": (npy_bytes(header("'<f4\0'"), DATA), r"NUL byte inside a string"),
    "descr_not_string": (npy_bytes(GOOD.replace("'<f4'", "5"), DATA), r"'descr' is not a string"),
    "descr_empty": (npy_bytes(header("''"), DATA), r"unrecognised element type ''"),
    "descr_unknown": (npy_bytes(header("<x4"), DATA), r"unrecognised element type '<x4'"),
    "descr_trailing": (npy_bytes(header("<f4x"), DATA), r"unrecognised element type '<f4x'"),
    "descr_long": (npy_bytes(header("<f" + "4" * 100), DATA), r"unsupported element type"),
    "fortran_order_int": (npy_bytes(header(fortran="0"), DATA), r"'fortran_order' is not True"),
    "fortran_order_string": (npy_bytes(header(fortran="'False'"), DATA),
                             r"'fortran_order' is not True"),
    "fortran_order_lowercase": (npy_bytes(header(fortran="false"), DATA),
                                r"'fortran_order' is not True"),
    "shape_list": (npy_bytes(header(shape="[2, 3]"), DATA), r"'shape' is not a tuple"),
    "shape_int": (npy_bytes(header(shape="6"), DATA), r"'shape' is not a tuple"),
    "shape_parenthesised_int": (npy_bytes(header(shape="(6)"), DATA), r"'shape' is not a tuple"),
    "shape_float": (npy_bytes(header(shape="(2.0, 3)"), DATA), r"'shape' is not a tuple of int"),
    "shape_string": (npy_bytes(header(shape="('2', 3)"), DATA), r"'shape' is not a tuple of int"),
    "shape_unclosed": (npy_bytes(header(shape="(2, 3"), DATA), r"'shape' is not a tuple of int"),
    "shape_double_comma": (npy_bytes(header(shape="(2,, 3)"), DATA), r"not a tuple of integers"),
    "shape_hex": (npy_bytes(header(shape="(0x2, 3)"), DATA), r"not a tuple of integers"),
    "shape_negative": (npy_bytes(header(shape="(-2, 3)"), DATA), r"negative dimension -2"),
    "shape_dim_overflow": (npy_bytes(header(shape="(99999999999999999999, 1)"), DATA),
                           r"does not fit in 64 bits"),
    "shape_dim_above_int64": (npy_bytes(header(shape="(9223372036854775808,)"), DATA),
                              r"does not fit in 64 bits"),
    "shape_product_overflow": (npy_bytes(header(shape="(4294967296, 4294967296)"), DATA),
                               r"element count does not fit in 64 bits"),
    "shape_bytes_overflow": (npy_bytes(header("<f8", shape="(2305843009213693952,)"), DATA),
                             r"byte size does not fit in 64 bits"),
    "shape_huge_small_file": (npy_bytes(header(shape="(1099511627776,)"), DATA),
                              r"truncated: the header says 4398046511104 bytes of data, the "
                              r"file holds 24"),
    "rank_17": (npy_bytes(header(shape="(%s)" % ("1, " * 17)), bytes(4)),
                r"rank 17 is above clmax's maximum of 16"),
    "data_truncated": (npy_bytes(GOOD, DATA[:-1]), r"truncated: the header says 24 bytes of data, "
                       r"the file holds 23"),
    "data_missing": (npy_bytes(GOOD, b""), r"truncated"),
    "trailing_bytes": (npy_bytes(GOOD, DATA + b"junk"), r"4 unexpected bytes after the 24 bytes"),
    "bool": (npy_bytes(header("|b1"), bytes(6)), r"unsupported element type '\|b1' \(bool\)"),
    "complex64": (npy_bytes(header("<c8"), bytes(48)), r"unsupported element type '<c8' \(complex\)"),
    "complex128": (npy_bytes(header("<c16"), bytes(96)), r"unsupported element type '<c16' \(complex\)"),
    "object": (npy_bytes(header("|O"), bytes(48)), r"unsupported element type '\|O' \(Python object\)"),
    "unicode": (npy_bytes(header("<U3"), bytes(72)), r"unsupported element type '<U3' \(unicode string\)"),
    "bytes": (npy_bytes(header("|S3"), bytes(18)), r"unsupported element type '\|S3' \(byte string\)"),
    "datetime": (npy_bytes(header("<M8[ns]"), bytes(48)), r"unsupported element type '<M8\[ns\]' \(datetime64\)"),
    "timedelta": (npy_bytes(header("<m8[s]"), bytes(48)), r"unsupported element type '<m8\[s\]' \(timedelta64\)"),
    "float128": (npy_bytes(header("<f16"), bytes(96)), r"unsupported element type '<f16' \(floating point\)"),
    "int128": (npy_bytes(header("<i16"), bytes(96)), r"unsupported element type '<i16' \(signed integer\)"),
    "void4": (npy_bytes(header("|V4"), bytes(24)), r"unsupported element type '\|V4' \(raw bytes\)"),
    "structured": (npy_bytes(header("[('a', '<f4'), ('b', '<i4')]"), bytes(48)),
                   r"structured \(record\) arrays are not supported"),
    "structured_v3_utf8": (npy_bytes(header("[('\u00e9', '<f4')]").encode("utf-8"), bytes(24),
                                     version=(3, 0)), r"structured"),
    "rank_0": (npy_bytes(header(shape="()"), bytes(4)), r"argmax: invalid rank"),
}

for _name, (_data, _err) in BAD_FILES.items():
    def _bad(ctx, data=_data, err=_err):
        ctx.write("in.npy", data)
        ctx.write("out.npy", b"precious")
        ctx.run("argmax", "in.npy", "out.npy", rc=1, err=r"^clmax: in\.npy: .*" + err)
        with open(ctx.path("out.npy"), "rb") as f:
            assert f.read() == b"precious", "an existing OUT was changed by a failed run"

    case("refused." + _name)(_bad)


@case("refused.missing_input")
def _(ctx):
    ctx.run("argmax", "nothere.npy", "out.npy", rc=1,
            err=r"^clmax: nothere\.npy: cannot open: No such file")
    assert not os.path.exists(ctx.path("out.npy"))


@case("refused.input_is_directory")
def _(ctx):
    os.mkdir(ctx.path("dir.npy"))
    ctx.run("hardmax", "dir.npy", "out.npy", rc=1, err=r"^clmax: dir\.npy: is a directory")


@case("refused.input_not_regular")
def _(ctx):
    if not os.path.exists("/dev/null"):
        raise Skip("no /dev/null")
    ctx.run("argmax", "/dev/null", "out.npy", rc=1, err=r"^clmax: /dev/null: not a regular file")


@case("refused.fuzz")
def _(ctx):
    """Random corruptions of valid files: every run ends with exit 0 or 1, never a signal."""
    import random

    n = np()
    rnd = random.Random(1234)
    seeds = []
    for d, shape in [("<f4", (3, 4)), (">i2", (2, 5)), ("<f8", (7,))]:
        x = sample(d, shape, seed=len(seeds))
        ctx.save("seed.npy", x, fortran=len(shape) > 1 and d[1] == "i")
        with open(ctx.path("seed.npy"), "rb") as f:
            seeds.append(f.read())
    outcomes = {0: 0, 1: 0}
    for i in range(400):
        data = bytearray(rnd.choice(seeds))
        for _ in range(rnd.randint(1, 4)):
            kind = rnd.randrange(4)
            pos = rnd.randrange(len(data))
            if kind == 0:
                data[pos] = rnd.randrange(256)
            elif kind == 1:
                data[pos] = ord(rnd.choice("{}()[],:'\" 0123456789-LTrueFalse<>|fiuVbO\n"))
            elif kind == 2:
                del data[pos:pos + rnd.randint(1, 8)]
            else:
                data[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
        if rnd.random() < 0.2:
            data = data[:rnd.randrange(len(data) + 1)]
        ctx.write("in.npy", bytes(data))
        p = subprocess.run([ctx.exe, "argmax", "in.npy", "out.npy", "--backend=cpu"],
                           cwd=ctx.dir, capture_output=True, timeout=60)
        if p.returncode not in (0, 1):
            keep = ctx.path("crash-%d.npy" % i)
            shutil.copy(ctx.path("in.npy"), keep)
            raise AssertionError("exit %d on %s: %s" % (p.returncode, keep, p.stderr))
        if p.returncode == 1 and not p.stderr.startswith(b"clmax: "):
            raise AssertionError("refusal without a message: %r" % p.stderr)
        if p.returncode == 0:
            n.load(ctx.path("out.npy"))
        outcomes[p.returncode] += 1
        ctx.no_temp_files()
    assert outcomes[0] > 0 and outcomes[1] > 0, outcomes


# ---- Output files -------------------------------------------------------------------------------


@case("output.missing_directory")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    ctx.run("argmax", "in.npy", "nodir/out.npy", rc=1,
            err=r"^clmax: nodir/out\.npy: cannot create a file beside it: No such file")


@case("output.parent_is_file")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    ctx.write("file", b"x")
    ctx.run("argmax", "in.npy", "file/out.npy", rc=1,
            err=r"^clmax: file/out\.npy: cannot create a file beside it: Not a directory")


@case("output.unwritable_directory")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    if os.path.isdir("/proc/self"):
        # Unwritable even for root.
        ctx.run("argmax", "in.npy", "/proc/self/out.npy", rc=1,
                err=r"^clmax: /proc/self/out\.npy: cannot create a file beside it")
    if os.geteuid() != 0:
        os.mkdir(ctx.path("ro"))
        os.chmod(ctx.path("ro"), 0o555)
        try:
            ctx.run("argmax", "in.npy", "ro/out.npy", rc=1, err=r"Permission denied")
        finally:
            os.chmod(ctx.path("ro"), 0o755)


@case("output.is_directory")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    os.mkdir(ctx.path("out.npy"))
    ctx.run("argmax", "in.npy", "out.npy", rc=1, err=r"^clmax: out\.npy: is a directory")
    assert os.path.isdir(ctx.path("out.npy")) and not os.listdir(ctx.path("out.npy"))


@case("output.not_regular")
def _(ctx):
    """Never rename over a device or a FIFO (as root, /dev would let us)."""
    ctx.save("in.npy", sample("<f4", (2, 3)))
    os.mkfifo(ctx.path("fifo"))
    ctx.run("argmax", "in.npy", "fifo", rc=1, err=r"^clmax: fifo: exists and is not a regular file")
    assert stat.S_ISFIFO(os.stat(ctx.path("fifo")).st_mode)
    if os.path.exists("/dev/null"):
        ctx.run("argmax", "in.npy", "/dev/null", rc=1, err=r"not a regular file")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@case("output.symlink")
def _(ctx):
    """Through a symbolic link the target file is replaced and the link kept."""
    x = sample("<f4", (5, 3), seed=34)
    ctx.save("in.npy", x)
    os.mkdir(ctx.path("sub"))
    ctx.write("sub/target.npy", b"old")
    os.symlink("sub/target.npy", ctx.path("link.npy"))
    ctx.run("argmax", "in.npy", "link.npy")
    assert os.path.islink(ctx.path("link.npy"))
    ctx.check("sub/target.npy", ref_argmax(x, 0))
    # A dangling link is replaced by the file.
    os.symlink("nowhere/x.npy", ctx.path("dangling.npy"))
    ctx.run("argmax", "in.npy", "dangling.npy")
    assert not os.path.islink(ctx.path("dangling.npy"))
    ctx.check("dangling.npy", ref_argmax(x, 0))


@case("output.existing_untouched_on_failure")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    for args in [["--axis=7"], ["--bf16"], ["--backend=opencl", "--device=no-such-device-xyz"]]:
        ctx.write("out.npy", b"precious")
        ctx.run("argmax", "in.npy", "out.npy", *args, rc=1)
        with open(ctx.path("out.npy"), "rb") as f:
            assert f.read() == b"precious"
    ctx.write("out.npy", b"precious")
    ctx.run("argmax", "in.npy", "out.npy", "--keepdims=3", rc=2)
    with open(ctx.path("out.npy"), "rb") as f:
        assert f.read() == b"precious"


@case("output.existing_replaced")
def _(ctx):
    x = sample("<f4", (5, 3), seed=30)
    ctx.save("in.npy", x)
    ctx.write("out.npy", b"old contents" * 1000)
    ctx.run("argmax", "in.npy", "out.npy")
    ctx.check("out.npy", ref_argmax(x, 0))


@case("output.same_as_input")
def _(ctx):
    x = sample("<f4", (5, 3), seed=31)
    ctx.save("x.npy", x)
    ctx.run("hardmax", "x.npy", "x.npy", "--axis=0")
    ctx.check("x.npy", ref_hardmax(x, 0, 13, x.dtype, 1))


@case("output.mode")
def _(ctx):
    """The output gets the mode a plain file would (0666 less the umask), not mkstemp's 0600."""
    ctx.save("in.npy", sample("<f4", (5, 3)))
    old = os.umask(0o022)
    try:
        ctx.run("argmax", "in.npy", "out.npy")
    finally:
        os.umask(old)
    mode = stat.S_IMODE(os.stat(ctx.path("out.npy")).st_mode)
    assert mode == 0o644, oct(mode)


@case("output.large")
def _(ctx):
    """A few MiB in and out, through the mapped input and output paths."""
    x = sample("<f4", (512, 1024), seed=32)
    ctx.save("in.npy", x)
    ctx.run("hardmax", "in.npy", "out.npy", "--backend=cpu")
    ctx.check("out.npy", ref_hardmax(x, -1, 13, x.dtype, 1))
    ctx.run("argmax", "in.npy", "out.npy", "--axis=0", "--backend=cpu")
    ctx.check("out.npy", ref_argmax(x, 0))


# ---- Usage --------------------------------------------------------------------------------------


@case("usage.help")
def _(ctx):
    for args in [["--help"], ["-h"], ["help"]]:
        ctx.run(*args, out=r"^Usage: clmax <command>.*argmax.*hardmax.*devices.*Exit status")
    for cmd in ["argmax", "hardmax", "devices"]:
        for h in ["--help", "-h"]:
            ctx.run(cmd, h, out=r"^Usage: clmax %s" % cmd)
        ctx.run("help", cmd, out=r"^Usage: clmax %s" % cmd)
    ctx.run("argmax", "--help", out=r"--axis=N.*--keepdims=0\|1.*--select-last-index=0\|1.*"
                                     r"--opset=N.*--backend=auto\|opencl\|cpu.*--device=SEL.*"
                                     r"--bf16.*-v")
    ctx.run("hardmax", "in.npy", "--help", out=r"^Usage: clmax hardmax")
    ctx.run(rc=2, err=r"Usage: clmax")


@case("usage.argmin_help")
def _(ctx):
    ctx.run("--help", out=r"argmin IN\.npy OUT\.npy .*--values=VALUES\.npy")
    for args in [["argmin", "--help"], ["argmin", "-h"], ["help", "argmin"],
                 ["argmin", "in.npy", "--help"]]:
        ctx.run(*args, out=r"^Usage: clmax argmin IN\.npy OUT\.npy")
    ctx.run("argmin", "--help", out=r"--axis=N.*--keepdims=0\|1.*--select-last-index=0\|1.*"
                                     r"--opset=N.*--values=VALUES\.npy.*"
                                     r"--backend=auto\|opencl\|cpu.*--device=SEL.*--bf16.*-v")
    ctx.run("argmax", "--help", out=r"--values=VALUES\.npy")
    p = ctx.run("hardmax", "--help")
    assert b"--values" not in p.stdout


@case("usage.argmin_errors")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    bad = [
        (["argmin"], r"missing IN\.npy and OUT\.npy"),
        (["argmin", "in.npy"], r"missing OUT\.npy"),
        (["argmin", "in.npy", "out.npy", "--frobnicate"], r"unknown option '--frobnicate'"),
        (["argmin", "in.npy", "out.npy", "--axis=one"], r"--axis=one: not an integer"),
        (["argmin", "in.npy", "out.npy", "--keepdims=2"], r"--keepdims=2: must be 0 or 1"),
        (["argmin", "in.npy", "out.npy", "--select-last-index=2"],
         r"--select-last-index=2: must be 0 or 1"),
        (["argmin", "in.npy", "out.npy", "--select-last-index=1", "--opset=11"],
         r"--select-last-index needs opset 12 or later"),
        (["argmin", "in.npy", "out.npy", "--opset=10"], r"--opset=10: ArgMin is defined at "
                                                        r"opsets 1, 11, 12 and 13"),
        (["argmin", "in.npy", "out.npy", "--backend=gpu"], r"--backend=gpu: must be auto"),
        (["argmin", "in.npy", "out.npy", "--device="], r"--device needs a value"),
        (["argmin", "in.npy", "out.npy", "--bf16=1"], r"unknown option '--bf16=1'"),
    ]
    for args, err in bad:
        ctx.run(*args, rc=2, err=r"^clmax argmin: " + err + r".*\nTry 'clmax argmin --help'\.\n$")
        assert not os.path.exists(ctx.path("out.npy"))
    ctx.run("argmin", "in.npy", "out.npy", "--axis=2", rc=1, err=r"in\.npy: argmin: invalid axis")


@case("usage.version")
def _(ctx):
    ctx.run("--version", out=r"^clmax \d+\.\d+\.\d+\n$")


@case("usage.errors")
def _(ctx):
    ctx.save("in.npy", sample("<f4", (2, 3)))
    bad = [
        (["frobnicate"], r"unknown command 'frobnicate'"),
        (["--frobnicate"], r"unknown option '--frobnicate'"),
        (["help", "frobnicate"], r"unknown command 'frobnicate'"),
        (["argmax"], r"missing IN\.npy and OUT\.npy"),
        (["argmax", "in.npy"], r"missing OUT\.npy"),
        (["argmax", "in.npy", "out.npy", "extra.npy"], r"unexpected argument 'extra\.npy'"),
        (["argmax", "in.npy", "out.npy", "--frobnicate"], r"unknown option '--frobnicate'"),
        (["argmax", "in.npy", "out.npy", "-x"], r"unknown option '-x'"),
        (["argmax", "in.npy", "out.npy", "--axis"], r"--axis needs a value"),
        (["argmax", "in.npy", "out.npy", "--axis="], r"--axis=: not an integer"),
        (["argmax", "in.npy", "out.npy", "--axis=one"], r"--axis=one: not an integer"),
        (["argmax", "in.npy", "out.npy", "--axis=1.5"], r"not an integer"),
        (["argmax", "in.npy", "out.npy", "--axis=99999999999999999999"], r"not an integer"),
        (["argmax", "in.npy", "out.npy", "--axis= 1"], r"not an integer"),
        (["argmax", "in.npy", "out.npy", "--axes=1"], r"unknown option '--axes=1'"),
        (["argmax", "in.npy", "out.npy", "--keepdims=2"], r"--keepdims=2: must be 0 or 1"),
        (["argmax", "in.npy", "out.npy", "--keepdims=true"], r"must be 0 or 1"),
        (["argmax", "in.npy", "out.npy", "--keepdims"], r"--keepdims needs a value"),
        (["argmax", "in.npy", "out.npy", "--select-last-index=2"], r"must be 0 or 1"),
        (["argmax", "in.npy", "out.npy", "--select-last-index=1", "--opset=11"],
         r"--select-last-index needs opset 12 or later"),
        (["argmax", "in.npy", "out.npy", "--opset=1", "--select-last-index=0"],
         r"--select-last-index needs opset 12 or later"),
        (["argmax", "in.npy", "out.npy", "--opset=10"], r"--opset=10: ArgMax is defined at"),
        (["argmax", "in.npy", "out.npy", "--opset=14"], r"--opset=14: ArgMax is defined at"),
        (["argmax", "in.npy", "out.npy", "--opset=x"], r"--opset=x"),
        (["argmax", "in.npy", "out.npy", "--opset"], r"--opset needs a value"),
        (["hardmax", "in.npy", "out.npy", "--opset=12"], r"--opset=12: Hardmax is defined at"),
        (["hardmax", "in.npy", "out.npy", "--keepdims=1"], r"unknown option '--keepdims=1'"),
        (["hardmax", "in.npy", "out.npy", "--select-last-index=1"], r"unknown option"),
        (["argmax", "in.npy", "out.npy", "--backend=gpu"], r"--backend=gpu: must be auto"),
        (["argmax", "in.npy", "out.npy", "--backend"], r"--backend needs a value"),
        (["argmax", "in.npy", "out.npy", "--device"], r"--device needs a value"),
        (["argmax", "in.npy", "out.npy", "--device="], r"--device needs a value"),
        (["argmax", "in.npy", "out.npy", "--bf16=1"], r"unknown option '--bf16=1'"),
        (["argmax", "in.npy", "out.npy", "--verbose=1"], r"unknown option"),
        (["devices", "--frobnicate"], r"unknown option '--frobnicate'"),
        (["devices", "extra"], r"unexpected argument 'extra'"),
        (["devices", "--backend=gpu"], r"--backend=gpu: must be auto"),
    ]
    for args, err in bad:
        cmd = args[0] if args[0] in ("argmax", "hardmax", "devices") else None
        hint = r"\nTry 'clmax %s--help'\.\n$" % (cmd + " " if cmd else "")
        ctx.run(*args, rc=2, err=r"^clmax.*: " + err + r".*" + hint)
        assert not os.path.exists(ctx.path("out.npy"))


# ---- Devices ------------------------------------------------------------------------------------


@case("devices")
def _(ctx):
    p = ctx.run("devices", out=r"\nauto picks: (opencl|cpu), .+\n$")
    text = p.stdout.decode()
    if os.environ.get("CLMAX_EXPECT_NO_OPENCL") == "1":
        assert text.startswith("No OpenCL platform found") and "auto picks: cpu, CPU" in text, text
    if "opencl, " in text.split("auto picks:")[1]:
        # The picked device is marked with its index in the list.
        assert re.search(r"auto picks: opencl, .+ / .+ \[\d+\]\n$", text), text
    ctx.run("devices", "--backend=cpu", out=r"\ncpu picks: cpu, CPU")
    ctx.run("devices", "--backend", "cpu", out=r"\ncpu picks: cpu, CPU")


@case("devices.opencl")
def _(ctx):
    ctx.opencl()
    p = ctx.run("devices", "--backend=opencl", out=r"platform 0: .+\n  \[0\] .+\n.*"
                                                   r"\nopencl picks: opencl, .+ \[\d+\]\n$")
    # Indices run across platforms: 0, 1, 2, ... in listing order.
    indices = [int(i) for i in re.findall(r"^  \[(\d+)\] ", p.stdout.decode(), re.M)]
    assert indices == list(range(len(indices))), indices
    ctx.run("devices", "--device=0", out=r"\nopencl with device '0' picks: opencl, .+ \[0\]\n$")
    ctx.run("devices", "--device=no-such-device-xyz", rc=1, out=r"picks: nothing",
            err=r"cannot start the opencl backend: no OpenCL device")


def no_icd_env(ctx):
    """An ICD loader environment with no OpenCL platform at all."""
    os.mkdir(ctx.path("no_vendors"))
    return {"OCL_ICD_VENDORS": ctx.path("no_vendors"), "OCL_ICD_FILENAMES": "",
            "CLMAX_BACKEND": "auto"}


@case("no_opencl")
def _(ctx):
    if not sys.platform.startswith("linux"):
        raise Skip("needs the ocl-icd loader")
    env = no_icd_env(ctx)
    x = sample("<f4", (4, 5), seed=33)
    ctx.save("in.npy", x)
    ctx.run("devices", env=env, out=r"^No OpenCL platform found.*\nauto picks: cpu, CPU")
    ctx.run("argmax", "in.npy", "out.npy", "-v", env=env, err=r"backend: cpu")
    ctx.check("out.npy", ref_argmax(x, 0))
    ctx.write("out.npy", b"precious")
    ctx.run("argmax", "in.npy", "out.npy", "--backend=opencl", env=env, rc=1,
            err=r"^clmax: cannot start the backend: no OpenCL device")
    with open(ctx.path("out.npy"), "rb") as f:
        assert f.read() == b"precious"
    ctx.run("devices", "--backend=opencl", env=env, rc=1, out=r"picks: nothing",
            err=r"no OpenCL device")


@case("example")
def _(ctx):
    """The example the README runs first."""
    n = np()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                       "examples", "logits.npy")
    x = n.load(src)
    assert x.dtype == n.float32 and x.shape == (4, 10)
    ctx.run("argmax", src, "out.npy", "--axis=1")
    ctx.check("out.npy", ref_argmax(x, 1))


# ---- Driver -------------------------------------------------------------------------------------


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    if len(argv) != 4 or argv[3] not in CASES:
        sys.stderr.write(__doc__)
        return 2
    exe, workroot, name = os.path.abspath(argv[1]), argv[2], argv[3]
    os.makedirs(workroot, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix=name + ".", dir=workroot)
    try:
        CASES[name](Ctx(exe, workdir))
    except Skip as e:
        print("SKIP %s: %s" % (name, e))
        shutil.rmtree(workdir, ignore_errors=True)
        return SKIP
    except Exception:
        traceback.print_exc()
        print("FAIL %s (files kept in %s)" % (name, workdir))
        return 1
    shutil.rmtree(workdir, ignore_errors=True)
    print("PASS %s" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
