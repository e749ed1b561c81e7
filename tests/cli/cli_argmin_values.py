#!/usr/bin/env python3
"""The clmax CLI's argmin and --values (the winners' values beside the indices):
every type on both backends, special values, and the files --values writes.

Run by ctest, one test per case; see cli_common.py."""
import os
import sys

from cli_common import (FLOAT_TYPES, INT_TYPES, backend_args, bf16_bits, bf16_to_f32, case, np,
                        ref_arg, ref_argmax, ref_argmin, ref_values, sample, main)


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


if __name__ == "__main__":
    sys.exit(main(sys.argv))
