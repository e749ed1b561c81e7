#!/usr/bin/env python3
"""The clmax CLI's usage: help, version, and the usage errors (exit status 2).

Run by ctest, one test per case; see cli_common.py."""
import os
import sys

from cli_common import (case, sample, main)


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


if __name__ == "__main__":
    sys.exit(main(sys.argv))
