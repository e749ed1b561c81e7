#!/usr/bin/env python3
"""The clmax CLI's answers for every input type: ArgMax and Hardmax on both backends,
bfloat16 (and the type and opset rules it brings), and the README's example.

Run by ctest, one test per case; see cli_common.py."""
import os
import sys

from cli_common import (FLOAT_TYPES, INT_TYPES, backend_args, bf16_bits, bf16_to_f32, case, header,
                        np, npy_bytes, ref_argmax, ref_hardmax, sample, main)


# ---- Every input type, both operators, both backends --------------------------------------------


def cold(ctx, backend):
    """The environment of a run that builds its programs from source: a program folder of the
    case's own and PoCL's kernel cache off, so that what a driver's compiler prints on a build
    (PoCL: "1 warning generated." for a kernel with a warning) reaches stderr, which the runs
    of the type cases expect empty (quiet)."""
    return {"CLMAX_CACHE_DIR": ctx.path("programs"), "POCL_KERNEL_CACHE": "0"} \
        if backend == "opencl" else {}


def argmax_type_case(t, backend):
    def run(ctx):
        n = np()
        b = backend_args(ctx, backend)
        env = cold(ctx, backend)
        x = sample("<" + t if t[1] != "1" else "|" + t, (3, 5, 7), seed=len(t) + ord(t[0]))
        ctx.save("in.npy", x)
        for axis in [0, 1, 2, -1, -3]:
            ctx.run("argmax", "in.npy", "out.npy", "--axis=%d" % axis, *b, env=env, quiet=True)
            ctx.check("out.npy", ref_argmax(x, axis))
        ctx.run("argmax", "in.npy", "out.npy", "--axis=1", "--keepdims=0", *b, env=env,
                quiet=True)
        ctx.check("out.npy", ref_argmax(x, 1, keepdims=0))
        ctx.run("argmax", "in.npy", "out.npy", "--axis=2", "--select-last-index=1", *b, env=env,
                quiet=True)
        ctx.check("out.npy", ref_argmax(x, 2, select_last_index=1))
        # A long contiguous axis and a long strided one.
        y = sample(x.dtype, (3, 3000), seed=7)
        ctx.save("long.npy", y)
        for axis in [0, 1]:
            ctx.run("argmax", "long.npy", "out.npy", "--axis=%d" % axis, *b, env=env, quiet=True)
            ctx.check("out.npy", ref_argmax(y, axis))
        assert n is not None

    return run


def hardmax_type_case(t, backend):
    def run(ctx):
        b = backend_args(ctx, backend)
        env = cold(ctx, backend)
        x = sample("<" + t, (3, 4, 6), seed=ord(t[1]))
        ctx.save("in.npy", x)
        for axis in [None, 0, 1, -2]:
            args = [] if axis is None else ["--axis=%d" % axis]
            ctx.run("hardmax", "in.npy", "out.npy", *args, *b, env=env, quiet=True)
            ctx.check("out.npy", ref_hardmax(x, -1 if axis is None else axis, 13, x.dtype, 1))
        for opset in [1, 11]:
            ctx.run("hardmax", "in.npy", "out.npy", "--opset=%d" % opset, *b, env=env,
                    quiet=True)
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


if __name__ == "__main__":
    sys.exit(main(sys.argv))
